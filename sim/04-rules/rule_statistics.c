/* rule_statistics: the statistics every verdict rule decides with: which points count,
 * the standard error a decision uses, t quantiles, Holm's step-down, failed trials. */
#include "rules_parts.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ar_rule_usable(const double *f, const ar_summary *est, long p)
{
    return isfinite(f[p]) && est[p].count >= 2 && isfinite(est[p].mean);
}

/* The standard error a decision uses: for integer outputs at least 1/trials, since T
 * identical draws do not prove a zero variance; and at least what the stored interval
 * says (mean -/+ t se): a lattice output's interval carries the same floor in its own
 * units (ar_summarize_lattice), so the interval printed is the one decided on. */
double ar_rule_decision_se(const ar_summary *s, int integer_output)
{
    double se = isfinite(s->sem) ? s->sem : 0;
    if (integer_output && se < 1.0 / (double)s->count)
        se = 1.0 / (double)s->count;
    if (s->count >= 2 && isfinite(s->ci_hi - s->ci_lo)) {
        double from_interval = (s->ci_hi - s->ci_lo) / (2 * ar_t95(s->count - 1));
        if (from_interval > se)
            se = from_interval;
    }
    return se;
}

/* Decisions take the standard error's own uncertainty into account: Student's t with
 * the trials less one as degrees of freedom (a standard error from 2 trials is one
 * number drawn from a wide law; the normal quantile would make it exact). Where two
 * points meet, the fewer trials give the degrees of freedom (conservative beside
 * Welch's). */
double ar_rule_dof(long count)
{
    return count > 1 ? (double)(count - 1) : 1.0;
}

/* One-sided p-value of an excess over a standard error estimated from count trials. */
double ar_rule_excess_pvalue(double excess, double se, long count)
{
    if (!(se > 0))
        return excess > 0 ? 0.0 : 1.0;
    return gsl_cdf_tdist_Q(excess / se, ar_rule_dof(count));
}

/* The two-sided quantile for a family of m comparisons at level AR_RULE_ALPHA (Bonferroni). */
double ar_rule_t_quantile(long m, long count)
{
    /* asked once a point or a step with the same (m, count) as a rule: kept */
    static _Thread_local long last_m = -1, last_count = -1;
    static _Thread_local double last;
    if (m != last_m || count != last_count) {
        last = gsl_cdf_tdist_Pinv(1 - AR_RULE_ALPHA / (2.0 * (double)(m > 0 ? m : 1)), ar_rule_dof(count));
        last_m = m, last_count = count;
    }
    return last;
}

void ar_rule_take_point(ar_judgement *j, long p, double prediction, const ar_summary *s)
{
    j->point = p;
    j->prediction = prediction;
    j->estimate = s->mean;
    j->ci_lo = s->ci_lo;
    j->ci_hi = s->ci_hi;
    j->trials = s->count;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Holm's step-down over one-sided p-values: how many of the m hypotheses it rejects
 * at family-wise level alpha. */
long ar_rule_holm_rejections(double *pvalues, long m, double alpha)
{
    qsort(pvalues, (size_t)m, sizeof *pvalues, by_value);
    long r = 0;
    while (r < m && pvalues[r] <= alpha / (double)(m - r))
        r++;
    return r;
}

/* A deviation in standard errors, for a rule's text: an infinite one (the standard error
 * is 0) said in words. */
const char *ar_rule_in_se(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.2f se", v);
    else
        snprintf(buf, len, "%s (no spread: se = 0)", isnan(v) ? "undefined" : v > 0 ? "unbounded" : "-unbounded");
    return buf;
}

/* Failed trials are never averaged; they must not vanish from the verdict either. */
void ar_rule_account_failures(int per_trial, long n_points, const double *prediction, const ar_summary *est,
                             ar_judgement *out)
{
    for (long p = 0; p < n_points; ++p) {
        if (!isfinite(prediction[p]))
            continue;
        out->failed += est[p].failed;
        out->empty_points += est[p].count < 2;
    }
    size_t used = strlen(out->rule);
    if (per_trial && out->failed > 0 && out->verdict == AR_HOLDS) {
        out->verdict = AR_INCONCLUSIVE; /* a failed trial may be the one above the bound */
        snprintf(out->rule + used, sizeof out->rule - used, "; %ld failed trial(s) unseen", out->failed);
    } else if (out->empty_points > 0 && out->verdict == AR_HOLDS) {
        out->verdict = AR_INCONCLUSIVE; /* "at every point" needs data at every point */
        snprintf(out->rule + used, sizeof out->rule - used, "; %ld point(s) without data", out->empty_points);
    }
}
