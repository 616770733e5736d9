/* check: the few assertions the C tests need. A failed check prints where and why and
 * makes the test exit non-zero; the test goes on so one run shows every failure. */
#ifndef ATTNRANK_TESTS_CHECK_H
#define ATTNRANK_TESTS_CHECK_H

#include "attnrank/builtin_families.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                                       \
    do {                                                                                 \
        double g_ = (got), w_ = (want), t_ = (tol);                                      \
        if (!(fabs(g_ - w_) <= t_)) {                                                    \
            fprintf(stderr, "%s:%d: %s = %.17g, want %.17g within %.3g\n", __FILE__,     \
                    __LINE__, #got, g_, w_, t_);                                         \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

#define CHECK_CONTAINS(text, part)                                                       \
    do {                                                                                 \
        const char *t_ = (text), *p_ = (part);                                           \
        if (!strstr(t_, p_)) {                                                           \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__,         \
                    __LINE__, t_, p_);                                                   \
            check_failures++;                                                            \
        }                                                                                \
    } while (0)

/* The built-in families, registered as the program registers them before its command
 * line runs; a test that cannot have them stops. */
static inline void check_register_families(void)
{
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0) {
        fprintf(stderr, "built-in families: %s\n", why);
        exit(2);
    }
}

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
