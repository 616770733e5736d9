/* layer: reverse mode against the full finite-difference Jacobian on a tiny stack, for
 * every layer variant; the Hutchinson probe estimate within its own standard errors of
 * the exact norm; probes against the closed form on the linear stack. */
#include "attnrank/gradient.h"
#include "attnrank/layer.h"
#include "attnrank/rng.h"
#include "check.h"

#include <stdlib.h>

enum { N = 4, D = 3, L = 3, ND = N * D, DD = D * D };

typedef struct {
    double x[L + 1][ND], a[L][N * N], y[L][ND], w[L][DD], wq[L][DD], wk[L][DD], q[L][ND], k[L][ND];
    double sigma[L][N];
    ar_layer_tape tape[L];
} stack;

static double work[4096];

/* X_L of the stack for its current weights; every tape refreshed. */
static const double *forward(const ar_layer_kind *kind, stack *s)
{
    for (int l = 0; l < L; ++l) {
        s->tape[l] = (ar_layer_tape){.x = s->x[l], .a = s->a[l], .y = s->y[l], .w = s->w[l], .wq = s->wq[l],
                                     .wk = s->wk[l], .q = s->q[l], .k = s->k[l], .inv_sigma = s->sigma[l]};
        ar_layer_forward(kind, &s->tape[l], s->x[l + 1], work);
    }
    return s->x[L];
}

static void draw(ar_rng *r, stack *s)
{
    for (int l = 0; l < L; ++l) {
        for (int i = 0; i < N; ++i) { /* Markov rows */
            double sum = 0, *row = s->a[l] + i * N;
            for (int j = 0; j < N; ++j)
                sum += row[j] = ar_rng_uniform(r);
            for (int j = 0; j < N; ++j)
                row[j] /= sum;
        }
        ar_rng_normals(r, s->w[l], DD);
        ar_rng_normals(r, s->wq[l], DD);
        ar_rng_normals(r, s->wk[l], DD);
    }
    ar_rng_normals(r, s->x[0], ND);
}

/* ||dX_L/dW_l||_F^2 by central differences over every entry of W_l. */
static double finite_difference_square(const ar_layer_kind *kind, stack *s, int l)
{
    const double h = 1e-5;
    double plus[ND], total = 0;
    for (int e = 0; e < DD; ++e) {
        double saved = s->w[l][e];
        s->w[l][e] = saved + h;
        memcpy(plus, forward(kind, s), sizeof plus);
        s->w[l][e] = saved - h;
        const double *minus = forward(kind, s);
        s->w[l][e] = saved;
        for (int i = 0; i < ND; ++i)
            total += ((plus[i] - minus[i]) / (2 * h)) * ((plus[i] - minus[i]) / (2 * h));
    }
    forward(kind, s);
    return total;
}

/* ||J_l||_F^2 = sum over the basis cotangents e_i of ||J_l^T e_i||^2: exact reverse mode. */
static void reverse_squares(const ar_layer_kind *kind, stack *s, double *squares)
{
    double g[ND], grad_w[DD];
    for (int l = 0; l < L; ++l)
        squares[l] = 0;
    for (int i = 0; i < ND; ++i) {
        memset(g, 0, sizeof g);
        g[i] = 1;
        for (int l = L - 1; l >= 0; --l) {
            ar_layer_backward(kind, &s->tape[l], s->x[l + 1], g, grad_w, work);
            for (int e = 0; e < DD; ++e)
                squares[l] += grad_w[e] * grad_w[e];
        }
    }
}

static void check_variant(const char *name, ar_layer_kind kind, uint64_t seed)
{
    stack *s = calloc(1, sizeof *s);
    ar_rng r;
    ar_rng_init(&r, seed, 1, 1, 0);
    draw(&r, s);
    CHECK(ar_layer_workspace(&kind) <= sizeof work / sizeof work[0]);
    forward(&kind, s);
    double exact[L];
    reverse_squares(&kind, s, exact);
    const int probes = 4000;
    double *probe_work = malloc(ar_probe_workspace(&kind, L, probes) * sizeof(double));
    double norm[L], se[L];
    ar_probe_gradient_norms(&kind, L, s->tape, s->x[L], probes, &r, norm, se, probe_work);
    for (int l = 0; l < L; ++l) {
        double fd = finite_difference_square(&kind, s, l);
        printf("%-22s layer %d: finite differences %.10f, reverse mode %.10f, probes %.6f +- %.6f\n", name, l,
               sqrt(fd), sqrt(exact[l]), norm[l], se[l]);
        CHECK_NEAR(exact[l], fd, 1e-6 * fd);
        CHECK(se[l] > 0);
        CHECK_NEAR(norm[l], sqrt(exact[l]), 5 * se[l]);
    }
    free(probe_work);
    free(s);
}

/* LayerNorm with torch's eps: a row of variance 2/3 is divided by sqrt(2/3 + eps); a row
 * of variance below eps is shrunk, not normalised; eps = 0 is the exact normalisation. */
static void layernorm_eps_by_hand(void)
{
    ar_layer_kind kind = {.n = 2, .d = 3, .branch_scale = 1, .residual = 1, .layernorm = 1, .layernorm_eps = 1e-5};
    /* residual with A = 0, W = 0: out = LayerNorm(X) */
    double x[6] = {1, 2, 3, 0, 1e-4, 2e-4}, a[4] = {0}, y[6], w[9] = {0}, out[6], sigma[2];
    ar_layer_tape tape = {.x = x, .a = a, .y = y, .w = w, .inv_sigma = sigma};
    ar_layer_forward(&kind, &tape, out, work);
    double big = 1 / sqrt(2.0 / 3 + 1e-5), small = 1e-4 / sqrt(2e-8 / 3 + 1e-5);
    CHECK_NEAR(out[0], -big, 1e-14);
    CHECK_NEAR(out[1], 0, 1e-14);
    CHECK_NEAR(out[2], big, 1e-14);
    CHECK_NEAR(out[3], -small, 1e-14);
    CHECK_NEAR(out[5], small, 1e-14);
    CHECK(small < 0.04); /* shrunk: without eps it would be sqrt(3/2) */
    CHECK_NEAR(sigma[1], 1 / sqrt(2e-8 / 3 + 1e-5), 1e-9);
    kind.layernorm_eps = 0;
    ar_layer_forward(&kind, &tape, out, work);
    CHECK_NEAR(out[5], sqrt(1.5), 1e-12);
}

int main(void)
{
    check_register_families();
    layernorm_eps_by_hand();
    ar_layer_kind base = {.n = N, .d = D, .branch_scale = 1};
    ar_layer_kind layernorm = base, plain = base, upscaled = base, keyquery = base, everything = base;
    layernorm.layernorm = 1;
    plain.residual = 1;
    upscaled.residual = 1;
    upscaled.branch_scale = 1 / sqrt((double)D);
    keyquery.keyquery = 1;
    everything.keyquery = everything.remove_gap = everything.residual = everything.layernorm = 1;
    ar_layer_kind eps = layernorm, eps_everything = everything;
    eps.layernorm_eps = 0.5; /* of the order of the rows' variance here: it changes the derivative */
    eps_everything.layernorm_eps = 0.5;
    check_variant("linear", base, 1);
    check_variant("layernorm", layernorm, 2);
    check_variant("skip", plain, 3);
    check_variant("upscaled skip", upscaled, 4);
    check_variant("key-query", keyquery, 5);
    check_variant("key-query gap skip LN", everything, 6);
    check_variant("layernorm eps", eps, 8);
    check_variant("key-query gap skip LN eps", eps_everything, 9);
    /* the authors' block with its skip and no MLP returns its output doubled: the reverse
     * mode through the doubling (and LayerNorm's backward on the doubled output) */
    ar_layer_kind doubled = plain, doubled_everything = eps_everything;
    doubled.doubled = doubled_everything.doubled = 1;
    check_variant("authors' doubled skip", doubled, 10);
    check_variant("key-query gap doubled skip LN eps", doubled_everything, 11);
    stack *twice = calloc(2, sizeof *twice);
    ar_rng rd;
    ar_rng_init(&rd, 7, 8, 0, 0);
    draw(&rd, &twice[0]);
    twice[1] = twice[0];
    ar_layer_kind one_layer = eps_everything;
    ar_layer_tape t0 = {.x = twice[0].x[0], .a = twice[0].a[0], .y = twice[0].y[0], .w = twice[0].w[0],
                        .wq = twice[0].wq[0], .wk = twice[0].wk[0], .q = twice[0].q[0], .k = twice[0].k[0],
                        .inv_sigma = twice[0].sigma[0]};
    ar_layer_tape t1 = {.x = twice[1].x[0], .a = twice[1].a[0], .y = twice[1].y[0], .w = twice[1].w[0],
                        .wq = twice[1].wq[0], .wk = twice[1].wk[0], .q = twice[1].q[0], .k = twice[1].k[0],
                        .inv_sigma = twice[1].sigma[0]};
    ar_layer_forward(&one_layer, &t0, twice[0].x[1], work);
    one_layer.doubled = 1;
    ar_layer_forward(&one_layer, &t1, twice[1].x[1], work);
    for (int i = 0; i < ND; ++i)
        CHECK(twice[1].x[1][i] == 2 * twice[0].x[1][i]);
    free(twice);

    /* The linear stack: probes, closed form and the reverse mode agree. */
    stack *s = calloc(1, sizeof *s);
    ar_rng r;
    ar_rng_init(&r, 7, 7, 7, 0);
    draw(&r, s);
    forward(&base, s);
    double closed[L], exact[L], scratch[64];
    ar_linear_stack_gradient_norms(N, D, L, &s->a[0][0], &s->y[0][0], &s->w[0][0], closed, scratch);
    reverse_squares(&base, s, exact);
    for (int l = 0; l < L; ++l)
        CHECK_NEAR(closed[l], sqrt(exact[l]), 1e-12 * closed[l]);
    free(s);
    return check_report("layer");
}
