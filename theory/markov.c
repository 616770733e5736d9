/* theory/markov: claims S1-S8 (Naderi, Nait Saada, Tanner, "Mind the Gap: a
 * Spectral Analysis of Rank Collapse and Signal Propagation in Attention Layers"),
 * one table over the family's simulators: markov_spectrum, width_collapse and
 * depth_collapse. Each prediction reads its own simulator's parameters. */
#include "attnrank/families/markov.h"
#include "attnrank/theory.h"

#include <math.h>

/* s/m of the entry law, NaN for key-query attention (its entries are not iid). */
static double ratio_of(int law)
{
    double m, s;
    ar_markov_law_moments(law, &m, &s);
    return s / m;
}

/* markov_spectrum */
static int spectrum_keeps_gap(const ar_point *p) { return ar_point_choice(p, AR_SPECTRUM_GAP) == AR_MARKOV_GAP_KEEP; }
static double spectrum_ratio(const ar_point *p) { return ratio_of(ar_point_choice(p, AR_SPECTRUM_ENTRIES)); }

/* S1: the Perron outlier sigma_1(A) -> 1. */
static double s1_outlier(const ar_point *p)
{
    return spectrum_keeps_gap(p) && isfinite(spectrum_ratio(p)) ? 1.0 : NAN;
}

/* S2: sqrt(n) sigma_2(A) -> 2 s/m, the edge of the quarter circle. */
static double s2_edge(const ar_point *p)
{
    return spectrum_keeps_gap(p) ? 2 * spectrum_ratio(p) : NAN;
}

/* S2ks: the bulk approaches the quarter-circle law: the KS distance falls with n. */
static double s2_ks(const ar_point *p)
{
    int full = ar_point_choice(p, AR_SPECTRUM_SPECTRUM) == AR_SPECTRUM_SPECTRUM_FULL;
    return isfinite(spectrum_ratio(p)) && full ? 0.0 : NAN;
}

/* S3: the bulk eigenvalues of sqrt(n) A fill the disc of radius s/m uniformly. Judged
 * on the mean squared modulus over (s/m)^2, a linear statistic (1/2 for the uniform disc
 * of radius 1; a radius off by 1% moves it by 2%); the moduli's KS distance from the
 * disc law falls with n. The largest modulus approaches 1 only with Gumbel corrections
 * of order sqrt(log n / n) (Rider 2003): drawn as a reference, not judged. */
static int disc(const ar_point *p)
{
    int eigenvalues = ar_point_choice(p, AR_SPECTRUM_EIGENVALUES) == AR_SPECTRUM_EIGENVALUES_YES;
    return spectrum_keeps_gap(p) && isfinite(spectrum_ratio(p)) && eigenvalues;
}
static double s3_moment(const ar_point *p) { return disc(p) ? 0.5 : NAN; }
static double s3_edge(const ar_point *p) { return disc(p) ? 1.0 : NAN; }
static double s3_ks(const ar_point *p) { return disc(p) ? 0.0 : NAN; }

/* S4: stable_rank(A) -> 1 + s^2/m^2 (||A||_F^2 -> 1 + s^2/m^2, sigma_1 -> 1). */
static double s4_stable(const ar_point *p)
{
    double r = spectrum_ratio(p);
    return spectrum_keeps_gap(p) ? 1 + r * r : NAN;
}

/* S4perp: without the gap ||A - 11^T/n||_F^2 -> s^2/m^2 and ||A - 11^T/n||_2 ->
 * 2 s/(m sqrt n), so stable_rank / n -> 1/4 for every entry law; the norm approaches
 * its edge with the edge's n^(-2/3) corrections. */
static double s4_perp(const ar_point *p)
{
    return !spectrum_keeps_gap(p) && isfinite(spectrum_ratio(p)) ? 0.25 : NAN;
}

/* S8: key-query attention softmax(X W_Q (X W_K)^T / sqrt(d_h)) on orthonormal X has the
 * same Perron outlier: sigma_1 -> 1. Judged where the weights are not so large that
 * softmax turns into hardmax (scale <= 1); beyond, the outlier dissolves (reported). */
static double s8_keyquery(const ar_point *p)
{
    int keyquery = ar_point_choice(p, AR_SPECTRUM_ENTRIES) == AR_MARKOV_LAW_KEYQUERY;
    return keyquery && spectrum_keeps_gap(p) && ar_point_real(p, AR_SPECTRUM_SCALE) <= 1 ? 1.0 : NAN;
}

/* S5 (width_collapse): one layer X_1 = A X_0 W_V: ||X_1||_F^2 ~ d (1 + s^2/m^2) and
 * ||X_1||_2^2 ~ d, so the stable rank tends to 1 + s^2/m^2 for any width; without the
 * gap it grows with n. */
static int width_keeps_gap(const ar_point *p) { return ar_point_choice(p, AR_WIDTH_GAP) == AR_MARKOV_GAP_KEEP; }
static double s5_collapse(const ar_point *p)
{
    double r = ratio_of(ar_point_choice(p, AR_WIDTH_ENTRIES));
    return width_keeps_gap(p) ? 1 + r * r : NAN;
}
static double s5_perp(const ar_point *p) { return width_keeps_gap(p) ? NAN : 1.0; }

/* S6 (depth_collapse): with the gap and no skip connection, L layers
 * X_{l+1} = A_l X_l W_l align the tokens: the stable rank of X_L falls to 1 (within
 * 5%); removing the gap slows the collapse, so at the last layer the stable rank is
 * larger without it. */
static int depth_keeps_gap(const ar_point *p) { return ar_point_choice(p, AR_DEPTH_GAP) == AR_MARKOV_GAP_KEEP; }
static int plain_stack(const ar_point *p)
{
    return ar_point_choice(p, AR_DEPTH_SKIP) == AR_DEPTH_SKIP_NONE &&
           ar_point_choice(p, AR_DEPTH_ATTENTION) == AR_DEPTH_ATTENTION_MARKOV;
}
static double s6_collapse(const ar_point *p) { return depth_keeps_gap(p) && plain_stack(p) ? 1.05 : NAN; }
static double s6_perp(const ar_point *p) { return plain_stack(p) ? 1.0 : NAN; }

/* S7: gradients of the linear stack. With the gap, A_{L-1} ... A_{l+1} tends to the
 * rank-one 1 pi^T of norm about sqrt(n), so ||dX_L/dW_0||_F grows with n; without it the
 * product of L - 1 centred matrices of norm ~ 2 s/(m sqrt n) makes it shrink with n. */
static int linear(const ar_point *p)
{
    int measured = ar_point_choice(p, AR_DEPTH_GRADIENT) != AR_DEPTH_GRADIENT_NONE;
    return plain_stack(p) && ar_point_choice(p, AR_DEPTH_NORM) == AR_DEPTH_NORM_NONE && measured;
}
static double s7_grows(const ar_point *p) { return depth_keeps_gap(p) && linear(p) ? 1.0 : NAN; }
static double s7_perp(const ar_point *p) { return !depth_keeps_gap(p) && linear(p) ? 1.0 : NAN; }

/* Limits are judged on the constant extrapolated along n (theory.h), with the rate of
 * the finite-size correction the theory gives (1/n for sums over rows and linear
 * statistics, n^(-2/3) at the edge); the tolerances and rates are justified in
 * theory/NOTES.md. */
const ar_claim ar_markov_claims[] = {
    {.id = "S1", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_SIGMA1,
     .statement = "sigma_1(A) -> 1 as n grows (the Perron outlier)", .formula = "1", .rule = AR_RULE_LIMIT,
     .predict = s1_outlier, .rel_tol = 0.01, .trend_axis = "n", .rate_lo = 1, .rate_hi = 1},
    {.id = "S2", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_SQRT_N_SIGMA2,
     .statement = "sqrt(n) sigma_2(A) -> 2 s/m, the bulk edge (lognormal entries: extreme entries dominate the "
                  "edge at n <= 1024, see NOTES.md)",
     .formula = "2 s / m", .rule = AR_RULE_LIMIT, .predict = s2_edge, .rel_tol = 0.01, .trend_axis = "n",
     .rate_lo = 2.0 / 3, .rate_hi = 2.0 / 3},
    {.id = "S2ks", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_KS_QUARTER_CIRCLE,
     .statement = "the singular values of sqrt(n) A approach the quarter-circle law: KS distance falls with n",
     .formula = "0 (the limit)", .rule = AR_RULE_DECREASING, .predict = s2_ks, .trend_axis = "n"},
    {.id = "S3", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_DISC_MOMENT2,
     .statement = "the eigenvalues of sqrt(n) A but the outlier fill the disc of radius s/m: mean |lambda|^2 / "
                  "(s/m)^2 -> 1/2",
     .formula = "1/2", .rule = AR_RULE_LIMIT, .predict = s3_moment, .rel_tol = 0.01, .trend_axis = "n",
     .rate_lo = 1, .rate_hi = 1},
    {.id = "S3edge", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_BULK_RADIUS,
     .statement = "the largest bulk modulus over s/m tends to 1 (slowly: sqrt(log n / n) corrections)",
     .formula = "1", .rule = AR_RULE_REFERENCE, .predict = s3_edge},
    {.id = "S3ks", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_KS_DISC,
     .statement = "...and fill it uniformly: KS distance of their moduli from the disc law falls with n",
     .formula = "0 (the limit)", .rule = AR_RULE_DECREASING, .predict = s3_ks, .trend_axis = "n"},
    {.id = "S4", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_STABLE_RANK,
     .statement = "stable_rank(A) -> 1 + s^2/m^2", .formula = "1 + (s / m)^2", .rule = AR_RULE_LIMIT,
     .predict = s4_stable, .rel_tol = 0.01, .trend_axis = "n", .rate_lo = 1, .rate_hi = 1},
    {.id = "S4perp", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_STABLE_RANK_PER_N,
     .statement = "without the gap, stable_rank(A - 11^T/n) grows like n/4: stable_rank / n -> 1/4",
     .formula = "1/4", .rule = AR_RULE_LIMIT, .predict = s4_perp, .rel_tol = 0.01, .trend_axis = "n",
     .rate_lo = 2.0 / 3, .rate_hi = 2.0 / 3},
    {.id = "S5", .sim = &ar_sim_width_collapse, .output = AR_WIDTH_OUT_STABLE_RANK,
     .statement = "rank collapse in width: stable_rank(A X_0 W_V) -> 1 + s^2/m^2 as n grows at fixed n/d",
     .formula = "1 + (s / m)^2", .rule = AR_RULE_LIMIT, .predict = s5_collapse, .rel_tol = 0.01,
     .trend_axis = "n", .rate_lo = 1, .rate_hi = 1},
    {.id = "S5perp", .sim = &ar_sim_width_collapse, .output = AR_WIDTH_OUT_STABLE_RANK,
     .statement = "without the gap, stable_rank((A - 11^T/n) X_0 W_V) grows with n",
     .formula = "grows (no closed form)", .rule = AR_RULE_INCREASING, .predict = s5_perp, .trend_axis = "n"},
    {.id = "S6", .sim = &ar_sim_depth_collapse, .output = AR_DEPTH_OUT_STABLE_RANK,
     .statement = "rank collapse in depth: with the gap and no skip, stable_rank(X_L) <= 1.05 (tokens aligned)",
     .formula = "1.05", .rule = AR_RULE_UPPER_BOUND, .predict = s6_collapse, .element = -1},
    {.id = "S6perp", .sim = &ar_sim_depth_collapse, .output = AR_DEPTH_OUT_STABLE_RANK,
     .statement = "removing the gap slows the collapse: stable_rank(X_L) larger with A - 11^T/n than with A",
     .formula = "larger without the gap", .rule = AR_RULE_INCREASING, .predict = s6_perp, .trend_axis = "gap",
     .element = -1},
    {.id = "S7", .sim = &ar_sim_depth_collapse, .output = AR_DEPTH_OUT_GRAD_NORM,
     .statement = "with the gap, the gradient ||dX_L/dW_0||_F grows with n (no skip, no LayerNorm)",
     .formula = "grows with n", .rule = AR_RULE_INCREASING, .predict = s7_grows, .trend_axis = "n"},
    {.id = "S7perp", .sim = &ar_sim_depth_collapse, .output = AR_DEPTH_OUT_GRAD_NORM,
     .statement = "without the gap, ||dX_L/dW_0||_F falls with n", .formula = "falls with n",
     .rule = AR_RULE_DECREASING, .predict = s7_perp, .trend_axis = "n"},
    {.id = "S8", .sim = &ar_sim_markov_spectrum, .output = AR_SPECTRUM_OUT_SIGMA1,
     .statement = "key-query attention on orthonormal inputs has the same outlier: sigma_1 -> 1 (for scale <= 1)",
     .formula = "1", .rule = AR_RULE_LIMIT, .predict = s8_keyquery, .rel_tol = 0.01, .trend_axis = "n",
     .rate_lo = 1, .rate_hi = 1},
};
const int ar_markov_claim_count = AR_COUNT(ar_markov_claims);
