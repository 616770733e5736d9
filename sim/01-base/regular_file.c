/* regular_file: open a file only if it is a regular one, never blocking on a FIFO. */
#define _POSIX_C_SOURCE 200809L
#include "attnrank/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
        return fd;
    }
    close(fd);
    if (open_failed)
        *open_failed = 0;
    return -1;
}
