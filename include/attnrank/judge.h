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

/* What differs in a stored row (ar_judge_check_verdicts' marks): its /verdicts row, its
 * theory/<claim>'s values, its theory/<claim>'s attributes (description, formula, kind,
 * output). */
enum { AR_STORED_VERDICT_DIFFERS = 1, AR_STORED_THEORY_DIFFERS = 2, AR_STORED_THEORY_TEXT_DIFFERS = 4 };

/* The stored /verdicts table and theory/ datasets against the store's data judged
 * again by this attnrank. Whatever revision the file names, what attnrank shows is what
 * it re-derives: fresh[r] (when not NULL) is row r judged again, marks[r] (when not
 * NULL) what of the stored row r differs, unlisted[e] (when not NULL, one per
 * experiment) what differs of the theory/ datasets of claims the spec does not list
 * (run writes one for every claim of the simulator). The theory datasets' attributes
 * are checked always; their values wherever the file holds them (every point of any
 * file but a shard, whose theory/ datasets are holes until the merge); the verdicts once
 * every point is in (before, fresh is untouched: its rows stay NOT RUN). Returns 0 when everything agrees, the
 * number of rows (and experiments in unlisted) that differ with err "FILE: damaged: ..."
 * (the first, its field and both values), or -1 with err where the file cannot be
 * judged. */
int ar_judge_check_verdicts(ar_store *store, ar_verdict_row *fresh, unsigned char *marks, unsigned char *unlisted,
                            char *err);
/* The theory/ datasets (every dataset's, listed claim or not: their attributes, and
 * their values unless the file is a shard), for a partial file --resume will finish and
 * so carry them into the finished file: 0, the number that differ with err
 * "FILE: damaged: ...", or -1 with err. */
int ar_judge_check_theory(ar_store *store, char *err);

#endif
