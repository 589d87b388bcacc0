/*
 * timecode.c - durations and times as short codes: the logarithmic scale
 * of per-call timing (fmt_tscale, fmt_tenc: a value read back is off by a
 * factor of at most the base) and the 7-significant-bit durations of the
 * time per rank (fmt_time_code).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "util.h"

/* ---- the logarithmic scale of per-call timing ---------------------------- */

static int tscale_at_init(struct fmt_tscale *s);

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
	if (tscale_at_init(s) < 0) {
		fmt_tscale_free(s);
		return RONDO_E_NOMEM;
	}
	return 0;
}

void fmt_tscale_free(struct fmt_tscale *s)
{
	free(s->up);
	free(s->down);
	free(s->at_up);
	free(s->at_down);
	memset(s, 0, sizeof(*s));
}

/* x >= 1's place in the tables at_up and at_down: its exponent e and the
 * mbits bits below its leading 1, exactly (no rounding to a double). */
static inline uint32_t tscale_at(const struct fmt_tscale *s, uint64_t x)
{
	int e = 63 - __builtin_clzll(x);
	uint64_t top = (x << (63 - e)) << 1 >> 1; /* the leading 1 off */

	return ((uint32_t)e << s->mbits) |
	       (uint32_t)(s->mbits ? top >> (63 - s->mbits) : 0);
}

/* The smallest x with place i (the tables' entries are x's codes). */
static uint64_t tscale_at_least(const struct fmt_tscale *s, uint32_t i)
{
	uint32_t e = i >> s->mbits, m = s->mbits;
	uint64_t t = i & ((UINT64_C(1) << m) - 1);

	if (e >= m)
		return (UINT64_C(1) << e) + (t << (e - m));
	return (UINT64_C(1) << e) + (((t << e) + (UINT64_C(1) << m) - 1) >> m);
}

/* The tables: a place's smallest x's codes, a few steps at most below
 * those of the place's other values (none at all when its values span
 * less than a factor b, as for bases above 1 + 2^-mbits).  Places grow
 * with their smallest x, so one walk up the scale fills them. */
static int tscale_at_init(struct fmt_tscale *s)
{
	uint32_t m = 0, n, up = 1, down = 1;

	while (m < 8 && ldexp(1.0, -(int)m) > s->base - 1)
		m++;
	s->mbits = m;
	n = 64u << m;
	s->at_up = malloc(sizeof(*s->at_up) * n);
	s->at_down = malloc(sizeof(*s->at_down) * n);
	if (!s->at_up || !s->at_down)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t x = tscale_at_least(s, i);

		while (up + 1 < s->n && s->up[up] < x)
			up++;
		while (down + 1 < s->n && s->down[down + 1] <= x)
			down++;
		s->at_up[i] = (uint16_t)up;
		s->at_down[i] = (uint16_t)down;
	}
	return 0;
}

/* The smallest j >= 1 with up[j] >= x (x >= 1). */
static inline uint32_t tscale_up(const struct fmt_tscale *s, uint64_t x)
{
	uint32_t j = s->at_up[tscale_at(s, x)];

	while (j + 1 < s->n && s->up[j] < x)
		j++;
	return j;
}

/* The largest j >= 1 with down[j] <= x (x >= 1). */
static inline uint32_t tscale_down(const struct fmt_tscale *s, uint64_t x)
{
	uint32_t j = s->at_down[tscale_at(s, x)];

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

uint64_t fmt_tvalue_dur_low(const struct fmt_tscale *s, uint32_t code)
{
	return code ? s->up[(code < s->n ? code : s->n - 1) - 1] : 0;
}

void fmt_tenc_call(struct fmt_tenc *e, int64_t start, uint64_t dur,
		   uint32_t *dcode, uint32_t *icode)
{
	int64_t ival = start - e->last, at;

	if (e->from_end && e->started && ival < 0)
		ival = 0;
	*icode = fmt_tcode_ival(e->sc, ival);
	*dcode = fmt_tcode_dur(e->sc, dur);
	/* the next interval counts from what a reader will see */
	at = fmt_time_add(e->last, fmt_tvalue_ival(e->sc, *icode));
	e->last = fmt_time_add(
		at, (int64_t)(e->from_end ? fmt_tvalue_dur(e->sc, *dcode)
					  : fmt_tvalue_dur_low(e->sc, *dcode)));
	e->started = 1;
}

/* ---- 7-significant-bit durations ----------------------------------------- */

uint16_t fmt_time_code(uint64_t ns)
{
	unsigned e;
	uint64_t m;

	if (ns < 128)
		return (uint16_t)ns;
	e = fmt_hist_bin(ns) - 6;	     /* ns >> e is in [64, 128) */
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
