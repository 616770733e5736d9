/* depth: rank collapse in depth (claims S6, S7, "Mind the Gap").
 *
 * X_0 (n x d) has orthonormal rows (inputs = orthonormal, the default: Haar, the paper's
 * isometric input X_0 X_0^T = I; for d < n orthonormal columns times sqrt(n/d)) or iid
 * N(0, 1/d) entries (inputs = gaussian, rows of norm about 1); each of L layers draws a
 * fresh random Markov matrix A_l, or key-query attention A_l(X_l) (either with the gap
 * removed, A_l - 11^T/n, if asked), and W_l (d x d, iid N(0, value_sd^2), by default
 * N(0, 1/d)) and applies the layer of layer.h: X_{l+1} = A_l X_l W_l, optionally with a
 * skip connection (X_l + ..., or X_l + .../sqrt(d), or the authors' 2 (X_l + ...)) and
 * LayerNorm (with layernorm_eps).
 * Per layer it measures the stable rank of X_l (and of X_l X_l^T, the authors'
 * statistic), the mean |cosine| between its tokens and ||X_l||_F. An X_l that is exactly
 * 0 (key-query attention without the gap: the softmax rounds to exactly 1/n) has no
 * stable rank or cosine: those values are NaN (counted as failed, never averaged) and
 * the layer is counted in vanished_layers. With the gap the tokens align
 * within a few layers (stable rank -> 1, |cos| -> 1); removing the gap slows that.
 * ||dX_L/dW_l||_F comes from a closed form for the linear stack (gradient.h) and from
 * reverse-mode probes otherwise (layer.h).
 *
 * The spectral picture behind S6 and S7 (theory/NOTES.md): write X_l = 1 xbar^T + Y_l.
 * A layer keeps the consensus row and shrinks Y by about the RMS singular value of
 * A - 11^T/n, s/(m sqrt n), so off_consensus = ||Y||^2 / ||1 xbar^T||^2 falls by about
 * s^2/(m^2 n) per layer: collapse_factor_n measures n times that factor. And
 * ||dX_L/dW_0||_F = ||A_{L-1}...A_0 X_0||_F ||W_1...W_{L-1}||_F: with the gap the
 * first factor keeps a rank-one part of norm about 1, without it
 * ||(A_{L-1} - J)...(A_0 - J) X_0||_F ~ sqrt(n) (s/(m sqrt n))^L, so log_gap_ratio, the
 * log of their ratio on the same draws, grows like ((L - 1)/2) ln n. */
#include "attnrank/attention.h"
#include "attnrank/dynamics.h"
#include "attnrank/gradient.h"
#include "attnrank/layer.h"
#include "attnrank/linalg.h"
#include "markov/markov.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>
#include <string.h>


static const char *const laws[] = {[AR_MARKOV_LAW_LOGNORMAL] = "lognormal", [AR_MARKOV_LAW_EXPONENTIAL] = "exponential", [AR_MARKOV_LAW_UNIFORM] = "uniform", NULL};
static const char *const gaps[] = {[AR_MARKOV_GAP_KEEP] = "keep", [AR_MARKOV_GAP_REMOVE] = "remove", NULL};
static const char *const norms[] = {[AR_DEPTH_NORM_NONE] = "none", [AR_DEPTH_NORM_LAYERNORM] = "layernorm", NULL};
static const char *const skips[] = {[AR_DEPTH_SKIP_NONE] = "none", [AR_DEPTH_SKIP_PLAIN] = "plain", [AR_DEPTH_SKIP_UPSCALED] = "upscaled",
                                    [AR_DEPTH_SKIP_AUTHORS_DOUBLE] = "authors_double", NULL};
static const char *const attentions[] = {[AR_DEPTH_ATTENTION_MARKOV] = "markov", [AR_DEPTH_ATTENTION_KEYQUERY] = "keyquery", NULL};
static const char *const inputs[] = {[AR_DEPTH_INPUTS_ORTHONORMAL] = "orthonormal", [AR_DEPTH_INPUTS_GAUSSIAN] = "gaussian", NULL};
static const char *const gradients[] = {[AR_DEPTH_GRADIENT_AUTO] = "auto", [AR_DEPTH_GRADIENT_PROBE] = "probe", [AR_DEPTH_GRADIENT_NONE] = "none", NULL};

static const ar_param params[] = {
    [AR_DEPTH_N] = {"n", AR_PARAM_INT, 64, 2, 4096, 0, NULL, "tokens"},
    [AR_DEPTH_D] = {"d", AR_PARAM_INT, 0, 0, 4096, 0, NULL, "width; 0 means d = n"},
    [AR_DEPTH_LAYERS] = {"layers", AR_PARAM_INT, 16, 1, 1000, 0, NULL, "depth L: outputs are measured at layers 0..L"},
    [AR_DEPTH_ENTRIES] = {"entries", AR_PARAM_CHOICE, 0, 0, 0, 0, laws, "law of A_l's entries before row normalisation"},
    [AR_DEPTH_GAP] = {"gap", AR_PARAM_CHOICE, 0, 0, 0, 0, gaps, "keep: A_l; remove: A_l - 11^T/n"},
    [AR_DEPTH_NORM] = {"norm", AR_PARAM_CHOICE, AR_DEPTH_NORM_NONE, 0, 0, 0, norms, "layernorm: centre and scale each token after a layer"},
    [AR_DEPTH_SKIP] = {"skip", AR_PARAM_CHOICE, AR_DEPTH_SKIP_NONE, 0, 0, 0, skips,
     "none: A X W; plain: X + A X W; upscaled: X + A X W / sqrt(d). The paper's code has W_V of N(0, 1) entries "
     "(value_sd = 1): there its skip is plain and its \"upscaled skip\" upscaled; with the default value_sd "
     "(N(0, 1/d)) plain is the paper's upscaled skip; authors_double: 2 (X + A X W), LayerNorm inside the "
     "doubling (2 LN(X + A X W)), what the authors' block returns with its skip on and no MLP (model.py: "
     "`a or b and c` adds y to y)"},
    [AR_DEPTH_ATTENTION] = {"attention", AR_PARAM_CHOICE, AR_DEPTH_ATTENTION_MARKOV, 0, 0, 0, attentions,
     "markov: a fresh random Markov A_l per layer (entries); keyquery: A_l = softmax(X_l W_Q (X_l W_K)^T / "
     "sqrt(d)) with fresh W_Q, W_K of iid N(0, scale) entries"},
    [AR_DEPTH_SCALE] = {"scale", AR_PARAM_REAL, 0, 0, 1e4, 0, NULL,
     "standard deviation of the key-query logits at unit-norm tokens (attention = keyquery): W_Q, W_K entries iid "
     "N(0, scale); 0 means 1/d, the usual N(0, 1/d) initialisation"},
    [AR_DEPTH_GRADIENT] = {"gradient", AR_PARAM_CHOICE, AR_DEPTH_GRADIENT_AUTO, 0, 0, 0, gradients,
     "||dX_L/dW_l||_F: auto = closed form for the linear Markov stack, random probes otherwise; "
     "probe = probes always; none = skip it", 1},
    [AR_DEPTH_PROBES] = {"probes", AR_PARAM_INT, 4, 2, 1024, 0, NULL,
     "Rademacher probes per trial for the reverse-mode (Hutchinson) gradient estimate", 1},
    [AR_DEPTH_INPUTS] = {"inputs", AR_PARAM_CHOICE, AR_DEPTH_INPUTS_ORTHONORMAL, 0, 0, 0, inputs,
     "law of X_0: orthonormal = Haar orthonormal rows, X_0 X_0^T = I (the paper's generate_isometric_input; "
     "for d < n, which the paper has no case for, orthonormal columns times sqrt(n/d)); gaussian = iid "
     "N(0, 1/d) entries"},
    [AR_DEPTH_VALUE_SD] = {"value_sd", AR_PARAM_REAL, 0, 0, 1e4, 0, NULL,
     "standard deviation of W_l's entries; 0 means 1/sqrt(d), variance-preserving (E||Z W||_F^2 = "
     "||Z||_F^2); the paper's code uses 1 (sigma_V = 1)"},
    [AR_DEPTH_LAYERNORM_EPS] = {"layernorm_eps", AR_PARAM_REAL, 0, 0, 1, 0, NULL,
     "norm = layernorm: each token divided by sqrt(var + eps); 0 = exact unit variance; the paper's "
     "code uses torch's nn.LayerNorm default 1e-5, which shrinks tokens of variance below it instead of "
     "normalising them"},
};

static int width_of(const ar_point *p)
{
    int d = ar_point_int(p, AR_DEPTH_D);
    return d == 0 ? ar_point_int(p, AR_DEPTH_N) : d;
}

static int per_layer(const ar_point *p) { return ar_point_int(p, AR_DEPTH_LAYERS) + 1; }
static int per_weight(const ar_point *p) { return ar_point_int(p, AR_DEPTH_LAYERS); }
/* The plain linear stack, where ||dX_L/dW_l||_F has a closed form (gradient.h). */
static int linear_stack(const ar_point *p)
{
    return ar_point_choice(p, AR_DEPTH_SKIP) == AR_DEPTH_SKIP_NONE && ar_point_choice(p, AR_DEPTH_NORM) == AR_DEPTH_NORM_NONE &&
           ar_point_choice(p, AR_DEPTH_ATTENTION) == AR_DEPTH_ATTENTION_MARKOV;
}
static int wants_gradient(const ar_point *p) { return ar_point_choice(p, AR_DEPTH_GRADIENT) != AR_DEPTH_GRADIENT_NONE; }
static int closed_form(const ar_point *p)
{
    return ar_point_choice(p, AR_DEPTH_GRADIENT) == AR_DEPTH_GRADIENT_AUTO && linear_stack(p);
}
static int probed(const ar_point *p) { return wants_gradient(p) && !closed_form(p); }
/* log_gap_ratio: the linear Markov stack with the gap, compared on the same draws with
 * the stack of A_l - 11^T/n. */
static int gap_ratio_measured(const ar_point *p)
{
    return linear_stack(p) && ar_point_choice(p, AR_DEPTH_GAP) == AR_MARKOV_GAP_KEEP;
}
static int two_layers(const ar_point *p) { return ar_point_int(p, AR_DEPTH_LAYERS) >= 2; }
/* attention_factor_n: the linear Markov stack, where X_{l+1} = A_l (X_l W_l) exactly. */
static int attention_factor(const ar_point *p) { return two_layers(p) && linear_stack(p); }

static ar_layer_kind kind_of(const ar_point *p)
{
    int skip = ar_point_choice(p, AR_DEPTH_SKIP), d = width_of(p);
    return (ar_layer_kind){
        .n = ar_point_int(p, AR_DEPTH_N),
        .d = d,
        .keyquery = ar_point_choice(p, AR_DEPTH_ATTENTION) == AR_DEPTH_ATTENTION_KEYQUERY,
        .remove_gap = ar_point_choice(p, AR_DEPTH_GAP) == 1,
        .residual = skip != AR_DEPTH_SKIP_NONE,
        .branch_scale = skip == AR_DEPTH_SKIP_UPSCALED ? 1 / sqrt((double)d) : 1,
        .layernorm = ar_point_choice(p, AR_DEPTH_NORM) == AR_DEPTH_NORM_LAYERNORM,
        .layernorm_eps = ar_point_real(p, AR_DEPTH_LAYERNORM_EPS),
        .doubled = skip == AR_DEPTH_SKIP_AUTHORS_DOUBLE,
    };
}

/* The forward pass keeps every layer's tape when a gradient is wanted (the backward
 * sweep reads them all); otherwise one tape is reused and X ping-pongs between two
 * buffers. Stacks are contiguous so the closed form can take them whole. */
typedef struct {
    ar_layer_tape *tapes;
    double *x_stack, *a_stack, *y_stack, *w_stack, *q_stack, *k_stack, *wq_stack, *wk_stack, *sigma_stack;
    double *layer_work, *gradient_work, *haar_work;
    double *gram, *unit, *start, *lanczos; /* measurements */
    double *with_gap, *without_gap, *product;  /* A_l...A_0 X_0 and (A_l - J)...(A_0 - J) X_0, scaled */
    double *premixed, *premixed_off;           /* X_l W_l and its off_consensus, per layer */
} layout;

static int kept_layers(const ar_point *p) { return wants_gradient(p) ? ar_point_int(p, AR_DEPTH_LAYERS) : 1; }

static size_t carve(const ar_point *p, char *base, layout *l)
{
    ar_layer_kind kind = kind_of(p);
    size_t n = (size_t)kind.n, d = (size_t)kind.d, kept = (size_t)kept_layers(p);
    int layers = ar_point_int(p, AR_DEPTH_LAYERS), probes = ar_point_int(p, AR_DEPTH_PROBES);
    size_t kq = kind.keyquery ? kept : 0, D = sizeof(double);
    ar_carver c = {base, 0};
    l->tapes = ar_carve(&c, kept * sizeof(ar_layer_tape));
    l->x_stack = ar_carve(&c, (kept + 1) * n * d * D);
    l->a_stack = ar_carve(&c, kept * n * n * D);
    l->y_stack = ar_carve(&c, kept * n * d * D);
    l->w_stack = ar_carve(&c, kept * d * d * D);
    l->q_stack = ar_carve(&c, kq * n * d * D);
    l->k_stack = ar_carve(&c, kq * n * d * D);
    l->wq_stack = ar_carve(&c, kq * d * d * D);
    l->wk_stack = ar_carve(&c, kq * d * d * D);
    l->sigma_stack = ar_carve(&c, kind.layernorm ? kept * n * D : 0);
    l->layer_work = ar_carve(&c, ar_layer_workspace(&kind) * D);
    size_t gradient = closed_form(p) ? ar_linear_stack_gradient_workspace((int)n, (int)d)
                      : probed(p)    ? ar_probe_workspace(&kind, layers, probes)
                                     : 0;
    l->gradient_work = ar_carve(&c, gradient * D);
    int orthonormal = ar_point_choice(p, AR_DEPTH_INPUTS) == AR_DEPTH_INPUTS_ORTHONORMAL;
    l->haar_work = ar_carve(&c, orthonormal ? ar_haar_rows_workspace(n <= d ? (int)n : (int)d, n <= d ? (int)d : (int)n) * D : 0);
    l->gram = ar_carve(&c, n * n * D); /* cosines; also the Gram matrix of stable_rank_gram */
    l->unit = ar_carve(&c, n * d * D);
    l->start = ar_carve(&c, d * D);
    l->lanczos = ar_carve(&c, ar_top_singular_values_workspace((int)n, (int)d, AR_STABLE_RANK_STEPS) * D);
    size_t ratio = gap_ratio_measured(p) ? n * d : 0;
    l->with_gap = ar_carve(&c, ratio * D);
    l->without_gap = ar_carve(&c, ratio * D);
    l->product = ar_carve(&c, ratio * D);
    l->premixed = ar_carve(&c, attention_factor(p) ? n * d * D : 0);
    l->premixed_off = ar_carve(&c, attention_factor(p) ? (size_t)(layers + 1) * D : 0);
    if (base)
        for (size_t i = 0; i < kept; ++i) {
            size_t kqi = kind.keyquery ? i : 0;
            l->tapes[i] = (ar_layer_tape){
                .a = l->a_stack + i * n * n,
                .y = l->y_stack + i * n * d,
                .w = l->w_stack + i * d * d,
                .q = kind.keyquery ? l->q_stack + kqi * n * d : NULL,
                .k = kind.keyquery ? l->k_stack + kqi * n * d : NULL,
                .wq = kind.keyquery ? l->wq_stack + kqi * d * d : NULL,
                .wk = kind.keyquery ? l->wk_stack + kqi * d * d : NULL,
                .inv_sigma = kind.layernorm ? l->sigma_stack + i * n : NULL,
            };
        }
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double n = ar_point_int(p, AR_DEPTH_N), d = width_of(p), layers = ar_point_int(p, AR_DEPTH_LAYERS);
    int keyquery = ar_point_choice(p, AR_DEPTH_ATTENTION) == AR_DEPTH_ATTENTION_KEYQUERY;
    double attention = keyquery ? 4 * n * d * d + 2 * n * n * d : 0;
    double small = n < d ? n : d;
    double forward = layers * (4 * n * n * d + 2 * n * d * d + 2 * small * small * (n + d - small) + 400 * n * d + attention);
    if (gap_ratio_measured(p))
        forward += layers * 4 * n * n * d;
    double gradient = closed_form(p) ? layers * (2 * n * n * n + 2 * n * n * d + 2 * d * d * d)
                      : probed(p) ? ar_point_int(p, AR_DEPTH_PROBES) * layers * (4 * n * d * d + 2 * n * n * d + 3 * attention)
                                  : 0;
    return forward + gradient;
}

/* Stable ranks of x and x x^T, mean |cosine| between distinct tokens, and ||X||_F of the
 * n x d matrix x; 1 if the measurement failed (Lanczos). An x that is exactly 0 has
 * neither stable rank nor cosines: NaN, and *vanished counts it. */
static int measure(int n, int d, const double *x, ar_rng *rng, const layout *l, double *stable, double *gram,
                   double *cosine, double *frob, int *vanished)
{
    double frob2 = 0;
    for (size_t i = 0; i < (size_t)n * d; ++i)
        frob2 += x[i] * x[i];
    *frob = sqrt(frob2);
    ar_rng_normals(rng, l->start, (size_t)d);
    if (frob2 == 0) {
        *stable = *gram = *cosine = NAN;
        ++*vanished;
        return 0;
    }
    ar_stable_ranks_of(n, d, x, l->start, l->lanczos, l->gram, stable, gram);
    if (isnan(*stable) || isnan(*gram))
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

/* ||X - 1 xbar^T||_F^2 / ||1 xbar^T||_F^2, xbar the mean row (NaN for a zero mean): the
 * two parts are orthogonal, so the consensus part is ||X||^2 - mu^2. */
static double off_consensus(int n, int d, const double *x)
{
    double spread, total;
    ar_consensus_sums(n, d, x, &spread, &total);
    double centre = total - spread;
    return centre > 0 ? spread / centre : NAN;
}

/* n times the geometric-mean factor by which off_consensus falls per layer, over layers
 * 1..l with l the last before it nears rounding (AR_DEPTH_CONSENSUS_FLOOR); layer 0 is
 * left out, its Gaussian X_0 having no consensus to speak of. NaN below two layers. */
static double collapse_factor_n(int n, int layers, const double *off)
{
    int last = 1;
    while (last < layers && off[last + 1] >= AR_DEPTH_CONSENSUS_FLOOR)
        last++;
    if (last < 2 || !(off[1] >= AR_DEPTH_CONSENSUS_FLOOR))
        return NAN;
    return n * exp(log(off[last] / off[1]) / (last - 1));
}

/* n times the geometric-mean factor by which attention alone shrinks off_consensus,
 * off(A_l Z) / off(Z) with Z = X_l W_l, over the layers of collapse_factor_n. W_l's own
 * change of the ratio (the consensus row's squared norm after W fluctuates like
 * chi^2_d / d: 9% a layer at d = 256, and E[-ln(chi^2_d/d)] ~ 1/d biases the geometric
 * mean) is divided out: what is left is the RMS-singular-value shrink S6 derives. */
static double attention_factor_n(int n, int layers, const double *off, const double *premixed_off)
{
    int last = 1;
    while (last < layers && off[last + 1] >= AR_DEPTH_CONSENSUS_FLOOR)
        last++;
    if (last < 2 || !(off[1] >= AR_DEPTH_CONSENSUS_FLOOR))
        return NAN;
    double logs = 0;
    for (int l = 1; l < last; ++l)
        logs += log(off[l + 1] / premixed_off[l]);
    return n * exp(logs / (last - 1));
}

/* One layer of both attention products, each kept at unit Frobenius norm with its log
 * norm accumulated (without the gap the product falls like n^(-L/2): no underflow). */
static void advance_products(int n, int d, const double *a, layout *l, double *log_with, double *log_without)
{
    double *both[2] = {l->with_gap, l->without_gap}, *logs[2] = {log_with, log_without};
    for (int k = 0; k < 2; ++k) {
        ar_gemm_nn(n, d, n, a, both[k], l->product);
        if (k == 1) /* (A - 11^T/n) Z = A Z - 1 (1^T Z / n) */
            for (int j = 0; j < d; ++j) {
                double mean = 0;
                for (int i = 0; i < n; ++i)
                    mean += both[k][(size_t)i * d + j];
                mean /= n;
                for (int i = 0; i < n; ++i)
                    l->product[(size_t)i * d + j] -= mean;
            }
        double norm2 = 0;
        for (size_t i = 0; i < (size_t)n * d; ++i)
            norm2 += l->product[i] * l->product[i];
        double norm = sqrt(norm2);
        if (!(norm > 0)) { /* a product that vanished exactly (n = 2, say): no ratio, a failed trial */
            *logs[k] = NAN;
            return;
        }
        *logs[k] += log(norm);
        for (size_t i = 0; i < (size_t)n * d; ++i)
            both[k][i] = l->product[i] / norm;
    }
}

/* X_0 into x: iid N(0, 1/d), or orthonormal rows from the same n d normals (Haar;
 * for d < n orthonormal columns, from the normals read as a d x n matrix, times
 * sqrt(n/d), so that ||X_0||_F^2 = n either way). 1 if LAPACK failed. */
static int draw_inputs(const ar_point *p, int n, int d, ar_rng *rng, const layout *l, double *x)
{
    size_t nd = (size_t)n * d;
    if (ar_point_choice(p, AR_DEPTH_INPUTS) == AR_DEPTH_INPUTS_GAUSSIAN) {
        ar_rng_normals(rng, x, nd);
        for (size_t i = 0; i < nd; ++i)
            x[i] *= 1 / sqrt((double)d);
        return 0;
    }
    if (n <= d) {
        ar_rng_normals(rng, x, nd);
        return ar_haar_rows(n, d, x, l->haar_work) != 0;
    }
    double *t = l->unit; /* d x n, free until the first measurement */
    ar_rng_normals(rng, t, nd);
    if (ar_haar_rows(d, n, t, l->haar_work) != 0)
        return 1;
    double scale = sqrt((double)n / d);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < d; ++j)
            x[(size_t)i * d + j] = scale * t[(size_t)j * n + i];
    return 0;
}

/* iid N(0, sd^2) entries. */
static void gaussian(ar_rng *rng, double sd, double *out, size_t count)
{
    ar_rng_normals(rng, out, count);
    for (size_t i = 0; i < count; ++i)
        out[i] *= sd;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    ar_layer_kind kind = kind_of(p);
    int n = kind.n, d = kind.d, layers = ar_point_int(p, AR_DEPTH_LAYERS);
    ar_markov_draw draw = {n, ar_point_choice(p, AR_DEPTH_ENTRIES),
                           ar_point_choice(p, AR_DEPTH_GAP) == AR_MARKOV_GAP_REMOVE, 0, 0};
    /* out[] laid out by the output table: one vector per output */
    double *stable = out + ar_output_offset(p, AR_DEPTH_OUT_STABLE_RANK);
    double *cosine = out + ar_output_offset(p, AR_DEPTH_OUT_MEAN_ABS_COSINE);
    double *frob = out + ar_output_offset(p, AR_DEPTH_OUT_FROBENIUS);
    double *gradient = out + ar_output_offset(p, AR_DEPTH_OUT_GRAD_NORM);
    double *gradient_se = out + ar_output_offset(p, AR_DEPTH_OUT_GRAD_NORM_PROBE_SE);
    double *off = out + ar_output_offset(p, AR_DEPTH_OUT_OFF_CONSENSUS);
    double *gram = out + ar_output_offset(p, AR_DEPTH_OUT_STABLE_RANK_GRAM);
    double value_sd = ar_point_real(p, AR_DEPTH_VALUE_SD) > 0 ? ar_point_real(p, AR_DEPTH_VALUE_SD) : 1 / sqrt((double)d);
    int vanished = 0;
    int keep = wants_gradient(p), ratio = gap_ratio_measured(p);
    size_t nd = (size_t)n * d, dd = (size_t)d * d;
    double *x = l.x_stack, log_with = 0, log_without = 0;
    if (draw_inputs(p, n, d, rng, &l, x))
        return 1;
    if (measure(n, d, x, rng, &l, &stable[0], &gram[0], &cosine[0], &frob[0], &vanished))
        return 1;
    off[0] = off_consensus(n, d, x);
    if (ratio) {
        memcpy(l.with_gap, x, nd * sizeof *x);
        memcpy(l.without_gap, x, nd * sizeof *x);
    }
    for (int layer = 0; layer < layers; ++layer) {
        ar_layer_tape *tape = &l.tapes[keep ? layer : 0];
        double *next = l.x_stack + (keep ? (size_t)(layer + 1) : (size_t)(layer + 1) % 2) * nd;
        tape->x = x;
        if (kind.keyquery) {
            double sd = sqrt(ar_logit_scale(ar_point_real(p, AR_DEPTH_SCALE), d)); /* logits' sd = sd^2 */
            gaussian(rng, sd, (double *)tape->wq, dd);
            gaussian(rng, sd, (double *)tape->wk, dd);
        } else {
            ar_markov_sample(&draw, rng, tape->a, NULL, NULL);
            if (ratio)
                advance_products(n, d, tape->a, &l, &log_with, &log_without);
        }
        gaussian(rng, value_sd, (double *)tape->w, dd);
        if (attention_factor(p)) {
            ar_gemm_nn(n, d, d, x, tape->w, l.premixed);
            l.premixed_off[layer] = off_consensus(n, d, l.premixed);
        }
        ar_layer_forward(&kind, tape, next, l.layer_work);
        x = next;
        if (measure(n, d, x, rng, &l, &stable[layer + 1], &gram[layer + 1], &cosine[layer + 1], &frob[layer + 1],
                    &vanished))
            return 1;
        off[layer + 1] = off_consensus(n, d, x);
    }
    out[ar_output_offset(p, AR_DEPTH_OUT_VANISHED_LAYERS)] = vanished;
    if (two_layers(p))
        out[ar_output_offset(p, AR_DEPTH_OUT_COLLAPSE_FACTOR_N)] = collapse_factor_n(n, layers, off);
    if (attention_factor(p))
        out[ar_output_offset(p, AR_DEPTH_OUT_ATTENTION_FACTOR_N)] = attention_factor_n(n, layers, off, l.premixed_off);
    if (ratio)
        out[ar_output_offset(p, AR_DEPTH_OUT_LOG_GAP_RATIO)] = log_with - log_without;
    for (int i = 0; i < layers; ++i)
        gradient[i] = gradient_se[i] = NAN;
    if (closed_form(p))
        ar_linear_stack_gradient_norms(n, d, layers, l.a_stack, l.y_stack, l.w_stack, gradient, l.gradient_work);
    else if (probed(p))
        ar_probe_gradient_norms(&kind, layers, l.tapes, x, ar_point_int(p, AR_DEPTH_PROBES), rng, gradient, gradient_se,
                                l.gradient_work);
    return 0;
}

static int vanished_max(const ar_point *p) { return per_layer(p); }
/* X_l is n x d: its stable ranks lie in [1, min(n, d)] (a Lanczos sigma_1, with
 * AR_RANGE_ROUNDING's room) */
static void rank_measure(const ar_point *p, double *lower, double *upper)
{
    int n = ar_point_int(p, AR_DEPTH_N), d = width_of(p);
    ar_range_rank_measure(n < d ? n : d, lower, upper);
}

static const ar_output outputs[] = {
    [AR_DEPTH_OUT_STABLE_RANK] = {"stable_rank", "stable rank of X_l, per layer l = 0..L", NULL, NULL, per_layer, "layer",
     .definition = "||X_l||_F^2 / ||X_l||_2^2 per layer", .range = rank_measure},
    [AR_DEPTH_OUT_MEAN_ABS_COSINE] = {"mean_abs_cosine", "mean |cosine| between distinct tokens of X_l, per layer", NULL, NULL, per_layer, "layer",
     .range = ar_range_unit_rounded},
    [AR_DEPTH_OUT_FROBENIUS] = {"frobenius", "||X_l||_F per layer", NULL, NULL, per_layer, "layer",
     .range = ar_range_nonnegative},
    [AR_DEPTH_OUT_GRAD_NORM] = {"grad_norm", "||dX_L/dW_l||_F for l = 0..L-1: closed form for the linear Markov stack, else the square "
     "root of an unbiased reverse-mode probe estimate of its square (gradient = none: absent)",
     NULL, wants_gradient, per_weight, "weight_layer", .range = ar_range_nonnegative},
    [AR_DEPTH_OUT_GRAD_NORM_PROBE_SE] = {"grad_norm_probe_se", "standard error of one trial's probe estimate of grad_norm (from the spread of its "
     "probes; probe estimates only)", NULL, probed, per_weight, "weight_layer", .range = ar_range_nonnegative /* a standard error */},
    [AR_DEPTH_OUT_OFF_CONSENSUS] = {"off_consensus", "||X_l - 1 xbar^T||_F^2 / ||1 xbar^T||_F^2 per layer, xbar the mean token: the "
     "part of X_l off the consensus, relative (0 at rank collapse)", NULL, NULL, per_layer, "layer",
     .range = ar_range_nonnegative},
    [AR_DEPTH_OUT_COLLAPSE_FACTOR_N] = {"collapse_factor_n", "n times the per-layer factor by which off_consensus falls: the "
     "geometric mean over layers 1..l, l the last layer with off_consensus >= 1e-20 (rounding's floor is near 1e-30; "
     "layers >= 2)", NULL, two_layers, .range = ar_range_nonnegative /* n exp(...) */},
    [AR_DEPTH_OUT_LOG_GAP_RATIO] = {"log_gap_ratio", "ln of ||dX_L/dW_0||_F over the same with every A_l replaced by A_l - "
     "11^T/n, on the same draws: ln ||A_{L-1}...A_0 X_0||_F - ln ||(A_{L-1} - J)...(A_0 - J) X_0||_F (linear Markov "
     "stack, gap = keep)", NULL, gap_ratio_measured},
    [AR_DEPTH_OUT_STABLE_RANK_GRAM] = {"stable_rank_gram", "stable rank of X_l X_l^T per layer, the statistic of the "
     "\"Mind the Gap\" authors' stable_ranks.py (sum s^2 / max s^2 over the singular values s of X X^T; their rows "
     "start at X_1, here at X_0)", NULL, NULL, per_layer, "layer",
     .definition = "||X_l X_l^T||_F^2 / ||X_l||_2^4 = sum sigma_i^4 / sigma_1^4 per layer", .range = rank_measure},
    [AR_DEPTH_OUT_VANISHED_LAYERS] = {"vanished_layers", "number of layers l = 0..L at which X_l is exactly 0 (key-query "
     "attention without the gap: the softmax rounds to exactly 1/n); there stable_rank, stable_rank_gram and "
     "mean_abs_cosine are NaN, counted as failed values, never averaged", vanished_max},
    [AR_DEPTH_OUT_ATTENTION_FACTOR_N] = {"attention_factor_n", "n times the per-layer factor by which attention alone "
     "shrinks off_consensus, off(A_l X_l W_l) / off(X_l W_l): the geometric mean over collapse_factor_n's layers, W_l's "
     "own change divided out (linear Markov stack, layers >= 2)", NULL, attention_factor,
     .range = ar_range_nonnegative /* n exp(...) */},
};

const ar_sim ar_sim_depth_collapse = {
    .name = "depth_collapse",
    .summary = "L layers X_{l+1} = A_l X_l W_l of random Markov attention: stable rank and token alignment per layer",
    AR_SIM_TABLES(params, outputs),
    .check = NULL,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
