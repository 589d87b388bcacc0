/*
 * collloop.c - an MPI_Allreduce and MPI_Bcast loop: every rank makes the
 * same calls, so the trace holds one rank grammar whatever the number of
 * ranks.  The merge benchmark (tests/bench/bench_merge.sh) traces it.
 *
 *   mpirun -np 8 collloop [ITERATIONS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int rank, size;
	double x, sum = 0, v[16] = {0};

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < iters; it++) {
		x = rank + it;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rank == 0)
			v[it % 16] = sum;
		MPI_Bcast(v, 16, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("collloop: %d ranks, %d iterations, %g\n", size, iters,
		       v[(iters + 15) % 16]);
	MPI_Finalize();
	return 0;
}
