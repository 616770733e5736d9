/* sim: the point helpers every simulator and every layer above shares (sim.h): a
 * parameter by name, a point's defaults, its stream key and its description. */
#include "attnrank/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int ar_sim_param_index(const ar_sim *sim, const char *name)
{
    for (int i = 0; i < sim->n_params; ++i)
        if (strcmp(sim->params[i].name, name) == 0)
            return i;
    return -1;
}

int ar_choice_index(const ar_param *param, const char *name)
{
    for (int i = 0; param->choices && param->choices[i]; ++i)
        if (strcmp(param->choices[i], name) == 0)
            return i;
    return -1;
}

int ar_output_range(const ar_output *o, const ar_point *p, double *lower, double *upper)
{
    *lower = -INFINITY, *upper = INFINITY;
    if (o->hist_max) /* ar_histogram counts the whole values in 0..hist_max alone */
        *lower = 0, *upper = o->hist_max(p);
    if (o->range) {
        double lo, hi;
        o->range(p, &lo, &hi);
        *lower = fmax(*lower, lo), *upper = fmin(*upper, hi);
    }
    return o->hist_max != NULL;
}

void ar_range_unit(const ar_point *point, double *lower, double *upper)
{
    (void)point;
    *lower = 0, *upper = 1;
}

void ar_range_rank_measure(double dim, double *lower, double *upper)
{
    *lower = 1 - AR_RANGE_ROUNDING, *upper = dim * (1 + AR_RANGE_ROUNDING);
}

void ar_range_nonnegative(const ar_point *point, double *lower, double *upper)
{
    (void)point;
    *lower = 0, *upper = INFINITY;
}

void ar_range_nonpositive(const ar_point *point, double *lower, double *upper)
{
    (void)point;
    *lower = -INFINITY, *upper = 0;
}

void ar_range_unit_rounded(const ar_point *point, double *lower, double *upper)
{
    (void)point;
    *lower = 0, *upper = 1 + AR_RANGE_ROUNDING;
}

double ar_point_value(const ar_point *point, const char *name)
{
    int i = ar_sim_param_index(point->sim, name);
    return i < 0 ? NAN : point->value[i];
}

void ar_point_defaults(const ar_sim *sim, ar_point *point)
{
    memset(point, 0, sizeof *point);
    point->sim = sim;
    for (int i = 0; i < sim->n_params; ++i)
        point->value[i] = sim->params[i].default_value;
}

uint64_t ar_point_key(const ar_point *point)
{
    const ar_sim *sim = point->sim;
    uint64_t h = ar_hash_bytes(0, sim->name, strlen(sim->name));
    for (int i = 0; i < sim->n_params; ++i) {
        const ar_param *p = &sim->params[i];
        if (p->how_only)
            continue;
        h = ar_hash_bytes(h, p->name, strlen(p->name));
        if (p->type == AR_PARAM_CHOICE) {
            const char *choice = p->choices[(int)point->value[i]];
            h = ar_hash_bytes(h, choice, strlen(choice));
        } else {
            double v = point->value[i] == 0.0 ? 0.0 : point->value[i]; /* -0 is 0 */
            h = ar_hash_bytes(h, &v, sizeof v);
        }
    }
    return h;
}

void ar_point_describe(const ar_point *point, const int *which, int count, char *buf, size_t len)
{
    const ar_sim *sim = point->sim;
    size_t used = 0;
    buf[0] = '\0';
    int total = which ? count : sim->n_params;
    for (int k = 0; k < total && used < len; ++k) {
        int i = which ? which[k] : k;
        const ar_param *p = &sim->params[i];
        const char *sep = k ? " " : "";
        int wrote;
        if (p->type == AR_PARAM_CHOICE)
            wrote = snprintf(buf + used, len - used, "%s%s=%s", sep, p->name,
                             p->choices[(int)point->value[i]]);
        else
            wrote = snprintf(buf + used, len - used, "%s%s=%.6g", sep, p->name, point->value[i]);
        if (wrote < 0)
            break;
        used += (size_t)wrote;
    }
}
