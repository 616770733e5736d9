/* The end-state classifier and the equilibrium certificate (equilibrium.h) on states
 * whose class is known: consensus and antipodal states (collapsed), frozen states with
 * underflowing weights and hemisphere states under W_V = I (metastable), and the
 * two-token construction of Figure 1's setting, whose fixed points are known in
 * closed form: one attracts (certified), the other repels (unsettled); a state near a
 * slow node with a saddle close by, which a certificate of the node alone would pass
 * but which collapses (the referee's example); then a run of ln_equilibria where no
 * trial with a weight below the floor may count as escape. */
#include "attnrank/equilibrium.h"
#include "masks/masks.h"
#include "check.h"
#include "support.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

static void *workspace(int n, int d) { return calloc(1, ar_equilibrium_workspace(n, d)); }

static void complete_mask(int n, int *storage, ar_mask *mask)
{
    ar_mask_spec spec = {AR_MASK_COMPLETE, n, 0, 1, 0, 0};
    ar_mask_build(&spec, NULL, storage, mask);
}

/* Two tokens under the causal mask with W_Q = W_K = 0: the second row's weights are
 * 1/2 and 1/2. storage: 7 ints. */
static ar_attention_map two_tokens_uniform(int *storage, ar_mask *mask, const double *wv)
{
    static const double zero[4] = {0};
    ar_mask_spec spec = {AR_MASK_CAUSAL, 2, 0, 1, 0, 0};
    ar_mask_build(&spec, NULL, storage, mask);
    return (ar_attention_map){mask, 2, zero, zero, wv, AR_NORM_SPHERE, 1};
}

static void collapsed_states(void)
{
    enum { N = 4, D = 3 };
    int storage[N * N + N + 1];
    ar_mask mask;
    complete_mask(N, storage, &mask);
    double wq[D * D] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, x[N * D];
    ar_attention_map map = {&mask, D, wq, wq, NULL, AR_NORM_SPHERE, 1};
    void *work = workspace(N, D);
    ar_equilibrium eq;
    for (int i = 0; i < N; ++i) /* consensus */
        x[i * D] = 0.6, x[i * D + 1] = 0.8, x[i * D + 2] = 0;
    CHECK(ar_classify_end_state(&map, x, 1, 1, 1e-4, &eq, work) == AR_END_COLLAPSED);
    for (int i = 0; i < N; ++i) /* +-u: rank one, not consensus */
        x[i * D] = i % 2 ? 0.6 : -0.6, x[i * D + 1] = i % 2 ? 0.8 : -0.8;
    CHECK(ar_classify_end_state(&map, x, 1, 1, 1e-4, &eq, work) == AR_END_COLLAPSED);
    free(work);
}

/* Orthonormal tokens under sharp attention (logits 200 apart): the off-diagonal
 * weights are near e^-200 / ... far below the floor. The state hardly moves in double
 * precision, yet it is not an equilibrium worth the name. */
static void frozen_state_is_metastable(void)
{
    enum { N = 4, D = 4 };
    int storage[N * N + N + 1];
    ar_mask mask;
    complete_mask(N, storage, &mask);
    double wq[D * D] = {0}, x[N * D] = {0}, next[N * D], weights[N * N], map_work[3 * N * D + N * N];
    for (int i = 0; i < D; ++i)
        wq[i * D + i] = sqrt(200.0 * 2); /* logits x_i W W^T x_j / sqrt(d) = 200 on the diagonal */
    for (int i = 0; i < N; ++i)
        x[i * D + i] = 1;
    ar_attention_map map = {&mask, D, wq, wq, NULL, AR_NORM_SPHERE, 1};
    void *work = workspace(N, D);
    ar_equilibrium eq;
    double least = ar_min_attention_weight(&map, x);
    printf("frozen: smallest weight %.3g, residual of one step %.3g\n", least,
           (ar_attention_map_apply(&map, x, next, weights, map_work), fabs(next[0] - x[0])));
    CHECK(least < 1e-80);
    CHECK(ar_classify_end_state(&map, x, 1, 1, 1e-4, &eq, work) == AR_END_METASTABLE);
    free(work);
}

/* Tokens in the open hemisphere x_1 > 0 with W_V = I and mild attention (every weight
 * above the floor): M3 says they collapse, so a not yet collapsed state is metastable;
 * the same state with a non-isometric W_V is not judged by that rule. */
static void hemisphere_state_is_metastable(void)
{
    enum { N = 5, D = 3 };
    int storage[N * N + N + 1];
    ar_mask mask;
    complete_mask(N, storage, &mask);
    double wq[D * D] = {0.3, 0, 0, 0, 0.3, 0, 0, 0, 0.3}, x[N * D], hull_work[6 * 6 + 3 * 6 + D] /* up to 6 points */;
    ar_rng rng;
    ar_rng_init(&rng, 11, 0, 0, 0);
    ar_rng_normals(&rng, x, N * D);
    for (int i = 0; i < N; ++i)
        x[i * D] = fabs(x[i * D]) + 0.1;
    ar_rows_to_sphere(N, D, x);
    CHECK(ar_open_hemisphere(N, D, x, hull_work) == 1);
    ar_attention_map map = {&mask, D, wq, wq, NULL, AR_NORM_SPHERE, 1};
    void *work = workspace(N, D);
    ar_equilibrium eq;
    CHECK(ar_min_attention_weight(&map, x) > 1e-3);
    CHECK(ar_classify_end_state(&map, x, 1, 1, 1e-4, &eq, work) == AR_END_METASTABLE);
    CHECK(ar_classify_end_state(&map, x, 0, 1, 1e-4, &eq, work) != AR_END_METASTABLE);
    /* Gordan's alternative: +-e_1 and the cross-polytope are in no open hemisphere. */
    double antipodal[2 * D] = {1, 0, 0, -1, 0, 0}, cross[6 * D] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
    CHECK(ar_open_hemisphere(2, D, antipodal, hull_work) == 0);
    CHECK(ar_open_hemisphere(6, D, cross, hull_work) == 0);
    free(work);
}

/* Two tokens, d = 2, causal mask, W_Q = W_K = 0 (uniform weights 1/2 on the second row)
 * and W_V = [[1/2, 2], [0, 1]]: token 1 is fixed at e_2, and token 2 = (c, s) is fixed
 * where (c/4, (2c + 1 + s)/2) is a positive multiple of (c, s): on the line
 * -s/2 - 2c = 1, at s = (-1 +- sqrt(52)) / 8.5. */
static void two_token_fixed_points(void)
{
    enum { N = 2, D = 2 };
    int storage[N * N + N + 1];
    ar_mask mask;
    double wv[D * D] = {0.5, 2, 0, 1};
    ar_attention_map map = two_tokens_uniform(storage, &mask, wv);
    void *work = workspace(N, D);
    int attracting = 0, repelling = 0;
    for (int root = 0; root < 2; ++root) {
        double s = (-1 + (root ? -1 : 1) * sqrt(52.0)) / 8.5, c = -(1 + s / 2) / 2;
        double x[N * D] = {0, 1, c, s}, exact[N * D] = {0, 1, c, s};
        ar_equilibrium eq;
        CHECK(ar_equilibrium_certify(&map, x, &eq, work) == 0);
        double moved = 0;
        for (int i = 0; i < N * D; ++i)
            moved = fmax(moved, fabs(x[i] - exact[i]));
        printf("two tokens, B = (%.6f, %.6f): residual %.2g, moved %.2g, kantorovich %.2g, radius %.6f (bound %.6f), "
               "rank %.0f, smallest weight %.2g, certified %d\n",
               c, s, eq.residual, moved, eq.kantorovich, eq.radius, eq.radius_bound, eq.rank, eq.min_weight, eq.certified);
        CHECK(eq.exists && eq.residual < 1e-15 && moved < 1e-14 && eq.rank == 2 && eq.min_weight == 0.5);
        CHECK(eq.radius_bound - eq.radius < 1e-6); /* the margin is small where the state is clean */
        attracting += eq.certified, repelling += !eq.attracting && eq.radius > 1;
        ar_equilibrium near;
        ar_end_state state = ar_classify_end_state(&map, exact, 0, 1, 1e-4, &near, work);
        CHECK(state == (eq.certified ? AR_END_CERTIFIED : AR_END_UNSETTLED));
    }
    CHECK(attracting == 1 && repelling == 1);
    free(work);
}

/* Two tokens, causal mask, uniform attention, W_V = L^{-1} diag(1, r) L with L's rows
 * (1, 0) and (c, s), s = (1 - r)(1 - 1e-9): token 2 has a node and a saddle 9e-5 apart,
 * and the node attracts with radius 1 - 4.5e-5. Rotating token 1 by 3e-5 leaves the
 * residual below 1e-4 and Newton returns to the node, yet the map takes that state to
 * collapse: token 1 relaxes slowly (rate 0.99) and token 2 slides past the saddle
 * meanwhile. The contracting-ball test must reject it. */
static void slow_node_near_a_saddle(void)
{
    enum { N = 2, D = 2 };
    int storage[N * N + N + 1];
    ar_mask mask;
    double r = 0.99, s = (1 - r) * (1 - 1e-9), c = sqrt(1 - s * s);
    double inverse[4] = {1, 0, -c / s, 1 / s}, scaled[4], l[4] = {1, 0, c, s}, wv[4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            scaled[i * 2 + j] = inverse[i * 2 + j] * (j == 0 ? 1 : r); /* L^{-1} diag(1, r) */
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wv[i * 2 + j] = scaled[i * 2] * l[j] + scaled[i * 2 + 1] * l[2 + j];
    ar_attention_map map = two_tokens_uniform(storage, &mask, wv);
    void *work = workspace(N, D);
    double a = -1 / (1 - r), disc = a * a * c * c - (a * a - 1), node[4] = {0};
    int nodes = 0;
    for (int k = 0; k < 2; ++k) {
        double b = -a * c + (k ? -1 : 1) * sqrt(disc), x[4] = {1, 0, a + b * c, b * s};
        ar_equilibrium eq;
        ar_equilibrium_certify(&map, x, &eq, work);
        if (eq.certified)
            memcpy(node, x, sizeof node), nodes++;
    }
    CHECK(nodes == 1);
    double shift = 3e-5, start[4] = {cos(shift), -sin(shift), node[2], node[3]}, x[4], next[4], weights[4], map_work[3 * N * D + N * N];
    ar_equilibrium eq;
    ar_end_state state = ar_classify_end_state(&map, start, 0, 1, 1e-4, &eq, work);
    memcpy(x, start, sizeof x);
    for (int t = 0; t < 2000; ++t) {
        ar_attention_map_apply(&map, x, next, weights, map_work);
        memcpy(x, next, sizeof x);
    }
    ar_equilibrium later;
    ar_end_state after = ar_classify_end_state(&map, x, 0, 1, 1e-4, &later, work);
    printf("slow node, saddle 9e-5 away: start %.2g from the node, radius bound %.8f, class %d; after 2000 layers "
           "class %d\n", eq.distance, eq.radius_bound, state, after);
    CHECK(eq.attracting && eq.distance < 1e-4 && !eq.basin);
    CHECK(state == AR_END_UNSETTLED && after == AR_END_COLLAPSED);
    free(work);
}

/* The family's rank-1 state (every token at e_1, W_V = diag(1, 1 - 1/(2d), ...), W_Q =
 * W_K = c I) attracts: rho(J) = ||J||_2 = 1 - 1/(2d) (50-digit Jacobian), but J has a
 * defective zero eigenvalue, so kappa(V) is whatever LAPACK's rounding makes it (1e17 at
 * c = 0 here, 3 at c^2 = 1 on this machine, more on another core) and Bauer-Fike alone
 * called it non-attracting at n = d = 4 (the case: scale 1). The power bound
 * must decide it at every scale, within 1e-6 of rho. */
static void defective_rank_one_attracts(void)
{
    enum { N = 4, D = 4 };
    int storage[N * N + N + 1];
    ar_mask mask;
    complete_mask(N, storage, &mask);
    void *work = workspace(N, D);
    static const double scales[] = {0, 0.25, 1, 4};
    for (int t = 0; t < 4; ++t) {
        double wq[D * D] = {0}, wv[D * D] = {0}, x[N * D] = {0};
        for (int i = 0; i < D; ++i)
            wq[i * D + i] = sqrt(scales[t]), wv[i * D + i] = 1 - i / (2.0 * D);
        for (int i = 0; i < N; ++i)
            x[i * D] = 1;
        ar_attention_map map = {&mask, D, wq, wq, wv, AR_NORM_SPHERE, 1};
        ar_equilibrium eq;
        CHECK(ar_equilibrium_certify(&map, x, &eq, work) == 0);
        printf("rank 1 at scale %g: radius %.9f, bound %.9f, kappa(V) %.3g\n", scales[t], eq.radius, eq.radius_bound,
               eq.condition);
        CHECK(eq.exists && fabs(eq.radius - 0.875) < 1e-9);
        CHECK(eq.attracting && eq.radius_bound < 0.875 + 1e-6);
    }
    free(work);
}

/* The closed form (theory/NOTES.md): W_Q = W_K = sqrt(scale) I, W_V = diag(1, 1 - 1/(2d),
 * ..., (d + 1)/(2d)), two tokens (+-c, s) on the first and last axes are fixed iff
 * tanh(beta c^2) = (d + 1)/(2d), beta = scale / sqrt(d). Where that has a root the pair
 * is certified at rank 2 and Newton does not move it; it repels (rho 1.35 to 2.37 by a
 * 50-digit Jacobian at these points). Its thresholds: scale 1.376, 1.466, 1.800. */
static void pair_closed_form(void)
{
    static const int widths[] = {2, 4, 8};
    static const double scales[] = {2, 4, 16}, thresholds[] = {1.37597, 1.46634, 1.80025};
    for (int w = 0; w < 3; ++w) {
        int d = widths[w], storage[2 * 2 + 2 + 1];
        ar_mask mask;
        complete_mask(2, storage, &mask);
        double ratio = (d + 1.0) / (2 * d), threshold = sqrt((double)d) * atanh(ratio);
        CHECK(fabs(threshold - thresholds[w]) < 1e-5);
        void *work = workspace(2, d);
        for (int t = 0; t < 3; ++t) {
            double wq[64] = {0}, wv[64] = {0}, x[16] = {0}, exact[16];
            for (int i = 0; i < d; ++i)
                wq[i * d + i] = sqrt(scales[t]), wv[i * d + i] = 1 - i / (2.0 * d);
            double beta = scales[t] / sqrt((double)d), c = sqrt(atanh(ratio) / beta), s = sqrt(1 - c * c);
            x[0] = c, x[d - 1] = s, x[d] = -c, x[2 * d - 1] = s;
            memcpy(exact, x, sizeof exact);
            ar_attention_map map = {&mask, d, wq, wq, wv, AR_NORM_SPHERE, 1};
            ar_equilibrium eq;
            CHECK(ar_equilibrium_certify(&map, x, &eq, work) == 0);
            double moved = 0;
            for (int i = 0; i < 2 * d; ++i)
                moved = fmax(moved, fabs(x[i] - exact[i]));
            printf("pair d = %d, scale %g: c = %.6f, residual %.2g, moved %.2g, rank %.0f, radius %.4f\n", d, scales[t], c,
                   eq.residual, moved, eq.rank, eq.radius);
            CHECK(eq.exists && eq.rank == 2 && moved < 1e-14 && eq.min_weight >= AR_WEIGHT_FLOOR);
            CHECK(eq.radius > 1.3 && !eq.attracting);
        }
        free(work);
    }
}

/* The family's count of certified ranks 1..min(n, d) (ln_equilibria, value = family) in
 * every trial of one point: cross-polytopes up to n/2, sign-flip orbits above. */
static double family_certified(const char *point, long *trials)
{
    char text[512];
    snprintf(text, sizeof text, "seed = 3; experiments = ( { name = \"f\"; simulator = \"ln_equilibria\"; trials = 2; "
             "value = \"family\"; layers = 1; %s } );", point);
    ar_spec spec;
    load_spec(text, &spec);
    const ar_experiment *x = &spec.experiments[0];
    *trials = x->trials;
    double *v = malloc((size_t)x->trials * ar_trials_values_per_trial(x, 0) * sizeof *v), least = INFINITY;
    CHECK(ar_trials_point_values(&spec, x, 0, 1, v) == 0);
    for (long t = 0; t < x->trials; ++t)
        least = fmin(least, v[AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED * x->trials + t]);
    free(v);
    ar_spec_free(&spec);
    return least;
}

/* Ranks above n/2 with the one W_V (the cases): every rank 1..8 at n = d = 8,
 * scale 16; ranks 1..3 at n = 4, d = 8 at the default scale 1/8 (the tetrahedron-like
 * orbit; rank 4 needs scale >= 6); ranks 1..4 at n = d = 4, scale 8; at n = 2 the pair
 * above its threshold only. */
static void family_ranks_above_half(void)
{
    long trials;
    double all8 = family_certified("n = 8; d = 8; scale = 16.0;", &trials);
    double three = family_certified("n = 4; d = 8;", &trials), four = family_certified("n = 4; d = 4; scale = 8.0;", &trials);
    double below = family_certified("n = 2; d = 8; scale = 1.7;", &trials), above = family_certified("n = 2; d = 8; scale = 1.9;", &trials);
    printf("family: %g ranks of 8 at n = d = 8, scale 16; %g of 4 at n = 4, d = 8, scale 1/8; %g of 4 at n = d = 4, scale 8; "
           "n = 2, d = 8: %g at scale 1.7, %g at 1.9\n", all8, three, four, below, above);
    CHECK(all8 == 8 && three == 3 && four == 4 && below == 1 && above == 2);
}

/* ln_equilibria with W_V = I at sharp attention: many starts freeze, none may count as
 * escape; with any weight below the floor a trial is never escaped. */
static void no_escape_below_the_floor(void)
{
    ar_spec spec;
    load_spec("seed = 5; experiments = ( { name = \"e\"; simulator = \"ln_equilibria\"; trials = 60; n = 4; "
              "d = 4; value = \"identity\"; scale = 30.0; layers = 400; } );",
              &spec);
    const ar_experiment *x = &spec.experiments[0];
    long trials = x->trials;
    double *v = malloc((size_t)trials * ar_trials_values_per_trial(x, 0) * sizeof *v);
    CHECK(ar_trials_point_values(&spec, x, 0, 2, v) == 0);
    const double *escaped = v + AR_EQUILIBRIA_OUT_ESCAPED * trials, *metastable = v + AR_EQUILIBRIA_OUT_METASTABLE * trials;
    const double *least = v + AR_EQUILIBRIA_OUT_END_MIN_WEIGHT * trials;
    long frozen = 0, escapes = 0, classes = 0;
    for (long t = 0; t < trials; ++t) {
        frozen += least[t] < AR_WEIGHT_FLOOR;
        escapes += escaped[t] == 1;
        CHECK(!(least[t] < AR_WEIGHT_FLOOR && escaped[t] == 1));
        classes += (long)(v[AR_EQUILIBRIA_OUT_COLLAPSED * trials + t] + metastable[t] + escaped[t] +
                          v[AR_EQUILIBRIA_OUT_UNSETTLED * trials + t]);
    }
    printf("identity W_V at scale 30: %ld of %ld trials frozen below the floor, %ld escaped\n", frozen, trials, escapes);
    CHECK(frozen > 0 && escapes == 0 && classes == trials); /* one class per trial */
    free(v);
    ar_spec_free(&spec);
}

int main(void)
{
    check_register_families();
    collapsed_states();
    frozen_state_is_metastable();
    hemisphere_state_is_metastable();
    two_token_fixed_points();
    slow_node_near_a_saddle();
    defective_rank_one_attracts();
    pair_closed_form();
    family_ranks_above_half();
    no_escape_below_the_floor();
    return check_report("equilibrium");
}
