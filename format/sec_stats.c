/*
 * sec_stats.c - the sections of time per signature: the job's statistics
 * (count, total, extremes, histogram) and each rank's time in each of its
 * signatures (ranktime), and the time before calls per rank group
 * (groupgaps).
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

static int sigstat_read(struct fmt_cur *c, struct fmt_stat *st, uint64_t next,
			uint32_t nsigs);

/* The records of stats, or of sigstats (type FMT_SEC_SIGSTATS). */
static int stats_read(struct fmt_cur *c, struct fmt_stats *s, uint32_t nsigs,
		      uint32_t type)
{
	int compact = type == FMT_SEC_SIGSTATS;
	uint32_t n;
	/* stats: sig, count, total, min, range, 8-byte sumsq, nbins, one
	 * bin; sigstats: sig, total, min, range, sd, one bin */
	int rc = fmt_get_count(c, &n, compact ? 6 : 16);

	if (rc)
		return rc;
	s->st = calloc(n ? n : 1, sizeof(*s->st));
	if (!s->st)
		return fmt_cur_nomem(c);
	s->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = (compact ? sigstat_read : stat_read)(
			c, &s->st[i], i ? s->st[i - 1].sig + 1ull : 0, nsigs);
	return rc;
}

static int stats_decode_as(struct fmt_stats *s, const uint8_t *p, size_t n,
			   uint32_t nsigs, struct fmt_err *e, uint32_t type)
{
	struct fmt_cur c;
	int rc;

	memset(s, 0, sizeof(*s));
	fmt_cur_init(&c, p, n, fmt_section_name(type), e);
	rc = fmt_cur_done(&c, stats_read(&c, s, nsigs, type));
	if (rc)
		fmt_stats_free(s);
	return rc;
}

int fmt_stats_decode(struct fmt_stats *s, const uint8_t *p, size_t n,
		     uint32_t nsigs, struct fmt_err *e)
{
	return stats_decode_as(s, p, n, nsigs, e, FMT_SEC_STATS);
}

void fmt_stats_free(struct fmt_stats *s)
{
	free(s->st);
	memset(s, 0, sizeof(*s));
}

/* ---- statistics, compact ------------------------------------------------ */

/* The standard deviation of s's durations as a time code. */
static uint16_t stat_sd_code(const rondo_stat *s)
{
	double mean = (double)s->total_ns / (double)s->count;
	double v = s->sumsq_ns2 / (double)s->count - mean * mean;
	double sd = v > 0 ? sqrt(v) : 0;

	return fmt_time_code(sd >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(sd));
}

void fmt_sigstats_encode(struct fmt_buf *b, const struct fmt_stats *s)
{
	fmt_put_uvarint(b, s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		const rondo_stat *st = &s->st[i].s;

		fmt_put_uvarint(b, i ? s->st[i].sig - s->st[i - 1].sig - 1
				     : s->st[i].sig);
		fmt_put_uvarint(b, st->total_ns);
		fmt_put_uvarint(b, st->min_ns);
		fmt_put_uvarint(b, st->max_ns - st->min_ns);
		fmt_put_uvarint(b, stat_sd_code(st));
		for (unsigned k = fmt_hist_bin(st->min_ns);
		     k <= fmt_hist_bin(st->max_ns); k++)
			fmt_put_uvarint(b, st->hist[k]);
	}
}

/* The bins from the fastest call's to the slowest's: their sum is the
 * count, and the two ends hold a call each at least. */
static int sigstat_bins(struct fmt_cur *c, rondo_stat *s)
{
	unsigned lo = fmt_hist_bin(s->min_ns), hi = fmt_hist_bin(s->max_ns);
	size_t at = c->pos;
	uint64_t v;
	int rc;

	s->count = 0;
	for (unsigned k = lo; k <= hi; k++) {
		at = c->pos;
		rc = fmt_get_uvarint(c, &v);
		if (rc)
			return rc;
		if (v > UINT64_MAX - s->count ||
		    (v == 0 && (k == lo || k == hi)))
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "histogram bin %u holds %" PRIu64
					    " calls",
					    k, v);
		s->hist[k] = v;
		s->count += v;
	}
	return 0;
}

static int sigstat_read(struct fmt_cur *c, struct fmt_stat *st, uint64_t next,
			uint32_t nsigs)
{
	rondo_stat *s = &st->s;
	size_t at[4];
	uint64_t range, sd;
	double mean, d;
	int rc = sig_next_read(c, &next, nsigs, &st->sig);

	if (!rc)
		rc = uv_at(c, &s->total_ns, &at[0]);
	if (!rc)
		rc = uv_at(c, &s->min_ns, &at[1]);
	if (!rc)
		rc = uv_at(c, &range, &at[2]);
	if (!rc && range > UINT64_MAX - s->min_ns)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at[2],
				  "maximum overflows");
	if (!rc)
		rc = uv_at(c, &sd, &at[3]);
	if (!rc && sd > FMT_TIME_CODE_MAX)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at[3],
				  "time code %" PRIu64 " past the largest (%u)",
				  sd, FMT_TIME_CODE_MAX);
	if (rc)
		return rc;
	s->max_ns = s->min_ns + range;
	rc = sigstat_bins(c, s);
	if (!rc)
		rc = total_check(c, s, at[0]);
	if (rc)
		return rc;
	mean = (double)s->total_ns / (double)s->count;
	d = (double)fmt_time_value((uint16_t)sd);
	s->sumsq_ns2 = (double)s->count * (d * d + mean * mean);
	return 0;
}

int fmt_sigstats_decode(struct fmt_stats *s, const uint8_t *p, size_t n,
			uint32_t nsigs, struct fmt_err *e)
{
	return stats_decode_as(s, p, n, nsigs, e, FMT_SEC_SIGSTATS);
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

/* ---- the time before calls per rank group ---------------------------------- */

void fmt_groupgaps_encode(struct fmt_buf *b, const struct fmt_groupgaps *g)
{
	fmt_put_uvarint(b, g->n);
	for (uint32_t k = 0; k < g->n; k++) {
		uint64_t n = g->at[k + 1] - g->at[k];
		const struct fmt_gapent *e = g->e + g->at[k];

		fmt_put_uvarint(b, k ? g->root[k] - g->root[k - 1] - 1
				     : g->root[0]);
		fmt_put_uvarint(b, n);
		for (uint64_t i = 0; i < n; i++) {
			fmt_put_uvarint(b, i ? e[i].sig - e[i - 1].sig - 1
					     : e[0].sig);
			fmt_put_uvarint(b, e[i].calls);
			fmt_put_uvarint(b, e[i].ns);
		}
	}
}

/* Group k's root and entries, appended to g->e (of room *cap). */
static int group_gaps_read(struct fmt_cur *c, struct fmt_groupgaps *g,
			   uint32_t k, uint64_t *next_root, uint32_t nrules,
			   uint32_t nsigs, size_t *cap)
{
	uint64_t next = 0, base = g->at[k];
	size_t at = c->pos;
	uint32_t cnt;
	uint64_t d;
	int rc = fmt_get_uvarint(c, &d);

	if (rc)
		return rc;
	if (*next_root >= nrules || d >= nrules - *next_root)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a rank group's rule past the last (the "
				    "file has %u)",
				    nrules);
	g->root[k] = (uint32_t)(*next_root + d);
	*next_root = g->root[k] + 1ull;
	/* a signature, a count and a time: 3 bytes at least */
	rc = fmt_get_count(c, &cnt, 3);
	if (rc)
		return rc;
	if (util_grow(&g->e, cap, base + cnt, sizeof(*g->e)))
		return fmt_cur_nomem(c);
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		struct fmt_gapent *e = &g->e[base + i];

		rc = sig_next_read(c, &next, nsigs, &e->sig);
		at = c->pos;
		rc = rc ? rc : fmt_get_uvarint(c, &e->calls);
		if (!rc && e->calls == 0)
			rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					  "a time before no call");
		rc = rc ? rc : fmt_get_uvarint(c, &e->ns);
	}
	g->at[k + 1] = base + cnt;
	return rc;
}

static int groupgaps_read(struct fmt_cur *c, struct fmt_groupgaps *g,
			  uint32_t nrules, uint32_t nsigs)
{
	uint64_t next_root = 0;
	size_t cap = 0;
	uint32_t n;
	/* a root and a count: 2 bytes at least */
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	g->root = malloc(sizeof(*g->root) * ((size_t)n + 1));
	g->at = calloc((size_t)n + 1, sizeof(*g->at));
	if (!g->root || !g->at)
		return fmt_cur_nomem(c);
	g->n = n;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = group_gaps_read(c, g, k, &next_root, nrules, nsigs, &cap);
	return rc;
}

int fmt_groupgaps_decode(struct fmt_groupgaps *g, const uint8_t *p, size_t n,
			 uint32_t nrules, uint32_t nsigs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(g, 0, sizeof(*g));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_GROUPGAPS), e);
	rc = fmt_cur_done(&c, groupgaps_read(&c, g, nrules, nsigs));
	if (rc)
		fmt_groupgaps_free(g);
	return rc;
}

void fmt_groupgaps_free(struct fmt_groupgaps *g)
{
	free(g->root);
	free(g->at);
	free(g->e);
	memset(g, 0, sizeof(*g));
}

const void *fmt_sig_find(const void *base, size_t n, size_t size, uint32_t sig)
{
	const uint8_t *p = base;
	size_t lo = 0, hi = n;
	uint32_t at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&at, p + mid * size, sizeof(at));
		if (at < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return NULL;
	memcpy(&at, p + lo * size, sizeof(at));
	return at == sig ? p + lo * size : NULL;
}

const struct fmt_gapent *fmt_groupgaps_find(const struct fmt_groupgaps *g,
					    uint32_t k, uint32_t sig)
{
	if (k >= g->n)
		return NULL;
	return fmt_sig_find(g->e + g->at[k], (size_t)(g->at[k + 1] - g->at[k]),
			    sizeof(*g->e), sig);
}

/* ---- per-rank times summarized -------------------------------------------- */

/* What a signature's ranks are sorted by: time down then rank up (the
 * slowest), or time up then rank up (the fastest). */
static int ext_slow_cmp(const void *a, const void *b)
{
	const struct fmt_rankext *x = a, *y = b;

	if (x->code != y->code)
		return x->code < y->code ? 1 : -1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int ext_fast_cmp(const void *a, const void *b)
{
	const struct fmt_rankext *x = a, *y = b;

	if (x->code != y->code)
		return x->code < y->code ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Rank k's i-th signature and time code. */
#define RT_SIG(r, k, i)	 ((r)->sig[(r)->list[k] + (i)])
#define RT_CODE(r, k, i) ((r)->code[(r)->at[k] + (i)])

/* Every (rank, code) of r grouped by signature, ranks increasing within
 * one: e[at[s] .. at[s + 1]) for signature s < *nsig.  Counting sort. */
static int sum_group(const struct fmt_ranktime *r, uint32_t *nsig,
		     size_t **at_out, struct fmt_rankext **e_out)
{
	uint64_t total = r->nranks ? r->at[r->nranks] : 0;
	uint32_t n = 0;
	size_t *at;
	struct fmt_rankext *e;

	for (uint32_t k = 0; k < r->nranks; k++)
		for (uint64_t i = 0; i < r->at[k + 1] - r->at[k]; i++)
			if (RT_SIG(r, k, i) >= n)
				n = RT_SIG(r, k, i) + 1;
	at = calloc((size_t)n + 2, sizeof(*at));
	e = malloc(sizeof(*e) * ((size_t)total + 1));
	if (!at || !e) {
		free(at);
		free(e);
		return RONDO_E_NOMEM;
	}
	for (uint32_t k = 0; k < r->nranks; k++)
		for (uint64_t i = 0; i < r->at[k + 1] - r->at[k]; i++)
			at[RT_SIG(r, k, i) + 2]++;
	for (uint32_t s = 0; s < n; s++)
		at[s + 2] += at[s + 1];
	for (uint32_t k = 0; k < r->nranks; k++)
		for (uint64_t i = 0; i < r->at[k + 1] - r->at[k]; i++)
			e[at[RT_SIG(r, k, i) + 1]++] =
				(struct fmt_rankext){k, RT_CODE(r, k, i)};
	*nsig = n;
	*at_out = at;
	*e_out = e;
	return 0;
}

/* One signature's summary from its n >= 1 ranks e[] (reordered). */
static void sum_one(struct fmt_ranksum *out, struct fmt_sigsum *ss,
		    struct fmt_rankext *e, uint32_t n)
{
	uint32_t k = out->k;

	ss->ranks = n;
	ss->sum = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = fmt_time_value(e[i].code);

		ss->sum = v > UINT64_MAX - ss->sum ? UINT64_MAX : ss->sum + v;
	}
	ss->nslow = n < k ? n : k;
	ss->nfast = n - ss->nslow < k ? n - ss->nslow : k;
	/* the slowest first, then the others fastest first; bins from the
	 * others' order and the slowest' reversed */
	qsort(e, n, sizeof(*e), ext_slow_cmp);
	qsort(e + ss->nslow, n - ss->nslow, sizeof(*e), ext_fast_cmp);
	ss->ext = out->n ? out->s[out->n - 1].ext + out->s[out->n - 1].nslow +
				   out->s[out->n - 1].nfast
			 : 0;
	memcpy(out->ext + ss->ext, e,
	       sizeof(*e) * ((size_t)ss->nslow + ss->nfast));
	qsort(e, n, sizeof(*e), ext_fast_cmp);
	ss->bin =
		out->n ? out->s[out->n - 1].bin + out->s[out->n - 1].nbins : 0;
	ss->nbins = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct fmt_rankbin *b = out->bin + ss->bin + ss->nbins;

		if (ss->nbins && b[-1].bin == FMT_RANK_BIN(e[i].code)) {
			b[-1].count++;
			continue;
		}
		*b = (struct fmt_rankbin){FMT_RANK_BIN(e[i].code), 1};
		ss->nbins++;
	}
}

int fmt_ranksum_make(struct fmt_ranksum *out, const struct fmt_ranktime *r,
		     uint32_t k, const uint16_t *mpi)
{
	uint32_t nsig = 0;
	size_t *at = NULL;
	struct fmt_rankext *e = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->nranks = r->nranks;
	out->k = k > FMT_RANKSUM_KMAX ? FMT_RANKSUM_KMAX : k;
	rc = sum_group(r, &nsig, &at, &e);
	if (rc)
		return rc;
	out->s = calloc((size_t)nsig + 1, sizeof(*out->s));
	/* at most 2k extremes and one bin per rank of each signature */
	out->ext = malloc(sizeof(*out->ext) * (at[nsig] + 1));
	out->bin = malloc(sizeof(*out->bin) * (at[nsig] + 1));
	if (mpi) {
		out->mpi = malloc(sizeof(*out->mpi) * ((size_t)r->nranks + 1));
		if (out->mpi)
			memcpy(out->mpi, mpi, sizeof(*mpi) * r->nranks);
	}
	if (!out->s || !out->ext || !out->bin || (mpi && !out->mpi))
		rc = RONDO_E_NOMEM;
	for (uint32_t s = 0; s < nsig && !rc; s++) {
		if (at[s + 1] == at[s])
			continue;
		out->s[out->n].sig = s;
		sum_one(out, &out->s[out->n], e + at[s],
			(uint32_t)(at[s + 1] - at[s]));
		out->n++;
	}
	free(at);
	free(e);
	if (rc)
		fmt_ranksum_free(out);
	return rc;
}

void fmt_ranksum_encode(struct fmt_buf *b, const struct fmt_ranksum *s)
{
	uint16_t base = FMT_TIME_CODE_MAX;

	fmt_put_uvarint(b, s->nranks);
	fmt_put_uvarint(b, s->k);
	for (uint32_t r = 0; r < s->nranks; r++)
		if (s->mpi[r] < base)
			base = s->mpi[r];
	fmt_put_uvarint(b, s->nranks ? base : 0);
	for (uint32_t r = 0; r < s->nranks; r++)
		fmt_put_uvarint(b, s->mpi[r] - base);
	fmt_put_uvarint(b, s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct fmt_sigsum *ss = &s->s[i];
		uint32_t next = 0;

		fmt_put_uvarint(b, i ? ss->sig - s->s[i - 1].sig - 1 : ss->sig);
		fmt_put_uvarint(b, ss->ranks);
		fmt_put_uvarint(b, ss->sum);
		for (uint32_t j = 0; j < ss->nslow + ss->nfast; j++) {
			fmt_put_uvarint(b, s->ext[ss->ext + j].rank);
			fmt_put_uvarint(b, s->ext[ss->ext + j].code);
		}
		fmt_put_uvarint(b, ss->nbins);
		for (uint32_t j = 0; j < ss->nbins; j++) {
			const struct fmt_rankbin *bn = &s->bin[ss->bin + j];

			fmt_put_uvarint(b, bn->bin - next);
			fmt_put_uvarint(b, bn->count);
			next = bn->bin + 1u;
		}
	}
}

/* What reading a summary needs besides the cursor. */
struct sread {
	struct fmt_ranksum *s;
	size_t next, capext, nbin, capbin;
	uint32_t nsigs;
};

static int code_read(struct fmt_cur *c, uint64_t base, uint16_t *code)
{
	size_t at = c->pos;
	uint64_t v;
	int rc = fmt_get_uvarint(c, &v);

	if (rc)
		return rc;
	if (v > FMT_TIME_CODE_MAX - base)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "time code %" PRIu64 " past the largest "
				    "(%u)",
				    v + base, FMT_TIME_CODE_MAX);
	*code = (uint16_t)(v + base);
	return 0;
}

static int mpi_read(struct fmt_cur *c, struct fmt_ranksum *s)
{
	uint64_t base;
	size_t at;
	int rc = uv_at(c, &base, &at);

	if (rc)
		return rc;
	if (base > FMT_TIME_CODE_MAX)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "time code %" PRIu64 " past the largest "
				    "(%u)",
				    base, FMT_TIME_CODE_MAX);
	rc = fmt_cur_need(c, s->nranks, "the ranks' MPI times");
	if (rc)
		return rc;
	s->mpi = malloc(sizeof(*s->mpi) * ((size_t)s->nranks + 1));
	if (!s->mpi)
		return fmt_cur_nomem(c);
	for (uint32_t r = 0; r < s->nranks && !rc; r++)
		rc = code_read(c, base, &s->mpi[r]);
	return rc;
}

/* x comes strictly after the extreme before it, in its list's order. */
static int ext_after(const struct fmt_rankext *prev,
		     const struct fmt_rankext *x, int slow)
{
	return (slow ? ext_slow_cmp : ext_fast_cmp)(prev, x) < 0;
}

static int ext_read(struct fmt_cur *c, struct sread *st,
		    const struct fmt_sigsum *ss, uint32_t j)
{
	struct fmt_rankext *x = &st->s->ext[ss->ext + j];
	size_t at = c->pos;
	uint64_t rank;
	int rc = fmt_get_uvarint(c, &rank);

	if (!rc)
		rc = code_read(c, 0, &x->code);
	if (rc)
		return rc;
	if (rank >= st->s->nranks)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "rank %" PRIu64 " of %u", rank,
				    st->s->nranks);
	x->rank = (uint32_t)rank;
	/* each list in its order; a rank once in the two lists */
	if (j != 0 && j != ss->nslow && !ext_after(x - 1, x, j < ss->nslow))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "extreme ranks out of order");
	for (uint32_t i = 0; i < j; i++)
		if (st->s->ext[ss->ext + i].rank == x->rank)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "rank %u listed twice", x->rank);
	if (j >= ss->nslow && ss->nslow &&
	    x->code > st->s->ext[ss->ext + ss->nslow - 1].code)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a fast rank slower than a slow one");
	return 0;
}

static int bins_read(struct fmt_cur *c, struct sread *st, struct fmt_sigsum *ss)
{
	size_t at = c->pos;
	uint64_t next = 0, total = 0, d, cnt;
	int rc = fmt_get_count(c, &ss->nbins, 2);

	if (rc)
		return rc;
	if (util_grow(&st->s->bin, &st->capbin, st->nbin + ss->nbins,
		      sizeof(*st->s->bin)))
		return fmt_cur_nomem(c);
	ss->bin = st->nbin;
	for (uint32_t j = 0; j < ss->nbins; j++) {
		at = c->pos;
		rc = fmt_get_uvarint(c, &d);
		if (!rc)
			rc = fmt_get_uvarint(c, &cnt);
		if (rc)
			return rc;
		if (d > FMT_RANK_BIN_MAX - next || cnt == 0 ||
		    cnt > ss->ranks - total)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "a bin of ranks out of order, "
					    "empty, or more ranks than "
					    "%u",
					    ss->ranks);
		next += d;
		st->s->bin[st->nbin + j] =
			(struct fmt_rankbin){(uint16_t)next, (uint32_t)cnt};
		next++;
		total += cnt;
	}
	st->nbin += ss->nbins;
	if (total != ss->ranks)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "bins hold %" PRIu64 " ranks, %u called "
				    "the signature",
				    total, ss->ranks);
	return 0;
}

/* The sum holds the listed times, and at least the fastest listed for
 * each rank not listed (times only grow when calls are added). */
static int sum_check(struct fmt_cur *c, const struct fmt_ranksum *s,
		     const struct fmt_sigsum *ss, size_t at)
{
	uint64_t listed = 0, rest = ss->ranks - ss->nslow - ss->nfast;
	const struct fmt_rankext *e = s->ext + ss->ext;
	uint64_t lo = 0;

	for (uint32_t j = 0; j < ss->nslow + ss->nfast; j++) {
		uint64_t v = fmt_time_value(e[j].code);

		listed = v > UINT64_MAX - listed ? UINT64_MAX : listed + v;
	}
	if (rest) {
		uint64_t f = fmt_time_value(e[ss->nslow + ss->nfast - 1].code);

		lo = f && rest > UINT64_MAX / f ? UINT64_MAX : rest * f;
	}
	/* a sum past 2^64 ns saturates, and holds anything then */
	if (ss->sum < listed ||
	    (ss->sum - listed < lo && ss->sum != UINT64_MAX) ||
	    (!rest && ss->sum != listed))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "the sum %" PRIu64 " ns cannot hold the "
				    "times listed",
				    ss->sum);
	return 0;
}

static int sigsum_read(struct fmt_cur *c, struct sread *st, uint64_t *next)
{
	struct fmt_ranksum *s = st->s;
	struct fmt_sigsum *ss = &s->s[s->n];
	size_t at;
	uint64_t ranks;
	int rc = sig_next_read(c, next, st->nsigs, &ss->sig);

	at = c->pos;
	if (!rc)
		rc = fmt_get_uvarint(c, &ranks);
	if (!rc && (ranks == 0 || ranks > s->nranks))
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				  "%" PRIu64 " ranks of %u called a signature",
				  ranks, s->nranks);
	at = c->pos;
	if (!rc)
		rc = fmt_get_uvarint(c, &ss->sum);
	if (rc)
		return rc;
	ss->ranks = (uint32_t)ranks;
	ss->nslow = ss->ranks < s->k ? ss->ranks : s->k;
	ss->nfast = ss->ranks - ss->nslow < s->k ? ss->ranks - ss->nslow : s->k;
	ss->ext = st->next;
	if (util_grow(&s->ext, &st->capext, st->next + ss->nslow + ss->nfast,
		      sizeof(*s->ext)))
		return fmt_cur_nomem(c);
	for (uint32_t j = 0; j < ss->nslow + ss->nfast && !rc; j++)
		rc = ext_read(c, st, ss, j);
	st->next += ss->nslow + ss->nfast;
	if (!rc)
		rc = sum_check(c, s, ss, at);
	return rc ? rc : bins_read(c, st, ss);
}

static int ranksum_read(struct fmt_cur *c, struct fmt_ranksum *s,
			uint32_t nranks, uint32_t nsigs)
{
	struct sread st = {s, 0, 0, 0, 0, nsigs};
	uint64_t k, next = 0;
	uint32_t n;
	size_t at = c->pos;
	int rc = fmt_get_count(c, &n, 1);

	if (rc)
		return rc;
	if (n != nranks)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "times for %u ranks, the job had %u", n,
				    nranks);
	s->nranks = n;
	at = c->pos;
	rc = fmt_get_uvarint(c, &k);
	if (rc)
		return rc;
	if (k == 0 || k > FMT_RANKSUM_KMAX)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "%" PRIu64 " extreme ranks kept, 1 to %d",
				    k, FMT_RANKSUM_KMAX);
	s->k = (uint32_t)k;
	rc = mpi_read(c, s);
	/* sig, ranks, sum, one extreme (2), nbins, one bin (2) */
	if (!rc)
		rc = fmt_get_count(c, &n, 8);
	if (rc)
		return rc;
	s->s = calloc((size_t)n + 1, sizeof(*s->s));
	if (!s->s)
		return fmt_cur_nomem(c);
	for (uint32_t i = 0; i < n && !rc; i++) {
		rc = sigsum_read(c, &st, &next);
		s->n++;
	}
	return rc;
}

int fmt_ranksum_decode(struct fmt_ranksum *s, const uint8_t *p, size_t n,
		       uint32_t nranks, uint32_t nsigs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(s, 0, sizeof(*s));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_RANKSUM), e);
	rc = fmt_cur_done(&c, ranksum_read(&c, s, nranks, nsigs));
	if (rc)
		fmt_ranksum_free(s);
	return rc;
}

const struct fmt_sigsum *fmt_ranksum_find(const struct fmt_ranksum *s,
					  uint32_t sig)
{
	return fmt_sig_find(s->s, s->n, sizeof(*s->s), sig);
}

void fmt_ranksum_free(struct fmt_ranksum *s)
{
	free(s->mpi);
	free(s->s);
	free(s->ext);
	free(s->bin);
	memset(s, 0, sizeof(*s));
}
