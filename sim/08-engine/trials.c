/* trials: one grid point's trials, and their summaries; or a batch of cheap points, one
 * per thread.
 *
 * An expensive point spreads its trials over the OpenMP threads; each thread allocates
 * its workspace once per point and BLAS runs single-threaded inside a trial. Cheap
 * points (few trials) run whole, one per thread, a batch of them per parallel region,
 * each thread keeping its buffers from point to point. Either way a trial's values land
 * in an array indexed by trial and are reduced in trial order, so the results are the
 * same bits for any thread count and either mode. */
#include "engine_parts.h"

#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/test_hooks.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ar_trials_point_memory(const ar_experiment *exp, const ar_point *point, int threads)
{
    double workspace = (double)exp->sim->workspace_bytes(point) + 64;
    double values = (double)exp->trials * ar_values_per_trial(point) * sizeof(double);
    double hist = 0;
    for (int o = 0; o < exp->sim->n_outputs; ++o)
        if (exp->sim->outputs[o].hist_max)
            hist += (exp->sim->outputs[o].hist_max(point) + 1.0) * sizeof(long);
    return ar_plan_threads(threads) * workspace + values + hist;
}

/* ATTNRANK_TEST_INJECT_FAILURES=f, in the test build only (test_hooks.h): a deterministic
 * fraction f of trials fail as if LAPACK had not converged, so the counting and marking
 * of failures can be checked end to end. attnrank's trials fail only when they fail. */
static double injected_failure_rate(void)
{
    const char *text = ar_test_hook(AR_HOOK_INJECT_FAILURES);
    double f = text ? atof(text) : 0;
    return f > 0 && f <= 1 ? f : 0;
}

/* Trial t of point pt into values[v * count + t - first] (NaN where it failed); 1 if it failed. */
static int run_trial(const ar_point *pt, uint64_t seed, uint64_t key, long t, long first, long count, int width,
                     void *workspace, double *out, double *values, double inject_failures)
{
    ar_rng rng;
    ar_rng_init(&rng, seed, key, (uint64_t)t, 0);
    int bad = pt->sim->trial(pt, &rng, workspace, out);
    if (inject_failures > 0 && (double)(ar_mix64(key ^ ar_mix64((uint64_t)t)) >> 11) * 0x1.0p-53 < inject_failures)
        bad = 1; /* a test hook: see injected_failure_rate() */
    for (int v = 0; v < width; ++v)
        values[(size_t)v * count + (t - first)] = bad ? NAN : out[v];
    return bad != 0;
}

long ar_trials_compute_stream(const ar_point *pt, uint64_t seed, uint64_t key, long first, long count, int threads,
                              double *values, ar_progress *progress)
{
    double inject_failures = injected_failure_rate();
    const ar_sim *sim = pt->sim;
    long failed = 0;
    int width = ar_values_per_trial(pt), out_of_memory = 0;
    size_t bytes = (sim->workspace_bytes(pt) + 63) & ~(size_t)63;
    int team = ar_plan_threads(threads);
    long chunk = count / (16L * team);
    if (chunk < 1)
        chunk = 1;
    /* BLAS inside a trial stays single-threaded: the parallelism is over trials. */
    ar_openblas_set_threads(1);
#pragma omp parallel num_threads(team) reduction(+ : failed)
    {
        /* Per thread, once per point: the workspace and the trial's output row. */
        void *workspace = aligned_alloc(64, bytes ? bytes : 64);
        double *out = malloc((size_t)width * sizeof *out);
        if (!workspace || !out) {
#pragma omp atomic write
            out_of_memory = 1;
        } else if (sim->prepare) {
            sim->prepare(pt, workspace);
        }
#pragma omp for schedule(dynamic, chunk)
        for (long t = first; t < first + count; ++t) {
            if (!workspace || !out || ar_stop_signal)
                continue;
            failed += run_trial(pt, seed, key, t, first, count, width, workspace, out, values, inject_failures);
            if (progress)
                ar_progress_trial_done(progress);
        }
        free(workspace);
        free(out);
    }
    return out_of_memory ? -1 : failed;
}

long ar_trials_compute_point(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                             double *values, ar_progress *progress)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return ar_trials_compute_stream(&pt, spec->seed, ar_point_key(&pt), 0, exp->trials, threads, values, progress);
}

long ar_trials_point_values(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                            double *values)
{
    return ar_trials_compute_point(spec, exp, point, threads, values, NULL);
}

/* A thread's buffers for whole points, grown to the largest point it meets. */
struct ar_thread_buffers {
    void *workspace;
    double *out, *values;
    size_t workspace_bytes, out_bytes, values_bytes; /* what each holds */
};

/* buf grown to hold at least `bytes` (64-byte aligned if `aligned`); 0, or -1. */
static int grow(void **buf, size_t *have, size_t bytes, int aligned)
{
    if (bytes <= *have && *buf)
        return 0;
    free(*buf);
    *have = 0;
    *buf = aligned ? aligned_alloc(64, (bytes + 63) & ~(size_t)63) : malloc(bytes);
    if (!*buf)
        return -1;
    *have = bytes;
    return 0;
}

/* Every trial of one point on this thread alone: failed trials, -1 out of memory, -2
 * interrupted (the point is incomplete). */
static long compute_point_alone(const ar_spec *spec, const ar_experiment *exp, long point, ar_thread_buffers *b,
                                double inject_failures)
{
    const ar_sim *sim = exp->sim;
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    uint64_t key = ar_point_key(&pt);
    long trials = exp->trials, failed = 0;
    int width = ar_values_per_trial(&pt);
    if (grow(&b->workspace, &b->workspace_bytes, sim->workspace_bytes(&pt) + 64, 1) < 0 ||
        grow((void **)&b->out, &b->out_bytes, (size_t)width * sizeof(double) + 8, 0) < 0 ||
        grow((void **)&b->values, &b->values_bytes, (size_t)trials * width * sizeof(double) + 8, 0) < 0)
        return -1;
    if (sim->prepare)
        sim->prepare(&pt, b->workspace);
    for (long t = 0; t < trials; ++t) {
        if (ar_stop_signal)
            return -2;
        failed += run_trial(&pt, spec->seed, key, t, 0, trials, width, b->workspace, b->out, b->values, inject_failures);
    }
    return failed;
}

int ar_trials_batch_init(ar_batch *b, const ar_experiment *x, const ar_plan_experiment *px, int capacity, int threads)
{
    memset(b, 0, sizeof *b);
    b->capacity = capacity;
    b->widest = px->widest;
    b->team = ar_plan_threads(threads);
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        b->hist_at[o] = px->hist_width[o] ? b->hist_total : -1;
        b->hist_total += px->hist_width[o];
    }
    b->points = malloc((size_t)capacity * sizeof *b->points);
    b->failed = malloc((size_t)capacity * sizeof *b->failed);
    b->sums = malloc((size_t)capacity * b->widest * sizeof *b->sums);
    b->hists = malloc((size_t)capacity * b->hist_total * sizeof *b->hists + 1);
    b->buffers = calloc((size_t)b->team, sizeof *b->buffers);
    if (!b->points || !b->failed || !b->sums || !b->hists || !b->buffers) {
        ar_trials_batch_free(b);
        return -1;
    }
    return 0;
}

void ar_trials_batch_free(ar_batch *b)
{
    for (int i = 0; b->buffers && i < b->team; ++i) {
        free(b->buffers[i].workspace);
        free(b->buffers[i].out);
        free(b->buffers[i].values);
    }
    free(b->buffers), free(b->points), free(b->failed), free(b->sums), free(b->hists);
    memset(b, 0, sizeof *b);
}

void ar_trials_batch_histograms(const ar_batch *b, const ar_experiment *x, int i, long **hists)
{
    for (int o = 0; o < x->sim->n_outputs; ++o)
        hists[o] = b->hist_at[o] < 0 ? NULL : b->hists + (size_t)i * b->hist_total + b->hist_at[o];
}

void ar_trials_compute_batch(const ar_spec *spec, const ar_experiment *x, ar_batch *b)
{
    double inject_failures = injected_failure_rate();
    ar_openblas_set_threads(1); /* BLAS inside a trial stays single-threaded */
    /* One point per thread, the next to the first thread free: costs vary along a batch. */
#pragma omp parallel for num_threads(b->team) schedule(dynamic, 1)
    for (int i = 0; i < b->count; ++i) {
        ar_thread_buffers *mine = &b->buffers[omp_get_thread_num()];
        long failed = compute_point_alone(spec, x, b->points[i], mine, inject_failures);
        b->failed[i] = failed;
        if (failed >= 0) {
            long *hists[AR_MAX_OUTPUTS];
            ar_trials_batch_histograms(b, x, i, hists);
            ar_trials_summarize_point(x, b->points[i], mine->values, failed, b->sums + (size_t)i * b->widest,
                                      hists);
        }
    }
}

int ar_trials_values_per_trial(const ar_experiment *exp, long point)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return ar_values_per_trial(&pt);
}

int ar_trials_point_marked(const ar_experiment *exp, long failed_trials)
{
    return failed_trials > AR_FAILURE_LIMIT * (double)exp->trials;
}

void ar_trials_announce_marked(long marked)
{
    if (marked)
        fprintf(stderr, "attnrank: %ld point(s) had more than %g%% failed trials: marked (count 0, see failed), "
                        "not averaged\n", marked, 100 * AR_FAILURE_LIMIT);
}

void ar_trials_summarize_point(const ar_experiment *x, long point, const double *values, long failed_trials,
                               ar_summary *sums, long *const *hists)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    /* Too many failed trials: the others may be a biased sample. The point is marked
     * (count 0, failed = the failed trials, statistics NaN), never averaged. */
    if (ar_trials_point_marked(x, failed_trials)) {
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
        /* integer outputs and the real ones on a lattice: intervals never of zero width */
        double spacing = out->hist_max ? 1.0 : out->spacing ? out->spacing(&pt) : 0;
        for (int i = 0; i < ar_output_length(out, &pt); ++i, ++offset) {
            const double *column = values + (size_t)offset * x->trials;
            long count = applies ? x->trials : 0;
            if (spacing > 0)
                ar_summarize_lattice(column, count, spacing, &sums[offset]);
            else
                ar_summarize(column, count, &sums[offset]);
        }
        if (hists[o])
            ar_histogram(values + (size_t)(offset - 1) * x->trials, applies ? x->trials : 0, out->hist_max(&pt),
                         hists[o]);
    }
}

double ar_trials_point_cost(const ar_experiment *exp, long point)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return exp->sim->cost ? exp->sim->cost(&pt) : 1.0;
}

double ar_trials_trial_seconds(const ar_spec *spec, const ar_experiment *exp, long point, double budget)
{
    ar_experiment probe = *exp; /* the same point, as many trials as the budget times */
    double seconds = 0;
    int width = ar_trials_values_per_trial(exp, point);
    for (long trials = 1;; trials *= 4) {
        probe.trials = trials;
        double *values = malloc((size_t)trials * width * sizeof *values);
        if (!values)
            return NAN;
        /* untimed first: the first trial pays for the workspace's pages and OpenBLAS's start */
        long failed = trials == 1 ? ar_trials_compute_point(spec, &probe, point, 1, values, NULL) : 0;
        double t0 = omp_get_wtime();
        failed = failed < 0 ? failed : ar_trials_compute_point(spec, &probe, point, 1, values, NULL);
        seconds = (omp_get_wtime() - t0) / trials;
        free(values);
        if (failed < 0)
            return NAN; /* no workspace: nothing was timed */
        /* more trials than the point has are fine to time: they are drawn alike */
        if (seconds * trials * 4 > budget || trials >= (1L << 20))
            return seconds;
    }
}
