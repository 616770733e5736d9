/* equilibrium: fixed points F(X*) = X* of the LayerNorm attention map (dynamics.h, rows
 * projected onto the unit sphere), certified in extended precision, and what the end
 * state of a run of the dynamics is: collapsed, metastable or certified non-collapse.
 *
 * Why a certificate and not a small residual: with sharp softmax the attention weights
 * underflow (1e-100 and below) and the dynamics freeze for exponentially many layers
 * before they collapse (metastability). A residual of 1e-10 at such a state certifies
 * nothing. A certified equilibrium here is a point X* where
 *   - F is evaluated in long double (64-bit significands), so the residual is not
 *     round-off of F;
 *   - Kantorovich's condition beta K eta <= 1/4 holds, beta = 1/(sigma_min(J - I) -
 *     ||E||), eta the Newton step, K an estimate of the Jacobian's Lipschitz constant
 *     (4 times the change of J over a step of 1e-3 in one direction): then an exact
 *     fixed point lies within 2 eta of X*;
 *   - every attention weight on an edge is at least AR_WEIGHT_FLOOR;
 *   - a bound on the spectral radius of the exact Jacobian is below 1 (it attracts):
 *     Bauer-Fike's rho(J) + sqrt(2) kappa(V) ||E||_F, or where that is not below 1 the
 *     lesser of it and a norm of a power,
 *     min over k = 1, 2, 4, ..., 64 of (||J^k||_2 + (||J|| + ||E||)^k - ||J||^k)^(1/k) with
 *     the rounding of the powers (kappa(V) is unbounded where J is defective, as at the
 *     rank-1 state of ln_equilibria's family); J the central-difference Jacobian in long
 *     double, E its error: Richardson's estimate (steps h and 2h), rounding, and K times
 *     2 eta.
 * A state X is certified non-collapse when, besides, it lies in a ball around X* that
 * the map contracts: kappa^2 K (||X - X*|| + 2 eta) < (1 - Bauer-Fike's bound) / 2 (near a
 * slow node with a saddle close by, "within 1e-4" alone would not do), and X* has rank
 * >= 2 (singular values above 1e-6 sigma_1 and above 10 times that distance).
 * K and E are estimates with safety factors (checked against a 40-digit Jacobian:
 * Richardson's ratio was 3.00), not interval bounds: the certificate is as good as
 * they are (theory/NOTES.md). Sizes: n, d <= 16. */
#ifndef ATTNRANK_EQUILIBRIUM_H
#define ATTNRANK_EQUILIBRIUM_H

#include "attnrank/dynamics.h"

#include <stddef.h>

/* Attention weights below this count as zero: the dynamics are frozen, not settled. */
#define AR_WEIGHT_FLOOR 1e-12
/* sigma_2 / sigma_1 below this counts as collapse to a rank-one subspace. */
#define AR_COLLAPSED 1e-6

typedef struct ar_equilibrium {
    double residual;     /* ||F(X*) - X*||_F in long double at the polished point */
    double newton_step;  /* eta, the norm of the Newton step at X* */
    double kantorovich;  /* beta K eta (<= 1/4 asked: a fixed point within 2 eta) */
    double lipschitz;    /* K, estimated */
    double condition;    /* kappa(V) of the Jacobian's eigenvector matrix */
    double distance;     /* ||X - X*||_F from the state that was polished */
    double min_weight;   /* smallest attention weight on an edge at X* */
    double radius;       /* spectral radius of the Jacobian at X* */
    double radius_bound; /* radius + sqrt(2) kappa(V) ||E||_F, or where that is >= 1 the lesser of
                            it and the power bound */
    double rank;         /* singular values of X* above max(1e-6 sigma_1, 10 (distance + 2 eta)) */
    int exists;          /* Kantorovich's condition holds */
    int attracting;      /* radius_bound < 1 */
    int certified;       /* exists, attracting, min_weight >= AR_WEIGHT_FLOOR */
    int basin;           /* the polished state lies in a ball around X* that F contracts */
} ar_equilibrium;

typedef enum {
    AR_END_COLLAPSED,  /* rank one: sigma_2 < AR_COLLAPSED sigma_1 (consensus, or +-u) */
    AR_END_METASTABLE, /* frozen or doomed, not settled: an attention weight below the
                          floor, or the tokens in one open hemisphere under an isometric
                          W_V (where M3 says they collapse) */
    AR_END_CERTIFIED,  /* in the contracting ball of a certified equilibrium of rank >= 2 */
    AR_END_UNSETTLED   /* none of these: still moving, or no certificate */
} ar_end_state;

/* Bytes of scratch the functions below need for n tokens of width d. */
size_t ar_equilibrium_workspace(int n, int d);

/* Polishes x (n x d, updated in place to X*) by Newton's method on F(X) - X in long
 * double, then certifies X*. The map must project onto the sphere (AR_NORM_SPHERE),
 * with n, d <= 16. Returns 0, or 1 if it does not, if x is not finite or if LAPACK
 * failed (eq then holds NaNs and nothing certified). */
int ar_equilibrium_certify(const ar_attention_map *map, double *x, ar_equilibrium *eq, void *work);

/* 1 if the n unit rows of x lie in a common open hemisphere, shown by a direction v
 * with <v, x_i> > 1e-12 ||v|| for every i (the mean of the rows, else the near-min-norm
 * point of their convex hull); 0 if no such v was found. work: n^2 + 3n + d doubles. */
int ar_open_hemisphere(int n, int d, const double *x, double *work);

/* The end state x of a run (left unchanged): collapsed, metastable, certified (then eq
 * describes the equilibrium whose contracting ball holds it), or unsettled. Newton is
 * tried only where ||F(x) - x|| < polish_below. isometric: W_V is orthogonal (or the
 * identity), where M3 makes hemisphere states collapse; the mask must have a directed
 * spanning tree for that rule (connected = 1). A state with a non-finite entry, or a
 * map this module does not handle, is unsettled. */
ar_end_state ar_classify_end_state(const ar_attention_map *map, const double *x, int isometric, int connected,
                                   double polish_below, ar_equilibrium *eq, void *work);

/* The smallest attention weight on an edge at x, in long double (no underflow above
 * 1e-4900); NaN for a map this module does not handle. */
double ar_min_attention_weight(const ar_attention_map *map, const double *x);

#endif
