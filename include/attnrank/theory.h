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
 *   limit        X -> f along an axis (n): per line along that axis, HOLDS if at the
 *                largest value the interval lies within tol * |f| of f and the
 *                distance to f has not grown significantly since the smallest value;
 *                VIOLATED if at the largest value the interval lies outside that
 *                band and the distance has grown significantly; else INCONCLUSIVE;
 *   decreasing / increasing  along an axis: per line, the interval at the largest
 *                value lies entirely below (above) the one at the smallest: HOLDS;
 *                entirely above (below): VIOLATED; overlapping: INCONCLUSIVE;
 *   lower bound  E[X] >= f: the mirror image of the upper bound;
 *   every trial  X <= f in every single trial (a deterministic bound): HOLDS if the
 *                largest value seen is <= f at every point, else VIOLATED;
 *   witness      some trial somewhere has X > f (an existence claim, or a counterexample
 *                to look for): HOLDS if one was found, else INCONCLUSIVE (absence of a
 *                witness at the sizes tried proves nothing);
 *   reference    a curve drawn beside the data, no verdict.
 * A claim over several lines HOLDS if every line holds and is VIOLATED if one is. */
#ifndef ATTNRANK_THEORY_H
#define ATTNRANK_THEORY_H

#include "attnrank/sim.h"
#include "attnrank/stats.h"

typedef enum { AR_NOT_RUN, AR_HOLDS, AR_VIOLATED, AR_INCONCLUSIVE } ar_verdict;
typedef enum {
    AR_RULE_UPPER_BOUND,
    AR_RULE_EQUALS,
    AR_RULE_LIMIT,
    AR_RULE_DECREASING,
    AR_RULE_INCREASING,
    AR_RULE_REFERENCE,
    AR_RULE_LOWER_BOUND,
    AR_RULE_EVERY_TRIAL,
    AR_RULE_WITNESS
} ar_rule;

typedef struct ar_claim {
    const char *id;
    const char *simulator;
    const char *output;
    const char *statement;  /* what the claim says, in one line */
    const char *formula;    /* the prediction, as stored beside theory/<id> */
    ar_rule rule;
    double (*predict)(const ar_point *point);
    double rel_tol;         /* equality and limit rules */
    int on_request;         /* checked only when a spec lists it (assumption stress) */
    const char *trend_axis; /* limit, decreasing, increasing: the parameter swept */
    int element;            /* vector outputs: which value; negative counts from the end */
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
 * claim is silent or nothing was computed). Trend rules also need, per point, the line
 * it lies on (points equal but for the trend axis share one) and its value along the
 * axis; NULL if the grid does not sweep that axis. */
void ar_judge(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
              int integer_output, const long *line, const double *along, ar_judgement *out);

/* Whether the mask of a mask_dynamics point has a directed spanning tree: 1 or 0, from
 * the mask's definition; -1 for random masks (drawn per trial). */
int ar_mask_connected(const ar_point *point);

const char *ar_verdict_name(ar_verdict v);
const char *ar_rule_name(ar_rule rule);
int ar_verdict_parse(const char *name, ar_verdict *v);

#endif
