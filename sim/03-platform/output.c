/* output: the checks and the lock every writer of an output shares (see output.h). */
#define _GNU_SOURCE
#include "attnrank/output.h"

#include "attnrank/message.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ar_output_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int ar_output_check_not_input(const char *output, const char *input, const char *what, char *err)
{
    static const char *const beside[] = {"", ".partial", ".partial.tmp"};
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; ++i) {
        char *name;
        if (asprintf(&name, "%s%s", output, beside[i]) < 0) {
            snprintf(err, AR_ERR_LEN, "%.400s: out of memory", output);
            return -1;
        }
        int same = ar_output_same_file(name, input);
        free(name);
        if (same) {
            snprintf(err, AR_ERR_LEN, "%.400s: -o names %s (%.400s)%s%s: it would be replaced; give another -o",
                     output, what, input, i ? ", by the name a writer makes beside it: " : "", beside[i]);
            return -1;
        }
    }
    return 0;
}

/* What a name that is not a regular file is, in a word for a refusal. */
static const char *kind_of(mode_t mode)
{
    return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket"
         : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" : "not a regular file";
}

/* The output and the names a writer makes beside it must be regular files where they are
 * there: a writer replaces OUTPUT by rename (a device node, --force or not, became an
 * HDF5 file), resumes OUTPUT.partial, removes OUTPUT.partial.tmp, and opens OUTPUT.lock
 * (which ar_output_lock_take checks itself, for every writer). A folder as OUTPUT is
 * each caller's to refuse; a report (longest suffix ".partial") builds a folder at
 * DIR.partial, which report.c checks. */
static int check_kinds(const char *output, int writes_a_file, char *err)
{
    struct stat st;
    if (stat(output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        struct stat link;
        int linked = lstat(output, &link) == 0 && S_ISLNK(link.st_mode);
        snprintf(err, AR_ERR_LEN, "%s: is %s%s, not a regular file: attnrank writes only regular files and never "
                 "replaces this (not with --force either); give another -o", output, linked ? "a link to " : "",
                 kind_of(st.st_mode));
        return -1;
    }
    if (!writes_a_file)
        return 0;
    static const char *const beside[] = {".partial", ".partial.tmp"};
    for (size_t i = 0; i < sizeof beside / sizeof *beside; ++i) {
        char *name;
        if (asprintf(&name, "%s%s", output, beside[i]) < 0) {
            snprintf(err, AR_ERR_LEN, "%.400s: out of memory", output);
            return -1;
        }
        /* a symbolic link there is replaced by rename or unlink, not written through,
         * except by --resume, which refuses one (session.c); but a writer first asks
         * whether OUT.partial is attnrank's by its name, so a link to a FIFO there
         * would block that open(): a link to anything but a regular file is refused too */
        struct stat target;
        int linked = lstat(name, &st) == 0 && S_ISLNK(st.st_mode);
        int bad = linked ? stat(name, &target) == 0 && !S_ISREG(target.st_mode)
                         : lstat(name, &st) == 0 && !S_ISREG(st.st_mode);
        if (bad)
            snprintf(err, AR_ERR_LEN, "%s: is %s%s, which attnrank did not make and will not remove (not with "
                     "--force either); remove it or give another -o", name, linked ? "a link to " : "",
                     kind_of(linked ? target.st_mode : st.st_mode));
        free(name);
        if (bad)
            return -1;
    }
    return 0;
}

int ar_output_check_name(const char *output, const char *longest_suffix, char *err)
{
    if (!output[0]) {
        snprintf(err, AR_ERR_LEN, "the output name is empty: give a file name with -o");
        return -1;
    }
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    if (!base[0]) {
        snprintf(err, AR_ERR_LEN, "%s: ends in '/': give a name, not a folder", output);
        return -1;
    }
    /* `-o .` made ..partial and ..lock beside nothing, and a report then found its own
     * ..lock in the folder it was to replace: the folder one is in is no output's name */
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        snprintf(err, AR_ERR_LEN, "%s: ends in '%s', a folder that exists, not a new name: give -o a name of its own "
                 "(%s/NAME)", output, base, output);
        return -1;
    }
    /* Another writer's names: a run on o.h5.partial would replace the file a run on o.h5
     * is writing, and neither lock would see the other. */
    static const char *const writers_suffixes[] = {".partial", ".partial.tmp", ".lock"};
    for (size_t i = 0; i < sizeof writers_suffixes / sizeof writers_suffixes[0]; ++i) {
        size_t n = strlen(base), k = strlen(writers_suffixes[i]);
        if (n >= k && strcmp(base + n - k, writers_suffixes[i]) == 0) {
            snprintf(err, AR_ERR_LEN, "%s: names ending in %s are the ones a writer makes beside its output: "
                     "choose another name", output, writers_suffixes[i]);
            return -1;
        }
    }
    char *dir = slash ? strndup(output, (size_t)(slash - output)) : strdup(".");
    long name_max = dir ? pathconf(dir[0] ? dir : "/", _PC_NAME_MAX) : -1;
    free(dir);
    if (name_max <= 0)
        name_max = NAME_MAX;
    size_t suffix = strlen(longest_suffix);
    if (strlen(base) + suffix > (size_t)name_max) {
        snprintf(err, AR_ERR_LEN,
                 "%s: a name of %zu characters; with %s added it passes the file system's limit of %ld "
                 "(NAME_MAX): choose a shorter name",
                 output, strlen(base), longest_suffix, name_max);
        return -1;
    }
    if (strlen(output) + suffix >= PATH_MAX) {
        snprintf(err, AR_ERR_LEN, "%s: a path of %zu characters; with %s added it passes the limit of %d (PATH_MAX)",
                 output, strlen(output), longest_suffix, PATH_MAX);
        return -1;
    }
    return check_kinds(output, strcmp(longest_suffix, ".partial") != 0, err);
}

struct ar_output_lock {
    int fd;
    char path[]; /* OUTPUT.lock */
};

/* Who holds the lock, from what it wrote into the file; a holder writes that right
 * after it gets the lock, so a lock just taken gets a moment to say so. */
static void describe_holder(int fd, const char *output, const char *path, char *err)
{
    char text[320] = "";
    for (int tries = 0; tries < 50; ++tries) {
        ssize_t got = pread(fd, text, sizeof text - 1, 0);
        text[got > 0 ? got : 0] = '\0';
        if (strchr(text, '\n'))
            break;
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    long pid;
    char host[256];
    if (sscanf(text, "%ld %255s", &pid, host) == 2)
        snprintf(err, AR_ERR_LEN, "%s: another attnrank is writing it (PID %ld on host %s, lock %s); wait for it to "
                 "finish or write elsewhere", output, pid, host, path);
    else
        snprintf(err, AR_ERR_LEN, "%s: another process holds its lock %s (PID and host unknown); wait for it to "
                 "finish or write elsewhere", output, path);
}

ar_output_lock *ar_output_lock_take(const char *output, char *err)
{
    size_t len = strlen(output);
    ar_output_lock *lock = malloc(sizeof *lock + len + sizeof ".lock");
    if (!lock) {
        snprintf(err, AR_ERR_LEN, "%s: out of memory", output);
        return NULL;
    }
    memcpy(lock->path, output, len);
    memcpy(lock->path + len, ".lock", sizeof ".lock");
    snprintf(err, AR_ERR_LEN, "%s: cannot take the lock: its file keeps being replaced", lock->path);
    for (int attempt = 0; attempt < 100; ++attempt) {
        /* A FIFO or a device under that name is not opened at all (opening a device can
         * act on it); O_NONBLOCK keeps one put there after this look from blocking the
         * open, and the check below refuses it. */
        struct stat there;
        if (lstat(lock->path, &there) == 0 && !S_ISREG(there.st_mode) && !S_ISLNK(there.st_mode)) {
            snprintf(err, AR_ERR_LEN, "%s: is not an attnrank lock (it is %s): it is left as it is; remove it or "
                     "write elsewhere", lock->path, kind_of(there.st_mode));
            break;
        }
        int fd = open(lock->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
        if (fd < 0) {
            snprintf(err, AR_ERR_LEN, "%s: cannot create the lock file: %s", lock->path, strerror(errno));
            break;
        }
        struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        if (fcntl(fd, F_SETLK, &whole) != 0) {
            if (errno == EACCES || errno == EAGAIN)
                describe_holder(fd, output, lock->path, err);
            else
                snprintf(err, AR_ERR_LEN, "%s: cannot lock it (%s): the file system offers no locks (Lustre: "
                         "mount with -o flock); write elsewhere", lock->path, strerror(errno));
            close(fd);
            break;
        }
        /* The holder before us removes the name while it still holds the lock: if that
         * happened after our open, we hold a removed file; take the name there now. */
        struct stat held, named;
        if (fstat(fd, &held) != 0 || stat(lock->path, &named) != 0 || held.st_dev != named.st_dev ||
            held.st_ino != named.st_ino) {
            close(fd);
            continue;
        }
        /* Only attnrank's own lock is written over and removed: a file of the user's
         * under that name (notes.h5.lock), or a hard link to one (a result file linked
         * as OUT.lock), would be truncated and deleted. Ours has one name and holds one
         * line "PID HOST", or nothing if its writer died before writing it. */
        char seen[330];
        ssize_t got = held.st_size <= 320 ? pread(fd, seen, sizeof seen - 1, 0) : -1;
        seen[got > 0 ? got : 0] = '\0';
        long pid_seen;
        char host_seen[256], end_seen;
        int ours = S_ISREG(held.st_mode) && held.st_nlink == 1 && got >= 0 &&
                   (got == 0 || (sscanf(seen, "%ld %255s%c", &pid_seen, host_seen, &end_seen) == 3 &&
                                 end_seen == '\n' && strchr(seen, '\n') == seen + got - 1));
        if (!ours) {
            snprintf(err, AR_ERR_LEN, "%s: is not an attnrank lock (%s): it is left as it is; remove it or write "
                     "elsewhere", lock->path, held.st_nlink != 1 ? "the file has other names: a hard link"
                                                                : "it holds something else");
            close(fd);
            break;
        }
        char line[320], host[256] = "unknown";
        if (gethostname(host, sizeof host) != 0)
            strcpy(host, "unknown");
        host[sizeof host - 1] = '\0';
        int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), host);
        errno = 0;
        if (ftruncate(fd, 0) == 0 && pwrite(fd, line, (size_t)n, 0) == n) {
            lock->fd = fd;
            return lock;
        }
        /* a short write sets no errno: under ulimit -f it is the file-size limit */
        snprintf(err, AR_ERR_LEN, "%s: cannot write the lock file: %s", lock->path,
                 errno ? strerror(errno) : "the file-size limit (ulimit -f) or a full disk");
        unlink(lock->path);
        close(fd);
        break;
    }
    free(lock);
    return NULL;
}

void ar_output_lock_release(ar_output_lock *lock)
{
    if (!lock)
        return;
    /* The name goes first, while the lock is still held (see ar_output_lock_take). */
    unlink(lock->path);
    close(lock->fd);
    free(lock);
}
