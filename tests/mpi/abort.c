/*
 * abort.c - a program that ends in MPI_Abort: rank 1 (rank 0 alone)
 * aborts with error code 7 while the others wait in a receive that never
 * completes.  mpi.sh checks that mpirun exits the same way with the
 * tracer as without it; no trace is written (the job dies before
 * MPI_Finalize).
 *
 *   mpirun -np 2 abort
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, x = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == (size > 1 ? 1 : 0)) {
		fprintf(stderr, "abort: rank %d aborts the job\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 7);
	}
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	MPI_Finalize();
	return 0;
}
