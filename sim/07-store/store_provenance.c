/* store_provenance: the root attributes that say how a file was made and computed; the
 * engine hands the store how this process computes (ar_provenance), the store asks no
 * one. */
#define _GNU_SOURCE
#include "store_parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_version.h>

#include "attnrank/rng.h"
#include "attnrank_config.h"
#include "attnrank/revision.h"

/* The root attributes, read as text and set (store.h): the provenance's own reads and
 * writes, and the store's and engine's. */
char *ar_store_attribute(ar_store *store, const char *name)
{
    char *text = NULL;
    int st = store_read_attr_string(store->file, name, &text);
    if (st == ATTR_OK || st == ATTR_NO_MEMORY)
        return text;
    /* a number (the seed) as its decimal text */
    unsigned long long value;
    int is_unsigned = 0;
    if (store_read_attr_integer(store->file, name, H5T_NATIVE_ULLONG, &value, &is_unsigned) == ATTR_OK) {
        if (is_unsigned || store_read_attr_integer(store->file, name, H5T_NATIVE_LLONG, &value, NULL) != ATTR_OK)
            return asprintf(&text, "%llu", value) < 0 ? NULL : text;
        return asprintf(&text, "%lld", (long long)value) < 0 ? NULL : text;
    }
    return strdup("");
}

int ar_store_set_attribute(ar_store *store, const char *name, const char *value, char *err)
{
    if (H5Aexists(store->file, name) > 0)
        H5Adelete(store->file, name);
    if (store_attr_string(store->file, name, value) < 0 || H5Fflush(store->file, H5F_SCOPE_GLOBAL) < 0)
        return store_fail(err, store->path, "cannot write attribute %s", name);
    return 0;
}

int store_write_provenance(hid_t file, const ar_spec *spec, const char *command_line, const ar_provenance *how)
{
    char created[64], hash[32], hdf5[32], host[256] = "unknown";
    time_t now = time(NULL);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)spec->hash);
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
    gethostname(host, sizeof host - 1);
    int format = FORMAT_VERSION;
    unsigned long long seed = spec->seed;
    if (store_attr_string(file, "attnrank_version", ATTNRANK_VERSION) < 0 ||
        store_attr_number(file, "format_version", H5T_NATIVE_INT, &format) < 0 ||
        store_attr_string(file, "git_revision", ar_git_revision) < 0 ||
        store_attr_string(file, "created", created) < 0 || store_attr_string(file, "command_line", command_line) < 0 ||
        store_attr_string(file, "host", host) < 0 || store_attr_string(file, "spec_source", spec->source) < 0 ||
        store_attr_string(file, "spec", spec->source_text) < 0 ||
        store_attr_string(file, "spec_canonical", spec->canonical) < 0 || store_attr_string(file, "spec_hash", hash) < 0 ||
        store_attr_number(file, "seed", H5T_NATIVE_ULLONG, &seed) < 0 ||
        store_attr_string(file, "title", spec->title ? spec->title : "") < 0 ||
        store_attr_string(file, "rng", AR_RNG_STREAMS) < 0 ||
        store_attr_string(file, "gsl_version", GSL_VERSION) < 0 || store_attr_string(file, "hdf5_version", hdf5) < 0 ||
        store_attr_string(file, "openblas_config", how->openblas_config) < 0 ||
        store_attr_string(file, "openblas_core", how->openblas_core) < 0 ||
        store_attr_string(file, "openblas_core_origin", how->openblas_core_origin) < 0 ||
        store_attr_string(file, "kernels", how->kernels) < 0 ||
        store_attr_string(file, "compiler", __VERSION__) < 0)
        return -1;
    return 0;
}

/* The attributes that say how a file's floating-point results were computed. */
static const char *const COMPUTED_BY[] = {"openblas_core", "openblas_core_origin", "kernels"};
enum { N_COMPUTED_BY = sizeof COMPUTED_BY / sizeof *COMPUTED_BY };

int ar_store_join_provenance(ar_store *dst, ar_store *const *srcs, const char *const *labels, int n, char *err)
{
    for (int k = 0; k < N_COMPUTED_BY; ++k) {
        char *first = ar_store_attribute(srcs[0], COMPUTED_BY[k]), *joined = NULL;
        int same = first != NULL;
        for (int i = 1; same && i < n; ++i) {
            char *v = ar_store_attribute(srcs[i], COMPUTED_BY[k]);
            same = v && strcmp(v, first) == 0;
            free(v);
        }
        size_t size = 0;
        FILE *out = same ? NULL : open_memstream(&joined, &size);
        for (int i = 0; out && i < n; ++i) {
            char *v = ar_store_attribute(srcs[i], COMPUTED_BY[k]);
            fprintf(out, "%s%s: %s", i ? "; " : "mixed: ", labels[i], v ? v : "?");
            free(v);
        }
        if (out)
            fclose(out);
        int st = first && (same || joined) ? ar_store_set_attribute(dst, COMPUTED_BY[k], same ? first : joined, err)
                                           : store_fail(err, dst->path, "out of memory");
        free(first);
        free(joined);
        if (st < 0)
            return -1;
    }
    return 0;
}

int ar_store_note_resumed_provenance(ar_store *store, const ar_provenance *how, char *err)
{
    for (int k = 0; k < N_COMPUTED_BY; ++k) {
        char *stored = ar_store_attribute(store, COMPUTED_BY[k]), *text = NULL;
        const char *now = k == 0 ? how->openblas_core : k == 1 ? how->openblas_core_origin : how->kernels;
        int st = 0;
        if (!stored)
            st = store_fail(err, store->path, "out of memory");
        else if (strcmp(stored, now) != 0 && strstr(stored, now) == NULL)
            st = asprintf(&text, "%s; resumed with %s", stored, now) < 0
                     ? store_fail(err, store->path, "out of memory")
                     : ar_store_set_attribute(store, COMPUTED_BY[k], text, err);
        free(stored);
        free(text);
        if (st < 0)
            return -1;
    }
    return 0;
}
