/* regular_file: every file attnrank reads is opened through here, so a FIFO, a device or
 * a directory given where a file belongs is refused at once instead of blocking open()
 * (a FIFO waits for a writer, forever without one) or reading endlessly. */
#ifndef ATTNRANK_REGULAR_FILE_H
#define ATTNRANK_REGULAR_FILE_H

#include <signal.h>
#include <stddef.h>

/* path opened with flags (O_RDONLY or O_RDWR, O_CLOEXEC added) if it is a regular file:
 * the descriptor, blocking as usual. Else -1 with why (len bytes) saying why in words:
 * "not a regular file but a FIFO" (a socket, a device), "it is a directory", or
 * open()'s strerror; *open_failed (may be NULL) is 1 if open() itself failed (errno then
 * holds its reason), 0 if the file is of the wrong kind. */
int ar_open_regular(const char *path, int flags, char *why, size_t len, int *open_failed);

/* What a reader checks and shows is a private copy of path, never path itself: path is
 * opened once (ar_open_regular), its bytes are copied into a file of this process's, 0600
 * in $TMPDIR (default /tmp), made with no name (O_TMPFILE), and the copy is kept only if
 * the file did not move meanwhile (size, mtime and ctime; tried again twice). A file
 * renamed over path or rewritten in place afterwards changes nothing the reader checks,
 * shows or hands on (the figure scripts get the copy's descriptor). The copy's
 * descriptor (read-write, close-on-exec, at offset 0); name (name_len bytes) is empty,
 * or, on a file system without O_TMPFILE, the name the copy was made under. -1 with why
 * and *open_failed as ar_open_regular's (*open_failed 0 for a copy that could not be
 * made), name empty. */
int ar_snapshot_regular(const char *path, char *name, size_t name_len, char *why, size_t len, int *open_failed);

/* The stop signals' actions while a private copy has a name. */
typedef struct {
    struct sigaction old[4];
} ar_signal_hold;

/* Gives the copy fd a name in $TMPDIR for a library that opens files by name (HDF5), if
 * it has none, and holds the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) until
 * ar_private_unname: one that comes meanwhile acts then, after the name is gone, so a
 * stopped reader leaves no copy (SIGKILL cannot be held: keep the window short). 0, or
 * -1 with why and nothing held. */
int ar_private_name(int fd, char *name, size_t name_len, ar_signal_hold *hold, char *why, size_t len);
/* Removes the name and lets the signals held act. */
void ar_private_unname(char *name, ar_signal_hold *hold);

#endif
