/* hardmax_saturation: where the hardmax rank saturates along the head width (claim
 * H2sat, the revised paper's "critical position of rank saturation at d_h = Omega(log n)").
 *
 * The theorem's model (orthonormal X, independent Gaussian weights): Q = X W_q and
 * K = X W_k have iid N(0, 1) entries, drawn directly (exact in distribution, as
 * hardmax_rank's sampler = auto). n = 2^log2_n keys and M = queries_per_token * n
 * fresh queries grow one column of the head at a time: at width d the scores are
 * S_d = S_{d-1} + q_d k_d^T, the head's first d coordinates, so one draw gives the
 * whole curve d -> E[rank | K_d], estimated without bias from the M queries as
 * hardmax_rank's rank_given_keys does: sum_j 1 - C(M - c_j, n) / C(M, n), c_j the
 * queries key j wins. The draw's saturation position d_h* is the first width at which
 * that estimate reaches (1 - shortfall) of H2's limit n (1 - (1 - 1/n)^n), interpolated
 * linearly from the width before (d = 0: every score ties, rank 1); NaN (a failed
 * trial) when max_d_h does not reach it. */
#include "attnrank/attention.h"
#include "hardmax/hardmax.h"
#include "attnrank/sim.h"

#include <math.h>
#include <string.h>

static const ar_param params[] = {
    /* The scores are M x n = queries_per_token n^2 doubles a thread: at most 134 MB (n =
     * 1024, 16 queries a token); a column costs 4 M n flops, and the position runs to
     * about (ln n)^2 / (4 eps) columns. */
    [AR_SATURATION_LOG2_N] = {"log2_n", AR_PARAM_INT, 6, 2, 10, 0, NULL, "tokens n = 2^log2_n (keys and rows of X)"},
    /* at most 0.6: (1 - eps) of the limit must exceed width 0's rank 1 at every n >= 4
     * (the limit is 2.73 at n = 4), so that a first crossing exists */
    [AR_SATURATION_SHORTFALL] = {"shortfall", AR_PARAM_REAL, 0.1, 0, 0.6, 1, NULL,
     "eps: the position is the head width at which E[rank | keys] first reaches (1 - eps) n (1 - (1 - 1/n)^n), "
     "H2's limit along d_h; in (0, 0.6]"},
    [AR_SATURATION_QUERIES] = {"queries_per_token", AR_PARAM_INT, 2, 1, 16, 0, NULL,
     "M / n: fresh queries a draw estimates E[rank | keys] from (M >= n, the estimator's need)"},
    [AR_SATURATION_MAX_D_H] = {"max_d_h", AR_PARAM_INT, 4096, 1, 16384, 0, NULL,
     "widest head tried; a draw that has not saturated by then is a failed trial", 1},
};

static int tokens(const ar_point *p) { return 1 << ar_point_int(p, AR_SATURATION_LOG2_N); }
static int queries(const ar_point *p) { return ar_point_int(p, AR_SATURATION_QUERIES) * tokens(p); }

typedef struct {
    double *k_col, *q_col, *scores, *miss_by_wins;
    int *argmax, *wins;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    size_t n = (size_t)tokens(p), m = (size_t)queries(p), D = sizeof(double);
    ar_carver c = {base, 0};
    l->k_col = ar_carve(&c, n * D);
    l->q_col = ar_carve(&c, m * D);
    l->scores = ar_carve(&c, m * n * D);
    l->miss_by_wins = ar_carve(&c, (m + 1) * D);
    l->argmax = ar_carve(&c, m * sizeof(int));
    l->wins = ar_carve(&c, n * sizeof(int));
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    int n = tokens(p), m = queries(p), widest = ar_point_int(p, AR_SATURATION_MAX_D_H);
    double target = (1 - ar_point_real(p, AR_SATURATION_SHORTFALL)) * ar_hardmax_h2_bound(n);
    memset(l.scores, 0, (size_t)m * n * sizeof *l.scores);
    double before = 1; /* d = 0: every score ties, one winner */
    out[AR_SATURATION_OUT_D_H] = out[AR_SATURATION_OUT_LOG_D_H] = NAN;
    for (int d = 1; d <= widest; ++d) {
        ar_rng_normals(rng, l.k_col, (size_t)n);
        ar_rng_normals(rng, l.q_col, (size_t)m);
        for (int i = 0; i < m; ++i) {
            double *row = l.scores + (size_t)i * n, qi = l.q_col[i];
            for (int j = 0; j < n; ++j)
                row[j] += qi * l.k_col[j];
        }
        ar_argmax_rows(m, n, l.scores, l.argmax);
        memset(l.wins, 0, (size_t)n * sizeof *l.wins);
        for (int i = 0; i < m; ++i)
            l.wins[l.argmax[i]]++;
        double rank = ar_hardmax_rank_given_wins(n, m, l.wins, l.miss_by_wins);
        if (rank >= target) {
            double position = d - 1 + (target - before) / (rank - before);
            out[AR_SATURATION_OUT_D_H] = position;
            out[AR_SATURATION_OUT_LOG_D_H] = log(position);
            return 0;
        }
        before = rank;
    }
    return 1; /* not saturated by max_d_h */
}

/* Flops a column costs (4 M n: the update and the argmax) times a rough guess at the
 * position, (ln n)^2 / (4 eps) (verify's data: 67 at n = 256, eps = 0.1), for planning. */
static double cost(const ar_point *p)
{
    double n = tokens(p), m = queries(p), ln = log(n), eps = ar_point_real(p, AR_SATURATION_SHORTFALL);
    double columns = fmin(ar_point_int(p, AR_SATURATION_MAX_D_H), 2 + ln * ln / (4 * eps));
    return columns * (4 * m * n + 2 * (m + n));
}

/* saturation_d_h: d - 1 plus a fraction (t - R_{d-1}) / (R_d - R_{d-1}) <= 1 (R_d >= t, and
 * rounding keeps a difference's order), d <= max_d_h: at most max_d_h. No lower bound:
 * a target below R_0 = 1 would make the fraction negative. Its log: at most ln max_d_h,
 * with AR_RANGE_ROUNDING's room for log's rounding. */
static void position_range(const ar_point *p, double *lower, double *upper)
{
    *lower = -INFINITY, *upper = ar_point_int(p, AR_SATURATION_MAX_D_H);
}
static void log_position_range(const ar_point *p, double *lower, double *upper)
{
    *lower = -INFINITY, *upper = log(ar_point_int(p, AR_SATURATION_MAX_D_H)) * (1 + AR_RANGE_ROUNDING) + AR_RANGE_ROUNDING;
}

static const ar_output outputs[] = {
    [AR_SATURATION_OUT_D_H] = {"saturation_d_h", "the head width at which this draw's estimate of E[rank | keys] "
     "first reaches (1 - shortfall) of H2's limit n (1 - (1 - 1/n)^n), interpolated between widths (unbiased at each "
     "width, but a noisy curve's first crossing comes early: its mean is not the crossing of E[rank], theory/NOTES.md); "
     "NaN (a failed trial) where "
     "max_d_h does not reach it", NULL, NULL,
     .definition = "d - 1 + (t - R_{d-1}) / (R_d - R_{d-1}), d the first width with R_d >= t = (1 - eps) n (1 - "
                   "(1 - 1/n)^n), R_d = sum_j 1 - C(M - c_j, n) / C(M, n) from M fresh queries on the head's first d "
                   "coordinates, R_0 = 1",
     .range = position_range},
    [AR_SATURATION_OUT_LOG_D_H] = {"log_saturation_d_h", "ln saturation_d_h: its slope along ln log2_n is 1 where the "
     "position grows like log n (NaN where saturation_d_h is)", NULL, NULL, .definition = "ln saturation_d_h",
     .range = log_position_range},
};

const ar_sim ar_sim_hardmax_saturation = {
    .name = "hardmax_saturation",
    .summary = "the head width at which the hardmax rank reaches (1 - eps) of its d_h -> infinity limit, against "
               "log2 n",
    AR_SIM_TABLES(params, outputs),
    .check = NULL,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
