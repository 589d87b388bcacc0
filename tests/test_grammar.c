/*
 * test_grammar.c - the Sequitur engine against inputs whose expansion is
 * known: every grammar must expand back to its input exactly, keep the
 * engine's invariants at every checkpoint, and stay small where the input
 * is loop-shaped.  Every input is also fed to a second grammar with the
 * fast path off, and both must export the same grammar.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "grammar.h"
#include "reshape.h"
#include "util.h"

/* ---- inputs and runs ---------------------------------------------------- */

struct seq {
	uint32_t *v;
	size_t n, cap;
};

static void seq_push(struct seq *s, uint32_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("test_grammar");
			exit(1);
		}
	}
	s->v[s->n++] = x;
}

/* One input fed to one grammar, with the input kept for comparison. */
struct run {
	const char *name;
	struct grammar *g;
	struct grammar *slow; /* the same appends, fast path off */
	struct seq in;
	uint32_t max_terminal;
	size_t every; /* grammar_check every this many appends; 0: never */
	size_t appends;
	int failed; /* stop checking after the first failure of a run */
};

static void run_start(struct run *r, const char *name, size_t every)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->every = every;
	r->g = grammar_create();
	r->slow = grammar_create();
	CHECK(r->g != NULL && r->slow != NULL);
	if (!r->g || !r->slow)
		exit(1);
	grammar_set_fast_path(r->slow, 0);
}

static void run_check(struct run *r)
{
	char why[200] = "";
	int rc = grammar_check(r->g, why, sizeof(why));

	CHECKF(rc == 0, "%s after %zu appends: %s", r->name, r->appends, why);
	r->failed |= rc != 0;
}

static void run_append(struct run *r, uint32_t t, uint64_t k)
{
	int rc;

	if (r->failed)
		return;
	rc = grammar_append(r->g, t, k);
	CHECKF(rc == 0, "%s: append %zu returned %d", r->name, r->appends, rc);
	rc = grammar_append(r->slow, t, k);
	CHECKF(rc == 0, "%s: slow append %zu returned %d", r->name, r->appends,
	       rc);
	r->failed |= rc != 0;
	while (k--)
		seq_push(&r->in, t);
	if (t > r->max_terminal)
		r->max_terminal = t;
	r->appends++;
	if (r->every && r->appends % r->every == 0)
		run_check(r);
}

/* ---- the exported grammar ----------------------------------------------- */

/* Expands rule r onto out; fails on a reference to a rule that is not
 * smaller, and once out would exceed limit, so that a wrong grammar cannot
 * make the test crash or run away. */
static int expand(const struct fmt_grammar *fg, uint32_t r, struct seq *out,
		  size_t limit)
{
	uint32_t i;
	uint64_t c;

	for (i = fg->first[r]; i < fg->first[r + 1]; i++) {
		rondo_sym s = fg->body[i];

		for (c = 0; c < s.count; c++) {
			if (out->n >= limit)
				return -1;
			if (!RONDO_SYM_IS_RULE(s.sym))
				seq_push(out, s.sym);
			else if (RONDO_SYM_ID(s.sym) >= r ||
				 expand(fg, RONDO_SYM_ID(s.sym), out, limit))
				return -1;
		}
	}
	return 0;
}

static void check_expansion(struct run *r, const struct fmt_grammar *fg)
{
	struct seq out = {0};
	int rc = fg->nrules ? expand(fg, fg->nrules - 1, &out, r->in.n) : -1;

	CHECKF(rc == 0 && out.n == r->in.n &&
		       !memcmp(out.v, r->in.v, out.n * sizeof(*out.v)),
	       "%s: expansion differs from the input (%zu of %zu symbols)",
	       r->name, out.n, r->in.n);
	free(out.v);
}

struct digram {
	uint32_t a, b;
	uint64_t ca, cb;
};

static int digram_cmp(const void *x, const void *y)
{
	const struct digram *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->ca != q->ca)
		return p->ca < q->ca ? -1 : 1;
	if (p->cb != q->cb)
		return p->cb < q->cb ? -1 : 1;
	return 0;
}

/* No digram, counts included, may occur twice in the whole grammar. */
static void check_digrams(struct run *r, const struct fmt_grammar *fg)
{
	uint32_t nsym = fg->first[fg->nrules], i, n = 0, rule;
	struct digram *d = malloc((nsym + 1) * sizeof(*d));

	CHECK(d != NULL);
	if (!d)
		return;
	for (rule = 0; rule < fg->nrules; rule++) {
		for (i = fg->first[rule]; i + 1 < fg->first[rule + 1]; i++)
			d[n++] = (struct digram){
				fg->body[i].sym, fg->body[i + 1].sym,
				fg->body[i].count, fg->body[i + 1].count};
	}
	qsort(d, n, sizeof(*d), digram_cmp);
	for (i = 1; i < n; i++) {
		CHECKF(digram_cmp(&d[i - 1], &d[i]) != 0,
		       "%s: digram (%#x^%llu %#x^%llu) repeated", r->name,
		       d[i].a, (unsigned long long)d[i].ca, d[i].b,
		       (unsigned long long)d[i].cb);
		if (!digram_cmp(&d[i - 1], &d[i]))
			break;
	}
	free(d);
}

/* Rule order, counts, neighbours and rule utility, on the exported form. */
static void check_shape(struct run *r, const struct fmt_grammar *fg)
{
	uint32_t *uses = calloc(fg->nrules, sizeof(*uses));
	uint64_t *last_count = calloc(fg->nrules, sizeof(*last_count));
	uint32_t rule, i, bad = 0;

	CHECK(uses && last_count && fg->first[0] == 0);
	for (rule = 0; uses && last_count && rule < fg->nrules; rule++) {
		for (i = fg->first[rule]; i < fg->first[rule + 1]; i++) {
			rondo_sym s = fg->body[i];
			uint32_t id = RONDO_SYM_ID(s.sym);

			bad += s.count == 0 || s.reserved != 0;
			bad += i > fg->first[rule] &&
			       fg->body[i - 1].sym == s.sym;
			if (!RONDO_SYM_IS_RULE(s.sym))
				continue;
			bad += id >= rule;
			if (id < rule) {
				uses[id]++;
				last_count[id] = s.count;
			}
		}
		CHECKF(!bad, "%s: rule %u: bad symbol, order or neighbours",
		       r->name, rule);
		bad = 0;
	}
	for (rule = 0; uses && last_count && rule + 1 < fg->nrules; rule++)
		CHECKF(uses[rule] >= 2 ||
			       (uses[rule] == 1 && last_count[rule] >= 2),
		       "%s: rule %u used %u times", r->name, rule, uses[rule]);
	free(uses);
	free(last_count);
}

/* Through the file format's codec and back, with lengths. */
static void check_round_trip(struct run *r, const struct fmt_grammar *fg)
{
	struct fmt_buf b = {0};
	struct fmt_grammar back = {0};
	struct fmt_err e = {0};
	struct run copy = *r;
	uint64_t *lengths = NULL;
	int rc;

	fmt_grammar_encode(&b, fg);
	CHECK(!b.oom);
	rc = fmt_grammar_decode(&back, b.data, b.len, r->max_terminal + 1,
				&lengths, &e);
	CHECKF(rc == 0, "%s: decode: %s", r->name, e.msg);
	if (rc == 0) {
		copy.name = "round trip";
		check_expansion(&copy, &back);
		CHECK(back.nrules == fg->nrules);
		CHECK(lengths && lengths[back.nrules - 1] == r->in.n);
	}
	free(lengths);
	fmt_grammar_free(&back);
	fmt_buf_free(&b);
}

static int fmt_equal(const struct fmt_grammar *a, const struct fmt_grammar *b)
{
	uint32_t i;

	if (a->nrules != b->nrules)
		return 0;
	if (memcmp(a->first, b->first, (a->nrules + 1) * sizeof(*a->first)))
		return 0;
	for (i = 0; i < a->first[a->nrules]; i++)
		if (a->body[i].sym != b->body[i].sym ||
		    a->body[i].count != b->body[i].count)
			return 0;
	return 1;
}

/* The fast path must not change the grammar: r->g, before and after a
 * flush, exports what r->slow does. */
static void check_same_as_slow(struct run *r)
{
	struct fmt_grammar fast = {0}, flushed = {0}, slow = {0};
	int rc = grammar_export(r->g, &fast);

	CHECKF(rc == 0, "%s: export returned %d", r->name, rc);
	CHECK(grammar_flush(r->g) == 0);
	CHECK(grammar_export(r->g, &flushed) == 0);
	CHECK(grammar_export(r->slow, &slow) == 0);
	CHECKF(fmt_equal(&fast, &slow) && fmt_equal(&flushed, &slow),
	       "%s after %zu appends: the fast path changed the grammar",
	       r->name, r->appends);
	fmt_grammar_free(&fast);
	fmt_grammar_free(&flushed);
	fmt_grammar_free(&slow);
}

/* Checks everything about a finished run and frees it; returns its rule
 * count for size assertions. */
static uint32_t run_finish(struct run *r)
{
	struct fmt_grammar fg = {0};
	uint32_t rules;
	int rc;

	if (!r->failed)
		run_check(r);
	check_same_as_slow(r);
	rules = grammar_rule_count(r->g);
	CHECK(grammar_length(r->g) == r->in.n);
	rc = grammar_export(r->g, &fg);
	CHECKF(rc == 0, "%s: export returned %d", r->name, rc);
	if (rc == 0) {
		CHECK(fg.nrules == rules);
		CHECK(fg.first[fg.nrules] == grammar_symbol_count(r->g));
		check_expansion(r, &fg);
		check_digrams(r, &fg);
		check_shape(r, &fg);
		check_round_trip(r, &fg);
	}
	fmt_grammar_free(&fg);
	grammar_free(r->g);
	grammar_free(r->slow);
	free(r->in.v);
	return rules;
}

/* xorshift64*: deterministic, so a failure can be replayed. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1du;
}

/* How often to run grammar_check(): after every append for small inputs,
 * else every 997th, a prime, so that checks fall at every phase of a loop
 * rather than always between two iterations. */
static size_t every_for(size_t n)
{
	return n <= 4000 ? 1 : 997;
}

/* ---- cases -------------------------------------------------------------- */

static void test_arguments(void)
{
	struct grammar *g = grammar_create();
	struct fmt_grammar fg = {0};
	char why[100];

	grammar_free(NULL);
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK(grammar_check(g, why, sizeof(why)) == 0);
	CHECK(grammar_export(g, &fg) == 0);
	CHECK(fg.nrules == 1 && fg.first[0] == 0 && fg.first[1] == 0);
	fmt_grammar_free(&fg);
	CHECK(grammar_append(g, 1, 0) == RONDO_E_RANGE);
	CHECK(grammar_append(g, GRAMMAR_MAX_TERMINAL + 1, 1) == RONDO_E_RANGE);
	CHECK(grammar_append(g, UINT32_MAX, 1) == RONDO_E_RANGE);
	CHECK(grammar_length(g) == 0 && grammar_symbol_count(g) == 0);
	CHECK(grammar_append(g, GRAMMAR_MAX_TERMINAL, 1) == 0);
	/* Lengths stay below 2^63, the limit of the file format. */
	CHECK(grammar_append(g, 1, INT64_MAX) == RONDO_E_RANGE);
	CHECK(grammar_append(g, 1, INT64_MAX - 1) == 0);
	CHECK(grammar_append(g, 1, 1) == RONDO_E_RANGE);
	CHECK(grammar_length(g) == INT64_MAX);
	CHECK(grammar_check(g, why, sizeof(why)) == 0);
	CHECK(grammar_rule_count(g) == 1 && grammar_symbol_count(g) == 2);
	CHECK(grammar_memory(g) > 0);
	grammar_free(g);
}

/* A loop around p distinct calls: the root is R^reps and R the body. */
static void test_periodic(void)
{
	static const uint32_t periods[] = {1, 2, 3, 5, 7, 16, 100};
	static const uint32_t reps[] = {1, 2, 3, 10, 1000};
	size_t i, j;
	uint32_t k, p, want;
	struct run r;

	for (i = 0; i < COUNTOF(periods); i++) {
		for (j = 0; j < COUNTOF(reps); j++) {
			p = periods[i];
			run_start(&r, "periodic", every_for(p * reps[j]));
			for (k = 0; k < p * reps[j]; k++)
				run_append(&r, 3 * (k % p) + 1, 1);
			want = p > 1 && reps[j] > 1 ? 2 : 1;
			CHECKF(grammar_rule_count(r.g) == want &&
				       grammar_symbol_count(r.g) ==
					       (want == 2 ? p + 1 : p),
			       "period %u x %u: %u rules, %llu symbols", p,
			       reps[j], grammar_rule_count(r.g),
			       (unsigned long long)grammar_symbol_count(r.g));
			run_finish(&r);
		}
	}
}

/* for i < outer { for j < inner { A B } C } */
static uint32_t nested2(uint32_t outer, uint32_t inner)
{
	struct run r;
	uint32_t i, j;

	run_start(&r, "nested2", every_for((size_t)outer * (inner * 2 + 1)));
	for (i = 0; i < outer; i++) {
		for (j = 0; j < inner; j++) {
			run_append(&r, 10, 1);
			run_append(&r, 11, 1);
		}
		run_append(&r, 12, 1);
	}
	return run_finish(&r);
}

/* for i { for j { for k { A B C } D } E F }, counts n each */
static uint32_t nested3(uint32_t n)
{
	struct run r;
	uint32_t i, j, k;

	run_start(&r, "nested3", every_for((size_t)n * (n * (n * 3 + 1) + 2)));
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++) {
			for (k = 0; k < n; k++) {
				run_append(&r, 20, 1);
				run_append(&r, 21, 1);
				run_append(&r, 22, 1);
			}
			run_append(&r, 23, 1);
		}
		run_append(&r, 24, 1);
		run_append(&r, 25, 1);
	}
	return run_finish(&r);
}

static void test_nested(void)
{
	uint32_t small = nested2(10, 10), big = nested2(100, 100);
	uint32_t small3 = nested3(5), big3 = nested3(50);

	CHECKF(small == big && big == 3, "nested2: %u vs %u rules", small, big);
	CHECK(nested2(10, 100) == big && nested2(100, 10) == big);
	CHECKF(small3 == big3 && big3 == 4, "nested3: %u vs %u rules", small3,
	       big3);
}

/* 10^6 iterations of a 5-call loop body. */
static void test_long_loop(void)
{
	struct run r;
	uint32_t i;

	run_start(&r, "long loop", every_for(5000000));
	for (i = 0; i < 5000000; i++)
		run_append(&r, 100 + i % 5, 1);
	CHECKF(grammar_rule_count(r.g) <= 10, "%u rules",
	       grammar_rule_count(r.g));
	CHECK(grammar_symbol_count(r.g) <= 20);
	run_finish(&r);
}

static void random_run(const char *name, uint64_t seed, uint32_t alphabet,
		       uint32_t base, size_t n, uint32_t maxcount)
{
	struct run r;
	size_t i;
	uint32_t t;

	run_start(&r, name, every_for(n));
	for (i = 0; i < n; i++) {
		/* Two statements: argument order is unspecified, and every
		 * compiler must build the same input. */
		t = base + rng_next(&seed) % alphabet;
		run_append(&r, t, 1 + rng_next(&seed) % maxcount);
	}
	run_finish(&r);
}

static void test_random(void)
{
	static const uint32_t alphabets[] = {2, 3, 4, 16, 256};
	size_t i;
	uint64_t seed;

	for (i = 0; i < COUNTOF(alphabets); i++) {
		random_run("random", 1 + i, alphabets[i], 0, 40000, 1);
		random_run("random counts", 100 + i, alphabets[i], 0, 20000, 3);
	}
	/* Many short inputs, checked after every symbol: the odd cases of
	 * rule creation, merging and inlining show up here first. */
	for (seed = 1; seed <= 300; seed++)
		random_run("random short", seed, 2 + seed % 4, 0, 400,
			   1 + seed % 3);
}

static void test_all_equal(void)
{
	struct fmt_grammar fg = {0};
	struct run r;
	uint32_t i;

	run_start(&r, "all equal", every_for(1000000));
	for (i = 0; i < 1000000; i++)
		run_append(&r, 7, 1);
	CHECK(grammar_export(r.g, &fg) == 0);
	CHECK(fg.nrules == 1 && fg.first[1] == 1 && fg.body[0].sym == 7 &&
	      fg.body[0].count == 1000000);
	fmt_grammar_free(&fg);
	run_finish(&r);

	run_start(&r, "equal counts", 1);
	run_append(&r, 7, 500000);
	run_append(&r, 7, 1);
	run_append(&r, 7, 499999);
	CHECK(grammar_rule_count(r.g) == 1 && grammar_symbol_count(r.g) == 1);
	run_finish(&r);
}

static void test_non_repeating(void)
{
	struct run r;
	uint32_t i;

	run_start(&r, "non-repeating", every_for(100000));
	for (i = 0; i < 100000; i++)
		run_append(&r, i, 1);
	CHECK(grammar_rule_count(r.g) == 1);
	CHECK(grammar_symbol_count(r.g) == 100000);
	run_finish(&r);
}

/* Fibonacci word: s(n) = s(n-1) s(n-2), full of near-repeats.  s(n-2) is a
 * prefix of s(n-1), so s(n) is w followed by a prefix of w. */
static void test_fibonacci(void)
{
	struct seq w = {0};
	struct run r;
	size_t older = 1, len, i;

	seq_push(&w, 0);
	seq_push(&w, 1);
	while (w.n < 120000) {
		len = w.n;
		for (i = 0; i < older; i++)
			seq_push(&w, w.v[i]);
		older = len;
	}
	run_start(&r, "fibonacci", every_for(w.n));
	for (i = 0; i < w.n; i++)
		run_append(&r, w.v[i], 1);
	CHECK(grammar_rule_count(r.g) < 100);
	run_finish(&r);
	free(w.v);
}

static void test_thue_morse(void)
{
	struct run r;
	uint32_t i;

	run_start(&r, "thue-morse", every_for(1 << 16));
	for (i = 0; i < 1 << 16; i++)
		run_append(&r, __builtin_popcount(i) & 1, 1);
	run_finish(&r);
}

/* de Bruijn sequence B(k, n) (FKM algorithm): every word of length n once,
 * so few repeats longer than n. */
static void de_bruijn(struct run *r, uint32_t k, uint32_t n, uint32_t *a,
		      uint32_t t, uint32_t p)
{
	uint32_t j;

	if (t > n) {
		if (n % p == 0)
			for (j = 1; j <= p; j++)
				run_append(r, a[j], 1);
		return;
	}
	a[t] = a[t - p];
	de_bruijn(r, k, n, a, t + 1, p);
	for (j = a[t - p] + 1; j < k; j++) {
		a[t] = j;
		de_bruijn(r, k, n, a, t + 1, t);
	}
}

static void test_de_bruijn(void)
{
	static const uint32_t kn[][2] = {{2, 12}, {3, 7}, {4, 6}};
	uint32_t a[16], i;
	struct run r;

	for (i = 0; i < 3; i++) {
		memset(a, 0, sizeof(a));
		run_start(&r, "de bruijn", every_for(1u << 12));
		de_bruijn(&r, kn[i][0], kn[i][1], a, 1, 1);
		run_finish(&r);
	}
}

static void test_alternation(void)
{
	struct run r;
	uint32_t i;

	run_start(&r, "alternation", every_for(100000));
	for (i = 0; i < 100000; i++)
		run_append(&r, i & 1 ? 5 : 4, 1);
	CHECK(grammar_rule_count(r.g) == 2 && grammar_symbol_count(r.g) == 3);
	run_finish(&r);
}

/* Inputs whose runs come with counts, or one symbol at a time. */
static void test_counted(void)
{
	struct run r;
	uint32_t k, i;
	uint64_t seed = 77;

	/* a^k b a^k b^k for k = 1, 2, ...: a new count at every step. */
	run_start(&r, "growing runs", 1);
	for (k = 1; k <= 300; k++) {
		run_append(&r, 1, k);
		run_append(&r, 2, 1);
		run_append(&r, 1, k);
		run_append(&r, 2, k);
	}
	run_finish(&r);

	/* The same runs fed one symbol at a time and with counts. */
	run_start(&r, "runs one by one", every_for(12500));
	for (i = 0; i < 5000; i++) {
		k = 1 + rng_next(&seed) % 4;
		while (k--)
			run_append(&r, i % 3, 1);
	}
	run_finish(&r);
	seed = 77;
	run_start(&r, "runs with counts", every_for(5000));
	for (i = 0; i < 5000; i++)
		run_append(&r, i % 3, 1 + rng_next(&seed) % 4);
	run_finish(&r);

	/* A B^2 C, then A B^3 C 999 times: a first iteration that differs
	 * only in a count must not cost more than a rule or two. */
	run_start(&r, "counted body", 1);
	for (i = 0; i < 1000; i++) {
		run_append(&r, 1, 1);
		run_append(&r, 2, i ? 3 : 2);
		run_append(&r, 3, 1);
	}
	CHECK(grammar_rule_count(r.g) <= 4);
	run_finish(&r);
}

/* Every input of `len` symbols, each one of `alphabet` terminals with a
 * count from 1 to `maxcount`, checked after every append.  This is where
 * the odd corners of rule creation, merging and inlining show up (it is
 * also how the engine's comment on single-symbol bodies was established,
 * with longer inputs). */
static void test_exhaustive(uint32_t alphabet, uint32_t maxcount, uint32_t len)
{
	uint32_t k = alphabet * maxcount, i, d;
	uint64_t code, total = 1, c;
	struct run r;

	for (i = 0; i < len; i++)
		total *= k;
	for (code = 0; code < total && !check_failures; code++) {
		run_start(&r, "exhaustive", 1);
		for (c = code, i = 0; i < len; i++, c /= k) {
			d = c % k;
			run_append(&r, d % alphabet, 1 + d / alphabet);
		}
		run_finish(&r);
	}
}

/* Terminals near the top of their range, as when the engine re-compresses
 * rule ids of another grammar. */
static void test_large_ids(void)
{
	struct run r;
	uint32_t i;

	random_run("large ids random", 5, 8, GRAMMAR_MAX_TERMINAL - 7, 20000,
		   2);
	run_start(&r, "large ids periodic", 1);
	for (i = 0; i < 3000; i++)
		run_append(&r, GRAMMAR_MAX_TERMINAL - i % 3, 1);
	CHECK(grammar_rule_count(r.g) == 2);
	run_finish(&r);
}

/* ---- the fast path ------------------------------------------------------ */

/* Appends body[0..len) reps times. */
static void run_loop(struct run *r, const uint32_t *body, size_t len,
		     uint32_t reps)
{
	size_t i;

	while (reps--)
		for (i = 0; i < len; i++)
			run_append(r, body[i], 1);
}

/*
 * A loop that leaves its body after j symbols, for every j, in every way:
 * a new symbol, a body symbol out of place, the same symbol with a count,
 * then loops again.  The fast path follows a prefix of the body and must
 * replay it exactly when the input turns away.
 */
static void diverge_body(const char *name, const uint32_t *body, size_t len,
			 uint32_t reps)
{
	static const char *how[] = {"new", "first", "next", "count", "check"};
	struct run r;
	size_t j, k;

	for (j = 0; j < len; j++) {
		for (k = 0; k < COUNTOF(how); k++) {
			run_start(&r, name, 0);
			run_loop(&r, body, len, reps);
			run_loop(&r, body, j, 1);
			if (k == 4) {
				/* A check or an export with symbols pending
				 * must not disturb anything. */
				run_check(&r);
				check_same_as_slow(&r);
			} else if (k == 3) {
				run_append(&r, body[j], 2);
			} else {
				run_append(&r,
					   k == 0   ? 999
					   : k == 1 ? body[0]
						    : body[(j + 1) % len],
					   1);
			}
			run_loop(&r, body, len, reps);
			run_loop(&r, body, j, 1);
			run_finish(&r);
		}
	}
}

static void test_fast_diverge(void)
{
	static const uint32_t lens[] = {2, 3, 5, 17, 50};
	static const uint32_t reps[] = {1, 2, 3, 6};
	uint32_t body[64], nested[64], n = 0, i, j, k;

	for (i = 0; i < 64; i++)
		body[i] = 300 + i;
	for (i = 0; i < COUNTOF(lens); i++)
		for (j = 0; j < COUNTOF(reps); j++)
			diverge_body("diverge", body, lens[i], reps[j]);
	/* for { for 3 { A B } C for 2 { D } E^2 }: divergence inside the
	 * inner loops of an outer iteration, at every position. */
	for (k = 0; k < 3; k++) {
		nested[n++] = 1;
		nested[n++] = 2;
	}
	nested[n++] = 3;
	nested[n++] = 4;
	nested[n++] = 4;
	nested[n++] = 5;
	nested[n++] = 5;
	for (j = 0; j < COUNTOF(reps); j++)
		diverge_body("diverge nested", nested, n, reps[j]);
	/* A body with repeats inside: A B A B A C. */
	diverge_body("diverge repeats", (const uint32_t[]){1, 2, 1, 2, 1, 3}, 6,
		     4);
}

/* for i { for j < f(i) { A B C } D }: inner loops of varying length, so
 * that the same body occurs with many counts, some of them equal. */
static void test_fast_counts(void)
{
	static const uint32_t abc[] = {1, 2, 3};
	struct run r;
	uint32_t i, seeds;
	uint64_t seed;

	for (seeds = 1; seeds <= 40; seeds++) {
		seed = seeds;
		run_start(&r, "varying inner loops", every_for(3000));
		for (i = 0; i < 60; i++) {
			run_loop(&r, abc, 3, 1 + rng_next(&seed) % 6);
			run_append(&r, 4 + rng_next(&seed) % 2, 1);
		}
		run_finish(&r);
	}
	/* Two loops over the same body, then the first one again. */
	run_start(&r, "shared body", 1);
	for (i = 0; i < 4; i++) {
		run_loop(&r, abc, 3, 5);
		run_append(&r, 9, 1);
		run_loop(&r, abc, 3, 7);
		run_append(&r, 10, 1);
	}
	run_loop(&r, abc, 3, 20);
	run_finish(&r);
}

/* Random loop bodies, each repeated a random number of times, with random
 * mutations and counts: loops that differ slightly from earlier ones. */
static void test_fast_random(void)
{
	uint32_t body[24], len, i, k, reps, t;
	uint64_t seed, s, nloops;
	struct run r;

	for (seed = 1; seed <= 200; seed++) {
		s = seed;
		run_start(&r, "random loops", seed % 8 ? 0 : 97);
		len = 0;
		for (nloops = 0; nloops < 30; nloops++) {
			if (!len || rng_next(&s) % 3 == 0) {
				len = 1 + rng_next(&s) % 12;
				for (i = 0; i < len; i++)
					body[i] = rng_next(&s) % 6;
			} else {
				t = rng_next(&s) % 6;
				body[rng_next(&s) % len] = t;
			}
			reps = 1 + rng_next(&s) % 9;
			for (k = 0; k < reps; k++) {
				for (i = 0; i < len; i++) {
					t = rng_next(&s) % 40;
					/* Rare glitches: a count, a
					 * stray symbol, a skipped one. */
					if (t == 0)
						run_append(&r, body[i], 2);
					else if (t == 1)
						run_append(&r, 7, 1);
					if (t != 2)
						run_append(&r, body[i], 1);
				}
			}
		}
		run_finish(&r);
	}
}

/* ---- the other shape (reshape.c) -------------------------------------- */

/* The reshaped grammar expands to the same calls: pieces cut before the
 * most frequent call, one rule each, and a root of pieces. */
static void reshape_case(const char *name, struct run *r, uint32_t pieces)
{
	struct fmt_grammar fg = {0}, out;
	struct seq got = {0};
	int rc;

	CHECK(grammar_export(r->g, &fg) == 0);
	rc = reshape_cut(&fg, r->max_terminal + 1, r->in.n, &out);
	CHECKF(rc == 0, "%s: reshape %d", name, rc);
	if (rc == 0) {
		CHECK(expand(&out, out.nrules - 1, &got, r->in.n) == 0);
		CHECKF(got.n == r->in.n &&
			       !memcmp(got.v, r->in.v, got.n * sizeof(*got.v)),
		       "%s: reshaped expansion differs", name);
		CHECKF(pieces == 0 || out.nrules == pieces + 1,
		       "%s: %u rules, want %u pieces and a root", name,
		       out.nrules, pieces);
		/* pieces refer to calls only, the root to pieces only */
		for (uint32_t k = 0; k < out.first[out.nrules]; k++)
			CHECK(RONDO_SYM_IS_RULE(out.body[k].sym) ==
			      (k >= out.first[out.nrules - 1]));
		fmt_grammar_free(&out);
	}
	/* too many calls for the limit: nothing done */
	CHECK(reshape_cut(&fg, r->max_terminal + 1, r->in.n - 1, &out) ==
	      RONDO_E_RANGE);
	free(got.v);
	fmt_grammar_free(&fg);
}

static void test_reshape(void)
{
	struct run r;
	uint32_t x = 12345;

	/* a Waitany loop: fixed calls, then three completions in one of six
	 * orders (terminals 10..15 for the first, by order), then Waitall;
	 * the cut call is the most frequent, the first Irecv (1) */
	run_start(&r, "reshape-waitany", 0);
	run_append(&r, 0, 1);
	for (int it = 0; it < 3000; it++) {
		x = x * 1103515245u + 12345u;
		run_append(&r, 1, 1);
		run_append(&r, 2, 1);
		run_append(&r, 3, 1);
		run_append(&r, 10 + (x >> 16) % 6, 1);
		run_append(&r, 20 + (x >> 20) % 2, 1);
		run_append(&r, 4, 1);
	}
	run_append(&r, 99, 1);
	/* the start (0), 12 iteration kinds, the last iteration with the
	 * end (99) */
	reshape_case("waitany", &r, 14);
	grammar_free(r.g);
	grammar_free(r.slow);
	free(r.in.v);

	/* a polling loop: runs of one call become counts in a piece */
	run_start(&r, "reshape-polling", 0);
	for (int it = 0; it < 2000; it++) {
		x = x * 1103515245u + 12345u;
		run_append(&r, 5, 1);
		run_append(&r, 6, 1 + (x >> 16) % 40);
		run_append(&r, 7, 1);
	}
	reshape_case("polling", &r, 0);
	grammar_free(r.g);
	grammar_free(r.slow);
	free(r.in.v);

	/* a regular loop: one piece repeated, the root a single count */
	run_start(&r, "reshape-loop", 0);
	for (int it = 0; it < 500; it++)
		for (uint32_t t = 1; t <= 4; t++)
			run_append(&r, t, 1);
	reshape_case("loop", &r, 1);
	grammar_free(r.g);
	grammar_free(r.slow);
	free(r.in.v);

	/* nothing repeats: nothing to do */
	{
		uint32_t first[2] = {0, 3};
		rondo_sym body[3] = {{0, 0, 1}, {1, 0, 1}, {2, 0, 1}};
		struct fmt_grammar g = {1, first, body}, out;

		CHECK(reshape_cut(&g, 3, 100, &out) == RONDO_E_RANGE);
		/* a terminal beyond the table */
		body[0].count = 2;
		CHECK(reshape_cut(&g, 2, 100, &out) == RONDO_E_RANGE);
	}
}

int main(void)
{
	test_reshape();
	test_arguments();
	test_periodic();
	test_nested();
	test_long_loop();
	test_random();
	test_all_equal();
	test_non_repeating();
	test_fibonacci();
	test_thue_morse();
	test_de_bruijn();
	test_alternation();
	test_counted();
	test_exhaustive(2, 1, 14);
	test_exhaustive(3, 1, 9);
	test_exhaustive(3, 2, 6);
	test_large_ids();
	test_fast_diverge();
	test_fast_counts();
	test_fast_random();
	return check_done("test_grammar");
}
