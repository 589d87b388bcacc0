/*
 * format_int.h - what the format's own files share, and nothing outside
 * format/ sees: setting an error, the cursor's checks, and the
 * little-endian fields of the container.  The functions carry the
 * format's prefix (fmt_); the small inline ones keep their short names,
 * being static in every file that uses them.
 */
#ifndef RONDO_FORMAT_INT_H
#define RONDO_FORMAT_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Fills e (may be NULL) with the code, where (section, offset into
 * something of `size` bytes) and the message; returns code. */
int fmt_err_vset(struct fmt_err *e, int code, const char *section,
		 uint64_t offset, uint64_t size, const char *fmt, va_list ap);

/* A payload error: offsets are relative to the cursor's bytes. */
int fmt_cur_fail(const struct fmt_cur *c, int code, size_t offset,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static inline size_t cur_left(const struct fmt_cur *c)
{
	return c->len - c->pos;
}

/* 0 when n bytes are left, else TRUNCATED, saying what needed them. */
int fmt_cur_need(struct fmt_cur *c, size_t n, const char *what);

/* NOMEM, at the cursor's place. */
int fmt_cur_nomem(const struct fmt_cur *c);

/* Every decoder reads with a *_read function, then insists on the exact
 * end: a payload with bytes left over was not written by this format.
 * Returns rc when it is an error, else fmt_cur_end's. */
int fmt_cur_done(struct fmt_cur *c, int rc);

/* ---- little-endian fields ------------------------------------------------ */

static inline void st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void st32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ld32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t ld64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif /* RONDO_FORMAT_INT_H */
