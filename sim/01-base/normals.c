/* normals: the ziggurat on eight xoshiro256++ lanes (rng.h has the definition), as a
 * scalar reference and SSE2, AVX2 and AVX-512 variants that give the same bits: the
 * variants vectorise the fast path (normals_kernel.h) and hand every miss to the one
 * scalar slow path here, zig_missed, on that lane's own state.
 *
 * Nothing may be fused or reassociated, or the bits would depend on the compiler's
 * choices: the fast path has one multiply and no add; the slow path and the tables use
 * the sampler's own exp and log, built with contraction off (the pragmas below; a clang
 * build given -ffp-contract=fast overrides them, so do not use that flag here).
 * The known answers in tests/test_rng.c come from an implementation apart from this one. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "attnrank/rng.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define NORMALS_X86 1
#else
#define NORMALS_X86 0
#endif

/* 2048 layers of area V in Doornik's ZIGNOR layout (R and V solved to 60 digits so
 * that the top layer ends at x = 0). A word w gives the sign (bit 0), the layer (bits
 * 1..11) and the magnitude (bits 12..63). The fast path takes 99.77% of candidates, so
 * 1.8% of blocks of 8 have a lane on the slow path; at 256 layers (98.5%) it was 11%,
 * which cost more than all the rest (bench_normals; docs/development.md, "Streams"). */
enum { ZIG_BITS = 11, ZIG_LAYERS = 1 << ZIG_BITS };
#define ZIG_MASK ((uint64_t)ZIG_LAYERS - 1)
static const double ZIG_R = 0x1.0dd903462b3f1p+2; /* 4.2163704095118969 */
static const double ZIG_V = 0x1.412ea7ab08321p-11; /* 6.1260651762404609e-4 */
#define ZIG_ONE_BITS 0x3FF0000000000000ULL
#define ZIG_UNIFORM_OFFSET 0x1.fffffffffffffp-1 /* 1 - 2^-53 */
#define ZIG_LOG2E 0x1.71547652b82fep0
#define ZIG_SHIFTER 0x1.8p52 /* adding it rounds to an integer held in the low bits */
#define ZIG_LN2_HI 0x1.62e42fee00000p-1 /* trailing zeros: k * ln2_hi is exact */
#define ZIG_LN2_LO 0x1.a39ef35793c76p-33

/* 1/j!, j = 0..13, and 1/(2j + 1), j = 0..11, correctly rounded. */
static const double zig_exp_c[14] = {
    0x1.0000000000000p+0, 0x1.0000000000000p+0, 0x1.0000000000000p-1, 0x1.5555555555555p-3,
    0x1.5555555555555p-5, 0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10, 0x1.a01a01a01a01ap-13,
    0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19, 0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26,
    0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33,
};
static const double zig_log_c[12] = {
    0x1.0000000000000p+0, 0x1.5555555555555p-2, 0x1.999999999999ap-3, 0x1.2492492492492p-3,
    0x1.c71c71c71c71cp-4, 0x1.745d1745d1746p-4, 0x1.3b13b13b13b14p-4, 0x1.1111111111111p-4,
    0x1.e1e1e1e1e1e1ep-5, 0x1.af286bca1af28p-5, 0x1.8618618618618p-5, 0x1.642c8590b2164p-5,
};

/* zig_x[b]: layer b's right edge (zig_x[0] = V / f(R) extends the base layer, which
 * carries the tail); zig_f[b] = f(zig_x[b]). 16 KiB each: the fast path reads zig_x. */
static _Alignas(64) double zig_x[ZIG_LAYERS + 1];
static _Alignas(64) double zig_f[ZIG_LAYERS + 1];

static inline double as_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static inline uint64_t as_u64(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* e^a for a in [-708, 0]: a = k ln2 + r, |r| <= ln2/2, e^r by its Taylor series to r^13
 * (error below 2^-57), scaled by 2^k through the exponent bits. */
static double zig_exp(double a)
{
    double kd = a * ZIG_LOG2E + ZIG_SHIFTER;
    double k = kd - ZIG_SHIFTER;
    double r = (a - k * ZIG_LN2_HI) - k * ZIG_LN2_LO;
    double p = r * zig_exp_c[13] + zig_exp_c[12];
    for (int j = 11; j >= 0; --j)
        p = p * r + zig_exp_c[j];
    return p * as_double((as_u64(kd) + 1023) << 52);
}

/* log a for a positive normal a: a = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh s,
 * s = (m - 1)/(m + 1), |s| < 0.172, by its series to s^23. */
static double zig_log(double a)
{
    uint64_t bits = as_u64(a);
    int e = (int)(bits >> 52) - 1023;
    double m = as_double((bits & 0x000FFFFFFFFFFFFFULL) | ZIG_ONE_BITS);
    if (m > 0x1.6a09e667f3bcdp+0) {
        m *= 0.5;
        e += 1;
    }
    double s = (m - 1) / (m + 1), z = s * s;
    double p = z * zig_log_c[11] + zig_log_c[10];
    for (int j = 9; j >= 0; --j)
        p = p * z + zig_log_c[j];
    double ke = (double)e;
    return ke * ZIG_LN2_HI + (ke * ZIG_LN2_LO + (2 * s) * p);
}

static inline double zig_uniform(uint64_t w)
{
    return as_double((w >> 12) | ZIG_ONE_BITS) - ZIG_UNIFORM_OFFSET;
}

static inline double zig_signed(double magnitude, uint64_t w)
{
    return as_double(as_u64(magnitude) ^ (w << 63));
}

/* Marsaglia's tail beyond R, unsigned, from the lane state s. */
static double zig_tail(uint64_t s[4])
{
    double a, c;
    do {
        a = zig_log(zig_uniform(ar_xoshiro_next(s))) / ZIG_R;
        c = zig_log(zig_uniform(ar_xoshiro_next(s)));
    } while (-2 * c < a * a);
    return ZIG_R - a;
}

static inline unsigned zig_layer(uint64_t w)
{
    return (unsigned)((w >> 1) & ZIG_MASK);
}

/* The slow path: finish the normal whose candidate w missed the fast path, drawing on
 * from the lane state s. Every variant calls this one function. */
static double zig_missed(uint64_t s[4], uint64_t w)
{
    for (;;) {
        unsigned b = zig_layer(w);
        double x = zig_uniform(w) * zig_x[b];
        if (b == 0)
            return zig_signed(zig_tail(s), w);
        double y = zig_f[b] + zig_uniform(ar_xoshiro_next(s)) * (zig_f[b + 1] - zig_f[b]);
        if (y < zig_exp(-0.5 * (x * x)))
            return zig_signed(x, w);
        w = ar_xoshiro_next(s);
        b = zig_layer(w);
        x = zig_uniform(w) * zig_x[b];
        if (x < zig_x[b + 1])
            return zig_signed(x, w);
    }
}

/* The reference: one normal from the lane state s. */
static inline double zig_draw(uint64_t s[4])
{
    uint64_t w = ar_xoshiro_next(s);
    unsigned b = zig_layer(w);
    double x = zig_uniform(w) * zig_x[b];
    if (x < zig_x[b + 1])
        return zig_signed(x, w);
    return zig_missed(s, w);
}

/* The vector variants' slow path: lane l, its state in rng->lane. */
static double zig_missed_lane(ar_rng *rng, int l, uint64_t w)
{
    uint64_t s[4] = {rng->lane[0][l], rng->lane[1][l], rng->lane[2][l], rng->lane[3][l]};
    double x = zig_missed(s, w);
    for (int k = 0; k < 4; ++k)
        rng->lane[k][l] = s[k];
    return x;
}

static void normals_scalar(ar_rng *rng, double *out, size_t blocks)
{
    uint64_t s[AR_RNG_LANES][4];
    for (int l = 0; l < AR_RNG_LANES; ++l)
        for (int k = 0; k < 4; ++k)
            s[l][k] = rng->lane[k][l];
    for (size_t n = 0; n < blocks; ++n, out += AR_RNG_LANES)
        for (int l = 0; l < AR_RNG_LANES; ++l)
            out[l] = zig_draw(s[l]);
    for (int l = 0; l < AR_RNG_LANES; ++l)
        for (int k = 0; k < 4; ++k)
            rng->lane[k][l] = s[l][k];
}

#if NORMALS_X86
/* t[o / 2] for o even: the address t + 4 o, one lea. */
#define ZIG_AT(t, o) ((const double *)((const char *)(t) + 4 * (o)))
/* Table lookups: one 16-byte load gives the pair t[b], t[b + 1]; unpacking two such
 * pairs gives two lanes of both. On Zen 3 that beats vgatherqpd: 1.10 against 1.50 ns a
 * normal with AVX2 (build with -DAR_NORMALS_GATHER to compare). */
#define KSUF sse2
#define KTARGET __attribute__((target("sse2")))
#define KW 2
#define KLESS(a, b) _mm_movemask_pd(_mm_cmplt_pd((__m128d)(a), (__m128d)(b)))
#define KLOOKUP2(t, b, lo, hi)                                                               \
    do {                                                                                     \
        vu_sse2 i_ = (b);                                                                    \
        __m128d p0_ = _mm_loadu_pd(ZIG_AT(t, i_[0]));                                        \
        __m128d p1_ = _mm_loadu_pd(ZIG_AT(t, i_[1]));                                        \
        (lo) = (vd_sse2)_mm_unpacklo_pd(p0_, p1_);                                           \
        (hi) = (vd_sse2)_mm_unpackhi_pd(p0_, p1_);                                           \
    } while (0)
#include "normals_kernel.h"

#define KSUF avx2
#define KTARGET __attribute__((target("avx2")))
#define KW 4
#define KLESS(a, b) _mm256_movemask_pd(_mm256_cmp_pd((__m256d)(a), (__m256d)(b), _CMP_LT_OQ))
#ifdef AR_NORMALS_GATHER /* the alternative measured above */
#define KLOOKUP2(t, b, lo, hi)                                                               \
    do {                                                                                     \
        __m256i i_ = (__m256i)(b);                                                           \
        (lo) = (vd_avx2)_mm256_i64gather_pd((t), i_, 4);                                     \
        (hi) = (vd_avx2)_mm256_i64gather_pd((t) + 1, i_, 4);                                 \
    } while (0)
#else
#define KLOOKUP2(t, b, lo, hi)                                                               \
    do {                                                                                     \
        vu_avx2 i_ = (b);                                                                    \
        __m256d a_ = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(ZIG_AT(t, i_[0]))), \
                                          _mm_loadu_pd(ZIG_AT(t, i_[2])), 1);                     \
        __m256d c_ = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(ZIG_AT(t, i_[1]))), \
                                          _mm_loadu_pd(ZIG_AT(t, i_[3])), 1);                     \
        (lo) = (vd_avx2)_mm256_unpacklo_pd(a_, c_);                                          \
        (hi) = (vd_avx2)_mm256_unpackhi_pd(a_, c_);                                          \
    } while (0)
#endif
#include "normals_kernel.h"

/* AVX-512F: gathers, one instruction for 8 lanes (not measured: this machine lacks
 * AVX-512; the pair loads above would take 8 extractions and 6 inserts instead). */
#define KSUF avx512
#define KTARGET __attribute__((target("avx512f")))
#define KW 8
#define KLESS(a, b) _mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_LT_OQ)
#define KLOOKUP2(t, b, lo, hi)                                                               \
    do {                                                                                     \
        __m512i i_ = (__m512i)(b);                                                           \
        (lo) = (vd_avx512)_mm512_i64gather_pd(i_, (t), 4);                                   \
        (hi) = (vd_avx512)_mm512_i64gather_pd(i_, (t) + 1, 4);                               \
    } while (0)
#include "normals_kernel.h"
#endif

typedef void (*normals_fn)(ar_rng *rng, double *out, size_t blocks);

const char *const ar_rng_normals_variants[] = {"scalar", "sse2", "avx2", "avx512", NULL};

static normals_fn variant_fn(int i)
{
#if NORMALS_X86
    __builtin_cpu_init();
    switch (i) {
    case 1:
        return normals_sse2; /* x86-64 always has SSE2 */
    case 2:
        return __builtin_cpu_supports("avx2") ? normals_avx2 : NULL;
    case 3:
        return __builtin_cpu_supports("avx512f") ? normals_avx512 : NULL;
    }
#endif
    return i == 0 ? normals_scalar : NULL;
}

static pthread_once_t zig_once = PTHREAD_ONCE_INIT;
static normals_fn zig_best;
static const char *zig_best_name;

static void zig_init(void)
{
    double f = zig_exp(-0.5 * (ZIG_R * ZIG_R));
    zig_x[0] = ZIG_V / f;
    zig_x[1] = ZIG_R;
    zig_f[0] = 0; /* unused: the base layer has the tail, not a wedge */
    zig_f[1] = f;
    for (int i = 2; i < ZIG_LAYERS; ++i) {
        zig_x[i] = sqrt(-2 * zig_log(ZIG_V / zig_x[i - 1] + f));
        f = zig_exp(-0.5 * (zig_x[i] * zig_x[i]));
        zig_f[i] = f;
    }
    zig_x[ZIG_LAYERS] = 0;
    zig_f[ZIG_LAYERS] = 1;
    /* The widest variant, unless ATTNRANK_NORMALS names another (same bits either way; the
     * program refuses a name that is no variant at its start, ar_rng_normals_env_check). */
    const char *want = getenv("ATTNRANK_NORMALS");
    for (int pass = 0; pass < 2 && !zig_best; ++pass, want = NULL)
        for (int i = 0; ar_rng_normals_variants[i]; ++i) {
            normals_fn fn = variant_fn(i);
            if (fn && (!want || !strcmp(want, ar_rng_normals_variants[i]))) {
                zig_best = fn;
                zig_best_name = ar_rng_normals_variants[i];
            }
        }
}

static void seed_lanes(ar_rng *rng)
{
    pthread_once(&zig_once, zig_init);
    for (int l = 0; l < AR_RNG_LANES; ++l) {
        const uint64_t counter[4] = {rng->counter[0], rng->counter[1], 1 + (uint64_t)l, 0};
        uint64_t s[4];
        ar_philox4x64(counter, rng->key, s);
        if ((s[0] | s[1] | s[2] | s[3]) == 0)
            s[0] = 1; /* xoshiro's one forbidden state; probability 2^-256 */
        for (int k = 0; k < 4; ++k)
            rng->lane[k][l] = s[k];
    }
    rng->lanes_seeded = 1;
}

static void draw(normals_fn fn, ar_rng *rng, double *out, size_t count)
{
    size_t i = 0;
    while (rng->buffered > 0 && i < count)
        out[i++] = rng->buffer[AR_RNG_LANES - rng->buffered--];
    size_t blocks = (count - i) / AR_RNG_LANES;
    if (blocks) {
        fn(rng, out + i, blocks);
        i += blocks * AR_RNG_LANES;
    }
    if (i < count) {
        fn(rng, rng->buffer, 1);
        rng->buffered = AR_RNG_LANES;
        while (i < count)
            out[i++] = rng->buffer[AR_RNG_LANES - rng->buffered--];
    }
}

void ar_rng_normals(ar_rng *rng, double *out, size_t count)
{
    if (!rng->lanes_seeded)
        seed_lanes(rng);
    draw(zig_best, rng, out, count);
}

double ar_rng_normal_block(ar_rng *rng)
{
    if (!rng->lanes_seeded)
        seed_lanes(rng);
    zig_best(rng, rng->buffer, 1);
    rng->buffered = AR_RNG_LANES - 1;
    return rng->buffer[0];
}

int ar_rng_normals_env_check(char *why, size_t len)
{
    const char *want = getenv("ATTNRANK_NORMALS");
    if (!want || !want[0]) /* unset or empty: the widest the CPU has */
        return 0;
    for (int i = 0; ar_rng_normals_variants[i]; ++i)
        if (!strcmp(want, ar_rng_normals_variants[i]))
            return 0;
    char shown[40];
    size_t k = 0;
    for (const char *c = want; *c && k + 1 < sizeof shown; ++c) /* printable: it reaches the terminal */
        shown[k++] = (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f ? *c : '?';
    shown[k] = '\0';
    snprintf(why, len, "ATTNRANK_NORMALS=%s%s: not a variant of the normal sampler; want scalar, sse2, avx2 or avx512 "
             "(a variant the CPU lacks is ignored), or leave it unset for the widest the CPU has", shown,
             strlen(want) > k ? "..." : "");
    return -1;
}

const char *ar_rng_normals_isa(void)
{
    pthread_once(&zig_once, zig_init);
    return zig_best_name;
}

int ar_rng_normals_variant(const char *isa, ar_rng *rng, double *out, size_t count)
{
    pthread_once(&zig_once, zig_init);
    for (int i = 0; isa && ar_rng_normals_variants[i]; ++i) {
        if (strcmp(isa, ar_rng_normals_variants[i]))
            continue;
        normals_fn fn = variant_fn(i);
        if (!fn)
            return -1;
        if (!rng->lanes_seeded)
            seed_lanes(rng);
        draw(fn, rng, out, count);
        return 0;
    }
    return -1;
}

double ar_rng_normal_tail(ar_rng *rng, double *out, size_t count)
{
    if (!rng->lanes_seeded)
        seed_lanes(rng);
    uint64_t s[4] = {rng->lane[0][0], rng->lane[1][0], rng->lane[2][0], rng->lane[3][0]};
    for (size_t i = 0; i < count; ++i)
        out[i] = zig_tail(s);
    for (int k = 0; k < 4; ++k)
        rng->lane[k][0] = s[k];
    return ZIG_R;
}
