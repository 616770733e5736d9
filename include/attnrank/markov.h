/* markov: facts about the random Markov matrices of sim/markov.c that the theory
 * module and the tests share. */
#ifndef ATTNRANK_MARKOV_H
#define ATTNRANK_MARKOV_H

#include "attnrank/rng.h"
#include "attnrank/sim.h"

/* Draw the n x n matrix of a point into a: A, or A - 11^T/n when the point removes the
 * gap. Reads the parameters n, entries (as markov_spectrum numbers its laws), gap, and
 * for key-query attention d_h and scale; q, k: n x d_h scratch each for key-query
 * attention (else unused, may be NULL). */
void ar_markov_sample(const ar_point *point, ar_rng *rng, double *a, double *q, double *k);

/* Mean m and standard deviation s of the entry law with this index of the
 * markov_spectrum "entries" parameter; NaN for key-query attention. */
void ar_markov_law_moments(int law, double *m, double *s);

/* CDF of the quarter-circle law on [0, 2r]: the limit law of the singular values of an
 * n x n matrix with iid entries of variance r^2 / n. */
double ar_quarter_circle_cdf(double x, double r);

#endif
