/* linalg: the Haar-orthonormal sampler is orthonormal and Haar; OpenBLAS's buffer is
 * the size the address-space pre-flight counts; attnrank's small gemm (both versions)
 * agrees with OpenBLAS within the rounding bound, on every edge shape, and gives the
 * same argmax ranks. */
#define _GNU_SOURCE /* setenv, execl */
#include "attnrank/attention.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rank.h"
#include "attnrank/rng.h"
#include "check.h"

#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void rows_are_orthonormal(int n, int d)
{
    double *x = malloc((size_t)n * d * sizeof *x), *g = malloc((size_t)n * n * sizeof *g);
    double *work = malloc(ar_haar_rows_workspace(n, d) * sizeof *work);
    ar_rng r;
    ar_rng_init(&r, 1, (uint64_t)n, (uint64_t)d, 0);
    ar_rng_normals(&r, x, (size_t)n * d);
    CHECK(ar_haar_rows(n, d, x, work) == 0);
    ar_gemm_nt(n, n, d, x, x, g); /* X X^T */
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            worst = fmax(worst, fabs(g[i * n + j] - (i == j)));
    printf("n = %d, d = %d: max |X X^T - I| = %.2e\n", n, d, worst);
    CHECK(worst < 1e-12);
    free(x), free(g), free(work);
}

/* Haar: every entry x_ij has x_ij^2 ~ Beta(1/2, (d-1)/2) and a symmetric sign. Without
 * the sign fix Householder QR makes the diagonal entries lean negative, which the
 * mean of x_22 over many draws detects. */
static void rows_are_haar(void)
{
    const int n = 3, d = 5, draws = 40000;
    double *x = malloc((size_t)n * d * sizeof *x), *work = malloc(ar_haar_rows_workspace(n, d) * sizeof *work);
    double *sq = malloc(draws * sizeof *sq);
    double diag_sum = 0, diag_sq = 0;
    ar_rng r;
    for (int t = 0; t < draws; ++t) {
        ar_rng_init(&r, 2, 0, (uint64_t)t, 0);
        ar_rng_normals(&r, x, (size_t)n * d);
        ar_haar_rows(n, d, x, work);
        double x22 = x[1 * d + 1];
        diag_sum += x22;
        diag_sq += x22 * x22;
        sq[t] = x[2 * d + 3] * x[2 * d + 3];
    }
    double mean = diag_sum / draws, var = diag_sq / draws - mean * mean;
    printf("Haar: mean x_22 = %.4f (se %.4f), E x_22^2 = %.4f (want %.4f)\n", mean, sqrt(var / draws),
           diag_sq / draws, 1.0 / d);
    CHECK_NEAR(mean, 0.0, 4 * sqrt(var / draws));
    double a = 0.5, b = (d - 1) / 2.0, beta_var = a * b / ((a + b) * (a + b) * (a + b + 1));
    CHECK_NEAR(diag_sq / draws, 1.0 / d, 4 * sqrt(beta_var / draws));
    qsort(sq, draws, sizeof *sq, compare_doubles);
    double ks = 0;
    for (int t = 0; t < draws; ++t) {
        double f = gsl_cdf_beta_P(sq[t], 0.5, (d - 1) / 2.0);
        ks = fmax(ks, fmax(fabs(f - (double)t / draws), fabs(f - (double)(t + 1) / draws)));
    }
    printf("Haar: KS of x_34^2 against Beta(1/2, 2) = %.4f (critical %.4f)\n", ks, 1.95 / sqrt(draws));
    CHECK(ks < 1.95 / sqrt(draws));
    free(x), free(work), free(sq);
}

/* The bytes of the mappings in /proc/self/maps that are not among `before` (a list of
 * "start-end" ranges; NULL: none); with `save`, the current ranges are kept there. */
static double new_mappings(char (*before)[40], int n_before, char (*save)[40], int *n_save)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512], range[40];
    double bytes = 0;
    int n = 0;
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        if (sscanf(line, "%39s", range) != 1 || sscanf(range, "%lx-%lx", &lo, &hi) != 2)
            continue;
        int known = 0;
        for (int k = 0; k < n_before && !known; ++k)
            known = strcmp(before[k], range) == 0;
        if (!known)
            bytes += (double)(hi - lo);
        if (save && n < 4096)
            strcpy(save[n++], range);
    }
    if (maps)
        fclose(maps);
    if (n_save)
        *n_save = n;
    return bytes;
}

/* The address-space pre-flight counts ar_openblas_buffer_bytes() per thread: the most a
 * thread's BLAS calls map. Measured in a fresh process without OpenBLAS's pool (whose idle
 * buffers a caller would reuse), as attnrank runs under a limit. Whether a small dgemm
 * maps the buffer depends on the core: Haswell's kernels do, SkylakeX's and Cooperlake's
 * small-matrix path (M N K up to about 10^6) does not. A 512^3 product takes the buffered
 * path on every core, so the buffer is measured there, and neither call may map more. An
 * OpenBLAS built with another BUFFER_SIZE fails here, not in a hung run. */
static int measure_blas_buffer(void)
{
    static double a[512 * 512], b[512 * 512], c[512 * 512];
    static char ranges[4096][40];
    int n;
    double want = ar_openblas_buffer_bytes(), slack = 1048576;
    new_mappings(NULL, 0, ranges, &n);
    ar_gemm_nn(64, 64, 64, a, b, c);
    double small = new_mappings(ranges, n, NULL, NULL);
    ar_gemm_nn(512, 512, 512, a, b, c);
    double both = new_mappings(ranges, n, NULL, NULL);
    printf("BLAS buffer (core %s): a 64^3 dgemm mapped %.0f bytes (%s), with a 512^3 one %.0f; "
           "ar_openblas_buffer_bytes() says %.0f\n", ar_openblas_corename(), small,
           small >= want ? "the buffered path" : "a path without the buffer", both, want);
    int ok = small <= want + slack && both >= want && both <= want + slack;
    if (!ok)
        fprintf(stderr, "the BLAS calls mapped %.0f and %.0f bytes; ar_openblas_buffer_bytes() says %.0f\n", small,
                both, want);
    return ok ? 0 : 1;
}

static void blas_buffer_is_counted(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execl("/proc/self/exe", "test_linalg", "--blas-buffer", (char *)NULL);
        _exit(2);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}


/* Random entries of mixed signs and scales (a few exact zeros), from a fixed stream. */
static void fill(ar_rng *r, double *x, size_t count)
{
    ar_rng_normals(r, x, count);
    for (size_t i = 0; i < count; ++i)
        x[i] = i % 17 == 5 ? 0.0 : x[i] * ldexp(1.0, (int)(ar_rng_u64(r) % 9) - 4);
}

/* ar_gemm_nt_small (plain = 0: the AVX2+FMA version where the CPU has it) against
 * OpenBLAS (ar_gemm 'N','T') and a long-double reference, entry by entry. Both products
 * satisfy |c_hat - c| <= gamma_k (|A||B|^T)_ij with gamma_k = k u / (1 - k u), u = eps / 2,
 * whatever their order of summation and fusion, so they differ by at most 2 gamma_k, that
 * is k eps (|A||B|^T)_ij to within 1e-13 for k <= 256: c = 1 in the bound |error| <= c k eps
 * |A||B|^T, and c = 1/2 against the reference (whose own error is k 2^-64, added). Also:
 * k = 0 gives zeros, every entry is a function of its two rows only (the same bits in a
 * product of other rows), and exact integer data give exact results. Returns the worst
 * error over the bound. */
static double small_gemm_case(int m, int n, int k, int plain, ar_rng *r)
{
    size_t mk = (size_t)m * k, nk = (size_t)n * k, mn = (size_t)m * n;
    double *a = malloc((mk + 1) * sizeof *a), *b = malloc((nk + 1) * sizeof *b);
    double *c = malloc(mn * sizeof *c), *ref = malloc(mn * sizeof *ref), *part = malloc(mn * sizeof *part);
    fill(r, a, mk);
    fill(r, b, nk);
    ar_gemm_nt_small(m, n, k, a, b, c, plain);
    ar_gemm('N', 'T', m, n, k, 1.0, a, b, 0.0, ref);
    double worst = 0;
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            long double exact = 0, size = 0;
            for (int p = 0; p < k; ++p) {
                exact += (long double)a[(size_t)i * k + p] * b[(size_t)j * k + p];
                size += fabsl((long double)a[(size_t)i * k + p] * b[(size_t)j * k + p]);
            }
            double got = c[(size_t)i * n + j], against = ref[(size_t)i * n + j];
            double bound = (double)size * k * DBL_EPSILON * (1 + 1e-13);
            double vs_exact = (double)fabsl(got - exact), exact_bound = 0.5 * bound + (double)size * k * 0x1p-63;
            if (!(fabs(got - against) <= bound) || !(vs_exact <= exact_bound)) {
                fprintf(stderr, "m %d n %d k %d plain %d: c[%d][%d] = %.17g, OpenBLAS %.17g, exact %.17Lg\n", m, n, k,
                        plain, i, j, got, against, exact);
                check_failures++;
            }
            if (bound > 0)
                worst = fmax(worst, fabs(got - against) / bound);
        }
    /* rows 1.. of A against rows 2.. of B: the same entries, bit for bit */
    if (m > 1 && n > 2) {
        ar_gemm_nt_small(m - 1, n - 2, k, a + k, b + 2 * (size_t)k, part, plain);
        int same = 1;
        for (int i = 1; i < m; ++i)
            for (int j = 2; j < n; ++j)
                same &= memcmp(&part[(size_t)(i - 1) * (n - 2) + j - 2], &c[(size_t)i * n + j], sizeof *c) == 0;
        CHECK(same);
    }
    /* small integers: every product and partial sum is exact */
    for (size_t i = 0; i < mk; ++i)
        a[i] = (double)((int)(ar_rng_u64(r) % 33) - 16);
    for (size_t i = 0; i < nk; ++i)
        b[i] = (double)((int)(ar_rng_u64(r) % 33) - 16);
    ar_gemm_nt_small(m, n, k, a, b, c, plain);
    ar_gemm('N', 'T', m, n, k, 1.0, a, b, 0.0, ref);
    CHECK(memcmp(c, ref, mn * sizeof *c) == 0);
    free(a), free(b), free(c), free(ref), free(part);
    return worst;
}

static void small_gemm_matches_openblas(void)
{
    ar_rng r;
    ar_rng_init(&r, 7, 8, 9, 0);
    double worst[2] = {0, 0};
    int cases = 0;
    /* edges: rows not a multiple of the 6-row block, columns not of the 8-wide panel
     * (1..4 left: the one-vector kernel; 5..7: the masked stores), k = 1, 2, odd, the
     * largest allowed */
    static const int ms[] = {1, 2, 5, 6, 7, 13, 64}, ns[] = {1, 3, 4, 5, 8, 9, 12, 15, 17, 64};
    static const int ks[] = {1, 2, 3, 7, 64, 256};
    for (int plain = 0; plain < 2; ++plain) {
        for (size_t i = 0; i < sizeof ms / sizeof *ms; ++i)
            for (size_t j = 0; j < sizeof ns / sizeof *ns; ++j)
                for (size_t p = 0; p < sizeof ks / sizeof *ks; ++p, ++cases)
                    worst[plain] = fmax(worst[plain], small_gemm_case(ms[i], ns[j], ks[p], plain, &r));
        /* the trial sizes, and random shapes */
        static const int trial[][3] = {{64, 64, 64}, {64, 64, 16}, {96, 96, 32}, {128, 128, 128},
                                       {100, 100, 20}, {512, 37, 5}};
        for (size_t t = 0; t < sizeof trial / sizeof *trial; ++t, ++cases)
            worst[plain] = fmax(worst[plain], small_gemm_case(trial[t][0], trial[t][1], trial[t][2], plain, &r));
        for (int t = 0; t < 40; ++t, ++cases) {
            int m = 1 + (int)(ar_rng_u64(&r) % 150), n = 1 + (int)(ar_rng_u64(&r) % 150);
            int k = 1 + (int)(ar_rng_u64(&r) % 256);
            worst[plain] = fmax(worst[plain], small_gemm_case(m, n, k, plain, &r));
        }
    }
    /* k = 0: C = 0, as OpenBLAS's beta = 0 gives */
    double c[6] = {1, 2, 3, 4, 5, 6}, dummy = 0;
    ar_gemm_nt_small(2, 3, 0, &dummy, &dummy, c, 0);
    CHECK(c[0] == 0 && c[5] == 0);
    printf("small gemm (%s): %d shapes a version, largest |small - OpenBLAS| / (k eps |A||B|^T): %.3f (AVX2+FMA), "
           "%.3f (plain); bound 1\n", ar_gemm_small_has_avx2() ? "AVX2+FMA here" : "no AVX2+FMA here", cases / 2,
           worst[0], worst[1]);
}

/* ar_gemm_nt's route: the small kernel's bits for small shapes (with AVX2+FMA), OpenBLAS's
 * beyond the limits. */
static void gemm_nt_routes(void)
{
    static const int shapes[][3] = {{64, 64, 64}, {256, 256, 256}, {512, 512, 128}, {512, 512, 256}, {513, 8, 8},
                                    {8, 513, 8}, {16, 16, 257}};
    ar_rng r;
    ar_rng_init(&r, 7, 8, 10, 0);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        int m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
        double *a = malloc((size_t)m * k * sizeof *a), *b = malloc((size_t)n * k * sizeof *b);
        double *c = malloc((size_t)m * n * sizeof *c), *want = malloc((size_t)m * n * sizeof *want);
        fill(&r, a, (size_t)m * k);
        fill(&r, b, (size_t)n * k);
        ar_gemm_nt(m, n, k, a, b, c);
        int small = ar_gemm_small_has_avx2() && k <= AR_GEMM_SMALL_MAX_K && m <= AR_GEMM_SMALL_MAX_MN &&
                    n <= AR_GEMM_SMALL_MAX_MN && m * k <= AR_GEMM_SMALL_MAX_MK;
        CHECK(small == ar_gemm_nt_uses_small(m, n, k));
        CHECK(!ar_gemm_small_has_avx2() || small == (s < 3)); /* the first three by the kernel */
        if (small)
            ar_gemm_nt_small(m, n, k, a, b, want, 0);
        else
            ar_gemm('N', 'T', m, n, k, 1.0, a, b, 0.0, want);
        CHECK(memcmp(c, want, (size_t)m * n * sizeof *c) == 0);
        if (k > AR_GEMM_SMALL_MAX_K) { /* too long for the kernel's panel: it hands over to OpenBLAS */
            ar_gemm_nt_small(m, n, k, a, b, c, 0);
            CHECK(memcmp(c, want, (size_t)m * n * sizeof *c) == 0);
        }
        free(a), free(b), free(c), free(want);
    }
}

/* The hardmax trial's integer output under either gemm: S = Q K^T from iid normals (the
 * direct sampler's draw), argmax of every row by the small kernel and by OpenBLAS. A
 * changed argmax needs two scores of a row within rounding (about 1e-15 relative) of each
 * other, so over these 2 x 10^5 rows none is expected. */
static void small_gemm_keeps_argmax_ranks(void)
{
    static const int shapes[][3] = {{64, 64, 2000}, {64, 16, 1000}, {128, 32, 500}};
    long rows = 0, moved = 0, ranks_moved = 0, trials = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        int n = shapes[s][0], dh = shapes[s][1], count = shapes[s][2];
        double *q = malloc((size_t)n * dh * sizeof *q), *k = malloc((size_t)n * dh * sizeof *k);
        double *s1 = malloc((size_t)n * n * sizeof *s1), *s2 = malloc((size_t)n * n * sizeof *s2);
        int *arg1 = malloc((size_t)n * sizeof *arg1), *arg2 = malloc((size_t)n * sizeof *arg2);
        unsigned char *seen = malloc((size_t)n);
        for (int t = 0; t < count; ++t, ++trials) {
            ar_rng r;
            ar_rng_init(&r, 11, (uint64_t)n * 1000 + (uint64_t)dh, (uint64_t)t, 0);
            ar_rng_normals(&r, q, (size_t)n * dh);
            ar_rng_normals(&r, k, (size_t)n * dh);
            ar_gemm_nt_small(n, n, dh, q, k, s1, 0);
            ar_gemm('N', 'T', n, n, dh, 1.0, q, k, 0.0, s2);
            ar_argmax_rows(n, n, s1, arg1);
            ar_argmax_rows(n, n, s2, arg2);
            for (int i = 0; i < n; ++i, ++rows)
                moved += arg1[i] != arg2[i];
            ranks_moved += ar_argmax_rank(n, arg1, n, seen) != ar_argmax_rank(n, arg2, n, seen);
        }
        free(q), free(k), free(s1), free(s2), free(arg1), free(arg2), free(seen);
    }
    printf("argmax under the small kernel vs OpenBLAS: %ld of %ld rows moved, %ld of %ld ranks changed\n", moved, rows,
           ranks_moved, trials);
    CHECK(moved == 0 && ranks_moved == 0);
}

int main(int argc, char **argv)
{
    check_register_families();
    if (argc == 2 && strcmp(argv[1], "--blas-buffer") == 0)
        return measure_blas_buffer();
    blas_buffer_is_counted();
    rows_are_orthonormal(8, 8);
    rows_are_orthonormal(64, 64);
    rows_are_orthonormal(30, 100);
    rows_are_orthonormal(256, 300);
    rows_are_haar();
    small_gemm_matches_openblas();
    gemm_nt_routes();
    small_gemm_keeps_argmax_ranks();
    return check_report("linalg");
}
