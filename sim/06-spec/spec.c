/* spec: libconfig run specs: reading and validating every field against its
 * simulator's tables, the grid's axes, the claims and their expectations. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "spec_parts.h"
#include "attnrank/message.h"
#include "attnrank/registry.h"

enum { MAX_GRID_POINTS = 10000000 };
static const long MAX_TRIALS = 1000000000L;

static int read_claims(const ar_spec_context *c, ar_experiment *exp, const config_setting_t *list)
{
    char at[128];
    ar_spec_where(c, list, at, sizeof at);
    int type = config_setting_type(list);
    if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
        return ar_spec_fail(c->err, at, "claims", "must be an array of claim ids, not %s", ar_spec_type_name(type));
    int n = config_setting_length(list);
    exp->claims_listed = 1; /* an empty list means: report only, no verdicts */
    if (n > AR_MAX_CLAIMS)
        return ar_spec_fail(c->err, at, "claims", "at most %d claims per experiment", AR_MAX_CLAIMS);
    for (int i = 0; i < n; ++i) {
        const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
        if (config_setting_type(e) != CONFIG_TYPE_STRING)
            return ar_spec_fail(c->err, at, "claims", "element %d must be a string", i + 1);
        const ar_claim *claim = ar_claim_find(config_setting_get_string(e));
        if (!claim)
            return ar_spec_fail(c->err, at, "claims", "unknown claim '%s'", config_setting_get_string(e));
        if (claim->sim != exp->sim)
            return ar_spec_fail(c->err, at, "claims", "claim %s is about simulator %s, not %s", claim->id,
                        claim->sim->name, exp->sim->name);
        if (ar_rules[claim->rule].curve_only)
            return ar_spec_fail(c->err, at, "claims", "%s is a reference curve, not a checkable claim", claim->id);
        for (int k = 0; k < exp->n_claims; ++k)
            if (exp->claims[k] == claim)
                return ar_spec_fail(c->err, at, "claims", "claim %s is listed twice", claim->id);
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
        if (claims[i]->sim == exp->sim && !ar_rules[claims[i]->rule].curve_only &&
            !claims[i]->on_request && speaks_on_grid(claims[i], exp)) {
            exp->claims[exp->n_claims] = claims[i];
            exp->expect[exp->n_claims++] = ar_claim_default_expectation(claims[i]);
        }
    }
}

static int read_expect(const ar_spec_context *c, ar_experiment *exp, const config_setting_t *group)
{
    char at[128];
    ar_spec_where(c, group, at, sizeof at);
    if (!config_setting_is_group(group))
        return ar_spec_fail(c->err, at, "expect", "must be a group like { H1 = \"HOLDS\"; }, not %s",
                    ar_spec_type_name(config_setting_type(group)));
    for (int i = 0; i < config_setting_length(group); ++i) {
        const config_setting_t *e = config_setting_get_elem(group, (unsigned)i);
        ar_spec_where(c, e, at, sizeof at);
        const char *id = config_setting_name(e);
        int k = 0;
        while (k < exp->n_claims && strcmp(exp->claims[k]->id, id) != 0)
            k++;
        if (k == exp->n_claims)
            return ar_spec_fail(c->err, at, "expect", "%s is not among the claims this experiment checks", id);
        if (config_setting_type(e) != CONFIG_TYPE_STRING ||
            ar_verdict_parse(config_setting_get_string(e), &exp->expect[k]) != 0)
            return ar_spec_fail(c->err, at, "expect", "%s must be \"HOLDS\", \"VIOLATED\", \"INCONCLUSIVE\" or \"MEASURED\"", id);
        if (ar_rules[exp->claims[k]->rule].measures != (exp->expect[k] == AR_MEASURED))
            return ar_spec_fail(c->err, at, "expect", "%s %s", id,
                        ar_rules[exp->claims[k]->rule].measures ? "is a measurement: it can only be \"MEASURED\""
                                                                : "gives a verdict: it cannot be \"MEASURED\"");
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

static int read_axis(const ar_spec_context *c, ar_experiment *exp, int param, const config_setting_t *s,
                     const char *at)
{
    const ar_param *p = &exp->sim->params[param];
    int n = config_setting_length(s);
    if (n == 0)
        return ar_spec_fail(c->err, at, p->name, "empty axis: give at least one value");
    ar_axis *axis = &exp->axes[exp->n_axes];
    axis->param = param;
    axis->count = n;
    axis->values = calloc((size_t)n, sizeof *axis->values);
    if (!axis->values)
        return ar_spec_fail(c->err, at, p->name, "out of memory");
    exp->n_axes++;
    for (int i = 0; i < n; ++i)
        if (ar_spec_read_param_value(c, p, config_setting_get_elem(s, (unsigned)i), at, &axis->values[i]))
            return -1;
    int first = 0, repeat = first_repeat(axis->values, n, &first);
    if (repeat == -2)
        return ar_spec_fail(c->err, at, p->name, "out of memory");
    if (repeat >= 0)
        return ar_spec_fail(c->err, at, p->name, "value %d repeats value %d", repeat + 1, first + 1);
    axis->position = ar_spec_position_of(s);
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

static int read_experiment(const ar_spec_context *c, const config_setting_t *g, ar_experiment *exp)
{
    char at[128];
    ar_spec_where(c, g, at, sizeof at);
    snprintf(exp->where, sizeof exp->where, "%s", at);
    if (!config_setting_is_group(g))
        return ar_spec_fail(c->err, at, "experiments", "each experiment must be a group { ... }, not %s",
                    ar_spec_type_name(config_setting_type(g)));
    const char *name, *simulator;
    if (!config_setting_lookup_string(g, "name", &name))
        return ar_spec_fail(c->err, at, "name", "missing (or not a string): every experiment needs a name");
    if (!ar_spec_valid_name(name) || strlen(name) > 60)
        return ar_spec_fail(c->err, at, "name", "'%s' must be 1-60 letters, digits, '_' or '-'", name);
    /* The experiment becomes a group at the root of the result file, beside the store's own. */
    if (reserved_name(name))
        return ar_spec_fail(c->err, at, "name", "'%s' is reserved: the result file keeps its own /%s there", name, name);
    exp->name = strdup(name);
    if (!exp->name)
        return ar_spec_fail(c->err, at, "name", "out of memory");
    if (!config_setting_lookup_string(g, "simulator", &simulator))
        return ar_spec_fail(c->err, at, "simulator", "missing (or not a string); `attnrank list` shows the simulators");
    exp->sim = ar_sim_find(simulator);
    if (!exp->sim) {
        ar_spec_where(c, config_setting_get_member(g, "simulator"), at, sizeof at);
        return ar_spec_fail(c->err, at, "simulator", "unknown simulator '%s'; `attnrank list` shows the simulators",
                    simulator);
    }
    ar_point_defaults(exp->sim, &exp->base);
    exp->trials = 1000;

    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        ar_spec_where(c, s, at, sizeof at);
        if (strcmp(key, "name") == 0 || strcmp(key, "simulator") == 0 || strcmp(key, "expect") == 0 ||
            strcmp(key, "conjectures") == 0 || strcmp(key, "attacks") == 0) /* read once the grid is known */
            continue;
        if (strcmp(key, "trials") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_INT && config_setting_type(s) != CONFIG_TYPE_INT64)
                return ar_spec_fail(c->err, at, key, "must be an integer, not %s", ar_spec_type_name(config_setting_type(s)));
            long long t = config_setting_get_int64(s);
            if (t < 2 || t > MAX_TRIALS)
                return ar_spec_fail(c->err, at, key, "%lld is out of range [2, %ld] (an interval needs 2 trials)",
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
            return ar_spec_fail(c->err, at, key, "unknown field for simulator %s; `attnrank list` shows its parameters",
                        exp->sim->name);
        snprintf(exp->param_where[param], sizeof exp->param_where[param], "%s", at);
        int type = config_setting_type(s);
        if (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) {
            if (read_axis(c, exp, param, s, at))
                return -1;
        } else if (type == CONFIG_TYPE_GROUP) {
            return ar_spec_fail(c->err, at, key, "must be a value or an array of values, not a group");
        } else if (ar_spec_read_param_value(c, &exp->sim->params[param], s, at, &exp->base.value[param])) {
            return -1;
        }
    }
    /* Axes in the order the spec wrote them, overrides keeping their field's place. */
    qsort(exp->axes, (size_t)exp->n_axes, sizeof exp->axes[0], by_position);
    double points = 1;
    for (int a = 0; a < exp->n_axes; ++a)
        points *= exp->axes[a].count;
    if (points > MAX_GRID_POINTS)
        return ar_spec_fail(c->err, exp->where, exp->name, "the grid has %.3g points; the limit is %d: "
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
            return ar_spec_fail(c->err, field_at, exp->sim->params[bad].name, "%s (experiment %s)", why, exp->name);
        }
    }
    /* Conjectures are evaluated at every point: after the points are known valid. */
    const config_setting_t *conjectures = config_setting_get_member(g, "conjectures");
    if (conjectures && ar_spec_read_conjectures(c, exp, conjectures))
        return -1;
    const config_setting_t *expect = config_setting_get_member(g, "expect");
    if (expect && read_expect(c, exp, expect))
        return -1;
    return 0;
}

/* ---- canonical text -------------------------------------------------------------- */

static int read_root(const ar_spec_context *c, config_t *cfg, ar_spec *spec)
{
    config_setting_t *root = config_root_setting(cfg);
    char at[128];
    const config_setting_t *experiments = NULL;
    spec->seed = 1;
    for (int i = 0; i < config_setting_length(root); ++i) {
        const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
        const char *key = config_setting_name(s);
        ar_spec_where(c, s, at, sizeof at);
        if (strcmp(key, "seed") == 0) {
            int t = config_setting_type(s);
            if (t != CONFIG_TYPE_INT && t != CONFIG_TYPE_INT64)
                return ar_spec_fail(c->err, at, key, "must be an integer, not %s", ar_spec_type_name(t));
            long long seed = config_setting_get_int64(s);
            if (seed < 0)
                return ar_spec_fail(c->err, at, key, "must be >= 0, not %lld", seed);
            spec->seed = (uint64_t)seed;
        } else if (strcmp(key, "title") == 0) {
            if (config_setting_type(s) != CONFIG_TYPE_STRING)
                return ar_spec_fail(c->err, at, key, "must be a string");
            const char *title = config_setting_get_string(s);
            if (strchr(title, '"') || strchr(title, '\\'))
                return ar_spec_fail(c->err, at, key, "must not contain quotes or backslashes");
            const char *control = ar_message_control(title);
            if (control) /* it reaches terminals and pages: nothing there may be hidden or reordered */
                return ar_spec_fail(c->err, at, key, "must not contain control characters or invisible "
                                    "ones (bidi, zero-width; byte 0x%02x at byte %td)", (unsigned char)*control, control - title + 1);
            spec->title = strdup(title);
            if (!spec->title)
                return ar_spec_fail(c->err, at, key, "out of memory");
        } else if (strcmp(key, "experiments") == 0) {
            int t = config_setting_type(s);
            if (t != CONFIG_TYPE_LIST && t != CONFIG_TYPE_GROUP)
                return ar_spec_fail(c->err, at, key, "must be a list of groups: experiments = ( { ... }, { ... } );");
            experiments = s;
        } else {
            return ar_spec_fail(c->err, at, key, "unknown top-level field (expected seed, title, experiments)");
        }
    }
    if (!experiments || config_setting_length(experiments) == 0)
        return ar_spec_fail(c->err, c->label, "experiments", "the spec defines no experiments");
    if (config_setting_type(experiments) == CONFIG_TYPE_GROUP) {
        ar_spec_where(c, experiments, at, sizeof at);
        return ar_spec_fail(c->err, at, "experiments", "must be a list ( ... ) of groups, not a group { ... }");
    }
    spec->n_experiments = config_setting_length(experiments);
    spec->experiments = calloc((size_t)spec->n_experiments, sizeof *spec->experiments);
    if (!spec->experiments)
        return ar_spec_fail(c->err, c->label, NULL, "out of memory");
    for (int e = 0; e < spec->n_experiments; ++e) {
        const config_setting_t *g = config_setting_get_elem(experiments, (unsigned)e);
        if (read_experiment(c, g, &spec->experiments[e]))
            return -1;
        for (int k = 0; k < e; ++k)
            if (strcmp(spec->experiments[k].name, spec->experiments[e].name) == 0)
                return ar_spec_fail(c->err, spec->experiments[e].where, "name", "experiment '%s' is defined twice",
                            spec->experiments[e].name);
        /* Attacks speak about the experiment's claims and conjectures: read after them. */
        const config_setting_t *attacks = config_setting_get_member(g, "attacks");
        if (attacks && ar_spec_read_attacks(c, spec, e, attacks))
            return -1;
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
    ar_spec_hooks hooks = {0};
    ar_spec_source src;
    /* libconfig reads the expanded text and never a file itself (spec_source.h). */
    if (ar_spec_source_read(&src, text, label, include_dir)) {
        ar_spec_fail_source(err, &src);
        goto done;
    }
    spec->source = strdup(label);
    if (!spec->source) {
        ar_spec_fail(err, label, NULL, "out of memory");
        goto done;
    }
    if (!config_read_string(&cfg, src.text)) {
        const char *msg = config_error_text(&cfg);
        char at[512];
        ar_spec_source_locate(&src, config_error_line(&cfg), at, sizeof at);
        if (strstr(msg, "mismatched element type"))
            ar_spec_fail(err, at, NULL, "%s: an array [...] holds one type; write 1.0 for 1 among floats, "
                 "or use a list (1, 0.5)", msg);
        else if (line_mentions_nonfinite(src.text, config_error_line(&cfg)))
            ar_spec_fail(err, at, NULL, "%s: nan and inf are not values a spec can hold", msg);
        else
            ar_spec_fail(err, at, NULL, "%s (not a valid libconfig spec)", msg);
        goto done;
    }
    if (ar_spec_stamp_positions(&cfg, &hooks)) {
        ar_spec_fail(err, label, NULL, "out of memory");
        goto done;
    }
    for (int i = 0; i < n_overrides; ++i)
        if (ar_spec_apply_override(&cfg, overrides[i], &hooks, err))
            goto done;
    ar_spec_context c = {label, &src, err};
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
    spec->canonical = ar_spec_canonical_text(spec);
    if (!spec->canonical || !spec->source_text) {
        ar_spec_fail(err, label, NULL, "out of memory");
        goto done;
    }
    spec->hash = ar_hash_bytes(0, spec->canonical, strlen(spec->canonical));
    status = 0;
done:
    config_destroy(&cfg);
    ar_spec_free_hooks(&hooks);
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
        return ar_spec_fail(err, path, NULL, "%s", why);
    int status = -1;
    char *dir = NULL;
    if (len > AR_SPEC_MAX_BYTES)
        ar_spec_fail(err, path, NULL, "larger than %d bytes: not a spec file", AR_SPEC_MAX_BYTES);
    else if (len == 0)
        ar_spec_fail(err, path, NULL, "empty file: a spec needs at least one experiment");
    else if (!(dir = strdup(path)))
        ar_spec_fail(err, path, NULL, "out of memory");
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
    for (int a = 0; spec->attacks && a < spec->n_attacks; ++a)
        free(spec->attacks[a].id);
    free(spec->attacks);
    free(spec->source);
    free(spec->source_text);
    free(spec->canonical);
    free(spec->title);
    memset(spec, 0, sizeof *spec);
}

/* The experiment a judged conjecture speaks about: the one it names, else the only one
 * whose simulator has its output. */
int ar_spec_scale_trials(ar_spec *spec, double factor)
{
    for (int e = 0; e < spec->n_experiments; ++e) {
        long t = lround(spec->experiments[e].trials * factor);
        spec->experiments[e].trials = t < 2 ? 2 : t > MAX_TRIALS ? MAX_TRIALS : t;
    }
    return ar_spec_recompute_canonical(spec);
}
