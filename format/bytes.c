/*
 * bytes.c - the bytes every part of the format is made of: errors that say
 * where, CRC-32C, growable output buffers, and the bounds-checked cursor
 * that reads varints, fields and strings out of untrusted payloads.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

_Static_assert(sizeof(double) == 8, "the format stores IEEE-754 doubles");

/* ---- errors -------------------------------------------------------------- */

int fmt_err_vset(struct fmt_err *e, int code, const char *section,
		 uint64_t offset, uint64_t size, const char *fmt, va_list ap)
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

int fmt_fail(struct fmt_err *e, int code, const char *section, uint64_t offset,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_err_vset(e, code, section, offset, 0, fmt, ap);
	va_end(ap);
	return code;
}

int fmt_cur_fail(const struct fmt_cur *c, int code, size_t offset,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_err_vset(c->e, code, c->section, offset, c->len, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- CRC-32C ------------------------------------------------------------- */

/* CRC-32C (Castagnoli), reflected polynomial 0x82f63b78: better error
 * detection than zlib's CRC-32 for the same cost, and what iSCSI, ext4 and
 * SSE4.2 use.  A constant table: no lazy initialisation to race on inside a
 * multithreaded MPI program. */
static const uint32_t crc32c_table[256] = {
	0x00000000, 0xf26b8303, 0xe13b70f7, 0x1350f3f4, 0xc79a971f, 0x35f1141c,
	0x26a1e7e8, 0xd4ca64eb, 0x8ad958cf, 0x78b2dbcc, 0x6be22838, 0x9989ab3b,
	0x4d43cfd0, 0xbf284cd3, 0xac78bf27, 0x5e133c24, 0x105ec76f, 0xe235446c,
	0xf165b798, 0x030e349b, 0xd7c45070, 0x25afd373, 0x36ff2087, 0xc494a384,
	0x9a879fa0, 0x68ec1ca3, 0x7bbcef57, 0x89d76c54, 0x5d1d08bf, 0xaf768bbc,
	0xbc267848, 0x4e4dfb4b, 0x20bd8ede, 0xd2d60ddd, 0xc186fe29, 0x33ed7d2a,
	0xe72719c1, 0x154c9ac2, 0x061c6936, 0xf477ea35, 0xaa64d611, 0x580f5512,
	0x4b5fa6e6, 0xb93425e5, 0x6dfe410e, 0x9f95c20d, 0x8cc531f9, 0x7eaeb2fa,
	0x30e349b1, 0xc288cab2, 0xd1d83946, 0x23b3ba45, 0xf779deae, 0x05125dad,
	0x1642ae59, 0xe4292d5a, 0xba3a117e, 0x4851927d, 0x5b016189, 0xa96ae28a,
	0x7da08661, 0x8fcb0562, 0x9c9bf696, 0x6ef07595, 0x417b1dbc, 0xb3109ebf,
	0xa0406d4b, 0x522bee48, 0x86e18aa3, 0x748a09a0, 0x67dafa54, 0x95b17957,
	0xcba24573, 0x39c9c670, 0x2a993584, 0xd8f2b687, 0x0c38d26c, 0xfe53516f,
	0xed03a29b, 0x1f682198, 0x5125dad3, 0xa34e59d0, 0xb01eaa24, 0x42752927,
	0x96bf4dcc, 0x64d4cecf, 0x77843d3b, 0x85efbe38, 0xdbfc821c, 0x2997011f,
	0x3ac7f2eb, 0xc8ac71e8, 0x1c661503, 0xee0d9600, 0xfd5d65f4, 0x0f36e6f7,
	0x61c69362, 0x93ad1061, 0x80fde395, 0x72966096, 0xa65c047d, 0x5437877e,
	0x4767748a, 0xb50cf789, 0xeb1fcbad, 0x197448ae, 0x0a24bb5a, 0xf84f3859,
	0x2c855cb2, 0xdeeedfb1, 0xcdbe2c45, 0x3fd5af46, 0x7198540d, 0x83f3d70e,
	0x90a324fa, 0x62c8a7f9, 0xb602c312, 0x44694011, 0x5739b3e5, 0xa55230e6,
	0xfb410cc2, 0x092a8fc1, 0x1a7a7c35, 0xe811ff36, 0x3cdb9bdd, 0xceb018de,
	0xdde0eb2a, 0x2f8b6829, 0x82f63b78, 0x709db87b, 0x63cd4b8f, 0x91a6c88c,
	0x456cac67, 0xb7072f64, 0xa457dc90, 0x563c5f93, 0x082f63b7, 0xfa44e0b4,
	0xe9141340, 0x1b7f9043, 0xcfb5f4a8, 0x3dde77ab, 0x2e8e845f, 0xdce5075c,
	0x92a8fc17, 0x60c37f14, 0x73938ce0, 0x81f80fe3, 0x55326b08, 0xa759e80b,
	0xb4091bff, 0x466298fc, 0x1871a4d8, 0xea1a27db, 0xf94ad42f, 0x0b21572c,
	0xdfeb33c7, 0x2d80b0c4, 0x3ed04330, 0xccbbc033, 0xa24bb5a6, 0x502036a5,
	0x4370c551, 0xb11b4652, 0x65d122b9, 0x97baa1ba, 0x84ea524e, 0x7681d14d,
	0x2892ed69, 0xdaf96e6a, 0xc9a99d9e, 0x3bc21e9d, 0xef087a76, 0x1d63f975,
	0x0e330a81, 0xfc588982, 0xb21572c9, 0x407ef1ca, 0x532e023e, 0xa145813d,
	0x758fe5d6, 0x87e466d5, 0x94b49521, 0x66df1622, 0x38cc2a06, 0xcaa7a905,
	0xd9f75af1, 0x2b9cd9f2, 0xff56bd19, 0x0d3d3e1a, 0x1e6dcdee, 0xec064eed,
	0xc38d26c4, 0x31e6a5c7, 0x22b65633, 0xd0ddd530, 0x0417b1db, 0xf67c32d8,
	0xe52cc12c, 0x1747422f, 0x49547e0b, 0xbb3ffd08, 0xa86f0efc, 0x5a048dff,
	0x8ecee914, 0x7ca56a17, 0x6ff599e3, 0x9d9e1ae0, 0xd3d3e1ab, 0x21b862a8,
	0x32e8915c, 0xc083125f, 0x144976b4, 0xe622f5b7, 0xf5720643, 0x07198540,
	0x590ab964, 0xab613a67, 0xb831c993, 0x4a5a4a90, 0x9e902e7b, 0x6cfbad78,
	0x7fab5e8c, 0x8dc0dd8f, 0xe330a81a, 0x115b2b19, 0x020bd8ed, 0xf0605bee,
	0x24aa3f05, 0xd6c1bc06, 0xc5914ff2, 0x37faccf1, 0x69e9f0d5, 0x9b8273d6,
	0x88d28022, 0x7ab90321, 0xae7367ca, 0x5c18e4c9, 0x4f48173d, 0xbd23943e,
	0xf36e6f75, 0x0105ec76, 0x12551f82, 0xe03e9c81, 0x34f4f86a, 0xc69f7b69,
	0xd5cf889d, 0x27a40b9e, 0x79b737ba, 0x8bdcb4b9, 0x988c474d, 0x6ae7c44e,
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

int fmt_cur_need(struct fmt_cur *c, size_t n, const char *what)
{
	if (n <= cur_left(c))
		return 0;
	return fmt_cur_fail(c, RONDO_E_TRUNCATED, c->pos,
			    "%s needs %zu bytes, %zu left", what, n,
			    cur_left(c));
}

int fmt_cur_nomem(const struct fmt_cur *c)
{
	return fmt_cur_fail(c, RONDO_E_NOMEM, c->pos, "out of memory");
}

int fmt_get_u8(struct fmt_cur *c, uint8_t *v)
{
	int rc = fmt_cur_need(c, 1, "a byte");

	*v = 0;
	if (rc)
		return rc;
	*v = c->p[c->pos++];
	return 0;
}

int fmt_get_le32(struct fmt_cur *c, uint32_t *v)
{
	int rc = fmt_cur_need(c, 4, "a 32-bit field");

	*v = 0;
	if (rc)
		return rc;
	*v = ld32(c->p + c->pos);
	c->pos += 4;
	return 0;
}

int fmt_get_le64(struct fmt_cur *c, uint64_t *v)
{
	int rc = fmt_cur_need(c, 8, "a 64-bit field");

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
			return fmt_cur_fail(c, RONDO_E_TRUNCATED, start,
					    "varint runs past the end");
		b = c->p[c->pos++];
		if (shift == 63 && b > 1)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
					    "varint overflows 64 bits");
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	if (b == 0 && shift > 0)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
				    "overlong varint (%u bytes)",
				    shift / 7 + 1);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
				    "count %" PRIu64 " does not fit 32 bits",
				    n);
	/* Every item takes at least one byte, whatever the caller says. */
	if (min_item_size == 0)
		min_item_size = 1;
	if (n > cur_left(c) / min_item_size)
		return fmt_cur_fail(c, RONDO_E_TRUNCATED, start,
				    "%" PRIu64 " items of at least %zu bytes "
				    "do not fit in the %zu bytes left",
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
		return fmt_cur_fail(c, RONDO_E_TRUNCATED, start,
				    "string of %" PRIu64 " bytes, %zu left",
				    len, cur_left(c));
	*s = c->p + c->pos;
	*n = (size_t)len;
	c->pos += (size_t)len;
	return 0;
}

int fmt_cur_end(struct fmt_cur *c)
{
	if (c->pos == c->len)
		return 0;
	return fmt_cur_fail(c, RONDO_E_CORRUPT, c->pos,
			    "%zu unexpected bytes at the end", cur_left(c));
}

int fmt_cur_done(struct fmt_cur *c, int rc)
{
	return rc ? rc : fmt_cur_end(c);
}
