/* rule_bounds: upper and lower bounds on the mean, every trial below a bound, a witness. */
#include "rules_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Upper bound (sign +1) or lower bound (sign -1). */
static void judge_bound(int sign, long n, const double *f, const ar_summary *est, int integer_output,
                        ar_rule_workspace *ws, ar_judgement *j)
{
    double *pvalues = ws->pvalues;
    long worst_near = -1, most_significant = -1;
    double excess_near = -INFINITY, smallest_p = INFINITY;
    double tightness = sign > 0 ? -INFINITY : INFINITY, floor_lo = INFINITY;
    int scaled = 1; /* every prediction positive: the resolution is a factor */
    for (long p = 0; p < n; ++p) {
        if (!ar_rule_usable(f, est, p))
            continue;
        /* near end: the interval's end toward the bound; for integer outputs at least
         * 1.96 / trials from the mean (the rule of three's floor, as for VIOLATED) */
        double floor = 1.96 * ar_rule_decision_se(&est[p], integer_output);
        double hi = fmax(est[p].ci_hi, est[p].mean + floor), lo = fmin(est[p].ci_lo, est[p].mean - floor);
        /* ...but a point none of whose trials passes the bound is no evidence of an excess:
         * an upper bound every trial attains exactly (rank = n) holds, tight, where the
         * floor alone left it INCONCLUSIVE. A bound some trial passes is judged as before. */
        int ranged = est[p].min <= est[p].mean && est[p].mean <= est[p].max; /* min, max recorded */
        if (ranged && sign > 0 && est[p].max <= f[p])
            hi = fmin(hi, f[p]);
        if (ranged && sign < 0 && est[p].min >= f[p])
            lo = fmax(lo, f[p]);
        double near = sign > 0 ? hi - f[p] : f[p] - lo;
        if (near > excess_near)
            excess_near = near, worst_near = p;
        double se = ar_rule_decision_se(&est[p], integer_output), excess = sign * (est[p].mean - f[p]);
        double pvalue = ar_rule_excess_pvalue(excess, se, est[p].count);
        if (pvalue < smallest_p)
            smallest_p = pvalue, most_significant = p;
        pvalues[j->points++] = pvalue;
        if (f[p] > 0) {
            double k = (sign > 0 ? hi : lo) / f[p];
            tightness = sign > 0 ? fmax(tightness, k) : fmin(tightness, k);
        } else {
            scaled = 0;
        }
        floor_lo = fmin(floor_lo, est[p].ci_lo);
    }
    if (!j->points)
        return;
    long rejected = ar_rule_holm_rejections(pvalues, j->points, AR_RULE_ALPHA / 2);
    if (rejected > 0) {
        j->verdict = AR_VIOLATED;
        ar_rule_take_point(j, most_significant, f[most_significant], &est[most_significant]);
    } else {
        j->verdict = excess_near <= 0 ? AR_HOLDS : AR_INCONCLUSIVE;
        ar_rule_take_point(j, worst_near, f[worst_near], &est[worst_near]);
    }
    if (scaled) {
        j->resolution = (ar_resolution){sign > 0 ? AR_RESOLUTION_TIGHTNESS : AR_RESOLUTION_ESTABLISHED, tightness,
                                        NAN, NAN, 0};
        j->resolution.loose = j->verdict == AR_HOLDS && (sign > 0 ? tightness < AR_RULE_LOOSE_BELOW : tightness > 2 - AR_RULE_LOOSE_BELOW);
    } else {
        j->resolution = (ar_resolution){AR_RESOLUTION_MEASURED, NAN, floor_lo, NAN, 0};
    }
    snprintf(j->rule, sizeof j->rule,
             "%s bound: 95%% CI %s end %s prediction at all %d points; VIOLATED where Holm-Bonferroni rejects "
             "(%ld of %d points); shown: %s",
             sign > 0 ? "upper" : "lower", sign > 0 ? "upper" : "lower", sign > 0 ? "<=" : ">=", j->points, rejected,
             j->points, rejected ? "the most significant excess" : "the point closest to the bound");
}

/* The point whose largest trial value exceeds f the most (or falls shortest of it),
 * shown with that value and the [min, max] range of its trials; *trials counts the
 * values behind the judgement, *tightness is the largest max / f (positive f). Returns
 * the excess max - f there (-inf: no point). */
static double largest_excess(long n, const double *f, const ar_summary *est, ar_judgement *j, long *trials,
                             double *tightness)
{
    long at = -1;
    double excess = -INFINITY;
    *trials = 0;
    *tightness = -INFINITY;
    for (long p = 0; p < n; ++p) {
        if (!isfinite(f[p]) || est[p].count < 1)
            continue;
        j->points++;
        *trials += est[p].count;
        if (est[p].max - f[p] > excess)
            excess = est[p].max - f[p], at = p;
        if (f[p] > 0)
            *tightness = fmax(*tightness, est[p].max / f[p]);
    }
    if (at >= 0) {
        ar_rule_take_point(j, at, f[at], &est[at]);
        j->estimate = est[at].max; /* the largest value is what these rules read */
        j->ci_lo = est[at].min;
        j->ci_hi = est[at].max;
    }
    return excess;
}

/* A witness: some trial with X > f at some point. */
static void judge_witness(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    long trials;
    double tightness, excess = largest_excess(n, f, est, j, &trials, &tightness);
    if (!j->points)
        return;
    j->verdict = excess > 0 ? AR_HOLDS : AR_INCONCLUSIVE;
    j->resolution = (ar_resolution){AR_RESOLUTION_EXISTENCE, tightness, NAN, NAN, 0};
    snprintf(j->rule, sizeof j->rule,
             excess > 0 ? "witness: found, the largest of %ld values over %d points exceeds the threshold "
                          "(shown: that point's max, interval = [min, max] of its trials); cannot be VIOLATED"
                        : "witness: none among %ld values over %d points (absence proves nothing; shown: the "
                          "largest value); cannot be VIOLATED",
             trials, j->points);
}

/* Every trial below f: the largest value seen, point by point. */
static void judge_every_trial(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    long trials;
    double tightness, slack = -largest_excess(n, f, est, j, &trials, &tightness);
    if (!j->points)
        return;
    j->verdict = slack >= 0 ? AR_HOLDS : AR_VIOLATED;
    j->resolution = (ar_resolution){AR_RESOLUTION_TIGHTNESS, tightness, NAN, NAN,
                                    slack >= 0 && tightness < AR_RULE_LOOSE_BELOW};
    snprintf(j->rule, sizeof j->rule,
             "every trial: the largest of %ld values over %d points <= prediction; slack %.3g at the "
             "tightest point (shown: its max, interval = [min, max] of its trials)",
             trials, j->points, slack);
}

/* ---- the rows (rule_table.c) ------------------------------------------------------- */

AR_RULE_JUDGE(ar_rule_upper_judge)
{
    (void)claim;
    judge_bound(1, d->n, d->prediction, d->est, d->integer_output, ws, out);
}

AR_RULE_STATE(ar_rule_upper_state)
{
    (void)claim;
    snprintf(buf, len, "E[%s] <= %s", output, f);
}

AR_RULE_OBJECTIVE(ar_rule_upper_objective)
{
    (void)max;
    return (mean - prediction) / ar_rule_objective_scale(prediction);
}

AR_RULE_JUDGE(ar_rule_lower_judge)
{
    (void)claim;
    judge_bound(-1, d->n, d->prediction, d->est, d->integer_output, ws, out);
}

AR_RULE_STATE(ar_rule_lower_state)
{
    (void)claim;
    snprintf(buf, len, "E[%s] >= %s", output, f);
}

AR_RULE_OBJECTIVE(ar_rule_lower_objective)
{
    (void)max;
    return (prediction - mean) / ar_rule_objective_scale(prediction);
}

AR_RULE_JUDGE(ar_rule_every_trial_judge)
{
    (void)claim, (void)ws;
    judge_every_trial(d->n, d->prediction, d->est, out);
}

AR_RULE_STATE(ar_rule_every_trial_state)
{
    (void)claim;
    snprintf(buf, len, "%s <= %s in every trial", output, f);
}

AR_RULE_OBJECTIVE(ar_rule_every_trial_objective)
{
    (void)mean;
    return (max - prediction) / ar_rule_objective_scale(prediction);
}

AR_RULE_JUDGE(ar_rule_witness_judge)
{
    (void)claim, (void)ws;
    judge_witness(d->n, d->prediction, d->est, out);
}

AR_RULE_STATE(ar_rule_witness_state)
{
    (void)claim;
    snprintf(buf, len, "some trial has %s > %s", output, f);
}
