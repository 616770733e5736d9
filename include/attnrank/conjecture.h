/* conjecture: a claim a user writes, in a spec's experiment or on `attnrank judge`'s
 * command line, built into an ar_claim that the verdict machinery (theory.h) judges
 * exactly as it judges a built-in one: same rules, resolutions and mutants.
 *
 *   conjectures = (
 *     { id = "rank_06"; output = "argmax_rank"; rule = "upper_bound";
 *       prediction = "0.6 * n + 2"; where = "d_h >= 4"; },
 *     { id = "edge_rate"; output = "sqrt_n_sigma2"; rule = "limit";
 *       prediction = "2"; tolerance = 0.02; along = "n"; }
 *   );
 *
 * Fields: id (1-15 letters, digits, '_' or '-', starting with a letter; not a built-in
 * claim's), output, rule (upper_bound, lower_bound, equality, limit, log_slope,
 * decreasing, increasing, steeper, every_trial, witness, measure), prediction and
 * where (expressions over the point's numeric parameters, expression.h), tolerance
 * (relative: equality, limit, log_slope), along (the axis of a trend or limit),
 * versus (steeper's other axis), rate (limit: the exponent b of c + a n^-b, fixed, or
 * [lo, hi] profiled; default [0.25, 2]), element (per-layer outputs: which layer,
 * negative from the end), statement (one line; default made from the rest), expect
 * (the verdict expected; default HOLDS) and, in a conjecture file given to judge,
 * experiment (which experiment of the result file it speaks about).
 *
 * Everything is checked against the experiment's grid before anything runs: the
 * expressions are evaluated at every point, and a NaN or infinity where the
 * conjecture speaks is refused naming the point. */
#ifndef ATTNRANK_CONJECTURE_H
#define ATTNRANK_CONJECTURE_H

#include <stdio.h>

#include "attnrank/spec.h"

typedef enum {
    AR_CONJ_ID,
    AR_CONJ_OUTPUT,
    AR_CONJ_RULE,
    AR_CONJ_PREDICTION,
    AR_CONJ_WHERE,
    AR_CONJ_TOLERANCE,
    AR_CONJ_ALONG,
    AR_CONJ_VERSUS,
    AR_CONJ_RATE,
    AR_CONJ_NEXT_ORDER,
    AR_CONJ_ELEMENT,
    AR_CONJ_STATEMENT,
    AR_CONJ_EXPECT,
    AR_CONJ_EXPERIMENT,
    AR_CONJ_FIELDS
} ar_conjecture_field;

/* A conjecture as written: each field's text (NULL if not given; numbers as their
 * text, a rate [lo, hi] as "lo, hi") and where it was written ("file:line",
 * "--conjecture 2"), for messages. */
typedef struct ar_conjecture_input {
    const char *value[AR_CONJ_FIELDS];
    char at[AR_CONJ_FIELDS][128];
    char where[128];               /* the conjecture as a whole */
    char number[AR_CONJ_FIELDS][80]; /* storage for values converted to text */
} ar_conjecture_input;

const char *ar_conjecture_field_name(ar_conjecture_field field);
/* The field of that name, or -1. */
int ar_conjecture_field_parse(const char *name);

/* Build the conjecture as a claim of experiment x (whose grid is complete, and whose
 * claims so far it must not repeat). Returns 0 with *claim (free with
 * ar_conjecture_free) and *expect, or -1 with one line in err: "AT: FIELD: what is
 * wrong, quoting the offending token". */
int ar_conjecture_build(const ar_conjecture_input *in, const ar_experiment *x, const ar_claim **claim,
                        ar_verdict *expect, char *err);
void ar_conjecture_free(const ar_claim *claim);

/* Parse judge's --conjecture 'id=rank_06; output=argmax_rank; rule=upper_bound;
 * prediction=0.6 * n + 2' (values may be quoted) into in, whose values point into
 * text (modified). label says where it came from. Returns 0, or -1 with err. */
int ar_conjecture_parse_line(char *text, const char *label, ar_conjecture_input *in, char *err);

/* The conjecture as one canonical spec group, `{ id = "..."; ... }`, re-read to the
 * same claim. */
void ar_conjecture_write(FILE *f, const ar_claim *claim);

#endif
