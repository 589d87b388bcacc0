/*
 * container.c - the file around the sections: the header, the section
 * table, loading (and decompressing) one section, and the writer that
 * lays a file out from its sections.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "fileio.h"
#include "format_int.h"
#include "util.h"

/* A zstd block (at most 128 KiB of output) needs at least 4 bytes (3 of
 * header, 1 for an RLE byte), so no frame expands by more than this. */
#define ZSTD_MAX_RATIO (ZSTD_BLOCKSIZE_MAX / 4)

/* Bounds of the zstd window we accept: zstd's own minimum, and the limit
 * its decoder applies by default (both are in zstd's unstable API). */
#define WINDOW_LOG_MIN 10
#define WINDOW_LOG_MAX 27

/* Output buffer of a streamed decompression before it starts doubling. */
#define LOAD_FIRST_CHUNK 65536

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* ---- errors -------------------------------------------------------------- */

/* A container error: offsets are file offsets. */
static int __attribute__((format(printf, 5, 6)))
file_fail(const struct fmt_container *c, struct fmt_err *e, int code,
	  uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_err_vset(e, code, NULL, offset, c->size, fmt, ap);
	va_end(ap);
	return code;
}

/* As file_fail, about one section. */
static int __attribute__((format(printf, 6, 7)))
sec_fail(const struct fmt_container *c, struct fmt_err *e, uint32_t type,
	 int code, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_err_vset(e, code, fmt_section_name(type), offset, c->size, fmt, ap);
	va_end(ap);
	return code;
}

/* The name of a section type this version defines, or NULL. */
static const char *sec_known(uint32_t type)
{
	static const char *const names[] = {
		[FMT_SEC_META] = "meta",
		[FMT_SEC_FUNCS] = "funcs",
		[FMT_SEC_CONSTS] = "consts",
		[FMT_SEC_CST] = "cst",
		[FMT_SEC_GRAMMAR] = "grammar",
		[FMT_SEC_RANKMAP] = "rankmap",
		[FMT_SEC_STATS] = "stats",
		[FMT_SEC_COMMS] = "comms",
		[FMT_SEC_RANKTIME] = "ranktime",
		[FMT_SEC_TOPOLOGY] = "topology",
		[FMT_SEC_TYPESIZES] = "typesizes",
		[FMT_SEC_TIMING] = "timing",
		[FMT_SEC_RANKVALS] = "rankvals",
		[FMT_SEC_RANKSUM] = "ranksum",
		[FMT_SEC_SIGSTATS] = "sigstats",
		[FMT_SEC_GAPSTATS] = "gapstats",
		[FMT_SEC_GROUPGAPS] = "groupgaps",
		[FMT_SEC_INDEX] = "index",
		[FMT_SEC_HISTS] = "hists",
	};

	return type < COUNTOF(names) ? names[type] : NULL;
}

const char *fmt_section_name(uint32_t type)
{
	const char *name = sec_known(type);

	return name ? name : "unknown";
}

/* ---- the container ------------------------------------------------------- */

static void entry_pack(uint8_t *p, const struct fmt_entry *s)
{
	st32(p, s->type);
	st32(p + 4, s->codec);
	st64(p + 8, s->offset);
	st64(p + 16, s->stored);
	st64(p + 24, s->raw);
	st32(p + 32, s->crc);
	st32(p + 36, s->flags);
}

static void entry_unpack(struct fmt_entry *s, const uint8_t *p)
{
	s->type = ld32(p);
	s->codec = ld32(p + 4);
	s->offset = ld64(p + 8);
	s->stored = ld64(p + 16);
	s->raw = ld64(p + 24);
	s->crc = ld32(p + 32);
	s->flags = ld32(p + 36);
}

/* Magic and version come before the header CRC: a newer major may lay the
 * rest of the header out differently, and deserves "upgrade", not
 * "corrupt". */
/* A fuzzer cannot forge checksums: in a fuzzing build they always match,
 * so mutations reach the checks behind them. */
static int crc_ok(uint32_t stored, uint32_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)stored;
	(void)computed;
	return 1;
#else
	return stored == computed;
#endif
}

static int header_check(struct fmt_container *c, struct fmt_err *e)
{
	const uint8_t *h = c->data;
	size_t n = c->size < FMT_MAGIC_LEN ? (size_t)c->size : FMT_MAGIC_LEN;

	if (n && memcmp(h, FMT_MAGIC, n) != 0)
		return file_fail(c, e, RONDO_E_NOTRONDO, 0,
				 "not a rondo file (bad magic)");
	if (c->size < FMT_HEADER_SIZE)
		return file_fail(c, e, RONDO_E_TRUNCATED, c->size,
				 "file ends inside the %d-byte header",
				 FMT_HEADER_SIZE);
	c->major = ld16(h + 8);
	c->minor = ld16(h + 10);
	if (c->major > RONDO_FORMAT_MAJOR)
		return file_fail(c, e, RONDO_E_VERSION, 8,
				 "written by format version %u.%u, this reader "
				 "understands %d.x; upgrade rondo",
				 c->major, c->minor, RONDO_FORMAT_MAJOR);
	if (!crc_ok(ld32(h + 28), fmt_crc32c(0, h, 28)))
		return file_fail(c, e, RONDO_E_CORRUPT, 28,
				 "header checksum mismatch");
	if (c->major == 0)
		return file_fail(c, e, RONDO_E_CORRUPT, 8,
				 "format version 0.%u does not exist",
				 c->minor);
	return 0;
}

/* Places the table: it must end exactly where the file ends, unless the
 * file was cut (c->want > c->size), which parsing then tries to read
 * around. */
static int table_locate(struct fmt_container *c, uint64_t *tab,
			struct fmt_err *e)
{
	const uint8_t *h = c->data;
	uint64_t need;

	c->nsec = ld32(h + 12);
	*tab = ld64(h + 16);
	if (c->nsec > FMT_MAX_SECTIONS)
		return file_fail(c, e, RONDO_E_CORRUPT, 12,
				 "%u sections, at most %d allowed", c->nsec,
				 FMT_MAX_SECTIONS);
	need = (uint64_t)c->nsec * FMT_ENTRY_SIZE + 4;
	if (*tab < FMT_HEADER_SIZE)
		return file_fail(c, e, RONDO_E_CORRUPT, 16,
				 "section table at byte %" PRIu64
				 " overlaps the header",
				 *tab);
	if (*tab > UINT64_MAX - need)
		return file_fail(c, e, RONDO_E_CORRUPT, 16,
				 "section table at byte %" PRIu64
				 " is past the end of any file",
				 *tab);
	c->want = *tab + need;
	if (c->want < c->size)
		return file_fail(c, e, RONDO_E_CORRUPT, c->want,
				 "%" PRIu64 " bytes after the section table",
				 c->size - c->want);
	return 0;
}

/* Sections tile the bytes between the header and the table, in table
 * order, so every byte of a valid file is under some checksum.  A section
 * the file's end cuts, or whose checksum is wrong, is marked so: it fails
 * when loaded, and the others stay usable. */
static int entry_check(struct fmt_container *c, uint32_t i, uint64_t tab,
		       uint64_t at, struct fmt_err *e)
{
	struct fmt_entry *s = &c->sec[i];
	uint64_t start = i ? s[-1].offset + s[-1].stored : FMT_HEADER_SIZE;

	if (s->offset != start)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, at + 8,
				"section %u starts at byte %" PRIu64
				", not %" PRIu64,
				i, s->offset, start);
	if (s->stored > tab - s->offset)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, at + 16,
				"section %u overlaps the section table", i);
	if (s->stored > c->size - min_u64(s->offset, c->size))
		s->state = FMT_SEC_CUT;
	else if (!crc_ok(s->crc,
			 fmt_crc32c(0, c->data + s->offset, (size_t)s->stored)))
		s->state = FMT_SEC_BAD;
	else
		s->state = FMT_SEC_WHOLE;
	return 0;
}

/* Checks the entries found, from the table at `tab` or from the index
 * (where `at`, the place of an entry in the file, is the index's). */
static int entries_check(struct fmt_container *c, uint64_t tab,
			 struct fmt_err *e)
{
	uint64_t seen = 0; /* known types met so far (they are < 64) */
	uint64_t end;
	int rc;

	for (uint32_t i = 0; i < c->nsec; i++) {
		uint32_t type = c->sec[i].type;
		uint64_t at = c->from_index
				      ? FMT_HEADER_SIZE
				      : tab + (uint64_t)i * FMT_ENTRY_SIZE;

		rc = entry_check(c, i, tab, at, e);
		if (rc)
			return rc;
		/* Two of a kind would leave a reader guessing which counts. */
		if (sec_known(type) && (seen >> type & 1))
			return sec_fail(c, e, type, RONDO_E_CORRUPT, at,
					"section %u repeats an earlier one", i);
		if (sec_known(type))
			seen |= UINT64_C(1) << type;
	}
	end = c->nsec ? c->sec[c->nsec - 1].offset + c->sec[c->nsec - 1].stored
		      : FMT_HEADER_SIZE;
	if (!c->lost && end != tab)
		return file_fail(c, e, RONDO_E_CORRUPT, end,
				 "bytes %" PRIu64 " to %" PRIu64
				 " belong to no section",
				 end, tab - 1);
	return 0;
}

static int entries_alloc(struct fmt_container *c, uint32_t n, struct fmt_err *e)
{
	c->sec = calloc(n ? n : 1, sizeof(*c->sec));
	if (!c->sec)
		return file_fail(c, e, RONDO_E_NOMEM, 0, "out of memory");
	return 0;
}

/* The index's entries, when the file starts with a whole one that
 * describes as many sections as the header counts: 1 used, 0 none,
 * or an error (out of memory). */
static int index_read(struct fmt_container *c, uint64_t tab, struct fmt_err *e)
{
	const uint8_t *p = c->data + FMT_HEADER_SIZE;
	uint64_t top = min_u64(c->size, tab), avail, off;
	struct fmt_entry *s;
	struct fmt_cur cur;
	uint32_t n, magic = sizeof(FMT_INDEX_MAGIC) - 1;
	size_t len;

	avail = top > FMT_HEADER_SIZE ? top - FMT_HEADER_SIZE : 0;
	if (avail < magic + 5 || memcmp(p, FMT_INDEX_MAGIC, magic) != 0)
		return 0;
	fmt_cur_init(&cur, p + magic, (size_t)avail - magic, NULL, NULL);
	if (fmt_get_count(&cur, &n, 8) || (uint64_t)n + 1 != c->nsec)
		return 0;
	if (entries_alloc(c, n + 1, e))
		return RONDO_E_NOMEM;
	s = c->sec;
	for (uint32_t i = 1; i <= n; i++) {
		uint64_t type, codec;

		if (fmt_get_uvarint(&cur, &type) ||
		    fmt_get_uvarint(&cur, &codec) ||
		    fmt_get_uvarint(&cur, &s[i].stored) ||
		    fmt_get_uvarint(&cur, &s[i].raw) ||
		    fmt_get_le32(&cur, &s[i].crc) || type > UINT32_MAX ||
		    codec > UINT32_MAX)
			goto unusable;
		s[i].type = (uint32_t)type;
		s[i].codec = (uint32_t)codec;
	}
	len = magic + cur.pos;
	if (len + 4 > avail || !crc_ok(ld32(p + len), fmt_crc32c(0, p, len)))
		goto unusable;
	len += 4;
	s[0] = (struct fmt_entry){FMT_SEC_INDEX,
				  FMT_CODEC_RAW,
				  FMT_HEADER_SIZE,
				  len,
				  len,
				  fmt_crc32c(0, p, len),
				  0,
				  0};
	off = FMT_HEADER_SIZE + len;
	for (uint32_t i = 1; i <= n; i++) {
		s[i].offset = off;
		if (s[i].stored > tab - min_u64(off, tab))
			goto unusable;
		off += s[i].stored;
	}
	c->from_index = 1;
	return 1;
unusable:
	free(c->sec);
	c->sec = NULL;
	return 0;
}

/* The whole table's entries. */
static int table_read(struct fmt_container *c, uint64_t tab, struct fmt_err *e)
{
	const uint8_t *t = c->data + tab;
	size_t n = (size_t)c->nsec * FMT_ENTRY_SIZE;
	int rc;

	if (!crc_ok(ld32(t + n), fmt_crc32c(0, t, n))) {
		c->table_bad = 1;
		rc = index_read(c, tab, e);
		if (rc)
			return rc < 0 ? rc : 0;
		return file_fail(c, e, RONDO_E_CORRUPT, tab + n,
				 "section table checksum mismatch");
	}
	if (entries_alloc(c, c->nsec, e))
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < c->nsec; i++)
		entry_unpack(&c->sec[i], t + (size_t)i * FMT_ENTRY_SIZE);
	return 0;
}

/* The entries of a file cut before its end: from its index, else from the
 * table's entries that are there whole. */
static int cut_read(struct fmt_container *c, uint64_t tab, struct fmt_err *e)
{
	uint64_t k = c->size > tab ? (c->size - tab) / FMT_ENTRY_SIZE : 0;
	int rc = index_read(c, tab, e);

	if (rc)
		return rc < 0 ? rc : 0;
	if (!k)
		return file_fail(c, e, RONDO_E_TRUNCATED, c->size,
				 "truncated: %" PRIu64 " of %" PRIu64
				 " bytes; the section table is lost",
				 c->size, c->want);
	k = min_u64(k, c->nsec);
	if (entries_alloc(c, (uint32_t)k, e))
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < k; i++)
		entry_unpack(&c->sec[i],
			     c->data + tab + (size_t)i * FMT_ENTRY_SIZE);
	c->lost = c->nsec - (uint32_t)k;
	c->nsec = (uint32_t)k;
	return 0;
}

int fmt_container_parse(struct fmt_container *c, const uint8_t *data,
			uint64_t size, struct fmt_err *e)
{
	uint64_t tab = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	c->data = data;
	c->size = size;
	c->want = size;
	rc = header_check(c, e);
	if (!rc)
		rc = table_locate(c, &tab, e);
	if (!rc)
		rc = c->want > c->size ? cut_read(c, tab, e)
				       : table_read(c, tab, e);
	if (!rc)
		rc = entries_check(c, tab, e);
	if (rc)
		fmt_container_free(c);
	return rc;
}

void fmt_container_free(struct fmt_container *c)
{
	free(c->sec);
	memset(c, 0, sizeof(*c));
}

int fmt_container_find(const struct fmt_container *c, uint32_t type)
{
	for (uint32_t i = 0; i < c->nsec; i++)
		if (c->sec[i].type == type)
			return (int)i;
	return -1;
}

/* ---- loading a section --------------------------------------------------- */

static unsigned ceil_log2(uint64_t v)
{
	unsigned k = 0;

	while (k < 64 && (UINT64_C(1) << k) < v)
		k++;
	return k;
}

/* Checks what the frame header promises before decoding anything, and
 * limits the window to the declared size so the decoder's own buffers stay
 * proportional to it (a writer that knows the size never needs more). */
static int zstd_prepare(const struct fmt_container *c,
			const struct fmt_entry *s, uint64_t avail,
			ZSTD_DCtx *dc, struct fmt_err *e)
{
	const uint8_t *src = c->data + s->offset;
	unsigned long long fcs;
	unsigned wlog = ceil_log2(s->raw);

	if (s->raw / ZSTD_MAX_RATIO > s->stored)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"%" PRIu64
				" compressed bytes cannot hold %" PRIu64
				" raw bytes",
				s->stored, s->raw);
	if (s->raw >= SIZE_MAX)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"%" PRIu64 " bytes do not fit in memory",
				s->raw);
	if (avail < 4 || ld32(src) != ZSTD_MAGICNUMBER)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"not a zstd frame");
	fcs = ZSTD_getFrameContentSize(src, (size_t)avail);
	if (fcs == ZSTD_CONTENTSIZE_ERROR)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"bad zstd frame header");
	if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != s->raw)
		return sec_fail(
			c, e, s->type, RONDO_E_CORRUPT, s->offset,
			"zstd frame holds %llu bytes, table says %" PRIu64, fcs,
			s->raw);
	wlog = wlog < WINDOW_LOG_MIN ? WINDOW_LOG_MIN : wlog;
	wlog = wlog > WINDOW_LOG_MAX ? WINDOW_LOG_MAX : wlog;
	if (ZSTD_isError(
		    ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, (int)wlog)))
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"cannot set up zstd");
	return 0;
}

/* Doubles the output buffer, never past the declared raw size. */
static int load_grow(uint8_t **buf, size_t *cap, size_t raw)
{
	size_t ncap = *cap ? *cap : LOAD_FIRST_CHUNK;
	uint8_t *p;

	if (*cap)
		ncap = *cap <= SIZE_MAX / 2 ? *cap * 2 : SIZE_MAX;
	if (ncap > raw)
		ncap = raw;
	p = realloc(*buf, ncap ? ncap : 1);
	if (!p)
		return -1;
	*buf = p;
	*cap = ncap;
	return 0;
}

struct zload {
	const struct fmt_container *c;
	const struct fmt_entry *s;
	ZSTD_DCtx *dc;
	uint8_t *buf;
	size_t cap, pos;
	struct fmt_err *e;
};

/* One decompression step.  Returns 1 when the frame is complete, 0 to go
 * on, or an error.  Output beyond the declared size goes to a spill byte,
 * and any byte landing there is a lie caught before it costs memory. */
static int zload_step(struct zload *z, ZSTD_inBuffer *in)
{
	uint8_t spill;
	ZSTD_outBuffer out = {&spill, 1, 0};
	size_t in0 = in->pos, out0, r;
	uint64_t at = z->s->offset;

	if (z->pos == z->cap && z->cap < z->s->raw &&
	    load_grow(&z->buf, &z->cap, (size_t)z->s->raw))
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_NOMEM, at,
				"out of memory");
	if (z->pos < z->cap)
		out = (ZSTD_outBuffer){z->buf, z->cap, z->pos};
	out0 = out.pos;
	r = ZSTD_decompressStream(z->dc, &out, in);
	if (ZSTD_isError(r))
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_CORRUPT,
				at + in->pos, "zstd: %s", ZSTD_getErrorName(r));
	if (out.dst == &spill && out.pos)
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_CORRUPT,
				at + in->pos,
				"decompresses to more than the %" PRIu64
				" bytes the table says",
				z->s->raw);
	if (out.dst != &spill)
		z->pos = out.pos;
	if (r == 0)
		return 1;
	if (in->pos == in->size && out.pos < out.size)
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_TRUNCATED,
				at + in->pos, "zstd frame ends early");
	/* zstd always moves when it has room on both sides; guard anyway. */
	if (in->pos == in0 && out.pos == out0)
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_CORRUPT,
				at + in->pos, "zstd makes no progress");
	return 0;
}

static int load_zstd(const struct fmt_container *c, const struct fmt_entry *s,
		     uint8_t **outp, struct fmt_err *e)
{
	struct zload z = {c, s, ZSTD_createDCtx(), NULL, 0, 0, e};
	ZSTD_inBuffer in = {c->data + s->offset, (size_t)s->stored, 0};
	int rc;

	if (!z.dc)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"out of memory");
	rc = zstd_prepare(c, s, s->stored, z.dc, e);
	while (!rc)
		rc = zload_step(&z, &in);
	ZSTD_freeDCtx(z.dc);
	if (rc == 1 && in.pos != in.size)
		rc = sec_fail(
			c, e, s->type, RONDO_E_CORRUPT, s->offset + in.pos,
			"%zu bytes after the zstd frame", in.size - in.pos);
	else if (rc == 1 && z.pos != s->raw)
		rc = sec_fail(
			c, e, s->type, RONDO_E_CORRUPT, s->offset + in.pos,
			"decompresses to %zu bytes, the table says %" PRIu64,
			z.pos, s->raw);
	else if (rc == 1)
		rc = 0;
	if (rc) {
		free(z.buf);
		return rc;
	}
	/* An empty section still gets a buffer, so NULL always means failure. */
	if (!z.buf && !(z.buf = malloc(1)))
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"out of memory");
	*outp = z.buf;
	return 0;
}

static int load_raw(const struct fmt_container *c, const struct fmt_entry *s,
		    uint8_t **out, struct fmt_err *e)
{
	if (s->stored != s->raw)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"raw section of %" PRIu64
				" bytes claims %" PRIu64 " bytes",
				s->stored, s->raw);
	*out = malloc(s->raw ? (size_t)s->raw : 1);
	if (!*out)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"out of memory");
	if (s->raw)
		memcpy(*out, c->data + s->offset, (size_t)s->raw);
	return 0;
}

int fmt_section_load(const struct fmt_container *c, uint32_t idx, uint8_t **out,
		     size_t *len, struct fmt_err *e)
{
	const struct fmt_entry *s;
	int rc;

	*out = NULL;
	*len = 0;
	if (idx >= c->nsec)
		return fmt_fail(e, RONDO_E_RANGE, NULL, 0,
				"no section %u (the file has %u)", idx,
				c->nsec);
	s = &c->sec[idx];
	if (s->state == FMT_SEC_CUT)
		return sec_fail(c, e, s->type, RONDO_E_TRUNCATED, c->size,
				"section %u is cut: truncated: %" PRIu64
				" of %" PRIu64 " bytes",
				idx, c->size, c->want);
	if (s->state == FMT_SEC_BAD)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"section %u checksum mismatch", idx);
	if (s->codec == FMT_CODEC_RAW)
		rc = load_raw(c, s, out, e);
	else if (s->codec == FMT_CODEC_ZSTD)
		rc = load_zstd(c, s, out, e);
	else
		rc = sec_fail(c, e, s->type,
			      c->minor > RONDO_FORMAT_MINOR ? RONDO_E_VERSION
							    : RONDO_E_CORRUPT,
			      s->offset, "unknown codec %u", s->codec);
	if (!rc)
		*len = (size_t)s->raw;
	return rc;
}

/* The longest a zstd frame's header is (ZSTD_FRAMEHEADERSIZE_MAX, which
 * zstd.h gives only to static linking). */
#define ZSTD_HEADER_MAX 18

int fmt_section_load_cut(const struct fmt_container *c, uint32_t idx,
			 uint8_t **out, size_t *len, struct fmt_err *e)
{
	const struct fmt_entry *s;
	uint64_t have;
	struct zload z = {c, NULL, NULL, NULL, 0, 0, e};
	ZSTD_inBuffer in;
	int rc = 0;

	*out = NULL;
	*len = 0;
	if (idx >= c->nsec || c->sec[idx].state != FMT_SEC_CUT)
		return fmt_fail(e, RONDO_E_RANGE, NULL, 0,
				"section %u is not cut", idx);
	s = &c->sec[idx];
	have = c->size > s->offset ? c->size - s->offset : 0;
	if (s->codec == FMT_CODEC_RAW) {
		have = min_u64(have, s->raw);
		if (!(*out = malloc(have ? (size_t)have : 1)))
			return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
					"out of memory");
		memcpy(*out, c->data + s->offset, (size_t)have);
		*len = (size_t)have;
		return 0;
	}
	if (s->codec != FMT_CODEC_ZSTD)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"unknown codec %u", s->codec);
	/* as far as the bytes there go: a frame that ends early is what a
	 * cut leaves, whatever came out before it is whole */
	if (have < ZSTD_HEADER_MAX) {
		/* not even the frame's header: nothing whole, if what is
		 * there begins as a frame does */
		uint8_t magic[4];

		st32(magic, ZSTD_MAGICNUMBER);
		if (memcmp(c->data + s->offset, magic,
			   (size_t)min_u64(have, 4)))
			return sec_fail(c, e, s->type, RONDO_E_CORRUPT,
					s->offset, "not a zstd frame");
		if (!(*out = malloc(1)))
			return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
					"out of memory");
		return 0;
	}
	z.s = s;
	z.dc = ZSTD_createDCtx();
	in = (ZSTD_inBuffer){c->data + s->offset, (size_t)have, 0};
	if (!z.dc)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"out of memory");
	rc = zstd_prepare(c, s, have, z.dc, e);
	/* on while bytes are left in, or out is full (zstd may hold more) */
	while (!rc && (in.pos < in.size || z.pos == z.cap))
		rc = zload_step(&z, &in);
	ZSTD_freeDCtx(z.dc);
	if (rc == RONDO_E_TRUNCATED || rc == 1)
		rc = 0;
	if (!rc && !z.buf && !(z.buf = malloc(1)))
		rc = sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
			      "out of memory");
	if (rc) {
		free(z.buf);
		return rc;
	}
	*out = z.buf;
	*len = z.pos;
	return 0;
}

/* ---- writing a file ------------------------------------------------------ */

void fmt_writer_init(struct fmt_writer *w)
{
	memset(w, 0, sizeof(*w));
}

void fmt_writer_free(struct fmt_writer *w)
{
	fmt_buf_free(&w->body);
	free(w->tab);
	memset(w, 0, sizeof(*w));
}

static int writer_grow_tab(struct fmt_writer *w)
{
	uint32_t cap = w->cap ? w->cap * 2 : 8;
	struct fmt_entry *t;

	if (w->n < w->cap)
		return 0;
	t = realloc(w->tab, cap * sizeof(*t));
	if (!t)
		return -1;
	w->tab = t;
	w->cap = cap;
	return 0;
}

/* Compresses straight into the body with one byte less room than the raw
 * payload: zstd then fails exactly when compressing would not pay. */
/* Compresses raw into dst (room for cap bytes) as one zstd frame whose
 * blocks end every `block` bytes of raw, so that what a cut leaves of it
 * decodes up to the last whole block (fmt_section_load_cut).  The size in
 * dst, or a zstd error (ZSTD_isError). */
static size_t pack_blocks(void *dst, size_t cap, const void *raw, size_t len,
			  int level, size_t block)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_outBuffer out = {dst, cap, 0};
	ZSTD_inBuffer in = {raw, 0, 0};
	size_t r = 0;

	if (!cc)
		return (size_t)-1; /* an error code to ZSTD_isError */
	r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setPledgedSrcSize(cc, len);
	while (!ZSTD_isError(r) && in.size < len) {
		ZSTD_EndDirective how =
			len - in.size > block ? ZSTD_e_flush : ZSTD_e_end;

		in.size = how == ZSTD_e_end ? len : in.size + block;
		do /* until the flush or the end is complete */
			r = ZSTD_compressStream2(cc, &out, &in, how);
		while (!ZSTD_isError(r) && r != 0 && out.pos < out.size);
		if (!ZSTD_isError(r) && r != 0)
			r = (size_t)-1; /* out of room: not smaller */
	}
	ZSTD_freeCCtx(cc);
	return ZSTD_isError(r) ? r : out.pos;
}

static size_t writer_pack(struct fmt_writer *w, uint32_t type, const void *raw,
			  size_t len, int level, uint32_t *codec)
{
	uint8_t *dst = w->body.data + w->body.len;
	/* the call grammar, read up to a cut, in blocks */
	size_t z = !len ? 0
		   : type == FMT_SEC_GRAMMAR && len > FMT_GRAMMAR_BLOCK
			   ? pack_blocks(dst, len - 1, raw, len, level,
					 FMT_GRAMMAR_BLOCK)
			   : ZSTD_compress(dst, len - 1, raw, len, level);

	if (len && !ZSTD_isError(z)) {
		*codec = FMT_CODEC_ZSTD;
		return z;
	}
	*codec = FMT_CODEC_RAW;
	if (len)
		memcpy(dst, raw, len);
	return len;
}

size_t fmt_packed_size(const void *p, size_t n, int level)
{
	void *dst = n ? malloc(n) : NULL;
	size_t z = dst ? ZSTD_compress(dst, n - 1, p, n, level) : 0;

	free(dst);
	if (!n)
		return 0;
	if (!dst)
		return 0;
	return ZSTD_isError(z) ? n : z;
}

int fmt_writer_add(struct fmt_writer *w, uint32_t type, const void *raw,
		   size_t len, int level)
{
	struct fmt_entry *s;
	size_t start = w->body.len;

	if (w->err)
		return w->err;
	if (type ==
	    FMT_SEC_INDEX) /* a copied file's: the writer makes its own */
		return 0;
	if (w->n + 1 >= FMT_MAX_SECTIONS) /* one more for the index */
		return w->err = RONDO_E_RANGE;
	if (writer_grow_tab(w) || fmt_buf_reserve(&w->body, len ? len : 1))
		return w->err = RONDO_E_NOMEM;
	s = &w->tab[w->n++];
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->offset = FMT_HEADER_SIZE + (uint64_t)start;
	s->stored = writer_pack(w, type, raw, len, level, &s->codec);
	s->raw = len;
	w->body.len += (size_t)s->stored;
	s->crc = fmt_crc32c(0, w->body.data + start, (size_t)s->stored);
	return 0;
}

/* The index: every section's entry but its offset, which the tiling
 * gives, in a raw first section that a reader finds without the table. */
static void writer_index(const struct fmt_writer *w, struct fmt_buf *x)
{
	fmt_put_bytes(x, FMT_INDEX_MAGIC, sizeof(FMT_INDEX_MAGIC) - 1);
	fmt_put_uvarint(x, w->n);
	for (uint32_t i = 0; i < w->n; i++) {
		const struct fmt_entry *s = &w->tab[i];

		fmt_put_varints(x, 1, s->type, s->codec);
		fmt_put_varints(x, 1, s->stored, s->raw);
		fmt_put_le32(x, s->crc);
	}
	if (!x->oom)
		fmt_put_le32(x, fmt_crc32c(0, x->data, x->len));
}

static void writer_header(uint32_t n, uint64_t tab, uint8_t *h)
{
	memcpy(h, FMT_MAGIC, FMT_MAGIC_LEN);
	st16(h + 8, RONDO_FORMAT_MAJOR);
	st16(h + 10, RONDO_FORMAT_MINOR);
	st32(h + 12, n);
	st64(h + 16, tab);
	st32(h + 24, 0);
	st32(h + 28, fmt_crc32c(0, h, 28));
}

static void writer_entry(struct fmt_buf *b, const struct fmt_entry *s,
			 uint32_t *crc)
{
	uint8_t ent[FMT_ENTRY_SIZE];

	entry_pack(ent, s);
	*crc = fmt_crc32c(*crc, ent, sizeof(ent));
	fmt_put_bytes(b, ent, sizeof(ent));
}

int fmt_writer_finish(struct fmt_writer *w, struct fmt_buf *out)
{
	struct fmt_buf b = {0}, x = {0};
	uint8_t h[FMT_HEADER_SIZE];
	uint32_t crc = 0;
	struct fmt_entry ix = {FMT_SEC_INDEX, FMT_CODEC_RAW, FMT_HEADER_SIZE};

	if (w->err)
		return w->err;
	writer_index(w, &x);
	ix.stored = ix.raw = x.len;
	ix.crc = fmt_crc32c(0, x.data, x.len);
	writer_header(w->n + 1, FMT_HEADER_SIZE + x.len + w->body.len, h);
	fmt_put_bytes(&b, h, sizeof(h));
	fmt_put_bytes(&b, x.data, x.len);
	fmt_put_bytes(&b, w->body.data, w->body.len);
	writer_entry(&b, &ix, &crc);
	for (uint32_t i = 0; i < w->n; i++) {
		struct fmt_entry s = w->tab[i];

		s.offset += x.len;
		writer_entry(&b, &s, &crc);
	}
	fmt_put_le32(&b, crc);
	if (b.oom || x.oom) {
		fmt_buf_free(&b);
		fmt_buf_free(&x);
		return RONDO_E_NOMEM;
	}
	fmt_buf_free(&x);
	*out = b;
	return 0;
}

int fmt_writer_save(struct fmt_writer *w, const char *path, char *why,
		    size_t whylen)
{
	struct fmt_buf file = {0};
	struct fileio_out o;
	char reason[256], name[FILEIO_SHORT];
	int rc = fmt_writer_finish(w, &file), err = 0;

	if (rc)
		snprintf(reason, sizeof(reason), "%s",
			 rc == RONDO_E_NOMEM ? "out of memory"
					     : "too many sections");
	else if (!(err = fileio_create(&o, path, reason, sizeof(reason))) &&
		 (err = fileio_write(&o, file.data, file.len)) != 0) {
		snprintf(reason, sizeof(reason), "%s", strerror(err));
		fileio_close(&o, 0, NULL, 0);
	} else if (!err) {
		err = fileio_close(&o, 1, reason, sizeof(reason));
	}
	w->saved = rc || err ? 0 : file.len;
	fmt_buf_free(&file);
	if (err)
		rc = err == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO;
	if (rc && why && whylen)
		snprintf(why, whylen, "cannot write %s: %s",
			 fileio_short(name, sizeof(name), path), reason);
	return rc;
}
