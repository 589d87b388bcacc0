/*
 * bench_matrix.c - the communication matrix of a large trace, from the
 * grammar and by decoding every call, in the same run: both must agree;
 * prints their times and the ratio.
 *
 *   bench_matrix [--ranks P] [--calls N]
 *
 * The trace is the tests' writer's demo job (a 1-D halo exchange with two
 * Allreduce calls an iteration, tests/testtrace.c) with enough iterations
 * for about N calls in all (default 1024 ranks, 10^9 calls), built in
 * memory and opened with librondo as a file would be.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format.h"
#include "matrix.h"
#include "testtrace.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int same(const struct an_matrix *a, const struct an_matrix *b)
{
	size_t n = (size_t)a->n * a->n;

	return a->n == b->n && !memcmp(a->msgs, b->msgs, n * 8) &&
	       !memcmp(a->bytes, b->bytes, n * 8) &&
	       a->proc_null == b->proc_null && a->unresolved == b->unresolved;
}

int main(int argc, char **argv)
{
	unsigned long ranks = 1024;
	double calls = 1e9, t0, tg, tw;
	struct fmt_buf file = {0};
	struct testtrace *tt;
	rondo_trace *t;
	uint64_t total = 0, sent = 0;
	int c, bad = 0;
	static const struct option opts[] = {
		{"ranks", 1, 0, 'r'}, {"calls", 1, 0, 'n'}, {0, 0, 0, 0}};

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'r')
			ranks = strtoul(optarg, NULL, 10);
		else if (c == 'n')
			calls = strtod(optarg, NULL);
		else
			return 2;
	}
	if (ranks < 2 || calls < ranks * 7.0) {
		fprintf(stderr,
			"bench_matrix: at least 2 ranks and 7 calls each\n");
		return 2;
	}
	/* the demo's iteration: 7 calls on the middle ranks, 5 at the ends */
	t0 = now();
	tt = tt_demo((uint32_t)ranks,
		     (uint32_t)(calls / (7.0 * (double)ranks - 4.0)));
	t = tt_open(tt, &file, 0);
	tt_free(tt);
	for (uint32_t r = 0; r < rondo_rank_count(t); r++)
		total += rondo_rank_calls(t, r);
	printf("trace: %u ranks, %llu calls, %llu bytes, %llu grammar symbols "
	       "(written in %.1f s)\n",
	       rondo_rank_count(t), (unsigned long long)total,
	       (unsigned long long)file.len,
	       (unsigned long long)rondo_grammar_size(t), now() - t0);
	for (int coll = 0; coll < 2; coll++) {
		struct an_filter f = {AN_ANY, NULL, AN_ANY, coll, 1};
		struct an_matrix g, k;

		t0 = now();
		if (an_matrix(t, &f, &g) < 0)
			return 1;
		tg = now() - t0;
		t0 = now();
		if (an_matrix_walk(t, &f, &k) < 0)
			return 1;
		tw = now() - t0;
		sent = 0;
		for (size_t i = 0; i < (size_t)g.n * g.n; i++)
			sent += g.msgs[i];
		printf("%-28s grammar %9.3f ms   decode-and-count %9.3f ms   "
		       "ratio %8.0fx   %s (%llu messages)\n",
		       coll ? "point-to-point+collectives" : "point-to-point",
		       tg * 1e3, tw * 1e3, tw / (tg > 0 ? tg : 1e-9),
		       same(&g, &k) ? "equal" : "DIFFERENT",
		       (unsigned long long)sent);
		bad |= !same(&g, &k);
		an_matrix_free(&g);
		an_matrix_free(&k);
	}
	rondo_trace_free(t);
	fmt_buf_free(&file);
	return bad;
}
