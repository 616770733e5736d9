/* blas_core: the OpenBLAS core a process runs with, chosen safely.
 *
 * OpenBLAS (DYNAMIC_ARCH) picks its kernels in a library constructor, before main(),
 * from OPENBLAS_CORETYPE or its own CPU detection; 0.3.21 names CPUs newer than itself
 * Prescott and runs SSE3 kernels on AVX-512 machines. A core can only be changed by
 * starting the program again with OPENBLAS_CORETYPE set, so ar_blas_core_select() runs
 * first in main():
 *
 *   1. OPENBLAS_CORETYPE set (even empty, which OpenBLAS reads too): left alone,
 *      "environment"; a core whose kernels use instructions the CPU lacks is refused
 *      (exit 2), as it would crash (SIGILL) mid-run. ATTNRANK_BLAS_CORE=off: OpenBLAS's
 *      choice, "detected".
 *   2. Otherwise the candidates are the cores the CPU's flags support above the detected
 *      one's level (ar_blas_core_candidates). None: "detected" (this machine).
 *   3. A candidate is used only after a known-answer check of it here: a child process,
 *      this program started by posix_spawn with a hidden first argument and
 *      OPENBLAS_CORETYPE=<candidate>, computes dgemm, dgesdd and dgeev on fixed inputs;
 *      a crash, a hang (CHECK_SECONDS, then SIGKILL), another core than asked for
 *      (OpenBLAS falls back on names it does not know) or results outside the tolerances
 *      (ar_blas_check_compare) reject it. The outcome is cached per machine (CPU and
 *      OpenBLAS build) in $XDG_CACHE_HOME/attnrank or ~/.cache/attnrank; starts that race
 *      (an MPI job's ranks) check once, under a lock on that folder (cache_lock).
 *   4. A proven core: the program starts again (one execv, merged with the start without
 *      OpenBLAS's pool under memory limits) with OPENBLAS_CORETYPE and a marker naming
 *      the core, the detected one and the pid; the new image (same pid) finds the marker,
 *      records "chosen" and removes both variables from its environment, so that what it
 *      starts (figure scripts, whose numpy may load another OpenBLAS the check did not
 *      vouch for) sees the user's environment. No proven core: a one-line note, once
 *      per machine (once per process where the cache cannot be written).
 *
 * Where the address space is limited (ulimit -v) or under valgrind the check does not
 * run (its OpenBLAS buffer may not fit; a new image would run unchecked); a cached
 * proof is still used where memory is limited. */
#define _GNU_SOURCE
#include "attnrank/blas_core.h"

#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rng.h"
#include "attnrank/process.h"
#include "attnrank/test_hooks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define CHILD_ARG "--blas-core-self-check"
#define MARKER "ATTNRANK_BLAS_CORE_CHOSEN"
#define SWITCH "ATTNRANK_BLAS_CORE"
#define CHECK_HEADER "attnrank-blas-check 1"
#define CACHE_MAGIC "attnrank blas core cache 1"

enum {
    CHECK_SECONDS = 20,   /* a child that takes longer is killed: about 0.1 s is normal */
    CACHE_MAX = 4096,     /* a larger cache file is not read */
    CORE_NAME = 32,       /* OpenBLAS's core names are shorter */
    DETAIL = 320,
    EXIT_BAD_INPUT = 2,   /* the command line's status for bad input (cli_parts.h) */
};

static void say_into(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say_into(char *why, size_t len, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, len, fmt, args);
    va_end(args);
}

/* ---- the process's state ------------------------------------------------------------ */

static struct {
    const char *origin;            /* "detected", "chosen", "environment" */
    int off;                       /* ATTNRANK_BLAS_CORE=off */
    int cpu_level;
    char detected[CORE_NAME];      /* OpenBLAS's own choice (before a chosen start: the marker's) */
    const char *candidates[2];
    int n_candidates;
    char chosen[CORE_NAME];
    char cache[PATH_MAX];          /* the cache file, "" if there is none */
    int cache_read, cache_written; /* an entry was found; the outcome was stored */
    char detail[DETAIL];           /* the check's outcome, or why it did not run */
    int selected;
} state = {.origin = "detected"};

/* The test build's hooks (test_hooks.h): pretend another detected core or candidate,
 * make the check's child misbehave, shorten its timeout, trace; attnrank has none. */
static void trace_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace_line(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fputs("attnrank: trace: ", stderr);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}
#define trace(...) (ar_test_hook(AR_HOOK_BLAS_TRACE) ? trace_line(__VA_ARGS__) : (void)0)

/* A core name as OpenBLAS spells them: letters, digits and '_'. */
static int valid_core_name(const char *s, size_t len)
{
    size_t n = 0;
    for (; s[n] && s[n] != '/'; ++n)
        if (!(isalnum((unsigned char)s[n]) || s[n] == '_') || n + 1 >= len)
            return 0;
    return n > 0;
}

/* Printable ASCII only (texts from the environment, the CPU or the cache reach the
 * terminal), at most len - 1 bytes. */
static void printable(char *dst, size_t len, const char *src)
{
    size_t k = 0;
    for (; src && *src && k + 1 < len; ++src)
        dst[k++] = (unsigned char)*src >= 0x20 && (unsigned char)*src < 0x7f ? *src : '?';
    dst[k] = '\0';
}

/* ---- the machine's key ------------------------------------------------------------- */

static void cpu_description(char *out, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d, regs[12] = {0};
    char vendor[13] = "unknown", brand[49] = "";
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
        vendor[12] = '\0';
    }
    unsigned family = 0, model = 0, stepping = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        family = (a >> 8) & 0xf, model = (a >> 4) & 0xf, stepping = a & 0xf;
        if (family == 0xf)
            family += (a >> 20) & 0xff;
        if (family == 0x6 || family >= 0xf)
            model += ((a >> 16) & 0xf) << 4;
    }
    if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000004) {
        for (unsigned leaf = 0; leaf < 3; ++leaf)
            __get_cpuid(0x80000002 + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2],
                        &regs[4 * leaf + 3]);
        memcpy(brand, regs, 48);
        brand[48] = '\0';
    }
    char v[16], br[64];
    printable(v, sizeof v, vendor);
    const char *start = brand;
    while (*start == ' ')
        start++;
    printable(br, sizeof br, start);
    for (size_t n = strlen(br); n > 0 && br[n - 1] == ' ';)
        br[--n] = '\0';
    snprintf(out, len, "%s %s, family %u model %u stepping %u", v, br, family, model, stepping);
#else
    snprintf(out, len, "not x86");
#endif
}

/* CPU, the level its flags support, OpenBLAS's build without the core's name (which the
 * core in use changes), the check's version. */
static void machine_key(char *key, size_t len)
{
    char cpu[160], config[256], out[256] = "";
    cpu_description(cpu, sizeof cpu);
    printable(config, sizeof config, ar_openblas_config());
    const char *core = ar_openblas_corename();
    for (char *word = strtok(config, " "); word; word = strtok(NULL, " "))
        if (!core || strcasecmp(word, core) != 0) {
            strncat(out, out[0] ? " " : "", sizeof out - strlen(out) - 1);
            strncat(out, word, sizeof out - strlen(out) - 1);
        }
    snprintf(key, len, "%s; flags %s; %s; check 1", cpu, ar_blas_core_level_name(state.cpu_level), out);
}

/* ---- the cache ------------------------------------------------------------------------ */

/* The cache folder: $XDG_CACHE_HOME/attnrank (an absolute path, as the XDG spec asks),
 * else $HOME/.cache/attnrank; the file is named by a hash of the key, so machines that
 * share a home (a cluster's nodes) keep an entry each. 0 if a path was found. */
static int cache_path(const char *key, char *dir, size_t dir_len, char *file, size_t file_len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(dir, dir_len, "%s/attnrank", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dir, dir_len, "%s/.cache/attnrank", home);
    else
        return -1;
    if (n < 0 || (size_t)n >= dir_len)
        return -1;
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)key; *c; ++c)
        h = (h ^ *c) * 0x100000001b3u;
    n = snprintf(file, file_len, "%s/blas-core-%016llx", dir, (unsigned long long)h);
    return n < 0 || (size_t)n >= file_len ? -1 : 0;
}

typedef struct {
    char chosen[CORE_NAME]; /* "-": none proven */
    int hinted;
    char detail[DETAIL];
} cache_entry;

static int candidates_text(char *out, size_t len)
{
    int n = snprintf(out, len, "%s%s%s", state.n_candidates > 0 ? state.candidates[0] : "",
                     state.n_candidates > 1 ? " " : "", state.n_candidates > 1 ? state.candidates[1] : "");
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Reads the entry for this key and these candidates; anything else (absent, a link, not
 * a plain file, not ours, writable by others, larger than CACHE_MAX, another key or
 * other candidates, a line out of place) is no entry. */
static int cache_read(const char *path, const char *key, cache_entry *e)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    struct stat st;
    char buf[CACHE_MAX + 1];
    ssize_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022) &&
        st.st_size <= CACHE_MAX)
        got = read(fd, buf, CACHE_MAX + 1);
    close(fd);
    if (got <= 0 || got > CACHE_MAX || memchr(buf, '\0', (size_t)got))
        return -1;
    buf[got] = '\0';
    char cands[2 * CORE_NAME + 2];
    if (candidates_text(cands, sizeof cands) < 0)
        return -1;
    const char *prefix[] = {CACHE_MAGIC, "machine ", "candidates ", "chosen ", "hinted ", "detail "};
    char *line = buf, *fields[6];
    for (int i = 0; i < 6; ++i) {
        char *end = strchr(line, '\n');
        if (!end || strncmp(line, prefix[i], strlen(prefix[i])) != 0)
            return -1;
        *end = '\0';
        fields[i] = line + strlen(prefix[i]);
        line = end + 1;
    }
    if (*line || fields[0][0] || strcmp(fields[1], key) != 0 || strcmp(fields[2], cands) != 0)
        return -1;
    int known = strcmp(fields[3], "-") == 0;
    for (int i = 0; i < state.n_candidates; ++i)
        known |= strcmp(fields[3], state.candidates[i]) == 0;
    if (!known || (strcmp(fields[4], "yes") != 0 && strcmp(fields[4], "no") != 0) ||
        strlen(fields[5]) >= sizeof e->detail)
        return -1;
    snprintf(e->chosen, sizeof e->chosen, "%s", fields[3]);
    e->hinted = strcmp(fields[4], "yes") == 0;
    printable(e->detail, sizeof e->detail, fields[5]);
    return 0;
}

/* mkdir -p of the cache folder (0700). */
static int cache_folder(const char *dir)
{
    char part[PATH_MAX];
    snprintf(part, sizeof part, "%s", dir);
    for (char *c = part + 1; *c; ++c)
        if (*c == '/') {
            *c = '\0';
            if (mkdir(part, 0700) != 0 && errno != EEXIST)
                return -1;
            *c = '/';
        }
    return mkdir(part, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Processes that start together on one machine (the ranks of an MPI job on a node, a
 * job array's tasks) would each run the check: the first takes an exclusive flock on
 * the cache folder for its check and its entry, the others wait for it (at most as long
 * as its checks can take) and then read that entry. The lock is on the folder, ours and
 * not writable by others, so no file is added beside the entries; where there is none
 * (no folder can be made, a link, another user's, NFS without flock) every process
 * checks, as without a cache. Returns the folder's descriptor, or -1. */
static double now_seconds(void);
static int cache_lock(const char *dir)
{
    if (cache_folder(dir) != 0)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(fd);
        return -1;
    }
    double deadline = now_seconds() + CHECK_SECONDS * (state.n_candidates > 0 ? state.n_candidates : 1) + 5;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || now_seconds() > deadline) {
            trace("no lock on %s: %s", dir, errno == EWOULDBLOCK ? "still held" : strerror(errno));
            close(fd);
            return -1;
        }
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return fd;
}

/* A temporary file renamed over the entry (in the folder, made if need be): a reader
 * sees the old entry or the new one, never half of one. SIGXFSZ is ignored meanwhile:
 * under ulimit -f the write fails instead of killing the program. */
static int cache_write(const char *dir, const char *path, const char *key, const cache_entry *e)
{
    char tmp[PATH_MAX], cands[2 * CORE_NAME + 2], text[CACHE_MAX + 1];
    if (cache_folder(dir) != 0 || candidates_text(cands, sizeof cands) < 0)
        return -1;
    int len = snprintf(text, sizeof text, CACHE_MAGIC "\nmachine %s\ncandidates %s\nchosen %s\nhinted %s\ndetail %s\n",
                       key, cands, e->chosen, e->hinted ? "yes" : "no", e->detail);
    int n = snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    if (len < 0 || len > CACHE_MAX || n < 0 || (size_t)n >= sizeof tmp)
        return -1;
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &old);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600), ok = fd >= 0;
    if (ok) {
        ok = write(fd, text, (size_t)len) == len;
        ok = close(fd) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok)
            unlink(tmp);
    }
    sigaction(SIGXFSZ, &old, NULL);
    return ok ? 0 : -1;
}

/* ---- the child ----------------------------------------------------------------------- */

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

/* The check's child: the results under the core OpenBLAS runs here, on stdout. */
static void run_child(void)
{
    if (isatty(STDOUT_FILENO)) { /* its output is binary, for the parent's pipe */
        fputs("attnrank: " CHILD_ARG " is the self-check's child process, started by attnrank itself\n", stderr);
        _exit(EXIT_BAD_INPUT);
    }
    prctl(PR_SET_DUMPABLE, 0); /* a candidate that crashes leaves no core file */
    size_t n = ar_blas_check_length();
    double *out = malloc(n * sizeof *out);
    if (!out)
        _exit(3);
    int status = ar_blas_check_compute(out);
    const char *misbehave = ar_test_hook(AR_HOOK_BLAS_CHILD);
    if (misbehave && strcmp(misbehave, "crash") == 0) {
        signal(SIGSEGV, SIG_DFL); /* a sanitizer's handler would turn it into exit 1 */
        raise(SIGSEGV);
    }
    if (misbehave && strcmp(misbehave, "hang") == 0)
        for (;;)
            pause();
    if (misbehave && strcmp(misbehave, "garbage") == 0)
        out[64 * 64 + 200 * 137 + 64] *= 1 + 1e-6; /* dgesdd 200x137's sigma_1 */
    char header[128];
    int len = snprintf(header, sizeof header, CHECK_HEADER " %s %zu\n", ar_openblas_corename(), n);
    if (write_all(STDOUT_FILENO, header, (size_t)len) < 0 || write_all(STDOUT_FILENO, out, n * sizeof *out) < 0)
        _exit(3);
    _exit(status == 0 ? 0 : 4);
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The child's environment: ours with OPENBLAS_CORETYPE=<core>, one BLAS thread (no
 * pool to start) and without the marker. */
static char **child_environment(const char *core, char *coretype, size_t len)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = malloc((n + 3) * sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    static const char *const drop[] = {"OPENBLAS_CORETYPE=", "OPENBLAS_NUM_THREADS=", MARKER "=", "OPENBLAS_VERBOSE="};
    for (size_t i = 0; i < n; ++i) {
        int keep = 1;
        for (size_t d = 0; d < sizeof drop / sizeof drop[0]; ++d)
            keep &= strncmp(environ[i], drop[d], strlen(drop[d])) != 0;
        if (keep)
            env[k++] = environ[i];
    }
    snprintf(coretype, len, "OPENBLAS_CORETYPE=%s", core);
    env[k++] = coretype;
    env[k++] = "OPENBLAS_NUM_THREADS=1";
    env[k] = NULL;
    return env;
}

/* Runs the check of one core in a child; 1 if it agrees with the reference, else 0
 * with why (a crash, a hang, another core, a difference) or -1 if it could not run. */
static int check_core(const char *self, const char *core, const double *reference, char *why, size_t len)
{
    size_t n = ar_blas_check_length(), expect = n * sizeof(double);
    char coretype[64], header[128];
    char **env = child_environment(core, coretype, sizeof coretype);
    char *data = malloc(expect + sizeof header + 1);
    int fds[2] = {-1, -1};
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int have_actions = posix_spawn_file_actions_init(&actions) == 0, have_attr = posix_spawnattr_init(&attr) == 0;
    int result = -1;
    pid_t pid = -1;
    if (!env || !data || !have_actions || !have_attr || pipe2(fds, O_CLOEXEC) != 0) {
        say_into(why, len, "%s: the check could not start: %s", core, !env || !data ? "out of memory" : strerror(errno));
        goto done;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *child_argv[] = {(char *)self, CHILD_ARG, NULL};
    int err = posix_spawn(&pid, self, &actions, &attr, child_argv, env);
    close(fds[1]);
    if (err != 0) {
        pid = -1;
        say_into(why, len, "%s: the check could not start: %s", core, strerror(err));
        goto done;
    }
    trace("self-check of %s: spawned child %ld", core, (long)pid);
    const char *limit = ar_test_hook(AR_HOOK_BLAS_TIMEOUT);
    double seconds = limit ? atof(limit) : CHECK_SECONDS, deadline = now_seconds() + seconds;
    size_t got = 0, cap = expect + sizeof header;
    int timed_out = 0, too_much = 0;
    for (;;) {
        double left = deadline - now_seconds();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue; /* the deadline decides */
        ssize_t r = read(fds[0], data + got, cap + 1 - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            break; /* EOF: the child is done with its stdout */
        got += (size_t)r;
        if (got > cap) {
            too_much = 1;
            break;
        }
    }
    int status = 0, reaped = 0;
    while (!timed_out && !reaped) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            reaped = 1;
        else if (w < 0 && errno != EINTR)
            break;
        else if (now_seconds() > deadline)
            timed_out = 1;
        else
            usleep(2000);
    }
    if (!reaped) {
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    pid = -1;
    if (timed_out) {
        say_into(why, len, "%s did not finish within %g s", core, seconds);
        result = 0;
    } else if (!reaped) {
        say_into(why, len, "%s: the check's child could not be waited for", core);
    } else if (WIFSIGNALED(status)) {
        say_into(why, len, "%s crashed (signal %d, %s)", core, WTERMSIG(status), strsignal(WTERMSIG(status)));
        result = 0;
    } else if (WEXITSTATUS(status) != 0) {
        say_into(why, len, "%s failed (exit %d%s)", core, WEXITSTATUS(status),
                 WEXITSTATUS(status) == 4 ? ": a LAPACK routine did not converge" : "");
        result = 0;
    } else {
        char name[CORE_NAME + 1] = "";
        size_t count = 0;
        char *nl = too_much ? NULL : memchr(data, '\n', got < sizeof header ? got : sizeof header);
        int parsed = nl && (size_t)(nl - data) < sizeof header;
        if (parsed) {
            memcpy(header, data, (size_t)(nl - data));
            header[nl - data] = '\0';
            char tail;
            parsed = sscanf(header, CHECK_HEADER " %32s %zu%c", name, &count, &tail) == 2;
        }
        result = 0;
        if (!parsed || count != n || got - (size_t)(nl - data + 1) != expect) {
            say_into(why, len, "%s gave no well-formed result", core);
        } else if (strcasecmp(name, core) != 0) {
            char shown[CORE_NAME + 1];
            printable(shown, sizeof shown, name);
            say_into(why, len, "OpenBLAS ran %s when asked for %s (it does not take that name here)", shown, core);
        } else {
            double *values = malloc(expect);
            if (!values) {
                say_into(why, len, "%s: out of memory", core);
                result = -1;
            } else {
                memcpy(values, nl + 1, expect);
                char diff[DETAIL];
                result = ar_blas_check_compare(reference, values, diff, sizeof diff) == 0;
                if (!result)
                    say_into(why, len, "%s: %s", core, diff);
                free(values);
            }
        }
    }
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (have_actions)
        posix_spawn_file_actions_destroy(&actions);
    if (have_attr)
        posix_spawnattr_destroy(&attr);
    free(env);
    free(data);
    return result;
}

/* The check of each candidate, best first, until one passes. The reference is this
 * process's own core on one BLAS thread (restored afterwards). Returns the index of the
 * proven candidate, -1 if none passed, or -2 if no check could run at all (no process or
 * file descriptor to spare, or this core's own results failed): that is not cached, so a
 * later start checks again. The outcome is in detail. */
static int run_checks(char *detail, size_t len)
{
    /* the program's own file, even if it was replaced or deleted since it started */
    static const char self[] = "/proc/self/exe";
    size_t n = ar_blas_check_length();
    double *reference = malloc(n * sizeof *reference);
    if (!reference) {
        say_into(detail, len, "the check could not start: out of memory");
        return -2;
    }
    double start = now_seconds();
    int threads = ar_openblas_pool_threads();
    ar_openblas_set_threads(1);
    int status = ar_blas_check_compute(reference);
    ar_openblas_set_threads(threads);
    for (size_t i = 0; status == 0 && i < n; ++i)
        status = isfinite(reference[i]) ? 0 : -1;
    if (status != 0) {
        free(reference);
        say_into(detail, len, "the check could not run: %s's own results failed", state.detected);
        return -2;
    }
    /* SIGCHLD ignored (inherited so) would reap the child before we see its status */
    struct sigaction dfl = {.sa_handler = SIG_DFL}, old;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old);
    int proven = -1, decided = 0;
    detail[0] = '\0';
    for (int c = 0; c < state.n_candidates && proven < 0; ++c) {
        char why[DETAIL / 2];
        int r = check_core(self, state.candidates[c], reference, why, sizeof why);
        decided |= r >= 0;
        if (r == 1) {
            proven = c;
            snprintf(why, sizeof why, "%s passed (dgemm, dgesdd, dgeev at n = 64 and 200 agree with %s's) in %.0f ms",
                     state.candidates[c], state.detected, 1e3 * (now_seconds() - start));
        }
        size_t used = strlen(detail);
        if (used + 2 < len)
            snprintf(detail + used, len - used, "%s%s", used ? "; " : "", why);
    }
    sigaction(SIGCHLD, &old, NULL);
    free(reference);
    return proven >= 0 || decided ? proven : -2;
}

/* ---- the choice -------------------------------------------------------------------- */

static void start_again(char **argv, const char *core, int pool)
{
    char marker[3 * CORE_NAME + 32];
    snprintf(marker, sizeof marker, "%s/%s/%ld", core, state.detected, (long)getpid());
    trace("start again with OPENBLAS_CORETYPE=%s%s", core, pool ? " OPENBLAS_NUM_THREADS=1" : "");
    if (setenv("OPENBLAS_CORETYPE", core, 1) == 0 && setenv(MARKER, marker, 1) == 0 &&
        (!pool || setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0))
        ar_process_start_again(argv, NULL, NULL);
    /* the exec failed: go on with OpenBLAS's own core (the pool's start is the caller's) */
    unsetenv("OPENBLAS_CORETYPE");
    unsetenv(MARKER);
    snprintf(state.detail, sizeof state.detail, "%s was proven but the program could not start again with it",
             core);
}

/* The marker of a start this process made: CORE/DETECTED/PID with this pid, and
 * OpenBLAS running CORE. Anything else (inherited, or set by hand) is not ours. */
static int our_marker(const char *marker, const char *coretype)
{
    if (!marker || !coretype || !valid_core_name(marker, CORE_NAME))
        return 0;
    const char *second = strchr(marker, '/');
    if (!second || !valid_core_name(second + 1, CORE_NAME))
        return 0;
    const char *third = strchr(second + 1, '/');
    char *end;
    if (!third || !third[1])
        return 0;
    errno = 0;
    long pid = strtol(third + 1, &end, 10);
    size_t core_len = (size_t)(second - marker);
    if (errno || *end || pid != (long)getpid() || strlen(coretype) != core_len ||
        strncmp(marker, coretype, core_len) != 0 || !ar_openblas_corename() ||
        strcasecmp(coretype, ar_openblas_corename()) != 0)
        return 0;
    snprintf(state.chosen, sizeof state.chosen, "%.*s", (int)core_len, marker);
    snprintf(state.detected, sizeof state.detected, "%.*s", (int)(third - second - 1), second + 1);
    return 1;
}

static void hint(void)
{
    char text[DETAIL + 256];
    snprintf(text, sizeof text,
             "note: OpenBLAS uses its %s kernels on this %s CPU; a better core failed attnrank's self-check "
             "(%s), so it is not used (`attnrank info` says more; " SWITCH "=off silences this)",
             state.detected, ar_blas_core_level_name(state.cpu_level), state.detail);
    char line[sizeof text];
    printable(line, sizeof line, text);
    fprintf(stderr, "attnrank: %s\n", line);
}

/* Under valgrind (its preload library): a new image would run unchecked. */
static int under_valgrind(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "vgpreload") != NULL;
}

/* The cache's entry, else the check (stored, and told once if nothing passed); a
 * proven core starts the program again (with the pool's start merged in). */
static void choose(char **argv, int pool)
{
    char key[512], dir[PATH_MAX];
    machine_key(key, sizeof key);
    if (cache_path(key, dir, sizeof dir, state.cache, sizeof state.cache) != 0)
        state.cache[0] = '\0';
    cache_entry e = {"-", 0, ""};
    int hit = state.cache[0] && cache_read(state.cache, key, &e) == 0, lock = -1;
    if (!hit && state.cache[0] && !ar_process_address_space_limited() && !under_valgrind()) {
        lock = cache_lock(dir); /* another start may be checking: its entry, once it is there */
        hit = lock >= 0 && cache_read(state.cache, key, &e) == 0;
    }
    if (hit) {
        state.cache_read = 1;
        snprintf(state.detail, sizeof state.detail, "%s", e.detail);
        trace("cache hit %s: %s", state.cache, e.chosen);
    } else if (ar_process_address_space_limited() || under_valgrind()) {
        snprintf(state.detail, sizeof state.detail, "did not run (%s)",
                 under_valgrind() ? "under valgrind" : "the address space is limited");
        return; /* not decided: nothing stored, nothing told */
    } else {
        int proven = run_checks(e.detail, sizeof e.detail);
        if (proven == -2) { /* no check could start (fds, processes, memory): nothing learnt */
            snprintf(state.detail, sizeof state.detail, "%s", e.detail);
            trace("not cached: no check could run");
            if (lock >= 0)
                close(lock);
            return;
        }
        snprintf(e.chosen, sizeof e.chosen, "%s", proven >= 0 ? state.candidates[proven] : "-");
        e.hinted = proven < 0; /* told below */
        snprintf(state.detail, sizeof state.detail, "%s", e.detail);
        state.cache_written = state.cache[0] && cache_write(dir, state.cache, key, &e) == 0;
        trace("cache %s %s", state.cache_written ? "written" : "not written", state.cache);
        if (proven < 0)
            hint(); /* once per machine, or once per process where the cache is not written */
    }
    if (lock >= 0)
        close(lock); /* the entry is written: the starts waiting for it go on */
    if (strcmp(e.chosen, "-") != 0) {
        if (!under_valgrind())
            start_again(argv, e.chosen, pool); /* returns only if the exec failed */
        return;
    }
    if (!e.hinted) { /* an entry from a process that could not tell it */
        e.hinted = 1;
        state.cache_written = cache_write(dir, state.cache, key, &e) == 0;
        hint();
    }
}

/* For `info` in a process started with a chosen core: its cache entry. */
static void read_cache_for_info(void)
{
    char key[512], dir[PATH_MAX];
    cache_entry e;
    state.n_candidates = ar_blas_core_candidates(state.detected, state.cpu_level, state.candidates);
    machine_key(key, sizeof key);
    if (state.n_candidates > 0 && cache_path(key, dir, sizeof dir, state.cache, sizeof state.cache) == 0 &&
        cache_read(state.cache, key, &e) == 0) {
        state.cache_read = 1;
        snprintf(state.detail, sizeof state.detail, "%s", e.detail);
    } else {
        state.cache[0] = '\0';
    }
}

/* An OPENBLAS_CORETYPE whose kernels use instructions this CPU lacks: OpenBLAS runs them
 * anyway and the program dies of SIGILL at its first BLAS call, mid-run. Refused here,
 * before any work, never replaced. */
static void refuse_lacking_core(const char *coretype)
{
    const char *lacking = ar_blas_core_lacking(coretype, state.cpu_level, ar_blas_core_cpu_extras());
    if (!lacking)
        return;
    char shown[CORE_NAME];
    printable(shown, sizeof shown, coretype);
    fprintf(stderr, "attnrank: OPENBLAS_CORETYPE=%s: its kernels use %s, which this CPU lacks (its flags support "
            "%s kernels); unset it, or name a core this CPU runs\n", shown, lacking,
            ar_blas_core_level_name(state.cpu_level));
    fflush(stderr);
    _exit(EXIT_BAD_INPUT);
}

void ar_blas_core_select(char **argv)
{
    if (argv && argv[0] && argv[1] && strcmp(argv[1], CHILD_ARG) == 0)
        run_child();
    if (state.selected)
        return;
    state.selected = 1;
    int pool = ar_process_blas_pool_must_go();
    const char *sw = getenv(SWITCH), *coretype = getenv("OPENBLAS_CORETYPE"), *marker = getenv(MARKER);
    if (sw && sw[0] && strcmp(sw, "auto") != 0 && strcmp(sw, "off") != 0) {
        char shown[64];
        printable(shown, sizeof shown, sw);
        fprintf(stderr, "attnrank: " SWITCH "=%s%s: want auto (the default) or off\n", shown,
                strlen(sw) >= sizeof shown ? "..." : "");
        fflush(stderr);
        _exit(EXIT_BAD_INPUT); /* not exit(): under ulimit -v OpenBLAS's pool would hang it (preflight.c) */
    }
    char why[256]; /* the program's other switch, checked here at the same start */
    if (ar_rng_normals_env_check(why, sizeof why) < 0) {
        fprintf(stderr, "attnrank: %s\n", why);
        fflush(stderr);
        _exit(EXIT_BAD_INPUT);
    }
    state.off = sw && strcmp(sw, "off") == 0;
    state.cpu_level = ar_blas_core_cpu_level();
    snprintf(state.detected, sizeof state.detected, "%s", ar_openblas_corename() ? ar_openblas_corename() : "unknown");
    if (our_marker(marker, coretype)) {
        state.origin = "chosen";
        unsetenv("OPENBLAS_CORETYPE"); /* OpenBLAS read it at load; what we start sees the user's environment */
        unsetenv(MARKER);
        trace("chosen core %s (detected %s)", state.chosen, state.detected);
    } else {
        if (marker)
            unsetenv(MARKER);
        if (coretype) {
            refuse_lacking_core(coretype);
            state.origin = "environment";
            trace("OPENBLAS_CORETYPE is set: left alone");
        } else if (!state.off) {
            const char *pretend = ar_test_hook(AR_HOOK_BLAS_DETECTED), *forced = ar_test_hook(AR_HOOK_BLAS_CANDIDATE);
            if (pretend && valid_core_name(pretend, CORE_NAME) && !strchr(pretend, '/'))
                snprintf(state.detected, sizeof state.detected, "%s", pretend);
            state.n_candidates = ar_blas_core_candidates(state.detected, state.cpu_level, state.candidates);
            if (forced && valid_core_name(forced, CORE_NAME) && !strchr(forced, '/'))
                state.candidates[0] = forced, state.n_candidates = 1;
            trace("detected %s, CPU level %s, %d candidate(s)", state.detected, ar_blas_core_level_name(state.cpu_level),
                  state.n_candidates);
        }
    }
    if (state.n_candidates > 0 && strcmp(state.origin, "detected") == 0)
        choose(argv, pool);
    if (pool)
        ar_process_start_again(argv, "OPENBLAS_NUM_THREADS", "1");
}

const char *ar_blas_core_origin(void)
{
    if (!state.selected) /* a program that did not select (a test): what the environment says */
        return getenv("OPENBLAS_CORETYPE") ? "environment" : "detected";
    return state.origin;
}

void ar_blas_core_print(FILE *out)
{
    char cpu[160], value[64], config[256];
    cpu_description(cpu, sizeof cpu);
    int level = state.selected ? state.cpu_level : ar_blas_core_cpu_level();
    const char *origin = ar_blas_core_origin();
    fprintf(out, "BLAS core: %s (%s)\n", ar_openblas_corename() ? ar_openblas_corename() : "unknown", origin);
    printable(config, sizeof config, ar_openblas_config());
    fprintf(out, "  OpenBLAS   %s\n", config);
    fprintf(out, "  CPU        %s; its flags support %s kernels\n", cpu, ar_blas_core_level_name(level));
    if (strcmp(origin, "chosen") == 0 && !state.cache_read)
        read_cache_for_info();
    if (strcmp(origin, "environment") == 0) {
        printable(value, sizeof value, getenv("OPENBLAS_CORETYPE"));
        fprintf(out, "  decided    by OPENBLAS_CORETYPE=%s in the environment: attnrank never overrides it\n", value);
    } else if (strcmp(origin, "chosen") == 0) {
        fprintf(out, "  decided    by attnrank after its self-check: OpenBLAS detected %s\n", state.detected);
    } else {
        fprintf(out, "  decided    by OpenBLAS's own detection%s\n",
                state.off ? " (" SWITCH "=off: attnrank does not choose)" : "");
    }
    if (state.n_candidates == 0 && strcmp(origin, "detected") == 0 && !state.off)
        fprintf(out, "  self-check not needed: no core above %s's level for this CPU\n", state.detected);
    if (state.detail[0])
        fprintf(out, "  self-check %s\n", state.detail);
    char cache_shown[PATH_MAX];
    printable(cache_shown, sizeof cache_shown, state.cache); /* from XDG_CACHE_HOME or HOME */
    if (state.cache[0])
        fprintf(out, "  cache      %s (%s; delete it to check again)\n", cache_shown,
                state.cache_read ? "read" : state.cache_written ? "written now" : "could not be written");
    else if (state.n_candidates > 0)
        fprintf(out, "  cache      none (neither XDG_CACHE_HOME nor HOME is an absolute path)\n");
}
