/*
 * export.h - a trace in the formats other tools read: OTF2 (Vampir,
 * Score-P's tools, Python readers), Perfetto's protobuf (ui.perfetto.dev)
 * and Chrome's JSON trace events (chrome://tracing, Perfetto too).
 *
 * One walk (events.c) turns each exported rank's calls, one rank after the
 * other, into what every format records: a call with its start and end,
 * the region role of its function, the point-to-point messages it posts
 * and completes, the collective it takes part in.  A format is a sink, a
 * table of five operations the walk calls in order:
 *
 *   begin, then for each exported rank in increasing order: rank_begin,
 *   call for each of its exported calls in program order, rank_end; then
 *   end, which writes the definitions the formats keep at the end (OTF2's
 *   global definitions), and closes.  abort instead of end on a failure.
 *
 * Only one rank is in flight at a time, so a sink's memory is one rank's
 * buffer (OTF2 keeps a location's events until its writer closes), and
 * the walk's is the grammar's depth plus the channels open (below).
 *
 * Messages are matched as `rondo waits` matches them: the k-th send and
 * the k-th receive of a channel (sender, receiver, communicator, tag), a
 * wildcard receive by the source and tag its status recorded.  A first
 * pass over the exported ranks counts each channel's sends and receives;
 * the k-th message of a channel has a flow id shared by its two ends when
 * both are exported (the peer among the ranks, both calls in the time
 * window and of the functions asked for), 0 when not.  Nothing is
 * guessed: what has no match is counted (struct ex_counts).  The walk
 * holds only the channels that cross the rank being walked, and those
 * whose messages do not all pair off (channels.c): its memory does not
 * grow with the ranks for the usual patterns.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code, with a
 * message in ex->err; nothing here prints or exits but the progress line
 * a command asks for (ex_opts.progress).
 */
#ifndef RONDO_EXPORT_H
#define RONDO_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* What a function does, for the formats that say (OTF2's region roles). */
enum ex_role {
	EX_ROLE_OTHER,	 /* MPI_Init, Comm_split, Wait...: OTF2 FUNCTION */
	EX_ROLE_P2P,	 /* sends, receives: POINT2POINT */
	EX_ROLE_ONE2ALL, /* Bcast, Scatter(v): COLL_ONE2ALL */
	EX_ROLE_ALL2ONE, /* Reduce, Gather(v): COLL_ALL2ONE */
	EX_ROLE_ALL2ALL, /* Allreduce, Alltoall...: COLL_ALL2ALL */
	EX_ROLE_BARRIER, /* Barrier: BARRIER */
	EX_ROLE_COLL,	 /* Scan, Exscan, Reduce_scatter: COLL_OTHER */
};

/* Collective operations, numbered as OTF2's OTF2_CollectiveOp. */
enum ex_coll_op {
	EX_COLL_BARRIER = 0,
	EX_COLL_BCAST = 1,
	EX_COLL_GATHER = 2,
	EX_COLL_GATHERV = 3,
	EX_COLL_SCATTER = 4,
	EX_COLL_SCATTERV = 5,
	EX_COLL_ALLGATHER = 6,
	EX_COLL_ALLGATHERV = 7,
	EX_COLL_ALLTOALL = 8,
	EX_COLL_ALLTOALLV = 9,
	EX_COLL_ALLTOALLW = 10,
	EX_COLL_ALLREDUCE = 11,
	EX_COLL_REDUCE = 12,
	EX_COLL_REDUCE_SCATTER = 13,
	EX_COLL_SCAN = 14,
	EX_COLL_EXSCAN = 15,
	EX_COLL_REDUCE_SCATTER_BLOCK = 16,
};

/* Communicators as the export numbers them: the world, self, then the
 * trace's communicator c as EX_COMM_FIRST + c. */
#define EX_COMM_WORLD 0u
#define EX_COMM_SELF  1u
#define EX_COMM_FIRST 2u

#define EX_NO_ROOT UINT32_MAX /* ex_coll.root of a rootless collective */

/* What a message event is, in the order OTF2 records them. */
enum ex_msg_kind {
	EX_SEND,       /* a blocking send (MPI_Send, the send of a
			   Sendrecv): posted and done in this call */
	EX_ISEND,      /* a nonblocking send posted (Isend, Start of a
			   persistent send), request `req` */
	EX_ISEND_DONE, /* the send of request `req` completed (Wait...) */
	EX_RECV,       /* a blocking receive completed (Recv, the receive
			   of a Sendrecv) */
	EX_IRECV_POST, /* a nonblocking receive posted, request `req`;
			   peer and tag may not be known yet (wildcards):
			   only `req` is meaningful */
	EX_IRECV_DONE, /* the receive of request `req` completed */
	EX_CANCELLED,  /* the operation of request `req` was cancelled
			   (its status says so): no message */
};

/* One message end.  For a receive, peer and tag are the matched source
 * and tag (a wildcard's from its status); bytes are what the call says
 * (a receive's status count when recorded, else its posted count, times
 * the datatype's size; 0 when the trace does not know the size). */
struct ex_msg {
	uint8_t kind;	     /* enum ex_msg_kind */
	uint32_t comm;	     /* EX_COMM_* or EX_COMM_FIRST + id */
	uint32_t peer;	     /* the other end's rank in comm */
	uint32_t peer_world; /* and in the world */
	int64_t tag;
	uint64_t bytes;
	uint64_t req;  /* a request's number on this rank, unique
			  for the rank's run (OTF2 requestID) */
	uint64_t flow; /* > 0: the message's flow id, the same at its
			  other end (any 64-bit value: a hash); 0: no flow
			  (unmatched, or its other end not exported) */
};

/* The collective a call takes part in, with Score-P's byte conventions
 * (README, "Export"): sent and received as this rank counts them. */
struct ex_coll {
	uint8_t op;    /* enum ex_coll_op */
	uint32_t comm; /* EX_COMM_* or EX_COMM_FIRST + id */
	uint32_t root; /* rank in comm, or EX_NO_ROOT */
	uint64_t sent, received;
};

/* One exported call. */
struct ex_call {
	uint32_t rank;		   /* world rank */
	uint32_t sig;		   /* its signature */
	uint32_t func;		   /* its function id (rondo_func_name) */
	uint8_t role;		   /* enum ex_role */
	int64_t start, end;	   /* ns from the export's time zero (ex->t0):
			       never below the previous call's end */
	const struct ex_msg *msgs; /* the message ends, in record order */
	uint32_t nmsgs;
	const struct ex_coll *coll; /* NULL when not a collective */
};

/* What an export counted, for the summary a command prints. */
struct ex_counts {
	uint64_t calls;	   /* calls written */
	uint64_t ranks;	   /* ranks written */
	uint64_t messages; /* message ends written */
	uint64_t flows;	   /* messages with both ends written */
	uint64_t clamped;  /* calls whose start or end was moved so that
			      times do not decrease on a rank */
	uint64_t unmatched_sends, unmatched_recvs; /* among the ranks
			      exported: no message at the other end */
	uint64_t outside;    /* messages to or from ranks not exported */
	uint64_t unresolved; /* message ends whose peer, tag or
				communicator the trace does not resolve */
	uint64_t intercoll;  /* collectives on intercommunicators: written
				as their region, without a collective record */
	uint64_t untimed;    /* calls past a rank's per-call times, laid
				end to end with mean durations */
	uint64_t bytes;	     /* bytes written (the sink's) */
};

/* How times were made (ex->timing). */
#define EX_TIMING_PERCALL   0 /* the per-call times recorded */
#define EX_TIMING_SYNTHETIC 1 /* per-signature mean durations, end to end */

/* What to export (a command's options). */
struct ex_opts {
	const uint8_t *ranks; /* by world rank: 1 to export; NULL: all */
	const uint8_t *sigs;  /* by signature: 1 to export; NULL: all */
	int window;	      /* from/to given */
	int64_t from, to;     /* ns since the job's time origin: calls that
				 start in [from, to) */
	FILE *progress;	      /* a progress line on it (a terminal), or
				 NULL */
	int force;	      /* OTF2: replace an archive in the directory */
	uint64_t limit;	      /* > 0: only each rank's first `limit` calls */
};

/* The calls an export with options o walks per pass (each exported rank's
 * calls, or the limit): what the progress line counts, and what a command
 * warns of before a long export. */
uint64_t ex_calls(const rondo_trace *t, const struct ex_opts *o);

struct ex;

/* A format.  Every operation returns 0 or a negative RONDO_E_* code
 * after setting ex->err (ex_fail). */
struct ex_sink {
	const char *name; /* "otf2", "perfetto", "chrome" */
	int (*begin)(struct ex *x);
	int (*rank_begin)(struct ex *x, uint32_t rank);
	int (*call)(struct ex *x, const struct ex_call *c);
	int (*rank_end)(struct ex *x, uint32_t rank);
	int (*end)(struct ex *x);
	void (*abort)(struct ex *x); /* after a failure of any operation,
					begin's too: frees what x->sink
					holds (NULL: nothing), removes what
					the sink created */
};

/* An export in progress: what the walk gives the sinks. */
struct ex {
	const rondo_trace *t;
	const struct ex_opts *o;
	const char *path;	 /* the output: a file, or OTF2's directory */
	void *sink;		 /* the sink's own state */
	int timing;		 /* EX_TIMING_* */
	double base;		 /* per-call timing's base b, else 0 */
	int64_t t0;		 /* the time zero of the export's times, in ns
			     since the job's time origin (the earliest
			     exported start, at most 0) */
	int64_t tmax;		 /* the latest end written, from t0 */
	uint64_t start_epoch_ns; /* the job's start, ns since 1970 (meta
				    "start"), 0 when unknown */
	uint32_t ncomms;	 /* EX_COMM_FIRST + rondo_comm_count() */
	struct ex_counts n;
	char err[512];
};

/* Sets x->err from a format, and returns rc. */
int ex_fail(struct ex *x, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The name of communicator c (EX_COMM_*): "MPI_COMM_WORLD",
 * "MPI_COMM_SELF", "c3"; into buf. */
const char *ex_comm_name(uint32_t c, char *buf, size_t size);

/* Communicator c's size (the world's for EX_COMM_WORLD, 1 for SELF), and
 * the world rank of its member k, or UINT32_MAX. */
uint32_t ex_comm_size(const struct ex *x, uint32_t c);
uint32_t ex_comm_member(const struct ex *x, uint32_t c, uint32_t k);

/* The role of function `func` of the trace (enum ex_role). */
int ex_func_role(const rondo_trace *t, uint32_t func);

/**
 * Exports trace t to `path` with sink s: the first pass (message
 * channels), then every exported rank through the sink.  Fills x (the
 * counts in x->n); on failure x->err says why and what was written is
 * removed (s->abort).  Returns 0 or a negative RONDO_E_* code.
 */
int ex_run(struct ex *x, const rondo_trace *t, const struct ex_opts *o,
	   const struct ex_sink *s, const char *path);

/* The sinks.  ex_sink_otf2 is NULL when rondo was built without OTF2. */
extern const struct ex_sink *const ex_sink_otf2;
extern const struct ex_sink ex_sink_perfetto;
extern const struct ex_sink ex_sink_chrome;

/* Past this many events the browser formats fail to load (README). */
#define EX_BROWSER_EVENTS 1000000u

#endif /* RONDO_EXPORT_H */
