/* openblas: what attnrank asks OpenBLAS itself: its threads, its buffer, its core and
 * build. */
#ifndef ATTNRANK_OPENBLAS_H
#define ATTNRANK_OPENBLAS_H

/* OpenBLAS threads used inside one BLAS call (1 inside the engine's trial loop). */
void ar_openblas_set_threads(int threads);
/* Threads in OpenBLAS's own pool, which its library constructor starts before main()
 * (1: no pool). attnrank never uses it: BLAS runs single-threaded inside OpenMP. */
int ar_openblas_pool_threads(void);
/* Address space a thread's first level-3 BLAS or LAPACK call maps for OpenBLAS's buffer
 * (BUFFER_SIZE). OpenBLAS retries that mmap forever when it fails (memory.c), so a
 * limit (ulimit -v) must leave room for one per thread that calls BLAS. */
double ar_openblas_buffer_bytes(void);
/* The core OpenBLAS runs, and how it was built. */
const char *ar_openblas_corename(void);
const char *ar_openblas_config(void);

#endif
