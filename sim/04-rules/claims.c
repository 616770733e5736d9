/* theory/claims: names of verdicts and rules, expectations, and the check of a claim
 * table against its simulators (the registry, registry.h, runs it on every table). */
#include "attnrank/theory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[] = {"NOT RUN", "HOLDS", "VIOLATED", "INCONCLUSIVE", "MEASURED"};

const char *ar_verdict_name(ar_verdict v)
{
    return verdict_names[v];
}

const char *ar_rule_name(ar_rule rule)
{
    return ar_rules[rule].name;
}

int ar_rule_parse(const char *name, ar_rule *rule)
{
    for (int i = 0; i < AR_RULE_COUNT; ++i)
        if (!strcmp(name, ar_rules[i].name)) {
            *rule = (ar_rule)i;
            return 0;
        }
    return -1;
}

int ar_verdict_parse(const char *name, ar_verdict *v)
{
    for (int i = AR_NOT_RUN; i <= AR_MEASURED; ++i) {
        if (!strcmp(name, verdict_names[i])) {
            *v = (ar_verdict)i;
            return 0;
        }
    }
    return -1;
}

double ar_claim_predict(const ar_claim *claim, const ar_point *point)
{
    if (!claim->conjecture)
        return claim->predict(point);
    if (claim->where_expr && !(ar_expr_eval(claim->where_expr, point) != 0))
        return NAN; /* silent where the condition is false (or undefined) */
    const ar_output *out = &claim->sim->outputs[claim->output];
    if (out->applies && !out->applies(point))
        return NAN; /* and where its output is not measured, as a built-in claim is */
    return claim->prediction_expr ? ar_expr_eval(claim->prediction_expr, point) : 0;
}

ar_verdict ar_claim_default_expectation(const ar_claim *claim)
{
    return ar_rules[claim->rule].measures ? AR_MEASURED : AR_HOLDS;
}

int ar_claims_check(const ar_claim *claims, int count, char *why, size_t why_len)
{
    for (int i = 0; i < count; ++i) {
        const ar_claim *c = &claims[i];
        if (!c->id || !c->sim || !(c->predict || c->conjecture) || !c->statement || !c->formula) {
            snprintf(why, why_len, "claim %d (%s): id, simulator, prediction, statement and formula are required", i,
                     c->id ? c->id : "?");
            return -1;
        }
        if (c->output < 0 || c->output >= c->sim->n_outputs) {
            snprintf(why, why_len, "claim %s: output %d is not one of %s's %d outputs", c->id, c->output,
                     c->sim->name, c->sim->n_outputs);
            return -1;
        }
        int steeper = ar_rules[c->rule].needs_versus;
        int versus_ok = !steeper || (c->versus_axis && ar_sim_param_index(c->sim, c->versus_axis) >= 0 && c->trend_axis &&
                                     strcmp(c->versus_axis, c->trend_axis) != 0);
        if (steeper != (c->versus_axis != NULL) || !versus_ok) {
            snprintf(why, why_len, "claim %s: %s", c->id,
                     steeper ? "steeper needs a versus axis, a parameter other than its trend axis"
                             : "only a steeper claim has a versus axis");
            return -1;
        }
        int trend = ar_rules[c->rule].needs_axis;
        if (trend != (c->trend_axis != NULL) || (trend && ar_sim_param_index(c->sim, c->trend_axis) < 0)) {
            snprintf(why, why_len, "claim %s: %s needs %s", c->id, ar_rule_name(c->rule),
                     trend ? "a trend axis that is a parameter of its simulator" : "no trend axis");
            return -1;
        }
        for (int k = 0; k < i; ++k)
            if (!strcmp(claims[k].id, c->id)) {
                snprintf(why, why_len, "claim %s is listed twice", c->id);
                return -1;
            }
    }
    return 0;
}
