/*
 * colorsplit.c - splits whose colour and key follow the rank, checked call
 * by call (expect.h): one communicator of every rank (colour 0, key the
 * rank) and one of each rank alone (colour the rank, key 0), a loop of
 * MPI_Allreduce on each, then both freed.  Every rank does the same thing
 * relative to itself, so the trace should hold one rank group at any size
 * (scale.sh).
 *
 *   mpirun -np N colorsplit [ITERATIONS]       (any N)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

#define ALLREDUCE                                                              \
	"MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", count=1, "   \
	"datatype=MPI_DOUBLE, op=MPI_SUM, comm=" COMM "\\)"
#define FREE "MPI_Comm_free\\(" OUT "comm=" COMM "\\)"

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20;
	double x, sum;
	MPI_Comm all, alone;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	MPI_Comm_split(WORLD, 0, rank, &all);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=0, key=%d, " OUT
	       "newcomm=" COMM "\\)",
	       rank);
	MPI_Comm_split(WORLD, rank, 0, &alone);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=0, " OUT
	       "newcomm=" COMM "\\)",
	       rank);
	for (int it = 0; it < iters; it++) {
		x = rank + it;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, all);
		CHECK(sum == size * (size - 1) / 2 + (double)size * it);
		EXPECT(ALLREDUCE);
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, alone);
		CHECK(sum == x);
		EXPECT(ALLREDUCE);
	}
	MPI_Comm_free(&alone);
	EXPECT(FREE);
	MPI_Comm_free(&all);
	EXPECT(FREE);
	CHECK(all == MPI_COMM_NULL && alone == MPI_COMM_NULL);
	expect_finalize();
	return 0;
}
