/* masks: pure self-attention dynamics under attention masks, with or without
 * LayerNorm (claims M1-M3, Wu, Ajorlou, Wang, Jegelka, Jadbabaie, arXiv 2405.18781).
 *
 * X_{t+1} = N(A_G(X_t) X_t W_V), where A_G is softmax(X W_Q (X W_K)^T / sqrt(d)) over
 * the edges of the mask graph G (mask.h) and N is nothing, the paper's LayerNorm (each
 * row projected onto the unit sphere) or the standard one (centre, scale to unit
 * variance). W_Q, W_K, W_V are drawn once per trial and shared by all layers: the
 * dynamics is one map iterated, as in the paper. Per layer it measures
 * mu(X) = ||X - 1 mean(X)||_F (distance from the consensus subspace), mu / ||X||_F, the
 * numerical rank and the smallest attention weight on an edge; per trial the
 * exponential rate of mu / ||X||_F, the collapse layer, and with W_V = I and no
 * LayerNorm the collapse bound of M2 checked window by window. */
#include "attnrank/attention.h"
#include "attnrank/dynamics.h"
#include "attnrank/linalg.h"
#include "masks/masks.h"
#include "attnrank/mask.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


/* mu / ||X||_F below COLLAPSED counts as collapse; rates are fitted only while it is
 * above RATE_FLOOR, far from round-off. */
static const double COLLAPSED = 1e-6, RATE_FLOOR = 1e-10;

static const char *const inits[] = {[AR_MASKDYN_INIT_GAUSSIAN] = "gaussian", [AR_MASKDYN_INIT_ORTHONORMAL] = "orthonormal", [AR_MASKDYN_INIT_HEMISPHERE] = "hemisphere", NULL};
static const char *const values[] = {[AR_MASKDYN_VALUE_GAUSSIAN] = "gaussian", [AR_MASKDYN_VALUE_ORTHOGONAL] = "orthogonal", [AR_MASKDYN_VALUE_IDENTITY] = "identity", NULL};
static const char *const norms[] = {[AR_MASKDYN_NORM_NONE] = "none", [AR_MASKDYN_NORM_SPHERE] = "sphere", [AR_MASKDYN_NORM_LAYERNORM] = "layernorm", NULL};
static const char *const weight_kinds[] = {[AR_MASKDYN_WEIGHTS_SHARED] = "shared", [AR_MASKDYN_WEIGHTS_PER_LAYER] = "per_layer", NULL};
static const char *const routes[] = {[AR_MASKDYN_ROUTE_AUTO] = "auto", [AR_MASKDYN_ROUTE_DENSE] = "dense", [AR_MASKDYN_ROUTE_SPARSE] = "sparse", NULL};

static const ar_param params[] = {
    [AR_MASKDYN_N] = {"n", AR_PARAM_INT, 32, 2, 4096, 0, NULL, "tokens"},
    [AR_MASKDYN_D] = {"d", AR_PARAM_INT, 8, 1, 1024, 0, NULL, "width"},
    [AR_MASKDYN_LAYERS] = {"layers", AR_PARAM_INT, 60, 1, 5000, 0, NULL, "depth T: outputs are measured at layers 0..T; "
     "without a norm and with a Gaussian W_V, ||X_t|| leaves double range after some hundreds of layers: such trials "
     "fail (counted in failed, never averaged)"},
    [AR_MASKDYN_MASK] = {"mask", AR_PARAM_CHOICE, 0, 0, 0, 0, ar_mask_names,
     "complete, causal, window (|i-j| <= w), causal_window (i-w <= j <= i), dilated (|i-j| <= w stride, "
     "stride | i-j), global (window + the first `globals` tokens see and are seen by all), random (edges with "
     "probability p, drawn per trial); self-loops always"},
    [AR_MASKDYN_W] = {"w", AR_PARAM_INT, 2, 0, 4096, 0, NULL, "half-width of the window masks"},
    [AR_MASKDYN_STRIDE] = {"stride", AR_PARAM_INT, 2, 1, 4096, 0, NULL, "stride of the dilated mask"},
    [AR_MASKDYN_GLOBALS] = {"globals", AR_PARAM_INT, 1, 0, 4096, 0, NULL, "global tokens of the global mask"},
    [AR_MASKDYN_P] = {"p", AR_PARAM_REAL, 0.1, 0, 1, 0, NULL, "edge probability of the random mask"},
    [AR_MASKDYN_INIT] = {"init", AR_PARAM_CHOICE, AR_MASKDYN_INIT_GAUSSIAN, 0, 0, 0, inits,
     "X_0: iid N(0, 1/d) entries, orthonormal rows (n <= d), or unit rows in the hemisphere x_1 > 0"},
    [AR_MASKDYN_SCALE] = {"scale", AR_PARAM_REAL, 0, 0, 1e4, 0, NULL,
     "standard deviation of the logits x_i W_Q W_K^T x_j^T / sqrt(d) at unit-norm tokens: W_Q, W_K entries iid "
     "N(0, scale); 0 means 1/d, the usual N(0, 1/d) initialisation"},
    [AR_MASKDYN_VALUE] = {"value", AR_PARAM_CHOICE, AR_MASKDYN_VALUE_GAUSSIAN, 0, 0, 0, values,
     "W_V: iid N(0, 1/d) entries, Haar orthogonal, or the identity"},
    [AR_MASKDYN_NORM] = {"norm", AR_PARAM_CHOICE, AR_MASKDYN_NORM_NONE, 0, 0, 0, norms,
     "after each layer: nothing, rows onto the unit sphere (the paper's LayerNorm), or standard LayerNorm"},
    [AR_MASKDYN_ROUTE] = {"route", AR_PARAM_CHOICE, AR_MASKDYN_ROUTE_AUTO, 0, 0, 0, routes,
     "scores by one dense gemm, or at the edges only (auto: dense when edges > n^2/6); same draws, results "
     "agree up to round-off", 1},
    [AR_MASKDYN_WEIGHTS] = {"weights", AR_PARAM_CHOICE, AR_MASKDYN_WEIGHTS_SHARED, 0, 0, 0, weight_kinds,
     "shared: one W_Q, W_K, W_V for every layer (one map iterated, the paper's theory); per_layer: fresh ones "
     "at every layer (a randomly initialised deep model, the paper's Figure 2)"},
};

static ar_mask_spec mask_spec(const ar_point *p)
{
    return (ar_mask_spec){.kind = (ar_mask_kind)ar_point_choice(p, AR_MASKDYN_MASK),
                          .n = ar_point_int(p, AR_MASKDYN_N),
                          .half_width = ar_point_int(p, AR_MASKDYN_W),
                          .stride = ar_point_int(p, AR_MASKDYN_STRIDE),
                          .globals = ar_point_int(p, AR_MASKDYN_GLOBALS),
                          .probability = ar_point_real(p, AR_MASKDYN_P)};
}

static int check(const ar_point *p, char *why, size_t len)
{
    if (ar_point_choice(p, AR_MASKDYN_INIT) == AR_MASKDYN_INIT_ORTHONORMAL && ar_point_int(p, AR_MASKDYN_N) > ar_point_int(p, AR_MASKDYN_D)) {
        snprintf(why, len, "orthonormal rows need n <= d (n = %d, d = %d)", ar_point_int(p, AR_MASKDYN_N),
                 ar_point_int(p, AR_MASKDYN_D));
        return AR_MASKDYN_INIT;
    }
    if (ar_point_choice(p, AR_MASKDYN_MASK) == AR_MASK_GLOBAL && ar_point_int(p, AR_MASKDYN_GLOBALS) > ar_point_int(p, AR_MASKDYN_N)) {
        snprintf(why, len, "more global tokens (%d) than tokens (%d)", ar_point_int(p, AR_MASKDYN_GLOBALS),
                 ar_point_int(p, AR_MASKDYN_N));
        return AR_MASKDYN_GLOBALS;
    }
    return -1;
}

static int dense_route(const ar_point *p)
{
    int route = ar_point_choice(p, AR_MASKDYN_ROUTE);
    if (route != AR_MASKDYN_ROUTE_AUTO)
        return route == AR_MASKDYN_ROUTE_DENSE;
    ar_mask_spec s = mask_spec(p);
    return 6.0 * (double)ar_mask_max_edges(&s) > (double)s.n * s.n;
}

/* The collapse bound is exact for W_V = I without LayerNorm (convex combinations). */
static int bound_checked(const ar_point *p)
{
    return ar_point_choice(p, AR_MASKDYN_VALUE) == AR_MASKDYN_VALUE_IDENTITY && ar_point_choice(p, AR_MASKDYN_NORM) == AR_MASKDYN_NORM_NONE;
}

/* The a-priori epsilon bounds the logits of one W_Q, W_K: weights shared by the layers. */
static int apriori_checked(const ar_point *p)
{
    return bound_checked(p) && ar_point_choice(p, AR_MASKDYN_WEIGHTS) == AR_MASKDYN_WEIGHTS_SHARED;
}

static int per_layer(const ar_point *p) { return ar_point_int(p, AR_MASKDYN_LAYERS) + 1; }
static int per_step(const ar_point *p) { return ar_point_int(p, AR_MASKDYN_LAYERS); }
static int rank_max(const ar_point *p)
{
    int n = ar_point_int(p, AR_MASKDYN_N), d = ar_point_int(p, AR_MASKDYN_D);
    return n < d ? n : d;
}

/* Ranges (ar_output.range), each a fact of its measure. numrank: [0, min(n, d)], the
 * eigenvalues of an n x d matrix's Gram above a cut (0 only for X_t = 0). */
static void rank_range(const ar_point *p, double *lower, double *upper) { *lower = 0, *upper = rank_max(p); }
/* rate: minus the least-squares slope of ln mu_rel over layers 0..k-1, k >= 2, while
 * mu_rel >= RATE_FLOOR; mu_rel <= 1 (rounded: 1 + AR_RANGE_ROUNDING), so the k values lie
 * in an interval of width W = ln((1 + AR_RANGE_ROUNDING) / RATE_FLOOR), and a fitted
 * slope of values in such an interval is at most W in size (k = 2: their difference;
 * more layers weigh each value less). Room for the fit's rounding. */
static void rate_range(const ar_point *p, double *lower, double *upper)
{
    (void)p;
    *upper = log((1 + AR_RANGE_ROUNDING) / RATE_FLOOR) * (1 + AR_RANGE_ROUNDING), *lower = -*upper;
}
/* collapse_layer: a layer, 0..T */
static void layer_range(const ar_point *p, double *lower, double *upper) { *lower = 0, *upper = per_step(p); }
/* radius: the largest distance from the best root, 1..n - 1 for n >= 2 tokens */
static void radius_range(const ar_point *p, double *lower, double *upper)
{
    *lower = 1, *upper = ar_point_int(p, AR_MASKDYN_N) - 1;
}
/* edges: every token's self-loop, up to every pair: n..n^2 */
static void edges_range(const ar_point *p, double *lower, double *upper)
{
    double n = ar_point_int(p, AR_MASKDYN_N);
    *lower = n, *upper = n * n;
}

typedef struct {
    double *x, *next, *wq, *wk, *wv, *weights, *map_work, *sv, *svd_work, *haar_work;
    double *spread, *least; /* the bound check: spreads per layer and column, epsilon per step */
    double *product, *sv_product, *svd_product_work; /* the a-priori epsilon: W_Q W_K^T's norm */
    int *iwork;
    int *radius;       /* the fixed mask's radius (prepare) */
    int *mask_storage, *radius_work;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    ar_mask_spec spec = mask_spec(p);
    size_t n = (size_t)spec.n, d = (size_t)ar_point_int(p, AR_MASKDYN_D), layers = (size_t)ar_point_int(p, AR_MASKDYN_LAYERS);
    size_t edges = (size_t)ar_mask_max_edges(&spec), m = (size_t)rank_max(p), D = sizeof(double);
    int bound = bound_checked(p);
    ar_carver c = {base, 0};
    l->x = ar_carve(&c, n * d * D);
    l->next = ar_carve(&c, n * d * D);
    l->wq = ar_carve(&c, d * d * D);
    l->wk = ar_carve(&c, d * d * D);
    l->wv = ar_carve(&c, d * d * D);
    l->weights = ar_carve(&c, edges * D);
    l->map_work = ar_carve(&c, (3 * n * d + (dense_route(p) ? n * n : 0)) * D);
    l->sv = ar_carve(&c, m * D);
    l->svd_work = ar_carve(&c, ar_gram_eigenvalues_workspace((int)n, (int)d) * D);
    l->haar_work = ar_carve(&c, ar_haar_rows_workspace((int)(n > d ? n : d), (int)d) * D);
    l->spread = ar_carve(&c, bound ? (layers + 1) * d * D : 0);
    l->least = ar_carve(&c, bound ? layers * D : 0);
    l->product = ar_carve(&c, bound ? d * d * D : 0);
    l->sv_product = ar_carve(&c, bound ? d * D : 0);
    l->svd_product_work = ar_carve(&c, bound ? ar_singular_values_workspace((int)d, (int)d) * D : 0);
    l->iwork = ar_carve(&c, bound ? 8 * d * sizeof(int) : 0);
    l->radius = ar_carve(&c, sizeof(int));
    l->mask_storage = ar_carve(&c, ar_mask_storage(&spec) * sizeof(int));
    l->radius_work = ar_carve(&c, ar_mask_spec_radius_workspace(&spec) * sizeof(int));
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    ar_mask_spec s = mask_spec(p);
    double n = s.n, d = ar_point_int(p, AR_MASKDYN_D), layers = ar_point_int(p, AR_MASKDYN_LAYERS);
    double edges = (double)ar_mask_max_edges(&s), m = rank_max(p);
    double attention = dense_route(p) ? 4 * n * n * d + 20 * edges : 4 * edges * d + 20 * edges;
    return layers * (attention + 6 * n * d * d + 4 * n * d * m + 20 * n * d) + n * edges;
}

/* A fixed mask and its radius are functions of the point: build them once per thread
 * (the breadth-first search alone costs O(n edges) on a window). */
static void prepare(const ar_point *p, void *ws)
{
    ar_mask_spec spec = mask_spec(p);
    if (spec.kind == AR_MASK_RANDOM)
        return;
    layout l;
    carve(p, ws, &l);
    ar_mask mask;
    int root;
    ar_mask_build(&spec, NULL, l.mask_storage, &mask);
    *l.radius = ar_mask_radius(&mask, &root, l.radius_work);
}

/* iid N(0, sd^2) entries. */
static void gaussian(ar_rng *rng, double sd, double *out, size_t count)
{
    ar_rng_normals(rng, out, count);
    for (size_t i = 0; i < count; ++i)
        out[i] *= sd;
}

/* W_Q, W_K with iid N(0, sd^2) entries, and W_V of the point's family. */
static int draw_weights(ar_rng *rng, int value, int d, double sd, const layout *l)
{
    size_t dd = (size_t)d * d;
    gaussian(rng, sd, l->wq, dd);
    gaussian(rng, sd, l->wk, dd);
    if (value == AR_MASKDYN_VALUE_ORTHOGONAL) {
        ar_rng_normals(rng, l->wv, dd);
        return ar_haar_rows(d, d, l->wv, l->haar_work) != 0;
    }
    if (value == AR_MASKDYN_VALUE_GAUSSIAN)
        gaussian(rng, 1 / sqrt((double)d), l->wv, dd);
    return 0;
}

/* mu(X) = ||X - 1 mean(X)||_F, and ||X||_F. */
static void consensus_distance(int n, int d, const double *x, double *mu, double *norm)
{
    double spread, total;
    ar_consensus_sums(n, d, x, &spread, &total);
    *mu = sqrt(spread);
    *norm = sqrt(total);
}

/* Column spreads max_i x_ic - min_i x_ic. */
static void column_spreads(int n, int d, const double *x, double *spread)
{
    for (int c = 0; c < d; ++c) {
        double lo = x[c], hi = x[c];
        for (int i = 1; i < n; ++i) {
            double v = x[(size_t)i * d + c];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        spread[c] = hi - lo;
    }
}

/* Numerical rank from the Gram matrix's eigenvalues (the squared singular values):
 * those above 1e-12 of the largest, i.e. singular values above 1e-6 sigma_1. The Gram
 * route costs n d^2, not an SVD's, and resolves sigma down to about 1e-8 sigma_1, so
 * the cut sits well inside what it can see. */
static int numerical_rank(int n, int d, const double *x, const layout *l, double *rank)
{
    int m = n < d ? n : d;
    if (ar_gram_eigenvalues(n, d, x, l->sv, l->svd_work) != 0)
        return 1;
    double top = l->sv[m - 1];
    int count = 0;
    for (int i = 0; i < m; ++i)
        count += l->sv[i] > 1e-12 * top;
    *rank = top > 0 ? count : 0;
    return 0;
}

/* M2's bound, window by window: over any r consecutive layers each column's spread
 * falls to at most (1 - eps^r) of its value, eps the smallest edge weight in those
 * layers. Returns the largest ratio spread_{t+r} / ((1 - eps^r) spread_t) over the
 * windows and the columns whose spread is above 1e-8 of the initial largest one; the
 * numerator is first lowered by a round-off allowance of 4 r n DBL_EPSILON max|X_0|. */
static double bound_ratio(int layers, int d, int n, int radius, const double *spread, const double *least,
                          double max_abs)
{
    double top = 0, worst = NAN;
    for (int c = 0; c < d; ++c)
        top = spread[c] > top ? spread[c] : top;
    double allowance = 4.0 * radius * n * DBL_EPSILON * max_abs;
    for (int t = 0; t + radius <= layers; ++t) {
        double eps = 1;
        for (int s = t; s < t + radius; ++s)
            eps = least[s] < eps ? least[s] : eps;
        double contraction = 1 - pow(eps, radius);
        for (int c = 0; c < d; ++c) {
            double before = spread[(size_t)t * d + c], after = spread[(size_t)(t + radius) * d + c];
            if (before <= 1e-8 * top)
                continue;
            double ratio = (after - allowance) / (contraction * before);
            if (isnan(worst) || ratio > worst)
                worst = ratio;
        }
    }
    return worst;
}

/* Largest |x_i|. */
static double largest_entry(size_t count, const double *x)
{
    double top = 0;
    for (size_t i = 0; i < count; ++i)
        top = fabs(x[i]) > top ? fabs(x[i]) : top;
    return top;
}

/* Entries this size or smaller (but nonzero) square within double range however many
 * there are (n d <= 2^22): beyond them mu and ||X_t||_F overflow, or underflow to a false
 * consensus. */
static const double STATE_LARGEST = 1e150, STATE_SMALLEST = 1e-150;

static double row_square(int d, const double *row)
{
    double sum = 0;
    for (int c = 0; c < d; ++c)
        sum += row[c] * row[c];
    return sum;
}

/* The same bound with the a-priori eps, in logarithms so that a bound of 1 - 1e-40 is
 * not read as tight: the largest, over windows of r layers and columns, of the decay
 * it guarantees, -ln(1 - eps^r), over the decay achieved, -ln(spread_{t+r} / spread_t)
 * (numerator lowered by the round-off allowance). <= 1: the bound holds; its size says
 * how much of the real decay the bound accounts for. */
static double apriori_fraction(int layers, int d, int n, int radius, const double *spread, double eps,
                               double max_abs)
{
    double top = 0, worst = NAN, guaranteed = -log1p(-pow(eps, radius));
    for (int c = 0; c < d; ++c)
        top = spread[c] > top ? spread[c] : top;
    double allowance = 4.0 * radius * n * DBL_EPSILON * max_abs;
    for (int t = 0; t + radius <= layers; ++t)
        for (int c = 0; c < d; ++c) {
            double before = spread[(size_t)t * d + c], after = spread[(size_t)(t + radius) * d + c] - allowance;
            if (before <= 1e-8 * top)
                continue;
            double achieved = after > 0 ? -log(after / before) : INFINITY;
            double fraction = achieved > 0 ? guaranteed / achieved : guaranteed > 0 ? INFINITY : 0;
            if (isnan(worst) || fraction > worst)
                worst = fraction;
        }
    return worst;
}

/* The paper's epsilon, known before the run (W_V = I, no LayerNorm): every token stays
 * in the convex hull of X_0, so |x_i W_Q W_K^T x_j^T| / sqrt(d) <= C = R^2 ||W_Q W_K^T||_2
 * / sqrt(d), R the largest row norm of X_0, and a weight on an edge is at least
 * e^{-2C} / (the largest in-degree). */
static double apriori_epsilon(int d, const ar_mask *mask, double largest_row, const layout *l)
{
    ar_gemm_nt(d, d, d, l->wq, l->wk, l->product);
    if (ar_singular_values(d, d, l->product, l->sv_product, l->svd_product_work, l->iwork) != 0)
        return NAN;
    double c = largest_row * largest_row * l->sv_product[0] / sqrt((double)d);
    int degree = 1;
    for (int i = 0; i < mask->n; ++i)
        degree = mask->row_start[i + 1] - mask->row_start[i] > degree ? mask->row_start[i + 1] - mask->row_start[i] : degree;
    return exp(-2 * c) / degree;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    ar_mask_spec spec = mask_spec(p);
    int n = spec.n, d = ar_point_int(p, AR_MASKDYN_D), layers = ar_point_int(p, AR_MASKDYN_LAYERS), count = layers + 1;
    int value = ar_point_choice(p, AR_MASKDYN_VALUE), norm = ar_point_choice(p, AR_MASKDYN_NORM), bound = bound_checked(p);
    size_t nd = (size_t)n * d;
    /* out[] laid out by the output table (per-layer vectors, then the scalars) */
    double *mu = out + ar_output_offset(p, AR_MASKDYN_OUT_MU);
    double *mu_rel = out + ar_output_offset(p, AR_MASKDYN_OUT_MU_REL);
    double *rank = out + ar_output_offset(p, AR_MASKDYN_OUT_NUMRANK);
    double *least = out + ar_output_offset(p, AR_MASKDYN_OUT_MIN_WEIGHT);
    /* the scalars after the vectors, one value each: scalars[AR_MASKDYN_OUT_X] is output X */
    double *scalars = out + ar_output_offset(p, AR_MASKDYN_OUT_RATE) - AR_MASKDYN_OUT_RATE;

    ar_mask mask;
    int root, radius;
    if (spec.kind == AR_MASK_RANDOM) { /* a fresh graph every trial */
        ar_mask_build(&spec, rng, l.mask_storage, &mask);
        radius = ar_mask_radius(&mask, &root, l.radius_work);
    } else { /* built once per thread by prepare() */
        mask = (ar_mask){n, 0, l.mask_storage, l.mask_storage + n + 1};
        mask.edges = mask.row_start[n];
        radius = *l.radius;
    }

    switch (ar_point_choice(p, AR_MASKDYN_INIT)) {
    case AR_MASKDYN_INIT_ORTHONORMAL:
        ar_rng_normals(rng, l.x, nd);
        if (ar_haar_rows(n, d, l.x, l.haar_work) != 0)
            return 1;
        break;
    case AR_MASKDYN_INIT_HEMISPHERE:
        ar_rng_normals(rng, l.x, nd);
        for (int i = 0; i < n; ++i)
            l.x[(size_t)i * d] = fabs(l.x[(size_t)i * d]);
        ar_rows_to_sphere(n, d, l.x);
        break;
    default:
        gaussian(rng, 1 / sqrt((double)d), l.x, nd);
    }
    double sd = sqrt(ar_logit_scale(ar_point_real(p, AR_MASKDYN_SCALE), d)); /* logits' sd = sd^2 */
    if (draw_weights(rng, value, d, sd, &l))
        return 1;
    int fresh_weights = ar_point_choice(p, AR_MASKDYN_WEIGHTS) == AR_MASKDYN_WEIGHTS_PER_LAYER;
    ar_attention_map map = {.mask = &mask,
                            .d = d,
                            .wq = l.wq,
                            .wk = l.wk,
                            .wv = value == AR_MASKDYN_VALUE_IDENTITY ? NULL : l.wv,
                            .norm = (ar_norm_kind)norm,
                            .dense = dense_route(p)};
    double max_abs = largest_entry(nd, l.x), norm_x, largest_row = 0;
    for (int i = 0; i < n; ++i) /* R: tokens stay in the convex hull of X_0 (W_V = I) */
        largest_row = fmax(largest_row, sqrt(row_square(d, l.x + (size_t)i * d)));
    for (int t = 0;; ++t) {
        /* Without a norm ||X_t|| grows or shrinks geometrically (by about sigma_1(W_V) a
         * layer once collapsed): out of double range mu and ||X_t|| are lost (inf, NaN,
         * or 0 read as consensus). The trial fails (counted, never averaged) rather than
         * leave a NaN that a mean over the other trials would silently skip. */
        double top = largest_entry(nd, l.x);
        if (!(top <= STATE_LARGEST) || (top > 0 && top < STATE_SMALLEST))
            return 1;
        consensus_distance(n, d, l.x, &mu[t], &norm_x);
        mu_rel[t] = norm_x > 0 ? mu[t] / norm_x : 0;
        if (numerical_rank(n, d, l.x, &l, &rank[t]))
            return 1;
        if (bound)
            column_spreads(n, d, l.x, l.spread + (size_t)t * d);
        if (t == layers)
            break;
        if (fresh_weights && t > 0 && draw_weights(rng, value, d, sd, &l))
            return 1; /* a fresh layer: new W_Q, W_K, W_V (the map points at them) */
        least[t] = ar_attention_map_apply(&map, l.x, l.next, l.weights, l.map_work);
        if (bound)
            l.least[t] = least[t];
        double *swap = l.x;
        l.x = l.next;
        l.next = swap;
    }
    scalars[AR_MASKDYN_OUT_RATE] = ar_decay_rate(count, mu_rel, RATE_FLOOR);
    scalars[AR_MASKDYN_OUT_COLLAPSE_LAYER] = NAN;
    for (int t = 0; t < count; ++t)
        if (mu_rel[t] < COLLAPSED) {
            scalars[AR_MASKDYN_OUT_COLLAPSE_LAYER] = t;
            break;
        }
    scalars[AR_MASKDYN_OUT_COLLAPSED] = isnan(scalars[AR_MASKDYN_OUT_COLLAPSE_LAYER]) ? 0 : 1;
    scalars[AR_MASKDYN_OUT_BOUND_RATIO] =
        bound && radius > 0 ? bound_ratio(layers, d, n, radius, l.spread, l.least, max_abs) : NAN;
    scalars[AR_MASKDYN_OUT_APRIORI_FRACTION] = scalars[AR_MASKDYN_OUT_APRIORI_RATE] = NAN;
    if (apriori_checked(p) && radius > 0) {
        double eps = apriori_epsilon(d, &mask, largest_row, &l);
        scalars[AR_MASKDYN_OUT_APRIORI_FRACTION] = apriori_fraction(layers, d, n, radius, l.spread, eps, max_abs);
        scalars[AR_MASKDYN_OUT_APRIORI_RATE] = -log1p(-pow(eps, radius)) / radius;
    }
    scalars[AR_MASKDYN_OUT_RADIUS] = radius >= 0 ? radius : NAN;
    scalars[AR_MASKDYN_OUT_EDGES] = (double)mask.edges;
    scalars[AR_MASKDYN_OUT_RATE_RATIO] = ar_decay_shape(count, mu_rel, RATE_FLOOR);
    return 0;
}

static const ar_output outputs[] = {
    [AR_MASKDYN_OUT_MU] = {"mu", "mu(X_t) = ||X_t - 1 mean(X_t)||_F, distance from the consensus (rank-one) subspace, per layer", NULL,
     NULL, per_layer, "layer", .range = ar_range_nonnegative},
    [AR_MASKDYN_OUT_MU_REL] = {"mu_rel", "mu(X_t) / ||X_t||_F per layer", NULL, NULL, per_layer, "layer",
     .range = ar_range_unit_rounded /* mu is the norm of X_t's part off the consensus */},
    [AR_MASKDYN_OUT_NUMRANK] = {"numrank", "numerical rank of X_t per layer: singular values above 1e-6 sigma_1 (from the Gram matrix)", NULL, NULL, per_layer,
     "layer",
     .definition = "singular values of X_t above 1e-6 sigma_1, from the eigenvalues of the Gram matrix",
     .range = rank_range},
    [AR_MASKDYN_OUT_MIN_WEIGHT] = {"min_weight", "epsilon_t: the smallest attention weight on an edge of the mask at step t -> t+1", NULL, NULL,
     per_step, "step", .range = ar_range_unit_rounded},
    [AR_MASKDYN_OUT_RATE] = {"rate", "exponential collapse rate: -slope of log(mu_rel) against the layer while mu_rel >= 1e-10",
     .range = rate_range},
    [AR_MASKDYN_OUT_COLLAPSE_LAYER] = {"collapse_layer", "first layer with mu_rel < 1e-6 (NaN if none within the run)",
     .range = layer_range},
    [AR_MASKDYN_OUT_COLLAPSED] = {"collapsed", "1 if mu_rel fell below 1e-6 within the run, else 0", .range = ar_range_unit},
    [AR_MASKDYN_OUT_BOUND_RATIO] = {"bound_ratio", "largest spread_{t+r} / ((1 - eps^r) spread_t) over windows of r = radius layers and "
                    "columns (W_V = identity, no LayerNorm; M2's bound says <= 1)",
     NULL, bound_checked /* no range: the round-off allowance can take it below 0 */},
    [AR_MASKDYN_OUT_RADIUS] = {"radius", "radius of the mask graph from its best root (NaN: no directed spanning tree)",
     .range = radius_range},
    [AR_MASKDYN_OUT_EDGES] = {"edges", "edges of the mask graph, self-loops included", .range = edges_range},
    [AR_MASKDYN_OUT_APRIORI_FRACTION] = {"apriori_fraction", "M2's bound with the paper's a-priori epsilon = e^{-2C} / (largest in-degree), "
                "C = R^2 ||W_Q W_K^T||_2 / sqrt(d), R the largest row norm of X_0: the largest, over windows of r layers "
                "and columns, of the log-decay it guarantees over the log-decay achieved (<= 1: it holds)", NULL, apriori_checked,
     .range = ar_range_nonnegative /* a guaranteed decay >= 0 over an achieved one > 0, else 0 or infinity */},
    [AR_MASKDYN_OUT_APRIORI_RATE] = {"apriori_rate", "the per-layer collapse rate that bound guarantees, -ln(1 - epsilon^r) / r", NULL,
     apriori_checked, .range = ar_range_nonnegative /* epsilon in (0, 1] */},
    [AR_MASKDYN_OUT_RATE_RATIO] = {"rate_ratio", "rate fitted on the second half of the decay window (layers with mu_rel >= 1e-10) over the "
                   "rate on the whole window: 1 for exponential decay, near 0 for a plateau, 0 without decay "
                   "(NaN if the floor is reached within 6 layers)" /* no range: late / overall grows without
                   bound as the whole window's rate nears 0 */},
};

const ar_sim ar_sim_mask_dynamics = {
    .name = "mask_dynamics",
    .summary = "self-attention dynamics X_{t+1} = A_G(X_t) X_t W_V under a mask graph G, with or without LayerNorm",
    AR_SIM_TABLES(params, outputs),
    .check = check,
    .workspace_bytes = workspace,
    .prepare = prepare,
    .cost = cost,
    .trial = trial,
};
