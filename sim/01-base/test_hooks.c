/* test_hooks: the two builds' hooks and sizes (include/attnrank/test_hooks.h). */
#include "attnrank/test_hooks.h"

#ifdef AR_TEST_HOOKS
#include <stdlib.h>

static const char *const hook_names[AR_N_HOOKS] = {
    [AR_HOOK_INJECT_FAILURES] = "ATTNRANK_TEST_INJECT_FAILURES",
    [AR_HOOK_KILL_AT_COMMIT] = "ATTNRANK_TEST_KILL_AT_COMMIT",
    [AR_HOOK_BLAS_DETECTED] = "ATTNRANK_TEST_BLAS_DETECTED",
    [AR_HOOK_BLAS_CANDIDATE] = "ATTNRANK_TEST_BLAS_CANDIDATE",
    [AR_HOOK_BLAS_CHILD] = "ATTNRANK_TEST_BLAS_CHILD",
    [AR_HOOK_BLAS_TIMEOUT] = "ATTNRANK_TEST_BLAS_TIMEOUT",
    [AR_HOOK_BLAS_TRACE] = "ATTNRANK_TEST_BLAS_TRACE",
    [AR_HOOK_STOP_AT_OPEN] = "ATTNRANK_TEST_STOP_AT_OPEN",
    [AR_HOOK_STOP_AT_NAME] = "ATTNRANK_TEST_STOP_AT_NAME",
};

const char *ar_test_hook(ar_hook hook)
{
    const char *v = getenv(hook_names[hook]);
    return v && v[0] ? v : NULL;
}

/* A slab of 3 points (1 for a point over 1 KiB), batches of 4, commits 50 times a second. */
const ar_sizes ar_size = {
    .slab_points = 3, .slab_bytes = 1024, .batch_points = 4, .batch_bytes = 4096, .commit_seconds = 0.02};
#else
const char *ar_test_hook(ar_hook hook)
{
    (void)hook;
    return 0;
}

const ar_sizes ar_size = {.slab_points = 8192,
                          .slab_bytes = 8.0 * 1048576,
                          .batch_points = 4096,
                          .batch_bytes = 16.0 * 1048576,
                          .commit_seconds = 1.0};
#endif
