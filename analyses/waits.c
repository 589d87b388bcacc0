/*
 * waits.c - late senders and late receivers: how long blocking receives
 * waited for their sends to start, and blocking sends for their receives
 * to be posted, per pair of ranks, from per-call times (see waits.h).
 *
 * Sends and receives are matched in order per channel (sender, receiver,
 * communicator, tag), in the walk of all ranks' calls by start time
 * (walk.h): a channel holds the sends whose receive is not posted yet or
 * the receives whose send has not started, and a receive lives from its
 * post until it is both matched and completed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "sat.h"
#include "util.h"
#include "waits.h"
#include "walk.h"

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
	W_FREE /* MPI_Request_free: request */
};

static const struct wfn {
	const char *name;
	uint8_t cls;
	uint8_t lr; /* a blocking send: late receivers count */
} wfns[] = {
	{"MPI_Send", W_SEND, 1},
	{"MPI_Ssend", W_SEND, 1},
	{"MPI_Bsend", W_SEND, 0},
	{"MPI_Rsend", W_SEND, 0},
	{"MPI_Isend", W_SEND, 0},
	{"MPI_Issend", W_SEND, 0},
	{"MPI_Ibsend", W_SEND, 0},
	{"MPI_Irsend", W_SEND, 0},
	{"MPI_Recv", W_RECV, 0},
	{"MPI_Sendrecv", W_SENDRECV, 0},
	{"MPI_Sendrecv_replace", W_SENDRECV, 0},
	{"MPI_Irecv", W_IRECV, 0},
	{"MPI_Isendrecv", W_ISENDRECV, 0},
	{"MPI_Isendrecv_replace", W_ISENDRECV, 0},
	{"MPI_Send_init", W_SINIT, 0},
	{"MPI_Ssend_init", W_SINIT, 0},
	{"MPI_Bsend_init", W_SINIT, 0},
	{"MPI_Rsend_init", W_SINIT, 0},
	{"MPI_Recv_init", W_RINIT, 0},
	{"MPI_Start", W_START, 0},
	{"MPI_Startall", W_STARTALL, 0},
	{"MPI_Wait", W_WAIT, 0},
	{"MPI_Waitall", W_WAITALL, 0},
	{"MPI_Waitany", W_WAITANY, 0},
	{"MPI_Waitsome", W_WAITSOME, 0},
	{"MPI_Test", W_TEST, 0},
	{"MPI_Testall", W_TESTALL, 0},
	{"MPI_Testany", W_TESTANY, 0},
	{"MPI_Testsome", W_TESTSOME, 0},
	{"MPI_Request_free", W_FREE, 0},
};

int an_waits_counts(const char *name)
{
	for (size_t k = 0; name && k < COUNTOF(wfns); k++)
		if (!strcmp(wfns[k].name, name))
			return wfns[k].cls != W_FREE;
	return 0;
}

/* What a signature does, and the values it does it with. */
struct wsig {
	uint8_t cls, lr;
	struct an_p2p a;
};

/* A send waiting for its receive. */
struct smsg {
	struct smsg *next;
	uint32_t src;
	uint8_t lr;
	int64_t start, err, dur, eerr;
};

struct wgroup;

/* A receive, from its post until it is both matched and completed. */
struct rmsg {
	struct rmsg *prev, *next; /* every live one */
	struct rmsg *qnext;	  /* in its channel, unmatched */
	rondo_comm_ref cm;
	uint32_t dst;
	int64_t src, tag; /* world rank and tag; -1, any: wildcards */
	uint8_t any_tag, matched, done;
	int64_t post, post_err;
	uint32_t from; /* once matched: the send's */
	int64_t sstart, serr;
	struct wgroup *g; /* the blocking call completing it */
};

/* A blocking call completing receives: it waited as long as its latest
 * sender made it. */
struct wgroup {
	uint32_t rank, left; /* receives not yet matched */
	int64_t start, dur, err, eerr;
	int64_t best; /* the longest wait read back, or 0 */
	uint32_t best_src;
	int64_t bound; /* the error bound of that: the largest of the
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
	struct kmap reqmap; /* (rank, request id) -> entry of req */
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
	uint32_t i =
		kmap_get(&w->chanmap, (uint64_t)src << 32 | dst, (uint64_t)comm,
			 (uint64_t)tag, (uint32_t)w->nchan, &added);

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
		if (util_grow(&w->req, &w->capreq, w->nreq + 1,
			      sizeof(*w->req)) < 0)
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
			p->ls_err_ns =
				sat_add(p->ls_err_ns,
					(uint64_t)an_capped_err(
						g->best, g->bound, g->dur));
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
		int64_t e = max64(max64(m->serr, g->err), g->eerr);

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
	int64_t e = max64(max64(m->post_err, s->err), s->eerr);

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
		p->lr_err_ns = sat_add(
			p->lr_err_ns,
			(uint64_t)(t > 0 ? an_capped_err(t, e, s->dur)
					 : an_capped_err(0, t + e, s->dur)));
	m->matched = 1;
	m->from = s->src;
	m->sstart = s->start;
	m->serr = s->err;
	return m->done ? rmsg_free(w, m) : 0;
}

/* Receive m, its source and tag known, joins its channel. */
static int recv_queue(struct waits *w, struct rmsg *m)
{
	struct chan *c =
		wait_chan(w, (uint32_t)m->src, m->dst, m->cm.id, m->tag);
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

/* A call's communicator was not resolved: the trace does not give its
 * members, or the caller is not one. */
static int wait_nocomm(struct waits *w)
{
	w->out->unresolved++;
	return 0;
}

/* A tag value as the caller of cm meant it: 0, or -1 (a wildcard, or
 * not a tag). */
static int tag_of(const rondo_trace *t, const rondo_arg *v,
		  const rondo_comm_ref *cm, int64_t *tag)
{
	rondo_arg at;

	if (v->kind == RONDO_ARG_VARY) { /* the caller's own */
		if (rondo_arg_at_rank(t, v, cm->world, &at) < 0)
			return -1;
		v = &at;
	}
	if (v->wire != RONDO_WIRE_SINT)
		return -1;
	if (v->kind == RONDO_ARG_TAG)
		*tag = v->i;
	else if (v->kind == RONDO_ARG_REL)
		*tag = (int64_t)cm->rank + v->i;
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
	const struct smsg m = {NULL,   r,      (uint8_t)lr, x->start,
			       x->err, x->dur, x->eerr};
	rondo_comm_ref cm;
	struct smsg *q;
	struct rmsg *rm;
	struct chan *c;
	int64_t dst, tag;

	if (rondo_comm_resolve(w->b.t, &s->a.comm, r, &cm) < 0)
		return wait_nocomm(w);
	dst = rondo_peer(w->b.t, &cm, &s->a.dest, NULL);
	if (dst == RONDO_PEER_PROC_NULL || dst == RONDO_PEER_INVALID)
		return 0; /* MPI_PROC_NULL, or refused: no message */
	if (dst < 0 || tag_of(w->b.t, &s->a.stag, &cm, &tag) < 0)
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
			m->src = rondo_peer(w->b.t, &m->cm, &e, NULL);
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
	rondo_comm_ref cm;
	struct rmsg *m;
	int64_t src = -1;

	*out = NULL;
	if (rondo_comm_resolve(w->b.t, &s->a.comm, r, &cm) < 0)
		return wait_nocomm(w);
	if (!s->a.any_src) {
		src = rondo_peer(w->b.t, &cm, &s->a.source, NULL);
		if (src == RONDO_PEER_PROC_NULL || src == RONDO_PEER_INVALID)
			return 0;
		if (src == RONDO_PEER_ANY) /* this rank's own value */
			src = -1;
		else if (src < 0)
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
	m->any_tag = s->a.any_tag;
	if (!m->any_tag && tag_of(w->b.t, &s->a.rtag, &cm, &m->tag) < 0) {
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
	if (util_grow(&w->done, &w->capdone, w->ndone + 1, sizeof(*w->done)) <
	    0)
		return RONDO_E_NOMEM;
	w->done[w->ndone++] = m;
	return 0;
}

/* The receives in w->done completed at rank r's current call x, which
 * waited for them when blocking. */
static int wait_completed(struct waits *w, uint32_t r, const struct tw_rank *x,
			  int blocking)
{
	struct wgroup *g = NULL;
	size_t n = w->ndone;
	int rc = 0;

	w->ndone = 0;
	if (blocking && n) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return RONDO_E_NOMEM;
		*g = (struct wgroup){
			r,	 (uint32_t)n, x->start, x->dur, x->err,
			x->eerr, 0,	      0,	0,	0};
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

	if (test && c != W_WAITSOME && an_int(&s->a.flag) != 1)
		return 0; /* nothing completed */
	switch (c) {
	case W_WAIT: rc = wait_take(w, r, &s->a.req, &s->a.status); break;
	case W_WAITALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->a.req); k++) {
			v = elem(&s->a.req, k);
			st = elem(&s->a.status, k);
			rc = wait_take(w, r, &v, &st);
		}
		break;
	case W_WAITANY:
		i = an_int(&s->a.index);
		v = elem(&s->a.req, i < 0 ? UINT64_MAX : (uint64_t)i);
		rc = wait_take(w, r, &v, &s->a.status);
		break;
	default: /* Waitsome: the indices, each with its status */
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->a.index);
		     k++) {
			st = elem(&s->a.index, k);
			i = an_int(&st);
			v = elem(&s->a.req, i < 0 ? UINT64_MAX : (uint64_t)i);
			st = elem(&s->a.status, k);
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
	case W_SEND: return wait_send(w, r, s, x, s->lr);
	case W_SENDRECV:
	case W_RECV:
		if (s->cls == W_SENDRECV && (rc = wait_send(w, r, s, x, 0)) < 0)
			return rc;
		rc = wait_post(w, r, s, x, &s->a.status, &m);
		if (rc < 0 || !m)
			return rc;
		w->done[0] = m; /* w->done has room: made so at the start */
		w->ndone = 1;
		return wait_completed(w, r, x, 1);
	case W_ISENDRECV:
	case W_IRECV:
		if (s->cls == W_ISENDRECV &&
		    (rc = wait_send(w, r, s, x, 0)) < 0)
			return rc;
		rc = wait_post(w, r, s, x, NULL, &m);
		return rc ? rc : wait_bind(w, r, &s->a.req, m);
	case W_SINIT:
	case W_RINIT:
		if ((rc = wait_req(w, r, &s->a.req, &q)) < 0 || !q)
			return rc;
		q->init = x->sig;
		return 0;
	case W_START: return wait_start(w, r, &s->a.req, x);
	case W_STARTALL:
		for (uint64_t k = 0; rc == 0 && k < list_len(&s->a.req); k++) {
			v = elem(&s->a.req, k);
			rc = wait_start(w, r, &v, x);
		}
		return rc;
	case W_FREE:
		if ((rc = wait_req(w, r, &s->a.req, &q)) < 0 || !q)
			return rc;
		m = q->m;
		*q = (struct wreq){NONE, NULL};
		return wait_drop(w, m);
	case W_NONE: return 0;
	default: return wait_completion(w, r, s, x);
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
		an_p2p_args(t, s, &x->a);
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

/* v times num/den (num < den), rounded up or down. */
static uint64_t scale(uint64_t v, uint64_t num, uint64_t den, int up)
{
	double x = (double)v * ((double)num / (double)den);

	return v && up ? (uint64_t)x + 1 : (uint64_t)x;
}

/* One rank's waits: its receives' late senders and its sends' late
 * receivers, their sums and their bounds. */
struct rank_waits {
	uint64_t val, err;
	uint64_t val_cap, err_cap; /* what they scale to, or 0 */
};

/* A rank waited at most its time in MPI.  Each call's duration read back
 * is never short, so at a large base the waits of many calls, and more
 * so their bounds, can add up past it: a rank's waits are scaled down to
 * its time in MPI (from the per-rank times, kept within 1/128), and their
 * bounds to that time too.  Traces without per-rank times keep the
 * per-call caps alone. */
static int waits_rank_caps(const rondo_trace *t, struct an_waits *out)
{
	uint32_t nr = rondo_rank_count(t);
	struct rank_waits *rw = calloc((size_t)nr + 1, sizeof(*rw));
	uint64_t mpi;

	if (!rw)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < out->n; i++) {
		const struct an_wait_pair *p = &out->pairs[i];

		if (p->dst < nr) {
			rw[p->dst].val = sat_add(rw[p->dst].val, p->ls_ns);
			rw[p->dst].err = sat_add(rw[p->dst].err, p->ls_err_ns);
		}
		if (p->src < nr) {
			rw[p->src].val = sat_add(rw[p->src].val, p->lr_ns);
			rw[p->src].err = sat_add(rw[p->src].err, p->lr_err_ns);
		}
	}
	for (uint32_t r = 0; r < nr; r++) {
		if (rondo_rank_mpi_time(t, r, &mpi) < 0)
			continue;
		mpi = sat_add(mpi, mpi / 128 + 1);
		rw[r].val_cap = rw[r].val > mpi ? mpi : 0;
		rw[r].err_cap = rw[r].err > mpi ? mpi : 0;
	}
	for (uint32_t i = 0; i < out->n; i++) {
		struct an_wait_pair *p = &out->pairs[i];
		const struct rank_waits *d = &rw[p->dst < nr ? p->dst : nr];
		const struct rank_waits *s = &rw[p->src < nr ? p->src : nr];

		if (d->val_cap)
			p->ls_ns = scale(p->ls_ns, d->val_cap, d->val, 0);
		if (d->err_cap)
			p->ls_err_ns =
				scale(p->ls_err_ns, d->err_cap, d->err, 1);
		if (s->val_cap)
			p->lr_ns = scale(p->lr_ns, s->val_cap, s->val, 0);
		if (s->err_cap)
			p->lr_err_ns =
				scale(p->lr_err_ns, s->err_cap, s->err, 1);
	}
	free(rw);
	return 0;
}

int an_waits(const rondo_trace *t, struct an_waits *out)
{
	struct waits w;
	int rc = waits_init(&w, t, out);

	rc = rc ? rc : tbase_walk(&w.b, wait_call);
	out->base = w.b.base;
	out->untimed = w.b.untimed;
	rc = waits_end(&w, rc);
	rc = rc ? rc : waits_rank_caps(t, out);
	if (rc < 0) {
		an_waits_free(out);
		return rc;
	}
	for (uint32_t i = 0; i < out->n; i++) {
		struct an_wait_pair *p = &out->pairs[i];

		p->err_ns = sat_add(p->ls_err_ns, p->lr_err_ns);
		out->msgs += p->msgs;
		out->ls_count += p->ls_count;
		out->ls_ns = sat_add(out->ls_ns, p->ls_ns);
		out->lr_count += p->lr_count;
		out->lr_ns = sat_add(out->lr_ns, p->lr_ns);
		out->ls_err_ns = sat_add(out->ls_err_ns, p->ls_err_ns);
		out->lr_err_ns = sat_add(out->lr_err_ns, p->lr_err_ns);
	}
	out->err_ns = sat_add(out->ls_err_ns, out->lr_err_ns);
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
	      "late_receiver_ns,error_ns,late_sender_error_ns,"
	      "late_receiver_error_ns\n",
	      out);
	for (uint32_t i = 0; i < n; i++) {
		const struct an_wait_pair *p = &pairs[i];

		fprintf(out,
			"%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 "\n",
			p->src, p->dst, p->msgs, p->ls_count, p->ls_ns,
			p->lr_count, p->lr_ns, p->err_ns, p->ls_err_ns,
			p->lr_err_ns);
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : RONDO_E_IO;
}
