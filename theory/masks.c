/* theory/masks: claims M1-M4 (Wu, Ajorlou, Wang, Jegelka, Jadbabaie, "On the Role of
 * Attention Masks and LayerNorm in Transformers"), and what the collapse bound needs
 * of a mask graph. */
#include "attnrank/mask.h"
#include "attnrank/theory.h"

#include <math.h>

/* Whether the mask at this point has a directed spanning tree, from its definition
 * (the tests check it against the breadth-first search of mask.c on small graphs):
 * windows need w >= 1, a dilated mask with stride > 1 splits the tokens by residue,
 * a global mask is joined by its global tokens or its window. Random masks are drawn
 * per trial: no answer here (-1). */
int ar_mask_connected(const ar_point *p)
{
    int n = (int)ar_point_value(p, "n"), w = (int)ar_point_value(p, "w");
    if (n <= 1)
        return 1;
    switch ((ar_mask_kind)ar_point_value(p, "mask")) {
    case AR_MASK_COMPLETE:
    case AR_MASK_CAUSAL: return 1;
    case AR_MASK_WINDOW:
    case AR_MASK_CAUSAL_WINDOW: return w >= 1;
    case AR_MASK_DILATED: return w >= 1 && ar_point_value(p, "stride") == 1;
    case AR_MASK_GLOBAL: return w >= 1 || ar_point_value(p, "globals") >= 1;
    case AR_MASK_RANDOM: return -1;
    }
    return -1;
}

static int no_layernorm(const ar_point *p) { return ar_point_value(p, "norm") == 0; }
/* W_V orthogonal (1) or the identity (2): norms preserved, so mu measures alignment. */
static int isometric_value(const ar_point *p) { return ar_point_value(p, "value") >= 1; }

/* M1: pure masked attention collapses exponentially on every mask with a spanning tree. */
static double m1_rate(const ar_point *p)
{
    return no_layernorm(p) && isometric_value(p) && ar_mask_connected(p) == 1 ? 0.0 : NAN;
}
static double m1_shape(const ar_point *p) { return isnan(m1_rate(p)) ? NAN : 0.5; }

/* M2: local masks allow slower collapse: on a sliding window the rate grows with w. */
static double m2_order(const ar_point *p)
{
    int window = ar_point_value(p, "mask") == AR_MASK_WINDOW || ar_point_value(p, "mask") == AR_MASK_CAUSAL_WINDOW;
    return window && !isnan(m1_rate(p)) ? 0.0 : NAN;
}

/* M2's bound itself, exact for W_V = I without LayerNorm: every window's ratio <= 1. */
static double m2_bound(const ar_point *p)
{
    return no_layernorm(p) && ar_point_value(p, "value") == 2 && ar_mask_connected(p) != 0 ? 1.0 : NAN;
}

/* M3: with LayerNorm (onto the sphere) and orthogonal W_V, inputs in a common open
 * hemisphere still collapse exponentially. */
static double m3_rate(const ar_point *p)
{
    int sphere = ar_point_value(p, "norm") == 1, orthogonal = ar_point_value(p, "value") == 1;
    int hemisphere = ar_point_value(p, "init") == 2;
    return sphere && orthogonal && hemisphere && ar_mask_connected(p) == 1 ? 0.0 : NAN;
}
static double m3_shape(const ar_point *p) { return isnan(m3_rate(p)) ? NAN : 0.5; }

/* "Collapses exponentially" is judged on the shape of the decay, not on a positive
 * slope alone: the late-half rate must stay at least half the overall rate (a power law
 * gives about 0.3 over 60 layers, a plateau about 0); the rate itself is measured, since
 * the paper gives no number for it at these sizes (M2's a-priori bound is vacuous here). */
static const char EXPONENTIAL_STATEMENT[] = "rate_ratio (late-half rate / whole-window rate of mu/||X||) >= 1/2";

const ar_claim ar_claim_m1 = {
    .id = "M1", .simulator = "mask_dynamics", .output = "rate_ratio",
    .statement = "without LayerNorm, attention on any mask with a directed spanning tree collapses to rank one "
                 "exponentially: the decay does not slow (W_V orthogonal or identity)",
    .formula = EXPONENTIAL_STATEMENT, .rule = AR_RULE_LOWER_BOUND, .predict = m1_shape};
const ar_claim ar_claim_m1rate = {
    .id = "M1rate", .simulator = "mask_dynamics", .output = "rate",
    .statement = "...at the rate measured (per layer, of mu/||X||_F)", .formula = "measured",
    .rule = AR_RULE_MEASURE, .predict = m1_rate};
const ar_claim ar_claim_m2 = {
    "M2", "mask_dynamics", "rate",
    "local masks collapse more slowly: on a sliding window the rate grows with its width w", "grows with w",
    AR_RULE_INCREASING, m2_order, 0, 0, "w"};
const ar_claim ar_claim_m2bound = {
    "M2bound", "mask_dynamics", "bound_ratio",
    "the bound, where exact (W_V = I, no LayerNorm): over any r = radius layers each column's spread falls "
    "to at most (1 - eps^r) of its value, in every trial",
    "1", AR_RULE_EVERY_TRIAL, m2_bound, 0, 0, NULL};
const ar_claim ar_claim_m3 = {
    .id = "M3", .simulator = "mask_dynamics", .output = "rate_ratio",
    .statement = "with LayerNorm (onto the sphere) and orthogonal W_V, hemisphere inputs still collapse "
                 "exponentially: the decay does not slow",
    .formula = EXPONENTIAL_STATEMENT, .rule = AR_RULE_LOWER_BOUND, .predict = m3_shape};
const ar_claim ar_claim_m3rate = {
    .id = "M3rate", .simulator = "mask_dynamics", .output = "rate",
    .statement = "...at the rate measured (per layer, of mu/||X||_F)", .formula = "measured",
    .rule = AR_RULE_MEASURE, .predict = m3_rate};

/* M4: with LayerNorm and a suitable W_V there are equilibria of every rank k from 1 to
 * min(n, d): the witness of rank k (ln_equilibria) is certified by its residual and
 * its rank; and for some W_V a set of random starts of positive measure never
 * collapses (judged where a spec asks for it: it depends on the W_V family). */
static int witness(const ar_point *p) { return ar_point_value(p, "value") == 0 && ar_point_value(p, "mask") == 0; }
static double m4_residual(const ar_point *p) { return witness(p) ? 1e-10 : NAN; }
static double m4_rank(const ar_point *p) { return witness(p) ? ar_point_value(p, "rank") : NAN; }
static double m4_escape(const ar_point *p) { (void)p; return 0.0; }

const ar_claim ar_claim_m4 = {
    "M4", "ln_equilibria", "witness_residual",
    "with LayerNorm there is an equilibrium of every rank k: the rank-k witness has ||F(X*) - X*|| <= 1e-10 "
    "in every trial",
    "1e-10", AR_RULE_EVERY_TRIAL, m4_residual, 0, 0, NULL};
const ar_claim ar_claim_m4rank = {
    "M4rank", "ln_equilibria", "witness_rank", "...and its numerical rank is k", "k", AR_RULE_EQUALS, m4_rank,
    0.5, 0, NULL};
/* The paper gives no number for the fraction; and a start that has not collapsed within
 * the run may be metastable (see NOTES.md): measured, not judged. */
const ar_claim ar_claim_m4escape = {
    .id = "M4escape", .simulator = "ln_equilibria", .output = "escaped",
    .statement = "for suitable W_V a fraction of random starts has not collapsed to rank one by the last layer "
                 "(measured: metastable starts are not told apart yet)",
    .formula = "measured", .rule = AR_RULE_MEASURE, .predict = m4_escape, .on_request = 1};
