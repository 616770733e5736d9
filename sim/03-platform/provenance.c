/* provenance: how this process computes its floating-point results (the OpenBLAS core
 * and how it was chosen, the normal sampler's instruction set, the score kernel), asked
 * of the modules that know and handed to the store, which writes it into the files. */
#include "attnrank/provenance.h"

#include "attnrank/blas_core.h"
#include "attnrank/linalg.h"
#include "attnrank/openblas.h"
#include "attnrank/rng.h"

#include <stdio.h>

void ar_provenance_of_process(ar_provenance *how)
{
    static char kernels[160];
    snprintf(kernels, sizeof kernels, "normals %s; S = Q K^T up to %dx%dx%d by %s", ar_rng_normals_isa(),
             AR_GEMM_SMALL_MAX_MN, AR_GEMM_SMALL_MAX_MN, AR_GEMM_SMALL_MAX_K,
             ar_gemm_small_has_avx2() ? "attnrank's AVX2+FMA kernel" : "OpenBLAS");
    *how = (ar_provenance){ar_openblas_config(), ar_openblas_corename(), ar_blas_core_origin(), kernels};
}
