/* gemm_small: C = A B^T for the small products of a trial (S = Q K^T at n <= 512, d_h
 * <= 256), attnrank's own register-blocked kernel.
 *
 * OpenBLAS 0.3.21 (core Zen, 1 thread) reaches its large-size rate from n = 256 up, but
 * at n = 64 it takes 1.2x the FLOP time at that rate for d_h = 64 and 1.6-1.9x for d_h = 16
 * (per call it packs both operands; its 4 x 8 kernel's edges and set-up weigh as much as
 * the arithmetic). This kernel packs only B, one panel of NR = 8 of its rows at a time into
 * a buffer on the stack (NR k doubles, 16 KiB at most), reads A's rows in place, and keeps
 * a 6 x 8 block of C in twelve AVX2 registers while it runs over k: per step two loads of
 * the panel, six broadcasts of A and twelve fused multiply-adds. Measured (bench_gemm,
 * bench/run_floor.py): 1.2-1.3x faster than OpenBLAS at n = d_h = 64, 1.3-1.6x at d_h = 16,
 * 1.05-1.1x at 256 x 256 x 256, even or slower once A outgrows the L2 cache (it reads A
 * once per panel and does not block it): ar_gemm_nt sends it m, n <= 512, k <= 256 and
 * m k <= 65536 only (linalg.c).
 *
 * Each entry is one multiply-add chain over p = 0 .. k-1 in order, c_ij = fl(... fl(a_i0
 * b_j0) + a_i1 b_j1 ...), fused in the AVX2+FMA version and unfused in the plain C one on
 * x86-64 (for CPUs without AVX2 and FMA, and for tests): its bits depend only on row i of
 * A and row j of B, never on the shapes, the block an entry falls in, or the thread.
 * Either version's error is at most gamma_k (|A| |B|^T)_ij, gamma_k = k u / (1 - k u),
 * the bound every order of the sum meets (test_linalg checks it, and the distance from
 * OpenBLAS, k eps (|A| |B|^T)_ij, on edge and random shapes). */
#include "attnrank/linalg.h"

#include <string.h>

enum { MR = 6, NR = 8 };

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_AVX2_KERNEL 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2,fma")))
#else
#define HAVE_AVX2_KERNEL 0
#endif

/* panel[p NR + t] = b[(j0 + t) k + p] for t < cols, 0 for cols <= t < NR: the panel's
 * step p holds column p of B's rows j0 .. j0 + cols - 1, the missing ones zero. */
static void pack_plain(int cols, int k, const double *b, double *panel)
{
    for (int p = 0; p < k; ++p)
        for (int t = 0; t < NR; ++t)
            panel[(size_t)p * NR + t] = t < cols ? b[(size_t)t * k + p] : 0.0;
}

/* rows x 4 block of C (ldc), rows <= 4, from A's rows (lda = k) and four columns of a
 * packed panel; its first cols columns are stored. Eight accumulators of two doubles
 * (GCC's and clang's generic vectors: SSE2's registers, or NEON's), named so that they
 * stay in registers; rows is a constant in every call. */
typedef double pair __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) void store_pairs(int cols, double *c, pair lo, pair hi)
{
    double row[4] = {lo[0], lo[1], hi[0], hi[1]};
    memcpy(c, row, (size_t)cols * sizeof *c);
}

static inline __attribute__((always_inline)) void block_plain(int rows, int cols, int k, const double *a,
                                                              const double *panel, double *c, int ldc)
{
    const double *a0 = a, *a1 = a + (rows > 1) * (size_t)k, *a2 = a + (rows > 2) * 2 * (size_t)k;
    const double *a3 = a + (rows > 3) * 3 * (size_t)k;
    pair c00 = {0, 0}, c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
#define STEP(r)                                                                                               \
    if (rows > r) {                                                                                           \
        pair x = {a##r[p], a##r[p]};                                                                          \
        c##r##0 += x * b0;                                                                                    \
        c##r##1 += x * b1;                                                                                    \
    }
    for (int p = 0; p < k; ++p) {
        pair b0, b1;
        memcpy(&b0, panel + (size_t)p * NR, sizeof b0);
        memcpy(&b1, panel + (size_t)p * NR + 2, sizeof b1);
        STEP(0) STEP(1) STEP(2) STEP(3)
    }
#undef STEP
    store_pairs(cols, c, c00, c01);
    if (rows > 1)
        store_pairs(cols, c + (size_t)ldc, c10, c11);
    if (rows > 2)
        store_pairs(cols, c + 2 * (size_t)ldc, c20, c21);
    if (rows > 3)
        store_pairs(cols, c + 3 * (size_t)ldc, c30, c31);
}

/* The plain version blocks by 4 x 4 (SSE2 has sixteen registers of two doubles). */
static void gemm_plain(int m, int n, int k, const double *a, const double *b, double *c, double *panel)
{
    for (int j0 = 0; j0 < n; j0 += NR) {
        int cols = n - j0 < NR ? n - j0 : NR;
        pack_plain(cols, k, b + (size_t)j0 * k, panel);
        for (int half = 0; half * 4 < cols; ++half) {
            int part = cols - 4 * half < 4 ? cols - 4 * half : 4;
            for (int i0 = 0; i0 < m; i0 += 4) {
                const double *ai = a + (size_t)i0 * k;
                double *ci = c + (size_t)i0 * n + j0 + 4 * half;
                switch (m - i0 < 4 ? m - i0 : 4) {
                case 1: block_plain(1, part, k, ai, panel + 4 * half, ci, n); break;
                case 2: block_plain(2, part, k, ai, panel + 4 * half, ci, n); break;
                case 3: block_plain(3, part, k, ai, panel + 4 * half, ci, n); break;
                default: block_plain(4, part, k, ai, panel + 4 * half, ci, n); break;
                }
            }
        }
    }
}

#if HAVE_AVX2_KERNEL
/* block_avx2 with rows and nv as constants: one copy of the kernel for each. */
#define DISPATCH(kernel, rows, nv, ...)                                                                       \
    switch ((rows) * 2 + (nv) - 1) {                                                                          \
    case 2: kernel(1, 1, __VA_ARGS__); break;                                                                 \
    case 3: kernel(1, 2, __VA_ARGS__); break;                                                                 \
    case 4: kernel(2, 1, __VA_ARGS__); break;                                                                 \
    case 5: kernel(2, 2, __VA_ARGS__); break;                                                                 \
    case 6: kernel(3, 1, __VA_ARGS__); break;                                                                 \
    case 7: kernel(3, 2, __VA_ARGS__); break;                                                                 \
    case 8: kernel(4, 1, __VA_ARGS__); break;                                                                 \
    case 9: kernel(4, 2, __VA_ARGS__); break;                                                                 \
    case 10: kernel(5, 1, __VA_ARGS__); break;                                                                \
    case 11: kernel(5, 2, __VA_ARGS__); break;                                                                \
    case 12: kernel(6, 1, __VA_ARGS__); break;                                                                \
    default: kernel(6, 2, __VA_ARGS__); break;                                                                \
    }

/* The panel by 4 x 4 transposes: four rows of B, four steps p at a time. */
AVX2 static void pack_avx2(int cols, int k, const double *b, double *panel)
{
    if (cols < NR) {
        pack_plain(cols, k, b, panel);
        return;
    }
    int p = 0;
    for (; p + 4 <= k; p += 4)
        for (int half = 0; half < 2; ++half) {
            const double *rows = b + (size_t)(4 * half) * k + p;
            __m256d r0 = _mm256_loadu_pd(rows), r1 = _mm256_loadu_pd(rows + k);
            __m256d r2 = _mm256_loadu_pd(rows + 2 * (size_t)k), r3 = _mm256_loadu_pd(rows + 3 * (size_t)k);
            __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
            __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            double *out = panel + (size_t)p * NR + 4 * half;
            _mm256_storeu_pd(out, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(out + NR, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(out + 2 * NR, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(out + 3 * NR, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
    for (; p < k; ++p)
        for (int t = 0; t < NR; ++t)
            panel[(size_t)p * NR + t] = b[(size_t)t * k + p];
}

/* Row r of the block: its one or two vectors, the first `cols` entries stored. */
AVX2 static inline __attribute__((always_inline)) void store_row(int nv, int cols, double *c, __m256d lo, __m256d hi)
{
    if (cols == 4 * nv) {
        _mm256_storeu_pd(c, lo);
        if (nv > 1)
            _mm256_storeu_pd(c + 4, hi);
        return;
    }
    const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
    _mm256_maskstore_pd(c, _mm256_cmpgt_epi64(_mm256_set1_epi64x(cols), lane), lo);
    if (nv > 1)
        _mm256_maskstore_pd(c + 4, _mm256_cmpgt_epi64(_mm256_set1_epi64x(cols - 4), lane), hi);
}

/* rows x 4 nv block of C (ldc), rows <= MR, nv <= 2, from A's rows (lda = k) and a
 * packed panel; its first cols columns are stored. Twelve named accumulators, not an
 * array, so that they stay in registers (rows and nv are constants in every call). */
AVX2 static inline __attribute__((always_inline)) void block_avx2(int rows, int nv, int cols, int k, const double *a,
                                                                  const double *panel, double *c, int ldc)
{
    /* rows past the block's last point at its first, never past A's end */
    const double *a0 = a, *a1 = a + (rows > 1) * (size_t)k, *a2 = a + (rows > 2) * 2 * (size_t)k;
    const double *a3 = a + (rows > 3) * 3 * (size_t)k, *a4 = a + (rows > 4) * 4 * (size_t)k;
    const double *a5 = a + (rows > 5) * 5 * (size_t)k;
    __m256d c00 = _mm256_setzero_pd(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
    __m256d c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#define STEP(r)                                                                                               \
    if (rows > r) {                                                                                           \
        __m256d x = _mm256_broadcast_sd(a##r + p);                                                            \
        c##r##0 = _mm256_fmadd_pd(x, b0, c##r##0);                                                            \
        if (nv > 1)                                                                                           \
            c##r##1 = _mm256_fmadd_pd(x, b1, c##r##1);                                                        \
    }
    for (int p = 0; p < k; ++p) {
        const double *bp = panel + (size_t)p * NR;
        __m256d b0 = _mm256_load_pd(bp), b1 = nv > 1 ? _mm256_load_pd(bp + 4) : b0;
        STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5)
    }
#undef STEP
    store_row(nv, cols, c, c00, c01);
    if (rows > 1)
        store_row(nv, cols, c + (size_t)ldc, c10, c11);
    if (rows > 2)
        store_row(nv, cols, c + 2 * (size_t)ldc, c20, c21);
    if (rows > 3)
        store_row(nv, cols, c + 3 * (size_t)ldc, c30, c31);
    if (rows > 4)
        store_row(nv, cols, c + 4 * (size_t)ldc, c40, c41);
    if (rows > 5)
        store_row(nv, cols, c + 5 * (size_t)ldc, c50, c51);
}

AVX2 static void gemm_avx2(int m, int n, int k, const double *a, const double *b, double *c, double *panel)
{
    for (int j0 = 0; j0 < n; j0 += NR) {
        int cols = n - j0 < NR ? n - j0 : NR, nv = cols > 4 ? 2 : 1;
        pack_avx2(cols, k, b + (size_t)j0 * k, panel);
        for (int i0 = 0; i0 < m; i0 += MR) {
            int rows = m - i0 < MR ? m - i0 : MR;
            DISPATCH(block_avx2, rows, nv, cols, k, a + (size_t)i0 * k, panel, c + (size_t)i0 * n + j0, n)
        }
    }
}
#endif

int ar_gemm_small_has_avx2(void)
{
#if HAVE_AVX2_KERNEL
    /* two loads of libgcc's CPU model, filled in before main() */
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

void ar_gemm_nt_small(int m, int n, int k, const double *a, const double *b, double *c, int plain)
{
    if (m <= 0 || n <= 0)
        return;
    if (k > AR_GEMM_SMALL_MAX_K) { /* the panel would not fit its buffer */
        ar_gemm('N', 'T', m, n, k, 1.0, a, b, 0.0, c);
        return;
    }
    if (k <= 0) {
        for (int i = 0; i < m; ++i)
            memset(c + (size_t)i * n, 0, (size_t)n * sizeof *c);
        return;
    }
    double panel[NR * AR_GEMM_SMALL_MAX_K] __attribute__((aligned(32)));
#if HAVE_AVX2_KERNEL
    if (!plain && ar_gemm_small_has_avx2()) {
        gemm_avx2(m, n, k, a, b, c, panel);
        return;
    }
#endif
    (void)plain;
    gemm_plain(m, n, k, a, b, c, panel);
}
