/*
 * shifted.c - rank groups that compute before different calls.  Each
 * iteration is some work, an MPI_Allreduce, more work and an
 * MPI_Barrier; rank 0 does all its work before the Allreduce, the other
 * ranks all theirs before the Barrier, so every rank computes as long in
 * all and only where differs.  Rank 0 also asks for its rank twice, which
 * makes it a rank group of its own.  A replay that kept one mean per
 * signature over all ranks would spin a quarter of the work before each
 * call of every rank (at 4 ranks); tests/replay.sh checks it spins the
 * group's own.
 *
 *   mpirun -np 4 shifted [ITERATIONS [MICROSECONDS]]
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

	while (us > 0 && nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	long us = argc > 2 ? atol(argv[2]) : 20000;
	int rank, size;
	double x, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < iters; it++) {
		work(rank == 0 ? us : 0);
		x = rank + it;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		work(rank == 0 ? 0 : us);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("shifted: %d ranks, %d iterations, %g\n", size, iters,
		       sum);
	MPI_Finalize();
	return 0;
}
