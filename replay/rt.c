/*
 * rt.c - rondo-replay's state and the accessors of the generated calls:
 * signatures decoded once per rank, handles and memory in tables indexed
 * by the trace's symbolic ids, predefined handles by their names, what a
 * wildcard receive matched.  Nothing here reads the trace: rondo-replay
 * gives it signatures from the trace (source.c), a proxy from its tables;
 * `rondo proxy` copies this file into every proxy it writes.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "match.h"
#include "replay.h"

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
	uint32_t *refs; /* references to each handle the calls gave */
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
		uint32_t *r = v ? realloc(t->refs, n * sizeof *r) : NULL;
		if (!v || !r) {
			fprintf(stderr, "rondo-replay: out of memory\n");
			exit(1);
		}
		for (size_t k = t->n; k < n; k++) {
			memcpy(v + k * t->size, init, t->size);
			r[k] = 0;
		}
		t->v = v;
		t->refs = r;
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
	struct rp_options o;
	struct kval *k;
	uint32_t nk;
	struct tab comm, group, type, op, info, errh, win, file, req, msg, seg;
#if MPI_VERSION >= 4
	struct tab session;
#endif
	void **retired; /* segments outgrown: kept until the end */
	size_t nretired, capretired;
	MPI_Status status; /* the status the calls write, and read */
	MPI_Status *statuses;
	size_t nstatuses;
	MPI_Request *reqs;
	size_t nreqs;
	void *scratch;
	size_t nscratch;
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
#if MPI_VERSION >= 4
static const MPI_Session session_null = MPI_SESSION_NULL;
#endif
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

void *rp_xcalloc(size_t n, size_t size)
{
	return xcalloc(n, size);
}

int rp_polls(void)
{
	return rt.o.polls;
}

void rp_core_start(const struct rp_options *o, uint32_t nconst,
		   const char *(*const_name)(uint32_t k))
{
	free(rt.k); /* started again: MPI gave another rank */
	rt.o = *o;
	rt.nk = nconst;
	rt.k = xcalloc(rt.nk, sizeof *rt.k);
	for (uint32_t i = 0; i < rt.nk; i++) {
		const char *n = const_name(i);
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
#if MPI_VERSION >= 4
	rt.session.size = sizeof(MPI_Session);
#endif
}

/* The time now, in ns (a monotonic clock). */
double rp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t rp_seed_agree(int rank)
{
	uint64_t seed = 0;

	if (rank == 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ((uint64_t)ts.tv_sec * 1000000000u +
			(uint64_t)ts.tv_nsec) %
		       1000000000000u;
	}
	PMPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	return seed;
}

void rp_sig_draw(struct rp_sig *s)
{
	for (uint32_t k = 0; k < s->nargs; k++) {
		struct rp_val *v = &s->v[k];
		int64_t d;

		if (!v->draw)
			continue;
		d = (int64_t)rp_value_draw(v->draw - 1, (uint64_t)v->kept);
		if (v->peer && v->span > 0) { /* a peer, this far on its side */
			if (!v->based) { /* i is the peer written, kept far */
				v->base =
					((v->i - v->peer * v->kept) % v->span +
					 v->span) %
					v->span;
				v->based = 1;
			}
			d = ((v->base + v->peer * d) % v->span + v->span) %
			    v->span;
		}
		v->i = d;
	}
}

/* ---- starting MPI, the watchdog --------------------------------------- */

int rp_env_rank(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
					   "PMIX_RANK", "SLURM_PROCID"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return atoi(v);
	}
	return -1;
}

int rp_before_init(const char *fn)
{
	return !strcmp(fn, "MPI_Init") || !strcmp(fn, "MPI_Init_thread") ||
	       !strcmp(fn, "MPI_Initialized") || !strcmp(fn, "MPI_Finalized") ||
	       !strcmp(fn, "MPI_Get_version") ||
	       !strcmp(fn, "MPI_Get_library_version");
}

int rp_init_mpi(const char *fn, int argc_rec, int required, int *argc,
		char ***argv)
{
	static char *args[64];
	int n = argc_rec, provided;

	if (n >= 0) {
		for (int k = 0; k < n && k < 63; k++)
			args[k] = k < *argc ? (*argv)[k] : (*argv)[0];
		args[n < 63 ? n : 63] = NULL;
		*argc = n < 63 ? n : 63;
		*argv = args;
	}
	if (!strcmp(fn, "MPI_Init"))
		return n >= 0 ? MPI_Init(argc, argv) : MPI_Init(NULL, NULL);
	return n >= 0 ? MPI_Init_thread(argc, argv, required, &provided)
		      : MPI_Init_thread(NULL, NULL, required, &provided);
}

/* Whether this run has the trace's rank count; said by rank 0 if not. */
static int same_size(uint32_t nranks, int size, int rank, const char *who)
{
	if ((uint32_t)size == nranks)
		return 1;
	if (rank == 0)
		fprintf(stderr,
			"%s: the trace is of %u ranks, this run has %d: run "
			"it with mpirun -np %u\n",
			who, nranks, size, nranks);
	return 0;
}

int rp_check_size(uint32_t nranks, const char *who, int *rank)
{
	int size = 0;
	PMPI_Comm_rank(MPI_COMM_WORLD, rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	if (same_size(nranks, size, *rank, who))
		return 0;
	MPI_Finalize();
	return RP_EXIT_NOREPLAY;
}

#if MPI_VERSION >= 4
static MPI_Session own_session = MPI_SESSION_NULL;

int rp_session_start(uint32_t nranks, const char *who, int *rank)
{
	MPI_Group g = MPI_GROUP_NULL;
	int size = 0;

	if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &own_session) !=
		    MPI_SUCCESS ||
	    PMPI_Group_from_session_pset(own_session, "mpi://WORLD", &g) !=
		    MPI_SUCCESS ||
	    PMPI_Group_rank(g, rank) != MPI_SUCCESS ||
	    PMPI_Group_size(g, &size) != MPI_SUCCESS) {
		fprintf(stderr,
			"%s: MPI_Session_init: the processes of the job "
			"cannot be learnt from a session\n",
			who);
		if (g != MPI_GROUP_NULL)
			PMPI_Group_free(&g);
		rp_session_end();
		return RP_EXIT_NOREPLAY;
	}
	PMPI_Group_free(&g);
	if (same_size(nranks, size, *rank, who))
		return 0;
	rp_session_end();
	return RP_EXIT_NOREPLAY;
}

void rp_session_end(void)
{
	if (own_session != MPI_SESSION_NULL)
		PMPI_Session_finalize(&own_session);
}
#else
int rp_session_start(uint32_t nranks, const char *who, int *rank)
{
	(void)nranks;
	*rank = 0;
	fprintf(stderr,
		"%s: the trace starts with MPI_Session_init, and this MPI "
		"(%d.%d) has no sessions (MPI 4.0)\n",
		who, MPI_VERSION, MPI_SUBVERSION);
	return RP_EXIT_NOREPLAY;
}

void rp_session_end(void)
{
}
#endif

/* A signal a process gives itself (a fault, abort()), which no launcher
 * or user sends. */
static int self_signal(long sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
	       sig == SIGILL || sig == SIGABRT || sig == SIGTRAP ||
	       sig == SIGSYS;
}

void rp_end_cut(const char *who, int rank, const char *ending, int len)
{
	char text[256], *end;
	long code = 0;
	int how = 0; /* 1: exit(code), 2: raise(code) */

	snprintf(text, sizeof text, "%.*s", len, ending);
	if (!strncmp(text, "exit(", 5)) {
		code = strtol(text + 5, &end, 10);
		how = end != text + 5 && *end == ')';
	} else if (!strncmp(text, "signal ", 7)) {
		code = strtol(text + 7, &end, 10);
		how = end != text + 7 && self_signal(code) ? 2 : 0;
	}
	if (how) {
		fprintf(stderr,
			"%s: rank %d: the trace ends here (%s): ending the "
			"same way\n",
			who, rank, text);
		fflush(stderr);
		if (how == 1)
			exit((int)code);
		/* to the handlers the original had too (a tracer's, a
		 * sanitizer's), else the default */
		raise((int)code);
	}
	fprintf(stderr,
		"%s: rank %d: the trace ends here, cut short (%s): waiting "
		"for the job to end as the original did\n",
		who, rank, text);
	fflush(stderr);
	for (;;)
		sleep(1);
}

volatile uint64_t rp_progress_index;
volatile uint32_t rp_progress_sig;
volatile int rp_progress_in_call;

static struct {
	unsigned seconds;
	void (*report)(uint64_t index, unsigned seconds);
} wd;

static void *watchdog(void *arg)
{
	uint64_t last = (uint64_t)-1;
	unsigned still = 0;
	(void)arg;
	for (;;) {
		sleep(1);
		uint64_t now = rp_progress_index;
		if (now != last) {
			last = now;
			still = 0;
			continue;
		}
		if (++still < wd.seconds)
			continue;
		wd.report(now, wd.seconds);
		fflush(stderr);
		/* the other ranks' watchdogs fire about now too: let them
		 * print before the launcher takes this exit for the job's */
		sleep(2);
		_exit(RP_EXIT_WATCHDOG);
	}
	return NULL;
}

void rp_watchdog_start(unsigned seconds,
		       void (*report)(uint64_t index, unsigned seconds))
{
	pthread_t th;
	wd.seconds = seconds;
	wd.report = report;
	if (pthread_create(&th, NULL, watchdog, NULL) == 0)
		pthread_detach(th);
}

void rp_spin(double gap, double *end_prev, double *debt)
{
	double want = gap - *debt, t0 = *end_prev, t1;
	if (gap <= 0)
		return;
	if (want > 0)
		while (rp_now_ns() - t0 < want)
			;
	t1 = rp_now_ns();
	*debt += (t1 - t0) - gap;
	if (*debt < -1e9) /* never bank more than a second */
		*debt = -1e9;
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
	const struct rp_val *v = val(c, k);

	return v->any ? MPI_ANY_SOURCE : (int)scalar(v);
}

int rp_tag(struct rp_call *c, uint32_t k)
{
	const struct rp_val *v = val(c, k);

	return v->any ? MPI_ANY_TAG : (int)scalar(v);
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

/* A handle a call gives again (MPI_Comm_get_errhandler gives the one
 * MPI_Comm_create_errhandler made, and the trace the same id) is one more
 * reference to it: freeing the id keeps it until the last is freed, as
 * MPI does. */
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
		T *slot;                                                       \
		uint32_t *r;                                                   \
		if (v->kind != (kindv))                                        \
			return;                                                \
		slot = tab_at(&rt.tb, v->i, &(nul));                           \
		r = &rt.tb.refs[v->i < 0 ? 0 : v->i];                          \
		if (h == (nul) && *r > 1) {                                    \
			--*r; /* freed, but referenced still */                \
			return;                                                \
		}                                                              \
		*r = h == (nul) ? 0 : *slot == h ? *r + 1 : 1;                 \
		*slot = h;                                                     \
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
#if MPI_VERSION >= 4
HANDLE(rp_session, rp_set_session, MPI_Session, session, session_null,
       RONDO_ARG_SESSION, session_null)
#endif
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
#if MPI_VERSION >= 4
ERRH_CALLBACK(Session, MPI_Session)
#endif
#undef ERRH_CALLBACK

ATTR_CALLBACKS(Comm, MPI_Comm)
ATTR_CALLBACKS(Type, MPI_Datatype)
ATTR_CALLBACKS(Win, MPI_Win)
#undef ATTR_CALLBACKS

/* ---- reading ahead ----------------------------------------------------- */

/* The most calls a look-ahead reads for the call completing a request. */
#define LOOKAHEAD_MAX (1u << 20)

const struct rp_val *rp_read_ahead(const struct rp_names *nm,
				   int (*next)(void *it, uint32_t *sig),
				   void *it, int64_t id)
{
	struct rp_sig *s;
	uint32_t sig;
	int k, j, r;

	for (uint32_t n = 0; n < LOOKAHEAD_MAX; n++) {
		if (next(it, &sig) != 1 || rp_sig_prepare(sig, &s) < 0)
			return NULL;
		r = rp_completes(nm, sig, s->v, s->nargs, id, &k, &j);
		if (r < 0)
			return NULL;
		if (r == 0)
			continue;
		if (k < 0)
			return NULL;
		return j < 0 ? &s->v[k] : &s->v[k].e[j];
	}
	return NULL;
}

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

/* The largest tag MPI allows, as comm says (never MPI_COMM_WORLD, which a
 * program of sessions does not have); 32767, the least MPI allows, when it
 * does not say. */
static int tag_ub(MPI_Comm comm)
{
	static int ub;
	int *v = NULL, flag = 0;
	if (!ub) {
		ub = 32767;
		if (PMPI_Comm_get_attr(comm, MPI_TAG_UB, &v, &flag) ==
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
	const char *f = rp_func_name(rp_sig_func(c->sig));
	struct rp_status st;
	int src = *source, tg = *tag, probe_flag, kf;

	if (!c->s->kflag) /* looked up once per signature */
		c->s->kflag = rp_param(rp_sig_func(c->sig), "flag") + 2;
	kf = c->s->kflag - 2;
	probe_flag = f && !strncmp(f, "MPI_I", 5) && strstr(f, "probe");
	if (probe_flag) {
		if (kf >= 0 && rp_int(c, (uint32_t)kf) == 0 && !rt.o.polls) {
			c->skip = 1; /* --polls once */
			return;
		}
		if (kf >= 0 && rp_int(c, (uint32_t)kf) == 0) {
			/* a probe that found nothing: one that cannot find
			 * anything (no program sends with the largest tag),
			 * recorded as the program posted it */
			rp_hint_posted(*source, *tag);
			*tag = tag_ub(comm);
			return;
		}
	}
	if (src != MPI_ANY_SOURCE && tg != MPI_ANY_TAG && !probe_flag)
		return;
	if (kst >= 0)
		sv = val(c, (uint32_t)kst);
	else if (kreq >= 0 && val(c, (uint32_t)kreq)->kind == RONDO_ARG_REQUEST)
		sv = rp_completion_status(c, val(c, (uint32_t)kreq)->i);
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
