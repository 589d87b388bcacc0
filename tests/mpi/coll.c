/*
 * coll.c - every collective of MPI 3.1 under the tracer, checked call by
 * call (expect.h): each blocking collective, then each again in its
 * non-blocking form completed by MPI_Wait, then the MPI_IN_PLACE forms,
 * non-blocking collectives overlapping, and a user-defined reduction whose
 * function makes MPI calls of its own (they are the program's calls and
 * are recorded, before the call that ran the function).
 *
 * The MPI-4 persistent collectives (MPI_Allreduce_init...) are tested
 * when mpi.h declares them (MPI_VERSION >= 4); Open MPI 4.1's mpi.h does
 * not (its MPIX_ ones in mpi-ext.h are not wrapped: the wrappers come from
 * mpi.h).
 *
 *   mpirun -np 4 coll          (any number of ranks, up to 8)
 */
#include <ctype.h>

#include "expect.h"

#define WORLD MPI_COMM_WORLD
#define MAXP  8

static int rank, size, root;
static int nb;		/* 1: the non-blocking form, completed by MPI_Wait */
static MPI_Request req; /* of the non-blocking form */

/* Expects collective `name` with arguments `args` (without the request),
 * in the form just called; completes the non-blocking one. */
static void expect_coll(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void expect_coll(const char *name, const char *fmt, ...)
{
	char args[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	if (!nb) {
		EXPECT("MPI_%s\\(%s\\)", name, args);
		return;
	}
	/* MPI_Ibcast: the name of the blocking one, lower case */
	EXPECT("MPI_I%c%s\\(%s, " OUT "request=" REQ "\\)", tolower(name[0]),
	       name + 1, args);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(req == MPI_REQUEST_NULL);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
}

/* The form of the collective this round tests. */
#define COLL(blocking, nonblocking) ((void)(nb ? (nonblocking) : (blocking)))

/* Counts i + 1 and their displacements, for the v collectives. */
static int counts[MAXP], displs[MAXP], total;

static void rooted(void)
{
	int s[64], r[64], is_root = rank == root;
	const char *root_recv = is_root ? OUT "recvbuf=" BUF ", recvcount=2, "
					      "recvtype=MPI_INT"
					: OUT "recvbuf=NULL, recvcount=NULL, "
					      "recvtype=NULL";
	const char *root_send = is_root ? "sendbuf=" BUF ", sendcount=2, "
					  "sendtype=MPI_INT"
					: "sendbuf=NULL, sendcount=NULL, "
					  "sendtype=NULL";
	const char *rt = rx_rank(root, WORLD);

	for (int i = 0; i < 64; i++)
		s[i] = rank * 100 + i;
	COLL(MPI_Bcast(s, 4, MPI_INT, root, WORLD),
	     MPI_Ibcast(s, 4, MPI_INT, root, WORLD, &req));
	expect_coll("Bcast",
		    "buffer=" BUF ", count=4, datatype=MPI_INT, "
		    "root=%s, comm=MPI_COMM_WORLD",
		    rt);
	CHECK(s[3] == root * 100 + 3);

	COLL(MPI_Gather(s, 2, MPI_INT, r, 2, MPI_INT, root, WORLD),
	     MPI_Igather(s, 2, MPI_INT, r, 2, MPI_INT, root, WORLD, &req));
	expect_coll("Gather",
		    "sendbuf=" BUF ", sendcount=2, "
		    "sendtype=MPI_INT, %s, root=%s, comm=MPI_COMM_WORLD",
		    root_recv, rt);
	CHECK(!is_root || r[2 * size - 1] == root * 100 + 1);

	COLL(MPI_Gatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT, root,
			 WORLD),
	     MPI_Igatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT,
			  root, WORLD, &req));
	expect_coll("Gatherv",
		    "sendbuf=" BUF ", sendcount=%d, "
		    "sendtype=MPI_INT, " OUT "recvbuf=%s, recvcounts=%s, "
		    "displs=%s, recvtype=%s, root=%s, comm=MPI_COMM_WORLD",
		    rank + 1, is_root ? BUF : "NULL",
		    is_root ? rx_ints(size, counts) : "NULL",
		    is_root ? rx_ints(size, displs) : "NULL",
		    is_root ? "MPI_INT" : "NULL", rt);

	COLL(MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, root, WORLD),
	     MPI_Iscatter(s, 2, MPI_INT, r, 2, MPI_INT, root, WORLD, &req));
	expect_coll("Scatter",
		    "%s, " OUT "recvbuf=" BUF ", recvcount=2, "
		    "recvtype=MPI_INT, root=%s, comm=MPI_COMM_WORLD",
		    root_send, rt);

	COLL(MPI_Scatterv(s, counts, displs, MPI_INT, r, rank + 1, MPI_INT,
			  root, WORLD),
	     MPI_Iscatterv(s, counts, displs, MPI_INT, r, rank + 1, MPI_INT,
			   root, WORLD, &req));
	expect_coll("Scatterv",
		    "sendbuf=%s, sendcounts=%s, displs=%s, "
		    "sendtype=%s, " OUT "recvbuf=" BUF ", recvcount=%d, "
		    "recvtype=MPI_INT, root=%s, comm=MPI_COMM_WORLD",
		    is_root ? BUF : "NULL",
		    is_root ? rx_ints(size, counts) : "NULL",
		    is_root ? rx_ints(size, displs) : "NULL",
		    is_root ? "MPI_INT" : "NULL", rank + 1, rt);

	COLL(MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, root, WORLD),
	     MPI_Ireduce(s, r, 2, MPI_INT, MPI_SUM, root, WORLD, &req));
	expect_coll("Reduce",
		    "sendbuf=" BUF ", " OUT "recvbuf=%s, count=2, "
		    "datatype=MPI_INT, op=MPI_SUM, root=%s, "
		    "comm=MPI_COMM_WORLD",
		    is_root ? BUF : "NULL", rt);
	CHECK(!is_root || r[1] == size * (root * 100 + 1));
}

static void all_to_all(void)
{
	int s[64], r[64], sc[MAXP], sd[MAXP], rc[MAXP], rd[MAXP];
	int sdb[MAXP], rdb[MAXP];
	MPI_Datatype types[MAXP];
	const char *ints = rx_same(size, "MPI_INT");

	for (int i = 0; i < 64; i++)
		s[i] = rank * 100 + i;
	/* Rank r sends i + 1 values to rank i, so receives r + 1 from each. */
	for (int i = 0, so = 0; i < size; i++) {
		sc[i] = i + 1;
		sd[i] = so;
		so += sc[i];
		rc[i] = rank + 1;
		rd[i] = i * (rank + 1);
		sdb[i] = sd[i] * (int)sizeof(int);
		rdb[i] = rd[i] * (int)sizeof(int);
		types[i] = MPI_INT;
	}

	COLL(MPI_Allgather(s, 2, MPI_INT, r, 2, MPI_INT, WORLD),
	     MPI_Iallgather(s, 2, MPI_INT, r, 2, MPI_INT, WORLD, &req));
	expect_coll("Allgather",
		    "sendbuf=" BUF ", sendcount=2, "
		    "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=2, "
		    "recvtype=MPI_INT, comm=MPI_COMM_WORLD");
	CHECK(r[2 * size - 2] == (size - 1) * 100);

	COLL(MPI_Allgatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT,
			    WORLD),
	     MPI_Iallgatherv(s, rank + 1, MPI_INT, r, counts, displs, MPI_INT,
			     WORLD, &req));
	expect_coll("Allgatherv",
		    "sendbuf=" BUF ", sendcount=%d, "
		    "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", "
		    "recvcounts=%s, displs=%s, recvtype=MPI_INT, "
		    "comm=MPI_COMM_WORLD",
		    rank + 1, rx_ints(size, counts), rx_ints(size, displs));
	CHECK(r[total - 1] == (size - 1) * 100 + size - 1);

	COLL(MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, WORLD),
	     MPI_Ialltoall(s, 1, MPI_INT, r, 1, MPI_INT, WORLD, &req));
	expect_coll("Alltoall",
		    "sendbuf=" BUF ", sendcount=1, "
		    "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=1, "
		    "recvtype=MPI_INT, comm=MPI_COMM_WORLD");
	CHECK(r[size - 1] == (size - 1) * 100 + rank);

	COLL(MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, WORLD),
	     MPI_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, WORLD,
			    &req));
	expect_coll("Alltoallv",
		    "sendbuf=" BUF ", sendcounts=%s, "
		    "sdispls=%s, sendtype=MPI_INT, " OUT "recvbuf=" BUF ", "
		    "recvcounts=%s, rdispls=%s, recvtype=MPI_INT, "
		    "comm=MPI_COMM_WORLD",
		    rx_ints(size, sc), rx_ints(size, sd), rx_ints(size, rc),
		    rx_ints(size, rd));
	CHECK(r[rd[size - 1]] == (size - 1) * 100 + sd[rank]);

	COLL(MPI_Alltoallw(s, sc, sdb, types, r, rc, rdb, types, WORLD),
	     MPI_Ialltoallw(s, sc, sdb, types, r, rc, rdb, types, WORLD, &req));
	expect_coll("Alltoallw",
		    "sendbuf=" BUF ", sendcounts=%s, "
		    "sdispls=%s, sendtypes=%s, " OUT "recvbuf=" BUF ", "
		    "recvcounts=%s, rdispls=%s, recvtypes=%s, "
		    "comm=MPI_COMM_WORLD",
		    rx_ints(size, sc), rx_ints(size, sdb), ints,
		    rx_ints(size, rc), rx_ints(size, rdb), ints);
	CHECK(r[rd[size - 1]] == (size - 1) * 100 + sd[rank]);
}

static void reductions(void)
{
	int s[64], r[64], n = 0;

	for (int i = 0; i < 64; i++)
		s[i] = rank + i;
	COLL(MPI_Allreduce(s, r, 2, MPI_INT, MPI_MAX, WORLD),
	     MPI_Iallreduce(s, r, 2, MPI_INT, MPI_MAX, WORLD, &req));
	expect_coll("Allreduce", "sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
				 "count=2, datatype=MPI_INT, op=MPI_MAX, "
				 "comm=MPI_COMM_WORLD");
	CHECK(r[1] == size);

	COLL(MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, WORLD),
	     MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM, WORLD, &req));
	expect_coll("Reduce_scatter",
		    "sendbuf=" BUF ", " OUT "recvbuf=" BUF
		    ", recvcounts=%s, datatype=MPI_INT, op=MPI_SUM, "
		    "comm=MPI_COMM_WORLD",
		    rx_ints(size, counts));
	for (int i = 0; i < size; i++)
		n += i + displs[rank];
	CHECK(r[0] == n);

	COLL(MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, WORLD),
	     MPI_Ireduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, WORLD, &req));
	expect_coll("Reduce_scatter_block",
		    "sendbuf=" BUF ", " OUT "recvbuf=" BUF
		    ", recvcount=2, datatype=MPI_INT, op=MPI_SUM, "
		    "comm=MPI_COMM_WORLD");

	COLL(MPI_Scan(s, r, 1, MPI_INT, MPI_SUM, WORLD),
	     MPI_Iscan(s, r, 1, MPI_INT, MPI_SUM, WORLD, &req));
	expect_coll("Scan", "sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
			    "count=1, datatype=MPI_INT, op=MPI_SUM, "
			    "comm=MPI_COMM_WORLD");
	CHECK(r[0] == rank * (rank + 1) / 2);

	COLL(MPI_Exscan(s, r, 1, MPI_INT, MPI_PROD, WORLD),
	     MPI_Iexscan(s, r, 1, MPI_INT, MPI_PROD, WORLD, &req));
	expect_coll("Exscan", "sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
			      "count=1, datatype=MPI_INT, op=MPI_PROD, "
			      "comm=MPI_COMM_WORLD");
}

static void round_of_all(void)
{
	COLL(MPI_Barrier(WORLD), MPI_Ibarrier(WORLD, &req));
	expect_coll("Barrier", "comm=MPI_COMM_WORLD");
	rooted();
	all_to_all();
	reductions();
}

/* MPI_IN_PLACE: the ignored side is not recorded. */
static void in_place(void)
{
	int r[64];
	const char *rt = rx_rank(root, WORLD);

	for (int i = 0; i < 64; i++)
		r[i] = rank;
	MPI_Allreduce(MPI_IN_PLACE, r, 3, MPI_INT, MPI_SUM, WORLD);
	EXPECT("MPI_Allreduce\\(sendbuf=MPI_IN_PLACE, " OUT "recvbuf=" BUF
	       ", count=3, datatype=MPI_INT, op=MPI_SUM, "
	       "comm=MPI_COMM_WORLD\\)");
	CHECK(r[2] == size * (size - 1) / 2);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 1, MPI_INT, WORLD);
	EXPECT("MPI_Allgather\\(sendbuf=MPI_IN_PLACE, sendcount=NULL, "
	       "sendtype=NULL, " OUT "recvbuf=" BUF ", recvcount=1, "
	       "recvtype=MPI_INT, comm=MPI_COMM_WORLD\\)");
	if (rank == root) {
		MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, r, 1, MPI_INT, root,
			   WORLD);
		EXPECT("MPI_Gather\\(sendbuf=MPI_IN_PLACE, sendcount=NULL, "
		       "sendtype=NULL, " OUT "recvbuf=" BUF ", recvcount=1, "
		       "recvtype=MPI_INT, root=%s, comm=MPI_COMM_WORLD\\)",
		       rt);
		MPI_Scatter(r, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root,
			    WORLD);
		EXPECT("MPI_Scatter\\(sendbuf=" BUF ", sendcount=1, "
		       "sendtype=MPI_INT, " OUT "recvbuf=MPI_IN_PLACE, "
		       "recvcount=NULL, recvtype=NULL, root=%s, "
		       "comm=MPI_COMM_WORLD\\)",
		       rt);
	} else {
		MPI_Gather(r, 1, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root,
			   WORLD);
		EXPECT("MPI_Gather\\(sendbuf=" BUF ", sendcount=1, "
		       "sendtype=MPI_INT, " OUT "recvbuf=NULL, "
		       "recvcount=NULL, recvtype=NULL, root=%s, "
		       "comm=MPI_COMM_WORLD\\)",
		       rt);
		MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, r, 1, MPI_INT, root,
			    WORLD);
		EXPECT("MPI_Scatter\\(sendbuf=NULL, sendcount=NULL, "
		       "sendtype=NULL, " OUT "recvbuf=" BUF ", recvcount=1, "
		       "recvtype=MPI_INT, root=%s, comm=MPI_COMM_WORLD\\)",
		       rt);
	}
}

/* Non-blocking collectives in flight together, completed by one Waitall
 * and by polling Test. */
#define IBCAST                                                                 \
	"MPI_Ibcast\\(buffer=" BUF ", count=1, datatype=MPI_INT, root=%s, "    \
	"comm=MPI_COMM_WORLD, " OUT "request=%s\\)"
#define WAITALL2                                                               \
	"MPI_Waitall\\(count=2, " OUT "array_of_requests=\\[" REQ ", " REQ     \
	"\\], " OUT "array_of_statuses=" IGNORED_ALL "\\)"

/* Two requests in flight: alone, both complete at once, and Open MPI
 * returns the same (completed) request object for both; they are still
 * two requests, with two ids (mpi.sh checks the Waitall names two). */
static void overlapping(void)
{
	int a = rank, b = -1, c = rank, flag;
	MPI_Request rq[2];

	MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_MIN, WORLD, &rq[0]);
	EXPECT("MPI_Iallreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
	       "count=1, datatype=MPI_INT, op=MPI_MIN, "
	       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)");
	MPI_Ibcast(&c, 1, MPI_INT, root, WORLD, &rq[1]);
	EXPECT(IBCAST, rx_rank(root, WORLD), REQ);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	EXPECT(WAITALL2);
	CHECK(b == 0 && c == root);
	MPI_Ibarrier(WORLD, &rq[0]);
	EXPECT("MPI_Ibarrier\\(comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)");
	do {
		MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
		EXPECT("MPI_Test\\(" OUT "request=" REQ ", " OUT "flag=%d, " OUT
		       "status=%s\\)",
		       flag, flag ? IGNORED : "NULL");
	} while (!flag);
}

static int op_calls;

/* A user reduction that asks MPI something: that call is the program's. */
static void my_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
	int sz;

	MPI_Type_size(*type, &sz);
	op_calls++;
	for (int i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void user_op(void)
{
	int a[2] = {rank, 1}, b[2] = {1, 1}, commute, calls;
	MPI_Op op;

	MPI_Op_create(my_sum, 1, &op);
	EXPECT("MPI_Op_create\\(user_fn=fn[0-9]+, commute=1, " OUT "op=op0\\)");
	MPI_Op_commutative(op, &commute);
	EXPECT("MPI_Op_commutative\\(op=op0, " OUT "commute=1\\)");
	op_calls = 0;
	MPI_Reduce_local(a, b, 2, MPI_INT, op);
	CHECK(op_calls == 1 && b[1] == 2);
	EXPECT("MPI_Type_size\\(datatype=MPI_INT, " OUT "size=%d\\)",
	       (int)sizeof(int));
	EXPECT("MPI_Reduce_local\\(inbuf=" BUF ", inoutbuf=" BUF ", count=2, "
	       "datatype=MPI_INT, op=op0\\)");
	/* How often the library calls it in a collective is its business;
	 * every call it made shows. */
	op_calls = 0;
	MPI_Allreduce(a, b, 2, MPI_INT, op, WORLD);
	CHECK(b[1] == size);
	calls = op_calls;
	for (int i = 0; i < calls; i++)
		EXPECT("MPI_Type_size\\(datatype=MPI_INT, " OUT "size=%d\\)",
		       (int)sizeof(int));
	EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
	       "count=2, datatype=MPI_INT, op=op0, comm=MPI_COMM_WORLD\\)");
	MPI_Op_free(&op);
	CHECK(op == MPI_OP_NULL);
	EXPECT("MPI_Op_free\\(" OUT "op=op0\\)");
}

#if MPI_VERSION >= 4
/* MPI-4 persistent collectives: started twice, freed. */
static void persistent(void)
{
	int a = rank, b = -1;
	MPI_Request pr;

	MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, WORLD, MPI_INFO_NULL,
			   &pr);
	EXPECT("MPI_Allreduce_init\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF
	       ", count=1, datatype=MPI_INT, op=MPI_SUM, "
	       "comm=MPI_COMM_WORLD, info=MPI_INFO_NULL, " OUT "request=" REQ
	       "\\)");
	for (int i = 0; i < 2; i++) {
		MPI_Start(&pr);
		EXPECT("MPI_Start\\(" OUT "request=" REQ "\\)");
		MPI_Wait(&pr, MPI_STATUS_IGNORE);
		EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT
		       "status=" IGNORED "\\)");
		CHECK(b == size * (size - 1) / 2);
	}
	MPI_Request_free(&pr);
	EXPECT("MPI_Request_free\\(" OUT "request=" REQ "\\)");
}
#endif

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	if (size > MAXP) {
		fprintf(stderr, "coll: at most %d ranks\n", MAXP);
		MPI_Abort(WORLD, 2);
	}
	root = size - 1;
	for (int i = 0; i < size; i++) {
		counts[i] = i + 1;
		displs[i] = total;
		total += counts[i];
	}
	for (nb = 0; nb < 2; nb++)
		round_of_all();
	in_place();
	overlapping();
	user_op();
#if MPI_VERSION >= 4
	persistent();
#endif
	expect_finalize();
	return 0;
}
