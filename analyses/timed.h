/*
 * timed.h - analyses of per-call times (RONDO_TIMING=percall): how far
 * apart the members of a communicator enter each collective (skew), and
 * how long blocking receives wait for late senders and blocking sends for
 * late receivers (waits).
 *
 * Both walk every rank's calls with their times, all ranks at once in
 * the order of their start times, so what is held at a time is what was
 * in flight in the run (collectives some member has not reached yet,
 * messages not yet matched), not the calls; besides, a timed iterator
 * per rank (the grammar's depth and 8 bytes per signature each), and time
 * proportional to the calls.  Calls are matched by order,
 * as MPI orders them: the k-th collective on a communicator of each of
 * its members; the k-th send and the k-th receive of a channel (sender,
 * receiver, communicator, tag), receives from MPI_ANY_SOURCE or with
 * MPI_ANY_TAG by the source and tag their status recorded.
 *
 * Times read back are never early and late by less than (b - 1) times
 * the span they were measured over (rondo.h, "Per-call timing"); each
 * figure below comes with the bound of its error, from the spans the
 * times were read over.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.
 */
#ifndef RONDO_TIMED_H
#define RONDO_TIMED_H

#include <stdint.h>
#include <stdio.h>

#include "matrix.h"
#include "rondo.h"

/* The collectives of one function on one communicator. */
struct an_skew {
	uint32_t func;	       /* function id */
	int64_t comm;	       /* AN_COMM_WORLD or a communicator id */
	uint32_t members;
	uint64_t count;	       /* occurrences matched on every member */
	uint64_t spread_ns;    /* their spreads (the last member's start -
				  the first's) summed: the mean is this over
				  count */
	uint64_t max_spread_ns;
	int64_t max_at_ns;     /* when the last member entered the
				  occurrence of the largest spread */
	uint32_t last_rank;    /* the world rank last most often (of
				  members last as often, or as late in an
				  occurrence, the lowest member) */
	uint64_t last_count;   /* how often it was */
	uint64_t wait_ns;      /* sum over occurrences and members of the
				  last start - the member's start */
	uint64_t err_ns;       /* a spread read back is off by less than
				  this, in either direction */
};

struct an_skew_result {
	struct an_skew *rows; /* by wait_ns, the most first */
	uint32_t n;
	double base;	      /* the trace's b */
	uint64_t calls;	      /* collective calls seen */
	uint64_t unmatched;   /* calls whose occurrence some member never
				 reached (in its timed calls) */
	uint64_t mismatched;  /* occurrences whose members called different
				 functions (not in the rows) */
	uint64_t unresolved;  /* calls on a communicator whose members the
				 trace does not give */
	uint64_t untimed;     /* calls past ranks' timed calls (not seen) */
};

/**
 * The skew of every collective (MPI_Barrier, Bcast, Reduce, Allreduce,
 * Gather(v), Scatter(v), Allgather(v), Alltoall(v,w),
 * Reduce_scatter(_block), Scan, Exscan and their nonblocking forms,
 * entered at the call that starts them) on communicators of two members
 * or more; with comm other than AN_ANY, on that communicator only.
 * Returns 0, RONDO_E_MISSING when the trace has no per-call times, or
 * another RONDO_E_* code; free the result with an_skew_free().
 */
int an_skew(const rondo_trace *t, int64_t comm, struct an_skew_result *out);
void an_skew_free(struct an_skew_result *r);

/**
 * Writes rows[0..n-1] as CSV, a header row first:
 *   function,comm,members,occurrences,mean_spread_ns,max_spread_ns,
 *   max_spread_at_ns,error_ns,last_rank,last_count,wait_ns
 * comm as "world" or "c3".  Returns 0, or RONDO_E_IO when writing failed.
 */
int an_skew_csv(const rondo_trace *t, const struct an_skew *rows, uint32_t n,
		FILE *out);

/* What messages from one rank to another waited. */
struct an_wait_pair {
	uint32_t src, dst;	 /* world ranks */
	uint64_t msgs;		 /* messages matched */
	uint64_t ls_count;	 /* late sender: blocking receives (or waits
				    on receives) entered before the send */
	uint64_t ls_ns;		 /* min(send start - receive start, its
				    duration), summed */
	uint64_t lr_count;	 /* late receiver: MPI_Send and Ssend
				    entered before the receive was posted */
	uint64_t lr_ns;		 /* min(receive post - send start, the
				    send's duration), summed */
	uint64_t err_ns;	 /* bound of the error of ls_ns + lr_ns */
};

struct an_waits {
	struct an_wait_pair *pairs; /* pairs that exchanged messages, by
				       ls_ns + lr_ns, the most first */
	uint32_t n;
	double base;
	uint64_t msgs, ls_count, ls_ns, lr_count, lr_ns, err_ns; /* totals */
	uint64_t unmatched_sends, unmatched_recvs;
	uint64_t unresolved; /* sends and receives whose peer, tag or
				communicator the trace does not resolve (a
				wildcard receive without its status) */
	uint64_t untimed;
};

/**
 * Matches every point-to-point message (blocking, nonblocking and
 * persistent sends and receives, MPI_Sendrecv) and measures, for each
 * receive completed by a blocking call (MPI_Recv, Sendrecv, or MPI_Wait,
 * Waitall, Waitany, Waitsome on its request), how long that call waited
 * for the send to start; a call completing several receives waited as
 * long as the latest sender made it, counted on that sender's pair.  And
 * for each MPI_Send and MPI_Ssend, how long it waited for its receive to
 * be posted.
 * Returns 0, RONDO_E_MISSING when the trace has no per-call times, or
 * another RONDO_E_* code; free the result with an_waits_free().
 */
int an_waits(const rondo_trace *t, struct an_waits *out);
void an_waits_free(struct an_waits *w);

/**
 * Writes pairs[0..n-1] as CSV, a header row first:
 *   src,dst,messages,late_sender,late_sender_ns,late_receiver,
 *   late_receiver_ns,error_ns
 * Returns 0, or RONDO_E_IO when writing failed.
 */
int an_waits_csv(const struct an_wait_pair *pairs, uint32_t n, FILE *out);

/* Time one rank spent inside MPI calls in each bucket of a window: nb
 * buckets of w ns from t0 ns after the job's origin (bucket k is
 * [t0 + k w, t0 + (k + 1) w)).  A NULL array is not summed. */
struct an_buckets {
	double t0, w;
	uint32_t nb;	     /* 0: only first and last */
	double *busy;	     /* nb: ns inside calls */
	double *lit;	     /* nb: of it, in the signatures flagged in sigs */
	const uint8_t *sigs; /* per signature (for lit) */
	double *fn;	     /* nb x nfunc: [bucket * nfunc + function] */
	uint32_t nfunc;
	int64_t first, last; /* lowered and raised to the rank's earliest
				start and latest end seen */
};

/**
 * Adds rank `rank`'s timed calls to b (a walk of its calls, stopped once
 * no later one can reach back into the window).  Returns 0,
 * RONDO_E_NOMEM, or RONDO_E_MISSING without per-call times.
 */
int an_timeline_rank(const rondo_trace *t, uint32_t rank,
		     struct an_buckets *b);

/* The level (0 to levels - 1) a share of a bucket in MPI is drawn at: 0
 * only for no time at all, so that a short call still shows. */
int an_level(double busy, double share, int levels);

#endif /* RONDO_TIMED_H */
