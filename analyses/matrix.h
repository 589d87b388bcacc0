/*
 * matrix.h - the communication matrix, from rule multiplicities.
 *
 * How many times each signature occurs under a rank's root is found by
 * dynamic programming over the grammar (each rule visited once per rank
 * group, its multiplicity the sum over the rules that use it), never by
 * expanding the calls.  Each send signature then adds its multiplicity to
 * the cell (caller, destination), the destination resolved to a world rank
 * through the trace's communicator table.
 */
#ifndef RONDO_MATRIX_H
#define RONDO_MATRIX_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* mult[sig] = how many calls of each signature rule `root` expands to
 * (mult has rondo_sig_count(t) entries, zeroed here).  `work` has
 * rondo_rule_count(t) entries of scratch.  O(rules below root). */
void an_rule_mult(const rondo_trace *t, uint32_t root, uint64_t *mult,
		  uint64_t *work);

/* What to count. */
struct an_filter {
	int64_t comm;	    /* a communicator id, AN_COMM_WORLD, or AN_ANY */
	const char *func;   /* a function name ("MPI_Isend"), or NULL */
	int64_t tag;	    /* a tag, or AN_ANY */
	int collectives;    /* include collectives (see matrix.c) */
	int p2p;	    /* include point-to-point (on by default) */
};
#define AN_ANY (-1)
#define AN_COMM_WORLD (-2)
#define AN_COMM_SELF (-3)

struct an_matrix {
	uint32_t n;	      /* ranks */
	uint64_t *msgs;	      /* n*n, row = sender */
	uint64_t *bytes;      /* n*n */
	uint64_t unresolved;  /* messages whose peer could not be resolved */
	uint64_t nosize;      /* messages whose size is unknown (0 bytes counted) */
	uint64_t proc_null;   /* sends to MPI_PROC_NULL (not counted) */
	uint64_t untimed;     /* an_matrix_window: calls without times (not
				 counted) */
};

/* Computes the matrix of trace t under filter f (NULL: point-to-point,
 * everything).  Returns 0 or a RONDO_E_* code (RONDO_E_NOMEM). */
int an_matrix(const rondo_trace *t, const struct an_filter *f,
	      struct an_matrix *m);

/* The same, by walking every call of every rank (for checking and the
 * benchmark; time proportional to the number of calls). */
int an_matrix_walk(const rondo_trace *t, const struct an_filter *f,
		   struct an_matrix *m);

/* The same, counting only the calls that start in [from_ns, to_ns) on
 * the job's clock (ns since its time origin; INT64_MIN and INT64_MAX
 * leave a side open), by walking every call with its time.  Calls past a
 * rank's timed calls are not counted (m->untimed).  Returns 0,
 * RONDO_E_MISSING when the trace has no per-call times, or another
 * RONDO_E_* code. */
int an_matrix_window(const rondo_trace *t, const struct an_filter *f,
		     int64_t from_ns, int64_t to_ns, struct an_matrix *m);

void an_matrix_free(struct an_matrix *m);

/* Writes the matrix as CSV: long form "src,dst,messages,bytes" (the cells
 * that are not zero, by sender then receiver) or, with wide, the square
 * form of `what` (0 messages, 1 bytes).  Returns 0 or -1 (write error). */
int an_matrix_csv(const struct an_matrix *m, FILE *out, int wide, int what);

/* ---- what the analyses share: a call's communicator and peers ---------- */

/* The value of the parameter of signature s named `name`, or a NULL
 * value (kind RONDO_ARG_NULL) when it has none. */
rondo_arg an_arg(const rondo_trace *t, uint32_t s, const char *name);

/* Value a is the named constant `name` (MPI_ANY_SOURCE...). */
int an_is_const(const rondo_trace *t, const rondo_arg *a, const char *name);

/* A plain non-negative integer value (a count), or -1. */
int64_t an_int(const rondo_arg *a);

/* The request id a value names, or UINT32_MAX (MPI_REQUEST_NULL...). */
uint32_t an_req_id(const rondo_arg *a);

/* The communicator a call names, as the caller sees it. */
struct an_comm {
	int64_t id;	/* AN_COMM_WORLD, AN_COMM_SELF or an id */
	uint32_t size;	/* members (of both groups, for an intercommunicator) */
	uint32_t first; /* intercommunicator: size of the first group */
	int64_t me;	/* the caller's index among the members */
	uint32_t world; /* the caller's world rank */
};

/* Turns communicator values and ranks into world ranks: each
 * communicator's map from world rank to member is made when first
 * needed, the constants it compares with looked up once. */
struct an_resolver {
	const rondo_trace *t;
	uint32_t n, ncomms;
	int32_t **local;    /* by communicator: world rank -> member, or -1 */
	uint32_t k_world, k_self, k_proc_null; /* constant ids (UINT32_MAX:
						  the trace has none) */
	int failed;	    /* a map could not be made: memory ran short */
};

/* 0, or RONDO_E_NOMEM (free it all the same). */
int an_resolver_init(struct an_resolver *r, const rondo_trace *t);
void an_resolver_free(struct an_resolver *r);

/* Fills *cm for communicator value v as world rank `rank` sees it; 0, or
 * -1 when its members are not known, the caller is not one of them, or
 * memory ran short (r->failed). */
int an_comm_get(struct an_resolver *r, const rondo_arg *v, uint32_t rank,
		struct an_comm *cm);

/* The world rank of member k of cm, or -1. */
int64_t an_member(const struct an_resolver *r, const struct an_comm *cm,
		  int64_t k);

/* The world rank a point-to-point peer value (RANK, RANK_REL, CART_REL;
 * of the other group on an intercommunicator) names for the caller of
 * cm; -1 when it cannot be resolved, -2 for MPI_PROC_NULL. */
int64_t an_peer(const struct an_resolver *r, const struct an_comm *cm,
		const rondo_arg *v);

#endif /* RONDO_MATRIX_H */
