/* mpi_world: the few MPI calls the program makes outside the engine's driver. */
#ifndef ATTNRANK_MPI_WORLD_H
#define ATTNRANK_MPI_WORLD_H

/* MPI (a build with -Dmpi=true): under `mpirun -np P` rank 0 hands out chunks of
 * consecutive points, heaviest blocks first, and writes the file; every rank computes
 * them, rank 0 on a thread of its own. The results are the same bits as a single
 * process's. Without MPI these say one rank. */
void ar_mpi_init(int *argc, char ***argv);
int ar_mpi_rank(void);
int ar_mpi_size(void);
void ar_mpi_finalize(void);

#endif
