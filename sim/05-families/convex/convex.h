/* families/convex: the convex attention family (Ergen, Neyshabur, Mehta,
 * "Convexifying Transformers", arXiv 2211.11052; claims C1-C3). Its simulator is
 * convex_attention (sim/05-families/), its claims are in sim/05-families/convex/claims.c. The indices
 * below are the simulator's parameter, choice and output tables (designated
 * initializers there), shared with the theory. Parameters N, n, d, h are SAMPLES,
 * TOKENS, DIM, HEADS here. */
#ifndef ATTNRANK_FAMILIES_CONVEX_H
#define ATTNRANK_FAMILIES_CONVEX_H

#include "attnrank/sim.h"
#include "attnrank/theory.h"

/* convex_attention: parameters, choices, outputs. */
enum {
    AR_CONVEX_SAMPLES, AR_CONVEX_TOKENS, AR_CONVEX_DIM, AR_CONVEX_HEADS, AR_CONVEX_BETA,
    AR_CONVEX_TARGETS, AR_CONVEX_PLANTED, AR_CONVEX_NOISE, AR_CONVEX_STARTS, AR_CONVEX_ITERATIONS,
    AR_CONVEX_NET_ITERATIONS, AR_CONVEX_SOFTMAX_STARTS, AR_CONVEX_POSITIONS, AR_CONVEX_SOFTMAX_ITERATIONS,
};
enum { AR_CONVEX_TARGETS_PLANTED, AR_CONVEX_TARGETS_RANDOM };
enum { AR_CONVEX_POSITIONS_NONE, AR_CONVEX_POSITIONS_BIAS };
enum {
    AR_CONVEX_OUT_CONVEX_OPTIMUM, AR_CONVEX_OUT_DUALITY_GAP, AR_CONVEX_OUT_ACTIVE_TOKENS,
    AR_CONVEX_OUT_ITERATIONS, AR_CONVEX_OUT_PLANTED_FOUND, AR_CONVEX_OUT_MAPPED_ERROR,
    AR_CONVEX_OUT_NETWORK_EXCESS, AR_CONVEX_OUT_NETWORK_MEDIAN_EXCESS,
    AR_CONVEX_OUT_FRACTION_REACHED, AR_CONVEX_OUT_CONVEX_MINUS_BEST, AR_CONVEX_OUT_NETWORK_STATIONARITY,
    AR_CONVEX_OUT_STATIONARY_EXCESS, AR_CONVEX_OUT_SOFTMAX_EXCESS, AR_CONVEX_OUT_CONVEX_MINUS_SOFTMAX,
    AR_CONVEX_OUT_SOFTMAX_GRADIENT, AR_CONVEX_OUT_SOFTMAX_ACTIVE_TOKENS,
    AR_CONVEX_OUT_COUNT
};

extern const ar_sim ar_sim_convex_attention;

/* The family's claims (sim/05-families/convex/claims.c). */
extern const ar_claim ar_convex_claims[];
extern const int ar_convex_claim_count;
/* The family, as the program registers it (family.c). */
extern const ar_family ar_family_convex;

#endif
