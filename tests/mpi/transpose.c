/*
 * transpose.c - a transpose on a q x q grid of ranks (q = floor(sqrt(N)),
 * rank i * q + j at row i, column j), checked call by call (expect.h): a
 * row communicator (colour i, key j) and a column one (colour j, key i);
 * every iteration an MPI_Alltoall in the row and an MPI_Sendrecv in
 * MPI_COMM_WORLD with the transpose partner j * q + i (the diagonal
 * exchanges with itself); then an MPI_Allreduce in the column, one in
 * MPI_COMM_WORLD, and the two communicators freed.  Ranks past the grid
 * (N not a square) split with colour MPI_UNDEFINED and take part in the
 * world's Allreduce only.  On a square every rank does the same thing
 * relative to its place on the grid, so the trace should hold one rank
 * group (scale.sh).
 *
 *   mpirun -np N transpose [ITERATIONS]        (any N)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD
#define MAXQ  64

#define SPLIT                                                                  \
	"MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%s, key=%d, " OUT         \
	"newcomm=%s\\)"
#define ALLREDUCE                                                              \
	"MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", count=1, "   \
	"datatype=MPI_INT, op=MPI_SUM, comm=%s\\)"

static int rank, size, q, i, j;

/* One iteration on the grid: the row's blocks, the transpose partner's
 * value. */
static void step(MPI_Comm row, int it)
{
	int out[MAXQ], in[MAXQ], t = j * q + i, v = rank + 1000 * it, w = -1;

	for (int k = 0; k < q; k++) {
		out[k] = rank * 100 + k + it;
		in[k] = -1;
	}
	MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, row);
	for (int k = 0; k < q; k++)
		CHECK(in[k] == (i * q + k) * 100 + j + it);
	EXPECT("MPI_Alltoall\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=1, "
	       "recvtype=MPI_INT, comm=" COMM "\\)");
	MPI_Sendrecv(&v, 1, MPI_INT, t, 5, &w, 1, MPI_INT, t, 5, WORLD,
		     MPI_STATUS_IGNORE);
	CHECK(w == t + 1000 * it);
	EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, dest=%s, sendtag=5, " OUT "recvbuf=" BUF
	       ", recvcount=1, recvtype=MPI_INT, source=%s, recvtag=5, "
	       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
	       rx_rank(t, WORLD), rx_rank(t, WORLD));
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20, in_grid, sum;
	MPI_Comm row, col;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	for (q = 1; (q + 1) * (q + 1) <= size && q < MAXQ; q++)
		;
	in_grid = rank < q * q;
	i = rank / q;
	j = rank % q;
	MPI_Comm_split(WORLD, in_grid ? i : MPI_UNDEFINED, in_grid ? j : 0,
		       &row);
	MPI_Comm_split(WORLD, in_grid ? j : MPI_UNDEFINED, in_grid ? i : 0,
		       &col);
	if (!in_grid) {
		CHECK(row == MPI_COMM_NULL && col == MPI_COMM_NULL);
		EXPECT(SPLIT, "MPI_UNDEFINED", 0, "MPI_COMM_NULL");
		EXPECT(SPLIT, "MPI_UNDEFINED", 0, "MPI_COMM_NULL");
	} else {
		EXPECT(SPLIT, rx_printf("%d", i), j, COMM);
		EXPECT(SPLIT, rx_printf("%d", j), i, COMM);
		for (int it = 0; it < iters; it++)
			step(row, it);
		/* the column's rows: i over the column */
		MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, col);
		CHECK(sum == q * (q - 1) / 2);
		EXPECT(ALLREDUCE, COMM);
	}
	MPI_Allreduce(&in_grid, &sum, 1, MPI_INT, MPI_SUM, WORLD);
	CHECK(sum == q * q);
	EXPECT(ALLREDUCE, "MPI_COMM_WORLD");
	if (in_grid) {
		MPI_Comm_free(&col);
		EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
		MPI_Comm_free(&row);
		EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	}
	expect_finalize();
	return 0;
}
