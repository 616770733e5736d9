/* rng: random streams that are pure functions of (seed, point, trial).
 *
 * Every trial draws from its own streams. Their start is counter-based: Philox4x64-10
 * (Random123) with key = {seed, point key} and a counter gives the 256-bit state of a
 * xoshiro256++ generator, which then produces the trial's numbers at about 1 ns a word
 * (Philox alone costs 5 ns a word here). So results cannot depend on thread scheduling,
 * process counts or sharding. The point key is a hash of the simulator name and the
 * point's parameter values (ar_point_key in sim.h): adding a value to an axis leaves the
 * other points' streams unchanged.
 *
 * One ar_rng holds nine xoshiro256++ streams:
 *   - the scalar stream, counter {trial, substream, 0, 0}: ar_rng_u64, ar_rng_uniform
 *     and the gsl_rng adaptor;
 *   - eight normal lanes, lane l with counter {trial, substream, 1 + l, 0}, seeded on
 *     the first normal drawn: ar_rng_normal and ar_rng_normals.
 * Uniforms and normals therefore never take words from each other's streams.
 *
 * Normals: a 2048-layer ziggurat in Doornik's ZIGNOR form, run on each lane. The
 * definition, which every variant below reproduces bit for bit:
 *   - The normal sequence is made of blocks of 8; normal j of block k is lane j's k-th
 *     normal. Each lane is the scalar reference below run on that lane's own stream.
 *   - A lane word w gives U(w) = (as_double(0x3FF0000000000000 | (w >> 12)) - 1) + 2^-53,
 *     computed as the one exact subtraction as_double(...) - (1 - 2^-53): in (0, 1).
 *   - Candidate: b = (w >> 1) & 2047, x = fl(U(w) * X[b]); if x < X[b+1], the normal is
 *     x, negated (its sign bit flipped) when bit 0 of w is set. X are the layer edges:
 *     X[1] = R = 4.2163704095118969, V = 6.1260651762404609e-4 the layers' area,
 *     X[0] = V / f(R), X[i] = sqrt(-2 log(V / X[i-1] + f(X[i-1]))), X[2048] = 0, f(x) =
 *     exp(-x^2 / 2), computed at start-up from R and V (hex constants in normals.c).
 *   - Else, for b = 0, the tail: draw a = log(U(w1)) / R, c = log(U(w2)) from the lane's
 *     next two words until -2c >= a * a; the normal is R - a, signed by w's bit 0.
 *   - Else the wedge: with the lane's next word v, the normal is x (signed by w's bit 0)
 *     if F[b] + U(v) * (F[b+1] - F[b]) < exp(-0.5 * (x * x)), F[b] = f(X[b]); if not, the
 *     lane's next word is a new candidate, and so on.
 *   - exp and log are the sampler's own (normals.c), from IEEE add, multiply, divide
 *     and square root alone, and nothing is fused (no FMA): the bits depend on no libm
 *     and no CPU, only on this definition.
 * The fast path (x < X[b+1], 99.77% of candidates) is vectorised over the 8 lanes; the
 * rest runs lane by lane through the scalar reference's own code. About 1.1 ns a
 * normal here (AVX2, Zen 3) against 4.2 ns for the scalar ziggurat it replaced.
 *
 * The sequence does not depend on how it is split: ar_rng_normals(r, a, n1) then
 * ar_rng_normals(r, b, n2) gives the same numbers as one call for n1 + n2 (a block's
 * unused normals wait in a buffer), and ar_rng_normal takes from the same sequence.
 * ar_rng_gsl_* expose the scalar stream as a gsl_rng so GSL's distributions work. */
#ifndef ATTNRANK_RNG_H
#define ATTNRANK_RNG_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

enum { AR_RNG_LANES = 8 };

/* The fields are the sampler's; use the functions below. lane is word-major (lane[k][l]
 * is word k of lane l) so one vector load takes a word of several lanes; the loads are
 * unaligned, so an ar_rng may live anywhere (malloc'd memory included). */
typedef struct ar_rng {
    uint64_t s[4];                    /* the scalar stream's xoshiro256++ state */
    uint64_t lane[4][AR_RNG_LANES];   /* the normal lanes' states, once seeded */
    double buffer[AR_RNG_LANES];      /* the last block of normals ... */
    int buffered;                     /* ... of which the last `buffered` are unused */
    int lanes_seeded;                 /* 0 until the first normal */
    uint64_t key[2], counter[2];      /* {seed, point key}, {trial, substream} */
} ar_rng;

/* The result files' "rng" attribute: it names the streams, so a resumed run or a merge
 * refuses a file whose points were drawn from other streams. Change it whenever any
 * stream's bits change. */
#define AR_RNG_STREAMS                                                                                        \
    "attnrank streams 2: Philox4x64-10 (Random123), key = {seed, hash(simulator, point parameters)}, counter " \
    "= {trial, substream, lane, 0}, each continued by xoshiro256++: lane 0 for uniforms, lanes 1-8 for "      \
    "normals by a 2048-layer ziggurat, normal j of each block of 8 from lane 1 + j"

/* Start the streams of one trial; substream splits one trial's draws into
 * independent parts when a simulator wants that. */
void ar_rng_init(ar_rng *rng, uint64_t seed, uint64_t point_key, uint64_t trial, uint64_t substream);

/* One step of the xoshiro256++ state s (the scalar stream and each normal lane). */
static inline uint64_t ar_xoshiro_next(uint64_t s[4])
{
    uint64_t sum = s[0] + s[3];
    uint64_t result = ((sum << 23) | (sum >> 41)) + s[0];
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

static inline uint64_t ar_rng_u64(ar_rng *rng)
{
    return ar_xoshiro_next(rng->s);
}

/* Uniform on the open interval (0, 1) with 53 random bits. */
static inline double ar_rng_uniform(ar_rng *rng)
{
    /* The shifted word is < 2^53, so the signed conversion is exact and cheap. */
    return ((double)(int64_t)(ar_rng_u64(rng) >> 11) + 0.5) * 0x1.0p-53;
}

/* Fill out[0..count) with the next count N(0, 1) draws of the normal sequence. */
void ar_rng_normals(ar_rng *rng, double *out, size_t count);
/* Fill rng->buffer with the next block (8 normals) and return its first; internal to
 * ar_rng_normal. */
double ar_rng_normal_block(ar_rng *rng);

/* The next N(0, 1) draw of the same sequence as ar_rng_normals. */
static inline double ar_rng_normal(ar_rng *rng)
{
    if (rng->buffered == 0)
        return ar_rng_normal_block(rng);
    return rng->buffer[AR_RNG_LANES - rng->buffered--];
}

/* The variants of the normal sampler: "scalar" (the reference, lane after lane), "sse2",
 * "avx2" and "avx512" (AVX-512F), all giving the same bits. ar_rng_normals uses the
 * widest the CPU has (x86-64; other machines get "scalar"), or the one the environment
 * variable ATTNRANK_NORMALS names if the CPU has it; ar_rng_normals_isa names the one in
 * use. ar_rng_normals_variant draws like ar_rng_normals, from the same sequence, with the
 * variant named, and returns 0, or -1 (drawing nothing) where the name is unknown or the
 * CPU lacks it: for tests and benchmarks. */
const char *ar_rng_normals_isa(void);
int ar_rng_normals_variant(const char *isa, ar_rng *rng, double *out, size_t count);
/* The variant names, widest last, ending with NULL. */
extern const char *const ar_rng_normals_variants[];
/* 0 if ATTNRANK_NORMALS is unset, empty or one of those names; else -1 and why (one
 * printable line naming the variable and the names): the program refuses it at its
 * start, where the sampler itself would only ignore it. */
int ar_rng_normals_env_check(char *why, size_t len);

/* The ziggurat's tail on its own, for tests: the tail routine (the b = 0 branch above,
 * unsigned) run count times on lane 0's stream, so out[] is distributed as Z given
 * Z > R; returns R. */
double ar_rng_normal_tail(ar_rng *rng, double *out, size_t count);

/* Philox4x64-10 itself, for known-answer tests. */
void ar_philox4x64(const uint64_t counter[4], const uint64_t key[2], uint64_t out[4]);

/* A gsl_rng view of the scalar stream (32-bit words). Allocate one per thread, then
 * bind it to the trial's stream; it draws from a copy, so bind again after using rng
 * directly. */
gsl_rng *ar_rng_gsl_alloc(void);
void ar_rng_gsl_bind(gsl_rng *g, const ar_rng *rng);

/* 64-bit mixing used to derive keys (SplitMix64 finaliser over FNV-1a). */
uint64_t ar_mix64(uint64_t x);
uint64_t ar_hash_bytes(uint64_t h, const void *data, size_t len);

#endif
