/* attack: search a claim's assumptions for its worst case, then confirm on fresh draws
 * (attack.h for the spec, docs/attacks.md for the why).
 *
 * The search is a randomised quasi-Monte Carlo design (GSL's Sobol sequence, shifted
 * by the seed, the space's corners first) thinned by successive halving: every
 * candidate gets first_trials, the better half twice as many, and so on, so trials go
 * where the claim fares worst; then GSL's Nelder-Mead simplex refines the best
 * candidates over the ranges (integers rounded, sets held at the candidate's choice).
 * Every search trial draws from one stream family shared by all candidates (common
 * random numbers: trial t of every candidate uses the same stream), so two candidates'
 * difference is not drowned by independent noise and the simplex sees a smooth
 * objective. The best of the search is biased upward, so the search decides nothing:
 * the best `confirm` candidates are re-run on streams the search never used (another
 * seed, each point's own key) and only those runs are judged, by the claim's own rule
 * over the confirmed points (its multiplicity correction over them). */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_multimin.h>
#include <gsl/gsl_qrng.h>

#include "attnrank/rng.h"
#include "attnrank/signals.h"

enum {
    LOCAL_TRIALS_FACTOR = 4,
    MAX_CANDIDATES_FIRST = 1 << 16,
    /* trials an evaluation computes at a time: memory bounded whatever the budget, and
     * the clock and signals looked at between chunks */
    CHUNK_TRIALS = 1 << 14,
};
static const double LOCAL_SHARE = 0.25; /* of the search's trials, when there are ranges */

typedef struct candidate {
    double u[AR_MAX_PARAMS]; /* coordinates in [0, 1] per dimension */
    ar_point point;
    int valid;               /* the simulator accepts the point and the claim speaks there */
    int logged;              /* has a row in the evaluations (the record's candidates count these) */
    double prediction;
    long trials, failed;
    double mean, m2, max;    /* over its finite values, trial order */
    double objective;        /* larger: worse for the claim; -inf until two values; +-inf also
                              * where it overflows (|f| tiny): the worst (or best) there is */
} candidate;

/* Has c an objective to rank by: two finite values, whatever the objective (an infinite
 * one is the claim's worst or best case, not silence). */
static int ranked(const candidate *c)
{
    return c->valid && c->trials - c->failed >= 2;
}

typedef struct search {
    const ar_spec *spec;
    const ar_experiment *x;
    const ar_attack *a;
    const ar_claim *claim;
    int threads, axis_param; /* axis_param: a limit's axis, else -1 */
    double axis_max;
    uint64_t seed, key;      /* the search's streams */
    candidate *cands;
    long n_cands, cap_cands;
    long *slots;             /* open addressing on the point: candidate index + 1, 0 empty */
    long n_slots;            /* a power of two, at least twice cap_cands */
    long spent, limit;       /* search trials spent, and the most it may spend */
    double *values;
    size_t values_cap;
    double started;
    int stopped_early, exhausted, interrupted, out_of_memory;
    ar_attack_record *rec;
} search;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t stream_seed(uint64_t seed, const char *what, const char *id)
{
    uint64_t h = ar_hash_bytes(ar_mix64(seed ^ 0x61747461636bULL), what, strlen(what));
    return ar_hash_bytes(h, id, strlen(id));
}

/* ---- candidates ---------------------------------------------------------------- */

static void point_of(const search *s, const double *u, ar_point *p)
{
    *p = s->x->base;
    for (int i = 0; i < s->a->n_dims; ++i) {
        const ar_attack_dim *d = &s->a->dims[i];
        double t = u[i] < 0 ? 0 : u[i] > 1 ? 1 : u[i];
        if (d->is_set) {
            int k = (int)floor(t * d->n_values);
            p->value[d->param] = d->values[k < d->n_values ? k : d->n_values - 1];
            continue;
        }
        double v = d->log_scale ? exp(log(d->lo) + t * (log(d->hi) - log(d->lo))) : d->lo + t * (d->hi - d->lo);
        if (s->x->sim->params[d->param].type == AR_PARAM_INT)
            v = round(v);
        p->value[d->param] = v < d->lo ? d->lo : v > d->hi ? d->hi : v;
    }
    if (s->axis_param >= 0)
        p->value[s->axis_param] = s->axis_max;
}

static uint64_t point_hash(const ar_point *p)
{
    return ar_hash_bytes(0x70, p->value, sizeof p->value);
}

/* The slots rebuilt for n_slots (the candidates' points rehashed). -1: out of memory. */
static int rehash(search *s, long n_slots)
{
    long *slots = calloc((size_t)n_slots, sizeof *slots);
    if (!slots)
        return -1;
    for (long i = 0; i < s->n_cands; ++i) {
        uint64_t h = point_hash(&s->cands[i].point) & (uint64_t)(n_slots - 1);
        while (slots[h])
            h = (h + 1) & (uint64_t)(n_slots - 1);
        slots[h] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->n_slots = n_slots;
    return 0;
}

/* Has a signal or max_seconds ended the search? Looked at wherever the search works,
 * drawing candidates included: a space whose draws cost no trial (the claim silent
 * everywhere) would otherwise never reach a place that looks. */
static int must_stop(search *s)
{
    if (ar_stop_signal)
        s->interrupted = 1;
    else if (s->a->max_seconds > 0 && now_seconds() - s->started > s->a->max_seconds)
        s->stopped_early = 1;
    return s->interrupted || s->stopped_early;
}

/* The candidate at u: an existing one at the same point (rounding integers and sets
 * maps many u to one point, evaluated once), else a new one. -1: out of memory, or the
 * search stopped (must_stop). */
static long candidate_at(search *s, const double *u)
{
    if (must_stop(s))
        return -1;
    ar_point p;
    point_of(s, u, &p);
    if (s->n_cands == s->cap_cands) {
        long cap = s->cap_cands ? 2 * s->cap_cands : 256;
        candidate *grown = realloc(s->cands, (size_t)cap * sizeof *grown);
        if (!grown || (s->cands = grown, rehash(s, 4 * cap)) != 0)
            return s->out_of_memory = 1, -1;
        s->cap_cands = cap;
    }
    uint64_t h = point_hash(&p) & (uint64_t)(s->n_slots - 1);
    for (; s->slots[h]; h = (h + 1) & (uint64_t)(s->n_slots - 1))
        if (memcmp(s->cands[s->slots[h] - 1].point.value, p.value, sizeof p.value) == 0)
            return s->slots[h] - 1;
    s->slots[h] = s->n_cands + 1;
    candidate *c = &s->cands[s->n_cands];
    memset(c, 0, sizeof *c);
    memcpy(c->u, u, (size_t)s->a->n_dims * sizeof *u);
    c->point = p;
    char why[256];
    c->prediction = ar_claim_predict(s->claim, &p);
    c->valid = (!p.sim->check || p.sim->check(&p, why, sizeof why) < 0) && isfinite(c->prediction);
    c->objective = -INFINITY;
    return s->n_cands++;
}

/* Where the claim's value lies among a trial's values at p. */
static int claim_value_offset(const ar_claim *claim, const ar_point *p)
{
    const ar_output *o = &p->sim->outputs[claim->output];
    int length = ar_output_length(o, p), i = claim->element < 0 ? length + claim->element : claim->element;
    if (i < 0 || i >= length)
        i = length - 1;
    return ar_output_offset(p, claim->output) + i;
}

static void log_evaluation(search *s, long index, int stage, int round)
{
    ar_attack_record *r = s->rec;
    if (r->n_evaluations == r->cap_evaluations) {
        long cap = r->cap_evaluations ? 2 * r->cap_evaluations : 256;
        double *grown = realloc(r->evaluations, (size_t)cap * r->columns_evaluation * sizeof *grown);
        if (!grown) {
            s->out_of_memory = 1;
            return;
        }
        r->evaluations = grown;
        r->cap_evaluations = cap;
    }
    candidate *c = &s->cands[index];
    r->candidates += !c->logged;
    c->logged = 1;
    double *row = r->evaluations + (size_t)r->n_evaluations * r->columns_evaluation;
    long n = c->trials - c->failed;
    double sem = n > 1 ? sqrt(c->m2 / (double)(n - 1) / (double)n) : NAN;
    double fixed[AR_ATTACK_EVALUATION_FIXED] = {(double)r->n_evaluations, (double)index, stage, round,
                                                (double)c->trials, (double)c->failed, n ? c->mean : NAN, sem,
                                                n ? c->max : NAN, c->prediction, c->objective};
    memcpy(row, fixed, sizeof fixed);
    for (int i = 0; i < s->a->n_dims; ++i)
        row[AR_ATTACK_EVALUATION_FIXED + i] = c->point.value[s->a->dims[i].param];
    r->n_evaluations++;
}

/* Trials first .. first + count - 1 of candidate c merged into its statistics: Welford
 * over the new trials in trial order, merged into the candidate's (Chan et al.), so the
 * same bits for any thread count and any chunking. 0, or -1 (memory). */
static int add_trials(search *s, candidate *c, long count)
{
    int width = ar_values_per_trial(&c->point);
    size_t need = (size_t)width * (size_t)count;
    if (need > s->values_cap) {
        double *grown = realloc(s->values, need * sizeof *grown);
        if (!grown)
            return -1;
        s->values = grown;
        s->values_cap = need;
    }
    if (ar_trials_compute_stream(&c->point, s->seed, s->key, c->trials, count, s->threads, s->values, NULL) < 0)
        return -1;
    const double *column = s->values + (size_t)claim_value_offset(s->claim, &c->point) * count;
    long n1 = c->trials - c->failed, n2 = 0;
    double mean2 = 0, m22 = 0, max = c->max;
    for (long t = 0; t < count; ++t) {
        double v = column[t];
        if (!isfinite(v)) {
            c->failed++;
            continue;
        }
        n2++;
        double delta = v - mean2;
        mean2 += delta / (double)n2;
        m22 += delta * (v - mean2);
        if (n1 + n2 == 1 || v > max)
            max = v;
    }
    if (n2 > 0) {
        double n = (double)(n1 + n2), delta = mean2 - c->mean;
        c->mean += delta * (double)n2 / n;
        c->m2 += m22 + delta * delta * (double)n1 * (double)n2 / n;
        c->max = max;
    }
    c->trials += count;
    return 0;
}

/* Candidate index to `trials` trials on the search's streams (only the ones it lacks).
 * 0, or -1 when the budget, the clock, a signal or memory stops the search (a candidate
 * cut short by the clock or a signal is not logged). */
static int evaluate(search *s, long index, long trials, int stage, int round)
{
    candidate *c = &s->cands[index];
    if (!c->valid || c->trials >= trials)
        return 0;
    if (s->spent + (trials - c->trials) > s->limit)
        return s->exhausted = 1, -1;
    candidate before = *c;
    while (c->trials < trials) {
        if (must_stop(s)) {
            *c = before;
            return -1;
        }
        long count = trials - c->trials < CHUNK_TRIALS ? trials - c->trials : CHUNK_TRIALS;
        if (add_trials(s, c, count) != 0)
            return s->out_of_memory = 1, -1;
    }
    if (must_stop(s)) { /* cut short by a signal during the last chunk */
        *c = before;
        return -1;
    }
    s->spent += trials - before.trials;
    long n = c->trials - c->failed;
    c->objective = n >= 2 ? ar_attack_objective(s->claim, c->prediction, c->mean, c->max) : -INFINITY;
    log_evaluation(s, index, stage, round);
    return s->out_of_memory ? -1 : 0;
}

/* ---- successive halving over a shifted Sobol design ------------------------------ */

static long halving_cost(long first, long trials, int keep)
{
    long cost = first * trials, n = first;
    while (n > keep) {
        n = (n + 1) / 2;
        cost += n * trials; /* from trials to twice as many */
        trials *= 2;
    }
    return cost;
}

static int by_objective(const void *pa, const void *pb, void *arg)
{
    const candidate *cands = arg;
    long a = *(const long *)pa, b = *(const long *)pb;
    double oa = cands[a].objective, ob = cands[b].objective;
    if (oa != ob)
        return oa > ob ? -1 : 1;
    return (a > b) - (a < b);
}

/* The design's first candidates: the 2^D corners where they are few, then the shifted
 * Sobol points. Returns the live list's length, -1 out of memory. */
static long first_design(search *s, long wanted, long *live)
{
    int dims = s->a->n_dims;
    long n = 0;
    double u[AR_MAX_PARAMS];
    if (dims < 20 && (1L << dims) <= wanted / 4)
        for (long corner = 0; corner < (1L << dims); ++corner) {
            for (int i = 0; i < dims; ++i)
                u[i] = (corner >> i) & 1;
            long before = s->n_cands, c = candidate_at(s, u);
            if (c < 0)
                return -1;
            if (s->n_cands > before) /* a new point */
                live[n++] = c;
        }
    gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)(dims > 1 ? dims : 1));
    if (!q)
        return s->out_of_memory = 1, -1;
    double shift[AR_MAX_PARAMS], v[AR_MAX_PARAMS];
    for (int i = 0; i < dims; ++i) /* Cranley-Patterson: the seed's rotation of the design */
        shift[i] = (double)(ar_mix64(s->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1))) >> 11) * 0x1.0p-53;
    for (long tries = 0; n < wanted && tries < 4 * wanted; ++tries) {
        gsl_qrng_get(q, v);
        for (int i = 0; i < dims; ++i)
            u[i] = fmod(v[i] + shift[i], 1.0);
        long before = s->n_cands, c = candidate_at(s, u);
        if (c < 0) {
            gsl_qrng_free(q);
            return -1;
        }
        if (s->n_cands > before)
            live[n++] = c;
    }
    gsl_qrng_free(q);
    return n;
}

/* Returns the finalists' count in live[] (best first), -1 when stopped. */
static long successive_halving(search *s, long budget, long *live, long cap)
{
    int keep = s->a->confirm > 2 ? s->a->confirm : 2;
    long first = keep + 1;
    while (first * 2 <= cap && first * 2 <= MAX_CANDIDATES_FIRST &&
           halving_cost(first * 2, s->a->first_trials, keep) <= budget)
        first *= 2;
    /* fill the budget between powers of two */
    while (first + first / 8 + 1 <= cap && first + first / 8 + 1 <= MAX_CANDIDATES_FIRST &&
           halving_cost(first + first / 8 + 1, s->a->first_trials, keep) <= budget)
        first += first / 8 + 1;
    long n = first_design(s, first, live);
    if (n < 0)
        return -1;
    long trials = s->a->first_trials;
    for (int round = 0;; ++round) {
        for (long i = 0; i < n; ++i)
            if (evaluate(s, live[i], trials, AR_ATTACK_STAGE_HALVING, round))
                return s->exhausted ? n : -1;
        qsort_r(live, (size_t)n, sizeof *live, by_objective, s->cands);
        if (n <= keep)
            return n;
        n = (n + 1) / 2;
        trials *= 2;
    }
}

/* The baseline: uniform candidates (the search's seed), each with 4 x first_trials. */
static void random_search(search *s)
{
    long trials = AR_ATTACK_RANDOM_FACTOR * s->a->first_trials;
    ar_rng rng;
    ar_rng_init(&rng, s->seed, 0x72616e646f6dULL, 0, 0);
    double u[AR_MAX_PARAMS];
    /* a small space (sets, narrow integer ranges) runs out of new points before trials;
     * a space where the claim is silent gives draws that cost no trial, each a candidate
     * kept: MAX_CANDIDATES_FIRST of them in a row end the search (its memory bounded as
     * the adaptive search's first design is) */
    long without_trial = 0;
    for (long draws = 0; draws < 64 * (s->limit / trials + 1) && !s->exhausted && !s->stopped_early &&
                         !s->interrupted && !s->out_of_memory && without_trial < MAX_CANDIDATES_FIRST; ++draws) {
        for (int i = 0; i < s->a->n_dims; ++i)
            u[i] = (double)(ar_rng_u64(&rng) >> 11) * 0x1.0p-53;
        long spent = s->spent, c = candidate_at(s, u);
        if (c < 0 || evaluate(s, c, trials, AR_ATTACK_STAGE_HALVING, 0))
            break;
        without_trial = s->spent > spent ? 0 : without_trial + 1;
        if (s->spent + trials > s->limit)
            break;
    }
}

/* ---- local refinement: Nelder-Mead over the ranges --------------------------------- */

typedef struct local_problem {
    search *s;
    double start[AR_MAX_PARAMS]; /* the finalist's coordinates: a copy, as candidates move when they grow */
    int map[AR_MAX_PARAMS]; /* simplex coordinate -> dimension */
    int n;
    long trials;
    int stop;
} local_problem;

static double local_value(const gsl_vector *v, void *arg)
{
    local_problem *lp = arg;
    if (lp->stop)
        return GSL_POSINF;
    double u[AR_MAX_PARAMS];
    memcpy(u, lp->start, sizeof u);
    for (int i = 0; i < lp->n; ++i)
        u[lp->map[i]] = gsl_vector_get(v, (size_t)i);
    long c = candidate_at(lp->s, u);
    if (c < 0 || evaluate(lp->s, c, lp->trials, AR_ATTACK_STAGE_LOCAL, 0)) {
        lp->stop = 1;
        return GSL_POSINF;
    }
    const candidate *cand = &lp->s->cands[c];
    /* outside the cube the point is the boundary's: a penalty keeps the simplex inside */
    double outside = 0;
    for (int i = 0; i < lp->n; ++i) {
        double x = gsl_vector_get(v, (size_t)i);
        outside += x < 0 ? -x : x > 1 ? x - 1 : 0;
    }
    if (!ranked(cand))
        return 1e3 + outside;
    /* an overflowed objective as a huge finite one: the simplex's arithmetic stays defined */
    return -(isinf(cand->objective) ? copysign(0x1p1000, cand->objective) : cand->objective) + outside;
}

static void local_refinement(search *s, const long *finalists, long n_finalists)
{
    local_problem lp = {.s = s, .trials = LOCAL_TRIALS_FACTOR * s->a->first_trials};
    for (int i = 0; i < s->a->n_dims; ++i)
        if (!s->a->dims[i].is_set)
            lp.map[lp.n++] = i;
    if (lp.n == 0)
        return;
    gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, (size_t)lp.n);
    gsl_vector *x = gsl_vector_alloc((size_t)lp.n), *step = gsl_vector_alloc((size_t)lp.n);
    if (!m || !x || !step) {
        s->out_of_memory = 1;
    } else {
        /* from each finalist in turn, until the search's trials are spent */
        for (long f = 0; f < n_finalists && !lp.stop; ++f) {
            memcpy(lp.start, s->cands[finalists[f]].u, sizeof lp.start);
            for (int i = 0; i < lp.n; ++i) {
                gsl_vector_set(x, (size_t)i, lp.start[lp.map[i]]);
                gsl_vector_set(step, (size_t)i, 0.15);
            }
            gsl_multimin_function fn = {.f = local_value, .n = (size_t)lp.n, .params = &lp};
            if (gsl_multimin_fminimizer_set(m, &fn, x, step) != GSL_SUCCESS)
                continue;
            for (int iter = 0; iter < 10000 && !lp.stop; ++iter) {
                if (gsl_multimin_fminimizer_iterate(m) != GSL_SUCCESS)
                    break;
                if (gsl_multimin_fminimizer_size(m) < 2e-3)
                    break;
            }
        }
    }
    gsl_multimin_fminimizer_free(m);
    gsl_vector_free(x);
    gsl_vector_free(step);
}

/* ---- the race: what the search has left goes to its leaders ------------------------- */

/* The best 2 x confirm candidates by objective get twice the trials of the most-tried
 * of them, re-ranked after each pass, until the search's trials are spent: the
 * confirmation's choice among close candidates is then made on many trials, not few. */
static void final_race(search *s)
{
    long *order = malloc((size_t)(s->n_cands ? s->n_cands : 1) * sizeof *order), n = 0;
    if (!order) {
        s->out_of_memory = 1;
        return;
    }
    for (long i = 0; i < s->n_cands; ++i)
        if (ranked(&s->cands[i]))
            order[n++] = i;
    long leaders = 2L * s->a->confirm < n ? 2L * s->a->confirm : n;
    for (int pass = 0; leaders > 0 && !s->exhausted && pass < 64; ++pass) {
        qsort_r(order, (size_t)n, sizeof *order, by_objective, s->cands);
        long most = 0;
        for (long i = 0; i < leaders; ++i)
            if (s->cands[order[i]].trials > most)
                most = s->cands[order[i]].trials;
        for (long i = 0; i < leaders; ++i)
            if (evaluate(s, order[i], 2 * most, AR_ATTACK_STAGE_RACE, pass))
                break;
        if (s->interrupted || s->out_of_memory || s->stopped_early)
            break;
    }
    free(order);
}

/* ---- confirmation on fresh streams ---------------------------------------------------- */

/* One confirmation point: its trials on the confirmation streams, summarized as a run
 * would (sums: every value's summary). Returns failed trials, -1 out of memory. */
static long confirm_point(const ar_spec *spec, uint64_t seed, const ar_experiment *x, const ar_point *p, long trials,
                          int threads, ar_summary *sums)
{
    ar_spec fresh = *spec;
    fresh.seed = seed;
    ar_experiment one = *x;
    one.n_axes = 0;
    one.n_points = 1;
    one.base = *p;
    one.trials = trials;
    int width = ar_values_per_trial(p);
    double *values = malloc((size_t)width * (size_t)trials * sizeof *values);
    long *hist_store[AR_MAX_OUTPUTS] = {0};
    long failed = values ? ar_trials_compute_point(&fresh, &one, 0, threads, values, NULL) : -1;
    for (int o = 0; failed >= 0 && o < x->sim->n_outputs; ++o)
        if (x->sim->outputs[o].hist_max) {
            hist_store[o] = calloc((size_t)x->sim->outputs[o].hist_max(p) + 1, sizeof(long));
            if (!hist_store[o])
                failed = -1;
        }
    if (failed >= 0)
        ar_trials_summarize_point(&one, 0, values, failed, sums, hist_store);
    for (int o = 0; o < x->sim->n_outputs; ++o)
        free(hist_store[o]);
    free(values);
    return failed;
}

int ar_attack_judge(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, ar_judgement *j,
                    long *deciding)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    long n = r->n_confirmations;
    double *prediction = malloc((size_t)(n ? n : 1) * sizeof *prediction);
    double *along = malloc((size_t)(n ? n : 1) * sizeof *along);
    long *line = malloc((size_t)(n ? n : 1) * sizeof *line);
    ar_summary *est = malloc((size_t)(n ? n : 1) * sizeof *est);
    ar_rule_workspace *ws = ar_rule_workspace_new(n ? n : 1, ar_attack_line_points(spec, a));
    int status = -1;
    memset(j, 0, sizeof *j);
    *deciding = -1;
    if (n == 0) { /* nothing was confirmed: the attack cannot decide */
        j->verdict = AR_INCONCLUSIVE;
        j->point = -1;
        j->estimate = j->ci_lo = j->ci_hi = j->prediction = NAN;
        snprintf(j->rule, sizeof j->rule, "%s",
                 r->stopped_early ? "nothing to confirm: max_seconds stopped the search before a candidate had its "
                                    "first trials"
                                  : "nothing to confirm: no candidate of the space is one the simulator accepts with "
                                    "the claim speaking there");
        status = 0;
    } else if (prediction && along && line && est && ws) {
        for (long i = 0; i < n; ++i) {
            const double *row = r->confirmations + (size_t)i * r->columns_confirmation;
            line[i] = (long)row[0];
            along[i] = row[2];
            prediction[i] = row[3];
            est[i] = (ar_summary){.count = (long)row[4], .failed = (long)row[5], .mean = row[6], .std = row[7],
                                  .sem = row[8], .ci_lo = row[9], .ci_hi = row[10], .min = row[11], .max = row[12]};
        }
        int limit = ar_rules[claim->rule].attack_line != NULL;
        status = ar_rule_judge(claim, n, prediction, est, x->sim->outputs[claim->output].hist_max != NULL,
                               limit ? line : NULL, limit ? along : NULL, ws, j);
        *deciding = j->point;
    }
    free(prediction);
    free(along);
    free(line);
    free(est);
    ar_rule_workspace_free(ws);
    return status;
}

static int confirm(search *s, const long *chosen, int n_chosen)
{
    ar_attack_record *r = s->rec;
    const ar_experiment *x = s->x;
    int line = ar_attack_line_points(s->spec, s->a);
    int axis = s->axis_param >= 0 ? ar_experiment_axis_of(x, s->axis_param) : -1;
    r->confirmations = calloc((size_t)n_chosen * line * r->columns_confirmation + 1, sizeof(double));
    if (!r->confirmations)
        return s->out_of_memory = 1, -1;
    uint64_t seed = stream_seed(s->spec->seed, "confirm", s->a->id);
    for (int k = 0; k < n_chosen; ++k)
        for (int i = 0; i < line; ++i) {
            ar_point p = s->cands[chosen[k]].point;
            if (axis >= 0)
                p.value[s->axis_param] = x->axes[axis].values[i];
            /* every value's summary, as a run stores them: sized by this point */
            ar_summary *sums = malloc((size_t)ar_values_per_trial(&p) * sizeof *sums);
            long failed = sums ? confirm_point(s->spec, seed, x, &p, s->a->confirm_trials, s->threads, sums) : -1;
            if (failed < 0 || ar_stop_signal) {
                free(sums);
                return failed < 0 ? (s->out_of_memory = 1, -1) : (s->interrupted = 1, -1);
            }
            const ar_summary *e = &sums[claim_value_offset(s->claim, &p)];
            double *row = r->confirmations + (size_t)r->n_confirmations++ * r->columns_confirmation;
            double fixed[AR_ATTACK_CONFIRMATION_FIXED] = {
                k, (double)chosen[k], axis >= 0 ? p.value[s->axis_param] : NAN, ar_claim_predict(s->claim, &p),
                (double)e->count, (double)e->failed, e->mean, e->std, e->sem, e->ci_lo, e->ci_hi, e->min, e->max};
            memcpy(row, fixed, sizeof fixed);
            for (int d = 0; d < s->a->n_dims; ++d)
                row[AR_ATTACK_CONFIRMATION_FIXED + d] = p.value[s->a->dims[d].param];
            r->confirm_trials += s->a->confirm_trials;
            free(sums);
        }
    return 0;
}

/* ---- what an attack will take, before it starts ------------------------------------ */

enum { SIZING_POINTS = 1 << 16 }; /* points of the space sized, at most */

int ar_attack_sizing_experiment(const ar_spec *spec, const ar_attack *a, ar_experiment *x, double *storage)
{
    const ar_experiment *from = &spec->experiments[a->experiment];
    *x = *from;
    /* the most trial values one point holds at once: its confirmation's, or a search chunk */
    long chunk = a->budget < CHUNK_TRIALS ? a->budget : CHUNK_TRIALS;
    x->trials = a->confirm_trials > chunk ? a->confirm_trials : chunk;
    x->n_axes = 0;
    x->n_points = 1;
    const ar_claim *claim = from->claims[a->claim];
    if (ar_rules[claim->rule].attack_line) { /* confirmed along the experiment's own sizes */
        int param = ar_sim_param_index(from->sim, claim->trend_axis);
        x->axes[x->n_axes++] = from->axes[ar_experiment_axis_of(from, param)];
        x->n_points = from->axes[ar_experiment_axis_of(from, param)].count;
    }
    /* per dimension its values (a set) or a range's ends, where the sizes are largest for
     * every simulator's parameters; fewer (a set's ends, then only its largest value) where
     * their product would be too many points to size */
    for (int pass = 0; pass < 3; ++pass) {
        long points = x->n_points;
        for (int i = 0; i < a->n_dims; ++i) {
            const ar_attack_dim *d = &a->dims[i];
            int count = pass == 2 ? 1 : d->is_set && pass == 0 ? d->n_values : 2;
            points = points > SIZING_POINTS ? points : points * count;
        }
        if (points > SIZING_POINTS && pass < 2)
            continue;
        double *next = storage;
        for (int i = 0; i < a->n_dims; ++i) {
            const ar_attack_dim *d = &a->dims[i];
            ar_axis *axis = &x->axes[x->n_axes++];
            *axis = (ar_axis){.param = d->param, .values = next, .position = x->n_axes};
            double lo = d->is_set ? d->values[0] : d->lo, hi = d->is_set ? d->values[0] : d->hi;
            for (int k = 0; d->is_set && k < d->n_values; ++k) {
                lo = d->values[k] < lo ? d->values[k] : lo;
                hi = d->values[k] > hi ? d->values[k] : hi;
            }
            if (d->is_set && pass == 0) {
                memcpy(next, d->values, (size_t)d->n_values * sizeof *next);
                axis->count = d->n_values;
            } else if (pass == 2 || lo == hi) {
                next[0] = hi;
                axis->count = 1;
            } else {
                next[0] = lo;
                next[1] = hi;
                axis->count = 2;
            }
            next += axis->count;
            x->n_points *= axis->count;
        }
        return 0;
    }
    return -1;
}

double ar_attack_file_bytes(const ar_spec *spec, const ar_attack *a)
{
    /* what the file keeps of it: its group and attributes, the confirmation rows, and an
     * evaluation row per candidate of the first design (more follow as the search goes on,
     * but the budget, not the file, bounds them) */
    int line = ar_attack_line_points(spec, a);
    long search = a->budget - ar_attack_confirmation_trials(a, line);
    long first = search / (a->random_search ? AR_ATTACK_RANDOM_FACTOR * a->first_trials : a->first_trials);
    first = first < MAX_CANDIDATES_FIRST ? first : MAX_CANDIDATES_FIRST;
    double points = 1; /* a space of sets and integer ranges has no more candidates than points */
    for (int i = 0; i < a->n_dims; ++i) {
        const ar_attack_dim *d = &a->dims[i];
        int integer = spec->experiments[a->experiment].sim->params[d->param].type == AR_PARAM_INT;
        points *= d->is_set ? d->n_values : integer ? d->hi - d->lo + 1 : INFINITY;
    }
    first = points < (double)first ? (long)points : first;
    return 4096 + 8.0 * (double)a->confirm * line * (AR_ATTACK_CONFIRMATION_FIXED + a->n_dims) +
           8.0 * (double)first * (AR_ATTACK_EVALUATION_FIXED + a->n_dims);
}

/* ---- the attack ------------------------------------------------------------------------- */

ar_status ar_attack_run(const ar_spec *spec, int index, int threads, ar_attack_outcome *out, char *err)
{
    const ar_attack *a = &spec->attacks[index];
    const ar_experiment *x = &spec->experiments[a->experiment];
    memset(out, 0, sizeof *out);
    out->attack = a;
    out->deciding = -1;
    ar_attack_record *r = &out->record;
    r->columns_evaluation = AR_ATTACK_EVALUATION_FIXED + a->n_dims;
    r->columns_confirmation = AR_ATTACK_CONFIRMATION_FIXED + a->n_dims;
    search s = {.spec = spec, .x = x, .a = a, .claim = x->claims[a->claim], .threads = threads, .axis_param = -1,
                .rec = r, .started = now_seconds()};
    if (ar_rules[s.claim->rule].attack_line) {
        s.axis_param = ar_sim_param_index(x->sim, s.claim->trend_axis);
        const ar_axis *axis = &x->axes[ar_experiment_axis_of(x, s.axis_param)];
        s.axis_max = axis->values[0];
        for (int i = 1; i < axis->count; ++i)
            if (axis->values[i] > s.axis_max)
                s.axis_max = axis->values[i];
    }
    s.seed = stream_seed(spec->seed, "search", a->id);
    s.key = ar_mix64(s.seed); /* one key for every candidate: common random numbers */
    s.limit = a->budget - ar_attack_confirmation_trials(a, ar_attack_line_points(spec, a));
    int has_range = 0;
    for (int i = 0; i < a->n_dims; ++i)
        has_range |= !a->dims[i].is_set;
    long halving_budget = has_range ? (long)((1 - LOCAL_SHARE) * (double)s.limit) : s.limit;
    long cap = s.limit / a->first_trials + 1;
    if (cap > MAX_CANDIDATES_FIRST + 1)
        cap = MAX_CANDIDATES_FIRST + 1; /* the first design is the most there are live */
    long *live = malloc((size_t)cap * sizeof *live);
    long chosen[AR_ATTACK_MAX_CONFIRM];
    ar_status status = AR_OK;
    long finalists = !live ? (s.out_of_memory = 1, -1) : a->random_search ? (random_search(&s), 0)
                                                                           : successive_halving(&s, halving_budget, live, cap);
    s.exhausted = 0;
    if (finalists > 0 && !s.stopped_early)
        local_refinement(&s, live, finalists);
    s.exhausted = 0;
    if (finalists > 0 && !s.stopped_early && !s.interrupted && !s.out_of_memory)
        final_race(&s);
    r->stopped_early = s.stopped_early; /* the judge says why nothing was confirmed */
    if (!s.interrupted && !s.out_of_memory) {
        int n_chosen = ar_attack_choose(a, s.claim, r, chosen);
        if (n_chosen < 0 || ((n_chosen == 0 || confirm(&s, chosen, n_chosen) == 0) &&
                             ar_attack_judge(spec, a, r, &out->judgement, &out->deciding) != 0))
            s.out_of_memory = 1;
    }
    r->search_trials = s.spent;
    r->seconds = now_seconds() - s.started;
    if (s.interrupted) {
        status = AR_ERR_INTERRUPTED;
        snprintf(err, AR_ERR_LEN, "attack %s: interrupted by %s", a->id, ar_stop_signal_name());
    } else if (s.out_of_memory) {
        status = AR_ERR_IO;
        snprintf(err, AR_ERR_LEN, "attack %s: out of memory", a->id);
    }
    free(live);
    free(s.slots);
    free(s.cands);
    free(s.values);
    return status;
}

void ar_attack_outcome_free(ar_attack_outcome *out)
{
    free(out->record.evaluations);
    free(out->record.confirmations);
    memset(&out->record, 0, sizeof out->record);
}
