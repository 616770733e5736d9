/* regular_file: every file attnrank reads is opened through here, so a FIFO, a device or
 * a directory given where a file belongs is refused at once instead of blocking open()
 * (a FIFO waits for a writer, forever without one) or reading endlessly. */
#ifndef ATTNRANK_REGULAR_FILE_H
#define ATTNRANK_REGULAR_FILE_H

#include <stddef.h>

/* path opened with flags (O_RDONLY or O_RDWR, O_CLOEXEC added) if it is a regular file:
 * the descriptor, blocking as usual. Else -1 with why (len bytes) saying why in words:
 * "not a regular file but a FIFO" (a socket, a device), "it is a directory", or
 * open()'s strerror; *open_failed (may be NULL) is 1 if open() itself failed (errno then
 * holds its reason), 0 if the file is of the wrong kind. */
int ar_open_regular(const char *path, int flags, char *why, size_t len, int *open_failed);

#endif
