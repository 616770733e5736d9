/* preflight: refuse a run before anything is allocated or written: an output folder
 * that is not there or not writable, a point that would not fit in memory, a result
 * file the disk or the file-size limit cannot hold. */
#define _GNU_SOURCE
#include "engine_parts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int ar_engine_check_output_path(const char *path, char *err)
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
    char desc[256];
    ar_point_describe(&pt, NULL, 0, desc, sizeof desc);
    snprintf(err, AR_ERR_LEN,
             "%s: %s: point %s needs %.2f GiB with %d threads (workspaces and one value "
             "per trial and output); the limit is %.2f GiB (--max-memory, 80%% of RAM or ulimit -v)",
             x->where, x->name, desc, plan->memory[plan->largest] / 1073741824.0, plan->threads,
             limit / 1073741824.0);
    return -1;
}

double ar_engine_output_bytes(const ar_spec *spec)
{
    ar_run_plan plan;
    if (ar_plan_make(spec, 1, &plan) < 0)
        return NAN;
    double bytes = plan.output_bytes;
    ar_plan_free(&plan);
    return bytes;
}

/* The whole file is allocated when the run starts: refuse if the disk cannot hold it. */
static int check_disk(const ar_run_plan *plan, const char *output, char *err)
{
    char *dir = strdup(output);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    struct statvfs fs;
    int status = 0;
    double need = plan->output_bytes;
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

int ar_engine_preflight(const ar_run_plan *plan, const ar_run_options *opt, char *err)
{
    return ar_engine_check_output_path(opt->output, err) || check_memory(plan, opt, err) ||
                   check_disk(plan, opt->output, err)
               ? -1
               : 0;
}
