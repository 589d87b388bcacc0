/*
 * requests.c - symbolic ids for requests, and statuses reduced to what
 * cannot be inferred.
 *
 * Ids come from a pool per creating call signature (the signature without
 * the request, nor its counts and displacements: MPI_Irecv from rank 3
 * with tag 7 into m2+0 is one pool, whatever its count).  A
 * request takes the lowest free slot of its pool, and slot k of a pool
 * always has the same id.  So the request a program posts again as soon as
 * the previous one completed (a Waitsome loop re-posting its receives)
 * keeps its id, whatever order the others completed in, and the calls
 * that name it keep their signatures.
 *
 * A handle value does not identify one request: Open MPI returns one
 * shared, completed request for every small send that completes at once,
 * so two live requests may have the same value.  Each value keeps the
 * list of its live requests, oldest first; within one call the k-th
 * occurrence of a value in the arguments is its k-th live request not
 * released earlier in the call.  A value never seen (a request created
 * before tracing began) gets a request of its own; nothing here stops the
 * program.
 *
 * Each request remembers what a status of its completion can add: a
 * receive's wildcards and posted size.  The Wait and Test calls hand their
 * statuses to rec_status_req() with the index of the request, which keeps
 * only the fields that say something: the source and tag a wildcard
 * matched, a received count that differs from the posted one, or a
 * cancellation (alone: the other fields of a cancelled operation's
 * status are undefined).
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "params.h"
#include "runtime.h"
#include "util.h"

#define NONE UINT32_MAX

struct req {
	uint64_t key; /* the handle value */
	uint32_t id;
	uint32_t pool, slot; /* NONE for a request of unknown origin */
	uint32_t next;	     /* next live request with the same value */
	struct req_info info;
};

/* The requests of one creating signature: slot k has id ids[k]. */
struct pool {
	struct hmap slots; /* the slot allocator (its id heap only) */
	uint32_t *ids;
	uint32_t nids;
	size_t capids;
};

static struct {
	struct hmap byval; /* handle value -> its first live request */
	struct hmap pools; /* hash of the creating signature -> pool */
	struct pool *pool;
	uint32_t npools;
	size_t cappools;
	struct req *req;
	uint32_t nreq, free; /* free: list of unused entries */
	size_t capreq;
	uint32_t next_id;
	uint64_t null_key;
	uint32_t null_const;
} rq = {.free = NONE};

/* MPI_REQUEST_NULL (an empty status), and a request not seen created or
 * generalized (every field of its status). */
static const struct req_info req_null = {REC_REQ_NULL, 0, 0, -1, 0};
static const struct req_info req_unknown = {REC_REQ_UNKNOWN, 1, 1, -1, 0};

static uint64_t request_key(MPI_Request h)
{
	return HMAP_KEY(h);
}

void requests_init(uint32_t null_const)
{
	rq.null_key = request_key(MPI_REQUEST_NULL);
	rq.null_const = null_const;
}

/* ---- the per-call context ------------------------------------------------ */

/* The requests the current call named, in argument order, for its
 * statuses. */
static int ctx_push(struct rec *r, const struct req_info *info)
{
	struct rt_level *lv = r->lv;

	if (lv->nctx >= lv->capctx &&
	    util_grow(&lv->ctx, &lv->capctx, (size_t)lv->nctx + 1,
		      sizeof(*lv->ctx)) < 0)
		return -1;
	lv->ctx[lv->nctx++] = *info;
	return 0;
}

/* How many earlier arguments of this call named value `key` and kept
 * their request (it was not released): the index of this occurrence in
 * the value's list.  Only values shared by several requests count. */
static uint32_t ctx_occurrence(struct rec *r, uint64_t key, int keep)
{
	struct rt_level *lv = r->lv;
	uint32_t i;

	for (i = 0; i < lv->ndup; i++)
		if (lv->dup[i].key == key)
			break;
	if (i == lv->ndup) {
		if (i == RT_MAX_DUP)
			return 0;
		lv->dup[lv->ndup++] = (struct rt_dup){key, 0};
	}
	return keep ? lv->dup[i].kept++ : lv->dup[i].kept;
}

/* ---- pools --------------------------------------------------------------- */

static uint32_t pool_of(uint64_t hash)
{
	uint32_t p = hmap_lookup(&rq.pools, hash);

	if (p != UINT32_MAX)
		return p;
	if (util_grow(&rq.pool, &rq.cappools, (size_t)rq.npools + 1,
		      sizeof(*rq.pool)) < 0)
		return NONE;
	if (hmap_insert(&rq.pools, hash, rq.npools) < 0)
		return NONE;
	memset(&rq.pool[rq.npools], 0, sizeof(rq.pool[0]));
	return rq.npools++;
}

/* Takes the lowest free slot of a pool; its id is the same every time.
 * Sets *slot; returns the id, or NONE when out of memory. */
static uint32_t pool_take(uint32_t pool, uint32_t *slot)
{
	struct pool *p = &rq.pool[pool];
	uint32_t k = hmap_take_id(&p->slots);

	*slot = k;
	if (k < p->nids)
		return p->ids[k];
	/* slots are taken lowest first: a new one is the next */
	if (util_grow(&p->ids, &p->capids, (size_t)k + 1, sizeof(*p->ids)) <
	    0) {
		hmap_give_id(&p->slots, k);
		return NONE;
	}
	p->ids[p->nids++] = rq.next_id;
	return rq.next_id++;
}

/* ---- live requests ------------------------------------------------------- */

static uint32_t req_alloc(void)
{
	uint32_t i = rq.free;

	if (i != NONE) {
		rq.free = rq.req[i].next;
		return i;
	}
	if (util_grow(&rq.req, &rq.capreq, (size_t)rq.nreq + 1,
		      sizeof(*rq.req)) < 0)
		return NONE;
	return rq.nreq++;
}

/* A new live request for value key, last in the value's list. */
static struct req *req_add(uint64_t key, uint32_t pool,
			   const struct req_info *info)
{
	uint32_t i = req_alloc(), at, slot = NONE, id;
	struct req *q;

	if (i == NONE)
		return NULL;
	if (pool == NONE) /* unknown origin: a pool of its own per value */
		pool = pool_of(key ^ 0x9e3779b97f4a7c15ull);
	id = pool == NONE ? NONE : pool_take(pool, &slot);
	q = &rq.req[i];
	*q = (struct req){key, id, pool, slot, NONE, *info};
	if (id == NONE || pool == NONE)
		goto unused;
	at = hmap_place(&rq.byval, key);
	if (at == NONE) {
		hmap_give_id(&rq.pool[pool].slots, slot);
		goto unused;
	}
	if (!rq.byval.ent[at].refs) {
		hmap_fill(&rq.byval, at, key, i);
	} else {
		for (at = rq.byval.ent[at].val; rq.req[at].next != NONE;)
			at = rq.req[at].next;
		rq.req[at].next = i;
	}
	return q;
unused:
	q->next = rq.free;
	rq.free = i;
	return NULL;
}

/* The k-th live request of the value in slot `at` of rq.byval (the last
 * one if there are fewer); *prev: the one before it in the list. */
static struct req *req_kth(uint32_t at, uint32_t k, uint32_t *prev)
{
	uint32_t i = rq.byval.ent[at].val, p = NONE;

	for (; k > 0 && rq.req[i].next != NONE; k--) {
		p = i;
		i = rq.req[i].next;
	}
	*prev = p;
	return &rq.req[i];
}

/* Releases a live request: its slot is free again.  at: its value's slot
 * in rq.byval, or NONE when not known. */
static void req_release(struct req *q, uint32_t prev, uint32_t at)
{
	uint32_t i = (uint32_t)(q - rq.req);

	if (prev != NONE) {
		rq.req[prev].next = q->next;
	} else {
		if (at == NONE)
			at = hmap_index(&rq.byval, q->key);
		if (at != NONE && q->next != NONE)
			rq.byval.ent[at].val = q->next;
		else if (at != NONE)
			hmap_remove(&rq.byval, at);
	}
	hmap_give_id(&rq.pool[q->pool].slots, q->slot);
	q->next = rq.free;
	rq.free = i;
}

static void put_request(struct rec *r, uint32_t id)
{
	if (id == NONE) {
		rt.failed = 1;
		fmt_arg_put_none(rec_args(r), RONDO_ARG_NULL);
	} else {
		fmt_arg_put_uint(rec_args(r), RONDO_ARG_REQUEST, id);
	}
}

static void put_null(struct rec *r)
{
	ctx_push(r, &req_null);
	fmt_arg_put_uint(rec_args(r), RONDO_ARG_CONST, rq.null_const);
}

/* An existing request the call names; `released` when the call freed it
 * (the value came back as MPI_REQUEST_NULL). */
/* rondo-replay's stand-ins (record.h). */
static __thread struct {
	const MPI_Request *in, *real;
	int n;
} stand;

void rondo_replay_stand_ins(const MPI_Request *stand_in,
			    const MPI_Request *real, int n)
{
	stand.in = stand_in;
	stand.real = real;
	stand.n = n > 0 && stand_in && real ? n : 0;
}

static void name_request(struct rec *r, MPI_Request h, int released)
{
	uint64_t key;

	for (int k = 0; k < stand.n; k++)
		if (h == stand.in[k] && h != MPI_REQUEST_NULL) {
			h = stand.real[k];
			break;
		}
	key = request_key(h);
	uint32_t prev = NONE, at;
	struct req *q;

	if (key == rq.null_key) {
		put_null(r);
		return;
	}
	at = hmap_index(&rq.byval, key);
	if (at == NONE) {
		q = req_add(key, NONE, &req_unknown);
	} else {
		q = &rq.req[rq.byval.ent[at].val];
		if (q->next != NONE) /* shared by several requests */
			q = req_kth(at, ctx_occurrence(r, key, !released),
				    &prev);
	}
	if (!q) {
		put_request(r, NONE);
		return;
	}
	ctx_push(r, &q->info);
	put_request(r, q->id);
	if (released)
		req_release(q, prev, at);
}

/* What a receive or file operation posted: count elements of type (count
 * -1 when there is none, or the type's size is unknown). */
static void info_posted(struct req_info *info, int64_t count, MPI_Datatype type)
{
	int size = 0;

	info->count = count;
	info->type_size = 0;
	if (count < 0 || type == MPI_DATATYPE_NULL ||
	    PMPI_Type_size(type, &size) != MPI_SUCCESS)
		info->count = -1;
	else
		info->type_size = size;
}

/* Where a receive on comm finds its status's source: `named`, a status
 * of a Wait or Test, which names no communicator, carries it. */
static void info_comm(struct req_info *info, MPI_Comm comm, int named)
{
	info->base = REQ_BASE_WORLD;
	info->comm_kind = 0;
	if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD)
		return;
	if (comms_describe(comm, &info->comm_kind, &info->comm_value, &info->me,
			   &info->size) != 0) {
		info->base = REQ_BASE_ABSOLUTE;
		info->comm_kind = 0;
		return;
	}
	info->base = REQ_BASE_COMM;
	if (!named)
		info->comm_kind = 0;
}

/* ---- what the wrappers call ---------------------------------------------- */

void rec_request(struct rec *r, MPI_Request h)
{
	name_request(r, h, 0);
}

void rec_request_inout(struct rec *r, MPI_Request before, MPI_Request after)
{
	/* No MPI call replaces a request by another: it keeps it or frees
	 * it (a request that is not persistent, once complete). */
	name_request(r, before, request_key(before) != request_key(after));
}

/* The hash of a new request's pool: of the call's arguments before the
 * request but for its counts and displacements, and its tags and peers
 * when they may merge (params_mergeable), so that calls alike but for
 * their sizes (or tags, or peers) share a pool: their requests, and
 * the calls that name them (MPI_Waitall), are then alike too, and such
 * calls merge at a precision below 100 % (params.c).  Only for a call
 * unlike any before it. */
static uint64_t pool_hash(uint32_t func, const uint8_t *p, size_t n)
{
	const struct rec_func *f = rt_func(func);
	uint8_t buf[512];
	size_t len = 0;
	struct fmt_cur cur;
	rondo_arg a;

	if (!f || n > sizeof(buf))
		return record_hash(func, p, n);
	fmt_cur_init(&cur, p, n, NULL, NULL);
	for (uint32_t k = 0; cur.pos < n; k++) {
		size_t at = cur.pos;

		if (fmt_arg_get(&cur, &a) < 0)
			return record_hash(func, p, n);
		if (k < f->nparams && params_mergeable(f->name, f->params[k],
						       a.kind, rt.params)) {
			buf[len++] = 0; /* where it was */
			continue;
		}
		memcpy(buf + len, p + at, cur.pos - at);
		len += cur.pos - at;
	}
	return record_hash(func, buf, len);
}

void rec_request_new(struct rec *r, MPI_Request h, int kind, int64_t count,
		     MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
	struct fmt_buf *b = rec_args(r);
	struct req_info info = {(uint8_t)kind, source == MPI_ANY_SOURCE,
				tag == MPI_ANY_TAG, -1, 0};
	struct req *q;
	uint32_t t, pool;

	if (request_key(h) == rq.null_key) {
		fmt_arg_put_uint(b, RONDO_ARG_CONST, rq.null_const);
		return;
	}
	if (kind == REC_REQ_RECV || kind == REC_REQ_IO)
		info_posted(&info, count, type);
	/* from MPI_PROC_NULL: complete at once, with an empty status */
	if (kind == REC_REQ_RECV && source == MPI_PROC_NULL)
		info.kind = REC_REQ_NULL;
	if (kind == REC_REQ_RECV)
		info_comm(&info, comm, 1); /* Wait names no communicator */
	/* The pool: of the call's arguments before the request, its last
	 * one.  The encoding is prefix-free, so a signature that begins
	 * with them has them before its request: when the grammar expects
	 * one, its pool is theirs. */
	t = record_expected(r->func, b->data, b->len, 1);
	pool = t != NONE ? rt.sig[t].pool : NONE;
	if (pool == NONE)
		pool = pool_of(pool_hash(r->func, b->data, b->len));
	r->lv->pool = pool;
	q = req_add(request_key(h), pool, &info);
	put_request(r, q ? q->id : NONE);
}

void rec_request_out(struct rec *r, MPI_Request h)
{
	rec_request_new(r, h, REC_REQ_OTHER, -1, MPI_DATATYPE_NULL, 0, 0,
			MPI_COMM_NULL);
}

/* ---- statuses ------------------------------------------------------------ */

/* A status's fields, each kept or not. */
enum { ST_SOURCE = 1, ST_TAG = 2, ST_COUNT = 4, ST_CANCELLED = 8 };

/* The fields a status of a request described by `info` may add: the
 * count is kept only when it is not the posted one (a shorter message, a
 * read at the end of a file); `have`: bytes, what was transferred, is
 * known. */
static unsigned status_fields(const struct req_info *info, int have, int bytes)
{
	unsigned f = 0;

	switch (info->kind) {
	case REC_REQ_NULL: return 0;
	case REC_REQ_OTHER: return ST_CANCELLED;
	case REC_REQ_UNKNOWN:
		return ST_SOURCE | ST_TAG | ST_COUNT | ST_CANCELLED;
	case REC_REQ_RECV:
		f = ST_CANCELLED;
		if (info->any_source)
			f |= ST_SOURCE;
		if (info->any_tag)
			f |= ST_TAG;
		break;
	}
	if (!have || info->count < 0 || info->type_size <= 0 ||
	    bytes != info->count * info->type_size)
		f |= ST_COUNT;
	return f;
}

/* Records status s of a request described by `info`. */
static void put_status(struct rec *r, const MPI_Status *s,
		       const struct req_info *info)
{
	struct fmt_buf *b = rec_args(r);
	int n = 0, flag = 0, bytes = 0, have = 0;
	int64_t count = 0, type_size = info->type_size;
	int me = rt.rank, size = rt.size, named;
	unsigned fields;

	/* the count a receive or file operation transferred, once */
	if (info->kind != REC_REQ_NULL && info->kind != REC_REQ_OTHER)
		have = PMPI_Get_count(s, MPI_BYTE, &bytes) == MPI_SUCCESS;
	fields = status_fields(info, have, bytes);
	/* a cancellation comes alone: MPI leaves the other fields of a
	 * cancelled operation's status undefined (Open MPI sets count 0,
	 * MPICH leaves what the status held) */
	if (fields & ST_CANCELLED) {
		if (PMPI_Test_cancelled(s, &flag) != MPI_SUCCESS || !flag)
			fields &= ~(unsigned)ST_CANCELLED;
		else
			fields = ST_CANCELLED;
	}
	if (fields & ST_COUNT) {
		if (!have)
			fields &= ~(unsigned)ST_COUNT;
		else if (bytes == MPI_UNDEFINED || type_size <= 0)
			count = bytes;
		else
			count = bytes % type_size ? MPI_UNDEFINED
						  : bytes / type_size;
	}
	/* a source in a communicator the call does not name: the status
	 * names it, last */
	named = (fields & ST_SOURCE) && info->base == REQ_BASE_COMM &&
		info->comm_kind;
	for (unsigned f = fields; f; f &= f - 1)
		n++;
	if (info->base == REQ_BASE_COMM) {
		me = info->me;
		size = info->size;
	} else if (info->base == REQ_BASE_ABSOLUTE) {
		me = -1;
	}
	/* the program passed MPI_STATUS(ES)_IGNORE: what the tracer's own
	 * status says, marked so, last */
	fmt_arg_put_list(b, RONDO_ARG_STATUS,
			 (uint64_t)(n + named + (r->own_status != 0)));
	if (fields & ST_SOURCE)
		rec_status_source(r, s->MPI_SOURCE, me, size);
	if (fields & ST_TAG)
		rec_tag(r, s->MPI_TAG);
	if (fields & ST_COUNT)
		rec_int(r, count);
	if (fields & ST_CANCELLED)
		fmt_arg_put_uint(b, RONDO_ARG_CONST, handles_const_cancelled());
	if (named)
		fmt_arg_put_uint(b, info->comm_kind, info->comm_value);
	if (r->own_status)
		fmt_arg_put_uint(b, RONDO_ARG_CONST,
				 handles_const_status_ignore());
}

void rec_status(struct rec *r, const MPI_Status *s)
{
	if (s == MPI_STATUS_IGNORE)
		rec_status_ignored(r);
	else
		put_status(r, s, &req_unknown);
}

void rec_status_read(struct rec *r, const MPI_Status *s)
{
	if (s == MPI_STATUS_IGNORE)
		rec_status_ignored(r);
	else
		fmt_arg_put_list(rec_args(r), RONDO_ARG_STATUS, 0);
}

void rec_status_req(struct rec *r, const MPI_Status *s, int k)
{
	struct rt_level *lv = r->lv;
	const struct req_info *info;

	if (s == MPI_STATUS_IGNORE) {
		rec_status_ignored(r);
		return;
	}
	if (k == MPI_UNDEFINED)
		info = &req_null; /* no active request: an empty status */
	else if (k >= 0 && (uint32_t)k < lv->nctx)
		info = &lv->ctx[k];
	else
		info = &req_unknown; /* its requests were not recorded */
	put_status(r, s, info);
}

void rec_status_recv(struct rec *r, const MPI_Status *s, int64_t count,
		     MPI_Datatype type, int source, int tag, MPI_Comm comm)
{
	struct req_info info = {REC_REQ_RECV, source == MPI_ANY_SOURCE,
				tag == MPI_ANY_TAG, -1, 0};

	if (s == MPI_STATUS_IGNORE) {
		rec_status_ignored(r);
		return;
	}
	if (source == MPI_PROC_NULL)
		info.kind = REC_REQ_NULL;
	else
		info_posted(&info, count, type);
	info_comm(&info, comm, 0); /* the call names its communicator */
	put_status(r, s, &info);
}

void rec_status_io(struct rec *r, const MPI_Status *s, int64_t count,
		   MPI_Datatype type)
{
	struct req_info info = {REC_REQ_IO, 0, 0, -1, 0};

	if (s == MPI_STATUS_IGNORE) {
		rec_status_ignored(r);
		return;
	}
	info_posted(&info, count, type);
	put_status(r, s, &info);
}
