/*
 * merge.c - combining the ranks' tables and grammars (see merge.h).
 *
 * Both halves look things up in the same kind of index: an open-addressing
 * table of entry numbers keyed by a 64-bit hash, confirmed by a full
 * comparison.  Signatures keep their argument bytes in chunks that never
 * move, so the fmt_sig.args pointers merge_cst() hands out stay valid while
 * the table grows.  Distinct rank grammars are stored only once, already
 * renumbered inside the combined grammar; an incoming rank grammar is
 * compared against that shifted copy, so no second copy is kept.  Memory
 * is proportional to the distinct signatures and grammars plus the rank
 * map engine, which costs O(1) per rank for regular rank patterns.
 */
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "merge.h"

/* Most signatures are tens of bytes: a chunk holds thousands of them. */
#define CHUNK_SIZE 65536
#define TABLE_MIN  64

/* Argument bytes; a chunk is full when the next signature does not fit. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint8_t data[];
};

/* An index slot: the entry's number + 1 (0: empty) and the low half of
 * its hash, so that probing and growing rarely touch the entries. */
struct slot {
	uint32_t idx1;
	uint32_t hash;
};

struct table {
	struct slot *slot;
	size_t mask; /* capacity - 1; capacity a power of two, or 0 */
};

struct sigs {
	struct fmt_cst cst; /* the global table, as merge_cst() returns it */
	size_t cap;
	struct chunk *arena; /* newest first */
	struct table index;
};

/* A distinct rank grammar: rules base .. base + nrules - 1 of `all`. */
struct uniq {
	uint32_t base;
	uint32_t nrules;
};

struct grams {
	struct fmt_grammar all; /* the distinct rank grammars, concatenated */
	size_t rules_cap, body_cap;
	struct uniq *uniq;
	uint32_t nuniq;
	size_t uniq_cap;
	struct table index;
	struct grammar *map; /* the sequence of rank roots */
	uint32_t nranks;
	int failed; /* the map engine ran out of memory: only free is left */
};

struct merge {
	struct sigs sigs;
	struct grams grams;
};

/* ---- hashing and the index ----------------------------------------------- */

static uint64_t hash_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

/* The end of splitmix64, so that the low bits used as table positions
 * depend on every input word. */
static uint64_t hash_end(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

/* Makes room for n entries at a load of at most 3/4. */
static int table_reserve(struct table *t, uint32_t n)
{
	size_t cap = t->slot ? t->mask + 1 : 0, ncap = cap ? cap : TABLE_MIN;
	struct slot *s;

	if ((uint64_t)n * 4 <= (uint64_t)cap * 3)
		return 0;
	while ((uint64_t)n * 4 > (uint64_t)ncap * 3)
		ncap *= 2;
	/* Positions come from the 32 hash bits a slot keeps. */
	if (ncap > ((size_t)1 << 31) || ncap > SIZE_MAX / sizeof(*s))
		return RONDO_E_NOMEM;
	s = calloc(ncap, sizeof(*s));
	if (!s)
		return RONDO_E_NOMEM;
	for (size_t i = 0; i < cap; i++) {
		size_t j = t->slot[i].hash & (ncap - 1);

		if (!t->slot[i].idx1)
			continue;
		while (s[j].idx1)
			j = (j + 1) & (ncap - 1);
		s[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = s;
	t->mask = ncap - 1;
	return 0;
}

typedef int (*table_same_fn)(const void *owner, uint32_t idx, const void *key);

/* Returns the slot holding the entry equal to key, or the empty slot where
 * it belongs.  The table must have room (table_reserve). */
static struct slot *table_find(const struct table *t, uint64_t hash,
			       table_same_fn same, const void *owner,
			       const void *key)
{
	size_t j = (uint32_t)hash & t->mask;

	for (; t->slot[j].idx1; j = (j + 1) & t->mask)
		if (t->slot[j].hash == (uint32_t)hash &&
		    same(owner, t->slot[j].idx1 - 1, key))
			return &t->slot[j];
	return &t->slot[j];
}

static void table_put(struct slot *s, uint64_t hash, uint32_t idx)
{
	s->idx1 = idx + 1;
	s->hash = (uint32_t)hash;
}

/* ---- signatures ---------------------------------------------------------- */

static uint64_t sig_hash(const struct fmt_sig *s)
{
	uint64_t h = hash_mix(hash_mix(0, s->func), s->nargs);
	uint32_t i = 0;

	h = hash_mix(h, s->len);
	for (; i + 8 <= s->len; i += 8) {
		uint64_t w;

		memcpy(&w, s->args + i, 8);
		h = hash_mix(h, w);
	}
	for (; i < s->len; i++)
		h = hash_mix(h, s->args[i]);
	return hash_end(h);
}

static int sig_same(const void *owner, uint32_t idx, const void *key)
{
	const struct fmt_sig *a = &((const struct sigs *)owner)->cst.sig[idx];
	const struct fmt_sig *b = key;

	/* A caller's empty argument list may well be a NULL pointer. */
	return a->func == b->func && a->nargs == b->nargs && a->len == b->len &&
	       (!a->len || !memcmp(a->args, b->args, a->len));
}

/* Room for len more argument bytes in the newest chunk. */
static int arena_reserve(struct sigs *ss, size_t len)
{
	struct chunk *c = ss->arena;
	size_t cap = len > CHUNK_SIZE ? len : CHUNK_SIZE;

	if (c && c->cap - c->used >= len)
		return 0;
	if (cap > SIZE_MAX - sizeof(*c))
		return RONDO_E_NOMEM;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return RONDO_E_NOMEM;
	c->next = ss->arena;
	c->used = 0;
	c->cap = cap;
	ss->arena = c;
	return 0;
}

/* Adds s as a new global signature; nothing changes on failure. */
static int sig_insert(struct sigs *ss, const struct fmt_sig *s, uint64_t hash,
		      struct slot *slot)
{
	/* Zero bytes still get a valid pointer, for memcpy's sake. */
	static const uint8_t none[1];
	struct chunk *c;
	struct fmt_sig *d;

	if (ss->cst.n == UINT32_MAX)
		return RONDO_E_NOMEM;
	if (fmt_array_grow(&ss->cst.sig, &ss->cap, (size_t)ss->cst.n + 1,
			   sizeof(*ss->cst.sig)) ||
	    arena_reserve(ss, s->len))
		return RONDO_E_NOMEM;
	c = ss->arena;
	d = &ss->cst.sig[ss->cst.n];
	*d = *s;
	d->args = s->len ? c->data + c->used : none;
	if (s->len)
		memcpy(c->data + c->used, s->args, s->len);
	c->used += s->len;
	table_put(slot, hash, ss->cst.n++);
	return 0;
}

int merge_add_cst(struct merge *m, const struct fmt_cst *cst, uint32_t *map)
{
	struct sigs *ss = &m->sigs;

	for (uint32_t i = 0; i < cst->n; i++) {
		const struct fmt_sig *s = &cst->sig[i];
		uint64_t h = sig_hash(s);
		struct slot *slot;

		if (table_reserve(&ss->index, ss->cst.n + 1))
			return RONDO_E_NOMEM;
		slot = table_find(&ss->index, h, sig_same, ss, s);
		if (!slot->idx1 && sig_insert(ss, s, h, slot))
			return RONDO_E_NOMEM;
		map[i] = slot->idx1 - 1;
	}
	return 0;
}

const struct fmt_cst *merge_cst(const struct merge *m)
{
	return &m->sigs.cst;
}

static void sigs_free(struct sigs *ss)
{
	while (ss->arena) {
		struct chunk *next = ss->arena->next;

		free(ss->arena);
		ss->arena = next;
	}
	free(ss->cst.sig);
	free(ss->index.slot);
}

/* ---- grammars ------------------------------------------------------------ */

static uint32_t gram_nsyms(const struct fmt_grammar *g)
{
	return g->first[g->nrules] - g->first[0];
}

/* What the merge relies on: a root, bodies in order, rules referring only
 * to smaller rules, counts of at least one. */
static int gram_valid(const struct fmt_grammar *g)
{
	if (g->nrules == 0 || !g->first)
		return RONDO_E_RANGE;
	for (uint32_t r = 0; r < g->nrules; r++) {
		if (g->first[r + 1] < g->first[r] ||
		    (!g->body && g->first[r + 1] > g->first[r]))
			return RONDO_E_RANGE;
		for (uint32_t k = g->first[r]; k < g->first[r + 1]; k++) {
			rondo_sym s = g->body[k];

			if (s.count == 0 || (RONDO_SYM_IS_RULE(s.sym) &&
					     RONDO_SYM_ID(s.sym) >= r))
				return RONDO_E_RANGE;
		}
	}
	return 0;
}

/* Independent of where the grammar will sit in the combined one. */
static uint64_t gram_hash(const struct fmt_grammar *g)
{
	const rondo_sym *body = g->body + g->first[0];
	uint64_t h = hash_mix(0, g->nrules);

	for (uint32_t r = 0; r < g->nrules; r++)
		h = hash_mix(h, g->first[r + 1] - g->first[r]);
	for (uint32_t k = 0; k < gram_nsyms(g); k++)
		h = hash_mix(hash_mix(h, body[k].sym), body[k].count);
	return hash_end(h);
}

/* Whether g, shifted to the stored grammar's base, equals it. */
static int gram_same(const void *owner, uint32_t idx, const void *key)
{
	const struct grams *gs = owner;
	const struct fmt_grammar *g = key, *all = &gs->all;
	const struct uniq *u = &gs->uniq[idx];
	const rondo_sym *a = all->body + all->first[u->base];
	const rondo_sym *b = g->body + g->first[0];

	if (u->nrules != g->nrules)
		return 0;
	for (uint32_t r = 1; r <= g->nrules; r++)
		if (all->first[u->base + r] - all->first[u->base] !=
		    g->first[r] - g->first[0])
			return 0;
	for (uint32_t k = 0; k < gram_nsyms(g); k++) {
		uint32_t s = b[k].sym;

		if (RONDO_SYM_IS_RULE(s))
			s = RONDO_SYM_RULE | (RONDO_SYM_ID(s) + u->base);
		if (a[k].sym != s || a[k].count != b[k].count)
			return 0;
	}
	return 1;
}

/* Room for g at the end of the combined grammar; nothing changes on
 * failure.  RONDO_E_RANGE when ids or symbol offsets would overflow. */
static int gram_reserve(struct grams *gs, const struct fmt_grammar *g)
{
	uint64_t rules = (uint64_t)gs->all.nrules + g->nrules;
	uint64_t syms = (uint64_t)gs->all.first[gs->all.nrules] + gram_nsyms(g);

	/* Each root becomes a terminal of the rank map. */
	if (rules - 1 > GRAMMAR_MAX_TERMINAL || syms > UINT32_MAX)
		return RONDO_E_RANGE;
	if (fmt_array_grow(&gs->all.first, &gs->rules_cap, rules + 1,
			   sizeof(*gs->all.first)) ||
	    fmt_array_grow(&gs->all.body, &gs->body_cap, syms ? syms : 1,
			   sizeof(*gs->all.body)) ||
	    fmt_array_grow(&gs->uniq, &gs->uniq_cap, (size_t)gs->nuniq + 1,
			   sizeof(*gs->uniq)))
		return RONDO_E_NOMEM;
	return 0;
}

/* Appends g to the combined grammar, rule ids shifted (space reserved). */
static void gram_store(struct grams *gs, const struct fmt_grammar *g)
{
	struct fmt_grammar *all = &gs->all;
	uint32_t base = all->nrules, at = all->first[base];
	const rondo_sym *b = g->body + g->first[0];

	for (uint32_t r = 1; r <= g->nrules; r++)
		all->first[base + r] = at + g->first[r] - g->first[0];
	for (uint32_t k = 0; k < gram_nsyms(g); k++) {
		rondo_sym s = {b[k].sym, 0, b[k].count};

		if (RONDO_SYM_IS_RULE(s.sym))
			s.sym = RONDO_SYM_RULE | (RONDO_SYM_ID(s.sym) + base);
		all->body[at + k] = s;
	}
	all->nrules += g->nrules;
	gs->uniq[gs->nuniq++] = (struct uniq){base, g->nrules};
}

int merge_add_grammar(struct merge *m, const struct fmt_grammar *g)
{
	struct grams *gs = &m->grams;
	struct slot *slot;
	uint64_t h;
	uint32_t root;
	int rc;

	if (gs->failed)
		return RONDO_E_STATE;
	rc = gs->nranks == UINT32_MAX ? RONDO_E_RANGE : gram_valid(g);
	/* Before the lookup: growing the index moves the slot it returns. */
	if (!rc)
		rc = table_reserve(&gs->index, gs->nuniq + 1);
	if (rc)
		return rc;
	h = gram_hash(g);
	slot = table_find(&gs->index, h, gram_same, gs, g);
	if (!slot->idx1 && (rc = gram_reserve(gs, g)) != 0)
		return rc;
	root = slot->idx1 ? gs->uniq[slot->idx1 - 1].base : gs->all.nrules;
	root += g->nrules - 1;
	rc = grammar_append(gs->map, root, 1);
	if (rc) {
		/* The engine is unusable now, and the map misses this rank. */
		gs->failed = 1;
		return rc;
	}
	if (!slot->idx1) {
		gram_store(gs, g);
		table_put(slot, h, gs->nuniq - 1);
	}
	gs->nranks++;
	return 0;
}

uint32_t merge_unique(const struct merge *m)
{
	return m->grams.nuniq;
}

static int gram_copy(const struct fmt_grammar *from, struct fmt_grammar *to)
{
	size_t nsym = from->first[from->nrules];

	to->first = malloc(((size_t)from->nrules + 1) * sizeof(*to->first));
	/* One extra so that all-empty ranks do not give a NULL body. */
	to->body = malloc((nsym + 1) * sizeof(*to->body));
	if (!to->first || !to->body)
		return RONDO_E_NOMEM;
	memcpy(to->first, from->first,
	       ((size_t)from->nrules + 1) * sizeof(*to->first));
	if (nsym)
		memcpy(to->body, from->body, nsym * sizeof(*to->body));
	to->nrules = from->nrules;
	return 0;
}

int merge_finish(struct merge *m, struct fmt_grammar *all,
		 struct fmt_rankmap *rm)
{
	struct grams *gs = &m->grams;
	int rc;

	memset(all, 0, sizeof(*all));
	memset(rm, 0, sizeof(*rm));
	if (gs->failed || gs->nranks == 0)
		return RONDO_E_STATE;
	rc = gram_copy(&gs->all, all);
	if (!rc)
		rc = grammar_export(gs->map, &rm->map);
	if (rc) {
		fmt_grammar_free(all);
		fmt_rankmap_free(rm);
		return rc;
	}
	rm->nranks = gs->nranks;
	return 0;
}

/* ---- the handle ---------------------------------------------------------- */

struct merge *merge_create(void)
{
	struct merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->grams.map = grammar_create();
	m->grams.all.first = calloc(TABLE_MIN, sizeof(*m->grams.all.first));
	m->grams.rules_cap = TABLE_MIN;
	if (!m->grams.map || !m->grams.all.first) {
		merge_free(m);
		return NULL;
	}
	return m;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	sigs_free(&m->sigs);
	grammar_free(m->grams.map);
	fmt_grammar_free(&m->grams.all);
	free(m->grams.uniq);
	free(m->grams.index.slot);
	free(m);
}
