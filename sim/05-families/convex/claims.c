/* theory/convex: claims C1-C4 (Ergen, Neyshabur, Mehta, "Convexifying Transformers"),
 * in the corrected form of the theory notes (1/2 on the loss and beta/2 on both weight
 * norms, so the penalty becomes beta sum_k ||z_k||), one table for convex_attention. */
#include "convex/convex.h"
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

/* C1: with h >= N + 1 heads the relaxed network's optimum equals the convex one. The
 * network built from Z attains P (up to round-off) and no start gets below it (the
 * convex program is a lower bound of the relaxed network): both hold by algebra, so
 * they are unit checks of the code. That local training finds the optimum is a
 * separate matter, measured: the fraction of starts that reach it. */
static double c1_mapped(const ar_point *p) { return enough_heads(p) ? 1e-9 : NAN; }
static double c1_reached(const ar_point *p) { return enough_heads(p) && trained(p) ? 0.0 : NAN; }
static double c1_lower(const ar_point *p) { return trained(p) ? 1e-8 : NAN; }
/* C2: at most N + 1 active token positions, and fewer as beta grows. Where N + 1 >= n
 * the bound cannot fail (there are only n positions): judged only where N + 1 < n. */
static double c2_tokens(const ar_point *p)
{
    return samples(p) + 1 < ar_point_int(p, AR_CONVEX_TOKENS) ? samples(p) + 1 : NAN;
}
static double c2_beta(const ar_point *p) { (void)p; return 0.0; }
/* C3, the erratum: with one head the equality can fail; a witness is an instance where
 * the best start stays above P by more than 1e-4 (relative) and is stationary (its
 * projected gradient below 1e-6 of P): an unconverged start is no witness. */
static double c3_witness(const ar_point *p) { return heads(p) < 2 && trained(p) ? 1e-4 : NAN; }

/* C4: what the reviewers dispute, the real softmax attention network (Eq. 3) against
 * the relaxation. The paper reads the relaxation as a reformulation, which would make
 * P a lower bound of softmax attention too: judged in every instance, to the same 1e-8
 * as C1lower (not a theorem: the attention depends on the sample). How close softmax
 * attention gets is measured, and whether the gap closes as heads are added is judged
 * as a trend, where the network can tell positions apart (positions = bias). */
static int softmax_trained(const ar_point *p) { return ar_point_int(p, AR_CONVEX_SOFTMAX_STARTS) > 0; }
static double c4_lower(const ar_point *p) { return softmax_trained(p) ? 1e-8 : NAN; }
static double c4_heads(const ar_point *p)
{
    return softmax_trained(p) && ar_point_choice(p, AR_CONVEX_POSITIONS) == AR_CONVEX_POSITIONS_BIAS ? 0.0 : NAN;
}
static double c4_gap(const ar_point *p) { return softmax_trained(p) ? 0.0 : NAN; }

const ar_claim ar_convex_claims[] = {
    {.id = "C1", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_MAPPED_ERROR,
     .statement = "unit check: h >= N + 1: the network built from Z (a_j = e_k, v_j = z_k/sqrt||z_k||, b_j = "
                  "sqrt||z_k||) attains the convex optimum, to 1e-9, in every instance",
     .formula = "1e-9", .rule = AR_RULE_EVERY_TRIAL, .predict = c1_mapped, .identity = 1},
    /* No number for the fraction follows from the paper: measured, not judged. */
    {.id = "C1opt", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_FRACTION_REACHED,
     .statement = "with h >= N + 1 heads, the fraction of random starts whose training reaches the convex "
                  "optimum (within 1e-6, relative)",
     .formula = "measured", .rule = AR_RULE_MEASURE, .predict = c1_reached},
    {.id = "C1lower", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_CONVEX_MINUS_BEST,
     .statement = "unit check: no relaxed network gets below the convex optimum (beyond its 1e-9 "
                  "certificate): (P - best) / P <= 1e-8 in every instance",
     .formula = "1e-8", .rule = AR_RULE_EVERY_TRIAL, .predict = c1_lower, .identity = 1},
    {.id = "C2", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_ACTIVE_TOKENS,
     .statement = "token sparsity: the convex optimum uses at most N + 1 token positions, in every instance "
                  "(judged where N + 1 < n)",
     .formula = "N + 1", .rule = AR_RULE_EVERY_TRIAL, .predict = c2_tokens},
    {.id = "C2beta", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_ACTIVE_TOKENS,
     .statement = "...and fewer as beta grows", .formula = "falls with beta", .rule = AR_RULE_DECREASING,
     .predict = c2_beta, .trend_axis = "beta"},
    {.id = "C3", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_STATIONARY_EXCESS,
     .statement = "erratum: with one head the equality can fail: a witness instance where the best start is "
                  "stationary (projected gradient <= 1e-6 P) and stays more than 1e-4 (relative) above P",
     .formula = "> 1e-4 somewhere", .rule = AR_RULE_WITNESS, .predict = c3_witness},
    {.id = "C4", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_CONVEX_MINUS_SOFTMAX,
     .statement = "the relaxation bounds softmax attention: the best trained softmax network (Eq. 3) never gets "
                  "below the convex optimum: (P - best) / P <= 1e-8 in every instance",
     .formula = "1e-8", .rule = AR_RULE_EVERY_TRIAL, .predict = c4_lower},
    {.id = "C4heads", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_SOFTMAX_EXCESS,
     .statement = "...and the gap (best softmax - P) / P closes as heads are added (with a positional bias)",
     .formula = "falls with h", .rule = AR_RULE_DECREASING, .predict = c4_heads, .trend_axis = "h"},
    {.id = "C4gap", .sim = &ar_sim_convex_attention, .output = AR_CONVEX_OUT_SOFTMAX_EXCESS,
     .statement = "...by how much softmax attention stays above the relaxation: (best softmax - P) / P",
     .formula = "measured", .rule = AR_RULE_MEASURE, .predict = c4_gap},
};
const int ar_convex_claim_count = AR_COUNT(ar_convex_claims);
