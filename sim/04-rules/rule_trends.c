/* rule_trends: monotone trends (the ends separate, no step back, a stated power-law
 * rate), and one axis steeper than another. */
#include "rules_parts.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exponent b of E[X] ~ c along^b on a line: weighted least squares of log(mean) on
 * log(along), weights (mean/se)^2, the slope's standard error widened by the reduced
 * chi-square when the points scatter more than their errors allow; *chi2 (if not NULL)
 * gets the fit's chi-square, on the returned count minus 2 degrees of freedom. */
static int fit_exponent(const ar_summary *est, const double *along, const long *members, int k, ar_rule_workspace *w,
                        double *b, double *se, double *chi2_out)
{
    double *xs = w->fit_x, *ys = w->fit_y, *ws = w->fit_w;
    if (k > w->line_capacity) /* cannot come from a grid the workspace was made for */
        return 0;
    int m = 0;
    for (int i = 0; i < k; ++i) {
        const ar_summary *s = &est[members[i]];
        if (!(s->mean > 0) || !(along[members[i]] > 0) || !(s->sem > 0))
            continue;
        xs[m] = log(along[members[i]]), ys[m] = log(s->mean), ws[m] = (s->mean / s->sem) * (s->mean / s->sem);
        m++;
    }
    if (m < 2)
        return m;
    double c0, cov00, cov01, cov11, chi2;
    gsl_fit_wlinear(xs, 1, ws, 1, ys, 1, (size_t)m, &c0, b, &cov00, &cov01, &cov11, &chi2);
    double inflation = m > 2 && chi2 / (m - 2) > 1 ? chi2 / (m - 2) : 1;
    *se = sqrt(cov11 * inflation);
    if (chi2_out)
        *chi2_out = chi2;
    return m;
}

static long fewer_trials(const ar_summary *a, const ar_summary *b)
{
    return a->count < b->count ? a->count : b->count;
}

/* Monotone along the line: the most significant step the wrong way between neighbours,
 * in units of its threshold (the t quantile, Bonferroni over `steps`; > 1 rejects; sign
 * as in judge_trend); -inf for none. */
static double worst_reversal(int sign, const ar_summary *est, const long *members, int k, int integer_output,
                             long steps, long *at)
{
    double worst = -INFINITY;
    for (int i = 0; i + 1 < k; ++i) {
        const ar_summary *a = &est[members[i]], *b = &est[members[i + 1]];
        double se = hypot(ar_rule_decision_se(a, integer_output), ar_rule_decision_se(b, integer_output));
        double step = sign * (b->mean - a->mean), z = se > 0 ? step / se : step > 0 ? INFINITY : -INFINITY;
        z /= ar_rule_t_quantile(steps, fewer_trials(a, b));
        if (z > worst)
            worst = z, *at = members[i + 1];
    }
    return worst;
}

static void judge_trend(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                        const long *line, const double *along, ar_rule_workspace *ws, ar_judgement *j)
{
    static const int severity[] = {[AR_NOT_RUN] = 0, [AR_HOLDS] = 1, [AR_INCONCLUSIVE] = 2, [AR_VIOLATED] = 3};
    int sign = claim->rule == AR_RULE_DECREASING ? 1 : -1; /* want sign * (lo - hi) > 0 */
    ar_line_groups groups;
    ar_lines_group(n, f, est, line, along, 2, ws, &groups);
    int lines = groups.count, reversed = 0, rate_refused = 0;
    /* a stated power-law rate, sign * exponent = -rate: two-sided, Bonferroni over lines, at
     * half the level (as the limit's rate test (rule_limits.c), beside the ends' and steps' tests) */
    double alpha_rate = AR_RULE_ALPHA / (4.0 * (lines > 0 ? lines : 1));
    /* a step between neighbours the wrong way: one-sided, Bonferroni over every step */
    long steps = groups.start[lines] - lines;
    ar_verdict worst = AR_NOT_RUN;
    double worst_badness = -INFINITY;
    long worst_lo = -1;
    for (int g = 0; g < groups.count; ++g) {
        const long *members = groups.members + groups.start[g];
        int k = (int)(groups.start[g + 1] - groups.start[g]);
        long lo = members[0], hi = members[k - 1];
        j->points += 2;
        const ar_summary *a = &est[lo], *b = &est[hi];
        double gap = sign > 0 ? a->ci_lo - b->ci_hi : b->ci_lo - a->ci_hi;
        /* the ends the other way, for VIOLATED: Bonferroni over lines */
        double z = ar_rule_t_quantile(lines, fewer_trials(a, b));
        double reverse = sign * (b->mean - a->mean) - z * (ar_rule_decision_se(a, integer_output) + ar_rule_decision_se(b, integer_output));
        long step_at = -1;
        int step_back = k > 2 && worst_reversal(sign, est, members, k, integer_output, steps, &step_at) > 1;
        reversed += step_back;
        ar_verdict v = reverse > 0 || step_back ? AR_VIOLATED : gap > 0 ? AR_HOLDS : AR_INCONCLUSIVE;
        /* A claim that states its rate (H2gap: the deficit falls like 1/d_h) is refuted
         * when the fitted exponent lies beyond AR_RULE_RATE_TOL of it, as a limit's rate is, and
         * only where a power law describes the line (its chi-square probable: a curved,
         * pre-asymptotic line has no one exponent, and its early slope is not the rate).
         * With the scatter estimated from the fit, the quantile is Student's t on its
         * degrees of freedom. */
        double rate_b = NAN, rate_se = NAN, rate_chi2 = NAN;
        int fitted = v != AR_VIOLATED && ar_rule_states_rate(claim) ? fit_exponent(est, along, members, k, ws, &rate_b, &rate_se,
                                                                             &rate_chi2) : 0;
        if (fitted >= 3 && gsl_cdf_chisq_Q(rate_chi2, fitted - 2) >= AR_RULE_GOODNESS) {
            double z = rate_chi2 / (fitted - 2) > 1 ? gsl_cdf_tdist_Pinv(1 - alpha_rate, fitted - 2)
                                                    : ar_normal_quantile(1 - alpha_rate);
            double stated = -sign * claim->rate_lo, lo_b = rate_b - z * rate_se, hi_b = rate_b + z * rate_se;
            double band_lo = stated - AR_RULE_RATE_TOL * claim->rate_lo, band_hi = stated + AR_RULE_RATE_TOL * claim->rate_lo;
            if (hi_b < band_lo || lo_b > band_hi)
                v = AR_VIOLATED, rate_refused++;
        }
        if (severity[v] > severity[worst] || (v == worst && -gap > worst_badness)) {
            worst = v, worst_badness = -gap, worst_lo = lo;
            ar_rule_take_point(j, step_back && !(reverse > 0) ? step_at : hi, f[hi], &est[step_back && !(reverse > 0) ? step_at : hi]);
            double bexp = NAN, se = NAN;
            if (fit_exponent(est, along, members, k, ws, &bexp, &se, NULL) >= 2)
                j->resolution = (ar_resolution){AR_RESOLUTION_EXPONENT, bexp, bexp - 1.96 * se, bexp + 1.96 * se, 0};
            else /* two points along a choice (gap: keep, remove): how much it changes */
                j->resolution = (ar_resolution){AR_RESOLUTION_CHANGE, b->mean / a->mean, a->mean, b->mean, 0};
        }
    }
    if (!lines)
        return;
    j->verdict = worst;
    char rate[96] = "";
    if (ar_rule_states_rate(claim))
        snprintf(rate, sizeof rate, "; exponent %+g (to 25%%) refused on %d", -sign * claim->rate_lo, rate_refused);
    snprintf(j->rule, sizeof j->rule,
             "%s along %s, %d line(s): 95%% CIs at the ends separate; VIOLATED if they do the other way or a step "
             "does (Bonferroni: lines, %ld steps; t quantiles: %d line(s) reverse)%s (smallest %s=%g: %.4g)",
             sign > 0 ? "decreasing" : "increasing", claim->trend_axis, lines, steps, reversed, rate, claim->trend_axis,
             along[worst_lo], est[worst_lo].mean);
}

int ar_rule_judge_steeper(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                          const long *plane, const double *along, const double *versus, int reversed,
                          ar_rule_workspace *ws, ar_judgement *j)
{
    memset(j, 0, sizeof *j);
    j->verdict = AR_NOT_RUN;
    j->point = -1;
    j->prediction = j->estimate = j->ci_lo = j->ci_hi = NAN;
    j->resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0, 0};
    if (reversed) {
        const double *swap = along;
        along = versus, versus = swap;
    }
    const char *axis = reversed ? claim->versus_axis : claim->trend_axis;
    const char *other = reversed ? claim->trend_axis : claim->versus_axis;
    snprintf(j->rule, sizeof j->rule, "steeper: no plane of %s and %s with both swept", axis, other);
    if (!ws || ws->capacity < n) {
        snprintf(j->rule, sizeof j->rule, "steeper: the rules' workspace holds fewer than its %ld points", n);
        return -1;
    }
    ar_line_groups groups; /* the planes, each its usable points */
    ar_lines_group(n, f, est, plane, along, 1, ws, &groups);
    int planes = groups.count;
    double worst = INFINITY;
    int judged = 0;
    for (int g = 0; g < groups.count; ++g) {
        const long *members = groups.members + groups.start[g];
        long size = groups.start[g + 1] - groups.start[g];
        /* the plane's corners: (t_min, v_min), (t_max, v_min), (t_min, v_max) */
        double t0 = INFINITY, t1 = -INFINITY, v0 = INFINITY, v1 = -INFINITY;
        for (long i = 0; i < size; ++i) {
            long p = members[i];
            t0 = fmin(t0, along[p]), t1 = fmax(t1, along[p]);
            v0 = fmin(v0, versus[p]), v1 = fmax(v1, versus[p]);
        }
        long corner = -1, t_end = -1, v_end = -1;
        for (long i = 0; i < size; ++i) {
            long p = members[i];
            corner = along[p] == t0 && versus[p] == v0 ? p : corner;
            t_end = along[p] == t1 && versus[p] == v0 ? p : t_end;
            v_end = along[p] == t0 && versus[p] == v1 ? p : v_end;
        }
        if (corner < 0 || t_end < 0 || v_end < 0 || t0 == t1 || v0 == v1)
            continue;
        judged++;
        j->points += 3;
        double d = est[t_end].mean - est[v_end].mean;
        double se = hypot(ar_rule_decision_se(&est[t_end], integer_output), ar_rule_decision_se(&est[v_end], integer_output));
        double margin = se > 0 ? d / se : d > 0 ? INFINITY : -INFINITY;
        long fewer = fewer_trials(&est[t_end], &est[v_end]);
        double z = ar_rule_t_quantile(planes, fewer), z_holds = ar_rule_t_quantile(1, fewer);
        ar_verdict v = margin > z_holds ? AR_HOLDS : margin < -z ? AR_VIOLATED : AR_INCONCLUSIVE;
        if (margin < worst) {
            worst = margin;
            j->verdict = v;
            ar_rule_take_point(j, t_end, f[t_end], &est[t_end]);
            j->trials = est[t_end].count + est[v_end].count + est[corner].count;
            double rise_t = est[t_end].mean - est[corner].mean, rise_v = est[v_end].mean - est[corner].mean;
            j->resolution = (ar_resolution){AR_RESOLUTION_RATIO, rise_t / rise_v, rise_t, rise_v, 0, 0};
        }
    }
    if (!judged) {
        ar_rule_account_failures(0, n, f, est, j);
        return 0;
    }
    if (j->verdict == AR_HOLDS && judged < planes)
        j->verdict = AR_INCONCLUSIVE; /* a plane without its three corners */
    snprintf(j->rule, sizeof j->rule,
             "steeper: from the corner of each of %d plane(s), the change to the largest %s exceeds the change to "
             "the largest %s (95%%; VIOLATED below 0 with Bonferroni); worst margin %s", judged, axis, other,
             ar_rule_in_se(worst, (char[32]){0}, 32));
    ar_rule_account_failures(0, n, f, est, j);
    return 0;
}

/* ---- the rows (rule_table.c) ------------------------------------------------------- */

AR_RULE_JUDGE(ar_rule_decreasing_judge)
{
    judge_trend(claim, d->n, d->prediction, d->est, d->integer_output, d->line, d->along, ws, out);
}

AR_RULE_STATE(ar_rule_decreasing_state)
{
    (void)f;
    snprintf(buf, len, "E[%s] falls as %s grows", output, claim->trend_axis);
}

AR_RULE_JUDGE(ar_rule_increasing_judge)
{
    judge_trend(claim, d->n, d->prediction, d->est, d->integer_output, d->line, d->along, ws, out);
}

AR_RULE_STATE(ar_rule_increasing_state)
{
    (void)f;
    snprintf(buf, len, "E[%s] rises as %s grows", output, claim->trend_axis);
}

/* Its planes are not lines: the judge (judge.c) calls ar_rule_judge_steeper, as the rows'
 * needs_versus says. */
AR_RULE_JUDGE(ar_rule_steeper_judge)
{
    (void)claim, (void)d, (void)ws;
    snprintf(out->rule, sizeof out->rule, "a steeper claim is judged on two axes (ar_rule_judge_steeper)");
}

AR_RULE_STATE(ar_rule_steeper_state)
{
    (void)f;
    snprintf(buf, len, "E[%s] changes more along %s than along %s", output, claim->trend_axis, claim->versus_axis);
}
