/* theory/verdict: the claim registry and the verdict rules (see theory.h). */
#include "attnrank/theory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const ar_claim ar_claim_h1, ar_claim_h2, ar_claim_h2_hull, ar_claim_h3, ar_claim_h4,
    ar_claim_h5a, ar_claim_h5b;

static const ar_claim *const all_claims[] = {
    &ar_claim_h1, &ar_claim_h2, &ar_claim_h2_hull, &ar_claim_h3,
    &ar_claim_h4, &ar_claim_h5a, &ar_claim_h5b,
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

static void judge_upper_bound(long n, const double *f, const ar_summary *est, ar_judgement *j)
{
    long worst_lo = -1, worst_hi = -1;
    double excess_lo = -INFINITY, excess_hi = -INFINITY;
    for (long p = 0; p < n; ++p) {
        if (!isfinite(f[p]) || est[p].count < 2)
            continue;
        j->points++;
        if (est[p].ci_lo - f[p] > excess_lo)
            excess_lo = est[p].ci_lo - f[p], worst_lo = p;
        if (est[p].ci_hi - f[p] > excess_hi)
            excess_hi = est[p].ci_hi - f[p], worst_hi = p;
    }
    if (j->points == 0)
        return;
    if (excess_lo > 0) {
        j->verdict = AR_VIOLATED;
        take_point(j, worst_lo, f[worst_lo], &est[worst_lo]);
    } else {
        j->verdict = excess_hi <= 0 ? AR_HOLDS : AR_INCONCLUSIVE;
        take_point(j, worst_hi, f[worst_hi], &est[worst_hi]);
    }
    snprintf(j->rule, sizeof j->rule,
             "upper bound: 95%% CI upper end <= prediction at all %d points; "
             "shown: the point closest to (or past) the bound", j->points);
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

void ar_judge(const ar_claim *claim, long n_points, const double *prediction,
              const ar_summary *est, int integer_output, ar_judgement *out)
{
    memset(out, 0, sizeof *out);
    out->verdict = AR_NOT_RUN;
    out->point = -1;
    out->prediction = out->estimate = out->ci_lo = out->ci_hi = NAN;
    snprintf(out->rule, sizeof out->rule, "no grid point where the claim applies was computed");
    if (claim->rule == AR_RULE_UPPER_BOUND)
        judge_upper_bound(n_points, prediction, est, out);
    else if (claim->rule == AR_RULE_EQUALS)
        judge_equals(n_points, prediction, est, claim->rel_tol, integer_output, out);
}
