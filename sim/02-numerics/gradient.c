/* gradient: closed-form Jacobian norms of the linear attention stack (see gradient.h). */
#include "attnrank/gradient.h"

#include "attnrank/linalg.h"

#include <math.h>
#include <string.h>

static double frobenius(size_t count, const double *x)
{
    double sum = 0;
    for (size_t i = 0; i < count; ++i)
        sum += x[i] * x[i];
    return sqrt(sum);
}

static void identity(int n, double *m)
{
    memset(m, 0, (size_t)n * n * sizeof *m);
    for (int i = 0; i < n; ++i)
        m[(size_t)i * n + i] = 1;
}

void ar_linear_stack_forward(int n, int d, int layers, const double *a, const double *x0, const double *w,
                             double *xl, double *work)
{
    memcpy(xl, x0, (size_t)n * d * sizeof *xl);
    for (int l = 0; l < layers; ++l) {
        ar_gemm_nn(n, d, n, a + (size_t)l * n * n, xl, work);     /* A_l X_l */
        ar_gemm_nn(n, d, d, work, w + (size_t)l * d * d, xl);     /* ... W_l */
    }
}

size_t ar_linear_stack_gradient_workspace(int n, int d)
{
    /* B and its next value (n x n), R and its next value (d x d), M (n x d). */
    return 2 * (size_t)n * n + 2 * (size_t)d * d + (size_t)n * d;
}

void ar_linear_stack_gradient_norms(int n, int d, int layers, const double *a, const double *y, const double *w,
                                    double *norms, double *work)
{
    double *b = work, *b_next = b + (size_t)n * n, *r = b_next + (size_t)n * n, *r_next = r + (size_t)d * d;
    double *m = r_next + (size_t)d * d;
    identity(n, b); /* B = A_{L-1} ... A_{l+1} */
    identity(d, r); /* R = W_{l+1} ... W_{L-1} */
    for (int l = layers - 1; l >= 0; --l) {
        ar_gemm_nn(n, d, n, b, y + (size_t)l * n * d, m);
        norms[l] = frobenius((size_t)n * d, m) * frobenius((size_t)d * d, r);
        if (l == 0)
            break;
        ar_gemm_nn(n, n, n, b, a + (size_t)l * n * n, b_next);
        ar_gemm_nn(d, d, d, w + (size_t)l * d * d, r, r_next);
        memcpy(b, b_next, (size_t)n * n * sizeof *b);
        memcpy(r, r_next, (size_t)d * d * sizeof *r);
    }
}
