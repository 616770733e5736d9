/* store: opening, creating and closing a result file; its root attributes, shard and
 * streams. The layout and the rest are in the store_*.c files (store_parts.h). */
#define _GNU_SOURCE
#include "store_parts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What opening checks: the layout against the spec (not for the file ar_store_create has
 * just made), and the file's structure (links, layouts, declared lengths: store_open_file;
 * not for a file this process made, whose structure is its own: the walk costs a
 * 150-experiment run a second of CPU). */
enum { CHECK_LAYOUT = 1, CHECK_STRUCTURE = 2 };
static ar_store *open_store(const char *path, int access, int check, char *err);

/* path made afresh (H5F_ACC_EXCL: never over a file that is there), or -1 with err
 * saying why (the system's reason: out of space, of descriptors) and nothing left: a
 * full disk left a 0-byte file the open had made. The name is the writer's, under its
 * lock, so a file at path after a failure that was not there before is the open's. */
hid_t store_create_file(const char *path, char *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    struct stat st;
    int existed = lstat(path, &st) == 0;
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_obj_track_times(fcpl, 0); /* no times in the file: the same run, the same bytes */
    errno = 0;
    hid_t file = existed ? -1 : H5Fcreate(path, H5F_ACC_EXCL, fcpl, H5P_DEFAULT);
    int why = errno;
    H5Pclose(fcpl);
    if (file >= 0)
        return file;
    if (existed || why == EEXIST)
        store_fail(err, path, "cannot create the HDF5 file: it exists already");
    else if (why) { /* a call the system refused: what the open made is removed */
        unlink(path);
        store_fail(err, path, "cannot create the HDF5 file: %s", strerror(why));
    } else
        store_fail(err, path, "cannot create the HDF5 file");
    return -1;
}

ar_store *ar_store_create(const char *path, const ar_spec *spec, const char *command_line, const ar_provenance *how,
                          int shard_file, char *err)
{
    hid_t file = store_create_file(path, err);
    if (file < 0)
        return NULL;
    int ok = store_write_provenance(file, spec, command_line, how) == 0;
    for (int e = 0; ok && e < spec->n_experiments; ++e)
        ok = store_create_experiment(file, &spec->experiments[e], shard_file) == 0;
    ok = ok && store_create_verdicts(file, spec) == 0;
    if (!ok || H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) {
        H5Fclose(file);
        unlink(path);
        store_fail(err, path, "cannot write the HDF5 layout (disk full?)");
        return NULL;
    }
    H5Fclose(file);
    /* Reopen: the spec is rebuilt from the file, so create and resume share one path. */
    return open_store(path, AR_STORE_WRITE, 0, err);
}

ar_store *ar_store_open(const char *path, int access, char *err)
{
    return open_store(path, access, CHECK_LAYOUT | CHECK_STRUCTURE, err);
}

ar_store *ar_store_open_created(const char *path, char *err)
{
    return open_store(path, AR_STORE_WRITE, CHECK_LAYOUT, err);
}

/* check: the whole layout (check_layout); not for the file ar_store_create has just
 * made, whose layout is its own. */
/* A shard's ledger marks only points it owns: another shard's point there is a hole
 * (read as zeros), not data, and is named as such before its values are checked. */
static int check_shard_points(ar_store *s, char *err)
{
    int index, of;
    if (ar_store_shard(s, &index, &of, err) < 0)
        return -1;
    long first = 0, points = ar_spec_points(&s->spec);
    for (int e = 0; of > 1 && e < s->spec.n_experiments; first += s->spec.experiments[e++].n_points)
        for (long p = 0; p < s->spec.experiments[e].n_points; ++p)
            if (s->done[e][p] && ar_shard_owner(first + p, points, of) != index)
                return store_fail(err, s->path, "shard %d/%d marks point %ld of experiment %s done, which belongs to "
                                  "shard %d/%d", index, of, p, s->spec.experiments[e].name,
                                  ar_shard_owner(first + p, points, of), of);
    return 0;
}

static ar_store *open_store(const char *path, int access, int check, char *err)
{
    hid_t file = store_open_file(path, access, (check & CHECK_STRUCTURE) != 0, err);
    if (file < 0)
        return NULL;
    ar_store *s = calloc(1, sizeof *s);
    char *canonical = NULL, *version = NULL;
    if (!s || !(s->path = strdup(path))) {
        free(s);
        H5Fclose(file);
        store_fail(err, path, "out of memory opening the file");
        return NULL;
    }
    s->file = file;
    int st = store_read_attr_string(file, "attnrank_version", &version);
    if (st != ATTR_OK) {
        store_fail(err, path, st == ATTR_ABSENT ? "not an attnrank result file (no attnrank_version attribute)"
                                          : "damaged: its attnrank_version attribute is not one text value");
        goto bad;
    }
    long long format = 0;
    if (store_read_attr_integer(file, "format_version", H5T_NATIVE_LLONG, &format, NULL) == ATTR_WRONG) {
        store_fail(err, path, "damaged: its format_version attribute is not one integer");
        goto bad;
    }
    if (format != FORMAT_VERSION) {
        store_fail(err, path, "written by attnrank %.40s in file format %lld; this attnrank reads format %d", version,
             format, FORMAT_VERSION);
        goto bad;
    }
    st = store_read_attr_string(file, "spec_canonical", &canonical);
    if (st != ATTR_OK) {
        store_fail(err, path, st == ATTR_ABSENT ? "damaged: no spec_canonical attribute"
                                          : "damaged: its spec_canonical attribute is not one text value");
        goto bad;
    }
    char spec_err[AR_ERR_LEN];
    if (ar_spec_load_text(canonical, path, NULL, NULL, 0, &s->spec, spec_err) != 0) {
        store_fail(err, path, "its stored spec is not valid for this attnrank: %s", spec_err);
        goto bad;
    }
    /* The canonical spec is its own canonical form, so its hash is the one written beside
     * it: an edited spec (31 trials shown for a file of 30) does not pass for the original.
     * The hash it would need is not printed: the check is against accidents, and naming the
     * hash would hand an editor the value to copy in. */
    char *stored_hash = NULL, hash[32];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)s->spec.hash);
    st = store_read_attr_string(file, "spec_hash", &stored_hash);
    int same = st == ATTR_OK && strcmp(stored_hash, hash) == 0;
    free(stored_hash);
    if (!same) {
        store_fail(err, path, st == ATTR_ABSENT  ? "damaged: no spec_hash attribute"
                        : st != ATTR_OK    ? "damaged: its spec_hash attribute is not one text value"
                                           : "damaged: its spec_canonical does not hash to its spec_hash: edited?");
        goto bad;
    }
    /* the seed, as h5py users read it, is the stored spec's */
    unsigned long long seed = 0;
    if (store_read_attr_integer(file, "seed", H5T_NATIVE_ULLONG, &seed, NULL) != ATTR_OK ||
        seed != (unsigned long long)s->spec.seed) {
        store_fail(err, path, "damaged: its seed attribute is not the stored spec's seed %llu",
                   (unsigned long long)s->spec.seed);
        goto bad;
    }
    /* The whole layout before anything is read from it: a damaged file is refused
     * now, not after a resumed run's worth of work. */
    if (store_load_layout(s, err) < 0 || (check && store_check_layout(s, err) < 0) || store_load_done(s, err) < 0 ||
        (check && check_shard_points(s, err) < 0))
        goto bad;
    /* and the values at every point the ledger marks done: what a run could write */
    for (int e = 0; check && e < s->spec.n_experiments; ++e)
        for (int o = 0; o < s->spec.experiments[e].sim->n_outputs; ++o)
            if (store_check_done_values(s, e, o, err) < 0)
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
const char *ar_store_path(const ar_store *store)
{
    return store->path;
}

int ar_store_descriptor(const ar_store *store)
{
    return store_file_descriptor(store->file);
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

int ar_store_shard(ar_store *store, int *index, int *count, char *err)
{
    *index = 0, *count = 1;
    char *text = NULL;
    int st = store_read_attr_string(store->file, "shard", &text);
    if (st == ATTR_ABSENT)
        return 0;
    if (st == ATTR_NO_MEMORY)
        return store_fail(err, store->path, "out of memory reading its shard attribute");
    if (st == ATTR_OK && ar_shard_parse(text, index, count) == 0 && *count >= 2) {
        free(text);
        return 0;
    }
    store_fail(err, store->path, "damaged: its shard attribute is %s%.40s%s, not I/N with 0 <= I < N and N >= 2",
         text ? "'" : "not text", text ? text : "", text ? "'" : "");
    free(text);
    return -1;
}

int ar_store_close(ar_store *store)
{
    if (!store)
        return 0;
    char err[AR_ERR_LEN];
    int committed = ar_store_commit(store, err); /* the points still in the slab */
    store_free_writer(store);
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
