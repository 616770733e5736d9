/* run: the single-process run of a spec, and the start and end of every run (the merge
 * and the MPI driver share them): the file under PATH.partial, progress, the verdicts,
 * the rename to PATH. Points go to the store as they are done (in slabs, store.h); an
 * interrupted run resumes from the file's ledger. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t ar_stop_signal = 0;

static void on_signal(int sig)
{
    ar_stop_signal = sig;
}

const char *ar_stop_signal_name(void)
{
    return ar_stop_signal == SIGTERM ? "SIGTERM" : ar_stop_signal == SIGHUP ? "SIGHUP" : "SIGINT";
}

void ar_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL); /* a dropped ssh session: stop as cleanly as on SIGTERM */
    /* A file-size limit (ulimit -f, a full quota) must come back as a failed write we
     * report, not as a kill that leaves a half-made file. */
    signal(SIGXFSZ, SIG_IGN);
    /* A closed pipe on stdout or stderr (`attnrank run ... | head`) must not kill a run
     * mid-write: the write fails instead, and the results are still saved. */
    signal(SIGPIPE, SIG_IGN);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The part of ar_engine_start_store after the lock is taken. */
static ar_store *open_or_create(const ar_spec *spec, const ar_run_options *opt, const char *partial, char *err,
                                ar_status *status)
{
    if (opt->resume) {
        if (!file_exists(partial)) {
            if (file_exists(opt->output))
                snprintf(err, AR_ERR_LEN, "%s: the run is already complete (no %s to resume)", opt->output, partial);
            else
                snprintf(err, AR_ERR_LEN, "%s: nothing to resume: no interrupted run at %s", opt->output, partial);
            return NULL;
        }
        /* Read-only first: opening for writing alters the file, and a file of another
         * spec must be left exactly as it is. */
        ar_store *store = ar_store_open(partial, 0, err);
        if (!store)
            return NULL;
        char shard[64] = "", want[64] = "";
        int index, count;
        if (ar_store_shard(store, &index, &count, err) < 0) {
            ar_store_close(store);
            return NULL;
        }
        if (count > 1)
            snprintf(shard, sizeof shard, "%d/%d", index, count);
        if (opt->shards > 1)
            snprintf(want, sizeof want, "%d/%d", opt->shard, opt->shards);
        if (strcmp(shard, want) != 0) {
            snprintf(err, AR_ERR_LEN, "%s: holds %s%s, not %s%s; resume with the same --shard", partial,
                     shard[0] ? "shard " : "an unsharded run", shard, want[0] ? "shard " : "an unsharded run", want);
            ar_store_close(store);
            return NULL;
        }
        if (ar_store_check_streams(store, partial, "resuming", err) < 0) {
            ar_store_close(store);
            return NULL;
        }
        if (ar_store_spec(store)->hash != spec->hash) {
            snprintf(err, AR_ERR_LEN,
                     "%s: written by a different spec (hash %016llx, this one %016llx); refusing to mix "
                     "results: resume with the original spec and --set values, or start over with --force",
                     partial, (unsigned long long)ar_store_spec(store)->hash, (unsigned long long)spec->hash);
            ar_store_close(store);
            return NULL;
        }
        ar_store_close(store);
        *status = AR_ERR_IO;
        store = ar_store_open(partial, 1, err);
        ar_provenance how;
        ar_engine_provenance(&how);
        if (store && ar_store_note_resumed_provenance(store, &how, err) < 0) {
            ar_store_close(store);
            return NULL;
        }
        return store;
    }
    /* a merge's own partial that a kill left: cleared, with or without --force (merge.c) */
    if (opt->no_resume && !opt->force && file_exists(partial) && ar_engine_clear_stale_partial(partial, err) < 0)
        return NULL;
    if (file_exists(opt->output) && !opt->force) {
        snprintf(err, AR_ERR_LEN, "%s: exists; choose another -o or replace it with --force", opt->output);
        return NULL;
    }
    if (file_exists(partial) && !opt->force) {
        snprintf(err, AR_ERR_LEN, "%s: an interrupted run is there; continue it with --resume or start over "
                 "with --force", partial);
        return NULL;
    }
    /* Build the layout under a temporary name: PATH.partial always has all of it. */
    char *tmp;
    if (asprintf(&tmp, "%s.tmp", partial) < 0)
        return NULL;
    unlink(tmp);
    ar_provenance how;
    ar_engine_provenance(&how);
    ar_store *store = ar_store_create(tmp, spec, opt->command_line, &how, opt->shards > 1, err);
    *status = AR_ERR_IO;
    if (store && opt->shards > 1) {
        char shard[64];
        snprintf(shard, sizeof shard, "%d/%d", opt->shard, opt->shards);
        if (ar_store_set_attribute(store, "shard", shard, err) < 0) {
            ar_store_close(store);
            unlink(tmp);
            free(tmp);
            return NULL;
        }
    }
    if (store && ar_store_close(store) == 0 && rename(tmp, partial) == 0) {
        free(tmp);
        return ar_store_open(partial, 1, err);
    }
    if (store)
        snprintf(err, AR_ERR_LEN, "%s: cannot create: %s", partial, strerror(errno));
    unlink(tmp);
    free(tmp);
    return NULL;
}

/* The lock comes first: the checks of what is there and every file made beside the
 * output belong to the one writer that holds it. */
ar_store *ar_engine_start_store(const ar_spec *spec, const ar_run_options *opt, const char *partial,
                                ar_output_lock **lock, char *err, ar_status *status)
{
    *status = AR_ERR_INPUT;
    *lock = ar_output_lock_take(opt->output, err);
    if (!*lock)
        return NULL;
    ar_store *store = open_or_create(spec, opt, partial, err, status);
    if (!store) {
        ar_output_lock_release(*lock);
        *lock = NULL;
    }
    return store;
}

int ar_engine_owns(const ar_run_options *opt, long points, long global)
{
    return opt->shards <= 1 || ar_shard_owner(global, points, opt->shards) == opt->shard;
}

/* Progress counts work (trials x cost), so the time left is right for mixed grids. */
void ar_engine_start_progress(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                              ar_progress *progress)
{
    double total_work = 0, done_work = 0;
    long total_points = 0, done_points = 0;
    for (int e = 0; e < plan->spec->n_experiments; ++e) {
        long first = plan->experiments[e].first;
        for (long p = 0; p < plan->spec->experiments[e].n_points; ++p) {
            if (!ar_engine_owns(opt, plan->points, first + p))
                continue;
            total_work += plan->work[first + p];
            total_points++;
            if (ar_store_done(store, e, p))
                done_work += plan->work[first + p], done_points++;
        }
    }
    ar_progress_start(progress, opt->quiet, total_points, done_points, total_work, done_work);
}

ar_status ar_engine_finish(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                           ar_output_lock *lock, const char *partial, ar_status status, ar_verdict_row **rows_out,
                           int *n_rows, char *err)
{
    const ar_spec *spec = plan->spec;
    const char *signal_name = ar_stop_signal_name();
    if (status == AR_OK && ar_stop_signal && opt->no_resume) {
        snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; nothing written: run it again", opt->output, signal_name);
        status = AR_ERR_INTERRUPTED;
    } else if (status == AR_OK && ar_stop_signal) {
        if (ar_store_commit(store, err) < 0) { /* what the count below says is saved must be */
            ar_store_close(store);
            ar_output_lock_release(lock);
            return AR_ERR_IO;
        }
        long saved = 0, all = 0;
        for (int e = 0; e < spec->n_experiments; ++e)
            for (long p = 0; p < spec->experiments[e].n_points; ++p)
                if (ar_engine_owns(opt, plan->points, plan->experiments[e].first + p))
                    saved += ar_store_done(store, e, p), all++;
        snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; %ld of %ld points saved; continue with --resume",
                 partial, signal_name, saved, all);
        status = AR_ERR_INTERRUPTED;
    }
    if (status == AR_OK && opt->shards <= 1) { /* a shard has no verdicts: its merge will */
        *n_rows = ar_store_verdict_count(spec);
        *rows_out = calloc((size_t)(*n_rows ? *n_rows : 1), sizeof **rows_out);
        if (!*rows_out || ar_engine_verdicts(store, ar_store_spec(store), *rows_out, err) < 0 ||
            ar_store_write_verdicts(store, *rows_out, *n_rows, err) < 0)
            status = AR_ERR_IO;
    }
    if (ar_store_close(store) < 0 && status == AR_OK) {
        snprintf(err, AR_ERR_LEN, "%s: cannot close the HDF5 file (disk full?)", partial);
        status = AR_ERR_IO;
    }
    if (status == AR_OK && rename(partial, opt->output) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: cannot rename to %s: %s", partial, opt->output, strerror(errno));
        status = AR_ERR_IO;
    }
    if (status != AR_OK && opt->no_resume)
        unlink(partial);
    ar_output_lock_release(lock); /* after the rename: the lock covers the name the run ends at */
    if (status != AR_OK) {
        free(*rows_out);
        *rows_out = NULL;
        *n_rows = 0;
    }
    return status;
}

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
    int capacity = AR_BATCH_BYTES / per_point > AR_BATCH_POINTS ? AR_BATCH_POINTS : (int)(AR_BATCH_BYTES / per_point) + 1;
    ar_batch batch;
    if (ar_batch_init(&batch, x, px, capacity, opt->threads) < 0) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s", opt->output, x->name);
        return AR_ERR_IO;
    }
    ar_status status = AR_OK;
    int size = batch.team < capacity ? batch.team : capacity;
    for (long p = 0; p < x->n_points && status == AR_OK && !ar_stop_signal;) {
        batch.count = 0;
        for (; p < x->n_points && batch.count < size; ++p)
            if (!ar_store_done(store, e, p) && ar_engine_owns(opt, plan->points, px->first + p))
                batch.points[batch.count++] = p;
        double start = omp_get_wtime();
        ar_engine_compute_batch(plan->spec, x, &batch);
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
            ar_batch_histograms(&batch, x, i, hists);
            *marked += ar_engine_point_marked(x, failed);
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
    ar_batch_free(&batch);
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
        if (ar_store_done(store, e, p) || !ar_engine_owns(opt, plan->points, px->first + p))
            continue;
        if (ar_stop_signal)
            break;
        ar_progress_point_begin(progress, plan->work[px->first + p] / x->trials, x->trials);
        double start = omp_get_wtime();
        long failed = ok ? ar_engine_compute_point(plan->spec, x, p, opt->threads, values, progress) : -1;
        double took = omp_get_wtime() - start;
        if (failed < 0) {
            snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s point %ld", opt->output, x->name, p);
            status = AR_ERR_IO;
            break;
        }
        if (ar_stop_signal)
            break; /* the point is incomplete: not written, recomputed on resume */
        *marked += ar_engine_point_marked(x, failed);
        ar_engine_summarize_point(x, p, values, failed, sums, hists);
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

ar_status ar_engine_run(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows_out, int *n_rows,
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
    if (ar_engine_preflight(&plan, opt, err) < 0)
        status = AR_ERR_INPUT;
#ifdef ATTNRANK_MPI
    else if (ar_mpi_size() > 1)
        status = ar_engine_run_distributed(spec, &plan, opt, rows_out, n_rows, err);
#endif
    else if (asprintf(&partial, "%s.partial", opt->output) < 0)
        status = AR_ERR_IO, partial = NULL;
    else {
        ar_output_lock *lock;
        ar_store *store = ar_engine_start_store(spec, opt, partial, &lock, err, &status);
        if (store) {
            long marked = 0;
            ar_progress progress;
            ar_engine_start_progress(&plan, opt, store, &progress);
            status = AR_OK;
            for (int e = 0; e < spec->n_experiments && status == AR_OK && !ar_stop_signal; ++e)
                status = run_experiment(&plan, e, opt, store, &progress, &marked, err);
            ar_progress_finish(&progress);
            ar_engine_announce_marked(marked);
            status = ar_engine_finish(&plan, opt, store, lock, partial, status, rows_out, n_rows, err);
        }
    }
    free(partial);
    ar_plan_free(&plan);
    return status;
}
