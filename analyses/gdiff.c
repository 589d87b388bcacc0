/*
 * gdiff.c - where two rank groups of one trace differ (see gdiff.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdiff.h"
#include "sat.h"

/* Cells of the alignment table at most (4 bytes each); a larger middle of
 * two bodies is one stretch. */
#define GD_CELLS (1u << 22)
/* Rules walked into at most, one inside another. */
#define GD_DEPTH 64

/* Where a pair of bodies is: each side's rule, its first call's index,
 * and the loop walked into to reach it. */
struct gd_ctx {
	uint32_t rule[2];
	uint64_t base[2];
	uint32_t depth;
	uint32_t loop[2];
	uint64_t loop_count;
};

struct gd_walk {
	const rondo_trace *t;
	struct an_gdiff *d;
	size_t cap;
};

static int sym_same(const rondo_sym *a, const rondo_sym *b)
{
	return a->sym == b->sym && a->count == b->count;
}

static uint64_t sym_calls(const rondo_trace *t, const rondo_sym *s)
{
	uint64_t per = RONDO_SYM_IS_RULE(s->sym)
			       ? rondo_rule_calls(t, RONDO_SYM_ID(s->sym))
			       : 1;

	return sat_mul(per, s->count);
}

void an_group_name(const rondo_trace *t, uint32_t g, char *buf, size_t size)
{
	char ranks[256];
	uint32_t n = rondo_group_size(t, g);

	rondo_group_format(t, g, ranks, sizeof(ranks));
	if (n == 1)
		snprintf(buf, size, "rank %s", ranks);
	else
		snprintf(buf, size, "ranks %s (%u)", ranks, (unsigned)n);
}

/* ---- the stretches --------------------------------------------------------- */

/* One side's symbols of a pair of bodies, as far as they are not matched
 * yet: sym[k] (its count what is left of it), at[k] its first call's
 * index among the rank's calls. */
struct gd_side {
	rondo_sym *sym;
	uint64_t *at;
	uint32_t n;
};

static int add_hunk(struct gd_walk *w, const struct gd_ctx *c,
		    const struct gd_side side[2], const uint32_t from[2],
		    const uint32_t to[2])
{
	struct an_gdiff *d = w->d;
	struct an_gdiff_hunk *h;

	if (d->n >= AN_GDIFF_MAX) {
		d->more = 1;
		return 0;
	}
	if (d->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct an_gdiff_hunk *grown =
			realloc(d->hunk, cap * sizeof(*d->hunk));

		if (!grown)
			return RONDO_E_NOMEM;
		d->hunk = grown;
		w->cap = cap;
	}
	h = &d->hunk[d->n];
	memset(h, 0, sizeof(*h));
	for (int s = 0; s < 2; s++) {
		uint32_t n = to[s] - from[s];

		h->sym[s] = malloc(sizeof(rondo_sym) * ((size_t)n + 1));
		if (!h->sym[s]) {
			free(h->sym[0]);
			return RONDO_E_NOMEM;
		}
		memcpy(h->sym[s], side[s].sym + from[s], sizeof(rondo_sym) * n);
		h->nsym[s] = n;
		h->at[s] = side[s].at[from[s]];
		h->loop[s] = c->loop[s];
	}
	h->depth = c->depth;
	h->loop_count = c->loop_count;
	d->n++;
	return 0;
}

static int walk_pair(struct gd_walk *w, const struct gd_ctx *c);

/* A stretch [from, to) of each side: walked into when it is one rule
 * against one rule run as many times, else kept. */
static int stretch(struct gd_walk *w, const struct gd_ctx *c,
		   const struct gd_side side[2], const uint32_t from[2],
		   const uint32_t to[2])
{
	const rondo_sym *a = &side[0].sym[from[0]], *b = &side[1].sym[from[1]];

	if (to[0] - from[0] == 1 && to[1] - from[1] == 1 &&
	    RONDO_SYM_IS_RULE(a->sym) && RONDO_SYM_IS_RULE(b->sym) &&
	    a->count == b->count && c->depth + 1 < GD_DEPTH) {
		struct gd_ctx in = {
			{RONDO_SYM_ID(a->sym), RONDO_SYM_ID(b->sym)},
			{side[0].at[from[0]], side[1].at[from[1]]},
			c->depth + 1,
			{RONDO_SYM_ID(a->sym), RONDO_SYM_ID(b->sym)},
			a->count};

		return walk_pair(w, &in);
	}
	return add_hunk(w, c, side, from, to);
}

/* The symbols of the two middles that match, in order, by a longest
 * common subsequence: pairs (ma[k], mb[k]), k < *nm.  0 or
 * RONDO_E_NOMEM; no pairs when the table would be too large. */
static int align(const rondo_sym *a, uint32_t na, const rondo_sym *b,
		 uint32_t nb, uint32_t *ma, uint32_t *mb, uint32_t *nm)
{
	size_t cols = (size_t)nb + 1;
	uint32_t *L;
	uint32_t i, j, k = 0;

	*nm = 0;
	if (!na || !nb || ((uint64_t)na + 1) * cols > GD_CELLS)
		return 0;
	L = calloc(((size_t)na + 1) * cols, sizeof(*L));
	if (!L)
		return RONDO_E_NOMEM;
	/* L[i][j]: the longest common subsequence of a[i..] and b[j..] */
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;)
			L[i * cols + j] =
				sym_same(&a[i], &b[j])
					? L[(i + 1) * cols + j + 1] + 1
				: L[(i + 1) * cols + j] > L[i * cols + j + 1]
					? L[(i + 1) * cols + j]
					: L[i * cols + j + 1];
	for (i = 0, j = 0; i < na && j < nb;) {
		if (sym_same(&a[i], &b[j])) {
			ma[k] = i++;
			mb[k++] = j++;
		} else if (L[(i + 1) * cols + j] >= L[i * cols + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(L);
	*nm = k;
	return 0;
}

/* The stretches between the matched pairs of the two middles
 * [lo, hi). */
static int stretches(struct gd_walk *w, const struct gd_ctx *c,
		     const struct gd_side side[2], const uint32_t lo[2],
		     const uint32_t hi[2])
{
	uint32_t n =
		hi[0] - lo[0] < hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
	uint32_t *ma = malloc(sizeof(*ma) * ((size_t)n + 1));
	uint32_t *mb = malloc(sizeof(*mb) * ((size_t)n + 1));
	uint32_t nm = 0, from[2] = {lo[0], lo[1]}, to[2];
	int rc = ma && mb ? 0 : RONDO_E_NOMEM;

	if (!rc)
		rc = align(side[0].sym + lo[0], hi[0] - lo[0],
			   side[1].sym + lo[1], hi[1] - lo[1], ma, mb, &nm);
	for (uint32_t k = 0; !rc && k <= nm; k++) {
		to[0] = k < nm ? lo[0] + ma[k] : hi[0];
		to[1] = k < nm ? lo[1] + mb[k] : hi[1];
		if (to[0] > from[0] || to[1] > from[1])
			rc = stretch(w, c, side, from, to);
		from[0] = to[0] + 1;
		from[1] = to[1] + 1;
	}
	free(ma);
	free(mb);
	return rc;
}

/* Side s of a pair: its rule's body, each symbol's first call. */
static int side_make(const rondo_trace *t, uint32_t rule, uint64_t base,
		     struct gd_side *side)
{
	const rondo_sym *body;
	uint32_t len;

	if (rondo_rule_body(t, rule, &body, &len) < 0)
		return RONDO_E_CORRUPT;
	side->sym = malloc(sizeof(*side->sym) * ((size_t)len + 1));
	side->at = malloc(sizeof(*side->at) * ((size_t)len + 1));
	if (!side->sym || !side->at)
		return RONDO_E_NOMEM;
	memcpy(side->sym, body, sizeof(*body) * len);
	side->n = len;
	for (uint32_t k = 0; k < len; k++) {
		side->at[k] = base;
		base = sat_add(base, sym_calls(t, &body[k]));
	}
	side->at[len] = base; /* past the last: where a stretch at the end
				 starts */
	return 0;
}

/* Runs of the same symbol at both sides' starts (dir 1, from lo) or
 * ends (dir -1, before hi) matched as far as both have them: lo and hi
 * move past what matched, and a symbol matched in part keeps what is
 * left of its count (its first call moved on at the start). */
static void trim(const rondo_trace *t, struct gd_side side[2], uint32_t lo[2],
		 uint32_t hi[2], int dir)
{
	while (lo[0] < hi[0] && lo[1] < hi[1]) {
		rondo_sym *a = &side[0].sym[dir > 0 ? lo[0] : hi[0] - 1];
		rondo_sym *b = &side[1].sym[dir > 0 ? lo[1] : hi[1] - 1];
		uint64_t m = a->count < b->count ? a->count : b->count;

		if (a->sym != b->sym)
			return;
		for (int s = 0; s < 2; s++) {
			rondo_sym *x = s ? b : a;

			if (dir > 0) {
				rondo_sym one = {x->sym, 0, m};

				side[s].at[lo[s]] = sat_add(side[s].at[lo[s]],
							    sym_calls(t, &one));
			}
			x->count -= m;
			if (x->count == 0) {
				if (dir > 0)
					lo[s]++;
				else
					hi[s]--;
			}
		}
	}
}

static int walk_pair(struct gd_walk *w, const struct gd_ctx *c)
{
	struct gd_side side[2] = {{NULL, NULL, 0}, {NULL, NULL, 0}};
	uint32_t lo[2] = {0, 0}, hi[2];
	int rc = 0;

	if (c->rule[0] == c->rule[1] || w->d->more)
		return 0;
	for (int s = 0; s < 2 && !rc; s++)
		rc = side_make(w->t, c->rule[s], c->base[s], &side[s]);
	if (!rc) {
		hi[0] = side[0].n;
		hi[1] = side[1].n;
		trim(w->t, side, lo, hi, 1);
		trim(w->t, side, lo, hi, -1);
		/* nothing left: the same calls under two names */
		if (lo[0] < hi[0] || lo[1] < hi[1])
			rc = stretches(w, c, side, lo, hi);
	}
	for (int s = 0; s < 2; s++) {
		free(side[s].sym);
		free(side[s].at);
	}
	return rc;
}

int an_gdiff(const rondo_trace *t, uint32_t ga, uint32_t gb, struct an_gdiff *d)
{
	struct gd_walk w = {t, d, 0};
	struct gd_ctx root = {
		{rondo_group_root(t, ga), rondo_group_root(t, gb)},
		{0, 0},
		0,
		{UINT32_MAX, UINT32_MAX},
		1};
	int rc;

	memset(d, 0, sizeof(*d));
	d->group[0] = ga;
	d->group[1] = gb;
	if (ga >= rondo_group_count(t) || gb >= rondo_group_count(t))
		return RONDO_E_RANGE;
	rc = walk_pair(&w, &root);
	if (rc < 0)
		an_gdiff_free(d);
	return rc;
}

void an_gdiff_free(struct an_gdiff *d)
{
	for (uint32_t k = 0; k < d->n; k++) {
		free(d->hunk[k].sym[0]);
		free(d->hunk[k].sym[1]);
	}
	free(d->hunk);
	d->hunk = NULL;
	d->n = 0;
}

/* ---- text ----------------------------------------------------------------- */

/* The first (last: 0) or last call signature of rule r. */
static uint32_t rule_end(const rondo_trace *t, uint32_t r, int last)
{
	const rondo_sym *b;
	uint32_t len;

	for (int depth = 0; depth < 1000; depth++) {
		if (rondo_rule_body(t, r, &b, &len) < 0 || !len)
			return UINT32_MAX;
		if (!RONDO_SYM_IS_RULE(b[last ? len - 1 : 0].sym))
			return b[last ? len - 1 : 0].sym;
		r = RONDO_SYM_ID(b[last ? len - 1 : 0].sym);
	}
	return UINT32_MAX;
}

static const char *sig_func(const rondo_trace *t, uint32_t sig)
{
	const char *name = sig == UINT32_MAX
				   ? NULL
				   : rondo_func_name(t, rondo_sig_func(t, sig));

	return name ? name : "?";
}

int an_sym_text(const rondo_trace *t, const rondo_sym *s, uint32_t rank,
		int utf8, char *buf, size_t size)
{
	const char *times = utf8 ? "\xc3\x97" : "x";
	char count[32] = "";
	uint32_t r = RONDO_SYM_ID(s->sym);
	int n, m;

	if (s->count > 1)
		snprintf(count, sizeof(count), "%s%llu ", times,
			 (unsigned long long)s->count);
	if (RONDO_SYM_IS_RULE(s->sym)) {
		uint64_t calls = rondo_rule_calls(t, r);

		return snprintf(buf, size, "%s[ %s%s%s ]", count,
				sig_func(t, rule_end(t, r, 0)),
				calls == 1   ? ""
				: calls == 2 ? ", "
				: utf8	     ? " \xe2\x80\xa6 "
					     : " ... ",
				calls == 1 ? ""
					   : sig_func(t, rule_end(t, r, 1)));
	}
	n = snprintf(buf, size, "%s", count);
	if (n < 0 || (size_t)n >= size)
		size = 0;
	m = rank == UINT32_MAX
		    ? rondo_sig_format(t, r, size ? buf + n : NULL,
				       size ? size - (size_t)n : 0)
		    : rondo_sig_format_rank(t, r, rank, size ? buf + n : NULL,
					    size ? size - (size_t)n : 0);
	return m < 0 ? m : n + m;
}

int an_gdiff_where(const rondo_trace *t, const struct an_gdiff_hunk *h,
		   const uint32_t rank[2], int utf8, char *buf, size_t size)
{
	const char *each = h->loop_count > 1 ? " (each run)" : "";
	char loop[2][256], where[600];

	for (int s = 0; s < 2; s++) {
		rondo_sym r = {h->loop[s] | RONDO_SYM_RULE, 0, h->loop_count};

		loop[s][0] = '\0';
		if (h->loop[s] != UINT32_MAX)
			an_sym_text(t, &r, UINT32_MAX, utf8, loop[s],
				    sizeof(loop[s]));
	}
	if (h->loop[0] == UINT32_MAX)
		snprintf(where, sizeof(where), "at the top level");
	else if (!strcmp(loop[0], loop[1]))
		snprintf(where, sizeof(where), "in %s%s", loop[0], each);
	else
		snprintf(where, sizeof(where), "in %s < and %s >%s", loop[0],
			 loop[1], each);
	return snprintf(buf, size,
			"%s: call %llu of rank %u <, call %llu of rank %u >",
			where, (unsigned long long)h->at[0], (unsigned)rank[0],
			(unsigned long long)h->at[1], (unsigned)rank[1]);
}
