/* spec_setting: one setting of a spec: where it is written, refusals at that place,
 * what it holds, and a parameter's value read from it and written back; what every
 * part of a spec (spec.c, spec_override.c, spec_conjectures.c, spec_attacks.c,
 * spec_canonical.c) uses. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec_parts.h"
#include "attnrank/message.h"

/* "file:line" of a setting, or "--set TEXT" for one made by an override. */
void ar_spec_where(const ar_spec_context *c, const config_setting_t *s, char *buf, size_t len)
{
    for (const config_setting_t *t = s; t; t = config_setting_parent(t)) {
        const ar_spec_hook *h = config_setting_get_hook(t);
        if (h && h->origin) {
            snprintf(buf, len, "--set %s", h->origin);
            return;
        }
    }
    ar_spec_source_locate(c->src, (int)config_setting_source_line(s), buf, len);
}

int ar_spec_fail(char *err, const char *at, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ar_message_vfail(err, AR_ERR_LEN, at, field, fmt, ap);
    va_end(ap);
    return -1;
}

/* spec_source's refusal, at its place. */
int ar_spec_fail_source(char *err, const ar_spec_source *src)
{
    return ar_spec_fail(err, src->error_at, src->error_field[0] ? src->error_field : NULL, "%s", src->error);
}

const char *ar_spec_type_name(int type)
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

int ar_spec_is_number(const config_setting_t *s)
{
    int t = config_setting_type(s);
    return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_FLOAT;
}

double ar_spec_number(const config_setting_t *s)
{
    if (config_setting_type(s) == CONFIG_TYPE_FLOAT)
        return config_setting_get_float(s);
    return (double)config_setting_get_int64(s);
}

/* -1 when libconfig cannot add the setting (out of memory). */
int ar_spec_read_param_value(const ar_spec_context *c, const ar_param *p, const config_setting_t *s,
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
            return ar_spec_fail(c->err, at, p->name, "'%s' is not one of: %s", config_setting_get_string(s), list);
        }
        *out = idx;
        return 0;
    }
    if (!ar_spec_is_number(s))
        goto wrong_type;
    /* An integer is written as one, as trials and seed must be: 8.0 (or 1e3) is a real
     * number, refused here as there. */
    if (p->type == AR_PARAM_INT && config_setting_type(s) == CONFIG_TYPE_FLOAT) {
        double r = config_setting_get_float(s);
        if (isfinite(r) && r == floor(r) && fabs(r) < 1e15)
            return ar_spec_fail(c->err, at, p->name, "must be an integer, not the real number %.1f (write %.0f)", r, r);
        return ar_spec_fail(c->err, at, p->name, "must be an integer, not %.17g", r);
    }
    double v = ar_spec_number(s);
    if (!isfinite(v))
        return ar_spec_fail(c->err, at, p->name, "must be a finite number, not %g", v);
    if (p->type == AR_PARAM_INT && v != floor(v))
        return ar_spec_fail(c->err, at, p->name, "must be an integer, not %.17g", v);
    if (v < p->min || v > p->max || (p->min_exclusive && v <= p->min)) {
        char value[32]; /* an integer exactly: 4294967304, not 4.29497e+09 */
        snprintf(value, sizeof value, p->type == AR_PARAM_INT && fabs(v) < 1e18 ? "%.0f" : "%g", v);
        if (p->min_exclusive)
            return ar_spec_fail(c->err, at, p->name, "%s is out of range: must be > %g and <= %g", value, p->min, p->max);
        return ar_spec_fail(c->err, at, p->name, "%s is out of range [%g, %g]", value, p->min, p->max);
    }
    *out = v;
    return 0;
wrong_type:
    return ar_spec_fail(c->err, at, p->name, "must be %s, not %s",
                p->type == AR_PARAM_CHOICE ? "a string" : p->type == AR_PARAM_INT ? "an integer" : "a number",
                ar_spec_type_name(config_setting_type(s)));
}

/* A parameter's value as a spec writes it (spec_parts.h). */
void ar_spec_write_value(FILE *f, const ar_param *p, double v)
{
    if (p->type == AR_PARAM_CHOICE)
        fprintf(f, "\"%s\"", p->choices[(int)v]);
    else if (p->type == AR_PARAM_INT)
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.17g", v);
}
