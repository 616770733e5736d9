/* bench_peak: the dgemm peak the benchmarks compare against, shared by bench_floor,
 * bench_gemm and bench_markov so that all three measure it the same way. */
#ifndef ATTNRANK_BENCH_PEAK_H
#define ATTNRANK_BENCH_PEAK_H

#include "attnrank/linalg.h"
#include "attnrank/rng.h"

#include <omp.h>
#include <stdlib.h>

/* OpenBLAS's dgemm C = A B at N x N x N on Gaussian A, B (after one warm-up call), best
 * of 3: GFLOP/s, and its seconds in *seconds when that is not NULL. */
static inline double bench_dgemm_peak(int n, double *seconds)
{
    size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    ar_rng r;
    ar_rng_init(&r, 1, 2, 5, 0);
    ar_rng_normals(&r, a, nn);
    ar_rng_normals(&r, b, nn);
    ar_gemm_nn(n, n, n, a, b, c);
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
        double t0 = omp_get_wtime();
        ar_gemm_nn(n, n, n, a, b, c);
        double dt = omp_get_wtime() - t0;
        best = dt < best ? dt : best;
    }
    free(a), free(b), free(c);
    if (seconds)
        *seconds = best;
    return 2.0 * n * n * (double)n / best / 1e9;
}

#endif
