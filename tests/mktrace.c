/*
 * mktrace.c - writes test traces: the demo job, a job with per-call times
 * known to the nanosecond, and the corpus of damaged files the reader must
 * refuse cleanly.
 *
 *   mktrace [--ranks P] [--iters N] [--future] [--cut RANKS=ENDING]... OUT
 *   mktrace --timed [--ranks P] OUT
 *   mktrace --late OUT
 *   mktrace --peers OUT
 *   mktrace --replay deadlock|unknown OUT
 *   mktrace --corpus DIR
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "testtrace.h"
#include "util.h"

static void le_put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t le_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Recomputes the header CRC and the table CRC after an edit, so a damaged
 * field is caught by its own check, not by a checksum. */
static void fix_crcs(uint8_t *f, size_t size)
{
	uint64_t tab = le_get(f + 16, 8), n = le_get(f + 12, 4);

	le_put(f + 28, fmt_crc32c(0, f, 28), 4);
	if (tab + n * FMT_ENTRY_SIZE + 4 <= size)
		le_put(f + tab + n * FMT_ENTRY_SIZE,
		       fmt_crc32c(0, f + tab, n * FMT_ENTRY_SIZE), 4);
}

/* Byte offset of section table entry i. */
static size_t entry_at(const uint8_t *f, uint32_t i)
{
	return le_get(f + 16, 8) + (size_t)i * FMT_ENTRY_SIZE;
}

static int entry_of(const uint8_t *f, uint32_t type)
{
	for (uint32_t i = 0; i < le_get(f + 12, 4); i++)
		if (le_get(f + entry_at(f, i), 4) == type)
			return (int)i;
	return -1;
}

static int write_file(const char *dir, const char *name, const void *p,
		      size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "mktrace: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Saves tt as dir/name; 0 or -1 (tt_save says why). */
static int tt_save_in(struct testtrace *tt, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return tt_save(tt, path) == 0 ? 0 : -1;
}

/* The demo trace with the payloads of the sections in `patch` replaced
 * (added when the demo has none; left out when NULL). */
static int with_patches(const char *dir, const char *name,
			const struct tt_patch *patch, int npatch)
{
	struct testtrace *tt = tt_demo(4, 10);
	struct fmt_writer w;
	struct fmt_buf out = {0};
	int rc;

	fmt_writer_init(&w);
	rc = tt_finish_patched(tt, &w, 0, patch, npatch);
	rc = rc ? rc : fmt_writer_finish(&w, &out);
	if (rc == 0)
		rc = write_file(dir, name, out.data, out.len);
	fmt_buf_free(&out);
	fmt_writer_free(&w);
	tt_free(tt);
	return rc;
}

/* The demo trace with one section's payload replaced by `payload`, or
 * left out when it is NULL. */
static int with_payload(const char *dir, const char *name, uint32_t type,
			const struct fmt_buf *payload)
{
	struct tt_patch patch = {type, payload};

	return with_patches(dir, name, &patch, 1);
}

/* The demo trace with a section ranksum of `payload` instead of its
 * ranktime (the reader reads ranksum only in a file without ranktime). */
static int with_ranksum(const char *dir, const char *name,
			const struct fmt_buf *payload)
{
	struct tt_patch patch[2] = {{FMT_SEC_RANKTIME, NULL},
				    {FMT_SEC_RANKSUM, payload}};

	return with_patches(dir, name, patch, 2);
}

/* The start of a summary of per-rank times: nranks, k, and every rank's
 * MPI time 0 ns (base 0, each 0 above it). */
static void ranksum_head(struct fmt_buf *b, uint32_t nranks, uint32_t k)
{
	fmt_put_uvarint(b, nranks);
	fmt_put_uvarint(b, k);
	for (uint32_t r = 0; r <= nranks; r++)
		fmt_put_uvarint(b, 0);
}

/* Damaged summaries of per-rank times for the demo's 4 ranks: a
 * signature the job does not have; the two slowest of a signature listed
 * fastest first; the MPI times of 3 ranks. */
static int corpus_ranksum(const char *dir)
{
	struct fmt_buf b = {0};
	int rc;

	ranksum_head(&b, 4, 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 500); /* the signature */
	fmt_put_uvarint(&b, 1);	  /* ranks that called it */
	fmt_put_uvarint(&b, 10);  /* their sum, ns */
	fmt_put_uvarint(&b, 0);	  /* rank 0 slowest, at 10 ns */
	fmt_put_uvarint(&b, 10);
	fmt_put_uvarint(&b, 1); /* one bin: 1 (8 to 15 ns), one rank */
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1);
	rc = with_ranksum(dir, "ranksum-bad-sig.rondo", &b);
	/* k = 2: signature 0's two ranks, slowest first, are 0 (10 ns)
	 * and 1 (20 ns) */
	b.len = 0;
	ranksum_head(&b, 4, 2);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 30);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 10);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 20);
	fmt_put_uvarint(&b, 2); /* bins 1 and 2, a rank each */
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	rc |= with_ranksum(dir, "ranksum-order.rondo", &b);
	/* 3 ranks of the 4, no signature */
	b.len = 0;
	ranksum_head(&b, 3, 1);
	fmt_put_uvarint(&b, 0);
	rc |= with_ranksum(dir, "ranksum-ranks.rondo", &b);
	fmt_buf_free(&b);
	return rc;
}

/* Damaged per-call timing for the demo's 4 ranks, in the form of format
 * 1.7 (a grammar of codes, still read): a base out of range, and rank 0
 * with 3 durations but 2 intervals. */
static int corpus_timing(const char *dir)
{
	uint32_t first[3] = {0, 1, 2}, mfirst[2] = {0, 8};
	rondo_sym body[2] = {{1, 0, 3}, {1, 0, 2}}, map[8];
	struct fmt_timing t = {.base = 0.5,
			       .nranks = 4,
			       .g = {2, first, body},
			       .map = {8, {1, mfirst, map}, NULL}};
	int64_t offset[4] = {0, 0, 0, 0};
	struct fmt_buf b = {0};
	int rc;

	t.offset = offset;
	for (int k = 0; k < 8; k++)
		map[k] = (rondo_sym){k == 1, 0, 1};
	fmt_timing_encode(&b, &t);
	rc = with_payload(dir, "timing-bad-base.rondo", FMT_SEC_TIMING, &b);
	b.len = 0;
	t.base = 1.1;
	fmt_timing_encode(&b, &t);
	rc |= with_payload(dir, "timing-unequal.rondo", FMT_SEC_TIMING, &b);
	fmt_buf_free(&b);
	return rc;
}

/* Damaged payloads: each breaks one rule the decoders check. */
static int corpus_payloads(const char *dir)
{
	struct fmt_buf b = {0};
	int rc = 0;

	/* grammar: rule 0 refers to rule 1, not yet defined */
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1u << 2 | 1u << 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	rc |= with_payload(dir, "grammar-forward-ref.rondo", FMT_SEC_GRAMMAR,
			   &b);
	/* grammar: counts whose product overflows 64 bits */
	b.len = 0;
	fmt_put_uvarint(&b, 3);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0u << 2 | 1);
	fmt_put_uvarint(&b, (1ull << 40) - 2);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0u << 2 | 1u << 1 | 1);
	fmt_put_uvarint(&b, (1ull << 40) - 2);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1u << 2 | 1u << 1 | 1);
	fmt_put_uvarint(&b, (1ull << 40) - 2);
	rc |= with_payload(dir, "grammar-overflow.rondo", FMT_SEC_GRAMMAR, &b);
	/* grammar: a terminal beyond the signature table */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 5000u << 2);
	rc |= with_payload(dir, "grammar-bad-terminal.rondo", FMT_SEC_GRAMMAR,
			   &b);
	/* rank map: 4 ranks, but the map expands to 3 */
	b.len = 0;
	fmt_put_uvarint(&b, 4);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0u << 2 | 1);
	fmt_put_uvarint(&b, 1);
	rc |= with_payload(dir, "rankmap-short.rondo", FMT_SEC_RANKMAP, &b);
	/* signatures: a function id with no function */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 77);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 0);
	rc |= with_payload(dir, "cst-bad-func.rondo", FMT_SEC_CST, &b);
	/* signatures: an argument with an undefined wire type */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1);
	fmt_put_u8(&b, 1 << 3 | 7);
	rc |= with_payload(dir, "cst-bad-wire.rondo", FMT_SEC_CST, &b);
	/* metadata: an overlong varint */
	b.len = 0;
	for (int i = 0; i < 11; i++)
		fmt_put_u8(&b, 0x80);
	fmt_put_u8(&b, 0);
	rc |= with_payload(dir, "meta-overlong-varint.rondo", FMT_SEC_META, &b);
	/* metadata: a string longer than the section */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 1000000);
	fmt_put_str(&b, "key");
	rc |= with_payload(dir, "meta-long-string.rondo", FMT_SEC_META, &b);
	/* communicators: a member that is not a rank of the 4-rank job */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 3);
	fmt_put_uvarint(&b, 2);
	fmt_put_svarint(&b, 1);
	rc |= with_payload(dir, "comms-bad-member.rondo", FMT_SEC_COMMS, &b);
	/* statistics: histogram does not add up to the count */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 20);
	fmt_put_uvarint(&b, 10);
	fmt_put_uvarint(&b, 0);
	fmt_put_f64(&b, 200.0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 3);
	fmt_put_uvarint(&b, 1);
	rc |= with_payload(dir, "stats-hist-mismatch.rondo", FMT_SEC_STATS, &b);
	/* compact statistics: the fastest call's bin is empty */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 4000);
	fmt_put_uvarint(&b, 900);
	fmt_put_uvarint(&b, 200);
	fmt_put_uvarint(&b, 100);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 4);
	rc |= with_payload(dir, "sigstats-end-bin.rondo", FMT_SEC_SIGSTATS, &b);
	/* per-rank times: rank 0 called a signature the job does not have */
	b.len = 0;
	fmt_put_uvarint(&b, 4);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 500);
	fmt_put_uvarint(&b, 0);
	rc |= with_payload(dir, "ranktime-bad-sig.rondo", FMT_SEC_RANKTIME, &b);
	/* per-rank times: for 3 ranks of the 4 */
	b.len = 0;
	fmt_put_uvarint(&b, 3);
	for (int i = 0; i < 3; i++) {
		fmt_put_uvarint(&b, 0);
		fmt_put_uvarint(&b, 0);
	}
	rc |= with_payload(dir, "ranktime-ranks.rondo", FMT_SEC_RANKTIME, &b);
	/* datatype sizes: of a constant the file does not have */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 500);
	fmt_put_uvarint(&b, 8);
	rc |= with_payload(dir, "typesizes-bad-const.rondo", FMT_SEC_TYPESIZES,
			   &b);
	/* the time before calls per rank group: of a rule the file does
	 * not have */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 100000);
	fmt_put_uvarint(&b, 0);
	rc |= with_payload(dir, "groupgaps-bad-rule.rondo", FMT_SEC_GROUPGAPS,
			   &b);
	fmt_buf_free(&b);
	rc |= corpus_timing(dir);
	rc |= corpus_ranksum(dir);
	return rc;
}

/* Per-call times at the limits: the demo's 4 ranks each with 3 timed
 * calls of the longest interval and duration the scale has (about 2^62
 * ns each), coded, clock offsets of 2^61 ns either way (the most the
 * format allows): starts past 2^63 if added up plainly.  And
 * timing-offset, an offset of INT64_MIN, refused. */
static int corpus_limit_times(const char *dir)
{
	struct testtrace *tt = tt_demo(4, 10);
	struct fmt_buf file = {0}, b = {0}, data = {0};
	rondo_trace *demo = tt_open(tt, &file, 0);
	struct fmt_tscale sc;
	uint64_t first[5] = {0, 1, 2, 3, 4};
	struct fmt_tseg seg[4];
	int64_t offset[4] = {FMT_TIME_MAX, -FMT_TIME_MAX, 0, -1};
	struct fmt_timing t = {.base = 1.1,
			       .nranks = 4,
			       .offset = offset,
			       .coded = 1,
			       .from_low = 1,
			       .follow = 1,
			       .first = first,
			       .seg = seg};
	int rc = fmt_tscale_init(&sc, t.base);

	for (uint32_t r = 0; r < 4 && rc == 0; r++) {
		rondo_iter *it = rondo_iter_create(demo, r);
		struct fmt_tstream ts;
		uint32_t sig;

		seg[r] = (struct fmt_tseg){3, data.len, 0};
		fmt_tstream_encoder(&ts, &data);
		for (int k = 0; k < 3 && rc == 0; k++)
			rc = it && rondo_iter_next(it, &sig) == 1
				     ? fmt_tstream_put(&ts, sig, sc.n - 1,
						       2 * (sc.n - 1) - 1)
				     : -1;
		rc = rc ? rc : fmt_tstream_end(&ts);
		seg[r].len = data.len - seg[r].at;
		fmt_tstream_free(&ts);
		rondo_iter_free(it);
	}
	t.data = data.data;
	t.datalen = data.len;
	if (rc == 0) {
		fmt_timing_encode(&b, &t);
		rc = with_payload(dir, "limit-times.rondo", FMT_SEC_TIMING, &b);
		b.len = 0;
		offset[1] = INT64_MIN;
		fmt_timing_encode(&b, &t);
		rc |= with_payload(dir, "timing-offset.rondo", FMT_SEC_TIMING,
				   &b);
	}
	if (sc.up)
		fmt_tscale_free(&sc);
	rondo_trace_free(demo);
	tt_free(tt);
	fmt_buf_free(&file);
	fmt_buf_free(&data);
	fmt_buf_free(&b);
	return rc;
}

/* Relative ranks no tracer writes, at the limits of int64: refused when
 * the signatures are read, before anything adds them to a rank. */
static int corpus_relative(const char *dir)
{
	static const struct {
		const char *name;
		uint32_t kind;
		int64_t v;
	} bad[] = {
		{"cst-rel-max.rondo", RONDO_ARG_RANK_REL, INT64_MAX},
		{"cst-rel-min.rondo", RONDO_ARG_REL, INT64_MIN},
		{"cst-cart-rel-past.rondo", RONDO_ARG_CART_REL,
		 (INT64_C(1) << 32) + 1},
	};
	struct fmt_buf b = {0}, a = {0};
	int rc = 0;

	for (size_t i = 0; i < COUNTOF(bad); i++) {
		a.len = b.len = 0;
		fmt_arg_put_sint(&a, RONDO_ARG_INT, 8);
		fmt_arg_put_sint(&a, bad[i].kind, bad[i].v);
		fmt_put_uvarint(&b, 1); /* one signature, of function 1 */
		fmt_put_uvarint(&b, 1);
		fmt_put_uvarint(&b, 2);
		fmt_put_uvarint(&b, a.len);
		fmt_put_bytes(&b, a.data, a.len);
		rc |= with_payload(dir, bad[i].name, FMT_SEC_CST, &b);
	}
	fmt_buf_free(&a);
	fmt_buf_free(&b);
	return rc;
}

/* Per-rank values no tracer writes: a first value that is a difference
 * from the rank before (there is none); values for another number of
 * ranks; a signature naming a slot when the file has no section rankvals
 * (a trace of its own: the demo's signatures name none). */
static int corpus_vary(const char *dir)
{
	uint32_t first[2] = {0, 1};
	rondo_sym body[1] = {{0, 0, 4}};
	struct fmt_vitem it = {1, {1, 0, 0}};
	struct fmt_vslot sl = {1, &it, {4, {1, first, body}, NULL}};
	struct fmt_rankvals rv = {1, &sl};
	struct fmt_buf b = {0}, a = {0}, out = {0};
	struct testtrace *tt = tt_create(2);
	uint32_t f = tt_func(tt, "MPI_Send", "count", "dest", NULL), sig;
	struct fmt_writer w;
	int rc;

	fmt_rankvals_encode(&b, &rv);
	rc = with_payload(dir, "rankvals-first-delta.rondo", FMT_SEC_RANKVALS,
			  &b);
	b.len = 0;
	sl.map.nranks = 3;
	body[0].count = 3;
	it.delta = 0;
	it.val = (struct fmt_rval){1, RONDO_ARG_RANK_REL, RONDO_WIRE_SINT};
	fmt_rankvals_encode(&b, &rv);
	rc |= with_payload(dir, "rankvals-ranks.rondo", FMT_SEC_RANKVALS, &b);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 8);
	fmt_arg_put_uint(&a, RONDO_ARG_VARY, 0);
	sig = tt_sig(tt, f, &a, 2);
	tt_call(tt, 0, sig, 1, 100);
	tt_call(tt, 1, sig, 1, 100);
	fmt_writer_init(&w);
	rc |= tt_finish(tt, &w, 0) || fmt_writer_finish(&w, &out) ||
	      write_file(dir, "cst-vary-no-slot.rondo", out.data, out.len);
	fmt_writer_free(&w);
	tt_free(tt);
	fmt_buf_free(&a);
	fmt_buf_free(&b);
	fmt_buf_free(&out);
	return rc;
}

/* A call of MPI_Sendrecv or MPI_Send/Recv on MPI_COMM_WORLD: `count`
 * elements of 8 bytes (MPI_DOUBLE) to and from ranks given as they are
 * (kind RANK; the relative kind when rel). */
static uint32_t limit_sig(struct testtrace *tt, uint32_t func, int nparts,
			  int64_t count, int64_t peer0, int64_t peer1, int rel,
			  uint32_t dbl, uint32_t world)
{
	struct fmt_buf a = {0};
	int64_t peer[2] = {peer0, peer1};
	uint32_t sig;

	for (int k = 0; k < nparts; k++) {
		fmt_arg_put_sint(&a, RONDO_ARG_INT, count);
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, dbl);
		fmt_arg_put_sint(&a, rel ? RONDO_ARG_RANK_REL : RONDO_ARG_RANK,
				 peer[k]);
		fmt_arg_put_sint(&a, RONDO_ARG_TAG, 0);
	}
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	sig = tt_sig(tt, func, &a, 4 * (uint32_t)nparts + 1);
	fmt_buf_free(&a);
	return sig;
}

/*
 * Valid traces at the limits of the counts (not damaged: every command
 * must read them, and say where a total passed 2^64 - 1):
 * limit-messages: 4 ranks in a ring, each making 2^62 MPI_Sendrecv of
 *   1024 doubles (a loop of 2^31 iterations of a loop of 2^31 calls is
 *   the same grammar: one rule, one repeat count), each to an absolute
 *   rank so that each rank has a signature of its own: 2^64 calls and
 *   messages in all, 2^75 bytes a pair;
 * limit-count: rank 0 sends rank 1 four messages of 2^60 doubles.
 */
static int corpus_limits(const char *dir)
{
	struct testtrace *tt = tt_create(4);
	uint32_t f, fs, fr, world, dbl, sig[4], init, final;
	int rc;

	tt_meta(tt, "program", "limits");
	tt_meta(tt, "mpi", "(none: written by the tests' writer)");
	world = tt_const(tt, "MPI_COMM_WORLD");
	dbl = tt_const(tt, "MPI_DOUBLE");
	tt_typesize(tt, dbl, 8);
	init = tt_sig(tt, tt_func(tt, "MPI_Init", NULL), &(struct fmt_buf){0},
		      0);
	final = tt_sig(tt, tt_func(tt, "MPI_Finalize", NULL),
		       &(struct fmt_buf){0}, 0);
	f = tt_func(tt, "MPI_Sendrecv", "sendcount", "sendtype", "dest",
		    "sendtag", ">recvcount", "recvtype", "source", "recvtag",
		    "comm", NULL);
	for (uint32_t r = 0; r < 4; r++)
		sig[r] = limit_sig(tt, f, 2, 1024, (r + 1) % 4, (r + 3) % 4, 0,
				   dbl, world);
	for (uint32_t r = 0; r < 4; r++) {
		tt_call(tt, r, init, 1, 1000);
		tt_call(tt, r, sig[r], UINT64_C(1) << 62, 1);
		tt_call(tt, r, final, 1, 1000);
	}
	rc = tt_save_in(tt, dir, "limit-messages.rondo");
	tt_free(tt);

	tt = tt_create(2);
	tt_meta(tt, "program", "limits");
	tt_meta(tt, "mpi", "(none: written by the tests' writer)");
	world = tt_const(tt, "MPI_COMM_WORLD");
	dbl = tt_const(tt, "MPI_DOUBLE");
	tt_typesize(tt, dbl, 8);
	fs = tt_func(tt, "MPI_Send", "count", "datatype", "dest", "tag", "comm",
		     NULL);
	fr = tt_func(tt, "MPI_Recv", "count", "datatype", "source", "tag",
		     "comm", NULL);
	tt_call(tt, 0,
		limit_sig(tt, fs, 1, INT64_C(1) << 60, 1, 0, 1, dbl, world), 4,
		1000);
	tt_call(tt, 1,
		limit_sig(tt, fr, 1, INT64_C(1) << 60, -1, 0, 1, dbl, world), 4,
		1000);
	rc |= tt_save_in(tt, dir, "limit-count.rondo");
	tt_free(tt);
	return rc;
}

/* Damaged containers, made from the bytes of a good file. */
static int corpus_container(const char *dir, const uint8_t *good, size_t n)
{
	uint8_t *f = malloc(n + 64);
	int rc = 0, i;

	if (!f)
		return -1;
	rc |= write_file(dir, "empty.rondo", good, 0);
	rc |= write_file(dir, "truncated-header.rondo", good, 20);
	/* inside the index, the table gone: nothing says where sections are */
	rc |= write_file(dir, "truncated-index.rondo", good,
			 FMT_HEADER_SIZE + 9);
	/* the calls need the rank map (a grammar cut after it opens, with
	 * the ranks past the cut lost: tests/damaged.sh) */
	i = entry_of(good, FMT_SEC_RANKMAP);
	rc |= write_file(dir, "truncated-rankmap.rondo", good,
			 le_get(good + entry_at(good, (uint32_t)i) + 8, 8) + 3);
	memcpy(f, good, n);
	memcpy(f, "NOTRONDO", 8);
	rc |= write_file(dir, "bad-magic.rondo", f, n);
	memcpy(f, good, n);
	f[24] ^= 1; /* flags byte, without fixing the CRC */
	rc |= write_file(dir, "header-crc.rondo", f, n);
	memcpy(f, good, n);
	le_put(f + 8, RONDO_FORMAT_MAJOR + 1, 2);
	fix_crcs(f, n);
	rc |= write_file(dir, "future-major.rondo", f, n);
	memcpy(f, good, n);
	i = entry_of(f, FMT_SEC_CST); /* one the calls need */
	f[le_get(f + entry_at(f, (uint32_t)i) + 8, 8) + 3] ^= 0x40;
	rc |= write_file(dir, "section-crc.rondo", f, n);
	memcpy(f, good, n);
	le_put(f + 16, n + 1000, 8);
	fix_crcs(f, n);
	rc |= write_file(dir, "table-offset.rondo", f, n);
	memcpy(f, good, n);
	i = entry_of(f, FMT_SEC_GRAMMAR);
	le_put(f + entry_at(f, (uint32_t)i) + 8, 1ull << 62, 8);
	fix_crcs(f, n);
	rc |= write_file(dir, "section-offset.rondo", f, n);
	memcpy(f, good, n);
	i = entry_of(f, FMT_SEC_CST);
	le_put(f + entry_at(f, (uint32_t)i) + 24, 1ull << 40, 8);
	fix_crcs(f, n);
	rc |= write_file(dir, "section-raw-size-lie.rondo", f, n);
	memcpy(f, good, n);
	le_put(f + 12, 0, 4); /* no sections at all */
	le_put(f + 16, n - 4, 8);
	fix_crcs(f, n);
	rc |= write_file(dir, "no-sections.rondo", f, n);
	memcpy(f, good, n);
	memset(f + n, 0, 64);
	rc |= write_file(dir, "trailing-garbage.rondo", f, n + 64);
	free(f);
	return rc;
}

static int make_corpus(const char *dir)
{
	struct testtrace *tt = tt_demo(4, 10);
	struct fmt_writer w;
	struct fmt_buf good = {0};
	int rc;

	fmt_writer_init(&w);
	rc = tt_finish(tt, &w, 0);
	rc = rc ? rc : fmt_writer_finish(&w, &good);
	if (rc == 0)
		rc = corpus_container(dir, good.data, good.len) |
		     corpus_payloads(dir) | corpus_relative(dir) |
		     corpus_vary(dir) | corpus_limits(dir) |
		     corpus_limit_times(dir) |
		     with_payload(dir, "missing-grammar.rondo", FMT_SEC_GRAMMAR,
				  NULL);
	fmt_buf_free(&good);
	fmt_writer_free(&w);
	tt_free(tt);
	return rc ? 1 : 0;
}

/* A good file from a newer minor version with a section nobody knows. */
static int make_future(struct testtrace *tt, const char *path)
{
	struct fmt_writer w;
	struct fmt_buf f = {0};
	char why[256] = "out of memory";
	int rc;

	fmt_writer_init(&w);
	rc = tt_finish(tt, &w, 1);
	rc = rc ? rc : fmt_writer_finish(&w, &f);
	if (rc == 0) {
		le_put(f.data + 10, RONDO_FORMAT_MINOR + 1, 2);
		fix_crcs(f.data, f.len);
		FILE *o = fopen(path, "wb");

		if (!o || fwrite(f.data, 1, f.len, o) != f.len || fclose(o)) {
			snprintf(why, sizeof(why), "%s: %s", path,
				 strerror(errno));
			rc = RONDO_E_IO;
		}
	}
	if (rc < 0)
		fprintf(stderr, "mktrace: %s\n", why);
	fmt_buf_free(&f);
	fmt_writer_free(&w);
	return rc < 0 ? 1 : 0;
}

/* A call of `func` with a count and a peer relative to the caller (none
 * when 0), and communicator `world` (none when UINT32_MAX). */
static uint32_t timed_sig(struct testtrace *tt, uint32_t func, int64_t count,
			  int64_t peer, uint32_t world)
{
	struct fmt_buf a = {0};
	uint32_t sig, n = 0;

	if (count) {
		fmt_arg_put_sint(&a, RONDO_ARG_INT, count);
		n++;
	}
	if (peer) {
		fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, peer);
		n++;
	}
	if (world != UINT32_MAX) {
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
		n++;
	}
	sig = tt_sig(tt, func, &a, n);
	fmt_buf_free(&a);
	return sig;
}

/*
 * The timeline's job (per-call times, base 1.001), in buckets of 10 ms:
 * every rank in MPI_Init for the first 6 ms and in MPI_Finalize from 902.5
 * to 945 ms, and in a loop of an MPI_Allreduce from 2 to 5 ms and an
 * MPI_Barrier from 5 to 7 ms past every 100 ms from 100 to 800; but rank 2
 * (of 3 or more) waits in an MPI_Recv from 202.5 to 595 ms instead of its
 * iterations there, for the MPI_Send rank 1 makes from 592 to 596 ms.  Each call's share of its buckets is far from where
 * the timeline's scale changes level, so that times read back up to 0.1 %
 * late draw the same.
 */
/* A job of per-call times (base 1.001) of `program`: its world and its
 * MPI_Init's signature. */
static struct testtrace *timed_begin(uint32_t nranks, const char *program,
				     uint32_t *world, uint32_t *init)
{
	struct testtrace *tt = tt_create(nranks);

	tt_meta(tt, "program", program);
	tt_meta(tt, "mpi", "(none: written by the tests' writer)");
	tt_timing(tt, 1.001);
	*world = tt_const(tt, "MPI_COMM_WORLD");
	*init = timed_sig(tt, tt_func(tt, "MPI_Init", NULL), 0, 0, UINT32_MAX);
	return tt;
}

static struct testtrace *timed_job(uint32_t nranks)
{
	uint32_t world, init, allreduce, barrier, recv, send, final;
	struct testtrace *tt = timed_begin(nranks, "timed", &world, &init);
	const int64_t ms = 1000000;

	allreduce = timed_sig(
		tt, tt_func(tt, "MPI_Allreduce", "count", "comm", NULL), 1, 0,
		world);
	barrier = timed_sig(tt, tt_func(tt, "MPI_Barrier", "comm", NULL), 0, 0,
			    world);
	recv = timed_sig(
		tt, tt_func(tt, "MPI_Recv", "count", "source", "comm", NULL),
		1024, -1, world);
	send = timed_sig(tt,
			 tt_func(tt, "MPI_Send", "count", "dest", "comm", NULL),
			 1024, 1, world);
	final = timed_sig(tt, tt_func(tt, "MPI_Finalize", NULL), 0, 0,
			  UINT32_MAX);
	for (uint32_t r = 0; r < nranks; r++) {
		tt_call_at(tt, r, init, 0, 6 * ms);
		for (int64_t k = 1; k <= 8; k++) {
			if (r == 2 && k == 2)
				tt_call_at(tt, r, recv, 2025 * ms / 10,
					   3925 * ms / 10);
			if (r == 2 && k >= 2 && k <= 5)
				continue;
			if (r == 1 && nranks > 2 && k == 6)
				tt_call_at(tt, r, send, 592 * ms, 4 * ms);
			tt_call_at(tt, r, allreduce, (100 * k + 2) * ms,
				   3 * ms);
			tt_call_at(tt, r, barrier, (100 * k + 5) * ms, 2 * ms);
		}
		tt_call_at(tt, r, final, 9025 * ms / 10, 425 * ms / 10);
	}
	return tt;
}

/* A point-to-point call of `func`: count 1, the peer relative to the
 * caller, tag 0, the world. */
static uint32_t late_sig(struct testtrace *tt, uint32_t func, int64_t peer,
			 uint32_t world)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, peer);
	fmt_arg_put_sint(&a, RONDO_ARG_TAG, 0);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
	sig = tt_sig(tt, func, &a, 4);
	fmt_buf_free(&a);
	return sig;
}

/*
 * A late sender and a late receiver (per-call times, base 1.001), for
 * rondo waits and the contention pane: rank 0's MPI_Recv from rank 1
 * posted at 10 ms waits until rank 1's MPI_Send at 59 ms (49 ms late);
 * rank 2's MPI_Ssend to rank 3 at 20 ms waits until rank 3's MPI_Recv at
 * 30 ms (10 ms late).  All end with MPI_Finalize at 100 ms.
 */
static struct testtrace *late_job(void)
{
	uint32_t world, init, final, recv_next, send_prev, ssend_next;
	uint32_t recv_prev, recv;
	struct testtrace *tt = timed_begin(4, "late", &world, &init);
	const int64_t ms = 1000000;

	final = timed_sig(tt, tt_func(tt, "MPI_Finalize", NULL), 0, 0,
			  UINT32_MAX);
	recv = tt_func(tt, "MPI_Recv", "count", "source", "tag", "comm", NULL);
	recv_next = late_sig(tt, recv, 1, world);
	send_prev = late_sig(
		tt,
		tt_func(tt, "MPI_Send", "count", "dest", "tag", "comm", NULL),
		-1, world);
	ssend_next = late_sig(
		tt,
		tt_func(tt, "MPI_Ssend", "count", "dest", "tag", "comm", NULL),
		1, world);
	recv_prev = late_sig(tt, recv, -1, world);
	for (uint32_t r = 0; r < 4; r++)
		tt_call_at(tt, r, init, 0, ms);
	tt_call_at(tt, 0, recv_next, 10 * ms, 50 * ms);
	tt_call_at(tt, 1, send_prev, 59 * ms, ms);
	tt_call_at(tt, 2, ssend_next, 20 * ms, 11 * ms);
	tt_call_at(tt, 3, recv_prev, 30 * ms, 2 * ms);
	for (uint32_t r = 0; r < 4; r++)
		tt_call_at(tt, r, final, 100 * ms, ms);
	return tt;
}

/* Adds "RANKS=ENDING" to the meta key "cut" in buf as rondo recover
 * writes it, "RANKS<tab>ENDING\n": the trace says those ranks were cut
 * short (their calls stay the job's, whole); 0 or -1. */
static int cut_line(char *buf, size_t size, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t at = strlen(buf);

	if (!eq || (size_t)snprintf(buf + at, size - at, "%.*s\t%s\n",
				    (int)(eq - arg), arg, eq + 1) >= size - at)
		return -1;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mktrace [--ranks P] [--iters N] [--future]\n"
		"               [--cut RANKS=ENDING]...\n"
		"               [--change call|count|peer|time|buffers] OUT\n"
		"       mktrace --timed [--ranks P] OUT\n"
		"       mktrace --late OUT\n"
		"       mktrace --peers OUT\n"
		"       mktrace --replay deadlock|unknown OUT\n"
		"       mktrace --corpus DIR\n");
	exit(2);
}

/* Two ranks for rondo-replay's refusals: "deadlock", each rank's
 * MPI_Ssend to the other before its receive (the messages pair up, but
 * a replay waits for ever: the watchdog's case), or "unknown", a call of
 * a function no MPI has. */
static struct testtrace *replay_job(const char *kind)
{
	struct testtrace *tt = tt_create(2);
	uint32_t f_init = tt_func(tt, "MPI_Init", "argc", "argv", NULL);
	uint32_t f_ssend = tt_func(tt, "MPI_Ssend", "buf", "count", "datatype",
				   "dest", "tag", "comm", NULL);
	uint32_t f_recv = tt_func(tt, "MPI_Recv", ">buf", "count", "datatype",
				  "source", "tag", "comm", ">status", NULL);
	uint32_t f_odd = tt_func(tt, "MPI_Frobnicate", "comm", NULL);
	uint32_t f_final = tt_func(tt, "MPI_Finalize", NULL);
	uint32_t world = tt_const(tt, "MPI_COMM_WORLD");
	uint32_t mpi_int = tt_const(tt, "MPI_INT");
	uint32_t sig[4];
	struct fmt_buf a = {0};

	tt_meta(tt, "program", kind);
	tt_meta(tt, "ranks", "2");
	tt_typesize(tt, mpi_int, 4);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
	fmt_arg_put_none(&a, RONDO_ARG_NULL);
	sig[0] = tt_sig(tt, f_init, &a, 2);
	a.len = 0;
	for (int recv = 0; recv < 2; recv++) {
		fmt_arg_put_list(&a, RONDO_ARG_BUFFER, 2);
		fmt_arg_put_uint(&a, RONDO_ARG_INT, (uint64_t)recv);
		fmt_arg_put_sint(&a, RONDO_ARG_INT, 0);
		fmt_arg_put_sint(&a, RONDO_ARG_INT, 1);
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, mpi_int);
		fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, 1);
		fmt_arg_put_sint(&a, RONDO_ARG_TAG, 0);
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
		if (recv)
			fmt_arg_put_list(&a, RONDO_ARG_STATUS, 0);
		sig[1 + recv] =
			tt_sig(tt, recv ? f_recv : f_ssend, &a, recv ? 7 : 6);
		a.len = 0;
	}
	if (!strcmp(kind, "unknown")) {
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, world);
		sig[1] = sig[2] = tt_sig(tt, f_odd, &a, 1);
		a.len = 0;
	}
	sig[3] = tt_sig(tt, f_final, &a, 0);
	for (uint32_t r = 0; r < 2; r++)
		for (int k = 0; k < 4; k++)
			tt_call(tt, r, sig[k], 1, 1000);
	fmt_buf_free(&a);
	return tt;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"ranks", required_argument, 0, 'r'},
		{"iters", required_argument, 0, 'i'},
		{"future", no_argument, 0, 'f'},
		{"corpus", no_argument, 0, 'c'},
		{"demo", no_argument, 0, 'd'},
		{"timed", no_argument, 0, 't'},
		{"late", no_argument, 0, 'L'},
		{"peers", no_argument, 0, 'p'},
		{"cut", required_argument, 0, 'x'},
		{"change", required_argument, 0, 'C'},
		{"replay", required_argument, 0, 'R'},
		{0, 0, 0, 0}};
	static const char *const changes[] = {"none", "call", "count",
					      "peer", "time", "buffers"};
	enum tt_change change = TT_CHANGE_NONE;
	unsigned long ranks = 4, iters = 100;
	int future = 0, corpus = 0, timed = 0, peers = 0, late = 0, c, rc;
	struct testtrace *tt;
	char cut[1024] = "";
	const char *replay = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': ranks = strtoul(optarg, NULL, 10); break;
		case 'i': iters = strtoul(optarg, NULL, 10); break;
		case 'f': future = 1; break;
		case 'c': corpus = 1; break;
		case 'd': break; /* the defaults are the demo */
		case 't': timed = 1; break;
		case 'L': late = 1; break;
		case 'p': peers = 1; break;
		case 'R':
			if (strcmp(optarg, "deadlock") &&
			    strcmp(optarg, "unknown"))
				usage();
			replay = optarg;
			break;
		case 'C':
			for (change = 0; change < COUNTOF(changes); change++)
				if (!strcmp(optarg, changes[change]))
					break;
			if (change == COUNTOF(changes))
				usage();
			break;
		case 'x':
			if (cut_line(cut, sizeof(cut), optarg) < 0)
				usage();
			break;
		default: usage();
		}
	}
	if (optind != argc - 1 || ranks < 1 || ranks > 1u << 20 ||
	    iters > 1u << 30)
		usage();
	if (corpus)
		return make_corpus(argv[optind]);
	tt = replay  ? replay_job(replay)
	     : late  ? late_job()
	     : peers ? tt_peers()
	     : timed ? timed_job((uint32_t)ranks)
		     : tt_demo_changed((uint32_t)ranks, (uint32_t)iters,
				       change);
	if (cut[0])
		tt_meta(tt, "cut", cut);
	rc = future ? make_future(tt, argv[optind])
		    : (tt_save(tt, argv[optind]) < 0);
	tt_free(tt);
	return rc;
}
