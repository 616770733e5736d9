/* stats: summaries of per-trial values.
 *
 * Values are reduced in trial order, so a summary is a pure function of the trial
 * values whatever thread computed them. Non-finite values are failed trials: counted,
 * never averaged. */
#ifndef ATTNRANK_STATS_H
#define ATTNRANK_STATS_H

typedef struct ar_summary {
    long count;   /* finite values used */
    long failed;  /* non-finite values (failed trials) */
    double mean, std, sem;   /* sem = std / sqrt(count): the standard error */
    double ci_lo, ci_hi;     /* 95% interval: mean -/+ t(0.975, count - 1) * sem (lattice
                                outputs: sem taken as at least spacing/count) */
    double min, max;
} ar_summary;

/* Summary of values[0..n); every field NaN when no value is finite. */
void ar_summarize(const double *values, long n, ar_summary *s);

/* The same for a quantity on a lattice of this spacing (1 for an integer output; a rank
 * deficit's 1/bound): the interval's half-width is at least t(0.975, count - 1) *
 * spacing / count, as if the standard error were spacing / count, since T equal draws do
 * not prove a zero variance (two equal ranks are common). The standard error itself is
 * left as measured. */
void ar_summarize_lattice(const double *values, long n, double spacing, ar_summary *s);

/* counts[v] = number of values equal to v, for integers v in 0..max_value; values
 * outside that range or non-finite are not counted. */
void ar_histogram(const double *values, long n, int max_value, long *counts);

/* Two-sided Student t quantile for a 95% interval with dof degrees of freedom. */
double ar_t95(long dof);
/* Standard normal quantile. */
double ar_normal_quantile(double p);

#endif
