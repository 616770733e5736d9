/* Statistical checks of claims H1-H4 with fixed seeds; every tolerance is a multiple
 * of a standard error computed from the same draws. */
#include "attnrank/attention.h"
#include "attnrank/engine.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/registry.h"
#include "attnrank/stats.h"
#include "hardmax/hardmax.h"
#include "attnrank/theory.h"
#include "check.h"
#include "support.h"

#include <stdlib.h>
#include <string.h>

static void summarize_point(const char *text, long point, ar_summary *s)
{
    ar_spec spec;
    load_spec(text, &spec);
    summarize_value(&spec, point, 0, 2, s); /* value 0: argmax_rank */
    ar_spec_free(&spec);
}

/* H3: with d_h = 1, E[rank] = 2 - 2^(1-n). */
static void dh1_is_exact(void)
{
    const int sizes[] = {2, 3, 5, 10};
    for (int i = 0; i < 4; ++i) {
        char text[256];
        snprintf(text, sizeof text,
                 "seed = 11; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 20000;"
                 " n = %d; d_h = 1; } );", sizes[i]);
        ar_summary s;
        summarize_point(text, 0, &s);
        double want = 2 - pow(2, 1 - sizes[i]);
        printf("H3 n = %2d: E[rank] = %.4f +- %.4f, exact %.4f\n", sizes[i], s.mean, s.sem, want);
        CHECK(fabs(s.mean - want) <= 4 * fmax(s.sem, 1.0 / s.count));
    }
}

/* H1 holds for independent weights; H4: tied weights break it. */
static void bound_and_its_failure(void)
{
    ar_summary ind, tied;
    summarize_point("seed = 12; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 2000;"
                    " n = 64; d_h = 64; } );", 0, &ind);
    summarize_point("seed = 12; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 2000;"
                    " n = 64; d_h = 64; weights = \"tied\"; } );", 0, &tied);
    double h1 = (1 - exp(-1)) * 64 + 1, h2 = 64 * (1 - pow(1 - 1.0 / 64, 64));
    printf("n = d_h = 64: independent %.3f [%.3f, %.3f], tied %.3f [%.3f, %.3f]; H1 %.3f, H2 %.3f\n", ind.mean,
           ind.ci_lo, ind.ci_hi, tied.mean, tied.ci_lo, tied.ci_hi, h1, h2);
    CHECK(ind.ci_hi <= h2 && h2 <= h1);
    CHECK(tied.ci_lo > h1);
}

/* H1-H3 speak only where their theorem's assumptions hold; H4 states H1's bound anywhere
 * (a stress test). */
static void claims_keep_to_their_assumptions(void)
{
    const ar_claim *h1 = ar_claim_find("H1"), *h2 = ar_claim_find("H2"), *h3 = ar_claim_find("H3"),
                   *h4 = ar_claim_find("H4");
    ar_point p;
    ar_point_defaults(&ar_sim_hardmax_rank, &p);
    p.value[AR_HARDMAX_D_H] = 1;
    CHECK(isfinite(h1->predict(&p)) && isfinite(h2->predict(&p)) && isfinite(h3->predict(&p)));
    p.value[AR_HARDMAX_WEIGHTS] = AR_HARDMAX_WEIGHTS_TIED;
    CHECK(isnan(h1->predict(&p)) && isnan(h2->predict(&p)) && isnan(h3->predict(&p)));
    CHECK(isfinite(h4->predict(&p)));
    p.value[AR_HARDMAX_WEIGHTS] = AR_HARDMAX_WEIGHTS_INDEPENDENT;
    p.value[AR_HARDMAX_INPUTS] = AR_HARDMAX_INPUTS_GAUSSIAN;
    CHECK(isnan(h1->predict(&p)) && isnan(h2->predict(&p)) && isnan(h3->predict(&p)));

    /* H5b: d_h + 1 where tau >= 1e6 and d_h + 1 < n; silent where it cannot fail. */
    const ar_claim *h5b = ar_claim_find("H5b"), *rises = ar_claim_find("H5tau_rel");
    ar_point_defaults(&ar_sim_softmax_rank, &p);
    p.value[AR_HARDMAX_N] = 32, p.value[AR_HARDMAX_D_H] = 8, p.value[AR_HARDMAX_TAU] = 1e6;
    CHECK(h5b->predict(&p) == 9 && isnan(rises->predict(&p)));
    p.value[AR_HARDMAX_D_H] = 31;
    CHECK(isnan(h5b->predict(&p)));
    p.value[AR_HARDMAX_TAU] = 1; /* H5's rise speaks from hardmax up to tau = 1 */
    CHECK(isnan(h5b->predict(&p)) && rises->predict(&p) == 0);
    /* H5b cannot fail (its cut is the remainder's bound): a unit check, shown as such;
     * H5ratio, the form that can fail, speaks from tau = 100 where d_h + 2 <= n */
    const ar_claim *ratio = ar_claim_find("H5ratio");
    CHECK(h5b->identity && !ratio->identity && ratio->rule == AR_RULE_LOG_SLOPE);
    p.value[AR_HARDMAX_D_H] = 30, p.value[AR_HARDMAX_TAU] = 100;
    CHECK(ratio->predict(&p) == -1);
    p.value[AR_HARDMAX_TAU] = 50;
    CHECK(isnan(ratio->predict(&p)));
    p.value[AR_HARDMAX_D_H] = 31, p.value[AR_HARDMAX_TAU] = 1e4;
    CHECK(isnan(ratio->predict(&p)));
}

/* H2's identity: given the keys K, row argmaxes are iid with probabilities p_j, so
 * E[rank | K] = sum_j 1 - (1 - p_j)^n. Estimate p_j from many queries against one K,
 * then compare with the mean rank of fresh query sets against the same K. */
static void rank_given_keys(int n, int dh, uint64_t seed)
{
    const long queries = 400000, batch = 1000;
    const int trials = 20000;
    double *k = malloc((size_t)n * dh * sizeof *k), *q = malloc((size_t)batch * dh * sizeof *q);
    double *scores = malloc((size_t)batch * n * sizeof *scores), *p = calloc((size_t)n, sizeof *p);
    int *argmax = malloc((size_t)batch * sizeof *argmax);
    unsigned char *seen = malloc((size_t)n);
    ar_rng r;
    ar_rng_init(&r, seed, 0, 0, 0);
    ar_rng_normals(&r, k, (size_t)n * dh);
    for (long b = 0; b < queries / batch; ++b) {
        ar_rng_init(&r, seed, 1, (uint64_t)b, 0);
        ar_rng_normals(&r, q, (size_t)batch * dh);
        ar_gemm_nt((int)batch, n, dh, q, k, scores);
        ar_argmax_rows((int)batch, n, scores, argmax);
        for (long i = 0; i < batch; ++i)
            p[argmax[i]] += 1.0 / queries;
    }
    double predicted = 0, g_p = 0, g2_p = 0;
    for (int j = 0; j < n; ++j) {
        predicted += 1 - pow(1 - p[j], n);
        double g = n * pow(1 - p[j], n - 1); /* d/dp of 1 - (1 - p)^n */
        g_p += g * p[j];
        g2_p += g * g * p[j];
    }
    double se_predicted = sqrt((g2_p - g_p * g_p) / queries); /* delta method, multinomial p-hat */
    double *ranks = malloc(trials * sizeof *ranks);
    for (int t = 0; t < trials; ++t) {
        ar_rng_init(&r, seed, 2, (uint64_t)t, 0);
        ar_rng_normals(&r, q, (size_t)n * dh);
        ar_gemm_nt(n, n, dh, q, k, scores);
        ar_argmax_rows(n, n, scores, argmax);
        ranks[t] = ar_argmax_rank(n, argmax, n, seen);
    }
    ar_summary s;
    ar_summarize(ranks, trials, &s);
    double se = sqrt(s.sem * s.sem + se_predicted * se_predicted);
    printf("H2 n = %d, d_h = %d: mean rank %.4f, sum 1-(1-p_j)^n = %.4f (se %.4f); bound %.4f\n", n, dh, s.mean,
           predicted, se, n * (1 - pow(1 - 1.0 / n, n)));
    CHECK(fabs(s.mean - predicted) <= 4 * se);
    CHECK(predicted <= n * (1 - pow(1 - 1.0 / n, n)) + 4 * se_predicted);
    free(k), free(q), free(scores), free(p), free(argmax), free(seen), free(ranks);
}

/* h2_deficit is (bound - argmax_rank) / bound trial by trial, so its mean is exactly
 * that of the rank's, rescaled. */
static void deficit_is_the_rank_rescaled(void)
{
    ar_spec spec;
    load_spec("seed = 14; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 500; n = 16;"
              " d_h = 8; } );", &spec);
    ar_summary rank, deficit;
    summarize_value(&spec, 0, AR_HARDMAX_OUT_ARGMAX_RANK, 1, &rank);
    summarize_value(&spec, 0, AR_HARDMAX_OUT_H2_DEFICIT, 1, &deficit);
    ar_spec_free(&spec);
    double bound = 16 * (1 - pow(1 - 1.0 / 16, 16));
    CHECK_NEAR(ar_hardmax_h2_bound(16), bound, 1e-12);
    CHECK_NEAR(deficit.mean, (bound - rank.mean) / bound, 1e-12);
}

/* rank_given_keys, E[rank | keys] from M fresh queries, is unbiased for E[rank] on both
 * of its paths (scores K q at d_h < n, L xi from K K^T's Cholesky factor at d_h > n) and,
 * at d_h = 64, has a far smaller standard error than the rank itself; its deficit is
 * the rank's rescaled. A spec that asks for fewer queries than n is refused. */
static void given_keys_is_unbiased(void)
{
    const int widths[] = {3, 64};
    for (int w = 0; w < 2; ++w) {
        char text[300];
        snprintf(text, sizeof text,
                 "seed = 15; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 8000; n = 8;"
                 " d_h = %d; queries_given_keys = 64; } );", widths[w]);
        ar_spec spec;
        load_spec(text, &spec);
        ar_summary rank, given, deficit;
        summarize_value(&spec, 0, AR_HARDMAX_OUT_ARGMAX_RANK, 1, &rank);
        summarize_value(&spec, 0, AR_HARDMAX_OUT_RANK_GIVEN_KEYS, 1, &given);
        summarize_value(&spec, 0, AR_HARDMAX_OUT_H2_DEFICIT_GIVEN_KEYS, 1, &deficit);
        ar_spec_free(&spec);
        double se = hypot(rank.sem, given.sem), bound = ar_hardmax_h2_bound(8);
        printf("given keys, n = 8, d_h = %d: rank %.4f +- %.4f, E[rank | keys] %.4f +- %.4f\n", widths[w], rank.mean,
               rank.sem, given.mean, given.sem);
        CHECK(given.count == 8000 && fabs(rank.mean - given.mean) <= 4 * se);
        CHECK(given.sem < rank.sem);
        if (widths[w] == 64)
            CHECK(given.sem < rank.sem / 5);
        CHECK_NEAR(deficit.mean, (bound - given.mean) / bound, 1e-12);
    }
    ar_spec spec;
    char why[AR_ERR_LEN];
    const char *few = "seed = 1; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; n = 8; d_h = 4;"
                      " queries_given_keys = 4; } );";
    CHECK(ar_spec_load_text(few, "few.cfg", NULL, NULL, 0, &spec, why) != 0);
    CHECK_CONTAINS(why, "queries_given_keys");
}

/* H5b's rank: 11^T/n plus the first-order term has rank d_h + 1, and numrank_first_order
 * counts it at every temperature deep in the first-order regime, in every trial, where
 * the absolute 1e-8 of numrank_abs loses the first-order term as tau grows. */
static void first_order_rank_at_every_tau(void)
{
    ar_spec spec;
    load_spec("seed = 15; experiments = ( { name = \"s\"; simulator = \"softmax_rank\"; trials = 200; n = 16;"
              " d_h = [2, 5]; tau = [1e4, 1e6, 1e8]; } );", &spec);
    for (long p = 0; p < 6; ++p) {
        ar_summary first, absolute;
        summarize_value(&spec, p, AR_SOFTMAX_OUT_NUMRANK_FIRST_ORDER, 1, &first);
        summarize_value(&spec, p, AR_SOFTMAX_OUT_NUMRANK_ABS, 1, &absolute);
        int dh = p / 3 == 0 ? 2 : 5;
        double tau = p % 3 == 0 ? 1e4 : p % 3 == 1 ? 1e6 : 1e8;
        printf("H5b d_h = %d, tau = %g: numrank_first_order in [%g, %g], numrank_abs in [%g, %g]\n", dh, tau,
               first.min, first.max, absolute.min, absolute.max);
        CHECK(first.min == dh + 1 && first.max == dh + 1);
        if (tau == 1e8)
            CHECK(absolute.max < dh + 1); /* 1/(n tau) ~ 6e-10: below the absolute cut */
    }
    ar_spec_free(&spec);
}

/* H5ratio's output: ln(sigma_{d_h+2} / sigma_{d_h+1}) falls by ln 10 a decade of tau once
 * the expansion's O(1/tau) corrections are small (tau >= 1e3: below 1%), measured only
 * in its regime. Fixed seed; the tolerance is 4 standard errors of the difference. */
static void tail_ratio_falls_like_one_over_tau(void)
{
    ar_spec spec;
    load_spec("seed = 16; experiments = ( { name = \"s\"; simulator = \"softmax_rank\"; trials = 400; n = 16;"
              " d_h = 3; tau = [1.0, 1e3, 1e4]; } );", &spec);
    ar_summary low, mid, high;
    summarize_value(&spec, 0, AR_SOFTMAX_OUT_LOG_TAIL_RATIO, 1, &low);
    summarize_value(&spec, 1, AR_SOFTMAX_OUT_LOG_TAIL_RATIO, 1, &mid);
    summarize_value(&spec, 2, AR_SOFTMAX_OUT_LOG_TAIL_RATIO, 1, &high);
    ar_spec_free(&spec);
    double drop = high.mean - mid.mean, se = hypot(high.sem, mid.sem);
    printf("H5ratio: ln ratio %.4f at tau = 1e3, %.4f at 1e4: drop %.4f +- %.4f (-ln 10 = %.4f)\n", mid.mean, high.mean,
           drop, se, -log(10.0));
    CHECK(low.count == 0);            /* tau = 1: outside the regime, not measured */
    CHECK(mid.count == 400 && high.count == 400);
    CHECK(se > 0 && fabs(drop + log(10.0)) < 4 * se);
}

/* One trial of a point from a fixed stream: what the engine would compute for trial 0
 * of a point keyed 7. */
static void trial_outputs(const ar_point *p, double *out)
{
    size_t bytes = (p->sim->workspace_bytes(p) + 63) & ~(size_t)63;
    void *workspace = aligned_alloc(64, bytes);
    ar_rng rng;
    ar_rng_init(&rng, 31, 7, 0, 0);
    CHECK(p->sim->trial(p, &rng, workspace, out) == 0);
    free(workspace);
}

/* hardmax_saturation at n = 4: one head coordinate makes E[rank | K_1] = 2 - 2^(1 - n)
 * for every draw of the keys (the largest and the smallest key each win half the
 * queries), so with a target t below it every draw saturates at width 1, at position
 * (t - 1) / (R_1 - 1), R_1 the M-query estimate: 1 + (t - 1) / position recovers R_1,
 * unbiased for 1.875 (H3's value). Fixed seed, 4 standard errors. Then: max_d_h only
 * says where to stop (the same draws and values below it, a failed trial above), and
 * every shortfall in range has a crossing to find. */
static void saturation_position_is_unbiased(void)
{
    ar_spec spec;
    load_spec("seed = 17; experiments = ( { name = \"s\"; simulator = \"hardmax_saturation\"; trials = 4000;"
              " log2_n = 2; shortfall = 0.5; queries_per_token = 16; } );", &spec);
    const ar_experiment *x = &spec.experiments[0];
    long trials = x->trials;
    double *v = malloc((size_t)trials * ar_trials_values_per_trial(x, 0) * sizeof *v);
    ar_trials_point_values(&spec, x, 0, 2, v);
    double target = 0.5 * ar_hardmax_h2_bound(4), sum = 0, sum2 = 0;
    long at_one = 0;
    for (long t = 0; t < trials; ++t) {
        double position = v[(size_t)AR_SATURATION_OUT_D_H * trials + t];
        double r1 = 1 + (target - 1) / position;
        at_one += position > 0 && position <= 1;
        sum += r1, sum2 += r1 * r1;
        CHECK_NEAR(v[(size_t)AR_SATURATION_OUT_LOG_D_H * trials + t], log(position), 1e-15);
    }
    double mean = sum / trials, se = sqrt((sum2 / trials - mean * mean) / (trials - 1));
    printf("H2sat: n = 4, width 1: E[rank | K_1] recovered %.5f +- %.5f (exact %.5f), %ld of %ld at width <= 1\n",
           mean, se, 2 - pow(2, -3), at_one, trials);
    CHECK(at_one == trials);
    CHECK(se > 0 && fabs(mean - (2 - pow(2, -3))) < 4 * se);
    free(v);
    ar_spec_free(&spec);

    /* max_d_h: the draws do not depend on it; a draw not saturated by it fails */
    ar_point p;
    ar_point_defaults(&ar_sim_hardmax_saturation, &p);
    p.value[AR_SATURATION_LOG2_N] = 5;
    double wide[AR_MAX_OUTPUTS], narrow[AR_MAX_OUTPUTS];
    trial_outputs(&p, wide);
    CHECK(isfinite(wide[AR_SATURATION_OUT_D_H]) && wide[AR_SATURATION_OUT_D_H] > 2);
    p.value[AR_SATURATION_MAX_D_H] = (int)ceil(wide[AR_SATURATION_OUT_D_H]);
    trial_outputs(&p, narrow);
    CHECK(memcmp(wide, narrow, 2 * sizeof *wide) == 0);
    p.value[AR_SATURATION_MAX_D_H] = (int)ceil(wide[AR_SATURATION_OUT_D_H]) - 1;
    size_t bytes = (p.sim->workspace_bytes(&p) + 63) & ~(size_t)63;
    void *workspace = aligned_alloc(64, bytes);
    ar_rng rng;
    ar_rng_init(&rng, 31, 7, 0, 0);
    CHECK(p.sim->trial(&p, &rng, workspace, narrow) == 1 && isnan(narrow[AR_SATURATION_OUT_D_H]));
    free(workspace);
    /* the largest shortfall still asks more than width 0's rank 1 at the smallest n */
    CHECK((1 - ar_sim_hardmax_saturation.params[AR_SATURATION_SHORTFALL].max) * ar_hardmax_h2_bound(4) > 1);
}

static void hardmax_point(const ar_sim *sim, int dh, int weights, int sampler, double sigma, double tau, ar_point *p)
{
    ar_point_defaults(sim, p);
    p->value[AR_HARDMAX_N] = 16, p->value[AR_HARDMAX_D_H] = dh, p->value[AR_HARDMAX_WEIGHTS] = weights;
    p->value[AR_HARDMAX_SAMPLER] = sampler, p->value[AR_HARDMAX_SIGMA] = sigma;
    if (sim == &ar_sim_softmax_rank)
        p->value[AR_HARDMAX_TAU] = tau;
}

/* sigma scales both weight matrices, so the scores by sigma^2: the argmax cannot see it
 * and softmax sees only tau / sigma^2. From one stream every sigma in the range gives
 * hardmax's outputs bit for bit (scores scaled by 1e-200 once underflowed to a tie of
 * zeros, rank 1, and H3 read VIOLATED), and softmax at (sigma, tau) gives those at
 * (1, tau / sigma^2) wherever that quotient is exact. */
static void weight_scale_is_exact(void)
{
    const double sigmas[] = {5e-324, 1e-200, 0x1p-600, 1, 1e100};
    const int n_sigmas = 5;
    for (int weights = AR_HARDMAX_WEIGHTS_INDEPENDENT; weights <= AR_HARDMAX_WEIGHTS_CORRELATED; ++weights)
        for (int sampler = AR_HARDMAX_SAMPLER_AUTO; sampler <= AR_HARDMAX_SAMPLER_FAITHFUL; ++sampler)
            for (int dh = 1; dh <= 8; dh *= 2) {
                double unit[AR_MAX_OUTPUTS], soft_unit[AR_MAX_OUTPUTS], out[AR_MAX_OUTPUTS];
                ar_point p;
                hardmax_point(&ar_sim_hardmax_rank, dh, weights, sampler, 1, 1, &p);
                trial_outputs(&p, unit);
                hardmax_point(&ar_sim_softmax_rank, dh, weights, sampler, 1, 1, &p);
                trial_outputs(&p, soft_unit);
                for (int s = 0; s < n_sigmas; ++s) {
                    hardmax_point(&ar_sim_hardmax_rank, dh, weights, sampler, sigmas[s], 1, &p);
                    trial_outputs(&p, out);
                    CHECK(memcmp(out, unit, ar_values_per_trial(&p) * sizeof *out) == 0);
                    hardmax_point(&ar_sim_softmax_rank, dh, weights, sampler, sigmas[s], 1, &p);
                    trial_outputs(&p, out);
                    CHECK(out[AR_SOFTMAX_OUT_ARGMAX_RANK] == soft_unit[AR_SOFTMAX_OUT_ARGMAX_RANK]);
                    for (int v = 0; v < ar_values_per_trial(&p); ++v)
                        CHECK(isfinite(out[v]) || v == AR_SOFTMAX_OUT_NUMRANK_FIRST_ORDER || v == AR_SOFTMAX_OUT_LOG_TAIL_RATIO);
                }
                /* (sigma, tau) and (1, tau / sigma^2), the quotient exact in powers of 2 */
                const double pairs[][3] = {{2, 4, 1}, {0x1p-600, 0x1p-1000, 0x1p200}, {0x1p300, 0x1p500, 0x1p-100}};
                for (int k = 0; k < 3; ++k) {
                    double scaled[AR_MAX_OUTPUTS];
                    hardmax_point(&ar_sim_softmax_rank, dh, weights, sampler, pairs[k][0], pairs[k][1], &p);
                    trial_outputs(&p, scaled);
                    hardmax_point(&ar_sim_softmax_rank, dh, weights, sampler, 1, pairs[k][2], &p);
                    trial_outputs(&p, out);
                    CHECK(memcmp(out, scaled, ar_values_per_trial(&p) * sizeof *out) == 0);
                }
            }
    /* the ends: scores that would overflow the temperature's quotient to 0 give hardmax's
     * one-hot rows, and ones that would underflow to 0 give the uniform 11^T/n */
    double out[AR_MAX_OUTPUTS];
    ar_point p;
    hardmax_point(&ar_sim_softmax_rank, 4, AR_HARDMAX_WEIGHTS_INDEPENDENT, AR_HARDMAX_SAMPLER_AUTO, 1e100, 1e-300, &p);
    trial_outputs(&p, out);
    CHECK(out[AR_SOFTMAX_OUT_NUMRANK_ABS] == out[AR_SOFTMAX_OUT_ARGMAX_RANK] && out[AR_SOFTMAX_OUT_ARGMAX_RANK] > 1);
    hardmax_point(&ar_sim_softmax_rank, 4, AR_HARDMAX_WEIGHTS_INDEPENDENT, AR_HARDMAX_SAMPLER_AUTO, 1e-200, 1, &p);
    trial_outputs(&p, out);
    CHECK(out[AR_SOFTMAX_OUT_NUMRANK_ABS] == 1 && out[AR_SOFTMAX_OUT_ARGMAX_RANK] > 1);
    CHECK_NEAR(out[AR_SOFTMAX_OUT_STABLE_RANK], 1, 1e-12);
}

int main(void)
{
    check_register_families();
    weight_scale_is_exact();
    deficit_is_the_rank_rescaled();
    given_keys_is_unbiased();
    first_order_rank_at_every_tau();
    tail_ratio_falls_like_one_over_tau();
    saturation_position_is_unbiased();
    claims_keep_to_their_assumptions();
    dh1_is_exact();
    bound_and_its_failure();
    rank_given_keys(16, 3, 21);
    rank_given_keys(32, 8, 22);
    rank_given_keys(8, 2, 23);
    return check_report("hardmax_claims");
}
