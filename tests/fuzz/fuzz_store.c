/* libFuzzer target: attnrank's reading of a result file whose contents it did not
 * write. A valid, complete file is made once; each input edits a copy of it through
 * HDF5's own API, in one of two ways (the first byte's top bit):
 *  - its canonical spec text (what info, merge, report and --resume rebuild the layout
 *    from), format version and spec hash;
 *  - its layout: a few edits, each deleting a dataset, replacing one by one of another
 *    rank, dimensions or type (transposed, grown, shrunk, a scalar, float32, int8, text,
 *    a table), rewriting a root attribute as another type or value (an array, a number
 *    for text, text for a number, a shard that is not I/N) or the done ledger's values.
 * Then the file is read as info, report, merge and --resume read it: opened, every
 * attribute, verdict, summary and prediction read, merged alone into a new file, and
 * reopened for writing to store one point. A damaged file must be refused in one line,
 * never read past what it holds. (HDF5's binary format itself is not fuzzed here: raw
 * byte mutations crash inside libhdf5 1.10, see docs/development.md ("How it is tested against misuse") and tests/fuzz/raw_bytes.py.) */
#define _GNU_SOURCE
#include "attnrank/builtin_families.h"
#include "attnrank/engine.h"
#include "attnrank/spec.h"
#include "attnrank/store.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pristine[64], path[64], merged[64];
static const char *const SEED_SPEC =
    "seed = 1; experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 4; n = [4, 8]; d_h = 2; },"
    " { name = \"m\"; simulator = \"mask_dynamics\"; trials = 2; n = 4; d = 2; layers = 3; mask = [\"causal\"]; } );";

/* Every dataset of the pristine file, found once, for the layout edits to pick from. */
static char *datasets[256];
static int n_datasets;
static const char *const ROOT_ATTRIBUTES[] = {"format_version", "spec_canonical", "attnrank_version", "shard",
                                              "title", "seed", "spec_hash", "command_line"};
enum { N_ROOT_ATTRIBUTES = sizeof ROOT_ATTRIBUTES / sizeof *ROOT_ATTRIBUTES };

static herr_t collect(hid_t obj, const char *name, const H5O_info_t *info, void *data)
{
    (void)obj, (void)data;
    if (info->type == H5O_TYPE_DATASET && n_datasets < 256)
        datasets[n_datasets++] = strdup(name);
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char why[256];
    if (ar_builtin_families_register(why, sizeof why) != 0)
        abort();
    snprintf(pristine, sizeof pristine, "/tmp/attnrank-fuzz-seed-%d.h5", (int)getpid());
    snprintf(path, sizeof path, "/tmp/attnrank-fuzz-%d.h5", (int)getpid());
    snprintf(merged, sizeof merged, "/tmp/attnrank-fuzz-merged-%d.h5", (int)getpid());
    ar_spec spec;
    char err[AR_ERR_LEN];
    unlink(pristine);
    if (ar_spec_load_text(SEED_SPEC, "seed", NULL, NULL, 0, &spec, err) != 0)
        abort();
    ar_run_options opt = {.output = pristine, .command_line = "fuzz", .threads = 1, .quiet = 1};
    ar_verdict_row *rows = NULL;
    int n_rows;
    if (ar_run_spec(&spec, &opt, &rows, &n_rows, err) != AR_OK)
        abort();
    free(rows);
    ar_spec_free(&spec);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(pristine, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0 || H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, collect, NULL) < 0 || n_datasets == 0)
        abort();
    H5Fclose(file);
    return 0;
}

static void set_string(hid_t obj, const char *name, const char *value, int fixed)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, fixed ? strlen(value) + 1 : H5T_VARIABLE);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, fixed ? (const void *)value : (const void *)&value);
    H5Aclose(attr), H5Sclose(space), H5Tclose(type);
}

static void set_numbers(hid_t obj, const char *name, hid_t type, int count, const void *values)
{
    if (H5Aexists(obj, name) > 0)
        H5Adelete(obj, name);
    hsize_t n = (hsize_t)count;
    hid_t space = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, values);
    H5Aclose(attr), H5Sclose(space);
}

/* The spec edit: the first four bytes choose the format version and whether the hash
 * is recomputed, the rest is the stored spec text. */
static void edit_spec(hid_t file, const uint8_t *data, size_t size)
{
    char *text = malloc(size - 4 + 1);
    memcpy(text, data + 4, size - 4);
    text[size - 4] = '\0';
    set_string(file, "spec_canonical", text, 0);
    int version = data[0] % 4; /* the real one, and others */
    set_numbers(file, "format_version", H5T_NATIVE_INT, 1, &version);
    if (data[1] & 1) { /* the hash of what was written, or a stale one */
        ar_spec spec;
        char err[AR_ERR_LEN], hash[32];
        if (ar_spec_load_text(text, "fuzz", NULL, NULL, 0, &spec, err) == 0) {
            snprintf(hash, sizeof hash, "%016llx", (unsigned long long)spec.hash);
            set_string(file, "spec_hash", hash, 0);
            ar_spec_free(&spec);
        }
    }
    free(text);
}

/* A type a dataset could lie with. */
static hid_t lying_type(int which)
{
    static const int n = 11;
    hid_t t;
    switch (which % n) {
    case 0: return H5Tcopy(H5T_IEEE_F64LE);
    case 1: return H5Tcopy(H5T_IEEE_F32LE);
    case 2: return H5Tcopy(H5T_STD_I8LE);
    case 3: return H5Tcopy(H5T_STD_U8LE);
    case 4: return H5Tcopy(H5T_STD_I64LE);
    case 5: return H5Tcopy(H5T_STD_U64BE);
    case 6: return H5Tcopy(H5T_IEEE_F64BE);
    case 7: t = H5Tcopy(H5T_C_S1), H5Tset_size(t, 8); return t;
    case 8: t = H5Tcopy(H5T_C_S1), H5Tset_size(t, H5T_VARIABLE); return t;
    case 9: t = H5Tcreate(H5T_COMPOUND, 16), H5Tinsert(t, "claim", 0, H5T_NATIVE_DOUBLE);
            H5Tinsert(t, "verdict", 8, H5T_NATIVE_DOUBLE); return t;
    default: return H5Tcopy(H5T_STD_I32LE);
    }
}

/* Replace a dataset by one of another shape (same, transposed, one dimension grown or
 * shrunk, or a small one of any rank) and type; its values are the type's zero. */
static void replace_dataset(hid_t file, const char *name, uint8_t a, uint8_t b)
{
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0)
        return;
    hid_t space = H5Dget_space(ds);
    hsize_t dims[8] = {0};
    int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0 || rank > 8)
        rank = 0;
    else
        H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    H5Dclose(ds);
    switch (a % 4) {
    case 0: break;
    case 1:
        for (int i = 0; i < rank / 2; ++i) {
            hsize_t t = dims[i];
            dims[i] = dims[rank - 1 - i], dims[rank - 1 - i] = t;
        }
        break;
    case 2:
        if (rank) {
            int d = (b >> 4) % rank, change = (a >> 2) % 7 - 3;
            dims[d] = (hsize_t)((long long)dims[d] + change > 0 ? (long long)dims[d] + change : 1);
        }
        break;
    default:
        rank = (b >> 4) % 4;
        for (int i = 0; i < rank; ++i)
            dims[i] = 1 + ((a >> (2 + 2 * i)) & 7);
    }
    H5Ldelete(file, name, H5P_DEFAULT);
    hid_t type = lying_type(b & 15);
    space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (ds >= 0)
        H5Dclose(ds);
    H5Sclose(space), H5Tclose(type);
}

static void edit_attribute(hid_t file, uint8_t which, uint8_t a, uint8_t b, const char *text)
{
    const char *name = ROOT_ATTRIBUTES[which % N_ROOT_ATTRIBUTES];
    long long numbers[8] = {a, (signed char)b, 1, 2, 3, 4, 5, 6};
    double real = (double)(signed char)a * 1e3;
    switch (b % 7) {
    case 0: set_numbers(file, name, H5T_NATIVE_LLONG, 1, numbers); break;
    case 1: set_numbers(file, name, H5T_NATIVE_LLONG, 2 + a % 6, numbers); break;
    case 2: set_string(file, name, text, 0); break;
    case 3: set_string(file, name, text, 1); break;
    case 4: set_numbers(file, name, H5T_NATIVE_DOUBLE, 1, &real); break;
    case 5: H5Adelete(file, name); break;
    default: {
        const char *two[2] = {text, "2/3"};
        if (H5Aexists(file, name) > 0)
            H5Adelete(file, name);
        hsize_t n = 2;
        hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &n, NULL);
        H5Tset_size(type, H5T_VARIABLE);
        hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(attr, type, two);
        H5Aclose(attr), H5Sclose(space), H5Tclose(type);
    }
    }
}

/* The done ledger's values, from the input (0, 1, or anything else), as far as the
 * dataset's own size allows. */
static void edit_done(hid_t file, uint8_t which, const uint8_t *values, size_t n_values)
{
    const char *names[2] = {"e/done", "m/done"};
    hid_t ds = H5Dopen2(file, names[which % 2], H5P_DEFAULT);
    if (ds < 0)
        return;
    hid_t space = H5Dget_space(ds);
    hssize_t count = H5Sget_simple_extent_npoints(space);
    H5Sclose(space);
    if (count > 0 && count <= 64) {
        unsigned char buf[64] = {0};
        for (hssize_t i = 0; i < count; ++i)
            buf[i] = n_values ? values[(size_t)i % n_values] % 3 : 0;
        H5Dwrite(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    }
    H5Dclose(ds);
}

/* The layout edits: data[1] % 8 + 1 edits of four bytes (kind, target, a, b); what
 * follows is the text of attribute edits. */
static void edit_layout(hid_t file, const uint8_t *data, size_t size)
{
    size_t n_edits = (size_t)data[1] % 8 + 1, used = 2 + 4 * n_edits;
    if (used > size)
        n_edits = (size - 2) / 4, used = 2 + 4 * n_edits;
    size_t n_text = size - used;
    char *text = malloc(n_text + 1);
    memcpy(text, data + used, n_text);
    text[n_text] = '\0';
    for (size_t k = 0; k < n_edits; ++k) {
        const uint8_t *op = data + 2 + 4 * k;
        const char *name = datasets[op[1] % n_datasets];
        switch (op[0] % 4) {
        case 0: H5Ldelete(file, name, H5P_DEFAULT); break;
        case 1: replace_dataset(file, name, op[2], op[3]); break;
        case 2: edit_attribute(file, op[1], op[2], op[3], text); break;
        default: edit_done(file, op[1], data + used, n_text);
        }
    }
    free(text);
}

/* What info, report and merge read, then what --resume writes. */
static void read_everything(void)
{
    char err[AR_ERR_LEN];
    ar_store *store = ar_store_open(path, 0, err);
    if (!store) {
        if (strchr(err, '\n'))
            abort(); /* refusals are one line */
        return;
    }
    const ar_spec *spec = ar_store_spec(store);
    for (int i = 0; i < N_ROOT_ATTRIBUTES; ++i)
        free(ar_store_attribute(store, ROOT_ATTRIBUTES[i]));
    int index, count;
    ar_store_shard(store, &index, &count, err);
    ar_verdict_row *rows;
    int n;
    if (ar_store_read_verdicts(store, &rows, &n, err) == 0)
        free(rows);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        ar_summary *s = calloc((size_t)x->n_points, sizeof *s);
        double *theory = calloc((size_t)x->n_points, sizeof *theory);
        ar_store_done_count(store, e);
        for (int o = 0; s && o < x->sim->n_outputs; ++o)
            if (ar_store_read_summaries(store, e, o, -1, s, err) < 0 || ar_store_read_summaries(store, e, o, 0, s, err))
                break;
        for (int k = 0; theory && k < x->n_claims; ++k)
            ar_store_read_theory(store, e, x->claims[k], theory, err);
        free(s);
        free(theory);
    }
    ar_store_close(store);
    const char *const shards[1] = {path};
    rows = NULL;
    unlink(merged);
    if (ar_merge_shards(merged, shards, 1, "fuzz", 1, NULL, &rows, &n, err) == AR_OK)
        free(rows);
    else if (strchr(err, '\n'))
        abort();
    unlink(merged);
    /* --resume: reopened for writing, the first point not done is written */
    store = ar_store_open(path, 1, err);
    if (!store)
        return;
    spec = ar_store_spec(store);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        for (long p = 0; p < x->n_points; ++p) {
            if (ar_store_done(store, e, p))
                continue;
            ar_point pt;
            ar_experiment_point(x, p, &pt);
            int values = 0;
            for (int o = 0; o < x->sim->n_outputs; ++o)
                values += ar_output_length(&x->sim->outputs[o], &pt);
            ar_summary *sums = calloc((size_t)values, sizeof *sums);
            long *hists[AR_MAX_OUTPUTS] = {0};
            for (int o = 0; o < x->sim->n_outputs; ++o)
                if (x->sim->outputs[o].hist_max)
                    hists[o] = calloc((size_t)x->sim->outputs[o].hist_max(&pt) + 1, sizeof **hists);
            if (sums)
                ar_store_write_point(store, e, p, sums, hists, err);
            free(sums);
            for (int o = 0; o < x->sim->n_outputs; ++o)
                free(hists[o]);
            break;
        }
    }
    ar_store_close(store);
}

/* The pristine file copied to path, byte for byte (no shell: the program starts none). */
static int copy_pristine(void)
{
    FILE *in = fopen(pristine, "rb"), *out = fopen(path, "wb");
    char buf[1 << 16];
    size_t n;
    int ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4 || copy_pristine() < 0)
        return 0;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file >= 0) {
        if (data[0] & 0x80)
            edit_layout(file, data, size);
        else
            edit_spec(file, data, size);
        H5Fclose(file);
    }
    read_everything();
    unlink(path);
    return 0;
}
