/* linalg: CBLAS/LAPACKE calls. Row-major buffers are handed to LAPACK as their
 * column-major transposes, which avoids LAPACKE's transposing copies. */
#include "attnrank/linalg.h"

#include <cblas.h>
#include <lapacke.h>

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
