/*
 * matrix.c - the communication matrix, from rule multiplicities.
 *
 * Two steps.  First, how many times each signature occurs in a rank's
 * calls: for a rank group, by dynamic programming over its root's rules
 * (an_rule_mult: a rule's multiplicity is the sum, over the rule bodies
 * that name it, of the body's multiplicity times the repeat count; rules
 * name only rules with smaller ids, so one pass from the root down visits
 * each rule once); for checking, by walking the calls (an_matrix_walk).
 * Second, for every rank, each signature that moves data adds its
 * multiplicity to the cells it names, its peers resolved to world ranks
 * through the communicator table.  The second step costs the signatures
 * that move data times the ranks (times the peers, for a collective),
 * whatever the number of calls.  With a window of time
 * (an_matrix_window), the first step counts only the calls that start in
 * it, decoding every call with its time.
 *
 * Resolving a call's communicator and peers to world ranks is librondo's
 * (rondo_comm_resolve, rondo_peer), as for the other analyses that match
 * calls across ranks (skew.c, waits.c).
 *
 * What counts (the convention of the README and rondo(1)):
 * - point-to-point: one message per send at the sender, count × size of
 *   the datatype bytes; persistent sends at each MPI_Start that starts
 *   them; sends to MPI_PROC_NULL are counted apart, receives never;
 * - collectives, on request: what each rank contributes to each other
 *   member (nothing to itself), one message per call and peer when the
 *   contribution's count is not 0; see coll_add().
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "matrix.h"
#include "sat.h"
#include "util.h"

/* How many times body[k] of rule r runs when the rule runs w times. */
static uint64_t sym_mult(const rondo_trace *t, uint32_t r, uint32_t k,
			 const rondo_sym *s, int sums, uint64_t w)
{
	rondo_merged_loop h;
	double n;

	if (!sums || rondo_loop_hist(t, r, k, &h) != 1 || !h.loops)
		return sat_mul(w, s->count);
	n = (double)w * (double)h.sum / (double)h.loops + 0.5;
	return n >= 0x1p63 ? UINT64_MAX / 2 : (uint64_t)n;
}

void an_rule_mult(const rondo_trace *t, uint32_t root, int sums, uint64_t *mult,
		  uint64_t *work)
{
	memset(mult, 0, sizeof(*mult) * rondo_sig_count(t));
	if (root >= rondo_rule_count(t))
		return;
	memset(work, 0, sizeof(*work) * ((size_t)root + 1));
	work[root] = 1;
	for (uint32_t r = root + 1; r-- > 0;) {
		const rondo_sym *body;
		uint32_t len;

		if (!work[r] || rondo_rule_body(t, r, &body, &len) < 0)
			continue;
		for (uint32_t k = 0; k < len; k++) {
			uint64_t n = sym_mult(t, r, k, &body[k], sums, work[r]),
				 *to;

			/* a rank's calls are fewer than 2^63 (the reader
			 * checks), but rules that expand to nothing are not
			 * bounded: they must not wrap either */
			to = RONDO_SYM_IS_RULE(body[k].sym)
				     ? &work[RONDO_SYM_ID(body[k].sym)]
				     : &mult[body[k].sym];
			*to = sat_add(*to, n);
		}
	}
}

/* ---- what each function moves -------------------------------------------- */

enum op {
	OP_NONE,
	OP_SEND,       /* dest, count, datatype, tag, comm */
	OP_SEND_INIT,  /* the same, counted at MPI_Start */
	OP_START,      /* request */
	OP_STARTALL,   /* array_of_requests */
	OP_BCAST,      /* root → all: count, datatype */
	OP_REDUCE,     /* all → root: count, datatype */
	OP_ALLREDUCE,  /* all → all: count, datatype */
	OP_GATHER,     /* all → root: sendcount, sendtype */
	OP_SCATTER,    /* root → all: sendcount, sendtype */
	OP_SCATTERV,   /* root → i: sendcounts[i], sendtype */
	OP_ALLGATHER,  /* all → all: sendcount, sendtype (in place: recv*) */
	OP_ALLGATHERV, /* all → all: sendcount (in place: recvcounts[me]) */
	OP_ALLTOALL,   /* i → j: sendcount, sendtype (in place: recv*) */
	OP_ALLTOALLV,  /* i → j: sendcounts[j], sendtype (in place: recv*) */
	OP_ALLTOALLW,  /* i → j: sendcounts[j], sendtypes[j] */
	OP_RSB,	       /* i → j: recvcount, datatype */
	OP_RS,	       /* i → j: recvcounts[j], datatype */
	OP_SCAN,       /* i → j > i: count, datatype */
};

static const struct fn {
	const char *name;
	enum op op;
} fns[] = {
	{"MPI_Send", OP_SEND},
	{"MPI_Ssend", OP_SEND},
	{"MPI_Bsend", OP_SEND},
	{"MPI_Rsend", OP_SEND},
	{"MPI_Isend", OP_SEND},
	{"MPI_Issend", OP_SEND},
	{"MPI_Ibsend", OP_SEND},
	{"MPI_Irsend", OP_SEND},
	{"MPI_Sendrecv", OP_SEND},
	{"MPI_Sendrecv_replace", OP_SEND},
	{"MPI_Isendrecv", OP_SEND},
	{"MPI_Isendrecv_replace", OP_SEND},
	{"MPI_Send_init", OP_SEND_INIT},
	{"MPI_Ssend_init", OP_SEND_INIT},
	{"MPI_Bsend_init", OP_SEND_INIT},
	{"MPI_Rsend_init", OP_SEND_INIT},
	{"MPI_Start", OP_START},
	{"MPI_Startall", OP_STARTALL},
	{"MPI_Bcast", OP_BCAST},
	{"MPI_Ibcast", OP_BCAST},
	{"MPI_Reduce", OP_REDUCE},
	{"MPI_Ireduce", OP_REDUCE},
	{"MPI_Allreduce", OP_ALLREDUCE},
	{"MPI_Iallreduce", OP_ALLREDUCE},
	{"MPI_Gather", OP_GATHER},
	{"MPI_Igather", OP_GATHER},
	{"MPI_Gatherv", OP_GATHER},
	{"MPI_Igatherv", OP_GATHER},
	{"MPI_Scatter", OP_SCATTER},
	{"MPI_Iscatter", OP_SCATTER},
	{"MPI_Scatterv", OP_SCATTERV},
	{"MPI_Iscatterv", OP_SCATTERV},
	{"MPI_Allgather", OP_ALLGATHER},
	{"MPI_Iallgather", OP_ALLGATHER},
	{"MPI_Allgatherv", OP_ALLGATHERV},
	{"MPI_Iallgatherv", OP_ALLGATHERV},
	{"MPI_Alltoall", OP_ALLTOALL},
	{"MPI_Ialltoall", OP_ALLTOALL},
	{"MPI_Alltoallv", OP_ALLTOALLV},
	{"MPI_Ialltoallv", OP_ALLTOALLV},
	{"MPI_Alltoallw", OP_ALLTOALLW},
	{"MPI_Ialltoallw", OP_ALLTOALLW},
	{"MPI_Reduce_scatter_block", OP_RSB},
	{"MPI_Ireduce_scatter_block", OP_RSB},
	{"MPI_Reduce_scatter", OP_RS},
	{"MPI_Ireduce_scatter", OP_RS},
	{"MPI_Scan", OP_SCAN},
	{"MPI_Iscan", OP_SCAN},
	{"MPI_Exscan", OP_SCAN},
	{"MPI_Iexscan", OP_SCAN},
};

static enum op op_of(const char *name)
{
	for (size_t i = 0; name && i < COUNTOF(fns); i++)
		if (!strcmp(fns[i].name, name))
			return fns[i].op;
	return OP_NONE;
}

static int is_coll(enum op op)
{
	return op >= OP_BCAST;
}

/* ---- the state of one computation ---------------------------------------- */

struct ctx {
	const rondo_trace *t;
	const struct an_filter *f;
	struct an_matrix *m;
	uint32_t nsig;
	uint8_t *op;	/* by signature: enum op, OP_NONE if not counted */
	uint32_t *todo; /* the signatures whose op is not OP_NONE */
	uint32_t ntodo;
	uint32_t *req_sig; /* by request id: the init signature (per rank) */
	uint32_t nreq;
	int failed;
	uint64_t *edge;	  /* an_matrix_window's edges: messages summed
			     here, not in cells (c->m a scratch matrix) */
	an_send_fn *send; /* an_sends_rank: messages go to it, not to cells */
	void *send_arg;
	int send_rc; /* its first failure */
};

/* The matrix's own shorthands. */
static rondo_arg arg(const struct ctx *c, uint32_t s, const char *name)
{
	return an_arg(c->t, s, name);
}

static int is_const(const struct ctx *c, const rondo_arg *a, const char *name)
{
	return an_is_const(c->t, a, name);
}

/* The communicator value v as world rank `rank` sees it; -1 when the
 * trace does not say (librondo's resolver, ranks.c). */
static int comm_get(struct ctx *c, const rondo_arg *v, uint32_t rank,
		    rondo_comm_ref *cm)
{
	return rondo_comm_resolve(c->t, v, rank, cm) < 0 ? -1 : 0;
}

/* ---- adding to the cells ------------------------------------------------- */

/* Totals stop at SAT_MAX (sat.h): 2^62 messages of 2^60 elements are a
 * valid trace. */
static void cell(struct ctx *c, uint32_t src, int64_t dst, uint64_t msgs,
		 uint64_t bytes)
{
	size_t at = (size_t)src * c->m->n + (size_t)dst;
	uint64_t *m, *b;

	if (c->edge && dst >= 0 && dst < c->m->n) {
		*c->edge = sat_add(*c->edge, msgs);
		return;
	}
	m = &c->m->msgs[at];
	b = &c->m->bytes[at];
	if (dst < 0 || dst >= c->m->n) {
		c->m->unresolved = sat_add(c->m->unresolved, msgs);
		return;
	}
	*m = sat_add(*m, msgs);
	*b = sat_add(*b, bytes);
}

/* count × the datatype's size, times n calls; an unknown size counts the
 * messages with 0 bytes (m->nosize).  A count merged at the precision
 * counts its calls' exact mean (an_count): a pair's bytes are within the
 * precision, and the totals those of the program (to a byte a cell). */
static uint64_t bytes_of(struct ctx *c, int64_t count, double mean,
			 const rondo_arg *type, uint64_t n)
{
	int64_t size = rondo_type_size(c->t, type);
	double b;

	if (count <= 0)
		return 0;
	if (size < 0) {
		c->m->nosize = sat_add(c->m->nosize, n);
		return 0;
	}
	if (mean == (double)count)
		return sat_mul(sat_mul((uint64_t)count, (uint64_t)size), n);
	b = mean * (double)size * (double)n + 0.5;
	return b >= 0x1p63 ? SAT_MAX : (uint64_t)b;
}

static int tag_ok(const struct ctx *c, const rondo_arg *tag,
		  const rondo_comm_ref *cm)
{
	rondo_arg at;
	int64_t v;

	if (c->f->tag == AN_ANY)
		return 1;
	if (tag->kind == RONDO_ARG_VARY) { /* the caller's own */
		if (rondo_arg_at_rank(c->t, tag, cm->world, &at) < 0)
			return 0;
		tag = &at;
	}
	if (tag->wire != RONDO_WIRE_SINT)
		return 0;
	v = tag->kind == RONDO_ARG_REL ? (int64_t)cm->rank + tag->i : tag->i;
	return v == c->f->tag;
}

static int comm_ok(const struct ctx *c, const rondo_comm_ref *cm)
{
	return c->f->comm == AN_ANY || c->f->comm == cm->id;
}

static int func_ok(const struct ctx *c, uint32_t s)
{
	return !c->f->func ||
	       !strcasecmp(rondo_func_name(c->t, rondo_sig_func(c->t, s)),
			   c->f->func);
}

/* A send of signature s (a send, or the init a start names), n times. */
static void p2p_add(struct ctx *c, uint32_t rank, uint32_t s, uint64_t n)
{
	rondo_arg v = arg(c, s, "comm"), dest, tag, type;
	const char *cname;
	rondo_comm_ref cm;
	int64_t to, count;
	double mean;

	if (comm_get(c, &v, rank, &cm) < 0) {
		c->m->unresolved = sat_add(c->m->unresolved, n);
		return;
	}
	tag = arg(c, s, "tag");
	if (tag.kind == RONDO_ARG_NULL)
		tag = arg(c, s, "sendtag");
	if (!comm_ok(c, &cm) || !tag_ok(c, &tag, &cm))
		return;
	cname = "count";
	type = arg(c, s, "datatype");
	if (arg(c, s, "count").kind == RONDO_ARG_NULL) { /* Sendrecv */
		cname = "sendcount";
		type = arg(c, s, "sendtype");
	}
	dest = arg(c, s, "dest");
	to = rondo_peer(c->t, &cm, &dest, NULL);
	if (to == RONDO_PEER_PROC_NULL) {
		c->m->proc_null = sat_add(c->m->proc_null, n);
		return;
	}
	if (to == RONDO_PEER_INVALID) /* MPI refused it: no message */
		return;
	if (c->send) {
		int rc = 0;

		if (to < 0 || to >= c->m->n)
			c->m->unresolved = sat_add(c->m->unresolved, n);
		else
			rc = c->send(c->send_arg, rank, &cm, to, n);
		if (rc < 0 && !c->send_rc)
			c->send_rc = rc;
		return;
	}
	count = an_count(c->t, s, cname, &mean);
	cell(c, rank, to, n, to < 0 ? 0 : bytes_of(c, count, mean, &type, n));
}

/* Element k of an array value as a count, or -1. */
static int64_t elem_int(const rondo_arg *a, uint64_t k)
{
	rondo_arg e;

	if (a->wire != RONDO_WIRE_LIST || k >= a->n ||
	    rondo_arg_elem(a, k, &e) < 0)
		return -1;
	return an_int(&e);
}

/* What rank `rank` contributes to each other member in collective s, n
 * times (the convention in the header comment and rondo(1)). */
static void coll_add(struct ctx *c, uint32_t rank, uint32_t s, enum op op,
		     uint64_t n)
{
	rondo_arg v = arg(c, s, "comm"), type, counts, types, e;
	int in_place = 0;
	int64_t root = -1, count = -1;
	double mean = -1;
	rondo_comm_ref cm;
	uint32_t size;

	if (comm_get(c, &v, rank, &cm) < 0 || cm.first) {
		c->m->unresolved =
			sat_add(c->m->unresolved,
				n); /* intercommunicator collectives too */
		return;
	}
	if (!comm_ok(c, &cm) || c->f->tag != AN_ANY)
		return;
	size = cm.size;
	v = arg(c, s, "sendbuf");
	in_place = is_const(c, &v, "MPI_IN_PLACE");
	if (op == OP_BCAST || op == OP_REDUCE || op == OP_GATHER ||
	    op == OP_SCATTER || op == OP_SCATTERV) {
		v = arg(c, s, "root");
		if (v.kind != RONDO_ARG_RANK || v.wire != RONDO_WIRE_SINT ||
		    v.i < 0 || v.i >= size) {
			c->m->unresolved = sat_add(c->m->unresolved, n);
			return;
		}
		root = v.i;
	}
	switch (op) {
	case OP_BCAST:
	case OP_REDUCE:
	case OP_ALLREDUCE:
	case OP_SCAN:
	case OP_RSB:
		count = an_count(c->t, s, op == OP_RSB ? "recvcount" : "count",
				 &mean);
		type = arg(c, s, "datatype");
		break;
	case OP_GATHER:
	case OP_SCATTER:
		count = an_count(c->t, s, "sendcount", &mean);
		type = arg(c, s, "sendtype");
		break;
	case OP_ALLGATHER:
	case OP_ALLTOALL:
		count = an_count(c->t, s, in_place ? "recvcount" : "sendcount",
				 &mean);
		type = arg(c, s, in_place ? "recvtype" : "sendtype");
		break;
	case OP_ALLGATHERV:
		if (in_place) {
			v = arg(c, s, "recvcounts");
			count = elem_int(&v, (uint64_t)cm.rank);
			mean = (double)count;
		} else {
			count = an_count(c->t, s, "sendcount", &mean);
		}
		type = arg(c, s, in_place ? "recvtype" : "sendtype");
		break;
	case OP_SCATTERV:
	case OP_ALLTOALLV:
	case OP_ALLTOALLW:
	case OP_RS:
		counts = arg(c, s,
			     op == OP_RS ? "recvcounts"
			     : in_place	 ? "recvcounts"
					 : "sendcounts");
		type = arg(c, s,
			   op == OP_RS ? "datatype"
			   : in_place  ? "recvtype"
				       : "sendtype");
		types = arg(c, s, in_place ? "recvtypes" : "sendtypes");
		break;
	default: return;
	}
	for (uint32_t k = 0; k < size; k++) {
		int64_t cnt = count;
		double m = mean;
		int64_t to;

		if ((int64_t)k == (int64_t)cm.rank)
			continue;
		switch (op) {
		case OP_BCAST:
		case OP_SCATTER:
		case OP_SCATTERV:
			if ((int64_t)cm.rank != root)
				return;
			break;
		case OP_REDUCE:
		case OP_GATHER:
			if ((int64_t)cm.rank == root || (int64_t)k != root)
				continue;
			break;
		case OP_SCAN:
			if ((int64_t)k < (int64_t)cm.rank)
				continue;
			break;
		default: break;
		}
		if (op == OP_SCATTERV || op == OP_ALLTOALLV ||
		    op == OP_ALLTOALLW || op == OP_RS)
			m = (double)(cnt = elem_int(&counts, k));
		if (op == OP_ALLTOALLW) { /* a datatype per peer */
			if (types.wire == RONDO_WIRE_LIST && k < types.n &&
			    rondo_arg_elem(&types, k, &e) == 0)
				type = e;
			else
				cnt = -1;
		}
		if (cnt < 0) {
			c->m->unresolved = sat_add(c->m->unresolved, n);
			continue;
		}
		if (cnt == 0)
			continue;
		to = rondo_comm_world(c->t, &cm, k);
		cell(c, rank, to, n,
		     to < 0 ? 0 : bytes_of(c, cnt, m, &type, n));
	}
}

/* Persistent sends: which init signature made each request id, among the
 * signatures this rank calls (ids come from pools per creating signature,
 * so an id has one creator; two would be unresolvable: UINT32_MAX - 1). */
static int req_map(struct ctx *c, const uint64_t *mult)
{
	for (uint32_t i = 0; i < c->nreq; i++)
		c->req_sig[i] = UINT32_MAX;
	for (uint32_t k = 0; k < c->ntodo; k++) {
		uint32_t s = c->todo[k], id;
		rondo_arg r;

		if (c->op[s] != OP_SEND_INIT || !mult[s])
			continue;
		r = arg(c, s, "request");
		id = an_req_id(&r);
		if (id == UINT32_MAX)
			continue;
		if (id >= c->nreq) {
			uint32_t n = c->nreq ? c->nreq : 16, *p;

			while (n <= id)
				n *= 2;
			p = realloc(c->req_sig, sizeof(*p) * n);
			if (!p)
				return -1;
			for (uint32_t i = c->nreq; i < n; i++)
				p[i] = UINT32_MAX;
			c->req_sig = p;
			c->nreq = n;
		}
		c->req_sig[id] =
			c->req_sig[id] == UINT32_MAX ? s : UINT32_MAX - 1;
	}
	return 0;
}

/* A request started n times; `named` is set when the function filter
 * names the start call itself (else it must name the init's). */
static void start_add(struct ctx *c, uint32_t rank, const rondo_arg *r,
		      uint64_t n, int named)
{
	uint32_t id = an_req_id(r), s;

	if (id == UINT32_MAX)
		return; /* MPI_REQUEST_NULL, or a receive's */
	s = id < c->nreq ? c->req_sig[id] : UINT32_MAX;
	if (s == UINT32_MAX)
		return; /* not a send's: a persistent receive */
	if (s == UINT32_MAX - 1) {
		c->m->unresolved = sat_add(c->m->unresolved, n);
		return;
	}
	if (named || func_ok(c, s))
		p2p_add(c, rank, s, n);
}

/* Everything rank `rank` sent, its calls counted in mult[]; made[]
 * counts the calls that may have made the requests it starts (all the
 * rank's calls, when mult[] counts a window of them). */
static void rank_add(struct ctx *c, uint32_t rank, const uint64_t *mult,
		     const uint64_t *made)
{
	if (req_map(c, made) < 0) {
		c->failed = 1;
		return;
	}
	for (uint32_t k = 0; k < c->ntodo; k++) {
		uint32_t s = c->todo[k];
		enum op op = (enum op)c->op[s];
		rondo_arg r;

		if (!mult[s])
			continue;
		if (op == OP_START || op == OP_STARTALL) {
			int named = c->f->func && func_ok(c, s);

			r = arg(c, s,
				op == OP_START ? "request"
					       : "array_of_requests");
			if (op == OP_START) {
				start_add(c, rank, &r, mult[s], named);
				continue;
			}
			for (uint64_t e = 0;
			     r.wire == RONDO_WIRE_LIST && e < r.n; e++) {
				rondo_arg q;

				if (rondo_arg_elem(&r, e, &q) == 0)
					start_add(c, rank, &q, mult[s], named);
			}
			continue;
		}
		if (!func_ok(c, s))
			continue;
		if (op == OP_SEND)
			p2p_add(c, rank, s, mult[s]);
		else if (is_coll(op))
			coll_add(c, rank, s, op, mult[s]);
	}
}

/* Sets up c: which signatures count, the matrix zeroed (its cells made
 * when `cells` is set). */
static int ctx_init(struct ctx *c, const rondo_trace *t,
		    const struct an_filter *f, struct an_matrix *m, int cells)
{
	static const struct an_filter all = {AN_ANY, NULL, AN_ANY, 0, 1};
	uint32_t n = rondo_rank_count(t);

	memset(c, 0, sizeof(*c));
	memset(m, 0, sizeof(*m));
	c->t = t;
	c->f = f ? f : &all;
	c->m = m;
	c->nsig = rondo_sig_count(t);
	m->n = n;
	if (cells) {
		m->msgs = calloc((size_t)n * n + 1, sizeof(uint64_t));
		m->bytes = calloc((size_t)n * n + 1, sizeof(uint64_t));
		if (!m->msgs || !m->bytes)
			return RONDO_E_NOMEM;
	}
	c->op = calloc(c->nsig + 1, 1);
	c->todo = malloc(sizeof(uint32_t) * (c->nsig + 1));
	if (!c->op || !c->todo)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < c->nsig; s++) {
		enum op op = op_of(rondo_func_name(t, rondo_sig_func(t, s)));

		if (op == OP_NONE || (is_coll(op) && !c->f->collectives) ||
		    (!is_coll(op) && !c->f->p2p))
			continue;
		c->op[s] = (uint8_t)op;
		c->todo[c->ntodo++] = s;
	}
	return 0;
}

static int ctx_done(struct ctx *c, int rc)
{
	free(c->op);
	free(c->todo);
	free(c->req_sig);
	if (!rc && c->failed)
		rc = RONDO_E_NOMEM;
	if (rc)
		an_matrix_free(c->m);
	return rc;
}

int an_matrix(const rondo_trace *t, const struct an_filter *f,
	      struct an_matrix *m)
{
	struct ctx c;
	uint64_t *mult = NULL, *work = NULL;
	uint32_t *ranks = NULL;
	int rc = ctx_init(&c, t, f, m, 1);

	if (!rc) {
		mult = malloc(sizeof(*mult) * (c.nsig + 1));
		work = malloc(sizeof(*work) * (rondo_rule_count(t) + 1));
		ranks = malloc(sizeof(*ranks) * (m->n + 1));
		if (!mult || !work || !ranks)
			rc = RONDO_E_NOMEM;
	}
	for (uint32_t g = 0; !rc && g < rondo_group_count(t); g++) {
		int64_t k = rondo_group_ranks(t, g, ranks, m->n);

		an_rule_mult(t, rondo_group_root(t, g), 1, mult, work);
		for (int64_t i = 0; i < k && i < m->n && !c.failed; i++)
			rank_add(&c, ranks[i], mult, mult);
	}
	free(mult);
	free(work);
	free(ranks);
	return ctx_done(&c, rc);
}

/* The sends of one rank at a time, by the rules above, for an analysis
 * that keys them otherwise (pairing.c): a context without cells. */
struct an_sends {
	struct ctx c;
	struct an_matrix m;
};

int an_sends_open(const rondo_trace *t, struct an_sends **out)
{
	struct an_sends *s = calloc(1, sizeof(*s));
	int rc;

	*out = NULL;
	if (!s)
		return RONDO_E_NOMEM;
	rc = ctx_init(&s->c, t, NULL, &s->m, 0);
	if (rc) {
		ctx_done(&s->c, rc);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int an_sends_rank(struct an_sends *s, uint32_t rank, const uint64_t *mult,
		  an_send_fn *fn, void *arg, uint64_t *unresolved)
{
	s->c.send = fn;
	s->c.send_arg = arg;
	s->c.send_rc = 0;
	s->m.unresolved = 0;
	rank_add(&s->c, rank, mult, mult);
	s->c.send = NULL;
	if (unresolved)
		*unresolved = s->m.unresolved;
	return s->c.failed ? RONDO_E_NOMEM : s->c.send_rc;
}

void an_sends_free(struct an_sends *s)
{
	if (!s)
		return;
	ctx_done(&s->c, 0);
	free(s);
}

/* Rank r's calls counted one by one: all of them in made[], and in
 * mult[] those starting in [w[0], w[1]) with a window w (else all); of
 * those, in edge[0] the ones whose start less its error bound is before
 * w[0], and in edge[1] those starting at w[1] or later but less their
 * bound before it.  Calls without times count in made[] alone
 * (m->untimed).  0, or a RONDO_E_* code. */
static int walk_rank(struct ctx *c, uint32_t r, const int64_t *w,
		     uint64_t *mult, uint64_t *made, uint64_t *const *edge)
{
	rondo_iter *it = w ? rondo_iter_create_timed(c->t, r)
			   : rondo_iter_create(c->t, r);
	int64_t start, err;
	uint32_t s;
	int k;

	if (!it)
		return RONDO_E_NOMEM;
	memset(mult, 0, sizeof(*mult) * c->nsig);
	if (w) {
		memset(made, 0, sizeof(*made) * c->nsig);
		memset(edge[0], 0, sizeof(*edge[0]) * c->nsig);
		memset(edge[1], 0, sizeof(*edge[1]) * c->nsig);
	}
	while ((k = rondo_iter_next(it, &s)) == 1) {
		if (!w) {
			mult[s]++;
			continue;
		}
		made[s]++;
		if (rondo_iter_time(it, &start, NULL) < 0 ||
		    rondo_iter_time_bound(it, &err, NULL) < 0) {
			c->m->untimed++;
			continue;
		}
		if (start >= w[0] && start < w[1]) {
			mult[s]++;
			edge[0][s] += start - err < w[0];
		} else if (start >= w[1] && start - err < w[1]) {
			edge[1][s]++;
		}
	}
	rondo_iter_free(it);
	return k;
}

/* The messages of the edges' calls of rank r, summed into m's. */
static void edges_add(struct ctx *c, uint32_t r, uint64_t *const *edge,
		      const uint64_t *made)
{
	struct an_matrix *m = c->m, scratch = {.n = m->n};
	uint64_t *sum[2] = {&m->edge_in, &m->edge_out};

	c->m = &scratch;
	for (int i = 0; i < 2; i++) {
		c->edge = sum[i];
		rank_add(c, r, edge[i], made);
	}
	c->edge = NULL;
	c->m = m;
}

/* an_matrix_walk, and with a window an_matrix_window. */
static int matrix_walk(const rondo_trace *t, const struct an_filter *f,
		       const int64_t *w, struct an_matrix *m)
{
	struct ctx c;
	uint64_t *mult = NULL, *made = NULL, *edge[2] = {NULL, NULL};
	int rc = ctx_init(&c, t, f, m, 1);

	if (!rc && w && rondo_timing_mode(t, NULL) != RONDO_TIMING_PERCALL)
		rc = RONDO_E_MISSING;
	if (!rc) {
		mult = malloc(sizeof(*mult) * (c.nsig + 1));
		made = w ? malloc(sizeof(*made) * (c.nsig + 1)) : mult;
		for (int i = 0; w && i < 2; i++)
			edge[i] = malloc(sizeof(*edge[i]) * (c.nsig + 1));
		if (!mult || !made || (w && (!edge[0] || !edge[1])))
			rc = RONDO_E_NOMEM;
	}
	for (uint32_t r = 0; !rc && r < m->n && !c.failed; r++) {
		rc = walk_rank(&c, r, w, mult, made, edge);
		if (!rc)
			rank_add(&c, r, mult, made);
		if (!rc && w)
			edges_add(&c, r, edge, made);
	}
	if (made != mult)
		free(made);
	free(mult);
	free(edge[0]);
	free(edge[1]);
	return ctx_done(&c, rc);
}

int an_matrix_walk(const rondo_trace *t, const struct an_filter *f,
		   struct an_matrix *m)
{
	return matrix_walk(t, f, NULL, m);
}

int an_matrix_window(const rondo_trace *t, const struct an_filter *f,
		     int64_t from_ns, int64_t to_ns, struct an_matrix *m)
{
	const int64_t w[2] = {from_ns, to_ns};

	return matrix_walk(t, f, w, m);
}

void an_matrix_free(struct an_matrix *m)
{
	if (!m)
		return;
	free(m->msgs);
	free(m->bytes);
	m->msgs = m->bytes = NULL;
}

int an_matrix_csv(const struct an_matrix *m, FILE *out, int wide, int what)
{
	const uint64_t *v = what ? m->bytes : m->msgs;
	size_t n = m->n;

	if (!wide) {
		fputs("src,dst,messages,bytes\n", out);
		for (size_t i = 0; i < n * n; i++)
			if (m->msgs[i] || m->bytes[i])
				fprintf(out, "%zu,%zu,%llu,%llu\n", i / n,
					i % n, (unsigned long long)m->msgs[i],
					(unsigned long long)m->bytes[i]);
	} else {
		fputs("src", out);
		for (size_t j = 0; j < n; j++)
			fprintf(out, ",%zu", j);
		fputc('\n', out);
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%zu", i);
			for (size_t j = 0; j < n; j++)
				fprintf(out, ",%llu",
					(unsigned long long)v[i * n + j]);
			fputc('\n', out);
		}
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
