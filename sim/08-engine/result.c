/* result: a finished (or interrupted) result file opened for reading, as every reader
 * of one needs it (info, judge, mutants, report, merge's shards): opened and checked by the store, its
 * verdicts re-judged from its data once, and what differs from what it stores marked. */
#define _GNU_SOURCE
#include "attnrank/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a result holds once the store is open: the ledger's counts, then (unless a
 * whole file is asked for and this one is not) the stored rows and the re-judged ones. */
static int judge_result(const char *path, int flags, ar_result *r, char *err)
{
    const ar_spec *spec = r->spec;
    r->done = calloc((size_t)spec->n_experiments + 1, sizeof *r->done);
    if (!r->done)
        return snprintf(err, AR_ERR_LEN, "%s: out of memory", path), -1;
    r->complete = 1, r->first_incomplete = -1;
    for (int e = 0; e < spec->n_experiments; ++e) {
        r->done[e] = ar_store_done_count(r->store, e);
        if (r->done[e] < spec->experiments[e].n_points && r->first_incomplete < 0)
            r->first_incomplete = e, r->complete = 0;
    }
    if ((flags & AR_RESULT_WHOLE) && !r->complete)
        return 0; /* the caller refuses it in its own words */
    r->n_rows = ar_store_verdict_count(spec);
    size_t count = (size_t)(r->n_rows ? r->n_rows : 1);
    if ((flags & AR_RESULT_STORED) && ar_store_read_verdicts(r->store, &r->stored, &r->n_rows, err) < 0)
        return -1;
    if (!(r->rows = calloc(count, sizeof *r->rows)) || !(r->marks = calloc(count, 1)) ||
        !(r->unlisted = calloc((size_t)spec->n_experiments + 1, 1)))
        return snprintf(err, AR_ERR_LEN, "%s: out of memory", path), -1;
    if (r->stored)
        memcpy(r->rows, r->stored, (size_t)r->n_rows * sizeof *r->rows);
    r->damaged = ar_judge_check_verdicts(r->store, r->rows, r->marks, r->unlisted, r->damage);
    if (r->damaged < 0)
        return snprintf(err, AR_ERR_LEN, "%s", r->damage), -1;
    return 0;
}

int ar_result_open(const char *path, int flags, ar_result *r, char *err)
{
    memset(r, 0, sizeof *r);
    if (!(r->store = ar_store_open(path, AR_STORE_READ, err)))
        return -1;
    r->spec = ar_store_spec(r->store);
    return judge_result(path, flags, r, err);
}

void ar_result_close(ar_result *r)
{
    free(r->done), free(r->stored), free(r->rows), free(r->marks), free(r->unlisted);
    if (r->store)
        ar_store_close(r->store);
    memset(r, 0, sizeof *r);
}
