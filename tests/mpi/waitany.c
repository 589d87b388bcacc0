/*
 * waitany.c - three receives completed by MPI_Waitany in whatever order
 * the messages come: every iteration each rank posts MPI_Irecv from its
 * neighbours at -1, +1 and +2 (on a ring), sends to them, and takes the
 * receives with three MPI_Waitany calls.  The order of completion is the
 * nondeterministic part of the trace.  The merge benchmark
 * (tests/bench/bench_merge.sh) traces it.
 *
 *   mpirun -np 27 waitany [ITERATIONS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int rank, size, from[3], to[3], index;
	double in[3][8], out[8] = {0}, sum = 0;
	MPI_Request recv[3], send[3];
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int k = 0; k < 3; k++) {
		int d = k == 0 ? -1 : k; /* -1, +1, +2 */

		from[k] = ((rank + d) % size + size) % size;
		to[k] = ((rank - d) % size + size) % size;
	}
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < 3; k++)
			MPI_Irecv(in[k], 8, MPI_DOUBLE, from[k], k,
				  MPI_COMM_WORLD, &recv[k]);
		out[0] = rank + it;
		for (int k = 0; k < 3; k++)
			MPI_Isend(out, 8, MPI_DOUBLE, to[k], k, MPI_COMM_WORLD,
				  &send[k]);
		for (int k = 0; k < 3; k++) {
			MPI_Waitany(3, recv, &index, &st);
			sum += in[index][0];
		}
		MPI_Waitall(3, send, MPI_STATUSES_IGNORE);
	}
	if (rank == 0)
		printf("waitany: %d ranks, %d iterations, %g\n", size, iters,
		       sum);
	MPI_Finalize();
	return 0;
}
