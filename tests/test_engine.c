/* engine: results independent of thread count and of the grid around a point;
 * the direct sampler agrees in distribution with the faithful one. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "attnrank/engine.h"
#include "attnrank/format.h"
#include "attnrank/output.h"
#include "attnrank/plan.h"
#include "attnrank/stats.h"
#include "attnrank/store.h"
#include "attnrank/provenance.h"
#include "check.h"
#include "support.h"

#include <hdf5.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double *values_of(const ar_spec *spec, int e, long point, int threads)
{
    const ar_experiment *x = &spec->experiments[e];
    double *v = malloc((size_t)x->trials * ar_trials_values_per_trial(x, point) * sizeof *v);
    CHECK(ar_trials_point_values(spec, x, point, threads, v) == 0);
    return v;
}

static void threads_do_not_matter(void)
{
    ar_spec spec;
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"softmax_rank\"; trials = 301;"
         " n = 24; d_h = 6; tau = 0.3; } );", &spec);
    size_t bytes = 301 * 6 * sizeof(double);
    double *one = values_of(&spec, 0, 0, 1), *two = values_of(&spec, 0, 0, 2), *three = values_of(&spec, 0, 0, 3);
    CHECK(memcmp(one, two, bytes) == 0);
    CHECK(memcmp(one, three, bytes) == 0);
    free(one), free(two), free(three);
    ar_spec_free(&spec);
}

/* Vector outputs (one value per layer) are laid out output by output and are, too,
 * independent of the thread count. */
static void vector_outputs(void)
{
    ar_spec spec;
    load_spec("seed = 5; experiments = ( { name = \"d\"; simulator = \"depth_collapse\"; trials = 21;"
         " n = 12; layers = 4; } );", &spec);
    size_t per_trial = (size_t)ar_trials_values_per_trial(&spec.experiments[0], 0);
    /* five outputs at layers 0..4 (stable rank, |cosine|, norm, off-consensus, the Gram
     * stable rank), gradients for W_0..W_3 and their probe errors, the collapse factor,
     * the gap ratio, the vanished layers and attention's own collapse factor */
    CHECK(per_trial == 5 * 5 + 2 * 4 + 4);
    double *one = malloc(21 * per_trial * sizeof *one), *two = malloc(21 * per_trial * sizeof *two);
    CHECK(ar_trials_point_values(&spec, &spec.experiments[0], 0, 1, one) == 0);
    CHECK(ar_trials_point_values(&spec, &spec.experiments[0], 0, 2, two) == 0);
    CHECK(memcmp(one, two, 21 * per_trial * sizeof *one) == 0);
    /* Layer 0's mean |cosine| (value 5) is that of Gaussian tokens: < 1; by layer 4 they align. */
    CHECK(one[5 * 21] < 0.9 && one[9 * 21] > 0.99);
    free(one), free(two);
    ar_spec_free(&spec);

    /* Key-query attention A_l(X_l) aligns the tokens too; its gradient comes from probes. */
    load_spec("seed = 5; experiments = ( { name = \"k\"; simulator = \"depth_collapse\"; trials = 9;"
         " n = 12; layers = 4; attention = \"keyquery\"; scale = 0.5; } );", &spec);
    double *v = malloc(9 * (size_t)ar_trials_values_per_trial(&spec.experiments[0], 0) * sizeof *v);
    CHECK(ar_trials_point_values(&spec, &spec.experiments[0], 0, 2, v) == 0);
    CHECK(v[9 * 9] > 0.99); /* mean |cosine| at layer 4, first trial */
    CHECK(v[15 * 9] > 0 && v[19 * 9] > 0); /* grad_norm and its probe error, W_0, first trial */
    free(v);
    ar_spec_free(&spec);
}

static void points_are_keyed_by_values(void)
{
    ar_spec small, large;
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = [16]; d_h = 3; } );", &small);
    load_spec("seed = 5; experiments = ( { name = \"b\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = [8, 16, 32]; d_h = [3]; } );", &large);
    double *a = values_of(&small, 0, 0, 2), *b = values_of(&large, 0, 1, 2);
    CHECK(memcmp(a, b, 200 * 2 * sizeof(double)) == 0);
    free(a), free(b);
    ar_spec_free(&small);
    ar_spec_free(&large);
    /* Another seed gives other draws. */
    ar_spec other;
    load_spec("seed = 6; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = 16; d_h = 3; } );", &other);
    load_spec("seed = 5; experiments = ( { name = \"a\"; simulator = \"hardmax_rank\"; trials = 200;"
         " n = 16; d_h = 3; } );", &small);
    a = values_of(&other, 0, 0, 1);
    b = values_of(&small, 0, 0, 1);
    CHECK(memcmp(a, b, 200 * sizeof(double)) != 0);
    free(a), free(b);
    ar_spec_free(&small);
    ar_spec_free(&other);
}

/* Two-sample test of the direct (X W drawn as iid Gaussians) and faithful (QR, then
 * products) samplers: the mean ranks agree within 4 standard errors of their
 * difference, for each weight coupling, and the rank histograms pass a chi-square test. */
static void samplers_agree(void)
{
    const char *couplings[] = {"independent", "tied", "correlated"};
    for (int c = 0; c < 3; ++c) {
        char text[512];
        snprintf(text, sizeof text,
                 "seed = 8; experiments = ( { name = \"s\"; simulator = \"hardmax_rank\"; trials = 6000;"
                 " n = 12; d = 20; d_h = 3; weights = \"%s\"; rho = 0.7; sampler = (\"auto\", \"faithful\"); } );",
                 couplings[c]);
        ar_spec spec;
        load_spec(text, &spec);
        double *direct = values_of(&spec, 0, 0, 2), *faithful = values_of(&spec, 0, 1, 2);
        ar_summary a, b;
        ar_summarize(direct, 6000, &a);
        ar_summarize(faithful, 6000, &b);
        double se = sqrt(a.sem * a.sem + b.sem * b.sem);
        printf("%-11s direct %.4f faithful %.4f (se of difference %.4f)\n", couplings[c], a.mean, b.mean, se);
        CHECK(fabs(a.mean - b.mean) <= 4 * se);
        long ha[13], hb[13];
        ar_histogram(direct, 6000, 12, ha);
        ar_histogram(faithful, 6000, 12, hb);
        double chi2 = 0;
        int cells = 0;
        for (int v = 0; v <= 12; ++v) {
            if (ha[v] + hb[v] < 10)
                continue;
            double d = (double)ha[v] - hb[v];
            chi2 += d * d / (double)(ha[v] + hb[v]);
            cells++;
        }
        /* 99.9% quantile of chi-square with cells - 1 <= 12 degrees of freedom is <= 32.9. */
        printf("            chi-square %.2f over %d cells\n", chi2, cells);
        CHECK(chi2 < 32.9);
        free(direct), free(faithful);
        ar_spec_free(&spec);
    }
}

/* The names a writer makes beside its output: refused up front when they cannot exist. */
static void output_names(void)
{
    char err[AR_ERR_LEN], name[300];
    CHECK(ar_output_check_name("", ".partial.tmp", err) < 0);
    CHECK_CONTAINS(err, "empty");
    CHECK(ar_output_check_name("out/", ".partial.tmp", err) < 0);
    memset(name, 'a', 243), name[243] = '\0';
    CHECK(ar_output_check_name(name, ".partial.tmp", err) == 0); /* 255 with the suffix */
    strcat(name, "a");
    CHECK(ar_output_check_name(name, ".partial.tmp", err) < 0);
    CHECK_CONTAINS(err, "NAME_MAX");
    CHECK(ar_output_check_name(name, ".partial", err) == 0);
}

/* One holder at a time, another process is told who it is; the file goes with the
 * lock, and a stale one (its holder killed) is taken over. */
static void output_lock(void)
{
    char err[AR_ERR_LEN], path[64], lock_path[80];
    snprintf(path, sizeof path, "/tmp/attnrank_test_lock_%ld.h5", (long)getpid());
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    ar_output_lock *lock = ar_output_lock_take(path, err);
    CHECK(lock != NULL);
    /* POSIX locks are per process, and closing any descriptor of the file drops them:
     * only another process is refused, and it reads the holder's line */
    pid_t child = fork();
    if (child == 0) {
        char why[AR_ERR_LEN], want[64];
        snprintf(want, sizeof want, "PID %ld on host", (long)getppid());
        _exit(ar_output_lock_take(path, why) == NULL && strstr(why, want) ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ar_output_lock_release(lock);
    CHECK(access(lock_path, F_OK) != 0);
    FILE *f = fopen(lock_path, "w");
    if (f)
        fputs("999999 elsewhere\n", f), fclose(f);
    lock = ar_output_lock_take(path, err);
    CHECK(lock != NULL);
    ar_output_lock_release(lock);
    CHECK(access(lock_path, F_OK) != 0);
}

/* A shard's "I/N" (the --shard value and a file's shard attribute): digits only,
 * 0 <= I < N <= INT_MAX, nothing around them. */
static void shard_text(void)
{
    int i = -7, n = -7;
    CHECK(ar_shard_parse("2/3", &i, &n) == 0 && i == 2 && n == 3);
    CHECK(ar_shard_parse("0/2147483647", &i, &n) == 0 && n == 2147483647);
    static const char *const bad[] = {"0/-1", "-1/3", "5/3", "3/3", "1/3x", " 1/3", "1/3 ", "1/", "/3", "",
                                      "1/2147483648", "99999999999/3", "+1/3", "1//3", "1/3/4", "0/0"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        i = n = -7;
        CHECK(ar_shard_parse(bad[k], &i, &n) == -1 && i == -7 && n == -7);
    }
}

/* Sizes carry the unit that shows their digits (--max-memory 1 printed "0.00 GiB"). */
static void bytes_for_people(void)
{
    char buf[32];
    ar_format_bytes(1, buf, sizeof buf);
    CHECK(strcmp(buf, "1 B") == 0);
    ar_format_bytes(1023, buf, sizeof buf);
    CHECK(strcmp(buf, "1023 B") == 0);
    ar_format_bytes(1536, buf, sizeof buf);
    CHECK(strcmp(buf, "1.5 KiB") == 0);
    ar_format_bytes(1000 * 1024.0, buf, sizeof buf);
    CHECK(strcmp(buf, "1000 KiB") == 0);
    ar_format_bytes(3.25 * 1073741824.0, buf, sizeof buf);
    CHECK(strcmp(buf, "3.25 GiB") == 0);
}

/* OpenMP's variables as libgomp reads them, checked before a team is asked for:
 * malformed or too large ones are refused with their name, legal ones give the team. */
static void omp_environment(void)
{
    char err[AR_ERR_LEN];
    static const char *const bad[] = {"abc", "-1", "0", "", "3abc", "2,", ",2", "1,,2", "1,0"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        setenv("OMP_NUM_THREADS", bad[k], 1);
        err[0] = '\0';
        CHECK(ar_plan_team(0, err) == -1);
        CHECK_CONTAINS(err, "OMP_NUM_THREADS");
    }
    setenv("OMP_NUM_THREADS", "99999999999", 1); /* libgomp wraps it to 1215752191 */
    CHECK(ar_plan_team(0, err) == -1);
    CHECK_CONTAINS(err, "at most 4096");
    setenv("OMP_NUM_THREADS", " 3 , 1", 1);
    CHECK(ar_plan_team(0, err) == 3);
    CHECK(ar_plan_team(2, err) == 2); /* --threads wins */
    setenv("OMP_THREAD_LIMIT", "2", 1);
    CHECK(ar_plan_team(0, err) == 2);
    setenv("OMP_THREAD_LIMIT", "two", 1);
    CHECK(ar_plan_team(0, err) == -1);
    CHECK_CONTAINS(err, "OMP_THREAD_LIMIT");
    unsetenv("OMP_THREAD_LIMIT");
    setenv("OMP_STACKSIZE", "16M", 1);
    CHECK(ar_plan_team(1, err) == 1 && ar_plan_thread_stack_bytes() == 16.0 * 1048576);
    setenv("OMP_STACKSIZE", "16Q", 1);
    CHECK(ar_plan_team(1, err) == -1);
    CHECK_CONTAINS(err, "OMP_STACKSIZE");
    /* below the floor a run's threads cannot start or overflow (plan.h) */
    setenv("OMP_STACKSIZE", "64K", 1);
    CHECK(ar_plan_team(1, err) == -1);
    CHECK_CONTAINS(err, "below the 1 MiB");
    /* above what the machine can map libgomp fails mid-run; 2^64 bytes or more it ignores */
    setenv("OMP_STACKSIZE", "100000G", 1);
    CHECK(ar_plan_team(2, err) == -1);
    CHECK_CONTAINS(err, "more than this machine can map");
    setenv("OMP_STACKSIZE", "99999999999999999999", 1);
    CHECK(ar_plan_team(1, err) == -1);
    CHECK_CONTAINS(err, "is not a stack size");
    setenv("OMP_STACKSIZE", "18014398509481984", 1); /* 2^54 KiB = 2^64 bytes */
    CHECK(ar_plan_team(1, err) == -1);
    CHECK_CONTAINS(err, "is not a stack size");
    /* both variables checked; libgomp reads OMP_STACKSIZE first */
    setenv("OMP_STACKSIZE", "1M", 1);
    setenv("GOMP_STACKSIZE", "64K", 1);
    CHECK(ar_plan_team(1, err) == -1);
    CHECK_CONTAINS(err, "GOMP_STACKSIZE");
    setenv("GOMP_STACKSIZE", "32M", 1);
    CHECK(ar_plan_team(1, err) == 1 && ar_plan_thread_stack_bytes() == 1048576.0);
    unsetenv("GOMP_STACKSIZE");
    unsetenv("OMP_STACKSIZE");
    unsetenv("OMP_NUM_THREADS");
}

/* A layout that cannot be written (a file-size limit reached at any of several
 * points of it) leaves no HDF5 object open and no file behind. */
static void failed_create_closes_everything(void)
{
    ar_spec spec;
    load_spec("seed = 1; experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 2; n = [4, 8];"
              " d_h = [1, 2]; }, { name = \"m\"; simulator = \"mask_dynamics\"; trials = 2; n = 4; d = 2;"
              " layers = 3; mask = [\"causal\"]; } );",
              &spec);
    char path[64];
    snprintf(path, sizeof path, "/tmp/attnrank-test-create-%d.h5", (int)getpid());
    for (rlim_t limit = 4096; limit <= 256 * 1024; limit += 6144) {
        unlink(path);
        pid_t child = fork();
        if (child == 0) {
            struct rlimit r = {limit, limit};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &r);
            char err[AR_ERR_LEN];
            ar_provenance how;
            ar_provenance_of_process(&how);
            ar_store *store = ar_store_create(path, &spec, "test", &how, 0, err);
            if (store)
                _exit(ar_store_close(store) == 0 ? 0 : 3);
            /* the file itself may stay open: libhdf5 1.10 keeps the id of a file whose
             * closing flush failed */
            ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE |
                                                             H5F_OBJ_ATTR);
            _exit(open != 0 ? 1 : access(path, F_OK) == 0 ? 2 : 0);
        }
        int status = -1;
        waitpid(child, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            fprintf(stderr, "file-size limit %lu: status %d (1: objects left open, 2: a file left)\n",
                    (unsigned long)limit, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    unlink(path);
    ar_spec_free(&spec);
}

/* A read never writes: a point written but not yet committed is refused by the reader
 * (which once committed the writer's slab itself), and the file's ledger does not
 * change; once the writer commits, the same read returns what was written. */
static void a_read_never_writes(void)
{
    ar_spec spec;
    load_spec("seed = 2; experiments = ( { name = \"e\"; simulator = \"hardmax_rank\"; trials = 16; n = 4;"
              " d_h = [1, 2]; } );",
              &spec);
    char path[64], err[AR_ERR_LEN] = "";
    snprintf(path, sizeof path, "/tmp/attnrank-test-read-%d.h5", (int)getpid());
    unlink(path);
    ar_provenance how;
    ar_provenance_of_process(&how);
    ar_store *store = ar_store_create(path, &spec, "test", &how, 0, err);
    CHECK(store != NULL);
    const ar_experiment *x = store ? &ar_store_spec(store)->experiments[0] : NULL;
    ar_point pt;
    if (x)
        ar_experiment_point(x, 0, &pt);
    int per_trial = x ? ar_trials_values_per_trial(x, 0) : 0;
    double *values = malloc((size_t)(x ? x->trials : 0) * (size_t)per_trial * sizeof *values + 1);
    ar_summary *sums = calloc((size_t)per_trial + 1, sizeof *sums), read[2];
    long *hists[AR_MAX_OUTPUTS] = {0};
    for (int o = 0; x && o < x->sim->n_outputs; ++o)
        if (x->sim->outputs[o].hist_max)
            hists[o] = calloc((size_t)x->sim->outputs[o].hist_max(&pt) + 1, sizeof **hists);
    if (store && values && sums) {
        long failed = ar_trials_point_values(ar_store_spec(store), x, 0, 1, values);
        ar_trials_summarize_point(x, 0, values, failed, sums, hists);
        CHECK(ar_store_write_point(store, 0, 0, sums, hists, err) == 0);
        err[0] = '\0';
        CHECK(ar_store_read_summaries(store, 0, 0, -1, read, err) == -1);
        CHECK_CONTAINS(err, "not yet committed");
        CHECK(strchr(err, '\n') == NULL);
        /* the refused read wrote nothing: the ledger on disk still marks no point done */
        unsigned char done[2] = {7, 7};
        hid_t ds = H5Dopen2(H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), "e/done", H5P_DEFAULT);
        CHECK(ds >= 0 && H5Dread(ds, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, done) >= 0);
        CHECK(done[0] == 0 && done[1] == 0);
        if (ds >= 0) {
            hid_t file = H5Iget_file_id(ds);
            H5Dclose(ds);
            H5Fclose(file), H5Fclose(file);
        }
        CHECK(ar_store_commit(store, err) == 0);
        CHECK(ar_store_read_summaries(store, 0, 0, -1, read, err) == 0);
        int last = ar_output_length(&x->sim->outputs[0], &pt) - 1;
        CHECK(read[0].count == sums[last].count && read[0].mean == sums[last].mean);
    }
    free(values), free(sums);
    for (int o = 0; o < AR_MAX_OUTPUTS; ++o)
        free(hists[o]);
    CHECK(ar_store_close(store) == 0);
    unlink(path);
    ar_spec_free(&spec);
}

int main(void)
{
    check_register_families();
    a_read_never_writes();
    failed_create_closes_everything();
    bytes_for_people();
    omp_environment();
    shard_text();
    output_names();
    output_lock();
    threads_do_not_matter();
    vector_outputs();
    points_are_keyed_by_values();
    samplers_agree();
    return check_report("engine");
}
