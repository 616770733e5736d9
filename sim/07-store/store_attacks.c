/* store_attacks: the file `attnrank attack` writes: the spec's provenance at the root
 * with kind = "attacks", and per attack a group /attacks/<id> holding its space (one
 * attribute a dimension), every evaluation of the search, the confirmations and the
 * verdict. Read back, every dataset is checked against what the stored spec says the
 * attack is before a byte is read (its rows bounded by the spec's budget), and then the
 * record against itself as a result file is (docs/attacks.md#what-reading-checks): each
 * confirmation's statistics as a done point's (store_points.c's checks), each
 * evaluation as the search writes it, the counters what the rows add up to, and the
 * confirmations the candidates the evaluations rank best. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const EVALUATION_COLUMNS[] = {AR_ATTACK_EVALUATION_COLUMNS};
static const char *const CONFIRMATION_COLUMNS[] = {AR_ATTACK_CONFIRMATION_COLUMNS};

static void columns_text(const char *const *fixed, int n_fixed, const ar_experiment *x, const ar_attack *a, char *buf,
                         size_t len)
{
    buf[0] = '\0';
    for (int i = 0; i < n_fixed + a->n_dims; ++i) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? "," : "",
                 i < n_fixed ? fixed[i] : x->sim->params[a->dims[i - n_fixed].param].name);
    }
}

static int write_table(hid_t group, const char *name, const double *rows, long n, int columns, const char *names)
{
    hsize_t dims[2] = {(hsize_t)n, (hsize_t)columns};
    if (H5LTmake_dataset_double(group, name, 2, dims, n ? rows : (const double[1]){0}) < 0)
        return -1;
    hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
    int st = d < 0 ? -1 : store_attr_string(d, "columns", names);
    if (d >= 0)
        H5Dclose(d);
    return st;
}

static void describe_dim(const ar_experiment *x, const ar_attack_dim *d, char *buf, size_t len)
{
    const ar_param *p = &x->sim->params[d->param];
    if (!d->is_set) {
        snprintf(buf, len, "%s range [%.17g, %.17g], %s scale", p->type == AR_PARAM_INT ? "integer" : "real", d->lo,
                 d->hi, d->log_scale ? "log" : "linear");
        return;
    }
    snprintf(buf, len, "set {");
    for (int v = 0; v < d->n_values; ++v) {
        size_t used = strlen(buf);
        if (p->type == AR_PARAM_CHOICE)
            snprintf(buf + used, len - used, "%s%s", v ? ", " : "", p->choices[(int)d->values[v]]);
        else
            snprintf(buf + used, len - used, "%s%.17g", v ? ", " : "", d->values[v]);
    }
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "}");
}

static int write_attack(hid_t attacks, const ar_spec *spec, const ar_attack *a, const ar_attack_record *r,
                        const ar_judgement *j, long deciding)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    hid_t g = H5Gcreate2(attacks, a->id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return -1;
    char names[2048], text[4096], point[1024];
    int ok = store_attr_string(g, "experiment", x->name) == 0 && store_attr_string(g, "claim", claim->id) == 0 &&
             store_attr_string(g, "rule", ar_rules[claim->rule].name) == 0 &&
             store_attr_string(g, "statement", claim->statement) == 0;
    for (int i = 0; ok && i < a->n_dims; ++i) {
        char attr[96];
        describe_dim(x, &a->dims[i], text, sizeof text);
        snprintf(attr, sizeof attr, "space_%s", x->sim->params[a->dims[i].param].name);
        ok = store_attr_string(g, attr, text) == 0;
    }
    columns_text(EVALUATION_COLUMNS, AR_ATTACK_EVALUATION_FIXED, x, a, names, sizeof names);
    ok = ok && write_table(g, "evaluations", r->evaluations, r->n_evaluations, r->columns_evaluation, names) == 0;
    columns_text(CONFIRMATION_COLUMNS, AR_ATTACK_CONFIRMATION_FIXED, x, a, names, sizeof names);
    ok = ok && write_table(g, "confirmations", r->confirmations, r->n_confirmations, r->columns_confirmation, names) == 0;
    ar_attack_describe_row(spec, a, r, deciding, point, sizeof point);
    long long numbers[] = {r->search_trials, r->confirm_trials, r->candidates, r->n_evaluations, deciding,
                           r->stopped_early};
    const char *number_names[] = {"search_trials", "confirm_trials", "candidates", "evaluations", "deciding_row",
                                  "stopped_early"};
    for (int i = 0; ok && i < (int)(sizeof numbers / sizeof *numbers); ++i)
        ok = store_attr_number(g, number_names[i], H5T_NATIVE_LLONG, &numbers[i]) == 0;
    double reals[] = {j->estimate, j->ci_lo, j->ci_hi, j->prediction, j->resolution.value, r->seconds};
    const char *real_names[] = {"estimate", "ci_lo", "ci_hi", "prediction", "resolution", "seconds"};
    for (int i = 0; ok && i < (int)(sizeof reals / sizeof *reals); ++i)
        ok = store_attr_number(g, real_names[i], H5T_NATIVE_DOUBLE, &reals[i]) == 0;
    ok = ok && store_attr_string(g, "verdict", ar_verdict_name(j->verdict)) == 0 &&
         store_attr_string(g, "point", point) == 0 && store_attr_string(g, "verdict_rule", j->rule) == 0;
    H5Gclose(g);
    return ok ? 0 : -1;
}

int ar_store_write_attacks(const char *path, const ar_spec *spec, const char *command_line, const ar_provenance *how,
                           const ar_attack_record *records, const ar_judgement *judgements, const long *deciding,
                           int done, char *err)
{
    hid_t file = store_create_file(path, err);
    if (file < 0)
        return -1;
    long long attacks_done = done;
    int ok = store_write_provenance(file, spec, command_line, how) == 0 &&
             store_attr_string(file, "kind", "attacks") == 0 &&
             store_attr_number(file, "attacks_done", H5T_NATIVE_LLONG, &attacks_done) == 0;
    hid_t attacks = ok ? H5Gcreate2(file, "attacks", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
    ok = attacks >= 0;
    for (int k = 0; ok && k < done; ++k)
        ok = write_attack(attacks, spec, &spec->attacks[k], &records[k], &judgements[k], deciding[k]) == 0;
    if (attacks >= 0)
        H5Gclose(attacks);
    if (!ok || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
        H5Fclose(file);
        unlink(path);
        return store_fail(err, path, "cannot write the attacks (disk full?)");
    }
    return H5Fclose(file) < 0 ? (unlink(path), store_fail(err, path, "cannot close the file (disk full?)")) : 0;
}

int ar_store_is_attack_file(const char *path)
{
    char err[AR_ERR_LEN];
    /* only its kind, read in place from a regular file: a damaged attack file (an object
     * under two names) is its reader's to refuse, on the copy it reads, naming the damage,
     * not to pass for another kind */
    hid_t file = store_open_file(path, AR_STORE_READ_IN_PLACE, 0, err);
    if (file < 0)
        return 0;
    char *kind = NULL;
    int is = store_read_attr_string(file, "kind", &kind) == ATTR_OK && strcmp(kind, "attacks") == 0;
    free(kind);
    H5Fclose(file);
    return is;
}

int ar_store_is_attnrank_file(const char *path)
{
    /* only whose it is: a damaged file of ours (external storage, a lying shape) is its
     * reader's to refuse, so its structure is not walked here; opened, as every file, only
     * if it is a regular one and through that descriptor (a name swapped for a FIFO
     * meanwhile is never waited on) */
    char err[AR_ERR_LEN];
    hid_t file = store_open_file(path, AR_STORE_READ_IN_PLACE, 0, err);
    if (file < 0)
        return 0;
    int is = H5Aexists(file, "attnrank_version") > 0;
    H5Fclose(file);
    return is;
}

/* A table of the attack's group: 2-D doubles with exactly `columns` columns, at most
 * max_rows rows (what the stored spec's budget allows: `allows` says why), every row
 * in the file's own storage, and the column names its writer gives; refused otherwise,
 * before anything is allocated; rows allocated here. */
static int read_table(hid_t g, const char *path, const char *id, const char *name, int columns, const char *names,
                      long max_rows, const char *allows, double **rows, long *n, char *err)
{
    *rows = NULL;
    *n = 0;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return store_fail(err, path, "damaged: attack %s has no %s dataset", id, name);
    hid_t space = H5Dget_space(d), type = H5Dget_type(d);
    hsize_t dims[2] = {0, 0};
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    int ok = rank == 2 && H5Sget_simple_extent_dims(space, dims, NULL) == 2 && dims[1] == (hsize_t)columns &&
             type >= 0 && H5Tget_class(type) == H5T_FLOAT && H5Tget_size(type) == 8;
    char *stored = NULL;
    if (ok && (store_read_attr_string(d, "columns", &stored) != ATTR_OK || strcmp(stored, names) != 0))
        ok = 0;
    free(stored);
    int status = ok ? 0 : store_fail(err, path, "damaged: attack %s's %s is not a table of %d doubles a row with "
                                     "columns %s", id, name, columns, names);
    if (status == 0 && dims[0] > (hsize_t)max_rows)
        status = store_fail(err, path, "damaged: attack %s's %s declares %llu rows; its spec allows at most %ld (%s)",
                            id, name, (unsigned long long)dims[0], max_rows, allows);
    /* the rows are in the file (a declared table never written reads as zeros: memory
     * for nothing), so what is allocated is bounded by the file's size too */
    hsize_t bytes = dims[0] * dims[1] * 8;
    if (status == 0 && H5Dget_storage_size(d) != bytes)
        status = store_fail(err, path, "damaged: attack %s's %s stores %llu bytes, not the %llu its %llu rows take", id,
                            name, (unsigned long long)H5Dget_storage_size(d), (unsigned long long)bytes,
                            (unsigned long long)dims[0]);
    if (status == 0) {
        *rows = malloc((size_t)(dims[0] ? dims[0] : 1) * (size_t)columns * sizeof **rows);
        if (!*rows || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) < 0)
            status = store_fail(err, path, "%s: cannot read attack %s's %s", *rows ? "damaged" : "out of memory", id,
                                name);
        *n = (long)dims[0];
    }
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    if (status != 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return status;
}

/* An integer attribute of the attack's group that the checks below read: there, and an
 * integer, or the file is refused (a string or a real is not a count). */
static int read_count(hid_t g, const char *path, const char *id, const char *name, long long *out, char *err)
{
    if (store_read_attr_integer(g, name, H5T_NATIVE_LLONG, out, NULL) != ATTR_OK)
        return store_fail(err, path, "damaged: attack %s's attribute %s is missing or not an integer", id, name);
    return 0;
}

static int whole(double v) { return v >= 0 && v <= 0x1p53 && v == floor(v); }

/* Why values (one a dimension of the space) are not a point of a's space, or 0; *p
 * gets the point (the experiment's base with them). */
static int space_point_wrong(const ar_experiment *x, const ar_attack *a, const double *values, ar_point *p, char *why,
                             size_t len)
{
    *p = x->base;
    for (int d = 0; d < a->n_dims; ++d) {
        const ar_attack_dim *dim = &a->dims[d];
        double v = values[d];
        int inside = 0;
        if (dim->is_set)
            for (int k = 0; k < dim->n_values; ++k)
                inside |= v == dim->values[k];
        else
            inside = v >= dim->lo && v <= dim->hi &&
                     (x->sim->params[dim->param].type != AR_PARAM_INT || v == floor(v));
        if (!inside)
            return snprintf(why, len, "%s = %g is outside the attack's space", x->sim->params[dim->param].name, v);
        p->value[dim->param] = v;
    }
    return 0;
}

/* Why confirmation row i of r is not one `attack` writes for a of spec, or 0: its rank
 * and order, its point, its size on a limit's line, its prediction, and its statistics
 * those of confirm_trials trials there (the checks a result file's points get). */
static int confirmation_row_wrong(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, long i,
                                  char *why, size_t len)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    int line = ar_attack_line_points(spec, a);
    const double *row = r->confirmations + (size_t)i * r->columns_confirmation;
    if (row[AR_CF_RANK] != (double)(i / line))
        return snprintf(why, len, "rank %g where the rows' order gives %ld", row[AR_CF_RANK], i / line);
    long trials = a->confirm_trials;
    double count = row[AR_CF_COUNT], failed = row[AR_CF_FAILED];
    if (!(whole(count) && whole(failed) && count <= (double)trials && failed <= (double)trials - count))
        return snprintf(why, len, "count %g and failed %g are not %ld trials", count, failed, trials);
    ar_point p;
    if (space_point_wrong(x, a, row + AR_ATTACK_CONFIRMATION_FIXED, &p, why, len))
        return 1;
    if (ar_rules[claim->rule].attack_line) { /* confirmed along the claim's line */
        int param = ar_sim_param_index(x->sim, claim->trend_axis);
        const ar_axis *axis = &x->axes[ar_experiment_axis_of(x, param)];
        if (row[AR_CF_ALONG] != axis->values[i % line])
            return snprintf(why, len, "along %g where the line's size %ld is %g", row[AR_CF_ALONG], i % line,
                            axis->values[i % line]);
        p.value[param] = row[AR_CF_ALONG];
    } else if (!isnan(row[AR_CF_ALONG])) {
        return snprintf(why, len, "along %g for a claim without an axis (NaN there)", row[AR_CF_ALONG]);
    }
    double f = ar_claim_predict(claim, &p);
    if (!(f == row[AR_CF_PREDICTION] || (isnan(f) && isnan(row[AR_CF_PREDICTION]))))
        return snprintf(why, len, "prediction %.17g where %s predicts %.17g", row[AR_CF_PREDICTION], claim->id, f);
    const ar_output *o = &x->sim->outputs[claim->output];
    if (!store_counts_possible((long long)count, (long long)failed, trials, !o->applies || o->applies(&p)))
        return snprintf(why, len, "count %g and failed %g: not each of its %ld trials counted or failed (or the point "
                        "marked for more than %g%% failed)", count, failed, trials, 100 * AR_FAILURE_LIMIT);
    /* the statistics in STORE_CELLS' order, checked as a result file's are */
    double st[N_STATS] = {[STAT_MEAN] = row[AR_CF_MEAN], [STAT_SE] = row[AR_CF_STDERR], [STAT_STD] = row[AR_CF_STD],
                          [STAT_LO] = row[AR_CF_CI_LO], [STAT_HI] = row[AR_CF_CI_HI], [STAT_MIN] = row[AR_CF_MIN],
                          [STAT_MAX] = row[AR_CF_MAX]};
    double spacing = o->hist_max ? 1.0 : o->spacing ? o->spacing(&p) : 0;
    char detail[320];
    int k;
    if (store_statistics_wrong(st, (long long)count, spacing, &k, detail, sizeof detail) ||
        store_range_wrong(st, (long long)count, o, &p, &k, detail, sizeof detail))
        return k == STAT_LO ? snprintf(why, len, "ci_lo and ci_hi [%.10g, %.10g], %s", st[STAT_LO], st[STAT_HI], detail)
               : k == STAT_MIN ? snprintf(why, len, "min and max %g and %g, %s", st[STAT_MIN], st[STAT_MAX], detail)
                               : snprintf(why, len, "%s %g, %s", STORE_CELLS[k].name, st[k], detail);
    return 0;
}

/* The evaluations read as the search wrote them: per candidate (numbered as the search
 * drew them, so each first appears after the ones before it), its point and prediction
 * fixed, its trials growing by at least first_trials an evaluation (the halving's
 * first_trials x 2^round, the simplex's and random search's 4 x first_trials), its
 * statistics defined by its finite values and its objective the one they give. */
typedef struct {
    long n;            /* candidates */
    double *id;        /* their numbers, ascending (the order they first appear in) */
    long *first_row;   /* the row each first appears in */
    double *trials, *failed; /* as their last row leaves them */
    long long spent;   /* the search's trials: every candidate's last trials */
    double most;       /* the most trials a candidate had */
    int any_objective; /* a candidate with an objective (two values): the confirmation chooses among these */
} evaluated;

static void evaluated_free(evaluated *e) { free(e->id), free(e->first_row), free(e->trials), free(e->failed); }

/* The candidate numbered id among e's, or -1. */
static long evaluated_find(const evaluated *e, double id)
{
    long lo = 0, hi = e->n - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (e->id[mid] == id)
            return mid;
        *(e->id[mid] < id ? &lo : &hi) = e->id[mid] < id ? mid + 1 : mid - 1;
    }
    return -1;
}

/* The largest standard error n >= 2 values with this mean and max, none below lower,
 * can have (+inf where lower is): Bhatia-Davis bounds their variance by (max - mean)
 * (mean - lower), so the search's sqrt(m2 / (n - 1) / n) by sqrt((max - mean) (mean -
 * lower) / (n - 1)), 0 where every value equals max. Rounding: the stored mean is its
 * running update's (attack.c: Welford within an evaluation, Chan's merge between),
 * whose error stays below 4 n eps |value| (one rounding of a few ulps of the values'
 * size per value), allowed on both sides of it; the sum of squares' own noise is
 * store_statistics_wrong's room (eps |value| per value). */
static double stderr_most(double mean, double max, double lower, double n)
{
    if (!isfinite(lower))
        return INFINITY;
    double size = fmax(fmax(fabs(lower), fabs(max)), fabs(mean)), drift = 4 * n * DBL_EPSILON * size;
    double variance = fmax(max - mean + drift, 0) * fmax(mean - lower + drift, 0) * n / (n - 1);
    double room = 1e-9 * sqrt(variance) + 8 * DBL_EPSILON * size * sqrt(n);
    return (sqrt(variance) + room) / sqrt(n);
}

/* Why an evaluation row's point is not one of a's space, or 0; *p gets the point the
 * search evaluated (a limit's: at the line's largest size). */
static int searched_point_wrong(const ar_experiment *x, const ar_attack *a, const ar_claim *claim, const double *row,
                                ar_point *p, char *why, size_t len)
{
    if (space_point_wrong(x, a, row + AR_ATTACK_EVALUATION_FIXED, p, why, len))
        return 1;
    if (ar_rules[claim->rule].attack_line) { /* searched at the line's largest size */
        int param = ar_sim_param_index(x->sim, claim->trend_axis);
        const ar_axis *axis = &x->axes[ar_experiment_axis_of(x, param)];
        p->value[param] = axis->values[0];
        for (int v = 1; v < axis->count; ++v)
            p->value[param] = fmax(p->value[param], axis->values[v]);
    }
    return 0;
}

static int evaluation_row_wrong(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, long i,
                                evaluated *e, char *why, size_t len)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    const double *row = r->evaluations + (size_t)i * r->columns_evaluation;
    const double *before = i ? row - r->columns_evaluation : NULL;
    long ft = a->first_trials, limit = a->budget - ar_attack_confirmation_trials(a, ar_attack_line_points(spec, a));
    double stage = row[AR_EV_STAGE], round = row[AR_EV_ROUND], trials = row[AR_EV_TRIALS];
    double failed = row[AR_EV_FAILED], id = row[AR_EV_CANDIDATE];
    if (row[AR_EV_EVALUATION] != (double)i)
        return snprintf(why, len, "evaluation %g where the rows' order gives %ld", row[AR_EV_EVALUATION], i);
    if (!whole(id))
        return snprintf(why, len, "candidate %g is not a candidate's number", id);
    /* halving (0), the simplex (1), the race (2), in that order; rounds in order within each */
    if (!(stage == AR_ATTACK_STAGE_HALVING || (!a->random_search && (stage == AR_ATTACK_STAGE_LOCAL ||
                                                                     stage == AR_ATTACK_STAGE_RACE))) ||
        !(whole(round) && round < 64) || (before && stage < before[AR_EV_STAGE]) ||
        (before && stage == before[AR_EV_STAGE] && round < before[AR_EV_ROUND]) ||
        ((a->random_search || stage == AR_ATTACK_STAGE_LOCAL) && round != 0))
        return snprintf(why, len, "stage %g round %g does not follow the search's order (%s)", stage, round,
                        a->random_search ? "random search: stage 0, round 0"
                                         : "halving rounds, the simplex's round 0, then the race's passes");
    double want = a->random_search || stage == AR_ATTACK_STAGE_LOCAL ? 4.0 * (double)ft
                  : stage == AR_ATTACK_STAGE_HALVING                  ? ldexp((double)ft, (int)round)
                                                                      : NAN; /* the race: twice its leaders' most */
    if (!(whole(trials) && whole(failed) && failed <= trials && trials >= (double)ft &&
          (isnan(want) || trials == want)))
        return snprintf(why, len, "trials %g and failed %g are not what its stage gives a candidate (%g)", trials,
                        failed, want);
    long k = e->n ? evaluated_find(e, id) : -1;
    ar_point p;
    if (k < 0) { /* the candidate's first evaluation */
        if (e->n && id < e->id[e->n - 1])
            return snprintf(why, len, "candidate %g first appears after candidate %g: candidates are numbered as the "
                            "search draws them", id, e->id[e->n - 1]);
        if (searched_point_wrong(x, a, claim, row, &p, why, len))
            return 1;
        char refusal[256];
        double f = ar_claim_predict(claim, &p);
        if (p.sim->check && p.sim->check(&p, refusal, sizeof refusal) >= 0)
            return snprintf(why, len, "a point the simulator refuses (%s): the search evaluates none", refusal);
        if (!(f == row[AR_EV_PREDICTION]))
            return snprintf(why, len, "prediction %.17g where %s predicts %.17g", row[AR_EV_PREDICTION], claim->id, f);
        k = e->n++;
        e->id[k] = id;
        e->first_row[k] = i;
        e->trials[k] = e->failed[k] = 0;
    } else {
        const double *first = r->evaluations + (size_t)e->first_row[k] * r->columns_evaluation;
        for (int d = AR_ATTACK_EVALUATION_FIXED; d < r->columns_evaluation; ++d)
            if (row[d] != first[d])
                return snprintf(why, len, "candidate %g at another point than in its row %ld", id, e->first_row[k]);
        if (row[AR_EV_PREDICTION] != first[AR_EV_PREDICTION])
            return snprintf(why, len, "candidate %g with another prediction than in its row %ld", id, e->first_row[k]);
        if (searched_point_wrong(x, a, claim, row, &p, why, len)) /* its first row's, checked there */
            return 1;
    }
    if (!(trials - e->trials[k] >= (double)ft && failed >= e->failed[k] && failed - e->failed[k] <= trials - e->trials[k]))
        return snprintf(why, len, "trials %g and failed %g after candidate %g's %g and %g: an evaluation adds at least "
                        "%ld trials", trials, failed, id, e->trials[k], e->failed[k], ft);
    if ((double)e->spent + (trials - e->trials[k]) > (double)limit)
        return snprintf(why, len, "trials %g: the evaluations so far spend more than the %ld trials the budget leaves "
                        "the search", trials, limit);
    double n = trials - failed, mean = row[AR_EV_MEAN], sem = row[AR_EV_STDERR], max = row[AR_EV_MAX];
    if (n == 0 ? !(isnan(mean) && isnan(sem) && isnan(max))
               : !(isfinite(mean) && isfinite(max) && max >= mean - 1e-12 * fmax(fabs(mean), fabs(max)) &&
                   (n == 1 ? isnan(sem) : isfinite(sem) && sem >= 0)))
        return snprintf(why, len, "mean %g, stderr %g, max %g are not statistics of %g finite values (NaN where "
                        "they leave one undefined; max >= mean; stderr >= 0)", mean, sem, max, n);
    const ar_output *o = &x->sim->outputs[claim->output];
    double lower, upper;
    int integer = ar_output_range(o, &p, &lower, &upper);
    if (n > 0 && !(mean >= lower - 1e-12 * fmax(fabs(lower), fabs(max)) && max <= upper &&
                   (!integer || max == floor(max))))
        return snprintf(why, len, "mean %g and max %g are not statistics of values in [%g, %g]%s, the values %s takes "
                        "at this point", mean, max, lower, upper, integer ? ", whole" : "", o->name);
    if (n >= 2 && !(sem <= stderr_most(mean, max, lower, n)))
        return snprintf(why, len, "stderr %g is more than %g, the most %g values in [%g, %g] with mean %g can have",
                        sem, stderr_most(mean, max, lower, n), n, lower, max, mean);
    double objective = n >= 2 ? ar_attack_objective(claim, row[AR_EV_PREDICTION], mean, max) : -INFINITY;
    if (!(row[AR_EV_OBJECTIVE] == objective))
        return snprintf(why, len, "objective %.17g where its mean, max and prediction give %.17g",
                        row[AR_EV_OBJECTIVE], objective);
    e->spent += (long long)(trials - e->trials[k]);
    e->trials[k] = trials;
    e->failed[k] = failed;
    e->most = fmax(e->most, trials);
    e->any_objective |= n >= 2; /* infinite too: ranked, as the search ranks it */
    return 0;
}

/* The attack's record checked whole: rows first, then the counters against the rows
 * and the spec's budget, then the confirmations against the evaluations (the candidates
 * the search would confirm, and their points). */
static int record_wrong(const char *path, const ar_spec *spec, const ar_attack *a, const ar_attack_record *r,
                        long long evaluations, char *err)
{
    const ar_claim *claim = spec->experiments[a->experiment].claims[a->claim];
    int line = ar_attack_line_points(spec, a);
    long limit = a->budget - ar_attack_confirmation_trials(a, line), n = r->n_evaluations;
    char why[512];
    for (long i = 0; i < r->n_confirmations; ++i)
        if (confirmation_row_wrong(spec, a, r, i, why, sizeof why))
            return store_fail(err, path, "damaged: attack %s's confirmation row %ld is not one a run writes: %s", a->id,
                              i, why);
    evaluated e = {.id = malloc((size_t)(n + 1) * sizeof(double)), .first_row = malloc((size_t)(n + 1) * sizeof(long)),
                   .trials = malloc((size_t)(n + 1) * sizeof(double)), .failed = malloc((size_t)(n + 1) * sizeof(double))};
    int status = e.id && e.first_row && e.trials && e.failed ? 0 : store_fail(err, path, "out of memory");
    for (long i = 0; status == 0 && i < n; ++i)
        if (evaluation_row_wrong(spec, a, r, i, &e, why, sizeof why))
            status = store_fail(err, path, "damaged: attack %s's evaluation row %ld is not one a run writes: %s", a->id,
                                i, why);
    /* the counters: what the rows add up to, within the spec's budget */
    if (status == 0 && (r->search_trials != e.spent || e.spent > limit))
        status = store_fail(err, path, "damaged: attack %s's search_trials is %ld, where its evaluations spend %lld of "
                            "the %ld its budget leaves the search", a->id, r->search_trials, e.spent, limit);
    if (status == 0 && r->candidates != e.n)
        status = store_fail(err, path, "damaged: attack %s's candidates is %ld, where its evaluations name %ld (a "
                            "file written before this check counted points drawn but never evaluated: attack again, "
                            "the search is the same)", a->id, r->candidates, e.n);
    if (status == 0 && evaluations != n)
        status = store_fail(err, path, "damaged: attack %s's evaluations attribute is %lld, where its table has %ld "
                            "rows", a->id, evaluations, n);
    if (status == 0 && r->confirm_trials != r->n_confirmations * a->confirm_trials)
        status = store_fail(err, path, "damaged: attack %s's confirm_trials is %ld, where its %ld confirmation rows "
                            "of %ld trials make %ld", a->id, r->confirm_trials, r->n_confirmations, a->confirm_trials,
                            r->n_confirmations * a->confirm_trials);
    /* Only the clock stops an adaptive search short: uncapped, its race doubles its
     * leaders' trials until the next doubling does not fit, which leaves less than
     * twice a candidate's most trials unspent. */
    if (status == 0 &&
        (!(r->stopped_early == 0 || (r->stopped_early == 1 && a->max_seconds > 0)) ||
         (r->stopped_early == 0 && !a->random_search && e.any_objective && (double)(limit - e.spent) >= 2 * e.most)))
        status = store_fail(err, path, "damaged: attack %s's stopped_early is %d, where its search (max_seconds %g) "
                            "spent %lld of its %ld trials, its largest evaluation %g: %s", a->id, r->stopped_early,
                            a->max_seconds, e.spent, limit, e.most,
                            r->stopped_early ? "only max_seconds stops a search early"
                                             : "a search stops that short only when max_seconds stops it");
    /* the confirmation re-runs the candidates the evaluations rank best, on their points */
    long chosen[AR_ATTACK_MAX_CONFIRM];
    int n_chosen = status == 0 ? ar_attack_choose(a, claim, r, chosen) : 0;
    if (n_chosen < 0)
        status = store_fail(err, path, "out of memory");
    if (status == 0 && r->n_confirmations != (long)n_chosen * line)
        status = store_fail(err, path, "damaged: attack %s holds %ld confirmation rows, where the %d candidate%s its "
                            "evaluations rank best (confirm = %d) on %d point%s each make %ld", a->id,
                            r->n_confirmations, n_chosen, n_chosen == 1 ? "" : "s", a->confirm, line,
                            line == 1 ? "" : "s", (long)n_chosen * line);
    for (long i = 0; status == 0 && i < r->n_confirmations; ++i) {
        const double *row = r->confirmations + (size_t)i * r->columns_confirmation;
        long want = chosen[i / line], k = evaluated_find(&e, (double)want);
        const double *at = r->evaluations + (size_t)e.first_row[k] * r->columns_evaluation;
        int same = row[AR_CF_CANDIDATE] == (double)want;
        for (int d = 0; same && d < a->n_dims; ++d)
            same = row[AR_ATTACK_CONFIRMATION_FIXED + d] == at[AR_ATTACK_EVALUATION_FIXED + d];
        if (!same)
            status = store_fail(err, path, "damaged: attack %s's confirmation row %ld is not one a run writes: "
                                "candidate %g (or its point), where its evaluations rank best candidate %ld at rank "
                                "%ld", a->id, i, row[AR_CF_CANDIDATE], want, i / line);
    }
    evaluated_free(&e);
    return status;
}

int ar_store_read_attacks(const char *path, ar_spec *spec, ar_attack_record **records, ar_verdict **verdicts,
                          int *done, int *copy, char *err)
{
    *records = NULL;
    *verdicts = NULL;
    if (copy)
        *copy = 0;
    memset(spec, 0, sizeof *spec);
    hid_t file = store_open_file(path, AR_STORE_READ, 1, err);
    if (file < 0)
        return -1;
    char *canonical = NULL, spec_err[AR_ERR_LEN];
    int st = store_read_attr_string(file, "spec_canonical", &canonical);
    if (st != ATTR_OK) {
        H5Fclose(file);
        return store_fail(err, path, "damaged: no spec_canonical attribute");
    }
    if (ar_spec_load_text(canonical, path, NULL, NULL, 0, spec, spec_err) != 0) {
        free(canonical);
        H5Fclose(file);
        ar_store_one_line(spec_err);
        return store_fail(err, path, "damaged: its stored spec does not read back (%s)", spec_err);
    }
    free(canonical);
    char *hash = NULL, want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)spec->hash);
    int hashed = store_read_attr_string(file, "spec_hash", &hash) == ATTR_OK && strcmp(hash, want) == 0;
    free(hash);
    if (!hashed) {
        H5Fclose(file);
        return store_fail(err, path, "damaged: its spec_canonical does not hash to its spec_hash: edited?");
    }
    long long stored_done = -1;
    if (store_read_attr_integer(file, "attacks_done", H5T_NATIVE_LLONG, &stored_done, NULL) != ATTR_OK ||
        stored_done < 0 || stored_done > spec->n_attacks) {
        H5Fclose(file);
        return store_fail(err, path, "damaged: no attacks_done attribute between 0 and its %d attacks",
                          spec->n_attacks);
    }
    *done = (int)stored_done;
    *records = calloc((size_t)spec->n_attacks + 1, sizeof **records);
    *verdicts = calloc((size_t)spec->n_attacks + 1, sizeof **verdicts);
    int status = *records && *verdicts ? 0 : store_fail(err, path, "out of memory");
    if (status == 0 && spec->n_attacks == 0)
        status = store_fail(err, path, "damaged: its spec has no attacks");
    for (int k = 0; status == 0 && k < *done; ++k) {
        const ar_attack *a = &spec->attacks[k];
        const ar_experiment *x = &spec->experiments[a->experiment];
        char group[64], names[2048], *verdict = NULL;
        snprintf(group, sizeof group, "attacks/%s", a->id);
        hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
        if (g < 0) {
            status = store_fail(err, path, "damaged: no /%s group for the spec's attack %s", group, a->id);
            break;
        }
        ar_attack_record *r = &(*records)[k];
        r->columns_evaluation = AR_ATTACK_EVALUATION_FIXED + a->n_dims;
        r->columns_confirmation = AR_ATTACK_CONFIRMATION_FIXED + a->n_dims;
        /* every count read before any table: a string or a real where a count belongs is damage */
        long long counts[5] = {0};
        const char *count_names[5] = {"search_trials", "confirm_trials", "candidates", "evaluations", "stopped_early"};
        for (int i = 0; status == 0 && i < 5; ++i)
            status = read_count(g, path, a->id, count_names[i], &counts[i], err);
        /* within the budget (stopped_early 0 or 1) before they are compared with the rows */
        for (int i = 0; status == 0 && i < 5; ++i)
            if (counts[i] < 0 || counts[i] > (i == 4 ? 1 : a->budget))
                status = store_fail(err, path, "damaged: attack %s's attribute %s is %lld, not 0 to %ld%s", a->id,
                                    count_names[i], counts[i], i == 4 ? 1 : a->budget, i == 4 ? "" : " (its budget)");
        int line = ar_attack_line_points(spec, a);
        long limit = a->budget - ar_attack_confirmation_trials(a, line);
        char allows[160];
        /* each evaluation spends at least first_trials of the search's trials */
        snprintf(allows, sizeof allows, "an evaluation spends at least first_trials = %ld of the search's %ld trials",
                 a->first_trials, limit);
        columns_text(EVALUATION_COLUMNS, AR_ATTACK_EVALUATION_FIXED, x, a, names, sizeof names);
        if (status == 0)
            status = read_table(g, path, a->id, "evaluations", r->columns_evaluation, names, limit / a->first_trials,
                                allows, &r->evaluations, &r->n_evaluations, err);
        snprintf(allows, sizeof allows, "confirm = %d candidates x %d point%s", a->confirm, line, line == 1 ? "" : "s");
        columns_text(CONFIRMATION_COLUMNS, AR_ATTACK_CONFIRMATION_FIXED, x, a, names, sizeof names);
        if (status == 0)
            status = read_table(g, path, a->id, "confirmations", r->columns_confirmation, names,
                                (long)a->confirm * line, allows, &r->confirmations, &r->n_confirmations, err);
        if (status == 0 && (store_read_attr_string(g, "verdict", &verdict) != ATTR_OK ||
                            ar_verdict_parse(verdict, &(*verdicts)[k]) != 0))
            status = store_fail(err, path, "damaged: attack %s has no verdict attribute it can read", a->id);
        r->search_trials = (long)counts[0];
        r->confirm_trials = (long)counts[1];
        r->candidates = (long)counts[2];
        r->stopped_early = (int)counts[4];
        /* the rows feed the rule's own indexing and the verdict: each must be one a run of
         * this spec writes, and the counters what the rows add up to */
        if (status == 0)
            status = record_wrong(path, spec, a, r, counts[3], err);
        free(verdict);
        H5Gclose(g);
    }
    /* the copy just checked, kept for what shows it next (at 3 or above: 0 says none) */
    int held = store_file_descriptor(file);
    if (status == 0 && copy && held >= 0 && (*copy = fcntl(held, F_DUPFD_CLOEXEC, 3)) < 0)
        *copy = 0, status = store_fail(err, path, "cannot keep its copy open: %s", strerror(errno));
    H5Fclose(file);
    return status;
}
