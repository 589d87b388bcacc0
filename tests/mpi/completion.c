/*
 * completion.c - Waitany, Waitsome, Testany and Testsome in loops, checked
 * call by call (expect.h).  Rank 0 receives one message from every other
 * rank per phase:
 *
 *  - Waitany and Waitsome: the receives are posted before the senders
 *    send, so they complete in whatever order the messages arrive;
 *  - Testany and Testsome: the messages are sent before the receives are
 *    posted (a barrier between), so the tests find them and the number of
 *    polls does not vary from one iteration to the next;
 *  - then a hub: Waitany over one receive per worker, each completion
 *    answered at once and its receive posted again.
 *
 * Whatever the order, the program knows what each call returned and
 * writes it.  mpi.sh also runs it with 10 and 100 iterations: the order
 * of completions is real information, but the symbols must not change
 * with it (the receive from one worker always has the same request id).
 *
 *   mpirun -np 3 completion [ITERATIONS]     (2 to 9 ranks)
 */
#include <time.h>
#include <unistd.h>

#include "expect.h"

#define WORLD MPI_COMM_WORLD
#define MAXK  8

static int rank, size, k; /* k: receives per phase, one per other rank */
static MPI_Request rq[MAXK];
static int in[MAXK];
static unsigned seed;

/* The requests as the call sees them: MPI_REQUEST_NULL once completed. */
static const char *rx_reqs(void)
{
	const char *e[MAXK];

	for (int i = 0; i < k; i++)
		e[i] = rq[i] == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : REQ;
	return rx_list(k, e);
}

/* The receive from rank i + 1. */
static void post_one(int i, int tag)
{
	MPI_Irecv(&in[i], 1, MPI_INT, i + 1, tag, WORLD, &rq[i]);
	EXPECT("MPI_Irecv\\(" OUT "buf=" BUF ", count=1, "
	       "datatype=MPI_INT, source=%s, tag=%d, "
	       "comm=MPI_COMM_WORLD, " OUT "request=" REQ "\\)",
	       rx_rank(i + 1, WORLD), tag);
}

static void post(int tag)
{
	for (int i = 0; i < k; i++)
		post_one(i, tag);
}

static void barrier(void)
{
	MPI_Barrier(WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
}

static void send_to_hub(int tag)
{
	int v = rank * 10 + tag;

	/* Wait* phases: a random delay, so the messages arrive in an order
	 * that changes from one iteration to the next. */
	if (tag <= 2 || tag == 5)
		usleep((useconds_t)(rand_r(&seed) % 400));
	MPI_Send(&v, 1, MPI_INT, 0, tag, WORLD);
	EXPECT("MPI_Send\\(buf=" BUF ", count=1, datatype=MPI_INT, dest=%s, "
	       "tag=%d, comm=MPI_COMM_WORLD\\)",
	       rx_rank(0, WORLD), tag);
}

/* The value and status of receive i are right. */
static void check_received(int i, const MPI_Status *st, int tag)
{
	CHECK(in[i] == (i + 1) * 10 + tag);
	CHECK(st->MPI_SOURCE == i + 1 && st->MPI_TAG == tag);
}

static void wait_any(void)
{
	MPI_Status st;
	const char *before;
	int idx;

	for (int n = 0; n < k; n++) {
		before = rx_reqs();
		MPI_Waitany(k, rq, &idx, &st);
		check_received(idx, &st, 1);
		EXPECT("MPI_Waitany\\(count=%d, " OUT
		       "array_of_requests=%s, " OUT "index=%d, " OUT
		       "status=%s\\)",
		       k, before, idx, ST_NONE);
	}
}

/* Waitsome or Testsome until every request completed. */
static void some(int test, int tag)
{
	MPI_Status sts[MAXK];
	const char *before, *st[MAXK];
	int done = 0, out, idx[MAXK];

	while (done < k) {
		before = rx_reqs();
		if (test)
			MPI_Testsome(k, rq, &out, idx, sts);
		else
			MPI_Waitsome(k, rq, &out, idx, sts);
		CHECK(out != MPI_UNDEFINED);
		for (int i = 0; i < out; i++) {
			check_received(idx[i], &sts[i], tag);
			st[i] = ST_NONE;
		}
		EXPECT("MPI_%s\\(incount=%d, " OUT "array_of_requests=%s, " OUT
		       "outcount=%d, " OUT "array_of_indices=%s, " OUT
		       "array_of_statuses=%s\\)",
		       test ? "Testsome" : "Waitsome", k, before, out,
		       rx_ints(out, idx), rx_list(out, st));
		done += out;
	}
}

static void test_any(void)
{
	MPI_Status st;
	const char *before;
	int idx, flag, done = 0;

	while (done < k) {
		before = rx_reqs();
		MPI_Testany(k, rq, &idx, &flag, &st);
		if (!flag) {
			EXPECT("MPI_Testany\\(count=%d, " OUT
			       "array_of_requests=%s, " OUT "index=NULL, " OUT
			       "flag=0, " OUT "status=NULL\\)",
			       k, before);
			continue;
		}
		check_received(idx, &st, 3);
		EXPECT("MPI_Testany\\(count=%d, " OUT
		       "array_of_requests=%s, " OUT "index=%d, " OUT
		       "flag=1, " OUT "status=%s\\)",
		       k, before, idx, ST_NONE);
		done++;
	}
}

/* Nothing left to complete: MPI_UNDEFINED, and no entries. */
#define WAITANY_NULL                                                           \
	"MPI_Waitany\\(count=%d, " OUT "array_of_requests=%s, " OUT            \
	"index=%s, " OUT "status=" ST_NONE "\\)"
#define WAITSOME_NULL                                                          \
	"MPI_Waitsome\\(incount=%d, " OUT "array_of_requests=%s, " OUT         \
	"outcount=%s, " OUT "array_of_indices=NULL, " OUT                      \
	"array_of_statuses=MPI_STATUSES_IGNORE\\)"

static void all_null(void)
{
	const char *nulls = rx_same(k, "MPI_REQUEST_NULL");
	MPI_Status st;
	int idx, out, indices[MAXK];

	MPI_Waitany(k, rq, &idx, &st);
	CHECK(idx == MPI_UNDEFINED);
	EXPECT("%s", rx_printf(WAITANY_NULL, k, nulls, "MPI_UNDEFINED"));
	MPI_Waitsome(k, rq, &out, indices, MPI_STATUSES_IGNORE);
	CHECK(out == MPI_UNDEFINED);
	EXPECT("%s", rx_printf(WAITSOME_NULL, k, nulls, "MPI_UNDEFINED"));
}

/* A hub serving its workers in the order they come: each completion is
 * answered at once (an Isend) and the receive posted again.  The receive
 * from a given worker must keep its request id whatever the order: ids
 * come from a pool per signature (mpi.sh counts the Irecv signatures). */
static void hub(int rounds)
{
	static int ack[MAXK];
	MPI_Request sq[MAXK];
	MPI_Status st;
	const char *before;
	int left[MAXK], todo = k * rounds, idx;

	for (int i = 0; i < k; i++) {
		sq[i] = MPI_REQUEST_NULL;
		left[i] = rounds;
		post_one(i, 5);
	}
	while (todo > 0) {
		before = rx_reqs();
		MPI_Waitany(k, rq, &idx, &st);
		CHECK(idx >= 0 && idx < k && in[idx] == (idx + 1) * 10 + 5);
		EXPECT("MPI_Waitany\\(count=%d, " OUT
		       "array_of_requests=%s, " OUT "index=%d, " OUT
		       "status=" ST_NONE "\\)",
		       k, before, idx);
		todo--;
		if (sq[idx] != MPI_REQUEST_NULL) {
			MPI_Wait(&sq[idx], &st);
			EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT
			       "status=" ST_NONE "\\)");
		}
		MPI_Isend(&ack[idx], 1, MPI_INT, idx + 1, 6, WORLD, &sq[idx]);
		EXPECT("MPI_Isend\\(buf=" BUF ", count=1, datatype=MPI_INT, "
		       "dest=%s, tag=6, comm=MPI_COMM_WORLD, " OUT
		       "request=" REQ "\\)",
		       rx_rank(idx + 1, WORLD));
		if (--left[idx] > 0)
			post_one(idx, 5);
	}
	MPI_Waitall(k, sq, MPI_STATUSES_IGNORE);
	EXPECT("MPI_Waitall\\(count=%d, " OUT "array_of_requests=%s, " OUT
	       "array_of_statuses=" IGNORED_ALL "\\)",
	       k,
	       rx_list(k, (const char *[MAXK]){REQ, REQ, REQ, REQ, REQ, REQ,
					       REQ, REQ}));
}

static void worker(int rounds)
{
	int ack;

	for (int i = 0; i < rounds; i++) {
		send_to_hub(5);
		MPI_Recv(&ack, 1, MPI_INT, 0, 6, WORLD, MPI_STATUS_IGNORE);
		EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=1, "
		       "datatype=MPI_INT, source=%s, tag=6, "
		       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
		       rx_rank(0, WORLD));
	}
}

static void iteration(void)
{
	/* Wait*: receives first, messages in any order. */
	if (rank == 0)
		post(1);
	barrier();
	if (rank == 0)
		wait_any();
	else
		send_to_hub(1);
	if (rank == 0)
		post(2);
	barrier();
	if (rank == 0)
		some(0, 2);
	else
		send_to_hub(2);
	/* Test*: messages first, found by the first tests. */
	if (rank != 0) {
		send_to_hub(3);
		send_to_hub(4);
	}
	barrier();
	if (rank == 0) {
		post(3);
		test_any();
		post(4);
		some(1, 4);
	}
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	k = size - 1;
	seed = (unsigned)time(NULL) ^ (unsigned)rank * 7919u;
	if (k < 1 || k > MAXK) {
		fprintf(stderr, "completion: 2 to %d ranks\n", MAXK + 1);
		MPI_Abort(WORLD, 2);
	}
	for (int i = 0; i < iters; i++)
		iteration();
	if (rank == 0)
		hub(iters);
	else
		worker(iters);
	if (rank == 0)
		all_null();
	expect_finalize();
	return 0;
}
