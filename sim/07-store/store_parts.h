/* store_parts: what the store's files share and nothing outside the store needs. The
 * store is one module (store.h) in files along its seams, each using only those
 * before it here: store_hdf5.c the checked access to HDF5 (every dataset opened only as
 * what the stored spec says it is), over store_record.c, a /verdicts row as HDF5 holds
 * it; store_layout.c the layout (widths, shapes, creating and checking every dataset);
 * store_points.c the points and the done ledger read (the values at done points
 * checked); store_writer.c the points written (slabs, commits); store_verdicts.c the
 * /verdicts table; store_provenance.c the root
 * attributes that say how a file was made; store.c opens, creates and closes a file;
 * store_merge.c the copies a merge makes; store_attacks.c an attack's file. */
#ifndef ATTNRANK_STORE_PARTS_H
#define ATTNRANK_STORE_PARTS_H

#include "attnrank/store.h"
#include "attnrank/registry.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <stddef.h>

/* 2: /verdicts gained resolution, note and rule_kind; limits are judged on an
 * extrapolated constant. 3: histograms of fewer trials than values are sparse
 * (hist_value, hist_count); integer outputs' intervals never have zero width. */
enum { FORMAT_VERSION = 3 };

/* A value's statistics as datasets, in this order (STORE_CELLS); per output they,
 * count and failed are its N_CELLS datasets beside its histogram's. */
enum { N_STATS = 7, N_CELLS = N_STATS + 2, HIST_DATASETS = 2 };
enum { STAT_MEAN, STAT_SE, STAT_STD, STAT_LO, STAT_HI, STAT_MIN, STAT_MAX };

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
    unsigned char **done;       /* per experiment, per point */
    experiment_layout *layout;  /* per experiment */
    unsigned *checked;          /* per experiment, a bit per output: its done values checked */
    struct slab_writer *writer; /* a writable store's buffered point writes (store_writer.c) */
    long uncommitted;           /* points written (marked done) since the last commit: a read
                                   is refused until the writer commits them */
};

/* What a dataset must be: every read and write opens it through store_open_checked, which
 * compares its type and every dimension with this, so no H5Dread or H5Dwrite is ever
 * sized by what a file claims. */
typedef enum { VALUE_DOUBLE, VALUE_INT64, VALUE_FLAG, VALUE_TEXT, VALUE_VERDICT } value_kind;

typedef struct {
    value_kind kind;
    size_t text_size; /* VALUE_TEXT: the fixed length of its strings */
    int rank;         /* 0: a scalar */
    hsize_t dims[AR_MAX_PARAMS + 2];
} dataset_shape;

/* An output's N_CELLS datasets, declared once (store_layout.c): creating, checking,
 * writing, reading back and merging a file all walk this table, in this order. Each has
 * the output's shape (store_stat_shape) in its kind; a VALUE_DOUBLE cell holds NaN
 * until its point is done, a VALUE_INT64 one 0. The first N_STATS are ar_summarize's
 * statistics (STAT_MEAN ... STAT_MAX), then count and failed. */
typedef struct {
    const char *name;
    value_kind kind;
    const char *description;
} store_cell;
extern const store_cell STORE_CELLS[N_CELLS];

/* The points marked in a flag array (done, or to copy), as runs of consecutive points:
 * a dataset's values at those points are read or written with one call selecting the
 * runs, into or from a buffer that holds just them, in point order. */
typedef struct {
    long *first, *count;
    long runs, points, marked; /* runs; the grid's points; the points marked */
} point_runs;

/* Reading one back: an attribute is one value (a scalar) of the class asked for, or it
 * is refused; never read into a buffer sized by what the file claims. */
enum { ATTR_OK = 0, ATTR_ABSENT = -1, ATTR_WRONG = -2, ATTR_NO_MEMORY = -3 };

/* ---- checked HDF5 access (store_hdf5.c) ------------------------------------------- */
/* err = "PATH: message", one line whatever the message holds; returns -1. */
int store_fail(char *err, const char *path, const char *fmt, ...);
/* An existing file opened (access: AR_STORE_READ from a private copy, AR_STORE_WRITE,
 * AR_STORE_READ_IN_PLACE), if it is a regular file holding only hard links and datasets
 * whose data are inside it; else -1 with err set. */
hid_t store_open_file(const char *path, int access, int check_structure, char *err);
/* The descriptor HDF5 reads an open file through (its own), or -1. */
int store_file_descriptor(hid_t file);

int store_attr_string(hid_t obj, const char *name, const char *value);
int store_attr_number(hid_t obj, const char *name, hid_t type, const void *value);
int store_read_attr_string(hid_t obj, const char *name, char **out);
int store_read_attr_integer(hid_t obj, const char *name, hid_t mem, void *out, int *is_unsigned);
int store_read_attr_real(hid_t obj, const char *name, double *out);
void store_axis_dims(const ar_experiment *x, hsize_t *dims);
hid_t store_memory_type(value_kind kind);
hsize_t store_shape_count(const dataset_shape *shape);
dataset_shape store_grid_shape(const ar_experiment *x, value_kind kind);
dataset_shape store_line_shape(hsize_t length, value_kind kind, size_t text_size);
hid_t store_open_checked(const ar_store *s, const char *name, const dataset_shape *want, char *err);
int store_read_checked(const ar_store *s, const char *name, const dataset_shape *want, hid_t mem, void *out,
                       char *err);
int store_check_one(const ar_store *s, hid_t loc, const char *group, const dataset_shape *want, const char *name,
                    char *err);
hid_t store_open_group(const ar_store *s, hid_t loc, const char *group, const char *name, char *err);

/* ---- the layout (store_layout.c) ---------------------------------------------------- */
const experiment_layout *store_layout_of(const ar_store *s, const ar_experiment *x);
int store_load_layout(ar_store *s, char *err);
hid_t store_make_dataset(hid_t parent, const char *name, hid_t type, int rank, const hsize_t *dims,
                         const void *fill, const char *description, int holes);
/* The datasets of output o's histogram and their last dimension: "hist", the trials at
 * each value 0 .. W-1 (dense); or, with fewer trials T than values, "hist_value" and
 * "hist_count", T slots a point holding the values seen in ascending order and their
 * trials, value -1 and count 0 past the last (sparse). Returns how many (0: none). */
int store_hist_datasets(const experiment_layout *L, int o, const char **names, hsize_t *width);
int store_hist_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o);
int store_vector_width(const experiment_layout *layout, const ar_experiment *x, const ar_output *o);
dataset_shape store_stat_shape(const experiment_layout *layout, const ar_experiment *x, const ar_output *o,
                               value_kind kind);
dataset_shape store_hist_cell_shape(const ar_experiment *x, hsize_t width);
int store_check_layout(const ar_store *s, char *err);
int store_create_experiment(hid_t file, const ar_experiment *x, int holes);

/* ---- a /verdicts row (store_record.c) ----------------------------------------------- */
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
hid_t store_verdict_type(void);
/* Whether two rows differ in a field (both NaN count as equal); if so and what is not
 * NULL, what = "field F: stored V, re-judged W" for the first such field. */
int store_record_difference(const verdict_record *stored, const verdict_record *now, char *what, size_t what_len);

/* ---- /verdicts (store_verdicts.c) --------------------------------------------------- */
/* The table of a new file: every row pending (NOT RUN). */
int store_create_verdicts(hid_t file, const ar_spec *spec);

/* ---- points and the ledger, read (store_points.c) ------------------------------------ */
int store_load_done(ar_store *s, char *err);
/* The file space of dataset ds (its first dimensions x's axes) with points first ..
 * first + count - 1 selected; < 0 if HDF5 fails. */
hid_t store_select_points(hid_t ds, const ar_experiment *x, long first, long count);
int store_find_runs(const unsigned char *marks, long n_points, point_runs *r);
void store_free_runs(point_runs *r);
int store_transfer_runs(ar_store *s, const char *name, const dataset_shape *want, const ar_experiment *x,
                        const point_runs *r, size_t per_point, void *buf, int writing, char *err);
int store_check_done_values(ar_store *store, int experiment, int output, char *err);
/* The checks a summary's numbers get wherever they are read back (a result file's done
 * points, an attack file's confirmations). Whether count c and failed f (each within
 * [0, trials]) are what summarising `trials` trials writes, for an output that applies
 * at the point or not: */
int store_counts_possible(long long c, long long f, long long trials, int applies);
/* 0 when st (STORE_CELLS' order) are the statistics ar_summarize (spacing > 0:
 * ar_summarize_lattice) writes for c values; else 1, with *field the first that is not
 * (STAT_LO: ci_lo and ci_hi together; STAT_MIN: min and max) and why ("not
 * std/sqrt(count) = ..."), to follow the field's name and value in a message. */
int store_statistics_wrong(const double st[N_STATS], long long c, double spacing, int *field, char *why, size_t len);
/* 0 when the min and max of st (c > 0 values of output o at point p) lie in the range
 * o declares there (ar_output_range), whole for an integer output; else 1, with *field
 * STAT_MIN and why as above. The mean follows: store_statistics_wrong keeps it within
 * [min, max]. */
int store_range_wrong(const double st[N_STATS], long long c, const ar_output *o, const ar_point *p, int *field,
                      char *why, size_t len);

/* ---- points written (store_writer.c) ---------------------------------------------- */
void store_free_writer(ar_store *s);

/* ---- provenance (store_provenance.c) ------------------------------------------------ */
/* A new HDF5 file at path (which must not exist), without object times; < 0 if not. */
hid_t store_create_file(const char *path, char *err);
int store_write_provenance(hid_t file, const ar_spec *spec, const char *command_line, const ar_provenance *how);

#endif
