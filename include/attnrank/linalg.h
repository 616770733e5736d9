/* linalg: thin wrappers over CBLAS and LAPACKE (OpenBLAS).
 *
 * All matrices are dense, row-major, contiguous. This module is the only one that
 * includes OpenBLAS's cblas.h: its enums clash with GSL's gsl_cblas.h, so it includes
 * no GSL header. Every routine takes its scratch memory from the caller; sizes come
 * from the *_workspace functions so workspaces can be allocated once per grid point. */
#ifndef ATTNRANK_LINALG_H
#define ATTNRANK_LINALG_H

#include <stddef.h>

/* C (m x n) = alpha op(A) op(B) + beta C, where op(X) is X for 'N' and X^T for 'T';
 * op(A) is m x k and op(B) is k x n. */
void ar_gemm(char op_a, char op_b, int m, int n, int k, double alpha, const double *a, const double *b,
             double beta, double *c);
/* y = alpha op(A) x + beta y for the m x n matrix A with row stride lda (a block of a
 * wider matrix), op 'N' or 'T'. */
void ar_gemv(char op, int m, int n, double alpha, const double *a, int lda, const double *x, double beta,
             double *y);
/* C (m x n) = A (m x k) * B^T, where B is n x k. Products with k <= AR_GEMM_SMALL_MAX_K,
 * m, n <= AR_GEMM_SMALL_MAX_MN and m k <= AR_GEMM_SMALL_MAX_MK (A within a 512 KiB L2 cache)
 * go to ar_gemm_nt_small where the CPU has AVX2 and FMA (measured faster than OpenBLAS 0.3
 * there: bench/bench_gemm), the rest to OpenBLAS. */
void ar_gemm_nt(int m, int n, int k, const double *a, const double *b, double *c);
enum { AR_GEMM_SMALL_MAX_K = 256, AR_GEMM_SMALL_MAX_MN = 512, AR_GEMM_SMALL_MAX_MK = 65536 };
/* 1 if ar_gemm_nt computes an m x n x k product by ar_gemm_nt_small on this CPU. */
int ar_gemm_nt_uses_small(int m, int n, int k);
/* C = A B^T by attnrank's register-blocked kernel (gemm_small.c), any m, n and k <=
 * AR_GEMM_SMALL_MAX_K (larger k: OpenBLAS). No allocation (B is packed a panel at a time
 * on the stack, 16 KiB at most), one thread. Each entry is the multiply-add chain over k
 * in order, so its bits depend only on row i of A and row j of B. The AVX2+FMA version
 * where the CPU has both (fused), else, or when plain != 0, the plain C one (unfused on
 * x86-64: other last bits). */
void ar_gemm_nt_small(int m, int n, int k, const double *a, const double *b, double *c, int plain);
/* 1 if this CPU runs ar_gemm_nt_small's AVX2+FMA version (and ar_gemm_nt uses it). */
int ar_gemm_small_has_avx2(void);
/* C (m x n) = A (m x k) * B (k x n). */
void ar_gemm_nn(int m, int n, int k, const double *a, const double *b, double *c);

/* Haar-distributed orthonormal rows: on entry x (n x d, n <= d) holds iid N(0,1)
 * entries; on exit its rows are orthonormal and the n x d matrix is distributed as the
 * first n rows of a Haar orthogonal d x d matrix (QR with the signs of R's diagonal
 * moved into Q). work needs ar_haar_rows_workspace(n, d) doubles. Returns LAPACK info. */
size_t ar_haar_rows_workspace(int n, int d);
int ar_haar_rows(int n, int d, double *x, double *work);

/* Singular values (descending) of the m x n matrix a, which is destroyed.
 * work: ar_singular_values_workspace(m, n) doubles; iwork: 8*min(m, n) ints.
 * Returns LAPACK info: > 0 means the iteration did not converge. */
size_t ar_singular_values_workspace(int m, int n);
int ar_singular_values(int m, int n, double *a, double *s, double *work, int *iwork);

/* Eigenvalues (wr + i wi, unordered) of the n x n matrix a, which is destroyed.
 * work: ar_eigenvalues_workspace(n) doubles. Returns LAPACK info (> 0: no convergence). */
size_t ar_eigenvalues_workspace(int n);
int ar_eigenvalues(int n, double *a, double *wr, double *wi, double *work);
/* The same with eigenvectors: row j of v (n x n, v[j n + i]) is a unit eigenvector of
 * a^T for wr[j] + i wi[j], a complex pair's real and imaginary parts in rows j and
 * j + 1 (LAPACK's dgeev). a^T has a's eigenvalues, and its eigenvector matrix the same
 * condition number as a's (Bauer-Fike). work: ar_eigenvectors_workspace(n) doubles. */
size_t ar_eigenvectors_workspace(int n);
int ar_eigenvectors(int n, double *a, double *wr, double *wi, double *v, double *work);

/* The largest `want` singular values (descending) of the m x n matrix a, by Lanczos on
 * A^T A with full reorthogonalization: one pass over A per step (O(m n)), no O(n^3)
 * SVD. start: n numbers (e.g. normals) for the first vector. Stops when the wanted
 * values change by less than rel_tol * sigma_1^2 between checks, or after max_steps.
 * work: ar_top_singular_values_workspace(m, n, max_steps) doubles.
 * Returns the steps taken, or -1 on a LAPACK failure. */
size_t ar_top_singular_values_workspace(int m, int n, int max_steps);
int ar_top_singular_values(int m, int n, const double *a, int want, const double *start, int max_steps,
                           double rel_tol, double *sv, double *work);

/* Eigenvalues (ascending) of the Gram matrix of the rows of x (n x d): x^T x when
 * d <= n, else x x^T, so min(n, d) values, the squared singular values of x.
 * work: ar_gram_eigenvalues_workspace(n, d) doubles. Returns LAPACK info. */
size_t ar_gram_eigenvalues_workspace(int n, int d);
int ar_gram_eigenvalues(int n, int d, const double *x, double *values, double *work);

/* LU factorisation of the n x n matrix a (destroyed), then solves a x = b for the
 * right-hand side b (n numbers, overwritten by x); more right-hand sides can follow
 * with ar_lu_solve. Returns LAPACK info (> 0: a is singular). */
int ar_lu_factor(int n, double *a, int *ipiv);
/* Cholesky factor of the symmetric positive definite n x n a (row-major): on return its
 * lower triangle holds L with a = L L^T and its strict upper triangle zeros. Nonzero
 * when a is not positive definite. */
int ar_cholesky(int n, double *a);
void ar_lu_solve(int n, const double *lu, const int *ipiv, double *b);

#endif
