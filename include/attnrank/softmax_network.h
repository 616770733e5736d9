/* softmax_network: the real softmax attention network that the convex program of
 * convex.h relaxes (Ergen, Neyshabur, Mehta, Eq. 3, scalar targets), trained by L-BFGS.
 *
 * h heads; head j has W_Q, W_K (d x d), v (d), b (scalar) and, if positional, a bias
 * u (n) on the logits of each key position. For sample X_i (n x d):
 *     A = softmax_rows(X W_Q (X W_K)^T / sqrt(d) + 1 u^T),   abar = (1/n) 1^T A   (in the simplex),
 *     yhat_i = sum_j b_j abar_j(X_i)^T X_i v_j,
 *     objective 1/2 sum_i (yhat_i - y_i)^2 + beta/2 sum_j (||W_Q||^2 + ||W_K||^2 + ||v||^2 + b^2).
 * Without u the network has no notion of position (it is permutation-equivariant in
 * the tokens), so it cannot pick token positions as the relaxation's a_j do; u, free
 * of weight decay like a_j, gives it that. The relaxation replaces abar_j(X_i) by one
 * free point a_j of the simplex for every sample; here the attention depends on the
 * sample, so the relaxation's optimum is not a lower bound in general.
 *
 * Parameters theta: per head W_Q (d^2), W_K (d^2), v (d), b (1), then u (n) if
 * positional; heads one after the other: ar_softmax_network_size numbers. */
#ifndef ATTNRANK_SOFTMAX_NETWORK_H
#define ATTNRANK_SOFTMAX_NETWORK_H

#include "attnrank/convex.h"

#include <stddef.h>

size_t ar_softmax_network_size(int tokens, int dim, int heads, int positional);
/* Doubles of scratch the functions below need. */
size_t ar_softmax_network_workspace(int samples, int tokens, int dim, int heads, int positional);

/* The objective at theta and, if grad is not NULL, its gradient. */
double ar_softmax_network_objective(const ar_convex_problem *p, int heads, int positional, const double *theta,
                                    double *grad, double *work);

/* L-BFGS (8 pairs, Armijo backtracking) from theta (updated in place) until the
 * gradient's largest entry is below tol or after max_iterations; returns the
 * objective, and the final gradient's largest entry in *grad_max. */
double ar_softmax_network_train(const ar_convex_problem *p, int heads, int positional, double *theta,
                                int max_iterations, double tol, double *grad_max, double *work);

/* Token positions that carry at least `share` of the network's output weight: position
 * k's weight is sum_j |b_j| ||v_j|| mean_i abar_j(X_i)_k. */
int ar_softmax_network_active_tokens(const ar_convex_problem *p, int heads, int positional, const double *theta,
                                     double share, double *work);

#endif
