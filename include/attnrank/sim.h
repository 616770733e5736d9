/* sim: the simulator interface.
 *
 * A simulator says how to draw one trial at one grid point and what that trial
 * measures; the engine does everything else (grids, threads, streams, statistics,
 * storage, resume, verdicts). A simulator is a const struct of tables and functions:
 * its parameter table drives spec validation, `attnrank list` and the HDF5 attributes. */
#ifndef ATTNRANK_SIM_H
#define ATTNRANK_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "attnrank/rng.h"

enum { AR_MAX_PARAMS = 24, AR_MAX_OUTPUTS = 32 };

/* Entries of a static table (parameters, outputs). */
#define AR_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))
/* A simulator's parameter and output tables, with their sizes, in an ar_sim initializer. */
#define AR_SIM_TABLES(param_table, output_table)                                             \
    .params = (param_table), .n_params = AR_COUNT(param_table), .outputs = (output_table),     \
    .n_outputs = AR_COUNT(output_table)

typedef enum { AR_PARAM_INT, AR_PARAM_REAL, AR_PARAM_CHOICE } ar_param_type;

typedef struct ar_param {
    const char *name;
    ar_param_type type;
    double default_value;   /* for a choice, the index of the default in choices */
    double min, max;        /* inclusive range for INT and REAL */
    int min_exclusive;      /* REAL: value must be > min rather than >= min */
    const char *const *choices; /* CHOICE: NULL-terminated names */
    const char *doc;
    /* 1 if the parameter only says how to compute (a route, what to measure), never
     * what is drawn: it is left out of the point's stream key, so changing it keeps
     * the random draws, and the results agree up to round-off (but for outputs that
     * measure something else on the same draws: convex_attention's softmax network). */
    int how_only;
} ar_param;

typedef struct ar_point ar_point;

typedef struct ar_output {
    const char *name;
    const char *description;
    /* Integer-valued outputs get a histogram over 0..hist_max(point); NULL otherwise. */
    int (*hist_max)(const ar_point *point);
    /* NULL, or whether the output is measured at this point (else it is left NaN). */
    int (*applies)(const ar_point *point);
    /* Vector outputs (one value per layer, say): the count per trial at this point, and
     * the name of the extra dimension, indexed 0..count-1. NULL for a scalar output. */
    int (*length)(const ar_point *point);
    const char *index_name;
    /* NULL (the index is 0, 1, ...), or the coordinate of value i, e.g. a bin centre. */
    double (*index_value)(int i);
    /* A density on a 2-D grid (eigenvalues in the complex plane): the length(point)
     * values come row by row, `columns` to a row, and are stored with two extra
     * dimensions, index_name for the rows and column_name for the columns, each with
     * its coordinates. 0 for a 1-D vector. */
    int columns;
    const char *column_name;
    double (*column_value)(int j);
    /* The measure's definition where the output is a rank measure (rank.h's
     * AR_DEFINITION_* or its own), stored as the output's `definition`; NULL: the
     * description says it all. */
    const char *definition;
    /* NULL, or for a real output whose trials take values on a lattice (a function of an
     * integer, such as a rank deficit) the lattice's spacing at this point: its interval
     * gets the integer outputs' floor in these units (stats.h ar_summarize_lattice). */
    double (*spacing)(const ar_point *point);
    /* NULL, or the interval every counted trial's value lies in at this point, as a
     * mathematical fact of the measure that its rounding keeps (a rate of 0/1 trials in
     * [0, 1]): readers refuse a file whose statistics leave it (ar_output_range). An
     * integer output lies in [0, hist_max(point)] without it. */
    void (*range)(const ar_point *point, double *lower, double *upper);
} ar_output;

/* The values a counted trial of o can take at p: [*lower, *upper] (-inf, +inf where
 * nothing bounds them), the intersection of hist_max's and range's. 1 for an integer
 * output (hist_max: its values are whole), else 0. */
int ar_output_range(const ar_output *o, const ar_point *p, double *lower, double *upper);
/* A range callback for the outputs that are 0 or 1 per trial, or a fraction: [0, 1]. */
void ar_range_unit(const ar_point *point, double *lower, double *upper);
/* Relative room for rounding, for a bound the computed value can pass by a few ulps
 * (a sum of squares over a Lanczos sigma_1^2, an exp of a rounded entropy, a cosine):
 * 1e-9 is some 10^7 ulps, far more than those few operations' rounding, and still
 * refuses any value a forger could gain by (a stable rank of 8.5 at n = 8). */
#define AR_RANGE_ROUNDING 1e-9
/* A rank measure of a matrix of rank at most dim (stable rank, its Gram version,
 * effective rank): [1, dim], with AR_RANGE_ROUNDING's room at both ends. */
void ar_range_rank_measure(double dim, double *lower, double *upper);
/* A norm or any quantity >= 0: [0, +inf). */
void ar_range_nonnegative(const ar_point *point, double *lower, double *upper);
/* A logarithm of a ratio <= 1: (-inf, 0]. */
void ar_range_nonpositive(const ar_point *point, double *lower, double *upper);
/* A computed ratio in [0, 1] (a |cosine|, a norm over a larger one) that rounding can
 * take a few ulps past 1: [0, 1 + AR_RANGE_ROUNDING]. */
void ar_range_unit_rounded(const ar_point *point, double *lower, double *upper);

static inline int ar_output_length(const ar_output *o, const ar_point *p)
{
    return o->length ? o->length(p) : 1;
}

typedef struct ar_sim {
    const char *name;
    const char *summary;
    const ar_param *params;
    int n_params;
    const ar_output *outputs;
    int n_outputs;
    /* Cross-field rules, or NULL if there are none. Returns -1 if the point is valid,
     * else the index of the parameter at fault with a reason in why. */
    int (*check)(const ar_point *point, char *why, size_t why_len);
    /* Bytes of scratch one thread needs for one trial at this point. */
    size_t (*workspace_bytes)(const ar_point *point);
    /* NULL, or: fill the part of a fresh workspace that every trial at this point
     * shares and that is a function of the point alone (a fixed mask graph and its
     * radius, say). Called once per thread per point, before its first trial; trials
     * only read that part, so results cannot depend on which thread ran what. */
    void (*prepare)(const ar_point *point, void *workspace);
    /* Relative cost of one trial (e.g. its flop count), for progress and planning;
     * NULL means every trial costs the same. */
    double (*cost)(const ar_point *point);
    /* Draw one trial: write each output's values to out, one after the other (one
     * value for a scalar, length(point) for a vector; NaN where an output does not
     * apply). Returns 0, or non-zero if the trial failed (e.g. LAPACK did not
     * converge); a failed trial is counted, never averaged. No allocation here. */
    int (*trial)(const ar_point *point, ar_rng *rng, void *workspace, double *out);
} ar_sim;

/* One grid point: a value for every parameter of its simulator. Integers are stored
 * as exact doubles, choices as the index into the parameter's choices. */
struct ar_point {
    const ar_sim *sim;
    double value[AR_MAX_PARAMS];
};

/* Where output `index` starts in a trial's out[] at this point: the lengths of the
 * outputs before it. Simulators with vector outputs write through it, so the family
 * header's output enum, the output table and the writes cannot fall out of step. */
static inline int ar_output_offset(const ar_point *p, int index)
{
    int offset = 0;
    for (int o = 0; o < index; ++o)
        offset += ar_output_length(&p->sim->outputs[o], p);
    return offset;
}

/* Values one trial writes at this point: every output's length. */
static inline int ar_values_per_trial(const ar_point *p) { return ar_output_offset(p, p->sim->n_outputs); }

static inline int ar_point_int(const ar_point *p, int param) { return (int)p->value[param]; }
static inline double ar_point_real(const ar_point *p, int param) { return p->value[param]; }
static inline int ar_point_choice(const ar_point *p, int param) { return (int)p->value[param]; }

/* Carving a trial's workspace into 64-byte aligned blocks. The same code serves to
 * size the workspace (base NULL: every block is NULL, only the total grows) and to lay
 * it out, so the two cannot disagree. */
typedef struct ar_carver {
    char *base;
    size_t used;
} ar_carver;

static inline void *ar_carve(ar_carver *c, size_t bytes)
{
    void *block = c->base && bytes ? c->base + c->used : NULL;
    c->used += (bytes + 63) & ~(size_t)63;
    return block;
}

/* Value of the named parameter, NaN if the point's simulator has none by that name. */
double ar_point_value(const ar_point *point, const char *name);

/* Key of a point's random streams: hash of the simulator name and every parameter's
 * name and value (choices by name), so it does not depend on the grid's shape;
 * parameters marked how_only are left out. */
uint64_t ar_point_key(const ar_point *point);
/* "n=64 d_h=8 weights=tied": the parameters named in `which` (or all if NULL). */
void ar_point_describe(const ar_point *point, const int *which, int count, char *buf, size_t len);
void ar_point_defaults(const ar_sim *sim, ar_point *point);

/* The simulators this build knows: ar_sim_find, ar_sim_all (registry.h). */
int ar_sim_param_index(const ar_sim *sim, const char *name);
int ar_choice_index(const ar_param *param, const char *name);

#endif
