/* rule_equality: equality at every point, and measurements (no verdict). */
#include "rules_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void judge_equals(long n, const double *f, const ar_summary *est, double rel_tol, int integer_output,
                         ar_judgement *j)
{
    for (long p = 0; p < n; ++p)
        j->points += ar_rule_usable(f, est, p);
    if (!j->points)
        return;
    long worst = -1, loose = -1;
    double worst_dev = -1, worst_ratio = -1, z_worst = NAN, k_lo = -INFINITY, k_hi = INFINITY;
    for (long p = 0; p < n; ++p) {
        if (!ar_rule_usable(f, est, p))
            continue;
        double se = ar_rule_decision_se(&est[p], integer_output), z = ar_rule_t_quantile(j->points, est[p].count);
        double dev = se > 0 ? fabs(est[p].mean - f[p]) / se : (est[p].mean == f[p] ? 0 : INFINITY);
        if (dev / z > worst_ratio)
            worst_ratio = dev / z, worst_dev = dev, worst = p, z_worst = z;
        if (z * se > rel_tol * fabs(f[p]) && loose < 0)
            loose = p;
        if (f[p] != 0) { /* factors k with |mean - k f| <= z se */
            double a = (est[p].mean - z * se) / f[p], b = (est[p].mean + z * se) / f[p];
            k_lo = fmax(k_lo, fmin(a, b));
            k_hi = fmin(k_hi, fmax(a, b));
        }
    }
    if (worst_ratio > 1)
        j->verdict = AR_VIOLATED;
    else if (loose >= 0)
        j->verdict = AR_INCONCLUSIVE, worst = loose;
    else
        j->verdict = AR_HOLDS;
    ar_rule_take_point(j, worst, f[worst], &est[worst]);
    /* factors k f scale a prediction that is not 0 somewhere; 0 alone resolves none */
    if (isinf(k_lo) && isinf(k_hi) && k_lo < k_hi)
        j->resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0};
    else
        j->resolution = (ar_resolution){AR_RESOLUTION_FACTORS, NAN, k_lo, k_hi, 0};
    snprintf(j->rule, sizeof j->rule,
             "equality: |mean - prediction| <= t se at all %d points (Bonferroni 95%%, t = %.2f there), "
             "interval within %g of the prediction; worst |dev| = %s",
             j->points, z_worst, rel_tol, ar_rule_in_se(worst_dev, (char[32]){0}, 32));
}

/* A measurement: what the data establish at every point, no verdict. */
static void judge_measure(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    double lo = INFINITY, hi = -INFINITY;
    long at = -1;
    for (long p = 0; p < n; ++p) {
        if (!ar_rule_usable(f, est, p))
            continue;
        j->points++;
        if (est[p].ci_lo < lo)
            lo = est[p].ci_lo, at = p;
        hi = fmax(hi, est[p].ci_hi);
    }
    if (at < 0)
        return;
    j->verdict = AR_MEASURED;
    ar_rule_take_point(j, at, f[at], &est[at]);
    j->resolution = (ar_resolution){AR_RESOLUTION_MEASURED, NAN, lo, hi, 0};
    snprintf(j->rule, sizeof j->rule,
             "measurement, no verdict: the smallest 95%% CI lower end over %d points (shown) and the largest "
             "upper end bound what the data establish",
             j->points);
}

/* ---- the rows (rule_table.c) ------------------------------------------------------- */

AR_RULE_JUDGE(ar_rule_equals_judge)
{
    (void)ws;
    judge_equals(d->n, d->prediction, d->est, claim->rel_tol, d->integer_output, out);
}

AR_RULE_STATE(ar_rule_equals_state)
{
    snprintf(buf, len, "E[%s] = %s (within %g)", output, f, claim->rel_tol);
}

AR_RULE_OBJECTIVE(ar_rule_distance_objective)
{
    (void)max;
    return fabs(mean - prediction) / ar_rule_objective_scale(prediction);
}

AR_RULE_JUDGE(ar_rule_measure_judge)
{
    (void)claim, (void)ws;
    judge_measure(d->n, d->prediction, d->est, out);
}

AR_RULE_STATE(ar_rule_measure_state)
{
    (void)claim, (void)f;
    snprintf(buf, len, "E[%s], measured", output);
}
