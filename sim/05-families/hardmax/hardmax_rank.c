/* hardmax: the simulators of the hardmax rank bound (claims H1-H5).
 *
 * X (n x d) has Haar-orthonormal rows (or iid N(0, 1/d) rows), W_q and W_k (d x d_h)
 * have iid N(0, sigma^2) entries and are independent, tied (W_k = W_q) or correlated
 * (W_k = rho W_q + sqrt(1 - rho^2) W'). Scores S = (X W_q)(X W_k)^T.
 *   hardmax_rank: A = hardmax(S); its rank is the number of distinct argmax columns.
 *   softmax_rank: A = softmax(S / (tau sqrt(d_h))); every rank measure of A.
 *
 * Sampling shortcut ("sampler = auto"): for orthonormal rows X X^T = I, so X W_q and
 * X W_k have iid N(0, sigma^2) entries with the same coupling as W_q and W_k. Drawing
 * them directly is exact in distribution and skips the QR and two products; "faithful"
 * builds X and the weights as the model states them.
 *
 * Scale-free: the weights are drawn at unit scale (sigma = 1), so S holds the scores
 * over sigma^2. The argmax of sigma^2 S is that of S for every sigma > 0, and softmax
 * sees sigma only through its temperature tau / sigma^2 (ar_hardmax_unit_tau): no
 * sigma in (0, 1e100] can underflow the scores to ties or overflow them, and sigma = 1
 * draws and computes exactly what a sigma-scaled draw would. */
#include "attnrank/attention.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "hardmax/hardmax.h"
#include "attnrank/sim.h"

#include <float.h>
#include <math.h>


static const char *const input_laws[] = {[AR_HARDMAX_INPUTS_ORTHONORMAL] = "orthonormal", [AR_HARDMAX_INPUTS_GAUSSIAN] = "gaussian", NULL};
static const char *const weight_laws[] = {[AR_HARDMAX_WEIGHTS_INDEPENDENT] = "independent", [AR_HARDMAX_WEIGHTS_TIED] = "tied", [AR_HARDMAX_WEIGHTS_CORRELATED] = "correlated", NULL};
static const char *const samplers[] = {[AR_HARDMAX_SAMPLER_AUTO] = "auto", [AR_HARDMAX_SAMPLER_FAITHFUL] = "faithful", NULL};

#define COMMON_PARAMS                                                                         \
    [AR_HARDMAX_N] = {"n", AR_PARAM_INT, 64, 2, 16384, 0, NULL, "tokens (rows of X)"},                         \
    [AR_HARDMAX_D] = {"d", AR_PARAM_INT, 0, 0, 16384, 0, NULL, "model width (columns of X); 0 means d = n"},  \
    [AR_HARDMAX_D_H] = {"d_h", AR_PARAM_INT, 64, 1, 16384, 0, NULL, "head width (columns of W_q, W_k)"},        \
    [AR_HARDMAX_INPUTS] = {"inputs", AR_PARAM_CHOICE, AR_HARDMAX_INPUTS_ORTHONORMAL, 0, 0, 0, input_laws,                      \
     "law of X: orthonormal = Haar-orthonormal rows (needs n <= d); "                         \
     "gaussian = iid N(0, 1/d) entries"},                                                     \
    [AR_HARDMAX_WEIGHTS] = {"weights", AR_PARAM_CHOICE, AR_HARDMAX_WEIGHTS_INDEPENDENT, 0, 0, 0, weight_laws,                   \
     "W_q, W_k: independent; tied (W_k = W_q); correlated (W_k = rho W_q + sqrt(1-rho^2) W')"},\
    [AR_HARDMAX_RHO] = {"rho", AR_PARAM_REAL, 0.5, -1, 1, 0, NULL, "correlation of W_q and W_k (weights = correlated)"}, \
    [AR_HARDMAX_SIGMA] = {"sigma", AR_PARAM_REAL, 1, 0, 1e100, 1, NULL, "standard deviation of the weight entries; the outputs are computed scale-free (argmax_rank and "    \
     "hull_vertices do not depend on it, softmax only through tau / sigma^2)"}, \
    [AR_HARDMAX_SAMPLER] = {"sampler", AR_PARAM_CHOICE, AR_HARDMAX_SAMPLER_AUTO, 0, 0, 0, samplers,                             \
     "auto = draw X W_q, X W_k directly when that is exact in distribution (orthonormal "     \
     "inputs); faithful = build X by QR and multiply"}

static const ar_param hardmax_params[] = {
    COMMON_PARAMS,
    [AR_HARDMAX_QUERIES_GIVEN_KEYS] = {"queries_given_keys", AR_PARAM_INT, 0, 0, 1 << 20, 0, NULL,
     "M >= n fresh queries per trial for rank_given_keys, E[rank | keys] estimated without bias (independent "
     "weights, orthonormal inputs); 0: not measured"},
};
static const ar_param softmax_params[] = {
    COMMON_PARAMS,
    [AR_HARDMAX_TAU] = {"tau", AR_PARAM_REAL, 1, 0, 1e300, 1, NULL,
     "softmax temperature as a multiple of sqrt(d_h): A = softmax(S / (tau sqrt(d_h)))"},
    [AR_HARDMAX_RANK_TOL] = {"rank_tol", AR_PARAM_REAL, 1e-8, 0, 1, 1, NULL, "tolerance of numrank_abs"},
};

static int model_d(const ar_point *p)
{
    int d = ar_point_int(p, AR_HARDMAX_D);
    return d == 0 ? ar_point_int(p, AR_HARDMAX_N) : d;
}

static int hist_to_n(const ar_point *p) { return ar_point_int(p, AR_HARDMAX_N); }
/* rank_given_keys' range: n terms 1 - miss, each in [0, 1] as rounded (miss a product of
 * factors in [0, 1]), so their rounded sum too lies in [0, n] */
static void up_to_n(const ar_point *p, double *lower, double *upper) { *lower = 0, *upper = ar_point_int(p, AR_HARDMAX_N); }
/* A hardmax matrix has a 1 in every row, so rank >= 1; so have its softmax matrix's
 * rank_rel and certified rank (sigma_1 itself is above the cut): [1, n]. */
static void one_to_n(const ar_point *p, double *lower, double *upper) { *lower = 1, *upper = ar_point_int(p, AR_HARDMAX_N); }
/* argmax_rank: [1, n]; at d_h = 1 the scores q_i k_j have rank one, and rounding is
 * monotone, so each row's argmax is the largest key's (q_i > 0) or the smallest's: at
 * most 2 columns (a tie at a row's maximum, which could pick a third, needs the two top
 * keys equal after rounding: probability ~1e-15 with the continuous draws every input and
 * weight law makes). */
static void argmax_range(const ar_point *p, double *lower, double *upper)
{
    int n = ar_point_int(p, AR_HARDMAX_N);
    *lower = 1, *upper = ar_point_int(p, AR_HARDMAX_D_H) == 1 && n > 2 ? 2 : n;
}
/* numrank_abs: sigma_1 >= ||A 1|| / ||1|| = 1 for a row-stochastic A, so at least 1 for a
 * rank_tol below 1 by more than the rounding of A's row sums and its SVD (some n eps_mach,
 * far inside AR_RANGE_ROUNDING); else [0, n]. */
static void numrank_abs_range(const ar_point *p, double *lower, double *upper)
{
    *lower = ar_point_real(p, AR_HARDMAX_RANK_TOL) < 1 - AR_RANGE_ROUNDING, *upper = ar_point_int(p, AR_HARDMAX_N);
}
/* hull_vertices: [2, n] (n >= 2). Not 3: keys on one line (d = 1, X W_k of rank one) have
 * a hull of 2 vertices; the monotone chain (ar_hull_vertices_2d) returns at least 2 for
 * n >= 3 points whatever they are, duplicates included, and n itself below 3. */
static void hull_range(const ar_point *p, double *lower, double *upper)
{
    *lower = 2, *upper = ar_point_int(p, AR_HARDMAX_N);
}
/* numrank_first_order: [1, min(n, d_h + 1)] where it applies (tau >= 1e4 sigma^2). The
 * first-order part 11^T/n + x/n has rank <= d_h + 1 and the exact remainder's entries
 * are at most eps^2 e^eps (2 + eps) / (2n) (e^x = 1 + x + r, 0 <= r <= x^2 e^|x| / 2, x
 * centred by rows), so its norm is below 2 eps^2 <= the cut for eps <= 0.45: by Weyl's
 * inequality nothing past the (d_h + 1)-th singular value is counted, and sigma_1 (>= 1)
 * is above a cut below 1 (the SVD's rounding, some n eps_mach sigma_1, is far below the
 * cut's floor). eps > 0.45 at tau >= 1e4 needs a unit-scale score above 2250, which
 * takes |q_i| |k_j| >= 2250 sqrt(d_h) for Gaussian q, k of norm about sqrt(d_h) (or rows
 * of norm about 1): a probability below e^-1000 a score. */
static void first_order_range(const ar_point *p, double *lower, double *upper)
{
    int n = ar_point_int(p, AR_HARDMAX_N), dh = ar_point_int(p, AR_HARDMAX_D_H);
    *lower = 1, *upper = dh + 1 < n ? dh + 1 : n;
}
/* stable_rank, stable_rank_gram, effective_rank of the n x n softmax matrix */
static void rank_measure(const ar_point *p, double *lower, double *upper)
{
    ar_range_rank_measure(ar_point_int(p, AR_HARDMAX_N), lower, upper);
}
/* h2_deficit: (bound - rank) / bound for a rank in [1, n] (rank_given_keys: [0, n]),
 * with AR_RANGE_ROUNDING's room (the values are within 1 of 0) */
static void deficit_range(const ar_point *p, double *lower, double *upper, double least_rank)
{
    int n = ar_point_int(p, AR_HARDMAX_N);
    double bound = ar_hardmax_h2_bound(n);
    *lower = (bound - n) / bound - AR_RANGE_ROUNDING, *upper = (bound - least_rank) / bound + AR_RANGE_ROUNDING;
}
static void deficit_of_rank(const ar_point *p, double *lower, double *upper) { deficit_range(p, lower, upper, 1); }
static void deficit_given_keys(const ar_point *p, double *lower, double *upper) { deficit_range(p, lower, upper, 0); }
static int only_dh2(const ar_point *p) { return ar_point_int(p, AR_HARDMAX_D_H) == 2; }
static int first_order_regime(const ar_point *p) { return ar_hardmax_unit_tau(p) >= AR_SOFTMAX_FIRST_ORDER_TAU; }
static int tail_regime(const ar_point *p)
{
    return ar_hardmax_unit_tau(p) >= AR_SOFTMAX_TAIL_TAU && ar_point_int(p, AR_HARDMAX_D_H) + 2 <= ar_point_int(p, AR_HARDMAX_N);
}

double ar_hardmax_h2_bound(int n) { return n * -expm1(n * log1p(-1.0 / n)); }

/* Divided in two steps: sigma^2 alone underflows to 0 below sigma = 1e-162; the quotient
 * may still reach 0 or inf, which softmax takes exactly (one-hot or uniform rows, as the
 * rounded exact logits would give). */
double ar_hardmax_unit_tau(const ar_point *p)
{
    double sigma = ar_point_real(p, AR_HARDMAX_SIGMA);
    return ar_point_real(p, AR_HARDMAX_TAU) / sigma / sigma;
}

/* Largest |S_ij - mean_j S_ij| / tau: the size of the first-order term of softmax's
 * expansion A = 11^T/n + (1/n)(S/tau centred) + O(eps^2). */
static double centred_logit_max(int n, const double *s, double tau)
{
    double largest = 0;
    for (int i = 0; i < n; ++i) {
        const double *row = s + (size_t)i * n;
        double mean = 0;
        for (int j = 0; j < n; ++j)
            mean += row[j];
        mean /= n;
        for (int j = 0; j < n; ++j)
            largest = fmax(largest, fabs(row[j] - mean));
    }
    return largest / tau;
}

/* Singular values above 2 eps^2 sigma_1, eps the first-order term's size. With x = S/tau
 * centred by rows (|x_ij| <= eps), softmax is A = 11^T/n + x/n + (x^2 - mean x^2)/(2n) +
 * O(eps^3): the first two terms have rank <= d_h + 1 and the second-order term norm
 * <= eps^2/2 (entries <= eps^2/(2n)), so by Weyl's inequality sigma_{d_h+2}(A) <=
 * eps^2/2 + O(eps^3): the count never exceeds d_h + 1 when H5b holds, with a margin of 4.
 * Never below a thousand times rounding's floor n eps_mach sigma_1. */
static double numrank_first_order(int n, const double *sv, double eps)
{
    double cut = fmax(2 * eps * eps * sv[0], 1e3 * n * DBL_EPSILON * sv[0]);
    int count = 0;
    while (count < n && sv[count] > cut)
        count++;
    return count;
}

/* ln(sigma_{d_h+2} / sigma_{d_h+1}): the second-order term's largest singular value over
 * the first-order term's smallest, which falls like 1/tau (theory/NOTES.md, H5ratio).
 * NaN (a failed trial) where sigma_{d_h+2} lies within a thousand times rounding's floor
 * n eps_mach sigma_1: the SVD's rounding would decide the ratio. */
static double log_tail_ratio(int n, int dh, const double *sv)
{
    double second = sv[dh + 1], first = sv[dh];
    if (!(second > 1e3 * n * DBL_EPSILON * sv[0]))
        return NAN;
    return log(second / first);
}

static int use_faithful(const ar_point *p)
{
    return ar_point_choice(p, AR_HARDMAX_SAMPLER) == AR_HARDMAX_SAMPLER_FAITHFUL ||
           ar_point_choice(p, AR_HARDMAX_INPUTS) != AR_HARDMAX_INPUTS_ORTHONORMAL;
}

static int queries_given_keys(const ar_point *p)
{
    return p->sim == &ar_sim_hardmax_rank ? ar_point_int(p, AR_HARDMAX_QUERIES_GIVEN_KEYS) : 0;
}
/* rank_given_keys needs fresh queries of the real queries' law, independent of the keys:
 * Q = X W_q has iid N(0, 1) entries independent of K = X W_k for orthonormal X and
 * independent weights, whichever sampler draws them. */
static int given_keys(const ar_point *p)
{
    return queries_given_keys(p) > 0 && ar_point_choice(p, AR_HARDMAX_INPUTS) == AR_HARDMAX_INPUTS_ORTHONORMAL &&
           ar_point_choice(p, AR_HARDMAX_WEIGHTS) == AR_HARDMAX_WEIGHTS_INDEPENDENT;
}

static int check_point(const ar_point *p, char *why, size_t len)
{
    int m = queries_given_keys(p), n = ar_point_int(p, AR_HARDMAX_N);
    if (m > 0 && m < n) {
        snprintf(why, len, "queries_given_keys is 0 or at least n (%d < n = %d): the estimator averages over n-subsets "
                 "of the M queries", m, n);
        return AR_HARDMAX_QUERIES_GIVEN_KEYS;
    }
    if (ar_point_choice(p, AR_HARDMAX_INPUTS) == AR_HARDMAX_INPUTS_ORTHONORMAL && ar_point_int(p, AR_HARDMAX_N) > model_d(p)) {
        snprintf(why, len, "orthonormal inputs need n <= d (n = %d, d = %d)",
                 ar_point_int(p, AR_HARDMAX_N), model_d(p));
        return AR_HARDMAX_D;
    }
    return -1;
}

/* Workspace layout, in doubles unless stated; sizes depend only on the point. */
typedef struct {
    double *q, *k, *scores, *x, *wq, *wk, *scratch, *sv, *svd_work;
    int *argmax, *iwork;
    unsigned char *seen;
    /* rank_given_keys: K K^T's Cholesky factor (d_h > n), the fresh queries' normals and
     * scores, their argmax, the wins per key and the miss chance by win count */
    double *gram, *fresh, *fresh_scores, *miss_by_wins;
    int *fresh_argmax, *wins;
} layout;

static size_t carve(const ar_point *p, int softmax, char *base, layout *l)
{
    size_t n = (size_t)ar_point_int(p, AR_HARDMAX_N), d = (size_t)model_d(p), dh = (size_t)ar_point_int(p, AR_HARDMAX_D_H);
    int faithful = use_faithful(p);
    const size_t D = sizeof(double);
    /* scratch: Haar QR work, the correlated-weights draw, or the hull's 6n. */
    size_t scratch = 6 * n;
    if (faithful && ar_haar_rows_workspace((int)n, (int)d) > scratch)
        scratch = ar_haar_rows_workspace((int)n, (int)d);
    if ((faithful ? d : n) * dh > scratch)
        scratch = (faithful ? d : n) * dh;
    ar_carver c = {base, 0};
    l->q = ar_carve(&c, n * dh * D);
    l->k = ar_carve(&c, n * dh * D);
    l->scores = ar_carve(&c, n * n * D);
    l->x = ar_carve(&c, faithful ? n * d * D : 0);
    l->wq = ar_carve(&c, faithful ? d * dh * D : 0);
    l->wk = ar_carve(&c, faithful ? d * dh * D : 0);
    l->scratch = ar_carve(&c, scratch * D);
    l->sv = ar_carve(&c, softmax ? n * D : 0);
    l->svd_work = ar_carve(&c, softmax ? ar_singular_values_workspace((int)n, (int)n) * D : 0);
    l->argmax = ar_carve(&c, n * sizeof(int));
    l->iwork = ar_carve(&c, softmax ? 8 * n * sizeof(int) : 0);
    l->seen = ar_carve(&c, n);
    size_t m = given_keys(p) ? (size_t)queries_given_keys(p) : 0;
    l->gram = ar_carve(&c, m && dh > n ? n * n * D : 0);
    l->fresh = ar_carve(&c, m * (dh > n ? n : dh) * D);
    l->fresh_scores = ar_carve(&c, m * n * D);
    l->miss_by_wins = ar_carve(&c, m ? (m + 1) * D : 0);
    l->fresh_argmax = ar_carve(&c, m * sizeof(int));
    l->wins = ar_carve(&c, m ? n * sizeof(int) : 0);
    return c.used;
}

static size_t hardmax_workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, 0, NULL, &sizing);
}

static size_t softmax_workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, 1, NULL, &sizing);
}

/* Draw W (rows x dh) pairs at unit scale with the coupling of the weights parameter; k
 * may end up pointing at q (tied). */
static void draw_pair(const ar_point *p, ar_rng *rng, size_t count, double *q, double **k,
                      double *scratch)
{
    ar_rng_normals(rng, q, count);
    switch (ar_point_choice(p, AR_HARDMAX_WEIGHTS)) {
    case AR_HARDMAX_WEIGHTS_TIED:
        *k = q;
        break;
    case AR_HARDMAX_WEIGHTS_CORRELATED: {
        double rho = ar_point_real(p, AR_HARDMAX_RHO), other = sqrt(1.0 - rho * rho);
        ar_rng_normals(rng, scratch, count);
        for (size_t i = 0; i < count; ++i)
            (*k)[i] = rho * q[i] + other * scratch[i];
        break;
    }
    default:
        ar_rng_normals(rng, *k, count);
    }
}

/* Fills l->scores with S = Q K^T at unit weight scale and returns K (which may alias Q). */
static const double *draw_scores(const ar_point *p, ar_rng *rng, const layout *l, int *failed)
{
    int n = ar_point_int(p, AR_HARDMAX_N), d = model_d(p), dh = ar_point_int(p, AR_HARDMAX_D_H);
    double *k = l->k;
    *failed = 0;
    if (!use_faithful(p)) {
        draw_pair(p, rng, (size_t)n * dh, l->q, &k, l->scratch);
    } else {
        ar_rng_normals(rng, l->x, (size_t)n * d);
        if (ar_point_choice(p, AR_HARDMAX_INPUTS) == AR_HARDMAX_INPUTS_ORTHONORMAL) {
            if (ar_haar_rows(n, d, l->x, l->scratch) != 0) {
                *failed = 1;
                return NULL;
            }
        } else {
            double scale = 1.0 / sqrt((double)d);
            for (size_t i = 0; i < (size_t)n * d; ++i)
                l->x[i] *= scale;
        }
        double *wk = l->wk;
        draw_pair(p, rng, (size_t)d * dh, l->wq, &wk, l->scratch);
        ar_gemm_nn(n, dh, d, l->x, l->wq, l->q);
        if (wk == l->wq)
            k = l->q;
        else
            ar_gemm_nn(n, dh, d, l->x, wk, l->k);
    }
    ar_gemm_nt(n, n, dh, l->q, k, l->scores);
    return k;
}

/* E[rank | K] = sum_j 1 - (1 - p_j)^n, p_j the chance that key j wins a fresh query
 * q ~ N(0, I) (H2's argument). Estimated without bias from M >= n fresh queries, c_j of
 * which key j wins, by 1 - C(M - c_j, n) / C(M, n), the chance that n of the M drawn
 * without replacement all miss j: the average, over every n-subset of the M queries, of
 * the rank those n would give (a Rao-Blackwell average; M = n is the plain rank). A
 * query's scores K q are N(0, K K^T): drawn as L xi, L the Cholesky factor, when d_h > n
 * (n^2 a query instead of n d_h). NaN if K K^T is not numerically positive definite. */
static double rank_given_keys(const ar_point *p, const double *k, ar_rng *rng, const layout *l)
{
    int n = ar_point_int(p, AR_HARDMAX_N), dh = ar_point_int(p, AR_HARDMAX_D_H), m = queries_given_keys(p);
    int factor = dh > n, width = factor ? n : dh;
    ar_rng_normals(rng, l->fresh, (size_t)m * width);
    if (factor) {
        ar_gemm_nt(n, n, dh, k, k, l->gram);
        if (ar_cholesky(n, l->gram) != 0)
            return NAN;
    }
    ar_gemm_nt(m, n, width, l->fresh, factor ? l->gram : k, l->fresh_scores);
    ar_argmax_rows(m, n, l->fresh_scores, l->fresh_argmax);
    for (int j = 0; j < n; ++j)
        l->wins[j] = 0;
    for (int i = 0; i < m; ++i)
        l->wins[l->fresh_argmax[i]]++;
    return ar_hardmax_rank_given_wins(n, m, l->wins, l->miss_by_wins);
}

double ar_hardmax_rank_given_wins(int n, int m, const int *wins, double *miss_by_wins)
{
    for (int c = 0; c <= m; ++c)
        miss_by_wins[c] = -1; /* not computed yet: few distinct win counts occur */
    double rank = 0;
    for (int j = 0; j < n; ++j) {
        int c = wins[j];
        if (miss_by_wins[c] < 0) {
            double miss = 1; /* C(M - c, n) / C(M, n) = prod_t (M - c - t) / (M - t) */
            for (int t = 0; t < n && miss > 0; ++t)
                miss *= m - c - t > 0 ? (double)(m - c - t) / (m - t) : 0;
            miss_by_wins[c] = miss;
        }
        rank += 1 - miss_by_wins[c];
    }
    return rank;
}

static int hardmax_trial(const ar_point *p, ar_rng *rng, void *workspace, double *out)
{
    layout l;
    carve(p, 0, workspace, &l);
    int n = ar_point_int(p, AR_HARDMAX_N), failed;
    const double *keys = draw_scores(p, rng, &l, &failed);
    if (failed)
        return 1;
    ar_argmax_rows(n, n, l.scores, l.argmax);
    /* every output is a scalar: out[] is indexed by the output enum */
    out[AR_HARDMAX_OUT_ARGMAX_RANK] = ar_argmax_rank(n, l.argmax, n, l.seen);
    out[AR_HARDMAX_OUT_HULL_VERTICES] = only_dh2(p) ? ar_hull_vertices_2d(n, keys, l.scratch) : NAN;
    double bound = ar_hardmax_h2_bound(n);
    out[AR_HARDMAX_OUT_H2_DEFICIT] = (bound - out[AR_HARDMAX_OUT_ARGMAX_RANK]) / bound;
    /* after every other draw: the fresh queries leave the other outputs' streams as they were */
    double given = given_keys(p) ? rank_given_keys(p, keys, rng, &l) : NAN;
    out[AR_HARDMAX_OUT_RANK_GIVEN_KEYS] = given;
    out[AR_HARDMAX_OUT_H2_DEFICIT_GIVEN_KEYS] = (bound - given) / bound;
    return 0;
}

/* A bound on the logits' rounding, |fl(S_ij) / tau - (q_i . k_j) / tau|: the dot product's
 * gamma_{d_h} |q_i| |k_j| (Higham's bound), and the quotient's and softmax's shift by the
 * row maximum, 2 eps |S| / tau. Relative to the Q and K drawn (the faithful sampler's
 * computed X W_q, X W_k). *min_gap gets the smallest gap between a row's largest and
 * second largest logit. Called before softmax overwrites the scores. */
static double logit_rounding(const ar_point *p, const layout *l, const double *k, double tau, double *min_gap)
{
    int n = ar_point_int(p, AR_HARDMAX_N), dh = ar_point_int(p, AR_HARDMAX_D_H);
    double q_max = 0, k_max = 0, s_max = 0;
    for (int i = 0; i < n; ++i) {
        double qq = 0, kk = 0;
        for (int t = 0; t < dh; ++t)
            qq += l->q[(size_t)i * dh + t] * l->q[(size_t)i * dh + t], kk += k[(size_t)i * dh + t] * k[(size_t)i * dh + t];
        q_max = fmax(q_max, sqrt(qq)), k_max = fmax(k_max, sqrt(kk));
    }
    for (size_t i = 0; i < (size_t)n * n; ++i)
        s_max = fmax(s_max, fabs(l->scores[i]));
    *min_gap = INFINITY;
    for (int i = 0; i < n; ++i) {
        double first = -INFINITY, second = -INFINITY;
        for (int j = 0; j < n; ++j) {
            double s = l->scores[(size_t)i * n + j];
            if (s > first)
                second = first, first = s;
            else if (s > second)
                second = s;
        }
        *min_gap = fmin(*min_gap, (first - second) / tau);
    }
    double gamma = dh * DBL_EPSILON / (1 - dh * DBL_EPSILON);
    return (gamma * 1.01 * q_max * k_max + 2 * DBL_EPSILON * s_max) / tau;
}

/* ||A_computed - A_exact||_2 from logits off by at most delta: a row's entries move by
 * A_ij (delta_ij - sum_k A_ik delta_ik), at most 2 delta A_ij (1 - A_ij) to first order,
 * so ||dA||_2 <= ||dA||_F <= 2.2 delta ||A o (1 - A)||_F for delta <= 0.1 (the 10% for the
 * second order). A larger delta (temperatures near 0) is bounded only where every row's
 * gap between its two largest logits exceeds 2 delta + 746: exact and computed rows are
 * then one-hot to below the smallest double, and nothing moves. Else no bound (NaN). */
static double softmax_rounding(int n, const double *a, double delta, double min_gap)
{
    if (!(delta <= 0.1))
        return min_gap - 2 * delta >= 746 ? 0 : NAN;
    double sum = 0;
    for (size_t i = 0; i < (size_t)n * n; ++i)
        sum += a[i] * (1 - a[i]) * a[i] * (1 - a[i]);
    return 2.2 * delta * sqrt(sum);
}

static int softmax_trial(const ar_point *p, ar_rng *rng, void *workspace, double *out)
{
    layout l;
    carve(p, 1, workspace, &l);
    int n = ar_point_int(p, AR_HARDMAX_N), failed;
    const double *keys = draw_scores(p, rng, &l, &failed);
    if (failed)
        return 1;
    ar_argmax_rows(n, n, l.scores, l.argmax);
    out[AR_SOFTMAX_OUT_ARGMAX_RANK] = ar_argmax_rank(n, l.argmax, n, l.seen);
    double tau = ar_hardmax_unit_tau(p) * sqrt((double)ar_point_int(p, AR_HARDMAX_D_H));
    double eps = first_order_regime(p) ? centred_logit_max(n, l.scores, tau) : NAN;
    double min_gap, logit_error = logit_rounding(p, &l, keys, tau, &min_gap);
    ar_softmax_rows(n, n, l.scores, tau, l.scores);
    double matrix_error = softmax_rounding(n, l.scores, logit_error, min_gap); /* before the SVD overwrites A */
    if (ar_singular_values(n, n, l.scores, l.sv, l.svd_work, l.iwork) != 0)
        return 1;
    out[AR_SOFTMAX_OUT_NUMRANK_ABS] = ar_numrank_abs(l.sv, n, ar_point_real(p, AR_HARDMAX_RANK_TOL));
    out[AR_SOFTMAX_OUT_NUMRANK_REL] = ar_numrank_rel(l.sv, n, n, n);
    int certified = ar_numrank_certified(l.sv, n, n, n, matrix_error);
    out[AR_SOFTMAX_OUT_NUMRANK_CERT] = certified >= 0 ? certified : NAN; /* rounding could move it: failed */
    out[AR_SOFTMAX_OUT_STABLE_RANK] = ar_stable_rank(l.sv, n);
    out[AR_SOFTMAX_OUT_STABLE_RANK_GRAM] = ar_stable_rank_gram(l.sv, n);
    out[AR_SOFTMAX_OUT_EFFECTIVE_RANK] = ar_effective_rank(l.sv, n);
    out[AR_SOFTMAX_OUT_NUMRANK_FIRST_ORDER] = first_order_regime(p) ? numrank_first_order(n, l.sv, eps) : NAN;
    out[AR_SOFTMAX_OUT_LOG_TAIL_RATIO] = tail_regime(p) ? log_tail_ratio(n, ar_point_int(p, AR_HARDMAX_D_H), l.sv) : NAN;
    return 0;
}

/* Flops of the dominant steps: the score product, plus the faithful path's QR and
 * products, plus the SVD for softmax. */
static double trial_cost(const ar_point *p, int softmax)
{
    double n = ar_point_int(p, AR_HARDMAX_N), d = model_d(p), dh = ar_point_int(p, AR_HARDMAX_D_H);
    double flops = 2 * n * n * dh + 4 * n * dh;
    if (use_faithful(p))
        flops += 4 * n * n * d + 4 * n * d * dh + 2 * d * dh;
    if (softmax)
        flops += 8 * n * n * n / 3 + 20 * n * n;
    if (!softmax && given_keys(p)) {
        double m = queries_given_keys(p), width = dh > n ? n : dh;
        flops += 2 * m * n * width + 2 * m * width + (dh > n ? 2 * n * n * dh + n * n * n / 3 : 0);
    }
    return flops;
}

static double hardmax_cost(const ar_point *p) { return trial_cost(p, 0); }
static double softmax_cost(const ar_point *p) { return trial_cost(p, 1); }

/* h2_deficit moves in steps of one rank: 1 / bound. */
static double deficit_spacing(const ar_point *p)
{
    return 1.0 / ar_hardmax_h2_bound(ar_point_int(p, AR_HARDMAX_N));
}

static const ar_output hardmax_outputs[] = {
    [AR_HARDMAX_OUT_ARGMAX_RANK] = {"argmax_rank", "rank of the hardmax attention matrix (distinct argmax columns)", hist_to_n, NULL,
     .definition = AR_DEFINITION_ARGMAX_RANK, .range = argmax_range},
    [AR_HARDMAX_OUT_HULL_VERTICES] = {"hull_vertices", "vertices of the convex hull of the keys X W_k (d_h = 2 only); "
                      "an upper bound on argmax_rank", hist_to_n, only_dh2,
     .definition = AR_DEFINITION_HULL_VERTICES, .range = hull_range},
    [AR_HARDMAX_OUT_H2_DEFICIT] = {"h2_deficit", "(n (1 - (1 - 1/n)^n) - argmax_rank) / n (1 - (1 - 1/n)^n): how far the rank "
     "falls short of H2's bound, relative", .spacing = deficit_spacing, .range = deficit_of_rank},
    [AR_HARDMAX_OUT_RANK_GIVEN_KEYS] = {"rank_given_keys", "E[argmax_rank | keys], estimated without bias from "
     "queries_given_keys fresh queries: sum_j 1 - C(M - c_j, n) / C(M, n), c_j the queries key j wins", NULL, given_keys,
     .definition = "sum over keys j of 1 - C(M - c_j, n) / C(M, n): c_j of M fresh N(0, I) queries have key j as "
                   "their argmax; unbiased for E[rank | keys], so for E[rank]", .range = up_to_n},
    [AR_HARDMAX_OUT_H2_DEFICIT_GIVEN_KEYS] = {"h2_deficit_given_keys", "h2_deficit of rank_given_keys: (bound - E[rank | "
     "keys]) / bound, the deficit with the queries' noise averaged out", NULL, given_keys, .range = deficit_given_keys},
};

static const ar_output softmax_outputs[] = {
    [AR_SOFTMAX_OUT_ARGMAX_RANK] = {"argmax_rank", "rank of hardmax of the same scores (the tau -> 0 limit)", hist_to_n, NULL,
     .definition = AR_DEFINITION_ARGMAX_RANK, .range = argmax_range},
    [AR_SOFTMAX_OUT_NUMRANK_ABS] = {"numrank_abs", "singular values of A above rank_tol", hist_to_n, NULL,
     .definition = "number of singular values > rank_tol (1e-8 by default)", .range = numrank_abs_range},
    [AR_SOFTMAX_OUT_NUMRANK_REL] = {"numrank_rel", "singular values of A above max(n,n) eps sigma_1", hist_to_n, NULL,
     .definition = AR_DEFINITION_NUMRANK_REL, .range = one_to_n},
    [AR_SOFTMAX_OUT_STABLE_RANK] = {"stable_rank", "||A||_F^2 / ||A||_2^2", NULL, NULL,
     .definition = AR_DEFINITION_STABLE_RANK, .range = rank_measure},
    [AR_SOFTMAX_OUT_STABLE_RANK_GRAM] = {"stable_rank_gram", "stable rank of A A^T", NULL, NULL,
     .definition = AR_DEFINITION_STABLE_RANK_GRAM, .range = rank_measure},
    [AR_SOFTMAX_OUT_EFFECTIVE_RANK] = {"effective_rank", "exp of the entropy of the normalised singular values", NULL, NULL,
     .definition = AR_DEFINITION_EFFECTIVE_RANK, .range = rank_measure},
    [AR_SOFTMAX_OUT_NUMRANK_FIRST_ORDER] = {"numrank_first_order", "singular values of A above 2 eps^2 sigma_1, eps = max |S_ij - "
     "row mean| / tau the first-order term's size: the rank of 11^T/n plus the first-order term, the second-order "
     "term (norm <= eps^2/2) cut off (tau >= 1e4 sigma^2)",
     hist_to_n, first_order_regime,
     .definition = "number of singular values > max(2 eps^2 sigma_1, 1e3 n eps_mach sigma_1), eps = max_ij |S_ij - "
                   "mean_j S_ij| / tau",
     .range = first_order_range},
    [AR_SOFTMAX_OUT_NUMRANK_CERT] = {"numrank_cert", "singular values of A above 1e-10 sigma_1, certified: NaN (a failed "
     "trial) where one lies within the rounding margin of the cut, or where the scores' rounding has no bound (a "
     "temperature near 0 with near-ties)", hist_to_n, NULL, .definition = AR_DEFINITION_NUMRANK_CERT,
     .range = one_to_n},
    [AR_SOFTMAX_OUT_LOG_TAIL_RATIO] = {"log_tail_ratio", "ln(sigma_{d_h+2} / sigma_{d_h+1}): the second-order term's "
     "largest singular value over the first-order term's smallest, falling like 1/tau (tau >= 10 sigma^2, d_h + 2 <= n; "
     "NaN, a failed trial, where sigma_{d_h+2} is within 1e3 n eps_mach sigma_1 of rounding)", NULL, tail_regime,
     .definition = "ln(sigma_{d_h+2}(A) / sigma_{d_h+1}(A)), singular values in decreasing order",
     .range = ar_range_nonpositive /* sorted: the ratio is <= 1 as rounded too */},
};

const ar_sim ar_sim_hardmax_rank = {
    .name = "hardmax_rank",
    .summary = "rank of hardmax(X W_q W_k^T X^T) for Haar-orthonormal X and Gaussian weights",
    AR_SIM_TABLES(hardmax_params, hardmax_outputs),
    .check = check_point,
    .workspace_bytes = hardmax_workspace,
    .cost = hardmax_cost,
    .trial = hardmax_trial,
};

const ar_sim ar_sim_softmax_rank = {
    .name = "softmax_rank",
    .summary = "rank measures of softmax(X W_q W_k^T X^T / (tau sqrt(d_h))) against temperature",
    AR_SIM_TABLES(softmax_params, softmax_outputs),
    .check = check_point,
    .workspace_bytes = softmax_workspace,
    .cost = softmax_cost,
    .trial = softmax_trial,
};
