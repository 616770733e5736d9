/* dynamics: one step of masked self-attention dynamics (see dynamics.h). */
#include "attnrank/dynamics.h"

#include "attnrank/attention.h"
#include "attnrank/linalg.h"

#include <math.h>

size_t ar_attention_map_workspace(const ar_attention_map *map)
{
    size_t n = (size_t)map->mask->n, d = (size_t)map->d;
    /* Q, K, A X, and the dense route's n x n scores */
    return 3 * n * d + (map->dense ? n * n : 0);
}

void ar_rows_to_sphere(int n, int d, double *x)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, norm = 0;
        for (int c = 0; c < d; ++c)
            norm += row[c] * row[c];
        norm = norm > 0 ? 1 / sqrt(norm) : 0;
        for (int c = 0; c < d; ++c)
            row[c] *= norm;
    }
}

void ar_rows_layernorm(int n, int d, double *x, double *inv_sigma)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, mean = 0, var = 0;
        for (int c = 0; c < d; ++c)
            mean += row[c];
        mean /= d;
        for (int c = 0; c < d; ++c)
            var += (row[c] - mean) * (row[c] - mean);
        /* A constant row has no direction to keep: it maps to zero, with zero derivative. */
        double scale = var > 0 ? 1 / sqrt(var / d) : 0;
        for (int c = 0; c < d; ++c)
            row[c] = (row[c] - mean) * scale;
        if (inv_sigma)
            inv_sigma[i] = scale;
    }
}

double ar_attention_map_apply(const ar_attention_map *map, const double *x, double *out, double *weights,
                              double *work)
{
    int n = map->mask->n, d = map->d;
    size_t nd = (size_t)n * d;
    double *q = work, *k = q + nd, *attended = k + nd, *scores = attended + nd;
    ar_gemm_nn(n, d, d, x, map->wq, q);
    ar_gemm_nn(n, d, d, x, map->wk, k);
    double *target = map->wv ? attended : out;
    double least = ar_masked_attention(map->mask, d, q, k, x, sqrt((double)d), map->dense, scores, weights, target);
    if (map->wv)
        ar_gemm_nn(n, d, d, attended, map->wv, out);
    if (map->norm == AR_NORM_SPHERE)
        ar_rows_to_sphere(n, d, out);
    else if (map->norm == AR_NORM_LAYERNORM)
        ar_rows_layernorm(n, d, out, NULL);
    return least;
}
