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
} ar_run_plan;

/* Threads a team gets for `requested` (0: OpenMP's default). */
int ar_plan_threads(int requested);
/* Returns 0, or -1 when out of memory (the plan is then empty and may be freed). */
int ar_plan_make(const ar_spec *spec, int threads, ar_run_plan *plan);
void ar_plan_free(ar_run_plan *plan);
/* The experiment of a point counted among all the spec's points, and its index in it. */
int ar_plan_locate(const ar_run_plan *plan, long global, long *point);

#endif
