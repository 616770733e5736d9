/* blas_core: which OpenBLAS core (kernel set) the program runs with, and why.
 *
 * Debian 12's OpenBLAS 0.3.21 (DYNAMIC_ARCH) names CPUs newer than itself "Prescott"
 * and runs its generic SSE3 kernels on them. Where OPENBLAS_CORETYPE is unset and the
 * CPU's flags support a better core than the detected one, attnrank computes a fixed
 * known-answer check (dgemm, dgesdd, dgeev at n = 64 and about 200) in a child process
 * running the better core and compares it with its own; a core that passes is used (the
 * program starts again with OPENBLAS_CORETYPE set), one that crashes, hangs or differs
 * is not, and a one-line note says so once. The outcome is cached per machine. */
#ifndef ATTNRANK_BLAS_CORE_H
#define ATTNRANK_BLAS_CORE_H

#include <stddef.h>
#include <stdio.h>

/* Before anything else in main(): may re-execute the program with a self-checked better OpenBLAS core. */
void ar_blas_core_select(char **argv);
/* How the core in use was decided: "detected" (OpenBLAS's own detection), "chosen" (picked by attnrank after its self-check), or "environment" (OPENBLAS_CORETYPE set by the user). */
const char *ar_blas_core_origin(void);
/* The core in use, how it was decided, the CPU, the self-check and its cache, as lines
 * for `attnrank info`. */
void ar_blas_core_print(FILE *out);

/* Kernel levels: what instructions a core's kernels use (0: a name this table does not
 * know, never replaced). */
enum {
    AR_BLAS_LEVEL_UNKNOWN = 0,
    AR_BLAS_LEVEL_SSE = 1,    /* Prescott, Core2, Penryn, Dunnington, Nehalem, Atom, Opteron, Barcelona, Bobcat */
    AR_BLAS_LEVEL_AVX = 2,    /* Sandybridge, Bulldozer, Piledriver, Steamroller, Excavator */
    AR_BLAS_LEVEL_AVX2 = 3,   /* Haswell, Zen */
    AR_BLAS_LEVEL_AVX512 = 4, /* SkylakeX, Cooperlake, SapphireRapids */
};
/* The level of an OpenBLAS core name (case-insensitive, as OPENBLAS_CORETYPE). */
int ar_blas_core_level(const char *core);
/* A level in words: "SSE", "AVX", "AVX2", "AVX-512", "unknown". */
const char *ar_blas_core_level_name(int level);
/* The level this CPU (and its OS) supports: avx512f+dq+bw+vl, avx2+fma, avx, else SSE. */
int ar_blas_core_cpu_level(void);
/* Instructions beyond its level that a core's kernels use. */
enum {
    AR_BLAS_EXTRA_FMA4 = 1,        /* Bulldozer, Piledriver, Steamroller, Excavator */
    AR_BLAS_EXTRA_AVX512_BF16 = 2, /* Cooperlake, SapphireRapids */
};
/* The extras this CPU (and its OS) supports. */
unsigned ar_blas_core_cpu_extras(void);
/* What a core's kernels use that a CPU of this level and extras lacks, in words ("AVX-512
 * (avx512f, dq, bw and vl)", "FMA4", "AVX512_BF16"), or NULL: the CPU runs them, or the
 * name is one this table does not know (OpenBLAS falls back on its own choice), or the
 * CPU's level is unknown. A pure function: the unit suite tests it on a table. */
const char *ar_blas_core_lacking(const char *core, int cpu_level, unsigned cpu_extras);
/* The cores worth checking, best first, for a detected core on a CPU of this level:
 * writes at most 2 names into out and returns how many (0: the detected core is as good
 * as the CPU supports, or unknown). A pure function: the unit suite tests it on a table. */
int ar_blas_core_candidates(const char *detected, int cpu_level, const char *out[2]);

/* The self-check (blas_check.c, pure; blas_core.c runs it in a child): its fixed
 * inputs' results under the running core. */
size_t ar_blas_check_length(void);
/* Fills out (ar_blas_check_length() numbers); returns 0, or the first LAPACK failure. */
int ar_blas_check_compute(double *out);
/* Compares a candidate's results with the reference (same layout): 0 if every routine
 * is within its tolerance, else -1 with why ("dgesdd (200x137) differs by 3e-03 of
 * sigma_1; tolerance 1.4e-12"). Tolerances: dgemm |C - C'| <= 4 k eps |a_i| |b_j| per
 * entry; dgesdd |s_i - s'_i| <= 32 max(m, n) eps s_1; dgeev (a normal matrix, matched
 * eigenvalues) |l - l'| <= 32 n eps |A|_F. */
int ar_blas_check_compare(const double *reference, const double *got, char *why, size_t len);

#endif
