/* mask: mask graphs in row (CSR) form and their radius (see mask.h). */
#include "attnrank/mask.h"


const char *const ar_mask_names[] = {[AR_MASK_COMPLETE] = "complete",
                                    [AR_MASK_CAUSAL] = "causal",
                                    [AR_MASK_WINDOW] = "window",
                                    [AR_MASK_CAUSAL_WINDOW] = "causal_window",
                                    [AR_MASK_DILATED] = "dilated",
                                    [AR_MASK_GLOBAL] = "global",
                                    [AR_MASK_RANDOM] = "random",
                                    NULL};

static int attends(const ar_mask_spec *s, int i, int j)
{
    int gap = i > j ? i - j : j - i;
    switch (s->kind) {
    case AR_MASK_COMPLETE: return 1;
    case AR_MASK_CAUSAL: return j <= i;
    case AR_MASK_WINDOW: return gap <= s->half_width;
    case AR_MASK_CAUSAL_WINDOW: return j <= i && i - j <= s->half_width;
    case AR_MASK_DILATED: return gap % s->stride == 0 && gap <= s->half_width * s->stride;
    case AR_MASK_GLOBAL: return gap <= s->half_width || i < s->globals || j < s->globals;
    case AR_MASK_RANDOM: return i == j; /* the random edges are drawn in ar_mask_build */
    }
    return 0;
}

/* Tokens j in [lo, hi] with lo, hi clipped to 0..n-1. */
static long span(long lo, long hi, long n)
{
    lo = lo < 0 ? 0 : lo;
    hi = hi > n - 1 ? n - 1 : hi;
    return hi >= lo ? hi - lo + 1 : 0;
}

long ar_mask_max_edges(const ar_mask_spec *s)
{
    long n = s->n, w = s->half_width, g = s->globals, edges = 0;
    if (s->kind == AR_MASK_RANDOM || s->kind == AR_MASK_COMPLETE)
        return n * n;
    for (long i = 0; i < n; ++i) /* row by row, in O(1) a row */
        switch (s->kind) {
        case AR_MASK_CAUSAL: edges += i + 1; break;
        case AR_MASK_WINDOW: edges += span(i - w, i + w, n); break;
        case AR_MASK_CAUSAL_WINDOW: edges += span(i - w, i, n); break;
        case AR_MASK_DILATED: {
            long stride = s->stride, below = i / stride, above = (n - 1 - i) / stride;
            edges += (below < w ? below : w) + (above < w ? above : w) + 1;
            break;
        }
        case AR_MASK_GLOBAL:
            /* a global row sees all; another sees its window and the globals outside it */
            edges += i < g ? n : span(i - w, i + w, n) + g - span(i - w, i + w < g - 1 ? i + w : g - 1, n);
            break;
        default: break;
        }
    return edges;
}

size_t ar_mask_storage(const ar_mask_spec *spec)
{
    return (size_t)spec->n + 1 + (size_t)ar_mask_max_edges(spec);
}

void ar_mask_build(const ar_mask_spec *spec, ar_rng *rng, int *storage, ar_mask *mask)
{
    int n = spec->n;
    mask->n = n;
    mask->row_start = storage;
    mask->column = storage + n + 1;
    long e = 0;
    for (int i = 0; i < n; ++i) {
        mask->row_start[i] = (int)e;
        for (int j = 0; j < n; ++j)
            if (spec->kind == AR_MASK_RANDOM ? i == j || ar_rng_uniform(rng) < spec->probability
                                             : attends(spec, i, j))
                mask->column[e++] = j;
    }
    mask->row_start[n] = (int)e;
    mask->edges = e;
}

/* distances, queue, root order, degree counts, and the transposed graph (out-edges) */
static size_t radius_workspace(int n, long edges) { return 5 * (size_t)n + 2 + (size_t)edges; }

size_t ar_mask_radius_workspace(const ar_mask *mask) { return radius_workspace(mask->n, mask->edges); }

size_t ar_mask_spec_radius_workspace(const ar_mask_spec *spec)
{
    return radius_workspace(spec->n, ar_mask_max_edges(spec));
}

int ar_mask_radius(const ar_mask *mask, int *root, int *work)
{
    int n = mask->n;
    int *dist = work, *queue = dist + n, *order = queue + n, *count = order + n, *out_start = count + n + 1;
    int *out = out_start + n + 1;
    /* Transpose: out-edges j -> i of every j, from the rows' in-edges. */
    for (int j = 0; j <= n; ++j)
        out_start[j] = 0;
    for (long e = 0; e < mask->edges; ++e)
        out_start[mask->column[e] + 1]++;
    for (int j = 0; j < n; ++j)
        out_start[j + 1] += out_start[j];
    for (int j = 0; j < n; ++j)
        dist[j] = out_start[j]; /* fill cursor */
    for (int i = 0; i < n; ++i)
        for (int e = mask->row_start[i]; e < mask->row_start[i + 1]; ++e)
            out[dist[mask->column[e]]++] = i;
    /* Try the most promising roots first, so that later searches stop early: most
     * out-edges first, ties from the middle outwards (a stable counting sort). */
    for (int step = 0, filled = 0; filled < n; ++step) {
        if (n / 2 + step < n)
            queue[filled++] = n / 2 + step;
        if (step > 0 && n / 2 - step >= 0)
            queue[filled++] = n / 2 - step;
    }
    for (int k = 0; k <= n; ++k)
        count[k] = 0;
    for (int j = 0; j < n; ++j)
        count[n - (out_start[j + 1] - out_start[j])]++;
    for (int k = 0, sum = 0; k <= n; ++k) {
        int c = count[k];
        count[k] = sum;
        sum += c;
    }
    for (int k = 0; k < n; ++k) {
        int j = queue[k];
        order[count[n - (out_start[j + 1] - out_start[j])]++] = j;
    }
    int best = -1;
    *root = -1;
    for (int k = 0; k < n; ++k) {
        int r = order[k];
        for (int j = 0; j < n; ++j)
            dist[j] = -1;
        int head = 0, tail = 0, reached = 1, depth = 0;
        dist[r] = 0;
        queue[tail++] = r;
        while (head < tail) {
            int j = queue[head++];
            if (best >= 0 && dist[j] + 1 >= best)
                break; /* deeper levels cannot beat the best root */
            for (int e = out_start[j]; e < out_start[j + 1]; ++e)
                if (dist[out[e]] < 0) {
                    dist[out[e]] = depth = dist[j] + 1;
                    queue[tail++] = out[e];
                    reached++;
                }
        }
        if (reached == n && (best < 0 || depth < best))
            best = depth, *root = r;
    }
    return best;
}
