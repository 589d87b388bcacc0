/*
 * runtime.h - the tracer's state inside one MPI process.
 */
#ifndef RONDO_RUNTIME_H
#define RONDO_RUNTIME_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define RT_HAVE_TSC 1
#else
#define RT_HAVE_TSC 0
#endif

#include "format.h"
#include "grammar.h"
#include "record.h"

enum rt_state { RT_BEFORE, RT_ON, RT_DONE };

/* Deepest nesting of recorded calls (a call from a callback inside a
 * recorded call is one level down). */
#define RT_MAX_DEPTH 4

/* Most request values one call names more than once (requests.c). */
#define RT_MAX_DUP 8
/* Arrays a Fortran call converts: at most 4 (MPI_Alltoallw's types, the
 * requests, indices and statuses of MPI_Waitsome). */
#define RT_FORT_TMP 6

/* What a status of a request's completion can add (requests.c). */
struct req_info {
	uint8_t kind; /* enum rec_req_kind */
	uint8_t any_source, any_tag;
	int64_t count;	   /* posted count, -1 when there is none */
	int64_t type_size; /* bytes per element of the posted datatype */
	/* what a status's source is a rank of (enum req_base); for
	 * REQ_BASE_COMM the caller's rank in it, its size, and how it is
	 * recorded in the status (kind 0: not, the call names it) */
	uint8_t base;
	int me, size;
	uint32_t comm_kind;
	uint64_t comm_value;
};

/* A status's source is recorded relative to the caller's world rank, to
 * its rank in the receive's communicator, or absolute (an
 * intercommunicator's, or one not seen). */
enum req_base { REQ_BASE_WORLD, REQ_BASE_COMM, REQ_BASE_ABSOLUTE };

/* One call's scratch space, one per nesting level and thread. */
struct rt_level {
	struct fmt_buf args; /* the encoded argument values */
	MPI_Request *saved;  /* rec_save_requests */
	size_t nsaved;
	MPI_Status *own; /* rec_statuses_own */
	size_t nown;
	struct req_info *ctx; /* the requests the call named, in order */
	uint32_t nctx;
	size_t capctx;
	struct rt_dup {	       /* values shared by several requests: */
		uint64_t key;  /* how many of their occurrences kept */
		uint32_t kept; /* their request */
	} dup[RT_MAX_DUP];
	uint32_t ndup;
	uint32_t pool;	  /* the id pool of the request it created */
	uint32_t nonheap; /* buffers recorded outside the heap */
	/* a Fortran call's values converted to C (fortran.c), kept from
	 * call to call and grown as needed */
	void *tmp[RT_FORT_TMP];
	size_t tmpcap[RT_FORT_TMP];
	uint32_t ntmp; /* used by this call */
};

struct rec_thread {
	int depth;
	uint64_t forward; /* rec_forward's mark: function + 1, depth */
	struct rt_level level[RT_MAX_DEPTH];
};

/* Aggregates of one local signature. */
struct rt_sig {
	uint32_t func;
	uint32_t nargs;
	uint32_t len;
	uint32_t off;  /* of the argument bytes in rt.sig_bytes */
	uint32_t pool; /* its request's id pool (requests.c), or UINT32_MAX */
	uint64_t hash;
	uint64_t tail; /* calls counted past the memory limit (memory.c) */
	rondo_stat st;
	rondo_stat gap; /* the time from the end of the rank's previous call
			   to the start of this one: the computation before
			   it, which a replay spins for */
};

struct rt {
	/* What every recorded call reads, together at the start (one or
	 * two cache lines, whatever the program's data evicted). */
	enum rt_state state;
	int paused;   /* MPI_Pcontrol(0) */
	int disabled; /* RONDO_DISABLE */
	int failed;  /* out of memory once: stop recording, say so at the end */
	int locking; /* MPI_THREAD_MULTIPLE: recording takes rt.lock */
	int track_pointers; /* RONDO_TRACK_POINTERS */
	int memo;	    /* RONDO_MEMO: reuse the bytes of repeated values */
	int counting; /* past RONDO_MEMORY_LIMIT: calls counted, not in order */
	int rank, size;
	uint32_t expect; /* grammar_expected(g) since the last append */
	uint32_t nsig;
	struct grammar *g;
	struct rt_sig *sig; /* local call signatures */
	struct fmt_buf sig_bytes;
	uint64_t ncalls;
	uint64_t last_end;   /* the end of the last call recorded (clock), 0
			      before the first */
	uint32_t *sig_index; /* open addressing over sig, UINT32_MAX empty */
	uint32_t index_cap;
	size_t capsig;
	/* the rest */
	int verbose;	    /* RONDO_VERBOSE */
	uint64_t memo_hits; /* calls whose leading values' bytes were kept */
	uint64_t bind_calls[REC_NBIND]; /* calls traced, by binding */
	int initializing;		/* inside MPI_Init or MPI_Init_thread */
	int lazy;	  /* started without seeing MPI_Init (rt_lazy_start) */
	int aborting;	  /* in MPI_Abort: nothing more is recorded */
	int finalized;	  /* MPI_Finalize made the trace (or tried): later
			     calls go to the after file */
	uint64_t job_key; /* the same on every rank of the job (spill files) */
	int sessions;	  /* started by MPI_Session_init: no MPI_COMM_WORLD */
	MPI_Comm world;	  /* the processes of the job, to gather over */
	MPI_Group world_group; /* theirs, kept to the end: world ranks */
#if MPI_VERSION >= 4
	MPI_Session session; /* sessions: the tracer's own */
#endif
	size_t mem_limit;    /* RONDO_MEMORY_LIMIT, bytes (memory.c) */
	uint64_t count_from; /* rt.ncalls when counting started */
	/* per-call timing (timing.c) */
	int timing;	      /* RONDO_TIMING: 1 per call */
	double time_base;     /* RONDO_TIME_BASE */
	size_t timing_limit;  /* RONDO_TIMING_LIMIT, bytes */
	uint32_t exact_ranks; /* RONDO_RANKTIME_EXACT (job.h) */
	uint32_t tolerance;   /* 100 - RONDO_PRECISION (job.h) */
	unsigned params;      /* RONDO_PRECISION_PARAMS: PARAMS_TAGS... */
	int tstate;	      /* enum rt_timing */
	struct fmt_tscale tscale;
	struct fmt_tenc tenc;
	struct rt_tcall *tbuf;		 /* calls whose codes wait */
	uint32_t tn;			 /* how many */
	struct fmt_tstream tcod;	 /* the calls' codes, coded */
	struct fmt_buf tbytes;		 /* into these bytes */
	int tended;			 /* the stream is ended */
	uint64_t origin_tick;		 /* rt_clock() when the times start */
	uint64_t origin_ns;		 /* and rt_now() */
	uint64_t anchor_tick, anchor_ns; /* the latest such pair */
	uint64_t anchor_due; /* the tick a new pair is taken after */
	double tick_ns;	     /* ns per tick, from origin to anchor */
	pthread_mutex_t lock;
	char out[PATH_MAX]; /* RONDO_OUT, or "" */
	char start[32];	    /* ISO 8601 time of MPI_Init */
	uint64_t start_ns;  /* and on the monotonic clock (rt_now) */
	char stamp[32];	    /* the same as YYYYMMDD-HHMMSS for file names */
};

extern struct rt rt;

/* Hand-written functions get ids after the generated ones. */
enum rt_func { RT_INIT, RT_INIT_THREAD, RT_FINALIZE, RT_PCONTROL, RT_NFUNCS };

/* Name, parameters and output flags of function id `f` (inline: every
 * recorded call asks). */
extern const struct rec_func rt_hand_written[RT_NFUNCS];
static inline const struct rec_func *rt_func(uint32_t f)
{
	if (f < rec_nfuncs)
		return &rec_funcs[f];
	return f - rec_nfuncs < RT_NFUNCS ? &rt_hand_written[f - rec_nfuncs]
					  : NULL;
}
uint32_t rt_nfuncs(void);

/* Monotonic nanoseconds. */
uint64_t rt_now(void);
/* The clock calls are timed with (the time-stamp counter where the kernel
 * trusts it, else rt_now), and a difference of two readings in ns. */
extern int rt_clock_tsc; /* 1: the counter, 0: rt_now, -1: not chosen yet */
uint64_t rt_clock_slow(void);
static inline uint64_t rt_clock(void)
{
#if RT_HAVE_TSC
	if (rt_clock_tsc > 0)
		return __rdtsc();
#endif
	return rt_clock_slow();
}
uint64_t rt_clock_ns(uint64_t d);
/* The number of rt_clock() ticks in ns nanoseconds. */
uint64_t rt_clock_ticks(uint64_t ns);
/* rt_now() and rt_clock() read together, as closely as can be. */
void rt_clock_pair(uint64_t *ns, uint64_t *tick);

/* Warns once per key on rank 0 (or any rank before the rank is known). */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Starts tracing at a call made with MPI up though MPI_Init was not seen;
 * 0 when tracing is on. */
int rt_lazy_start(uint32_t func);

/* Reads the RONDO_* environment; bad values warn and keep the default. */
void rt_settings(void);

/* ---- tools.c ------------------------------------------------------------- */
/* Says on rank 0, once, which other file defines MPI_Send before or after
 * rondo's (another PMPI tool), if one does. */
void tools_report(void);
/* A yes/no value (1/0, yes/no, true/false, on/off, case ignored; "" is
 * no): 1 or 0, -1 for NULL or anything else.  Safe before MPI_Init. */
int rt_bool(const char *v);

/* ---- record.c ------------------------------------------------------------ */
/* Where the current call's argument values are encoded. */
static inline struct fmt_buf *rec_args(struct rec *r)
{
	return &r->lv->args;
}
/* The hash signatures are looked up by. */
uint64_t record_hash(uint32_t func, const uint8_t *p, size_t n);
/* Starts recording: the grammar and tables exist, state RT_ON. */
int record_start(void);
/* The calls outside MPI_Init..MPI_Finalize (record.h), once tracing and
 * the spill stream are on: records those kept from before, and has those
 * after MPI_Finalize said at exit (RONDO_VERBOSE). */
void record_outside(void);
/* Finds or adds the signature of the current call; UINT32_MAX when out of
 * memory. */
uint32_t record_signature(uint32_t func, uint32_t nargs, const uint8_t *p,
			  size_t n);
/* Whether n bytes at a and b are equal: inline, 8 at a time, for the
 * short argument strings every call compares (memcmp is a call). */
static inline int record_bytes_equal(const uint8_t *a, const uint8_t *b,
				     size_t n)
{
	uint64_t x, y;

	if (n < 8) {
		while (n > 0 && *a == *b)
			a++, b++, n--;
		return n == 0;
	}
	for (; n > 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	/* the last 8 bytes, overlapping those compared already */
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* The signature the grammar expects next, if it is func with these
 * argument bytes (prefix: bytes it begins with), else UINT32_MAX.  Inline:
 * every call asks, and a call that creates a request twice. */
static inline uint32_t record_expected(uint32_t func, const uint8_t *p,
				       size_t n, int prefix)
{
	uint32_t t = rt.expect;
	const struct rt_sig *s;

	if (t >= rt.nsig)
		return UINT32_MAX;
	s = &rt.sig[t];
	if (s->func != func || (prefix ? s->len < n : s->len != n) ||
	    !record_bytes_equal(rt.sig_bytes.data + s->off, p, n))
		return UINT32_MAX;
	return t;
}

/* Moves on whenever a value recorded before may now be recorded
 * otherwise (record.h, "arguments recorded before"); from any thread. */
extern uint64_t rec_epoch;
static inline void rec_epoch_bump(void)
{
	__atomic_fetch_add(&rec_epoch, 1, __ATOMIC_RELAXED);
}

/* ---- handles.c ----------------------------------------------------------- */
/* Named constants: index in the trace's constant table. */
uint32_t handles_const_count(void);
/* The constants MPI_UNDEFINED, MPI_REQUEST_NULL and a cancelled status
 * are recorded as. */
uint32_t handles_const_undefined(void);
uint32_t handles_const_request_null(void);
uint32_t handles_const_cancelled(void);
uint32_t handles_const_status_ignore(void);
/* A status's source, a rank of a communicator where the caller is rank
 * me of size (me < 0: recorded absolute), and MPI_STATUS_IGNORE. */
void rec_status_source(struct rec *r, int source, int me, int size);
void rec_status_ignored(struct rec *r);

/* ---- requests.c ---------------------------------------------------------- */
void requests_init(uint32_t null_const);
const char *handles_const_name(uint32_t i);
/* The size in bytes of constant c when it names a predefined datatype
 * (from MPI at MPI_Init), else -1. */
int64_t handles_const_type_size(uint32_t c);
void handles_init(void);

/* ---- ending.c ------------------------------------------------------------ */
/* Puts the tracer's signal handlers in front of those set so far and
 * watches for an exit without MPI_Finalize (after spill_start). */
void ending_start(void);

/* ---- comms.c ------------------------------------------------------------- */
/* A predefined communicator is recorded as constant `constant`. */
void comms_name(MPI_Comm c, uint32_t constant);
/* How communicator c is recorded (kind CONST or COMM, and the value), and
 * this rank's rank in it and its size, without asking MPI: 0 for an
 * intracommunicator, 1 for an intercommunicator (*me -1), -1 for one not
 * seen or a predefined one that is neither world nor self (*me -1; kind
 * and value set if it was seen). */
int comms_describe(MPI_Comm c, uint32_t *kind, uint64_t *value, int *me,
		   int *size);
/* The same, for this rank's rank and the size alone, and *cart the
 * communicator's Cartesian topology (NULL: none). */
struct comm_cart;
int comms_rank(MPI_Comm c, int *me, int *size, const struct comm_cart **cart);
/* A Cartesian topology: dims[k] ranks along dimension k (the last one
 * varies fastest in rank order), periodic[k] 1 if it wraps. */
#define COMMS_MAX_DIMS 8
struct comm_cart {
	uint32_t ndims;
	uint32_t dims[COMMS_MAX_DIMS];
	uint8_t periodic[COMMS_MAX_DIMS];
};
/* How rank `rank` of a Cartesian grid is recorded by a caller at rank me
 * (kind CART_REL, FORMAT.md): the offset of each coordinate, d[k] in
 * (-dims[k]/2, dims[k]/2], as sum(d[k] * stride[k]). */
int64_t comms_cart_offset(const struct comm_cart *g, int me, int rank);

/* This rank's rank in the intracommunicator of identity key, or -1. */
int comms_key_rank(uint64_t key);
/* Adds the identities this rank speaks for (it is their lowest world
 * rank), with their members, to a merge (merge.h). */
struct merge;
int comms_merge(struct merge *m);
/* Writes the communicators this rank learned of since *done to a spill
 * (spill_fmt.h), async-signal-safe. */
struct spill_w;
void comms_spill(struct spill_w *w, uint32_t *done);

/* ---- alloc.c ------------------------------------------------------------- */
/* The live heap block that contains p: sets *id to its segment id (given
 * now, lowest free first, if no recorded call named it before) and *off to
 * p's offset in it, and returns 1.  Returns 0 when p is in no block the
 * tracker knows (stack, static data, memory it did not see allocated, or
 * tracking off). */
int alloc_segment(const void *p, uint32_t *id, uint64_t *off);
/* Whether p lies outside every block tracked so far, so in none now:
 * without a lookup or the lock. */
extern uintptr_t alloc_span_lo, alloc_span_hi;
static inline int alloc_outside(const void *p)
{
	uintptr_t lo = __atomic_load_n(&alloc_span_lo, __ATOMIC_RELAXED);

	return (uintptr_t)p - lo >=
	       __atomic_load_n(&alloc_span_hi, __ATOMIC_RELAXED) - lo;
}
/* A fresh id from the pool segments use, for an address outside the heap;
 * it is never released.  UINT32_MAX when out of memory. */
uint32_t alloc_new_id(void);
/* Blocks that could not be tracked for want of memory (their buffers are
 * recorded by address). */
uint64_t alloc_untracked(void);
/* Files the blocks allocated so far where lookups find them: those still
 * live once MPI is up (thousands, from MPI_Init) live long, and the first
 * recorded call to name a heap buffer would otherwise pay for them all. */
void alloc_settle(void);
/* Stops tracking for good: the allocation functions only forward from now
 * on (tracing ended, is disabled, or records no pointers). */
void alloc_stop(void);

/* ---- timing.c ------------------------------------------------------------ */
/* A timed call whose codes wait to be coded, in bulk, RT_TBUF at a
 * time. */
#define RT_TBUF 1024
struct rt_tcall {
	uint32_t sig, dc, ic;
};
enum rt_timing {
	RT_TIMING_OFF,	 /* statistics only */
	RT_TIMING_ON,	 /* per call */
	RT_TIMING_LIMIT, /* per call up to the limit, then statistics */
	RT_TIMING_LOST,	 /* out of memory: no per-call time kept */
};
#define RT_TIME_BASE_DEFAULT	1.1
#define RT_TIMING_LIMIT_DEFAULT ((size_t)256 << 20)
/* The scale, the buffer and the origin: 0, or -1 when out of memory. */
int timing_start(void);
void timing_call_slow(uint32_t sig, uint64_t t0, uint64_t dur);
/* A recorded call of signature sig, started at clock reading t0, that
 * took dur ns. */
static inline void timing_call(uint32_t sig, uint64_t t0, uint64_t dur)
{
	if (__builtin_expect(rt.tstate == RT_TIMING_ON, 0))
		timing_call_slow(sig, t0, dur);
}
/* Stops per-call times for good (the memory limit, MPI_Pcontrol's level
 * RT_PCONTROL_TIMES_OFF): the calls so far keep theirs. */
void timing_halt(void);
#define RT_PCONTROL_TIMES_OFF 3
/* The rank's coded stream, ended (*n 0 when it kept no time; *calls the
 * calls it holds), valid until timing_free: 0, or -1 when out of
 * memory. */
int timing_export(const uint8_t **p, size_t *n, uint64_t *calls);
/* Collective over comm: on rank 0, *skew (size entries, or NULL) is each
 * rank's clock minus rank 0's, and `how` says how it was found; nothing
 * when no rank keeps per-call times. */
int timing_align(MPI_Comm comm, int rank, int size, int64_t **skew, char *how,
		 size_t howlen);
/* The stream freed (at MPI_Finalize, once written); the encoder of codes
 * stays while every call has its times, for timing_after. */
void timing_free(void);
/* After MPI_Finalize: the codes of a call the rank made then (t0, its
 * clock reading; dur, ns), measured as the
 * calls before them were.  Returns 0, or -1 when the rank has no per-call
 * times (or not for every call so far). */
int timing_after(uint64_t t0, uint64_t dur, uint32_t *dc, uint32_t *ic);

/* ---- memory.c ------------------------------------------------------------ */
/* Calls between two looks at the tracer's memory. */
#define MEMORY_CHECK_EVERY 4096
/* RONDO_MEMORY_LIMIT's default on this node. */
size_t memory_default_limit(void);
/* Bytes the tracer holds that grow with the calls, with what their next
 * growth holds beside them while it copies. */
size_t memory_used(void);
/* From a recorder every MEMORY_CHECK_EVERY calls: past the limit, later
 * calls are counted on their signatures (rt.counting). */
void memory_check(void);
/* At MPI_Finalize: the counted calls join the grammar, each signature's
 * as one repeated symbol.  0, or -1 when out of memory. */
int memory_finish(void);
/* Collective over comm: 1 when a rank counted calls (every rank's spill
 * file is then kept), and on rank 0 what the metadata says of it in buf;
 * 0 and "" when none did. */
int memory_report(MPI_Comm comm, int rank, int size, char *buf, size_t len);

/* ---- merge_tree.c -------------------------------------------------------- */
/* The ranks at MPI_Finalize, merging in ceil(log2 P) rounds: rank 0 ends
 * with the whole job. */
struct merge_tree {
	MPI_Comm comm; /* the tracer's own copy of the job's processes */
	int rank, size;
	uint32_t rounds;
	size_t largest;
	double busy; /* seconds spent merging what came in */
};
struct relative;
/* Decides which rank-derived integers are stored relative to the caller:
 * this rank observes its signatures (cst; NULL: none), the tree merges
 * the observations, rank 0 decides and tells every rank, into R (NULL:
 * none, the rank takes part all the same).  Collective over t->comm. */
void merge_tree_relative(struct merge_tree *t, struct relative *R,
			 const struct fmt_cst *cst);
/* Merges the ranks' tables up the tree: this rank's (cst, g and st when
 * ok, else it counts as failed) with the choice of relative integers
 * applied, then what the ranks above it send.  Returns the merge, on
 * rank 0 the whole job's; NULL when out of memory (the rank takes part
 * all the same, and its parent counts its ranks as failed).  Collective
 * over t->comm. */
struct merge *merge_tree_gather(struct merge_tree *t, struct relative *R,
				struct fmt_cst *cst, int ok,
				const struct fmt_grammar *g,
				const struct fmt_stats *st);

/* ---- output.c ------------------------------------------------------------ */
/* Gathers every rank's tables and grammar on rank 0, which writes the
 * trace.  Collective over MPI_COMM_WORLD; call before PMPI_Finalize. */
void output_write(void);
/* The path the trace is written to first: RONDO_OUT's file, or the
 * default name in RONDO_OUT's folder or the working directory. */
void output_path(char *buf, size_t size);
/* What the file's metadata says of this process, read once. */
struct output_facts {
	char program[256], command[4096], host[256];
	char mpi[MPI_MAX_LIBRARY_VERSION_STRING]; /* MPICH's: 8192 */
	char mpi_version[16], settings[512];
};
void output_facts(struct output_facts *f);

#endif /* RONDO_RUNTIME_H */
