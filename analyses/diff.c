/*
 * diff.c - how two traces of the same program differ (diff.h).
 *
 * Hashes: a signature's content goes through a 64-bit mix; a sequence of
 * calls c_1..c_n hashes to sum c_i * B^(n-i) modulo the prime 2^61 - 1,
 * so a concatenation XY is h(X) * B^|Y| + h(Y) and X^k is h(X) times
 * 1 + q + ... + q^(k-1) with q = B^|X|, computed in log k steps.  Two
 * different sequences of equal length collide with a probability of
 * about n / 2^61; the report's "same communication" carries that risk,
 * as any hash comparison does.
 */
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "kmap.h"
#include "matrix.h"
#include "sat.h"
#include "util.h"

#define P61  ((1ull << 61) - 1)
#define BASE 0x1f2e3d4c5b6a798ull /* any number below P61 */

static uint64_t mulm(uint64_t a, uint64_t b)
{
	unsigned __int128 x = (unsigned __int128)a * b;
	uint64_t lo = (uint64_t)(x & P61), hi = (uint64_t)(x >> 61);
	uint64_t s = lo + hi;

	return s >= P61 ? s - P61 : s;
}

static uint64_t addm(uint64_t a, uint64_t b)
{
	uint64_t s = a + b;

	return s >= P61 ? s - P61 : s;
}

/* *s = 1 + q + ... + q^(k-1) and *qk = q^k. */
static void geo(uint64_t q, uint64_t k, uint64_t *s, uint64_t *qk)
{
	uint64_t s1, q1;

	if (k == 0) {
		*s = 0;
		*qk = 1;
	} else if (k & 1) {
		geo(q, k - 1, &s1, &q1);
		*s = addm(mulm(s1, q), 1);
		*qk = mulm(q1, q);
	} else {
		geo(q, k / 2, &s1, &q1);
		*s = mulm(s1, addm(1, q1));
		*qk = mulm(q1, q1);
	}
}

/* A sequence's hash and B^length: what concatenation needs. */
struct seq {
	uint64_t h, q;
};

/* seq x followed by k copies of y. */
static struct seq seq_add(struct seq x, struct seq y, uint64_t k)
{
	uint64_t s, qk;

	geo(y.q, k, &s, &qk);
	return (struct seq){addm(mulm(x.h, qk), mulm(y.h, s)), mulm(x.q, qk)};
}

/* ---- a signature's content ----------------------------------------------- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	h = mix(h, n);
	for (size_t i = 0; i < n; i++)
		h = mix(h, b[i]);
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return mix_bytes(h, s ? s : "", s ? strlen(s) : 0);
}

static uint64_t hash_value(const rondo_trace *t, const rondo_arg *v, int ignore,
			   uint64_t h)
{
	rondo_arg e;

	h = mix(h, (uint64_t)v->kind << 8 | v->wire);
	if (ignore &&
	    (v->kind == RONDO_ARG_BUFFER || v->kind == RONDO_ARG_REQUEST))
		return h;
	if (v->kind == RONDO_ARG_CONST)
		return mix_str(h, rondo_const_name(t, (uint32_t)v->u));
	switch (v->wire) {
	case RONDO_WIRE_UINT: return mix(h, v->u);
	case RONDO_WIRE_SINT: return mix(h, (uint64_t)v->i);
	case RONDO_WIRE_BYTES: return mix_bytes(h, v->data, v->size);
	case RONDO_WIRE_LIST:
		h = mix(h, v->n);
		for (uint64_t k = 0; k < v->n; k++)
			if (rondo_arg_elem(v, k, &e) == 0)
				h = hash_value(t, &e, ignore, h);
		return h;
	default: return h;
	}
}

static uint64_t hash_sig(const rondo_trace *t, uint32_t sig, int ignore)
{
	uint32_t n = rondo_sig_arg_count(t, sig);
	uint64_t h = mix_str(0, rondo_func_name(t, rondo_sig_func(t, sig)));
	rondo_arg v;

	h = mix(h, n);
	for (uint32_t a = 0; a < n; a++)
		if (rondo_sig_arg(t, sig, a, &v) == 0)
			h = hash_value(t, &v, ignore, h);
	return h;
}

/* ---- one side: its keys and its rules' hashes ---------------------------- */

struct side {
	const rondo_trace *t;
	uint32_t nsigs, nrules;
	uint32_t *key;	/* by signature: its key */
	uint32_t *func; /* by function id: its index in d->funcs */
	struct seq *rule;
	uint64_t *mult, *work; /* an_rule_mult's */
};

static void side_free(struct side *s)
{
	free(s->key);
	free(s->func);
	free(s->rule);
	free(s->mult);
	free(s->work);
}

struct diff_ctx {
	const struct an_diff_opts *o;
	struct an_diff *d;
	struct side s[2];
	struct kmap keys;
	size_t cap_keys, cap_funcs, cap_seqs;
};

/* The sequence of one call: its key's hash as a value below P61. */
static struct seq seq_sig(const struct diff_ctx *c, const struct side *s,
			  uint32_t sig)
{
	return (struct seq){c->d->keys[s->key[sig]].hash % (P61 - 1) + 1, BASE};
}

static struct seq seq_sym(const struct diff_ctx *c, const struct side *s,
			  uint32_t sym)
{
	if (RONDO_SYM_IS_RULE(sym))
		return s->rule[RONDO_SYM_ID(sym)];
	return seq_sig(c, s, sym);
}

static uint64_t sym_len(const struct side *s, uint32_t sym)
{
	return RONDO_SYM_IS_RULE(sym)
		       ? rondo_rule_calls(s->t, RONDO_SYM_ID(sym))
		       : 1;
}

static void hash_rules(const struct diff_ctx *c, struct side *s)
{
	for (uint32_t r = 0; r < s->nrules; r++) {
		struct seq x = {0, 1};
		const rondo_sym *body;
		uint32_t len = 0;

		rondo_rule_body(s->t, r, &body, &len);
		for (uint32_t k = 0; k < len; k++)
			x = seq_add(x, seq_sym(c, s, body[k].sym),
				    body[k].count);
		s->rule[r] = x;
	}
}

/* The first n calls of rule `root`, by a descent of the grammar. */
static struct seq seq_prefix(const struct diff_ctx *c, const struct side *s,
			     uint32_t root, uint64_t n)
{
	struct seq x = {0, 1};
	uint32_t r = root;

	while (n > 0) {
		const rondo_sym *body;
		uint32_t len = 0, k, next = AN_DIFF_NONE;

		rondo_rule_body(s->t, r, &body, &len);
		for (k = 0; k < len && n > 0; k++) {
			uint64_t l = sym_len(s, body[k].sym);
			uint64_t all = sat_mul(l, body[k].count), j;

			if (l == 0)
				continue;
			j = n >= all ? body[k].count : n / l;
			x = seq_add(x, seq_sym(c, s, body[k].sym), j);
			n -= j * l;
			if (j < body[k].count && n > 0) {
				next = RONDO_SYM_ID(body[k].sym);
				break;
			}
		}
		if (next == AN_DIFF_NONE)
			break; /* a damaged length: stop rather than loop */
		r = next;
	}
	return x;
}

/* The key of call `at` of rule `root`, or AN_DIFF_NONE past its end. */
static uint32_t key_at(const struct side *s, uint32_t root, uint64_t at)
{
	rondo_iter *it;
	uint32_t sig, key = AN_DIFF_NONE;

	if (root == AN_DIFF_NONE)
		return AN_DIFF_NONE;
	it = rondo_iter_create_rule(s->t, root);
	if (it && rondo_iter_skip(it, at) == 0 &&
	    rondo_iter_next(it, &sig) == 1)
		key = s->key[sig];
	rondo_iter_free(it);
	return key;
}

/* ---- the keys and functions both traces share ----------------------------- */

static int func_index(struct diff_ctx *c, const char *name, uint32_t *out)
{
	struct an_diff *d = c->d;

	for (uint32_t i = 0; i < d->nfuncs; i++)
		if (strcmp(d->funcs[i], name) == 0)
			return *out = i, 0;
	if (util_grow(&d->funcs, &c->cap_funcs, d->nfuncs + 1,
		      sizeof(*d->funcs)) < 0)
		return RONDO_E_NOMEM;
	d->funcs[d->nfuncs] = name;
	*out = d->nfuncs++;
	return 0;
}

static int side_keys(struct diff_ctx *c, int w)
{
	struct side *s = &c->s[w];
	struct an_diff *d = c->d;
	uint32_t nf = rondo_func_count(s->t);

	s->func = calloc(nf ? nf : 1, sizeof(*s->func));
	if (!s->func)
		return RONDO_E_NOMEM;
	for (uint32_t f = 0; f < nf; f++) {
		const char *name = rondo_func_name(s->t, f);

		if (func_index(c, name ? name : "?", &s->func[f]) < 0)
			return RONDO_E_NOMEM;
	}
	for (uint32_t sig = 0; sig < s->nsigs; sig++) {
		uint64_t h = hash_sig(s->t, sig, c->o->ignore_buffers);
		int added = 0;
		uint32_t k = kmap_get(&c->keys, h, 0, 0, d->nkeys, &added);
		rondo_stat st;

		if (k == KMAP_NONE)
			return RONDO_E_NOMEM;
		if (added) {
			if (util_grow(&d->keys, &c->cap_keys, d->nkeys + 1,
				      sizeof(*d->keys)) < 0)
				return RONDO_E_NOMEM;
			d->keys[k] = (struct an_diff_key){
				h, {AN_DIFF_NONE, AN_DIFF_NONE}, 0, {0}, {0}};
			d->nkeys++;
		}
		if (d->keys[k].sig[w] == AN_DIFF_NONE)
			d->keys[k].sig[w] = sig;
		d->keys[k].func = s->func[rondo_sig_func(s->t, sig)];
		if (rondo_sig_stat(s->t, sig, &st) == 0) {
			d->keys[k].count[w] =
				sat_add(d->keys[k].count[w], st.count);
			d->keys[k].total_ns[w] =
				sat_add(d->keys[k].total_ns[w], st.total_ns);
		}
		s->key[sig] = k;
	}
	return 0;
}

static int side_init(struct diff_ctx *c, int w, const rondo_trace *t)
{
	struct side *s = &c->s[w];

	s->t = t;
	s->nsigs = rondo_sig_count(t);
	s->nrules = rondo_rule_count(t);
	s->key = calloc(s->nsigs ? s->nsigs : 1, sizeof(*s->key));
	s->rule = calloc(s->nrules ? s->nrules : 1, sizeof(*s->rule));
	s->mult = calloc(s->nsigs ? s->nsigs : 1, sizeof(*s->mult));
	s->work = calloc(s->nrules ? s->nrules : 1, sizeof(*s->work));
	if (!s->key || !s->rule || !s->mult || !s->work)
		return RONDO_E_NOMEM;
	c->d->nranks[w] = rondo_rank_count(t);
	for (uint32_t r = 0; r < c->d->nranks[w]; r++)
		c->d->calls[w] =
			sat_add(c->d->calls[w], rondo_rank_calls(t, r));
	return side_keys(c, w);
}

/* ---- ranks, by the pair of roots they have --------------------------------- */

struct pair {
	uint32_t root[2];
	uint32_t *ranks, nranks;
	size_t cap;
};

static uint32_t root_of(const struct side *s, uint32_t nranks, uint32_t r)
{
	return r < nranks ? rondo_rank_root(s->t, r) : AN_DIFF_NONE;
}

static int add_rank(struct pair *p, uint32_t rank)
{
	if (util_grow(&p->ranks, &p->cap, p->nranks + 1, sizeof(*p->ranks)) < 0)
		return RONDO_E_NOMEM;
	p->ranks[p->nranks++] = rank;
	return 0;
}

/* The pairs of roots of every rank of either trace, into *out. */
static int make_pairs(struct diff_ctx *c, struct pair **out, size_t *n)
{
	uint32_t na = c->d->nranks[0], nb = c->d->nranks[1];
	uint32_t all = na > nb ? na : nb;
	struct kmap m = {0};
	size_t cap = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	for (uint32_t r = 0; r < all && rc == 0; r++) {
		uint32_t ra = root_of(&c->s[0], na, r),
			 rb = root_of(&c->s[1], nb, r);
		int added = 0;
		uint32_t k = kmap_get(&m, ra, rb, 0, (uint32_t)*n, &added);

		if (k == KMAP_NONE || (added && util_grow(out, &cap, *n + 1,
							  sizeof(**out)) < 0)) {
			rc = RONDO_E_NOMEM;
			break;
		}
		if (added)
			(*out)[(*n)++] = (struct pair){{ra, rb}, NULL, 0, 0};
		rc = add_rank(&(*out)[k], r);
	}
	kmap_free(&m);
	return rc;
}

/* ---- calls, call by call ------------------------------------------------- */

static struct seq seq_root(const struct side *s, uint32_t root)
{
	return root == AN_DIFF_NONE ? (struct seq){0, 1} : s->rule[root];
}

static uint64_t root_len(const struct side *s, uint32_t root)
{
	return root == AN_DIFF_NONE ? 0 : rondo_rule_calls(s->t, root);
}

static int seq_eq_prefix(const struct diff_ctx *c, const struct pair *p,
			 uint64_t n)
{
	struct seq a = p->root[0] == AN_DIFF_NONE
			       ? (struct seq){0, 1}
			       : seq_prefix(c, &c->s[0], p->root[0], n);
	struct seq b = p->root[1] == AN_DIFF_NONE
			       ? (struct seq){0, 1}
			       : seq_prefix(c, &c->s[1], p->root[1], n);

	return a.h == b.h;
}

/* Where the calls of the pair's ranks differ first, into *out; 0 when
 * they do not differ (out untouched). */
static int compare_calls(const struct diff_ctx *c, const struct pair *p,
			 struct an_diff_calls *out)
{
	uint64_t la = root_len(&c->s[0], p->root[0]);
	uint64_t lb = root_len(&c->s[1], p->root[1]);
	uint64_t lo = 0, hi = la < lb ? la : lb;

	if (la == lb && seq_root(&c->s[0], p->root[0]).h ==
				seq_root(&c->s[1], p->root[1]).h)
		return 0;
	/* the longest prefix that is equal: lo equal, past hi not */
	if (!seq_eq_prefix(c, p, hi)) {
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (seq_eq_prefix(c, p, mid))
				lo = mid;
			else
				hi = mid;
		}
		hi = lo;
	}
	*out = (struct an_diff_calls){{la, lb},
				      hi,
				      {key_at(&c->s[0], p->root[0], hi),
				       key_at(&c->s[1], p->root[1], hi)},
				      p->ranks,
				      p->nranks};
	return 1;
}

/* ---- calls per key and per function, per rank ---------------------------- */

/* Adds (id, n[0], n[1]) on the pair's ranks to *v, merging with an
 * entry of the same figures (map m). */
static int add_count(struct kmap *m, struct an_diff_count **v, size_t *n,
		     size_t *cap, uint32_t id, const uint64_t *cnt,
		     const struct pair *p)
{
	int added = 0;
	uint32_t k = kmap_get(m, id, cnt[0], cnt[1], (uint32_t)*n, &added);
	struct an_diff_count *e;
	size_t rcap;

	if (k == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (added) {
		if (util_grow(v, cap, *n + 1, sizeof(**v)) < 0)
			return RONDO_E_NOMEM;
		(*v)[(*n)++] =
			(struct an_diff_count){id, {cnt[0], cnt[1]}, NULL, 0};
	}
	e = &(*v)[k];
	rcap = e->nranks;
	if (util_grow(&e->ranks, &rcap, (size_t)e->nranks + p->nranks,
		      sizeof(*e->ranks)) < 0)
		return RONDO_E_NOMEM;
	memcpy(e->ranks + e->nranks, p->ranks, p->nranks * sizeof(*p->ranks));
	e->nranks += p->nranks;
	return 0;
}

/* Calls per key (what == 0) or per function, of each side on the
 * pair's ranks, into cnt[2][...]. */
static void count_pair(struct diff_ctx *c, const struct pair *p,
		       uint64_t *cnt[2], uint32_t n, int what)
{
	for (int w = 0; w < 2; w++) {
		struct side *s = &c->s[w];

		memset(cnt[w], 0, n * sizeof(*cnt[w]));
		if (p->root[w] == AN_DIFF_NONE)
			continue;
		an_rule_mult(s->t, p->root[w], 0, s->mult, s->work);
		for (uint32_t sig = 0; sig < s->nsigs; sig++) {
			uint32_t id = what == 0 ? s->key[sig]
						: c->d->keys[s->key[sig]].func;

			cnt[w][id] = sat_add(cnt[w][id], s->mult[sig]);
		}
	}
}

struct counts {
	struct kmap m;
	size_t cap;
};

static int count_diffs(struct diff_ctx *c, const struct pair *p,
		       uint64_t *cnt[2], int what, struct counts *cs)
{
	struct an_diff *d = c->d;
	uint32_t n = what == 0 ? d->nkeys : d->nfuncs;

	count_pair(c, p, cnt, n, what);
	for (uint32_t id = 0; id < n; id++) {
		uint64_t both[2] = {cnt[0][id], cnt[1][id]};
		int rc;

		if (both[0] == both[1])
			continue;
		rc = what == 0 ? add_count(&cs->m, &d->sigs, &d->nsigs,
					   &cs->cap, id, both, p)
			       : add_count(&cs->m, &d->fcounts, &d->nfcounts,
					   &cs->cap, id, both, p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_count(const void *a, const void *b)
{
	const struct an_diff_count *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return cmp_u32(x->ranks, y->ranks);
}

static int cmp_calls(const void *a, const void *b)
{
	const struct an_diff_calls *x = a, *y = b;

	return cmp_u32(x->ranks, y->ranks);
}

static void sort_counts(struct an_diff_count *v, size_t n)
{
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		qsort(v[i].ranks, v[i].nranks, sizeof(*v[i].ranks), cmp_u32);
	qsort(v, n, sizeof(*v), cmp_count);
}

/* ---- every pair ---------------------------------------------------------- */

static int diff_pairs(struct diff_ctx *c, struct pair *pairs, size_t np)
{
	struct an_diff *d = c->d;
	uint32_t n = d->nkeys > d->nfuncs ? d->nkeys : d->nfuncs;
	uint64_t *cnt[2] = {calloc(n ? n : 1, 8), calloc(n ? n : 1, 8)};
	struct counts ks = {0}, fs = {0};
	int rc = cnt[0] && cnt[1] ? 0 : RONDO_E_NOMEM;

	for (size_t i = 0; i < np && rc == 0; i++) {
		struct an_diff_calls x;

		rc = count_diffs(c, &pairs[i], cnt, 0, &ks);
		if (rc == 0)
			rc = count_diffs(c, &pairs[i], cnt, 1, &fs);
		if (rc < 0 || !compare_calls(c, &pairs[i], &x))
			continue;
		if (util_grow(&d->seqs, &c->cap_seqs, d->nseqs + 1,
			      sizeof(*d->seqs)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		d->seqs[d->nseqs++] = x;
		pairs[i].ranks = NULL; /* now the diff's */
	}
	kmap_free(&ks.m);
	kmap_free(&fs.m);
	free(cnt[0]);
	free(cnt[1]);
	d->same = rc == 0 && d->nseqs == 0 && d->nranks[0] == d->nranks[1];
	if (d->nseqs)
		qsort(d->seqs, d->nseqs, sizeof(*d->seqs), cmp_calls);
	sort_counts(d->sigs, d->nsigs);
	sort_counts(d->fcounts, d->nfcounts);
	return rc;
}

/* ---- matrix and time ------------------------------------------------------ */

static int diff_matrix(struct an_diff *d, const rondo_trace *a,
		       const rondo_trace *b)
{
	struct an_matrix m[2] = {{0}};
	size_t cap = 0;
	int rc;

	if (d->nranks[0] != d->nranks[1])
		return 0;
	rc = an_matrix(a, NULL, &m[0]);
	if (rc == 0)
		rc = an_matrix(b, NULL, &m[1]);
	for (uint64_t i = 0; rc == 0 && i < (uint64_t)m[0].n * m[0].n; i++) {
		if (m[0].msgs[i] == m[1].msgs[i] &&
		    m[0].bytes[i] == m[1].bytes[i])
			continue;
		if (util_grow(&d->cells, &cap, d->ncells + 1,
			      sizeof(*d->cells)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		d->cells[d->ncells++] =
			(struct an_diff_cell){(uint32_t)(i / m[0].n),
					      (uint32_t)(i % m[0].n),
					      {m[0].msgs[i], m[1].msgs[i]},
					      {m[0].bytes[i], m[1].bytes[i]}};
	}
	d->matrix = rc == 0;
	an_matrix_free(&m[0]);
	an_matrix_free(&m[1]);
	return rc;
}

static int diff_rank_time(struct an_diff *d, const rondo_trace *a,
			  const rondo_trace *b)
{
	uint32_t n = d->nranks[0] < d->nranks[1] ? d->nranks[0] : d->nranks[1];
	const rondo_trace *t[2] = {a, b};
	uint64_t ns;

	if (n == 0 || rondo_rank_mpi_time(a, 0, &ns) < 0 ||
	    rondo_rank_mpi_time(b, 0, &ns) < 0)
		return 0; /* a trace without per-rank times */
	for (int w = 0; w < 2; w++) {
		d->rank_ns[w] = calloc(n, sizeof(*d->rank_ns[w]));
		if (!d->rank_ns[w])
			return RONDO_E_NOMEM;
		for (uint32_t r = 0; r < n; r++)
			rondo_rank_mpi_time(t[w], r, &d->rank_ns[w][r]);
	}
	return 0;
}

/* ---- the comparison ------------------------------------------------------- */

int an_diff(const rondo_trace *a, const rondo_trace *b,
	    const struct an_diff_opts *o, struct an_diff *d)
{
	static const struct an_diff_opts none;
	struct diff_ctx c = {.o = o ? o : &none, .d = d};
	struct pair *pairs = NULL;
	size_t np = 0;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = side_init(&c, 0, a);
	if (rc == 0)
		rc = side_init(&c, 1, b);
	if (rc == 0) {
		hash_rules(&c, &c.s[0]);
		hash_rules(&c, &c.s[1]);
		rc = make_pairs(&c, &pairs, &np);
	}
	if (rc == 0)
		rc = diff_pairs(&c, pairs, np);
	if (rc == 0)
		rc = diff_matrix(d, a, b);
	if (rc == 0)
		rc = diff_rank_time(d, a, b);
	for (size_t i = 0; i < np; i++)
		free(pairs[i].ranks);
	free(pairs);
	kmap_free(&c.keys);
	side_free(&c.s[0]);
	side_free(&c.s[1]);
	return rc;
}

void an_diff_free(struct an_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nseqs; i++)
		free(d->seqs[i].ranks);
	for (size_t i = 0; i < d->nsigs; i++)
		free(d->sigs[i].ranks);
	for (size_t i = 0; i < d->nfcounts; i++)
		free(d->fcounts[i].ranks);
	free(d->seqs);
	free(d->sigs);
	free(d->fcounts);
	free(d->cells);
	free(d->keys);
	free(d->funcs);
	free(d->rank_ns[0]);
	free(d->rank_ns[1]);
	memset(d, 0, sizeof(*d));
}
