/* rank: the rank measures of THEORY.md, one definition each.
 *
 * The SVD-based measures take singular values in descending order (as LAPACK returns
 * them). The AR_DEFINITION_* texts are what an output that reports one of them names as
 * its `definition` (sim.h), stored beside it in HDF5. */
#ifndef ATTNRANK_RANK_H
#define ATTNRANK_RANK_H

/* Number of singular values > tol (the hardmax paper uses tol = 1e-8). */
int ar_numrank_abs(const double *sv, int count, double tol);
/* Number of singular values > max(rows, cols) * DBL_EPSILON * sv[0] (LAPACK/NumPy). */
int ar_numrank_rel(const double *sv, int count, int rows, int cols);
/* Number of singular values > AR_CERTIFIED_CUT * sv[0], or -1 when one lies within
 * 16 max(rows, cols) DBL_EPSILON sv[0] + error of the cut, where rounding could move it
 * across: a backward-stable SVD moves each singular value by p(n) eps sv[0] (Weyl), and
 * `error` bounds ||M_computed - M_exact||_2 from how M was made (the caller's: for
 * softmax attention, the scores' rounding, hardmax_rank.c). A count -1 does not return is
 * then the exact matrix's. numrank_rel's cut is the rounding level itself. */
#define AR_CERTIFIED_CUT 1e-10
int ar_numrank_certified(const double *sv, int count, int rows, int cols, double error);
/* Of a zero matrix (sv[0] = 0, or count 0) the stable ranks and the effective rank are
 * NaN: undefined, a failed value for the engine, never a 0 averaged with the rest. */
/* ||M||_F^2 / ||M||_2^2 = sum sv^2 / sv[0]^2. */
double ar_stable_rank(const double *sv, int count);
/* Stable rank of M M^T: sum sv^4 / sv[0]^4 (the spectral-gap paper's convention). */
double ar_stable_rank_gram(const double *sv, int count);
/* exp(entropy of sv / sum sv) (Roy & Vetterli 2007). */
double ar_effective_rank(const double *sv, int count);

/* Stable rank of the m x n matrix x straight from the matrix: ||x||_F^2 / sigma_1^2 with
 * sigma_1 by Lanczos (no SVD). start: n numbers for the first Lanczos vector; work:
 * ar_top_singular_values_workspace(m, n, AR_STABLE_RANK_STEPS) doubles. NaN if the
 * iteration fails, for a zero matrix (no stable rank: a degenerate state is never a
 * number averaged into a mean) and for one whose norm overflows. */
enum { AR_STABLE_RANK_STEPS = 160 };
double ar_stable_rank_of(int m, int n, const double *x, const double *start, double *work);
/* The same, and from the same sigma_1 the stable rank of x x^T, sum sigma^4 / sigma_1^4
 * = ||x x^T||_F^2 / sigma_1^4 (the "Mind the Gap" authors' statistic: their code takes the
 * singular values s of X X^T and reports sum s^2 / max s^2), into *gram unless gram is
 * NULL; gram_work: min(m, n)^2 doubles (unused when gram is NULL). NaN as above. */
void ar_stable_ranks_of(int m, int n, const double *x, const double *start, double *work, double *gram_work,
                        double *stable, double *gram);

/* Distinct values among argmax[0..rows): the exact rank of the one-hot matrix whose
 * row i has its 1 in column argmax[i]. seen: cols bytes of scratch. */
int ar_argmax_rank(int rows, const int *argmax, int cols, unsigned char *seen);

/* Vertices of the convex hull of n points in the plane (xy: n x 2, row-major), by
 * Andrew's monotone chain; collinear boundary points are not vertices.
 * scratch: 6 * n doubles. */
int ar_hull_vertices_2d(int n, const double *xy, double *scratch);

#define AR_DEFINITION_ARGMAX_RANK                                                        \
    "number of distinct argmax columns of the hardmax (one-hot row) matrix; equals its exact rank"
#define AR_DEFINITION_NUMRANK_ABS "number of singular values > 1e-8"
#define AR_DEFINITION_NUMRANK_REL "number of singular values > max(rows, cols) * DBL_EPSILON * sigma_1"
#define AR_DEFINITION_NUMRANK_CERT                                                        \
    "number of singular values > 1e-10 sigma_1; NaN (a failed value) when one lies within 16 max(rows, cols) "     \
    "DBL_EPSILON sigma_1 plus a bound on the matrix's own rounding error of the cut"
#define AR_DEFINITION_STABLE_RANK "||A||_F^2 / ||A||_2^2 = sum sigma_i^2 / sigma_1^2"
#define AR_DEFINITION_STABLE_RANK_GRAM "stable rank of A A^T = sum sigma_i^4 / sigma_1^4"
#define AR_DEFINITION_EFFECTIVE_RANK "exp(-sum p_i log p_i), p_i = sigma_i / sum sigma (Roy & Vetterli 2007)"
#define AR_DEFINITION_HULL_VERTICES "vertices of the convex hull of the n keys in R^2 (d_h = 2 only)"

#endif
