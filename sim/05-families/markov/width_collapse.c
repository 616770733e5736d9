/* width: rank collapse in width (claim S5, "Mind the Gap").
 *
 * X_0 (n x d, d = ceil(n / gamma) >= n) has orthonormal rows, W_V (d x d) iid N(0, 1),
 * and X_1 = A X_0 W_V with A a random Markov matrix (or A - 11^T/n). Since
 * X_0 X_0^T = I, X_0 W_V has iid N(0, 1) entries: the trial draws that n x d matrix G
 * directly (exact in distribution) and forms X_1 = A G. With the gap, X_1 is close to
 * the rank-one 1 (1^T G)/n: its stable rank tends to 1 + s^2/m^2 however wide the
 * layer; without the gap it grows with n.
 *
 * The stable rank needs only ||X||_F and sigma_1: Lanczos, no SVD. stable_rank_gram is
 * the "Mind the Gap" authors' statistic, the stable rank of X_1 X_1^T (sum sigma^4 /
 * sigma_1^4), from the same sigma_1 and ||X_1 X_1^T||_F. */
#include "attnrank/linalg.h"
#include "markov/markov.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>


static const char *const laws[] = {[AR_MARKOV_LAW_LOGNORMAL] = "lognormal", [AR_MARKOV_LAW_EXPONENTIAL] = "exponential", [AR_MARKOV_LAW_UNIFORM] = "uniform", NULL};
static const char *const gaps[] = {[AR_MARKOV_GAP_KEEP] = "keep", [AR_MARKOV_GAP_REMOVE] = "remove", NULL};

static const ar_param params[] = {
    [AR_WIDTH_N] = {"n", AR_PARAM_INT, 256, 2, 8192, 0, NULL, "tokens"},
    /* Below 1e-3 the width n / gamma outgrows any memory (and, near 0, every integer):
     * bounded here, the memory check sizes every admissible point. */
    [AR_WIDTH_GAMMA] = {"gamma", AR_PARAM_REAL, 1, 1e-3, 1, 0, NULL,
     "n / d: the width is d = ceil(n / gamma) >= n; at least 1e-3 (d <= 1000 n), so that d is a size memory can hold"},
    [AR_WIDTH_ENTRIES] = {"entries", AR_PARAM_CHOICE, 0, 0, 0, 0, laws, "law of A's entries before row normalisation (as markov_spectrum)"},
    [AR_WIDTH_GAP] = {"gap", AR_PARAM_CHOICE, 0, 0, 0, 0, gaps, "keep: A; remove: A - 11^T/n"},
};

static size_t width_of(const ar_point *p)
{
    return (size_t)ceil(ar_point_int(p, AR_WIDTH_N) / ar_point_real(p, AR_WIDTH_GAMMA) - 1e-9);
}

typedef struct {
    double *a, *g, *x1, *start, *lanczos, *gram;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    size_t n = (size_t)ar_point_int(p, AR_WIDTH_N), d = width_of(p);
    const size_t D = sizeof(double);
    ar_carver c = {base, 0};
    l->a = ar_carve(&c, n * n * D);
    l->g = ar_carve(&c, n * d * D);
    l->x1 = ar_carve(&c, n * d * D);
    l->start = ar_carve(&c, d * D);
    l->lanczos = ar_carve(&c, ar_top_singular_values_workspace((int)n, (int)d, AR_STABLE_RANK_STEPS) * D);
    l->gram = ar_carve(&c, n * n * D); /* n <= d */
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double n = ar_point_int(p, AR_WIDTH_N), d = (double)width_of(p);
    return 4 * n * n * d + 2 * 60 * 4 * n * d;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    int n = ar_point_int(p, AR_WIDTH_N), d = (int)width_of(p);
    ar_markov_draw draw = {n, ar_point_choice(p, AR_WIDTH_ENTRIES),
                           ar_point_choice(p, AR_WIDTH_GAP) == AR_MARKOV_GAP_REMOVE, 0, 0};
    ar_markov_sample(&draw, rng, l.a, NULL, NULL);
    ar_rng_normals(rng, l.g, (size_t)n * d);
    ar_gemm_nn(n, d, n, l.a, l.g, l.x1);
    ar_rng_normals(rng, l.start, (size_t)d);
    /* scalars only */
    ar_stable_ranks_of(n, d, l.x1, l.start, l.lanczos, l.gram, &out[AR_WIDTH_OUT_STABLE_RANK],
                       &out[AR_WIDTH_OUT_STABLE_RANK_GRAM]);
    out[AR_WIDTH_OUT_STABLE_RANK_INPUT] = ar_stable_rank_of(n, d, l.g, l.start, l.lanczos);
    return isnan(out[AR_WIDTH_OUT_STABLE_RANK]) || isnan(out[AR_WIDTH_OUT_STABLE_RANK_INPUT]) ||
           isnan(out[AR_WIDTH_OUT_STABLE_RANK_GRAM]);
}

/* X_1 and X_0 W_V are n x d, d >= n: their stable ranks lie in [1, n] (a Lanczos
 * sigma_1, with AR_RANGE_ROUNDING's room) */
static void rank_measure(const ar_point *p, double *lower, double *upper)
{
    size_t n = (size_t)ar_point_int(p, AR_WIDTH_N), d = width_of(p);
    ar_range_rank_measure((double)(n < d ? n : d), lower, upper);
}

static const ar_output outputs[] = {
    [AR_WIDTH_OUT_STABLE_RANK] = {"stable_rank", "stable rank of X_1 = A X_0 W_V (||X_1||_F^2 / ||X_1||_2^2)", NULL, NULL,
     .definition = "||X_1||_F^2 / ||X_1||_2^2 (sigma_1 by Lanczos)", .range = rank_measure},
    [AR_WIDTH_OUT_STABLE_RANK_INPUT] = {"stable_rank_input", "stable rank of X_0 W_V, before attention (for comparison)", NULL, NULL,
     .definition = "||X_0 W_V||_F^2 / ||X_0 W_V||_2^2 (sigma_1 by Lanczos)", .range = rank_measure},
    [AR_WIDTH_OUT_STABLE_RANK_GRAM] = {"stable_rank_gram", "stable rank of X_1 X_1^T, the statistic of the \"Mind the Gap\" "
     "authors' stable_ranks.py (sum s^2 / max s^2 over the singular values s of X X^T)", NULL, NULL,
     .definition = "||X_1 X_1^T||_F^2 / ||X_1||_2^4 = sum sigma_i^4 / sigma_1^4 (sigma_1 by Lanczos)", .range = rank_measure},
};

const ar_sim ar_sim_width_collapse = {
    .name = "width_collapse",
    .summary = "stable rank of one attention layer's output A X_0 W_V, against n at fixed n/d",
    AR_SIM_TABLES(params, outputs),
    .check = NULL,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
