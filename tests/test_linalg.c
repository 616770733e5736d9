/* linalg: the Haar-orthonormal sampler is orthonormal and Haar; OpenBLAS's buffer is
 * the size the address-space pre-flight counts. */
#define _GNU_SOURCE /* setenv, execl */
#include "attnrank/linalg.h"
#include "attnrank/rng.h"
#include "check.h"

#include <gsl/gsl_cdf.h>
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

/* The address-space pre-flight counts ar_blas_buffer_bytes() per thread: what a
 * thread's first BLAS call maps. Measured in a fresh process without OpenBLAS's pool
 * (whose idle buffers a caller would reuse), as attnrank runs under a limit. An
 * OpenBLAS built with another BUFFER_SIZE fails here, not in a hung run. */
static int measure_blas_buffer(void)
{
    static double a[64 * 64], b[64 * 64], c[64 * 64];
    static char ranges[4096][40];
    int n;
    new_mappings(NULL, 0, ranges, &n);
    ar_gemm_nn(64, 64, 64, a, b, c);
    double grown = new_mappings(ranges, n, NULL, NULL), want = ar_blas_buffer_bytes();
    int ok = grown >= want && grown <= want + 1048576;
    if (!ok)
        fprintf(stderr, "the first BLAS call mapped %.0f bytes; ar_blas_buffer_bytes() says %.0f\n", grown, want);
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

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--blas-buffer") == 0)
        return measure_blas_buffer();
    blas_buffer_is_counted();
    rows_are_orthonormal(8, 8);
    rows_are_orthonormal(64, 64);
    rows_are_orthonormal(30, 100);
    rows_are_orthonormal(256, 300);
    rows_are_haar();
    return check_report("linalg");
}
