/* spec_attacks: an experiment's `attacks` list (attack.h): the claim, the search space,
 * the budget, each checked where it is written; their canonical form; and what an
 * attack record's rows mean (a row's point, the objective, the confirmation's choice),
 * shared by the search that writes them and the readers that check them. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_parts.h"

enum {
    DEFAULT_FIRST_TRIALS = 8,
    DEFAULT_CONFIRM = 4,
    /* the least search worth the name: this many candidates at their first trials */
    MIN_SEARCH_CANDIDATES = 32,
};

static const char FIELDS[] = "id, claim, space, budget, first_trials, confirm, confirm_trials, max_seconds, strategy";

int ar_attack_line_points(const ar_spec *spec, const ar_attack *a)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    if (!ar_rules[claim->rule].attack_line)
        return 1;
    int axis = ar_experiment_axis_of(x, ar_sim_param_index(x->sim, claim->trend_axis));
    return axis < 0 ? 1 : x->axes[axis].count;
}

void ar_attack_describe_row(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, long row_index,
                            char *buf, size_t len)
{
    snprintf(buf, len, "-");
    if (row_index < 0 || row_index >= r->n_confirmations)
        return;
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    const double *row = r->confirmations + (size_t)row_index * r->columns_confirmation;
    ar_point p = x->base;
    int which[AR_MAX_PARAMS + 1], n = 0;
    for (int i = 0; i < a->n_dims; ++i)
        p.value[which[n++] = a->dims[i].param] = row[AR_ATTACK_CONFIRMATION_FIXED + i];
    if (ar_rules[claim->rule].attack_line && isfinite(row[2])) /* the size on the claim's line */
        p.value[which[n++] = ar_sim_param_index(x->sim, claim->trend_axis)] = row[2];
    ar_point_describe(&p, which, n, buf, len);
}

double ar_attack_objective(const ar_claim *claim, double prediction, double mean, double max)
{
    const ar_rule_info *rule = &ar_rules[claim->rule];
    return rule->objective ? rule->objective(prediction, mean, max) : NAN; /* read_attack refuses a rule without */
}

/* Evaluation rows by candidate, then by order. */
static int by_candidate(const void *pa, const void *pb, void *arg)
{
    const ar_attack_record *r = arg;
    long a = *(const long *)pa, b = *(const long *)pb;
    double ca = r->evaluations[(size_t)a * r->columns_evaluation + AR_EV_CANDIDATE];
    double cb = r->evaluations[(size_t)b * r->columns_evaluation + AR_EV_CANDIDATE];
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return (a > b) - (a < b);
}

typedef struct {
    double score, candidate;
} scored;

static int by_score(const void *pa, const void *pb)
{
    const scored *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    return (a->candidate > b->candidate) - (a->candidate < b->candidate);
}

int ar_attack_choose(const ar_attack *a, const ar_claim *claim, const ar_attack_record *r, long *chosen)
{
    long n = r->n_evaluations, kept = 0;
    long *rows = malloc((size_t)(n ? n : 1) * sizeof *rows);
    scored *best = malloc((size_t)(n ? n : 1) * sizeof *best);
    if (!rows || !best) {
        free(rows);
        free(best);
        return -1;
    }
    for (long i = 0; i < n; ++i)
        rows[i] = i;
    qsort_r(rows, (size_t)n, sizeof *rows, by_candidate, (void *)r);
    for (long i = 0; i < n; ++i) {
        const double *row = r->evaluations + (size_t)rows[i] * r->columns_evaluation;
        if (i + 1 < n && r->evaluations[(size_t)rows[i + 1] * r->columns_evaluation + AR_EV_CANDIDATE] == row[AR_EV_CANDIDATE])
            continue; /* not the candidate's last evaluation */
        double objective = row[AR_EV_OBJECTIVE], prediction = row[AR_EV_PREDICTION], sem = row[AR_EV_STDERR];
        if (!(row[AR_EV_TRIALS] - row[AR_EV_FAILED] >= 2) || isnan(objective))
            continue; /* no objective yet; an infinite one (|f| tiny) is the worst or best there is */
        double scale = prediction != 0 ? fabs(prediction) : 1;
        double penalty = ar_rules[claim->rule].objective_of_max || isinf(objective) ? 0 : sem / scale;
        best[kept++] = (scored){objective - penalty, row[AR_EV_CANDIDATE]};
    }
    qsort(best, (size_t)kept, sizeof *best, by_score);
    int count = 0;
    for (; count < a->confirm && count < kept; ++count)
        chosen[count] = (long)best[count].candidate;
    free(rows);
    free(best);
    return count;
}

long ar_attack_confirmation_trials(const ar_attack *a, int line_points)
{
    return (long)a->confirm * line_points * a->confirm_trials;
}

void ar_attack_search_end(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, char *text, size_t len)
{
    long limit = a->budget - ar_attack_confirmation_trials(a, ar_attack_line_points(spec, a));
    if (r->stopped_early)
        snprintf(text, len, "stopped early by max_seconds: not reproducible");
    else if (a->random_search && limit - r->search_trials >= AR_ATTACK_RANDOM_FACTOR * a->first_trials)
        snprintf(text, len, "%ld of its %ld search trials unspent: stopped by max_seconds (then not reproducible) or "
                 "by a space with no new point where the claim speaks", limit - r->search_trials, limit);
    else
        text[0] = 0;
}

static int read_long(const ar_spec_context *c, const config_setting_t *s, const char *at, const char *field,
                     long lo, long hi, long *out)
{
    int t = config_setting_type(s);
    if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
        return ar_spec_fail(c->err, at, field, "must be an integer, not %s", ar_spec_type_name(t));
    long long v = config_setting_get_int64(s);
    if (v < lo || v > hi)
        return ar_spec_fail(c->err, at, field, "%lld is out of range [%ld, %ld]", v, lo, hi);
    *out = (long)v;
    return 0;
}

/* A set: two or more distinct values of the parameter. */
static int read_set(const ar_spec_context *c, const ar_param *p, const config_setting_t *s, const char *at,
                    ar_attack_dim *d)
{
    int n = config_setting_length(s);
    if (n < 2)
        return ar_spec_fail(c->err, at, p->name, "a set of %d value%s: an attack needs two or more to choose from "
                            "(fix the parameter in the experiment instead)", n, n == 1 ? "" : "s");
    if (n > AR_ATTACK_MAX_SET)
        return ar_spec_fail(c->err, at, p->name, "a set of %d values; at most %d", n, AR_ATTACK_MAX_SET);
    d->is_set = 1;
    d->n_values = n;
    for (int i = 0; i < n; ++i) {
        if (ar_spec_read_param_value(c, p, config_setting_get_elem(s, (unsigned)i), at, &d->values[i]))
            return -1;
        for (int k = 0; k < i; ++k)
            if (d->values[k] == d->values[i])
                return ar_spec_fail(c->err, at, p->name, "value %d repeats value %d", i + 1, k + 1);
    }
    return 0;
}

/* A range: { range = [lo, hi]; scale = "linear" | "log"; }. */
static int read_range(const ar_spec_context *c, const ar_param *p, const config_setting_t *g, const char *at,
                      ar_attack_dim *d)
{
    if (p->type == AR_PARAM_CHOICE)
        return ar_spec_fail(c->err, at, p->name, "is a choice: give a set of its values, [\"%s\", \"%s\", ...], "
                            "not a range", p->choices[0], p->choices[1] ? p->choices[1] : "...");
    const config_setting_t *range = NULL;
    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        char here[128];
        ar_spec_where(c, s, here, sizeof here);
        if (strcmp(key, "range") == 0) {
            range = s;
        } else if (strcmp(key, "scale") == 0) {
            const char *scale = config_setting_type(s) == CONFIG_TYPE_STRING ? config_setting_get_string(s) : NULL;
            if (!scale || (strcmp(scale, "linear") != 0 && strcmp(scale, "log") != 0))
                return ar_spec_fail(c->err, here, "scale", "must be \"linear\" or \"log\"");
            d->log_scale = strcmp(scale, "log") == 0;
        } else {
            return ar_spec_fail(c->err, here, p->name, "unknown field '%s' of a range (range, scale)", key);
        }
    }
    int type = range ? config_setting_type(range) : CONFIG_TYPE_NONE;
    if (!range || (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST) || config_setting_length(range) != 2)
        return ar_spec_fail(c->err, at, p->name, "a range needs range = [lo, hi]");
    if (ar_spec_read_param_value(c, p, config_setting_get_elem(range, 0), at, &d->lo) ||
        ar_spec_read_param_value(c, p, config_setting_get_elem(range, 1), at, &d->hi))
        return -1;
    if (!(d->lo < d->hi))
        return ar_spec_fail(c->err, at, p->name, "the range [%g, %g] is empty: lo must be below hi", d->lo, d->hi);
    if (d->log_scale && d->lo <= 0)
        return ar_spec_fail(c->err, at, p->name, "a log scale needs lo > 0, not %g", d->lo);
    return 0;
}

static int read_space(const ar_spec_context *c, const ar_experiment *x, const ar_claim *claim,
                      const config_setting_t *g, ar_attack *a)
{
    char at[128];
    ar_spec_where(c, g, at, sizeof at);
    if (!config_setting_is_group(g))
        return ar_spec_fail(c->err, at, "space", "must be a group { PARAM = { range = [lo, hi]; }; PARAM = [a, b]; }");
    if (config_setting_length(g) == 0)
        return ar_spec_fail(c->err, at, "space", "is empty: name the parameters to search");
    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        ar_spec_where(c, s, at, sizeof at);
        int param = ar_sim_param_index(x->sim, key);
        if (param < 0)
            return ar_spec_fail(c->err, at, key, "unknown parameter of simulator %s; `attnrank list` shows them",
                                x->sim->name);
        if (ar_rules[claim->rule].attack_line && strcmp(key, claim->trend_axis) == 0)
            return ar_spec_fail(c->err, at, key, "is %s's axis: the confirmation runs the experiment's whole line "
                                "of it; search the other parameters", claim->id);
        ar_attack_dim *d = &a->dims[a->n_dims++];
        memset(d, 0, sizeof *d);
        d->param = param;
        snprintf(d->where, sizeof d->where, "%s", at);
        int type = config_setting_type(s);
        if (type == CONFIG_TYPE_GROUP) {
            if (read_range(c, &x->sim->params[param], s, at, d))
                return -1;
        } else if (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) {
            if (read_set(c, &x->sim->params[param], s, at, d))
                return -1;
        } else {
            return ar_spec_fail(c->err, at, key, "must be a range { range = [lo, hi]; } or a set [a, b, ...], not %s "
                                "(a fixed value belongs in the experiment)", ar_spec_type_name(type));
        }
    }
    /* The experiment's other axes: every candidate is one point, so each is searched or fixed. */
    for (int k = 0; k < x->n_axes; ++k) {
        const char *name = x->sim->params[x->axes[k].param].name;
        int searched = 0;
        for (int i = 0; i < a->n_dims; ++i)
            searched |= a->dims[i].param == x->axes[k].param;
        if (!searched && !(ar_rules[claim->rule].attack_line && strcmp(name, claim->trend_axis) == 0))
            return ar_spec_fail(c->err, a->where, "space", "experiment %s sweeps %s: give it a range or a set in the "
                                "attack's space, or fix it in the experiment", x->name, name);
    }
    return 0;
}

static int read_attack(const ar_spec_context *c, ar_spec *spec, int e, const config_setting_t *g, ar_attack *a)
{
    const ar_experiment *x = &spec->experiments[e];
    char at[128];
    ar_spec_where(c, g, at, sizeof at);
    snprintf(a->where, sizeof a->where, "%s", at);
    a->experiment = e;
    a->claim = -1;
    if (!config_setting_is_group(g))
        return ar_spec_fail(c->err, at, "attacks", "each attack must be a group { id = ...; claim = ...; ... }, not %s",
                            ar_spec_type_name(config_setting_type(g)));
    const char *id = NULL, *claim_id = NULL;
    const config_setting_t *space = NULL, *budget = NULL;
    a->first_trials = DEFAULT_FIRST_TRIALS;
    a->confirm = DEFAULT_CONFIRM;
    a->confirm_trials = x->trials;
    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        char here[128];
        ar_spec_where(c, s, here, sizeof here);
        long v = 0;
        if (strcmp(key, "id") == 0 || strcmp(key, "claim") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_STRING)
                return ar_spec_fail(c->err, here, key, "must be a string");
            *(strcmp(key, "id") == 0 ? &id : &claim_id) = config_setting_get_string(s);
        } else if (strcmp(key, "space") == 0) {
            space = s;
        } else if (strcmp(key, "budget") == 0) {
            budget = s;
        } else if (strcmp(key, "first_trials") == 0) {
            if (read_long(c, s, here, key, 2, 1000000, &a->first_trials))
                return -1;
        } else if (strcmp(key, "confirm") == 0) {
            if (read_long(c, s, here, key, 1, AR_ATTACK_MAX_CONFIRM, &v))
                return -1;
            a->confirm = (int)v;
        } else if (strcmp(key, "confirm_trials") == 0) {
            if (read_long(c, s, here, key, 2, 1000000000L, &a->confirm_trials))
                return -1;
        } else if (strcmp(key, "strategy") == 0) {
            const char *v = config_setting_type(s) == CONFIG_TYPE_STRING ? config_setting_get_string(s) : "";
            if (strcmp(v, "adaptive") != 0 && strcmp(v, "random") != 0)
                return ar_spec_fail(c->err, here, key, "must be \"adaptive\" or \"random\"");
            a->random_search = strcmp(v, "random") == 0;
        } else if (strcmp(key, "max_seconds") == 0) {
            a->max_seconds = ar_spec_is_number(s) ? ar_spec_number(s) : -1;
            if (!(a->max_seconds >= 0) || !isfinite(a->max_seconds))
                return ar_spec_fail(c->err, here, key, "must be a number of seconds >= 0 (0: no cap)");
        } else {
            return ar_spec_fail(c->err, here, "attacks", "unknown field '%s' (%s)", key, FIELDS);
        }
    }
    if (!id)
        return ar_spec_fail(c->err, at, "id", "missing: every attack needs an id");
    if (!isalpha((unsigned char)id[0]) || !ar_spec_valid_name(id) || strlen(id) > 15)
        return ar_spec_fail(c->err, at, "id", "'%s' must be 1-15 letters, digits, '_' or '-', starting with a letter", id);
    for (int k = 0; k < spec->n_attacks; ++k)
        if (spec->attacks[k].id && strcmp(spec->attacks[k].id, id) == 0)
            return ar_spec_fail(c->err, at, "id", "attack '%s' is defined twice (first at %s)", id,
                                spec->attacks[k].where);
    if (!claim_id)
        return ar_spec_fail(c->err, at, "claim", "missing: which of the experiment's claims or conjectures to attack");
    for (int k = 0; k < x->n_claims; ++k)
        if (strcmp(x->claims[k]->id, claim_id) == 0)
            a->claim = k;
    if (a->claim < 0)
        return ar_spec_fail(c->err, at, "claim", "%s is not among the claims experiment %s checks (list it in its "
                            "claims, or state it as a conjecture)", claim_id, x->name);
    const ar_claim *claim = x->claims[a->claim];
    if (!ar_rules[claim->rule].objective)
        return ar_spec_fail(c->err, at, "claim", "%s's rule is %s: attacks search bounds, equalities, every-trial "
                            "bounds and limits", claim->id, ar_rules[claim->rule].name);
    if (ar_rules[claim->rule].attack_line) { /* a limit: its fit's sizes on the experiment's line */
        int sizes = ar_rules[claim->rule].attack_line(claim);
        int axis = ar_experiment_axis_of(x, ar_sim_param_index(x->sim, claim->trend_axis));
        if (axis < 0 || x->axes[axis].count < sizes)
            return ar_spec_fail(c->err, at, "claim", "%s is a %s along %s: experiment %s must sweep %s (%d or more "
                                "sizes, what its fit needs), the line each candidate is confirmed on", claim->id,
                                ar_rules[claim->rule].name, claim->trend_axis, x->name, claim->trend_axis, sizes);
    }
    if (!space)
        return ar_spec_fail(c->err, at, "space", "missing: the parameters to search, with their ranges or sets");
    /* the id is kept first, so that the refusals below can already name the attack */
    a->id = strdup(id);
    if (!a->id)
        return ar_spec_fail(c->err, at, "id", "out of memory");
    if (read_space(c, x, claim, space, a))
        return -1;
    if (!budget)
        return ar_spec_fail(c->err, at, "budget", "missing: the trials the attack may spend, search and confirmation");
    ar_spec_where(c, budget, at, sizeof at);
    if (read_long(c, budget, at, "budget", 1, 100000000000L, &a->budget))
        return -1;
    int line = ar_attack_line_points(spec, a);
    long confirmation = ar_attack_confirmation_trials(a, line);
    long least = confirmation + MIN_SEARCH_CANDIDATES * a->first_trials;
    if (a->budget < least)
        return ar_spec_fail(c->err, at, "budget", "%ld trials are too few: the confirmation takes %ld (%d candidate%s "
                            "x %d point%s x %ld trials) and a search at least %ld (%d candidates x %ld first trials)",
                            a->budget, confirmation, a->confirm, a->confirm == 1 ? "" : "s", line, line == 1 ? "" : "s",
                            a->confirm_trials, (long)MIN_SEARCH_CANDIDATES * a->first_trials, MIN_SEARCH_CANDIDATES,
                            a->first_trials);
    return 0;
}

int ar_spec_read_attacks(const ar_spec_context *c, ar_spec *spec, int e, const config_setting_t *list)
{
    char at[128];
    ar_spec_where(c, list, at, sizeof at);
    int type = config_setting_type(list);
    if (type != CONFIG_TYPE_LIST && !(type == CONFIG_TYPE_ARRAY && config_setting_length(list) == 0))
        return ar_spec_fail(c->err, at, "attacks", "must be a list ( { ... }, ... ) of groups, not %s",
                            ar_spec_type_name(type));
    int n = config_setting_length(list);
    ar_attack *grown = realloc(spec->attacks, (size_t)(spec->n_attacks + n + 1) * sizeof *grown);
    if (!grown)
        return ar_spec_fail(c->err, at, "attacks", "out of memory");
    spec->attacks = grown;
    for (int i = 0; i < n; ++i) {
        ar_attack *a = &spec->attacks[spec->n_attacks];
        memset(a, 0, sizeof *a);
        int status = read_attack(c, spec, e, config_setting_get_elem(list, (unsigned)i), a);
        spec->n_attacks++; /* counted even when refused, so that its id is freed */
        if (status)
            return -1;
    }
    return 0;
}

void ar_spec_write_attacks(FILE *f, const ar_spec *spec, int e)
{
    int written = 0;
    for (int k = 0; k < spec->n_attacks; ++k) {
        const ar_attack *a = &spec->attacks[k];
        if (a->experiment != e)
            continue;
        const ar_experiment *x = &spec->experiments[e];
        fprintf(f, "%s      { id = \"%s\"; claim = \"%s\"; budget = %ldL; first_trials = %ld; confirm = %d; "
                "confirm_trials = %ld; max_seconds = %.17g; strategy = \"%s\";\n        space = {",
                written++ ? ",\n" : "    attacks = (\n", a->id, x->claims[a->claim]->id, a->budget, a->first_trials,
                a->confirm, a->confirm_trials, a->max_seconds, a->random_search ? "random" : "adaptive");
        for (int i = 0; i < a->n_dims; ++i) {
            const ar_attack_dim *d = &a->dims[i];
            const ar_param *p = &x->sim->params[d->param];
            fprintf(f, " %s = ", p->name);
            if (d->is_set) {
                fputc('(', f);
                for (int v = 0; v < d->n_values; ++v) {
                    fputs(v ? ", " : "", f);
                    ar_spec_write_value(f, p, d->values[v]);
                }
                fputs(");", f);
            } else {
                fputs("{ range = (", f);
                ar_spec_write_value(f, p, d->lo);
                fputs(", ", f);
                ar_spec_write_value(f, p, d->hi);
                fprintf(f, "); scale = \"%s\"; };", d->log_scale ? "log" : "linear");
            }
        }
        fputs(" }; }", f);
    }
    if (written)
        fputs("\n    );\n", f);
}
