/* bench_masks: time mask_dynamics trials (window mask, orthogonal W_V, no LayerNorm)
 * through the engine, and the attention step alone (ar_attention_map_apply) on the same
 * sizes, by the dense route or at the edges only. Prints one JSON line; driven by
 * bench/run_bench_masks.py.
 *
 * usage: bench_masks N D W LAYERS TRIALS THREADS ROUTE(dense|sparse) */
#include "attnrank/builtin_families.h"
#include "attnrank/blas_core.h"
#include "attnrank/dynamics.h"
#include "attnrank/engine.h"
#include "masks/masks.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

/* ms per call of the attention step alone (no measurements), one thread. */
static double step_ms(int n, int d, int w, int dense)
{
    ar_mask_spec spec = {AR_MASK_WINDOW, n, w, 1, 0, 0};
    int *storage = malloc(ar_mask_storage(&spec) * sizeof *storage);
    ar_mask mask;
    ar_mask_build(&spec, NULL, storage, &mask);
    size_t nd = (size_t)n * d;
    double *x = malloc(nd * sizeof *x), *out = malloc(nd * sizeof *out), *w_qk = malloc((size_t)d * d * sizeof *w_qk);
    double *weights = malloc((size_t)mask.edges * sizeof *weights);
    ar_attention_map map = {&mask, d, w_qk, w_qk, w_qk, AR_NORM_NONE, dense};
    double *work = malloc(ar_attention_map_workspace(&map) * sizeof *work);
    ar_rng rng;
    ar_rng_init(&rng, 1, 2, 3, 0);
    ar_rng_normals(&rng, x, nd);
    ar_rng_normals(&rng, w_qk, (size_t)d * d);
    for (size_t i = 0; i < (size_t)d * d; ++i)
        w_qk[i] /= d;
    int reps = n <= 256 ? 200 : 20;
    ar_attention_map_apply(&map, x, out, weights, work);
    double t0 = omp_get_wtime();
    for (int r = 0; r < reps; ++r)
        ar_attention_map_apply(&map, x, out, weights, work);
    double ms = (omp_get_wtime() - t0) / reps * 1e3;
    free(storage), free(x), free(out), free(w_qk), free(weights), free(work);
    return ms;
}

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    if (argc != 8) {
        fprintf(stderr, "usage: %s N D W LAYERS TRIALS THREADS ROUTE\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), d = atoi(argv[2]), w = atoi(argv[3]), layers = atoi(argv[4]), trials = atoi(argv[5]);
    int threads = atoi(argv[6]);
    const char *route = argv[7];
    char text[512], err[AR_ERR_LEN];
    snprintf(text, sizeof text,
             "seed = 1; experiments = ( { name = \"b\"; simulator = \"mask_dynamics\"; trials = %d; n = %d; d = %d;"
             " layers = %d; mask = \"window\"; w = %d; value = \"orthogonal\"; route = \"%s\"; } );",
             trials, n, d, layers, w, route);
    ar_spec spec;
    if (ar_spec_load_text(text, "bench", NULL, NULL, 0, &spec, err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const ar_experiment *x = &spec.experiments[0];
    size_t per_trial = (size_t)ar_trials_values_per_trial(x, 0);
    double *values = malloc((size_t)trials * per_trial * sizeof *values);
    double t0 = omp_get_wtime();
    ar_trials_point_values(&spec, x, 0, threads, values);
    double engine = (omp_get_wtime() - t0) / trials;
    ar_openblas_set_threads(1);
    double step = step_ms(n, d, w, strcmp(route, "dense") == 0);
    ar_point pt;
    ar_experiment_point(x, 0, &pt);
    double rate = values[(size_t)ar_output_offset(&pt, AR_MASKDYN_OUT_RATE) * trials];
    double edges = values[(size_t)ar_output_offset(&pt, AR_MASKDYN_OUT_EDGES) * trials];
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"impl\": \"c-%s\", \"n\": %d, \"d\": %d, \"w\": %d, \"layers\": %d, \"threads\": %d, \"trials\": %d, "
           "\"ms_per_layer\": %.5f, \"step_ms\": %.5f, \"rate\": %.6f, \"edges\": %.0f, \"peak_rss_mib\": %.1f, "
           "\"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n",
           route, n, d, w, layers, threads, trials, engine / layers * 1e3, step, rate, edges, usage.ru_maxrss / 1024.0,
           ar_openblas_corename(), ar_blas_core_origin());
    free(values);
    ar_spec_free(&spec);
    return 0;
}
