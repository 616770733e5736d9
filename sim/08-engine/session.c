/* session: the start and end of every run, whoever computes it (the single-process loop,
 * the merge, the MPI driver): the output's lock, the file under PATH.partial (created
 * whole or opened to resume), progress, the verdicts, the rename to PATH. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The command a file's command_line attribute names, after the program's own path (the
 * words as the CLI joins them: a word with a blank or a quote in single quotes). */
static void command_of(const char *line, char *word, size_t len)
{
    const char *c = line;
    if (*c == '\'') {
        const char *close = strchr(c + 1, '\'');
        c = close ? close + 1 : c + strlen(c);
    } else {
        c += strcspn(c, " ");
    }
    c += strspn(c, " ");
    snprintf(word, len, "%.*s", (int)strcspn(c, " "), c);
}

int ar_session_attack_partial(const char *partial, const char *command, char *err)
{
    if (!ar_store_is_attack_file(partial))
        return 0;
    snprintf(err, AR_ERR_LEN, "%s: an interrupted attack's progress (`attnrank attack SPEC -o FILE --resume` "
             "continues it), not a %s's: %s neither resumes nor replaces it, --force included; give another -o",
             partial, command, command);
    return 1;
}

int ar_session_clear_stale_partial(const char *partial, int force, char *err)
{
    if (ar_session_attack_partial(partial, "merge or judge -o", err))
        return -1;
    char why[AR_ERR_LEN], word[32] = "";
    ar_store *store = ar_store_open(partial, AR_STORE_READ_IN_PLACE, why); /* whose it is: nothing shown */
    char *line = store ? ar_store_attribute(store, "command_line") : NULL;
    if (line)
        command_of(line, word, sizeof word);
    free(line);
    if (store)
        ar_store_close(store);
    if (!strcmp(word, "merge") || !strcmp(word, "judge")) { /* its own kind: it had nothing to resume */
        if (unlink(partial) == 0)
            return 0;
        snprintf(err, AR_ERR_LEN, "%s: left by an interrupted `attnrank %s`, and cannot be removed: %s", partial, word,
                 strerror(errno));
        return -1;
    }
    if (word[0]) /* a run's (or another resumable writer's) progress: never a merge's to remove */
        snprintf(err, AR_ERR_LEN, "%s: left by an interrupted `attnrank %.20s` (`attnrank %.20s SPEC -o FILE "
                 "--resume` continues it): merge and judge -o neither remove nor replace it, --force included; give "
                 "another -o", partial, word, word);
    else if (force) /* damaged or forged: nothing a command could resume */
        return 0;
    else
        snprintf(err, AR_ERR_LEN, "%s: left by an interrupted writer that cannot be told (%.200s); replace it with "
                 "--force", partial, store ? "no command_line attribute" : why);
    return -1;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The part of ar_session_start_store after the lock is taken. */
static ar_store *open_or_create(const ar_spec *spec, const ar_run_options *opt, const char *partial, char *err,
                                ar_status *status)
{
    /* A partial attnrank did not write (a thesis saved as k7.h5.partial) is the user's:
     * neither resumed nor replaced, --force included. */
    if (file_exists(partial) && !ar_store_is_attnrank_file(partial)) {
        snprintf(err, AR_ERR_LEN, "%s: not an attnrank file (not a partial an interrupted run left): neither resumed "
                 "nor replaced, --force included; remove it yourself or give another -o", partial);
        return NULL;
    }
    if (opt->resume) {
        if (!file_exists(partial)) {
            if (file_exists(opt->output))
                snprintf(err, AR_ERR_LEN, "%s: the run is already complete (no %s to resume)", opt->output, partial);
            else
                snprintf(err, AR_ERR_LEN, "%s: nothing to resume: no interrupted run at %s", opt->output, partial);
            return NULL;
        }
        /* Resuming writes into the file in place: through a symbolic link, or into a file
         * with other names (a hard link), it would alter those files too. */
        struct stat st;
        if (lstat(partial, &st) == 0 && (S_ISLNK(st.st_mode) || (S_ISREG(st.st_mode) && st.st_nlink > 1))) {
            snprintf(err, AR_ERR_LEN, "%s: %s: resuming writes into it in place and would change %s too; make it a "
                     "file of its own (cp it aside, then mv the copy over it), or start over with --force", partial,
                     S_ISLNK(st.st_mode) ? "is a symbolic link" : "the file has other names (a hard link)",
                     S_ISLNK(st.st_mode) ? "the file it names" : "them");
            return NULL;
        }
        /* Read-only first: opening for writing alters the file, and a file of another
         * spec must be left exactly as it is. In place: it is this run's to write (under its
         * lock), and the open to write checks it all again. */
        ar_store *store = ar_store_open(partial, AR_STORE_READ_IN_PLACE, err);
        if (!store)
            return NULL;
        char shard[64] = "", want[64] = "";
        int index, count;
        if (ar_store_shard(store, &index, &count, err) < 0) {
            ar_store_close(store);
            return NULL;
        }
        if (count > 1)
            snprintf(shard, sizeof shard, "%d/%d", index, count);
        if (opt->shards > 1)
            snprintf(want, sizeof want, "%d/%d", opt->shard, opt->shards);
        if (strcmp(shard, want) != 0) {
            snprintf(err, AR_ERR_LEN, "%s: holds %s%s, not %s%s; resume with the same --shard", partial,
                     shard[0] ? "shard " : "an unsharded run", shard, want[0] ? "shard " : "an unsharded run", want);
            ar_store_close(store);
            return NULL;
        }
        /* the theory/ datasets' attributes stay in the finished file: forged, they would
         * put another statement under its data */
        if (ar_store_check_streams(store, partial, "resuming", err) < 0 || ar_judge_check_theory(store, err) != 0) {
            ar_store_close(store);
            return NULL;
        }
        if (ar_store_spec(store)->hash != spec->hash) {
            snprintf(err, AR_ERR_LEN,
                     "%s: written by a different spec (hash %016llx, this one %016llx); refusing to mix "
                     "results: resume with the original spec and --set values, or start over with --force",
                     partial, (unsigned long long)ar_store_spec(store)->hash, (unsigned long long)spec->hash);
            ar_store_close(store);
            return NULL;
        }
        ar_store_close(store);
        *status = AR_ERR_IO;
        store = ar_store_open(partial, 1, err);
        ar_provenance how;
        ar_provenance_of_process(&how);
        if (store && ar_store_note_resumed_provenance(store, &how, err) < 0) {
            ar_store_close(store);
            return NULL;
        }
        return store;
    }
    /* a merge's own partial that a kill left: cleared, with or without --force; another
     * command's is its progress, kept, --force included (merge.c) */
    if (opt->no_resume && file_exists(partial) && ar_session_clear_stale_partial(partial, opt->force, err) < 0)
        return NULL;
    if (file_exists(opt->output) && !opt->force) {
        snprintf(err, AR_ERR_LEN, "%s: exists; choose another -o or replace it with --force", opt->output);
        return NULL;
    }
    if (file_exists(partial) && !opt->force) {
        snprintf(err, AR_ERR_LEN, "%s: an interrupted run is there; continue it with --resume or start over "
                 "with --force", partial);
        return NULL;
    }
    /* Build the layout under a temporary name: PATH.partial always has all of it. */
    char *tmp;
    if (asprintf(&tmp, "%s.tmp", partial) < 0)
        return NULL;
    unlink(tmp);
    ar_provenance how;
    ar_provenance_of_process(&how);
    ar_store *store = ar_store_create(tmp, spec, opt->command_line, &how, opt->shards > 1, err);
    *status = AR_ERR_IO;
    if (store && opt->shards > 1) {
        char shard[64];
        snprintf(shard, sizeof shard, "%d/%d", opt->shard, opt->shards);
        if (ar_store_set_attribute(store, "shard", shard, err) < 0) {
            ar_store_close(store);
            unlink(tmp);
            free(tmp);
            return NULL;
        }
    }
    if (store && ar_store_close(store) == 0 && rename(tmp, partial) == 0) {
        free(tmp);
        return ar_store_open_created(partial, err);
    }
    if (store)
        snprintf(err, AR_ERR_LEN, "%s: cannot create: %s", partial, strerror(errno));
    unlink(tmp);
    free(tmp);
    return NULL;
}

/* The lock comes first: the checks of what is there and every file made beside the
 * output belong to the one writer that holds it. */
ar_store *ar_session_start_store(const ar_spec *spec, const ar_run_options *opt, const char *partial,
                                ar_output_lock **lock, char *err, ar_status *status)
{
    *status = AR_ERR_INPUT;
    *lock = ar_output_lock_take(opt->output, err);
    if (!*lock)
        return NULL;
    ar_store *store = open_or_create(spec, opt, partial, err, status);
    if (!store) {
        ar_output_lock_release(*lock);
        *lock = NULL;
    }
    return store;
}

int ar_session_owns(const ar_run_options *opt, long points, long global)
{
    return opt->shards <= 1 || ar_shard_owner(global, points, opt->shards) == opt->shard;
}

/* Progress counts work (trials x cost), so the time left is right for mixed grids. */
void ar_session_start_progress(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                              ar_progress *progress)
{
    double total_work = 0, done_work = 0;
    long total_points = 0, done_points = 0;
    for (int e = 0; e < plan->spec->n_experiments; ++e) {
        long first = plan->experiments[e].first;
        for (long p = 0; p < plan->spec->experiments[e].n_points; ++p) {
            if (!ar_session_owns(opt, plan->points, first + p))
                continue;
            total_work += plan->work[first + p];
            total_points++;
            if (ar_store_done(store, e, p))
                done_work += plan->work[first + p], done_points++;
        }
    }
    ar_progress_start(progress, opt->quiet, total_points, done_points, total_work, done_work);
}

ar_status ar_session_finish(const ar_run_plan *plan, const ar_run_options *opt, ar_store *store,
                           ar_output_lock *lock, const char *partial, ar_status status, ar_verdict_row **rows_out,
                           int *n_rows, char *err)
{
    const ar_spec *spec = plan->spec;
    const char *signal_name = ar_stop_signal_name();
    if (status == AR_OK && ar_stop_signal && opt->no_resume) {
        snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; nothing written: run it again", opt->output, signal_name);
        status = AR_ERR_INTERRUPTED;
    } else if (status == AR_OK && ar_stop_signal) {
        if (ar_store_commit(store, err) < 0) { /* what the count below says is saved must be */
            ar_store_close(store);
            ar_output_lock_release(lock);
            return AR_ERR_IO;
        }
        long saved = 0, all = 0;
        for (int e = 0; e < spec->n_experiments; ++e)
            for (long p = 0; p < spec->experiments[e].n_points; ++p)
                if (ar_session_owns(opt, plan->points, plan->experiments[e].first + p))
                    saved += ar_store_done(store, e, p), all++;
        snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; %ld of %ld points saved; continue with --resume",
                 partial, signal_name, saved, all);
        status = AR_ERR_INTERRUPTED;
    }
    if (status == AR_OK && opt->shards <= 1) { /* a shard has no verdicts: its merge will */
        *n_rows = ar_store_verdict_count(spec);
        *rows_out = calloc((size_t)(*n_rows ? *n_rows : 1), sizeof **rows_out);
        /* the verdicts read what the file holds: the points still in the slab first */
        if (!*rows_out || ar_store_commit(store, err) < 0 ||
            ar_judge_verdicts(store, ar_store_spec(store), *rows_out, err) < 0 ||
            ar_store_write_verdicts(store, *rows_out, *n_rows, err) < 0)
            status = AR_ERR_IO;
    }
    if (ar_store_close(store) < 0 && status == AR_OK) {
        snprintf(err, AR_ERR_LEN, "%s: cannot close the HDF5 file (disk full?)", partial);
        status = AR_ERR_IO;
    }
    if (status == AR_OK && rename(partial, opt->output) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: cannot rename to %s: %s", partial, opt->output, strerror(errno));
        status = AR_ERR_IO;
    }
    if (status != AR_OK && opt->no_resume)
        unlink(partial);
    ar_output_lock_release(lock); /* after the rename: the lock covers the name the run ends at */
    if (status != AR_OK) {
        free(*rows_out);
        *rows_out = NULL;
        *n_rows = 0;
    }
    return status;
}
