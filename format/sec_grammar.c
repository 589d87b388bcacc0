/*
 * sec_grammar.c - the sections that are grammars: the call grammar, the
 * rank map (a grammar of root rules), and the per-call timing (a grammar
 * of time codes with its own rank map).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "util.h"

/* Rule lengths are counts of calls; anything above this is a lie. */
#define LEN_MAX (UINT64_C(1) << 63)

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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "symbol %" PRIu64 " does not fit 31 bits",
				    id);
	if ((v & 2) && id >= r)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "rule %u refers to undefined rule %" PRIu64,
				    r, id);
	if (!(v & 2) && id >= st->nterm)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "rule %u uses terminal %" PRIu64
				    ", only %u exist",
				    r, id, st->nterm);
	if (v & 2)
		l = st->len[id];
	if ((v & 1) && (rc = count_read(c, &n)))
		return rc;
	/* l is 0 for a rule that expands to nothing: no overflow then. */
	if (l && (n > LEN_MAX / l || n * l > LEN_MAX - *total))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "rule %u expands to more than 2^63 symbols",
				    r);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "more than 2^32-1 symbols in all rules");
	if (util_grow(&g->body, &st->cap, (size_t)base + n, sizeof(*g->body)))
		return fmt_cur_nomem(c);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = sym_read(c, st, r, &g->body[base + k], &total);
	if (rc)
		return rc;
	g->first[r + 1] = base + n;
	st->len[r] = total;
	return 0;
}

/* The count of rules, and room for them (and one more, for a cut
 * grammar's lost rules).  cut_raw 0: a whole grammar; else the raw bytes
 * of a grammar cut by the end of the data, which bound the count, 0
 * (*counted unset) when not even the count is there. */
static int rules_begin(struct fmt_cur *c, struct gread *st, uint64_t cut_raw,
		       uint32_t *n, int *counted)
{
	uint64_t nr = 0;
	int rc;

	*counted = 1;
	if (!cut_raw) {
		rc = fmt_get_count(c, n, 1);
	} else {
		rc = fmt_get_uvarint(c, &nr);
		if (rc == RONDO_E_TRUNCATED) {
			*counted = 0;
			rc = 0;
		} else if (!rc && (nr >= UINT32_MAX || nr > cut_raw)) {
			rc = fmt_cur_fail(c, RONDO_E_CORRUPT, 0,
					  "%" PRIu64 " rules in %" PRIu64
					  " bytes",
					  nr, cut_raw);
		}
		*n = (uint32_t)nr;
	}
	if (rc)
		return rc;
	st->g->first = calloc((size_t)*n + 2, sizeof(*st->g->first));
	st->len = calloc((size_t)*n + 1, sizeof(*st->len));
	return st->g->first && st->len ? 0 : fmt_cur_nomem(c);
}

/* Shared by the grammar and the rank map.  On success *len holds the
 * expansion length of every rule (malloc'd); on failure it is NULL.
 * With cut_raw (fmt_grammar_decode_cut), the rules whole before the end
 * of the data, then an empty one for those lost; *declared the count the
 * whole grammar has (cut_raw when not even that is there). */
static int grammar_read(struct fmt_cur *c, struct fmt_grammar *g,
			uint32_t nterm, uint64_t **len, uint64_t cut_raw,
			uint32_t *declared)
{
	struct gread st = {g, NULL, 0, nterm};
	uint32_t n = 0, r = 0;
	int counted, rc = rules_begin(c, &st, cut_raw, &n, &counted);

	*len = NULL;
	g->nrules = n;
	for (; !rc && counted && r < n; r++) {
		size_t at = c->pos;

		rc = rule_read(c, &st, r);
		if (cut_raw && rc == RONDO_E_TRUNCATED) {
			c->pos = at; /* rule r is the first lost */
			rc = 0;
			break;
		}
	}
	if (cut_raw && !rc) {
		g->first[r + 1] = g->first[r];
		st.len[r] = 0;
		g->nrules = r + 1;
		*declared = counted ? n : (uint32_t)cut_raw;
	}
	/* A body even when every rule is empty: users index it from
	 * body + first[r], which must not be arithmetic on NULL. */
	if (!rc && !g->body &&
	    util_grow(&g->body, &st.cap, 1, sizeof(*g->body)))
		rc = fmt_cur_nomem(c);
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
	rc = fmt_cur_done(&c, grammar_read(&c, g, nterminals, &len, 0, NULL));
	if (rc)
		fmt_grammar_free(g);
	if (rc || !lengths)
		free(len);
	else
		*lengths = len;
	return rc;
}

int fmt_grammar_decode_cut(struct fmt_grammar *g, const uint8_t *p, size_t n,
			   uint64_t raw, uint32_t nterminals,
			   uint64_t **lengths, uint32_t *declared,
			   struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(g, 0, sizeof(*g));
	*declared = 0;
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_GRAMMAR), e);
	rc = grammar_read(&c, g, nterminals, lengths, raw ? raw : 1, declared);
	/* every rule there: nothing may follow them */
	if (!rc && g->nrules - 1 == *declared)
		rc = fmt_cur_end(&c);
	if (rc) {
		free(*lengths);
		*lengths = NULL;
		fmt_grammar_free(g);
	}
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, 0, "%" PRIu64 " ranks",
				    nranks);
	m->nranks = (uint32_t)nranks;
	at = c->pos;
	rc = grammar_read(c, &m->map, nrules, &len, 0, NULL);
	if (rc)
		return rc;
	if (m->map.nrules == 0)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				  "the rank map is empty");
	else if (len[m->map.nrules - 1] != nranks)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, 0,
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
	rc = fmt_cur_done(&c, rankmap_read(&c, r, nrules));
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

/* ---- per-call timing ----------------------------------------------------- */

#define TIMING_CODED 1 /* flags: coded streams (from 1.8), not a grammar */
#define TIMING_FROM_LOW                                                        \
	2 /* flags, with TIMING_CODED: intervals from the previous start plus \
	     its duration's lower edge (from 1.9) */
#define TIMING_FOLLOW                                                          \
	4 /* flags, with the two above: the models' centres follow their   \
	     medians (from 1.10) */

void fmt_timing_encode(struct fmt_buf *b, const struct fmt_timing *t)
{
	fmt_put_uvarint(
		b, (t->coded ? TIMING_CODED : 0) |
			   (t->coded && t->from_low ? TIMING_FROM_LOW : 0) |
			   (t->coded && t->from_low && t->follow ? TIMING_FOLLOW
								 : 0));
	fmt_put_f64(b, t->base);
	fmt_put_uvarint(b, t->nranks);
	for (uint32_t r = 0; r < t->nranks; r++)
		fmt_put_svarint(b, t->offset[r]);
	if (!t->coded) {
		fmt_grammar_encode(b, &t->g);
		fmt_rankmap_encode(b, &t->map);
		return;
	}
	for (uint32_t r = 0; r < t->nranks; r++) {
		fmt_put_uvarint(b, t->first[r + 1] - t->first[r]);
		for (uint64_t k = t->first[r]; k < t->first[r + 1]; k++)
			fmt_put_varints(b, 1, t->seg[k].calls, t->seg[k].len);
	}
	for (uint64_t k = 0; k < t->first[t->nranks]; k++)
		fmt_put_bytes(b, t->data + t->seg[k].at, t->seg[k].len);
}

/* The coded form: each rank's segments, then their bytes. */
static int timing_segs(struct fmt_cur *c, struct fmt_timing *t)
{
	size_t cap = 0, at;
	uint64_t total = 0, nseg = 0;
	int rc = 0;

	t->coded = 1;
	t->first = malloc(sizeof(*t->first) * ((size_t)t->nranks + 1));
	if (!t->first)
		return fmt_cur_nomem(c);
	t->first[0] = 0;
	for (uint32_t r = 0; r < t->nranks && !rc; r++) {
		uint64_t n;

		at = c->pos;
		rc = fmt_get_uvarint(c, &n);
		/* each segment takes 2 bytes at least */
		if (!rc && n > (c->len - c->pos) / 2)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "rank %u: %" PRIu64
					    " segments in %zu bytes",
					    r, n, c->len - c->pos);
		for (uint64_t k = 0; k < n && !rc; k++) {
			struct fmt_tseg s = {0, total, 0};

			at = c->pos;
			rc = fmt_get_uvarint(c, &s.calls);
			rc = rc ? rc : fmt_get_uvarint(c, &s.len);
			if (!rc && s.len > c->len - total)
				return fmt_cur_fail(
					c, RONDO_E_CORRUPT, at,
					"rank %u: a segment of %" PRIu64
					" bytes runs past the section's end",
					r, s.len);
			if (!rc && util_grow(&t->seg, &cap, nseg + 1,
					     sizeof(*t->seg)) < 0)
				return fmt_cur_nomem(c);
			if (!rc) {
				t->seg[nseg++] = s;
				total += s.len;
			}
		}
		t->first[r + 1] = nseg;
	}
	if (rc)
		return rc;
	at = c->pos;
	if (total != c->len - c->pos)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "the segments hold %" PRIu64
				    " bytes, the section has %zu left",
				    total, c->len - c->pos);
	t->data = malloc(total + 1);
	if (!t->data)
		return fmt_cur_nomem(c);
	memcpy(t->data, c->p + c->pos, total);
	t->datalen = total;
	c->pos += total;
	return 0;
}

static int timing_read(struct fmt_cur *c, struct fmt_timing *t, uint32_t nranks)
{
	struct fmt_tscale sc;
	uint64_t flags, n;
	uint32_t limit;
	size_t at = c->pos;
	int rc = fmt_get_uvarint(c, &flags);

	if (!rc &&
	    (flags & ~(uint64_t)(TIMING_CODED | TIMING_FROM_LOW |
				 TIMING_FOLLOW) ||
	     flags == TIMING_FROM_LOW ||
	     ((flags & TIMING_FOLLOW) &&
	      flags != (TIMING_CODED | TIMING_FROM_LOW | TIMING_FOLLOW))))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at, "flags %" PRIu64,
				    flags);
	at = c->pos;
	rc = rc ? rc : fmt_get_f64(c, &t->base);
	if (rc)
		return rc;
	rc = fmt_tscale_init(&sc, t->base);
	if (rc == RONDO_E_RANGE)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at, "base %g", t->base);
	if (rc)
		return fmt_cur_nomem(c);
	limit = fmt_tcode_limit(&sc);
	fmt_tscale_free(&sc);
	at = c->pos;
	rc = fmt_get_uvarint(c, &n);
	if (!rc && n != nranks)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "%" PRIu64 " ranks, the job had %u", n,
				    nranks);
	t->offset = rc ? NULL : malloc(sizeof(*t->offset) * ((size_t)n + 1));
	if (!rc && !t->offset)
		return fmt_cur_nomem(c);
	for (uint32_t r = 0; !rc && r < n; r++) {
		at = c->pos;
		rc = fmt_get_svarint(c, &t->offset[r]);
		if (!rc && (t->offset[r] < -FMT_TIME_MAX ||
			    t->offset[r] > FMT_TIME_MAX))
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "rank %u's clock offset %" PRId64
					    " ns is beyond 2^61 ns either way",
					    r, t->offset[r]);
	}
	if (rc)
		return rc;
	t->nranks = nranks;
	t->from_low = (flags & TIMING_FROM_LOW) != 0;
	t->follow = (flags & TIMING_FOLLOW) != 0;
	if (flags & TIMING_CODED)
		return timing_segs(c, t);
	rc = grammar_read(c, &t->g, limit, &t->len, 0, NULL);
	if (rc)
		return rc;
	at = c->pos;
	rc = rankmap_read(c, &t->map, t->g.nrules);
	if (!rc && t->map.nranks != 2 * (uint64_t)nranks)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
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
	rc = fmt_cur_done(&c, timing_read(&c, t, nranks));
	if (rc)
		fmt_timing_free(t);
	return rc;
}

void fmt_timing_free(struct fmt_timing *t)
{
	free(t->offset);
	free(t->first);
	free(t->seg);
	free(t->data);
	fmt_grammar_free(&t->g);
	fmt_rankmap_free(&t->map);
	free(t->len);
	memset(t, 0, sizeof(*t));
}

/* ---- values that differ by rank ------------------------------------------ */

enum { VITEM_VALUE = 0, VITEM_DELTA = 1 };

void fmt_rankvals_encode(struct fmt_buf *b, const struct fmt_rankvals *v)
{
	fmt_put_uvarint(b, v->n);
	for (uint32_t s = 0; s < v->n; s++) {
		const struct fmt_vslot *sl = &v->slot[s];

		fmt_put_uvarint(b, sl->nitems);
		for (uint32_t k = 0; k < sl->nitems; k++) {
			const struct fmt_vitem *it = &sl->item[k];

			fmt_put_uvarint(b,
					it->delta ? VITEM_DELTA : VITEM_VALUE);
			if (it->delta)
				fmt_put_svarint(b, (int64_t)it->val.u);
			else
				fmt_rval_put(b, &it->val);
		}
		fmt_rankmap_encode(b, &sl->map);
	}
}

int fmt_rval_of(const rondo_arg *a, struct fmt_rval *out)
{
	if (a->kind == RONDO_ARG_VARY ||
	    (a->wire != RONDO_WIRE_NONE && a->wire != RONDO_WIRE_UINT &&
	     a->wire != RONDO_WIRE_SINT))
		return -1;
	*out = (struct fmt_rval){a->wire == RONDO_WIRE_SINT ? (uint64_t)a->i
							    : a->u,
				 a->kind, a->wire};
	return 0;
}

void fmt_rval_put(struct fmt_buf *b, const struct fmt_rval *v)
{
	if (v->wire == RONDO_WIRE_NONE)
		fmt_arg_put_none(b, v->kind);
	else if (v->wire == RONDO_WIRE_SINT)
		fmt_arg_put_sint(b, v->kind, (int64_t)v->u);
	else
		fmt_arg_put_uint(b, v->kind, v->u);
}

static int vitem_read(struct fmt_cur *c, struct fmt_vitem *it)
{
	size_t at = c->pos;
	uint64_t mode;
	rondo_arg a;
	int rc = fmt_get_uvarint(c, &mode);

	if (!rc && mode == VITEM_DELTA) {
		int64_t d;

		rc = fmt_get_svarint(c, &d);
		*it = (struct fmt_vitem){1, {(uint64_t)d, 0, 0}};
		return rc;
	}
	if (!rc && mode != VITEM_VALUE)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "per-rank value of mode %" PRIu64, mode);
	at = c->pos;
	rc = rc ? rc : fmt_arg_get(c, &a);
	if (rc)
		return rc;
	it->delta = 0;
	if (fmt_rval_of(&a, &it->val) < 0)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a per-rank value of kind %u, wire %u",
				    a.kind, a.wire);
	return 0;
}

static int vslot_read(struct fmt_cur *c, struct fmt_vslot *sl, uint32_t nranks)
{
	size_t at;
	int rc = fmt_get_count(c, &sl->nitems, 2);

	if (rc)
		return rc;
	sl->item = malloc(sizeof(*sl->item) * ((size_t)sl->nitems + 1));
	if (!sl->item)
		return fmt_cur_nomem(c);
	for (uint32_t k = 0; k < sl->nitems && !rc; k++)
		rc = vitem_read(c, &sl->item[k]);
	at = c->pos;
	rc = rc ? rc : rankmap_read(c, &sl->map, sl->nitems);
	if (!rc && sl->map.nranks != nranks)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				  "values for %u ranks, the job had %u",
				  sl->map.nranks, nranks);
	return rc;
}

static int rankvals_read(struct fmt_cur *c, struct fmt_rankvals *v,
			 uint32_t nranks)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 5);

	if (rc)
		return rc;
	v->slot = calloc((size_t)n + 1, sizeof(*v->slot));
	if (!v->slot)
		return fmt_cur_nomem(c);
	/* a slot cut short counts, so that free finds what it holds */
	for (uint32_t s = 0; s < n && !rc; s++, v->n++)
		rc = vslot_read(c, &v->slot[s], nranks);
	return rc;
}

int fmt_rankvals_decode(struct fmt_rankvals *v, const uint8_t *p, size_t n,
			uint32_t nranks, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(v, 0, sizeof(*v));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_RANKVALS), e);
	rc = fmt_cur_done(&c, rankvals_read(&c, v, nranks));
	if (rc)
		fmt_rankvals_free(v);
	return rc;
}

void fmt_rankvals_free(struct fmt_rankvals *v)
{
	for (uint32_t s = 0; v->slot && s < v->n; s++) {
		free(v->slot[s].item);
		fmt_rankmap_free(&v->slot[s].map);
	}
	free(v->slot);
	memset(v, 0, sizeof(*v));
}

static int rel_kind(uint32_t kind)
{
	return kind == RONDO_ARG_RANK_REL || kind == RONDO_ARG_REL ||
	       kind == RONDO_ARG_CART_REL;
}

int fmt_vitem_apply(const struct fmt_vitem *it, const struct fmt_rval *prev,
		    struct fmt_rval *out)
{
	int64_t d = (int64_t)it->val.u, i;

	if (!it->delta) {
		*out = it->val;
		return 0;
	}
	if (!prev)
		return -1;
	*out = *prev;
	if (prev->wire == RONDO_WIRE_UINT) {
		if (d < 0 ? prev->u < (uint64_t) - (d + 1) + 1
			  : prev->u > UINT64_MAX - (uint64_t)d)
			return -1;
		out->u = prev->u + (uint64_t)d;
		return 0;
	}
	if (prev->wire != RONDO_WIRE_SINT ||
	    __builtin_add_overflow((int64_t)prev->u, d, &i))
		return -1;
	if (rel_kind(prev->kind) && (i < -FMT_REL_MAX || i > FMT_REL_MAX))
		return -1;
	out->u = (uint64_t)i;
	return 0;
}
