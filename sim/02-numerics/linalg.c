/* linalg: CBLAS/LAPACKE calls. Row-major buffers are handed to LAPACK as their
 * column-major transposes, which avoids LAPACKE's transposing copies. */
#include "attnrank/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

void ar_gemm(char op_a, char op_b, int m, int n, int k, double alpha, const double *a, const double *b,
             double beta, double *c)
{
    int ta = op_a == 'T', tb = op_b == 'T';
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a,
                ta ? m : k, b, tb ? k : n, beta, c, n);
}

void ar_gemv(char op, int m, int n, double alpha, const double *a, int lda, const double *x, double beta,
             double *y)
{
    cblas_dgemv(CblasRowMajor, op == 'T' ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, 1, beta, y, 1);
}

/* Small products, S = Q K^T above all: attnrank's kernel is 1.1-1.6x OpenBLAS 0.3's there
 * (gemm_small.c). It reads A once per 8 columns of C, so A must stay in the L2 cache; past
 * that OpenBLAS, which blocks for the caches, is as fast or faster. Fixed limits, never
 * timings: the route, and so the bits, are a function of the shape and the CPU's
 * instruction set. */
int ar_gemm_nt_uses_small(int m, int n, int k)
{
    return k <= AR_GEMM_SMALL_MAX_K && m <= AR_GEMM_SMALL_MAX_MN && n <= AR_GEMM_SMALL_MAX_MN &&
           (double)m * k <= AR_GEMM_SMALL_MAX_MK && ar_gemm_small_has_avx2();
}

void ar_gemm_nt(int m, int n, int k, const double *a, const double *b, double *c)
{
    if (ar_gemm_nt_uses_small(m, n, k)) {
        ar_gemm_nt_small(m, n, k, a, b, c, 0);
        return;
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0, a, k, b, k, 0.0, c, n);
}

void ar_gemm_nn(int m, int n, int k, const double *a, const double *b, double *c)
{
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
}

size_t ar_haar_rows_workspace(int n, int d)
{
    (void)d;
    /* tau (n), R's diagonal signs (n), and 64 * n scratch for the blocked dgeqrf/dorgqr. */
    return 2u * (size_t)n + 64u * (size_t)(n > 0 ? n : 1);
}

int ar_haar_rows(int n, int d, double *x, double *work)
{
    /* Row-major x (n x d) is column-major M = x^T (d x n). QR of M gives Q (d x n) with
     * orthonormal columns; column-major Q is row-major Q^T, the rows we want. */
    double *tau = work;
    double *sign = work + n;
    double *scratch = work + 2 * (size_t)n;
    lapack_int lwork = (lapack_int)(64 * (n > 0 ? n : 1));
    lapack_int info = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, d, n, x, d, tau, scratch, lwork);
    if (info != 0)
        return (int)info;
    /* Without this sign fix Q is not Haar: Householder QR biases R's diagonal signs. */
    for (int j = 0; j < n; ++j)
        sign[j] = x[(size_t)j * d + j] < 0 ? -1.0 : 1.0;
    info = LAPACKE_dorgqr_work(LAPACK_COL_MAJOR, d, n, n, x, d, tau, scratch, lwork);
    if (info != 0)
        return (int)info;
    for (int j = 0; j < n; ++j) {
        if (sign[j] < 0) {
            double *col = x + (size_t)j * d;
            for (int i = 0; i < d; ++i)
                col[i] = -col[i];
        }
    }
    return 0;
}

size_t ar_singular_values_workspace(int m, int n)
{
    int mn = m < n ? m : n, mx = m < n ? n : m;
    /* LAPACK's minimum for JOBZ = 'N' is 3*mn + max(mx, 7*mn); double it for blocking. */
    size_t need = 3u * (size_t)mn + (size_t)(mx > 7 * mn ? mx : 7 * mn);
    return 2 * need;
}

int ar_singular_values(int m, int n, double *a, double *s, double *work, int *iwork)
{
    /* Row-major m x n is column-major n x m: same singular values. */
    lapack_int lwork = (lapack_int)ar_singular_values_workspace(m, n);
    return (int)LAPACKE_dgesdd_work(LAPACK_COL_MAJOR, 'N', n, m, a, n, s, NULL, 1, NULL, 1,
                                    work, lwork, iwork);
}

size_t ar_gram_eigenvalues_workspace(int n, int d)
{
    size_t m = (size_t)(n < d ? n : d);
    return m * m + 34 * m + 1; /* the Gram matrix, then dsyev's blocked scratch */
}

int ar_gram_eigenvalues(int n, int d, const double *x, double *values, double *work)
{
    int m = n < d ? n : d;
    /* Row-major x (n x d) is column-major x^T (d x n): x^T x = (x^T)(x^T)^T is 'N', x x^T is 'T'. */
    cblas_dsyrk(CblasColMajor, CblasUpper, d <= n ? CblasNoTrans : CblasTrans, m, d <= n ? n : d, 1.0, x, d, 0.0,
                work, m);
    double *scratch = work + (size_t)m * m;
    return (int)LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', m, work, m, values, scratch, 34 * m + 1);
}

int ar_cholesky(int n, double *a)
{
    /* Row-major lower = column-major upper of the same (symmetric) array. */
    int status = (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n);
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            a[(size_t)i * n + j] = 0;
    return status;
}

int ar_lu_factor(int n, double *a, int *ipiv)
{
    /* Row-major a is column-major a^T: factor a^T, then solve with its transpose. */
    return (int)LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
}

void ar_lu_solve(int n, const double *lu, const int *ipiv, double *b)
{
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, lu, n, ipiv, b, n);
}

size_t ar_eigenvalues_workspace(int n)
{
    /* dgeev without vectors needs 3n; 34n leaves room for its blocked Hessenberg step. */
    return 34u * (size_t)(n > 0 ? n : 1);
}

int ar_eigenvalues(int n, double *a, double *wr, double *wi, double *work)
{
    /* Row-major a is column-major a^T: same eigenvalues. */
    return (int)LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', n, a, n, wr, wi, NULL, 1, NULL, 1, work,
                                   (lapack_int)ar_eigenvalues_workspace(n));
}

size_t ar_eigenvectors_workspace(int n)
{
    /* dgeev with vectors needs 4n; 66n leaves room for its blocked steps. */
    return 66u * (size_t)(n > 0 ? n : 1);
}

int ar_eigenvectors(int n, double *a, double *wr, double *wi, double *v, double *work)
{
    /* Row-major a is column-major a^T; dgeev's column-major vectors are v's rows. */
    return (int)LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'V', n, a, n, wr, wi, NULL, 1, v, n, work,
                                   (lapack_int)ar_eigenvectors_workspace(n));
}

enum { GRAM_BLOCK_ROWS = 256 };

size_t ar_top_singular_values_workspace(int m, int n, int max_steps)
{
    (void)m;
    size_t k = (size_t)max_steps + 1;
    /* The Lanczos vectors V (k x n), w (n), a block's A_b v, the tridiagonal and scratch. */
    return (size_t)n * k + (size_t)n + GRAM_BLOCK_ROWS + 8 * k;
}

/* w = A^T A v in one pass over A: a block of rows gives u = A_b v, then w += A_b^T u
 * while the block is still in cache. For a matrix larger than the cache this halves
 * the memory traffic of the usual A v followed by A^T u. */
static void gram_times(int m, int n, const double *a, const double *v, double *w, double *u)
{
    int block = 32768 / (n > 0 ? n : 1); /* about 256 KiB of A per block */
    block = block < 1 ? 1 : block > GRAM_BLOCK_ROWS ? GRAM_BLOCK_ROWS : block;
    memset(w, 0, (size_t)n * sizeof *w);
    for (int i = 0; i < m; i += block) {
        int rows = m - i < block ? m - i : block;
        const double *ab = a + (size_t)i * n;
        cblas_dgemv(CblasRowMajor, CblasNoTrans, rows, n, 1.0, ab, n, v, 1, 0.0, u, 1);
        cblas_dgemv(CblasRowMajor, CblasTrans, rows, n, 1.0, ab, n, u, 1, 1.0, w, 1);
    }
}

/* v -= V[0..count) (V[i] . v): classical Gram-Schmidt, run twice by the caller ("twice
 * is enough"), keeps the Lanczos vectors orthogonal to working precision. */
static void orthogonalize(int len, int count, const double *basis, double *v, double *coef)
{
    cblas_dgemv(CblasRowMajor, CblasNoTrans, count, len, 1.0, basis, len, v, 1, 0.0, coef, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, count, len, -1.0, basis, len, coef, 1, 1.0, v, 1);
}

/* The `want` largest eigenvalues, descending, of the symmetric tridiagonal matrix with
 * diagonal diag[0..k) and off-diagonal off[0..k-1). */
static int tridiagonal_top(int k, const double *diag, const double *off, double *d, double *e, int want,
                           double *top)
{
    memcpy(d, diag, (size_t)k * sizeof *d);
    if (k > 1)
        memcpy(e, off, (size_t)(k - 1) * sizeof *e);
    if (LAPACKE_dsterf(k, d, e) != 0) /* eigenvalues only, ascending */
        return -1;
    for (int i = 0; i < want; ++i)
        top[i] = i < k ? d[k - 1 - i] : 0.0;
    return 0;
}

int ar_top_singular_values(int m, int n, const double *a, int want, const double *start, int max_steps,
                           double rel_tol, double *sv, double *work)
{
    /* Lanczos on A^T A with full reorthogonalization. Its Ritz values are the squares of
     * those Golub-Kahan bidiagonalization gives after as many steps, but each step reads
     * A once instead of twice; squaring costs sigma_2 an absolute error of about
     * eps sigma_1^2 / sigma_2, far below the 1e-10 the tests ask. */
    int limit = max_steps < n ? max_steps : n;
    size_t k = (size_t)max_steps + 1;
    double *v = work, *w = v + (size_t)n * k, *u = w + n, *alpha = u + GRAM_BLOCK_ROWS, *beta = alpha + k;
    double *d = beta + k, *e = d + k, *coef = e + k, *top = coef + k, *previous = top + 2 * k;
    for (int i = 0; i < want; ++i)
        previous[i] = -1.0;
    memcpy(v, start, (size_t)n * sizeof *v);
    cblas_dscal(n, 1.0 / cblas_dnrm2(n, v, 1), v, 1);
    int steps = 0;
    for (int j = 0; j < limit; ++j) {
        double *vj = v + (size_t)j * n;
        gram_times(m, n, a, vj, w, u);
        alpha[j] = cblas_ddot(n, vj, 1, w, 1);
        orthogonalize(n, j + 1, v, w, coef);
        orthogonalize(n, j + 1, v, w, coef);
        beta[j] = cblas_dnrm2(n, w, 1);
        steps = j + 1;
        int exhausted = beta[j] <= 1e-14 * alpha[0] || steps == limit; /* Ritz values exact */
        if (steps >= want && (steps % 4 == 0 || exhausted)) {
            if (tridiagonal_top(steps, alpha, beta, d, e, want, top) != 0)
                return -1;
            int converged = 1;
            for (int i = 0; i < want; ++i)
                converged &= fabs(top[i] - previous[i]) <= rel_tol * top[0];
            memcpy(previous, top, (size_t)want * sizeof *top);
            if (converged)
                break;
        }
        if (exhausted)
            break;
        double *next = v + (size_t)(j + 1) * n;
        for (int i = 0; i < n; ++i)
            next[i] = w[i] / beta[j];
    }
    if (tridiagonal_top(steps, alpha, beta, d, e, want, top) != 0)
        return -1;
    for (int i = 0; i < want; ++i)
        sv[i] = sqrt(top[i] > 0 ? top[i] : 0.0);
    return steps;
}
