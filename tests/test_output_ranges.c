/* output_ranges: every simulator's trials lie in the ranges its outputs declare
 * (ar_output_range). The readers refuse a file whose statistics leave them, so a range
 * a real trial can leave would make good files damaged: each simulator is run at its
 * default point, at each value of each of its choices (the branches that fill other
 * outputs), with each count that turns a measure on (turned_on) and at each numeric
 * parameter's ends and far from its default (small and larger n, extreme temperatures
 * and scales: where rounding would carry a value past a bound, such as a stable rank of
 * n (1 + ulps) at orthonormal tokens), and every counted value (finite, in a trial that
 * did not fail, of an output that applies there) is checked to lie in its range, whole
 * for an integer output. */
#include "attnrank/registry.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

enum { TRIALS = 6 };

/* Counts that default to 0 and turn a measure on, with a value that does it cheaply. */
static const struct {
    const char *name;
    double value;
} turned_on[] = {{"queries_given_keys", 64}, {"softmax_starts", 2}};

/* Values at which a range narrows (argmax_rank <= 2 at d_h = 1) or an output starts to
 * apply (numrank_first_order from tau = 1e4, at most d_h + 1 there, where the cut is
 * closest to the second-order singular values), where every choice is tried again: each
 * input and weight law, each sampler, has its own draws there. */
static const struct {
    const char *name;
    double value;
} narrows_at[] = {{"d_h", 1}, {"tau", 1e4}};

/* A point's trial cost (sim->cost, 1 without) and workspace, against which the sweep's
 * points are kept cheap. */
static double cost_of(const ar_point *p) { return p->sim->cost ? p->sim->cost(p) : 1; }

/* Runs sim at p; returns the values checked (0 where the point is refused). */
static long check_point(const ar_point *p)
{
    const ar_sim *sim = p->sim;
    char why[256];
    if (sim->check && sim->check(p, why, sizeof why) >= 0)
        return 0;
    int width = ar_values_per_trial(p);
    double *out = malloc((size_t)width * sizeof *out + 1);
    size_t bytes = (sim->workspace_bytes(p) + 63) & ~(size_t)63;
    void *workspace = aligned_alloc(64, bytes ? bytes : 64);
    CHECK(out && workspace);
    if (sim->prepare)
        sim->prepare(p, workspace);
    ar_rng rng;
    long checked = 0;
    for (int t = 0; t < TRIALS; ++t) {
        ar_rng_init(&rng, 2026, ar_point_key(p), (uint64_t)t, 0);
        if (sim->trial(p, &rng, workspace, out) != 0)
            continue; /* a failed trial: its values are NaN to the engine */
        for (int o = 0, offset = 0; o < sim->n_outputs; ++o) {
            const ar_output *output = &sim->outputs[o];
            int length = ar_output_length(output, p), applies = !output->applies || output->applies(p);
            double lower, upper;
            int integer = ar_output_range(output, p, &lower, &upper);
            for (int i = 0; i < length && applies; ++i) {
                double v = out[offset + i];
                if (!isfinite(v))
                    continue; /* not counted */
                checked++;
                int inside = v >= lower && v <= upper && (!integer || v == floor(v));
                if (!inside) {
                    char where[512];
                    ar_point_describe(p, NULL, 0, where, sizeof where);
                    fprintf(stderr, "%s/%s[%d] = %.17g outside [%g, %g]%s at %s\n", sim->name, output->name, i, v,
                            lower, upper, integer ? " (whole)" : "", where);
                }
                CHECK(inside);
            }
            offset += length;
        }
    }
    free(out), free(workspace);
    return checked;
}

int main(void)
{
    check_register_families();
    int n_sims;
    const ar_sim *const *sims = ar_sim_all(&n_sims);
    for (int s = 0; s < n_sims; ++s) {
        const ar_sim *sim = sims[s];
        ar_point base;
        ar_point_defaults(sim, &base);
        long checked = check_point(&base), points = 1;
        for (int k = 0; k < sim->n_params; ++k) {
            const ar_param *param = &sim->params[k];
            for (int c = 0; c < AR_COUNT(turned_on); ++c)
                if (!strcmp(param->name, turned_on[c].name)) {
                    ar_point p = base;
                    p.value[k] = turned_on[c].value;
                    checked += check_point(&p), points++;
                }
            /* a numeric parameter at its ends and 16 times from its default each way, where a
             * trial costs at most 4 times the default's and its workspace stays small */
            /* (not convex_attention's: its trials' cost is its solvers' iterations, which
             * the cost model does not see, and its ranges are 0/1 and counts, which
             * rounding does not move) */
            if ((param->type == AR_PARAM_INT || param->type == AR_PARAM_REAL) && strcmp(sim->name, "convex_attention")) {
                double lowest = param->min_exclusive ? param->min + (param->default_value - param->min) * 1e-3 : param->min;
                double values[4] = {lowest, param->default_value / 16, param->default_value * 16, param->max};
                for (int v = 0; v < 4; ++v) {
                    double value = param->type == AR_PARAM_INT ? round(values[v]) : values[v];
                    if (!(value >= lowest && value <= param->max) || value == param->default_value)
                        continue;
                    ar_point p = base;
                    p.value[k] = value;
                    char why[256];
                    if ((sim->check && sim->check(&p, why, sizeof why) >= 0) || !(cost_of(&p) <= 4 * cost_of(&base)) ||
                        sim->workspace_bytes(&p) > ((size_t)256 << 20))
                        continue;
                    checked += check_point(&p), points++;
                }
            }
            for (int c = 0; param->type == AR_PARAM_CHOICE && param->choices[c]; ++c) {
                if (c == (int)param->default_value)
                    continue;
                ar_point p = base;
                p.value[k] = c;
                checked += check_point(&p), points++;
            }
        }
        for (int k = 0; k < sim->n_params; ++k)
            for (int a = 0; a < AR_COUNT(narrows_at); ++a) {
                if (strcmp(sim->params[k].name, narrows_at[a].name))
                    continue;
                ar_point at = base;
                at.value[k] = narrows_at[a].value;
                for (int j = 0; j < sim->n_params; ++j)
                    for (int c = 0; sim->params[j].type == AR_PARAM_CHOICE && sim->params[j].choices[c]; ++c) {
                        ar_point p = at;
                        p.value[j] = c;
                        checked += check_point(&p), points++; /* 0 where p is refused */
                    }
            }
        printf("%s: %ld values at %ld points in their ranges\n", sim->name, checked, points);
        fflush(stdout);
        CHECK(checked > 0);
    }
    return check_report("output_ranges");
}
