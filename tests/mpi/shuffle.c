/*
 * shuffle.c - an irregular call sequence the program knows, checked call
 * by call (expect.h): every iteration posts three receives from itself,
 * then sends the three messages one at a time in an order drawn from a
 * pseudo-random sequence of its own (seeded by the rank), taking each
 * with MPI_Waitany as soon as it is sent, after a drawn number (0 to 5) of
 * MPI_Comm_rank calls.  So the completions come in one of six orders and
 * runs of one call have varying lengths, as in a program whose messages
 * arrive as they please, but the same every run.  The tracer reshapes
 * such a rank's grammar (tracer/reshape.c); merge.sh checks the calls.
 *
 *   mpirun -np N shuffle [ITERATIONS]
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static unsigned draw(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 16;
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 100, index, v;
	double in[3], out = 1;
	MPI_Request recv[3], send;
	MPI_Status st;
	unsigned x;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	x = 7u + 31u * (unsigned)rank;
	for (int it = 0; it < iters; it++) {
		int order[3] = {0, 1, 2}, done[3] = {0, 0, 0};

		for (int k = 0; k < 3; k++) {
			MPI_Irecv(&in[k], 1, MPI_DOUBLE, rank, k, WORLD,
				  &recv[k]);
			EXPECT("MPI_Irecv\\(" OUT "buf=" BUF ", count=1, "
			       "datatype=MPI_DOUBLE, source=%d, tag=%d, "
			       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)",
			       rank, k);
		}
		for (int k = 2; k > 0; k--) { /* a drawn permutation */
			int j = (int)(draw(&x) % (unsigned)(k + 1)),
			    t = order[k];

			order[k] = order[j];
			order[j] = t;
		}
		for (int k = 0; k < 3; k++) {
			const char *req[3];
			int polls = (int)(draw(&x) % 6);

			for (int p = 0; p < polls; p++) {
				MPI_Comm_rank(WORLD, &v);
				EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD,"
				       " " OUT "rank=%d\\)",
				       rank);
			}
			MPI_Isend(&out, 1, MPI_DOUBLE, rank, order[k], WORLD,
				  &send);
			EXPECT("MPI_Isend\\(buf=" BUF ", count=1, "
			       "datatype=MPI_DOUBLE, dest=%d, tag=%d, "
			       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)",
			       rank, order[k]);
			for (int j = 0; j < 3; j++)
				req[j] = done[j] ? "MPI_REQUEST_NULL" : REQ;
			MPI_Waitany(3, recv, &index, &st);
			CHECK(index == order[k]);
			done[index] = 1;
			EXPECT("MPI_Waitany\\(count=3, " OUT
			       "array_of_requests=\\[%s, %s, %s\\], " OUT
			       "index=%d, " OUT "status=" ST_NONE "\\)",
			       req[0], req[1], req[2], index);
			MPI_Wait(&send, MPI_STATUS_IGNORE);
			EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT
			       "status=" IGNORED "\\)");
		}
	}
	expect_finalize();
	return 0;
}
