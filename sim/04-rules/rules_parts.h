/* rules_parts: what the verdict rules share and nothing outside sim/04-rules needs. */
#ifndef ATTNRANK_RULES_PARTS_H
#define ATTNRANK_RULES_PARTS_H

#include "attnrank/theory.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stddef.h>

/* Family-wise level of a VIOLATED decision: two-sided 5%, i.e. 2.5% on the side a
 * bound can be broken, matching the 95% intervals behind HOLDS. */
#define AR_RULE_ALPHA 0.05
/* A bound whose data stay below 97% of it would hold 3% tighter: it is loose. */
#define AR_RULE_LOOSE_BELOW 0.97
/* A limit's finite-size fit weights each point by its own standard error from this many
 * trials a point; with fewer, by the line's pooled variance. */
enum { AR_RULE_FIT_TRIALS = 30 };
/* A fit whose chi-square is less probable than this is refused (a misfit). */
#define AR_RULE_GOODNESS 1e-3
/* A stated rate is checked to this relative tolerance, as a constant to rel_tol: at the
 * sizes a grid reaches, next-order terms move the effective exponent a little (S1 on
 * lognormal entries fits b = 0.94 [0.90, 0.99] at n <= 1024, against its asymptotic 1),
 * while a theory wrong in structure states another rate (1/2 or 2/3 for 1). */
#define AR_RULE_RATE_TOL 0.25

/* A claim that states its finite-size rate (b fixed). */
static inline int ar_rule_states_rate(const ar_claim *claim)
{
    return claim->rate_lo > 0 && claim->rate_lo == claim->rate_hi;
}

/* A limit's model has at most this many coefficients: c, beta ln t, a t^-b, a2 t^-2b. */
enum { AR_RULE_MAX_COLUMNS = 4 };

/* The lines of a claim's grid as the rules sort them (rule_lines.c). */
typedef struct {
    long line, point;
    double along;
} ar_line_entry;
typedef struct {
    long first, from, size;
} ar_line_range;

/* The rules' scratch (theory.h), for `capacity` points: every rule's buffers, and the
 * least-squares pieces of a limit's fits on lines of up to that many sizes. */
struct ar_rule_workspace {
    long capacity;              /* points */
    long line_capacity;         /* sizes on one line: the fits' rows */
    double *pvalues;            /* a bound's p-values */
    double *moved;              /* a mutant's predictions */
    double *fit_x, *fit_y, *fit_w; /* a trend's power-law fit */
    ar_line_entry *entries;
    ar_line_range *ranges;
    long *members, *start;      /* the lines found (ar_line_groups points into them) */
    gsl_matrix *design, *cov;   /* capacity x AR_RULE_MAX_COLUMNS, its square */
    gsl_vector *weights, *values, *coef;
    /* GSL's least squares, one workspace per column count (fit[c], c = 2..MAX): a
     * workspace wider than the fit would change its rounding (its rows are views of
     * stride pmax), and verdicts must not move with how scratch was allocated */
    gsl_multifit_linear_workspace *fit[AR_RULE_MAX_COLUMNS + 1];
};

/* rule_statistics.c: the statistics every rule decides with. */
int ar_rule_usable(const double *f, const ar_summary *est, long p);
double ar_rule_decision_se(const ar_summary *s, int integer_output);
double ar_rule_dof(long count);
double ar_rule_excess_pvalue(double excess, double se, long count);
double ar_rule_t_quantile(long m, long count);
void ar_rule_take_point(ar_judgement *j, long p, double prediction, const ar_summary *s);
long ar_rule_holm_rejections(double *pvalues, long m, double alpha);
const char *ar_rule_in_se(double v, char *buf, size_t len);
void ar_rule_account_failures(int per_trial, long n_points, const double *prediction, const ar_summary *est,
                              ar_judgement *out);

/* The lines of a trend or limit claim: the points it can use grouped by line, each
 * group sorted along the axis (ties by index), groups in the order of their first point;
 * only groups of at least min_size points (a line needs two). Built by two sorts, so a grid of 10^6 points finds
 * its lines in O(n log n). */
typedef struct {
    long *members; /* the groups one after the other */
    long *start;   /* group g is members[start[g] .. start[g + 1]) */
    int count;
} ar_line_groups;
/* The lines of n points in ws's buffers (n <= ws->capacity). */
void ar_lines_group(long n, const double *f, const ar_summary *est, const long *line, const double *along,
                    long min_size, ar_rule_workspace *ws, ar_line_groups *g);

/* An attack objective's scale: |f|, or 1 where f is 0. */
static inline double ar_rule_objective_scale(double prediction)
{
    return prediction != 0 ? fabs(prediction) : 1;
}

/* The rows' behaviour (rule_table.c), one rule family a file: its judge, its statement,
 * its attack objective (theory.h's ar_rule_info says what each does). */
#define AR_RULE_JUDGE(name) void name(const ar_claim *claim, const ar_rule_data *d, ar_rule_workspace *ws, ar_judgement *out)
#define AR_RULE_STATE(name) void name(const ar_claim *claim, const char *output, const char *f, char *buf, size_t len)
#define AR_RULE_OBJECTIVE(name) double name(double prediction, double mean, double max)
/* rule_bounds.c */
AR_RULE_JUDGE(ar_rule_upper_judge);
AR_RULE_STATE(ar_rule_upper_state);
AR_RULE_OBJECTIVE(ar_rule_upper_objective);
AR_RULE_JUDGE(ar_rule_lower_judge);
AR_RULE_STATE(ar_rule_lower_state);
AR_RULE_OBJECTIVE(ar_rule_lower_objective);
AR_RULE_JUDGE(ar_rule_every_trial_judge);
AR_RULE_STATE(ar_rule_every_trial_state);
AR_RULE_OBJECTIVE(ar_rule_every_trial_objective);
AR_RULE_JUDGE(ar_rule_witness_judge);
AR_RULE_STATE(ar_rule_witness_state);
/* rule_equality.c */
AR_RULE_JUDGE(ar_rule_equals_judge);
AR_RULE_STATE(ar_rule_equals_state);
AR_RULE_OBJECTIVE(ar_rule_distance_objective); /* equality; a limit at its largest size */
AR_RULE_JUDGE(ar_rule_measure_judge);
AR_RULE_STATE(ar_rule_measure_state);
/* rule_limits.c */
AR_RULE_JUDGE(ar_rule_limit_judge);
AR_RULE_STATE(ar_rule_limit_state);
int ar_rule_limit_sizes(const ar_claim *claim);
AR_RULE_JUDGE(ar_rule_log_slope_judge);
AR_RULE_STATE(ar_rule_log_slope_state);
/* rule_trends.c */
AR_RULE_JUDGE(ar_rule_decreasing_judge);
AR_RULE_STATE(ar_rule_decreasing_state);
AR_RULE_JUDGE(ar_rule_increasing_judge);
AR_RULE_STATE(ar_rule_increasing_state);
AR_RULE_JUDGE(ar_rule_steeper_judge);
AR_RULE_STATE(ar_rule_steeper_state);

#endif
