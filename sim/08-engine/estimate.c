/* estimate: what `attnrank plan` says of a spec before it runs: per experiment the
 * points, trials, core-hours (a few of its points timed here, the others scaled by the
 * simulator's cost model) and memory a thread; in all the file's size and the run's
 * memory. */
#include "attnrank/engine.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Core-seconds of experiment x's trials. The costliest, the cheapest and a middle point
 * (cost nearest their geometric mean) timed, joined by straight lines: a cost model
 * counts flops, and a small trial's fixed part is not among them, nor is every term of
 * a large one. */
static double experiment_seconds(const ar_spec *spec, const ar_experiment *x, double budget, double *per_trial_max,
                                 double *thread_memory)
{
    long costliest = 0, cheapest = 0;
    double total_cost = 0, memory = 0;
    for (long p = 0; p < x->n_points; ++p) {
        double c = ar_trials_point_cost(x, p);
        total_cost += c;
        if (c > ar_trials_point_cost(x, costliest))
            costliest = p;
        if (c < ar_trials_point_cost(x, cheapest))
            cheapest = p;
        ar_point pt;
        ar_experiment_point(x, p, &pt);
        double m = ar_trials_point_memory(x, &pt, 1);
        memory = m > memory ? m : memory;
    }
    *thread_memory = memory;
    double c_hi = ar_trials_point_cost(x, costliest), c_lo = ar_trials_point_cost(x, cheapest);
    double per_trial = ar_trials_trial_seconds(spec, x, costliest, budget), seconds = 0;
    *per_trial_max = per_trial;
    if (!(c_lo < c_hi))
        return per_trial / c_hi * total_cost * (double)x->trials;
    long middle = cheapest;
    double target = sqrt(c_lo * c_hi);
    for (long p = 0; p < x->n_points; ++p)
        if (fabs(ar_trials_point_cost(x, p) - target) < fabs(ar_trials_point_cost(x, middle) - target))
            middle = p;
    double c_mid = ar_trials_point_cost(x, middle);
    double t_lo = ar_trials_trial_seconds(spec, x, cheapest, budget / 4);
    double t_mid = c_lo < c_mid && c_mid < c_hi ? ar_trials_trial_seconds(spec, x, middle, budget / 4)
                                                : t_lo + (per_trial - t_lo) * (c_mid - c_lo) / (c_hi - c_lo);
    for (long p = 0; p < x->n_points; ++p) {
        double c = ar_trials_point_cost(x, p);
        double t = c <= c_mid ? t_lo + (t_mid - t_lo) * (c_mid > c_lo ? (c - c_lo) / (c_mid - c_lo) : 0)
                              : t_mid + (per_trial - t_mid) * (c - c_mid) / (c_hi - c_mid);
        seconds += (t > 0 ? t : 0) * (double)x->trials;
    }
    return seconds;
}

int ar_estimate_spec(const ar_spec *spec, int threads, const char *label, ar_run_estimate *est, char *err)
{
    *est = (ar_run_estimate){0};
    /* the estimate times one thread: that one must fit under ulimit -v */
    ar_run_plan plan, timing;
    if (ar_plan_team(threads, err) < 0)
        return -1;
    if (ar_plan_make(spec, threads, &plan) < 0) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory planning the run", label);
        return -1;
    }
    timing = plan;
    timing.threads = 1;
    est->experiments = calloc((size_t)(spec->n_experiments ? spec->n_experiments : 1), sizeof *est->experiments);
    if (!est->experiments) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory planning the run", label);
        ar_plan_free(&plan);
        return -1;
    }
    if (ar_preflight_address_space(&timing, err) < 0) {
        ar_plan_free(&plan);
        ar_estimate_free(est);
        return -1;
    }
    /* about two seconds of timing in all, at least 5 ms an experiment */
    double budget = 2.0 / spec->n_experiments;
    budget = budget > 0.5 ? 0.5 : budget < 0.005 ? 0.005 : budget;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        ar_experiment_estimate *xe = &est->experiments[e];
        xe->seconds = experiment_seconds(spec, x, budget, &xe->seconds_per_trial_max, &xe->thread_memory);
        xe->trials = (double)x->trials * x->n_points;
        est->points += x->n_points;
        est->trials += (double)x->trials * x->n_points;
        est->trial_seconds += xe->seconds;
        est->thread_memory = xe->thread_memory > est->thread_memory ? xe->thread_memory : est->thread_memory;
    }
    est->output_bytes = plan.output_bytes;
    est->run_memory = plan.layout_bytes + plan.buffer_bytes + plan.memory[plan.largest >= 0 ? plan.largest : 0] *
                                                                  (plan.points > 0);
    est->file_seconds = plan.overhead_seconds; /* the file: its layout, each point's write and flush */
    est->threads = plan.threads;
    est->cores = omp_get_num_procs();
    est->wall_seconds_here = est->trial_seconds / est->cores + plan.overhead_seconds;
    ar_plan_free(&plan);
    return 0;
}

void ar_estimate_free(ar_run_estimate *est)
{
    free(est->experiments);
    est->experiments = NULL;
}
