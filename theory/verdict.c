/* theory/verdict: the claim registry and the verdict rules (see theory.h). */
#include "attnrank/theory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const ar_claim ar_claim_h1, ar_claim_h2, ar_claim_h2_hull, ar_claim_h3, ar_claim_h4,
    ar_claim_h5a, ar_claim_h5b;
extern const ar_claim ar_claim_m1, ar_claim_m2, ar_claim_m2bound, ar_claim_m3, ar_claim_m4, ar_claim_m4rank,
    ar_claim_m4escape;
extern const ar_claim ar_claim_c1, ar_claim_c1opt, ar_claim_c1lower, ar_claim_c2, ar_claim_c2beta, ar_claim_c3;
extern const ar_claim ar_claim_s1, ar_claim_s2, ar_claim_s2ks, ar_claim_s3, ar_claim_s3ks, ar_claim_s4,
    ar_claim_s4perp, ar_claim_s5, ar_claim_s5perp, ar_claim_s6, ar_claim_s6perp, ar_claim_s7,
    ar_claim_s7perp, ar_claim_s8;

static const ar_claim *const all_claims[] = {
    &ar_claim_h1, &ar_claim_h2, &ar_claim_h2_hull, &ar_claim_h3, &ar_claim_h4, &ar_claim_h5a, &ar_claim_h5b,
    &ar_claim_s1, &ar_claim_s2, &ar_claim_s2ks, &ar_claim_s3, &ar_claim_s3ks, &ar_claim_s4, &ar_claim_s4perp,
    &ar_claim_s5, &ar_claim_s5perp, &ar_claim_s6, &ar_claim_s6perp, &ar_claim_s7,
    &ar_claim_s7perp, &ar_claim_s8, &ar_claim_m1, &ar_claim_m2, &ar_claim_m2bound, &ar_claim_m3,
    &ar_claim_m4, &ar_claim_m4rank, &ar_claim_m4escape, &ar_claim_c1, &ar_claim_c1opt, &ar_claim_c1lower,
    &ar_claim_c2, &ar_claim_c2beta, &ar_claim_c3,
};

const ar_claim *const *ar_claims_all(int *count)
{
    *count = (int)(sizeof all_claims / sizeof all_claims[0]);
    return all_claims;
}

const ar_claim *ar_claim_find(const char *id)
{
    int count;
    const ar_claim *const *claims = ar_claims_all(&count);
    for (int i = 0; i < count; ++i)
        if (strcmp(claims[i]->id, id) == 0)
            return claims[i];
    return NULL;
}

static const char *const verdict_names[] = {"NOT RUN", "HOLDS", "VIOLATED", "INCONCLUSIVE"};

const char *ar_verdict_name(ar_verdict v)
{
    return verdict_names[v];
}

const char *ar_rule_name(ar_rule rule)
{
    static const char *const names[] = {"bound",     "equality",    "limit",      "decreasing",
                                        "increasing", "reference", "lower bound", "every trial", "witness"};
    return names[rule];
}

int ar_verdict_parse(const char *name, ar_verdict *v)
{
    for (int i = AR_HOLDS; i <= AR_INCONCLUSIVE; ++i) {
        if (strcmp(name, verdict_names[i]) == 0) {
            *v = (ar_verdict)i;
            return 0;
        }
    }
    return -1;
}

static void take_point(ar_judgement *j, long p, double prediction, const ar_summary *s)
{
    j->point = p;
    j->prediction = prediction;
    j->estimate = s->mean;
    j->ci_lo = s->ci_lo;
    j->ci_hi = s->ci_hi;
    j->trials = s->count;
}

/* Upper bound (sign +1) or lower bound (sign -1): signed excess of the interval's
 * ends over the prediction. */
static void judge_bound(int sign, long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    long worst_far = -1, worst_near = -1;
    double excess_far = -INFINITY, excess_near = -INFINITY;
    for (long p = 0; p < n; ++p) {
        if (!isfinite(f[p]) || est[p].count < 2)
            continue;
        j->points++;
        /* far end: the interval's end away from the bound; near end: the one toward it */
        double far = sign > 0 ? est[p].ci_lo - f[p] : f[p] - est[p].ci_hi;
        double near = sign > 0 ? est[p].ci_hi - f[p] : f[p] - est[p].ci_lo;
        if (far > excess_far)
            excess_far = far, worst_far = p;
        if (near > excess_near)
            excess_near = near, worst_near = p;
    }
    if (j->points == 0)
        return;
    if (excess_far > 0) {
        j->verdict = AR_VIOLATED;
        take_point(j, worst_far, f[worst_far], &est[worst_far]);
    } else {
        j->verdict = excess_near < 0 || (sign > 0 && excess_near == 0) ? AR_HOLDS : AR_INCONCLUSIVE;
        take_point(j, worst_near, f[worst_near], &est[worst_near]);
    }
    snprintf(j->rule, sizeof j->rule,
             sign > 0 ? "upper bound: 95%% CI upper end <= prediction at all %d points; "
                        "shown: the point closest to (or past) the bound"
                      : "lower bound: 95%% CI lower end > prediction at all %d points; "
                        "shown: the point closest to (or past) the bound",
             j->points);
}

/* The point whose largest trial value exceeds f the most (or falls shortest of it),
 * shown with that value and the [min, max] range of its trials; *trials counts the
 * values behind the judgement. Returns the excess max - f there (-inf: no point). */
static double largest_excess(long n, const double *f, const ar_summary *est, ar_judgement *j, long *trials)
{
    long at = -1;
    double excess = -INFINITY;
    *trials = 0;
    for (long p = 0; p < n; ++p) {
        if (!isfinite(f[p]) || est[p].count < 1)
            continue;
        j->points++;
        *trials += est[p].count;
        if (est[p].max - f[p] > excess)
            excess = est[p].max - f[p], at = p;
    }
    if (at >= 0) {
        take_point(j, at, f[at], &est[at]);
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
    double excess = largest_excess(n, f, est, j, &trials);
    if (j->points == 0)
        return;
    j->verdict = excess > 0 ? AR_HOLDS : AR_INCONCLUSIVE;
    snprintf(j->rule, sizeof j->rule,
             excess > 0 ? "witness: found, the largest of %ld values over %d points exceeds the threshold "
                          "(shown: that point's max, interval = [min, max] of its trials)"
                        : "witness: none among %ld values over %d points (absence proves nothing; shown: the "
                          "largest value)",
             trials, j->points);
}

/* Every trial below f: the largest value seen, point by point. */
static void judge_every_trial(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    long trials;
    double slack = -largest_excess(n, f, est, j, &trials);
    if (j->points == 0)
        return;
    j->verdict = slack >= 0 ? AR_HOLDS : AR_VIOLATED;
    snprintf(j->rule, sizeof j->rule,
             "every trial: the largest of %ld values over %d points <= prediction; slack %.3g at the "
             "tightest point (shown: its max, interval = [min, max] of its trials)",
             trials, j->points, slack);
}

static void judge_equals(long n, const double *f, const ar_summary *est, double rel_tol,
                         int integer_output, ar_judgement *j)
{
    for (long p = 0; p < n; ++p)
        if (isfinite(f[p]) && est[p].count >= 2)
            j->points++;
    if (j->points == 0)
        return;
    double z = ar_normal_quantile(1.0 - 0.05 / (2.0 * j->points));
    long worst = -1, loose = -1;
    double worst_dev = -1;
    for (long p = 0; p < n; ++p) {
        if (!isfinite(f[p]) || est[p].count < 2)
            continue;
        double se = est[p].sem;
        if (integer_output && se < 1.0 / (double)est[p].count)
            se = 1.0 / (double)est[p].count;
        double dev = fabs(est[p].mean - f[p]) / se;
        if (dev > worst_dev)
            worst_dev = dev, worst = p;
        if (z * se > rel_tol * fabs(f[p]) && loose < 0)
            loose = p;
    }
    if (worst_dev > z)
        j->verdict = AR_VIOLATED;
    else if (loose >= 0)
        j->verdict = AR_INCONCLUSIVE, worst = loose;
    else
        j->verdict = AR_HOLDS;
    take_point(j, worst, f[worst], &est[worst]);
    snprintf(j->rule, sizeof j->rule,
             "equality: |mean - prediction| <= %.2f se at all %d points (Bonferroni 95%%), "
             "interval within %g of the prediction; worst |dev| = %.2f se",
             z, j->points, rel_tol, worst_dev);
}

/* Endpoints (smallest and largest value along the axis) of the line through p0. */
static void line_ends(long n, const double *f, const ar_summary *est, const long *line, const double *along,
                      long p0, long *lo, long *hi)
{
    *lo = *hi = -1;
    for (long p = 0; p < n; ++p) {
        if (line[p] != line[p0] || !isfinite(f[p]) || est[p].count < 2)
            continue;
        if (*lo < 0 || along[p] < along[*lo])
            *lo = p;
        if (*hi < 0 || along[p] > along[*hi])
            *hi = p;
    }
}

static ar_verdict judge_line(const ar_claim *claim, const double *f, const ar_summary *est, long lo, long hi,
                             double *badness)
{
    double h_lo = (est[lo].ci_hi - est[lo].ci_lo) / 2, h_hi = (est[hi].ci_hi - est[hi].ci_lo) / 2;
    if (claim->rule == AR_RULE_LIMIT) {
        double dev_lo = fabs(est[lo].mean - f[lo]), dev_hi = fabs(est[hi].mean - f[hi]);
        double band = claim->rel_tol * fabs(f[hi]);
        int away = dev_hi - h_hi > dev_lo + h_lo;
        *badness = dev_hi / (band > 0 ? band : 1);
        if (dev_hi + h_hi <= band && !away)
            return AR_HOLDS;
        if (dev_hi - h_hi > band && away)
            return AR_VIOLATED;
        return AR_INCONCLUSIVE;
    }
    int sign = claim->rule == AR_RULE_DECREASING ? 1 : -1; /* want sign * (lo - hi) > 0 */
    double gap = sign > 0 ? est[lo].ci_lo - est[hi].ci_hi : est[hi].ci_lo - est[lo].ci_hi;
    double reverse = sign > 0 ? est[hi].ci_lo - est[lo].ci_hi : est[lo].ci_lo - est[hi].ci_hi;
    *badness = -gap;
    if (gap > 0)
        return AR_HOLDS;
    if (reverse > 0)
        return AR_VIOLATED;
    return AR_INCONCLUSIVE;
}

/* Exponent b of E[X] ~ c along^b on the line through p0: weighted least squares of
 * log(mean) on log(along), weights 1/se(log mean)^2 = (mean/stderr)^2, and the slope's
 * standard error inflated by the fit's reduced chi-square when the points scatter more
 * than their errors allow. Returns the number of points used (< 2: no fit). */
static int fit_exponent(long n, const double *f, const ar_summary *est, const long *line, const double *along,
                        long p0, double *b, double *se)
{
    double sw = 0, sx = 0, sy = 0;
    int k = 0;
    for (long p = 0; p < n; ++p) {
        if (line[p] != line[p0] || !isfinite(f[p]) || est[p].count < 2 || !(est[p].mean > 0) || !(along[p] > 0) ||
            !(est[p].sem > 0))
            continue;
        double w = (est[p].mean / est[p].sem) * (est[p].mean / est[p].sem);
        sw += w, sx += w * log(along[p]), sy += w * log(est[p].mean), k++;
    }
    if (k < 2)
        return k;
    double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
    for (long p = 0; p < n; ++p) {
        if (line[p] != line[p0] || !isfinite(f[p]) || est[p].count < 2 || !(est[p].mean > 0) || !(along[p] > 0) ||
            !(est[p].sem > 0))
            continue;
        double w = (est[p].mean / est[p].sem) * (est[p].mean / est[p].sem);
        double dx = log(along[p]) - mx, dy = log(est[p].mean) - my;
        sxx += w * dx * dx, sxy += w * dx * dy;
    }
    *b = sxy / sxx;
    double chi2 = 0;
    for (long p = 0; p < n; ++p) {
        if (line[p] != line[p0] || !isfinite(f[p]) || est[p].count < 2 || !(est[p].mean > 0) || !(along[p] > 0) ||
            !(est[p].sem > 0))
            continue;
        double w = (est[p].mean / est[p].sem) * (est[p].mean / est[p].sem);
        double r = log(est[p].mean) - (my + *b * (log(along[p]) - mx));
        chi2 += w * r * r;
    }
    double inflation = k > 2 && chi2 / (k - 2) > 1 ? sqrt(chi2 / (k - 2)) : 1;
    *se = inflation / sqrt(sxx);
    return k;
}

static void judge_trend(const ar_claim *claim, long n, const double *f, const ar_summary *est, const long *line,
                        const double *along, ar_judgement *j)
{
    static const int severity[] = {[AR_NOT_RUN] = 0, [AR_HOLDS] = 1, [AR_INCONCLUSIVE] = 2, [AR_VIOLATED] = 3};
    ar_verdict worst = AR_NOT_RUN;
    long worst_lo = -1, worst_hi = -1;
    double worst_badness = -INFINITY;
    int lines = 0;
    for (long p = 0; p < n; ++p) {
        long lo, hi;
        line_ends(n, f, est, line, along, p, &lo, &hi);
        if (lo != p || hi == lo) /* visit each line once, from its first point */
            continue;
        lines++;
        j->points += 2;
        double badness;
        ar_verdict v = judge_line(claim, f, est, lo, hi, &badness);
        if (severity[v] > severity[worst] || (v == worst && badness > worst_badness))
            worst = v, worst_lo = lo, worst_hi = hi, worst_badness = badness;
    }
    if (lines == 0)
        return;
    j->verdict = worst;
    take_point(j, worst_hi, f[worst_hi], &est[worst_hi]);
    if (claim->rule == AR_RULE_LIMIT)
        snprintf(j->rule, sizeof j->rule,
                 "limit along %s over %d line(s): at the largest %s the 95%% CI within %g x |prediction|, "
                 "distance not growing since the smallest (%s=%g: %.4g)", claim->trend_axis, lines,
                 claim->trend_axis, claim->rel_tol, claim->trend_axis, along[worst_lo], est[worst_lo].mean);
    else {
        double b = NAN, se = NAN;
        char fit[96] = "";
        if (fit_exponent(n, f, est, line, along, worst_lo, &b, &se) >= 2)
            snprintf(fit, sizeof fit, "; fitted ~ %s^b: b = %.3f +- %.3f (95%%)", claim->trend_axis, b, 1.96 * se);
        snprintf(j->rule, sizeof j->rule,
                 "%s along %s over %d line(s): 95%% CIs at the smallest and largest %s separate "
                 "(smallest %s=%g: %.4g)%s", claim->rule == AR_RULE_DECREASING ? "decreasing" : "increasing",
                 claim->trend_axis, lines, claim->trend_axis, claim->trend_axis, along[worst_lo],
                 est[worst_lo].mean, fit);
    }
}

void ar_judge(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
              int integer_output, const long *line, const double *along, ar_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = AR_NOT_RUN;
    out->point = -1;
    out->prediction = out->estimate = out->ci_lo = out->ci_hi = NAN;
    snprintf(out->rule, sizeof out->rule, "no grid point where the claim applies was computed");
    if (claim->rule == AR_RULE_UPPER_BOUND || claim->rule == AR_RULE_LOWER_BOUND)
        judge_bound(claim->rule == AR_RULE_UPPER_BOUND ? 1 : -1, n_points, prediction, est, out);
    else if (claim->rule == AR_RULE_EVERY_TRIAL)
        judge_every_trial(n_points, prediction, est, out);
    else if (claim->rule == AR_RULE_WITNESS)
        judge_witness(n_points, prediction, est, out);
    else if (claim->rule == AR_RULE_EQUALS)
        judge_equals(n_points, prediction, est, claim->rel_tol, integer_output, out);
    else if (claim->rule != AR_RULE_REFERENCE && line && along)
        judge_trend(claim, n_points, prediction, est, line, along, out);
    else if (claim->rule != AR_RULE_REFERENCE)
        snprintf(out->rule, sizeof out->rule, "a trend claim needs an axis over %s", claim->trend_axis);
}
