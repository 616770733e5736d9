/* spec_parts: what the spec's files share and nothing outside sim/06-spec needs: the
 * reading context, the --set hooks, and the helpers every part of a spec uses. */
#ifndef ATTNRANK_SPEC_PARTS_H
#define ATTNRANK_SPEC_PARTS_H

#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>

#include "attnrank/conjecture.h"
#include "attnrank/spec.h"
#include "spec_source.h"

/* Settings made by --set carry a hook: the override's text, for messages, and the
 * position of the setting it replaced, so overriding an axis keeps the axis order. */
typedef struct {
    const char *origin;
    int position;
} ar_spec_hook;

typedef struct {
    ar_spec_hook **items;
    int count, capacity;
} ar_spec_hooks;

typedef struct {
    const char *label;
    const ar_spec_source *src; /* the text libconfig read, and where its lines came from */
    char *err;
} ar_spec_context;

/* spec_setting.c: where a setting is, refusals, and what a setting holds. */
void ar_spec_where(const ar_spec_context *c, const config_setting_t *s, char *buf, size_t len);
int ar_spec_fail(char *err, const char *at, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int ar_spec_fail_source(char *err, const ar_spec_source *src);
const char *ar_spec_type_name(int type);
int ar_spec_is_number(const config_setting_t *s);
/* One parameter's value as the spec wrote it, checked against its type and range. */
int ar_spec_read_param_value(const ar_spec_context *c, const ar_param *p, const config_setting_t *s,
                             const char *at, double *out);
double ar_spec_number(const config_setting_t *s);
/* A parameter's value as a spec writes it: a choice by name, an integer whole, a real
 * at full precision. */
void ar_spec_write_value(FILE *f, const ar_param *p, double v);

/* spec_override.c: --set, applied to the parsed text, each override's setting hooked. */
int ar_spec_apply_override(config_t *cfg, const char *text, ar_spec_hooks *hooks, char *err);
void ar_spec_free_hooks(ar_spec_hooks *list);
int ar_spec_position_of(const config_setting_t *s);
int ar_spec_stamp_positions(config_t *cfg, ar_spec_hooks *hooks);
int ar_spec_valid_name(const char *s);

/* spec_canonical.c: the canonical form (every value, defaults included, full precision),
 * stored in a file and hashed. */
char *ar_spec_canonical_text(const ar_spec *spec);
int ar_spec_recompute_canonical(ar_spec *spec);
void ar_spec_shortest(double v, char *buf, size_t len);

/* spec_conjectures.c: the conjectures of a spec's experiment (its `conjectures` list). */
int ar_spec_read_conjectures(const ar_spec_context *c, ar_experiment *exp, const config_setting_t *list);

/* spec_attacks.c: the attacks of experiment e (its `attacks` list), after its claims. */
int ar_spec_read_attacks(const ar_spec_context *c, ar_spec *spec, int e, const config_setting_t *list);
void ar_spec_write_attacks(FILE *f, const ar_spec *spec, int e);

#endif
