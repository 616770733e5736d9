/* bench_convex: FISTA iterations per second on one group-lasso instance (iid N(0, 1)
 * tokens, a planted teacher on two positions, beta = 0.1 beta_max), one thread. The
 * fixed cost (||D||_2 from the Gram matrix) is timed apart (a solve capped at 0
 * iterations). Prints one
 * JSON line; driven by bench/run_bench_convex.py.
 *
 * usage: bench_convex N n d ITERATIONS */
#include "attnrank/builtin_families.h"
#include "attnrank/blas_core.h"
#include "attnrank/convex.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    if (argc != 5) {
        fprintf(stderr, "usage: %s N n d ITERATIONS\n", argv[0]);
        return 2;
    }
    int N = atoi(argv[1]), n = atoi(argv[2]), d = atoi(argv[3]), iterations = atoi(argv[4]);
    size_t nd = (size_t)n * d;
    double *x = malloc((size_t)N * nd * sizeof *x), *y = malloc((size_t)N * sizeof *y);
    double *z = malloc(nd * sizeof *z), *teacher = calloc(nd, sizeof *teacher);
    double *work = malloc(ar_convex_workspace(N, n, d) * sizeof *work);
    ar_openblas_set_threads(1);
    ar_rng rng;
    ar_rng_init(&rng, 1, 2, 3, 0);
    ar_rng_normals(&rng, x, (size_t)N * nd);
    ar_rng_normals(&rng, teacher, (size_t)d);
    ar_rng_normals(&rng, teacher + nd - d, (size_t)d);
    for (int i = 0; i < N; ++i) {
        double s = 0;
        for (size_t e = 0; e < nd; ++e)
            s += teacher[e] * x[(size_t)i * nd + e];
        y[i] = s + 0.1 * ar_rng_normal(&rng);
    }
    ar_convex_problem p = {N, n, d, x, y, 0};
    p.beta = 0.1 * ar_convex_beta_max(&p, z);
    ar_convex_result res;
    /* per iteration: the difference of runs capped at 2k and k iterations, so the
     * fixed cost (Gram eigenvalues, first touch of the data) cancels */
    double t[3];
    for (int run = 0; run < 3; ++run) {
        memset(z, 0, nd * sizeof *z);
        double t0 = omp_get_wtime();
        ar_convex_solve(&p, 0, run == 0 ? 0 : run * iterations, z, work, &res);
        t[run] = omp_get_wtime() - t0;
    }
    double per_iteration = (t[2] - t[1]) / iterations;
    memset(z, 0, nd * sizeof *z);
    ar_convex_result solved;
    double t3 = omp_get_wtime();
    ar_convex_solve(&p, 1e-9, 1000000, z, work, &solved);
    double t4 = omp_get_wtime();
    printf("{\"impl\": \"c\", \"N\": %d, \"n\": %d, \"d\": %d, \"iterations_per_s\": %.1f, \"setup_ms\": %.3f, "
           "\"solve_ms\": %.3f, \"solve_iterations\": %d, \"gap\": %.3g, \"objective\": %.12g, \"active\": %d, "
           "\"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n",
           N, n, d, 1 / per_iteration, t[0] * 1e3, (t4 - t3) * 1e3, solved.iterations, solved.gap,
           solved.primal, solved.active, ar_openblas_corename(), ar_blas_core_origin());
    free(x), free(y), free(z), free(teacher), free(work);
    return 0;
}
