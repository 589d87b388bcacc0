/*
 * test_precision.c - loop counts merged at a precision (tracer/
 * precision.c) on the grammars the Sequitur engine makes of programs of
 * known shape: the merged grammar must expand to the program with each
 * merged loop run its histogram's mean, rounded; the histograms must
 * count every loop run, sum its counts exactly and name the ranks of the
 * extremes; the grammar must stop growing with the time steps; and the
 * section must read back as it was written.  And signatures equal but
 * for their counts (tracer/params.c): which merge at a precision, the
 * value written for them, their histograms, the renumbering, rules made
 * one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "grammar.h"
#include "params.h"
#include "precision.h"

enum { A, B, C, D, E, NTERM };

struct seq {
	uint32_t *v;
	size_t n, cap;
};

static void push(struct seq *s, uint32_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("test_precision");
			exit(1);
		}
	}
	s->v[s->n++] = x;
}

/* A deterministic count in [lo, hi] for step t of rank r. */
static uint64_t draw(uint32_t t, uint32_t r, uint64_t lo, uint64_t hi)
{
	uint64_t x = (uint64_t)t * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)r + 1) * 0xbf58476d1ce4e5b9ull;

	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return lo + x % (hi - lo + 1);
}

/* The program: steps of A, a convergence loop of n (B, then E polled m
 * times when m > 0, C), D.  n in [lo, hi] per step (rank r's draws);
 * m in [mlo, mhi] per inner iteration. */
struct shape {
	uint32_t steps;
	uint64_t lo, hi, mlo, mhi;
};

/* Rank r's calls; with rep_n, rep_m nonzero, every loop run that many
 * times instead; sum_n, sum_m add the counts drawn. */
static void program(const struct shape *s, uint32_t r, uint64_t rep_n,
		    uint64_t rep_m, struct seq *out, uint64_t *sum_n,
		    uint64_t *sum_m, uint64_t *runs_m)
{
	for (uint32_t t = 0; t < s->steps; t++) {
		uint64_t n = draw(t, r, s->lo, s->hi);

		*sum_n += n;
		n = rep_n ? rep_n : n;
		push(out, A);
		for (uint64_t i = 0; i < n; i++) {
			uint64_t m = s->mhi ? draw(t * 1000 + (uint32_t)i,
						   r + 77, s->mlo, s->mhi)
					    : 0;

			push(out, B);
			if (s->mhi) {
				*sum_m += m;
				(*runs_m)++;
				m = rep_m ? rep_m : m;
			}
			for (uint64_t k = 0; k < m; k++)
				push(out, E);
			push(out, C);
		}
		push(out, D);
	}
}

/* The engine's grammar of sequence q. */
static void lossless(const struct seq *q, struct fmt_grammar *g)
{
	struct grammar *e = grammar_create();

	CHECK(e != NULL);
	for (size_t i = 0; i < q->n; i++)
		CHECK(grammar_append(e, q->v[i], 1) == 0);
	CHECK(grammar_flush(e) == 0);
	CHECK(grammar_export(e, g) == 0);
	grammar_free(e);
}

/* Adds grammar b's rules to a, each rule whose body a already has (its
 * rule references renumbered first) taken as that one, as the tracer's
 * merge interns rules; b's root's id in a. */
static uint32_t concat(struct fmt_grammar *a, const struct fmt_grammar *b)
{
	uint32_t *map = xalloc(b->nrules, sizeof(uint32_t)), id = 0;
	uint32_t nb = b->first[b->nrules],
		 na = a->nrules ? a->first[a->nrules] : 0;

	a->first = realloc(a->first,
			   sizeof(*a->first) * (a->nrules + b->nrules + 1));
	a->body = realloc(a->body, sizeof(*a->body) * (na + nb + 1));
	if (!a->first || !a->body)
		exit(1);
	a->first[0] = 0;
	for (uint32_t r = 0; r < b->nrules; r++) {
		uint32_t from = b->first[r], len = b->first[r + 1] - from;
		rondo_sym *x = &a->body[na];

		for (uint32_t k = 0; k < len; k++) {
			x[k] = b->body[from + k];
			if (RONDO_SYM_IS_RULE(x[k].sym))
				x[k].sym = RONDO_SYM_RULE |
					   map[x[k].sym & ~RONDO_SYM_RULE];
		}
		id = a->nrules;
		for (uint32_t q = 0; q < a->nrules; q++)
			if (a->first[q + 1] - a->first[q] == len &&
			    !memcmp(&a->body[a->first[q]], x,
				    sizeof(*x) * len)) {
				id = q;
				break;
			}
		if (id == a->nrules) {
			na += len;
			a->first[++a->nrules] = na;
		}
		map[r] = id;
	}
	free(map);
	return id;
}

static void expand(const struct fmt_grammar *g, uint32_t rule, struct seq *out)
{
	for (uint32_t k = g->first[rule]; k < g->first[rule + 1]; k++) {
		const rondo_sym *s = &g->body[k];

		for (uint64_t i = 0; i < s->count; i++)
			if (RONDO_SYM_IS_RULE(s->sym))
				expand(g, s->sym & ~RONDO_SYM_RULE, out);
			else
				push(out, s->sym);
	}
}

/* Rank r's root in a job's rank map of one rule, a symbol per rank. */
static uint32_t root_of(const struct fmt_rankmap *rm, uint32_t r)
{
	return rm->map.body[r].sym;
}

struct job {
	struct fmt_grammar g;
	struct fmt_rankmap rm;
	struct fmt_groupgaps gg;
	uint64_t sum_n[4], sum_m[4], runs_m[4];
};

/* A job of nranks ranks, rank r running s[r] (s[0] for all when one). */
static void job_make(struct job *j, const struct shape *s, uint32_t nranks,
		     int each)
{
	memset(j, 0, sizeof(*j));
	j->rm.nranks = nranks;
	j->rm.map.nrules = 1;
	j->rm.map.first = xalloc(2, sizeof(uint32_t));
	j->rm.map.body = xalloc(nranks, sizeof(rondo_sym));
	j->rm.map.first[1] = nranks;
	for (uint32_t r = 0; r < nranks; r++) {
		struct seq q = {0};
		struct fmt_grammar rg;

		program(each ? &s[r] : s, r, 0, 0, &q, &j->sum_n[r],
			&j->sum_m[r], &j->runs_m[r]);
		lossless(&q, &rg);
		j->rm.map.body[r] = (rondo_sym){concat(&j->g, &rg), 0, 1};
		fmt_grammar_free(&rg);
		free(q.v);
	}
	/* the groups' gaps: one entry per rank's root */
	j->gg.n = nranks;
	j->gg.root = xalloc(nranks, sizeof(uint32_t));
	j->gg.at = xalloc(nranks + 1, sizeof(uint64_t));
	j->gg.e = xalloc(nranks, sizeof(struct fmt_gapent));
	for (uint32_t r = 0; r < nranks; r++) {
		j->gg.root[r] = root_of(&j->rm, r);
		j->gg.at[r + 1] = r + 1;
		j->gg.e[r] = (struct fmt_gapent){A, 1 + r, 100 + r};
	}
}

static void job_free(struct job *j)
{
	fmt_grammar_free(&j->g);
	fmt_rankmap_free(&j->rm);
	fmt_groupgaps_free(&j->gg);
}

/* The merged class of histogram h's mean, rounded. */
static uint64_t mean(const struct fmt_hist *h)
{
	return (h->sum + h->n / 2) / h->n;
}

/* Every site's symbol carries its histogram's mean. */
static void check_sites(const struct fmt_grammar *g, const struct fmt_hists *h)
{
	for (uint32_t i = 0; i < h->nsites; i++) {
		const struct fmt_hsite *s = &h->site[i];

		CHECK(s->rule < g->nrules && s->hist < h->n);
		CHECK(s->pos < g->first[s->rule + 1] - g->first[s->rule]);
		CHECK(i == 0 || s->rule > h->site[i - 1].rule ||
		      (s->rule == h->site[i - 1].rule &&
		       s->pos > h->site[i - 1].pos));
		/* the count read back within (100 - P) % of every count */
		for (uint32_t k = 0; k < h->h[s->hist].nbins; k++) {
			const struct fmt_hbin *b = &h->h[s->hist].bin[k];
			uint64_t c = g->body[g->first[s->rule] + s->pos].count;
			uint64_t tol = 100 - h->precision;

			CHECKF((c > b->lo ? c - b->lo : b->lo - c) * 100 <=
					       tol * b->lo &&
				       (c > b->hi ? c - b->hi : b->hi - c) *
						       100 <=
					       tol * b->hi,
			       "site %u: count %llu, bin %llu..%llu", i,
			       (unsigned long long)c, (unsigned long long)b->lo,
			       (unsigned long long)b->hi);
		}
		CHECKF(g->body[g->first[s->rule] + s->pos].count ==
			       mean(&h->h[s->hist]),
		       "site %u: count %llu, mean %llu", i,
		       (unsigned long long)g->body[g->first[s->rule] + s->pos]
			       .count,
		       (unsigned long long)mean(&h->h[s->hist]));
	}
}

/* The grammar, rank map and section read back as written. */
static void check_roundtrip(const struct job *j, const struct fmt_hists *h)
{
	struct fmt_buf b = {0}, m = {0}, x = {0};
	struct fmt_grammar g2;
	struct fmt_rankmap rm2;
	struct fmt_hists h2;
	struct fmt_err e;

	fmt_grammar_encode(&b, &j->g);
	fmt_rankmap_encode(&m, &j->rm);
	fmt_hists_encode(&x, h);
	CHECK(fmt_grammar_decode(&g2, b.data, b.len, NTERM, NULL, &e) == 0);
	CHECK(fmt_rankmap_decode(&rm2, m.data, m.len, j->g.nrules, &e) == 0);
	CHECKF(fmt_hists_decode(&h2, x.data, x.len, &j->g, j->rm.nranks, &e) ==
		       0,
	       "%s", e.msg);
	CHECK(h2.precision == h->precision && h2.n == h->n &&
	      h2.nsites == h->nsites);
	for (uint32_t i = 0; i < h2.n && i < h->n; i++) {
		CHECK(h2.h[i].n == h->h[i].n && h2.h[i].sum == h->h[i].sum);
		CHECK(h2.h[i].min == h->h[i].min && h2.h[i].max == h->h[i].max);
		CHECK(h2.h[i].min_rank == h->h[i].min_rank &&
		      h2.h[i].max_rank == h->h[i].max_rank);
		CHECK(h2.h[i].nbins == h->h[i].nbins);
		for (uint32_t k = 0; k < h2.h[i].nbins && k < h->h[i].nbins;
		     k++)
			CHECK(!memcmp(&h2.h[i].bin[k], &h->h[i].bin[k],
				      sizeof(struct fmt_hbin)));
	}
	for (uint32_t i = 0; i < h2.nsites && i < h->nsites; i++)
		CHECK(!memcmp(&h2.site[i], &h->site[i], sizeof(*h->site)));
	CHECK(g2.nrules == j->g.nrules);
	/* every cut of the section fails, and says so */
	for (size_t n = 0; n < x.len; n++) {
		struct fmt_hists h3;

		CHECK(fmt_hists_decode(&h3, x.data, n, &j->g, j->rm.nranks,
				       &e) != 0);
	}
	fmt_grammar_free(&g2);
	fmt_rankmap_free(&rm2);
	fmt_hists_free(&h2);
	fmt_buf_free(&b);
	fmt_buf_free(&m);
	fmt_buf_free(&x);
}

/* A convergence loop of 38 to 42 iterations: at precision 90 one
 * histogram, its sum exact, the steps folded into one loop. */
static void test_converge(uint32_t steps)
{
	struct shape s = {steps, 38, 42, 0, 0};
	struct job j;
	struct fmt_hists h;
	struct seq got = {0}, want = {0};
	uint64_t u = 0, v = 0;

	job_make(&j, &s, 1, 0);
	CHECK(j.g.first[j.g.nrules] > steps / 4); /* lossless: it grows */
	CHECK(precision_apply(&j.g, &j.rm, &j.gg, NTERM, 90, 0, &h) == 0);
	CHECKF(h.n == 1, "%u histograms", h.n);
	if (h.n == 1) {
		CHECK(h.h[0].n == steps && h.h[0].sum == j.sum_n[0]);
		CHECK(h.h[0].min == 38 && h.h[0].max == 42);
		CHECK(h.h[0].nbins == 5);
		CHECK(h.h[0].kind == FMT_HIST_COUNT);
	}
	CHECKF(j.g.first[j.g.nrules] <= 16,
	       "%u symbols after merging at %u steps", j.g.first[j.g.nrules],
	       steps);
	check_sites(&j.g, &h);
	expand(&j.g, root_of(&j.rm, 0), &got);
	program(&s, 0, h.n ? mean(&h.h[0]) : 1, 0, &want, &u, &v, &v);
	CHECK(got.n == want.n &&
	      !memcmp(got.v, want.v, sizeof(*got.v) * got.n));
	CHECK(j.gg.n == 1 && j.gg.root[0] == root_of(&j.rm, 0));
	check_roundtrip(&j, &h);
	fmt_hists_free(&h);
	free(got.v);
	free(want.v);
	job_free(&j);
}

/* Precision 100, and counts further apart than the precision: nothing
 * changes. */
static void test_unchanged(uint32_t precision)
{
	struct shape s = {300, 38, 42, 0, 0};
	struct job j;
	struct fmt_hists h;
	struct fmt_buf before = {0}, after = {0};

	job_make(&j, &s, 1, 0);
	fmt_grammar_encode(&before, &j.g);
	CHECK(precision_apply(&j.g, &j.rm, &j.gg, NTERM, precision, 0, &h) ==
	      0);
	CHECK(h.n == 0 && h.nsites == 0 && h.precision == precision);
	fmt_grammar_encode(&after, &j.g);
	CHECK(before.len == after.len &&
	      !memcmp(before.data, after.data, before.len));
	fmt_buf_free(&before);
	fmt_buf_free(&after);
	fmt_hists_free(&h);
	job_free(&j);
}

/* Ranks drawing their own counts, rank 2 converging slower: each rank's
 * calls read back with its class's mean; totals exact over the ranks; the
 * extremes' ranks named; the groups' gaps under their new roots. */
static void test_ranks(void)
{
	struct shape s[3] = {
		{500, 38, 41, 0, 0}, {500, 38, 41, 0, 0}, {500, 60, 64, 0, 0}};
	struct job j;
	struct fmt_hists h;
	const struct fmt_hist *lo = NULL, *hi = NULL;

	job_make(&j, s, 3, 1);
	CHECK(precision_apply(&j.g, &j.rm, &j.gg, NTERM, 90, 0, &h) == 0);
	CHECKF(h.n == 2, "%u histograms", h.n);
	for (uint32_t i = 0; i < h.n; i++)
		if (h.h[i].min == 38)
			lo = &h.h[i];
		else if (h.h[i].min == 60)
			hi = &h.h[i];
	CHECK(lo && hi);
	if (lo && hi) {
		CHECK(lo->n == 1000 && lo->sum == j.sum_n[0] + j.sum_n[1]);
		CHECK(lo->max == 41 && lo->min_rank == 0 && lo->max_rank == 0);
		CHECK(hi->n == 500 && hi->sum == j.sum_n[2] && hi->max == 64);
		CHECK(hi->min_rank == 2 && hi->max_rank == 2);
	}
	check_sites(&j.g, &h);
	for (uint32_t r = 0; r < 3 && lo && hi; r++) {
		struct seq got = {0}, want = {0};
		uint64_t u = 0;

		expand(&j.g, root_of(&j.rm, r), &got);
		program(&s[r], r, mean(r < 2 ? lo : hi), 0, &want, &u, &u, &u);
		CHECKF(got.n == want.n &&
			       !memcmp(got.v, want.v, sizeof(*got.v) * got.n),
		       "rank %u", r);
		free(got.v);
		free(want.v);
	}
	CHECK(j.g.first[j.g.nrules] <= 40);
	/* the gaps stay with their ranks' roots, in order */
	CHECK(j.gg.n == 3);
	for (uint32_t r = 0; r < 3 && j.gg.n == 3; r++) {
		CHECK(j.gg.root[r] == root_of(&j.rm, r));
		CHECK(j.gg.e[r].calls == 1 + r && j.gg.e[r].ns == 100 + r);
		CHECK(r == 0 || j.gg.root[r] > j.gg.root[r - 1]);
	}
	check_roundtrip(&j, &h);
	fmt_hists_free(&h);
	job_free(&j);
}

/* A convergence loop whose iterations poll 20 to 22 times: the polls
 * merge first, then the loop whose body they made alike (a second pass). */
static void test_nested(uint32_t precision)
{
	struct shape s = {400, 38, 42, 20, 22};
	struct job j;
	struct fmt_hists h;
	const struct fmt_hist *n = NULL, *m = NULL;
	struct seq got = {0}, want = {0};
	uint64_t u = 0;

	job_make(&j, &s, 1, 0);
	CHECK(precision_apply(&j.g, &j.rm, &j.gg, NTERM, precision, 0, &h) ==
	      0);
	CHECKF(h.n == 2, "%u histograms", h.n);
	for (uint32_t i = 0; i < h.n; i++)
		if (h.h[i].min >= 38)
			n = &h.h[i];
		else
			m = &h.h[i];
	CHECK(n && m);
	if (n && m) {
		/* the polls merged first, counted as the program ran them */
		CHECK(m->n == j.runs_m[0] && m->sum == j.sum_m[0]);
		CHECK(m->min == 20 && m->max == 22);
		CHECK(n->n == s.steps && n->sum == j.sum_n[0]);
		expand(&j.g, root_of(&j.rm, 0), &got);
		program(&s, 0, mean(n), mean(m), &want, &u, &u, &u);
		CHECK(got.n == want.n &&
		      !memcmp(got.v, want.v, sizeof(*got.v) * got.n));
	}
	CHECKF(j.g.first[j.g.nrules] <= 16, "%u symbols",
	       j.g.first[j.g.nrules]);
	check_sites(&j.g, &h);
	check_roundtrip(&j, &h);
	free(got.v);
	free(want.v);
	fmt_hists_free(&h);
	job_free(&j);
}

/* An MPI_Isend signature's arguments into b. */
static void isend_to(struct fmt_buf *b, int64_t count, int64_t dest,
		     int64_t tag, uint64_t req)
{
	fmt_arg_put_list(b, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(b, RONDO_ARG_INT, 0);
	fmt_arg_put_sint(b, RONDO_ARG_INT, 0);
	fmt_arg_put_sint(b, RONDO_ARG_INT, count);
	fmt_arg_put_uint(b, RONDO_ARG_CONST, 3); /* a datatype */
	fmt_arg_put_sint(b, RONDO_ARG_RANK_REL, dest);
	fmt_arg_put_sint(b, RONDO_ARG_TAG, tag);
	fmt_arg_put_uint(b, RONDO_ARG_CONST, 0); /* a communicator */
	fmt_arg_put_uint(b, RONDO_ARG_REQUEST, req);
}

static void isend(struct fmt_buf *b, int64_t count, int64_t tag, uint64_t req)
{
	isend_to(b, count, 1, tag, req);
}

/* Argument k of sig as a value. */
static rondo_arg arg_of(const struct fmt_sig *sig, uint32_t k)
{
	struct fmt_cur c;
	rondo_arg a = {0};

	fmt_cur_init(&c, sig->args, sig->len, NULL, NULL);
	for (uint32_t i = 0; i <= k; i++)
		if (fmt_arg_get(&c, &a) < 0)
			memset(&a, 0, sizeof(a));
	return a;
}

/* Merged argument a: its histogram and its value written. */
static int merged_of(rondo_arg a, uint64_t *hist, int64_t *value)
{
	struct fmt_cur c;
	rondo_arg h, v;

	if (a.kind != RONDO_ARG_MERGED || a.wire != RONDO_WIRE_LIST || a.n != 2)
		return 0;
	fmt_cur_init(&c, a.data, a.size, NULL, NULL);
	if (fmt_arg_get(&c, &h) < 0 || fmt_arg_get(&c, &v) < 0 ||
	    h.kind != RONDO_ARG_INT ||
	    (v.kind != RONDO_ARG_INT && v.kind != RONDO_ARG_TAG))
		return 0;
	*hist = h.u;
	*value = v.i;
	return 1;
}

static void test_params(void)
{
	static const char *const isend_p[] = {
		"buf", "count", "datatype", "dest", "tag", "comm", "request"};
	static const unsigned char isend_o[] = {0, 0, 0, 0, 0, 0, 1};
	static const char *const wait_p[] = {"count", "array_of_requests",
					     "array_of_statuses"};
	static const unsigned char wait_o[] = {0, 1, 1};
	struct fmt_func funcs[2] = {
		{(char *)(uintptr_t) "MPI_Isend", 7,
		 (char **)(uintptr_t)isend_p, (uint8_t *)(uintptr_t)isend_o},
		{(char *)(uintptr_t) "MPI_Waitall", 3,
		 (char **)(uintptr_t)wait_p, (uint8_t *)(uintptr_t)wait_o}};
	/* sig: count, tag, request; 0 tag for the Waitalls' counts */
	static const int64_t v[9][3] = {{64, 0, 0},  {66, 0, 0},  {70, 0, 0},
					{100, 0, 0}, {104, 0, 0}, {64, 1, 0},
					{4, -1, 0},  {5, -1, 0},  {65, 0, 1}};
	static const uint64_t calls[9] = {10, 20, 10, 5, 5, 1, 1, 1, 1};
	static const uint32_t first[9] = {0, 1, 2, 0, 3, 0, 0, 0, 0};
	static const uint32_t to90[9] = {0, 0, 0, 1, 1, 2, 3, 4, 5};
	struct fmt_buf b[9] = {{0}};
	struct fmt_sig sig[9];
	struct fmt_cst cst = {9, malloc(sizeof(sig)), NULL};
	struct params_plan pl;
	struct fmt_hists hs = {0};
	uint64_t h;
	int64_t w;

	for (int s = 0; s < 9; s++) {
		if (v[s][1] < 0) {
			fmt_arg_put_sint(&b[s], RONDO_ARG_INT, v[s][0]);
			fmt_arg_put_list(&b[s], RONDO_ARG_ARRAY, 0);
			fmt_arg_put_list(&b[s], RONDO_ARG_ARRAY, 0);
		} else {
			isend(&b[s], v[s][0], v[s][1], (uint64_t)v[s][2]);
		}
		sig[s] = (struct fmt_sig){v[s][1] < 0, v[s][1] < 0 ? 3 : 7,
					  (uint32_t)b[s].len, b[s].data};
	}
	CHECK(cst.sig != NULL);
	memcpy(cst.sig, sig, sizeof(sig)); /* params_write frees it */
	/* at 90: {64, 66, 70} and {100, 104}; the other tag, the other
	 * request and the Waitalls' counts stay as they are */
	CHECK(params_plan(&pl, &cst, funcs, 2, calls, first, 90, 0) == 0);
	CHECK(pl.nclasses == 2 && pl.nmerged == 5 && pl.nnew == 6);
	CHECK(pl.nvalues == 50);
	for (int s = 0; s < 9; s++)
		CHECKF(pl.to[s] == to90[s], "sig %d to %u", s, pl.to[s]);
	/* a loop histogram and its site, which the values' go before */
	hs.n = 1;
	hs.h = calloc(1, sizeof(*hs.h));
	hs.nsites = 1;
	hs.site = calloc(1, sizeof(*hs.site));
	CHECK(hs.h && hs.site);
	CHECK(params_write(&pl, &cst, &hs) == 0);
	CHECK(cst.n == 6 && hs.n == 3 && hs.site[0].hist == 2);
	/* (64 x10 + 66 x20 + 70 x10) / 40 = 66.5: 67 */
	CHECK(merged_of(arg_of(&cst.sig[0], 1), &h, &w) && h == 0 && w == 67);
	CHECK(hs.h[0].kind == FMT_HIST_PARAM && hs.h[0].n == 40 &&
	      hs.h[0].sum == 2660 && hs.h[0].min == 64 && hs.h[0].max == 70 &&
	      hs.h[0].min_rank == 0 && hs.h[0].max_rank == 2 &&
	      hs.h[0].nbins == 3 && hs.h[0].bin[1].lo == 66 &&
	      hs.h[0].bin[1].n == 20);
	CHECK(merged_of(arg_of(&cst.sig[1], 1), &h, &w) && h == 1 && w == 102);
	CHECK(hs.h[1].n == 10 && hs.h[1].sum == 1020 && hs.h[1].max_rank == 3);
	/* the other arguments as they were; the others whole */
	CHECK(arg_of(&cst.sig[0], 4).i == 0 && arg_of(&cst.sig[0], 6).u == 0);
	CHECK(cst.sig[2].len == b[5].len &&
	      !memcmp(cst.sig[2].args, b[5].data, b[5].len));
	CHECK(arg_of(&cst.sig[4], 0).i == 5 && cst.sig[4].func == 1);
	free(cst.sig);
	params_free(&pl);
	fmt_hists_free(&hs);

	/* at 0 all counts of a shape are one: their mean, 73.6: 74 */
	cst = (struct fmt_cst){9, malloc(sizeof(sig)), NULL};
	CHECK(cst.sig != NULL);
	memcpy(cst.sig, sig, sizeof(sig));
	memset(&hs, 0, sizeof(hs));
	CHECK(params_plan(&pl, &cst, funcs, 2, calls, first, 0, 0) == 0);
	CHECK(pl.nclasses == 1 && pl.nnew == 5 && pl.ntags == 0);
	CHECK(params_write(&pl, &cst, &hs) == 0);
	CHECK(merged_of(arg_of(&cst.sig[0], 1), &h, &w) && w == 74);
	free(cst.sig);
	params_free(&pl);
	fmt_hists_free(&hs);

	/* tags too (RONDO_PRECISION_PARAMS=tags): at 90 tags 0 and 1 are
	 * not within, the plan is the one without; at 0 the Isend of tag 1
	 * joins the others, its tags a histogram of 0 x50 and 1 x1 written
	 * as the least value within of both, 1, of kind TAG */
	cst = (struct fmt_cst){9, sig, NULL};
	CHECK(params_plan(&pl, &cst, funcs, 2, calls, first, 90, PARAMS_TAGS) ==
	      0);
	CHECK(pl.nclasses == 2 && pl.nmerged == 5 && pl.ntags == 0);
	params_free(&pl);
	cst = (struct fmt_cst){9, malloc(sizeof(sig)), NULL};
	CHECK(cst.sig != NULL);
	memcpy(cst.sig, sig, sizeof(sig));
	memset(&hs, 0, sizeof(hs));
	CHECK(params_plan(&pl, &cst, funcs, 2, calls, first, 0, PARAMS_TAGS) ==
	      0);
	CHECK(pl.nclasses == 1 && pl.nmerged == 6 && pl.nnew == 4 &&
	      pl.ntags == 1 && pl.to[5] == 0);
	CHECK(params_write(&pl, &cst, &hs) == 0);
	CHECK(merged_of(arg_of(&cst.sig[0], 4), &h, &w) && w == 1 &&
	      arg_of(&cst.sig[0], 4).kind == RONDO_ARG_MERGED);
	CHECK(hs.h[h].n == 51 && hs.h[h].sum == 1 && hs.h[h].min == 0 &&
	      hs.h[h].max == 1);
	free(cst.sig);
	params_free(&pl);
	fmt_hists_free(&hs);
	/* the request pools leave tags out only when they may merge */
	CHECK(params_mergeable("MPI_Isend", "tag", RONDO_ARG_TAG, PARAMS_TAGS));
	CHECK(!params_mergeable("MPI_Isend", "tag", RONDO_ARG_TAG, 0));
	CHECK(!params_mergeable("MPI_Intercomm_create", "tag", RONDO_ARG_TAG,
				PARAMS_TAGS));
	CHECK(params_mergeable("MPI_Sendrecv", "recvtag", RONDO_ARG_TAG,
			       PARAMS_TAGS));
	CHECK(!params_mergeable("MPI_Waitall", "count", RONDO_ARG_INT, 0));
	CHECK(params_mergeable("MPI_Irecv", "source", RONDO_ARG_RANK_REL,
			       PARAMS_PEERS));
	CHECK(!params_mergeable("MPI_Bcast", "root", RONDO_ARG_RANK_REL,
				PARAMS_PEERS));
	CHECK(!params_mergeable("MPI_Isend", "dest", RONDO_ARG_RANK_REL,
				PARAMS_TAGS));

	/* peers (RONDO_PRECISION_PARAMS=peers): at 0, dest -1 x10 and -3
	 * x10 are one, written -2, their histogram how far (1 to 3); +1 is
	 * on the other side, apart */
	{
		static const int64_t dest[3] = {-1, -3, 1};
		static const uint64_t pc[3] = {10, 10, 5};
		static const uint32_t pf[3] = {0, 1, 0};
		struct fmt_buf pb[3] = {{0}};
		struct fmt_sig ps[3];

		for (int k = 0; k < 3; k++) {
			isend_to(&pb[k], 64, dest[k], 0, 0);
			ps[k] = (struct fmt_sig){0, 7, (uint32_t)pb[k].len,
						 pb[k].data};
		}
		cst = (struct fmt_cst){3, malloc(sizeof(ps)), NULL};
		CHECK(cst.sig != NULL);
		memcpy(cst.sig, ps, sizeof(ps));
		memset(&hs, 0, sizeof(hs));
		CHECK(params_plan(&pl, &cst, funcs, 2, pc, pf, 0,
				  PARAMS_PEERS) == 0);
		CHECK(pl.nclasses == 1 && pl.nmerged == 2 && pl.npeers == 1 &&
		      pl.nnew == 2 && pl.to[0] == pl.to[1] &&
		      pl.to[2] != pl.to[0]);
		CHECK(params_write(&pl, &cst, &hs) == 0);
		{
			rondo_arg a = arg_of(&cst.sig[pl.to[0]], 3), x;
			struct fmt_cur c;

			CHECK(a.kind == RONDO_ARG_MERGED);
			fmt_cur_init(&c, a.data, a.size, NULL, NULL);
			CHECK(fmt_arg_get(&c, &x) == 0 &&
			      fmt_arg_get(&c, &x) == 0 &&
			      x.kind == RONDO_ARG_RANK_REL && x.i == -2);
		}
		CHECK(hs.h[0].n == 20 && hs.h[0].sum == 40 &&
		      hs.h[0].min == 1 && hs.h[0].max == 3);
		CHECK(arg_of(&cst.sig[pl.to[2]], 3).kind ==
			      RONDO_ARG_RANK_REL &&
		      arg_of(&cst.sig[pl.to[2]], 3).i == 1);
		free(cst.sig);
		params_free(&pl);
		fmt_hists_free(&hs);
		for (int k = 0; k < 3; k++)
			fmt_buf_free(&pb[k]);
	}

	/* at 99 nothing is within */
	cst = (struct fmt_cst){9, sig, NULL};
	CHECK(params_plan(&pl, &cst, funcs, 2, calls, first, 99, 0) == 0);
	CHECK(pl.nclasses == 0);
	params_free(&pl);
	for (int s = 0; s < 9; s++)
		fmt_buf_free(&b[s]);

	/* rules alike once their calls are: R1 is R0, R2 names R0 twice */
	{
		uint32_t first_r[4] = {0, 2, 4, 6}, canon[3];
		rondo_sym body[6] = {{0, 0, 1},
				     {1, 0, 1},
				     {0, 0, 1},
				     {1, 0, 1},
				     {RONDO_SYM_RULE | 0, 0, 2},
				     {RONDO_SYM_RULE | 1, 0, 3}};
		struct fmt_grammar g = {3, first_r, body};

		CHECK(params_same_rules(&g, canon) == 1);
		CHECK(canon[0] == 0 && canon[1] == 0 && canon[2] == 2);
		CHECK(body[5].sym == (RONDO_SYM_RULE | 0) &&
		      body[5].count == 3);
	}
}

int main(void)
{
	test_converge(200);
	test_converge(2000);
	test_converge(20000);
	test_unchanged(100);
	test_unchanged(99);
	test_ranks();
	test_nested(90);
	test_nested(0);
	test_params();
	return check_done("test_precision");
}
