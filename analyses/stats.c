/*
 * stats.c - mpiP-like statistics, contention and imbalance (see stats.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "stats.h"

/* Some rank made calls: then a trace without a single statistic lacks
 * the section rather than the calls. */
static int stats_has_calls(const rondo_trace *t)
{
	for (uint32_t r = 0; r < rondo_rank_count(t); r++)
		if (rondo_rank_calls(t, r) > 0)
			return 1;
	return 0;
}

static void stats_add(struct an_row *row, const rondo_stat *st)
{
	if (row->count == 0 || st->min_ns < row->min_ns)
		row->min_ns = st->min_ns;
	if (st->max_ns > row->max_ns)
		row->max_ns = st->max_ns;
	row->count = sat_add(row->count, st->count);
	row->total_ns = sat_add(row->total_ns, st->total_ns);
	row->sumsq_ns2 += st->sumsq_ns2;
	row->sigs++;
}

/* Signature s's statistics: of its durations (before 0), of the time
 * before its calls (1), or of that time in rank group `group` alone (2:
 * its count and total). */
static int stats_of(const rondo_trace *t, uint32_t s, int before,
		    uint32_t group, rondo_stat *st)
{
	if (before == 2) {
		memset(st, 0, sizeof(*st));
		return rondo_sig_group_gap(t, s, group, &st->total_ns,
					   &st->count);
	}
	return before ? rondo_sig_gap_stat(t, s, st) : rondo_sig_stat(t, s, st);
}

/* Rows by function or by signature: a slot per id, then the empty ones
 * squeezed out. */
static int stats_calls(const rondo_trace *t, int by_func, int before,
		       uint32_t group, struct an_row *rows, uint32_t nslots,
		       uint32_t *n)
{
	uint32_t nsig = rondo_sig_count(t), found = 0, k = 0;
	rondo_stat st;
	int rc;

	for (uint32_t i = 0; i < nslots; i++) {
		rows[i].id = i;
		rows[i].totals_only = before == 2;
	}
	for (uint32_t s = 0; s < nsig; s++) {
		uint32_t slot = by_func ? rondo_sig_func(t, s) : s;

		rc = stats_of(t, s, before, group, &st);
		if (rc == RONDO_E_MISSING && before == 2)
			return rc; /* none per group at all */
		if (slot >= nslots || rc < 0 || st.count == 0)
			continue;
		stats_add(&rows[slot], &st);
		found++;
	}
	if (found == 0 && stats_has_calls(t))
		return RONDO_E_MISSING;
	for (uint32_t i = 0; i < nslots; i++)
		if (rows[i].count > 0)
			rows[k++] = rows[i];
	*n = k;
	return 0;
}

static int stats_ranks(const rondo_trace *t, struct an_row *rows, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++) {
		int rc = rondo_rank_mpi_time(t, r, &rows[r].total_ns);

		if (rc < 0)
			return rc;
		rows[r].id = r;
		rows[r].count = rondo_rank_calls(t, r);
	}
	return 0;
}

/* an_stats and an_stats_before. */
static int stats_rows(const rondo_trace *t, enum an_by by, int before,
		      uint32_t group, struct an_row **rows, uint32_t *n)
{
	uint32_t slots = by == AN_BY_FUNCTION	 ? rondo_func_count(t)
			 : by == AN_BY_SIGNATURE ? rondo_sig_count(t)
						 : rondo_rank_count(t);
	struct an_row *a = calloc(slots ? slots : 1, sizeof(*a));
	int rc;

	*rows = NULL;
	*n = 0;
	if (!a)
		return RONDO_E_NOMEM;
	if (by == AN_BY_RANK) {
		rc = stats_ranks(t, a, slots);
		*n = rc < 0 ? 0 : slots;
	} else {
		rc = stats_calls(t, by == AN_BY_FUNCTION, before, group, a,
				 slots, n);
	}
	if (rc < 0) {
		free(a);
		return rc;
	}
	*rows = a;
	return 0;
}

int an_stats(const rondo_trace *t, enum an_by by, struct an_row **rows,
	     uint32_t *n)
{
	return stats_rows(t, by, 0, 0, rows, n);
}

int an_stats_before(const rondo_trace *t, enum an_by by, struct an_row **rows,
		    uint32_t *n)
{
	if (by == AN_BY_RANK)
		return RONDO_E_RANGE;
	return stats_rows(t, by, 1, 0, rows, n);
}

int an_stats_before_group(const rondo_trace *t, enum an_by by, uint32_t group,
			  struct an_row **rows, uint32_t *n)
{
	*rows = NULL;
	*n = 0;
	if (by == AN_BY_RANK || group >= rondo_group_count(t))
		return RONDO_E_RANGE;
	return stats_rows(t, by, 2, group, rows, n);
}

uint64_t an_before_group_total(const rondo_trace *t, uint32_t group)
{
	uint64_t all = 0, ns;

	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		if (rondo_sig_group_gap(t, s, group, &ns, NULL) == 0)
			all = sat_add(all, ns);
	return all;
}

uint64_t an_before_total(const rondo_trace *t)
{
	uint64_t all = 0;
	rondo_stat st;

	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		if (rondo_sig_gap_stat(t, s, &st) == 0)
			all = sat_add(all, st.total_ns);
	return all;
}

double an_row_mean(const struct an_row *r)
{
	return r->count ? (double)r->total_ns / (double)r->count : 0;
}

double an_row_sd(const struct an_row *r)
{
	double mean = an_row_mean(r), var;

	if (r->count == 0 || r->sigs == 0)
		return 0;
	/* rounding can take a spread of equal durations just below 0 */
	var = r->sumsq_ns2 / (double)r->count - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

static double stats_key(const struct an_row *r, enum an_key key)
{
	switch (key) {
	case AN_KEY_TOTAL: return (double)r->total_ns;
	case AN_KEY_COUNT: return (double)r->count;
	case AN_KEY_MEAN: return an_row_mean(r);
	case AN_KEY_MAX: return (double)r->max_ns;
	default: return 0;
	}
}

/* x goes before y: the larger key first, then the smaller id. */
static int stats_before(const struct an_row *x, const struct an_row *y,
			enum an_key key)
{
	double kx = stats_key(x, key), ky = stats_key(y, key);

	if (kx != ky)
		return kx > ky;
	return x->id < y->id;
}

static void stats_sift(struct an_row *a, uint32_t i, uint32_t n,
		       enum an_key key)
{
	struct an_row tmp;

	for (uint32_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && stats_before(&a[c], &a[c + 1], key))
			c++;
		if (!stats_before(&a[i], &a[c], key))
			return;
		tmp = a[i], a[i] = a[c], a[c] = tmp;
	}
}

/* A heap sort: qsort would need the key in a global (the explorer may
 * sort from elsewhere), and the order is total, so stability is moot. */
void an_stats_sort(struct an_row *rows, uint32_t n, enum an_key key)
{
	struct an_row tmp;

	for (uint32_t i = n / 2; i-- > 0;)
		stats_sift(rows, i, n, key);
	for (uint32_t end = n; end-- > 1;) {
		tmp = rows[0], rows[0] = rows[end], rows[end] = tmp;
		stats_sift(rows, 0, end, key);
	}
}

/* The tracer's "duration", written "%.6f" seconds (tracer/output.c). */
uint64_t an_run_ns(const rondo_trace *t)
{
	const char *d = rondo_meta_get(t, "duration");
	char *end;
	double s;

	if (!d)
		return 0;
	errno = 0;
	s = strtod(d, &end);
	/* a year at most: anything else is not a duration */
	if (errno || end == d || *end || !(s >= 0) || s > 3.2e7)
		return 0;
	return (uint64_t)llround(s * 1e9);
}

void an_totals(const rondo_trace *t, struct an_totals *tot)
{
	rondo_stat st;
	uint64_t ns;

	memset(tot, 0, sizeof(*tot));
	tot->ranks = rondo_rank_count(t);
	tot->run_ns = an_run_ns(t);
	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		if (rondo_sig_stat(t, s, &st) == 0)
			tot->mpi_ns = sat_add(tot->mpi_ns, st.total_ns);
	for (uint32_t r = 0; r < tot->ranks; r++) {
		if (rondo_rank_mpi_time(t, r, &ns) < 0)
			break;
		tot->rank_mpi_ns = sat_add(tot->rank_mpi_ns, ns);
	}
}

double an_share(double part, uint64_t whole)
{
	return whole ? part / (double)whole : NAN;
}

/* The ranks' spread in each signature, from the trace's per-rank times:
 * O(signatures), whatever the ranks. */
static int contention_ranks(const rondo_trace *t, struct an_contention *c,
			    uint32_t nsig)
{
	rondo_spread sp;

	if (rondo_rank_times_kept(t, NULL) == RONDO_RANKTIMES_NONE)
		return 0; /* an older file: no imbalance to give */
	for (uint32_t s = 0; s < nsig; s++) {
		int rc = rondo_sig_spread(t, s, &sp);
		uint32_t last;

		if (rc < 0)
			return rc;
		if (sp.ranks == 0)
			continue;
		c[s].ranks = sp.ranks;
		c[s].max_rank = sp.slow_rank[0];
		c[s].max_rank_ns = sp.slow_ns[0];
		/* the fastest: the first of the fast, or the last of the
		 * slow when no rank is left for them, the lower rank on a
		 * tie (those not listed come after the fast in rank) */
		last = sp.nslow - 1;
		c[s].min_rank = sp.nfast ? sp.fast_rank[0] : sp.slow_rank[last];
		c[s].min_rank_ns = sp.nfast ? sp.fast_ns[0] : sp.slow_ns[last];
		for (uint32_t j = 0; j < sp.nslow; j++)
			if (sp.slow_ns[j] == c[s].min_rank_ns &&
			    sp.slow_rank[j] < c[s].min_rank)
				c[s].min_rank = sp.slow_rank[j];
		c[s].mean_rank_ns = (double)sp.sum_ns / sp.ranks;
		c[s].imbalance =
			c[s].mean_rank_ns > 0
				? (double)c[s].max_rank_ns / c[s].mean_rank_ns
				: 1.0;
		c[s].imbalance_ns =
			(double)c[s].max_rank_ns > c[s].mean_rank_ns
				? (double)c[s].max_rank_ns - c[s].mean_rank_ns
				: 0;
	}
	return 0;
}

/* Most lost first, ties by signature; then most imbalance time, and
 * highest ratio, each with the others as ties. */
static int by_lost(const void *a, const void *b)
{
	const struct an_contention *x = a, *y = b;

	if (x->lost_ns != y->lost_ns)
		return x->lost_ns < y->lost_ns ? 1 : -1;
	return x->sig < y->sig ? -1 : x->sig > y->sig;
}

static int by_imbalance_ns(const void *a, const void *b)
{
	const struct an_contention *x = a, *y = b;

	if (x->imbalance_ns != y->imbalance_ns)
		return x->imbalance_ns < y->imbalance_ns ? 1 : -1;
	return by_lost(a, b);
}

static int by_ratio(const void *a, const void *b)
{
	const struct an_contention *x = a, *y = b;

	if (x->imbalance != y->imbalance)
		return x->imbalance < y->imbalance ? 1 : -1;
	return by_imbalance_ns(a, b);
}

void an_contention_sort(struct an_contention *rows, uint32_t n,
			enum an_cont_order order)
{
	qsort(rows, n, sizeof(*rows),
	      order == AN_CONT_IMBALANCE ? by_imbalance_ns
	      : order == AN_CONT_RATIO	 ? by_ratio
					 : by_lost);
}

int an_contention(const rondo_trace *t, struct an_contention **rows,
		  uint32_t *n)
{
	uint32_t nsig = rondo_sig_count(t), k = 0;
	struct an_contention *c = calloc(nsig ? nsig : 1, sizeof(*c));
	rondo_stat st;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!c)
		return RONDO_E_NOMEM;
	rc = contention_ranks(t, c, nsig);
	for (uint32_t s = 0; s < nsig && rc == 0; s++) {
		if (rondo_sig_stat(t, s, &st) < 0 || st.count == 0)
			continue;
		c[k] = c[s];
		c[k].sig = s;
		c[k].count = st.count;
		c[k].total_ns = st.total_ns;
		c[k].min_ns = st.min_ns;
		/* the format guarantees count * min <= total */
		c[k].lost_ns = st.total_ns - st.count * st.min_ns;
		k++;
	}
	if (rc == 0 && k == 0 && stats_has_calls(t))
		rc = RONDO_E_MISSING;
	if (rc < 0) {
		free(c);
		return rc;
	}
	an_contention_sort(c, k, AN_CONT_LOST);
	*rows = c;
	*n = k;
	return 0;
}

/* Whether the file has a section of that name, whole or not. */
static int has_section(const rondo_trace *t, const char *name)
{
	for (uint32_t i = 0; i < rondo_section_count(t); i++) {
		const char *n = NULL;

		if (rondo_section_info(t, i, &n, NULL, NULL) == 0 && n &&
		    !strcmp(n, name))
			return 1;
	}
	return 0;
}

const char *an_rank_precision(const rondo_trace *t, char *buf, size_t size)
{
	uint32_t k;
	/* 1/128 is 0.78125%: rounded up, it stays a bound */
	double pct = ceil(10000 * RONDO_RANKTIME_ERROR) / 100;

	switch (rondo_rank_times_kept(t, &k)) {
	case RONDO_RANKTIMES_EACH:
		snprintf(buf, size,
			 "each rank's time in each signature, within %.2f%%",
			 pct);
		break;
	case RONDO_RANKTIMES_SUMMARY:
		snprintf(buf, size,
			 "summarized: each rank's MPI time within %.2f%%; per "
			 "signature the ranks' mean, the %u slowest and %u "
			 "fastest ranks within %.2f%%, the others as a "
			 "histogram of 9%% bins",
			 pct, k, k, pct);
		break;
	default:
		snprintf(buf, size, "%s",
			 has_section(t, "ranktime") || has_section(t, "ranksum")
				 ? "not read: their section is damaged or cut"
				 : "none (a file older than them)");
	}
	return buf;
}

void an_sig_text(const rondo_trace *t, uint32_t sig, char *buf, size_t size)
{
	int len = rondo_sig_format(t, sig, buf, size);
	size_t k = size - 4;

	if (len < 0)
		buf[0] = '\0';
	if (len < (int)size)
		return;
	while (k > 0 && ((unsigned char)buf[k] & 0xc0) == 0x80)
		k--;
	memcpy(buf + k, "...", 4);
}

/* ---- CSV ----------------------------------------------------------------- */

void an_csv_text(FILE *out, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

/* ",share", or "," when it is unknown. */
static void csv_share(FILE *out, double share)
{
	if (isnan(share))
		putc(',', out);
	else
		fprintf(out, ",%.9g", share);
}

int an_csv_sig(const rondo_trace *t, uint32_t sig, FILE *out)
{
	char buf[512], *big = NULL;
	int len = rondo_sig_format(t, sig, buf, sizeof(buf));

	if (len >= (int)sizeof(buf)) {
		big = malloc((size_t)len + 1);
		if (!big)
			return RONDO_E_NOMEM;
		rondo_sig_format(t, sig, big, (size_t)len + 1);
	}
	an_csv_text(out, len < 0 ? "" : big ? big : buf);
	free(big);
	return 0;
}

/* ",text of signature sig", as long as it is.  0 or RONDO_E_NOMEM. */
static int csv_sig(const rondo_trace *t, uint32_t sig, FILE *out)
{
	putc(',', out);
	return an_csv_sig(t, sig, out);
}

static void csv_rank_row(const struct an_row *r, const struct an_totals *tot,
			 FILE *out)
{
	fprintf(out, "%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", r->id, r->count,
		r->total_ns);
	if (tot->run_ns)
		fprintf(out, "%" PRIu64, tot->run_ns);
	csv_share(out, an_share((double)r->total_ns, tot->run_ns));
	csv_share(out, an_share((double)r->total_ns, tot->rank_mpi_ns));
	putc('\n', out);
}

static int csv_calls_row(const rondo_trace *t, enum an_by by,
			 const struct an_row *r, const struct an_totals *tot,
			 FILE *out)
{
	uint32_t func =
		by == AN_BY_SIGNATURE ? rondo_sig_func(t, r->id) : r->id;
	const char *name = rondo_func_name(t, func);
	int rc = 0;

	if (by == AN_BY_SIGNATURE)
		fprintf(out, "%" PRIu32 ",", r->id);
	an_csv_text(out, name ? name : "?");
	if (by == AN_BY_FUNCTION)
		fprintf(out, ",%" PRIu32, r->sigs);
	if (r->totals_only)
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%.3f,,,", r->count,
			r->total_ns, an_row_mean(r));
	else
		fprintf(out,
			",%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64
			",%.3f",
			r->count, r->total_ns, an_row_mean(r), r->min_ns,
			r->max_ns, an_row_sd(r));
	csv_share(out, an_share((double)r->total_ns, tot->mpi_ns));
	csv_share(out, an_share((double)r->total_ns,
				sat_mul(tot->run_ns, tot->ranks)));
	if (by == AN_BY_SIGNATURE)
		rc = csv_sig(t, r->id, out);
	putc('\n', out);
	return rc;
}

int an_stats_csv(const rondo_trace *t, enum an_by by, const struct an_row *rows,
		 uint32_t n, const struct an_totals *tot, FILE *out)
{
	static const char *const head[] = {
		"function,signatures,calls,total_ns,mean_ns,min_ns,max_ns,"
		"sd_ns,mpi_share,run_share",
		"sig,function,calls,total_ns,mean_ns,min_ns,max_ns,sd_ns,"
		"mpi_share,run_share,signature",
		"rank,calls,mpi_ns,run_ns,run_share,mpi_share"};
	int rc = 0;

	fprintf(out, "%s\n", head[by]);
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		if (by == AN_BY_RANK)
			csv_rank_row(&rows[i], tot, out);
		else
			rc = csv_calls_row(t, by, &rows[i], tot, out);
	}
	return rc < 0 ? rc : ferror(out) ? RONDO_E_IO : 0;
}

static void csv_contention_row(const rondo_trace *t,
			       const struct an_contention *c,
			       const struct an_totals *tot, FILE *out)
{
	const char *name = rondo_func_name(t, rondo_sig_func(t, c->sig));

	fprintf(out, "%" PRIu32 ",", c->sig);
	an_csv_text(out, name ? name : "?");
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, c->count,
		c->total_ns, c->min_ns, c->lost_ns);
	csv_share(out, an_share((double)c->lost_ns, tot->run_ns));
	csv_share(out, an_share((double)c->lost_ns,
				sat_mul(tot->run_ns, tot->ranks)));
	if (c->ranks == 0) {
		fputs(",,,,,,,,", out);
		return;
	}
	fprintf(out,
		",%" PRIu32 ",%.9g,%" PRIu32 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64
		",%.3f,%.3f",
		c->ranks, c->imbalance, c->max_rank, c->max_rank_ns,
		c->min_rank, c->min_rank_ns, c->mean_rank_ns, c->imbalance_ns);
}

int an_contention_csv(const rondo_trace *t, const struct an_contention *rows,
		      uint32_t n, const struct an_totals *tot, FILE *out)
{
	int rc = 0;

	fputs("sig,function,calls,total_ns,min_ns,lost_ns,score,lost_share,"
	      "ranks,imbalance,max_rank,max_rank_ns,min_rank,min_rank_ns,"
	      "mean_rank_ns,imbalance_ns,signature\n",
	      out);
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		csv_contention_row(t, &rows[i], tot, out);
		rc = csv_sig(t, rows[i].sig, out);
		putc('\n', out);
	}
	return rc < 0 ? rc : ferror(out) ? RONDO_E_IO : 0;
}
