/* Statistical and exact checks of M1-M2 with fixed seeds: the complete mask collapses
 * faster than a narrow window (the gap judged in standard errors of the two means);
 * with W_V = I and no LayerNorm no column's spread ever grows, and M2's bound holds in
 * every trial on every kind of mask. */
#include "attnrank/dynamics.h"
#include "attnrank/mask.h"
#include "check.h"
#include "support.h"

#include <float.h>

enum { LAYERS = 40 };
/* mask_dynamics' values per trial: mu, mu_rel, numrank (LAYERS + 1 each), min_weight
 * (LAYERS), then rate, collapse_layer, collapsed, bound_ratio, radius, edges. */
enum { RATE = 3 * (LAYERS + 1) + LAYERS, BOUND_RATIO = RATE + 3 };

static void summarize(const char *mask, int w, int value, ar_summary *s)
{
    char text[512];
    snprintf(text, sizeof text,
             "seed = 17; experiments = ( { name = \"m\"; simulator = \"mask_dynamics\"; trials = 60; n = 24; "
             "d = 6; layers = %d; mask = \"%s\"; w = %d; value = \"identity\"; p = 0.2; } );",
             LAYERS, mask, w);
    ar_spec spec;
    load_spec(text, &spec);
    summarize_value(&spec, 0, value, 2, s);
    ar_spec_free(&spec);
}

static void complete_faster_than_window(void)
{
    ar_summary complete, window;
    summarize("complete", 1, RATE, &complete);
    summarize("window", 1, RATE, &window);
    double se = sqrt(complete.sem * complete.sem + window.sem * window.sem);
    printf("rate: complete %.4g +- %.2g, window w=1 %.4g +- %.2g (%ld, %ld trials)\n", complete.mean, complete.sem,
           window.mean, window.sem, complete.count, window.count);
    CHECK(complete.count == 60 && window.count == 60);
    CHECK(complete.mean - window.mean > 5 * se);
}

static void bound_in_every_trial(void)
{
    for (int kind = AR_MASK_COMPLETE; kind <= AR_MASK_RANDOM; ++kind) {
        ar_summary s;
        summarize(ar_mask_names[kind], 2, BOUND_RATIO, &s);
        printf("M2 bound, %-13s: largest ratio %.4f over %ld trials\n", ar_mask_names[kind], s.max, s.count);
        if (kind == AR_MASK_DILATED)
            CHECK(s.count == 0); /* no spanning tree: nothing to check */
        else
            CHECK(s.count > 0 && s.max <= 1);
    }
}

/* Convex combinations cannot widen a column: spread_{t+1} <= spread_t, up to round-off. */
static void spreads_never_grow(void)
{
    enum { N = 20, D = 5 };
    static int storage[N * N + N + 1];
    double x[N * D], next[N * D], weights[N * N], work[3 * N * D + N * N], wq[D * D], wk[D * D];
    ar_rng rng;
    ar_rng_init(&rng, 3, 1, 4, 0);
    int steps = 0;
    for (int kind = AR_MASK_COMPLETE; kind <= AR_MASK_RANDOM; ++kind) {
        ar_mask_spec spec = {(ar_mask_kind)kind, N, 2, 2, 1, 0.2};
        ar_mask m;
        ar_mask_build(&spec, &rng, storage, &m);
        ar_rng_normals(&rng, x, N * D);
        ar_rng_normals(&rng, wq, D * D);
        ar_rng_normals(&rng, wk, D * D);
        ar_attention_map map = {&m, D, wq, wk, NULL, AR_NORM_NONE, kind == AR_MASK_COMPLETE};
        double top = 0;
        for (int i = 0; i < N * D; ++i)
            top = fabs(x[i]) > top ? fabs(x[i]) : top;
        for (int t = 0; t < 100; ++t, ++steps) {
            ar_attention_map_apply(&map, x, next, weights, work);
            for (int c = 0; c < D; ++c) {
                double lo0 = INFINITY, hi0 = -INFINITY, lo1 = INFINITY, hi1 = -INFINITY;
                for (int i = 0; i < N; ++i) {
                    lo0 = fmin(lo0, x[i * D + c]), hi0 = fmax(hi0, x[i * D + c]);
                    lo1 = fmin(lo1, next[i * D + c]), hi1 = fmax(hi1, next[i * D + c]);
                }
                CHECK(hi1 - lo1 <= hi0 - lo0 + 4 * N * DBL_EPSILON * top);
            }
            memcpy(x, next, sizeof x);
        }
    }
    printf("spreads: no column widened in %d steps over %d masks\n", steps, AR_MASK_RANDOM + 1);
}

/* The route is how_only: dense and edge-only runs draw the same trials, and every
 * value per trial agrees up to round-off. */
static void routes_agree(void)
{
    const char *base = "seed = 9; experiments = ( { name = \"r\"; simulator = \"mask_dynamics\"; trials = 10; "
                       "n = 40; d = 6; layers = %d; mask = \"window\"; w = 3; value = \"orthogonal\"; "
                       "route = \"%s\"; } );";
    char text[512];
    ar_spec dense, sparse;
    snprintf(text, sizeof text, base, LAYERS, "dense");
    load_spec(text, &dense);
    snprintf(text, sizeof text, base, LAYERS, "sparse");
    load_spec(text, &sparse);
    long values = 10 * ar_trials_values_per_trial(&dense.experiments[0], 0);
    double *a = malloc(values * sizeof *a), *b = malloc(values * sizeof *b);
    CHECK(ar_trials_point_values(&dense, &dense.experiments[0], 0, 1, a) == 0);
    CHECK(ar_trials_point_values(&sparse, &sparse.experiments[0], 0, 2, b) == 0);
    double worst = 0;
    for (long i = 0; i < values; ++i)
        if (isfinite(a[i]) || isfinite(b[i]))
            worst = fmax(worst, fabs(a[i] - b[i]) / fmax(fabs(a[i]), 1e-300));
    printf("routes: dense and edges-only values agree to %.2g (relative)\n", worst);
    CHECK(worst < 1e-9);
    free(a), free(b);
    ar_spec_free(&dense);
    ar_spec_free(&sparse);
}

int main(void)
{
    check_register_families();
    routes_agree();
    complete_faster_than_window();
    bound_in_every_trial();
    spreads_never_grow();
    return check_report("mask_claims");
}
