/* convex: the group soft-threshold on a hand case; the simplex projection against a
 * bisection reference and its KKT conditions; the duality gap never negative and
 * closing to zero on a least-squares problem with a known solution; the network built
 * from Z reproducing P(Z); the network's gradient against finite differences; the
 * softmax attention network: its gradient against finite differences, with W_Q = W_K
 * = 0 and no bias it is the relaxed network with uniform attention rows, and L-BFGS
 * drives its gradient to the tolerance. */
#include "attnrank/convex.h"
#include "attnrank/softmax_network.h"
#include "check.h"

#include <stdlib.h>

static void soft_threshold(void)
{
    double z[6] = {3, 4, 0.3, 0.4, -6, 8};
    ar_group_soft_threshold(3, 2, z, 2);
    CHECK_NEAR(z[0], 1.8, 1e-15); /* ||(3, 4)|| = 5: scaled by 1 - 2/5 */
    CHECK_NEAR(z[1], 2.4, 1e-15);
    CHECK(z[2] == 0 && z[3] == 0); /* norm 0.5 < 2: the whole group vanishes */
    CHECK_NEAR(z[4], -4.8, 1e-15); /* norm 10: scaled by 0.8 */
    CHECK_NEAR(z[5], 6.4, 1e-15);
    double keep[2] = {1, -2};
    ar_group_soft_threshold(1, 2, keep, 0);
    CHECK(keep[0] == 1 && keep[1] == -2);
}

/* theta with sum max(v - theta, 0) = 1, by bisection: an independent reference. */
static double threshold_by_bisection(int n, const double *v)
{
    double lo = -1e3, hi = 1e3;
    for (int it = 0; it < 200; ++it) {
        double mid = 0.5 * (lo + hi), sum = 0;
        for (int j = 0; j < n; ++j)
            sum += v[j] > mid ? v[j] - mid : 0;
        if (sum > 1)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void simplex_projection(void)
{
    ar_rng rng;
    ar_rng_init(&rng, 4, 4, 4, 0);
    double v[9], x[9], work[9];
    for (int rep = 0; rep < 200; ++rep) {
        int n = 1 + rep % 9;
        ar_rng_normals(&rng, v, (size_t)n);
        for (int j = 0; j < n; ++j)
            v[j] *= rep % 3 ? 1 : 50; /* some far from the simplex */
        memcpy(x, v, sizeof x);
        ar_project_simplex(n, x, work);
        double theta = threshold_by_bisection(n, v), sum = 0;
        for (int j = 0; j < n; ++j) {
            CHECK(x[j] >= 0);
            sum += x[j];
            CHECK_NEAR(x[j], v[j] > theta ? v[j] - theta : 0, 1e-9);
            /* KKT: x_j = v_j - theta where x_j > 0, and v_j <= theta where x_j = 0 */
            if (x[j] > 0)
                CHECK_NEAR(v[j] - x[j], theta, 1e-9);
            else
                CHECK(v[j] <= theta + 1e-9);
        }
        CHECK_NEAR(sum, 1, 1e-12);
    }
    double inside[3] = {0.2, 0.3, 0.5};
    ar_project_simplex(3, inside, work);
    CHECK_NEAR(inside[0], 0.2, 1e-15); /* a point of the simplex stays */
}

static void duality_gap(void)
{
    enum { N = 5, n = 4, d = 3 }; /* N < n d: D has full row rank, least squares fits exactly */
    double x[N * n * d], y[N], z[n * d], scratch[n * d];
    double *work = malloc(ar_convex_workspace(N, n, d) * sizeof *work);
    ar_rng rng;
    ar_rng_init(&rng, 8, 8, 8, 0);
    ar_rng_normals(&rng, x, N * n * d);
    ar_rng_normals(&rng, y, N);
    ar_convex_problem p = {N, n, d, x, y, 0};
    ar_convex_result res;
    /* beta = 0: P* = 0, reached; the gap certifies it */
    memset(z, 0, sizeof z);
    CHECK(ar_convex_solve(&p, 1e-13, 100000, z, work, &res) == 0);
    printf("least squares: P = %.3g, gap %.3g after %d iterations\n", res.primal, res.gap, res.iterations);
    CHECK(res.gap >= 0 && res.gap < 1e-13 && res.primal < 1e-12);
    /* beta > 0: the gap is >= 0 at every stage and falls below the tolerance */
    p.beta = 0.3 * ar_convex_beta_max(&p, scratch);
    for (int cap = 1; cap <= 10000; cap *= 10) {
        memset(z, 0, sizeof z);
        CHECK(ar_convex_solve(&p, 1e-10, cap, z, work, &res) == 0);
        printf("beta = 0.3 beta_max, at most %5d iterations: P = %.15g, gap %.3g, %d active\n", cap, res.primal,
               res.gap, res.active);
        CHECK(res.gap >= 0 && res.dual <= res.primal);
    }
    CHECK(res.gap < 1e-10);
    /* beta >= beta_max: Z = 0 */
    p.beta = ar_convex_beta_max(&p, scratch) * 1.0001;
    memset(z, 0, sizeof z);
    CHECK(ar_convex_solve(&p, 1e-12, 1000, z, work, &res) == 0 && res.active == 0 && res.gap < 1e-12);
    free(work);
}

static void network_from_convex(void)
{
    enum { N = 7, n = 5, d = 3, H = 4 };
    double x[N * n * d], y[N], z[n * d], a[H * n], v[H * d], b[H], ga[H * n], gv[H * d], gb[H];
    double *work = malloc(ar_network_workspace(N, n, d, H) * sizeof *work);
    ar_rng rng;
    ar_rng_init(&rng, 9, 9, 9, 0);
    ar_rng_normals(&rng, x, N * n * d);
    ar_rng_normals(&rng, y, N);
    ar_rng_normals(&rng, z, n * d);
    memset(z + 1 * d, 0, d * sizeof *z); /* positions 1 and 3 inactive */
    memset(z + 3 * d, 0, d * sizeof *z);
    ar_convex_problem p = {N, n, d, x, y, 0.7};
    /* P(Z) directly */
    double loss = 0, penalty = 0;
    for (int i = 0; i < N; ++i) {
        double yhat = 0;
        for (int e = 0; e < n * d; ++e)
            yhat += z[e] * x[i * n * d + e];
        loss += 0.5 * (yhat - y[i]) * (yhat - y[i]);
    }
    for (int k = 0; k < n; ++k) {
        double norm = 0;
        for (int c = 0; c < d; ++c)
            norm += z[k * d + c] * z[k * d + c];
        penalty += sqrt(norm);
    }
    ar_network net = {H, a, v, b}, grad = {H, ga, gv, gb};
    CHECK(ar_network_from_convex(n, d, z, &net) == 0);
    double objective = ar_network_objective(&p, &net, NULL, work), direct = loss + p.beta * penalty;
    printf("mapped network %.15f, convex objective %.15f\n", objective, direct);
    CHECK_NEAR(objective, direct, 1e-12 * direct);
    ar_network two = {2, a, v, b};
    CHECK(ar_network_from_convex(n, d, z, &two) == -1); /* three active positions, two heads */

    /* The gradient against central differences, at a random interior point. */
    for (int j = 0; j < H; ++j) {
        double sum = 0;
        for (int k = 0; k < n; ++k)
            sum += a[j * n + k] = 0.1 + ar_rng_uniform(&rng);
        for (int k = 0; k < n; ++k)
            a[j * n + k] /= sum;
    }
    ar_rng_normals(&rng, v, H * d);
    ar_rng_normals(&rng, b, H);
    ar_network_objective(&p, &net, &grad, work);
    double *params[3] = {a, v, b}, *grads[3] = {ga, gv, gb};
    int sizes[3] = {H * n, H * d, H};
    double worst = 0;
    for (int s = 0; s < 3; ++s)
        for (int e = 0; e < sizes[s]; ++e) {
            double saved = params[s][e], h = 1e-6;
            params[s][e] = saved + h;
            double plus = ar_network_objective(&p, &net, NULL, work);
            params[s][e] = saved - h;
            double minus = ar_network_objective(&p, &net, NULL, work);
            params[s][e] = saved;
            double fd = (plus - minus) / (2 * h);
            worst = fmax(worst, fabs(fd - grads[s][e]) / fmax(1, fabs(fd)));
        }
    printf("network gradient: worst relative difference from finite differences %.2g\n", worst);
    CHECK(worst < 1e-6);
    free(work);
}

static void softmax_network(void)
{
    enum { N = 6, n = 4, d = 3, H = 2 };
    double x[N * n * d], y[N];
    ar_rng rng;
    ar_rng_init(&rng, 21, 2, 3, 0);
    ar_rng_normals(&rng, x, N * n * d);
    ar_rng_normals(&rng, y, N);
    ar_convex_problem p = {N, n, d, x, y, 0.3};
    for (int positional = 0; positional < 2; ++positional) {
        size_t size = ar_softmax_network_size(n, d, H, positional);
        double *theta = malloc(size * sizeof *theta), *grad = malloc(size * sizeof *grad);
        double *work = malloc(ar_softmax_network_workspace(N, n, d, H, positional) * sizeof *work);
        ar_rng_normals(&rng, theta, size);
        ar_softmax_network_objective(&p, H, positional, theta, grad, work);
        double worst = 0;
        for (size_t e = 0; e < size; ++e) {
            double saved = theta[e], h = 1e-6;
            theta[e] = saved + h;
            double plus = ar_softmax_network_objective(&p, H, positional, theta, NULL, work);
            theta[e] = saved - h;
            double minus = ar_softmax_network_objective(&p, H, positional, theta, NULL, work);
            theta[e] = saved;
            worst = fmax(worst, fabs((plus - minus) / (2 * h) - grad[e]) / fmax(1, fabs(grad[e])));
        }
        printf("softmax network (positional %d): worst relative gradient error %.2g\n", positional, worst);
        CHECK(worst < 1e-6);
        double largest;
        double f = ar_softmax_network_train(&p, H, positional, theta, 5000, 1e-9, &largest, work);
        printf("softmax network trained to %.10f, largest gradient entry %.2g\n", f, largest);
        /* The positional bias is free of weight decay: the infimum can lie at infinity
         * (attention rows tending to a vertex), where the gradient only decays. */
        CHECK(positional ? largest < 1e-6 : largest <= 1e-9);
        free(theta), free(grad), free(work);
    }
    /* W_Q = W_K = 0: every attention row is uniform, the relaxed network's a_j = 1/n. */
    size_t size = ar_softmax_network_size(n, d, H, 0), per_head = 2 * d * d + d + 1;
    double theta[2 * (2 * 9 + 3 + 1)] = {0}, a[H * n], v[H * d], b[H], work[4096];
    for (int j = 0; j < H; ++j) {
        for (int c = 0; c < d; ++c)
            theta[j * per_head + 2 * d * d + c] = v[j * d + c] = 0.5 + j - c;
        theta[j * per_head + per_head - 1] = b[j] = 1.5 - j;
        for (int k = 0; k < n; ++k)
            a[j * n + k] = 1.0 / n;
    }
    CHECK(size == sizeof theta / sizeof *theta && ar_softmax_network_workspace(N, n, d, H, 0) <= 4096);
    ar_network relaxed = {H, a, v, b};
    double softmax = ar_softmax_network_objective(&p, H, 0, theta, NULL, work);
    double *net_work = malloc(ar_network_workspace(N, n, d, H) * sizeof *net_work);
    double free_rows = ar_network_objective(&p, &relaxed, NULL, net_work);
    printf("uniform attention: softmax network %.15f, relaxed network %.15f\n", softmax, free_rows);
    CHECK_NEAR(softmax, free_rows, 1e-12 * free_rows);
    free(net_work);
}

int main(void)
{
    check_register_families();
    soft_threshold();
    simplex_projection();
    duality_gap();
    network_from_convex();
    softmax_network();
    return check_report("convex");
}
