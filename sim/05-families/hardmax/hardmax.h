/* families/hardmax: the hardmax rank family (Min & Li, "On the Efficiency of
 * Transformers: The Effect of Attention Rank"; claims H1-H5). Its simulators are
 * hardmax_rank and softmax_rank (sim/05-families/hardmax/hardmax_rank.c) and hardmax_saturation
 * (hardmax_saturation.c), its claims are in
 * sim/05-families/hardmax/claims.c. The indices below are the simulators' parameter, choice and output
 * tables (designated initializers there), shared with the theory. */
#ifndef ATTNRANK_FAMILIES_HARDMAX_H
#define ATTNRANK_FAMILIES_HARDMAX_H

#include "attnrank/sim.h"
#include "attnrank/theory.h"

/* Parameters of both simulators: the first eight are common, then softmax_rank has tau
 * and rank_tol, hardmax_rank queries_given_keys in tau's place. */
enum {
    AR_HARDMAX_N, AR_HARDMAX_D, AR_HARDMAX_D_H, AR_HARDMAX_INPUTS, AR_HARDMAX_WEIGHTS,
    AR_HARDMAX_RHO, AR_HARDMAX_SIGMA, AR_HARDMAX_SAMPLER, AR_HARDMAX_TAU, AR_HARDMAX_RANK_TOL,
};
enum { AR_HARDMAX_QUERIES_GIVEN_KEYS = AR_HARDMAX_TAU };
enum { AR_HARDMAX_INPUTS_ORTHONORMAL, AR_HARDMAX_INPUTS_GAUSSIAN };
enum { AR_HARDMAX_WEIGHTS_INDEPENDENT, AR_HARDMAX_WEIGHTS_TIED, AR_HARDMAX_WEIGHTS_CORRELATED };
enum { AR_HARDMAX_SAMPLER_AUTO, AR_HARDMAX_SAMPLER_FAITHFUL };
/* Outputs of hardmax_rank. */
enum {
    AR_HARDMAX_OUT_ARGMAX_RANK, AR_HARDMAX_OUT_HULL_VERTICES, AR_HARDMAX_OUT_H2_DEFICIT,
    AR_HARDMAX_OUT_RANK_GIVEN_KEYS, AR_HARDMAX_OUT_H2_DEFICIT_GIVEN_KEYS,
};
/* Outputs of softmax_rank. */
enum {
    AR_SOFTMAX_OUT_ARGMAX_RANK, AR_SOFTMAX_OUT_NUMRANK_ABS, AR_SOFTMAX_OUT_NUMRANK_REL,
    AR_SOFTMAX_OUT_STABLE_RANK, AR_SOFTMAX_OUT_STABLE_RANK_GRAM, AR_SOFTMAX_OUT_EFFECTIVE_RANK,
    AR_SOFTMAX_OUT_NUMRANK_FIRST_ORDER, AR_SOFTMAX_OUT_NUMRANK_CERT, AR_SOFTMAX_OUT_LOG_TAIL_RATIO,
};
/* log_tail_ratio is measured where tau >= this times sigma^2 (logits below about 0.1 over
 * the temperature: the expansion's next terms are 10% corrections) and d_h + 2 <= n. */
#define AR_SOFTMAX_TAIL_TAU 10
/* hardmax_saturation: parameters, outputs. */
enum { AR_SATURATION_LOG2_N, AR_SATURATION_SHORTFALL, AR_SATURATION_QUERIES, AR_SATURATION_MAX_D_H };
enum { AR_SATURATION_OUT_D_H, AR_SATURATION_OUT_LOG_D_H };
/* numrank_first_order is measured where tau >= this times sigma^2: the logits over the
 * temperature are then below about 5e-4, deep in the first-order regime. */
#define AR_SOFTMAX_FIRST_ORDER_TAU 1e4

/* H2's bound n (1 - (1 - 1/n)^n), the expected number of distinct winners when every key
 * is equally likely to win. */
double ar_hardmax_h2_bound(int n);
/* E[rank | keys] estimated without bias from M >= n fresh queries, wins[j] of which key j
 * wins: sum_j 1 - C(M - wins[j], n) / C(M, n). miss_by_wins: M + 1 doubles of scratch. */
double ar_hardmax_rank_given_wins(int n, int m, const int *wins, double *miss_by_wins);
/* softmax_rank's temperature for scores drawn at unit weight scale: tau / sigma^2 (in
 * units of sqrt(d_h)), since softmax(sigma^2 S / tau) = softmax(S / (tau / sigma^2)).
 * The claims' temperature regimes are stated in it. */
double ar_hardmax_unit_tau(const ar_point *p);

extern const ar_sim ar_sim_hardmax_rank, ar_sim_softmax_rank, ar_sim_hardmax_saturation;

/* The family's claims (sim/05-families/hardmax/claims.c). */
extern const ar_claim ar_hardmax_claims[];
extern const int ar_hardmax_claim_count;
/* The family, as the program registers it (family.c). */
extern const ar_family ar_family_hardmax;

#endif
