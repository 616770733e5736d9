/* markov: the spectrum of random Markov (softmax-at-init) attention (claims S1, S2, S4).
 *
 * A is the row-normalised matrix of iid positive entries G_ij with mean m and standard
 * deviation s (lognormal by default: G = exp(L), L ~ N(-ln2/2, ln2), so m = s = 1),
 * or the key-query attention softmax(Q K^T / sqrt(d_h)) with Q, K iid N(0, scale)
 * (exactly X W_Q, X W_K for orthonormal X): logits of standard deviation `scale`, the
 * same meaning as in every simulator with a scale. Its matching Markov model has
 * lognormal entries of log-variance v = scale^2, so (s/m)^2 = e^v - 1 (claims S8). "gap = remove" studies A - 11^T/n.
 * Theory (Naderi, Nait Saada, Tanner, "Mind the Gap"): sigma_1 -> 1, the other singular
 * values of sqrt(n) A fill the quarter circle on [0, 2 s/m], its other eigenvalues fill
 * the disc of radius s/m uniformly, stable rank -> 1 + s^2/m^2,
 * while without the gap the stable rank grows like n/4.
 *
 * "spectrum = top2" asks only for sigma_1, sigma_2 and the stable rank: Lanczos at
 * O(n^2) a step instead of the O(n^3) SVD. */
#include "attnrank/attention.h"
#include "attnrank/linalg.h"
#include "markov/markov.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LANCZOS_STEPS = 160 };
/* The singular-value density of sqrt(n) A (outlier excluded), in units of s/m, on a
 * fixed grid: the quarter-circle law lives on [0, 2]; the grid reaches 3 for the
 * finite-n spill-over. Fixed bins let the engine average densities over trials. */
enum { DENSITY_BINS = 60 };
static const double DENSITY_TOP = 3.0;
/* The disc law's 2-D histogram: EIG_BINS x EIG_BINS cells on [-EIG_EDGE, EIG_EDGE]^2. */
enum { EIG_BINS = 36 };
static const double EIG_EDGE = 1.125;

static const char *const laws[] = {[AR_MARKOV_LAW_LOGNORMAL] = "lognormal", [AR_MARKOV_LAW_EXPONENTIAL] = "exponential", [AR_MARKOV_LAW_UNIFORM] = "uniform", [AR_MARKOV_LAW_KEYQUERY] = "keyquery", NULL};
static const char *const gaps[] = {[AR_MARKOV_GAP_KEEP] = "keep", [AR_MARKOV_GAP_REMOVE] = "remove", NULL};
static const char *const spectra[] = {[AR_SPECTRUM_SPECTRUM_FULL] = "full", [AR_SPECTRUM_SPECTRUM_TOP2] = "top2", NULL};
static const char *const no_yes[] = {[AR_SPECTRUM_EIGENVALUES_NO] = "no", [AR_SPECTRUM_EIGENVALUES_YES] = "yes", NULL};

static const ar_param params[] = {
    [AR_SPECTRUM_N] = {"n", AR_PARAM_INT, 256, 2, 16384, 0, NULL, "tokens: A is n x n"},
    [AR_SPECTRUM_ENTRIES] = {"entries", AR_PARAM_CHOICE, AR_MARKOV_LAW_LOGNORMAL, 0, 0, 0, laws,
     "law of the entries before row normalisation: lognormal (m = s = 1), exponential(1) "
     "(m = s = 1), uniform(0, 1) (m = 1/2, s = 1/sqrt(12)); keyquery = softmax(Q K^T / sqrt(d_h))"},
    [AR_SPECTRUM_GAP] = {"gap", AR_PARAM_CHOICE, AR_MARKOV_GAP_KEEP, 0, 0, 0, gaps, "keep: A; remove: A - 11^T/n (no Perron outlier)"},
    [AR_SPECTRUM_SPECTRUM] = {"spectrum", AR_PARAM_CHOICE, AR_SPECTRUM_SPECTRUM_FULL, 0, 0, 0, spectra,
     "full: every singular value (LAPACK dgesdd); top2: sigma_1, sigma_2 and the stable rank by Lanczos"},
    [AR_SPECTRUM_D_H] = {"d_h", AR_PARAM_INT, 64, 0, 16384, 0, NULL, "head width (entries = keyquery); 0 means d_h = n"},
    /* The spectrum is stored in units of the matched model's s/m = sqrt(e^(scale^2) - 1):
     * below 1e-6 the logits vanish in exp's rounding (A is 11^T/n to the last bit, s/m
     * rounds to 0), above 26.6 e^(scale^2) overflows. */
    [AR_SPECTRUM_SCALE] = {"scale", AR_PARAM_REAL, 1, 1e-6, 25, 0, NULL,
     "standard deviation of the logits q_i . k_j / sqrt(d_h) (entries = keyquery): Q, K entries iid N(0, scale); "
     "within [1e-6, 25], where the matched model's s/m = sqrt(e^(scale^2) - 1) is neither lost to rounding nor "
     "infinite"},
    [AR_SPECTRUM_EIGENVALUES] = {"eigenvalues", AR_PARAM_CHOICE, 0, 0, 0, 0, no_yes,
     "yes: also the eigenvalues of sqrt(n) A (LAPACK dgeev, about 3x an SVD's cost) for the disc law"},
    [AR_SPECTRUM_D_H_PER_N] = {"d_h_per_n", AR_PARAM_INT, 0, 0, 1024, 0, NULL,
     "head width as a multiple of n (entries = keyquery): d_h = d_h_per_n n, in place of d_h; 0: d_h as given"},
};

/* Mean and standard deviation of an entry law; NaN for key-query attention. */
void ar_markov_law_moments(int law, double *m, double *s)
{
    switch (law) {
    case AR_MARKOV_LAW_LOGNORMAL:
    case AR_MARKOV_LAW_EXPONENTIAL: *m = 1, *s = 1; break;
    case AR_MARKOV_LAW_UNIFORM: *m = 0.5, *s = 1 / sqrt(12.0); break;
    default: *m = *s = NAN;
    }
}

double ar_markov_ratio(const ar_point *p)
{
    int law = ar_point_choice(p, AR_SPECTRUM_ENTRIES);
    if (law == AR_MARKOV_LAW_KEYQUERY) {
        double v = ar_point_real(p, AR_SPECTRUM_SCALE) * ar_point_real(p, AR_SPECTRUM_SCALE);
        return sqrt(expm1(v));
    }
    double m, s;
    ar_markov_law_moments(law, &m, &s);
    return s / m;
}

/* Quarter-circle law of radius 2r: the CDF of the singular values of an n x n matrix
 * with iid entries of variance r^2 / n. */
double ar_quarter_circle_cdf(double x, double r)
{
    if (x <= 0)
        return 0;
    if (x >= 2 * r)
        return 1;
    const double pi = 3.14159265358979323846;
    return (0.5 * x * sqrt(4 * r * r - x * x) + 2 * r * r * asin(x / (2 * r))) / (pi * r * r);
}

static int full_spectrum(const ar_point *p) { return ar_point_choice(p, AR_SPECTRUM_SPECTRUM) == AR_SPECTRUM_SPECTRUM_FULL; }
static int density_bins(const ar_point *p) { (void)p; return DENSITY_BINS; }
static double bin_centre(int i) { return (i + 0.5) * DENSITY_TOP / DENSITY_BINS; }
static int eig_cells(const ar_point *p) { (void)p; return EIG_BINS * EIG_BINS; }
static double eig_centre(int i) { return -EIG_EDGE + (i + 0.5) * 2 * EIG_EDGE / EIG_BINS; }
/* d_h = 0 asks for d_h = n: the logit matrix then has full rank as n grows. */
static size_t head_width(const ar_point *p)
{
    int dh = ar_point_int(p, AR_SPECTRUM_D_H), per_n = ar_point_int(p, AR_SPECTRUM_D_H_PER_N);
    size_t n = (size_t)ar_point_int(p, AR_SPECTRUM_N);
    return per_n > 0 ? (size_t)per_n * n : dh == 0 ? n : (size_t)dh;
}
static int keyquery(const ar_point *p) { return ar_point_choice(p, AR_SPECTRUM_ENTRIES) == AR_MARKOV_LAW_KEYQUERY; }
/* edge_over_matched: key-query attention's edge against its matched model's, drawn in
 * the same trial at the same n (top2: Lanczos on both). */
static int edge_matched(const ar_point *p)
{
    return keyquery(p) && ar_point_choice(p, AR_SPECTRUM_SPECTRUM) == AR_SPECTRUM_SPECTRUM_TOP2 &&
           ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_KEEP;
}

static int check_point(const ar_point *p, char *why, size_t len)
{
    long n = ar_point_int(p, AR_SPECTRUM_N), per_n = ar_point_int(p, AR_SPECTRUM_D_H_PER_N);
    if (per_n * n > 16384) {
        snprintf(why, len, "d_h_per_n x n = %ld: the head is at most 16384 wide", per_n * n);
        return AR_SPECTRUM_D_H_PER_N;
    }
    return -1;
}
static int wants_eigenvalues(const ar_point *p) { return ar_point_choice(p, AR_SPECTRUM_EIGENVALUES) == 1; }
static int disc_law(const ar_point *p)
{
    return wants_eigenvalues(p) && ar_point_choice(p, AR_SPECTRUM_ENTRIES) != AR_MARKOV_LAW_KEYQUERY &&
           ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_KEEP;
}

typedef struct {
    double *a, *sv, *svd_work, *lanczos, *start, *q, *k, *copy, *wr, *wi, *eig_work, *matched;
    int *iwork;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    size_t n = (size_t)ar_point_int(p, AR_SPECTRUM_N), dh = head_width(p);
    int full = full_spectrum(p), keyquery = ar_point_choice(p, AR_SPECTRUM_ENTRIES) == AR_MARKOV_LAW_KEYQUERY;
    const size_t D = sizeof(double);
    ar_carver c = {base, 0};
    l->a = ar_carve(&c, n * n * D);
    l->sv = ar_carve(&c, n * D);
    l->svd_work = ar_carve(&c, full ? ar_singular_values_workspace((int)n, (int)n) * D : 0);
    l->iwork = ar_carve(&c, full ? 8 * n * sizeof(int) : 0);
    l->lanczos = ar_carve(&c, full ? 0 : ar_top_singular_values_workspace((int)n, (int)n, LANCZOS_STEPS) * D);
    l->start = ar_carve(&c, full ? 0 : n * D);
    l->q = ar_carve(&c, keyquery ? n * dh * D : 0);
    l->k = ar_carve(&c, keyquery ? n * dh * D : 0);
    l->matched = ar_carve(&c, edge_matched(p) ? n * n * D : 0);
    int eig = wants_eigenvalues(p);
    l->copy = ar_carve(&c, eig ? n * n * D : 0);
    l->wr = ar_carve(&c, eig ? n * D : 0);
    l->wi = ar_carve(&c, eig ? n * D : 0);
    l->eig_work = ar_carve(&c, eig ? ar_eigenvalues_workspace((int)n) * D : 0);
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double n = ar_point_int(p, AR_SPECTRUM_N), dh = (double)head_width(p);
    return (full_spectrum(p) ? 4.0 * n * n * n : 40.0 * 4 * n * n) + (wants_eigenvalues(p) ? 12.0 * n * n * n : 0) +
           (keyquery(p) ? 2.0 * n * n * dh : 0) + (edge_matched(p) ? 40.0 * 4 * n * n + 20 * n * n : 0);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The disc law: the eigenvalues of sqrt(n) A other than the Perron one (A 1 = 1) fill
 * the disc of radius s/m uniformly, so their moduli over s/m have CDF r^2 on [0, 1].
 * Writes the bulk's largest modulus over s/m and the KS distance of the moduli from r^2. */
/* Eigenvalues of sqrt(n) A over s/m, the Perron one (the largest modulus) left out, as a
 * density per unit area on the EIG_BINS x EIG_BINS grid (rows: real part, columns:
 * imaginary part); the disc law is 1/pi inside the unit circle. */
static void eigenvalue_density(int n, double radius, const double *wr, const double *wi, double *density)
{
    int perron = 0;
    for (int i = 1; i < n; ++i)
        if (hypot(wr[i], wi[i]) > hypot(wr[perron], wi[perron]))
            perron = i;
    double width = 2 * EIG_EDGE / EIG_BINS, scale = sqrt((double)n) / radius;
    for (int c = 0; c < EIG_BINS * EIG_BINS; ++c)
        density[c] = 0;
    for (int i = 0; i < n; ++i) {
        int row = (int)floor((wr[i] * scale + EIG_EDGE) / width), column = (int)floor((wi[i] * scale + EIG_EDGE) / width);
        if (i != perron && row >= 0 && row < EIG_BINS && column >= 0 && column < EIG_BINS)
            density[row * EIG_BINS + column] += 1.0 / ((n - 1) * width * width);
    }
}

static int disc_statistics(const ar_point *p, const layout *l, int n, double *radius, double *ks, double *density,
                           double *moment2)
{
    double m, s;
    ar_markov_law_moments(ar_point_choice(p, AR_SPECTRUM_ENTRIES), &m, &s);
    if (ar_eigenvalues(n, l->copy, l->wr, l->wi, l->eig_work) != 0)
        return 1;
    eigenvalue_density(n, s / m, l->wr, l->wi, density);
    double *r = l->wr; /* reused for the moduli */
    for (int i = 0; i < n; ++i)
        r[i] = sqrt((double)n) * hypot(l->wr[i], l->wi[i]) / (s / m);
    qsort(r, (size_t)n, sizeof *r, compare_doubles);
    int count = n - 1; /* the largest is the Perron eigenvalue sqrt(n) */
    *radius = r[count - 1];
    /* A linear statistic of the bulk: it converges like 1/n, where the largest modulus
     * creeps in with sqrt(log n / n) Gumbel corrections. The disc of radius 1 gives 1/2. */
    *moment2 = 0;
    for (int i = 0; i < count; ++i)
        *moment2 += r[i] * r[i] / count;
    *ks = 0;
    for (int i = 0; i < count; ++i) {
        double f = r[i] < 1 ? r[i] * r[i] : 1;
        *ks = fmax(*ks, fmax(fabs(f - (double)i / count), fabs(f - (double)(i + 1) / count)));
    }
    return 0;
}

ar_markov_draw ar_markov_spectrum_draw(const ar_point *p)
{
    return (ar_markov_draw){ar_point_int(p, AR_SPECTRUM_N), ar_point_choice(p, AR_SPECTRUM_ENTRIES),
                            ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_REMOVE, (int)head_width(p),
                            ar_point_real(p, AR_SPECTRUM_SCALE)};
}

void ar_markov_sample(const ar_markov_draw *draw, ar_rng *rng, double *a, double *q, double *k)
{
    int n = draw->n, law = draw->law, remove_gap = draw->remove_gap;
    size_t nn = (size_t)n * n;
    switch (law) {
    case AR_MARKOV_LAW_LOGNORMAL: {
        const double mu = -0.5 * log(2.0), sigma = sqrt(log(2.0));
        ar_rng_normals(rng, a, nn);
        for (size_t i = 0; i < nn; ++i)
            a[i] = exp(mu + sigma * a[i]);
        break;
    }
    case AR_MARKOV_LAW_EXPONENTIAL:
        for (size_t i = 0; i < nn; ++i)
            a[i] = -log(ar_rng_uniform(rng));
        break;
    case AR_MARKOV_LAW_UNIFORM:
        for (size_t i = 0; i < nn; ++i)
            a[i] = ar_rng_uniform(rng);
        break;
    default: { /* key-query attention: softmax rows are already stochastic */
        int dh = draw->d_h;
        double sd = sqrt(draw->scale); /* q . k / sqrt(d_h) then has variance scale^2 */
        ar_rng_normals(rng, q, (size_t)n * dh);
        ar_rng_normals(rng, k, (size_t)n * dh);
        for (size_t i = 0; i < (size_t)n * dh; ++i)
            q[i] *= sd, k[i] *= sd;
        ar_gemm_nt(n, n, dh, q, k, a);
        ar_softmax_rows(n, n, a, sqrt((double)dh), a);
    }
    }
    for (int i = 0; law != AR_MARKOV_LAW_KEYQUERY && i < n; ++i) {
        double *row = a + (size_t)i * n, sum = 0;
        for (int j = 0; j < n; ++j)
            sum += row[j];
        for (int j = 0; j < n; ++j)
            row[j] /= sum;
    }
    if (remove_gap)
        for (size_t i = 0; i < nn; ++i)
            a[i] -= 1.0 / n;
}

/* Kolmogorov-Smirnov distance between the singular values of sqrt(n) A (descending,
 * the outlier skipped when the gap is kept) and the quarter-circle law. */
static double ks_distance(const ar_point *p, const double *sv, int n)
{
    double ratio = ar_markov_ratio(p);
    int skip = ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_KEEP;
    int count = n - skip;
    double ks = 0, root_n = sqrt((double)n);
    for (int i = 0; i < count; ++i) {
        double x = root_n * sv[n - 1 - i]; /* ascending */
        double f = ar_quarter_circle_cdf(x, ratio);
        double d = fmax(fabs(f - (double)i / count), fabs(f - (double)(i + 1) / count));
        ks = fmax(ks, d);
    }
    return ks;
}

/* Histogram of sqrt(n) sigma_i / (s/m) (outlier excluded when the gap is kept) as a
 * density on DENSITY_BINS bins of [0, DENSITY_TOP]; values beyond fall off the grid. */
static void singular_value_density(const ar_point *p, const double *sv, int n, double *density)
{
    double ratio = ar_markov_ratio(p);
    int skip = ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_KEEP, count = n - skip;
    double width = DENSITY_TOP / DENSITY_BINS;
    for (int b = 0; b < DENSITY_BINS; ++b)
        density[b] = 0;
    for (int i = skip; i < n; ++i) {
        double x = sqrt((double)n) * sv[i] / ratio;
        int b = (int)(x / width);
        if (b >= 0 && b < DENSITY_BINS)
            density[b] += 1.0 / (count * width);
    }
}

/* The matched model of key-query attention at the same n: softmax rows of iid N(0, v)
 * logits, v = scale^2, the limit of q_i . k_j / sqrt(d_h) as d_h / n grows. Its
 * sqrt(n) sigma_2 carries the same finite-n edge corrections as the attention's, so
 * their difference isolates what d_h / n adds. */
static int matched_edge(const ar_point *p, ar_rng *rng, const layout *l, double *edge)
{
    int n = ar_point_int(p, AR_SPECTRUM_N);
    size_t nn = (size_t)n * n;
    double sd = ar_point_real(p, AR_SPECTRUM_SCALE);
    ar_rng_normals(rng, l->matched, nn);
    for (size_t i = 0; i < nn; ++i)
        l->matched[i] *= sd;
    ar_softmax_rows(n, n, l->matched, 1.0, l->matched);
    ar_rng_normals(rng, l->start, (size_t)n);
    double top[2];
    if (ar_top_singular_values(n, n, l->matched, 2, l->start, LANCZOS_STEPS, 1e-13, top, l->lanczos) < 0)
        return 1;
    *edge = sqrt((double)n) * top[1];
    return 0;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    int n = ar_point_int(p, AR_SPECTRUM_N);
    size_t nn = (size_t)n * n;
    ar_markov_draw draw = ar_markov_spectrum_draw(p);
    ar_markov_sample(&draw, rng, l.a, l.q, l.k);
    /* out[] laid out by the output table: two densities sit among the scalars */
#define OUT(index) (out + ar_output_offset(p, (index)))
    double *end = OUT(AR_SPECTRUM_OUT_EDGE_OVER_MATCHED) + 1;
    for (double *o = out; o < end; ++o)
        *o = NAN;
    if (wants_eigenvalues(p)) {
        memcpy(l.copy, l.a, nn * sizeof *l.a);
        if (disc_law(p) && disc_statistics(p, &l, n, OUT(AR_SPECTRUM_OUT_BULK_RADIUS), OUT(AR_SPECTRUM_OUT_KS_DISC),
                                         OUT(AR_SPECTRUM_OUT_EIG_DENSITY), OUT(AR_SPECTRUM_OUT_DISC_MOMENT2)) != 0)
            return 1;
    }
    double *sigma1 = OUT(AR_SPECTRUM_OUT_SIGMA1), *edge = OUT(AR_SPECTRUM_OUT_SQRT_N_SIGMA2);
    double *stable = OUT(AR_SPECTRUM_OUT_STABLE_RANK), *per_n = OUT(AR_SPECTRUM_OUT_STABLE_RANK_PER_N);
    if (!full_spectrum(p)) {
        double frob2 = 0;
        for (size_t i = 0; i < nn; ++i)
            frob2 += l.a[i] * l.a[i];
        ar_rng_normals(rng, l.start, (size_t)n);
        double top[2];
        if (ar_top_singular_values(n, n, l.a, 2, l.start, LANCZOS_STEPS, 1e-13, top, l.lanczos) < 0)
            return 1;
        *sigma1 = top[0];
        *edge = sqrt((double)n) * top[1];
        *stable = frob2 / (top[0] * top[0]);
        *per_n = *stable / n;
        if (edge_matched(p)) { /* after every other draw: the other outputs' streams stay as they were */
            double matched;
            if (matched_edge(p, rng, &l, &matched) != 0)
                return 1;
            *OUT(AR_SPECTRUM_OUT_EDGE_OVER_MATCHED) = *edge - matched;
        }
        return 0;
    }
    if (ar_singular_values(n, n, l.a, l.sv, l.svd_work, l.iwork) != 0)
        return 1;
    *sigma1 = l.sv[0];
    *edge = n > 1 ? sqrt((double)n) * l.sv[1] : 0;
    *stable = ar_stable_rank(l.sv, n);
    *per_n = *stable / n;
    *OUT(AR_SPECTRUM_OUT_STABLE_RANK_GRAM) = ar_stable_rank_gram(l.sv, n);
    *OUT(AR_SPECTRUM_OUT_EFFECTIVE_RANK) = ar_effective_rank(l.sv, n);
    *OUT(AR_SPECTRUM_OUT_KS_QUARTER_CIRCLE) = ks_distance(p, l.sv, n);
    singular_value_density(p, l.sv, n, OUT(AR_SPECTRUM_OUT_SV_DENSITY));
#undef OUT
    return 0;
}

/* A (or A - 11^T/n) is n x n: its rank measures lie in [1, n] (a Lanczos sigma_1 with
 * AR_RANGE_ROUNDING's room) */
static void rank_measure(const ar_point *p, double *lower, double *upper)
{
    ar_range_rank_measure(ar_point_int(p, AR_SPECTRUM_N), lower, upper);
}

static const ar_output outputs[] = {
    [AR_SPECTRUM_OUT_SIGMA1] = {"sigma1", "largest singular value of A (of A - 11^T/n when gap = remove)", NULL, NULL,
     .range = ar_range_nonnegative},
    [AR_SPECTRUM_OUT_SQRT_N_SIGMA2] = {"sqrt_n_sigma2", "sqrt(n) times the second singular value", NULL, NULL,
     .range = ar_range_nonnegative},
    [AR_SPECTRUM_OUT_STABLE_RANK] = {"stable_rank", "||A||_F^2 / ||A||_2^2", NULL, NULL,
     .definition = AR_DEFINITION_STABLE_RANK, .range = rank_measure},
    [AR_SPECTRUM_OUT_STABLE_RANK_GRAM] = {"stable_rank_gram", "stable rank of A A^T (spectrum = full)", NULL, full_spectrum,
     .definition = AR_DEFINITION_STABLE_RANK_GRAM, .range = rank_measure},
    [AR_SPECTRUM_OUT_EFFECTIVE_RANK] = {"effective_rank", "exp of the entropy of the normalised singular values (spectrum = full)", NULL,
     full_spectrum,
     .definition = AR_DEFINITION_EFFECTIVE_RANK, .range = rank_measure},
    [AR_SPECTRUM_OUT_KS_QUARTER_CIRCLE] = {"ks_quarter_circle", "Kolmogorov-Smirnov distance of the singular values of sqrt(n) A (outlier "
                          "excluded) from the quarter-circle law on [0, 2 s/m] (spectrum = full; key-query attention: s/m "
                          "of the matched lognormal model, sqrt(e^(scale^2) - 1))",
     NULL, full_spectrum, .range = ar_range_unit /* |F - i/count|, F and i/count in [0, 1] */},
    [AR_SPECTRUM_OUT_BULK_RADIUS] = {"bulk_radius", "largest modulus of the eigenvalues of sqrt(n) A other than the Perron one, over s/m "
                    "(eigenvalues = yes, iid entries, gap = keep)", NULL, disc_law, .range = ar_range_nonnegative},
    [AR_SPECTRUM_OUT_KS_DISC] = {"ks_disc", "Kolmogorov-Smirnov distance of those moduli over s/m from the uniform-disc law (CDF r^2)",
     NULL, disc_law, .range = ar_range_unit},
    [AR_SPECTRUM_OUT_SV_DENSITY] = {"sv_density", "density of the singular values of sqrt(n) A over s/m (outlier excluded) on fixed bins of "
                   "[0, 3]; the quarter-circle law is sqrt(4 - x^2) / pi on [0, 2] (spectrum = full; key-query "
                   "attention: s/m of the matched lognormal model)",
     NULL, full_spectrum, density_bins, "x", bin_centre, .range = ar_range_nonnegative /* counts over widths */},
    [AR_SPECTRUM_OUT_EIG_DENSITY] = {"eig_density", "density per unit area of the eigenvalues of sqrt(n) A over s/m (Perron eigenvalue "
                    "excluded) on a fixed grid of [-1.125, 1.125]^2; the disc law is 1/pi inside the unit "
                    "circle (eigenvalues = yes, iid entries, gap = keep)",
     NULL, disc_law, eig_cells, "re", eig_centre, EIG_BINS, "im", eig_centre, .range = ar_range_nonnegative},
    [AR_SPECTRUM_OUT_DISC_MOMENT2] = {"disc_moment2", "mean squared modulus of the eigenvalues of sqrt(n) A over s/m, Perron one excluded: "
                     "1/2 for the uniform disc of radius 1 (eigenvalues = yes, iid entries, gap = keep)",
     NULL, disc_law, .range = ar_range_nonnegative},
    [AR_SPECTRUM_OUT_STABLE_RANK_PER_N] = {"stable_rank_per_n", "stable_rank / n (without the gap it tends to 1/4)",
     .range = ar_range_unit_rounded},
    [AR_SPECTRUM_OUT_EDGE_OVER_MATCHED] = {"edge_over_matched", "sqrt(n) sigma_2 of key-query attention minus that of its "
     "matched model (softmax rows of iid N(0, scale^2) logits) drawn in the same trial at the same n (entries = "
     "keyquery, spectrum = top2, gap = keep)", NULL, edge_matched},
};

const ar_sim ar_sim_markov_spectrum = {
    .name = "markov_spectrum",
    .summary = "singular values of random Markov (softmax-at-init) attention A, or of A - 11^T/n",
    AR_SIM_TABLES(params, outputs),
    .check = check_point,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
