/*
 * replay.h - what rondo-replay's parts share: the replaying rank's state,
 * and the accessors the generated call functions (calls.c, written by
 * gen/gen_replay.py) use to turn a call signature's recorded values back
 * into the arguments of a real MPI call.
 *
 * A signature's values are decoded once, the first time the rank replays
 * it (struct rp_sig); what depends on the run (handles, memory) is looked
 * up in tables indexed by the symbolic ids the trace uses, at each call.
 */
#ifndef RONDO_REPLAY_H
#define RONDO_REPLAY_H

#include <mpi.h>
#include <stdint.h>

#include "rondo.h"
#include "val.h"

/* A status value, its fields by kind. */
struct rp_status {
	int has_source, has_tag, has_count, cancelled, ignored;
	struct rp_val source, tag;
	int64_t count;
};

/* One signature as this rank replays it. */
struct rp_sig {
	int ready;
	int handler; /* index into rp_calls[], or -1: not replayable */
	uint32_t nargs;
	struct rp_val *v;
	double gap_ns; /* the mean time before its calls, scaled */
	int kflag;     /* its function's parameter "flag": index + 2, 1
			  when it has none, 0 when not looked up yet */
};

/* The call being replayed: its signature, for the accessors. */
struct rp_call {
	uint32_t sig;
	struct rp_sig *s;
	uint64_t index; /* its place in the rank's calls */
	int skip;	/* not to be issued (a failed poll, --polls once) */
};

/* A generated call function: issues the call, returns MPI's code. */
typedef int (*rp_fn)(struct rp_call *c);

struct rp_entry {
	const char *name;
	const char *params; /* the parameters' names, space-separated, as the
			       trace's function table should give them */
	rp_fn fn;
};

/* Every function the replay can issue (calls.c), sorted by name. */
extern const struct rp_entry rp_calls[];
extern const unsigned rp_ncalls;

/* ---- accessors for the generated code (rt.c) ------------------------- */

int64_t rp_int(struct rp_call *c, uint32_t k);
int rp_rank(struct rp_call *c, uint32_t k);
int rp_tag(struct rp_call *c, uint32_t k);
/* Integer arrays of the value's length (a constant MPI_UNWEIGHTED... as
 * its pointer): cached with the signature. */
int *rp_ints(struct rp_call *c, uint32_t k);
MPI_Aint *rp_aints(struct rp_call *c, uint32_t k);
MPI_Count *rp_counts(struct rp_call *c, uint32_t k);
MPI_Offset *rp_offsets(struct rp_call *c, uint32_t k);
/* Scratch space for an output of `size` bytes times the recorded length
 * (at least one element). */
void *rp_out(struct rp_call *c, uint32_t k, size_t size);
const char *rp_string(struct rp_call *c, uint32_t k);

MPI_Comm rp_comm(struct rp_call *c, uint32_t k);
MPI_Group rp_group(struct rp_call *c, uint32_t k);
MPI_Datatype rp_datatype(struct rp_call *c, uint32_t k);
MPI_Datatype *rp_datatypes(struct rp_call *c, uint32_t k);
MPI_Op rp_op(struct rp_call *c, uint32_t k);
MPI_Info rp_info(struct rp_call *c, uint32_t k);
MPI_Errhandler rp_errhandler(struct rp_call *c, uint32_t k);
MPI_Win rp_win(struct rp_call *c, uint32_t k);
MPI_File rp_file(struct rp_call *c, uint32_t k);
#if MPI_VERSION >= 4
MPI_Session rp_session(struct rp_call *c, uint32_t k);
void rp_set_session(struct rp_call *c, uint32_t k, MPI_Session h);
MPI_Session_errhandler_function *rp_Session_errh_fn(struct rp_call *c,
						    uint32_t k);
#endif
MPI_Message *rp_message(struct rp_call *c, uint32_t k);
MPI_Request *rp_request(struct rp_call *c, uint32_t k);
MPI_Request *rp_requests(struct rp_call *c, uint32_t k);
/* The request the trace names `id`: its slot in the table. */
MPI_Request *rp_request_id(int64_t id);
void rp_requests_back(struct rp_call *c, uint32_t k);
MPI_Status *rp_status(struct rp_call *c, uint32_t k);
MPI_Status *rp_statuses(struct rp_call *c, uint32_t k);

void rp_set_comm(struct rp_call *c, uint32_t k, MPI_Comm h);
void rp_set_group(struct rp_call *c, uint32_t k, MPI_Group h);
void rp_set_datatype(struct rp_call *c, uint32_t k, MPI_Datatype h);
void rp_set_datatypes(struct rp_call *c, uint32_t k, const MPI_Datatype *h);
void rp_set_op(struct rp_call *c, uint32_t k, MPI_Op h);
void rp_set_info(struct rp_call *c, uint32_t k, MPI_Info h);
void rp_set_errhandler(struct rp_call *c, uint32_t k, MPI_Errhandler h);
void rp_set_win(struct rp_call *c, uint32_t k, MPI_Win h);
void rp_set_file(struct rp_call *c, uint32_t k, MPI_File h);
void rp_set_request(struct rp_call *c, uint32_t k, MPI_Request h);
/* Memory MPI gave the program (MPI_Alloc_mem, MPI_Win_allocate): the
 * segment the trace names it by is that memory from now on. */
void rp_set_memory(struct rp_call *c, uint32_t k, void *p);
/* That memory is gone (MPI_Free_mem), or a window's (MPI_Win_free). */
void rp_drop_memory(struct rp_call *c, uint32_t k);
void rp_drop_window_memory(struct rp_call *c, uint32_t k);

/* How a buffer's size follows from the call's other values. */
enum rp_span {
	RP_SPAN_NONE,  /* no size known: the offset plus a little */
	RP_SPAN_ONE,   /* count elements of type */
	RP_SPAN_COMM,  /* count elements of type per member of the comm */
	RP_SPAN_V,     /* counts[i] at displs[i] elements of type */
	RP_SPAN_W,     /* counts[i] of types[i] at displs[i] bytes */
	RP_SPAN_SUM,   /* the sum of counts[] elements of type */
	RP_SPAN_BYTES, /* count bytes */
};
/* The memory a buffer value names, grown (never moved while in use) to
 * hold what the call touches: count at `kc`, type at `kt`, displacements
 * at `kd` (or -1 where there is none), the comm's size for COMM.
 * MPI_IN_PLACE, MPI_BOTTOM and NULL as themselves. */
void *rp_buf(struct rp_call *c, uint32_t k, enum rp_span span, int kc, int kt,
	     int kd);
/* A callback the trace names: a stand-in of the right type (0 when the
 * trace gives a predefined one: its constant). */
MPI_User_function *rp_user_function(struct rp_call *c, uint32_t k);
MPI_Comm_copy_attr_function *rp_Comm_copy_fn(struct rp_call *c, uint32_t k);
MPI_Comm_delete_attr_function *rp_Comm_delete_fn(struct rp_call *c, uint32_t k);
MPI_Type_copy_attr_function *rp_Type_copy_fn(struct rp_call *c, uint32_t k);
MPI_Type_delete_attr_function *rp_Type_delete_fn(struct rp_call *c, uint32_t k);
MPI_Win_copy_attr_function *rp_Win_copy_fn(struct rp_call *c, uint32_t k);
MPI_Win_delete_attr_function *rp_Win_delete_fn(struct rp_call *c, uint32_t k);
MPI_Comm_errhandler_function *rp_Comm_errh_fn(struct rp_call *c, uint32_t k);
MPI_Win_errhandler_function *rp_Win_errh_fn(struct rp_call *c, uint32_t k);
MPI_File_errhandler_function *rp_File_errh_fn(struct rp_call *c, uint32_t k);

/* A wildcard receive or probe: the source and tag the original matched,
 * from the call's own status (`kst`, or -1) or the call that completed its
 * request (`kreq`, or -1).  The trace still records the wildcard. */
void rp_wildcard(struct rp_call *c, int kst, int kreq, MPI_Comm comm,
		 int *source, int *tag);

/* The status the call completing request `id` gives it, from the calls
 * next(it) gives one by one (1 and a signature, or 0 at the end); NULL
 * when none of the next 2^20 does, or it gives no status.  The names are
 * the signatures' functions' and parameters' (match.h). */
struct rp_names;
const struct rp_val *rp_read_ahead(const struct rp_names *nm,
				   int (*next)(void *it, uint32_t *sig),
				   void *it, int64_t id);

/* The completion calls, written by hand (complete.c). */
int rp_complete(struct rp_call *c, const char *fname);

/* ---- the rank's state (rt.c) ------------------------------------------ */

struct rp_options {
	double compute_scale; /* 1: as recorded; 0: none */
	int percall;	      /* use each call's own gap when timed */
	unsigned watchdog;    /* seconds, 0: none */
	int polls;	      /* replay failed polls (1) or skip them (0) */
	int seeded;	      /* --seed given: merged loops drawn with seed */
	uint64_t seed;
};

/* Starts (again) with the trace's constants, by id. */
void rp_core_start(const struct rp_options *o, uint32_t nconst,
		   const char *(*const_name)(uint32_t k));
void *rp_xcalloc(size_t n, size_t size); /* exits when out of memory */
/* Failed polls replayed (1), or skipped (0: --polls once). */
int rp_polls(void);
double rp_now_ns(void);
/* A seed for merged loops' draws (draw.h), the same on every rank: rank
 * 0's pick from the clock, broadcast on MPI_COMM_WORLD through PMPI (not
 * recorded). */
uint64_t rp_seed_agree(int rank);
/* Signature s about to be replayed once: the counts of its sends merged
 * at the precision drawn for this call (rp_value_draw). */
void rp_sig_draw(struct rp_sig *s);
/* The computation before a call: spins until `gap` ns have passed since
 * *end_prev, less what earlier spins overshot (*debt, carried forward). */
void rp_spin(double gap, double *end_prev, double *debt);

/* Exit statuses of rondo-replay and of proxies. */
#define RP_EXIT_READ	 1 /* the trace could not be read */
#define RP_EXIT_USAGE	 2
#define RP_EXIT_NOREPLAY 3 /* not replayable, or another rank count */
#define RP_EXIT_WATCHDOG 4

/* Starting MPI as the program did.  The rank this process will be, before
 * MPI says so, from the launcher's environment (-1 when none says). */
int rp_env_rank(void);
/* What a program may call before MPI is up. */
int rp_before_init(const char *fn);
/* MPI_Init or MPI_Init_thread (fn) as recorded: argc (-1: the program
 * passed NULL; the arguments are ours, as many as it had) and the thread
 * level asked for.  Returns MPI's. */
int rp_init_mpi(const char *fn, int argc_rec, int required, int *argc,
		char ***argv);
/* After it: this run's rank in *rank, its rank count against the trace's
 * nranks.  Another count is said (by rank 0, as `who`), MPI finalized,
 * and RP_EXIT_NOREPLAY returned; else 0. */
int rp_check_size(uint32_t nranks, const char *who, int *rank);
/* A program of the MPI-4 sessions model starts with MPI_Session_init and
 * has no MPI_COMM_WORLD.  Before its first one, the replay opens a session
 * of its own (through PMPI: not recorded; kept until the end, so that MPI
 * stays up between the program's sessions) for this run's rank and rank
 * count, checked as rp_check_size does.  Returns 0, or RP_EXIT_NOREPLAY
 * when the count differs or MPI has no sessions (said). */
int rp_session_start(uint32_t nranks, const char *who, int *rank);
/* The end of such a run: the session of its own finalized. */
void rp_session_end(void);

/* A rank whose calls in the trace end as the original's were cut short
 * (the job ended badly: `ending`, len bytes, as `rondo info` says it)
 * ends as the original's did, said: exit(N) without MPI_Finalize exits
 * with N, a signal it gave itself (a fault, abort()) is raised; cut short
 * from outside (the launcher's signal, MPI_Abort on another rank, a lost
 * node) it waits for the job to end as the original did, or for the
 * watchdog.  Never returns. */
void rp_end_cut(const char *who, int rank, const char *ending, int len);

/* The watchdog: the calls done so far, the signature of the one under
 * way or next, and whether it is under way, as the replay goes. */
extern volatile uint64_t rp_progress_index;
extern volatile uint32_t rp_progress_sig;
extern volatile int rp_progress_in_call;
/* A thread that, when rp_progress_index has not moved for `seconds`,
 * calls report (which says where the rank is) and ends the process with
 * RP_EXIT_WATCHDOG, giving the other ranks' watchdogs time to report. */
void rp_watchdog_start(unsigned seconds,
		       void (*report)(uint64_t index, unsigned seconds));

/* ---- what is replayed: the trace (source.c) or a proxy's tables ------- */

/* Signature sig as this rank replays it, decoded on first use. */
int rp_sig_prepare(uint32_t sig, struct rp_sig **out);
/* The next count of merged values' histogram h this rank sends (draw.h:
 * the k-th draw of a histogram is the same on every rank), `kept` when
 * it cannot be drawn. */
uint64_t rp_value_draw(uint32_t h, uint64_t kept);
uint32_t rp_func_count(void);
const char *rp_func_name(uint32_t f);
uint32_t rp_sig_func(uint32_t sig);
/* The index of parameter `name` of function `func`, or -1. */
int rp_param(uint32_t func, const char *name);
/* The status that the call completing request `id` (posted by call c)
 * gives it: what a wildcard matched.  NULL when not known. */
const struct rp_val *rp_completion_status(struct rp_call *c, int64_t id);

/* Requests that never complete, standing in for those a poll did not
 * complete (complete.c). */
MPI_Request rp_surrogate(unsigned k);
void rp_surrogates_free(void);

/* The tracer's hook (when the tracer is loaded): the next receive or
 * probe is recorded as posted with this source and tag. */
void rp_hint_posted(int source, int tag);
/* ...and that stand_in[k] stands for real[k] in the next call (n = 0:
 * no more). */
void rp_hint_stand_ins(const MPI_Request *stand_in, const MPI_Request *real,
		       int n);

#endif /* RONDO_REPLAY_H */
