/* attention: turning score matrices into attention matrices.
 *
 * Softmax is max-subtracted and exact at any temperature: it never returns NaN or Inf
 * for finite scores, including temperatures of 1e-300 (hardmax limit) and 1e300
 * (uniform limit). Hardmax keeps one entry per row, the first maximum. */
#ifndef ATTNRANK_ATTENTION_H
#define ATTNRANK_ATTENTION_H

/* out (rows x cols) = row-wise softmax(scores / tau); out may alias scores. */
void ar_softmax_rows(int rows, int cols, const double *scores, double tau, double *out);

/* argmax[i] = column of the first maximum of row i. */
void ar_argmax_rows(int rows, int cols, const double *scores, int *argmax);

#endif
