/* equilibrium: certified fixed points of the LayerNorm attention map and the end-state
 * classifier (see equilibrium.h). Everything that decides a certificate is computed in
 * long double; LAPACK (double) only factors and decomposes the Jacobian, whose own
 * error is part of the margin. */
#include "attnrank/equilibrium.h"

#include "attnrank/convex.h"
#include "attnrank/linalg.h"
#include "attnrank/sim.h" /* the workspace carver */

#include <float.h>
#include <math.h>
#include <string.h>

enum { MAX_SIDE = 16, MAX_ND = MAX_SIDE * MAX_SIDE, NEWTON_STEPS = 40, HULL_STEPS = 20000 };
static const long double STEP = 1e-5L;       /* central differences of F */
static const double PROBE = 1e-3, LIPSCHITZ_SAFETY = 4, KANTOROVICH_MAX = 0.25, HEMISPHERE_MARGIN = 1e-12;

static const ar_equilibrium no_equilibrium = {.residual = NAN, .newton_step = NAN, .kantorovich = NAN,
                                               .lipschitz = NAN, .condition = NAN, .distance = NAN,
                                               .min_weight = NAN, .radius = NAN, .radius_bound = NAN, .rank = NAN};

typedef struct {
    long double *x, *fx, *plus, *f1, *f2;
    double *jac, *jac2, *a, *v, *wr, *wi, *rhs, *sv, *lapack;
    int *ipiv, *iwork;
} scratch;

static size_t carve(int n, int d, char *base, scratch *s)
{
    size_t nd = (size_t)n * d, L = sizeof(long double), D = sizeof(double);
    size_t lapack = ar_eigenvectors_workspace((int)nd);
    size_t svd = ar_singular_values_workspace((int)nd, (int)nd);
    lapack = lapack > svd ? lapack : svd;
    ar_carver c = {base, 0};
    s->x = ar_carve(&c, nd * L);
    s->fx = ar_carve(&c, nd * L);
    s->plus = ar_carve(&c, nd * L);
    s->f1 = ar_carve(&c, nd * L);
    s->f2 = ar_carve(&c, nd * L);
    s->jac = ar_carve(&c, nd * nd * D);
    s->jac2 = ar_carve(&c, nd * nd * D);
    s->a = ar_carve(&c, nd * nd * D);
    s->v = ar_carve(&c, nd * nd * D);
    s->wr = ar_carve(&c, nd * D);
    s->wi = ar_carve(&c, nd * D);
    s->rhs = ar_carve(&c, (nd + (size_t)n * n + 3 * (size_t)n + (size_t)d) * D); /* also the hemisphere test's */
    s->sv = ar_carve(&c, nd * D);
    s->lapack = ar_carve(&c, lapack * D);
    s->ipiv = ar_carve(&c, nd * sizeof(int));
    s->iwork = ar_carve(&c, 8 * nd * sizeof(int));
    return c.used;
}

size_t ar_equilibrium_workspace(int n, int d)
{
    scratch sizing;
    return carve(n, d, NULL, &sizing);
}

/* y = F(x) in long double; returns the smallest attention weight on an edge. */
static long double map_long(const ar_attention_map *map, const long double *x, long double *y)
{
    const ar_mask *mask = map->mask;
    int n = mask->n, d = map->d;
    long double q[MAX_ND], k[MAX_ND], least = 1, temperature = sqrtl((long double)d);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c) {
            long double sq = 0, sk = 0;
            for (int j = 0; j < d; ++j) {
                sq += x[i * d + j] * map->wq[j * d + c];
                sk += x[i * d + j] * map->wk[j * d + c];
            }
            q[i * d + c] = sq, k[i * d + c] = sk;
        }
    for (int i = 0; i < n; ++i) {
        long double scores[MAX_SIDE], top = -INFINITY, sum = 0, ax[MAX_SIDE] = {0}, norm = 0;
        int first = mask->row_start[i], count = mask->row_start[i + 1] - first;
        for (int e = 0; e < count; ++e) {
            long double s = 0;
            for (int c = 0; c < d; ++c)
                s += q[i * d + c] * k[mask->column[first + e] * d + c];
            scores[e] = s / temperature;
            top = scores[e] > top ? scores[e] : top;
        }
        for (int e = 0; e < count; ++e)
            sum += scores[e] = expl(scores[e] - top);
        for (int e = 0; e < count; ++e) {
            long double w = scores[e] / sum;
            least = w < least ? w : least;
            for (int c = 0; c < d; ++c)
                ax[c] += w * x[mask->column[first + e] * d + c];
        }
        for (int c = 0; c < d; ++c) {
            long double v = ax[c];
            if (map->wv) {
                v = 0;
                for (int j = 0; j < d; ++j)
                    v += ax[j] * map->wv[j * d + c];
            }
            y[i * d + c] = v;
            norm += v * v;
        }
        norm = sqrtl(norm);
        for (int c = 0; c < d && norm > 0; ++c)
            y[i * d + c] /= norm;
    }
    return least;
}

static double residual(const ar_attention_map *map, const long double *x, long double *fx)
{
    size_t nd = (size_t)map->mask->n * map->d;
    map_long(map, x, fx);
    long double total = 0;
    for (size_t i = 0; i < nd; ++i)
        total += (fx[i] - x[i]) * (fx[i] - x[i]);
    return (double)sqrtl(total);
}

/* What the long-double map handles: rows onto the sphere, n and d up to MAX_SIDE. */
static int supported(const ar_attention_map *map)
{
    return map->norm == AR_NORM_SPHERE && map->mask->n <= MAX_SIDE && map->d <= MAX_SIDE;
}

static int finite_state(int count, const double *x)
{
    for (int i = 0; i < count; ++i)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

double ar_min_attention_weight(const ar_attention_map *map, const double *x)
{
    if (!supported(map))
        return NAN;
    long double xl[MAX_ND], y[MAX_ND];
    for (int i = 0; i < map->mask->n * map->d; ++i)
        xl[i] = x[i];
    return (double)map_long(map, xl, y);
}

/* Central-difference Jacobian of F at x with step h (nd x nd, row-major: jac[i nd + e]
 * = dF_i / dx_e), differences taken in long double. */
static void jacobian(const ar_attention_map *map, const long double *x, long double h, double *jac, const scratch *s)
{
    size_t nd = (size_t)map->mask->n * map->d;
    memcpy(s->plus, x, nd * sizeof *x);
    for (size_t e = 0; e < nd; ++e) {
        s->plus[e] = x[e] + h;
        map_long(map, s->plus, s->f1);
        s->plus[e] = x[e] - h;
        map_long(map, s->plus, s->f2);
        s->plus[e] = x[e];
        for (size_t i = 0; i < nd; ++i)
            jac[i * nd + e] = (double)((s->f1[i] - s->f2[i]) / (2 * h));
    }
}

static double frobenius_difference(size_t count, const double *a, const double *b)
{
    double sum = 0;
    for (size_t i = 0; i < count; ++i)
        sum += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(sum);
}

/* a = jac - I, LU-factored; rhs = the Newton step -(J - I)^{-1} (F(x) - x). */
static int newton_step(int nd, const double *jac, const long double *x, const long double *fx, const scratch *s)
{
    memcpy(s->a, jac, (size_t)nd * nd * sizeof *jac);
    for (int i = 0; i < nd; ++i)
        s->a[(size_t)i * nd + i] -= 1;
    if (ar_lu_factor(nd, s->a, s->ipiv) != 0)
        return 1;
    for (int i = 0; i < nd; ++i)
        s->rhs[i] = (double)(x[i] - fx[i]);
    ar_lu_solve(nd, s->a, s->ipiv, s->rhs);
    return 0;
}

/* Newton's method on F(x) - x from s->x (in place); returns the final residual. */
static double polish(const ar_attention_map *map, const scratch *s)
{
    int nd = map->mask->n * map->d;
    double r = residual(map, s->x, s->fx);
    for (int step = 0; step < NEWTON_STEPS && r > 0 && isfinite(r); ++step) {
        jacobian(map, s->x, STEP, s->jac, s);
        residual(map, s->x, s->fx);
        if (newton_step(nd, s->jac, s->x, s->fx, s))
            break;
        for (int i = 0; i < nd; ++i)
            s->plus[i] = s->x[i] + s->rhs[i];
        double next = residual(map, s->plus, s->f1);
        if (!(next < r))
            break; /* no progress: keep the best point */
        memcpy(s->x, s->plus, (size_t)nd * sizeof *s->x);
        r = next;
    }
    return r;
}

/* Spectral radius of jac and the condition number of its eigenvector matrix; NaN if
 * LAPACK fails. */
static double radius_and_condition(int nd, const double *jac, const scratch *s, double *condition)
{
    memcpy(s->a, jac, (size_t)nd * nd * sizeof *jac);
    *condition = NAN;
    if (ar_eigenvectors(nd, s->a, s->wr, s->wi, s->v, s->lapack) != 0)
        return NAN;
    double radius = 0;
    for (int i = 0; i < nd; ++i)
        radius = fmax(radius, hypot(s->wr[i], s->wi[i]));
    if (ar_singular_values(nd, nd, s->v, s->sv, s->lapack, s->iwork) != 0)
        return NAN;
    *condition = s->sv[nd - 1] > 0 ? s->sv[0] / s->sv[nd - 1] : INFINITY;
    return radius;
}

/* The probe direction for K: fixed, spread over every coordinate, no randomness. */
static int probe_entry(int i) { return ((i * 7919) % 17) - 8; }

/* A bound on the logits |x_i W_Q W_K^T x_j| / sqrt(d) at unit rows: the rounding of F's
 * differences grows with it. */
static double logit_bound(const ar_attention_map *map)
{
    int d = map->d;
    double q = 0, k = 0;
    for (int i = 0; i < d * d; ++i)
        q += map->wq[i] * map->wq[i], k += map->wk[i] * map->wk[i];
    return sqrt(q * k / d);
}

/* 2-norm of the n x n matrix a (copied to b, which is destroyed), raised by LAPACK's
 * backward error (8 n u of itself); NaN if the SVD fails. */
static double norm2_above(int n, const double *a, double *b, const scratch *s)
{
    memcpy(b, a, (size_t)n * n * sizeof *a);
    if (ar_singular_values(n, n, b, s->sv, s->lapack, s->iwork) != 0)
        return NAN;
    return s->sv[0] * (1 + 8.0 * n * DBL_EPSILON);
}

/* A bound on the spectral radius of the exact Jacobian J + E (||E||_2 <= error) that
 * needs no eigenvectors. Bauer-Fike's kappa(V) is unbounded where J is defective, as at
 * the family's rank-1 state (a nilpotent block: LAPACK's kappa(V) anywhere from 3 to
 * 1e17 at rho = 0.875, by rounding). Here rho(J + E) <= ||(J + E)^k||_2^(1/k) <=
 * (||J^k||_2 + (s + e)^k - s^k)^(1/k), s >= ||J||_2, e = error, for k = 1, 2, 4, ..., 64:
 * the least of them. J^k is formed by squaring in double; a product's rounding is at
 * most gamma |P||P| entrywise (gamma = (nd + 2) u), of 2-norm at most gamma ||P||_F^2,
 * and the error r carried in P becomes r (2 ||P||_F + r). jac2 and a are overwritten. */
static double power_radius_bound(int nd, const double *jac, double error, const scratch *s)
{
    size_t nn = (size_t)nd * nd;
    double gamma = (nd + 2) * DBL_EPSILON, *power = s->jac2, *next = s->a;
    double top = norm2_above(nd, jac, next, s), carried = 0;
    if (isnan(top))
        return NAN;
    double best = top + error;
    memcpy(power, jac, nn * sizeof *jac);
    for (int k = 2; k <= 64; k *= 2) {
        double frobenius = 0;
        for (size_t i = 0; i < nn; ++i)
            frobenius += power[i] * power[i];
        frobenius = sqrt(frobenius) * (1 + nd * DBL_EPSILON);
        ar_gemm_nn(nd, nd, nd, power, power, next);
        carried = carried * (2 * frobenius + carried) + gamma * frobenius * frobenius;
        memcpy(power, next, nn * sizeof *next);
        double norm = norm2_above(nd, power, next, s);
        if (isnan(norm) || !isfinite(carried))
            break;
        double spread = pow(top + error, k) - pow(top, k); /* what E can add to J^k */
        best = fmin(best, pow(norm + carried + spread, 1.0 / k));
    }
    return best;
}

static void certify(const ar_attention_map *map, const double *start, ar_equilibrium *eq, const scratch *s)
{
    int n = map->mask->n, d = map->d, nd = n * d;
    size_t nn = (size_t)nd * nd;
    eq->residual = residual(map, s->x, s->fx);
    eq->min_weight = (double)map_long(map, s->x, s->fx);
    long double distance = 0;
    for (int i = 0; i < nd; ++i)
        distance += (s->x[i] - start[i]) * (s->x[i] - start[i]);
    eq->distance = (double)sqrtl(distance);
    jacobian(map, s->x, STEP, s->jac, s);
    if (newton_step(nd, s->jac, s->x, s->fx, s))
        return;
    double eta = 0;
    for (int i = 0; i < nd; ++i)
        eta += s->rhs[i] * s->rhs[i];
    eq->newton_step = eta = sqrt(eta);
    /* K: the change of J over a probe step in one fixed direction, with a safety factor
     * (an estimate, not a bound) */
    long double norm = 0, *probed = s->fx; /* fx is free again: F(X*) is no longer needed */
    for (int i = 0; i < nd; ++i)
        norm += (long double)probe_entry(i) * probe_entry(i);
    for (int i = 0; i < nd; ++i)
        probed[i] = s->x[i] + PROBE * (probe_entry(i) / sqrtl(norm));
    jacobian(map, probed, STEP, s->a, s);
    eq->lipschitz = LIPSCHITZ_SAFETY * frobenius_difference(nn, s->a, s->jac) / PROBE;
    /* The Jacobian's error E: truncation (Richardson: J_h - J_2h is 3 times J_h's), the
     * rounding of F's differences (growing with the logits) and of storing J in double,
     * and the distance to the exact fixed point (K times 2 eta). */
    jacobian(map, s->x, 2 * STEP, s->jac2, s);
    double jnorm = 0;
    for (size_t i = 0; i < nn; ++i)
        jnorm += s->jac[i] * s->jac[i];
    jnorm = sqrt(jnorm);
    double rounding = nd * (64.0 * nd * LDBL_EPSILON * (1 + logit_bound(map)) / STEP);
    double error = frobenius_difference(nn, s->jac, s->jac2) + rounding + jnorm * DBL_EPSILON * nd +
                   eq->lipschitz * 2 * eta;
    /* beta = 1 / sigma_min(J - I), sigma_min lowered by ||E|| (Weyl) */
    memcpy(s->a, s->jac, nn * sizeof *s->a);
    for (int i = 0; i < nd; ++i)
        s->a[(size_t)i * nd + i] -= 1;
    if (ar_singular_values(nd, nd, s->a, s->sv, s->lapack, s->iwork) != 0)
        return;
    double beta = s->sv[nd - 1] > error ? 1 / (s->sv[nd - 1] - error) : INFINITY;
    eq->kantorovich = beta * eq->lipschitz * eta;
    eq->exists = eq->kantorovich <= KANTOROVICH_MAX;
    eq->radius = radius_and_condition(nd, s->jac, s, &eq->condition);
    double bauer_fike = eq->radius + sqrt(2.0) * eq->condition * error;
    /* the power bound (seven SVDs) only where Bauer-Fike does not decide */
    eq->radius_bound = bauer_fike < 1 ? bauer_fike : fmin(bauer_fike, power_radius_bound(nd, s->jac, error, s));
    eq->attracting = eq->radius_bound < 1;
    /* The start is in the basin if the ball around X* that holds it is contracting in
     * the eigenvector norm: there ||J||_V <= bauer_fike + kappa K r, and the ball of
     * 2-norm radius r = distance + 2 eta sits inside a V-ball of kappa r. (The power
     * bound says nothing about one step's contraction: it does not count here.) */
    double reach = eq->distance + 2 * eta;
    eq->basin = bauer_fike < 1 && eq->condition * eq->condition * eq->lipschitz * reach < (1 - bauer_fike) / 2;
    /* rank of X*: singular values above 1e-6 sigma_1 (the collapse threshold) and well
     * above the distances involved */
    for (int i = 0; i < nd; ++i)
        s->a[i] = (double)s->x[i];
    int m = n < d ? n : d;
    if (ar_singular_values(n, d, s->a, s->sv, s->lapack, s->iwork) == 0) {
        int rank = 0;
        for (int i = 0; i < m; ++i)
            rank += s->sv[i] > fmax(AR_COLLAPSED * s->sv[0], 10 * reach);
        eq->rank = s->sv[0] > 0 ? rank : 0;
    }
    eq->certified = eq->exists && eq->attracting && eq->min_weight >= AR_WEIGHT_FLOOR;
}

int ar_equilibrium_certify(const ar_attention_map *map, double *x, ar_equilibrium *eq, void *work)
{
    scratch s;
    int n = map->mask->n, d = map->d, nd = n * d;
    *eq = no_equilibrium;
    if (!supported(map) || !finite_state(nd, x))
        return 1;
    carve(n, d, work, &s);
    for (int i = 0; i < nd; ++i)
        s.x[i] = x[i];
    polish(map, &s);
    certify(map, x, eq, &s);
    for (int i = 0; i < nd; ++i)
        x[i] = (double)s.x[i];
    return isnan(eq->radius) || isnan(eq->rank);
}

/* All <v, x_i> > HEMISPHERE_MARGIN ||v||. */
static int separates(int n, int d, const double *x, const double *v)
{
    double norm = 0;
    for (int c = 0; c < d; ++c)
        norm += v[c] * v[c];
    norm = sqrt(norm);
    for (int i = 0; i < n; ++i) {
        double dot = 0;
        for (int c = 0; c < d; ++c)
            dot += v[c] * x[(size_t)i * d + c];
        if (!(dot > HEMISPHERE_MARGIN * norm))
            return 0;
    }
    return norm > 0;
}

int ar_open_hemisphere(int n, int d, const double *x, double *work)
{
    double *gram = work, *lambda = gram + (size_t)n * n, *grad = lambda + n, *sort = grad + n, *v = sort + n;
    /* The mean first: it decides most cases at once. */
    for (int c = 0; c < d; ++c) {
        v[c] = 0;
        for (int i = 0; i < n; ++i)
            v[c] += x[(size_t)i * d + c] / n;
    }
    if (separates(n, d, x, v))
        return 1;
    /* Gordan: either some v has <v, x_i> > 0 for all i, or 0 is in the convex hull of
     * the x_i. The min-norm point of the hull, v = X^T lambda (lambda on the simplex),
     * is such a v when it is not 0: projected gradient on 1/2 ||X^T lambda||^2. */
    ar_gemm_nt(n, n, d, x, x, gram);
    double trace = 0;
    for (int i = 0; i < n; ++i)
        trace += gram[(size_t)i * n + i], lambda[i] = 1.0 / n;
    for (int step = 1; step <= HULL_STEPS && trace > 0; ++step) {
        ar_gemv('N', n, n, 1.0, gram, n, lambda, 0.0, grad);
        for (int i = 0; i < n; ++i)
            lambda[i] -= grad[i] / trace; /* the trace bounds the largest eigenvalue */
        ar_project_simplex(n, lambda, sort);
        if (step % 100 == 0) {
            ar_gemv('T', n, d, 1.0, x, d, lambda, 0.0, v);
            if (separates(n, d, x, v))
                return 1;
        }
    }
    return 0;
}

ar_end_state ar_classify_end_state(const ar_attention_map *map, const double *x, int isometric, int connected,
                                   double polish_below, ar_equilibrium *eq, void *work)
{
    int n = map->mask->n, d = map->d;
    *eq = no_equilibrium;
    if (!supported(map) || !finite_state(n * d, x))
        return AR_END_UNSETTLED; /* nothing this module can certify */
    scratch s;
    carve(n, d, work, &s);
    /* Collapsed: to a rank-one subspace (sigma_2 < 1e-6 sigma_1), which takes in the
     * consensus and the antipodal states +-u that the sphere allows. */
    memcpy(s.a, x, (size_t)n * d * sizeof *x);
    if (ar_singular_values(n, d, s.a, s.sv, s.lapack, s.iwork) != 0)
        return AR_END_UNSETTLED;
    if (n < 2 || d < 2 || !(s.sv[0] > 0) || s.sv[1] < AR_COLLAPSED * s.sv[0])
        return AR_END_COLLAPSED;
    if (ar_min_attention_weight(map, x) < AR_WEIGHT_FLOOR)
        return AR_END_METASTABLE;
    if (isometric && connected && ar_open_hemisphere(n, d, x, s.rhs))
        return AR_END_METASTABLE;
    for (int i = 0; i < n * d; ++i)
        s.x[i] = x[i];
    if (!(residual(map, s.x, s.fx) < polish_below))
        return AR_END_UNSETTLED; /* too far from any fixed point for Newton to mean it */
    polish(map, &s);
    certify(map, x, eq, &s);
    return eq->certified && eq->basin && eq->rank >= 2 ? AR_END_CERTIFIED : AR_END_UNSETTLED;
}
