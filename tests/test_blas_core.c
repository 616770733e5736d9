/* blas_core: the choice of a candidate core as a pure function of (detected core, CPU
 * level), on a table; the self-check's results and tolerances under the running core. */
#include "attnrank/blas_core.h"
#include "attnrank/linalg.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_levels(void)
{
    static const struct {
        const char *core;
        int level;
    } table[] = {
        {"Prescott", AR_BLAS_LEVEL_SSE},      {"prescott", AR_BLAS_LEVEL_SSE},     {"Core2", AR_BLAS_LEVEL_SSE},
        {"Penryn", AR_BLAS_LEVEL_SSE},        {"Dunnington", AR_BLAS_LEVEL_SSE},   {"Nehalem", AR_BLAS_LEVEL_SSE},
        {"Atom", AR_BLAS_LEVEL_SSE},          {"Opteron", AR_BLAS_LEVEL_SSE},      {"Barcelona", AR_BLAS_LEVEL_SSE},
        {"Bobcat", AR_BLAS_LEVEL_SSE},        {"Sandybridge", AR_BLAS_LEVEL_AVX},  {"Bulldozer", AR_BLAS_LEVEL_AVX},
        {"Piledriver", AR_BLAS_LEVEL_AVX},    {"Steamroller", AR_BLAS_LEVEL_AVX},  {"Excavator", AR_BLAS_LEVEL_AVX},
        {"Haswell", AR_BLAS_LEVEL_AVX2},      {"Zen", AR_BLAS_LEVEL_AVX2},         {"SkylakeX", AR_BLAS_LEVEL_AVX512},
        {"Cooperlake", AR_BLAS_LEVEL_AVX512}, {"SapphireRapids", AR_BLAS_LEVEL_AVX512},
        {"Unknown", AR_BLAS_LEVEL_UNKNOWN},   {"NeoverseN1", AR_BLAS_LEVEL_UNKNOWN}, {"", AR_BLAS_LEVEL_UNKNOWN},
        {"Haswell ", AR_BLAS_LEVEL_UNKNOWN},  {NULL, AR_BLAS_LEVEL_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        CHECK(ar_blas_core_level(table[i].core) == table[i].level);
}

/* What a forced core needs beyond a CPU (OPENBLAS_CORETYPE): refused where it is lacking. */
static void test_lacking(void)
{
    enum { SSE = AR_BLAS_LEVEL_SSE, AVX = AR_BLAS_LEVEL_AVX, AVX2 = AR_BLAS_LEVEL_AVX2, AVX512 = AR_BLAS_LEVEL_AVX512 };
    enum { FMA4 = AR_BLAS_EXTRA_FMA4, BF16 = AR_BLAS_EXTRA_AVX512_BF16 };
    static const struct {
        const char *core;
        int cpu;
        unsigned extras;
        const char *lacking; /* NULL: runs */
    } table[] = {
        /* the review's machine: an AMD EPYC (Zen 3) without AVX-512 or FMA4 */
        {"SkylakeX", AVX2, 0, "AVX-512 (avx512f, dq, bw and vl)"},
        {"skylakex", AVX2, 0, "AVX-512 (avx512f, dq, bw and vl)"},
        {"Cooperlake", AVX2, 0, "AVX-512 (avx512f, dq, bw and vl)"},
        {"Bulldozer", AVX2, 0, "FMA4"},
        {"Excavator", AVX2, 0, "FMA4"},
        {"Haswell", AVX2, 0, NULL},
        {"Zen", AVX2, 0, NULL},
        {"Sandybridge", AVX2, 0, NULL},
        {"Prescott", AVX2, 0, NULL},
        /* AVX-512 without bf16 (Skylake-SP), and with it (Cooper Lake) */
        {"SkylakeX", AVX512, 0, NULL},
        {"Cooperlake", AVX512, 0, "AVX512_BF16"},
        {"SapphireRapids", AVX512, 0, "AVX512_BF16"},
        {"Cooperlake", AVX512, BF16, NULL},
        /* an AMD Piledriver: AVX and FMA4, no AVX2 */
        {"Piledriver", AVX, FMA4, NULL},
        {"Haswell", AVX, FMA4, "AVX2 and FMA"},
        {"Sandybridge", SSE, 0, "AVX"},
        {"Prescott", SSE, 0, NULL},
        /* names OpenBLAS falls back on, and a CPU whose level is unknown (not x86) */
        {"Zen5", SSE, 0, NULL},
        {"", SSE, 0, NULL},
        {NULL, SSE, 0, NULL},
        {"SkylakeX", AR_BLAS_LEVEL_UNKNOWN, 0, NULL},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const char *got = ar_blas_core_lacking(table[i].core, table[i].cpu, table[i].extras);
        CHECK(table[i].lacking ? got && strcmp(got, table[i].lacking) == 0 : got == NULL);
    }
    /* this machine runs what its own flags name */
    CHECK(ar_blas_core_lacking("Prescott", ar_blas_core_cpu_level(), ar_blas_core_cpu_extras()) == NULL);
}

static void test_candidates(void)
{
    enum { SSE = AR_BLAS_LEVEL_SSE, AVX = AR_BLAS_LEVEL_AVX, AVX2 = AR_BLAS_LEVEL_AVX2, AVX512 = AR_BLAS_LEVEL_AVX512 };
    static const struct {
        const char *detected;
        int cpu;
        const char *want[2];
    } table[] = {
        /* the machine: an AVX-512 Xeon that OpenBLAS 0.3.21 calls Prescott */
        {"Prescott", AVX512, {"SkylakeX", "Haswell"}},
        {"Sandybridge", AVX512, {"SkylakeX", "Haswell"}},
        {"Haswell", AVX512, {"SkylakeX", NULL}},
        {"Zen", AVX512, {"SkylakeX", NULL}}, /* Zen 4 under an OpenBLAS that calls it Zen */
        {"SkylakeX", AVX512, {NULL, NULL}},
        {"Cooperlake", AVX512, {NULL, NULL}},
        {"SapphireRapids", AVX512, {NULL, NULL}},
        /* this machine: Zen 3, AVX2 + FMA */
        {"Zen", AVX2, {NULL, NULL}},
        {"Haswell", AVX2, {NULL, NULL}},
        {"Prescott", AVX2, {"Haswell", NULL}},
        {"Nehalem", AVX2, {"Haswell", NULL}},
        {"Excavator", AVX2, {"Haswell", NULL}},
        /* no better kernels for these CPUs: AVX only, SSE only */
        {"Prescott", AVX, {NULL, NULL}},
        {"Sandybridge", AVX, {NULL, NULL}},
        {"Prescott", SSE, {NULL, NULL}},
        /* a core better than the flags (OPENBLAS_CORETYPE) is never lowered */
        {"SkylakeX", AVX2, {NULL, NULL}},
        /* a name the table does not know is never replaced (a newer OpenBLAS's own core) */
        {"Zen5", AVX512, {NULL, NULL}},
        {"Unknown", AVX512, {NULL, NULL}},
        {NULL, AVX512, {NULL, NULL}},
        {"Prescott", AR_BLAS_LEVEL_UNKNOWN, {NULL, NULL}},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i) {
        const char *got[2] = {NULL, NULL};
        int n = ar_blas_core_candidates(table[i].detected, table[i].cpu, got);
        int want = (table[i].want[0] != NULL) + (table[i].want[1] != NULL);
        CHECK(n == want);
        for (int k = 0; k < want && k < n; ++k)
            CHECK(strcmp(got[k], table[i].want[k]) == 0);
    }
    /* and this machine's own answer is one of the table's kinds */
    int level = ar_blas_core_cpu_level();
    CHECK(level >= AR_BLAS_LEVEL_UNKNOWN && level <= AR_BLAS_LEVEL_AVX512);
}

/* The check's results under this core: deterministic, finite, equal to themselves; a
 * perturbation above each tolerance is caught, one far below it is not. */
static void test_check(void)
{
    size_t n = ar_blas_check_length();
    CHECK(n == 64 * 64 + 200 * 137 + 64 + 137 + 2 * 64 + 2 * 200);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    CHECK(a && b);
    CHECK(ar_blas_check_compute(a) == 0);
    CHECK(ar_blas_check_compute(b) == 0);
    CHECK(memcmp(a, b, n * sizeof *a) == 0); /* the same core, the same bits */
    for (size_t i = 0; i < n; ++i)
        CHECK(isfinite(a[i]));
    char why[320];
    CHECK(ar_blas_check_compare(a, b, why, sizeof why) == 0);
    /* offsets of each routine's first value, and a perturbation far above / below its tolerance */
    static const struct {
        size_t at;
        const char *name;
    } places[] = {
        {0, "dgemm 64x64x64"},
        {64 * 64 + 1234, "dgemm 200x137x181"},
        {64 * 64 + 200 * 137, "dgesdd 64x64"},
        {64 * 64 + 200 * 137 + 64 + 5, "dgesdd 200x137"},
        {64 * 64 + 200 * 137 + 64 + 137 + 10, "dgeev 64x64"},
        {64 * 64 + 200 * 137 + 64 + 137 + 128 + 300, "dgeev 200x200"},
    };
    for (size_t p = 0; p < sizeof places / sizeof places[0]; ++p) {
        memcpy(b, a, n * sizeof *a);
        b[places[p].at] += 1e-6 * (fabs(a[places[p].at]) + 1);
        CHECK(ar_blas_check_compare(a, b, why, sizeof why) == -1);
        CHECK(strstr(why, places[p].name) == why);
        CHECK(strstr(why, "tolerance") != NULL);
        memcpy(b, a, n * sizeof *a);
        b[places[p].at] = NAN;
        CHECK(ar_blas_check_compare(a, b, why, sizeof why) == -1);
        CHECK(strstr(why, "NaN") != NULL);
        memcpy(b, a, n * sizeof *a);
        b[places[p].at] += 4 * DBL_EPSILON * fabs(a[places[p].at]); /* a few ulps: round-off */
        CHECK(ar_blas_check_compare(a, b, why, sizeof why) == 0);
    }
    /* eigenvalues are matched, not compared in LAPACK's order: a permutation passes */
    memcpy(b, a, n * sizeof *a);
    double *eig = b + 64 * 64 + 200 * 137 + 64 + 137;
    for (int i = 0; i < 32; ++i) {
        double re = eig[2 * i], im = eig[2 * i + 1];
        eig[2 * i] = eig[2 * (63 - i)], eig[2 * i + 1] = eig[2 * (63 - i) + 1];
        eig[2 * (63 - i)] = re, eig[2 * (63 - i) + 1] = im;
    }
    CHECK(ar_blas_check_compare(a, b, why, sizeof why) == 0);
    free(a);
    free(b);
}

int main(void)
{
    check_register_families();
    test_levels();
    test_lacking();
    test_candidates();
    test_check();
    return check_report("blas_core");
}
