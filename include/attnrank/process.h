/* process: starting the program again as itself (/proc/self/exe with its argv), which a
 * BLAS core or OpenBLAS's thread pool must be chosen by before OpenBLAS starts. */
#ifndef ATTNRANK_PROCESS_H
#define ATTNRANK_PROCESS_H

/* Whether it must start again without OpenBLAS's thread pool (memory is limited, the
 * pool has threads, and it has not started again for it yet). */
int ar_process_blas_pool_must_go(void);
/* Whether the address space is limited (ulimit -v or -d, strict overcommit). */
int ar_process_address_space_limited(void);
/* The start again itself, after setting NAME=VALUE (none if NAME is NULL); returns -1
 * where the exec failed. */
int ar_process_start_again(char **argv, const char *name, const char *value);

#endif
