/* rank: rank measures from singular values, argmax rank, planar hull vertices. */
#include "attnrank/rank.h"

#include "attnrank/linalg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ar_numrank_abs(const double *sv, int count, double tol)
{
    int r = 0;
    for (int i = 0; i < count; ++i)
        r += sv[i] > tol;
    return r;
}

int ar_numrank_rel(const double *sv, int count, int rows, int cols)
{
    if (count == 0)
        return 0;
    double tol = (rows > cols ? rows : cols) * DBL_EPSILON * sv[0];
    return ar_numrank_abs(sv, count, tol);
}

int ar_numrank_certified(const double *sv, int count, int rows, int cols, double error)
{
    if (count == 0)
        return 0;
    if (!(error >= 0)) /* no bound: no certificate */
        return -1;
    double cut = AR_CERTIFIED_CUT * sv[0], margin = 16.0 * (rows > cols ? rows : cols) * DBL_EPSILON * sv[0] + error;
    int r = 0;
    for (int i = 0; i < count; ++i) {
        if (fabs(sv[i] - cut) <= margin)
            return -1;
        r += sv[i] > cut;
    }
    return r;
}

/* A zero matrix (or none) has no stable or effective rank: NaN, which the engine counts
 * as a failed value, never 0 averaged with the others. */
double ar_stable_rank(const double *sv, int count)
{
    if (count == 0 || sv[0] == 0.0)
        return NAN;
    double total = 0.0;
    for (int i = 0; i < count; ++i) {
        double r = sv[i] / sv[0];
        total += r * r;
    }
    return total;
}

double ar_stable_rank_gram(const double *sv, int count)
{
    if (count == 0 || sv[0] == 0.0)
        return NAN;
    double total = 0.0;
    for (int i = 0; i < count; ++i) {
        double r = sv[i] / sv[0];
        total += r * r * r * r;
    }
    return total;
}

double ar_effective_rank(const double *sv, int count)
{
    double sum = 0.0;
    for (int i = 0; i < count; ++i)
        sum += sv[i];
    if (sum == 0.0)
        return NAN;
    double entropy = 0.0;
    for (int i = 0; i < count; ++i) {
        double p = sv[i] / sum;
        if (p > 0.0)
            entropy -= p * log(p);
    }
    return exp(entropy);
}

void ar_stable_ranks_of(int m, int n, const double *x, const double *start, double *work, double *gram_work,
                        double *stable, double *gram)
{
    double frob2 = 0, top;
    *stable = NAN;
    if (gram)
        *gram = NAN;
    for (size_t i = 0; i < (size_t)m * n; ++i)
        frob2 += x[i] * x[i];
    if (!(frob2 > 0) || !isfinite(frob2))
        return; /* a zero matrix has no stable rank; an overflowed one no measure */
    if (ar_top_singular_values(m, n, x, 1, start, AR_STABLE_RANK_STEPS, 1e-12, &top, work) < 0 || !(top > 0))
        return;
    *stable = frob2 / (top * top);
    if (!gram)
        return;
    /* sum sigma^4 = ||x x^T||_F^2 = ||x^T x||_F^2: the smaller Gram matrix. */
    int k = m <= n ? m : n;
    if (m <= n)
        ar_gemm_nt(m, m, n, x, x, gram_work);
    else
        ar_gemm('T', 'N', n, n, m, 1, x, x, 0, gram_work);
    double sum4 = 0, top2 = top * top;
    for (size_t i = 0; i < (size_t)k * k; ++i)
        sum4 += (gram_work[i] / top2) * (gram_work[i] / top2);
    *gram = sum4;
}

double ar_stable_rank_of(int m, int n, const double *x, const double *start, double *work)
{
    double stable;
    ar_stable_ranks_of(m, n, x, start, work, NULL, &stable, NULL);
    return stable;
}

int ar_argmax_rank(int rows, const int *argmax, int cols, unsigned char *seen)
{
    memset(seen, 0, (size_t)cols);
    int distinct = 0;
    for (int i = 0; i < rows; ++i) {
        distinct += !seen[argmax[i]];
        seen[argmax[i]] = 1;
    }
    return distinct;
}

typedef struct {
    double x, y;
} point2;

static int compare_points(const void *pa, const void *pb)
{
    const point2 *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    return 0;
}

static double cross(point2 o, point2 a, point2 b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

int ar_hull_vertices_2d(int n, const double *xy, double *scratch)
{
    if (n < 3)
        return n;
    point2 *pts = (point2 *)scratch;   /* n points */
    point2 *hull = pts + n;            /* room for 2 * n points */
    memcpy(pts, xy, (size_t)n * sizeof *pts);
    qsort(pts, (size_t)n, sizeof *pts, compare_points);
    int k = 0;
    for (int i = 0; i < n; ++i) { /* lower hull */
        while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0)
            k--;
        hull[k++] = pts[i];
    }
    for (int i = n - 2, lower = k + 1; i >= 0; --i) { /* upper hull */
        while (k >= lower && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0)
            k--;
        hull[k++] = pts[i];
    }
    return k - 1; /* the first point is repeated at the end */
}
