/* attention: softmax and hardmax rows. */
#include "attnrank/attention.h"

#include "attnrank/linalg.h"
#include "attnrank/mask.h"

#include <math.h>
#include <stddef.h>

void ar_softmax_rows(int rows, int cols, const double *scores, double tau, double *out)
{
    for (int i = 0; i < rows; ++i) {
        const double *s = scores + (size_t)i * cols;
        double *a = out + (size_t)i * cols;
        double top = s[0];
        for (int j = 1; j < cols; ++j)
            if (s[j] > top)
                top = s[j];
        double total = 0.0;
        for (int j = 0; j < cols; ++j) {
            /* gap >= 0; dividing (not multiplying by 1/tau) keeps tiny tau exact, and a
             * zero gap stays exactly 1 even when gap / tau would be 0/0. */
            double gap = top - s[j];
            double e = gap == 0.0 ? 1.0 : exp(-(gap / tau));
            a[j] = e;
            total += e;
        }
        /* total >= 1 because the maximum contributes exp(0). */
        for (int j = 0; j < cols; ++j)
            a[j] /= total;
    }
}

void ar_argmax_rows(int rows, int cols, const double *scores, int *argmax)
{
    for (int i = 0; i < rows; ++i) {
        const double *s = scores + (size_t)i * cols;
        int best = 0;
        for (int j = 1; j < cols; ++j)
            if (s[j] > s[best])
                best = j;
        argmax[i] = best;
    }
}

/* Softmax of the scores s[e] (edges row_start[i] .. row_start[i+1]) in place, as in
 * ar_softmax_rows; returns the row's smallest weight. */
static double softmax_edges(double *s, int count, double tau)
{
    double top = s[0], total = 0, least = 1;
    for (int e = 1; e < count; ++e)
        if (s[e] > top)
            top = s[e];
    for (int e = 0; e < count; ++e) {
        double gap = top - s[e];
        s[e] = gap == 0.0 ? 1.0 : exp(-(gap / tau));
        total += s[e];
    }
    for (int e = 0; e < count; ++e) {
        s[e] /= total;
        if (s[e] < least)
            least = s[e];
    }
    return least;
}

double ar_masked_attention(const ar_mask *mask, int d, const double *q, const double *k, const double *x,
                           double tau, int dense, double *scratch, double *weights, double *out)
{
    int n = mask->n;
    double least = 1;
    if (dense)
        ar_gemm_nt(n, n, d, q, k, scratch); /* every score; the mask picks the edges */
    for (int i = 0; i < n; ++i) {
        int first = mask->row_start[i], count = mask->row_start[i + 1] - first;
        const int *cols = mask->column + first;
        double *w = weights + first;
        for (int e = 0; e < count; ++e) {
            if (dense) {
                w[e] = scratch[(size_t)i * n + cols[e]];
            } else {
                const double *qi = q + (size_t)i * d, *kj = k + (size_t)cols[e] * d;
                double dot = 0;
                for (int c = 0; c < d; ++c)
                    dot += qi[c] * kj[c];
                w[e] = dot;
            }
        }
        double row_least = softmax_edges(w, count, tau);
        if (row_least < least)
            least = row_least;
    }
    if (dense) {
        for (size_t i = 0; i < (size_t)n * n; ++i)
            scratch[i] = 0;
        for (int i = 0; i < n; ++i)
            for (int e = mask->row_start[i]; e < mask->row_start[i + 1]; ++e)
                scratch[(size_t)i * n + mask->column[e]] = weights[e];
        ar_gemm_nn(n, d, n, scratch, x, out);
        return least;
    }
    for (int i = 0; i < n; ++i) {
        double *yi = out + (size_t)i * d;
        for (int c = 0; c < d; ++c)
            yi[c] = 0;
        for (int e = mask->row_start[i]; e < mask->row_start[i + 1]; ++e) {
            const double *xj = x + (size_t)mask->column[e] * d, w = weights[e];
            for (int c = 0; c < d; ++c)
                yi[c] += w * xj[c];
        }
    }
    return least;
}
