/* rules_parts: what the verdict rules share and nothing outside sim/04-rules needs. */
#ifndef ATTNRANK_RULES_PARTS_H
#define ATTNRANK_RULES_PARTS_H

#include "attnrank/theory.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_vector.h>

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
void ar_rule_account_failures(const ar_claim *claim, long n_points, const double *prediction, const ar_summary *est,
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

/* One rule family a file: bounds (rule_bounds.c), equality and measurement
 * (rule_equality.c), limits and log slopes (rule_limits.c), trends (rule_trends.c). */
void ar_rule_judge_bound(int sign, long n, const double *f, const ar_summary *est, int integer_output,
                         ar_rule_workspace *ws, ar_judgement *j);
void ar_rule_judge_witness(long n, const double *f, const ar_summary *est, ar_judgement *j);
void ar_rule_judge_every_trial(long n, const double *f, const ar_summary *est, ar_judgement *j);
void ar_rule_judge_equals(long n, const double *f, const ar_summary *est, double rel_tol, int integer_output,
                          ar_judgement *j);
void ar_rule_judge_measure(long n, const double *f, const ar_summary *est, ar_judgement *j);
void ar_rule_judge_limit(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                         const long *line, const double *along, ar_rule_workspace *ws, ar_judgement *j);
void ar_rule_judge_trend(const ar_claim *claim, long n, const double *f, const ar_summary *est, int integer_output,
                         const long *line, const double *along, ar_rule_workspace *ws, ar_judgement *j);

#endif
