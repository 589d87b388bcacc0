/*
 * test_timed.c - the analyses of per-call times (analyses/skew.c,
 * analyses/waits.c and an_matrix_window) on timed traces the tests'
 * writer makes, whose times are known.  With base 1.001 every span below
 * 1000 ns reads back exact (the scale has every whole number up to
 * there), which the tests check first; so the skew, the late senders and
 * receivers and the windows' counts are known to the nanosecond.  The
 * same jobs with times a thousand times longer at base 1.5 check that
 * the errors stay within the bounds reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "kmap.h"
#include "matrix.h"
#include "skew.h"
#include "testtrace.h"
#include "waits.h"

#define NRANKS	 4
#define MAXCALLS 64

/* A job being written, and the times of its calls, to check them back. */
struct job {
	struct testtrace *tt;
	int64_t scale;
	uint32_t f_barrier, f_allreduce, f_send, f_ssend, f_isend, f_recv,
		f_irecv, f_wait, f_waitall, f_sendrecv, f_send_init,
		f_recv_init, f_start;
	uint32_t c_world, c_self, c_double, c_sum, c_any_source, c_any_tag,
		c_proc_null, c_ignore;
	uint32_t n[NRANKS];
	int64_t start[NRANKS][MAXCALLS], end[NRANKS][MAXCALLS];
};

static void job_init(struct job *j, double base, int64_t scale)
{
	memset(j, 0, sizeof(*j));
	j->tt = tt_create(NRANKS);
	j->scale = scale;
	tt_timing(j->tt, base);
	tt_meta(j->tt, "program", "timed");
	j->f_barrier = tt_func(j->tt, "MPI_Barrier", "comm", NULL);
	j->f_allreduce = tt_func(j->tt, "MPI_Allreduce", "sendbuf", ">recvbuf",
				 "count", "datatype", "op", "comm", NULL);
	j->f_send = tt_func(j->tt, "MPI_Send", "buf", "count", "datatype",
			    "dest", "tag", "comm", NULL);
	j->f_ssend = tt_func(j->tt, "MPI_Ssend", "buf", "count", "datatype",
			     "dest", "tag", "comm", NULL);
	j->f_isend = tt_func(j->tt, "MPI_Isend", "buf", "count", "datatype",
			     "dest", "tag", "comm", ">request", NULL);
	j->f_recv = tt_func(j->tt, "MPI_Recv", ">buf", "count", "datatype",
			    "source", "tag", "comm", ">status", NULL);
	j->f_irecv = tt_func(j->tt, "MPI_Irecv", ">buf", "count", "datatype",
			     "source", "tag", "comm", ">request", NULL);
	j->f_wait = tt_func(j->tt, "MPI_Wait", "request", ">status", NULL);
	j->f_waitall = tt_func(j->tt, "MPI_Waitall", "count",
			       "array_of_requests", ">array_of_statuses", NULL);
	j->f_sendrecv = tt_func(j->tt, "MPI_Sendrecv", "sendbuf", "sendcount",
				"sendtype", "dest", "sendtag", ">recvbuf",
				"recvcount", "recvtype", "source", "recvtag",
				"comm", ">status", NULL);
	j->f_send_init =
		tt_func(j->tt, "MPI_Send_init", "buf", "count", "datatype",
			"dest", "tag", "comm", ">request", NULL);
	j->f_recv_init =
		tt_func(j->tt, "MPI_Recv_init", ">buf", "count", "datatype",
			"source", "tag", "comm", ">request", NULL);
	j->f_start = tt_func(j->tt, "MPI_Start", "request", NULL);
	j->c_world = tt_const(j->tt, "MPI_COMM_WORLD");
	j->c_self = tt_const(j->tt, "MPI_COMM_SELF");
	j->c_double = tt_const(j->tt, "MPI_DOUBLE");
	tt_typesize(j->tt, j->c_double, 8);
	j->c_sum = tt_const(j->tt, "MPI_SUM");
	j->c_any_source = tt_const(j->tt, "MPI_ANY_SOURCE");
	j->c_any_tag = tt_const(j->tt, "MPI_ANY_TAG");
	j->c_proc_null = tt_const(j->tt, "MPI_PROC_NULL");
	j->c_ignore = tt_const(j->tt, "MPI_STATUSES_IGNORE");
}

/* Rank r calls sig from start to end (in units of j->scale ns). */
static void at(struct job *j, uint32_t r, uint32_t sig, int64_t start,
	       int64_t end)
{
	tt_call_at(j->tt, r, sig, start * j->scale,
		   (uint64_t)((end - start) * j->scale));
	j->start[r][j->n[r]] = start * j->scale;
	j->end[r][j->n[r]++] = end * j->scale;
}

/* The trace, opened; every time read back is the time written when
 * `exact`. */
static rondo_trace *job_open(struct job *j, struct fmt_buf *file, int exact)
{
	rondo_trace *t = tt_open(j->tt, file, 0);

	tt_free(j->tt);
	for (uint32_t r = 0; exact && r < NRANKS; r++) {
		rondo_iter *it = rondo_iter_create_timed(t, r);
		int64_t s, e;
		uint32_t sig, k = 0;

		while (it && rondo_iter_next(it, &sig) == 1 && k < j->n[r]) {
			CHECKF(rondo_iter_time(it, &s, &e) == 0 &&
				       s == j->start[r][k] && e == j->end[r][k],
			       "rank %u call %u: %lld-%lld read back, "
			       "%lld-%lld "
			       "written",
			       r, k, (long long)s, (long long)e,
			       (long long)j->start[r][k],
			       (long long)j->end[r][k]);
			k++;
		}
		CHECK(it && k == j->n[r]);
		rondo_iter_free(it);
	}
	return t;
}

/* A rank of `peer` relative to `me`, as the tracer stores it. */
static int64_t rel(uint32_t peer, uint32_t me)
{
	int64_t d = (int64_t)peer - me;

	if (d < 0)
		d += NRANKS;
	return d > NRANKS / 2 ? d - NRANKS : d;
}

/* A buffer: segment seg at offset 0. */
static void put_buf(struct fmt_buf *a, uint64_t seg)
{
	fmt_arg_put_list(a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(a, RONDO_ARG_INT, seg);
	fmt_arg_put_sint(a, RONDO_ARG_INT, 0);
}

/* The signature of f with the values in a, which is emptied. */
static uint32_t sig_of(struct job *j, uint32_t f, struct fmt_buf *a, uint32_t n)
{
	uint32_t s = tt_sig(j->tt, f, a, n);

	fmt_buf_free(a);
	return s;
}

static uint32_t sig_comm(struct job *j, uint32_t f, uint32_t comm)
{
	struct fmt_buf a = {0};

	fmt_arg_put_uint(&a, RONDO_ARG_CONST, comm);
	return sig_of(j, f, &a, 1);
}

static uint32_t sig_allreduce(struct job *j)
{
	struct fmt_buf a = {0};

	put_buf(&a, 1);
	put_buf(&a, 2);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_double);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_sum);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_world);
	return sig_of(j, j->f_allreduce, &a, 6);
}

/* buf, count 1, MPI_DOUBLE, the peer (-1: MPI_PROC_NULL or
 * MPI_ANY_SOURCE, by `any`), the tag (-1: MPI_ANY_TAG), the world. */
static void put_p2p(struct job *j, struct fmt_buf *a, uint32_t me, int64_t peer,
		    int64_t tag, uint32_t any)
{
	put_buf(a, 1);
	fmt_arg_put_sint(a, RONDO_ARG_INT, 1);
	fmt_arg_put_uint(a, RONDO_ARG_CONST, j->c_double);
	if (peer < 0)
		fmt_arg_put_uint(a, RONDO_ARG_CONST, any);
	else
		fmt_arg_put_sint(a, RONDO_ARG_RANK_REL,
				 rel((uint32_t)peer, me));
	if (tag < 0)
		fmt_arg_put_uint(a, RONDO_ARG_CONST, j->c_any_tag);
	else
		fmt_arg_put_sint(a, RONDO_ARG_TAG, tag);
	fmt_arg_put_uint(a, RONDO_ARG_CONST, j->c_world);
}

/* A status giving the source (-1: none) and tag (-1: none). */
static void put_status(struct fmt_buf *a, uint32_t me, int64_t src, int64_t tag)
{
	fmt_arg_put_list(a, RONDO_ARG_STATUS, (src >= 0) + (tag >= 0));
	if (src >= 0)
		fmt_arg_put_sint(a, RONDO_ARG_RANK_REL, rel((uint32_t)src, me));
	if (tag >= 0)
		fmt_arg_put_sint(a, RONDO_ARG_TAG, tag);
}

/* A send of function f (Send, Ssend; Isend, Send_init with a request). */
static uint32_t sig_send(struct job *j, uint32_t f, uint32_t me, int64_t dest,
			 int64_t tag, int64_t req)
{
	struct fmt_buf a = {0};

	put_p2p(j, &a, me, dest, tag, j->c_proc_null);
	if (req >= 0)
		fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, (uint64_t)req);
	return sig_of(j, f, &a, req >= 0 ? 7 : 6);
}

/* MPI_Recv, its status giving what the wildcards matched. */
static uint32_t sig_recv(struct job *j, uint32_t me, int64_t src, int64_t tag,
			 int64_t st_src, int64_t st_tag)
{
	struct fmt_buf a = {0};

	put_p2p(j, &a, me, src, tag, j->c_any_source);
	put_status(&a, me, st_src, st_tag);
	return sig_of(j, j->f_recv, &a, 7);
}

/* MPI_Irecv or MPI_Recv_init (f). */
static uint32_t sig_irecv(struct job *j, uint32_t f, uint32_t me, int64_t src,
			  int64_t tag, uint32_t req)
{
	struct fmt_buf a = {0};

	put_p2p(j, &a, me, src, tag, j->c_any_source);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, req);
	return sig_of(j, f, &a, 7);
}

/* MPI_Wait on req, or MPI_Start (no status: st_src < -1). */
static uint32_t sig_wait(struct job *j, uint32_t me, uint32_t req,
			 int64_t st_src, int64_t st_tag)
{
	struct fmt_buf a = {0};

	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, req);
	if (st_src < -1)
		return sig_of(j, j->f_start, &a, 1);
	put_status(&a, me, st_src, st_tag);
	return sig_of(j, j->f_wait, &a, 2);
}

static uint32_t sig_waitall2(struct job *j)
{
	struct fmt_buf a = {0};

	fmt_arg_put_sint(&a, RONDO_ARG_INT, 2);
	fmt_arg_put_list(&a, RONDO_ARG_ARRAY, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 0);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 1);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_ignore);
	return sig_of(j, j->f_waitall, &a, 3);
}

static uint32_t sig_sendrecv(struct job *j, uint32_t me, uint32_t peer,
			     int64_t tag)
{
	struct fmt_buf a = {0};

	for (int part = 0; part < 2; part++) { /* send, then receive */
		put_buf(&a, 1 + part);
		fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_double);
		fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, rel(peer, me));
		fmt_arg_put_sint(&a, RONDO_ARG_TAG, tag);
	}
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, j->c_world);
	put_status(&a, me, -1, -1);
	return sig_of(j, j->f_sendrecv, &a, 12);
}

/* ---- skew ---------------------------------------------------------------- */

/* Four ranks: Barrier A (rank 2 last by 200), Allreduce (rank 1 last by
 * 20), Barrier B (rank 0 last by 50), Barrier C (rank 2 last by 40),
 * Barrier D without rank 3; rank 1 also calls a Barrier on
 * MPI_COMM_SELF. */
static rondo_trace *skew_job(double base, int64_t scale, struct fmt_buf *file,
			     int exact)
{
	static const int64_t a[] = {100, 110, 300, 120},
			     ar[] = {400, 420, 410, 405},
			     b[] = {900, 850, 860, 870},
			     c[] = {950, 955, 990, 960};
	struct job j;
	uint32_t bar, all, self;

	job_init(&j, base, scale);
	bar = sig_comm(&j, j.f_barrier, j.c_world);
	self = sig_comm(&j, j.f_barrier, j.c_self);
	all = sig_allreduce(&j);
	for (uint32_t r = 0; r < NRANKS; r++) {
		at(&j, r, bar, a[r], 310);
		at(&j, r, all, ar[r], 430);
		if (r == 1)
			at(&j, r, self, 600, 605);
		at(&j, r, bar, b[r], 910);
		at(&j, r, bar, c[r], 995);
		if (r < 3)
			at(&j, r, bar, 1000 + r, 1010);
	}
	return job_open(&j, file, exact);
}

static void test_skew(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = skew_job(1.001, 1, &file, 1);
	struct an_skew_result r;
	const struct an_skew *s;
	char buf[1024] = "";
	FILE *f;

	CHECK(an_skew(t, AN_ANY, &r) == 0);
	CHECKF(r.n == 2, "%u rows", r.n);
	CHECK(r.base == 1.001);
	CHECKF(r.calls == 19 && r.unmatched == 3 && r.mismatched == 0 &&
		       r.unresolved == 0 && r.untimed == 0,
	       "calls %llu unmatched %llu", (unsigned long long)r.calls,
	       (unsigned long long)r.unmatched);
	s = &r.rows[0]; /* the most waiting first */
	CHECK(r.n > 0 && !strcmp(rondo_func_name(t, s->func), "MPI_Barrier"));
	CHECK(s->comm == AN_COMM_WORLD && s->members == 4 && s->count == 3);
	CHECKF(s->spread_ns == 290 && s->max_spread_ns == 200 &&
		       s->max_at_ns == 300,
	       "spread %llu max %llu at %lld", (unsigned long long)s->spread_ns,
	       (unsigned long long)s->max_spread_ns, (long long)s->max_at_ns);
	CHECKF(s->last_rank == 2 && s->last_count == 2, "last %u (%llu)",
	       s->last_rank, (unsigned long long)s->last_count);
	/* 200+190+180, 50+40+30, 40+35+30 */
	CHECKF(s->wait_ns == 795, "wait %llu", (unsigned long long)s->wait_ns);
	/* spans below 1000 ns at b = 1.001: (b-1) * span < 1, plus 1 */
	CHECKF(s->err_ns == 2, "err %llu", (unsigned long long)s->err_ns);
	s = &r.rows[1];
	CHECK(r.n > 1 && !strcmp(rondo_func_name(t, s->func), "MPI_Allreduce"));
	CHECK(s->count == 1 && s->spread_ns == 20 && s->max_spread_ns == 20 &&
	      s->max_at_ns == 420 && s->last_rank == 1 && s->last_count == 1 &&
	      s->wait_ns == 45);

	f = fmemopen(buf, sizeof(buf) - 1, "w");
	CHECK(f && an_skew_csv(t, r.rows, r.n, f) == 0);
	fclose(f);
	CHECKF(!strcmp(buf, "function,comm,members,occurrences,mean_spread_ns,"
			    "max_spread_ns,max_spread_at_ns,error_ns,last_rank,"
			    "last_count,wait_ns,mean_spread_error_ns\n"
			    "MPI_Barrier,world,4,3,96.7,200,300,2,2,2,795,2\n"
			    "MPI_Allreduce,world,4,1,20.0,20,420,2,1,1,45,"
			    "2\n"),
	       "%s", buf);
	an_skew_free(&r);

	/* a communicator alone: the world's rows, or nothing for self */
	CHECK(an_skew(t, AN_COMM_WORLD, &r) == 0 && r.n == 2);
	an_skew_free(&r);
	CHECK(an_skew(t, AN_COMM_SELF, &r) == 0 && r.n == 0 && r.calls == 0);
	an_skew_free(&r);
	CHECK(an_skew(t, 7, &r) == 0 && r.n == 0);
	an_skew_free(&r);
	rondo_trace_free(t);
	fmt_buf_free(&file);

	/* a thousand times longer at base 1.5: within the bound given */
	t = skew_job(1.5, 1000, &file, 0);
	CHECK(an_skew(t, AN_ANY, &r) == 0 && r.n == 2);
	for (uint32_t i = 0; i < r.n; i++) {
		int64_t want = r.rows[i].count == 3 ? 200000 : 20000;
		int64_t got = (int64_t)r.rows[i].max_spread_ns;

		CHECKF(got - want < (int64_t)r.rows[i].err_ns &&
			       want - got < (int64_t)r.rows[i].err_ns,
		       "row %u: max spread %lld, true %lld, bound %llu", i,
		       (long long)got, (long long)want,
		       (unsigned long long)r.rows[i].err_ns);
	}
	an_skew_free(&r);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* Mismatched collectives: rank 3 calls Allreduce where the others call
 * Barrier; the occurrence is left out, the next ones still match. */
static void test_mismatch(void)
{
	struct fmt_buf file = {0};
	struct an_skew_result r;
	struct job j;
	uint32_t bar, all;
	rondo_trace *t;

	job_init(&j, 1.001, 1);
	bar = sig_comm(&j, j.f_barrier, j.c_world);
	all = sig_allreduce(&j);
	for (uint32_t k = 0; k < NRANKS; k++) {
		at(&j, k, k == 3 ? all : bar, 10, 20);
		at(&j, k, bar, 30 + k, 40);
		/* ranks 1 and 3 last together: the lower one is named */
		at(&j, k, bar, k % 2 ? 52 : 50 + k / 2, 60);
	}
	t = job_open(&j, &file, 1);
	CHECK(an_skew(t, AN_ANY, &r) == 0);
	CHECK(r.mismatched == 1 && r.n == 1 && r.rows[0].count == 2 &&
	      r.rows[0].max_spread_ns == 3 && r.rows[0].spread_ns == 5);
	/* last once each: again the lower rank */
	CHECKF(r.rows[0].last_rank == 1 && r.rows[0].last_count == 1, "last %u",
	       r.rows[0].last_rank);
	an_skew_free(&r);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The error bounds at base 2, where powers of two read back exact: each
 * rank's first call, from 0 to 1024 ns, reads exact, and its Barrier's
 * start is coded from that start plus the lower edge of that duration's
 * code (512 ns), 2^(9+r) ns after it (rank 0 at 1024, rank 3 at 4608),
 * so may be late by up to that (times b - 1 = 1) plus 1 ns: 4097 ns for
 * rank 3.  A spread of a Barrier is at most its longest member's call,
 * rank 0's 3976 ns, read back as 4096: the spread of 3584 may be 0 to
 * 4096, off by at most 3584. */
static void test_bound(void)
{
	struct fmt_buf file = {0};
	struct an_skew_result r;
	struct job j;
	uint32_t bar, self;
	rondo_trace *t;

	job_init(&j, 2.0, 1);
	bar = sig_comm(&j, j.f_barrier, j.c_world);
	self = sig_comm(&j, j.f_barrier, j.c_self);
	for (uint32_t k = 0; k < NRANKS; k++) {
		at(&j, k, self, 0, 1024);
		at(&j, k, bar, 512 + (512 << k), 5000);
	}
	t = job_open(&j, &file, 0);
	CHECK(an_skew(t, AN_ANY, &r) == 0 && r.n == 1);
	CHECKF(r.n == 1 && r.rows[0].max_spread_ns == 3584 &&
		       r.rows[0].wait_ns == 3584 + 3072 + 2048 &&
		       r.rows[0].last_rank == 3 && r.rows[0].err_ns == 3584 &&
		       r.rows[0].mean_err_ns == 3584,
	       "spread %llu, wait %llu, err %llu, mean's %llu",
	       (unsigned long long)r.rows[0].max_spread_ns,
	       (unsigned long long)r.rows[0].wait_ns,
	       (unsigned long long)r.rows[0].err_ns,
	       (unsigned long long)r.rows[0].mean_err_ns);
	an_skew_free(&r);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* ---- late senders and receivers ------------------------------------------ */

/* The messages (see test_waits for what each one waited):
 *  a) rank 1 MPI_Send -> 0 tag 1 at 350; rank 0 MPI_Recv at 100-400;
 *  b) rank 2 MPI_Ssend -> 3 tag 2 at 100-400; rank 3 MPI_Recv at 380;
 *  c) rank 2 MPI_Send -> 3 tag 3 at 500-510; rank 3 MPI_Recv from
 *     MPI_ANY_SOURCE with MPI_ANY_TAG at 700, its status saying 2 and 3;
 *  d) ranks 1 and 2 MPI_Isend -> 0 tag 5 at 600 and 650; rank 0 two
 *     MPI_Irecv then MPI_Waitall at 510-810;
 *  e) rank 3 MPI_Send -> 1 tag 6 at 760; rank 1 MPI_Irecv from
 *     MPI_ANY_SOURCE at 700, MPI_Wait at 710-810 (status: from 3);
 *  f) ranks 0 and 1 MPI_Sendrecv with each other, tag 7, at 900-950 and
 *     920-950;
 *  g) rank 2 MPI_Isend -> 1 tag 9 at 950, never received;
 *  h) rank 3 MPI_Send to MPI_PROC_NULL at 800;
 *  i) rank 3 MPI_Send_init -> 0 tag 8 at 810, MPI_Start at 980; rank 0
 *     MPI_Recv_init at 960, MPI_Start at 965, MPI_Wait at 970-990;
 *  j) with `untimed`, rank 3 MPI_Send -> 0 tag 1 without a time.
 * Rank 2's clock is 50 ns off the job's. */
static rondo_trace *waits_job(double base, int64_t scale, int untimed,
			      struct fmt_buf *file, int exact)
{
	struct job j;

	job_init(&j, base, scale);
	tt_clock_offset(j.tt, 2, 50);
	/* rank 0 */
	at(&j, 0, sig_recv(&j, 0, 1, 1, -1, -1), 100, 400);
	at(&j, 0, sig_irecv(&j, j.f_irecv, 0, 1, 5, 0), 500, 502);
	at(&j, 0, sig_irecv(&j, j.f_irecv, 0, 2, 5, 1), 505, 507);
	at(&j, 0, sig_waitall2(&j), 510, 810);
	at(&j, 0, sig_sendrecv(&j, 0, 1, 7), 900, 950);
	at(&j, 0, sig_irecv(&j, j.f_recv_init, 0, 3, 8, 2), 960, 961);
	at(&j, 0, sig_wait(&j, 0, 2, -2, -1), 965, 966);
	at(&j, 0, sig_wait(&j, 0, 2, -1, -1), 970, 990);
	/* rank 1 */
	at(&j, 1, sig_send(&j, j.f_send, 1, 0, 1, -1), 350, 370);
	at(&j, 1, sig_send(&j, j.f_isend, 1, 0, 5, 0), 600, 602);
	at(&j, 1, sig_irecv(&j, j.f_irecv, 1, -1, 6, 1), 700, 702);
	at(&j, 1, sig_wait(&j, 1, 1, 3, -1), 710, 810);
	at(&j, 1, sig_sendrecv(&j, 1, 0, 7), 920, 950);
	/* rank 2 */
	at(&j, 2, sig_send(&j, j.f_ssend, 2, 3, 2, -1), 100, 400);
	at(&j, 2, sig_send(&j, j.f_send, 2, 3, 3, -1), 500, 510);
	at(&j, 2, sig_send(&j, j.f_isend, 2, 0, 5, 0), 650, 652);
	at(&j, 2, sig_send(&j, j.f_isend, 2, 1, 9, 1), 950, 952);
	/* rank 3 */
	at(&j, 3, sig_recv(&j, 3, 2, 2, -1, -1), 380, 405);
	at(&j, 3, sig_recv(&j, 3, -1, -1, 2, 3), 700, 705);
	at(&j, 3, sig_send(&j, j.f_send, 3, 1, 6, -1), 760, 765);
	at(&j, 3, sig_send(&j, j.f_send, 3, -1, 4, -1), 800, 801);
	at(&j, 3, sig_send(&j, j.f_send_init, 3, 0, 8, 0), 810, 811);
	at(&j, 3, sig_wait(&j, 3, 0, -2, -1), 980, 981);
	if (untimed)
		tt_call(j.tt, 3, sig_send(&j, j.f_send, 3, 0, 1, -1), 1, 5);
	return job_open(&j, file, exact);
}

static const struct an_wait_pair *find_pair(const struct an_waits *w,
					    uint32_t src, uint32_t dst)
{
	for (uint32_t i = 0; i < w->n; i++)
		if (w->pairs[i].src == src && w->pairs[i].dst == dst)
			return &w->pairs[i];
	return NULL;
}

/* pair src -> dst: messages, late sender count and ns, late receiver. */
#define PAIR(w, s, d, m, lsn, ls, lrn, lr)                                     \
	do {                                                                   \
		const struct an_wait_pair *p_ = find_pair(w, s, d);            \
		CHECKF(p_ && p_->msgs == (m) && p_->ls_count == (lsn) &&       \
			       p_->ls_ns == (ls) && p_->lr_count == (lrn) &&   \
			       p_->lr_ns == (lr),                              \
		       "pair %u->%u: %llu msgs, ls %llu/%llu, lr %llu/%llu",   \
		       s, d, p_ ? (unsigned long long)p_->msgs : 0,            \
		       p_ ? (unsigned long long)p_->ls_count : 0,              \
		       p_ ? (unsigned long long)p_->ls_ns : 0,                 \
		       p_ ? (unsigned long long)p_->lr_count : 0,              \
		       p_ ? (unsigned long long)p_->lr_ns : 0);                \
	} while (0)

static void test_waits(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = waits_job(1.001, 1, 1, &file, 1);
	struct an_waits w;
	char buf[1024] = "";
	FILE *f;

	CHECK(an_waits(t, &w) == 0);
	CHECKF(w.n == 6, "%u pairs", w.n);
	/* a: 350 - 100; f: rank 0 waited 920 - 900 in its Sendrecv */
	PAIR(&w, 1, 0, 3, 2, 270, 0, 0);
	/* d: the Waitall at 510 waited for rank 2's Isend at 650 */
	PAIR(&w, 2, 0, 1, 1, 140, 0, 0);
	/* b: the Ssend waited 380 - 100; c: the eager Send only its 10 */
	PAIR(&w, 2, 3, 2, 0, 0, 2, 290);
	/* e: the Wait at 710, the send at 760 */
	PAIR(&w, 3, 1, 1, 1, 50, 0, 0);
	/* i: the Wait at 970, the Start at 980 */
	PAIR(&w, 3, 0, 1, 1, 10, 0, 0);
	PAIR(&w, 0, 1, 1, 0, 0, 0, 0);
	CHECK(w.msgs == 9 && w.ls_count == 5 && w.ls_ns == 470 &&
	      w.lr_count == 2 && w.lr_ns == 290);
	CHECKF(w.unmatched_sends == 1 && w.unmatched_recvs == 0 &&
		       w.unresolved == 0 && w.untimed == 1,
	       "unmatched %llu/%llu, unresolved %llu, untimed %llu",
	       (unsigned long long)w.unmatched_sends,
	       (unsigned long long)w.unmatched_recvs,
	       (unsigned long long)w.unresolved, (unsigned long long)w.untimed);
	/* each of the 7 waits off by less than 3 ns: a start's bound is 1
	 * ns and a thousandth of the span it was coded over, 2 ns here; an
	 * end's, that and the width of its duration's code, 1 ns */
	CHECKF(w.err_ns == 21, "err %llu", (unsigned long long)w.err_ns);
	CHECK(w.n > 1 && w.pairs[0].src == 2 && w.pairs[0].dst == 3 &&
	      w.pairs[1].src == 1 && w.pairs[1].dst == 0);

	f = fmemopen(buf, sizeof(buf) - 1, "w");
	CHECK(f && an_waits_csv(w.pairs, 2, f) == 0);
	fclose(f);
	CHECKF(!strcmp(buf, "src,dst,messages,late_sender,late_sender_ns,"
			    "late_receiver,late_receiver_ns,error_ns,"
			    "late_sender_error_ns,late_receiver_error_ns\n"
			    "2,3,2,0,0,2,290,6,0,6\n1,0,3,2,270,0,0,6,6,0\n"),
	       "%s", buf);
	an_waits_free(&w);
	rondo_trace_free(t);
	fmt_buf_free(&file);

	/* a thousand times longer at base 1.5: within the bounds given */
	t = waits_job(1.5, 1000, 0, &file, 0);
	CHECK(an_waits(t, &w) == 0);
	{
		const struct an_wait_pair *p = find_pair(&w, 1, 0);
		const struct an_wait_pair *q = find_pair(&w, 2, 3);

		CHECK(p && q);
		CHECKF(p && (int64_t)p->ls_ns - 270000 <= (int64_t)p->err_ns &&
			       270000 - (int64_t)p->ls_ns <= (int64_t)p->err_ns,
		       "late sender %llu, true 270000, bound %llu",
		       p ? (unsigned long long)p->ls_ns : 0,
		       p ? (unsigned long long)p->err_ns : 0);
		CHECKF(q && (int64_t)q->lr_ns - 290000 <= (int64_t)q->err_ns &&
			       290000 - (int64_t)q->lr_ns <= (int64_t)q->err_ns,
		       "late receiver %llu, true 290000, bound %llu",
		       q ? (unsigned long long)q->lr_ns : 0,
		       q ? (unsigned long long)q->err_ns : 0);
	}
	an_waits_free(&w);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* Bounds capped by what a figure can be, at base 16, where a start after
 * a gap of a second may read 15 s late: rank 1 sends at 1 s + 1000 ns,
 * after a second of its own, and rank 0's MPI_Recv waits from 1 s to
 * 1 s + 2000 ns; two seconds later every rank enters an MPI_Barrier,
 * rank 3 1000 ns after the others, and all leave at 3 s + 2000 ns.  A
 * wait is at most the call that waited and a Barrier's spread its
 * longest member's call, as read back (less than 16 times 2000 ns + 1):
 * the bounds stay below that, seconds smaller than the raw ones, and
 * the true figures (1000 ns each; the MPI_Send did not wait) are within
 * them. */
static void test_capped(void)
{
	const int64_t g = 1000000000, cap = 16 * 2000 + 1;
	struct fmt_buf file = {0};
	struct an_skew_result r;
	const struct an_wait_pair *p;
	struct an_waits w;
	struct job j;
	uint32_t bar;
	rondo_trace *t;

	job_init(&j, 16.0, 1);
	bar = sig_comm(&j, j.f_barrier, j.c_world);
	at(&j, 0, sig_recv(&j, 0, 1, 1, -1, -1), g, g + 2000);
	at(&j, 1, sig_send(&j, j.f_send, 1, 0, 1, -1), g + 1000, g + 1100);
	for (uint32_t k = 0; k < NRANKS; k++)
		at(&j, k, bar, 3 * g + (k == 3 ? 1000 : 0), 3 * g + 2000);
	t = job_open(&j, &file, 0);

	CHECK(an_waits(t, &w) == 0);
	p = find_pair(&w, 1, 0);
	CHECKF(p && p->msgs == 1 && p->ls_err_ns < (uint64_t)cap &&
		       p->lr_err_ns < (uint64_t)cap &&
		       p->lr_ns <= p->lr_err_ns &&
		       (int64_t)p->ls_ns - 1000 <= (int64_t)p->ls_err_ns &&
		       1000 - (int64_t)p->ls_ns <= (int64_t)p->ls_err_ns,
	       "late sender %llu (true 1000), bound %llu; late receiver %llu "
	       "(true 0), bound %llu; cap %lld",
	       p ? (unsigned long long)p->ls_ns : 0,
	       p ? (unsigned long long)p->ls_err_ns : 0,
	       p ? (unsigned long long)p->lr_ns : 0,
	       p ? (unsigned long long)p->lr_err_ns : 0, (long long)cap);
	CHECK(w.err_ns == w.ls_err_ns + w.lr_err_ns &&
	      w.err_ns < (uint64_t)cap);
	an_waits_free(&w);

	CHECK(an_skew(t, AN_ANY, &r) == 0);
	CHECKF(r.n == 1 && r.rows[0].count == 1 &&
		       r.rows[0].err_ns < (uint64_t)cap &&
		       r.rows[0].mean_err_ns < (uint64_t)cap &&
		       (int64_t)r.rows[0].max_spread_ns - 1000 <=
			       (int64_t)r.rows[0].err_ns &&
		       1000 - (int64_t)r.rows[0].max_spread_ns <=
			       (int64_t)r.rows[0].err_ns,
	       "spread %llu (true 1000), bound %llu, mean's %llu, cap %lld",
	       r.n ? (unsigned long long)r.rows[0].max_spread_ns : 0,
	       r.n ? (unsigned long long)r.rows[0].err_ns : 0,
	       r.n ? (unsigned long long)r.rows[0].mean_err_ns : 0,
	       (long long)cap);
	an_skew_free(&r);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* ---- the matrix in a window ---------------------------------------------- */

static uint64_t cell(const struct an_matrix *m, uint32_t i, uint32_t j)
{
	return m->msgs[(size_t)i * m->n + j];
}

static uint64_t total(const struct an_matrix *m)
{
	uint64_t s = 0;

	for (size_t i = 0; i < (size_t)m->n * m->n; i++)
		s += m->msgs[i];
	return s;
}

static void test_window(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = waits_job(1.001, 1, 1, &file, 1);
	struct an_matrix m, g;

	/* [500, 900): 500 is in, 900 (rank 0's Sendrecv) out */
	CHECK(an_matrix_window(t, NULL, 500, 900, &m) == 0);
	CHECKF(total(&m) == 4 && cell(&m, 2, 3) == 1 && cell(&m, 1, 0) == 1 &&
		       cell(&m, 2, 0) == 1 && cell(&m, 3, 1) == 1,
	       "%llu messages", (unsigned long long)total(&m));
	CHECK(m.proc_null == 1 && m.untimed == 1 && m.bytes[2 * 4 + 3] == 8);
	/* starts are exact here, but their bounds (1 or 2 ns) reach across
	 * the edges for rank 2's Send at 500 (in: it may have started
	 * before) and the Sendrecv at 900 (out: it may have started in) */
	CHECKF(m.edge_in == 1 && m.edge_out == 1, "edges %llu %llu",
	       (unsigned long long)m.edge_in, (unsigned long long)m.edge_out);
	an_matrix_free(&m);
	CHECK(an_matrix_window(t, NULL, INT64_MIN, 100, &m) == 0 &&
	      total(&m) == 0);
	an_matrix_free(&m);
	CHECK(an_matrix_window(t, NULL, 100, 101, &m) == 0 && total(&m) == 1 &&
	      cell(&m, 2, 3) == 1);
	an_matrix_free(&m);
	CHECK(an_matrix_window(t, NULL, 899, 900, &m) == 0 && total(&m) == 0);
	an_matrix_free(&m);
	CHECK(an_matrix_window(t, NULL, 900, 901, &m) == 0 && total(&m) == 1 &&
	      cell(&m, 0, 1) == 1);
	an_matrix_free(&m);
	/* a persistent send started in the window, made before it */
	CHECK(an_matrix_window(t, NULL, 960, 1000, &m) == 0 && total(&m) == 1 &&
	      cell(&m, 3, 0) == 1);
	an_matrix_free(&m);
	/* filters still apply */
	{
		struct an_filter f = {AN_ANY, "MPI_Isend", AN_ANY, 0, 1};

		CHECK(an_matrix_window(t, &f, 500, 900, &m) == 0 &&
		      total(&m) == 2 && cell(&m, 1, 0) == 1 &&
		      cell(&m, 2, 0) == 1);
		an_matrix_free(&m);
		f = (struct an_filter){AN_ANY, NULL, 3, 0, 1};
		CHECK(an_matrix_window(t, &f, 0, 1000, &m) == 0 &&
		      total(&m) == 1 && cell(&m, 2, 3) == 1);
		an_matrix_free(&m);
	}
	/* everything: the grammar's matrix but the untimed send */
	CHECK(an_matrix_window(t, NULL, INT64_MIN, INT64_MAX, &m) == 0);
	CHECK(m.edge_in == 0 && m.edge_out == 0);
	CHECK(an_matrix(t, NULL, &g) == 0);
	CHECK(total(&g) == total(&m) + 1 &&
	      cell(&g, 3, 0) == cell(&m, 3, 0) + 1);
	an_matrix_free(&m);
	an_matrix_free(&g);
	rondo_trace_free(t);
	fmt_buf_free(&file);

	/* a thousand times longer at base 1.5: the 4 messages of
	 * [500, 900) us are within what the edges allow */
	t = waits_job(1.5, 1000, 0, &file, 0);
	CHECK(an_matrix_window(t, NULL, 500000, 900000, &m) == 0);
	CHECKF(total(&m) - m.edge_in <= 4 && 4 <= total(&m) + m.edge_out &&
		       m.edge_in + m.edge_out > 0,
	       "%llu messages, edges %llu in, %llu out",
	       (unsigned long long)total(&m), (unsigned long long)m.edge_in,
	       (unsigned long long)m.edge_out);
	an_matrix_free(&m);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The collectives of a window, with --collectives. */
static void test_window_coll(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = skew_job(1.001, 1, &file, 1);
	struct an_filter f = {AN_ANY, NULL, AN_ANY, 1, 1};
	struct an_matrix m;

	/* the Allreduce alone: every rank to every other */
	CHECK(an_matrix_window(t, &f, 400, 421, &m) == 0 && total(&m) == 12 &&
	      cell(&m, 0, 3) == 1);
	an_matrix_free(&m);
	/* rank 3 at 405 is left out of [406, 421) */
	CHECK(an_matrix_window(t, &f, 406, 421, &m) == 0 && total(&m) == 6 &&
	      cell(&m, 3, 0) == 0 && cell(&m, 0, 3) == 0 &&
	      cell(&m, 1, 0) == 1 && cell(&m, 2, 3) == 1);
	an_matrix_free(&m);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* Without per-call times: RONDO_E_MISSING, no crash. */
static void test_untimed(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_demo(3, 2);
	rondo_trace *t = tt_open(tt, &file, 0);
	struct an_skew_result r;
	struct an_waits w;
	struct an_matrix m;

	tt_free(tt);
	CHECK(an_skew(t, AN_ANY, &r) == RONDO_E_MISSING && r.rows == NULL);
	CHECK(an_waits(t, &w) == RONDO_E_MISSING && w.pairs == NULL);
	CHECK(an_matrix_window(t, NULL, 0, 1, &m) == RONDO_E_MISSING &&
	      m.msgs == NULL);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The map the analyses and the export keep what is in flight in: entries
 * removed (in a scrambled order, so that runs of collisions are cut in
 * their middle) are gone, and every other is still found under its key
 * with its index, through growth and removal alike. */
static void test_kmap(void)
{
	struct kmap m = {0};
	const uint32_t n = 5000;
	int added, bad = 0;

	for (uint32_t i = 0; i < n; i++)
		if (kmap_get(&m, i, i * 7u, ~(uint64_t)i, i, &added) != i ||
		    !added)
			bad++;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i =
			(uint32_t)((uint64_t)k * 7919 % n); /* a permutation */

		if (i % 3)
			kmap_del(&m, i, i * 7u, ~(uint64_t)i);
	}
	kmap_del(&m, n + 1, 0, 0); /* absent: nothing */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v =
			kmap_get(&m, i, i * 7u, ~(uint64_t)i, n + i, &added);

		if (i % 3 ? v != n + i || !added : v != i || added)
			bad++;
	}
	CHECKF(bad == 0, "kmap: %d entries wrong after removals", bad);
	CHECK(m.n == n); /* those kept, and those removed made again */
	kmap_free(&m);
}

int main(void)
{
	test_kmap();
	test_skew();
	test_mismatch();
	test_bound();
	test_waits();
	test_capped();
	test_window();
	test_window_coll();
	test_untimed();
	return check_done("test_timed");
}
