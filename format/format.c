/*
 * format.c - the one codec of the .rondo format (see FORMAT.md).
 *
 * Everything that reads bytes here treats them as hostile: every count and
 * length is checked against what is left before anything is allocated or
 * indexed, and every failure says where (section, byte offset) and why.
 * Nothing here prints or exits; the writer and the reader report.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "fileio.h"
#include "format.h"
#include "util.h"

_Static_assert(sizeof(double) == 8, "the format stores IEEE-754 doubles");

/* Rule lengths are counts of calls; anything above this is a lie. */
#define LEN_MAX (UINT64_C(1) << 63)

/* A zstd block (at most 128 KiB of output) needs at least 4 bytes (3 of
 * header, 1 for an RLE byte), so no frame expands by more than this. */
#define ZSTD_MAX_RATIO (ZSTD_BLOCKSIZE_MAX / 4)

/* Bounds of the zstd window we accept: zstd's own minimum, and the limit
 * its decoder applies by default (both are in zstd's unstable API). */
#define WINDOW_LOG_MIN 10
#define WINDOW_LOG_MAX 27

/* Output buffer of a streamed decompression before it starts doubling. */
#define LOAD_FIRST_CHUNK 65536

/* ---- errors -------------------------------------------------------------- */

static int err_vset(struct fmt_err *e, int code, const char *section,
		    uint64_t offset, uint64_t size, const char *fmt,
		    va_list ap)
{
	if (!e)
		return code;
	e->code = code;
	e->section = section;
	e->offset = offset;
	e->size = size;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int fmt_fail(struct fmt_err *e, int code, const char *section,
	     uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, code, section, offset, 0, fmt, ap);
	va_end(ap);
	return code;
}

/* A payload error: offsets are relative to the cursor's bytes. */
static int __attribute__((format(printf, 4, 5)))
cur_fail(const struct fmt_cur *c, int code, size_t offset, const char *fmt,
	 ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(c->e, code, c->section, offset, c->len, fmt, ap);
	va_end(ap);
	return code;
}

/* A container error: offsets are file offsets. */
static int __attribute__((format(printf, 5, 6)))
file_fail(const struct fmt_container *c, struct fmt_err *e, int code,
	  uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, code, NULL, offset, c->size, fmt, ap);
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
	err_vset(e, code, fmt_section_name(type), offset, c->size, fmt, ap);
	va_end(ap);
	return code;
}

/* The name of a section type this version defines, or NULL. */
static const char *sec_known(uint32_t type)
{
	static const char *const names[] = {
		[FMT_SEC_META] = "meta",       [FMT_SEC_FUNCS] = "funcs",
		[FMT_SEC_CONSTS] = "consts",   [FMT_SEC_CST] = "cst",
		[FMT_SEC_GRAMMAR] = "grammar", [FMT_SEC_RANKMAP] = "rankmap",
		[FMT_SEC_STATS] = "stats",     [FMT_SEC_COMMS] = "comms",
		[FMT_SEC_RANKTIME] = "ranktime", [FMT_SEC_TOPOLOGY] = "topology",
		[FMT_SEC_TYPESIZES] = "typesizes",
		[FMT_SEC_TIMING] = "timing",
	};

	return type < COUNTOF(names) ? names[type] : NULL;
}

const char *fmt_section_name(uint32_t type)
{
	const char *name = sec_known(type);

	return name ? name : "unknown";
}

/* ---- CRC-32C ------------------------------------------------------------- */

/* CRC-32C (Castagnoli), reflected polynomial 0x82f63b78: better error
 * detection than zlib's CRC-32 for the same cost, and what iSCSI, ext4 and
 * SSE4.2 use.  A constant table: no lazy initialisation to race on inside a
 * multithreaded MPI program. */
static const uint32_t crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4,
	0xc79a971f, 0x35f1141c, 0x26a1e7e8, 0xd4ca64eb,
	0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24,
	0x105ec76f, 0xe235446c, 0xf165b798, 0x030e349b,
	0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54,
	0x5d1d08bf, 0xaf768bbc, 0xbc267848, 0x4e4dfb4b,
	0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35,
	0xaa64d611, 0x580f5512, 0x4b5fa6e6, 0xb93425e5,
	0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45,
	0xf779deae, 0x05125dad, 0x1642ae59, 0xe4292d5a,
	0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595,
	0x417b1dbc, 0xb3109ebf, 0xa0406d4b, 0x522bee48,
	0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687,
	0x0c38d26c, 0xfe53516f, 0xed03a29b, 0x1f682198,
	0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38,
	0xdbfc821c, 0x2997011f, 0x3ac7f2eb, 0xc8ac71e8,
	0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096,
	0xa65c047d, 0x5437877e, 0x4767748a, 0xb50cf789,
	0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46,
	0x7198540d, 0x83f3d70e, 0x90a324fa, 0x62c8a7f9,
	0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36,
	0x3cdb9bdd, 0xceb018de, 0xdde0eb2a, 0x2f8b6829,
	0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93,
	0x082f63b7, 0xfa44e0b4, 0xe9141340, 0x1b7f9043,
	0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3,
	0x55326b08, 0xa759e80b, 0xb4091bff, 0x466298fc,
	0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033,
	0xa24bb5a6, 0x502036a5, 0x4370c551, 0xb11b4652,
	0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d,
	0xef087a76, 0x1d63f975, 0x0e330a81, 0xfc588982,
	0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622,
	0x38cc2a06, 0xcaa7a905, 0xd9f75af1, 0x2b9cd9f2,
	0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530,
	0x0417b1db, 0xf67c32d8, 0xe52cc12c, 0x1747422f,
	0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0,
	0xd3d3e1ab, 0x21b862a8, 0x32e8915c, 0xc083125f,
	0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90,
	0x9e902e7b, 0x6cfbad78, 0x7fab5e8c, 0x8dc0dd8f,
	0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1,
	0x69e9f0d5, 0x9b8273d6, 0x88d28022, 0x7ab90321,
	0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81,
	0x34f4f86a, 0xc69f7b69, 0xd5cf889d, 0x27a40b9e,
	0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
	0xbe2da0a5, 0x4c4623a6, 0x5f16d052, 0xad7d5351,
};

uint32_t fmt_crc32c(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *s = p;

	crc = ~crc;
	while (n--)
		crc = crc32c_table[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* ---- little-endian fields ------------------------------------------------ */

static void st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t ld64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* ---- output buffers ------------------------------------------------------ */

void fmt_buf_free(struct fmt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/* Makes room for n more bytes.  Returns 0, or -1 with b->oom set. */
int fmt_buf_grow(struct fmt_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return -1;
	if (n > SIZE_MAX - b->len)
		goto oom;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap = cap <= SIZE_MAX / 2 ? cap * 2 : b->len + n;
	p = realloc(b->data, cap);
	if (!p)
		goto oom;
	b->data = p;
	b->cap = cap;
	return 0;
oom:
	b->oom = 1;
	return -1;
}

void fmt_put_bytes(struct fmt_buf *b, const void *p, size_t n)
{
	if (n == 0 || fmt_buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void fmt_put_u8(struct fmt_buf *b, uint8_t v)
{
	fmt_put_bytes(b, &v, 1);
}

void fmt_put_le32(struct fmt_buf *b, uint32_t v)
{
	uint8_t s[4];

	st32(s, v);
	fmt_put_bytes(b, s, sizeof(s));
}

void fmt_put_le64(struct fmt_buf *b, uint64_t v)
{
	uint8_t s[8];

	st64(s, v);
	fmt_put_bytes(b, s, sizeof(s));
}

void fmt_put_f64(struct fmt_buf *b, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	fmt_put_le64(b, u);
}

void fmt_put_str(struct fmt_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	fmt_put_uvarint(b, n);
	fmt_put_bytes(b, s, n);
}

/* ---- the cursor ---------------------------------------------------------- */

/* On failure every get leaves zero (or NULL) in its outputs, so a caller
 * that goes on to report never reads an indeterminate value. */

void fmt_cur_init(struct fmt_cur *c, const uint8_t *p, size_t len,
		  const char *section, struct fmt_err *e)
{
	c->p = p;
	c->pos = 0;
	c->len = len;
	c->section = section;
	c->e = e;
}

static size_t cur_left(const struct fmt_cur *c)
{
	return c->len - c->pos;
}

static int cur_need(struct fmt_cur *c, size_t n, const char *what)
{
	if (n <= cur_left(c))
		return 0;
	return cur_fail(c, RONDO_E_TRUNCATED, c->pos,
			"%s needs %zu bytes, %zu left", what, n, cur_left(c));
}

static int cur_nomem(const struct fmt_cur *c)
{
	return cur_fail(c, RONDO_E_NOMEM, c->pos, "out of memory");
}

int fmt_get_u8(struct fmt_cur *c, uint8_t *v)
{
	int rc = cur_need(c, 1, "a byte");

	*v = 0;
	if (rc)
		return rc;
	*v = c->p[c->pos++];
	return 0;
}

int fmt_get_le32(struct fmt_cur *c, uint32_t *v)
{
	int rc = cur_need(c, 4, "a 32-bit field");

	*v = 0;
	if (rc)
		return rc;
	*v = ld32(c->p + c->pos);
	c->pos += 4;
	return 0;
}

int fmt_get_le64(struct fmt_cur *c, uint64_t *v)
{
	int rc = cur_need(c, 8, "a 64-bit field");

	*v = 0;
	if (rc)
		return rc;
	*v = ld64(c->p + c->pos);
	c->pos += 8;
	return 0;
}

/* LEB128, canonical only: a value has exactly one encoding, so equal
 * payloads are equal bytes and a flipped bit cannot hide in padding. */
int fmt_get_uvarint(struct fmt_cur *c, uint64_t *v)
{
	size_t start = c->pos;
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	*v = 0;
	for (;;) {
		if (c->pos >= c->len)
			return cur_fail(c, RONDO_E_TRUNCATED, start,
					"varint runs past the end");
		b = c->p[c->pos++];
		if (shift == 63 && b > 1)
			return cur_fail(c, RONDO_E_CORRUPT, start,
					"varint overflows 64 bits");
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	if (b == 0 && shift > 0)
		return cur_fail(c, RONDO_E_CORRUPT, start,
				"overlong varint (%u bytes)", shift / 7 + 1);
	*v = x;
	return 0;
}

int fmt_get_svarint(struct fmt_cur *c, int64_t *v)
{
	uint64_t u;
	int rc = fmt_get_uvarint(c, &u);

	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return rc;
}

int fmt_get_f64(struct fmt_cur *c, double *v)
{
	uint64_t u;
	int rc = fmt_get_le64(c, &u);

	memcpy(v, &u, sizeof(*v));
	return rc;
}

int fmt_get_count(struct fmt_cur *c, uint32_t *v, size_t min_item_size)
{
	size_t start = c->pos;
	uint64_t n;
	int rc = fmt_get_uvarint(c, &n);

	*v = 0;
	if (rc)
		return rc;
	if (n > UINT32_MAX)
		return cur_fail(c, RONDO_E_CORRUPT, start,
				"count %" PRIu64 " does not fit 32 bits", n);
	/* Every item takes at least one byte, whatever the caller says. */
	if (min_item_size == 0)
		min_item_size = 1;
	if (n > cur_left(c) / min_item_size)
		return cur_fail(c, RONDO_E_TRUNCATED, start,
				"%" PRIu64 " items of at least %zu bytes do not "
				"fit in the %zu bytes left",
				n, min_item_size, cur_left(c));
	*v = (uint32_t)n;
	return 0;
}

int fmt_get_bytes(struct fmt_cur *c, const uint8_t **s, size_t *n)
{
	size_t start = c->pos;
	uint64_t len;
	int rc = fmt_get_uvarint(c, &len);

	*s = NULL;
	*n = 0;
	if (rc)
		return rc;
	if (len > cur_left(c))
		return cur_fail(c, RONDO_E_TRUNCATED, start,
				"string of %" PRIu64 " bytes, %zu left", len,
				cur_left(c));
	*s = c->p + c->pos;
	*n = (size_t)len;
	c->pos += (size_t)len;
	return 0;
}

int fmt_cur_end(struct fmt_cur *c)
{
	if (c->pos == c->len)
		return 0;
	return cur_fail(c, RONDO_E_CORRUPT, c->pos,
			"%zu unexpected bytes at the end", cur_left(c));
}

/* A string, copied and NUL-terminated; NUL inside would cut it short. */
static int cur_get_str(struct fmt_cur *c, char **out)
{
	const uint8_t *s, *nul;
	size_t n;
	int rc = fmt_get_bytes(c, &s, &n);

	if (rc)
		return rc;
	nul = n ? memchr(s, 0, n) : NULL;
	if (nul)
		return cur_fail(c, RONDO_E_CORRUPT, (size_t)(nul - c->p),
				"NUL byte inside a string");
	*out = malloc(n + 1);
	if (!*out)
		return cur_nomem(c);
	if (n)
		memcpy(*out, s, n);
	(*out)[n] = '\0';
	return 0;
}

/* Increasing signature ids are stored as their distance past the one
 * before (the first as itself); *next is the least id the next may be. */
static int sig_next_read(struct fmt_cur *c, uint64_t *next, uint32_t nsigs,
			 uint32_t *sig)
{
	size_t at = c->pos;
	uint64_t d;
	int rc = fmt_get_uvarint(c, &d);

	if (rc)
		return rc;
	if (*next >= nsigs || d >= nsigs - *next)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"a signature past the last (the file has %u)",
				nsigs);
	*sig = (uint32_t)(*next + d);
	*next = *sig + 1ull;
	return 0;
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

/* Places the table: it must end exactly where the file ends. */
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
				 " overlaps the header", *tab);
	if (*tab > c->size || need > c->size - *tab)
		return file_fail(c, e, RONDO_E_TRUNCATED, 16,
				 "section table (%" PRIu64 " bytes at byte %"
				 PRIu64 ") runs past the end of the file",
				 need, *tab);
	if (need != c->size - *tab)
		return file_fail(c, e, RONDO_E_CORRUPT, *tab + need,
				 "%" PRIu64 " bytes after the section table",
				 c->size - *tab - need);
	return 0;
}

/* Sections tile the bytes between the header and the table, in table
 * order, so every byte of a valid file is under some checksum. */
static int entry_check(struct fmt_container *c, uint32_t i, uint64_t tab,
		       struct fmt_err *e)
{
	const struct fmt_entry *s = &c->sec[i];
	uint64_t at = tab + (uint64_t)i * FMT_ENTRY_SIZE;
	uint64_t start = i ? s[-1].offset + s[-1].stored : FMT_HEADER_SIZE;

	if (s->offset != start)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, at + 8,
				"section %u starts at byte %" PRIu64
				", not %" PRIu64, i, s->offset, start);
	if (s->stored > c->size - s->offset)
		return sec_fail(c, e, s->type, RONDO_E_TRUNCATED, at + 16,
				"section %u runs past the end of the file", i);
	if (s->stored > tab - s->offset)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, at + 16,
				"section %u overlaps the section table", i);
	if (!crc_ok(s->crc, fmt_crc32c(0, c->data + s->offset,
					(size_t)s->stored)))
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"section %u checksum mismatch", i);
	return 0;
}

static int table_read(struct fmt_container *c, uint64_t tab,
		      struct fmt_err *e)
{
	const uint8_t *t = c->data + tab;
	size_t n = (size_t)c->nsec * FMT_ENTRY_SIZE;
	uint64_t seen = 0; /* known types met so far (they are < 64) */
	uint64_t end;
	int rc;

	if (!crc_ok(ld32(t + n), fmt_crc32c(0, t, n)))
		return file_fail(c, e, RONDO_E_CORRUPT, tab + n,
				 "section table checksum mismatch");
	c->sec = calloc(c->nsec ? c->nsec : 1, sizeof(*c->sec));
	if (!c->sec)
		return file_fail(c, e, RONDO_E_NOMEM, tab, "out of memory");
	for (uint32_t i = 0; i < c->nsec; i++)
		entry_unpack(&c->sec[i], t + (size_t)i * FMT_ENTRY_SIZE);
	for (uint32_t i = 0; i < c->nsec; i++) {
		uint32_t type = c->sec[i].type;

		rc = entry_check(c, i, tab, e);
		if (rc)
			return rc;
		/* Two of a kind would leave a reader guessing which counts. */
		if (sec_known(type) && (seen >> type & 1))
			return sec_fail(c, e, type, RONDO_E_CORRUPT,
					tab + (uint64_t)i * FMT_ENTRY_SIZE,
					"section %u repeats an earlier one", i);
		if (sec_known(type))
			seen |= UINT64_C(1) << type;
	}
	end = c->nsec ? c->sec[c->nsec - 1].offset + c->sec[c->nsec - 1].stored
		      : FMT_HEADER_SIZE;
	if (end != tab)
		return file_fail(c, e, RONDO_E_CORRUPT, end,
				 "bytes %" PRIu64 " to %" PRIu64
				 " belong to no section", end, tab - 1);
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
	rc = header_check(c, e);
	if (!rc)
		rc = table_locate(c, &tab, e);
	if (!rc)
		rc = table_read(c, tab, e);
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
			const struct fmt_entry *s, ZSTD_DCtx *dc,
			struct fmt_err *e)
{
	const uint8_t *src = c->data + s->offset;
	unsigned long long fcs;
	unsigned wlog = ceil_log2(s->raw);

	if (s->raw / ZSTD_MAX_RATIO > s->stored)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"%" PRIu64 " compressed bytes cannot hold %"
				PRIu64 " raw bytes", s->stored, s->raw);
	if (s->raw >= SIZE_MAX)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"%" PRIu64 " bytes do not fit in memory",
				s->raw);
	if (s->stored < 4 || ld32(src) != ZSTD_MAGICNUMBER)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"not a zstd frame");
	fcs = ZSTD_getFrameContentSize(src, (size_t)s->stored);
	if (fcs == ZSTD_CONTENTSIZE_ERROR)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"bad zstd frame header");
	if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != s->raw)
		return sec_fail(c, e, s->type, RONDO_E_CORRUPT, s->offset,
				"zstd frame holds %llu bytes, table says %"
				PRIu64, fcs, s->raw);
	wlog = wlog < WINDOW_LOG_MIN ? WINDOW_LOG_MIN : wlog;
	wlog = wlog > WINDOW_LOG_MAX ? WINDOW_LOG_MAX : wlog;
	if (ZSTD_isError(ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax,
						(int)wlog)))
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
	ZSTD_outBuffer out = { &spill, 1, 0 };
	size_t in0 = in->pos, out0, r;
	uint64_t at = z->s->offset;

	if (z->pos == z->cap && z->cap < z->s->raw &&
	    load_grow(&z->buf, &z->cap, (size_t)z->s->raw))
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_NOMEM, at,
				"out of memory");
	if (z->pos < z->cap)
		out = (ZSTD_outBuffer){ z->buf, z->cap, z->pos };
	out0 = out.pos;
	r = ZSTD_decompressStream(z->dc, &out, in);
	if (ZSTD_isError(r))
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_CORRUPT,
				at + in->pos, "zstd: %s", ZSTD_getErrorName(r));
	if (out.dst == &spill && out.pos)
		return sec_fail(z->c, z->e, z->s->type, RONDO_E_CORRUPT,
				at + in->pos,
				"decompresses to more than the %" PRIu64
				" bytes the table says", z->s->raw);
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
	struct zload z = { c, s, ZSTD_createDCtx(), NULL, 0, 0, e };
	ZSTD_inBuffer in = { c->data + s->offset, (size_t)s->stored, 0 };
	int rc;

	if (!z.dc)
		return sec_fail(c, e, s->type, RONDO_E_NOMEM, s->offset,
				"out of memory");
	rc = zstd_prepare(c, s, z.dc, e);
	while (!rc)
		rc = zload_step(&z, &in);
	ZSTD_freeDCtx(z.dc);
	if (rc == 1 && in.pos != in.size)
		rc = sec_fail(c, e, s->type, RONDO_E_CORRUPT,
			      s->offset + in.pos,
			      "%zu bytes after the zstd frame",
			      in.size - in.pos);
	else if (rc == 1 && z.pos != s->raw)
		rc = sec_fail(c, e, s->type, RONDO_E_CORRUPT,
			      s->offset + in.pos,
			      "decompresses to %zu bytes, the table says %"
			      PRIu64, z.pos, s->raw);
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

int fmt_section_load(const struct fmt_container *c, uint32_t idx,
		     uint8_t **out, size_t *len, struct fmt_err *e)
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
static size_t writer_pack(struct fmt_writer *w, const void *raw, size_t len,
			  int level, uint32_t *codec)
{
	uint8_t *dst = w->body.data + w->body.len;
	size_t z = len ? ZSTD_compress(dst, len - 1, raw, len, level) : 0;

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
	if (w->n >= FMT_MAX_SECTIONS)
		return w->err = RONDO_E_RANGE;
	if (writer_grow_tab(w) || fmt_buf_reserve(&w->body, len ? len : 1))
		return w->err = RONDO_E_NOMEM;
	s = &w->tab[w->n++];
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->offset = FMT_HEADER_SIZE + (uint64_t)start;
	s->stored = writer_pack(w, raw, len, level, &s->codec);
	s->raw = len;
	w->body.len += (size_t)s->stored;
	s->crc = fmt_crc32c(0, w->body.data + start, (size_t)s->stored);
	return 0;
}

static void writer_header(const struct fmt_writer *w, uint8_t *h)
{
	memcpy(h, FMT_MAGIC, FMT_MAGIC_LEN);
	st16(h + 8, RONDO_FORMAT_MAJOR);
	st16(h + 10, RONDO_FORMAT_MINOR);
	st32(h + 12, w->n);
	st64(h + 16, FMT_HEADER_SIZE + (uint64_t)w->body.len);
	st32(h + 24, 0);
	st32(h + 28, fmt_crc32c(0, h, 28));
}

int fmt_writer_finish(struct fmt_writer *w, struct fmt_buf *out)
{
	struct fmt_buf b = { 0 };
	uint8_t h[FMT_HEADER_SIZE], ent[FMT_ENTRY_SIZE];
	uint32_t crc = 0;

	if (w->err)
		return w->err;
	writer_header(w, h);
	fmt_put_bytes(&b, h, sizeof(h));
	fmt_put_bytes(&b, w->body.data, w->body.len);
	for (uint32_t i = 0; i < w->n; i++) {
		entry_pack(ent, &w->tab[i]);
		crc = fmt_crc32c(crc, ent, sizeof(ent));
		fmt_put_bytes(&b, ent, sizeof(ent));
	}
	fmt_put_le32(&b, crc);
	if (b.oom) {
		fmt_buf_free(&b);
		return RONDO_E_NOMEM;
	}
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

/* ---- section payloads: strings ------------------------------------------- */

/* Every decoder reads with a *_read function, then insists on the exact
 * end: a payload with bytes left over was not written by this format. */
static int cur_done(struct fmt_cur *c, int rc)
{
	return rc ? rc : fmt_cur_end(c);
}

void fmt_meta_encode(struct fmt_buf *b, const struct fmt_meta *m)
{
	fmt_put_uvarint(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		fmt_put_str(b, m->kv[i].key);
		fmt_put_str(b, m->kv[i].value);
	}
}

static int meta_read(struct fmt_cur *c, struct fmt_meta *m)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	m->kv = calloc(n ? n : 1, sizeof(*m->kv));
	if (!m->kv)
		return cur_nomem(c);
	m->n = n;
	for (uint32_t i = 0; i < n && !rc; i++) {
		rc = cur_get_str(c, &m->kv[i].key);
		if (!rc)
			rc = cur_get_str(c, &m->kv[i].value);
	}
	return rc;
}

int fmt_meta_decode(struct fmt_meta *m, const uint8_t *p, size_t n,
		    struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(m, 0, sizeof(*m));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_META), e);
	rc = cur_done(&c, meta_read(&c, m));
	if (rc)
		fmt_meta_free(m);
	return rc;
}

void fmt_meta_free(struct fmt_meta *m)
{
	for (uint32_t i = 0; m->kv && i < m->n; i++) {
		free(m->kv[i].key);
		free(m->kv[i].value);
	}
	free(m->kv);
	memset(m, 0, sizeof(*m));
}

void fmt_funcs_encode(struct fmt_buf *b, const struct fmt_funcs *f)
{
	fmt_put_uvarint(b, f->n);
	for (uint32_t i = 0; i < f->n; i++) {
		fmt_put_str(b, f->f[i].name);
		fmt_put_uvarint(b, f->f[i].nparams);
		for (uint32_t k = 0; k < f->f[i].nparams; k++) {
			fmt_put_str(b, f->f[i].params[k]);
			fmt_put_uvarint(b, f->f[i].flags ? f->f[i].flags[k] : 0);
		}
	}
}

static int func_read(struct fmt_cur *c, struct fmt_func *f)
{
	uint32_t n = 0;
	uint64_t flags = 0;
	int rc = cur_get_str(c, &f->name);

	if (!rc)
		rc = fmt_get_count(c, &n, 2);
	if (rc)
		return rc;
	f->params = calloc(n ? n : 1, sizeof(*f->params));
	f->flags = calloc(n ? n : 1, sizeof(*f->flags));
	if (!f->params || !f->flags)
		return cur_nomem(c);
	f->nparams = n;
	for (uint32_t k = 0; k < n && !rc; k++) {
		rc = cur_get_str(c, &f->params[k]);
		if (!rc)
			rc = fmt_get_uvarint(c, &flags);
		/* Flags this reader does not know are kept, and ignored. */
		f->flags[k] = (uint8_t)flags;
	}
	return rc;
}

static int funcs_read(struct fmt_cur *c, struct fmt_funcs *f)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	f->f = calloc(n ? n : 1, sizeof(*f->f));
	if (!f->f)
		return cur_nomem(c);
	f->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = func_read(c, &f->f[i]);
	return rc;
}

int fmt_funcs_decode(struct fmt_funcs *f, const uint8_t *p, size_t n,
		     struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(f, 0, sizeof(*f));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_FUNCS), e);
	rc = cur_done(&c, funcs_read(&c, f));
	if (rc)
		fmt_funcs_free(f);
	return rc;
}

void fmt_funcs_free(struct fmt_funcs *f)
{
	for (uint32_t i = 0; f->f && i < f->n; i++) {
		for (uint32_t k = 0; f->f[i].params && k < f->f[i].nparams; k++)
			free(f->f[i].params[k]);
		free(f->f[i].params);
		free(f->f[i].flags);
		free(f->f[i].name);
	}
	free(f->f);
	memset(f, 0, sizeof(*f));
}

void fmt_consts_encode(struct fmt_buf *b, const struct fmt_consts *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++)
		fmt_put_str(b, c->name[i]);
}

static int consts_read(struct fmt_cur *c, struct fmt_consts *k)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 1);

	if (rc)
		return rc;
	k->name = calloc(n ? n : 1, sizeof(*k->name));
	if (!k->name)
		return cur_nomem(c);
	k->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = cur_get_str(c, &k->name[i]);
	return rc;
}

int fmt_consts_decode(struct fmt_consts *k, const uint8_t *p, size_t n,
		      struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(k, 0, sizeof(*k));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_CONSTS), e);
	rc = cur_done(&c, consts_read(&c, k));
	if (rc)
		fmt_consts_free(k);
	return rc;
}

void fmt_consts_free(struct fmt_consts *k)
{
	for (uint32_t i = 0; k->name && i < k->n; i++)
		free(k->name[i]);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

/* ---- argument values ----------------------------------------------------- */

void fmt_arg_put_bytes(struct fmt_buf *b, uint32_t kind, const void *p,
		       size_t n)
{
	fmt_put_varints(b, 1, fmt_arg_tag(kind, RONDO_WIRE_BYTES), n);
	fmt_put_bytes(b, p, n);
}

static int arg_read(struct fmt_cur *c, rondo_arg *a, unsigned depth);

/* A list's elements are checked here, once, so that walking them later
 * (rondo_arg_elem) can trust them; recursion is bounded by depth. */
static int arg_list(struct fmt_cur *c, rondo_arg *a, unsigned depth,
		    size_t start)
{
	uint32_t n;
	rondo_arg el;
	int rc;

	if (depth >= FMT_MAX_ARG_DEPTH)
		return cur_fail(c, RONDO_E_CORRUPT, start,
				"lists nested more than %d deep",
				FMT_MAX_ARG_DEPTH);
	rc = fmt_get_count(c, &n, 1);
	if (rc)
		return rc;
	a->n = n;
	a->data = c->p + c->pos;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = arg_read(c, &el, depth + 1);
	a->size = (size_t)(c->p + c->pos - a->data);
	return rc;
}

/* A signed value; one relative to the caller's rank must be one that
 * can be added to a rank (FMT_REL_MAX). */
static int sint_read(struct fmt_cur *c, rondo_arg *a, size_t start)
{
	int rc = fmt_get_svarint(c, &a->i);

	if (rc || (a->kind != RONDO_ARG_RANK_REL && a->kind != RONDO_ARG_REL &&
		   a->kind != RONDO_ARG_CART_REL))
		return rc;
	if (a->i < -FMT_REL_MAX || a->i > FMT_REL_MAX)
		return cur_fail(c, RONDO_E_CORRUPT, start,
				"relative rank %" PRId64 " is out of range "
				"(beyond 2^32 either way)", a->i);
	return 0;
}

static int arg_read(struct fmt_cur *c, rondo_arg *a, unsigned depth)
{
	size_t start = c->pos;
	uint64_t tag;
	int rc = fmt_get_uvarint(c, &tag);

	memset(a, 0, sizeof(*a));
	if (rc)
		return rc;
	if (tag >> 3 > UINT32_MAX)
		return cur_fail(c, RONDO_E_CORRUPT, start,
				"argument kind %" PRIu64 " out of range",
				tag >> 3);
	a->kind = (uint32_t)(tag >> 3);
	a->wire = (uint32_t)(tag & 7);
	switch (a->wire) {
	case RONDO_WIRE_NONE:
		return 0;
	case RONDO_WIRE_UINT:
		return fmt_get_uvarint(c, &a->u);
	case RONDO_WIRE_SINT:
		return sint_read(c, a, start);
	case RONDO_WIRE_BYTES:
		return fmt_get_bytes(c, &a->data, &a->size);
	case RONDO_WIRE_LIST:
		return arg_list(c, a, depth, start);
	}
	return cur_fail(c, RONDO_E_CORRUPT, start, "unknown wire type %u",
			a->wire);
}

int fmt_arg_get(struct fmt_cur *c, rondo_arg *out)
{
	return arg_read(c, out, 0);
}

/* Re-encodes a value already checked by arg_read, element by element. */
static void arg_copy(struct fmt_buf *out, const rondo_arg *a, uint32_t kind,
		     uint64_t (*map)(void *ctx, uint64_t v), void *ctx)
{
	struct fmt_cur in;
	rondo_arg el;

	switch (a->wire) {
	case RONDO_WIRE_NONE:
		fmt_arg_put_none(out, a->kind);
		break;
	case RONDO_WIRE_UINT:
		fmt_arg_put_uint(out, a->kind,
				 a->kind == kind ? map(ctx, a->u) : a->u);
		break;
	case RONDO_WIRE_SINT:
		fmt_arg_put_sint(out, a->kind, a->i);
		break;
	case RONDO_WIRE_BYTES:
		fmt_arg_put_bytes(out, a->kind, a->data, a->size);
		break;
	case RONDO_WIRE_LIST:
		fmt_arg_put_list(out, a->kind, a->n);
		fmt_cur_init(&in, a->data, a->size, NULL, NULL);
		for (uint64_t k = 0; k < a->n && arg_read(&in, &el, 1) == 0; k++)
			arg_copy(out, &el, kind, map, ctx);
		break;
	}
}

int fmt_arg_map(struct fmt_buf *out, struct fmt_cur *in, uint32_t kind,
		uint64_t (*map)(void *ctx, uint64_t v), void *ctx)
{
	rondo_arg a;
	int rc = arg_read(in, &a, 0);

	if (rc == 0)
		arg_copy(out, &a, kind, map, ctx);
	return rc;
}

/* ---- call signatures ----------------------------------------------------- */

void fmt_cst_encode(struct fmt_buf *b, const struct fmt_cst *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++) {
		fmt_put_uvarint(b, c->sig[i].func);
		fmt_put_uvarint(b, c->sig[i].nargs);
		fmt_put_uvarint(b, c->sig[i].len);
		fmt_put_bytes(b, c->sig[i].args, c->sig[i].len);
	}
}

/* Checks one signature's arguments with a cursor that ends where they end
 * but shares the section's base, so error offsets stay section offsets.
 * Running past that end is corruption, not truncation: the section went
 * on. */
static int sig_args(struct fmt_cur *c, uint64_t nargs, size_t nbytes)
{
	struct fmt_cur a = *c;
	rondo_arg v;
	int rc = 0;

	a.len = c->pos + nbytes;
	for (uint64_t k = 0; k < nargs && !rc; k++)
		rc = fmt_arg_get(&a, &v);
	if (!rc && a.pos != a.len)
		rc = cur_fail(&a, RONDO_E_CORRUPT, a.pos,
			      "%zu bytes after the last argument",
			      a.len - a.pos);
	if (rc == RONDO_E_TRUNCATED)
		rc = RONDO_E_CORRUPT;
	if (rc && c->e) {
		c->e->code = rc;
		c->e->size = c->len;
	}
	return rc;
}

static int sig_read(struct fmt_cur *c, struct fmt_sig *s, uint32_t nfuncs)
{
	size_t at = c->pos;
	uint64_t func, nargs, nbytes = 0;
	int rc = fmt_get_uvarint(c, &func);

	if (rc)
		return rc;
	if (func >= nfuncs)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"signature of function %" PRIu64
				", the file has %u functions", func, nfuncs);
	at = c->pos;
	rc = fmt_get_uvarint(c, &nargs);
	if (!rc)
		rc = fmt_get_uvarint(c, &nbytes);
	if (rc)
		return rc;
	if (nbytes > cur_left(c))
		return cur_fail(c, RONDO_E_TRUNCATED, at,
				"arguments of %" PRIu64 " bytes, %zu left",
				nbytes, cur_left(c));
	if (nargs > nbytes || nbytes > UINT32_MAX)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"%" PRIu64 " arguments in %" PRIu64 " bytes",
				nargs, nbytes);
	rc = sig_args(c, nargs, (size_t)nbytes);
	if (rc)
		return rc;
	s->func = (uint32_t)func;
	s->nargs = (uint32_t)nargs;
	s->len = (uint32_t)nbytes;
	s->args = c->p + c->pos;
	c->pos += (size_t)nbytes;
	return 0;
}

/* Copies the argument bytes out of the payload, so the table outlives it. */
static int cst_own(struct fmt_cur *c, struct fmt_cst *t)
{
	size_t total = 0, at = 0;

	for (uint32_t i = 0; i < t->n; i++)
		total += t->sig[i].len;
	t->blob = malloc(total ? total : 1);
	if (!t->blob)
		return cur_nomem(c);
	for (uint32_t i = 0; i < t->n; i++) {
		if (t->sig[i].len)
			memcpy(t->blob + at, t->sig[i].args, t->sig[i].len);
		t->sig[i].args = t->blob + at;
		at += t->sig[i].len;
	}
	return 0;
}

static int cst_read(struct fmt_cur *c, struct fmt_cst *t, uint32_t nfuncs)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 3);

	if (rc)
		return rc;
	t->sig = calloc(n ? n : 1, sizeof(*t->sig));
	if (!t->sig)
		return cur_nomem(c);
	t->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = sig_read(c, &t->sig[i], nfuncs);
	return rc ? rc : cst_own(c, t);
}

int fmt_cst_decode(struct fmt_cst *t, const uint8_t *p, size_t n,
		   uint32_t nfuncs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_CST), e);
	rc = cur_done(&c, cst_read(&c, t, nfuncs));
	if (rc)
		fmt_cst_free(t);
	return rc;
}

void fmt_cst_free(struct fmt_cst *t)
{
	free(t->sig);
	free(t->blob);
	memset(t, 0, sizeof(*t));
}

/* ---- grammars ------------------------------------------------------------ */

static void sym_put(struct fmt_buf *b, const rondo_sym *s)
{
	uint64_t v = (uint64_t)RONDO_SYM_ID(s->sym) << 2;

	if (RONDO_SYM_IS_RULE(s->sym))
		v |= 2;
	/* Count 0 cannot be written: it reads back as 1. */
	if (s->count > 1)
		v |= 1;
	fmt_put_uvarint(b, v);
	if (s->count > 1)
		fmt_put_uvarint(b, s->count - 2);
}

void fmt_grammar_encode(struct fmt_buf *b, const struct fmt_grammar *g)
{
	fmt_put_uvarint(b, g->nrules);
	for (uint32_t r = 0; r < g->nrules; r++) {
		fmt_put_uvarint(b, g->first[r + 1] - g->first[r]);
		for (uint32_t k = g->first[r]; k < g->first[r + 1]; k++)
			sym_put(b, &g->body[k]);
	}
}

/* What reading one grammar needs besides the cursor. */
struct gread {
	struct fmt_grammar *g;
	uint64_t *len; /* calls each rule read so far expands to */
	size_t cap;    /* symbols g->body has room for */
	uint32_t nterm;
};

static int count_read(struct fmt_cur *c, uint64_t *n)
{
	size_t at = c->pos;
	uint64_t x;
	int rc = fmt_get_uvarint(c, &x);

	if (rc)
		return rc;
	if (x > UINT64_MAX - 2)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"repeat count overflows 64 bits");
	*n = x + 2;
	return 0;
}

/* Rule references must point backwards, so rules come in dependency order
 * and no cycle can be written; lengths are summed here, once. */
static int sym_read(struct fmt_cur *c, const struct gread *st, uint32_t r,
		    rondo_sym *s, uint64_t *total)
{
	size_t at = c->pos;
	uint64_t v, id, n = 1, l = 1;
	int rc = fmt_get_uvarint(c, &v);

	if (rc)
		return rc;
	id = v >> 2;
	if (id > RONDO_SYM_RULE - 1)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"symbol %" PRIu64 " does not fit 31 bits", id);
	if ((v & 2) && id >= r)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"rule %u refers to undefined rule %" PRIu64, r,
				id);
	if (!(v & 2) && id >= st->nterm)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"rule %u uses terminal %" PRIu64
				", only %u exist", r, id, st->nterm);
	if (v & 2)
		l = st->len[id];
	if ((v & 1) && (rc = count_read(c, &n)))
		return rc;
	/* l is 0 for a rule that expands to nothing: no overflow then. */
	if (l && (n > LEN_MAX / l || n * l > LEN_MAX - *total))
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"rule %u expands to more than 2^63 symbols", r);
	*total += n * l;
	s->sym = (uint32_t)id | (v & 2 ? RONDO_SYM_RULE : 0);
	s->reserved = 0;
	s->count = n;
	return 0;
}

static int rule_read(struct fmt_cur *c, struct gread *st, uint32_t r)
{
	struct fmt_grammar *g = st->g;
	size_t at = c->pos;
	uint32_t n, base = g->first[r];
	uint64_t total = 0;
	int rc = fmt_get_count(c, &n, 1);

	if (rc)
		return rc;
	if (n > UINT32_MAX - base)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"more than 2^32-1 symbols in all rules");
	if (util_grow(&g->body, &st->cap, (size_t)base + n,
			   sizeof(*g->body)))
		return cur_nomem(c);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = sym_read(c, st, r, &g->body[base + k], &total);
	if (rc)
		return rc;
	g->first[r + 1] = base + n;
	st->len[r] = total;
	return 0;
}

/* Shared by the grammar and the rank map.  On success *len holds the
 * expansion length of every rule (malloc'd); on failure it is NULL. */
static int grammar_read(struct fmt_cur *c, struct fmt_grammar *g,
			uint32_t nterm, uint64_t **len)
{
	struct gread st = { g, NULL, 0, nterm };
	uint32_t n;
	int rc = fmt_get_count(c, &n, 1);

	*len = NULL;
	if (rc)
		return rc;
	g->first = calloc((size_t)n + 1, sizeof(*g->first));
	st.len = calloc(n ? n : 1, sizeof(*st.len));
	if (!g->first || !st.len) {
		free(st.len);
		return cur_nomem(c);
	}
	g->nrules = n;
	for (uint32_t r = 0; r < n && !rc; r++)
		rc = rule_read(c, &st, r);
	/* A body even when every rule is empty: users index it from
	 * body + first[r], which must not be arithmetic on NULL. */
	if (!rc && !g->body &&
	    util_grow(&g->body, &st.cap, 1, sizeof(*g->body)))
		rc = cur_nomem(c);
	if (rc)
		free(st.len);
	else
		*len = st.len;
	return rc;
}

int fmt_grammar_decode(struct fmt_grammar *g, const uint8_t *p, size_t n,
		       uint32_t nterminals, uint64_t **lengths,
		       struct fmt_err *e)
{
	struct fmt_cur c;
	uint64_t *len;
	int rc;

	memset(g, 0, sizeof(*g));
	if (lengths)
		*lengths = NULL;
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_GRAMMAR), e);
	rc = cur_done(&c, grammar_read(&c, g, nterminals, &len));
	if (rc)
		fmt_grammar_free(g);
	if (rc || !lengths)
		free(len);
	else
		*lengths = len;
	return rc;
}

void fmt_grammar_free(struct fmt_grammar *g)
{
	free(g->first);
	free(g->body);
	memset(g, 0, sizeof(*g));
}

/* ---- the rank map -------------------------------------------------------- */

void fmt_rankmap_encode(struct fmt_buf *b, const struct fmt_rankmap *r)
{
	fmt_put_uvarint(b, r->nranks);
	fmt_grammar_encode(b, &r->map);
}

static int rankmap_read(struct fmt_cur *c, struct fmt_rankmap *m,
			uint32_t nrules)
{
	uint64_t nranks, *len;
	size_t at;
	int rc = fmt_get_uvarint(c, &nranks);

	if (rc)
		return rc;
	if (nranks == 0 || nranks > UINT32_MAX)
		return cur_fail(c, RONDO_E_CORRUPT, 0,
				"%" PRIu64 " ranks", nranks);
	m->nranks = (uint32_t)nranks;
	at = c->pos;
	rc = grammar_read(c, &m->map, nrules, &len);
	if (rc)
		return rc;
	if (m->map.nrules == 0)
		rc = cur_fail(c, RONDO_E_CORRUPT, at, "the rank map is empty");
	else if (len[m->map.nrules - 1] != nranks)
		rc = cur_fail(c, RONDO_E_CORRUPT, 0,
			      "the rank map lists %" PRIu64
			      " ranks, the job had %" PRIu64,
			      len[m->map.nrules - 1], nranks);
	if (rc)
		free(len);
	else
		m->len = len;
	return rc;
}

int fmt_rankmap_decode(struct fmt_rankmap *r, const uint8_t *p, size_t n,
		       uint32_t nrules, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(r, 0, sizeof(*r));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_RANKMAP), e);
	rc = cur_done(&c, rankmap_read(&c, r, nrules));
	if (rc)
		fmt_rankmap_free(r);
	return rc;
}

void fmt_rankmap_free(struct fmt_rankmap *r)
{
	fmt_grammar_free(&r->map);
	free(r->len);
	memset(r, 0, sizeof(*r));
}

/* ---- statistics ---------------------------------------------------------- */

static void stat_put(struct fmt_buf *b, uint64_t delta, const rondo_stat *s)
{
	unsigned nbins = 0, next = 0;

	fmt_put_uvarint(b, delta);
	fmt_put_uvarint(b, s->count);
	fmt_put_uvarint(b, s->total_ns);
	fmt_put_uvarint(b, s->min_ns);
	fmt_put_uvarint(b, s->max_ns - s->min_ns);
	fmt_put_f64(b, s->sumsq_ns2);
	for (unsigned k = 0; k < RONDO_HIST_BINS; k++)
		nbins += s->hist[k] != 0;
	fmt_put_uvarint(b, nbins);
	for (unsigned k = 0; k < RONDO_HIST_BINS; k++) {
		if (!s->hist[k])
			continue;
		fmt_put_uvarint(b, k - next);
		fmt_put_uvarint(b, s->hist[k]);
		next = k + 1;
	}
}

void fmt_stats_encode(struct fmt_buf *b, const struct fmt_stats *s)
{
	fmt_put_uvarint(b, s->n);
	for (uint32_t i = 0; i < s->n; i++)
		stat_put(b, i ? s->st[i].sig - s->st[i - 1].sig - 1
			      : s->st[i].sig, &s->st[i].s);
}

static int bin_read(struct fmt_cur *c, rondo_stat *s, uint64_t *next,
		    uint64_t *sum)
{
	size_t at = c->pos;
	uint64_t d, n;
	int rc = fmt_get_uvarint(c, &d);

	if (rc)
		return rc;
	if (d >= RONDO_HIST_BINS - *next)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"histogram bin beyond the last (%d)",
				RONDO_HIST_BINS - 1);
	*next += d;
	at = c->pos;
	rc = fmt_get_uvarint(c, &n);
	if (rc)
		return rc;
	if (n == 0 || n > UINT64_MAX - *sum)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"histogram bin %" PRIu64 " holds %" PRIu64
				" calls", *next, n);
	s->hist[*next] = n;
	*sum += n;
	*next += 1;
	return 0;
}

static int hist_read(struct fmt_cur *c, rondo_stat *s)
{
	size_t at = c->pos;
	uint64_t next = 0, sum = 0;
	uint32_t n;
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	if (n > RONDO_HIST_BINS)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"%u histogram bins, at most %d", n,
				RONDO_HIST_BINS);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = bin_read(c, s, &next, &sum);
	if (!rc && sum != s->count)
		rc = cur_fail(c, RONDO_E_CORRUPT, at,
			      "histogram holds %" PRIu64
			      " calls, the count is %" PRIu64, sum, s->count);
	return rc;
}

/* Every duration lies in [min, max], so the total lies in [min, max] times
 * the count; a product that overflows is beyond any uint64 total. */
static int total_check(struct fmt_cur *c, const rondo_stat *s, size_t at)
{
	int lo = s->min_ns && s->count > UINT64_MAX / s->min_ns;
	int hi = s->max_ns && s->count > UINT64_MAX / s->max_ns;

	if (lo || s->total_ns < s->min_ns * s->count ||
	    (!hi && s->total_ns > s->max_ns * s->count))
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"total %" PRIu64 " ns is impossible for %"
				PRIu64 " calls of %" PRIu64 " to %" PRIu64
				" ns", s->total_ns, s->count, s->min_ns,
				s->max_ns);
	return 0;
}

/* Reads a uvarint and remembers where it started, for error offsets. */
static int uv_at(struct fmt_cur *c, uint64_t *v, size_t *at)
{
	*at = c->pos;
	return fmt_get_uvarint(c, v);
}

static int values_read(struct fmt_cur *c, rondo_stat *s)
{
	size_t at[5];
	uint64_t range = 0;
	int rc = uv_at(c, &s->count, &at[0]);

	if (!rc)
		rc = uv_at(c, &s->total_ns, &at[1]);
	if (!rc)
		rc = uv_at(c, &s->min_ns, &at[2]);
	if (!rc)
		rc = uv_at(c, &range, &at[3]);
	at[4] = c->pos;
	if (!rc)
		rc = fmt_get_f64(c, &s->sumsq_ns2);
	if (rc)
		return rc;
	if (s->count == 0)
		return cur_fail(c, RONDO_E_CORRUPT, at[0], "count is 0");
	if (range > UINT64_MAX - s->min_ns)
		return cur_fail(c, RONDO_E_CORRUPT, at[3], "maximum overflows");
	s->max_ns = s->min_ns + range;
	if (!(s->sumsq_ns2 >= 0) || isinf(s->sumsq_ns2))
		return cur_fail(c, RONDO_E_CORRUPT, at[4],
				"sum of squares %g", s->sumsq_ns2);
	return total_check(c, s, at[1]);
}

static int stat_read(struct fmt_cur *c, struct fmt_stat *st, uint64_t next,
		     uint32_t nsigs)
{
	int rc = sig_next_read(c, &next, nsigs, &st->sig);

	if (!rc)
		rc = values_read(c, &st->s);
	return rc ? rc : hist_read(c, &st->s);
}

static int stats_read(struct fmt_cur *c, struct fmt_stats *s, uint32_t nsigs)
{
	uint32_t n;
	/* sig, count, total, min, range, 8-byte sumsq, nbins, one bin */
	int rc = fmt_get_count(c, &n, 16);

	if (rc)
		return rc;
	s->st = calloc(n ? n : 1, sizeof(*s->st));
	if (!s->st)
		return cur_nomem(c);
	s->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = stat_read(c, &s->st[i], i ? s->st[i - 1].sig + 1ull : 0,
			       nsigs);
	return rc;
}

int fmt_stats_decode(struct fmt_stats *s, const uint8_t *p, size_t n,
		     uint32_t nsigs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(s, 0, sizeof(*s));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_STATS), e);
	rc = cur_done(&c, stats_read(&c, s, nsigs));
	if (rc)
		fmt_stats_free(s);
	return rc;
}

void fmt_stats_free(struct fmt_stats *s)
{
	free(s->st);
	memset(s, 0, sizeof(*s));
}

/* ---- communicators ---------------------------------------------------------- */

/* Members as runs of equal strides: a communicator of every other rank,
 * or of a block, takes a few bytes whatever its size. */
static void members_put(struct fmt_buf *b, const uint32_t *w, uint32_t n)
{
	uint32_t runs = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			fmt_put_uvarint(b, runs);
		for (uint32_t i = 0; i < n;) {
			uint32_t len = 1;
			int64_t stride = i + 1 < n ? (int64_t)w[i + 1] - w[i] : 1;

			while (i + len < n &&
			       (int64_t)w[i + len] - w[i + len - 1] == stride)
				len++;
			if (pass == 0) {
				runs++;
			} else {
				fmt_put_uvarint(b, w[i]);
				fmt_put_uvarint(b, len);
				fmt_put_svarint(b, len > 1 ? stride : 0);
			}
			i += len;
		}
	}
}

void fmt_comms_encode(struct fmt_buf *b, const struct fmt_comms *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++) {
		fmt_put_uvarint(b, c->c[i].n);
		fmt_put_uvarint(b, c->c[i].first);
		members_put(b, c->c[i].world, c->c[i].n);
	}
}

static int run_read(struct fmt_cur *c, struct fmt_comm *m, uint32_t *have,
		    uint32_t nranks)
{
	size_t at = c->pos;
	uint64_t start, len;
	int64_t stride;
	int rc = fmt_get_uvarint(c, &start);

	if (!rc)
		rc = fmt_get_uvarint(c, &len);
	if (!rc)
		rc = fmt_get_svarint(c, &stride);
	if (rc)
		return rc;
	if (len == 0 || len > m->n - *have)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"a run of %" PRIu64 " members, %u left", len,
				m->n - *have);
	for (uint64_t k = 0; k < len; k++) {
		/* start < 2^32 and |stride| < 2^32 keep this in range */
		int64_t r = start < nranks && stride > -(1ll << 32) &&
					    stride < (1ll << 32)
				    ? (int64_t)start + (int64_t)k * stride
				    : -1;

		if (r < 0 || r >= nranks)
			return cur_fail(c, RONDO_E_CORRUPT, at,
					"member %" PRIu64 " of a run is not a "
					"rank of the job (%u ranks)", k, nranks);
		m->world[(*have)++] = (uint32_t)r;
	}
	return 0;
}

static int comm_read(struct fmt_cur *c, struct fmt_comm *m, uint32_t nranks)
{
	size_t at = c->pos;
	uint32_t runs = 0, have = 0;
	uint64_t first, n;
	/* Runs make members cheap: the bound is the job, not the bytes. */
	int rc = fmt_get_uvarint(c, &n);

	if (!rc && n > nranks)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"a communicator of %" PRIu64 " members, the job "
				"had %u ranks", n, nranks);
	m->n = (uint32_t)n;
	if (!rc)
		rc = fmt_get_uvarint(c, &first);
	if (!rc && first > m->n)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"first group of %" PRIu64 " in %u members",
				first, m->n);
	if (!rc)
		rc = fmt_get_count(c, &runs, 3);
	if (rc)
		return rc;
	m->first = (uint32_t)first;
	m->world = malloc(sizeof(*m->world) * (m->n ? m->n : 1));
	if (!m->world)
		return cur_nomem(c);
	for (uint32_t k = 0; k < runs && !rc; k++)
		rc = run_read(c, m, &have, nranks);
	if (!rc && have != m->n)
		rc = cur_fail(c, RONDO_E_CORRUPT, at,
			      "runs give %u of %u members", have, m->n);
	return rc;
}

int fmt_comms_decode(struct fmt_comms *c, const uint8_t *p, size_t n,
		     uint32_t nranks, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(c, 0, sizeof(*c));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_COMMS), e);
	rc = fmt_get_count(&cur, &count, 3);
	if (!rc) {
		c->c = calloc(count ? count : 1, sizeof(*c->c));
		if (!c->c)
			rc = cur_nomem(&cur);
		else
			c->n = count;
	}
	for (uint32_t i = 0; i < c->n && !rc; i++)
		rc = comm_read(&cur, &c->c[i], nranks);
	rc = cur_done(&cur, rc);
	if (rc)
		fmt_comms_free(c);
	return rc;
}

void fmt_comms_free(struct fmt_comms *c)
{
	for (uint32_t i = 0; c->c && i < c->n; i++)
		free(c->c[i].world);
	free(c->c);
	memset(c, 0, sizeof(*c));
}

/* ---- sizes of predefined datatypes ---------------------------------------- */

void fmt_typesizes_encode(struct fmt_buf *b, const struct fmt_typesizes *t)
{
	fmt_put_uvarint(b, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		fmt_put_uvarint(b, t->konst[i]);
		fmt_put_uvarint(b, t->size[i]);
	}
}

int fmt_typesizes_decode(struct fmt_typesizes *t, const uint8_t *p, size_t n,
			 uint32_t nconsts, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_TYPESIZES), e);
	rc = fmt_get_count(&cur, &count, 2);
	if (!rc) {
		t->konst = malloc(sizeof(*t->konst) * (count + 1));
		t->size = malloc(sizeof(*t->size) * (count + 1));
		if (!t->konst || !t->size)
			rc = cur_nomem(&cur);
	}
	for (uint32_t i = 0; i < count && !rc; i++) {
		size_t at = cur.pos;
		uint64_t k;

		rc = fmt_get_uvarint(&cur, &k);
		if (!rc && (k >= nconsts || (i && k <= t->konst[i - 1])))
			rc = cur_fail(&cur, RONDO_E_CORRUPT, at,
				      "constant %" PRIu64 " (%u of them, not "
				      "in increasing order?)", k, nconsts);
		rc = rc ? rc : fmt_get_uvarint(&cur, &t->size[i]);
		if (!rc) {
			t->konst[i] = (uint32_t)k;
			t->n = i + 1;
		}
	}
	rc = cur_done(&cur, rc);
	if (rc)
		fmt_typesizes_free(t);
	return rc;
}

void fmt_typesizes_free(struct fmt_typesizes *t)
{
	free(t->konst);
	free(t->size);
	memset(t, 0, sizeof(*t));
}

/* ---- per-call timing ------------------------------------------------------ */

int fmt_tscale_init(struct fmt_tscale *s, double base)
{
	double v = 1.0;
	uint32_t n = 1, cap;

	memset(s, 0, sizeof(*s));
	if (!(base >= FMT_TBASE_MIN && base <= FMT_TBASE_MAX))
		return RONDO_E_RANGE;
	/* 2^62 ns at the smallest base: fewer than 43 000 magnitudes */
	cap = (uint32_t)(62.0 * log(2.0) / log(base)) + 3;
	s->up = malloc(sizeof(*s->up) * cap);
	s->down = malloc(sizeof(*s->down) * cap);
	if (!s->up || !s->down) {
		fmt_tscale_free(s);
		return RONDO_E_NOMEM;
	}
	s->base = base;
	s->lnb = log(base);
	s->up[0] = s->down[0] = 0;
	/* b^(j-1) as a product, the same on every machine that rounds
	 * doubles as IEEE 754 says */
	for (; n < cap && v < 4.611686018427387904e18; n++, v *= base) {
		s->up[n] = (uint64_t)ceil(v);
		s->down[n] = (uint64_t)floor(v);
	}
	s->n = n;
	return 0;
}

void fmt_tscale_free(struct fmt_tscale *s)
{
	free(s->up);
	free(s->down);
	memset(s, 0, sizeof(*s));
}

/* The smallest j >= 1 with up[j] >= x (x >= 1): a guess from the
 * logarithm, put right by the table. */
static uint32_t tscale_up(const struct fmt_tscale *s, uint64_t x)
{
	double g = ceil(log((double)x) / s->lnb) + 1;
	uint32_t j = g < 1 ? 1 : g >= s->n ? s->n - 1 : (uint32_t)g;

	while (j + 1 < s->n && s->up[j] < x)
		j++;
	while (j > 1 && s->up[j - 1] >= x)
		j--;
	return j;
}

/* The largest j >= 1 with down[j] <= x (x >= 1). */
static uint32_t tscale_down(const struct fmt_tscale *s, uint64_t x)
{
	double g = floor(log((double)x) / s->lnb) + 1;
	uint32_t j = g < 1 ? 1 : g >= s->n ? s->n - 1 : (uint32_t)g;

	while (j > 1 && s->down[j] > x)
		j--;
	while (j + 1 < s->n && s->down[j + 1] <= x)
		j++;
	return j;
}

uint32_t fmt_tcode_dur(const struct fmt_tscale *s, uint64_t ns)
{
	return ns ? tscale_up(s, ns) : 0;
}

uint32_t fmt_tcode_ival(const struct fmt_tscale *s, int64_t ns)
{
	if (ns > 0)
		return 2 * tscale_up(s, (uint64_t)ns) - 1;
	if (ns < 0)
		return 2 * tscale_down(s, ns == INT64_MIN ? (uint64_t)INT64_MAX
							  : (uint64_t)-ns);
	return 0;
}

uint64_t fmt_tvalue_dur(const struct fmt_tscale *s, uint32_t code)
{
	return s->up[code < s->n ? code : s->n - 1];
}

int64_t fmt_tvalue_ival(const struct fmt_tscale *s, uint32_t code)
{
	uint32_t j = (code + 1) / 2;

	if (j >= s->n)
		j = s->n - 1;
	return code & 1 ? (int64_t)s->up[j] : -(int64_t)s->down[j];
}

int fmt_tenc_call(struct fmt_tenc *e, uint32_t sig, int64_t start,
		  uint64_t dur, uint32_t *dcode, uint32_t *icode)
{
	size_t had = e->cap;
	int64_t ref;

	if (sig >= e->cap) {
		if (util_grow(&e->prev, &e->cap, (size_t)sig + 1,
				   sizeof(*e->prev)))
			return -1;
		for (size_t k = had; k < e->cap; k++)
			e->prev[k] = INT64_MIN;
	}
	ref = e->prev[sig] != INT64_MIN ? e->prev[sig] : e->last;
	*icode = fmt_tcode_ival(e->sc, start - ref);
	*dcode = fmt_tcode_dur(e->sc, dur);
	/* the next intervals count from what a reader will see */
	e->prev[sig] = fmt_time_add(ref, fmt_tvalue_ival(e->sc, *icode));
	e->last = fmt_time_add(e->prev[sig],
			       (int64_t)fmt_tvalue_dur(e->sc, *dcode));
	return 0;
}

void fmt_tenc_free(struct fmt_tenc *e)
{
	free(e->prev);
	e->prev = NULL;
	e->cap = 0;
}

void fmt_timing_encode(struct fmt_buf *b, const struct fmt_timing *t)
{
	fmt_put_uvarint(b, 0); /* flags, none defined */
	fmt_put_f64(b, t->base);
	fmt_put_uvarint(b, t->nranks);
	for (uint32_t r = 0; r < t->nranks; r++)
		fmt_put_svarint(b, t->offset[r]);
	fmt_grammar_encode(b, &t->g);
	fmt_rankmap_encode(b, &t->map);
}

static int timing_read(struct fmt_cur *c, struct fmt_timing *t,
		       uint32_t nranks)
{
	struct fmt_tscale sc;
	uint64_t flags, n;
	uint32_t limit;
	size_t at = c->pos;
	int rc = fmt_get_uvarint(c, &flags);

	if (!rc && flags)
		return cur_fail(c, RONDO_E_CORRUPT, at, "flags %" PRIu64, flags);
	at = c->pos;
	rc = rc ? rc : fmt_get_f64(c, &t->base);
	if (rc)
		return rc;
	rc = fmt_tscale_init(&sc, t->base);
	if (rc == RONDO_E_RANGE)
		return cur_fail(c, RONDO_E_CORRUPT, at, "base %g", t->base);
	if (rc)
		return cur_nomem(c);
	limit = fmt_tcode_limit(&sc);
	fmt_tscale_free(&sc);
	at = c->pos;
	rc = fmt_get_uvarint(c, &n);
	if (!rc && n != nranks)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"%" PRIu64 " ranks, the job had %u", n, nranks);
	t->offset = rc ? NULL : malloc(sizeof(*t->offset) * ((size_t)n + 1));
	if (!rc && !t->offset)
		return cur_nomem(c);
	for (uint32_t r = 0; !rc && r < n; r++) {
		at = c->pos;
		rc = fmt_get_svarint(c, &t->offset[r]);
		if (!rc && (t->offset[r] < -FMT_TIME_MAX ||
			    t->offset[r] > FMT_TIME_MAX))
			return cur_fail(c, RONDO_E_CORRUPT, at,
					"rank %u's clock offset %" PRId64
					" ns is beyond 2^61 ns either way", r,
					t->offset[r]);
	}
	if (rc)
		return rc;
	t->nranks = nranks;
	rc = grammar_read(c, &t->g, limit, &t->len);
	if (rc)
		return rc;
	at = c->pos;
	rc = rankmap_read(c, &t->map, t->g.nrules);
	if (!rc && t->map.nranks != 2 * (uint64_t)nranks)
		rc = cur_fail(c, RONDO_E_CORRUPT, at,
			      "the map lists %u sequences for %u ranks",
			      t->map.nranks, nranks);
	return rc;
}

int fmt_timing_decode(struct fmt_timing *t, const uint8_t *p, size_t n,
		      uint32_t nranks, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_TIMING), e);
	rc = cur_done(&c, timing_read(&c, t, nranks));
	if (rc)
		fmt_timing_free(t);
	return rc;
}

void fmt_timing_free(struct fmt_timing *t)
{
	free(t->offset);
	fmt_grammar_free(&t->g);
	fmt_rankmap_free(&t->map);
	free(t->len);
	memset(t, 0, sizeof(*t));
}

/* ---- Cartesian topologies ----------------------------------------------- */

void fmt_topos_encode(struct fmt_buf *b, const struct fmt_topos *t)
{
	fmt_put_uvarint(b, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		fmt_put_uvarint(b, t->t[i].comm);
		fmt_put_uvarint(b, t->t[i].ndims);
		for (uint32_t k = 0; k < t->t[i].ndims; k++) {
			fmt_put_uvarint(b, t->t[i].dims[k]);
			fmt_put_uvarint(b, t->t[i].periodic[k]);
		}
	}
}

static int topo_read(struct fmt_cur *c, struct fmt_topo *t,
		     const struct fmt_comms *comms, int64_t prev)
{
	size_t at = c->pos;
	uint64_t comm, v, product = 1;
	uint32_t nd = 0;
	int rc = fmt_get_uvarint(c, &comm);

	if (!rc && (comm >= comms->n || (int64_t)comm <= prev))
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"communicator %" PRIu64 " (%u of them, the "
				"previous %" PRId64 ")", comm, comms->n, prev);
	if (!rc)
		rc = fmt_get_count(c, &nd, 2);
	if (!rc && (nd == 0 || nd > FMT_MAX_DIMS))
		return cur_fail(c, RONDO_E_CORRUPT, at, "%u dimensions", nd);
	if (rc)
		return rc;
	t->comm = (uint32_t)comm;
	t->dims = malloc(sizeof(*t->dims) * nd);
	t->periodic = malloc(nd);
	if (!t->dims || !t->periodic)
		return cur_nomem(c);
	t->ndims = nd;
	for (uint32_t k = 0; k < nd && !rc; k++) {
		size_t d = c->pos;

		rc = fmt_get_uvarint(c, &v);
		if (!rc && (v == 0 || v > UINT32_MAX))
			return cur_fail(c, RONDO_E_CORRUPT, d,
					"a dimension of %" PRIu64 " ranks", v);
		t->dims[k] = (uint32_t)v;
		product = product > UINT32_MAX ? product : product * v;
		rc = rc ? rc : fmt_get_uvarint(c, &v);
		if (!rc && v > 1)
			return cur_fail(c, RONDO_E_CORRUPT, d,
					"periodic flag %" PRIu64, v);
		t->periodic[k] = (uint8_t)v;
	}
	if (!rc && comms->c[comm].n && product != comms->c[comm].n)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"a grid of %" PRIu64 " ranks for a communicator "
				"of %u", product, comms->c[comm].n);
	return rc;
}

int fmt_topos_decode(struct fmt_topos *t, const uint8_t *p, size_t n,
		     const struct fmt_comms *comms, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_TOPOLOGY), e);
	rc = fmt_get_count(&cur, &count, 4);
	if (!rc) {
		t->t = calloc(count ? count : 1, sizeof(*t->t));
		if (!t->t)
			rc = cur_nomem(&cur);
		else
			t->n = count;
	}
	for (uint32_t i = 0; i < t->n && !rc; i++)
		rc = topo_read(&cur, &t->t[i], comms,
			       i ? (int64_t)t->t[i - 1].comm : -1);
	rc = cur_done(&cur, rc);
	if (rc)
		fmt_topos_free(t);
	return rc;
}

void fmt_topos_free(struct fmt_topos *t)
{
	for (uint32_t i = 0; t->t && i < t->n; i++) {
		free(t->t[i].dims);
		free(t->t[i].periodic);
	}
	free(t->t);
	memset(t, 0, sizeof(*t));
}

/* ---- per-rank times ------------------------------------------------------ */

uint16_t fmt_time_code(uint64_t ns)
{
	unsigned e;
	uint64_t m;

	if (ns < 128)
		return (uint16_t)ns;
	e = fmt_hist_bin(ns) - 6; /* ns >> e is in [64, 128) */
	m = (ns >> e) + (ns >> (e - 1) & 1); /* to the nearest, ties up */
	if (m == 128) {
		m = 64;
		e++;
	}
	/* 128 << 57 would not fit 64 bits: the top code is as near as any. */
	return e > 57 ? FMT_TIME_CODE_MAX : (uint16_t)(64 * e + m);
}

uint64_t fmt_time_value(uint16_t code)
{
	if (code > FMT_TIME_CODE_MAX)
		code = FMT_TIME_CODE_MAX;
	if (code < 128)
		return code;
	return (uint64_t)(64 + code % 64) << (code / 64 - 1);
}

/* One rank's list, for finding ranks that called the same signatures. */
struct rank_list {
	const uint32_t *sig;
	uint64_t n;
	uint32_t rank;
};

static int list_order(const struct rank_list *x, const struct rank_list *y)
{
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	for (uint64_t k = 0; k < x->n; k++)
		if (x->sig[k] != y->sig[k])
			return x->sig[k] < y->sig[k] ? -1 : 1;
	return 0;
}

static int list_cmp(const void *a, const void *b)
{
	const struct rank_list *x = a, *y = b;
	int o = list_order(x, y);

	return o ? o : (x->rank > y->rank) - (x->rank < y->rank);
}

/* same[r]: how many ranks back the nearest rank with r's list is, 0 if
 * none.  Sorted by list, then rank, that rank comes right before r: no
 * hash to trust, O(R log R) comparisons whatever the pattern. */
static uint32_t *ranktime_same(const struct fmt_ranktime *r)
{
	struct rank_list *l = malloc(sizeof(*l) * ((size_t)r->nranks + 1));
	uint32_t *same = calloc((size_t)r->nranks + 1, sizeof(*same));

	if (!l || !same) {
		free(l);
		free(same);
		return NULL;
	}
	for (uint32_t k = 0; k < r->nranks; k++) {
		uint64_t n = r->at[k + 1] - r->at[k];

		l[k] = (struct rank_list){n ? r->sig + r->list[k] : NULL, n, k};
	}
	qsort(l, r->nranks, sizeof(*l), list_cmp);
	for (uint32_t k = 1; k < r->nranks; k++)
		if (list_order(&l[k - 1], &l[k]) == 0)
			same[l[k].rank] = l[k].rank - l[k - 1].rank;
	free(l);
	return same;
}

void fmt_ranktime_encode(struct fmt_buf *b, const struct fmt_ranktime *r)
{
	uint32_t *same = ranktime_same(r);

	if (!same) {
		b->oom = 1;
		return;
	}
	fmt_put_uvarint(b, r->nranks);
	for (uint32_t k = 0; k < r->nranks; k++) {
		uint64_t n = r->at[k + 1] - r->at[k], s = r->list[k];

		fmt_put_uvarint(b, same[k]);
		if (!same[k]) {
			const uint32_t *sig = r->sig + s;

			fmt_put_uvarint(b, n);
			for (uint64_t i = 0; i < n; i++)
				fmt_put_uvarint(b, i ? sig[i] - sig[i - 1] - 1
						     : sig[0]);
		}
		for (uint64_t i = 0; i < n; i++)
			fmt_put_uvarint(b, r->code[r->at[k] + i]);
	}
	free(same);
}

/* What reading the times needs besides the cursor. */
struct tread {
	struct fmt_ranktime *r;
	size_t nsig, capsig, capcode; /* signatures read, room for both */
	uint32_t nsigs;
};

static int list_read(struct fmt_cur *c, struct tread *st, uint32_t rank,
		     uint64_t *n)
{
	struct fmt_ranktime *r = st->r;
	uint64_t next = 0;
	uint32_t cnt;
	/* each signature also has a time: 2 bytes at least */
	int rc = fmt_get_count(c, &cnt, 2);

	if (rc)
		return rc;
	if (util_grow(&r->sig, &st->capsig, st->nsig + cnt,
			   sizeof(*r->sig)))
		return cur_nomem(c);
	for (uint32_t k = 0; k < cnt && !rc; k++)
		rc = sig_next_read(c, &next, st->nsigs, &r->sig[st->nsig + k]);
	r->list[rank] = st->nsig;
	st->nsig += cnt;
	*n = cnt;
	return rc;
}

static int codes_read(struct fmt_cur *c, struct tread *st, uint32_t rank,
		      uint64_t n)
{
	struct fmt_ranktime *r = st->r;
	uint64_t base = r->at[rank], v;
	/* A shared list says how many times follow: one byte each at least. */
	int rc = cur_need(c, n, "the times of a rank");

	if (rc)
		return rc;
	if (util_grow(&r->code, &st->capcode, base + n,
			   sizeof(*r->code)))
		return cur_nomem(c);
	for (uint64_t k = 0; k < n; k++) {
		size_t at = c->pos;

		rc = fmt_get_uvarint(c, &v);
		if (rc)
			return rc;
		if (v > FMT_TIME_CODE_MAX)
			return cur_fail(c, RONDO_E_CORRUPT, at,
					"time code %" PRIu64 " past the largest "
					"(%u)", v, FMT_TIME_CODE_MAX);
		r->code[base + k] = (uint16_t)v;
	}
	r->at[rank + 1] = base + n;
	return 0;
}

static int rank_times_read(struct fmt_cur *c, struct tread *st, uint32_t rank)
{
	struct fmt_ranktime *r = st->r;
	size_t at = c->pos;
	uint64_t same, n = 0;
	int rc = fmt_get_uvarint(c, &same);

	if (rc)
		return rc;
	if (same > rank)
		return cur_fail(c, RONDO_E_CORRUPT, at,
				"rank %u shares the signatures of a rank %"
				PRIu64 " before it", rank, same);
	if (same) {
		r->list[rank] = r->list[rank - same];
		n = r->at[rank - same + 1] - r->at[rank - same];
	} else {
		rc = list_read(c, st, rank, &n);
	}
	return rc ? rc : codes_read(c, st, rank, n);
}

static int ranktime_read(struct fmt_cur *c, struct fmt_ranktime *r,
			 uint32_t nranks, uint32_t nsigs)
{
	struct tread st = {r, 0, 0, 0, nsigs};
	uint32_t n;
	int rc = fmt_get_count(c, &n, 1);

	if (rc)
		return rc;
	if (n != nranks)
		return cur_fail(c, RONDO_E_CORRUPT, 0,
				"times for %u ranks, the job had %u", n,
				nranks);
	r->at = calloc((size_t)n + 1, sizeof(*r->at));
	r->list = calloc(n ? n : 1, sizeof(*r->list));
	if (!r->at || !r->list)
		return cur_nomem(c);
	r->nranks = n;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = rank_times_read(c, &st, k);
	return rc;
}

int fmt_ranktime_decode(struct fmt_ranktime *r, const uint8_t *p, size_t n,
			uint32_t nranks, uint32_t nsigs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(r, 0, sizeof(*r));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_RANKTIME), e);
	rc = cur_done(&c, ranktime_read(&c, r, nranks, nsigs));
	if (rc)
		fmt_ranktime_free(r);
	return rc;
}

void fmt_ranktime_free(struct fmt_ranktime *r)
{
	free(r->at);
	free(r->list);
	free(r->sig);
	free(r->code);
	memset(r, 0, sizeof(*r));
}
