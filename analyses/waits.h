/*
 * waits.h - late senders and late receivers, from per-call times
 * (RONDO_TIMING=percall): how long blocking receives wait for late
 * senders and blocking sends for late receivers, per pair of ranks.
 *
 * Every rank's calls are walked with their times, all ranks at once in
 * the order of their start times, so what is held at a time is what was
 * in flight in the run (messages not yet matched), not the calls; time
 * is proportional to the calls.  Messages are matched by order, as MPI
 * orders them: the k-th send and the k-th receive of a channel (sender,
 * receiver, communicator, tag), receives from MPI_ANY_SOURCE or with
 * MPI_ANY_TAG by the source and tag their status recorded.
 *
 * Times read back are never early and late by less than (b - 1) times
 * the span they were measured over (rondo.h, "Per-call timing"); each
 * figure below comes with the bound of its error, from the spans the
 * times were read over, and capped by what the figure can be: a wait is
 * never below 0 nor longer than the call that waited (its duration as
 * read back, never short); and one rank's waits (late senders on its
 * receives, late receivers on its sends), and their bounds, each add up
 * to no more than its time in MPI (from the per-rank times, within
 * 1/128), scaled down to it where they read more.  So a bound never
 * exceeds the time the waiting calls took, however large the base.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.
 */
#ifndef RONDO_WAITS_H
#define RONDO_WAITS_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* What messages from one rank to another waited. */
struct an_wait_pair {
	uint32_t src, dst;  /* world ranks */
	uint64_t msgs;	    /* messages matched */
	uint64_t ls_count;  /* late sender: blocking receives (or waits
				    on receives) entered before the send */
	uint64_t ls_ns;	    /* min(send start - receive start, its
				    duration), summed */
	uint64_t lr_count;  /* late receiver: MPI_Send and Ssend
				    entered before the receive was posted */
	uint64_t lr_ns;	    /* min(receive post - send start, the
				    send's duration), summed */
	uint64_t ls_err_ns; /* bound of the error of ls_ns, capped by what
				     it can be (0 to the waiting calls'
				     durations) */
	uint64_t lr_err_ns; /* the same for lr_ns */
	uint64_t err_ns;    /* of ls_ns + lr_ns: their sum */
};

struct an_waits {
	struct an_wait_pair *pairs; /* pairs that exchanged messages, by
				       ls_ns + lr_ns, the most first */
	uint32_t n;
	double base;
	uint64_t msgs, ls_count, ls_ns, lr_count, lr_ns; /* totals */
	uint64_t ls_err_ns, lr_err_ns, err_ns;		 /* their bounds */
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

/* Whether the calls of function `name` send, receive or complete point
 * to point, as an_waits() matches them (1), or not (0). */
int an_waits_counts(const char *name);

/**
 * Writes pairs[0..n-1] as CSV, a header row first:
 *   src,dst,messages,late_sender,late_sender_ns,late_receiver,
 *   late_receiver_ns,error_ns,late_sender_error_ns,late_receiver_error_ns
 * Returns 0, or RONDO_E_IO when writing failed.
 */
int an_waits_csv(const struct an_wait_pair *pairs, uint32_t n, FILE *out);

#endif /* RONDO_WAITS_H */
