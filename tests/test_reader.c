/*
 * test_reader.c - librondo's public API on traces from the tests' writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "config.h"
#include "format.h"
#include "rondo.h"
#include "testtrace.h"

static uint64_t rng_state = 88172645463325252ull;

static uint32_t rng(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* Writes `tt` to memory and opens it; the file bytes stay in *file. */

/* Expected calls per rank, kept beside the writer's own record. */
struct seqs {
	uint32_t nranks;
	uint32_t **s;
	uint64_t *n, *cap;
};

static void seq_push(struct seqs *q, struct testtrace *tt, uint32_t r,
		     uint32_t sig, uint64_t count)
{
	if (q->n[r] + count > q->cap[r]) {
		q->cap[r] = (q->n[r] + count) * 2;
		q->s[r] = realloc(q->s[r], q->cap[r] * sizeof(uint32_t));
		if (!q->s[r])
			exit(99);
	}
	for (uint64_t i = 0; i < count; i++)
		q->s[r][q->n[r]++] = sig;
	tt_call(tt, r, sig, count, 100 + sig);
}

/* Nested random loops: body of up to 4 items, each a call (sometimes
 * repeated) or a loop one level down. */
static void gen_loop(struct seqs *q, struct testtrace *tt, uint32_t r,
		     uint32_t nsigs, int depth)
{
	uint32_t items = 1 + rng(4);

	for (uint32_t i = 0; i < items; i++) {
		if (depth > 0 && rng(3) == 0) {
			uint32_t reps = 1 + rng(6);

			for (uint32_t k = 0; k < reps; k++)
				gen_loop(q, tt, r, nsigs, depth - 1);
		} else {
			seq_push(q, tt, r, rng(nsigs),
				 1 + (rng(5) == 0) * rng(9));
		}
	}
}

static struct testtrace *make_random(struct seqs *q, uint32_t nranks,
				     uint32_t nsigs)
{
	struct testtrace *tt = tt_create(nranks);
	uint32_t f = tt_func(tt, "MPI_Test", "n", NULL);

	for (uint32_t s = 0; s < nsigs; s++) {
		struct fmt_buf a = {0};

		fmt_arg_put_sint(&a, RONDO_ARG_INT, s);
		CHECK(tt_sig(tt, f, &a, 1) == s);
		fmt_buf_free(&a);
	}
	q->nranks = nranks;
	q->s = calloc(nranks, sizeof(*q->s));
	q->n = calloc(nranks, sizeof(*q->n));
	q->cap = calloc(nranks, sizeof(*q->cap));
	for (uint32_t r = 0; r < nranks; r++) {
		/* Every third rank repeats the seed of rank 0, so groups
		 * form. */
		uint64_t save = rng_state;

		if (r % 3 == 0)
			rng_state = 12345;
		gen_loop(q, tt, r, nsigs, 4);
		if (r % 3 == 0)
			rng_state = save;
	}
	return tt;
}

static void free_seqs(struct seqs *q)
{
	for (uint32_t r = 0; r < q->nranks; r++)
		free(q->s[r]);
	free(q->s);
	free(q->n);
	free(q->cap);
}

static void check_rank_walk(rondo_trace *t, const struct seqs *q, uint32_t r)
{
	rondo_iter *it = rondo_iter_create(t, r);
	uint64_t i = 0, n = q->n[r];
	uint32_t sig;
	int rc;

	CHECK(it != NULL);
	CHECK(rondo_rank_calls(t, r) == n);
	while ((rc = rondo_iter_next(it, &sig)) == 1) {
		if (i >= n || sig != q->s[r][i]) {
			CHECKF(0, "rank %u call %llu differs", r,
			       (unsigned long long)i);
			break;
		}
		i++;
	}
	CHECK(rc <= 0 && i == n);
	rondo_iter_free(it);
	/* skip to random places, compare the call found there */
	for (int k = 0; k < 20 && n > 0; k++) {
		uint64_t p = rng((uint32_t)n);

		it = rondo_iter_create(t, r);
		CHECK(rondo_iter_skip(it, p) == 0);
		CHECK(rondo_iter_position(it) == p);
		CHECK(rondo_iter_next(it, &sig) == 1 && sig == q->s[r][p]);
		CHECK(rondo_iter_skip(it, n - p - 1) == 0);
		CHECK(rondo_iter_next(it, &sig) == 0);
		rondo_iter_free(it);
	}
	it = rondo_iter_create(t, r);
	CHECK(rondo_iter_skip(it, n + 1) == RONDO_E_RANGE);
	CHECK(rondo_iter_next(it, &sig) == 0);
	rondo_iter_free(it);
}

/* |got - want| <= want / 128: how per-rank times are kept. */
static int near(uint64_t got, uint64_t want)
{
	return (got > want ? got - want : want - got) <= want / 128;
}

/* Each rank's time per signature against what the writer was told: every
 * call of signature s took 100 + s ns. */
static void check_rank_times(rondo_trace *t, const struct seqs *q, uint32_t r,
			     uint32_t nsigs)
{
	uint64_t want[64] = {0}, ns, sum = 0, all;
	uint32_t k = 0, sig, prev = 0;

	for (uint64_t i = 0; i < q->n[r]; i++)
		want[q->s[r][i]] += 100 + q->s[r][i];
	for (uint32_t s = 0; s < nsigs; s++) {
		CHECK(rondo_sig_rank_time(t, s, r, &ns) == 0);
		CHECKF(want[s] ? near(ns, want[s]) : ns == 0,
		       "rank %u sig %u: %llu ns, want %llu", r, s,
		       (unsigned long long)ns, (unsigned long long)want[s]);
		k += want[s] != 0;
	}
	/* the entries: the signatures called, in order, with the same times */
	CHECK(rondo_rank_time_count(t, r) == k);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t one;

		CHECK(rondo_rank_time_entry(t, r, i, &sig, &ns) == 0);
		CHECK(want[sig] && (i == 0 || sig > prev));
		CHECK(rondo_sig_rank_time(t, sig, r, &one) == 0 && one == ns);
		prev = sig;
		sum += ns;
	}
	CHECK(rondo_rank_time_entry(t, r, k, &sig, &ns) == RONDO_E_RANGE);
	CHECK(rondo_rank_mpi_time(t, r, &all) == 0 && all == sum);
}

/* The demo job's per-rank times summarized as a tracer would past
 * RONDO_RANKTIME_EXACT ranks (k = 2 each side), in place of its ranktime
 * section, opened into u. */
static void summary_open(rondo_trace *t, struct testtrace *tt, rondo_trace *u,
			 struct fmt_buf *file)
{
	uint32_t n = rondo_rank_count(t), total = 0;
	struct fmt_ranktime rt = {n, NULL, NULL, NULL, NULL};
	struct fmt_ranksum rs;
	struct fmt_buf sec = {0};
	struct tt_patch p[2] = {{FMT_SEC_RANKTIME, NULL},
				{FMT_SEC_RANKSUM, &sec}};
	struct fmt_writer w;
	uint16_t *mpi = xalloc(n, sizeof(*mpi));

	for (uint32_t r = 0; r < n; r++)
		total += rondo_rank_time_count(t, r);
	rt.at = xalloc(n + 1, sizeof(*rt.at));
	rt.list = xalloc(n + 1, sizeof(*rt.list));
	rt.sig = xalloc(total + 1, sizeof(*rt.sig));
	rt.code = xalloc(total + 1, sizeof(*rt.code));
	total = 0;
	for (uint32_t r = 0; r < n; r++) {
		uint64_t ns;

		rt.at[r] = rt.list[r] = total;
		for (uint32_t i = 0; i < rondo_rank_time_count(t, r); i++) {
			CHECK(rondo_rank_time_entry(t, r, i, &rt.sig[total],
						    &ns) == 0);
			rt.code[total++] = fmt_time_code(ns);
		}
		CHECK(rondo_rank_mpi_time(t, r, &ns) == 0);
		mpi[r] = fmt_time_code(ns);
	}
	rt.at[n] = total;
	CHECK(fmt_ranksum_make(&rs, &rt, 2, mpi) == 0);
	fmt_ranksum_encode(&sec, &rs);
	fmt_writer_init(&w);
	CHECK(tt_finish_patched(tt, &w, 0, p, 2) == 0 &&
	      fmt_writer_finish(&w, file) == 0);
	CHECKF(rondo_trace_open_memory(u, file->data, file->len, "s.rondo") ==
		       0,
	       "%s", rondo_trace_error(u));
	fmt_writer_free(&w);
	fmt_buf_free(&sec);
	fmt_ranksum_free(&rs);
	fmt_ranktime_free(&rt);
	free(mpi);
}

/* One signature's spread in the summary u against each rank's times in
 * t: the same ranks and sum; the slowest and fastest as each rank's times
 * order them; every other rank between them (or not calling it), said to
 * be unknown; every
 * rank in one bin of the histogram. */
static void check_spread(rondo_trace *t, rondo_trace *u, uint32_t s)
{
	rondo_spread a, b;
	uint32_t n = rondo_rank_count(t), inbins = 0;
	uint64_t ns, got, lo = 0, hi = UINT64_MAX;

	CHECK(rondo_sig_spread(t, s, &a) == 0 &&
	      rondo_sig_spread(u, s, &b) == 0);
	CHECK(a.ranks == b.ranks && a.sum_ns == b.sum_ns);
	if (!b.ranks)
		return;
	CHECK(b.nslow == (b.ranks < 2 ? b.ranks : 2));
	CHECK(b.nfast == (b.ranks - b.nslow < 2 ? b.ranks - b.nslow : 2));
	/* t lists every rank (12 <= 16), slowest first */
	CHECK(a.nslow == a.ranks && a.nfast == 0);
	for (uint32_t j = 0; j < b.nslow; j++)
		CHECK(b.slow_rank[j] == a.slow_rank[j] &&
		      b.slow_ns[j] == a.slow_ns[j]);
	for (uint32_t j = 0; j < b.nfast; j++)
		CHECK(b.fast_ns[j] == a.slow_ns[a.ranks - 1 - j]);
	if (b.nfast)
		lo = b.fast_ns[b.nfast - 1], hi = b.slow_ns[b.nslow - 1];
	for (uint32_t r = 0; r < n; r++) {
		int rc = rondo_sig_rank_time(u, s, r, &got);

		CHECK(rondo_sig_rank_time(t, s, r, &ns) == 0);
		/* a rank not listed may also not have called it at all */
		CHECKF(rc == 0 ? got == ns
			       : rc == RONDO_E_MISSING &&
					 (ns == 0 || (ns >= lo && ns <= hi)),
		       "sig %u rank %u: %d, %llu ns, truly %llu", s, r, rc,
		       (unsigned long long)got, (unsigned long long)ns);
	}
	for (uint32_t k = 0; k < b.nbins; k++) {
		uint64_t blo, bhi;
		uint32_t cnt, have = 0;

		CHECK(rondo_sig_spread_bin(u, s, k, &blo, &bhi, &cnt) == 0);
		for (uint32_t r = 0; r < a.ranks; r++)
			have += a.slow_ns[r] >= blo && a.slow_ns[r] <= bhi;
		CHECKF(have == cnt,
		       "sig %u bin %u: %u ranks, %u in [%llu, %llu]", s, k, cnt,
		       have, (unsigned long long)blo, (unsigned long long)bhi);
		inbins += cnt;
	}
	CHECK(inbins == b.ranks);
	CHECK(rondo_sig_spread_bin(u, s, b.nbins, NULL, NULL, NULL) ==
	      RONDO_E_RANGE);
}

/* Per-rank times summarized (section ranksum): what the summary keeps
 * reads back as each rank's times say, and what it does not is said to be
 * missing, not made up. */
static void test_summary(void)
{
	struct fmt_buf file = {0}, file2 = {0};
	struct testtrace *tt = tt_demo(12, 3);
	rondo_trace *t = tt_open(tt, &file, 0), *u = rondo_trace_create();
	uint32_t k, sig;
	uint64_t ns, want;

	summary_open(t, tt, u, &file2);
	CHECK(rondo_rank_times_kept(t, &k) == RONDO_RANKTIMES_EACH &&
	      k == RONDO_SPREAD_MAX);
	CHECK(rondo_rank_times_kept(u, &k) == RONDO_RANKTIMES_SUMMARY &&
	      k == 2);
	CHECK(rondo_rank_times_kept(NULL, &k) == RONDO_RANKTIMES_NONE && !k);
	for (uint32_t r = 0; r < rondo_rank_count(t); r++) {
		CHECK(rondo_rank_mpi_time(t, r, &want) == 0);
		CHECK(rondo_rank_mpi_time(u, r, &ns) == 0 &&
		      ns == fmt_time_value(fmt_time_code(want)) &&
		      near(ns, want));
		CHECK(rondo_rank_time_count(u, r) == 0);
		CHECK(rondo_rank_time_entry(u, r, 0, &sig, &ns) ==
		      RONDO_E_MISSING);
	}
	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		check_spread(t, u, s);
	CHECK(rondo_sig_spread(u, rondo_sig_count(u), NULL) == RONDO_E_RANGE);
	CHECK(rondo_sig_rank_time(u, 0, rondo_rank_count(u), &ns) ==
	      RONDO_E_RANGE);
	rondo_trace_free(t);
	rondo_trace_free(u);
	tt_free(tt);
	fmt_buf_free(&file);
	fmt_buf_free(&file2);
}

static void test_random(void)
{
	struct seqs q;
	struct fmt_buf file = {0};
	struct testtrace *tt = make_random(&q, 10, 7);
	rondo_trace *t = tt_open(tt, &file, 0);
	uint32_t ranks[16];

	CHECK(rondo_rank_count(t) == 10);
	for (uint32_t r = 0; r < 10; r++) {
		check_rank_walk(t, &q, r);
		check_rank_times(t, &q, r, 7);
	}
	/* ranks 0, 3, 6, 9 share one sequence, hence one group */
	CHECK(rondo_rank_root(t, 0) == rondo_rank_root(t, 9));
	CHECK(rondo_group_size(t, 0) == 4);
	CHECK(rondo_group_ranks(t, 0, ranks, 16) == 4);
	CHECK(ranks[0] == 0 && ranks[1] == 3 && ranks[2] == 6 && ranks[3] == 9);
	CHECK(rondo_group_count(t) == 7);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	tt_free(tt);
	free_seqs(&q);
}

static void test_demo(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_demo(6, 37);
	rondo_trace *t = tt_open(tt, &file, 0);
	char buf[256], small[8];
	uint64_t calls = 0;
	rondo_stat st;
	rondo_arg a, e;
	uint32_t ranks[8];
	uint64_t ns;
	int n;

	CHECK(rondo_rank_count(t) == 6);
	CHECK(!strcmp(rondo_meta_get(t, "program"), "halo1d"));
	CHECK(rondo_meta_get(t, "nonexistent") == NULL);
	CHECK(rondo_func_count(t) == 7);
	CHECK(!strcmp(rondo_func_name(t, 1), "MPI_Isend"));
	CHECK(rondo_func_name(t, 7) == NULL);
	CHECK(!strcmp(rondo_func_param_name(t, 1, 3), "dest"));
	CHECK(!strcmp(rondo_func_param_name(t, 1, 6), "request"));
	CHECK(rondo_func_param_is_output(t, 1, 6) == 1);
	CHECK(rondo_func_param_is_output(t, 1, 3) == 0);
	CHECK(rondo_func_param_is_output(t, 2, 0) == 1); /* Irecv's buf */
	CHECK(rondo_func_param_is_output(t, 1, 7) == 0); /* no such param */
	CHECK(rondo_sig_count(t) == 12);
	/* end ranks differ from the middle ones: three groups */
	CHECK(rondo_group_count(t) == 3);
	CHECK(rondo_group_size(t, 0) == 1 && rondo_group_size(t, 1) == 4 &&
	      rondo_group_size(t, 2) == 1);
	CHECK(rondo_group_ranks(t, 1, ranks, 2) == 4 && ranks[0] == 1 &&
	      ranks[1] == 2);
	CHECK(rondo_group_format(t, 1, buf, sizeof(buf)) == 3 &&
	      !strcmp(buf, "1-4"));
	CHECK(rondo_group_root(t, 3) == UINT32_MAX);
	/* each rank's group: the ends alone, the middle together */
	CHECK(rondo_rank_group(t, 0) == 0 && rondo_rank_group(t, 1) == 1 &&
	      rondo_rank_group(t, 4) == 1 && rondo_rank_group(t, 5) == 2 &&
	      rondo_rank_group(t, 6) == UINT32_MAX &&
	      rondo_rank_group(NULL, 0) == UINT32_MAX);
	for (uint32_t r = 0; r < 6; r++)
		calls += rondo_rank_calls(t, r);
	/* Init, Barrier, Finalize; per iteration 2 or 4 p2p, Waitall, 2
	 * Allreduce */
	CHECK(calls == 6 * 3 + 37 * (2 * 3 + 4 * 5) + 37 * 6 * 2);
	/* signature 4 is the Isend to the right neighbour, request 3 */
	n = rondo_sig_format(t, 4, buf, sizeof(buf));
	CHECKF(!strcmp(buf, "MPI_Isend(buf=m1+8192, count=1024, "
			    "datatype=MPI_DOUBLE, dest=+1, tag=7, "
			    "comm=MPI_COMM_WORLD -> request=r3)"),
	       "%s", buf);
	CHECK(n == (int)strlen(buf));
	/* as rank 2 made it: the absolute rank it passed */
	CHECK(rondo_sig_format_rank(t, 4, 2, buf, sizeof(buf)) > 0);
	CHECKF(strstr(buf, " dest=3, ") != NULL, "%s", buf);
	/* Irecv: the receive buffer and the request are outputs */
	rondo_sig_format(t, 1, buf, sizeof(buf));
	CHECKF(!strcmp(buf, "MPI_Irecv(count=1024, datatype=MPI_DOUBLE, "
			    "source=-1, tag=7, comm=MPI_COMM_WORLD -> "
			    "buf=m2+0, request=r0)"),
	       "%s", buf);
	/* rank 0's left neighbour wraps modulo the world's 6 ranks */
	rondo_sig_format_rank(t, 1, 0, buf, sizeof(buf));
	CHECKF(strstr(buf, " source=5, ") != NULL, "%s", buf);
	CHECK(rondo_sig_format_rank(t, 1, 6, buf, sizeof(buf)) ==
	      RONDO_E_RANGE);
	CHECK(rondo_sig_format(t, 4, small, sizeof(small)) == n &&
	      strlen(small) == 7);
	CHECK(rondo_sig_format(t, 99, buf, sizeof(buf)) == RONDO_E_RANGE);
	CHECK(rondo_sig_arg(t, 8, 1, &a) == 0 && a.kind == RONDO_ARG_ARRAY &&
	      a.n == 4);
	CHECK(rondo_arg_elem(&a, 3, &e) == 0 && e.kind == RONDO_ARG_REQUEST &&
	      e.u == 3);
	CHECK(rondo_arg_elem(&a, 4, &e) == RONDO_E_RANGE);
	/* Allreduce: twice per iteration on every rank */
	CHECK(rondo_sig_stat(t, 9, &st) == 0);
	CHECK(st.count == 2 * 37 * 6);
	CHECK(st.min_ns >= 5000 && st.max_ns <= 40000 && st.min_ns < st.max_ns);
	{
		uint64_t h = 0;

		for (int k = 0; k < RONDO_HIST_BINS; k++)
			h += st.hist[k];
		CHECK(h == st.count);
	}
	CHECK(rondo_sig_stat(t, 12, &st) == RONDO_E_RANGE);
	/* per rank: the ranks' times add up to the statistics' total */
	for (uint32_t s = 0; s < 12; s++) {
		uint64_t sum = 0;

		for (uint32_t r = 0; r < 6; r++) {
			CHECK(rondo_sig_rank_time(t, s, r, &ns) == 0);
			sum += ns;
		}
		CHECK(rondo_sig_stat(t, s, &st) == 0 && near(sum, st.total_ns));
	}
	/* rank 0 calls neither Isend nor Irecv to its left */
	CHECK(rondo_sig_rank_time(t, 1, 0, &ns) == 0 && ns == 0);
	CHECK(rondo_sig_rank_time(t, 1, 1, &ns) == 0 && ns > 0);
	CHECK(rondo_sig_rank_time(t, 12, 0, &ns) == RONDO_E_RANGE);
	CHECK(rondo_sig_rank_time(t, 0, 6, &ns) == RONDO_E_RANGE);
	CHECK(rondo_sig_rank_time(t, 0, 0, NULL) == RONDO_E_RANGE);
	CHECK(rondo_rank_mpi_time(t, 6, &ns) == RONDO_E_RANGE);
	CHECK(rondo_rank_mpi_time(t, 5, NULL) == RONDO_E_RANGE);
	CHECK(rondo_rank_mpi_time(t, 5, &ns) == 0 && ns > 150000);
	CHECK(rondo_rank_time_count(t, 6) == 0);
	CHECK(rondo_rank_time_entry(t, 6, 0, NULL, NULL) == RONDO_E_RANGE);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	tt_free(tt);
}

static void test_errors(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_demo(3, 4);
	rondo_trace *t = tt_open(tt, &file, 1);
	unsigned major, minor;
	uint64_t end = 32, need = 0;

	/* a newer minor version with an unknown section opens */
	rondo_format_version(t, &major, &minor);
	CHECK(major == RONDO_FORMAT_MAJOR);
	CHECK(rondo_section_count(t) == 12);
	CHECK(rondo_trace_open(t, "again.rondo") == RONDO_E_STATE);
	CHECK(rondo_trace_damage(t, 0) == NULL);
	/* a cut file opens once the index and the sections the calls need
	 * are whole, and says it was cut; the grammar, the last of them,
	 * may be cut (test_cut_grammar) */
	for (uint32_t i = 0; i < rondo_section_count(t); i++) {
		static const char *const needed[] = {
			"index",   "funcs", "consts",	 "cst",
			"rankmap", "comms", "typesizes", "rankvals"};
		const char *name;
		uint64_t stored, raw;

		rondo_section_info(t, i, &name, &stored, &raw);
		if (!strcmp(name, "grammar"))
			CHECKF(end >= need,
			       "the grammar at %llu before a "
			       "needed section",
			       (unsigned long long)end);
		end += stored;
		for (size_t k = 0; k < COUNTOF(needed); k++)
			if (!strcmp(name, needed[k]))
				need = end;
	}
	CHECK(need > 32 && need < file.len);
	rondo_trace_free(t);

	for (size_t len = 0; len < file.len; len++) {
		rondo_trace *u = rondo_trace_create();
		int rc =
			rondo_trace_open_memory(u, file.data, len, "cut.rondo");
		const char *d = rondo_trace_damage(u, 0);

		CHECKF(len >= need
			       ? rc == 0 && d && !strncmp(d, "truncated: ", 11)
			       : rc < 0,
		       "truncated to %zu bytes: %d", len, rc);
		if (rc < 0)
			CHECK(strncmp(rondo_trace_error(u),
				      "cut.rondo: ", 11) == 0);
		rondo_trace_free(u);
	}
	t = rondo_trace_create();
	CHECK(rondo_trace_open(t, "/nonexistent/x.rondo") == RONDO_E_IO);
	CHECK(strstr(rondo_trace_error(t), "/nonexistent/x.rondo") != NULL);
	CHECK(rondo_rank_count(t) == 0 && rondo_iter_create(t, 0) == NULL);
	rondo_trace_free(t);
	rondo_trace_free(NULL);
	rondo_iter_free(NULL);
	CHECK(strcmp(rondo_strerror(RONDO_E_VERSION), "unknown error") != 0);
	CHECK(rondo_version_number() == RONDO_VERSION_NUMBER);
	fmt_buf_free(&file);
	tt_free(tt);
}

/* The version has one source (rondo.h, read by configure.ac): the
 * header's string, the library's and the package's agree. */
static void test_version(void)
{
	char want[32];

	snprintf(want, sizeof(want), "%d.%d.%d", RONDO_VERSION_MAJOR,
		 RONDO_VERSION_MINOR, RONDO_VERSION_RELEASE);
	CHECKF(!strcmp(RONDO_VERSION_STRING, want), "%s", RONDO_VERSION_STRING);
	CHECK(!strcmp(rondo_version_string(), RONDO_VERSION_STRING));
	CHECKF(!strcmp(PACKAGE_VERSION, RONDO_VERSION_STRING),
	       "configure says %s", PACKAGE_VERSION);
}

/* A failure as data: the section and the byte, as the message says; and
 * an iterator that says why it could not be made. */
static void test_error_info(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_demo(3, 4);
	rondo_trace *t = tt_open(tt, &file, 0), *u;
	rondo_iter *it = (rondo_iter *)&file;
	rondo_error e;

	CHECK(rondo_trace_error_info(t, &e) == RONDO_OK && !e.section);
	CHECK(rondo_iter_open(t, 3, 0, &it) == RONDO_E_RANGE && !it);
	CHECK(rondo_iter_open(t, 0, RONDO_ITER_TIMED, &it) == RONDO_E_MISSING &&
	      !it);
	CHECK(rondo_iter_open(t, 0, 8, &it) == RONDO_E_RANGE);
	CHECK(rondo_iter_open(t, rondo_rule_count(t), RONDO_ITER_RULE, &it) ==
	      RONDO_E_RANGE);
	CHECK(rondo_iter_open(t, 2, 0, &it) == 0 && it);
	rondo_iter_free(it);
	CHECK(rondo_iter_open(t, 0, RONDO_ITER_RULE, &it) == 0 && it);
	rondo_iter_free(it);
	rondo_trace_free(t);
	u = rondo_trace_create();
	CHECK(rondo_iter_open(u, 0, 0, &it) == RONDO_E_STATE && !it);
	rondo_trace_free(u);
	/* every cut: the code is the open's; a file that opens all the
	 * same says it was cut first */
	for (size_t len = 0; len < file.len; len += 7) {
		char want[64];
		int rc;

		u = rondo_trace_create();
		CHECK(rondo_trace_error_info(u, &e) == RONDO_OK);
		rc = rondo_trace_open_memory(u, file.data, len, "cut.rondo");
		CHECK(rc == rondo_trace_error_info(u, &e));
		if (len < 32)
			snprintf(want, sizeof(want),
				 "file ends inside the 32-byte header");
		else
			snprintf(want, sizeof(want),
				 "truncated: %zu of %zu bytes", len, file.len);
		CHECKF(rc < 0 ? strstr(rondo_trace_error(u), want) != NULL
			      : strcmp(rondo_trace_damage(u, 0), want) == 0,
		       "%zu: %d %s", len, rc, rondo_trace_error(u));
		rondo_trace_free(u);
	}
	/* a grammar section that ends inside its first varint: the message
	 * names the section and the byte the data gives */
	{
		struct fmt_buf bad = {0}, f2 = {0};
		struct tt_patch p = {FMT_SEC_GRAMMAR, &bad};
		struct fmt_writer w;
		char where[96];

		fmt_put_bytes(&bad, "\x83", 1);
		fmt_writer_init(&w);
		CHECK(tt_finish_patched(tt, &w, 0, &p, 1) == 0 &&
		      fmt_writer_finish(&w, &f2) == 0);
		u = rondo_trace_create();
		CHECK(rondo_trace_open_memory(u, f2.data, f2.len, "g.rondo") ==
		      RONDO_E_TRUNCATED);
		CHECK(rondo_trace_error_info(u, &e) == RONDO_E_TRUNCATED);
		CHECKF(e.section && !strcmp(e.section, "grammar") &&
			       e.has_offset && e.size == 1,
		       "%s", rondo_trace_error(u));
		snprintf(where, sizeof(where), "section '%s': ", e.section);
		CHECK(strstr(rondo_trace_error(u), where) != NULL);
		snprintf(where, sizeof(where), "at byte %llu of 1)",
			 (unsigned long long)e.offset);
		CHECKF(strstr(rondo_trace_error(u), where) != NULL, "%s",
		       rondo_trace_error(u));
		rondo_trace_free(u);
		fmt_writer_free(&w);
		fmt_buf_free(&bad);
		fmt_buf_free(&f2);
	}
	CHECK(rondo_trace_error_info(NULL, &e) == RONDO_OK);
	fmt_buf_free(&file);
	tt_free(tt);
}

/* Rules that expand to nothing, repeated 2^60 times, and a rank with no
 * calls: walking and skipping must pass over them at once. */
static void test_empty_rules(void)
{
	struct testtrace *tt = tt_demo(1, 1); /* for its tables */
	struct fmt_writer w;
	struct fmt_buf g = {0}, m = {0}, cm = {0}, out = {0};
	/* no per-rank times: a file written before they were */
	struct tt_patch patch[4] = {{FMT_SEC_GRAMMAR, &g},
				    {FMT_SEC_RANKMAP, &m},
				    {FMT_SEC_COMMS, &cm},
				    {FMT_SEC_RANKTIME, NULL}};
	rondo_trace *t = rondo_trace_create();
	rondo_iter *it;
	uint64_t ns = 7;
	uint32_t sig;

	/* R0 = (empty), R1 = R0^2^60 s3^3 R0 */
	fmt_put_uvarint(&g, 2);
	fmt_put_uvarint(&g, 0);
	fmt_put_uvarint(&g, 3);
	fmt_put_uvarint(&g, 0u << 2 | 2 | 1);
	fmt_put_uvarint(&g, (1ull << 60) - 2);
	fmt_put_uvarint(&g, 3u << 2 | 1);
	fmt_put_uvarint(&g, 1);
	fmt_put_uvarint(&g, 0u << 2 | 2);
	/* one communicator: ranks 1, 0 (in that order) */
	fmt_put_uvarint(&cm, 1);
	fmt_put_uvarint(&cm, 2);
	fmt_put_uvarint(&cm, 0);
	fmt_put_uvarint(&cm, 1);
	fmt_put_uvarint(&cm, 1);
	fmt_put_uvarint(&cm, 2);
	fmt_put_svarint(&cm, -1);
	/* two ranks: rank 0 runs R1, rank 1 runs R0 (no calls) */
	fmt_put_uvarint(&m, 2);
	fmt_put_uvarint(&m, 1);
	fmt_put_uvarint(&m, 2);
	fmt_put_uvarint(&m, 1u << 2);
	fmt_put_uvarint(&m, 0u << 2);
	fmt_writer_init(&w);
	CHECK(tt_finish_patched(tt, &w, 0, patch, 4) == 0);
	CHECK(fmt_writer_finish(&w, &out) == 0);
	CHECKF(rondo_trace_open_memory(t, out.data, out.len, "empty") == 0,
	       "%s", rondo_trace_error(t));
	CHECK(rondo_rank_calls(t, 0) == 3 && rondo_rank_calls(t, 1) == 0);
	CHECK(rondo_group_count(t) == 2);
	CHECK(rondo_comm_count(t) == 1 && rondo_comm_size(t, 0) == 2);
	CHECK(rondo_comm_member(t, 0, 0) == 1 &&
	      rondo_comm_member(t, 0, 1) == 0);
	CHECK(rondo_comm_member(t, 0, 2) == UINT32_MAX);
	CHECK(rondo_comm_first_group(t, 0) == 0 && rondo_comm_size(t, 1) == 0);
	CHECK(rondo_sig_rank_time(t, 3, 0, &ns) == RONDO_E_MISSING && ns == 7);
	CHECK(rondo_sig_rank_time(t, 3, 2, &ns) == RONDO_E_RANGE);
	CHECK(rondo_rank_mpi_time(t, 1, &ns) == RONDO_E_MISSING);
	CHECK(rondo_rank_time_count(t, 0) == 0);
	CHECK(rondo_rank_time_entry(t, 0, 0, &sig, &ns) == RONDO_E_MISSING);
	it = rondo_iter_create(t, 0);
	for (int k = 0; k < 3; k++)
		CHECK(rondo_iter_next(it, &sig) == 1 && sig == 3);
	CHECK(rondo_iter_next(it, &sig) == 0);
	rondo_iter_free(it);
	it = rondo_iter_create(t, 0);
	CHECK(rondo_iter_skip(it, 2) == 0 && rondo_iter_next(it, &sig) == 1);
	CHECK(rondo_iter_skip(it, 1) == RONDO_E_RANGE);
	rondo_iter_free(it);
	it = rondo_iter_create(t, 1);
	CHECK(it && rondo_iter_next(it, &sig) == 0);
	rondo_iter_free(it);
	rondo_trace_free(t);
	fmt_writer_free(&w);
	fmt_buf_free(&out);
	fmt_buf_free(&g);
	fmt_buf_free(&m);
	fmt_buf_free(&cm);
	tt_free(tt);
}

/* An integer stored relative to the caller's rank (kind REL): the
 * caller's rank plus it, as each rank made it; "rank+d" without a rank. */
static void test_relative(void)
{
	struct fmt_buf file = {0}, a = {0};
	struct testtrace *tt = tt_create(3);
	uint32_t f = tt_func(tt, "MPI_Send", "buf", "count", "datatype", "dest",
			     "tag", "comm", NULL);
	uint32_t world = tt_const(tt, "MPI_COMM_WORLD");
	uint32_t dbl = tt_const(tt, "MPI_DOUBLE"), sig;
	rondo_trace *t;
	char buf[256];

	fmt_arg_put_none(&a, RONDO_ARG_NULL);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, dbl);
	fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, 1);
	fmt_arg_put_sint(&a, RONDO_ARG_REL, 100);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	sig = tt_sig(tt, f, &a, 6);
	for (uint32_t r = 0; r < 3; r++)
		tt_call(tt, r, sig, 1, 1000);
	t = tt_open(tt, &file, 0);
	CHECK(rondo_group_count(t) == 1);
	rondo_sig_format(t, sig, buf, sizeof(buf));
	CHECKF(strstr(buf, " dest=+1, tag=rank+100, ") != NULL, "%s", buf);
	rondo_sig_format_rank(t, sig, 2, buf, sizeof(buf));
	CHECKF(strstr(buf, " dest=0, tag=102, ") != NULL, "%s", buf);
	rondo_trace_free(t);
	tt_free(tt);
	fmt_buf_free(&a);
	fmt_buf_free(&file);
}

/* A slot over 4 ranks whose items are rank r's value, in order. */
static void vary_slot(struct fmt_vslot *sl, struct fmt_vitem *it,
		      uint32_t *first, rondo_sym *body)
{
	first[0] = 0;
	first[1] = 4;
	for (uint32_t r = 0; r < 4; r++)
		body[r] = (rondo_sym){r, 0, 1};
	*sl = (struct fmt_vslot){4, it, {4, {1, first, body}, NULL}};
}

/* Opens tt's trace with section rankvals `rv` (NULL: none); returns the
 * open error (0: t is open). */
static int vary_open(struct testtrace *tt, const struct fmt_rankvals *rv,
		     rondo_trace *t, struct fmt_buf *file, char *why,
		     size_t size)
{
	struct fmt_buf sec = {0};
	struct tt_patch p = {FMT_SEC_RANKVALS, rv ? &sec : NULL};
	struct fmt_writer w;
	int rc;

	if (rv)
		fmt_rankvals_encode(&sec, rv);
	fmt_writer_init(&w);
	fmt_buf_free(file);
	rc = tt_finish_patched(tt, &w, 0, &p, 1);
	rc = rc ? rc : fmt_writer_finish(&w, file);
	rc = rc ? rc
		: rondo_trace_open_memory(t, file->data, file->len, "v.rondo");
	snprintf(why, size, "%s", rc ? rondo_trace_error(t) : "");
	fmt_writer_free(&w);
	fmt_buf_free(&sec);
	return rc;
}

/* Values that differ by rank (kind VARY, section rankvals): each rank's
 * own partner, tag and communicator, in the call texts and the rank
 * resolver; "rankval#k" without a rank; a slot the file does not have,
 * or a value that cannot be made, refuse the file. */
static void test_vary(void)
{
	struct fmt_buf file = {0}, a = {0};
	struct testtrace *tt = tt_create(4);
	uint32_t f = tt_func(tt, "MPI_Send", "buf", "count", "datatype", "dest",
			     "tag", "comm", NULL);
	uint32_t dbl = tt_const(tt, "MPI_DOUBLE"), sig;
	uint32_t lo[2] = {0, 1}, hi[2] = {2, 3}, first[3][2];
	rondo_sym body[3][4];
	/* dest: rank of the pair, 1 0 1 0; tag: 0 10 20 30; comm: c0 c0
	 * c1 c1 */
	struct fmt_vitem dest[4] = {{0, {1, RONDO_ARG_RANK, RONDO_WIRE_SINT}},
				    {1, {(uint64_t)-1, 0, 0}},
				    {1, {1, 0, 0}},
				    {1, {(uint64_t)-1, 0, 0}}};
	struct fmt_vitem tag[4] = {{0, {0, RONDO_ARG_TAG, RONDO_WIRE_SINT}},
				   {1, {10, 0, 0}},
				   {1, {10, 0, 0}},
				   {1, {10, 0, 0}}};
	struct fmt_vitem comm[4] = {{0, {0, RONDO_ARG_COMM, RONDO_WIRE_UINT}},
				    {1, {0, 0, 0}},
				    {0, {1, RONDO_ARG_COMM, RONDO_WIRE_UINT}},
				    {1, {0, 0, 0}}};
	struct fmt_vslot sl[3];
	struct fmt_rankvals rv = {3, sl};
	rondo_trace *t = rondo_trace_create();
	char buf[256], why[512];
	int64_t world[2];
	rondo_arg v, at;

	vary_slot(&sl[0], dest, first[0], body[0]);
	vary_slot(&sl[1], tag, first[1], body[1]);
	vary_slot(&sl[2], comm, first[2], body[2]);
	tt_comm(tt, 2, 0, lo);
	tt_comm(tt, 2, 0, hi);
	fmt_arg_put_none(&a, RONDO_ARG_NULL);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, dbl);
	fmt_arg_put_uint(&a, RONDO_ARG_VARY, 0);
	fmt_arg_put_uint(&a, RONDO_ARG_VARY, 1);
	fmt_arg_put_uint(&a, RONDO_ARG_VARY, 2);
	sig = tt_sig(tt, f, &a, 6);
	for (uint32_t r = 0; r < 4; r++)
		tt_call(tt, r, sig, 1, 1000);
	CHECKF(vary_open(tt, &rv, t, &file, why, sizeof(why)) == 0, "%s", why);
	CHECK(rondo_group_count(t) == 1);
	rondo_sig_format(t, sig, buf, sizeof(buf));
	CHECKF(strstr(buf, " dest=rankval#0, tag=rankval#1, "
			   "comm=rankval#2)") != NULL,
	       "%s", buf);
	for (uint32_t r = 0; r < 4; r++) {
		char want[128];

		snprintf(want, sizeof(want), " dest=%u, tag=%u, comm=c%u)",
			 (r & 1) ^ 1, 10 * r, r / 2);
		rondo_sig_format_rank(t, sig, r, buf, sizeof(buf));
		CHECKF(strstr(buf, want) != NULL, "rank %u: %s", r, buf);
		CHECK(rondo_sig_arg_ranks(t, sig, r, 3, world, NULL, 2) == 1 &&
		      world[0] == (r ^ 1));
		CHECK(rondo_sig_arg(t, sig, 4, &v) == 0 &&
		      v.kind == RONDO_ARG_VARY);
		CHECK(rondo_arg_at_rank(t, &v, r, &at) == 0 &&
		      at.kind == RONDO_ARG_TAG && at.i == 10 * (int64_t)r);
	}
	CHECK(rondo_arg_at_rank(t, &v, RONDO_RANK_NONE, &at) ==
	      RONDO_E_MISSING);
	CHECK(rondo_arg_at_rank(t, &v, 4, &at) == RONDO_E_RANGE);
	rondo_trace_free(t);
	/* a slot past the section's; no section; a first value that is a
	 * difference; one past 64 bits */
	rv.n = 2;
	t = rondo_trace_create();
	CHECK(vary_open(tt, &rv, t, &file, why, sizeof(why)) ==
	      RONDO_E_CORRUPT);
	CHECKF(strstr(why, "names per-rank value 2; the trace has 2"), "%s",
	       why);
	rondo_trace_free(t);
	t = rondo_trace_create();
	CHECK(vary_open(tt, NULL, t, &file, why, sizeof(why)) ==
	      RONDO_E_CORRUPT);
	rondo_trace_free(t);
	rv.n = 3;
	comm[0].delta = 1;
	t = rondo_trace_create();
	CHECK(vary_open(tt, &rv, t, &file, why, sizeof(why)) ==
	      RONDO_E_CORRUPT);
	CHECKF(strstr(why, "slot 2: rank 0's value"), "%s", why);
	rondo_trace_free(t);
	comm[0].delta = 0;
	comm[1].val.u = (uint64_t)-1;
	t = rondo_trace_create();
	CHECK(vary_open(tt, &rv, t, &file, why, sizeof(why)) ==
	      RONDO_E_CORRUPT);
	CHECKF(strstr(why, "slot 2: rank 1's value"), "%s", why);
	rondo_trace_free(t);
	tt_free(tt);
	fmt_buf_free(&a);
	fmt_buf_free(&file);
}

/* A Cartesian offset names the same peer on every rank of a periodic
 * grid, and every peer of any grid. */
/* Datatype sizes: predefined ones from the typesizes section, derived
 * ones from the value; -1 where the trace does not say. */
static void test_type_size(void)
{
	struct fmt_buf file = {0}, args = {0};
	struct testtrace *tt = tt_create(1);
	uint32_t f = tt_func(tt, "MPI_Send", "count", "datatype", NULL);
	uint32_t dbl = tt_const(tt, "MPI_DOUBLE"),
		 sum = tt_const(tt, "MPI_SUM");
	uint32_t s;
	rondo_trace *t;
	rondo_arg a, e;

	tt_typesize(tt, dbl, 8);
	fmt_arg_put_sint(&args, RONDO_ARG_INT, 3);
	fmt_arg_put_list(&args, RONDO_ARG_DTYPE_SIZE, 2);
	fmt_arg_put_uint(&args, RONDO_ARG_DATATYPE, 4);
	fmt_arg_put_uint(&args, RONDO_ARG_INT, 96);
	fmt_arg_put_uint(&args, RONDO_ARG_CONST, dbl);
	fmt_arg_put_uint(&args, RONDO_ARG_CONST, sum);
	fmt_arg_put_uint(&args, RONDO_ARG_DATATYPE, 5);
	s = tt_sig(tt, f, &args, 5);
	tt_call(tt, 0, s, 1, 10);
	t = tt_open(tt, &file, 0);
	CHECK(rondo_sig_arg(t, s, 0, &a) == 0 && rondo_type_size(t, &a) == -1);
	CHECK(rondo_sig_arg(t, s, 1, &a) == 0 && rondo_type_size(t, &a) == 96);
	CHECK(rondo_arg_elem(&a, 0, &e) == 0 && e.u == 4);
	CHECK(rondo_sig_arg(t, s, 2, &a) == 0 && rondo_type_size(t, &a) == 8);
	CHECK(rondo_sig_arg(t, s, 3, &a) == 0 && rondo_type_size(t, &a) == -1);
	CHECK(rondo_sig_arg(t, s, 4, &a) == 0 && rondo_type_size(t, &a) == -1);
	CHECK(rondo_type_size(t, NULL) == -1 &&
	      rondo_type_size(NULL, &a) == -1);
	rondo_trace_free(t);
	tt_free(tt);
	fmt_buf_free(&file);
	fmt_buf_free(&args);
}

static void test_cart_peer(void)
{
	uint32_t dims[3] = {3, 4, 2};
	int64_t d[3];
	uint32_t bad = 0;

	/* one step up the middle dimension, from every rank of a 3x4x2 */
	for (uint32_t me = 0; me < 24; me++) {
		uint32_t z = me % 2, y = me / 2 % 4, x = me / 8;
		int64_t want = x * 8 + (y + 1) % 4 * 2 + z;

		bad += rondo_cart_peer(3, dims, me, 2, d) != want ||
		       d[0] != 0 || d[1] != 1 || d[2] != 0;
	}
	/* every (me, peer) pair through the tracer's encoding rule */
	for (uint32_t me = 0; me < 24; me++)
		for (uint32_t peer = 0; peer < 24; peer++) {
			int64_t v = 0, stride = 1;
			uint32_t a = me, b = peer;

			for (int k = 2; k >= 0; k--) {
				int64_t n = dims[k],
					dd = ((int64_t)(b % n) -
					      (int64_t)(a % n) + n) %
					     n;

				if (dd > n / 2)
					dd -= n;
				v += dd * stride;
				stride *= n;
				a /= (uint32_t)n;
				b /= (uint32_t)n;
			}
			bad += rondo_cart_peer(3, dims, me, v, NULL) != peer;
		}
	CHECKF(bad == 0, "%u peers wrong", bad);
	/* an offset no grid position gives; a rank outside the grid */
	CHECK(rondo_cart_peer(3, dims, 0, 1000, NULL) == -1);
	CHECK(rondo_cart_peer(3, dims, 24, 0, NULL) == -1);
}

/* The rank resolver's answers where the consumer's run does not go: a
 * parameter looked up by name, communicators with and without a caller,
 * members and arguments out of range, NULL pointers. */
static void test_resolver(void)
{
	struct fmt_buf file = {0};
	struct testtrace *tt = tt_peers();
	rondo_trace *t = tt_open(tt, &file, 0);
	rondo_comm_ref cm;
	rondo_arg v;
	int64_t w[2], l[2];
	uint32_t s0 = 0, s1 = 1, inter = 6; /* world +1, c0 -1, c3 */

	/* parameters by name */
	CHECK(rondo_sig_param(t, s0, "dest", &v) == 1);
	CHECK(v.kind == RONDO_ARG_RANK_REL && v.i == 1);
	CHECK(rondo_sig_param(t, s0, "nosuch", &v) == RONDO_E_MISSING);
	CHECK(v.kind == RONDO_ARG_NULL && v.wire == RONDO_WIRE_NONE);
	CHECK(rondo_sig_param(t, 999, "dest", &v) == RONDO_E_RANGE);
	CHECK(rondo_sig_param(NULL, s0, "dest", &v) == RONDO_E_RANGE);
	/* the call's communicator: the world, with and without a caller */
	CHECK(rondo_sig_comm(t, s0, 3, &cm) == 2);
	CHECK(cm.id == RONDO_COMM_WORLD && cm.size == 8 && cm.rank == 3);
	CHECK(rondo_sig_comm(t, s0, RONDO_RANK_NONE, &cm) == RONDO_E_MISSING);
	CHECK(cm.id == RONDO_COMM_WORLD && cm.rank == RONDO_RANK_NONE);
	CHECK(rondo_sig_comm(t, s0, 8, &cm) == RONDO_E_RANGE);
	/* c0 (the even ranks): rank 4 is its member 2, rank 3 none */
	CHECK(rondo_sig_comm(t, s1, 4, &cm) == 2);
	CHECK(cm.id == 0 && cm.size == 4 && cm.rank == 2 && cm.world == 4);
	CHECK(rondo_comm_world(t, &cm, 3) == 6);
	CHECK(rondo_comm_world(t, &cm, 4) == -1);
	CHECK(rondo_comm_world(t, &cm, -1) == -1);
	CHECK(rondo_sig_comm(t, s1, 3, &cm) == RONDO_E_MISSING);
	CHECK(cm.id == 0 && cm.rank == RONDO_RANK_NONE);
	CHECK(rondo_sig_param(t, s1, "dest", &v) == 1);
	CHECK(rondo_peer(t, &cm, &v, l) == RONDO_PEER_UNKNOWN && l[0] == -1);
	/* the intercommunicator: rank 0 (first group) names the second's */
	CHECK(rondo_sig_comm(t, inter, 0, &cm) == 2);
	CHECK(cm.id == 3 && cm.first == 4 && cm.rank == 0);
	CHECK(rondo_sig_arg_ranks(t, inter, 0, 1, w, l, 2) == 1);
	CHECK(w[0] == 7 && l[0] == 3);
	/* arguments that name no rank, and out of range */
	CHECK(rondo_sig_arg_ranks(t, s0, 0, 0, w, l, 2) == 0);
	CHECK(rondo_sig_arg_ranks(t, s0, 0, 9, w, l, 2) == RONDO_E_RANGE);
	CHECK(rondo_sig_arg_ranks(t, s0, 8, 1, w, l, 2) == RONDO_E_RANGE);
	/* a value that names no communicator */
	CHECK(rondo_sig_param(t, s0, "count", &v) == 0);
	CHECK(rondo_comm_resolve(t, &v, 0, &cm) == RONDO_E_RANGE);
	CHECK(cm.id == RONDO_COMM_NONE);
	CHECK(rondo_comm_resolve(t, NULL, 0, &cm) == RONDO_E_RANGE);
	rondo_trace_free(t);
	tt_free(tt);
	fmt_buf_free(&file);
}

/* The ranks lost, as the damage note lists them: "2,7". */
static void lost_list(rondo_trace *t, char *buf, size_t size)
{
	uint32_t n = rondo_rank_count(t), k = 0, *lost = calloc(n + 1, 4);

	buf[0] = '\0';
	for (uint32_t r = 0; lost && r < n; r++)
		if (rondo_rank_lost(t, r))
			lost[k++] = r;
	for (uint32_t i = 0; lost && i < k; i++) {
		uint32_t j = i;
		size_t at = strlen(buf);

		while (j + 1 < k && lost[j + 1] == lost[j] + 1)
			j++;
		snprintf(buf + at, size - at, j > i ? "%s%u-%u" : "%s%u",
			 i ? "," : "", lost[i], lost[j]);
		i = j;
	}
	free(lost);
}

/* A file cut inside its grammar (written after the rank map): the rules
 * whole before the cut are read, the ranks whose roots come after lose
 * their calls (0 calls, a group of their own, named in the damage note)
 * and the others keep every call; cutting later never loses more.  Once
 * with the grammar stored raw (a few ranks, cut at every byte), once
 * coded with zstd in blocks of FMT_GRAMMAR_BLOCK raw bytes (30000 ranks
 * whose roots differ by their calls' counts, cut every `step` bytes, the
 * calls of every `every`-th rank walked). */
static void test_cut_grammar(uint32_t nranks, uint64_t step, uint32_t every)
{
	struct testtrace *tt = tt_create(nranks);
	uint32_t f_init = tt_func(tt, "MPI_Init", NULL);
	uint32_t f_send = tt_func(tt, "MPI_Send", NULL);
	uint32_t f_recv = tt_func(tt, "MPI_Recv", NULL);
	uint32_t f_fin = tt_func(tt, "MPI_Finalize", NULL);
	struct fmt_buf none = {0}, file = {0};
	uint32_t s_init = tt_sig(tt, f_init, &none, 0);
	uint32_t s_send = tt_sig(tt, f_send, &none, 0);
	uint32_t s_recv = tt_sig(tt, f_recv, &none, 0);
	uint32_t s_fin = tt_sig(tt, f_fin, &none, 0);
	rondo_trace *t;
	uint64_t gstart = 32, gend = 0, stored = 0, raw = 0, *calls;
	uint32_t nlost_before = nranks + 1, ncut = 0, nlost_seen = 0;
	int zstd = 0;

	for (uint32_t r = 0; r < nranks; r++) {
		tt_call(tt, r, s_init, 1, 100);
		for (uint32_t i = 0; nranks <= 8 && i < 3 + r; i++) {
			tt_call(tt, r, s_send, 1, 10);
			tt_call(tt, r, s_recv, 1, 20);
		}
		if (nranks > 8) { /* a root of its own, in a few symbols */
			tt_call(tt, r, s_send, 3 + r, 10);
			tt_call(tt, r, s_recv, 1 + r % 7, 20);
		}
		tt_call(tt, r, s_fin, 1, 100);
	}
	t = tt_open(tt, &file, 0);
	CHECK(t != NULL);
	if (!t) {
		tt_free(tt);
		return;
	}
	calls = calloc(nranks, sizeof(*calls));
	for (uint32_t r = 0; r < nranks; r++)
		calls[r] = rondo_rank_calls(t, r);
	for (uint32_t i = 0; i < rondo_section_count(t); i++) {
		const char *name;

		rondo_section_info(t, i, &name, &stored, &raw);
		if (!strcmp(name, "grammar")) {
			gend = gstart + stored;
			zstd = stored != raw;
			break;
		}
		gstart += stored;
	}
	CHECK(rondo_group_count(t) == nranks && rondo_rank_lost(t, 0) == 0 &&
	      rondo_group_lost(t, 0) == 0);
	CHECKF(gend > gstart && zstd == (nranks > 8) &&
		       (!zstd || raw > 2 * FMT_GRAMMAR_BLOCK),
	       "grammar %llu-%llu, %s, %llu raw", (unsigned long long)gstart,
	       (unsigned long long)gend, zstd ? "zstd" : "raw",
	       (unsigned long long)raw);
	rondo_trace_free(t);
	for (uint64_t len = gstart; len <= gend;
	     len = len < gend && len + step > gend ? gend : len + step) {
		rondo_trace *u = rondo_trace_create();
		int rc = rondo_trace_open_memory(u, file.data, (size_t)len,
						 "cut.rondo");
		uint32_t nlost = 0, lost_groups = 0;
		char want[256], list[200];
		const char *d = NULL;

		CHECKF(rc == 0, "grammar cut at %llu of %llu-%llu: %s",
		       (unsigned long long)len, (unsigned long long)gstart,
		       (unsigned long long)gend, rondo_trace_error(u));
		if (rc) {
			rondo_trace_free(u);
			continue;
		}
		for (uint32_t r = 0; r < nranks; r++) {
			int lost = rondo_rank_lost(u, r);
			uint64_t n = rondo_rank_calls(u, r);
			rondo_iter *it =
				r % every ? NULL : rondo_iter_create(u, r);
			uint32_t sig;

			if (it)
				n = 0;
			while (it && rondo_iter_next(it, &sig) == 1)
				n++;
			rondo_iter_free(it);
			nlost += lost != 0;
			CHECKF(lost ? rondo_rank_calls(u, r) == 0 && n == 0
				    : rondo_rank_calls(u, r) == calls[r] &&
					       n == calls[r],
			       "cut at %llu: rank %u %s with %llu calls",
			       (unsigned long long)len, r,
			       lost ? "lost" : "kept", (unsigned long long)n);
		}
		for (uint32_t g = 0; g < rondo_group_count(u); g++)
			lost_groups += rondo_group_lost(u, g) != 0;
		CHECK(lost_groups == (nlost > 0));
		CHECKF(nlost <= nlost_before, "cut at %llu: %u lost, %u before",
		       (unsigned long long)len, nlost, nlost_before);
		nlost_before = nlost;
		for (uint32_t k = 0; rondo_trace_damage(u, k); k++)
			if (!strncmp(rondo_trace_damage(u, k),
				     "section 'grammar'", 17))
				d = rondo_trace_damage(u, k);
		lost_list(u, list, sizeof(list));
		if (len == gend)
			snprintf(want, sizeof(want), "(no note)");
		else if (!nlost)
			snprintf(want, sizeof(want),
				 "section 'grammar' cut by the end of the "
				 "file: no rank's calls lost");
		else
			snprintf(want, sizeof(want),
				 "section 'grammar' cut by the end of the "
				 "file: the calls of rank%s %s lost (%u of "
				 "%u)%s",
				 nlost == 1 ? "" : "s", list, nlost, nranks,
				 nlost < nranks ? ", the others' whole" : "");
		CHECKF(!strcmp(d ? d : "(no note)", want), "cut at %llu: %s",
		       (unsigned long long)len, d ? d : "(no note)");
		/* a new level of ranks kept: one more block came whole */
		ncut += nlost > 0 && nlost < nranks && nlost != nlost_seen;
		nlost_seen = nlost;
		rondo_trace_free(u);
	}
	/* some cuts keep some ranks: the roots come last; coded, a level a
	 * block of FMT_GRAMMAR_BLOCK (but the first and the last) */
	CHECKF(ncut > 0 && (!zstd || ncut + 1 >= raw / FMT_GRAMMAR_BLOCK),
	       "%u levels of ranks kept (%u ranks, %llu raw bytes)", ncut,
	       nranks, (unsigned long long)raw);
	free(calls);
	fmt_buf_free(&file);
	tt_free(tt);
}

int main(void)
{
	test_version();
	test_error_info();
	test_resolver();
	test_cart_peer();
	test_type_size();
	test_relative();
	test_vary();
	test_empty_rules();
	test_demo();
	test_random();
	test_summary();
	test_errors();
	test_cut_grammar(4, 1, 1);
	test_cut_grammar(30000, 1009, 997);
	return check_done("test_reader");
}
