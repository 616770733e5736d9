/* preflight: refuse a run before anything is allocated or written: an output folder
 * that is not there or not writable, a thread count the system cannot start, a point
 * that would not fit in memory or a team that would not fit in the address space
 * (ulimit -v), a result file the disk or the file-size limit cannot hold; and the same
 * for an attack, sized from its space's largest points before its search. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include "attnrank/format.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int ar_preflight_output_path(const char *path, char *err)
{
    if (ar_output_check_name(path, ".partial.tmp", err) < 0) /* the longest name a run makes */
        return -1;
    char *dir = strdup(path);
    if (!dir) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", path);
        return -1;
    }
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

/* The memory a run may plan for: --max-memory, else 80% of RAM. */
static double memory_limit(const ar_run_options *opt)
{
    return opt->max_memory > 0 ? opt->max_memory
                               : 0.8 * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

static double mapped_bytes(void)
{
    double mapped = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    unsigned long pages;
    if (statm && fscanf(statm, "%lu", &pages) == 1)
        mapped = (double)pages * (double)sysconf(_SC_PAGESIZE);
    if (statm)
        fclose(statm);
    return mapped;
}

/* glibc gives each new thread that allocates a malloc arena of this much address
 * space (HEAP_MAX_SIZE on 64 bits), up to 8 arenas per core. */
static const double ARENA_BYTES = 64.0 * 1048576;

int ar_preflight_address_space(const ar_run_plan *plan, char *err)
{
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY)
        return 0;
    int team = plan->threads;
    long arena_cap = 8L * sysconf(_SC_NPROCESSORS_ONLN) - 1;
    double arenas = (double)(team - 1 < arena_cap ? team - 1 : arena_cap);
    double point = plan->largest >= 0 ? plan->memory[plan->largest] : 0, mapped = mapped_bytes();
    double stack = ar_plan_thread_stack_bytes(), blas = ar_openblas_buffer_bytes();
    /* the plan's layout memory (HDF5's caches, a margin for the libraries) comes on top
     * of what is mapped now */
    double need = mapped + team * blas + (team - 1) * stack + arenas * ARENA_BYTES + point + plan->layout_bytes;
    if (need <= (double)as.rlim_cur)
        return 0;
    char limit_s[32], need_s[32], blas_s[32], stack_s[32], arena_s[32], point_s[32], layout_s[32], mapped_s[32];
    ar_format_bytes(plan->layout_bytes, layout_s, sizeof layout_s);
    ar_format_bytes((double)as.rlim_cur, limit_s, sizeof limit_s);
    ar_format_bytes(need, need_s, sizeof need_s);
    ar_format_bytes(blas, blas_s, sizeof blas_s);
    ar_format_bytes(stack, stack_s, sizeof stack_s);
    ar_format_bytes(ARENA_BYTES, arena_s, sizeof arena_s);
    ar_format_bytes(point, point_s, sizeof point_s);
    ar_format_bytes(mapped, mapped_s, sizeof mapped_s);
    snprintf(err, AR_ERR_LEN,
             "%s: with %d thread(s) the run needs about %s of address space, the limit (ulimit -v) is %s: per "
             "thread a %s OpenBLAS buffer, a %s stack and a %s malloc arena, %s for the largest point, %s for "
             "the file's layout, %s mapped at start; raise the limit or use fewer --threads",
             plan->spec->source, team, need_s, limit_s, blas_s, stack_s, arena_s, point_s, layout_s, mapped_s);
    return -1;
}

/* The largest point must fit (the plan knows which it is). */
static int check_memory(const ar_run_plan *plan, const ar_run_options *opt, char *err)
{
    double limit = memory_limit(opt);
    if (plan->largest < 0 || plan->memory[plan->largest] <= limit)
        return 0;
    long p;
    int e = ar_plan_locate(plan, plan->largest, &p);
    const ar_experiment *x = &plan->spec->experiments[e];
    ar_point pt;
    ar_experiment_point(x, p, &pt);
    char desc[256], need[32], have[32];
    ar_point_describe(&pt, NULL, 0, desc, sizeof desc);
    ar_format_bytes(plan->memory[plan->largest], need, sizeof need);
    ar_format_bytes(limit, have, sizeof have);
    snprintf(err, AR_ERR_LEN,
             "%s: %s: point %s needs %s with %d threads (workspaces and one value per trial and output); "
             "the limit is %s (--max-memory or 80%% of RAM)",
             x->where, x->name, desc, need, plan->threads, have);
    return -1;
}

/* The whole file is allocated when the run starts: refuse if the disk cannot hold it. A
 * shard's file is sparse: on disk it needs its own share of the points (and the layout's
 * metadata), though its length, which ulimit -f limits, is the whole file's. */
static int check_disk(const ar_run_plan *plan, const char *output, int shards, const char *what, char *err)
{
    char *dir = strdup(output);
    if (!dir) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", output);
        return -1;
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    struct statvfs fs;
    int status = 0;
    double need = shards > 1 ? plan->output_bytes / shards + plan->metadata_bytes : plan->output_bytes;
    char need_s[32], have_s[32], length_s[32];
    ar_format_bytes(need, need_s, sizeof need_s);
    ar_format_bytes(plan->output_bytes, length_s, sizeof length_s);
    struct rlimit limit;
    if (statvfs(slash ? (dir[0] ? dir : "/") : ".", &fs) == 0) {
        double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;
        if (need > free_bytes) {
            ar_format_bytes(free_bytes, have_s, sizeof have_s);
            snprintf(err, AR_ERR_LEN, "%s: the %s needs about %s%s; the disk has %s free", output, what, need_s,
                     shards > 1 ? " (this shard's points)" : "", have_s);
            status = -1;
        }
    }
    if (status == 0 && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        plan->output_bytes > (double)limit.rlim_cur) {
        ar_format_bytes((double)limit.rlim_cur, have_s, sizeof have_s);
        snprintf(err, AR_ERR_LEN, "%s: the %s needs about %s; the file-size limit (ulimit -f) is %s", output, what,
                 length_s, have_s);
        status = -1;
    }
    free(dir);
    return status;
}

int ar_preflight_file_room(const ar_run_plan *plan, const char *output, char *err)
{
    return check_disk(plan, output, 1, "result file", err);
}

int ar_preflight_run(const ar_run_plan *plan, const ar_run_options *opt, char *err)
{
    return ar_preflight_output_path(opt->output, err) || ar_plan_team(opt->threads, err) < 0 ||
                   check_memory(plan, opt, err) || ar_preflight_address_space(plan, err) ||
                   check_disk(plan, opt->output, opt->shards, "result file", err)
               ? -1
               : 0;
}

int ar_preflight_attacks(const ar_spec *spec, const ar_run_options *opt, char *err)
{
    if (ar_preflight_output_path(opt->output, err) || ar_plan_team(opt->threads, err) < 0)
        return -1;
    double file_bytes = 16384; /* the root: spec, provenance */
    for (int k = 0; k < spec->n_attacks; ++k) {
        const ar_attack *a = &spec->attacks[k];
        ar_experiment x;
        double storage[AR_MAX_PARAMS * AR_ATTACK_MAX_SET];
        char name[64];
        if (ar_attack_sizing_experiment(spec, a, &x, storage) != 0)
            continue; /* too many points to size: the search's own checks stand */
        snprintf(name, sizeof name, "attack %s", a->id);
        x.name = name;
        snprintf(x.where, sizeof x.where, "%s", a->where);
        ar_spec one = *spec;
        one.n_experiments = 1;
        one.experiments = &x;
        one.n_attacks = 0;
        ar_run_plan plan;
        if (ar_plan_make(&one, opt->threads, &plan) != 0) {
            snprintf(err, AR_ERR_LEN, "%s: out of memory", spec->source);
            return -1;
        }
        plan.layout_bytes = 0; /* an attack keeps no result file's layout open */
        int refused = check_memory(&plan, opt, err) || ar_preflight_address_space(&plan, err);
        ar_plan_free(&plan);
        if (refused)
            return -1;
        file_bytes += ar_attack_file_bytes(spec, a);
    }
    ar_run_plan file = {.output_bytes = file_bytes, .metadata_bytes = file_bytes};
    return check_disk(&file, opt->output, 1, "attack file", err);
}
