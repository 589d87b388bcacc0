/*
 * events.c - the walk every format is written from (export.h): each
 * exported rank's calls in program order, with their times, message ends
 * and collectives, handed to a sink one rank after the other.
 *
 * Two passes over the exported ranks.  The first counts each message
 * channel's sends and receives, and which of their ends are exported; the
 * second writes.  Both run the same code on the same calls, so the k-th
 * send of a channel is the k-th in both, and whether it has a flow, and
 * its id, are known at the send before its receive is walked
 * (channels.c, which holds only the channels that cross the rank
 * walked).
 *
 * Times.  With per-call timing, each call's start and end as read back,
 * moved where needed so that a rank's times never decrease: a start
 * before the previous call's end is put at that end, and every call lasts
 * at least 2 ns (a flow's end must lie strictly inside its slice in the
 * browser formats); each move is counted (ex_counts.clamped).  Past a
 * rank's timed calls, and for a trace without per-call times, calls are
 * laid end to end with their signature's mean duration.
 */
#define _GNU_SOURCE /* strptime, timegm */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "export_int.h"
#include "kmap.h"
#include "util.h"

#define NONE	   UINT32_MAX
#define MIN_DUR	   2	/* ns: the shortest call written */
#define NO_MEAN_NS 1000 /* a signature without statistics: 1 us */

#ifndef HAVE_OTF2
const struct ex_sink *const ex_sink_otf2 = NULL; /* configure found none */
#endif

int ex_fail(struct ex *x, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
	return rc;
}

const char *ex_comm_name(uint32_t c, char *buf, size_t size)
{
	if (c == EX_COMM_WORLD)
		snprintf(buf, size, "MPI_COMM_WORLD");
	else if (c == EX_COMM_SELF)
		snprintf(buf, size, "MPI_COMM_SELF");
	else
		snprintf(buf, size, "c%" PRIu32, c - EX_COMM_FIRST);
	return buf;
}

uint32_t ex_comm_size(const struct ex *x, uint32_t c)
{
	if (c == EX_COMM_WORLD)
		return rondo_rank_count(x->t);
	if (c == EX_COMM_SELF)
		return 1;
	return rondo_comm_size(x->t, c - EX_COMM_FIRST);
}

uint32_t ex_comm_member(const struct ex *x, uint32_t c, uint32_t k)
{
	if (c == EX_COMM_WORLD)
		return k < rondo_rank_count(x->t) ? k : UINT32_MAX;
	if (c == EX_COMM_SELF)
		return UINT32_MAX; /* each rank's own */
	return rondo_comm_member(x->t, c - EX_COMM_FIRST, k);
}

/* ---- the state of an export ----------------------------------------------- */

/* A receive posted and not completed. */
struct pend {
	uint8_t on;	 /* posted; else nothing (MPI_PROC_NULL too) */
	uint8_t known;	 /* its channel and k are set */
	uint8_t bad;	 /* its peer, tag or communicator unresolved */
	uint8_t any_tag; /* the tag comes with its status */
	int64_t src;	 /* world rank, or -1: from its status */
	int64_t local;	 /* the source's rank in the communicator */
	int64_t tag;
	int64_t tsize; /* its datatype's size, or -1 */
	uint64_t bytes, num;
	uint32_t comm, chan; /* chan NONE: not on one (outside) */
	uint64_t k;
	rondo_comm_ref cm;
};

/* What a request id of the rank walked stands for. */
struct ereq {
	uint32_t init;	/* a persistent request's init signature */
	uint64_t snum;	/* a send in flight: its number, else 0 */
	struct pend rv; /* a receive in flight */
};

/* What a signature does, and the values it does it with. */
struct esig {
	const struct ex_fn *fn; /* NULL: no role */
	uint64_t mean;		/* its synthetic duration */
	struct an_p2p a;
};

struct walk {
	struct ex *x;
	const struct ex_sink *s;
	int pass;	  /* 1: counting, 2: writing */
	struct esig *sig; /* by signature */
	struct ex_chans ch;
	/* the rank walked */
	uint32_t rank;
	int exported; /* its current call */
	struct kmap reqmap;
	struct ereq *req;
	size_t nreq, capreq;
	uint64_t nextnum;
	struct ex_msg *msgs;
	size_t nmsgs, capmsgs;
	int64_t first_start;
	int any_start;
	uint64_t done_calls, total_calls;
	struct timespec last_progress;
};

/* ---- message channels ------------------------------------------------------ */

static int64_t comm_index(const rondo_comm_ref *cm)
{
	if (cm->id == RONDO_COMM_WORLD)
		return EX_COMM_WORLD;
	if (cm->id == RONDO_COMM_SELF)
		return EX_COMM_SELF;
	return cm->id >= 0 ? EX_COMM_FIRST + cm->id : -1;
}

/* ---- one rank's requests --------------------------------------------------- */

/* Rank w->rank's entry of request value v (or of a matched probe's
 * message value), made when first seen; NULL for a value that names
 * none; *rc RONDO_E_NOMEM when memory is short. */
static struct ereq *req_of(struct walk *w, const rondo_arg *v, int *rc)
{
	uint32_t id = an_req_id(v), i;
	int added, msg = v->kind == RONDO_ARG_MESSAGE &&
			 v->wire == RONDO_WIRE_UINT && v->u < UINT32_MAX;

	if (msg)
		id = (uint32_t)v->u;
	if (id == NONE)
		return NULL;
	i = kmap_get(&w->reqmap, id, (uint64_t)msg, 0, (uint32_t)w->nreq,
		     &added);
	if (i == KMAP_NONE) {
		*rc = RONDO_E_NOMEM;
		return NULL;
	}
	if (added) {
		if (util_grow(&w->req, &w->capreq, w->nreq + 1,
			      sizeof(*w->req)) < 0) {
			*rc = RONDO_E_NOMEM;
			return NULL;
		}
		memset(&w->req[i], 0, sizeof(w->req[i]));
		w->req[i].init = NONE;
		w->nreq++;
	}
	return &w->req[i];
}

/* A message end of the current call (only kept when it is exported). */
static int msg_add(struct walk *w, const struct ex_msg *m)
{
	if (!w->exported || w->pass == 1)
		return 0;
	if (util_grow(&w->msgs, &w->capmsgs, w->nmsgs + 1, sizeof(*w->msgs)) <
	    0)
		return RONDO_E_NOMEM;
	w->msgs[w->nmsgs++] = *m;
	return 0;
}

/* Something of an exported call the trace does not resolve. */
static void unresolved(struct walk *w)
{
	if (w->exported && w->pass == 2)
		w->x->n.unresolved++;
}

/* A message to or from a rank not exported. */
static void outside(struct walk *w)
{
	if (w->exported && w->pass == 2)
		w->x->n.outside++;
}

/* Tag value v as the caller of cm meant it: 0, or -1 (a wildcard, or not
 * a tag). */
static int tag_of(const struct walk *w, const rondo_arg *v,
		  const rondo_comm_ref *cm, int64_t *tag)
{
	rondo_arg at;

	if (rondo_arg_at_rank(w->x->t, v, w->rank, &at) < 0)
		return -1;
	if (at.wire != RONDO_WIRE_SINT)
		return -1;
	if (at.kind == RONDO_ARG_TAG)
		*tag = at.i;
	else if (at.kind == RONDO_ARG_REL)
		*tag = (int64_t)cm->rank + at.i;
	else
		return -1;
	return 0;
}

static int rank_exported(const struct ex *x, uint32_t r)
{
	return r < rondo_rank_count(x->t) && (!x->o->ranks || x->o->ranks[r]);
}

/* count × the size of datatype type, as the caller passed them; *tsize
 * the size, or -1. */
static uint64_t sig_bytes(const struct walk *w, const rondo_arg *count,
			  const rondo_arg *type, int64_t *tsize)
{
	rondo_arg c;

	*tsize = rondo_type_size(w->x->t, type);
	if (rondo_arg_at_rank(w->x->t, count, w->rank, &c) < 0)
		c = *count;
	return *tsize > 0 && an_int(&c) > 0
		       ? (uint64_t)an_int(&c) * (uint64_t)*tsize
		       : 0;
}

/* A send of the values of signature s (a send, or a persistent send's
 * init at its start), as `kind` with request number num. */
static int do_send(struct walk *w, uint32_t s, uint8_t kind, uint64_t num)
{
	const rondo_trace *t = w->x->t;
	const struct esig *g = &w->sig[s];
	struct ex_msg m = {.kind = kind, .req = num};
	rondo_comm_ref cm;
	int64_t dst, local, comm, tsize;
	uint32_t c;

	if (rondo_comm_resolve(t, &g->a.comm, w->rank, &cm) < 0 ||
	    (comm = comm_index(&cm)) < 0)
		return unresolved(w), 0;
	dst = rondo_peer(t, &cm, &g->a.dest, &local);
	if (dst == RONDO_PEER_PROC_NULL || dst == RONDO_PEER_INVALID)
		return 0;
	if (dst < 0 || local < 0 || tag_of(w, &g->a.stag, &cm, &m.tag) < 0)
		return unresolved(w), 0;
	m.comm = (uint32_t)comm;
	m.peer = (uint32_t)local;
	m.peer_world = (uint32_t)dst;
	m.bytes = sig_bytes(w, &g->a.scount, &g->a.stype, &tsize);
	if (rank_exported(w->x, (uint32_t)dst)) {
		c = chans_open(&w->ch, w->rank, (uint32_t)dst, m.comm, m.tag);
		if (c == NONE)
			return RONDO_E_NOMEM;
		chans_sent(&w->ch, c, m.bytes);
		m.flow = chans_end(&w->ch, c, 0, w->ch.c[c].ks++, w->exported);
	} else {
		outside(w);
	}
	return msg_add(w, &m);
}

/* Receive p's source and tag are known: it takes its place on its
 * channel. */
static int recv_place(struct walk *w, struct pend *p)
{
	p->known = 1;
	p->chan = NONE;
	if (!rank_exported(w->x, (uint32_t)p->src))
		return 0;
	p->chan =
		chans_open(&w->ch, (uint32_t)p->src, w->rank, p->comm, p->tag);
	if (p->chan == NONE)
		return RONDO_E_NOMEM;
	p->k = w->ch.c[p->chan].kr++;
	return 0;
}

/* Posts the receive of signature s's values into *p (its request number
 * num).  A wildcard's source or tag waits for its status. */
static int do_post(struct walk *w, uint32_t s, uint64_t num, struct pend *p)
{
	const rondo_trace *t = w->x->t;
	const struct esig *g = &w->sig[s];
	int64_t comm;

	memset(p, 0, sizeof(*p));
	p->num = num;
	p->src = -1;
	if (rondo_comm_resolve(t, &g->a.comm, w->rank, &p->cm) < 0 ||
	    (comm = comm_index(&p->cm)) < 0)
		return p->on = p->bad = 1, 0;
	p->comm = (uint32_t)comm;
	if (!g->a.any_src) {
		p->src = rondo_peer(t, &p->cm, &g->a.source, &p->local);
		if (p->src == RONDO_PEER_PROC_NULL ||
		    p->src == RONDO_PEER_INVALID)
			return 0;
		if (p->src == RONDO_PEER_ANY) /* this rank's own value */
			p->src = -1;
		else if (p->src < 0 || p->local < 0)
			return p->on = p->bad = 1, 0;
	}
	p->on = 1;
	p->any_tag = g->a.any_tag;
	if (!p->any_tag && tag_of(w, &g->a.rtag, &p->cm, &p->tag) < 0)
		return p->bad = 1, 0;
	p->bytes = sig_bytes(w, &g->a.rcount, &g->a.rtype, &p->tsize);
	return p->src >= 0 && !p->any_tag ? recv_place(w, p) : 0;
}

/* Takes what status value st says of receive p: a wildcard's source and
 * tag, the count received.  Returns 1 when st is a status (its count is
 * then known: the one it holds, else the one posted), 0 for an ignored
 * one. */
static int recv_status(struct walk *w, struct pend *p, const rondo_arg *st)
{
	const rondo_trace *t = w->x->t;
	rondo_comm_ref sc;
	rondo_arg e;

	for (uint64_t k = 0; st->kind == RONDO_ARG_STATUS &&
			     st->wire == RONDO_WIRE_LIST && k < st->n;
	     k++) {
		if (rondo_arg_elem(st, k, &e) < 0)
			break;
		if (p->src < 0 && (e.kind == RONDO_ARG_RANK ||
				   e.kind == RONDO_ARG_RANK_REL)) {
			/* a rank of the receive's communicator (an
			 * intercommunicator's other group), which the
			 * status names only when the call does not */
			sc = p->cm;
			p->src = rondo_peer(t, &sc, &e, &p->local);
			if (p->src < 0 || p->local < 0)
				p->src = -1;
		} else if (p->any_tag && e.kind == RONDO_ARG_TAG &&
			   e.wire == RONDO_WIRE_SINT) {
			p->tag = e.i;
			p->any_tag = 0;
		} else if (e.kind == RONDO_ARG_INT && an_int(&e) >= 0) {
			p->bytes = p->tsize > 0 ? (uint64_t)an_int(&e) *
							  (uint64_t)p->tsize
						: 0;
		}
	}
	return st->kind == RONDO_ARG_STATUS;
}

/* Status value st says its operation was cancelled. */
static int cancelled(const struct walk *w, const rondo_arg *st)
{
	rondo_arg e;

	for (uint64_t k = 0; st->kind == RONDO_ARG_STATUS &&
			     st->wire == RONDO_WIRE_LIST && k < st->n;
	     k++)
		if (rondo_arg_elem(st, k, &e) == 0 &&
		    an_is_const(w->x->t, &e, "cancelled"))
			return 1;
	return 0;
}

/* Receive p completes in the current call, with status st (may be a
 * NULL value), as `kind`. */
static int do_complete(struct walk *w, struct pend *p, uint8_t kind,
		       const rondo_arg *st)
{
	struct ex_msg m = {.kind = kind, .req = p->num};
	int rc, counted;

	if (!p->on)
		return 0;
	p->on = 0;
	if (p->bad)
		return unresolved(w), 0;
	if (cancelled(w, st)) {
		/* it took no message: the next receive takes its place */
		if (p->known && p->chan != NONE &&
		    w->ch.c[p->chan].kr == p->k + 1)
			w->ch.c[p->chan].kr--;
		m.kind = EX_CANCELLED;
		return kind == EX_IRECV_DONE ? msg_add(w, &m) : 0;
	}
	counted = recv_status(w, p, st);
	if (p->src < 0 || p->any_tag)
		return unresolved(w), 0;
	if (!p->known && (rc = recv_place(w, p)) < 0)
		return rc;
	m.comm = p->comm;
	m.peer = (uint32_t)p->local;
	m.peer_world = (uint32_t)p->src;
	m.tag = p->tag;
	m.bytes = p->bytes;
	if (p->chan == NONE)
		return outside(w), msg_add(w, &m);
	/* a status ignored: a matched message is the size its sends are */
	if (!counted && w->pass == 1)
		chans_ignored(&w->ch, p->chan, p->bytes);
	if (!counted && w->pass == 2)
		chans_size(&w->ch, p->chan, p->k, &m.bytes);
	m.flow = chans_end(&w->ch, p->chan, 1, p->k, w->exported);
	return msg_add(w, &m);
}

/* ---- completions ----------------------------------------------------------- */

/* The operation request value v names completes, with status st. */
static int take(struct walk *w, const rondo_arg *v, const rondo_arg *st)
{
	int rc = 0;
	struct ereq *q = req_of(w, v, &rc);
	struct ex_msg m = {.kind = EX_ISEND_DONE};

	if (!q)
		return rc;
	if (q->snum) {
		m.req = q->snum;
		q->snum = 0;
		if (cancelled(w, st))
			m.kind = EX_CANCELLED;
		if ((rc = msg_add(w, &m)) < 0)
			return rc;
	}
	return do_complete(w, &q->rv, EX_IRECV_DONE, st);
}

static uint64_t list_len(const rondo_arg *a)
{
	return a->wire == RONDO_WIRE_LIST ? a->n : 0;
}

/* The completions call s made: which requests, with which statuses. */
static int completion(struct walk *w, uint32_t s, uint8_t p2p)
{
	int test = p2p >= P_TEST && p2p <= P_TESTSOME, rc = 0;
	uint8_t c = test ? (uint8_t)(p2p - P_TEST + P_WAIT) : p2p;
	const struct esig *g = &w->sig[s];
	const rondo_arg *reqs = &g->a.req, *sts = &g->a.status;
	rondo_arg v, st;
	int64_t i;

	if (test && c != P_WAITSOME && an_int(&g->a.flag) != 1)
		return 0; /* nothing completed */
	switch (c) {
	case P_WAIT: return take(w, reqs, sts);
	case P_WAITALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(reqs); k++) {
			v = an_elem(reqs, k);
			st = an_elem(sts, k);
			rc = take(w, &v, &st);
		}
		return rc;
	case P_WAITANY:
		i = an_int(&g->a.index);
		v = an_elem(reqs, i < 0 ? UINT64_MAX : (uint64_t)i);
		return take(w, &v, sts);
	default: /* Waitsome: the indices, each with its status */
		for (uint64_t k = 0; rc == 0 && k < list_len(&g->a.index);
		     k++) {
			st = an_elem(&g->a.index, k);
			i = an_int(&st);
			v = an_elem(reqs, i < 0 ? UINT64_MAX : (uint64_t)i);
			st = an_elem(sts, k);
			rc = take(w, &v, &st);
		}
		return rc;
	}
}

/* MPI_Start of request value v: what its init says, posted now. */
static int start(struct walk *w, const rondo_arg *v)
{
	int rc = 0;
	struct ereq *q = req_of(w, v, &rc);
	uint32_t init;

	if (!q || q->init == NONE)
		return rc;
	init = q->init;
	if (w->sig[init].fn->p2p == P_SINIT) {
		q->snum = ++w->nextnum;
		return do_send(w, init, EX_ISEND, q->snum);
	}
	rc = do_post(w, init, ++w->nextnum, &q->rv);
	if (rc == 0 && q->rv.on) {
		struct ex_msg m = {.kind = EX_IRECV_POST, .req = q->rv.num};

		rc = msg_add(w, &m);
	}
	return rc;
}

/* A matched probe (Mprobe, Improbe that found one) takes a message off
 * its channel: its message value now stands for it.  Mrecv receives it
 * (count and datatype its own), Imrecv posts it for a request. */
static int matched_probe(struct walk *w, uint32_t s, uint8_t p)
{
	const struct esig *g = &w->sig[s];
	struct ereq *m, *q;
	struct pend rv;
	int rc = 0;

	if (p == P_MPROBE) {
		if (g->a.flag.kind != RONDO_ARG_NULL && an_int(&g->a.flag) != 1)
			return 0;
		if (!(m = req_of(w, &g->a.message, &rc)))
			return rc;
		if ((rc = do_post(w, s, 0, &m->rv)) < 0 || !m->rv.on)
			return rc;
		recv_status(w, &m->rv, &g->a.status);
		m->rv.bytes = 0; /* the receive says how much */
		if (!m->rv.known && !m->rv.bad && m->rv.src >= 0 &&
		    !m->rv.any_tag)
			rc = recv_place(w, &m->rv);
		return rc;
	}
	if (!(m = req_of(w, &g->a.message, &rc)))
		return rc;
	rv = m->rv;
	m->rv.on = 0;
	rv.bytes = sig_bytes(w, &g->a.rcount, &g->a.rtype, &rv.tsize);
	if (p == P_MRECV)
		return do_complete(w, &rv, EX_RECV, &g->a.status);
	if (!(q = req_of(w, &g->a.req, &rc)) || !rv.on)
		return rc;
	q->rv = rv;
	q->rv.num = ++w->nextnum;
	{
		struct ex_msg e = {.kind = EX_IRECV_POST, .req = q->rv.num};

		return msg_add(w, &e);
	}
}

/* The messages and requests of call s. */
static int call_p2p(struct walk *w, uint32_t s)
{
	const struct esig *g = &w->sig[s];
	uint8_t p = g->fn ? g->fn->p2p : P_NONE;
	struct ex_msg m = {.kind = EX_IRECV_POST};
	struct ereq *q;
	struct pend rv;
	int rc = 0;

	switch (p) {
	case P_NONE: return 0;
	case P_SEND: return do_send(w, s, EX_SEND, 0);
	case P_SENDRECV:
	case P_RECV:
		if (p == P_SENDRECV && (rc = do_send(w, s, EX_SEND, 0)) < 0)
			return rc;
		rc = do_post(w, s, 0, &rv);
		return rc ? rc : do_complete(w, &rv, EX_RECV, &g->a.status);
	case P_ISEND:
	case P_ISENDRECV:
	case P_IRECV:
		if (!(q = req_of(w, &g->a.req, &rc)))
			return rc;
		if (p != P_IRECV) {
			q->snum = ++w->nextnum;
			if ((rc = do_send(w, s, EX_ISEND, q->snum)) < 0)
				return rc;
		}
		if (p == P_ISEND)
			return 0;
		if ((rc = do_post(w, s, ++w->nextnum, &q->rv)) < 0 || !q->rv.on)
			return rc;
		m.req = q->rv.num;
		return msg_add(w, &m);
	case P_SINIT:
	case P_RINIT:
		if ((q = req_of(w, &g->a.req, &rc)))
			q->init = s;
		return rc;
	case P_START: return start(w, &g->a.req);
	case P_MPROBE:
	case P_MRECV:
	case P_IMRECV: return matched_probe(w, s, p);
	case P_STARTALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(&g->a.req); k++) {
			rondo_arg v = an_elem(&g->a.req, k);

			rc = start(w, &v);
		}
		return rc;
	case P_FREE:
		if ((q = req_of(w, &g->a.req, &rc)))
			memset(q, 0, sizeof(*q)), q->init = NONE;
		return rc;
	default: return completion(w, s, p);
	}
}

/* ---- one rank ---------------------------------------------------------------- */

/* The progress line, at most five times a second. */
static void progress(struct walk *w, int force)
{
	FILE *f = w->x->o->progress;
	struct timespec now;

	if (!f)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!force && (now.tv_sec - w->last_progress.tv_sec) * 1000000000L +
				      (now.tv_nsec - w->last_progress.tv_nsec) <
			      200000000L)
		return;
	w->last_progress = now;
	fprintf(f, "\rrondo: export: %s rank %" PRIu32 ", %3.0f%% of the calls",
		w->pass == 1 ? "matching messages," : "writing,", w->rank,
		w->total_calls
			? 100.0 * (double)w->done_calls / (double)w->total_calls
			: 100.0);
	fflush(f);
}

/* The current call of iterator it (signature s): its start and end. */
static void call_times(struct walk *w, rondo_iter *it, uint32_t s,
		       int64_t *prev_end, int64_t *start, int64_t *end)
{
	int64_t a, b;
	int moved = 0;

	if (w->x->timing == EX_TIMING_PERCALL &&
	    rondo_iter_time(it, &a, &b) == 0) {
		if (a < *prev_end)
			a = *prev_end, moved = 1;
		if (b < a + MIN_DUR)
			b = a + MIN_DUR, moved = 1;
		if (moved && w->pass == 2)
			w->x->n.clamped++;
	} else {
		if (w->x->timing == EX_TIMING_PERCALL && w->pass == 2)
			w->x->n.untimed++;
		a = *prev_end;
		b = a + (int64_t)w->sig[s].mean;
	}
	*start = a;
	*end = b;
	*prev_end = b;
}

/* The collective of call s, into *c; NULL when it is none. */
static const struct ex_coll *call_coll(struct walk *w, uint32_t s,
				       struct ex_coll *c)
{
	rondo_comm_ref cm;
	int64_t comm;

	const struct ex_fn *f = w->sig[s].fn;

	if (!f || f->coll == EX_NO_COLL)
		return NULL;
	if (rondo_sig_comm(w->x->t, s, w->rank, &cm) < 0 ||
	    (comm = comm_index(&cm)) < 0) {
		w->x->n.unresolved++;
		return NULL;
	}
	if (cm.first) { /* an intercommunicator's: its region alone */
		w->x->n.intercoll++;
		return NULL;
	}
	if (ex_coll_bytes(w->x->t, s, w->rank, f->coll, &cm, c) < 0) {
		w->x->n.unresolved++;
		return NULL;
	}
	c->op = f->coll;
	c->comm = (uint32_t)comm;
	return c;
}

/* Hands the current call to the sink. */
static int call_write(struct walk *w, uint32_t s, int64_t start, int64_t end)
{
	struct ex *x = w->x;
	struct ex_coll coll;
	struct ex_call c = {w->rank,
			    s,
			    rondo_sig_func(x->t, s),
			    0,
			    start - x->t0,
			    end - x->t0,
			    w->msgs,
			    (uint32_t)w->nmsgs,
			    NULL};

	c.role = w->sig[s].fn ? w->sig[s].fn->role : EX_ROLE_OTHER;
	c.coll = call_coll(w, s, &coll);
	if (c.end > x->tmax)
		x->tmax = c.end;
	x->n.calls++;
	x->n.messages += w->nmsgs;
	for (size_t i = 0; i < w->nmsgs; i++)
		x->n.flows += w->msgs[i].flow && (w->msgs[i].kind == EX_SEND ||
						  w->msgs[i].kind == EX_ISEND);
	return w->s->call(x, &c);
}

static void rank_reset(struct walk *w)
{
	kmap_free(&w->reqmap);
	w->nreq = 0;
	w->nextnum = 0;
}

/* Walks rank r's calls in the current pass. */
static int walk_rank(struct walk *w, uint32_t r)
{
	const struct ex_opts *o = w->x->o;
	unsigned flags =
		w->x->timing == EX_TIMING_PERCALL ? RONDO_ITER_TIMED : 0;
	int64_t prev_end = 0, start, end;
	rondo_iter *it;
	uint32_t s;
	int rc;

	rc = rondo_iter_open(w->x->t, r, flags, &it);
	if (rc < 0)
		return ex_fail(w->x, rc, "rank %" PRIu32 ": %s", r,
			       rondo_strerror(rc));
	w->rank = r;
	rank_reset(w);
	if (flags)
		prev_end = INT64_MIN / 4;
	for (uint64_t k = 0;
	     (!o->limit || k < o->limit) && (rc = rondo_iter_next(it, &s)) == 1;
	     k++) {
		call_times(w, it, s, &prev_end, &start, &end);
		w->exported =
			(!o->sigs || o->sigs[s]) &&
			(!o->window || (start >= o->from && start < o->to));
		w->nmsgs = 0;
		if ((rc = call_p2p(w, s)) < 0)
			break;
		if (w->exported && w->pass == 1 &&
		    (!w->any_start || start < w->first_start))
			w->first_start = start, w->any_start = 1;
		if (w->exported && w->pass == 2 &&
		    (rc = call_write(w, s, start, end)) < 0)
			break;
		if ((++w->done_calls & 0xffff) == 0)
			progress(w, 0);
	}
	rondo_iter_free(it);
	if (rc < 0 && !w->x->err[0])
		ex_fail(w->x, rc, "rank %" PRIu32 ": %s", r,
			rc == RONDO_E_NOMEM ? "out of memory"
					    : rondo_strerror(rc));
	return rc < 0 ? rc : 0;
}

/* ---- setting up ------------------------------------------------------------ */

/* What each signature does, and the values it does it with. */
static int walk_init(struct walk *w, struct ex *x, const struct ex_sink *s)
{
	const rondo_trace *t = x->t;
	uint32_t nsig = rondo_sig_count(t);
	rondo_stat st;

	memset(w, 0, sizeof(*w));
	chans_init(&w->ch);
	w->x = x;
	w->s = s;
	w->sig = calloc((size_t)nsig + 1, sizeof(*w->sig));
	if (!w->sig)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < nsig; i++) {
		struct esig *g = &w->sig[i];

		g->fn = ex_fn_find(rondo_func_name(t, rondo_sig_func(t, i)));
		g->mean = rondo_sig_stat(t, i, &st) == 0 && st.count
				  ? st.total_ns / st.count
				  : NO_MEAN_NS;
		if (g->mean < MIN_DUR)
			g->mean = MIN_DUR;
		if (g->fn && g->fn->p2p != P_NONE)
			an_p2p_args(t, i, &g->a);
	}
	return 0;
}

static void walk_free(struct walk *w)
{
	rank_reset(w);
	chans_free(&w->ch);
	free(w->req);
	free(w->msgs);
	free(w->sig);
}

/* The job's start (meta "start", "2026-11-28T08:05:30+0000") in ns since
 * 1970, or 0. */
static uint64_t start_epoch(const rondo_trace *t)
{
	const char *s = rondo_meta_get(t, "start");
	struct tm tm;
	char *end;
	long off = 0;
	time_t at;

	memset(&tm, 0, sizeof(tm));
	if (!s || !(end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	if ((*end == '+' || *end == '-') && strlen(end) == 5) {
		long v = strtol(end + 1, NULL, 10);

		off = (v / 100 * 3600 + v % 100 * 60) * (*end == '-' ? -1 : 1);
	}
	at = timegm(&tm);
	if (at == (time_t)-1 || at - off < 0)
		return 0;
	return (uint64_t)(at - off) * 1000000000ull;
}

uint64_t ex_calls(const rondo_trace *t, const struct ex_opts *o)
{
	uint64_t n = 0, c;

	for (uint32_t r = 0; r < rondo_rank_count(t); r++) {
		if (o->ranks && !o->ranks[r])
			continue;
		c = rondo_rank_calls(t, r);
		if (o->limit && c > o->limit)
			c = o->limit;
		n = n + c < n ? UINT64_MAX : n + c;
	}
	return n;
}

static int run_pass(struct walk *w, int pass)
{
	struct ex *x = w->x;
	uint32_t nranks = rondo_rank_count(x->t);
	int rc = 0;

	w->pass = pass;
	w->done_calls = 0;
	for (uint32_t r = 0; rc == 0 && r < nranks; r++) {
		if (!rank_exported(x, r))
			continue;
		if (pass == 2 && (rc = w->s->rank_begin(x, r)) < 0)
			break;
		if ((rc = walk_rank(w, r)) < 0)
			break;
		chans_close(&w->ch, r, &x->n);
		progress(w, 1);
		if (pass == 2) {
			x->n.ranks++;
			rc = w->s->rank_end(x, r);
		}
	}
	return rc;
}

int ex_run(struct ex *x, const rondo_trace *t, const struct ex_opts *o,
	   const struct ex_sink *s, const char *path)
{
	struct walk w;
	int rc, begun = 0;

	memset(x, 0, sizeof(*x));
	x->t = t;
	x->o = o;
	x->path = path;
	x->timing = rondo_timing_mode(t, &x->base) == RONDO_TIMING_PERCALL
			    ? EX_TIMING_PERCALL
			    : EX_TIMING_SYNTHETIC;
	x->start_epoch_ns = start_epoch(t);
	x->ncomms = EX_COMM_FIRST + rondo_comm_count(t);
	rc = walk_init(&w, x, s);
	if (rc < 0) {
		walk_free(&w);
		return ex_fail(x, rc, "out of memory");
	}
	w.total_calls = ex_calls(t, o);
	rc = run_pass(&w, 1);
	if (rc == 0 && chans_second(&w.ch) < 0)
		rc = ex_fail(x, RONDO_E_NOMEM, "out of memory");
	if (rc == 0) {
		x->t0 = w.any_start && w.first_start < 0 ? w.first_start : 0;
		begun = 1;
		rc = s->begin(x);
	}
	if (rc == 0)
		rc = run_pass(&w, 2);
	if (rc == 0)
		rc = s->end(x);
	if (rc < 0 && begun)
		s->abort(x);
	if (o->progress)
		fputs("\r\033[K", o->progress);
	walk_free(&w);
	return rc;
}
