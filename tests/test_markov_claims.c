/* Statistical checks of S1, S2ks and S4 with fixed seeds; tolerances are multiples of
 * standard errors computed from the same draws. */
#include "attnrank/engine.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/stats.h"
#include "check.h"
#include "support.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

enum { OUT_SIGMA1, OUT_SQRT_N_SIGMA2, OUT_STABLE_RANK, OUT_GRAM, OUT_EFFECTIVE, OUT_KS };

static void summarize(int n, long trials, int output, ar_summary *s)
{
    char text[256];
    snprintf(text, sizeof text,
             "seed = 31; experiments = ( { name = \"m\"; simulator = \"markov_spectrum\"; trials = %ld; n = %d; } );",
             trials, n);
    ar_spec spec;
    load_spec(text, &spec);
    summarize_value(&spec, 0, output, 2, s);
    ar_spec_free(&spec);
}

/* The mean stable rank at finite n, computed independently: GSL's lognormal sampler
 * and its own generator, row normalisation, LAPACK's singular values. */
static void independent_stable_rank(int n, int trials, ar_summary *s)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 12345);
    double *a = malloc((size_t)n * n * sizeof *a), *sv = malloc((size_t)n * sizeof *sv);
    double *work = malloc(ar_singular_values_workspace(n, n) * sizeof *work), *values = malloc(trials * sizeof *values);
    int *iwork = malloc(8 * (size_t)n * sizeof *iwork);
    for (int t = 0; t < trials; ++t) {
        for (int i = 0; i < n; ++i) {
            double sum = 0;
            for (int j = 0; j < n; ++j)
                sum += a[i * n + j] = gsl_ran_lognormal(g, -0.5 * log(2.0), sqrt(log(2.0)));
            for (int j = 0; j < n; ++j)
                a[i * n + j] /= sum;
        }
        ar_singular_values(n, n, a, sv, work, iwork);
        values[t] = ar_stable_rank(sv, n);
    }
    ar_summarize(values, trials, s);
    gsl_rng_free(g);
    free(a), free(sv), free(work), free(values), free(iwork);
}

int main(void)
{
    ar_summary s1;
    summarize(512, 60, OUT_SIGMA1, &s1);
    printf("S1 n = 512: sigma_1 = %.5f [%.5f, %.5f]\n", s1.mean, s1.ci_lo, s1.ci_hi);
    CHECK(s1.min >= 0.99 && s1.max <= 1.02);

    ar_summary ours, theirs;
    summarize(96, 600, OUT_STABLE_RANK, &ours);
    independent_stable_rank(96, 600, &theirs);
    double se = sqrt(ours.sem * ours.sem + theirs.sem * theirs.sem);
    printf("S4 n = 96: stable rank %.5f +- %.5f, independent %.5f +- %.5f\n", ours.mean, ours.sem, theirs.mean,
           theirs.sem);
    CHECK(fabs(ours.mean - theirs.mean) <= 5 * se);

    ar_summary ks64, ks512;
    summarize(64, 200, OUT_KS, &ks64);
    summarize(512, 40, OUT_KS, &ks512);
    printf("S2ks: KS at n = 64: %.4f +- %.4f, at n = 512: %.4f +- %.4f\n", ks64.mean, ks64.sem, ks512.mean,
           ks512.sem);
    CHECK(ks512.mean + 4 * ks512.sem < ks64.mean - 4 * ks64.sem);
    /* S5: with the gap one layer collapses the stable rank to about 1 + s^2/m^2 = 2;
     * without it the stable rank grows with n. */
    double keep512[2] = {NAN, NAN}, remove[2][2] = {{NAN, NAN}, {NAN, NAN}};
    const char *width = "seed = 32; experiments = ( { name = \"w\"; simulator = \"width_collapse\"; trials = 40;"
                        " n = [128, 512]; gamma = 0.5; gap = [\"keep\", \"remove\"]; } );";
    ar_spec spec;
    load_spec(width, &spec);
    for (long p = 0; p < 4; ++p) {
        ar_summary s;
        summarize_value(&spec, p, 0, 2, &s);
        if (p == 2)
            keep512[0] = s.mean, keep512[1] = s.sem;
        if (p % 2 == 1)
            remove[p / 2][0] = s.mean, remove[p / 2][1] = s.sem;
    }
    ar_spec_free(&spec);
    printf("S5: stable rank with the gap at n = 512: %.4f +- %.4f; without: n = 128 %.2f, n = 512 %.2f\n", keep512[0],
           keep512[1], remove[0][0], remove[1][0]);
    CHECK(fabs(keep512[0] - 2) <= 0.05 * 2 + 4 * keep512[1]);
    CHECK(remove[1][0] - 4 * remove[1][1] > remove[0][0] + 4 * remove[0][1]);
    return check_report("markov_claims");
}
