/* rng: Philox4x64-10 streams, a ziggurat for normals, and a gsl_rng adaptor. */
#include "attnrank/rng.h"

#include <Random123/philox.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <pthread.h>
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
}

/* Ziggurat tables (Doornik 2005, "An Improved Ziggurat Method to Generate Normal
 * Random Samples"): 128 blocks of equal area V, the base block carrying the tail. */
enum { ZIG_BLOCKS = 128 };
static const double ZIG_R = 3.442619855899;
static const double ZIG_V = 9.91256303526217e-3;
static double zig_x[ZIG_BLOCKS + 1];
static double zig_ratio[ZIG_BLOCKS];
static pthread_once_t zig_once = PTHREAD_ONCE_INIT;

static void zig_init(void)
{
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    zig_x[0] = ZIG_V / f;
    zig_x[1] = ZIG_R;
    zig_x[ZIG_BLOCKS] = 0.0;
    for (int i = 2; i < ZIG_BLOCKS; ++i) {
        zig_x[i] = sqrt(-2.0 * log(ZIG_V / zig_x[i - 1] + f));
        f = exp(-0.5 * zig_x[i] * zig_x[i]);
    }
    for (int i = 0; i < ZIG_BLOCKS; ++i)
        zig_ratio[i] = zig_x[i + 1] / zig_x[i];
}

static double normal_tail(ar_rng *rng, int negative)
{
    double x, y;
    do {
        x = log(ar_rng_uniform(rng)) / ZIG_R;
        y = log(ar_rng_uniform(rng));
    } while (-2.0 * y < x * x);
    return negative ? x - ZIG_R : ZIG_R - x;
}

static inline double zig_draw(ar_rng *rng)
{
    for (;;) {
        uint64_t bits = ar_rng_u64(rng);
        /* Disjoint bits: the 7 low bits pick the block, the top 53 give u in (-1, 1)
         * through a signed conversion (one instruction, unlike unsigned 64-bit). */
        unsigned block = (unsigned)(bits & 0x7f);
        double u = ((double)((int64_t)bits >> 11) + 0.5) * 0x1.0p-52;
        if (fabs(u) < zig_ratio[block])
            return u * zig_x[block];
        if (block == 0)
            return normal_tail(rng, u < 0);
        double x = u * zig_x[block];
        double f0 = exp(-0.5 * (zig_x[block] * zig_x[block] - x * x));
        double f1 = exp(-0.5 * (zig_x[block + 1] * zig_x[block + 1] - x * x));
        if (f1 + ar_rng_uniform(rng) * (f0 - f1) < 1.0)
            return x;
    }
}

double ar_rng_normal(ar_rng *rng)
{
    pthread_once(&zig_once, zig_init);
    return zig_draw(rng);
}

void ar_rng_normals(ar_rng *rng, double *out, size_t count)
{
    pthread_once(&zig_once, zig_init);
    for (size_t i = 0; i < count; ++i)
        out[i] = zig_draw(rng);
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
