/* bench_floor: the rates a trial's floor is made of, measured on one thread in large
 * calls (no per-call overhead): normals (ar_rng_normals), the exponential of the softmax
 * steps (ar_exp_nonpositive), the lognormal transform exp(mu + sigma z) of the Markov
 * sampler (libm), OpenBLAS's dgemm at N x N x N (the peak), and standalone LAPACK calls
 * at the sizes bench/run_floor.py asks for. Prints one JSON line.
 *
 * usage: bench_floor [--peak N] [--svd N]... [--gram N:D]... [--argmax N]... */
#include "attnrank/builtin_families.h"
#include "attnrank/attention.h"
#include "attnrank/blas_core.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rank.h"
#include "attnrank/rng.h"

#include <math.h>
#include "bench_peak.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 21 }; /* values per rate measurement: 16 MiB, beyond L2 like a trial's stream */

/* Seconds of the best of `reps` calls of what the macro's body does. */
#define BEST_OF(reps, best, body)                                                                             \
    do {                                                                                                      \
        best = 1e300;                                                                                         \
        for (int rep_ = 0; rep_ < (reps); ++rep_) {                                                           \
            double t0_ = omp_get_wtime();                                                                     \
            body;                                                                                             \
            double dt_ = omp_get_wtime() - t0_;                                                               \
            best = dt_ < best ? dt_ : best;                                                                   \
        }                                                                                                     \
    } while (0)

static double ns_per_normal(double *x)
{
    ar_rng r;
    ar_rng_init(&r, 1, 2, 3, 0);
    ar_rng_normals(&r, x, BIG);
    double best;
    BEST_OF(7, best, ar_rng_normals(&r, x, BIG));
    return best / BIG * 1e9;
}

/* ar_exp_nonpositive on values in [-30, 0] (softmax's max-subtracted scores). */
static double ns_per_exp(double *x, double *y)
{
    for (int i = 0; i < BIG; ++i)
        x[i] = -30.0 * (double)i / BIG;
    double best;
    BEST_OF(7, best, memcpy(y, x, BIG * sizeof *y); ar_exp_nonpositive(y, BIG));
    double copy;
    BEST_OF(7, copy, memcpy(y, x, BIG * sizeof *y));
    return (best - copy) / BIG * 1e9;
}

/* The Markov sampler's a[i] = exp(mu + sigma a[i]) (lognormal entries), libm's exp. */
static double ns_per_lognormal(double *x, double *y)
{
    const double mu = -0.5 * log(2.0), sigma = sqrt(log(2.0));
    ar_rng r;
    ar_rng_init(&r, 1, 2, 4, 0);
    ar_rng_normals(&r, x, BIG);
    double best;
    BEST_OF(5, best, memcpy(y, x, BIG * sizeof *y); for (int i = 0; i < BIG; ++i) y[i] = exp(mu + sigma * y[i]));
    double copy;
    BEST_OF(5, copy, memcpy(y, x, BIG * sizeof *y));
    return (best - copy) / BIG * 1e9;
}

/* dgesdd (values only) of an n x n lognormal Markov matrix, best of 3, in ms. */
static double svd_ms(int n)
{
    size_t nn = (size_t)n * n;
    double *a = malloc(nn * sizeof *a), *copy = malloc(nn * sizeof *copy), *s = malloc((size_t)n * sizeof *s);
    double *work = malloc(ar_singular_values_workspace(n, n) * sizeof *work);
    int *iwork = malloc(8 * (size_t)n * sizeof *iwork);
    ar_rng r;
    ar_rng_init(&r, 1, 2, 6, 0);
    ar_rng_normals(&r, a, nn);
    for (int i = 0; i < n; ++i) {
        double *row = a + (size_t)i * n, sum = 0;
        for (int j = 0; j < n; ++j)
            sum += row[j] = exp(-0.5 * log(2.0) + sqrt(log(2.0)) * row[j]);
        for (int j = 0; j < n; ++j)
            row[j] /= sum;
    }
    double best;
    int reps = n >= 2048 ? 1 : 3;
    BEST_OF(reps, best, memcpy(copy, a, nn * sizeof *a); ar_singular_values(n, n, copy, s, work, iwork));
    free(a), free(copy), free(s), free(work), free(iwork);
    return best * 1e3;
}

/* The mask dynamics' per-layer rank measurement, ar_gram_eigenvalues of an n x d matrix
 * (dsyrk and dsyev), best of 20, in us. */
static double gram_us(int n, int d)
{
    size_t nd = (size_t)n * d;
    int m = n < d ? n : d;
    double *x = malloc(nd * sizeof *x), *values = malloc((size_t)m * sizeof *values);
    double *work = malloc(ar_gram_eigenvalues_workspace(n, d) * sizeof *work);
    ar_rng r;
    ar_rng_init(&r, 1, 2, 7, 0);
    ar_rng_normals(&r, x, nd);
    ar_gram_eigenvalues(n, d, x, values, work);
    double best;
    BEST_OF(20, best, ar_gram_eigenvalues(n, d, x, values, work));
    free(x), free(values), free(work);
    return best * 1e6;
}

/* The hardmax trial's last step: argmax of every row of an n x n score matrix and the
 * count of distinct columns, best of 50, in us. */
static double argmax_us(int n)
{
    size_t nn = (size_t)n * n;
    double *s = malloc(nn * sizeof *s);
    int *argmax = malloc((size_t)n * sizeof *argmax);
    unsigned char *seen = malloc((size_t)n);
    ar_rng r;
    ar_rng_init(&r, 1, 2, 8, 0);
    ar_rng_normals(&r, s, nn);
    long total = 0;
    double best;
    BEST_OF(50, best, ar_argmax_rows(n, n, s, argmax); total += ar_argmax_rank(n, argmax, n, seen));
    free(s), free(argmax), free(seen);
    return total > 0 ? best * 1e6 : NAN;
}

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    ar_blas_core_select(argv);
    ar_openblas_set_threads(1);
    int peak_n = 2048;
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--peak") == 0)
            peak_n = atoi(argv[i + 1]);
    double *x = malloc(BIG * sizeof *x), *y = malloc(BIG * sizeof *y);
    double normal = ns_per_normal(x), exp_ns = ns_per_exp(x, y), lognormal = ns_per_lognormal(x, y);
    free(x), free(y);
    double peak_s, peak = bench_dgemm_peak(peak_n, &peak_s), peak_ms = 1e3 * peak_s;
    printf("{\"ns_per_normal\": %.4f, \"normals_isa\": \"%s\", \"ns_per_exp_nonpositive\": %.4f, "
           "\"ns_per_lognormal_exp\": %.4f, \"peak_n\": %d, \"peak_gflops\": %.3f, \"peak_ms\": %.3f",
           normal, ar_rng_normals_isa(), exp_ns, lognormal, peak_n, peak, peak_ms);
    const char *sep = "";
    printf(", \"svd_ms\": {");
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--svd") == 0) {
            printf("%s\"%d\": %.4f", sep, atoi(argv[i + 1]), svd_ms(atoi(argv[i + 1])));
            sep = ", ";
        }
    printf("}, \"gram_us\": {");
    sep = "";
    for (int i = 1; i + 1 < argc; ++i) {
        int n, d;
        if (strcmp(argv[i], "--gram") == 0 && sscanf(argv[i + 1], "%d:%d", &n, &d) == 2) {
            printf("%s\"%d:%d\": %.4f", sep, n, d, gram_us(n, d));
            sep = ", ";
        }
    }
    printf("}, \"argmax_us\": {");
    sep = "";
    for (int i = 1; i + 1 < argc; ++i)
        if (strcmp(argv[i], "--argmax") == 0) {
            printf("%s\"%d\": %.4f", sep, atoi(argv[i + 1]), argmax_us(atoi(argv[i + 1])));
            sep = ", ";
        }
    printf("}, \"openblas_core\": \"%s\", \"core_origin\": \"%s\"}\n", ar_openblas_corename(), ar_blas_core_origin());
    return 0;
}
