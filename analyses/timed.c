/*
 * timed.c - skew of collectives, late senders and late receivers, from
 * per-call times (see timed.h).
 *
 * Both analyses take the calls of all ranks in the order of their start
 * times (struct twalk: a heap of timed iterators, one per rank), each
 * rank's in program order.  Matching does not depend on that order, only
 * on each rank's own: it is there so that what waits for its match (a
 * collective entered by some members only, a send before its receive) is
 * what was in flight in the run, a few entries, not a rank's whole run.
 *
 * Error bounds.  A start s reads s' with s <= s' < s + (b-1)|s - r| + 1,
 * r the reference it was measured from (rondo.h).  The walk follows the
 * references as the iterator does (the previous start of the signature,
 * else the end of the rank's previous call) for the signatures the
 * analysis uses, so each call comes with the bound of its start's error
 * and of its duration's.  A difference of two times is then off by less
 * than the larger of their bounds (both errors lie in [0, bound)).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sat.h"
#include "timed.h"
#include "util.h"

#define NONE UINT32_MAX

/* Element k of a list value, or a NULL value. */
static rondo_arg elem(const rondo_arg *list, uint64_t k)
{
	rondo_arg e = {0};

	if (list->wire != RONDO_WIRE_LIST || k >= list->n ||
	    rondo_arg_elem(list, k, &e) < 0)
		memset(&e, 0, sizeof(e));
	return e;
}

/* The elements of a list value, 0 for another value. */
static uint64_t list_len(const rondo_arg *a)
{
	return a->wire == RONDO_WIRE_LIST ? a->n : 0;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- a hash map from three 64-bit values to an index -------------------- */

struct kmap {
	uint64_t *key; /* three per slot */
	uint32_t *val; /* NONE: an empty slot */
	size_t cap, n; /* cap: a power of two, at most half full */
};

static size_t kmap_slot(size_t cap, const uint64_t k[3])
{
	uint64_t h = (k[0] + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;

	h = (h ^ (h >> 31) ^ k[1]) * 0x94d049bb133111ebull;
	h = (h ^ (h >> 29) ^ k[2]) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

static int kmap_grow(struct kmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64, j;
	uint64_t *key = malloc(sizeof(*key) * 3 * cap);
	uint32_t *val = malloc(sizeof(*val) * cap);

	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		val[i] = NONE;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->val[i] == NONE)
			continue;
		for (j = kmap_slot(cap, m->key + 3 * i); val[j] != NONE;
		     j = (j + 1) & (cap - 1))
			;
		memcpy(key + 3 * j, m->key + 3 * i, sizeof(*key) * 3);
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

/* The index stored under (a, b, c); else `next`, stored there (*added
 * set: the caller makes that entry).  NONE when memory is short. */
static uint32_t kmap_get(struct kmap *m, uint64_t a, uint64_t b, uint64_t c,
			 uint32_t next, int *added)
{
	const uint64_t k[3] = {a, b, c};
	size_t j;

	*added = 0;
	if (2 * (m->n + 1) > m->cap && kmap_grow(m) < 0)
		return NONE;
	for (j = kmap_slot(m->cap, k); m->val[j] != NONE;
	     j = (j + 1) & (m->cap - 1))
		if (!memcmp(m->key + 3 * j, k, sizeof(k)))
			return m->val[j];
	memcpy(m->key + 3 * j, k, sizeof(k));
	m->val[j] = next;
	m->n++;
	*added = 1;
	return next;
}

static void kmap_free(struct kmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ---- every rank's calls in the order of their start times ---------------- */

/* One rank's current call, and what its next calls' references are. */
struct tw_rank {
	rondo_iter *it;
	uint32_t sig;
	int64_t start, end;
	int64_t err, derr; /* bounds of the errors of start and duration */
	int64_t last_end;  /* the end of the rank's previous call */
	int64_t *prev;	   /* by slot: that signature's last start */
};

struct twalk {
	const rondo_trace *t;
	double base;
	uint32_t n;
	struct tw_rank *r;
	uint32_t *heap, nheap; /* ranks, by their current call's start */
	const int32_t *slot;   /* by signature: its slot, or -1 */
	uint32_t nslots;
	uint32_t cur;	       /* the rank whose call was handed out last */
	uint64_t untimed;      /* calls past ranks' timed calls */
};

/* The bound of the error of a time read back over the span from `from`
 * to `to`. */
static int64_t tw_bound(const struct twalk *w, int64_t from, int64_t to)
{
	double e = ceil((w->base - 1) * fabs((double)to - (double)from));

	/* a damaged file's spans may be any size: keep it a number */
	if (e > 4e18)
		e = 4e18;
	/* rounding a negative span down may lose up to b ns more */
	return (int64_t)e + (to < from ? (int64_t)ceil(w->base) : 1);
}

/* Rank i's next call: 1, 0 when it has no more timed calls, or a
 * RONDO_E_* code. */
static int tw_advance(struct twalk *w, uint32_t i)
{
	struct tw_rank *x = &w->r[i];
	int32_t slot;
	int64_t ref;
	int rc = rondo_iter_next(x->it, &x->sig);

	if (rc <= 0)
		return rc;
	if (rondo_iter_time(x->it, &x->start, &x->end) < 0)
		return 0; /* counted in w->untimed from the start */
	slot = x->sig < rondo_sig_count(w->t) ? w->slot[x->sig] : -1;
	ref = slot >= 0 && x->prev[slot] != INT64_MIN ? x->prev[slot]
						       : x->last_end;
	x->err = tw_bound(w, ref, x->start);
	x->derr = tw_bound(w, x->start, x->end);
	if (slot >= 0)
		x->prev[slot] = x->start;
	x->last_end = x->end;
	return 1;
}

static int tw_before(const struct twalk *w, uint32_t a, uint32_t b)
{
	return w->r[a].start != w->r[b].start ? w->r[a].start < w->r[b].start
					      : a < b;
}

static void tw_sift(struct twalk *w, uint32_t i)
{
	uint32_t *h = w->heap, tmp;

	for (uint32_t c; (c = 2 * i + 1) < w->nheap; i = c) {
		if (c + 1 < w->nheap && tw_before(w, h[c + 1], h[c]))
			c++;
		if (!tw_before(w, h[c], h[i]))
			return;
		tmp = h[i], h[i] = h[c], h[c] = tmp;
	}
}

static void tw_free(struct twalk *w)
{
	for (uint32_t i = 0; w->r && i < w->n; i++) {
		rondo_iter_free(w->r[i].it);
		free(w->r[i].prev);
	}
	free(w->r);
	free(w->heap);
	memset(w, 0, sizeof(*w));
}

/* Starts every rank's walk; slot[] (by signature) names the signatures
 * whose error bounds are wanted.  0, RONDO_E_MISSING without per-call
 * times, or another RONDO_E_* code (free it all the same). */
static int tw_init(struct twalk *w, const rondo_trace *t, const int32_t *slot,
		   uint32_t nslots)
{
	int rc = 0;

	memset(w, 0, sizeof(*w));
	w->t = t;
	w->slot = slot;
	w->nslots = nslots;
	w->cur = NONE;
	if (rondo_timing_mode(t, &w->base) != RONDO_TIMING_PERCALL)
		return RONDO_E_MISSING;
	w->n = rondo_rank_count(t);
	w->r = calloc((size_t)w->n + 1, sizeof(*w->r));
	w->heap = malloc(sizeof(*w->heap) * ((size_t)w->n + 1));
	if (!w->r || !w->heap)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < w->n && rc >= 0; i++) {
		struct tw_rank *x = &w->r[i];

		w->untimed = sat_add(w->untimed, rondo_rank_calls(t, i) -
						     rondo_rank_timed_calls(t, i));
		x->it = rondo_iter_create_timed(t, i);
		x->prev = malloc(sizeof(*x->prev) * ((size_t)nslots + 1));
		if (!x->it || !x->prev)
			return RONDO_E_NOMEM;
		for (uint32_t k = 0; k < nslots; k++)
			x->prev[k] = INT64_MIN;
		/* a rank's first call counts from 0 on its own clock */
		x->last_end = rondo_rank_clock_offset(t, i);
		rc = tw_advance(w, i);
		if (rc == 1)
			w->heap[w->nheap++] = i;
	}
	for (uint32_t i = w->nheap / 2; rc >= 0 && i-- > 0;)
		tw_sift(w, i);
	return rc < 0 ? rc : 0;
}

/* The next call of all: sets *rank, whose w->r[] holds it; 1, 0 at the
 * end, or a RONDO_E_* code. */
static int tw_next(struct twalk *w, uint32_t *rank)
{
	if (w->cur != NONE) { /* it is still on top of the heap */
		int rc = tw_advance(w, w->cur);

		if (rc < 0)
			return rc;
		if (rc == 0)
			w->heap[0] = w->heap[--w->nheap];
		tw_sift(w, 0);
		w->cur = NONE;
	}
	if (!w->nheap)
		return 0;
	*rank = w->cur = w->heap[0];
	return 1;
}

/* What both analyses start from: the trace, its resolver, and the
 * signatures they use (a slot each, for the walk's error bounds). */
struct tbase {
	const rondo_trace *t;
	struct an_resolver res;
	int32_t *slot;	  /* by signature: its slot, or -1 when not used */
	uint32_t nslots;
	double base;	  /* the trace's, once walked */
	uint64_t untimed; /* calls past ranks' timed calls */
};

static int tbase_init(struct tbase *b, const rondo_trace *t)
{
	uint32_t nsig = rondo_sig_count(t);

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->slot = malloc(sizeof(*b->slot) * ((size_t)nsig + 1));
	if (an_resolver_init(&b->res, t) < 0 || !b->slot)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < nsig; k++)
		b->slot[k] = -1;
	return 0;
}

static void tbase_use(struct tbase *b, uint32_t sig)
{
	b->slot[sig] = (int32_t)b->nslots++;
}

static void tbase_free(struct tbase *b)
{
	free(b->slot);
	an_resolver_free(&b->res);
}

/* Hands call() every call of a signature b uses, all ranks' calls in the
 * order of their starts; 0, or the first error. */
static int tbase_walk(struct tbase *b,
		      int (*call)(struct tbase *b, uint32_t rank,
				  const struct tw_rank *x))
{
	struct twalk w;
	uint32_t r;
	int rc = tw_init(&w, b->t, b->slot, b->nslots);

	while (rc == 0 && (rc = tw_next(&w, &r)) == 1)
		rc = b->slot[w.r[r].sig] >= 0 ? call(b, r, &w.r[r]) : 0;
	b->base = w.base;
	b->untimed = w.untimed;
	tw_free(&w);
	return rc;
}

/* ---- collective skew ------------------------------------------------------ */

static const char *const coll_names[] = {
	"MPI_Barrier",	 "MPI_Bcast",	       "MPI_Reduce",
	"MPI_Allreduce", "MPI_Gather",	       "MPI_Gatherv",
	"MPI_Scatter",	 "MPI_Scatterv",       "MPI_Allgather",
	"MPI_Allgatherv", "MPI_Alltoall",      "MPI_Alltoallv",
	"MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
	"MPI_Scan",	 "MPI_Exscan",
};

/* A collective of the list, its nonblocking form (MPI_Ibarrier), or
 * either with MPI-4's large counts (_c). */
static int is_collective(const char *name)
{
	size_t len;

	if (!name || strncmp(name, "MPI_", 4))
		return 0;
	len = strlen(name);
	if (len > 2 && !strcmp(name + len - 2, "_c"))
		len -= 2;
	for (size_t i = 0; i < COUNTOF(coll_names); i++) {
		const char *base = coll_names[i] + 4;

		size_t n = strlen(base);

		if ((n == len - 4 && !strncmp(name + 4, base, n)) ||
		    (name[4] == 'I' && n == len - 5 &&
		     !strncasecmp(name + 5, base, n)))
			return 1;
	}
	return 0;
}

struct centry {
	uint32_t sig;
	int64_t start, err;
};

/* One member's collectives not matched yet, oldest first (a ring). */
struct cfifo {
	struct centry *e;
	size_t cap;
	uint32_t head, len;
};

/* A communicator's collectives in flight. */
struct cstate {
	struct an_comm cm;
	uint32_t nonempty; /* members with entries */
	struct cfifo *q;   /* by member */
};

struct skew {
	struct tbase b;		 /* first: skew_call is handed it */
	int64_t only;
	rondo_arg *comm;	 /* by signature: its communicator value */
	struct kmap states, rowmap;
	struct cstate *st;
	size_t nst, capst;
	uint64_t **last;	 /* by row: times each member was last */
	size_t caplast;
	struct an_skew_result *out;
	size_t caprows;
};

static int fifo_push(struct cfifo *f, const struct centry *e)
{
	if (f->len == f->cap) { /* unroll the ring into a larger one */
		size_t cap = f->cap;
		struct centry *n = NULL;

		if (util_grow(&n, &cap, f->cap + 1, sizeof(*n)) < 0)
			return -1;
		for (uint32_t k = 0; k < f->len; k++)
			n[k] = f->e[(f->head + k) % f->cap];
		free(f->e);
		f->e = n;
		f->cap = cap;
		f->head = 0;
	}
	f->e[(f->head + f->len++) % f->cap] = *e;
	return 0;
}

/* The state of communicator cm, made when first seen; NULL when memory
 * is short. */
static struct cstate *skew_state(struct skew *k, const struct an_comm *cm)
{
	int added;
	uint32_t i = kmap_get(&k->states, (uint64_t)cm->id, 0, 0,
			      (uint32_t)k->nst, &added);
	struct cstate *s;

	if (i == NONE)
		return NULL;
	if (!added)
		return &k->st[i];
	if (util_grow(&k->st, &k->capst, k->nst + 1, sizeof(*k->st)) < 0)
		return NULL;
	s = &k->st[k->nst];
	memset(s, 0, sizeof(*s));
	s->cm = *cm;
	s->q = calloc(cm->size, sizeof(*s->q));
	if (!s->q)
		return NULL;
	k->nst++;
	return s;
}

/* The row of function f on communicator cm, made when first seen. */
static struct an_skew *skew_row(struct skew *k, uint32_t f,
				const struct an_comm *cm)
{
	struct an_skew_result *o = k->out;
	int added;
	uint32_t i = kmap_get(&k->rowmap, f, (uint64_t)cm->id, 0, o->n, &added);

	if (i == NONE)
		return NULL;
	if (!added)
		return &o->rows[i];
	if (util_grow(&o->rows, &k->caprows, o->n + 1ul, sizeof(*o->rows)) < 0 ||
	    util_grow(&k->last, &k->caplast, o->n + 1ul, sizeof(*k->last)) < 0 ||
	    !(k->last[o->n] = calloc(cm->size, sizeof(**k->last))))
		return NULL;
	memset(&o->rows[i], 0, sizeof(o->rows[i]));
	o->rows[i].func = f;
	o->rows[i].comm = cm->id;
	o->rows[i].members = cm->size;
	o->n++;
	return &o->rows[i];
}

/* Every member of s has reached its next collective: take them off and
 * add the occurrence to its row. */
static int skew_match(struct skew *k, struct cstate *s)
{
	uint32_t n = s->cm.size, last = 0, func;
	int64_t lo = INT64_MAX, hi = INT64_MIN, err = 0;
	uint64_t wait = 0;
	struct an_skew *row;
	int same = 1;

	func = rondo_sig_func(k->b.t, s->q[0].e[s->q[0].head].sig);
	for (uint32_t m = 0; m < n; m++) {
		const struct centry *e = &s->q[m].e[s->q[m].head];

		same &= rondo_sig_func(k->b.t, e->sig) == func;
		lo = e->start < lo ? e->start : lo;
		if (e->start > hi)
			hi = e->start, last = m;
		err = max64(err, e->err);
	}
	for (uint32_t m = 0; m < n; m++) {
		struct cfifo *f = &s->q[m];

		wait = sat_add(wait, (uint64_t)(hi - f->e[f->head].start));
		f->head = (f->head + 1) % f->cap;
		if (--f->len == 0)
			s->nonempty--;
	}
	if (!same) { /* some member called another collective: lost order */
		k->out->mismatched++;
		return 0;
	}
	row = skew_row(k, func, &s->cm);
	if (!row)
		return RONDO_E_NOMEM;
	row->count++;
	row->spread_ns = sat_add(row->spread_ns, (uint64_t)(hi - lo));
	if (row->count == 1 || (uint64_t)(hi - lo) > row->max_spread_ns)
		row->max_spread_ns = (uint64_t)(hi - lo), row->max_at_ns = hi;
	row->wait_ns = sat_add(row->wait_ns, wait);
	row->err_ns = (uint64_t)max64((int64_t)row->err_ns, err);
	k->last[row - k->out->rows][last]++;
	return 0;
}

/* A collective call of rank r. */
static int skew_call(struct tbase *b, uint32_t r, const struct tw_rank *x)
{
	struct skew *k = (struct skew *)b;
	const struct centry e = {x->sig, x->start, x->err};
	struct an_comm cm;
	struct cstate *s;
	struct cfifo *f;

	if (an_comm_get(&b->res, &k->comm[x->sig], r, &cm) < 0) {
		if (b->res.failed)
			return RONDO_E_NOMEM;
		k->out->unresolved++;
		return 0;
	}
	/* MPI_COMM_SELF and the like: no one to be early or late against */
	if ((k->only != AN_ANY && cm.id != k->only) || cm.size < 2)
		return 0;
	k->out->calls++;
	s = skew_state(k, &cm);
	if (!s)
		return RONDO_E_NOMEM;
	f = &s->q[cm.me];
	if (fifo_push(f, &e) < 0)
		return RONDO_E_NOMEM;
	if (f->len == 1 && ++s->nonempty == s->cm.size)
		return skew_match(k, s);
	return 0;
}

/* Which signatures are collectives, and their communicators. */
static int skew_init(struct skew *k, const rondo_trace *t, int64_t comm,
		     struct an_skew_result *out)
{
	uint32_t nsig = rondo_sig_count(t);

	memset(k, 0, sizeof(*k));
	memset(out, 0, sizeof(*out));
	k->only = comm;
	k->out = out;
	k->comm = calloc((size_t)nsig + 1, sizeof(*k->comm));
	if (tbase_init(&k->b, t) < 0 || !k->comm)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < nsig; s++) {
		if (!is_collective(rondo_func_name(t, rondo_sig_func(t, s))))
			continue;
		k->comm[s] = an_arg(t, s, "comm");
		tbase_use(&k->b, s);
	}
	return 0;
}

/* The member last most often of each row, then the rows by waiting. */
static int skew_cmp(const void *a, const void *b)
{
	const struct an_skew *x = a, *y = b;

	if (x->wait_ns != y->wait_ns)
		return x->wait_ns < y->wait_ns ? 1 : -1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

static void skew_finish(struct skew *k)
{
	struct an_skew_result *o = k->out;

	for (uint32_t i = 0; i < o->n; i++) {
		struct an_skew *row = &o->rows[i];
		/* enough of the communicator to name its members */
		struct an_comm cm = {row->comm, row->members, 0, 0, 0};
		uint32_t best = 0;

		for (uint32_t m = 1; m < row->members; m++)
			if (k->last[i][m] > k->last[i][best])
				best = m;
		row->last_rank = (uint32_t)an_member(&k->b.res, &cm, best);
		row->last_count = k->last[i][best];
	}
	for (size_t s = 0; s < k->nst; s++)
		for (uint32_t m = 0; m < k->st[s].cm.size; m++)
			o->unmatched += k->st[s].q[m].len;
	if (o->n) /* no rows: no array */
		qsort(o->rows, o->n, sizeof(*o->rows), skew_cmp);
}

static void skew_done(struct skew *k)
{
	for (size_t s = 0; s < k->nst; s++) {
		for (uint32_t m = 0; m < k->st[s].cm.size; m++)
			free(k->st[s].q[m].e);
		free(k->st[s].q);
	}
	for (uint32_t i = 0; k->last && i < k->out->n; i++)
		free(k->last[i]);
	free(k->last);
	free(k->st);
	free(k->comm);
	kmap_free(&k->states);
	kmap_free(&k->rowmap);
	tbase_free(&k->b);
}

int an_skew(const rondo_trace *t, int64_t comm, struct an_skew_result *out)
{
	struct skew k;
	int rc = skew_init(&k, t, comm, out);

	rc = rc ? rc : tbase_walk(&k.b, skew_call);
	if (rc == 0) {
		out->base = k.b.base;
		out->untimed = k.b.untimed;
		skew_finish(&k);
	}
	skew_done(&k);
	if (rc < 0)
		an_skew_free(out);
	return rc;
}

void an_skew_free(struct an_skew_result *r)
{
	if (!r)
		return;
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
}

/* "world", "self" or "c3". */
static void comm_label(char *buf, size_t size, int64_t comm)
{
	if (comm == AN_COMM_WORLD)
		snprintf(buf, size, "world");
	else if (comm == AN_COMM_SELF)
		snprintf(buf, size, "self");
	else
		snprintf(buf, size, "c%" PRId64, comm);
}

int an_skew_csv(const rondo_trace *t, const struct an_skew *rows, uint32_t n,
		FILE *out)
{
	fputs("function,comm,members,occurrences,mean_spread_ns,max_spread_ns,"
	      "max_spread_at_ns,error_ns,last_rank,last_count,wait_ns\n", out);
	for (uint32_t i = 0; i < n; i++) {
		const struct an_skew *s = &rows[i];
		const char *name = rondo_func_name(t, s->func);
		char comm[32];

		comm_label(comm, sizeof(comm), s->comm);
		fprintf(out, "%s,%s,%" PRIu32 ",%" PRIu64 ",%.1f,%" PRIu64
			",%" PRId64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64
			",%" PRIu64 "\n",
			name ? name : "?", comm, s->members, s->count,
			s->count ? (double)s->spread_ns / (double)s->count : 0,
			s->max_spread_ns, s->max_at_ns, s->err_ns, s->last_rank,
			s->last_count, s->wait_ns);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : RONDO_E_IO;
}

/* ---- late senders and late receivers -------------------------------------- */

enum wcls {
	W_NONE,
	W_SEND,	     /* dest, tag, comm */
	W_RECV,	     /* source, tag, comm, status: blocking */
	W_SENDRECV,  /* both, blocking */
	W_IRECV,     /* source, tag, comm, request */
	W_ISENDRECV, /* both, request */
	W_SINIT,     /* a persistent send: dest, tag, comm, request */
	W_RINIT,     /* a persistent receive */
	W_START,     /* request */
	W_STARTALL,  /* array_of_requests */
	W_WAIT,	     /* request, status */
	W_WAITALL,   /* array_of_requests, array_of_statuses */
	W_WAITANY,   /* array_of_requests, index, status */
	W_WAITSOME,  /* array_of_requests, array_of_indices, statuses */
	W_TEST,	     /* as W_WAIT... with a flag, and never blocking */
	W_TESTALL,
	W_TESTANY,
	W_TESTSOME,
	W_FREE	     /* MPI_Request_free: request */
};

static const struct wfn {
	const char *name;
	uint8_t cls;
	uint8_t lr; /* a blocking send: late receivers count */
} wfns[] = {
	{"MPI_Send", W_SEND, 1},	{"MPI_Ssend", W_SEND, 1},
	{"MPI_Bsend", W_SEND, 0},	{"MPI_Rsend", W_SEND, 0},
	{"MPI_Isend", W_SEND, 0},	{"MPI_Issend", W_SEND, 0},
	{"MPI_Ibsend", W_SEND, 0},	{"MPI_Irsend", W_SEND, 0},
	{"MPI_Recv", W_RECV, 0},	{"MPI_Sendrecv", W_SENDRECV, 0},
	{"MPI_Sendrecv_replace", W_SENDRECV, 0},
	{"MPI_Irecv", W_IRECV, 0},	{"MPI_Isendrecv", W_ISENDRECV, 0},
	{"MPI_Isendrecv_replace", W_ISENDRECV, 0},
	{"MPI_Send_init", W_SINIT, 0},	{"MPI_Ssend_init", W_SINIT, 0},
	{"MPI_Bsend_init", W_SINIT, 0}, {"MPI_Rsend_init", W_SINIT, 0},
	{"MPI_Recv_init", W_RINIT, 0},	{"MPI_Start", W_START, 0},
	{"MPI_Startall", W_STARTALL, 0}, {"MPI_Wait", W_WAIT, 0},
	{"MPI_Waitall", W_WAITALL, 0},	{"MPI_Waitany", W_WAITANY, 0},
	{"MPI_Waitsome", W_WAITSOME, 0}, {"MPI_Test", W_TEST, 0},
	{"MPI_Testall", W_TESTALL, 0},	{"MPI_Testany", W_TESTANY, 0},
	{"MPI_Testsome", W_TESTSOME, 0}, {"MPI_Request_free", W_FREE, 0},
};

/* What a signature does, and the values it does it with. */
struct wsig {
	uint8_t cls, lr;
	uint8_t any_src, any_tag; /* a receive's wildcards */
	rondo_arg comm, dest, stag, source, rtag, req, status, index, flag;
};

/* A send waiting for its receive. */
struct smsg {
	struct smsg *next;
	uint32_t src;
	uint8_t lr;
	int64_t start, err, dur, derr;
};

struct wgroup;

/* A receive, from its post until it is both matched and completed. */
struct rmsg {
	struct rmsg *prev, *next; /* every live one */
	struct rmsg *qnext;	  /* in its channel, unmatched */
	struct an_comm cm;
	uint32_t dst;
	int64_t src, tag;	  /* world rank and tag; -1, any: wildcards */
	uint8_t any_tag, matched, done;
	int64_t post, post_err;
	uint32_t from;		  /* once matched: the send's */
	int64_t sstart, serr;
	struct wgroup *g;	  /* the blocking call completing it */
};

/* A blocking call completing receives: it waited as long as its latest
 * sender made it. */
struct wgroup {
	uint32_t rank, left; /* receives not yet matched */
	int64_t start, dur, err, derr;
	int64_t best;	     /* the longest wait read back, or 0 */
	uint32_t best_src;
	int64_t bound;	     /* the error bound of that: the largest of the
				waits that may be above 0 */
	uint32_t bound_src;
};

/* A channel: one of its two queues is empty at any time. */
struct chan {
	struct smsg *sh, *st;
	struct rmsg *rh, *rt;
};

/* What a rank's request ids stand for. */
struct wreq {
	uint32_t init;	/* the persistent request's init signature */
	struct rmsg *m; /* the receive it will complete */
};

struct waits {
	struct tbase b; /* first: wait_call is handed it */
	struct wsig *sig;
	struct kmap reqmap;	/* (rank, request id) -> entry of req */
	struct wreq *req;
	size_t nreq, capreq;
	struct kmap chanmap, pairmap;
	struct chan *chan;
	size_t nchan, capchan, cappairs;
	struct rmsg live;   /* the list's head */
	struct rmsg **done; /* the receives a call completes */
	size_t ndone, capdone;
	struct an_waits *out;
};

/* Pair (src, dst)'s row, made when first needed; NULL when memory is
 * short.  Rows move when made: use the pointer at once. */
static struct an_wait_pair *wait_pair(struct waits *w, uint32_t src,
				      uint32_t dst)
{
	struct an_waits *o = w->out;
	int added;
	uint32_t i = kmap_get(&w->pairmap, src, dst, 0, o->n, &added);

	if (i == NONE)
		return NULL;
	if (added) {
		if (util_grow(&o->pairs, &w->cappairs, (size_t)o->n + 1,
			 sizeof(*o->pairs)) < 0)
			return NULL;
		memset(&o->pairs[i], 0, sizeof(o->pairs[i]));
		o->pairs[i].src = src;
		o->pairs[i].dst = dst;
		o->n++;
	}
	return &o->pairs[i];
}

static struct chan *wait_chan(struct waits *w, uint32_t src, uint32_t dst,
			      int64_t comm, int64_t tag)
{
	int added;
	uint32_t i = kmap_get(&w->chanmap, (uint64_t)src << 32 | dst,
			      (uint64_t)comm, (uint64_t)tag, (uint32_t)w->nchan,
			      &added);

	if (i == NONE)
		return NULL;
	if (added) {
		if (util_grow(&w->chan, &w->capchan, w->nchan + 1,
			 sizeof(*w->chan)) < 0)
			return NULL;
		memset(&w->chan[i], 0, sizeof(w->chan[i]));
		w->nchan++;
	}
	return &w->chan[i];
}

/* Sets *q to rank r's entry of the request value v names, made when
 * first needed (in a map: ids come from the trace, and one far out must
 * not cost memory), or to NULL when v names none (MPI_REQUEST_NULL).
 * 0, or RONDO_E_NOMEM. */
static int wait_req(struct waits *w, uint32_t r, const rondo_arg *v,
		    struct wreq **q)
{
	uint32_t id = an_req_id(v), i;
	int added;

	*q = NULL;
	if (id == NONE)
		return 0;
	i = kmap_get(&w->reqmap, r, id, 0, (uint32_t)w->nreq, &added);
	if (i == NONE)
		return RONDO_E_NOMEM;
	if (added) {
		if (util_grow(&w->req, &w->capreq, w->nreq + 1, sizeof(*w->req)) < 0)
			return RONDO_E_NOMEM;
		w->req[i] = (struct wreq){NONE, NULL};
		w->nreq++;
	}
	*q = &w->req[i];
	return 0;
}

/* Late-sender time is settled for group g: counted on its pair. */
static int group_commit(struct waits *w, struct wgroup *g)
{
	struct an_wait_pair *p;
	int rc = 0;

	if (g->best > 0 || g->bound > 0) {
		/* a wait read as none may still have been one: its bound
		 * counts even then */
		p = wait_pair(w, g->best > 0 ? g->best_src : g->bound_src,
			      g->rank);
		if (p) {
			p->ls_count += g->best > 0;
			p->ls_ns = sat_add(p->ls_ns, (uint64_t)g->best);
			p->err_ns = sat_add(p->err_ns, (uint64_t)g->bound);
		} else {
			rc = RONDO_E_NOMEM;
		}
	}
	free(g);
	return rc;
}

/* Receive m is off its group's list: matched (it counts) or not. */
static int group_leave(struct waits *w, struct wgroup *g, const struct rmsg *m)
{
	if (m->matched) {
		int64_t t = m->sstart - g->start;
		/* a min of two times is off by no more than either */
		int64_t e = max64(max64(m->serr, g->err), g->derr);

		if (t > g->dur) /* the wait cannot be longer than the call */
			t = g->dur;
		if (t > g->best)
			g->best = t, g->best_src = m->from;
		if (t + e > 0 && e > g->bound)
			g->bound = e, g->bound_src = m->from;
	}
	return --g->left ? 0 : group_commit(w, g);
}

/* Receive m is done with: matched and completed, or at the end. */
static int rmsg_free(struct waits *w, struct rmsg *m)
{
	int rc = m->g ? group_leave(w, m->g, m) : 0;

	m->prev->next = m->next;
	m->next->prev = m->prev;
	free(m);
	return rc;
}

/* Send s and receive m are the same message. */
static int wait_match(struct waits *w, struct rmsg *m, const struct smsg *s)
{
	struct an_wait_pair *p = wait_pair(w, s->src, m->dst);
	int64_t t = m->post - s->start;
	int64_t e = max64(max64(m->post_err, s->err), s->derr);

	if (!p)
		return RONDO_E_NOMEM;
	p->msgs++;
	if (s->lr && t > s->dur)
		t = s->dur;
	if (s->lr && t > 0) { /* a blocking send waited for the receive */
		p->lr_count++;
		p->lr_ns = sat_add(p->lr_ns, (uint64_t)t);
	}
	if (s->lr && t + e > 0) /* it may have, even when read as 0 */
		p->err_ns = sat_add(p->err_ns, (uint64_t)e);
	m->matched = 1;
	m->from = s->src;
	m->sstart = s->start;
	m->serr = s->err;
	return m->done ? rmsg_free(w, m) : 0;
}

/* Receive m, its source and tag known, joins its channel. */
static int recv_queue(struct waits *w, struct rmsg *m)
{
	struct chan *c = wait_chan(w, (uint32_t)m->src, m->dst, m->cm.id,
				   m->tag);
	struct smsg *s;
	int rc;

	if (!c)
		return RONDO_E_NOMEM;
	if (!c->sh) {
		m->qnext = NULL;
		if (c->rt)
			c->rt->qnext = m;
		else
			c->rh = m;
		c->rt = m;
		return 0;
	}
	s = c->sh;
	c->sh = s->next;
	if (!c->sh)
		c->st = NULL;
	rc = wait_match(w, m, s);
	free(s);
	return rc;
}

/* A call's communicator was not resolved: memory ran short, or the trace
 * does not give its members. */
static int wait_nocomm(struct waits *w)
{
	if (w->b.res.failed)
		return RONDO_E_NOMEM;
	w->out->unresolved++;
	return 0;
}

/* A tag value as the caller of cm meant it: 0, or -1 (a wildcard, or
 * not a tag). */
static int tag_of(const rondo_arg *v, const struct an_comm *cm, int64_t *tag)
{
	if (v->wire != RONDO_WIRE_SINT)
		return -1;
	if (v->kind == RONDO_ARG_TAG)
		*tag = v->i;
	else if (v->kind == RONDO_ARG_REL)
		*tag = cm->me + v->i;
	else
		return -1;
	return 0;
}

/* A send by rank r of what signature s names, at x's current call (a
 * persistent send: at the start that starts it); lr: a blocking send,
 * whose waiting for its receive counts. */
static int wait_send(struct waits *w, uint32_t r, const struct wsig *s,
		     const struct tw_rank *x, int lr)
{
	const struct smsg m = {NULL, r, (uint8_t)lr, x->start, x->err,
			       x->end - x->start, x->derr};
	struct an_comm cm;
	struct smsg *q;
	struct rmsg *rm;
	struct chan *c;
	int64_t dst, tag;

	if (an_comm_get(&w->b.res, &s->comm, r, &cm) < 0)
		return wait_nocomm(w);
	dst = an_peer(&w->b.res, &cm, &s->dest);
	if (dst == -2)
		return 0; /* MPI_PROC_NULL: no message */
	if (dst < 0 || tag_of(&s->stag, &cm, &tag) < 0)
		return w->out->unresolved++, 0;
	c = wait_chan(w, r, (uint32_t)dst, cm.id, tag);
	if (!c)
		return RONDO_E_NOMEM;
	if (c->rh) {
		rm = c->rh;
		c->rh = rm->qnext;
		if (!c->rh)
			c->rt = NULL;
		return wait_match(w, rm, &m);
	}
	q = malloc(sizeof(*q));
	if (!q)
		return RONDO_E_NOMEM;
	*q = m;
	if (c->st)
		c->st->next = q;
	else
		c->sh = q;
	c->st = q;
	return 0;
}

/* Takes the source and tag of wildcard receive m from status value st;
 * 0, or -1 when it does not say them. */
static int wait_resolve(struct waits *w, struct rmsg *m, const rondo_arg *st)
{
	for (uint64_t k = 0; st->kind == RONDO_ARG_STATUS && k < st->n; k++) {
		rondo_arg e = elem(st, k);

		if (m->src < 0 && (e.kind == RONDO_ARG_RANK ||
				   e.kind == RONDO_ARG_RANK_REL)) {
			m->src = an_peer(&w->b.res, &m->cm, &e);
			if (m->src < 0)
				m->src = -1;
		} else if (m->any_tag && e.kind == RONDO_ARG_TAG &&
			   e.wire == RONDO_WIRE_SINT) {
			m->tag = e.i;
			m->any_tag = 0;
		}
	}
	return m->src >= 0 && !m->any_tag ? 0 : -1;
}

/* A receive by rank r of what signature s names, posted at x's current
 * call; *out its record, or NULL when there is no message to wait for
 * (MPI_PROC_NULL) or it cannot be resolved.  A wildcard's source and tag
 * come from status when given (a blocking receive), else at its
 * completion. */
static int wait_post(struct waits *w, uint32_t r, const struct wsig *s,
		     const struct tw_rank *x, const rondo_arg *status,
		     struct rmsg **out)
{
	struct an_comm cm;
	struct rmsg *m;
	int64_t src = -1;

	*out = NULL;
	if (an_comm_get(&w->b.res, &s->comm, r, &cm) < 0)
		return wait_nocomm(w);
	if (!s->any_src) {
		src = an_peer(&w->b.res, &cm, &s->source);
		if (src == -2)
			return 0;
		if (src < 0)
			return w->out->unresolved++, 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return RONDO_E_NOMEM;
	m->next = w->live.next;
	m->prev = &w->live;
	m->next->prev = m;
	w->live.next = m;
	m->cm = cm;
	m->dst = r;
	m->src = src;
	m->post = x->start;
	m->post_err = x->err;
	m->any_tag = s->any_tag;
	if (!m->any_tag && tag_of(&s->rtag, &cm, &m->tag) < 0) {
		w->out->unresolved++;
		return rmsg_free(w, m);
	}
	if (status && (m->src < 0 || m->any_tag) &&
	    wait_resolve(w, m, status) < 0) {
		w->out->unresolved++;
		return rmsg_free(w, m);
	}
	*out = m;
	return m->src >= 0 && !m->any_tag ? recv_queue(w, m) : 0;
}

/* Receive m will not be completed by a call seen: it is done once
 * matched. */
static int wait_drop(struct waits *w, struct rmsg *m)
{
	if (!m)
		return 0;
	m->done = 1;
	return m->matched ? rmsg_free(w, m) : 0;
}

/* Rank r's request value v now stands for receive m (or for nothing). */
static int wait_bind(struct waits *w, uint32_t r, const rondo_arg *v,
		     struct rmsg *m)
{
	struct wreq *q;
	int rc = wait_req(w, r, v, &q);

	if (rc < 0)
		return rc;
	if (!q) /* no id to complete it by */
		return wait_drop(w, m);
	rc = wait_drop(w, q->m);
	q->m = m;
	return rc;
}

/* The receive rank r's request value v completes, taken off the
 * request, its wildcards resolved with status st, into w->done. */
static int wait_take(struct waits *w, uint32_t r, const rondo_arg *v,
		     const rondo_arg *st)
{
	struct wreq *q;
	struct rmsg *m;
	int rc = wait_req(w, r, v, &q);

	if (rc < 0 || !q || !q->m)
		return rc; /* a send's, or not a receive seen posted */
	m = q->m;
	q->m = NULL;
	if (m->src < 0 || m->any_tag) {
		if (wait_resolve(w, m, st) < 0) {
			w->out->unresolved++;
			return rmsg_free(w, m);
		}
		rc = recv_queue(w, m);
		if (rc < 0)
			return rc;
	}
	if (util_grow(&w->done, &w->capdone, w->ndone + 1, sizeof(*w->done)) < 0)
		return RONDO_E_NOMEM;
	w->done[w->ndone++] = m;
	return 0;
}

/* The receives in w->done completed at rank r's current call x, which
 * waited for them when blocking. */
static int wait_completed(struct waits *w, uint32_t r,
			  const struct tw_rank *x, int blocking)
{
	struct wgroup *g = NULL;
	size_t n = w->ndone;
	int rc = 0;

	w->ndone = 0;
	if (blocking && n) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return RONDO_E_NOMEM;
		*g = (struct wgroup){r, (uint32_t)n, x->start, x->end - x->start,
				     x->err, x->derr, 0, 0, 0, 0};
	}
	for (size_t k = 0; k < n; k++) {
		struct rmsg *m = w->done[k];
		int e;

		m->done = 1;
		m->g = g;
		e = m->matched ? rmsg_free(w, m) : 0;
		rc = rc ? rc : e;
	}
	return rc;
}

/* The completions call x of signature s made: which requests, with
 * which statuses. */
static int wait_completion(struct waits *w, uint32_t r, const struct wsig *s,
			   const struct tw_rank *x)
{
	int test = s->cls >= W_TEST && s->cls <= W_TESTSOME, rc = 0;
	enum wcls c = (enum wcls)(test ? s->cls - W_TEST + W_WAIT : s->cls);
	rondo_arg v, st;
	int64_t i;

	if (test && c != W_WAITSOME && an_int(&s->flag) != 1)
		return 0; /* nothing completed */
	switch (c) {
	case W_WAIT:
		rc = wait_take(w, r, &s->req, &s->status);
		break;
	case W_WAITALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->req); k++) {
			v = elem(&s->req, k);
			st = elem(&s->status, k);
			rc = wait_take(w, r, &v, &st);
		}
		break;
	case W_WAITANY:
		i = an_int(&s->index);
		v = elem(&s->req, i < 0 ? UINT64_MAX : (uint64_t)i);
		rc = wait_take(w, r, &v, &s->status);
		break;
	default: /* Waitsome: the indices, each with its status */
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->index); k++) {
			st = elem(&s->index, k);
			i = an_int(&st);
			v = elem(&s->req, i < 0 ? UINT64_MAX : (uint64_t)i);
			st = elem(&s->status, k);
			rc = wait_take(w, r, &v, &st);
		}
		break;
	}
	if (rc < 0) {
		w->ndone = 0;
		return rc;
	}
	return wait_completed(w, r, x, !test);
}

/* MPI_Start of rank r's request value v at its current call x. */
static int wait_start(struct waits *w, uint32_t r, const rondo_arg *v,
		      const struct tw_rank *x)
{
	struct wreq *q;
	struct rmsg *m;
	uint32_t init;
	int rc = wait_req(w, r, v, &q);

	if (rc < 0 || !q || q->init == NONE)
		return rc;
	init = q->init;
	if (w->sig[init].cls == W_SINIT)
		return wait_send(w, r, &w->sig[init], x, 0);
	rc = wait_post(w, r, &w->sig[init], x, NULL, &m);
	return rc ? rc : wait_bind(w, r, v, m);
}

/* Rank r's current call x. */
static int wait_call(struct tbase *b, uint32_t r, const struct tw_rank *x)
{
	struct waits *w = (struct waits *)b;
	const struct wsig *s = &w->sig[x->sig];
	struct wreq *q;
	struct rmsg *m;
	rondo_arg v;
	int rc = 0;

	switch (s->cls) {
	case W_SEND:
		return wait_send(w, r, s, x, s->lr);
	case W_SENDRECV:
	case W_RECV:
		if (s->cls == W_SENDRECV && (rc = wait_send(w, r, s, x, 0)) < 0)
			return rc;
		rc = wait_post(w, r, s, x, &s->status, &m);
		if (rc < 0 || !m)
			return rc;
		w->done[0] = m; /* w->done has room: made so at the start */
		w->ndone = 1;
		return wait_completed(w, r, x, 1);
	case W_ISENDRECV:
	case W_IRECV:
		if (s->cls == W_ISENDRECV && (rc = wait_send(w, r, s, x, 0)) < 0)
			return rc;
		rc = wait_post(w, r, s, x, NULL, &m);
		return rc ? rc : wait_bind(w, r, &s->req, m);
	case W_SINIT:
	case W_RINIT:
		if ((rc = wait_req(w, r, &s->req, &q)) < 0 || !q)
			return rc;
		q->init = x->sig;
		return 0;
	case W_START:
		return wait_start(w, r, &s->req, x);
	case W_STARTALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->req); k++) {
			v = elem(&s->req, k);
			rc = wait_start(w, r, &v, x);
		}
		return rc;
	case W_FREE:
		if ((rc = wait_req(w, r, &s->req, &q)) < 0 || !q)
			return rc;
		m = q->m;
		*q = (struct wreq){NONE, NULL};
		return wait_drop(w, m);
	case W_NONE:
		return 0;
	default:
		return wait_completion(w, r, s, x);
	}
}

/* What each signature does, and the values it does it with. */
static int waits_init(struct waits *w, const rondo_trace *t,
		      struct an_waits *out)
{
	uint32_t nsig = rondo_sig_count(t);

	memset(w, 0, sizeof(*w));
	memset(out, 0, sizeof(*out));
	w->out = out;
	w->live.next = w->live.prev = &w->live;
	w->sig = calloc((size_t)nsig + 1, sizeof(*w->sig));
	if (tbase_init(&w->b, t) < 0 || !w->sig ||
	    util_grow(&w->done, &w->capdone, 1, sizeof(*w->done)) < 0)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < nsig; s++) {
		const char *name = rondo_func_name(t, rondo_sig_func(t, s));
		struct wsig *x = &w->sig[s];

		for (size_t k = 0; name && k < COUNTOF(wfns); k++)
			if (!strcmp(wfns[k].name, name))
				x->cls = wfns[k].cls, x->lr = wfns[k].lr;
		if (x->cls == W_NONE)
			continue;
		tbase_use(&w->b, s);
		x->comm = an_arg(t, s, "comm");
		x->dest = an_arg(t, s, "dest");
		x->source = an_arg(t, s, "source");
		x->stag = x->rtag = an_arg(t, s, "tag");
		if (x->stag.kind == RONDO_ARG_NULL) { /* Sendrecv */
			x->stag = an_arg(t, s, "sendtag");
			x->rtag = an_arg(t, s, "recvtag");
		}
		x->req = an_arg(t, s, "request");
		if (x->req.kind == RONDO_ARG_NULL)
			x->req = an_arg(t, s, "array_of_requests");
		x->status = an_arg(t, s, "status");
		if (x->status.kind == RONDO_ARG_NULL)
			x->status = an_arg(t, s, "array_of_statuses");
		x->index = an_arg(t, s, "index");
		if (x->index.kind == RONDO_ARG_NULL)
			x->index = an_arg(t, s, "array_of_indices");
		x->flag = an_arg(t, s, "flag");
		x->any_src = an_is_const(t, &x->source, "MPI_ANY_SOURCE") != 0;
		x->any_tag = an_is_const(t, &x->rtag, "MPI_ANY_TAG") != 0;
	}
	return 0;
}

/* What is left unmatched at the end; then every record is freed. */
static int waits_end(struct waits *w, int rc)
{
	while (w->live.next != &w->live) {
		struct rmsg *m = w->live.next;
		int e;

		if (!m->matched)
			w->out->unmatched_recvs++;
		e = rmsg_free(w, m);
		rc = rc ? rc : e;
	}
	for (size_t c = 0; c < w->nchan; c++)
		for (struct smsg *s = w->chan[c].sh, *n; s; s = n) {
			n = s->next;
			w->out->unmatched_sends++;
			free(s);
		}
	free(w->req);
	kmap_free(&w->reqmap);
	free(w->chan);
	free(w->sig);
	free(w->done);
	kmap_free(&w->chanmap);
	kmap_free(&w->pairmap);
	tbase_free(&w->b);
	return rc;
}

static int pair_cmp(const void *a, const void *b)
{
	const struct an_wait_pair *x = a, *y = b;
	uint64_t tx = x->ls_ns + x->lr_ns, ty = y->ls_ns + y->lr_ns;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

int an_waits(const rondo_trace *t, struct an_waits *out)
{
	struct waits w;
	int rc = waits_init(&w, t, out);

	rc = rc ? rc : tbase_walk(&w.b, wait_call);
	out->base = w.b.base;
	out->untimed = w.b.untimed;
	rc = waits_end(&w, rc);
	if (rc < 0) {
		an_waits_free(out);
		return rc;
	}
	for (uint32_t i = 0; i < out->n; i++) {
		const struct an_wait_pair *p = &out->pairs[i];

		out->msgs += p->msgs;
		out->ls_count += p->ls_count;
		out->ls_ns = sat_add(out->ls_ns, p->ls_ns);
		out->lr_count += p->lr_count;
		out->lr_ns = sat_add(out->lr_ns, p->lr_ns);
		out->err_ns = sat_add(out->err_ns, p->err_ns);
	}
	if (out->n)
		qsort(out->pairs, out->n, sizeof(*out->pairs), pair_cmp);
	return 0;
}

void an_waits_free(struct an_waits *w)
{
	if (!w)
		return;
	free(w->pairs);
	w->pairs = NULL;
	w->n = 0;
}

int an_waits_csv(const struct an_wait_pair *pairs, uint32_t n, FILE *out)
{
	fputs("src,dst,messages,late_sender,late_sender_ns,late_receiver,"
	      "late_receiver_ns,error_ns\n", out);
	for (uint32_t i = 0; i < n; i++) {
		const struct an_wait_pair *p = &pairs[i];

		fprintf(out, "%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			p->src, p->dst, p->msgs, p->ls_count, p->ls_ns,
			p->lr_count, p->lr_ns, p->err_ns);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : RONDO_E_IO;
}

/* ---- the timeline ----------------------------------------------------------- */

/* Adds a call of signature sig from s to e to the buckets it covers. */
static void timeline_add(const rondo_trace *t, struct an_buckets *b,
			 double s, double e, uint32_t sig)
{
	double end = b->t0 + b->w * b->nb;
	double lo_call = s > b->t0 ? s : b->t0, hi_call = e < end ? e : end;
	uint32_t f = rondo_sig_func(t, sig);
	int lit = b->lit && b->sigs && sig < rondo_sig_count(t) && b->sigs[sig];

	if (hi_call <= lo_call)
		return;
	for (uint32_t k = (uint32_t)((lo_call - b->t0) / b->w); k < b->nb; k++) {
		double lo = b->t0 + b->w * k, hi = lo + b->w;
		double in = (hi_call < hi ? hi_call : hi) -
			    (lo_call > lo ? lo_call : lo);

		if (lo >= hi_call)
			break;
		if (in <= 0)
			continue;
		if (b->busy)
			b->busy[k] += in;
		if (lit)
			b->lit[k] += in;
		if (b->fn && f < b->nfunc)
			b->fn[(size_t)k * b->nfunc + f] += in;
	}
}

int an_timeline_rank(const rondo_trace *t, uint32_t rank,
		     struct an_buckets *b)
{
	double base, end = b->t0 + b->w * b->nb, stop = HUGE_VAL;
	rondo_iter *it;
	uint32_t sig;
	int64_t s, e;
	int rc;

	if (rondo_timing_mode(t, &base) != RONDO_TIMING_PERCALL)
		return RONDO_E_MISSING;
	it = rondo_iter_create_timed(t, rank);
	if (!it)
		return RONDO_E_NOMEM;
	/* A start read back is late by less than (b - 1) times itself, and
	 * the starts of one rank rise: once one is past b times the window's
	 * end, no later call reaches back into it. */
	if (b->nb && end > 0)
		stop = end * base;
	while ((rc = rondo_iter_next(it, &sig)) > 0) {
		/* past the rank's timed calls: no more times */
		if (rondo_iter_time(it, &s, &e) < 0)
			break;
		b->first = s < b->first ? s : b->first;
		b->last = e > b->last ? e : b->last;
		if ((double)s >= stop)
			break;
		if (b->nb && (double)e > b->t0 && (double)s < end)
			timeline_add(t, b, (double)s, (double)e, sig);
	}
	rondo_iter_free(it);
	return rc < 0 ? rc : 0;
}

int an_level(double busy, double share, int levels)
{
	long l;

	if (busy <= 0)
		return 0;
	l = 1 + lround((share > 1 ? 1 : share) * (levels - 2));
	return l > levels - 1 ? levels - 1 : (int)l;
}
