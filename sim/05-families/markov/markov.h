/* families/markov: the spectral-gap family (Naderi, Nait Saada, Tanner, "Mind the
 * Gap", arXiv 2410.07799; claims S1-S8). Its simulators are markov_spectrum,
 * width_collapse and depth_collapse (sim/05-families/), its claims are in sim/05-families/markov/claims.c.
 * The indices below are the simulators' parameter, choice and output tables
 * (designated initializers there), shared with the theory. */
#ifndef ATTNRANK_FAMILIES_MARKOV_H
#define ATTNRANK_FAMILIES_MARKOV_H

#include "attnrank/rng.h"
#include "attnrank/sim.h"
#include "attnrank/theory.h"

/* Entry laws (the "entries" parameter of all three; key-query is markov_spectrum's
 * only) and the gap (A or A - 11^T/n). */
enum { AR_MARKOV_LAW_LOGNORMAL, AR_MARKOV_LAW_EXPONENTIAL, AR_MARKOV_LAW_UNIFORM, AR_MARKOV_LAW_KEYQUERY };
enum { AR_MARKOV_GAP_KEEP, AR_MARKOV_GAP_REMOVE };

/* markov_spectrum: parameters, choices, outputs. */
enum {
    AR_SPECTRUM_N, AR_SPECTRUM_ENTRIES, AR_SPECTRUM_GAP, AR_SPECTRUM_SPECTRUM, AR_SPECTRUM_D_H,
    AR_SPECTRUM_SCALE, AR_SPECTRUM_EIGENVALUES, AR_SPECTRUM_D_H_PER_N,
};
enum { AR_SPECTRUM_SPECTRUM_FULL, AR_SPECTRUM_SPECTRUM_TOP2 };
enum { AR_SPECTRUM_EIGENVALUES_NO, AR_SPECTRUM_EIGENVALUES_YES };
enum {
    AR_SPECTRUM_OUT_SIGMA1, AR_SPECTRUM_OUT_SQRT_N_SIGMA2, AR_SPECTRUM_OUT_STABLE_RANK,
    AR_SPECTRUM_OUT_STABLE_RANK_GRAM, AR_SPECTRUM_OUT_EFFECTIVE_RANK,
    AR_SPECTRUM_OUT_KS_QUARTER_CIRCLE, AR_SPECTRUM_OUT_BULK_RADIUS, AR_SPECTRUM_OUT_KS_DISC,
    AR_SPECTRUM_OUT_SV_DENSITY, AR_SPECTRUM_OUT_EIG_DENSITY, AR_SPECTRUM_OUT_DISC_MOMENT2,
    AR_SPECTRUM_OUT_STABLE_RANK_PER_N, AR_SPECTRUM_OUT_EDGE_OVER_MATCHED,
};

/* width_collapse: parameters, outputs. */
enum {
    AR_WIDTH_N, AR_WIDTH_GAMMA, AR_WIDTH_ENTRIES, AR_WIDTH_GAP,
};
enum {
    AR_WIDTH_OUT_STABLE_RANK, AR_WIDTH_OUT_STABLE_RANK_INPUT, AR_WIDTH_OUT_STABLE_RANK_GRAM,
};

/* depth_collapse: parameters, choices, outputs. */
enum {
    AR_DEPTH_N, AR_DEPTH_D, AR_DEPTH_LAYERS, AR_DEPTH_ENTRIES, AR_DEPTH_GAP, AR_DEPTH_NORM,
    AR_DEPTH_SKIP, AR_DEPTH_ATTENTION, AR_DEPTH_SCALE, AR_DEPTH_GRADIENT, AR_DEPTH_PROBES,
    AR_DEPTH_INPUTS, AR_DEPTH_VALUE_SD, AR_DEPTH_LAYERNORM_EPS,
};
enum { AR_DEPTH_INPUTS_ORTHONORMAL, AR_DEPTH_INPUTS_GAUSSIAN };
enum { AR_DEPTH_NORM_NONE, AR_DEPTH_NORM_LAYERNORM };
enum { AR_DEPTH_SKIP_NONE, AR_DEPTH_SKIP_PLAIN, AR_DEPTH_SKIP_UPSCALED, AR_DEPTH_SKIP_AUTHORS_DOUBLE };
enum { AR_DEPTH_ATTENTION_MARKOV, AR_DEPTH_ATTENTION_KEYQUERY };
enum { AR_DEPTH_GRADIENT_AUTO, AR_DEPTH_GRADIENT_PROBE, AR_DEPTH_GRADIENT_NONE };
enum {
    AR_DEPTH_OUT_STABLE_RANK, AR_DEPTH_OUT_MEAN_ABS_COSINE, AR_DEPTH_OUT_FROBENIUS,
    AR_DEPTH_OUT_GRAD_NORM, AR_DEPTH_OUT_GRAD_NORM_PROBE_SE, AR_DEPTH_OUT_OFF_CONSENSUS,
    AR_DEPTH_OUT_COLLAPSE_FACTOR_N, AR_DEPTH_OUT_LOG_GAP_RATIO, AR_DEPTH_OUT_STABLE_RANK_GRAM,
    AR_DEPTH_OUT_VANISHED_LAYERS, AR_DEPTH_OUT_ATTENTION_FACTOR_N,
};
/* off_consensus below this is too near rounding (its floor is about 1e-30) to give a
 * per-layer factor. */
#define AR_DEPTH_CONSENSUS_FLOOR 1e-20

extern const ar_sim ar_sim_markov_spectrum, ar_sim_width_collapse, ar_sim_depth_collapse;

/* What a point asks of its random Markov matrix, read by each of the family's
 * simulators through its own parameters: n, the entry law (AR_MARKOV_LAW_*), whether the
 * gap is removed, and for key-query attention the head width and the logits' scale. */
typedef struct ar_markov_draw {
    int n, law, remove_gap, d_h;
    double scale;
} ar_markov_draw;

/* Draw the n x n matrix into a: A, or A - 11^T/n when the draw removes the gap; q, k:
 * n x d_h scratch each for key-query attention (else unused, may be NULL). */
void ar_markov_sample(const ar_markov_draw *draw, ar_rng *rng, double *a, double *q, double *k);
/* The draw a markov_spectrum point asks for (its d_h_per_n applied). */
ar_markov_draw ar_markov_spectrum_draw(const ar_point *point);

/* Mean m and standard deviation s of the entry law with this index of the
 * markov_spectrum "entries" parameter; NaN for key-query attention. */
void ar_markov_law_moments(int law, double *m, double *s);

/* s/m of a markov_spectrum point's entry law; for key-query attention that of the
 * matched lognormal model, sqrt(e^(scale^2) - 1): logits of
 * variance v = scale^2 make softmax's unnormalised entries lognormal with
 * (s/m)^2 = e^v - 1. */
double ar_markov_ratio(const ar_point *point);

/* CDF of the quarter-circle law on [0, 2r]: the limit law of the singular values of an
 * n x n matrix with iid entries of variance r^2 / n. */
double ar_quarter_circle_cdf(double x, double r);

/* The family's claims (sim/05-families/markov/claims.c). */
extern const ar_claim ar_markov_claims[];
extern const int ar_markov_claim_count;
/* The family, as the program registers it (family.c). */
extern const ar_family ar_family_markov;

#endif
