/*
 * testsome.c - a polling loop: every iteration each rank posts MPI_Irecv
 * from its neighbours at -1 and +1 (on a ring), sends to them, and polls
 * the receives with MPI_Testsome until both have come, however many calls
 * that takes: how many, and which receives each call finds complete, is
 * the nondeterministic part of the trace.  The merge benchmark
 * (tests/bench/bench_merge.sh) traces it.
 *
 *   mpirun -np 27 testsome [ITERATIONS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int rank, size, from[2], to[2], done, outcount, idx[2];
	double in[2][8], out[8] = {0}, sum = 0;
	MPI_Request recv[2], send[2];
	MPI_Status st[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	from[0] = to[1] = (rank + size - 1) % size;
	from[1] = to[0] = (rank + 1) % size;
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < 2; k++)
			MPI_Irecv(in[k], 8, MPI_DOUBLE, from[k], k,
				  MPI_COMM_WORLD, &recv[k]);
		out[0] = rank + it;
		for (int k = 0; k < 2; k++)
			MPI_Isend(out, 8, MPI_DOUBLE, to[k], k, MPI_COMM_WORLD,
				  &send[k]);
		for (done = 0; done < 2; done += outcount) {
			MPI_Testsome(2, recv, &outcount, idx, st);
			for (int k = 0; k < outcount; k++)
				sum += in[idx[k]][0];
		}
		MPI_Waitall(2, send, MPI_STATUSES_IGNORE);
	}
	if (rank == 0)
		printf("testsome: %d ranks, %d iterations, %g\n", size, iters,
		       sum);
	MPI_Finalize();
	return 0;
}
