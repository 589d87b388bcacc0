/*
 * spill_fmt.c - the records of a spill file (spill_fmt.h): written with
 * write(2) alone from a frame in the caller's memory, read back with
 * every length and check verified.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "spill_fmt.h"

#define FNV_START 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* All n bytes, through EINTR and short writes; the first error stays. */
static void put_now(struct spill_w *w, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0 && !w->err) {
		ssize_t k = write(w->fd, b, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? errno : EIO;
			return;
		}
		b += k;
		n -= (size_t)k;
		w->bytes += (uint64_t)k;
	}
}

void spill_w_done(struct spill_w *w)
{
	put_now(w, w->out, w->nout);
	w->nout = 0;
}

/* Small pieces gather in out; a large one goes at once, after them. */
static void put(struct spill_w *w, const void *p, size_t n)
{
	if (w->nout + n > sizeof(w->out))
		spill_w_done(w);
	if (n >= sizeof(w->out)) {
		put_now(w, p, n);
		return;
	}
	memcpy(w->out + w->nout, p, n);
	w->nout += n;
}

void spill_w_init(struct spill_w *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->type = 0;
	w->n = 0;
	w->bytes = 0;
	w->nout = 0;
}

void spill_w_magic(struct spill_w *w)
{
	put(w, SPILL_MAGIC, 8);
}

/* One record: the frame's bytes, then p[n]. */
static void record(struct spill_w *w, const void *p, size_t n)
{
	uint8_t head[8], tail[8];
	uint64_t h;

	le32(head, w->type);
	le32(head + 4, (uint32_t)(w->n + n));
	h = fnv(FNV_START, head, 8);
	h = fnv(h, w->buf, w->n);
	if (n)
		h = fnv(h, p, n);
	le64(tail, h);
	put(w, head, 8);
	put(w, w->buf, w->n);
	if (n)
		put(w, p, n);
	put(w, tail, 8);
	w->n = 0;
	w->type = 0;
}

void spill_w_flush(struct spill_w *w)
{
	if (w->type && w->n)
		record(w, NULL, 0);
	w->type = 0;
	w->n = 0;
}

int spill_w_room(struct spill_w *w, uint32_t type, size_t need)
{
	if (w->type != type || w->n + need > sizeof(w->buf))
		spill_w_flush(w);
	w->type = type;
	return need <= sizeof(w->buf) ? 0 : -1;
}

void spill_w_big_head(struct spill_w *w, uint32_t type)
{
	spill_w_flush(w);
	w->type = type;
}

void spill_w_big_end(struct spill_w *w, const void *p, size_t n)
{
	if (n > UINT32_MAX - w->n) {
		w->err = EFBIG;
		return;
	}
	record(w, p, n);
}

/* The callers made room (spill_w_room): a put past the frame is a bug
 * in the caller, dropped rather than written past the buffer. */
void spill_w_bytes(struct spill_w *w, const void *p, size_t n)
{
	if (n == 0)
		return;
	if (n > sizeof(w->buf) - w->n) {
		w->err = w->err ? w->err : EOVERFLOW;
		return;
	}
	memcpy(w->buf + w->n, p, n);
	w->n += n;
}

void spill_w_uv(struct spill_w *w, uint64_t v)
{
	uint8_t b[SPILL_UV_MAX];
	size_t k = 0;

	do {
		b[k++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	spill_w_bytes(w, b, k);
}

void spill_w_sv(struct spill_w *w, int64_t v)
{
	spill_w_uv(w, fmt_zigzag(v));
}

void spill_w_u8(struct spill_w *w, uint8_t v)
{
	spill_w_bytes(w, &v, 1);
}

void spill_w_le64(struct spill_w *w, uint64_t v)
{
	uint8_t b[8];

	le64(b, v);
	spill_w_bytes(w, b, 8);
}

void spill_w_f64(struct spill_w *w, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	spill_w_le64(w, u);
}

size_t spill_str_need(const char *s, size_t max)
{
	return SPILL_UV_MAX + (s ? strnlen(s, max) : 0);
}

void spill_w_str(struct spill_w *w, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;

	spill_w_uv(w, n);
	spill_w_bytes(w, s, n);
}

/* ---- reading ---------------------------------------------------------- */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

int spill_next(const uint8_t *p, size_t n, size_t *at, uint32_t *type,
	       const uint8_t **payload, size_t *len)
{
	size_t a = *at;
	uint64_t check = 0;
	uint32_t k;

	if (a >= n)
		return 1;
	if (n - a < 16)
		return RONDO_E_TRUNCATED;
	k = get32(p + a + 4);
	if (k > n - a - 16)
		return RONDO_E_TRUNCATED;
	for (int i = 7; i >= 0; i--)
		check = check << 8 | p[a + 8 + k + (size_t)i];
	if (fnv(FNV_START, p + a, 8 + (size_t)k) != check)
		return RONDO_E_CORRUPT;
	*type = get32(p + a);
	*payload = p + a + 8;
	*len = k;
	*at = a + 16 + k;
	return 0;
}
