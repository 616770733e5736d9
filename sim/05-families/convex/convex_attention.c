/* convex_attention: the convex program against the attention network it replaces
 * (claims C1-C4). One trial is one instance: N samples of n tokens in dimension d with
 * iid N(0, 1) entries, targets from a planted teacher on a few token positions plus
 * noise, or iid N(0, 1). The group lasso is solved to a certified relative duality gap;
 * the relaxed network (free attention rows on the simplex) with h heads is trained
 * from `starts` random starts, and its best start's stationarity measured; the network
 * built from the convex solution is evaluated; the real softmax attention network
 * (softmax_network.h) with h heads is trained by L-BFGS from `softmax_starts` starts.
 * beta is given as a fraction of beta_max, the smallest beta at which Z = 0 is
 * optimal, so one grid fits every instance. */
#include "attnrank/convex.h"
#include "attnrank/softmax_network.h"
#include "convex/convex.h"
#include "attnrank/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* A start is stationary when its projected gradient's largest entry is below
 * STATIONARY times the convex optimum; the softmax network's L-BFGS stops at a gradient
 * of SOFTMAX_TOL times it. A position is active in the softmax network when it carries
 * ACTIVE_SHARE of the output weight. */
static const double GAP_TOL = 1e-9, REACHED = 1e-6, STATIONARY = 1e-6, SOFTMAX_TOL = 1e-8, ACTIVE_SHARE = 0.01;

static const char *const positions[] = {[AR_CONVEX_POSITIONS_NONE] = "none", [AR_CONVEX_POSITIONS_BIAS] = "bias", NULL};
static const char *const targets[] = {[AR_CONVEX_TARGETS_PLANTED] = "planted", [AR_CONVEX_TARGETS_RANDOM] = "random", NULL};

static const ar_param params[] = {
    [AR_CONVEX_SAMPLES] = {"N", AR_PARAM_INT, 6, 1, 1000, 0, NULL, "samples"},
    [AR_CONVEX_TOKENS] = {"n", AR_PARAM_INT, 4, 1, 256, 0, NULL, "tokens per sample"},
    [AR_CONVEX_DIM] = {"d", AR_PARAM_INT, 3, 1, 256, 0, NULL, "token dimension"},
    [AR_CONVEX_HEADS] = {"h", AR_PARAM_INT, 0, 0, 2000, 0, NULL, "heads of the network; 0 means N + 1 (enough for C1)"},
    [AR_CONVEX_BETA] = {"beta", AR_PARAM_REAL, 0.1, 0, 1, 0, NULL, "regularisation as a fraction of beta_max = max_k ||(D^T y)_k||"},
    [AR_CONVEX_TARGETS] = {"targets", AR_PARAM_CHOICE, AR_CONVEX_TARGETS_PLANTED, 0, 0, 0, targets,
     "planted: y = sum over `planted` random positions k of z*_k . x_k (z* iid N(0, 1)) + noise; random: iid N(0, 1)"},
    [AR_CONVEX_PLANTED] = {"planted", AR_PARAM_INT, 2, 1, 256, 0, NULL, "token positions of the planted teacher"},
    [AR_CONVEX_NOISE] = {"noise", AR_PARAM_REAL, 0.1, 0, 1e6, 0, NULL, "standard deviation of the planted targets' noise"},
    [AR_CONVEX_STARTS] = {"starts", AR_PARAM_INT, 20, 0, 100000, 0, NULL, "random starts of the network (0: convex side only)"},
    [AR_CONVEX_ITERATIONS] = {"iterations", AR_PARAM_INT, 200000, 1, 100000000, 0, NULL, "FISTA's iteration cap; a trial whose duality gap is not certified (1e-9) by then fails", 1},
    [AR_CONVEX_NET_ITERATIONS] = {"net_iterations", AR_PARAM_INT, 5000, 1, 100000000, 0, NULL, "projected-gradient iteration cap per start", 1},
    [AR_CONVEX_SOFTMAX_STARTS] = {"softmax_starts", AR_PARAM_INT, 0, 0, 100000, 0, NULL,
     "random starts of the softmax attention network (0: not trained); drawn after everything else, so the "
     "instance and the other outputs do not depend on it", 1},
    [AR_CONVEX_POSITIONS] = {"positions", AR_PARAM_CHOICE, AR_CONVEX_POSITIONS_BIAS, 0, 0, 0, positions,
     "the softmax network's notion of position: none (Eq. 3 as printed: permutation-equivariant, it cannot "
     "pick positions), or bias: a learned logit bias per key position and head, free like the relaxation's "
     "attention rows; the same instances either way", 1},
    [AR_CONVEX_SOFTMAX_ITERATIONS] = {"softmax_iterations", AR_PARAM_INT, 3000, 1, 100000000, 0, NULL, "L-BFGS iteration cap per softmax start", 1},
};

static int heads_of(const ar_point *p)
{
    int h = ar_point_int(p, AR_CONVEX_HEADS);
    return h == 0 ? ar_point_int(p, AR_CONVEX_SAMPLES) + 1 : h;
}

static int check(const ar_point *p, char *why, size_t len)
{
    if (ar_point_choice(p, AR_CONVEX_TARGETS) == AR_CONVEX_TARGETS_PLANTED && ar_point_int(p, AR_CONVEX_PLANTED) > ar_point_int(p, AR_CONVEX_TOKENS)) {
        snprintf(why, len, "more planted positions (%d) than tokens (%d)", ar_point_int(p, AR_CONVEX_PLANTED),
                 ar_point_int(p, AR_CONVEX_TOKENS));
        return AR_CONVEX_PLANTED;
    }
    return -1;
}

static int trains(const ar_point *p) { return ar_point_int(p, AR_CONVEX_STARTS) > 0; }
static int trains_softmax(const ar_point *p) { return ar_point_int(p, AR_CONVEX_SOFTMAX_STARTS) > 0; }
static int positional(const ar_point *p) { return ar_point_choice(p, AR_CONVEX_POSITIONS) == AR_CONVEX_POSITIONS_BIAS; }
static int planted(const ar_point *p) { return ar_point_choice(p, AR_CONVEX_TARGETS) == AR_CONVEX_TARGETS_PLANTED; }
static int token_hist(const ar_point *p) { return ar_point_int(p, AR_CONVEX_TOKENS); }

typedef struct {
    double *x, *y, *z, *teacher, *solver, *net_work, *objectives, *theta, *best_theta, *softmax_work, *sort;
    ar_network net, grad, trial, best;
    int *order;
} layout;

static void carve_network(ar_carver *c, int heads, int n, int d, ar_network *net)
{
    net->heads = heads;
    net->a = ar_carve(c, (size_t)heads * n * sizeof(double));
    net->v = ar_carve(c, (size_t)heads * d * sizeof(double));
    net->b = ar_carve(c, (size_t)heads * sizeof(double));
}

static size_t carve(const ar_point *p, char *base, layout *l)
{
    int N = ar_point_int(p, AR_CONVEX_SAMPLES), n = ar_point_int(p, AR_CONVEX_TOKENS), d = ar_point_int(p, AR_CONVEX_DIM), h = heads_of(p);
    size_t D = sizeof(double), nd = (size_t)n * d;
    ar_carver c = {base, 0};
    l->x = ar_carve(&c, (size_t)N * nd * D);
    l->y = ar_carve(&c, (size_t)N * D);
    l->z = ar_carve(&c, nd * D);
    l->teacher = ar_carve(&c, nd * D);
    l->solver = ar_carve(&c, ar_convex_workspace(N, n, d) * D);
    carve_network(&c, h, n, d, &l->net);
    carve_network(&c, h, n, d, &l->grad);
    carve_network(&c, h, n, d, &l->trial);
    carve_network(&c, h, n, d, &l->best);
    l->net_work = ar_carve(&c, ar_network_workspace(N, n, d, h) * D);
    l->sort = ar_carve(&c, (size_t)n * D);
    int softmax = ar_point_int(p, AR_CONVEX_SOFTMAX_STARTS) > 0, bias = positional(p);
    l->theta = ar_carve(&c, softmax ? ar_softmax_network_size(n, d, h, bias) * D : 0);
    l->best_theta = ar_carve(&c, softmax ? ar_softmax_network_size(n, d, h, bias) * D : 0);
    l->softmax_work = ar_carve(&c, softmax ? ar_softmax_network_workspace(N, n, d, h, bias) * D : 0);
    l->objectives = ar_carve(&c, (size_t)ar_point_int(p, AR_CONVEX_STARTS) * D);
    l->order = ar_carve(&c, (size_t)n * sizeof(int));
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double N = ar_point_int(p, AR_CONVEX_SAMPLES), n = ar_point_int(p, AR_CONVEX_TOKENS), d = ar_point_int(p, AR_CONVEX_DIM);
    double h = heads_of(p), starts = ar_point_int(p, AR_CONVEX_STARTS);
    double softmax = ar_point_int(p, AR_CONVEX_SOFTMAX_STARTS), per_eval = 8 * N * h * (n * n * d + n * d * d + n * n);
    /* L-BFGS often runs to its cap: with the free positional bias the optimum can lie at
     * infinity; two evaluations an iteration on average */
    double iterations = fmin(ar_point_int(p, AR_CONVEX_SOFTMAX_ITERATIONS), 1000);
    return 2000 * 2 * N * n * d + starts * 500 * 6 * N * n * d * h + softmax * iterations * 2 * per_eval;
}

/* Largest entry of the projected gradient of the relaxed network at net: for the
 * attention rows a_j - proj_simplex(a_j - grad a_j), for v and b the gradient itself.
 * Zero exactly at a first-order stationary point (KKT). */
static double projected_gradient(const ar_convex_problem *prob, const ar_network *net, layout *l, int n, int d)
{
    ar_network_objective(prob, net, &l->grad, l->net_work);
    double top = 0;
    for (int j = 0; j < net->heads; ++j) {
        double *row = l->trial.a + (size_t)j * n;
        for (int k = 0; k < n; ++k)
            row[k] = net->a[(size_t)j * n + k] - l->grad.a[(size_t)j * n + k];
        ar_project_simplex(n, row, l->sort);
        for (int k = 0; k < n; ++k)
            top = fmax(top, fabs(net->a[(size_t)j * n + k] - row[k]));
        for (int c = 0; c < d; ++c)
            top = fmax(top, fabs(l->grad.v[(size_t)j * d + c]));
        top = fmax(top, fabs(l->grad.b[j]));
    }
    return top;
}

/* A random start of the softmax network: W_Q, W_K, v iid N(0, 1/d), b iid N(0, 1),
 * the positional bias iid N(0, 1). */
static void softmax_start(ar_rng *rng, int n, int d, int heads, int bias, double *theta)
{
    size_t weights = 2 * (size_t)d * d + d, per_head = weights + 1 + (bias ? n : 0);
    for (int j = 0; j < heads; ++j) {
        double *head = theta + (size_t)j * per_head;
        for (size_t e = 0; e < weights; ++e)
            head[e] = ar_rng_normal(rng) / sqrt((double)d);
        for (size_t e = weights; e < per_head; ++e)
            head[e] = ar_rng_normal(rng);
    }
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The instance: X, and y from the planted teacher or iid. */
static void draw_instance(const ar_point *p, ar_rng *rng, const layout *l, int *planted_at)
{
    int N = ar_point_int(p, AR_CONVEX_SAMPLES), n = ar_point_int(p, AR_CONVEX_TOKENS), d = ar_point_int(p, AR_CONVEX_DIM);
    size_t nd = (size_t)n * d;
    ar_rng_normals(rng, l->x, (size_t)N * nd);
    if (!planted(p)) {
        ar_rng_normals(rng, l->y, (size_t)N);
        return;
    }
    int s = ar_point_int(p, AR_CONVEX_PLANTED);
    for (int k = 0; k < n; ++k)
        l->order[k] = k;
    for (int k = 0; k < s; ++k) { /* the first s of a random permutation */
        int j = k + (int)(ar_rng_uniform(rng) * (n - k));
        int swap = l->order[k];
        l->order[k] = l->order[j];
        l->order[j] = swap;
    }
    memset(l->teacher, 0, nd * sizeof *l->teacher);
    for (int k = 0; k < s; ++k) {
        planted_at[k] = l->order[k];
        ar_rng_normals(rng, l->teacher + (size_t)l->order[k] * d, (size_t)d);
    }
    double noise = ar_point_real(p, AR_CONVEX_NOISE);
    for (int i = 0; i < N; ++i) {
        double yi = 0;
        for (size_t e = 0; e < nd; ++e)
            yi += l->teacher[e] * l->x[(size_t)i * nd + e];
        l->y[i] = yi + noise * ar_rng_normal(rng);
    }
}

/* A random start: rows of A uniform on the simplex (normalised exponentials), v_j iid
 * N(0, 1/d), b_j iid N(0, 1). */
static void random_start(ar_rng *rng, int n, int d, ar_network *net)
{
    for (int j = 0; j < net->heads; ++j) {
        double *a = net->a + (size_t)j * n, sum = 0;
        for (int k = 0; k < n; ++k)
            sum += a[k] = -log(ar_rng_uniform(rng));
        for (int k = 0; k < n; ++k)
            a[k] /= sum;
        for (int c = 0; c < d; ++c)
            net->v[(size_t)j * d + c] = ar_rng_normal(rng) / sqrt((double)d);
        net->b[j] = ar_rng_normal(rng);
    }
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    int N = ar_point_int(p, AR_CONVEX_SAMPLES), n = ar_point_int(p, AR_CONVEX_TOKENS), d = ar_point_int(p, AR_CONVEX_DIM);
    int planted_at[256];
    for (int o = 0; o < AR_CONVEX_OUT_COUNT; ++o)
        out[o] = NAN;
    draw_instance(p, rng, &l, planted_at);
    ar_convex_problem prob = {N, n, d, l.x, l.y, 0};
    prob.beta = ar_point_real(p, AR_CONVEX_BETA) * ar_convex_beta_max(&prob, l.z);
    memset(l.z, 0, (size_t)n * d * sizeof *l.z);
    ar_convex_result res;
    /* Not certified within the iteration cap: there is no optimum to measure the network
     * against (C1lower would judge the iterate), so the trial fails, like a LAPACK routine
     * that does not converge. */
    if (ar_convex_solve(&prob, GAP_TOL, ar_point_int(p, AR_CONVEX_ITERATIONS), l.z, l.solver, &res) != 0 ||
        !(res.gap < GAP_TOL))
        return 1;
    double y2 = 0;
    for (int i = 0; i < N; ++i)
        y2 += 0.5 * l.y[i] * l.y[i];
    double optimum = res.primal, unit = fmax(optimum, AR_CONVEX_GAP_FLOOR * y2); /* the certificate's denominator */
    out[AR_CONVEX_OUT_CONVEX_OPTIMUM] = optimum; /* scalars only: out[] by the output enum */
    out[AR_CONVEX_OUT_DUALITY_GAP] = res.gap;
    out[AR_CONVEX_OUT_ACTIVE_TOKENS] = res.active;
    out[AR_CONVEX_OUT_ITERATIONS] = res.iterations;
    if (planted(p)) {
        int found = 1;
        for (int k = 0; k < ar_point_int(p, AR_CONVEX_PLANTED); ++k) {
            double norm = 0;
            for (int c = 0; c < d; ++c)
                norm += l.z[(size_t)planted_at[k] * d + c] * l.z[(size_t)planted_at[k] * d + c];
            found &= norm > 0;
        }
        out[AR_CONVEX_OUT_PLANTED_FOUND] = found;
    }
    if (ar_network_from_convex(n, d, l.z, &l.net) == 0)
        out[AR_CONVEX_OUT_MAPPED_ERROR] = fabs(ar_network_objective(&prob, &l.net, NULL, l.net_work) - optimum) / unit;
    int starts = ar_point_int(p, AR_CONVEX_STARTS), h = heads_of(p);
    if (starts > 0) {
        int reached = 0, best = 0;
        for (int s = 0; s < starts; ++s) {
            random_start(rng, n, d, &l.net);
            l.objectives[s] = ar_network_train(&prob, &l.net, &l.grad, &l.trial, ar_point_int(p, AR_CONVEX_NET_ITERATIONS),
                                               l.net_work);
            reached += (l.objectives[s] - optimum) / unit <= REACHED;
            if (s == 0 || l.objectives[s] < l.objectives[best]) {
                best = s;
                ar_network_copy(n, d, &l.net, &l.best);
            }
        }
        double stationarity = projected_gradient(&prob, &l.best, &l, n, d) / unit;
        qsort(l.objectives, (size_t)starts, sizeof *l.objectives, compare);
        double median = starts % 2 ? l.objectives[starts / 2]
                                   : 0.5 * (l.objectives[starts / 2 - 1] + l.objectives[starts / 2]);
        out[AR_CONVEX_OUT_NETWORK_EXCESS] = (l.objectives[0] - optimum) / unit;
        out[AR_CONVEX_OUT_NETWORK_MEDIAN_EXCESS] = (median - optimum) / unit;
        out[AR_CONVEX_OUT_FRACTION_REACHED] = (double)reached / starts;
        out[AR_CONVEX_OUT_CONVEX_MINUS_BEST] = (optimum - l.objectives[0]) / unit;
        out[AR_CONVEX_OUT_NETWORK_STATIONARITY] = stationarity;
        /* an unconverged best start is no witness of a gap */
        out[AR_CONVEX_OUT_STATIONARY_EXCESS] = stationarity <= STATIONARY ? out[AR_CONVEX_OUT_NETWORK_EXCESS] : 0;
    }
    int softmax_starts = ar_point_int(p, AR_CONVEX_SOFTMAX_STARTS);
    double best_objective = INFINITY, best_gradient = NAN;
    int bias = positional(p);
    size_t size = ar_softmax_network_size(n, d, h, bias);
    for (int s = 0; s < softmax_starts; ++s) {
        double gradient;
        softmax_start(rng, n, d, h, bias, l.theta);
        double f = ar_softmax_network_train(&prob, h, bias, l.theta, ar_point_int(p, AR_CONVEX_SOFTMAX_ITERATIONS),
                                            SOFTMAX_TOL * unit, &gradient, l.softmax_work);
        if (f < best_objective) {
            best_objective = f, best_gradient = gradient;
            memcpy(l.best_theta, l.theta, size * sizeof *l.theta);
        }
    }
    if (softmax_starts > 0 && isfinite(best_objective)) {
        out[AR_CONVEX_OUT_SOFTMAX_EXCESS] = (best_objective - optimum) / unit;
        out[AR_CONVEX_OUT_CONVEX_MINUS_SOFTMAX] = (optimum - best_objective) / unit;
        out[AR_CONVEX_OUT_SOFTMAX_GRADIENT] = best_gradient / unit;
        out[AR_CONVEX_OUT_SOFTMAX_ACTIVE_TOKENS] =
            ar_softmax_network_active_tokens(&prob, h, bias, l.best_theta, ACTIVE_SHARE, l.softmax_work);
    }
    return 0;
}

static const ar_output outputs[] = {
    [AR_CONVEX_OUT_CONVEX_OPTIMUM] = {"convex_optimum", "P(Z) at the convex solution (certified by the duality gap)",
     .range = ar_range_nonnegative /* a squared loss plus a sum of norms */},
    [AR_CONVEX_OUT_DUALITY_GAP] = {"duality_gap", "relative duality gap (P - dual) / max(P, 1e-6 P(0)) at the solution (stops below 1e-9)"},
    [AR_CONVEX_OUT_ACTIVE_TOKENS] = {"active_tokens", "token positions k with z_k != 0", token_hist},
    [AR_CONVEX_OUT_ITERATIONS] = {"iterations", "FISTA iterations", .range = ar_range_nonnegative},
    [AR_CONVEX_OUT_PLANTED_FOUND] = {"planted_found", "1 if every planted position is active in the convex solution, else 0", NULL, planted,
     .range = ar_range_unit},
    [AR_CONVEX_OUT_MAPPED_ERROR] = {"mapped_error", "|objective of the network built from Z - P| / P (heads >= active positions)",
     .range = ar_range_nonnegative /* an absolute value over P > 0 */},
    [AR_CONVEX_OUT_NETWORK_EXCESS] = {"network_excess", "(best network objective over the starts - P) / P", NULL, trains},
    [AR_CONVEX_OUT_NETWORK_MEDIAN_EXCESS] = {"network_median_excess", "(median network objective over the starts - P) / P", NULL, trains},
    [AR_CONVEX_OUT_FRACTION_REACHED] = {"fraction_reached", "fraction of starts within 1e-6 (relative) of P", NULL, trains,
     .range = ar_range_unit},
    [AR_CONVEX_OUT_CONVEX_MINUS_BEST] = {"convex_minus_best", "(P - best network objective) / P: how far the network got below the convex optimum",
     NULL, trains},
    [AR_CONVEX_OUT_NETWORK_STATIONARITY] = {"network_stationarity", "largest entry of the projected gradient at the best start, over P "
                "(0 at a first-order stationary point)", NULL, trains,
     .range = ar_range_nonnegative /* a largest |entry| over P > 0 */},
    [AR_CONVEX_OUT_STATIONARY_EXCESS] = {"stationary_excess", "network_excess where the best start is stationary (network_stationarity <= 1e-6), "
                "else 0: an unconverged start is no witness", NULL, trains},
    [AR_CONVEX_OUT_SOFTMAX_EXCESS] = {"softmax_excess", "(best softmax attention network objective over the softmax starts - P) / P; "
                "negative: softmax attention beats the relaxation", NULL, trains_softmax},
    [AR_CONVEX_OUT_CONVEX_MINUS_SOFTMAX] = {"convex_minus_softmax", "(P - best softmax objective) / P", NULL, trains_softmax},
    [AR_CONVEX_OUT_SOFTMAX_GRADIENT] = {"softmax_gradient", "largest gradient entry at the best softmax start, over P (L-BFGS stops at 1e-8)",
     NULL, trains_softmax, .range = ar_range_nonnegative /* a largest |entry| over P > 0 */},
    [AR_CONVEX_OUT_SOFTMAX_ACTIVE_TOKENS] = {"softmax_active_tokens", "token positions carrying >= 1% of the best softmax network's "
                "output weight (sum_j |b_j| ||v_j|| mean_i abar_j(X_i)_k)", token_hist, trains_softmax},
};

const ar_sim ar_sim_convex_attention = {
    .name = "convex_attention",
    .summary = "the convex (group lasso) reformulation of attention training against the network it replaces",
    AR_SIM_TABLES(params, outputs),
    .check = check,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
