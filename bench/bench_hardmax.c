/* bench_hardmax: time the hardmax trial, end to end through the engine and broken
 * down by phase, and print one JSON line. Driven by bench/run_bench.py and
 * bench/run_floor.py. With the direct sampler it also recomputes the first 5000 trials'
 * argmax ranks with OpenBLAS's dgemm for S = Q K^T (ar_gemm_nt may use attnrank's own
 * kernel) and counts the ranks that differ.
 *
 * usage: bench_hardmax N D_H TRIALS THREADS SAMPLER(auto|faithful) */
#include "attnrank/builtin_families.h"
#include "attnrank/blas_core.h"
#include "attnrank/attention.h"
#include "attnrank/engine.h"
#include "hardmax/hardmax.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rank.h"
#include "attnrank/rng.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* The faithful trial's steps, timed one by one on one thread: per step the best of
 * three passes over the trials (a shared machine's bursts of load hit one pass). */
static void breakdown_pass(int n, int dh, int faithful, int trials, double t[4]);

static void breakdown(int n, int dh, int faithful, int trials, double t[4])
{
    double pass[4];
    for (int i = 0; i < 4; ++i)
        t[i] = 1e300;
    for (int p = 0; p < 3; ++p) {
        breakdown_pass(n, dh, faithful, trials, pass);
        for (int i = 0; i < 4; ++i)
            t[i] = pass[i] < t[i] ? pass[i] : t[i];
    }
}

static void breakdown_pass(int n, int dh, int faithful, int trials, double t[4])
{
    int d = n;
    double *x = malloc((size_t)n * d * sizeof *x), *wq = malloc((size_t)d * dh * sizeof *wq);
    double *wk = malloc((size_t)d * dh * sizeof *wk), *q = malloc((size_t)n * dh * sizeof *q);
    double *k = malloc((size_t)n * dh * sizeof *k), *s = malloc((size_t)n * n * sizeof *s);
    double *work = malloc(ar_haar_rows_workspace(n, d) * sizeof *work);
    int *argmax = malloc((size_t)n * sizeof *argmax);
    unsigned char *seen = malloc((size_t)n);
    ar_rng r;
    ar_openblas_set_threads(1);
    memset(t, 0, 4 * sizeof *t);
    long checksum = 0;
    for (int trial = 0; trial < trials; ++trial) {
        ar_rng_init(&r, 1, 2, (uint64_t)trial, 0);
        double t0 = omp_get_wtime();
        if (faithful) {
            ar_rng_normals(&r, x, (size_t)n * d);
            ar_rng_normals(&r, wq, (size_t)d * dh);
            ar_rng_normals(&r, wk, (size_t)d * dh);
        } else {
            ar_rng_normals(&r, q, (size_t)n * dh);
            ar_rng_normals(&r, k, (size_t)n * dh);
        }
        double t1 = omp_get_wtime();
        if (faithful)
            ar_haar_rows(n, d, x, work);
        double t2 = omp_get_wtime();
        if (faithful) {
            ar_gemm_nn(n, dh, d, x, wq, q);
            ar_gemm_nn(n, dh, d, x, wk, k);
        }
        ar_gemm_nt(n, n, dh, q, k, s);
        double t3 = omp_get_wtime();
        ar_argmax_rows(n, n, s, argmax);
        checksum += ar_argmax_rank(n, argmax, n, seen);
        double t4 = omp_get_wtime();
        t[0] += t1 - t0, t[1] += t2 - t1, t[2] += t3 - t2, t[3] += t4 - t3;
    }
    for (int i = 0; i < 4; ++i)
        t[i] *= 1e6 / trials;
    if (checksum < 0)
        puts("impossible");
    free(x), free(wq), free(wk), free(q), free(k), free(s), free(work), free(argmax), free(seen);
}

/* The engine's argmax ranks (direct sampler: Q, K drawn as the trial draws them) against
 * the same draws with S = Q K^T by OpenBLAS's dgemm instead of ar_gemm_nt: how many of
 * the first `count` trials' ranks differ. */
static long ranks_differing_from_openblas(const ar_spec *spec, const ar_experiment *x, const double *values,
                                          int count)
{
    ar_point p;
    ar_experiment_point(x, 0, &p);
    int n = ar_point_int(&p, AR_HARDMAX_N), dh = ar_point_int(&p, AR_HARDMAX_D_H);
    double *q = malloc((size_t)n * dh * sizeof *q), *k = malloc((size_t)n * dh * sizeof *k);
    double *s = malloc((size_t)n * n * sizeof *s);
    int *argmax = malloc((size_t)n * sizeof *argmax);
    unsigned char *seen = malloc((size_t)n);
    const double *ranks = values + (size_t)ar_output_offset(&p, AR_HARDMAX_OUT_ARGMAX_RANK) * x->trials;
    long differ = 0;
    for (int t = 0; t < count; ++t) {
        ar_rng r;
        ar_rng_init(&r, spec->seed, ar_point_key(&p), (uint64_t)t, 0);
        ar_rng_normals(&r, q, (size_t)n * dh);
        ar_rng_normals(&r, k, (size_t)n * dh);
        ar_gemm('N', 'T', n, n, dh, 1.0, q, k, 0.0, s);
        ar_argmax_rows(n, n, s, argmax);
        differ += ar_argmax_rank(n, argmax, n, seen) != ranks[t];
    }
    free(q), free(k), free(s), free(argmax), free(seen);
    return differ;
}

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    if (argc != 6) {
        fprintf(stderr, "usage: %s N D_H TRIALS THREADS SAMPLER\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), dh = atoi(argv[2]), trials = atoi(argv[3]), threads = atoi(argv[4]);
    const char *sampler = argv[5];
    char text[512], err[AR_ERR_LEN];
    snprintf(text, sizeof text,
             "seed = 1; experiments = ( { name = \"b\"; simulator = \"hardmax_rank\"; trials = %d;"
             " n = %d; d_h = %d; sampler = \"%s\"; } );", trials, n, dh, sampler);
    ar_spec spec;
    if (ar_spec_load_text(text, "bench", NULL, NULL, 0, &spec, err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const ar_experiment *x = &spec.experiments[0];
    double *values = malloc((size_t)trials * ar_trials_values_per_trial(x, 0) * sizeof *values);
    ar_trials_point_values(&spec, x, 0, threads, values); /* warm-up: page faults, OpenBLAS init */
    double best = 1e300;
    for (int rep = 0; rep < 3; ++rep) {
        double t0 = omp_get_wtime();
        ar_trials_point_values(&spec, x, 0, threads, values);
        double dt = omp_get_wtime() - t0;
        best = dt < best ? dt : best;
    }
    double mean_rank = 0;
    for (int t = 0; t < trials; ++t)
        mean_rank += values[t] / trials;
    /* direct sampler only: the faithful one's Q, K come from X W */
    int checked = strcmp(sampler, "faithful") == 0 ? 0 : trials < 5000 ? trials : 5000;
    long differ = ranks_differing_from_openblas(&spec, x, values, checked);
    double phases[4];
    breakdown(n, dh, strcmp(sampler, "faithful") == 0, trials < 300 ? trials : 300, phases);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"impl\": \"c-%s\", \"n\": %d, \"d_h\": %d, \"threads\": %d, \"trials\": %d, "
           "\"us_per_trial\": %.3f, \"mean_rank\": %.4f, \"peak_rss_mib\": %.1f, "
           "\"sampling_us\": %.3f, \"qr_us\": %.3f, \"gemm_us\": %.3f, \"argmax_us\": %.3f, "
           "\"ranks_checked\": %d, \"ranks_differing_from_openblas\": %ld, "
           "\"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n",
           sampler, n, dh, threads, trials, best * 1e6 / trials, mean_rank, usage.ru_maxrss / 1024.0, phases[0],
           phases[1], phases[2], phases[3], checked, differ, ar_openblas_corename(), ar_blas_core_origin());
    free(values);
    ar_spec_free(&spec);
    return 0;
}
