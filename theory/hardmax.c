/* theory/hardmax: claims H1-H5 (Min & Li, "On the Efficiency of Transformers: The
 * Effect of Attention Rank"). */
#include "attnrank/theory.h"

#include <math.h>

static double n_of(const ar_point *p) { return ar_point_value(p, "n"); }
static double dh_of(const ar_point *p) { return ar_point_value(p, "d_h"); }
static double tau_of(const ar_point *p) { return ar_point_value(p, "tau"); }

/* H1: E[rank] <= (1 - 1/e) n + 1. */
static double h1_bound(const ar_point *p) { return (1.0 - exp(-1.0)) * n_of(p) + 1.0; }

/* H2: E[rank | K] = sum_j 1 - (1 - p_j)^n <= n (1 - (1 - 1/n)^n). */
static double h2_bound(const ar_point *p)
{
    double n = n_of(p);
    return n * (1.0 - pow(1.0 - 1.0 / n, n));
}

/* H3: with d_h = 1 the argmax is the largest or smallest key, by the query's sign. */
static double h3_exact(const ar_point *p)
{
    if (dh_of(p) != 1)
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

const ar_claim ar_claim_h1 = {
    "H1", "hardmax_rank", "argmax_rank",
    "hardmax attention on orthonormal inputs: E[rank] <= (1 - 1/e) n + 1",
    "(1 - 1/e) * n + 1", AR_RULE_UPPER_BOUND, h1_bound, 0, 0, NULL};
const ar_claim ar_claim_h2 = {
    "H2", "hardmax_rank", "argmax_rank",
    "sharper bound: E[rank] <= n (1 - (1 - 1/n)^n), approached as d_h grows",
    "n * (1 - (1 - 1/n)^n)", AR_RULE_UPPER_BOUND, h2_bound, 0, 0, NULL};
const ar_claim ar_claim_h2_hull = {
    "H2hull", "hardmax_rank", "hull_vertices",
    "d_h = 2: keys' hull has about 2 sqrt(2 pi ln n) vertices (Renyi-Sulanke asymptotic)",
    "2 * sqrt(2 * pi * ln(n)) where d_h = 2", AR_RULE_REFERENCE, hull_asymptotic, 0, 0, NULL};
const ar_claim ar_claim_h3 = {
    "H3", "hardmax_rank", "argmax_rank",
    "d_h = 1: E[rank] = 2 - 2^(1-n) exactly",
    "2 - 2^(1 - n) where d_h = 1", AR_RULE_EQUALS, h3_exact, 0.05, 0, NULL};
const ar_claim ar_claim_h4 = {
    "H4", "hardmax_rank", "argmax_rank",
    "assumption stress: H1's bound with an assumption broken (tied weights push rank to n)",
    "(1 - 1/e) * n + 1", AR_RULE_UPPER_BOUND, h1_bound, 0, 1, NULL};
const ar_claim ar_claim_h5a = {
    "H5a", "softmax_rank", "numrank_abs",
    "softmax at tau <= 1e-6 sqrt(d_h) is hardmax: E[numrank_abs] <= (1 - 1/e) n + 1",
    "(1 - 1/e) * n + 1 where tau <= 1e-6", AR_RULE_UPPER_BOUND, h5a_small_tau, 0, 0, NULL};
/* H5b is deterministic at first order (the rank-d_h term is exact): judged in every
 * trial, since T equal draws bound a mean only up to the rule of three. */
const ar_claim ar_claim_h5b = {
    "H5b", "softmax_rank", "numrank_abs",
    "softmax at tau >= 1e6 sqrt(d_h) is 11^T/n plus a rank-d_h term: numrank_abs <= d_h + 1 in every trial",
    "min(n, d_h + 1) where tau >= 1e6", AR_RULE_EVERY_TRIAL, h5b_large_tau, 0, 0, NULL};
