/* bench_gemm: the score product S = Q K^T (C = A B^T) at trial sizes, OpenBLAS's dgemm
 * against attnrank's small kernel (its AVX2+FMA and plain versions) and ar_gemm_nt (what
 * the trials call), beside OpenBLAS's dgemm peak (C = A B at N x N x N, one thread).
 * Prints one JSON line; driven by bench/run_floor.py.
 *
 * usage: bench_gemm [PEAK_N [N:K ...]]   (default 2048 and the shapes below; PEAK_N = 0: no
 * peak measured) */
#include "attnrank/builtin_families.h"
#include "attnrank/blas_core.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rng.h"

#include "bench_peak.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*product)(int n, int k, const double *a, const double *b, double *c);

static void by_openblas(int n, int k, const double *a, const double *b, double *c)
{
    ar_gemm('N', 'T', n, n, k, 1.0, a, b, 0.0, c);
}
static void by_small(int n, int k, const double *a, const double *b, double *c)
{
    ar_gemm_nt_small(n, n, k, a, b, c, 0);
}
static void by_plain(int n, int k, const double *a, const double *b, double *c)
{
    ar_gemm_nt_small(n, n, k, a, b, c, 1);
}
static void by_gemm_nt(int n, int k, const double *a, const double *b, double *c) { ar_gemm_nt(n, n, k, a, b, c); }

/* Best of 7 batches of calls, each batch about 2 ms: seconds per call. */
static double seconds(product f, int n, int k, const double *a, const double *b, double *c)
{
    double flops = 2.0 * n * n * k;
    int calls = (int)(2e-3 * 40e9 / flops) + 1;
    f(n, k, a, b, c);
    double best = 1e300;
    for (int rep = 0; rep < 7; ++rep) {
        double t0 = omp_get_wtime();
        for (int i = 0; i < calls; ++i)
            f(n, k, a, b, c);
        double dt = (omp_get_wtime() - t0) / calls;
        best = dt < best ? dt : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    ar_openblas_set_threads(1);
    int peak_n = argc > 1 ? atoi(argv[1]) : 2048;
    static const int defaults[][2] = {{64, 16}, {64, 32}, {64, 64}, {96, 16}, {96, 32}, {96, 96}, {128, 16},
                                      {128, 32}, {128, 64}, {128, 128}, {256, 32}, {256, 256}};
    int count = argc > 2 ? argc - 2 : (int)(sizeof defaults / sizeof defaults[0]);
    double peak_s = 0, peak = peak_n > 0 ? bench_dgemm_peak(peak_n, &peak_s) : 0; /* 0: no peak, no flop_us */
    printf("{\"peak_n\": %d, \"peak_gflops\": %.3f, \"peak_ms\": %.3f, \"small_kernel\": \"%s\", \"shapes\": [",
           peak_n, peak, peak_s * 1e3, ar_gemm_small_has_avx2() ? "avx2+fma" : "plain");
    for (int s = 0; s < count; ++s) {
        int n = defaults[s % 12][0], k = defaults[s % 12][1];
        if (argc > 2 && sscanf(argv[2 + s], "%d:%d", &n, &k) != 2) {
            fprintf(stderr, "bad shape %s (want N:K)\n", argv[2 + s]);
            return 2;
        }
        double *a = malloc((size_t)n * k * sizeof *a), *b = malloc((size_t)n * k * sizeof *b);
        double *c = malloc((size_t)n * n * sizeof *c);
        ar_rng r;
        ar_rng_init(&r, 1, (uint64_t)n, (uint64_t)k, 0);
        ar_rng_normals(&r, a, (size_t)n * k);
        ar_rng_normals(&r, b, (size_t)n * k);
        double flop_s = peak > 0 ? 2.0 * n * n * k / (peak * 1e9) : 0;
        double openblas = seconds(by_openblas, n, k, a, b, c), nt = seconds(by_gemm_nt, n, k, a, b, c);
        double small = k <= AR_GEMM_SMALL_MAX_K ? seconds(by_small, n, k, a, b, c) : 0;
        double plain = k <= AR_GEMM_SMALL_MAX_K ? seconds(by_plain, n, k, a, b, c) : 0;
        printf("%s{\"n\": %d, \"k\": %d, \"flop_us\": %.4f, \"openblas_us\": %.4f, \"small_us\": %.4f, "
               "\"plain_us\": %.4f, \"gemm_nt_us\": %.4f}",
               s ? ", " : "", n, k, flop_s * 1e6, openblas * 1e6, small * 1e6, plain * 1e6, nt * 1e6);
        free(a), free(b), free(c);
    }
    printf("], \"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n", ar_openblas_corename(), ar_blas_core_origin());
    return 0;
}
