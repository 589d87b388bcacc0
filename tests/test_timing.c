/*
 * test_timing.c - per-call timing: the log scale, the encoder, the
 * section and librondo's timed iterator, on the tests' writer's traces.
 *
 *  - codes: every duration and interval, of either sign, over the whole
 *    range, reads back never early and within b - 1 (+ 1 ns);
 *  - the encoder and the reader agree: known starts and durations read
 *    back within the documented bound, a rank that fell back has times
 *    for its first calls only, clock offsets are added, skipping decodes;
 *  - a file of format 1.6 (intervals from the signature's last start)
 *    reads as it was written;
 *  - the merge: timing through encoded ranges of ranks (the tracer's
 *    tree), ranks without timing and with another base;
 *  - damaged sections: a bad base, codes past the scale, sequences of
 *    unequal length or longer than the rank's calls, each refused with a
 *    message naming the section.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "grammar.h"
#include "merge.h"
#include "testtrace.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value spread over every order of magnitude up to 2^max. */
static uint64_t spread(unsigned max)
{
	unsigned bits = (unsigned)(next() % max);

	return next() & ((2ull << bits) - 1);
}

/* Codes of d and of +-d are the tightest of the scale: the smallest
 * code not below (a duration, a positive interval), the largest whose
 * magnitude rounded down is at most d (a negative interval). */
static void check_tightest(const struct fmt_tscale *sc, uint64_t d)
{
	uint32_t c = fmt_tcode_dur(sc, d), lim = fmt_tcode_limit(sc);
	int64_t x = d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	uint32_t pc = fmt_tcode_ival(sc, x), nc = fmt_tcode_ival(sc, -x);

	if (d == 0 || d > sc->up[sc->n - 1])
		return; /* 0, or past the scale's top */
	CHECKF(fmt_tvalue_dur(sc, c) >= d && fmt_tvalue_dur(sc, c - 1) < d,
	       "b %g: %" PRIu64 " -> code %u", sc->base, d, c);
	CHECKF(fmt_tvalue_ival(sc, pc) >= x && fmt_tvalue_ival(sc, pc - 2) < x,
	       "b %g: interval %" PRIu64 " -> code %u", sc->base, d, pc);
	CHECKF(fmt_tvalue_ival(sc, nc) >= -x &&
		       (nc + 2 >= lim || fmt_tvalue_ival(sc, nc + 2) < -x),
	       "b %g: interval -%" PRIu64 " -> code %u", sc->base, d, nc);
}

static void test_scale(double b)
{
	struct fmt_tscale sc;

	CHECK(fmt_tscale_init(&sc, b) == 0);
	for (int k = 0; k < 200000; k++) {
		uint64_t d = spread(60);
		uint32_t c = fmt_tcode_dur(&sc, d);
		uint64_t v = fmt_tvalue_dur(&sc, c);
		int64_t x = (int64_t)spread(60) * (next() & 1 ? 1 : -1);
		uint32_t ic = fmt_tcode_ival(&sc, x);
		int64_t iv = fmt_tvalue_ival(&sc, ic);

		CHECKF(c < fmt_tcode_limit(&sc) && v >= d &&
			       (double)v <
				       b * (double)d + 1.0 + 1e-9 * (double)d,
		       "b %g: duration %" PRIu64 " -> code %u -> %" PRIu64, b,
		       d, c, v);
		/* the smallest code that is not below d */
		CHECKF(c == 0 || fmt_tvalue_dur(&sc, c - 1) < d,
		       "b %g: %" PRIu64 " not the smallest code", b, d);
		if (x >= 0)
			CHECKF(iv >= x && (double)iv < b * (double)x + 1.0 +
							       1e-9 * (double)x,
			       "b %g: interval %" PRId64 " -> %" PRId64, b, x,
			       iv);
		else
			CHECKF(iv >= x && iv < 0 &&
				       (double)-iv > (double)-x / b - 1.0,
			       "b %g: interval %" PRId64 " -> %" PRId64, b, x,
			       iv);
	}
	/* every edge of the scale, and either side of it */
	for (uint32_t j = 1; j < sc.n; j++)
		for (int e = -1; e <= 1; e++) {
			check_tightest(&sc, sc.up[j] + (uint64_t)e);
			check_tightest(&sc, sc.down[j] + (uint64_t)e);
		}
	CHECK(fmt_tcode_dur(&sc, 0) == 0 && fmt_tcode_ival(&sc, 0) == 0);
	CHECK(fmt_tvalue_dur(&sc, 1) == 1 && fmt_tvalue_ival(&sc, 1) == 1 &&
	      fmt_tvalue_ival(&sc, 2) == -1);
	fmt_tscale_free(&sc);
}

/* Signatures of function f with an argument 0 .. n - 1, into sig[]. */
static void sigs_of(struct testtrace *tt, uint32_t f, uint32_t *sig, int n)
{
	for (int s = 0; s < n; s++) {
		struct fmt_buf a = {0};

		fmt_arg_put_sint(&a, RONDO_ARG_INT, s);
		sig[s] = tt_sig(tt, f, &a, 1);
		fmt_buf_free(&a);
	}
}

/* The calls of the traces below: rank r makes n calls of three
 * signatures, sig k % 3 for call k, at known times. */
struct known {
	uint32_t nranks, n;
	int64_t *start; /* [r * n + k] */
	uint64_t *dur;
};

static struct testtrace *known_trace(struct known *kn, double b,
				     uint32_t fell_back, int64_t offset)
{
	struct testtrace *tt = tt_create(kn->nranks);
	uint32_t f = tt_func(tt, "MPI_Barrier", "comm", NULL), sig[3];

	tt_timing(tt, b);
	sigs_of(tt, f, sig, 3);
	kn->start = malloc(sizeof(int64_t) * kn->nranks * kn->n);
	kn->dur = malloc(sizeof(uint64_t) * kn->nranks * kn->n);
	for (uint32_t r = 0; r < kn->nranks; r++) {
		int64_t t = -250000000 + (int64_t)r * 1000; /* MPI_Init */

		if (r == 1)
			tt_clock_offset(tt, r, offset);
		for (uint32_t k = 0; k < kn->n; k++) {
			uint64_t d = k == 0 ? 250000000 : next() % 50000;

			kn->start[r * kn->n + k] = t;
			kn->dur[r * kn->n + k] = d;
			if (r == fell_back && k >= kn->n / 2)
				tt_call(tt, r, sig[k % 3], 1, d);
			else
				tt_call_at(tt, r, sig[k % 3], t, d);
			t += (int64_t)d + (int64_t)(next() % 300000);
		}
	}
	return tt;
}

/* The file's header made to say version 1.minor (and its checksum). */
static void as_version(struct fmt_buf *file, unsigned minor)
{
	uint32_t crc;

	file->data[10] = (uint8_t)minor;
	file->data[11] = 0;
	crc = fmt_crc32c(0, file->data, 28);
	for (int j = 0; j < 4; j++)
		file->data[28 + j] = (uint8_t)(crc >> (8 * j));
}

/* tt's trace into file, opened as t: as written today (old 0), or in
 * the form and encoding of format 1.7 (old 7) or 1.9 (old 9: coded, the
 * models' centres fixed). */
static void open_as(struct testtrace *tt, int old, struct fmt_buf *file,
		    rondo_trace *t)
{
	struct fmt_writer w;

	if (old == 7)
		tt_timing_grammar(tt);
	if (old == 9)
		tt_timing_fixed(tt);
	fmt_writer_init(&w);
	CHECK(tt_finish(tt, &w, 0) == 0 && fmt_writer_finish(&w, file) == 0);
	fmt_writer_free(&w);
	if (old)
		as_version(file, (unsigned)old);
	CHECK(rondo_trace_open_memory(t, file->data, file->len, "t.rondo") ==
	      0);
}

/* Known times read back within their bounds: in a coded stream (old 0,
 * or 9 for 1.9's coder), or in a file of format 1.7 whose section is a
 * grammar of codes (old 7). */
static void test_roundtrip(double b, int old)
{
	struct known kn = {3, 5000, NULL, NULL};
	struct testtrace *tt = known_trace(&kn, b, 2, 777777);
	struct fmt_buf file = {0};
	rondo_trace *t = rondo_trace_create();
	double base = 0;
	unsigned major = 0, minor = 0;

	open_as(tt, old, &file, t);
	rondo_format_version(t, &major, &minor);
	CHECK(major == 1 &&
	      minor == (old ? (unsigned)old : RONDO_FORMAT_MINOR));

	CHECK(rondo_timing_mode(t, &base) == RONDO_TIMING_PERCALL && base == b);
	CHECK(rondo_rank_clock_offset(t, 1) == 777777);
	CHECK(rondo_rank_timed_calls(t, 0) == kn.n &&
	      rondo_rank_timed_calls(t, 2) == kn.n / 2);
	for (uint32_t r = 0; r < kn.nranks; r++) {
		rondo_iter *it = rondo_iter_create_timed(t, r);
		int64_t last = r == 1 ? 777777 : 0, bound = 0, dbound = 0;
		int64_t worst_first = 0, worst_last = 0, last_s = INT64_MIN;
		uint32_t sig, k = 0, bad = 0;
		/* the tracer's encoder, run here on the true times: each
		 * start's bound is at most its own code's */
		struct fmt_tscale sc;
		struct fmt_tenc enc = {&sc, 0, 0, 0};

		CHECK(fmt_tscale_init(&sc, b) == 0);

		CHECK(it != NULL);
		CHECK(rondo_iter_time(it, NULL, NULL) == RONDO_E_STATE);
		CHECK(rondo_iter_time_bound(it, NULL, NULL) == RONDO_E_STATE);
		while (it && rondo_iter_next(it, &sig) == 1) {
			int64_t s, e, ts = kn.start[r * kn.n + k];
			int64_t serr = -1, derr = -1;
			uint64_t d = kn.dur[r * kn.n + k];
			int rc = rondo_iter_time(it, &s, &e);

			if (r == 2 && k >= kn.n / 2) {
				bad += rc != RONDO_E_MISSING;
				bad += rondo_iter_time_bound(it, &serr,
							     &derr) !=
				       RONDO_E_MISSING;
				k++;
				continue;
			}
			if (old == 7) {
				/* the bound of 1.7: a share of the gap from
				 * the previous end read back, or where the
				 * call reads as that end, the previous
				 * start's and end's */
				if (k == 0 || s != last)
					bound = (int64_t)ceil(
							(b - 1) *
							(double)(s > last
									 ? s - last
									 : last - s)) +
						(s < last ? (int64_t)ceil(b)
							  : 1);
				else
					bound = dbound;
				dbound = bound +
					 (int64_t)ceil((b - 1) *
						       (double)(e - s)) +
					 1;
			} else {
				/* from 1.9: at most the start's own code's */
				uint32_t dc, ic;
				int64_t iv = 0;

				fmt_tenc_call(&enc, ts - (r == 1 ? 777777 : 0),
					      d, &dc, &ic);
				iv = fmt_tvalue_ival(&sc, ic);
				bound = (int64_t)ceil(
						(b - 1) *
						(double)(iv < 0 ? -iv : iv)) +
					(iv < 0 ? (int64_t)ceil(b) : 1);
				dbound = INT64_MAX;
			}
			/* never early, within the bounds, in order */
			if (rc != 0 ||
			    rondo_iter_time_bound(it, &serr, &derr) != 0 ||
			    (old == 7 ? serr != bound || derr != dbound
				      : serr > bound) ||
			    s < ts || s - ts >= serr || (k > 0 && s < last) ||
			    s < last_s || e < s || e < ts + (int64_t)d ||
			    e - ts - (int64_t)d >= derr)
				if (bad++ < 3)
					fprintf(stderr,
						"rank %u call %u: read "
						"%" PRId64 "+%" PRId64
						" (bounds %" PRId64 ", %" PRId64
						"), was %" PRId64 "+%" PRIu64
						"\n",
						r, k, s, e - s, serr, derr, ts,
						d);
			last = e;
			last_s = s;
			if (k < 1000 && s - ts > worst_first)
				worst_first = s - ts;
			if (k + 1000 >= kn.n && s - ts > worst_last)
				worst_last = s - ts;
			k++;
		}
		CHECKF(bad == 0, "b %g rank %u: %u calls off", b, r, bad);
		CHECK(k == kn.n);
		/* no drift: the end of the run no worse than any interval
		 * allows (a signature every third call: at most 3 x 350 us) */
		if (r != 2)
			CHECKF(worst_last <= (int64_t)((b - 1) * 1050000) + 1,
			       "b %g rank %u: %" PRId64 " ns late at the end",
			       b, r, worst_last);
		rondo_iter_free(it);
		fmt_tscale_free(&sc);
	}
	/* skipping decodes the calls it passes over */
	{
		rondo_iter *a = rondo_iter_create_timed(t, 1);
		rondo_iter *c = rondo_iter_create_timed(t, 1);
		int64_t s1, s2;
		uint32_t sig;

		for (int k = 0; k < 1234; k++)
			rondo_iter_next(a, &sig);
		CHECK(rondo_iter_skip(c, 1233) == 0 &&
		      rondo_iter_next(c, &sig) == 1);
		CHECK(rondo_iter_time(a, &s1, NULL) == 0 &&
		      rondo_iter_time(c, &s2, NULL) == 0 && s1 == s2);
		CHECK(rondo_iter_skip(c, 10 * kn.n) == RONDO_E_RANGE);
		rondo_iter_free(a);
		rondo_iter_free(c);
	}
	rondo_trace_free(t);
	fmt_buf_free(&file);
	tt_free(tt);
	free(kn.start);
	free(kn.dur);
}

/* A trace without the section: no timed iterator. */
static void test_aggregated(void)
{
	struct testtrace *tt = tt_demo(4, 3);
	struct fmt_buf file = {0};
	rondo_trace *t = tt_open(tt, &file, 0);
	double b = 1;

	CHECK(rondo_timing_mode(t, &b) == RONDO_TIMING_AGGREGATED && b == 0);
	CHECK(rondo_iter_create_timed(t, 0) == NULL);
	CHECK(rondo_rank_timed_calls(t, 0) == 0);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	tt_free(tt);
}

/* A rank's coded stream: n calls of signatures k % nsig, codes k % m + 1
 * and k % 2 + 1. */
static void codes(struct fmt_buf *b, uint32_t n, uint32_t m, uint32_t nsig)
{
	struct fmt_tstream ts;

	b->len = 0;
	fmt_tstream_encoder(&ts, b);
	for (uint32_t k = 0; k < n; k++)
		CHECK(fmt_tstream_put(&ts, k % nsig, k % m + 1, k % 2 + 1) ==
		      0);
	CHECK(fmt_tstream_end(&ts) == 0);
	fmt_tstream_free(&ts);
}

/* A call grammar of n calls of signature 0. */
static void calls(struct fmt_grammar *g, uint32_t n)
{
	struct grammar *e = grammar_create();

	for (uint32_t k = 0; k < n; k++)
		grammar_append(e, 0, 1);
	CHECK(grammar_export(e, g) == 0);
	grammar_free(e);
}

/* The coder alone: codes of every size and signature read back as
 * written, the stream costs about what their spread is worth, and a
 * stream cut short or damaged is not read past its end. */
static void test_coder(void)
{
	enum { N = 20000 };
	static uint32_t sig[N], dc[N], ic[N];
	struct fmt_buf b = {0};
	struct fmt_tstream ts;
	uint32_t bad = 0, k, d, i;
	int rc = 0;

	for (k = 0; k < N; k++) {
		sig[k] = (uint32_t)(next() % 7) * 1000; /* sparse ids */
		/* most calls near a usual code, some anywhere to 2^17 */
		dc[k] = next() % 16 ? 200 + (uint32_t)(next() % 5)
				    : (uint32_t)(next() % (1u << 17));
		ic[k] = k % 97 ? (uint32_t)(next() % 3) : 131071;
	}
	fmt_tstream_encoder(&ts, &b);
	for (k = 0; k < N; k++)
		CHECK(fmt_tstream_put(&ts, sig[k], dc[k], ic[k]) == 0);
	CHECK(fmt_tstream_end(&ts) == 0 && ts.calls == N);
	fmt_tstream_free(&ts);
	/* durations: 15/16 one of 5 codes, 1/16 of 17 bits (3.6 bits);
	 * intervals one of 3 (1.6 bits): 5.2 bits a call at best, 6.7 as
	 * the models learn; raw, 35 bits */
	CHECKF(b.len < N, "%zu bytes for %u calls", b.len, N);
	fmt_tstream_decoder(&ts, b.data, b.len);
	for (k = 0; k < N && rc == 0; k++) {
		rc = fmt_tstream_get(&ts, sig[k], &d, &i);
		bad += rc != 0 || d != dc[k] || i != ic[k];
	}
	CHECKF(bad == 0 && ts.pos <= b.len, "%u calls read back wrong", bad);
	fmt_tstream_free(&ts);
	/* cut short: an error before the end, never a read past it */
	for (size_t cut = 0; cut < b.len; cut += 1 + cut / 3) {
		fmt_tstream_decoder(&ts, b.data, cut);
		for (k = 0, rc = 0; k < N && rc == 0; k++)
			rc = fmt_tstream_get(&ts, sig[k], &d, &i);
		CHECKF(rc == RONDO_E_CORRUPT, "cut at %zu of %zu: %d", cut,
		       b.len, rc);
		fmt_tstream_free(&ts);
	}
	/* a byte changed: whatever it reads, it stops at the end */
	b.data[b.len / 2] ^= 0x5a;
	fmt_tstream_decoder(&ts, b.data, b.len);
	for (k = 0, rc = 0; k < N && rc == 0; k++)
		rc = fmt_tstream_get(&ts, sig[k], &d, &i);
	CHECK(ts.pos <= b.len + 5);
	fmt_tstream_free(&ts);
	fmt_buf_free(&b);
}

/* The coder's two ways with a model's centre, on signatures whose first
 * call is unlike the rest (code 240, 17 times as long as the rest at
 * b = 1.1, then 200 to 204): each reads back only as written; following
 * the median for a while (1.10) the later calls cost less than from a
 * centre fixed at the first code (1.8 and 1.9). */
static void test_coder_centre(void)
{
	enum { N = 20000 };
	static uint32_t sig[N], dc[N], ic[N];
	struct fmt_buf b[2] = {{0}, {0}};
	struct fmt_tstream ts;
	uint32_t bad[2][2] = {{0}}, k, d, i;

	for (k = 0; k < N; k++) {
		sig[k] = k % 3;
		dc[k] = k < 3 ? 240 : 200 + (uint32_t)(next() % 5);
		ic[k] = k < 3 ? 50 : 10 + (uint32_t)(next() % 2);
	}
	for (int fixed = 0; fixed < 2; fixed++)
		CHECK(fmt_tstream_code(&b[fixed], N, sig, dc, ic, fixed) == 0);
	CHECKF(b[0].len < b[1].len, "following: %zu bytes, fixed: %zu bytes",
	       b[0].len, b[1].len);
	for (int fixed = 0; fixed < 2; fixed++)
		for (int as = 0; as < 2; as++) {
			fmt_tstream_decoder(&ts, b[fixed].data, b[fixed].len);
			ts.fixed = as;
			for (k = 0; k < N; k++)
				bad[fixed][as] +=
					fmt_tstream_get(&ts, sig[k], &d, &i) !=
						0 ||
					d != dc[k] || i != ic[k];
			fmt_tstream_free(&ts);
		}
	CHECKF(bad[0][0] == 0 && bad[1][1] == 0 && bad[0][1] > N / 2 &&
		       bad[1][0] > N / 2,
	       "calls read back wrong: %u %u (as written), %u %u (not)",
	       bad[0][0], bad[1][1], bad[0][1], bad[1][0]);
	fmt_buf_free(&b[0]);
	fmt_buf_free(&b[1]);
}

/* The tracer's tree: ranks 0-1 in one merge, 2-3 in another (rank 3
 * without timing), 4 with another base; then merged as the tracer does. */
static void test_merge_tree(void)
{
	struct merge *m[3] = {merge_create(), merge_create(), merge_create()};
	struct fmt_grammar call;
	struct fmt_timing tm;
	struct fmt_buf b = {0}, d = {0};
	uint32_t sizes[3] = {2, 2, 1};

	static struct fmt_sig sig[2] = {{1, 0, 0, NULL}, {2, 0, 0, NULL}};
	struct fmt_cst cst = {2, sig, NULL};
	struct fmt_stats st = {0, NULL};

	calls(&call, 10);
	codes(&d, 10, 3, 1);
	for (int k = 0; k < 3; k++) {
		CHECK(merge_set_timing(m[k], k == 2 ? 1.5 : 1.1) == 0);
		for (uint32_t r = 0; r < sizes[k]; r++) {
			CHECK(merge_add_rank(m[k], &cst, &call, &st) == 0);
			if (!(k == 1 && r == 1))
				CHECK(merge_add_timing(m[k], d.data, d.len, 10,
						       100 + 2 * k + r) == 0);
		}
	}
	CHECK(merge_set_timing(m[0], 1.2) == RONDO_E_STATE);
	for (int k = 1; k < 3; k++) {
		b.len = 0;
		CHECK(merge_encode(m[k], &b) == 0);
		CHECK(merge_add_encoded(m[0], b.data, b.len, sizes[k], 8, 5) ==
		      0);
	}
	CHECK(merge_ranks(m[0]) == 5 && merge_failed(m[0]) == 0);
	CHECK(merge_timing(m[0], &tm) == 0);
	CHECK(tm.nranks == 5 && tm.base == 1.1 && tm.coded);
	CHECK(tm.offset[0] == 100 && tm.offset[1] == 101 &&
	      tm.offset[2] == 102 && tm.offset[3] == 0 && tm.offset[4] == 0);
	/* the section as a reader checks it, and each rank's segments */
	{
		struct fmt_buf s = {0};
		struct fmt_timing back;
		struct fmt_err e;

		fmt_timing_encode(&s, &tm);
		CHECK(fmt_timing_decode(&back, s.data, s.len, 5, &e) == 0);
		for (uint32_t r = 0; r < 5; r++) {
			uint64_t want = r == 3 || r == 4 ? 0 : 1;
			uint64_t n = back.first[r + 1] - back.first[r];

			CHECKF(n == want, "rank %u: %" PRIu64 " segments", r,
			       n);
			/* the bytes as the rank wrote them */
			for (uint64_t k = back.first[r]; k < back.first[r + 1];
			     k++)
				CHECK(back.seg[k].calls == 10 &&
				      back.seg[k].len == d.len &&
				      !memcmp(back.data + back.seg[k].at,
					      d.data, d.len));
		}
		fmt_timing_free(&back);
		CHECK(fmt_timing_decode(&back, s.data, s.len, 4, &e) ==
		      RONDO_E_CORRUPT);
		fmt_buf_free(&s);
	}
	fmt_timing_free(&tm);
	fmt_buf_free(&b);
	fmt_buf_free(&d);
	fmt_grammar_free(&call);
	for (int k = 0; k < 3; k++)
		merge_free(m[k]);
}

/* Opens a known trace whose timing section is `patch`: the error; with
 * bad, how many of rank 0's timed calls read before an error (or -1). */
static int open_patched(const struct fmt_buf *patch, char *why, size_t n,
			int64_t *read)
{
	struct known kn = {2, 40, NULL, NULL};
	struct testtrace *tt = known_trace(&kn, 1.1, UINT32_MAX, 0);
	struct tt_patch p = {FMT_SEC_TIMING, patch};
	struct fmt_writer w;
	struct fmt_buf file = {0};
	rondo_trace *t = rondo_trace_create();
	int rc;

	fmt_writer_init(&w);
	CHECK(tt_finish_patched(tt, &w, 0, &p, 1) == 0 &&
	      fmt_writer_finish(&w, &file) == 0);
	rc = rondo_trace_open_memory(t, file.data, file.len, "t.rondo");
	snprintf(why, n, "%s", rondo_trace_error(t));
	if (read && rc == 0) {
		rondo_iter *it = rondo_iter_create_timed(t, 0);
		uint32_t sig;
		int k;

		*read = 0;
		while (it && (k = rondo_iter_next(it, &sig)) == 1)
			(*read)++;
		if (!it || k < 0)
			*read = -*read - 1;
		rondo_iter_free(it);
	}
	rondo_trace_free(t);
	fmt_writer_free(&w);
	fmt_buf_free(&file);
	tt_free(tt);
	free(kn.start);
	free(kn.dur);
	return rc;
}

/* A section of nranks ranks, base b, each rank's n[r] calls' codes
 * (durations k % code + 1). */
static void section(struct fmt_buf *s, double b, uint32_t nranks,
		    const uint32_t *n, uint32_t code)
{
	struct merge *m = merge_create();
	struct fmt_grammar call;
	struct fmt_buf d = {0};
	struct fmt_timing tm;

	calls(&call, 40);
	CHECK(merge_set_timing(m, b) == 0);
	for (uint32_t r = 0; r < nranks; r++) {
		CHECK(merge_add_grammar(m, &call) == 0);
		codes(&d, n[r], code, 3); /* the known trace's */
		CHECK(merge_add_timing(m, d.data, d.len, n[r], 0) == 0);
	}
	CHECK(merge_timing(m, &tm) == 0);
	fmt_timing_encode(s, &tm);
	fmt_timing_free(&tm);
	fmt_grammar_free(&call);
	fmt_buf_free(&d);
	merge_free(m);
}

/* A trace whose timing section is *s is refused with a message naming the
 * section and saying `what`; *s is freed. */
static void refused(struct fmt_buf *s, const char *what)
{
	char why[512];

	CHECKF(open_patched(s, why, sizeof(why), NULL) == RONDO_E_CORRUPT &&
		       strstr(why, "section 'timing'") && strstr(why, what),
	       "want '%s': %s", what, why);
	fmt_buf_free(s);
}

static void test_damaged(void)
{
	uint32_t ok[2] = {40, 40}, longer[2] = {40, 41};
	struct fmt_buf s = {0};
	char why[512];
	int64_t read = 0;

	section(&s, 1.1, 2, ok, 2);
	CHECK(open_patched(&s, why, sizeof(why), &read) == 0 && read == 40);
	fmt_buf_free(&s);
	/* the base, written as 1.0005 */
	section(&s, 1.1, 2, ok, 2);
	{
		double v = 1.0005;

		memcpy(s.data + 1, &v, 8);
	}
	refused(&s, "base");
	section(&s, 1.1, 2, longer, 2);
	refused(&s, "rank 1 has 41 timed calls for 40 calls");
	/* unknown flags */
	section(&s, 1.1, 2, ok, 2);
	s.data[0] = 2;
	refused(&s, "flags 2");
	/* a byte more than the segments hold */
	section(&s, 1.1, 2, ok, 2);
	fmt_put_u8(&s, 0);
	refused(&s, "the segments hold");
	/* codes past the scale of base 16 (J is 17): read as damage when
	 * the iterator comes to them, after the calls before */
	section(&s, 16, 2, ok, 40);
	read = 0;
	CHECKF(open_patched(&s, why, sizeof(why), &read) == 0 && read < 0 &&
		       read > -41,
	       "codes past the scale: %s, %lld read", why, (long long)read);
	fmt_buf_free(&s);
	/* one rank for a job of two */
	section(&s, 1.1, 1, ok, 2);
	refused(&s, "1 ranks, the job had 2");
	/* every truncation */
	section(&s, 1.1, 2, ok, 2);
	for (size_t n = 0; n < s.len; n++) {
		struct fmt_buf cut = {0};
		int rc;

		fmt_put_bytes(&cut, s.data, n);
		rc = open_patched(&cut, why, sizeof(why), NULL);
		CHECKF(rc == RONDO_E_TRUNCATED || rc == RONDO_E_CORRUPT,
		       "cut at %zu of %zu: %d", n, s.len, rc);
		fmt_buf_free(&cut);
	}
	/* each byte of the streams changed: opened, read without harm */
	for (size_t k = s.len - 1; k > s.len / 2; k--) {
		struct fmt_buf bent = {0};

		fmt_put_bytes(&bent, s.data, s.len);
		bent.data[k] ^= 0xff;
		CHECK(open_patched(&bent, why, sizeof(why), &read) == 0);
		fmt_buf_free(&bent);
	}
	fmt_buf_free(&s);
}

/* A file of format 1.6, whose intervals count from the previous start of
 * the same signature (else the rank's last end), of either sign: read as
 * it was written, within that format's bound.  The file is the writer's
 * with the old codes and the header's minor version (and checksum) made
 * 6.  Its calls have the shape of a long-interval signature between short
 * calls (LAMMPS's): some starts read before the start of the call before
 * them there; written today, none does, and none starts before the
 * previous call ends. */
static void test_format_1_6(double b)
{
	struct testtrace *tt = tt_create(1);
	uint32_t f = tt_func(tt, "MPI_Barrier", "comm", NULL), sig[2];
	struct fmt_tscale sc;
	int64_t prev[2] = {INT64_MIN, INT64_MIN}, last = 0;
	int64_t start[400];
	uint64_t dur[400];
	struct fmt_buf file = {0};
	rondo_trace *t = rondo_trace_create();
	rondo_iter *it;
	uint32_t n = 400, bad = 0, k = 0, decreasing = 0, sg;
	int64_t last_start = 0;
	unsigned major = 0, minor = 0;

	tt_timing(tt, b);
	tt_timing_grammar(tt);
	CHECK(fmt_tscale_init(&sc, b) == 0);
	sigs_of(tt, f, sig, 2);
	for (uint32_t i = 0, t0 = 1000; i < n; i++) {
		/* signature 1 every tenth call, between short calls: its
		 * interval is ten calls long */
		uint32_t s = i % 10 == 9;
		int64_t ref = prev[s] != INT64_MIN ? prev[s] : last;
		uint32_t dc, ic;

		start[i] = t0;
		dur[i] = 1000 + next() % 2000;
		ic = fmt_tcode_ival(&sc, start[i] - ref);
		dc = fmt_tcode_dur(&sc, dur[i]);
		prev[s] = ref + fmt_tvalue_ival(&sc, ic);
		last = prev[s] + (int64_t)fmt_tvalue_dur(&sc, dc);
		tt_call_codes(tt, 0, sig[s], dur[i], dc, ic);
		t0 += (uint32_t)dur[i] + 100 + (uint32_t)(next() % 200);
	}
	{
		struct fmt_writer w;

		fmt_writer_init(&w);
		CHECK(tt_finish(tt, &w, 0) == 0 &&
		      fmt_writer_finish(&w, &file) == 0);
		fmt_writer_free(&w);
	}
	as_version(&file, 6);
	CHECK(rondo_trace_open_memory(t, file.data, file.len, "old.rondo") ==
	      0);
	rondo_format_version(t, &major, &minor);
	CHECK(major == 1 && minor == 6);
	it = rondo_iter_create_timed(t, 0);
	CHECK(it != NULL);
	prev[0] = prev[1] = INT64_MIN;
	last = 0;
	while (it && rondo_iter_next(it, &sg) == 1 && k < n) {
		uint32_t s = sg == sig[1];
		int64_t st, e, serr, derr,
			ref = prev[s] != INT64_MIN ? prev[s] : last;
		int64_t span;

		CHECK(rondo_iter_time(it, &st, &e) == 0 &&
		      rondo_iter_time_bound(it, &serr, &derr) == 0);
		span = st - ref < 0 ? ref - st : st - ref;
		if (st < start[k] || st - start[k] >= serr ||
		    serr != (int64_t)ceil((b - 1) * (double)span) +
				    (st < ref ? (int64_t)ceil(b) : 1) ||
		    e - st < (int64_t)dur[k] ||
		    e - start[k] - (int64_t)dur[k] >= derr)
			bad++;
		decreasing += k > 0 && st < last_start;
		last_start = st;
		prev[s] = st;
		last = e;
		k++;
	}
	CHECKF(bad == 0 && k == n, "b %g, format 1.6: %u of %u calls off", b,
	       bad, k);
	rondo_iter_free(it);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	fmt_tscale_free(&sc);
	tt_free(tt);
	CHECKF(decreasing > 0,
	       "b %g, format 1.6: no start read before the one before it", b);
	/* the same calls written today: in order, none overlapping */
	tt = tt_create(1);
	f = tt_func(tt, "MPI_Barrier", "comm", NULL);
	tt_timing(tt, b);
	sigs_of(tt, f, sig, 2);
	for (uint32_t i = 0; i < n; i++)
		tt_call_at(tt, 0, sig[i % 10 == 9], start[i], dur[i]);
	memset(&file, 0, sizeof(file));
	t = tt_open(tt, &file, 0);
	it = rondo_iter_create_timed(t, 0);
	bad = k = 0;
	last = INT64_MIN;
	while (it && rondo_iter_next(it, &sg) == 1 && k < n) {
		int64_t st, e;

		CHECK(rondo_iter_time(it, &st, &e) == 0);
		bad += st < start[k] || st < last ||
		       e < start[k] + (int64_t)dur[k];
		last = e;
		k++;
	}
	CHECKF(bad == 0 && k == n, "b %g, today: %u of %u calls out of order",
	       b, bad, k);
	rondo_iter_free(it);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	tt_free(tt);
}

/* A long first call read long, then 20 000 calls back to back (the shape
 * of MPI_Init followed by a tight loop): the init's duration just above
 * an edge of its code, so that it is recorded about b times too long, and
 * each loop call 500 to 2000 ns with gaps of 50 to 200 ns.  Written in
 * 1.7's encoding (old) every call reads at least as late as that excess
 * until the loop's time catches up with it; written today, the lateness
 * is gone within a few calls: from the 100th on, no call reads more than
 * 1 us late (33 ns at b = 1.1), each within its stated bound, in order. */
static void test_no_carry(double b, int old)
{
	const uint32_t n = 20001;
	struct testtrace *tt = tt_create(1);
	uint32_t f = tt_func(tt, "MPI_Barrier", "comm", NULL), sig[4], sg;
	int64_t *start = malloc(sizeof(int64_t) * n), t0 = 0, last = INT64_MIN,
		last_s = INT64_MIN, worst = 0, late_sum = 0;
	uint64_t *dur = malloc(sizeof(uint64_t) * n);
	struct fmt_buf file = {0};
	struct fmt_tscale sc;
	rondo_trace *t = rondo_trace_create();
	rondo_iter *it;
	uint32_t k = 0, bad = 0, j = 1;

	CHECK(fmt_tscale_init(&sc, b) == 0);
	while (sc.up[j] < 370000000)
		j++;
	tt_timing(tt, b);
	sigs_of(tt, f, sig, 4);
	dur[0] = sc.up[j - 1] + 1; /* recorded as up[j], about b times it */
	start[0] = -(int64_t)dur[0];
	tt_call_at(tt, 0, sig[0], start[0], dur[0]);
	for (uint32_t i = 1; i < n; i++) {
		t0 += 50 + (int64_t)(next() % 150);
		start[i] = t0;
		dur[i] = 500 + next() % 1500;
		t0 += (int64_t)dur[i];
		tt_call_at(tt, 0, sig[1 + i % 3], start[i], dur[i]);
	}
	open_as(tt, old, &file, t);
	it = rondo_iter_create_timed(t, 0);
	CHECK(it != NULL);
	while (it && rondo_iter_next(it, &sg) == 1 && k < n) {
		int64_t s, e, serr, eerr, late;

		CHECK(rondo_iter_time(it, &s, &e) == 0 &&
		      rondo_iter_time_bound(it, &serr, &eerr) == 0);
		late = s - start[k];
		bad += late < 0 || late >= serr || s < last || s < last_s ||
		       e < start[k] + (int64_t)dur[k] ||
		       e - start[k] - (int64_t)dur[k] >= eerr;
		if (k >= 100) {
			worst = late > worst ? late : worst;
			late_sum += late;
		}
		last = e;
		last_s = s;
		k++;
	}
	CHECKF(bad == 0 && k == n, "b %g, 1.%u: %u of %u calls off", b,
	       old ? (unsigned)old : RONDO_FORMAT_MINOR, bad, k);
	if (old == 7)
		/* the excess (b - 1) x 370 ms carried: over 1 ms on average */
		CHECKF(late_sum / (n - 100) > 1000000,
		       "b %g, 1.7: mean lateness %lld ns", b,
		       (long long)(late_sum / (n - 100)));
	else
		CHECKF(worst <= 1000,
		       "b %g: a call from the 100th on reads %lld ns late", b,
		       (long long)worst);
	rondo_iter_free(it);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	fmt_tscale_free(&sc);
	tt_free(tt);
	free(start);
	free(dur);
}

int main(void)
{
	test_scale(1.001);
	test_scale(1.01);
	test_scale(1.1);
	test_scale(1.5);
	test_scale(16);
	test_roundtrip(1.01, 0);
	test_roundtrip(1.1, 0);
	test_roundtrip(1.5, 0);
	test_roundtrip(1.1, 7);
	test_no_carry(1.01, 0);
	test_no_carry(1.1, 0);
	test_no_carry(1.5, 0);
	test_no_carry(1.1, 7);
	test_coder();
	test_format_1_6(1.1);
	test_format_1_6(1.5);
	test_aggregated();
	test_merge_tree();
	test_damaged();
	/* 1.9's coder, after the others: they draw the same numbers as
	 * before it came */
	test_roundtrip(1.1, 9);
	test_no_carry(1.1, 9);
	test_coder_centre();
	return check_done("test_timing");
}
