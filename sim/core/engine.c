/* engine: points x trials with OpenMP, summaries, the store, progress, signals. */
#define _GNU_SOURCE
#include "attnrank/engine.h"

#include "attnrank/linalg.h"
#include "attnrank/progress.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

volatile sig_atomic_t ar_stop_signal = 0;

static void on_signal(int sig)
{
    ar_stop_signal = sig;
}

void ar_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A file-size limit (ulimit -f, a full quota) must come back as a failed write we
     * report, not as a kill that leaves a half-made file. */
    signal(SIGXFSZ, SIG_IGN);
}

static int thread_count(int requested)
{
    return requested > 0 ? requested : omp_get_max_threads();
}

static int values_per_trial(const ar_sim *sim, const ar_point *pt);

double ar_engine_point_memory(const ar_experiment *exp, const ar_point *point, int threads)
{
    double workspace = (double)exp->sim->workspace_bytes(point) + 64;
    double values = (double)exp->trials * values_per_trial(exp->sim, point) * sizeof(double);
    double hist = 0;
    for (int o = 0; o < exp->sim->n_outputs; ++o)
        if (exp->sim->outputs[o].hist_max)
            hist += (exp->sim->outputs[o].hist_max(point) + 1.0) * sizeof(long);
    return thread_count(threads) * workspace + values + hist;
}

/* Values per trial of all outputs at a point: scalars count one, vectors their length. */
static int values_per_trial(const ar_sim *sim, const ar_point *pt)
{
    int total = 0;
    for (int o = 0; o < sim->n_outputs; ++o)
        total += ar_output_length(&sim->outputs[o], pt);
    return total;
}

/* ATTNRANK_INJECT_FAILURES=f (tests only): a deterministic fraction f of trials fail
 * as if LAPACK had not converged, so the counting and marking of failures can be
 * checked end to end. */
static double injected_failure_rate(void)
{
    const char *text = getenv("ATTNRANK_INJECT_FAILURES");
    double f = text ? atof(text) : 0;
    return f > 0 && f <= 1 ? f : 0;
}

static long point_values(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                         double *values, ar_progress *progress)
{
    double inject_failures = injected_failure_rate();
    const ar_sim *sim = exp->sim;
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    uint64_t key = ar_point_key(&pt);
    long trials = exp->trials, failed = 0;
    int width = values_per_trial(sim, &pt), out_of_memory = 0;
    size_t bytes = (sim->workspace_bytes(&pt) + 63) & ~(size_t)63;
    int team = thread_count(threads);
    long chunk = trials / (16L * team);
    if (chunk < 1)
        chunk = 1;
    /* BLAS inside a trial stays single-threaded: the parallelism is over trials. */
    ar_blas_set_threads(1);
#pragma omp parallel num_threads(team) reduction(+ : failed)
    {
        /* Per thread, once per point: the workspace and the trial's output row. */
        void *workspace = aligned_alloc(64, bytes ? bytes : 64);
        double *out = malloc((size_t)width * sizeof *out);
        ar_rng rng;
        if (!workspace || !out) {
#pragma omp atomic write
            out_of_memory = 1;
        } else if (sim->prepare) {
            sim->prepare(&pt, workspace);
        }
#pragma omp for schedule(dynamic, chunk)
        for (long t = 0; t < trials; ++t) {
            if (!workspace || !out || ar_stop_signal)
                continue;
            ar_rng_init(&rng, spec->seed, key, (uint64_t)t, 0);
            int bad = sim->trial(&pt, &rng, workspace, out);
            if (inject_failures > 0 && (double)(ar_mix64(key ^ ar_mix64((uint64_t)t)) >> 11) * 0x1.0p-53 <
                                           inject_failures)
                bad = 1; /* a test hook: see injected_failure_rate() */
            for (int v = 0; v < width; ++v)
                values[(size_t)v * trials + t] = bad ? NAN : out[v];
            failed += bad != 0;
            if (progress)
                ar_progress_trial_done(progress);
        }
        free(workspace);
        free(out);
    }
    return out_of_memory ? -1 : failed;
}

long ar_engine_point_values(const ar_spec *spec, const ar_experiment *exp, long point, int threads,
                            double *values)
{
    return point_values(spec, exp, point, threads, values, NULL);
}

int ar_engine_values_per_trial(const ar_experiment *exp, long point)
{
    ar_point pt;
    ar_experiment_point(exp, point, &pt);
    return values_per_trial(exp->sim, &pt);
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int check_output_path(const char *path, char *err)
{
    char *dir = strdup(path);
    char *slash = strrchr(dir, '/');
    const char *d = ".";
    if (slash) {
        *slash = '\0';
        d = slash == dir ? "/" : dir;
    }
    struct stat st;
    int status = 0;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, AR_ERR_LEN, "%s: output directory %s does not exist", path, d);
        status = -1;
    } else if (access(d, W_OK) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: output directory %s is not writable", path, d);
        status = -1;
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, AR_ERR_LEN, "%s: is a directory; give a file name with -o", path);
        status = -1;
    }
    free(dir);
    return status;
}

/* The memory a run may plan for: --max-memory, else 80% of RAM; and never more than
 * the address space an rlimit (ulimit -v) leaves beside what the process already maps,
 * so such a limit gets the pre-flight refusal, not a failed allocation mid-run. */
static double memory_limit(const ar_run_options *opt)
{
    double limit = opt->max_memory > 0 ? opt->max_memory
                                       : 0.8 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
        double mapped = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        unsigned long pages;
        if (statm && fscanf(statm, "%lu", &pages) == 1)
            mapped = (double)pages * (double)sysconf(_SC_PAGESIZE);
        if (statm)
            fclose(statm);
        double room = (double)as.rlim_cur - mapped;
        if (room < limit)
            limit = room > 0 ? room : 0;
    }
    return limit;
}

/* Pre-flight: refuse before allocating anything if some point cannot fit. */
static int check_memory(const ar_spec *spec, const ar_run_options *opt, char *err)
{
    double limit = memory_limit(opt);
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        for (long p = 0; p < x->n_points; ++p) {
            ar_point pt;
            ar_experiment_point(x, p, &pt);
            double need = ar_engine_point_memory(x, &pt, opt->threads);
            if (need > limit) {
                char desc[256];
                ar_point_describe(&pt, NULL, 0, desc, sizeof desc);
                snprintf(err, AR_ERR_LEN,
                         "%s: %s: point %s needs %.2f GiB with %d threads (workspaces and one value "
                         "per trial and output); the limit is %.2f GiB (--max-memory, 80%% of RAM or ulimit -v)",
                         x->where, x->name, desc, need / 1073741824.0, thread_count(opt->threads),
                         limit / 1073741824.0);
                return -1;
            }
        }
    }
    return 0;
}

double ar_engine_output_bytes(const ar_spec *spec)
{
    int n_claims;
    ar_claims_all(&n_claims);
    double bytes = 65536; /* attributes, the verdict table, HDF5's own structure */
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        double per_point = 1 + 8.0 * n_claims; /* done ledger, theory (upper bound) */
        ar_point last;
        ar_experiment_point(x, x->n_points - 1, &last);
        for (int o = 0; o < x->sim->n_outputs; ++o) {
            /* seven statistics, count, failed; per element of a vector (the last point's
             * length stands for all: lengths grow along axes) */
            per_point += 9 * 8.0 * ar_output_length(&x->sim->outputs[o], &last);
            if (x->sim->outputs[o].hist_max) {
                /* Widest histogram, from a sample of at most ~1000 points. */
                ar_point pt;
                int widest = 0;
                for (long p = 0; p < x->n_points; p += 1 + x->n_points / 1024) {
                    ar_experiment_point(x, p, &pt);
                    if (x->sim->outputs[o].hist_max(&pt) > widest)
                        widest = x->sim->outputs[o].hist_max(&pt);
                }
                per_point += 8.0 * (widest + 1);
            }
        }
        bytes += per_point * (double)x->n_points;
    }
    return bytes;
}

/* The whole file is allocated when the run starts: refuse if the disk cannot hold it. */
static int check_disk(const ar_spec *spec, const char *output, char *err)
{
    char *dir = strdup(output);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    struct statvfs fs;
    int status = 0;
    double need = ar_engine_output_bytes(spec);
    struct rlimit limit;
    if (statvfs(slash ? (dir[0] ? dir : "/") : ".", &fs) == 0) {
        double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;
        if (need > free_bytes) {
            snprintf(err, AR_ERR_LEN, "%s: the result file needs about %.3g GiB; the disk has %.3g GiB free",
                     output, need / 1073741824.0, free_bytes / 1073741824.0);
            status = -1;
        }
    }
    if (status == 0 && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        need > (double)limit.rlim_cur) {
        snprintf(err, AR_ERR_LEN, "%s: the result file needs about %.3g MiB; the file-size limit (ulimit -f) is "
                 "%.3g MiB", output, need / 1048576.0, (double)limit.rlim_cur / 1048576.0);
        status = -1;
    }
    free(dir);
    return status;
}

static ar_store *start_store(const ar_spec *spec, const ar_run_options *opt, const char *partial, char *err,
                             int *status)
{
    *status = AR_EXIT_BAD_INPUT;
    if (opt->resume) {
        if (!file_exists(partial)) {
            if (file_exists(opt->output))
                snprintf(err, AR_ERR_LEN, "%s: the run is already complete (no %s to resume)", opt->output, partial);
            else
                snprintf(err, AR_ERR_LEN, "%s: nothing to resume: no interrupted run at %s", opt->output, partial);
            return NULL;
        }
        /* Read-only first: opening for writing alters the file, and a file of another
         * spec must be left exactly as it is. */
        ar_store *store = ar_store_open(partial, 0, err);
        if (!store)
            return NULL;
        char shard[64], want[64] = "";
        ar_store_attribute(store, "shard", shard, sizeof shard);
        if (opt->shards > 1)
            snprintf(want, sizeof want, "%d/%d", opt->shard, opt->shards);
        if (strcmp(shard, want) != 0) {
            snprintf(err, AR_ERR_LEN, "%s: holds %s%s, not %s%s; resume with the same --shard", partial,
                     shard[0] ? "shard " : "an unsharded run", shard, want[0] ? "shard " : "an unsharded run", want);
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
        *status = AR_EXIT_IO;
        return ar_store_open(partial, 1, err);
    }
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
    ar_store *store = ar_store_create(tmp, spec, opt->command_line, err);
    *status = AR_EXIT_IO;
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
        return ar_store_open(partial, 1, err);
    }
    if (store)
        snprintf(err, AR_ERR_LEN, "%s: cannot create: %s", partial, strerror(errno));
    unlink(tmp);
    free(tmp);
    return NULL;
}

void ar_engine_summarize_point(const ar_experiment *x, long point, const double *values, long failed_trials,
                               ar_summary *sums, long *const *hists)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    /* Too many failed trials: the others may be a biased sample. The point is marked
     * (count 0, failed = the failed trials, statistics NaN), never averaged. */
    if (failed_trials > AR_FAILURE_LIMIT * (double)x->trials) {
        int width = values_per_trial(x->sim, &pt);
        for (int v = 0; v < width; ++v)
            sums[v] = (ar_summary){.count = 0, .failed = failed_trials, .mean = NAN, .sem = NAN, .std = NAN,
                                   .ci_lo = NAN, .ci_hi = NAN, .min = NAN, .max = NAN};
        for (int o = 0; o < x->sim->n_outputs; ++o)
            if (hists[o])
                memset(hists[o], 0, (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long));
        return;
    }
    /* One summary per value: sums[offset .. offset + length) for each output. */
    int offset = 0;
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        int applies = !out->applies || out->applies(&pt);
        for (int i = 0; i < ar_output_length(out, &pt); ++i, ++offset)
            ar_summarize(values + (size_t)offset * x->trials, applies ? x->trials : 0, &sums[offset]);
        if (hists[o])
            ar_histogram(values + (size_t)(offset - 1) * x->trials, applies ? x->trials : 0, out->hist_max(&pt),
                         hists[o]);
    }
}

/* Does this run compute point p of experiment e? first: index of e's first point
 * among all the spec's points. */
static int owned(const ar_run_options *opt, long first, long p)
{
    return opt->shards <= 1 || (first + p) % opt->shards == opt->shard;
}

static double work_of(const ar_experiment *x, long point)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    return x->sim->cost ? x->sim->cost(&pt) : 1.0;
}

/* Index of each experiment's first point among all the spec's points (n + 1 entries). */
static long *point_offsets(const ar_spec *spec)
{
    long *first = calloc((size_t)spec->n_experiments + 1, sizeof *first);
    for (int e = 0; first && e < spec->n_experiments; ++e)
        first[e + 1] = first[e] + spec->experiments[e].n_points;
    return first;
}

/* Progress counts work (trials x cost), so the time left is right for mixed grids. */
static void start_progress(const ar_spec *spec, const ar_run_options *opt, ar_store *store, const long *first,
                           ar_progress *progress)
{
    double total_work = 0, done_work = 0;
    long total_points = 0, done_points = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        for (long p = 0; p < x->n_points; ++p) {
            if (!owned(opt, first[e], p))
                continue;
            double w = work_of(x, p) * x->trials;
            total_work += w;
            total_points++;
            if (ar_store_done(store, e, p))
                done_work += w, done_points++;
        }
    }
    ar_progress_start(progress, opt->quiet, total_points, done_points, total_work, done_work);
}

/* Histogram buffers for experiment x's integer outputs (NULL for the others). */
static void alloc_histograms(const ar_experiment *x, long **hists)
{
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hists[o] = NULL;
        if (!x->sim->outputs[o].hist_max)
            continue;
        int width = 0;
        for (long p = 0; p < x->n_points; ++p) {
            ar_point pt;
            ar_experiment_point(x, p, &pt);
            if (x->sim->outputs[o].hist_max(&pt) + 1 > width)
                width = x->sim->outputs[o].hist_max(&pt) + 1;
        }
        hists[o] = calloc((size_t)width, sizeof(long));
    }
}

static int widest_point(const ar_experiment *x)
{
    int widest = 1;
    for (long p = 0; p < x->n_points; ++p) {
        ar_point pt;
        ar_experiment_point(x, p, &pt);
        if (values_per_trial(x->sim, &pt) > widest)
            widest = values_per_trial(x->sim, &pt);
    }
    return widest;
}

/* The end of a run, whoever computed it: say what an interrupted run saved; judge and
 * rename a complete one. */
static int finish_run(const ar_spec *spec, const ar_run_options *opt, ar_store *store, const char *partial,
                      const long *first, int status, ar_verdict_row **rows_out, int *n_rows, char *err)
{
    if (status == AR_EXIT_OK && ar_stop_signal) {
        long saved = 0, all = 0;
        for (int e = 0; e < spec->n_experiments; ++e)
            for (long p = 0; p < spec->experiments[e].n_points; ++p)
                if (owned(opt, first[e], p))
                    saved += ar_store_done(store, e, p), all++;
        snprintf(err, AR_ERR_LEN, "%s: interrupted by %s; %ld of %ld points saved; continue with --resume",
                 partial, ar_stop_signal == SIGTERM ? "SIGTERM" : "SIGINT", saved, all);
        status = 128 + ar_stop_signal;
    }
    if (status == AR_EXIT_OK && opt->shards <= 1) { /* a shard has no verdicts: its merge will */
        *n_rows = ar_store_verdict_count(spec);
        *rows_out = calloc((size_t)(*n_rows ? *n_rows : 1), sizeof **rows_out);
        if (ar_engine_verdicts(store, *rows_out, err) < 0 ||
            ar_store_write_verdicts(store, *rows_out, *n_rows, err) < 0)
            status = AR_EXIT_IO;
    }
    if (ar_store_close(store) < 0 && status == AR_EXIT_OK) {
        snprintf(err, AR_ERR_LEN, "%s: cannot close the HDF5 file (disk full?)", partial);
        status = AR_EXIT_IO;
    }
    if (status == AR_EXIT_OK && rename(partial, opt->output) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: cannot rename to %s: %s", partial, opt->output, strerror(errno));
        status = AR_EXIT_IO;
    }
    if (status != AR_EXIT_OK) {
        free(*rows_out);
        *rows_out = NULL;
        *n_rows = 0;
    }
    return status;
}

#ifdef ATTNRANK_MPI
static int run_distributed(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows_out, int *n_rows,
                           char *err);
#endif

int ar_engine_run(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows_out, int *n_rows,
                  char *err)
{
    *rows_out = NULL;
    *n_rows = 0;
    if (check_output_path(opt->output, err) || check_memory(spec, opt, err) || check_disk(spec, opt->output, err))
        return AR_EXIT_BAD_INPUT;
#ifdef ATTNRANK_MPI
    if (ar_mpi_size() > 1)
        return run_distributed(spec, opt, rows_out, n_rows, err);
#endif
    char *partial;
    if (asprintf(&partial, "%s.partial", opt->output) < 0)
        return AR_EXIT_IO;
    int status;
    ar_store *store = start_store(spec, opt, partial, err, &status);
    if (!store) {
        free(partial);
        return status;
    }
    long *first = point_offsets(spec), marked = 0;
    ar_progress progress;
    start_progress(spec, opt, store, first, &progress);

    status = AR_EXIT_OK;
    for (int e = 0; e < spec->n_experiments && status == AR_EXIT_OK; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        int widest = widest_point(x);
        double *values = malloc((size_t)x->trials * widest * sizeof *values);
        ar_summary *sums = malloc((size_t)widest * sizeof *sums);
        long *hists[AR_MAX_OUTPUTS];
        alloc_histograms(x, hists);
        for (long p = 0; p < x->n_points; ++p) {
            if (ar_store_done(store, e, p) || !owned(opt, first[e], p))
                continue;
            if (ar_stop_signal)
                break;
            ar_progress_point_begin(&progress, work_of(x, p), x->trials);
            long failed = values && sums ? point_values(spec, x, p, opt->threads, values, &progress) : -1;
            if (failed < 0) {
                snprintf(err, AR_ERR_LEN, "%s: out of memory at experiment %s point %ld", opt->output, x->name, p);
                status = AR_EXIT_IO;
                break;
            }
            if (ar_stop_signal)
                break; /* the point is incomplete: not written, recomputed on resume */
            marked += failed > AR_FAILURE_LIMIT * (double)x->trials;
            ar_engine_summarize_point(x, p, values, failed, sums, hists);
            if (ar_store_write_point(store, e, p, sums, hists, err) < 0) {
                status = AR_EXIT_IO;
                break;
            }
            ar_progress_point_end(&progress);
        }
        for (int o = 0; o < x->sim->n_outputs; ++o)
            free(hists[o]);
        free(values);
        free(sums);
    }
    ar_progress_finish(&progress);
    if (marked)
        fprintf(stderr, "attnrank: %ld point(s) had more than %g%% failed trials: marked (count 0, see failed), "
                        "not averaged\n", marked, 100 * AR_FAILURE_LIMIT);
    status = finish_run(spec, opt, store, partial, first, status, rows_out, n_rows, err);
    free(first);
    free(partial);
    return status;
}

/* Open every shard read-only and check they fit together: the same spec, one N, each
 * index once, every shard complete. */
static int open_shards(const char *const *paths, int n, ar_store **stores, char *err)
{
    int count = 0;
    unsigned char *seen = NULL;
    for (int i = 0; i < n; ++i) {
        stores[i] = ar_store_open(paths[i], 0, err);
        if (!stores[i])
            return -1;
        char shard[64];
        int index, of;
        ar_store_attribute(stores[i], "shard", shard, sizeof shard);
        if (sscanf(shard, "%d/%d", &index, &of) != 2) {
            snprintf(err, AR_ERR_LEN, "%s: not a shard (written without --shard)", paths[i]);
            return -1;
        }
        if (i == 0) {
            count = of;
            seen = calloc((size_t)of, 1);
        } else if (of != count) {
            snprintf(err, AR_ERR_LEN, "%s: shard %d/%d, but %s is one of %d shards", paths[i], index, of, paths[0],
                     count);
            free(seen);
            return -1;
        }
        const ar_spec *spec = ar_store_spec(stores[i]), *spec0 = ar_store_spec(stores[0]);
        if (spec->hash != spec0->hash) {
            snprintf(err, AR_ERR_LEN, "%s: another spec or seed than %s (hash %016llx, not %016llx)", paths[i],
                     paths[0], (unsigned long long)spec->hash, (unsigned long long)spec0->hash);
            free(seen);
            return -1;
        }
        if (seen[index]) {
            snprintf(err, AR_ERR_LEN, "%s: shard %d/%d is given twice", paths[i], index, of);
            free(seen);
            return -1;
        }
        seen[index] = 1;
        /* complete: every point it owns is done */
        ar_run_options opt = {.shard = index, .shards = of};
        long first = 0, missing = 0;
        for (int e = 0; e < spec->n_experiments; ++e) {
            for (long p = 0; p < spec->experiments[e].n_points; ++p)
                missing += owned(&opt, first, p) && !ar_store_done(stores[i], e, p);
            first += spec->experiments[e].n_points;
        }
        if (missing) {
            snprintf(err, AR_ERR_LEN, "%s: shard %d/%d lacks %ld of its points; finish it with --resume", paths[i],
                     index, of, missing);
            free(seen);
            return -1;
        }
    }
    for (int k = 0; k < count; ++k)
        if (!seen[k]) {
            snprintf(err, AR_ERR_LEN, "shard %d/%d is missing: give all %d shard files", k, count, count);
            free(seen);
            return -1;
        }
    free(seen);
    return 0;
}

int ar_engine_merge(const char *output, const char *const *paths, int n, const char *command_line, int force,
                    ar_verdict_row **rows, int *n_rows, char *err)
{
    *rows = NULL;
    *n_rows = 0;
    if (check_output_path(output, err))
        return AR_EXIT_BAD_INPUT;
    ar_store **shards = calloc((size_t)n, sizeof *shards);
    int status = open_shards(paths, n, shards, err) == 0 ? AR_EXIT_OK : AR_EXIT_BAD_INPUT;
    ar_store *store = NULL;
    char *partial = NULL;
    if (status == AR_EXIT_OK) {
        const ar_spec *spec = ar_store_spec(shards[0]);
        ar_run_options opt = {.output = output, .command_line = command_line, .force = force};
        if (asprintf(&partial, "%s.partial", output) < 0)
            partial = NULL;
        store = partial ? start_store(spec, &opt, partial, err, &status) : NULL;
        if (store)
            status = AR_EXIT_OK;
    }
    for (int i = 0; store && status == AR_EXIT_OK && i < n; ++i) {
        long copied;
        if (ar_store_copy_points(store, shards[i], &copied, err) < 0)
            status = AR_EXIT_IO;
    }
    if (store && status == AR_EXIT_OK) {
        const ar_spec *spec = ar_store_spec(store);
        *n_rows = ar_store_verdict_count(spec);
        *rows = calloc((size_t)(*n_rows ? *n_rows : 1), sizeof **rows);
        if (ar_engine_verdicts(store, *rows, err) < 0 || ar_store_write_verdicts(store, *rows, *n_rows, err) < 0)
            status = AR_EXIT_IO;
    }
    if (store && ar_store_close(store) < 0 && status == AR_EXIT_OK) {
        snprintf(err, AR_ERR_LEN, "%s: cannot close the HDF5 file (disk full?)", partial);
        status = AR_EXIT_IO;
    }
    if (store && status == AR_EXIT_OK && rename(partial, output) != 0) {
        snprintf(err, AR_ERR_LEN, "%s: cannot rename to %s: %s", partial, output, strerror(errno));
        status = AR_EXIT_IO;
    }
    for (int i = 0; i < n; ++i)
        ar_store_close(shards[i]);
    free(shards);
    if (status != AR_EXIT_OK) {
        free(*rows);
        *rows = NULL;
        *n_rows = 0;
    }
    free(partial);
    return status;
}

double ar_engine_point_cost(const ar_experiment *exp, long point)
{
    return work_of(exp, point);
}

double ar_engine_trial_seconds(const ar_spec *spec, const ar_experiment *exp, long point, double budget)
{
    ar_experiment probe = *exp; /* the same point, fewer trials */
    double seconds = 0;
    for (long trials = 1;; trials *= 4) {
        probe.trials = trials;
        double *values = malloc((size_t)trials * ar_engine_values_per_trial(exp, point) * sizeof *values);
        if (!values)
            return NAN;
        double t0 = omp_get_wtime();
        point_values(spec, &probe, point, 1, values, NULL);
        seconds = (omp_get_wtime() - t0) / trials;
        free(values);
        if (seconds * trials * 4 > budget || trials >= exp->trials)
            return seconds;
    }
}

#ifdef ATTNRANK_MPI
/* The distributed driver. Rank 0 owns the file: it opens or resumes it, hands out the
 * points not yet done, largest (trials x cost) first, writes each result as it comes
 * and judges at the end; ranks 1..P-1 compute one point at a time with their OpenMP
 * threads and send back its summaries and histograms. A point is computed by one rank
 * exactly as a single process would, so the file holds the same bits. */
#include <mpi.h>
#include <time.h>

enum { TAG_READY = 1, TAG_TASK, TAG_STOP, TAG_RESULT };
enum { RESULT_OK = 0, RESULT_INTERRUPTED = 1, RESULT_FAILED = 2 };

typedef struct {
    int experiment;
    long point;
    double work;
} task;

static int heavier_first(const void *a, const void *b)
{
    const task *x = a, *y = b;
    if (x->work != y->work)
        return x->work < y->work ? 1 : -1;
    return x->experiment != y->experiment ? x->experiment - y->experiment : (x->point > y->point) - (x->point < y->point);
}

/* A result message: header (experiment, point, outcome), then the summaries, then each
 * integer output's histogram. */
typedef struct {
    int experiment, outcome;
    long point;
} result_header;

static size_t result_bytes(const ar_experiment *x, long point)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    size_t bytes = sizeof(result_header) + (size_t)values_per_trial(x->sim, &pt) * sizeof(ar_summary);
    for (int o = 0; o < x->sim->n_outputs; ++o)
        if (x->sim->outputs[o].hist_max)
            bytes += (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long);
    return bytes;
}

/* Where a result message keeps its summaries and each integer output's histogram. */
static void unpack_result(const ar_experiment *x, long point, char *message, ar_summary **sums, long **hists)
{
    ar_point pt;
    ar_experiment_point(x, point, &pt);
    *sums = (ar_summary *)(message + sizeof(result_header));
    char *at = (char *)(*sums + values_per_trial(x->sim, &pt));
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        hists[o] = NULL;
        if (x->sim->outputs[o].hist_max) {
            hists[o] = (long *)at;
            at += (size_t)(x->sim->outputs[o].hist_max(&pt) + 1) * sizeof(long);
        }
    }
}

static void worker(const ar_spec *spec, const ar_run_options *opt)
{
    MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        long job[2];
        MPI_Status st;
        MPI_Recv(job, 2, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            return;
        const ar_experiment *x = &spec->experiments[job[0]];
        long p = job[1];
        ar_point pt;
        ar_experiment_point(x, p, &pt);
        size_t bytes = result_bytes(x, p);
        char *message = calloc(1, bytes);
        double *values = malloc((size_t)x->trials * values_per_trial(x->sim, &pt) * sizeof *values);
        result_header *h = (result_header *)message;
        h->experiment = (int)job[0];
        h->point = p;
        h->outcome = RESULT_OK;
        long failed = message && values ? point_values(spec, x, p, opt->threads, values, NULL) : -1;
        if (failed < 0) {
            h->outcome = RESULT_FAILED;
        } else if (ar_stop_signal) {
            h->outcome = RESULT_INTERRUPTED;
        } else {
            ar_summary *sums;
            long *hists[AR_MAX_OUTPUTS];
            unpack_result(x, p, message, &sums, hists);
            ar_engine_summarize_point(x, p, values, failed, sums, hists);
        }
        MPI_Send(message ? message : (char *)h, message ? (int)bytes : 0, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(values);
        free(message);
    }
}

/* Rank 0: the store, the queue, the writes. Polls with short sleeps rather than a
 * blocking probe, which in Open MPI spins a core that the workers need. */
static int coordinator(const ar_spec *spec, const ar_run_options *opt, ar_store *store, const long *first,
                       char *err)
{
    long n_tasks = 0, next = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        n_tasks += spec->experiments[e].n_points;
    task *tasks = malloc((size_t)(n_tasks ? n_tasks : 1) * sizeof *tasks);
    n_tasks = 0;
    for (int e = 0; e < spec->n_experiments; ++e)
        for (long p = 0; p < spec->experiments[e].n_points; ++p)
            if (owned(opt, first[e], p) && !ar_store_done(store, e, p))
                tasks[n_tasks++] = (task){e, p, work_of(&spec->experiments[e], p) * spec->experiments[e].trials};
    qsort(tasks, (size_t)n_tasks, sizeof *tasks, heavier_first);
    ar_progress progress;
    start_progress(spec, opt, store, first, &progress);
    int workers = ar_mpi_size() - 1, status = AR_EXIT_OK;
    char *message = NULL;
    size_t capacity = 0;
    while (workers > 0) {
        int ready = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &ready, &st);
        if (!ready) {
            nanosleep(&(struct timespec){0, 1000000}, NULL);
            continue;
        }
        int bytes;
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        if ((size_t)bytes > capacity)
            message = realloc(message, capacity = (size_t)bytes);
        MPI_Recv(message, bytes, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (st.MPI_TAG == TAG_RESULT && status == AR_EXIT_OK) {
            const result_header *h = (const result_header *)message;
            const ar_experiment *x = &spec->experiments[h->experiment];
            if (bytes == 0 || h->outcome == RESULT_FAILED) {
                snprintf(err, AR_ERR_LEN, "%s: rank %d ran out of memory at experiment %s", opt->output,
                         st.MPI_SOURCE, bytes ? x->name : "?");
                status = AR_EXIT_IO;
            } else if (h->outcome == RESULT_OK) {
                ar_summary *sums;
                long *hists[AR_MAX_OUTPUTS];
                unpack_result(x, h->point, message, &sums, hists);
                if (ar_store_write_point(store, h->experiment, h->point, sums, hists, err) < 0)
                    status = AR_EXIT_IO;
                ar_progress_point_begin(&progress, work_of(x, h->point), 0);
                ar_progress_point_end(&progress);
            }
        }
        if (next < n_tasks && status == AR_EXIT_OK && !ar_stop_signal) {
            long job[2] = {tasks[next].experiment, tasks[next].point};
            next++;
            MPI_Send(job, 2, MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
        } else {
            MPI_Send(NULL, 0, MPI_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            workers--;
        }
    }
    ar_progress_finish(&progress);
    free(message);
    free(tasks);
    return status;
}

static int run_distributed(const ar_spec *spec, const ar_run_options *opt, ar_verdict_row **rows_out, int *n_rows,
                           char *err)
{
    int rank = ar_mpi_rank(), status = AR_EXIT_OK;
    char *partial = NULL;
    ar_store *store = NULL;
    if (rank == 0) {
        if (asprintf(&partial, "%s.partial", opt->output) < 0)
            partial = NULL;
        store = partial ? start_store(spec, opt, partial, err, &status) : NULL;
        if (store)
            status = AR_EXIT_OK;
        else if (status == AR_EXIT_OK)
            status = AR_EXIT_IO;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD); /* a file that cannot start stops everyone */
    if (status != AR_EXIT_OK) {
        free(partial);
        if (rank != 0)
            snprintf(err, AR_ERR_LEN, "rank 0 could not start the run");
        return status;
    }
    if (rank != 0) {
        worker(spec, opt);
        int final;
        MPI_Bcast(&final, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (final != AR_EXIT_OK)
            snprintf(err, AR_ERR_LEN, "the run stopped (rank 0 reports why)");
        return final;
    }
    long *first = point_offsets(spec);
    status = coordinator(spec, opt, store, first, err);
    status = finish_run(spec, opt, store, partial, first, status, rows_out, n_rows, err);
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(first);
    free(partial);
    return status;
}
#endif
