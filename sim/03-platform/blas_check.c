/* blas_check: the pure half of choosing an OpenBLAS core (blas_core.h): the cores'
 * kernel levels and the candidates worth checking, and the known-answer check itself
 * (its fixed inputs, the results under the running core, and the comparison with a
 * reference). No process, file or environment here: blas_core.c runs it in a child and
 * decides. */
#include "attnrank/blas_core.h"

#include "attnrank/linalg.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- levels and candidates (pure) ------------------------------------------------ */

/* Each core's kernel level, and the instructions beyond it that its kernels use: the
 * Bulldozer family's FMA4 (AMD only, gone since Zen), the bf16 cores' AVX512_BF16. The
 * SSE cores' kernels run on any x86-64 CPU this program starts on. */
static const struct {
    const char *name;
    int level;
    unsigned extras;
} core_levels[] = {
    {"Katmai", AR_BLAS_LEVEL_SSE, 0},
    {"Coppermine", AR_BLAS_LEVEL_SSE, 0},
    {"Northwood", AR_BLAS_LEVEL_SSE, 0},
    {"Prescott", AR_BLAS_LEVEL_SSE, 0},
    {"Banias", AR_BLAS_LEVEL_SSE, 0},
    {"Atom", AR_BLAS_LEVEL_SSE, 0},
    {"Core2", AR_BLAS_LEVEL_SSE, 0},
    {"Penryn", AR_BLAS_LEVEL_SSE, 0},
    {"Dunnington", AR_BLAS_LEVEL_SSE, 0},
    {"Nehalem", AR_BLAS_LEVEL_SSE, 0},
    {"Athlon", AR_BLAS_LEVEL_SSE, 0},
    {"Opteron", AR_BLAS_LEVEL_SSE, 0},
    {"Opteron_SSE3", AR_BLAS_LEVEL_SSE, 0},
    {"Barcelona", AR_BLAS_LEVEL_SSE, 0},
    {"Nano", AR_BLAS_LEVEL_SSE, 0},
    {"Bobcat", AR_BLAS_LEVEL_SSE, 0},
    {"Sandybridge", AR_BLAS_LEVEL_AVX, 0},
    {"Bulldozer", AR_BLAS_LEVEL_AVX, AR_BLAS_EXTRA_FMA4},
    {"Piledriver", AR_BLAS_LEVEL_AVX, AR_BLAS_EXTRA_FMA4},
    {"Steamroller", AR_BLAS_LEVEL_AVX, AR_BLAS_EXTRA_FMA4},
    {"Excavator", AR_BLAS_LEVEL_AVX, AR_BLAS_EXTRA_FMA4},
    {"Haswell", AR_BLAS_LEVEL_AVX2, 0},
    {"Zen", AR_BLAS_LEVEL_AVX2, 0},
    {"SkylakeX", AR_BLAS_LEVEL_AVX512, 0},
    {"Cooperlake", AR_BLAS_LEVEL_AVX512, AR_BLAS_EXTRA_AVX512_BF16},
    {"SapphireRapids", AR_BLAS_LEVEL_AVX512, AR_BLAS_EXTRA_AVX512_BF16},
};

static int core_index(const char *core)
{
    for (size_t i = 0; core && i < sizeof core_levels / sizeof core_levels[0]; ++i)
        if (strcasecmp(core, core_levels[i].name) == 0)
            return (int)i;
    return -1;
}

int ar_blas_core_level(const char *core)
{
    int i = core_index(core);
    return i < 0 ? AR_BLAS_LEVEL_UNKNOWN : core_levels[i].level;
}

const char *ar_blas_core_lacking(const char *core, int cpu_level, unsigned cpu_extras)
{
    static const char *const sets[] = {"", "SSE", "AVX", "AVX2 and FMA", "AVX-512 (avx512f, dq, bw and vl)"};
    int i = core_index(core);
    if (i < 0 || cpu_level == AR_BLAS_LEVEL_UNKNOWN) /* a name OpenBLAS falls back on, or not x86 */
        return NULL;
    if (core_levels[i].level > cpu_level)
        return sets[core_levels[i].level];
    unsigned missing = core_levels[i].extras & ~cpu_extras;
    return missing & AR_BLAS_EXTRA_FMA4 ? "FMA4" : missing & AR_BLAS_EXTRA_AVX512_BF16 ? "AVX512_BF16" : NULL;
}

int ar_blas_core_cpu_level(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* libgcc's flags count only what the OS saves too (XCR0): AVX-512 state on a kernel
     * that does not save it reads as absent. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        return AR_BLAS_LEVEL_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return AR_BLAS_LEVEL_AVX2;
    if (__builtin_cpu_supports("avx"))
        return AR_BLAS_LEVEL_AVX;
    return AR_BLAS_LEVEL_SSE;
#else
    return AR_BLAS_LEVEL_UNKNOWN;
#endif
}

unsigned ar_blas_core_cpu_extras(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return (__builtin_cpu_supports("fma4") ? AR_BLAS_EXTRA_FMA4 : 0u) |
           (__builtin_cpu_supports("avx512bf16") ? AR_BLAS_EXTRA_AVX512_BF16 : 0u);
#else
    return 0;
#endif
}

int ar_blas_core_candidates(const char *detected, int cpu_level, const char *out[2])
{
    int have = ar_blas_core_level(detected), n = 0;
    if (have == AR_BLAS_LEVEL_UNKNOWN) /* a name this table does not know: maybe newer than it */
        return 0;
    if (cpu_level >= AR_BLAS_LEVEL_AVX512 && have < AR_BLAS_LEVEL_AVX512)
        out[n++] = "SkylakeX";
    if (cpu_level >= AR_BLAS_LEVEL_AVX2 && have < AR_BLAS_LEVEL_AVX2)
        out[n++] = "Haswell";
    return n;
}

const char *ar_blas_core_level_name(int level)
{
    static const char *const names[] = {"unknown", "SSE", "AVX", "AVX2", "AVX-512"};
    return names[level >= 0 && level <= AR_BLAS_LEVEL_AVX512 ? level : 0];
}

/* ---- the known-answer check (pure) ------------------------------------------------ */

typedef enum { STEP_GEMM, STEP_SVD, STEP_EIG } step_kind;

/* gemm: C (m x n) = op(A) B, op(A) m x k; svd: an m x n matrix; eig: an n x n circulant
 * (normal: its eigenvalues are perfectly conditioned, Bauer-Fike with kappa = 1). The
 * sizes cover the kernels' full blocks and their tails, and LAPACK's blocked paths
 * (dgehrd blocks from n = 128, dhseqr's aggressive deflation from n = 75). */
static const struct step {
    step_kind kind;
    const char *name;
    char op_a;
    int m, n, k;
} steps[] = {
    {STEP_GEMM, "dgemm", 'N', 64, 64, 64},   {STEP_GEMM, "dgemm", 'T', 200, 137, 181},
    {STEP_SVD, "dgesdd", 0, 64, 64, 0},      {STEP_SVD, "dgesdd", 0, 200, 137, 0},
    {STEP_EIG, "dgeev", 0, 64, 64, 0},       {STEP_EIG, "dgeev", 0, 200, 200, 0},
};
enum { N_STEPS = sizeof steps / sizeof steps[0] };

static size_t step_length(const struct step *s)
{
    return s->kind == STEP_GEMM ? (size_t)s->m * s->n
           : s->kind == STEP_SVD ? (size_t)(s->m < s->n ? s->m : s->n)
                                 : 2 * (size_t)s->n;
}

size_t ar_blas_check_length(void)
{
    size_t n = 0;
    for (int i = 0; i < N_STEPS; ++i)
        n += step_length(&steps[i]);
    return n;
}

/* Fixed inputs: splitmix64 of (step, operand, index), a multiple of 2^-53 in [-0.5, 0.5):
 * exact, so parent and child start from the same bits. */
static double entry(int step, int operand, size_t i)
{
    uint64_t x = ((uint64_t)step << 56) ^ ((uint64_t)operand << 48) ^ i;
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    x ^= x >> 31;
    return (double)(x >> 11) * 0x1p-53 - 0.5;
}

/* op(A)'s rows of a gemm step: A is stored m x k ('N') or k x m ('T'). */
static double gemm_a(const struct step *s, int index, int row, int col)
{
    size_t at = s->op_a == 'T' ? (size_t)col * s->m + row : (size_t)row * s->k + col;
    return entry(index, 0, at);
}

static void fill_circulant(int index, int n, double *a)
{
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            a[(size_t)i * n + j] = entry(index, 0, (size_t)((j - i + n) % n));
}

int ar_blas_check_compute(double *out)
{
    size_t most = 0;
    for (int i = 0; i < N_STEPS; ++i) {
        const struct step *s = &steps[i];
        size_t need = s->kind == STEP_GEMM ? (size_t)s->m * s->k + (size_t)s->k * s->n
                      : s->kind == STEP_SVD ? (size_t)s->m * s->n + ar_singular_values_workspace(s->m, s->n)
                                            : (size_t)s->n * s->n + ar_eigenvalues_workspace(s->n) + 2u * s->n;
        most = need > most ? need : most;
    }
    double *buf = malloc(most * sizeof *buf);
    int *iwork = malloc(8 * 256 * sizeof *iwork);
    int status = buf && iwork ? 0 : -1;
    for (int i = 0; status == 0 && i < N_STEPS; ++i) {
        const struct step *s = &steps[i];
        if (s->kind == STEP_GEMM) {
            double *a = buf, *b = buf + (size_t)s->m * s->k;
            for (int r = 0; r < s->m; ++r)
                for (int c = 0; c < s->k; ++c)
                    a[s->op_a == 'T' ? (size_t)c * s->m + r : (size_t)r * s->k + c] = gemm_a(s, i, r, c);
            for (size_t j = 0; j < (size_t)s->k * s->n; ++j)
                b[j] = entry(i, 1, j);
            ar_gemm(s->op_a, 'N', s->m, s->n, s->k, 1.0, a, b, 0.0, out);
        } else if (s->kind == STEP_SVD) {
            double *a = buf, *work = buf + (size_t)s->m * s->n;
            for (size_t j = 0; j < (size_t)s->m * s->n; ++j)
                a[j] = entry(i, 0, j);
            status = ar_singular_values(s->m, s->n, a, out, work, iwork);
        } else {
            double *a = buf, *wr = a + (size_t)s->n * s->n, *wi = wr + s->n, *work = wi + s->n;
            fill_circulant(i, s->n, a);
            status = ar_eigenvalues(s->n, a, wr, wi, work);
            for (int j = 0; j < s->n; ++j)
                out[2 * j] = wr[j], out[2 * j + 1] = wi[j];
        }
        out += step_length(s);
    }
    free(buf);
    free(iwork);
    return status;
}

/* The largest deviation of a step, in units of its scale (see the header), or +inf if
 * the candidate gave a NaN or an infinity. */
static double step_deviation(int index, const double *ref, const double *got)
{
    const struct step *s = &steps[index];
    size_t len = step_length(s);
    for (size_t j = 0; j < len; ++j)
        if (!isfinite(got[j]))
            return INFINITY;
    double worst = 0;
    if (s->kind == STEP_GEMM) {
        /* |C_ij - C'_ij| / (|row i of op(A)| |column j of B|): each product is within
         * gamma_k (|A||B|)_ij <= k eps |a_i| |b_j| of the exact one (Cauchy-Schwarz). */
        double *rows = calloc((size_t)s->m + s->n, sizeof *rows), *cols = rows ? rows + s->m : NULL;
        if (!rows)
            return INFINITY;
        for (int r = 0; r < s->m; ++r)
            for (int c = 0; c < s->k; ++c)
                rows[r] += gemm_a(s, index, r, c) * gemm_a(s, index, r, c);
        for (int l = 0; l < s->k; ++l)
            for (int c = 0; c < s->n; ++c)
                cols[c] += entry(index, 1, (size_t)l * s->n + c) * entry(index, 1, (size_t)l * s->n + c);
        for (int r = 0; r < s->m; ++r)
            for (int c = 0; c < s->n; ++c) {
                double scale = sqrt(rows[r] * cols[c]);
                double d = fabs(ref[(size_t)r * s->n + c] - got[(size_t)r * s->n + c]) / scale;
                worst = d > worst ? d : worst;
            }
        free(rows);
    } else if (s->kind == STEP_SVD) {
        /* Weyl: backward-stable singular values are within p(n) eps sigma_1 of the exact
         * ones; small values are only that accurate in absolute terms. */
        for (size_t j = 0; j < len; ++j) {
            double d = fabs(ref[j] - got[j]) / ref[0];
            worst = d > worst ? d : worst;
        }
    } else {
        /* Each reference eigenvalue against the nearest one not yet matched (a normal
         * matrix: Bauer-Fike bounds both by |E|_2 <= p(n) eps |A|_F). */
        int n = s->n;
        double norm = 0;
        for (int j = 0; j < n; ++j)
            norm += entry(index, 0, (size_t)j) * entry(index, 0, (size_t)j);
        norm = sqrt(norm * n); /* |A|_F of the circulant: every c_j appears n times */
        char *used = calloc((size_t)n, 1);
        if (!used)
            return INFINITY;
        for (int i = 0; i < n; ++i) {
            int best = -1;
            double best_d = INFINITY;
            for (int j = 0; j < n; ++j) {
                double d = hypot(ref[2 * i] - got[2 * j], ref[2 * i + 1] - got[2 * j + 1]);
                if (!used[j] && d < best_d)
                    best = j, best_d = d;
            }
            used[best] = 1;
            worst = best_d / norm > worst ? best_d / norm : worst;
        }
        free(used);
    }
    return worst;
}

static double step_tolerance(const struct step *s)
{
    double eps = DBL_EPSILON;
    return s->kind == STEP_GEMM  ? 4.0 * s->k * eps
           : s->kind == STEP_SVD ? 32.0 * (s->m > s->n ? s->m : s->n) * eps
                                 : 32.0 * s->n * eps;
}

static void step_label(const struct step *s, char *label, size_t len)
{
    if (s->kind == STEP_GEMM)
        snprintf(label, len, "%s %dx%dx%d", s->name, s->m, s->n, s->k);
    else
        snprintf(label, len, "%s %dx%d", s->name, s->m, s->n);
}

int ar_blas_check_compare(const double *reference, const double *got, char *why, size_t len)
{
    for (int i = 0; i < N_STEPS; ++i) {
        const struct step *s = &steps[i];
        double dev = step_deviation(i, reference, got), tol = step_tolerance(s);
        char label[64];
        step_label(s, label, sizeof label);
        if (isinf(dev)) {
            snprintf(why, len, "%s gives a NaN or an infinity", label);
            return -1;
        }
        if (!(dev <= tol)) {
            const char *unit = s->kind == STEP_GEMM ? "|a_i||b_j|" : s->kind == STEP_SVD ? "sigma_1" : "|A|_F";
            snprintf(why, len, "%s differs by %.2g %s, tolerance %.2g", label, dev, unit, tol);
            return -1;
        }
        reference += step_length(s);
        got += step_length(s);
    }
    return 0;
}
