/* libFuzzer target: attnrank's reading of a result file whose contents it did not
 * write. A valid file is made once; each input becomes its canonical spec text (what
 * info, merge, report and --resume rebuild the layout from) and its format version and
 * spec hash, written with HDF5's own API; then the file is opened as info does and every
 * output's summaries are read. A wrong spec must be refused in one line, never read
 * past the datasets it does not match. (HDF5's binary format is not fuzzed here: raw
 * byte mutations crash inside libhdf5 1.10 itself, see README.) */
#include "attnrank/spec.h"
#include "attnrank/store.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pristine[64], path[64];
static const char *const SEED_SPEC =
    "seed = 1; experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 4; n = [4, 8]; d_h = 2; },"
    " { name = \"m\"; simulator = \"mask_dynamics\"; trials = 2; n = 4; d = 2; layers = 3; mask = [\"causal\"]; } );";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(pristine, sizeof pristine, "/tmp/attnrank-fuzz-seed-%d.h5", (int)getpid());
    snprintf(path, sizeof path, "/tmp/attnrank-fuzz-%d.h5", (int)getpid());
    ar_spec spec;
    char err[AR_ERR_LEN];
    unlink(pristine);
    if (ar_spec_load_text(SEED_SPEC, "seed", NULL, NULL, 0, &spec, err) != 0)
        abort();
    ar_store *store = ar_store_create(pristine, &spec, "fuzz", err);
    if (!store)
        abort();
    ar_store_close(store);
    ar_spec_free(&spec);
    return 0;
}

static void set_string(hid_t file, const char *name, const char *value)
{
    if (H5Aexists(file, name) > 0)
        H5Adelete(file, name);
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, H5T_VARIABLE);
    hid_t attr = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, type, &value);
    H5Aclose(attr), H5Sclose(space), H5Tclose(type);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    char copy[128];
    snprintf(copy, sizeof copy, "cp %s %s", pristine, path);
    if (system(copy) != 0)
        return 0;
    char *text = malloc(size - 4 + 1);
    memcpy(text, data + 4, size - 4);
    text[size - 4] = '\0';
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (file >= 0) {
        set_string(file, "spec_canonical", text);
        int version = data[0] % 4; /* the real one is 1: also 0, 2, 3 */
        hid_t space = H5Screate(H5S_SCALAR);
        if (H5Aexists(file, "format_version") > 0)
            H5Adelete(file, "format_version");
        hid_t attr = H5Acreate2(file, "format_version", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(attr, H5T_NATIVE_INT, &version);
        H5Aclose(attr), H5Sclose(space);
        if (data[1] & 1) { /* the hash of what was written, or a stale one */
            ar_spec spec;
            char err[AR_ERR_LEN], hash[32];
            if (ar_spec_load_text(text, "fuzz", NULL, NULL, 0, &spec, err) == 0) {
                snprintf(hash, sizeof hash, "%016llx", (unsigned long long)spec.hash);
                set_string(file, "spec_hash", hash);
                ar_spec_free(&spec);
            }
        }
        H5Fclose(file);
    }
    free(text);
    char err[AR_ERR_LEN];
    ar_store *store = ar_store_open(path, 0, err);
    if (store) {
        const ar_spec *spec = ar_store_spec(store);
        ar_verdict_row *rows;
        int n;
        if (ar_store_read_verdicts(store, &rows, &n, err) == 0)
            free(rows);
        for (int e = 0; e < spec->n_experiments; ++e) {
            const ar_experiment *x = &spec->experiments[e];
            ar_summary *s = calloc((size_t)x->n_points, sizeof *s);
            for (int o = 0; s && o < x->sim->n_outputs; ++o)
                if (ar_store_read_summaries(store, e, o, -1, s, err) < 0)
                    break;
            free(s);
        }
        ar_store_close(store);
    } else if (strchr(err, '\n')) {
        abort(); /* refusals are one line */
    }
    unlink(path);
    return 0;
}
