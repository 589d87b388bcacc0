/*
 * test_merge.c - the cross-rank merge against rank tables and rank
 * grammars whose merged form is known: global signature ids in order of
 * first appearance, one stored grammar per distinct rank behaviour, every
 * rank expanding back to exactly what it called, and a rank map that stays
 * the same size as the job grows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "grammar.h"
#include "merge.h"
#include "util.h"

/* ---- signature tables ---------------------------------------------------- */

/* A rank's table being built: argument bytes in one buffer, offsets until
 * the buffer stops moving. */
struct table_b {
	struct fmt_cst cst;
	struct fmt_buf bytes;
	size_t *off;
	uint32_t cap;
};

/* A signature with no argument (v < 0), one integer v, or when big is set
 * a string of v bytes. */
static void tb_add(struct table_b *t, uint32_t func, int64_t v, int big)
{
	struct fmt_buf a = {0};
	uint32_t nargs = v >= 0;

	if (big) {
		char *s = xalloc((size_t)v, 1);

		memset(s, 'x', (size_t)v);
		fmt_arg_put_bytes(&a, RONDO_ARG_STRING, s, (size_t)v);
		free(s);
	} else if (v >= 0) {
		fmt_arg_put_sint(&a, RONDO_ARG_INT, v);
	}
	if (t->cst.n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->cst.sig = realloc(t->cst.sig, t->cap * sizeof(*t->cst.sig));
		t->off = realloc(t->off, t->cap * sizeof(*t->off));
		if (!t->cst.sig || !t->off)
			exit(1);
	}
	t->cst.sig[t->cst.n] =
		(struct fmt_sig){func, nargs, (uint32_t)a.len, NULL};
	t->off[t->cst.n++] = t->bytes.len;
	fmt_put_bytes(&t->bytes, a.data, a.len);
	if (a.oom || t->bytes.oom)
		exit(1);
	fmt_buf_free(&a);
}

static const struct fmt_cst *tb_done(struct table_b *t)
{
	for (uint32_t i = 0; i < t->cst.n; i++)
		t->cst.sig[i].args = t->bytes.data + t->off[i];
	return &t->cst;
}

/* Frees the table after scribbling over its bytes: the merge must have
 * copied them. */
static void tb_free(struct table_b *t)
{
	if (t->bytes.data)
		memset(t->bytes.data, 0xee, t->bytes.len);
	fmt_buf_free(&t->bytes);
	free(t->cst.sig);
	free(t->off);
	memset(t, 0, sizeof(*t));
}

static int sig_equal(const struct fmt_sig *a, const struct fmt_sig *b)
{
	return a->func == b->func && a->nargs == b->nargs && a->len == b->len &&
	       (!a->len || !memcmp(a->args, b->args, a->len));
}

/* The signature (func, v) as its own one-entry table, for comparisons. */
static int sig_is(const struct fmt_sig *s, uint32_t func, int64_t v)
{
	struct table_b t = {0};
	int same;

	tb_add(&t, func, v, 0);
	same = sig_equal(s, &tb_done(&t)->sig[0]);
	tb_free(&t);
	return same;
}

static void check_cst_roundtrip(const struct fmt_cst *c, uint32_t nfuncs)
{
	struct fmt_buf b = {0};
	struct fmt_cst d = {0};
	struct fmt_err e = {0};
	int rc;

	fmt_cst_encode(&b, c);
	CHECK(!b.oom);
	rc = fmt_cst_decode(&d, b.data, b.len, nfuncs, &e);
	CHECKF(rc == 0, "decode: %s", e.msg);
	CHECK(d.n == c->n);
	for (uint32_t i = 0; rc == 0 && i < c->n && i < d.n; i++)
		CHECKF(sig_equal(&d.sig[i], &c->sig[i]), "signature %u", i);
	fmt_cst_free(&d);
	fmt_buf_free(&b);
}

/* Per rank: (function, argument) pairs, -1 for no argument. */
static const int64_t three_ranks[3][5][2] = {
	{{0, 1}, {1, 1}, {0, 2}},
	{{1, 1}, {0, 3}, {0, 1}, {2, -1}},
	{{0, 2}, {2, -1}, {1, 2}, {0, 3}, {1, 1}},
};
static const uint32_t three_ranks_n[3] = {3, 4, 5};

static void test_cst_three_ranks(void)
{
	static const int64_t want[][2] = {{0, 1}, {1, 1},  {0, 2},
					  {0, 3}, {2, -1}, {1, 2}};
	static const uint32_t want_map[3][5] = {
		{0, 1, 2}, {1, 3, 0, 4}, {2, 4, 5, 3, 1}};
	struct merge *m = merge_create();
	const struct fmt_cst *g;
	uint32_t map[5];

	CHECK(m != NULL);
	if (!m)
		return;
	for (int r = 0; r < 3; r++) {
		struct table_b t = {0};

		for (uint32_t i = 0; i < three_ranks_n[r]; i++)
			tb_add(&t, (uint32_t)three_ranks[r][i][0],
			       three_ranks[r][i][1], 0);
		CHECK(merge_add_cst(m, tb_done(&t), map) == 0);
		for (uint32_t i = 0; i < t.cst.n; i++)
			CHECKF(map[i] == want_map[r][i],
			       "rank %d sig %u -> %u, want %u", r, i, map[i],
			       want_map[r][i]);
		/* Same argument bytes, other function: another signature. */
		if (r == 0)
			CHECK(map[0] != map[1]);
		tb_free(&t);
	}
	g = merge_cst(m);
	CHECK(g->n == 6);
	for (uint32_t i = 0; i < g->n && i < 6; i++)
		CHECKF(sig_is(&g->sig[i], (uint32_t)want[i][0], want[i][1]),
		       "global signature %u", i);
	check_cst_roundtrip(g, 3);
	merge_free(m);
}

/* Every 20000th signature holds more bytes than an arena chunk. */
static int64_t big_v(int64_t i)
{
	return i % 20000 == 1 ? 70000 + i / 7 : i / 7;
}

/* Enough signatures to grow the index many times and fill many arena
 * chunks, with a few bigger than a chunk; a second rank lists them in
 * reverse with new ones in between. */
static void test_cst_large(void)
{
	enum { N = 100000 };
	struct table_b a = {0}, b = {0};
	struct merge *m = merge_create();
	uint32_t *map = xalloc(2 * N, sizeof(*map));
	const struct fmt_cst *g;
	uint32_t bad = 0;

	CHECK(m != NULL);
	if (!m)
		return;
	for (int64_t i = 0; i < N; i++)
		tb_add(&a, (uint32_t)(i % 7), big_v(i), i % 20000 == 1);
	for (int64_t i = N - 1; i >= 0; i--) {
		tb_add(&b, (uint32_t)(i % 7), big_v(i), i % 20000 == 1);
		tb_add(&b, 7, i, 0);
	}
	CHECK(merge_add_cst(m, tb_done(&a), map) == 0);
	for (uint32_t i = 0; i < N; i++)
		bad += map[i] != i;
	CHECK(merge_add_cst(m, tb_done(&b), map) == 0);
	for (uint32_t k = 0; k < N; k++) {
		bad += map[2 * k] != N - 1 - k;
		bad += map[2 * k + 1] != N + k;
	}
	CHECKF(bad == 0, "%u wrong map entries", bad);
	g = merge_cst(m);
	CHECK(g->n == 2 * N);
	bad = 0;
	for (uint32_t i = 0; g->n == 2 * N && i < N; i++) {
		bad += !sig_equal(&g->sig[i], &a.cst.sig[i]);
		bad += !sig_equal(&g->sig[N + i], &b.cst.sig[2 * i + 1]);
	}
	CHECKF(bad == 0, "%u wrong signatures", bad);
	check_cst_roundtrip(g, 8);
	tb_free(&a);
	tb_free(&b);
	free(map);
	merge_free(m);
}

/* ---- rank grammars ------------------------------------------------------- */

struct seq {
	uint32_t *v;
	size_t n, cap;
};

static void seq_push(struct seq *s, uint32_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			exit(1);
	}
	s->v[s->n++] = x;
}

/* What a rank calls; terminals stay below NTERM. */
#define NTERM 64
typedef void (*pattern_fn)(struct seq *s, uint32_t rank, uint32_t nranks);

static void loop(struct seq *s, const uint32_t *body, int n, int iters)
{
	seq_push(s, 0);
	for (int it = 0; it < iters; it++)
		for (int k = 0; k < n; k++)
			seq_push(s, body[k]);
	seq_push(s, 1);
}

static void pat_same(struct seq *s, uint32_t rank, uint32_t nranks)
{
	static const uint32_t body[] = {2, 3, 4, 4, 5};

	(void)rank, (void)nranks;
	loop(s, body, 5, 40);
}

static void pat_parity(struct seq *s, uint32_t rank, uint32_t nranks)
{
	static const uint32_t even[] = {2, 3, 6}, odd[] = {3, 2, 7, 7};

	(void)nranks;
	if (rank % 2)
		loop(s, odd, 4, 25);
	else
		loop(s, even, 3, 30);
}

/* The first half of the job does one thing, the second another. */
static void pat_halves(struct seq *s, uint32_t rank, uint32_t nranks)
{
	static const uint32_t lo[] = {2, 8}, hi[] = {9, 2};

	loop(s, rank < nranks / 2 ? lo : hi, 2, 17);
}

/* A 1-D halo exchange: the end ranks have one neighbour. */
static void pat_stencil(struct seq *s, uint32_t rank, uint32_t nranks)
{
	uint32_t body[5];
	int n = 0;

	if (rank > 0)
		body[n++] = 10, body[n++] = 11;
	if (rank + 1 < nranks)
		body[n++] = 12, body[n++] = 13;
	body[n++] = 14;
	loop(s, body, n, 20);
}

/* A 2-D halo exchange on an 8x8 grid: corners, edges and the interior
 * each talk to their own set of neighbours. */
static void pat_grid(struct seq *s, uint32_t rank, uint32_t nranks)
{
	uint32_t x = rank % 8, y = rank / 8, body[9];
	int n = 0;

	(void)nranks;
	if (x > 0)
		body[n++] = 20;
	if (x < 7)
		body[n++] = 21;
	if (y > 0)
		body[n++] = 22;
	if (y < 7)
		body[n++] = 23;
	body[n++] = 24;
	loop(s, body, n, 12);
}

/* Every rank different: the rank's own id in its loop. */
static void pat_distinct(struct seq *s, uint32_t rank, uint32_t nranks)
{
	uint32_t body[] = {2, 30 + rank % 32, 3};

	(void)nranks;
	loop(s, body, rank < 32 ? 3 : 2, 5 + (int)rank);
}

static void expand(const struct fmt_grammar *g, uint32_t rule, struct seq *out)
{
	for (uint32_t k = g->first[rule]; k < g->first[rule + 1]; k++) {
		const rondo_sym *s = &g->body[k];

		for (uint64_t c = 0; c < s->count; c++)
			if (RONDO_SYM_IS_RULE(s->sym))
				expand(g, RONDO_SYM_ID(s->sym), out);
			else
				seq_push(out, s->sym);
	}
}

/* One merge of nranks ranks of pattern p; in[] keeps each rank's input. */
struct job {
	const char *name;
	uint32_t nranks;
	struct seq *in;
	struct fmt_grammar all;
	struct fmt_rankmap rm;
	uint32_t unique;
	uint32_t rules_sum; /* rules of the first grammar of each kind */
};

static void job_rank(struct job *j, struct merge *m, pattern_fn p, uint32_t r)
{
	struct grammar *g = grammar_create();
	struct fmt_grammar e;
	uint32_t before = merge_unique(m);
	int failed = 0;

	CHECK(g != NULL);
	if (!g)
		exit(1);
	p(&j->in[r], r, j->nranks);
	for (size_t k = 0; k < j->in[r].n; k++)
		failed |= grammar_append(g, j->in[r].v[k], 1);
	CHECK(failed == 0);
	CHECK(grammar_export(g, &e) == 0);
	CHECKF(merge_add_grammar(m, &e) == 0, "%s rank %u", j->name, r);
	if (merge_unique(m) != before)
		j->rules_sum += e.nrules;
	fmt_grammar_free(&e);
	grammar_free(g);
}

static void job_run(struct job *j, const char *name, pattern_fn p,
		    uint32_t nranks)
{
	struct merge *m = merge_create();

	memset(j, 0, sizeof(*j));
	j->name = name;
	j->nranks = nranks;
	j->in = xalloc(nranks, sizeof(*j->in));
	CHECK(m != NULL);
	if (!m)
		exit(1);
	for (uint32_t r = 0; r < nranks; r++)
		job_rank(j, m, p, r);
	j->unique = merge_unique(m);
	CHECKF(merge_finish(m, &j->all, &j->rm) == 0, "%s: finish", name);
	merge_free(m);
}

static void job_free(struct job *j)
{
	for (uint32_t r = 0; r < j->nranks; r++)
		free(j->in[r].v);
	free(j->in);
	fmt_grammar_free(&j->all);
	fmt_rankmap_free(&j->rm);
}

/* Each rank's root, from the decoded rank map; NULL if it is wrong. */
static uint32_t *job_roots(struct job *j, const struct fmt_grammar *all)
{
	struct fmt_buf b = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_err e = {0};
	struct seq roots = {0};
	int rc;

	fmt_rankmap_encode(&b, &j->rm);
	rc = fmt_rankmap_decode(&rm, b.data, b.len, all->nrules, &e);
	CHECKF(rc == 0, "%s: rank map: %s", j->name, e.msg);
	if (rc == 0) {
		CHECK(rm.nranks == j->nranks);
		expand(&rm.map, rm.map.nrules - 1, &roots);
		CHECK(roots.n == j->nranks);
	}
	fmt_rankmap_free(&rm);
	fmt_buf_free(&b);
	if (roots.n == j->nranks)
		return roots.v;
	free(roots.v);
	return NULL;
}

/* Decodes what the merge produced, as a reader would, and expands every
 * rank back. */
static void job_verify(struct job *j)
{
	struct fmt_buf b = {0};
	struct fmt_grammar all = {0};
	struct fmt_err e = {0};
	uint32_t *root = NULL, bad = 0;
	int rc;

	fmt_grammar_encode(&b, &j->all);
	rc = fmt_grammar_decode(&all, b.data, b.len, NTERM, NULL, &e);
	CHECKF(rc == 0, "%s: grammar: %s", j->name, e.msg);
	/* Distinct grammars are stored with the rules they share once. */
	CHECKF(all.nrules <= j->rules_sum, "%s: %u rules, want %u or fewer",
	       j->name, all.nrules, j->rules_sum);
	if (rc == 0)
		root = job_roots(j, &all);
	for (uint32_t r = 0; root && r < j->nranks; r++) {
		struct seq out = {0};

		expand(&all, root[r], &out);
		bad += out.n != j->in[r].n ||
		       memcmp(out.v, j->in[r].v, out.n * sizeof(*out.v));
		free(out.v);
	}
	CHECKF(root && bad == 0, "%s: %u ranks expand wrong", j->name, bad);
	free(root);
	fmt_grammar_free(&all);
	fmt_buf_free(&b);
}

static uint64_t map_size(const struct job *j)
{
	return j->rm.map.first ? j->rm.map.first[j->rm.map.nrules] : 0;
}

static void test_pattern(const char *name, pattern_fn p, uint32_t nranks,
			 uint32_t unique, uint64_t *map_syms)
{
	struct job j;

	job_run(&j, name, p, nranks);
	CHECKF(j.unique == unique, "%s on %u ranks: %u distinct, want %u", name,
	       nranks, j.unique, unique);
	job_verify(&j);
	*map_syms = map_size(&j);
	job_free(&j);
}

static void test_grammars(void)
{
	static const struct {
		const char *name;
		pattern_fn p;
		uint32_t unique; /* on 64 ranks */
		int constant;	 /* the rank map does not grow with ranks */
	} pat[] = {
		{"same", pat_same, 1, 1},     {"parity", pat_parity, 2, 1},
		{"halves", pat_halves, 2, 1}, {"stencil", pat_stencil, 3, 1},
		{"grid", pat_grid, 9, 0},     {"distinct", pat_distinct, 64, 0},
	};

	for (size_t i = 0; i < COUNTOF(pat); i++) {
		uint64_t small, big;

		test_pattern(pat[i].name, pat[i].p, 64, pat[i].unique, &small);
		if (!pat[i].constant)
			continue;
		test_pattern(pat[i].name, pat[i].p, 4096, pat[i].unique, &big);
		CHECKF(small == big,
		       "%s: rank map of %llu symbols on 64 ranks, %llu on 4096",
		       pat[i].name, (unsigned long long)small,
		       (unsigned long long)big);
	}
}

/* Enough distinct one-rule grammars that some share the 32 hash bits the
 * index keeps (about 2^18 choose 2 pairs over 2^32 values), so the full
 * comparison has to tell them apart; then each of them again. */
static void test_many_grammars(void)
{
	enum { N = 1 << 18 };
	struct merge *m = merge_create();
	uint32_t first[2] = {0, 2};
	rondo_sym body[2] = {{0, 0, 1}, {0, 0, 1}};
	struct fmt_grammar g = {1, first, body}, all;
	struct fmt_rankmap rm;
	uint32_t bad = 0;

	CHECK(m != NULL);
	if (!m)
		return;
	for (uint32_t pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < N; i++) {
			body[0].sym = i & 511;
			body[1].count = 1 + (i >> 9);
			bad += merge_add_grammar(m, &g) != 0;
		}
		CHECKF(merge_unique(m) == N, "%u distinct, want %u",
		       merge_unique(m), N);
	}
	CHECK(bad == 0);
	CHECK(merge_finish(m, &all, &rm) == 0);
	CHECK(all.nrules == N && rm.nranks == 2 * N);
	for (uint32_t i = 0; all.nrules == N && i < N; i++)
		bad += all.body[2 * i].sym != (i & 511) ||
		       all.body[2 * i + 1].count != 1 + (i >> 9);
	CHECKF(bad == 0, "%u grammars stored wrong", bad);
	fmt_grammar_free(&all);
	fmt_rankmap_free(&rm);
	merge_free(m);
}

/* Ranks that run the same loop after different set-ups share the loop's
 * rules: the combined grammar holds them once. */
static void pat_shared(struct seq *s, uint32_t rank, uint32_t nranks)
{
	static const uint32_t body[] = {2, 3, 4, 4, 5, 6, 2};

	(void)nranks;
	for (uint32_t k = 0; k <= rank % 4; k++)
		seq_push(s, 40 + k); /* a set-up of its own */
	loop(s, body, 7, 50);
}

static void test_shared_rules(void)
{
	struct job j;

	job_run(&j, "shared", pat_shared, 8);
	CHECK(j.unique == 4);
	/* four grammars of several rules each, all but their roots alike */
	CHECKF(j.all.nrules + 3 * (j.rules_sum / 4 - 1) == j.rules_sum,
	       "%u rules stored, %u in the four grammars", j.all.nrules,
	       j.rules_sum);
	job_verify(&j);
	job_free(&j);
}

/* One rank: the combined grammar is its grammar, the map its root. */
static void test_single_rank(void)
{
	struct job j;

	job_run(&j, "single", pat_parity, 1);
	CHECK(j.unique == 1);
	CHECK(j.rm.nranks == 1);
	CHECK(j.rm.map.nrules == 1 && map_size(&j) == 1);
	CHECK(j.rm.map.nrules == 1 && j.rm.map.body[0].sym == j.all.nrules - 1);
	job_verify(&j);
	job_free(&j);
}

/* ---- the tree of ranges -------------------------------------------------- */

/* Rank r's tables for pattern p, as the tracer hands them to the merge:
 * local signature ids in the rank's own order of first use (so they
 * differ between ranks), each a call of function t % 4 with the integer
 * t, for terminal t of the pattern; statistics with the rank's own
 * durations, and the communicator {r .. r + 3} when r % 4 == 0. */
struct leaf {
	struct table_b t;
	uint32_t local[NTERM]; /* terminal -> local id + 1 */
	uint32_t term[NTERM];  /* local id -> terminal */
	struct fmt_grammar g;
	struct fmt_stats st;
	struct fmt_stats gaps; /* the time before calls: all but the first */
};

static uint64_t leaf_ns(uint32_t rank, uint32_t term)
{
	return 1000 + 37 * (uint64_t)rank + 5 * (uint64_t)term;
}

/* The time before each call of term on rank, and how many of its calls
 * have one (all but the rank's first call). */
static uint64_t gap_ns(uint32_t rank, uint32_t term)
{
	return 500 + 11 * (uint64_t)rank + 3 * (uint64_t)term;
}

static uint64_t gap_calls(const struct seq *in, uint32_t term)
{
	uint64_t n = 0;

	for (size_t k = 0; k < in->n; k++)
		n += in->v[k] == term && k > 0;
	return n;
}

static void leaf_make(struct leaf *l, const struct seq *in, uint32_t rank)
{
	struct grammar *g = grammar_create();
	int bad = 0;

	memset(l, 0, sizeof(*l));
	l->st.st = xalloc(NTERM, sizeof(*l->st.st));
	l->gaps.st = xalloc(NTERM, sizeof(*l->gaps.st));
	for (size_t k = 0; k < in->n; k++) {
		uint32_t t = in->v[k];

		if (!l->local[t]) {
			l->term[l->t.cst.n] = t;
			l->local[t] = l->t.cst.n + 1;
			l->st.st[l->st.n++].sig = l->t.cst.n;
			tb_add(&l->t, t % 4, t, 0);
		}
		bad |= grammar_append(g, l->local[t] - 1, 1);
	}
	for (uint32_t i = 0; i < l->st.n; i++) {
		rondo_stat *s = &l->st.st[i].s;
		uint64_t n = 0, d = leaf_ns(rank, l->term[i]);

		for (size_t k = 0; k < in->n; k++)
			n += in->v[k] == l->term[i];
		*s = (rondo_stat){n, n * d, d, d, (double)n * d * d, {0}};
		s->hist[fmt_hist_bin(d)] = n;
		n = gap_calls(in, l->term[i]);
		d = gap_ns(rank, l->term[i]);
		if (!n)
			continue;
		s = &l->gaps.st[l->gaps.n].s;
		l->gaps.st[l->gaps.n++].sig = i;
		*s = (rondo_stat){n, n * d, d, d, (double)n * d * d, {0}};
		s->hist[fmt_hist_bin(d)] = n;
	}
	CHECK(bad == 0);
	CHECK(grammar_export(g, &l->g) == 0);
	grammar_free(g);
}

static void leaf_free(struct leaf *l)
{
	tb_free(&l->t);
	fmt_grammar_free(&l->g);
	free(l->st.st);
	free(l->gaps.st);
}

/* Ranks 0 .. n-1 merged as tracer/merge_tree.c does, in rounds; damage: the rank
 * whose message to its parent is spoilt (UINT32_MAX: none). */
/* The bytes of a merge's MPI time codes on the wire. */
static size_t mpi_bytes(const struct merge *m)
{
	size_t n = 0;

	for (uint32_t r = 0; r < merge_ranks(m); r++)
		n += merge_rank_mpi(m)[r] < 128 ? 1 : 2;
	return n;
}

static struct merge *tree_merge(struct seq *in, uint32_t n, pattern_fn p,
				uint32_t damage)
{
	struct merge **m = xalloc(n, sizeof(*m)), *root;
	uint32_t rounds = 0;

	for (uint32_t r = 0; r < n; r++) {
		struct leaf l;

		p(&in[r], r, n);
		leaf_make(&l, &in[r], r);
		m[r] = merge_create();
		CHECK(m[r] &&
		      merge_add_rank(m[r], tb_done(&l.t), &l.g, &l.st) == 0 &&
		      merge_add_gaps(m[r], tb_done(&l.t), &l.gaps) == 0);
		if (r % 4 == 0) {
			uint32_t w[4], dims[2] = {2, 2};
			uint8_t per[2] = {1, 0};
			struct fmt_comm c = {0, 0, w};
			/* the full ones are 2x2 grids */
			struct fmt_topo g = {0, 2, dims, per};

			for (uint32_t k = r; k < r + 4 && k < n; k++)
				w[c.n++] = k;
			CHECK(merge_add_comm(m[r], 1000 + r, &c,
					     c.n == 4 ? &g : NULL) == 0);
		}
		leaf_free(&l);
	}
	while ((1u << rounds) < n)
		rounds++;
	for (uint32_t k = 0; k < rounds; k++)
		for (uint32_t r = 0; r < n; r++) {
			uint32_t step = 1u << k, child = r + step, end;
			struct fmt_buf b = {0};
			int rc;

			if ((r & ((step << 1) - 1)) || child >= n)
				continue;
			end = child + step < n ? child + step : n;
			CHECK(merge_encode(m[child], &b) == 0 && !b.oom);
			/* the byte in the middle of the parts before the
			 * timing part (9 bytes: none), the values (2: none)
			 * and the MPI times (a length, a code per rank) */
			if (child == damage)
				b.data[(b.len - 9 - 2 - 1 -
					mpi_bytes(m[child])) /
				       2] ^= 0x5a;
			rc = merge_add_encoded(m[r], b.data, b.len, end - child,
					       4, n);
			CHECKF(child == damage ? rc != 0 : rc == 0,
			       "merge of %u into %u: %d", child, r, rc);
			CHECK(merge_ranks(m[r]) == end - r);
			fmt_buf_free(&b);
			merge_free(m[child]);
			m[child] = NULL;
		}
	root = m[0];
	free(m);
	return root;
}

/* The time before calls per rank group: each group's ranks' times summed
 * per signature, each rank's kept as a time code. */
static void check_groupgaps(const struct merge *m, const struct job *j,
			    const struct seq *in, const uint32_t *root)
{
	const struct fmt_cst *cst = merge_cst(m);
	size_t nr = j->all.nrules, ns = cst->n;
	uint64_t *calls = xalloc(nr * ns + 1, sizeof(*calls));
	uint64_t *ns_of = xalloc(nr * ns + 1, sizeof(*ns_of));
	uint32_t bad = 0, groups = 0;
	uint8_t *seen = xalloc(nr + 1, 1);
	struct fmt_groupgaps g;

	for (uint32_t r = 0; r < j->nranks; r++) {
		groups += !seen[root[r]];
		seen[root[r]] = 1;
		for (uint32_t sg = 0; sg < ns; sg++) {
			struct fmt_cur c;
			rondo_arg a;
			uint64_t k;

			fmt_cur_init(&c, cst->sig[sg].args, cst->sig[sg].len,
				     NULL, NULL);
			if (fmt_arg_get(&c, &a) != 0)
				continue;
			k = gap_calls(&in[r], (uint32_t)a.i);
			if (!k)
				continue;
			calls[root[r] * ns + sg] += k;
			ns_of[root[r] * ns + sg] += fmt_time_value(
				fmt_time_code(k * gap_ns(r, (uint32_t)a.i)));
		}
	}
	CHECK(merge_groupgaps(m, &g) == 0);
	for (uint32_t k = 0; k < g.n; k++) {
		bad += k && g.root[k] <= g.root[k - 1];
		for (uint64_t i = g.at[k]; i < g.at[k + 1]; i++) {
			size_t at = g.root[k] * ns + g.e[i].sig;

			bad += g.e[i].calls != calls[at] ||
			       g.e[i].ns != ns_of[at] || !calls[at];
			calls[at] = 0;
		}
	}
	for (size_t i = 0; i < nr * ns; i++)
		bad += calls[i] != 0; /* a group's time left out */
	CHECKF(bad == 0 && g.n <= groups, "%s on %u ranks: %u group gaps wrong",
	       j->name, j->nranks, bad);
	fmt_groupgaps_free(&g);
	free(calls);
	free(ns_of);
	free(seen);
}

/* Every rank's calls, signatures, statistics, times and communicators
 * come out of the tree as they went in. */
static void test_tree(const char *name, pattern_fn p, uint32_t n)
{
	struct seq *in = xalloc(n, sizeof(*in));
	struct merge *m = tree_merge(in, n, p, UINT32_MAX);
	const struct fmt_cst *cst = merge_cst(m);
	const rondo_stat *stat = merge_stats(m);
	const uint64_t *keys;
	const struct fmt_topo *topo;
	const struct fmt_comms *comms = merge_comms(m, &keys, &topo);
	struct fmt_ranktime times;
	struct job j = {name, n, in, {0}, {0}, 0, 0};
	uint32_t *root, bad = 0, badt = 0;
	uint64_t *count = xalloc(cst->n, sizeof(*count)), calls = 0;

	CHECKF(merge_ranks(m) == n && merge_failed(m) == 0, "%s on %u ranks",
	       name, n);
	merge_ranktime(m, &times);
	CHECK(merge_finish(m, &j.all, &j.rm) == 0);
	root = job_roots(&j, &j.all);
	for (uint32_t r = 0; root && r < n; r++) {
		struct seq out = {0};
		uint64_t k = times.at[r];

		expand(&j.all, root[r], &out);
		bad += out.n != in[r].n;
		for (size_t i = 0; i < out.n && i < in[r].n; i++) {
			const struct fmt_sig *s = &cst->sig[out.v[i]];

			bad += !sig_is(s, in[r].v[i] % 4, in[r].v[i]);
			count[out.v[i]]++;
		}
		/* the rank's times: its signatures in increasing order,
		 * each with its own total */
		for (uint32_t sg = 0; sg < cst->n; sg++) {
			uint64_t mine = 0, t;
			struct fmt_cur c;
			rondo_arg a;

			fmt_cur_init(&c, cst->sig[sg].args, cst->sig[sg].len,
				     NULL, NULL);
			if (fmt_arg_get(&c, &a) != 0)
				continue;
			t = (uint64_t)a.i;
			for (size_t i = 0; i < in[r].n; i++)
				mine += in[r].v[i] == t;
			if (!mine)
				continue;
			if (k >= times.at[r + 1] || times.sig[k] != sg ||
			    times.code[k] !=
				    fmt_time_code(mine * leaf_ns(r, t)))
				badt++;
			k++;
		}
		badt += k != times.at[r + 1];
		free(out.v);
	}
	CHECKF(root && bad == 0, "%s on %u ranks: %u calls wrong", name, n,
	       bad);
	CHECKF(badt == 0, "%s on %u ranks: %u times wrong", name, n, badt);
	if (root)
		check_groupgaps(m, &j, in, root);
	for (uint32_t sg = 0; sg < cst->n; sg++) {
		bad += stat[sg].count != count[sg] ||
		       stat[sg].hist[fmt_hist_bin(stat[sg].min_ns)] == 0;
		calls += count[sg];
	}
	CHECKF(bad == 0 && calls == merge_calls(m),
	       "%s on %u ranks: statistics wrong", name, n);
	CHECK(comms->n == (n + 3) / 4);
	for (uint32_t i = 0; i < comms->n; i++)
		bad += keys[i] != 1000 + 4 * i ||
		       comms->c[i].world[0] != 4 * i ||
		       comms->c[i].n != (n - 4 * i < 4 ? n - 4 * i : 4) ||
		       topo[i].ndims != (comms->c[i].n == 4 ? 2u : 0u) ||
		       (topo[i].ndims &&
			(topo[i].dims[1] != 2 || topo[i].periodic[0] != 1 ||
			 topo[i].periodic[1] != 0));
	CHECKF(bad == 0, "%s on %u ranks: communicators wrong", name, n);
	free(root);
	free(count);
	job_free(&j);
	merge_free(m);
}

static void test_trees(void)
{
	static const uint32_t sizes[] = {1, 2, 3, 5, 8, 16, 32};
	static const struct {
		const char *name;
		pattern_fn p;
	} pat[] = {{"same", pat_same},	   {"parity", pat_parity},
		   {"halves", pat_halves}, {"stencil", pat_stencil},
		   {"grid", pat_grid},	   {"distinct", pat_distinct}};

	for (size_t i = 0; i < COUNTOF(pat); i++)
		for (size_t k = 0; k < COUNTOF(sizes); k++)
			test_tree(pat[i].name, pat[i].p, sizes[k]);
}

/* Identical rank grammars travel once: what rank 0 takes in from 512
 * alike ranks has the signatures, grammar and rank map it has from 8;
 * only the times of each rank (a byte, two per signature for its time in
 * it and three for the time before its calls, two for its time in MPI)
 * and the communicators (one per 4 ranks here) add to it. */
static void test_tree_size(void)
{
	static const uint32_t sizes[2] = {8, 512};
	size_t bytes[2];
	uint32_t nsig[2], rules[2];
	uint64_t map[2];

	for (int i = 0; i < 2; i++) {
		struct seq *in = xalloc(sizes[i], sizeof(*in));
		struct fmt_buf b = {0};
		struct merge *m =
			tree_merge(in, sizes[i], pat_same, UINT32_MAX);
		struct job j = {"size", sizes[i], in, {0}, {0}, 0, 0};

		CHECK(merge_unique(m) == 1);
		CHECK(merge_encode(m, &b) == 0);
		bytes[i] = b.len;
		nsig[i] = merge_cst(m)->n;
		CHECK(merge_finish(m, &j.all, &j.rm) == 0);
		rules[i] = j.all.nrules;
		map[i] = map_size(&j);
		fmt_buf_free(&b);
		merge_free(m);
		job_free(&j);
	}
	CHECK(nsig[0] == nsig[1] && rules[0] == rules[1] && map[0] == map[1]);
	CHECKF(bytes[1] - bytes[0] <=
		       (sizes[1] - sizes[0]) * (3 + 5 * nsig[0]) +
			       (sizes[1] - sizes[0]) / 4 * 16,
	       "8 ranks: %zu bytes, 512: %zu", bytes[0], bytes[1]);
}

/* A damaged range is counted as failed ranks with no call; the others
 * are intact. */
static void test_tree_damage(void)
{
	enum { N = 8 };
	struct seq in[N] = {{0}};
	struct merge *m = tree_merge(in, N, pat_parity, 4);
	struct job j = {"damage", N, in, {0}, {0}, 0, 0};
	uint32_t *root;

	CHECK(merge_ranks(m) == N);
	CHECKF(merge_failed(m) == 4, "%u failed, want 4", merge_failed(m));
	CHECK(merge_finish(m, &j.all, &j.rm) == 0);
	root = job_roots(&j, &j.all);
	for (uint32_t r = 0; root && r < N; r++) {
		struct seq out = {0};

		expand(&j.all, root[r], &out);
		CHECKF(r < 4 ? out.n == in[r].n : out.n == 0,
		       "rank %u: %zu calls", r, out.n);
		free(out.v);
	}
	free(root);
	j.in = xalloc(N, sizeof(*j.in));
	for (uint32_t r = 0; r < N; r++)
		free(in[r].v);
	job_free(&j);
	merge_free(m);
}

/* ---- errors -------------------------------------------------------------- */

static void test_errors(void)
{
	rondo_sym body[2] = {{RONDO_SYM_RULE | 0, 0, 1}, {5, 0, 0}};
	uint32_t first[3] = {0, 1, 2};
	struct fmt_grammar bad = {2, first, body}, none = {0, first, body};
	struct fmt_grammar all;
	struct fmt_rankmap rm;
	struct merge *m = merge_create();

	merge_free(NULL);
	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(merge_finish(m, &all, &rm) == RONDO_E_STATE);
	/* Failed outputs are still safe to free. */
	fmt_grammar_free(&all);
	fmt_rankmap_free(&rm);
	CHECK(merge_add_cst(m, &(struct fmt_cst){0}, NULL) == 0);
	CHECK(merge_cst(m)->n == 0);
	CHECK(merge_add_grammar(m, &none) == RONDO_E_RANGE);
	/* Rule 0 refers to itself. */
	CHECK(merge_add_grammar(m, &bad) == RONDO_E_RANGE);
	body[0] = (rondo_sym){7, 0, 3};
	/* A count of zero. */
	CHECK(merge_add_grammar(m, &bad) == RONDO_E_RANGE);
	body[1] = (rondo_sym){RONDO_SYM_RULE | 0, 0, 2};
	CHECK(merge_add_grammar(m, &bad) == 0);
	CHECK(merge_unique(m) == 1);
	CHECK(merge_finish(m, &all, &rm) == 0);
	CHECK(all.nrules == 2 && rm.nranks == 1);
	fmt_grammar_free(&all);
	fmt_rankmap_free(&rm);
	/* Finishing does not end the merge. */
	CHECK(merge_add_grammar(m, &bad) == 0);
	CHECK(merge_finish(m, &all, &rm) == 0);
	CHECK(all.nrules == 2 && rm.nranks == 2);
	fmt_grammar_free(&all);
	fmt_rankmap_free(&rm);
	merge_free(m);
}

int main(void)
{
	test_cst_three_ranks();
	test_cst_large();
	test_grammars();
	test_many_grammars();
	test_single_rank();
	test_shared_rules();
	test_trees();
	test_tree_size();
	test_tree_damage();
	test_errors();
	return check_done("test_merge");
}
