/* attack: a spec's search for the point where a claim fares worst, read with the spec.
 *
 * An experiment may carry attacks: each names one of its claims (built-in or a
 * conjecture) and a search space over the simulator's parameters; the parameters left
 * out keep the experiment's fixed values.
 *
 *   { name = "bound"; simulator = "hardmax_rank"; trials = 400; n = 64; d_h = 16;
 *     claims = ["H1"];
 *     attacks = (
 *       { id = "h1_weights"; claim = "H1"; budget = 200000;
 *         space = { rho = { range = [-1.0, 1.0]; };              # a real range, linear
 *                   d_h = { range = [1, 256]; scale = "log"; };  # an integer range
 *                   inputs = ["orthonormal", "gaussian"]; };    # a set of choices
 *       } ); }
 *
 * Fields: id (1-15 letters, digits, '_' or '-', starting with a letter; unique in the
 * spec), claim, space, budget (trials, search and confirmation together: a seed gives
 * one answer), and optionally first_trials (a candidate's first trials, default 16),
 * confirm (how many of the search's best are re-run, default 4), confirm_trials (each
 * one's trials on fresh streams, default the experiment's trials), max_seconds (a
 * wall-clock cap on the search: 0, the default, for none; a capped search says so),
 * strategy ("adaptive", the default; "random": uniform candidates of 4 x first_trials
 * each, the baseline the benchmark compares with).
 *
 * The claim's rule sets the objective, larger meaning worse for the claim, relative to
 * the prediction f (absolute where f = 0): an upper bound (E[X] - f) / |f|; a lower
 * bound (f - E[X]) / |f|; an equality |E[X] - f| / |f|; an every-trial bound
 * (max X - f) / |f|; a limit along an axis |E[X] - f| / |f| at the axis's largest value,
 * where the confirmation judges the whole line of the experiment's sizes. Trends are not
 * attacked (refused when the spec is read). */
#ifndef ATTNRANK_ATTACK_H
#define ATTNRANK_ATTACK_H

#include <stddef.h>

#include "attnrank/sim.h"
#include "attnrank/theory.h"

enum { AR_ATTACK_MAX_SET = 64, AR_ATTACK_MAX_CONFIRM = 32 /* an attack's confirm, at most */ };

/* One dimension of the space: a range of a real or integer parameter, or a set of
 * values (choices by index, numbers as given). */
typedef struct ar_attack_dim {
    int param;
    int is_set;
    double lo, hi;          /* range, inclusive */
    int log_scale;          /* range: searched uniformly in log (lo > 0) */
    int n_values;           /* set */
    double values[AR_ATTACK_MAX_SET];
    char where[128];
} ar_attack_dim;

typedef struct ar_attack {
    char *id;
    int experiment;         /* index into the spec's experiments */
    int claim;              /* index into that experiment's claims */
    int n_dims;
    ar_attack_dim dims[AR_MAX_PARAMS];
    long budget, first_trials, confirm_trials;
    int confirm;
    double max_seconds;
    int random_search;      /* strategy = "random": uniform candidates, equal trials (a baseline) */
    char where[128];
} ar_attack;

/* Trials a confirmation takes: confirm candidates, each a point (a line of the
 * experiment's sizes for a limit) of confirm_trials. */
long ar_attack_confirmation_trials(const ar_attack *a, int line_points);
/* Points a candidate is confirmed on: 1, or for a limit the experiment's sizes. */
struct ar_spec;
int ar_attack_line_points(const struct ar_spec *spec, const ar_attack *a);
/* A random search's candidates each get AR_ATTACK_RANDOM_FACTOR x first_trials. */
enum { AR_ATTACK_RANDOM_FACTOR = 4 };

/* What an attack found, as its file keeps it (/attacks/<id>, store.h). Rows are
 * doubles: the columns below, then one per dimension of the space, the parameter's value
 * (a choice by its index). */
#define AR_ATTACK_EVALUATION_COLUMNS                                                                  \
    "evaluation", "candidate", "stage", "round", "trials", "failed", "mean", "stderr", "max", "prediction", \
        "objective"
enum { AR_ATTACK_EVALUATION_FIXED = 11 };
enum { AR_EV_EVALUATION, AR_EV_CANDIDATE, AR_EV_STAGE, AR_EV_ROUND, AR_EV_TRIALS, AR_EV_FAILED, AR_EV_MEAN,
       AR_EV_STDERR, AR_EV_MAX, AR_EV_PREDICTION, AR_EV_OBJECTIVE }; /* the columns by name */
#define AR_ATTACK_CONFIRMATION_COLUMNS                                                                \
    "rank", "candidate", "along", "prediction", "count", "failed", "mean", "std", "stderr", "ci_lo", "ci_hi", \
        "min", "max"
enum { AR_ATTACK_CONFIRMATION_FIXED = 13 };
enum { AR_CF_RANK, AR_CF_CANDIDATE, AR_CF_ALONG, AR_CF_PREDICTION, AR_CF_COUNT, AR_CF_FAILED, AR_CF_MEAN, AR_CF_STD,
       AR_CF_STDERR, AR_CF_CI_LO, AR_CF_CI_HI, AR_CF_MIN, AR_CF_MAX };
/* Stages of the search, in the evaluations' "stage" column. */
enum { AR_ATTACK_STAGE_HALVING = 0, AR_ATTACK_STAGE_LOCAL = 1, AR_ATTACK_STAGE_RACE = 2 };

typedef struct ar_attack_record {
    int columns_evaluation, columns_confirmation; /* fixed ones plus the space's dimensions */
    long n_evaluations, cap_evaluations;
    double *evaluations;        /* [n_evaluations][columns_evaluation] */
    long n_confirmations;
    double *confirmations;      /* [n_confirmations][columns_confirmation] */
    long search_trials, confirm_trials;
    long candidates;            /* distinct candidates in the evaluations */
    int stopped_early;          /* max_seconds ended the search */
    double seconds;
} ar_attack_record;

/* How the search ended, as the terminal and the report say it: "stopped early by
 * max_seconds: not reproducible" where r says so; for a random search that says it was
 * not, yet left another candidate's trials of its budget unspent, what its counters show
 * (only max_seconds or a space that gave no new point where the claim speaks stop it
 * there, and a file cannot tell those apart: shown, never refused); else "". */
void ar_attack_search_end(const struct ar_spec *spec, const ar_attack *a, const ar_attack_record *r, char *text,
                          size_t len);

/* The search's objective at a candidate (larger: worse for the claim), from its mean,
 * its largest value and the claim's prediction there (the table above). */
double ar_attack_objective(const ar_claim *claim, double prediction, double mean, double max);
/* The candidates the confirmation re-runs, read off the evaluations (each candidate as
 * its last evaluation left it; a candidate without two finite values has no objective):
 * the best a->confirm by the objective less one standard error (relative, as the
 * objective; none for an every-trial bound), ties to the earlier candidate; best first
 * into chosen[0 .. a->confirm). The search and every reader of an attack file choose
 * with this. Returns how many, or -1 out of memory. */
int ar_attack_choose(const ar_attack *a, const ar_claim *claim, const ar_attack_record *r, long *chosen);

/* "n=37 sigma=2.49": the point of confirmation row row_index of r (the space's
 * parameters, and a limit's size); "-" for no row. */
void ar_attack_describe_row(const struct ar_spec *spec, const ar_attack *a, const ar_attack_record *r, long row_index,
                            char *buf, size_t len);

#endif
