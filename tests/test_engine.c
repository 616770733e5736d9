/* engine: results independent of thread count and of the grid around a point;
 * the direct sampler agrees in distribution with the faithful one. */
#include "attnrank/engine.h"
#include "attnrank/stats.h"
#include "check.h"
#include "support.h"

#include <stdlib.h>

static double *values_of(const ar_spec *spec, int e, long point, int threads)
{
    const ar_experiment *x = &spec->experiments[e];
    double *v = malloc((size_t)x->trials * ar_engine_values_per_trial(x, point) * sizeof *v);
    CHECK(ar_engine_point_values(spec, x, point, threads, v) == 0);
    return v;
}

static void threads_do_not_matter(void)
{
    ar_spec spec;
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"softmax_rank\"; trials = 301;"
         " n = 24; d_h = 6; tau = 0.3; } );", &spec);
    size_t bytes = 301 * 6 * sizeof(double);
    double *one = values_of(&spec, 0, 0, 1), *two = values_of(&spec, 0, 0, 2), *three = values_of(&spec, 0, 0, 3);
    CHECK(memcmp(one, two, bytes) == 0);
    CHECK(memcmp(one, three, bytes) == 0);
    free(one), free(two), free(three);
    ar_spec_free(&spec);
}

/* Vector outputs (one value per layer) are laid out output by output and are, too,
 * independent of the thread count. */
static void vector_outputs(void)
{
    ar_spec spec;
    load_spec("seed = 5; experiments = ( { name = \"d\"; simulator = \"depth_collapse\"; trials = 21;"
         " n = 12; layers = 4; } );", &spec);
    size_t per_trial = (size_t)ar_engine_values_per_trial(&spec.experiments[0], 0);
    /* four outputs at layers 0..4 (stable rank, |cosine|, norm, off-consensus), gradients
     * for W_0..W_3 and their probe errors, the collapse factor and the gap ratio */
    CHECK(per_trial == 4 * 5 + 2 * 4 + 2);
    double *one = malloc(21 * per_trial * sizeof *one), *two = malloc(21 * per_trial * sizeof *two);
    CHECK(ar_engine_point_values(&spec, &spec.experiments[0], 0, 1, one) == 0);
    CHECK(ar_engine_point_values(&spec, &spec.experiments[0], 0, 2, two) == 0);
    CHECK(memcmp(one, two, 21 * per_trial * sizeof *one) == 0);
    /* Layer 0's mean |cosine| (value 5) is that of Gaussian tokens: < 1; by layer 4 they align. */
    CHECK(one[5 * 21] < 0.9 && one[9 * 21] > 0.99);
    free(one), free(two);
    ar_spec_free(&spec);

    /* Key-query attention A_l(X_l) aligns the tokens too; its gradient comes from probes. */
    load_spec("seed = 5; experiments = ( { name = \"k\"; simulator = \"depth_collapse\"; trials = 9;"
         " n = 12; layers = 4; attention = \"keyquery\"; scale = 0.5; } );", &spec);
    double *v = malloc(9 * (size_t)ar_engine_values_per_trial(&spec.experiments[0], 0) * sizeof *v);
    CHECK(ar_engine_point_values(&spec, &spec.experiments[0], 0, 2, v) == 0);
    CHECK(v[9 * 9] > 0.99); /* mean |cosine| at layer 4, first trial */
    CHECK(v[15 * 9] > 0 && v[19 * 9] > 0); /* grad_norm and its probe error, W_0, first trial */
    free(v);
    ar_spec_free(&spec);
}

static void points_are_keyed_by_values(void)
{
    ar_spec small, large;
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = [16]; d_h = 3; } );", &small);
    load_spec("seed = 5; experiments = ( { name = \"b\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = [8, 16, 32]; d_h = [3]; } );", &large);
    double *a = values_of(&small, 0, 0, 2), *b = values_of(&large, 0, 1, 2);
    CHECK(memcmp(a, b, 200 * 2 * sizeof(double)) == 0);
    free(a), free(b);
    ar_spec_free(&small);
    ar_spec_free(&large);
    /* Another seed gives other draws. */
    ar_spec other;
    load_spec("seed = 6; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = 16; d_h = 3; } );", &other);
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = 16; d_h = 3; } );", &small);
    a = values_of(&other, 0, 0, 1);
    b = values_of(&small, 0, 0, 1);
    CHECK(memcmp(a, b, 200 * sizeof(double)) != 0);
    free(a), free(b);
    ar_spec_free(&small);
    ar_spec_free(&other);
}

/* Two-sample test of the direct (X W drawn as iid Gaussians) and faithful (QR, then
 * products) samplers: the mean ranks agree within 4 standard errors of their
 * difference, for each weight coupling, and the rank histograms pass a chi-square test. */
static void samplers_agree(void)
{
    const char *couplings[] = {"independent", "tied", "correlated"};
    for (int c = 0; c < 3; ++c) {
        char text[512];
        snprintf(text, sizeof text,
                 "seed = 8; experiments = ( { name = \"s\"; simulator = \"hardmax_rank\"; trials = 6000;"
                 " n = 12; d = 20; d_h = 3; weights = \"%s\"; rho = 0.7; sampler = (\"auto\", \"faithful\"); } );",
                 couplings[c]);
        ar_spec spec;
        load_spec(text, &spec);
        double *direct = values_of(&spec, 0, 0, 2), *faithful = values_of(&spec, 0, 1, 2);
        ar_summary a, b;
        ar_summarize(direct, 6000, &a);
        ar_summarize(faithful, 6000, &b);
        double se = sqrt(a.sem * a.sem + b.sem * b.sem);
        printf("%-11s direct %.4f faithful %.4f (se of difference %.4f)\n", couplings[c], a.mean, b.mean, se);
        CHECK(fabs(a.mean - b.mean) <= 4 * se);
        long ha[13], hb[13];
        ar_histogram(direct, 6000, 12, ha);
        ar_histogram(faithful, 6000, 12, hb);
        double chi2 = 0;
        int cells = 0;
        for (int v = 0; v <= 12; ++v) {
            if (ha[v] + hb[v] < 10)
                continue;
            double d = (double)ha[v] - hb[v];
            chi2 += d * d / (double)(ha[v] + hb[v]);
            cells++;
        }
        /* 99.9% quantile of chi-square with cells - 1 <= 12 degrees of freedom is <= 32.9. */
        printf("            chi-square %.2f over %d cells\n", chi2, cells);
        CHECK(chi2 < 32.9);
        free(direct), free(faithful);
        ar_spec_free(&spec);
    }
}

int main(void)
{
    threads_do_not_matter();
    vector_outputs();
    points_are_keyed_by_values();
    samplers_agree();
    return check_report("engine");
}
