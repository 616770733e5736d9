/* softmax_network: the softmax attention network of Eq. 3 for scalar targets and its
 * training by L-BFGS (see softmax_network.h). The sizes are small (n, d of a few
 * units): plain loops, no BLAS calls. */
#include "attnrank/softmax_network.h"

#include <math.h>
#include <string.h>

enum { PAIRS = 8 };

size_t ar_softmax_network_size(int tokens, int dim, int heads, int positional)
{
    return (size_t)heads * (2 * (size_t)dim * dim + dim + 1 + (positional ? tokens : 0));
}

/* Per-sample scratch: A for every head (h n^2), abar and p = X v for every head
 * (h n each), then Q, K, dQ, dK (n d each) and dS (n^2) for one head at a time, and
 * the heads' outputs abar . p (h). */
static size_t sample_scratch(int n, int d, int h)
{
    return (size_t)h * n * n + 2 * (size_t)h * n + 4 * (size_t)n * d + (size_t)n * n + (size_t)h;
}

size_t ar_softmax_network_workspace(int samples, int tokens, int dim, int heads, int positional)
{
    (void)samples;
    size_t size = ar_softmax_network_size(tokens, dim, heads, positional);
    /* the objective's scratch, then L-BFGS: the gradient, the trial point and its
     * gradient, the direction, the pairs s and y, rho and alpha */
    return sample_scratch(tokens, dim, heads) + 4 * size + 2 * PAIRS * size + 2 * PAIRS;
}

typedef struct {
    const double *wq, *wk, *v, *bias; /* bias: the positional bias u (n), or NULL */
    double b;
} head;

static size_t per_head(int n, int d, int positional) { return 2 * (size_t)d * d + d + 1 + (positional ? n : 0); }

static head head_at(const double *theta, int n, int d, int positional, int j)
{
    const double *base = theta + (size_t)j * per_head(n, d, positional);
    return (head){base, base + (size_t)d * d, base + 2 * (size_t)d * d,
                  positional ? base + 2 * (size_t)d * d + d + 1 : NULL, base[2 * d * d + d]};
}

/* out (n x d) = x (n x d) w (d x d) */
static void times(int n, int d, const double *x, const double *w, double *out)
{
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c) {
            double sum = 0;
            for (int e = 0; e < d; ++e)
                sum += x[i * d + e] * w[e * d + c];
            out[i * d + c] = sum;
        }
}

/* A = softmax_rows(Q K^T / sqrt(d) + 1 u^T), abar = its mean row, p = X v; returns abar . p. */
static double forward_head(int n, int d, const double *x, head hd, double *a, double *abar, double *p, double *q,
                           double *k)
{
    times(n, d, x, hd.wq, q);
    times(n, d, x, hd.wk, k);
    double scale = 1 / sqrt((double)d), out = 0;
    for (int r = 0; r < n; ++r) {
        double *row = a + (size_t)r * n, top = -INFINITY, sum = 0;
        for (int c = 0; c < n; ++c) {
            double s = 0;
            for (int e = 0; e < d; ++e)
                s += q[r * d + e] * k[c * d + e];
            row[c] = s * scale + (hd.bias ? hd.bias[c] : 0);
            top = row[c] > top ? row[c] : top;
        }
        for (int c = 0; c < n; ++c)
            sum += row[c] = exp(row[c] - top);
        for (int c = 0; c < n; ++c)
            row[c] /= sum;
    }
    for (int c = 0; c < n; ++c) {
        abar[c] = 0;
        for (int r = 0; r < n; ++r)
            abar[c] += a[(size_t)r * n + c] / n;
        p[c] = 0;
        for (int e = 0; e < d; ++e)
            p[c] += x[c * d + e] * hd.v[e];
        out += abar[c] * p[c];
    }
    return out;
}

double ar_softmax_network_objective(const ar_convex_problem *p, int heads, int positional, const double *theta,
                                    double *grad, double *work)
{
    int N = p->samples, n = p->tokens, d = p->dim, h = heads;
    size_t size = ar_softmax_network_size(n, d, h, positional), nn = (size_t)n * n, nd = (size_t)n * d;
    double *a = work, *abar = a + (size_t)h * nn, *pv = abar + (size_t)h * n, *q = pv + (size_t)h * n;
    double *k = q + nd, *dq = k + nd, *dk = dq + nd, *ds = dk + nd, *out = ds + nn;
    /* weight decay on W_Q, W_K, v, b; the positional bias, like the relaxation's
     * attention rows, is free */
    size_t decayed = 2 * (size_t)d * d + d + 1, stride = per_head(n, d, positional);
    double loss = 0, reg = 0;
    for (size_t e = 0; e < size; ++e)
        reg += e % stride < decayed ? theta[e] * theta[e] : 0;
    if (grad)
        for (size_t e = 0; e < size; ++e)
            grad[e] = e % stride < decayed ? p->beta * theta[e] : 0;
    for (int i = 0; i < N; ++i) {
        const double *x = p->x + (size_t)i * nd;
        double yhat = 0;
        for (int j = 0; j < h; ++j) {
            head hd = head_at(theta, n, d, positional, j);
            out[j] = forward_head(n, d, x, hd, a + j * nn, abar + (size_t)j * n, pv + (size_t)j * n, q, k);
            yhat += hd.b * out[j];
        }
        double r = yhat - p->y[i];
        loss += r * r;
        if (!grad)
            continue;
        for (int j = 0; j < h; ++j) {
            head hd = head_at(theta, n, d, positional, j);
            double *g = grad + (size_t)j * stride, *g_wq = g, *g_wk = g + (size_t)d * d;
            double *g_v = g + 2 * (size_t)d * d, *g_u = positional ? g + decayed : NULL;
            double coef = r * hd.b, scale = 1 / sqrt((double)d);
            const double *aj = a + j * nn, *abj = abar + (size_t)j * n, *pj = pv + (size_t)j * n;
            g[2 * d * d + d] += r * out[j];
            for (int c = 0; c < n; ++c)
                for (int e = 0; e < d; ++e)
                    g_v[e] += coef * abj[c] * x[c * d + e];
            /* the logits' gradient A_rc (dA_rc - sum_l A_rl dA_rl), dA_rc = coef p_c / n; u
             * takes its column sums, Q K^T its value over sqrt(d) (dS below) */
            for (int row = 0; row < n; ++row) {
                double mean = 0;
                for (int c = 0; c < n; ++c)
                    mean += aj[(size_t)row * n + c] * pj[c];
                for (int c = 0; c < n; ++c) {
                    double logit = aj[(size_t)row * n + c] * (pj[c] - mean) * coef / n;
                    if (g_u)
                        g_u[c] += logit;
                    ds[(size_t)row * n + c] = logit * scale;
                }
            }
            times(n, d, x, hd.wq, q);
            times(n, d, x, hd.wk, k);
            /* dQ = dS K, dK = dS^T Q */
            for (int row = 0; row < n; ++row)
                for (int e = 0; e < d; ++e) {
                    double sq = 0, sk = 0;
                    for (int c = 0; c < n; ++c) {
                        sq += ds[(size_t)row * n + c] * k[c * d + e];
                        sk += ds[(size_t)c * n + row] * q[c * d + e];
                    }
                    dq[row * d + e] = sq, dk[row * d + e] = sk;
                }
            /* dW_Q += X^T dQ, dW_K += X^T dK */
            for (int e = 0; e < d; ++e)
                for (int f = 0; f < d; ++f) {
                    double sq = 0, sk = 0;
                    for (int row = 0; row < n; ++row) {
                        sq += x[row * d + e] * dq[row * d + f];
                        sk += x[row * d + e] * dk[row * d + f];
                    }
                    g_wq[e * d + f] += sq, g_wk[e * d + f] += sk;
                }
        }
    }
    return 0.5 * loss + 0.5 * p->beta * reg;
}

static double dot(size_t count, const double *a, const double *b)
{
    double sum = 0;
    for (size_t i = 0; i < count; ++i)
        sum += a[i] * b[i];
    return sum;
}

static double largest(size_t count, const double *a)
{
    double top = 0;
    for (size_t i = 0; i < count; ++i)
        top = fabs(a[i]) > top ? fabs(a[i]) : top;
    return top;
}

/* dir = -H g by the two-loop recursion over the `stored` newest pairs (s, y) of the
 * ring, newest at slot `newest`, scaled by gamma = s.y / y.y of the newest. */
static void two_loop(size_t size, int stored, int newest, const double *s, const double *y, const double *rho,
                     double *alpha, const double *g, double *dir)
{
    for (size_t e = 0; e < size; ++e)
        dir[e] = -g[e];
    for (int m = 0; m < stored; ++m) {
        int slot = (newest - m + PAIRS) % PAIRS;
        alpha[slot] = rho[slot] * dot(size, s + slot * size, dir);
        for (size_t e = 0; e < size; ++e)
            dir[e] -= alpha[slot] * y[slot * size + e];
    }
    if (stored > 0) {
        const double *s_last = s + newest * size, *y_last = y + newest * size;
        double gamma = dot(size, s_last, y_last) / dot(size, y_last, y_last);
        for (size_t e = 0; e < size; ++e)
            dir[e] *= gamma;
    }
    for (int m = stored - 1; m >= 0; --m) {
        int slot = (newest - m + PAIRS) % PAIRS;
        double correction = rho[slot] * dot(size, y + slot * size, dir);
        for (size_t e = 0; e < size; ++e)
            dir[e] += (alpha[slot] - correction) * s[slot * size + e];
    }
}

/* Armijo backtracking along dir from theta, halving *step from its value until the
 * objective falls by 1e-4 step slope or the step is below 1e-20; the trial point and
 * its gradient are left in trial, grad. Returns the trial objective. */
static double armijo(const ar_convex_problem *p, int heads, int positional, const double *theta, const double *dir,
                     double f, double slope, double *step, double *trial, double *grad, double *scratch)
{
    size_t size = ar_softmax_network_size(p->tokens, p->dim, heads, positional);
    double f_new = INFINITY;
    for (; *step > 1e-20; *step /= 2) {
        for (size_t e = 0; e < size; ++e)
            trial[e] = theta[e] + *step * dir[e];
        f_new = ar_softmax_network_objective(p, heads, positional, trial, grad, scratch);
        if (f_new <= f + 1e-4 * *step * slope)
            break;
    }
    return f_new;
}

double ar_softmax_network_train(const ar_convex_problem *p, int heads, int positional, double *theta,
                                int max_iterations, double tol, double *grad_max, double *work)
{
    size_t size = ar_softmax_network_size(p->tokens, p->dim, heads, positional);
    double *scratch = work, *grad = scratch + sample_scratch(p->tokens, p->dim, heads), *trial = grad + size;
    double *trial_grad = trial + size, *dir = trial_grad + size, *s = dir + size, *y = s + PAIRS * size;
    double *rho = y + PAIRS * size, *alpha = rho + PAIRS;
    /* grad and trial_grad swap roles */
    double *g = grad, *g_new = trial_grad;
    double f = ar_softmax_network_objective(p, heads, positional, theta, g, scratch);
    int stored = 0, newest = -1;
    for (int it = 0; it < max_iterations && largest(size, g) > tol; ++it) {
        two_loop(size, stored, newest, s, y, rho, alpha, g, dir);
        double slope = dot(size, g, dir);
        if (!(slope < 0)) { /* not a descent direction: restart from the gradient */
            stored = 0;
            for (size_t e = 0; e < size; ++e)
                dir[e] = -g[e];
            slope = dot(size, g, dir);
        }
        double step = stored == 0 ? fmin(1, 1 / sqrt(-slope)) : 1, f_new = armijo(p, heads, positional, theta, dir, f, slope, &step, trial, g_new, scratch);
        if (!(step > 1e-20) && stored > 0) { /* the quasi-Newton direction failed: once more along -g */
            stored = 0;
            for (size_t e = 0; e < size; ++e)
                dir[e] = -g[e];
            slope = dot(size, g, dir);
            step = fmin(1, 1 / sqrt(-slope));
            f_new = armijo(p, heads, positional, theta, dir, f, slope, &step, trial, g_new, scratch);
        }
        if (!(step > 1e-20))
            break; /* no descent left at any step size */
        /* the new pair, kept only with positive curvature; a full memory drops its oldest
         * pair first, since the new one is written over it */
        int slot = (newest + 1) % PAIRS;
        double *s_new = s + slot * size, *y_new = y + slot * size;
        for (size_t e = 0; e < size; ++e) {
            s_new[e] = trial[e] - theta[e];
            y_new[e] = g_new[e] - g[e];
        }
        stored = stored < PAIRS ? stored : PAIRS - 1;
        double curvature = dot(size, s_new, y_new);
        if (curvature > 1e-12 * sqrt(dot(size, s_new, s_new) * dot(size, y_new, y_new))) {
            rho[slot] = 1 / curvature;
            newest = slot;
            stored++;
        }
        memcpy(theta, trial, size * sizeof *theta);
        double *swap = g;
        g = g_new, g_new = swap;
        f = f_new;
    }
    *grad_max = largest(size, g);
    return f;
}

int ar_softmax_network_active_tokens(const ar_convex_problem *p, int heads, int positional, const double *theta,
                                     double share, double *work)
{
    int N = p->samples, n = p->tokens, d = p->dim, h = heads;
    size_t nn = (size_t)n * n, nd = (size_t)n * d;
    double *a = work, *abar = a + (size_t)h * nn, *pv = abar + (size_t)h * n, *q = pv + (size_t)h * n, *k = q + nd;
    double *weight = k + nd; /* n, in the dQ slot */
    memset(weight, 0, (size_t)n * sizeof *weight);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < h; ++j) {
            head hd = head_at(theta, n, d, positional, j);
            forward_head(n, d, p->x + (size_t)i * nd, hd, a, abar, pv, q, k);
            double norm = sqrt(dot((size_t)d, hd.v, hd.v)) * fabs(hd.b);
            for (int c = 0; c < n; ++c)
                weight[c] += norm * abar[c] / N;
        }
    double total = 0;
    for (int c = 0; c < n; ++c)
        total += weight[c];
    int active = 0;
    for (int c = 0; c < n; ++c)
        active += total > 0 && weight[c] >= share * total;
    return active;
}
