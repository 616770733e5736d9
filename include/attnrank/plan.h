/* plan: what running a spec takes, worked out once from the spec and shared by the
 * pre-flight checks, the run loop, progress, shards and the MPI queue: where each
 * experiment's points start among all the spec's points, each point's work, values per
 * trial and memory, each experiment's widest point and histograms, and the size of the
 * result file. */
#ifndef ATTNRANK_PLAN_H
#define ATTNRANK_PLAN_H

#include "attnrank/sim.h"
#include "attnrank/spec.h"

typedef struct ar_plan_experiment {
    long first;                        /* its first point's index among all the spec's points */
    int widest;                        /* most values per trial over its points */
    int hist_width[AR_MAX_OUTPUTS];    /* integer outputs: largest hist_max + 1; 0 for the others */
    int points_in_parallel;            /* cheap points (too few trials to share): one per thread,
                                          each thread its own workspace and trial values */
} ar_plan_experiment;

typedef struct ar_run_plan {
    const ar_spec *spec;
    int threads;                       /* the team one point runs with */
    long points;                       /* over all experiments */
    ar_plan_experiment *experiments;
    double *work;                      /* per point (index among all): trials x cost */
    int *values;                       /* per point: values per trial */
    double *memory;                    /* per point: bytes, workspaces for the team and per-trial values */
    long largest;                      /* the point that needs the most memory, -1 if none */
    double output_bytes;               /* the result file, estimated */
    double metadata_bytes;             /* of which its groups' and datasets' metadata */
    double layout_bytes;               /* memory of the process and of the open file's layout */
    double buffer_bytes;               /* the largest of the slab, batch and verdict buffers */
    double overhead_seconds;           /* CPU time beside the trials: starting, creating the
                                          layout, writing each point and reading it back */
} ar_run_plan;

/* The most threads one team may have, whoever asks (--threads, OMP_NUM_THREADS). */
enum { AR_MAX_THREADS = 4096 };

/* The least stack a run accepts, for the main thread (ulimit -s) and for each OpenMP
 * thread (OMP_STACKSIZE, GOMP_STACKSIZE, else ulimit -s). Measured on an AMD EPYC
 * (OpenBLAS's Zen core): every simulator at its defaults ran with 48 KiB on the main
 * thread and 112 KiB per OpenMP thread (60 KiB of which OpenBLAS's thread-local storage
 * takes), and crashed below; the floor leaves 9 times that for LAPACK's and the other
 * cores' kernels' frames. */
#define AR_MIN_STACK_BYTES (1024.0 * 1024.0)

/* Threads a team gets for `requested` (0: OpenMP's default), at most OMP_THREAD_LIMIT. */
int ar_plan_threads(int requested);
/* The same, checked before a run or plan uses it: OMP_NUM_THREADS, OMP_THREAD_LIMIT and
 * OMP_STACKSIZE/GOMP_STACKSIZE must be well formed (libgomp only warns and ignores a bad
 * one, or wraps a huge one), the stacks at least AR_MIN_STACK_BYTES, and the team no
 * larger than AR_MAX_THREADS or than the threads this system lets a process start
 * (libgomp aborts, or crashes, when it cannot create them). Returns the team, or -1 with a one-line reason in err. */
int ar_plan_team(int requested, char *err);
/* The stack each OpenMP thread gets: OMP_STACKSIZE, else GOMP_STACKSIZE (as libgomp
 * reads them), else the pthread default (ulimit -s). */
double ar_plan_thread_stack_bytes(void);
/* Returns 0, or -1 when out of memory (the plan is then empty and may be freed). */
int ar_plan_make(const ar_spec *spec, int threads, ar_run_plan *plan);
void ar_plan_free(ar_run_plan *plan);
/* The experiment of a point counted among all the spec's points, and its index in it. */
int ar_plan_locate(const ar_run_plan *plan, long global, long *point);

#endif
