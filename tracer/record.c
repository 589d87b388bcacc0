/*
 * record.c - turning one MPI call into a terminal of the rank's grammar.
 *
 * The wrapper's recorders encode the argument values into the thread's
 * scratch buffer; rec_end() looks the (function, values) pair up in the
 * rank's signature table, appends the signature's id to the grammar and
 * adds the call's duration to the signature's aggregates.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "spill.h"
#include "util.h"

/* initial-exec: the module is loaded at start-up (preloaded or linked),
 * and a general-dynamic access would call __tls_get_addr on every call. */
static __thread struct rec_thread thread_state
	__attribute__((tls_model("initial-exec")));

/* ---- telling the library's own calls from the program's ------------------ */

#define MAX_RANGES 32

/* Executable segments of the MPI library and its helpers. */
static struct range {
	uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges = -1;

static int is_mpi_library(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, "libmpi", 6) || !strncmp(base, "libopen-", 8) ||
	       !strncmp(base, "libmca_", 7) || !strncmp(base, "mca_", 4) ||
	       !strncmp(base, "libpmpi", 7) || !strncmp(base, "libmpich", 8);
}

static int add_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (!info->dlpi_name || !is_mpi_library(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			ranges[nranges++] = (struct range){
				info->dlpi_addr + ph->p_vaddr,
				info->dlpi_addr + ph->p_vaddr + ph->p_memsz};
	}
	return 0;
}

/* Whether `caller` is code of the MPI library (or of a component it
 * loaded later, so the list is refreshed when nothing matches). */
static int from_mpi_library(const void *caller)
{
	uintptr_t a = (uintptr_t)caller;

	for (int pass = 0; pass < 2; pass++) {
		if (nranges < 0 || pass == 1) {
			nranges = 0;
			dl_iterate_phdr(add_ranges, NULL);
		}
		for (int i = 0; i < nranges; i++)
			if (a >= ranges[i].lo && a < ranges[i].hi)
				return 1;
	}
	return 0;
}

/* ---- a binding forwarding a call ------------------------------------------
 * Inside a recorded call the caller's address alone cannot tell the
 * library's nested C call from the program's: another PMPI tool stacked
 * in between is neither, and its MPI_Send passing MPICH's Fortran
 * binding's call on to rondo's was recorded a second time.  So the
 * binding's forwarding is marked on the thread instead (record.h). */

/* ---- a replay's wildcards (record.h) ---------------------------------- */

static __thread struct {
	int set, source, tag;
} posted;

void rondo_replay_posted(int source, int tag)
{
	posted.set = 1;
	posted.source = source;
	posted.tag = tag;
}

void rec_as_posted(int *source, int *tag)
{
	if (!posted.set)
		return;
	*source = posted.source;
	*tag = posted.tag;
	posted.set = 0;
}

static inline uint64_t forward_key(uint32_t func, int depth)
{
	return (uint64_t)(func + 1) << 32 | (uint32_t)depth;
}

uint64_t rec_forward(uint32_t func, const unsigned char *calls_c)
{
	struct rec_thread *th = &thread_state;
	uint64_t saved = th->forward;

	if (__atomic_load_n(calls_c, __ATOMIC_RELAXED))
		th->forward = forward_key(func, th->depth);
	return saved;
}

void rec_forward_done(uint32_t func, uint64_t saved, unsigned char *calls_c)
{
	struct rec_thread *th = &thread_state;

	/* not taken: the library's function called no C one */
	if (th->forward == forward_key(func, th->depth))
		__atomic_store_n(calls_c, 0, __ATOMIC_RELAXED);
	th->forward = saved;
}

/* ---- before MPI_Init and after MPI_Finalize (record.h) -------------------- */

/* The functions MPI allows before MPI_Init whose values need no table
 * (the info and session functions it also allows create handles, which
 * have no ids before MPI_Init). */
static const char *const early_names[] = {"MPI_Initialized", "MPI_Finalized",
					  "MPI_Get_version",
					  "MPI_Get_library_version"};
static uint32_t early_funcs[COUNTOF(early_names)];
static pthread_once_t early_found = PTHREAD_ONCE_INIT;

static void early_find(void)
{
	for (size_t k = 0; k < COUNTOF(early_names); k++) {
		early_funcs[k] = UINT32_MAX;
		for (uint32_t f = 0; f < rec_nfuncs; f++)
			if (!strcmp(rec_funcs[f].name, early_names[k]))
				early_funcs[k] = f;
	}
}

static int early_allowed(uint32_t func)
{
	pthread_once(&early_found, early_find);
	for (size_t k = 0; k < COUNTOF(early_funcs); k++)
		if (early_funcs[k] == func)
			return 1;
	return 0;
}

/* The calls kept: a fixed buffer each, since nothing of the tracer is
 * set up before MPI_Init (and the allocator is the tracer's own), and
 * after MPI_Finalize little of it should be relied on. */
#define OUTSIDE_CALLS 64
#define OUTSIDE_BYTES 16384
struct outside {
	struct spill_call call[OUTSIDE_CALLS];
	uint8_t bytes[OUTSIDE_BYTES];
	uint32_t n, used;
	uint64_t lost; /* past the buffer, or too late */
	int closed;    /* early: replayed; late: written at exit */
};
static struct outside early, late;
static pthread_mutex_t early_lock = PTHREAD_MUTEX_INITIALIZER;

static void outside_keep(struct outside *o, const struct rec *r)
{
	const struct fmt_buf *a = &r->lv->args;

	pthread_mutex_lock(&early_lock);
	if (o->closed || a->oom || o->n == OUTSIDE_CALLS ||
	    a->len > OUTSIDE_BYTES - o->used) {
		o->lost++;
	} else {
		o->call[o->n++] =
			(struct spill_call){.func = r->func,
					    .binding = r->binding,
					    .args = o->bytes + o->used,
					    .len = (uint32_t)a->len,
					    .t0 = r->t0,
					    .t1 = r->t1};
		memcpy(o->bytes + o->used, a->data, a->len);
		o->used += (uint32_t)a->len;
	}
	pthread_mutex_unlock(&early_lock);
}

/* The program's calls after the trace was written: those MPI allows then
 * kept (late) for the rank's after file, the others only counted. */
static uint64_t after_finalize;
static pid_t outside_pid; /* a child forked since writes no after file */

/* At exit: the kept calls to the after file (spill.h), which `rondo run`
 * or `rondo recover` adds to the trace; the others said. */
static void after_finalize_end(void)
{
	uint64_t n = __atomic_load_n(&after_finalize, __ATOMIC_RELAXED);

	if (getpid() != outside_pid)
		return;
	pthread_mutex_lock(&early_lock);
	late.closed = 1;
	pthread_mutex_unlock(&early_lock);
	/* measured as the calls before them, signatures numbered in the
	 * rank's table (new ones added) */
	for (uint32_t i = 0; i < late.n; i++) {
		struct spill_call *c = &late.call[i];
		const struct rec_func *f = rt_func(c->func);
		uint32_t sig = f ? record_signature(c->func, f->nparams,
						    c->args, c->len)
				 : UINT32_MAX;
		uint64_t d = c->t1 > c->t0 ? rt_clock_ns(c->t1 - c->t0) : 0;

		c->timed = sig != UINT32_MAX &&
			   timing_after(c->t0, d, &c->dcode, &c->icode) == 0;
	}
	if (late.n)
		spill_after(late.call, late.n, n + late.lost);
	if ((n || late.lost) && (rt.verbose > 1 || rt.rank == 0))
		fprintf(stderr,
			"rondo: rank %d: %llu MPI call%s after MPI_Finalize "
			"not in the trace (%s)\n",
			rt.rank, (unsigned long long)(n + late.lost),
			n + late.lost == 1 ? "" : "s",
			n ? "only MPI_Initialized, MPI_Finalized, "
			    "MPI_Get_version and MPI_Get_library_version are "
			    "kept then"
			  : "past the 64 kept");
}

void record_outside(void)
{
	struct rec_thread *th = &thread_state;

	outside_pid = getpid();
	atexit(after_finalize_end);
	pthread_mutex_lock(&early_lock);
	early.closed = 1;
	pthread_mutex_unlock(&early_lock);
	/* on a level of its own, as if each were made now */
	for (uint32_t i = 0; i < early.n && th->depth < RT_MAX_DEPTH; i++) {
		const struct spill_call *e = &early.call[i];
		struct rec r = {.func = e->func,
				.binding = e->binding,
				.t0 = e->t0,
				.t1 = e->t1,
				.th = th,
				.lv = &th->level[th->depth]};

		th->depth++;
		r.lv->pool = UINT32_MAX;
		fmt_put_bytes(&r.lv->args, e->args, e->len);
		rec_end(&r, MPI_SUCCESS);
	}
	if (early.lost)
		rt_warn("%llu MPI calls made before MPI_Init are not in the "
			"trace: it keeps the first %d",
			(unsigned long long)early.lost, OUTSIDE_CALLS);
}

/* What becomes of a call made while tracing is not on. */
enum off {
	OFF_STARTED,
	OFF_EARLY = REC_EARLY, /* the same values: struct rec's outside */
	OFF_LATE = REC_LATE,
	OFF_PASS
};

/* Tracing may start at the call (rt_lazy_start), or it is kept for
 * record_outside, or passed through; a program's call after MPI_Finalize
 * is kept for its after file when MPI allows it then, else counted.
 * Apart: every call asks whether tracing is on, and this is seldom the
 * answer. */
static __attribute__((noinline)) enum off
begin_off(struct rec_thread *th, uint32_t func, const void *caller)
{
	if (rt.state == RT_DONE) {
		if (from_mpi_library(caller))
			return OFF_PASS;
		if (th->depth == 0 && rt.finalized && early_allowed(func))
			return OFF_LATE;
		__atomic_fetch_add(&after_finalize, 1, __ATOMIC_RELAXED);
		return OFF_PASS;
	}
	if (rt.disabled)
		return OFF_PASS;
	if (rt_lazy_start(func) == 0)
		return OFF_STARTED;
	/* not the library's own calls inside MPI_Init */
	if (rt.state == RT_BEFORE && !rt.initializing && th->depth == 0 &&
	    early_allowed(func))
		return OFF_EARLY;
	return OFF_PASS;
}

/* ---- one call ------------------------------------------------------------ */

static inline __attribute__((always_inline)) int
begin(struct rec *r, struct rec_thread *th, uint32_t func, uint32_t binding,
      const void *caller)
{
	enum off off = OFF_STARTED;

	if (__builtin_expect(rt.state != RT_ON, 0) &&
	    (off = begin_off(th, func, caller)) == OFF_PASS)
		return 0;
	if (__builtin_expect(rt.disabled | rt.failed | rt.aborting, 0))
		return 0;
	/* Inside a recorded call, only the program's calls count: those
	 * the library makes on its own come from its code; a callback's
	 * calls come from the program. */
	if (th->depth >= RT_MAX_DEPTH ||
	    (th->depth > 0 && from_mpi_library(caller)))
		return 0;
	th->depth++;
	r->th = th;
	r->lv = &th->level[th->depth - 1];
	r->lv->pool = UINT32_MAX;
	r->func = func;
	r->binding = binding;
	r->outside = (int)off;
	r->t0 = r->t1 = 0;
	r->locked = 0;
	r->paused = rt.paused;
	r->own_status = 0;
	return 1;
}

int rec_begin_at(struct rec *r, uint32_t func, const void *caller)
{
	struct rec_thread *th = &thread_state;

	if (__builtin_expect(th->forward == forward_key(func, th->depth), 0)) {
		th->forward = 0; /* taken: a callback's call of func counts */
		return 0;
	}
	return begin(r, th, func, REC_BIND_C, caller);
}

int rec_begin_binding_at(struct rec *r, uint32_t func, uint32_t binding,
			 const void *caller)
{
	return begin(r, &thread_state, func, binding, caller);
}

void rec_pmpi_start(struct rec *r)
{
	spill_inside = (sig_atomic_t)(r->func + 1);
	r->t0 = rt_clock();
}

/* From here to rec_end the recorders touch the shared tables (handles,
 * communicators, signatures, grammar): with several threads in MPI, one
 * at a time. */
void rec_pmpi_done(struct rec *r)
{
	r->t1 = rt_clock();
	spill_inside = 0;
	if (rt.locking) {
		pthread_mutex_lock(&rt.lock);
		r->locked = 1;
	}
	spill_enter();
}

int rec_end(struct rec *r, int ret)
{
	struct rt_level *lv = r->lv;
	const struct rec_func *f = rt_func(r->func);
	uint32_t sig;
	int gap_from = 0;

	if (rt.locking && !r->locked) {
		pthread_mutex_lock(&rt.lock);
		r->locked = 1;
	}
	if (!spill_here) /* a hand-written call: no rec_pmpi_done */
		spill_enter();
	if (__builtin_expect(r->outside, 0)) {
		outside_keep(r->outside == REC_EARLY ? &early : &late, r);
	} else if (lv->args.oom || !f) {
		rt.failed = 1;
	} else if (r->paused) {
		/* the recorders kept the tables right; nothing to trace */
	} else {
		sig = record_signature(r->func, f->nparams, lv->args.data,
				       lv->args.len);
		if (sig != UINT32_MAX && __builtin_expect(rt.counting, 0))
			rt.sig[sig].tail++; /* past the memory limit */
		else if (sig == UINT32_MAX || grammar_append(rt.g, sig, 1) < 0)
			sig = UINT32_MAX;
		else
			rt.expect = grammar_expected(rt.g);
		if (sig == UINT32_MAX) {
			rt.failed = 1;
		} else {
			uint64_t d =
				r->t1 > r->t0 ? rt_clock_ns(r->t1 - r->t0) : 0;

			if (lv->pool != UINT32_MAX)
				rt.sig[sig].pool = lv->pool;
			fmt_stat_record(&rt.sig[sig].st, d);
			if (rt.last_end && r->t0 >= rt.last_end)
				fmt_stat_record(
					&rt.sig[sig].gap,
					rt_clock_ns(r->t0 - rt.last_end));
			gap_from = 1;
			timing_call(sig, r->t0, d);
			if (__builtin_expect(
				    ++rt.ncalls % MEMORY_CHECK_EVERY == 0, 0))
				memory_check();
			rt.bind_calls[r->binding]++;
			if (spill_hot.on)
				spill_value(SPILL_CALLS, sig);
			if (__builtin_expect(r->t1 >= spill_hot.due, 0))
				spill_now();
		}
	}
	spill_leave();
	/* the next call's gap starts when the program has its control back:
	 * the tracer's own work is not the program's computation */
	if (gap_from && r->t0)
		rt.last_end = rt_clock();
	if (r->locked)
		pthread_mutex_unlock(&rt.lock);
	lv->args.len = 0;
	lv->args.oom = 0;
	lv->nctx = 0;
	lv->ndup = 0;
	lv->nonheap = 0;
	lv->ntmp = 0;
	r->th->depth--;
	return ret;
}

MPI_Request *rec_save_requests(struct rec *r, const MPI_Request *a, int n)
{
	struct rt_level *lv = r->lv;

	if (n <= 0 || !a)
		return NULL;
	if ((size_t)n > lv->nsaved) {
		MPI_Request *p = realloc(lv->saved, sizeof(*p) * (size_t)n);

		if (!p)
			return NULL;
		lv->saved = p;
		lv->nsaved = (size_t)n;
	}
	memcpy(lv->saved, a, sizeof(*a) * (size_t)n);
	return lv->saved;
}

MPI_Status *rec_status_own(struct rec *r, MPI_Status *s, MPI_Status *own)
{
	if (s != MPI_STATUS_IGNORE)
		return s;
	r->own_status = 1;
	return own;
}

MPI_Status *rec_statuses_own(struct rec *r, MPI_Status *a, int n)
{
	struct rt_level *lv = r->lv;

	if (a != MPI_STATUSES_IGNORE || n <= 0)
		return a;
	if ((size_t)n > lv->nown) {
		MPI_Status *p = realloc(lv->own, sizeof(*p) * (size_t)n);

		if (!p)
			return a; /* recorded as ignored, as before */
		lv->own = p;
		lv->nown = (size_t)n;
	}
	r->own_status = 1;
	return lv->own;
}

/* ---- arguments recorded before (record.h) -------------------------------- */

uint64_t rec_epoch = 1;

/* Whether p is in a heap block: asked of a buffer that was outside the
 * heap when recorded (one allocated since may cover it).  Apart: it is
 * seldom asked, and the lookup would cost the common path its registers. */
static __attribute__((noinline)) int memo_in_heap(const void *p)
{
	uint64_t off;
	uint32_t id;

	return alloc_segment(p, &id, &off);
}

struct rec_memo rec_memo_table[REC_MEMO_SETS][REC_MEMO_WAYS];
static uint8_t memo_next[REC_MEMO_SETS]; /* the way each set replaces next */

int rec_memo_take(struct rec *r, struct rec_memo *m, const uint64_t *key)
{
	struct fmt_buf *b = rec_args(r);

	for (unsigned v = m->verify; v; v &= v - 1) {
		const void *p = (const void *)(uintptr_t)key[__builtin_ctz(v)];

		if (!alloc_outside(p) && memo_in_heap(p))
			return 0;
	}
	if (fmt_buf_reserve(b, sizeof(m->bytes)) < 0)
		return 0;
	memcpy(b->data + b->len, m->bytes, sizeof(m->bytes));
	b->len += m->len;
	rt.memo_hits++;
	return 1;
}

void rec_memo_save(struct rec *r, const uint64_t *key, unsigned n,
		   unsigned bufs)
{
	struct rt_level *lv = r->lv;
	struct rec_memo *m;
	unsigned set = rec_memo_set(r->memo_hash);
	uint16_t verify = 0;

	if (!rt.memo || lv->args.oom || lv->args.len > sizeof(m->bytes) ||
	    n > REC_MEMO_KEYS)
		return;
	/* the buffers outside the heap, to look up again next time */
	for (unsigned v = lv->nonheap ? bufs : 0; v; v &= v - 1)
		if (!memo_in_heap(
			    (const void *)(uintptr_t)key[__builtin_ctz(v)]))
			verify |= (uint16_t)(1u << __builtin_ctz(v));
	/* the ways of a set are replaced in turn */
	m = &rec_memo_table[set][memo_next[set]++ % REC_MEMO_WAYS];
	m->hash = r->memo_hash;
	m->func = rec_memo_func(r->func, n);
	m->verify = verify;
	memcpy(m->key, key, sizeof(*key) * n);
	memcpy(m->bytes, lv->args.data, lv->args.len);
	m->len = (uint8_t)lv->args.len;
	m->epoch = r->epoch;
}

/* ---- plain values -------------------------------------------------------- */

void rec_null(struct rec *r)
{
	fmt_arg_put_none(rec_args(r), RONDO_ARG_NULL);
}

void rec_int(struct rec *r, int64_t v)
{
	/* MPI_UNDEFINED is chosen to be no value a count or index takes */
	if (v == MPI_UNDEFINED)
		fmt_arg_put_uint(rec_args(r), RONDO_ARG_CONST,
				 handles_const_undefined());
	else
		fmt_arg_put_sint(rec_args(r), RONDO_ARG_INT, v);
}

void rec_string(struct rec *r, const char *s)
{
	if (!s)
		rec_null(r);
	else
		fmt_arg_put_bytes(rec_args(r), RONDO_ARG_STRING, s,
				  strnlen(s, 4096));
}

void rec_list(struct rec *r, int64_t n)
{
	fmt_arg_put_list(rec_args(r), RONDO_ARG_ARRAY, n > 0 ? (uint64_t)n : 0);
}

/* ---- lengths from a communicator ----------------------------------------- */

int rec_comm_size(MPI_Comm comm)
{
	int inter = 0, n = 0;

	if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter))
		return 0;
	if (inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n))
		return 0;
	return n;
}

/* In- and out-degree of a process topology (Cartesian: two per dimension). */
static void topo_degrees(MPI_Comm comm, int *in, int *out)
{
	int kind = MPI_UNDEFINED, rank, w;

	*in = *out = 0;
	if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &kind))
		return;
	if (kind == MPI_CART && PMPI_Cartdim_get(comm, in) == 0) {
		*in *= 2;
		*out = *in;
	} else if (kind == MPI_GRAPH && PMPI_Comm_rank(comm, &rank) == 0 &&
		   PMPI_Graph_neighbors_count(comm, rank, in) == 0) {
		*out = *in;
	} else if (kind == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, in, out, &w);
	}
}

int rec_comm_indegree(MPI_Comm comm)
{
	int in, out;

	topo_degrees(comm, &in, &out);
	return in;
}

int rec_comm_outdegree(MPI_Comm comm)
{
	int in, out;

	topo_degrees(comm, &in, &out);
	return out;
}

int rec_cart_ndims(MPI_Comm comm)
{
	int n = 0;

	if (comm == MPI_COMM_NULL || PMPI_Cartdim_get(comm, &n))
		return 0;
	return n;
}

/* ---- the signature table ------------------------------------------------- */

/* Eight bytes at a time: every call hashes its arguments, so this is on
 * the path whose cost the program pays. */
uint64_t record_hash(uint32_t func, const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)func << 32 | n), w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	for (w = 0; n > 0; n--)
		w = w << 8 | p[n - 1];
	h = (h ^ w) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

static int index_grow(void)
{
	uint32_t cap = rt.index_cap ? rt.index_cap * 2 : 1024;
	uint32_t *idx = malloc(sizeof(*idx) * cap);

	if (!idx)
		return -1;
	memset(idx, 0xff, sizeof(*idx) * cap);
	for (uint32_t s = 0; s < rt.nsig; s++) {
		uint32_t i = (uint32_t)rt.sig[s].hash & (cap - 1);

		while (idx[i] != UINT32_MAX)
			i = (i + 1) & (cap - 1);
		idx[i] = s;
	}
	free(rt.sig_index);
	rt.sig_index = idx;
	rt.index_cap = cap;
	return 0;
}

static uint32_t sig_add(uint32_t func, uint32_t nargs, const uint8_t *p,
			size_t n, uint64_t h)
{
	struct rt_sig *s;

	if (util_grow(&rt.sig, &rt.capsig, (size_t)rt.nsig + 1,
		      sizeof(*rt.sig)) < 0)
		return UINT32_MAX;
	s = &rt.sig[rt.nsig];
	memset(s, 0, sizeof(*s));
	*s = (struct rt_sig){.func = func,
			     .nargs = nargs,
			     .len = (uint32_t)n,
			     .off = (uint32_t)rt.sig_bytes.len,
			     .pool = UINT32_MAX,
			     .hash = h};
	fmt_put_bytes(&rt.sig_bytes, p, n);
	if (rt.sig_bytes.oom || rt.sig_bytes.len > UINT32_MAX)
		return UINT32_MAX;
	return rt.nsig++;
}

uint32_t record_signature(uint32_t func, uint32_t nargs, const uint8_t *p,
			  size_t n)
{
	uint64_t h;
	uint32_t i = record_expected(func, p, n, 0);

	/* the call the loop being followed makes next: no hashing */
	if (i != UINT32_MAX)
		return i;
	h = record_hash(func, p, n);

	if ((rt.nsig + 1) * 2 > rt.index_cap && index_grow() < 0)
		return UINT32_MAX;
	for (i = (uint32_t)h & (rt.index_cap - 1);
	     rt.sig_index[i] != UINT32_MAX; i = (i + 1) & (rt.index_cap - 1)) {
		const struct rt_sig *s = &rt.sig[rt.sig_index[i]];

		if (s->hash == h && s->func == func && s->len == n &&
		    record_bytes_equal(rt.sig_bytes.data + s->off, p, n))
			return rt.sig_index[i];
	}
	rt.sig_index[i] = sig_add(func, nargs, p, n, h);
	return rt.sig_index[i];
}

int record_start(void)
{
	rt.g = grammar_create();
	if (!rt.g)
		return -1;
	rt.expect = UINT32_MAX;
	if (rt.timing && timing_start() < 0)
		rt_warn("out of memory at MPI_Init: no per-call times");
	rt.state = RT_ON;
	return 0;
}
