/*
 * test_matrix.c - the communication matrix (analyses/matrix.c) on traces
 * the tests' writer makes, whose answers are known: the demo's halo
 * exchange and Allreduce, persistent sends, derived datatypes, the
 * filters, the CSV forms; and the matrix from the grammar equal to the one
 * from decoding every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "matrix.h"
#include "testtrace.h"

/* The trace tt describes, opened; tt is freed. */
static rondo_trace *open_tt(struct testtrace *tt, struct fmt_buf *file)
{
	rondo_trace *t = tt_open(tt, file, 0);

	tt_free(tt);
	return t;
}

static uint64_t at(const struct an_matrix *m, uint32_t i, uint32_t j, int bytes)
{
	return (bytes ? m->bytes : m->msgs)[(size_t)i * m->n + j];
}

static uint64_t sum(const struct an_matrix *m)
{
	uint64_t s = 0;

	for (size_t i = 0; i < (size_t)m->n * m->n; i++)
		s += m->msgs[i];
	return s;
}

static int same(const struct an_matrix *a, const struct an_matrix *b)
{
	size_t n = (size_t)a->n * a->n;

	return a->n == b->n && !memcmp(a->msgs, b->msgs, n * 8) &&
	       !memcmp(a->bytes, b->bytes, n * 8) &&
	       a->unresolved == b->unresolved && a->nosize == b->nosize &&
	       a->proc_null == b->proc_null;
}

/* The demo: rank r sends 1024 doubles to r-1 and r+1 every iteration and
 * calls Allreduce (1 double) twice. */
static void test_demo(uint32_t nranks, uint32_t iters)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_tt(tt_demo(nranks, iters), &file);
	struct an_filter f = {AN_ANY, NULL, AN_ANY, 0, 1};
	struct an_matrix m, w;
	uint64_t *mult = malloc(sizeof(*mult) * rondo_sig_count(t));
	uint64_t *work = malloc(sizeof(*work) * rondo_rule_count(t));

	/* multiplicities add up to each group's calls */
	for (uint32_t g = 0; g < rondo_group_count(t); g++) {
		uint32_t r;
		uint64_t n = 0;

		an_rule_mult(t, rondo_group_root(t, g), 0, mult, work);
		for (uint32_t s = 0; s < rondo_sig_count(t); s++)
			n += mult[s];
		CHECK(rondo_group_ranks(t, g, &r, 1) >= 1);
		CHECKF(n == rondo_rank_calls(t, r), "group %u: %llu calls", g,
		       (unsigned long long)n);
	}
	CHECK(an_matrix(t, &f, &m) == 0 && m.n == nranks);
	for (uint32_t i = 0; i < nranks; i++)
		for (uint32_t j = 0; j < nranks; j++) {
			int near = i + 1 == j || j + 1 == i;

			CHECKF(at(&m, i, j, 0) == (near ? iters : 0),
			       "%u->%u: %llu messages", i, j,
			       (unsigned long long)at(&m, i, j, 0));
			CHECK(at(&m, i, j, 1) ==
			      (near ? (uint64_t)iters * 1024 * 8 : 0));
		}
	CHECK(m.unresolved == 0 && m.nosize == 0 && m.proc_null == 0);
	CHECK(an_matrix_walk(t, &f, &w) == 0 && same(&m, &w));
	an_matrix_free(&w);

	/* with the collectives: two Allreduce calls an iteration, 8 bytes
	 * from every rank to every other */
	f.collectives = 1;
	CHECK(an_matrix(t, &f, &w) == 0);
	for (uint32_t i = 0; i < nranks; i++)
		for (uint32_t j = 0; j < nranks; j++)
			CHECK(at(&w, i, j, 0) - at(&m, i, j, 0) ==
			      (i == j ? 0 : 2ull * iters));
	an_matrix_free(&w);
	f.p2p = 0; /* collectives alone */
	CHECK(an_matrix(t, &f, &w) == 0);
	CHECK(sum(&w) == 2ull * iters * nranks * (nranks - 1));
	CHECK(nranks == 1 || at(&w, 0, nranks - 1, 1) == 2ull * iters * 8);
	an_matrix_free(&w);

	/* filters */
	f = (struct an_filter){AN_ANY, "MPI_Isend", 7, 0, 1};
	CHECK(an_matrix(t, &f, &w) == 0 && same(&m, &w));
	an_matrix_free(&w);
	f.comm = AN_COMM_WORLD;
	CHECK(an_matrix(t, &f, &w) == 0 && same(&m, &w));
	an_matrix_free(&w);
	f = (struct an_filter){AN_ANY, NULL, 8, 0, 1};
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 0);
	an_matrix_free(&w);
	f = (struct an_filter){AN_ANY, "MPI_Irecv", AN_ANY, 1, 1};
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 0);
	an_matrix_free(&w);
	f = (struct an_filter){AN_COMM_SELF, NULL, AN_ANY, 1, 1};
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 0);
	an_matrix_free(&w);
	an_matrix_free(&m);
	free(mult);
	free(work);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The CSV forms of a 3-rank demo of 2 iterations. */
static void test_csv(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_tt(tt_demo(3, 2), &file);
	struct an_matrix m;
	char buf[1024] = "";
	FILE *f;

	CHECK(an_matrix(t, NULL, &m) == 0);
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	CHECK(f && an_matrix_csv(&m, f, 0, 0) == 0);
	fclose(f);
	CHECKF(!strcmp(buf, "src,dst,messages,bytes\n"
			    "0,1,2,16384\n1,0,2,16384\n1,2,2,16384\n"
			    "2,1,2,16384\n"),
	       "%s", buf);
	f = fmemopen(buf, sizeof(buf) - 1, "w");
	CHECK(f && an_matrix_csv(&m, f, 1, 1) == 0);
	fclose(f);
	CHECKF(!strcmp(buf, "src,0,1,2\n0,0,16384,0\n1,16384,0,16384\n"
			    "2,0,16384,0\n"),
	       "%s", buf);
	an_matrix_free(&m);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* A send of `count` of datatype value `type` (encoded by put) to +1. */
static uint32_t send_sig(struct testtrace *tt, uint32_t func, uint32_t world,
			 int64_t count, void (*put)(struct fmt_buf *, uint32_t),
			 uint32_t arg, int64_t req)
{
	struct fmt_buf a = {0};
	uint32_t s;

	fmt_arg_put_none(&a, RONDO_ARG_NULL);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, count);
	put(&a, arg);
	fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, 1);
	fmt_arg_put_sint(&a, RONDO_ARG_TAG, 3);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	if (req >= 0)
		fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, (uint64_t)req);
	s = tt_sig(tt, func, &a, req >= 0 ? 7 : 6);
	fmt_buf_free(&a);
	return s;
}

static void put_const(struct fmt_buf *b, uint32_t c)
{
	fmt_arg_put_uint(b, RONDO_ARG_CONST, c);
}

static void put_sized(struct fmt_buf *b, uint32_t size)
{
	fmt_arg_put_list(b, RONDO_ARG_DTYPE_SIZE, 2);
	fmt_arg_put_uint(b, RONDO_ARG_DATATYPE, 0);
	fmt_arg_put_uint(b, RONDO_ARG_INT, size);
}

static void put_unsized(struct fmt_buf *b, uint32_t id)
{
	fmt_arg_put_uint(b, RONDO_ARG_DATATYPE, id);
}

/* Persistent sends counted at their starts; derived datatypes by their
 * size; a datatype of unknown size counted apart. */
static void test_persistent_types(void)
{
	struct fmt_buf file = {0}, a = {0};
	struct testtrace *tt = tt_create(4);
	uint32_t world = tt_const(tt, "MPI_COMM_WORLD");
	uint32_t dbl = tt_const(tt, "MPI_DOUBLE");
	uint32_t fsend = tt_func(tt, "MPI_Send", "buf", "count", "datatype",
				 "dest", "tag", "comm", NULL);
	uint32_t finit =
		tt_func(tt, "MPI_Send_init", "buf", "count", "datatype", "dest",
			"tag", "comm", ">request", NULL);
	uint32_t fstart = tt_func(tt, "MPI_Start", ">request", NULL);
	uint32_t fall = tt_func(tt, "MPI_Startall", "count",
				">array_of_requests", NULL);
	uint32_t init, start, all, derived, unknown;
	struct an_filter f = {AN_ANY, NULL, AN_ANY, 0, 1};
	struct an_matrix m, w;
	rondo_trace *t;

	tt_typesize(tt, dbl, 8);
	init = send_sig(tt, finit, world, 10, put_const, dbl, 5);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 5);
	start = tt_sig(tt, fstart, &a, 1);
	fmt_buf_free(&a);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 2);
	fmt_arg_put_list(&a, RONDO_ARG_ARRAY, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 5);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 9); /* a receive's */
	all = tt_sig(tt, fall, &a, 2);
	fmt_buf_free(&a);
	derived = send_sig(tt, fsend, world, 2, put_sized, 96, -1);
	unknown = send_sig(tt, fsend, world, 2, put_unsized, 1, -1);
	for (uint32_t r = 0; r < 4; r++) {
		tt_call(tt, r, init, 1, 10);
		for (int i = 0; i < 5; i++) {
			tt_call(tt, r, start, 3, 10);
			tt_call(tt, r, all, 1, 10);
			tt_call(tt, r, derived, 1, 10);
		}
		if (r == 2)
			tt_call(tt, r, unknown, 4, 10);
	}
	t = open_tt(tt, &file);
	CHECK(an_matrix(t, &f, &m) == 0);
	for (uint32_t r = 0; r < 4; r++) {
		uint32_t to = (r + 1) % 4;

		CHECKF(at(&m, r, to, 0) == 5 * 4 + 5 + (r == 2 ? 4 : 0),
		       "%u: %llu", r, (unsigned long long)at(&m, r, to, 0));
		CHECK(at(&m, r, to, 1) == 5 * 4 * 80 + 5 * 192);
	}
	CHECK(m.nosize == 4 && m.unresolved == 0);
	CHECK(an_matrix_walk(t, &f, &w) == 0 && same(&m, &w));
	an_matrix_free(&w);
	/* the persistent ones by the name of the init or of the start */
	f.func = "MPI_Send_init";
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 4 * 20);
	an_matrix_free(&w);
	f.func = "MPI_Startall";
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 4 * 5);
	an_matrix_free(&w);
	f.func = "MPI_Send";
	CHECK(an_matrix(t, &f, &w) == 0 && sum(&w) == 4 * 5 + 4);
	an_matrix_free(&w);
	an_matrix_free(&m);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The count of step k's loop, 38 to 42, the same on every rank. */
static uint64_t step_count(uint32_t k)
{
	uint64_t x = (uint64_t)(k + 1) * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	return 38 + (x * 0xbf58476d1ce4e5b9ull >> 40) % 5;
}

/* Rank `rank`'s calls as it walks them, drawing with `seed`: the loop
 * count of every step (the sends between two markers) in cnt[]; the
 * signatures in sig[] (up to nsig).  Returns the steps seen. */
static uint32_t walk_drawn(const rondo_trace *t, uint32_t rank, uint64_t seed,
			   uint32_t marker, uint64_t *cnt, uint32_t nsteps,
			   uint32_t *sig, size_t nsig)
{
	rondo_iter *it = rondo_iter_create(t, rank);
	uint32_t s, steps = 0;
	size_t i = 0;

	CHECK(it && rondo_iter_draw(it, seed) == 0);
	while (it && rondo_iter_next(it, &s) == 1) {
		if (i < nsig)
			sig[i] = s;
		i++;
		if (s == marker)
			steps++;
		else if (steps > 0 && steps <= nsteps)
			cnt[steps - 1]++;
	}
	rondo_iter_free(it);
	return steps;
}

/* Loops merged at precision 90 (tests/testtrace.c runs the tracer's
 * precision pass): each step sends a marker, then a loop of 38 to 42
 * sends, on 2 ranks.  The matrix counts the loops' exact sums; a walk
 * drawing the counts (rondo_iter_draw) draws them alike for the same
 * seed on both ranks and again, otherwise for another seed, each count
 * one the program ran, their total near the program's; skipping walks
 * as stepping does. */
static void test_merged(void)
{
	enum { STEPS = 400, NSIG = 40000 };
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_create(2);
	uint32_t world = tt_const(tt, "MPI_COMM_WORLD");
	uint32_t dbl = tt_const(tt, "MPI_DOUBLE");
	uint32_t fsend = tt_func(tt, "MPI_Send", "buf", "count", "datatype",
				 "dest", "tag", "comm", NULL);
	uint32_t marker, body, merged = 0, sites = 0, steps;
	uint64_t total = 0, drawn = 0, *cnt[4], lo = UINT64_MAX, hi = 0;
	uint32_t *sig[2];
	struct an_filter f = {AN_ANY, NULL, AN_ANY, 0, 1};
	struct an_matrix m;
	rondo_iter *it;
	rondo_trace *t;

	tt_typesize(tt, dbl, 8);
	marker = send_sig(tt, fsend, world, 1, put_const, dbl, -1);
	body = send_sig(tt, fsend, world, 64, put_const, dbl, -1);
	for (uint32_t k = 0; k < STEPS; k++) {
		total += step_count(k);
		for (uint32_t r = 0; r < 2; r++) {
			tt_call(tt, r, marker, 1, 10);
			tt_call(tt, r, body, step_count(k), 10);
		}
	}
	tt_precision(tt, 90);
	t = open_tt(tt, &file);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(rondo_precision(t, &merged) == 90 && merged >= 1);
	for (uint32_t r = 0; r < rondo_rule_count(t); r++) {
		const rondo_sym *b;
		uint32_t len;
		rondo_merged_loop h, x;

		CHECK(rondo_rule_body(t, r, &b, &len) == 0);
		for (uint32_t i = 0; i < len; i++)
			if (rondo_loop_hist(t, r, i, &h) == 1) {
				uint64_t n = 0, bl, bh, bn;

				sites++;
				CHECK(h.min == 38 && h.max == 42 &&
				      h.nbins == 5);
				CHECK(h.sum * STEPS == total * h.loops);
				for (uint32_t k = 0; k < h.nbins; k++) {
					CHECK(rondo_merged_bin(t, h.id, k, &bl,
							       &bh, &bn) == 0);
					CHECK(bl == bh && bl == 38 + k);
					n += bn;
				}
				CHECK(n == h.loops);
				CHECK(rondo_merged_bin(t, h.id, h.nbins, &bl,
						       &bh,
						       &bn) == RONDO_E_RANGE);
				CHECK(rondo_merged_info(t, h.id, &x) == 0 &&
				      x.sum == h.sum && x.loops == h.loops);
			}
		CHECK(rondo_loop_hist(t, r, len, NULL) == RONDO_E_RANGE);
	}
	CHECKF(sites >= 1, "%u merged sites", sites);
	CHECK(rondo_loop_hist(t, rondo_rule_count(t), 0, NULL) ==
	      RONDO_E_RANGE);
	CHECK(rondo_merged_info(t, merged, NULL) == RONDO_E_RANGE);
	CHECK(rondo_merged_bin(t, merged, 0, NULL, NULL, NULL) ==
	      RONDO_E_RANGE);
	/* the matrix from the exact sums: every send the program made */
	CHECK(an_matrix(t, &f, &m) == 0 && m.n == 2);
	CHECKF(at(&m, 0, 1, 0) == STEPS + total &&
		       at(&m, 1, 0, 0) == STEPS + total,
	       "%llu messages, made %llu", (unsigned long long)at(&m, 0, 1, 0),
	       (unsigned long long)(STEPS + total));
	CHECK(at(&m, 0, 1, 1) == STEPS * 8 + total * 64 * 8);
	an_matrix_free(&m);

	/* drawn: seed 7 on rank 0, again, on rank 1; seed 8 on rank 0 */
	for (int k = 0; k < 4; k++)
		cnt[k] = calloc(STEPS, sizeof(uint64_t));
	sig[0] = calloc(NSIG, sizeof(uint32_t));
	sig[1] = calloc(NSIG, sizeof(uint32_t));
	steps = walk_drawn(t, 0, 7, marker, cnt[0], STEPS, sig[0], NSIG);
	CHECK(steps == STEPS);
	CHECK(walk_drawn(t, 0, 7, marker, cnt[1], STEPS, sig[1], NSIG) ==
	      STEPS);
	CHECK(!memcmp(sig[0], sig[1], NSIG * sizeof(uint32_t)));
	CHECK(walk_drawn(t, 1, 7, marker, cnt[2], STEPS, NULL, 0) == STEPS);
	CHECK(walk_drawn(t, 0, 8, marker, cnt[3], STEPS, NULL, 0) == STEPS);
	CHECK(!memcmp(cnt[0], cnt[1], STEPS * sizeof(uint64_t)));
	CHECK(!memcmp(cnt[0], cnt[2], STEPS * sizeof(uint64_t)));
	CHECK(memcmp(cnt[0], cnt[3], STEPS * sizeof(uint64_t)));
	for (uint32_t k = 0; k < STEPS; k++) {
		drawn += cnt[0][k];
		lo = cnt[0][k] < lo ? cnt[0][k] : lo;
		hi = cnt[0][k] > hi ? cnt[0][k] : hi;
	}
	CHECKF(lo == 38 && hi == 42, "drawn counts %llu to %llu",
	       (unsigned long long)lo, (unsigned long long)hi);
	CHECKF(drawn * 1000 >= total * 995 && drawn * 1000 <= total * 1005,
	       "drawn %llu calls in the loops, the program %llu",
	       (unsigned long long)drawn, (unsigned long long)total);
	/* skipping draws as stepping does */
	for (uint64_t k = 1; k < STEPS + total; k = k * 3 + 1) {
		uint32_t s = UINT32_MAX;

		it = rondo_iter_create(t, 0);
		CHECK(it && rondo_iter_draw(it, 7) == 0);
		CHECK(rondo_iter_skip(it, k) == 0 &&
		      rondo_iter_position(it) == k);
		CHECKF(rondo_iter_next(it, &s) == 1 && s == sig[0][k],
		       "call %llu", (unsigned long long)k);
		rondo_iter_free(it);
	}
	CHECK(rondo_iter_draw(NULL, 7) == RONDO_E_STATE);
	for (int k = 0; k < 4; k++)
		free(cnt[k]);
	free(sig[0]);
	free(sig[1]);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

int main(void)
{
	test_demo(1, 5);
	test_demo(2, 3);
	test_demo(6, 37);
	test_demo(33, 100);
	test_csv();
	test_persistent_types();
	test_merged();
	return check_done("test_matrix");
}
