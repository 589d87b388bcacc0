/*
 * pairing.h - whether a trace's messages and collectives pair up, as a
 * replay needs them to (rondo-replay --check), from rule multiplicities.
 *
 * Point-to-point, per communicator (as its members name it: the world, or
 * a communicator id) and receiving world rank d: the messages sent to d
 * must be as many as the receives d posts (naming a source, or
 * MPI_ANY_SOURCE), and d's receives naming a source s no more than the
 * messages s sends it.  Sends are counted as the matrix counts them
 * (matrix.h: a Sendrecv's send side, persistent sends at each start);
 * receives likewise: MPI_Recv, MPI_Irecv, a Sendrecv's receive side,
 * persistent receives at each start, and a matched probe (MPI_Mprobe,
 * MPI_Improbe that found a message), where MPI matches the message that
 * MPI_Mrecv or MPI_Imrecv then takes; other probes receive nothing; a
 * receive whose completion says it was cancelled is not counted.  Tags
 * are not compared; sends to and receives from MPI_PROC_NULL are no
 * messages.
 *
 * Collectives, per communicator: every member calls each collective as
 * many times as the others; a nonblocking form counts as its blocking
 * one (MPI_Ibcast as MPI_Bcast), a large-count form as its plain one,
 * the init of a persistent one (MPI_Bcast_init) as a collective of its
 * own.  Barrier and the data collectives, neighbourhood ones included;
 * not the communicator constructors.
 *
 * Not checked: the large-count forms of point-to-point calls (MPI_Send_c,
 * which the matrix does not count either: neither side of theirs is),
 * the partitioned ones, cancelled sends, the starts of persistent
 * collectives, a nonblocking collective matched with a blocking one, the
 * order of calls (counts that agree may still deadlock), tags, sizes and
 * datatypes.
 */
#ifndef RONDO_PAIRING_H
#define RONDO_PAIRING_H

#include <stdint.h>

#include "rondo.h"

struct an_pairing {
	int ok;		 /* 1 when everything pairs up and was resolved */
	char first[512]; /* one line naming the first mismatch; "" when ok */
	uint64_t checked_pairs; /* messages counted against receives */
	uint64_t checked_colls; /* collective calls compared, all members' */
	uint64_t unresolved;	/* calls whose communicator or peer the trace
				   does not resolve (each refuses the trace) */
};

/*
 * Checks that trace t's point-to-point messages and collectives pair up,
 * into *out.  The first mismatch is, in this order: a call the trace
 * does not resolve (the lowest rank's); a point-to-point mismatch (by
 * communicator: the world, MPI_COMM_SELF, then by id; then by receiving
 * rank, a receive naming a sender that does not send before a total); a collective called unevenly
 * (by communicator, then collective).  Ranks are world ranks,
 * communicators as `rondo dump` names them (MPI_COMM_WORLD, c3).  Time
 * proportional to the rules under each rank group's root, the signatures
 * each rank calls, and the members of each communicator a collective is
 * called on; never to the calls.  Returns 0 (a mismatch is out->ok 0, not
 * a failure), or RONDO_E_NOMEM (*out zeroed).
 */
int an_pairing(const rondo_trace *t, struct an_pairing *out);

#endif /* RONDO_PAIRING_H */
