/* progress: one status line on stderr while a run works.
 *
 * On a terminal the line is redrawn in place twice a second; otherwise (a batch job's
 * log) a plain line is written every 30 seconds. Work is measured in trials times the
 * simulator's cost per trial, so the time left is right on grids that mix sizes. */
#ifndef ATTNRANK_PROGRESS_H
#define ATTNRANK_PROGRESS_H

typedef struct ar_progress {
    int quiet, tty;
    long total_points, done_points;
    double total_work, done_work, resumed_work;
    double point_cost;          /* work per trial of the point in flight */
    long point_trials, point_done, fresh_trials;
    double start, last_print;
} ar_progress;

void ar_progress_start(ar_progress *p, int quiet, long total_points, long done_points, double total_work,
                       double done_work);
void ar_progress_point_begin(ar_progress *p, double cost_per_trial, long trials);
/* Thread-safe; called once per trial. */
void ar_progress_trial_done(ar_progress *p);
void ar_progress_point_end(ar_progress *p);
void ar_progress_finish(ar_progress *p);

#endif
