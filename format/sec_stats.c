/*
 * sec_stats.c - the sections of time per signature: the job's statistics
 * (count, total, extremes, histogram) and each rank's time in each of its
 * signatures (ranktime).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"
#include "util.h"

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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a signature past the last (the file "
				    "has %u)",
				    nsigs);
	*sig = (uint32_t)(*next + d);
	*next = *sig + 1ull;
	return 0;
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
		stat_put(b,
			 i ? s->st[i].sig - s->st[i - 1].sig - 1 : s->st[i].sig,
			 &s->st[i].s);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "histogram bin beyond the last (%d)",
				    RONDO_HIST_BINS - 1);
	*next += d;
	at = c->pos;
	rc = fmt_get_uvarint(c, &n);
	if (rc)
		return rc;
	if (n == 0 || n > UINT64_MAX - *sum)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "histogram bin %" PRIu64 " holds %" PRIu64
				    " calls",
				    *next, n);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "%u histogram bins, at most %d", n,
				    RONDO_HIST_BINS);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = bin_read(c, s, &next, &sum);
	if (!rc && sum != s->count)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				  "histogram holds %" PRIu64
				  " calls, the count is %" PRIu64,
				  sum, s->count);
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
		return fmt_cur_fail(
			c, RONDO_E_CORRUPT, at,
			"total %" PRIu64 " ns is impossible for %" PRIu64
			" calls of %" PRIu64 " to %" PRIu64 " ns",
			s->total_ns, s->count, s->min_ns, s->max_ns);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at[0], "count is 0");
	if (range > UINT64_MAX - s->min_ns)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at[3],
				    "maximum overflows");
	s->max_ns = s->min_ns + range;
	if (!(s->sumsq_ns2 >= 0) || isinf(s->sumsq_ns2))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at[4],
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
		return fmt_cur_nomem(c);
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
	rc = fmt_cur_done(&c, stats_read(&c, s, nsigs));
	if (rc)
		fmt_stats_free(s);
	return rc;
}

void fmt_stats_free(struct fmt_stats *s)
{
	free(s->st);
	memset(s, 0, sizeof(*s));
}

/* ---- per-rank times ------------------------------------------------------ */

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
	if (util_grow(&r->sig, &st->capsig, st->nsig + cnt, sizeof(*r->sig)))
		return fmt_cur_nomem(c);
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
	int rc = fmt_cur_need(c, n, "the times of a rank");

	if (rc)
		return rc;
	if (util_grow(&r->code, &st->capcode, base + n, sizeof(*r->code)))
		return fmt_cur_nomem(c);
	for (uint64_t k = 0; k < n; k++) {
		size_t at = c->pos;

		rc = fmt_get_uvarint(c, &v);
		if (rc)
			return rc;
		if (v > FMT_TIME_CODE_MAX)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "time code %" PRIu64 " past the "
					    "largest (%u)",
					    v, FMT_TIME_CODE_MAX);
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
		return fmt_cur_fail(
			c, RONDO_E_CORRUPT, at,
			"rank %u shares the signatures of a rank %" PRIu64
			" before it",
			rank, same);
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
		return fmt_cur_fail(c, RONDO_E_CORRUPT, 0,
				    "times for %u ranks, the job had %u", n,
				    nranks);
	r->at = calloc((size_t)n + 1, sizeof(*r->at));
	r->list = calloc(n ? n : 1, sizeof(*r->list));
	if (!r->at || !r->list)
		return fmt_cur_nomem(c);
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
	rc = fmt_cur_done(&c, ranktime_read(&c, r, nranks, nsigs));
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
