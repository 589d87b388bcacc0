/*
 * basic.c - an MPI program that knows what it calls: it writes, per rank,
 * one extended regular expression per call it makes (what `rondo dump`
 * must print for it), in order, to $RONDO_EXPECT.<rank>.  tests/mpi.sh
 * runs it under the tracer and compares.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *expect;

/* One expected call; a regular expression matched against the whole
 * line of `rondo dump` after the rank and index. */
#define EXPECT(...)                                                            \
	do {                                                                   \
		fprintf(expect, __VA_ARGS__);                                  \
		fputc('\n', expect);                                           \
	} while (0)

#define BUF "m[0-9]+\\+0"

static void open_expect(int rank)
{
	char path[4096];
	const char *base = getenv("RONDO_EXPECT");

	snprintf(path, sizeof(path), "%s.%d", base ? base : "expect", rank);
	expect = fopen(path, "w");
	if (!expect) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
}

static void ring(int rank, int size, int iters)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	double out[4] = {rank, rank, rank, rank}, in[4];
	MPI_Request req[2];

	for (int i = 0; i < iters; i++) {
		MPI_Irecv(in, 4, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
		EXPECT("MPI_Irecv\\(count=4, datatype=MPI_DOUBLE, source=%d, "
		       "tag=5, comm=MPI_COMM_WORLD -> buf=" BUF
		       ", request=r0\\)",
		       left);
		MPI_Isend(out, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD,
			  &req[1]);
		EXPECT("MPI_Isend\\(buf=" BUF ", count=4, datatype=MPI_DOUBLE, "
		       "dest=%d, tag=5, comm=MPI_COMM_WORLD -> request=r1\\)",
		       right);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		/* Freed ids are reused lowest first: the same every time. */
		EXPECT("MPI_Waitall\\(count=2 -> array_of_requests=\\[r0, "
		       "r1\\], "
		       "array_of_statuses=\\[MPI_STATUS_IGNORE\\{\\}, "
		       "MPI_STATUS_IGNORE\\{\\}\\]\\)");
	}
	if (in[0] != left)
		MPI_Abort(MPI_COMM_WORLD, 3);
}

/* A receive from this rank and a send to it, posted (their requests in
 * pending[]); the receive's request is r<id>, the send's r<id + 1>. */
static MPI_Request pending[2];
static double self_in[2], self_out[2];

static void self_pair(int rank, int id)
{
	MPI_Irecv(self_in, 2, MPI_DOUBLE, rank, 11, MPI_COMM_WORLD,
		  &pending[0]);
	EXPECT("MPI_Irecv\\(count=2, datatype=MPI_DOUBLE, source=%d, "
	       "tag=11, comm=MPI_COMM_WORLD -> buf=" BUF ", request=r%d\\)",
	       rank, id);
	MPI_Isend(self_out, 2, MPI_DOUBLE, rank, 11, MPI_COMM_WORLD,
		  &pending[1]);
	EXPECT("MPI_Isend\\(buf=" BUF ", count=2, datatype=MPI_DOUBLE, "
	       "dest=%d, tag=11, comm=MPI_COMM_WORLD -> request=r%d\\)",
	       rank, id + 1);
}

int main(int argc, char **argv)
{
	int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
	int sum = 0, one = 1, value = 0;
	MPI_Datatype pair;
	MPI_Comm half;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	open_expect(rank);
	EXPECT("MPI_Init\\(argc=[0-9]+, argv=NULL\\)");
	/* Stored relative to the caller (+0 on every rank), shown absolute. */
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD -> rank=%d\\)", rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD -> size=%d\\)", size);

	ring(rank, size, iters);

	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", count=1, datatype=MPI_INT, "
	       "op=MPI_SUM, comm=MPI_COMM_WORLD -> recvbuf=" BUF "\\)");
	if (sum != size)
		MPI_Abort(MPI_COMM_WORLD, 4);
	if (rank == 0)
		value = 42;
	MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
	EXPECT("MPI_Bcast\\(buffer=" BUF ", count=1, datatype=MPI_INT, "
	       "root=0, comm=MPI_COMM_WORLD\\)");

	/* A datatype created and freed in a loop reuses its id. */
	for (int i = 0; i < 3; i++) {
		MPI_Type_contiguous(2, MPI_INT, &pair);
		EXPECT("MPI_Type_contiguous\\(count=2, oldtype=MPI_INT -> "
		       "newtype=t0:8B\\)");
		MPI_Type_commit(&pair);
		EXPECT("MPI_Type_commit\\(-> datatype=t0:8B\\)");
		MPI_Type_free(&pair);
		EXPECT("MPI_Type_free\\(-> datatype=t0:8B\\)");
	}

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	/* Both halves' members agree on their communicator's id: ids go by
	 * the lowest world rank of the members, so rank 0's half is c0 and
	 * rank 1's half c1, on every member. */
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=%d -> "
	       "newcomm=c%d\\)",
	       rank % 2, rank, rank % 2);
	MPI_Barrier(half);
	EXPECT("MPI_Barrier\\(comm=c%d\\)", rank % 2);
	MPI_Comm_free(&half);
	EXPECT("MPI_Comm_free\\(-> comm=c%d\\)", rank % 2);

	/* Paused: nothing between the two Pcontrol calls is recorded, but
	 * what completes there is known after: the receive and send posted
	 * before the pause and completed in it give their ids back, and the
	 * same calls posted after it get them again. */
	self_pair(rank, 2);
	MPI_Pcontrol(0);
	EXPECT("MPI_Pcontrol\\(level=0\\)");
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Waitall(2, pending, MPI_STATUSES_IGNORE);
	MPI_Pcontrol(1);
	EXPECT("MPI_Pcontrol\\(level=1\\)");
	self_pair(rank, 2);
	MPI_Waitall(2, pending, MPI_STATUSES_IGNORE);
	EXPECT("MPI_Waitall\\(count=2 -> array_of_requests=\\[r2, r3\\], "
	       "array_of_statuses=\\[MPI_STATUS_IGNORE\\{\\}, "
	       "MPI_STATUS_IGNORE\\{\\}\\]\\)");

	if (size > 1) {
		if (rank == 0) {
			MPI_Send(&rank, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
			EXPECT("MPI_Send\\(buf=" BUF
			       ", count=1, datatype=MPI_INT, "
			       "dest=1, tag=9, comm=MPI_COMM_WORLD\\)");
		} else if (rank == 1) {
			MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE,
				 MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			EXPECT("MPI_Recv\\(count=1, datatype=MPI_INT, "
			       "source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG, "
			       "comm=MPI_COMM_WORLD -> buf=" BUF ", "
			       "status=status\\{source=0, tag=9\\}\\)");
		}
	}
	MPI_Finalize();
	EXPECT("MPI_Finalize\\(\\)");
	fclose(expect);
	return 0;
}
