/* verdict: a claim judged by its rule (theory.h), and resolutions in words. */
#include "rules_parts.h"

#include <gsl/gsl_multifit.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ar_rule_workspace *ar_rule_workspace_new(long points, long line)
{
    ar_rule_workspace *ws = calloc(1, sizeof *ws);
    if (!ws)
        return NULL;
    size_t n = (size_t)(points > 0 ? points : 1), l = line > 0 && line < points ? (size_t)line : n;
    ws->capacity = (long)n;
    ws->line_capacity = (long)l;
    ws->pvalues = malloc(n * sizeof *ws->pvalues);
    ws->moved = malloc(n * sizeof *ws->moved);
    ws->fit_x = malloc(l * sizeof *ws->fit_x);
    ws->fit_y = malloc(l * sizeof *ws->fit_y);
    ws->fit_w = malloc(l * sizeof *ws->fit_w);
    ws->entries = malloc(n * sizeof *ws->entries);
    ws->ranges = malloc(n * sizeof *ws->ranges);
    ws->members = malloc(n * sizeof *ws->members);
    ws->start = malloc((n + 1) * sizeof *ws->start);
    /* a fit has a line's sizes as rows, at least AR_RULE_MAX_COLUMNS + 1 */
    size_t rows = l > AR_RULE_MAX_COLUMNS ? l : AR_RULE_MAX_COLUMNS + 1;
    ws->design = gsl_matrix_alloc(rows, AR_RULE_MAX_COLUMNS);
    ws->cov = gsl_matrix_alloc(AR_RULE_MAX_COLUMNS, AR_RULE_MAX_COLUMNS);
    ws->weights = gsl_vector_alloc(rows);
    ws->values = gsl_vector_alloc(rows);
    ws->coef = gsl_vector_alloc(AR_RULE_MAX_COLUMNS);
    int fits = 1;
    for (int c = 2; c <= AR_RULE_MAX_COLUMNS; ++c)
        fits &= (ws->fit[c] = gsl_multifit_linear_alloc(rows, (size_t)c)) != NULL;
    if (!ws->pvalues || !ws->moved || !ws->fit_x || !ws->fit_y || !ws->fit_w || !ws->entries || !ws->ranges ||
        !ws->members || !ws->start || !ws->design || !ws->cov || !ws->weights || !ws->values || !ws->coef || !fits) {
        ar_rule_workspace_free(ws);
        return NULL;
    }
    return ws;
}

void ar_rule_workspace_free(ar_rule_workspace *ws)
{
    if (!ws)
        return;
    free(ws->pvalues), free(ws->moved), free(ws->fit_x), free(ws->fit_y), free(ws->fit_w);
    free(ws->entries), free(ws->ranges), free(ws->members), free(ws->start);
    if (ws->design)
        gsl_matrix_free(ws->design);
    if (ws->cov)
        gsl_matrix_free(ws->cov);
    if (ws->weights)
        gsl_vector_free(ws->weights);
    if (ws->values)
        gsl_vector_free(ws->values);
    if (ws->coef)
        gsl_vector_free(ws->coef);
    for (int c = 2; c <= AR_RULE_MAX_COLUMNS; ++c)
        if (ws->fit[c])
            gsl_multifit_linear_free(ws->fit[c]);
    free(ws);
}

int ar_rule_judge(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
                  int integer_output, const long *line, const double *along, ar_rule_workspace *ws,
                  ar_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = AR_NOT_RUN;
    out->point = -1;
    out->prediction = out->estimate = out->ci_lo = out->ci_hi = NAN;
    out->resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0};
    snprintf(out->rule, sizeof out->rule, "no grid point where the claim applies was computed");
    if (!ws || ws->capacity < n_points) {
        snprintf(out->rule, sizeof out->rule, "the rules' workspace holds fewer than the claim's %ld points", n_points);
        return -1;
    }
    const ar_rule_info *rule = (unsigned)claim->rule < AR_RULE_COUNT ? &ar_rules[claim->rule] : NULL;
    if (rule && rule->on_lines && (!line || !along))
        snprintf(out->rule, sizeof out->rule, "a %s claim needs an axis over %s", rule->name, claim->trend_axis);
    else if (rule && rule->judge) /* a reference curve has none */
        rule->judge(claim, &(ar_rule_data){n_points, prediction, est, integer_output, line, along}, ws, out);
    ar_rule_account_failures(rule && rule->per_trial, n_points, prediction, est, out);
    return 0;
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
        else if (r->value == INFINITY) /* a positive bound so small the ratio overflows */
            snprintf(buf, len, "reaches more than %.4g of the bound", DBL_MAX);
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
