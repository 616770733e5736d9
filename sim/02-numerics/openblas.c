/* openblas: OpenBLAS's own calls, behind one header (openblas.h). */
#include "attnrank/openblas.h"

#include <cblas.h>

void ar_openblas_set_threads(int threads)
{
    openblas_set_num_threads(threads);
}

int ar_openblas_pool_threads(void)
{
    return openblas_get_num_threads();
}

double ar_openblas_buffer_bytes(void)
{
    return 32 << 22; /* BUFFER_SIZE in OpenBLAS 0.3's common_x86_64.h; test_linalg checks it */
}

const char *ar_openblas_corename(void)
{
    return openblas_get_corename();
}

const char *ar_openblas_config(void)
{
    return openblas_get_config();
}
