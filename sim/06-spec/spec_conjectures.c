/* spec_conjectures: conjectures joining a spec: from its experiments' `conjectures`
 * lists, from a conjecture file and from judge's command line. */
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

static int conjecture_input(const ar_spec_context *c, const config_setting_t *g, int index, int allow_experiment,
                            ar_conjecture_input *in)
{
    memset(in, 0, sizeof *in);
    char at[128];
    ar_spec_where(c, g, at, sizeof at);
    if (!config_setting_is_group(g))
        return ar_spec_fail(c->err, at, "conjectures", "element %d must be a group { id = ...; ... }, not %s", index + 1,
                    ar_spec_type_name(config_setting_type(g)));
    snprintf(in->where, sizeof in->where, "%s", at);
    for (int i = 0; i < config_setting_length(g); ++i) {
        const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
        const char *key = config_setting_name(s);
        ar_spec_where(c, s, at, sizeof at);
        int f = ar_conjecture_field_parse(key);
        if (f < 0 || (f == AR_CONJ_EXPERIMENT && !allow_experiment))
            return ar_spec_fail(c->err, at, "conjectures", "unknown field '%s' (id, output, rule, prediction, where, "
                        "tolerance, along, versus, rate, next_order, element, statement, expect%s)", key,
                        allow_experiment ? ", experiment" : "");
        snprintf(in->at[f], sizeof in->at[f], "%s", at);
        int type = config_setting_type(s);
        int numeric = f == AR_CONJ_TOLERANCE || f == AR_CONJ_ELEMENT || f == AR_CONJ_RATE || f == AR_CONJ_NEXT_ORDER;
        if (type == CONFIG_TYPE_STRING && !numeric) {
            in->value[f] = config_setting_get_string(s);
        } else if (numeric && ar_spec_is_number(s)) {
            ar_spec_shortest(ar_spec_number(s), in->number[f], sizeof in->number[f]);
            in->value[f] = in->number[f];
        } else if (f == AR_CONJ_RATE && (type == CONFIG_TYPE_ARRAY || type == CONFIG_TYPE_LIST) &&
                   config_setting_length(s) == 2 && ar_spec_is_number(config_setting_get_elem(s, 0)) &&
                   ar_spec_is_number(config_setting_get_elem(s, 1))) {
            char lo[32], hi[32];
            ar_spec_shortest(ar_spec_number(config_setting_get_elem(s, 0)), lo, sizeof lo);
            ar_spec_shortest(ar_spec_number(config_setting_get_elem(s, 1)), hi, sizeof hi);
            snprintf(in->number[f], sizeof in->number[f], "%s, %s", lo, hi);
            in->value[f] = in->number[f];
        } else {
            return ar_spec_fail(c->err, at, key, "must be %s, not %s",
                        f == AR_CONJ_RATE ? "a number or [lo, hi]" : numeric ? "a number" : "a string",
                        ar_spec_type_name(type));
        }
    }
    return 0;
}

/* Adds a built conjecture to the experiment's claims. */
static int add_conjecture(const ar_spec_context *c, ar_experiment *exp, const ar_conjecture_input *in)
{
    if (exp->n_claims == AR_MAX_CLAIMS)
        return ar_spec_fail(c->err, in->where, "conjectures", "at most %d claims and conjectures per experiment (%s)",
                    AR_MAX_CLAIMS, exp->name);
    const ar_claim *claim;
    ar_verdict expect;
    if (ar_conjecture_build(in, exp, &claim, &expect, c->err))
        return -1;
    exp->claims[exp->n_claims] = claim;
    exp->expect[exp->n_claims++] = expect;
    return 0;
}

int ar_spec_read_conjectures(const ar_spec_context *c, ar_experiment *exp, const config_setting_t *list)
{
    char at[128];
    ar_spec_where(c, list, at, sizeof at);
    int type = config_setting_type(list);
    if (type != CONFIG_TYPE_LIST && !(type == CONFIG_TYPE_ARRAY && config_setting_length(list) == 0))
        return ar_spec_fail(c->err, at, "conjectures", "must be a list ( { ... }, ... ) of groups, not %s", ar_spec_type_name(type));
    for (int i = 0; i < config_setting_length(list); ++i) {
        ar_conjecture_input in;
        if (conjecture_input(c, config_setting_get_elem(list, (unsigned)i), i, 0, &in) ||
            add_conjecture(c, exp, &in))
            return -1;
    }
    return 0;
}

static ar_experiment *conjecture_experiment(const ar_spec_context *c, ar_spec *spec, const ar_conjecture_input *in)
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
                    ar_spec_fail(c->err, in->where, "conjectures: experiment", "experiments %s and %s both have output %s: say which, "
                         "experiment = NAME", found->name, x->name, output);
                    return NULL;
                }
                found = x;
            }
    }
    if (!name && !found && spec->n_experiments == 1)
        return &spec->experiments[0]; /* its build names the outputs there are */
    if (name)
        ar_spec_fail(c->err, in->at[AR_CONJ_EXPERIMENT], "conjectures: experiment", "no experiment '%s' in %s (its "
             "experiments: %s)", name, c->label, names);
    else if (!output)
        ar_spec_fail(c->err, in->where, "conjectures: output", "missing: which output the conjecture is about");
    else if (!found)
        ar_spec_fail(c->err, in->at[AR_CONJ_OUTPUT], "conjectures: output", "unknown output '%s': no experiment of %s has it "
             "(its experiments: %s; `attnrank info %s` lists their outputs)", output, c->label, names, c->label);
    return found;
}

static int add_judged(const ar_spec_context *c, ar_spec *spec, const ar_conjecture_input *in)
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
        return ar_spec_fail(err, path, NULL, "%s", why);
    if (len > AR_SPEC_MAX_BYTES) {
        free(text);
        return ar_spec_fail(err, path, NULL, "larger than %d bytes: not a conjecture file", AR_SPEC_MAX_BYTES);
    }
    /* @include names are relative to the file's folder, as in a spec (ar_spec_load). */
    char *dir = strdup(path);
    if (!dir) {
        free(text);
        return ar_spec_fail(err, path, NULL, "out of memory");
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    ar_spec_source src;
    config_t cfg;
    config_init(&cfg);
    ar_spec_context c = {file_label, &src, err};
    int status = -1;
    if (ar_spec_source_read(&src, text, path, slash ? dir : ".")) {
        ar_spec_fail_source(err, &src);
    } else if (!config_read_string(&cfg, src.text)) {
        char at[512];
        ar_spec_source_locate(&src, config_error_line(&cfg), at, sizeof at);
        ar_spec_fail(err, at, NULL, "%s (not a valid libconfig file)", config_error_text(&cfg));
    } else {
        config_setting_t *root = config_root_setting(&cfg);
        const config_setting_t *list = config_setting_get_member(root, "conjectures");
        char at[128];
        status = 0;
        for (int i = 0; status == 0 && i < config_setting_length(root); ++i) {
            const config_setting_t *s = config_setting_get_elem(root, (unsigned)i);
            if (strcmp(config_setting_name(s), "conjectures") != 0) {
                ar_spec_where(&c, s, at, sizeof at);
                status = ar_spec_fail(err, at, config_setting_name(s), "unknown field: a conjecture file holds only "
                              "conjectures = ( { experiment = \"...\"; id = ...; ... }, ... );");
            }
        }
        int type = list ? config_setting_type(list) : CONFIG_TYPE_NONE;
        if (status == 0 && type != CONFIG_TYPE_LIST) {
            if (list)
                ar_spec_where(&c, list, at, sizeof at);
            status = ar_spec_fail(err, list ? at : path, "conjectures", list ? "must be a list ( { ... }, ... ) of groups"
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

int ar_spec_add_conjectures(ar_spec *spec, const char *result_label, const char *path, const char *const *lines,
                            int n_lines, char *err)
{
    if (path && add_conjecture_file(spec, path, result_label, err))
        return -1;
    for (int i = 0; i < n_lines; ++i) {
        char label[64], *copy = strdup(lines[i]);
        snprintf(label, sizeof label, "--conjecture %d", i + 1);
        ar_spec_context c = {result_label, NULL, err};
        ar_conjecture_input in;
        int st = !copy ? ar_spec_fail(err, label, NULL, "out of memory")
                       : ar_conjecture_parse_line(copy, label, &in, err) || add_judged(&c, spec, &in) ? -1 : 0;
        free(copy);
        if (st)
            return -1;
    }
    return ar_spec_recompute_canonical(spec) ? ar_spec_fail(err, result_label, NULL, "out of memory") : 0;
}
