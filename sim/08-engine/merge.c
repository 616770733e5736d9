/* merge: the shards of one spec (--shard I/N) joined into the file a single run would
 * have written, with its verdicts. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attnrank_config.h"
#include "attnrank/revision.h"

static int by_value(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The attnrank that wrote a file: its attnrank_version and git_revision attributes. The
 * output is labelled with this attnrank's (store_provenance.c), so the inputs must be
 * this attnrank's too: another version's or revision's data (simulators and theory
 * change between them) would go out under this one's name. */
static int check_writer(ar_store *store, const char *path, ar_store *first, const char *first_path, int judging,
                        char *err)
{
    char *version = ar_store_attribute(store, "attnrank_version"), *revision = ar_store_attribute(store, "git_revision");
    char *v0 = first ? ar_store_attribute(first, "attnrank_version") : NULL;
    char *r0 = first ? ar_store_attribute(first, "git_revision") : NULL;
    int status = 0;
    if (!version || !revision || (first && (!v0 || !r0))) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", path);
        status = -1;
    } else if (first && (strcmp(version, v0) != 0 || strcmp(revision, r0) != 0)) {
        snprintf(err, AR_ERR_LEN, "%s: written by attnrank %.40s (git %.40s), but %s by attnrank %.40s (git %.40s): "
                 "the shards of one run come from one attnrank", path, version, revision, first_path, v0, r0);
        status = -1;
    } else if (strcmp(version, ATTNRANK_VERSION) != 0 || strcmp(revision, ar_git_revision) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: written by attnrank %.40s (git %.40s), not by this attnrank %s (git %s): %s "
                 "would label its data with this one's; %s", path, version, revision, ATTNRANK_VERSION,
                 ar_git_revision, judging ? "a copy" : "the merge",
                 judging ? "judge without -o prints its verdicts" : "merge with the attnrank that wrote the shards");
        status = -1;
    }
    if (status < 0)
        ar_store_one_line(err); /* the versions are the files' own text */
    free(version), free(revision), free(v0), free(r0);
    return status;
}

/* The output, and the names a writer makes beside it, must not be an input: the merge
 * would replace it (by that name, another that reaches it, a symbolic or a hard link). */
static int output_is_input(const char *output, const char *const *paths, int n, int judging, char *err)
{
    static const char *const beside[] = {"", ".partial", ".partial.tmp"};
    for (size_t b = 0; b < sizeof beside / sizeof *beside; ++b) {
        char *name;
        struct stat out_st, in_st;
        if (asprintf(&name, "%s%s", output, beside[b]) < 0) {
            snprintf(err, AR_ERR_LEN, "%s: out of memory", output);
            return -1;
        }
        int found = -1;
        if (stat(name, &out_st) == 0)
            for (int i = 0; i < n && found < 0; ++i)
                if (stat(paths[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
                    found = i;
        if (found >= 0)
            snprintf(err, AR_ERR_LEN, "%s: is the input %s (the same file): %s; name another -o", name, paths[found],
                     judging ? "judge never modifies FILE" : "merge never modifies its inputs");
        free(name);
        if (found >= 0)
            return -1;
    }
    return 0;
}

/* Open every shard for reading (ar_result_open: opened, checked and re-judged, its rows
 * NOT RUN as an incomplete file's until every point is in) and check they fit together:
 * the same spec, one N, each index once, every shard complete and marking done only
 * points it owns (their values are checked by ar_store_open). A file written without
 * --shard (or with --shard 0/1) is a whole run: merged alone, it is a merge of one. */
static int open_shards(const char *const *paths, int n, int judging, ar_result *results, ar_store **stores,
                       char *err)
{
    int count = 0;
    int *given = calloc((size_t)n, sizeof *given); /* the indices, whatever N a file claims */
    if (!given) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", paths[0]);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        int index, of;
        if (ar_result_open(paths[i], 0, &results[i], err) < 0) /* 0: a shard is judged, incomplete as it is */
            goto refused;
        stores[i] = results[i].store;
        if (ar_store_shard(stores[i], &index, &of, err) < 0)
            goto refused;
        if (i == 0)
            count = of;
        if (of == 1 && n > 1) {
            snprintf(err, AR_ERR_LEN, "%s: not a shard but a whole run (written without --shard); merge it "
                     "alone, or give only the shard files of one run", paths[i]);
            goto refused;
        }
        if (of != count) {
            snprintf(err, AR_ERR_LEN, "%s: shard %d/%d, but %s is one of %d shards", paths[i], index, of, paths[0],
                     count);
            goto refused;
        }
        /* a theory/ dataset's forged statement would be copied under real data, and a
         * forged /verdicts row (a shard's are NOT RUN) laundered into a clean file: damage,
         * refused as judge and report refuse it */
        if (ar_store_check_streams(stores[i], paths[i], "merging", err) < 0 ||
            (results[i].damaged && snprintf(err, AR_ERR_LEN, "%s", results[i].damage)) ||
            check_writer(stores[i], paths[i], i ? stores[0] : NULL, paths[0], judging, err) < 0)
            goto refused;
        const ar_spec *spec = ar_store_spec(stores[i]), *spec0 = ar_store_spec(stores[0]);
        if (spec->hash != spec0->hash) {
            snprintf(err, AR_ERR_LEN, "%s: another spec or seed than %s (hash %016llx, not %016llx)", paths[i],
                     paths[0], (unsigned long long)spec->hash, (unsigned long long)spec0->hash);
            goto refused;
        }
        for (int k = 0; k < i; ++k)
            if (given[k] == index) {
                snprintf(err, AR_ERR_LEN, "%s: shard %d/%d is given twice", paths[i], index, of);
                goto refused;
            }
        given[i] = index;
        /* complete: every point it owns is done */
        ar_run_options opt = {.shard = index, .shards = of};
        long first = 0, missing = 0, points = ar_spec_points(spec);
        for (int e = 0; e < spec->n_experiments; ++e) {
            for (long p = 0; p < spec->experiments[e].n_points; ++p) {
                if (!ar_session_owns(&opt, points, first + p) && ar_store_done(stores[i], e, p)) {
                    snprintf(err, AR_ERR_LEN, "%s: shard %d/%d marks point %ld of experiment %s done, which belongs "
                             "to shard %d/%d", paths[i], index, of, p, spec->experiments[e].name,
                             ar_shard_owner(first + p, points, of), of);
                    goto refused;
                }
                missing += ar_session_owns(&opt, points, first + p) && !ar_store_done(stores[i], e, p);
            }
            first += spec->experiments[e].n_points;
        }
        if (missing && of == 1) {
            snprintf(err, AR_ERR_LEN, "%s: the run lacks %ld of its points; finish it with --resume", paths[i],
                     missing);
            goto refused;
        }
        if (missing) {
            snprintf(err, AR_ERR_LEN, "%s: shard %d/%d lacks %ld of its points; finish it with --resume", paths[i],
                     index, of, missing);
            goto refused;
        }
    }
    /* n distinct indices below N: all there when n == N, else name the first missing */
    qsort(given, (size_t)n, sizeof *given, by_value);
    for (int k = 0; k < count; ++k)
        if (k >= n || given[k] != k) {
            snprintf(err, AR_ERR_LEN, "shard %d/%d is missing: give all %d shard files", k, count, count);
            goto refused;
        }
    free(given);
    return 0;
refused: /* the caller closes every result opened */
    free(given);
    return -1;
}

/* Labels for the shards' provenance: their file names. */
static const char *const *labels_of(const char *const *paths, int n, const char **labels)
{
    for (int i = 0; i < n; ++i) {
        const char *slash = strrchr(paths[i], '/');
        labels[i] = slash ? slash + 1 : paths[i];
    }
    return labels;
}

ar_status ar_merge_shards(const char *output, const char *const *paths, int n, const char *command_line, int force,
                          const ar_spec *judged, ar_verdict_row **rows, int *n_rows, char *err)
{
    *rows = NULL;
    *n_rows = 0;
    if (ar_preflight_output_path(output, err) || output_is_input(output, paths, n, judged != NULL, err))
        return AR_ERR_INPUT;
    ar_result *results = calloc((size_t)n, sizeof *results);
    ar_store **shards = calloc((size_t)n, sizeof *shards);
    if (!results || !shards) {
        free(results), free(shards);
        snprintf(err, AR_ERR_LEN, "%s: out of memory", output);
        return AR_ERR_IO;
    }
    ar_status status = open_shards(paths, n, judged != NULL, results, shards, err) == 0 ? AR_OK : AR_ERR_INPUT;
    ar_run_options opt = {.output = output, .command_line = command_line, .force = force, .no_resume = 1};
    ar_run_plan plan = {0};
    char *partial = NULL;
    if (status == AR_OK && (ar_plan_make(judged ? judged : ar_store_spec(shards[0]), 1, &plan) < 0 ||
                            asprintf(&partial, "%s.partial", output) < 0)) {
        partial = NULL;
        snprintf(err, AR_ERR_LEN, "%s: out of memory", output);
        status = AR_ERR_IO;
    }
    /* as a run: refused before writing where the disk or ulimit -f cannot hold the file */
    if (status == AR_OK && ar_preflight_file_room(&plan, output, err) < 0)
        status = AR_ERR_INPUT;
    ar_output_lock *lock = NULL;
    ar_store *store = status == AR_OK ? ar_session_start_store(plan.spec, &opt, partial, &lock, err, &status) : NULL;
    if (store) {
        status = AR_OK;
        for (int i = 0; status == AR_OK && i < n && !ar_stop_signal; ++i) {
            long copied;
            if (ar_store_copy_points(store, shards[i], &copied, err) < 0)
                status = AR_ERR_IO;
        }
        /* the shards' provenance, not the merging machine's */
        const char **labels = calloc((size_t)n, sizeof *labels);
        if (status == AR_OK && (!labels || ar_store_join_provenance(store, shards, labels_of(paths, n, labels), n, err) < 0))
            status = AR_ERR_IO;
        free(labels);
        status = ar_session_finish(&plan, &opt, store, lock, partial, status, rows, n_rows, err);
    }
    for (int i = 0; i < n; ++i)
        ar_result_close(&results[i]);
    free(results), free(shards);
    ar_plan_free(&plan);
    free(partial);
    return status;
}
