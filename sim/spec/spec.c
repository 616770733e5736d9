/* spec: libconfig run specs, --set overrides, validation, grid expansion. */
#define _GNU_SOURCE
#include "attnrank/spec.h"

#include <ctype.h>
#include <errno.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "attnrank/conjecture.h"
#include "spec_source.h"

enum { MAX_GRID_POINTS = 10000000 };
static const long MAX_TRIALS = 1000000000L;

/* Settings made by --set carry a hook: the override's text, for messages, and the
 * position of the setting it replaced, so overriding an axis keeps the axis order. */
typedef struct {
    const char *origin;
    int position;
} override_hook;

typedef struct {
    override_hook **items;
    int count, capacity;
} hook_list;

/* NULL when out of memory (the list is left as it was). */
static override_hook *new_hook(hook_list *list, const char *origin, int position)
{
    if (list->count == list->capacity) {
        int capacity = list->capacity ? 2 * list->capacity : 8;
        override_hook **items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (!items)
            return NULL;
        list->items = items;
        list->capacity = capacity;
    }
    override_hook *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    h->origin = origin;
    h->position = position;
    return list->items[list->count++] = h;
}

/* Hangs a new hook on a setting; -1 when out of memory. */
static int set_hook(config_setting_t *s, hook_list *hooks, const char *origin, int position)
{
    override_hook *h = new_hook(hooks, origin, position);
    if (!h)
        return -1;
    config_setting_set_hook(s, h);
    return 0;
}

static void free_hooks(hook_list *list)
{
    for (int i = 0; i < list->count; ++i)
        free(list->items[i]);
    free(list->items);
}

/* Position of a setting in its group, as the file had it (see stamp_positions). */
static int position_of(const config_setting_t *s)
{
    const override_hook *h = config_setting_get_hook(s);
    return h ? h->position : config_setting_index(s);
}

/* Record every experiment field's place before overrides remove and re-add fields. */
static int stamp_positions(config_t *cfg, hook_list *hooks)
{
    config_setting_t *experiments = config_setting_get_member(config_root_setting(cfg), "experiments");
    for (int e = 0; experiments && e < config_setting_length(experiments); ++e) {
        config_setting_t *g = config_setting_get_elem(experiments, (unsigned)e);
        for (int i = 0; config_setting_is_group(g) && i < config_setting_length(g); ++i)
            if (set_hook(config_setting_get_elem(g, (unsigned)i), hooks, NULL, i))
                return -1;
    }
    return 0;
}

typedef struct {
    const char *label;
    const ar_spec_source *src; /* the text libconfig read, and where its lines came from */
    char *err;
} context;

/* "file:line" of a setting, or "--set TEXT" for one made by an override. */
static void where(const context *c, const config_setting_t *s, char *buf, size_t len)
{
    for (const config_setting_t *t = s; t; t = config_setting_parent(t)) {
        const override_hook *h = config_setting_get_hook(t);
        if (h && h->origin) {
            snprintf(buf, len, "--set %s", h->origin);
            return;
        }
    }
    ar_spec_source_locate(c->src, (int)config_setting_source_line(s), buf, len);
}

static int fail(char *err, const char *at, const char *field, const char *fmt, ...)
{
    char msg[AR_ERR_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ar_message(err, AR_ERR_LEN, at, field, msg);
    return -1;
}

/* spec_source's refusal, at its place. */
static int fail_source(char *err, const ar_spec_source *src)
{
    return fail(err, src->error_at, src->error_field[0] ? src->error_field : NULL, "%s", src->error);
}

static const char *type_name(int type)
{
    switch (type) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_ARRAY: return "an array";
    case CONFIG_TYPE_LIST: return "a list";
    case CONFIG_TYPE_GROUP: return "a group";
    default: return "an unknown type";
    }
}

static int is_number(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

static double number_of(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return (double)config_setting_get_int64(s);
}

/* ---- overrides --------------------------------------------------------------- */

/* -1 when libconfig cannot add the setting (out of memory). */
static int copy_setting(config_setting_t *parent, const char *name, const config_setting_t *src)
{
    int type = config_setting_type(src);
    config_setting_t *dst = config_setting_add(parent, name, type);
    if (!dst)
        return -1;
    int ok = 1;
    switch (type) {
    case CONFIG_TYPE_INT: ok = config_setting_set_int(dst, config_setting_get_int(src)); break;
    case CONFIG_TYPE_INT64: ok = config_setting_set_int64(dst, config_setting_get_int64(src)); break;
    case CONFIG_TYPE_FLOAT: ok = config_setting_set_float(dst, config_setting_get_float(src)); break;
    case CONFIG_TYPE_STRING: ok = config_setting_set_string(dst, config_setting_get_string(src)); break;
    case CONFIG_TYPE_BOOL: ok = config_setting_set_bool(dst, config_setting_get_bool(src)); break;
    default:
        for (int i = 0; ok && i < config_setting_length(src); ++i) {
            const config_setting_t *e = config_setting_get_elem(src, (unsigned)i);
            ok = copy_setting(dst, type == CONFIG_TYPE_GROUP ? config_setting_name(e) : NULL, e) == 0;
        }
    }
    return ok ? 0 : -1;
}

static int replace_setting(config_setting_t *group, const char *name, const config_setting_t *value,
                           const char *origin, hook_list *hooks)
{
    /* New fields go last; a replaced one keeps its place (libconfig appends). */
    int position = 1 << 20;
    config_setting_t *old = config_setting_get_member(group, name);
    if (old) {
        position = position_of(old);
        config_setting_remove(group, name);
    }
    if (copy_setting(group, name, value))
        return -1;
    return set_hook(config_setting_get_member(group, name), hooks, origin, position);
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
            return 0;
    return 1;
}

/* A field name libconfig can hold: a letter first (it refuses to add others). */
static int valid_field_name(const char *s)
{
    return isalpha((unsigned char)*s) && valid_name(s);
}

/* The value of `--set text` (key=value), read by libconfig as the setting v; NULL with err set. */
static config_setting_t *read_override_value(config_t *parsed, const char *text, const char *key, const char *value,
                                             char *err)
{
    /* One assignment per --set: a single trailing ';' is harmless, more is refused. */
    size_t len = strlen(value);
    while (len && isspace((unsigned char)value[len - 1]))
        len--;
    if (len && value[len - 1] == ';')
        len--;
    char *wrapped, at[320];
    if (asprintf(&wrapped, "v = %.*s;", (int)len, value) < 0) {
        fail(err, "--set", NULL, "out of memory");
        return NULL;
    }
    snprintf(at, sizeof at, "--set %s", text);
    ar_spec_source src;
    config_setting_t *v = NULL;
    if (ar_spec_source_read(&src, wrapped, "--set", NULL))
        fail(err, at, key, "%s", src.error);
    else if (!config_read_string(parsed, src.text))
        fail(err, "--set", NULL, "%s: cannot read the value '%s' (%s); strings need quotes: "
             "key=\"text\", axes brackets: key=[1,2]", text, value, config_error_text(parsed));
    else if (config_setting_length(config_root_setting(parsed)) != 1)
        fail(err, "--set", NULL, "%s: one assignment per --set; give each its own --set", text);
    else
        v = config_lookup(parsed, "v");
    free(wrapped);
    ar_spec_source_free(&src);
    return v;
}

static int apply_override(config_t *cfg, const char *text, hook_list *hooks, char *err)
{
    const char *eq = strchr(text, '=');
    char key[256];
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof key)
        return fail(err, "--set", NULL, "'%s' is not of the form key=value", text);
    memcpy(key, text, (size_t)(eq - text));
    key[eq - text] = '\0';

    config_t parsed;
    config_init(&parsed);
    const config_setting_t *value = read_override_value(&parsed, text, key, eq + 1, err);
    if (!value) {
        config_destroy(&parsed);
        return -1;
    }
    config_setting_t *root = config_root_setting(cfg);
    config_setting_t *experiments = config_setting_get_member(root, "experiments");
    char *dot = strchr(key, '.');
    int status = 0;
    if (dot) {
        *dot = '\0';
        const char *field = dot + 1;
        config_setting_t *target = NULL;
        for (int i = 0; experiments && i < config_setting_length(experiments); ++i) {
            config_setting_t *e = config_setting_get_elem(experiments, (unsigned)i);
            const char *name;
            if (config_setting_is_group(e) && config_setting_lookup_string(e, "name", &name) &&
                strcmp(name, key) == 0)
                target = e;
        }
        if (!*key)
            status = fail(err, "--set", NULL, "%s: the experiment's name before '.' is missing", text);
        else if (!*field)
            status = fail(err, "--set", NULL, "%s: the field name after '%s.' is missing", text, key);
        else if (!valid_field_name(field))
            status = fail(err, "--set", NULL, "%s: '%s' is not a field name", text, field);
        else if (!target)
            status = fail(err, "--set", NULL, "%s: no experiment named '%s' in the spec", text, key);
        else if (replace_setting(target, field, value, text, hooks))
            status = fail(err, "--set", NULL, "%s: out of memory", text);
    } else if (strcmp(key, "seed") == 0 || strcmp(key, "title") == 0) {
        if (replace_setting(root, key, value, text, hooks))
            status = fail(err, "--set", NULL, "%s: out of memory", text);
    } else if (!valid_field_name(key)) {
        status = fail(err, "--set", NULL, "%s: '%s' is not a field name", text, key);
    } else {
        int n = experiments ? config_setting_length(experiments) : 0;
        for (int i = 0; status == 0 && i < n; ++i) {
            config_setting_t *e = config_setting_get_elem(experiments, (unsigned)i);
            if (config_setting_is_group(e) && replace_setting(e, key, value, text, hooks))
                status = fail(err, "--set", NULL, "%s: out of memory", text);
        }
        if (n == 0)
            status = fail(err, "--set", NULL, "%s: the spec has no experiments to set it in", text);
    }
    config_destroy(&parsed);
    return status;
}

/* ---- validation ---------------------------------------------------------------- */

static int read_param_value(const context *c, const ar_param *p, const config_setting_t *s,
                            const char *at, double *out)
{
    if (p->type == AR_PARAM_CHOICE) {
        if (config_setting_type(s) != CONFIG_TYPE_STRING)
            goto wrong_type;
        int idx = ar_choice_index(p, config_setting_get_string(s));
        if (idx < 0) {
            char list[256] = "";
            for (int i = 0; p->choices[i]; ++i) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, p->choices[i], sizeof list - strlen(list) - 1);
            }
            return fail(c->err, at, p->name, "'%s' is not one of: %s", config_setting_get_string(s), list);
        }
        *out = idx;
        return 0;
    }
    if (!is_number(s))
        goto wrong_type;
    /* An integer is written as one, as trials and seed must be: 8.0 (or 1e3) is a real
     * number, refused here as there. */
    if (p->type == AR_PARAM_INT && config_setting_type(s) == CONFIG_TYPE_FLOAT) {
        double r = config_setting_get_float(s);
        if (isfinite(r) && r == floor(r) && fabs(r) < 1e15)
            return fail(c->err, at, p->name, "must be an integer, not the real number %.1f (write %.0f)", r, r);
        return fail(c->err, at, p->name, "must be an integer, not %.17g", r);
    }
    double v = number_of(s);
    if (!isfinite(v))
        return fail(c->err, at, p->name, "must be a finite number, not %g", v);
    if (p->type == AR_PARAM_INT && v != floor(v))
        return fail(c->err, at, p->name, "must be an integer, not %.17g", v);
    if (v < p->min || v > p->max || (p->min_exclusive && v <= p->min)) {
        char value[32]; /* an integer exactly: 4294967304, not 4.29497e+09 */
        snprintf(value, sizeof value, p->type == AR_PARAM_INT && fabs(v) < 1e18 ? "%.0f" : "%g", v);
        if (p->min_exclusive)
            return fail(c->err, at, p->name, "%s is out of range: must be > %g and <= %g", value, p->min, p->max);
        return fail(c->err, at, p->name, "%s is out of range [%g, %g]", value, p->min, p->max);
    }
    *out = v;
    return 0;
wrong_type:
    return fail(c->err, at, p->name, "must be %s, not %s",
                p->type == AR_PARAM_CHOICE ? "a string" : p->type == AR_PARAM_INT ? "an integer" : "a number",
                type_name(config_setting_type(s)));
}

static int read_claims(const context *c, ar_experiment *exp, const config_setting_t *list)
{
    char at[128];
    where(c, list, at, sizeof at);
    int type = config_setting_type(list);
    if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
        return fail(c->err, at, "claims", "must be an array of claim ids, not %s", type_name(type));
    int n = config_setting_length(list);
    exp->claims_listed = 1; /* an empty list means: report only, no verdicts */
    if (n > AR_MAX_CLAIMS)
        return fail(c->err, at, "claims", "at most %d claims per experiment", AR_MAX_CLAIMS);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return fail(c->err, at, "claims", "element %d must be a string", i + 1);
        const ar_claim *claim = ar_claim_find(config_setting_get_string(e));
        if (!claim)
            return fail(c->err, at, "claims", "unknown claim '%s'", config_setting_get_string(e));
        if (claim->sim != exp->sim)
            return fail(c->err, at, "claims", "claim %s is about simulator %s, not %s", claim->id,
                        claim->sim->name, exp->sim->name);
        if (claim->rule == AR_RULE_REFERENCE)
            return fail(c->err, at, "claims", "%s is a reference curve, not a checkable claim", claim->id);
        for (int k = 0; k < exp->n_claims; ++k)
            if (exp->claims[k] == claim)
                return fail(c->err, at, "claims", "claim %s is listed twice", claim->id);
        exp->claims[exp->n_claims] = claim;
        exp->expect[exp->n_claims++] = ar_claim_default_expectation(claim);
    }
    return 0;
}

/* Does the claim predict anything at some point of the grid (and, for a trend claim,
 * does the grid sweep its axis)? */
static int speaks_on_grid(const ar_claim *claim, const ar_experiment *exp)
{
    const char *axes[2] = {claim->trend_axis, claim->versus_axis};
    for (int k = 0; k < 2; ++k) {
        if (!axes[k])
            continue;
        int param = ar_sim_param_index(exp->sim, axes[k]);
        if (param < 0 || ar_experiment_axis_of(exp, param) < 0 || exp->axes[ar_experiment_axis_of(exp, param)].count < 2)
            return 0;
    }
    for (long p = 0; p < exp->n_points; ++p) {
        ar_point point;
        ar_experiment_point(exp, p, &point);
        if (isfinite(ar_claim_predict(claim, &point)))
            return 1;
    }
    return 0;
}

/* Unlisted claims: the simulator's checkable ones that apply somewhere on the grid. */
static void default_claims(ar_experiment *exp)
{
    int count;
    const ar_claim *const *claims = ar_claims_all(&count);
    for (int i = 0; i < count && exp->n_claims < AR_MAX_CLAIMS; ++i) {
        if (claims[i]->sim == exp->sim && claims[i]->rule != AR_RULE_REFERENCE &&
            !claims[i]->on_request && speaks_on_grid(claims[i], exp)) {
            exp->claims[exp->n_claims] = claims[i];
            exp->expect[exp->n_claims++] = ar_claim_default_expectation(claims[i]);
        }
    }
}

static int read_expect(const context *c, ar_experiment *exp, const config_setting_t *group)
{
    char at[128];
    where(c, group, at, sizeof at);
    if (!config_setting_is_group(group))
        return fail(c->err, at, "expect", "must be a group like { H1 = \"HOLDS\"; }, not %s",
                    type_name(config_setting_type(group)));
    for (int i = 0; i < config_setting_length(group); ++i) {
        const config_setting_t *e = config_setting_get_elem(group, (unsigned)i);
        where(c, e, at, sizeof at);
        const char *id = config_setting_name(e);
        int k = 0;
        while (k < exp->n_claims && strcmp(exp->claims[k]->id, id) != 0)
            k++;
        if (k == exp->n_claims)
            return fail(c->err, at, "expect", "%s is not among the claims this experiment checks", id);
        if (config_setting_type(e) != CONFIG_TYPE_STRING ||
            ar_verdict_parse(config_setting_get_string(e), &exp->expect[k]) != 0)
            return fail(c->err, at, "expect", "%s must be \"HOLDS\", \"VIOLATED\", \"INCONCLUSIVE\" or \"MEASURED\"", id);
        if ((exp->claims[k]->rule == AR_RULE_MEASURE) != (exp->expect[k] == AR_MEASURED))
            return fail(c->err, at, "expect", "%s %s", id,
                        exp->claims[k]->rule == AR_RULE_MEASURE ? "is a measurement: it can only be \"MEASURED\""
                                                                : "gives a verdict: it cannot be \"MEASURED\"");
    }
    return 0;
}

/* v in the fewest digits that read back as v: as the user wrote it, for messages that
 * quote it (1.1, not 1.1000000000000001). */
static void shortest(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) { /* 20, not 2e+01 */
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int digits = 1; digits <= 17; ++digits) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* One conjecture group as text fields with their places (conjecture.h builds it).
 * `experiment` is a field only in judge's conjecture files. */
static int conjecture_input(const context *c, const config_setting_t *g, int index, int allow_experiment,
                            ar_conjecture_input *in)
{
    memset(in, 0, sizeof *in);
    char at[128];
    where(c, g, at, sizeof at);
    if (!config_setting_is_group(g))
        return fail(c->err, at, "conjectures", "element %d must be a group { id = ...; ... }, not %s", index + 1,
                    type_name(config_setting_type(g)));
    snprintf(in->where, sizeof in->where, "%s", at);
    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        where(c, s, at, sizeof at);
        int f = ar_conjecture_field_parse(key);
        if (f < 0 || (f == AR_CONJ_EXPERIMENT && !allow_experiment))
            return fail(c->err, at, "conjectures", "unknown field '%s' (id, output, rule, prediction, where, "
                        "tolerance, along, versus, rate, element, statement, expect%s)", key,
                        allow_experiment ? ", experiment" : "");
        snprintf(in->at[f], sizeof in->at[f], "%s", at);
        int type = config_setting_type(s);
        int numeric = f == AR_CONJ_TOLERANCE || f == AR_CONJ_ELEMENT || f == AR_CONJ_RATE;
        if (type == CONFIG_TYPE_STRING && !numeric) {
            in->value[f] = config_setting_get_string(s);
        } else if (numeric && is_number(s)) {
            shortest(number_of(s), in->number[f], sizeof in->number[f]);
            in->value[f] = in->number[f];
        } else if (f == AR_CONJ_RATE && (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) &&
                   config_setting_length(s) == 2 && is_number(config_setting_get_elem(s, 0)) &&
                   is_number(config_setting_get_elem(s, 1))) {
            char lo[32], hi[32];
            shortest(number_of(config_setting_get_elem(s, 0)), lo, sizeof lo);
            shortest(number_of(config_setting_get_elem(s, 1)), hi, sizeof hi);
            snprintf(in->number[f], sizeof in->number[f], "%s, %s", lo, hi);
            in->value[f] = in->number[f];
        } else {
            return fail(c->err, at, key, "must be %s, not %s",
                        f == AR_CONJ_RATE ? "a number or [lo, hi]" : numeric ? "a number" : "a string",
                        type_name(type));
        }
    }
    return 0;
}

/* Adds a built conjecture to the experiment's claims. */
static int add_conjecture(const context *c, ar_experiment *exp, const ar_conjecture_input *in)
{
    if (exp->n_claims == AR_MAX_CLAIMS)
        return fail(c->err, in->where, "conjectures", "at most %d claims and conjectures per experiment (%s)",
                    AR_MAX_CLAIMS, exp->name);
    const ar_claim *claim;
    ar_verdict expect;
    if (ar_conjecture_build(in, exp, &claim, &expect, c->err))
        return -1;
    exp->claims[exp->n_claims] = claim;
    exp->expect[exp->n_claims++] = expect;
    return 0;
}

static int read_conjectures(const context *c, ar_experiment *exp, const config_setting_t *list)
{
    char at[128];
    where(c, list, at, sizeof at);
    int type = config_setting_type(list);
    if (type != CONFIG_TYPE_LIST && !(type == CONFIG_TYPE_ARRAY && config_setting_length(list) == 0))
        return fail(c->err, at, "conjectures", "must be a list ( { ... }, ... ) of groups, not %s", type_name(type));
    for (int i = 0; i < config_setting_length(list); ++i) {
        ar_conjecture_input in;
        if (conjecture_input(c, config_setting_get_elem(list, (unsigned)i), i, 0, &in) ||
            add_conjecture(c, exp, &in))
            return -1;
    }
    return 0;
}

typedef struct {
    double value;
    int index;
} indexed_value;

static int by_value_then_index(const void *a, const void *b)
{
    const indexed_value *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The first value, in the spec's order, that repeats an earlier one: its index, with
 * *first the earlier one's; -1 if none, -2 out of memory. By sorting: an axis of 10^5
 * values (a 1 MiB spec) compared pair by pair took seconds. */
static int first_repeat(const double *values, int n, int *first)
{
    if (n < 2)
        return -1;
    indexed_value *sorted = malloc((size_t)n * sizeof *sorted);
    if (!sorted)
        return -2;
    for (int i = 0; i < n; ++i)
        sorted[i] = (indexed_value){values[i], i};
    qsort(sorted, (size_t)n, sizeof *sorted, by_value_then_index);
    int repeat = -1;
    for (int i = 1; i < n; ++i) {
        /* sorted[i] repeats its group's first element, which has the smallest index */
        if (sorted[i].value == sorted[i - 1].value && (repeat < 0 || sorted[i].index < repeat)) {
            int g = i - 1;
            while (g > 0 && sorted[g - 1].value == sorted[i].value)
                g--;
            repeat = sorted[i].index;
            *first = sorted[g].index;
        }
    }
    free(sorted);
    return repeat;
}

static int read_axis(const context *c, ar_experiment *exp, int param, const config_setting_t *s,
                     const char *at)
{
    const ar_param *p = &exp->sim->params[param];
    int n = config_setting_length(s);
    if (n == 0)
        return fail(c->err, at, p->name, "empty axis: give at least one value");
    ar_axis *axis = &exp->axes[exp->n_axes];
    axis->param = param;
    axis->count = n;
    axis->values = calloc((size_t)n, sizeof *axis->values);
    if (!axis->values)
        return fail(c->err, at, p->name, "out of memory");
    exp->n_axes++;
    for (int i = 0; i < n; ++i)
        if (read_param_value(c, p, config_setting_get_elem(s, (unsigned)i), at, &axis->values[i]))
            return -1;
    int first = 0, repeat = first_repeat(axis->values, n, &first);
    if (repeat == -2)
        return fail(c->err, at, p->name, "out of memory");
    if (repeat >= 0)
        return fail(c->err, at, p->name, "value %d repeats value %d", repeat + 1, first + 1);
    axis->position = position_of(s);
    exp->base.value[param] = axis->values[0];
    return 0;
}

static int by_position(const void *a, const void *b)
{
    return ((const ar_axis *)a)->position - ((const ar_axis *)b)->position;
}

/* A name the result file keeps at its root beside the experiments' groups (/verdicts,
 * store.h): no experiment may take it. */
static int reserved_name(const char *name)
{
    return strcmp(name, "verdicts") == 0;
}

static int read_experiment(const context *c, const config_setting_t *g, ar_experiment *exp)
{
    char at[128];
    where(c, g, at, sizeof at);
    snprintf(exp->where, sizeof exp->where, "%s", at);
    if (!config_setting_is_group(g))
        return fail(c->err, at, "experiments", "each experiment must be a group { ... }, not %s",
                    type_name(config_setting_type(g)));
    const char *name, *simulator;
    if (!config_setting_lookup_string(g, "name", &name))
        return fail(c->err, at, "name", "missing (or not a string): every experiment needs a name");
    if (!valid_name(name) || strlen(name) > 60)
        return fail(c->err, at, "name", "'%s' must be 1-60 letters, digits, '_' or '-'", name);
    /* The experiment becomes a group at the root of the result file, beside the store's own. */
    if (reserved_name(name))
        return fail(c->err, at, "name", "'%s' is reserved: the result file keeps its own /%s there", name, name);
    exp->name = strdup(name);
    if (!exp->name)
        return fail(c->err, at, "name", "out of memory");
    if (!config_setting_lookup_string(g, "simulator", &simulator))
        return fail(c->err, at, "simulator", "missing (or not a string); `attnrank list` shows the simulators");
    exp->sim = ar_sim_find(simulator);
    if (!exp->sim) {
        where(c, config_setting_get_member(g, "simulator"), at, sizeof at);
        return fail(c->err, at, "simulator", "unknown simulator '%s'; `attnrank list` shows the simulators",
                    simulator);
    }
    ar_point_defaults(exp->sim, &exp->base);
    exp->trials = 1000;

    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        where(c, s, at, sizeof at);
        if (strcmp(key, "name") == 0 || strcmp(key, "simulator") == 0 || strcmp(key, "expect") == 0 ||
            strcmp(key, "conjectures") == 0) /* read once the grid is known */
            continue;
        if (strcmp(key, "trials") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
                return fail(c->err, at, key, "must be an integer, not %s", type_name(config_setting_type(s)));
            long long t = config_setting_get_int64(s);
            if (t < 2 || t > MAX_TRIALS)
                return fail(c->err, at, key, "%lld is out of range [2, %ld] (an interval needs 2 trials)",
                            t, MAX_TRIALS);
            exp->trials = (long)t;
            continue;
        }
        if (strcmp(key, "claims") == 0) {
            if (read_claims(c, exp, s))
                return -1;
            continue;
        }
        int param = ar_sim_param_index(exp->sim, key);
        if (param < 0)
            return fail(c->err, at, key, "unknown field for simulator %s; `attnrank list` shows its parameters",
                        exp->sim->name);
        snprintf(exp->param_where[param], sizeof exp->param_where[param], "%s", at);
        int type = config_setting_type(s);
        if (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) {
            if (read_axis(c, exp, param, s, at))
                return -1;
        } else if (type == CONFIG_TYPE_GROUP) {
            return fail(c->err, at, key, "must be a value or an array of values, not a group");
        } else if (read_param_value(c, &exp->sim->params[param], s, at, &exp->base.value[param])) {
            return -1;
        }
    }
    /* Axes in the order the spec wrote them, overrides keeping their field's place. */
    qsort(exp->axes, (size_t)exp->n_axes, sizeof exp->axes[0], by_position);
    double points = 1;
    for (int a = 0; a < exp->n_axes; ++a)
        points *= exp->axes[a].count;
    if (points > MAX_GRID_POINTS)
        return fail(c->err, exp->where, exp->name, "the grid has %.3g points; the limit is %d: "
                    "split it into several experiments or runs", points, MAX_GRID_POINTS);
    exp->n_points = (long)points;
    if (!exp->claims_listed)
        default_claims(exp);

    /* Cross-field rules, point by point, blaming the field the simulator names. */
    char why[256];
    for (long p = 0; exp->sim->check && p < exp->n_points; ++p) {
        ar_point point;
        ar_experiment_point(exp, p, &point);
        int bad = exp->sim->check ? exp->sim->check(&point, why, sizeof why) : -1;
        if (bad >= 0) {
            const char *field_at = exp->param_where[bad][0] ? exp->param_where[bad] : exp->where;
            char desc[256];
            ar_point_describe(&point, NULL, 0, desc, sizeof desc);
            return fail(c->err, field_at, exp->sim->params[bad].name, "%s (experiment %s)", why, exp->name);
        }
    }
    /* Conjectures are evaluated at every point: after the points are known valid. */
    const config_setting_t *conjectures = config_setting_get_member(g, "conjectures");
    if (conjectures && read_conjectures(c, exp, conjectures))
        return -1;
    const config_setting_t *expect = config_setting_get_member(g, "expect");
    if (expect && read_expect(c, exp, expect))
        return -1;
    return 0;
}

/* ---- canonical text -------------------------------------------------------------- */

static void write_value(FILE *f, const ar_param *p, double v)
{
    if (p->type == AR_PARAM_CHOICE)
        fprintf(f, "\"%s\"", p->choices[(int)v]);
    else if (p->type == AR_PARAM_INT)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.17g", v);
}

static char *canonical_text(const ar_spec *spec)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    /* The L suffix keeps seeds beyond 32 bits 64-bit integers when read back. */
    fprintf(f, "# canonical form: every field, defaults included\nseed = %lluL;\n",
            (unsigned long long)spec->seed);
    if (spec->title)
        fprintf(f, "title = \"%s\";\n", spec->title);
    fprintf(f, "experiments = (\n");
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        fprintf(f, "  {\n    name = \"%s\";\n    simulator = \"%s\";\n    trials = %ld;\n", x->name,
                x->sim->name, x->trials);
        fprintf(f, "    claims = [");
        for (int k = 0, listed = 0; k < x->n_claims; ++k)
            if (!x->claims[k]->conjecture)
                fprintf(f, "%s\"%s\"", listed++ ? ", " : "", x->claims[k]->id);
        fprintf(f, "];\n");
        for (int k = 0, listed = 0; k < x->n_claims; ++k)
            if (x->claims[k]->conjecture) {
                fprintf(f, "%s      ", listed++ ? ",\n" : "    conjectures = (\n");
                ar_conjecture_write(f, x->claims[k]);
                if (k + 1 == x->n_claims)
                    fprintf(f, "\n    );\n");
            }
        fprintf(f, "    expect = {");
        for (int k = 0; k < x->n_claims; ++k)
            fprintf(f, " %s = \"%s\";", x->claims[k]->id, ar_verdict_name(x->expect[k]));
        fprintf(f, " };\n");
        for (int a = 0; a < x->n_axes; ++a) {
            const ar_param *p = &x->sim->params[x->axes[a].param];
            fprintf(f, "    %s = (", p->name);
            for (int i = 0; i < x->axes[a].count; ++i) {
                fputs(i ? ", " : "", f);
                write_value(f, p, x->axes[a].values[i]);
            }
            fprintf(f, ");\n");
        }
        for (int i = 0; i < x->sim->n_params; ++i) {
            if (ar_experiment_axis_of(x, i) >= 0)
                continue;
            fprintf(f, "    %s = ", x->sim->params[i].name);
            write_value(f, &x->sim->params[i], x->base.value[i]);
            fprintf(f, ";\n");
        }
        fprintf(f, "  }%s\n", e + 1 < spec->n_experiments ? "," : "");
    }
    fprintf(f, ");\n");
    fclose(f);
    return text;
}

/* ---- entry points ---------------------------------------------------------------- */

static int read_root(const context *c, config_t *cfg, ar_spec *spec)
{
    config_setting_t *root = config_root_setting(cfg);
    char at[128];
    const config_setting_t *experiments = NULL;
    spec->seed = 1;
    for (int i = 0; i < config_setting_length(root); ++i) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *key = config_setting_name(s);
        where(c, s, at, sizeof at);
        if (strcmp(key, "seed") == 0) {
            int t = config_setting_type(s);
            if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
                return fail(c->err, at, key, "must be an integer, not %s", type_name(t));
            long long seed = config_setting_get_int64(s);
            if (seed < 0)
                return fail(c->err, at, key, "must be >= 0, not %lld", seed);
            spec->seed = (uint64_t)seed;
        } else if (strcmp(key, "title") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_STRING)
                return fail(c->err, at, key, "must be a string");
            const char *title = config_setting_get_string(s);
            if (strchr(title, '"') || strchr(title, '\\'))
                return fail(c->err, at, key, "must not contain quotes or backslashes");
            spec->title = strdup(title);
            if (!spec->title)
                return fail(c->err, at, key, "out of memory");
        } else if (strcmp(key, "experiments") == 0) {
            int t = config_setting_type(s);
            if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_GROUP)
                return fail(c->err, at, key, "must be a list of groups: experiments = ( { ... }, { ... } );");
            experiments = s;
        } else {
            return fail(c->err, at, key, "unknown top-level field (expected seed, title, experiments)");
        }
    }
    if (!experiments || config_setting_length(experiments) == 0)
        return fail(c->err, c->label, "experiments", "the spec defines no experiments");
    if (config_setting_type(experiments) == CONFIG_TYPE_GROUP) {
        where(c, experiments, at, sizeof at);
        return fail(c->err, at, "experiments", "must be a list ( ... ) of groups, not a group { ... }");
    }
    spec->n_experiments = config_setting_length(experiments);
    spec->experiments = calloc((size_t)spec->n_experiments, sizeof *spec->experiments);
    if (!spec->experiments)
        return fail(c->err, c->label, NULL, "out of memory");
    for (int e = 0; e < spec->n_experiments; ++e) {
        if (read_experiment(c, config_setting_get_elem(experiments, (unsigned)e), &spec->experiments[e]))
            return -1;
        for (int k = 0; k < e; ++k)
            if (strcmp(spec->experiments[k].name, spec->experiments[e].name) == 0)
                return fail(c->err, spec->experiments[e].where, "name", "experiment '%s' is defined twice",
                            spec->experiments[e].name);
    }
    return 0;
}

/* Does line `line` (1-based) of text contain nan or inf as a word? */
static int line_mentions_nonfinite(const char *text, int line)
{
    for (int l = 1; l < line && text; ++l) {
        text = strchr(text, '\n');
        if (text)
            text++;
    }
    if (!text)
        return 0;
    const char *end = strchr(text, '\n');
    size_t len = end ? (size_t)(end - text) : strlen(text);
    for (size_t i = 0; i + 3 <= len; ++i) {
        if ((strncasecmp(text + i, "nan", 3) == 0 || strncasecmp(text + i, "inf", 3) == 0) &&
            (i == 0 || !isalnum((unsigned char)text[i - 1])) &&
            (i + 3 == len || !isalpha((unsigned char)text[i + 3]) || strncasecmp(text + i, "infinity", 8) == 0))
            return 1;
    }
    return 0;
}

int ar_spec_load_text(const char *text, const char *label, const char *include_dir,
                      const char *const *overrides, int n_overrides, ar_spec *spec, char *err)
{
    memset(spec, 0, sizeof *spec);
    config_t cfg;
    config_init(&cfg);
    int status = -1;
    hook_list hooks = {0};
    ar_spec_source src;
    /* libconfig reads the expanded text and never a file itself (spec_source.h). */
    if (ar_spec_source_read(&src, text, label, include_dir)) {
        fail_source(err, &src);
        goto done;
    }
    spec->source = strdup(label);
    if (!spec->source) {
        fail(err, label, NULL, "out of memory");
        goto done;
    }
    if (!config_read_string(&cfg, src.text)) {
        const char *msg = config_error_text(&cfg);
        char at[512];
        ar_spec_source_locate(&src, config_error_line(&cfg), at, sizeof at);
        if (strstr(msg, "mismatched element type"))
            fail(err, at, NULL, "%s: an array [...] holds one type; write 1.0 for 1 among floats, "
                 "or use a list (1, 0.5)", msg);
        else if (line_mentions_nonfinite(src.text, config_error_line(&cfg)))
            fail(err, at, NULL, "%s: nan and inf are not values a spec can hold", msg);
        else
            fail(err, at, NULL, "%s (not a valid libconfig spec)", msg);
        goto done;
    }
    if (stamp_positions(&cfg, &hooks)) {
        fail(err, label, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_overrides; ++i)
        if (apply_override(&cfg, overrides[i], &hooks, err))
            goto done;
    context c = {label, &src, err};
    if (read_root(&c, &cfg, spec))
        goto done;

    /* Source text as given, then the overrides, for the provenance attribute. */
    size_t len = strlen(text) + 64;
    for (int i = 0; i < n_overrides; ++i)
        len += strlen(overrides[i]) + 16;
    spec->source_text = malloc(len);
    if (spec->source_text) {
        char *w = spec->source_text;
        w += sprintf(w, "%s", text);
        for (int i = 0; i < n_overrides; ++i)
            w += sprintf(w, "%s# --set %s\n", i == 0 ? "\n" : "", overrides[i]);
    }
    spec->canonical = canonical_text(spec);
    if (!spec->canonical || !spec->source_text) {
        fail(err, label, NULL, "out of memory");
        goto done;
    }
    spec->hash = ar_hash_bytes(0, spec->canonical, strlen(spec->canonical));
    status = 0;
done:
    config_destroy(&cfg);
    free_hooks(&hooks);
    ar_spec_source_free(&src);
    if (status)
        ar_spec_free(spec);
    return status;
}

int ar_spec_load(const char *path, const char *const *overrides, int n_overrides, ar_spec *spec,
                 char *err)
{
    memset(spec, 0, sizeof *spec);
    char *text, why[AR_ERR_LEN / 2];
    size_t len;
    if (ar_spec_read_file(path, "the spec", AR_SPEC_MAX_BYTES, &text, &len, why, sizeof why))
        return fail(err, path, NULL, "%s", why);
    int status = -1;
    char *dir = NULL;
    if (len > AR_SPEC_MAX_BYTES)
        fail(err, path, NULL, "larger than %d bytes: not a spec file", AR_SPEC_MAX_BYTES);
    else if (len == 0)
        fail(err, path, NULL, "empty file: a spec needs at least one experiment");
    else if (!(dir = strdup(path)))
        fail(err, path, NULL, "out of memory");
    else {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        status = ar_spec_load_text(text, path, slash ? dir : ".", overrides, n_overrides, spec, err);
    }
    free(dir);
    free(text);
    return status;
}

void ar_spec_free(ar_spec *spec)
{
    for (int e = 0; spec->experiments && e < spec->n_experiments; ++e) {
        ar_experiment *x = &spec->experiments[e];
        free(x->name);
        for (int k = 0; k < x->n_claims; ++k)
            if (x->claims[k]->conjecture)
                ar_conjecture_free(x->claims[k]);
        for (int a = 0; a < x->n_axes; ++a)
            free(x->axes[a].values);
    }
    free(spec->experiments);
    free(spec->source);
    free(spec->source_text);
    free(spec->canonical);
    free(spec->title);
    memset(spec, 0, sizeof *spec);
}

/* The experiment a judged conjecture speaks about: the one it names, else the only one
 * whose simulator has its output. */
static ar_experiment *conjecture_experiment(const context *c, ar_spec *spec, const ar_conjecture_input *in)
{
    const char *name = in->value[AR_CONJ_EXPERIMENT], *output = in->value[AR_CONJ_OUTPUT];
    char names[512] = "";
    ar_experiment *found = NULL;
    for (int e = 0; e < spec->n_experiments; ++e) {
        ar_experiment *x = &spec->experiments[e];
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", x->name);
        if (name) {
            if (!strcmp(x->name, name))
                return x;
            continue;
        }
        for (int o = 0; output && o < x->sim->n_outputs; ++o)
            if (!strcmp(x->sim->outputs[o].name, output)) {
                if (found) {
                    fail(c->err, in->where, "conjectures: experiment", "experiments %s and %s both have output %s: say which, "
                         "experiment = NAME", found->name, x->name, output);
                    return NULL;
                }
                found = x;
            }
    }
    if (!name && !found && spec->n_experiments == 1)
        return &spec->experiments[0]; /* its build names the outputs there are */
    if (name)
        fail(c->err, in->at[AR_CONJ_EXPERIMENT], "conjectures: experiment", "no experiment '%s' in %s (its "
             "experiments: %s)", name, c->label, names);
    else if (!output)
        fail(c->err, in->where, "conjectures: output", "missing: which output the conjecture is about");
    else if (!found)
        fail(c->err, in->at[AR_CONJ_OUTPUT], "conjectures: output", "unknown output '%s': no experiment of %s has it "
             "(its experiments: %s; `attnrank info %s` lists their outputs)", output, c->label, names, c->label);
    return found;
}

static int add_judged(const context *c, ar_spec *spec, const ar_conjecture_input *in)
{
    ar_experiment *x = conjecture_experiment(c, spec, in);
    return x ? add_conjecture(c, x, in) : -1;
}

/* A conjecture file: `conjectures = ( { experiment = "..."; id = ...; }, ... );`. */
static int add_conjecture_file(ar_spec *spec, const char *path, const char *file_label, char *err)
{
    char *text, why[AR_ERR_LEN / 2];
    size_t len;
    if (ar_spec_read_file(path, "the conjecture file", AR_SPEC_MAX_BYTES, &text, &len, why, sizeof why))
        return fail(err, path, NULL, "%s", why);
    if (len > AR_SPEC_MAX_BYTES) {
        free(text);
        return fail(err, path, NULL, "larger than %d bytes: not a conjecture file", AR_SPEC_MAX_BYTES);
    }
    /* @include names are relative to the file's folder, as in a spec (ar_spec_load). */
    char *dir = strdup(path);
    if (!dir) {
        free(text);
        return fail(err, path, NULL, "out of memory");
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    ar_spec_source src;
    config_t cfg;
    config_init(&cfg);
    context c = {file_label, &src, err};
    int status = -1;
    if (ar_spec_source_read(&src, text, path, slash ? dir : ".")) {
        fail_source(err, &src);
    } else if (!config_read_string(&cfg, src.text)) {
        char at[512];
        ar_spec_source_locate(&src, config_error_line(&cfg), at, sizeof at);
        fail(err, at, NULL, "%s (not a valid libconfig file)", config_error_text(&cfg));
    } else {
        config_setting_t *root = config_root_setting(&cfg);
        const config_setting_t *list = config_setting_get_member(root, "conjectures");
        char at[128];
        status = 0;
        for (int i = 0; status == 0 && i < config_setting_length(root); ++i) {
            const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
            if (strcmp(config_setting_name(s), "conjectures") != 0) {
                where(&c, s, at, sizeof at);
                status = fail(err, at, config_setting_name(s), "unknown field: a conjecture file holds only "
                              "conjectures = ( { experiment = \"...\"; id = ...; ... }, ... );");
            }
        }
        int type = list ? config_setting_type(list) : CONFIG_TYPE_NONE;
        if (status == 0 && type != CONFIG_TYPE_LIST) {
            if (list)
                where(&c, list, at, sizeof at);
            status = fail(err, list ? at : path, "conjectures", list ? "must be a list ( { ... }, ... ) of groups"
                                                                     : "missing: the file states no conjectures");
        }
        for (int i = 0; status == 0 && i < config_setting_length(list); ++i) {
            ar_conjecture_input in;
            status = conjecture_input(&c, config_setting_get_elem(list, (unsigned)i), i, 1, &in) ||
                     add_judged(&c, spec, &in) ? -1 : 0;
        }
    }
    config_destroy(&cfg);
    ar_spec_source_free(&src);
    free(text);
    free(dir);
    return status;
}

static int recompute_canonical(ar_spec *spec)
{
    free(spec->canonical);
    spec->canonical = canonical_text(spec);
    if (!spec->canonical)
        return -1;
    spec->hash = ar_hash_bytes(0, spec->canonical, strlen(spec->canonical));
    return 0;
}

int ar_spec_add_conjectures(ar_spec *spec, const char *result_label, const char *path, const char *const *lines,
                            int n_lines, char *err)
{
    if (path && add_conjecture_file(spec, path, result_label, err))
        return -1;
    for (int i = 0; i < n_lines; ++i) {
        char label[64], *copy = strdup(lines[i]);
        snprintf(label, sizeof label, "--conjecture %d", i + 1);
        context c = {result_label, NULL, err};
        ar_conjecture_input in;
        int st = !copy ? fail(err, label, NULL, "out of memory")
                       : ar_conjecture_parse_line(copy, label, &in, err) || add_judged(&c, spec, &in) ? -1 : 0;
        free(copy);
        if (st)
            return -1;
    }
    return recompute_canonical(spec) ? fail(err, result_label, NULL, "out of memory") : 0;
}

int ar_spec_scale_trials(ar_spec *spec, double factor)
{
    for (int e = 0; e < spec->n_experiments; ++e) {
        long t = lround(spec->experiments[e].trials * factor);
        spec->experiments[e].trials = t < 2 ? 2 : t > MAX_TRIALS ? MAX_TRIALS : t;
    }
    return recompute_canonical(spec);
}
