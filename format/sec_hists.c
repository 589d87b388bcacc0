/*
 * sec_hists.c - section hists (from 1.12): the histograms of values
 * merged at a precision below 100 % (format.h, "struct fmt_hists";
 * FORMAT.md, "hists").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

void fmt_hists_encode(struct fmt_buf *b, const struct fmt_hists *h)
{
	uint32_t rule = 0, pos = 0;

	fmt_put_uvarint(b, h->precision);
	fmt_put_uvarint(b, h->n);
	for (uint32_t i = 0; i < h->n; i++) {
		const struct fmt_hist *x = &h->h[i];
		uint64_t next = x->min;

		fmt_put_uvarint(b, x->kind);
		fmt_put_uvarint(b, x->n);
		fmt_put_uvarint(b, x->sum);
		fmt_put_uvarint(b, x->min);
		fmt_put_uvarint(b, x->max - x->min);
		fmt_put_uvarint(b, x->min_rank);
		fmt_put_uvarint(b, x->max_rank);
		fmt_put_uvarint(b, x->nbins);
		for (uint32_t k = 0; k < x->nbins; k++) {
			fmt_put_uvarint(b, x->bin[k].lo - next);
			fmt_put_uvarint(b, x->bin[k].hi - x->bin[k].lo);
			fmt_put_uvarint(b, x->bin[k].n);
			next = x->bin[k].hi + 1;
		}
	}
	fmt_put_uvarint(b, h->nsites);
	for (uint32_t i = 0; i < h->nsites; i++) {
		const struct fmt_hsite *s = &h->site[i];
		int same = i && s->rule == rule;

		fmt_put_uvarint(b, s->rule - (i ? rule : 0));
		fmt_put_uvarint(b, same ? s->pos - pos - 1 : s->pos);
		fmt_put_uvarint(b, s->hist);
		rule = s->rule;
		pos = s->pos;
	}
}

/* A uvarint that must fit in 32 bits and be below `below`. */
static int get_below(struct fmt_cur *c, uint64_t below, uint32_t *v,
		     const char *what)
{
	size_t at = c->pos;
	uint64_t x;
	int rc = fmt_get_uvarint(c, &x);

	if (rc)
		return rc;
	if (x >= below)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "%s %" PRIu64
				    " out of range (below %" PRIu64 ")",
				    what, x, below);
	*v = (uint32_t)x;
	return 0;
}

static int hist_read(struct fmt_cur *c, struct fmt_hist *x, uint32_t nranks)
{
	size_t at = c->pos;
	uint64_t span, d, w, next, total = 0;
	int rc = get_below(c, FMT_HIST_PARAM + 1, &x->kind, "histogram kind");

	rc = rc ? rc : fmt_get_uvarint(c, &x->n);
	rc = rc ? rc : fmt_get_uvarint(c, &x->sum);
	rc = rc ? rc : fmt_get_uvarint(c, &x->min);
	rc = rc ? rc : fmt_get_uvarint(c, &span);
	rc = rc ? rc : get_below(c, nranks, &x->min_rank, "rank");
	rc = rc ? rc : get_below(c, nranks, &x->max_rank, "rank");
	rc = rc ? rc : fmt_get_count(c, &x->nbins, 3);
	if (rc)
		return rc;
	if (span > UINT64_MAX - x->min || x->n == 0)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a histogram of no value or past 2^64");
	x->max = x->min + span;
	x->bin = malloc(sizeof(*x->bin) * ((size_t)x->nbins + 1));
	if (!x->bin)
		return fmt_cur_nomem(c);
	next = x->min;
	for (uint32_t k = 0; k < x->nbins; k++) {
		at = c->pos;
		rc = fmt_get_uvarint(c, &d);
		rc = rc ? rc : fmt_get_uvarint(c, &w);
		rc = rc ? rc : fmt_get_uvarint(c, &x->bin[k].n);
		if (rc)
			return rc;
		if (d > x->max - next || w > x->max - next - d ||
		    x->bin[k].n == 0 || x->bin[k].n > x->n - total)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "bin %u of a histogram past its "
					    "maximum or its count",
					    k);
		x->bin[k].lo = next + d;
		x->bin[k].hi = x->bin[k].lo + w;
		total += x->bin[k].n;
		if (x->bin[k].hi == x->max && k + 1 < x->nbins)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "bins past a histogram's maximum");
		next = x->bin[k].hi + 1;
	}
	if (total != x->n)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, c->pos,
				    "a histogram's bins count %" PRIu64
				    " values, not %" PRIu64,
				    total, x->n);
	return 0;
}

int fmt_hists_decode(struct fmt_hists *h, const uint8_t *p, size_t n,
		     const struct fmt_grammar *g, uint32_t nranks,
		     struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(h, 0, sizeof(*h));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_HISTS), e);
	rc = get_below(&cur, 100, &h->precision, "precision");
	rc = rc ? rc : fmt_get_count(&cur, &count, 10);
	if (!rc && !(h->h = calloc((size_t)count + 1, sizeof(*h->h))))
		rc = fmt_cur_nomem(&cur);
	for (uint32_t i = 0; i < count && !rc; i++) {
		h->n = i + 1;
		rc = hist_read(&cur, &h->h[i], nranks);
	}
	rc = rc ? rc : fmt_get_count(&cur, &count, 3);
	if (!rc && !(h->site = malloc(sizeof(*h->site) * ((size_t)count + 1))))
		rc = fmt_cur_nomem(&cur);
	for (uint32_t i = 0; i < count && !rc; i++) {
		struct fmt_hsite *s = &h->site[i];
		uint32_t prev = i ? h->site[i - 1].rule : 0, d = 0, len;
		size_t at = cur.pos;

		rc = get_below(&cur, (uint64_t)g->nrules - prev, &d, "rule");
		s->rule = prev + d;
		len = rc ? 0 : g->first[s->rule + 1] - g->first[s->rule];
		rc = rc ? rc : get_below(&cur, len, &s->pos, "position");
		if (!rc && i && d == 0) {
			uint64_t pos =
				(uint64_t)h->site[i - 1].pos + 1 + s->pos;

			if (pos >= len)
				rc = fmt_cur_fail(&cur, RONDO_E_CORRUPT, at,
						  "a site past its rule's end");
			s->pos = (uint32_t)pos;
		}
		rc = rc ? rc : get_below(&cur, h->n, &s->hist, "histogram");
		if (!rc && h->h[s->hist].kind != FMT_HIST_COUNT)
			rc = fmt_cur_fail(&cur, RONDO_E_CORRUPT, at,
					  "a site of a histogram of values, "
					  "not of loop counts");
		if (!rc)
			h->nsites = i + 1;
	}
	rc = fmt_cur_done(&cur, rc);
	if (rc)
		fmt_hists_free(h);
	return rc;
}

void fmt_hists_free(struct fmt_hists *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		free(h->h[i].bin);
	free(h->h);
	free(h->site);
	memset(h, 0, sizeof(*h));
}

const struct fmt_hist *fmt_hists_find(const struct fmt_hists *h, uint32_t rule,
				      uint32_t pos)
{
	uint32_t lo = 0, hi = h->nsites;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct fmt_hsite *s = &h->site[mid];

		if (s->rule < rule || (s->rule == rule && s->pos < pos))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nsites && h->site[lo].rule == rule &&
			       h->site[lo].pos == pos
		       ? &h->h[h->site[lo].hist]
		       : NULL;
}
