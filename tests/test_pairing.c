/*
 * test_pairing.c - whether messages and collectives pair up
 * (analyses/pairing.c), on traces the tests' writer makes: the demo job,
 * which pairs, and its changes that do not; a job with every kind of
 * receive the check counts (explicit, wildcard, persistent, matched
 * probes, cancelled, on a subcommunicator and on MPI_COMM_SELF) and
 * nonblocking collectives, each broken in turn; names the trace does not
 * resolve; and loops of 10^7 iterations written as a grammar, which the
 * check must take from the rules, not from the calls.  And who waits for
 * whom in each kind of collective (an_coll_of, analyses/skew.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "pairing.h"
#include "skew.h"
#include "testtrace.h"

/* The trace tt describes, opened; tt is freed. */
static rondo_trace *open_tt(struct testtrace *tt, struct fmt_buf *file)
{
	rondo_trace *t = tt_open(tt, file, 0);

	tt_free(tt);
	return t;
}

/* Pairing of the trace tt describes (freed). */
static struct an_pairing check_tt(struct testtrace *tt)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_tt(tt, &file);
	struct an_pairing p;

	CHECK(an_pairing(t, &p) == 0);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	return p;
}

/* p refused the trace with exactly `want`. */
#define REFUSED(p, want)                                                       \
	CHECKF(!(p).ok && !strcmp((p).first, want), "ok=%d first: %s", (p).ok, \
	       (p).first)

/* ---- the demo ------------------------------------------------------------ */

/* Rank r sends to r-1 and r+1 every iteration and receives from both;
 * every rank calls Allreduce twice an iteration, and Barrier once. */
static void test_demo(uint32_t nranks, uint32_t iters)
{
	struct an_pairing p = check_tt(tt_demo(nranks, iters));

	CHECKF(p.ok && !p.first[0], "%u ranks: %s", nranks, p.first);
	CHECKF(p.checked_pairs == 2ull * (nranks - 1) * iters, "%llu",
	       (unsigned long long)p.checked_pairs);
	CHECKF(p.checked_colls == (uint64_t)nranks * (2 * iters + 1), "%llu",
	       (unsigned long long)p.checked_colls);
	CHECK(p.unresolved == 0);
}

static void test_demo_changed(void)
{
	struct an_pairing p;

	/* rank 1 sends to rank 3 instead of rank 2 */
	p = check_tt(tt_demo_changed(5, 10, TT_CHANGE_PEER));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 2 "
		   "posts 10 receives from rank 1, which sends it 0 messages");
	/* rank 2 calls MPI_Barrier once more */
	p = check_tt(tt_demo_changed(4, 10, TT_CHANGE_CALL));
	REFUSED(p, "MPI_Barrier on communicator MPI_COMM_WORLD: rank 0 calls "
		   "it 1 time, rank 2 calls it 2 times");
	/* sizes, times and buffers are not what pairs */
	p = check_tt(tt_demo_changed(4, 10, TT_CHANGE_COUNT));
	CHECKF(p.ok, "%s", p.first);
	p = check_tt(tt_demo_changed(4, 10, TT_CHANGE_BUFFERS));
	CHECKF(p.ok, "%s", p.first);
}

/* ---- a job with every kind of receive ------------------------------------ */

/* What a variant of the job breaks. */
enum brk {
	B_NONE,
	B_CANCEL,     /* rank 0's cancelled receive not cancelled */
	B_START,      /* rank 2 never starts its persistent send */
	B_WILD,	      /* rank 0 posts one wildcard receive too few */
	B_WILD_EXTRA, /* or one too many */
	B_PROBE,      /* rank 3's matched probe names rank 2, not rank 1 */
	B_COLL_EXTRA, /* rank 3 calls MPI_Ibcast once more on c0 */
	B_COLL_ODD,   /* rank 1, c0's rank 0, calls MPI_Bcast once less */
	B_SELF,	      /* rank 1 receives from itself on MPI_COMM_SELF twice */
};

struct job {
	struct testtrace *tt;
	uint32_t world, self, any, proc_null, cancelled, msg_null, no_proc;
};

/* A signature of func with the values given as kind and value pairs up to
 * a kind of UINT32_MAX; a STATUS or ARRAY value is followed by its
 * elements, its value their number. */
static uint32_t sig_of(struct job *j, uint32_t func, ...)
{
	struct fmt_buf a = {0};
	uint32_t s, top = 0, inlist = 0, kind;
	va_list ap;

	va_start(ap, func);
	while ((kind = va_arg(ap, uint32_t)) != UINT32_MAX) {
		int64_t v = va_arg(ap, int64_t);

		if (inlist)
			inlist--;
		else
			top++;
		switch (kind) {
		case RONDO_ARG_STATUS:
		case RONDO_ARG_ARRAY:
			fmt_arg_put_list(&a, kind, (uint64_t)v);
			inlist += (uint32_t)v;
			break;
		case RONDO_ARG_RANK:
		case RONDO_ARG_RANK_REL:
		case RONDO_ARG_TAG:
		case RONDO_ARG_INT: fmt_arg_put_sint(&a, kind, v); break;
		default: fmt_arg_put_uint(&a, kind, (uint64_t)v); break;
		}
	}
	va_end(ap);
	s = tt_sig(j->tt, func, &a, top);
	fmt_buf_free(&a);
	return s;
}

#define sig(j, func, ...)                                                      \
	sig_of(j, func, __VA_ARGS__, (uint32_t)UINT32_MAX, (int64_t)0)

/* Shorthands for the pairs sig() takes. */
#define K(kind, v)   (uint32_t) RONDO_ARG_##kind, (int64_t)(v)
#define C(j, konst)  K(CONST, (j)->konst)
#define STATUS(n)    K(STATUS, n)
#define NOSTATUS     K(STATUS, 0)
#define COMM(c)	     K(COMM, c)
#define REQ(id)	     K(REQUEST, id)
#define MSG(id)	     K(MESSAGE, id)
#define WORLD(j)     C(j, world)
#define REL(v)	     K(RANK_REL, v)
#define RANK(v)	     K(RANK, v)
#define TAG(v)	     K(TAG, v)
#define FLAG(v)	     K(INT, v)
#define ARRAY(n)     K(ARRAY, n)
#define ANY(j)	     C(j, any)
#define PROC_NULL(j) C(j, proc_null)

/* The calls of the job's 4 ranks, 3 iterations, with c0 the world ranks
 * 1, 2, 3:
 * - a Send from rank 0 to rank 1, received by name;
 * - a Sendrecv ring (to the right, from the left);
 * - rank 3 sends to MPI_PROC_NULL, rank 0 receives from it, and probes
 *   it (MPI_MESSAGE_NO_PROC);
 * - rank 2 sends to rank 3 by a persistent send started once, rank 3
 *   receives by a persistent receive started with another request;
 * - rank 1 sends rank 3 two messages, which rank 3 receives by a matched
 *   probe of any source and Mrecv, and a matched probe of rank 1 (after
 *   one that finds nothing) and Imrecv;
 * - rank 0 posts a receive from rank 2, cancelled, and a wildcard one,
 *   which rank 3's Isend fills;
 * - on c0, c0's rank 0 (world 1) sends to c0's rank 2 (world 3);
 * - rank 1 sends itself a message on MPI_COMM_SELF;
 * - MPI_Bcast by world rank 1 on c0, MPI_Ibcast by 2 and 3; a Barrier. */
static struct testtrace *job(enum brk b)
{
	static const uint32_t c0[3] = {1, 2, 3};
	struct job j = {.tt = tt_create(4)};
	struct testtrace *tt = j.tt;
	uint32_t send, recv, isend, irecv, sendrecv, sinit, rinit, start,
		startall, wait, waitall, mprobe, improbe, mrecv, imrecv, bcast,
		ibcast, barrier;
	uint32_t s[4][20], n[4] = {0};

	tt_meta(tt, "program", "pairs");
	j.world = tt_const(tt, "MPI_COMM_WORLD");
	j.self = tt_const(tt, "MPI_COMM_SELF");
	j.any = tt_const(tt, "MPI_ANY_SOURCE");
	j.proc_null = tt_const(tt, "MPI_PROC_NULL");
	j.cancelled = tt_const(tt, "cancelled");
	j.msg_null = tt_const(tt, "MPI_MESSAGE_NULL");
	j.no_proc = tt_const(tt, "MPI_MESSAGE_NO_PROC");
	tt_comm(tt, 3, 0, c0);
	send = tt_func(tt, "MPI_Send", "dest", "tag", "comm", NULL);
	recv = tt_func(tt, "MPI_Recv", "source", "tag", "comm", ">status",
		       NULL);
	isend = tt_func(tt, "MPI_Isend", "dest", "tag", "comm", ">request",
			NULL);
	irecv = tt_func(tt, "MPI_Irecv", "source", "tag", "comm", ">request",
			NULL);
	sendrecv = tt_func(tt, "MPI_Sendrecv", "dest", "sendtag", "source",
			   "recvtag", "comm", ">status", NULL);
	sinit = tt_func(tt, "MPI_Send_init", "dest", "tag", "comm", ">request",
			NULL);
	rinit = tt_func(tt, "MPI_Recv_init", "source", "tag", "comm",
			">request", NULL);
	start = tt_func(tt, "MPI_Start", "request", NULL);
	startall =
		tt_func(tt, "MPI_Startall", "count", "array_of_requests", NULL);
	wait = tt_func(tt, "MPI_Wait", "request", ">status", NULL);
	waitall = tt_func(tt, "MPI_Waitall", "count", "array_of_requests",
			  ">array_of_statuses", NULL);
	mprobe = tt_func(tt, "MPI_Mprobe", "source", "tag", "comm", ">message",
			 ">status", NULL);
	improbe = tt_func(tt, "MPI_Improbe", "source", "tag", "comm", ">flag",
			  ">message", ">status", NULL);
	mrecv = tt_func(tt, "MPI_Mrecv", "message", ">status", NULL);
	imrecv = tt_func(tt, "MPI_Imrecv", "message", ">request", NULL);
	bcast = tt_func(tt, "MPI_Bcast", "root", "comm", NULL);
	ibcast = tt_func(tt, "MPI_Ibcast", "root", "comm", ">request", NULL);
	barrier = tt_func(tt, "MPI_Barrier", "comm", NULL);

	/* rank 0 */
	s[0][n[0]++] = sig(&j, send, REL(1), TAG(1), WORLD(&j));
	s[0][n[0]++] =
		sig(&j, recv, PROC_NULL(&j), TAG(1), WORLD(&j), NOSTATUS);
	s[0][n[0]++] = sig(&j, mprobe, PROC_NULL(&j), TAG(1), WORLD(&j),
			   C(&j, no_proc), NOSTATUS);
	s[0][n[0]++] = sig(&j, mrecv, C(&j, no_proc), NOSTATUS);
	s[0][n[0]++] = sig(&j, irecv, RANK(2), TAG(5), WORLD(&j), REQ(3));
	if (b == B_CANCEL)
		s[0][n[0]++] = sig(&j, wait, REQ(3), NOSTATUS);
	else
		s[0][n[0]++] =
			sig(&j, wait, REQ(3), STATUS(1), C(&j, cancelled));
	if (b != B_WILD) {
		s[0][n[0]++] =
			sig(&j, irecv, ANY(&j), TAG(6), WORLD(&j), REQ(4));
		s[0][n[0]++] = sig(&j, wait, REQ(4), STATUS(1), REL(3));
	}
	if (b == B_WILD_EXTRA)
		s[0][n[0]++] = sig(&j, recv, ANY(&j), TAG(7), WORLD(&j),
				   STATUS(1), REL(1));
	/* rank 1 */
	s[1][n[1]++] = sig(&j, recv, REL(-1), TAG(1), WORLD(&j), NOSTATUS);
	s[1][n[1]++] = sig(&j, isend, RANK(3), TAG(3), WORLD(&j), REQ(0));
	s[1][n[1]++] = sig(&j, isend, RANK(3), TAG(4), WORLD(&j), REQ(1));
	s[1][n[1]++] = sig(&j, waitall, FLAG(2), ARRAY(2), REQ(0), REQ(1),
			   ARRAY(2), NOSTATUS, NOSTATUS);
	s[1][n[1]++] = sig(&j, send, RANK(2), TAG(8), COMM(0));
	s[1][n[1]++] = sig(&j, isend, RANK(0), TAG(9), C(&j, self), REQ(2));
	s[1][n[1]++] = sig(&j, recv, RANK(0), TAG(9), C(&j, self), NOSTATUS);
	if (b == B_SELF)
		s[1][n[1]++] =
			sig(&j, recv, RANK(0), TAG(10), C(&j, self), NOSTATUS);
	s[1][n[1]++] = sig(&j, wait, REQ(2), NOSTATUS);
	/* rank 2 */
	s[2][n[2]++] = sig(&j, sinit, REL(1), TAG(2), WORLD(&j), REQ(5));
	if (b != B_START)
		s[2][n[2]++] = sig(&j, start, REQ(5));
	s[2][n[2]++] = sig(&j, wait, REQ(5), NOSTATUS);
	/* rank 3 */
	s[3][n[3]++] = sig(&j, send, PROC_NULL(&j), TAG(1), WORLD(&j));
	s[3][n[3]++] = sig(&j, rinit, REL(-1), TAG(2), WORLD(&j), REQ(6));
	s[3][n[3]++] = sig(&j, startall, FLAG(2), ARRAY(2), REQ(6), REQ(9));
	s[3][n[3]++] = sig(&j, mprobe, ANY(&j), TAG(3), WORLD(&j), MSG(0),
			   STATUS(1), REL(-2));
	s[3][n[3]++] = sig(&j, mrecv, MSG(0), NOSTATUS);
	/* a probe that finds nothing, then one that finds rank 1's message:
	 * its handle has the id of the first probe's, as the tracer's
	 * handles may */
	s[3][n[3]++] = sig(&j, improbe, RANK(1), TAG(4), WORLD(&j), FLAG(0),
			   C(&j, msg_null), NOSTATUS);
	s[3][n[3]++] = sig(&j, improbe, RANK(b == B_PROBE ? 2 : 1), TAG(4),
			   WORLD(&j), FLAG(1), MSG(0), NOSTATUS);
	s[3][n[3]++] = sig(&j, imrecv, MSG(0), REQ(7));
	s[3][n[3]++] = sig(&j, waitall, FLAG(2), ARRAY(2), REQ(6), REQ(7),
			   ARRAY(2), NOSTATUS, NOSTATUS);
	s[3][n[3]++] = sig(&j, isend, RANK(0), TAG(6), WORLD(&j), REQ(8));
	s[3][n[3]++] = sig(&j, wait, REQ(8), NOSTATUS);
	s[3][n[3]++] = sig(&j, recv, RANK(0), TAG(8), COMM(0), NOSTATUS);

	for (uint32_t r = 0; r < 4; r++) {
		uint32_t ring = sig(&j, sendrecv, REL(1), TAG(0), REL(-1),
				    TAG(0), WORLD(&j), NOSTATUS);
		uint32_t coll =
			r == 1 ? sig(&j, bcast, RANK(0), COMM(0))
			       : sig(&j, ibcast, RANK(0), COMM(0), REQ(10));

		for (uint32_t it = 0; it < 3; it++) {
			for (uint32_t k = 0; k < n[r]; k++)
				tt_call(tt, r, s[r][k], 1, 100);
			tt_call(tt, r, ring, 1, 100);
			if (r == 0)
				continue;
			if (!(b == B_COLL_ODD && r == 1 && it == 2))
				tt_call(tt, r, coll, 1, 100);
			if (b == B_COLL_EXTRA && r == 3 && it == 1)
				tt_call(tt, r, coll, 1, 100);
		}
		tt_call(tt, r, sig(&j, barrier, WORLD(&j)), 1, 100);
	}
	return tt;
}

static void test_job(void)
{
	struct an_pairing p = check_tt(job(B_NONE));

	CHECKF(p.ok && !p.first[0], "%s", p.first);
	/* an iteration: 0->1, the ring's 4, 2->3, 1->3 twice, 3->0, 1->3
	 * on c0, 1->1 on MPI_COMM_SELF */
	CHECKF(p.checked_pairs == 3 * 11, "%llu",
	       (unsigned long long)p.checked_pairs);
	CHECKF(p.checked_colls == 3 * 3 + 4, "%llu",
	       (unsigned long long)p.checked_colls);
	CHECK(p.unresolved == 0);

	p = check_tt(job(B_CANCEL));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 0 "
		   "posts 3 receives from rank 2, which sends it 0 messages");
	/* rank 3 receives from rank 2 by the ring and the persistent
	 * receive: 6, and rank 2 sends it the ring's 3 */
	p = check_tt(job(B_START));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 3 "
		   "posts 6 receives from rank 2, which sends it 3 messages");
	p = check_tt(job(B_WILD));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 0 "
		   "posts 3 receives (0 from any source) and is sent 6 "
		   "messages: rank 3 sends it 6 messages, for 3 receives from "
		   "rank 3");
	p = check_tt(job(B_WILD_EXTRA));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 0 "
		   "posts 9 receives (6 from any source) and is sent 6 "
		   "messages");
	p = check_tt(job(B_PROBE));
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 3 "
		   "posts 9 receives from rank 2, which sends it 6 messages");
	p = check_tt(job(B_COLL_EXTRA));
	REFUSED(p, "MPI_Bcast on communicator c0: rank 1 calls it 3 times, "
		   "rank 3 calls it 4 times");
	p = check_tt(job(B_COLL_ODD));
	REFUSED(p, "MPI_Bcast on communicator c0: rank 2 calls it 3 times, "
		   "rank 1 calls it 2 times");
	p = check_tt(job(B_SELF));
	REFUSED(p, "point-to-point on communicator MPI_COMM_SELF: rank 1 "
		   "posts 6 receives from rank 1, which sends it 3 messages");
}

/* The peers job names a rank no grid has (a Cartesian offset of -4). */
static void test_unresolved(void)
{
	struct an_pairing p = check_tt(tt_peers());

	CHECK(!p.ok && p.unresolved > 0);
	CHECKF(!strcmp(p.first, "rank 0 makes 1 send whose communicator or "
				"peer the trace does not resolve"),
	       "%s", p.first);
}

/* ---- loops of 10^7 iterations -------------------------------------------- */

#define ITERS 10000000ull

/* A ring of 4 ranks, each iteration an Isend to the right, an Irecv from
 * the left, their Waitall and an Allreduce, 10^7 times, then a Barrier;
 * with `short_rank` below 4, that rank's loop stops one iteration early.
 * The grammar and the rank map are written as such: appending 1.6 * 10^8
 * calls would take far longer than the check.  Opened, into *file. */
static rondo_trace *ring(uint32_t short_rank, struct fmt_buf *file)
{
	struct job j = {.tt = tt_create(4)};
	uint32_t isend, irecv, waitall, allreduce, barrier, body[5];
	uint32_t first[4] = {0, 4, 6, 8}, mfirst[2] = {0, 4};
	rondo_sym sym[8], map[4];
	struct fmt_grammar g = {3, first, sym};
	struct fmt_rankmap rm = {4, {1, mfirst, map}, NULL};
	struct fmt_buf gb = {0}, mb = {0};
	struct tt_patch patch[2] = {{FMT_SEC_GRAMMAR, &gb},
				    {FMT_SEC_RANKMAP, &mb}};
	struct fmt_writer w;
	rondo_trace *t = rondo_trace_create();

	j.world = tt_const(j.tt, "MPI_COMM_WORLD");
	isend = tt_func(j.tt, "MPI_Isend", "dest", "tag", "comm", ">request",
			NULL);
	irecv = tt_func(j.tt, "MPI_Irecv", "source", "tag", "comm", ">request",
			NULL);
	waitall = tt_func(j.tt, "MPI_Waitall", "count", "array_of_requests",
			  ">array_of_statuses", NULL);
	allreduce = tt_func(j.tt, "MPI_Allreduce", "count", "comm", NULL);
	barrier = tt_func(j.tt, "MPI_Barrier", "comm", NULL);
	body[0] = sig(&j, isend, REL(1), TAG(0), WORLD(&j), REQ(0));
	body[1] = sig(&j, irecv, REL(-1), TAG(0), WORLD(&j), REQ(1));
	body[2] = sig(&j, waitall, FLAG(2), ARRAY(2), REQ(0), REQ(1), ARRAY(2),
		      NOSTATUS, NOSTATUS);
	body[3] = sig(&j, allreduce, FLAG(1), WORLD(&j));
	body[4] = sig(&j, barrier, WORLD(&j));
	/* rule 0 the body, rule 1 the loop, rule 2 the short loop */
	for (int k = 0; k < 4; k++)
		sym[k] = (rondo_sym){body[k], 0, 1};
	sym[4] = (rondo_sym){RONDO_SYM_RULE | 0, 0, ITERS};
	sym[5] = (rondo_sym){body[4], 0, 1};
	sym[6] = (rondo_sym){RONDO_SYM_RULE | 0, 0, ITERS - 1};
	sym[7] = (rondo_sym){body[4], 0, 1};
	for (uint32_t r = 0; r < 4; r++) /* the rank map: each rank's root */
		map[r] = (rondo_sym){r == short_rank ? 2 : 1, 0, 1};
	fmt_grammar_encode(&gb, &g);
	fmt_rankmap_encode(&mb, &rm);
	fmt_writer_init(&w);
	if (!t || tt_finish_patched(j.tt, &w, 0, patch, 2) != 0 ||
	    fmt_writer_finish(&w, file) != 0 ||
	    rondo_trace_open_memory(t, file->data, file->len, "ring") < 0) {
		fprintf(stderr, "test_pairing: the ring: %s\n",
			t ? rondo_trace_error(t) : "no memory");
		exit(99);
	}
	fmt_writer_free(&w);
	fmt_buf_free(&gb);
	fmt_buf_free(&mb);
	tt_free(j.tt);
	return t;
}

static void test_ring(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = ring(4, &file);
	struct an_pairing p;

	CHECK(rondo_rank_calls(t, 3) == 4 * ITERS + 1);
	CHECK(an_pairing(t, &p) == 0);
	CHECKF(p.ok, "%s", p.first);
	CHECK(p.checked_pairs == 4 * ITERS);
	CHECK(p.checked_colls == 4 * ITERS + 4);
	rondo_trace_free(t);
	fmt_buf_free(&file);

	/* rank 2 makes one iteration less: it receives one message less
	 * than rank 1 sends it, and calls Allreduce once less */
	t = ring(2, &file);
	CHECK(an_pairing(t, &p) == 0);
	REFUSED(p, "point-to-point on communicator MPI_COMM_WORLD: rank 2 "
		   "posts 9999999 receives (0 from any source) and is sent "
		   "10000000 messages: rank 1 sends it 10000000 messages, for "
		   "9999999 receives from rank 1");
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The kinds of collective: synchronising, from or to a root, prefixes;
 * nonblocking and large-count forms as their plain one. */
static void test_coll_kinds(void)
{
	static const struct {
		const char *name;
		enum an_coll kind;
		int nb;
	} want[] = {
		{"MPI_Barrier", AN_COLL_SYNC, 0},
		{"MPI_Allreduce_c", AN_COLL_SYNC, 0},
		{"MPI_Ialltoallv", AN_COLL_SYNC, 1},
		{"MPI_Bcast", AN_COLL_FROM_ROOT, 0},
		{"MPI_Iscatterv_c", AN_COLL_FROM_ROOT, 1},
		{"MPI_Reduce", AN_COLL_TO_ROOT, 0},
		{"MPI_Gatherv", AN_COLL_TO_ROOT, 0},
		{"MPI_Exscan", AN_COLL_PREFIX, 0},
		{"MPI_Send", AN_NOT_COLL, 0},
		{"MPI_Ibarrierx", AN_NOT_COLL, 0},
		{"Bcast", AN_NOT_COLL, 0},
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int nb = -1;
		enum an_coll k = an_coll_of(want[i].name, &nb);

		CHECKF(k == want[i].kind && nb == want[i].nb, "%s: %d, %d",
		       want[i].name, (int)k, nb);
	}
	CHECK(an_coll_of(NULL, &(int){0}) == AN_NOT_COLL);
}

int main(void)
{
	test_coll_kinds();
	test_demo(1, 5);
	test_demo(2, 3);
	test_demo(6, 37);
	test_demo(33, 100);
	test_demo_changed();
	test_job();
	test_unresolved();
	test_ring();
	return check_done("test_pairing");
}
