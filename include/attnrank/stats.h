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
    double ci_lo, ci_hi;     /* 95% interval: mean -/+ t(0.975, count - 1) * sem */
    double min, max;
} ar_summary;

/* Summary of values[0..n); every field NaN when no value is finite. */
void ar_summarize(const double *values, long n, ar_summary *s);

/* counts[v] = number of values equal to v, for integers v in 0..max_value; values
 * outside that range or non-finite are not counted. */
void ar_histogram(const double *values, long n, int max_value, long *counts);

/* Two-sided Student t quantile for a 95% interval with dof degrees of freedom. */
double ar_t95(long dof);
/* Standard normal quantile. */
double ar_normal_quantile(double p);

#endif
