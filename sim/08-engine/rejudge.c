/* rejudge: `attnrank judge` without the command line: a finished file judged again,
 * with conjectures joined to its spec, and the copy (a merge of one). */
#define _GNU_SOURCE
#include "attnrank/engine.h"
#include "attnrank/output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What needs the open file (ar_result_open's, the whole file asked for): its checks,
 * the spec with the conjectures, the verdicts, the mutants and the notes. */
static ar_status judge_result(const ar_judge_request *req, const ar_result *result, ar_file_judgement *out,
                              char *err)
{
    const char *path = req->path;
    ar_store *store = result->store;
    /* Every point must be in: judging a part would judge another grid. */
    if (!result->complete) {
        const ar_experiment *x = &result->spec->experiments[result->first_incomplete];
        snprintf(err, AR_ERR_LEN, "%s: incomplete run (experiment %s has %ld of %ld points): judge needs every "
                 "point (finish it with --resume, or merge the shards)", path, x->name,
                 result->done[result->first_incomplete], x->n_points);
        return AR_ERR_INPUT;
    }
    /* A file whose stored verdicts or theory attnrank would not give (whatever revision it
     * names) was edited: judging it again (a copy with -o especially) would launder it. */
    if (result->damaged) {
        snprintf(err, AR_ERR_LEN, "%s", result->damage);
        return AR_ERR_INPUT;
    }
    /* A copy is written as this attnrank writes files, streams attribute included. */
    if (req->copy && ar_store_check_streams(store, path, "a copy", err) < 0) {
        size_t used = strlen(err);
        snprintf(err + used, AR_ERR_LEN - used, " (judge without -o prints its verdicts)");
        return AR_ERR_INPUT;
    }
    /* The file's spec, re-read so that conjectures can join it. */
    const ar_spec *stored = ar_store_spec(store);
    if (ar_spec_load_text(stored->canonical, path, NULL, NULL, 0, &out->spec, err) != 0 ||
        ar_spec_add_conjectures(&out->spec, path, req->conjecture_file, req->conjectures, req->n_conjectures,
                                err) != 0)
        return AR_ERR_INPUT;
    out->n_rows = ar_store_verdict_count(&out->spec);
    size_t rows = (size_t)(out->n_rows ? out->n_rows : 1);
    out->rows = calloc(rows, sizeof *out->rows);
    out->mutants = req->mutants ? calloc(rows, sizeof *out->mutants) : NULL;
    if (!out->rows || (req->mutants && !out->mutants)) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", path);
        return AR_ERR_IO;
    }
    if (ar_judge_verdicts(store, &out->spec, out->rows, err) < 0 ||
        (req->mutants && ar_judge_mutants(store, &out->spec, out->mutants, err) < 0))
        return AR_ERR_INPUT;
    /* theory that changed since the run was refused above as damage: nothing to note */
    if (!(out->notes = strdup(""))) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", path);
        return AR_ERR_IO;
    }
    return AR_OK;
}

ar_status ar_rejudge_file(const ar_judge_request *req, ar_file_judgement *out, char *err)
{
    memset(out, 0, sizeof *out);
    /* FILE is never modified: a COPY that is FILE (by that name, another or a link) was
     * replaced by the copy under --force. */
    if (req->copy && ar_output_same_file(req->path, req->copy)) {
        snprintf(err, AR_ERR_LEN, "%s: -o COPY is FILE itself (%s); judge never modifies FILE: name another COPY",
                 req->copy, req->path);
        return AR_ERR_INPUT;
    }
    ar_result result;
    ar_status status = ar_result_open(req->path, AR_RESULT_WHOLE, &result, err) < 0
                           ? AR_ERR_INPUT : judge_result(req, &result, out, err);
    ar_result_close(&result);
    if (status == AR_OK && req->copy) { /* the copy, made as a merge of one makes it */
        ar_verdict_row *copied;
        int n_copied;
        ar_install_signal_handlers();
        status = ar_merge_shards(req->copy, &req->path, 1, req->command_line, req->force, &out->spec, &copied,
                                 &n_copied, err);
        if (status == AR_OK)
            free(copied);
    }
    if (status != AR_OK)
        ar_file_judgement_free(out);
    return status;
}

void ar_file_judgement_free(ar_file_judgement *j)
{
    free(j->rows);
    free(j->mutants);
    free(j->notes);
    if (j->spec.experiments || j->spec.canonical)
        ar_spec_free(&j->spec);
    memset(j, 0, sizeof *j);
}
