/* store: HDF5 layout creation, point writes, resume ledger, verdict table. */
#define _GNU_SOURCE
#include "attnrank/store.h"
#include "attnrank/registry.h"

#include "attnrank/blas_core.h"
#include "attnrank/linalg.h"
#include "attnrank/rank.h"
#include "attnrank/rng.h"
#include "attnrank_config.h"
#include "git_revision.h"

#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <hdf5_hl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* 2: /verdicts gained resolution, note and rule_kind; limits are judged on an
 * extrapolated constant. 3: histograms of fewer trials than values are sparse
 * (hist_value, hist_count); integer outputs' intervals never have zero width. */
enum { FORMAT_VERSION = 3 };
static const char *const STAT_NAMES[] = {"mean", "stderr", "std", "ci_lo", "ci_hi", "min", "max"};
static const char *const STAT_DOCS[] = {
    "mean over finite trials",
    "standard error of the mean: std / sqrt(count)",
    "sample standard deviation (n - 1 denominator)",
    "lower end of the 95% interval: mean - t(0.975, count-1) * stderr (integer outputs: stderr taken as at least 1/count)",
    "upper end of the 95% interval: mean + t(0.975, count-1) * stderr (integer outputs: stderr taken as at least 1/count)",
    "smallest trial value",
    "largest trial value",
};
enum { N_STATS = 7 };

/* Each output's widths over an experiment's grid, found in one pass over its points when
 * a file is created or opened, so that nothing done per point walks the grid. */
typedef struct {
    int vector[AR_MAX_OUTPUTS]; /* longest vector of the output over the grid (1 for scalars) */
    int hist[AR_MAX_OUTPUTS];   /* integer outputs: largest hist_max + 1; 0 for the others */
    int slots[AR_MAX_OUTPUTS];  /* sparse histograms: values kept a point (the trials); 0: dense */
    int holes;                  /* a shard's file being made: its per-point datasets are reserved,
                                   never filled, so other shards' points stay holes of a sparse
                                   file (read as zeros) and the shard takes the disk its own take */
} experiment_layout;

struct ar_store {
    hid_t file;
    char *path;
    ar_spec spec;
    unsigned char **done; /* per experiment, per point */
    experiment_layout *layout; /* per experiment */
    unsigned *checked;         /* per experiment, a bit per output: its done values checked */
    struct slab_writer *writer; /* a writable store's buffered point writes (below) */
};

/* The widths of experiment x, one of the store's own. */
static const experiment_layout *layout_of(const ar_store *s, const ar_experiment *x)
{
    return &s->layout[x - s->spec.experiments];
}

static int fail(char *err, const char *path, const char *fmt, ...)
{
    char msg[AR_ERR_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, AR_ERR_LEN, "%.400s: %s", path, msg);
    for (char *c = err; *c; ++c) /* one line, whatever a file or a name holds */
        if ((unsigned char)*c < ' ')
            *c = ' ';
    return -1;
}

/* ---- small attribute helpers: every HDF5 return is checked ----------------------- */

/* Attributes are variable-length UTF-8 strings (h5py reads them as str); they are
 * written once, when the layout is created. Fixed-length ones would keep them out of
 * HDF5's global heap, where raw damage crashes libhdf5 1.10 (H5HG_read), but measured
 * (tests/fuzz/raw_bytes.py) they only move such crashes into the object headers. */
static int attr_string(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR), attr = -1;
    herr_t status = -1;
    if (type >= 0 && space >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0)
        attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr >= 0)
        status = H5Awrite(attr, type, &value);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return status < 0 ? -1 : 0;
}

static int attr_number(hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = space < 0 ? -1 : H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t status = attr < 0 ? -1 : H5Awrite(attr, type, value);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    return status < 0 ? -1 : 0;
}

/* Reading one back: an attribute is one value (a scalar) of the class asked for, or it
 * is refused; never read into a buffer sized by what the file claims. */
enum { ATTR_OK = 0, ATTR_ABSENT = -1, ATTR_WRONG = -2, ATTR_NO_MEMORY = -3 };
/* Longer text than any attribute attnrank writes (a spec is capped at 1 MiB). */
enum { MAX_ATTR_TEXT = 64 << 20 };

static hid_t open_scalar_attr(hid_t obj, const char *name, H5T_class_t class, hid_t *type)
{
    *type = -1;
    if (H5Aexists(obj, name) <= 0)
        return ATTR_ABSENT;
    hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t space = attr < 0 ? -1 : H5Aget_space(attr);
    *type = attr < 0 ? -1 : H5Aget_type(attr);
    int ok = space >= 0 && *type >= 0 && H5Sget_simple_extent_type(space) == H5S_SCALAR &&
             H5Tget_class(*type) == class;
    if (space >= 0)
        H5Sclose(space);
    if (!ok) {
        if (*type >= 0)
            H5Tclose(*type);
        if (attr >= 0)
            H5Aclose(attr);
        *type = -1;
        return ATTR_WRONG;
    }
    return attr;
}

/* Text, variable-length or fixed-length, as a malloc'd string in *out. */
static int read_attr_string(hid_t obj, const char *name, char **out)
{
    *out = NULL;
    hid_t type, attr = open_scalar_attr(obj, name, H5T_STRING, &type);
    if (attr < 0)
        return (int)attr;
    int status = ATTR_WRONG;
    hid_t mem = H5Tcopy(type);
    if (mem >= 0 && H5Tis_variable_str(type) > 0) {
        char *value = NULL;
        if (H5Aread(attr, mem, &value) >= 0 && value) {
            *out = strdup(value);
            status = *out ? ATTR_OK : ATTR_NO_MEMORY;
        }
        if (value)
            H5free_memory(value);
    } else if (mem >= 0) {
        size_t size = H5Tget_size(type);
        if (size > 0 && size < MAX_ATTR_TEXT && H5Tset_size(mem, size + 1) >= 0 &&
            H5Tset_strpad(mem, H5T_STR_NULLTERM) >= 0) {
            *out = malloc(size + 1);
            status = !*out ? ATTR_NO_MEMORY : H5Aread(attr, mem, *out) >= 0 ? ATTR_OK : ATTR_WRONG;
            if (status == ATTR_OK)
                (*out)[size] = '\0';
        }
    }
    if (status != ATTR_OK) {
        free(*out);
        *out = NULL;
    }
    if (mem >= 0)
        H5Tclose(mem);
    H5Tclose(type);
    H5Aclose(attr);
    return status;
}

/* One integer, converted to mem (a native integer type) into out; *is_unsigned says
 * whether the file holds it unsigned. */
static int read_attr_integer(hid_t obj, const char *name, hid_t mem, void *out, int *is_unsigned)
{
    hid_t type, attr = open_scalar_attr(obj, name, H5T_INTEGER, &type);
    if (attr < 0)
        return (int)attr;
    if (is_unsigned)
        *is_unsigned = H5Tget_sign(type) == H5T_SGN_NONE;
    herr_t st = H5Aread(attr, mem, out);
    H5Tclose(type);
    H5Aclose(attr);
    return st < 0 ? ATTR_WRONG : ATTR_OK;
}

/* ---- layout --------------------------------------------------------------------- */
/* Every function below closes what it opened on every path, success or failure. */

/* The c-th claim with a theory/ dataset in experiment x: every registered claim of its
 * simulator, then the experiment's conjectures; NULL past the last. */
static const ar_claim *theory_claim(const ar_experiment *x, int c)
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

static void axis_dims(const ar_experiment *x, hsize_t *dims)
{
    for (int a = 0; a < x->n_axes; ++a)
        dims[a] = (hsize_t)x->axes[a].count;
}

static hid_t make_dataset(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims,
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
    if (ds >= 0 && description && attr_string(ds, "description", description) < 0) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* A dataset made and written whole; closed unless keep (then returned open). */
static hid_t make_filled(hid_t parent, const char *name, hid_t type, hsize_t length, const void *values,
                         const char *description, int keep)
{
    hid_t ds = make_dataset(parent, name, type, 1, &length, NULL, description, 0);
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

/* The datasets of an integer output's histogram, and their last dimension: "hist", the
 * trials at each value 0 .. W-1 (dense); or, with fewer trials T than values,
 * "hist_value" and "hist_count", T slots a point holding the values seen in ascending
 * order and their trials, value -1 and count 0 past the last (sparse). Returns how many
 * (0 for an output without a histogram). */
enum { HIST_DATASETS = 2 };
static int hist_datasets(const experiment_layout *L, int o, const char **names, hsize_t *width)
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

static int hist_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o)
{
    return layout->hist[o - x->sim->outputs];
}

static int vector_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o)
{
    return layout->vector[o - x->sim->outputs];
}

/* The dimensions of an output's statistics: the axes, then for a vector output its
 * index (rows, then columns for a 2-D grid). Returns the rank; rows and columns are
 * the lengths of the index scales (0: none). */
static int output_dims(const experiment_layout *layout, const ar_experiment *x, const ar_output *o, hsize_t *dims,
                       hsize_t *rows, hsize_t *columns)
{
    axis_dims(x, dims);
    int rank = x->n_axes;
    *rows = *columns = 0;
    if (o->length) {
        *rows = (hsize_t)vector_width(layout, x, o);
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

/* ---- what each dataset must be ------------------------------------------------------
 * Every read and write of a dataset opens it through open_checked, which compares its
 * type and every dimension with what the stored spec gives, so no H5Dread or H5Dwrite
 * is ever sized by what a file claims; ar_store_open checks the whole layout this way
 * (check_layout), so a damaged file is refused before any work. */

typedef enum { VALUE_DOUBLE, VALUE_INT64, VALUE_FLAG, VALUE_TEXT, VALUE_VERDICT } value_kind;

typedef struct {
    value_kind kind;
    size_t text_size; /* VALUE_TEXT: the fixed length of its strings */
    int rank;         /* 0: a scalar */
    hsize_t dims[AR_MAX_PARAMS + 2];
} dataset_shape;

static hid_t verdict_type(void);

/* The type a dataset of this kind is read into and written from. */
static hid_t memory_type(value_kind kind)
{
    return kind == VALUE_DOUBLE ? H5T_NATIVE_DOUBLE : kind == VALUE_INT64 ? H5T_NATIVE_LLONG : H5T_NATIVE_UCHAR;
}

static hsize_t shape_count(const dataset_shape *shape)
{
    hsize_t n = 1;
    for (int i = 0; i < shape->rank; ++i)
        n *= shape->dims[i];
    return n;
}

static dataset_shape grid_shape(const ar_experiment *x, value_kind kind)
{
    dataset_shape shape = {.kind = kind, .rank = x->n_axes};
    axis_dims(x, shape.dims);
    return shape;
}

static dataset_shape line_shape(hsize_t length, value_kind kind, size_t text_size)
{
    return (dataset_shape){.kind = kind, .text_size = text_size, .rank = 1, .dims = {length}};
}

static dataset_shape stat_shape(const experiment_layout *layout, const ar_experiment *x, const ar_output *o,
                                value_kind kind)
{
    dataset_shape shape = {.kind = kind};
    hsize_t rows, columns;
    shape.rank = output_dims(layout, x, o, shape.dims, &rows, &columns);
    return shape;
}

/* A histogram dataset: the axes, then `width` (hist_datasets). */
static dataset_shape hist_cell_shape(const ar_experiment *x, hsize_t width)
{
    dataset_shape shape = grid_shape(x, VALUE_INT64);
    shape.dims[shape.rank++] = width;
    return shape;
}


static int type_matches(hid_t type, const dataset_shape *want)
{
    switch (want->kind) {
    case VALUE_DOUBLE: return H5Tequal(type, H5T_IEEE_F64LE) > 0 || H5Tequal(type, H5T_IEEE_F64BE) > 0;
    case VALUE_INT64: return H5Tequal(type, H5T_STD_I64LE) > 0 || H5Tequal(type, H5T_STD_I64BE) > 0;
    case VALUE_FLAG: return H5Tequal(type, H5T_STD_U8LE) > 0 || H5Tequal(type, H5T_STD_U8BE) > 0;
    case VALUE_TEXT:
        return H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) == 0 &&
               H5Tget_size(type) == want->text_size;
    case VALUE_VERDICT: {
        hid_t verdict = verdict_type();
        int same = verdict >= 0 && H5Tequal(type, verdict) > 0;
        if (verdict >= 0)
            H5Tclose(verdict);
        return same;
    }
    }
    return 0;
}

static void describe_type(hid_t type, char *buf, size_t len)
{
    size_t bits = 8 * H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_FLOAT: snprintf(buf, len, "float%zu", bits); break;
    case H5T_INTEGER: snprintf(buf, len, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bits); break;
    case H5T_STRING:
        if (H5Tis_variable_str(type) > 0)
            snprintf(buf, len, "variable-length text");
        else
            snprintf(buf, len, "text of %zu bytes", bits / 8);
        break;
    case H5T_COMPOUND: snprintf(buf, len, "a table of %d columns", H5Tget_nmembers(type)); break;
    default: snprintf(buf, len, "values of another type");
    }
}

static void describe_kind(const dataset_shape *want, char *buf, size_t len)
{
    switch (want->kind) {
    case VALUE_DOUBLE: snprintf(buf, len, "float64"); break;
    case VALUE_INT64: snprintf(buf, len, "int64"); break;
    case VALUE_FLAG: snprintf(buf, len, "uint8"); break;
    case VALUE_TEXT: snprintf(buf, len, "text of %zu bytes", want->text_size); break;
    case VALUE_VERDICT: snprintf(buf, len, "the verdict table"); break;
    }
}

static void describe_dims(int rank, const hsize_t *dims, char *buf, size_t len)
{
    if (rank <= 0) {
        snprintf(buf, len, rank == 0 ? "a scalar" : "no shape");
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < rank && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* The dataset `name` of the group loc (whose path is `group`, "" or ending in '/')
 * opened, if it has the type and shape of `want`; else -1 with err naming the file and
 * the dataset. */
/* Is every link on the path name (below loc) a hard link? A soft link (mean -> std) or an
 * external one (into another file) would pass another dataset off as the one named. */
static int hard_links_only(hid_t loc, const char *name)
{
    char prefix[512];
    size_t len = strlen(name);
    if (len >= sizeof prefix)
        return 0;
    for (size_t end = 1; end <= len; ++end) {
        if (name[end] != '/' && name[end] != '\0')
            continue;
        memcpy(prefix, name, end);
        prefix[end] = '\0';
        H5L_info_t info;
        if (H5Lexists(loc, prefix, H5P_DEFAULT) <= 0 || H5Lget_info(loc, prefix, &info, H5P_DEFAULT) < 0 ||
            info.type != H5L_TYPE_HARD)
            return 0;
    }
    return 1;
}

static hid_t open_in(const ar_store *s, hid_t loc, const char *group, const char *name, const dataset_shape *want,
                     char *err)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0 && !hard_links_only(loc, name)) {
        fail(err, s->path, "damaged: /%s%s is a soft or external link, not a dataset of this file", group, name);
        return -1;
    }
    hid_t ds = H5Dopen2(loc, name, H5P_DEFAULT);
    if (ds < 0) {
        fail(err, s->path, "damaged: dataset /%s%s is missing", group, name);
        return -1;
    }
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    char got[96], wanted[96];
    int ok = 0;
    if (type < 0 || space < 0) {
        fail(err, s->path, "damaged: dataset /%s%s cannot be read", group, name);
    } else if (!type_matches(type, want)) {
        describe_type(type, got, sizeof got);
        describe_kind(want, wanted, sizeof wanted);
        fail(err, s->path, "damaged: dataset /%s%s holds %s, not %s as its spec gives", group, name, got, wanted);
    } else {
        hsize_t dims[H5S_MAX_RANK];
        int rank = H5Sget_simple_extent_ndims(space);
        H5S_class_t class = H5Sget_simple_extent_type(space);
        int known = rank == 0 ||
                    (rank > 0 && rank <= H5S_MAX_RANK && H5Sget_simple_extent_dims(space, dims, NULL) == rank);
        ok = known && rank == want->rank && class == (want->rank ? H5S_SIMPLE : H5S_SCALAR);
        for (int i = 0; ok && i < rank; ++i)
            ok = dims[i] == want->dims[i];
        if (!ok) {
            describe_dims(class == H5S_NULL || !known ? -1 : rank, dims, got, sizeof got);
            describe_dims(want->rank, want->dims, wanted, sizeof wanted);
            fail(err, s->path, "damaged: dataset /%s%s has shape %s, not %s as its spec gives", group, name, got,
                 wanted);
        }
    }
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (!ok) {
        H5Dclose(ds);
        return -1;
    }
    return ds;
}

/* The same, for a name from the file's root. */
static hid_t open_checked(const ar_store *s, const char *name, const dataset_shape *want, char *err)
{
    return open_in(s, s->file, "", name, want, err);
}

/* A whole dataset read into out, which holds shape_count(want) values. */
static int read_checked(const ar_store *s, const char *name, const dataset_shape *want, hid_t mem, void *out,
                        char *err)
{
    hid_t ds = open_checked(s, name, want, err);
    if (ds < 0)
        return -1;
    herr_t st = H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
    H5Dclose(ds);
    return st < 0 ? fail(err, s->path, "cannot read /%s", name) : 0;
}

static int check_one(const ar_store *s, hid_t loc, const char *group, const dataset_shape *want, const char *name,
                     char *err)
{
    hid_t ds = open_in(s, loc, group, name, want, err);
    if (ds < 0)
        return -1;
    H5Dclose(ds);
    return 0;
}

/* A group of the layout, opened (-1 with err set if it is not there). */
static hid_t open_group(const ar_store *s, hid_t loc, const char *group, const char *name, char *err)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0 && !hard_links_only(loc, name)) {
        fail(err, s->path, "damaged: /%s%s is a soft or external link, not a group of this file", group, name);
        return -1;
    }
    hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
    if (g < 0)
        fail(err, s->path, "damaged: group /%s%s is missing", group, name);
    return g;
}

/* An output's datasets: statistics, index scales, histogram. */
static int check_output(const ar_store *s, hid_t og, const char *group, const ar_experiment *x, const ar_output *o,
                        char *err)
{
    const experiment_layout *L = layout_of(s, x);
    dataset_shape stats = stat_shape(L, x, o, VALUE_DOUBLE), counts = stat_shape(L, x, o, VALUE_INT64);
    for (int k = 0; k < N_STATS; ++k)
        if (check_one(s, og, group, &stats, STAT_NAMES[k], err) < 0)
            return -1;
    if (check_one(s, og, group, &counts, "count", err) < 0 || check_one(s, og, group, &counts, "failed", err) < 0)
        return -1;
    hsize_t dims[AR_MAX_PARAMS + 2], rows, columns;
    output_dims(L, x, o, dims, &rows, &columns);
    dataset_shape index = line_shape(rows, o->index_value ? VALUE_DOUBLE : VALUE_INT64, 0);
    dataset_shape column = line_shape(columns, o->column_value ? VALUE_DOUBLE : VALUE_INT64, 0);
    if ((rows && check_one(s, og, group, &index, o->index_name, err) < 0) ||
        (columns && check_one(s, og, group, &column, o->column_name, err) < 0))
        return -1;
    const char *names[HIST_DATASETS];
    hsize_t width;
    int cells = hist_datasets(L, (int)(o - x->sim->outputs), names, &width);
    if (cells == 0)
        return 0;
    dataset_shape hist = hist_cell_shape(x, width), value = line_shape((hsize_t)hist_width(L, x, o), VALUE_INT64, 0);
    if (check_one(s, og, group, &value, "value", err) < 0)
        return -1;
    for (int c = 0; c < cells; ++c)
        if (check_one(s, og, group, &hist, names[c], err) < 0)
            return -1;
    return 0;
}

/* An experiment's datasets: axes, outputs, predictions, ledger. */
static int check_experiment(const ar_store *s, hid_t g, const ar_experiment *x, char *err)
{
    char group[512];
    snprintf(group, sizeof group, "%s/", x->name);
    for (int a = 0; a < x->n_axes; ++a) {
        const ar_param *p = &x->sim->params[x->axes[a].param];
        dataset_shape axis = line_shape((hsize_t)x->axes[a].count,
                                        p->type == AR_PARAM_CHOICE ? VALUE_TEXT
                                        : p->type == AR_PARAM_INT  ? VALUE_INT64
                                                                   : VALUE_DOUBLE,
                                        p->type == AR_PARAM_CHOICE ? choice_size(p) : 0);
        if (check_one(s, g, group, &axis, p->name, err) < 0)
            return -1;
    }
    for (int i = 0; i < x->sim->n_outputs; ++i) {
        const ar_output *o = &x->sim->outputs[i];
        char sub[640];
        snprintf(sub, sizeof sub, "%s%s/", group, o->name);
        hid_t og = open_group(s, g, group, o->name, err);
        int st = og < 0 ? -1 : check_output(s, og, sub, x, o, err);
        if (og >= 0)
            H5Gclose(og);
        if (st < 0)
            return -1;
    }
    int st = 0;
    dataset_shape grid = grid_shape(x, VALUE_DOUBLE), done = grid_shape(x, VALUE_FLAG);
    char sub[640];
    snprintf(sub, sizeof sub, "%stheory/", group);
    hid_t tg = open_group(s, g, group, "theory", err);
    for (int c = 0; tg >= 0 && st == 0; ++c) {
        const ar_claim *claim = theory_claim(x, c);
        if (!claim)
            break;
        st = check_one(s, tg, sub, &grid, claim->id, err);
    }
    if (tg >= 0)
        H5Gclose(tg);
    return tg < 0 || st < 0 ? -1 : check_one(s, g, group, &done, "done", err);
}

/* Every dataset ar_store_create makes for the stored spec, of the type and shape it
 * makes it; groups opened once each, as a lookup from the root costs as much as the
 * check (a spec of thousands of experiments). */
static int check_layout(const ar_store *s, char *err)
{
    const ar_spec *spec = &s->spec;
    for (int e = 0; e < spec->n_experiments; ++e) {
        hid_t g = open_group(s, s->file, "", spec->experiments[e].name, err);
        int st = g < 0 ? -1 : check_experiment(s, g, &spec->experiments[e], err);
        if (g >= 0)
            H5Gclose(g);
        if (st < 0)
            return -1;
    }
    dataset_shape verdicts = line_shape((hsize_t)ar_store_verdict_count(spec), VALUE_VERDICT, 0);
    return check_one(s, s->file, "", &verdicts, "verdicts", err);
}

/* A vector output's index: 0, 1, ... (layers), or the coordinates the simulator gives
 * (bin centres), as a dimension scale, returned open. */
static hid_t index_scale(hid_t group, const char *name, hsize_t width, double (*value)(int))
{
    hid_t type = value ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
    void *values = malloc(width * 8 + 1);
    if (!values)
        return -1;
    for (hsize_t v = 0; v < width; ++v) {
        if (value)
            ((double *)values)[v] = value((int)v);
        else
            ((long long *)values)[v] = (long long)v;
    }
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
    for (int s = 0; ok && s < N_STATS + 2; ++s) {
        int is_count = s >= N_STATS;
        const char *name = s < N_STATS ? STAT_NAMES[s] : s == N_STATS ? "count" : "failed";
        const char *doc = s < N_STATS ? STAT_DOCS[s]
                          : s == N_STATS ? "trials with a finite value (the n behind mean and stderr)"
                                         : "trials that failed (non-finite value); never averaged";
        hid_t ds = make_dataset(og, name, is_count ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, rank, dims,
                                is_count ? (const void *)&zero : (const void *)&nan, doc, L->holes);
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
    hsize_t width = 0, values_width = (hsize_t)hist_width(L, x, o);
    int cells = hist_datasets(L, (int)(o - x->sim->outputs), names, &width);
    dataset_shape shape = hist_cell_shape(x, width);
    long long *values = malloc(values_width * sizeof *values + 1), zero = 0, none = -1;
    if (!values)
        return -1;
    for (hsize_t v = 0; v < values_width; ++v)
        values[v] = (long long)v;
    hid_t vs = make_filled(og, "value", H5T_NATIVE_LLONG, values_width, values, "histogram bin: the value counted", 1);
    free(values);
    int ok = vs >= 0 && H5DSset_scale(vs, "value") >= 0 &&
             attr_string(og, "histogram", cells == 1 ? "dense: hist[..., v] counts the trials of value v"
                                                     : "sparse: hist_value[..., k] is the k-th value seen (ascending; "
                                                       "-1 past the last), hist_count[..., k] its trials") == 0;
    for (int c = 0; ok && c < cells; ++c) {
        int is_value = cells == 2 && c == 0;
        const char *doc = cells == 1  ? "trial counts per value; last dimension: value"
                          : is_value ? "the values seen at the point, ascending, -1 past the last; last dimension: slot"
                                     : "trials of each value in hist_value; 0 past the last; last dimension: slot";
        hid_t ds = make_dataset(og, names[c], H5T_NATIVE_LLONG, shape.rank, shape.dims, is_value ? &none : &zero, doc,
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
    int ok = attr_string(og, "description", o->description) == 0 && attr_string(og, "definition", definition) == 0 &&
             create_statistics(og, L, x, o, scales) == 0 &&
             (!o->hist_max || create_histogram(og, L, x, o, scales) == 0);
    H5Gclose(og);
    return ok ? 0 : -1;
}

/* The predictions at every point; a shard's file leaves them to the merge (holes). */
static int create_theory(hid_t group, const experiment_layout *L, const ar_experiment *x, const hid_t *scales)
{
    hid_t tg = make_group(group, "theory");
    if (tg < 0)
        return -1;
    hsize_t dims[AR_MAX_PARAMS];
    axis_dims(x, dims);
    double *values = malloc((size_t)x->n_points * sizeof *values);
    int ok = values != NULL;
    for (int c = 0; ok; ++c) {
        const ar_claim *claim = theory_claim(x, c);
        if (!claim)
            break;
        for (long p = 0; !L->holes && p < x->n_points; ++p) {
            ar_point point;
            ar_experiment_point(x, p, &point);
            values[p] = ar_claim_predict(claim, &point);
        }
        hid_t ds = make_dataset(tg, claim->id, H5T_NATIVE_DOUBLE, x->n_axes, dims, NULL, claim->statement, L->holes);
        ok = ds >= 0 && (L->holes || H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0) &&
             attach_scales(ds, x, scales) == 0 && attr_string(ds, "formula", claim->formula) == 0 &&
             attr_string(ds, "output", x->sim->outputs[claim->output].name) == 0 &&
             attr_string(ds, "kind", claim->conjecture ? "conjecture" : "claim") == 0;
        if (ds >= 0)
            H5Dclose(ds);
    }
    free(values);
    H5Gclose(tg);
    return ok ? 0 : -1;
}

static int experiment_attributes(hid_t g, const ar_experiment *x)
{
    char claims[AR_MAX_CLAIMS * 16 + 1] = ""; /* every id (at most 15 characters) and a space */
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
    return 0;
}

static int create_experiment(hid_t file, const ar_experiment *x, int holes)
{
    hid_t g = make_group(file, x->name);
    if (g < 0)
        return -1;
    hid_t scales[AR_MAX_PARAMS];
    experiment_layout layout;
    measure_layout(x, &layout);
    layout.holes = holes;
    int made = 0, ok = experiment_attributes(g, x) == 0;
    for (; ok && made < x->n_axes; ++made)
        ok = (scales[made] = write_axis(g, x, made)) >= 0;
    if (!ok && made > 0)
        made--; /* the failed one is not open */
    for (int o = 0; ok && o < x->sim->n_outputs; ++o)
        ok = create_output(g, &layout, x, &x->sim->outputs[o], scales) == 0;
    ok = ok && create_theory(g, &layout, x, scales) == 0;
    if (ok) {
        dataset_shape shape = grid_shape(x, VALUE_FLAG);
        unsigned char zero = 0;
        hid_t done = make_dataset(g, "done", H5T_NATIVE_UCHAR, shape.rank, shape.dims, &zero,
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
                                              [AR_UNDECIDED_VARYING_PREDICTION] = "varying prediction",
                                              [AR_UNDECIDED_AXIS_NOT_POSITIVE] = "axis not positive"};

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


/* What else computes results besides OpenBLAS: the normals' variant (same bits in all)
 * and the kernel of S = Q K^T at small sizes (not OpenBLAS's bits). */
enum { KERNELS_TEXT = 160 };
static void kernels_text(char out[KERNELS_TEXT])
{
    snprintf(out, KERNELS_TEXT, "normals %s; S = Q K^T up to %dx%dx%d by %s", ar_rng_normals_isa(),
             AR_GEMM_SMALL_MAX_MN, AR_GEMM_SMALL_MAX_MN, AR_GEMM_SMALL_MAX_K,
             ar_gemm_small_has_avx2() ? "attnrank's AVX2+FMA kernel" : "OpenBLAS");
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
    char kernels[KERNELS_TEXT];
    kernels_text(kernels);
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
        attr_string(file, "rng", AR_RNG_STREAMS) < 0 ||
        attr_string(file, "gsl_version", GSL_VERSION) < 0 || attr_string(file, "hdf5_version", hdf5) < 0 ||
        attr_string(file, "openblas_config", ar_blas_config()) < 0 ||
        attr_string(file, "openblas_core", ar_blas_corename()) < 0 ||
        attr_string(file, "openblas_core_origin", ar_blas_core_origin()) < 0 ||
        attr_string(file, "kernels", kernels) < 0 ||
        attr_string(file, "compiler", __VERSION__) < 0)
        return -1;
    return 0;
}

/* The widths of every experiment's outputs, measured once (one pass over each grid). */
static int load_layout(ar_store *s, char *err)
{
    size_t n = (size_t)s->spec.n_experiments + 1;
    s->layout = calloc(n, sizeof *s->layout);
    s->checked = calloc(n, sizeof *s->checked);
    if (!s->layout || !s->checked)
        return fail(err, s->path, "out of memory reading the layout");
    for (int e = 0; e < s->spec.n_experiments; ++e)
        measure_layout(&s->spec.experiments[e], &s->layout[e]);
    return 0;
}

static int load_done(ar_store *s, char *err)
{
    s->done = calloc((size_t)s->spec.n_experiments + 1, sizeof *s->done);
    if (!s->done)
        return fail(err, s->path, "out of memory reading the done ledger");
    for (int e = 0; e < s->spec.n_experiments; ++e) {
        const ar_experiment *x = &s->spec.experiments[e];
        s->done[e] = calloc((size_t)x->n_points + 1, 1);
        if (!s->done[e])
            return fail(err, s->path, "out of memory reading the done ledger");
        char name[512];
        snprintf(name, sizeof name, "%s/done", x->name);
        dataset_shape shape = grid_shape(x, VALUE_FLAG);
        if (read_checked(s, name, &shape, H5T_NATIVE_UCHAR, s->done[e], err) < 0)
            return -1;
        for (long p = 0; p < x->n_points; ++p) /* a point is done (1) or not (0): nothing else */
            if (s->done[e][p] > 1)
                return fail(err, s->path, "damaged: dataset /%s holds %u at point %ld, not 0 (not done) or 1 (done)",
                            name, (unsigned)s->done[e][p], p);
    }
    return 0;
}

static ar_store *open_store(const char *path, int writable, int check, char *err);
static int check_done_values(ar_store *store, int experiment, int output, char *err);

ar_store *ar_store_create(const char *path, const ar_spec *spec, const char *command_line, int shard_file,
                          char *err)
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
        ok = create_experiment(file, &spec->experiments[e], shard_file) == 0;
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
                                    "one row per (experiment, claim): the verdict and the point that decided it", 0);
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
    return open_store(path, 1, 0, err);
}

ar_store *ar_store_open(const char *path, int writable, char *err)
{
    return open_store(path, writable, 1, err);
}

/* check: the whole layout (check_layout); not for the file ar_store_create has just
 * made, whose layout is its own. */
static ar_store *open_store(const char *path, int writable, int check, char *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* H5Fis_hdf5 says "no" for a file it cannot open at all: say why instead, lest a good
     * shard unreadable for a moment (permissions, too many open files) look damaged. */
    int probe = open(path, writable ? O_RDWR : O_RDONLY);
    if (probe < 0) {
        if (errno == ENOENT)
            fail(err, path, "no such file");
        else
            fail(err, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    close(probe);
    if (H5Fis_hdf5(path) <= 0) {
        fail(err, path, "not an HDF5 file, or truncated");
        return NULL;
    }
    /* Readers skip HDF5's file lock, so `info` can look at a run in progress. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (!writable)
        H5Pset_file_locking(fapl, 0, 1);
    /* No data sieving: points are written in slabs, and a sieve (64 KiB read, modified and
     * written back around each write) would fill a shard's holes with the zeros it read. */
    H5Pset_sieve_buf_size(fapl, 0);
    hid_t file = H5Fopen(path, writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (file < 0) {
        fail(err, path, "cannot open the HDF5 file%s", writable ? " for writing" : "");
        return NULL;
    }
    ar_store *s = calloc(1, sizeof *s);
    char *canonical = NULL, *version = NULL;
    if (!s || !(s->path = strdup(path))) {
        free(s);
        H5Fclose(file);
        fail(err, path, "out of memory opening the file");
        return NULL;
    }
    s->file = file;
    int st = read_attr_string(file, "attnrank_version", &version);
    if (st != ATTR_OK) {
        fail(err, path, st == ATTR_ABSENT ? "not an attnrank result file (no attnrank_version attribute)"
                                          : "damaged: its attnrank_version attribute is not one text value");
        goto bad;
    }
    long long format = 0;
    if (read_attr_integer(file, "format_version", H5T_NATIVE_LLONG, &format, NULL) == ATTR_WRONG) {
        fail(err, path, "damaged: its format_version attribute is not one integer");
        goto bad;
    }
    if (format != FORMAT_VERSION) {
        fail(err, path, "written by attnrank %.40s in file format %lld; this attnrank reads format %d", version,
             format, FORMAT_VERSION);
        goto bad;
    }
    st = read_attr_string(file, "spec_canonical", &canonical);
    if (st != ATTR_OK) {
        fail(err, path, st == ATTR_ABSENT ? "damaged: no spec_canonical attribute"
                                          : "damaged: its spec_canonical attribute is not one text value");
        goto bad;
    }
    char spec_err[AR_ERR_LEN];
    if (ar_spec_load_text(canonical, path, NULL, NULL, 0, &s->spec, spec_err) != 0) {
        fail(err, path, "its stored spec is not valid for this attnrank: %s", spec_err);
        goto bad;
    }
    /* The canonical spec is its own canonical form, so its hash is the one written beside
     * it: an edited spec (31 trials shown for a file of 30) does not pass for the original. */
    char *stored_hash = NULL, hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s->spec.hash);
    st = read_attr_string(file, "spec_hash", &stored_hash);
    int same = st == ATTR_OK && strcmp(stored_hash, hash) == 0;
    free(stored_hash);
    if (!same) {
        fail(err, path, st == ATTR_ABSENT  ? "damaged: no spec_hash attribute"
                        : st != ATTR_OK    ? "damaged: its spec_hash attribute is not one text value"
                                           : "damaged: its spec_canonical does not hash to its spec_hash (%s): edited?",
             hash);
        goto bad;
    }
    /* The whole layout before anything is read from it: a damaged file is refused
     * now, not after a resumed run's worth of work. */
    if (load_layout(s, err) < 0 || (check && check_layout(s, err) < 0) || load_done(s, err) < 0)
        goto bad;
    /* and the values at every point the ledger marks done: what a run could write */
    for (int e = 0; check && e < s->spec.n_experiments; ++e)
        for (int o = 0; o < s->spec.experiments[e].sim->n_outputs; ++o)
            if (check_done_values(s, e, o, err) < 0)
                goto bad;
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

/* ---- buffered point writes --------------------------------------------------------
 * Points arrive one at a time but are written in slabs: consecutive points of one
 * experiment gathered in memory, then one H5Dwrite per dataset. About once a second
 * the slabs written are committed: the file is flushed, their points' entries in the
 * done ledger are written, and the file is flushed again. A kill thus loses at most the
 * last second's points, and the ledger names only points whose data reached the file
 * before it: a resume recomputes the rest, with the same bits. The layout is allocated
 * when the file is made (contiguous, row-major over the axes), so these writes touch raw
 * data only and a slab of consecutive points is one contiguous stretch of each dataset. */

enum { N_CELLS = N_STATS + 2 }; /* per output: seven statistics, count and failed */
static const double COMMIT_SECONDS = 1.0;
/* A slab's buffers stay near this size, at most SLAB_POINTS points. */
static const double SLAB_BYTES = 8.0 * 1048576;
enum { SLAB_POINTS = 8192 };

typedef struct {
    int experiment;
    long first, count;
} point_range;

typedef struct slab_writer {
    int experiment;                    /* the slab's experiment; -1 before the first point */
    long first, count, capacity;       /* it holds points first .. first + count - 1 */
    double *stats[AR_MAX_OUTPUTS];     /* [N_STATS][capacity][vector width] */
    long long *counts[AR_MAX_OUTPUTS]; /* [2][capacity][vector width]: count, failed */
    long long *hists[AR_MAX_OUTPUTS];  /* [histogram datasets][capacity][their width] */
    hid_t datasets[AR_MAX_OUTPUTS][N_CELLS + HIST_DATASETS]; /* the experiment's, opened (checked) once */
    point_range *pending;              /* written, not yet in the ledger */
    int n_pending, pending_capacity;
    double last_commit;
} slab_writer;

static double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Add points first .. first + count - 1 (row-major over x's axes) to the selection of
 * space, whose dimensions are the axes and then whole ones (a vector's index, a
 * histogram's values): a union of at most two hyperslabs per axis. `op` is
 * H5S_SELECT_SET for the first range, H5S_SELECT_OR for the others. */
static int add_points(hid_t space, const ar_experiment *x, long first, long count, H5S_seloper_t op)
{
    if (x->n_axes == 0)
        return H5Sselect_all(space) < 0 ? -1 : 0; /* one point, the whole dataset */
    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, dims, NULL), axes = x->n_axes;
    hsize_t block[H5S_MAX_RANK + 1]; /* block[j]: points in one index of axis j - 1 */
    block[axes] = 1;
    for (int j = axes - 1; j >= 0; --j)
        block[j] = block[j + 1] * dims[j];
    hsize_t lo = (hsize_t)first, hi = (hsize_t)(first + count);
    while (lo < hi) {
        /* the largest aligned block that starts at lo and fits, and how many of them */
        int j = 0;
        while (lo % block[j] != 0 || lo + block[j] > hi)
            j++;
        hsize_t start[H5S_MAX_RANK], n[H5S_MAX_RANK], rest = lo;
        for (int a = axes - 1; a >= 0; --a)
            start[a] = rest % dims[a], rest /= dims[a];
        for (int a = 0; a < axes; ++a)
            n[a] = a < j - 1 ? 1 : a >= j ? dims[a] : 0;
        hsize_t m = 1; /* j = 0: the whole grid */
        if (j > 0) {
            m = (hi - lo) / block[j];
            if (m > dims[j - 1] - start[j - 1])
                m = dims[j - 1] - start[j - 1];
            n[j - 1] = m;
        }
        for (int a = axes; a < rank; ++a)
            start[a] = 0, n[a] = dims[a];
        if (H5Sselect_hyperslab(space, op, start, NULL, n, NULL) < 0)
            return -1;
        op = H5S_SELECT_OR;
        lo += m * (j > 0 ? block[j] : block[0]);
    }
    return 0;
}

/* The file space of ds with points first .. first + count - 1 selected. */
static hid_t select_points(hid_t ds, const ar_experiment *x, long first, long count)
{
    hid_t space = H5Dget_space(ds);
    if (space >= 0 && add_points(space, x, first, count, H5S_SELECT_SET) < 0) {
        H5Sclose(space);
        return -1;
    }
    return space;
}

/* The points marked in a flag array (done, or to copy), as runs of consecutive points:
 * a dataset's values at those points are read or written with one call selecting the
 * runs, into or from a buffer that holds just them, in point order. */
typedef struct {
    long *first, *count;
    long runs, points, marked; /* runs; the grid's points; the points marked */
} point_runs;

static int find_runs(const unsigned char *marks, long n_points, point_runs *r)
{
    memset(r, 0, sizeof *r);
    r->points = n_points;
    long runs = 0;
    for (long p = 0; p < n_points; ++p)
        runs += marks[p] && (p == 0 || !marks[p - 1]);
    r->first = malloc((size_t)(runs + 1) * sizeof *r->first);
    r->count = malloc((size_t)(runs + 1) * sizeof *r->count);
    if (!r->first || !r->count) {
        free(r->first), free(r->count);
        memset(r, 0, sizeof *r);
        return -1;
    }
    for (long p = 0; p < n_points;) {
        if (!marks[p]) {
            p++;
            continue;
        }
        long end = p;
        while (end < n_points && marks[end])
            end++;
        r->first[r->runs] = p, r->count[r->runs++] = end - p, r->marked += end - p;
        p = end;
    }
    return 0;
}

static void free_runs(point_runs *r)
{
    free(r->first), free(r->count);
    memset(r, 0, sizeof *r);
}

/* The file space of ds with the runs' points selected (all of it where they are all). */
static hid_t select_runs(hid_t ds, const ar_experiment *x, const point_runs *r)
{
    hid_t space = H5Dget_space(ds);
    if (space < 0 || r->marked == r->points)
        return space;
    for (long i = 0; i < r->runs; ++i)
        if (add_points(space, x, r->first[i], r->count[i], i ? H5S_SELECT_OR : H5S_SELECT_SET) < 0) {
            H5Sclose(space);
            return -1;
        }
    return space;
}

/* Dataset `name` (checked to be of `want`, per_point values a point) at the runs'
 * points, from or into buf, which holds r->marked * per_point values in point order:
 * read (writing 0) or written (writing 1) with one call. */
static int transfer_runs(ar_store *s, const char *name, const dataset_shape *want, const ar_experiment *x,
                         const point_runs *r, size_t per_point, void *buf, int writing, char *err)
{
    if (r->marked == 0)
        return 0;
    hid_t ds = open_checked(s, name, want, err);
    if (ds < 0)
        return -1;
    hid_t file_space = select_runs(ds, x, r);
    hsize_t values = (hsize_t)r->marked * per_point;
    hid_t mem = H5Screate_simple(1, &values, NULL);
    herr_t st = -1;
    if (file_space >= 0 && mem >= 0)
        st = writing ? H5Dwrite(ds, memory_type(want->kind), mem, file_space, H5P_DEFAULT, buf)
                     : H5Dread(ds, memory_type(want->kind), mem, file_space, H5P_DEFAULT, buf);
    if (mem >= 0)
        H5Sclose(mem);
    if (file_space >= 0)
        H5Sclose(file_space);
    H5Dclose(ds);
    if (st < 0)
        return fail(err, s->path, writing ? "cannot write /%s (disk full?)" : "cannot read /%s", name);
    return 0;
}

/* values (count points' worth, in point order) into the open dataset ds. */
static int write_points(hid_t ds, hid_t type, const ar_experiment *x, long first, long count, hsize_t per_point,
                        const void *values)
{
    hid_t file_space = select_points(ds, x, first, count);
    hsize_t n = (hsize_t)count * per_point;
    hid_t mem = H5Screate_simple(1, &n, NULL);
    herr_t st = file_space < 0 || mem < 0 ? -1 : H5Dwrite(ds, type, mem, file_space, H5P_DEFAULT, values);
    if (mem >= 0)
        H5Sclose(mem);
    if (file_space >= 0)
        H5Sclose(file_space);
    return st < 0 ? -1 : 0;
}

static const char *cell_name(int k)
{
    return k < N_STATS ? STAT_NAMES[k] : k == N_STATS ? "count" : "failed";
}

static void close_slab_datasets(slab_writer *w)
{
    for (int o = 0; o < AR_MAX_OUTPUTS; ++o)
        for (int k = 0; k < N_CELLS + HIST_DATASETS; ++k) {
            if (w->datasets[o][k] >= 0)
                H5Dclose(w->datasets[o][k]);
            w->datasets[o][k] = -1;
        }
}

static void free_slab_buffers(slab_writer *w)
{
    for (int o = 0; o < AR_MAX_OUTPUTS; ++o) {
        free(w->stats[o]), free(w->counts[o]), free(w->hists[o]);
        w->stats[o] = NULL, w->counts[o] = NULL, w->hists[o] = NULL;
    }
}

/* Make the slab experiment e's: its datasets opened (each checked once) and buffers
 * sized for its widths. */
static int start_slab(ar_store *s, int e, char *err)
{
    slab_writer *w = s->writer;
    const ar_experiment *x = &s->spec.experiments[e];
    const experiment_layout *L = &s->layout[e];
    close_slab_datasets(w);
    free_slab_buffers(w);
    w->experiment = -1;
    double per_point = 0;
    for (int o = 0; o < x->sim->n_outputs; ++o)
        per_point += 8.0 * (N_CELLS * L->vector[o] + (L->slots[o] ? 2 * L->slots[o] : L->hist[o]));
    double fit = SLAB_BYTES / (per_point > 0 ? per_point : 1);
    w->capacity = fit < 1 ? 1 : fit > SLAB_POINTS ? SLAB_POINTS : (long)fit;
    w->count = 0;
    char name[512];
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        size_t cap = (size_t)w->capacity, vec = (size_t)L->vector[o];
        const char *hist_names[HIST_DATASETS];
        hsize_t width = 0;
        int cells = hist_datasets(L, o, hist_names, &width);
        w->stats[o] = malloc(N_STATS * cap * vec * sizeof(double));
        w->counts[o] = malloc(2 * cap * vec * sizeof(long long));
        w->hists[o] = malloc((size_t)cells * cap * width * sizeof(long long) + 1);
        if (!w->stats[o] || !w->counts[o] || !w->hists[o])
            return fail(err, s->path, "out of memory for the points of experiment %s", x->name);
        dataset_shape real = stat_shape(L, x, out, VALUE_DOUBLE), whole = stat_shape(L, x, out, VALUE_INT64);
        dataset_shape hist = hist_cell_shape(x, width);
        for (int k = 0; k < N_CELLS + cells; ++k) {
            snprintf(name, sizeof name, "%s/%s/%s", x->name, out->name,
                     k < N_CELLS ? cell_name(k) : hist_names[k - N_CELLS]);
            w->datasets[o][k] = open_checked(s, name, k < N_STATS ? &real : k < N_CELLS ? &whole : &hist, err);
            if (w->datasets[o][k] < 0)
                return -1;
        }
    }
    w->experiment = e;
    return 0;
}

/* The slab's points into their datasets (not flushed); their range joins the pending. */
static int write_slab(ar_store *s, char *err)
{
    slab_writer *w = s->writer;
    if (w->experiment < 0 || w->count == 0)
        return 0;
    const ar_experiment *x = &s->spec.experiments[w->experiment];
    const experiment_layout *L = &s->layout[w->experiment];
    if (w->n_pending == w->pending_capacity) {
        int cap = w->pending_capacity ? 2 * w->pending_capacity : 16;
        point_range *grown = realloc(w->pending, (size_t)cap * sizeof *grown);
        if (!grown)
            return fail(err, s->path, "out of memory writing experiment %s", x->name);
        w->pending = grown, w->pending_capacity = cap;
    }
    size_t cap = (size_t)w->capacity;
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hsize_t vec = (hsize_t)L->vector[o], width = 0;
        const char *hist_names[HIST_DATASETS];
        int cells = hist_datasets(L, o, hist_names, &width);
        for (int k = 0; k < N_CELLS + cells; ++k) {
            const void *values = k < N_STATS    ? (const void *)(w->stats[o] + (size_t)k * cap * vec)
                                 : k < N_CELLS ? (const void *)(w->counts[o] + (size_t)(k - N_STATS) * cap * vec)
                                               : (const void *)(w->hists[o] + (size_t)(k - N_CELLS) * cap * width);
            hid_t type = k < N_STATS ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
            if (write_points(w->datasets[o][k], type, x, w->first, w->count, k < N_CELLS ? vec : width, values) < 0)
                return fail(err, s->path, "cannot write points %ld to %ld of experiment %s (disk full?)", w->first,
                            w->first + w->count - 1, x->name);
        }
    }
    w->pending[w->n_pending++] = (point_range){w->experiment, w->first, w->count};
    w->count = 0;
    return 0;
}

int ar_store_commit(ar_store *store, char *err)
{
    slab_writer *w = store->writer;
    if (!w)
        return 0;
    if (write_slab(store, err) < 0)
        return -1;
    w->last_commit = monotonic_seconds();
    if (w->n_pending == 0)
        return 0;
    /* Data first, flushed; then the ledger entries, flushed: a kill between the two
     * leaves the points not done, to be recomputed (with the same result). */
    if (H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return fail(err, store->path, "cannot write the points to the file (disk full?)");
    long longest = 0;
    for (int i = 0; i < w->n_pending; ++i)
        longest = w->pending[i].count > longest ? w->pending[i].count : longest;
    unsigned char *ones = malloc((size_t)longest);
    if (!ones)
        return fail(err, store->path, "out of memory writing the done ledger");
    memset(ones, 1, (size_t)longest);
    int status = 0;
    char name[512];
    for (int i = 0; status == 0 && i < w->n_pending; ++i) {
        const point_range *r = &w->pending[i];
        const ar_experiment *x = &store->spec.experiments[r->experiment];
        dataset_shape done = grid_shape(x, VALUE_FLAG);
        snprintf(name, sizeof name, "%s/done", x->name);
        hid_t ds = open_checked(store, name, &done, err);
        if (ds < 0) {
            status = -1;
            break;
        }
        if (write_points(ds, H5T_NATIVE_UCHAR, x, r->first, r->count, 1, ones) < 0)
            status = fail(err, store->path, "cannot write the done ledger of experiment %s (disk full?)", x->name);
        H5Dclose(ds);
    }
    free(ones);
    if (status == 0 && H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        status = fail(err, store->path, "cannot write the done ledger (disk full?)");
    if (status == 0)
        w->n_pending = 0;
    return status;
}

static void free_writer(ar_store *s)
{
    if (!s->writer)
        return;
    close_slab_datasets(s->writer);
    free_slab_buffers(s->writer);
    free(s->writer->pending);
    free(s->writer);
    s->writer = NULL;
}

int ar_store_write_point(ar_store *store, int experiment, long point, const ar_summary *summaries,
                         long *const *histograms, char *err)
{
    if (!store->writer) {
        if (!(store->writer = calloc(1, sizeof *store->writer)))
            return fail(err, store->path, "out of memory writing point %ld", point);
        store->writer->experiment = -1;
        for (int o = 0; o < AR_MAX_OUTPUTS; ++o)
            for (int k = 0; k < N_CELLS + HIST_DATASETS; ++k)
                store->writer->datasets[o][k] = -1;
        store->writer->last_commit = monotonic_seconds();
    }
    slab_writer *w = store->writer;
    /* A point that does not continue the slab (another experiment, a gap, a full slab)
     * sends the slab to the file first. */
    if (w->experiment != experiment || point != w->first + w->count || w->count == w->capacity) {
        if (write_slab(store, err) < 0 || (w->experiment != experiment && start_slab(store, experiment, err) < 0))
            return -1;
        w->first = point;
    }
    const ar_experiment *x = &store->spec.experiments[experiment];
    const experiment_layout *L = &store->layout[experiment];
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    size_t cap = (size_t)w->capacity, slot = (size_t)w->count;
    int offset = 0;
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        int length = ar_output_length(out, &pt);
        size_t vec = (size_t)L->vector[o];
        const ar_summary *s = &summaries[offset];
        offset += length;
        /* a vector shorter than the grid's longest: its tail stays as created (NaN, 0) */
        for (size_t i = 0; i < vec; ++i) {
            int have = (int)i < length;
            const ar_summary *v = have ? &s[i] : NULL;
            const double row[N_STATS] = {have ? v->mean : NAN, have ? v->sem : NAN,   have ? v->std : NAN,
                                         have ? v->ci_lo : NAN, have ? v->ci_hi : NAN, have ? v->min : NAN,
                                         have ? v->max : NAN};
            for (int k = 0; k < N_STATS; ++k)
                w->stats[o][((size_t)k * cap + slot) * vec + i] = row[k];
            w->counts[o][slot * vec + i] = have ? v->count : 0;
            w->counts[o][(cap + slot) * vec + i] = have ? v->failed : 0;
        }
        if (out->hist_max && !L->slots[o]) {
            long long *row = w->hists[o] + slot * (size_t)L->hist[o];
            int max_value = out->hist_max(&pt);
            for (int v = 0; v < L->hist[o]; ++v)
                row[v] = histograms[o] && v <= max_value ? histograms[o][v] : 0;
        } else if (out->hist_max) { /* the values seen, ascending; at most the trials of them */
            size_t slots = (size_t)L->slots[o];
            long long *values = w->hists[o] + slot * slots, *counts = w->hists[o] + (cap + slot) * slots;
            int max_value = out->hist_max(&pt);
            size_t k = 0;
            for (int v = 0; histograms[o] && v <= max_value && k < slots; ++v)
                if (histograms[o][v] > 0)
                    values[k] = v, counts[k++] = histograms[o][v];
            for (; k < slots; ++k)
                values[k] = -1, counts[k] = 0;
        }
    }
    w->count++;
    store->done[experiment][point] = 1;
    store->checked[experiment] = 0;
    if (monotonic_seconds() - w->last_commit >= COMMIT_SECONDS)
        return ar_store_commit(store, err);
    return 0;
}

/* The values of one output at every point the ledger marks done, checked to be what
 * ar_engine_summarize_point can write: per value, 0 <= count, 0 <= failed and
 * count + failed <= trials (a marked point: count 0, failed its failed trials; an
 * output that does not apply: both 0); where count > 0, mean, min and max finite with
 * min <= mean <= max (to rounding); histogram entries >= 0 summing to at most the
 * count of the value they histogram (values outside 0..max are not counted). Points
 * not done, and a vector's unused tail, are NaN by design and not looked at. */
static int check_done_values(ar_store *store, int experiment, int output, char *err)
{
    if (store->checked[experiment] & (1u << output))
        return 0; /* checked since the last write */
    const ar_experiment *x = &store->spec.experiments[experiment];
    const ar_output *o = &x->sim->outputs[output];
    const experiment_layout *L = layout_of(store, x);
    size_t n = (size_t)x->n_points, width = (size_t)vector_width(L, x, o);
    dataset_shape real = stat_shape(L, x, o, VALUE_DOUBLE), whole = stat_shape(L, x, o, VALUE_INT64);
    const char *hist_names[HIST_DATASETS];
    hsize_t hist_width_here = 0;
    int cells = hist_datasets(L, output, hist_names, &hist_width_here);
    size_t hw = (size_t)hist_width_here;
    dataset_shape hist = hist_cell_shape(x, hist_width_here);
    /* only the done points are read (a shard's, a partial run's), compactly: the k-th
     * done point's values at k */
    point_runs runs;
    if (find_runs(store->done[experiment], (long)n, &runs) < 0)
        return fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
    size_t done = (size_t)runs.marked;
    double *mean = malloc(done * width * sizeof *mean + 1), *lo = malloc(done * width * sizeof *lo + 1),
           *hi = malloc(done * width * sizeof *hi + 1);
    long long *count = malloc(done * width * sizeof *count + 1), *failed = malloc(done * width * sizeof *failed + 1);
    long long *h[HIST_DATASETS] = {NULL, NULL};
    int have = mean && lo && hi && count && failed;
    for (int c = 0; c < cells; ++c)
        have = have && (h[c] = malloc(done * hw * sizeof(long long) + 1));
    char name[5 + HIST_DATASETS][512];
    const char *stats[5] = {"mean", "min", "max", "count", "failed"};
    for (int k = 0; k < 5 + cells; ++k)
        snprintf(name[k], sizeof name[k], "%s/%s/%s", x->name, o->name, k < 5 ? stats[k] : hist_names[k - 5]);
    int status = have ? 0 : fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
    if (status == 0 && (transfer_runs(store, name[0], &real, x, &runs, width, mean, 0, err) < 0 ||
                        transfer_runs(store, name[1], &real, x, &runs, width, lo, 0, err) < 0 ||
                        transfer_runs(store, name[2], &real, x, &runs, width, hi, 0, err) < 0 ||
                        transfer_runs(store, name[3], &whole, x, &runs, width, count, 0, err) < 0 ||
                        transfer_runs(store, name[4], &whole, x, &runs, width, failed, 0, err) < 0))
        status = -1;
    for (int c = 0; status == 0 && c < cells; ++c)
        status = transfer_runs(store, name[5 + c], &hist, x, &runs, hw, h[c], 0, err);
    long long trials = x->trials;
    for (size_t p = 0, next_row = 0; status == 0 && p < n; ++p) {
        if (!store->done[experiment][p])
            continue;
        size_t row = next_row++; /* where its values are in the compact arrays */
        int length = 1;
        if (o->length) {
            ar_point pt;
            ar_experiment_point(x, (long)p, &pt);
            length = ar_output_length(o, &pt);
        }
        char where[64] = "";
        for (int i = 0; status == 0 && i < length; ++i) {
            size_t at = row * width + (size_t)i;
            if (o->length)
                snprintf(where, sizeof where, " element %d", i);
            long long c = count[at], f = failed[at];
            double m = mean[at], a = lo[at], b = hi[at];
            double slack = 1e-12 * fmax(fabs(a), fabs(b));
            if (c < 0 || c > trials)
                status = fail(err, store->path, "damaged: dataset /%s holds %lld at point %zu%s, not 0 to %lld (the "
                              "trials)", name[3], c, p, where, trials);
            else if (f < 0 || f > trials - c)
                status = fail(err, store->path, "damaged: dataset /%s holds %lld at point %zu%s, not 0 to %lld (the "
                              "trials less the count %lld)", name[4], f, p, where, trials - c, c);
            else if (c > 0 && (!isfinite(a) || !isfinite(b) || a > b))
                status = fail(err, store->path, "damaged: datasets /%s and /%s hold %g and %g at point %zu%s, not a "
                              "finite min <= max of %lld values", name[1], name[2], a, b, p, where, c);
            else if (c > 0 && !(isfinite(m) && m >= a - slack && m <= b + slack))
                status = fail(err, store->path, "damaged: dataset /%s holds %g at point %zu%s, not a finite mean "
                              "within [min, max] = [%g, %g]", name[0], m, p, where, a, b);
        }
        if (status != 0 || cells == 0 || length == 0)
            continue;
        long long sum = 0, c = count[row * width + (size_t)length - 1];
        if (cells == 1) {
            for (size_t v = 0; status == 0 && v < hw; ++v) {
                long long e = h[0][row * hw + v];
                if (e < 0 || e > c - sum)
                    status = fail(err, store->path, "damaged: dataset /%s holds %lld for value %zu at point %zu, "
                                  "not a count within the point's %lld values", name[5], e, v, p, c);
                else
                    sum += e;
            }
            continue;
        }
        /* sparse: the values seen, ascending within 0 .. W-1, each with at least one trial;
         * past the last, value -1 and count 0 */
        long long previous = -1, values = (long long)hist_width(L, x, o);
        int ended = 0;
        for (size_t k = 0; status == 0 && k < hw; ++k) {
            long long v = h[0][row * hw + k], e = h[1][row * hw + k];
            ended |= v == -1;
            if (ended ? v != -1 || e != 0 : v <= previous || v >= values || e < 1 || e > c - sum)
                status = fail(err, store->path, "damaged: datasets /%s and /%s hold value %lld, count %lld in slot "
                              "%zu at point %zu, not the values seen (ascending, below %lld, -1 past the last) and "
                              "their counts within the point's %lld", name[5], name[6], v, e, k, p, values, c);
            else if (!ended)
                sum += e, previous = v;
        }
    }
    free(mean), free(lo), free(hi), free(count), free(failed), free(h[0]), free(h[1]);
    free_runs(&runs);
    if (status == 0)
        store->checked[experiment] |= 1u << output;
    return status;
}

int ar_store_read_summaries(ar_store *store, int experiment, int output, int element, ar_summary *out,
                            char *err)
{
    if (ar_store_commit(store, err) < 0 || check_done_values(store, experiment, output, err) < 0)
        return -1;
    const ar_experiment *x = &store->spec.experiments[experiment];
    const ar_output *o = &x->sim->outputs[output];
    const experiment_layout *L = layout_of(store, x);
    size_t n = (size_t)x->n_points, width = (size_t)vector_width(L, x, o);
    double *buf = malloc(n * width * sizeof *buf + 1);
    long long *counts = malloc(n * width * sizeof *counts + 1);
    size_t *cell = malloc(n * sizeof *cell + 1); /* where each point's chosen value lies */
    if (!buf || !counts || !cell) {
        free(buf), free(counts), free(cell);
        return fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
    }
    for (size_t p = 0; p < n; ++p) {
        /* The chosen value of this point's vector; negative counts from its end. */
        int i = 0;
        if (o->length) {
            ar_point pt;
            ar_experiment_point(x, (long)p, &pt);
            int length = ar_output_length(o, &pt);
            i = element < 0 ? length + element : element;
            if (i < 0 || i >= length)
                i = length - 1;
        }
        cell[p] = p * width + (size_t)i;
    }
    dataset_shape real = stat_shape(L, x, o, VALUE_DOUBLE), whole = stat_shape(L, x, o, VALUE_INT64);
    char name[512];
    int status = 0;
    for (int k = 0; k < N_STATS + 2 && status == 0; ++k) {
        const char *stat = k < N_STATS ? STAT_NAMES[k] : k == N_STATS ? "count" : "failed";
        snprintf(name, sizeof name, "%s/%s/%s", x->name, o->name, stat);
        status = k < N_STATS ? read_checked(store, name, &real, H5T_NATIVE_DOUBLE, buf, err)
                             : read_checked(store, name, &whole, H5T_NATIVE_LLONG, counts, err);
        for (size_t p = 0; status == 0 && p < n; ++p) {
            size_t at = cell[p];
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
    free(buf), free(counts), free(cell);
    return status;
}

int ar_store_read_theory(ar_store *store, int experiment, const ar_claim *claim, double *out, char *err)
{
    const ar_experiment *x = &store->spec.experiments[experiment];
    char name[512];
    snprintf(name, sizeof name, "%s/theory/%s", x->name, claim->id);
    dataset_shape grid = grid_shape(x, VALUE_DOUBLE);
    return read_checked(store, name, &grid, H5T_NATIVE_DOUBLE, out, err);
}

int ar_store_write_verdicts(ar_store *store, const ar_verdict_row *rows, int n_rows, char *err)
{
    if (ar_store_commit(store, err) < 0)
        return -1;
    if (n_rows != ar_store_verdict_count(&store->spec))
        return fail(err, store->path, "cannot write the verdicts table (%d rows for %d)", n_rows,
                    ar_store_verdict_count(&store->spec));
    verdict_record *records = calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof *records);
    if (!records)
        return fail(err, store->path, "out of memory writing the verdicts table");
    for (int r = 0; r < n_rows; ++r)
        to_record(&rows[r], &records[r]);
    dataset_shape shape = line_shape((hsize_t)n_rows, VALUE_VERDICT, 0);
    hid_t ds = open_checked(store, "verdicts", &shape, err), type = ds < 0 ? -1 : verdict_type();
    herr_t st = type < 0 ? -1 : H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, records);
    if (type >= 0)
        H5Tclose(type);
    free(records);
    if (ds < 0)
        return -1;
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
    dataset_shape shape = line_shape((hsize_t)*n_rows, VALUE_VERDICT, 0);
    int st = !*rows || !records || type < 0 ? fail(err, store->path, "out of memory reading the verdicts table")
                                             : read_checked(store, "verdicts", &shape, type, records, err);
    if (type >= 0)
        H5Tclose(type);
    for (int r = 0; st == 0 && r < *n_rows; ++r)
        if (from_record(&records[r], &(*rows)[r]) < 0)
            st = fail(err, store->path, "damaged: row %d of /verdicts names a verdict, rule or note this "
                      "attnrank does not know", r);
    free(records);
    if (st < 0) {
        free(*rows);
        *rows = NULL;
        return -1;
    }
    return 0;
}

char *ar_store_attribute(ar_store *store, const char *name)
{
    char *text = NULL;
    int st = read_attr_string(store->file, name, &text);
    if (st == ATTR_OK || st == ATTR_NO_MEMORY)
        return text;
    /* a number (the seed) as its decimal text */
    unsigned long long value;
    int is_unsigned = 0;
    if (read_attr_integer(store->file, name, H5T_NATIVE_ULLONG, &value, &is_unsigned) == ATTR_OK) {
        if (is_unsigned || read_attr_integer(store->file, name, H5T_NATIVE_LLONG, &value, NULL) != ATTR_OK)
            return asprintf(&text, "%llu", value) < 0 ? NULL : text;
        return asprintf(&text, "%lld", (long long)value) < 0 ? NULL : text;
    }
    return strdup("");
}

int ar_store_check_streams(ar_store *store, const char *path, const char *what, char *err)
{
    char *rng = ar_store_attribute(store, "rng");
    if (!rng) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", path);
        return -1;
    }
    int same = strcmp(rng, AR_RNG_STREAMS) == 0;
    if (!same)
        snprintf(err, AR_ERR_LEN,
                 "%s: its points were drawn from other random streams (rng attribute \"%.40s%s\", not this "
                 "attnrank's \"%.24s...\"); %s would mix them: rerun it with this attnrank", path, rng,
                 strlen(rng) > 40 ? "..." : "", AR_RNG_STREAMS, what);
    free(rng);
    return same ? 0 : -1;
}

/* The attributes that say how a file's floating-point results were computed. */
static const char *const COMPUTED_BY[] = {"openblas_core", "openblas_core_origin", "kernels"};
enum { N_COMPUTED_BY = sizeof COMPUTED_BY / sizeof *COMPUTED_BY };

static const char *computed_by_now(int k, char kernels[KERNELS_TEXT])
{
    kernels_text(kernels);
    return k == 0 ? ar_blas_corename() : k == 1 ? ar_blas_core_origin() : kernels;
}

int ar_store_join_provenance(ar_store *dst, ar_store *const *srcs, const char *const *labels, int n, char *err)
{
    for (int k = 0; k < N_COMPUTED_BY; ++k) {
        char *first = ar_store_attribute(srcs[0], COMPUTED_BY[k]), *joined = NULL;
        int same = first != NULL;
        for (int i = 1; same && i < n; ++i) {
            char *v = ar_store_attribute(srcs[i], COMPUTED_BY[k]);
            same = v && strcmp(v, first) == 0;
            free(v);
        }
        size_t size = 0;
        FILE *out = same ? NULL : open_memstream(&joined, &size);
        for (int i = 0; out && i < n; ++i) {
            char *v = ar_store_attribute(srcs[i], COMPUTED_BY[k]);
            fprintf(out, "%s%s: %s", i ? "; " : "mixed: ", labels[i], v ? v : "?");
            free(v);
        }
        if (out)
            fclose(out);
        int st = first && (same || joined) ? ar_store_set_attribute(dst, COMPUTED_BY[k], same ? first : joined, err)
                                           : fail(err, dst->path, "out of memory");
        free(first);
        free(joined);
        if (st < 0)
            return -1;
    }
    return 0;
}

int ar_store_note_resumed_provenance(ar_store *store, char *err)
{
    for (int k = 0; k < N_COMPUTED_BY; ++k) {
        char kernels[KERNELS_TEXT], *stored = ar_store_attribute(store, COMPUTED_BY[k]), *text = NULL;
        const char *now = computed_by_now(k, kernels);
        int st = 0;
        if (!stored)
            st = fail(err, store->path, "out of memory");
        else if (strcmp(stored, now) != 0 && strstr(stored, now) == NULL)
            st = asprintf(&text, "%s; resumed with %s", stored, now) < 0
                     ? fail(err, store->path, "out of memory")
                     : ar_store_set_attribute(store, COMPUTED_BY[k], text, err);
        free(stored);
        free(text);
        if (st < 0)
            return -1;
    }
    return 0;
}

int ar_shard_parse(const char *text, int *index, int *count)
{
    long long parts[2] = {0, 0};
    const char *c = text;
    for (int k = 0; k < 2; ++k) {
        if (*c < '0' || *c > '9')
            return -1;
        for (; *c >= '0' && *c <= '9'; ++c)
            if ((parts[k] = parts[k] * 10 + (*c - '0')) > INT_MAX)
                return -1;
        if (*c++ != (k ? '\0' : '/'))
            return -1;
    }
    if (parts[0] >= parts[1])
        return -1;
    *index = (int)parts[0];
    *count = (int)parts[1];
    return 0;
}

int ar_store_shard(ar_store *store, int *index, int *count, char *err)
{
    *index = 0, *count = 1;
    char *text = NULL;
    int st = read_attr_string(store->file, "shard", &text);
    if (st == ATTR_ABSENT)
        return 0;
    if (st == ATTR_NO_MEMORY)
        return fail(err, store->path, "out of memory reading its shard attribute");
    if (st == ATTR_OK && ar_shard_parse(text, index, count) == 0 && *count >= 2) {
        free(text);
        return 0;
    }
    fail(err, store->path, "damaged: its shard attribute is %s%.40s%s, not I/N with 0 <= I < N and N >= 2",
         text ? "'" : "not text", text ? text : "", text ? "'" : "");
    free(text);
    return -1;
}

int ar_store_set_attribute(ar_store *store, const char *name, const char *value, char *err)
{
    if (H5Aexists(store->file, name) > 0)
        H5Adelete(store->file, name);
    if (attr_string(store->file, name, value) < 0 || H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return fail(err, store->path, "cannot write attribute %s", name);
    return 0;
}

/* Copy, into dst's dataset `name`, the values of the points in `runs` (src has done
 * them, its shard owns them, dst has not); both checked to be of `want`. A shard's
 * points come in runs of consecutive points (its blocks): one read of just them from src
 * and one write into dst. */
static int copy_dataset(ar_store *dst, ar_store *src, const char *name, const dataset_shape *want,
                        const point_runs *runs, const ar_experiment *x, char *err)
{
    if (runs->marked == 0)
        return 0;
    size_t slice = (size_t)shape_count(want) / (size_t)x->n_points, size = H5Tget_size(memory_type(want->kind));
    char *buf = malloc((size_t)runs->marked * slice * size + 1);
    int status = buf ? 0 : fail(err, dst->path, "out of memory copying /%s", name);
    if (status == 0 && (transfer_runs(src, name, want, x, runs, slice, buf, 0, err) < 0 ||
                        transfer_runs(dst, name, want, x, runs, slice, buf, 1, err) < 0))
        status = -1;
    free(buf);
    return status;
}

int ar_store_copy_points(ar_store *dst, ar_store *src, long *copied, char *err)
{
    const ar_spec *spec = &dst->spec;
    *copied = 0;
    char name[512];
    if (ar_store_commit(dst, err) < 0)
        return -1;
    /* Only the points src's shard owns (spec.h's ar_shard_owner, as the run), each
     * checked first: a shard's ledger or values are never taken on trust. */
    int shard, shards;
    if (ar_store_shard(src, &shard, &shards, err) < 0)
        return -1;
    long first = 0, points = ar_spec_points(spec);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        int ok = 1;
        unsigned char *take = calloc((size_t)x->n_points + 1, 1);
        if (!take)
            return fail(err, dst->path, "out of memory copying experiment %s", x->name);
        for (long p = 0; p < x->n_points; ++p)
            take[p] = src->done[e][p] && !dst->done[e][p] &&
                      (shards <= 1 || ar_shard_owner(first + p, points, shards) == shard);
        first += x->n_points;
        point_runs runs;
        if (find_runs(take, x->n_points, &runs) < 0) {
            free(take);
            return fail(err, dst->path, "out of memory copying experiment %s", x->name);
        }
        for (int o = 0; ok && o < x->sim->n_outputs; ++o)
            ok = check_done_values(src, e, o, err) == 0;
        const experiment_layout *L = layout_of(dst, x);
        dst->checked[e] = 0;
        for (int o = 0; ok && o < x->sim->n_outputs; ++o) {
            const ar_output *out = &x->sim->outputs[o];
            dataset_shape real = stat_shape(L, x, out, VALUE_DOUBLE), whole = stat_shape(L, x, out, VALUE_INT64);
            const char *hist_names[HIST_DATASETS];
            hsize_t width = 0;
            int cells = hist_datasets(L, o, hist_names, &width);
            dataset_shape hist = hist_cell_shape(x, width);
            for (int k = 0; ok && k < N_CELLS + cells; ++k) {
                snprintf(name, sizeof name, "%s/%s/%s", x->name, out->name,
                         k < N_CELLS ? cell_name(k) : hist_names[k - N_CELLS]);
                ok = copy_dataset(dst, src, name, k < N_STATS ? &real : k < N_CELLS ? &whole : &hist, &runs, x,
                                  err) == 0;
            }
        }
        /* data first, flushed; then the ledger, as a run writes them */
        if (ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) < 0)
            ok = fail(err, dst->path, "cannot copy experiment %s from %s (disk full?)", x->name, src->path) == 0;
        long newly = 0;
        for (long p = 0; p < x->n_points; ++p)
            newly += take[p] && !dst->done[e][p];
        dataset_shape done = grid_shape(x, VALUE_FLAG);
        snprintf(name, sizeof name, "%s/done", x->name);
        ok = ok && copy_dataset(dst, src, name, &done, &runs, x, err) == 0;
        if (ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) < 0)
            ok = fail(err, dst->path, "cannot copy experiment %s from %s (disk full?)", x->name, src->path) == 0;
        if (ok)
            for (long p = 0; p < x->n_points; ++p)
                dst->done[e][p] |= take[p];
        free(take);
        free_runs(&runs);
        if (!ok)
            return -1;
        *copied += newly;
    }
    return 0;
}

int ar_store_reserved_name(const char *name)
{
    return strcmp(name, "verdicts") == 0;
}

int ar_store_close(ar_store *store)
{
    if (!store)
        return 0;
    char err[AR_ERR_LEN];
    int committed = ar_store_commit(store, err); /* the points still in the slab */
    free_writer(store);
    herr_t st = store->file >= 0 ? H5Fclose(store->file) : 0;
    free(store->layout);
    free(store->checked);
    for (int e = 0; store->done && e < store->spec.n_experiments; ++e)
        free(store->done[e]);
    free(store->done);
    ar_spec_free(&store->spec);
    free(store->path);
    free(store);
    return st < 0 || committed < 0 ? -1 : 0;
}
