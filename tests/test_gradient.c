/* gradient: the closed-form Jacobian norms equal a finite-difference Jacobian's. */
#include "attnrank/gradient.h"
#include "attnrank/rng.h"
#include "check.h"

#include <stdlib.h>

int main(void)
{
    check_register_families();
    const int n = 4, d = 3, layers = 4;
    double a[4 * 16], w[4 * 9], x0[12], y[4 * 12], xl[12], plus[12], minus[12], work[12];
    double norms[4], scratch[64];
    ar_rng r;
    ar_rng_init(&r, 9, 9, 9, 0);
    for (int l = 0; l < layers; ++l)
        for (int i = 0; i < n; ++i) { /* Markov rows */
            double sum = 0, *row = a + l * n * n + i * n;
            for (int j = 0; j < n; ++j)
                sum += row[j] = ar_rng_uniform(&r);
            for (int j = 0; j < n; ++j)
                row[j] /= sum;
        }
    ar_rng_normals(&r, w, sizeof w / sizeof w[0]);
    ar_rng_normals(&r, x0, 12);
    /* Y_l = A_l X_l along the forward pass. */
    double x[12];
    memcpy(x, x0, sizeof x);
    for (int l = 0; l < layers; ++l) {
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < d; ++j) {
                double s = 0;
                for (int k = 0; k < n; ++k)
                    s += a[l * n * n + i * n + k] * x[k * d + j];
                y[l * n * d + i * d + j] = s;
            }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < d; ++j) {
                double s = 0;
                for (int k = 0; k < d; ++k)
                    s += y[l * n * d + i * d + k] * w[l * d * d + k * d + j];
                x[i * d + j] = s;
            }
    }
    ar_linear_stack_forward(n, d, layers, a, x0, w, xl, work);
    for (int i = 0; i < 12; ++i)
        CHECK_NEAR(xl[i], x[i], 1e-12);
    CHECK(ar_linear_stack_gradient_workspace(n, d) <= 64);
    ar_linear_stack_gradient_norms(n, d, layers, a, y, w, norms, scratch);
    /* Central differences: X_L is linear in each W_l, so they are exact but for rounding. */
    const double h = 1e-4;
    for (int l = 0; l < layers; ++l) {
        double total = 0;
        for (int e = 0; e < d * d; ++e) {
            double saved = w[l * d * d + e];
            w[l * d * d + e] = saved + h;
            ar_linear_stack_forward(n, d, layers, a, x0, w, plus, work);
            w[l * d * d + e] = saved - h;
            ar_linear_stack_forward(n, d, layers, a, x0, w, minus, work);
            w[l * d * d + e] = saved;
            for (int i = 0; i < 12; ++i) {
                double g = (plus[i] - minus[i]) / (2 * h);
                total += g * g;
            }
        }
        printf("layer %d: closed form %.12f, finite differences %.12f\n", l, norms[l], sqrt(total));
        CHECK_NEAR(norms[l], sqrt(total), 1e-8 * norms[l]);
    }
    return check_report("gradient");
}
