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
 * centre (its first code), zigzagged to v >= 0, and x = v + 1 as
 * Exp-Golomb: the bucket k (x in [2^k, 2^(k+1))) in unary, with
 * probabilities that depend on the previous call's bucket of the same
 * model, then the k bits below x's top bit, through a binary tree of
 * probabilities for small buckets and for the top bits of larger ones,
 * the rest at one half.
 *
 * What it costs: a few tens of bit codings per call, no allocation but a
 * model per signature at its first call; what a rank's calls take, about
 * a byte per call at b = 1.1 on a halo exchange (README, Performance).
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
	uint8_t prev, seen;
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

static void enc_shift(struct fmt_tstream *s)
{
	if ((uint32_t)s->low < 0xFF000000u || (s->low >> 32)) {
		uint8_t carry = (uint8_t)(s->low >> 32), t = s->cache;

		do {
			fmt_put_u8(s->out, (uint8_t)(t + carry));
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

/* Codes (or decodes, returning it) bit b with probability *p of a 0. */
static inline int tbit(struct fmt_tstream *s, uint16_t *p, int b)
{
	uint32_t bound = (s->range >> PBITS) * *p;

	if (s->out) {
		if (b) {
			s->low += bound;
			s->range -= bound;
		} else {
			s->range = bound;
		}
	} else {
		b = s->code >= bound;
		if (b) {
			s->code -= bound;
			s->range -= bound;
		} else {
			s->range = bound;
		}
	}
	if (b)
		*p -= *p >> MOVE;
	else
		*p += ((1u << PBITS) - *p) >> MOVE;
	while (s->range < (1u << TOP)) {
		s->range <<= 8;
		if (s->out)
			enc_shift(s);
		else
			s->code = (s->code << 8) | dec_byte(s);
	}
	return b;
}

/* ---- codes --------------------------------------------------------------- */

/* Codes c with model m (decoding: c is ignored and the code returned);
 * UINT32_MAX for a bucket past the last (damaged data), UINT32_MAX - 1
 * when memory is short. */
static uint32_t tcode(struct fmt_tstream *s, struct tm1 *m, uint32_t c)
{
	uint32_t v = 0, x = 0, node = 1;
	uint16_t *tree = NULL;
	int k = 0, i, tb;

	if (s->out) {
		v = c >= m->centre ? 2 * (c - m->centre)
				   : 2 * (m->centre - c) - 1;
		x = v + 1;
		k = 31 - __builtin_clz(x);
	}
	for (i = 0; i < NB; i++)
		if (!tbit(s, &m->un[m->prev][i], i < k))
			break;
	if (i == NB)
		return UINT32_MAX;
	k = i;
	tb = k < TBITS ? k : TBITS;
	if (k && !(tree = tm1_tree(s, m, k)))
		return UINT32_MAX - 1;
	/* below the top bit, highest first: the top tb through the tree */
	for (i = k - 1; i >= 0; i--) {
		uint16_t half = PHALF;

		node = 2 * node +
		       (uint32_t)tbit(s, k - 1 - i < tb ? &tree[node] : &half,
				      (int)(x >> i) & 1);
	}
	m->prev = (uint8_t)(k < PREV ? k : PREV - 1);
	if (!s->out) {
		v = node - 1;
		c = v & 1 ? m->centre - (v + 1) / 2 : m->centre + v / 2;
	}
	if (!m->seen)
		m->centre = c;
	m->seen = 1;
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

	if (dcode >= FMT_TSTREAM_CODES || icode >= FMT_TSTREAM_CODES)
		return RONDO_E_RANGE;
	m = tmodel(s, sig);
	if (!m || s->out->oom)
		return RONDO_E_NOMEM;
	if (tcode(s, &m->kind[0], dcode) == UINT32_MAX - 1 ||
	    tcode(s, &m->kind[1], icode) == UINT32_MAX - 1)
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
		     const uint32_t *dcode, const uint32_t *icode)
{
	struct fmt_tstream s;
	int rc = 0;

	fmt_tstream_encoder(&s, out);
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
	*dcode = tcode(s, &m->kind[0], 0);
	*icode = tcode(s, &m->kind[1], 0);
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
