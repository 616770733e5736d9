/* theory/markov: claims S1-S8 (Naderi, Nait Saada, Tanner, "Mind the Gap: a
 * Spectral Analysis of Rank Collapse and Signal Propagation in Attention Layers"). */
#include "attnrank/markov.h"
#include "attnrank/theory.h"

#include <math.h>

static int keeps_gap(const ar_point *p) { return ar_point_value(p, "gap") == 0; }

/* s/m of the entry law, NaN for key-query attention (its entries are not iid). */
static double ratio(const ar_point *p)
{
    double m, s;
    ar_markov_law_moments((int)ar_point_value(p, "entries"), &m, &s);
    return s / m;
}

/* S1: the Perron outlier sigma_1(A) -> 1. */
static double s1_outlier(const ar_point *p)
{
    return keeps_gap(p) && isfinite(ratio(p)) ? 1.0 : NAN;
}

/* S2: sqrt(n) sigma_2(A) -> 2 s/m, the edge of the quarter circle. */
static double s2_edge(const ar_point *p)
{
    return keeps_gap(p) ? 2 * ratio(p) : NAN;
}

/* S2ks: the bulk approaches the quarter-circle law: the KS distance falls with n. */
static double s2_ks(const ar_point *p)
{
    return isfinite(ratio(p)) && ar_point_value(p, "spectrum") == 0 ? 0.0 : NAN;
}

/* S3: the bulk eigenvalues of sqrt(n) A fill the disc of radius s/m uniformly. Judged
 * on the mean squared modulus over (s/m)^2, a linear statistic (1/2 for the uniform disc
 * of radius 1; a radius off by 1% moves it by 2%); the moduli's KS distance from the
 * disc law falls with n. The largest modulus approaches 1 only with Gumbel corrections
 * of order sqrt(log n / n) (Rider 2003): drawn as a reference, not judged. */
static int disc(const ar_point *p)
{
    return keeps_gap(p) && isfinite(ratio(p)) && ar_point_value(p, "eigenvalues") == 1;
}
static double s3_moment(const ar_point *p) { return disc(p) ? 0.5 : NAN; }
static double s3_edge(const ar_point *p) { return disc(p) ? 1.0 : NAN; }
static double s3_ks(const ar_point *p) { return disc(p) ? 0.0 : NAN; }

/* S4: stable_rank(A) -> 1 + s^2/m^2 (||A||_F^2 -> 1 + s^2/m^2, sigma_1 -> 1). */
static double s4_stable(const ar_point *p)
{
    double r = ratio(p);
    return keeps_gap(p) ? 1 + r * r : NAN;
}

/* S4perp: without the gap ||A||_2 ~ 2 s/(m sqrt n), so the stable rank grows like n/4. */
static double s4_perp(const ar_point *p)
{
    return !keeps_gap(p) && isfinite(ratio(p)) ? ar_point_value(p, "n") / 4 : NAN;
}

/* S5: one layer X_1 = A X_0 W_V: ||X_1||_F^2 ~ d (1 + s^2/m^2) and ||X_1||_2^2 ~ d, so
 * the stable rank tends to 1 + s^2/m^2 for any width; without the gap it grows with n. */
static double s5_collapse(const ar_point *p) { return keeps_gap(p) ? 1 + ratio(p) * ratio(p) : NAN; }
static double s5_perp(const ar_point *p) { return keeps_gap(p) ? NAN : 1.0; }

/* Limits are judged on the constant extrapolated along n (theory.h), with the rate of
 * the finite-size correction the theory gives (1/n for sums over rows and linear
 * statistics, n^(-2/3) at the edge); the tolerances and rates are justified in
 * theory/NOTES.md. */
const ar_claim ar_claim_s5 = {
    .id = "S5", .simulator = "width_collapse", .output = "stable_rank",
    .statement = "rank collapse in width: stable_rank(A X_0 W_V) -> 1 + s^2/m^2 as n grows at fixed n/d",
    .formula = "1 + (s / m)^2", .rule = AR_RULE_LIMIT, .predict = s5_collapse, .rel_tol = 0.01,
    .trend_axis = "n", .rate_lo = 1, .rate_hi = 1};
const ar_claim ar_claim_s5perp = {
    "S5perp", "width_collapse", "stable_rank",
    "without the gap, stable_rank((A - 11^T/n) X_0 W_V) grows with n", "grows (no closed form)",
    AR_RULE_INCREASING, s5_perp, 0, 0, "n"};
/* S6: depth. With the gap and no skip connection, L layers X_{l+1} = A_l X_l W_l align
 * the tokens: the stable rank of X_L falls to 1 (within 5%); removing the gap slows the
 * collapse, so at the last layer the stable rank is larger without it. */
static int plain_stack(const ar_point *p)
{
    return ar_point_value(p, "skip") == 0 && ar_point_value(p, "attention") == 0; /* random Markov A_l */
}
static double s6_collapse(const ar_point *p) { return keeps_gap(p) && plain_stack(p) ? 1.05 : NAN; }
static double s6_perp(const ar_point *p) { return plain_stack(p) ? 1.0 : NAN; }

const ar_claim ar_claim_s6 = {
    "S6", "depth_collapse", "stable_rank",
    "rank collapse in depth: with the gap and no skip, stable_rank(X_L) <= 1.05 (tokens aligned)", "1.05",
    AR_RULE_UPPER_BOUND, s6_collapse, 0, 0, NULL, -1};
const ar_claim ar_claim_s6perp = {
    "S6perp", "depth_collapse", "stable_rank",
    "removing the gap slows the collapse: stable_rank(X_L) larger with A - 11^T/n than with A",
    "larger without the gap", AR_RULE_INCREASING, s6_perp, 0, 0, "gap", -1};
/* S8: key-query attention softmax(X W_Q (X W_K)^T / sqrt(d_h)) on orthonormal X has the
 * same Perron outlier: sigma_1 -> 1. Judged where the weights are not so large that
 * softmax turns into hardmax (scale <= 1); beyond, the outlier dissolves (reported). */
static double s8_keyquery(const ar_point *p)
{
    int keyquery = !isfinite(ratio(p)) && ar_point_value(p, "entries") == 3;
    return keyquery && keeps_gap(p) && ar_point_value(p, "scale") <= 1 ? 1.0 : NAN;
}

const ar_claim ar_claim_s8 = {
    .id = "S8", .simulator = "markov_spectrum", .output = "sigma1",
    .statement = "key-query attention on orthonormal inputs has the same outlier: sigma_1 -> 1 (for scale <= 1)",
    .formula = "1", .rule = AR_RULE_LIMIT, .predict = s8_keyquery, .rel_tol = 0.01, .trend_axis = "n",
    .rate_lo = 1, .rate_hi = 1};
/* S7: gradients of the linear stack. With the gap, A_{L-1} ... A_{l+1} tends to the
 * rank-one 1 pi^T of norm about sqrt(n), so ||dX_L/dW_0||_F grows with n; without it the
 * product of L - 1 centred matrices of norm ~ 2 s/(m sqrt n) makes it shrink with n. */
static int linear(const ar_point *p)
{
    int measured = ar_point_value(p, "gradient") != 2; /* gradient = none: not computed */
    return plain_stack(p) && ar_point_value(p, "norm") == 0 && measured;
}
static double s7_grows(const ar_point *p) { return keeps_gap(p) && linear(p) ? 1.0 : NAN; }
static double s7_perp(const ar_point *p) { return !keeps_gap(p) && linear(p) ? 1.0 : NAN; }

const ar_claim ar_claim_s7 = {
    "S7", "depth_collapse", "grad_norm",
    "with the gap, the gradient ||dX_L/dW_0||_F grows with n (no skip, no LayerNorm)", "grows with n",
    AR_RULE_INCREASING, s7_grows, 0, 0, "n", 0};
const ar_claim ar_claim_s7perp = {
    "S7perp", "depth_collapse", "grad_norm",
    "without the gap, ||dX_L/dW_0||_F falls with n", "falls with n", AR_RULE_DECREASING, s7_perp, 0, 0, "n", 0};
const ar_claim ar_claim_s1 = {
    .id = "S1", .simulator = "markov_spectrum", .output = "sigma1",
    .statement = "sigma_1(A) -> 1 as n grows (the Perron outlier)", .formula = "1", .rule = AR_RULE_LIMIT,
    .predict = s1_outlier, .rel_tol = 0.01, .trend_axis = "n", .rate_lo = 1, .rate_hi = 1};
const ar_claim ar_claim_s2 = {
    .id = "S2", .simulator = "markov_spectrum", .output = "sqrt_n_sigma2",
    .statement = "sqrt(n) sigma_2(A) -> 2 s/m, the bulk edge (lognormal entries: extreme entries dominate the "
                 "edge at n <= 1024, see NOTES.md)",
    .formula = "2 s / m", .rule = AR_RULE_LIMIT, .predict = s2_edge, .rel_tol = 0.01, .trend_axis = "n",
    .rate_lo = 2.0 / 3, .rate_hi = 2.0 / 3};
const ar_claim ar_claim_s2ks = {
    "S2ks", "markov_spectrum", "ks_quarter_circle",
    "the singular values of sqrt(n) A approach the quarter-circle law: KS distance falls with n",
    "0 (the limit)", AR_RULE_DECREASING, s2_ks, 0, 0, "n"};
const ar_claim ar_claim_s3 = {
    .id = "S3", .simulator = "markov_spectrum", .output = "disc_moment2",
    .statement = "the eigenvalues of sqrt(n) A but the outlier fill the disc of radius s/m: mean |lambda|^2 / "
                 "(s/m)^2 -> 1/2",
    .formula = "1/2", .rule = AR_RULE_LIMIT, .predict = s3_moment, .rel_tol = 0.01, .trend_axis = "n",
    .rate_lo = 1, .rate_hi = 1};
const ar_claim ar_claim_s3edge = {
    .id = "S3edge", .simulator = "markov_spectrum", .output = "bulk_radius",
    .statement = "the largest bulk modulus over s/m tends to 1 (slowly: sqrt(log n / n) corrections)",
    .formula = "1", .rule = AR_RULE_REFERENCE, .predict = s3_edge};
const ar_claim ar_claim_s3ks = {
    "S3ks", "markov_spectrum", "ks_disc",
    "...and fill it uniformly: KS distance of their moduli from the disc law falls with n",
    "0 (the limit)", AR_RULE_DECREASING, s3_ks, 0, 0, "n"};
const ar_claim ar_claim_s4 = {
    .id = "S4", .simulator = "markov_spectrum", .output = "stable_rank",
    .statement = "stable_rank(A) -> 1 + s^2/m^2", .formula = "1 + (s / m)^2", .rule = AR_RULE_LIMIT,
    .predict = s4_stable, .rel_tol = 0.01, .trend_axis = "n", .rate_lo = 1, .rate_hi = 1};
const ar_claim ar_claim_s4perp = {
    "S4perp", "markov_spectrum", "stable_rank",
    "without the gap, stable_rank(A - 11^T/n) grows with n (like n/4)", "n / 4 (reference)",
    AR_RULE_INCREASING, s4_perp, 0, 0, "n"};
