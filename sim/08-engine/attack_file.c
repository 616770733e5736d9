/* attack_file: an attack file read back as judge, info and report show it: every row
 * and counter checked by the store, each verdict re-derived from the stored
 * confirmations and compared with the stored one (engine.h). */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attnrank/store.h"

ar_status ar_attack_file_load(const char *path, ar_attack_file *f, char *err)
{
    ar_verdict *stored = NULL;
    int done = 0;
    ar_status status = AR_OK;
    memset(f, 0, sizeof *f);
    if (ar_store_read_attacks(path, &f->spec, &f->records, &stored, &done, &f->copy, err) != 0) {
        status = strstr(err, "out of memory") ? AR_ERR_IO : AR_ERR_INPUT;
    } else if (done < f->spec.n_attacks) {
        snprintf(err, AR_ERR_LEN, "%.400s: incomplete: it holds %d of its spec's %d attacks (an interrupted run's; "
                 "attack --resume finishes it)", path, done, f->spec.n_attacks);
        status = AR_ERR_INPUT;
    } else if (!(f->judgements = calloc((size_t)f->spec.n_attacks, sizeof *f->judgements)) ||
               !(f->deciding = calloc((size_t)f->spec.n_attacks, sizeof *f->deciding))) {
        snprintf(err, AR_ERR_LEN, "%.400s: out of memory", path);
        status = AR_ERR_IO;
    }
    for (int k = 0; status == AR_OK && k < f->spec.n_attacks; ++k) {
        ar_judgement *j = &f->judgements[k];
        if (ar_attack_judge(&f->spec, &f->spec.attacks[k], &f->records[k], j, &f->deciding[k]) != 0) {
            snprintf(err, AR_ERR_LEN, "%.400s: out of memory", path);
            status = AR_ERR_IO;
        } else if (j->verdict != stored[k]) {
            snprintf(err, AR_ERR_LEN, "%.400s: damaged: attack %s's stored verdict is %s, its stored confirmations "
                     "give %s", path, f->spec.attacks[k].id, ar_verdict_name(stored[k]), ar_verdict_name(j->verdict));
            status = AR_ERR_INPUT;
        }
    }
    free(stored);
    return status;
}

void ar_attack_file_free(ar_attack_file *f)
{
    for (int k = 0; f->records && k < f->spec.n_attacks; ++k)
        free(f->records[k].evaluations), free(f->records[k].confirmations);
    free(f->records);
    free(f->judgements);
    free(f->deciding);
    if (f->copy > 0)
        close(f->copy);
    ar_spec_free(&f->spec);
    memset(f, 0, sizeof *f);
}

