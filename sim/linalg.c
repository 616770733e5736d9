/* linalg: CBLAS/LAPACKE calls. Row-major buffers are handed to LAPACK as their
 * column-major transposes, which avoids LAPACKE's transposing copies. */
#include "attnrank/linalg.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <string.h>

void ar_gemm_nt(int m, int n, int k, const double *a, const double *b, double *c)
{
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

size_t ar_top_singular_values_workspace(int m, int n, int max_steps)
{
    size_t k = (size_t)max_steps + 1;
    /* U (m x k), V (n x k), diagonal, superdiagonal, their copies, and dbdsqr's 4k. */
    return (size_t)m * k + (size_t)n * k + 8 * k;
}

/* v -= V[0..count) (V[i] . v): one pass of classical Gram-Schmidt, done twice by the
 * caller ("twice is enough"), keeps the Lanczos vectors orthogonal to working precision. */
static void orthogonalize(int len, int count, const double *basis, double *v, double *coef)
{
    if (count == 0)
        return;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, count, len, 1.0, basis, len, v, 1, 0.0, coef, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, count, len, -1.0, basis, len, coef, 1, 1.0, v, 1);
}

int ar_top_singular_values(int m, int n, const double *a, int want, const double *start, int max_steps,
                           double rel_tol, double *sv, double *work)
{
    int limit = max_steps < (m < n ? m : n) ? max_steps : (m < n ? m : n);
    size_t k = (size_t)max_steps + 1;
    double *u = work, *v = u + (size_t)m * k; /* rows: the Lanczos vectors */
    double *alpha = v + (size_t)n * k, *beta = alpha + k, *d = beta + k, *e = d + k, *scratch = e + k;
    double *previous = scratch; /* the last estimate of the wanted values */
    for (int i = 0; i < want; ++i)
        previous[i] = -1.0;
    memcpy(v, start, (size_t)n * sizeof *v);
    double norm = cblas_dnrm2(n, v, 1);
    cblas_dscal(n, 1.0 / norm, v, 1);
    int steps = 0, converged = 0;
    double *proj = scratch + want; /* projection coefficients, up to k */
    for (int j = 0; j < limit && !converged; ++j) {
        double *uj = u + (size_t)j * m, *vj = v + (size_t)j * n;
        /* u_j = A v_j - beta_{j-1} u_{j-1}, orthogonalized against all earlier u. */
        cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, a, n, vj, 1, 0.0, uj, 1);
        orthogonalize(m, j, u, uj, proj);
        orthogonalize(m, j, u, uj, proj);
        alpha[j] = cblas_dnrm2(m, uj, 1);
        if (alpha[j] == 0.0) {
            steps = j + 1;
            break;
        }
        cblas_dscal(m, 1.0 / alpha[j], uj, 1);
        /* v_{j+1} = A^T u_j - alpha_j v_j, orthogonalized against all earlier v. */
        double *vn = v + (size_t)(j + 1) * n;
        cblas_dgemv(CblasRowMajor, CblasTrans, m, n, 1.0, a, n, uj, 1, 0.0, vn, 1);
        orthogonalize(n, j + 1, v, vn, proj);
        orthogonalize(n, j + 1, v, vn, proj);
        beta[j] = cblas_dnrm2(n, vn, 1);
        steps = j + 1;
        if (beta[j] == 0.0 || j + 1 == limit)
            break;
        cblas_dscal(n, 1.0 / beta[j], vn, 1);
        if (steps < want || (steps % 4 != 0))
            continue;
        /* Singular values of the upper bidiagonal B (alpha on, beta above the diagonal). */
        memcpy(d, alpha, (size_t)steps * sizeof *d);
        memcpy(e, beta, (size_t)(steps - 1) * sizeof *e);
        if (LAPACKE_dbdsqr(LAPACK_COL_MAJOR, 'U', steps, 0, 0, 0, d, e, NULL, 1, NULL, 1, NULL, 1) != 0)
            return -1;
        converged = 1;
        for (int i = 0; i < want; ++i)
            converged &= fabs(d[i] - previous[i]) <= rel_tol * d[0];
        for (int i = 0; i < want; ++i)
            previous[i] = d[i];
    }
    memcpy(d, alpha, (size_t)steps * sizeof *d);
    if (steps > 1)
        memcpy(e, beta, (size_t)(steps - 1) * sizeof *e);
    if (LAPACKE_dbdsqr(LAPACK_COL_MAJOR, 'U', steps, 0, 0, 0, d, e, NULL, 1, NULL, 1, NULL, 1) != 0)
        return -1;
    for (int i = 0; i < want; ++i)
        sv[i] = i < steps ? d[i] : 0.0;
    return steps;
}

void ar_blas_set_threads(int threads)
{
    openblas_set_num_threads(threads);
}

const char *ar_blas_corename(void)
{
    return openblas_get_corename();
}

const char *ar_blas_config(void)
{
    return openblas_get_config();
}
