/* rank: every measure against hand-computed values; argmax_rank against the SVD rank. */
#include "attnrank/attention.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/rng.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static void measures_by_hand(void)
{
    const double sv[] = {2.0, 1.0, 1e-9, 0.0};
    CHECK(ar_numrank_abs(sv, 4, 1e-8) == 2);
    CHECK(ar_numrank_abs(sv, 4, 1e-10) == 3);
    /* rel: tol = 4 * eps * 2 ~ 1.8e-15, so 1e-9 counts. */
    CHECK(ar_numrank_rel(sv, 4, 4, 4) == 3);
    /* certified: cut 1e-10 * 2 = 2e-10, margin 16 * 4 * eps * 2 ~ 2.8e-14 */
    CHECK(ar_numrank_certified(sv, 4, 4, 4, 0) == 3);
    const double near_cut[] = {2, 1, 2e-10 + 1e-14, 0};
    CHECK(ar_numrank_certified(near_cut, 4, 4, 4, 0) == -1); /* rounding could move it across */
    const double clear_cut[] = {2, 1, 2e-10 + 1e-13, 0};
    CHECK(ar_numrank_certified(clear_cut, 4, 4, 4, 0) == 3);
    CHECK(ar_numrank_certified(clear_cut, 4, 4, 4, 1e-13) == -1); /* the matrix's own error counts too */
    CHECK(ar_numrank_certified(clear_cut, 4, 4, 4, NAN) == -1);
    CHECK_NEAR(ar_stable_rank(sv, 4), (4.0 + 1.0 + 1e-18) / 4.0, 1e-15);
    CHECK_NEAR(ar_stable_rank_gram(sv, 4), (16.0 + 1.0) / 16.0, 1e-15);
    const double flat[] = {3, 3, 3, 3};
    CHECK_NEAR(ar_effective_rank(flat, 4), 4.0, 1e-12);
    /* p = (2/3, 1/3): exp(-(2/3 ln 2/3 + 1/3 ln 1/3)) = 1.8898815748423097 */
    CHECK_NEAR(ar_effective_rank(sv, 2), 1.8898815748423097, 1e-12);
    /* A zero matrix has no stable or effective rank: NaN (a failed value), not 0. */
    const double zero[] = {0, 0};
    CHECK(isnan(ar_stable_rank(zero, 2)) && isnan(ar_stable_rank_gram(zero, 2)) && isnan(ar_effective_rank(zero, 2)));
}

/* ar_stable_rank_of and ar_stable_ranks_of on matrices with known singular values (3, 2,
 * 1): stable rank 14/9, of X X^T 98/81, either orientation; a zero matrix gives NaN for
 * both (it used to give a stable rank of 0, averaged as a normal trial). */
static void stable_ranks_from_the_matrix(void)
{
    enum { M = 3, N = 5 };
    double x[M * N] = {0}, xt[N * M] = {0}, start[N] = {1, 0.5, 0.25, 0.125, 0.0625}, gram[M * M];
    const double sv[M] = {1, 3, 2}; /* unsorted on purpose: Lanczos finds the largest */
    for (int i = 0; i < M; ++i)
        x[i * N + (i + 1)] = sv[i], xt[(i + 1) * M + i] = sv[i];
    size_t need = ar_top_singular_values_workspace(N, N, AR_STABLE_RANK_STEPS);
    double *work = malloc(need * sizeof *work);
    double stable, sr_gram;
    ar_stable_ranks_of(M, N, x, start, work, gram, &stable, &sr_gram);
    CHECK_NEAR(stable, 14.0 / 9, 1e-10);
    CHECK_NEAR(sr_gram, 98.0 / 81, 1e-10);
    CHECK_NEAR(ar_stable_rank_of(M, N, x, start, work), 14.0 / 9, 1e-10);
    ar_stable_ranks_of(N, M, xt, start, work, gram, &stable, &sr_gram); /* m > n: the n x n Gram */
    CHECK_NEAR(stable, 14.0 / 9, 1e-10);
    CHECK_NEAR(sr_gram, 98.0 / 81, 1e-10);
    double zero[M * N] = {0};
    ar_stable_ranks_of(M, N, zero, start, work, gram, &stable, &sr_gram);
    CHECK(isnan(stable) && isnan(sr_gram));
    CHECK(isnan(ar_stable_rank_of(M, N, zero, start, work)));
    free(work);
}

static void singular_values_of_known_matrices(void)
{
    /* Row-major 3 x 2 [[3, 0], [0, 4], [0, 0]]: singular values 4, 3. */
    double a[6] = {3, 0, 0, 4, 0, 0}, s[2], work[256];
    int iwork[16];
    CHECK(ar_singular_values_workspace(3, 2) <= 256);
    CHECK(ar_singular_values(3, 2, a, s, work, iwork) == 0);
    CHECK_NEAR(s[0], 4, 1e-14);
    CHECK_NEAR(s[1], 3, 1e-14);
    /* Rank-one 2 x 2 ones: singular values 2, 0. */
    double b[4] = {1, 1, 1, 1};
    CHECK(ar_singular_values(2, 2, b, s, work, iwork) == 0);
    CHECK_NEAR(s[0], 2, 1e-14);
    CHECK(ar_numrank_abs(s, 2, 1e-8) == 1);
}

static void argmax_rank_is_the_svd_rank(void)
{
    ar_rng r;
    int agree = 1;
    for (int trial = 0; trial < 200; ++trial) {
        ar_rng_init(&r, 5, 5, (uint64_t)trial, 0);
        int n = 2 + (int)(ar_rng_u64(&r) % 30), cols = n;
        double *scores = malloc((size_t)n * cols * sizeof *scores);
        double *onehot = calloc((size_t)n * cols, sizeof *onehot);
        double *s = malloc((size_t)n * sizeof *s);
        double *work = malloc(ar_singular_values_workspace(n, cols) * sizeof *work);
        int *iwork = malloc(8 * (size_t)n * sizeof *iwork), *argmax = malloc((size_t)n * sizeof *argmax);
        unsigned char *seen = malloc((size_t)cols);
        /* Few distinct winners on purpose: scores from a rank-2 product. */
        double q[64][2], k[64][2];
        for (int i = 0; i < n; ++i)
            for (int c = 0; c < 2; ++c)
                q[i][c] = ar_rng_normal(&r), k[i][c] = ar_rng_normal(&r);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < cols; ++j)
                scores[i * cols + j] = q[i][0] * k[j][0] + q[i][1] * k[j][1];
        ar_argmax_rows(n, cols, scores, argmax);
        for (int i = 0; i < n; ++i)
            onehot[i * cols + argmax[i]] = 1;
        int fast = ar_argmax_rank(n, argmax, cols, seen);
        ar_singular_values(n, cols, onehot, s, work, iwork);
        agree &= fast == ar_numrank_rel(s, n, n, cols);
        free(scores), free(onehot), free(s), free(work), free(iwork), free(argmax), free(seen);
    }
    CHECK(agree);
}

static void hull_vertices_by_hand(void)
{
    double scratch[6 * 8];
    const double square_and_centre[] = {0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5};
    CHECK(ar_hull_vertices_2d(5, square_and_centre, scratch) == 4);
    const double collinear[] = {0, 0, 1, 1, 2, 2, 3, 3};
    CHECK(ar_hull_vertices_2d(4, collinear, scratch) == 2);
    const double triangle_with_edge_point[] = {0, 0, 2, 0, 1, 0, 1, 3};
    CHECK(ar_hull_vertices_2d(4, triangle_with_edge_point, scratch) == 3);
    const double two[] = {0, 0, 1, 1};
    CHECK(ar_hull_vertices_2d(2, two, scratch) == 2);
}

int main(void)
{
    check_register_families();
    measures_by_hand();
    stable_ranks_from_the_matrix();
    singular_values_of_known_matrices();
    argmax_rank_is_the_svd_rank();
    hull_vertices_by_hand();
    return check_report("rank");
}
