/* store_merge: the copies a merge makes, from shard files into the whole run's. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <stdlib.h>
#include <string.h>

/* Copy, into dst's dataset `name`, the values of the points in `runs` (src has done
 * them, its shard owns them, dst has not); both checked to be of `want`. A shard's
 * points come in runs of consecutive points (its blocks): one read of just them from src
 * and one write into dst. */
static int copy_dataset(ar_store *dst, ar_store *src, const char *name, const dataset_shape *want,
                        const point_runs *runs, const ar_experiment *x, char *err)
{
    if (runs->marked == 0)
        return 0;
    size_t slice = (size_t)store_shape_count(want) / (size_t)x->n_points, size = H5Tget_size(store_memory_type(want->kind));
    char *buf = malloc((size_t)runs->marked * slice * size + 1);
    int status = buf ? 0 : store_fail(err, dst->path, "out of memory copying /%s", name);
    if (status == 0 && (store_transfer_runs(src, name, want, x, runs, slice, buf, 0, err) < 0 ||
                        store_transfer_runs(dst, name, want, x, runs, slice, buf, 1, err) < 0))
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
            return store_fail(err, dst->path, "out of memory copying experiment %s", x->name);
        for (long p = 0; p < x->n_points; ++p)
            take[p] = src->done[e][p] && !dst->done[e][p] &&
                      (shards <= 1 || ar_shard_owner(first + p, points, shards) == shard);
        first += x->n_points;
        point_runs runs;
        if (store_find_runs(take, x->n_points, &runs) < 0) {
            free(take);
            return store_fail(err, dst->path, "out of memory copying experiment %s", x->name);
        }
        for (int o = 0; ok && o < x->sim->n_outputs; ++o)
            ok = store_check_done_values(src, e, o, err) == 0;
        const experiment_layout *L = store_layout_of(dst, x);
        dst->checked[e] = 0;
        for (int o = 0; ok && o < x->sim->n_outputs; ++o) {
            const ar_output *out = &x->sim->outputs[o];
            const char *hist_names[HIST_DATASETS];
            hsize_t width = 0;
            int cells = store_hist_datasets(L, o, hist_names, &width);
            for (int k = 0; ok && k < N_CELLS + cells; ++k) {
                dataset_shape want = k < N_CELLS ? store_stat_shape(L, x, out, STORE_CELLS[k].kind)
                                                 : store_hist_cell_shape(x, width);
                snprintf(name, sizeof name, "%s/%s/%s", x->name, out->name,
                         k < N_CELLS ? STORE_CELLS[k].name : hist_names[k - N_CELLS]);
                ok = copy_dataset(dst, src, name, &want, &runs, x, err) == 0;
            }
        }
        /* data first, flushed; then the ledger, as a run writes them */
        if (ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) < 0)
            ok = store_fail(err, dst->path, "cannot copy experiment %s from %s (disk full?)", x->name, src->path) == 0;
        long newly = 0;
        for (long p = 0; p < x->n_points; ++p)
            newly += take[p] && !dst->done[e][p];
        dataset_shape done = store_grid_shape(x, VALUE_FLAG);
        snprintf(name, sizeof name, "%s/done", x->name);
        ok = ok && copy_dataset(dst, src, name, &done, &runs, x, err) == 0;
        if (ok && H5Fflush(dst->file, H5F_SCOPE_GLOBAL) < 0)
            ok = store_fail(err, dst->path, "cannot copy experiment %s from %s (disk full?)", x->name, src->path) == 0;
        if (ok)
            for (long p = 0; p < x->n_points; ++p)
                dst->done[e][p] |= take[p];
        free(take);
        store_free_runs(&runs);
        if (!ok)
            return -1;
        *copied += newly;
    }
    return 0;
}
