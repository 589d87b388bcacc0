/*
 * rma.c - one-sided communication under the tracer, checked call by call
 * (expect.h): a window on memory from MPI_Alloc_mem, active target with
 * fences (Put, Get, Accumulate) and with post/start/complete/wait, passive
 * target with locks (Fetch_and_op, Compare_and_swap, Get_accumulate, Rput,
 * flushes), and a window MPI allocates.
 *
 * Target ranks are recorded as plain integers (tracer/gen/RULES.md, Known
 * gaps: a window's communicator is not at hand), so they are written here
 * as ranks of MPI_COMM_WORLD.
 *
 *   mpirun -np 3 rma         (2 ranks or more)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, left, right;

/* The origin buffer, n MPI_INTs, read by the call. */
#define ORIGIN(n)                                                              \
	"origin_addr=" BUF ", origin_count=" #n ", "                           \
	"origin_datatype=MPI_INT"
/* The same for MPI_Get, which writes the origin buffer. */
#define RORIGIN(n) OUT ORIGIN(n)

static void active(MPI_Win win, int *mem)
{
	int one = 1, got = -1;
	MPI_Group g;

	MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
	EXPECT("MPI_Win_fence\\(assert=%d, win=w0\\)", MPI_MODE_NOPRECEDE);
	/* slot [rank] of the right neighbour's window gets my rank */
	MPI_Put(&rank, 1, MPI_INT, right, rank, 1, MPI_INT, win);
	EXPECT("MPI_Put\\(" ORIGIN(
		       1) ", target_rank=%d, target_disp=%d, "
			  "target_count=1, target_datatype=MPI_INT, win=w0\\)",
	       right, rank);
	MPI_Accumulate(&one, 1, MPI_INT, 0, size, 1, MPI_INT, MPI_SUM, win);
	EXPECT("MPI_Accumulate\\(" ORIGIN(1) ", target_rank=0, "
					     "target_disp=%d, target_count=1, "
					     "target_datatype=MPI_INT, "
					     "op=MPI_SUM, win=w0\\)",
	       size);
	MPI_Win_fence(0, win);
	EXPECT("MPI_Win_fence\\(assert=0, win=w0\\)");
	CHECK(mem[left] == left && (rank != 0 || mem[size] == size));
	MPI_Get(&got, 1, MPI_INT, right, rank, 1, MPI_INT, win);
	EXPECT("MPI_Get\\(" RORIGIN(
		       1) ", target_rank=%d, target_disp=%d, "
			  "target_count=1, target_datatype=MPI_INT, win=w0\\)",
	       right, rank);
	MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
	EXPECT("MPI_Win_fence\\(assert=%d, win=w0\\)", MPI_MODE_NOSUCCEED);
	CHECK(got == rank);

	/* Post/start/complete/wait with every rank. */
	MPI_Win_get_group(win, &g);
	EXPECT("MPI_Win_get_group\\(win=w0, " OUT "group=g0\\)");
	MPI_Win_post(g, 0, win);
	EXPECT("MPI_Win_post\\(group=g0, assert=0, win=w0\\)");
	MPI_Win_start(g, 0, win);
	EXPECT("MPI_Win_start\\(group=g0, assert=0, win=w0\\)");
	got = -rank;
	MPI_Put(&got, 1, MPI_INT, left, size + 1, 1, MPI_INT, win);
	EXPECT("MPI_Put\\(" ORIGIN(
		       1) ", target_rank=%d, target_disp=%d, "
			  "target_count=1, target_datatype=MPI_INT, win=w0\\)",
	       left, size + 1);
	MPI_Win_complete(win);
	EXPECT("MPI_Win_complete\\(win=w0\\)");
	MPI_Win_wait(win);
	EXPECT("MPI_Win_wait\\(win=w0\\)");
	CHECK(mem[size + 1] == -right);
	MPI_Group_free(&g);
	EXPECT("MPI_Group_free\\(" OUT "group=g0\\)");
}

static void passive(MPI_Win win, int *mem)
{
	int one = 1, old = 0, cmp = 0, res, vals[2] = {1, 1}, got[2];
	MPI_Request req;

	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
	EXPECT("MPI_Win_lock\\(lock_type=%d, rank=0, assert=0, win=w0\\)",
	       MPI_LOCK_SHARED);
	MPI_Fetch_and_op(&one, &old, MPI_INT, 0, size, MPI_SUM, win);
	EXPECT("MPI_Fetch_and_op\\(origin_addr=" BUF ", " OUT "result_addr=" BUF
	       ", datatype=MPI_INT, target_rank=0, target_disp=%d, "
	       "op=MPI_SUM, win=w0\\)",
	       size);
	MPI_Win_unlock(0, win);
	EXPECT("MPI_Win_unlock\\(rank=0, win=w0\\)");
	CHECK(old >= size && old < 2 * size);

	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
	EXPECT("MPI_Win_lock\\(lock_type=%d, rank=%d, assert=0, win=w0\\)",
	       MPI_LOCK_EXCLUSIVE, right);
	MPI_Compare_and_swap(&rank, &cmp, &res, MPI_INT, right, size + 2, win);
	EXPECT("MPI_Compare_and_swap\\(origin_addr=" BUF ", compare_addr=" BUF
	       ", " OUT "result_addr=" BUF ", datatype=MPI_INT, "
	       "target_rank=%d, target_disp=%d, win=w0\\)",
	       right, size + 2);
	MPI_Win_flush(right, win);
	EXPECT("MPI_Win_flush\\(rank=%d, win=w0\\)", right);
	MPI_Win_unlock(right, win);
	EXPECT("MPI_Win_unlock\\(rank=%d, win=w0\\)", right);

	MPI_Win_lock_all(0, win);
	EXPECT("MPI_Win_lock_all\\(assert=0, win=w0\\)");
	MPI_Get_accumulate(vals, 2, MPI_INT, got, 2, MPI_INT, left, 0, 2,
			   MPI_INT, MPI_NO_OP, win);
	EXPECT("MPI_Get_accumulate\\(" ORIGIN(
		       2) ", " OUT "result_addr=" BUF
			  ", result_count=2, result_datatype=MPI_INT, "
			  "target_rank=%d, "
			  "target_disp=0, target_count=2, "
			  "target_datatype=MPI_INT, "
			  "op=MPI_NO_OP, win=w0\\)",
	       left);
	MPI_Win_flush_all(win);
	EXPECT("MPI_Win_flush_all\\(win=w0\\)");
	MPI_Rput(vals, 1, MPI_INT, rank, size + 3, 1, MPI_INT, win, &req);
	EXPECT("MPI_Rput\\(" ORIGIN(1) ", target_rank=%d, target_disp=%d, "
				       "target_count=1, "
				       "target_datatype=MPI_INT, win=w0, " OUT
				       "request=" REQ "\\)",
	       rank, size + 3);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Win_unlock_all(win);
	EXPECT("MPI_Win_unlock_all\\(win=w0\\)");
	MPI_Barrier(WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	CHECK(mem[size + 2] == left && mem[size + 3] == 1);
}

int main(int argc, char **argv)
{
	int *mem, *amem, n;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	n = (size + 4) * (int)sizeof(int);
	MPI_Alloc_mem(n, MPI_INFO_NULL, &mem);
	EXPECT("MPI_Alloc_mem\\(size=%d, info=MPI_INFO_NULL, " OUT
	       "baseptr=" BUF "\\)",
	       n);
	for (int i = 0; i < size + 4; i++)
		mem[i] = 0;
	MPI_Win_create(mem, n, sizeof(int), MPI_INFO_NULL, WORLD, &win);
	EXPECT("MPI_Win_create\\(base=" BUF ", size=%d, disp_unit=%d, "
	       "info=MPI_INFO_NULL, comm=MPI_COMM_WORLD, " OUT "win=w0\\)",
	       n, (int)sizeof(int));
	active(win, mem);
	passive(win, mem);
	MPI_Win_free(&win);
	CHECK(win == MPI_WIN_NULL);
	EXPECT("MPI_Win_free\\(" OUT "win=w0\\)");
	MPI_Free_mem(mem);
	EXPECT("MPI_Free_mem\\(base=" BUF "\\)");

	/* A window MPI allocates: the freed id is reused.  Its size is a
	 * multiple of 16 bytes: MPICH 4.0.2 puts the parts of the ranks of
	 * one node side by side in one shared segment, and with another
	 * size (4 to 28 bytes, seen on 2, 3 and 4 ranks) a Put to
	 * displacement 0 of another rank's part lands elsewhere in the
	 * segment, traced or not. */
	n = (n + 15) / 16 * 16;
	MPI_Win_allocate(n, sizeof(int), MPI_INFO_NULL, WORLD, &amem, &win);
	EXPECT("MPI_Win_allocate\\(size=%d, disp_unit=%d, "
	       "info=MPI_INFO_NULL, comm=MPI_COMM_WORLD, " OUT "baseptr=" BUF
	       ", " OUT "win=w0\\)",
	       n, (int)sizeof(int));
	MPI_Win_fence(0, win);
	EXPECT("MPI_Win_fence\\(assert=0, win=w0\\)");
	MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
	EXPECT("MPI_Put\\(" ORIGIN(
		       1) ", target_rank=%d, target_disp=0, "
			  "target_count=1, target_datatype=MPI_INT, win=w0\\)",
	       right);
	MPI_Win_fence(0, win);
	EXPECT("MPI_Win_fence\\(assert=0, win=w0\\)");
	CHECK(amem[0] == left);
	MPI_Win_free(&win);
	EXPECT("MPI_Win_free\\(" OUT "win=w0\\)");
	expect_finalize();
	return 0;
}
