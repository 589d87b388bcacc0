/*
 * grammar.c - online Sequitur with repetition counts (see grammar.h).
 *
 * Layout.  A rule body is a circular doubly-linked list of nodes closed by
 * a guard node.  All nodes live in one array addressed by 32-bit indices;
 * index 0 is never used, so 0 means "none".  A symbol node holds a value (a
 * terminal, or RONDO_SYM_RULE | rule id) and a count >= 1; a guard holds its
 * rule's id and count 0, and a freed node has count 0 too, so "count != 0"
 * is the test for "a symbol".
 *
 * Digram index.  An open-addressing table maps a digram (x^a, y^b) to the
 * node holding x^a.  Keys are not stored but read from the node and its
 * successor, so an entry must be removed (digram_forget) before either node
 * changes its value, its count or its successor.  Inlining moves nodes from
 * one body to another without changing them, so their entries stay valid.
 *
 * Rule references.  Each rule keeps how many nodes refer to it and the XOR
 * of their indices: when only one node refers to it, the XOR is that node,
 * which is all inlining needs.
 *
 * Restoring the invariants.  An edit pushes the nodes whose digram may be
 * new onto one stack and the rules whose utility may be gone onto another;
 * grammar_settle() pops both until they are empty.  Every check is
 * idempotent and skips freed nodes and rules, so a stale or repeated entry
 * costs a lookup, never a wrong edit.  Adjacent equal symbols, on the other
 * hand, are merged as soon as they meet (node_merge), so the stacks only
 * ever see grammars without them; that is also why two occurrences of a
 * digram can never overlap.
 *
 * Single-symbol bodies.  Merging could in principle shrink a body to one
 * symbol (X -> W y z where y z is W's body becomes X -> W^2), or a body could
 * shrink to a digram that is another rule's whole body (X -> W).  No input
 * we know of does either: not every binary input of 22 symbols, nor every
 * ternary one of 14, nor about 100 million random appends (loops with
 * mutations, random counts included).  So such a rule is simply left as it
 * is, under the ordinary utility test (two references, or one with a count
 * >= 2): the grammar stays correct and grammar_check() accepts it, at the
 * cost of one rule.  Inlining it at every reference would need a list of
 * references per rule, 8 more bytes per node, for a case never seen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar.h"

#define ROOT 0
#define RULE RONDO_SYM_RULE
/* Keeps every expansion length below 2^63, as fmt_grammar_decode demands;
 * a count never exceeds the length, so counts cannot overflow either. */
#define MAX_LENGTH    ((uint64_t)INT64_MAX)
#define INITIAL_NODES 1024
#define INITIAL_RULES 64
#define INITIAL_SLOTS 1024
/* Nodes a new rule takes: its guard and its two body nodes. */
#define RULE_NODES 3
#define SNAPSHOTS  8
/* The most pending symbols: a flush copies them out first, since replaying
 * them edits the rules they come from. */
#define PENDING_MAX (1u << 14)

struct node {
	uint32_t prev, next;
	uint32_t value;
	uint64_t count;
};

/* ref_xor is the XOR of the nodes referring to the rule.  A free rule has
 * guard 0 and links the free list through ref_xor. */
struct rule {
	uint32_t guard;
	uint32_t refs;
	uint32_t ref_xor;
};

struct slot {
	uint32_t node; /* 0: empty */
	uint32_t hash;
};

struct stack {
	uint32_t *v;
	size_t n, cap;
};

/*
 * The root as it stood when it ended with R^k after a node P: if it later
 * ends with R^(k+1) after P, and the rule and symbol counts and the sum of
 * all digram hashes say that nothing else changed, then the slow path just
 * turned G(k) into G(k+1) on the input expand(R), and will do the same from
 * G(k+1): see "Fast path".
 */
struct snapshot {
	uint32_t last, prev, value, nrules;
	uint64_t count, symbols, sum;
};

/* One level of the walk through expand(R): node is in a rule body, rep
 * copies of it are done. */
struct cframe {
	uint32_t node;
	uint64_t rep;
};

/* Armed when last != 0: the root ends with last = R^k, and the pending
 * symbols, appended since but not yet given to the grammar, are the first
 * `pending` symbols of expand(R); the top frame is the next one. */
struct cursor {
	struct cframe *f;
	uint32_t depth, cap;
	uint32_t last;
	uint64_t pending;
	int owed; /* the digram (P, last) is out of the table (cursor_complete) */
};

struct grammar {
	struct node *nodes;
	uint32_t node_top, node_cap, node_free, node_nfree;
	struct rule *rules;
	uint32_t rule_top, rule_cap, rule_free, nrules;
	struct slot *table;
	size_t table_cap, table_n; /* table_cap is a power of two */
	struct stack work;	   /* nodes whose digram must be checked */
	struct stack rwork;	   /* rules whose utility must be checked */
	uint64_t digram_sum;	   /* of the indexed digrams' 64-bit hashes */
	uint64_t length, symbols;
	struct snapshot snap[SNAPSHOTS];
	uint32_t snap_next;
	struct cursor cur;
	uint32_t no_arm; /* a rule whose expansion outgrew PENDING_MAX */
	int slow_only;	 /* grammar_set_fast_path(g, 0) */
	int nomem;	 /* an allocation failed inside the current append */
	int failed;	 /* sticky: the grammar is unusable */
};

/* ---- nodes and rules ---------------------------------------------------- */

static int node_is_sym(const struct grammar *g, uint32_t n)
{
	return g->nodes[n].count != 0;
}

/* Makes sure the next k node_alloc() calls cannot fail, so that no edit
 * ever sees the node array move or half-happen. */
static int node_reserve(struct grammar *g, uint32_t k)
{
	uint32_t cap;
	struct node *p;

	if (g->node_nfree + (g->node_cap - g->node_top) >= k)
		return 0;
	if (g->node_cap == UINT32_MAX)
		return -1;
	cap = g->node_cap > UINT32_MAX / 2 ? UINT32_MAX : g->node_cap * 2;
	p = realloc(g->nodes, (size_t)cap * sizeof(*p));
	if (!p)
		return -1;
	g->nodes = p;
	g->node_cap = cap;
	return 0;
}

static uint32_t node_alloc(struct grammar *g, uint32_t value, uint64_t count)
{
	uint32_t n;

	if (g->node_free) {
		n = g->node_free;
		g->node_free = g->nodes[n].next;
		g->node_nfree--;
	} else {
		n = g->node_top++;
	}
	g->nodes[n].value = value;
	g->nodes[n].count = count;
	return n;
}

static void node_free(struct grammar *g, uint32_t n)
{
	g->nodes[n].count = 0;
	g->nodes[n].next = g->node_free;
	g->node_free = n;
	g->node_nfree++;
}

static void node_link(struct grammar *g, uint32_t a, uint32_t b)
{
	g->nodes[a].next = b;
	g->nodes[b].prev = a;
}

static void node_unlink(struct grammar *g, uint32_t n)
{
	node_link(g, g->nodes[n].prev, g->nodes[n].next);
}

static int rule_reserve(struct grammar *g)
{
	uint32_t cap;
	struct rule *p;

	if (g->rule_free || g->rule_top < g->rule_cap)
		return 0;
	if (g->rule_cap > (RULE - 1) / 2)
		return -1;
	cap = g->rule_cap * 2;
	p = realloc(g->rules, (size_t)cap * sizeof(*p));
	if (!p)
		return -1;
	g->rules = p;
	g->rule_cap = cap;
	return 0;
}

/* Returns a new rule with an empty body; needs rule_reserve() and one
 * reserved node. */
static uint32_t rule_alloc(struct grammar *g)
{
	uint32_t r, gd;

	if (g->rule_free) {
		r = g->rule_free;
		g->rule_free = g->rules[r].ref_xor;
	} else {
		r = g->rule_top++;
	}
	gd = node_alloc(g, r, 0);
	node_link(g, gd, gd);
	g->rules[r] = (struct rule){.guard = gd};
	g->nrules++;
	return r;
}

static void rule_free(struct grammar *g, uint32_t r)
{
	node_free(g, g->rules[r].guard);
	g->rules[r] = (struct rule){.ref_xor = g->rule_free};
	g->rule_free = r;
	g->nrules--;
}

/* Returns the rule whose whole body is the digram at n, or ROOT if none:
 * the root is never referenced, so it cannot stand for a digram. */
static uint32_t rule_of_body(const struct grammar *g, uint32_t n)
{
	const struct node *x = &g->nodes[n];
	uint32_t gd = x->prev;

	if (node_is_sym(g, gd) || g->nodes[x->next].next != gd)
		return ROOT;
	return g->nodes[gd].value;
}

/* ---- work stacks -------------------------------------------------------- */

static void stack_push(struct grammar *g, struct stack *s, uint32_t v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint32_t *p = realloc(s->v, cap * sizeof(*p));

		if (!p) {
			g->nomem = 1;
			return;
		}
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
}

/* The digram starting at n may be new. */
static void work_digram(struct grammar *g, uint32_t n)
{
	stack_push(g, &g->work, n);
}

static void ref_add(struct grammar *g, uint32_t n)
{
	uint32_t v = g->nodes[n].value;

	if (v & RULE) {
		g->rules[v & ~RULE].refs++;
		g->rules[v & ~RULE].ref_xor ^= n;
	}
}

/* Node n stops referring to its value; a rule may become useless. */
static void ref_del(struct grammar *g, uint32_t n)
{
	uint32_t v = g->nodes[n].value;

	if (v & RULE) {
		g->rules[v & ~RULE].refs--;
		g->rules[v & ~RULE].ref_xor ^= n;
		stack_push(g, &g->rwork, v & ~RULE);
	}
}

/* ---- digram index ------------------------------------------------------- */

static int digram_at(const struct grammar *g, uint32_t n)
{
	return node_is_sym(g, n) && node_is_sym(g, g->nodes[n].next);
}

/* The slot keeps the top half; the whole hash goes into the table's sum. */
static uint64_t digram_hash(const struct grammar *g, uint32_t n)
{
	const struct node *a = &g->nodes[n], *b = &g->nodes[a->next];
	uint64_t h = (uint64_t)a->value << 32 | b->value;

	h ^= a->count * 0x9e3779b97f4a7c15u;
	h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9u;
	h ^= b->count * 0xc2b2ae3d27d4eb4fu;
	return (h ^ (h >> 32)) * 0x94d049bb133111ebu;
}

static uint32_t hash_key(uint64_t h)
{
	return (uint32_t)(h >> 32);
}

static int digram_equal(const struct grammar *g, uint32_t m, uint32_t n)
{
	const struct node *a = &g->nodes[m], *b = &g->nodes[a->next];
	const struct node *c = &g->nodes[n], *d = &g->nodes[c->next];

	return a->value == c->value && a->count == c->count &&
	       b->value == d->value && b->count == d->count;
}

/* Returns the slot holding the digram at n (possibly another occurrence),
 * or the empty slot where it would go. */
static size_t table_find(const struct grammar *g, uint32_t n, uint32_t h)
{
	size_t mask = g->table_cap - 1, i;

	for (i = h & mask;; i = (i + 1) & mask) {
		const struct slot *s = &g->table[i];

		if (!s->node || (s->hash == h && digram_equal(g, s->node, n)))
			return i;
	}
}

static int table_grow(struct grammar *g)
{
	size_t cap = g->table_cap * 2, mask = cap - 1, i, j;
	struct slot *t;

	if (cap > (size_t)UINT32_MAX + 1)
		return -1;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (i = 0; i < g->table_cap; i++) {
		if (!g->table[i].node)
			continue;
		for (j = g->table[i].hash & mask; t[j].node; j = (j + 1) & mask)
			;
		t[j] = g->table[i];
	}
	free(g->table);
	g->table = t;
	g->table_cap = cap;
	return 0;
}

/* Puts n, absent from the table, into the empty slot i found for it. */
static void table_put(struct grammar *g, size_t i, uint32_t n, uint64_t h)
{
	if ((g->table_n + 1) * 2 > g->table_cap) {
		if (table_grow(g)) {
			g->nomem = 1;
			return;
		}
		i = table_find(g, n, hash_key(h));
	}
	g->table[i] = (struct slot){.node = n, .hash = hash_key(h)};
	g->table_n++;
	g->digram_sum += h;
}

/* Backward-shift deletion: no tombstones, so probe lengths stay short
 * however many digrams come and go. */
static void table_del(struct grammar *g, size_t i, uint64_t h)
{
	size_t mask = g->table_cap - 1, j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (!g->table[j].node)
			break;
		if (((j - (g->table[j].hash & mask)) & mask) >=
		    ((j - i) & mask)) {
			g->table[i] = g->table[j];
			i = j;
		}
	}
	g->table[i].node = 0;
	g->table_n--;
	g->digram_sum -= h;
}

/* Removes the digram at n from the index if n is its indexed occurrence;
 * must precede any change to n, to its successor or to its link. */
static void digram_forget(struct grammar *g, uint32_t n)
{
	uint64_t h;
	size_t i;

	if (!digram_at(g, n))
		return;
	h = digram_hash(g, n);
	i = table_find(g, n, hash_key(h));
	if (g->table[i].node == n)
		table_del(g, i, h);
}

/* ---- edits -------------------------------------------------------------- */

/* Merges o, a neighbour of n with the same value, into n. */
static void node_absorb(struct grammar *g, uint32_t n, uint32_t o)
{
	digram_forget(g, g->nodes[n].prev);
	digram_forget(g, n);
	digram_forget(g, g->nodes[o].prev);
	digram_forget(g, o);
	g->nodes[n].count += g->nodes[o].count;
	ref_del(g, o);
	node_unlink(g, o);
	node_free(g, o);
	g->symbols--;
}

/* n has a new value or new neighbours: merges equal neighbours into it.
 * Returns whether it did, since n's count and both its digrams changed. */
static int node_merge(struct grammar *g, uint32_t n)
{
	struct node *x = &g->nodes[n];
	int merged = 0;

	for (; node_is_sym(g, x->prev) && g->nodes[x->prev].value == x->value;
	     merged = 1)
		node_absorb(g, n, x->prev);
	for (; node_is_sym(g, x->next) && g->nodes[x->next].value == x->value;
	     merged = 1)
		node_absorb(g, n, x->next);
	return merged;
}

/* Replaces the digram at p by one reference to rule r. */
static void digram_substitute(struct grammar *g, uint32_t p, uint32_t r)
{
	uint32_t q = g->nodes[p].next;

	digram_forget(g, g->nodes[p].prev);
	digram_forget(g, p);
	digram_forget(g, q);
	ref_del(g, p);
	ref_del(g, q);
	node_unlink(g, q);
	node_free(g, q);
	g->symbols--;
	g->nodes[p].value = RULE | r;
	g->nodes[p].count = 1;
	ref_add(g, p);
	node_merge(g, p);
	work_digram(g, g->nodes[p].prev);
	work_digram(g, p);
}

/* Makes a rule of the digram found at both m and n and uses it twice. */
static void rule_from_digram(struct grammar *g, uint32_t m, uint32_t n)
{
	const struct node *x = &g->nodes[m], *y = &g->nodes[x->next];
	uint32_t r = rule_alloc(g), gd = g->rules[r].guard;
	uint32_t a = node_alloc(g, x->value, x->count);
	uint32_t b = node_alloc(g, y->value, y->count);

	node_link(g, gd, a);
	node_link(g, a, b);
	node_link(g, b, gd);
	ref_add(g, a);
	ref_add(g, b);
	g->symbols += 2;
	digram_substitute(g, m, r);
	digram_substitute(g, n, r);
	work_digram(g, a);
}

/* Whether the digram (P, y) at m, also found elsewhere, is the only use of
 * P besides that other occurrence: then a rule Q -> P y would leave P used
 * once, inside Q, and P would be inlined, so rule_extend() does both in
 * one step. */
static int rule_extendable(const struct grammar *g, uint32_t m)
{
	const struct node *x = &g->nodes[m];

	return (x->value & RULE) && x->count == 1 &&
	       g->rules[x->value & ~RULE].refs == 2;
}

/*
 * Appends y to P's body, for the digram (P, y) at m and n: the y after m
 * moves into P's body, the one after n goes.  This is how a loop body is
 * rebuilt iteration after iteration (a rule for its first symbols grows by
 * one symbol per call), so it is worth not building and inlining a rule
 * each time.
 */
static void rule_extend(struct grammar *g, uint32_t m, uint32_t n)
{
	uint32_t gd = g->rules[g->nodes[m].value & ~RULE].guard;
	uint32_t ym = g->nodes[m].next, yn = g->nodes[n].next;

	digram_forget(g, m);
	digram_forget(g, ym);
	digram_forget(g, n);
	digram_forget(g, yn);
	node_unlink(g, ym);
	node_link(g, g->nodes[gd].prev, ym);
	node_link(g, ym, gd);
	ref_del(g, yn);
	node_unlink(g, yn);
	node_free(g, yn);
	g->symbols--;
	node_merge(g, ym);
	work_digram(g, g->nodes[ym].prev);
	/* m and n are now neighbours if the input was P y P y. */
	if (node_merge(g, n))
		work_digram(g, g->nodes[n].prev);
	work_digram(g, n);
	work_digram(g, m);
}

/* The digram at n also occurs at m, the indexed occurrence. */
static void digram_match(struct grammar *g, uint32_t m, uint32_t n)
{
	uint32_t r = rule_of_body(g, m);

	if (r != ROOT)
		digram_substitute(g, n, r);
	else if (rule_extendable(g, m))
		rule_extend(g, m, n);
	else if (node_reserve(g, RULE_NODES) || rule_reserve(g))
		g->nomem = 1;
	else
		rule_from_digram(g, m, n);
}

static void digram_check(struct grammar *g, uint32_t n)
{
	uint64_t h;
	uint32_t m;
	size_t i;

	if (!digram_at(g, n))
		return;
	h = digram_hash(g, n);
	i = table_find(g, n, hash_key(h));
	m = g->table[i].node;
	if (!m)
		table_put(g, i, n, h);
	else if (m != n)
		digram_match(g, m, n);
}

/* Replaces p, the only reference to r, by r's body, and frees r. */
static void rule_inline(struct grammar *g, uint32_t r, uint32_t p)
{
	uint32_t gd = g->rules[r].guard;
	uint32_t f = g->nodes[gd].next, l = g->nodes[gd].prev;

	digram_forget(g, g->nodes[p].prev);
	digram_forget(g, p);
	node_link(g, g->nodes[p].prev, f);
	node_link(g, l, g->nodes[p].next);
	node_free(g, p);
	rule_free(g, r);
	g->symbols--;
	/* Only the seams are new digrams, unless a merge changed f or l. */
	if (node_merge(g, f))
		work_digram(g, f);
	work_digram(g, g->nodes[f].prev);
	if (l != f && node_merge(g, l))
		work_digram(g, g->nodes[l].prev);
	work_digram(g, l);
}

static void rule_check(struct grammar *g, uint32_t r)
{
	uint32_t p = g->rules[r].ref_xor;

	if (r != ROOT && g->rules[r].guard && g->rules[r].refs == 1 &&
	    g->nodes[p].count == 1)
		rule_inline(g, r, p);
}

static int grammar_fail(struct grammar *g)
{
	g->failed = 1;
	return RONDO_E_NOMEM;
}

/* Pops both stacks until every invariant holds again. */
static int grammar_settle(struct grammar *g)
{
	while (!g->nomem) {
		if (g->work.n)
			digram_check(g, g->work.v[--g->work.n]);
		else if (g->rwork.n)
			rule_check(g, g->rwork.v[--g->rwork.n]);
		else
			return 0;
	}
	return grammar_fail(g);
}

/* ---- fast path ----------------------------------------------------------
 *
 * A loop makes the slow path rebuild its body symbol by symbol at every
 * iteration: after R^k, expand(R) is appended one terminal at a time, rules
 * for its first symbols are made, extended and inlined, and at last R^k R
 * merges into R^(k+1), leaving the rest of the grammar as it was.  Once the
 * slow path has been seen doing exactly that (a snapshot), the cursor
 * follows the next iterations through expand(R) without touching the
 * grammar, and on a whole iteration only bumps k.
 *
 * Why the result is the grammar the slow path would make.  The slow
 * process is a function of the grammar's structure and the input (node and
 * rule numbers only label it).  From G(k+1) on expand(R), it meets the same
 * digrams as it met from G(k) except those whose first symbol is R^(k+1)
 * rather than R^k; neither kind can match if no other node is R with that
 * count (count_unique, required for both), and the new tail cannot make
 * one.  So it ends in G(k+2) as before, provided its last step, the check
 * of (P, R^(k+2)), again finds nothing, which cursor_complete() checks.
 * Only count-1 appends take part, since (a,1)(a,1) and (a,2) may build
 * different grammars.  Any other append, or a flush, first replays the
 * pending symbols through the slow path, exactly as they came.
 *
 * The snapshot compares grammars by a sum of 64-bit digram hashes: a
 * collision could at worst make the fast path build a different grammar
 * than the slow path would, which is still correct (same expansion, all
 * invariants hold).
 */

/* No node but last refers to last's rule with last's count, so that no
 * digram starting with that symbol can be found elsewhere. */
static int count_unique(const struct grammar *g, uint32_t last)
{
	const struct rule *x = &g->rules[g->nodes[last].value & ~RULE];

	return x->refs == 1 ||
	       (x->refs == 2 &&
		g->nodes[x->ref_xor ^ last].count != g->nodes[last].count);
}

/* The digram sum without the root's last digram (P, last). */
static uint64_t sum_without(const struct grammar *g, uint32_t last)
{
	uint32_t p = g->nodes[last].prev;

	return g->digram_sum - (node_is_sym(g, p) ? digram_hash(g, p) : 0);
}

/* Pushes frames from the top frame's node down to a terminal. */
static int cursor_descend(struct grammar *g)
{
	struct cursor *c = &g->cur;
	uint32_t v;

	while ((v = g->nodes[c->f[c->depth - 1].node].value) & RULE) {
		if (c->depth == c->cap) {
			uint32_t cap = c->cap ? c->cap * 2 : 16;
			struct cframe *p = realloc(c->f, cap * sizeof(*p));

			if (!p)
				return -1;
			c->f = p;
			c->cap = cap;
		}
		c->f[c->depth++] = (struct cframe){
			g->nodes[g->rules[v & ~RULE].guard].next, 0};
	}
	return 0;
}

/* Points the cursor at the first symbol of expand(R). */
static int cursor_reset(struct grammar *g)
{
	struct cursor *c = &g->cur;
	uint32_t r = g->nodes[c->last].value & ~RULE;

	c->pending = 0;
	c->depth = 1;
	c->f[0] = (struct cframe){g->nodes[g->rules[r].guard].next, 0};
	return cursor_descend(g);
}

/* Moves past the terminal under the cursor.  Returns 0, 1 when that ended
 * expand(R), or -1 when out of memory. */
static int cursor_next(struct grammar *g)
{
	struct cursor *c = &g->cur;
	struct cframe *f = &c->f[c->depth - 1];
	uint32_t n;

	if (++f->rep < g->nodes[f->node].count)
		return 0;
	for (;;) {
		n = g->nodes[f->node].next;
		if (node_is_sym(g, n)) {
			*f = (struct cframe){n, 0};
			break;
		}
		if (--c->depth == 0)
			return 1;
		f--;
		if (++f->rep < g->nodes[f->node].count)
			break;
	}
	return cursor_descend(g);
}

/* Puts the digram (P, R^k) that iterations of the followed loop kept out
 * of the table back, with its count now. */
static void cursor_repay(struct grammar *g)
{
	uint32_t p;
	uint64_t h;

	if (!g->cur.owed)
		return;
	g->cur.owed = 0;
	p = g->nodes[g->cur.last].prev;
	h = digram_hash(g, p);
	table_put(g, table_find(g, p, hash_key(h)), p, h);
}

/* The cursor follows nothing, and nothing is pending. */
static void cursor_disarm(struct grammar *g)
{
	cursor_repay(g);
	g->cur.last = 0;
	g->cur.pending = 0;
}

static void cursor_arm(struct grammar *g, uint32_t last)
{
	struct cursor *c = &g->cur;

	cursor_disarm(g);
	if (g->slow_only || (g->nodes[last].value & ~RULE) == g->no_arm ||
	    !count_unique(g, last))
		return;
	if (!c->cap) {
		c->f = malloc(16 * sizeof(*c->f));
		if (!c->f)
			return;
		c->cap = 16;
	}
	c->last = last;
	if (cursor_reset(g))
		cursor_disarm(g);
}

/*
 * A whole expand(R) has come: R^k becomes R^(k+1) if the new digram
 * (P, R^(k+1)) is new, as the slow path would leave it.  Returns 0, or -1
 * with nothing changed when the slow path must decide.
 *
 * Nothing but these counts changes while the cursor follows R, so the
 * digram (P, R^k) is taken out of the table at the first iteration and put
 * back, with its last count, when the cursor stops (cursor_repay): an
 * iteration only looks (P, R^(k+1)) up.
 */
static int cursor_complete(struct grammar *g)
{
	uint32_t last = g->cur.last, p = g->nodes[last].prev;
	uint64_t h;
	size_t i;

	if (node_is_sym(g, p)) {
		if (!g->cur.owed) {
			digram_forget(g, p);
			g->cur.owed = 1;
		}
		g->nodes[last].count++;
		h = digram_hash(g, p);
		i = table_find(g, p, hash_key(h));
		if (g->table[i].node) {
			g->nodes[last].count--;
			cursor_repay(g);
			return -1;
		}
	} else {
		g->nodes[last].count++;
	}
	if (!count_unique(g, last) || cursor_reset(g))
		cursor_disarm(g);
	return 0;
}

/* Called after every slow append: arms the cursor when a snapshot's
 * iteration has just completed, or takes a snapshot when the root ends
 * with a rule reference. */
static void snapshot_observe(struct grammar *g)
{
	uint32_t last = g->nodes[g->rules[ROOT].guard].prev, i;
	const struct node *x = &g->nodes[last];
	struct snapshot *e;
	uint64_t sum;

	if (!(x->value & RULE) || !x->count || g->slow_only)
		return;
	sum = sum_without(g, last);
	for (i = 0; i < SNAPSHOTS; i++) {
		e = &g->snap[i];
		if (e->last && e->value == x->value &&
		    e->count + 1 == x->count && e->prev == x->prev &&
		    e->sum == sum && e->nrules == g->nrules &&
		    e->symbols == g->symbols) {
			e->last = 0;
			cursor_arm(g, last);
			return;
		}
	}
	if (!count_unique(g, last))
		return;
	for (i = 0; i < SNAPSHOTS && g->snap[i].last != last; i++)
		;
	e = &g->snap[i < SNAPSHOTS ? i : g->snap_next++ % SNAPSHOTS];
	*e = (struct snapshot){last,	 x->prev,    x->value, g->nrules,
			       x->count, g->symbols, sum};
}

static int append_slow(struct grammar *g, uint32_t terminal, uint64_t count);

/* Gives the pending symbols to the slow path; the cursor is disarmed. */
static int cursor_flush(struct grammar *g)
{
	struct cursor *c = &g->cur;
	uint64_t n = c->pending, i;
	uint32_t *buf;
	int rc = 0;

	if (!c->last)
		return 0;
	if (n >= PENDING_MAX)
		g->no_arm = g->nodes[c->last].value & ~RULE;
	if (!n) {
		cursor_disarm(g);
		return 0;
	}
	buf = malloc(n * sizeof(*buf));
	/* The frames that reached the pending symbols are still allocated,
	 * so the walk again cannot fail. */
	if (!buf || cursor_reset(g)) {
		free(buf);
		cursor_disarm(g);
		return grammar_fail(g);
	}
	for (i = 0; i < n; i++) {
		buf[i] = g->nodes[c->f[c->depth - 1].node].value;
		cursor_next(g);
	}
	cursor_disarm(g);
	/* The pending symbols are counted in g->length already. */
	g->length -= n;
	for (i = 0; i < n && !rc; i++)
		rc = append_slow(g, buf[i], 1);
	free(buf);
	return rc;
}

/* Takes a count-1 append of t without the slow path if it can. */
static int append_fast(struct grammar *g, uint32_t t)
{
	struct cursor *c = &g->cur;
	int rc;

	if (c->pending >= PENDING_MAX ||
	    g->nodes[c->f[c->depth - 1].node].value != t)
		return -1;
	rc = cursor_next(g);
	if (rc == 0) {
		c->pending++;
		return 0;
	}
	if (rc == 1 && cursor_complete(g) == 0)
		return 0;
	/* The cursor is lost; the flush walks it again. */
	return -1;
}

/* ---- public interface --------------------------------------------------- */

struct grammar *grammar_create(void)
{
	struct grammar *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->nodes = malloc(INITIAL_NODES * sizeof(*g->nodes));
	g->rules = malloc(INITIAL_RULES * sizeof(*g->rules));
	g->table = calloc(INITIAL_SLOTS, sizeof(*g->table));
	if (!g->nodes || !g->rules || !g->table) {
		grammar_free(g);
		return NULL;
	}
	g->node_cap = INITIAL_NODES;
	g->node_top = 1;
	g->rule_cap = INITIAL_RULES;
	g->table_cap = INITIAL_SLOTS;
	rule_alloc(g);
	return g;
}

void grammar_free(struct grammar *g)
{
	if (!g)
		return;
	free(g->nodes);
	free(g->rules);
	free(g->table);
	free(g->work.v);
	free(g->rwork.v);
	free(g->cur.f);
	free(g);
}

static int append_slow(struct grammar *g, uint32_t terminal, uint64_t count)
{
	uint32_t gd, last, n;
	int rc;

	/* Armed with nothing pending, as a flush's replay may leave it. */
	cursor_disarm(g);
	if (node_reserve(g, 1))
		return grammar_fail(g);
	gd = g->rules[ROOT].guard;
	last = g->nodes[gd].prev;
	if (node_is_sym(g, last) && g->nodes[last].value == terminal) {
		/* The work stack is empty: checking at once is settling. */
		digram_forget(g, g->nodes[last].prev);
		g->nodes[last].count += count;
		digram_check(g, g->nodes[last].prev);
	} else {
		n = node_alloc(g, terminal, count);
		node_link(g, last, n);
		node_link(g, n, gd);
		g->symbols++;
		work_digram(g, last);
	}
	g->length += count;
	rc = grammar_settle(g);
	if (!rc)
		snapshot_observe(g);
	return rc;
}

int grammar_append(struct grammar *g, uint32_t terminal, uint64_t count)
{
	int rc;

	if (g->failed)
		return RONDO_E_STATE;
	if (!count || terminal > GRAMMAR_MAX_TERMINAL ||
	    count > MAX_LENGTH - g->length)
		return RONDO_E_RANGE;
	if (g->cur.last) {
		if (count == 1 && append_fast(g, terminal) == 0) {
			g->length++;
			return 0;
		}
		rc = cursor_flush(g);
		if (rc)
			return rc;
	}
	/* Snapshots promise an iteration of count-1 appends. */
	if (count > 1)
		memset(g->snap, 0, sizeof(g->snap));
	return append_slow(g, terminal, count);
}

uint32_t grammar_expected(const struct grammar *g)
{
	const struct cursor *c = &g->cur;
	uint32_t v;

	if (!c->last || c->depth == 0)
		return UINT32_MAX;
	v = g->nodes[c->f[c->depth - 1].node].value;
	return v & RULE ? UINT32_MAX : v;
}

int grammar_flush(struct grammar *g)
{
	if (g->failed)
		return RONDO_E_STATE;
	cursor_repay(g);
	return g->cur.pending ? cursor_flush(g) : 0;
}

void grammar_set_fast_path(struct grammar *g, int on)
{
	g->slow_only = !on;
	if (!on && !grammar_flush(g))
		cursor_disarm(g);
}

/* A copy of g with its pending symbols given to the grammar, for the
 * functions that must not change g; NULL when out of memory. */
static struct grammar *grammar_flushed_copy(const struct grammar *g)
{
	struct grammar *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *g;
	c->work = c->rwork = (struct stack){0};
	c->nodes = malloc((size_t)g->node_cap * sizeof(*c->nodes));
	c->rules = malloc((size_t)g->rule_cap * sizeof(*c->rules));
	c->table = malloc(g->table_cap * sizeof(*c->table));
	c->cur.f = malloc(g->cur.cap * sizeof(*c->cur.f));
	if (!c->nodes || !c->rules || !c->table || !c->cur.f) {
		grammar_free(c);
		return NULL;
	}
	memcpy(c->nodes, g->nodes, (size_t)g->node_top * sizeof(*c->nodes));
	memcpy(c->rules, g->rules, (size_t)g->rule_top * sizeof(*c->rules));
	memcpy(c->table, g->table, g->table_cap * sizeof(*c->table));
	memcpy(c->cur.f, g->cur.f, g->cur.cap * sizeof(*c->cur.f));
	if (grammar_flush(c)) {
		grammar_free(c);
		return NULL;
	}
	return c;
}

uint64_t grammar_length(const struct grammar *g)
{
	return g->length;
}

uint32_t grammar_rule_count(const struct grammar *g)
{
	return g->nrules;
}

uint64_t grammar_symbol_count(const struct grammar *g)
{
	return g->symbols;
}

size_t grammar_memory(const struct grammar *g)
{
	return sizeof(*g) + (size_t)g->node_cap * sizeof(*g->nodes) +
	       (size_t)g->rule_cap * sizeof(*g->rules) +
	       g->table_cap * sizeof(*g->table) +
	       (g->work.cap + g->rwork.cap) * sizeof(uint32_t) +
	       g->cur.cap * sizeof(*g->cur.f);
}

size_t grammar_memory_peak(const struct grammar *g)
{
	size_t nodes = (size_t)g->node_cap * sizeof(*g->nodes);
	size_t rules = (size_t)g->rule_cap * sizeof(*g->rules);
	size_t table = g->table_cap * sizeof(*g->table);
	size_t most = nodes > rules ? nodes : rules;

	/* a growth reallocates the array at twice its size: both are held
	 * while it copies */
	return grammar_memory(g) + 2 * (most > table ? most : table);
}

/* ---- export ------------------------------------------------------------- */

enum { UNSEEN, OPEN, DONE };

struct frame {
	uint32_t rule, node; /* node: the next body node to visit */
};

static struct frame frame_of(const struct grammar *g, uint32_t r)
{
	return (struct frame){r, g->nodes[g->rules[r].guard].next};
}

/*
 * Lists the rules reachable from the root in post-order (every rule after
 * the rules it refers to) in order[0..*n-1].  Iterative: a grammar can be as
 * deep as it has rules.  Returns 0, RONDO_E_NOMEM, or RONDO_E_STATE if a
 * rule reaches itself, which only a broken engine can produce.
 */
static int rule_postorder(const struct grammar *g, uint32_t *order, uint32_t *n)
{
	uint8_t *mark = calloc(g->rule_top, 1);
	struct frame *st = malloc(g->rule_top * sizeof(*st));
	uint32_t depth = 0, c;
	int rc = RONDO_E_NOMEM;

	*n = 0;
	if (!mark || !st)
		goto out;
	st[depth++] = frame_of(g, ROOT);
	mark[ROOT] = OPEN;
	rc = 0;
	while (depth && !rc) {
		struct frame *f = &st[depth - 1];
		const struct node *x = &g->nodes[f->node];

		if (!x->count) {
			mark[f->rule] = DONE;
			order[(*n)++] = f->rule;
			depth--;
			continue;
		}
		f->node = x->next;
		if (!(x->value & RULE))
			continue;
		c = x->value & ~RULE;
		if (mark[c] == OPEN)
			rc = RONDO_E_STATE;
		if (mark[c] == UNSEEN) {
			mark[c] = OPEN;
			st[depth++] = frame_of(g, c);
		}
	}
out:
	free(mark);
	free(st);
	return rc;
}

/* Appends rule r's body to out, rule references renumbered by id[]. */
static void export_body(const struct grammar *g, uint32_t r, const uint32_t *id,
			struct fmt_grammar *out, uint32_t *k)
{
	uint32_t gd = g->rules[r].guard, n;

	for (n = g->nodes[gd].next; n != gd; n = g->nodes[n].next) {
		uint32_t v = g->nodes[n].value;

		out->body[(*k)++] = (rondo_sym){
			.sym = v & RULE ? RULE | id[v & ~RULE] : v,
			.count = g->nodes[n].count,
		};
	}
}

static int export_flushed(const struct grammar *g, struct fmt_grammar *out)
{
	uint32_t *order = malloc(g->rule_top * sizeof(*order));
	uint32_t *id = malloc(g->rule_top * sizeof(*id));
	uint32_t n = 0, i, k = 0;
	int rc = RONDO_E_NOMEM;

	memset(out, 0, sizeof(*out));
	if (g->failed)
		rc = RONDO_E_STATE;
	else if (order && id)
		rc = rule_postorder(g, order, &n);
	if (!rc) {
		out->first = malloc(((size_t)n + 1) * sizeof(*out->first));
		/* One extra so that an empty root is not a NULL body. */
		out->body = malloc((g->symbols + 1) * sizeof(*out->body));
		if (!out->first || !out->body)
			rc = RONDO_E_NOMEM;
	}
	for (i = 0; !rc && i < n; i++) {
		id[order[i]] = i;
		out->first[i] = k;
		export_body(g, order[i], id, out, &k);
	}
	if (!rc) {
		out->first[n] = k;
		out->nrules = n;
	} else {
		free(out->first);
		free(out->body);
		memset(out, 0, sizeof(*out));
	}
	free(order);
	free(id);
	return rc;
}

int grammar_export(const struct grammar *g, struct fmt_grammar *out)
{
	struct grammar *c;
	int rc;

	if (g->failed || (!g->cur.pending && !g->cur.owed))
		return export_flushed(g, out);
	memset(out, 0, sizeof(*out));
	c = grammar_flushed_copy(g);
	if (!c)
		return RONDO_E_NOMEM;
	rc = export_flushed(c, out);
	grammar_free(c);
	return rc;
}

/* ---- verification ------------------------------------------------------- */

/* What grammar_check() recounts from scratch, to compare with the engine's
 * own bookkeeping. */
struct audit {
	const struct grammar *g;
	uint32_t *refs, *ref_xor;
	uint64_t symbols, digrams;
	uint32_t rules;
	char *why;
	size_t whylen;
};

static int audit_fail(struct audit *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int audit_fail(struct audit *a, const char *fmt, ...)
{
	va_list ap;

	if (a->whylen) {
		va_start(ap, fmt);
		vsnprintf(a->why, a->whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Checks one symbol node n of rule r whose predecessor is prev. */
static int audit_node(struct audit *a, uint32_t r, uint32_t prev, uint32_t n)
{
	const struct grammar *g = a->g;
	const struct node *x;
	uint32_t c;

	if (!n || n >= g->node_top || g->nodes[n].prev != prev)
		return audit_fail(a, "rule %u: broken link at node %u", r, n);
	x = &g->nodes[n];
	c = x->value & ~RULE;
	if (!x->count)
		return audit_fail(a, "rule %u: node %u has count 0", r, n);
	if (x->value & RULE) {
		if (c >= g->rule_top || !g->rules[c].guard || c == ROOT)
			return audit_fail(a,
					  "rule %u: node %u refers to bad "
					  "rule %u",
					  r, n, c);
		a->refs[c]++;
		a->ref_xor[c] ^= n;
	}
	if (!node_is_sym(g, prev))
		return 0;
	if (g->nodes[prev].value == x->value)
		return audit_fail(a, "rule %u: equal neighbours at node %u", r,
				  n);
	if (g->table[table_find(g, prev, hash_key(digram_hash(g, prev)))]
		    .node != prev)
		return audit_fail(a, "rule %u: digram at node %u %s", r, prev,
				  "is not indexed or occurs twice");
	a->digrams++;
	return 0;
}

static int audit_body(struct audit *a, uint32_t r)
{
	const struct grammar *g = a->g;
	uint32_t gd = g->rules[r].guard, prev = gd, n, len = 0;

	if (gd >= g->node_top || node_is_sym(g, gd) || g->nodes[gd].value != r)
		return audit_fail(a, "rule %u: bad guard %u", r, gd);
	for (n = g->nodes[gd].next; n != gd; prev = n, n = g->nodes[n].next) {
		if (++len >= g->node_top)
			return audit_fail(a, "rule %u: body does not close", r);
		if (audit_node(a, r, prev, n))
			return -1;
	}
	if (g->nodes[gd].prev != prev)
		return audit_fail(a, "rule %u: guard's prev is wrong", r);
	if (!len && r != ROOT)
		return audit_fail(a, "rule %u: empty body", r);
	a->symbols += len;
	a->rules++;
	return 0;
}

static int audit_refs(struct audit *a, uint32_t r)
{
	const struct grammar *g = a->g;
	const struct rule *x = &g->rules[r];

	if (a->refs[r] != x->refs || a->ref_xor[r] != x->ref_xor)
		return audit_fail(a,
				  "rule %u: references (%u, xor %u) recorded "
				  "as (%u, xor %u)",
				  r, a->refs[r], a->ref_xor[r], x->refs,
				  x->ref_xor);
	if (r == ROOT)
		return x->refs ? audit_fail(a, "the root is referenced") : 0;
	if (x->refs >= 2 || (x->refs == 1 && g->nodes[x->ref_xor].count >= 2))
		return 0;
	return audit_fail(a, "rule %u: useless (%u references)", r, x->refs);
}

/* Recomputes every rule's expansion length, children first. */
static int audit_lengths(struct audit *a)
{
	const struct grammar *g = a->g;
	uint32_t *order = malloc(g->rule_top * sizeof(*order)), n = 0, i, v;
	uint64_t *len = calloc(g->rule_top, sizeof(*len)), sum = 0, t;
	int rc = order && len ? rule_postorder(g, order, &n) : RONDO_E_NOMEM;

	for (i = 0; !rc && i < n; i++) {
		uint32_t r = order[i], gd = g->rules[r].guard, x;

		sum = 0;
		for (x = g->nodes[gd].next; x != gd && !rc;
		     x = g->nodes[x].next) {
			v = g->nodes[x].value;
			if (__builtin_mul_overflow(
				    g->nodes[x].count,
				    v & RULE ? len[v & ~RULE] : 1, &t) ||
			    __builtin_add_overflow(sum, t, &sum))
				rc = -1;
		}
		len[r] = sum;
	}
	free(order);
	free(len);
	if (rc)
		return audit_fail(a, "expansion lengths: %s",
				  rc == RONDO_E_NOMEM ? "out of memory"
						      : "cycle or overflow");
	if (n != a->rules)
		return audit_fail(a, "%u rules reachable of %u", n, a->rules);
	if (sum != g->length)
		return audit_fail(a, "root expands to %llu, %llu appended",
				  (unsigned long long)sum,
				  (unsigned long long)g->length);
	return 0;
}

static int audit_run(struct audit *a)
{
	const struct grammar *g = a->g;
	uint32_t r;

	for (r = 0; r < g->rule_top; r++)
		if (g->rules[r].guard && audit_body(a, r))
			return -1;
	for (r = 0; r < g->rule_top; r++)
		if (g->rules[r].guard && audit_refs(a, r))
			return -1;
	if (a->rules != g->nrules || a->symbols != g->symbols)
		return audit_fail(a,
				  "%u rules and %llu symbols, recorded %u "
				  "and %llu",
				  a->rules, (unsigned long long)a->symbols,
				  g->nrules, (unsigned long long)g->symbols);
	if (a->digrams != g->table_n)
		return audit_fail(a, "%llu digrams, %zu indexed",
				  (unsigned long long)a->digrams, g->table_n);
	return audit_lengths(a);
}

static int check_flushed(const struct grammar *g, char *why, size_t whylen)
{
	struct audit a = {.g = g, .why = why, .whylen = whylen};
	int rc;

	if (g->failed)
		return audit_fail(&a, "the grammar failed");
	if (g->work.n || g->rwork.n)
		return audit_fail(&a, "pending work");
	a.refs = calloc(g->rule_top, sizeof(*a.refs));
	a.ref_xor = calloc(g->rule_top, sizeof(*a.ref_xor));
	rc = a.refs && a.ref_xor ? audit_run(&a)
				 : audit_fail(&a, "out of memory");
	free(a.refs);
	free(a.ref_xor);
	return rc;
}

int grammar_check(const struct grammar *g, char *why, size_t whylen)
{
	struct grammar *c;
	int rc;

	if (g->failed || (!g->cur.pending && !g->cur.owed))
		return check_flushed(g, why, whylen);
	c = grammar_flushed_copy(g);
	if (!c) {
		if (whylen)
			snprintf(why, whylen, "out of memory");
		return -1;
	}
	rc = check_flushed(c, why, whylen);
	grammar_free(c);
	return rc;
}
