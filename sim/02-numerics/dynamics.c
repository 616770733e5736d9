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

/* Largest |row[c] - shift|: dividing by it first keeps the sum of squares finite and
 * nonzero for rows of any scale (1e300 would overflow it, 1e-310 underflow it). */
static double largest(int d, const double *row, double shift)
{
    double top = 0;
    for (int c = 0; c < d; ++c)
        top = fabs(row[c] - shift) > top ? fabs(row[c] - shift) : top;
    return top;
}

void ar_rows_to_sphere(int n, int d, double *x)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, top = largest(d, row, 0), norm = 0;
        if (top == 0 || !isfinite(top))
            continue; /* a zero row stays zero */
        for (int c = 0; c < d; ++c)
            norm += (row[c] / top) * (row[c] / top);
        norm = sqrt(norm);
        for (int c = 0; c < d; ++c)
            row[c] = row[c] / top / norm;
    }
}

void ar_rows_layernorm(int n, int d, double *x, double *inv_sigma)
{
    for (int i = 0; i < n; ++i) {
        double *row = x + (size_t)i * d, mean = 0, var = 0;
        for (int c = 0; c < d; ++c)
            mean += row[c] / d; /* term by term: a sum of 1e308s would overflow */
        double top = largest(d, row, mean);
        for (int c = 0; c < d; ++c)
            var += ((row[c] - mean) / (top > 0 ? top : 1)) * ((row[c] - mean) / (top > 0 ? top : 1));
        /* A constant row has no direction to keep: it maps to zero, with zero derivative.
         * Otherwise (x - mean) / sigma with sigma = top sqrt(var / d). */
        double unit = var > 0 ? 1 / sqrt(var / d) : 0;
        for (int c = 0; c < d; ++c)
            row[c] = var > 0 ? (row[c] - mean) / top * unit : 0;
        if (inv_sigma)
            inv_sigma[i] = var > 0 ? unit / top : 0;
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

double ar_decay_rate(int count, const double *y, double floor)
{
    double st = 0, sy = 0, stt = 0, sty = 0;
    int k = 0;
    for (int t = 0; t < count && y[t] >= floor; ++t, ++k) {
        double v = log(y[t]);
        st += t, sy += v, stt += (double)t * t, sty += t * v;
    }
    if (k < 2)
        return NAN;
    return -(k * sty - st * sy) / (k * stt - st * st);
}

double ar_decay_shape(int count, const double *y, double floor)
{
    int k = 0;
    while (k < count && y[k] >= floor)
        k++;
    if (k < count && k < 4)
        return 1; /* round-off within three steps: at least exponential */
    if (k < 4 || !(log(y[0] / y[k - 1]) >= DECAY_EFOLDS))
        return NAN; /* too little decay within the run to tell a shape */
    double overall = ar_decay_rate(k, y, floor), late = ar_decay_rate(k - k / 2, y + k / 2, floor);
    return overall > 0 ? late / overall : 0;
}

void ar_consensus_sums(int n, int d, const double *x, double *spread, double *total)
{
    *spread = *total = 0;
    for (int c = 0; c < d; ++c) {
        double mean = 0;
        for (int i = 0; i < n; ++i)
            mean += x[(size_t)i * d + c];
        mean /= n;
        for (int i = 0; i < n; ++i) {
            double v = x[(size_t)i * d + c];
            *total += v * v;
            *spread += (v - mean) * (v - mean);
        }
    }
}
