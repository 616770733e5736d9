/* theory/mutants: a claim re-judged against plausible wrong predictions, to show how
 * sharply its data can say VIOLATED (see theory.h). */
#include "attnrank/theory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Limits and equalities: the prediction off by 2, 5 and 10% either way. */
static const double BOTH_WAYS[] = {0.98, 1.02, 0.95, 1.05, 0.90, 1.10};
/* Bounds: tightened by 2, 3, 5 and 10% (an upper bound lowered, a lower one raised). */
static const double TIGHTER[] = {0.98, 0.97, 0.95, 0.90};

int ar_mutants(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
               int integer_output, const long *line, const double *along, ar_mutant *mutants, const char **why)
{
    const double *factors = NULL;
    int count = 0, raise = 0;
    *why = NULL;
    switch (claim->rule) {
    case AR_RULE_LIMIT:
    case AR_RULE_LOG_SLOPE:
    case AR_RULE_EQUALS: factors = BOTH_WAYS, count = 6; break;
    case AR_RULE_UPPER_BOUND:
    case AR_RULE_EVERY_TRIAL: factors = TIGHTER, count = 4; break;
    case AR_RULE_LOWER_BOUND: factors = TIGHTER, count = 4, raise = 1; break;
    case AR_RULE_INCREASING:
    case AR_RULE_DECREASING: {
        ar_claim reversed = *claim;
        reversed.rule = claim->rule == AR_RULE_INCREASING ? AR_RULE_DECREASING : AR_RULE_INCREASING;
        ar_judgement j;
        ar_judge(&reversed, n_points, prediction, est, integer_output, line, along, &j);
        mutants[0] = (ar_mutant){1, 1, j.verdict};
        return 1;
    }
    case AR_RULE_STEEPER: *why = "steeper: its mutant (the other axis steeper) needs both axes (judge.c)"; return 0;
    case AR_RULE_WITNESS: *why = "existence claim (witness): no prediction to perturb, cannot be VIOLATED"; return 0;
    case AR_RULE_MEASURE: *why = "measurement: no prediction"; return 0;
    case AR_RULE_REFERENCE: *why = "reference curve: no verdict"; return 0;
    }
    int nonzero = 0;
    for (long p = 0; p < n_points; ++p)
        nonzero |= prediction[p] != 0 && prediction[p] == prediction[p];
    if (!nonzero) {
        *why = "the prediction is 0 wherever the claim speaks: scaling cannot move it";
        return 0;
    }
    double *moved = malloc((size_t)(n_points > 0 ? n_points : 1) * sizeof *moved);
    for (int m = 0; m < count; ++m) {
        double factor = raise ? 2 - factors[m] : factors[m];
        /* By a fraction of |f|: a bound tightened stays tightened where f < 0. */
        for (long p = 0; p < n_points; ++p)
            moved[p] = prediction[p] > 0 ? prediction[p] * factor : prediction[p] + (factor - 1) * fabs(prediction[p]);
        ar_judgement j;
        ar_judge(claim, n_points, moved, est, integer_output, line, along, &j);
        mutants[m] = (ar_mutant){factor, 0, j.verdict};
    }
    free(moved);
    return count;
}
