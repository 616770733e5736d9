/* progress: status line with points, trials per second and time left. */
#include "attnrank/progress.h"

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static void format_duration(double s, char *buf, size_t len)
{
    if (s < 0 || s != s)
        snprintf(buf, len, "?");
    else if (s < 60)
        snprintf(buf, len, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, len, "%.0fm%02.0fs", (double)(int)(s / 60), s - 60 * (int)(s / 60));
    else
        snprintf(buf, len, "%.0fh%02.0fm", (double)(int)(s / 3600), (s - 3600 * (int)(s / 3600)) / 60);
}

static void print_line(ar_progress *p, double now)
{
    long trials_done;
#pragma omp atomic read
    trials_done = p->point_done;
    double work = p->done_work + p->point_cost * (double)trials_done;
    double elapsed = now - p->start, fresh = work - p->resumed_work;
    double left = fresh > 0 ? elapsed * (p->total_work - work) / fresh : -1;
    double percent = p->total_work > 0 ? 100.0 * work / p->total_work : 100.0;
    char eta[32], spent[32];
    format_duration(left, eta, sizeof eta);
    format_duration(elapsed, spent, sizeof spent);
    double rate = elapsed > 0 ? (double)(p->fresh_trials + trials_done) / elapsed : 0;
    fprintf(stderr, "%s[%ld/%ld points] %5.1f%% done, %.3g trials/s, %s elapsed, %s left%s",
            p->tty ? "\r" : "", p->done_points, p->total_points, percent, rate, spent, eta,
            p->tty ? "\033[K" : "\n");
    fflush(stderr);
    p->last_print = now;
}

void ar_progress_start(ar_progress *p, int quiet, long total_points, long done_points, double total_work,
                       double done_work)
{
    p->quiet = quiet;
    p->tty = isatty(2);
    p->total_points = total_points;
    p->done_points = done_points;
    p->total_work = total_work;
    p->done_work = p->resumed_work = done_work;
    p->point_cost = 0;
    p->point_trials = p->point_done = p->fresh_trials = 0;
    p->start = p->last_print = omp_get_wtime();
    if (!quiet && done_points > 0)
        fprintf(stderr, "resuming: %ld of %ld points already done\n", done_points, total_points);
}

void ar_progress_point_begin(ar_progress *p, double cost_per_trial, long trials)
{
    p->point_cost = cost_per_trial;
    p->point_trials = trials;
    p->point_done = 0;
}

void ar_progress_trial_done(ar_progress *p)
{
#pragma omp atomic
    p->point_done++;
    if (p->quiet || omp_get_thread_num() != 0)
        return;
    double now = omp_get_wtime();
    if (now - p->last_print >= (p->tty ? 0.5 : 30.0))
        print_line(p, now);
}

void ar_progress_point_end(ar_progress *p)
{
    p->done_work += p->point_cost * (double)p->point_trials;
    p->done_points++;
    p->fresh_trials += p->point_trials;
    p->point_done = 0;
    p->point_cost = 0;
    double now = omp_get_wtime();
    if (!p->quiet && now - p->last_print >= (p->tty ? 0.5 : 30.0))
        print_line(p, now);
}

void ar_progress_finish(ar_progress *p)
{
    if (p->quiet)
        return;
    print_line(p, omp_get_wtime());
    if (p->tty)
        fputc('\n', stderr);
}
