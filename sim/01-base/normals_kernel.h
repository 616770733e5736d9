/* normals_kernel.h: one vector variant of the lane ziggurat (rng.h has the definition).
 * normals.c includes it once per instruction set, with defined:
 *   KSUF               the suffix of the names made here (sse2, avx2, avx512)
 *   KTARGET            the target attribute of every function made here
 *   KW                 lanes per vector (2, 4, 8)
 *   KLESS(a, b)        the lanes where a < b, as a bit mask (lane i: bit i)
 *   KLOOKUP2(t, o, lo, hi)   with b = o / 2: lo = {t[b[0]], ..., t[b[KW-1]]}, hi the same
 *                      of t + 1 (o is twice the index, as the layer bits of a word are)
 * The arithmetic is GCC vector extensions, written operation for operation like the
 * scalar reference in normals.c, so every width computes the same bits. */
#define KCAT_(a, b) a##_##b
#define KCAT(a, b) KCAT_(a, b)
#define K(name) KCAT(name, KSUF)
#define KINLINE KTARGET static inline __attribute__((always_inline))
#define KGROUPS (AR_RNG_LANES / KW)

typedef uint64_t K(vu) __attribute__((vector_size(8 * KW)));
typedef double K(vd) __attribute__((vector_size(8 * KW)));

KINLINE K(vu) K(load)(const uint64_t *p)
{
    K(vu) v;
    memcpy(&v, p, sizeof v);
    return v;
}

KINLINE void K(store)(uint64_t *p, K(vu) v)
{
    memcpy(p, &v, sizeof v);
}

/* One xoshiro256++ step of KW lanes; s[k] holds word k of each. */
KINLINE K(vu) K(step)(K(vu) s[4])
{
    K(vu) sum = s[0] + s[3];
    K(vu) result = ((sum << 23) | (sum >> 41)) + s[0];
    K(vu) t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

KINLINE K(vd) K(uniform)(K(vu) w)
{
    return (K(vd))((w >> 12) | ZIG_ONE_BITS) - ZIG_UNIFORM_OFFSET;
}

/* blocks blocks of AR_RNG_LANES normals into out: the fast path here, the slow path
 * lane by lane in zig_missed, on the lane's state in rng->lane. */
KTARGET static void K(normals)(ar_rng *rng, double *out, size_t blocks)
{
    K(vu) s[KGROUPS][4];
    for (int g = 0; g < KGROUPS; ++g)
        for (int k = 0; k < 4; ++k)
            s[g][k] = K(load)(rng->lane[k] + g * KW);
    for (double *end = out + blocks * AR_RNG_LANES; out != end; out += AR_RNG_LANES) {
        K(vu) w[KGROUPS];
        unsigned fast = 0;
        for (int g = 0; g < KGROUPS; ++g) {
            w[g] = K(step)(s[g]);
            K(vd) lo, hi;
            KLOOKUP2(zig_x, w[g] & (ZIG_MASK << 1), lo, hi);
            K(vd) x = K(uniform)(w[g]) * lo;
            fast |= (unsigned)KLESS(x, hi) << (g * KW);
            K(vd) value = (K(vd))((K(vu))x ^ (w[g] << 63));
            memcpy(out + g * KW, &value, sizeof value);
        }
        if (__builtin_expect(fast != (1u << AR_RNG_LANES) - 1, 0)) {
            uint64_t words[AR_RNG_LANES];
            for (int g = 0; g < KGROUPS; ++g) {
                K(store)(words + g * KW, w[g]);
                for (int k = 0; k < 4; ++k)
                    K(store)(rng->lane[k] + g * KW, s[g][k]);
            }
            for (unsigned missed = ~fast & ((1u << AR_RNG_LANES) - 1); missed; missed &= missed - 1) {
                int l = __builtin_ctz(missed);
                out[l] = zig_missed_lane(rng, l, words[l]);
            }
            for (int g = 0; g < KGROUPS; ++g)
                for (int k = 0; k < 4; ++k)
                    s[g][k] = K(load)(rng->lane[k] + g * KW);
        }
    }
    for (int g = 0; g < KGROUPS; ++g)
        for (int k = 0; k < 4; ++k)
            K(store)(rng->lane[k] + g * KW, s[g][k]);
}

#undef KCAT_
#undef KCAT
#undef K
#undef KINLINE
#undef KGROUPS
/* the includer's parameters too, so the next variant defines them afresh */
#undef KSUF
#undef KTARGET
#undef KW
#undef KLESS
#undef KLOOKUP2
