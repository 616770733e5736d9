/* plan: a spec's run, worked out once (see plan.h). */
#include "attnrank/plan.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "attnrank/theory.h"

int ar_plan_threads(int requested)
{
    return requested > 0 ? requested : omp_get_max_threads();
}

int ar_plan_make(const ar_spec *spec, int threads, ar_run_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->spec = spec;
    plan->threads = ar_plan_threads(threads);
    plan->largest = -1;
    for (int e = 0; e < spec->n_experiments; ++e)
        plan->points += spec->experiments[e].n_points;
    size_t n = (size_t)(plan->points ? plan->points : 1);
    plan->experiments = calloc((size_t)spec->n_experiments + 1, sizeof *plan->experiments);
    plan->work = malloc(n * sizeof *plan->work);
    plan->values = malloc(n * sizeof *plan->values);
    plan->memory = malloc(n * sizeof *plan->memory);
    if (!plan->experiments || !plan->work || !plan->values || !plan->memory) {
        ar_plan_free(plan);
        return -1;
    }
    int n_claims;
    ar_claims_all(&n_claims);
    double bytes = 65536; /* attributes, the verdict table, HDF5's own structure */
    long g = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        ar_plan_experiment *px = &plan->experiments[e];
        px->first = g;
        px->widest = 1;
        double stats = 0;
        for (long p = 0; p < x->n_points; ++p, ++g) {
            ar_point pt;
            ar_experiment_point(x, p, &pt);
            int width = ar_values_per_trial(&pt);
            double hist = 0;
            for (int o = 0; o < x->sim->n_outputs; ++o)
                if (x->sim->outputs[o].hist_max) {
                    int w = x->sim->outputs[o].hist_max(&pt) + 1;
                    hist += w * (double)sizeof(long);
                    if (w > px->hist_width[o])
                        px->hist_width[o] = w;
                }
            plan->values[g] = width;
            plan->work[g] = (x->sim->cost ? x->sim->cost(&pt) : 1.0) * (double)x->trials;
            plan->memory[g] = plan->threads * ((double)x->sim->workspace_bytes(&pt) + 64) +
                              (double)x->trials * width * sizeof(double) + hist;
            if (plan->largest < 0 || plan->memory[g] > plan->memory[plan->largest])
                plan->largest = g;
            if (width > px->widest)
                px->widest = width;
            /* seven statistics, count and failed per value, stored over the whole grid at
             * the widest vector's length */
            stats = 9 * 8.0 * width > stats ? 9 * 8.0 * width : stats;
        }
        double hists = 0;
        for (int o = 0; o < x->sim->n_outputs; ++o)
            hists += 8.0 * px->hist_width[o];
        /* per point: the done ledger, a theory value per claim (an upper bound) */
        bytes += (1 + 8.0 * n_claims + stats + hists) * (double)x->n_points;
    }
    plan->experiments[spec->n_experiments].first = g;
    plan->output_bytes = bytes;
    return 0;
}

void ar_plan_free(ar_run_plan *plan)
{
    free(plan->experiments), free(plan->work), free(plan->values), free(plan->memory);
    memset(plan, 0, sizeof *plan);
    plan->largest = -1;
}

int ar_plan_locate(const ar_run_plan *plan, long global, long *point)
{
    int e = 0;
    while (e + 1 < plan->spec->n_experiments && plan->experiments[e + 1].first <= global)
        e++;
    *point = global - plan->experiments[e].first;
    return e;
}
