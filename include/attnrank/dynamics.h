/* dynamics: one step of masked self-attention dynamics, F(X) = N(A_G(X) X W_V).
 *
 * A_G(X) is the masked softmax of X W_Q (X W_K)^T / sqrt(d) over the edges of the mask
 * graph G (attention.h, mask.h) and N is nothing, the paper's LayerNorm (every row
 * onto the unit sphere) or the standard one (each row centred and scaled to unit
 * variance). The same map serves the collapse experiments (iterated) and the search
 * for equilibria F(X*) = X* (its residual and finite-difference Jacobian). */
#ifndef ATTNRANK_DYNAMICS_H
#define ATTNRANK_DYNAMICS_H

#include "attnrank/mask.h"

#include <stddef.h>

typedef enum { AR_NORM_NONE, AR_NORM_SPHERE, AR_NORM_LAYERNORM } ar_norm_kind;

typedef struct ar_attention_map {
    const ar_mask *mask;
    int d;
    const double *wq, *wk; /* d x d */
    const double *wv;      /* d x d, or NULL for the identity */
    ar_norm_kind norm;
    int dense;             /* scores by one n x n gemm (else at the edges only) */
} ar_attention_map;

/* Doubles of scratch ar_attention_map_apply needs. */
size_t ar_attention_map_workspace(const ar_attention_map *map);

/* out (n x d, not aliasing x) = F(x); weights (one per edge) gets A_G(x). Returns the
 * smallest attention weight on an edge. */
double ar_attention_map_apply(const ar_attention_map *map, const double *x, double *out, double *weights,
                              double *work);

/* Row normalisations, in place. LayerNorm centres each row and scales it to unit
 * variance (a constant row becomes zero); inv_sigma, if not NULL, gets each row's
 * 1 / standard deviation (0 for a constant row), which its derivative needs. */
void ar_rows_to_sphere(int n, int d, double *x);
void ar_rows_layernorm(int n, int d, double *x, double *inv_sigma);

/* How far the rows of x (n x d) are from consensus: *spread = ||x - 1 mean(x)||_F^2 and
 * *total = ||x||_F^2 (mu(X)^2 and its scale, for mu / ||X||). */
void ar_consensus_sums(int n, int d, const double *x, double *spread, double *total);

/* Decay of a positive sequence y_0, y_1, ... (mu / ||X|| per layer), over its window:
 * the terms before it first drops below floor, away from round-off.
 * Rate: -slope of log y against t (least squares); NaN with fewer than two terms.
 * Shape: the rate of the window's second half over the rate of the whole window: 1 for
 * an exponential, near 0 for a drop and a plateau, 0.46 for a power law (1 + t)^-a
 * over any window, whatever a; a power law with an offset t0 >= window/30 bends as
 * little as an exponential with fast transients (0.52 at t0 = window/30), and no finite
 * window tells those two apart. It needs a window
 * that falls by at least DECAY_EFOLDS (NaN otherwise: too little decay in the run to
 * tell a shape); reaching the floor within three steps counts as exponential (1). */
enum { DECAY_EFOLDS = 3 };
double ar_decay_rate(int count, const double *y, double floor);
double ar_decay_shape(int count, const double *y, double floor);

#endif
