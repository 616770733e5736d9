/* theory/convex: claims C1-C3 (Ergen, Neyshabur, Mehta, "Convexifying Transformers"),
 * in the corrected form of the theory notes (1/2 on the loss and beta/2 on both weight
 * norms, so the penalty becomes beta sum_k ||z_k||). */
#include "attnrank/theory.h"

#include <math.h>

static double samples(const ar_point *p) { return ar_point_value(p, "N"); }
static double heads(const ar_point *p)
{
    double h = ar_point_value(p, "h");
    return h == 0 ? samples(p) + 1 : h;
}
static int enough_heads(const ar_point *p) { return heads(p) >= samples(p) + 1; }
static int trained(const ar_point *p) { return ar_point_value(p, "starts") > 0; }

/* C1: with h >= N + 1 heads the network's optimum equals the convex one. The network
 * built from Z attains P exactly (up to round-off) and no start ever gets below it (the
 * convex program is a lower bound): together, equal optima. That local training finds
 * the optimum is a separate matter: a positive fraction of starts reaches it. */
static double c1_mapped(const ar_point *p) { return enough_heads(p) ? 1e-9 : NAN; }
static double c1_reached(const ar_point *p) { return enough_heads(p) && trained(p) ? 0.0 : NAN; }
static double c1_lower(const ar_point *p) { return trained(p) ? 1e-8 : NAN; }
/* C2: at most N + 1 active token positions, and fewer as beta grows. */
static double c2_tokens(const ar_point *p) { return samples(p) + 1; }
static double c2_beta(const ar_point *p) { (void)p; return 0.0; }
/* C3, the erratum: with one head the equality can fail; a witness is an instance where
 * the best start stays above P by more than 1e-4 (relative). */
static double c3_witness(const ar_point *p) { return heads(p) == 1 && trained(p) ? 1e-4 : NAN; }

const ar_claim ar_claim_c1 = {
    "C1", "convex_attention", "mapped_error",
    "h >= N + 1: the network built from Z (a_j = e_k, v_j = z_k/sqrt||z_k||, b_j = sqrt||z_k||) attains the "
    "convex optimum, to 1e-9, in every instance",
    "1e-9", AR_RULE_EVERY_TRIAL, c1_mapped, 0, 0, NULL};
/* No number for the fraction follows from the paper: measured, not judged. */
const ar_claim ar_claim_c1opt = {
    .id = "C1opt", .simulator = "convex_attention", .output = "fraction_reached",
    .statement = "with h >= N + 1 heads, the fraction of random starts whose training reaches the convex optimum "
                 "(within 1e-6, relative)",
    .formula = "measured", .rule = AR_RULE_MEASURE, .predict = c1_reached};
const ar_claim ar_claim_c1lower = {
    "C1lower", "convex_attention", "convex_minus_best",
    "no network gets below the convex optimum (beyond its 1e-9 certificate): (P - best) / P <= 1e-8 in "
    "every instance",
    "1e-8", AR_RULE_EVERY_TRIAL, c1_lower, 0, 0, NULL};
const ar_claim ar_claim_c2 = {
    "C2", "convex_attention", "active_tokens",
    "token sparsity: the convex optimum uses at most N + 1 token positions, in every instance", "N + 1",
    AR_RULE_EVERY_TRIAL, c2_tokens, 0, 0, NULL};
const ar_claim ar_claim_c2beta = {
    "C2beta", "convex_attention", "active_tokens", "...and fewer as beta grows", "falls with beta",
    AR_RULE_DECREASING, c2_beta, 0, 0, "beta"};
const ar_claim ar_claim_c3 = {
    "C3", "convex_attention", "network_excess",
    "erratum: with one head the equality can fail: a witness instance where the best start stays more than "
    "1e-4 (relative) above the convex optimum",
    "> 1e-4 somewhere", AR_RULE_WITNESS, c3_witness, 0, 0, NULL};
