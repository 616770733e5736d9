/* plan: a spec's run, worked out once (see plan.h). */
#define _GNU_SOURCE
#include "attnrank/plan.h"

#include <ctype.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "attnrank/format.h"
#include "attnrank/registry.h"
#include "attnrank/store.h"
#include "attnrank/test_hooks.h"
#include "attnrank/theory.h"

int ar_plan_threads(int requested)
{
    int team = requested > 0 ? requested : omp_get_max_threads();
    int limit = omp_get_thread_limit();
    return team < limit ? team : limit;
}

/* One unsigned decimal number at *s (spaces around it skipped), saturating at LONG_MAX;
 * -1 if there is none. */
static long parse_count(const char **s)
{
    const char *p = *s;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    long value = 0;
    for (; isdigit((unsigned char)*p); ++p)
        value = value > (LONG_MAX - 9) / 10 ? LONG_MAX : value * 10 + (*p - '0');
    while (isspace((unsigned char)*p))
        p++;
    *s = p;
    return value;
}

/* OpenMP's grammar (as libgomp reads it): OMP_NUM_THREADS a list of positive counts,
 * one per nesting level; OMP_THREAD_LIMIT one. Returns the first count, 0 when the
 * variable is unset, -1 when it is malformed. */
static long env_count(const char *name, int list)
{
    const char *text = getenv(name);
    if (!text)
        return 0;
    long first = parse_count(&text), value = first;
    while (value > 0 && list && *text == ',') {
        ++text;
        value = parse_count(&text);
    }
    return first > 0 && value > 0 && *text == '\0' ? first : -1;
}

/* A stack size as libgomp reads OMP_STACKSIZE and GOMP_STACKSIZE: in KiB unless it ends in
 * B, K, M or G; 0 when the variable is unset, -1 when it is malformed, as is one of 2^64
 * bytes or more, which libgomp rejects ("Invalid value") and ignores. */
static double env_stack_bytes(const char *name)
{
    const char *text = getenv(name);
    if (!text)
        return 0;
    long value = parse_count(&text);
    double unit = 1024;
    if (*text && strchr("BbKkMmGg", *text)) {
        int c = tolower((unsigned char)*text++);
        unit = c == 'b' ? 1 : c == 'k' ? 1024 : c == 'm' ? 1048576.0 : 1073741824.0;
        while (isspace((unsigned char)*text))
            text++;
    }
    double bytes = (double)value * unit;
    return value > 0 && value < LONG_MAX && bytes < 18446744073709551616.0 && *text == '\0' ? bytes : -1;
}

/* libgomp reads OMP_STACKSIZE first, GOMP_STACKSIZE only where it is unset. */
static const char *const STACK_VARIABLES[] = {"OMP_STACKSIZE", "GOMP_STACKSIZE"};

double ar_plan_thread_stack_bytes(void)
{
    for (size_t k = 0; k < sizeof STACK_VARIABLES / sizeof *STACK_VARIABLES; ++k) {
        double bytes = env_stack_bytes(STACK_VARIABLES[k]);
        if (bytes > 0)
            return bytes;
    }
    pthread_attr_t attr;
    size_t size = 8 << 20;
    if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &size);
        pthread_attr_destroy(&attr);
    }
    return (double)size;
}

/* The stacks a run starts with: each variable that is set well formed, and the main
 * thread's (ulimit -s) and the OpenMP threads' at least AR_MIN_STACK_BYTES. Checked up
 * front: libgomp cannot create a thread whose stack is smaller than the libraries'
 * thread-local storage (it exits 1, the status of a contradicted verdict), and a
 * slightly larger one overflows in the simulators (SIGSEGV), both mid-run. */
static int check_stacks(char *err)
{
    char have[32], floor[32];
    ar_format_bytes(AR_MIN_STACK_BYTES, floor, sizeof floor);
    for (size_t k = 0; k < sizeof STACK_VARIABLES / sizeof *STACK_VARIABLES; ++k) {
        const char *name = STACK_VARIABLES[k];
        double bytes = env_stack_bytes(name);
        if (bytes < 0) {
            snprintf(err, AR_ERR_LEN, "%s='%.40s' is not a stack size (such as 16M or 4096K)", name, getenv(name));
            return -1;
        }
        if (bytes > 0 && bytes < AR_MIN_STACK_BYTES) {
            ar_format_bytes(bytes, have, sizeof have);
            snprintf(err, AR_ERR_LEN, "%s='%.40s' gives each thread a %s stack, below the %s a run needs; set at "
                     "least %s=1M, or unset it", name, getenv(name), have, floor, name);
            return -1;
        }
    }
    struct rlimit stack;
    if (getrlimit(RLIMIT_STACK, &stack) == 0 && stack.rlim_cur != RLIM_INFINITY &&
        (double)stack.rlim_cur < AR_MIN_STACK_BYTES) {
        ar_format_bytes((double)stack.rlim_cur, have, sizeof have);
        snprintf(err, AR_ERR_LEN, "the stack limit (ulimit -s) is %s, below the %s a run needs; raise it "
                 "(ulimit -s 8192 is the usual default)", have, floor);
        return -1;
    }
    return 0;
}

/* The threads' stacks must fit in what the machine can map: Linux's heuristic overcommit
 * refuses a mapping larger than its memory and swap, and libgomp then exits 1 ("Thread
 * creation failed") mid-run, leaving OUT.partial and OUT.lock. The stacks are not counted
 * against --max-memory: they are reserved, and only the pages a thread touches are used. */
static int check_stack_room(long team, char *err)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return 0;
    double room = ((double)si.totalram + (double)si.totalswap) * si.mem_unit;
    double stack = ar_plan_thread_stack_bytes(), all = stack * (double)team;
    if (all <= room)
        return 0;
    /* the variable libgomp took the size from, else the default thread stack (ulimit -s) */
    const char *name = getenv("OMP_STACKSIZE") ? "OMP_STACKSIZE" : "GOMP_STACKSIZE", *value = getenv(name);
    char source[96], stack_s[32], all_s[32], room_s[32];
    if (value)
        snprintf(source, sizeof source, "%s='%.40s'", name, value);
    else
        snprintf(source, sizeof source, "the stack limit (ulimit -s)");
    ar_format_bytes(stack, stack_s, sizeof stack_s);
    ar_format_bytes(all, all_s, sizeof all_s);
    ar_format_bytes(room, room_s, sizeof room_s);
    snprintf(err, AR_ERR_LEN, "%s gives each of %ld thread(s) a %s stack, %s in all, more than this machine can "
             "map (%s of memory and swap); set a smaller one (OMP_STACKSIZE=16M is plenty)",
             source, team, stack_s, all_s, room_s);
    return -1;
}

static long read_count_file(const char *path)
{
    FILE *f = fopen(path, "r");
    long value = -1;
    if (f) {
        if (fscanf(f, "%ld", &value) != 1)
            value = -1; /* "max": no limit */
        fclose(f);
    }
    return value;
}

/* The threads this process could start at most: the kernel's limits, ulimit -u (which
 * root is exempt from) and the cgroup's pids.max (containers, Slurm). */
static long system_thread_room(void)
{
    long room = LONG_MAX, v;
    if ((v = read_count_file("/proc/sys/kernel/threads-max")) > 0 && v < room)
        room = v;
    if ((v = read_count_file("/proc/sys/kernel/pid_max")) > 0 && v < room)
        room = v;
    struct rlimit nproc;
    if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY &&
        (double)nproc.rlim_cur < (double)room)
        room = (long)nproc.rlim_cur;
    char line[4096], path[4200];
    FILE *cg = fopen("/proc/self/cgroup", "r");
    while (cg && fgets(line, sizeof line, cg))
        if (strncmp(line, "0::", 3) == 0) { /* cgroup v2 */
            line[strcspn(line, "\n")] = '\0';
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/pids.max", line + 3);
            long max = read_count_file(path);
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/pids.current", line + 3);
            long current = read_count_file(path);
            if (max > 0 && current >= 0 && max - current < room)
                room = max - current;
        }
    if (cg)
        fclose(cg);
    return room;
}

int ar_plan_team(int requested, char *err)
{
    long asked = env_count("OMP_NUM_THREADS", 1), limit = env_count("OMP_THREAD_LIMIT", 0);
    const char *bad = asked < 0 ? "OMP_NUM_THREADS" : limit < 0 ? "OMP_THREAD_LIMIT" : NULL;
    if (bad) {
        snprintf(err, AR_ERR_LEN, "%s='%.40s' is not a thread count (a positive integer%s); unset it or fix it",
                 bad, getenv(bad), asked < 0 ? ", or a list such as 4,1 for nested levels" : "");
        return -1;
    }
    if (check_stacks(err) < 0)
        return -1;
    /* Counted here, not read back from libgomp, which keeps an int: 99999999999 wraps. */
    long team = requested > 0 ? requested : asked > 0 ? asked : omp_get_num_procs();
    if (limit > 0 && limit < team)
        team = limit;
    char source[96];
    if (requested > 0)
        snprintf(source, sizeof source, "--threads %d", requested);
    else if (asked > 0)
        snprintf(source, sizeof source, "OMP_NUM_THREADS=%.40s", getenv("OMP_NUM_THREADS"));
    else
        snprintf(source, sizeof source, "the default team (one thread per core)");
    long room = system_thread_room();
    if (team > AR_MAX_THREADS) {
        snprintf(err, AR_ERR_LEN, "%s: %ld threads is more than a run may use (at most %d); set fewer", source,
                 team, AR_MAX_THREADS);
        return -1;
    }
    if (check_stack_room(team, err) < 0)
        return -1;
    if (team > room) {
        snprintf(err, AR_ERR_LEN, "%s: %ld threads is more than this system lets a process start (%ld: "
                 "kernel.threads-max, kernel.pid_max, ulimit -u, the cgroup's pids.max); set fewer", source, team, room);
        return -1;
    }
    return (int)team;
}


/* The HDF5 layout's share of a run, measured with HDF5 1.10.8 here (10 to 3000
 * one-point experiments, grids of 10^3 to 10^6 points; the hostile_env plan case checks
 * them against real runs): the file's metadata per object, the memory HDF5 keeps per
 * object of an open file (below), the CPU time to create an object; and per point, the
 * time to summarize, buffer and write it (a slab of consecutive points is one write per
 * dataset, committed about once a second) and to read it back for the verdicts, per
 * value it stores. */
static const double FILE_BYTES_PER_DATASET = 420, FILE_BYTES_PER_GROUP = 1650, FILE_BYTES_PER_VERDICT = 1200;
/* HDF5's metadata cache holds about 5 KiB per object until it reaches ~40 MiB; beside
 * it each object keeps about 2 KiB (3000 one-point experiments: 481 MiB measured). */
static const double CACHED_PER_OBJECT = 5120, CACHE_BYTES = 40.0 * 1048576, KEPT_PER_OBJECT = 2048;
static const double PROCESS_BYTES = 20.0 * 1048576;
static const double SECONDS_PER_OBJECT = 105e-6, SECONDS_AT_START = 0.03;
static const double SECONDS_PER_POINT = 2.5e-6, SECONDS_PER_STORED_VALUE = 10e-9;
/* The buffers of a run beside its points' own: the slab of points waiting to be written
 * (store.c), the batch of cheap points (run.c), and at the end the verdicts' reading of
 * one output over the grid (its summaries, the checks' copies, the claims' arrays). */
static const double JUDGE_BYTES_PER_POINT = 100;

typedef struct {
    double groups, datasets, theory;
} layout_count;

/* What store.c makes for an experiment: its group, one per output and theory/; per
 * output seven statistics, count and failed, index scales, a histogram and its bins;
 * the axes, a theory dataset per claim of the simulator, the done ledger. */
static layout_count count_layout(const ar_experiment *x)
{
    layout_count c = {2 + x->sim->n_outputs, x->n_axes + 1, 0};
    for (int o = 0; o < x->sim->n_outputs; ++o) {
        const ar_output *out = &x->sim->outputs[o];
        c.datasets += 9 + (out->index_name != NULL) + (out->column_name != NULL) + (out->hist_max ? 3 : 0);
    }
    int n_claims;
    const ar_claim *const *claims = ar_claims_all(&n_claims);
    for (int k = 0; k < n_claims; ++k)
        c.theory += claims[k]->sim == x->sim;
    c.datasets += c.theory;
    return c;
}

int ar_plan_make(const ar_spec *spec, int threads, ar_run_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->spec = spec;
    plan->threads = ar_plan_threads(threads);
    plan->largest = -1;
    for (int e = 0; e < spec->n_experiments; ++e)
        plan->points += spec->experiments[e].n_points;
    size_t n = (size_t)(plan->points ? plan->points : 1);
    plan->experiments = calloc((size_t)spec->n_experiments + 1, sizeof *plan->experiments);
    plan->work = malloc(n * sizeof *plan->work);
    plan->values = malloc(n * sizeof *plan->values);
    plan->memory = malloc(n * sizeof *plan->memory);
    if (!plan->experiments || !plan->work || !plan->values || !plan->memory) {
        ar_plan_free(plan);
        return -1;
    }
    double bytes = 65536 + FILE_BYTES_PER_VERDICT * ar_store_verdict_count(spec); /* root attributes, verdicts */
    plan->metadata_bytes = bytes;
    double objects = 0, stored_values = 0, buffers = 0;
    long g = 0;
    for (int e = 0; e < spec->n_experiments; ++e) {
        const ar_experiment *x = &spec->experiments[e];
        ar_plan_experiment *px = &plan->experiments[e];
        layout_count layout = count_layout(x);
        px->first = g;
        px->widest = 1;
        /* Points whose trials are too few to share (fewer than 64 a thread) run one per
         * thread: a parallel region and its barrier per point would cost more than the
         * trials. A team needs a few such points to keep busy. */
        px->points_in_parallel = x->trials < 64L * plan->threads && (plan->threads == 1 || x->n_points >= 4L * plan->threads);
        int whole_points = px->points_in_parallel ? plan->threads : 1; /* trial values held at once */
        double stats = 0;
        int longest[AR_MAX_OUTPUTS] = {0}; /* each output's longest vector */
        for (long p = 0; p < x->n_points; ++p, ++g) {
            ar_point pt;
            ar_experiment_point(x, p, &pt);
            int width = ar_values_per_trial(&pt);
            for (int o = 0; o < x->sim->n_outputs; ++o) {
                int length = ar_output_length(&x->sim->outputs[o], &pt);
                longest[o] = length > longest[o] ? length : longest[o];
            }
            double hist = 0;
            for (int o = 0; o < x->sim->n_outputs; ++o)
                if (x->sim->outputs[o].hist_max) {
                    int w = x->sim->outputs[o].hist_max(&pt) + 1;
                    hist += w * (double)sizeof(long);
                    if (w > px->hist_width[o])
                        px->hist_width[o] = w;
                }
            plan->values[g] = width;
            plan->work[g] = (x->sim->cost ? x->sim->cost(&pt) : 1.0) * (double)x->trials;
            plan->memory[g] = plan->threads * ((double)x->sim->workspace_bytes(&pt) + 64) +
                              whole_points * ((double)x->trials * width * sizeof(double) + hist);
            if (plan->largest < 0 || plan->memory[g] > plan->memory[plan->largest])
                plan->largest = g;
            if (width > px->widest)
                px->widest = width;
            /* seven statistics, count and failed per value, stored over the whole grid at
             * the widest vector's length */
            stats = 9 * 8.0 * width > stats ? 9 * 8.0 * width : stats;
        }
        /* a histogram as store.c keeps it: dense, or the values seen and their counts
         * when the trials are fewer than the values */
        double hists = 0, widest_read = 0;
        for (int o = 0; o < x->sim->n_outputs; ++o) {
            double kept = px->hist_width[o] > x->trials ? 2.0 * (double)x->trials : px->hist_width[o];
            hists += 8.0 * kept;
            double read = 5 * 8.0 * longest[o] + 8.0 * kept; /* five statistics a value, the histogram */
            widest_read = read > widest_read ? read : widest_read;
        }
        /* per point: the done ledger, a theory value per claim, the statistics and
         * histograms; per experiment: its objects' metadata */
        double metadata = FILE_BYTES_PER_DATASET * layout.datasets + FILE_BYTES_PER_GROUP * layout.groups;
        bytes += (1 + 8.0 * layout.theory + stats + hists) * (double)x->n_points + metadata;
        plan->metadata_bytes += metadata;
        objects += layout.groups + layout.datasets;
        stored_values += (stats + hists) / 8 * (double)x->n_points;
        /* the verdicts read one output at a time */
        double reading = (widest_read + JUDGE_BYTES_PER_POINT) * (double)x->n_points;
        double held = (double)(x->n_points < ar_size.slab_points ? x->n_points : ar_size.slab_points);
        double slab = (stats + hists) * held, batch = 0;
        slab = slab < ar_size.slab_bytes ? slab : ar_size.slab_bytes;
        if (px->points_in_parallel) {
            held = (double)(x->n_points < ar_size.batch_points ? x->n_points : ar_size.batch_points);
            batch = ((double)px->widest * sizeof(ar_summary) + hists) * held;
            batch = batch < ar_size.batch_bytes ? batch : ar_size.batch_bytes;
        }
        double peak = reading > slab + batch ? reading : slab + batch;
        buffers = peak > buffers ? peak : buffers;
    }
    plan->experiments[spec->n_experiments].first = g;
    plan->output_bytes = bytes;
    double cached = CACHED_PER_OBJECT * objects;
    plan->layout_bytes = PROCESS_BYTES + (cached < CACHE_BYTES ? cached : CACHE_BYTES) + KEPT_PER_OBJECT * objects;
    plan->buffer_bytes = buffers;
    plan->overhead_seconds = SECONDS_AT_START + SECONDS_PER_OBJECT * objects + SECONDS_PER_POINT * (double)plan->points +
                             SECONDS_PER_STORED_VALUE * stored_values;
    return 0;
}

void ar_plan_free(ar_run_plan *plan)
{
    free(plan->experiments), free(plan->work), free(plan->values), free(plan->memory);
    memset(plan, 0, sizeof *plan);
    plan->largest = -1;
}

int ar_plan_locate(const ar_run_plan *plan, long global, long *point)
{
    int e = 0;
    while (e + 1 < plan->spec->n_experiments && plan->experiments[e + 1].first <= global)
        e++;
    *point = global - plan->experiments[e].first;
    return e;
}
