/* output: what every writer of an output (run, merge, the MPI driver's rank 0, report)
 * does beside it before it writes: check the names it will make there, and hold
 * OUTPUT.lock for as long as it writes, so that one writer at a time owns OUTPUT and
 * the temporary names around it.
 *
 * The lock is a POSIX record lock (fcntl F_SETLK) on the whole of OUTPUT.lock: NFS
 * carries it to the server (NLM, or NFSv4's own locks) and Lustre with its flock mount
 * option to every client, where HDF5's file locks are turned off (store.c) and flock()
 * is at best emulated by these same locks; the kernel drops it when the holder dies, so
 * a killed writer leaves at most a stale OUTPUT.lock that the next writer takes over.
 * The file holds the holder's PID and host, for the refusal. Such a lock belongs to the
 * process and goes when it closes any descriptor of the file: nothing else in the
 * process opens OUTPUT.lock, and its descriptor is closed in the figure scripts a
 * report starts. */
#ifndef ATTNRANK_OUTPUT_H
#define ATTNRANK_OUTPUT_H

/* Refuses (-1, one line in err) an output name that is empty, or that with the longest
 * suffix a writer adds (".partial.tmp" for a run) exceeds the file system's limit on a
 * name (NAME_MAX of its folder) or on a path (PATH_MAX); and an output that is there and
 * is neither a regular file nor a folder (a device, FIFO, socket, or a link to one), which
 * no writer replaces, --force or not. A writer of a file (any suffix but a report's
 * ".partial") also refuses an OUTPUT.partial or OUTPUT.partial.tmp that is not a regular
 * file or a symbolic link (a folder, a FIFO, a device): not its to open or remove. */
int ar_output_check_name(const char *output, const char *longest_suffix, char *err);

/* Whether two names are one file (a name, another name or a link): by device and inode. */
int ar_output_same_file(const char *a, const char *b);
/* Refuses (-1, one line in err) an output whose name, or a name a writer makes beside it
 * (OUTPUT.partial, OUTPUT.partial.tmp), is the input (what: "the spec", ...), by device
 * and inode: --force would replace the input with the output. */
int ar_output_check_not_input(const char *output, const char *input, const char *what, char *err);

typedef struct ar_output_lock ar_output_lock;

/* Takes OUTPUT.lock and writes this process's PID and host into it. NULL, with one line
 * in err, if another process holds it (naming its PID and host), it cannot be made, or
 * it is not attnrank's (a file with other content or other names, or not a regular file:
 * a FIFO or a device there is never opened). */
ar_output_lock *ar_output_lock_take(const char *output, char *err);
/* Removes OUTPUT.lock while still holding it, then lets it go. NULL does nothing. */
void ar_output_lock_release(ar_output_lock *lock);

#endif
