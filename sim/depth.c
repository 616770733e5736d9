/* depth: rank collapse in depth (claim S6, "Mind the Gap").
 *
 * X_0 (n x d) has iid N(0, 1/d) entries (rows of norm about 1); each of L layers draws a
 * fresh random Markov matrix A_l, or key-query attention A_l(X_l) (either with the gap
 * removed, A_l - 11^T/n, if asked), and W_l (d x d, iid N(0, 1/d)) and
 * sets X_{l+1} = A_l X_l W_l, optionally with a skip connection (X_l + ..., or the
 * "upscaled" X_l + .../sqrt(d)) and LayerNorm (each row centred and scaled to unit
 * variance). Per layer it measures the stable rank of X_l, the mean |cosine| between
 * its tokens and ||X_l||_F. With the gap the tokens align within a few layers (stable
 * rank -> 1, |cos| -> 1); removing the gap slows that. Without skip and LayerNorm the
 * stack is linear in each W_l and ||dX_L/dW_l||_F has a closed form (gradient.h). */
#include "attnrank/attention.h"
#include "attnrank/gradient.h"
#include "attnrank/linalg.h"
#include "attnrank/markov.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>

enum { P_N, P_D, P_LAYERS, P_ENTRIES, P_GAP, P_NORM, P_SKIP, P_ATTENTION, P_SCALE };
enum { ATTENTION_MARKOV, ATTENTION_KEYQUERY };
enum { NORM_NONE, NORM_LAYERNORM };
enum { SKIP_NONE, SKIP_PLAIN, SKIP_UPSCALED };

static const char *const laws[] = {"lognormal", "exponential", "uniform", NULL}; /* markov_spectrum's order */
static const char *const gaps[] = {"keep", "remove", NULL};
static const char *const norms[] = {"none", "layernorm", NULL};
static const char *const skips[] = {"none", "plain", "upscaled", NULL};
static const char *const attentions[] = {"markov", "keyquery", NULL};

static const ar_param params[] = {
    {"n", AR_PARAM_INT, 64, 2, 4096, 0, NULL, "tokens"},
    {"d", AR_PARAM_INT, 0, 0, 4096, 0, NULL, "width; 0 means d = n"},
    {"layers", AR_PARAM_INT, 16, 1, 1000, 0, NULL, "depth L: outputs are measured at layers 0..L"},
    {"entries", AR_PARAM_CHOICE, 0, 0, 0, 0, laws, "law of A_l's entries before row normalisation"},
    {"gap", AR_PARAM_CHOICE, 0, 0, 0, 0, gaps, "keep: A_l; remove: A_l - 11^T/n"},
    {"norm", AR_PARAM_CHOICE, NORM_NONE, 0, 0, 0, norms, "layernorm: centre and scale each token after a layer"},
    {"skip", AR_PARAM_CHOICE, SKIP_NONE, 0, 0, 0, skips,
     "none: A X W; plain: X + A X W; upscaled: X + A X W / sqrt(d)"},
    {"attention", AR_PARAM_CHOICE, ATTENTION_MARKOV, 0, 0, 0, attentions,
     "markov: a fresh random Markov A_l per layer (entries); keyquery: A_l = softmax(X_l W_Q (X_l W_K)^T / "
     "sqrt(d)) with fresh W_Q, W_K of iid N(0, scale^2 / d) entries"},
    {"scale", AR_PARAM_REAL, 1, 0, 1e3, 1, NULL, "key-query weights' scale (attention = keyquery)"},
};

static int width_of(const ar_point *p)
{
    int d = ar_point_int(p, P_D);
    return d == 0 ? ar_point_int(p, P_N) : d;
}

static int per_layer(const ar_point *p) { return ar_point_int(p, P_LAYERS) + 1; }
static int per_weight(const ar_point *p) { return ar_point_int(p, P_LAYERS); }
/* The plain linear stack, where ||dX_L/dW_l||_F has a closed form (gradient.h). */
static int linear_stack(const ar_point *p)
{
    return ar_point_choice(p, P_SKIP) == SKIP_NONE && ar_point_choice(p, P_NORM) == NORM_NONE &&
           ar_point_choice(p, P_ATTENTION) == ATTENTION_MARKOV;
}

typedef struct {
    double *x, *y, *w, *a, *gram, *unit, *start, *lanczos;
    double *a_stack, *y_stack, *w_stack, *gradient_work; /* linear stack: every layer kept */
    double *wq, *wk, *q, *k;                                /* key-query attention */
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    size_t n = (size_t)ar_point_int(p, P_N), d = (size_t)width_of(p);
    const size_t D = sizeof(double);
    ar_carver c = {base, 0};
    l->x = ar_carve(&c, n * d * D);
    l->y = ar_carve(&c, n * d * D);
    l->w = ar_carve(&c, d * d * D);
    l->a = ar_carve(&c, n * n * D);
    l->gram = ar_carve(&c, n * n * D);
    l->unit = ar_carve(&c, n * d * D);
    l->start = ar_carve(&c, d * D);
    l->lanczos = ar_carve(&c, ar_top_singular_values_workspace((int)n, (int)d, AR_STABLE_RANK_STEPS) * D);
    size_t kept = linear_stack(p) ? (size_t)ar_point_int(p, P_LAYERS) : 0;
    l->a_stack = ar_carve(&c, kept * n * n * D);
    l->y_stack = ar_carve(&c, kept * n * d * D);
    l->w_stack = ar_carve(&c, kept * d * d * D);
    l->gradient_work = ar_carve(&c, kept ? ar_linear_stack_gradient_workspace((int)n, (int)d) * D : 0);
    int keyquery = ar_point_choice(p, P_ATTENTION) == ATTENTION_KEYQUERY;
    l->wq = ar_carve(&c, keyquery ? d * d * D : 0);
    l->wk = ar_carve(&c, keyquery ? d * d * D : 0);
    l->q = ar_carve(&c, keyquery ? n * d * D : 0);
    l->k = ar_carve(&c, keyquery ? n * d * D : 0);
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double n = ar_point_int(p, P_N), d = width_of(p), layers = ar_point_int(p, P_LAYERS);
    double gradient = linear_stack(p) ? layers * (2 * n * n * n + 2 * n * n * d + 2 * d * d * d) : 0;
    return layers * (4 * n * n * d + 2 * n * d * d + 400 * n * d) + gradient;
}

/* Stable rank, mean |cosine| between distinct tokens, and ||X||_F of the n x d matrix x. */
static int measure(int n, int d, const double *x, ar_rng *rng, const layout *l, double *stable, double *cosine,
                   double *frob)
{
    double frob2 = 0;
    for (size_t i = 0; i < (size_t)n * d; ++i)
        frob2 += x[i] * x[i];
    *frob = sqrt(frob2);
    ar_rng_normals(rng, l->start, (size_t)d);
    *stable = ar_stable_rank_of(n, d, x, l->start, l->lanczos);
    if (isnan(*stable))
        return 1;
    for (int i = 0; i < n; ++i) {
        const double *row = x + (size_t)i * d;
        double norm = 0;
        for (int j = 0; j < d; ++j)
            norm += row[j] * row[j];
        norm = norm > 0 ? 1 / sqrt(norm) : 0;
        for (int j = 0; j < d; ++j)
            l->unit[(size_t)i * d + j] = row[j] * norm;
    }
    ar_gemm_nt(n, n, d, l->unit, l->unit, l->gram);
    double sum = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            sum += i == j ? 0 : fabs(l->gram[(size_t)i * n + j]);
    *cosine = n > 1 ? sum / ((double)n * (n - 1)) : 1;
    return 0;
}

static void layernorm(int n, int d, double *x)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, mean = 0, var = 0;
        for (int j = 0; j < d; ++j)
            mean += row[j];
        mean /= d;
        for (int j = 0; j < d; ++j)
            var += (row[j] - mean) * (row[j] - mean);
        double scale = var > 0 ? 1 / sqrt(var / d) : 0;
        for (int j = 0; j < d; ++j)
            row[j] = (row[j] - mean) * scale;
    }
}

/* A = softmax(X W_Q (X W_K)^T / sqrt(d)) for fresh W_Q, W_K; gap removed if asked. */
static void keyquery_attention(const ar_point *p, ar_rng *rng, const layout *l, int n, int d)
{
    double sd = ar_point_real(p, P_SCALE) / sqrt((double)d);
    ar_rng_normals(rng, l->wq, (size_t)d * d);
    ar_rng_normals(rng, l->wk, (size_t)d * d);
    for (size_t i = 0; i < (size_t)d * d; ++i)
        l->wq[i] *= sd, l->wk[i] *= sd;
    ar_gemm_nn(n, d, d, l->x, l->wq, l->q);
    ar_gemm_nn(n, d, d, l->x, l->wk, l->k);
    ar_gemm_nt(n, n, d, l->q, l->k, l->a);
    ar_softmax_rows(n, n, l->a, sqrt((double)d), l->a);
    if (ar_point_choice(p, P_GAP) == 1)
        for (size_t i = 0; i < (size_t)n * n; ++i)
            l->a[i] -= 1.0 / n;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    int n = ar_point_int(p, P_N), d = width_of(p), layers = ar_point_int(p, P_LAYERS);
    int skip = ar_point_choice(p, P_SKIP), count = layers + 1;
    double *stable = out, *cosine = out + count, *frob = out + 2 * count, *gradient = out + 3 * count;
    int keep = linear_stack(p);
    size_t nd = (size_t)n * d;
    ar_rng_normals(rng, l.x, nd);
    for (size_t i = 0; i < nd; ++i)
        l.x[i] /= sqrt((double)d);
    if (measure(n, d, l.x, rng, &l, &stable[0], &cosine[0], &frob[0]))
        return 1;
    for (int layer = 1; layer <= layers; ++layer) {
        if (keep) { /* the backward sweep of the gradient needs every A_l, Y_l, W_l */
            l.a = l.a_stack + (size_t)(layer - 1) * n * n;
            l.y = l.y_stack + (size_t)(layer - 1) * nd;
            l.w = l.w_stack + (size_t)(layer - 1) * d * d;
        }
        if (ar_point_choice(p, P_ATTENTION) == ATTENTION_KEYQUERY)
            keyquery_attention(p, rng, &l, n, d);
        else
            ar_markov_sample(p, rng, l.a, NULL, NULL);
        ar_rng_normals(rng, l.w, (size_t)d * d);
        for (size_t i = 0; i < (size_t)d * d; ++i)
            l.w[i] /= sqrt((double)d);
        ar_gemm_nn(n, d, n, l.a, l.x, l.y);          /* Y = A X */
        if (skip == SKIP_NONE) {
            ar_gemm_nn(n, d, d, l.y, l.w, l.x);      /* X = A X W */
        } else {
            ar_gemm_nn(n, d, d, l.y, l.w, l.unit);   /* unit: scratch for A X W */
            double weight = skip == SKIP_UPSCALED ? 1 / sqrt((double)d) : 1;
            for (size_t i = 0; i < nd; ++i)
                l.x[i] += weight * l.unit[i];
        }
        if (ar_point_choice(p, P_NORM) == NORM_LAYERNORM)
            layernorm(n, d, l.x);
        if (measure(n, d, l.x, rng, &l, &stable[layer], &cosine[layer], &frob[layer]))
            return 1;
    }
    if (keep)
        ar_linear_stack_gradient_norms(n, d, layers, l.a_stack, l.y_stack, l.w_stack, gradient, l.gradient_work);
    else
        for (int i = 0; i < layers; ++i)
            gradient[i] = NAN;
    return 0;
}

static const ar_output outputs[] = {
    {"stable_rank", "stable rank of X_l, per layer l = 0..L", NULL, NULL, per_layer, "layer"},
    {"mean_abs_cosine", "mean |cosine| between distinct tokens of X_l, per layer", NULL, NULL, per_layer, "layer"},
    {"frobenius", "||X_l||_F per layer", NULL, NULL, per_layer, "layer"},
    {"grad_norm", "||dX_L/dW_l||_F for l = 0..L-1, closed form (Markov attention, no skip, no LayerNorm)",
     NULL, linear_stack,
     per_weight, "weight_layer"},
};

const ar_sim ar_sim_depth_collapse = {
    .name = "depth_collapse",
    .summary = "L layers X_{l+1} = A_l X_l W_l of random Markov attention: stable rank and token alignment per layer",
    .claims = "S6 S6perp S7 S7perp",
    .params = params,
    .n_params = AR_COUNT(params),
    .outputs = outputs,
    .n_outputs = AR_COUNT(outputs),
    .check = NULL,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
