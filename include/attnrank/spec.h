/* spec: run specification files.
 *
 * A spec is a libconfig file: a seed, an optional title, and a list of experiments.
 * Each experiment names a simulator, a trial count and parameter values; a parameter
 * given as an array or list is a grid axis, a scalar is fixed. The grid is the
 * cartesian product of the axes in the order they appear, the last varying fastest.
 *
 *   seed = 1;
 *   experiments = (
 *     { name = "bound"; simulator = "hardmax_rank"; trials = 2000;
 *       n = [8, 64, 512]; d_h = [1, 16, 256];
 *       claims = ["H1", "H2"];            # optional: default, the simulator's claims;
 *                                         # [] for none (report only)
 *       expect = { H1 = "HOLDS"; }; }    # optional: default HOLDS
 *   );
 *
 * `--set key=value` overrides: `seed=7`, `trials=100` (every experiment),
 * `bound.n=[8,16]` (one experiment), one assignment each. Every field is validated
 * against the simulator's parameter table; errors name the file, line and field.
 * Integers are read whole (64 bits, a literal beyond that refused), @include lines are
 * expanded with their files' lines kept for messages, and a spec with all it includes
 * is at most 1 MiB (sim/06-spec/spec_source.h). */
#ifndef ATTNRANK_SPEC_H
#define ATTNRANK_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "attnrank/attack.h"
#include "attnrank/message.h" /* AR_ERR_LEN */
#include "attnrank/sim.h"
#include "attnrank/theory.h"

enum { AR_MAX_CLAIMS = 32 };

typedef struct ar_axis {
    int param;
    int count;
    double *values;
    int position; /* where the spec wrote it; axes are ordered by it */
} ar_axis;

typedef struct ar_experiment {
    char *name;
    const ar_sim *sim;
    long trials;
    ar_point base;                 /* every parameter's fixed or default value */
    int n_axes;
    ar_axis axes[AR_MAX_PARAMS];
    long n_points;
    int n_claims;
    int claims_listed;             /* the spec named its claims (possibly none) */
    const ar_claim *claims[AR_MAX_CLAIMS];
    ar_verdict expect[AR_MAX_CLAIMS];
    char where[128];               /* "file:line" of the experiment, for messages */
    char param_where[AR_MAX_PARAMS][128]; /* where each parameter was set ("" if default) */
} ar_experiment;

typedef struct ar_spec {
    char *source;        /* file name, or a label for built-in specs */
    char *source_text;   /* the file as read, then the overrides */
    char *canonical;     /* the expanded spec with every value: what the hash covers */
    uint64_t hash;
    uint64_t seed;
    char *title;
    int n_experiments;
    ar_experiment *experiments;
    int n_attacks;       /* the experiments' attacks (attack.h), in spec order */
    ar_attack *attacks;
} ar_spec;

/* Read, override and validate. Returns 0, or -1 with a one-line message in err. */
int ar_spec_load(const char *path, const char *const *overrides, int n_overrides,
                 ar_spec *spec, char *err);
int ar_spec_load_text(const char *text, const char *label, const char *include_dir,
                      const char *const *overrides, int n_overrides, ar_spec *spec, char *err);
void ar_spec_free(ar_spec *spec);
/* Multiply every experiment's trial count (at least 2 remain); updates the hash.
 * Returns 0, or -1 when out of memory (the spec is then only fit to be freed). */
int ar_spec_scale_trials(ar_spec *spec, double factor);

/* Judge's conjectures (conjecture.h), added to a loaded spec: those of the conjecture
 * file at path (NULL: none), then one per --conjecture line. Each goes to the
 * experiment it names, else to the one whose simulator has its output; result_label
 * (the result file) names where they are judged in messages. Updates the canonical text
 * and the hash. Returns 0, or -1 with err (the spec is then only fit to be freed). */
int ar_spec_add_conjectures(ar_spec *spec, const char *result_label, const char *path, const char *const *lines,
                            int n_lines, char *err);

/* Index of the axis that sweeps parameter param, or -1 if it is fixed. */
int ar_experiment_axis_of(const ar_experiment *exp, int param);
/* The point at a flat index (last axis fastest). */
void ar_experiment_point(const ar_experiment *exp, long index, ar_point *point);
/* Which point of the grid would hold this axis value tuple: index along each axis. */
void ar_experiment_coords(const ar_experiment *exp, long index, int *coords);

/* Shards (--shard I/N) own blocks of consecutive points dealt round-robin: point g,
 * counted over all the spec's experiments in order, belongs to shard (g / B) mod N with
 * B = ar_shard_block(points, N): about 64 blocks a shard, so that costs varying along
 * the grid spread evenly, but at least 512 points where that leaves each shard four
 * (a block fills whole pages of each dataset, so a shard's file is sparse on disk), and
 * at most 4096; a shard's points come in runs it writes as slabs. */
long ar_shard_block(long points, int shards);
int ar_shard_owner(long global, long points, int shards);
/* "I/N", decimal digits only, 0 <= I < N <= INT_MAX, nothing around them: 0, else -1. */
int ar_shard_parse(const char *text, int *index, int *count);
/* Points over all the spec's experiments. */
long ar_spec_points(const ar_spec *spec);

#endif
