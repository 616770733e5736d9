/* attention: turning score matrices into attention matrices.
 *
 * Softmax is max-subtracted and exact at any temperature: it never returns NaN or Inf
 * for finite scores, including temperatures of 1e-300 (hardmax limit) and 1e300
 * (uniform limit). Hardmax keeps one entry per row, the first maximum. */
#ifndef ATTNRANK_ATTENTION_H
#define ATTNRANK_ATTENTION_H

/* out (rows x cols) = row-wise softmax(scores / tau); out may alias scores. */
/* The standard deviation of key-query logits x W_Q W_K^T y^T / sqrt(d) at unit-norm
 * tokens that a simulator's `scale` asks for (W_Q, W_K then get N(0, it) entries): 0
 * means 1/d, the usual N(0, 1/d) initialisation. */
static inline double ar_logit_scale(double scale, int d) { return scale > 0 ? scale : 1.0 / d; }

void ar_softmax_rows(int rows, int cols, const double *scores, double tau, double *out);

/* x[i] = e^x[i] in place for x[i] <= 0, a loop the compiler vectorises (about 2.5 ns a
 * value here against 5 for libm's exp): x = k ln2 + r with |r| <= ln2/2, e^r by its
 * degree-13 Taylor polynomial, 2^k from the exponent bits. Within 2 ulp of libm's exp
 * (tested); e^0 is exactly 1; values below e^-708 (about 3e-308) become 0. */
void ar_exp_nonpositive(double *x, int count);

struct ar_mask;
/* Masked softmax attention applied to x (n x d, out = A x): A's row i is the softmax of
 * q_i . k_j / tau over the tokens j that row i of the mask lists, zero elsewhere; its
 * weights go to weights[e], edge by edge in the mask's order. dense: the scores come
 * from one n x n gemm and A x from another (scratch: n * n doubles), the fast route
 * when most pairs are edges; else only the edges' scores are computed and A x is a
 * sparse product, O(edges * d) (scratch unused). A row with one edge gets weight exactly
 * 1. The exponentials come from ar_exp_nonpositive. Returns the smallest weight on an
 * edge. */
double ar_masked_attention(const struct ar_mask *mask, int d, const double *q, const double *k, const double *x,
                           double tau, int dense, double *scratch, double *weights, double *out);

/* argmax[i] = column of the first maximum of row i. */
void ar_argmax_rows(int rows, int cols, const double *scores, int *argmax);

#endif
