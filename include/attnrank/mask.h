/* mask: attention masks as directed graphs with self-loops.
 *
 * Token i attends to token j exactly when the edge j -> i is in the graph; every token
 * attends to itself. A mask is stored by rows (CSR): row i lists, in increasing order,
 * the tokens it attends to. Kinds (n tokens, half-width w, stride s, g global tokens,
 * edge probability p):
 *   complete        every pair
 *   causal          j <= i
 *   window          |i - j| <= w                         (two-sided sliding window)
 *   causal_window   i - w <= j <= i                      (one-sided sliding window)
 *   dilated         |i - j| <= w s and s divides i - j    (strided; disconnected for s > 1)
 *   global          window, plus the first g tokens attend to and are attended by all
 *   random          each j != i with probability p, drawn per trial
 * For the collapse bound the graph's shape matters: whether some root reaches every
 * token (a directed spanning tree) and its radius from the best root (steps along
 * edges j -> i), computed by breadth-first search. */
#ifndef ATTNRANK_MASK_H
#define ATTNRANK_MASK_H

#include "attnrank/rng.h"

#include <stddef.h>

typedef enum {
    AR_MASK_COMPLETE,
    AR_MASK_CAUSAL,
    AR_MASK_WINDOW,
    AR_MASK_CAUSAL_WINDOW,
    AR_MASK_DILATED,
    AR_MASK_GLOBAL,
    AR_MASK_RANDOM
} ar_mask_kind;

extern const char *const ar_mask_names[]; /* NULL-terminated, in ar_mask_kind order */

typedef struct ar_mask_spec {
    ar_mask_kind kind;
    int n, half_width, stride, globals;
    double probability;
} ar_mask_spec;

typedef struct ar_mask {
    int n;
    long edges;
    int *row_start; /* n + 1 */
    int *column;    /* edges */
} ar_mask;

/* Largest edge count the spec can produce (the full n^2 for random masks). */
long ar_mask_max_edges(const ar_mask_spec *spec);
/* ints of storage for ar_mask_build: row_start and columns. */
size_t ar_mask_storage(const ar_mask_spec *spec);
/* Build the mask in storage; rng is used only by random masks. */
void ar_mask_build(const ar_mask_spec *spec, ar_rng *rng, int *storage, ar_mask *mask);

/* Radius from the best root (the smallest r such that some token reaches all within r
 * steps), or -1 if no token reaches all (no directed spanning tree); *root gets the
 * root. work: ar_mask_radius_workspace ints. */
size_t ar_mask_radius_workspace(const ar_mask *mask);
/* The same for any mask the spec can build (its largest edge count), before building. */
size_t ar_mask_spec_radius_workspace(const ar_mask_spec *spec);
int ar_mask_radius(const ar_mask *mask, int *root, int *work);

#endif
