/* test_hooks: the test build's hooks and small sizes, in one place (as Lua's ltests.h).
 *
 * sim/01-base/test_hooks.c holds both builds' values. The library (and attnrank) compiles
 * it plainly: the real sizes, and hooks that read nothing. tests/meson.build's
 * attnrank_test links its own copy compiled with -DAR_TEST_HOOKS, taken before the
 * library's: hooks read from ATTNRANK_TEST_* variables, and sizes small enough that a
 * small test crosses slab, batch and commit boundaries that need a big run in attnrank.
 * Everything else is the same object code in both programs, and no size changes a
 * result's bits (tests/cli/test_build.py compares them). */
#ifndef ATTNRANK_TEST_HOOKS_H
#define ATTNRANK_TEST_HOOKS_H

/* The hooks; their variables are named in test_hooks.c (ATTNRANK_TEST_...). */
typedef enum {
    AR_HOOK_INJECT_FAILURES, /* f: a deterministic fraction f of trials fail (trials.c) */
    AR_HOOK_KILL_AT_COMMIT,  /* N: SIGKILL in the Nth commit with points, data flushed, ledger not (store) */
    AR_HOOK_BLAS_DETECTED,   /* blas_core.c: pretend OpenBLAS detected this core, */
    AR_HOOK_BLAS_CANDIDATE,  /* force this candidate, */
    AR_HOOK_BLAS_CHILD,      /* make the check's child crash, hang or lie, */
    AR_HOOK_BLAS_TIMEOUT,    /* shorten its timeout (seconds), */
    AR_HOOK_BLAS_TRACE,      /* trace on stderr */
    AR_HOOK_STOP_AT_OPEN,    /* PATH: SIGSTOP once PATH is open for reading, before it is read (regular_file.c) */
    AR_HOOK_STOP_AT_NAME,    /* any: SIGSTOP while a private copy has its name (regular_file.c) */
    AR_N_HOOKS
} ar_hook;

/* The hook's value (NULL when unset or empty) in the test build; NULL always in attnrank,
 * which holds none of the variables' names. */
const char *ar_test_hook(ar_hook hook);

/* Sizes whose boundaries are edge cases: the release's, or the test build's small ones. */
typedef struct {
    int slab_points;       /* a slab of points buffered before one write (store_points.c): at most this many */
    double slab_bytes;     /* and about this many bytes; plan.c counts them in a run's memory */
    int batch_points;      /* a batch of cheap points, one per thread (run.c): at most this many */
    double batch_bytes;    /* and about this many bytes of summaries and histograms */
    double commit_seconds; /* points written are committed (flushed, then in the ledger) about this often */
} ar_sizes;
extern const ar_sizes ar_size;

#endif
