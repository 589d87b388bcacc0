/*
 * precision.c - loop counts merged at a precision below 100 % (see
 * precision.h).
 *
 * A convergence loop that runs 39, 40, 39, 42 times from one time step to
 * the next makes each step's calls a different sequence: the lossless
 * grammar grows with the steps.  A pass here:
 *
 *  - reads each group's calls (each distinct root of the rank map) as
 *    runs of units: a unit is a call, a rule the grammar repeats somewhere
 *    (a loop body: not expanded) or a loop merged by an earlier pass; the
 *    other rules are expanded, and equal units in a row make one run, so
 *    a loop split over rules by Sequitur's online order (A R^40 in one
 *    rule, one more R after it) is one run again, its count the loop's;
 *  - puts the counts of each unit's runs in classes, sorted and taken
 *    greedily, a count joining while some count is within (100 - P) % of
 *    each count of the class (38 to 46 at P = 90: 42); a class of two
 *    counts or more is merged, and
 *    counts every run of it, on every rank (a group's runs as many times
 *    as it has ranks): a histogram, its exact sum, its extremes and the
 *    first ranks seen with them;
 *  - feeds the runs to the tracer's Sequitur engine, a merged run as one
 *    unit of its class, one unique separator after each group: steps
 *    that now look alike fold into one loop;
 *  - writes the new grammar: the old rules the units name (whole), the
 *    engine's rules, a rule per merged loop the engine repeats (two
 *    merged loops in a row are two draws, not one loop of twice the
 *    count) and a rule per group, last, in the old roots' order, so that
 *    the rank map and the groups' gaps keep their order.  A merged loop's
 *    count in the grammar is its histogram's mean, rounded (or the
 *    nearest count within (100 - P) % of all of its counts); during the
 *    passes the symbol's reserved field is its histogram + 1.
 *
 * A loop whose body holds a merged loop (a convergence loop whose
 * iterations poll a varying number of times) only repeats alike once the
 * inner loop is merged, so passes follow until one merges nothing new.
 * Every count is one the program ran, so the histograms' counts and sums
 * are exact.  What a pass costs: the runs are made twice (counted, then
 * fed to the engine), never kept: a run per loop run and per stretch of
 * calls between loops, on every group, and memory for the distinct
 * counts; past MAX_RUNS runs it gives up (the grammar stays lossless).
 */
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "precision.h"
#include "util.h"

#define NONE UINT32_MAX
/* A class's histogram keeps its counts exactly up to this many distinct
 * ones, else in bins of a quarter more than their least. */
#define EXACT_BINS 32
/* Runs a pass makes at most, each time (a few seconds). */
#define MAX_RUNS (UINT64_C(1) << 27)
/* Passes at most: each merges loops whose bodies the one before made
 * alike, a level of nesting each. */
#define PASSES 8

/* A run of a unit (units: a call t is t, a rule r of the input nterm + r,
 * a merged loop of histogram h nterm + nrules + h: unit_rule, unit_cls). */
struct run {
	uint32_t unit;
	uint64_t count;
};

/* A distinct (unit, count) of the runs. */
struct ent {
	uint32_t unit;
	uint32_t cls;  /* its class, NONE when not merged */
	uint64_t c;    /* the count */
	uint64_t w;    /* runs, over all ranks */
	uint32_t rank; /* the first rank seen running it */
};

/* A merged class: entries [first, last) of one unit; or, for the first
 * nfixed, a histogram of an earlier pass (no entries). */
struct cls {
	uint32_t first, last;
	uint32_t target; /* the symbol it repeats (the input's) */
	uint64_t rep;	 /* the count the grammar keeps */
	uint32_t hist;	 /* its histogram in the output, NONE if unused */
	uint32_t wrap;	 /* its wrapper rule, NONE if none */
};

struct precision_group;

/* A rule body being built. */
struct vec {
	rondo_sym *s;
	size_t n, cap;
};

struct prec {
	const struct fmt_grammar *g;
	uint32_t nterm, pct;
	/* the runs, made twice: counted into ent (sink NULL), then fed to
	 * the engine sink */
	struct run last; /* the run being made (count 0: none) */
	uint64_t nruns;	 /* made so far this time */
	struct grammar *sink;
	const struct precision_group *gr;
	uint32_t grp, sep; /* the group being read; separators fed */
	uint32_t *slot;	   /* while counting: (unit, count) -> ent + 1 */
	uint32_t mask;
	struct ent *ent;
	uint32_t nent;
	size_t capent;
	struct cls *cls;
	uint32_t ncls, nfixed;
	uint8_t *opaque; /* input rule r is a unit (repeated somewhere) */
	uint32_t *exact; /* input rule r's output rule, NONE */
	/* output */
	struct vec body; /* all output bodies, one after another */
	uint32_t *first;
	size_t nout, capout;
};

static uint32_t unit_rule(const struct prec *p, uint32_t r)
{
	return p->nterm + r;
}

/* Class k's unit (the first nfixed classes are the loops merged by the
 * passes before, so a loop of histogram h is unit_cls(h)); in the
 * engine, separator j is unit_cls(ncls + j). */
static uint32_t unit_cls(const struct prec *p, uint32_t k)
{
	return p->nterm + p->g->nrules + k;
}

/* Adds a*b to *to; -1 past 2^64. */
static int add_mul(uint64_t *to, uint64_t a, uint64_t b)
{
	uint64_t m;

	if (__builtin_mul_overflow(a, b, &m) ||
	    __builtin_add_overflow(*to, m, to))
		return -1;
	return 0;
}

/* ---- expanding ----------------------------------------------------------- */

/* Expands rule `rule` of g: visit(ctx, s) for each symbol met, in order,
 * which returns 1 to go into s's rule (s's count times), 0 to go on, or
 * an error, which ends the walk.  An explicit stack: a grammar may nest
 * deep. */
static int walk(const struct fmt_grammar *g, uint32_t rule,
		int (*visit)(void *ctx, const rondo_sym *s), void *ctx)
{
	struct frame {
		uint32_t r, pos;
		uint64_t left;
	} *st = NULL;
	size_t depth = 0, cap = 0;
	int rc = 0;

	if (util_grow(&st, &cap, 1, sizeof(*st)) < 0)
		return RONDO_E_NOMEM;
	st[depth++] = (struct frame){rule, 0, 1};
	while (depth && rc == 0) {
		struct frame *f = &st[depth - 1];
		const rondo_sym *s;

		if (f->pos == g->first[f->r + 1] - g->first[f->r]) {
			if (--f->left)
				f->pos = 0;
			else
				depth--;
			continue;
		}
		s = &g->body[g->first[f->r] + f->pos++];
		rc = visit(ctx, s);
		if (rc == 1 && util_grow(&st, &cap, depth + 1, sizeof(*st)) < 0)
			rc = RONDO_E_NOMEM;
		else if (rc == 1)
			st[depth++] = (struct frame){s->sym & ~RONDO_SYM_RULE,
						     0, s->count};
		rc = rc == 1 ? 0 : rc;
	}
	free(st);
	return rc;
}

/* ---- the groups ---------------------------------------------------------- */

static int group_cmp(const void *a, const void *b)
{
	const struct precision_group *x = a, *y = b;

	return (x->root > y->root) - (x->root < y->root);
}

/* The rank map's terminals, one group entry per run of ranks. */
struct gwalk {
	struct precision_group *gr;
	size_t n, cap;
	uint32_t nrules, rank;
};

static int group_visit(void *ctx, const rondo_sym *s)
{
	struct gwalk *w = ctx;

	if (RONDO_SYM_IS_RULE(s->sym))
		return 1;
	if (s->sym >= w->nrules || s->count > UINT32_MAX - w->rank)
		return RONDO_E_RANGE;
	if (util_grow(&w->gr, &w->cap, w->n + 1, sizeof(*w->gr)) < 0)
		return RONDO_E_NOMEM;
	w->gr[w->n++] =
		(struct precision_group){s->sym, (uint32_t)s->count, w->rank};
	w->rank += (uint32_t)s->count;
	return 0;
}

int precision_groups(const struct fmt_rankmap *rm, uint32_t nrules,
		     struct precision_group **out, uint32_t *n)
{
	struct gwalk w = {NULL, 0, 0, nrules, 0};
	struct precision_group *gr;
	size_t ng;
	int rc;

	*out = NULL;
	*n = 0;
	if (!rm->map.nrules)
		return 0;
	rc = walk(&rm->map, rm->map.nrules - 1, group_visit, &w);
	if (rc) {
		free(w.gr);
		return rc;
	}
	gr = w.gr;
	ng = w.n;
	/* one entry per root, the first rank the least */
	qsort(gr, ng, sizeof(*gr), group_cmp);
	for (size_t i = 0; i < ng; i++) {
		if (*n && gr[*n - 1].root == gr[i].root) {
			gr[*n - 1].ranks += gr[i].ranks;
			if (gr[i].first < gr[*n - 1].first)
				gr[*n - 1].first = gr[i].first;
		} else {
			gr[(*n)++] = gr[i];
		}
	}
	*out = gr;
	return 0;
}

/* ---- the runs ------------------------------------------------------------ */

/* The rules that are units: innermost loop bodies (rules repeated
 * somewhere whose calls hold no loop but merged ones).  The others are
 * expanded, so that Sequitur's pieces of one loop (A R^40 in one rule,
 * one more R after it, or two steps of 41 iterations as one rule twice)
 * meet again as one run. */
static int opaque_rules(struct prec *p)
{
	const struct fmt_grammar *g = p->g;
	uint8_t *loop = calloc((size_t)g->nrules + 1, 1);

	p->opaque = calloc((size_t)g->nrules + 1, 1);
	if (!loop || !p->opaque) {
		free(loop);
		return RONDO_E_NOMEM;
	}
	for (uint32_t r = 0; r < g->nrules; r++)
		for (uint32_t k = g->first[r]; k < g->first[r + 1] && !loop[r];
		     k++) {
			const rondo_sym *s = &g->body[k];

			loop[r] = (s->count > 1 && !s->reserved) ||
				  (RONDO_SYM_IS_RULE(s->sym) &&
				   loop[s->sym & ~RONDO_SYM_RULE]);
		}
	for (uint64_t k = 0; k < g->first[g->nrules]; k++) {
		const rondo_sym *s = &g->body[k];
		uint32_t r = s->sym & ~RONDO_SYM_RULE;

		if (RONDO_SYM_IS_RULE(s->sym) &&
		    (s->count > 1 || s->reserved) && !loop[r])
			p->opaque[r] = 1;
	}
	free(loop);
	return 0;
}

static int ent_add(struct prec *p, uint32_t unit, uint64_t c, uint64_t w,
		   uint32_t rank);
static uint32_t run_cls(const struct prec *p, const struct run *x);

/* A run made: counted (its group's ranks runs of it), or fed to the
 * engine (a merged one as its class's unit); a separator ends a group. */
static int run_emit(struct prec *p, const struct run *x)
{
	uint32_t c;

	if (++p->nruns > MAX_RUNS)
		return RONDO_E_RANGE;
	if (!p->sink) {
		if (x->unit == NONE)
			return p->grp++, 0;
		if (x->unit >= unit_cls(p, 0)) /* merged by a pass before */
			return 0;
		return ent_add(p, x->unit, x->count, p->gr[p->grp].ranks,
			       p->gr[p->grp].first);
	}
	if (x->unit == NONE)
		return grammar_append(p->sink, unit_cls(p, p->ncls) + p->sep++,
				      1);
	c = run_cls(p, x);
	if (c != NONE)
		return grammar_append(p->sink, unit_cls(p, c), 1);
	/* a call, a rule, or a loop merged by a pass before */
	return grammar_append(p->sink, x->unit, x->count);
}

/* Adds count of unit to the run being made, or ends it and starts
 * another; unit NONE ends the group. */
static int run_add(struct prec *p, uint32_t unit, uint64_t count)
{
	int rc = 0;

	if (p->last.count && p->last.unit == unit && unit != NONE)
		return __builtin_add_overflow(p->last.count, count,
					      &p->last.count)
			       ? RONDO_E_RANGE
			       : 0;
	if (p->last.count)
		rc = run_emit(p, &p->last);
	p->last = (struct run){unit, count};
	if (rc == 0 && unit == NONE) {
		rc = run_emit(p, &p->last);
		p->last.count = 0;
	}
	return rc;
}

static int run_visit(void *ctx, const rondo_sym *s)
{
	struct prec *p = ctx;
	uint32_t r = s->sym & ~RONDO_SYM_RULE;

	if (s->reserved) /* a merged loop: a draw each */
		return run_add(p, unit_cls(p, s->reserved - 1), s->count);
	if (!RONDO_SYM_IS_RULE(s->sym))
		return run_add(p, s->sym, s->count);
	if (p->opaque[r])
		return run_add(p, unit_rule(p, r), s->count);
	return 1;
}

/* Rule `rule`'s calls as runs of units, expanding the rules that are not
 * units. */
static int runs(struct prec *p, uint32_t rule)
{
	return walk(p->g, rule, run_visit, p);
}

/* ---- the classes --------------------------------------------------------- */

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return (x->c > y->c) - (x->c < y->c);
}

/* The entry of (unit, c), or NONE. */
static uint32_t ent_find(const struct prec *p, uint32_t unit, uint64_t c)
{
	uint32_t lo = 0, hi = p->nent;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct ent *e = &p->ent[mid];

		if (e->unit < unit || (e->unit == unit && e->c < c))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nent && p->ent[lo].unit == unit && p->ent[lo].c == c
		       ? lo
		       : NONE;
}

/* The class of a run, or NONE. */
static uint32_t run_cls(const struct prec *p, const struct run *x)
{
	uint32_t e;

	if (x->unit >= unit_cls(p, 0))
		return NONE;
	e = ent_find(p, x->unit, x->count);
	return e == NONE ? NONE : p->ent[e].cls;
}

/* The histograms of earlier passes (nfixed of them) as classes, from
 * their sites; cap classes in all. */
static int fixed(struct prec *p, uint32_t nfixed, uint32_t cap)
{
	const struct fmt_grammar *g = p->g;

	p->cls = malloc(sizeof(*p->cls) * ((size_t)cap + 1));
	if (!p->cls)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < nfixed; k++)
		p->cls[k] = (struct cls){0, 0, NONE, 0, k, NONE};
	for (uint64_t k = 0; k < g->first[g->nrules]; k++) {
		const rondo_sym *s = &g->body[k];

		if (s->reserved && s->reserved <= nfixed) {
			p->cls[s->reserved - 1].target = s->sym;
			p->cls[s->reserved - 1].rep = s->count;
		}
	}
	p->ncls = p->nfixed = nfixed;
	return 0;
}

/* The counts within (100 - P) % of both least and most (and so of every
 * count between): [*lo, *hi], at least 1; -1 when there is none. */
static int rep_range(const struct prec *p, uint64_t least, uint64_t most,
		     uint64_t *lo, uint64_t *hi)
{
	uint64_t tol = 100 - p->pct;

	if (most > UINT64_MAX / 200)
		return -1;
	*lo = (most * (100 - tol) + 99) / 100;
	*hi = least * (100 + tol) / 100;
	if (*lo < 1)
		*lo = 1;
	return *lo <= *hi ? 0 : -1;
}

static uint32_t slot_of(uint32_t unit, uint64_t c, uint32_t mask)
{
	uint64_t h =
		(c ^ ((uint64_t)unit << 40) ^ unit) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & mask;
}

/* Counts w runs of (unit, c), first seen on rank `rank`: the distinct
 * pairs in p->ent, found through an open-addressing table. */
static int ent_add(struct prec *p, uint32_t unit, uint64_t c, uint64_t w,
		   uint32_t rank)
{
	uint32_t i;

	if ((uint64_t)p->nent * 2 + 2 > (uint64_t)p->mask + 1 || !p->slot) {
		uint32_t cap = p->slot ? (p->mask + 1) * 2 : 1024;
		uint32_t *t = calloc(cap, sizeof(*t));

		if (!t || cap == 0)
			return free(t), RONDO_E_NOMEM;
		for (uint32_t k = 0; k < p->nent; k++) {
			for (i = slot_of(p->ent[k].unit, p->ent[k].c, cap - 1);
			     t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = k + 1;
		}
		free(p->slot);
		p->slot = t;
		p->mask = cap - 1;
	}
	for (i = slot_of(unit, c, p->mask); p->slot[i]; i = (i + 1) & p->mask) {
		struct ent *e = &p->ent[p->slot[i] - 1];

		if (e->unit == unit && e->c == c) {
			if (rank < e->rank)
				e->rank = rank;
			return add_mul(&e->w, w, 1) < 0 ? RONDO_E_RANGE : 0;
		}
	}
	if (util_grow(&p->ent, &p->capent, (size_t)p->nent + 1,
		      sizeof(*p->ent)) < 0)
		return RONDO_E_NOMEM;
	p->ent[p->nent] = (struct ent){unit, NONE, c, w, rank};
	p->slot[i] = ++p->nent;
	return 0;
}

/* The distinct (unit, count) of the runs, sorted, and their classes. */
static int classes(struct prec *p)
{
	struct ent *e = p->ent;
	uint32_t n = p->nent, i, j;

	free(p->slot);
	p->slot = NULL;
	if (n)
		qsort(e, n, sizeof(*e), ent_cmp);
	if (fixed(p, p->nfixed, p->nfixed + n / 2 + 1) < 0)
		return RONDO_E_NOMEM;
	/* greedily: a count joins while one count is within (100 - P) %
	 * of each count of the class (rep_range) */
	for (i = 0; i < n; i = j) {
		uint64_t lo, hi;

		for (j = i + 1; j < n && e[j].unit == e[i].unit; j++)
			if (rep_range(p, e[i].c, e[j].c, &lo, &hi) < 0)
				break;
		if (j - i < 2)
			continue;
		for (uint32_t k = i; k < j; k++)
			e[k].cls = p->ncls;
		p->cls[p->ncls++] = (struct cls){
			i,
			j,
			e[i].unit < p->nterm
				? e[i].unit
				: RONDO_SYM_RULE | (e[i].unit - p->nterm),
			0,
			NONE,
			NONE};
	}
	return 0;
}

/* Class k's count in the grammar: its mean over the runs, rounded, or
 * the nearest count within (100 - P) % of each of the class's. */
static void reps(struct prec *p)
{
	for (uint32_t k = p->nfixed; k < p->ncls; k++) {
		struct cls *c = &p->cls[k];
		long double sum = 0, n = 0;
		uint64_t lo = 1, hi = 1;

		for (uint32_t i = c->first; i < c->last; i++) {
			sum += (long double)p->ent[i].c *
			       (long double)p->ent[i].w;
			n += (long double)p->ent[i].w;
		}
		rep_range(p, p->ent[c->first].c, p->ent[c->last - 1].c, &lo,
			  &hi);
		c->rep = n > 0 ? (uint64_t)(sum / n + 0.5L) : lo;
		c->rep = c->rep < lo ? lo : c->rep > hi ? hi : c->rep;
	}
}

/* ---- the output ---------------------------------------------------------- */

static int out_symr(struct prec *p, uint32_t sym, uint64_t count,
		    uint32_t reserved)
{
	if (util_grow(&p->body.s, &p->body.cap, p->body.n + 1,
		      sizeof(*p->body.s)) < 0)
		return RONDO_E_NOMEM;
	p->body.s[p->body.n++] = (rondo_sym){sym, reserved, count};
	return 0;
}

static int out_sym(struct prec *p, uint32_t sym, uint64_t count)
{
	return out_symr(p, sym, count, 0);
}

/* Ends the output rule whose symbols were added since the last; its id. */
static int out_end(struct prec *p, uint32_t *id)
{
	if (util_grow(&p->first, &p->capout, p->nout + 2, sizeof(*p->first)) <
	    0)
		return RONDO_E_NOMEM;
	p->first[++p->nout] = (uint32_t)p->body.n;
	*id = (uint32_t)p->nout - 1;
	return 0;
}

/* The output symbol that runs class k once: its target (a call or an
 * old rule, copied) at its count, marked with its histogram. */
static int out_cls(struct prec *p, uint32_t k)
{
	uint32_t sym = p->cls[k].target;

	if (RONDO_SYM_IS_RULE(sym))
		sym = RONDO_SYM_RULE | p->exact[sym & ~RONDO_SYM_RULE];
	return out_symr(p, sym, p->cls[k].rep, p->cls[k].hist + 1);
}

/* Copies the old exact rules the engine's units name, and what they
 * refer to, in their order. */
static int out_exact(struct prec *p, const struct fmt_grammar *eg)
{
	const struct fmt_grammar *g = p->g;
	uint32_t base = p->nterm, top = p->nterm + g->nrules;
	uint8_t *need = calloc((size_t)g->nrules + 1, 1);
	int rc = 0;

	if (!need)
		return RONDO_E_NOMEM;
	for (uint64_t k = 0; k < eg->first[eg->nrules]; k++) {
		uint32_t u = eg->body[k].sym;

		if (!RONDO_SYM_IS_RULE(u) && u >= base && u < top)
			need[u - base] = 1;
	}
	for (uint32_t k = 0; k < p->ncls; k++) {
		uint32_t s = p->cls[k].target;

		if (p->cls[k].hist != NONE && RONDO_SYM_IS_RULE(s))
			need[s & ~RONDO_SYM_RULE] = 1;
	}
	for (uint32_t r = g->nrules; r-- > 0;)
		for (uint32_t k = g->first[r]; need[r] && k < g->first[r + 1];
		     k++)
			if (RONDO_SYM_IS_RULE(g->body[k].sym))
				need[g->body[k].sym & ~RONDO_SYM_RULE] = 1;
	for (uint32_t r = 0; r < g->nrules && rc == 0; r++) {
		if (!need[r])
			continue;
		for (uint32_t k = g->first[r]; k < g->first[r + 1] && rc == 0;
		     k++) {
			rondo_sym s = g->body[k];

			if (RONDO_SYM_IS_RULE(s.sym))
				s.sym = RONDO_SYM_RULE |
					p->exact[s.sym & ~RONDO_SYM_RULE];
			/* merged loops of earlier passes stay marked */
			rc = out_symr(p, s.sym, s.count, s.reserved);
		}
		rc = rc ? rc : out_end(p, &p->exact[r]);
	}
	free(need);
	return rc;
}

/* Makes sure what engine symbols syms[0 .. n) refer to is in the output:
 * a wrapper rule for each merged loop run twice or more; engine rules are
 * out_engine's. */
static int out_wrappers(struct prec *p, const rondo_sym *syms, uint32_t n)
{
	uint32_t base = unit_cls(p, 0);
	int rc = 0;

	for (uint32_t k = 0; k < n && rc == 0; k++) {
		uint32_t u = syms[k].sym;

		if (!RONDO_SYM_IS_RULE(u) && u >= base && u - base < p->ncls &&
		    syms[k].count > 1 && p->cls[u - base].wrap == NONE) {
			rc = out_cls(p, u - base);
			rc = rc ? rc : out_end(p, &p->cls[u - base].wrap);
		}
	}
	return rc;
}

/* Adds engine symbols syms[0 .. n) to the rule being built, in output
 * terms (what they refer to is there: id[] the engine rules'). */
static int out_units(struct prec *p, const rondo_sym *syms, uint32_t n,
		     const uint32_t *id)
{
	uint32_t base = unit_cls(p, 0);
	int rc = 0;

	for (uint32_t k = 0; k < n && rc == 0; k++) {
		uint32_t u = syms[k].sym;
		uint64_t c = syms[k].count;

		if (RONDO_SYM_IS_RULE(u))
			rc = out_sym(
				p, RONDO_SYM_RULE | id[u & ~RONDO_SYM_RULE], c);
		else if (u >= base && u - base < p->ncls && c > 1)
			rc = out_sym(p, RONDO_SYM_RULE | p->cls[u - base].wrap,
				     c);
		else if (u >= base && u - base < p->ncls)
			rc = out_cls(p, u - base);
		else if (u >= p->nterm)
			rc = out_sym(p, RONDO_SYM_RULE | p->exact[u - p->nterm],
				     c);
		else
			rc = out_sym(p, u, c);
	}
	return rc;
}

/* Emits the engine rules syms[0 .. n) refer to, each after those it
 * refers to (post-order, an explicit stack), and the wrappers; id[] the
 * engine rules' output ids (NONE: not yet). */
static int out_engine(struct prec *p, const struct fmt_grammar *eg,
		      const rondo_sym *syms, uint32_t n, uint32_t *id)
{
	uint32_t *st = NULL;
	size_t depth = 0, cap = 0;
	int rc = 0;

	for (uint32_t k = 0; k < n && rc == 0; k++) {
		uint32_t u = syms[k].sym;

		if (!RONDO_SYM_IS_RULE(u) || id[u & ~RONDO_SYM_RULE] != NONE)
			continue;
		if (util_grow(&st, &cap, depth + 1, sizeof(*st)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		st[depth++] = u & ~RONDO_SYM_RULE;
		while (depth && rc == 0) {
			uint32_t r = st[depth - 1], from = eg->first[r],
				 len = eg->first[r + 1] - from, child = NONE;

			if (id[r] != NONE) {
				depth--;
				continue;
			}
			for (uint32_t i = 0; i < len && child == NONE; i++) {
				uint32_t v = eg->body[from + i].sym;

				if (RONDO_SYM_IS_RULE(v) &&
				    id[v & ~RONDO_SYM_RULE] == NONE)
					child = v & ~RONDO_SYM_RULE;
			}
			if (child != NONE) {
				if (util_grow(&st, &cap, depth + 1,
					      sizeof(*st)) < 0)
					rc = RONDO_E_NOMEM;
				else
					st[depth++] = child;
				continue;
			}
			rc = out_wrappers(p, &eg->body[from], len);
			rc = rc ? rc : out_units(p, &eg->body[from], len, id);
			rc = rc ? rc : out_end(p, &id[r]);
			depth--;
		}
	}
	free(st);
	return rc ? rc : out_wrappers(p, syms, n);
}

/* ---- a pass -------------------------------------------------------------- */

static void prec_free(struct prec *p)
{
	free(p->slot);
	free(p->ent);
	free(p->cls);
	free(p->opaque);
	free(p->exact);
	free(p->body.s);
	free(p->first);
}

/* The histograms of this pass's classes the output uses (cls.hist,
 * numbered in class order after the earlier passes'), nh in all. */
int precision_hist(struct fmt_hist *h, uint32_t kind,
		   const struct precision_val *v, uint32_t n)
{
	uint32_t nb = 0;

	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->bin = malloc(sizeof(*h->bin) * ((size_t)n + 1));
	if (!h->bin)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct precision_val *e = &v[i];

		if (add_mul(&h->sum, e->v, e->w) < 0 ||
		    add_mul(&h->n, e->w, 1) < 0)
			return RONDO_E_RANGE;
		if (!nb) {
			h->min = e->v;
			h->min_rank = e->rank;
		}
		h->max = e->v;
		h->max_rank = e->rank;
		/* many distinct values: bins of a quarter more than their
		 * least */
		if (nb && n > EXACT_BINS &&
		    e->v - h->bin[nb - 1].lo <= h->bin[nb - 1].lo / 4) {
			h->bin[nb - 1].hi = e->v;
			h->bin[nb - 1].n += e->w;
		} else {
			h->bin[nb++] = (struct fmt_hbin){e->v, e->v, e->w};
		}
	}
	h->nbins = nb;
	return 0;
}

static int hists_make(struct prec *p, uint32_t nh, struct fmt_hists *out)
{
	struct fmt_hist *h2 = realloc(out->h, sizeof(*h2) * ((size_t)nh + 1));
	struct precision_val *v = NULL;
	int rc = 0;

	if (!h2)
		return RONDO_E_NOMEM;
	out->h = h2;
	memset(&h2[out->n], 0, sizeof(*h2) * (nh - out->n));
	out->n = nh;
	for (uint32_t k = p->nfixed; k < p->ncls && rc == 0; k++) {
		const struct cls *c = &p->cls[k];
		uint32_t distinct = c->last - c->first;
		struct precision_val *v2;

		if (c->hist == NONE)
			continue;
		v2 = realloc(v, sizeof(*v) * ((size_t)distinct + 1));
		if (!v2) {
			rc = RONDO_E_NOMEM;
			break;
		}
		v = v2;
		for (uint32_t i = 0; i < distinct; i++) {
			const struct ent *e = &p->ent[c->first + i];

			v[i] = (struct precision_val){e->c, e->w, e->rank};
		}
		rc = precision_hist(&out->h[c->hist], FMT_HIST_COUNT, v,
				    distinct);
	}
	free(v);
	return rc;
}

/* Every group's runs, a separator after each: counted (sink NULL) or
 * fed to the engine. */
static int all_runs(struct prec *p, const struct precision_group *gr,
		    uint32_t ng)
{
	int rc = 0;

	p->gr = gr;
	p->grp = p->sep = 0;
	p->nruns = 0;
	p->last.count = 0;
	for (uint32_t i = 0; i < ng && rc == 0; i++) {
		rc = runs(p, gr[i].root);
		rc = rc ? rc : run_add(p, NONE, 1);
	}
	return rc;
}

/* The runs through the engine, a merged run as its class's unit, a
 * separator after each group; *eg the engine's grammar. */
static int fold(struct prec *p, const struct precision_group *gr, uint32_t ng,
		struct fmt_grammar *eg)
{
	int rc;

	p->sink = grammar_create();
	rc = p->sink ? all_runs(p, gr, ng) : RONDO_E_NOMEM;
	rc = rc ? rc : grammar_flush(p->sink);
	rc = rc ? rc : grammar_export(p->sink, eg);
	grammar_free(p->sink);
	p->sink = NULL;
	return rc;
}

/* The output grammar from the engine's eg: the old rules the units name,
 * the engine's rules, and the groups' roots last, in their old order
 * (newroot[old root]). */
static int assemble(struct prec *p, const struct fmt_grammar *eg,
		    const struct precision_group *gr, uint32_t ng,
		    uint32_t *newroot, struct fmt_hists *out)
{
	const uint32_t root = eg->nrules - 1, sep = unit_cls(p, p->ncls);
	const rondo_sym *body = &eg->body[eg->first[root]];
	uint32_t len = eg->first[root + 1] - eg->first[root], nh = p->nfixed;
	uint32_t *at = NULL, *id = NULL, j = 0;
	int rc = 0;

	/* the histograms the units use, numbered in class order */
	for (uint64_t k = 0; k < eg->first[eg->nrules]; k++) {
		uint32_t u = eg->body[k].sym;

		if (!RONDO_SYM_IS_RULE(u) && u >= unit_cls(p, p->nfixed) &&
		    u < sep)
			p->cls[u - unit_cls(p, 0)].hist = 0;
	}
	for (uint32_t k = p->nfixed; k < p->ncls; k++)
		p->cls[k].hist = p->cls[k].hist == 0 ? nh++ : NONE;
	at = malloc(sizeof(*at) * ((size_t)ng + 2));
	id = malloc(sizeof(*id) * ((size_t)eg->nrules + 1));
	if (!at || !id) {
		rc = RONDO_E_NOMEM;
		goto done;
	}
	for (uint32_t r = 0; r < eg->nrules; r++)
		id[r] = NONE;
	/* at[j]: where group j's units start in the engine's root */
	at[0] = 0;
	for (uint32_t i = 0; i < len && j < ng; i++)
		if (!RONDO_SYM_IS_RULE(body[i].sym) && body[i].sym >= sep)
			at[++j] = i + 1;
	if (j != ng) {
		rc = RONDO_E_RANGE;
		goto done;
	}
	rc = out_exact(p, eg);
	for (uint32_t s = 0; s < ng && rc == 0; s++)
		rc = out_engine(p, eg, &body[at[s]], at[s + 1] - 1 - at[s], id);
	for (uint32_t s = 0; s < ng && rc == 0; s++) {
		rc = out_units(p, &body[at[s]], at[s + 1] - 1 - at[s], id);
		rc = rc ? rc : out_end(p, &newroot[gr[s].root]);
	}
	rc = rc ? rc : hists_make(p, nh, out);
done:
	free(at);
	free(id);
	return rc;
}

/* The groups' gaps under their new roots (in the same order); a group of
 * a root no rank has is dropped. */
static void regroup(struct fmt_groupgaps *gg, uint32_t nold,
		    const uint32_t *newroot)
{
	uint32_t n = 0;
	uint64_t e = 0;

	for (uint32_t i = 0; i < gg->n; i++) {
		uint32_t r = gg->root[i];
		uint64_t from = gg->at[i], to = gg->at[i + 1];

		if (r >= nold || newroot[r] == NONE)
			continue;
		gg->root[n] = newroot[r];
		memmove(&gg->e[e], &gg->e[from], sizeof(*gg->e) * (to - from));
		gg->at[n] = e;
		e += to - from;
		gg->at[++n] = e;
	}
	gg->n = n;
}

/* Drops histograms from n on (a pass that failed or merged nothing). */
static void hists_cut(struct fmt_hists *h, uint32_t n)
{
	for (uint32_t i = n; i < h->n; i++)
		free(h->h[i].bin);
	h->n = n;
}

/* The output's sites (its symbols that stand for histograms), in
 * place of the last pass's; the marks stay for the next pass. */
static int sites(const struct prec *p, struct fmt_hists *out)
{
	struct fmt_hsite *v;
	size_t n = 0;

	for (size_t k = 0; k < p->body.n; k++)
		n += p->body.s[k].reserved != 0;
	v = malloc(sizeof(*v) * (n + 1));
	if (!v)
		return RONDO_E_NOMEM;
	n = 0;
	for (uint32_t r = 0; r < p->nout; r++)
		for (uint32_t k = p->first[r]; k < p->first[r + 1]; k++)
			if (p->body.s[k].reserved)
				v[n++] = (struct fmt_hsite){
					r, k - p->first[r],
					p->body.s[k].reserved - 1};
	free(out->site);
	out->site = v;
	out->nsites = (uint32_t)n;
	return 0;
}

/* One pass (above): *merged is 1 when it merged loops no earlier pass
 * had, and g, rm and gg are then its output; out gets its histograms. */
static int pass(struct fmt_grammar *g, struct fmt_rankmap *rm,
		struct fmt_groupgaps *gg, uint32_t nterminals,
		uint32_t precision, int force, struct fmt_hists *out,
		int *merged)
{
	struct prec p = {.g = g, .nterm = nterminals, .pct = precision};
	struct precision_group *gr = NULL;
	struct fmt_grammar eg = {0};
	uint32_t ng = 0, *newroot = NULL, nold = g->nrules;
	int rc;

	*merged = 0;
	p.nfixed = out->n;
	rc = opaque_rules(&p);
	rc = rc ? rc : precision_groups(rm, nold, &gr, &ng);
	rc = rc ? rc : all_runs(&p, gr, ng);
	rc = rc ? rc : classes(&p);
	if (rc || (p.ncls == p.nfixed && !force))
		goto done;
	/* the engine's terminals: calls, rules, classes, separators */
	if ((uint64_t)nterminals + nold + p.ncls + ng > GRAMMAR_MAX_TERMINAL) {
		rc = RONDO_E_RANGE;
		goto done;
	}
	reps(&p);
	p.exact = malloc(sizeof(*p.exact) * ((size_t)nold + 1));
	newroot = malloc(sizeof(*newroot) * ((size_t)nold + 1));
	if (!p.exact || !newroot ||
	    util_grow(&p.first, &p.capout, 2, sizeof(*p.first)) < 0) {
		rc = RONDO_E_NOMEM;
		goto done;
	}
	p.first[0] = 0;
	for (uint32_t r = 0; r < nold; r++)
		p.exact[r] = newroot[r] = NONE;
	rc = fold(&p, gr, ng, &eg);
	rc = rc ? rc : assemble(&p, &eg, gr, ng, newroot, out);
	if (!rc && !p.body.s && !(p.body.s = malloc(sizeof(*p.body.s))))
		rc = RONDO_E_NOMEM;
	if (rc || (out->n == p.nfixed && !force))
		goto done;
	rc = sites(&p, out);
	if (rc)
		goto done;
	/* in place of the input: the pass is whole, or nothing changed */
	fmt_grammar_free(g);
	*g = (struct fmt_grammar){(uint32_t)p.nout, p.first, p.body.s};
	p.first = NULL;
	p.body.s = NULL;
	for (uint64_t k = 0; k < rm->map.first[rm->map.nrules]; k++)
		if (!RONDO_SYM_IS_RULE(rm->map.body[k].sym))
			rm->map.body[k].sym = newroot[rm->map.body[k].sym];
	regroup(gg, nold, newroot);
	*merged = 1;
done:
	if (rc || !*merged)
		hists_cut(out, p.nfixed);
	if (*merged && out->n == p.nfixed)
		*merged = 2; /* folded again, nothing new merged */
	free(newroot);
	free(gr);
	fmt_grammar_free(&eg);
	prec_free(&p);
	return rc;
}

int precision_apply(struct fmt_grammar *g, struct fmt_rankmap *rm,
		    struct fmt_groupgaps *gg, uint32_t nterminals,
		    uint32_t precision, int refold, struct fmt_hists *out)
{
	int rc = 0, merged = 1, passes = 0;

	memset(out, 0, sizeof(*out));
	out->precision = precision;
	if (precision >= PRECISION_LOSSLESS || !g->nrules)
		return 0;
	for (uint64_t k = 0; k < g->first[g->nrules]; k++)
		g->body[k].reserved = 0;
	while (merged == 1 && passes < PASSES && rc == 0) {
		rc = pass(g, rm, gg, nterminals, precision, refold && !passes,
			  out, &merged);
		passes += merged != 0;
	}
	if (!passes) {
		fmt_hists_free(out);
		out->precision = precision;
		return rc;
	}
	/* what the passes did stands, their sites in out */
	for (uint64_t k = 0; k < g->first[g->nrules]; k++)
		g->body[k].reserved = 0;
	return 0;
}
