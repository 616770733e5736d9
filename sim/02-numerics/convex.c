/* convex: the group-lasso program by FISTA with a duality-gap certificate, and the
 * attention network it replaces, trained by projected gradient (see convex.h). */
#include "attnrank/convex.h"

#include "attnrank/linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GAP_EVERY = 10 };

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
    size_t nd = (size_t)tokens * dim, m = (size_t)samples < nd ? (size_t)samples : nd;
    /* z_old, w, g (n d each); D z, D z_old, D w, r, r_w (N each); ||D_k||_F and the
     * screened flags (n each); the Gram matrix's eigenvalues and their scratch */
    return 3 * nd + 5 * (size_t)samples + 2 * (size_t)tokens + m + ar_gram_eigenvalues_workspace(samples, (int)nd);
}

/* Gap-safe screening (Ndiaye, Fercoq, Gramfort, Salmon): the dual is 1-strongly concave,
 * so its optimum lies within sqrt(2 gap) of any feasible theta; a group whose
 * ||D_k^T theta|| + ||D_k||_F sqrt(2 gap) stays below beta is zero at the optimum and
 * can be dropped for good. g_theta = D^T theta. Returns the groups still alive. */
static int screen(const ar_convex_problem *p, double gap, const double *g, double theta_scale,
                  const double *block_norm, double *screened, double *z, double *w, double *z_old)
{
    double radius = sqrt(2 * (gap > 0 ? gap : 0));
    int alive = 0, d = p->dim;
    for (int k = 0; k < p->tokens; ++k) {
        if (screened[k])
            continue;
        double norm = 0;
        for (int c = 0; c < d; ++c)
            norm += g[(size_t)k * d + c] * g[(size_t)k * d + c];
        if (fabs(theta_scale) * sqrt(norm) + block_norm[k] * radius < p->beta) {
            screened[k] = 1;
            memset(z + (size_t)k * d, 0, (size_t)d * sizeof *z);
            memset(w + (size_t)k * d, 0, (size_t)d * sizeof *w);
            memset(z_old + (size_t)k * d, 0, (size_t)d * sizeof *z_old);
        } else {
            alive++;
        }
    }
    return alive;
}

/* u = D z: one pass over D while z is dense, only its active groups once it is sparse
 * (a strided gemv per group costs more than its share of a full pass). */
static void design_times(const ar_convex_problem *p, const double *z, double *u)
{
    int nd = p->tokens * p->dim, active = 0;
    for (int e = 0; e < nd; ++e)
        active += z[e] != 0;
    if (4 * active > nd) {
        ar_gemv('N', p->samples, nd, 1.0, p->x, nd, z, 0.0, u);
        return;
    }
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
 * ||(D^T r)_k|| to maximise -s^2 ||r||^2 / 2 - s r.y. On return g = D^T r (so
 * D^T theta = s g) and *scale_out = s. */
static double dual_bound(const ar_convex_problem *p, const double *r, double *g, double *scale_out)
{
    int nd = p->tokens * p->dim;
    ar_gemv('T', p->samples, nd, 1.0, p->x, nd, r, 0.0, g);
    double top = largest_group_norm(p->tokens, p->dim, g), rr = 0, ry = 0;
    for (int i = 0; i < p->samples; ++i)
        rr += r[i] * r[i], ry += r[i] * p->y[i];
    double limit = top > 0 ? p->beta / top : (p->beta > 0 ? INFINITY : 0);
    double s = rr > 0 ? -ry / rr : 0;
    s = s > limit ? limit : s < -limit ? -limit : s;
    *scale_out = s;
    return -0.5 * s * s * rr - s * ry;
}

int ar_convex_solve(const ar_convex_problem *p, double tol, int max_iterations, double *z, double *work,
                    ar_convex_result *result)
{
    int N = p->samples, nd = p->tokens * p->dim;
    double *z_old = work, *w = z_old + nd, *g = w + nd;
    double *dz = g + nd, *dz_old = dz + N, *dw = dz_old + N, *r = dw + N, *rw = r + N;
    double *block_norm = rw + N, *screened = block_norm + p->tokens, *eig = screened + p->tokens;
    /* L = ||D||_2^2, the largest eigenvalue of the smaller Gram matrix (D D^T or D^T D),
     * to machine precision; a hair above it keeps 1/L a safe step */
    int m = N < nd ? N : nd;
    if (ar_gram_eigenvalues(N, nd, p->x, eig, eig + m) != 0)
        return 1;
    double lipschitz = eig[m - 1];
    double step = 1 / (lipschitz > 0 ? lipschitz * (1 + 1e-9) : 1);
    for (int k = 0; k < p->tokens; ++k) {
        double sum = 0;
        for (int i = 0; i < N; ++i)
            for (int c = 0; c < p->dim; ++c) {
                double v = p->x[(size_t)i * nd + (size_t)k * p->dim + c];
                sum += v * v;
            }
        block_norm[k] = sqrt(sum); /* ||D_k||_F >= ||D_k||_2: a safe, cheap bound */
        screened[k] = 0;
    }
    int alive = p->tokens;
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
            double theta_scale;
            result->primal = objective;
            result->dual = dual_bound(p, r, g, &theta_scale);
            result->gap = (objective - result->dual) / fmax(objective, AR_CONVEX_GAP_FLOOR * scale);
            if (result->gap < tol || it == max_iterations)
                break;
            int before = alive;
            alive = screen(p, objective - result->dual, g, theta_scale, block_norm, screened, z, w, z_old);
            if (alive < before) { /* dropped groups may have held nonzeros: refresh D z, D w */
                design_times(p, z, dz);
                design_times(p, w, dw);
                for (int i = 0; i < N; ++i)
                    r[i] = dz[i] - p->y[i];
                objective = primal_value(p, z, r, &result->active);
            }
        }
        for (int i = 0; i < N; ++i)
            rw[i] = dw[i] - p->y[i];
        if (4 * alive > p->tokens) { /* the gradient at w: one pass, or the live groups only */
            ar_gemv('T', N, nd, 1.0, p->x, nd, rw, 0.0, g);
        } else {
            for (int k = 0; k < p->tokens; ++k)
                if (!screened[k])
                    ar_gemv('T', N, p->dim, 1.0, p->x + (size_t)k * p->dim, nd, rw, 0.0, g + (size_t)k * p->dim);
        }
        memcpy(z_old, z, (size_t)nd * sizeof *z);
        memcpy(dz_old, dz, (size_t)N * sizeof *dz);
        for (int k = 0; k < p->tokens; ++k)
            for (int c = 0; c < p->dim; ++c) {
                size_t e = (size_t)k * p->dim + c;
                z[e] = screened[k] ? 0 : w[e] - step * g[e];
            }
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

void ar_network_copy(int n, int d, const ar_network *from, ar_network *to)
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
        ar_network_copy(n, d, trial, net);
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
