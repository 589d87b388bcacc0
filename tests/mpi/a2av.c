/*
 * a2av.c - an MPI_Alltoallv loop whose counts follow the rank, checked
 * call by call (expect.h): rank r sends 1 + (7 r + 3 j) % 5 ints to rank
 * j, so receives 1 + (7 j + 3 r) % 5 from it, at displacements that are
 * the counts' prefix sums.  The count arrays are data (N values a rank),
 * different on every rank: scale.sh prints the rank groups and the size
 * of the trace, with no target.
 *
 *   mpirun -np N a2av [ITERATIONS]             (any N)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

/* What rank `from` sends rank `to`. */
static int count(int from, int to)
{
	return 1 + (from * 7 + to * 3) % 5;
}

/* The value of element m of what `from` sends `to` in iteration it. */
static int value(int from, int to, int m, int it)
{
	return from * 100000 + to * 100 + m * 10 + it % 10;
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 20, total;
	int *sc, *sd, *rc, *rd, *s, *r;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	sc = malloc(4 * (size_t)size * sizeof(int));
	s = malloc(2 * 5 * (size_t)size * sizeof(int));
	CHECK(sc && s);
	sd = sc + size;
	rc = sd + size;
	rd = rc + size;
	r = s + 5 * size;
	for (int j = 0, so = 0, ro = 0; j < size; j++) {
		sc[j] = count(rank, j);
		sd[j] = so;
		so += sc[j];
		rc[j] = count(j, rank);
		rd[j] = ro;
		ro += rc[j];
	}
	for (int it = 0; it < iters; it++) {
		for (int j = 0; j < size; j++)
			for (int m = 0; m < sc[j]; m++)
				s[sd[j] + m] = value(rank, j, m, it);
		MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, WORLD);
		total = 0;
		for (int j = 0; j < size; j++)
			for (int m = 0; m < rc[j]; m++, total++)
				CHECK(r[rd[j] + m] == value(j, rank, m, it));
		CHECK(total == rd[size - 1] + rc[size - 1]);
		EXPECT("MPI_Alltoallv\\(sendbuf=" BUF ", sendcounts=%s, "
		       "sdispls=%s, sendtype=MPI_INT, " OUT "recvbuf=" BUF ", "
		       "recvcounts=%s, rdispls=%s, recvtype=MPI_INT, "
		       "comm=MPI_COMM_WORLD\\)",
		       rx_ints(size, sc), rx_ints(size, sd), rx_ints(size, rc),
		       rx_ints(size, rd));
	}
	free(sc);
	free(s);
	expect_finalize();
	return 0;
}
