/* distributed: the MPI driver (a build with -Dmpi=true). Rank 0 owns the file: it opens or resumes it, hands out the
 * points not yet done, largest (trials x cost) first, writes each result as it comes
 * and judges at the end; ranks 1..P-1 compute one point at a time with their OpenMP
 * threads and send back its summaries and histograms. A point is computed by one rank
 * exactly as a single process would, so the file holds the same bits. */
#define _GNU_SOURCE
#include "engine_parts.h"

#ifdef ATTNRANK_MPI
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


enum { TAG_READY = 1, TAG_TASK, TAG_STOP, TAG_RESULT };
enum { RESULT_OK = 0, RESULT_INTERRUPTED = 1, RESULT_FAILED = 2 };

typedef struct {
    int experiment;
    long point;
    double work;
} task;

static int heavier_first(const void *a, const void *b)
{
    const task *x = a, *y = b;
    if (x->work != y->work)
        return x->work < y->work ? 1 : -1;
    return x->experiment != y->experiment ? x->experiment - y->experiment : (x->point > y->point) - (x->point < y->point);
}

/* A result message: header (experiment, point, outcome), then the summaries, then each
 * integer output's histogram. */
typedef struct {
    int experiment, outcome;
    long point;
    long failed; /* failed trials: the coordinator announces the marked points */
} result_header;

static size_t result_bytes(const ar_experiment *x, long point)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    size_t bytes = sizeof(result_header) + (size_t)ar_engine_values_per_trial(x, point) * sizeof(ar_summary);
    for (int o = 0; o < x->sim->n_outputs; ++o)
        if (x->sim->outputs[o].hist_max)
            bytes += (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long);
    return bytes;
}

/* Where a result message keeps its summaries and each integer output's histogram. */
static void unpack_result(const ar_experiment *x, long point, char *message, ar_summary **sums, long **hists)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    *sums = (ar_summary *)(message + sizeof(result_header));
    char *at = (char *)(*sums + ar_engine_values_per_trial(x, point));
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hists[o] = NULL;
        if (x->sim->outputs[o].hist_max) {
            hists[o] = (long *)at;
            at += (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long);
        }
    }
}

static void worker(const ar_spec *spec, const ar_run_options *opt)
{
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        long job[2];
        MPI_Status st;
        MPI_Recv(job, 2, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        const ar_experiment *x = &spec->experiments[job[0]];
        long p = job[1];
        ar_point pt;
        ar_experiment_point(x, p, &pt);
        size_t bytes = result_bytes(x, p);
        char *message = calloc(1, bytes);
        double *values = malloc((size_t)x->trials * ar_engine_values_per_trial(x, p) * sizeof *values);
        if (!message || !values) { /* an empty result: the coordinator reports this rank out of memory */
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
            free(values);
            free(message);
            continue;
        }
        result_header *h = (result_header *)message;
        h->experiment = (int)job[0];
        h->point = p;
        h->outcome = RESULT_OK;
        long failed = ar_engine_compute_point(spec, x, p, opt->threads, values, NULL);
        h->failed = failed;
        if (failed < 0) {
            h->outcome = RESULT_FAILED;
        } else if (ar_stop_signal) {
            h->outcome = RESULT_INTERRUPTED;
        } else {
            ar_summary *sums;
            long *hists[AR_MAX_OUTPUTS];
            unpack_result(x, p, message, &sums, hists);
            ar_engine_summarize_point(x, p, values, failed, sums, hists);
        }
        MPI_Send(message, (int)bytes, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(values);
        free(message);
    }
}

/* Rank 0: the store, the queue, the writes. Polls with short sleeps rather than a
 * blocking probe, which in Open MPI spins a core that the workers need. */
static ar_status coordinator(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store, char *err)
{
    const ar_spec *spec = plan->spec;
    long n_tasks = 0, next = 0, marked = 0;
    size_t capacity = sizeof(result_header); /* the largest result message: one buffer for all */
    task *tasks = malloc((size_t)(plan->points ? plan->points : 1) * sizeof *tasks);
    for (int e = 0; tasks && e < spec->n_experiments; ++e)
        for (long p = 0; p < spec->experiments[e].n_points; ++p) {
            long g = plan->experiments[e].first + p;
            if (ar_engine_owns(opt, g) && !ar_store_done(store, e, p)) {
                tasks[n_tasks++] = (task){e, p, plan->work[g]};
                size_t bytes = result_bytes(&spec->experiments[e], p);
                capacity = bytes > capacity ? bytes : capacity;
            }
        }
    char *message = tasks ? calloc(1, capacity) : NULL;
    if (!message) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", opt->output);
        free(tasks);
        return AR_ERR_IO;
    }
    qsort(tasks, (size_t)n_tasks, sizeof *tasks, heavier_first);
    ar_progress progress;
    ar_engine_start_progress(plan, opt, store, &progress);
    int workers = ar_mpi_size() - 1, status = AR_OK;
    while (workers > 0) {
        int ready = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st);
        if (!ready) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            continue;
        }
        int bytes;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        MPI_Recv(message, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_RESULT && status == AR_OK) {
            const result_header *h = (const result_header *)message;
            const ar_experiment *x = &spec->experiments[h->experiment];
            if (bytes == 0 || h->outcome == RESULT_FAILED) {
                snprintf(err, AR_ERR_LEN, "%s: rank %d ran out of memory at experiment %s", opt->output,
                         st.MPI_SOURCE, bytes ? x->name : "?");
                status = AR_ERR_IO;
            } else if (h->outcome == RESULT_OK) {
                ar_summary *sums;
                long *hists[AR_MAX_OUTPUTS];
                unpack_result(x, h->point, message, &sums, hists);
                if (ar_store_write_point(store, h->experiment, h->point, sums, hists, err) < 0)
                    status = AR_ERR_IO;
                marked += ar_engine_point_marked(x, h->failed);
                ar_progress_point_begin(&progress, plan->work[plan->experiments[h->experiment].first + h->point] /
                                                       x->trials, 0);
                ar_progress_point_end(&progress);
            }
        }
        if (next < n_tasks && status == AR_OK && !ar_stop_signal) {
            long job[2] = {tasks[next].experiment, tasks[next].point};
            next++;
            MPI_Send(job, 2, MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        } else {
            MPI_Send(NULL, 0, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            workers--;
        }
    }
    ar_progress_finish(&progress);
    ar_engine_announce_marked(marked);
    free(message);
    free(tasks);
    return status;
}

ar_status ar_engine_run_distributed(const ar_spec *spec, const ar_run_plan *plan, const ar_run_options *opt,
                                    ar_verdict_row **rows_out, int *n_rows, char *err)
{
    int rank = ar_mpi_rank();
    ar_status status = AR_OK;
    char *partial = NULL;
    ar_store *store = NULL;
    ar_output_lock *lock = NULL; /* rank 0 writes, so rank 0 holds the output's lock */
    if (rank == 0) {
        if (asprintf(&partial, "%s.partial", opt->output) < 0)
            partial = NULL;
        store = partial ? ar_engine_start_store(spec, opt, partial, &lock, err, &status) : NULL;
        if (store)
            status = AR_OK;
        else if (status == AR_OK)
            status = AR_ERR_IO;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD); /* a file that cannot start stops everyone */
    if (status != AR_OK) {
        free(partial);
        if (rank != 0)
            snprintf(err, AR_ERR_LEN, "rank 0 could not start the run");
        return status;
    }
    if (rank != 0) {
        worker(spec, opt);
        ar_status final;
        MPI_Bcast(&final, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (final != AR_OK)
            snprintf(err, AR_ERR_LEN, "the run stopped (rank 0 reports why)");
        return final;
    }
    status = coordinator(plan, opt, store, err);
    status = ar_engine_finish(plan, opt, store, lock, partial, status, rows_out, n_rows, err);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(partial);
    return status;
}
#endif
