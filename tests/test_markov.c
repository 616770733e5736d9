/* markov: the sampled matrices are (centred) Markov matrices, the quarter-circle CDF is
 * right, and the Lanczos path gives the full SVD's sigma_1, sigma_2 on these matrices. */
#include "attnrank/linalg.h"
#include "markov/markov.h"
#include "attnrank/registry.h"
#include "attnrank/spec.h"
#include "attnrank/theory.h"
#include "check.h"
#include "support.h"

#include <stdlib.h>

static void point_of(const char *params, ar_point *p)
{
    char text[512];
    snprintf(text, sizeof text, "seed = 1; experiments = ( { name = \"m\"; simulator = \"markov_spectrum\"; %s } );",
             params);
    ar_spec spec;
    load_spec(text, &spec);
    ar_experiment_point(&spec.experiments[0], 0, p);
    ar_spec_free(&spec);
}

static void row_sums(void)
{
    const char *laws[] = {"lognormal", "exponential", "uniform", "keyquery"};
    const int n = 200;
    double *a = malloc((size_t)n * n * sizeof *a), *q = malloc((size_t)n * 64 * sizeof *q);
    double *k = malloc((size_t)n * 64 * sizeof *k);
    for (int l = 0; l < 4; ++l) {
        for (int gap = 0; gap < 2; ++gap) {
            char params[256];
            snprintf(params, sizeof params, "n = %d; entries = \"%s\"; gap = \"%s\";", n, laws[l],
                     gap ? "remove" : "keep");
            ar_point p;
            point_of(params, &p);
            ar_rng r;
            ar_rng_init(&r, 1, 2, 3, 0);
            ar_markov_draw draw = ar_markov_spectrum_draw(&p);
            ar_markov_sample(&draw, &r, a, q, k);
            double worst = 0;
            int positive = 1;
            for (int i = 0; i < n; ++i) {
                double sum = 0;
                for (int j = 0; j < n; ++j) {
                    sum += a[i * n + j];
                    positive &= gap || a[i * n + j] > 0;
                }
                worst = fmax(worst, fabs(sum - (gap ? 0.0 : 1.0)));
            }
            printf("%-11s gap %-6s max |row sum - %d| = %.2e\n", laws[l], gap ? "remove" : "keep", gap ? 0 : 1, worst);
            CHECK(worst < 1e-14);
            CHECK(positive);
        }
    }
    free(a), free(q), free(k);
}

static void quarter_circle(void)
{
    const double r = 0.7;
    CHECK(ar_quarter_circle_cdf(0, r) == 0 && ar_quarter_circle_cdf(2 * r, r) == 1);
    CHECK(ar_quarter_circle_cdf(-1, r) == 0 && ar_quarter_circle_cdf(5, r) == 1);
    const double pi = 3.14159265358979323846;
    for (double x = 0.1; x < 2 * r; x += 0.2) {
        double h = 1e-6;
        double derivative = (ar_quarter_circle_cdf(x + h, r) - ar_quarter_circle_cdf(x - h, r)) / (2 * h);
        double density = sqrt(4 * r * r - x * x) / (pi * r * r);
        CHECK_NEAR(derivative, density, 1e-7);
    }
}

static void lanczos_matches_svd(void)
{
    const int sizes[] = {256, 1024};
    for (int s = 0; s < 2; ++s) {
        for (int gap = 0; gap < 2; ++gap) {
            int n = sizes[s];
            char params[128];
            snprintf(params, sizeof params, "n = %d; gap = \"%s\";", n, gap ? "remove" : "keep");
            ar_point p;
            point_of(params, &p);
            double *a = malloc((size_t)n * n * sizeof *a), *copy = malloc((size_t)n * n * sizeof *copy);
            double *sv = malloc((size_t)n * sizeof *sv), *start = malloc((size_t)n * sizeof *start), top[2];
            double *work = malloc(ar_singular_values_workspace(n, n) * sizeof *work);
            double *lanczos = malloc(ar_top_singular_values_workspace(n, n, 160) * sizeof *lanczos);
            int *iwork = malloc(8 * (size_t)n * sizeof *iwork);
            ar_rng r;
            ar_rng_init(&r, 4, 5, 6, 0);
            ar_markov_draw draw = ar_markov_spectrum_draw(&p);
            ar_markov_sample(&draw, &r, a, NULL, NULL);
            ar_rng_normals(&r, start, (size_t)n);
            memcpy(copy, a, (size_t)n * n * sizeof *a);
            CHECK(ar_singular_values(n, n, copy, sv, work, iwork) == 0);
            int steps = ar_top_singular_values(n, n, a, 2, start, 160, 1e-13, top, lanczos);
            double e1 = fabs(top[0] - sv[0]) / sv[0], e2 = fabs(top[1] - sv[1]) / sv[1];
            printf("n = %4d gap %-6s: Lanczos %d steps, relative errors %.1e %.1e\n", n, gap ? "remove" : "keep",
                   steps, e1, e2);
            CHECK(e1 < 1e-10 && e2 < 1e-10);
            free(a), free(copy), free(sv), free(start), free(work), free(lanczos), free(iwork);
        }
    }
}

static void eigenvalues_by_hand(void)
{
    double sym[4] = {2, 1, 1, 2}, rot[4] = {0, -1, 1, 0}, wr[2], wi[2], work[68];
    CHECK(ar_eigenvalues_workspace(2) <= 68);
    CHECK(ar_eigenvalues(2, sym, wr, wi, work) == 0);
    CHECK_NEAR(fmax(wr[0], wr[1]), 3, 1e-14);
    CHECK_NEAR(fmin(wr[0], wr[1]), 1, 1e-14);
    CHECK(wi[0] == 0 && wi[1] == 0);
    CHECK(ar_eigenvalues(2, rot, wr, wi, work) == 0);
    CHECK_NEAR(fabs(wi[0]), 1, 1e-14);
    CHECK_NEAR(wr[0], 0, 1e-14);
    /* A Markov matrix has the eigenvalue 1 (A 1 = 1), and none of larger modulus. */
    ar_point p;
    point_of("n = 50;", &p);
    double *a = malloc(50 * 50 * sizeof *a), big_wr[50], big_wi[50], *big_work = malloc(34 * 50 * sizeof *big_work);
    ar_rng r;
    ar_rng_init(&r, 7, 7, 7, 0);
    ar_markov_draw draw = ar_markov_spectrum_draw(&p);
    ar_markov_sample(&draw, &r, a, NULL, NULL);
    CHECK(ar_eigenvalues(50, a, big_wr, big_wi, big_work) == 0);
    double largest = 0, closest = 1;
    for (int i = 0; i < 50; ++i) {
        largest = fmax(largest, hypot(big_wr[i], big_wi[i]));
        closest = fmin(closest, hypot(big_wr[i] - 1, big_wi[i]));
    }
    CHECK_NEAR(largest, 1, 1e-12);
    CHECK(closest < 1e-12);
    free(a), free(big_work);
}

/* scale is the logits' standard deviation: softmax's log-weights are the logits less a
 * row constant, so their spread along a row recovers it (d_h = n = 200: the rows' own
 * variances v_i = scale^2 chi^2_n / n are within a few per cent of scale^2). */
static void keyquery_logits_have_sd_scale(void)
{
    const int n = 200;
    double *a = malloc((size_t)n * n * sizeof *a), *q = malloc((size_t)n * n * sizeof *q);
    double *k = malloc((size_t)n * n * sizeof *k);
    const double scales[] = {0.3, 1.0};
    for (int c = 0; c < 2; ++c) {
        char params[128];
        snprintf(params, sizeof params, "n = %d; entries = \"keyquery\"; d_h = 0; scale = %g;", n, scales[c]);
        ar_point p;
        point_of(params, &p);
        ar_rng r;
        ar_rng_init(&r, 4, 5, 6, 0);
        ar_markov_draw draw = ar_markov_spectrum_draw(&p);
        ar_markov_sample(&draw, &r, a, q, k);
        double variance = 0;
        for (int i = 0; i < n; ++i) {
            double mean = 0, square = 0;
            for (int j = 0; j < n; ++j)
                mean += log(a[i * n + j]) / n;
            for (int j = 0; j < n; ++j)
                square += (log(a[i * n + j]) - mean) * (log(a[i * n + j]) - mean) / (n - 1);
            variance += square / n;
        }
        printf("key-query, scale %.1f: the logits' standard deviation %.4f\n", scales[c], sqrt(variance));
        CHECK(fabs(sqrt(variance) / scales[c] - 1) < 0.03);
        CHECK_NEAR(ar_markov_ratio(&p), sqrt(expm1(scales[c] * scales[c])), 1e-15);
    }
    free(a), free(q), free(k);
}

/* Where S6, S7 and S8's new claims speak, and what they predict there. */
static void predictions(void)
{
    const ar_claim *s6 = ar_claim_find("S6"), *s7 = ar_claim_find("S7"), *rank = ar_claim_find("S8rank"),
                   *edge = ar_claim_find("S8edge"), *s8 = ar_claim_find("S8");
    ar_point p;
    ar_point_defaults(&ar_sim_depth_collapse, &p);
    p.value[AR_DEPTH_ENTRIES] = AR_MARKOV_LAW_UNIFORM;
    p.value[AR_DEPTH_LAYERS] = 6;
    CHECK_NEAR(s6->predict(&p), 1.0 / 3, 1e-15); /* s^2/m^2 of U(0, 1) */
    CHECK_NEAR(s7->predict(&p), 2.5, 1e-15);     /* (L - 1)/2 */
    p.value[AR_DEPTH_D] = 32;                    /* fixed width: S6's factor is biased, S7 still speaks */
    CHECK(isnan(s6->predict(&p)) && s7->predict(&p) == 2.5);
    p.value[AR_DEPTH_GAP] = AR_MARKOV_GAP_REMOVE;
    CHECK(isnan(s6->predict(&p)) && isnan(s7->predict(&p)));
    p.value[AR_DEPTH_GAP] = AR_MARKOV_GAP_KEEP;
    p.value[AR_DEPTH_SKIP] = AR_DEPTH_SKIP_PLAIN;
    CHECK(isnan(s7->predict(&p)));

    ar_point_defaults(&ar_sim_markov_spectrum, &p);
    p.value[AR_SPECTRUM_ENTRIES] = AR_MARKOV_LAW_KEYQUERY;
    p.value[AR_SPECTRUM_D_H] = 0;
    p.value[AR_SPECTRUM_SCALE] = 0.5;
    CHECK_NEAR(rank->predict(&p), exp(0.25), 1e-15);
    CHECK_NEAR(edge->predict(&p), 2 * sqrt(expm1(0.25)), 1e-15);
    CHECK(s8->predict(&p) == 1);
    p.value[AR_SPECTRUM_D_H] = 32; /* fixed head width: the model is not the limit there */
    CHECK(isnan(rank->predict(&p)) && isnan(edge->predict(&p)) && isnan(s8->predict(&p)));
    p.value[AR_SPECTRUM_D_H] = 0;
    p.value[AR_SPECTRUM_SCALE] = 2; /* softmax near hardmax */
    CHECK(isnan(rank->predict(&p)) && isnan(s8->predict(&p)));
    p.value[AR_SPECTRUM_SCALE] = 1;
    p.value[AR_SPECTRUM_ENTRIES] = AR_MARKOV_LAW_UNIFORM;
    CHECK(isnan(rank->predict(&p)));
}

int main(void)
{
    check_register_families();
    keyquery_logits_have_sd_scale();
    predictions();
    eigenvalues_by_hand();
    row_sums();
    quarter_circle();
    lanczos_matches_svd();
    return check_report("markov");
}
