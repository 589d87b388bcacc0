/*
 * xor.c - recursive doubling, checked call by call (expect.h): every
 * iteration, for k = 1, 2, 4, ... below the number of ranks, an
 * MPI_Sendrecv with partner rank ^ k (when there is one) of three doubles
 * with tag k, which sums a value over the ranks when their number is a
 * power of two; then one MPI_Allreduce checks the last sum.  The partners
 * follow the rank by a bitwise rule, not an offset: on a power of two,
 * every rank does the same thing, so the trace should hold one rank group
 * (scale.sh).
 *
 *   mpirun -np N xor [ITERATIONS]              (any N)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static void exchange(int rank, int partner, int k, int it, double *acc)
{
	double out[3] = {rank, k, *acc}, in[3] = {-1, -1, -1};

	MPI_Sendrecv(out, 3, MPI_DOUBLE, partner, k, in, 3, MPI_DOUBLE, partner,
		     k, WORLD, MPI_STATUS_IGNORE);
	CHECK(in[0] == partner && in[1] == k && in[2] >= it);
	EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=3, "
	       "sendtype=MPI_DOUBLE, dest=%s, sendtag=%d, " OUT "recvbuf=" BUF
	       ", recvcount=3, recvtype=MPI_DOUBLE, source=%s, recvtag=%d, "
	       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
	       rx_rank(partner, WORLD), k, rx_rank(partner, WORLD), k);
	*acc += in[2];
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20;
	double acc = 0, x, sum = -1;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	for (int it = 0; it < iters; it++) {
		acc = rank + it;
		for (int k = 1; k < size; k <<= 1)
			if ((rank ^ k) < size)
				exchange(rank, rank ^ k, k, it, &acc);
	}
	/* the last iteration's sum, as the library makes it */
	x = rank + iters - 1;
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, WORLD);
	CHECK(sum == size * (size - 1) / 2 + (double)size * (iters - 1));
	/* on a power of two, recursive doubling made it too */
	CHECK(iters < 1 || (size & (size - 1)) || acc == sum);
	EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
	       "count=1, datatype=MPI_DOUBLE, op=MPI_SUM, "
	       "comm=MPI_COMM_WORLD\\)");
	expect_finalize();
	return 0;
}
