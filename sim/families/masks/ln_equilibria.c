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
#include "families/masks/masks.h"
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
     "W_Q = W_K = sqrt(scale) I (complete mask, even n), with a cross-polytope equilibrium of each rank 1..min(n/2, d) "
     "built and certified"},
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
/* The family's ranks: 1..min(n/2, d) (a cross-polytope of n tokens spans n/2 axes). */
static int family_ranks(const ar_point *p)
{
    int n = ar_point_int(p, AR_EQUILIBRIA_N), d = ar_point_int(p, AR_EQUILIBRIA_D);
    return n / 2 < d ? n / 2 : d;
}
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
    /* the layers, then up to two polishes and certificates: 40 Newton steps and four
     * Jacobians of 2 nd long-double evaluations (about 10 times a double one each) */
    return ar_point_int(p, AR_EQUILIBRIA_LAYERS) * step + 2 * (44 * 2 * nd * 10 * step + 60 * nd * nd * nd);
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

/* Builds and certifies the family's equilibrium of every rank; out[] gets the ranks
 * missing (not certified to exist, with weights above the floor, at their rank), those
 * attracting, the largest residual, and both by rank. */
static int certify_family(const problem *pr, int ranks, double *out, double *certified_by_rank,
                          double *attracting_by_rank)
{
    const layout *l = pr->l;
    int n = pr->n, d = pr->d, missing = 0, attracting = 0;
    double worst = 0;
    for (int r = 1; r <= ranks; ++r) {
        family_configuration(n, d, r, l->x);
        ar_equilibrium eq;
        if (ar_equilibrium_certify(pr->map, l->x, &eq, l->certify_work) != 0)
            return 1;
        int exists = eq.exists && eq.rank == r && eq.min_weight >= AR_WEIGHT_FLOOR;
        missing += !exists;
        attracting += exists && eq.attracting;
        worst = fmax(worst, eq.residual);
        certified_by_rank[r - 1] = exists;
        attracting_by_rank[r - 1] = exists && eq.attracting;
    }
    out[AR_EQUILIBRIA_OUT_FAMILY_MISSING] = missing;
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
        if (certify_family(&pr, ranks, out, by_rank, attracts) != 0)
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
     has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_RANK] = {"witness_rank", "numerical rank of the witness (singular values above 1e-6 sigma_1)", rank_hist, has_witness,
     .definition = "singular values of the witness above max(1e-6 sigma_1, 10 (distance + 2 eta)) (SVD)"},
    [AR_EQUILIBRIA_OUT_WITNESS_RADIUS] = {"witness_radius", "estimated upper bound on the spectral radius of the Jacobian of F at the "
                "witness (long-double central differences plus Bauer-Fike's margin for their estimated error)", NULL, has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_ATTRACTING] = {"witness_attracting", "1 if that bound is below 1 (the witness attracts), else 0", NULL,
     has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_MIN_WEIGHT] = {"witness_min_weight", "smallest attention weight at the witness", NULL, has_witness},
    [AR_EQUILIBRIA_OUT_WITNESS_CERTIFIED] = {"witness_certified", "1 if the witness is a certified attracting equilibrium: a fixed point within "
                "2 eta (Kantorovich), radius bound < 1, every weight >= 1e-12 (error terms estimated)", NULL, has_witness},
    [AR_EQUILIBRIA_OUT_COLLAPSED] = {"collapsed", "1 if the end state of the dynamics from a random start has collapsed to a rank-one subspace "
                "(sigma_2 < 1e-6 sigma_1: consensus or +-u), else 0"},
    [AR_EQUILIBRIA_OUT_METASTABLE] = {"metastable", "1 if it has not, but an attention weight is below 1e-12 or (W_V isometric) the tokens lie in "
                "one open hemisphere, where M3 says they collapse: frozen or doomed, not counted as escape"},
    [AR_EQUILIBRIA_OUT_ESCAPED] = {"escaped", "1 if it is certified non-collapse: in the contracting ball of a certified attracting "
                "equilibrium of rank >= 2 whose weights all exceed 1e-12; the only class that counts as escape"},
    [AR_EQUILIBRIA_OUT_UNSETTLED] = {"unsettled", "1 if none of these: not collapsed, not frozen, no certified equilibrium nearby"},
    [AR_EQUILIBRIA_OUT_END_MIN_WEIGHT] = {"end_min_weight", "smallest attention weight at the end state (long double: no underflow above 1e-4900)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RANK] = {"limit_rank", "rank of the certified equilibrium (escaped trials; NaN in the others)", rank_hist,
     .definition = "singular values above max(1e-6 sigma_1, 10 (distance + 2 eta)) (SVD)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RADIUS] = {"limit_radius", "estimated upper bound on the spectral radius of the Jacobian there (escaped trials; NaN in the others)"},
    [AR_EQUILIBRIA_OUT_LIMIT_RESIDUAL] = {"limit_residual", "||F(X*) - X*||_F there, long double (escaped trials; NaN in the others)"},
    [AR_EQUILIBRIA_OUT_LIMIT_DISTANCE] = {"limit_distance", "||X_T - X*||_F from the end state to that equilibrium (escaped trials; NaN in the others)"},
    [AR_EQUILIBRIA_OUT_FAMILY_MISSING] = {"family_missing", "ranks of 1..min(n/2, d) whose family equilibrium (value = "
     "family: one W_V, W_Q = W_K = sqrt(scale) I) is not certified to exist at that rank with every weight >= 1e-12",
     rank_hist, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING] = {"family_attracting", "ranks whose family equilibrium is certified and attracting "
     "(spectral radius bound < 1)", rank_hist, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_RESIDUAL] = {"family_residual", "largest ||F(X*) - X*||_F over the family's equilibria after "
     "the polish (long double)", NULL, has_family},
    [AR_EQUILIBRIA_OUT_FAMILY_CERTIFIED_BY_RANK] = {"family_certified_by_rank", "1 if the family's equilibrium of this rank is "
     "certified to exist (Kantorovich, rank, weights >= 1e-12), else 0", NULL, has_family, family_ranks, "rank",
     rank_of_index},
    [AR_EQUILIBRIA_OUT_FAMILY_ATTRACTING_BY_RANK] = {"family_attracting_by_rank", "1 if it is also attracting, else 0", NULL,
     has_family, family_ranks, "rank", rank_of_index},
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
