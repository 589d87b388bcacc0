/*
 * p2p.c - point-to-point under the tracer, checked call by call
 * (expect.h): blocking sends of every mode (Bsend with its attached
 * buffer, Rsend after a barrier), Sendrecv, non-blocking with Test and
 * Wait, persistent requests, Probe/Iprobe and matched probes with
 * wildcards and the statuses they give, Cancel, MPI_PROC_NULL.
 *
 *   mpirun -np 3 p2p          (3 ranks or more)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD
/* The usual (buf, count, datatype) triple of MPI_INT. */
#define INTS(n) "buf=" BUF ", count=" #n ", datatype=MPI_INT"
/* The same, received into: the buffer is an output. */
#define RINTS(n) OUT "buf=" BUF ", count=" #n ", datatype=MPI_INT"

static int rank, size, left, right;

/* Standard, synchronous, buffered and ready mode, between ranks 0 and 1. */
static void modes(void)
{
	int a[4] = {1, 2, 3, 4}, b[4] = {0}, bsize, dsize;
	MPI_Request req;
	MPI_Status st;
	char *bbuf;
	void *det;

	if (rank == 0) {
		MPI_Send(a, 4, MPI_INT, 1, 10, WORLD);
		EXPECT("MPI_Send\\(" INTS(4) ", dest=%s, tag=10, "
					     "comm=MPI_COMM_WORLD\\)",
		       rx_rank(1, WORLD));
		MPI_Ssend(a, 2, MPI_INT, 1, 11, WORLD);
		EXPECT("MPI_Ssend\\(" INTS(2) ", dest=%s, tag=11, "
					      "comm=MPI_COMM_WORLD\\)",
		       rx_rank(1, WORLD));
		MPI_Pack_size(4, MPI_INT, WORLD, &bsize);
		EXPECT("MPI_Pack_size\\(incount=4, datatype=MPI_INT, "
		       "comm=MPI_COMM_WORLD, " OUT "size=%d\\)",
		       bsize);
		bsize += MPI_BSEND_OVERHEAD;
		bbuf = malloc((size_t)bsize);
		CHECK(bbuf);
		MPI_Buffer_attach(bbuf, bsize);
		EXPECT("MPI_Buffer_attach\\(buffer=" BUF ", size=%d\\)", bsize);
		MPI_Bsend(a, 4, MPI_INT, 1, 12, WORLD);
		EXPECT("MPI_Bsend\\(" INTS(4) ", dest=%s, tag=12, "
					      "comm=MPI_COMM_WORLD\\)",
		       rx_rank(1, WORLD));
		MPI_Buffer_detach(&det, &dsize);
		CHECK(det == bbuf && dsize == bsize);
		EXPECT("MPI_Buffer_detach\\(" OUT "buffer_addr=" BUF ", " OUT
		       "size=%d\\)",
		       bsize);
		free(bbuf);
	} else if (rank == 1) {
		MPI_Recv(b, 4, MPI_INT, 0, 10, WORLD, &st);
		CHECK(b[3] == 4 && st.MPI_SOURCE == 0 && st.MPI_TAG == 10);
		EXPECT("MPI_Recv\\(" RINTS(4) ", source=%s, tag=10, "
					      "comm=MPI_COMM_WORLD, " OUT
					      "status=%s\\)",
		       rx_rank(0, WORLD), ST_NONE);
		/* 2 of the 4 ints posted: the count is kept, though the
		 * program did not ask for it */
		MPI_Recv(b, 4, MPI_INT, 0, 11, WORLD, MPI_STATUS_IGNORE);
		EXPECT("MPI_Recv\\(" RINTS(4) ", source=%s, tag=11, "
					      "comm=MPI_COMM_WORLD, " OUT
					      "status=%s\\)",
		       rx_rank(0, WORLD), rx_ign(NO, NO, 2));
		MPI_Recv(b, 4, MPI_INT, 0, 12, WORLD, MPI_STATUS_IGNORE);
		EXPECT("MPI_Recv\\(" RINTS(4) ", source=%s, tag=12, "
					      "comm=MPI_COMM_WORLD, " OUT
					      "status=" IGNORED "\\)",
		       rx_rank(0, WORLD));
		/* Ready mode: the receive is posted before the barrier. */
		MPI_Irecv(b, 4, MPI_INT, 0, 13, WORLD, &req);
		EXPECT("MPI_Irecv\\(" RINTS(4) ", source=%s, tag=13, "
					       "comm=MPI_COMM_WORLD, " OUT
					       "request=" REQ "\\)",
		       rx_rank(0, WORLD));
	}
	MPI_Barrier(WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	if (rank == 0) {
		MPI_Rsend(a, 4, MPI_INT, 1, 13, WORLD);
		EXPECT("MPI_Rsend\\(" INTS(4) ", dest=%s, tag=13, "
					      "comm=MPI_COMM_WORLD\\)",
		       rx_rank(1, WORLD));
	} else if (rank == 1) {
		MPI_Wait(&req, &st);
		CHECK(req == MPI_REQUEST_NULL && b[0] == 1);
		EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=%s\\)",
		       ST_NONE);
	}
}

/* A ring: Sendrecv, Sendrecv_replace, Isend/Irecv completed by Test, Wait
 * and Waitall with statuses, Issend. */
static void ring(void)
{
	int out = rank, in = -1, x = rank, flag, tests = 0, two[2];
	MPI_Request rq[4];
	MPI_Status st, sts[2];

	MPI_Sendrecv(&out, 1, MPI_INT, right, 20, &in, 1, MPI_INT, left, 20,
		     WORLD, &st);
	CHECK(in == left);
	EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, dest=%s, sendtag=20, " OUT "recvbuf=" BUF
	       ", recvcount=1, recvtype=MPI_INT, source=%s, recvtag=20, "
	       "comm=MPI_COMM_WORLD, " OUT "status=%s\\)",
	       rx_rank(right, WORLD), rx_rank(left, WORLD), ST_NONE);
	MPI_Sendrecv_replace(&x, 1, MPI_INT, left, 21, right, 21, WORLD, &st);
	CHECK(x == right);
	EXPECT("MPI_Sendrecv_replace\\(" INTS(
		       1) ", dest=%s, sendtag=21, "
			  "source=%s, recvtag=21, comm=MPI_COMM_WORLD, " OUT
			  "status=%s\\)",
	       rx_rank(left, WORLD), rx_rank(right, WORLD), ST_NONE);

	MPI_Irecv(&in, 1, MPI_INT, left, 30, WORLD, &rq[0]);
	EXPECT("MPI_Irecv\\(" RINTS(1) ", source=%s, tag=30, "
				       "comm=MPI_COMM_WORLD, " OUT
				       "request=" REQ "\\)",
	       rx_rank(left, WORLD));
	MPI_Isend(&out, 1, MPI_INT, right, 30, WORLD, &rq[1]);
	EXPECT("MPI_Isend\\(" INTS(1) ", dest=%s, tag=30, "
				      "comm=MPI_COMM_WORLD, " OUT "request=" REQ
				      "\\)",
	       rx_rank(right, WORLD));
	do {
		MPI_Test(&rq[0], &flag, &st);
		if (flag)
			EXPECT("MPI_Test\\(" OUT "request=" REQ ", " OUT
			       "flag=1, " OUT "status=%s\\)",
			       ST_NONE);
		else
			EXPECT("MPI_Test\\(" OUT "request=" REQ ", " OUT
			       "flag=0, " OUT "status=NULL\\)");
		tests++;
	} while (!flag);
	CHECK(rq[0] == MPI_REQUEST_NULL && tests > 0);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");

	/* Wildcards the program never looks at: the tracer gives MPI a
	 * status of its own and keeps the source and tag they matched (a
	 * replay posts them). */
	MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, WORLD, &rq[0]);
	EXPECT("MPI_Irecv\\(" RINTS(
		1) ", source=MPI_ANY_SOURCE, "
		   "tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD, " OUT "request=" REQ
		   "\\)");
	MPI_Isend(&out, 1, MPI_INT, right, 32, WORLD, &rq[1]);
	EXPECT("MPI_Isend\\(" INTS(1) ", dest=%s, tag=32, "
				      "comm=MPI_COMM_WORLD, " OUT "request=" REQ
				      "\\)",
	       rx_rank(right, WORLD));
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	CHECK(in == left);
	EXPECT("MPI_Waitall\\(count=2, " OUT "array_of_requests=\\[" REQ
	       ", " REQ "\\], " OUT "array_of_statuses=\\[%s, " IGNORED
	       "\\]\\)",
	       rx_ign(left, 32, NO));
	MPI_Isend(&out, 1, MPI_INT, right, 33, WORLD, &rq[1]);
	EXPECT("MPI_Isend\\(" INTS(1) ", dest=%s, tag=33, "
				      "comm=MPI_COMM_WORLD, " OUT "request=" REQ
				      "\\)",
	       rx_rank(right, WORLD));
	MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 33, WORLD, MPI_STATUS_IGNORE);
	CHECK(in == left);
	EXPECT("MPI_Recv\\(" RINTS(1) ", source=MPI_ANY_SOURCE, tag=33, "
				      "comm=MPI_COMM_WORLD, " OUT
				      "status=%s\\)",
	       rx_ign(left, NO, NO));
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");

	/* Two receives completed together: their statuses, in order. */
	MPI_Irecv(&two[0], 1, MPI_INT, left, 31, WORLD, &rq[0]);
	EXPECT("MPI_Irecv\\(" RINTS(1) ", source=%s, tag=31, "
				       "comm=MPI_COMM_WORLD, " OUT
				       "request=" REQ "\\)",
	       rx_rank(left, WORLD));
	MPI_Irecv(&two[1], 1, MPI_INT, right, 32, WORLD, &rq[1]);
	EXPECT("MPI_Irecv\\(" RINTS(1) ", source=%s, tag=32, "
				       "comm=MPI_COMM_WORLD, " OUT
				       "request=" REQ "\\)",
	       rx_rank(right, WORLD));
	MPI_Issend(&out, 1, MPI_INT, right, 31, WORLD, &rq[2]);
	EXPECT("MPI_Issend\\(" INTS(1) ", dest=%s, tag=31, "
				       "comm=MPI_COMM_WORLD, " OUT
				       "request=" REQ "\\)",
	       rx_rank(right, WORLD));
	MPI_Isend(&out, 1, MPI_INT, left, 32, WORLD, &rq[3]);
	EXPECT("MPI_Isend\\(" INTS(1) ", dest=%s, tag=32, "
				      "comm=MPI_COMM_WORLD, " OUT "request=" REQ
				      "\\)",
	       rx_rank(left, WORLD));
	MPI_Waitall(2, rq, sts);
	CHECK(two[0] == left && two[1] == right);
	EXPECT("MPI_Waitall\\(count=2, " OUT "array_of_requests=\\[" REQ
	       ", " REQ "\\], " OUT "array_of_statuses=\\[%s, %s\\]\\)",
	       ST_NONE, ST_NONE);
	MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
	EXPECT("MPI_Waitall\\(count=2, " OUT "array_of_requests=\\[" REQ
	       ", " REQ "\\], " OUT "array_of_statuses=" IGNORED_ALL "\\)");
}

/* Persistent requests: started three times, completed, started again,
 * then freed. */
static void persistent(void)
{
	int out = rank, in = -1;
	MPI_Request rq[2];

	MPI_Recv_init(&in, 1, MPI_INT, left, 50, WORLD, &rq[0]);
	EXPECT("MPI_Recv_init\\(" RINTS(1) ", source=%s, tag=50, "
					   "comm=MPI_COMM_WORLD, " OUT
					   "request=" REQ "\\)",
	       rx_rank(left, WORLD));
	MPI_Send_init(&out, 1, MPI_INT, right, 50, WORLD, &rq[1]);
	EXPECT("MPI_Send_init\\(" INTS(1) ", dest=%s, tag=50, "
					  "comm=MPI_COMM_WORLD, " OUT
					  "request=" REQ "\\)",
	       rx_rank(right, WORLD));
	for (int i = 0; i < 3; i++) {
		MPI_Startall(2, rq);
		EXPECT("MPI_Startall\\(count=2, " OUT
		       "array_of_requests=\\[" REQ ", " REQ "\\]\\)");
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		EXPECT("MPI_Waitall\\(count=2, " OUT "array_of_requests=\\[" REQ
		       ", " REQ "\\], " OUT "array_of_statuses=" IGNORED_ALL
		       "\\)");
		CHECK(in == left && rq[0] != MPI_REQUEST_NULL);
	}
	MPI_Start(&rq[0]);
	EXPECT("MPI_Start\\(" OUT "request=" REQ "\\)");
	MPI_Start(&rq[1]);
	EXPECT("MPI_Start\\(" OUT "request=" REQ "\\)");
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Request_free(&rq[0]);
	EXPECT("MPI_Request_free\\(" OUT "request=" REQ "\\)");
	MPI_Request_free(&rq[1]);
	EXPECT("MPI_Request_free\\(" OUT "request=" REQ "\\)");
}

/* Every rank but 1 sends to rank 1, which takes the messages with
 * wildcards in whatever order they come: Probe and Get_count, then Iprobe
 * polling, then matched probes (Mprobe/Mrecv, Improbe/Imrecv). */
static void wildcards(void)
{
	int buf[16], n, flag, got = 0;
	MPI_Message msg;
	MPI_Request req;
	MPI_Status st;

	if (rank != 1) {
		for (int k = 0; k < 4; k++) {
			for (int i = 0; i <= rank; i++)
				buf[i] = rank;
			MPI_Send(buf, rank + 1, MPI_INT, 1, 40 + k, WORLD);
			EXPECT("MPI_Send\\(buf=" BUF ", count=%d, "
			       "datatype=MPI_INT, dest=%s, tag=%d, "
			       "comm=MPI_COMM_WORLD\\)",
			       rank + 1, rx_rank(1, WORLD), 40 + k);
		}
		return;
	}
	for (int i = 0; i < size - 1; i++) {
		MPI_Probe(MPI_ANY_SOURCE, 40, WORLD, &st);
		EXPECT("MPI_Probe\\(source=MPI_ANY_SOURCE, tag=40, "
		       "comm=MPI_COMM_WORLD, " OUT "status=%s\\)",
		       rx_st(st.MPI_SOURCE, NO,
			     (int)sizeof(int) * (st.MPI_SOURCE + 1)));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == st.MPI_SOURCE + 1);
		EXPECT("MPI_Get_count\\(status=%s, datatype=MPI_INT, " OUT
		       "count=%d\\)",
		       ST_NONE, n);
		MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, WORLD,
			 &st);
		CHECK(buf[0] == st.MPI_SOURCE);
		EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=%d, "
		       "datatype=MPI_INT, source=%s, tag=40, "
		       "comm=MPI_COMM_WORLD, " OUT "status=%s\\)",
		       n, rx_rank(st.MPI_SOURCE, WORLD), ST_NONE);
	}
	while (got < size - 1) {
		MPI_Iprobe(MPI_ANY_SOURCE, 41, WORLD, &flag, &st);
		if (!flag) {
			EXPECT("MPI_Iprobe\\(source=MPI_ANY_SOURCE, tag=41, "
			       "comm=MPI_COMM_WORLD, " OUT "flag=0, " OUT
			       "status=NULL\\)");
			continue;
		}
		EXPECT("MPI_Iprobe\\(source=MPI_ANY_SOURCE, tag=41, "
		       "comm=MPI_COMM_WORLD, " OUT "flag=1, " OUT
		       "status=%s\\)",
		       rx_st(st.MPI_SOURCE, NO,
			     (int)sizeof(int) * (st.MPI_SOURCE + 1)));
		MPI_Recv(buf, 16, MPI_INT, MPI_ANY_SOURCE, 41, WORLD, &st);
		EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=16, "
		       "datatype=MPI_INT, source=MPI_ANY_SOURCE, tag=41, "
		       "comm=MPI_COMM_WORLD, " OUT "status=%s\\)",
		       rx_st(st.MPI_SOURCE, NO, st.MPI_SOURCE + 1));
		got++;
	}
	for (int i = 0; i < size - 1; i++) {
		MPI_Mprobe(MPI_ANY_SOURCE, 42, WORLD, &msg, &st);
		EXPECT("MPI_Mprobe\\(source=MPI_ANY_SOURCE, tag=42, "
		       "comm=MPI_COMM_WORLD, " OUT "message=msg0, " OUT
		       "status=%s\\)",
		       rx_st(st.MPI_SOURCE, NO,
			     (int)sizeof(int) * (st.MPI_SOURCE + 1)));
		MPI_Mrecv(buf, 16, MPI_INT, &msg, &st);
		CHECK(msg == MPI_MESSAGE_NULL);
		EXPECT("MPI_Mrecv\\(" RINTS(16) ", " OUT "message=msg0, " OUT
						"status=%s\\)",
		       rx_st(st.MPI_SOURCE, 42, st.MPI_SOURCE + 1));
	}
	/* Only tag 43 is left: any tag will do. */
	for (got = 0; got < size - 1;) {
		MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, WORLD, &flag, &msg,
			    &st);
		if (!flag) {
			EXPECT("MPI_Improbe\\(source=MPI_ANY_SOURCE, "
			       "tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD, " OUT
			       "flag=0, " OUT "message=NULL, " OUT
			       "status=NULL\\)");
			continue;
		}
		EXPECT("MPI_Improbe\\(source=MPI_ANY_SOURCE, "
		       "tag=MPI_ANY_TAG, comm=MPI_COMM_WORLD, " OUT
		       "flag=1, " OUT "message=msg0, " OUT "status=%s\\)",
		       rx_st(st.MPI_SOURCE, 43,
			     (int)sizeof(int) * (st.MPI_SOURCE + 1)));
		MPI_Imrecv(buf, 16, MPI_INT, &msg, &req);
		EXPECT("MPI_Imrecv\\(" RINTS(16) ", " OUT "message=msg0, " OUT
						 "request=" REQ "\\)");
		MPI_Wait(&req, &st);
		CHECK(buf[0] == st.MPI_SOURCE && st.MPI_TAG == 43);
		EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=%s\\)",
		       rx_st(st.MPI_SOURCE, 43, st.MPI_SOURCE + 1));
		got++;
	}
}

/* What is not a peer: MPI_PROC_NULL, a cancelled receive, a null
 * request. */
#define RECV_PROC_NULL                                                         \
	"MPI_Recv\\(" RINTS(1) ", source=MPI_PROC_NULL, "                      \
			       "tag=60, comm=MPI_COMM_WORLD, " OUT             \
			       "status=%s\\)"
#define WAIT_NULL                                                              \
	"MPI_Wait\\(" OUT "request=MPI_REQUEST_NULL, " OUT "status=%s\\)"

static void special(void)
{
	int x = 0, flag;
	MPI_Request req;
	MPI_Status st;

	MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 60, WORLD);
	EXPECT("MPI_Send\\(" INTS(1) ", dest=MPI_PROC_NULL, tag=60, "
				     "comm=MPI_COMM_WORLD\\)");
	MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 60, WORLD, &st);
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
	EXPECT("%s", rx_printf(RECV_PROC_NULL, ST_NONE));

	MPI_Irecv(&x, 1, MPI_INT, right, 61, WORLD, &req);
	EXPECT("MPI_Irecv\\(" RINTS(1) ", source=%s, tag=61, "
				       "comm=MPI_COMM_WORLD, " OUT
				       "request=" REQ "\\)",
	       rx_rank(right, WORLD));
	MPI_Cancel(&req);
	EXPECT("MPI_Cancel\\(request=" REQ "\\)");
	MPI_Wait(&req, &st);
	/* a cancelled receive's status says so and nothing else: MPI leaves
	 * its other fields undefined (Open MPI sets count 0, MPICH leaves
	 * what the status held) */
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=status\\{"
	       "cancelled\\}\\)");
	MPI_Test_cancelled(&st, &flag);
	CHECK(flag);
	EXPECT("MPI_Test_cancelled\\(status=" ST_NONE ", " OUT "flag=1\\)");

	/* An empty status (MPI_ANY_SOURCE, MPI_ANY_TAG): inferred. */
	MPI_Wait(&req, &st);
	CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
	EXPECT("%s", rx_printf(WAIT_NULL, ST_NONE));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	if (size < 3) {
		fprintf(stderr, "p2p: needs 3 ranks or more\n");
		MPI_Abort(WORLD, 2);
	}
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	modes();
	ring();
	persistent();
	wildcards();
	special();
	expect_finalize();
	return 0;
}
