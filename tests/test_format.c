/*
 * test_format.c - the .rondo container and section codecs (format/container.c, format/sec_*.c).
 *
 * Round trips for every codec, and the hostile side: every truncation and
 * every flipped byte of a complete file must be refused cleanly, and lies
 * about sizes, counts and references must be caught.  Run it under ASan
 * and UBSan: buffers are copied to exact-size heap blocks so that any read
 * past the end is reported.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "check.h"
#include "format.h"
#include "util.h"

/* ---- helpers ------------------------------------------------------------- */

/* An exact-size heap copy, so ASan sees any read past the end. */
static uint8_t *dup_exact(const void *p, size_t n)
{
	uint8_t *d = malloc(n ? n : 1);

	if (!d)
		abort();
	if (n)
		memcpy(d, p, n);
	return d;
}

static void put_le32_at(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64_at(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64_at(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int is_error_code(int rc)
{
	return rc == RONDO_E_NOTRONDO || rc == RONDO_E_VERSION ||
	       rc == RONDO_E_TRUNCATED || rc == RONDO_E_CORRUPT;
}

/* A section as the file stores it, for building files by hand. */
struct tsec {
	uint32_t type, codec;
	const void *stored;
	size_t len;
	uint64_t raw;
};

/* Builds a file straight from FORMAT.md's tables, independently of the
 * writer, so that each checks the other. */
static void build(struct fmt_buf *b, uint16_t major, uint16_t minor,
		  const struct tsec *s, uint32_t n)
{
	uint8_t h[32] = {0}, ent[40];
	uint64_t off = 32;
	uint32_t crc = 0;

	memset(b, 0, sizeof(*b));
	memcpy(h, "\x89RND\r\n\x1a\n", 8);
	h[8] = (uint8_t)major, h[9] = (uint8_t)(major >> 8);
	h[10] = (uint8_t)minor, h[11] = (uint8_t)(minor >> 8);
	put_le32_at(h + 12, n);
	for (uint32_t i = 0; i < n; i++)
		off += s[i].len;
	put_le64_at(h + 16, off);
	put_le32_at(h + 28, fmt_crc32c(0, h, 28));
	fmt_put_bytes(b, h, 32);
	off = 32;
	for (uint32_t i = 0; i < n; i++)
		fmt_put_bytes(b, s[i].stored, s[i].len);
	for (uint32_t i = 0; i < n; i++) {
		memset(ent, 0, sizeof(ent));
		put_le32_at(ent, s[i].type);
		put_le32_at(ent + 4, s[i].codec);
		put_le64_at(ent + 8, off);
		put_le64_at(ent + 16, s[i].len);
		put_le64_at(ent + 24, s[i].raw);
		put_le32_at(ent + 32, fmt_crc32c(0, s[i].stored, s[i].len));
		crc = fmt_crc32c(crc, ent, sizeof(ent));
		fmt_put_bytes(b, ent, sizeof(ent));
		off += s[i].len;
	}
	fmt_put_le32(b, crc);
	if (b->oom)
		abort();
}

/* Where entry i of a well-formed file lives. */
static uint8_t *entry_at(struct fmt_buf *f, uint32_t i)
{
	return f->data + get_le64_at(f->data + 16) + (size_t)i * 40;
}

/* Recomputes the table CRC after a test edited an entry. */
static void retable(struct fmt_buf *f)
{
	uint32_t n = (uint32_t)(f->data[12] | f->data[13] << 8);
	uint8_t *t = entry_at(f, 0);

	put_le32_at(t + (size_t)n * 40, fmt_crc32c(0, t, (size_t)n * 40));
}

static void set_version(struct fmt_buf *f, uint16_t major, uint16_t minor)
{
	f->data[8] = (uint8_t)major, f->data[9] = (uint8_t)(major >> 8);
	f->data[10] = (uint8_t)minor, f->data[11] = (uint8_t)(minor >> 8);
	put_le32_at(f->data + 28, fmt_crc32c(0, f->data, 28));
}

/* Parses a file and loads every section; returns the first error. */
static int parse_load(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_container c;
	uint8_t *out;
	size_t len;
	int rc = fmt_container_parse(&c, p, n, e);

	for (uint32_t i = 0; !rc && i < c.nsec; i++) {
		rc = fmt_section_load(&c, i, &out, &len, e);
		free(out);
	}
	fmt_container_free(&c);
	return rc;
}

/* ---- fixtures: one small trace ------------------------------------------- */

static char *fx_params_send[] = {(char *)"buf",	     (char *)"count",
				 (char *)"datatype", (char *)"dest",
				 (char *)"tag",	     (char *)"comm"};
static char *fx_params_recv[] = {
	(char *)"buf", (char *)"count", (char *)"datatype", (char *)"source",
	(char *)"tag", (char *)"comm",	(char *)"status"};

static void fx_meta(struct fmt_buf *b)
{
	struct fmt_kv kv[] = {{(char *)"program", (char *)"app"},
			      {(char *)"ranks", (char *)"4"},
			      {(char *)"empty", (char *)""}};
	struct fmt_meta m = {3, kv};

	fmt_meta_encode(b, &m);
}

static void fx_funcs(struct fmt_buf *b)
{
	struct fmt_func f[] = {
		{(char *)"MPI_Init", 0, NULL},
		{(char *)"MPI_Send", 6, fx_params_send},
		{(char *)"MPI_Recv", 7, fx_params_recv},
	};
	struct fmt_funcs fs = {3, f};

	fmt_funcs_encode(b, &fs);
}

static void fx_consts(struct fmt_buf *b)
{
	char *names[] = {(char *)"MPI_COMM_WORLD", (char *)"MPI_DOUBLE",
			 (char *)"MPI_INT"};
	struct fmt_consts c = {3, names};

	fmt_consts_encode(b, &c);
}

static void fx_args_send(struct fmt_buf *a)
{
	fmt_arg_put_list(a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(a, RONDO_ARG_INT, 1);
	fmt_arg_put_sint(a, RONDO_ARG_INT, 0);
	fmt_arg_put_sint(a, RONDO_ARG_INT, 10);
	fmt_arg_put_uint(a, RONDO_ARG_CONST, 1);
	fmt_arg_put_sint(a, RONDO_ARG_RANK_REL, 1);
	fmt_arg_put_sint(a, RONDO_ARG_TAG, 7);
	fmt_arg_put_uint(a, RONDO_ARG_CONST, 0);
}

/* Ten values, with nesting, bytes, NULL and a kind from the future. */
static void fx_args_recv(struct fmt_buf *a)
{
	fmt_arg_put_none(a, RONDO_ARG_NULL);
	fmt_arg_put_sint(a, RONDO_ARG_INT, -5);
	fmt_arg_put_uint(a, RONDO_ARG_DATATYPE, 3);
	fmt_arg_put_sint(a, RONDO_ARG_RANK, 3);
	fmt_arg_put_list(a, RONDO_ARG_STATUS, 2);
	fmt_arg_put_sint(a, RONDO_ARG_RANK, 3);
	fmt_arg_put_sint(a, RONDO_ARG_TAG, 7);
	fmt_arg_put_list(a, RONDO_ARG_ARRAY, 2);
	fmt_arg_put_list(a, RONDO_ARG_ARRAY, 0);
	fmt_arg_put_list(a, RONDO_ARG_ARRAY, 1);
	fmt_arg_put_bytes(a, RONDO_ARG_BYTES, "\0\1", 2);
	fmt_arg_put_bytes(a, RONDO_ARG_STRING, "hello", 5);
	fmt_arg_put_uint(a, 200, 99);
	fmt_arg_put_sint(a, RONDO_ARG_INT, INT64_MIN);
	fmt_arg_put_uint(a, RONDO_ARG_CALLBACK, UINT64_MAX);
}

static void fx_cst(struct fmt_buf *b)
{
	struct fmt_buf a1 = {0}, a2 = {0};
	struct fmt_sig s[3];
	struct fmt_cst c = {3, s, NULL};

	fx_args_send(&a1);
	fx_args_recv(&a2);
	s[0] = (struct fmt_sig){0, 0, 0, NULL};
	s[1] = (struct fmt_sig){1, 6, (uint32_t)a1.len, a1.data};
	s[2] = (struct fmt_sig){2, 10, (uint32_t)a2.len, a2.data};
	fmt_cst_encode(b, &c);
	fmt_buf_free(&a1);
	fmt_buf_free(&a2);
}

#define T(id, n) ((rondo_sym){(id), 0, (n)})
#define R(id, n) ((rondo_sym){(id) | RONDO_SYM_RULE, 0, (n)})

/* r0 = t1 t2; r1 = t0 r0^1000; r2 = r1 t1^3 (3 terminals). */
static rondo_sym fx_body[] = {T(1, 1),	  T(2, 1), T(0, 1),
			      R(0, 1000), R(1, 1), T(1, 3)};
static uint32_t fx_first[] = {0, 2, 4, 6};
static const uint64_t fx_lengths[] = {2, 2001, 2004};

static void fx_grammar(struct fmt_buf *b)
{
	struct fmt_grammar g = {3, fx_first, fx_body};

	fmt_grammar_encode(b, &g);
}

/* Ranks 0-2 run r1, rank 3 runs r2. */
static rondo_sym fx_map_body[] = {T(1, 3), T(2, 1)};
static uint32_t fx_map_first[] = {0, 2};

static void fx_rankmap(struct fmt_buf *b)
{
	struct fmt_rankmap r = {4, {1, fx_map_first, fx_map_body}};

	fmt_rankmap_encode(b, &r);
}

static void fx_stats_fill(struct fmt_stats *s)
{
	static struct fmt_stat st[2];

	memset(st, 0, sizeof(st));
	st[0].sig = 0;
	st[0].s = (rondo_stat){.count = 4,
			       .total_ns = 4000,
			       .min_ns = 900,
			       .max_ns = 1100,
			       .sumsq_ns2 = 4.04e6};
	st[0].s.hist[9] = 2;
	st[0].s.hist[10] = 2;
	st[1].sig = 2;
	st[1].s = (rondo_stat){.count = 3,
			       .total_ns = (UINT64_C(1) << 40) + 1,
			       .min_ns = 0,
			       .max_ns = UINT64_C(1) << 40,
			       .sumsq_ns2 = 1.2e24};
	st[1].s.hist[0] = 1;
	st[1].s.hist[0] = 2;
	st[1].s.hist[40] = 1;
	s->n = 2;
	s->st = st;
}

static void fx_stats(struct fmt_buf *b)
{
	struct fmt_stats s;

	fx_stats_fill(&s);
	fmt_stats_encode(b, &s);
}

static void fx_sigstats(struct fmt_buf *b)
{
	struct fmt_stats s;

	fx_stats_fill(&s);
	fmt_sigstats_encode(b, &s);
}

/* Four ranks (as fx_rankmap) over 3 signatures: rank 2 called what rank
 * 0 did, rank 3 nothing; times exact, rounded, and the largest. */
static uint64_t fx_at[] = {0, 2, 3, 5, 5};
static uint32_t fx_tsig[] = {0, 2, 1, 0, 2};
static uint16_t fx_code[] = {0, 127, 128, 3000, FMT_TIME_CODE_MAX};

static void fx_ranktime(struct fmt_buf *b)
{
	struct fmt_ranktime r = {4, fx_at, fx_at, fx_tsig, fx_code};

	fmt_ranktime_encode(b, &r);
}

/* Ten ranks over 4 signatures, none calling signature 1 (so the summary
 * has 0, 2 and 3): everyone signature 0, with ties at both ends; five
 * ranks signature 2 (one of them left out of the lists at k = 2); ranks 3
 * and 9 signature 3 at the largest time, whose sum saturates.
 *   code:  10 -> 10 ns, 50 -> 50, 130 -> 132, 200 -> 288, 300 -> 864,
 *          1000 -> 1703936, 3775 -> 127 << 57; 5 and 7 exact */
static uint64_t fs_at[] = {0, 2, 3, 5, 7, 9, 10, 12, 13, 15, 17};
static uint32_t fs_sig[] = {0, 2, 0, 0, 2, 0, 3, 0, 2, 0, 0, 2, 0, 0, 2, 0, 3};
static uint16_t fs_code[] = {200, 1000, 50,   200, 5,	50, 3775, 130, 5,
			     300, 50,	1000, 10,  300, 7,  130,  3775};
static uint16_t fs_mpi[] = {500, 400, 450, 3775, 401, 400, 999, 420, 430, 410};
static const struct fmt_ranktime fs_times = {10, fs_at, fs_at, fs_sig, fs_code};

static void fx_ranksum(struct fmt_buf *b)
{
	struct fmt_ranksum s;

	CHECK(fmt_ranksum_make(&s, &fs_times, 2, fs_mpi) == 0);
	fmt_ranksum_encode(b, &s);
	fmt_ranksum_free(&s);
}

/* Two rank groups (rules 0 and 2 of 3) over 3 signatures: the first
 * before signatures 0 and 2, the second before signature 1, a time past
 * 2^40 ns. */
static uint32_t fg_root[] = {0, 2};
static uint64_t fg_at[] = {0, 2, 3};
static struct fmt_gapent fg_e[] = {
	{0, 5, 100}, {2, 1, 0}, {1, 7, (UINT64_C(1) << 40) + 3}};

static void fx_groupgaps(struct fmt_buf *b)
{
	struct fmt_groupgaps g = {2, fg_root, fg_at, fg_e};

	fmt_groupgaps_encode(b, &g);
}

/* Loop counts merged at precision 90 over a grammar of 3 rules (2, 3 and
 * 1 symbols) and 4 ranks: a histogram of exact counts, one of ranges,
 * three sites (two of one rule). */
static uint32_t fh_first[] = {0, 2, 5, 6};
static rondo_sym fh_body[] = {{0, 0, 40}, {1, 0, 1},
			      {2, 0, 1},  {RONDO_SYM_RULE | 0, 0, 7},
			      {0, 0, 11}, {RONDO_SYM_RULE | 1, 0, 1}};
static const struct fmt_grammar fh_g = {3, fh_first, fh_body};
static struct fmt_hbin fh_b0[] = {{38, 38, 3}, {40, 40, 5}, {42, 42, 2}};
static struct fmt_hbin fh_b1[] = {{5, 6, 4}, {8, 9, 1}};
static struct fmt_hist fh_h[] = {
	{FMT_HIST_COUNT, 1, 3, 3, 10, 398, 38, 42, fh_b0},
	{FMT_HIST_COUNT, 0, 2, 2, 5, 36, 5, 9, fh_b1}};
static struct fmt_hsite fh_s[] = {{0, 0, 0}, {1, 1, 1}, {1, 2, 0}};

static void fx_hists(struct fmt_buf *b)
{
	struct fmt_hists h = {90, 2, fh_h, 3, fh_s};

	fmt_hists_encode(b, &h);
}

/* The whole trace as a file: every known section but comms, and an
 * unknown one (ranksum summarizes the 10 ranks of its own fixture). */
static void fx_file(struct fmt_buf *out, int level)
{
	void (*enc[])(struct fmt_buf *) = {
		fx_meta,    fx_funcs, fx_consts,   fx_cst,     fx_grammar,
		fx_rankmap, fx_stats, fx_ranktime, fx_ranksum, fx_sigstats};
	static const uint32_t type[] = {FMT_SEC_META,	 FMT_SEC_FUNCS,
					FMT_SEC_CONSTS,	 FMT_SEC_CST,
					FMT_SEC_GRAMMAR, FMT_SEC_RANKMAP,
					FMT_SEC_STATS,	 FMT_SEC_RANKTIME,
					FMT_SEC_RANKSUM, FMT_SEC_SIGSTATS};
	struct fmt_writer w;

	fmt_writer_init(&w);
	for (uint32_t i = 0; i < 10; i++) {
		struct fmt_buf b = {0};

		enc[i](&b);
		CHECK(!b.oom);
		CHECK(fmt_writer_add(&w, type[i], b.data, b.len, level) == 0);
		if (i == 2)
			CHECK(fmt_writer_add(&w, 999, "future", 6, level) == 0);
		fmt_buf_free(&b);
	}
	CHECK(fmt_writer_finish(&w, out) == 0);
	fmt_writer_free(&w);
}

/* ---- varints and fixed fields -------------------------------------------- */

static void test_uvarint(void)
{
	static const uint64_t v[] = {0,
				     1,
				     127,
				     128,
				     16383,
				     16384,
				     (1u << 21) - 1,
				     1u << 21,
				     UINT32_MAX,
				     UINT64_C(1) << 56,
				     (UINT64_C(1) << 63) - 1,
				     UINT64_C(1) << 63,
				     UINT64_MAX};
	static const size_t len[] = {1, 1, 1, 2, 2, 3, 3, 4, 5, 9, 9, 10, 10};

	for (size_t i = 0; i < COUNTOF(v); i++) {
		struct fmt_buf b = {0};
		struct fmt_cur c;
		uint64_t x = 0;
		uint8_t *p;

		fmt_put_uvarint(&b, v[i]);
		CHECKF(b.len == len[i], "%zu: length %zu", i, b.len);
		p = dup_exact(b.data, b.len);
		fmt_cur_init(&c, p, b.len, "t", NULL);
		CHECK(fmt_get_uvarint(&c, &x) == 0 && x == v[i]);
		CHECK(fmt_cur_end(&c) == 0);
		for (size_t k = 0; k < b.len; k++) {
			fmt_cur_init(&c, p, k, "t", NULL);
			CHECK(fmt_get_uvarint(&c, &x) == RONDO_E_TRUNCATED);
		}
		free(p);
		fmt_buf_free(&b);
	}
}

static int get_uv(const uint8_t *s, size_t n, uint64_t *v, struct fmt_err *e)
{
	struct fmt_cur c;
	uint8_t *p = dup_exact(s, n);
	int rc;

	fmt_cur_init(&c, p, n, "t", e);
	rc = fmt_get_uvarint(&c, v);
	free(p);
	return rc;
}

static void test_uvarint_bad(void)
{
	static const uint8_t overlong1[] = {0x80, 0x00};
	static const uint8_t overlong2[] = {0xff, 0x80, 0x00};
	static const uint8_t max[] = {0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0x01};
	static const uint8_t over[] = {0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x02};
	static const uint8_t eleven[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff, 0xff, 0x81, 0x00};
	static const uint8_t tenzero[] = {0x80, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x00};
	struct fmt_err e = {0};
	uint64_t v;

	CHECK(get_uv(overlong1, 2, &v, &e) == RONDO_E_CORRUPT);
	CHECK(e.code == RONDO_E_CORRUPT && e.offset == 0 && e.size == 2);
	CHECK(strcmp(e.section, "t") == 0 && strstr(e.msg, "overlong"));
	CHECK(get_uv(overlong2, 3, &v, NULL) == RONDO_E_CORRUPT);
	CHECK(get_uv(max, 10, &v, NULL) == 0 && v == UINT64_MAX);
	CHECK(get_uv(over, 10, &v, NULL) == RONDO_E_CORRUPT);
	CHECK(get_uv(eleven, 11, &v, NULL) == RONDO_E_CORRUPT);
	CHECK(get_uv(tenzero, 10, &v, NULL) == RONDO_E_CORRUPT);
	CHECK(get_uv(max, 0, &v, &e) == RONDO_E_TRUNCATED);
	CHECK(e.code == RONDO_E_TRUNCATED);
}

static void test_svarint(void)
{
	static const int64_t v[] = {0,	       -1,	  1,	    -64,
				    63,	       -65,	  64,	    INT32_MIN,
				    INT32_MAX, INT64_MIN, INT64_MAX};
	static const uint64_t zz[] = {0,
				      1,
				      2,
				      127,
				      126,
				      129,
				      128,
				      UINT32_MAX,
				      UINT32_MAX - 1,
				      UINT64_MAX,
				      UINT64_MAX - 1};

	for (size_t i = 0; i < COUNTOF(v); i++) {
		struct fmt_buf b = {0};
		struct fmt_cur c;
		uint64_t u;
		int64_t x;

		fmt_put_svarint(&b, v[i]);
		fmt_cur_init(&c, b.data, b.len, "t", NULL);
		CHECK(fmt_get_uvarint(&c, &u) == 0);
		CHECKF(u == zz[i], "zigzag(%lld) = %llu", (long long)v[i],
		       (unsigned long long)u);
		fmt_cur_init(&c, b.data, b.len, "t", NULL);
		CHECK(fmt_get_svarint(&c, &x) == 0 && x == v[i]);
		fmt_buf_free(&b);
	}
}

static void test_fixed(void)
{
	struct fmt_buf b = {0};
	struct fmt_cur c;
	uint8_t u8;
	uint32_t u32;
	uint64_t u64;
	double d;

	fmt_put_u8(&b, 0xab);
	fmt_put_le32(&b, 0x01020304);
	fmt_put_le64(&b, UINT64_C(0x0102030405060708));
	fmt_put_f64(&b, -2.5);
	CHECK(b.len == 21 && b.data[1] == 4 && b.data[4] == 1);
	CHECK(b.data[5] == 8 && b.data[12] == 1);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_u8(&c, &u8) == 0 && u8 == 0xab);
	CHECK(fmt_get_le32(&c, &u32) == 0 && u32 == 0x01020304);
	CHECK(fmt_get_le64(&c, &u64) == 0 &&
	      u64 == UINT64_C(0x0102030405060708));
	CHECK(fmt_get_f64(&c, &d) == 0 && d == -2.5);
	CHECK(fmt_get_u8(&c, &u8) == RONDO_E_TRUNCATED);
	fmt_cur_init(&c, b.data, 3, "t", NULL);
	CHECK(fmt_get_le32(&c, &u32) == RONDO_E_TRUNCATED && c.pos == 0);
	fmt_cur_init(&c, b.data, 7, "t", NULL);
	CHECK(fmt_get_le64(&c, &u64) == RONDO_E_TRUNCATED);
	CHECK(fmt_get_f64(&c, &d) == RONDO_E_TRUNCATED);
	fmt_buf_free(&b);
}

static void test_count_bytes(void)
{
	struct fmt_buf b = {0};
	struct fmt_cur c;
	const uint8_t *s;
	uint32_t n;
	size_t len;

	fmt_put_uvarint(&b, 4);
	fmt_put_bytes(&b, "abcd", 4);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_count(&c, &n, 1) == 0 && n == 4);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_count(&c, &n, 2) == RONDO_E_TRUNCATED);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_count(&c, &n, 0) == 0 && n == 4);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_bytes(&c, &s, &len) == 0 && len == 4 &&
	      memcmp(s, "abcd", 4) == 0 && fmt_cur_end(&c) == 0);
	fmt_cur_init(&c, b.data, b.len - 1, "t", NULL);
	CHECK(fmt_get_bytes(&c, &s, &len) == RONDO_E_TRUNCATED);
	b.len = 0;
	fmt_put_uvarint(&b, UINT64_C(1) << 32);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_count(&c, &n, 1) == RONDO_E_CORRUPT);
	b.len = 0;
	fmt_put_str(&b, "xy");
	fmt_put_u8(&b, 0);
	fmt_cur_init(&c, b.data, b.len, "t", NULL);
	CHECK(fmt_get_bytes(&c, &s, &len) == 0 && fmt_cur_end(&c) != 0);
	fmt_buf_free(&b);
}

static void test_crc(void)
{
	CHECK(fmt_crc32c(0, "123456789", 9) == 0xE3069283u);
	CHECK(fmt_crc32c(0, "", 0) == 0);
	CHECK(fmt_crc32c(fmt_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u);
}

static void test_hist_bin(void)
{
	CHECK(fmt_hist_bin(0) == 0 && fmt_hist_bin(1) == 0);
	CHECK(fmt_hist_bin(2) == 1 && fmt_hist_bin(3) == 1);
	CHECK(fmt_hist_bin(4) == 2 && fmt_hist_bin(1023) == 9);
	CHECK(fmt_hist_bin(1024) == 10 && fmt_hist_bin(UINT64_MAX) == 63);
	for (unsigned k = 1; k < 64; k++)
		CHECK(fmt_hist_bin(UINT64_C(1) << k) == k &&
		      fmt_hist_bin((UINT64_C(1) << k) - 1) == k - 1);
}

static void test_fail(void)
{
	struct fmt_err e;

	memset(&e, 0xff, sizeof(e));
	CHECK(fmt_fail(&e, RONDO_E_CORRUPT, "grammar", 312, "rule %d", 7) ==
	      RONDO_E_CORRUPT);
	CHECK(e.code == RONDO_E_CORRUPT && e.offset == 312 && e.size == 0);
	CHECK(strcmp(e.section, "grammar") == 0 &&
	      strcmp(e.msg, "rule 7") == 0);
	CHECK(fmt_fail(NULL, RONDO_E_IO, NULL, 0, "x") == RONDO_E_IO);
	CHECK(strcmp(fmt_section_name(FMT_SEC_RANKMAP), "rankmap") == 0);
	CHECK(strcmp(fmt_section_name(0), "unknown") == 0);
	CHECK(strcmp(fmt_section_name(1000), "unknown") == 0);
}

/* ---- payload codecs ------------------------------------------------------ */

typedef int (*decode_fn)(const uint8_t *p, size_t n, struct fmt_err *e);

/* Every proper prefix must fail (never crash, never succeed), with an
 * error that points inside the bytes it was given. */
static void check_prefixes(const char *what, decode_fn fn,
			   const struct fmt_buf *b)
{
	struct fmt_err e;

	for (size_t k = 0; k <= b->len; k++) {
		uint8_t *p = dup_exact(b->data, k);
		int rc;

		memset(&e, 0, sizeof(e));
		rc = fn(p, k, &e);
		free(p);
		if (k == b->len) {
			CHECKF(rc == 0, "%s: full payload: %d %s", what, rc,
			       e.msg);
			continue;
		}
		CHECKF(rc == RONDO_E_TRUNCATED || rc == RONDO_E_CORRUPT,
		       "%s: prefix %zu of %zu: %d", what, k, b->len, rc);
		CHECKF(e.code == rc && e.size == k && e.offset <= k &&
			       e.section && e.msg[0],
		       "%s: prefix %zu: code %d size %llu offset %llu", what, k,
		       e.code, (unsigned long long)e.size,
		       (unsigned long long)e.offset);
	}
}

/* Also: one extra byte at the end must be refused. */
static void check_trailing(const char *what, decode_fn fn,
			   const struct fmt_buf *b)
{
	uint8_t *p = malloc(b->len + 1);
	struct fmt_err e = {0};

	memcpy(p, b->data, b->len);
	p[b->len] = 0;
	CHECKF(fn(p, b->len + 1, &e) == RONDO_E_CORRUPT && e.offset == b->len,
	       "%s: trailing byte accepted", what);
	free(p);
}

static int dec_meta(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_meta m;
	int rc = fmt_meta_decode(&m, p, n, e);

	fmt_meta_free(&m);
	return rc;
}

static int dec_funcs(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_funcs f;
	int rc = fmt_funcs_decode(&f, p, n, e);

	fmt_funcs_free(&f);
	return rc;
}

static int dec_consts(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_consts c;
	int rc = fmt_consts_decode(&c, p, n, e);

	fmt_consts_free(&c);
	return rc;
}

static int dec_cst(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_cst c;
	int rc = fmt_cst_decode(&c, p, n, 3, e);

	fmt_cst_free(&c);
	return rc;
}

static int dec_grammar(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_grammar g;
	uint64_t *len;
	int rc = fmt_grammar_decode(&g, p, n, 3, &len, e);

	CHECK(rc == 0 || (len == NULL && g.first == NULL && g.body == NULL));
	fmt_grammar_free(&g);
	free(len);
	return rc;
}

static int dec_rankmap(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_rankmap r;
	int rc = fmt_rankmap_decode(&r, p, n, 3, e);

	fmt_rankmap_free(&r);
	return rc;
}

static int dec_stats(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_stats s;
	int rc = fmt_stats_decode(&s, p, n, 3, e);

	fmt_stats_free(&s);
	return rc;
}

static int dec_sigstats(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_stats s;
	int rc = fmt_sigstats_decode(&s, p, n, 3, e);

	CHECK(rc == 0 || s.st == NULL);
	fmt_stats_free(&s);
	return rc;
}

static int dec_ranktime(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_ranktime r;
	int rc = fmt_ranktime_decode(&r, p, n, 4, 3, e);

	CHECK(rc == 0 || (r.at == NULL && r.sig == NULL && r.code == NULL));
	fmt_ranktime_free(&r);
	return rc;
}

static int dec_ranksum(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_ranksum s;
	int rc = fmt_ranksum_decode(&s, p, n, 10, 4, e);

	CHECK(rc == 0 ||
	      (s.mpi == NULL && s.s == NULL && s.ext == NULL && s.bin == NULL));
	fmt_ranksum_free(&s);
	return rc;
}

static int dec_groupgaps(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_groupgaps g;
	int rc = fmt_groupgaps_decode(&g, p, n, 3, 3, e);

	CHECK(rc == 0 || (g.root == NULL && g.at == NULL && g.e == NULL));
	fmt_groupgaps_free(&g);
	return rc;
}

static int dec_hists(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_hists h;
	int rc = fmt_hists_decode(&h, p, n, &fh_g, 4, e);

	CHECK(rc == 0 || (h.h == NULL && h.site == NULL && h.n == 0));
	if (rc == 0) {
		CHECK(h.precision == 90 && h.n == 2 && h.nsites == 3);
		CHECK(h.h[0].sum == 398 && h.h[0].min_rank == 1 &&
		      h.h[0].max_rank == 3 && h.h[0].nbins == 3);
		CHECK(h.h[1].bin[1].lo == 8 && h.h[1].bin[1].hi == 9);
		CHECK(fmt_hists_find(&h, 1, 2) == &h.h[0]);
		CHECK(fmt_hists_find(&h, 1, 1) == &h.h[1]);
		CHECK(fmt_hists_find(&h, 1, 0) == NULL &&
		      fmt_hists_find(&h, 2, 0) == NULL);
	}
	fmt_hists_free(&h);
	return rc;
}

/* Hists payloads that must fail: a site past its rule, bins that do not
 * add up, a bin past the maximum, a rank past the job. */
static void test_hists_bad(void)
{
	struct fmt_hsite past[] = {{0, 0, 0}, {1, 3, 0}};
	struct fmt_hbin short_b[] = {{38, 38, 3}, {40, 40, 5}};
	struct fmt_hbin wide[] = {{38, 43, 10}};
	struct fmt_hist h1[] = {
		{FMT_HIST_COUNT, 1, 3, 2, 10, 398, 38, 42, short_b}};
	struct fmt_hist h2[] = {
		{FMT_HIST_COUNT, 1, 3, 1, 10, 398, 38, 42, wide}};
	struct fmt_hist h3[] = {
		{FMT_HIST_COUNT, 4, 3, 3, 10, 398, 38, 42, fh_b0}};
	/* a site naming a histogram of values; a kind not known */
	struct fmt_hist h4[] = {
		{FMT_HIST_PARAM, 1, 3, 3, 10, 398, 38, 42, fh_b0}};
	struct fmt_hist h5[] = {
		{FMT_HIST_PARAM + 1, 1, 3, 3, 10, 398, 38, 42, fh_b0}};
	struct fmt_hists bad[] = {{90, 2, fh_h, 2, past},  {90, 1, h1, 1, fh_s},
				  {90, 1, h2, 1, fh_s},	   {90, 1, h3, 1, fh_s},
				  {100, 2, fh_h, 3, fh_s}, {90, 1, h4, 1, fh_s},
				  {90, 1, h5, 0, fh_s}};
	struct fmt_hists good = {90, 1, h4, 0, fh_s}; /* values: no site */
	struct fmt_hists got;
	struct fmt_buf gb = {0};
	struct fmt_err ge = {0};

	fmt_hists_encode(&gb, &good);
	CHECK(fmt_hists_decode(&got, gb.data, gb.len, &fh_g, 4, &ge) == 0 &&
	      got.n == 1 && got.h[0].kind == FMT_HIST_PARAM && got.nsites == 0);
	fmt_hists_free(&got);
	fmt_buf_free(&gb);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fmt_buf b = {0};
		struct fmt_hists h;
		struct fmt_err e = {0};

		fmt_hists_encode(&b, &bad[i]);
		CHECKF(fmt_hists_decode(&h, b.data, b.len, &fh_g, 4, &e) ==
			       RONDO_E_CORRUPT,
		       "bad hists %zu", i);
		fmt_buf_free(&b);
	}
}

static void check_codec(const char *what, void (*enc)(struct fmt_buf *),
			decode_fn fn)
{
	struct fmt_buf b = {0};

	enc(&b);
	CHECK(!b.oom);
	check_prefixes(what, fn, &b);
	check_trailing(what, fn, &b);
	fmt_buf_free(&b);
}

static void test_prefixes(void)
{
	check_codec("meta", fx_meta, dec_meta);
	check_codec("funcs", fx_funcs, dec_funcs);
	check_codec("consts", fx_consts, dec_consts);
	check_codec("cst", fx_cst, dec_cst);
	check_codec("grammar", fx_grammar, dec_grammar);
	check_codec("rankmap", fx_rankmap, dec_rankmap);
	check_codec("stats", fx_stats, dec_stats);
	check_codec("ranktime", fx_ranktime, dec_ranktime);
	check_codec("ranksum", fx_ranksum, dec_ranksum);
	check_codec("sigstats", fx_sigstats, dec_sigstats);
	check_codec("groupgaps", fx_groupgaps, dec_groupgaps);
	check_codec("hists", fx_hists, dec_hists);
	test_hists_bad();
}

static void test_strings(void)
{
	struct fmt_buf b = {0};
	struct fmt_meta m;
	struct fmt_funcs f;
	struct fmt_consts c;
	struct fmt_err e = {0};

	fx_meta(&b);
	CHECK(fmt_meta_decode(&m, b.data, b.len, NULL) == 0 && m.n == 3);
	CHECK(strcmp(m.kv[0].key, "program") == 0);
	CHECK(strcmp(m.kv[1].value, "4") == 0 && m.kv[2].value[0] == 0);
	fmt_meta_free(&m);
	fmt_meta_free(&m);
	b.len = 0;
	fx_funcs(&b);
	CHECK(fmt_funcs_decode(&f, b.data, b.len, NULL) == 0 && f.n == 3);
	CHECK(f.f[0].nparams == 0 && f.f[2].nparams == 7);
	CHECK(strcmp(f.f[1].name, "MPI_Send") == 0);
	CHECK(strcmp(f.f[2].params[6], "status") == 0);
	fmt_funcs_free(&f);
	b.len = 0;
	fx_consts(&b);
	CHECK(fmt_consts_decode(&c, b.data, b.len, NULL) == 0 && c.n == 3);
	CHECK(strcmp(c.name[1], "MPI_DOUBLE") == 0);
	fmt_consts_free(&c);
	/* A NUL inside a string: the offset names the NUL itself. */
	b.len = 0;
	fmt_put_uvarint(&b, 2);
	fmt_put_str(&b, "ok");
	fmt_put_uvarint(&b, 3);
	fmt_put_bytes(&b, "a\0b", 3);
	CHECK(fmt_consts_decode(&c, b.data, b.len, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 6 && strcmp(e.section, "consts") == 0);
	CHECK(c.n == 0 && c.name == NULL);
	/* Empty tables are legal. */
	b.len = 0;
	fmt_put_uvarint(&b, 0);
	CHECK(fmt_consts_decode(&c, b.data, b.len, NULL) == 0 && c.n == 0);
	fmt_consts_free(&c);
	fmt_buf_free(&b);
}

static int arg_decode(const struct fmt_buf *b, rondo_arg *a)
{
	struct fmt_cur c;
	uint8_t *p = dup_exact(b->data, b->len);
	int rc;

	fmt_cur_init(&c, p, b->len, "cst", NULL);
	rc = fmt_arg_get(&c, a);
	if (!rc)
		rc = fmt_cur_end(&c);
	free(p);
	return rc;
}

/* A list nested `depth` deep, innermost holding one INT. */
static void nested(struct fmt_buf *b, unsigned depth)
{
	b->len = 0;
	for (unsigned i = 0; i < depth; i++)
		fmt_arg_put_list(b, RONDO_ARG_ARRAY, 1);
	fmt_arg_put_sint(b, RONDO_ARG_INT, 1);
}

static void test_args(void)
{
	struct fmt_buf b = {0};
	struct fmt_cur c;
	rondo_arg a, el;

	fx_args_recv(&b);
	fmt_cur_init(&c, b.data, b.len, "cst", NULL);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.kind == RONDO_ARG_NULL &&
	      a.wire == RONDO_WIRE_NONE);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.wire == RONDO_WIRE_SINT &&
	      a.i == -5);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.kind == RONDO_ARG_DATATYPE &&
	      a.u == 3);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.i == 3);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.kind == RONDO_ARG_STATUS &&
	      a.wire == RONDO_WIRE_LIST && a.n == 2 && a.size == 4);
	{
		struct fmt_cur l;

		fmt_cur_init(&l, a.data, a.size, "cst", NULL);
		CHECK(fmt_arg_get(&l, &el) == 0 && el.kind == RONDO_ARG_RANK);
		CHECK(fmt_arg_get(&l, &el) == 0 && el.i == 7);
		CHECK(fmt_cur_end(&l) == 0);
	}
	/* Kinds from 16 up take two-byte tags. */
	CHECK(fmt_arg_get(&c, &a) == 0 && a.n == 2 && a.size == 11);
	{
		struct fmt_cur l, m;

		fmt_cur_init(&l, a.data, a.size, "cst", NULL);
		CHECK(fmt_arg_get(&l, &el) == 0 && el.n == 0 && el.size == 0);
		CHECK(fmt_arg_get(&l, &el) == 0 && el.n == 1 && el.size == 5);
		fmt_cur_init(&m, el.data, el.size, "cst", NULL);
		CHECK(fmt_arg_get(&m, &el) == 0 &&
		      el.wire == RONDO_WIRE_BYTES && el.size == 2 &&
		      el.data[0] == 0 && el.data[1] == 1);
		CHECK(fmt_cur_end(&l) == 0 && fmt_cur_end(&m) == 0);
	}
	CHECK(fmt_arg_get(&c, &a) == 0 && a.kind == RONDO_ARG_STRING &&
	      a.size == 5 && memcmp(a.data, "hello", 5) == 0);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.kind == 200 && a.u == 99);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.i == INT64_MIN);
	CHECK(fmt_arg_get(&c, &a) == 0 && a.u == UINT64_MAX);
	CHECK(fmt_cur_end(&c) == 0);
	fmt_buf_free(&b);
}

static void test_args_bad(void)
{
	struct fmt_buf b = {0};
	rondo_arg a;

	nested(&b, FMT_MAX_ARG_DEPTH);
	CHECK(arg_decode(&b, &a) == 0);
	nested(&b, FMT_MAX_ARG_DEPTH + 1);
	CHECK(arg_decode(&b, &a) == RONDO_E_CORRUPT);
	for (unsigned w = 5; w < 8; w++) {
		b.len = 0;
		fmt_put_uvarint(&b, (uint64_t)RONDO_ARG_INT << 3 | w);
		fmt_put_uvarint(&b, 1);
		CHECK(arg_decode(&b, &a) == RONDO_E_CORRUPT);
	}
	b.len = 0;
	fmt_put_uvarint(&b, (UINT64_C(1) << 32) << 3 | RONDO_WIRE_NONE);
	CHECK(arg_decode(&b, &a) == RONDO_E_CORRUPT);
	/* A list whose count promises more than there is. */
	b.len = 0;
	fmt_arg_put_list(&b, RONDO_ARG_ARRAY, 3);
	fmt_arg_put_none(&b, RONDO_ARG_NULL);
	fmt_arg_put_none(&b, RONDO_ARG_NULL);
	CHECK(arg_decode(&b, &a) == RONDO_E_TRUNCATED);
	fmt_buf_free(&b);
}

static void test_cst(void)
{
	struct fmt_buf b = {0}, a = {0};
	struct fmt_cst t;
	struct fmt_err e = {0};
	struct fmt_sig s;
	struct fmt_cst one = {1, &s, NULL};

	fx_cst(&b);
	if (fmt_cst_decode(&t, b.data, b.len, 3, NULL) != 0 || t.n != 3) {
		CHECKF(0, "cannot decode the fixture");
		return;
	}
	fx_args_recv(&a);
	CHECK(t.sig[2].func == 2 && t.sig[2].nargs == 10);
	CHECK(t.sig[2].len == a.len &&
	      memcmp(t.sig[2].args, a.data, a.len) == 0);
	CHECK(t.sig[0].len == 0 && t.sig[0].nargs == 0);
	/* The arguments live in the table's blob, not in the payload. */
	CHECK(t.sig[1].args >= t.blob && t.sig[2].args >= t.blob);
	fmt_cst_free(&t);
	CHECK(fmt_cst_decode(&t, b.data, b.len, 2, &e) == RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "cst") == 0 && e.size == b.len);

	/* Fewer values than nargs says, and more. */
	s = (struct fmt_sig){2, 9, (uint32_t)a.len, a.data};
	b.len = 0;
	fmt_cst_encode(&b, &one);
	CHECK(fmt_cst_decode(&t, b.data, b.len, 3, &e) == RONDO_E_CORRUPT);
	CHECK(e.size == b.len && e.offset < b.len);
	s.nargs = 11;
	b.len = 0;
	fmt_cst_encode(&b, &one);
	CHECK(fmt_cst_decode(&t, b.data, b.len, 3, &e) == RONDO_E_CORRUPT);
	CHECK(e.code == RONDO_E_CORRUPT && e.size == b.len);
	/* A value that runs past its signature's bytes. */
	s = (struct fmt_sig){2, 10, (uint32_t)a.len - 1, a.data};
	b.len = 0;
	fmt_cst_encode(&b, &one);
	fmt_put_u8(&b, 0);
	CHECK(fmt_cst_decode(&t, b.data, b.len, 3, &e) == RONDO_E_CORRUPT);
	CHECK(t.n == 0 && t.sig == NULL && t.blob == NULL);
	fmt_buf_free(&b);
	fmt_buf_free(&a);
}

static void test_grammar(void)
{
	struct fmt_buf b = {0};
	struct fmt_grammar g;
	uint64_t *len;

	fx_grammar(&b);
	CHECK(fmt_grammar_decode(&g, b.data, b.len, 3, &len, NULL) == 0);
	CHECK(g.nrules == 3);
	for (uint32_t r = 0; r <= 3; r++)
		CHECK(g.first[r] == fx_first[r]);
	for (uint32_t k = 0; k < 6; k++)
		CHECK(g.body[k].sym == fx_body[k].sym &&
		      g.body[k].count == fx_body[k].count &&
		      g.body[k].reserved == 0);
	for (uint32_t r = 0; r < 3; r++)
		CHECK(len[r] == fx_lengths[r]);
	free(len);
	fmt_grammar_free(&g);
	CHECK(fmt_grammar_decode(&g, b.data, b.len, 3, NULL, NULL) == 0);
	fmt_grammar_free(&g);
	/* Terminal 2 is out of range when there are only 2. */
	CHECK(fmt_grammar_decode(&g, b.data, b.len, 2, &len, NULL) ==
	      RONDO_E_CORRUPT);
	CHECK(len == NULL);
	/* The empty grammar. */
	b.len = 0;
	fmt_put_uvarint(&b, 0);
	CHECK(fmt_grammar_decode(&g, b.data, b.len, 0, &len, NULL) == 0);
	CHECK(g.nrules == 0 && g.first && g.first[0] == 0);
	free(len);
	fmt_grammar_free(&g);
	fmt_buf_free(&b);
}

/* One rule written word by word: the symbol count, then symbols (and the
 * count - 2 that follows a symbol with its low bit set). */
struct trule {
	size_t nw;
	uint64_t w[4];
};

static int raw_grammar(const struct trule *rules, uint32_t nrules,
		       uint32_t nterm, struct fmt_err *e)
{
	struct fmt_buf b = {0};
	struct fmt_grammar g;
	int rc;

	fmt_put_uvarint(&b, nrules);
	for (uint32_t r = 0; r < nrules; r++)
		for (size_t k = 0; k < rules[r].nw; k++)
			fmt_put_uvarint(&b, rules[r].w[k]);
	rc = fmt_grammar_decode(&g, b.data, b.len, nterm, NULL, e);
	fmt_grammar_free(&g);
	fmt_buf_free(&b);
	return rc;
}

#define TERM(id)  ((uint64_t)(id) << 2)
#define RULE(id)  ((uint64_t)(id) << 2 | 2)
#define TERMN(id) ((uint64_t)(id) << 2 | 1) /* count - 2 follows */
#define RULEN(id) ((uint64_t)(id) << 2 | 3)
#define BIG	  ((UINT64_C(1) << 62) - 2) /* count 2^62 */

static void test_grammar_bad(void)
{
	struct fmt_err e = {0};
	const struct trule fwd[] = {{2, {1, RULE(1)}}, {2, {1, TERM(0)}}};
	const struct trule self[] = {{2, {1, TERM(0)}},
				     {3, {2, TERM(0), RULE(1)}}};
	const struct trule oor[] = {{3, {2, TERM(0), TERM(5)}}};
	const struct trule ok[] = {{3, {1, TERMN(0), BIG}},
				   {3, {1, RULEN(0), 0}}};
	const struct trule over[] = {{3, {1, TERMN(0), BIG}},
				     {4, {2, RULEN(0), 0, TERM(0)}}};
	const struct trule over2[] = {{3, {1, TERMN(0), BIG}},
				      {3, {1, RULEN(0), BIG}}};
	const struct trule cnt[] = {{3, {1, TERMN(0), UINT64_MAX - 1}}};
	const struct trule cnt_max[] = {{3, {1, TERMN(0), UINT64_MAX - 2}}};
	const struct trule wide[] = {{2, {1, TERM(UINT64_C(1) << 31)}}};
	const struct trule empty[] = {{1, {0}},
				      {4, {3, TERM(0), TERM(0), TERM(0)}}};

	CHECK(raw_grammar(fwd, 2, 1, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 2 && strstr(e.msg, "undefined rule 1"));
	CHECK(raw_grammar(self, 2, 1, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 5);
	CHECK(raw_grammar(oor, 1, 5, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 3 && strstr(e.msg, "terminal 5"));
	CHECK(raw_grammar(oor, 1, 6, NULL) == 0);
	CHECK(raw_grammar(ok, 2, 1, NULL) == 0); /* 2^63 exactly */
	CHECK(raw_grammar(over, 2, 1, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "2^63") != NULL);
	CHECK(raw_grammar(over2, 2, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(raw_grammar(cnt, 1, 1, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "count") != NULL);
	CHECK(raw_grammar(cnt_max, 1, 1, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "2^63") != NULL);
	CHECK(raw_grammar(wide, 1, UINT32_MAX, NULL) == RONDO_E_CORRUPT);
	/* An empty rule is valid: the root of a rank that made no call. */
	CHECK(raw_grammar(empty, 2, 1, NULL) == 0);
}

/* Nested counts: r0 = t0^2^31, r_k = r_(k-1)^2^31: the length overflows
 * at r2 (2^93) however the sums are ordered. */
static void test_grammar_nested(void)
{
	struct fmt_buf b = {0};
	struct fmt_grammar g;
	struct fmt_err e = {0};

	fmt_put_uvarint(&b, 3);
	for (uint32_t r = 0; r < 3; r++) {
		fmt_put_uvarint(&b, 1);
		fmt_put_uvarint(&b, r ? RULEN(r - 1) : TERMN(0));
		fmt_put_uvarint(&b, (UINT64_C(1) << 31) - 2);
	}
	CHECK(fmt_grammar_decode(&g, b.data, b.len, 1, NULL, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "rule 2") != NULL);
	fmt_grammar_free(&g);
	fmt_buf_free(&b);
}

static void test_rankmap(void)
{
	struct fmt_buf b = {0};
	struct fmt_rankmap r;
	struct fmt_err e = {0};
	rondo_sym body[] = {T(1, 3), T(2, 1)};
	uint32_t first[] = {0, 2};
	struct fmt_rankmap bad = {5, {1, first, body}};

	fx_rankmap(&b);
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 3, NULL) == 0);
	CHECK(r.nranks == 4 && r.map.nrules == 1 && r.map.body[0].count == 3);
	fmt_rankmap_free(&r);
	/* Its terminals are rules of the main grammar. */
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 2, &e) == RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "rankmap") == 0);
	b.len = 0;
	fmt_rankmap_encode(&b, &bad);
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 3, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "4 ranks") != NULL && e.offset == 0);
	bad.nranks = 3;
	b.len = 0;
	fmt_rankmap_encode(&b, &bad);
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 3, NULL) ==
	      RONDO_E_CORRUPT);
	bad.nranks = 0;
	b.len = 0;
	fmt_rankmap_encode(&b, &bad);
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 3, NULL) ==
	      RONDO_E_CORRUPT);
	/* An empty map has no last rule. */
	b.len = 0;
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	CHECK(fmt_rankmap_decode(&r, b.data, b.len, 3, &e) == RONDO_E_CORRUPT);
	CHECK(r.map.first == NULL);
	fmt_buf_free(&b);
}

static void test_stats(void)
{
	struct fmt_buf b = {0};
	struct fmt_stats want, got;

	fx_stats_fill(&want);
	fmt_stats_encode(&b, &want);
	CHECK(fmt_stats_decode(&got, b.data, b.len, 3, NULL) == 0);
	CHECK(got.n == 2);
	for (uint32_t i = 0; got.n == 2 && i < 2; i++)
		CHECK(got.st[i].sig == want.st[i].sig &&
		      memcmp(&got.st[i].s, &want.st[i].s, sizeof(rondo_stat)) ==
			      0);
	fmt_stats_free(&got);
	/* Signature 2 does not exist when there are 2. */
	CHECK(fmt_stats_decode(&got, b.data, b.len, 2, NULL) ==
	      RONDO_E_CORRUPT);
	fmt_buf_free(&b);
}

/* The compact statistics: the same counts, totals, extremes and
 * histograms; the deviation within 1/128; what a reader checks. */
static double stat_sd(const rondo_stat *s)
{
	double m = (double)s->total_ns / (double)s->count;
	double v = s->sumsq_ns2 / (double)s->count - m * m;

	return v > 0 ? sqrt(v) : 0;
}

/* s's first statistic encoded compact after edit(bytes) at its end, then
 * decoded against nsigs signatures. */
static int sigstat_bytes(const uint64_t *v, size_t n, uint32_t nsigs,
			 struct fmt_err *e)
{
	struct fmt_buf b = {0};
	struct fmt_stats got;
	int rc;

	for (size_t i = 0; i < n; i++)
		fmt_put_uvarint(&b, v[i]);
	rc = fmt_sigstats_decode(&got, b.data, b.len, nsigs, e);
	fmt_stats_free(&got);
	fmt_buf_free(&b);
	return rc;
}

/* A groupgaps payload of uvarints v, decoded over 3 rules and 3
 * signatures. */
static int groupgaps_bytes(const uint64_t *v, size_t n, struct fmt_err *e)
{
	struct fmt_buf b = {0};
	int rc;

	for (size_t i = 0; i < n; i++)
		fmt_put_uvarint(&b, v[i]);
	rc = dec_groupgaps(b.data, b.len, e);
	fmt_buf_free(&b);
	return rc;
}

static void test_groupgaps(void)
{
	struct fmt_buf b = {0};
	struct fmt_groupgaps got;
	const struct fmt_gapent *x;
	struct fmt_err e = {0};

	fx_groupgaps(&b);
	CHECK(fmt_groupgaps_decode(&got, b.data, b.len, 3, 3, &e) == 0);
	CHECK(got.n == 2 && got.root[0] == 0 && got.root[1] == 2);
	CHECK(got.at[0] == 0 && got.at[1] == 2 && got.at[2] == 3);
	for (int i = 0; got.n == 2 && i < 3; i++)
		CHECKF(got.e[i].sig == fg_e[i].sig &&
			       got.e[i].calls == fg_e[i].calls &&
			       got.e[i].ns == fg_e[i].ns,
		       "entry %d: %u %llu %llu", i, got.e[i].sig,
		       (unsigned long long)got.e[i].calls,
		       (unsigned long long)got.e[i].ns);
	x = fmt_groupgaps_find(&got, 0, 2);
	CHECK(x && x->calls == 1);
	x = fmt_groupgaps_find(&got, 1, 1);
	CHECK(x && x->ns == (UINT64_C(1) << 40) + 3);
	CHECK(!fmt_groupgaps_find(&got, 0, 1) &&
	      !fmt_groupgaps_find(&got, 1, 0));
	CHECK(!fmt_groupgaps_find(&got, 2, 0));
	fmt_groupgaps_free(&got);
	/* a rule or a signature past the last */
	CHECK(fmt_groupgaps_decode(&got, b.data, b.len, 2, 3, &e) ==
		      RONDO_E_CORRUPT &&
	      strcmp(e.section, "groupgaps") == 0 && strstr(e.msg, "rule"));
	CHECK(fmt_groupgaps_decode(&got, b.data, b.len, 3, 2, &e) ==
		      RONDO_E_CORRUPT &&
	      strstr(e.msg, "signature"));
	fmt_buf_free(&b);
	/* groups, root, entries, (sig, calls, ns) */
	CHECK(groupgaps_bytes((uint64_t[]){1, 2, 1, 1, 4, 9}, 6, &e) == 0);
	CHECK(groupgaps_bytes((uint64_t[]){0}, 1, &e) == 0);
	/* a time before no call */
	CHECK(groupgaps_bytes((uint64_t[]){1, 0, 1, 0, 0, 5}, 6, &e) ==
		      RONDO_E_CORRUPT &&
	      strstr(e.msg, "no call"));
	/* the second group's rule at 0 + 1 + 2 = 3: past the last */
	CHECK(groupgaps_bytes((uint64_t[]){2, 0, 0, 2, 0}, 5, &e) ==
		      RONDO_E_CORRUPT &&
	      strstr(e.msg, "rule"));
	/* signatures must increase: 1, then 1 + 1 + 1 = 3 */
	CHECK(groupgaps_bytes((uint64_t[]){1, 0, 2, 1, 1, 1, 1, 1, 1}, 9, &e) ==
		      RONDO_E_CORRUPT &&
	      strstr(e.msg, "signature"));
	/* more groups than the bytes could hold */
	CHECK(groupgaps_bytes((uint64_t[]){3, 0, 0}, 3, &e) ==
		      RONDO_E_TRUNCATED &&
	      strstr(e.msg, "do not fit"));
}

static void test_sigstats(void)
{
	struct fmt_buf b = {0}, old = {0};
	struct fmt_stats want, got;
	struct fmt_err e = {0};

	/* smaller for calls whose bins follow each other */
	fx_stats_fill(&want);
	want.n = 1;
	fmt_sigstats_encode(&b, &want);
	fmt_stats_encode(&old, &want);
	CHECKF(b.len + 8 <= old.len, "%zu bytes, stats %zu", b.len, old.len);
	fmt_buf_free(&b);
	fx_stats_fill(&want);
	fmt_sigstats_encode(&b, &want);
	CHECK(fmt_sigstats_decode(&got, b.data, b.len, 3, &e) == 0);
	CHECK(got.n == 2);
	for (uint32_t i = 0; got.n == 2 && i < 2; i++) {
		const rondo_stat *x = &got.st[i].s, *y = &want.st[i].s;
		double a = stat_sd(x), c = stat_sd(y);

		CHECK(got.st[i].sig == want.st[i].sig);
		CHECK(x->count == y->count && x->total_ns == y->total_ns &&
		      x->min_ns == y->min_ns && x->max_ns == y->max_ns &&
		      memcmp(x->hist, y->hist, sizeof(x->hist)) == 0);
		CHECKF(fabs(a - c) <= c / 128 + 1, "sd %g, want %g", a, c);
	}
	fmt_stats_free(&got);
	CHECK(fmt_sigstats_decode(&got, b.data, b.len, 2, &e) ==
		      RONDO_E_CORRUPT &&
	      strcmp(e.section, "sigstats") == 0);
	fmt_buf_free(&b);
	fmt_buf_free(&old);
	/* n, sig, total, min, range, sd, bins from bin(min) to bin(max) */
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 4000, 900, 200, 100, 2, 2}, 8, 1,
			    &e) == 0);
	/* an empty end bin: the fastest's, the slowest's */
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 4000, 900, 200, 100, 0, 4}, 8, 1,
			    &e) == RONDO_E_CORRUPT &&
	      strstr(e.msg, "bin 9 holds 0"));
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 4000, 900, 200, 100, 4, 0}, 8, 1,
			    &e) == RONDO_E_CORRUPT &&
	      strstr(e.msg, "bin 10 holds 0"));
	/* a deviation past the largest time code */
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 4000, 900, 200,
					 FMT_TIME_CODE_MAX + 1, 2, 2},
			    8, 1, &e) == RONDO_E_CORRUPT &&
	      strstr(e.msg, "time code"));
	/* a total four calls of 900 to 1100 ns cannot make */
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 5000, 900, 200, 100, 2, 2}, 8, 1,
			    &e) == RONDO_E_CORRUPT &&
	      strstr(e.msg, "impossible"));
	/* a maximum past 2^64 */
	CHECK(sigstat_bytes(
		      (uint64_t[]){1, 0, 4000, 900, UINT64_MAX, 100, 2, 2}, 8,
		      1, &e) == RONDO_E_CORRUPT &&
	      strstr(e.msg, "overflows"));
	/* the histogram stops early */
	CHECK(sigstat_bytes((uint64_t[]){1, 0, 4000, 900, 200, 100, 2}, 7, 1,
			    &e) == RONDO_E_TRUNCATED);
}

/* Encodes one record of fx_stats' first entry after `edit`. */
static int stat_edited(void (*edit)(struct fmt_stat *), uint32_t nsigs,
		       struct fmt_err *e)
{
	struct fmt_buf b = {0};
	struct fmt_stats s, got;
	struct fmt_stat st;
	int rc;

	fx_stats_fill(&s);
	st = s.st[0];
	edit(&st);
	s.n = 1;
	s.st = &st;
	fmt_stats_encode(&b, &s);
	rc = fmt_stats_decode(&got, b.data, b.len, nsigs, e);
	fmt_stats_free(&got);
	fmt_buf_free(&b);
	return rc;
}

static void ed_none(struct fmt_stat *s)
{
	(void)s;
}
static void ed_count0(struct fmt_stat *s)
{
	s->s.count = 0;
}
static void ed_hist(struct fmt_stat *s)
{
	s->s.hist[3] = 1;
}
static void ed_total_lo(struct fmt_stat *s)
{
	s->s.total_ns = 3599;
}
static void ed_total_hi(struct fmt_stat *s)
{
	s->s.total_ns = 4401;
}
static void ed_min_big(struct fmt_stat *s)
{
	s->s.min_ns = UINT64_C(1) << 62;
	s->s.max_ns = UINT64_C(1) << 62;
}
static void ed_nan(struct fmt_stat *s)
{
	s->s.sumsq_ns2 = NAN;
}
static void ed_neg(struct fmt_stat *s)
{
	s->s.sumsq_ns2 = -1;
}
static void ed_sig(struct fmt_stat *s)
{
	s->sig = 5;
}
static void ed_minmax(struct fmt_stat *s)
{
	s->s.max_ns = 899;
}

static void test_stats_bad(void)
{
	struct fmt_err e = {0};
	struct fmt_buf b = {0};
	struct fmt_stats got;

	CHECK(stat_edited(ed_none, 1, NULL) == 0);
	CHECK(stat_edited(ed_count0, 1, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 2 && strcmp(e.section, "stats") == 0);
	CHECK(stat_edited(ed_hist, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_total_lo, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_total_hi, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_min_big, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_nan, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_neg, 1, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_sig, 5, NULL) == RONDO_E_CORRUPT);
	CHECK(stat_edited(ed_sig, 6, NULL) == 0);
	/* max < min wraps the stored range; the reader must still refuse. */
	CHECK(stat_edited(ed_minmax, 1, NULL) == RONDO_E_CORRUPT);
	/* Histogram bins 64 and beyond, and an empty bin listed. */
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 5);
	fmt_put_uvarint(&b, 5);
	fmt_put_uvarint(&b, 0);
	fmt_put_f64(&b, 25);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 1);
	CHECK(fmt_stats_decode(&got, b.data, b.len, 1, NULL) == 0);
	fmt_stats_free(&got);
	b.data[b.len - 2] = 64;
	CHECK(fmt_stats_decode(&got, b.data, b.len, 1, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == b.len - 2);
	b.data[b.len - 2] = 2;
	b.data[b.len - 1] = 0;
	CHECK(fmt_stats_decode(&got, b.data, b.len, 1, NULL) ==
	      RONDO_E_CORRUPT);
	fmt_buf_free(&b);
}

/* ---- the container ------------------------------------------------------- */

/* Loads and decodes every known section of a fixture-shaped file. */
static int open_all(const uint8_t *p, size_t n, struct fmt_err *e)
{
	struct fmt_container c;
	uint8_t *sec[16] = {0};
	size_t len[16] = {0};
	int rc = fmt_container_parse(&c, p, n, e);
	decode_fn dec[16] = {[FMT_SEC_META] = dec_meta,
			     [FMT_SEC_FUNCS] = dec_funcs,
			     [FMT_SEC_CONSTS] = dec_consts,
			     [FMT_SEC_CST] = dec_cst,
			     [FMT_SEC_GRAMMAR] = dec_grammar,
			     [FMT_SEC_RANKMAP] = dec_rankmap,
			     [FMT_SEC_STATS] = dec_stats,
			     [FMT_SEC_RANKTIME] = dec_ranktime,
			     [FMT_SEC_RANKSUM] = dec_ranksum,
			     [FMT_SEC_SIGSTATS] = dec_sigstats};

	for (uint32_t t = 1; !rc && t < 16; t++) {
		int i = fmt_container_find(&c, t);

		if (!dec[t])
			continue;
		if (i < 0) {
			rc = RONDO_E_MISSING;
			break;
		}
		rc = fmt_section_load(&c, (uint32_t)i, &sec[t], &len[t], e);
		if (!rc)
			rc = dec[t](sec[t], len[t], e);
	}
	for (size_t t = 0; t < COUNTOF(sec); t++)
		free(sec[t]);
	fmt_container_free(&c);
	return rc;
}

static void test_roundtrip(void)
{
	struct fmt_buf f = {0}, want = {0};
	struct fmt_container c;
	struct fmt_err e = {0};
	uint8_t *out;
	size_t len;
	int i;

	fx_file(&f, 3);
	CHECK(open_all(f.data, f.len, &e) == 0);
	CHECK(fmt_container_parse(&c, f.data, f.len, NULL) == 0);
	CHECK(c.major == RONDO_FORMAT_MAJOR && c.minor == RONDO_FORMAT_MINOR);
	/* the writer's index first, then the sections as added */
	CHECK(c.nsec == 12 && c.sec[0].type == FMT_SEC_INDEX &&
	      c.sec[4].type == 999);
	CHECK(fmt_container_find(&c, 42) == -1);
	/* The unknown section is listed and loadable, and readers skip it. */
	i = fmt_container_find(&c, 999);
	CHECK(i == 4);
	CHECK(fmt_section_load(&c, 4, &out, &len, NULL) == 0 && len == 6 &&
	      memcmp(out, "future", 6) == 0);
	free(out);
	i = fmt_container_find(&c, FMT_SEC_META);
	CHECK(fmt_section_load(&c, (uint32_t)i, &out, &len, NULL) == 0);
	fx_meta(&want);
	CHECK(len == want.len && memcmp(out, want.data, len) == 0);
	free(out);
	CHECK(fmt_section_load(&c, 12, &out, &len, &e) == RONDO_E_RANGE);
	CHECK(out == NULL && len == 0);
	fmt_container_free(&c);
	fmt_container_free(&c);
	fmt_buf_free(&want);
	fmt_buf_free(&f);
}

static void test_codecs_used(void)
{
	struct fmt_writer w;
	struct fmt_buf f = {0};
	struct fmt_container c;
	uint8_t big[4096];
	uint8_t *out;
	size_t len;

	memset(big, 'x', sizeof(big));
	fmt_writer_init(&w);
	CHECK(fmt_writer_add(&w, FMT_SEC_META, "ab", 2, 3) == 0);
	CHECK(fmt_writer_add(&w, FMT_SEC_FUNCS, big, sizeof(big), 3) == 0);
	CHECK(fmt_writer_add(&w, FMT_SEC_CONSTS, NULL, 0, 3) == 0);
	/* a copied file's index is left out: the writer makes its own */
	CHECK(fmt_writer_add(&w, FMT_SEC_INDEX, "RIDX", 4, 3) == 0);
	CHECK(fmt_writer_finish(&w, &f) == 0);
	CHECK(fmt_container_parse(&c, f.data, f.len, NULL) == 0);
	CHECK(c.nsec == 4 && fmt_container_find(&c, FMT_SEC_INDEX) == 0);
	CHECK(c.sec[0].type == FMT_SEC_INDEX &&
	      c.sec[0].codec == FMT_CODEC_RAW);
	CHECK(c.sec[1].codec == FMT_CODEC_RAW && c.sec[1].stored == 2);
	CHECK(c.sec[2].codec == FMT_CODEC_ZSTD && c.sec[2].stored < 100 &&
	      c.sec[2].raw == sizeof(big));
	CHECK(c.sec[3].codec == FMT_CODEC_RAW && c.sec[3].raw == 0);
	CHECK(fmt_section_load(&c, 2, &out, &len, NULL) == 0 &&
	      len == sizeof(big) && memcmp(out, big, len) == 0);
	free(out);
	CHECK(fmt_section_load(&c, 3, &out, &len, NULL) == 0 && out &&
	      len == 0);
	free(out);
	fmt_container_free(&c);
	fmt_buf_free(&f);
	fmt_writer_free(&w);
}

/* The index FORMAT.md describes for sections s[1..n], in x. */
static void build_index(struct fmt_buf *x, const struct tsec *s, uint32_t n)
{
	uint8_t crc[4];

	memset(x, 0, sizeof(*x));
	fmt_put_bytes(x, "RIDX", 4);
	fmt_put_u8(x, (uint8_t)n); /* n < 128: one byte */
	for (uint32_t i = 1; i <= n; i++) {
		fmt_put_uvarint(x, s[i].type);
		fmt_put_uvarint(x, s[i].codec);
		fmt_put_uvarint(x, s[i].len);
		fmt_put_uvarint(x, s[i].raw);
		put_le32_at(crc, fmt_crc32c(0, s[i].stored, s[i].len));
		fmt_put_bytes(x, crc, 4);
	}
	put_le32_at(crc, fmt_crc32c(0, x->data, x->len));
	fmt_put_bytes(x, crc, 4);
}

/* The writer and the hand-built layout of FORMAT.md agree byte for byte. */
static void test_layout(void)
{
	struct fmt_writer w;
	struct fmt_buf a = {0}, b, x;
	struct tsec s[] = {{FMT_SEC_INDEX, 0, NULL, 0, 0},
			   {7, 0, "abc", 3, 3},
			   {12345, 0, "", 0, 0}};

	/* The empty file first: a header, an empty index and the table. */
	for (uint32_t n = 0; n <= 2; n += 2) {
		fmt_writer_init(&w);
		for (uint32_t i = 1; i <= n; i++)
			fmt_writer_add(&w, s[i].type, s[i].stored, s[i].len,
				       19);
		CHECK(fmt_writer_finish(&w, &a) == 0);
		build_index(&x, s, n);
		s[0].stored = x.data;
		s[0].len = x.len;
		s[0].raw = x.len;
		build(&b, RONDO_FORMAT_MAJOR, RONDO_FORMAT_MINOR, s, n + 1);
		CHECK(x.len ==
		      4 + 1 + (n ? 8 + 9 : 0) + 4); /* 12345: 2 bytes */
		CHECK(a.len == 32 + x.len + (n ? 3 : 0) + (n + 1) * 40 + 4);
		fmt_buf_free(&x);
		CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		CHECK(parse_load(a.data, a.len, NULL) == 0);
		fmt_buf_free(&a);
		fmt_buf_free(&b);
		fmt_writer_free(&w);
	}
}

static void test_versions(void)
{
	struct fmt_buf f = {0};
	struct fmt_err e = {0};

	fx_file(&f, 3);
	set_version(&f, RONDO_FORMAT_MAJOR, RONDO_FORMAT_MINOR + 1);
	CHECK(open_all(f.data, f.len, NULL) == 0);
	set_version(&f, RONDO_FORMAT_MAJOR + 1, 0);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_VERSION);
	CHECK(strstr(e.msg, "2.0") && strstr(e.msg, "1.x") &&
	      strstr(e.msg, "upgrade") && e.section == NULL);
	/* A newer major may lay out its header differently: its header
	 * checksum is not even looked at. */
	f.data[28] ^= 1;
	CHECK(parse_load(f.data, f.len, NULL) == RONDO_E_VERSION);
	set_version(&f, 0, 9);
	CHECK(parse_load(f.data, f.len, NULL) == RONDO_E_CORRUPT);
	set_version(&f, RONDO_FORMAT_MAJOR, RONDO_FORMAT_MINOR);
	f.data[3] = 'X';
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_NOTRONDO);
	CHECK(parse_load((const uint8_t *)"hello", 5, NULL) ==
	      RONDO_E_NOTRONDO);
	CHECK(parse_load((const uint8_t *)"\x89RND", 4, NULL) ==
	      RONDO_E_TRUNCATED);
	CHECK(parse_load((const uint8_t *)"", 0, NULL) == RONDO_E_TRUNCATED);
	fmt_buf_free(&f);
}

static void test_table_rules(void)
{
	struct fmt_buf f;
	struct fmt_err e = {0};
	struct tsec s[] = {
		{1, 0, "ab", 2, 2}, {2, 0, "cd", 2, 2}, {1, 0, "ef", 2, 2}};
	uint8_t *p;

	/* Two sections of one known type. */
	build(&f, 1, 0, s, 3);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "repeats") != NULL);
	fmt_buf_free(&f);
	/* Two of an unknown type are fine. */
	s[0].type = s[2].type = 77;
	build(&f, 1, 0, s, 3);
	CHECK(parse_load(f.data, f.len, NULL) == 0);
	/* A byte after the table. */
	p = dup_exact(f.data, f.len + 1);
	CHECK(parse_load(p, f.len + 1, &e) == RONDO_E_CORRUPT);
	free(p);
	/* Sections must tile the space between header and table. */
	put_le64_at(entry_at(&f, 1) + 16, 5);
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "table") && e.offset == 32 + 6 + 40 + 16);
	put_le64_at(entry_at(&f, 1) + 16, UINT64_MAX - 40);
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	put_le64_at(entry_at(&f, 1) + 16, 2);
	put_le64_at(entry_at(&f, 1) + 8, 31);
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	put_le64_at(entry_at(&f, 1) + 8, 35);
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "starts at byte 35, not 34") != NULL);
	put_le64_at(entry_at(&f, 1) + 8, 34);
	put_le64_at(entry_at(&f, 2) + 16, 1);
	put_le32_at(entry_at(&f, 2) + 32, fmt_crc32c(0, "e", 1));
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "bytes 37 to 37 belong to no section") &&
	      e.offset == 32 + 5);
	put_le64_at(entry_at(&f, 2) + 16, 2);
	put_le32_at(entry_at(&f, 2) + 32, fmt_crc32c(0, "ef", 2));
	retable(&f);
	CHECK(parse_load(f.data, f.len, NULL) == 0);
	fmt_buf_free(&f);
}

static void test_entry_rules(void)
{
	struct fmt_buf f;
	struct fmt_err e = {0};
	struct tsec s[] = {{1, 0, "ab", 2, 2}, {2, 0, "cd", 2, 2}};

	build(&f, 1, 0, s, 2);
	CHECK(parse_load(f.data, f.len, NULL) == 0);
	/* An unknown codec: corrupt, or "upgrade" if the file is newer. */
	put_le32_at(entry_at(&f, 1) + 4, 9);
	retable(&f);
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "funcs") == 0);
	set_version(&f, 1, RONDO_FORMAT_MINOR + 1);
	CHECK(parse_load(f.data, f.len, NULL) == RONDO_E_VERSION);
	/* Raw sections must not claim another size. */
	put_le32_at(entry_at(&f, 1) + 4, 0);
	put_le64_at(entry_at(&f, 1) + 24, 3);
	retable(&f);
	CHECK(parse_load(f.data, f.len, NULL) == RONDO_E_CORRUPT);
	/* Too many sections. */
	put_le32_at(f.data + 12, FMT_MAX_SECTIONS + 1);
	put_le32_at(f.data + 28, fmt_crc32c(0, f.data, 28));
	CHECK(parse_load(f.data, f.len, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 12 && e.size == f.len);
	fmt_buf_free(&f);
}

/* Every flipped byte fails the parse or a section's load, except in the
 * table, which the index then stands in for. */
static void test_corruption(void)
{
	static const uint8_t masks[] = {0x01, 0x80, 0xff};
	struct fmt_buf f = {0};
	struct fmt_err e;
	uint64_t tab;

	fx_file(&f, 3);
	tab = get_le64_at(f.data + 16);
	for (size_t i = 0; i < f.len; i++) {
		for (size_t m = 0; m < sizeof(masks); m++) {
			uint8_t *p = dup_exact(f.data, f.len);
			struct fmt_container c;
			int rc, bad;

			p[i] ^= masks[m];
			rc = parse_load(p, f.len, &e);
			rc = rc ? rc : open_all(p, f.len, &e);
			bad = fmt_container_parse(&c, p, f.len, NULL) == 0 &&
			      c.table_bad && c.from_index;
			fmt_container_free(&c);
			CHECKF(i >= tab ? rc == 0 && bad : is_error_code(rc),
			       "byte %zu ^ 0x%02x: %d", i, masks[m], rc);
			free(p);
		}
	}
	fmt_buf_free(&f);
}

/* A file without an index, cut inside its table: the entries there whole
 * are read, and the sections they miss counted as lost. */
static void test_cut_table(void)
{
	struct fmt_buf f;
	struct fmt_container c;
	struct fmt_err e = {0};
	struct tsec s[] = {
		{1, 0, "ab", 2, 2}, {2, 0, "cd", 2, 2}, {3, 0, "ef", 2, 2}};
	uint64_t tab;

	build(&f, 1, RONDO_FORMAT_MINOR, s, 3);
	tab = get_le64_at(f.data + 16);
	CHECK(fmt_container_parse(&c, f.data, f.len - 7, NULL) == 0);
	CHECK(c.nsec == 2 && c.lost == 1 && c.want == f.len && !c.from_index);
	CHECK(c.sec[1].type == 2 && c.sec[1].state == FMT_SEC_WHOLE);
	fmt_container_free(&c);
	CHECK(fmt_container_parse(&c, f.data, tab + 39, &e) ==
	      RONDO_E_TRUNCATED);
	CHECK(strstr(e.msg, "truncated: 77 of 162 bytes; the section table "
			    "is lost") != NULL);
	fmt_buf_free(&f);
}

/* Every cut of a complete file: once the index is whole, the sections
 * before the cut load and those it cuts fail as truncated; before that,
 * the file is refused as truncated. */
static void test_truncation(void)
{
	struct fmt_buf f = {0};
	struct fmt_container whole, c;
	struct fmt_err e;

	fx_file(&f, 3);
	CHECK(fmt_container_parse(&whole, f.data, f.len, NULL) == 0);
	for (size_t k = 0; k < f.len; k++) {
		uint8_t *p = dup_exact(f.data, k);
		int rc = fmt_container_parse(&c, p, k, &e);
		uint64_t ix = FMT_HEADER_SIZE + whole.sec[0].stored;

		CHECKF(k < ix ? rc == RONDO_E_TRUNCATED : rc == 0,
		       "length %zu: %d", k, rc);
		if (rc == 0) {
			CHECK(c.want == f.len && c.from_index && !c.lost &&
			      c.nsec == whole.nsec);
			for (uint32_t i = 0; i < c.nsec; i++) {
				const struct fmt_entry *s = &c.sec[i];
				uint8_t *out;
				size_t len;
				int lrc =
					fmt_section_load(&c, i, &out, &len, &e);

				free(out);
				CHECKF(s->offset + s->stored <= k
					       ? lrc == 0 &&
							 s->state ==
								 FMT_SEC_WHOLE
					       : lrc == RONDO_E_TRUNCATED &&
							 s->state ==
								 FMT_SEC_CUT,
				       "length %zu, section %u: %d", k, i, lrc);
			}
		}
		fmt_container_free(&c);
		free(p);
	}
	fmt_container_free(&whole);
	fmt_buf_free(&f);
}

/* ---- zstd sections that lie ---------------------------------------------- */

/* A zstd frame of `src`, with or without its content size. */
static size_t frame(void *dst, size_t cap, const void *src, size_t n,
		    int with_size)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	size_t r;

	ZSTD_CCtx_setParameter(z, ZSTD_c_contentSizeFlag, with_size);
	r = ZSTD_compress2(z, dst, cap, src, n);
	ZSTD_freeCCtx(z);
	if (ZSTD_isError(r))
		abort();
	return r;
}

static int load_one(const void *stored, size_t len, uint64_t raw,
		    struct fmt_err *e)
{
	struct tsec s = {FMT_SEC_GRAMMAR, FMT_CODEC_ZSTD, stored, len, raw};
	struct fmt_buf f;
	int rc;

	build(&f, 1, 0, &s, 1);
	rc = parse_load(f.data, f.len, e);
	fmt_buf_free(&f);
	return rc;
}

static void test_zstd_lies(void)
{
	static uint8_t src[100000], z[2 * sizeof(src)];
	struct fmt_err e = {0};
	size_t n;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 / 1000);
	for (int with = 0; with < 2; with++) {
		n = frame(z, sizeof(z), src, sizeof(src), with);
		CHECK(load_one(z, n, sizeof(src), &e) == 0);
		CHECK(load_one(z, n, sizeof(src) + 1, &e) == RONDO_E_CORRUPT);
		CHECK(strcmp(e.section, "grammar") == 0);
		CHECK(load_one(z, n, sizeof(src) - 1, &e) == RONDO_E_CORRUPT);
		CHECK(load_one(z, n, 1000, &e) == RONDO_E_CORRUPT);
		CHECK(load_one(z, n, 0, &e) == RONDO_E_CORRUPT);
		/* A gigantic claim is refused before anything is allocated. */
		CHECK(load_one(z, n, UINT64_C(1) << 40, &e) == RONDO_E_CORRUPT);
		CHECK(load_one(z, n, UINT64_MAX, &e) == RONDO_E_CORRUPT);
		/* Cut frames, and a frame followed by more. */
		CHECK(is_error_code(load_one(z, n - 1, sizeof(src), &e)));
		CHECK(is_error_code(load_one(z, n / 2, sizeof(src), &e)));
		CHECK(is_error_code(load_one(z, 3, sizeof(src), &e)));
		memcpy(z + n, z, n);
		CHECK(load_one(z, 2 * n, sizeof(src), &e) == RONDO_E_CORRUPT);
		CHECK(load_one(z, 2 * n, 2 * sizeof(src), &e) ==
		      RONDO_E_CORRUPT);
		z[n] = 0;
		CHECK(load_one(z, n + 1, sizeof(src), &e) == RONDO_E_CORRUPT);
		CHECK(strstr(e.msg, "after the zstd frame") != NULL);
	}
	n = frame(z, sizeof(z), src, sizeof(src), 0);
	CHECK(load_one(z, n - 1, sizeof(src), &e) == RONDO_E_TRUNCATED);
	CHECK(load_one("abcdefgh", 8, 8, &e) == RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "zstd") != NULL);
	/* An empty frame of an empty payload. */
	n = frame(z, sizeof(z), "", 0, 1);
	CHECK(load_one(z, n, 0, &e) == 0);
	CHECK(load_one(z, n, 1, &e) == RONDO_E_CORRUPT);
}

/* Sizes and levels that exercise the window limit and buffer growth. */
static void test_zstd_sizes(void)
{
	static const size_t sizes[] = {1000,  1024,   1025,   65536,
				       65537, 300000, 1 << 20};
	static const int levels[] = {-5, 1, 3, 19, 22};
	size_t max = 1 << 20;
	uint8_t *src = malloc(max);
	uint32_t x = 1;

	/* Random words from a small vocabulary: compressible at any level. */
	for (size_t i = 0; i < max; i++) {
		if (i % 8 == 0)
			x = x * 1103515245 + 12345;
		src[i] = (uint8_t)("rondo theme"[(x >> 16) % 11] + i % 8);
	}
	for (size_t s = 0; s < COUNTOF(sizes); s++) {
		for (size_t l = 0; l < COUNTOF(levels); l++) {
			struct fmt_writer w;
			struct fmt_buf f = {0};
			struct fmt_container c;
			uint8_t *out = NULL;
			size_t len = 0;
			int rc;

			fmt_writer_init(&w);
			fmt_writer_add(&w, FMT_SEC_STATS, src, sizes[s],
				       levels[l]);
			CHECK(fmt_writer_finish(&w, &f) == 0);
			CHECK(fmt_container_parse(&c, f.data, f.len, NULL) ==
			      0);
			CHECKF(c.sec[1].codec == FMT_CODEC_ZSTD,
			       "size %zu level %d: stored raw", sizes[s],
			       levels[l]);
			rc = fmt_section_load(&c, 1, &out, &len, NULL);
			CHECKF(rc == 0 && len == sizes[s] &&
				       memcmp(out, src, len) == 0,
			       "size %zu level %d: %d", sizes[s], levels[l],
			       rc);
			free(out);
			fmt_container_free(&c);
			fmt_buf_free(&f);
			fmt_writer_free(&w);
		}
	}
	free(src);
}

/* Zeros compress to RLE blocks, the format's best ratio: still accepted. */
static void test_zstd_zeros(void)
{
	size_t n = (size_t)16 << 20;
	uint8_t *src = calloc(n, 1), *out = NULL;
	struct fmt_writer w;
	struct fmt_buf f = {0};
	struct fmt_container c;
	size_t len = 0;

	fmt_writer_init(&w);
	fmt_writer_add(&w, FMT_SEC_STATS, src, n, 19);
	CHECK(fmt_writer_finish(&w, &f) == 0);
	CHECK(fmt_container_parse(&c, f.data, f.len, NULL) == 0);
	CHECKF(c.sec[1].stored < 1000, "%llu",
	       (unsigned long long)c.sec[1].stored);
	CHECK(fmt_section_load(&c, 1, &out, &len, NULL) == 0 && len == n &&
	      memcmp(out, src, n) == 0);
	free(out);
	free(src);
	fmt_container_free(&c);
	fmt_buf_free(&f);
	fmt_writer_free(&w);
}

/* ---- saving -------------------------------------------------------------- */

static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	/* every entry but . and ..: the writer's temporary names are
	 * hidden ones */
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void test_save(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[256], path[320], bad[320], why[1024];
	struct fmt_writer w;
	struct fmt_buf want = {0};
	uint8_t got[4096];
	size_t n = 0;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/test_format.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		CHECKF(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/t.rondo", dir);
	snprintf(bad, sizeof(bad), "%s/nonexistent/t.rondo", dir);
	fmt_writer_init(&w);
	fmt_writer_add(&w, FMT_SEC_META, "hello hello hello hello", 23, 3);
	CHECK(fmt_writer_finish(&w, &want) == 0);
	CHECK(fmt_writer_save(&w, path, why, sizeof(why)) == 0);
	fp = fopen(path, "rb");
	CHECK(fp != NULL);
	if (fp) {
		n = fread(got, 1, sizeof(got), fp);
		fclose(fp);
	}
	CHECK(n == want.len && memcmp(got, want.data, n) == 0);
	CHECK(fmt_writer_save(&w, bad, why, sizeof(why)) == RONDO_E_IO);
	CHECK(strstr(why, bad) && strstr(why, strerror(ENOENT)));
	CHECK(fmt_writer_save(&w, bad, NULL, 0) == RONDO_E_IO);
	CHECK(dir_entries(dir) == 1);
	/* A directory at the target: refused, nothing left beside it. */
	snprintf(bad, sizeof(bad), "%s/sub", dir);
	CHECK(mkdir(bad, 0700) == 0);
	snprintf(path, sizeof(path), "%s/sub/x", dir);
	CHECK(mkdir(path, 0700) == 0);
	CHECK(fmt_writer_save(&w, path, why, sizeof(why)) == RONDO_E_IO);
	CHECKF(strstr(why, "it is a directory") != NULL, "%s", why);
	CHECK(dir_entries(bad) == 1);
	rmdir(path);
	rmdir(bad);
	snprintf(path, sizeof(path), "%s/t.rondo", dir);
	unlink(path);
	rmdir(dir);
	fmt_buf_free(&want);
	fmt_writer_free(&w);
}

/* Per-rank times: within 1/128 of the duration, monotonic, every code a
 * distinct value, and the value of a code codes back to itself. */
static void check_time(uint64_t d)
{
	uint16_t c = fmt_time_code(d);
	uint64_t v = fmt_time_value(c), err = v > d ? v - d : d - v;
	int top = d >= UINT64_MAX - (UINT64_C(1) << 56) + 1;

	CHECKF(c <= FMT_TIME_CODE_MAX && (top ? err < d / 127 : err <= d / 128),
	       "%llu ns -> code %u -> %llu ns", (unsigned long long)d, c,
	       (unsigned long long)v);
	CHECK(fmt_time_code(v) == c);
}

static void test_time_code(void)
{
	uint64_t prev = 0;

	for (uint64_t d = 0; d < (1u << 18); d++) {
		check_time(d);
		CHECK(d == 0 || fmt_time_code(d) >= fmt_time_code(d - 1));
	}
	for (unsigned k = 7; k < 64; k++)
		for (int64_t off = -3; off <= 3; off++) {
			uint64_t p = UINT64_C(1) << k;

			check_time(p + (uint64_t)off);
			check_time(p + (p >> 7) + (uint64_t)off); /* a half */
			check_time(p - (p >> 8) + (uint64_t)off);
		}
	check_time(UINT64_MAX);
	check_time(UINT64_MAX - (UINT64_C(1) << 56));
	CHECK(fmt_time_code(UINT64_MAX) == FMT_TIME_CODE_MAX);
	CHECK(fmt_time_code(127) == 127 && fmt_time_value(127) == 127);
	CHECK(fmt_time_value(128) == 128 && fmt_time_value(129) == 130);
	/* 1 000 000 ns: 2^19 * 1.907..., kept as 122 << 13 = 999 424 */
	CHECK(fmt_time_value(fmt_time_code(1000000)) == 999424);
	for (unsigned c = 0; c <= FMT_TIME_CODE_MAX; c++) {
		uint64_t v = fmt_time_value((uint16_t)c);

		CHECK(c == 0 || v > prev);
		CHECK(fmt_time_code(v) == c);
		prev = v;
	}
	CHECK(fmt_time_value(FMT_TIME_CODE_MAX + 1) ==
	      fmt_time_value(FMT_TIME_CODE_MAX));
}

/* Decodes the payload of uvarints v[0..n-1] for 1 rank, 3 signatures. */
static int ranktime_of(const uint64_t *v, size_t n, struct fmt_err *e)
{
	struct fmt_ranktime got;
	struct fmt_buf b = {0};
	int rc;

	for (size_t k = 0; k < n; k++)
		fmt_put_uvarint(&b, v[k]);
	rc = fmt_ranktime_decode(&got, b.data, b.len, 1, 3, e);
	fmt_ranktime_free(&got);
	fmt_buf_free(&b);
	return rc;
}

static void test_ranktime(void)
{
	struct fmt_ranktime got;
	struct fmt_buf b = {0};
	struct fmt_err e = {0};

	fx_ranktime(&b);
	/* 4 ranks: each says whether it shares an earlier rank's list,
	 * else gives its list; then its times (0 and 127 take a byte, the
	 * others two).  Rank 2 points 2 back; rank 3's list is empty. */
	CHECK(b.len == 1 + (1 + 1 + 1 + 1 + 1 + 1) + (1 + 1 + 1 + 2) +
			       (1 + 2 + 2) + (1 + 1));
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, 4, 3, &e) == 0);
	CHECK(got.nranks == 4);
	for (uint32_t r = 0; r < 4 && got.nranks == 4; r++) {
		CHECK(got.at[r + 1] == fx_at[r + 1]);
		for (uint64_t k = fx_at[r]; k < fx_at[r + 1]; k++)
			CHECK(got.sig[got.list[r] + k - fx_at[r]] ==
				      fx_tsig[k] &&
			      got.code[k] == fx_code[k]);
	}
	/* rank 2 shares rank 0's list */
	CHECK(got.list[2] == got.list[0]);
	fmt_ranktime_free(&got);
	fmt_ranktime_free(&got);
	/* the job and the signatures must match */
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, 5, 3, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(e.offset == 0 && strstr(e.msg, "4 ranks, the job had 5"));
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, 4, 2, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(e.offset == 4 && strcmp(e.section, "ranktime") == 0 &&
	      strstr(e.msg, "past the last"));
	fmt_buf_free(&b);
	/* one rank sharing the list of a rank before rank 0 */
	CHECK(ranktime_of((uint64_t[]){1, 1}, 2, &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 1 && strstr(e.msg, "shares"));
	/* a code past the largest */
	CHECK(ranktime_of((uint64_t[]){1, 0, 1, 0, FMT_TIME_CODE_MAX + 1}, 5,
			  &e) == RONDO_E_CORRUPT);
	CHECK(e.offset == 4 && strstr(e.msg, "time code 3776"));
	/* a list of 1000 shared by the next rank with no bytes left for its
	 * times: refused before anything is allocated for them */
	b.len = 0;
	fmt_put_uvarint(&b, 2);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1000);
	for (int k = 0; k < 2000; k++)
		fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, 2, 1000, &e) ==
	      RONDO_E_TRUNCATED);
	CHECK(e.offset == b.len && strstr(e.msg, "times of a rank"));
	fmt_put_uvarint(&b, 0); /* and one byte is not enough */
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, 2, 1000, &e) ==
	      RONDO_E_TRUNCATED);
	fmt_buf_free(&b);
}

/* Ranks with equal lists write the list once, however far apart. */
static void test_ranktime_shared(void)
{
	enum { NR = 1000 };
	static uint64_t at[NR + 1];
	static uint32_t sig[NR * 3];
	static uint16_t code[NR * 3];
	struct fmt_ranktime r = {NR, at, at, sig, code}, got;
	struct fmt_buf b = {0};

	for (uint32_t k = 0; k < NR; k++) {
		uint32_t n = k % 7 == 3 ? 1 : 3; /* a pattern with gaps */

		for (uint32_t i = 0; i < n; i++) {
			sig[at[k] + i] = n == 1 ? 5 : 10 * i + (k % 2);
			code[at[k] + i] = (uint16_t)((k * 7 + i) % 3000);
		}
		at[k + 1] = at[k] + n;
	}
	fmt_ranktime_encode(&b, &r);
	CHECK(!b.oom);
	/* three distinct lists written; every rank a byte, then its times */
	CHECK(b.len < 2 + NR + 3 * 5 + 2 * at[NR]);
	CHECK(fmt_ranktime_decode(&got, b.data, b.len, NR, 30, NULL) == 0);
	for (uint32_t k = 0; k < NR && got.at; k++) {
		CHECK(got.at[k + 1] == at[k + 1]);
		for (uint64_t i = at[k]; i < at[k + 1]; i++)
			CHECK(got.sig[got.list[k] + i - at[k]] == sig[i] &&
			      got.code[i] == code[i]);
	}
	CHECK(got.at && got.list[NR - 1] < 3 * 3);
	fmt_ranktime_free(&got);
	fmt_buf_free(&b);
}

/* ---- per-rank times summarized ------------------------------------------- */

/* Signature i of s keeps these extremes, as (rank, code) pairs. */
static int ext_is(const struct fmt_ranksum *s, uint32_t i, uint32_t nslow,
		  uint32_t nfast, const uint32_t *want)
{
	const struct fmt_sigsum *ss = &s->s[i];

	if (ss->nslow != nslow || ss->nfast != nfast)
		return 0;
	for (uint32_t j = 0; j < nslow + nfast; j++)
		if (s->ext[ss->ext + j].rank != want[2 * j] ||
		    s->ext[ss->ext + j].code != want[2 * j + 1])
			return 0;
	return 1;
}

/* Signature i of s has these bins, as (bin, count) pairs. */
static int bins_are(const struct fmt_ranksum *s, uint32_t i, uint32_t nbins,
		    const uint32_t *want)
{
	const struct fmt_sigsum *ss = &s->s[i];

	if (ss->nbins != nbins)
		return 0;
	for (uint32_t j = 0; j < nbins; j++)
		if (s->bin[ss->bin + j].bin != want[2 * j] ||
		    s->bin[ss->bin + j].count != want[2 * j + 1])
			return 0;
	return 1;
}

static int same_ranksum(const struct fmt_ranksum *a,
			const struct fmt_ranksum *b)
{
	if (a->nranks != b->nranks || a->k != b->k || a->n != b->n ||
	    !a->mpi != !b->mpi)
		return 0;
	for (uint32_t r = 0; a->mpi && r < a->nranks; r++)
		if (a->mpi[r] != b->mpi[r])
			return 0;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct fmt_sigsum *x = &a->s[i], *y = &b->s[i];

		if (x->sig != y->sig || x->ranks != y->ranks ||
		    x->sum != y->sum || x->nslow != y->nslow ||
		    x->nfast != y->nfast || x->nbins != y->nbins)
			return 0;
		for (uint32_t j = 0; j < x->nslow + x->nfast; j++)
			if (a->ext[x->ext + j].rank !=
				    b->ext[y->ext + j].rank ||
			    a->ext[x->ext + j].code != b->ext[y->ext + j].code)
				return 0;
		for (uint32_t j = 0; j < x->nbins; j++)
			if (a->bin[x->bin + j].bin != b->bin[y->bin + j].bin ||
			    a->bin[x->bin + j].count !=
				    b->bin[y->bin + j].count)
				return 0;
	}
	return 1;
}

/* Encodes s and decodes it back for its ranks and 4 signatures. */
static int ranksum_back(const struct fmt_ranksum *s, struct fmt_ranksum *got,
			struct fmt_err *e)
{
	struct fmt_buf b = {0};
	int rc;

	fmt_ranksum_encode(&b, s);
	CHECK(!b.oom);
	rc = fmt_ranksum_decode(got, b.data, b.len, s->nranks, 4, e);
	fmt_buf_free(&b);
	return rc;
}

/* Failed as corrupt, in section ranksum, saying `why`. */
static int rs_bad(int rc, const struct fmt_err *e, const char *why)
{
	return rc == RONDO_E_CORRUPT && e->code == rc && e->section &&
	       strcmp(e->section, "ranksum") == 0 && strstr(e->msg, why);
}

/* The fixture's summary at k = 2, checked by hand, and read back. */
static void test_ranksum(void)
{
	struct fmt_ranksum s, got;
	struct fmt_buf b = {0};
	struct fmt_err e = {0};

	CHECK(fmt_ranksum_make(&s, &fs_times, 2, fs_mpi) == 0);
	CHECK(s.nranks == 10 && s.k == 2 && s.n == 3);
	CHECK(s.mpi && s.mpi != fs_mpi &&
	      memcmp(s.mpi, fs_mpi, sizeof(fs_mpi)) == 0);
	if (s.n == 3) {
		CHECK(s.s[0].sig == 0 && s.s[1].sig == 2 && s.s[2].sig == 3);
		/* signature 0: the two at 300 (rank 5 before 8), then the
		 * fastest of the others: 10, and of the three at 50 rank 1 */
		CHECK(s.s[0].ranks == 10 &&
		      s.s[0].sum == 2 * 288 + 3 * 50 + 2 * 132 + 2 * 864 + 10);
		CHECK(ext_is(&s, 0, 2, 2,
			     (uint32_t[]){5, 300, 8, 300, 7, 10, 1, 50}));
		CHECK(bins_are(&s, 0, 5,
			       (uint32_t[]){1, 1, 6, 3, 16, 2, 25, 2, 37, 2}));
		/* signature 2: rank 8 (7 ns) in neither list */
		CHECK(s.s[1].ranks == 5 &&
		      s.s[1].sum == 2 * UINT64_C(1703936) + 5 + 5 + 7);
		CHECK(ext_is(&s, 1, 2, 2,
			     (uint32_t[]){0, 1000, 6, 1000, 2, 5, 4, 5}));
		CHECK(bins_are(&s, 1, 2, (uint32_t[]){0, 3, 125, 2}));
		/* signature 3: two slow, no fast; the sum saturates */
		CHECK(s.s[2].ranks == 2 && s.s[2].sum == UINT64_MAX);
		CHECK(ext_is(&s, 2, 2, 0, (uint32_t[]){3, 3775, 9, 3775}));
		CHECK(bins_are(&s, 2, 1, (uint32_t[]){471, 2}));
	}
	CHECK(ranksum_back(&s, &got, &e) == 0);
	CHECK(same_ranksum(&s, &got));
	fmt_ranksum_free(&got);
	fmt_ranksum_free(&got);
	/* the job and the signatures must match */
	fmt_ranksum_encode(&b, &s);
	CHECK(rs_bad(fmt_ranksum_decode(&got, b.data, b.len, 11, 4, &e), &e,
		     "10 ranks, the job had 11") &&
	      e.offset == 0);
	CHECK(got.mpi == NULL && got.s == NULL);
	fmt_ranksum_free(&got);
	CHECK(rs_bad(fmt_ranksum_decode(&got, b.data, b.len, 10, 3, &e), &e,
		     "past the last"));
	fmt_ranksum_free(&got);
	fmt_buf_free(&b);
	fmt_ranksum_free(&s);
	/* no MPI times: none copied */
	CHECK(fmt_ranksum_make(&s, &fs_times, 2, NULL) == 0);
	CHECK(s.mpi == NULL && s.n == 3);
	fmt_ranksum_free(&s);
}

/* Everything listed: k at least the ranks of each signature, or twice k
 * at least, and then the sum is exactly the listed times. */
/* Summed times past 2^64 ns saturate, with ranks left out of the lists:
 * the file made still reads (three ranks of 2^64 - 2^57 ns, k = 1). */
static void test_ranksum_saturated(void)
{
	uint64_t at[4] = {0, 1, 2, 3};
	uint32_t sig[3] = {0, 0, 0};
	uint16_t code[3] = {FMT_TIME_CODE_MAX, FMT_TIME_CODE_MAX,
			    FMT_TIME_CODE_MAX},
		 mpi[3] = {FMT_TIME_CODE_MAX, FMT_TIME_CODE_MAX,
			   FMT_TIME_CODE_MAX};
	struct fmt_ranktime r = {3, at, at, sig, code};
	struct fmt_ranksum s, got;
	struct fmt_err e = {0};

	CHECK(fmt_ranksum_make(&s, &r, 1, mpi) == 0);
	CHECK(s.n == 1 && s.s[0].sum == UINT64_MAX && s.s[0].nslow == 1 &&
	      s.s[0].nfast == 1 && s.s[0].ranks == 3);
	CHECKF(ranksum_back(&s, &got, &e) == 0, "%s", e.msg);
	fmt_ranksum_free(&got);
	fmt_ranksum_free(&s);
}

static void test_ranksum_all(void)
{
	struct fmt_ranksum s, got;
	struct fmt_err e = {0};

	/* k past the most is the most */
	CHECK(fmt_ranksum_make(&s, &fs_times, 100, fs_mpi) == 0);
	CHECK(s.k == FMT_RANKSUM_KMAX && s.n == 3);
	if (s.n == 3) {
		CHECK(ext_is(&s, 0, 10, 0,
			     (uint32_t[]){5,   300, 8,	 300, 0,   200, 2,
					  200, 4,   130, 9,   130, 1,	50,
					  3,   50,  6,	 50,  7,   10}));
		CHECK(ext_is(&s, 1, 5, 0,
			     (uint32_t[]){0, 1000, 6, 1000, 8, 7, 2, 5, 4, 5}));
		CHECK(ranksum_back(&s, &got, &e) == 0 &&
		      same_ranksum(&s, &got));
		fmt_ranksum_free(&got);
		s.s[0].sum++;
		CHECK(ranksum_back(&s, &got, &e) == RONDO_E_CORRUPT &&
		      strstr(e.msg, "cannot hold"));
		s.s[0].sum -= 2;
		CHECK(ranksum_back(&s, &got, &e) == RONDO_E_CORRUPT &&
		      strstr(e.msg, "cannot hold"));
		s.s[0].sum++;
		/* saturated: at least what is listed, so the most */
		s.s[2].sum--;
		CHECK(ranksum_back(&s, &got, &e) == RONDO_E_CORRUPT &&
		      strstr(e.msg, "cannot hold"));
	}
	fmt_ranksum_free(&s);
	/* k = 5 lists all ten of signature 0 too, five on each side; rank
	 * 9 (130) fast, as slow as the last slow one */
	CHECK(fmt_ranksum_make(&s, &fs_times, 5, fs_mpi) == 0);
	CHECK(s.n == 3);
	if (s.n == 3) {
		CHECK(ext_is(&s, 0, 5, 5,
			     (uint32_t[]){5,   300, 8,	 300, 0,  200, 2,
					  200, 4,   130, 7,   10, 1,   50,
					  3,   50,  6,	 50,  9,  130}));
		CHECK(ranksum_back(&s, &got, &e) == 0 &&
		      same_ranksum(&s, &got));
		fmt_ranksum_free(&got);
		s.s[0].sum--;
		CHECK(ranksum_back(&s, &got, &e) == RONDO_E_CORRUPT &&
		      strstr(e.msg, "cannot hold"));
	}
	fmt_ranksum_free(&s);
}

/* Decodes the payload of uvarints v[0..n-1] for `nranks` ranks and 2
 * signatures. */
static int ranksum_of(uint32_t nranks, const uint64_t *v, size_t n,
		      struct fmt_err *e)
{
	struct fmt_ranksum got;
	struct fmt_buf b = {0};
	int rc;

	for (size_t k = 0; k < n; k++)
		fmt_put_uvarint(&b, v[k]);
	memset(e, 0, sizeof(*e));
	rc = fmt_ranksum_decode(&got, b.data, b.len, nranks, 2, e);
	CHECK(rc == 0 || (got.mpi == NULL && got.s == NULL && got.ext == NULL &&
			  got.bin == NULL));
	fmt_ranksum_free(&got);
	fmt_buf_free(&b);
	return rc;
}

#define RSUM(nranks, e, ...)                                                   \
	ranksum_of(nranks, (uint64_t[]){__VA_ARGS__},                          \
		   sizeof((uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t), e)

/* Each rule the decoder checks, broken alone.  A payload: nranks, k, the
 * MPI base and each rank's code above it, the signatures; each its delta,
 * ranks, sum, the extremes as (rank, code), the bins as (gap, count).
 * The good ones: 3 ranks, one signature at 40, 20 and 10 ns; at k = 1
 * the 20 is in no list, at k = 2 all are. */
#define RS_HEAD(k) 3, k, 0, 0, 0, 0
#define RS_BINS	   3, 1, 1, 0, 1, 2, 1 /* bins 1, 2 and 5 */
static void test_ranksum_bad(void)
{
	struct fmt_err e;

	CHECK(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, RS_BINS) == 0);
	CHECK(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 70, 2, 40, 1, 20, 0, 10,
		   RS_BINS) == 0);
	/* the sum's bound: the rank not listed at the last fast time */
	CHECK(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 60, 2, 40, 0, 10, RS_BINS) == 0);
	/* every rank at the largest code: the sum saturated */
	CHECK(RSUM(3, &e, RS_HEAD(2), 1, 1, 2, UINT64_MAX, 0, 3775, 2, 3775, 1,
		   471, 2) == 0);
	CHECK(RSUM(3, &e, 3, 1, 3775, 0, 0, 0, 0) == 0);
	CHECK(RSUM(3, &e, 3, 16, 0, 0, 0, 0, 0) == 0);

	/* the job's ranks */
	CHECK(rs_bad(RSUM(3, &e, 2, 1, 0, 0, 0, 0), &e,
		     "2 ranks, the job had 3") &&
	      e.offset == 0);
	CHECK(rs_bad(RSUM(3, &e, 4, 1, 0, 0, 0, 0, 0, 0), &e,
		     "4 ranks, the job had 3"));
	/* k */
	CHECK(rs_bad(RSUM(3, &e, 3, 0, 0, 0, 0, 0, 0), &e,
		     "0 extreme ranks kept") &&
	      e.offset == 1);
	CHECK(rs_bad(RSUM(3, &e, 3, 17, 0, 0, 0, 0, 0), &e,
		     "17 extreme ranks kept"));
	/* the codes: the MPI base, one past it, an extreme's */
	CHECK(rs_bad(RSUM(3, &e, 3, 1, 3776, 0, 0, 0, 0), &e,
		     "time code 3776"));
	CHECK(rs_bad(RSUM(3, &e, 3, 1, 3000, 0, 776, 0, 0), &e,
		     "time code 3776") &&
	      e.offset == 5);
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 3776, 0, 10, RS_BINS),
		&e, "time code 3776"));
	/* signatures below the job's, increasing: 0 then 1; 2 first; 1
	 * then 2 */
	CHECK(RSUM(3, &e, RS_HEAD(1), 2, 0, 1, 40, 2, 40, 1, 5, 1, 0, 1, 10, 0,
		   10, 1, 1, 1) == 0);
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 2, 3, 70, 2, 40, 0, 10,
			  RS_BINS),
		     &e, "past the last") &&
	      e.offset == 7);
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 2, 0, 1, 40, 2, 40, 1, 5, 1, 1, 1,
			  10, 0, 10, 1, 1, 1),
		     &e, "past the last") &&
	      e.offset == 15);
	/* the ranks that called one: none, more than the job's */
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 0, 70, 2, 40, 0, 10, RS_BINS), &e,
		"0 ranks of 3"));
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 4, 70, 2, 40, 0, 10, RS_BINS), &e,
		"4 ranks of 3"));
	/* an extreme rank not of the job */
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 3, 40, 0, 10,
			  RS_BINS),
		     &e, "rank 3 of 3") &&
	      e.offset == 10);
	/* a rank listed twice: in the slow list, in both */
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 70, 2, 40, 2, 20, 0, 10,
			  RS_BINS),
		     &e, "rank 2 listed twice"));
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 2, 10, RS_BINS), &e,
		"rank 2 listed twice"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 70, 2, 40, 1, 20, 1, 10,
			  RS_BINS),
		     &e, "rank 1 listed twice"));
	/* the slow list: time down, then rank up, each once */
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 70, 1, 20, 2, 40, 0, 10,
			  RS_BINS),
		     &e, "out of order"));
	CHECK(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 90, 1, 40, 2, 40, 0, 10, 2, 1, 1,
		   3, 2) == 0);
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 90, 2, 40, 1, 40, 0, 10,
			  2, 1, 1, 3, 2),
		     &e, "out of order"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 90, 1, 40, 1, 40, 0, 10,
			  2, 1, 1, 3, 2),
		     &e, "out of order"));
	/* the fast list, of 4 ranks at k = 2 (40, 30 slow): time up, then
	 * rank up, each once; bins 1 (twice), 3 and 5 */
#define RS_FOUR(sum) 4, 2, 0, 0, 0, 0, 0, 1, 0, 4, sum, 3, 40, 2, 30
#define RS_FOUR_BINS 3, 1, 2, 1, 1, 1, 1
	CHECK(RSUM(4, &e, RS_FOUR(90), 0, 10, 1, 10, RS_FOUR_BINS) == 0);
	CHECK(rs_bad(RSUM(4, &e, RS_FOUR(100), 0, 20, 1, 10, RS_FOUR_BINS), &e,
		     "out of order"));
	CHECK(rs_bad(RSUM(4, &e, RS_FOUR(90), 1, 10, 0, 10, RS_FOUR_BINS), &e,
		     "out of order"));
	CHECK(rs_bad(RSUM(4, &e, RS_FOUR(100), 0, 10, 0, 20, RS_FOUR_BINS), &e,
		     "rank 0 listed twice"));
	/* no fast rank slower than the last slow one; as slow is fine */
	CHECK(rs_bad(RSUM(4, &e, RS_FOUR(115), 0, 10, 1, 35, RS_FOUR_BINS), &e,
		     "fast rank slower"));
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 110, 2, 40, 0, 50, RS_BINS),
		&e, "fast rank slower"));
	CHECK(RSUM(4, &e, RS_FOUR(110), 0, 10, 1, 30, 3, 1, 1, 1, 2, 1, 1) ==
	      0);
#undef RS_FOUR
#undef RS_FOUR_BINS
	/* bins: past the last bin (there is room for the largest), empty,
	 * more ranks than called the signature, fewer */
	CHECK(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2, 1, 2,
		   FMT_RANK_BIN_MAX - 2, 1) == 0);
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2, 1, 2,
			  FMT_RANK_BIN_MAX - 1, 1),
		     &e, "out of order"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2,
			  FMT_RANK_BIN_MAX + 1, 3, 0, 0),
		     &e, "out of order"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2, 1, 3,
			  0, 0),
		     &e, "empty"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2, 1, 2,
			  0, 2),
		     &e, "more ranks than 3"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 2, 1, 1,
			  0, 1),
		     &e, "bins hold 2 ranks, 3 called"));
	/* the sum: below what is listed, below the bound for the rank not
	 * listed, or not exactly what is listed when all are */
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 49, 2, 40, 0, 10,
			  RS_BINS),
		     &e, "the sum 49 ns cannot hold") &&
	      e.offset == 9);
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 59, 2, 40, 0, 10, RS_BINS), &e,
		"the sum 59 ns cannot hold"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 71, 2, 40, 1, 20, 0, 10,
			  RS_BINS),
		     &e, "the sum 71 ns cannot hold"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 0, 3, 69, 2, 40, 1, 20, 0, 10,
			  RS_BINS),
		     &e, "the sum 69 ns cannot hold"));
	CHECK(rs_bad(RSUM(3, &e, RS_HEAD(2), 1, 1, 2, UINT64_MAX - 1, 0, 3775,
			  2, 3775, 1, 471, 2),
		     &e, "cannot hold"));
	/* counts the bytes left cannot hold: signatures, bins */
	CHECK(RSUM(3, &e, RS_HEAD(1), 2, 0, 3, 70, 2, 40, 0, 10, RS_BINS) ==
	      RONDO_E_TRUNCATED);
	CHECK(RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, 4, 1, 1, 0, 1,
		   2, 1) == RONDO_E_TRUNCATED);
	/* a byte after the end */
	CHECK(rs_bad(
		RSUM(3, &e, RS_HEAD(1), 1, 0, 3, 70, 2, 40, 0, 10, RS_BINS, 0),
		&e, ""));
}
#undef RS_HEAD
#undef RS_BINS

/* Communicators: members as runs, checked against the job's ranks. */
static void test_comms(void)
{
	uint32_t every_other[] = {0, 2, 4, 6, 8, 10}, mixed[] = {7, 3, 4, 5, 1};
	uint32_t inter[] = {0, 1, 2, 3};
	struct fmt_comm c[] = {{6, 0, every_other},
			       {5, 0, mixed},
			       {4, 2, inter},
			       {0, 0, NULL}};
	struct fmt_comms in = {4, c}, out;
	struct fmt_buf b = {0};
	struct fmt_err e = {0};

	fmt_comms_encode(&b, &in);
	CHECK(!b.oom);
	CHECK(fmt_comms_decode(&out, b.data, b.len, 12, &e) == 0);
	CHECK(out.n == 4);
	for (uint32_t i = 0; i < 4 && out.n == 4; i++) {
		CHECK(out.c[i].n == c[i].n && out.c[i].first == c[i].first);
		for (uint32_t k = 0; k < c[i].n; k++)
			CHECK(out.c[i].world[k] == c[i].world[k]);
	}
	fmt_comms_free(&out);
	/* every other rank of 6 is one run: start, length, stride */
	CHECK(b.len < 30);
	/* a member beyond the job's ranks */
	CHECK(fmt_comms_decode(&out, b.data, b.len, 10, &e) == RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "comms") == 0 && strstr(e.msg, "not a rank"));
	/* every truncation fails cleanly */
	for (size_t n = 0; n < b.len; n++)
		CHECK(fmt_comms_decode(&out, b.data, n, 12, NULL) < 0);
	fmt_buf_free(&b);
	/* runs that do not add up to the size */
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 3);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 1);
	fmt_put_uvarint(&b, 0);
	fmt_put_uvarint(&b, 2);
	fmt_put_svarint(&b, 1);
	CHECK(fmt_comms_decode(&out, b.data, b.len, 12, &e) == RONDO_E_CORRUPT);
	fmt_buf_free(&b);
}

/* Cartesian topologies: grids whose product is the communicator's size,
 * in increasing communicator order. */
static void test_topos(void)
{
	uint32_t six[6] = {0, 1, 2, 3, 4, 5}, d23[2] = {2, 3}, d6[1] = {6};
	uint8_t p10[2] = {1, 0}, p1[1] = {1};
	struct fmt_comm c[] = {{6, 0, six}, {0, 0, NULL}, {6, 0, six}};
	struct fmt_comms comms = {3, c};
	struct fmt_topo t[] = {
		{0, 2, d23, p10}, {1, 1, d6, p1}, {2, 1, d6, p1}};
	struct fmt_topos in = {3, t}, out;
	struct fmt_buf b = {0};
	struct fmt_err e = {0};

	fmt_topos_encode(&b, &in);
	CHECK(!b.oom);
	CHECK(fmt_topos_decode(&out, b.data, b.len, &comms, &e) == 0);
	CHECK(out.n == 3);
	for (uint32_t i = 0; i < 3 && out.n == 3; i++) {
		CHECK(out.t[i].comm == t[i].comm &&
		      out.t[i].ndims == t[i].ndims);
		for (uint32_t k = 0; k < t[i].ndims; k++)
			CHECK(out.t[i].dims[k] == t[i].dims[k] &&
			      out.t[i].periodic[k] == t[i].periodic[k]);
	}
	fmt_topos_free(&out);
	for (size_t n = 0; n < b.len; n++)
		CHECK(fmt_topos_decode(&out, b.data, n, &comms, NULL) < 0);
	/* a communicator the file does not have */
	comms.n = 2;
	CHECK(fmt_topos_decode(&out, b.data, b.len, &comms, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "topology") == 0);
	comms.n = 3;
	fmt_buf_free(&b);
	/* a grid of another size; the same communicator twice */
	d23[1] = 4;
	fmt_topos_encode(&b, &in);
	CHECK(fmt_topos_decode(&out, b.data, b.len, &comms, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "a grid of 8 ranks"));
	fmt_buf_free(&b);
	d23[1] = 3;
	t[1].comm = 0;
	fmt_topos_encode(&b, &in);
	CHECK(fmt_topos_decode(&out, b.data, b.len, &comms, &e) ==
	      RONDO_E_CORRUPT);
	fmt_buf_free(&b);
}

static uint64_t plus_100(void *ctx, uint64_t v)
{
	(*(int *)ctx)++;
	return v + 100;
}

/* fmt_arg_map renames one kind of value, inside lists too. */
static void test_arg_map(void)
{
	struct fmt_buf in = {0}, out = {0}, want = {0};
	struct fmt_cur c;
	int calls = 0;

	fmt_arg_put_uint(&in, RONDO_ARG_COMM, 3);
	fmt_arg_put_list(&in, RONDO_ARG_ARRAY, 2);
	fmt_arg_put_uint(&in, RONDO_ARG_COMM, 4);
	fmt_arg_put_uint(&in, RONDO_ARG_DATATYPE, 4);
	fmt_arg_put_sint(&in, RONDO_ARG_RANK_REL, -1);
	fmt_arg_put_uint(&want, RONDO_ARG_COMM, 103);
	fmt_arg_put_list(&want, RONDO_ARG_ARRAY, 2);
	fmt_arg_put_uint(&want, RONDO_ARG_COMM, 104);
	fmt_arg_put_uint(&want, RONDO_ARG_DATATYPE, 4);
	fmt_arg_put_sint(&want, RONDO_ARG_RANK_REL, -1);
	fmt_cur_init(&c, in.data, in.len, "cst", NULL);
	for (int k = 0; k < 3; k++)
		CHECK(fmt_arg_map(&out, &c, RONDO_ARG_COMM, plus_100, &calls) ==
		      0);
	CHECK(calls == 2);
	CHECK(out.len == want.len && !memcmp(out.data, want.data, out.len));
	CHECK(fmt_arg_map(&out, &c, RONDO_ARG_COMM, plus_100, &calls) < 0);
	fmt_buf_free(&in);
	fmt_buf_free(&out);
	fmt_buf_free(&want);
}

/* A section of one slot over one rank: an item of mode `mode` holding a
 * value of kind and wire (its payload 0, or an empty list). */
static void one_value(struct fmt_buf *b, uint64_t mode, uint32_t kind,
		      enum rondo_wire wire)
{
	fmt_put_uvarint(b, 1);
	fmt_put_uvarint(b, 1);
	fmt_put_uvarint(b, mode);
	fmt_put_varints(b, wire != RONDO_WIRE_NONE, fmt_arg_tag(kind, wire), 0);
	fmt_put_uvarint(b, 1); /* the map: 1 rank, 1 rule of item 0 */
	fmt_put_uvarint(b, 1);
	fmt_put_uvarint(b, 1);
	fmt_put_uvarint(b, 0);
}

/* Per-rank values: items (values and deltas) over a rank map, checked
 * for what the format forbids; fmt_vitem_apply's deltas. */
static void test_rankvals(void)
{
	/* ranks 0-3 with partners rank XOR 1 as RANK_REL: +1, -1, +1, -1 */
	struct fmt_vitem it[3] = {{0, {1, RONDO_ARG_RANK_REL, RONDO_WIRE_SINT}},
				  {1, {(uint64_t)-2, 0, 0}},
				  {1, {2, 0, 0}}};
	uint32_t first[2] = {0, 4};
	rondo_sym body[4] = {{0, 0, 1}, {1, 0, 1}, {2, 0, 1}, {1, 0, 1}};
	struct fmt_vslot sl = {3, it, {4, {1, first, body}, NULL}};
	struct fmt_rankvals in = {1, &sl}, out;
	struct fmt_rval v[4];
	struct fmt_buf b = {0};
	struct fmt_err e = {0};
	int64_t want[4] = {1, -1, 1, -1};

	fmt_rankvals_encode(&b, &in);
	CHECK(!b.oom);
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 4, &e) == 0);
	CHECK(out.n == 1 && out.slot[0].nitems == 3 &&
	      out.slot[0].map.nranks == 4);
	for (uint32_t r = 0; r < 4 && out.n == 1; r++) {
		uint32_t term = RONDO_SYM_ID(out.slot[0].map.map.body[r].sym);

		CHECK(fmt_vitem_apply(&out.slot[0].item[term],
				      r ? &v[r - 1] : NULL, &v[r]) == 0);
		CHECK(v[r].kind == RONDO_ARG_RANK_REL &&
		      v[r].wire == RONDO_WIRE_SINT &&
		      (int64_t)v[r].u == want[r]);
	}
	fmt_rankvals_free(&out);
	for (size_t n = 0; n < b.len; n++)
		CHECK(fmt_rankvals_decode(&out, b.data, n, 4, NULL) < 0);
	/* another job's ranks */
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 5, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strcmp(e.section, "rankvals") == 0);
	fmt_buf_free(&b);
	/* a value that is itself per-rank, or a list, or an unknown mode */
	one_value(&b, 0, RONDO_ARG_VARY, RONDO_WIRE_UINT);
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 1, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "kind 26"));
	fmt_buf_free(&b);
	one_value(&b, 0, RONDO_ARG_INT, RONDO_WIRE_LIST);
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 1, &e) ==
	      RONDO_E_CORRUPT);
	fmt_buf_free(&b);
	one_value(&b, 0, RONDO_ARG_INT, RONDO_WIRE_UINT);
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 1, &e) == 0);
	fmt_rankvals_free(&out);
	fmt_buf_free(&b);
	one_value(&b, 7, RONDO_ARG_INT, RONDO_WIRE_UINT);
	CHECK(fmt_rankvals_decode(&out, b.data, b.len, 1, &e) ==
	      RONDO_E_CORRUPT);
	CHECK(strstr(e.msg, "mode 7"));
	fmt_buf_free(&b);
	/* deltas: none before; from a constant; past 64 bits; a rank
	 * offset past 2^32 */
	{
		struct fmt_vitem d = {1, {1, 0, 0}};
		struct fmt_rval c = {3, RONDO_ARG_CONST, RONDO_WIRE_UINT},
				k = {2, RONDO_ARG_COMM, RONDO_WIRE_UINT},
				rel = {(uint64_t)FMT_REL_MAX, RONDO_ARG_REL,
				       RONDO_WIRE_SINT},
				big = {UINT64_MAX, RONDO_ARG_INT,
				       RONDO_WIRE_UINT},
				none = {0, RONDO_ARG_NULL, RONDO_WIRE_NONE}, o;

		CHECK(fmt_vitem_apply(&d, NULL, &o) < 0);
		CHECK(fmt_vitem_apply(&d, &none, &o) < 0);
		CHECK(fmt_vitem_apply(&d, &k, &o) == 0 && o.u == 3 &&
		      o.kind == RONDO_ARG_COMM);
		CHECK(fmt_vitem_apply(&d, &c, &o) == 0); /* kinds are kept */
		CHECK(fmt_vitem_apply(&d, &big, &o) < 0);
		CHECK(fmt_vitem_apply(&d, &rel, &o) < 0);
		d.val.u = (uint64_t)-3;
		CHECK(fmt_vitem_apply(&d, &k, &o) < 0);
	}
}

int main(void)
{
	test_rankvals();
	test_comms();
	test_topos();
	test_arg_map();
	test_uvarint();
	test_uvarint_bad();
	test_svarint();
	test_fixed();
	test_count_bytes();
	test_crc();
	test_hist_bin();
	test_fail();
	test_strings();
	test_args();
	test_args_bad();
	test_cst();
	test_grammar();
	test_grammar_bad();
	test_grammar_nested();
	test_rankmap();
	test_stats();
	test_stats_bad();
	test_time_code();
	test_ranktime();
	test_ranktime_shared();
	test_ranksum();
	test_ranksum_all();
	test_sigstats();
	test_groupgaps();
	test_ranksum_saturated();
	test_ranksum_bad();
	test_prefixes();
	test_roundtrip();
	test_codecs_used();
	test_layout();
	test_versions();
	test_table_rules();
	test_entry_rules();
	test_corruption();
	test_truncation();
	test_cut_table();
	test_zstd_lies();
	test_zstd_sizes();
	test_zstd_zeros();
	test_save();
	return check_done("test_format");
}
