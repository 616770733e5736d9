/* theory/convex: claims C1-C3 (Ergen, Neyshabur, Mehta, "Convexifying Transformers"),
 * in the corrected form of the theory notes (1/2 on the loss and beta/2 on both weight
 * norms, so the penalty becomes beta sum_k ||z_k||), one table for convex_attention. */
#include "attnrank/families/convex.h"
#include "attnrank/theory.h"

#include <math.h>

static double samples(const ar_point *p) { return ar_point_int(p, AR_CONVEX_SAMPLES); }
/* h = 0 asks for N + 1 heads (enough for C1). */
static double heads(const ar_point *p)
{
    int h = ar_point_int(p, AR_CONVEX_HEADS);
    return h > 0 ? h : samples(p) + 1;
}
static int enough_heads(const ar_point *p) { return heads(p) >= samples(p) + 1; }
static int trained(const ar_point *p) { return ar_point_int(p, AR_CONVEX_STARTS) > 0; }

/* C1: with h >= N + 1 heads the network's optimum equals the convex one. The network
 * built from Z attains P exactly (up to round-off) and no start ever gets below it (the
 * convex program is a lower bound): together, equal optima. That local training finds
 * the optimum is a separate matter, measured: the fraction of starts that reach it. */
static double c1_mapped(const ar_point *p) { return enough_heads(p) ? 1e-9 : NAN; }
static double c1_reached(const ar_point *p) { return enough_heads(p) && trained(p) ? 0.0 : NAN; }
static double c1_lower(const ar_point *p) { return trained(p) ? 1e-8 : NAN; }
/* C2: at most N + 1 active token positions, and fewer as beta grows. */
static double c2_tokens(const ar_point *p) { return samples(p) + 1; }
static double c2_beta(const ar_point *p) { (void)p; return 0.0; }
/* C3, the erratum: with one head the equality can fail; a witness is an instance where
 * the best start stays above P by more than 1e-4 (relative). */
static double c3_witness(const ar_point *p) { return heads(p) < 2 && trained(p) ? 1e-4 : NAN; }

const ar_claim ar_convex_claims[] = {
    {.id = "C1", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_MAPPED_ERROR,
     .statement = "h >= N + 1: the network built from Z (a_j = e_k, v_j = z_k/sqrt||z_k||, b_j = sqrt||z_k||) "
                  "attains the convex optimum, to 1e-9, in every instance",
     .formula = "1e-9", .rule = AR_RULE_EVERY_TRIAL, .predict = c1_mapped},
    /* No number for the fraction follows from the paper: measured, not judged. */
    {.id = "C1opt", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_FRACTION_REACHED,
     .statement = "with h >= N + 1 heads, the fraction of random starts whose training reaches the convex "
                  "optimum (within 1e-6, relative)",
     .formula = "measured", .rule = AR_RULE_MEASURE, .predict = c1_reached},
    {.id = "C1lower", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_CONVEX_MINUS_BEST,
     .statement = "no network gets below the convex optimum (beyond its 1e-9 certificate): (P - best) / P <= "
                  "1e-8 in every instance",
     .formula = "1e-8", .rule = AR_RULE_EVERY_TRIAL, .predict = c1_lower},
    {.id = "C2", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_ACTIVE_TOKENS,
     .statement = "token sparsity: the convex optimum uses at most N + 1 token positions, in every instance",
     .formula = "N + 1", .rule = AR_RULE_EVERY_TRIAL, .predict = c2_tokens},
    {.id = "C2beta", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_ACTIVE_TOKENS,
     .statement = "...and fewer as beta grows", .formula = "falls with beta", .rule = AR_RULE_DECREASING,
     .predict = c2_beta, .trend_axis = "beta"},
    {.id = "C3", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_NETWORK_EXCESS,
     .statement = "erratum: with one head the equality can fail: a witness instance where the best start stays "
                  "more than 1e-4 (relative) above the convex optimum",
     .formula = "> 1e-4 somewhere", .rule = AR_RULE_WITNESS, .predict = c3_witness},
};
const int ar_convex_claim_count = AR_COUNT(ar_convex_claims);
