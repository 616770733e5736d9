/* run: the single-process run of a spec: points go to the store as they are done (in
 * slabs, store.h), between the start and end every run shares (session.c); an
 * interrupted run resumes from the file's ledger. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include "attnrank/test_hooks.h"

#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A batch of cheap points, one per thread, takes about this long at most: the batch
 * grows from one point per thread, doubling while it is quicker. */
static const double BATCH_SECONDS = 0.05;
/* Points written are committed by the store about once a second as more come; after
 * work this long they are committed at once, lest they wait out the next long point. */
static const double LONG_WORK_SECONDS = 0.1;

/* The points of experiment e this run owns and has not done, in batches computed one
 * point per thread, written in order. */
static ar_status run_batches(const ar_run_plan *plan, int e, const ar_run_options *opt, ar_store *store,
                             ar_progress *progress, long *marked, char *err)
{
    const ar_experiment *x = &plan->spec->experiments[e];
    const ar_plan_experiment *px = &plan->experiments[e];
    double per_point = (double)px->widest * sizeof(ar_summary) + 8.0;
    for (int o = 0; o < x->sim->n_outputs; ++o)
        per_point += (double)px->hist_width[o] * sizeof(long);
    int capacity = ar_size.batch_bytes / per_point > ar_size.batch_points ? ar_size.batch_points
                                                                          : (int)(ar_size.batch_bytes / per_point) + 1;
    ar_batch batch;
    if (ar_trials_batch_init(&batch, x, px, capacity, opt->threads) < 0) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s", opt->output, x->name);
        return AR_ERR_IO;
    }
    ar_status status = AR_OK;
    int size = batch.team < capacity ? batch.team : capacity;
    for (long p = 0; p < x->n_points && status == AR_OK && !ar_stop_signal;) {
        batch.count = 0;
        for (; p < x->n_points && batch.count < size; ++p)
            if (!ar_store_done(store, e, p) && ar_session_owns(opt, plan->points, px->first + p))
                batch.points[batch.count++] = p;
        double start = omp_get_wtime();
        ar_trials_compute_batch(plan->spec, x, &batch);
        double took = omp_get_wtime() - start;
        if (took < BATCH_SECONDS && size < capacity)
            size = 2 * size < capacity ? 2 * size : capacity;
        for (int i = 0; i < batch.count && status == AR_OK; ++i) {
            long point = batch.points[i], failed = batch.failed[i];
            if (failed == -2)
                continue; /* interrupted: not written, recomputed on resume */
            if (failed < 0) {
                snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s point %ld", opt->output, x->name,
                         point);
                status = AR_ERR_IO;
                break;
            }
            long *hists[AR_MAX_OUTPUTS];
            ar_trials_batch_histograms(&batch, x, i, hists);
            *marked += ar_trials_point_marked(x, failed);
            if (ar_store_write_point(store, e, point, batch.sums + (size_t)i * batch.widest, hists, err) < 0) {
                status = AR_ERR_IO;
                break;
            }
            ar_progress_point_begin(progress, plan->work[px->first + point] / x->trials, x->trials);
            ar_progress_point_end(progress);
        }
        if (status == AR_OK && took >= LONG_WORK_SECONDS && ar_store_commit(store, err) < 0)
            status = AR_ERR_IO;
    }
    ar_trials_batch_free(&batch);
    return status;
}

/* The points of one experiment this run owns and has not done, one after the other. */
static ar_status run_experiment(const ar_run_plan *plan, int e, const ar_run_options *opt, ar_store *store,
                                ar_progress *progress, long *marked, char *err)
{
    if (plan->experiments[e].points_in_parallel)
        return run_batches(plan, e, opt, store, progress, marked, err);
    const ar_experiment *x = &plan->spec->experiments[e];
    const ar_plan_experiment *px = &plan->experiments[e];
    ar_status status = AR_OK;
    double *values = malloc((size_t)x->trials * px->widest * sizeof *values);
    ar_summary *sums = malloc((size_t)px->widest * sizeof *sums);
    long *hists[AR_MAX_OUTPUTS] = {0};
    int ok = values && sums;
    for (int o = 0; o < x->sim->n_outputs; ++o)
        if (px->hist_width[o] && !(hists[o] = calloc((size_t)px->hist_width[o], sizeof(long))))
            ok = 0;
    for (long p = 0; p < x->n_points && status == AR_OK; ++p) {
        if (ar_store_done(store, e, p) || !ar_session_owns(opt, plan->points, px->first + p))
            continue;
        if (ar_stop_signal)
            break;
        ar_progress_point_begin(progress, plan->work[px->first + p] / x->trials, x->trials);
        double start = omp_get_wtime();
        long failed = ok ? ar_trials_compute_point(plan->spec, x, p, opt->threads, values, progress) : -1;
        double took = omp_get_wtime() - start;
        if (failed < 0) {
            snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s point %ld", opt->output, x->name, p);
            status = AR_ERR_IO;
            break;
        }
        if (ar_stop_signal)
            break; /* the point is incomplete: not written, recomputed on resume */
        *marked += ar_trials_point_marked(x, failed);
        ar_trials_summarize_point(x, p, values, failed, sums, hists);
        if (ar_store_write_point(store, e, p, sums, hists, err) < 0 ||
            (took >= LONG_WORK_SECONDS && ar_store_commit(store, err) < 0))
            status = AR_ERR_IO;
        else
            ar_progress_point_end(progress);
    }
    for (int o = 0; o < x->sim->n_outputs; ++o)
        free(hists[o]);
    free(values);
    free(sums);
    return status;
}

ar_status ar_run_spec(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows_out, int *n_rows,
                        char *err)
{
    *rows_out = NULL;
    *n_rows = 0;
    ar_run_plan plan;
    if (ar_plan_make(spec, opt->threads, &plan) < 0) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory planning the run", opt->output);
        return AR_ERR_IO;
    }
    ar_status status = AR_OK;
    char *partial = NULL;
    if (ar_preflight_run(&plan, opt, err) < 0)
        status = AR_ERR_INPUT;
#ifdef ATTNRANK_MPI
    else if (ar_mpi_size() > 1)
        status = ar_distributed_run(spec, &plan, opt, rows_out, n_rows, err);
#endif
    else if (asprintf(&partial, "%s.partial", opt->output) < 0)
        status = AR_ERR_IO, partial = NULL;
    else {
        ar_output_lock *lock;
        ar_store *store = ar_session_start_store(spec, opt, partial, &lock, err, &status);
        if (store) {
            long marked = 0;
            ar_progress progress;
            ar_session_start_progress(&plan, opt, store, &progress);
            status = AR_OK;
            for (int e = 0; e < spec->n_experiments && status == AR_OK && !ar_stop_signal; ++e)
                status = run_experiment(&plan, e, opt, store, &progress, &marked, err);
            ar_progress_finish(&progress);
            ar_trials_announce_marked(marked);
            status = ar_session_finish(&plan, opt, store, lock, partial, status, rows_out, n_rows, err);
        }
    }
    free(partial);
    ar_plan_free(&plan);
    return status;
}
