/* conjecture: a user's claim, checked against its experiment's grid and built into an
 * ar_claim (see conjecture.h). */
#define _GNU_SOURCE
#include "attnrank/conjecture.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "attnrank/message.h"
#include "attnrank/registry.h"

static const char *const field_names[AR_CONJ_FIELDS] = {
    "id", "output", "rule", "prediction", "where", "tolerance", "along",
    "versus", "rate", "next_order", "element", "statement", "expect", "experiment"};

const char *ar_conjecture_field_name(ar_conjecture_field field)
{
    return field_names[field];
}

int ar_conjecture_field_parse(const char *name)
{
    for (int f = 0; f < AR_CONJ_FIELDS; ++f)
        if (!strcmp(name, field_names[f]))
            return f;
    return -1;
}

/* The rules by the names a spec uses for them (ar_rules[].spec_name; the tables' names
 * have spaces). */
static const char *rule_spec_name(ar_rule rule)
{
    return ar_rules[rule].spec_name ? ar_rules[rule].spec_name : "?";
}

/* A built conjecture: the claim first, so the claim's address is the whole's. */
typedef struct conjecture {
    ar_claim claim;
    char id[16];
    char statement[160];
    char formula[2 * AR_EXPR_MAX_LEN + 32];
    ar_expr *prediction, *where;
} conjecture;

void ar_conjecture_free(const ar_claim *claim)
{
    if (!claim)
        return;
    conjecture *c = (conjecture *)claim;
    ar_expr_free(c->prediction);
    ar_expr_free(c->where);
    free(c);
}

static int fail(char *err, const char *at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, const char *at, const char *field, const char *fmt, ...)
{
    char where_field[40];
    snprintf(where_field, sizeof where_field, "conjectures: %.20s", field);
    va_list ap;
    va_start(ap, fmt);
    ar_message_vfail(err, AR_ERR_LEN, at, where_field, fmt, ap);
    va_end(ap);
    return -1;
}

static int needs_tolerance(ar_rule r) { return ar_rules[r].needs_tolerance; }
static int needs_axis(ar_rule r) { return ar_rules[r].needs_axis; }
/* Trends and measurements say nothing about a value: their prediction only marks
 * where they speak (and is 0 when not given). */
static int needs_prediction(ar_rule r) { return ar_rules[r].needs_prediction; }

static int parse_number(const char *text, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(text, &end);
    while (isspace((unsigned char)*end))
        end++;
    return end != text && !*end && errno == 0 && isfinite(*v) ? 0 : -1;
}

/* Text fields end up in the canonical spec between quotes: the first character that
 * cannot, or NULL. */
static const char *unquotable(const char *s)
{
    for (; *s; ++s)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return s;
    return NULL;
}

/* "a, b, c": the simulator's output names, or its parameter names, for messages. */
static void name_list(const ar_sim *sim, int outputs, char *buf, size_t len)
{
    buf[0] = '\0';
    int count = outputs ? sim->n_outputs : sim->n_params;
    for (int i = 0; i < count; ++i) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", used ? ", " : "", outputs ? sim->outputs[i].name : sim->params[i].name);
    }
}

/* An output a rule cannot take: a density over a grid or a binned histogram. */
static int is_histogram(const ar_output *o)
{
    return o->columns > 0 || (o->length && o->index_value);
}

static int find_output(const ar_sim *sim, const char *name)
{
    for (int o = 0; o < sim->n_outputs; ++o)
        if (!strcmp(sim->outputs[o].name, name))
            return o;
    return -1;
}

/* An axis field (along, versus): a parameter the grid sweeps with two values at least. */
static int check_axis(const ar_conjecture_input *in, ar_conjecture_field f, const ar_experiment *x, ar_rule rule,
                      char *err)
{
    const char *name = in->value[f];
    int param = ar_sim_param_index(x->sim, name);
    char names[512];
    if (param < 0) {
        name_list(x->sim, 0, names, sizeof names);
        return fail(err, in->at[f], field_names[f], "unknown parameter '%s' (%s's parameters: %s)", name,
                    x->sim->name, names);
    }
    int numeric = ar_rules[rule].extrapolates; /* they extrapolate along it */
    if (numeric && x->sim->params[param].type == AR_PARAM_CHOICE)
        return fail(err, in->at[f], field_names[f], "'%s' is a choice parameter; rule %s needs a numeric axis", name,
                    rule_spec_name(rule));
    int axis = ar_experiment_axis_of(x, param);
    if (axis < 0 || x->axes[axis].count < 2)
        return fail(err, in->at[f], field_names[f], "'%s' is not swept by experiment %s's grid (it needs two values "
                    "at least)", name, x->name);
    return param;
}

static int compile(const ar_conjecture_input *in, ar_conjecture_field f, const ar_sim *sim, ar_expr **out, char *err)
{
    char why[AR_ERR_LEN / 2];
    *out = ar_expr_compile(in->value[f], sim, why, sizeof why);
    return *out ? 0 : fail(err, in->at[f], field_names[f], "%s", why);
}

/* The claim's default one-line statement, from its fields. */
static void default_statement(const conjecture *c, const char *output, const char *where, char *buf, size_t len)
{
    const ar_claim *k = &c->claim;
    const char *f = k->prediction_expr ? ar_expr_text(k->prediction_expr) : "";
    ar_rules[k->rule].state(k, output, f, buf, len);
    if (where) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " where %s", where);
    }
}

/* A trend or limit needs a line along its axis with two points where it speaks:
 * seen[] marks, per line (its point at the axis's first value), a first one. */
static int line_has_two(const ar_experiment *x, int axis, long p, unsigned char *seen)
{
    long stride = 1;
    for (int a = x->n_axes - 1; a > axis; --a)
        stride *= x->axes[a].count;
    long start = p - (p / stride % x->axes[axis].count) * stride;
    if (seen[start])
        return 1;
    seen[start] = 1;
    return 0;
}

/* Every point of the grid: the expressions are finite where the conjecture speaks,
 * and it speaks at one point at least, where the output is measured; a trend or limit
 * speaks at two points of one line, and a limit only at positive values of its axis. */
static int check_on_grid(const ar_conjecture_input *in, const conjecture *c, const ar_experiment *x, char *err)
{
    const ar_claim *k = &c->claim;
    const ar_output *out = &x->sim->outputs[k->output];
    long speaks = 0, measured = 0;
    int which[AR_MAX_PARAMS];
    for (int a = 0; a < x->n_axes; ++a)
        which[a] = x->axes[a].param;
    int along = k->trend_axis ? ar_sim_param_index(x->sim, k->trend_axis) : -1;
    int axis = along >= 0 ? ar_experiment_axis_of(x, along) : -1, line_of_two = axis < 0;
    int extrapolates = ar_rules[k->rule].extrapolates;
    unsigned char *seen = axis >= 0 ? calloc((size_t)x->n_points, 1) : NULL;
    if (axis >= 0 && !seen)
        return fail(err, in->where, "id", "out of memory");
    int status = -1;
    for (long p = 0; p < x->n_points; ++p) {
        ar_point point;
        ar_experiment_point(x, p, &point);
        char desc[256] = "";
        if (c->where) {
            double w = ar_expr_eval(c->where, &point);
            if (isnan(w)) {
                ar_point_describe(&point, which, x->n_axes, desc, sizeof desc);
                fail(err, in->at[AR_CONJ_WHERE], "where", "'%s' is NaN at the point %s of experiment %s",
                     in->value[AR_CONJ_WHERE], x->n_axes ? desc : "(single point)", x->name);
                goto done;
            }
            if (w == 0)
                continue;
        }
        speaks++;
        double f = NAN;
        if (c->prediction) {
            f = ar_expr_eval(c->prediction, &point);
            if (!isfinite(f)) {
                ar_point_describe(&point, which, x->n_axes, desc, sizeof desc);
                fail(err, in->at[AR_CONJ_PREDICTION], "prediction", "'%s' is %s at the point %s of experiment %s%s",
                     in->value[AR_CONJ_PREDICTION], isnan(f) ? "NaN" : f > 0 ? "+inf" : "-inf",
                     x->n_axes ? desc : "(single point)", x->name, isnan(f) ? "" : " (a division by zero?)");
                goto done;
            }
        }
        if (extrapolates && !(point.value[along] > 0)) {
            ar_point_describe(&point, which, x->n_axes, desc, sizeof desc);
            fail(err, in->at[AR_CONJ_ALONG], "along", "%s = %g at the point %s: rule %s extrapolates c + a %s^-b, "
                 "defined for %s > 0 only (a where can leave the point out)", k->trend_axis, point.value[along], desc,
                 rule_spec_name(k->rule), k->trend_axis, k->trend_axis);
            goto done;
        }
        if (out->applies && !out->applies(&point))
            continue;
        int length = ar_output_length(out, &point);
        int e = c->claim.element;
        if (out->length && (e >= length || e < -length)) {
            ar_point_describe(&point, which, x->n_axes, desc, sizeof desc);
            fail(err, in->at[AR_CONJ_ELEMENT], "element", "%d is outside %s's %d values at the point %s of "
                 "experiment %s", e, out->name, length, x->n_axes ? desc : "(single point)", x->name);
            goto done;
        }
        /* An equality holds within tolerance x |prediction|: at 0 there is no band, so
         * it could never hold there (and no factor k of 0 says what would). */
        if (ar_rules[k->rule].no_band_at_zero && f == 0) {
            ar_point_describe(&point, which, x->n_axes, desc, sizeof desc);
            fail(err, in->at[AR_CONJ_PREDICTION], "prediction", "'%s' is 0 at the point %s of experiment %s: an "
                 "equality's tolerance is relative (tolerance x |prediction|) and has no band at 0; state "
                 "E[%s] near 0 as an upper_bound and a lower_bound (prediction = 0.1 and -0.1), or leave the point "
                 "out with a where", in->value[AR_CONJ_PREDICTION], x->n_axes ? desc : "(single point)", x->name,
                 out->name);
            goto done;
        }
        measured++;
        if (axis >= 0 && line_has_two(x, axis, p, seen))
            line_of_two = 1;
    }
    if (speaks == 0)
        fail(err, in->at[AR_CONJ_WHERE], "where", "'%s' is false at every point of experiment %s: the conjecture "
             "would say nothing", in->value[AR_CONJ_WHERE], x->name);
    else if (measured == 0)
        fail(err, in->at[AR_CONJ_OUTPUT], "output", "%s is not measured at any point where the conjecture speaks",
             out->name);
    else if (!line_of_two)
        fail(err, in->at[in->value[AR_CONJ_WHERE] ? AR_CONJ_WHERE : AR_CONJ_ALONG],
             in->value[AR_CONJ_WHERE] ? "where" : "along", "no line along %s has two points where the conjecture "
             "speaks and %s is measured: rule %s compares values along %s", k->trend_axis, out->name,
             rule_spec_name(k->rule), k->trend_axis);
    else
        status = 0;
done:
    free(seen);
    return status;
}

static int check_id(const ar_conjecture_input *in, const ar_experiment *x, char *err)
{
    const char *id = in->value[AR_CONJ_ID];
    const char *at = in->at[AR_CONJ_ID];
    size_t len = strlen(id);
    int ok = len >= 1 && len <= 15 && isalpha((unsigned char)id[0]);
    for (size_t i = 0; ok && i < len; ++i)
        ok = isalnum((unsigned char)id[i]) || id[i] == '_' || id[i] == '-';
    if (!ok)
        return fail(err, at, "id", "'%s' must be 1-15 letters, digits, '_' or '-', starting with a letter", id);
    if (ar_claim_find(id))
        return fail(err, at, "id", "'%s' is a built-in claim's id; give the conjecture a name of its own", id);
    for (int k = 0; k < x->n_claims; ++k)
        if (!strcmp(x->claims[k]->id, id))
            return fail(err, at, "id", "'%s' is given twice in experiment %s", id, x->name);
    return 0;
}

/* The fields a rule takes, given or refused. */
static int check_fields(const ar_conjecture_input *in, ar_rule rule, const ar_output *out, char *err)
{
    static const struct {
        ar_conjecture_field field;
        const char *who;
    } only[] = {{AR_CONJ_TOLERANCE, "equality, limit and log_slope"},
                {AR_CONJ_ALONG, "limit, log_slope, decreasing, increasing and steeper"},
                {AR_CONJ_VERSUS, "steeper"},
                {AR_CONJ_RATE, "limit"},
                {AR_CONJ_NEXT_ORDER, "limit and log_slope"}};
    int wanted[] = {needs_tolerance(rule), needs_axis(rule), ar_rules[rule].needs_versus, ar_rules[rule].takes_rate,
                    ar_rules[rule].extrapolates};
    int required[] = {needs_tolerance(rule), needs_axis(rule), ar_rules[rule].needs_versus, 0, 0};
    const char *rname = rule_spec_name(rule);
    for (size_t i = 0; i < sizeof only / sizeof only[0]; ++i) {
        ar_conjecture_field f = only[i].field;
        if (in->value[f] && !wanted[i])
            return fail(err, in->at[f], field_names[f], "only %s conjectures take it, not %s", only[i].who, rname);
        if (!in->value[f] && required[i])
            return fail(err, in->where, field_names[f], "missing: rule %s needs it", rname);
    }
    if (!in->value[AR_CONJ_PREDICTION] && needs_prediction(rule))
        return fail(err, in->where, "prediction", "missing: rule %s needs a prediction", rname);
    if (out->length && !in->value[AR_CONJ_ELEMENT])
        return fail(err, in->at[AR_CONJ_OUTPUT], "output", "%s has one value per %s: give element = I (which one; "
                    "negative counts from the end)", out->name, out->index_name ? out->index_name : "index");
    if (!out->length && in->value[AR_CONJ_ELEMENT])
        return fail(err, in->at[AR_CONJ_ELEMENT], "element", "%s is one value per trial: it has no elements",
                    out->name);
    return 0;
}

static int read_numbers(const ar_conjecture_input *in, ar_claim *k, char *err)
{
    double v;
    const char *t;
    if ((t = in->value[AR_CONJ_TOLERANCE])) {
        if (parse_number(t, &v) || !(v > 0 && v < 1))
            return fail(err, in->at[AR_CONJ_TOLERANCE], "tolerance", "'%s' must be a relative tolerance in (0, 1)", t);
        k->rel_tol = v;
    }
    if ((t = in->value[AR_CONJ_ELEMENT])) {
        if (parse_number(t, &v) || v != floor(v) || fabs(v) > 1e6)
            return fail(err, in->at[AR_CONJ_ELEMENT], "element", "'%s' must be an integer", t);
        k->element = (int)v;
    }
    if ((t = in->value[AR_CONJ_RATE])) {
        char lo[80], hi[80];
        const char *comma = strchr(t, ',');
        double a, b;
        int ok;
        if (comma) {
            snprintf(lo, sizeof lo, "%.*s", (int)(comma - t < 79 ? comma - t : 79), t);
            snprintf(hi, sizeof hi, "%s", comma + 1);
            ok = !parse_number(lo, &a) && !parse_number(hi, &b) && a > 0 && b > a && b <= 10;
        } else {
            ok = !parse_number(t, &a) && a > 0 && a <= 10;
            b = a;
        }
        if (!ok)
            return fail(err, in->at[AR_CONJ_RATE], "rate", "'%s' must be the exponent b of c + a n^-b, 0 < b <= 10, "
                        "or a range [lo, hi] with 0 < lo < hi <= 10", t);
        k->rate_lo = a, k->rate_hi = b;
    }
    /* the finite-size model's next order, a2 n^-2b, as the built-in claims whose data
     * need it (S1, S4, S8, S8rank) */
    if ((t = in->value[AR_CONJ_NEXT_ORDER])) {
        if (parse_number(t, &v) || (v != 0 && v != 1))
            return fail(err, in->at[AR_CONJ_NEXT_ORDER], "next_order", "'%s' must be 1 (fit c + a n^-b + a2 n^-2b) "
                        "or 0", t);
        k->second_order = (int)v;
    }
    return 0;
}

int ar_conjecture_build(const ar_conjecture_input *in, const ar_experiment *x, const ar_claim **claim,
                        ar_verdict *expect, char *err)
{
    *claim = NULL;
    for (int f = 0; f < AR_CONJ_FIELDS; ++f) {
        const char *bad = in->value[f] ? unquotable(in->value[f]) : NULL;
        if (!bad)
            continue;
        char shown[48]; /* the offending character, quoted or as a byte */
        if (*bad == '"' || *bad == '\\')
            snprintf(shown, sizeof shown, "'%c'", *bad);
        else
            snprintf(shown, sizeof shown, "byte 0x%02x", (unsigned char)*bad);
        return fail(err, in->at[f], field_names[f], "character %d of '%.60s%s' is %s: text must be printable "
                    "ASCII without quotes or backslashes", (int)(bad - in->value[f]) + 1, in->value[f],
                    strlen(in->value[f]) > 60 ? "..." : "", shown);
    }
    if (!in->value[AR_CONJ_ID])
        return fail(err, in->where, "id", "missing: every conjecture needs an id");
    if (check_id(in, x, err))
        return -1;
    if (!in->value[AR_CONJ_OUTPUT])
        return fail(err, in->where, "output", "missing: which output of %s the conjecture is about", x->sim->name);
    int output = find_output(x->sim, in->value[AR_CONJ_OUTPUT]);
    char names[1024];
    if (output < 0) {
        name_list(x->sim, 1, names, sizeof names);
        return fail(err, in->at[AR_CONJ_OUTPUT], "output", "unknown output '%s' (%s's outputs: %s)",
                    in->value[AR_CONJ_OUTPUT], x->sim->name, names);
    }
    const ar_output *out = &x->sim->outputs[output];
    if (is_histogram(out))
        return fail(err, in->at[AR_CONJ_OUTPUT], "output", "%s is a histogram (%s): no rule judges it; state the "
                    "conjecture about a scalar output", out->name,
                    out->columns ? "a density over a 2-D grid" : "a density over bins");
    if (!in->value[AR_CONJ_RULE])
        return fail(err, in->where, "rule", "missing: upper_bound, lower_bound, equality, limit, log_slope, "
                    "decreasing, increasing, steeper, every_trial, witness or measure");
    ar_rule rule = AR_RULE_COUNT;
    for (int i = 0; i < AR_RULE_COUNT; ++i)
        if (ar_rules[i].spec_name && !strcmp(in->value[AR_CONJ_RULE], ar_rules[i].spec_name))
            rule = (ar_rule)i;
    if (rule == AR_RULE_COUNT)
        return fail(err, in->at[AR_CONJ_RULE], "rule", "unknown rule '%s' (upper_bound, lower_bound, equality, limit, "
                    "log_slope, decreasing, increasing, steeper, every_trial, witness, measure)",
                    in->value[AR_CONJ_RULE]);
    if (check_fields(in, rule, out, err))
        return -1;

    conjecture *c = calloc(1, sizeof *c);
    if (!c)
        return fail(err, in->where, "id", "out of memory");
    ar_claim *k = &c->claim;
    snprintf(c->id, sizeof c->id, "%s", in->value[AR_CONJ_ID]);
    k->id = c->id;
    k->sim = x->sim;
    k->output = output;
    k->rule = rule;
    k->conjecture = 1;
    k->statement = c->statement;
    k->formula = c->formula;
    int along = -1, versus = -1;
    if (read_numbers(in, k, err) ||
        (in->value[AR_CONJ_ALONG] &&
         (along = check_axis(in, AR_CONJ_ALONG, x, rule, err)) < 0) ||
        (in->value[AR_CONJ_VERSUS] && (versus = check_axis(in, AR_CONJ_VERSUS, x, rule, err)) < 0))
        goto refused;
    if (along >= 0)
        k->trend_axis = x->sim->params[along].name;
    if (versus >= 0)
        k->versus_axis = x->sim->params[versus].name;
    if (along >= 0 && along == versus) {
        fail(err, in->at[AR_CONJ_VERSUS], "versus", "'%s' is the along axis too: steeper compares two axes",
             in->value[AR_CONJ_VERSUS]);
        goto refused;
    }
    if (in->value[AR_CONJ_PREDICTION] && compile(in, AR_CONJ_PREDICTION, x->sim, &c->prediction, err))
        goto refused;
    if (in->value[AR_CONJ_WHERE] && compile(in, AR_CONJ_WHERE, x->sim, &c->where, err)) {
        if (!in->value[AR_CONJ_WHERE][strspn(in->value[AR_CONJ_WHERE], " \t")])
            fail(err, in->at[AR_CONJ_WHERE], "where", "empty: leave where out for a conjecture about every point");
        goto refused;
    }
    k->prediction_expr = c->prediction;
    k->where_expr = c->where;
    if (check_on_grid(in, c, x, err))
        goto refused;

    const char *where = in->value[AR_CONJ_WHERE];
    snprintf(c->formula, sizeof c->formula, "%s%s%s", c->prediction ? ar_expr_text(c->prediction) : "(none)",
             where ? " where " : "", where ? where : "");
    if (in->value[AR_CONJ_STATEMENT]) {
        size_t len = strlen(in->value[AR_CONJ_STATEMENT]);
        if (len == 0 || len >= sizeof c->statement) {
            fail(err, in->at[AR_CONJ_STATEMENT], "statement", len ? "longer than %zu characters" : "empty: leave it "
                 "out for one made from the fields (at most %zu characters)", sizeof c->statement - 1);
            goto refused;
        }
        snprintf(c->statement, sizeof c->statement, "%s", in->value[AR_CONJ_STATEMENT]);
    } else {
        default_statement(c, out->name, where, c->statement, sizeof c->statement);
    }
    *expect = ar_claim_default_expectation(k);
    if (in->value[AR_CONJ_EXPECT]) {
        if (ar_verdict_parse(in->value[AR_CONJ_EXPECT], expect) != 0 || *expect == AR_NOT_RUN) {
            fail(err, in->at[AR_CONJ_EXPECT], "expect", "'%s' must be \"HOLDS\", \"VIOLATED\", \"INCONCLUSIVE\" or "
                 "\"MEASURED\"", in->value[AR_CONJ_EXPECT]);
            goto refused;
        }
        if (ar_rules[rule].measures != (*expect == AR_MEASURED)) {
            fail(err, in->at[AR_CONJ_EXPECT], "expect", "%s", ar_rules[rule].measures
                 ? "a measurement can only be \"MEASURED\"" : "a conjecture with a verdict cannot be \"MEASURED\"");
            goto refused;
        }
    }
    char why[256];
    if (ar_claims_check(k, 1, why, sizeof why)) { /* the registry's own check of a claim */
        fail(err, in->where, "rule", "%s", why);
        goto refused;
    }
    *claim = k;
    return 0;
refused:
    ar_conjecture_free(k);
    return -1;
}

/* ---- judge's --conjecture 'key=value; ...' ------------------------------------------ */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* The next `key=value` of a line, cut at a ';' outside the value's quotes (a value that
 * starts with ' or " may hold ';'); NULL at the end. */
static char *next_item(char **cursor)
{
    char *start = *cursor, *p = start, *eq = NULL;
    if (!*p)
        return NULL;
    for (; *p && *p != ';'; ++p) {
        if (*p != '=' || eq)
            continue;
        eq = p;
        char *v = p + 1 + strspn(p + 1, " \t");
        char *close = *v == '"' || *v == '\'' ? strchr(v + 1, *v) : NULL;
        if (close)
            p = close;
    }
    if (*p)
        *p++ = '\0';
    *cursor = p;
    return start;
}

int ar_conjecture_parse_line(char *text, const char *label, ar_conjecture_input *in, char *err)
{
    int given = 0;
    memset(in, 0, sizeof *in);
    snprintf(in->where, sizeof in->where, "%s", label);
    for (int f = 0; f < AR_CONJ_FIELDS; ++f)
        snprintf(in->at[f], sizeof in->at[f], "%s", label);
    char *cursor = text;
    for (char *part; (part = next_item(&cursor));) {
        char *item = trim(part);
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq)
            return fail(err, label, "field", "'%s' is not key=value", item);
        *eq = '\0';
        char *key = trim(item), *value = trim(eq + 1);
        int f = ar_conjecture_field_parse(key);
        if (f < 0)
            return fail(err, label, "field", "unknown field '%s' (id, output, rule, prediction, where, tolerance, "
                        "along, versus, rate, next_order, element, statement, expect, experiment)", key);
        if (in->value[f])
            return fail(err, label, key, "given twice");
        size_t len = strlen(value);
        if (len >= 2 && (value[0] == '"' || value[0] == '\'') && value[len - 1] == value[0]) {
            value[len - 1] = '\0';
            value++;
        }
        if (f == AR_CONJ_RATE && value[0] == '[' && value[strlen(value) - 1] == ']') {
            value[strlen(value) - 1] = '\0';
            value++;
        }
        in->value[f] = value;
        given++;
    }
    return given ? 0 : fail(err, label, "id", "empty: give the fields, 'id=...; output=...; rule=...; ...'");
}

/* ---- canonical text ----------------------------------------------------------------- */

/* A real number libconfig reads back as a float, bit for bit. */
static void write_real(FILE *f, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    fprintf(f, "%s%s", buf, strpbrk(buf, ".eE") ? "" : ".0");
}

void ar_conjecture_write(FILE *f, const ar_claim *claim)
{
    const conjecture *c = (const conjecture *)claim;
    fprintf(f, "{ id = \"%s\"; output = \"%s\"; rule = \"%s\";", claim->id, claim->sim->outputs[claim->output].name,
            rule_spec_name(claim->rule));
    if (c->prediction)
        fprintf(f, " prediction = \"%s\";", ar_expr_text(c->prediction));
    if (c->where)
        fprintf(f, " where = \"%s\";", ar_expr_text(c->where));
    if (needs_tolerance(claim->rule)) {
        fprintf(f, " tolerance = ");
        write_real(f, claim->rel_tol);
        fprintf(f, ";");
    }
    if (claim->trend_axis)
        fprintf(f, " along = \"%s\";", claim->trend_axis);
    if (claim->versus_axis)
        fprintf(f, " versus = \"%s\";", claim->versus_axis);
    if (ar_rules[claim->rule].takes_rate && (claim->rate_lo > 0 || claim->rate_hi > 0)) {
        fprintf(f, " rate = ");
        if (claim->rate_lo == claim->rate_hi) {
            write_real(f, claim->rate_lo);
        } else {
            fprintf(f, "[");
            write_real(f, claim->rate_lo);
            fprintf(f, ", ");
            write_real(f, claim->rate_hi);
            fprintf(f, "]");
        }
        fprintf(f, ";");
    }
    if (claim->second_order)
        fprintf(f, " next_order = 1;");
    if (claim->sim->outputs[claim->output].length)
        fprintf(f, " element = %d;", claim->element);
    fprintf(f, " statement = \"%s\"; }", claim->statement);
}
