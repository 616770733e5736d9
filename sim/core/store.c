/* store: HDF5 layout creation, point writes, resume ledger, verdict table. */
#define _GNU_SOURCE
#include "attnrank/store.h"
#include "attnrank/registry.h"

#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank_config.h"
#include "git_revision.h"

#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* 2: /verdicts gained resolution, note and rule_kind; limits are judged on an
 * extrapolated constant. */
enum { FORMAT_VERSION = 2 };
static const char *const STAT_NAMES[] = {"mean", "stderr", "std", "ci_lo", "ci_hi", "min", "max"};
static const char *const STAT_DOCS[] = {
    "mean over finite trials",
    "standard error of the mean: std / sqrt(count)",
    "sample standard deviation (n - 1 denominator)",
    "lower end of the 95% interval: mean - t(0.975, count-1) * stderr",
    "upper end of the 95% interval: mean + t(0.975, count-1) * stderr",
    "smallest trial value",
    "largest trial value",
};
enum { N_STATS = 7 };

struct ar_store {
    hid_t file;
    char *path;
    ar_spec spec;
    unsigned char **done; /* per experiment, per point */
};

static int fail(char *err, const char *path, const char *fmt, ...)
{
    char msg[AR_ERR_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, AR_ERR_LEN, "%.400s: %s", path, msg);
    return -1;
}

/* ---- small attribute helpers: every HDF5 return is checked ----------------------- */

/* Attributes are variable-length UTF-8 strings (h5py reads them as str); they are
 * written once, when the layout is created. */
static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t status = attr < 0 ? -1 : H5Awrite(attr, type, &value);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
    return status < 0 ? -1 : 0;
}

static int attr_number(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t status = attr < 0 ? -1 : H5Awrite(attr, type, value);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return status < 0 ? -1 : 0;
}

static int read_attr_string(hid_t obj, const char *name, char **out)
{
    *out = NULL;
    if (H5Aexists(obj, name) <= 0)
        return -1;
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t type = H5Aget_type(attr);
    int status = -1;
    if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
        char *value = NULL;
        if (H5Aread(attr, type, &value) >= 0 && value) {
            *out = strdup(value);
            H5free_memory(value);
            status = 0;
        }
    }
    H5Tclose(type);
    H5Aclose(attr);
    return status;
}

/* ---- layout --------------------------------------------------------------------- */

static void axis_dims(const ar_experiment *x, hsize_t *dims)
{
    for (int a = 0; a < x->n_axes; ++a)
        dims[a] = (hsize_t)x->axes[a].count;
}

static hid_t make_dataset(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const void *fill, const char *description)
{
    hid_t space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* Allocated now, so later writes touch raw data only (see store.h). No times: the
     * same run writes the same bytes. */
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
    H5Pset_obj_track_times(dcpl, 0);
    if (fill)
        H5Pset_fill_value(dcpl, type, fill);
    hid_t ds = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds >= 0 && description && attr_string(ds, "description", description) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

static hid_t make_group(hid_t parent, const char *name)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_obj_track_times(gcpl, 0);
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    return g;
}

static hid_t choice_type(const ar_param *p)
{
    size_t longest = 1;
    for (int i = 0; p->choices[i]; ++i)
        if (strlen(p->choices[i]) + 1 > longest)
            longest = strlen(p->choices[i]) + 1;
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, longest);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    return type;
}

static int write_axes(hid_t group, const ar_experiment *x, hid_t *scales)
{
    for (int a = 0; a < x->n_axes; ++a) {
        const ar_param *p = &x->sim->params[x->axes[a].param];
        hsize_t n = (hsize_t)x->axes[a].count;
        hid_t ds;
        herr_t st;
        if (p->type == AR_PARAM_CHOICE) {
            hid_t type = choice_type(p);
            size_t size = H5Tget_size(type);
            char *buf = calloc(n, size);
            for (hsize_t i = 0; i < n; ++i)
                strcpy(buf + i * size, p->choices[(int)x->axes[a].values[i]]);
            ds = make_dataset(group, p->name, type, 1, &n, NULL, p->doc);
            st = ds < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
            free(buf);
            H5Tclose(type);
        } else if (p->type == AR_PARAM_INT) {
            long long *buf = malloc(n * sizeof *buf);
            for (hsize_t i = 0; i < n; ++i)
                buf[i] = (long long)x->axes[a].values[i];
            ds = make_dataset(group, p->name, H5T_NATIVE_LLONG, 1, &n, NULL, p->doc);
            st = ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
            free(buf);
        } else {
            ds = make_dataset(group, p->name, H5T_NATIVE_DOUBLE, 1, &n, NULL, p->doc);
            st = ds < 0 ? -1 : H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x->axes[a].values);
        }
        if (st < 0 || H5DSset_scale(ds, p->name) < 0)
            return -1;
        scales[a] = ds;
    }
    return 0;
}

static int attach_scales(hid_t ds, const ar_experiment *x, const hid_t *scales)
{
    for (int a = 0; a < x->n_axes; ++a)
        if (H5DSattach_scale(ds, scales[a], (unsigned)a) < 0 ||
            H5DSset_label(ds, (unsigned)a, x->sim->params[x->axes[a].param].name) < 0)
            return -1;
    return 0;
}

static int fixed_parameter_attributes(hid_t group, const ar_experiment *x)
{
    for (int i = 0; i < x->sim->n_params; ++i) {
        if (ar_experiment_axis_of(x, i) >= 0)
            continue;
        const ar_param *p = &x->sim->params[i];
        int st;
        if (p->type == AR_PARAM_CHOICE) {
            st = attr_string(group, p->name, p->choices[(int)x->base.value[i]]);
        } else if (p->type == AR_PARAM_INT) {
            long long v = (long long)x->base.value[i];
            st = attr_number(group, p->name, H5T_NATIVE_LLONG, &v);
        } else {
            st = attr_number(group, p->name, H5T_NATIVE_DOUBLE, &x->base.value[i]);
        }
        if (st < 0)
            return -1;
    }
    return 0;
}

static int hist_width(const ar_experiment *x, const ar_output *o)
{
    int width = 0;
    for (long p = 0; p < x->n_points; ++p) {
        ar_point point;
        ar_experiment_point(x, p, &point);
        int m = o->hist_max(&point);
        if (m + 1 > width)
            width = m + 1;
    }
    return width;
}

/* Longest vector of an output over the grid (1 for scalars). */
static int vector_width(const ar_experiment *x, const ar_output *o)
{
    int width = 1;
    for (long p = 0; o->length && p < x->n_points; ++p) {
        ar_point point;
        ar_experiment_point(x, p, &point);
        if (o->length(&point) > width)
            width = o->length(&point);
    }
    return width;
}

/* A vector output's index: 0, 1, ... (layers), or the coordinates the simulator gives
 * (bin centres), as a dimension scale. */
static hid_t index_scale(hid_t group, const char *name, hsize_t width, double (*value)(int))
{
    hid_t type = value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
    void *values = malloc(width * 8);
    for (hsize_t v = 0; v < width; ++v) {
        if (value)
            ((double *)values)[v] = value((int)v);
        else
            ((long long *)values)[v] = (long long)v;
    }
    hid_t index = make_dataset(group, name, type, 1, &width, NULL,
                               value ? "coordinate of each value in a trial" : "index of the value in a trial");
    herr_t st = index < 0 ? -1 : H5Dwrite(index, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    free(values);
    if (st < 0 || H5DSset_scale(index, name) < 0) {
        if (index >= 0)
            H5Dclose(index);
        return -1;
    }
    return index;
}

static int create_output(hid_t group, const ar_experiment *x, const ar_output *o, const hid_t *scales)
{
    hid_t og = make_group(group, o->name);
    if (og < 0)
        return -1;
    const char *definition = o->definition ? o->definition : o->description;
    if (attr_string(og, "description", o->description) < 0 || attr_string(og, "definition", definition) < 0)
        return -1;
    hsize_t dims[AR_MAX_PARAMS + 2];
    axis_dims(x, dims);
    /* A vector output has one more dimension, with its own index scale. */
    int rank = x->n_axes;
    hid_t index = -1, column = -1;
    if (o->length) {
        hsize_t width = (hsize_t)vector_width(x, o);
        if (o->columns > 0) { /* a 2-D grid: rows, then columns */
            hsize_t columns = (hsize_t)o->columns;
            width /= columns;
            column = index_scale(og, o->column_name, columns, o->column_value);
            if (column < 0)
                return -1;
            dims[rank + 1] = columns;
        }
        index = index_scale(og, o->index_name, width, o->index_value);
        if (index < 0)
            return -1;
        dims[rank] = width;
        rank += o->columns > 0 ? 2 : 1;
    }
    double nan = NAN;
    long long zero = 0;
    for (int s = 0; s < N_STATS + 2; ++s) {
        int is_count = s >= N_STATS;
        const char *name = s < N_STATS ? STAT_NAMES[s] : s == N_STATS ? "count" : "failed";
        const char *doc = s < N_STATS ? STAT_DOCS[s]
                          : s == N_STATS ? "trials with a finite value (the n behind mean and stderr)"
                                         : "trials that failed (non-finite value); never averaged";
        hid_t ds = make_dataset(og, name, is_count ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, rank, dims,
                                is_count ? (const void *)&zero : (const void *)&nan, doc);
        if (ds < 0 || attach_scales(ds, x, scales) < 0)
            return -1;
        if (index >= 0 && (H5DSattach_scale(ds, index, (unsigned)x->n_axes) < 0 ||
                           H5DSset_label(ds, (unsigned)x->n_axes, o->index_name) < 0))
            return -1;
        if (column >= 0 && (H5DSattach_scale(ds, column, (unsigned)x->n_axes + 1) < 0 ||
                            H5DSset_label(ds, (unsigned)x->n_axes + 1, o->column_name) < 0))
            return -1;
        H5Dclose(ds);
    }
    if (index >= 0)
        H5Dclose(index);
    if (column >= 0)
        H5Dclose(column);
    if (o->hist_max) {
        hsize_t width = (hsize_t)hist_width(x, o);
        long long *values = malloc(width * sizeof *values);
        for (hsize_t v = 0; v < width; ++v)
            values[v] = (long long)v;
        hid_t vs = make_dataset(og, "value", H5T_NATIVE_LLONG, 1, &width, NULL, "histogram bin: the value counted");
        if (vs < 0 || H5Dwrite(vs, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0 ||
            H5DSset_scale(vs, "value") < 0) {
            free(values);
            return -1;
        }
        free(values);
        dims[x->n_axes] = width;
        hid_t hist = make_dataset(og, "hist", H5T_NATIVE_LLONG, x->n_axes + 1, dims, &zero,
                                  "trial counts per value; last dimension: value");
        if (hist < 0 || attach_scales(hist, x, scales) < 0 || H5DSattach_scale(hist, vs, (unsigned)x->n_axes) < 0 ||
            H5DSset_label(hist, (unsigned)x->n_axes, "value") < 0)
            return -1;
        H5Dclose(hist);
        H5Dclose(vs);
    }
    H5Gclose(og);
    return 0;
}

static int create_theory(hid_t group, const ar_experiment *x, const hid_t *scales)
{
    hid_t tg = make_group(group, "theory");
    if (tg < 0)
        return -1;
    int count;
    const ar_claim *const *claims = ar_claims_all(&count);
    hsize_t dims[AR_MAX_PARAMS];
    axis_dims(x, dims);
    double *values = malloc((size_t)x->n_points * sizeof *values);
    for (int c = 0; c < count; ++c) {
        const ar_claim *claim = claims[c];
        if (claim->sim != x->sim)
            continue;
        for (long p = 0; p < x->n_points; ++p) {
            ar_point point;
            ar_experiment_point(x, p, &point);
            values[p] = claim->predict(&point);
        }
        hid_t ds = make_dataset(tg, claim->id, H5T_NATIVE_DOUBLE, x->n_axes, dims, NULL, claim->statement);
        if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0 ||
            attach_scales(ds, x, scales) < 0 || attr_string(ds, "formula", claim->formula) < 0 ||
            attr_string(ds, "output", x->sim->outputs[claim->output].name) < 0) {
            free(values);
            return -1;
        }
        H5Dclose(ds);
    }
    free(values);
    H5Gclose(tg);
    return 0;
}

static int create_experiment(hid_t file, const ar_experiment *x)
{
    hid_t g = make_group(file, x->name);
    if (g < 0)
        return -1;
    char claims[256] = "";
    for (int k = 0; k < x->n_claims; ++k) {
        strncat(claims, k ? " " : "", sizeof claims - strlen(claims) - 1);
        strncat(claims, x->claims[k]->id, sizeof claims - strlen(claims) - 1);
    }
    long long trials = x->trials;
    char axes[512] = "";
    for (int a = 0; a < x->n_axes; ++a) {
        strncat(axes, a ? " " : "", sizeof axes - strlen(axes) - 1);
        strncat(axes, x->sim->params[x->axes[a].param].name, sizeof axes - strlen(axes) - 1);
    }
    const ar_family *family = ar_family_of(x->sim); /* for the figure scripts */
    if ((family && (attr_string(g, "family", family->name) < 0 ||
                    attr_string(g, "plot_script", family->plot_script ? family->plot_script : "") < 0)) ||
        attr_string(g, "simulator", x->sim->name) < 0 || attr_string(g, "description", x->sim->summary) < 0 ||
        attr_string(g, "claims", claims) < 0 || attr_string(g, "axes", axes) < 0 ||
        attr_number(g, "trials", H5T_NATIVE_LLONG, &trials) < 0 || fixed_parameter_attributes(g, x) < 0)
        return -1;
    hid_t scales[AR_MAX_PARAMS];
    if (write_axes(g, x, scales) < 0)
        return -1;
    for (int o = 0; o < x->sim->n_outputs; ++o)
        if (create_output(g, x, &x->sim->outputs[o], scales) < 0)
            return -1;
    if (create_theory(g, x, scales) < 0)
        return -1;
    hsize_t dims[AR_MAX_PARAMS];
    axis_dims(x, dims);
    unsigned char zero = 0;
    hid_t done = make_dataset(g, "done", H5T_NATIVE_UCHAR, x->n_axes, dims, &zero,
                              "1 where the point is complete and its data flushed (resume ledger)");
    if (done < 0 || attach_scales(done, x, scales) < 0)
        return -1;
    H5Dclose(done);
    for (int a = 0; a < x->n_axes; ++a)
        H5Dclose(scales[a]);
    H5Gclose(g);
    return 0;
}

/* A verdict as /verdicts holds it: names and text where the row has enums, so h5py,
 * h5dump and xarray read it without attnrank's headers; the resolution both as text and
 * as its numbers. */
typedef struct verdict_record {
    char claim[16], experiment[64], point[256], statement[160];
    double prediction, estimate, ci_lo, ci_hi;
    long long trials;
    int points;
    char verdict[16], expected[16], rule[240], resolution[96], note[32], rule_kind[16];
    char resolution_kind[16];
    double resolution_value, resolution_lo, resolution_hi;
    int loose, excludes;
    char note_kind[16], implied_by[16];
    long long failed, empty_points;
    int fit_lines, fit_sizes, fit_dof, fit_rate_profiled;
    double fit_b, fit_chi2;
    char fit_undecided[24];
} verdict_record;

static const char *const note_kinds[] = {[AR_NOTE_NONE] = "", [AR_NOTE_LOOSE] = "loose",
                                         [AR_NOTE_IMPLIED] = "implied", [AR_NOTE_CANNOT_FAIL] = "cannot fail",
                                         [AR_NOTE_EXCLUDES] = "excludes", [AR_NOTE_FAILED] = "failed",
                                         [AR_NOTE_IDENTITY] = "unit check"};
static const char *const undecided_kinds[] = {[AR_UNDECIDED_NONE] = "",
                                              [AR_UNDECIDED_TOO_FEW_SIZES] = "too few sizes",
                                              [AR_UNDECIDED_MISFIT] = "misfit",
                                              [AR_UNDECIDED_RATE_AT_RANGE_END] = "rate at range end",
                                              [AR_UNDECIDED_VARYING_PREDICTION] = "varying prediction"};

static int name_index(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

void ar_note_describe(const ar_verdict_row *row, char *buf, size_t len)
{
    switch (row->note) {
    case AR_NOTE_IMPLIED: snprintf(buf, len, "implied by %s", row->implied_by); break;
    case AR_NOTE_EXCLUDES: snprintf(buf, len, "CI excludes f"); break;
    case AR_NOTE_FAILED: snprintf(buf, len, "%ld failed, %ld empty", row->failed, row->empty_points); break;
    default: snprintf(buf, len, "%s", note_kinds[row->note]);
    }
}

void ar_prediction_describe(const ar_verdict_row *row, char *buf, size_t len)
{
    if (row->rule == AR_RULE_INCREASING || row->rule == AR_RULE_DECREASING)
        snprintf(buf, len, "%s", row->rule == AR_RULE_INCREASING ? "increasing" : "decreasing");
    else if (row->rule == AR_RULE_STEEPER)
        snprintf(buf, len, "steeper");
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
    ar_note_describe(row, rec->note, sizeof rec->note);
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
static int from_record(const verdict_record *rec, ar_verdict_row *row)
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
        return -1;
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->expected, rec->expected);
    if (ar_verdict_parse(name, &row->expected) < 0)
        return -1;
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->rule_kind, rec->rule_kind);
    if (ar_rule_parse(name, &row->rule) < 0)
        return -1;
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->resolution_kind, rec->resolution_kind);
    int kind = -1;
    for (int k = 0; k < (int)(sizeof resolution_kinds / sizeof *resolution_kinds); ++k)
        if (strcmp(name, resolution_kinds[k]) == 0)
            kind = k;
    if (kind < 0)
        return -1;
    row->resolution = (ar_resolution){(ar_resolution_kind)kind, rec->resolution_value, rec->resolution_lo,
                                      rec->resolution_hi, rec->loose != 0, rec->excludes != 0};
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->note_kind, rec->note_kind);
    int note = name_index(note_kinds, (int)(sizeof note_kinds / sizeof *note_kinds), name);
    snprintf(name, sizeof name, "%.*s", (int)sizeof rec->fit_undecided, rec->fit_undecided);
    int undecided = name_index(undecided_kinds, (int)(sizeof undecided_kinds / sizeof *undecided_kinds), name);
    if (note < 0 || undecided < 0)
        return -1;
    row->note = (ar_note)note;
    row->fit.undecided = (ar_undecided)undecided;
    return 0;
}

static hid_t verdict_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(verdict_record));
#define STR_FIELD(name)                                                                  \
    do {                                                                                 \
        hid_t s = H5Tcopy(H5T_C_S1);                                                     \
        H5Tset_size(s, sizeof(((verdict_record *)0)->name));                             \
        H5Tset_strpad(s, H5T_STR_NULLTERM);                                              \
        H5Tinsert(t, #name, HOFFSET(verdict_record, name), s);                           \
        H5Tclose(s);                                                                     \
    } while (0)
#define NUM_FIELD(name, type) H5Tinsert(t, #name, HOFFSET(verdict_record, name), type)
    STR_FIELD(claim);
    STR_FIELD(experiment);
    STR_FIELD(point);
    STR_FIELD(statement);
    NUM_FIELD(prediction, H5T_NATIVE_DOUBLE);
    NUM_FIELD(estimate, H5T_NATIVE_DOUBLE);
    NUM_FIELD(ci_lo, H5T_NATIVE_DOUBLE);
    NUM_FIELD(ci_hi, H5T_NATIVE_DOUBLE);
    NUM_FIELD(trials, H5T_NATIVE_LLONG);
    NUM_FIELD(points, H5T_NATIVE_INT);
    STR_FIELD(verdict);
    STR_FIELD(expected);
    STR_FIELD(rule);
    STR_FIELD(resolution);
    STR_FIELD(note);
    STR_FIELD(rule_kind);
    STR_FIELD(resolution_kind);
    NUM_FIELD(resolution_value, H5T_NATIVE_DOUBLE);
    NUM_FIELD(resolution_lo, H5T_NATIVE_DOUBLE);
    NUM_FIELD(resolution_hi, H5T_NATIVE_DOUBLE);
    NUM_FIELD(loose, H5T_NATIVE_INT);
    NUM_FIELD(excludes, H5T_NATIVE_INT);
    STR_FIELD(note_kind);
    STR_FIELD(implied_by);
    NUM_FIELD(failed, H5T_NATIVE_LLONG);
    NUM_FIELD(empty_points, H5T_NATIVE_LLONG);
    NUM_FIELD(fit_lines, H5T_NATIVE_INT);
    NUM_FIELD(fit_sizes, H5T_NATIVE_INT);
    NUM_FIELD(fit_dof, H5T_NATIVE_INT);
    NUM_FIELD(fit_rate_profiled, H5T_NATIVE_INT);
    NUM_FIELD(fit_b, H5T_NATIVE_DOUBLE);
    NUM_FIELD(fit_chi2, H5T_NATIVE_DOUBLE);
    STR_FIELD(fit_undecided);
#undef STR_FIELD
#undef NUM_FIELD
    return t;
}

int ar_store_verdict_count(const ar_spec *spec)
{
    int n = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        n += spec->experiments[e].n_claims;
    return n;
}

static void pending_rows(const ar_spec *spec, ar_verdict_row *rows)
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

static int write_provenance(hid_t file, const ar_spec *spec, const char *command_line)
{
    char created[64], hash[32], hdf5[32], host[256] = "unknown";
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)spec->hash);
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
    gethostname(host, sizeof host - 1);
    int format = FORMAT_VERSION;
    unsigned long long seed = spec->seed;
    if (attr_string(file, "attnrank_version", ATTNRANK_VERSION) < 0 ||
        attr_number(file, "format_version", H5T_NATIVE_INT, &format) < 0 ||
        attr_string(file, "git_revision", ar_git_revision) < 0 ||
        attr_string(file, "created", created) < 0 || attr_string(file, "command_line", command_line) < 0 ||
        attr_string(file, "host", host) < 0 || attr_string(file, "spec_source", spec->source) < 0 ||
        attr_string(file, "spec", spec->source_text) < 0 ||
        attr_string(file, "spec_canonical", spec->canonical) < 0 || attr_string(file, "spec_hash", hash) < 0 ||
        attr_number(file, "seed", H5T_NATIVE_ULLONG, &seed) < 0 ||
        attr_string(file, "title", spec->title ? spec->title : "") < 0 ||
        attr_string(file, "rng", "Philox4x64-10 (Random123), key = {seed, hash(simulator, point "
                                 "parameters)}, counter = {trial, substream, block}; normals by "
                                 "128-layer ziggurat") < 0 ||
        attr_string(file, "gsl_version", GSL_VERSION) < 0 || attr_string(file, "hdf5_version", hdf5) < 0 ||
        attr_string(file, "openblas_config", ar_blas_config()) < 0 ||
        attr_string(file, "openblas_core", ar_blas_corename()) < 0 ||
        attr_string(file, "compiler", __VERSION__) < 0)
        return -1;
    return 0;
}

static int load_done(ar_store *s)
{
    s->done = calloc((size_t)s->spec.n_experiments, sizeof *s->done);
    for (int e = 0; e < s->spec.n_experiments; ++e) {
        const ar_experiment *x = &s->spec.experiments[e];
        s->done[e] = calloc((size_t)x->n_points, 1);
        char name[128];
        snprintf(name, sizeof name, "%s/done", x->name);
        hid_t ds = H5Dopen2(s->file, name, H5P_DEFAULT);
        if (ds < 0)
            return -1;
        hid_t space = H5Dget_space(ds);
        hssize_t n = H5Sget_simple_extent_npoints(space);
        H5Sclose(space);
        herr_t st = n == x->n_points ? H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->done[e]) : -1;
        H5Dclose(ds);
        if (st < 0)
            return -1;
    }
    return 0;
}

ar_store *ar_store_create(const char *path, const ar_spec *spec, const char *command_line, char *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_obj_track_times(fcpl, 0);
    hid_t file = H5Fcreate(path, H5F_ACC_EXCL, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (file < 0) {
        fail(err, path, "cannot create the HDF5 file (does it exist already, or is the directory unwritable?)");
        return NULL;
    }
    int ok = write_provenance(file, spec, command_line) == 0;
    for (int e = 0; ok && e < spec->n_experiments; ++e)
        ok = create_experiment(file, &spec->experiments[e]) == 0;
    if (ok) {
        int n = ar_store_verdict_count(spec);
        ar_verdict_row *rows = calloc((size_t)(n ? n : 1), sizeof *rows);
        verdict_record *records = calloc((size_t)(n ? n : 1), sizeof *records);
        ok = rows && records;
        if (ok) {
            pending_rows(spec, rows);
            for (int r = 0; r < n; ++r)
                to_record(&rows[r], &records[r]);
            hid_t type = verdict_type();
            hsize_t dim = (hsize_t)n;
            hid_t ds = make_dataset(file, "verdicts", type, 1, &dim, NULL,
                                    "one row per (experiment, claim): the verdict and the point that decided it");
            ok = ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, records) >= 0;
            if (ds >= 0)
                H5Dclose(ds);
            H5Tclose(type);
        }
        free(rows);
        free(records);
    }
    if (!ok || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
        H5Fclose(file);
        unlink(path);
        fail(err, path, "cannot write the HDF5 layout (disk full?)");
        return NULL;
    }
    H5Fclose(file);
    /* Reopen: the spec is rebuilt from the file, so create and resume share one path. */
    return ar_store_open(path, 1, err);
}

ar_store *ar_store_open(const char *path, int writable, char *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (access(path, F_OK) != 0) {
        fail(err, path, "no such file");
        return NULL;
    }
    if (H5Fis_hdf5(path) <= 0) {
        fail(err, path, "not an HDF5 file, or truncated");
        return NULL;
    }
    /* Readers skip HDF5's file lock, so `info` can look at a run in progress. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!writable)
        H5Pset_file_locking(fapl, 0, 1);
    hid_t file = H5Fopen(path, writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        fail(err, path, "cannot open the HDF5 file%s", writable ? " for writing" : "");
        return NULL;
    }
    ar_store *s = calloc(1, sizeof *s);
    s->file = file;
    s->path = strdup(path);
    char *canonical = NULL, *version = NULL;
    int format = 0;
    if (read_attr_string(file, "attnrank_version", &version) < 0) {
        fail(err, path, "not an attnrank result file (no attnrank_version attribute)");
        goto bad;
    }
    hid_t fa = H5Aexists(file, "format_version") > 0 ? H5Aopen(file, "format_version", H5P_DEFAULT) : -1;
    if (fa < 0 || H5Aread(fa, H5T_NATIVE_INT, &format) < 0 || format != FORMAT_VERSION) {
        if (fa >= 0)
            H5Aclose(fa);
        fail(err, path, "written by attnrank %s in file format %d; this attnrank reads format %d", version,
             format, FORMAT_VERSION);
        goto bad;
    }
    H5Aclose(fa);
    if (read_attr_string(file, "spec_canonical", &canonical) < 0) {
        fail(err, path, "damaged: no spec_canonical attribute");
        goto bad;
    }
    char spec_err[AR_ERR_LEN];
    if (ar_spec_load_text(canonical, path, NULL, NULL, 0, &s->spec, spec_err) != 0) {
        fail(err, path, "its stored spec is not valid for this attnrank: %s", spec_err);
        goto bad;
    }
    if (load_done(s) < 0) {
        fail(err, path, "damaged: a done ledger is missing or has the wrong shape");
        goto bad;
    }
    free(canonical);
    free(version);
    return s;
bad:
    free(canonical);
    free(version);
    ar_store_close(s);
    return NULL;
}

const ar_spec *ar_store_spec(const ar_store *store) { return &store->spec; }

int ar_store_done(const ar_store *store, int experiment, long point)
{
    return store->done[experiment][point];
}

long ar_store_done_count(const ar_store *store, int experiment)
{
    long n = 0;
    for (long p = 0; p < store->spec.experiments[experiment].n_points; ++p)
        n += store->done[experiment][p];
    return n;
}

/* Select one point (plus, for histograms, the whole last dimension). */
static hid_t select_point(hid_t ds, const ar_experiment *x, long point, hsize_t extra)
{
    hid_t space = H5Dget_space(ds);
    if (x->n_axes == 0 && extra == 0)
        return space;
    hsize_t start[AR_MAX_PARAMS + 2], count[AR_MAX_PARAMS + 2];
    int coords[AR_MAX_PARAMS];
    ar_experiment_coords(x, point, coords);
    for (int a = 0; a < x->n_axes; ++a)
        start[a] = (hsize_t)coords[a], count[a] = 1;
    if (extra) {
        /* extra values: along one more dimension, or whole rows of a 2-D grid */
        hsize_t dims[AR_MAX_PARAMS + 2];
        int rank = H5Sget_simple_extent_dims(space, dims, NULL);
        start[x->n_axes] = start[x->n_axes + 1] = 0;
        count[x->n_axes] = rank == x->n_axes + 2 ? extra / dims[x->n_axes + 1] : extra;
        count[x->n_axes + 1] = dims[x->n_axes + 1];
    }
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    return space;
}

static int write_cell(hid_t group, const char *name, const ar_experiment *x, long point, hid_t type,
                      const void *value, hsize_t extra)
{
    hid_t ds = H5Dopen2(group, name, H5P_DEFAULT);
    if (ds < 0)
        return -1;
    hid_t file_space = select_point(ds, x, point, extra);
    hsize_t n = extra ? extra : 1;
    hid_t mem = H5Screate_simple(1, &n, NULL);
    herr_t st = H5Dwrite(ds, type, mem, file_space, H5P_DEFAULT, value);
    H5Sclose(mem);
    H5Sclose(file_space);
    H5Dclose(ds);
    return st < 0 ? -1 : 0;
}

int ar_store_write_point(ar_store *store, int experiment, long point, const ar_summary *summaries,
                         long *const *histograms, char *err)
{
    const ar_experiment *x = &store->spec.experiments[experiment];
    hid_t g = H5Gopen2(store->file, x->name, H5P_DEFAULT);
    int ok = g >= 0;
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    int offset = 0;
    for (int o = 0; ok && o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        hid_t og = H5Gopen2(g, out->name, H5P_DEFAULT);
        int width = ar_output_length(out, &pt);
        const ar_summary *s = &summaries[offset];
        offset += width;
        /* Statistics as rows over the output's values: one value for a scalar. */
        double *stats = malloc((size_t)N_STATS * width * sizeof *stats);
        long long *counts = malloc(2 * (size_t)width * sizeof *counts);
        for (int i = 0; i < width; ++i) {
            const double row[N_STATS] = {s[i].mean, s[i].sem, s[i].std, s[i].ci_lo, s[i].ci_hi, s[i].min, s[i].max};
            for (int k = 0; k < N_STATS; ++k)
                stats[(size_t)k * width + i] = row[k];
            counts[i] = s[i].count;
            counts[width + i] = s[i].failed;
        }
        hsize_t extra = out->length ? (hsize_t)width : 0;
        ok = og >= 0;
        for (int k = 0; ok && k < N_STATS; ++k)
            ok = write_cell(og, STAT_NAMES[k], x, point, H5T_NATIVE_DOUBLE, stats + (size_t)k * width, extra) == 0;
        ok = ok && write_cell(og, "count", x, point, H5T_NATIVE_LLONG, counts, extra) == 0;
        ok = ok && write_cell(og, "failed", x, point, H5T_NATIVE_LLONG, counts + width, extra) == 0;
        free(stats);
        free(counts);
        if (ok && out->hist_max && histograms[o]) {
            hid_t ds = H5Dopen2(og, "hist", H5P_DEFAULT);
            hid_t space = H5Dget_space(ds);
            hsize_t dims[AR_MAX_PARAMS + 1];
            H5Sget_simple_extent_dims(space, dims, NULL);
            H5Sclose(space);
            H5Dclose(ds);
            long long *row = malloc(dims[x->n_axes] * sizeof *row);
            int max_value = out->hist_max(&pt);
            for (hsize_t v = 0; v < dims[x->n_axes]; ++v)
                row[v] = (int)v <= max_value ? histograms[o][v] : 0;
            ok = write_cell(og, "hist", x, point, H5T_NATIVE_LLONG, row, dims[x->n_axes]) == 0;
            free(row);
        }
        if (og >= 0)
            H5Gclose(og);
    }
    /* Data first, flushed; then the ledger entry, flushed: a kill between the two
     * leaves the point not done, to be recomputed (with the same result). */
    ok = ok && H5Fflush(store->file, H5F_SCOPE_GLOBAL) >= 0;
    unsigned char one = 1;
    ok = ok && write_cell(g, "done", x, point, H5T_NATIVE_UCHAR, &one, 0) == 0;
    ok = ok && H5Fflush(store->file, H5F_SCOPE_GLOBAL) >= 0;
    if (g >= 0)
        H5Gclose(g);
    if (!ok)
        return fail(err, store->path, "cannot write point %ld of experiment %s (disk full?)", point, x->name);
    store->done[experiment][point] = 1;
    return 0;
}

/* Read a whole dataset into out, which holds `expected` elements: a dataset of any
 * other size (a file whose stored spec does not match its datasets) is refused, never
 * read past out's end. */
static int read_full(hid_t file, const char *name, hid_t type, void *out, size_t expected)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return -1;
    hid_t space = H5Dget_space(ds);
    hssize_t count = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    if (space >= 0)
        H5Sclose(space);
    herr_t st = count == (hssize_t)expected ? H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) : -1;
    H5Dclose(ds);
    return st < 0 ? -1 : 0;
}

int ar_store_read_summaries(ar_store *store, int experiment, int output, int element, ar_summary *out,
                            char *err)
{
    const ar_experiment *x = &store->spec.experiments[experiment];
    const ar_output *o = &x->sim->outputs[output];
    size_t n = (size_t)x->n_points, width = (size_t)vector_width(x, o);
    double *buf = malloc(n * width * sizeof *buf);
    long long *counts = malloc(n * width * sizeof *counts);
    char name[256];
    int status = 0;
    for (int k = 0; k < N_STATS + 2 && status == 0; ++k) {
        const char *stat = k < N_STATS ? STAT_NAMES[k] : k == N_STATS ? "count" : "failed";
        snprintf(name, sizeof name, "%s/%s/%s", x->name, o->name, stat);
        status = read_full(store->file, name, k < N_STATS ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG,
                           k < N_STATS ? (void *)buf : (void *)counts, n * width);
        for (size_t p = 0; status == 0 && p < n; ++p) {
            /* The chosen value of this point's vector; negative counts from its end. */
            ar_point pt;
            ar_experiment_point(x, (long)p, &pt);
            int length = ar_output_length(o, &pt), i = element < 0 ? length + element : element;
            if (i < 0 || i >= length)
                i = length - 1;
            size_t at = p * width + (size_t)i;
            ar_summary *s = &out[p];
            switch (k) {
            case 0: s->mean = buf[at]; break;
            case 1: s->sem = buf[at]; break;
            case 2: s->std = buf[at]; break;
            case 3: s->ci_lo = buf[at]; break;
            case 4: s->ci_hi = buf[at]; break;
            case 5: s->min = buf[at]; break;
            case 6: s->max = buf[at]; break;
            case 7: s->count = store->done[experiment][p] ? (long)counts[at] : 0; break;
            default: s->failed = (long)counts[at];
            }
        }
    }
    free(buf);
    free(counts);
    return status ? fail(err, store->path, "cannot read %s", name) : 0;
}

int ar_store_read_theory(ar_store *store, int experiment, const ar_claim *claim, double *out, char *err)
{
    char name[256];
    snprintf(name, sizeof name, "%s/theory/%s", store->spec.experiments[experiment].name, claim->id);
    if (read_full(store->file, name, H5T_NATIVE_DOUBLE, out, (size_t)store->spec.experiments[experiment].n_points) < 0)
        return fail(err, store->path, "cannot read %s (missing, or not the shape its spec gives)", name);
    return 0;
}

int ar_store_write_verdicts(ar_store *store, const ar_verdict_row *rows, int n_rows, char *err)
{
    verdict_record *records = calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof *records);
    if (!records)
        return fail(err, store->path, "out of memory writing the verdicts table");
    for (int r = 0; r < n_rows; ++r)
        to_record(&rows[r], &records[r]);
    hid_t ds = H5Dopen2(store->file, "verdicts", H5P_DEFAULT);
    hid_t type = verdict_type();
    herr_t st = ds < 0 || n_rows != ar_store_verdict_count(&store->spec)
                    ? -1
                    : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, records);
    H5Tclose(type);
    free(records);
    if (ds >= 0)
        H5Dclose(ds);
    if (st < 0 || H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return fail(err, store->path, "cannot write the verdicts table");
    return 0;
}

int ar_store_read_verdicts(ar_store *store, ar_verdict_row **rows, int *n_rows, char *err)
{
    *n_rows = ar_store_verdict_count(&store->spec);
    size_t count = (size_t)(*n_rows ? *n_rows : 1);
    *rows = calloc(count, sizeof **rows);
    verdict_record *records = calloc(count, sizeof *records);
    hid_t type = verdict_type();
    int st = *rows && records ? read_full(store->file, "verdicts", type, records, (size_t)*n_rows) : -1;
    H5Tclose(type);
    for (int r = 0; st == 0 && r < *n_rows; ++r)
        st = from_record(&records[r], &(*rows)[r]);
    free(records);
    if (st < 0) {
        free(*rows);
        *rows = NULL;
        return fail(err, store->path, "cannot read the verdicts table");
    }
    return 0;
}

void ar_store_attribute(ar_store *store, const char *name, char *buf, size_t len)
{
    char *value = NULL;
    buf[0] = '\0';
    if (read_attr_string(store->file, name, &value) == 0)
        snprintf(buf, len, "%s", value);
    free(value);
}

int ar_store_set_attribute(ar_store *store, const char *name, const char *value, char *err)
{
    if (H5Aexists(store->file, name) > 0)
        H5Adelete(store->file, name);
    if (attr_string(store->file, name, value) < 0 || H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return fail(err, store->path, "cannot write attribute %s", name);
    return 0;
}

/* Overwrite, in dst's dataset `name` (under group), the slices of the points that src
 * has done and dst has not. A point's slice is contiguous: points are row-major over
 * the axes, and a vector output's extra dimensions come last. */
static int copy_dataset(hid_t dst_group, hid_t src_group, const char *name, const unsigned char *src_done,
                        const unsigned char *dst_done, long n_points)
{
    hid_t in = H5Dopen2(src_group, name, H5P_DEFAULT), out = H5Dopen2(dst_group, name, H5P_DEFAULT);
    int status = -1;
    if (in >= 0 && out >= 0) {
        hid_t type = H5Dget_type(in), native = H5Tget_native_type(type, H5T_DIR_ASCEND);
        hid_t space = H5Dget_space(in);
        hssize_t count = H5Sget_simple_extent_npoints(space);
        size_t size = H5Tget_size(native), slice = n_points > 0 ? (size_t)count / (size_t)n_points : 0;
        char *a = malloc((size_t)count * size + 1), *b = malloc((size_t)count * size + 1);
        if (a && b && H5Dread(in, native, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) >= 0 &&
            H5Dread(out, native, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0) {
            for (long p = 0; p < n_points; ++p)
                if (src_done[p] && !dst_done[p])
                    memcpy(b + (size_t)p * slice * size, a + (size_t)p * slice * size, slice * size);
            status = H5Dwrite(out, native, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) < 0 ? -1 : 0;
        }
        free(a), free(b);
        H5Sclose(space), H5Tclose(native), H5Tclose(type);
    }
    if (in >= 0)
        H5Dclose(in);
    if (out >= 0)
        H5Dclose(out);
    return status;
}

int ar_store_copy_points(ar_store *dst, ar_store *src, long *copied, char *err)
{
    const ar_spec *spec = &dst->spec;
    *copied = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        hid_t gd = H5Gopen2(dst->file, x->name, H5P_DEFAULT), gs = H5Gopen2(src->file, x->name, H5P_DEFAULT);
        int ok = gd >= 0 && gs >= 0;
        for (int o = 0; ok && o < x->sim->n_outputs; ++o) {
            const ar_output *out = &x->sim->outputs[o];
            hid_t od = H5Gopen2(gd, out->name, H5P_DEFAULT), os = H5Gopen2(gs, out->name, H5P_DEFAULT);
            ok = od >= 0 && os >= 0;
            for (int k = 0; ok && k < N_STATS + 3; ++k) {
                const char *name = k < N_STATS ? STAT_NAMES[k] : k == N_STATS ? "count" : k == N_STATS + 1 ? "failed"
                                                                                                            : "hist";
                if (k == N_STATS + 2 && !out->hist_max)
                    break;
                ok = copy_dataset(od, os, name, src->done[e], dst->done[e], x->n_points) == 0;
            }
            if (od >= 0)
                H5Gclose(od);
            if (os >= 0)
                H5Gclose(os);
        }
        /* data first, flushed; then the ledger, as a run writes them */
        ok = ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) >= 0;
        long newly = 0;
        for (long p = 0; p < x->n_points; ++p)
            newly += src->done[e][p] && !dst->done[e][p];
        ok = ok && copy_dataset(gd, gs, "done", src->done[e], dst->done[e], x->n_points) == 0;
        ok = ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) >= 0;
        if (gd >= 0)
            H5Gclose(gd);
        if (gs >= 0)
            H5Gclose(gs);
        if (!ok)
            return fail(err, dst->path, "cannot copy experiment %s from %s", x->name, src->path);
        for (long p = 0; p < x->n_points; ++p)
            dst->done[e][p] |= src->done[e][p];
        *copied += newly;
    }
    return 0;
}

int ar_store_close(ar_store *store)
{
    if (!store)
        return 0;
    herr_t st = store->file >= 0 ? H5Fclose(store->file) : 0;
    for (int e = 0; store->done && e < store->spec.n_experiments; ++e)
        free(store->done[e]);
    free(store->done);
    ar_spec_free(&store->spec);
    free(store->path);
    free(store);
    return st < 0 ? -1 : 0;
}
