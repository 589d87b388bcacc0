/*
 * merge.c - combining the ranks' tables and grammars (see merge.h); how a
 * merge travels between ranks as a message is merge_wire.c's.
 *
 * Both halves look things up in the same kind of index: an open-addressing
 * table of entry numbers keyed by a 64-bit hash, confirmed by a full
 * comparison.  Signatures keep their argument bytes in chunks that never
 * move, so the fmt_sig.args pointers merge_cst() hands out stay valid while
 * the table grows.  Rules are stored once each, whichever rank grammars
 * they come from: a rank grammar's rules are looked up bottom up (rule
 * references renumbered first), so identical rank grammars end at the
 * same root rule, and ranks that share a loop body or a phase share its
 * rules.  Memory is proportional to the distinct signatures and rules
 * plus the rank map engine, which costs O(1) per rank for regular rank
 * patterns.
 */
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "merge.h"
#include "merge_int.h"
#include "util.h"

/* Most signatures are tens of bytes: a chunk holds thousands of them. */
#define CHUNK_SIZE 65536
#define TABLE_MIN  64

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
	if (util_grow(&ss->cst.sig, &ss->cap, (size_t)ss->cst.n + 1,
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

/* A rule body, its rule references already ids of `all`. */
struct body {
	const rondo_sym *sym;
	uint32_t n;
};

static uint64_t body_hash(const struct body *b)
{
	uint64_t h = hash_mix(0, b->n);

	for (uint32_t k = 0; k < b->n; k++)
		h = hash_mix(hash_mix(h, b->sym[k].sym), b->sym[k].count);
	return hash_end(h);
}

static int body_same(const void *owner, uint32_t idx, const void *key)
{
	const struct fmt_grammar *all = &((const struct grams *)owner)->all;
	const struct body *b = key;
	const rondo_sym *a = all->body + all->first[idx];

	if (all->first[idx + 1] - all->first[idx] != b->n)
		return 0;
	for (uint32_t k = 0; k < b->n; k++)
		if (a[k].sym != b->sym[k].sym || a[k].count != b->sym[k].count)
			return 0;
	return 1;
}

/* The rule with body b, added if it is new: *id.  RONDO_E_RANGE when ids
 * or symbol offsets would overflow. */
static int rule_intern(struct grams *gs, const struct body *b, uint32_t *id)
{
	struct fmt_grammar *all = &gs->all;
	uint64_t h = body_hash(b),
		 syms = (uint64_t)all->first[all->nrules] + b->n;
	struct slot *slot;

	/* Before the lookup: growing the index moves the slot it returns. */
	if (table_reserve(&gs->index, all->nrules + 1))
		return RONDO_E_NOMEM;
	slot = table_find(&gs->index, h, body_same, gs, b);
	if (!slot->idx1) {
		/* Each rule may become a terminal of the rank map. */
		if (all->nrules > GRAMMAR_MAX_TERMINAL || syms > UINT32_MAX)
			return RONDO_E_RANGE;
		if (util_grow(&all->first, &gs->rules_cap,
			      (size_t)all->nrules + 2, sizeof(*all->first)) ||
		    util_grow(&all->body, &gs->body_cap, syms ? syms : 1,
			      sizeof(*all->body)))
			return RONDO_E_NOMEM;
		for (uint32_t k = 0; k < b->n; k++)
			all->body[all->first[all->nrules] + k] =
				(rondo_sym){b->sym[k].sym, 0, b->sym[k].count};
		all->first[all->nrules + 1] = (uint32_t)syms;
		table_put(slot, h, all->nrules++);
	}
	*id = slot->idx1 - 1;
	return 0;
}

/* Stores the rules of g (terminals renumbered by term, when not NULL;
 * term_n of them) that are not there yet; *root: its root rule's id, and
 * when ids is not NULL ids[r]: rule r's. */
static int gram_intern_ids(struct grams *gs, const struct fmt_grammar *g,
			   const uint32_t *term, uint32_t term_n, uint32_t *ids,
			   uint32_t *root)
{
	uint32_t *id =
		ids ? ids : malloc(sizeof(*id) * ((size_t)g->nrules + 1));
	rondo_sym *tmp = NULL;
	size_t captmp = 0;
	int rc = id ? gram_valid(g) : RONDO_E_NOMEM;

	for (uint32_t r = 0; !rc && r < g->nrules; r++) {
		struct body b = {NULL, g->first[r + 1] - g->first[r]};

		if (util_grow(&tmp, &captmp, (size_t)b.n + 1, sizeof(*tmp))) {
			rc = RONDO_E_NOMEM;
			break;
		}
		for (uint32_t k = 0; !rc && k < b.n; k++) {
			rondo_sym s = g->body[g->first[r] + k];

			if (RONDO_SYM_IS_RULE(s.sym))
				s.sym = RONDO_SYM_RULE |
					id[RONDO_SYM_ID(s.sym)];
			else if (term && s.sym >= term_n)
				rc = RONDO_E_RANGE;
			else if (term)
				s.sym = term[s.sym];
			tmp[k] = s;
		}
		b.sym = tmp;
		if (!rc)
			rc = rule_intern(gs, &b, &id[r]);
	}
	if (!rc)
		*root = id[g->nrules - 1];
	if (!ids)
		free(id);
	free(tmp);
	return rc;
}

static int gram_intern(struct grams *gs, const struct fmt_grammar *g,
		       const uint32_t *term, uint32_t term_n, uint32_t *root)
{
	return gram_intern_ids(gs, g, term, term_n, NULL, root);
}

static int times_empty(struct extra *x, uint32_t nranks, uint64_t count);

/* count more sequences (ranks) that are rule `root`. */
static int roots_add(struct grams *gs, uint32_t root, uint64_t count)
{
	size_t had = gs->roots_cap;
	int rc;

	if (gs->failed)
		return RONDO_E_STATE;
	if (count > UINT32_MAX - (uint64_t)gs->nranks)
		return RONDO_E_RANGE;
	if (util_grow(&gs->is_root, &gs->roots_cap, (size_t)root + 1, 1))
		return RONDO_E_NOMEM;
	memset(gs->is_root + had, 0, gs->roots_cap - had);
	rc = grammar_append(gs->map, root, count);
	if (rc) {
		/* The engine is unusable now, and the map misses these. */
		gs->failed = 1;
		return rc;
	}
	gs->nroots += !gs->is_root[root];
	gs->is_root[root] = 1;
	gs->nranks += (uint32_t)count;
	return 0;
}

static int timing_empty(struct timing *t, uint64_t count);
static int timing_rank(struct timing *t, int64_t origin);
static int timing_seg(struct timing *t, const uint8_t *p, size_t n,
		      uint64_t calls);

/* count more ranks whose call sequence is rule `root`; the ranks before
 * them without timing get none. */
static int ranks_add(struct merge *m, uint32_t root, uint64_t count)
{
	struct extra *x = &m->x;
	uint32_t at = m->grams.nranks;
	int rc = merge_timing_pad(m);

	if (!rc && count <= UINT32_MAX - (uint64_t)at &&
	    util_grow(&x->root, &x->caproot, at + count, sizeof(*x->root)))
		rc = RONDO_E_NOMEM;
	rc = rc ? rc : roots_add(&m->grams, root, count);
	for (uint64_t k = 0; !rc && k < count; k++)
		x->root[at + k] = root;
	return rc;
}

int merge_add_grammar(struct merge *m, const struct fmt_grammar *g)
{
	uint32_t root;
	int rc;

	if (m->grams.failed)
		return RONDO_E_STATE;
	rc = m->grams.nranks == UINT32_MAX
		     ? RONDO_E_RANGE
		     : gram_intern(&m->grams, g, NULL, 0, &root);
	if (!rc)
		rc = times_empty(&m->x, m->grams.nranks, 1);
	return rc ? rc : ranks_add(m, root, 1);
}

uint32_t merge_unique(const struct merge *m)
{
	return m->grams.nroots;
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

/* ---- statistics, time per rank, communicators ---------------------------- */

void merge_stat_add(rondo_stat *to, const rondo_stat *s)
{
	if (s->count == 0)
		return;
	if (to->count == 0 || s->min_ns < to->min_ns)
		to->min_ns = s->min_ns;
	if (s->max_ns > to->max_ns)
		to->max_ns = s->max_ns;
	to->count += s->count;
	to->total_ns += s->total_ns;
	to->sumsq_ns2 += s->sumsq_ns2;
	for (int k = 0; k < RONDO_HIST_BINS; k++)
		to->hist[k] += s->hist[k];
}

/* Statistics *v (of capacity *cap) for every signature so far, new ones
 * empty. */
static int stat_reserve(struct merge *m, rondo_stat **v, size_t *cap)
{
	size_t have = *cap, need = m->sigs.cst.n;

	if (need <= have)
		return 0;
	if (util_grow(v, cap, need, sizeof(**v)))
		return RONDO_E_NOMEM;
	memset(*v + have, 0, sizeof(**v) * (*cap - have));
	return 0;
}

/* The durations' statistics; the time before calls'. */
static int stats_reserve(struct merge *m)
{
	return stat_reserve(m, &m->x.stat, &m->x.capstat);
}

static int gaps_reserve(struct merge *m)
{
	return stat_reserve(m, &m->x.gap, &m->x.capgap);
}

/* Adds statistics over signatures numbered by map. */
static int stats_add(struct merge *m, const struct fmt_stats *st,
		     const uint32_t *map)
{
	if (stats_reserve(m))
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < st->n; i++) {
		merge_stat_add(&m->x.stat[map[st->st[i].sig]], &st->st[i].s);
		m->x.calls += st->st[i].s.count;
	}
	return 0;
}

/* Adds statistics of the time before calls, over signatures numbered by
 * map (n of them). */
static int gaps_add(struct merge *m, const struct fmt_stats *st,
		    const uint32_t *map, uint32_t n)
{
	if (gaps_reserve(m))
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < st->n; i++) {
		if (st->st[i].sig >= n)
			return RONDO_E_RANGE;
		merge_stat_add(&m->x.gap[map[st->st[i].sig]], &st->st[i].s);
	}
	return 0;
}

/* The time before calls of the rank added last, beside its times. */
static void rank_gaps_add(struct extra *x, uint32_t rank,
			  const struct fmt_stats *st, const uint32_t *map)
{
	const uint32_t *own = x->sig + x->at[rank], *e;
	size_t n = (size_t)(x->at[rank + 1] - x->at[rank]), i;

	for (uint32_t k = 0; k < st->n; k++) {
		if (!st->st[k].s.count ||
		    !(e = fmt_sig_find(own, n, sizeof(*own),
				       map[st->st[k].sig])))
			continue; /* no time of its own: a call of nothing */
		i = (size_t)(e - x->sig);
		x->gcalls[i] += st->st[k].s.count;
		x->gcode[i] = fmt_time_code(fmt_time_value(x->gcode[i]) +
					    st->st[k].s.total_ns);
	}
}

int merge_add_gaps(struct merge *m, const struct fmt_cst *cst,
		   const struct fmt_stats *gaps)
{
	uint32_t *map = malloc(sizeof(*map) * ((size_t)cst->n + 1));
	int rc = map ? 0 : RONDO_E_NOMEM;

	if (!rc && m->grams.failed)
		rc = RONDO_E_STATE;
	if (!rc)
		rc = merge_add_cst(m, cst, map);
	if (!rc)
		rc = gaps_add(m, gaps, map, cst->n);
	if (!rc && m->grams.nranks)
		rank_gaps_add(&m->x, m->grams.nranks - 1, gaps, map);
	free(map);
	return rc;
}

/* The time lists start for ranks nranks .. nranks + count - 1, empty. */
static int times_empty(struct extra *x, uint32_t nranks, uint64_t count)
{
	if (util_grow(&x->at, &x->capat, nranks + count + 1, sizeof(*x->at)) ||
	    util_grow(&x->mpi, &x->capmpi, nranks + count, sizeof(*x->mpi)))
		return RONDO_E_NOMEM;
	x->at[0] = 0;
	for (uint64_t k = 1; k <= count; k++) {
		x->at[nranks + k] = x->ntime;
		x->mpi[nranks + k - 1] = 0;
	}
	return 0;
}

struct sig_time {
	uint32_t sig;
	uint16_t code;
	uint64_t ns;
	uint64_t gcalls; /* the time before its calls: how many, */
	uint16_t gcode;	 /* their total */
};

static int by_sig(const void *a, const void *b)
{
	const struct sig_time *x = a, *y = b;

	return (x->sig > y->sig) - (x->sig < y->sig);
}

/* The time list of the rank being added (the last one), from n (signature,
 * time) pairs renumbered by map: sorted, and two signatures that map to
 * one give one entry with their sum, so that the list increases; mpi is
 * the code of its time in MPI. */
static int times_add(struct merge *m, struct sig_time *v, uint32_t n,
		     uint16_t mpi)
{
	struct extra *x = &m->x;
	uint32_t k = 0, rank = m->grams.nranks;

	qsort(v, n, sizeof(*v), by_sig);
	for (uint32_t i = 0; i < n; i++) {
		if (k && v[k - 1].sig == v[i].sig) {
			v[k - 1].ns = fmt_time_value(v[k - 1].code) +
				      fmt_time_value(v[i].code);
			v[k - 1].code = fmt_time_code(v[k - 1].ns);
			v[k - 1].gcalls += v[i].gcalls;
			v[k - 1].gcode =
				fmt_time_code(fmt_time_value(v[k - 1].gcode) +
					      fmt_time_value(v[i].gcode));
		} else {
			v[k++] = v[i];
		}
	}
	if (util_grow(&x->sig, &x->capsig, x->ntime + k, sizeof(*x->sig)) ||
	    util_grow(&x->code, &x->capcode, x->ntime + k, sizeof(*x->code)) ||
	    util_grow(&x->gcalls, &x->capgcalls, x->ntime + k,
		      sizeof(*x->gcalls)) ||
	    util_grow(&x->gcode, &x->capgcode, x->ntime + k,
		      sizeof(*x->gcode)) ||
	    times_empty(x, rank, 1))
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < k; i++) {
		x->sig[x->ntime + i] = v[i].sig;
		x->code[x->ntime + i] = v[i].code;
		x->gcalls[x->ntime + i] = v[i].gcalls;
		x->gcode[x->ntime + i] = v[i].gcode;
	}
	x->ntime += k;
	x->at[rank + 1] = x->ntime;
	x->mpi[rank] = mpi;
	return 0;
}

static int comm_same(const void *owner, uint32_t idx, const void *key)
{
	return ((const struct extra *)owner)->key[idx] ==
	       *(const uint64_t *)key;
}

int merge_add_comm(struct merge *m, uint64_t key, const struct fmt_comm *c,
		   const struct fmt_topo *g)
{
	struct extra *x = &m->x;
	struct fmt_comm *d;
	struct fmt_topo *t;
	struct slot *slot;
	uint64_t h = hash_end(key);
	uint32_t nd = g && g->ndims <= FMT_MAX_DIMS ? g->ndims : 0;

	if (table_reserve(&x->comm_index, x->comms.n + 1))
		return RONDO_E_NOMEM;
	slot = table_find(&x->comm_index, h, comm_same, x, &key);
	if (slot->idx1) /* spoken for already */
		return 0;
	if (util_grow(&x->comms.c, &x->capcomms, (size_t)x->comms.n + 1,
		      sizeof(*x->comms.c)) ||
	    util_grow(&x->key, &x->capkeys, (size_t)x->comms.n + 1,
		      sizeof(*x->key)) ||
	    util_grow(&x->topo, &x->captopos, (size_t)x->comms.n + 1,
		      sizeof(*x->topo)))
		return RONDO_E_NOMEM;
	d = &x->comms.c[x->comms.n];
	t = &x->topo[x->comms.n];
	*d = (struct fmt_comm){c->n, c->first,
			       malloc(sizeof(uint32_t) * ((size_t)c->n + 1))};
	*t = (struct fmt_topo){0, nd, malloc(sizeof(uint32_t) * (nd + 1)),
			       malloc(nd + 1)};
	if (!d->world || !t->dims || !t->periodic) {
		free(d->world);
		free(t->dims);
		free(t->periodic);
		return RONDO_E_NOMEM;
	}
	if (c->n)
		memcpy(d->world, c->world, sizeof(uint32_t) * c->n);
	if (nd) {
		memcpy(t->dims, g->dims, sizeof(uint32_t) * nd);
		memcpy(t->periodic, g->periodic, nd);
	}
	x->key[x->comms.n] = key;
	table_put(slot, h, x->comms.n++);
	return 0;
}

/* ---- a rank, and a range of ranks ---------------------------------------- */

/* The grammar of a rank with no call: one empty rule. */
static uint32_t empty_first[2];
static rondo_sym empty_body[1];
static const struct fmt_grammar empty = {1, empty_first, empty_body};

/* Ranks added with no call: tables missing or damaged. */
int merge_add_failed(struct merge *m, uint32_t nranks)
{
	uint32_t u;
	int rc;

	if (!nranks)
		return 0;
	if (m->grams.failed)
		return RONDO_E_STATE;
	rc = gram_intern(&m->grams, &empty, NULL, 0, &u);
	if (!rc)
		rc = times_empty(&m->x, m->grams.nranks, nranks);
	if (!rc)
		rc = ranks_add(m, u, nranks);
	if (!rc)
		m->x.failed += nranks;
	return rc;
}

int merge_add_rank(struct merge *m, const struct fmt_cst *cst,
		   const struct fmt_grammar *g, const struct fmt_stats *st)
{
	uint32_t *map = malloc(sizeof(*map) * ((size_t)cst->n + 1)), u;
	struct sig_time *v = malloc(sizeof(*v) * ((size_t)st->n + 1));
	int rc = map && v ? 0 : RONDO_E_NOMEM;
	uint64_t mpi = 0;

	if (!rc && m->grams.failed)
		rc = RONDO_E_STATE;
	if (!rc)
		rc = merge_add_cst(m, cst, map);
	for (uint32_t i = 0; !rc && i < st->n; i++) {
		if (st->st[i].sig >= cst->n)
			rc = RONDO_E_RANGE;
		else
			v[i] = (struct sig_time){
				map[st->st[i].sig],
				fmt_time_code(st->st[i].s.total_ns), 0, 0, 0};
		mpi = st->st[i].s.total_ns > UINT64_MAX - mpi
			      ? UINT64_MAX
			      : mpi + st->st[i].s.total_ns;
	}
	if (!rc)
		rc = gram_intern(&m->grams, g->nrules ? g : &empty, map, cst->n,
				 &u);
	if (!rc)
		rc = stats_add(m, st, map);
	if (!rc)
		rc = times_add(m, v, st->n, fmt_time_code(mpi));
	if (!rc)
		rc = ranks_add(m, u, 1);
	free(map);
	free(v);
	return rc;
}

/* A range's rank map as runs of ranks with the same root rule (of ours),
 * in rank order. */
struct runs {
	const struct fmt_grammar *map;
	const uint32_t *rule; /* the range's rule id -> ours */
	struct run {
		uint32_t root;
		uint64_t count;
	} * run;
	size_t n, cap;
	uint64_t ranks, most; /* ranks so far, and at most */
};

static int runs_expand(struct runs *x, uint32_t rule, uint64_t times, int depth)
{
	const struct fmt_grammar *g = x->map;

	if (depth > 64)
		return RONDO_E_CORRUPT;
	for (uint64_t t = 0; t < times; t++)
		for (uint32_t k = g->first[rule]; k < g->first[rule + 1]; k++) {
			rondo_sym s = g->body[k];
			uint32_t u;
			int rc = 0;

			if (x->ranks > x->most)
				return RONDO_E_CORRUPT;
			if (RONDO_SYM_IS_RULE(s.sym)) {
				rc = runs_expand(x, RONDO_SYM_ID(s.sym),
						 s.count, depth + 1);
			} else if (s.count > x->most - x->ranks) {
				rc = RONDO_E_CORRUPT;
			} else if (x->n && x->run[x->n - 1].root ==
						   (u = x->rule[s.sym])) {
				x->run[x->n - 1].count += s.count;
				x->ranks += s.count;
			} else if (util_grow(&x->run, &x->cap, x->n + 1,
					     sizeof(*x->run))) {
				rc = RONDO_E_NOMEM;
			} else {
				x->run[x->n++] =
					(struct run){x->rule[s.sym], s.count};
				x->ranks += s.count;
			}
			if (rc)
				return rc;
		}
	return 0;
}

/* The timing of a range's ranks, added before the ranks themselves.  A
 * range without timing, or with another base, or not coded as this
 * tracer codes, gives its ranks none. */
static int range_timing(struct merge *m, const struct range *r)
{
	struct timing *t = &m->t;
	const struct fmt_timing *rt = &r->timing;
	int rc = 0;

	if (!t->base && rt->base)
		rc = merge_set_timing(m, rt->base);
	rc = rc ? rc : merge_timing_pad(m);
	if (rc || !t->base)
		return rc;
	if (rt->base != t->base || !rt->coded || !rt->follow ||
	    rt->nranks != r->nranks)
		return timing_empty(t, r->nranks);
	for (uint32_t k = 0; k < rt->nranks && !rc; k++) {
		rc = timing_rank(t, rt->offset[k]);
		for (uint64_t i = rt->first[k]; i < rt->first[k + 1] && !rc;
		     i++)
			rc = timing_seg(t, rt->data + rt->seg[i].at,
					rt->seg[i].len, rt->seg[i].calls);
	}
	return rc;
}

/* Appends n values (rank set by the caller) from p. */
static int vals_append(struct extra *x, const struct merge_val *v, size_t n)
{
	if (util_grow(&x->val, &x->capval, x->nval + n + 1, sizeof(*x->val)))
		return RONDO_E_NOMEM;
	memcpy(x->val + x->nval, v, sizeof(*v) * n);
	x->nval += n;
	return 0;
}

int merge_range_add(struct merge *m, const struct range *r)
{
	uint32_t *map = malloc(sizeof(*map) * ((size_t)r->cst.n + 1));
	uint32_t *rule = malloc(sizeof(*rule) * ((size_t)r->grams.nrules + 1));
	struct runs x = {&r->map, rule, NULL, 0, 0, 0, r->nranks};
	struct sig_time *v = NULL;
	size_t capv = 0;
	uint32_t start = m->grams.nranks, root;
	int rc = map && rule ? 0 : RONDO_E_NOMEM;

	rc = rc ? rc : merge_add_cst(m, &r->cst, map);
	/* the range's rules, renumbered to our signatures, each stored
	 * once with ours */
	if (!rc && r->grams.nrules)
		rc = gram_intern_ids(&m->grams, &r->grams, map, r->cst.n, rule,
				     &root);
	if (!rc && r->map.nrules)
		rc = runs_expand(&x, r->map.nrules - 1, 1, 0);
	if (!rc && x.ranks != r->nranks)
		rc = RONDO_E_CORRUPT;
	if (!rc && r->nranks > UINT32_MAX - (uint64_t)start)
		rc = RONDO_E_RANGE;
	/* from here on only memory can fail, and that ends the merge */
	rc = rc ? rc : stats_add(m, &r->st, map);
	rc = rc ? rc : gaps_add(m, &r->gaps, map, r->cst.n);
	for (uint32_t k = 0; !rc && k < r->nranks; k++) {
		uint64_t n = r->times.at[k + 1] - r->times.at[k];
		const uint32_t *sig = r->times.sig + r->times.list[k];

		if (util_grow(&v, &capv, n + 1, sizeof(*v))) {
			rc = RONDO_E_NOMEM;
			break;
		}
		for (uint64_t i = 0; i < n; i++) {
			uint64_t e = r->times.at[k] + i;

			v[i] = (struct sig_time){map[sig[i]], r->times.code[e],
						 0, r->gcalls[e], r->gcode[e]};
		}
		/* times_add files them under rank nranks: the ranks
		 * themselves are added below */
		m->grams.nranks = start + k;
		rc = times_add(m, v, (uint32_t)n, r->mpi[k]);
	}
	m->grams.nranks = start;
	rc = rc ? rc : range_timing(m, r);
	for (size_t i = 0; !rc && i < x.n; i++)
		rc = ranks_add(m, x.run[i].root, x.run[i].count);
	for (uint32_t i = 0; !rc && i < r->comms.n; i++)
		rc = merge_add_comm(m, r->keys[i], &r->comms.c[i],
				    &r->topos.t[i]);
	if (!rc && r->nval) {
		size_t at = m->x.nval;

		rc = vals_append(&m->x, r->val, r->nval);
		for (size_t i = at; !rc && i < m->x.nval; i++)
			m->x.val[i].rank += start;
	}
	if (!rc)
		m->x.failed += (uint32_t)r->failed;
	else if (m->grams.nranks != start || m->x.ntime != m->x.at[start])
		m->grams.failed = 1; /* half added: nothing more can be */
	free(map);
	free(rule);
	free(v);
	free(x.run);
	return rc;
}

/* ---- per-rank values ----------------------------------------------------- */

int merge_val_read(struct fmt_cur *c, struct merge_val *v)
{
	uint64_t slot;
	rondo_arg a;
	int rc = fmt_get_uvarint(c, &slot);

	rc = rc ? rc : fmt_arg_get(c, &a);
	if (rc)
		return rc;
	if (slot > UINT32_MAX || fmt_rval_of(&a, &v->v) < 0)
		return RONDO_E_CORRUPT;
	v->slot = (uint32_t)slot;
	return 0;
}

int merge_add_values(struct merge *m, const uint8_t *p, size_t n)
{
	struct merge_val *v;
	struct fmt_cur c;
	uint32_t cnt;
	int rc;

	if (!m->grams.nranks || m->grams.failed)
		return RONDO_E_STATE;
	fmt_cur_init(&c, p, n, NULL, NULL);
	rc = fmt_get_count(&c, &cnt, 2);
	if (rc)
		return rc;
	v = malloc(sizeof(*v) * ((size_t)cnt + 1));
	if (!v)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		rc = merge_val_read(&c, &v[i]);
		v[i].rank = m->grams.nranks - 1;
	}
	rc = rc ? rc : fmt_cur_end(&c);
	rc = rc ? rc : vals_append(&m->x, v, cnt);
	free(v);
	return rc;
}

const struct merge_val *merge_values(const struct merge *m, size_t *n)
{
	*n = m->x.nval;
	return m->x.val;
}

uint32_t merge_ranks(const struct merge *m)
{
	return m->grams.nranks;
}

void merge_mark_failed(struct merge *m, uint32_t n)
{
	m->x.failed += n;
}

uint32_t merge_failed(const struct merge *m)
{
	return m->x.failed;
}

uint64_t merge_calls(const struct merge *m)
{
	return m->x.calls;
}

const rondo_stat *merge_stats(struct merge *m)
{
	return stats_reserve(m) ? NULL : m->x.stat;
}

const rondo_stat *merge_gaps(struct merge *m)
{
	return gaps_reserve(m) ? NULL : m->x.gap;
}

/* One rank's time before its calls of one signature, filed under its
 * rank group's rule. */
struct group_gap {
	uint32_t root, sig;
	uint64_t calls, ns;
};

static int by_root_sig(const void *a, const void *b)
{
	const struct group_gap *x = a, *y = b;

	if (x->root != y->root)
		return (x->root > y->root) - (x->root < y->root);
	return (x->sig > y->sig) - (x->sig < y->sig);
}

int merge_groupgaps(const struct merge *m, struct fmt_groupgaps *out)
{
	const struct extra *x = &m->x;
	uint32_t nranks = m->grams.nranks;
	uint64_t n = 0, k = 0;
	struct group_gap *v;

	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; nranks && i < x->at[nranks]; i++)
		n += x->gcalls[i] != 0;
	v = malloc(sizeof(*v) * (n + 1));
	out->root = malloc(sizeof(*out->root) * (n + 1));
	out->at = malloc(sizeof(*out->at) * (n + 2));
	out->e = malloc(sizeof(*out->e) * (n + 1));
	if (!v || !out->root || !out->at || !out->e) {
		free(v);
		fmt_groupgaps_free(out);
		return RONDO_E_NOMEM;
	}
	for (uint32_t r = 0; r < nranks; r++)
		for (uint64_t i = x->at[r]; i < x->at[r + 1]; i++)
			if (x->gcalls[i])
				v[k++] = (struct group_gap){
					x->root[r], x->sig[i], x->gcalls[i],
					fmt_time_value(x->gcode[i])};
	qsort(v, n, sizeof(*v), by_root_sig);
	out->at[0] = 0;
	k = 0;
	for (uint64_t i = 0; i < n; i++) {
		struct fmt_gapent *e = &out->e[k ? k - 1 : 0];

		if (i && v[i].root == v[i - 1].root &&
		    v[i].sig == v[i - 1].sig) {
			e->calls += v[i].calls;
			e->ns = v[i].ns > UINT64_MAX - e->ns ? UINT64_MAX
							     : e->ns + v[i].ns;
			continue;
		}
		if (!i || v[i].root != v[i - 1].root) {
			out->at[out->n] = k;
			out->root[out->n++] = v[i].root;
		}
		out->e[k++] =
			(struct fmt_gapent){v[i].sig, v[i].calls, v[i].ns};
		out->at[out->n] = k;
	}
	free(v);
	return 0;
}

void merge_ranktime(const struct merge *m, struct fmt_ranktime *rt)
{
	*rt = (struct fmt_ranktime){m->grams.nranks, m->x.at, m->x.at, m->x.sig,
				    m->x.code};
}

const uint16_t *merge_rank_mpi(const struct merge *m)
{
	return m->x.mpi;
}

const struct fmt_comms *merge_comms(const struct merge *m,
				    const uint64_t **keys,
				    const struct fmt_topo **topo)
{
	*keys = m->x.key;
	*topo = m->x.topo;
	return &m->x.comms;
}

/* ---- the call grammars' store -------------------------------------------- */

static int grams_init(struct grams *gs)
{
	gs->map = grammar_create();
	gs->all.first = calloc(TABLE_MIN, sizeof(*gs->all.first));
	gs->rules_cap = TABLE_MIN;
	return gs->map && gs->all.first ? 0 : RONDO_E_NOMEM;
}

static void grams_free(struct grams *gs)
{
	grammar_free(gs->map);
	fmt_grammar_free(&gs->all);
	free(gs->is_root);
	free(gs->index.slot);
}

/* ---- per-call timing ----------------------------------------------------- */

/* One more rank, of no segment yet, its clock at origin. */
static int timing_rank(struct timing *t, int64_t origin)
{
	if (util_grow(&t->origin, &t->capo, (size_t)t->nranks + 1,
		      sizeof(*t->origin)) ||
	    util_grow(&t->first, &t->capf, (size_t)t->nranks + 2,
		      sizeof(*t->first)))
		return RONDO_E_NOMEM;
	t->origin[t->nranks++] = origin;
	t->first[t->nranks] = t->nseg;
	return 0;
}

/* A segment of `calls` calls in n bytes at p, the last rank's next. */
static int timing_seg(struct timing *t, const uint8_t *p, size_t n,
		      uint64_t calls)
{
	if (!calls)
		return 0;
	if (util_grow(&t->seg, &t->caps, t->nseg + 1, sizeof(*t->seg)) ||
	    fmt_buf_reserve(&t->data, n) < 0)
		return RONDO_E_NOMEM;
	t->seg[t->nseg++] = (struct fmt_tseg){calls, t->data.len, n};
	fmt_put_bytes(&t->data, p, n);
	t->first[t->nranks] = t->nseg;
	return 0;
}

/* count ranks of no timed call: no segment, origin 0. */
static int timing_empty(struct timing *t, uint64_t count)
{
	int rc = 0;

	for (uint64_t k = 0; !rc && k < count; k++)
		rc = timing_rank(t, 0);
	return rc;
}

int merge_timing_pad(struct merge *m)
{
	struct timing *t = &m->t;

	if (!t->base || t->nranks >= m->grams.nranks)
		return 0;
	return timing_empty(t, m->grams.nranks - t->nranks);
}

int merge_set_timing(struct merge *m, double base)
{
	if (m->t.base)
		return m->t.base == base ? 0 : RONDO_E_STATE;
	if (!(base >= RONDO_TIME_BASE_MIN && base <= RONDO_TIME_BASE_MAX))
		return RONDO_E_RANGE;
	if (util_grow(&m->t.first, &m->t.capf, 1, sizeof(*m->t.first)))
		return RONDO_E_NOMEM;
	m->t.first[0] = 0;
	m->t.base = base;
	return 0;
}

double merge_timing_base(const struct merge *m)
{
	return m->t.base;
}

int merge_add_timing(struct merge *m, const uint8_t *p, size_t n,
		     uint64_t calls, int64_t origin)
{
	struct timing *t = &m->t;
	int rc;

	if (!t->base || m->grams.nranks == 0 || t->nranks > m->grams.nranks - 1)
		return RONDO_E_STATE;
	if (t->nranks < m->grams.nranks - 1 &&
	    (rc = timing_empty(t, m->grams.nranks - 1 - t->nranks)))
		return rc;
	rc = timing_rank(t, origin);
	return rc ? rc : timing_seg(t, p, n, calls);
}

/* The section as the merge holds it: pointers into t (not copies). */
void merge_timing_view(struct merge *m, struct fmt_timing *out)
{
	const struct timing *t = &m->t;

	memset(out, 0, sizeof(*out));
	out->base = t->base;
	out->nranks = t->nranks;
	out->offset = t->origin;
	out->coded = 1;
	out->from_low = 1; /* the tracer's encoder (fmt_tenc) */
	out->follow = 1;   /* and its coder (fmt_tstream) */
	out->first = t->first;
	out->seg = t->seg;
	out->data = t->data.data;
	out->datalen = t->data.len;
}

int merge_timing(struct merge *m, struct fmt_timing *out)
{
	struct timing *t = &m->t;
	struct fmt_timing v;
	size_t nf;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!t->base || m->grams.nranks == 0)
		return RONDO_E_MISSING;
	rc = merge_timing_pad(m);
	if (rc)
		return rc;
	merge_timing_view(m, &v);
	nf = (size_t)t->nranks + 1;
	*out = v;
	out->offset = malloc(sizeof(int64_t) * (t->nranks + (size_t)1));
	out->first = malloc(sizeof(uint64_t) * nf);
	out->seg = malloc(sizeof(*out->seg) * (t->nseg + 1));
	out->data = malloc(t->data.len + 1);
	if (!out->offset || !out->first || !out->seg || !out->data) {
		fmt_timing_free(out);
		return RONDO_E_NOMEM;
	}
	memcpy(out->offset, t->origin, sizeof(int64_t) * t->nranks);
	memcpy(out->first, t->first, sizeof(uint64_t) * nf);
	memcpy(out->seg, t->seg, sizeof(*out->seg) * t->nseg);
	memcpy(out->data, t->data.data, t->data.len);
	return 0;
}

/* ---- the handle ---------------------------------------------------------- */

struct merge *merge_create(void)
{
	struct merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (grams_init(&m->grams)) {
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
	grams_free(&m->grams);
	free(m->t.origin);
	free(m->t.first);
	free(m->t.seg);
	fmt_buf_free(&m->t.data);
	free(m->x.stat);
	free(m->x.gap);
	free(m->x.at);
	free(m->x.mpi);
	free(m->x.sig);
	free(m->x.code);
	free(m->x.gcalls);
	free(m->x.gcode);
	free(m->x.root);
	for (uint32_t i = 0; i < m->x.comms.n; i++) {
		free(m->x.topo[i].dims);
		free(m->x.topo[i].periodic);
	}
	free(m->x.topo);
	fmt_comms_free(&m->x.comms);
	free(m->x.key);
	free(m->x.comm_index.slot);
	free(m->x.val);
	free(m);
}
