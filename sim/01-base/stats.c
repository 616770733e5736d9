/* stats: trial-order summaries, histograms, interval quantiles. */
#include "attnrank/stats.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

void ar_summarize(const double *values, long n, ar_summary *s)
{
    long count = 0, failed = 0;
    double mean = 0.0, m2 = 0.0, lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < n; ++i) {
        double v = values[i];
        if (!isfinite(v)) {
            failed++;
            continue;
        }
        /* Welford: stable for ranks near n with tiny variance. */
        count++;
        double delta = v - mean;
        mean += delta / (double)count;
        m2 += delta * (v - mean);
        if (v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    s->count = count;
    s->failed = failed;
    if (count == 0) {
        s->mean = s->std = s->sem = s->ci_lo = s->ci_hi = s->min = s->max = NAN;
        return;
    }
    s->mean = mean;
    s->min = lo;
    s->max = hi;
    if (count == 1) {
        s->std = s->sem = s->ci_lo = s->ci_hi = NAN;
        return;
    }
    s->std = sqrt(m2 / (double)(count - 1));
    s->sem = s->std / sqrt((double)count);
    double half = ar_t95(count - 1) * s->sem;
    s->ci_lo = mean - half;
    s->ci_hi = mean + half;
}

void ar_summarize_lattice(const double *values, long n, double spacing, ar_summary *s)
{
    ar_summarize(values, n, s);
    double floor = spacing / (double)s->count;
    if (s->count < 2 || !(s->sem < floor))
        return;
    double half = ar_t95(s->count - 1) * floor;
    s->ci_lo = s->mean - half;
    s->ci_hi = s->mean + half;
}

void ar_histogram(const double *values, long n, int max_value, long *counts)
{
    for (int v = 0; v <= max_value; ++v)
        counts[v] = 0;
    for (long i = 0; i < n; ++i) {
        double v = values[i];
        if (isfinite(v) && v >= 0 && v <= max_value && v == floor(v))
            counts[(int)v]++;
    }
}

double ar_t95(long dof)
{
    /* A grid's points share their trial count: the quantile (a microsecond of GSL's
     * iterations, more than a cheap point's trials) is kept for the last dof asked. */
    static _Thread_local long last_dof = -1;
    static _Thread_local double last_quantile;
    if (dof != last_dof) {
        last_quantile = gsl_cdf_tdist_Pinv(0.975, (double)dof);
        last_dof = dof;
    }
    return last_quantile;
}

double ar_normal_quantile(double p)
{
    return gsl_cdf_ugaussian_Pinv(p);
}
