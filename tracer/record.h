/*
 * record.h - what a generated wrapper calls to record one MPI call.
 *
 * Every wrapper has the same shape:
 *
 *	int MPI_Xxx(args)
 *	{
 *		struct rec r;
 *		int ret;
 *
 *		if (!rec_begin(&r, RF_MPI_Xxx))
 *			return PMPI_Xxx(args);
 *		(save inout handles and request arrays the call may change)
 *		rec_pmpi_start(&r);
 *		ret = PMPI_Xxx(args);
 *		rec_pmpi_done(&r);
 *		(one recorder per parameter, in parameter order)
 *		return rec_end(&r, ret);
 *	}
 *
 * All values are recorded after the PMPI call, in parameter order, one
 * value per parameter (a list counts as one value): inputs passed by value
 * are unchanged by then, outputs are known, and inout handles were saved
 * before the call.  So encoding stays out of the measured duration, and
 * the recorded values line up with the parameter names the trace stores.
 *
 * rec_begin() returns 0 when this call is not to be recorded: after
 * MPI_Finalize, before MPI_Init (but for the few functions MPI allows
 * then, below), with RONDO_DISABLE set, when the call is a binding's
 * forwarding of a call being recorded (rec_forward), or when it is made
 * by the MPI library from inside another recorded call (the re-entrancy
 * guard).  Calls the program makes from inside MPI callbacks are
 * recorded.  While paused by MPI_Pcontrol(0) a
 * call goes through the recorders all the same, so that the handles,
 * requests and buffers it creates or frees are known after the pause, and
 * rec_end() leaves it out of the trace.
 *
 * Calls outside MPI_Init..MPI_Finalize.  Before MPI_Init a program may
 * ask MPI_Initialized, MPI_Finalized, MPI_Get_version and
 * MPI_Get_library_version (mpi4py and HPCC do): their values need no
 * table, so rec_end() keeps them encoded, with their times, in a fixed
 * buffer, and record_outside() records them at the start of tracing, in
 * order, ahead of MPI_Init, through rec_end() as any call (signatures,
 * grammar, statistics, the spill stream); past the buffer's room they
 * are counted and rank 0 says so.  After MPI_Finalize the trace is
 * written already (the merge needs MPI, gone by then): the same four
 * functions are kept in another such buffer, and at exit written to the
 * rank's after file (spill.h), from which `rondo run` or `rondo recover`
 * adds them to the trace; other calls then are only counted, and rank 0
 * says how many.
 */
#ifndef RONDO_RECORD_H
#define RONDO_RECORD_H

#include <mpi.h>
#include <stdint.h>

#include "hmap.h" /* HMAP_KEY: the wrappers' kept values */

struct rt_level;

/* The wrappers are the module's interface: exported whatever visibility
 * mpi.h gives its declarations (Open MPI marks them default, MPICH does
 * not, and the module is built with hidden visibility). */
#define REC_API __attribute__((visibility("default")))

/* The recording state of one call, on the wrapper's stack. */
/* The language binding a call came through (rondo info counts them). */
enum rec_binding {
	REC_BIND_C,   /* the C functions */
	REC_BIND_F,   /* mpif.h and `use mpi`: mpi_send_ */
	REC_BIND_F08, /* `use mpi_f08`: mpi_send_f08_, mpi_send_f08ts_ */
	REC_NBIND
};

/* A call outside MPI_Init..MPI_Finalize (struct rec's outside). */
enum {
	REC_EARLY = 1, /* before MPI_Init: kept for record_outside */
	REC_LATE = 2   /* after MPI_Finalize: kept for the after file */
};

struct rec {
	uint32_t func;	  /* index into rec_funcs */
	uint32_t binding; /* enum rec_binding; rec_begin sets REC_BIND_C */
	int outside;	  /* REC_EARLY, REC_LATE: kept, not recorded now */
	uint64_t t0, t1;  /* PMPI call start and end, ns */
	int locked;	  /* holds the runtime's lock (MPI_THREAD_MULTIPLE) */
	int paused;	  /* made while paused: bookkeeping only, not traced */
	struct rec_thread *th;
	struct rt_level *lv; /* its scratch space: where values are encoded */
	uint64_t epoch;	     /* rec_epoch when rec_memo_hit looked */
	uint64_t memo_hash;  /* of the values it looked for */
	int own_status;	     /* the program passed MPI_STATUS(ES)_IGNORE: the
				call got the tracer's own, recorded marked */
};

/* A function the wrappers know: its name and its parameters, in order;
 * out[i] is 1 for an output (recorded after the call as an output value,
 * shown marked as such). */
struct rec_func {
	const char *name;
	uint32_t nparams;
	const char *const *params;
	const unsigned char *out;
};

/* Generated (tracer/wrappers.c): every wrapped function; RF_<name> is its
 * index. */
extern const struct rec_func rec_funcs[];
extern const uint32_t rec_nfuncs;

/* rec_begin(r, func): 1 to record this call, 0 to pass it through.  A
 * macro so that the wrapper's own caller is known: a call made from inside
 * the MPI library is internal, one from the program (even from a callback
 * MPI invoked) is recorded. */
int rec_begin_at(struct rec *r, uint32_t func, const void *caller);
#define rec_begin(r, func)                                                     \
	rec_begin_at((r), (func), __builtin_return_address(0))
/* The same at a binding's entry point (a Fortran wrapper), which sets
 * r->binding: never the forwarding of another's call (rec_forward), so a
 * Fortran callback's call made while one is forwarded is recorded. */
int rec_begin_binding_at(struct rec *r, uint32_t func, uint32_t binding,
			 const void *caller);
#define rec_begin_binding(r, func, binding)                                    \
	rec_begin_binding_at((r), (func), (binding),                           \
			     __builtin_return_address(0))
void rec_pmpi_start(struct rec *r);
void rec_pmpi_done(struct rec *r);

/* A binding's entry point (a Fortran wrapper) is about to forward call
 * func to the library's own entry point, which may call the C function of
 * that name (MPICH's do): that C call, the next of func on this thread at
 * this depth, is the forwarding, not the program's, whatever address it
 * comes from, another PMPI tool stacked before rondo included (its
 * MPI_Send passing the call on to rondo's).  A callback the library runs
 * meanwhile may call func itself: it comes after the forwarding, which
 * took the mark, and is recorded.  So the mark is set only where the
 * library's function calls the C one: *calls_c, the entry point's own,
 * says so (fortran.h, FORT_CALLS_C), and is set to 0 when a forwarding
 * returns with the mark untaken (the library's function called PMPI_), so
 * that a mark no one takes does not take a callback's call for the
 * forwarding.  rec_forward returns the mark it replaced, for
 * rec_forward_done to put back after the call. */
uint64_t rec_forward(uint32_t func, const unsigned char *calls_c);

/* rondo-replay posts a wildcard receive or probe with the source and tag
 * the original matched, so that matching is the original's, and says so
 * first (rondo_replay_posted, exported): the call is recorded as the
 * program posted it, a wildcard, and its status keeps what it matched.
 * rec_as_posted, in the wrappers of calls with a source and a tag after
 * the library's call, puts the posted values back; once per hint. */
REC_API void rondo_replay_posted(int source, int tag);
void rec_as_posted(int *source, int *tag);
/* rondo-replay hands a Wait or Test call requests that never complete in
 * place of those the original's call did not complete (so that it
 * completes the same ones), and says so first: stand_in[k] is recorded as
 * the request real[k] is, until it says n = 0 after the call. */
REC_API void rondo_replay_stand_ins(const MPI_Request *stand_in,
				    const MPI_Request *real, int n);
void rec_forward_done(uint32_t func, uint64_t saved, unsigned char *calls_c);

/* Records the call (signature, grammar, timing) and returns ret. */
int rec_end(struct rec *r, int ret);
/* MPI_Abort(errorcode) is about to be called, and recorded already: the
 * rank's record is saved (ending.c), and no call after it is recorded. */
void rt_abort(int errorcode);

/* ---- arguments recorded before ---------------------------------------------
 * A call made again with the same values records the same bytes, as long
 * as the tables that give them meaning did not change: a loop's MPI_Isend
 * names the same buffer, datatype, peer, tag and communicator every time.
 * So the leading parameters whose recorders only read the tables
 * (scalars, buffers, input handles) are kept with the bytes they were
 * recorded as, in a table shared by all wrappers: REC_MEMO_SETS sets of
 * REC_MEMO_WAYS entries, a set chosen by a hash of the function and the
 * values.  A halo exchange's four MPI_Irecv calls, alternating between
 * two grids, are eight entries, all kept.  When the values come again,
 * the bytes are reused.  Every change that can give a value another
 * meaning (a handle or communicator freed, a named heap block freed or
 * resized, allocation tracking stopped) moves rec_epoch on, which voids
 * every kept entry; a buffer that was outside the heap is looked up
 * again, since a block allocated later may cover it.  RONDO_MEMO=0 turns
 * this off; the trace is the same either way (tests/mpi.sh compares). */
#define REC_MEMO_KEYS  8
#define REC_MEMO_BYTES 64
#define REC_MEMO_SETS  128
#define REC_MEMO_WAYS  4
struct rec_memo {
	uint64_t epoch; /* rec_epoch when kept; 0: nothing kept */
	uint64_t hash;	/* rec_memo_hash of the function and the values */
	uint64_t func;	/* the function and the number of values */
	uint64_t key[REC_MEMO_KEYS];
	uint16_t verify; /* keys that are buffers outside the heap */
	uint8_t len;
	uint8_t bytes[REC_MEMO_BYTES];
};
/* The table; a set's ways are replaced in turn (rec_memo_save). */
extern struct rec_memo rec_memo_table[REC_MEMO_SETS][REC_MEMO_WAYS];
extern uint64_t rec_epoch;

static inline uint64_t rec_memo_func(uint32_t func, unsigned n)
{
	return (uint64_t)func << 8 | n;
}

static inline uint64_t rec_memo_hash(uint32_t func, const uint64_t *key,
				     unsigned n)
{
	uint64_t h = rec_memo_func(func, n);

	for (unsigned i = 0; i < n; i++)
		h = (h ^ key[i]) * 0x9e3779b97f4a7c15ull;
	return (h ^ h >> 29) | 1; /* never 0, an entry never kept */
}

/* The set a hash's entries live in: its high bits, which every value
 * reached through the multiplications. */
static inline unsigned rec_memo_set(uint64_t hash)
{
	return (unsigned)(hash >> 56) & (REC_MEMO_SETS - 1);
}

/* The bytes of entry m, kept for these values, recorded if they still
 * mean the same: 1, or 0 when they must be recorded afresh. */
int rec_memo_take(struct rec *r, struct rec_memo *m, const uint64_t *key);

/* 1 when the n values key[] of the current call's function are kept and
 * still mean the same: their bytes are recorded.  0: record them (the
 * recorders, then rec_memo_save; bufs: the keys that are buffers, a bit
 * each).  Inline, so that the wrapper's constant n unrolls the hash and
 * the comparison; the kept entries are not looked at with RONDO_MEMO=0,
 * since none is kept then. */
static inline int rec_memo_hit(struct rec *r, const uint64_t *key, unsigned n)
{
	uint64_t h = rec_memo_hash(r->func, key, n), d = 0;
	struct rec_memo *m = rec_memo_table[rec_memo_set(h)];
	unsigned w;

	r->epoch = __atomic_load_n(&rec_epoch, __ATOMIC_RELAXED);
	r->memo_hash = h;
	for (w = 0; w < REC_MEMO_WAYS && m->hash != h; w++, m++)
		;
	if (w == REC_MEMO_WAYS || m->epoch != r->epoch ||
	    m->func != rec_memo_func(r->func, n))
		return 0;
	for (unsigned i = 0; i < n; i++)
		d |= m->key[i] ^ key[i];
	return d ? 0 : rec_memo_take(r, m, key);
}
void rec_memo_save(struct rec *r, const uint64_t *key, unsigned n,
		   unsigned bufs);

/* ---- scalar values ------------------------------------------------------ */
void rec_null(struct rec *r);		/* NULL pointer, not recorded */
void rec_int(struct rec *r, int64_t v); /* counts, sizes, flags... */
void rec_tag(struct rec *r, int tag);	/* MPI_ANY_TAG by name */
/* A rank in `comm` (dest, source, root): MPI_ANY_SOURCE, MPI_PROC_NULL,
 * MPI_ROOT by name, others relative to the caller where that helps. */
void rec_rank(struct rec *r, int rank, MPI_Comm comm);
/* A collective's root: the same on every rank that takes part, so stored
 * as it is (MPI_ROOT and MPI_PROC_NULL by name). */
void rec_root(struct rec *r, int root);
void rec_buf(struct rec *r, const void *p); /* MPI_IN_PLACE, MPI_BOTTOM */
/* A type constructor's byte displacement: a buffer when it is an absolute
 * address (in a heap block, or too far from 0 to be relative), else an
 * integer. */
void rec_disp(struct rec *r, MPI_Aint v);
void rec_string(struct rec *r, const char *s);
void rec_callback(struct rec *r, void (*fn)(void));
/* The next n values are the elements of one list (an array parameter). */
void rec_list(struct rec *r, int64_t n);

/* Statuses written by the call (MPI_STATUS_IGNORE recorded as such),
 * reduced to the fields that cannot be inferred (requests.c):
 *  - rec_status_req: the status of the k-th request the call named (the
 *    request arguments recorded before it; MPI_UNDEFINED: none, an empty
 *    status);
 *  - rec_status_recv: of a blocking receive or probe posted with these
 *    values (count -1: none posted, a probe; comm MPI_COMM_NULL: the call
 *    names none, MPI_Mrecv);
 *  - rec_status_io: of a file operation of count elements of type;
 *  - rec_status: of unknown origin, every field. */
void rec_status(struct rec *r, const MPI_Status *s);
/* A status the call reads (MPI_Get_count...): its fields were recorded by
 * the call that wrote it; none is recorded again. */
void rec_status_read(struct rec *r, const MPI_Status *s);
void rec_status_req(struct rec *r, const MPI_Status *s, int k);
void rec_status_recv(struct rec *r, const MPI_Status *s, int64_t count,
		     MPI_Datatype type, int source, int tag, MPI_Comm comm);
void rec_status_io(struct rec *r, const MPI_Status *s, int64_t count,
		   MPI_Datatype type);
/* An array of statuses passed as MPI_STATUSES_IGNORE (Open MPI gives it
 * the same value as MPI_STATUS_IGNORE, so the wrapper says which). */
void rec_statuses_ignored(struct rec *r);

/* ---- handles -------------------------------------------------------------
 * For each handle type H: rec_H records an existing handle the call reads;
 * rec_H_out a handle the call created (a new symbolic id); rec_H_inout a
 * handle the call may change or free, given its value before and after the
 * call (after == the null handle: the id is released). */
#define REC_HANDLE(H, T)                                                       \
	void rec_##H(struct rec *r, T h);                                      \
	void rec_##H##_out(struct rec *r, T h);                                \
	void rec_##H##_inout(struct rec *r, T before, T after);

REC_HANDLE(comm, MPI_Comm)
REC_HANDLE(group, MPI_Group)
REC_HANDLE(datatype, MPI_Datatype)
REC_HANDLE(op, MPI_Op)
REC_HANDLE(info, MPI_Info)
REC_HANDLE(errhandler, MPI_Errhandler)
REC_HANDLE(win, MPI_Win)
REC_HANDLE(file, MPI_File)
REC_HANDLE(message, MPI_Message)
REC_HANDLE(request, MPI_Request)
#if MPI_VERSION >= 4
REC_HANDLE(session, MPI_Session)
#endif
#undef REC_HANDLE

/* A request a call created (rec_request_out is rec_request_new for
 * REC_REQ_OTHER): kind says what its completion's status can add; a
 * receive passes its posted count, datatype, source, tag and
 * communicator (MPI_COMM_NULL: unknown), a file operation its count and
 * datatype (the others are ignored).  The id comes
 * from the pool of the call's signature without the request, so the
 * request must be the call's last argument recorded. */
enum rec_req_kind {
	REC_REQ_NULL,	 /* MPI_REQUEST_NULL: an empty status */
	REC_REQ_OTHER,	 /* sends, collectives, one-sided: a cancellation */
	REC_REQ_RECV,	 /* receives: the wildcards matched, the count */
	REC_REQ_IO,	 /* file operations: the count transferred */
	REC_REQ_UNKNOWN, /* generalized, or not seen created: every field */
};
void rec_request_new(struct rec *r, MPI_Request h, int kind, int64_t count,
		     MPI_Datatype type, int source, int tag, MPI_Comm comm);

/* The communicator a non-blocking duplication (MPI_Comm_idup) returns: it
 * may not be usable before the call's request completes, so it is named
 * by the members of the communicator it duplicates. */
void rec_comm_dup_out(struct rec *r, MPI_Comm c, MPI_Comm parent);

/* A copy of n requests, taken before a call that may change them (Waitall,
 * Testsome...); valid until rec_end. */
MPI_Request *rec_save_requests(struct rec *r, const MPI_Request *a, int n);

/* The status a call's PMPI gets: s, or `own` when the program passed
 * MPI_STATUS_IGNORE, so that the trace keeps what a replay needs (the
 * source and tag a wildcard receive matched); its fields are then
 * recorded, marked MPI_STATUS_IGNORE.  rec_statuses_own: the same for an
 * array of n statuses (MPI_STATUSES_IGNORE), the level's scratch valid
 * until rec_end (MPI_STATUSES_IGNORE itself when memory is short). */
MPI_Status *rec_status_own(struct rec *r, MPI_Status *s, MPI_Status *own);
MPI_Status *rec_statuses_own(struct rec *r, MPI_Status *a, int n);

/* ---- lengths the API description marks "*" ------------------------------ */
int rec_comm_size(MPI_Comm comm);     /* remote size for an intercomm */
int rec_comm_indegree(MPI_Comm comm); /* neighbourhood collectives */
int rec_comm_outdegree(MPI_Comm comm);
int rec_cart_ndims(MPI_Comm comm);

#endif /* RONDO_RECORD_H */
