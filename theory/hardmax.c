/* theory/hardmax: claims H1-H5 (Min & Li, "On the Efficiency of Transformers: The
 * Effect of Attention Rank"), one table over the family's simulators. */
#include "attnrank/families/hardmax.h"
#include "attnrank/theory.h"

#include <math.h>

static double n_of(const ar_point *p) { return ar_point_int(p, AR_HARDMAX_N); }
static double dh_of(const ar_point *p) { return ar_point_int(p, AR_HARDMAX_D_H); }
static double tau_of(const ar_point *p) { return ar_point_real(p, AR_HARDMAX_TAU); }

/* The theorems' assumptions: orthonormal inputs and independent query and key weights.
 * Outside them H1-H3 and H5a are silent; H4 states H1's bound there on purpose, as a
 * stress test a spec lists. */
static int assumptions_hold(const ar_point *p)
{
    return ar_point_choice(p, AR_HARDMAX_INPUTS) == AR_HARDMAX_INPUTS_ORTHONORMAL &&
           ar_point_choice(p, AR_HARDMAX_WEIGHTS) == AR_HARDMAX_WEIGHTS_INDEPENDENT;
}

/* H1: E[rank] <= (1 - 1/e) n + 1; H4 the same bound wherever it is asked for. */
static double h1_anywhere(const ar_point *p) { return (1.0 - exp(-1.0)) * n_of(p) + 1.0; }
static double h1_bound(const ar_point *p) { return assumptions_hold(p) ? h1_anywhere(p) : NAN; }

/* H2: E[rank | K] = sum_j 1 - (1 - p_j)^n <= n (1 - (1 - 1/n)^n). */
static double h2_bound(const ar_point *p)
{
    double n = n_of(p);
    return assumptions_hold(p) ? n * (1.0 - pow(1.0 - 1.0 / n, n)) : NAN;
}

/* H3: with d_h = 1 the argmax is the largest or smallest key, by the query's sign. */
static double h3_exact(const ar_point *p)
{
    if (dh_of(p) != 1 || !assumptions_hold(p))
        return NAN;
    return 2.0 - pow(2.0, 1.0 - n_of(p));
}

/* Renyi-Sulanke: n Gaussian points in the plane have about 2 sqrt(2 pi ln n) hull vertices. */
static double hull_asymptotic(const ar_point *p)
{
    if (dh_of(p) != 2)
        return NAN;
    const double pi = 3.14159265358979323846;
    return 2.0 * sqrt(2.0 * pi * log(n_of(p)));
}

/* H5a: as tau -> 0 softmax becomes hardmax, so numrank_abs obeys H1's bound. */
static double h5a_small_tau(const ar_point *p)
{
    return tau_of(p) <= 1e-6 ? h1_bound(p) : NAN;
}

/* H5b: A = 11^T/n + (1/(n tau)) S (I - 11^T/n) + O(tau^-2): rank <= d_h + 1. */
static double h5b_large_tau(const ar_point *p)
{
    if (!(tau_of(p) >= 1e6))
        return NAN;
    double n = n_of(p), dh1 = dh_of(p) + 1;
    return dh1 < n ? dh1 : n;
}

const ar_claim ar_hardmax_claims[] = {
    {.id = "H1", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_ARGMAX_RANK,
     .statement = "hardmax attention on orthonormal inputs: E[rank] <= (1 - 1/e) n + 1",
     .formula = "(1 - 1/e) * n + 1", .rule = AR_RULE_UPPER_BOUND, .predict = h1_bound},
    {.id = "H2", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_ARGMAX_RANK,
     .statement = "sharper bound: E[rank] <= n (1 - (1 - 1/n)^n), approached as d_h grows",
     .formula = "n * (1 - (1 - 1/n)^n)", .rule = AR_RULE_UPPER_BOUND, .predict = h2_bound},
    {.id = "H2hull", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_HULL_VERTICES,
     .statement = "d_h = 2: keys' hull has about 2 sqrt(2 pi ln n) vertices (Renyi-Sulanke asymptotic)",
     .formula = "2 * sqrt(2 * pi * ln(n)) where d_h = 2", .rule = AR_RULE_REFERENCE, .predict = hull_asymptotic},
    /* H2 "approached as d_h grows": the bound is the limit along d_h at fixed n. Given
     * the keys, E[rank | K] = sum_j 1 - (1 - p_j)^n, with p_j the chance that key j wins
     * a random query; the sum is concave in the p_j and largest at p_j = 1/n, so the
     * deficit is quadratic in the spread of the p_j about 1/n, whose variance falls like
     * 1/d_h as the keys' directions spread out: a correction a / d_h (rate 1, fixed). */
    {.id = "H2lim", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_ARGMAX_RANK,
     .statement = "...and approached: E[rank] -> n (1 - (1 - 1/n)^n) as d_h grows",
     .formula = "n * (1 - (1 - 1/n)^n)", .rule = AR_RULE_LIMIT, .predict = h2_bound, .rel_tol = 0.01,
     .trend_axis = "d_h", .on_request = 1, .rate_lo = 1, .rate_hi = 1},
    {.id = "H3", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_ARGMAX_RANK,
     .statement = "d_h = 1: E[rank] = 2 - 2^(1-n) exactly", .formula = "2 - 2^(1 - n) where d_h = 1",
     .rule = AR_RULE_EQUALS, .predict = h3_exact, .rel_tol = 0.05},
    {.id = "H4", .sim = &ar_sim_hardmax_rank, .output = AR_HARDMAX_OUT_ARGMAX_RANK,
     .statement = "assumption stress: H1's bound with an assumption broken (tied weights push rank to n)",
     .formula = "(1 - 1/e) * n + 1", .rule = AR_RULE_UPPER_BOUND, .predict = h1_anywhere, .on_request = 1},
    {.id = "H5a", .sim = &ar_sim_softmax_rank, .output = AR_SOFTMAX_OUT_NUMRANK_ABS,
     .statement = "softmax at tau <= 1e-6 sqrt(d_h) is hardmax: E[numrank_abs] <= (1 - 1/e) n + 1",
     .formula = "(1 - 1/e) * n + 1 where tau <= 1e-6", .rule = AR_RULE_UPPER_BOUND, .predict = h5a_small_tau},
    /* H5b is deterministic at first order (the rank-d_h term is exact): judged in every
     * trial, since T equal draws bound a mean only up to the rule of three. */
    {.id = "H5b", .sim = &ar_sim_softmax_rank, .output = AR_SOFTMAX_OUT_NUMRANK_ABS,
     .statement = "softmax at tau >= 1e6 sqrt(d_h) is 11^T/n plus a rank-d_h term: numrank_abs <= d_h + 1 in "
                  "every trial",
     .formula = "min(n, d_h + 1) where tau >= 1e6", .rule = AR_RULE_EVERY_TRIAL, .predict = h5b_large_tau},
};
const int ar_hardmax_claim_count = AR_COUNT(ar_hardmax_claims);
