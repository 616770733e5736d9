/* provenance: how this process computes its floating-point results, asked of the modules
 * that know (the BLAS core, the normal sampler, the score kernel) for the files it writes. */
#ifndef ATTNRANK_PROVENANCE_H
#define ATTNRANK_PROVENANCE_H

/* How this process computes its floating-point results, as the files record it: filled
 * here (ar_provenance_of_process), which asks the BLAS core and the kernels, and handed
 * to the store by the engine; the store asks no one. */
typedef struct ar_provenance {
    const char *openblas_config, *openblas_core, *openblas_core_origin, *kernels;
} ar_provenance;

/* How this process computes (the OpenBLAS core, the kernels); the strings stay valid
 * until the next call. */
void ar_provenance_of_process(ar_provenance *how);

#endif
