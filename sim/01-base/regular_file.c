/* regular_file: open a file only if it is a regular one, never blocking on a FIFO; the
 * private copy a reader reads instead of the file. */
#define _GNU_SOURCE
#include "attnrank/regular_file.h"

#include "attnrank/test_hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    return S_ISFIFO(mode) ? "a FIFO" : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
           : S_ISSOCK(mode) ? "a socket" : "a special file";
}

int ar_open_regular(const char *path, int flags, char *why, size_t len, int *open_failed)
{
    int failed_open = 0;
    /* O_NONBLOCK: a FIFO's open() would wait for a writer; the descriptor is kept only
     * for a regular file, and made blocking again. */
    int fd = open(path, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int saved = errno;
        /* a socket (ENXIO), or a FIFO opened for writing with no reader (ENXIO too) */
        if (saved == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(why, len, "not a regular file but %s", kind_of(st.st_mode));
        } else {
            snprintf(why, len, "%s", strerror(saved));
            failed_open = 1;
        }
        if (open_failed)
            *open_failed = failed_open;
        errno = saved;
        return -1;
    }
    int flags_now = -1;
    if (fstat(fd, &st) != 0) {
        snprintf(why, len, "%s", strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(why, len, "it is a directory");
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "not a regular file but %s", kind_of(st.st_mode));
    } else if ((flags_now = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags_now & ~O_NONBLOCK) < 0) {
        snprintf(why, len, "%s", strerror(errno));
    } else {
        /* the test build stops here, PATH open and unread, for a test to swap or rewrite it */
        const char *stop_at = ar_test_hook(AR_HOOK_STOP_AT_OPEN);
        if (stop_at && strcmp(stop_at, path) == 0)
            raise(SIGSTOP);
        return fd;
    }
    close(fd);
    if (open_failed)
        *open_failed = 0;
    return -1;
}

static const char *temporary_folder(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

/* A file only this process holds, in $TMPDIR (default /tmp): with no name (O_TMPFILE),
 * or, where the file system cannot make one, 0600 under a name of its own (name). */
static int private_file(char *name, size_t name_len, char *why, size_t len)
{
    name[0] = '\0';
    int fd = open(temporary_folder(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 && (size_t)snprintf(name, name_len, "%s/attnrank-copy-XXXXXX", temporary_folder()) < name_len)
        fd = mkostemp(name, O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "no private copy can be made to read it in %s (%s): set TMPDIR to a folder of yours",
                 temporary_folder(), strerror(errno));
        name[0] = '\0';
    }
    return fd;
}

/* The name HDF5 opens the copy by (it resolves a /proc/self/fd link to the file's name,
 * which a file without one lacks): fd linked into $TMPDIR under a name no file has. */
static int give_name(int fd, char *name, size_t name_len, char *why, size_t len)
{
    char by_fd[64];
    snprintf(by_fd, sizeof by_fd, "/proc/self/fd/%d", fd);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (unsigned tries = 0; tries < 100; ++tries) {
        snprintf(name, name_len, "%s/attnrank-copy-%ld-%lx.h5", temporary_folder(), (long)getpid(),
                 (unsigned long)now.tv_nsec + tries * 7919u);
        if (linkat(AT_FDCWD, by_fd, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    snprintf(why, len, "its private copy cannot be named in %s (%s)", temporary_folder(), strerror(errno));
    name[0] = '\0';
    return -1;
}

/* Copies the first size bytes of from into the empty file to, leaving from's holes holes
 * (a shard is mostly holes: its copy takes its own points' share of the disk, as it
 * does): 0, 1 where from ends before size (it shrank), or -1 with why. copy_file_range
 * copies inside the kernel (or shares extents where the file system can); where it
 * cannot (between file systems, or not at all), pread and pwrite. */
static int copy_bytes(int from, int to, off_t size, char *why, size_t len)
{
    char buffer[1 << 16];
    for (off_t at = 0; at < size;) {
        off_t data = lseek(from, at, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break; /* a hole to the end */
        if (data < 0)
            data = at; /* no SEEK_DATA here: all of it is data */
        off_t hole = data < size ? lseek(from, data, SEEK_HOLE) : size;
        if (hole < 0 || hole > size)
            hole = size;
        for (off_t in = data, out = data; in < hole;) {
            ssize_t n = copy_file_range(from, &in, to, &out, (size_t)(hole - in), 0);
            if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
                n = pread(from, buffer, (size_t)(hole - in) < sizeof buffer ? (size_t)(hole - in) : sizeof buffer, in);
                for (ssize_t done = 0, w; n > 0 && done < n; done += w)
                    if ((w = pwrite(to, buffer + done, (size_t)(n - done), out + done)) <= 0)
                        goto failed;
                if (n > 0)
                    in += n, out += n;
            }
            if (n == 0)
                return 1;
            if (n < 0 && errno != EINTR)
                goto failed;
        }
        at = hole;
    }
    if (ftruncate(to, size) == 0)
        return 0;
failed:
    if (errno == EFBIG) /* SIGXFSZ is ignored meanwhile (ar_snapshot_regular) */
        snprintf(why, len, "its private copy is over the file-size limit (ulimit -f)");
    else
        snprintf(why, len, "its private copy to read cannot be written (%s, in %s: set TMPDIR to a folder with "
                 "room)", strerror(errno ? errno : EIO), temporary_folder());
    return -1;
}

static int unmoved(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
           a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int ar_snapshot_regular(const char *path, char *name, size_t name_len, char *why, size_t len, int *open_failed)
{
    enum { TRIES = 3 }; /* a run commits about once a second: a copy rarely meets two commits */
    name[0] = '\0';
    int from = ar_open_regular(path, O_RDONLY, why, len, open_failed);
    if (from < 0)
        return -1;
    if (open_failed)
        *open_failed = 0;
    int to = private_file(name, name_len, why, len), kept = 0;
    /* a copy over ulimit -f fails with EFBIG, said in words, rather than killing the reader */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGXFSZ, &ignore, &old);
    for (int attempt = 0; to >= 0 && !kept && attempt < TRIES; ++attempt) {
        struct stat before, after;
        if (fstat(from, &before) != 0 || ftruncate(to, 0) != 0) {
            snprintf(why, len, "%s", strerror(errno));
            break;
        }
        int copied = copy_bytes(from, to, before.st_size, why, len);
        if (copied < 0)
            break;
        kept = copied == 0 && fstat(from, &after) == 0 && unmoved(&before, &after);
        if (!kept && attempt == TRIES - 1)
            snprintf(why, len, "it changed while it was read, %d times (is a program still writing it?); read it "
                     "again when it is finished", TRIES);
    }
    sigaction(SIGXFSZ, &old, NULL);
    close(from);
    if (kept && lseek(to, 0, SEEK_SET) == 0)
        return to;
    if (name[0])
        unlink(name);
    name[0] = '\0';
    if (to >= 0)
        close(to);
    return -1;
}

static const int HELD_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static volatile sig_atomic_t held[sizeof HELD_SIGNALS / sizeof *HELD_SIGNALS];

/* A handler, not a blocked mask: a mask is the calling thread's, and the kernel hands a
 * signal sent to the process to any thread that does not block it (OpenBLAS's). */
static void hold_signal(int sig)
{
    for (size_t k = 0; k < sizeof HELD_SIGNALS / sizeof *HELD_SIGNALS; ++k)
        if (HELD_SIGNALS[k] == sig)
            held[k] = 1;
}

int ar_private_name(int fd, char *name, size_t name_len, ar_signal_hold *hold, char *why, size_t len)
{
    struct sigaction hold_action = {.sa_handler = hold_signal, .sa_flags = SA_RESTART};
    sigfillset(&hold_action.sa_mask);
    for (size_t k = 0; k < sizeof HELD_SIGNALS / sizeof *HELD_SIGNALS; ++k) {
        held[k] = 0;
        sigaction(HELD_SIGNALS[k], &hold_action, &hold->old[k]);
    }
    if (name[0] || give_name(fd, name, name_len, why, len) == 0) {
        /* the test build stops here, the copy named, for a test to signal it */
        if (ar_test_hook(AR_HOOK_STOP_AT_NAME))
            raise(SIGSTOP);
        return 0;
    }
    ar_private_unname(name, hold);
    return -1;
}

void ar_private_unname(char *name, ar_signal_hold *hold)
{
    if (name[0])
        unlink(name);
    name[0] = '\0';
    for (size_t k = 0; k < sizeof HELD_SIGNALS / sizeof *HELD_SIGNALS; ++k)
        sigaction(HELD_SIGNALS[k], &hold->old[k], NULL);
    for (size_t k = 0; k < sizeof HELD_SIGNALS / sizeof *HELD_SIGNALS; ++k)
        if (held[k]) { /* as it would have acted: the command's handler, or the default death */
            held[k] = 0;
            raise(HELD_SIGNALS[k]);
        }
}
