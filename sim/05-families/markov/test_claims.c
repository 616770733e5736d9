/* Statistical checks of S1, S2ks, S4, S5 and of S6/S7's outputs with fixed seeds; tolerances are multiples of
 * standard errors computed from the same draws. */
#include "attnrank/engine.h"
#include "markov/markov.h"
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

/* S6's and S7's outputs of depth_collapse against a direct computation of the same
 * statistics on independent draws (GSL's generator): X_0 of N(0, 1/d) entries (inputs =
 * gaussian), L
 * layers X <- A X W of uniform-entry Markov A and N(0, 1/d) W; the means agree within
 * 5 standard errors. */
enum { DEPTH_N = 12, DEPTH_D = 5, DEPTH_L = 3, DEPTH_TRIALS = 3000 };
/* off_consensus of an N x D matrix: spread about the mean row over the mean row's mass. */
static double off_by_hand(const double *m)
{
    double centre = 0, spread = 0;
    for (int c = 0; c < DEPTH_D; ++c) {
        double mean = 0;
        for (int i = 0; i < DEPTH_N; ++i)
            mean += m[i * DEPTH_D + c] / DEPTH_N;
        for (int i = 0; i < DEPTH_N; ++i)
            spread += (m[i * DEPTH_D + c] - mean) * (m[i * DEPTH_D + c] - mean);
        centre += DEPTH_N * mean * mean;
    }
    return spread / centre;
}

static void depth_by_hand(double *log_ratio, double *factor, double *attention)
{
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 777);
    enum { N = DEPTH_N, D = DEPTH_D };
    double x[N * D], p[N * D], q[N * D], a[N * N], w[D * D], t[N * D], off[DEPTH_L + 1], pre[DEPTH_L];
    for (int trial = 0; trial < DEPTH_TRIALS; ++trial) {
        for (int i = 0; i < N * D; ++i)
            x[i] = p[i] = q[i] = gsl_ran_gaussian(g, 1 / sqrt((double)D));
        for (int l = 0; l < DEPTH_L; ++l) {
            for (int i = 0; i < N; ++i) {
                double sum = 0;
                for (int j = 0; j < N; ++j)
                    sum += a[i * N + j] = gsl_rng_uniform_pos(g);
                for (int j = 0; j < N; ++j)
                    a[i * N + j] /= sum;
            }
            for (int i = 0; i < D * D; ++i)
                w[i] = gsl_ran_gaussian(g, 1 / sqrt((double)D));
            double xw[N * D]; /* X W, whose off_consensus attention alone then changes */
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < D; ++c) {
                    double sum = 0;
                    for (int k = 0; k < D; ++k)
                        sum += x[i * D + k] * w[k * D + c];
                    xw[i * D + c] = sum;
                }
            pre[l] = off_by_hand(xw);
            double ax[N * D], ap[N * D], aq[N * D];
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < D; ++c) {
                    double sx = 0, sp = 0, sq = 0;
                    for (int j = 0; j < N; ++j) {
                        sx += a[i * N + j] * x[j * D + c];
                        sp += a[i * N + j] * p[j * D + c];
                        sq += (a[i * N + j] - 1.0 / N) * q[j * D + c];
                    }
                    ax[i * D + c] = sx, ap[i * D + c] = sp, aq[i * D + c] = sq;
                }
            for (int i = 0; i < N; ++i)
                for (int c = 0; c < D; ++c) {
                    double sum = 0;
                    for (int k = 0; k < D; ++k)
                        sum += ax[i * D + k] * w[k * D + c];
                    t[i * D + c] = sum;
                }
            for (int i = 0; i < N * D; ++i)
                x[i] = t[i], p[i] = ap[i], q[i] = aq[i];
            off[l + 1] = off_by_hand(x);
        }
        double np = 0, nq = 0;
        for (int i = 0; i < N * D; ++i)
            np += p[i] * p[i], nq += q[i] * q[i];
        log_ratio[trial] = 0.5 * log(np / nq);
        factor[trial] = N * pow(off[DEPTH_L] / off[1], 1.0 / (DEPTH_L - 1));
        double logs = 0;
        for (int l = 1; l < DEPTH_L; ++l)
            logs += log(off[l + 1] / pre[l]);
        attention[trial] = N * exp(logs / (DEPTH_L - 1));
    }
    gsl_rng_free(g);
}

static void depth_outputs(void)
{
    char text[320];
    snprintf(text, sizeof text,
             "seed = 33; experiments = ( { name = \"d\"; simulator = \"depth_collapse\"; trials = %d; n = %d;"
             " d = %d; layers = %d; entries = \"uniform\"; gradient = \"none\"; inputs = \"gaussian\"; } );",
             DEPTH_TRIALS, DEPTH_N, DEPTH_D, DEPTH_L);
    ar_spec spec;
    load_spec(text, &spec);
    ar_point point;
    ar_experiment_point(&spec.experiments[0], 0, &point);
    ar_summary ratio, factor, attention, ratio_hand, factor_hand, attention_hand;
    summarize_value(&spec, 0, (int)ar_output_offset(&point, AR_DEPTH_OUT_LOG_GAP_RATIO), 2, &ratio);
    summarize_value(&spec, 0, (int)ar_output_offset(&point, AR_DEPTH_OUT_COLLAPSE_FACTOR_N), 2, &factor);
    summarize_value(&spec, 0, (int)ar_output_offset(&point, AR_DEPTH_OUT_ATTENTION_FACTOR_N), 2, &attention);
    ar_spec_free(&spec);
    double *r = malloc(DEPTH_TRIALS * sizeof *r), *f = malloc(DEPTH_TRIALS * sizeof *f);
    double *h = malloc(DEPTH_TRIALS * sizeof *h);
    depth_by_hand(r, f, h);
    ar_summarize(r, DEPTH_TRIALS, &ratio_hand);
    ar_summarize(f, DEPTH_TRIALS, &factor_hand);
    ar_summarize(h, DEPTH_TRIALS, &attention_hand);
    free(r), free(f), free(h);
    printf("depth: attention_factor_n %.4f +- %.4f (by hand %.4f +- %.4f)\n", attention.mean, attention.sem,
           attention_hand.mean, attention_hand.sem);
    CHECK(attention.count == DEPTH_TRIALS);
    CHECK(fabs(attention.mean - attention_hand.mean) <= 5 * hypot(attention.sem, attention_hand.sem));
    CHECK(attention.sem < factor.sem); /* W's change of the consensus divided out */
    printf("depth n = %d, d = %d, L = %d: log_gap_ratio %.4f +- %.4f (by hand %.4f +- %.4f), collapse_factor_n "
           "%.4f +- %.4f (by hand %.4f +- %.4f)\n", DEPTH_N, DEPTH_D, DEPTH_L, ratio.mean, ratio.sem, ratio_hand.mean,
           ratio_hand.sem, factor.mean, factor.sem, factor_hand.mean, factor_hand.sem);
    CHECK(ratio.count == DEPTH_TRIALS && factor.count == DEPTH_TRIALS);
    CHECK(fabs(ratio.mean - ratio_hand.mean) <= 5 * hypot(ratio.sem, ratio_hand.sem));
    CHECK(fabs(factor.mean - factor_hand.mean) <= 5 * hypot(factor.sem, factor_hand.sem));
}

/* The per-layer profile of the linear stack's gradient is flat by construction:
 * ||dX_L/dW_l|| = ||P X_0 W_0...W_{l-1}||_F ||W_{l+1}...W_{L-1}||_F with independent
 * factors and E||Z W||^2_F = ||Z||^2_F, so E ||dX_L/dW_l||^2 is the same for every l.
 * An identity of the model, checked here rather than judged as a claim. */
static void gradient_profile_is_flat(void)
{
    enum { T = 4000, L = 4 };
    ar_spec spec;
    load_spec("seed = 34; experiments = ( { name = \"g\"; simulator = \"depth_collapse\"; trials = 4000; n = 8;"
              " d = 4; layers = 4; entries = \"uniform\"; } );", &spec);
    const ar_experiment *x = &spec.experiments[0];
    ar_point point;
    ar_experiment_point(x, 0, &point);
    size_t per_trial = (size_t)ar_trials_values_per_trial(x, 0), at = ar_output_offset(&point, AR_DEPTH_OUT_GRAD_NORM);
    double *v = malloc(T * per_trial * sizeof *v), squares[T];
    CHECK(ar_trials_point_values(&spec, x, 0, 2, v) == 0);
    ar_summary layer[L];
    for (int l = 0; l < L; ++l) {
        for (int t = 0; t < T; ++t) {
            double g = v[(at + (size_t)l) * T + (size_t)t];
            squares[t] = g * g;
        }
        ar_summarize(squares, T, &layer[l]);
    }
    printf("E||dX_L/dW_l||^2, l = 0..3: %.4f %.4f %.4f %.4f (se %.4f)\n", layer[0].mean, layer[1].mean, layer[2].mean,
           layer[3].mean, layer[0].sem);
    for (int l = 1; l < L; ++l)
        CHECK(fabs(layer[l].mean - layer[0].mean) <= 5 * hypot(layer[l].sem, layer[0].sem));
    free(v);
    ar_spec_free(&spec);
}

/* All values of point `point` of a one-experiment spec: values[v * trials + t]. */
static double *point_values(const char *text, long point, ar_spec *spec, ar_point *pt)
{
    load_spec(text, spec);
    const ar_experiment *x = &spec->experiments[0];
    ar_experiment_point(x, point, pt);
    double *v = malloc((size_t)x->trials * ar_trials_values_per_trial(x, point) * sizeof *v);
    CHECK(ar_trials_point_values(spec, x, point, 2, v) == 0);
    return v;
}

/* A degenerate state is no number: key-query attention without the gap (logits of sd
 * 1/d) drives X_l to exactly 0 from layer 3 (the softmax rounds to exactly 1/n). Its
 * stable ranks and cosines are NaN there (counted as failed values), vanished_layers
 * counts the layers. Before, ar_stable_rank_of returned 0 and every trial averaged it
 * (count = trials, failed 0, mean 0). */
static void vanished_layers_are_not_averaged(void)
{
    enum { T = 20, LAYERS = 5 };
    ar_spec spec;
    ar_point pt;
    double *v = point_values("seed = 35; experiments = ( { name = \"z\"; simulator = \"depth_collapse\"; trials = 20;"
                             " n = 32; layers = 5; attention = \"keyquery\"; gap = \"remove\"; gradient = \"none\"; } );",
                             0, &spec, &pt);
    int stable = ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK), gram = ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK_GRAM);
    int cosine = ar_output_offset(&pt, AR_DEPTH_OUT_MEAN_ABS_COSINE), frob = ar_output_offset(&pt, AR_DEPTH_OUT_FROBENIUS);
    int vanished = ar_output_offset(&pt, AR_DEPTH_OUT_VANISHED_LAYERS);
    int zero_layers_seen = 0, averaged_zero = 0, nan_elsewhere = 0;
    for (int t = 0; t < T; ++t) {
        int zeros = 0;
        for (int l = 0; l <= LAYERS; ++l) {
            double f = v[(size_t)(frob + l) * T + t], s = v[(size_t)(stable + l) * T + t];
            double g = v[(size_t)(gram + l) * T + t], c = v[(size_t)(cosine + l) * T + t];
            if (f == 0) {
                zeros++;
                averaged_zero += !isnan(s) || !isnan(g) || !isnan(c);
            } else {
                nan_elsewhere += isnan(s) || isnan(g) || isnan(c);
            }
        }
        zero_layers_seen += zeros;
        CHECK(v[(size_t)vanished * T + t] == zeros);
    }
    ar_summary last;
    ar_summarize(v + (size_t)(stable + LAYERS) * T, T, &last);
    printf("key-query, gap removed: %d of %d layer states exactly 0; stable rank at layer %d: count %ld, failed %ld\n",
           zero_layers_seen, T * (LAYERS + 1), LAYERS, last.count, last.failed);
    CHECK(zero_layers_seen >= T * 3); /* layers 3, 4, 5 of every trial */
    CHECK(averaged_zero == 0 && nan_elsewhere == 0);
    CHECK(last.count == 0 && last.failed == T);
    free(v);
    ar_spec_free(&spec);
}

/* inputs = orthonormal: X_0 X_0^T = I, so layer 0's stable ranks are exactly n (d >= n),
 * or d (d < n, orthonormal columns); and X_0 W_0 then has iid Gaussian entries, so layer
 * 1 of the stack is distributed as width_collapse's X_1 = A G (gamma = 1): their means
 * agree within 5 combined standard errors, gap removed (where the input law mattered:
 * 16.35 against 21.7 at n = 256 with Gaussian X_0). */
static void orthonormal_inputs(void)
{
    enum { T = 400, N = 48 };
    ar_spec spec;
    ar_point pt;
    double *v = point_values("seed = 36; experiments = ( { name = \"o\"; simulator = \"depth_collapse\"; trials = 400;"
                             " n = 48; layers = 1; gap = \"remove\"; gradient = \"none\"; } );", 0, &spec, &pt);
    int stable = ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK), gram = ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK_GRAM);
    int exact = 1;
    for (int t = 0; t < T; ++t)
        exact &= fabs(v[(size_t)stable * T + t] - N) < 1e-8 * N && fabs(v[(size_t)gram * T + t] - N) < 1e-8 * N;
    CHECK(exact);
    ar_summary depth_sr, depth_gram;
    ar_summarize(v + (size_t)(stable + 1) * T, T, &depth_sr);
    ar_summarize(v + (size_t)(gram + 1) * T, T, &depth_gram);
    free(v);
    ar_spec_free(&spec);
    v = point_values("seed = 37; experiments = ( { name = \"w\"; simulator = \"width_collapse\"; trials = 400; n = 48;"
                     " gamma = 1; gap = \"remove\"; } );", 0, &spec, &pt);
    ar_summary width_sr, width_gram;
    ar_summarize(v + (size_t)AR_WIDTH_OUT_STABLE_RANK * T, T, &width_sr);
    ar_summarize(v + (size_t)AR_WIDTH_OUT_STABLE_RANK_GRAM * T, T, &width_gram);
    free(v);
    ar_spec_free(&spec);
    printf("layer 1, orthonormal X_0, gap removed, n = %d: stable rank %.4f +- %.4f (width_collapse %.4f +- %.4f), "
           "of X X^T %.4f +- %.4f (%.4f +- %.4f)\n", N, depth_sr.mean, depth_sr.sem, width_sr.mean, width_sr.sem,
           depth_gram.mean, depth_gram.sem, width_gram.mean, width_gram.sem);
    CHECK(fabs(depth_sr.mean - width_sr.mean) <= 5 * hypot(depth_sr.sem, width_sr.sem));
    CHECK(fabs(depth_gram.mean - width_gram.mean) <= 5 * hypot(depth_gram.sem, width_gram.sem));
    CHECK(depth_gram.mean < depth_sr.mean); /* sum s^4 / s_1^4 <= sum s^2 / s_1^2 */

    /* d < n: orthonormal columns times sqrt(n/d): stable rank d, ||X_0||_F^2 = n. */
    v = point_values("seed = 38; experiments = ( { name = \"c\"; simulator = \"depth_collapse\"; trials = 20;"
                     " n = 24; d = 8; layers = 1; gradient = \"none\"; } );", 0, &spec, &pt);
    stable = ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK);
    int frob = ar_output_offset(&pt, AR_DEPTH_OUT_FROBENIUS);
    exact = 1;
    for (int t = 0; t < 20; ++t)
        exact &= fabs(v[(size_t)stable * 20 + t] - 8) < 1e-8 && fabs(v[(size_t)frob * 20 + t] - sqrt(24.0)) < 1e-10;
    CHECK(exact);
    free(v);
    ar_spec_free(&spec);
}

/* value_sd: W_l's entries N(0, value_sd^2), default 1/sqrt(d). E||X_1||_F^2 =
 * value_sd^2 d E||A X_0||_F^2, so the paper's value_sd = 1 multiplies it by d: the
 * ratio of the two means within 5 standard errors (delta method) of d. */
static void value_sd_scales_the_layer(void)
{
    enum { T = 2000, D = 16 };
    double mean[2], sem[2];
    for (int k = 0; k < 2; ++k) {
        char text[320];
        snprintf(text, sizeof text, "seed = 39; experiments = ( { name = \"v\"; simulator = \"depth_collapse\"; "
                 "trials = %d; n = 16; layers = 1; gradient = \"none\"; value_sd = %g; } );", T, k ? 1.0 : 0.0);
        ar_spec spec;
        ar_point pt;
        double *v = point_values(text, 0, &spec, &pt), squares[T];
        int frob = ar_output_offset(&pt, AR_DEPTH_OUT_FROBENIUS);
        for (int t = 0; t < T; ++t)
            squares[t] = v[(size_t)(frob + 1) * T + t] * v[(size_t)(frob + 1) * T + t];
        ar_summary s;
        ar_summarize(squares, T, &s);
        mean[k] = s.mean, sem[k] = s.sem;
        free(v);
        ar_spec_free(&spec);
    }
    double ratio = mean[1] / mean[0], se = ratio * hypot(sem[0] / mean[0], sem[1] / mean[1]);
    printf("value_sd: E||X_1||^2 %.4f (1/sqrt(d)) and %.4f (1): ratio %.3f +- %.3f, d = %d\n", mean[0], mean[1], ratio,
           se, D);
    CHECK(fabs(ratio - D) <= 5 * se);
}

/* skip = authors_double: the "Mind the Gap" authors' block with its skip and no MLP
 * returns 2 (X + A X W). On one stream, against skip = plain: with Markov attention X_l
 * is plain's times 2^l exactly (doubling is exact in floating point), so every stable
 * rank is plain's bit for bit; with key-query attention (value_sd = 1, the authors' W_V)
 * layers 0 and 1 agree and layer 2 differs, its logits 4 times larger. */
static void authors_double_skip(void)
{
    for (int keyquery = 0; keyquery <= 1; ++keyquery) {
        double out[2][AR_MAX_OUTPUTS * 8];
        ar_point pt;
        for (int k = 0; k < 2; ++k) {
            ar_point_defaults(&ar_sim_depth_collapse, &pt);
            pt.value[AR_DEPTH_N] = 12, pt.value[AR_DEPTH_LAYERS] = 3, pt.value[AR_DEPTH_VALUE_SD] = 1;
            pt.value[AR_DEPTH_GRADIENT] = AR_DEPTH_GRADIENT_NONE;
            pt.value[AR_DEPTH_ATTENTION] = keyquery ? AR_DEPTH_ATTENTION_KEYQUERY : AR_DEPTH_ATTENTION_MARKOV;
            pt.value[AR_DEPTH_SKIP] = k ? AR_DEPTH_SKIP_AUTHORS_DOUBLE : AR_DEPTH_SKIP_PLAIN;
            CHECK(ar_values_per_trial(&pt) <= AR_MAX_OUTPUTS * 8);
            size_t bytes = (pt.sim->workspace_bytes(&pt) + 63) & ~(size_t)63;
            void *workspace = aligned_alloc(64, bytes);
            ar_rng rng;
            ar_rng_init(&rng, 41, 3, 0, 0);
            CHECK(pt.sim->trial(&pt, &rng, workspace, out[k]) == 0);
            free(workspace);
        }
        const double *sr[2], *frob[2];
        for (int k = 0; k < 2; ++k) {
            sr[k] = out[k] + ar_output_offset(&pt, AR_DEPTH_OUT_STABLE_RANK);
            frob[k] = out[k] + ar_output_offset(&pt, AR_DEPTH_OUT_FROBENIUS);
        }
        printf("authors_double (%s): stable rank by layer plain %.6f %.6f %.6f %.6f, doubled %.6f %.6f %.6f %.6f\n",
               keyquery ? "key-query" : "markov", sr[0][0], sr[0][1], sr[0][2], sr[0][3], sr[1][0], sr[1][1], sr[1][2],
               sr[1][3]);
        CHECK(sr[1][0] == sr[0][0] && sr[1][1] == sr[0][1] && frob[1][1] == 2 * frob[0][1]);
        if (keyquery)
            CHECK(fabs(sr[1][2] - sr[0][2]) > 1e-6 * sr[0][2]);
        else
            for (int l = 0; l <= 3; ++l)
                CHECK(sr[1][l] == sr[0][l] && frob[1][l] == ldexp(frob[0][l], l));
    }
}

int main(void)
{
    check_register_families();
    authors_double_skip();
    vanished_layers_are_not_averaged();
    orthonormal_inputs();
    value_sd_scales_the_layer();
    depth_outputs();
    gradient_profile_is_flat();
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
