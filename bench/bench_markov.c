/* bench_markov: time markov_spectrum trials through the engine, LAPACK's own dgesdd on
 * the same matrices, and dgemm's rate (the machine's peak for the dominant kernel).
 * Prints one JSON line; driven by bench/run_bench_markov.py.
 *
 * usage: bench_markov N TRIALS THREADS SPECTRUM(full|top2) */
#include "attnrank/builtin_families.h"
#include "attnrank/blas_core.h"
#include "attnrank/engine.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "markov/markov.h"

#include "bench_peak.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    if (argc != 5) {
        fprintf(stderr, "usage: %s N TRIALS THREADS SPECTRUM\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), trials = atoi(argv[2]), threads = atoi(argv[3]);
    const char *spectrum = argv[4];
    char text[512], err[AR_ERR_LEN];
    snprintf(text, sizeof text,
             "seed = 1; experiments = ( { name = \"b\"; simulator = \"markov_spectrum\"; trials = %d;"
             " n = %d; spectrum = \"%s\"; } );", trials, n, spectrum);
    ar_spec spec;
    if (ar_spec_load_text(text, "bench", NULL, NULL, 0, &spec, err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const ar_experiment *x = &spec.experiments[0];
    double *values = malloc((size_t)trials * ar_trials_values_per_trial(x, 0) * sizeof *values);
    double t0 = omp_get_wtime();
    ar_trials_point_values(&spec, x, 0, threads, values);
    double engine = (omp_get_wtime() - t0) / trials;

    /* The same matrices through LAPACK alone, one thread: sampling and dgesdd timed apart. */
    ar_point p;
    ar_experiment_point(x, 0, &p);
    double *a = malloc((size_t)n * n * sizeof *a), *sv = malloc((size_t)n * sizeof *sv);
    double *work = malloc(ar_singular_values_workspace(n, n) * sizeof *work);
    int *iwork = malloc(8 * (size_t)n * sizeof *iwork);
    int samples = n >= 2048 ? 1 : trials < 3 ? trials : 3;
    double sampling = 0, lapack = 0;
    ar_openblas_set_threads(1);
    for (int t = 0; t < samples; ++t) {
        ar_rng r;
        ar_rng_init(&r, 1, ar_point_key(&p), (uint64_t)t, 0);
        double s0 = omp_get_wtime();
        ar_markov_draw draw = ar_markov_spectrum_draw(&p);
        ar_markov_sample(&draw, &r, a, NULL, NULL);
        double s1 = omp_get_wtime();
        if (strcmp(spectrum, "full") == 0 || n <= 1024)
            ar_singular_values(n, n, a, sv, work, iwork);
        double s2 = omp_get_wtime();
        sampling += s1 - s0;
        lapack += s2 - s1;
    }
    double gemm = bench_dgemm_peak(n < 1024 ? n : 1024, NULL);
    double svd_flops = 8.0 / 3.0 * n * (double)n * n; /* bidiagonalisation dominates */
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"impl\": \"c-%s\", \"n\": %d, \"threads\": %d, \"trials\": %d, \"ms_per_matrix\": %.4f, "
           "\"sampling_ms\": %.4f, \"lapack_dgesdd_ms\": %.4f, \"dgesdd_gflops\": %.2f, \"dgemm_gflops\": %.2f, "
           "\"sigma1\": %.6f, \"peak_rss_mib\": %.1f, \"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n",
           spectrum, n, threads, trials, engine * 1e3, sampling / samples * 1e3, lapack / samples * 1e3,
           lapack > 0 ? svd_flops / (lapack / samples) / 1e9 : 0.0, gemm, values[0], usage.ru_maxrss / 1024.0,
           ar_openblas_corename(), ar_blas_core_origin());
    free(values), free(a), free(sv), free(work), free(iwork);
    ar_spec_free(&spec);
    return 0;
}
