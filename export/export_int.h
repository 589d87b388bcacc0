/*
 * export_int.h - what the walk (events.c) asks of the table of MPI
 * functions and the collectives' byte conventions (mpi_calls.c); private
 * to export/.
 */
#ifndef RONDO_EXPORT_INT_H
#define RONDO_EXPORT_INT_H

#include <stdint.h>

#include "export.h"

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

#endif /* RONDO_EXPORT_INT_H */
