/*
 * ranks.c - which ranks a trace's values name: communicators and their
 * members, Cartesian grids, and the world rank each rank-valued argument
 * of a call names for the rank that made it.
 *
 * The one place that turns the tracer's compact forms (ranks relative to
 * the caller, grid offsets, communicator ids, MPI_PROC_NULL, the other
 * group of an intercommunicator) back into ranks: rondo dump, the
 * analyses and every consumer of rondo.h ask these functions.  What they
 * need is prepared once at open (ranks_init), so they allocate nothing
 * and the handle stays read-only: any number of threads may ask at once.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

/* ---- the trace's communicators ------------------------------------------- */

uint32_t rondo_comm_count(const rondo_trace *t)
{
	return t && t->opened ? t->comms.n : 0;
}

uint32_t rondo_comm_size(const rondo_trace *t, uint32_t c)
{
	return t && t->opened && c < t->comms.n ? t->comms.c[c].n : 0;
}

uint32_t rondo_comm_first_group(const rondo_trace *t, uint32_t c)
{
	return t && t->opened && c < t->comms.n ? t->comms.c[c].first : 0;
}

uint32_t rondo_comm_member(const rondo_trace *t, uint32_t c, uint32_t k)
{
	if (!t || !t->opened || c >= t->comms.n || k >= t->comms.c[c].n)
		return UINT32_MAX;
	return t->comms.c[c].world[k];
}

uint32_t rondo_comm_cart(const rondo_trace *t, uint32_t c, uint32_t *dims,
			 int *periodic, uint32_t max)
{
	uint32_t lo = 0, hi;

	if (!t || !t->opened)
		return 0;
	/* by increasing communicator */
	for (hi = t->topos.n; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->topos.t[mid].comm < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->topos.n || t->topos.t[lo].comm != c)
		return 0;
	for (uint32_t k = 0; k < t->topos.t[lo].ndims && k < max; k++) {
		if (dims)
			dims[k] = t->topos.t[lo].dims[k];
		if (periodic)
			periodic[k] = t->topos.t[lo].periodic[k];
	}
	return t->topos.t[lo].ndims;
}

int64_t rondo_cart_peer(uint32_t ndims, const uint32_t *dims, uint32_t me,
			int64_t offset, int64_t *delta)
{
	int64_t peer = 0, stride = 1, v = offset, size = 1;

	for (uint32_t k = 0; k < ndims; k++) {
		if (dims[k] == 0 || size > INT32_MAX)
			return -1;
		size *= dims[k];
	}
	if (me >= size)
		return -1;
	/* the last dimension first: it varies fastest */
	for (uint32_t k = ndims; k-- > 0;) {
		int64_t n = dims[k], d = (v % n + n) % n, c = me % n;

		if (d > n / 2)
			d -= n; /* into (-n/2, n/2] */
		v = (v - d) / n;
		if (delta)
			delta[k] = d;
		peer += ((c + d) % n + n) % n * stride;
		stride *= n;
		me /= (uint32_t)n;
	}
	return v == 0 ? peer : -1;
}

/* ---- prepared at open ---------------------------------------------------- */

/* The id of the constant named `name`, or UINT32_MAX. */
static uint32_t ranks_const(const rondo_trace *t, const char *name)
{
	for (uint32_t k = 0; k < t->consts.n; k++)
		if (!strcmp(t->consts.name[k], name))
			return k;
	return UINT32_MAX;
}

static int ranks_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Communicator c's member indices by increasing world rank (equal world
 * ranks, which a damaged file may hold, by increasing index), into
 * t->comm_order from t->comm_base[c]; pairs is scratch of its size. */
static void ranks_sort(rondo_trace *t, uint32_t c, uint64_t *pairs)
{
	const struct fmt_comm *m = &t->comms.c[c];
	uint32_t *order = t->comm_order + t->comm_base[c];

	for (uint32_t k = 0; k < m->n; k++)
		pairs[k] = (uint64_t)m->world[k] << 32 | k;
	qsort(pairs, m->n, sizeof(*pairs), ranks_cmp);
	for (uint32_t k = 0; k < m->n; k++)
		order[k] = (uint32_t)pairs[k];
}

int ranks_init(rondo_trace *t)
{
	uint64_t total = 0;
	uint32_t most = 0;
	uint64_t *pairs;

	t->k_world = ranks_const(t, "MPI_COMM_WORLD");
	t->k_self = ranks_const(t, "MPI_COMM_SELF");
	t->k_proc_null = ranks_const(t, "MPI_PROC_NULL");
	t->k_any_source = ranks_const(t, "MPI_ANY_SOURCE");
	t->k_root = ranks_const(t, "MPI_ROOT");
	t->comm_base = malloc(sizeof(*t->comm_base) * ((size_t)t->comms.n + 1));
	if (!t->comm_base)
		return RONDO_E_NOMEM;
	for (uint32_t c = 0; c < t->comms.n; c++) {
		t->comm_base[c] = total;
		total += t->comms.c[c].n;
		if (t->comms.c[c].n > most)
			most = t->comms.c[c].n;
	}
	t->comm_base[t->comms.n] = total;
	/* the members were decoded, so their count fits in memory */
	t->comm_order = malloc(sizeof(*t->comm_order) * (size_t)(total + 1));
	pairs = malloc(sizeof(*pairs) * ((size_t)most + 1));
	if (!t->comm_order || !pairs) {
		free(pairs);
		return RONDO_E_NOMEM;
	}
	for (uint32_t c = 0; c < t->comms.n; c++)
		ranks_sort(t, c, pairs);
	free(pairs);
	return 0;
}

void ranks_free(rondo_trace *t)
{
	free(t->comm_base);
	free(t->comm_order);
	t->comm_base = NULL;
	t->comm_order = NULL;
}

/* The index of world rank w among communicator c's members (its first,
 * should a damaged file name w twice), or RONDO_RANK_NONE. */
static uint32_t ranks_member_of(const rondo_trace *t, uint32_t c, uint32_t w)
{
	const struct fmt_comm *m = &t->comms.c[c];
	const uint32_t *order = t->comm_order + t->comm_base[c];
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->world[order[mid]] < w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->world[order[lo]] == w ? order[lo]
						     : RONDO_RANK_NONE;
}

/* Value a is constant k (an id prepared at open). */
static int ranks_is(const rondo_arg *a, uint32_t k)
{
	return k != UINT32_MAX && a->kind == RONDO_ARG_CONST &&
	       a->wire == RONDO_WIRE_UINT && a->u == k;
}

/* ---- parameters and communicators ---------------------------------------- */

int rondo_sig_param(const rondo_trace *t, uint32_t sig, const char *name,
		    rondo_arg *out)
{
	const struct fmt_func *f;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!t || !t->opened || sig >= t->cst.n || !name || !out)
		return RONDO_E_RANGE;
	f = &t->funcs.f[t->cst.sig[sig].func];
	for (uint32_t p = 0; p < f->nparams && p < t->cst.sig[sig].nargs; p++) {
		if (strcmp(f->params[p], name))
			continue;
		if (rondo_sig_arg(t, sig, p, out) < 0) {
			memset(out, 0, sizeof(*out));
			return RONDO_E_MISSING;
		}
		return (int)p;
	}
	return RONDO_E_MISSING;
}

/* The caller's place in communicator id c. */
static int ranks_in_comm(const rondo_trace *t, uint32_t c, uint32_t rank,
			 rondo_comm_ref *out)
{
	out->id = c;
	out->size = t->comms.c[c].n;
	out->first = t->comms.c[c].first;
	if (rank == RONDO_RANK_NONE || out->size == 0)
		return RONDO_E_MISSING;
	out->rank = ranks_member_of(t, c, rank);
	return out->rank == RONDO_RANK_NONE ? RONDO_E_MISSING : 0;
}

/* A reference to no communicator, for world rank `rank`. */
static void ranks_ref_init(rondo_comm_ref *out, uint32_t rank)
{
	memset(out, 0, sizeof(*out));
	out->id = RONDO_COMM_NONE;
	out->rank = RONDO_RANK_NONE;
	out->world = rank;
}

int rondo_arg_at_rank(const rondo_trace *t, const rondo_arg *in, uint32_t rank,
		      rondo_arg *out)
{
	const struct fmt_rval *v;

	if (!t || !t->opened || !in || !out ||
	    (rank != RONDO_RANK_NONE && rank >= t->rm.nranks))
		return RONDO_E_RANGE;
	*out = *in;
	if (in->kind != RONDO_ARG_VARY || in->wire != RONDO_WIRE_UINT ||
	    in->u >= t->nvary)
		return 0;
	if (rank == RONDO_RANK_NONE)
		return RONDO_E_MISSING;
	v = &t->vary[in->u * t->rm.nranks + rank];
	memset(out, 0, sizeof(*out));
	out->kind = v->kind;
	out->wire = v->wire;
	if (v->wire == RONDO_WIRE_SINT)
		out->i = (int64_t)v->u;
	else
		out->u = v->u;
	return 0;
}

int rondo_comm_resolve(const rondo_trace *t, const rondo_arg *v, uint32_t rank,
		       rondo_comm_ref *out)
{
	rondo_arg at;

	if (!out)
		return RONDO_E_RANGE;
	ranks_ref_init(out, rank);
	if (!t || !t->opened || !v ||
	    (rank != RONDO_RANK_NONE && rank >= t->rm.nranks))
		return RONDO_E_RANGE;
	if (v->kind == RONDO_ARG_VARY) {
		if (rondo_arg_at_rank(t, v, rank, &at) < 0)
			return RONDO_E_MISSING; /* which one depends on the rank */
		v = &at;
	}
	if (ranks_is(v, t->k_world)) {
		out->id = RONDO_COMM_WORLD;
		out->size = t->rm.nranks;
		out->rank = rank;
		return rank == RONDO_RANK_NONE ? RONDO_E_MISSING : 0;
	}
	if (ranks_is(v, t->k_self)) {
		out->id = RONDO_COMM_SELF;
		out->size = 1;
		out->rank = 0;
		return 0;
	}
	if (v->kind != RONDO_ARG_COMM || v->wire != RONDO_WIRE_UINT ||
	    v->u >= t->comms.n)
		return RONDO_E_RANGE;
	return ranks_in_comm(t, (uint32_t)v->u, rank, out);
}

/* Value v is a communicator id beyond the trace's table: it names one
 * all the same (its members are not known). */
static int ranks_unlisted(const rondo_arg *v, rondo_comm_ref *out)
{
	if (v->kind != RONDO_ARG_COMM || v->wire != RONDO_WIRE_UINT ||
	    v->u > INT64_MAX)
		return 0;
	out->id = (int64_t)v->u;
	return 1;
}

int rondo_sig_comm(const rondo_trace *t, uint32_t sig, uint32_t rank,
		   rondo_comm_ref *out)
{
	rondo_arg a;
	int rc;

	if (!out)
		return RONDO_E_RANGE;
	ranks_ref_init(out, rank);
	if (!t || !t->opened || sig >= t->cst.n ||
	    (rank != RONDO_RANK_NONE && rank >= t->rm.nranks))
		return RONDO_E_RANGE;
	for (uint32_t i = 0; i < t->cst.sig[sig].nargs; i++) {
		if (rondo_sig_arg(t, sig, i, &a) < 0)
			continue;
		rc = rondo_comm_resolve(t, &a, rank, out);
		if (rc == 0)
			return (int)i;
		if (rc == RONDO_E_MISSING || ranks_unlisted(&a, out))
			return RONDO_E_MISSING;
	}
	return RONDO_E_MISSING;
}

int64_t rondo_comm_world(const rondo_trace *t, const rondo_comm_ref *cm,
			 int64_t k)
{
	if (!t || !t->opened || !cm || k < 0 || k >= cm->size)
		return -1;
	if (cm->id == RONDO_COMM_WORLD)
		return k;
	if (cm->id == RONDO_COMM_SELF)
		return cm->world == RONDO_RANK_NONE ? -1 : (int64_t)cm->world;
	if (cm->id < 0 || cm->id >= t->comms.n || k >= t->comms.c[cm->id].n)
		return -1;
	return t->comms.c[cm->id].world[k];
}

/* ---- peers --------------------------------------------------------------- */

/* The rank in cm a value of kind CART_REL names for its caller, or -1. */
static int64_t ranks_cart(const rondo_trace *t, const rondo_comm_ref *cm,
			  int64_t offset)
{
	uint32_t dims[RONDO_MAX_DIMS], nd;

	if (cm->id < 0 || cm->rank == RONDO_RANK_NONE)
		return -1;
	nd = rondo_comm_cart(t, (uint32_t)cm->id, dims, NULL, RONDO_MAX_DIMS);
	if (nd == 0 || nd > RONDO_MAX_DIMS)
		return -1;
	return rondo_cart_peer(nd, dims, cm->rank, offset, NULL);
}

/* The rank as the program passed it, in cm (or in the other group of an
 * intercommunicator, whose index among all members is *k), or -1. */
static int64_t ranks_local(const rondo_trace *t, const rondo_comm_ref *cm,
			   const rondo_arg *v, int64_t *k)
{
	if (v->wire != RONDO_WIRE_SINT)
		return -1;
	if (cm->first) { /* intercommunicator: a rank of the other group */
		if (v->kind != RONDO_ARG_RANK || v->i < 0 ||
		    v->i > UINT32_MAX || cm->rank == RONDO_RANK_NONE)
			return -1;
		*k = cm->rank < cm->first ? cm->first + v->i : v->i;
		if (cm->rank >= cm->first && *k >= cm->first)
			return -1;
		return v->i;
	}
	switch (v->kind) {
	case RONDO_ARG_RANK: *k = v->i; return v->i;
	case RONDO_ARG_RANK_REL:
		if (cm->rank == RONDO_RANK_NONE || cm->size == 0)
			return -1;
		*k = (((int64_t)cm->rank + v->i) % cm->size + cm->size) %
		     cm->size;
		return *k;
	case RONDO_ARG_CART_REL: *k = ranks_cart(t, cm, v->i); return *k;
	}
	return -1;
}

int64_t rondo_peer(const rondo_trace *t, const rondo_comm_ref *cm,
		   const rondo_arg *v, int64_t *local)
{
	int64_t k = -1, l = -1, w;
	rondo_arg at;

	if (local)
		*local = -1;
	if (!t || !t->opened || !cm || !v)
		return RONDO_PEER_UNKNOWN;
	if (v->kind == RONDO_ARG_VARY) {
		if (rondo_arg_at_rank(t, v, cm->world, &at) < 0)
			return RONDO_PEER_UNKNOWN;
		v = &at;
	}
	if (ranks_is(v, t->k_proc_null))
		return RONDO_PEER_PROC_NULL;
	if (ranks_is(v, t->k_any_source))
		return RONDO_PEER_ANY;
	if (ranks_is(v, t->k_root))
		return RONDO_PEER_ROOT;
	/* a plain rank past the members (of the other group, on an
	 * intercommunicator): MPI refused the call */
	if (v->kind == RONDO_ARG_RANK && v->wire == RONDO_WIRE_SINT &&
	    cm->size && (!cm->first || cm->rank != RONDO_RANK_NONE)) {
		int64_t n = cm->size;
		if (cm->first)
			n = cm->rank < cm->first ? cm->size - cm->first
						 : cm->first;
		if (v->i < 0 || v->i >= n)
			return RONDO_PEER_INVALID;
	}
	l = ranks_local(t, cm, v, &k);
	if (local)
		*local = l;
	if (l < 0)
		return RONDO_PEER_UNKNOWN;
	w = rondo_comm_world(t, cm, k);
	return w < 0 ? RONDO_PEER_UNKNOWN : w;
}

/* ---- the ranks of one argument ------------------------------------------- */

struct ranks_out {
	int64_t *world, *local;
	uint32_t max;
	int64_t n;
};

static void ranks_put(struct ranks_out *o, int64_t w, int64_t l)
{
	if (o->n < o->max) {
		if (o->world)
			o->world[o->n] = w;
		if (o->local)
			o->local[o->n] = l;
	}
	o->n++;
}

/* A value names a rank: one of the kinds, or a constant of ranks. */
static int ranks_valued(const rondo_trace *t, const rondo_arg *v)
{
	return v->kind == RONDO_ARG_RANK || v->kind == RONDO_ARG_RANK_REL ||
	       v->kind == RONDO_ARG_CART_REL || ranks_is(v, t->k_proc_null) ||
	       ranks_is(v, t->k_any_source) || ranks_is(v, t->k_root);
}

void rondo_status_comm(const rondo_trace *t, const rondo_arg *st,
		       const rondo_comm_ref *call, uint32_t rank,
		       rondo_comm_ref *out)
{
	rondo_arg e;
	int rc;

	if (!out)
		return;
	ranks_ref_init(out, rank);
	if (!t || !t->opened || !st || !call)
		return;
	for (uint64_t k = 0; k < st->n; k++) {
		if (rondo_arg_elem(st, k, &e) < 0)
			continue;
		rc = rondo_comm_resolve(t, &e, rank, out);
		if (rc != RONDO_E_RANGE || ranks_unlisted(&e, out))
			return;
	}
	if (call->rank != RONDO_RANK_NONE && call->first == 0) {
		*out = *call;
		return;
	}
	ranks_ref_init(out, rank);
	out->id = RONDO_COMM_WORLD;
	out->size = t->rm.nranks;
	out->rank = rank;
}

static void ranks_of(const rondo_trace *t, const rondo_arg *v,
		     const rondo_comm_ref *cm, uint32_t rank,
		     struct ranks_out *o)
{
	rondo_comm_ref sc;
	rondo_arg e, at;
	int64_t l;

	if (v->kind == RONDO_ARG_VARY &&
	    rondo_arg_at_rank(t, v, rank, &at) < 0) {
		/* no caller: a rank we cannot say, if the values are ranks */
		if (rondo_arg_at_rank(t, v, 0, &at) == 0 &&
		    ranks_valued(t, &at))
			ranks_put(o, RONDO_PEER_UNKNOWN, -1);
		return;
	}
	if (v->kind == RONDO_ARG_VARY)
		v = &at;
	if (ranks_valued(t, v)) {
		int64_t w = rondo_peer(t, cm, v, &l);

		ranks_put(o, w, l);
		return;
	}
	if (v->wire != RONDO_WIRE_LIST ||
	    (v->kind != RONDO_ARG_ARRAY && v->kind != RONDO_ARG_STATUS))
		return;
	if (v->kind == RONDO_ARG_STATUS)
		rondo_status_comm(t, v, cm, rank, &sc);
	for (uint64_t k = 0; k < v->n; k++)
		if (rondo_arg_elem(v, k, &e) == 0)
			ranks_of(t, &e, v->kind == RONDO_ARG_STATUS ? &sc : cm,
				 rank, o);
}

int64_t rondo_sig_arg_ranks(const rondo_trace *t, uint32_t sig, uint32_t rank,
			    uint32_t a, int64_t *world, int64_t *local,
			    uint32_t max)
{
	struct ranks_out o = {world, local, max, 0};
	rondo_comm_ref cm;
	rondo_arg v;

	if (!t || !t->opened || sig >= t->cst.n ||
	    (rank != RONDO_RANK_NONE && rank >= t->rm.nranks) ||
	    rondo_sig_arg(t, sig, a, &v) < 0)
		return RONDO_E_RANGE;
	rondo_sig_comm(t, sig, rank, &cm);
	ranks_of(t, &v, &cm, rank, &o);
	return o.n;
}
