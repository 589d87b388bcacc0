/*
 * types.c - derived datatypes under the tracer, checked call by call
 * (expect.h): a vector type created, committed, used in a ring exchange
 * and freed ITERATIONS times (its id is reused: t0 every time, and
 * mpi.sh checks that the grammar does not grow with the loop), then
 * the other constructors and queries once, with Pack and Unpack, a
 * type of absolute addresses sent from MPI_BOTTOM, and a type made after
 * two were freed, which may get the handle of the second.
 *
 *   mpirun -np 2 types [ITERATIONS]      (any number of ranks)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, left, right;

static void loop(long iters)
{
	int out[4] = {rank, -1, rank, -1}, in[4];
	MPI_Datatype every_other;

	for (long i = 0; i < iters; i++) {
		MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
		EXPECT("MPI_Type_vector\\(count=2, blocklength=1, stride=2, "
		       "oldtype=MPI_INT, " OUT "newtype=t0:8B\\)");
		MPI_Type_commit(&every_other);
		EXPECT("MPI_Type_commit\\(" OUT "datatype=t0:8B\\)");
		MPI_Sendrecv(out, 1, every_other, right, 0, in, 1, every_other,
			     left, 0, WORLD, MPI_STATUS_IGNORE);
		EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
		       "sendtype=t0:8B, dest=%s, sendtag=0, " OUT "recvbuf=" BUF
		       ", recvcount=1, recvtype=t0:8B, source=%s, recvtag=0, "
		       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
		       rx_rank(right, WORLD), rx_rank(left, WORLD));
		MPI_Type_free(&every_other);
		CHECK(every_other == MPI_DATATYPE_NULL);
		EXPECT("MPI_Type_free\\(" OUT "datatype=t0:8B\\)");
	}
	CHECK(iters == 0 || in[2] == left);
}

/* The other constructors, each type used or queried, then freed in an
 * order different from their creation: freed ids are reused lowest
 * first. */
static void constructors(void)
{
	struct {
		int i;
		double d;
	} rec[2] = {{0, 0}, {0, 0}};
	int bl[2] = {1, 1}, disp[2] = {0, 3}, sizes[2] = {4, 4};
	int subsizes[2] = {2, 2}, starts[2] = {1, 1}, sz, len, pos = 0;
	MPI_Aint ad[2], base, lb, extent;
	MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, st, ix, sub, rs, dp;
	char packed[256], name[MPI_MAX_OBJECT_NAME];
	int grid[16] = {0}, back[16] = {0};

	MPI_Get_address(&rec[0], &base);
	EXPECT("MPI_Get_address\\(location=" BUF ", " OUT "address=" BUF "\\)");
	MPI_Get_address(&rec[0].d, &ad[1]);
	EXPECT("MPI_Get_address\\(location=" BUF ", " OUT "address=" BUF "\\)");
	ad[0] = 0;
	ad[1] -= base;
	MPI_Type_create_struct(2, bl, ad, types, &st);
	EXPECT("MPI_Type_create_struct\\(count=2, "
	       "array_of_blocklengths=\\[1, 1\\], "
	       "array_of_displacements=\\[0, %ld\\], "
	       "array_of_types=\\[MPI_INT, MPI_DOUBLE\\], " OUT
	       "newtype=t0:12B\\)",
	       (long)ad[1]);
	MPI_Type_indexed(2, bl, disp, MPI_INT, &ix);
	EXPECT("MPI_Type_indexed\\(count=2, "
	       "array_of_blocklengths=\\[1, 1\\], "
	       "array_of_displacements=\\[0, 3\\], oldtype=MPI_INT, " OUT
	       "newtype=t1:8B\\)");
	MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C,
				 MPI_INT, &sub);
	EXPECT("MPI_Type_create_subarray\\(ndims=2, "
	       "array_of_sizes=\\[4, 4\\], array_of_subsizes=\\[2, 2\\], "
	       "array_of_starts=\\[1, 1\\], order=%d, oldtype=MPI_INT, " OUT
	       "newtype=t2:16B\\)",
	       MPI_ORDER_C);
	MPI_Type_create_resized(st, 0, (MPI_Aint)sizeof(rec[0]), &rs);
	EXPECT("MPI_Type_create_resized\\(oldtype=t0:12B, lb=0, extent=%d, " OUT
	       "newtype=t3:12B\\)",
	       (int)sizeof(rec[0]));
	MPI_Type_dup(sub, &dp);
	EXPECT("MPI_Type_dup\\(oldtype=t2:16B, " OUT "newtype=t4:16B\\)");
	MPI_Type_set_name(dp, "centre");
	EXPECT("MPI_Type_set_name\\(datatype=t4:16B, type_name=\"centre\"\\)");
	MPI_Type_get_name(dp, name, &len);
	EXPECT("MPI_Type_get_name\\(datatype=t4:16B, " OUT
	       "type_name=\"centre\", " OUT "resultlen=6\\)");
	MPI_Type_commit(&rs);
	EXPECT("MPI_Type_commit\\(" OUT "datatype=t3:12B\\)");
	MPI_Type_commit(&dp);
	EXPECT("MPI_Type_commit\\(" OUT "datatype=t4:16B\\)");
	MPI_Type_size(rs, &sz);
	EXPECT("MPI_Type_size\\(datatype=t3:12B, " OUT "size=%d\\)", sz);
	MPI_Type_get_extent(rs, &lb, &extent);
	EXPECT("MPI_Type_get_extent\\(datatype=t3:12B, " OUT "lb=0, " OUT
	       "extent=%d\\)",
	       (int)sizeof(rec[0]));
	/* The centre of a 4 x 4 grid, packed and unpacked elsewhere. */
	for (int i = 0; i < 16; i++)
		grid[i] = i;
	MPI_Pack(grid, 1, dp, packed, sizeof(packed), &pos, WORLD);
	CHECK(pos == 4 * (int)sizeof(int));
	EXPECT("MPI_Pack\\(inbuf=" BUF ", incount=1, datatype=t4:16B, " OUT
	       "outbuf=" BUF ", outsize=%d, position=0, "
	       "comm=MPI_COMM_WORLD\\)",
	       (int)sizeof(packed));
	pos = 0;
	MPI_Unpack(packed, sizeof(packed), &pos, back, 1, dp, WORLD);
	CHECK(back[5] == 5 && back[10] == 10 && back[0] == 0);
	EXPECT("MPI_Unpack\\(inbuf=" BUF ", insize=%d, position=0, " OUT
	       "outbuf=" BUF ", outcount=1, datatype=t4:16B, "
	       "comm=MPI_COMM_WORLD\\)",
	       (int)sizeof(packed));
	MPI_Type_free(&ix);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t1:8B\\)");
	MPI_Type_free(&st);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t0:12B\\)");
	MPI_Type_contiguous(3, MPI_INT, &ix);
	EXPECT("MPI_Type_contiguous\\(count=3, oldtype=MPI_INT, " OUT
	       "newtype=t0:12B\\)");
	MPI_Type_free(&ix);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t0:12B\\)");
	MPI_Type_free(&dp);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t4:16B\\)");
	MPI_Type_free(&rs);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t3:12B\\)");
	MPI_Type_free(&sub);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t2:16B\\)");
}

/* Absolute displacements (MPI_Get_address, then MPI_BOTTOM): recorded as
 * (segment, offset), the same on every rank (mpi.sh: one signature). */
static void absolute(void)
{
	int *pair = malloc(4 * sizeof(int)), back[4] = {0}, bl[2] = {1, 1};
	MPI_Aint ad[2];
	MPI_Datatype two;
	MPI_Request rq;

	if (!pair)
		MPI_Abort(WORLD, 2);
	for (int i = 0; i < 4; i++)
		pair[i] = rank * 10 + i;
	MPI_Get_address(&pair[0], &ad[0]);
	EXPECT("MPI_Get_address\\(location=m[0-9]+\\+0, " OUT
	       "address=m[0-9]+\\+0\\)");
	MPI_Get_address(&pair[2], &ad[1]);
	EXPECT("MPI_Get_address\\(location=m[0-9]+\\+8, " OUT
	       "address=m[0-9]+\\+8\\)");
	MPI_Type_create_hindexed(2, bl, ad, MPI_INT, &two);
	EXPECT("MPI_Type_create_hindexed\\(count=2, "
	       "array_of_blocklengths=\\[1, 1\\], "
	       "array_of_displacements=\\[m[0-9]+\\+0, m[0-9]+\\+8\\], "
	       "oldtype=MPI_INT, " OUT "newtype=t0:8B\\)");
	MPI_Type_commit(&two);
	EXPECT("MPI_Type_commit\\(" OUT "datatype=t0:8B\\)");
	MPI_Isend(MPI_BOTTOM, 1, two, right, 4, WORLD, &rq);
	/* MPI_BOTTOM is the null pointer in Open MPI and MPICH */
	EXPECT("MPI_Isend\\(buf=NULL, count=1, datatype=t0:8B, dest=%s, tag=4, "
	       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)",
	       rx_rank(right, WORLD));
	MPI_Recv(back, 2, MPI_INT, left, 4, WORLD, MPI_STATUS_IGNORE);
	CHECK(back[0] == left * 10 && back[1] == left * 10 + 2);
	EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=2, datatype=MPI_INT, "
	       "source=%s, tag=4, comm=MPI_COMM_WORLD, " OUT "status=" IGNORED
	       "\\)",
	       rx_rank(left, WORLD));
	MPI_Wait(&rq, MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Type_free(&two);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t0:8B\\)");
	free(pair);
}

/* The call before names the same values: a wrapper reuses what it
 * recorded for them only while no handle was freed (RONDO_MEMO). */
static void bcast_pair(int *pair, MPI_Datatype t, int id)
{
	MPI_Bcast(pair, 1, t, 0, WORLD);
	EXPECT("MPI_Bcast\\(buffer=" BUF ", count=1, datatype=t%d:8B, root=0, "
	       "comm=MPI_COMM_WORLD\\)",
	       id);
}

/* Two types made, used and freed, then a third: it takes the lowest free
 * id, t0:8B, though the library may give it the second one's handle (t1). */
static void reuse(void)
{
	int pair[2] = {rank, rank};
	MPI_Datatype t[3];

	for (int i = 0; i < 2; i++) {
		MPI_Type_contiguous(2, MPI_INT, &t[i]);
		EXPECT("MPI_Type_contiguous\\(count=2, oldtype=MPI_INT, " OUT
		       "newtype=t%d:8B\\)",
		       i);
		MPI_Type_commit(&t[i]);
		EXPECT("MPI_Type_commit\\(" OUT "datatype=t%d:8B\\)", i);
	}
	bcast_pair(pair, t[0], 0);
	bcast_pair(pair, t[1], 1);
	for (int i = 0; i < 2; i++) {
		MPI_Type_free(&t[i]);
		EXPECT("MPI_Type_free\\(" OUT "datatype=t%d:8B\\)", i);
	}
	MPI_Type_contiguous(2, MPI_INT, &t[2]);
	EXPECT("MPI_Type_contiguous\\(count=2, oldtype=MPI_INT, " OUT
	       "newtype=t0:8B\\)");
	MPI_Type_commit(&t[2]);
	EXPECT("MPI_Type_commit\\(" OUT "datatype=t0:8B\\)");
	bcast_pair(pair, t[2], 0);
	CHECK(pair[0] == 0 && pair[1] == 0);
	MPI_Type_free(&t[2]);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t0:8B\\)");
	/* the same id for a type of another size: its size tells them apart */
	MPI_Type_contiguous(3, MPI_INT, &t[2]);
	EXPECT("MPI_Type_contiguous\\(count=3, oldtype=MPI_INT, " OUT
	       "newtype=t0:12B\\)");
	MPI_Type_free(&t[2]);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t0:12B\\)");
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 10;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	loop(iters);
	constructors();
	absolute();
	reuse();
	expect_finalize();
	return 0;
}
