/* distributed: the MPI driver (a build with -Dmpi=true). Rank 0 owns the file: it opens
 * or resumes it, hands out the points not yet done in chunks of consecutive points sized
 * by their measured cost, writes each chunk's results as a slab and judges at the end;
 * ranks 1..P-1 compute a chunk with their OpenMP threads (cheap points one per thread,
 * others with the team over their trials) and send back its summaries and histograms in
 * one message. A point is computed by one rank exactly as a single process would, so the
 * file holds the same bits. */
#define _GNU_SOURCE
#include "engine_parts.h"

#ifdef ATTNRANK_MPI
#include <mpi.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_READY = 1, TAG_TASK, TAG_STOP, TAG_RESULT };
enum { RESULT_OK = 0, RESULT_INTERRUPTED = 1, RESULT_FAILED = 2 };

/* A chunk aims at this much of a worker's time, measured: long enough that messages and
 * the coordinator's writes are a small part of it, short enough that the work left at
 * the end spreads over the workers. */
static const double CHUNK_SECONDS = 0.25;
enum { CHUNK_POINTS = 4096 };
/* A chunk's result message stays under this many bytes (its histograms are dense). */
static const double CHUNK_BYTES = 64.0 * 1048576;

/* A task: consecutive points (to do) of one experiment. Sent as longs: experiment,
 * count, then the points. */
typedef struct {
    int experiment;
    long count;
    const long *points;
} chunk;

/* A result message: this header, then per point its record (point, failed trials) and,
 * at a fixed stride, its summaries (the experiment's widest) and histograms. */
typedef struct {
    int experiment, outcome;
    long count;
    double seconds; /* the chunk's compute time on its worker */
} result_header;

typedef struct {
    long point, failed;
} point_record;

static size_t point_stride(const ar_plan_experiment *px, const ar_experiment *x)
{
    size_t bytes = sizeof(point_record) + (size_t)px->widest * sizeof(ar_summary);
    for (int o = 0; o < x->sim->n_outputs; ++o)
        bytes += (size_t)px->hist_width[o] * sizeof(long);
    return bytes;
}

/* Point i's record, summaries and histograms inside a result message. */
static point_record *record_at(char *message, size_t stride, long i)
{
    return (point_record *)(message + sizeof(result_header) + (size_t)i * stride);
}

static void unpack_point(const ar_plan_experiment *px, const ar_experiment *x, point_record *r, ar_summary **sums,
                         long **hists)
{
    *sums = (ar_summary *)(r + 1);
    long *at = (long *)(*sums + px->widest);
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hists[o] = px->hist_width[o] ? at : NULL;
        at += px->hist_width[o];
    }
}

/* A chunk's points computed as a single process would: cheap ones one per thread
 * (batch), the others each with the team over its trials. */
static int compute_chunk(const ar_run_plan *plan, const ar_run_options *opt, int e, const long *points, long count,
                         char *message, size_t stride)
{
    const ar_spec *spec = plan->spec;
    const ar_experiment *x = &spec->experiments[e];
    const ar_plan_experiment *px = &plan->experiments[e];
    if (px->points_in_parallel) {
        ar_batch batch;
        if (ar_trials_batch_init(&batch, x, px, (int)count, opt->threads) < 0)
            return RESULT_FAILED;
        memcpy(batch.points, points, (size_t)count * sizeof *points);
        batch.count = (int)count;
        ar_trials_compute_batch(spec, x, &batch);
        int outcome = RESULT_OK;
        for (long i = 0; i < count; ++i) {
            point_record *r = record_at(message, stride, i);
            r->point = points[i], r->failed = batch.failed[i];
            if (batch.failed[i] == -1)
                outcome = RESULT_FAILED;
            else if (batch.failed[i] == -2 && outcome == RESULT_OK)
                outcome = RESULT_INTERRUPTED;
            ar_summary *sums;
            long *hists[AR_MAX_OUTPUTS], *from[AR_MAX_OUTPUTS];
            unpack_point(px, x, r, &sums, hists);
            if (batch.failed[i] < 0)
                continue;
            memcpy(sums, batch.sums + (size_t)i * batch.widest, (size_t)px->widest * sizeof *sums);
            ar_trials_batch_histograms(&batch, x, (int)i, from);
            for (int o = 0; o < x->sim->n_outputs; ++o)
                if (hists[o])
                    memcpy(hists[o], from[o], (size_t)px->hist_width[o] * sizeof(long));
        }
        ar_trials_batch_free(&batch);
        return outcome;
    }
    double *values = malloc((size_t)x->trials * px->widest * sizeof *values);
    if (!values)
        return RESULT_FAILED;
    int outcome = RESULT_OK;
    for (long i = 0; i < count && outcome == RESULT_OK; ++i) {
        point_record *r = record_at(message, stride, i);
        r->point = points[i];
        r->failed = ar_trials_compute_point(spec, x, points[i], opt->threads, values, NULL);
        if (r->failed < 0) {
            outcome = RESULT_FAILED;
        } else if (ar_stop_signal) {
            outcome = RESULT_INTERRUPTED;
            r->failed = -2;
        } else {
            ar_summary *sums;
            long *hists[AR_MAX_OUTPUTS];
            unpack_point(px, x, r, &sums, hists);
            ar_trials_summarize_point(x, points[i], values, r->failed, sums, hists);
        }
        for (long k = i + 1; outcome != RESULT_OK && k < count; ++k)
            record_at(message, stride, k)->point = points[k], record_at(message, stride, k)->failed = -2;
    }
    free(values);
    return outcome;
}

static void worker(const ar_run_plan *plan, const ar_run_options *opt)
{
    long *job = malloc((2 + CHUNK_POINTS) * sizeof *job); /* the largest task the coordinator sends */
    if (!job) {
        fprintf(stderr, "attnrank: rank %d: out of memory before its first point\n", ar_mpi_rank());
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        MPI_Status st;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int longs;
        MPI_Get_count(&st, MPI_LONG, &longs);
        MPI_Recv(job, longs, MPI_LONG, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_STOP)
            break;
        int e = (int)job[0];
        long count = job[1];
        const ar_experiment *x = &plan->spec->experiments[e];
        size_t stride = point_stride(&plan->experiments[e], x), bytes = sizeof(result_header) + (size_t)count * stride;
        char *message = calloc(1, bytes);
        if (!message) { /* an empty result: the coordinator reports this rank out of memory */
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
            continue;
        }
        double start = omp_get_wtime();
        result_header *h = (result_header *)message;
        h->experiment = e;
        h->count = count;
        h->outcome = compute_chunk(plan, opt, e, job + 2, count, message, stride);
        h->seconds = omp_get_wtime() - start;
        MPI_Send(message, (int)bytes, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(message);
    }
    free(job);
}

/* The coordinator's queue: every point to do and where the next chunk starts. Chunks
 * are consecutive points of one experiment, so that their results are written as slabs;
 * blocks of them go heaviest first (order_heavier_first), so that no costly point is
 * left for the end while the other ranks wait. */
typedef struct {
    int *experiment;
    long *point, n, next;
    double *work, work_left;
    double seconds_per_work; /* measured; 0 until the first result */
} queue;

typedef struct {
    long from, count;
    double work;
} queue_block;

static int heavier_block_first(const void *a, const void *b)
{
    const queue_block *x = a, *y = b;
    if (x->work != y->work)
        return x->work < y->work ? 1 : -1;
    return (x->from > y->from) - (x->from < y->from);
}

/* The queue (in grid order) cut into blocks of consecutive points of one experiment,
 * about 64 a rank (at most 4096 points, at least one), the heaviest first. 0, or -1
 * when out of memory (the queue is then as it was). */
static int order_heavier_first(queue *q, int ranks)
{
    long size = q->n / (64L * ranks);
    size = size < 1 ? 1 : size > 4096 ? 4096 : size;
    queue_block *blocks = malloc((size_t)(q->n + 1) * sizeof *blocks);
    int *experiment = malloc((size_t)(q->n + 1) * sizeof *experiment);
    long *point = malloc((size_t)(q->n + 1) * sizeof *point);
    double *work = malloc((size_t)(q->n + 1) * sizeof *work);
    if (!blocks || !experiment || !point || !work) {
        free(blocks), free(experiment), free(point), free(work);
        return -1;
    }
    long n_blocks = 0;
    for (long i = 0; i < q->n;) {
        queue_block b = {i, 0, 0};
        while (i < q->n && b.count < size && q->experiment[i] == q->experiment[b.from])
            b.work += q->work[i++], b.count++;
        blocks[n_blocks++] = b;
    }
    qsort(blocks, (size_t)n_blocks, sizeof *blocks, heavier_block_first);
    long at = 0;
    for (long k = 0; k < n_blocks; ++k)
        for (long i = blocks[k].from; i < blocks[k].from + blocks[k].count; ++i, ++at)
            experiment[at] = q->experiment[i], point[at] = q->point[i], work[at] = q->work[i];
    free(q->experiment), free(q->point), free(q->work), free(blocks);
    q->experiment = experiment, q->point = point, q->work = work;
    return 0;
}

/* The next chunk for a worker: about CHUNK_SECONDS of measured work, less near the end
 * (a share of what is left for each worker), one point before anything is measured. */
static chunk next_chunk(queue *q, const ar_run_plan *plan, int workers, long *job)
{
    chunk c = {q->experiment[q->next], 0, job + 2};
    double target = q->seconds_per_work > 0 ? CHUNK_SECONDS / q->seconds_per_work : 0;
    double share = q->work_left / (2.0 * workers);
    if (target > share)
        target = share;
    int e = c.experiment;
    size_t stride = point_stride(&plan->experiments[e], &plan->spec->experiments[e]);
    long most = (long)(CHUNK_BYTES / stride); /* and an MPI message counts its bytes in an int */
    most = most < 1 ? 1 : most;
    most = most < CHUNK_POINTS ? most : CHUNK_POINTS;
    double work = 0;
    while (q->next < q->n && q->experiment[q->next] == e && c.count < most && (c.count == 0 || work < target) &&
           (c.count == 0 || q->point[q->next] == job[2 + c.count - 1] + 1)) {
        job[2 + c.count++] = q->point[q->next];
        work += q->work[q->next];
        q->next++;
    }
    q->work_left -= work;
    job[0] = e, job[1] = c.count;
    return c;
}

/* Rank 0 computes too: a thread of its own takes chunks from the coordinator as a remote
 * worker would, so that P ranks keep P cores busy. Only the main thread calls MPI and
 * writes the store; the two meet under the lock. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    const ar_run_plan *plan;
    const ar_run_options *opt;
    long *job;          /* its chunk (main -> thread) */
    char *message;      /* its result (thread -> main) */
    int has_job, has_result, stop;
} local_worker;

static void *local_worker_main(void *arg)
{
    local_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->has_job && !w->stop)
            pthread_cond_wait(&w->wake, &w->lock);
        if (!w->has_job)
            break;
        w->has_job = 0;
        pthread_mutex_unlock(&w->lock);
        int e = (int)w->job[0];
        long count = w->job[1];
        const ar_experiment *x = &w->plan->spec->experiments[e];
        size_t stride = point_stride(&w->plan->experiments[e], x);
        memset(w->message, 0, sizeof(result_header) + (size_t)count * stride);
        double start = omp_get_wtime();
        result_header *h = (result_header *)w->message;
        h->experiment = e;
        h->count = count;
        h->outcome = compute_chunk(w->plan, w->opt, e, w->job + 2, count, w->message, stride);
        h->seconds = omp_get_wtime() - start;
        pthread_mutex_lock(&w->lock);
        w->has_result = 1;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* What the coordinator keeps while it takes results in. */
typedef struct {
    const ar_run_plan *plan;
    const ar_run_options *opt;
    ar_store *store;
    ar_progress *progress;
    queue *q;
    long marked;
    double measured_seconds, measured_work; /* of the chunks finished: their compute time */
    long stored, chunks;                    /* the coordinator's own work, for */
    double storing_seconds;                 /* ATTNRANK_COORDINATOR_STATS (below) */
} coordination;

/* One chunk's results (a remote rank's message, or the local thread's) into the store;
 * its time measures the cost of work for the next chunks. */
static ar_status store_result(coordination *c, const char *buffer, int bytes, int source, char *err)
{
    const result_header *h = (const result_header *)buffer;
    const ar_experiment *x = bytes ? &c->plan->spec->experiments[h->experiment] : NULL;
    if (bytes == 0 || h->outcome == RESULT_FAILED) {
        snprintf(err, AR_ERR_LEN, "%s: rank %d ran out of memory at experiment %s", c->opt->output, source,
                 x ? x->name : "?");
        return AR_ERR_IO;
    }
    const ar_plan_experiment *px = &c->plan->experiments[h->experiment];
    size_t stride = point_stride(px, x);
    double work = 0;
    for (long i = 0; i < h->count; ++i) {
        point_record *r = record_at((char *)buffer, stride, i);
        if (r->failed < 0)
            continue; /* interrupted: not written, recomputed on resume */
        ar_summary *sums;
        long *hists[AR_MAX_OUTPUTS];
        unpack_point(px, x, r, &sums, hists);
        if (ar_store_write_point(c->store, h->experiment, r->point, sums, hists, err) < 0)
            return AR_ERR_IO;
        c->marked += ar_trials_point_marked(x, r->failed);
        c->stored++;
        double point_work = c->plan->work[px->first + r->point];
        work += point_work;
        ar_progress_point_begin(c->progress, point_work / x->trials, 0);
        ar_progress_point_end(c->progress);
    }
    if (h->outcome == RESULT_OK && h->seconds > 0 && work > 0) {
        c->measured_seconds += h->seconds, c->measured_work += work;
        c->q->seconds_per_work = c->measured_seconds / c->measured_work;
    }
    return AR_OK;
}

static ar_status take_result(coordination *c, const char *buffer, int bytes, int source, char *err)
{
    double start = omp_get_wtime();
    ar_status status = store_result(c, buffer, bytes, source, err);
    c->storing_seconds += omp_get_wtime() - start;
    c->chunks++;
    return status;
}

/* Rank 0's main thread: the store, the queue, the writes. Polls with short sleeps
 * rather than a blocking probe, which in Open MPI spins a core that the workers need. */
static ar_status coordinator(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store, char *err)
{
    const ar_spec *spec = plan->spec;
    queue q = {0};
    size_t n = (size_t)(plan->points ? plan->points : 1), capacity = sizeof(result_header);
    q.experiment = malloc(n * sizeof *q.experiment);
    q.point = malloc(n * sizeof *q.point);
    q.work = malloc(n * sizeof *q.work);
    for (int e = 0; q.experiment && q.point && q.work && e < spec->n_experiments; ++e) {
        size_t stride = point_stride(&plan->experiments[e], &spec->experiments[e]);
        size_t points = (size_t)(CHUNK_BYTES / stride) < CHUNK_POINTS ? (size_t)(CHUNK_BYTES / stride) : CHUNK_POINTS;
        size_t most = sizeof(result_header) + (points ? points : 1) * stride;
        capacity = most > capacity ? most : capacity;
        for (long p = 0; p < spec->experiments[e].n_points; ++p) {
            long g = plan->experiments[e].first + p;
            if (ar_session_owns(opt, plan->points, g) && !ar_store_done(store, e, p)) {
                q.experiment[q.n] = e, q.point[q.n] = p, q.work[q.n] = plan->work[g];
                q.work_left += plan->work[g];
                q.n++;
            }
        }
    }
    if (q.experiment && q.point && q.work && order_heavier_first(&q, ar_mpi_size()) < 0)
        free(q.work), q.work = NULL; /* reported below as out of memory */
    char *message = q.experiment && q.point && q.work ? malloc(capacity) : NULL;
    long *job = malloc((2 + CHUNK_POINTS) * sizeof *job);
    local_worker local = {.plan = plan, .opt = opt, .job = malloc((2 + CHUNK_POINTS) * sizeof(long)),
                          .message = malloc(capacity)};
    pthread_t thread;
    int local_running = 0;
    if (message && job && local.job && local.message) {
        pthread_mutex_init(&local.lock, NULL);
        pthread_cond_init(&local.wake, NULL);
        local_running = pthread_create(&thread, NULL, local_worker_main, &local) == 0;
    }
    if (!local_running) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", opt->output);
        /* the workers are waiting with a READY each: send them home */
        for (int r = 1; r < ar_mpi_size(); ++r) {
            MPI_Status st;
            MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_READY, MPI_COMM_WORLD, &st);
            MPI_Send(NULL, 0, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
        if (local.job && local.message && message && job) {
            pthread_mutex_destroy(&local.lock);
            pthread_cond_destroy(&local.wake);
        }
        free(q.experiment), free(q.point), free(q.work), free(message), free(job), free(local.job),
            free(local.message);
        return AR_ERR_IO;
    }
    ar_progress progress;
    ar_session_start_progress(plan, opt, store, &progress);
    int remote = ar_mpi_size() - 1, status = AR_OK, local_busy = 0;
    coordination c = {plan, opt, store, &progress, &q, 0, 0, 0, 0, 0, 0};
    int more = q.next < q.n;
    if (more) { /* the local thread's first chunk */
        pthread_mutex_lock(&local.lock);
        next_chunk(&q, plan, remote + 1, local.job);
        local.has_job = local_busy = 1;
        pthread_cond_signal(&local.wake);
        pthread_mutex_unlock(&local.lock);
    }
    while (remote > 0 || local_busy) {
        int handled = 0;
        if (local_busy) {
            pthread_mutex_lock(&local.lock);
            if (local.has_result) {
                local.has_result = 0;
                handled = 1;
                if (status == AR_OK)
                    status = take_result(&c, local.message, 1, 0, err);
                if (q.next < q.n && status == AR_OK && !ar_stop_signal) {
                    next_chunk(&q, plan, remote + 1, local.job);
                    local.has_job = 1;
                    pthread_cond_signal(&local.wake);
                } else {
                    local_busy = 0;
                }
            }
            pthread_mutex_unlock(&local.lock);
        }
        int ready = 0;
        MPI_Status st;
        if (remote > 0)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st);
        if (!ready) {
            if (!handled) {
                /* idle: what is written waits for no more results to be committed */
                if (status == AR_OK && ar_store_commit(store, err) < 0)
                    status = AR_ERR_IO;
                nanosleep(&(struct timespec){0, 200000}, NULL);
            }
            continue;
        }
        int bytes;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        MPI_Recv(message, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_RESULT && status == AR_OK)
            status = take_result(&c, message, bytes, st.MPI_SOURCE, err);
        if (q.next < q.n && status == AR_OK && !ar_stop_signal) {
            chunk task = next_chunk(&q, plan, remote + 1, job);
            MPI_Send(job, (int)(2 + task.count), MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        } else {
            MPI_Send(NULL, 0, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            remote--;
        }
    }
    pthread_mutex_lock(&local.lock);
    local.stop = 1;
    pthread_cond_signal(&local.wake);
    pthread_mutex_unlock(&local.lock);
    pthread_join(thread, NULL);
    pthread_mutex_destroy(&local.lock);
    pthread_cond_destroy(&local.wake);
    ar_progress_finish(&progress);
    ar_trials_announce_marked(c.marked);
    /* ATTNRANK_COORDINATOR_STATS=1 (benchmarks): the coordinator's capacity, its own time
     * taking results in and storing them, beside the computing */
    if (getenv("ATTNRANK_COORDINATOR_STATS"))
        fprintf(stderr, "attnrank: coordinator: %ld points in %ld chunks stored in %.3f s: %.3g points/s\n", c.stored,
                c.chunks, c.storing_seconds, c.storing_seconds > 0 ? c.stored / c.storing_seconds : 0.0);
    free(q.experiment), free(q.point), free(q.work), free(message), free(job), free(local.job), free(local.message);
    return status;
}

ar_status ar_distributed_run(const ar_spec *spec, const ar_run_plan *plan, const ar_run_options *opt,
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
        store = partial ? ar_session_start_store(spec, opt, partial, &lock, err, &status) : NULL;
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
        worker(plan, opt);
        ar_status final;
        MPI_Bcast(&final, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (final != AR_OK)
            snprintf(err, AR_ERR_LEN, "the run stopped (rank 0 reports why)");
        return final;
    }
    status = coordinator(plan, opt, store, err);
    status = ar_session_finish(plan, opt, store, lock, partial, status, rows_out, n_rows, err);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(partial);
    return status;
}
#endif
