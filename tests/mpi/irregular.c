/*
 * irregular.c - ranks that do different things, checked call by call
 * (expect.h), for the merge at any number of ranks: each rank runs its
 * own number of local calls (3 + rank % 4 of MPI_Comm_rank) inside a loop
 * of ring exchanges on a communicator split three ways (colour rank % 3)
 * and reductions on a second split (rank % 2); two of the colours also
 * reduce on their own communicator; rank 0 alone asks the world's size in
 * its iterations, ranks of colour 0 broadcast at the end, and the last
 * rank sends rank 0 a message whose tag is its rank.
 *
 *   mpirun -np N irregular        (any N)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

int main(int argc, char **argv)
{
	int rank, size, me, n, sub2me, iters, v, sum;
	MPI_Comm sub, sub2;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	iters = 3 + rank % 4;

	MPI_Comm_split(WORLD, rank % 3, rank, &sub);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=%d, " OUT
	       "newcomm=" COMM "\\)",
	       rank % 3, rank);
	MPI_Comm_rank(sub, &me);
	EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT "rank=%d\\)", me);
	MPI_Comm_size(sub, &n);
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", n);
	MPI_Comm_split(WORLD, rank % 2, 0, &sub2);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=0, " OUT
	       "newcomm=" COMM "\\)",
	       rank % 2);
	MPI_Comm_rank(sub2, &sub2me);
	EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT "rank=%d\\)", sub2me);

	/* the collectives' members all make them as often; the rank's own
	 * calls follow its own iteration count */
	for (int it = 0; it < 6; it++) {
		int in = -1, out = rank;

		MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % n, it, &in, 1,
			     MPI_INT, (me + n - 1) % n, it, sub, &st);
		EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
		       "sendtype=MPI_INT, dest=%s, sendtag=%d, " OUT
		       "recvbuf=" BUF
		       ", recvcount=1, recvtype=MPI_INT, source=%s, "
		       "recvtag=%d, comm=" COMM ", " OUT "status=" ST_NONE
		       "\\)",
		       rx_rank((me + 1) % n, sub), it,
		       rx_rank((me + n - 1) % n, sub), it);
		if (it < iters) {
			MPI_Comm_rank(sub, &v);
			EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT
			       "rank=%d\\)",
			       me);
		}
		if (it < iters && rank == 0) {
			MPI_Comm_size(WORLD, &v);
			EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT
			       "size=%d\\)",
			       size);
		}
		MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, sub2);
		EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF
		       ", count=1, datatype=MPI_INT, op=MPI_SUM, comm=" COMM
		       "\\)");
		if (rank % 3 != 1) {
			MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_MAX, sub);
			EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT
			       "recvbuf=" BUF
			       ", count=1, datatype=MPI_INT, op=MPI_MAX, "
			       "comm=" COMM "\\)");
		}
	}
	MPI_Barrier(sub);
	EXPECT("MPI_Barrier\\(comm=" COMM "\\)");
	if (rank % 3 == 0) {
		MPI_Bcast(&v, 1, MPI_INT, 0, sub);
		EXPECT("MPI_Bcast\\(buffer=" BUF ", count=1, "
		       "datatype=MPI_INT, root=0, comm=" COMM "\\)");
	}
	if (size > 1 && rank == size - 1) {
		MPI_Send(&rank, 1, MPI_INT, 0, rank, WORLD);
		EXPECT("MPI_Send\\(buf=" BUF ", count=1, datatype=MPI_INT, "
		       "dest=0, tag=%d, comm=MPI_COMM_WORLD\\)",
		       rank);
	} else if (size > 1 && rank == 0) {
		MPI_Recv(&v, 1, MPI_INT, size - 1, MPI_ANY_TAG, WORLD, &st);
		CHECK(v == size - 1 && st.MPI_TAG == size - 1);
		EXPECT("MPI_Recv\\(" OUT "buf=" BUF
		       ", count=1, datatype=MPI_INT, "
		       "source=%d, tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD, " OUT
		       "status=%s\\)",
		       size - 1, rx_st(NO, size - 1, NO));
	}
	MPI_Comm_free(&sub2);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	MPI_Comm_free(&sub);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	expect_finalize();
	return 0;
}
