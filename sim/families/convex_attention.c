/* convex_attention: the convex program against the attention network it replaces
 * (claims C1-C3). One trial is one instance: N samples of n tokens in dimension d with
 * iid N(0, 1) entries, targets from a planted teacher on a few token positions plus
 * noise, or iid N(0, 1). The group lasso is solved to a certified relative duality gap;
 * the network with h heads is trained from `starts` random starts; the network built
 * from the convex solution is evaluated. beta is given as a fraction of beta_max, the
 * smallest beta at which Z = 0 is optimal, so one grid fits every instance. */
#include "attnrank/convex.h"
#include "attnrank/families/convex.h"
#include "attnrank/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const double GAP_TOL = 1e-9, REACHED = 1e-6;

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
    [AR_CONVEX_ITERATIONS] = {"iterations", AR_PARAM_INT, 200000, 1, 100000000, 0, NULL, "FISTA's iteration cap", 1},
    [AR_CONVEX_NET_ITERATIONS] = {"net_iterations", AR_PARAM_INT, 5000, 1, 100000000, 0, NULL, "projected-gradient iteration cap per start", 1},
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
static int planted(const ar_point *p) { return ar_point_choice(p, AR_CONVEX_TARGETS) == AR_CONVEX_TARGETS_PLANTED; }
static int token_hist(const ar_point *p) { return ar_point_int(p, AR_CONVEX_TOKENS); }

typedef struct {
    double *x, *y, *z, *teacher, *solver, *net_work, *objectives;
    ar_network net, grad, trial;
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
    l->net_work = ar_carve(&c, ar_network_workspace(N, n, d, h) * D);
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
    return 2000 * 2 * N * n * d + starts * 500 * 6 * N * n * d * h;
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
    for (int o = 0; o < 10; ++o)
        out[o] = NAN;
    draw_instance(p, rng, &l, planted_at);
    ar_convex_problem prob = {N, n, d, l.x, l.y, 0};
    prob.beta = ar_point_real(p, AR_CONVEX_BETA) * ar_convex_beta_max(&prob, l.z);
    memset(l.z, 0, (size_t)n * d * sizeof *l.z);
    ar_convex_result res;
    if (ar_convex_solve(&prob, GAP_TOL, ar_point_int(p, AR_CONVEX_ITERATIONS), l.z, l.solver, &res) != 0)
        return 1;
    double y2 = 0;
    for (int i = 0; i < N; ++i)
        y2 += 0.5 * l.y[i] * l.y[i];
    double optimum = res.primal, unit = fmax(optimum, 1e-12 * y2); /* relative measures' denominator */
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
    int starts = ar_point_int(p, AR_CONVEX_STARTS);
    if (starts == 0)
        return 0;
    int reached = 0;
    for (int s = 0; s < starts; ++s) {
        random_start(rng, n, d, &l.net);
        l.objectives[s] = ar_network_train(&prob, &l.net, &l.grad, &l.trial, ar_point_int(p, AR_CONVEX_NET_ITERATIONS),
                                           l.net_work);
        reached += (l.objectives[s] - optimum) / unit <= REACHED;
    }
    qsort(l.objectives, (size_t)starts, sizeof *l.objectives, compare);
    double median = starts % 2 ? l.objectives[starts / 2]
                               : 0.5 * (l.objectives[starts / 2 - 1] + l.objectives[starts / 2]);
    out[AR_CONVEX_OUT_NETWORK_EXCESS] = (l.objectives[0] - optimum) / unit;
    out[AR_CONVEX_OUT_NETWORK_MEDIAN_EXCESS] = (median - optimum) / unit;
    out[AR_CONVEX_OUT_FRACTION_REACHED] = (double)reached / starts;
    out[AR_CONVEX_OUT_CONVEX_MINUS_BEST] = (optimum - l.objectives[0]) / unit;
    return 0;
}

static const ar_output outputs[] = {
    [AR_CONVEX_OUT_CONVEX_OPTIMUM] = {"convex_optimum", "P(Z) at the convex solution (certified by the duality gap)"},
    [AR_CONVEX_OUT_DUALITY_GAP] = {"duality_gap", "relative duality gap (P - dual) / max(P, 1e-6 P(0)) at the solution (stops below 1e-9)"},
    [AR_CONVEX_OUT_ACTIVE_TOKENS] = {"active_tokens", "token positions k with z_k != 0", token_hist},
    [AR_CONVEX_OUT_ITERATIONS] = {"iterations", "FISTA iterations"},
    [AR_CONVEX_OUT_PLANTED_FOUND] = {"planted_found", "1 if every planted position is active in the convex solution, else 0", NULL, planted},
    [AR_CONVEX_OUT_MAPPED_ERROR] = {"mapped_error", "|objective of the network built from Z - P| / P (heads >= active positions)"},
    [AR_CONVEX_OUT_NETWORK_EXCESS] = {"network_excess", "(best network objective over the starts - P) / P", NULL, trains},
    [AR_CONVEX_OUT_NETWORK_MEDIAN_EXCESS] = {"network_median_excess", "(median network objective over the starts - P) / P", NULL, trains},
    [AR_CONVEX_OUT_FRACTION_REACHED] = {"fraction_reached", "fraction of starts within 1e-6 (relative) of P", NULL, trains},
    [AR_CONVEX_OUT_CONVEX_MINUS_BEST] = {"convex_minus_best", "(P - best network objective) / P: how far the network got below the convex optimum",
     NULL, trains},
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
