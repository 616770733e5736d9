/* convex: the group-lasso program by FISTA with a duality-gap certificate, and the
 * attention network it replaces, trained by projected gradient (see convex.h). */
#include "attnrank/convex.h"

#include "attnrank/linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LANCZOS_STEPS = 60, GAP_EVERY = 10 };

void ar_group_soft_threshold(int tokens, int dim, double *z, double tau)
{
    for (int k = 0; k < tokens; ++k) {
        double *row = z + (size_t)k * dim, norm = 0;
        for (int c = 0; c < dim; ++c)
            norm += row[c] * row[c];
        norm = sqrt(norm);
        double scale = norm > tau ? 1 - tau / norm : 0;
        for (int c = 0; c < dim; ++c)
            row[c] *= scale;
    }
}

static int descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

void ar_project_simplex(int n, double *v, double *work)
{
    memcpy(work, v, (size_t)n * sizeof *v);
    qsort(work, (size_t)n, sizeof *work, descending);
    /* theta: the shift that leaves the largest entries summing to 1 */
    double sum = 0, theta = 0;
    for (int j = 0; j < n; ++j) {
        sum += work[j];
        double candidate = (sum - 1) / (j + 1);
        if (work[j] - candidate > 0)
            theta = candidate;
    }
    for (int j = 0; j < n; ++j)
        v[j] = v[j] > theta ? v[j] - theta : 0;
}

/* Largest ||row k|| of the n x d matrix g. */
static double largest_group_norm(int tokens, int dim, const double *g)
{
    double best = 0;
    for (int k = 0; k < tokens; ++k) {
        double norm = 0;
        for (int c = 0; c < dim; ++c)
            norm += g[(size_t)k * dim + c] * g[(size_t)k * dim + c];
        best = fmax(best, sqrt(norm));
    }
    return best;
}

double ar_convex_beta_max(const ar_convex_problem *p, double *work)
{
    int nd = p->tokens * p->dim;
    ar_gemv('T', p->samples, nd, 1.0, p->x, nd, p->y, 0.0, work);
    return largest_group_norm(p->tokens, p->dim, work);
}

size_t ar_convex_workspace(int samples, int tokens, int dim)
{
    size_t nd = (size_t)tokens * dim;
    /* z_old, w, g, Lanczos start (n d each); D z, D z_old, D w, r, r_w (N each); Lanczos */
    return 4 * nd + 5 * (size_t)samples + ar_top_singular_values_workspace(samples, (int)nd, LANCZOS_STEPS);
}

/* u = D z, touching only the active groups of z. */
static void design_times(const ar_convex_problem *p, const double *z, double *u)
{
    int nd = p->tokens * p->dim;
    memset(u, 0, (size_t)p->samples * sizeof *u);
    for (int k = 0; k < p->tokens; ++k) {
        const double *zk = z + (size_t)k * p->dim;
        int active = 0;
        for (int c = 0; c < p->dim; ++c)
            active |= zk[c] != 0;
        if (active)
            ar_gemv('N', p->samples, p->dim, 1.0, p->x + (size_t)k * p->dim, nd, zk, 1.0, u);
    }
}

/* P(z) from r = D z - y; *active gets the count of nonzero groups. */
static double primal_value(const ar_convex_problem *p, const double *z, const double *r, int *active)
{
    double loss = 0, penalty = 0;
    for (int i = 0; i < p->samples; ++i)
        loss += r[i] * r[i];
    *active = 0;
    for (int k = 0; k < p->tokens; ++k) {
        double norm = 0;
        for (int c = 0; c < p->dim; ++c)
            norm += z[(size_t)k * p->dim + c] * z[(size_t)k * p->dim + c];
        penalty += sqrt(norm);
        *active += norm > 0;
    }
    return 0.5 * loss + p->beta * penalty;
}

/* The dual bound at theta = s r, s chosen in the feasible range |s| <= beta / max_k
 * ||(D^T r)_k|| to maximise -s^2 ||r||^2 / 2 - s r.y. g: scratch (n d). */
static double dual_bound(const ar_convex_problem *p, const double *r, double *g)
{
    int nd = p->tokens * p->dim;
    ar_gemv('T', p->samples, nd, 1.0, p->x, nd, r, 0.0, g);
    double top = largest_group_norm(p->tokens, p->dim, g), rr = 0, ry = 0;
    for (int i = 0; i < p->samples; ++i)
        rr += r[i] * r[i], ry += r[i] * p->y[i];
    double limit = top > 0 ? p->beta / top : (p->beta > 0 ? INFINITY : 0);
    double s = rr > 0 ? -ry / rr : 0;
    s = s > limit ? limit : s < -limit ? -limit : s;
    return -0.5 * s * s * rr - s * ry;
}

int ar_convex_solve(const ar_convex_problem *p, double tol, int max_iterations, double *z, double *work,
                    ar_convex_result *result)
{
    int N = p->samples, nd = p->tokens * p->dim;
    double *z_old = work, *w = z_old + nd, *g = w + nd, *start = g + nd;
    double *dz = start + nd, *dz_old = dz + N, *dw = dz_old + N, *r = dw + N, *rw = r + N, *lanczos = rw + N;
    /* L = ||D||_2^2 by Lanczos from a fixed start; a hair above it keeps 1/L a safe step */
    for (int i = 0; i < nd; ++i)
        start[i] = 1 + (i % 7) / 7.0;
    double sigma;
    if (ar_top_singular_values(N, nd, p->x, 1, start, LANCZOS_STEPS, 1e-12, &sigma, lanczos) < 0)
        return 1;
    double step = 1 / (sigma > 0 ? sigma * sigma * (1 + 1e-6) : 1);
    double scale = 0; /* P(0) = |y|^2 / 2: the floor of the relative gap's denominator */
    for (int i = 0; i < N; ++i)
        scale += 0.5 * p->y[i] * p->y[i];
    /* state: z with D z, its residual r and P(z); the extrapolated w with D w */
    design_times(p, z, dz);
    for (int i = 0; i < N; ++i)
        r[i] = dz[i] - p->y[i];
    double objective = primal_value(p, z, r, &result->active), t = 1;
    memcpy(w, z, (size_t)nd * sizeof *z);
    memcpy(dw, dz, (size_t)N * sizeof *dz);
    int it;
    for (it = 0;; ++it) {
        if (it % GAP_EVERY == 0 || it == max_iterations) {
            result->primal = objective;
            result->dual = dual_bound(p, r, g);
            result->gap = (objective - result->dual) / fmax(objective, 1e-6 * scale);
            if (result->gap < tol || it == max_iterations)
                break;
        }
        for (int i = 0; i < N; ++i)
            rw[i] = dw[i] - p->y[i];
        ar_gemv('T', N, nd, 1.0, p->x, nd, rw, 0.0, g); /* the gradient at w */
        memcpy(z_old, z, (size_t)nd * sizeof *z);
        memcpy(dz_old, dz, (size_t)N * sizeof *dz);
        for (int i = 0; i < nd; ++i)
            z[i] = w[i] - step * g[i];
        ar_group_soft_threshold(p->tokens, p->dim, z, step * p->beta);
        design_times(p, z, dz);
        for (int i = 0; i < N; ++i)
            r[i] = dz[i] - p->y[i];
        int active;
        objective = primal_value(p, z, r, &active);
        result->active = active;
        /* Gradient restart (O'Donoghue and Candes): when the step from w points against
         * the last move, drop the momentum. It needs no objective comparison, so the
         * iterates keep converging after the objective has stopped changing in double
         * precision, which the duality gap needs. */
        double against = 0;
        for (int i = 0; i < nd; ++i)
            against += (w[i] - z[i]) * (z[i] - z_old[i]);
        double t_next = (1 + sqrt(1 + 4 * t * t)) / 2, momentum = (t - 1) / t_next;
        if (against > 0)
            t_next = 1, momentum = 0;
        for (int i = 0; i < nd; ++i)
            w[i] = z[i] + momentum * (z[i] - z_old[i]);
        for (int i = 0; i < N; ++i)
            dw[i] = dz[i] + momentum * (dz[i] - dz_old[i]); /* D w, by linearity: no pass over D */
        t = t_next;
    }
    result->iterations = it;
    return 0;
}

size_t ar_network_workspace(int samples, int tokens, int dim, int heads)
{
    size_t nh = (size_t)samples * tokens * heads;
    /* P = X V^T and W (N n x h each), S (N x h), r (N), the simplex sort (n) */
    (void)dim;
    return 2 * nh + (size_t)samples * heads + (size_t)samples + (size_t)tokens;
}

double ar_network_objective(const ar_convex_problem *p, const ar_network *net, ar_network *grad, double *work)
{
    int N = p->samples, n = p->tokens, d = p->dim, h = net->heads;
    size_t nh = (size_t)N * n * h;
    double *pv = work, *weights = pv + nh, *s = weights + nh, *r = s + (size_t)N * h;
    /* P[(i,k), j] = x_{i,k} . v_j: one gemm over all samples and tokens */
    ar_gemm_nt(N * n, h, d, p->x, net->v, pv);
    double loss = 0, reg = 0;
    for (int i = 0; i < N; ++i) {
        double yhat = 0;
        for (int j = 0; j < h; ++j) {
            double sij = 0; /* a_j^T X_i v_j */
            for (int k = 0; k < n; ++k)
                sij += net->a[(size_t)j * n + k] * pv[((size_t)i * n + k) * h + j];
            s[(size_t)i * h + j] = sij;
            yhat += net->b[j] * sij;
        }
        r[i] = yhat - p->y[i];
        loss += r[i] * r[i];
    }
    for (int j = 0; j < h; ++j) {
        reg += net->b[j] * net->b[j];
        for (int c = 0; c < d; ++c)
            reg += net->v[(size_t)j * d + c] * net->v[(size_t)j * d + c];
    }
    double objective = 0.5 * loss + 0.5 * p->beta * reg;
    if (!grad)
        return objective;
    for (int j = 0; j < h; ++j) {
        double gb = p->beta * net->b[j];
        for (int i = 0; i < N; ++i)
            gb += r[i] * s[(size_t)i * h + j];
        grad->b[j] = gb;
        for (int k = 0; k < n; ++k) {
            double ga = 0;
            for (int i = 0; i < N; ++i)
                ga += r[i] * pv[((size_t)i * n + k) * h + j];
            grad->a[(size_t)j * n + k] = net->b[j] * ga;
        }
    }
    /* dv_j = b_j sum_{i,k} r_i a_jk x_{i,k} + beta v_j: W[(i,k), j] = r_i a_jk b_j, then W^T X */
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < n; ++k)
            for (int j = 0; j < h; ++j)
                weights[((size_t)i * n + k) * h + j] = r[i] * net->a[(size_t)j * n + k] * net->b[j];
    ar_gemm('T', 'N', h, d, N * n, 1.0, weights, p->x, 0.0, grad->v);
    for (size_t e = 0; e < (size_t)h * d; ++e)
        grad->v[e] += p->beta * net->v[e];
    return objective;
}

static void copy_network(int n, int d, const ar_network *from, ar_network *to)
{
    memcpy(to->a, from->a, (size_t)from->heads * n * sizeof *to->a);
    memcpy(to->v, from->v, (size_t)from->heads * d * sizeof *to->v);
    memcpy(to->b, from->b, (size_t)from->heads * sizeof *to->b);
}

double ar_network_train(const ar_convex_problem *p, ar_network *net, ar_network *grad, ar_network *trial,
                        int max_iterations, double *work)
{
    int n = p->tokens, d = p->dim, h = net->heads;
    double *sort = work + ar_network_workspace(p->samples, n, d, h) - n;
    double f = ar_network_objective(p, net, grad, work), step = 1;
    for (int it = 0; it < max_iterations; ++it) {
        double f_trial = INFINITY, moved = 0;
        for (;;) { /* Armijo backtracking on the projected step */
            for (size_t e = 0; e < (size_t)h * n; ++e)
                trial->a[e] = net->a[e] - step * grad->a[e];
            for (int j = 0; j < h; ++j)
                ar_project_simplex(n, trial->a + (size_t)j * n, sort);
            for (size_t e = 0; e < (size_t)h * d; ++e)
                trial->v[e] = net->v[e] - step * grad->v[e];
            for (int j = 0; j < h; ++j)
                trial->b[j] = net->b[j] - step * grad->b[j];
            moved = 0;
            for (size_t e = 0; e < (size_t)h * n; ++e)
                moved += (trial->a[e] - net->a[e]) * (trial->a[e] - net->a[e]);
            for (size_t e = 0; e < (size_t)h * d; ++e)
                moved += (trial->v[e] - net->v[e]) * (trial->v[e] - net->v[e]);
            for (int j = 0; j < h; ++j)
                moved += (trial->b[j] - net->b[j]) * (trial->b[j] - net->b[j]);
            f_trial = ar_network_objective(p, trial, NULL, work);
            if (f_trial <= f - 1e-4 * moved / step || step < 1e-20)
                break;
            step /= 2;
        }
        if (!(f_trial < f))
            break; /* no descent left at any step size */
        copy_network(n, d, trial, net);
        double f_old = f;
        f = ar_network_objective(p, net, grad, work);
        step *= 2;
        if (f_old - f < 1e-13 * f)
            break;
    }
    return f;
}

int ar_network_from_convex(int tokens, int dim, const double *z, ar_network *net)
{
    int h = net->heads, j = 0;
    memset(net->a, 0, (size_t)h * tokens * sizeof *net->a);
    memset(net->v, 0, (size_t)h * dim * sizeof *net->v);
    memset(net->b, 0, (size_t)h * sizeof *net->b);
    for (int k = 0; k < tokens; ++k) {
        const double *zk = z + (size_t)k * dim;
        double norm = 0;
        for (int c = 0; c < dim; ++c)
            norm += zk[c] * zk[c];
        norm = sqrt(norm);
        if (norm == 0)
            continue;
        if (j == h)
            return -1;
        net->a[(size_t)j * tokens + k] = 1;
        for (int c = 0; c < dim; ++c)
            net->v[(size_t)j * dim + c] = zk[c] / sqrt(norm);
        net->b[j] = sqrt(norm);
        j++;
    }
    for (; j < h; ++j) /* unused heads: zero weights, any point of the simplex */
        for (int k = 0; k < tokens; ++k)
            net->a[(size_t)j * tokens + k] = 1.0 / tokens;
    return 0;
}
