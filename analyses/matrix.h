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

#include "args.h"
#include "rondo.h"

/* mult[sig] = how many calls of each signature rule `root` expands to
 * (mult has rondo_sig_count(t) entries, zeroed here).  `work` has
 * rondo_rule_count(t) entries of scratch.  O(rules below root).  With
 * `sums`, a merged loop (rondo_loop_hist) counts the exact mean of the
 * loops it stands for (their sum over their number), not its kept
 * count: what the program ran in all, when the group's ranks ran alike;
 * without, the calls the grammar expands to. */
void an_rule_mult(const rondo_trace *t, uint32_t root, int sums, uint64_t *mult,
		  uint64_t *work);

/* What to count. */
struct an_filter {
	int64_t comm;	  /* a communicator id, AN_COMM_WORLD, or AN_ANY */
	const char *func; /* a function name ("MPI_Isend", any case), or
			     NULL */
	int64_t tag;	  /* a tag, or AN_ANY */
	int collectives;  /* include collectives (see matrix.c) */
	int p2p;	  /* include point-to-point (on by default) */
};
#define AN_ANY	      (-1)
#define AN_COMM_WORLD RONDO_COMM_WORLD /* rondo_comm_ref.id */
#define AN_COMM_SELF  RONDO_COMM_SELF

struct an_matrix {
	uint32_t n;	     /* ranks */
	uint64_t *msgs;	     /* n*n, row = sender */
	uint64_t *bytes;     /* n*n */
	uint64_t unresolved; /* messages whose peer could not be resolved */
	uint64_t nosize; /* messages whose size is unknown (0 bytes counted) */
	uint64_t proc_null; /* sends to MPI_PROC_NULL (not counted) */
	uint64_t untimed;   /* an_matrix_window: calls without times (not
				 counted) */
	/* an_matrix_window: messages of calls whose start, never early,
	 * might truly have been on the other side of an edge (within its
	 * error bound): counted ones that may have started before the
	 * window, and ones left out (read at or after its end) that may have
	 * started inside.  The window's true count is from msgs - edge_in
	 * to msgs + edge_out. */
	uint64_t edge_in, edge_out;
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

/* The same sends one rank at a time, for an analysis that keys them
 * otherwise than by sender and receiver (pairing.c): fn is told each
 * message rank `rank` sends, `n` times, on communicator *cm to world rank
 * `to`, and returns 0 or a RONDO_E_* code. */
typedef int an_send_fn(void *arg, uint32_t rank, const rondo_comm_ref *cm,
		       int64_t to, uint64_t n);
struct an_sends;

/* Which signatures send, for an_sends_rank.  Returns 0 or
 * RONDO_E_NOMEM (*out NULL). */
int an_sends_open(const rondo_trace *t, struct an_sends **out);

/* Calls fn for each message rank `rank` sends (the matrix's rules:
 * point-to-point sends, a Sendrecv's send side, persistent sends at each
 * start; none to MPI_PROC_NULL), its calls counted in mult[]
 * (an_rule_mult); sets *unresolved (may be NULL) to the messages whose
 * communicator or destination the trace does not resolve.  Returns 0,
 * RONDO_E_NOMEM, or fn's first failure. */
int an_sends_rank(struct an_sends *s, uint32_t rank, const uint64_t *mult,
		  an_send_fn *fn, void *arg, uint64_t *unresolved);

/* Accepts NULL. */
void an_sends_free(struct an_sends *s);

/* Writes the matrix as CSV: long form "src,dst,messages,bytes" (the cells
 * that are not zero, by sender then receiver) or, with wide, the square
 * form of `what` (0 messages, 1 bytes).  Returns 0 or -1 (write error). */
int an_matrix_csv(const struct an_matrix *m, FILE *out, int wide, int what);

#endif /* RONDO_MATRIX_H */
