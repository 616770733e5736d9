/* judge: the verdicts of a result file, from its datasets and the theory, and the
 * mutants that show how sharply each verdict could have failed. Reads only the file:
 * a finished run can be judged again without simulating. */
#ifndef ATTNRANK_JUDGE_H
#define ATTNRANK_JUDGE_H

#include "attnrank/store.h"
#include "attnrank/theory.h"

/* Judge every (experiment, claim) of spec (rows: ar_store_verdict_count), on the
 * store's estimates: the store's own spec, or that spec with conjectures added
 * (ar_spec_add_conjectures), whose grids are the same. Predictions come from the
 * current theory, not the file.
 * A bound that holds is marked note when another bound of the same experiment and
 * output holds with a prediction at least as tight at every point where it speaks. */
int ar_judge_verdicts(ar_store *store, const ar_spec *spec, ar_verdict_row *rows, char *err);

typedef struct ar_mutant_row {
    char claim[16];
    char experiment[64];
    ar_verdict verdict;                  /* of the claim as stated */
    int loose;                           /* a bound the data stay far from */
    int count;                           /* mutants made; 0: see why */
    ar_mutant mutants[AR_MAX_MUTANTS];
    const char *why;
} ar_mutant_row;

/* Every claim re-judged against its mutants (rows: ar_store_verdict_count). */
int ar_judge_mutants(ar_store *store, const ar_spec *spec, ar_mutant_row *rows, char *err);

/* Per row of the store's own spec (ar_store_verdict_count): at how many points the
 * stored theory/<claim> differs from this attnrank's prediction (the theory changed
 * since the run; judging uses the current one). */
int ar_judge_theory_changes(ar_store *store, long *changed, char *err);

/* The stored /verdicts table and theory/ datasets against the store's data judged
 * again by this attnrank, once every point is in: -1 (err: "damaged: ...", the first
 * differing row, its field and both values) where they differ and the file was written
 * by this very revision, since the same code judges the same numbers the same way;
 * where another revision wrote them, note says what differs (its rules may have
 * changed) and 0 is returned. */
int ar_judge_check_verdicts(ar_store *store, char *note, size_t note_len, char *err);

#endif
