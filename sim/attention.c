/* attention: softmax and hardmax rows. */
#include "attnrank/attention.h"

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
