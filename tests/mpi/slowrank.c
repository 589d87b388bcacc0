/*
 * slowrank.c - four ranks (or more) loop over a little work and an
 * MPI_Allreduce; rank 2 works several milliseconds longer each time, so
 * the others wait for it inside the Allreduce.  That makes the Allreduce
 * the signature losing the most time against its fastest call, rank 2
 * the rank with the least time in it (the late arriver) and the least
 * time in MPI.  tests/stats.sh traces it and checks rondo says so.
 *
 *   mpirun -np 4 slowrank [ITERATIONS]
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Sleeping, not spinning: the machine may have fewer cores than ranks. */
static void work(long us)
{
	struct timespec ts = {us / 1000000, us % 1000000 * 1000};

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 50;
	int rank, size;
	double x, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < iters; it++) {
		work(rank == 2 ? 9000 : 1000);
		x = rank + it;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("slowrank: %d ranks, %d iterations, %g\n", size, iters,
		       sum);
	MPI_Finalize();
	return 0;
}
