/* trials: one grid point's trials with OpenMP, and their summaries.
 *
 * Inside a point, OpenMP threads share the trials; each thread allocates its workspace
 * once per point and BLAS runs single-threaded inside a trial. A trial's values land in
 * an array indexed by trial and are reduced in trial order, so the results are the same
 * bits for any thread count. */
#include "engine_parts.h"

#include "attnrank/linalg.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ar_engine_point_memory(const ar_experiment *exp, const ar_point *point, int threads)
{
    double workspace = (double)exp->sim->workspace_bytes(point) + 64;
    double values = (double)exp->trials * ar_values_per_trial(point) * sizeof(double);
    double hist = 0;
    for (int o = 0; o < exp->sim->n_outputs; ++o)
        if (exp->sim->outputs[o].hist_max)
            hist += (exp->sim->outputs[o].hist_max(point) + 1.0) * sizeof(long);
    return ar_plan_threads(threads) * workspace + values + hist;
}

/* ATTNRANK_INJECT_FAILURES=f (tests only): a deterministic fraction f of trials fail
 * as if LAPACK had not converged, so the counting and marking of failures can be
 * checked end to end. */
static double injected_failure_rate(void)
{
    const char *text = getenv("ATTNRANK_INJECT_FAILURES");
    double f = text ? atof(text) : 0;
    return f > 0 && f <= 1 ? f : 0;
}

long ar_engine_compute_point(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                             double *values, ar_progress *progress)
{
    double inject_failures = injected_failure_rate();
    const ar_sim *sim = exp->sim;
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    uint64_t key = ar_point_key(&pt);
    long trials = exp->trials, failed = 0;
    int width = ar_values_per_trial(&pt), out_of_memory = 0;
    size_t bytes = (sim->workspace_bytes(&pt) + 63) & ~(size_t)63;
    int team = ar_plan_threads(threads);
    long chunk = trials / (16L * team);
    if (chunk < 1)
        chunk = 1;
    /* BLAS inside a trial stays single-threaded: the parallelism is over trials. */
    ar_blas_set_threads(1);
#pragma omp parallel num_threads(team) reduction(+ : failed)
    {
        /* Per thread, once per point: the workspace and the trial's output row. */
        void *workspace = aligned_alloc(64, bytes ? bytes : 64);
        double *out = malloc((size_t)width * sizeof *out);
        ar_rng rng;
        if (!workspace || !out) {
#pragma omp atomic write
            out_of_memory = 1;
        } else if (sim->prepare) {
            sim->prepare(&pt, workspace);
        }
#pragma omp for schedule(dynamic, chunk)
        for (long t = 0; t < trials; ++t) {
            if (!workspace || !out || ar_stop_signal)
                continue;
            ar_rng_init(&rng, spec->seed, key, (uint64_t)t, 0);
            int bad = sim->trial(&pt, &rng, workspace, out);
            if (inject_failures > 0 && (double)(ar_mix64(key ^ ar_mix64((uint64_t)t)) >> 11) * 0x1.0p-53 <
                                           inject_failures)
                bad = 1; /* a test hook: see injected_failure_rate() */
            for (int v = 0; v < width; ++v)
                values[(size_t)v * trials + t] = bad ? NAN : out[v];
            failed += bad != 0;
            if (progress)
                ar_progress_trial_done(progress);
        }
        free(workspace);
        free(out);
    }
    return out_of_memory ? -1 : failed;
}

long ar_engine_point_values(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                            double *values)
{
    return ar_engine_compute_point(spec, exp, point, threads, values, NULL);
}

int ar_engine_values_per_trial(const ar_experiment *exp, long point)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return ar_values_per_trial(&pt);
}

int ar_engine_point_marked(const ar_experiment *exp, long failed_trials)
{
    return failed_trials > AR_FAILURE_LIMIT * (double)exp->trials;
}

void ar_engine_announce_marked(long marked)
{
    if (marked)
        fprintf(stderr, "attnrank: %ld point(s) had more than %g%% failed trials: marked (count 0, see failed), "
                        "not averaged\n", marked, 100 * AR_FAILURE_LIMIT);
}

void ar_engine_summarize_point(const ar_experiment *x, long point, const double *values, long failed_trials,
                               ar_summary *sums, long *const *hists)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    /* Too many failed trials: the others may be a biased sample. The point is marked
     * (count 0, failed = the failed trials, statistics NaN), never averaged. */
    if (ar_engine_point_marked(x, failed_trials)) {
        int width = ar_values_per_trial(&pt);
        for (int v = 0; v < width; ++v)
            sums[v] = (ar_summary){.count = 0, .failed = failed_trials, .mean = NAN, .sem = NAN, .std = NAN,
                                   .ci_lo = NAN, .ci_hi = NAN, .min = NAN, .max = NAN};
        for (int o = 0; o < x->sim->n_outputs; ++o)
            if (hists[o])
                memset(hists[o], 0, (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long));
        return;
    }
    /* One summary per value: sums[offset .. offset + length) for each output. */
    int offset = 0;
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        int applies = !out->applies || out->applies(&pt);
        for (int i = 0; i < ar_output_length(out, &pt); ++i, ++offset)
            ar_summarize(values + (size_t)offset * x->trials, applies ? x->trials : 0, &sums[offset]);
        if (hists[o])
            ar_histogram(values + (size_t)(offset - 1) * x->trials, applies ? x->trials : 0, out->hist_max(&pt),
                         hists[o]);
    }
}

double ar_engine_point_cost(const ar_experiment *exp, long point)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return exp->sim->cost ? exp->sim->cost(&pt) : 1.0;
}

double ar_engine_trial_seconds(const ar_spec *spec, const ar_experiment *exp, long point, double budget)
{
    ar_experiment probe = *exp; /* the same point, fewer trials */
    double seconds = 0;
    for (long trials = 1;; trials *= 4) {
        probe.trials = trials;
        double *values = malloc((size_t)trials * ar_engine_values_per_trial(exp, point) * sizeof *values);
        if (!values)
            return NAN;
        double t0 = omp_get_wtime();
        long failed = ar_engine_compute_point(spec, &probe, point, 1, values, NULL);
        seconds = (omp_get_wtime() - t0) / trials;
        free(values);
        if (failed < 0)
            return NAN; /* no workspace: nothing was timed */
        if (seconds * trials * 4 > budget || trials >= exp->trials)
            return seconds;
    }
}
