/* linalg: Lanczos top singular values equal the full SVD's to 1e-10. */
#include "attnrank/linalg.h"
#include "attnrank/rng.h"
#include "check.h"

#include <stdlib.h>

static void compare(int m, int n, int markov, uint64_t seed)
{
    double *a = malloc((size_t)m * n * sizeof *a), *copy = malloc((size_t)m * n * sizeof *copy);
    double *full = malloc((size_t)(m < n ? m : n) * sizeof *full), start[4096], top[3];
    int max_steps = 200;
    double *work = malloc(ar_top_singular_values_workspace(m, n, max_steps) * sizeof *work);
    double *svd_work = malloc(ar_singular_values_workspace(m, n) * sizeof *svd_work);
    int *iwork = malloc(8 * (size_t)(m < n ? m : n) * sizeof *iwork);
    ar_rng r;
    ar_rng_init(&r, seed, 0, 0, 0);
    ar_rng_normals(&r, a, (size_t)m * n);
    if (markov) { /* positive entries, rows summing to one: one outlier at 1 */
        for (int i = 0; i < m; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j)
                sum += a[i * n + j] = exp(a[i * n + j]);
            for (int j = 0; j < n; ++j)
                a[i * n + j] /= sum;
        }
    }
    ar_rng_normals(&r, start, (size_t)n);
    memcpy(copy, a, (size_t)m * n * sizeof *a);
    CHECK(ar_singular_values(m, n, copy, full, svd_work, iwork) == 0);
    int steps = ar_top_singular_values(m, n, a, 3, start, max_steps, 1e-14, top, work);
    double worst = 0;
    for (int i = 0; i < 3; ++i)
        worst = fmax(worst, fabs(top[i] - full[i]) / full[0]);
    printf("%s %d x %d: %d steps, sigma 1-3 %.12g %.12g %.12g, max rel error %.2e\n", markov ? "markov" : "gauss",
           m, n, steps, top[0], top[1], top[2], worst);
    CHECK(steps > 0);
    CHECK(worst < 1e-10);
    free(a), free(copy), free(full), free(work), free(svd_work), free(iwork);
}

int main(void)
{
    check_register_families();
    compare(50, 50, 0, 1);
    compare(300, 300, 1, 2);
    compare(200, 120, 0, 3);
    compare(120, 200, 1, 4);
    compare(1000, 1000, 1, 5);
    compare(3, 3, 0, 6);
    return check_report("lanczos");
}
