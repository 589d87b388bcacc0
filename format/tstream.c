/*
 * tstream.c - a rank's per-call time codes as one range-coded stream
 * (section timing, from format 1.8; see format.h, "fmt_tstream").
 *
 * Each call gives two codes of the logarithmic scale, its duration's and
 * its interval's.  They are coded bit by bit with a binary range coder
 * (LZMA's: 11-bit probabilities, the range renormalised a byte at a
 * time), each bit with an adaptive probability of its own, from models
 * kept per signature and per kind of code: a signature's calls take
 * about the same time from one call to the next, so each model learns
 * the few codes its signature gives and spends a fraction of a bit on
 * the usual ones.  A code c is coded as its distance from the model's
 * centre (its first code, then, from 1.10, near the median of its first
 * codes: tm1_coded), zigzagged to v >= 0, and x = v + 1 as
 * Exp-Golomb: the bucket k (x in [2^k, 2^(k+1))) in unary, with
 * probabilities that depend on the previous call's bucket of the same
 * model, then the k bits below x's top bit, through a binary tree of
 * probabilities for small buckets and for the top bits of larger ones,
 * the rest at one half.
 *
 * What it costs: about a dozen bit codings per call on a halo exchange
 * at b = 1.1 (3 for a duration, 9 for an interval), each about 5 ns on
 * the machine of README's figures (a bare loop of such codings runs at
 * 4.7 ns a bit there): the encoder keeps its range and low in registers
 * for a call's two codes and chooses by masks, not branches, on the
 * data's bits.  No allocation but a model per signature at its first
 * call and a tree per bucket at its first code; about half a byte per
 * call (README, Performance).
 */
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "util.h"

#define PBITS 11 /* probabilities of 1 in 2^11 */
#define PHALF (1u << (PBITS - 1))
#define MOVE  4	 /* adaptation: a probability moves 1/16 of the way */
#define TOP   24 /* the range is renormalised below 2^24 */
#define NB    20 /* buckets: codes are below 2^18, so x below 2^19 */
#define PREV  2	 /* unary contexts: the previous bucket, 0 or more */
#define TBITS 9	 /* a bucket's tree: over its top 9 bits at most */

/* One kind of code (durations or intervals) of one signature. */
struct tm1 {
	uint16_t un[PREV][NB]; /* "bucket > i", by the previous bucket */
	uint16_t *tree[NB];    /* bucket k's tree over its top bits below
				  the first, nodes 1 to 2^min(k, TBITS) - 1,
				  made when the bucket is first seen */
	uint32_t centre;
	uint8_t prev, seen; /* seen: the codes so far, up to FOLLOW + 1 */
};

struct fmt_tmodel {
	struct tm1 kind[2]; /* durations, intervals */
};

static void tm1_init(struct tm1 *m)
{
	memset(m, 0, sizeof(*m));
	for (int j = 0; j < PREV; j++)
		for (int i = 0; i < NB; i++)
			m->un[j][i] = PHALF;
}

static void tm1_free(struct tm1 *m)
{
	for (int k = 0; k < NB; k++)
		free(m->tree[k]);
}

/* Bucket k's tree (k >= 1), made at one half; NULL when memory is
 * short. */
static uint16_t *tm1_tree(struct fmt_tstream *s, struct tm1 *m, int k)
{
	size_t n = (size_t)1 << (k < TBITS ? k : TBITS);

	if (!m->tree[k]) {
		m->tree[k] = malloc(sizeof(uint16_t) * n);
		if (!m->tree[k])
			return NULL;
		for (size_t i = 0; i < n; i++)
			m->tree[k][i] = PHALF;
		s->mem += sizeof(uint16_t) * n;
	}
	return m->tree[k];
}

/* ---- the range coder ----------------------------------------------------- */

/* The encoder and the decoder are written apart (the encoder runs for
 * every call a tracer records, in bulk, RT_TBUF calls at a time); both
 * code the same bits with the same probabilities. */

static void enc_byte(struct fmt_buf *b, uint8_t v)
{
	if (__builtin_expect(b->len < b->cap && !b->oom, 1))
		b->data[b->len++] = v;
	else
		fmt_put_u8(b, v);
}

static void enc_shift(struct fmt_tstream *s)
{
	if ((uint32_t)s->low < 0xFF000000u || (s->low >> 32)) {
		uint8_t carry = (uint8_t)(s->low >> 32), t = s->cache;

		do {
			enc_byte(s->out, (uint8_t)(t + carry));
			t = 0xFF;
		} while (--s->pending);
		s->cache = (uint8_t)(s->low >> 24);
	}
	s->pending++;
	s->low = (s->low & 0x00FFFFFFu) << 8;
}

static uint8_t dec_byte(struct fmt_tstream *s)
{
	if (s->pos < s->len)
		return s->in[s->pos++];
	s->pos++; /* past the end: counted, so that the caller sees it */
	return 0;
}

/* Probability p of a 0 after bit b: p - p/16 after a 1, p + (2^11 -
 * p)/16 after a 0, chosen by masks (a call's bits are the data's: a
 * branch on them is mispredicted half the time). */
static inline uint16_t adapt(uint16_t p, int b)
{
	uint32_t one = 0u - (uint32_t)b;

	return (uint16_t)(p + ((((1u << PBITS) - p) >> MOVE) & ~one) -
			  ((uint32_t)(p >> MOVE) & one));
}

/* The encoder's range and low, kept in registers while a call's codes
 * are coded (fmt_tstream_put), written back to the stream after. */
struct enc {
	uint64_t low;
	uint32_t range;
};

/* Codes bit b with probability p of a 0 (PHALF for a bit of its own):
 * for a 1, low moves up by the bound and the range is what is left,
 * selected by masks as in adapt.  A probability stays within [15, 2033]
 * of 2^11, so one renormalisation brings the range back above 2^24;
 * the loop is for certainty. */
static inline void ebit_p(struct fmt_tstream *s, struct enc *e, uint32_t p,
			  int b)
{
	uint32_t bound = (e->range >> PBITS) * p, one = 0u - (uint32_t)b;

	e->low += bound & one;
	e->range = bound + ((e->range - 2 * bound) & one);
	while (__builtin_expect(e->range < (1u << TOP), 0)) {
		e->range <<= 8;
		s->low = e->low;
		enc_shift(s);
		e->low = s->low;
	}
}

static inline void ebit(struct fmt_tstream *s, struct enc *e, uint16_t *p,
			int b)
{
	ebit_p(s, e, *p, b);
	*p = adapt(*p, b);
}

static inline int dbit_p(struct fmt_tstream *s, uint32_t p)
{
	uint32_t bound = (s->range >> PBITS) * p;
	int b = s->code >= bound;

	if (b) {
		s->code -= bound;
		s->range -= bound;
	} else {
		s->range = bound;
	}
	while (s->range < (1u << TOP)) {
		s->range <<= 8;
		s->code = (s->code << 8) | dec_byte(s);
	}
	return b;
}

static inline int dbit(struct fmt_tstream *s, uint16_t *p)
{
	int b = dbit_p(s, *p);

	*p = adapt(*p, b);
	return b;
}

/* ---- codes --------------------------------------------------------------- */

/* After code c of bucket k: the model's context and centre.  The centre
 * starts at the first code; from 1.10 it steps one towards each of the
 * model's next FOLLOW codes, so that it settles near their median, and
 * then stays.  A signature's first call is often unlike the others (a
 * connection set up, a cold cache), and from a centre left there every
 * later code takes three times the coder's steps; a centre that kept
 * moving would cost bits instead, as the codes' places around it would
 * keep changing under the probabilities learnt for them. */
#define FOLLOW 64
static void tm1_coded(const struct fmt_tstream *s, struct tm1 *m, int k,
		      uint32_t c)
{
	m->prev = (uint8_t)(k < PREV ? k : PREV - 1);
	if (!m->seen)
		m->centre = c;
	else if (!s->fixed && m->seen <= FOLLOW)
		m->centre += (c > m->centre) - (c < m->centre);
	if (m->seen <= FOLLOW)
		m->seen++;
}

/* Codes c (below FMT_TSTREAM_CODES) with model m: 0, or -1 when memory
 * is short. */
static inline __attribute__((always_inline)) int
tcode_put(struct fmt_tstream *s, struct enc *e, struct tm1 *m, uint32_t c)
{
	uint32_t v =
		c >= m->centre ? 2 * (c - m->centre) : 2 * (m->centre - c) - 1;
	uint32_t x = v + 1, node = 1;
	uint16_t *un = m->un[m->prev], *tree = NULL;
	int k = 31 - __builtin_clz(x), low = k > TBITS ? k - TBITS : 0, i;

	/* the tree first: without memory for it, nothing is coded */
	if (k && !(tree = tm1_tree(s, m, k)))
		return -1;
	for (i = 0; i < k; i++)
		ebit(s, e, &un[i], 1);
	ebit(s, e, &un[k], 0); /* k < NB: c < 2^18 */
	if (k) {
		/* below the top bit, highest first: the top TBITS through the
		 * tree, the rest at one half */
		for (i = k - 1; i >= low; i--) {
			int b = (int)(x >> i) & 1;

			ebit(s, e, &tree[node], b);
			node = 2 * node + (uint32_t)b;
		}
		for (; i >= 0; i--)
			ebit_p(s, e, PHALF, (int)(x >> i) & 1);
	}
	tm1_coded(s, m, k, c);
	return 0;
}

/* The next code of model m; UINT32_MAX for a bucket past the last
 * (damaged data), UINT32_MAX - 1 when memory is short. */
static uint32_t tcode_get(struct fmt_tstream *s, struct tm1 *m)
{
	uint32_t v, c, node = 1;
	uint16_t *un = m->un[m->prev], *tree;
	int k, low, i;

	for (k = 0; k < NB && dbit(s, &un[k]); k++)
		;
	if (k == NB)
		return UINT32_MAX;
	if (k) {
		if (!(tree = tm1_tree(s, m, k)))
			return UINT32_MAX - 1;
		low = k > TBITS ? k - TBITS : 0;
		for (i = k - 1; i >= low; i--)
			node = 2 * node + (uint32_t)dbit(s, &tree[node]);
		for (; i >= 0; i--)
			node = 2 * node + (uint32_t)dbit_p(s, PHALF);
	}
	v = node - 1;
	c = v & 1 ? m->centre - (v + 1) / 2 : m->centre + v / 2;
	tm1_coded(s, m, k, c);
	return c;
}

/* The model of signature sig, made at its first call; NULL when memory
 * is short. */
static struct fmt_tmodel *tmodel(struct fmt_tstream *s, uint32_t sig)
{
	struct fmt_tmodel *m;

	if (sig >= s->nm) {
		size_t cap = s->nm;

		if (util_grow(&s->m, &cap, (size_t)sig + 1, sizeof(*s->m)) < 0)
			return NULL;
		memset(s->m + s->nm, 0, sizeof(*s->m) * (cap - s->nm));
		s->nm = (uint32_t)cap;
	}
	if (!s->m[sig]) {
		m = malloc(sizeof(*m));
		if (!m)
			return NULL;
		tm1_init(&m->kind[0]);
		tm1_init(&m->kind[1]);
		s->m[sig] = m;
		s->mem += sizeof(*m);
	}
	return s->m[sig];
}

void fmt_tstream_encoder(struct fmt_tstream *s, struct fmt_buf *out)
{
	memset(s, 0, sizeof(*s));
	s->out = out;
	s->range = 0xFFFFFFFFu;
	s->pending = 1;
}

int fmt_tstream_put(struct fmt_tstream *s, uint32_t sig, uint32_t dcode,
		    uint32_t icode)
{
	struct fmt_tmodel *m;
	struct enc e;
	int rc;

	if (dcode >= FMT_TSTREAM_CODES || icode >= FMT_TSTREAM_CODES)
		return RONDO_E_RANGE;
	m = sig < s->nm && s->m[sig] ? s->m[sig] : tmodel(s, sig);
	if (!m || s->out->oom)
		return RONDO_E_NOMEM;
	e.low = s->low;
	e.range = s->range;
	rc = tcode_put(s, &e, &m->kind[0], dcode) < 0 ||
	     tcode_put(s, &e, &m->kind[1], icode) < 0;
	s->low = e.low;
	s->range = e.range;
	if (rc)
		return RONDO_E_NOMEM;
	s->calls++;
	return s->out->oom ? RONDO_E_NOMEM : 0;
}

int fmt_tstream_end(struct fmt_tstream *s)
{
	for (int i = 0; i < 5; i++)
		enc_shift(s);
	return s->out->oom ? RONDO_E_NOMEM : 0;
}

int fmt_tstream_code(struct fmt_buf *out, uint64_t n, const uint32_t *sig,
		     const uint32_t *dcode, const uint32_t *icode, int fixed)
{
	struct fmt_tstream s;
	int rc = 0;

	fmt_tstream_encoder(&s, out);
	s.fixed = fixed;
	for (uint64_t k = 0; k < n && rc == 0; k++)
		rc = fmt_tstream_put(&s, sig[k], dcode[k], icode[k]);
	rc = rc ? rc : fmt_tstream_end(&s);
	fmt_tstream_free(&s);
	return rc;
}

void fmt_tstream_decoder(struct fmt_tstream *s, const uint8_t *p, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->in = p;
	s->len = n;
	s->range = 0xFFFFFFFFu;
	for (int i = 0; i < 5; i++)
		s->code = (s->code << 8) | dec_byte(s);
}

int fmt_tstream_get(struct fmt_tstream *s, uint32_t sig, uint32_t *dcode,
		    uint32_t *icode)
{
	struct fmt_tmodel *m = tmodel(s, sig);

	if (!m)
		return RONDO_E_NOMEM;
	*dcode = tcode_get(s, &m->kind[0]);
	*icode = tcode_get(s, &m->kind[1]);
	s->calls++;
	if (*dcode == UINT32_MAX - 1 || *icode == UINT32_MAX - 1)
		return RONDO_E_NOMEM;
	/* the encoder's last 4 bytes are read with the last bits: past
	 * them, the stream was cut short */
	if (s->pos > s->len || *dcode == UINT32_MAX || *icode == UINT32_MAX)
		return RONDO_E_CORRUPT;
	return 0;
}

void fmt_tstream_free(struct fmt_tstream *s)
{
	for (uint32_t i = 0; i < s->nm; i++) {
		if (s->m[i]) {
			tm1_free(&s->m[i]->kind[0]);
			tm1_free(&s->m[i]->kind[1]);
		}
		free(s->m[i]);
	}
	free(s->m);
	s->m = NULL;
	s->nm = 0;
	s->mem = 0;
}
