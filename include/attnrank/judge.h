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

/* What differs in a stored row (ar_judge_check_verdicts' marks). */
enum { AR_STORED_VERDICT_DIFFERS = 1, AR_STORED_THEORY_DIFFERS = 2 };

/* The stored /verdicts table and theory/ datasets against the store's data judged
 * again by this attnrank, once every point is in. Whatever revision the file names,
 * what attnrank shows is what it re-derives: fresh[r] (when not NULL) is row r judged
 * again, marks[r] (when not NULL) what of the stored row r differs. Returns 0 when
 * every stored row agrees (or not every point is in: fresh is then untouched), the
 * number of rows that differ with err "FILE: damaged: ..." (the first one, its field
 * and both values), or -1 with err where the file cannot be judged. */
int ar_judge_check_verdicts(ar_store *store, ar_verdict_row *fresh, unsigned char *marks, char *err);

#endif
