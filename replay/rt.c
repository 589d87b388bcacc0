/*
 * rt.c - rondo-replay's state and the accessors of the generated calls:
 * signatures decoded once per rank, handles and memory in tables indexed
 * by the trace's symbolic ids, predefined handles by their names, and the
 * look-ahead that finds what a wildcard receive matched.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "stats.h"

/* ---- predefined handles and constants, by name --------------------------- */

#define N(x)                                                                   \
	{                                                                      \
#x, x                                                          \
	}
static const struct {
	const char *name;
	MPI_Datatype h;
} k_types[] = {
	N(MPI_DATATYPE_NULL),
	N(MPI_CHAR),
	N(MPI_SIGNED_CHAR),
	N(MPI_UNSIGNED_CHAR),
	N(MPI_BYTE),
	N(MPI_WCHAR),
	N(MPI_SHORT),
	N(MPI_UNSIGNED_SHORT),
	N(MPI_INT),
	N(MPI_UNSIGNED),
	N(MPI_LONG),
	N(MPI_UNSIGNED_LONG),
	N(MPI_LONG_LONG_INT),
	N(MPI_UNSIGNED_LONG_LONG),
	N(MPI_FLOAT),
	N(MPI_DOUBLE),
	N(MPI_LONG_DOUBLE),
	N(MPI_INT8_T),
	N(MPI_INT16_T),
	N(MPI_INT32_T),
	N(MPI_INT64_T),
	N(MPI_UINT8_T),
	N(MPI_UINT16_T),
	N(MPI_UINT32_T),
	N(MPI_UINT64_T),
	N(MPI_C_BOOL),
	N(MPI_C_FLOAT_COMPLEX),
	N(MPI_C_DOUBLE_COMPLEX),
	N(MPI_AINT),
	N(MPI_OFFSET),
	N(MPI_COUNT),
	N(MPI_PACKED),
	N(MPI_FLOAT_INT),
	N(MPI_DOUBLE_INT),
	N(MPI_LONG_INT),
	N(MPI_2INT),
	N(MPI_SHORT_INT),
	N(MPI_LONG_DOUBLE_INT),
	N(MPI_INTEGER),
	N(MPI_REAL),
	N(MPI_DOUBLE_PRECISION),
	N(MPI_COMPLEX),
	N(MPI_DOUBLE_COMPLEX),
	N(MPI_LOGICAL),
	N(MPI_CHARACTER),
	N(MPI_2INTEGER),
	N(MPI_2REAL),
	N(MPI_2DOUBLE_PRECISION),
	N(MPI_INTEGER1),
	N(MPI_INTEGER2),
	N(MPI_INTEGER4),
	N(MPI_INTEGER8),
	N(MPI_REAL4),
	N(MPI_REAL8),
};
static const struct {
	const char *name;
	MPI_Op h;
} k_ops[] = {
	N(MPI_OP_NULL), N(MPI_MAX),	N(MPI_MIN),   N(MPI_SUM),
	N(MPI_PROD),	N(MPI_LAND),	N(MPI_BAND),  N(MPI_LOR),
	N(MPI_BOR),	N(MPI_LXOR),	N(MPI_BXOR),  N(MPI_MAXLOC),
	N(MPI_MINLOC),	N(MPI_REPLACE), N(MPI_NO_OP),
};
static const struct {
	const char *name;
	int64_t v;
} k_ints[] = {
	N(MPI_ANY_SOURCE), N(MPI_ANY_TAG),   N(MPI_PROC_NULL),
	N(MPI_ROOT),	   N(MPI_UNDEFINED),
};
#undef N

/* What a constant of the trace stands for, by class (filled at start). */
struct kval {
	int is_type, is_op, is_int;
	MPI_Datatype type;
	MPI_Op op;
	int64_t v;
	const char *name;
};

/* ---- handle tables --------------------------------------------------- */

struct tab {
	void *v;
	size_t n, size;
};

static void *tab_at(struct tab *t, int64_t id, const void *init)
{
	if (id < 0)
		id = 0;
	if ((size_t)id >= t->n) {
		size_t n = t->n ? t->n : 16;
		while (n <= (size_t)id)
			n *= 2;
		char *v = realloc(t->v, n * t->size);
		if (!v) {
			fprintf(stderr, "rondo-replay: out of memory\n");
			exit(1);
		}
		for (size_t k = t->n; k < n; k++)
			memcpy(v + k * t->size, init, t->size);
		t->v = v;
		t->n = n;
	}
	return (char *)t->v + (size_t)id * t->size;
}

/* A segment: the memory a buffer id names. */
struct seg {
	char *p;
	size_t size;
	int external; /* MPI's memory (Alloc_mem): not ours to free */
	int64_t win;  /* the window MPI_Win_allocate made it for, or -1 */
};

static struct {
	const rondo_trace *t;
	uint32_t rank;
	struct rp_options o;
	double gap_factor; /* rank_gap_factor() */
	double gap_norm;   /* its k: the gaps' share of the time outside MPI */
	double percall_factor; /* percall_gap_factor() */
	struct rp_sig *sigs;
	uint32_t nsigs;
	struct kval *k;
	uint32_t nk;
	struct tab comm, group, type, op, info, errh, win, file, req, msg, seg;
	void **retired; /* segments outgrown: kept until the end */
	size_t nretired, capretired;
	MPI_Status status; /* the status the calls write, and read */
	MPI_Status *statuses;
	size_t nstatuses;
	MPI_Request *reqs;
	size_t nreqs;
	void *scratch;
	size_t nscratch;
	rondo_iter *la;
	void (*hint)(int, int);
	void (*stand)(const MPI_Request *, const MPI_Request *, int);
	int hint_looked;
} rt;

static const MPI_Comm comm_null = MPI_COMM_NULL;
static const MPI_Group group_null = MPI_GROUP_NULL;
static const MPI_Datatype type_null = MPI_DATATYPE_NULL;
static const MPI_Op op_null = MPI_OP_NULL;
static const MPI_Info info_null = MPI_INFO_NULL;
static const MPI_Errhandler errh_null = MPI_ERRHANDLER_NULL;
static const MPI_Win win_null = MPI_WIN_NULL;
static const MPI_File file_null = MPI_FILE_NULL;
static const MPI_Request req_null = MPI_REQUEST_NULL;
static const MPI_Message msg_null = MPI_MESSAGE_NULL;
static const struct seg seg_none = {NULL, 0, 0, -1};

static void die_nomem(void)
{
	fprintf(stderr, "rondo-replay: out of memory\n");
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_nomem();
	return p;
}

const rondo_trace *rp_trace(void)
{
	return rt.t;
}

int rp_polls(void)
{
	return rt.o.polls;
}

/* The time a rank whose calls are rule `root` would spend outside MPI at
 * the signatures' mean gaps: its calls of each signature (rule
 * multiplicities from the root, never the calls) times their means; 0
 * when the trace does not say. */
static double gaps_of_root(const rondo_trace *t, uint32_t root)
{
	uint32_t nr = rondo_rule_count(t), ns = rondo_sig_count(t);
	double *mult, *cnt, est = 0;
	rondo_stat g;

	if (root >= nr)
		return 0;
	mult = calloc(nr, sizeof *mult);
	cnt = calloc(ns ? ns : 1, sizeof *cnt);
	if (mult && cnt) {
		mult[root] = 1;
		/* a rule names only rules of smaller ids: one pass down */
		for (uint32_t r = root + 1; r-- > 0;) {
			const rondo_sym *body;
			uint32_t len;
			if (mult[r] == 0 ||
			    rondo_rule_body(t, r, &body, &len) < 0)
				continue;
			for (uint32_t k = 0; k < len; k++) {
				uint32_t id = RONDO_SYM_ID(body[k].sym);
				double m = mult[r] * (double)body[k].count;
				if (RONDO_SYM_IS_RULE(body[k].sym) && id < nr)
					mult[id] += m;
				else if (!RONDO_SYM_IS_RULE(body[k].sym) &&
					 id < ns)
					cnt[id] += m;
			}
		}
		for (uint32_t sg = 0; sg < ns; sg++)
			if (cnt[sg] > 0 && rondo_sig_gap_stat(t, sg, &g) == 0 &&
			    g.count)
				est += cnt[sg] * (double)g.total_ns /
				       (double)g.count;
	}
	free(mult);
	free(cnt);
	return est;
}

/*
 * How much longer or shorter than the signatures' means this rank computed.
 * The gaps the trace keeps are means over all ranks, so a rank that works
 * more than the others before the same call (a load imbalance) would be
 * replayed at the mean.  But the trace says how long each rank spent
 * outside MPI in all, out_r: the run time less its MPI time.  That is more
 * than its gaps (the tracer's own time per call is in it too), so the
 * factors keep the gaps' total over all ranks (which the means give
 * exactly) and share it out as the out_r do: factor_r = k out_r / est_r,
 * est_r the rank's gaps at the means (gaps_of_root, once per rank group),
 * k = sum est / sum out.  1 when the trace does not say.
 */
static double rank_gap_factor(const rondo_trace *t, uint32_t rank)
{
	uint32_t ng = rondo_group_count(t), nranks = rondo_rank_count(t);
	uint64_t run = an_run_ns(t), mpi;
	double sum_est = 0, sum_out = 0, est_me = 0, out_me = 0, f;
	uint32_t *ranks = NULL;

	if (!run)
		return 1;
	ranks = calloc(nranks ? nranks : 1, sizeof *ranks);
	for (uint32_t g = 0; ranks && g < ng; g++) {
		double est = gaps_of_root(t, rondo_group_root(t, g));
		int64_t n = rondo_group_ranks(t, g, ranks, nranks);
		for (int64_t k = 0; k < n && k < (int64_t)nranks; k++) {
			if (rondo_rank_mpi_time(t, ranks[k], &mpi) < 0 ||
			    mpi >= run) {
				free(ranks);
				return 1;
			}
			sum_est += est;
			sum_out += (double)(run - mpi);
			if (ranks[k] == rank) {
				est_me = est;
				out_me = (double)(run - mpi);
			}
		}
	}
	free(ranks);
	if (est_me <= 0 || sum_out <= 0)
		return 1;
	rt.gap_norm = sum_est / sum_out;
	f = sum_est / sum_out * out_me / est_me;
	/* a rank that computed 100 times the mean is no longer a mean's */
	return f > 0.01 && f < 100 ? f : 1;
}

/* With per-call times: the rank's gaps as the timed iterator reads them
 * back (each start late by up to b - 1 of the span from its reference,
 * each duration long by as much), summed, against what the rank spent
 * outside MPI in all (run time less MPI time, within 0.79%): the factor
 * that makes the one the other; times rank_gap_factor's k, for the
 * tracer's own time in the latter.  A walk of the rank's calls' times. */
static double percall_gap_factor(const rondo_trace *t, uint32_t rank)
{
	uint64_t run = an_run_ns(t), mpi = 0;
	rondo_iter *it = NULL;
	int64_t start, end, last = 0;
	double sum = 0;
	uint32_t sig;
	int have = 0;

	if (!run || rondo_rank_mpi_time(t, rank, &mpi) < 0 || mpi >= run ||
	    rondo_iter_open(t, rank, RONDO_ITER_TIMED, &it) < 0)
		return 1;
	while (rondo_iter_next(it, &sig) == 1 &&
	       rondo_iter_time(it, &start, &end) == 0) {
		if (have && start > last)
			sum += (double)(start - last);
		last = end;
		have = 1;
	}
	rondo_iter_free(it);
	if (sum <= 0)
		return 1;
	sum = (double)(run - mpi) / sum;
	return sum > 0.01 && sum < 100 ? sum : 1;
}

double rp_percall_factor(void)
{
	return rt.percall_factor;
}

int rp_start(const rondo_trace *t, uint32_t rank, const struct rp_options *o)
{
	free(rt.sigs); /* started again: MPI gave another rank */
	free(rt.k);
	rt.t = t;
	rt.rank = rank;
	rt.o = *o;
	rt.gap_norm = 1;
	rt.gap_factor = rank_gap_factor(t, rank);
	rt.percall_factor = o->percall && o->compute_scale > 0 &&
					    rondo_timing_mode(t, NULL) ==
						    RONDO_TIMING_PERCALL
				    ? percall_gap_factor(t, rank) * rt.gap_norm
				    : 1;
	rt.nsigs = rondo_sig_count(t);
	rt.sigs = xcalloc(rt.nsigs, sizeof *rt.sigs);
	rt.nk = rondo_const_count(t);
	rt.k = xcalloc(rt.nk, sizeof *rt.k);
	for (uint32_t i = 0; i < rt.nk; i++) {
		const char *n = rondo_const_name(t, i);
		struct kval *k = &rt.k[i];
		k->name = n ? n : "";
		for (size_t j = 0; n && j < sizeof k_types / sizeof *k_types;
		     j++)
			if (!strcmp(n, k_types[j].name)) {
				k->is_type = 1;
				k->type = k_types[j].h;
			}
		for (size_t j = 0; n && j < sizeof k_ops / sizeof *k_ops; j++)
			if (!strcmp(n, k_ops[j].name)) {
				k->is_op = 1;
				k->op = k_ops[j].h;
			}
		for (size_t j = 0; n && j < sizeof k_ints / sizeof *k_ints; j++)
			if (!strcmp(n, k_ints[j].name)) {
				k->is_int = 1;
				k->v = k_ints[j].v;
			}
	}
	rt.comm.size = sizeof(MPI_Comm);
	rt.group.size = sizeof(MPI_Group);
	rt.type.size = sizeof(MPI_Datatype);
	rt.op.size = sizeof(MPI_Op);
	rt.info.size = sizeof(MPI_Info);
	rt.errh.size = sizeof(MPI_Errhandler);
	rt.win.size = sizeof(MPI_Win);
	rt.file.size = sizeof(MPI_File);
	rt.req.size = sizeof(MPI_Request);
	rt.msg.size = sizeof(MPI_Message);
	rt.seg.size = sizeof(struct seg);
	return 0;
}

static const char *kname(const struct rp_val *v)
{
	if (v->kind != RONDO_ARG_CONST || v->i < 0 || (uint64_t)v->i >= rt.nk)
		return "";
	return rt.k[v->i].name;
}

static int is_const(const struct rp_val *v, const char *name)
{
	return v->kind == RONDO_ARG_CONST && !strcmp(kname(v), name);
}

static struct seg *seg_of(int64_t id)
{
	return tab_at(&rt.seg, id, &seg_none);
}

static void retire(void *p)
{
	if (rt.nretired == rt.capretired) {
		size_t n = rt.capretired ? 2 * rt.capretired : 16;
		void **r = realloc(rt.retired, n * sizeof *r);
		if (!r)
			die_nomem();
		rt.retired = r;
		rt.capretired = n;
	}
	rt.retired[rt.nretired++] = p;
}

/* Gives segment s at least `want` bytes: new memory, the old kept until
 * the end (an operation in flight may still use it). */
static void seg_grow(struct seg *s, size_t want)
{
	size_t n = s->size * 2 > want ? s->size * 2 : want;
	char *p = calloc(n, 1);
	if (!p)
		die_nomem();
	if (s->p && !s->external)
		retire(s->p);
	s->p = p;
	s->size = n;
	s->external = 0;
}

/* ---- decoding a signature ---------------------------------------------- */

static void decode(const rondo_arg *in, const rondo_comm_ref *cm, int raw,
		   struct rp_val *v)
{
	rondo_arg a, e;
	int64_t local = -1;

	memset(v, 0, sizeof *v);
	if (rondo_arg_at_rank(rt.t, in, rt.rank, &a) < 0)
		a = *in;
	v->kind = a.kind;
	v->i = a.wire == RONDO_WIRE_UINT ? (int64_t)a.u : a.i;
	switch (a.kind) {
	case RONDO_ARG_RANK:
	case RONDO_ARG_RANK_REL:
	case RONDO_ARG_CART_REL:
		if (raw || !cm)
			break;
		rondo_peer(rt.t, cm, &a, &local);
		if (local >= 0) {
			v->i = local;
			v->has_local = 1;
		}
		break;
	case RONDO_ARG_REL:
		if (!raw && cm && cm->rank != RONDO_RANK_NONE)
			v->i = (int64_t)cm->rank + a.i;
		break;
	case RONDO_ARG_BUFFER:
		if (rondo_arg_elem(&a, 0, &e) == 0)
			v->i = (int64_t)e.u;
		if (rondo_arg_elem(&a, 1, &e) == 0)
			v->off = e.i;
		break;
	case RONDO_ARG_DTYPE_SIZE:
		v->kind = RONDO_ARG_DATATYPE;
		if (rondo_arg_elem(&a, 0, &e) == 0)
			v->i = (int64_t)e.u;
		break;
	case RONDO_ARG_STRING:
	case RONDO_ARG_BYTES:
		v->bytes = a.data;
		v->size = a.size;
		break;
	case RONDO_ARG_ARRAY:
	case RONDO_ARG_STATUS:
		v->n = (uint32_t)a.n;
		v->e = xcalloc(v->n, sizeof *v->e);
		for (uint32_t k = 0; k < v->n; k++)
			if (rondo_arg_elem(&a, k, &e) == 0)
				decode(&e, cm,
				       raw || a.kind == RONDO_ARG_STATUS,
				       &v->e[k]);
		break;
	}
}

int rp_sig_prepare(uint32_t sig, struct rp_sig **out)
{
	struct rp_sig *s;
	rondo_comm_ref cm;
	rondo_arg a;
	rondo_stat g;
	int known;

	if (sig >= rt.nsigs)
		return RONDO_E_RANGE;
	s = &rt.sigs[sig];
	*out = s;
	if (s->ready)
		return 0;
	known = rondo_sig_comm(rt.t, sig, rt.rank, &cm) >= 0;
	s->nargs = rondo_sig_arg_count(rt.t, sig);
	s->v = xcalloc(s->nargs, sizeof *s->v);
	for (uint32_t k = 0; k < s->nargs; k++)
		if (rondo_sig_arg(rt.t, sig, k, &a) == 0)
			decode(&a, known ? &cm : NULL, 0, &s->v[k]);
	s->handler = -1;
	if (rt.o.compute_scale > 0 && rondo_sig_gap_stat(rt.t, sig, &g) == 0 &&
	    g.count)
		s->gap_ns = (double)g.total_ns / (double)g.count *
			    rt.o.compute_scale * rt.gap_factor;
	s->ready = 1;
	return 0;
}

static struct rp_val *val(struct rp_call *c, uint32_t k)
{
	static struct rp_val none;
	if (k >= c->s->nargs) {
		memset(&none, 0, sizeof none);
		return &none;
	}
	return &c->s->v[k];
}

/* ---- scalars --------------------------------------------------------- */

static int64_t scalar(const struct rp_val *v)
{
	if (v->kind == RONDO_ARG_CONST) {
		if (v->i >= 0 && (uint64_t)v->i < rt.nk && rt.k[v->i].is_int)
			return rt.k[v->i].v;
		return 0;
	}
	return v->i;
}

int64_t rp_int(struct rp_call *c, uint32_t k)
{
	return scalar(val(c, k));
}

int rp_rank(struct rp_call *c, uint32_t k)
{
	return (int)scalar(val(c, k));
}

int rp_tag(struct rp_call *c, uint32_t k)
{
	return (int)scalar(val(c, k));
}

/* The address a BUFFER value names (an absolute address the program
 * took with MPI_Get_address, passed as a displacement from MPI_BOTTOM). */
static MPI_Aint address_of(struct rp_val *v)
{
	struct seg *s = seg_of(v->i);
	size_t want = (size_t)(v->off > 0 ? v->off : 0) + 64;
	if (s->size < want && !s->external)
		seg_grow(s, want);
	return (MPI_Aint)(uintptr_t)(s->p + (v->off > 0 ? v->off : 0));
}

/* Arrays are converted once, but for addresses: memory may move. */
#define ARRAY_OF(fn, T)                                                        \
	T *fn(struct rp_call *c, uint32_t k)                                   \
	{                                                                      \
		struct rp_val *v = val(c, k);                                  \
		int moves = 0;                                                 \
		if (v->kind != RONDO_ARG_ARRAY)                                \
			return v->kind == RONDO_ARG_BUFFER ||                  \
					       v->kind == RONDO_ARG_CONST      \
				       ? (T *)rp_buf(c, k, RP_SPAN_NONE, -1,   \
						     -1, -1)                   \
				       : NULL;                                 \
		if (!v->conv || v->moves) {                                    \
			T *a = v->conv ? v->conv : xcalloc(v->n, sizeof(T));   \
			for (uint32_t j = 0; j < v->n; j++) {                  \
				struct rp_val *e = &v->e[j];                   \
				if (e->kind == RONDO_ARG_BUFFER) {             \
					a[j] = (T)address_of(e);               \
					moves = 1;                             \
				} else                                         \
					a[j] = (T)scalar(e);                   \
			}                                                      \
			v->conv = a;                                           \
			v->moves = moves;                                      \
		}                                                              \
		return v->conv;                                                \
	}
ARRAY_OF(rp_ints, int)
ARRAY_OF(rp_aints, MPI_Aint)
ARRAY_OF(rp_counts, MPI_Count)
ARRAY_OF(rp_offsets, MPI_Offset)
#undef ARRAY_OF

static void *scratch(size_t size)
{
	if (size > rt.nscratch) {
		free(rt.scratch);
		rt.scratch = xcalloc(size, 1);
		rt.nscratch = size;
	}
	return rt.scratch;
}

void *rp_out(struct rp_call *c, uint32_t k, size_t size)
{
	struct rp_val *v = val(c, k);
	size_t n = v->kind == RONDO_ARG_ARRAY && v->n ? v->n : 1;
	/* one scratch per output: calls have few, and the last one wins */
	if (!v->conv)
		v->conv = xcalloc(n, size < 8 ? 8 : size);
	return v->conv;
}

const char *rp_string(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	if (v->kind != RONDO_ARG_STRING && v->kind != RONDO_ARG_BYTES)
		return v->kind == RONDO_ARG_NULL ? NULL : "";
	if (!v->str) {
		v->str = xcalloc(v->size + 1, 1);
		memcpy(v->str, v->bytes, v->size);
	}
	return v->str;
}

/* ---- handles --------------------------------------------------------- */

#define HANDLE(fn, setfn, T, tb, nul, kindv, konst)                            \
	T fn(struct rp_call *c, uint32_t k)                                    \
	{                                                                      \
		struct rp_val *v = val(c, k);                                  \
		if (v->kind == (kindv))                                        \
			return *(T *)tab_at(&rt.tb, v->i, &(nul));             \
		if (v->kind == RONDO_ARG_CONST)                                \
			return konst;                                          \
		return nul;                                                    \
	}                                                                      \
	void setfn(struct rp_call *c, uint32_t k, T h)                         \
	{                                                                      \
		struct rp_val *v = val(c, k);                                  \
		if (v->kind == (kindv))                                        \
			*(T *)tab_at(&rt.tb, v->i, &(nul)) = h;                \
	}

static MPI_Comm const_comm(const struct rp_val *v)
{
	const char *n = kname(v);
	if (!strcmp(n, "MPI_COMM_WORLD"))
		return MPI_COMM_WORLD;
	if (!strcmp(n, "MPI_COMM_SELF"))
		return MPI_COMM_SELF;
	return MPI_COMM_NULL;
}

static MPI_Group const_group(const struct rp_val *v)
{
	return !strcmp(kname(v), "MPI_GROUP_EMPTY") ? MPI_GROUP_EMPTY
						    : MPI_GROUP_NULL;
}

static MPI_Info const_info(const struct rp_val *v)
{
	return !strcmp(kname(v), "MPI_INFO_ENV") ? MPI_INFO_ENV : MPI_INFO_NULL;
}

static MPI_Errhandler const_errh(const struct rp_val *v)
{
	const char *n = kname(v);
	if (!strcmp(n, "MPI_ERRORS_RETURN"))
		return MPI_ERRORS_RETURN;
	if (!strcmp(n, "MPI_ERRORS_ARE_FATAL"))
		return MPI_ERRORS_ARE_FATAL;
	return MPI_ERRHANDLER_NULL;
}

static MPI_Datatype const_type(const struct rp_val *v)
{
	return v->i >= 0 && (uint64_t)v->i < rt.nk && rt.k[v->i].is_type
		       ? rt.k[v->i].type
		       : MPI_DATATYPE_NULL;
}

static MPI_Op const_op(const struct rp_val *v)
{
	return v->i >= 0 && (uint64_t)v->i < rt.nk && rt.k[v->i].is_op
		       ? rt.k[v->i].op
		       : MPI_OP_NULL;
}

HANDLE(rp_comm, rp_set_comm, MPI_Comm, comm, comm_null, RONDO_ARG_COMM,
       const_comm(v))
HANDLE(rp_group, rp_set_group, MPI_Group, group, group_null, RONDO_ARG_GROUP,
       const_group(v))
HANDLE(rp_datatype, rp_set_datatype, MPI_Datatype, type, type_null,
       RONDO_ARG_DATATYPE, const_type(v))
HANDLE(rp_op, rp_set_op, MPI_Op, op, op_null, RONDO_ARG_OP, const_op(v))
HANDLE(rp_info, rp_set_info, MPI_Info, info, info_null, RONDO_ARG_INFO,
       const_info(v))
HANDLE(rp_errhandler, rp_set_errhandler, MPI_Errhandler, errh, errh_null,
       RONDO_ARG_ERRHANDLER, const_errh(v))
HANDLE(rp_win, rp_set_win, MPI_Win, win, win_null, RONDO_ARG_WIN, win_null)
HANDLE(rp_file, rp_set_file, MPI_File, file, file_null, RONDO_ARG_FILE,
       file_null)
#undef HANDLE

MPI_Datatype *rp_datatypes(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	MPI_Datatype *a;

	if (v->kind != RONDO_ARG_ARRAY)
		return NULL;
	/* handles change from run to run: converted at every call */
	if (!v->conv)
		v->conv = xcalloc(v->n, sizeof(MPI_Datatype));
	a = v->conv;
	for (uint32_t j = 0; j < v->n; j++) {
		struct rp_val *e = &v->e[j];
		a[j] = e->kind == RONDO_ARG_DATATYPE
			       ? *(MPI_Datatype *)tab_at(&rt.type, e->i,
							 &type_null)
			       : const_type(e);
	}
	return a;
}

void rp_set_datatypes(struct rp_call *c, uint32_t k, const MPI_Datatype *h)
{
	struct rp_val *v = val(c, k);
	for (uint32_t j = 0; v->kind == RONDO_ARG_ARRAY && j < v->n; j++)
		if (v->e[j].kind == RONDO_ARG_DATATYPE)
			*(MPI_Datatype *)tab_at(&rt.type, v->e[j].i,
						&type_null) = h[j];
}

MPI_Message *rp_message(struct rp_call *c, uint32_t k)
{
	static MPI_Message none;
	struct rp_val *v = val(c, k);
	if (v->kind == RONDO_ARG_MESSAGE)
		return tab_at(&rt.msg, v->i, &msg_null);
	none = !strcmp(kname(v), "MPI_MESSAGE_NO_PROC") ? MPI_MESSAGE_NO_PROC
							: MPI_MESSAGE_NULL;
	return &none;
}

MPI_Request *rp_request(struct rp_call *c, uint32_t k)
{
	static MPI_Request none;
	struct rp_val *v = val(c, k);
	if (v->kind == RONDO_ARG_REQUEST)
		return tab_at(&rt.req, v->i, &req_null);
	none = MPI_REQUEST_NULL;
	return &none;
}

MPI_Request *rp_request_id(int64_t id)
{
	return tab_at(&rt.req, id, &req_null);
}

MPI_Request *rp_requests(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	if (v->kind != RONDO_ARG_ARRAY)
		return NULL;
	if (v->n > rt.nreqs) {
		free(rt.reqs);
		rt.reqs = xcalloc(v->n, sizeof *rt.reqs);
		rt.nreqs = v->n;
	}
	for (uint32_t j = 0; j < v->n; j++)
		rt.reqs[j] = v->e[j].kind == RONDO_ARG_REQUEST
				     ? *rp_request_id(v->e[j].i)
				     : MPI_REQUEST_NULL;
	return rt.reqs;
}

void rp_requests_back(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	for (uint32_t j = 0; v->kind == RONDO_ARG_ARRAY && j < v->n; j++)
		if (v->e[j].kind == RONDO_ARG_REQUEST)
			*rp_request_id(v->e[j].i) = rt.reqs[j];
}

void rp_set_request(struct rp_call *c, uint32_t k, MPI_Request h)
{
	struct rp_val *v = val(c, k);
	if (v->kind == RONDO_ARG_REQUEST)
		*rp_request_id(v->i) = h;
}

/* A status value the program ignored: the tracer marks it so. */
static int ignored(const struct rp_val *v)
{
	if (v->kind == RONDO_ARG_CONST)
		return is_const(v, "MPI_STATUS_IGNORE") ||
		       is_const(v, "MPI_STATUSES_IGNORE");
	return v->kind == RONDO_ARG_STATUS && v->n &&
	       is_const(&v->e[v->n - 1], "MPI_STATUS_IGNORE");
}

MPI_Status *rp_status(struct rp_call *c, uint32_t k)
{
	if (ignored(val(c, k)))
		return MPI_STATUS_IGNORE;
	return &rt.status;
}

MPI_Status *rp_statuses(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	size_t n = v->kind == RONDO_ARG_ARRAY ? v->n : 0;

	if (ignored(v) || (n && ignored(&v->e[0])))
		return MPI_STATUSES_IGNORE;
	if (n < 1)
		n = 1;
	if (n > rt.nstatuses) {
		free(rt.statuses);
		rt.statuses = xcalloc(n, sizeof *rt.statuses);
		rt.nstatuses = n;
	}
	return rt.statuses;
}

/* ---- memory ---------------------------------------------------------- */

/* The bytes one element of type spans, from its lower bound. */
static size_t type_span(MPI_Datatype t, size_t *stride)
{
	MPI_Aint lb = 0, ext = 0, tlb = 0, text = 0;
	*stride = 1;
	if (t == MPI_DATATYPE_NULL)
		return 1;
	if (PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(t, &tlb, &text) != MPI_SUCCESS)
		return 1;
	*stride = ext > 0 ? (size_t)ext : 1;
	return (size_t)((tlb > 0 ? tlb : 0) + (text > 0 ? text : 0));
}

static size_t elems_bytes(int64_t n, MPI_Datatype t)
{
	size_t stride, span = type_span(t, &stride);
	if (n <= 0)
		return 0;
	return (size_t)(n - 1) * stride + span;
}

static int first_comm(struct rp_call *c, MPI_Comm *out)
{
	for (uint32_t k = 0; k < c->s->nargs; k++) {
		struct rp_val *v = &c->s->v[k];
		if (v->kind == RONDO_ARG_COMM ||
		    (v->kind == RONDO_ARG_CONST &&
		     const_comm(v) != MPI_COMM_NULL)) {
			*out = rp_comm(c, k);
			return *out != MPI_COMM_NULL;
		}
	}
	return 0;
}

static size_t need(struct rp_call *c, enum rp_span span, int kc, int kt, int kd)
{
	int64_t n = kc >= 0 ? rp_int(c, (uint32_t)kc) : 1;
	MPI_Datatype t = kt >= 0 ? rp_datatype(c, (uint32_t)kt) : MPI_BYTE;
	struct rp_val *vc = kc >= 0 ? val(c, (uint32_t)kc) : NULL;
	struct rp_val *vd = kd >= 0 ? val(c, (uint32_t)kd) : NULL;
	size_t most = 0;
	MPI_Comm comm;
	int size = 1, rsize = 0, inter = 0;

	switch (span) {
	case RP_SPAN_NONE: return 1;
	case RP_SPAN_BYTES: return n > 0 ? (size_t)n : 0;
	case RP_SPAN_ONE: return elems_bytes(n, t);
	case RP_SPAN_COMM:
		if (first_comm(c, &comm)) {
			PMPI_Comm_size(comm, &size);
			PMPI_Comm_test_inter(comm, &inter);
			if (inter) {
				PMPI_Comm_remote_size(comm, &rsize);
				if (rsize > size)
					size = rsize;
			}
		}
		return elems_bytes(n * size, t);
	case RP_SPAN_SUM:
	case RP_SPAN_V:
	case RP_SPAN_W: break;
	}
	if (!vc || vc->kind != RONDO_ARG_ARRAY)
		return 1;
	{
		int64_t sum = 0;
		MPI_Datatype *types = span == RP_SPAN_W && kt >= 0
					      ? rp_datatypes(c, (uint32_t)kt)
					      : NULL;
		for (uint32_t j = 0; j < vc->n; j++) {
			int64_t cnt = scalar(&vc->e[j]), d = 0;
			size_t b;
			if (vd && vd->kind == RONDO_ARG_ARRAY && j < vd->n)
				d = scalar(&vd->e[j]);
			if (span == RP_SPAN_SUM) {
				sum += cnt;
				continue;
			}
			if (span == RP_SPAN_W)
				b = (size_t)(d > 0 ? d : 0) +
				    elems_bytes(cnt,
						types ? types[j] : MPI_BYTE);
			else
				b = elems_bytes((d > 0 ? d : 0) + cnt, t);
			if (cnt > 0 && b > most)
				most = b;
		}
		if (span == RP_SPAN_SUM)
			return elems_bytes(sum, t);
	}
	return most;
}

void *rp_buf(struct rp_call *c, uint32_t k, enum rp_span span, int kc, int kt,
	     int kd)
{
	struct rp_val *v = val(c, k);
	struct seg *s;
	size_t want;

	if (v->kind == RONDO_ARG_CONST) {
		const char *n = kname(v);
		if (!strcmp(n, "MPI_IN_PLACE"))
			return MPI_IN_PLACE;
		if (!strcmp(n, "MPI_UNWEIGHTED"))
			return (void *)MPI_UNWEIGHTED;
		if (!strcmp(n, "MPI_WEIGHTS_EMPTY"))
			return (void *)MPI_WEIGHTS_EMPTY;
		if (!strcmp(n, "MPI_STATUS_IGNORE"))
			return MPI_STATUS_IGNORE;
		/* "(buffer)": memory the tracer did not follow */
		return scratch(need(c, span, kc, kt, kd) + 64);
	}
	if (v->kind != RONDO_ARG_BUFFER)
		return NULL;
	want = (size_t)(v->off > 0 ? v->off : 0) + need(c, span, kc, kt, kd);
	/* a page at least: MPICH 4.0's one-sided puts into a small window
	 * can land past its end (README), and a page costs nothing */
	if (want < 4096)
		want = 4096;
	s = seg_of(v->i);
	/* MPI's memory stays where MPI put it: MPI_Free_mem wants it back */
	if (s->size < want && !s->external)
		seg_grow(s, want);
	return s->p + (v->off > 0 ? v->off : 0);
}

void rp_set_memory(struct rp_call *c, uint32_t k, void *p)
{
	struct rp_val *v = val(c, k);
	struct seg *s;
	MPI_Aint size = 0;

	if (v->kind != RONDO_ARG_BUFFER)
		return;
	s = seg_of(v->i);
	if (s->p && !s->external)
		retire(s->p);
	/* the size asked for is the call's first argument */
	size = (MPI_Aint)rp_int(c, 0);
	s->p = p;
	s->size = size > 0 ? (size_t)size : 0;
	s->external = 1;
	s->win = -1;
	for (uint32_t j = 0; j < c->s->nargs; j++)
		if (c->s->v[j].kind == RONDO_ARG_WIN)
			s->win = c->s->v[j].i;
}

void rp_drop_window_memory(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	if (v->kind != RONDO_ARG_WIN)
		return;
	for (size_t j = 0; j < rt.seg.n; j++) {
		struct seg *s = seg_of((int64_t)j);
		if (s->external && s->win == v->i)
			*s = seg_none;
	}
}

void rp_drop_memory(struct rp_call *c, uint32_t k)
{
	struct rp_val *v = val(c, k);
	if (v->kind == RONDO_ARG_BUFFER)
		*seg_of(v->i) = seg_none;
}

/* The user operation stand-in: combines the bytes (a byte-wise or), so a
 * reduction with it moves the data and does work proportional to it. */
static void stand_in_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
	MPI_Aint lb, ext;
	size_t n;
	if (PMPI_Type_get_extent(*t, &lb, &ext) != MPI_SUCCESS || ext <= 0)
		return;
	n = (size_t)*len * (size_t)ext;
	for (size_t i = 0; i < n; i++)
		((unsigned char *)inout)[i] |= ((unsigned char *)in)[i];
}

MPI_User_function *rp_user_function(struct rp_call *c, uint32_t k)
{
	(void)c;
	(void)k;
	return stand_in_op;
}

/* Attribute callbacks: the program's, as stand-ins that copy nothing and
 * delete nothing; the value NULL where the program passed one (a library
 * whose MPI_COMM_NULL_COPY_FN is NULL records it so). */
#define ATTR_CALLBACKS(T, H)                                                   \
	static int stand_in_##T##_copy(H h, int key, void *extra, void *in,    \
				       void *out, int *flag)                   \
	{                                                                      \
		(void)h;                                                       \
		(void)key;                                                     \
		(void)extra;                                                   \
		(void)in;                                                      \
		(void)out;                                                     \
		*flag = 0;                                                     \
		return MPI_SUCCESS;                                            \
	}                                                                      \
	static int stand_in_##T##_delete(H h, int key, void *value,            \
					 void *extra)                          \
	{                                                                      \
		(void)h;                                                       \
		(void)key;                                                     \
		(void)value;                                                   \
		(void)extra;                                                   \
		return MPI_SUCCESS;                                            \
	}                                                                      \
	MPI_##T##_copy_attr_function *rp_##T##_copy_fn(struct rp_call *c,      \
						       uint32_t k)             \
	{                                                                      \
		return val(c, k)->kind == RONDO_ARG_NULL                       \
			       ? (MPI_##T##_copy_attr_function *)NULL          \
			       : stand_in_##T##_copy;                          \
	}                                                                      \
	MPI_##T##_delete_attr_function *rp_##T##_delete_fn(struct rp_call *c,  \
							   uint32_t k)         \
	{                                                                      \
		return val(c, k)->kind == RONDO_ARG_NULL                       \
			       ? (MPI_##T##_delete_attr_function *)NULL        \
			       : stand_in_##T##_delete;                        \
	}
/* Error handlers: stand-ins that do nothing, so a call that fails
 * returns its error as with MPI_ERRORS_RETURN. */
#define ERRH_CALLBACK(T, H)                                                    \
	static void stand_in_##T##_errh(H *h, int *code, ...)                  \
	{                                                                      \
		(void)h;                                                       \
		(void)code;                                                    \
	}                                                                      \
	MPI_##T##_errhandler_function *rp_##T##_errh_fn(struct rp_call *c,     \
							uint32_t k)            \
	{                                                                      \
		(void)c;                                                       \
		(void)k;                                                       \
		return stand_in_##T##_errh;                                    \
	}
ERRH_CALLBACK(Comm, MPI_Comm)
ERRH_CALLBACK(Win, MPI_Win)
ERRH_CALLBACK(File, MPI_File)
#undef ERRH_CALLBACK

ATTR_CALLBACKS(Comm, MPI_Comm)
ATTR_CALLBACKS(Type, MPI_Datatype)
ATTR_CALLBACKS(Win, MPI_Win)
#undef ATTR_CALLBACKS

/* ---- statuses and wildcards --------------------------------------------- */

static void rp_status_of(const struct rp_val *v, struct rp_status *st)
{
	memset(st, 0, sizeof *st);
	if (v->kind == RONDO_ARG_CONST && ignored(v))
		st->ignored = 1;
	if (v->kind != RONDO_ARG_STATUS)
		return;
	for (uint32_t j = 0; j < v->n; j++) {
		const struct rp_val *e = &v->e[j];
		const char *n = kname(e);
		switch (e->kind) {
		case RONDO_ARG_RANK:
		case RONDO_ARG_RANK_REL:
			st->has_source = 1;
			st->source = *e;
			break;
		case RONDO_ARG_TAG:
			st->has_tag = 1;
			st->tag = *e;
			break;
		case RONDO_ARG_INT:
			st->has_count = 1;
			st->count = e->i;
			break;
		case RONDO_ARG_CONST:
			if (!strcmp(n, "MPI_ANY_SOURCE") ||
			    !strcmp(n, "MPI_PROC_NULL")) {
				st->has_source = 1;
				st->source = *e;
			} else if (!strcmp(n, "MPI_ANY_TAG")) {
				st->has_tag = 1;
				st->tag = *e;
			} else if (!strcmp(n, "cancelled"))
				st->cancelled = 1;
			else if (!strcmp(n, "MPI_STATUS_IGNORE"))
				st->ignored = 1;
			break;
		}
	}
}

static int rp_status_source(const struct rp_status *st, MPI_Comm comm)
{
	int me = 0, size = 1;
	if (st->source.kind == RONDO_ARG_CONST)
		return (int)scalar(&st->source);
	if (st->source.kind == RONDO_ARG_RANK)
		return (int)st->source.i;
	PMPI_Comm_rank(comm, &me);
	PMPI_Comm_size(comm, &size);
	return (int)((((int64_t)me + st->source.i) % size + size) % size);
}

static int rp_lookahead_start(uint64_t index)
{
	rondo_iter_free(rt.la);
	rt.la = rondo_iter_create(rt.t, rt.rank);
	if (!rt.la)
		return RONDO_E_NOMEM;
	return rondo_iter_skip(rt.la, index + 1);
}

static int rp_lookahead_next(uint32_t *sig)
{
	return rt.la ? rondo_iter_next(rt.la, sig) : 0;
}

int rp_param(uint32_t func, const char *name)
{
	uint32_t n = rondo_func_param_count(rt.t, func);
	for (uint32_t p = 0; p < n; p++) {
		const char *pn = rondo_func_param_name(rt.t, func, p);
		if (pn && !strcmp(pn, name))
			return (int)p;
	}
	return -1;
}

/* The index of parameter `name` of signature sig's function, or -1. */
static int param(uint32_t sig, const char *name)
{
	return rp_param(rondo_sig_func(rt.t, sig), name);
}

/* The most calls a look-ahead reads for the call completing a request. */
#define LOOKAHEAD_MAX (1u << 20)

/* The status the call that completes request `id` gives it, from the
 * calls after the current one; NULL when none is found. */
static const struct rp_val *completion_status(uint64_t index, int64_t id)
{
	uint32_t sig;
	struct rp_sig *s;
	int r;

	if (rp_lookahead_start(index) < 0)
		return NULL;
	for (uint32_t n = 0; n < LOOKAHEAD_MAX; n++) {
		if ((r = rp_lookahead_next(&sig)) != 1)
			return NULL;
		const char *f =
			rondo_func_name(rt.t, rondo_sig_func(rt.t, sig));
		if (!f ||
		    (strncmp(f, "MPI_Wait", 8) && strncmp(f, "MPI_Test", 8) &&
		     strcmp(f, "MPI_Request_free")))
			continue;
		if (rp_sig_prepare(sig, &s) < 0)
			return NULL;
		int kr = param(sig, "request"), ks = param(sig, "status");
		if (kr >= 0 && (uint32_t)kr < s->nargs) {
			struct rp_val *q = &s->v[kr];
			int kf = param(sig, "flag");
			if (q->kind != RONDO_ARG_REQUEST || q->i != id)
				continue;
			if (!strcmp(f, "MPI_Request_free"))
				return NULL;
			if (kf >= 0 && (uint32_t)kf < s->nargs &&
			    s->v[kf].i == 0)
				continue;
			return ks >= 0 && (uint32_t)ks < s->nargs ? &s->v[ks]
								  : NULL;
		}
		kr = param(sig, "array_of_requests");
		ks = param(sig, "array_of_statuses");
		if (kr < 0 || (uint32_t)kr >= s->nargs ||
		    s->v[kr].kind != RONDO_ARG_ARRAY)
			continue;
		struct rp_val *a = &s->v[kr];
		int ki = param(sig, "index"),
		    kis = param(sig, "array_of_indices");
		int kst = param(sig, "status");
		for (uint32_t j = 0; j < a->n; j++) {
			if (a->e[j].kind != RONDO_ARG_REQUEST ||
			    a->e[j].i != id)
				continue;
			if (ki >= 0 && (uint32_t)ki < s->nargs) { /* any */
				if (s->v[ki].i != (int64_t)j)
					break;
				return kst >= 0 ? &s->v[kst] : NULL;
			}
			if (kis >= 0 && (uint32_t)kis < s->nargs) { /* some */
				struct rp_val *ix = &s->v[kis];
				for (uint32_t m = 0;
				     ix->kind == RONDO_ARG_ARRAY && m < ix->n;
				     m++)
					if (ix->e[m].i == (int64_t)j)
						return ks >= 0 && s->v[ks].kind == RONDO_ARG_ARRAY &&
								       m < s->v[ks].n
							       ? &s->v[ks].e[m]
							       : NULL;
				break;
			}
			/* all: complete when the flag, if any, says so */
			int kf = param(sig, "flag");
			if (kf >= 0 && (uint32_t)kf < s->nargs &&
			    s->v[kf].i == 0)
				break;
			return ks >= 0 && s->v[ks].kind == RONDO_ARG_ARRAY &&
					       j < s->v[ks].n
				       ? &s->v[ks].e[j]
				       : NULL;
		}
	}
	return NULL;
}

static void hints_look(void)
{
	if (rt.hint_looked)
		return;
	*(void **)&rt.hint = dlsym(RTLD_DEFAULT, "rondo_replay_posted");
	*(void **)&rt.stand = dlsym(RTLD_DEFAULT, "rondo_replay_stand_ins");
	rt.hint_looked = 1;
}

void rp_hint_posted(int source, int tag)
{
	hints_look();
	if (rt.hint)
		rt.hint(source, tag);
}

void rp_hint_stand_ins(const MPI_Request *stand_in, const MPI_Request *real,
		       int n)
{
	hints_look();
	if (rt.stand)
		rt.stand(stand_in, real, n);
}

/* The largest tag MPI allows. */
static int tag_ub(void)
{
	static int ub;
	int *v = NULL, flag = 0;
	if (!ub) {
		ub = 32767;
		if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag) ==
			    MPI_SUCCESS &&
		    flag && v)
			ub = *v;
	}
	return ub;
}

void rp_wildcard(struct rp_call *c, int kst, int kreq, MPI_Comm comm,
		 int *source, int *tag)
{
	const struct rp_val *sv = NULL;
	const char *f = rondo_func_name(rt.t, rondo_sig_func(rt.t, c->sig));
	struct rp_status st;
	int src = *source, tg = *tag, probe_flag;

	probe_flag = f && !strncmp(f, "MPI_I", 5) && strstr(f, "probe");
	if (probe_flag) {
		int kf = param(c->sig, "flag");
		if (kf >= 0 && rp_int(c, (uint32_t)kf) == 0 && !rt.o.polls) {
			c->skip = 1; /* --polls once */
			return;
		}
		if (kf >= 0 && rp_int(c, (uint32_t)kf) == 0) {
			/* a probe that found nothing: one that cannot find
			 * anything (no program sends with the largest tag),
			 * recorded as the program posted it */
			rp_hint_posted(*source, *tag);
			*tag = tag_ub();
			return;
		}
	}
	if (src != MPI_ANY_SOURCE && tg != MPI_ANY_TAG && !probe_flag)
		return;
	if (kst >= 0)
		sv = val(c, (uint32_t)kst);
	else if (kreq >= 0 && val(c, (uint32_t)kreq)->kind == RONDO_ARG_REQUEST)
		sv = completion_status(c->index, val(c, (uint32_t)kreq)->i);
	if (!sv)
		return;
	rp_status_of(sv, &st);
	if (st.cancelled)
		return;
	if (src == MPI_ANY_SOURCE && st.has_source)
		src = rp_status_source(&st, comm);
	if (tg == MPI_ANY_TAG && st.has_tag)
		tg = (int)scalar(&st.tag);
	if (probe_flag) { /* a probe that found a message: it is there */
		int kf = param(c->sig, "flag");
		if (kf >= 0 && rp_int(c, (uint32_t)kf) == 1 &&
		    src != MPI_ANY_SOURCE && tg != MPI_ANY_TAG)
			PMPI_Probe(src, tg, comm, MPI_STATUS_IGNORE);
	}
	if (src == *source && tg == *tag)
		return;
	rp_hint_posted(*source, *tag);
	*source = src;
	*tag = tg;
}

void rp_finish(void)
{
	rondo_iter_free(rt.la);
	rt.la = NULL;
}
