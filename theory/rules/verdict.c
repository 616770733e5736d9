/* theory/verdict: the verdict rules and their resolutions (see theory.h). */
#include "attnrank/theory.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Family-wise level of a VIOLATED decision: two-sided 5%, i.e. 2.5% on the side a
 * bound can be broken, matching the 95% intervals behind HOLDS. */
static const double ALPHA = 0.05;
/* A bound whose data stay below 97% of it would hold 3% tighter: it is loose. */
static const double LOOSE_BELOW = 0.97;

static int usable(const double *f, const ar_summary *est, long p)
{
    return isfinite(f[p]) && est[p].count >= 2 && isfinite(est[p].mean);
}

/* A limit's finite-size fit weights each point by its own standard error from this many
 * trials a point; with fewer, by the line's pooled variance. */
enum { FIT_TRIALS = 30 };

/* The standard error a decision uses: for integer outputs at least 1/trials, since T
 * identical draws do not prove a zero variance; and at least what the stored interval
 * says (mean -/+ t se): a lattice output's interval carries the same floor in its own
 * units (ar_summarize_lattice), so the interval printed is the one decided on. */
static double decision_se(const ar_summary *s, int integer_output)
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
static double dof_of(long count)
{
    return count > 1 ? (double)(count - 1) : 1.0;
}

/* One-sided p-value of an excess over a standard error estimated from count trials. */
static double excess_pvalue(double excess, double se, long count)
{
    if (!(se > 0))
        return excess > 0 ? 0.0 : 1.0;
    return gsl_cdf_tdist_Q(excess / se, dof_of(count));
}

/* The two-sided quantile for a family of m comparisons at level ALPHA (Bonferroni). */
static double t_quantile(long m, long count)
{
    /* asked once a point or a step with the same (m, count) as a rule: kept */
    static _Thread_local long last_m = -1, last_count = -1;
    static _Thread_local double last;
    if (m != last_m || count != last_count) {
        last = gsl_cdf_tdist_Pinv(1 - ALPHA / (2.0 * (double)(m > 0 ? m : 1)), dof_of(count));
        last_m = m, last_count = count;
    }
    return last;
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Holm's step-down over one-sided p-values: how many of the m hypotheses it rejects
 * at family-wise level alpha. */
static long holm_rejections(double *pvalues, long m, double alpha)
{
    qsort(pvalues, (size_t)m, sizeof *pvalues, by_value);
    long r = 0;
    while (r < m && pvalues[r] <= alpha / (double)(m - r))
        r++;
    return r;
}

/* Upper bound (sign +1) or lower bound (sign -1). */
static void judge_bound(int sign, long n, const double *f, const ar_summary *est, int integer_output,
                        ar_judgement *j)
{
    double *pvalues = malloc((size_t)(n > 0 ? n : 1) * sizeof *pvalues);
    long worst_near = -1, most_significant = -1;
    double excess_near = -INFINITY, smallest_p = INFINITY;
    double tightness = sign > 0 ? -INFINITY : INFINITY, floor_lo = INFINITY;
    int scaled = 1; /* every prediction positive: the resolution is a factor */
    for (long p = 0; p < n; ++p) {
        if (!usable(f, est, p))
            continue;
        /* near end: the interval's end toward the bound; for integer outputs at least
         * 1.96 / trials from the mean (the rule of three's floor, as for VIOLATED) */
        double floor = 1.96 * decision_se(&est[p], integer_output);
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
        double se = decision_se(&est[p], integer_output), excess = sign * (est[p].mean - f[p]);
        double pvalue = excess_pvalue(excess, se, est[p].count);
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
    if (!j->points) {
        free(pvalues);
        return;
    }
    long rejected = holm_rejections(pvalues, j->points, ALPHA / 2);
    free(pvalues);
    if (rejected > 0) {
        j->verdict = AR_VIOLATED;
        take_point(j, most_significant, f[most_significant], &est[most_significant]);
    } else {
        j->verdict = excess_near <= 0 ? AR_HOLDS : AR_INCONCLUSIVE;
        take_point(j, worst_near, f[worst_near], &est[worst_near]);
    }
    if (scaled) {
        j->resolution = (ar_resolution){sign > 0 ? AR_RESOLUTION_TIGHTNESS : AR_RESOLUTION_ESTABLISHED, tightness,
                                        NAN, NAN, 0};
        j->resolution.loose = j->verdict == AR_HOLDS && (sign > 0 ? tightness < LOOSE_BELOW : tightness > 2 - LOOSE_BELOW);
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
                                    slack >= 0 && tightness < LOOSE_BELOW};
    snprintf(j->rule, sizeof j->rule,
             "every trial: the largest of %ld values over %d points <= prediction; slack %.3g at the "
             "tightest point (shown: its max, interval = [min, max] of its trials)",
             trials, j->points, slack);
}

/* A deviation in standard errors, for a rule's text: an infinite one (the standard error
 * is 0) said in words. */
static const char *in_se(double v, char *buf, size_t len)
{
    if (isfinite(v))
        snprintf(buf, len, "%.2f se", v);
    else
        snprintf(buf, len, "%s (no spread: se = 0)", isnan(v) ? "undefined" : v > 0 ? "unbounded" : "-unbounded");
    return buf;
}

static void judge_equals(long n, const double *f, const ar_summary *est, double rel_tol, int integer_output,
                         ar_judgement *j)
{
    for (long p = 0; p < n; ++p)
        j->points += usable(f, est, p);
    if (!j->points)
        return;
    long worst = -1, loose = -1;
    double worst_dev = -1, worst_ratio = -1, z_worst = NAN, k_lo = -INFINITY, k_hi = INFINITY;
    for (long p = 0; p < n; ++p) {
        if (!usable(f, est, p))
            continue;
        double se = decision_se(&est[p], integer_output), z = t_quantile(j->points, est[p].count);
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
    take_point(j, worst, f[worst], &est[worst]);
    /* factors k f scale a prediction that is not 0 somewhere; 0 alone resolves none */
    if (isinf(k_lo) && isinf(k_hi) && k_lo < k_hi)
        j->resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0};
    else
        j->resolution = (ar_resolution){AR_RESOLUTION_FACTORS, NAN, k_lo, k_hi, 0};
    snprintf(j->rule, sizeof j->rule,
             "equality: |mean - prediction| <= t se at all %d points (Bonferroni 95%%, t = %.2f there), "
             "interval within %g of the prediction; worst |dev| = %s",
             j->points, z_worst, rel_tol, in_se(worst_dev, (char[32]){0}, 32));
}

/* The lines of a trend or limit claim: the points it can use grouped by line, each
 * group sorted along the axis (ties by index), groups in the order of their first point;
 * only groups of at least min_size points (a line needs two). Built by two sorts, so a grid of 10^6 points finds
 * its lines in O(n log n). */
typedef struct {
    long *members; /* the groups one after the other */
    long *start;   /* group g is members[start[g] .. start[g + 1]) */
    int count;
} line_groups;

typedef struct {
    long line, point;
    double along;
} line_entry;

static int by_line_then_along(const void *a, const void *b)
{
    const line_entry *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->along != y->along)
        return x->along < y->along ? -1 : 1;
    return (x->point > y->point) - (x->point < y->point);
}

typedef struct {
    long first, from, size;
} group_entry;

static int by_first_point(const void *a, const void *b)
{
    const group_entry *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

/* 0, or -1 when out of memory (g is then empty). */
static int group_lines(long n, const double *f, const ar_summary *est, const long *line, const double *along,
                       long min_size, line_groups *g)
{
    memset(g, 0, sizeof *g);
    size_t size = (size_t)(n > 0 ? n : 1);
    line_entry *entries = malloc(size * sizeof *entries);
    group_entry *groups = malloc(size * sizeof *groups);
    g->members = malloc(size * sizeof *g->members);
    g->start = malloc((size + 1) * sizeof *g->start);
    if (!entries || !groups || !g->members || !g->start) {
        free(entries), free(groups), free(g->members), free(g->start);
        memset(g, 0, sizeof *g);
        return -1;
    }
    long m = 0, n_groups = 0;
    for (long p = 0; p < n; ++p)
        if (usable(f, est, p))
            entries[m++] = (line_entry){line[p], p, along[p]};
    qsort(entries, (size_t)m, sizeof *entries, by_line_then_along);
    for (long i = 0; i < m;) {
        long k = i, first = entries[i].point;
        while (k < m && entries[k].line == entries[i].line) {
            first = entries[k].point < first ? entries[k].point : first;
            k++;
        }
        if (k - i >= min_size)
            groups[n_groups++] = (group_entry){first, i, k - i};
        i = k;
    }
    qsort(groups, (size_t)n_groups, sizeof *groups, by_first_point);
    long at = 0;
    for (long q = 0; q < n_groups; ++q) {
        g->start[q] = at;
        for (long i = 0; i < groups[q].size; ++i)
            g->members[at++] = entries[groups[q].from + i].point;
    }
    g->start[n_groups] = at;
    g->count = (int)n_groups;
    free(entries), free(groups);
    return 0;
}

static void free_lines(line_groups *g)
{
    free(g->members), free(g->start);
    memset(g, 0, sizeof *g);
}

/* X(n) = c + a n^-b on one line (a limit: c judged), or X(n) = c + beta ln n + a n^-b
 * (a log slope: beta judged), by weighted least squares at each b of the claim's range;
 * the judged coefficient's interval is the profile over the others and b at the levels
 * asked for (two-sided normal quantiles z), widened when the best fit's reduced
 * chi-square exceeds one (the quantile then from F(1, dof), since the scale is
 * estimated). The extrapolation is refused when the model itself fails: the best fit's
 * chi-square is improbable (p < GOODNESS), or, with b profiled, b's 95% region reaches
 * an end of the range, where a slower or faster correction than the range allows would
 * fit as well. */
static const double GOODNESS = 1e-3;

typedef struct extrapolation {
    int sizes, dof;
    double c, b, chi2;                  /* best fit: c the judged coefficient */
    double lo, hi;                      /* its 95% interval */
    double lo_wide, hi_wide;            /* at the corrected level */
    double b_lo_wide, b_hi_wide;        /* b's region at the corrected level (b profiled) */
    double b_lo, b_hi;                  /* ... and at 95% */
    ar_undecided refused;               /* why the model cannot be trusted, if it cannot */
} extrapolation;

/* The range a free correction exponent is profiled over. */
static const double RATE_RANGE_LO = 0.25, RATE_RANGE_HI = 2;
/* A stated rate is checked to this relative tolerance, as a constant to rel_tol: at the
 * sizes a grid reaches, next-order terms move the effective exponent a little (S1 on
 * lognormal entries fits b = 0.94 [0.90, 0.99] at n <= 1024, against its asymptotic 1),
 * while a theory wrong in structure states another rate (1/2 or 2/3 for 1). */
static const double RATE_TOL = 0.25;

/* A claim that states its finite-size rate (b fixed). */
static int states_rate(const ar_claim *claim)
{
    return claim->rate_lo > 0 && claim->rate_lo == claim->rate_hi;
}

static double correction_exponent(const ar_claim *claim, int end)
{
    if (!claim->rate_lo && !claim->rate_hi)
        return end ? RATE_RANGE_HI : RATE_RANGE_LO;
    return end ? claim->rate_hi : claim->rate_lo;
}

static int extrapolate(const ar_claim *claim, const ar_summary *est, const double *along, const long *members,
                       int k, int integer_output, double z_wide, extrapolation *x)
{
    double b_lo = correction_exponent(claim, 0), b_hi = correction_exponent(claim, 1);
    int steps = b_hi > b_lo ? 176 : 1, free_rate = steps > 1;
    int slope = claim->rule == AR_RULE_LOG_SLOPE, judged = slope ? 1 : 0;
    int columns = (slope ? 3 : 2) + (claim->second_order != 0);
    x->sizes = k;
    x->dof = k - columns - free_rate;
    x->refused = AR_UNDECIDED_NONE;
    if (x->dof < 1)
        return -1;
    for (int i = 0; i < k; ++i)
        if (!(along[members[i]] > 0)) { /* the model is undefined there: nothing to fit */
            x->refused = AR_UNDECIDED_AXIS_NOT_POSITIVE;
            return 0;
        }
    /* Weights 1/se^2 from a few trials are noisy and, for discrete outputs, correlated
     * with the means (equal draws give a small se): the fit is then biased, and a true
     * limit came out VIOLATED at 2-10 trials a point. Below FIT_TRIALS a point the line's
     * pooled variance weights every point instead (its own count still counts). */
    int few = 0;
    double pooled = 0, dof = 0;
    for (int i = 0; i < k; ++i) {
        const ar_summary *s = &est[members[i]];
        few |= s->count < FIT_TRIALS;
        if (s->count >= 2 && isfinite(s->sem)) /* a point's variance: count x sem^2 (= std^2) */
            pooled += (double)(s->count - 1) * (double)s->count * s->sem * s->sem, dof += (double)(s->count - 1);
    }
    pooled = dof > 0 ? pooled / dof : 0;
    double cs[steps], vars[steps], chi2s[steps];
    size_t rows = (size_t)k, cols = (size_t)columns;
    gsl_matrix *design = gsl_matrix_alloc(rows, cols), *cov = gsl_matrix_alloc(cols, cols);
    gsl_vector *ws = gsl_vector_alloc(rows), *ys = gsl_vector_alloc(rows), *coef = gsl_vector_alloc(cols);
    gsl_multifit_linear_workspace *work = gsl_multifit_linear_alloc(rows, cols);
    for (int i = 0; i < k; ++i) {
        const ar_summary *s = &est[members[i]];
        double se = decision_se(s, integer_output);
        if (few) {
            se = sqrt(pooled / (double)s->count);
            if (integer_output && se < 1.0 / (double)s->count)
                se = 1.0 / (double)s->count;
        }
        if (!(se > 0)) /* a constant real output: trust it to round-off */
            se = 1e-15 * fmax(fabs(s->mean), 1e-300);
        gsl_vector_set(ys, (size_t)i, s->mean);
        gsl_vector_set(ws, (size_t)i, 1 / (se * se));
    }
    double best = INFINITY;
    for (int t = 0; t < steps; ++t) {
        double b = b_lo + (b_hi - b_lo) * t / (steps > 1 ? steps - 1 : 1);
        for (int i = 0; i < k; ++i) {
            double at = along[members[i]];
            gsl_matrix_set(design, (size_t)i, 0, 1);
            if (slope)
                gsl_matrix_set(design, (size_t)i, 1, log(at));
            gsl_matrix_set(design, (size_t)i, (size_t)(slope ? 2 : 1), pow(at, -b));
            if (claim->second_order)
                gsl_matrix_set(design, (size_t)i, (size_t)columns - 1, pow(at, -2 * b));
        }
        gsl_multifit_wlinear(design, ws, ys, coef, cov, &chi2s[t], work);
        cs[t] = gsl_vector_get(coef, (size_t)judged);
        vars[t] = gsl_matrix_get(cov, (size_t)judged, (size_t)judged);
        if (chi2s[t] < best)
            best = chi2s[t], x->c = cs[t], x->b = b;
    }
    gsl_multifit_linear_free(work);
    gsl_vector_free(coef), gsl_vector_free(ys), gsl_vector_free(ws);
    gsl_matrix_free(cov), gsl_matrix_free(design);
    x->chi2 = best;
    if (!(best < INFINITY) || gsl_cdf_chisq_Q(best, x->dof) < GOODNESS) /* a NaN fit is no fit */
        x->refused = AR_UNDECIDED_MISFIT;
    /* Levels as Delta chi-square: z^2 with trusted errors, F(1, dof) when rescaled. */
    double scatter = best / x->dof > 1 ? best / x->dof : 1, alphas[2] = {ALPHA, 2 * gsl_cdf_ugaussian_Q(z_wide)};
    double crits[2], ends[2][2];
    for (int level = 0; level < 2; ++level)
        crits[level] = scatter > 1 ? scatter * gsl_cdf_fdist_Qinv(alphas[level], 1, x->dof)
                                   : gsl_cdf_chisq_Qinv(alphas[level], 1);
    double rates[2][2];
    for (int level = 0; level < 2; ++level) {
        ends[level][0] = rates[level][0] = INFINITY, ends[level][1] = rates[level][1] = -INFINITY;
        for (int t = 0; t < steps; ++t) {
            double room = crits[level] - (chi2s[t] - best);
            if (room < 0)
                continue;
            double h = sqrt(room * vars[t]), b = b_lo + (b_hi - b_lo) * t / (steps > 1 ? steps - 1 : 1);
            ends[level][0] = fmin(ends[level][0], cs[t] - h);
            ends[level][1] = fmax(ends[level][1], cs[t] + h);
            rates[level][0] = fmin(rates[level][0], b), rates[level][1] = fmax(rates[level][1], b);
        }
    }
    x->b_lo = rates[0][0], x->b_hi = rates[0][1], x->b_lo_wide = rates[1][0], x->b_hi_wide = rates[1][1];
    if (free_rate && !x->refused && (chi2s[0] - best <= crits[0] || chi2s[steps - 1] - best <= crits[0]))
        x->refused = AR_UNDECIDED_RATE_AT_RANGE_END;
    x->lo = ends[0][0], x->hi = ends[0][1], x->lo_wide = ends[1][0], x->hi_wide = ends[1][1];
    return 0;
}

/* Predictions k f that would hold: the band k f +- tol |k f| must enclose [lo, hi]. */
static void holding_factors(double f, double tol, double lo, double hi, double *k_lo, double *k_hi)
{
    if (f > 0) {
        *k_lo = fmax(*k_lo, hi / ((1 + tol) * f));
        *k_hi = fmin(*k_hi, lo / ((1 - tol) * f));
    } else if (f < 0) {
        *k_lo = fmax(*k_lo, lo / ((1 + tol) * f));
        *k_hi = fmin(*k_hi, hi / ((1 - tol) * f));
    } /* a zero prediction does not scale: its line resolves no factor (nor refutes any) */
}

static void judge_limit(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                        const long *line, const double *along, ar_judgement *j)
{
    static const int severity[] = {[AR_NOT_RUN] = 0, [AR_HOLDS] = 1, [AR_INCONCLUSIVE] = 2, [AR_VIOLATED] = 3};
    line_groups groups;
    if (group_lines(n, f, est, line, along, 2, &groups) < 0) {
        snprintf(j->rule, sizeof j->rule, "out of memory finding the lines along %s", claim->trend_axis);
        return;
    }
    int lines = groups.count, undecided = 0;
    double z = ar_normal_quantile(1 - ALPHA / (2.0 * (lines > 0 ? lines : 1)));
    /* The stated rate is tested at half that level: with the constant's test (whose band
     * makes a true claim's false VIOLATED far rarer than its level) the claim's family-wise
     * level stays near ALPHA. */
    double z_rate = ar_normal_quantile(1 - ALPHA / (4.0 * (lines > 0 ? lines : 1)));
    double k_lo = -INFINITY, k_hi = INFINITY, worst_badness = -INFINITY;
    ar_verdict worst = AR_NOT_RUN;
    extrapolation shown = {0};
    ar_undecided why = AR_UNDECIDED_NONE;
    int rate_refused = 0, shown_rate_refused = 0; /* lines whose stated rate a free rate refutes */
    double zero_lo = INFINITY, zero_hi = -INFINITY;   /* the extrapolated intervals of zero limits */
    for (int g = 0; g < groups.count; ++g) {
        const long *members = groups.members + groups.start[g];
        int k = (int)(groups.start[g + 1] - groups.start[g]);
        long top = members[k - 1];
        double target = f[top], band = claim->rel_tol * (target != 0 ? fabs(target) : 1);
        extrapolation x = {0};
        ar_verdict v = AR_INCONCLUSIVE;
        double badness = INFINITY;
        int constant = 1;
        for (int i = 0; i < k; ++i)
            constant &= fabs(f[members[i]] - target) <= 1e-12 * fabs(target);
        j->points += k;
        /* A claim that states its rate is refuted when the fit at that rate is rejected
         * (its chi-square improbable) while a free rate describes the data (a good fit, b
         * inside the range) and lies beyond RATE_TOL of the stated one at the corrected level: a wrong
         * rate alone only made the fixed-rate fit misfit, which was INCONCLUSIVE. Both
         * are asked for: a free rate alone moves off the stated one wherever the next
         * order still shows at the smallest sizes (H2lim at d_h = 1, 2 at 10 trials a
         * point: 3 of 40 true runs refuted). */
        extrapolation free_fit = {0}, stated = {0};
        int refutes_rate = 0;
        if (constant && states_rate(claim) &&
            extrapolate(claim, est, along, members, k, integer_output, z, &stated) == 0 &&
            stated.refused == AR_UNDECIDED_MISFIT) {
            ar_claim free_rate = *claim;
            free_rate.rate_lo = RATE_RANGE_LO, free_rate.rate_hi = RATE_RANGE_HI;
            refutes_rate = extrapolate(&free_rate, est, along, members, k, integer_output, z_rate, &free_fit) == 0 &&
                           !free_fit.refused && free_fit.b_lo_wide <= free_fit.b_hi_wide &&
                           (free_fit.b_lo_wide > claim->rate_lo * (1 + RATE_TOL) ||
                            free_fit.b_hi_wide < claim->rate_lo * (1 - RATE_TOL));
        }
        if (refutes_rate) {
            x = free_fit, v = AR_VIOLATED, rate_refused++;
            badness = fabs(free_fit.b - claim->rate_lo) / fmax(free_fit.b_hi_wide - free_fit.b_lo_wide, 1e-12);
        } else if (!constant) {
            why = AR_UNDECIDED_VARYING_PREDICTION;
        } else if (extrapolate(claim, est, along, members, k, integer_output, z, &x) < 0) {
            why = AR_UNDECIDED_TOO_FEW_SIZES;
        } else if (x.refused) {
            why = x.refused;
        } else {
            if (x.lo <= x.hi && x.lo >= target - band && x.hi <= target + band)
                v = AR_HOLDS;
            else if (x.hi_wide < target - band || x.lo_wide > target + band)
                v = AR_VIOLATED;
            badness = fabs(x.c - target) / band;
        }
        if (v == AR_INCONCLUSIVE && badness == INFINITY) {
            undecided++;
            k_lo = INFINITY, k_hi = -INFINITY;
        } else if (!refutes_rate) {
            holding_factors(target, claim->rel_tol, x.lo, x.hi, &k_lo, &k_hi);
            if (target == 0) /* no factor scales a zero limit: the limits the data establish */
                zero_lo = fmin(zero_lo, x.lo), zero_hi = fmax(zero_hi, x.hi);
        }
        if (severity[v] > severity[worst] || (v == worst && badness > worst_badness)) {
            worst = v, worst_badness = badness, shown = x, shown_rate_refused = refutes_rate;
            take_point(j, top, target, &est[top]);
            j->estimate = x.c, j->ci_lo = x.lo, j->ci_hi = x.hi;
            if (!x.sizes || x.dof < 1 || x.refused == AR_UNDECIDED_AXIS_NOT_POSITIVE) /* nothing was fitted */
                j->estimate = j->ci_lo = j->ci_hi = NAN;
            j->trials = 0;
            for (int i = 0; i < k; ++i)
                j->trials += est[members[i]].count;
            /* Inside the tolerance, yet the interval excludes the prediction: say so. */
            j->resolution.excludes = v == AR_HOLDS && (x.lo > target || x.hi < target);
        }
    }
    free_lines(&groups);
    if (!lines)
        return;
    j->verdict = worst;
    int excludes = j->resolution.excludes;
    /* An undecided line establishes no factor: the resolution is left empty, not "none". */
    int only_zero = isinf(k_lo) && isinf(k_hi) && k_lo < k_hi;
    j->resolution = undecided ? (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0, 0}
                    : only_zero ? (ar_resolution){AR_RESOLUTION_MEASURED, NAN, zero_lo, zero_hi, 0, 0}
                                : (ar_resolution){AR_RESOLUTION_FACTORS, NAN, k_lo, k_hi, 0, excludes};
    if (shown_rate_refused) /* what the data say of the rate instead */
        j->resolution = (ar_resolution){AR_RESOLUTION_EXPONENT, shown.b, shown.b_lo, shown.b_hi, 0, 0};
    j->fit = (ar_fit){lines, shown.sizes, shown.dof, shown.b, shown.chi2,
                      correction_exponent(claim, 1) > correction_exponent(claim, 0) || shown_rate_refused, why,
                      shown_rate_refused};
    static const char *const reasons[] = {
        [AR_UNDECIDED_NONE] = "",
        [AR_UNDECIDED_TOO_FEW_SIZES] = "too few sizes on a line to fit the finite-size model (one more than its "
                                       "coefficients, and one more with b profiled)",
        [AR_UNDECIDED_MISFIT] = "the finite-size model does not fit the sizes (chi-square improbable)",
        [AR_UNDECIDED_RATE_AT_RANGE_END] = "the correction exponent b runs into an end of its range (a slower or "
                                           "faster approach fits as well)",
        [AR_UNDECIDED_VARYING_PREDICTION] = "the prediction varies along the axis: a limit has one constant per line",
        [AR_UNDECIDED_AXIS_NOT_POSITIVE] = "the axis has a value <= 0, where the model's t^-b (and ln t) is undefined",
    };
    int slope = claim->rule == AR_RULE_LOG_SLOPE;
    const char *axis = claim->trend_axis;
    char next[48] = "";
    if (claim->second_order)
        snprintf(next, sizeof next, " + a2 %s^-2b", axis);
    if (shown_rate_refused)
        snprintf(j->rule, sizeof j->rule,
                 "%s along %s: the stated rate b = %.3g (to 25%%) is refused on %d of %d line(s): a free rate fits c + a %s^-b%s "
                 "on %d sizes with b = %.3f [%.3f, %.3f] (chi2/dof = %.1f/%d)",
                 slope ? "log slope" : "limit", axis, claim->rate_lo, rate_refused, lines, axis, next, shown.sizes,
                 shown.b, shown.b_lo_wide, shown.b_hi_wide, shown.chi2, shown.dof);
    else if (undecided)
        snprintf(j->rule, sizeof j->rule, "%s along %s: %d of %d line(s) undecided: %s", slope ? "log slope" : "limit",
                 axis, undecided, lines, reasons[why]);
    else
        snprintf(j->rule, sizeof j->rule,
                 "%s along %s over %d line(s): c +%s a %s^-b%s fitted on %d sizes (b = %.2f%s, chi2/dof = %.1f/%d); "
                 "the %s's 95%% CI within %g x |prediction|",
                 slope ? "log slope" : "limit", axis, lines, slope ? " beta ln(.) +" : "", axis, next, shown.sizes, shown.b,
                 correction_exponent(claim, 1) > correction_exponent(claim, 0) ? ", profiled" : ", fixed",
                 shown.chi2, shown.dof, slope ? "slope beta" : "extrapolated c", claim->rel_tol);
}

/* Exponent b of E[X] ~ c along^b on a line: weighted least squares of log(mean) on
 * log(along), weights (mean/se)^2, the slope's standard error widened by the reduced
 * chi-square when the points scatter more than their errors allow; *chi2 (if not NULL)
 * gets the fit's chi-square, on the returned count minus 2 degrees of freedom. */
static int fit_exponent(const ar_summary *est, const double *along, const long *members, int k, double *b,
                        double *se, double *chi2_out)
{
    double xs[k > 0 ? k : 1], ys[k > 0 ? k : 1], ws[k > 0 ? k : 1];
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
        double se = hypot(decision_se(a, integer_output), decision_se(b, integer_output));
        double step = sign * (b->mean - a->mean), z = se > 0 ? step / se : step > 0 ? INFINITY : -INFINITY;
        z /= t_quantile(steps, fewer_trials(a, b));
        if (z > worst)
            worst = z, *at = members[i + 1];
    }
    return worst;
}

static void judge_trend(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                        const long *line, const double *along, ar_judgement *j)
{
    static const int severity[] = {[AR_NOT_RUN] = 0, [AR_HOLDS] = 1, [AR_INCONCLUSIVE] = 2, [AR_VIOLATED] = 3};
    int sign = claim->rule == AR_RULE_DECREASING ? 1 : -1; /* want sign * (lo - hi) > 0 */
    line_groups groups;
    if (group_lines(n, f, est, line, along, 2, &groups) < 0) {
        snprintf(j->rule, sizeof j->rule, "out of memory finding the lines along %s", claim->trend_axis);
        return;
    }
    int lines = groups.count, reversed = 0, rate_refused = 0;
    /* a stated power-law rate, sign * exponent = -rate: two-sided, Bonferroni over lines, at
     * half the level (as judge_limit's rate test, beside the ends' and steps' tests) */
    double alpha_rate = ALPHA / (4.0 * (lines > 0 ? lines : 1));
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
        double z = t_quantile(lines, fewer_trials(a, b));
        double reverse = sign * (b->mean - a->mean) - z * (decision_se(a, integer_output) + decision_se(b, integer_output));
        long step_at = -1;
        int step_back = k > 2 && worst_reversal(sign, est, members, k, integer_output, steps, &step_at) > 1;
        reversed += step_back;
        ar_verdict v = reverse > 0 || step_back ? AR_VIOLATED : gap > 0 ? AR_HOLDS : AR_INCONCLUSIVE;
        /* A claim that states its rate (H2gap: the deficit falls like 1/d_h) is refuted
         * when the fitted exponent lies beyond RATE_TOL of it, as a limit's rate is, and
         * only where a power law describes the line (its chi-square probable: a curved,
         * pre-asymptotic line has no one exponent, and its early slope is not the rate).
         * With the scatter estimated from the fit, the quantile is Student's t on its
         * degrees of freedom. */
        double rate_b = NAN, rate_se = NAN, rate_chi2 = NAN;
        int fitted = v != AR_VIOLATED && states_rate(claim) ? fit_exponent(est, along, members, k, &rate_b, &rate_se,
                                                                             &rate_chi2) : 0;
        if (fitted >= 3 && gsl_cdf_chisq_Q(rate_chi2, fitted - 2) >= GOODNESS) {
            double z = rate_chi2 / (fitted - 2) > 1 ? gsl_cdf_tdist_Pinv(1 - alpha_rate, fitted - 2)
                                                    : ar_normal_quantile(1 - alpha_rate);
            double stated = -sign * claim->rate_lo, lo_b = rate_b - z * rate_se, hi_b = rate_b + z * rate_se;
            double band_lo = stated - RATE_TOL * claim->rate_lo, band_hi = stated + RATE_TOL * claim->rate_lo;
            if (hi_b < band_lo || lo_b > band_hi)
                v = AR_VIOLATED, rate_refused++;
        }
        if (severity[v] > severity[worst] || (v == worst && -gap > worst_badness)) {
            worst = v, worst_badness = -gap, worst_lo = lo;
            take_point(j, step_back && !(reverse > 0) ? step_at : hi, f[hi], &est[step_back && !(reverse > 0) ? step_at : hi]);
            double bexp = NAN, se = NAN;
            if (fit_exponent(est, along, members, k, &bexp, &se, NULL) >= 2)
                j->resolution = (ar_resolution){AR_RESOLUTION_EXPONENT, bexp, bexp - 1.96 * se, bexp + 1.96 * se, 0};
            else /* two points along a choice (gap: keep, remove): how much it changes */
                j->resolution = (ar_resolution){AR_RESOLUTION_CHANGE, b->mean / a->mean, a->mean, b->mean, 0};
        }
    }
    free_lines(&groups);
    if (!lines)
        return;
    j->verdict = worst;
    char rate[96] = "";
    if (states_rate(claim))
        snprintf(rate, sizeof rate, "; exponent %+g (to 25%%) refused on %d", -sign * claim->rate_lo, rate_refused);
    snprintf(j->rule, sizeof j->rule,
             "%s along %s, %d line(s): 95%% CIs at the ends separate; VIOLATED if they do the other way or a step "
             "does (Bonferroni: lines, %ld steps; t quantiles: %d line(s) reverse)%s (smallest %s=%g: %.4g)",
             sign > 0 ? "decreasing" : "increasing", claim->trend_axis, lines, steps, reversed, rate, claim->trend_axis,
             along[worst_lo], est[worst_lo].mean);
}

static void account_failures(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
                             ar_judgement *out);

void ar_judge_steeper(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                      const long *plane, const double *along, const double *versus, int reversed, ar_judgement *j)
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
    line_groups groups; /* the planes, each its usable points */
    if (group_lines(n, f, est, plane, along, 1, &groups) < 0) {
        snprintf(j->rule, sizeof j->rule, "steeper: out of memory finding the planes of %s and %s", axis, other);
        return;
    }
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
        double se = hypot(decision_se(&est[t_end], integer_output), decision_se(&est[v_end], integer_output));
        double margin = se > 0 ? d / se : d > 0 ? INFINITY : -INFINITY;
        long fewer = fewer_trials(&est[t_end], &est[v_end]);
        double z = t_quantile(planes, fewer), z_holds = t_quantile(1, fewer);
        ar_verdict v = margin > z_holds ? AR_HOLDS : margin < -z ? AR_VIOLATED : AR_INCONCLUSIVE;
        if (margin < worst) {
            worst = margin;
            j->verdict = v;
            take_point(j, t_end, f[t_end], &est[t_end]);
            j->trials = est[t_end].count + est[v_end].count + est[corner].count;
            double rise_t = est[t_end].mean - est[corner].mean, rise_v = est[v_end].mean - est[corner].mean;
            j->resolution = (ar_resolution){AR_RESOLUTION_RATIO, rise_t / rise_v, rise_t, rise_v, 0, 0};
        }
    }
    free_lines(&groups);
    if (!judged) {
        account_failures(claim, n, f, est, j);
        return;
    }
    if (j->verdict == AR_HOLDS && judged < planes)
        j->verdict = AR_INCONCLUSIVE; /* a plane without its three corners */
    snprintf(j->rule, sizeof j->rule,
             "steeper: from the corner of each of %d plane(s), the change to the largest %s exceeds the change to "
             "the largest %s (95%%; VIOLATED below 0 with Bonferroni); worst margin %s", judged, axis, other,
             in_se(worst, (char[32]){0}, 32));
    account_failures(claim, n, f, est, j);
}

/* A measurement: what the data establish at every point, no verdict. */
static void judge_measure(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    double lo = INFINITY, hi = -INFINITY;
    long at = -1;
    for (long p = 0; p < n; ++p) {
        if (!usable(f, est, p))
            continue;
        j->points++;
        if (est[p].ci_lo < lo)
            lo = est[p].ci_lo, at = p;
        hi = fmax(hi, est[p].ci_hi);
    }
    if (at < 0)
        return;
    j->verdict = AR_MEASURED;
    take_point(j, at, f[at], &est[at]);
    j->resolution = (ar_resolution){AR_RESOLUTION_MEASURED, NAN, lo, hi, 0};
    snprintf(j->rule, sizeof j->rule,
             "measurement, no verdict: the smallest 95%% CI lower end over %d points (shown) and the largest "
             "upper end bound what the data establish",
             j->points);
}

void ar_judge(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
              int integer_output, const long *line, const double *along, ar_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = AR_NOT_RUN;
    out->point = -1;
    out->prediction = out->estimate = out->ci_lo = out->ci_hi = NAN;
    out->resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0};
    snprintf(out->rule, sizeof out->rule, "no grid point where the claim applies was computed");
    switch (claim->rule) {
    case AR_RULE_UPPER_BOUND:
    case AR_RULE_LOWER_BOUND:
        judge_bound(claim->rule == AR_RULE_UPPER_BOUND ? 1 : -1, n_points, prediction, est, integer_output, out);
        break;
    case AR_RULE_EVERY_TRIAL: judge_every_trial(n_points, prediction, est, out); break;
    case AR_RULE_WITNESS: judge_witness(n_points, prediction, est, out); break;
    case AR_RULE_EQUALS: judge_equals(n_points, prediction, est, claim->rel_tol, integer_output, out); break;
    case AR_RULE_MEASURE: judge_measure(n_points, prediction, est, out); break;
    case AR_RULE_REFERENCE: break;
    case AR_RULE_STEEPER:
        snprintf(out->rule, sizeof out->rule, "a steeper claim is judged on two axes (ar_judge_steeper)");
        break;
    case AR_RULE_LIMIT:
    case AR_RULE_LOG_SLOPE:
    case AR_RULE_DECREASING:
    case AR_RULE_INCREASING:
        if (!line || !along)
            snprintf(out->rule, sizeof out->rule, "a %s claim needs an axis over %s", ar_rule_name(claim->rule),
                     claim->trend_axis);
        else if (claim->rule == AR_RULE_LIMIT || claim->rule == AR_RULE_LOG_SLOPE)
            judge_limit(claim, n_points, prediction, est, integer_output, line, along, out);
        else
            judge_trend(claim, n_points, prediction, est, integer_output, line, along, out);
        break;
    }
    account_failures(claim, n_points, prediction, est, out);
}

/* Failed trials are never averaged; they must not vanish from the verdict either. */
static void account_failures(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
                             ar_judgement *out)
{
    for (long p = 0; p < n_points; ++p) {
        if (!isfinite(prediction[p]))
            continue;
        out->failed += est[p].failed;
        out->empty_points += est[p].count < 2;
    }
    size_t used = strlen(out->rule);
    if (claim->rule == AR_RULE_EVERY_TRIAL && out->failed > 0 && out->verdict == AR_HOLDS) {
        out->verdict = AR_INCONCLUSIVE; /* a failed trial may be the one above the bound */
        snprintf(out->rule + used, sizeof out->rule - used, "; %ld failed trial(s) unseen", out->failed);
    } else if (out->empty_points > 0 && out->verdict == AR_HOLDS) {
        out->verdict = AR_INCONCLUSIVE; /* "at every point" needs data at every point */
        snprintf(out->rule + used, sizeof out->rule - used, "; %ld point(s) without data", out->empty_points);
    }
}

/* Numbers reach the table only where they are finite: a ratio of two zeros, a bound that
 * is not positive or a fit that did not run is said in words, never as nan or inf. */
void ar_resolution_describe(const ar_resolution *r, char *buf, size_t len)
{
    int lo = isfinite(r->lo), hi = isfinite(r->hi), value = isfinite(r->value);
    switch (r->kind) {
    case AR_RESOLUTION_NONE: snprintf(buf, len, "-"); break;
    case AR_RESOLUTION_FACTORS:
        if (!(r->lo <= r->hi))
            snprintf(buf, len, "no prediction would hold");
        else if (!lo || !hi)
            snprintf(buf, len, "no factor resolved");
        else
            snprintf(buf, len, "f %+.3g%% .. %+.3g%% hold", 100 * (r->lo - 1), 100 * (r->hi - 1));
        break;
    case AR_RESOLUTION_TIGHTNESS:
        if (value)
            snprintf(buf, len, "reaches %.4g of the bound", r->value);
        else
            snprintf(buf, len, "no ratio: the bound is not positive");
        break;
    case AR_RESOLUTION_ESTABLISHED:
        if (value)
            snprintf(buf, len, "established to %.4g x f", r->value);
        else
            snprintf(buf, len, "no ratio: the threshold is not positive");
        break;
    case AR_RESOLUTION_EXPONENT:
        if (value && lo && hi)
            snprintf(buf, len, "exponent %.3f [%.3f, %.3f]", r->value, r->lo, r->hi);
        else if (value)
            snprintf(buf, len, "exponent %.3f", r->value);
        else
            snprintf(buf, len, "no exponent fitted");
        break;
    case AR_RESOLUTION_CHANGE:
        if (!lo || !hi)
            snprintf(buf, len, "-");
        else if (value)
            snprintf(buf, len, "%.4g -> %.4g (x %.3g)", r->lo, r->hi, r->value);
        else
            snprintf(buf, len, "%.4g -> %.4g", r->lo, r->hi);
        break;
    case AR_RESOLUTION_MEASURED:
        if (isnan(r->hi) && lo)
            snprintf(buf, len, "established >= %.4g", r->lo);
        else if (lo && hi)
            snprintf(buf, len, "established [%.4g, %.4g]", r->lo, r->hi);
        else
            snprintf(buf, len, "nothing established");
        break;
    case AR_RESOLUTION_EXISTENCE: snprintf(buf, len, "cannot be VIOLATED"); break;
    case AR_RESOLUTION_RATIO:
        if (!lo || !hi)
            snprintf(buf, len, "-");
        else if (value)
            snprintf(buf, len, "changes %.4g vs %.4g (x %.3g)", r->lo, r->hi, r->value);
        else if (r->lo == 0 && r->hi == 0)
            snprintf(buf, len, "changes 0 vs 0 (neither axis changes it)");
        else
            snprintf(buf, len, "changes %.4g vs %.4g (none along the other)", r->lo, r->hi);
        break;
    }
}
