/* rule_limits: limits and log slopes, judged on the constant a finite-size model
 * extrapolates along the claim's axis; a stated rate refuted by a free one. */
#include "rules_parts.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(n) = c + a n^-b on one line (a limit: c judged), or X(n) = c + beta ln n + a n^-b
 * (a log slope: beta judged), by weighted least squares at each b of the claim's range;
 * the judged coefficient's interval is the profile over the others and b at the levels
 * asked for (two-sided normal quantiles z), widened when the best fit's reduced
 * chi-square exceeds one (the quantile then from F(1, dof), since the scale is
 * estimated). The extrapolation is refused when the model itself fails: the best fit's
 * chi-square is improbable (p < AR_RULE_GOODNESS), or, with b profiled, b's 95% region reaches
 * an end of the range, where a slower or faster correction than the range allows would
 * fit as well. */

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

static double correction_exponent(const ar_claim *claim, int end)
{
    if (!claim->rate_lo && !claim->rate_hi)
        return end ? RATE_RANGE_HI : RATE_RANGE_LO;
    return end ? claim->rate_hi : claim->rate_lo;
}

static int extrapolate(const ar_claim *claim, const ar_summary *est, const double *along, const long *members,
                       int k, int integer_output, double z_wide, ar_rule_workspace *ws, extrapolation *x)
{
    double b_lo = correction_exponent(claim, 0), b_hi = correction_exponent(claim, 1);
    int steps = b_hi > b_lo ? 176 : 1, free_rate = steps > 1;
    int slope = claim->rule == AR_RULE_LOG_SLOPE, judged = slope ? 1 : 0;
    int columns = (slope ? 3 : 2) + (claim->second_order != 0);
    x->sizes = k;
    x->dof = k - columns - free_rate;
    x->refused = AR_UNDECIDED_NONE;
    /* (a line longer than the workspace's cannot come from a grid it was made for) */
    if (x->dof < 1 || k > ws->line_capacity)
        return -1;
    for (int i = 0; i < k; ++i)
        if (!(along[members[i]] > 0)) { /* the model is undefined there: nothing to fit */
            x->refused = AR_UNDECIDED_AXIS_NOT_POSITIVE;
            return 0;
        }
    /* Weights 1/se^2 from a few trials are noisy and, for discrete outputs, correlated
     * with the means (equal draws give a small se): the fit is then biased, and a true
     * limit came out VIOLATED at 2-10 trials a point. Below AR_RULE_FIT_TRIALS a point the line's
     * pooled variance weights every point instead (its own count still counts). */
    int few = 0;
    double pooled = 0, dof = 0;
    for (int i = 0; i < k; ++i) {
        const ar_summary *s = &est[members[i]];
        few |= s->count < AR_RULE_FIT_TRIALS;
        if (s->count >= 2 && isfinite(s->sem)) /* a point's variance: count x sem^2 (= std^2) */
            pooled += (double)(s->count - 1) * (double)s->count * s->sem * s->sem, dof += (double)(s->count - 1);
    }
    pooled = dof > 0 ? pooled / dof : 0;
    double cs[steps], vars[steps], chi2s[steps];
    /* the fit's pieces: views of the workspace's, k sizes by the model's columns */
    size_t rows = (size_t)k, cols = (size_t)columns;
    gsl_matrix_view design_view = gsl_matrix_submatrix(ws->design, 0, 0, rows, cols);
    gsl_matrix_view cov_view = gsl_matrix_submatrix(ws->cov, 0, 0, cols, cols);
    gsl_vector_view weights_view = gsl_vector_subvector(ws->weights, 0, rows);
    gsl_vector_view values_view = gsl_vector_subvector(ws->values, 0, rows);
    gsl_vector_view coef_view = gsl_vector_subvector(ws->coef, 0, cols);
    gsl_matrix *design = &design_view.matrix, *cov = &cov_view.matrix;
    gsl_vector *weights = &weights_view.vector, *ys = &values_view.vector, *coef = &coef_view.vector;
    for (int i = 0; i < k; ++i) {
        const ar_summary *s = &est[members[i]];
        double se = ar_rule_decision_se(s, integer_output);
        if (few) {
            se = sqrt(pooled / (double)s->count);
            if (integer_output && se < 1.0 / (double)s->count)
                se = 1.0 / (double)s->count;
        }
        if (!(se > 0)) /* a constant real output: trust it to round-off */
            se = 1e-15 * fmax(fabs(s->mean), 1e-300);
        gsl_vector_set(ys, (size_t)i, s->mean);
        gsl_vector_set(weights, (size_t)i, 1 / (se * se));
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
        gsl_multifit_wlinear(design, weights, ys, coef, cov, &chi2s[t], ws->fit[columns]);
        cs[t] = gsl_vector_get(coef, (size_t)judged);
        vars[t] = gsl_matrix_get(cov, (size_t)judged, (size_t)judged);
        if (chi2s[t] < best)
            best = chi2s[t], x->c = cs[t], x->b = b;
    }
    x->chi2 = best;
    if (!(best < INFINITY) || gsl_cdf_chisq_Q(best, x->dof) < AR_RULE_GOODNESS) /* a NaN fit is no fit */
        x->refused = AR_UNDECIDED_MISFIT;
    /* Levels as Delta chi-square: z^2 with trusted errors, F(1, dof) when rescaled. */
    double scatter = best / x->dof > 1 ? best / x->dof : 1, alphas[2] = {AR_RULE_ALPHA, 2 * gsl_cdf_ugaussian_Q(z_wide)};
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
                        const long *line, const double *along, ar_rule_workspace *ws, ar_judgement *j)
{
    static const int severity[] = {[AR_NOT_RUN] = 0, [AR_HOLDS] = 1, [AR_INCONCLUSIVE] = 2, [AR_VIOLATED] = 3};
    ar_line_groups groups;
    ar_lines_group(n, f, est, line, along, 2, ws, &groups);
    int lines = groups.count, undecided = 0;
    double z = ar_normal_quantile(1 - AR_RULE_ALPHA / (2.0 * (lines > 0 ? lines : 1)));
    /* The stated rate is tested at half that level: with the constant's test (whose band
     * makes a true claim's false VIOLATED far rarer than its level) the claim's family-wise
     * level stays near AR_RULE_ALPHA. */
    double z_rate = ar_normal_quantile(1 - AR_RULE_ALPHA / (4.0 * (lines > 0 ? lines : 1)));
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
         * inside the range) and lies beyond AR_RULE_RATE_TOL of the stated one at the corrected level: a wrong
         * rate alone only made the fixed-rate fit misfit, which was INCONCLUSIVE. Both
         * are asked for: a free rate alone moves off the stated one wherever the next
         * order still shows at the smallest sizes (H2lim at d_h = 1, 2 at 10 trials a
         * point: 3 of 40 true runs refuted). */
        extrapolation free_fit = {0}, stated = {0};
        int refutes_rate = 0;
        if (constant && ar_rule_states_rate(claim) &&
            extrapolate(claim, est, along, members, k, integer_output, z, ws, &stated) == 0 &&
            stated.refused == AR_UNDECIDED_MISFIT) {
            ar_claim free_rate = *claim;
            free_rate.rate_lo = RATE_RANGE_LO, free_rate.rate_hi = RATE_RANGE_HI;
            refutes_rate = extrapolate(&free_rate, est, along, members, k, integer_output, z_rate, ws, &free_fit) == 0 &&
                           !free_fit.refused && free_fit.b_lo_wide <= free_fit.b_hi_wide &&
                           (free_fit.b_lo_wide > claim->rate_lo * (1 + AR_RULE_RATE_TOL) ||
                            free_fit.b_hi_wide < claim->rate_lo * (1 - AR_RULE_RATE_TOL));
        }
        if (refutes_rate) {
            x = free_fit, v = AR_VIOLATED, rate_refused++;
            badness = fabs(free_fit.b - claim->rate_lo) / fmax(free_fit.b_hi_wide - free_fit.b_lo_wide, 1e-12);
        } else if (!constant) {
            why = AR_UNDECIDED_VARYING_PREDICTION;
        } else if (extrapolate(claim, est, along, members, k, integer_output, z, ws, &x) < 0) {
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
            ar_rule_take_point(j, top, target, &est[top]);
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

/* ---- the rows (rule_table.c): a limit and a log slope, the same fit ------------------ */

AR_RULE_JUDGE(ar_rule_limit_judge)
{
    judge_limit(claim, d->n, d->prediction, d->est, d->integer_output, d->line, d->along, ws, out);
}

AR_RULE_STATE(ar_rule_limit_state)
{
    snprintf(buf, len, "E[%s] -> %s as %s grows (within %g)", output, f, claim->trend_axis, claim->rel_tol);
}

AR_RULE_JUDGE(ar_rule_log_slope_judge)
{
    judge_limit(claim, d->n, d->prediction, d->est, d->integer_output, d->line, d->along, ws, out);
}

AR_RULE_STATE(ar_rule_log_slope_state)
{
    snprintf(buf, len, "E[%s] has slope %s in ln %s (within %g)", output, f, claim->trend_axis, claim->rel_tol);
}

/* The sizes a line needs to be fitted: a constant, a correction (and the next order's), a
 * free rate, and a degree of freedom left. */
int ar_rule_limit_sizes(const ar_claim *claim)
{
    int free_rate = (!claim->rate_lo && !claim->rate_hi) || claim->rate_hi > claim->rate_lo;
    return 3 + (claim->second_order != 0) + free_rate;
}
