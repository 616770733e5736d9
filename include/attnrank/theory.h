/* theory: closed-form predictions and the rules that turn them into verdicts.
 *
 * A claim names the simulator and output it speaks about, a prediction as a function
 * of the grid point (NaN where the claim says nothing), and a rule. Every rule that can
 * give a verdict can give VIOLATED to a wrong prediction, and every judgement carries
 * its resolution: the other predictions the same data would also have judged HOLDS.
 *
 *   upper bound  E[X] <= f: HOLDS if the 95% interval's upper end is <= f at every
 *                point; VIOLATED if Holm-Bonferroni over the points rejects E[X] <= f
 *                at some point (one-sided, 2.5% family-wise); else INCONCLUSIVE.
 *                Resolution: the tightness max ci_hi / f (a bound k f holds for any
 *                k >= it); "loose" when a bound 3% tighter would still hold;
 *   lower bound  E[X] >= f: the mirror image; resolution: the largest k with k f
 *                established;
 *   equality     E[X] = f at every point: VIOLATED if |mean - f| > z se at some
 *                point, z the Bonferroni-corrected two-sided 95% normal quantile;
 *                INCONCLUSIVE if z se > rel_tol |f| somewhere; else HOLDS. For integer
 *                outputs se >= 1/trials (T identical draws do not prove a zero
 *                variance). Resolution: the factors k for which k f would hold;
 *   limit        X(n) -> c = f along an axis: per line along it, X(n) = c + a n^-b is
 *                fitted by weighted least squares (b fixed, or profiled over the
 *                claim's range [rate_lo, rate_hi]); c's profile-likelihood interval,
 *                widened by the reduced chi-square when the points scatter more than
 *                their errors. HOLDS if the 95% interval lies within rel_tol |f| of f
 *                on every line, VIOLATED if the Bonferroni-corrected interval (over
 *                the lines) lies wholly outside that band on some line, else
 *                INCONCLUSIVE. Resolution: the constants that would hold;
 *   log slope    E[X] = c + beta ln(t) + a t^-b along an axis t, for an output that is
 *                a logarithm (X ~ t^beta): the same fit and decision as a limit, with
 *                the slope beta judged in place of c (four sizes with b fixed, five
 *                with b profiled). Resolution: the slopes that would hold;
 *   steeper      E[X] changes more along one axis t than along another v: from the
 *                corner (smallest t, smallest v) of each plane of the two axes, the
 *                change to the largest t exceeds the change to the largest v, i.e.
 *                D = X(t_max, v_min) - X(t_min, v_max) > 0: HOLDS if D's 95% interval is
 *                above 0 on every plane, VIOLATED if its Bonferroni interval is below 0
 *                on one. Resolution: the ratio of the two changes;
 *   decreasing / increasing  along an axis: per line, the 95% intervals at the
 *                smallest and largest value separate the right way: HOLDS on every
 *                line; the wrong way (Bonferroni over the lines): VIOLATED; else
 *                INCONCLUSIVE. Resolution: the power law fitted on the deciding line;
 *   every trial  X <= f in every single trial (a deterministic bound): HOLDS if the
 *                largest value seen is <= f at every point, else VIOLATED.
 *                Resolution: the worst trial as a fraction of the bound;
 *   witness      some trial somewhere has X > f (an existence claim): HOLDS if one was
 *                found, else INCONCLUSIVE. It cannot be VIOLATED, and says so;
 *   measure      a quantity the theory gives no number for: no verdict (MEASURED),
 *                the value established by the data (the smallest 95% lower end over
 *                the points, and the largest upper end);
 *   reference    a curve drawn beside the data, no verdict. */
#ifndef ATTNRANK_THEORY_H
#define ATTNRANK_THEORY_H

#include "attnrank/expression.h"
#include "attnrank/sim.h"
#include "attnrank/stats.h"

typedef enum { AR_NOT_RUN, AR_HOLDS, AR_VIOLATED, AR_INCONCLUSIVE, AR_MEASURED } ar_verdict;
typedef enum {
    AR_RULE_UPPER_BOUND,
    AR_RULE_EQUALS,
    AR_RULE_LIMIT,
    AR_RULE_DECREASING,
    AR_RULE_INCREASING,
    AR_RULE_REFERENCE,
    AR_RULE_LOWER_BOUND,
    AR_RULE_EVERY_TRIAL,
    AR_RULE_WITNESS,
    AR_RULE_MEASURE,
    AR_RULE_LOG_SLOPE,
    AR_RULE_STEEPER,
    AR_RULE_COUNT
} ar_rule;

/* How a rule's mutants are made (ar_mutants). */
typedef enum {
    AR_MUTATE_NONE,      /* no prediction to perturb: ar_rule_info.no_mutants says why */
    AR_MUTATE_BOTH_WAYS, /* the prediction off by 2, 5, 10% either way */
    AR_MUTATE_TIGHTER,   /* an upper bound lowered by 2, 3, 5, 10% */
    AR_MUTATE_RAISED,    /* a lower bound raised by as much */
    AR_MUTATE_REVERSED,  /* the trend turned round */
} ar_mutation;

typedef struct ar_claim {
    const char *id;
    const ar_sim *sim;      /* the simulator whose points it speaks about */
    int output;             /* index into sim->outputs (the family header's enum) */
    const char *statement;  /* what the claim says, in one line */
    const char *formula;    /* the prediction, as stored beside theory/<id> */
    ar_rule rule;
    double (*predict)(const ar_point *point);
    double rel_tol;         /* equality, limit and log-slope rules */
    int on_request;         /* checked only when a spec lists it (assumption stress) */
    const char *trend_axis; /* limit, decreasing, increasing: the parameter swept */
    int element;            /* vector outputs: which value; negative counts from the end */
    double rate_lo, rate_hi; /* limit: exponent b of the finite-size correction a n^-b,
                                fixed if equal (the claim states its rate: a free rate
                                that fits and excludes it refutes the claim); both 0
                                means [0.25, 2] */
    int second_order;       /* limit: the model has the next term too, a n^-b + a2 n^-2b */
    const char *versus_axis; /* steeper: the other axis, whose change trend_axis's exceeds */
    int identity;           /* true by construction: a unit check of the code, shown as such */
    /* A user's conjecture (conjecture.h): the prediction is an expression over the
     * point's parameters, silent (NaN) where `where_expr` is 0; predict is NULL. */
    int conjecture;
    const ar_expr *prediction_expr, *where_expr;
} ar_claim;

/* A claim family (one paper): its simulators and its claim table. Each family's folder
 * exports one (sim/05-families/<family>/family.c: ar_family_<family>); the registry
 * (registry.h) holds the registered ones. */
typedef struct ar_family {
    const char *name;            /* "hardmax" */
    const char *paper;           /* whose claims, in a line */
    const ar_sim *const *sims;   /* NULL-terminated */
    const ar_claim *claims;      /* its claim table (sim/05-families/<family>/claims.c) */
    const int *n_claims;
    const char *plot_script;     /* its figure script, below the source root (in its folder); NULL: none */
} ar_family;

/* The claim's prediction at a point: its function's, or its conjecture's expressions. */
double ar_claim_predict(const ar_claim *claim, const ar_point *point);

/* What else the same data would have judged HOLDS (see the rules above). */
typedef enum {
    AR_RESOLUTION_NONE,        /* no verdict to resolve, or nothing was judged */
    AR_RESOLUTION_FACTORS,     /* equality, limit: predictions k f, k in [lo, hi] (lo > hi: none) */
    AR_RESOLUTION_TIGHTNESS,   /* upper bound, every trial: bounds k f for k >= value */
    AR_RESOLUTION_ESTABLISHED, /* lower bound: thresholds k f for k <= value */
    AR_RESOLUTION_EXPONENT,    /* trends: fitted exponent value, 95% interval [lo, hi] */
    AR_RESOLUTION_CHANGE,      /* trends along a non-numeric axis: from lo to hi, ratio value */
    AR_RESOLUTION_MEASURED,    /* measure: the data establish lo <= E[X] <= hi */
    AR_RESOLUTION_EXISTENCE,   /* witness: cannot be VIOLATED */
    AR_RESOLUTION_RATIO        /* steeper: change along the axis lo, along the other hi, value = lo / hi */
} ar_resolution_kind;

typedef struct ar_resolution {
    ar_resolution_kind kind;
    double value, lo, hi;
    int loose;              /* a bound 3% tighter would still hold: the data never approach it */
    int excludes;           /* limit: HOLDS within the tolerance, yet the 95% interval excludes f */
} ar_resolution;

/* Why a limit could not extrapolate (INCONCLUSIVE whatever the data). */
typedef enum {
    AR_UNDECIDED_NONE,
    AR_UNDECIDED_TOO_FEW_SIZES,        /* fewer than 4 sizes with b profiled, 3 with b fixed */
    AR_UNDECIDED_MISFIT,               /* the best fit's chi-square is improbable */
    AR_UNDECIDED_RATE_AT_RANGE_END,    /* b's 95% region reaches an end of its range */
    AR_UNDECIDED_VARYING_PREDICTION,   /* the prediction is not one constant along the line */
    AR_UNDECIDED_AXIS_NOT_POSITIVE     /* the axis has a value <= 0, where t^-b and ln t are undefined */
} ar_undecided;

/* The extrapolation behind a limit verdict, on the deciding line. */
typedef struct ar_fit {
    int lines, sizes, dof;             /* lines judged; sizes and degrees of freedom of the shown fit */
    double b, chi2;                    /* the correction's exponent and the fit's chi-square */
    int rate_profiled;                 /* b profiled over the claim's range (else fixed) */
    ar_undecided undecided;            /* why a line could not be extrapolated, if one could not */
    int rate_refused;                  /* the claim's stated b is excluded by a free-rate fit */
} ar_fit;

typedef struct ar_judgement {
    ar_verdict verdict;
    long point;             /* index of the deciding point, -1 if none */
    int points;             /* points the claim was checked at */
    double prediction, estimate, ci_lo, ci_hi;
    long trials;
    long failed;            /* non-finite trial values where the claim speaks: left out of
                               every estimate; an every-trial claim with any cannot HOLD */
    long empty_points;      /* points where the claim speaks but fewer than two values exist */
    ar_resolution resolution;
    ar_fit fit;             /* limits: the numbers behind the verdict */
    char rule[240];         /* the same, in a sentence */
} ar_judgement;

/* The claims this build knows: ar_claim_find, ar_claims_all (registry.h). */
/* Checks a claim table against its simulators: output index in range, trend axis a
 * parameter, id unique. Returns 0, or -1 with the first problem in why. */
int ar_claims_check(const ar_claim *claims, int count, char *why, size_t why_len);
/* What a spec expects of a claim it does not mention: HOLDS, or MEASURED for a measure. */
ar_verdict ar_claim_default_expectation(const ar_claim *claim);

/* The scratch the rules need, allocated once by the judge for an experiment: points, its
 * grid points; line, the most points a line along one axis can hold (its longest axis):
 * a fit is sized by a line, the rest by the grid. The rules allocate nothing. NULL: out
 * of memory. */
typedef struct ar_rule_workspace ar_rule_workspace;
ar_rule_workspace *ar_rule_workspace_new(long points, long line);
void ar_rule_workspace_free(ar_rule_workspace *ws);

/* What a rule judges (ar_rule_judge): n points, their predictions and summaries, and
 * for rules along an axis each point's line and value along it (never NULL for a rule
 * on_lines: ar_rule_judge refuses a claim without them). */
typedef struct ar_rule_data {
    long n;
    const double *prediction;
    const ar_summary *est;
    int integer_output;
    const long *line;
    const double *along;
} ar_rule_data;

/* A rule, as everything outside sim/04-rules knows it: its names, what a claim or a
 * conjecture of it must give, and its behaviour (the judge, the statement, the attack
 * objective, the mutants). One row a rule, designated by ar_rule; a rule's file
 * (rule_*.c) holds the functions, rule_table.c the row. */
typedef struct ar_rule_info {
    const char *name;            /* in tables, files and `list`: "bound", "lower bound" */
    const char *spec_name;       /* in specs and conjectures: "upper_bound"; NULL: not a user's */
    const char *shown;           /* the table's prediction column: NULL the number, else this word */
    unsigned needs_tolerance : 1; /* rel_tol: equality, limits */
    unsigned needs_axis : 1;      /* trend_axis: limits, trends, steeper */
    unsigned needs_versus : 1;    /* versus_axis: steeper, judged on planes (ar_rule_judge_steeper) */
    unsigned needs_prediction : 1; /* a value is predicted (not only where the claim speaks) */
    unsigned extrapolates : 1;    /* along a numeric axis: limits and log slopes */
    unsigned takes_rate : 1;      /* a conjecture may state the correction's rate: limits */
    unsigned no_band_at_zero : 1; /* a tolerance relative to |f|: a prediction of 0 is refused */
    unsigned measures : 1;        /* no verdict: its expectation is MEASURED */
    unsigned curve_only : 1;      /* a reference curve: drawn, never checked nor listed */
    unsigned implies_looser : 1;  /* an upper bound: a sharper one that holds implies it (judge.c) */
    unsigned per_trial : 1;       /* about every single trial: one failed (unseen) keeps it from HOLDS */
    unsigned on_lines : 1;        /* judged on lines along its axis: not judged without them */
    /* Judges a claim into out (set to NOT RUN, no point, by ar_rule_judge); NULL: no verdict. */
    void (*judge)(const ar_claim *claim, const ar_rule_data *d, ar_rule_workspace *ws, ar_judgement *out);
    /* A conjecture's default statement from its output's name and its prediction's text. */
    void (*state)(const ar_claim *claim, const char *output, const char *f, char *buf, size_t len);
    /* An attack's objective at a candidate, larger the nearer to VIOLATED (attack.h);
     * NULL: the rule cannot be attacked. */
    double (*objective)(double prediction, double mean, double max);
    unsigned objective_of_max : 1; /* the objective reads the largest trial (no standard error) */
    /* NULL: an attack confirms a candidate at its point; else along the claim's whole
     * axis, of which the experiment must sweep this many sizes at least (the rule's fit). */
    int (*attack_line)(const ar_claim *claim);
    ar_mutation mutation;
    ar_rule opposite;            /* with AR_MUTATE_REVERSED: the rule of the trend turned round */
    const char *no_mutants;      /* with AR_MUTATE_NONE: why */
} ar_rule_info;
extern const ar_rule_info ar_rules[AR_RULE_COUNT];

/* Judge a claim over n_points points: prediction[p] and est[p] (NaN/empty where the
 * claim is silent or nothing was computed). Trend and limit rules also need, per
 * point, the line it lies on (points equal but for the trend axis share one) and its
 * value along the axis; NULL if the grid does not sweep that axis. Returns 0, or -1
 * when ws was made for fewer points (out is then NOT RUN and says so). */
int ar_rule_judge(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
                  int integer_output, const long *line, const double *along, ar_rule_workspace *ws,
                  ar_judgement *out);

/* A steeper claim over n_points points: per point its plane (points equal but for the
 * two axes) and its values along the claim's axis and the versus axis; `reversed`
 * judges the mirror claim (the versus axis steeper), its mutant. Returns as ar_rule_judge. */
int ar_rule_judge_steeper(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
                          int integer_output, const long *plane, const double *along, const double *versus,
                          int reversed, ar_rule_workspace *ws, ar_judgement *out);

/* Mutants: the claim re-judged on the same data against perturbed predictions. */
enum { AR_MAX_MUTANTS = 8 };
typedef struct ar_mutant {
    double factor;          /* prediction scaled by this (1 with reversed) */
    int reversed;           /* a trend turned round */
    ar_verdict verdict;     /* VIOLATED: the mutant is killed */
} ar_mutant;
/* Fills mutants[] for claims with a numeric prediction or a direction; returns how
 * many (0: none can be made, *why says why), or -1 when ws was made for fewer points. */
int ar_mutants(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
               int integer_output, const long *line, const double *along, ar_rule_workspace *ws, ar_mutant *mutants,
               const char **why);

/* The resolution in words, for tables: "holds for k in [0.994, 1.006]", ... */
void ar_resolution_describe(const ar_resolution *r, char *buf, size_t len);

const char *ar_verdict_name(ar_verdict v);
const char *ar_rule_name(ar_rule rule);
int ar_verdict_parse(const char *name, ar_verdict *v);
int ar_rule_parse(const char *name, ar_rule *rule);

#endif
