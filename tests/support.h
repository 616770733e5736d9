/* support: what several tests need around the engine: a spec from text, one point's
 * summary of one value per trial. */
#ifndef ATTNRANK_TESTS_SUPPORT_H
#define ATTNRANK_TESTS_SUPPORT_H

#include "attnrank/engine.h"
#include "attnrank/spec.h"
#include "attnrank/stats.h"

#include <stdio.h>
#include <stdlib.h>

/* A spec from text; a broken one is the test's own bug: report it and stop. */
static inline void load_spec(const char *text, ar_spec *spec)
{
    char err[AR_ERR_LEN];
    if (ar_spec_load_text(text, "test", NULL, NULL, 0, spec, err) != 0) {
        fprintf(stderr, "test spec: %s\n", err);
        exit(2);
    }
}

/* Summary over the trials of value `value` (0: the first output's) at one point of the
 * spec's first experiment, computed with `threads` threads. */
static inline void summarize_value(const ar_spec *spec, long point, int value, int threads, ar_summary *s)
{
    const ar_experiment *x = &spec->experiments[0];
    double *v = malloc((size_t)x->trials * ar_trials_values_per_trial(x, point) * sizeof *v);
    ar_trials_point_values(spec, x, point, threads, v);
    ar_summarize(v + (size_t)value * x->trials, x->trials, s);
    free(v);
}

#endif
