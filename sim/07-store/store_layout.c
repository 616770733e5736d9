/* store_layout: the layout of a result file (store.h): each output's widths measured once
 * per file, the shape of every dataset, creating them all when a file is made and
 * checking them all when one is opened. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const store_cell STORE_CELLS[N_CELLS] = {
    {"mean", VALUE_DOUBLE, "mean over finite trials"},
    {"stderr", VALUE_DOUBLE, "standard error of the mean: std / sqrt(count)"},
    {"std", VALUE_DOUBLE, "sample standard deviation (n - 1 denominator)"},
    {"ci_lo", VALUE_DOUBLE,
     "lower end of the 95% interval: mean - t(0.975, count-1) * stderr (integer outputs: stderr taken as at least "
     "1/count)"},
    {"ci_hi", VALUE_DOUBLE,
     "upper end of the 95% interval: mean + t(0.975, count-1) * stderr (integer outputs: stderr taken as at least "
     "1/count)"},
    {"min", VALUE_DOUBLE, "smallest trial value"},
    {"max", VALUE_DOUBLE, "largest trial value"},
    {"count", VALUE_INT64, "trials with a finite value (the n behind mean and stderr)"},
    {"failed", VALUE_INT64, "trials that failed (non-finite value); never averaged"},
};
/* The rows of /verdicts, one per (experiment, claim): its length, as the layout gives
 * every dataset's. */
int ar_store_verdict_count(const ar_spec *spec)
{
    int n = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        n += spec->experiments[e].n_claims;
    return n;
}

/* The widths of experiment x, one of the store's own. */
const experiment_layout *store_layout_of(const ar_store *s, const ar_experiment *x)
{
    return &s->layout[x - s->spec.experiments];
}
/* ---- layout --------------------------------------------------------------------- */
/* Every function below closes what it opened on every path, success or failure. */

const ar_claim *ar_store_theory_claim(const ar_experiment *x, int c)
{
    int count;
    const ar_claim *const *claims = ar_claims_all(&count);
    for (int i = 0; i < count; ++i)
        if (claims[i]->sim == x->sim && c-- == 0)
            return claims[i];
    for (int k = 0; k < x->n_claims; ++k)
        if (x->claims[k]->conjecture && c-- == 0)
            return x->claims[k];
    return NULL;
}

hid_t store_make_dataset(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims,
                          const void *fill, const char *description, int holes)
{
    hid_t space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), ds = -1;
    /* Allocated now, so later writes touch raw data only (see store.h); filled unless it
     * is to stay a hole (experiment_layout's holes). No times: the same run writes the
     * same bytes. */
    if (space >= 0 && dcpl >= 0 && H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0 &&
        H5Pset_fill_time(dcpl, holes ? H5D_FILL_TIME_NEVER : H5D_FILL_TIME_ALLOC) >= 0 &&
        H5Pset_obj_track_times(dcpl, 0) >= 0 &&
        (!fill || H5Pset_fill_value(dcpl, type, fill) >= 0))
        ds = H5Dcreate2(parent, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (ds >= 0 && description && store_attr_string(ds, "description", description) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* A dataset made and written whole; closed unless keep (then returned open). */
static hid_t make_filled(hid_t parent, const char *name, hid_t type, hsize_t length, const void *values,
                         const char *description, int keep)
{
    hid_t ds = store_make_dataset(parent, name, type, 1, &length, NULL, description, 0);
    if (ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0) {
        H5Dclose(ds);
        return -1;
    }
    if (ds >= 0 && !keep) {
        H5Dclose(ds);
        return 0;
    }
    return ds;
}

static hid_t make_group(hid_t parent, const char *name)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0)
        return -1;
    hid_t g = H5Pset_obj_track_times(gcpl, 0) < 0 ? -1 : H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    return g;
}

/* Fixed-length strings long enough for the longest choice. */
static size_t choice_size(const ar_param *p)
{
    size_t longest = 1;
    for (int i = 0; p->choices[i]; ++i)
        if (strlen(p->choices[i]) + 1 > longest)
            longest = strlen(p->choices[i]) + 1;
    return longest;
}

static hid_t choice_type(const ar_param *p)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type >= 0 && (H5Tset_size(type, choice_size(p)) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0)) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

/* One swept parameter's coordinates, a dimension scale, returned open. */
static hid_t write_axis(hid_t group, const ar_experiment *x, int a)
{
    const ar_param *p = &x->sim->params[x->axes[a].param];
    hsize_t n = (hsize_t)x->axes[a].count;
    hid_t ds = -1;
    if (p->type == AR_PARAM_CHOICE) {
        hid_t type = choice_type(p);
        size_t size = choice_size(p);
        char *buf = calloc(n, size);
        if (type >= 0 && buf) {
            for (hsize_t i = 0; i < n; ++i)
                strcpy(buf + i * size, p->choices[(int)x->axes[a].values[i]]);
            ds = make_filled(group, p->name, type, n, buf, p->doc, 1);
        }
        free(buf);
        if (type >= 0)
            H5Tclose(type);
    } else if (p->type == AR_PARAM_INT) {
        long long *buf = malloc(n * sizeof *buf);
        if (buf) {
            for (hsize_t i = 0; i < n; ++i)
                buf[i] = (long long)x->axes[a].values[i];
            ds = make_filled(group, p->name, H5T_NATIVE_LLONG, n, buf, p->doc, 1);
        }
        free(buf);
    } else {
        ds = make_filled(group, p->name, H5T_NATIVE_DOUBLE, n, x->axes[a].values, p->doc, 1);
    }
    if (ds >= 0 && H5DSset_scale(ds, p->name) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

static int attach_scales(hid_t ds, const ar_experiment *x, const hid_t *scales)
{
    for (int a = 0; a < x->n_axes; ++a)
        if (H5DSattach_scale(ds, scales[a], (unsigned)a) < 0 ||
            H5DSset_label(ds, (unsigned)a, x->sim->params[x->axes[a].param].name) < 0)
            return -1;
    return 0;
}

/* An experiment group's attributes are written when a file is made and compared when
 * it is opened, by the same code: the figure scripts and h5py users read them (a
 * `trials` of 20000 put "20000 trials a point" in every caption of a 200-trial file). */
typedef struct {
    hid_t obj;
    const ar_store *check; /* NULL: write */
    const char *where;     /* the group, for messages */
    char *err;
} attr_io;

static int attr_text(const attr_io *io, const char *name, const char *value)
{
    if (!io->check)
        return store_attr_string(io->obj, name, value);
    char *stored = NULL;
    int st = store_read_attr_string(io->obj, name, &stored), same = st == ATTR_OK && strcmp(stored, value) == 0;
    free(stored);
    return same ? 0 : store_fail(io->err, io->check->path, "damaged: attribute %s of /%s is not the stored spec's "
                                 "'%.200s'", name, io->where, value);
}

static int attr_integer(const attr_io *io, const char *name, long long value)
{
    if (!io->check)
        return store_attr_number(io->obj, name, H5T_NATIVE_LLONG, &value);
    long long stored = 0;
    int st = store_read_attr_integer(io->obj, name, H5T_NATIVE_LLONG, &stored, NULL);
    return st == ATTR_OK && stored == value ? 0 : store_fail(io->err, io->check->path, "damaged: attribute %s of /%s "
                                                             "is not the stored spec's %lld", name, io->where, value);
}

static int attr_real(const attr_io *io, const char *name, double value)
{
    if (!io->check)
        return store_attr_number(io->obj, name, H5T_NATIVE_DOUBLE, &value);
    double stored = NAN;
    int st = store_read_attr_real(io->obj, name, &stored);
    return st == ATTR_OK && memcmp(&stored, &value, sizeof value) == 0
               ? 0
               : store_fail(io->err, io->check->path, "damaged: attribute %s of /%s is not the stored spec's %.17g",
                            name, io->where, value);
}

static int experiment_attributes(const attr_io *io, const ar_experiment *x);

static int fixed_parameter_attributes(const attr_io *io, const ar_experiment *x)
{
    for (int i = 0; i < x->sim->n_params; ++i) {
        if (ar_experiment_axis_of(x, i) >= 0)
            continue;
        const ar_param *p = &x->sim->params[i];
        int st;
        if (p->type == AR_PARAM_CHOICE)
            st = attr_text(io, p->name, p->choices[(int)x->base.value[i]]);
        else if (p->type == AR_PARAM_INT)
            st = attr_integer(io, p->name, (long long)x->base.value[i]);
        else
            st = attr_real(io, p->name, x->base.value[i]);
        if (st < 0)
            return -1;
    }
    return 0;
}

/* Found in one pass over the grid, when a file is created or opened. */
static void measure_layout(const ar_experiment *x, experiment_layout *layout)
{
    const ar_sim *sim = x->sim;
    for (int o = 0; o < sim->n_outputs; ++o)
        layout->vector[o] = 1, layout->hist[o] = layout->slots[o] = 0;
    int varies = 0;
    for (int o = 0; o < sim->n_outputs; ++o)
        varies |= sim->outputs[o].length != NULL || sim->outputs[o].hist_max != NULL;
    for (long p = 0; varies && p < x->n_points; ++p) {
        ar_point point;
        ar_experiment_point(x, p, &point);
        for (int o = 0; o < sim->n_outputs; ++o) {
            const ar_output *out = &sim->outputs[o];
            if (out->length && out->length(&point) > layout->vector[o])
                layout->vector[o] = out->length(&point);
            if (out->hist_max && out->hist_max(&point) + 1 > layout->hist[o])
                layout->hist[o] = out->hist_max(&point) + 1;
        }
    }
    /* T trials see at most T values: with fewer trials than values a point keeps the
     * values it saw and their counts, not a count of every value (a 10^6-point grid with
     * n = 103 and 2 trials a point: 32 bytes of histogram a point, not 832). */
    for (int o = 0; o < sim->n_outputs; ++o)
        if (layout->hist[o] > x->trials)
            layout->slots[o] = (int)x->trials;
}
int store_hist_datasets(const experiment_layout *L, int o, const char **names, hsize_t *width)
{
    if (!L->hist[o])
        return 0;
    if (!L->slots[o]) {
        names[0] = "hist", *width = (hsize_t)L->hist[o];
        return 1;
    }
    names[0] = "hist_value", names[1] = "hist_count", *width = (hsize_t)L->slots[o];
    return 2;
}

int store_hist_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o)
{
    return layout->hist[o - x->sim->outputs];
}

int store_vector_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o)
{
    return layout->vector[o - x->sim->outputs];
}

/* The dimensions of an output's statistics: the axes, then for a vector output its
 * index (rows, then columns for a 2-D grid). Returns the rank; rows and columns are
 * the lengths of the index scales (0: none). */
static int output_dims(const experiment_layout *layout, const ar_experiment *x, const ar_output *o, hsize_t *dims,
                       hsize_t *rows, hsize_t *columns)
{
    store_axis_dims(x, dims);
    int rank = x->n_axes;
    *rows = *columns = 0;
    if (o->length) {
        *rows = (hsize_t)store_vector_width(layout, x, o);
        if (o->columns > 0) {
            *columns = (hsize_t)o->columns;
            *rows /= *columns;
            dims[rank + 1] = *columns;
        }
        dims[rank] = *rows;
        rank += o->columns > 0 ? 2 : 1;
    }
    return rank;
}

dataset_shape store_stat_shape(const experiment_layout *layout, const ar_experiment *x, const ar_output *o,
                                value_kind kind)
{
    dataset_shape shape = {.kind = kind};
    hsize_t rows, columns;
    shape.rank = output_dims(layout, x, o, shape.dims, &rows, &columns);
    return shape;
}

/* A histogram dataset: the axes, then `width` (hist_datasets). */
dataset_shape store_hist_cell_shape(const ar_experiment *x, hsize_t width)
{
    dataset_shape shape = store_grid_shape(x, VALUE_INT64);
    shape.dims[shape.rank++] = width;
    return shape;
}
/* A vector output's index values: 0, 1, ... (layers), or the coordinates the simulator
 * gives (bin centres); written by create and compared by check, so neither can drift. */
static void *index_values(hsize_t width, double (*value)(int))
{
    void *values = malloc(width * 8 + 1);
    for (hsize_t v = 0; values && v < width; ++v) {
        if (value)
            ((double *)values)[v] = value((int)v);
        else
            ((long long *)values)[v] = (long long)v;
    }
    return values;
}

/* An index scale as the stored spec and the simulator give it: the figures draw their x
 * axis from it (layer 0..600 for a 60-layer run would show collapse 10 times slower). */
static int check_index_values(const ar_store *s, const char *group, const char *name, const dataset_shape *shape,
                              double (*value)(int), char *err)
{
    hsize_t width = shape->dims[0];
    void *want = index_values(width, value), *stored = malloc(width * 8 + 1);
    char path[700];
    snprintf(path, sizeof path, "%s%s", group, name);
    int st = !want || !stored ? store_fail(err, s->path, "out of memory reading /%s", path)
                              : store_read_checked(s, path, shape, value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG,
                                                   stored, err);
    for (hsize_t v = 0; st == 0 && v < width; ++v) {
        if (memcmp((char *)stored + v * 8, (char *)want + v * 8, 8) == 0)
            continue;
        char held[64], spec_value[64];
        if (value) {
            snprintf(held, sizeof held, "%.17g", ((double *)stored)[v]);
            snprintf(spec_value, sizeof spec_value, "%.17g", ((double *)want)[v]);
        } else {
            snprintf(held, sizeof held, "%lld", ((long long *)stored)[v]);
            snprintf(spec_value, sizeof spec_value, "%lld", ((long long *)want)[v]);
        }
        st = store_fail(err, s->path, "damaged: index dataset /%s holds %s at %llu, not the stored spec's %s", path,
                        held, (unsigned long long)v, spec_value);
    }
    free(want), free(stored);
    return st;
}

/* An output's datasets: statistics, index scales, histogram. */
static int check_output(const ar_store *s, hid_t og, const char *group, const ar_experiment *x, const ar_output *o,
                        char *err)
{
    const experiment_layout *L = store_layout_of(s, x);
    for (int k = 0; k < N_CELLS; ++k) {
        dataset_shape cell = store_stat_shape(L, x, o, STORE_CELLS[k].kind);
        if (store_check_one(s, og, group, &cell, STORE_CELLS[k].name, err) < 0)
            return -1;
    }
    hsize_t dims[AR_MAX_PARAMS + 2], rows, columns;
    output_dims(L, x, o, dims, &rows, &columns);
    dataset_shape index = store_line_shape(rows, o->index_value ? VALUE_DOUBLE : VALUE_INT64, 0);
    dataset_shape column = store_line_shape(columns, o->column_value ? VALUE_DOUBLE : VALUE_INT64, 0);
    if ((rows && (store_check_one(s, og, group, &index, o->index_name, err) < 0 ||
                  check_index_values(s, group, o->index_name, &index, o->index_value, err) < 0)) ||
        (columns && (store_check_one(s, og, group, &column, o->column_name, err) < 0 ||
                     check_index_values(s, group, o->column_name, &column, o->column_value, err) < 0)))
        return -1;
    const char *names[HIST_DATASETS];
    hsize_t width;
    int cells = store_hist_datasets(L, (int)(o - x->sim->outputs), names, &width);
    if (cells == 0)
        return 0;
    hsize_t values = (hsize_t)store_hist_width(L, x, o);
    dataset_shape hist = store_hist_cell_shape(x, width), value = store_line_shape(values, VALUE_INT64, 0);
    if (store_check_one(s, og, group, &value, "value", err) < 0)
        return -1;
    for (int c = 0; c < cells; ++c)
        if (store_check_one(s, og, group, &hist, names[c], err) < 0)
            return -1;
    /* one layout, said once: no dataset of the other beside it, the attribute naming it,
     * the value scale 0 .. W-1 (a reader takes a bin's value from it) */
    const char *other = cells == 1 ? "hist_value" : "hist", *kind = cells == 1 ? "dense" : "sparse";
    if (H5Lexists(og, other, H5P_DEFAULT) > 0 || (cells == 1 && H5Lexists(og, "hist_count", H5P_DEFAULT) > 0))
        return store_fail(err, s->path, "damaged: /%s holds a %s histogram beside its %s one", group,
                          cells == 1 ? "sparse" : "dense", kind);
    char *said = NULL;
    int st = store_read_attr_string(og, "histogram", &said);
    int named = st == ATTR_OK && strncmp(said, kind, strlen(kind)) == 0;
    free(said);
    if (!named)
        return store_fail(err, s->path, "damaged: /%s's histogram attribute does not say %s, as its datasets are",
                          group, kind);
    return check_index_values(s, group, "value", &value, NULL, err);
    return st;
}

/* An experiment's datasets: axes, outputs, predictions, ledger. */
/* A swept parameter's coordinates as the stored spec gives them: an axis rewritten in
 * the file (n = 400, 800 for the spec's 4, 8) would relabel every value read along it. */
static int check_axis_values(const ar_store *s, const ar_experiment *x, int a, const dataset_shape *shape, char *err)
{
    const ar_param *p = &x->sim->params[x->axes[a].param];
    size_t n = (size_t)x->axes[a].count, size = p->type == AR_PARAM_CHOICE ? choice_size(p) : sizeof(double);
    char name[512];
    snprintf(name, sizeof name, "%s/%s", x->name, p->name);
    void *buf = calloc(n, size);
    hid_t text = p->type == AR_PARAM_CHOICE ? choice_type(p) : -1;
    hid_t mem = p->type == AR_PARAM_CHOICE ? text : p->type == AR_PARAM_INT ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE;
    int st = !buf || (p->type == AR_PARAM_CHOICE && text < 0)
                 ? store_fail(err, s->path, "out of memory reading /%s", name)
                 : store_read_checked(s, name, shape, mem, buf, err);
    for (size_t i = 0; st == 0 && i < n; ++i) {
        double want = x->axes[a].values[i];
        int same = p->type == AR_PARAM_CHOICE ? strcmp((char *)buf + i * size, p->choices[(int)want]) == 0
                   : p->type == AR_PARAM_INT  ? ((long long *)buf)[i] == (long long)want
                                              : memcmp((double *)buf + i, &want, sizeof want) == 0;
        char spec_value[64];
        if (p->type == AR_PARAM_CHOICE)
            snprintf(spec_value, sizeof spec_value, "\"%s\"", p->choices[(int)want]);
        else
            snprintf(spec_value, sizeof spec_value, "%.17g", want);
        if (!same)
            st = store_fail(err, s->path, "damaged: axis /%s at index %zu is not the stored spec's coordinate %s",
                            name, i, spec_value);
    }
    if (text >= 0)
        H5Tclose(text);
    free(buf);
    return st;
}

static int check_experiment(const ar_store *s, hid_t g, const ar_experiment *x, char *err)
{
    char group[512];
    snprintf(group, sizeof group, "%s/", x->name);
    attr_io io = {.obj = g, .check = s, .where = x->name, .err = err};
    if (experiment_attributes(&io, x) < 0)
        return -1;
    for (int a = 0; a < x->n_axes; ++a) {
        const ar_param *p = &x->sim->params[x->axes[a].param];
        dataset_shape axis = store_line_shape((hsize_t)x->axes[a].count,
                                        p->type == AR_PARAM_CHOICE ? VALUE_TEXT
                                        : p->type == AR_PARAM_INT  ? VALUE_INT64
                                                                   : VALUE_DOUBLE,
                                        p->type == AR_PARAM_CHOICE ? choice_size(p) : 0);
        if (store_check_one(s, g, group, &axis, p->name, err) < 0 || check_axis_values(s, x, a, &axis, err) < 0)
            return -1;
    }
    for (int i = 0; i < x->sim->n_outputs; ++i) {
        const ar_output *o = &x->sim->outputs[i];
        char sub[640];
        snprintf(sub, sizeof sub, "%s%s/", group, o->name);
        hid_t og = store_open_group(s, g, group, o->name, err);
        int st = og < 0 ? -1 : check_output(s, og, sub, x, o, err);
        if (og >= 0)
            H5Gclose(og);
        if (st < 0)
            return -1;
    }
    int st = 0;
    dataset_shape grid = store_grid_shape(x, VALUE_DOUBLE), done = store_grid_shape(x, VALUE_FLAG);
    char sub[640];
    snprintf(sub, sizeof sub, "%stheory/", group);
    hid_t tg = store_open_group(s, g, group, "theory", err);
    for (int c = 0; tg >= 0 && st == 0; ++c) {
        const ar_claim *claim = ar_store_theory_claim(x, c);
        if (!claim)
            break;
        st = store_check_one(s, tg, sub, &grid, claim->id, err);
    }
    if (tg >= 0)
        H5Gclose(tg);
    return tg < 0 || st < 0 ? -1 : store_check_one(s, g, group, &done, "done", err);
}

/* Every dataset ar_store_create makes for the stored spec, of the type and shape it
 * makes it; groups opened once each, as a lookup from the root costs as much as the
 * check (a spec of thousands of experiments). */
int store_check_layout(const ar_store *s, char *err)
{
    const ar_spec *spec = &s->spec;
    for (int e = 0; e < spec->n_experiments; ++e) {
        hid_t g = store_open_group(s, s->file, "", spec->experiments[e].name, err);
        int st = g < 0 ? -1 : check_experiment(s, g, &spec->experiments[e], err);
        if (g >= 0)
            H5Gclose(g);
        if (st < 0)
            return -1;
    }
    dataset_shape verdicts = store_line_shape((hsize_t)ar_store_verdict_count(spec), VALUE_VERDICT, 0);
    return store_check_one(s, s->file, "", &verdicts, "verdicts", err);
}

/* A vector output's index: 0, 1, ... (layers), or the coordinates the simulator gives
 * (bin centres), as a dimension scale, returned open. */
static hid_t index_scale(hid_t group, const char *name, hsize_t width, double (*value)(int))
{
    hid_t type = value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
    void *values = index_values(width, value);
    if (!values)
        return -1;
    hid_t index = make_filled(group, name, type, width, values,
                              value ? "coordinate of each value in a trial" : "index of the value in a trial", 1);
    free(values);
    if (index >= 0 && H5DSset_scale(index, name) < 0) {
        H5Dclose(index);
        return -1;
    }
    return index;
}

/* The statistics of one output, each with the axes' scales and its own. */
static int create_statistics(hid_t og, const experiment_layout *L, const ar_experiment *x, const ar_output *o,
                             const hid_t *scales)
{
    hsize_t dims[AR_MAX_PARAMS + 2], rows, columns;
    int rank = output_dims(L, x, o, dims, &rows, &columns);
    hid_t index = rows ? index_scale(og, o->index_name, rows, o->index_value) : -1;
    hid_t column = columns ? index_scale(og, o->column_name, columns, o->column_value) : -1;
    int ok = (!rows || index >= 0) && (!columns || column >= 0);
    double nan = NAN;
    long long zero = 0;
    for (int k = 0; ok && k < N_CELLS; ++k) {
        const store_cell *c = &STORE_CELLS[k];
        int is_count = c->kind == VALUE_INT64;
        hid_t ds = store_make_dataset(og, c->name, store_memory_type(c->kind), rank, dims,
                                      is_count ? (const void *)&zero : (const void *)&nan, c->description, L->holes);
        ok = ds >= 0 && attach_scales(ds, x, scales) == 0 &&
             (index < 0 || (H5DSattach_scale(ds, index, (unsigned)x->n_axes) >= 0 &&
                            H5DSset_label(ds, (unsigned)x->n_axes, o->index_name) >= 0)) &&
             (column < 0 || (H5DSattach_scale(ds, column, (unsigned)x->n_axes + 1) >= 0 &&
                             H5DSset_label(ds, (unsigned)x->n_axes + 1, o->column_name) >= 0));
        if (ds >= 0)
            H5Dclose(ds);
    }
    if (index >= 0)
        H5Dclose(index);
    if (column >= 0)
        H5Dclose(column);
    return ok ? 0 : -1;
}

/* An integer output's histogram (hist_datasets), with the value scale 0 .. W-1. */
static int create_histogram(hid_t og, const experiment_layout *L, const ar_experiment *x, const ar_output *o,
                            const hid_t *scales)
{
    const char *names[HIST_DATASETS];
    hsize_t width = 0, values_width = (hsize_t)store_hist_width(L, x, o);
    int cells = store_hist_datasets(L, (int)(o - x->sim->outputs), names, &width);
    dataset_shape shape = store_hist_cell_shape(x, width);
    long long *values = malloc(values_width * sizeof *values + 1), zero = 0, none = -1;
    if (!values)
        return -1;
    for (hsize_t v = 0; v < values_width; ++v)
        values[v] = (long long)v;
    hid_t vs = make_filled(og, "value", H5T_NATIVE_LLONG, values_width, values, "histogram bin: the value counted", 1);
    free(values);
    int ok = vs >= 0 && H5DSset_scale(vs, "value") >= 0 &&
             store_attr_string(og, "histogram", cells == 1 ? "dense: hist[..., v] counts the trials of value v"
                                                     : "sparse: hist_value[..., k] is the k-th value seen (ascending; "
                                                       "-1 past the last), hist_count[..., k] its trials") == 0;
    for (int c = 0; ok && c < cells; ++c) {
        int is_value = cells == 2 && c == 0;
        const char *doc = cells == 1  ? "trial counts per value; last dimension: value"
                          : is_value ? "the values seen at the point, ascending, -1 past the last; last dimension: slot"
                                     : "trials of each value in hist_value; 0 past the last; last dimension: slot";
        hid_t ds = store_make_dataset(og, names[c], H5T_NATIVE_LLONG, shape.rank, shape.dims, is_value ? &none : &zero, doc,
                                L->holes);
        ok = ds >= 0 && attach_scales(ds, x, scales) == 0 &&
             (cells == 2 || H5DSattach_scale(ds, vs, (unsigned)x->n_axes) >= 0) &&
             H5DSset_label(ds, (unsigned)x->n_axes, cells == 1 ? "value" : "slot") >= 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    if (vs >= 0)
        H5Dclose(vs);
    return ok ? 0 : -1;
}

static int create_output(hid_t group, const experiment_layout *L, const ar_experiment *x, const ar_output *o,
                         const hid_t *scales)
{
    hid_t og = make_group(group, o->name);
    if (og < 0)
        return -1;
    const char *definition = o->definition ? o->definition : o->description;
    int ok = store_attr_string(og, "description", o->description) == 0 && store_attr_string(og, "definition", definition) == 0 &&
             create_statistics(og, L, x, o, scales) == 0 &&
             (!o->hist_max || create_histogram(og, L, x, o, scales) == 0);
    H5Gclose(og);
    return ok ? 0 : -1;
}

/* A theory dataset's kind attribute, as create_theory writes it and ar_store_theory_text_differs checks it. */
static const char *theory_kind(const ar_claim *claim)
{
    return claim->conjecture ? "conjecture" : "claim";
}

/* The predictions at every point; a shard's file leaves them to the merge (holes). */
static int create_theory(hid_t group, const experiment_layout *L, const ar_experiment *x, const hid_t *scales)
{
    hid_t tg = make_group(group, "theory");
    if (tg < 0)
        return -1;
    hsize_t dims[AR_MAX_PARAMS];
    store_axis_dims(x, dims);
    double *values = malloc((size_t)x->n_points * sizeof *values);
    int ok = values != NULL;
    for (int c = 0; ok; ++c) {
        const ar_claim *claim = ar_store_theory_claim(x, c);
        if (!claim)
            break;
        for (long p = 0; !L->holes && p < x->n_points; ++p) {
            ar_point point;
            ar_experiment_point(x, p, &point);
            values[p] = ar_claim_predict(claim, &point);
        }
        hid_t ds = store_make_dataset(tg, claim->id, H5T_NATIVE_DOUBLE, x->n_axes, dims, NULL, claim->statement, L->holes);
        ok = ds >= 0 && (L->holes || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0) &&
             attach_scales(ds, x, scales) == 0 && store_attr_string(ds, "formula", claim->formula) == 0 &&
             store_attr_string(ds, "output", x->sim->outputs[claim->output].name) == 0 &&
             store_attr_string(ds, "kind", theory_kind(claim)) == 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    free(values);
    H5Gclose(tg);
    return ok ? 0 : -1;
}

int ar_store_theory_text_differs(ar_store *s, int experiment, const ar_claim *claim, char *what, size_t len, char *err)
{
    const ar_experiment *x = &s->spec.experiments[experiment];
    char name[512];
    snprintf(name, sizeof name, "%s/theory/%s", x->name, claim->id);
    dataset_shape grid = store_grid_shape(x, VALUE_DOUBLE);
    hid_t ds = store_open_checked(s, name, &grid, err);
    if (ds < 0)
        return -1;
    const char *const fields[][2] = {{"description", claim->statement},
                                     {"formula", claim->formula},
                                     {"kind", theory_kind(claim)},
                                     {"output", x->sim->outputs[claim->output].name}};
    int differs = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0] && !differs; ++i) {
        char *stored = NULL;
        int st = store_read_attr_string(ds, fields[i][0], &stored);
        if (st == ATTR_NO_MEMORY) {
            H5Dclose(ds);
            return store_fail(err, s->path, "out of memory reading /%s's attributes", name);
        }
        if (st != ATTR_OK || strcmp(stored, fields[i][1]) != 0) {
            differs = 1;
            snprintf(what, len, "its %s attribute is %s%.80s%s, not the claim table's '%.120s'", fields[i][0],
                     st == ATTR_OK ? "'" : "", st == ATTR_OK ? stored : st == ATTR_ABSENT ? "absent" : "not one text",
                     st == ATTR_OK && strlen(stored) > 80 ? "...'" : st == ATTR_OK ? "'" : "", fields[i][1]);
        }
        free(stored);
    }
    H5Dclose(ds);
    return differs;
}

static int experiment_attributes(const attr_io *io, const ar_experiment *x)
{
    char claims[AR_MAX_CLAIMS * 16 + 1] = ""; /* every id (at most 15 characters) and a space */
    for (int k = 0; k < x->n_claims; ++k) {
        strncat(claims, k ? " " : "", sizeof claims - strlen(claims) - 1);
        strncat(claims, x->claims[k]->id, sizeof claims - strlen(claims) - 1);
    }
    char axes[512] = "";
    for (int a = 0; a < x->n_axes; ++a) {
        strncat(axes, a ? " " : "", sizeof axes - strlen(axes) - 1);
        strncat(axes, x->sim->params[x->axes[a].param].name, sizeof axes - strlen(axes) - 1);
    }
    const ar_family *family = ar_family_of(x->sim); /* for the figure scripts */
    if ((family && (attr_text(io, "family", family->name) < 0 ||
                    attr_text(io, "plot_script", family->plot_script ? family->plot_script : "") < 0)) ||
        attr_text(io, "simulator", x->sim->name) < 0 || attr_text(io, "description", x->sim->summary) < 0 ||
        attr_text(io, "claims", claims) < 0 || attr_text(io, "axes", axes) < 0 ||
        attr_integer(io, "trials", x->trials) < 0 || fixed_parameter_attributes(io, x) < 0)
        return -1;
    return 0;
}

int store_create_experiment(hid_t file, const ar_experiment *x, int holes)
{
    hid_t g = make_group(file, x->name);
    if (g < 0)
        return -1;
    hid_t scales[AR_MAX_PARAMS];
    experiment_layout layout;
    measure_layout(x, &layout);
    layout.holes = holes;
    attr_io io = {.obj = g};
    int made = 0, ok = experiment_attributes(&io, x) == 0;
    for (; ok && made < x->n_axes; ++made)
        ok = (scales[made] = write_axis(g, x, made)) >= 0;
    if (!ok && made > 0)
        made--; /* the failed one is not open */
    for (int o = 0; ok && o < x->sim->n_outputs; ++o)
        ok = create_output(g, &layout, x, &x->sim->outputs[o], scales) == 0;
    ok = ok && create_theory(g, &layout, x, scales) == 0;
    if (ok) {
        dataset_shape shape = store_grid_shape(x, VALUE_FLAG);
        unsigned char zero = 0;
        hid_t done = store_make_dataset(g, "done", H5T_NATIVE_UCHAR, shape.rank, shape.dims, &zero,
                                  "1 where the point is complete and its data flushed (resume ledger)", holes);
        ok = done >= 0 && attach_scales(done, x, scales) == 0;
        if (done >= 0)
            H5Dclose(done);
    }
    for (int a = 0; a < made; ++a)
        H5Dclose(scales[a]);
    H5Gclose(g);
    return ok ? 0 : -1;
}
/* The widths of every experiment's outputs, measured once (one pass over each grid). */
int store_load_layout(ar_store *s, char *err)
{
    size_t n = (size_t)s->spec.n_experiments + 1;
    s->layout = calloc(n, sizeof *s->layout);
    s->checked = calloc(n, sizeof *s->checked);
    if (!s->layout || !s->checked)
        return store_fail(err, s->path, "out of memory reading the layout");
    for (int e = 0; e < s->spec.n_experiments; ++e)
        measure_layout(&s->spec.experiments[e], &s->layout[e]);
    return 0;
}
