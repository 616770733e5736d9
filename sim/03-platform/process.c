/* process: the start of the program again, as itself: without OpenBLAS's thread pool
 * where memory is limited, or with a self-checked BLAS core (blas_core.c). */
#define _GNU_SOURCE
#include "attnrank/process.h"

#include "attnrank/linalg.h"
#include "attnrank/openblas.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Where an allocation can fail although RAM is free: an address-space or data-size
 * limit (ulimit -v, ulimit -d), or strict overcommit accounting. */
static int address_space_limited(void)
{
    struct rlimit as, data;
    if ((getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
        (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY))
        return 1;
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1)
            mode = 0;
        fclose(f);
    }
    return mode == 2;
}

/* OpenBLAS's constructor starts its pool before main(), and each pool thread maps its
 * buffer at once, retrying forever when the mmap fails; exit() then waits for it in
 * pthread_join: a hang, even for --version. attnrank never uses the pool (BLAS runs
 * single-threaded inside OpenMP), so where memory is limited the program starts again
 * with OPENBLAS_NUM_THREADS=1, before anything else: no pool at all. That start is
 * the same exec as the one for a self-checked BLAS core (blas_core.c). */
int ar_process_blas_pool_must_go(void)
{
    if (ar_openblas_pool_threads() <= 1 || !address_space_limited())
        return 0;
    const char *pinned = getenv("OPENBLAS_NUM_THREADS");
    return !(pinned && strcmp(pinned, "1") == 0); /* already started again: OpenBLAS ignored it; never loop */
}

int ar_process_address_space_limited(void)
{
    return address_space_limited();
}

int ar_process_start_again(char **argv, const char *name, const char *value)
{
    if (name && setenv(name, value, 1) != 0)
        return -1;
    /* the program's own file, even if it was replaced or deleted since it started */
    execv("/proc/self/exe", argv);
    return -1; /* exec failed: go on; the pool hangs only if its buffers did not fit */
}
