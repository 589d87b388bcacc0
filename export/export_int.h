/*
 * export_int.h - what the walk (events.c) asks of the table of MPI
 * functions and the collectives' byte conventions (mpi_calls.c); private
 * to export/.
 */
#ifndef RONDO_EXPORT_INT_H
#define RONDO_EXPORT_INT_H

#include <stdint.h>

#include "export.h"
#include "kmap.h"

/* What a function does to messages and requests. */
enum ex_p2p {
	P_NONE,
	P_SEND,	     /* a blocking send: dest, tag, comm */
	P_ISEND,     /* a nonblocking send: and request */
	P_RECV,	     /* a blocking receive: source, tag, comm, status */
	P_SENDRECV,  /* both, blocking */
	P_IRECV,     /* source, tag, comm, request */
	P_ISENDRECV, /* both, request */
	P_SINIT,     /* a persistent send's init: dest, tag, comm, request */
	P_RINIT,     /* a persistent receive's init */
	P_START,     /* request */
	P_STARTALL,  /* array_of_requests */
	P_WAIT,	     /* request, status */
	P_WAITALL,   /* array_of_requests, array_of_statuses */
	P_WAITANY,   /* array_of_requests, index, status */
	P_WAITSOME,  /* array_of_requests, array_of_indices, statuses */
	P_TEST,	     /* as the waits, with a flag (Testsome: none) */
	P_TESTALL,
	P_TESTANY,
	P_TESTSOME,
	P_FREE,	  /* MPI_Request_free: request */
	P_MPROBE, /* Mprobe, Improbe (with a flag): source, tag, comm,
		     message, status */
	P_MRECV,  /* count, datatype, message, status */
	P_IMRECV  /* count, datatype, message, request */
};

#define EX_NO_COLL 0xff /* ex_fn.coll of a function that is none */

/* A function the export knows. */
struct ex_fn {
	const char *name;
	uint8_t role; /* enum ex_role */
	uint8_t p2p;  /* enum ex_p2p */
	uint8_t coll; /* enum ex_coll_op, or EX_NO_COLL (nonblocking
			 collectives too: OTF2 3.0 records them apart, and
			 the export does not yet) */
};

/* The entry of function `name` (its large-count form "MPI_Send_c" too),
 * or NULL for a function with no role. */
const struct ex_fn *ex_fn_find(const char *name);

/**
 * The collective `op` call `sig` makes as world rank `rank`, resolved in
 * communicator cm (rondo_sig_comm's): root and bytes by Score-P's
 * conventions, into *out (out->comm left to the caller).  Returns 0, or
 * -1 when the trace does not say enough (an intercommunicator, a root
 * that is not a rank of cm).
 */
int ex_coll_bytes(const rondo_trace *t, uint32_t sig, uint32_t rank, uint8_t op,
		  const rondo_comm_ref *cm, struct ex_coll *out);

/* ---- message channels (channels.c) ---------------------------------------- */

/* A channel: messages from one rank to another on one communicator with
 * one tag, matched in order. */
struct ex_chan {
	uint32_t src, dst, comm; /* world ranks, export communicator */
	int64_t tag;
	uint32_t last;		 /* the later of src and dst: closed after it */
	uint32_t next_free;	 /* a free slot's next */
	uint64_t nsend, nrecv;	 /* counted by the first pass */
	uint64_t ks, kr;	 /* the next send's and receive's k */
	uint64_t lo[2], hi[2];	 /* [0] sends, [1] receives: the k's
				     exported, when they are one run */
	uint64_t sbytes, posted; /* the sends' size, the size posted by
				     receives that ignored their status */
	uint8_t any[2], gap[2];
	uint8_t sized, mixed;	 /* sends seen, of different sizes */
	uint8_t ignored, rmixed; /* such receives seen, posted differently */
	uint8_t kept;		 /* kept from the first pass */
};

/* The channels open (chans_init: none). */
struct ex_chans {
	struct kmap map; /* (src << 32 | dst, comm, tag) -> slot */
	struct ex_chan *c;
	size_t n, cap;	/* slots */
	uint32_t free;	/* the first free slot, or UINT32_MAX */
	uint32_t *heap; /* open slots by last rank */
	size_t nheap, capheap;
	int pass; /* 1 or 2 */
};

void chans_init(struct ex_chans *t);
void chans_free(struct ex_chans *t);

/* The slot of the channel, opened when first touched; UINT32_MAX when
 * memory is short.  A slot stays valid until the channel closes. */
uint32_t chans_open(struct ex_chans *t, uint32_t src, uint32_t dst,
		    uint32_t comm, int64_t tag);

/* Message k of channel i, end `side` (0 send, 1 receive), was walked, in
 * a call `exported` or not: the first pass counts it; the second returns
 * its flow id, 0 when it has none (unmatched, an end not exported). */
uint64_t chans_end(struct ex_chans *t, uint32_t i, int side, uint64_t k,
		   int exported);

/* First pass: a send of `bytes` on channel i; a receive that ignored its
 * status, posted for `posted` bytes. */
void chans_sent(struct ex_chans *t, uint32_t i, uint64_t bytes);
void chans_ignored(struct ex_chans *t, uint32_t i, uint64_t posted);

/* Second pass: the size of message k of channel i when its receive
 * ignored its status and was posted for another size than its sends all
 * sent; 0, or -1 when it is the posted one. */
int chans_size(const struct ex_chans *t, uint32_t i, uint64_t k,
	       uint64_t *bytes);

/* Rank `rank` is walked: the channels whose ranks are all walked close
 * (the first pass counts their unmatched messages into n). */
void chans_close(struct ex_chans *t, uint32_t rank, struct ex_counts *n);

/* Between the passes: the second pass starts with the channels kept.
 * 0, or -1 when memory is short. */
int chans_second(struct ex_chans *t);

#endif /* RONDO_EXPORT_INT_H */
