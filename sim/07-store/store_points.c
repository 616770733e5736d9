/* store_points: the points of a file and the done ledger, read: the ledger loaded, a
 * set of points selected in a dataset (for reads, merge's copies and the writer's
 * slabs, store_writer.c), the values at done points read back and checked, the
 * summaries and predictions the verdicts read. A read writes nothing: points are
 * written by store_writer.c, and by store_transfer_runs only for merge's copies. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_load_done(ar_store *s, char *err)
{
    s->done = calloc((size_t)s->spec.n_experiments + 1, sizeof *s->done);
    if (!s->done)
        return store_fail(err, s->path, "out of memory reading the done ledger");
    for (int e = 0; e < s->spec.n_experiments; ++e) {
        const ar_experiment *x = &s->spec.experiments[e];
        s->done[e] = calloc((size_t)x->n_points + 1, 1);
        if (!s->done[e])
            return store_fail(err, s->path, "out of memory reading the done ledger");
        char name[512];
        snprintf(name, sizeof name, "%s/done", x->name);
        dataset_shape shape = store_grid_shape(x, VALUE_FLAG);
        if (store_read_checked(s, name, &shape, H5T_NATIVE_UCHAR, s->done[e], err) < 0)
            return -1;
        for (long p = 0; p < x->n_points; ++p) /* a point is done (1) or not (0): nothing else */
            if (s->done[e][p] > 1)
                return store_fail(err, s->path, "damaged: dataset /%s holds %u at point %ld, not 0 (not done) or 1 (done)",
                            name, (unsigned)s->done[e][p], p);
    }
    return 0;
}
const ar_spec *ar_store_spec(const ar_store *store) { return &store->spec; }

int ar_store_done(const ar_store *store, int experiment, long point)
{
    return store->done[experiment][point];
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
hid_t store_select_points(hid_t ds, const ar_experiment *x, long first, long count)
{
    hid_t space = H5Dget_space(ds);
    if (space >= 0 && add_points(space, x, first, count, H5S_SELECT_SET) < 0) {
        H5Sclose(space);
        return -1;
    }
    return space;
}

int store_find_runs(const unsigned char *marks, long n_points, point_runs *r)
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

void store_free_runs(point_runs *r)
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
int store_transfer_runs(ar_store *s, const char *name, const dataset_shape *want, const ar_experiment *x,
                         const point_runs *r, size_t per_point, void *buf, int writing, char *err)
{
    if (r->marked == 0)
        return 0;
    hid_t ds = store_open_checked(s, name, want, err);
    if (ds < 0)
        return -1;
    hid_t file_space = select_runs(ds, x, r);
    hsize_t values = (hsize_t)r->marked * per_point;
    hid_t mem = H5Screate_simple(1, &values, NULL);
    herr_t st = -1;
    if (file_space >= 0 && mem >= 0)
        st = writing ? H5Dwrite(ds, store_memory_type(want->kind), mem, file_space, H5P_DEFAULT, buf)
                     : H5Dread(ds, store_memory_type(want->kind), mem, file_space, H5P_DEFAULT, buf);
    if (mem >= 0)
        H5Sclose(mem);
    if (file_space >= 0)
        H5Sclose(file_space);
    H5Dclose(ds);
    if (st < 0)
        return store_fail(err, s->path, writing ? "cannot write /%s (disk full?)" : "cannot read /%s", name);
    return 0;
}

/* The values of one output at every point the ledger marks done, checked to be what
 * ar_trials_summarize_point can write: per value, 0 <= count, 0 <= failed and
 * count + failed <= trials (a marked point: count 0, failed its failed trials; an
 * output that does not apply: both 0); where count > 0, mean, min and max finite with
 * min <= mean <= max (to rounding); histogram entries >= 0 summing to at most the
 * count of the value they histogram (values outside 0..max are not counted). Points
 * not done, and a vector's unused tail, are NaN by design and not looked at. */
/* Whether count c and failed f of one value are what summarising `trials` trials
 * writes: every trial counted or failed where the output applies; a count of 0 is an
 * output that does not apply there (nothing failed) or a point marked for its failed
 * trials (more than AR_FAILURE_LIMIT of them). c and f are within [0, trials]. */
int store_counts_possible(long long c, long long f, long long trials, int applies)
{
    return c > 0 ? applies && c + f == trials : f == 0 ? !applies : (double)f > AR_FAILURE_LIMIT * (double)trials;
}

/* The statistics of one value (a point's output, a vector's element, an attack's
 * confirmation point) are those ar_summarize writes: NaN where the count leaves them
 * undefined, min <= mean <= max, a standard deviation values within [min, max] can
 * have, the standard error std/sqrt(count), and the interval mean -/+ t(0.975, count -
 * 1) times the standard error (floored at spacing/count on a lattice). The verdicts are
 * recomputed from exactly these numbers, so one that lies (a negative or shrunken
 * standard error, a mean outside its values) is damage. */
int store_statistics_wrong(const double st[N_STATS], long long c, double spacing, int *field, char *why, size_t len)
{
    double mean = st[STAT_MEAN], lo = st[STAT_MIN], hi = st[STAT_MAX], se = st[STAT_SE], std = st[STAT_STD];
    if (c > 0 && !(isfinite(lo) && isfinite(hi) && lo <= hi))
        return *field = STAT_MIN, snprintf(why, len, "not a finite min <= max of %lld values", c), 1;
    if (c > 0 && !(isfinite(mean) && mean >= lo - 1e-12 * fmax(fabs(lo), fabs(hi)) &&
                   mean <= hi + 1e-12 * fmax(fabs(lo), fabs(hi))))
        return *field = STAT_MEAN, snprintf(why, len, "not a finite mean within [min, max] = [%g, %g]", lo, hi), 1;
    if (c == 0 || c == 1) {
        for (int k = c ? STAT_SE : STAT_MEAN; k <= (c ? STAT_HI : STAT_MAX); ++k)
            if (!isnan(st[k]))
                return *field = k, snprintf(why, len, "where %lld value(s) leave it undefined (NaN)", c), 1;
        return 0;
    }
    if (!(isfinite(std) && std >= 0))
        return *field = STAT_STD, snprintf(why, len, "not a finite standard deviation >= 0"), 1;
    /* What min, max and mean allow of the standard deviation: at least the two extreme
     * values' share of the sum of squares, at most Popoviciu's (max - min)/2, as a
     * sample's (c/(c-1)). Real outputs have no histogram: this is what bounds them. */
    double lowest = sqrt(((lo - mean) * (lo - mean) + (hi - mean) * (hi - mean)) / (double)(c - 1));
    double highest = (hi - lo) / 2 * sqrt((double)c / (double)(c - 1));
    /* rounding: a spread of a few ulps leaves the running sum of squares with noise of
     * about eps |value| per value (values equal to the last bits: std 1e-16 at mean 1) */
    double room = 1e-9 * highest + 8 * DBL_EPSILON * fmax(fabs(lo), fabs(hi)) * sqrt((double)c);
    if (std < lowest - room || std > highest + room)
        return *field = STAT_STD, snprintf(why, len, "not a standard deviation that %lld values within [%g, %g] of "
                                           "mean %g can have ([%g, %g])", c, lo, hi, mean, lowest, highest), 1;
    double want_se = std / sqrt((double)c);
    if (!(fabs(se - want_se) <= 1e-12 * want_se))
        return *field = STAT_SE, snprintf(why, len, "not std/sqrt(count) = %g/sqrt(%lld) = %g", std, c, want_se), 1;
    double floor = spacing > 0 ? spacing / (double)c : 0;
    double half = ar_t95(c - 1) * (se < floor ? floor : se);
    double slack = 1e-12 * (fabs(mean) + half);
    if (!(fabs(st[STAT_LO] - (mean - half)) <= slack && fabs(st[STAT_HI] - (mean + half)) <= slack))
        return *field = STAT_LO, snprintf(why, len, "not the 95%% interval of its mean, standard error and count: "
                                          "[%.10g, %.10g]", mean - half, mean + half), 1;
    return 0;
}

int store_range_wrong(const double st[N_STATS], long long c, const ar_output *o, const ar_point *p, int *field,
                      char *why, size_t len)
{
    double lower, upper, lo = st[STAT_MIN], hi = st[STAT_MAX];
    int integer = ar_output_range(o, p, &lower, &upper);
    *field = STAT_MIN;
    if (c > 0 && !(lo >= lower && hi <= upper))
        return snprintf(why, len, "outside [%g, %g], the values %s takes at this point", lower, upper, o->name), 1;
    if (c > 0 && integer && !(lo == floor(lo) && hi == floor(hi)))
        return snprintf(why, len, "not whole, as every value of %s is", o->name), 1;
    return 0;
}

/* An integer output's histogram at one point (dense: trials at each value 0 .. W-1;
 * sparse: the values seen and their trials) is the trials' own: every counted trial in
 * it, none above top (the most the output takes at this point: a grid's wider points
 * set W), and its smallest, largest and mean value and its standard deviation those of
 * the statistics. */
static int check_histogram(const ar_store *store, const ar_experiment *x, const ar_output *o, int sparse,
                           const long long *value, const long long *trials, size_t slots, long long values,
                           long long top, const double st[N_STATS], long long c, size_t p, const char *const *names,
                           char *err)
{
    long long sum = 0, previous = -1, lowest = -1, highest = -1;
    double weighted = 0; /* sum of value x trials */
    int ended = 0;
    for (size_t k = 0; k < slots; ++k) {
        long long v = sparse ? value[k] : (long long)k, e = trials[k];
        ended |= sparse && v == -1;
        if (!sparse && (e < 0 || e > c - sum))
            return store_fail(err, store->path, "damaged: dataset /%s holds %lld for value %zu at point %zu, not a "
                              "count within the point's %lld values", names[0], e, k, p, c);
        if (sparse && (ended ? v != -1 || e != 0 : v <= previous || v >= values || e < 1 || e > c - sum))
            return store_fail(err, store->path, "damaged: datasets /%s and /%s hold value %lld, count %lld in slot "
                              "%zu at point %zu, not the values seen (ascending, below %lld, -1 past the last) and "
                              "their counts within the point's %lld", names[0], names[1], v, e, k, p, values, c);
        if (!ended && e > 0 && v > top)
            return store_fail(err, store->path, "damaged: dataset /%s holds %lld trial(s) of value %lld at point %zu, "
                              "above %lld, the most %s takes there", names[sparse ? 1 : 0], e, v, p, top, o->name);
        if (!ended && e > 0)
            sum += e, previous = v, weighted += (double)v * (double)e, lowest = lowest < 0 ? v : lowest, highest = v;
    }
    if (c == 0)
        return 0;
    double mean = weighted / (double)sum, squares = 0;
    for (size_t k = 0; k < slots; ++k) {
        long long v = sparse ? value[k] : (long long)k, e = trials[k];
        if (e > 0 && v >= 0)
            squares += (double)e * ((double)v - mean) * ((double)v - mean);
    }
    double std = sum > 1 ? sqrt(squares / (double)(sum - 1)) : NAN;
    double tolerance = 1e-9 * fmax(1.0, fabs(st[STAT_MEAN]));
    if (sum != c || (double)lowest != st[STAT_MIN] || (double)highest != st[STAT_MAX] || !(fabs(mean - st[STAT_MEAN]) <= tolerance) ||
        (sum > 1 && !(fabs(std - st[STAT_STD]) <= tolerance)))
        return store_fail(err, store->path, "damaged: the histogram of /%s/%s at point %zu (%lld trials, values %lld "
                          "to %lld, mean %.10g, std %.10g) is not that of its statistics (count %lld, min %g, max %g, "
                          "mean %.10g, std %.10g)", x->name, o->name, p, sum, lowest, highest, mean, std, c, st[STAT_MIN],
                          st[STAT_MAX], st[STAT_MEAN], st[STAT_STD]);
    return 0;
}

int store_check_done_values(ar_store *store, int experiment, int output, char *err)
{
    if (store->checked[experiment] & (1u << output))
        return 0; /* checked since the last write */
    const ar_experiment *x = &store->spec.experiments[experiment];
    const ar_output *o = &x->sim->outputs[output];
    const experiment_layout *L = store_layout_of(store, x);
    size_t n = (size_t)x->n_points, width = (size_t)store_vector_width(L, x, o);
    dataset_shape real = store_stat_shape(L, x, o, VALUE_DOUBLE), whole = store_stat_shape(L, x, o, VALUE_INT64);
    const char *hist_names[HIST_DATASETS];
    hsize_t hist_width_here = 0;
    int cells = store_hist_datasets(L, output, hist_names, &hist_width_here);
    size_t hw = (size_t)hist_width_here;
    dataset_shape hist = store_hist_cell_shape(x, hist_width_here);
    /* only the done points are read (a shard's, a partial run's), compactly: the k-th
     * done point's values at k */
    point_runs runs;
    if (store_find_runs(store->done[experiment], (long)n, &runs) < 0)
        return store_fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
    size_t done = (size_t)runs.marked;
    double *stat[N_STATS] = {NULL};
    long long *count = malloc(done * width * sizeof *count + 1), *failed = malloc(done * width * sizeof *failed + 1);
    long long *h[HIST_DATASETS] = {NULL, NULL};
    int have = count && failed;
    for (int k = 0; k < N_STATS; ++k)
        have = have && (stat[k] = malloc(done * width * sizeof(double) + 1));
    for (int c = 0; c < cells; ++c)
        have = have && (h[c] = malloc(done * hw * sizeof(long long) + 1));
    char name[N_CELLS + HIST_DATASETS][512], stat_name[512];
    snprintf(stat_name, sizeof stat_name, "/%s/%s/", x->name, o->name);
    for (int k = 0; k < N_CELLS + cells; ++k)
        snprintf(name[k], sizeof name[k], "%s/%s/%s", x->name, o->name,
                 k < N_CELLS ? STORE_CELLS[k].name : hist_names[k - N_CELLS]);
    int status = have ? 0 : store_fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
    for (int k = 0; status == 0 && k < N_STATS; ++k)
        status = store_transfer_runs(store, name[k], &real, x, &runs, width, stat[k], 0, err);
    if (status == 0 && (store_transfer_runs(store, name[N_STATS], &whole, x, &runs, width, count, 0, err) < 0 ||
                        store_transfer_runs(store, name[N_STATS + 1], &whole, x, &runs, width, failed, 0, err) < 0))
        status = -1;
    for (int c = 0; status == 0 && c < cells; ++c)
        status = store_transfer_runs(store, name[N_STATS + 2 + c], &hist, x, &runs, hw, h[c], 0, err);
    long long trials = x->trials;
    for (size_t p = 0, next_row = 0; status == 0 && p < n; ++p) {
        if (!store->done[experiment][p])
            continue;
        size_t row = next_row++; /* where its values are in the compact arrays */
        int length = 1;
        ar_point pt;
        if (o->length || o->applies || o->spacing || o->hist_max || o->range)
            ar_experiment_point(x, (long)p, &pt);
        int applies = !o->applies || o->applies(&pt);
        if (o->length)
            length = ar_output_length(o, &pt);
        /* integer outputs and the real ones on a lattice: see trials.c */
        double spacing = o->hist_max ? 1.0 : o->spacing ? o->spacing(&pt) : 0;
        char where[64] = "";
        double st[N_STATS];
        for (int i = 0; status == 0 && i < length; ++i) {
            size_t at = row * width + (size_t)i;
            if (o->length)
                snprintf(where, sizeof where, " element %d", i);
            for (int k = 0; k < N_STATS; ++k)
                st[k] = stat[k][at];
            long long c = count[at], f = failed[at];
            char why[320];
            int k;
            if (c < 0 || c > trials)
                status = store_fail(err, store->path, "damaged: dataset /%s holds %lld at point %zu%s, not 0 to %lld "
                                    "(the trials)", name[N_STATS], c, p, where, trials);
            else if (f < 0 || f > trials - c)
                status = store_fail(err, store->path, "damaged: dataset /%s holds %lld at point %zu%s, not 0 to %lld "
                                    "(the trials less the count %lld)", name[N_STATS + 1], f, p, where, trials - c, c);
            else if (!store_counts_possible(c, f, trials, applies))
                status = store_fail(err, store->path, "damaged: datasets /%s and /%s hold %lld and %lld at point %zu%s, "
                                    "not every one of its %lld trials counted or failed (or a point marked for "
                                    "more than %g%% failed)", name[N_STATS], name[N_STATS + 1], c, f, p, where, trials,
                                    100 * AR_FAILURE_LIMIT);
            else if (store_statistics_wrong(st, c, spacing, &k, why, sizeof why) ||
                     ((o->hist_max || o->range) && store_range_wrong(st, c, o, &pt, &k, why, sizeof why)))
                status = k == STAT_LO  ? store_fail(err, store->path, "damaged: datasets %sci_lo and ci_hi hold [%.10g, "
                                                    "%.10g] at point %zu%s, %s", stat_name, st[STAT_LO], st[STAT_HI], p,
                                                    where, why)
                         : k == STAT_MIN ? store_fail(err, store->path, "damaged: datasets %smin and %smax hold %g and "
                                                      "%g at point %zu%s, %s", stat_name, stat_name, st[STAT_MIN],
                                                      st[STAT_MAX], p, where, why)
                                         : store_fail(err, store->path, "damaged: dataset %s%s holds %g at point "
                                                      "%zu%s, %s", stat_name, STORE_CELLS[k].name, st[k], p, where, why);
        }
        if (status != 0 || cells == 0 || length == 0)
            continue;
        /* the histogram counts the last value (a vector output's last element) */
        const long long *values = cells == 2 ? h[0] + row * hw : NULL, *trials_at = h[cells - 1] + row * hw;
        const char *names[2] = {name[N_STATS + 2], cells == 2 ? name[N_STATS + 3] : ""};
        status = check_histogram(store, x, o, cells == 2, values, trials_at, hw, (long long)store_hist_width(L, x, o),
                                 o->hist_max(&pt), st, count[row * width + (size_t)length - 1], p, names, err);
    }
    for (int k = 0; k < N_STATS; ++k)
        free(stat[k]);
    free(count), free(failed), free(h[0]), free(h[1]);
    store_free_runs(&runs);
    if (status == 0)
        store->checked[experiment] |= 1u << output;
    return status;
}

int ar_store_read_summaries(ar_store *store, int experiment, int output, int element, ar_summary *out,
                            char *err)
{
    /* A reader never writes: the points a writer still holds are committed by it first
     * (ar_store_commit), or the values read would not be the ones marked done. */
    if (store->uncommitted)
        return store_fail(err, store->path, "cannot read %s/%s: points written are not yet committed (%ld)",
                          store->spec.experiments[experiment].name,
                          store->spec.experiments[experiment].sim->outputs[output].name, store->uncommitted);
    if (store_check_done_values(store, experiment, output, err) < 0)
        return -1;
    const ar_experiment *x = &store->spec.experiments[experiment];
    const ar_output *o = &x->sim->outputs[output];
    const experiment_layout *L = store_layout_of(store, x);
    size_t n = (size_t)x->n_points, width = (size_t)store_vector_width(L, x, o);
    double *buf = malloc(n * width * sizeof *buf + 1);
    long long *counts = malloc(n * width * sizeof *counts + 1);
    size_t *cell = malloc(n * sizeof *cell + 1); /* where each point's chosen value lies */
    if (!buf || !counts || !cell) {
        free(buf), free(counts), free(cell);
        return store_fail(err, store->path, "out of memory reading %s/%s", x->name, o->name);
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
    dataset_shape real = store_stat_shape(L, x, o, VALUE_DOUBLE), whole = store_stat_shape(L, x, o, VALUE_INT64);
    char name[512];
    int status = 0;
    for (int k = 0; k < N_STATS + 2 && status == 0; ++k) {
        snprintf(name, sizeof name, "%s/%s/%s", x->name, o->name, STORE_CELLS[k].name);
        status = k < N_STATS ? store_read_checked(store, name, &real, H5T_NATIVE_DOUBLE, buf, err)
                             : store_read_checked(store, name, &whole, H5T_NATIVE_LLONG, counts, err);
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
    dataset_shape grid = store_grid_shape(x, VALUE_DOUBLE);
    return store_read_checked(store, name, &grid, H5T_NATIVE_DOUBLE, out, err);
}

long ar_store_done_count(const ar_store *store, int experiment)
{
    long n = 0;
    for (long p = 0; p < store->spec.experiments[experiment].n_points; ++p)
        n += store->done[experiment][p];
    return n;
}
