/* engine_parts: what the engine's files share and nothing outside the engine needs:
 * computing one point (trials.c), the pre-flight checks (preflight.c), and the start and
 * end of a run (run.c) that the single-process loop, the merge and the MPI driver share. */
#ifndef ATTNRANK_ENGINE_PARTS_H
#define ATTNRANK_ENGINE_PARTS_H

#include "attnrank/engine.h"
#include "attnrank/output.h"
#include "attnrank/plan.h"
#include "attnrank/progress.h"

/* Every trial of one point into values (values[v * trials + t]); returns the failed
 * trials, or -1 if a thread could not get its workspace. */
long ar_trials_compute_point(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                             double *values, ar_progress *progress);

/* Trials first .. first + count - 1 of point pt on the streams of (seed, key) into
 * values[v * count + t - first]: what ar_trials_compute_point does for a grid point
 * (seed the spec's, key the point's), for the attacks' own streams. */
long ar_trials_compute_stream(const ar_point *pt, uint64_t seed, uint64_t key, long first, long count, int threads,
                              double *values, ar_progress *progress);

/* A batch of cheap points of one experiment, computed one per thread (each thread
 * keeps its buffers across the batch's points and the batches), each summarized. */
typedef struct ar_thread_buffers ar_thread_buffers;
typedef struct ar_batch {
    int capacity, count, team;
    int widest, hist_total, hist_at[AR_MAX_OUTPUTS]; /* hist_at: -1 for an output without one */
    long *points;               /* [count]: the points, in the order they are written */
    long *failed;               /* [count]: failed trials; -1 out of memory; -2 interrupted */
    ar_summary *sums;           /* [count][widest] */
    long *hists;                /* [count][hist_total] */
    ar_thread_buffers *buffers; /* [team] */
} ar_batch;
int ar_trials_batch_init(ar_batch *b, const ar_experiment *x, const ar_plan_experiment *px, int capacity, int threads);
void ar_trials_batch_free(ar_batch *b);
/* Point i's histograms inside the batch, per output (NULL where it has none). */
void ar_trials_batch_histograms(const ar_batch *b, const ar_experiment *x, int i, long **hists);
void ar_trials_compute_batch(const ar_spec *spec, const ar_experiment *x, ar_batch *b);

/* Whether a point with this many failed trials is marked (count 0, statistics NaN),
 * and the one line a run, whoever computed it, prints about its marked points. */
int ar_trials_point_marked(const ar_experiment *exp, long failed_trials);
void ar_trials_announce_marked(long marked);

/* Pre-flight, before anything is allocated or written: the output's folder, the
 * memory the largest point needs, the disk and file-size limit for the whole file. */
int ar_preflight_output_path(const char *path, char *err);
int ar_preflight_run(const ar_run_plan *plan, const ar_run_options *opt, char *err);
/* The disk and the file-size limit (ulimit -f) for the whole file of plan, alone: what a
 * writer that computes nothing (merge, judge -o) checks before it writes. */
int ar_preflight_file_room(const ar_run_plan *plan, const char *output, char *err);

/* Whether this run (its shard) computes the point with this index among all `points`
 * (spec.h's ar_shard_owner). */
int ar_session_owns(const ar_run_options *opt, long points, long global);
/* Takes the output's lock (output.h), then opens PATH.partial to resume it, or creates
 * it (the whole layout, under a temporary name first); *lock holds the lock until
 * ar_session_finish lets it go; *status says what a NULL return means (the lock is
 * then released). */
ar_store *ar_session_start_store(const ar_spec *spec, const ar_run_options *opt, const char *partial,
                                ar_output_lock **lock, char *err, ar_status *status);
/* A PATH.partial found by a writer with nothing to resume (merge, judge -o), under its
 * lock: removed (0) if a writer of that kind left it (a kill: nothing in it to keep);
 * else -1 and err says whose it is: a run's or an attack's can be resumed, and is kept,
 * --force included; one whose writer cannot be told only --force replaces (0). */
int ar_session_clear_stale_partial(const char *partial, int force, char *err);
void ar_session_start_progress(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                              ar_progress *progress);
/* The end of a run, whoever computed it: say what an interrupted run saved; judge,
 * close and rename a complete one; remove an unfinished one that cannot be resumed
 * (opt->no_resume); then release the lock. */
ar_status ar_session_finish(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                           ar_output_lock *lock, const char *partial, ar_status status, ar_verdict_row **rows_out,
                           int *n_rows, char *err);

#ifdef ATTNRANK_MPI
ar_status ar_distributed_run(const ar_spec *spec, const ar_run_plan *plan, const ar_run_options *opt,
                                    ar_verdict_row **rows_out, int *n_rows, char *err);
#endif

#endif
