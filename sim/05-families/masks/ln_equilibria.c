/* equilibria: fixed points of self-attention dynamics with LayerNorm (claims M4).
 *
 * The map is F(X) = rows of A_G(X) X W_V projected onto the unit sphere (dynamics.h).
 * Each trial does two things with one draw of W_Q, W_K and W_V:
 *
 * A witness of rank k (value = "witness", complete mask). Take k random unit vectors
 * u_1..u_k (the rows of V, rank k) and n tokens x_i = u_{i mod k}. Under the complete
 * mask equal tokens have equal attention rows, so A X = B V with B_ab the weight row
 * a puts on the copies of u_b. Choosing
 *     W_V = I + V^T (P B^{-1} - P) V,   P = (V V^T)^{-1},
 * gives V W_V = B^{-1} V, hence A X W_V = X: an equilibrium of rank k, by construction
 * (a unit check of the construction, not evidence for the paper: each rank has its own
 * W_V). It is polished and certified in long double (equilibrium.h).
 *
 * The dynamics from a random start (unit rows), run for `layers` steps, and the class
 * of the end state (equilibrium.h): collapsed to a rank-one subspace (sigma_2 < 1e-6
 * sigma_1: consensus, or the antipodal states the sphere allows), metastable (an
 * attention weight below 1e-12, or the tokens in one open hemisphere with W_V the
 * identity or orthogonal, where M3 makes them collapse), certified non-collapse (in
 * the contracting ball of a certified attracting equilibrium of rank >= 2 whose
 * weights all exceed 1e-12), or unsettled. Only certified non-collapse counts as
 * escape. "Certified" rests on estimated error terms with safety factors
 * (equilibrium.h), not on interval arithmetic. */
#include "attnrank/attention.h"
#include "masks/masks.h"
#include "attnrank/dynamics.h"
#include "attnrank/equilibrium.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/sim.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


/* An end state whose residual ||F(X) - X|| is above POLISH_BELOW is not polished. */
static const double POLISH_BELOW = 1e-4, MAX_CONDITION = 1e3;
enum { WITNESS_DRAWS = 100 };

static const char *const values[] = {[AR_EQUILIBRIA_VALUE_WITNESS] = "witness", [AR_EQUILIBRIA_VALUE_IDENTITY] = "identity", [AR_EQUILIBRIA_VALUE_ORTHOGONAL] = "orthogonal", [AR_EQUILIBRIA_VALUE_GAUSSIAN] = "gaussian", [AR_EQUILIBRIA_VALUE_TWO_TOKEN] = "two_token", [AR_EQUILIBRIA_VALUE_FAMILY] = "family", NULL};

static const ar_param params[] = {
    [AR_EQUILIBRIA_N] = {"n", AR_PARAM_INT, 4, 2, 16, 0, NULL, "tokens"},
    [AR_EQUILIBRIA_D] = {"d", AR_PARAM_INT, 4, 1, 16, 0, NULL, "width (n d <= 256: the Jacobian is dense)"},
    [AR_EQUILIBRIA_RANK] = {"rank", AR_PARAM_INT, 1, 1, 16, 0, NULL, "k: the rank of the witness equilibrium (value = witness); the witness needs the "
     "weights between its k token groups well conditioned (<= 1e3), which small logits (scale 0 = 1/d) deny at k = n: "
     "such trials fail (counted in failed)"},
    [AR_EQUILIBRIA_MASK] = {"mask", AR_PARAM_CHOICE, 0, 0, 0, 0, ar_mask_names,
     "mask graph (mask_dynamics' masks with their defaults w = 2, stride = 2, globals = 1, p = 0.5); the "
     "witness needs the complete mask"},
    [AR_EQUILIBRIA_SCALE] = {"scale", AR_PARAM_REAL, 0, 0, 1e4, 0, NULL,
     "standard deviation of the logits x_i W_Q W_K^T x_j^T / sqrt(d) at unit-norm tokens: W_Q, W_K entries iid "
     "N(0, scale); 0 means 1/d, the usual N(0, 1/d) initialisation"},
    [AR_EQUILIBRIA_VALUE] = {"value", AR_PARAM_CHOICE, AR_EQUILIBRIA_VALUE_WITNESS, 0, 0, 0, values,
     "W_V: built so that a random rank-k configuration is an equilibrium, the identity, Haar orthogonal, "
     "iid N(0, 1/d), or two_token: [[1/2, 2], [0, 1]] for n = d = 2 under the causal mask (Figure 1's setting "
     "of the paper, whose own W_V is not recovered: the first token's power iteration goes to (0, +-1), the "
     "second can settle at a third point); family: one map for every rank, W_V = diag(1, 1 - 1/(2d), ...) and "
     "W_Q = W_K = sqrt(scale) I (complete mask, even n), with an equilibrium of each rank 1..min(n, d) built and "
     "certified where its construction reaches: cross-polytopes up to n/2 (every scale), sign-flip orbits above"},
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
    if (ar_point_choice(p, AR_EQUILIBRIA_VALUE) == AR_EQUILIBRIA_VALUE_TWO_TOKEN &&
        (ar_point_int(p, AR_EQUILIBRIA_N) != 2 || ar_point_int(p, AR_EQUILIBRIA_D) != 2)) {
        snprintf(why, len, "two_token needs n = d = 2 (n = %d, d = %d)", ar_point_int(p, AR_EQUILIBRIA_N), ar_point_int(p, AR_EQUILIBRIA_D));
        return AR_EQUILIBRIA_VALUE;
    }
    if (ar_point_choice(p, AR_EQUILIBRIA_VALUE) == AR_EQUILIBRIA_VALUE_FAMILY &&
        ar_point_choice(p, AR_EQUILIBRIA_MASK) != AR_MASK_COMPLETE) {
        snprintf(why, len, "family needs the complete mask (its equilibria rest on every token seeing every other)");
        return AR_EQUILIBRIA_MASK;
    }
    if (ar_point_choice(p, AR_EQUILIBRIA_VALUE) == AR_EQUILIBRIA_VALUE_FAMILY && ar_point_int(p, AR_EQUILIBRIA_N) % 2) {
        snprintf(why, len, "family needs an even n (n = %d): its tokens come in antipodal pairs", ar_point_int(p, AR_EQUILIBRIA_N));
        return AR_EQUILIBRIA_N;
    }
    if (ar_point_int(p, AR_EQUILIBRIA_N) * ar_point_int(p, AR_EQUILIBRIA_D) > 256) {
        snprintf(why, len, "n d = %d is more than 256 (the Jacobian is dense)", ar_point_int(p, AR_EQUILIBRIA_N) * ar_point_int(p, AR_EQUILIBRIA_D));
        return AR_EQUILIBRIA_D;
    }
    return -1;
}

static int has_family(const ar_point *p) { return ar_point_choice(p, AR_EQUILIBRIA_VALUE) == AR_EQUILIBRIA_VALUE_FAMILY; }
/* The family's ranks: 1..min(n, d) (cross-polytopes up to n/2, sign-flip orbits above). */
static int family_ranks(const ar_point *p) { return rank_max(p); }
static double rank_of_index(int i) { return i + 1; }

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
    double *wq, *wk, *wv, *x, *fx, *plus, *column, *weights, *map_work;
    double *v, *gram, *mix, *haar_work;
    void *certify_work;
    int *ipiv, *mask_storage, *radius_work;
} layout;

static size_t carve(const ar_point *p, char *base, layout *l)
{
    ar_mask_spec spec = mask_spec(p);
    size_t n = (size_t)spec.n, d = (size_t)ar_point_int(p, AR_EQUILIBRIA_D), nd = n * d, k = (size_t)ar_point_int(p, AR_EQUILIBRIA_RANK);
    size_t D = sizeof(double);
    ar_carver c = {base, 0};
    l->wq = ar_carve(&c, d * d * D);
    l->wk = ar_carve(&c, d * d * D);
    l->wv = ar_carve(&c, d * d * D);
    l->haar_work = ar_carve(&c, ar_haar_rows_workspace((int)d, (int)d) * D);
    l->x = ar_carve(&c, nd * D);
    l->fx = ar_carve(&c, nd * D);
    l->plus = ar_carve(&c, nd * D);
    l->column = ar_carve(&c, nd * D);
    l->weights = ar_carve(&c, (size_t)ar_mask_max_edges(&spec) * D);
    l->map_work = ar_carve(&c, (3 * nd + n * n) * D);
    l->v = ar_carve(&c, k * d * D);
    l->gram = ar_carve(&c, k * k * D);
    l->mix = ar_carve(&c, 3 * k * k * D);
    l->certify_work = ar_carve(&c, ar_equilibrium_workspace((int)n, (int)d));
    l->ipiv = ar_carve(&c, nd * sizeof(int));
    l->mask_storage = ar_carve(&c, ar_mask_storage(&spec) * sizeof(int));
    l->radius_work = ar_carve(&c, ar_mask_spec_radius_workspace(&spec) * sizeof(int));
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
    /* the layers, then up to two polishes and certificates (and up to three a rank of
     * the family): 40 Newton steps and four Jacobians of 2 nd long-double evaluations
     * (about 10 times a double one each) */
    double certificates = 2 + (has_family(p) ? 3.0 * rank_max(p) : 0);
    return ar_point_int(p, AR_EQUILIBRIA_LAYERS) * step + certificates * (44 * 2 * nd * 10 * step + 60 * nd * nd * nd);
}

typedef struct {
    const ar_attention_map *map;
    const layout *l;
    int n, d;
} problem;

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

/* The witness: x_i = u_{i mod k} and the W_V that makes it an equilibrium (see top). */
static int build_witness(const problem *pr, int k, ar_rng *rng)
{
    const layout *l = pr->l;
    int n = pr->n, d = pr->d;
    double *b = l->mix, *b_inv = b + (size_t)k * k, *p = b_inv + (size_t)k * k, *column = l->column;
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

/* The family (value = "family"): W_Q = W_K = c I, so the weights depend only on the
 * tokens' inner products, and W_V = diag(1, 1 - 1/(2d), ..., 1 - (d-1)/(2d)), distinct
 * values that leave no continuous symmetry (with W_V = I every rotation of an
 * equilibrium is one: none is isolated, and Kantorovich's certificate cannot hold).
 * Tokens at +-e_m (a cross-polytope, c_m copies at each of +e_m and -e_m) are an
 * equilibrium of rank = the axes used: a token at e_m sees every other axis's tokens at
 * inner product 0, equal weights, summing to 0, and its own axis's at +1 and -1, so A X's
 * row is (c_m w_same - c_m w_opposite) e_m, positive since w_same > w_opposite, and W_V
 * keeps e_m's direction. Rank 1: every token at e_1; rank r >= 2 of n (even) tokens:
 * axes 1..r with n/2 - r + 1 copies on the first and one on the others. */
static void family_configuration(int n, int d, int r, double *x)
{
    memset(x, 0, (size_t)n * d * sizeof *x);
    if (r == 1) {
        for (int i = 0; i < n; ++i)
            x[(size_t)i * d] = 1;
        return;
    }
    int token = 0;
    for (int m = 0; m < r; ++m)
        for (int copy = 0; copy < (m == 0 ? n / 2 - r + 1 : 1); ++copy, token += 2) {
            x[(size_t)token * d + m] = 1;
            x[(size_t)(token + 1) * d + m] = -1;
        }
}

/* Ranks above n/2: sign-flip orbits (theory/NOTES.md, "Equilibria of every rank").
 * A block of 2^m tokens indexed by g = 0..2^m - 1 puts token g at chi_c(g) sqrt(p_k) on
 * its k-th axis, chi_c(g) = (-1)^popcount(g & c) the character c of the axis: the sign
 * flips g are symmetries of F (W_Q = W_K = c I and W_V diagonal commute with them), so
 * the block is an equilibrium iff one token's row is: delta_k H_k(p) is the same for
 * every axis k, H_k = sum_g chi_k(g) exp(beta (<x, g x> - 1)), <x, g x> = sum_l chi_l(g)
 * p_l. Distinct characters make the block's rank the number of its axes. A block with
 * only nontrivial characters sums to 0, so blocks on disjoint axes see each other at
 * inner product 0, with equal weights whose contribution sums to 0: each solves its own
 * equation. The trivial character (c = 0, an axis every token shares) gives the block
 * rank 2^m but a nonzero sum: alone only (n = 2^m), and only above a threshold scale
 * (for n = 2, the pair (+-c, s): tanh(beta c^2) = delta_j / delta_i). */
enum { ORBIT_STEPS = 64, ORBIT_NEWTON = 30, MAX_ORBIT = 16 };

typedef struct {
    int tokens, first_token, axes, first_axis;
    int trivial; /* 0: none; 1, 2: the last axis is d - 1 with character 0, the others' descending, ascending */
} orbit_block;

static int character(int g, int c) { return __builtin_popcount((unsigned)(g & c)) % 2 ? -1 : 1; }
/* Nontrivial blocks: characters 1, 2, ... on their axes in order; a trivial block: 2^m -
 * 1, 2^m - 2, ... (W_V's larger entries on the characters of smaller index: the order
 * for which its large-scale branch exists at n = 4 and 8, theory/NOTES.md), then 0 on
 * axis d - 1, W_V's smallest entry. */
static int block_character(const orbit_block *b, int k)
{
    if (b->trivial && k == b->axes - 1)
        return 0;
    return b->trivial == 1 ? b->tokens - 1 - k : k + 1;
}
static int block_axis(const orbit_block *b, int k, int d) { return b->trivial && k == b->axes - 1 ? d - 1 : b->first_axis + k; }

/* f_k = delta_k H_k / (delta_0 H_0) - 1 for k = 1..r-1, and sum p - 1 (long double). */
static void orbit_equations(const orbit_block *b, const long double *delta, long double beta, const long double *p,
                            long double *f)
{
    long double h[MAX_ORBIT] = {0};
    for (int g = 0; g < b->tokens; ++g) {
        long double inner = 0;
        for (int l = 0; l < b->axes; ++l)
            inner += character(g, block_character(b, l)) * p[l];
        long double e = expl(beta * (inner - 1));
        for (int k = 0; k < b->axes; ++k)
            h[k] += character(g, block_character(b, k)) * e;
    }
    long double sum = 0;
    for (int k = 0; k < b->axes; ++k)
        sum += p[k];
    for (int k = 1; k < b->axes; ++k)
        f[k - 1] = delta[k] * h[k] / (delta[0] * h[0]) - 1;
    f[b->axes - 1] = sum - 1;
}

static long double largest(int r, const long double *f)
{
    long double size = 0;
    for (int k = 0; k < r; ++k)
        size = fmaxl(size, fabsl(f[k]));
    return size;
}

/* Newton's method on the block's equations at beta from p (in place), finite-difference
 * Jacobian, the step halved until every p_k stays in (0, 1) and the equations shrink;
 * 0 if it converged. */
static int orbit_newton(const orbit_block *b, const long double *delta, long double beta, long double *p)
{
    int r = b->axes;
    long double f[MAX_ORBIT], g[MAX_ORBIT], q[MAX_ORBIT];
    double jac[MAX_ORBIT * MAX_ORBIT], step[MAX_ORBIT];
    int ipiv[MAX_ORBIT];
    for (int it = 0; it < ORBIT_NEWTON; ++it) {
        orbit_equations(b, delta, beta, p, f);
        long double size = largest(r, f);
        if (size < 1e-13L)
            return 0;
        for (int e = 0; e < r; ++e) {
            memcpy(q, p, (size_t)r * sizeof *q);
            q[e] += 1e-9L;
            orbit_equations(b, delta, beta, q, g);
            for (int k = 0; k < r; ++k)
                jac[k * r + e] = (double)((g[k] - f[k]) / 1e-9L);
        }
        for (int k = 0; k < r; ++k)
            step[k] = (double)-f[k];
        if (ar_lu_factor(r, jac, ipiv) != 0)
            return 1;
        ar_lu_solve(r, jac, ipiv, step);
        long double length = 1;
        for (int halving = 0;; ++halving, length /= 2) {
            if (halving == 40)
                return 1;
            int inside = 1;
            for (int k = 0; k < r; ++k)
                q[k] = p[k] + length * step[k], inside &= q[k] > 0 && q[k] < 1;
            if (!inside)
                continue;
            orbit_equations(b, delta, beta, q, g);
            if (largest(r, g) < size)
                break;
        }
        memcpy(p, q, (size_t)r * sizeof *p);
    }
    return 1;
}

/* The block's p at beta, followed along beta from where it is known: from beta = 1e-3
 * (p_k proportional to 1 / delta_k) up, for nontrivial characters, or, with the trivial
 * one, down from 64 beta (its branch lives at large scales; p_k = 1 / (4 beta) off the
 * shared axis). 0 if the branch reaches beta. */
static int orbit_solve(const orbit_block *b, const long double *delta, long double beta, long double *p)
{
    int r = b->axes;
    long double from = b->trivial ? 64 * beta : fminl(beta, 1e-3L), total = 0;
    for (int k = 0; k < r; ++k)
        total += p[k] = b->trivial ? (k == r - 1 ? 0 : 1 / (4 * from)) : 1 / delta[k];
    for (int k = 0; k < r; ++k)
        p[k] = b->trivial ? (k == r - 1 ? 1 - total : p[k]) : p[k] / total;
    if (r == 1)
        return 0;
    for (int step = 0; step <= ORBIT_STEPS; ++step)
        if (orbit_newton(b, delta, from * powl(beta / from, (long double)step / ORBIT_STEPS), p) != 0)
            return 1;
    return 0;
}

/* The blocks of a rank-r orbit configuration of n tokens. trivial = 0: n's binary
 * digits as blocks, largest first, each with one axis and the rest given out largest
 * first (at most 2^m - 1 each: nontrivial characters). trivial = 1: one block of n = 2^m
 * tokens, r - 1 nontrivial characters and the trivial one. Returns the number of
 * blocks, 0 if the construction does not reach r. */
static int orbit_blocks(int n, int d, int r, int trivial, orbit_block *blocks)
{
    if (r > d || r < 2)
        return 0;
    if (trivial) {
        blocks[0] = (orbit_block){.tokens = n, .axes = r, .trivial = trivial};
        return (n & (n - 1)) == 0 && r <= n && n <= MAX_ORBIT;
    }
    int count = 0, room = 0;
    for (int m = 30; m >= 1; --m)
        if (n & (1 << m)) {
            if ((1 << m) > MAX_ORBIT)
                return 0;
            blocks[count++] = (orbit_block){.tokens = 1 << m, .axes = 1};
            room += (1 << m) - 1;
        }
    if (r < count || r > room)
        return 0;
    int left = r - count, token = 0, axis = 0;
    for (int b = 0; b < count; ++b) {
        int more = blocks[b].tokens - 2 < left ? blocks[b].tokens - 2 : left;
        blocks[b].axes += more, left -= more;
        blocks[b].first_token = token, blocks[b].first_axis = axis;
        token += blocks[b].tokens, axis += blocks[b].axes;
    }
    return count;
}

/* x: the rank-r orbit configuration (trivial: with the trivial character) at the map's
 * scale (beta, delta = W_V's diagonal); 0 if it was built (every block's branch reached
 * beta). */
static int orbit_configuration(int n, int d, int r, int trivial, double beta, const double *wv, double *x)
{
    orbit_block blocks[8];
    int count = orbit_blocks(n, d, r, trivial, blocks);
    if (count == 0)
        return 1;
    memset(x, 0, (size_t)n * d * sizeof *x);
    for (int b = 0; b < count; ++b) {
        long double delta[MAX_ORBIT], p[MAX_ORBIT];
        for (int k = 0; k < blocks[b].axes; ++k) {
            int a = block_axis(&blocks[b], k, d);
            delta[k] = wv[(size_t)a * d + a];
        }
        if (orbit_solve(&blocks[b], delta, beta, p) != 0)
            return 1;
        for (int g = 0; g < blocks[b].tokens; ++g)
            for (int k = 0; k < blocks[b].axes; ++k)
                x[(size_t)(blocks[b].first_token + g) * d + block_axis(&blocks[b], k, d)] =
                    character(g, block_character(&blocks[b], k)) * (double)sqrtl(p[k]);
    }
    return 0;
}

/* Builds and certifies the family's equilibrium of every rank 1..min(n, d) (cross-
 * polytopes up to n/2, orbits above); out[] gets the ranks up to min(n/2, d) missing
 * (not certified to exist, with weights above the floor, at their rank), the ranks
 * certified, those attracting, the largest residual, and both by rank. A rank whose
 * construction does not reach the map's scale is not certified. */
static int certify_family(const problem *pr, int ranks, double beta, double *out, double *certified_by_rank,
                          double *attracting_by_rank)
{
    const layout *l = pr->l;
    int n = pr->n, d = pr->d, missing = 0, certified = 0, attracting = 0;
    double worst = 0;
    for (int r = 1; r <= ranks; ++r) {
        /* up to n/2 the cross-polytope; above, the orbits: without the trivial character
         * (its branch lives at small scales), else with it (large scales), its other
         * characters descending, then ascending (which of them reaches a rank depends
         * on the rank and the scale: theory/NOTES.md) */
        int exists = 0, built = 0;
        ar_equilibrium eq = {0};
        for (int kind = 0; kind < (2 * r <= n ? 1 : 3) && !exists; ++kind) {
            int made = 2 * r <= n ? (family_configuration(n, d, r, l->x), 1)
                                  : orbit_configuration(n, d, r, kind, beta, pr->map->wv, l->x) == 0;
            if (!made || ar_equilibrium_certify(pr->map, l->x, &eq, l->certify_work) != 0)
                continue; /* not built, or LAPACK failed or the polish left the finite: not certified */
            built = 1;
            exists = eq.exists && eq.rank == r && eq.min_weight >= AR_WEIGHT_FLOOR;
        }
        missing += !exists && 2 * r <= n;
        certified += exists;
        attracting += exists && eq.attracting;
        if (built)
            worst = fmax(worst, eq.residual);
        certified_by_rank[r - 1] = exists;
        attracting_by_rank[r - 1] = exists && eq.attracting;
    }
    out[AR_EQUILIBRIA_OUT_FAMILY_MISSING] = missing;
    out[AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED] = certified;
    out[AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING] = attracting;
    out[AR_EQUILIBRIA_OUT_FAMILY_RESIDUAL] = worst;
    return 0;
}

/* out[] from an equilibrium's certificate, at the outputs first..first+5 in the order
 * residual, rank, radius bound, attracting, smallest weight, certified. */
static void store_certificate(const ar_equilibrium *eq, double *out)
{
    out[0] = eq->residual;
    out[1] = eq->rank;
    out[2] = eq->radius_bound;
    out[3] = isnan(eq->radius_bound) ? NAN : eq->attracting;
    out[4] = eq->min_weight;
    out[5] = eq->certified;
}

static int trial(const ar_point *p, ar_rng *rng, void *ws, double *out)
{
    layout l;
    carve(p, ws, &l);
    ar_mask_spec spec = mask_spec(p);
    int n = spec.n, d = ar_point_int(p, AR_EQUILIBRIA_D), k = ar_point_int(p, AR_EQUILIBRIA_RANK), value = ar_point_choice(p, AR_EQUILIBRIA_VALUE);
    size_t nd = (size_t)n * d, dd = (size_t)d * d;
    ar_mask mask;
    int root;
    ar_mask_build(&spec, rng, l.mask_storage, &mask);
    int connected = ar_mask_radius(&mask, &root, l.radius_work) >= 0;
    double sd = sqrt(ar_logit_scale(ar_point_real(p, AR_EQUILIBRIA_SCALE), d)); /* logits' sd = sd^2 */
    ar_rng_normals(rng, l.wq, dd);
    ar_rng_normals(rng, l.wk, dd);
    for (size_t i = 0; i < dd; ++i)
        l.wq[i] *= sd, l.wk[i] *= sd;
    if (value == AR_EQUILIBRIA_VALUE_FAMILY) { /* W_Q = W_K = sd I: logits of the random ones' scale */
        memset(l.wv, 0, dd * sizeof *l.wv);
        for (int i = 0; i < d; ++i) {
            for (int j = 0; j < d; ++j)
                l.wq[(size_t)i * d + j] = l.wk[(size_t)i * d + j] = i == j ? sd : 0;
            l.wv[(size_t)i * d + i] = 1 - i / (2.0 * d);
        }
    }
    int identity = value == AR_EQUILIBRIA_VALUE_IDENTITY;
    ar_attention_map map = {&mask, d, l.wq, l.wk, identity ? NULL : l.wv, AR_NORM_SPHERE, 1};
    problem pr = {&map, &l, n, d};
    for (int o = 0; o < AR_EQUILIBRIA_OUT_COUNT; ++o) /* the scalars: out[] by the output enum */
        out[o] = NAN;
    if (has_family(p)) {
        int ranks = family_ranks(p);
        double *by_rank = out + ar_output_offset(p, AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED_BY_RANK);
        double *attracts = out + ar_output_offset(p, AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING_BY_RANK);
        double beta = ar_logit_scale(ar_point_real(p, AR_EQUILIBRIA_SCALE), d) / sqrt((double)d);
        if (certify_family(&pr, ranks, beta, out, by_rank, attracts) != 0)
            return 1;
    }
    ar_equilibrium eq;
    if (value == AR_EQUILIBRIA_VALUE_ORTHOGONAL) {
        ar_rng_normals(rng, l.wv, dd);
        if (ar_haar_rows(d, d, l.wv, l.haar_work) != 0)
            return 1;
    } else if (value == AR_EQUILIBRIA_VALUE_GAUSSIAN) {
        ar_rng_normals(rng, l.wv, dd);
        for (size_t i = 0; i < dd; ++i)
            l.wv[i] /= sqrt((double)d);
    } else if (value == AR_EQUILIBRIA_VALUE_TWO_TOKEN) {
        static const double two_token[4] = {0.5, 2, 0, 1};
        memcpy(l.wv, two_token, sizeof two_token);
    } else if (value == AR_EQUILIBRIA_VALUE_WITNESS) {
        if (has_witness(p)) {
            if (build_witness(&pr, k, rng))
                return 1;
            /* Exact in exact arithmetic; the polish removes the round-off of building W_V. */
            if (ar_equilibrium_certify(&map, l.x, &eq, l.certify_work) != 0)
                return 1;
            store_certificate(&eq, out + AR_EQUILIBRIA_OUT_WITNESS_RESIDUAL);
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
    int isometric = identity || value == AR_EQUILIBRIA_VALUE_ORTHOGONAL ||
                    (value == AR_EQUILIBRIA_VALUE_WITNESS && !has_witness(p));
    ar_end_state end = ar_classify_end_state(&map, l.x, isometric, connected, POLISH_BELOW, &eq, l.certify_work);
    out[AR_EQUILIBRIA_OUT_COLLAPSED] = end == AR_END_COLLAPSED;
    out[AR_EQUILIBRIA_OUT_METASTABLE] = end == AR_END_METASTABLE;
    out[AR_EQUILIBRIA_OUT_ESCAPED] = end == AR_END_CERTIFIED;
    out[AR_EQUILIBRIA_OUT_UNSETTLED] = end == AR_END_UNSETTLED;
    out[AR_EQUILIBRIA_OUT_END_MIN_WEIGHT] = ar_min_attention_weight(&map, l.x);
    if (end == AR_END_CERTIFIED) {
        out[AR_EQUILIBRIA_OUT_LIMIT_RANK] = eq.rank;
        out[AR_EQUILIBRIA_OUT_LIMIT_RADIUS] = eq.radius_bound;
        out[AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL] = eq.residual;
        out[AR_EQUILIBRIA_OUT_LIMIT_DISTANCE] = eq.distance;
    }
    return 0;
}

static int rank_hist(const ar_point *p) { return rank_max(p); }

static const ar_output outputs[] = {
    [AR_EQUILIBRIA_OUT_WITNESS_RESIDUAL] = {"witness_residual", "||F(X*) - X*||_F of the rank-k witness in long double after the polish (value = witness, complete mask)", NULL,
     has_witness, .range = ar_range_nonnegative /* a norm */},
    [AR_EQUILIBRIA_OUT_WITNESS_RANK] = {"witness_rank", "numerical rank of the witness (singular values above 1e-6 sigma_1)", rank_hist, has_witness,
     .definition = "singular values of the witness above max(1e-6 sigma_1, 10 (distance + 2 eta)) (SVD)"},
    [AR_EQUILIBRIA_OUT_WITNESS_RADIUS] = {"witness_radius", "estimated upper bound on the spectral radius of the Jacobian of F at the "
                "witness (long-double central differences plus Bauer-Fike's margin for their estimated error)", NULL, has_witness,
     .range = ar_range_nonnegative /* a spectral radius plus margins >= 0, or a power bound (norms) */},
    [AR_EQUILIBRIA_OUT_WITNESS_ATTRACTING] = {"witness_attracting", "1 if that bound is below 1 (the witness attracts), else 0", NULL,
     has_witness, .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_WITNESS_MIN_WEIGHT] = {"witness_min_weight", "smallest attention weight at the witness", NULL, has_witness,
     .range = ar_range_unit_rounded},
    [AR_EQUILIBRIA_OUT_WITNESS_CERTIFIED] = {"witness_certified", "1 if the witness is a certified attracting equilibrium: a fixed point within "
                "2 eta (Kantorovich), radius bound < 1, every weight >= 1e-12 (error terms estimated)", NULL, has_witness, .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_COLLAPSED] = {"collapsed", "1 if the end state of the dynamics from a random start has collapsed to a rank-one subspace "
                "(sigma_2 < 1e-6 sigma_1: consensus or +-u), else 0", .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_METASTABLE] = {"metastable", "1 if it has not, but an attention weight is below 1e-12 or (W_V isometric) the tokens lie in "
                "one open hemisphere, where M3 says they collapse: frozen or doomed, not counted as escape", .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_ESCAPED] = {"escaped", "1 if it is certified non-collapse: in the contracting ball of a certified attracting "
                "equilibrium of rank >= 2 whose weights all exceed 1e-12; the only class that counts as escape", .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_UNSETTLED] = {"unsettled", "1 if none of these: not collapsed, not frozen, no certified equilibrium nearby", .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_END_MIN_WEIGHT] = {"end_min_weight", "smallest attention weight at the end state (long double: no underflow above 1e-4900)",
     .range = ar_range_unit_rounded},
    [AR_EQUILIBRIA_OUT_LIMIT_RANK] = {"limit_rank", "rank of the certified equilibrium (escaped trials; NaN in the others)", rank_hist,
     .definition = "singular values above max(1e-6 sigma_1, 10 (distance + 2 eta)) (SVD)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RADIUS] = {"limit_radius", "estimated upper bound on the spectral radius of the Jacobian there (escaped trials; NaN in the others)",
     .range = ar_range_nonnegative},
    [AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL] = {"limit_residual", "||F(X*) - X*||_F there, long double (escaped trials; NaN in the others)",
     .range = ar_range_nonnegative},
    [AR_EQUILIBRIA_OUT_LIMIT_DISTANCE] = {"limit_distance", "||X_T - X*||_F from the end state to that equilibrium (escaped trials; NaN in the others)",
     .range = ar_range_nonnegative},
    [AR_EQUILIBRIA_OUT_FAMILY_MISSING] = {"family_missing", "ranks of 1..min(n/2, d) whose family equilibrium (value = "
     "family: one W_V, W_Q = W_K = sqrt(scale) I; cross-polytopes) is not certified to exist at that rank with every "
     "weight >= 1e-12", rank_hist, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED] = {"family_certified", "ranks of 1..min(n, d) whose family equilibrium "
     "(cross-polytopes up to n/2, sign-flip orbits above) is certified to exist at that rank with every weight >= 1e-12",
     rank_hist, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING] = {"family_attracting", "ranks of 1..min(n, d) whose family equilibrium is "
     "certified and attracting (spectral radius bound < 1)", rank_hist, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_RESIDUAL] = {"family_residual", "largest ||F(X*) - X*||_F over the family's equilibria after "
     "the polish (long double)", NULL, has_family, .range = ar_range_nonnegative /* norms */},
    [AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED_BY_RANK] = {"family_certified_by_rank", "1 if the family's equilibrium of this rank is "
     "certified to exist (Kantorovich, rank, weights >= 1e-12), else 0 (also where its construction does not reach this "
     "scale)", NULL, has_family, family_ranks, "rank",
     rank_of_index, .range = ar_range_unit},
    [AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING_BY_RANK] = {"family_attracting_by_rank", "1 if it is also attracting, else 0", NULL,
     has_family, family_ranks, "rank", rank_of_index, .range = ar_range_unit},
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
