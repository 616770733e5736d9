/* store_writer: a writable store's points, buffered in slabs and committed about once
 * a second (data flushed, then the ledger, flushed). The one writer of points; the
 * readers (store_points.c) read only what it has committed. */
#define _GNU_SOURCE
#include "store_parts.h"

#include "attnrank/test_hooks.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- buffered point writes --------------------------------------------------------
 * Points arrive one at a time but are written in slabs: consecutive points of one
 * experiment gathered in memory, then one H5Dwrite per dataset. About once a second
 * the slabs written are committed: the file is flushed, their points' entries in the
 * done ledger are written, and the file is flushed again. A kill thus loses at most the
 * last second's points, and the ledger names only points whose data reached the file
 * before it: a resume recomputes the rest, with the same bits. The layout is allocated
 * when the file is made (contiguous, row-major over the axes), so these writes touch raw
 * data only and a slab of consecutive points is one contiguous stretch of each dataset. */

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
    long commits; /* commits with points so far (the test build's ATTNRANK_TEST_KILL_AT_COMMIT) */
} slab_writer;

static double monotonic_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* values (count points' worth, in point order) into the open dataset ds. */
static int write_points(hid_t ds, hid_t type, const ar_experiment *x, long first, long count, hsize_t per_point,
                        const void *values)
{
    hid_t file_space = store_select_points(ds, x, first, count);
    hsize_t n = (hsize_t)count * per_point;
    hid_t mem = H5Screate_simple(1, &n, NULL);
    herr_t st = file_space < 0 || mem < 0 ? -1 : H5Dwrite(ds, type, mem, file_space, H5P_DEFAULT, values);
    if (mem >= 0)
        H5Sclose(mem);
    if (file_space >= 0)
        H5Sclose(file_space);
    return st < 0 ? -1 : 0;
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
    double fit = ar_size.slab_bytes / (per_point > 0 ? per_point : 1);
    w->capacity = fit < 1 ? 1 : fit > ar_size.slab_points ? ar_size.slab_points : (long)fit;
    w->count = 0;
    char name[512];
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        size_t cap = (size_t)w->capacity, vec = (size_t)L->vector[o];
        const char *hist_names[HIST_DATASETS];
        hsize_t width = 0;
        int cells = store_hist_datasets(L, o, hist_names, &width);
        w->stats[o] = malloc(N_STATS * cap * vec * sizeof(double));
        w->counts[o] = malloc(2 * cap * vec * sizeof(long long));
        w->hists[o] = malloc((size_t)cells * cap * width * sizeof(long long) + 1);
        if (!w->stats[o] || !w->counts[o] || !w->hists[o])
            return store_fail(err, s->path, "out of memory for the points of experiment %s", x->name);
        for (int k = 0; k < N_CELLS + cells; ++k) {
            dataset_shape want = k < N_CELLS ? store_stat_shape(L, x, out, STORE_CELLS[k].kind)
                                             : store_hist_cell_shape(x, width);
            snprintf(name, sizeof name, "%s/%s/%s", x->name, out->name,
                     k < N_CELLS ? STORE_CELLS[k].name : hist_names[k - N_CELLS]);
            w->datasets[o][k] = store_open_checked(s, name, &want, err);
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
            return store_fail(err, s->path, "out of memory writing experiment %s", x->name);
        w->pending = grown, w->pending_capacity = cap;
    }
    size_t cap = (size_t)w->capacity;
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hsize_t vec = (hsize_t)L->vector[o], width = 0;
        const char *hist_names[HIST_DATASETS];
        int cells = store_hist_datasets(L, o, hist_names, &width);
        for (int k = 0; k < N_CELLS + cells; ++k) {
            const void *values = k < N_STATS    ? (const void *)(w->stats[o] + (size_t)k * cap * vec)
                                 : k < N_CELLS ? (const void *)(w->counts[o] + (size_t)(k - N_STATS) * cap * vec)
                                               : (const void *)(w->hists[o] + (size_t)(k - N_CELLS) * cap * width);
            hid_t type = k < N_STATS ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LLONG;
            if (write_points(w->datasets[o][k], type, x, w->first, w->count, k < N_CELLS ? vec : width, values) < 0)
                return store_fail(err, s->path, "cannot write points %ld to %ld of experiment %s (disk full?)", w->first,
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
    if (w->n_pending == 0) {
        store->uncommitted = 0;
        return 0;
    }
    /* Data first, flushed; then the ledger entries, flushed: a kill between the two
     * leaves the points not done, to be recomputed (with the same result). */
    if (H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return store_fail(err, store->path, "cannot write the points to the file (disk full?)");
    const char *kill_at = ar_test_hook(AR_HOOK_KILL_AT_COMMIT); /* the test build's kill between the two */
    if (++w->commits == (kill_at ? atol(kill_at) : 0))
        raise(SIGKILL);
    long longest = 0;
    for (int i = 0; i < w->n_pending; ++i)
        longest = w->pending[i].count > longest ? w->pending[i].count : longest;
    unsigned char *ones = malloc((size_t)longest);
    if (!ones)
        return store_fail(err, store->path, "out of memory writing the done ledger");
    memset(ones, 1, (size_t)longest);
    int status = 0;
    char name[512];
    for (int i = 0; status == 0 && i < w->n_pending; ++i) {
        const point_range *r = &w->pending[i];
        const ar_experiment *x = &store->spec.experiments[r->experiment];
        dataset_shape done = store_grid_shape(x, VALUE_FLAG);
        snprintf(name, sizeof name, "%s/done", x->name);
        hid_t ds = store_open_checked(store, name, &done, err);
        if (ds < 0) {
            status = -1;
            break;
        }
        if (write_points(ds, H5T_NATIVE_UCHAR, x, r->first, r->count, 1, ones) < 0)
            status = store_fail(err, store->path, "cannot write the done ledger of experiment %s (disk full?)", x->name);
        H5Dclose(ds);
    }
    free(ones);
    if (status == 0 && H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        status = store_fail(err, store->path, "cannot write the done ledger (disk full?)");
    if (status == 0)
        w->n_pending = 0, store->uncommitted = 0;
    return status;
}

void store_free_writer(ar_store *s)
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
            return store_fail(err, store->path, "out of memory writing point %ld", point);
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
    store->uncommitted++;
    if (monotonic_seconds() - w->last_commit >= ar_size.commit_seconds)
        return ar_store_commit(store, err);
    return 0;
}
