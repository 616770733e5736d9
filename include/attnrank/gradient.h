/* gradient: Jacobian norms of the linear attention stack X_{l+1} = A_l X_l W_l.
 *
 * X_L = (A_{L-1} ... A_{l+1} Y_l) W_l (W_{l+1} ... W_{L-1}) with Y_l = A_l X_l is linear in
 * W_l, of the form M W_l R, so ||dX_L/dW_l||_F = ||M||_F ||R||_F. One backward sweep
 * gives all L norms at O(L (n^3 + n^2 d + d^3)). Matrices are row-major; the stacks hold
 * L matrices one after the other. */
#ifndef ATTNRANK_GRADIENT_H
#define ATTNRANK_GRADIENT_H

#include <stddef.h>

/* xl = X_L from x0 (n x d), a (L of n x n), w (L of d x d); work: n * d doubles. */
void ar_linear_stack_forward(int n, int d, int layers, const double *a, const double *x0, const double *w,
                             double *xl, double *work);

size_t ar_linear_stack_gradient_workspace(int n, int d);
/* norms[l] = ||dX_L/dW_l||_F, l = 0..L-1, from a, y (L of n x d: Y_l = A_l X_l) and w. */
void ar_linear_stack_gradient_norms(int n, int d, int layers, const double *a, const double *y, const double *w,
                                    double *norms, double *work);

#endif
