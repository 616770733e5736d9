/* engine: runs every grid point of a spec, trial by trial, into a store. One concern a
 * file in sim/08-engine: plan.c works out the run once from the spec (plan.h); preflight.c
 * refuses what cannot fit; trials.c computes a point, or a batch of cheap points one per
 * thread, and summarizes them; run.c is the single-process loop; session.c the start and
 * end every run shares; merge.c joins shards; distributed.c is the MPI driver; judge.c
 * the verdicts (judge.h); result.c a result file opened for reading, as every reader
 * of one takes it.
 *
 * An expensive point's trials are shared by the OpenMP threads (each allocates its
 * workspace once per point); cheap points run whole, one per thread. BLAS runs
 * single-threaded inside a trial. A trial's values land in an array indexed by trial and
 * are reduced in trial order, so the results are the same bits for any thread count.
 * Points go to the store in slabs, committed about once a second; an interrupted run
 * resumes from the file's ledger. */
#ifndef ATTNRANK_ENGINE_H
#define ATTNRANK_ENGINE_H

#include <signal.h>
#include <stddef.h>

#include "attnrank/mpi_world.h"
#include "attnrank/provenance.h"
#include "attnrank/signals.h"
#include "attnrank/spec.h"
#include "attnrank/judge.h"
#include "attnrank/plan.h"
#include "attnrank/store.h"

typedef struct ar_run_options {
    const char *output;        /* final path; the run writes output.partial first */
    const char *command_line;
    int threads;               /* 0: OpenMP's default */
    int resume;                /* continue output.partial */
    int force;                 /* replace an existing output */
    int quiet;
    double max_memory;         /* bytes; 0: 80% of physical memory */
    int shard, shards;         /* shards > 1: only the points of this shard (spec.h's ar_shard_owner),
                                  g counting the points of all experiments in spec order */
    int no_resume;             /* a merge: nothing to resume, so an output.partial it leaves
                                  unfinished (failed, interrupted) is removed */
} ar_run_options;

/* What a run, a merge or a judgement comes to; the command line maps these to exit
 * statuses (cli_options.c). */
typedef enum {
    AR_OK = 0,
    AR_ERR_INPUT,       /* bad input (spec, options, a file read), or a run refused before it starts */
    AR_ERR_IO,          /* a write failed during the run */
    AR_ERR_INTERRUPTED, /* SIGINT, SIGTERM or SIGHUP (ar_stop_signal says which): finished points are saved */
} ar_status;

/* Run (or resume) spec into opt->output. On success *rows holds the verdict rows
 * (free them) and the return is AR_OK; otherwise a status with err set. A shard's file
 * holds its points only and no verdicts (*n_rows = 0): merge the shards. */
ar_status ar_run_spec(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows, int *n_rows,
                        char *err);

/* PATH.partial an interrupted attack left is its progress, never another command's to
 * resume or replace: 1 with one line in err naming it and `attack --resume` (command: the
 * writer refusing it), else 0. */
int ar_session_attack_partial(const char *partial, const char *command, char *err);

/* Merge the complete shard files of one spec (every index 0..N-1 exactly once) into
 * output, the file a single run would have written, with its verdicts. `judged`: NULL,
 * or the shards' spec with conjectures added (ar_spec_add_conjectures), which output
 * then holds, with their theory and verdicts (judge -o). */
ar_status ar_merge_shards(const char *output, const char *const *shards, int n_shards, const char *command_line,
                          int force, const ar_spec *judged, ar_verdict_row **rows, int *n_rows, char *err);

/* A result file opened for reading (sim/08-engine/result.c): what info, judge, mutants
 * and report show of one, and what merge takes of a shard, is only ever this. The store opens and checks the file; its
 * verdicts are re-judged from its data once (NOT RUN while it is incomplete, as
 * ar_judge_check_verdicts says) and each stored row that differs is marked. */
typedef struct ar_result {
    ar_store *store;             /* open read-only, for the engine's judges (ar_judge_mutants ...) */
    const ar_spec *spec;         /* the stored spec, rebuilt and checked against the file */
    long *done;                  /* [n_experiments]: points in the ledger */
    int complete, first_incomplete; /* every point in; else the first experiment that lacks some */
    ar_verdict_row *stored;      /* [n_rows] as the file stores them (AR_RESULT_STORED), else NULL */
    ar_verdict_row *rows;        /* [n_rows] re-judged: what is shown */
    unsigned char *marks;        /* [n_rows]: AR_STORED_* of each stored row that differs */
    unsigned char *unlisted;     /* [n_experiments]: its theory/ of claims the spec does not list */
    int n_rows;
    int damaged;                 /* ar_judge_check_verdicts': rows (and experiments) that differ */
    char damage[AR_ERR_LEN];     /* "FILE: damaged: ..." when damaged */
} ar_result;
enum {
    AR_RESULT_STORED = 1,        /* read the stored rows too (first), to show them beside */
    AR_RESULT_WHOLE = 2,         /* an incomplete file is not judged: the caller refuses it */
};
/* Opens path: 0 with *r filled (damage is not a failure: r->damaged says it), or -1 with
 * err where it cannot be opened, read or judged. Close with ar_result_close either way. */
int ar_result_open(const char *path, int flags, ar_result *r, char *err);
void ar_result_close(ar_result *r);

/* `attnrank judge`: a finished file judged again without simulating, with a user's
 * conjectures joined to its spec, and optionally written to a copy. */
typedef struct ar_judge_request {
    const char *path;                  /* the result file; never modified */
    const char *copy;                  /* NULL, or the copy to write with the conjectures */
    const char *command_line;          /* the copy's */
    const char *conjecture_file;       /* NULL, or a file of conjectures */
    const char *const *conjectures;    /* conjectures given one by one */
    int n_conjectures;
    int force;                         /* the copy may replace a file */
    int mutants;                       /* also judge every claim against its mutants */
} ar_judge_request;

typedef struct ar_file_judgement {
    ar_spec spec;                      /* the file's spec with the conjectures joined */
    ar_verdict_row *rows;              /* [n_rows]: ar_store_verdict_count(&spec) */
    int n_rows;
    ar_mutant_row *mutants;            /* [n_rows], or NULL when not asked */
    char *notes;                       /* lines to say after the table ("note: ..."), never NULL */
} ar_file_judgement;

/* Judges req->path: a complete file whose stored verdicts and theory its own revision
 * would give (an edited one is refused), its claims and the conjectures; the copy is
 * made as a merge of one makes it. Returns AR_OK with *out filled (ar_file_judgement_free),
 * or a status with err: AR_ERR_INPUT for a file or conjecture refused, AR_ERR_IO for
 * memory, the copy's own statuses. */
ar_status ar_rejudge_file(const ar_judge_request *req, ar_file_judgement *out, char *err);
void ar_file_judgement_free(ar_file_judgement *judgement);


/* `attnrank attack`: one of the spec's attacks (attack.h; sim/08-engine/attack.c says how
 * it searches). The outcome: what the file keeps, and the verdict of the confirmation. */
typedef struct ar_attack_outcome {
    const ar_attack *attack;
    ar_attack_record record;
    ar_judgement judgement;      /* the claim's rule over the confirmed points */
    long deciding;               /* the confirmation row behind the verdict, -1 none */
} ar_attack_outcome;
/* Search and confirm spec->attacks[index]: AR_OK with *out filled (ar_attack_outcome_free),
 * AR_ERR_INTERRUPTED on a signal, AR_ERR_IO out of memory, with err. Deterministic for
 * the spec's seed at any thread count (unless max_seconds ends the search). */
ar_status ar_attack_run(const ar_spec *spec, int index, int threads, ar_attack_outcome *out, char *err);
void ar_attack_outcome_free(ar_attack_outcome *out);
/* What attack a will take, sized before it starts: x becomes its experiment with an axis
 * per dimension of the space holding the points where the sizes are largest (a set's
 * values, a range's ends; a limit's own sizes) and the most trials one point holds at
 * once (its confirmation's, or a search chunk), for ar_plan_make; storage holds
 * AR_MAX_PARAMS * AR_ATTACK_MAX_SET values. 0, or -1 if no such experiment fits. */
int ar_attack_sizing_experiment(const ar_spec *spec, const ar_attack *a, ar_experiment *x, double *storage);
/* About how many bytes the attack file keeps for it (its search's evaluations counted
 * as the first design's). */
double ar_attack_file_bytes(const ar_spec *spec, const ar_attack *a);
/* Before any attack starts: the output's folder, the team, and for each attack its
 * largest point's memory against --max-memory (80% of RAM) and ulimit -v, and the attack
 * file against the disk and ulimit -f, as a run's pre-flight. 0, or -1 with one line. */
int ar_preflight_attacks(const ar_spec *spec, const ar_run_options *opt, char *err);
/* The verdict from a record's confirmation rows alone, as the run judged it (judge
 * re-derives a stored attack's verdict with it). 0, or -1 out of memory. */
int ar_attack_judge(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, ar_judgement *j,
                    long *deciding);
/* An attack file as judge, info and report show it (sim/08-engine/attack_file.c): read with
 * every row and counter checked (ar_store_read_attacks), whole, and each verdict
 * re-derived from the stored confirmations and equal to the stored one. What is shown
 * and drawn of an attack file is only ever this, and the private copy it was read from
 * (the figure scripts read that). */
typedef struct ar_attack_file {
    ar_spec spec;
    ar_attack_record *records;
    ar_judgement *judgements;
    long *deciding;              /* each attack's deciding confirmation row, -1 for none */
    int copy;                    /* the descriptor of the copy read (ar_snapshot_regular), 0 for none */
} ar_attack_file;
/* AR_OK, or AR_ERR_INPUT (damaged, incomplete) or AR_ERR_IO (memory) with err; f is
 * freed by ar_attack_file_free either way. */
ar_status ar_attack_file_load(const char *path, ar_attack_file *f, char *err);
void ar_attack_file_free(ar_attack_file *f);

/* `attnrank plan`: what a spec will take, before it runs (a few points of each
 * experiment timed here, the others scaled by the simulator's cost model). */
typedef struct ar_experiment_estimate {
    double trials;                 /* points x trials */
    double seconds;                /* core-seconds of its trials */
    double seconds_per_trial_max;  /* the costliest point's trial */
    double thread_memory;          /* bytes a thread needs at its largest point */
} ar_experiment_estimate;

typedef struct ar_run_estimate {
    ar_experiment_estimate *experiments; /* [spec->n_experiments] */
    long points;
    double trials;
    double trial_seconds;          /* core-seconds of every trial */
    double file_seconds;           /* writing the file: its layout, each point's write and flush */
    double wall_seconds_here;      /* on this machine's cores */
    double output_bytes, run_memory, thread_memory;
    int threads, cores;
} ar_run_estimate;

/* 0, or -1 with err (a team the system cannot start, memory, a timing thread that
 * would not fit in the address space); label names the spec in messages. */
int ar_estimate_spec(const ar_spec *spec, int threads, const char *label, ar_run_estimate *est, char *err);
void ar_estimate_free(ar_run_estimate *est);

/* Compute one point's per-trial values: values[v * trials + t], v running over the
 * outputs' values in order (output o's at o * trials when all are scalars). For tests
 * and benchmarks; threads as in ar_run_options. Returns the number of failed trials. */
long ar_trials_point_values(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                            double *values);
/* Summaries (one per value) and histograms (one per integer output, NULL for the
 * others; hist_max + 1 counts each) of one point's per-trial values, as stored; with
 * more than AR_FAILURE_LIMIT of its trials failed, every summary is marked instead:
 * count 0, failed = failed_trials, statistics NaN. */
void ar_trials_summarize_point(const ar_experiment *exp, long point, const double *values, long failed_trials,
                               ar_summary *sums, long *const *hists);
/* Values per trial at a point (the values buffer holds trials times this many). */
int ar_trials_values_per_trial(const ar_experiment *exp, long point);

/* Bytes one point needs: per-thread workspaces plus per-trial value arrays. */
double ar_trials_point_memory(const ar_experiment *exp, const ar_point *point, int threads);

/* Seconds one trial of point p takes on one thread here, timed over as many trials as
 * fit in about `budget` seconds (at least one). For `attnrank plan`. */
double ar_trials_trial_seconds(const ar_spec *spec, const ar_experiment *exp, long point, double budget);
/* The simulator's cost model at point p (1 without one): plan scales timings by it. */
double ar_trials_point_cost(const ar_experiment *exp, long point);

/* Under ulimit -v: whether the plan's team (stacks, malloc arenas, OpenBLAS buffers)
 * and its largest point fit; -1 with a one-line refusal naming the spec if not. */
int ar_preflight_address_space(const ar_run_plan *plan, char *err);


#endif
