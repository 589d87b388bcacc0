/*
 * multipart.c - a multipartition-like diagonal exchange on a periodic
 * q x q grid of ranks (rank i * q + j at row i, column j), checked call
 * by call (expect.h): every iteration receives from (i-1, j-1) with tag 0
 * and from (i-1, j+1) with tag 1, sends to (i+1, j+1) with tag 0 and to
 * (i+1, j-1) with tag 1 (all modulo q), and waits for the four with
 * MPI_Waitall.  On the torus every rank does the same thing relative to
 * its place; scale.sh reports the rank groups against the number of
 * roles the ranks have when a peer is an offset from the caller modulo N.
 *
 *   mpirun -np N multipart [ITERATIONS]        (N a square: 1, 4, 9, ...)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, q;

/* The rank at row i, column j of the torus. */
static int at(int i, int j)
{
	return (i + q) % q * q + (j + q) % q;
}

static void post_recv(double *buf, int from, int tag, MPI_Request *req)
{
	MPI_Irecv(buf, 2, MPI_DOUBLE, from, tag, WORLD, req);
	EXPECT("MPI_Irecv\\(" OUT "buf=" BUF ", count=2, "
	       "datatype=MPI_DOUBLE, source=%s, tag=%d, "
	       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)",
	       rx_rank(from, WORLD), tag);
}

static void post_send(double *buf, int to, int tag, MPI_Request *req)
{
	MPI_Isend(buf, 2, MPI_DOUBLE, to, tag, WORLD, req);
	EXPECT("MPI_Isend\\(buf=" BUF ", count=2, datatype=MPI_DOUBLE, "
	       "dest=%s, tag=%d, comm=MPI_COMM_WORLD, " OUT "request=" REQ
	       "\\)",
	       rx_rank(to, WORLD), tag);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20, i, j;
	double in[2][2], out[2][2];
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	for (q = 1; q * q < size; q++)
		;
	if (q * q != size) {
		if (rank == 0)
			fprintf(stderr,
				"multipart: needs a square number of ranks, "
				"not %d\n",
				size);
		MPI_Abort(WORLD, 2);
	}
	i = rank / q;
	j = rank % q;
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < 2; k++) {
			out[k][0] = rank;
			out[k][1] = it * 2 + k;
		}
		post_recv(in[0], at(i - 1, j - 1), 0, &req[0]);
		post_recv(in[1], at(i - 1, j + 1), 1, &req[1]);
		post_send(out[0], at(i + 1, j + 1), 0, &req[2]);
		post_send(out[1], at(i + 1, j - 1), 1, &req[3]);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
		CHECK(in[0][0] == at(i - 1, j - 1) && in[0][1] == it * 2);
		CHECK(in[1][0] == at(i - 1, j + 1) && in[1][1] == it * 2 + 1);
		EXPECT("MPI_Waitall\\(count=4, " OUT
		       "array_of_requests=%s, " OUT
		       "array_of_statuses=" IGNORED_ALL "\\)",
		       rx_same(4, REQ));
	}
	expect_finalize();
	return 0;
}
