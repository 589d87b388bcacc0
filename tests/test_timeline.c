/*
 * test_timeline.c - the timeline's sums (analyses/timeline.c): the shares
 * of a bucket the explorer gives each function add up to the bucket's
 * MPI share, min(busy / whole, 1), even where calls overlap and their
 * time adds up to more than the bucket (traces of format 1.6 and older);
 * and a rank's calls, on a timed trace the tests' writer makes, land in
 * the buckets they cover to the nanosecond (base 1.001: every span below
 * 1000 ns reads back exact).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "testtrace.h"
#include "timeline.h"

/* The shares of n functions with fn[] ns of a bucket of whole ns, busy
 * of it in MPI, summed. */
static double share_sum(const double *fn, int n, double busy, double whole)
{
	double sum = 0;

	for (int f = 0; f < n; f++)
		sum += an_func_share(fn[f], busy, whole);
	return sum;
}

/* The functions' shares against the MPI share the status line shows. */
static void test_shares(void)
{
	/* overlapping calls: 2.5 buckets' worth of calls in one, which
	 * the old fn / whole showed as 150% + 75% + 25% next to MPI 100% */
	const double over[] = {300, 150, 50};
	/* thirds and a tenth: sums that are not exact in binary */
	const double odd[] = {100.0 / 3, 100.0 / 3, 100.0 / 3, 0.1};
	const double under[] = {20, 30.5, 7};
	double s;

	s = share_sum(over, 3, 500, 200);
	CHECKF(fabs(s - 1) < 1e-9, "overlapping: shares sum to %.12g", s);
	for (int f = 0; f < 3; f++)
		CHECK(fabs(an_func_share(over[f], 500, 200) - over[f] / 500) <
		      1e-12);
	s = share_sum(odd, 4, 100.0 + 0.1, 7);
	CHECKF(fabs(s - 1) < 1e-9, "overlapping thirds: %.12g", s);
	s = share_sum(odd, 4, 100.0 + 0.1, 100.0 + 0.1);
	CHECKF(fabs(s - 1) < 1e-9, "busy == whole: %.12g", s);

	/* no overlap: each share is its time over the bucket's */
	s = share_sum(under, 3, 57.5, 100);
	CHECKF(fabs(s - 0.575) < 1e-9, "non-overlapping: %.12g, not 0.575", s);
	for (int f = 0; f < 3; f++)
		CHECK(fabs(an_func_share(under[f], 57.5, 100) -
			   under[f] / 100) < 1e-12);
	s = share_sum(odd, 4, 100.0 + 0.1, 1000);
	CHECKF(fabs(s - 0.1001) < 1e-9, "non-overlapping thirds: %.12g", s);

	/* nothing in MPI, or no bucket: 0, never a division by 0 */
	CHECK(an_func_share(0, 0, 100) == 0);
	CHECK(an_func_share(5, 0, 100) == 0);
	CHECK(an_func_share(5, 10, 0) == 0);
}

/* A timed job of 2 ranks, opened into *file: rank 0 calls MPI_Barrier
 * from 10 to 40 ns, MPI_Allreduce from 50 to 130 (across the edge of
 * two buckets of 100 ns) and MPI_Barrier from 400 to 420 (past them);
 * rank 1 MPI_Allreduce from 120 to 160.  Their signatures in sig[]. */
static rondo_trace *timeline_job(struct fmt_buf *file, uint32_t sig[2])
{
	struct testtrace *tt = tt_create(2);
	struct fmt_buf a = {0};
	uint32_t world;
	rondo_trace *t;

	tt_timing(tt, 1.001);
	tt_meta(tt, "program", "timeline");
	tt_func(tt, "MPI_Barrier", "comm", NULL);
	tt_func(tt, "MPI_Allreduce", "sendbuf", ">recvbuf", "count", "datatype",
		"op", "comm", NULL);
	world = tt_const(tt, "MPI_COMM_WORLD");
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	sig[0] = tt_sig(tt, 0, &a, 1);
	fmt_buf_free(&a);
	for (int k = 0; k < 2; k++) {
		fmt_arg_put_list(&a, RONDO_ARG_BUFFER, 2);
		fmt_arg_put_uint(&a, RONDO_ARG_INT, (uint64_t)k + 1);
		fmt_arg_put_sint(&a, RONDO_ARG_INT, 0);
	}
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	for (int k = 0; k < 3; k++) /* datatype, op, comm: any constant */
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	sig[1] = tt_sig(tt, 1, &a, 6);
	fmt_buf_free(&a);
	tt_call_at(tt, 0, sig[0], 10, 30);
	tt_call_at(tt, 0, sig[1], 50, 80);
	tt_call_at(tt, 0, sig[0], 400, 20);
	tt_call_at(tt, 1, sig[1], 120, 40);
	t = tt_open(tt, file, 0);
	tt_free(tt);
	return t;
}

/* Those calls in the buckets they cover, to the nanosecond, one rank
 * and then a row of both; the Allreduce highlighted. */
static void test_rank(void)
{
	struct fmt_buf file = {0};
	uint32_t sig[2];
	rondo_trace *t = timeline_job(&file, sig);
	uint32_t nf = rondo_func_count(t); /* Barrier 0, Allreduce 1 */
	double busy[2] = {0}, lit[2] = {0};
	double *fn = xalloc((size_t)2 * nf, sizeof(double));
	uint8_t *sigs = xalloc(rondo_sig_count(t), 1);
	struct an_buckets b = {.t0 = 0,
			       .w = 100,
			       .nb = 2,
			       .busy = busy,
			       .lit = lit,
			       .sigs = sigs,
			       .fn = fn,
			       .nfunc = nf,
			       .first = INT64_MAX,
			       .last = INT64_MIN};

	sigs[sig[1]] = 1;
	CHECK(an_timeline_rank(t, 0, &b) == 0);
	/* the call past the window is seen, not summed */
	CHECKF(b.first == 10 && b.last == 420,
	       "rank 0 seen from %lld to %lld, not 10 to 420",
	       (long long)b.first, (long long)b.last);
	CHECKF(busy[0] == 80 && busy[1] == 30, "rank 0 busy %g %g, not 80 30",
	       busy[0], busy[1]);
	CHECKF(lit[0] == 50 && lit[1] == 30,
	       "rank 0 highlighted %g %g, not 50 30", lit[0], lit[1]);
	CHECK(fn[0] == 30 && fn[1] == 50 && fn[nf] == 0 && fn[nf + 1] == 30);
	CHECKF(fabs(share_sum(fn, (int)nf, busy[0], 100) - 0.8) < 1e-9,
	       "bucket 0's shares do not sum to its MPI share 0.8");

	/* rank 1 added: the buckets of a row of 2 ranks (200 ns each) */
	CHECK(an_timeline_rank(t, 1, &b) == 0);
	CHECK(b.first == 10 && b.last == 420);
	CHECKF(busy[0] == 80 && busy[1] == 70,
	       "ranks 0-1 busy %g %g, not 80 70", busy[0], busy[1]);
	CHECK(fn[nf] == 0 && fn[nf + 1] == 70);
	CHECKF(fabs(share_sum(fn + nf, (int)nf, busy[1], 200) - 0.35) < 1e-9,
	       "bucket 1's shares do not sum to its MPI share 0.35");
	free(fn);
	free(sigs);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* Without per-call times: RONDO_E_MISSING, nothing summed. */
static void test_untimed(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_demo(2, 1);
	rondo_trace *t = tt_open(tt, &file, 0);
	double busy[1] = {0};
	struct an_buckets b = {
		.w = 100, .nb = 1, .busy = busy, .first = INT64_MAX};

	tt_free(tt);
	CHECK(an_timeline_rank(t, 0, &b) == RONDO_E_MISSING && busy[0] == 0);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

int main(void)
{
	test_shares();
	test_rank();
	test_untimed();
	return check_done("test_timeline");
}
