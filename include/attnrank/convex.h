/* convex: the convex reformulation of attention training and the network it replaces
 * (Ergen, Neyshabur, Mehta, "Convexifying Transformers"; claims C1-C3).
 *
 * Data: N samples X_i (n x d, row-major) stored one after the other, which is also the
 * N x (n d) design matrix D whose row i is X_i flattened; targets y (N).
 *
 * The convex program (a group lasso over token positions k, z_k the k-th row of Z):
 *     P(Z) = 1/2 sum_i (sum_k z_k . x_{i,k} - y_i)^2 + beta sum_k ||z_k||_2.
 * Its dual: max over theta of -1/2 ||theta||^2 - theta . y subject to
 * ||(D^T theta)_k|| <= beta for every k; theta = the residual D z - y, scaled into the
 * feasible set, gives a lower bound, so P(z) - dual(theta) >= P* - dual >= 0 certifies z.
 *
 * The network: h heads with attention rows a_j on the simplex, v_j (d), b_j (scalar):
 *     yhat_i = sum_j b_j a_j^T X_i v_j,
 *     objective 1/2 sum_i (yhat_i - y_i)^2 + beta/2 sum_j (||v_j||^2 + b_j^2). */
#ifndef ATTNRANK_CONVEX_H
#define ATTNRANK_CONVEX_H

#include "attnrank/rng.h"

#include <stddef.h>

typedef struct ar_convex_problem {
    int samples, tokens, dim; /* N, n, d */
    const double *x;          /* N x n x d */
    const double *y;          /* N */
    double beta;
} ar_convex_problem;

/* z <- the group soft-threshold of z at tau: each row z_k scaled by
 * max(0, 1 - tau / ||z_k||) (the proximal map of tau sum_k ||z_k||). */
void ar_group_soft_threshold(int tokens, int dim, double *z, double tau);

/* Euclidean projection of v (n numbers) onto the probability simplex, in place
 * (sort-based: the threshold from the largest entries). work: n doubles. */
void ar_project_simplex(int n, double *v, double *work);

/* beta_max = max_k ||(D^T y)_k||: the smallest beta at which Z = 0 is optimal. */
double ar_convex_beta_max(const ar_convex_problem *p, double *work);

/* A relative measure of the program divides by max(P, AR_CONVEX_GAP_FLOOR P(0)), P(0) =
 * |y|^2 / 2: the dual bound is rounded to about eps P(0), so where the optimum is near 0
 * (beta -> 0 with interpolating data) a finer denominator would judge round-off. */
#define AR_CONVEX_GAP_FLOOR 1e-6

typedef struct ar_convex_result {
    double primal;   /* P(z) */
    double dual;     /* the dual bound from the scaled residual */
    double gap;      /* (primal - dual) / max(primal, AR_CONVEX_GAP_FLOOR P(0)): relative duality gap */
    int iterations;
    int active;      /* token positions with z_k != 0 */
} ar_convex_result;

/* FISTA with gradient restarts (the momentum is dropped when the step points against
 * the last move) and gap-safe screening (groups provably zero at the optimum are
 * dropped, so late iterations touch only the live ones), the step 1/L with
 * L = ||D||_2^2 from the smaller Gram matrix, until the relative duality gap is below
 * tol or after max_iterations. z (n x d) holds the start on entry (zeros will do) and
 * the solution on exit. work: ar_convex_workspace doubles. */
size_t ar_convex_workspace(int samples, int tokens, int dim);
int ar_convex_solve(const ar_convex_problem *p, double tol, int max_iterations, double *z, double *work,
                    ar_convex_result *result);

/* The network's parameters: a (h x n, rows on the simplex), v (h x d), b (h). */
typedef struct ar_network {
    int heads;
    double *a, *v, *b;
} ar_network;

size_t ar_network_workspace(int samples, int tokens, int dim, int heads);
/* to = from, for networks of the same heads, n tokens and dimension d. */
void ar_network_copy(int n, int d, const ar_network *from, ar_network *to);
/* Objective of the network; if grad is not NULL, also its gradient (same layout). */
double ar_network_objective(const ar_convex_problem *p, const ar_network *net, ar_network *grad, double *work);
/* Projected gradient descent with Armijo backtracking from the given start; returns
 * the final objective. Stops when an iteration lowers the objective by less than
 * 1e-13 of it, or after max_iterations. trial: a second network (scratch). */
double ar_network_train(const ar_convex_problem *p, ar_network *net, ar_network *grad, ar_network *trial,
                        int max_iterations, double *work);
/* The network built from a convex solution: one head per active position k, with
 * a_j = e_k, v_j = z_k / sqrt||z_k||, b_j = sqrt||z_k||; other heads zero. Returns -1
 * if there are more active positions than heads. */
int ar_network_from_convex(int tokens, int dim, const double *z, ar_network *net);

#endif
