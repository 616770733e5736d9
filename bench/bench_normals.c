/* bench_normals: ns per normal of each variant of the normal sampler, side by side on one
 * thread, and one JSON line per variant. The variants take turns, repeat after repeat,
 * and each reports its best repeat (the machine's noise only ever adds time).
 *
 * usage: bench_normals [BUFFER [NORMALS_PER_REPEAT [REPEATS]]]
 *   defaults 4096 doubles (what a trial of n d = 64 x 64 draws), 2^24, 7 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "attnrank/builtin_families.h"
#include "attnrank/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One repeat: total normals drawn buffer by buffer; variant NULL is ar_rng_normal. */
static double repeat(const char *variant, double *buf, size_t buffer, size_t total, double *checksum)
{
    ar_rng r;
    ar_rng_init(&r, 1, 2, 3, 0);
    double t0 = now();
    for (size_t done = 0; done < total; done += buffer) {
        if (variant)
            ar_rng_normals_variant(variant, &r, buf, buffer);
        else
            for (size_t i = 0; i < buffer; ++i)
                buf[i] = ar_rng_normal(&r);
        *checksum += buf[buffer - 1];
    }
    return (now() - t0) / (double)total * 1e9;
}

int main(int argc, char **argv)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "attnrank: built-in families: %s\n", why);
        return 2;
    }
    size_t buffer = argc > 1 ? strtoul(argv[1], NULL, 10) : 4096;
    size_t total = argc > 2 ? strtoul(argv[2], NULL, 10) : (size_t)1 << 24;
    int repeats = argc > 3 ? atoi(argv[3]) : 7;
    if (buffer < 1 || total < buffer || repeats < 1) {
        fprintf(stderr, "usage: bench_normals [BUFFER [NORMALS_PER_REPEAT [REPEATS]]]\n");
        return 2;
    }
    total -= total % buffer;
    double *buf = malloc(buffer * sizeof *buf);
    if (!buf)
        return 1;
    enum { MAX = 8 };
    const char *names[MAX];
    int count = 0;
    for (int i = 0; ar_rng_normals_variants[i] && count < MAX - 1; ++i) {
        ar_rng r;
        ar_rng_init(&r, 1, 2, 3, 0);
        if (ar_rng_normals_variant(ar_rng_normals_variants[i], &r, buf, 1) == 0)
            names[count++] = ar_rng_normals_variants[i];
        else
            printf("{\"variant\": \"%s\", \"skipped\": \"the CPU lacks it\"}\n", ar_rng_normals_variants[i]);
    }
    names[count++] = NULL; /* ar_rng_normal, one at a time */
    double best[MAX], checksum = 0;
    for (int v = 0; v < count; ++v)
        best[v] = 1e300;
    for (int rep = 0; rep < repeats; ++rep)
        for (int v = 0; v < count; ++v) {
            double ns = repeat(names[v], buf, buffer, total, &checksum);
            if (ns < best[v])
                best[v] = ns;
        }
    for (int v = 0; v < count; ++v)
        printf("{\"variant\": \"%s\", \"ns_per_normal\": %.3f, \"buffer\": %zu, \"normals\": %zu, \"repeats\": %d, "
               "\"default\": %s, \"speedup_vs_scalar\": %.2f}\n",
               names[v] ? names[v] : "ar_rng_normal", best[v], buffer, total, repeats,
               names[v] && !strcmp(names[v], ar_rng_normals_isa()) ? "true" : "false", best[0] / best[v]);
    if (checksum == 12345.678)
        puts("impossible");
    free(buf);
    return 0;
}
