/*
 * pairing.c - whether messages and collectives pair up (pairing.h).
 *
 * For each rank group, how many times each signature occurs under its
 * root (an_rule_mult); then for each of its ranks, what those calls add up
 * to, resolved as that rank made them: the messages it sends (the
 * matrix's rules, an_sends_rank) and the receives it posts, in cells
 * keyed by (communicator, sender, receiver) and (communicator, any
 * sender, receiver); the collectives it calls, by (communicator,
 * collective, rank).  Then the counts are compared.  Nothing here depends
 * on the number of calls.
 *
 * A matched probe (MPI_Mprobe, MPI_Improbe that found a message) is the
 * receive of its message: MPI matches it there, and the Mrecv or Imrecv
 * that takes the message then matches nothing (a message handle's id may
 * come from several probes, so that is also the count that needs no
 * link between them).  A persistent receive is posted at each start, and
 * a completion whose status says "cancelled" takes one receive off its
 * request's maker: the starts and completions find the maker among the
 * signatures the rank calls (ids come from pools per creating signature,
 * so an id has one maker; two make it unresolved).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "kmap.h"
#include "matrix.h"
#include "pairing.h"
#include "sat.h"
#include "util.h"

#define ALL    UINT64_MAX      /* a cell's sender: every sender */
#define ABSENT (KMAP_NONE - 1) /* no receive made that request */
#define AMBIG  (KMAP_NONE - 2) /* two did */
#define NOKIND UINT32_MAX

/* ---- what each function does --------------------------------------------- */

enum rk {
	RK_NONE,
	RK_RECV,     /* source, comm; a request for the nonblocking ones */
	RK_RINIT,    /* a persistent receive: posted at each start */
	RK_MPROBE,   /* source, comm -> message: a receive when matched */
	RK_START,    /* request, or array_of_requests */
	RK_WAIT,     /* request, status */
	RK_WAITALL,  /* array_of_requests, array_of_statuses */
	RK_WAITANY,  /* array_of_requests, index, status */
	RK_WAITSOME, /* array_of_requests, array_of_indices, statuses */
};

static const struct rfn {
	const char *name;
	uint8_t rk;
} rfns[] = {
	{"MPI_Recv", RK_RECV},	       {"MPI_Irecv", RK_RECV},
	{"MPI_Sendrecv", RK_RECV},     {"MPI_Sendrecv_replace", RK_RECV},
	{"MPI_Isendrecv", RK_RECV},    {"MPI_Isendrecv_replace", RK_RECV},
	{"MPI_Recv_init", RK_RINIT},   {"MPI_Mprobe", RK_MPROBE},
	{"MPI_Improbe", RK_MPROBE},    {"MPI_Start", RK_START},
	{"MPI_Startall", RK_START},    {"MPI_Wait", RK_WAIT},
	{"MPI_Test", RK_WAIT},	       {"MPI_Waitall", RK_WAITALL},
	{"MPI_Testall", RK_WAITALL},   {"MPI_Waitany", RK_WAITANY},
	{"MPI_Testany", RK_WAITANY},   {"MPI_Waitsome", RK_WAITSOME},
	{"MPI_Testsome", RK_WAITSOME},
};

/* The collectives compared, by their blocking names; a kind is an index
 * here times 2, plus 1 for the init of the persistent form. */
static const char *const colls[] = {
	"MPI_Barrier",
	"MPI_Bcast",
	"MPI_Gather",
	"MPI_Gatherv",
	"MPI_Scatter",
	"MPI_Scatterv",
	"MPI_Allgather",
	"MPI_Allgatherv",
	"MPI_Alltoall",
	"MPI_Alltoallv",
	"MPI_Alltoallw",
	"MPI_Reduce",
	"MPI_Allreduce",
	"MPI_Reduce_scatter",
	"MPI_Reduce_scatter_block",
	"MPI_Scan",
	"MPI_Exscan",
	"MPI_Neighbor_allgather",
	"MPI_Neighbor_allgatherv",
	"MPI_Neighbor_alltoall",
	"MPI_Neighbor_alltoallv",
	"MPI_Neighbor_alltoallw",
};

static uint8_t rk_of(const char *name)
{
	for (size_t i = 0; name && i < COUNTOF(rfns); i++)
		if (!strcmp(rfns[i].name, name))
			return rfns[i].rk;
	return RK_NONE;
}

/* The kind of collective function `name` is, or NOKIND: its large-count
 * form (_c) and its nonblocking one (MPI_I...) as the plain one. */
static uint32_t coll_kind(const char *name)
{
	char b[64];
	size_t n = name ? strlen(name) : sizeof(b);
	uint32_t init = 0;

	if (n >= sizeof(b) || strncmp(name, "MPI_", 4))
		return NOKIND;
	memcpy(b, name, n + 1);
	if (n > 6 && !strcmp(b + n - 2, "_c"))
		b[n -= 2] = '\0';
	if (n > 9 && !strcmp(b + n - 5, "_init"))
		b[n -= 5] = '\0', init = 1;
	if (b[4] == 'I' && islower((unsigned char)b[5])) {
		memmove(b + 4, b + 5, n - 4);
		b[4] = (char)toupper((unsigned char)b[4]);
	}
	for (uint32_t i = 0; i < COUNTOF(colls); i++)
		if (!strcmp(colls[i], b))
			return i * 2 + init;
	return NOKIND;
}

/* ---- the state ----------------------------------------------------------- */

/* Messages and receives of (communicator, sender, receiver); the
 * communicator as comm_key() has it. */
struct cell {
	uint64_t comm, src, dst;
	uint64_t sent, recv, wild; /* wild: MPI_ANY_SOURCE (sender ALL) */
};

/* A collective on a communicator, as its first caller seen saw it. */
struct cgroup {
	rondo_comm_ref cm;
	uint32_t kind;
};

/* How many times a rank called a collective on a communicator. */
struct ccount {
	uint64_t comm;
	uint32_t kind, world;
	uint64_t n;
};

/* A signature of the receiving side, and its values. */
struct rsig {
	uint32_t sig;
	uint8_t rk;
	struct an_p2p a;
};

struct pair {
	const rondo_trace *t;
	struct an_pairing *out;
	struct an_sends *sends;
	struct rsig *rs;
	uint32_t nrs;
	uint64_t *posted, *cancelled; /* by index in rs, for one rank */
	uint32_t *csig, *ckind;	      /* the collective signatures */
	uint32_t ncsig;
	struct kmap made; /* request id -> the index in rs of its maker */
	struct kmap cellmap, gmap, callmap;
	struct cell *cells;
	struct cgroup *groups;
	struct ccount *calls;
	size_t ncells, capcells, ngroups, capgroups, ncalls, capcalls;
	uint32_t un_rank; /* the lowest rank with a call unresolved */
	uint64_t un_n;
	const char *un_func; /* its function, NULL for sends */
};

/* Communicators as keys, in the order mismatches are looked for: the
 * world 0, MPI_COMM_SELF 1, communicator c c + 3. */
static uint64_t comm_key(int64_t id)
{
	if (id == RONDO_COMM_WORLD || id == RONDO_COMM_SELF)
		return id == RONDO_COMM_SELF;
	return (uint64_t)id + 3;
}

static void comm_name(uint64_t key, char *buf, size_t size)
{
	if (key == comm_key(RONDO_COMM_WORLD))
		snprintf(buf, size, "MPI_COMM_WORLD");
	else if (key == comm_key(RONDO_COMM_SELF))
		snprintf(buf, size, "MPI_COMM_SELF");
	else
		snprintf(buf, size, "c%" PRIu64, key - 3);
}

/* n calls of rank r (of func, or sends) name what the trace does not
 * resolve. */
static void pair_unresolved(struct pair *p, uint32_t r, uint64_t n,
			    const char *func)
{
	p->out->unresolved = sat_add(p->out->unresolved, n);
	if (r < p->un_rank) {
		p->un_rank = r;
		p->un_n = n;
		p->un_func = func;
	}
}

static const char *func_of(const struct pair *p, uint32_t sig)
{
	const char *f = rondo_func_name(p->t, rondo_sig_func(p->t, sig));

	return f ? f : "a call";
}

/* The index kmap m holds under (a, b, c), or ABSENT; KMAP_NONE when
 * memory is short. */
static uint32_t find(struct kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	int added;
	uint32_t v = kmap_get(m, a, b, c, ABSENT, &added);

	if (added)
		kmap_del(m, a, b, c);
	return v;
}

static struct cell *cell_at(struct pair *p, uint64_t comm, uint64_t src,
			    uint64_t dst)
{
	int added;
	uint32_t i = kmap_get(&p->cellmap, comm, src, dst, (uint32_t)p->ncells,
			      &added);

	if (i == KMAP_NONE)
		return NULL;
	if (added) {
		if (util_grow(&p->cells, &p->capcells, p->ncells + 1,
			      sizeof(*p->cells)) < 0) {
			kmap_del(&p->cellmap, comm, src, dst);
			return NULL;
		}
		p->cells[i] = (struct cell){comm, src, dst, 0, 0, 0};
		p->ncells++;
	}
	return &p->cells[i];
}

/* ---- point-to-point ------------------------------------------------------ */

/* an_send_fn: a message from `rank` to `to`, n times. */
static int pair_sent(void *arg, uint32_t rank, const rondo_comm_ref *cm,
		     int64_t to, uint64_t n)
{
	struct pair *p = arg;
	uint64_t k = comm_key(cm->id);
	struct cell *c = cell_at(p, k, rank, (uint64_t)to);

	if (!c)
		return RONDO_E_NOMEM;
	c->sent = sat_add(c->sent, n);
	if (!(c = cell_at(p, k, ALL, (uint64_t)to)))
		return RONDO_E_NOMEM;
	c->sent = sat_add(c->sent, n);
	return 0;
}

/* n receives rank r posts as values a say (comm, source). */
static int recv_add(struct pair *p, uint32_t r, const struct an_p2p *a,
		    uint32_t sig, uint64_t n)
{
	rondo_comm_ref cm;
	struct cell *c;
	int64_t src;

	if (rondo_comm_resolve(p->t, &a->comm, r, &cm) < 0)
		return pair_unresolved(p, r, n, func_of(p, sig)), 0;
	src = rondo_peer(p->t, &cm, &a->source, NULL);
	if (src == RONDO_PEER_PROC_NULL || src == RONDO_PEER_INVALID)
		return 0;
	if (src != RONDO_PEER_ANY && src < 0)
		return pair_unresolved(p, r, n, func_of(p, sig)), 0;
	c = cell_at(p, comm_key(cm.id), ALL, r);
	if (!c)
		return RONDO_E_NOMEM;
	if (src == RONDO_PEER_ANY) {
		c->wild = sat_add(c->wild, n);
		return 0;
	}
	c->recv = sat_add(c->recv, n);
	if (!(c = cell_at(p, comm_key(cm.id), (uint64_t)src, r)))
		return RONDO_E_NOMEM;
	c->recv = sat_add(c->recv, n);
	return 0;
}

/* rs[i] makes the request it names (a receive's), in the rank's calls;
 * two signatures making one id make it AMBIG. */
static int made_add(struct pair *p, uint32_t i)
{
	const struct rsig *x = &p->rs[i];
	uint32_t id = an_req_id(&x->a.req), v;
	int added;

	if (id == UINT32_MAX || (x->rk != RK_RECV && x->rk != RK_RINIT))
		return 0;
	v = kmap_get(&p->made, id, 0, 0, i, &added);
	if (v == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (added || v == i || v == AMBIG)
		return 0;
	kmap_del(&p->made, id, 0, 0);
	return kmap_get(&p->made, id, 0, 0, AMBIG, &added) == KMAP_NONE
		       ? RONDO_E_NOMEM
		       : 0;
}

/* The receive maker of request value v, or ABSENT (a send's, or none
 * seen), AMBIG, KMAP_NONE (memory). */
static uint32_t req_maker(struct pair *p, const rondo_arg *v)
{
	uint32_t id = an_req_id(v);

	return id == UINT32_MAX ? ABSENT : find(&p->made, id, 0, 0);
}

/* Request value v started n times by rank r's call `sig`. */
static int started(struct pair *p, uint32_t r, uint32_t sig, const rondo_arg *v,
		   uint64_t n)
{
	uint32_t j = req_maker(p, v);

	if (j == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (j == AMBIG)
		pair_unresolved(p, r, n, func_of(p, sig));
	else if (j < p->nrs && p->rs[j].rk == RK_RINIT)
		p->posted[j] = sat_add(p->posted[j], n);
	return 0;
}

static int is_cancelled(const struct pair *p, const rondo_arg *st)
{
	for (uint64_t k = 0; st->kind == RONDO_ARG_STATUS && k < st->n; k++) {
		rondo_arg e = an_elem(st, k);

		if (an_is_const(p->t, &e, "cancelled"))
			return 1;
	}
	return 0;
}

/* The request value v completed n times, status st: a receive off its
 * maker if it was cancelled. */
static int completed(struct pair *p, const rondo_arg *v, const rondo_arg *st,
		     uint64_t n)
{
	uint32_t j;

	if (!is_cancelled(p, st))
		return 0;
	j = req_maker(p, v);
	if (j == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (j < p->nrs)
		p->cancelled[j] = sat_add(p->cancelled[j], n);
	return 0;
}

/* The completions of rs[i], called n times (as waits.c reads them). */
static int completions(struct pair *p, const struct rsig *x, uint64_t n)
{
	const struct an_p2p *a = &x->a;
	rondo_arg v, st, e;
	int64_t at;
	int rc = 0;

	switch (x->rk) {
	case RK_WAIT: return completed(p, &a->req, &a->status, n);
	case RK_WAITANY:
		at = an_int(&a->index);
		v = an_elem(&a->req, at < 0 ? UINT64_MAX : (uint64_t)at);
		return completed(p, &v, &a->status, n);
	default: break;
	}
	for (uint64_t k = 0;
	     !rc && a->status.wire == RONDO_WIRE_LIST && k < a->status.n; k++) {
		st = an_elem(&a->status, k);
		at = (int64_t)k;
		if (x->rk == RK_WAITSOME) {
			e = an_elem(&a->index, k);
			at = an_int(&e);
		}
		v = an_elem(&a->req, at < 0 ? UINT64_MAX : (uint64_t)at);
		rc = completed(p, &v, &st, n);
	}
	return rc;
}

/* What rs[i], called n times by rank r, posts, starts or cancels. */
static int recv_call(struct pair *p, uint32_t r, uint32_t i, uint64_t n)
{
	const struct rsig *x = &p->rs[i];
	int rc = 0;

	switch (x->rk) {
	case RK_MPROBE: /* a message found (not MPI_MESSAGE_NO_PROC...) */
		if (x->a.message.kind != RONDO_ARG_MESSAGE)
			return 0;
		/* fall through */
	case RK_RECV: p->posted[i] = sat_add(p->posted[i], n); return 0;
	case RK_RINIT: return 0;
	case RK_START:
		if (x->a.req.wire != RONDO_WIRE_LIST)
			return started(p, r, x->sig, &x->a.req, n);
		for (uint64_t k = 0; !rc && k < x->a.req.n; k++) {
			rondo_arg v = an_elem(&x->a.req, k);

			rc = started(p, r, x->sig, &v, n);
		}
		return rc;
	default: return completions(p, x, n);
	}
}

/* The receives rank r posts, its calls counted in mult[]. */
static int recv_rank(struct pair *p, uint32_t r, const uint64_t *mult)
{
	int rc = 0;

	kmap_free(&p->made);
	for (uint32_t i = 0; i < p->nrs; i++) {
		p->posted[i] = p->cancelled[i] = 0;
		if (!rc && mult[p->rs[i].sig])
			rc = made_add(p, i);
	}
	for (uint32_t i = 0; !rc && i < p->nrs; i++)
		if (mult[p->rs[i].sig])
			rc = recv_call(p, r, i, mult[p->rs[i].sig]);
	for (uint32_t i = 0; !rc && i < p->nrs; i++)
		if (p->posted[i] > p->cancelled[i])
			rc = recv_add(p, r, &p->rs[i].a, p->rs[i].sig,
				      p->posted[i] - p->cancelled[i]);
	return rc;
}

/* ---- collectives --------------------------------------------------------- */

/* n calls of collective `kind` by rank r on cm. */
static int coll_add(struct pair *p, uint32_t r, const rondo_comm_ref *cm,
		    uint32_t kind, uint64_t n)
{
	uint64_t k = comm_key(cm->id);
	uint32_t i;
	int added;

	i = kmap_get(&p->gmap, k, kind, 0, (uint32_t)p->ngroups, &added);
	if (i == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (added) {
		if (util_grow(&p->groups, &p->capgroups, p->ngroups + 1,
			      sizeof(*p->groups)) < 0)
			return RONDO_E_NOMEM;
		p->groups[p->ngroups++] = (struct cgroup){*cm, kind};
	}
	i = kmap_get(&p->callmap, k, kind, r, (uint32_t)p->ncalls, &added);
	if (i == KMAP_NONE)
		return RONDO_E_NOMEM;
	if (added) {
		if (util_grow(&p->calls, &p->capcalls, p->ncalls + 1,
			      sizeof(*p->calls)) < 0)
			return RONDO_E_NOMEM;
		p->calls[p->ncalls++] = (struct ccount){k, kind, r, 0};
	}
	p->calls[i].n = sat_add(p->calls[i].n, n);
	return 0;
}

/* The collectives rank r calls, its calls counted in mult[]. */
static int coll_rank(struct pair *p, uint32_t r, const uint64_t *mult)
{
	int rc = 0;

	for (uint32_t k = 0; !rc && k < p->ncsig; k++) {
		uint32_t s = p->csig[k];
		rondo_comm_ref cm;

		if (!mult[s])
			continue;
		if (rondo_sig_comm(p->t, s, r, &cm) < 0)
			pair_unresolved(p, r, mult[s], func_of(p, s));
		else if (cm.id != RONDO_COMM_SELF) /* alone: it pairs */
			rc = coll_add(p, r, &cm, p->ckind[k], mult[s]);
	}
	return rc;
}

/* ---- one rank, and the set-up -------------------------------------------- */

static int pair_rank(struct pair *p, uint32_t r, const uint64_t *mult)
{
	uint64_t un = 0;
	int rc = an_sends_rank(p->sends, r, mult, pair_sent, p, &un);

	if (rc < 0)
		return rc;
	if (un)
		pair_unresolved(p, r, un, NULL);
	rc = recv_rank(p, r, mult);
	return rc ? rc : coll_rank(p, r, mult);
}

static int pair_init(struct pair *p, const rondo_trace *t,
		     struct an_pairing *out)
{
	uint32_t nsig = rondo_sig_count(t);

	memset(p, 0, sizeof(*p));
	memset(out, 0, sizeof(*out));
	p->t = t;
	p->out = out;
	p->un_rank = UINT32_MAX;
	p->rs = calloc((size_t)nsig + 1, sizeof(*p->rs));
	p->posted = calloc((size_t)nsig + 1, sizeof(*p->posted));
	p->cancelled = calloc((size_t)nsig + 1, sizeof(*p->cancelled));
	p->csig = calloc((size_t)nsig + 1, sizeof(*p->csig));
	p->ckind = calloc((size_t)nsig + 1, sizeof(*p->ckind));
	if (!p->rs || !p->posted || !p->cancelled || !p->csig || !p->ckind)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < nsig; s++) {
		const char *name = rondo_func_name(t, rondo_sig_func(t, s));
		uint8_t rk = rk_of(name);
		uint32_t kind = coll_kind(name);

		if (rk != RK_NONE) {
			p->rs[p->nrs] = (struct rsig){.sig = s, .rk = rk};
			an_p2p_args(t, s, &p->rs[p->nrs++].a);
		}
		if (kind != NOKIND) {
			p->csig[p->ncsig] = s;
			p->ckind[p->ncsig++] = kind;
		}
	}
	return an_sends_open(t, &p->sends);
}

static void pair_done(struct pair *p)
{
	an_sends_free(p->sends);
	free(p->rs);
	free(p->posted);
	free(p->cancelled);
	free(p->csig);
	free(p->ckind);
	kmap_free(&p->made);
	kmap_free(&p->cellmap);
	kmap_free(&p->gmap);
	kmap_free(&p->callmap);
	free(p->cells);
	free(p->groups);
	free(p->calls);
}

/* ---- the verdict --------------------------------------------------------- */

/* "1 receive", "2 receives". */
static const char *counted(char *buf, size_t size, uint64_t n, const char *what)
{
	snprintf(buf, size, "%" PRIu64 " %s%s", n, what, n == 1 ? "" : "s");
	return buf;
}

/* Cell a's mismatch comes before cell b's: by communicator, receiver,
 * then a sender's before the total. */
static int cell_before(const struct cell *a, const struct cell *b)
{
	if (a->comm != b->comm)
		return a->comm < b->comm;
	if (a->dst != b->dst)
		return a->dst < b->dst;
	return a->src < b->src; /* ALL is the largest */
}

static int cell_bad(const struct cell *c)
{
	return c->src == ALL ? c->sent != sat_add(c->recv, c->wild)
			     : c->recv > c->sent;
}

/* For the total cell c whose messages outnumber its receives: the first
 * sender that sends it more than it receives naming that sender, or
 * NULL. */
static const struct cell *excess(const struct pair *p, const struct cell *c)
{
	const struct cell *e = NULL;

	for (size_t i = 0; i < p->ncells; i++) {
		const struct cell *x = &p->cells[i];

		if (x->comm == c->comm && x->dst == c->dst && x->src != ALL &&
		    x->sent > x->recv && (!e || x->src < e->src))
			e = x;
	}
	return e;
}

static void p2p_say(const struct pair *p, const struct cell *c, char *buf,
		    size_t size)
{
	char cn[32], a[48], b[48], d[48], f[48];
	const struct cell *e;
	int n;

	comm_name(c->comm, cn, sizeof(cn));
	if (c->src != ALL) {
		snprintf(buf, size,
			 "point-to-point on communicator %s: rank %" PRIu64
			 " posts %s from rank %" PRIu64 ", which sends it %s",
			 cn, c->dst, counted(a, sizeof(a), c->recv, "receive"),
			 c->src, counted(b, sizeof(b), c->sent, "message"));
		return;
	}
	n = snprintf(
		buf, size,
		"point-to-point on communicator %s: rank %" PRIu64
		" posts %s (%" PRIu64 " from any source) and is sent %s",
		cn, c->dst,
		counted(a, sizeof(a), sat_add(c->recv, c->wild), "receive"),
		c->wild, counted(b, sizeof(b), c->sent, "message"));
	/* without wildcards, a sender it names too few times */
	e = !c->wild && c->sent > c->recv ? excess(p, c) : NULL;
	if (e && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 ": rank %" PRIu64 " sends it %s, for %s from rank "
			 "%" PRIu64,
			 e->src, counted(d, sizeof(d), e->sent, "message"),
			 counted(f, sizeof(f), e->recv, "receive"), e->src);
}

/* The first point-to-point mismatch into buf (untouched when none). */
static void p2p_check(struct pair *p, char *buf, size_t size)
{
	const struct cell *best = NULL;

	for (size_t i = 0; i < p->ncells; i++) {
		const struct cell *c = &p->cells[i];

		if (c->src == ALL)
			p->out->checked_pairs =
				sat_add(p->out->checked_pairs, c->sent);
		if (cell_bad(c) && (!best || cell_before(c, best)))
			best = c;
	}
	if (best)
		p2p_say(p, best, buf, size);
}

static int group_cmp(const void *a, const void *b)
{
	const struct cgroup *x = a, *y = b;
	uint64_t cx = comm_key(x->cm.id), cy = comm_key(y->cm.id);

	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int ccount_cmp(const void *a, const void *b)
{
	const struct ccount *x = a, *y = b;

	if (x->comm != y->comm)
		return x->comm < y->comm ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->world < y->world ? -1 : x->world > y->world;
}

/* The calls of one collective on one communicator: a run of the sorted
 * counts. */
struct crun {
	const struct ccount *c;
	size_t n;
};

/* How many times world rank w calls it (a binary search). */
static uint64_t run_calls(const struct crun *run, int64_t w)
{
	size_t lo = 0, hi = run->n;

	while (w >= 0 && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (run->c[mid].world == (uint64_t)w)
			return run->c[mid].n;
		if (run->c[mid].world < (uint64_t)w)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Group g's members' calls compared: into buf when they differ (and buf
 * is empty).  When members 1 and 2 agree against member 0, 0 is the odd
 * one. */
static void group_check(struct pair *p, const struct cgroup *g,
			const struct crun *run, char *buf, size_t size)
{
	int64_t ref = rondo_comm_world(p->t, &g->cm, 0), odd = -1;
	uint64_t nref = run_calls(run, ref), nodd = 0;
	char cn[32], a[48], b[48];

	if (g->cm.size > 2) {
		int64_t w1 = rondo_comm_world(p->t, &g->cm, 1);
		uint64_t n1 = run_calls(run, w1);

		if (n1 != nref &&
		    n1 == run_calls(run, rondo_comm_world(p->t, &g->cm, 2)))
			ref = w1, nref = n1;
	}
	for (uint32_t k = 0; k < g->cm.size; k++) {
		int64_t w = rondo_comm_world(p->t, &g->cm, k);
		uint64_t n = run_calls(run, w);

		p->out->checked_colls = sat_add(p->out->checked_colls, n);
		if (n != nref && odd < 0)
			odd = w, nodd = n;
	}
	if (odd < 0 || buf[0])
		return;
	comm_name(comm_key(g->cm.id), cn, sizeof(cn));
	snprintf(buf, size,
		 "%s%s on communicator %s: rank %" PRId64 " calls it %s, "
		 "rank %" PRId64 " calls it %s",
		 colls[g->kind / 2], g->kind % 2 ? "_init" : "", cn, ref,
		 counted(a, sizeof(a), nref, "time"), odd,
		 counted(b, sizeof(b), nodd, "time"));
}

/* The first collective called unevenly into buf (untouched when none):
 * groups and counts sorted alike, each group's counts a run. */
static void coll_check(struct pair *p, char *buf, size_t size)
{
	size_t at = 0;

	if (p->ngroups)
		qsort(p->groups, p->ngroups, sizeof(*p->groups), group_cmp);
	if (p->ncalls)
		qsort(p->calls, p->ncalls, sizeof(*p->calls), ccount_cmp);
	for (size_t i = 0; i < p->ngroups; i++) {
		const struct cgroup *g = &p->groups[i];
		struct crun run = {p->calls + at, 0};

		while (at < p->ncalls &&
		       p->calls[at].comm == comm_key(g->cm.id) &&
		       p->calls[at].kind == g->kind)
			at++, run.n++;
		group_check(p, g, &run, buf, size);
	}
}

static void pair_judge(struct pair *p)
{
	struct an_pairing *o = p->out;
	char pp[sizeof(o->first)] = "", cc[sizeof(o->first)] = "", n[48];

	p2p_check(p, pp, sizeof(pp));
	coll_check(p, cc, sizeof(cc));
	if (o->unresolved)
		snprintf(o->first, sizeof(o->first),
			 "rank %" PRIu32 " makes %s%s%s whose communicator "
			 "or peer the trace does not resolve",
			 p->un_rank,
			 counted(n, sizeof(n), p->un_n,
				 p->un_func ? "call" : "send"),
			 p->un_func ? " of " : "",
			 p->un_func ? p->un_func : "");
	else
		memcpy(o->first, pp[0] ? pp : cc, sizeof(o->first));
	o->ok = !o->first[0];
}

int an_pairing(const rondo_trace *t, struct an_pairing *out)
{
	struct pair p;
	uint64_t *mult = NULL, *work = NULL;
	uint32_t *ranks = NULL, n = rondo_rank_count(t);
	int rc = pair_init(&p, t, out);

	if (!rc) {
		mult = malloc(sizeof(*mult) * ((size_t)rondo_sig_count(t) + 1));
		work = malloc(sizeof(*work) *
			      ((size_t)rondo_rule_count(t) + 1));
		ranks = malloc(sizeof(*ranks) * ((size_t)n + 1));
		if (!mult || !work || !ranks)
			rc = RONDO_E_NOMEM;
	}
	for (uint32_t g = 0; !rc && g < rondo_group_count(t); g++) {
		int64_t k = rondo_group_ranks(t, g, ranks, n);

		an_rule_mult(t, rondo_group_root(t, g), 0, mult, work);
		for (int64_t i = 0; !rc && i < k && i < n; i++)
			rc = pair_rank(&p, ranks[i], mult);
	}
	if (!rc)
		pair_judge(&p);
	pair_done(&p);
	free(mult);
	free(work);
	free(ranks);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}
