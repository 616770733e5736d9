/* rng: Philox4x64-10 streams and a gsl_rng adaptor; the normal sampler is in normals.c. */
#include "attnrank/rng.h"

#include <Random123/philox.h>
#include <gsl/gsl_rng.h>
#include <string.h>

void ar_philox4x64(const uint64_t counter[4], const uint64_t key[2], uint64_t out[4])
{
    philox4x64_ctr_t c = {{counter[0], counter[1], counter[2], counter[3]}};
    philox4x64_key_t k = {{key[0], key[1]}};
    philox4x64_ctr_t r = philox4x64(c, k);
    memcpy(out, r.v, 4 * sizeof *out);
}

void ar_rng_init(ar_rng *rng, uint64_t seed, uint64_t point_key, uint64_t trial, uint64_t substream)
{
    const uint64_t counter[4] = {trial, substream, 0, 0};
    const uint64_t key[2] = {seed, point_key};
    ar_philox4x64(counter, key, rng->s);
    if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
        rng->s[0] = 1; /* xoshiro's one forbidden state; probability 2^-256 */
    /* The normal lanes cost 8 more Philox blocks: seeded on the first normal drawn. */
    rng->key[0] = seed, rng->key[1] = point_key;
    rng->counter[0] = trial, rng->counter[1] = substream;
    rng->buffered = 0;
    rng->lanes_seeded = 0;
}

/* gsl_rng adaptor: the state is a copy of an ar_rng, handing out 32-bit halves. */
typedef struct {
    ar_rng rng;
    uint64_t word;
    int halves_left;
} gsl_state;

static void gsl_set(void *state, unsigned long seed)
{
    gsl_state *s = state;
    ar_rng_init(&s->rng, seed, 0, 0, 0);
    s->halves_left = 0;
}

static unsigned long gsl_get(void *state)
{
    gsl_state *s = state;
    if (s->halves_left == 0) {
        s->word = ar_rng_u64(&s->rng);
        s->halves_left = 2;
    }
    s->halves_left--;
    uint32_t half = (uint32_t)(s->word >> (32 * s->halves_left));
    return half;
}

static double gsl_get_double(void *state)
{
    gsl_state *s = state;
    return ar_rng_uniform(&s->rng);
}

static const gsl_rng_type philox_type = {
    "attnrank-philox4x64", 0xffffffffUL, 0, sizeof(gsl_state), gsl_set, gsl_get, gsl_get_double,
};

gsl_rng *ar_rng_gsl_alloc(void)
{
    return gsl_rng_alloc(&philox_type);
}

void ar_rng_gsl_bind(gsl_rng *g, const ar_rng *rng)
{
    gsl_state *s = g->state;
    s->rng = *rng;
    s->halves_left = 0;
}

uint64_t ar_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t ar_hash_bytes(uint64_t h, const void *data, size_t len)
{
    /* FNV-1a over the bytes, then a SplitMix finaliser so nearby inputs spread. */
    const unsigned char *p = data;
    h ^= 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return ar_mix64(h);
}
