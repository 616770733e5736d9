/* layer: forward and reverse mode of one attention layer (see layer.h). */
#include "attnrank/layer.h"

#include "attnrank/attention.h"
#include "attnrank/dynamics.h"
#include "attnrank/linalg.h"

#include <math.h>
#include <string.h>

size_t ar_layer_workspace(const ar_layer_kind *kind)
{
    size_t n = (size_t)kind->n, d = (size_t)kind->d;
    /* Backward: dL/dY (n x d); key-query also dL/dA (n x n), dL/dQ and dL/dK (n x d). */
    return n * d + (kind->keyquery ? n * n + 2 * n * d : 0);
}

/* LayerNorm with eps: each row (u - mean) / sqrt(var + eps), var = |u - mean|^2 / d,
 * the squares taken of (u - mean) / top, top the row's largest |u - mean|, so that none
 * overflows (and var = (that sum / d) top^2 unless top > 1e150, where eps no longer
 * counts); a constant row maps to 0. inv_sigma[i] = 1 / sqrt(var + eps). eps > 0 only
 * (eps = 0 is ar_rows_layernorm). */
static void layernorm_with_eps(int n, int d, double *x, double *inv_sigma, double eps)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, mean = 0, top = 0, var = 0;
        for (int c = 0; c < d; ++c)
            mean += row[c] / d;
        for (int c = 0; c < d; ++c)
            top = fmax(top, fabs(row[c] - mean));
        double inv;
        if (top > 0) {
            for (int c = 0; c < d; ++c)
                var += ((row[c] - mean) / top) * ((row[c] - mean) / top);
            inv = top > 1e150 ? 1 / (top * sqrt(var / d)) : 1 / sqrt(var / d * top * top + eps);
        } else {
            inv = 1 / sqrt(eps);
        }
        for (int c = 0; c < d; ++c)
            row[c] = (row[c] - mean) * inv;
        if (inv_sigma)
            inv_sigma[i] = inv;
    }
}

/* g: dL/d(out) -> dL/dU, in place, for out = (U - mean) / sigma row by row, sigma =
 * sqrt(var + eps): dout = (dc - out (out . dc) / d) / sigma with dc the centred dU,
 * the same expression in out and 1/sigma for any eps. */
static void layernorm_backward(int n, int d, const double *out, double out_scale, const double *inv_sigma, double *g)
{
    for (int i = 0; i < n; ++i) {
        const double *y = out + (size_t)i * d;
        double *gi = g + (size_t)i * d, mean_g = 0, mean_gy = 0;
        for (int j = 0; j < d; ++j) {
            mean_g += gi[j];
            mean_gy += gi[j] * y[j];
        }
        mean_g /= d;
        mean_gy /= d * out_scale * out_scale; /* y = out_scale x the normalised row, twice */
        for (int j = 0; j < d; ++j)
            gi[j] = inv_sigma[i] * (gi[j] - mean_g - y[j] * mean_gy);
    }
}

void ar_layer_forward(const ar_layer_kind *kind, ar_layer_tape *tape, double *out, double *work)
{
    (void)work; /* the forward pass writes only to the tape and out */
    int n = kind->n, d = kind->d;
    if (kind->keyquery) {
        ar_gemm_nn(n, d, d, tape->x, tape->wq, tape->q);
        ar_gemm_nn(n, d, d, tape->x, tape->wk, tape->k);
        ar_gemm_nt(n, n, d, tape->q, tape->k, tape->a);
        ar_softmax_rows(n, n, tape->a, sqrt((double)d), tape->a);
        if (kind->remove_gap)
            for (size_t i = 0; i < (size_t)n * n; ++i)
                tape->a[i] -= 1.0 / n;
    }
    ar_gemm_nn(n, d, n, tape->a, tape->x, tape->y); /* Y = A X */
    if (kind->residual) {
        memcpy(out, tape->x, (size_t)n * d * sizeof *out);
        ar_gemm('N', 'N', n, d, d, kind->branch_scale, tape->y, tape->w, 1, out);
    } else {
        ar_gemm_nn(n, d, d, tape->y, tape->w, out);
    }
    if (kind->layernorm && kind->layernorm_eps > 0)
        layernorm_with_eps(n, d, out, tape->inv_sigma, kind->layernorm_eps);
    else if (kind->layernorm)
        ar_rows_layernorm(n, d, out, tape->inv_sigma);
    if (kind->doubled)
        for (size_t i = 0; i < (size_t)n * d; ++i)
            out[i] *= 2;
}

/* dL/dA -> dL/dS in place, for A = softmax(S / sqrt(d)) (+ constant), row by row. */
static void softmax_backward(int n, double temperature, double shift, const double *a, double *g)
{
    for (int i = 0; i < n; ++i) {
        const double *ai = a + (size_t)i * n;
        double *gi = g + (size_t)i * n, dot = 0;
        for (int j = 0; j < n; ++j)
            dot += (ai[j] + shift) * gi[j];
        for (int j = 0; j < n; ++j)
            gi[j] = (ai[j] + shift) * (gi[j] - dot) / temperature;
    }
}

void ar_layer_backward(const ar_layer_kind *kind, const ar_layer_tape *tape, const double *out, double *g,
                       double *grad_w, double *work)
{
    int n = kind->n, d = kind->d;
    double c = kind->residual ? kind->branch_scale : 1;
    double *g_y = work;
    if (kind->doubled) /* out = 2 LN(U) or 2 U: dL/d(LN(U)) = 2 dL/d(out) */
        for (size_t i = 0; i < (size_t)n * d; ++i)
            g[i] *= 2;
    if (kind->layernorm)
        layernorm_backward(n, d, out, kind->doubled ? 2 : 1, tape->inv_sigma, g); /* g = dL/dU */
    ar_gemm('T', 'N', d, d, n, c, tape->y, g, 0, grad_w);   /* dL/dW = c Y^T dL/dU */
    ar_gemm('N', 'T', n, d, d, c, g, tape->w, 0, g_y);      /* dL/dY = c dL/dU W^T */
    double *g_a = g_y + (size_t)n * d, *g_q = g_a + (size_t)n * n, *g_k = g_q + (size_t)n * d;
    if (kind->keyquery)
        ar_gemm_nt(n, n, d, g_y, tape->x, g_a);             /* dL/dA = dL/dY X^T */
    /* dL/dX = A^T dL/dY (+ dL/dU through the skip) */
    ar_gemm('T', 'N', n, d, n, 1, tape->a, g_y, kind->residual ? 1 : 0, g);
    if (kind->keyquery) {
        softmax_backward(n, sqrt((double)d), kind->remove_gap ? 1.0 / n : 0, tape->a, g_a);
        ar_gemm_nn(n, d, n, g_a, tape->k, g_q);             /* dL/dQ = dL/dS K */
        ar_gemm('T', 'N', n, d, n, 1, g_a, tape->q, 0, g_k); /* dL/dK = dL/dS^T Q */
        ar_gemm('N', 'T', n, d, d, 1, g_q, tape->wq, 1, g);
        ar_gemm('N', 'T', n, d, d, 1, g_k, tape->wk, 1, g);
    }
}

size_t ar_probe_workspace(const ar_layer_kind *kind, int layers, int probes)
{
    size_t n = (size_t)kind->n, d = (size_t)kind->d;
    return n * d + d * d + (size_t)layers * (size_t)probes + ar_layer_workspace(kind);
}

static void rademacher(ar_rng *rng, double *out, size_t count)
{
    for (size_t i = 0; i < count; i += 64) {
        uint64_t bits = ar_rng_u64(rng);
        for (size_t j = i; j < count && j < i + 64; ++j, bits >>= 1)
            out[j] = bits & 1 ? 1.0 : -1.0;
    }
}

void ar_probe_gradient_norms(const ar_layer_kind *kind, int layers, const ar_layer_tape *tapes,
                             const double *x_last, int probes, ar_rng *rng, double *norm, double *se,
                             double *work)
{
    size_t nd = (size_t)kind->n * kind->d, dd = (size_t)kind->d * kind->d;
    double *g = work, *grad_w = g + nd, *squares = grad_w + dd, *scratch = squares + (size_t)layers * probes;
    for (int k = 0; k < probes; ++k) {
        rademacher(rng, g, nd);
        for (int l = layers - 1; l >= 0; --l) {
            const double *out = l == layers - 1 ? x_last : tapes[l + 1].x;
            ar_layer_backward(kind, &tapes[l], out, g, grad_w, scratch);
            double sum = 0;
            for (size_t i = 0; i < dd; ++i)
                sum += grad_w[i] * grad_w[i];
            squares[(size_t)l * probes + k] = sum;
        }
    }
    for (int l = 0; l < layers; ++l) {
        const double *s = squares + (size_t)l * probes;
        double mean = 0, var = 0;
        for (int k = 0; k < probes; ++k)
            mean += s[k];
        mean /= probes;
        for (int k = 0; k < probes; ++k)
            var += (s[k] - mean) * (s[k] - mean);
        double se_square = sqrt(var / (probes - 1) / probes);
        norm[l] = sqrt(mean);
        se[l] = mean > 0 ? se_square / (2 * norm[l]) : 0;
    }
}
