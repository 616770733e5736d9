/* rng: random streams that are pure functions of (seed, point, trial).
 *
 * Every trial draws from its own stream. Its start is counter-based: Philox4x64-10
 * (Random123) with key = {seed, point key} and counter = {trial, substream} gives the
 * 256-bit state of a xoshiro256++ generator, which then produces the trial's numbers
 * at about 1 ns a word (Philox alone costs 5 ns a word here). So results cannot depend
 * on thread scheduling, process counts or sharding. The point key is a hash of the
 * simulator name and the point's parameter values (ar_point_key in sim.h): adding a
 * value to an axis leaves the other points' streams unchanged.
 *
 * Normals come from a 128-layer ziggurat (Marsaglia & Tsang, in Doornik's ZIGNOR form),
 * about 3.2 ns a number here against 38 ns for gsl_ran_gaussian. ar_rng_gsl_* expose
 * a stream as a gsl_rng so GSL's distributions work unchanged. */
#ifndef ATTNRANK_RNG_H
#define ATTNRANK_RNG_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ar_rng {
    uint64_t s[4]; /* xoshiro256++ state */
} ar_rng;

/* Start the stream of one trial; substream splits one trial's draws into
 * independent parts when a simulator wants that. */
void ar_rng_init(ar_rng *rng, uint64_t seed, uint64_t point_key, uint64_t trial, uint64_t substream);

static inline uint64_t ar_rng_u64(ar_rng *rng)
{
    uint64_t *s = rng->s;
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

/* Uniform on the open interval (0, 1) with 53 random bits. */
static inline double ar_rng_uniform(ar_rng *rng)
{
    /* The shifted word is < 2^53, so the signed conversion is exact and cheap. */
    return ((double)(int64_t)(ar_rng_u64(rng) >> 11) + 0.5) * 0x1.0p-53;
}

double ar_rng_normal(ar_rng *rng);
/* Fill out[0..count) with iid N(0, 1) draws. */
void ar_rng_normals(ar_rng *rng, double *out, size_t count);

/* Philox4x64-10 itself, for known-answer tests. */
void ar_philox4x64(const uint64_t counter[4], const uint64_t key[2], uint64_t out[4]);

/* A gsl_rng view of a stream (32-bit words). Allocate one per thread, then bind it to
 * the trial's stream; it draws from a copy, so bind again after using rng directly. */
gsl_rng *ar_rng_gsl_alloc(void);
void ar_rng_gsl_bind(gsl_rng *g, const ar_rng *rng);

/* 64-bit mixing used to derive keys (SplitMix64 finaliser over FNV-1a). */
uint64_t ar_mix64(uint64_t x);
uint64_t ar_hash_bytes(uint64_t h, const void *data, size_t len);

#endif
