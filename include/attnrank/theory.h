/* theory: closed-form predictions and the rules that turn them into verdicts.
 *
 * A claim names the simulator and output it speaks about, a prediction as a function
 * of the grid point (NaN where the claim says nothing), and a rule:
 *   upper bound  E[X] <= f: HOLDS if the 95% interval's upper end is <= f at every
 *                point, VIOLATED if its lower end is > f at some point, else
 *                INCONCLUSIVE;
 *   equality     E[X] = f: VIOLATED if |mean - f| > z * se at some point, z the
 *                Bonferroni-corrected two-sided 95% normal quantile over the points;
 *                INCONCLUSIVE if z * se > rel_tol * |f| somewhere (too few trials to
 *                tell); else HOLDS. For integer outputs se is at least 1/trials (the
 *                rule of three: T identical draws do not prove a zero variance);
 *   reference    a curve drawn beside the data, no verdict. */
#ifndef ATTNRANK_THEORY_H
#define ATTNRANK_THEORY_H

#include "attnrank/sim.h"
#include "attnrank/stats.h"

typedef enum { AR_NOT_RUN, AR_HOLDS, AR_VIOLATED, AR_INCONCLUSIVE } ar_verdict;
typedef enum { AR_RULE_UPPER_BOUND, AR_RULE_EQUALS, AR_RULE_REFERENCE } ar_rule;

typedef struct ar_claim {
    const char *id;
    const char *simulator;
    const char *output;
    const char *statement;  /* what the claim says, in one line */
    const char *formula;    /* the prediction, as stored beside theory/<id> */
    ar_rule rule;
    double (*predict)(const ar_point *point);
    double rel_tol;         /* equality rule only */
    int on_request;         /* checked only when a spec lists it (assumption stress) */
} ar_claim;

typedef struct ar_judgement {
    ar_verdict verdict;
    long point;             /* index of the deciding point, -1 if none */
    int points;             /* points the claim was checked at */
    double prediction, estimate, ci_lo, ci_hi;
    long trials;
    char rule[200];
} ar_judgement;

const ar_claim *ar_claim_find(const char *id);
const ar_claim *const *ar_claims_all(int *count);

/* Judge a claim over n_points points: prediction[p] and est[p] (NaN/empty where the
 * claim is silent or nothing was computed). */
void ar_judge(const ar_claim *claim, long n_points, const double *prediction,
              const ar_summary *est, int integer_output, ar_judgement *out);

const char *ar_verdict_name(ar_verdict v);
int ar_verdict_parse(const char *name, ar_verdict *v);

#endif
