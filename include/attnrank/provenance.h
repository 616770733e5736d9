/* provenance: how this process computes its floating-point results, asked of the modules
 * that know (the BLAS core, the normal sampler, the score kernel) for the files it writes. */
#ifndef ATTNRANK_PROVENANCE_H
#define ATTNRANK_PROVENANCE_H

#include "attnrank/store.h"

/* How this process computes (the OpenBLAS core, the kernels); the strings stay valid
 * until the next call. */
void ar_provenance_of_process(ar_provenance *how);

#endif
