/* store_verdicts: the /verdicts table, one row per (experiment, claim), as text and
 * numbers that h5py, h5dump and xarray read without attnrank's headers. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const note_kinds[] = {[AR_NOTE_NONE] = "", [AR_NOTE_LOOSE] = "loose",
                                         [AR_NOTE_IMPLIED] = "implied", [AR_NOTE_CANNOT_FAIL] = "cannot fail",
                                         [AR_NOTE_EXCLUDES] = "excludes", [AR_NOTE_FAILED] = "failed",
                                         [AR_NOTE_IDENTITY] = "unit check"};
static const char *const undecided_kinds[] = {[AR_UNDECIDED_NONE] = "",
                                              [AR_UNDECIDED_TOO_FEW_SIZES] = "too few sizes",
                                              [AR_UNDECIDED_MISFIT] = "misfit",
                                              [AR_UNDECIDED_RATE_AT_RANGE_END] = "rate at range end",
                                              [AR_UNDECIDED_VARYING_PREDICTION] = "varying prediction",
                                              [AR_UNDECIDED_AXIS_NOT_POSITIVE] = "axis not positive"};

static int name_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

void ar_store_note_describe(const ar_verdict_row *row, char *buf, size_t len)
{
    switch (row->note) {
    case AR_NOTE_IMPLIED: snprintf(buf, len, "implied by %s", row->implied_by); break;
    case AR_NOTE_EXCLUDES: snprintf(buf, len, "CI excludes f"); break;
    case AR_NOTE_FAILED: snprintf(buf, len, "%ld failed, %ld empty", row->failed, row->empty_points); break;
    default: snprintf(buf, len, "%s", note_kinds[row->note]);
    }
}

void ar_store_prediction_describe(const ar_verdict_row *row, char *buf, size_t len)
{
    if (ar_rules[row->rule].shown) /* a direction, not a value */
        snprintf(buf, len, "%s", ar_rules[row->rule].shown);
    else
        snprintf(buf, len, "%.4g", row->prediction);
}

static const char *const resolution_kinds[] = {"none", "factors", "tightness", "established", "exponent",
                                               "change", "measured", "existence", "ratio"};

static void to_record(const ar_verdict_row *row, verdict_record *rec)
{
    memset(rec, 0, sizeof *rec);
    memcpy(rec->claim, row->claim, sizeof rec->claim);
    memcpy(rec->experiment, row->experiment, sizeof rec->experiment);
    memcpy(rec->point, row->point, sizeof rec->point);
    memcpy(rec->statement, row->statement, sizeof rec->statement);
    rec->prediction = row->prediction, rec->estimate = row->estimate;
    rec->ci_lo = row->ci_lo, rec->ci_hi = row->ci_hi;
    rec->trials = row->trials, rec->points = row->points;
    snprintf(rec->verdict, sizeof rec->verdict, "%s", ar_verdict_name(row->verdict));
    snprintf(rec->expected, sizeof rec->expected, "%s", ar_verdict_name(row->expected));
    snprintf(rec->rule, sizeof rec->rule, "%s", row->explanation);
    snprintf(rec->rule_kind, sizeof rec->rule_kind, "%s", ar_rule_name(row->rule));
    ar_resolution_describe(&row->resolution, rec->resolution, sizeof rec->resolution);
    ar_store_note_describe(row, rec->note, sizeof rec->note);
    snprintf(rec->note_kind, sizeof rec->note_kind, "%s", note_kinds[row->note]);
    snprintf(rec->implied_by, sizeof rec->implied_by, "%s", row->implied_by);
    rec->failed = row->failed, rec->empty_points = row->empty_points;
    rec->fit_lines = row->fit.lines, rec->fit_sizes = row->fit.sizes, rec->fit_dof = row->fit.dof;
    rec->fit_rate_profiled = row->fit.rate_profiled;
    rec->fit_b = row->fit.b, rec->fit_chi2 = row->fit.chi2;
    snprintf(rec->fit_undecided, sizeof rec->fit_undecided, "%s", undecided_kinds[row->fit.undecided]);
    snprintf(rec->resolution_kind, sizeof rec->resolution_kind, "%s", resolution_kinds[row->resolution.kind]);
    rec->resolution_value = row->resolution.value;
    rec->resolution_lo = row->resolution.lo, rec->resolution_hi = row->resolution.hi;
    rec->loose = row->resolution.loose, rec->excludes = row->resolution.excludes;
}

/* Names back to enums; -1 for a name this version does not know (a damaged file). */
/* NULL, or the field whose word this attnrank does not know. */
static const char *from_record(const verdict_record *rec, ar_verdict_row *row)
{
    memset(row, 0, sizeof *row);
    memcpy(row->claim, rec->claim, sizeof row->claim);
    memcpy(row->experiment, rec->experiment, sizeof row->experiment);
    memcpy(row->point, rec->point, sizeof row->point);
    memcpy(row->statement, rec->statement, sizeof row->statement);
    row->claim[sizeof row->claim - 1] = row->experiment[sizeof row->experiment - 1] = '\0';
    row->point[sizeof row->point - 1] = row->statement[sizeof row->statement - 1] = '\0';
    row->prediction = rec->prediction, row->estimate = rec->estimate;
    row->ci_lo = rec->ci_lo, row->ci_hi = rec->ci_hi;
    row->trials = rec->trials, row->points = rec->points;
    memcpy(row->explanation, rec->rule, sizeof row->explanation);
    memcpy(row->implied_by, rec->implied_by, sizeof row->implied_by);
    row->explanation[sizeof row->explanation - 1] = row->implied_by[sizeof row->implied_by - 1] = '\0';
    row->failed = (long)rec->failed, row->empty_points = (long)rec->empty_points;
    row->fit = (ar_fit){rec->fit_lines, rec->fit_sizes, rec->fit_dof, rec->fit_b, rec->fit_chi2,
                        rec->fit_rate_profiled != 0, AR_UNDECIDED_NONE};
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->verdict, rec->verdict);
    if (ar_verdict_parse(name, &row->verdict) < 0)
        return "verdict";
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->expected, rec->expected);
    if (ar_verdict_parse(name, &row->expected) < 0)
        return "expected";
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->rule_kind, rec->rule_kind);
    if (ar_rule_parse(name, &row->rule) < 0)
        return "rule_kind";
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->resolution_kind, rec->resolution_kind);
    int kind = -1;
    for (int k = 0; k < (int)(sizeof resolution_kinds / sizeof *resolution_kinds); ++k)
        if (strcmp(name, resolution_kinds[k]) == 0)
            kind = k;
    if (kind < 0)
        return "resolution_kind";
    row->resolution = (ar_resolution){(ar_resolution_kind)kind, rec->resolution_value, rec->resolution_lo,
                                      rec->resolution_hi, rec->loose != 0, rec->excludes != 0};
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->note_kind, rec->note_kind);
    int note = name_index(note_kinds, (int)(sizeof note_kinds / sizeof *note_kinds), name);
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->fit_undecided, rec->fit_undecided);
    int undecided = name_index(undecided_kinds, (int)(sizeof undecided_kinds / sizeof *undecided_kinds), name);
    if (note < 0 || undecided < 0)
        return note < 0 ? "note_kind" : "fit_undecided";
    row->note = (ar_note)note;
    row->fit.undecided = (ar_undecided)undecided;
    return NULL;
}

int ar_store_verdicts_differ(ar_store *store, const ar_verdict_row *fresh, int n_rows, unsigned char *differs,
                             int *first, char *what, size_t what_len, char *err)
{
    size_t count = (size_t)(n_rows ? n_rows : 1);
    verdict_record *records = calloc(count, sizeof *records);
    hid_t type = store_verdict_type();
    dataset_shape shape = store_line_shape((hsize_t)n_rows, VALUE_VERDICT, 0);
    int st = !records || type < 0 ? store_fail(err, store->path, "out of memory reading the verdicts table")
                                  : store_read_checked(store, "verdicts", &shape, type, records, err);
    if (type >= 0)
        H5Tclose(type);
    int differing = 0;
    *first = -1;
    for (int r = 0; st == 0 && r < n_rows; ++r) {
        verdict_record now;
        to_record(&fresh[r], &now);
        int differ = store_record_difference(&records[r], &now, differing == 0 ? what : NULL, what_len);
        if (differs)
            differs[r] = differ;
        if (differ && differing++ == 0)
            *first = r;
    }
    free(records);
    return st < 0 ? -1 : differing;
}

void ar_store_pending_verdicts(const ar_spec *spec, ar_verdict_row *rows)
{
    int r = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        for (int k = 0; k < x->n_claims; ++k, ++r) {
            memset(&rows[r], 0, sizeof rows[r]);
            snprintf(rows[r].claim, sizeof rows[r].claim, "%s", x->claims[k]->id);
            snprintf(rows[r].experiment, sizeof rows[r].experiment, "%s", x->name);
            snprintf(rows[r].statement, sizeof rows[r].statement, "%s", x->claims[k]->statement);
            rows[r].verdict = AR_NOT_RUN;
            rows[r].expected = x->expect[k];
            rows[r].rule = x->claims[k]->rule;
            rows[r].prediction = rows[r].estimate = rows[r].ci_lo = rows[r].ci_hi = NAN;
            rows[r].resolution = (ar_resolution){AR_RESOLUTION_NONE, NAN, NAN, NAN, 0, 0};
        }
    }
}
int ar_store_write_verdicts(ar_store *store, const ar_verdict_row *rows, int n_rows, char *err)
{
    if (ar_store_commit(store, err) < 0)
        return -1;
    if (n_rows != ar_store_verdict_count(&store->spec))
        return store_fail(err, store->path, "cannot write the verdicts table (%d rows for %d)", n_rows,
                    ar_store_verdict_count(&store->spec));
    verdict_record *records = calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof *records);
    if (!records)
        return store_fail(err, store->path, "out of memory writing the verdicts table");
    for (int r = 0; r < n_rows; ++r)
        to_record(&rows[r], &records[r]);
    dataset_shape shape = store_line_shape((hsize_t)n_rows, VALUE_VERDICT, 0);
    hid_t ds = store_open_checked(store, "verdicts", &shape, err), type = ds < 0 ? -1 : store_verdict_type();
    herr_t st = type < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, records);
    if (type >= 0)
        H5Tclose(type);
    free(records);
    if (ds < 0)
        return -1;
    H5Dclose(ds);
    if (st < 0 || H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return store_fail(err, store->path, "cannot write the verdicts table");
    return 0;
}

int ar_store_read_verdicts(ar_store *store, ar_verdict_row **rows, int *n_rows, char *err)
{
    *n_rows = ar_store_verdict_count(&store->spec);
    size_t count = (size_t)(*n_rows ? *n_rows : 1);
    *rows = calloc(count, sizeof **rows);
    verdict_record *records = calloc(count, sizeof *records);
    hid_t type = store_verdict_type();
    dataset_shape shape = store_line_shape((hsize_t)*n_rows, VALUE_VERDICT, 0);
    int st = !*rows || !records || type < 0 ? store_fail(err, store->path, "out of memory reading the verdicts table")
                                             : store_read_checked(store, "verdicts", &shape, type, records, err);
    if (type >= 0)
        H5Tclose(type);
    for (int r = 0; st == 0 && r < *n_rows; ++r) {
        const char *field = from_record(&records[r], &(*rows)[r]);
        if (field)
            st = store_fail(err, store->path, "damaged: row %d of /verdicts has a %s this attnrank does not know", r,
                            field);
    }
    free(records);
    if (st < 0) {
        free(*rows);
        *rows = NULL;
        return -1;
    }
    return 0;
}

int store_create_verdicts(hid_t file, const ar_spec *spec)
{
    int n = ar_store_verdict_count(spec);
    ar_verdict_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
    verdict_record *records = calloc((size_t)(n ? n : 1), sizeof *records);
    hid_t type = rows && records ? store_verdict_type() : -1;
    int ok = type >= 0;
    if (ok) {
        ar_store_pending_verdicts(spec, rows);
        for (int r = 0; r < n; ++r)
            to_record(&rows[r], &records[r]);
        hsize_t dim = (hsize_t)n;
        hid_t ds = store_make_dataset(file, "verdicts", type, 1, &dim, NULL,
                                      "one row per (experiment, claim): the verdict and the point that decided it", 0);
        ok = ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, records) >= 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    if (type >= 0)
        H5Tclose(type);
    free(rows);
    free(records);
    return ok ? 0 : -1;
}
