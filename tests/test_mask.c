/* mask: adjacency and radius of small masks worked out by hand; the theory module's
 * spanning-tree answer against breadth-first search; masked softmax rows (sum 1, zero
 * off the graph, exact on a one-edge row, finite at extreme temperatures); the edge-only
 * route equal to the dense one; the two-token causal example with LayerNorm. */
#include "attnrank/attention.h"
#include "attnrank/dynamics.h"
#include "masks/masks.h"
#include "attnrank/mask.h"
#include "attnrank/registry.h"
#include "attnrank/sim.h"
#include "attnrank/theory.h"
#include "check.h"

#include <stdlib.h>

static int storage[4096], work[4096];

static ar_mask build(ar_mask_kind kind, int n, int w, int stride, int globals, double p, ar_rng *rng)
{
    ar_mask_spec spec = {kind, n, w, stride, globals, p};
    CHECK(ar_mask_storage(&spec) <= sizeof storage / sizeof storage[0]);
    ar_mask m;
    ar_mask_build(&spec, rng, storage, &m);
    /* exact for fixed masks (counted row by row in O(1)), a bound for random ones */
    CHECK(kind == AR_MASK_RANDOM ? m.edges <= ar_mask_max_edges(&spec) : m.edges == ar_mask_max_edges(&spec));
    CHECK(ar_mask_radius_workspace(&m) <= sizeof work / sizeof work[0]);
    return m;
}

/* Row i of the mask lists exactly these columns. */
static void check_row(const ar_mask *m, int i, const int *cols, int count)
{
    CHECK(m->row_start[i + 1] - m->row_start[i] == count);
    for (int e = 0; e < count && e < m->row_start[i + 1] - m->row_start[i]; ++e)
        CHECK(m->column[m->row_start[i] + e] == cols[e]);
}

static void hand_cases(void)
{
    ar_rng rng;
    ar_rng_init(&rng, 1, 2, 3, 0);
    int root;
    /* window, n = 5, w = 1: a path; the middle token reaches both ends in 2 steps */
    ar_mask m = build(AR_MASK_WINDOW, 5, 1, 1, 0, 0, &rng);
    check_row(&m, 0, (int[]){0, 1}, 2);
    check_row(&m, 2, (int[]){1, 2, 3}, 3);
    check_row(&m, 4, (int[]){3, 4}, 2);
    CHECK(m.edges == 13);
    CHECK(ar_mask_radius(&m, &root, work) == 2 && root == 2);
    /* causal, n = 4: token 0 is seen by all */
    m = build(AR_MASK_CAUSAL, 4, 0, 1, 0, 0, &rng);
    check_row(&m, 3, (int[]){0, 1, 2, 3}, 4);
    CHECK(m.edges == 10 && ar_mask_radius(&m, &root, work) == 1 && root == 0);
    /* one-sided window, n = 5, w = 1: a chain from token 0, 4 steps */
    m = build(AR_MASK_CAUSAL_WINDOW, 5, 1, 1, 0, 0, &rng);
    check_row(&m, 0, (int[]){0}, 1);
    check_row(&m, 3, (int[]){2, 3}, 2);
    CHECK(ar_mask_radius(&m, &root, work) == 4 && root == 0);
    /* dilated, n = 6, w = 1, stride 2: even and odd tokens never meet */
    m = build(AR_MASK_DILATED, 6, 1, 2, 0, 0, &rng);
    check_row(&m, 2, (int[]){0, 2, 4}, 3);
    check_row(&m, 3, (int[]){1, 3, 5}, 3);
    CHECK(ar_mask_radius(&m, &root, work) == -1);
    /* global, n = 6, w = 0, one global token: a star through token 0 */
    m = build(AR_MASK_GLOBAL, 6, 0, 1, 1, 0, &rng);
    check_row(&m, 0, (int[]){0, 1, 2, 3, 4, 5}, 6);
    check_row(&m, 4, (int[]){0, 4}, 2);
    CHECK(m.edges == 16 && ar_mask_radius(&m, &root, work) == 1 && root == 0);
    /* complete, n = 3 */
    m = build(AR_MASK_COMPLETE, 3, 0, 1, 0, 0, &rng);
    CHECK(m.edges == 9 && ar_mask_radius(&m, &root, work) == 1);
    /* random: p = 0 leaves the self-loops only; p = 1 is complete */
    m = build(AR_MASK_RANDOM, 7, 0, 1, 0, 0.0, &rng);
    CHECK(m.edges == 7 && ar_mask_radius(&m, &root, work) == -1);
    m = build(AR_MASK_RANDOM, 7, 0, 1, 0, 1.0, &rng);
    CHECK(m.edges == 49 && ar_mask_radius(&m, &root, work) == 1);
}

/* The theory module's spanning-tree answer equals breadth-first search's. */
static void connectivity_matches_search(void)
{
    const ar_sim *sim = ar_sim_find("mask_dynamics");
    CHECK(sim != NULL);
    int pn = ar_sim_param_index(sim, "n"), pw = ar_sim_param_index(sim, "w"), ps = ar_sim_param_index(sim, "stride");
    int pg = ar_sim_param_index(sim, "globals"), pm = ar_sim_param_index(sim, "mask");
    int cases = 0;
    for (int kind = AR_MASK_COMPLETE; kind <= AR_MASK_GLOBAL; ++kind)
        for (int n = 1; n <= 10; n += 3)
            for (int w = 0; w <= 3; ++w)
                for (int stride = 1; stride <= 3; ++stride)
                    for (int globals = 0; globals <= 2 && globals <= n; ++globals) {
                        ar_point p;
                        ar_point_defaults(sim, &p);
                        p.value[pm] = kind, p.value[pn] = n, p.value[pw] = w, p.value[ps] = stride;
                        p.value[pg] = globals;
                        ar_mask m = build((ar_mask_kind)kind, n, w, stride, globals, 0, NULL);
                        int root, searched = ar_mask_radius(&m, &root, work) >= 0;
                        CHECK(ar_mask_connected(&p) == searched);
                        cases++;
                    }
    printf("spanning trees: theory equals search on %d masks\n", cases);
}

static void masked_softmax(void)
{
    enum { N = 9, D = 3 };
    double q[N * D], k[N * D], x[N * D], weights[N * N], dense_w[N * N], scores[N * N], sparse[N * D], dense[N * D];
    ar_rng rng;
    ar_rng_init(&rng, 5, 6, 7, 0);
    ar_rng_normals(&rng, q, N * D);
    ar_rng_normals(&rng, k, N * D);
    ar_rng_normals(&rng, x, N * D);
    for (int kind = AR_MASK_COMPLETE; kind <= AR_MASK_RANDOM; ++kind) {
        ar_mask m = build((ar_mask_kind)kind, N, 2, 2, 1, 0.3, &rng);
        for (int t = 0; t < 3; ++t) {
            double tau = t == 0 ? 1.0 : t == 1 ? 1e-300 : 1e300; /* ordinary, hardmax and uniform limits */
            double least = ar_masked_attention(&m, D, q, k, x, tau, 0, NULL, weights, sparse);
            double least_dense = ar_masked_attention(&m, D, q, k, x, tau, 1, scores, dense_w, dense);
            CHECK_NEAR(least, least_dense, 1e-12);
            double smallest = 1;
            for (int i = 0; i < N; ++i) {
                double sum = 0;
                for (int e = m.row_start[i]; e < m.row_start[i + 1]; ++e) {
                    CHECK(isfinite(weights[e]) && weights[e] >= 0);
                    CHECK_NEAR(weights[e], dense_w[e], 1e-12);
                    sum += weights[e];
                    smallest = weights[e] < smallest ? weights[e] : smallest;
                }
                CHECK_NEAR(sum, 1, 1e-14);
                if (m.row_start[i + 1] - m.row_start[i] == 1)
                    CHECK(weights[m.row_start[i]] == 1.0); /* one edge: exactly 1 */
                /* zeros off the graph: the dense route's A (left in scores) */
                for (int j = 0, e = m.row_start[i]; j < N; ++j) {
                    int edge = e < m.row_start[i + 1] && m.column[e] == j;
                    if (!edge)
                        CHECK(scores[i * N + j] == 0);
                    e += edge;
                }
            }
            CHECK(least == smallest);
            for (int i = 0; i < N * D; ++i)
                CHECK_NEAR(sparse[i], dense[i], 1e-12);
        }
    }
}

/* Two tokens, two dimensions, causal mask, LayerNorm onto the circle, W_V = diag(1/2, 1),
 * W_Q = W_K = 2 I: token 1 attends only to itself, so it runs a power iteration and
 * converges to (0, 1); token 2, starting below the axis, weighs itself more than token
 * 1 and converges to (0, -1): a different point, and the two never collapse. */
static void two_token_example(void)
{
    ar_rng rng;
    ar_rng_init(&rng, 0, 0, 0, 0);
    ar_mask m = build(AR_MASK_CAUSAL, 2, 0, 1, 0, 0, &rng);
    double wq[4] = {2, 0, 0, 2}, wv[4] = {0.5, 0, 0, 1};
    double x[4] = {0.6, 0.8, 0.6, -0.8}, next[4], weights[3], scratch[64];
    ar_attention_map map = {&m, 2, wq, wq, wv, AR_NORM_SPHERE, 0};
    CHECK(ar_attention_map_workspace(&map) <= 64);
    for (int t = 0; t < 200; ++t) {
        ar_attention_map_apply(&map, x, next, weights, scratch);
        CHECK(weights[0] == 1.0);
        memcpy(x, next, sizeof x);
    }
    printf("two-token example: token 1 -> (%.3g, %.12f), token 2 -> (%.3g, %.12f)\n", x[0], x[1], x[2], x[3]);
    CHECK_NEAR(x[0], 0, 1e-12);
    CHECK_NEAR(x[1], 1, 1e-12);
    CHECK_NEAR(x[2], 0, 1e-12);
    CHECK_NEAR(x[3], -1, 1e-12);
    ar_attention_map_apply(&map, x, next, weights, scratch);
    for (int i = 0; i < 4; ++i)
        CHECK_NEAR(next[i], x[i], 1e-14); /* an equilibrium */
    /* Standard LayerNorm: each row centred and scaled to unit variance. */
    double row[3] = {1, 2, 6};
    ar_rows_layernorm(1, 3, row, NULL);
    CHECK_NEAR(row[0] + row[1] + row[2], 0, 1e-15);
    CHECK_NEAR((row[0] * row[0] + row[1] * row[1] + row[2] * row[2]) / 3, 1, 1e-15);
    /* ...at extreme scales, on a constant row and on one token: finite, never NaN. The
     * sum of squares of 1e200-sized entries overflows; a constant row maps to zero. */
    double wild[4][3] = {{1e150, -2e150, 3e150}, {1e-300, 3e-300, -2e-300}, {5, 5, 5}, {0, 0, 0}};
    double sigma[4];
    ar_rows_layernorm(4, 3, &wild[0][0], sigma);
    for (int i = 0; i < 4; ++i)
        for (int c = 0; c < 3; ++c)
            CHECK(isfinite(wild[i][c]));
    CHECK_NEAR(wild[0][0] * wild[0][0] + wild[0][1] * wild[0][1] + wild[0][2] * wild[0][2], 3, 1e-12);
    CHECK(wild[2][0] == 0 && sigma[2] == 0 && wild[3][1] == 0);
    double sphere[3][2] = {{1e300, 1e300}, {1e-310, 0}, {0, 0}};
    ar_rows_to_sphere(3, 2, &sphere[0][0]);
    for (int i = 0; i < 3; ++i)
        CHECK(isfinite(sphere[i][0]) && isfinite(sphere[i][1]));
    CHECK_NEAR(sphere[1][0], 1, 1e-12); /* a subnormal row still has a direction */
    CHECK(sphere[2][0] == 0 && sphere[2][1] == 0);
}

/* The shape statistic behind M1 and M3 tells exponential decay from the ways a positive
 * slope can mislead: a power law, a drop followed by a plateau, no decay at all. */
static void decay_shapes(void)
{
    enum { T = 301 };
    double y[T];
    for (int t = 0; t < T; ++t)
        y[t] = exp(-0.03 * t);
    CHECK_NEAR(ar_decay_rate(T, y, 1e-10), 0.03, 1e-12);
    CHECK_NEAR(ar_decay_shape(T, y, 1e-10), 1.0, 1e-9);
    for (int t = 0; t < T; ++t) /* exponential with a fast transient: still exponential */
        y[t] = exp(-0.03 * t) + exp(-0.5 * t);
    CHECK(ar_decay_shape(T, y, 1e-10) > 0.7);
    for (int t = 0; t < T; ++t) /* a power law from t = 0: slowing, whatever its exponent */
        y[t] = pow(1 + t, -1.0);
    CHECK_NEAR(ar_decay_shape(T, y, 1e-10), 0.463, 0.001);
    for (int t = 0; t < T; ++t) /* the limit of the test: with an offset t0 >= T/30 a power law */
        y[t] = pow(1 + t / 10.0, -1.0); /* bends as little as an exponential with transients */
    CHECK_NEAR(ar_decay_shape(T, y, 1e-10), 0.522, 0.001);
    for (int t = 0; t < T; ++t) /* a drop, then a plateau: positive slope, not exponential */
        y[t] = t < 5 ? exp(-t) : exp(-5.0) * (1 + 1e-3 * sin(t));
    CHECK(ar_decay_rate(T, y, 1e-10) > 0 && ar_decay_shape(T, y, 1e-10) < 0.2);
    for (int t = 0; t < T; ++t) /* too little decay to tell: no value, not a pass */
        y[t] = exp(-0.005 * t);
    CHECK(isnan(ar_decay_shape(T, y, 1e-10)));
    for (int t = 0; t < T; ++t) /* growth */
        y[t] = 1e-3 * exp(0.01 * t);
    CHECK(isnan(ar_decay_shape(T, y, 1e-10)));
    for (int t = 0; t < T; ++t) /* round-off within three steps: at least exponential */
        y[t] = exp(-10.0 * t);
    CHECK(ar_decay_shape(T, y, 1e-10) == 1);
    CHECK(ar_decay_rate(T, y, 1e-10) > 9.9);
}

int main(void)
{
    check_register_families();
    hand_cases();
    decay_shapes();
    connectivity_matches_search();
    masked_softmax();
    two_token_example();
    return check_report("mask");
}
