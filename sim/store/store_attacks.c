/* store_attacks: the file `attnrank attack` writes: the spec's provenance at the root
 * with kind = "attacks", and per attack a group /attacks/<id> holding its space (one
 * attribute a dimension), every evaluation of the search, the confirmations and the
 * verdict. Read back, every dataset is checked against what the stored spec says the
 * attack is before a byte is read. */
#define _GNU_SOURCE
#include "store_parts.h"

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
    hid_t file = store_create_file(path);
    if (file < 0)
        return store_fail(err, path, "cannot create the HDF5 file (does it exist already, or is the directory unwritable?)");
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
    hid_t file = store_open_file(path, 0, err); /* a file it refuses is refused again by its reader */
    if (file < 0)
        return 0;
    char *kind = NULL;
    int is = store_read_attr_string(file, "kind", &kind) == ATTR_OK && strcmp(kind, "attacks") == 0;
    free(kind);
    H5Fclose(file);
    return is;
}

/* A table of the attack's group: 2-D doubles with exactly `columns` columns and the
 * column names its writer gives, refused otherwise; rows allocated here. */
static int read_table(hid_t g, const char *path, const char *id, const char *name, int columns, const char *names,
                      double **rows, long *n, char *err)
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
             dims[0] <= 100000000 && type >= 0 && H5Tget_class(type) == H5T_FLOAT && H5Tget_size(type) == 8;
    char *stored = NULL;
    if (ok && (store_read_attr_string(d, "columns", &stored) != ATTR_OK || strcmp(stored, names) != 0))
        ok = 0;
    free(stored);
    if (ok) {
        *rows = malloc((size_t)(dims[0] ? dims[0] : 1) * (size_t)columns * sizeof **rows);
        ok = *rows && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *rows) >= 0;
        *n = (long)dims[0];
    }
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(d);
    if (!ok) {
        free(*rows);
        *rows = NULL;
        return store_fail(err, path, "damaged: attack %s's %s is not a table of %d doubles a row with columns %s", id,
                          name, columns, names);
    }
    return 0;
}

/* Why confirmation row i of r is not one `attack` writes for a of spec, or 0. */
static int confirmation_row_wrong(const ar_spec *spec, const ar_attack *a, const ar_attack_record *r, long i,
                                  char *why, size_t len)
{
    const ar_experiment *x = &spec->experiments[a->experiment];
    const ar_claim *claim = x->claims[a->claim];
    int line = ar_attack_line_points(spec, a);
    const double *row = r->confirmations + (size_t)i * r->columns_confirmation;
    if (r->n_confirmations > (long)a->confirm * line || r->n_confirmations % line != 0)
        return snprintf(why, len, "%ld rows, not a multiple of %d up to %d", r->n_confirmations, line,
                        a->confirm * line);
    if (row[0] != (double)(i / line))
        return snprintf(why, len, "rank %g where the rows' order gives %ld", row[0], i / line);
    long trials = a->confirm_trials;
    if (!(row[4] >= 0 && row[5] >= 0 && row[4] == floor(row[4]) && row[5] == floor(row[5]) &&
          (row[4] + row[5] == (double)trials || (row[4] == 0 && row[5] <= (double)trials))))
        return snprintf(why, len, "count %g and failed %g are not %ld trials", row[4], row[5], trials);
    ar_point p = x->base;
    for (int d = 0; d < a->n_dims; ++d) {
        const ar_attack_dim *dim = &a->dims[d];
        double v = row[AR_ATTACK_CONFIRMATION_FIXED + d];
        int inside = 0;
        if (dim->is_set)
            for (int k = 0; k < dim->n_values; ++k)
                inside |= v == dim->values[k];
        else
            inside = v >= dim->lo && v <= dim->hi &&
                     (x->sim->params[dim->param].type != AR_PARAM_INT || v == floor(v));
        if (!inside)
            return snprintf(why, len, "%s = %g is outside the attack's space", x->sim->params[dim->param].name, v);
        p.value[dim->param] = v;
    }
    if (claim->rule == AR_RULE_LIMIT) {
        int param = ar_sim_param_index(x->sim, claim->trend_axis);
        const ar_axis *axis = &x->axes[ar_experiment_axis_of(x, param)];
        if (row[2] != axis->values[i % line])
            return snprintf(why, len, "along %g where the line's size %ld is %g", row[2], i % line,
                            axis->values[i % line]);
        p.value[param] = row[2];
    } else if (!isnan(row[2])) {
        return snprintf(why, len, "along %g for a claim without an axis (NaN there)", row[2]);
    }
    double f = ar_claim_predict(claim, &p);
    if (!(f == row[3] || (isnan(f) && isnan(row[3]))))
        return snprintf(why, len, "prediction %.17g where %s predicts %.17g", row[3], claim->id, f);
    return 0;
}

int ar_store_read_attacks(const char *path, ar_spec *spec, ar_attack_record **records, ar_verdict **verdicts,
                          int *done, char *err)
{
    *records = NULL;
    *verdicts = NULL;
    memset(spec, 0, sizeof *spec);
    hid_t file = store_open_file(path, 0, err);
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
        return store_fail(err, path, "damaged: its spec_canonical does not hash to its spec_hash (%s): edited?", want);
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
        columns_text(EVALUATION_COLUMNS, AR_ATTACK_EVALUATION_FIXED, x, a, names, sizeof names);
        status = read_table(g, path, a->id, "evaluations", r->columns_evaluation, names, &r->evaluations,
                            &r->n_evaluations, err);
        columns_text(CONFIRMATION_COLUMNS, AR_ATTACK_CONFIRMATION_FIXED, x, a, names, sizeof names);
        if (status == 0)
            status = read_table(g, path, a->id, "confirmations", r->columns_confirmation, names, &r->confirmations,
                                &r->n_confirmations, err);
        if (status == 0 && (store_read_attr_string(g, "verdict", &verdict) != ATTR_OK ||
                            ar_verdict_parse(verdict, &(*verdicts)[k]) != 0))
            status = store_fail(err, path, "damaged: attack %s has no verdict attribute it can read", a->id);
        long long n;
        if (status == 0 && store_read_attr_integer(g, "search_trials", H5T_NATIVE_LLONG, &n, NULL) == ATTR_OK)
            r->search_trials = (long)n;
        if (status == 0 && store_read_attr_integer(g, "confirm_trials", H5T_NATIVE_LLONG, &n, NULL) == ATTR_OK)
            r->confirm_trials = (long)n;
        if (status == 0 && store_read_attr_integer(g, "candidates", H5T_NATIVE_LLONG, &n, NULL) == ATTR_OK)
            r->candidates = (long)n;
        if (status == 0 && store_read_attr_integer(g, "stopped_early", H5T_NATIVE_LLONG, &n, NULL) == ATTR_OK)
            r->stopped_early = (int)n;
        /* the rows feed the rule's own indexing and the verdict: each must be one a run of
         * this spec writes (its point in the space, its prediction the claim's there) */
        for (long i = 0; status == 0 && i < r->n_confirmations; ++i) {
            char why[160];
            if (confirmation_row_wrong(spec, a, r, i, why, sizeof why))
                status = store_fail(err, path, "damaged: attack %s's confirmation row %ld is not one a run writes: "
                                    "%s", a->id, i, why);
        }
        free(verdict);
        H5Gclose(g);
    }
    H5Fclose(file);
    return status;
}
