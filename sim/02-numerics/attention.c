/* attention: softmax and hardmax rows. */
#include "attnrank/attention.h"

#include "attnrank/linalg.h"
#include "attnrank/mask.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The hot loops are built for AVX-512, AVX2 and plain SSE2 and picked at run time (GCC;
 * clang 14's target_clones does not link, so a clang build gets the plain version). */
#if defined(__GNUC__) && !defined(__clang__)
#define CLONED __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CLONED
#endif

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

CLONED void ar_exp_nonpositive(double *x, int count)
{
    const double log2e = 0x1.71547652b82fep0, ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
    const double shifter = 0x1.8p52; /* adding it rounds to an integer held in the low bits */
    for (int i = 0; i < count; ++i) {
        /* No branches, so that the loop vectorises: lanes below -708 (where 2^k would
         * leave the normal range, or x is -inf) compute garbage that a mask zeroes. */
        double v = x[i];
        double kd = v * log2e + shifter, k = kd - shifter;
        double r = (v - k * ln2_hi) - k * ln2_lo; /* ln2_hi has trailing zeros: k * ln2_hi is exact */
        /* e^r = sum r^j / j!, j <= 13, in Estrin's form: a shallow dependency tree
         * (Horner's 13-deep chain made the loop latency-bound at 4 ns a value) */
        double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        double p01 = 1.0 + r, p23 = 1.0 / 2 + r * (1.0 / 6), p45 = 1.0 / 24 + r * (1.0 / 120);
        double p67 = 1.0 / 720 + r * (1.0 / 5040), p89 = 1.0 / 40320 + r * (1.0 / 362880);
        double p1011 = 1.0 / 3628800 + r * (1.0 / 39916800), p1213 = 1.0 / 479001600 + r * (1.0 / 6227020800);
        double q0 = p01 + r2 * p23, q1 = p45 + r2 * p67, q2 = p89 + r2 * p1011;
        double p = (q0 + r4 * q1) + r8 * (q2 + r4 * p1213);
        uint64_t bits, magnitude;
        memcpy(&bits, &kd, sizeof bits);
        bits = (bits + 1023) << 52; /* k + 1023 in the exponent field: 2^k, k >= -1022 */
        double scale;
        memcpy(&scale, &bits, sizeof scale);
        double result = p * scale;
        /* keep the lane iff |v| <= 708 (0x4086200000000000 is 708.0), by integer
         * arithmetic: a floating-point comparison would stop the vectoriser */
        memcpy(&magnitude, &v, sizeof magnitude);
        magnitude &= 0x7fffffffffffffffu;
        uint64_t keep = ((0x4086200000000000u - magnitude) >> 63) - 1;
        memcpy(&bits, &result, sizeof bits);
        bits &= keep;
        memcpy(&x[i], &bits, sizeof bits);
    }
}

/* Softmax of the scores s[0..count) in place; returns the row's smallest weight.
 * scale: multiply the max-subtracted scores by it (1/tau), or 0 to divide by tau
 * instead (for a tau so small that 1/tau overflows). */
static double softmax_edges(double *s, int count, double scale, double tau)
{
    /* Reductions in four independent lanes: one chain would wait on each add's
     * latency (the max and min are exact in any order; the sum's order is fixed). */
    double top[4] = {s[0], s[0], s[0], s[0]}, sum[4] = {0, 0, 0, 0}, low[4] = {1, 1, 1, 1};
    int e = 0;
    for (; e + 4 <= count; e += 4)
        for (int j = 0; j < 4; ++j)
            top[j] = s[e + j] > top[j] ? s[e + j] : top[j];
    for (; e < count; ++e)
        top[0] = s[e] > top[0] ? s[e] : top[0];
    double max = fmax(fmax(top[0], top[1]), fmax(top[2], top[3]));
    if (scale > 0)
        for (e = 0; e < count; ++e)
            s[e] = (s[e] - max) * scale; /* <= 0, and exactly 0 at the maximum */
    else
        for (e = 0; e < count; ++e)
            s[e] = -((max - s[e]) / tau);
    ar_exp_nonpositive(s, count);
    for (e = 0; e + 4 <= count; e += 4)
        for (int j = 0; j < 4; ++j)
            sum[j] += s[e + j];
    for (; e < count; ++e)
        sum[0] += s[e];
    double inverse = 1 / ((sum[0] + sum[1]) + (sum[2] + sum[3])); /* >= 1: the maximum gives e^0 */
    for (e = 0; e + 4 <= count; e += 4)
        for (int j = 0; j < 4; ++j) {
            s[e + j] *= inverse;
            low[j] = s[e + j] < low[j] ? s[e + j] : low[j];
        }
    for (; e < count; ++e) {
        s[e] *= inverse;
        low[0] = s[e] < low[0] ? s[e] : low[0];
    }
    return fmin(fmin(low[0], low[1]), fmin(low[2], low[3]));
}

/* q . k in four independent lanes, which the compiler vectorises (one running sum
 * would wait on each add); the order of the sums is fixed, so results are too. */
static double dot(int d, const double *q, const double *k)
{
    double lane[4] = {0, 0, 0, 0};
    int c = 0;
    for (; c + 4 <= d; c += 4)
        for (int j = 0; j < 4; ++j)
            lane[j] += q[c + j] * k[c + j];
    for (; c < d; ++c)
        lane[0] += q[c] * k[c];
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

/* Does the row list a run of consecutive columns (window, causal, complete masks)? */
static int contiguous(const int *cols, int count)
{
    return count > 0 && cols[count - 1] - cols[0] == count - 1;
}

/* Cloned for wider vector units like ar_exp_nonpositive: every reduction has explicit
 * lanes and nothing is fused, so each clone computes the same bits. */
CLONED double
ar_masked_attention(const ar_mask *mask, int d, const double *q, const double *k, const double *x,
                           double tau, int dense, double *scratch, double *weights, double *out)
{
    int n = mask->n;
    double least = 1, scale = 1 / tau;
    if (!(scale > 0 && isfinite(scale)))
        scale = 0;
    if (dense)
        ar_gemm_nt(n, n, d, q, k, scratch); /* every score; the mask picks the edges */
    for (int i = 0; i < n; ++i) {
        int first = mask->row_start[i], count = mask->row_start[i + 1] - first;
        const int *cols = mask->column + first;
        double *w = weights + first, *row = scratch + (size_t)i * n;
        int run = contiguous(cols, count);
        if (dense && run) {
            memcpy(w, row + cols[0], (size_t)count * sizeof *w);
        } else if (dense) {
            for (int e = 0; e < count; ++e)
                w[e] = row[cols[e]];
        } else {
            const double *qi = q + (size_t)i * d;
            for (int e = 0; e < count; ++e)
                w[e] = dot(d, qi, k + (size_t)cols[e] * d);
        }
        double row_least = softmax_edges(w, count, scale, tau);
        least = row_least < least ? row_least : least;
        if (dense) { /* row i of A: the weights on the edges, zero elsewhere */
            if (run) {
                memset(row, 0, (size_t)cols[0] * sizeof *row);
                memcpy(row + cols[0], w, (size_t)count * sizeof *row);
                memset(row + cols[0] + count, 0, (size_t)(n - cols[0] - count) * sizeof *row);
            } else {
                memset(row, 0, (size_t)n * sizeof *row);
                for (int e = 0; e < count; ++e)
                    row[cols[e]] = w[e];
            }
        }
    }
    if (dense) {
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
