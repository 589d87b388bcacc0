/*
 * skew.c - collective skew: how far apart the members of a communicator
 * entered each collective, who was last, and how long the others waited
 * for that one, from per-call times (see skew.h).
 *
 * The k-th collective on a communicator of each member is one
 * occurrence: each member's collectives wait in a queue of the
 * communicator's state until every member has reached one, in the walk
 * of all ranks' calls by start time (walk.h), so what is held is what
 * some members had entered and others not yet.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "matrix.h"
#include "sat.h"
#include "skew.h"
#include "util.h"
#include "walk.h"

/* The collectives, and who waits for whom in them (enum an_coll). */
static const struct {
	const char *name;
	enum an_coll kind;
} colls[] = {
	{"MPI_Barrier", AN_COLL_SYNC},
	{"MPI_Bcast", AN_COLL_FROM_ROOT},
	{"MPI_Reduce", AN_COLL_TO_ROOT},
	{"MPI_Allreduce", AN_COLL_SYNC},
	{"MPI_Gather", AN_COLL_TO_ROOT},
	{"MPI_Gatherv", AN_COLL_TO_ROOT},
	{"MPI_Scatter", AN_COLL_FROM_ROOT},
	{"MPI_Scatterv", AN_COLL_FROM_ROOT},
	{"MPI_Allgather", AN_COLL_SYNC},
	{"MPI_Allgatherv", AN_COLL_SYNC},
	{"MPI_Alltoall", AN_COLL_SYNC},
	{"MPI_Alltoallv", AN_COLL_SYNC},
	{"MPI_Alltoallw", AN_COLL_SYNC},
	{"MPI_Reduce_scatter", AN_COLL_SYNC},
	{"MPI_Reduce_scatter_block", AN_COLL_SYNC},
	{"MPI_Scan", AN_COLL_PREFIX},
	{"MPI_Exscan", AN_COLL_PREFIX},
};

enum an_coll an_coll_of(const char *name, int *nonblocking)
{
	size_t len;

	*nonblocking = 0;
	if (!name || strncmp(name, "MPI_", 4))
		return AN_NOT_COLL;
	len = strlen(name);
	if (len > 2 && !strcmp(name + len - 2, "_c"))
		len -= 2;
	for (size_t i = 0; i < COUNTOF(colls); i++) {
		const char *base = colls[i].name + 4;
		size_t n = strlen(base);

		if (n == len - 4 && !strncmp(name + 4, base, n))
			return colls[i].kind;
		if (name[4] == 'I' && n == len - 5 &&
		    !strncasecmp(name + 5, base, n)) {
			*nonblocking = 1;
			return colls[i].kind;
		}
	}
	return AN_NOT_COLL;
}

struct centry {
	uint32_t sig;
	int64_t start, err, dur;
};

/* A row's spreads as they may truly have been: each occurrence's lowest
 * and highest, summed (the mean's) and the largest of each (the
 * largest spread's). */
struct srange {
	uint64_t sum_lo, sum_hi;
	int64_t max_lo, max_hi;
};

/* One member's collectives not matched yet, oldest first (a ring). */
struct cfifo {
	struct centry *e;
	size_t cap;
	uint32_t head, len;
};

/* A communicator's collectives in flight. */
struct cstate {
	rondo_comm_ref cm;
	uint32_t nonempty; /* members with entries */
	struct cfifo *q;   /* by member */
};

struct skew {
	struct tbase b; /* first: skew_call is handed it */
	int64_t only;
	rondo_arg *comm; /* by signature: its communicator value */
	struct kmap states, rowmap;
	struct cstate *st;
	size_t nst, capst;
	uint64_t **last; /* by row: times each member was last */
	size_t caplast;
	struct srange *range; /* by row */
	size_t caprange;
	uint8_t *sync; /* by signature: is_sync */
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
static struct cstate *skew_state(struct skew *k, const rondo_comm_ref *cm)
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
				const rondo_comm_ref *cm)
{
	struct an_skew_result *o = k->out;
	int added;
	uint32_t i = kmap_get(&k->rowmap, f, (uint64_t)cm->id, 0, o->n, &added);

	if (i == NONE)
		return NULL;
	if (!added)
		return &o->rows[i];
	if (util_grow(&o->rows, &k->caprows, o->n + 1ul, sizeof(*o->rows)) <
		    0 ||
	    util_grow(&k->last, &k->caplast, o->n + 1ul, sizeof(*k->last)) <
		    0 ||
	    util_grow(&k->range, &k->caprange, o->n + 1ul, sizeof(*k->range)) <
		    0 ||
	    !(k->last[o->n] = calloc(cm->size, sizeof(**k->last))))
		return NULL;
	memset(&o->rows[i], 0, sizeof(o->rows[i]));
	memset(&k->range[i], 0, sizeof(k->range[i]));
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
	int64_t lo = INT64_MAX, hi = INT64_MIN, err = 0, cap = 0, v, tlo, thi;
	uint64_t wait = 0;
	struct an_skew *row;
	struct srange *sr;
	int same = 1, sync;

	func = rondo_sig_func(k->b.t, s->q[0].e[s->q[0].head].sig);
	sync = k->sync[s->q[0].e[s->q[0].head].sig];
	for (uint32_t m = 0; m < n; m++) {
		const struct centry *e = &s->q[m].e[s->q[m].head];

		same &= rondo_sig_func(k->b.t, e->sig) == func;
		lo = e->start < lo ? e->start : lo;
		if (e->start > hi)
			hi = e->start, last = m;
		err = max64(err, e->err);
		cap = max64(cap, e->dur);
	}
	for (uint32_t m = 0; m < n; m++) {
		struct cfifo *f = &s->q[m];
		int64_t w = hi - f->e[f->head].start;

		/* no member of a synchronising collective waits longer
		 * than its call, whatever late starts read back say */
		if (sync && w > f->e[f->head].dur)
			w = f->e[f->head].dur;
		wait = sat_add(wait, (uint64_t)w);
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
	/* the spread read back, no more than a synchronising collective's
	 * can be (its longest member's call) */
	v = sync && hi - lo > cap ? cap : hi - lo;
	row->count++;
	row->spread_ns = sat_add(row->spread_ns, (uint64_t)v);
	if (row->count == 1 || (uint64_t)v > row->max_spread_ns)
		row->max_spread_ns = (uint64_t)v, row->max_at_ns = hi;
	row->wait_ns = sat_add(row->wait_ns, wait);
	/* the true spread: within err of v, from 0 to the cap */
	an_true_range(v, err, sync ? cap : INT64_MAX, &tlo, &thi);
	sr = &k->range[row - k->out->rows];
	sr->sum_lo = sat_add(sr->sum_lo, (uint64_t)tlo);
	sr->sum_hi = sat_add(sr->sum_hi, (uint64_t)thi);
	sr->max_lo = max64(sr->max_lo, tlo);
	sr->max_hi = max64(sr->max_hi, thi);
	k->last[row - k->out->rows][last]++;
	return 0;
}

/* A collective call of rank r. */
static int skew_call(struct tbase *b, uint32_t r, const struct tw_rank *x)
{
	struct skew *k = (struct skew *)b;
	const struct centry e = {x->sig, x->start, x->err, x->dur};
	rondo_comm_ref cm;
	struct cstate *s;
	struct cfifo *f;

	if (rondo_comm_resolve(b->t, &k->comm[x->sig], r, &cm) < 0) {
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
	f = &s->q[cm.rank];
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
	k->sync = calloc((size_t)nsig + 1, 1);
	if (tbase_init(&k->b, t) < 0 || !k->comm || !k->sync)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < nsig; s++) {
		int nb;
		enum an_coll kind = an_coll_of(
			rondo_func_name(t, rondo_sig_func(t, s)), &nb);

		if (kind == AN_NOT_COLL)
			continue;
		/* no member leaves a synchronising one, in its blocking
		 * form, before every member has entered (a spread is then
		 * at most the longest member's call) */
		k->sync[s] = kind == AN_COLL_SYNC && !nb;
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
		rondo_comm_ref cm = {row->comm, row->members, 0,
				     RONDO_RANK_NONE, RONDO_RANK_NONE};
		uint32_t best = 0;

		for (uint32_t m = 1; m < row->members; m++)
			if (k->last[i][m] > k->last[i][best])
				best = m;
		const struct srange *sr = &k->range[i];
		double mean = (double)row->spread_ns / (double)row->count;
		double below = mean - (double)sr->sum_lo / (double)row->count;
		double above = (double)sr->sum_hi / (double)row->count - mean;

		row->last_rank = (uint32_t)rondo_comm_world(k->b.t, &cm, best);
		row->last_count = k->last[i][best];
		row->err_ns = (uint64_t)max64(
			(int64_t)row->max_spread_ns - sr->max_lo,
			sr->max_hi - (int64_t)row->max_spread_ns);
		row->mean_err_ns =
			(uint64_t)ceil(below > above ? below : above);
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
	free(k->range);
	free(k->sync);
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
	      "max_spread_at_ns,error_ns,last_rank,last_count,wait_ns,"
	      "mean_spread_error_ns\n",
	      out);
	for (uint32_t i = 0; i < n; i++) {
		const struct an_skew *s = &rows[i];
		const char *name = rondo_func_name(t, s->func);
		char comm[32];

		comm_label(comm, sizeof(comm), s->comm);
		fprintf(out,
			"%s,%s,%" PRIu32 ",%" PRIu64 ",%.1f,%" PRIu64
			",%" PRId64 ",%" PRIu64 ",%" PRIu32 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 "\n",
			name ? name : "?", comm, s->members, s->count,
			s->count ? (double)s->spread_ns / (double)s->count : 0,
			s->max_spread_ns, s->max_at_ns, s->err_ns, s->last_rank,
			s->last_count, s->wait_ns, s->mean_err_ns);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : RONDO_E_IO;
}
