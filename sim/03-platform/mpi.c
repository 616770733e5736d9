/* mpi: the few MPI calls the program makes outside the engine (the driver is the engine's: distributed.c); a build
 * without MPI gets one rank. */
#include "attnrank/mpi_world.h"

#ifdef ATTNRANK_MPI
#include <mpi.h>

void ar_mpi_init(int *argc, char ***argv)
{
    int provided;
    /* Only the main thread calls MPI; OpenMP threads compute inside a point. */
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

int ar_mpi_rank(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int ar_mpi_size(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

void ar_mpi_finalize(void) { MPI_Finalize(); }
#else
void ar_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}
int ar_mpi_rank(void) { return 0; }
int ar_mpi_size(void) { return 1; }
void ar_mpi_finalize(void) {}
#endif
