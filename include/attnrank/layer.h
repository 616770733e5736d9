/* layer: one attention layer of the depth experiments, forward and reverse mode.
 *
 *   A   = given random Markov matrix, or softmax(X W_Q (X W_K)^T / sqrt(d))  (key-query)
 *         minus 11^T/n when the gap is removed
 *   U   = A X W            (no skip)   or   X + c A X W   (skip; c = 1 or 1/sqrt(d))
 *   out = U, or LayerNorm(U): each row centred and divided by sqrt(var + eps), var its
 *         (biased, 1/d) variance; eps = 0 is the exact normalisation to unit variance,
 *         eps = 1e-5 torch's nn.LayerNorm default (its weight 1 and bias 0 at
 *         initialisation), which shrinks rows whose variance is below eps instead
 *   doubled: out = 2 (U or LayerNorm(U)), the "Mind the Gap" authors' block with its
 *         skip on and no MLP (model.py returns y + y: Python's `or` binds after `and`)
 *
 * The forward pass records what the backward pass needs in a tape; the backward pass
 * turns a cotangent G = dL/d(out) into dL/dX and dL/dW (a vector-Jacobian product).
 * Hutchinson's identity E ||J^T G||^2 = ||J||_F^2 for G with iid +-1 entries then
 * estimates ||d X_L / d W_l||_F for every layer of a stack from one backward sweep per
 * probe, where no closed form exists (LayerNorm, skips, key-query attention).
 * All matrices are row-major; X, U, out are n x d, A is n x n, W, W_Q, W_K are d x d. */
#ifndef ATTNRANK_LAYER_H
#define ATTNRANK_LAYER_H

#include "attnrank/rng.h"

#include <stddef.h>

typedef struct ar_layer_kind {
    int n, d;
    int keyquery;      /* A from the layer's input (else A is given on the tape) */
    int remove_gap;    /* key-query: subtract 11^T/n from the softmax */
    int residual;      /* out = X + branch_scale * A X W, before LayerNorm */
    double branch_scale;
    int layernorm;
    double layernorm_eps; /* >= 0, added to each row's variance (torch: 1e-5) */
    int doubled;          /* out doubled (the authors' skip without MLP) */
} ar_layer_kind;

/* One layer's record. The caller fills x, w (and a, or wq and wk for key-query) and
 * points every other field at its own storage; forward fills the rest. */
typedef struct ar_layer_tape {
    const double *x;       /* input X (n x d) */
    double *a;             /* attention as applied (n x n) */
    double *y;             /* A X (n x d) */
    const double *w;       /* value weights (d x d) */
    const double *wq, *wk; /* key-query weights (d x d), key-query only */
    double *q, *k;         /* X W_Q, X W_K (n x d), key-query only */
    double *inv_sigma;     /* LayerNorm: 1 / standard deviation of each row of U (n) */
} ar_layer_tape;

/* Doubles of scratch forward and backward need. */
size_t ar_layer_workspace(const ar_layer_kind *kind);

/* out (n x d, not aliasing the tape's x) = the layer applied to tape->x. */
void ar_layer_forward(const ar_layer_kind *kind, ar_layer_tape *tape, double *out, double *work);

/* On entry g = dL/d(out); on exit g = dL/dX. grad_w (d x d) = dL/dW. out is the
 * layer's forward output (LayerNorm's backward pass reads it). */
void ar_layer_backward(const ar_layer_kind *kind, const ar_layer_tape *tape, const double *out, double *g,
                       double *grad_w, double *work);

/* Hutchinson estimates of ||d X_L / d W_l||_F for the stack tapes[0..layers) whose
 * final output is x_last: with `probes` (>= 2) Rademacher cotangents, norm[l] is the
 * square root of the mean of ||dL/dW_l||_F^2 (unbiased for ||J_l||_F^2) and se[l] its
 * standard error (delta method from the probes' spread). work: ar_probe_workspace. */
size_t ar_probe_workspace(const ar_layer_kind *kind, int layers, int probes);
void ar_probe_gradient_norms(const ar_layer_kind *kind, int layers, const ar_layer_tape *tapes,
                             const double *x_last, int probes, ar_rng *rng, double *norm, double *se,
                             double *work);

#endif
