/* equilibria: fixed points of self-attention dynamics with LayerNorm (claim M4).
 *
 * The map is F(X) = rows of A_G(X) X W_V projected onto the unit sphere (dynamics.h).
 * Each trial does two things with one draw of W_Q, W_K and W_V:
 *
 * A witness of rank k (value = "witness", complete mask). Take k random unit vectors
 * u_1..u_k (the rows of V, rank k) and n tokens x_i = u_{i mod k}. Under the complete
 * mask equal tokens have equal attention rows, so A X = B V with B_ab the weight row
 * a puts on the copies of u_b. Choosing
 *     W_V = I + V^T (P B^{-1} - P) V,   P = (V V^T)^{-1},
 * gives V W_V = B^{-1} V, hence A X W_V = X: an equilibrium of rank k (the u's are
 * orthonormal, so P = I up to round-off). It is certified numerically after a Newton
 * polish that removes the round-off of building W_V: the residual ||F(X) - X||_F, the
 * numerical rank, and the spectral radius of a central-difference Jacobian of F
 * (below 1: it attracts).
 *
 * The dynamics from a random start (unit rows), run for `layers` steps: whether they
 * escaped collapse (mu / ||X||_F >= 1e-6 at the end), and whether the end state is an
 * equilibrium, polished by Newton's method on F(X) - X with the same Jacobian
 * (residual < 1e-10 certifies it), with its rank and spectral radius. */
#include "attnrank/attention.h"
#include "attnrank/families/masks.h"
#include "attnrank/dynamics.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static const double CERTIFIED = 1e-10, COLLAPSED = 1e-6, MAX_CONDITION = 1e3;
enum { NEWTON_STEPS = 30, WITNESS_DRAWS = 100 };

static const char *const values[] = {[AR_EQUILIBRIA_VALUE_WITNESS] = "witness", [AR_EQUILIBRIA_VALUE_IDENTITY] = "identity", [AR_EQUILIBRIA_VALUE_ORTHOGONAL] = "orthogonal", [AR_EQUILIBRIA_VALUE_GAUSSIAN] = "gaussian", NULL};

static const ar_param params[] = {
    [AR_EQUILIBRIA_N] = {"n", AR_PARAM_INT, 4, 2, 16, 0, NULL, "tokens"},
    [AR_EQUILIBRIA_D] = {"d", AR_PARAM_INT, 4, 1, 16, 0, NULL, "width (n d <= 256: the Jacobian is dense)"},
    [AR_EQUILIBRIA_RANK] = {"rank", AR_PARAM_INT, 1, 1, 16, 0, NULL, "k: the rank of the witness equilibrium (value = witness)"},
    [AR_EQUILIBRIA_MASK] = {"mask", AR_PARAM_CHOICE, 0, 0, 0, 0, ar_mask_names,
     "mask graph (mask_dynamics' masks with their defaults w = 2, stride = 2, globals = 1, p = 0.5); the "
     "witness needs the complete mask"},
    [AR_EQUILIBRIA_SCALE] = {"scale", AR_PARAM_REAL, 0, 0, 1e4, 0, NULL,
     "standard deviation of the logits x_i W_Q W_K^T x_j^T / sqrt(d) at unit-norm tokens: W_Q, W_K entries iid "
     "N(0, scale); 0 means 1/d, the usual N(0, 1/d) initialisation"},
    [AR_EQUILIBRIA_VALUE] = {"value", AR_PARAM_CHOICE, AR_EQUILIBRIA_VALUE_WITNESS, 0, 0, 0, values,
     "W_V: built so that a random rank-k configuration is an equilibrium, the identity, Haar orthogonal, or "
     "iid N(0, 1/d)"},
    [AR_EQUILIBRIA_LAYERS] = {"layers", AR_PARAM_INT, 2000, 1, 1000000, 0, NULL, "steps of the dynamics from a random start"},
};

static int rank_max(const ar_point *p)
{
    int n = ar_point_int(p, AR_EQUILIBRIA_N), d = ar_point_int(p, AR_EQUILIBRIA_D);
    return n < d ? n : d;
}

static int check(const ar_point *p, char *why, size_t len)
{
    if (ar_point_int(p, AR_EQUILIBRIA_RANK) > rank_max(p)) {
        snprintf(why, len, "rank %d is more than min(n, d) = %d", ar_point_int(p, AR_EQUILIBRIA_RANK), rank_max(p));
        return AR_EQUILIBRIA_RANK;
    }
    if (ar_point_int(p, AR_EQUILIBRIA_N) * ar_point_int(p, AR_EQUILIBRIA_D) > 256) {
        snprintf(why, len, "n d = %d is more than 256 (the Jacobian is dense)", ar_point_int(p, AR_EQUILIBRIA_N) * ar_point_int(p, AR_EQUILIBRIA_D));
        return AR_EQUILIBRIA_D;
    }
    return -1;
}

static int has_witness(const ar_point *p)
{
    return ar_point_choice(p, AR_EQUILIBRIA_VALUE) == AR_EQUILIBRIA_VALUE_WITNESS && ar_point_choice(p, AR_EQUILIBRIA_MASK) == AR_MASK_COMPLETE;
}

static ar_mask_spec mask_spec(const ar_point *p)
{
    return (ar_mask_spec){.kind = (ar_mask_kind)ar_point_choice(p, AR_EQUILIBRIA_MASK), .n = ar_point_int(p, AR_EQUILIBRIA_N),
                          .half_width = 2, .stride = 2, .globals = 1, .probability = 0.5};
}

typedef struct {
    double *wq, *wk, *wv, *x, *fx, *plus, *minus, *jacobian, *lu, *wr, *wi, *eig_work, *weights, *map_work;
    double *v, *gram, *mix, *sv, *svd_work, *haar_work;
    int *ipiv, *iwork, *mask_storage;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    ar_mask_spec spec = mask_spec(p);
    size_t n = (size_t)spec.n, d = (size_t)ar_point_int(p, AR_EQUILIBRIA_D), nd = n * d, k = (size_t)ar_point_int(p, AR_EQUILIBRIA_RANK);
    size_t D = sizeof(double), m = (size_t)rank_max(p);
    ar_carver c = {base, 0};
    l->wq = ar_carve(&c, d * d * D);
    l->wk = ar_carve(&c, d * d * D);
    l->wv = ar_carve(&c, d * d * D);
    l->haar_work = ar_carve(&c, ar_haar_rows_workspace((int)d, (int)d) * D);
    l->x = ar_carve(&c, nd * D);
    l->fx = ar_carve(&c, nd * D);
    l->plus = ar_carve(&c, nd * D);
    l->minus = ar_carve(&c, nd * D);
    l->jacobian = ar_carve(&c, nd * nd * D);
    l->lu = ar_carve(&c, nd * nd * D);
    l->wr = ar_carve(&c, nd * D);
    l->wi = ar_carve(&c, nd * D);
    l->eig_work = ar_carve(&c, ar_eigenvalues_workspace((int)nd) * D);
    l->weights = ar_carve(&c, (size_t)ar_mask_max_edges(&spec) * D);
    l->map_work = ar_carve(&c, (3 * nd + n * n) * D);
    l->v = ar_carve(&c, k * d * D);
    l->gram = ar_carve(&c, k * k * D);
    l->mix = ar_carve(&c, 3 * k * k * D);
    l->sv = ar_carve(&c, m * D);
    l->svd_work = ar_carve(&c, ar_singular_values_workspace((int)n, (int)d) * D);
    l->ipiv = ar_carve(&c, nd * sizeof(int));
    l->iwork = ar_carve(&c, 8 * m * sizeof(int));
    l->mask_storage = ar_carve(&c, ar_mask_storage(&spec) * sizeof(int));
    return c.used;
}

static size_t workspace(const ar_point *p)
{
    layout sizing;
    return carve(p, NULL, &sizing);
}

static double cost(const ar_point *p)
{
    double n = ar_point_int(p, AR_EQUILIBRIA_N), d = ar_point_int(p, AR_EQUILIBRIA_D), nd = n * d;
    double step = 4 * n * n * d + 6 * n * d * d + 20 * n * n;
    return ar_point_int(p, AR_EQUILIBRIA_LAYERS) * step + 3 * (2 * nd * step + 30 * nd * nd * nd);
}

typedef struct {
    const ar_attention_map *map;
    const layout *l;
    int n, d;
} problem;

/* F(x) in long double (64-bit significands), written to fx rounded to double, and
 * ||F(x) - x||_F from the long double values. The certificate's residual must not be
 * round-off of F itself: a witness's W_V can have a norm of 1e4, and F evaluated in
 * double then has an error near 1e-11; here it is near 1e-14. (The map here always
 * projects rows onto the sphere, and n, d <= 16.) */
static double residual(const problem *pr, const double *x)
{
    const ar_attention_map *map = pr->map;
    const ar_mask *mask = map->mask;
    int n = pr->n, d = pr->d;
    long double q[16 * 16], k[16 * 16], y[16 * 16], total = 0;
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < d; ++c) {
            long double sq = 0, sk = 0;
            for (int j = 0; j < d; ++j) {
                sq += (long double)x[i * d + j] * map->wq[j * d + c];
                sk += (long double)x[i * d + j] * map->wk[j * d + c];
            }
            q[i * d + c] = sq, k[i * d + c] = sk;
        }
    for (int i = 0; i < n; ++i) {
        long double scores[16], top = -INFINITY, sum = 0, ax[16] = {0};
        int first = mask->row_start[i], count = mask->row_start[i + 1] - first;
        for (int e = 0; e < count; ++e) {
            long double s = 0;
            for (int c = 0; c < d; ++c)
                s += q[i * d + c] * k[mask->column[first + e] * d + c];
            scores[e] = s / sqrtl((long double)d);
            top = scores[e] > top ? scores[e] : top;
        }
        for (int e = 0; e < count; ++e)
            sum += scores[e] = expl(scores[e] - top);
        for (int e = 0; e < count; ++e)
            for (int c = 0; c < d; ++c)
                ax[c] += scores[e] / sum * x[mask->column[first + e] * d + c];
        long double norm = 0;
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
        for (int c = 0; c < d; ++c) {
            long double v = y[i * d + c] / sqrtl(norm) - x[i * d + c];
            pr->l->fx[i * d + c] = (double)(y[i * d + c] / sqrtl(norm));
            total += v * v;
        }
    }
    return (double)sqrtl(total);
}

/* Central-difference Jacobian of F at x (nd x nd, row-major: J[i][e] = dF_i / dx_e). */
static void jacobian(const problem *pr, const double *x)
{
    const layout *l = pr->l;
    size_t nd = (size_t)pr->n * pr->d;
    const double h = 1e-6;
    memcpy(l->plus, x, nd * sizeof *x);
    for (size_t e = 0; e < nd; ++e) {
        l->plus[e] = x[e] + h;
        ar_attention_map_apply(pr->map, l->plus, l->minus, l->weights, l->map_work);
        for (size_t i = 0; i < nd; ++i)
            l->jacobian[i * nd + e] = l->minus[i];
        l->plus[e] = x[e] - h;
        ar_attention_map_apply(pr->map, l->plus, l->minus, l->weights, l->map_work);
        for (size_t i = 0; i < nd; ++i)
            l->jacobian[i * nd + e] = (l->jacobian[i * nd + e] - l->minus[i]) / (2 * h);
        l->plus[e] = x[e];
    }
}

/* Spectral radius of the Jacobian at x; NaN if LAPACK fails. */
static double spectral_radius(const problem *pr, const double *x)
{
    const layout *l = pr->l;
    int nd = pr->n * pr->d;
    jacobian(pr, x);
    if (ar_eigenvalues(nd, l->jacobian, l->wr, l->wi, l->eig_work) != 0)
        return NAN;
    double radius = 0;
    for (int i = 0; i < nd; ++i)
        radius = fmax(radius, hypot(l->wr[i], l->wi[i]));
    return radius;
}

/* Newton's method on G(x) = F(x) - x from x (updated in place); returns the final residual. */
static double newton(const problem *pr, double *x)
{
    const layout *l = pr->l;
    int nd = pr->n * pr->d;
    double r = residual(pr, x);
    for (int step = 0; step < NEWTON_STEPS && r > 1e-14 && isfinite(r); ++step) {
        jacobian(pr, x);
        for (int i = 0; i < nd; ++i)
            l->jacobian[(size_t)i * nd + i] -= 1; /* dG = dF - I */
        if (ar_lu_factor(nd, l->jacobian, l->ipiv) != 0)
            break;
        residual(pr, x);
        for (int i = 0; i < nd; ++i)
            l->minus[i] = x[i] - l->fx[i]; /* -G */
        ar_lu_solve(nd, l->jacobian, l->ipiv, l->minus);
        for (int i = 0; i < nd; ++i)
            l->plus[i] = x[i] + l->minus[i];
        double next = residual(pr, l->plus);
        if (!(next < r))
            break; /* no progress: keep the best point */
        memcpy(x, l->plus, (size_t)nd * sizeof *x);
        r = next;
    }
    return r;
}

static double numerical_rank(const problem *pr, const double *x)
{
    const layout *l = pr->l;
    memcpy(l->plus, x, (size_t)pr->n * pr->d * sizeof *x);
    if (ar_singular_values(pr->n, pr->d, l->plus, l->sv, l->svd_work, l->iwork) != 0)
        return NAN;
    int m = pr->n < pr->d ? pr->n : pr->d;
    return l->sv[0] > 0 ? ar_numrank_abs(l->sv, m, 1e-8 * l->sv[0]) : 0;
}

static double mu_rel(int n, int d, const double *x)
{
    double spread, total;
    ar_consensus_sums(n, d, x, &spread, &total);
    return total > 0 ? sqrt(spread / total) : 0;
}

/* Inverse of the k x k matrix a into inv, through an LU (a destroyed). */
static int invert(int k, double *a, double *inv, int *ipiv, double *column)
{
    if (ar_lu_factor(k, a, ipiv) != 0)
        return 1;
    for (int j = 0; j < k; ++j) {
        for (int i = 0; i < k; ++i)
            column[i] = i == j;
        ar_lu_solve(k, a, ipiv, column);
        for (int i = 0; i < k; ++i)
            inv[(size_t)i * k + j] = column[i];
    }
    return 0;
}

/* The witness: x_i = u_{i mod k} and the W_V that makes it an equilibrium (see top). */
/* 1-norm of the k x k matrix a: the largest column sum of |a_ij|. */
static double norm1(int k, const double *a)
{
    double best = 0;
    for (int j = 0; j < k; ++j) {
        double sum = 0;
        for (int i = 0; i < k; ++i)
            sum += fabs(a[(size_t)i * k + j]);
        best = sum > best ? sum : best;
    }
    return best;
}

static int build_witness(const problem *pr, int k, ar_rng *rng)
{
    const layout *l = pr->l;
    int n = pr->n, d = pr->d;
    double *b = l->mix, *b_inv = b + (size_t)k * k, *p = b_inv + (size_t)k * k, *column = l->wr;
    /* Existence needs one witness: draw until B is well conditioned (cond_1 <= 1e3),
     * so that W_V's norm, and with it the round-off floor of the certificate, stays
     * small. A trial that finds none in WITNESS_DRAWS draws fails (and is counted). */
    int accepted = 0;
    for (int draw = 0; draw < WITNESS_DRAWS && !accepted; ++draw) {
        ar_rng_normals(rng, l->v, (size_t)k * d);
        if (ar_haar_rows(k, d, l->v, l->haar_work) != 0) /* orthonormal u's: V V^T = I */
            return 1;
        for (int i = 0; i < n; ++i)
            memcpy(l->x + (size_t)i * d, l->v + (size_t)(i % k) * d, (size_t)d * sizeof *l->x);
        /* B_ab = weight of token a on the copies of u_b (complete mask: row a's edges are 0..n-1). */
        const ar_attention_map identity = {pr->map->mask, d, pr->map->wq, pr->map->wk, NULL, AR_NORM_NONE, 1};
        ar_attention_map_apply(&identity, l->x, l->fx, l->weights, l->map_work);
        for (int a = 0; a < k; ++a)
            for (int c = 0; c < k; ++c) {
                double sum = 0;
                for (int j = c; j < n; j += k)
                    sum += l->weights[(size_t)a * n + j];
                b[(size_t)a * k + c] = sum;
            }
        double size = norm1(k, b);
        if (invert(k, b, b_inv, l->ipiv, column))
            continue;
        accepted = size * norm1(k, b_inv) <= MAX_CONDITION;
    }
    if (!accepted)
        return 1;
    ar_gemm_nt(k, k, d, l->v, l->v, l->gram);
    if (invert(k, l->gram, p, l->ipiv, column))
        return 1;
    /* M = P B^{-1} - P, then W_V = I + V^T M V. */
    ar_gemm_nn(k, k, k, p, b_inv, b);
    for (size_t i = 0; i < (size_t)k * k; ++i)
        b[i] -= p[i];
    ar_gemm_nn(k, d, k, b, l->v, l->plus);                           /* M V (k x d) */
    ar_gemm('T', 'N', d, d, k, 1, l->v, l->plus, 0, l->wv);         /* V^T M V */
    for (int i = 0; i < d; ++i)
        l->wv[(size_t)i * d + i] += 1;
    return 0;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    ar_mask_spec spec = mask_spec(p);
    int n = spec.n, d = ar_point_int(p, AR_EQUILIBRIA_D), k = ar_point_int(p, AR_EQUILIBRIA_RANK), value = ar_point_choice(p, AR_EQUILIBRIA_VALUE);
    size_t nd = (size_t)n * d, dd = (size_t)d * d;
    ar_mask mask;
    ar_mask_build(&spec, rng, l.mask_storage, &mask);
    double sd = sqrt(ar_logit_scale(ar_point_real(p, AR_EQUILIBRIA_SCALE), d)); /* logits' sd = sd^2 */
    ar_rng_normals(rng, l.wq, dd);
    ar_rng_normals(rng, l.wk, dd);
    for (size_t i = 0; i < dd; ++i)
        l.wq[i] *= sd, l.wk[i] *= sd;
    ar_attention_map map = {&mask, d, l.wq, l.wk, value == AR_EQUILIBRIA_VALUE_IDENTITY ? NULL : l.wv, AR_NORM_SPHERE, 1};
    problem pr = {&map, &l, n, d};
    for (int o = 0; o < 9; ++o)
        out[o] = NAN;
    if (value == AR_EQUILIBRIA_VALUE_ORTHOGONAL) {
        ar_rng_normals(rng, l.wv, dd);
        if (ar_haar_rows(d, d, l.wv, l.haar_work) != 0)
            return 1;
    } else if (value == AR_EQUILIBRIA_VALUE_GAUSSIAN) {
        ar_rng_normals(rng, l.wv, dd);
        for (size_t i = 0; i < dd; ++i)
            l.wv[i] /= sqrt((double)d);
    } else if (value == AR_EQUILIBRIA_VALUE_WITNESS) {
        if (has_witness(p)) {
            if (build_witness(&pr, k, rng))
                return 1;
            /* Exact in exact arithmetic; Newton removes the round-off of building W_V. */
            out[AR_EQUILIBRIA_OUT_WITNESS_RESIDUAL] = newton(&pr, l.x); /* scalars only */
            out[AR_EQUILIBRIA_OUT_WITNESS_RANK] = numerical_rank(&pr, l.x);
            out[AR_EQUILIBRIA_OUT_WITNESS_RADIUS] = spectral_radius(&pr, l.x);
            out[AR_EQUILIBRIA_OUT_WITNESS_ATTRACTING] = out[AR_EQUILIBRIA_OUT_WITNESS_RADIUS] < 1;
        } else {
            memset(l.wv, 0, dd * sizeof *l.wv);
            for (int i = 0; i < d; ++i)
                l.wv[(size_t)i * d + i] = 1;
        }
    }
    /* The dynamics from a random start. */
    ar_rng_normals(rng, l.x, nd);
    ar_rows_to_sphere(n, d, l.x);
    for (int t = 0; t < ar_point_int(p, AR_EQUILIBRIA_LAYERS); ++t) {
        ar_attention_map_apply(&map, l.x, l.fx, l.weights, l.map_work);
        memcpy(l.x, l.fx, nd * sizeof *l.x);
    }
    out[AR_EQUILIBRIA_OUT_ESCAPED] = mu_rel(n, d, l.x) >= COLLAPSED;
    double r = residual(&pr, l.x);
    if (r < 1e-4 && isfinite(r))
        r = newton(&pr, l.x);
    out[AR_EQUILIBRIA_OUT_SETTLED] = r < CERTIFIED;
    out[AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL] = r;
    if (r < CERTIFIED) {
        out[AR_EQUILIBRIA_OUT_LIMIT_RANK] = numerical_rank(&pr, l.x);
        out[AR_EQUILIBRIA_OUT_LIMIT_RADIUS] = spectral_radius(&pr, l.x);
    }
    return 0;
}

static int rank_hist(const ar_point *p) { return rank_max(p); }

static const ar_output outputs[] = {
    [AR_EQUILIBRIA_OUT_WITNESS_RESIDUAL] = {"witness_residual", "||F(X*) - X*||_F of the rank-k witness (value = witness, complete mask)", NULL,
     has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_RANK] = {"witness_rank", "numerical rank of the witness (singular values above 1e-8 sigma_1)", rank_hist, has_witness,
     .definition = "singular values of the witness above 1e-8 sigma_1 (SVD)"},
    [AR_EQUILIBRIA_OUT_WITNESS_RADIUS] = {"witness_radius", "spectral radius of the central-difference Jacobian of F at the witness", NULL,
     has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_ATTRACTING] = {"witness_attracting", "1 if that spectral radius is below 1 (the witness attracts), else 0", NULL,
     has_witness},
    [AR_EQUILIBRIA_OUT_ESCAPED] = {"escaped", "1 if the dynamics from a random start have not collapsed after `layers` steps "
                "(mu / ||X||_F >= 1e-6), else 0"},
    [AR_EQUILIBRIA_OUT_SETTLED] = {"settled", "1 if their end state, polished by Newton's method, is an equilibrium (residual < 1e-10)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RANK] = {"limit_rank", "numerical rank of that equilibrium (settled trials)", rank_hist,
     .definition = "singular values above 1e-8 sigma_1 (SVD)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RADIUS] = {"limit_radius", "spectral radius of the Jacobian of F there (settled trials; < 1: attracting)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL] = {"limit_residual", "||F(X) - X||_F at the end of the dynamics, after Newton's polish if it was below 1e-4"},
};

const ar_sim ar_sim_ln_equilibria = {
    .name = "ln_equilibria",
    .summary = "equilibria F(X*) = X* of attention dynamics with LayerNorm: rank-k witnesses and where random "
               "starts end",
    AR_SIM_TABLES(params, outputs),
    .check = check,
    .workspace_bytes = workspace,
    .cost = cost,
    .trial = trial,
};
