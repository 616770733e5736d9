/* theory/mutants: a claim re-judged against plausible wrong predictions, to show how
 * sharply its data can say VIOLATED (see theory.h). */
#include "rules_parts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Limits and equalities: the prediction off by 2, 5 and 10% either way. */
static const double BOTH_WAYS[] = {0.98, 1.02, 0.95, 1.05, 0.90, 1.10};
/* Bounds: tightened by 2, 3, 5 and 10% (an upper bound lowered, a lower one raised). */
static const double TIGHTER[] = {0.98, 0.97, 0.95, 0.90};

int ar_mutants(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
               int integer_output, const long *line, const double *along, ar_rule_workspace *ws, ar_mutant *mutants,
               const char **why)
{
    const double *factors = NULL;
    int count = 0, raise = 0;
    *why = NULL;
    ar_judgement j;
    switch (ar_rules[claim->rule].mutation) {
    case AR_MUTATE_BOTH_WAYS: factors = BOTH_WAYS, count = 6; break;
    case AR_MUTATE_TIGHTER: factors = TIGHTER, count = 4; break;
    case AR_MUTATE_RAISED: factors = TIGHTER, count = 4, raise = 1; break;
    case AR_MUTATE_REVERSED: {
        ar_claim reversed = *claim;
        reversed.rule = ar_rules[claim->rule].opposite;
        if (ar_rule_judge(&reversed, n_points, prediction, est, integer_output, line, along, ws, &j) < 0)
            return -1;
        mutants[0] = (ar_mutant){1, 1, j.verdict};
        return 1;
    }
    case AR_MUTATE_NONE: *why = ar_rules[claim->rule].no_mutants; return 0;
    }
    int nonzero = 0;
    for (long p = 0; p < n_points; ++p)
        nonzero |= prediction[p] != 0 && prediction[p] == prediction[p];
    if (!nonzero) {
        *why = "the prediction is 0 wherever the claim speaks: scaling cannot move it";
        return 0;
    }
    if (!ws || ws->capacity < n_points)
        return -1;
    double *moved = ws->moved;
    for (int m = 0; m < count; ++m) {
        double factor = raise ? 2 - factors[m] : factors[m];
        /* By a fraction of |f|: a bound tightened stays tightened where f < 0. */
        for (long p = 0; p < n_points; ++p)
            moved[p] = prediction[p] > 0 ? prediction[p] * factor : prediction[p] + (factor - 1) * fabs(prediction[p]);
        if (ar_rule_judge(claim, n_points, moved, est, integer_output, line, along, ws, &j) < 0)
            return -1;
        mutants[m] = (ar_mutant){factor, 0, j.verdict};
    }
    return count;
}
