/* spec_override: --set KEY=VALUE overrides, applied to the parsed spec; each setting
 * made or replaced carries a hook (the override's text for messages, the position it
 * took, so that overriding an axis keeps the axes' order). */
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

/* NULL when out of memory (the list is left as it was). */
static ar_spec_hook *new_hook(ar_spec_hooks *list, const char *origin, int position)
{
    if (list->count == list->capacity) {
        int capacity = list->capacity ? 2 * list->capacity : 8;
        ar_spec_hook **items = realloc(list->items, (size_t)capacity * sizeof *items);
        if (!items)
            return NULL;
        list->items = items;
        list->capacity = capacity;
    }
    ar_spec_hook *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    h->origin = origin;
    h->position = position;
    return list->items[list->count++] = h;
}

/* Hangs a new hook on a setting; -1 when out of memory. */
static int set_hook(config_setting_t *s, ar_spec_hooks *hooks, const char *origin, int position)
{
    ar_spec_hook *h = new_hook(hooks, origin, position);
    if (!h)
        return -1;
    config_setting_set_hook(s, h);
    return 0;
}

void ar_spec_free_hooks(ar_spec_hooks *list)
{
    for (int i = 0; i < list->count; ++i)
        free(list->items[i]);
    free(list->items);
}

/* Position of a setting in its group, as the file had it (see stamp_positions). */
int ar_spec_position_of(const config_setting_t *s)
{
    const ar_spec_hook *h = config_setting_get_hook(s);
    return h ? h->position : config_setting_index(s);
}

/* Record every experiment field's place before overrides remove and re-add fields. */
int ar_spec_stamp_positions(config_t *cfg, ar_spec_hooks *hooks)
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
                           const char *origin, ar_spec_hooks *hooks)
{
    /* New fields go last; a replaced one keeps its place (libconfig appends). */
    int position = 1 << 20;
    config_setting_t *old = config_setting_get_member(group, name);
    if (old) {
        position = ar_spec_position_of(old);
        config_setting_remove(group, name);
    }
    if (copy_setting(group, name, value))
        return -1;
    return set_hook(config_setting_get_member(group, name), hooks, origin, position);
}

int ar_spec_valid_name(const char *s)
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
    return isalpha((unsigned char)*s) && ar_spec_valid_name(s);
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
        ar_spec_fail(err, "--set", NULL, "out of memory");
        return NULL;
    }
    snprintf(at, sizeof at, "--set %s", text);
    ar_spec_source src;
    config_setting_t *v = NULL;
    if (ar_spec_source_read(&src, wrapped, "--set", NULL))
        ar_spec_fail(err, at, key, "%s", src.error);
    else if (!config_read_string(parsed, src.text))
        ar_spec_fail(err, "--set", NULL, "%s: cannot read the value '%s' (%s); strings need quotes: "
             "key=\"text\", axes brackets: key=[1,2]", text, value, config_error_text(parsed));
    else if (config_setting_length(config_root_setting(parsed)) != 1)
        ar_spec_fail(err, "--set", NULL, "%s: one assignment per --set; give each its own --set", text);
    else
        v = config_lookup(parsed, "v");
    free(wrapped);
    ar_spec_source_free(&src);
    return v;
}

int ar_spec_apply_override(config_t *cfg, const char *text, ar_spec_hooks *hooks, char *err)
{
    const char *eq = strchr(text, '=');
    char key[256];
    if (!eq || eq == text || (size_t)(eq - text) >= sizeof key)
        return ar_spec_fail(err, "--set", NULL, "'%s' is not of the form key=value", text);
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
            status = ar_spec_fail(err, "--set", NULL, "%s: the experiment's name before '.' is missing", text);
        else if (!*field)
            status = ar_spec_fail(err, "--set", NULL, "%s: the field name after '%s.' is missing", text, key);
        else if (!valid_field_name(field))
            status = ar_spec_fail(err, "--set", NULL, "%s: '%s' is not a field name", text, field);
        else if (!target)
            status = ar_spec_fail(err, "--set", NULL, "%s: no experiment named '%s' in the spec", text, key);
        else if (replace_setting(target, field, value, text, hooks))
            status = ar_spec_fail(err, "--set", NULL, "%s: out of memory", text);
    } else if (strcmp(key, "seed") == 0 || strcmp(key, "title") == 0) {
        if (replace_setting(root, key, value, text, hooks))
            status = ar_spec_fail(err, "--set", NULL, "%s: out of memory", text);
    } else if (!valid_field_name(key)) {
        status = ar_spec_fail(err, "--set", NULL, "%s: '%s' is not a field name", text, key);
    } else {
        int n = experiments ? config_setting_length(experiments) : 0;
        for (int i = 0; status == 0 && i < n; ++i) {
            config_setting_t *e = config_setting_get_elem(experiments, (unsigned)i);
            if (config_setting_is_group(e) && replace_setting(e, key, value, text, hooks))
                status = ar_spec_fail(err, "--set", NULL, "%s: out of memory", text);
        }
        if (n == 0)
            status = ar_spec_fail(err, "--set", NULL, "%s: the spec has no experiments to set it in", text);
    }
    config_destroy(&parsed);
    return status;
}

/* ---- validation ---------------------------------------------------------------- */
