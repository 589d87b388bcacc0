/*
 * skew.h - collective skew, from per-call times (RONDO_TIMING=percall):
 * how far apart the members of a communicator enter each collective, who
 * is last, and how long the others wait for that one.
 *
 * Every rank's calls are walked with their times, all ranks at once in
 * the order of their start times, so what is held at a time is what was
 * in flight in the run (collectives some member has not reached yet),
 * not the calls; time is proportional to the calls.  Calls are matched
 * by order, as MPI orders them: the k-th collective on a communicator of
 * each of its members.  Communicators are named as in matrix.h
 * (AN_COMM_WORLD, AN_ANY).
 *
 * Times read back are never early and late by less than (b - 1) times
 * the span they were measured over (rondo.h, "Per-call timing"); each
 * figure below comes with the bound of its error, from the spans the
 * times were read over, and capped by what a spread can be: never below
 * 0, and for a collective no member can leave before every member has
 * entered (MPI_Barrier, Allreduce, Allgather(v), Alltoall(v,w),
 * Reduce_scatter(_block), blocking) at most the longest of the members'
 * calls as read back (never short).
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.
 */
#ifndef RONDO_SKEW_H
#define RONDO_SKEW_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* The collectives of one function on one communicator. */
struct an_skew {
	uint32_t func; /* function id */
	int64_t comm;  /* AN_COMM_WORLD or a communicator id */
	uint32_t members;
	uint64_t count;	    /* occurrences matched on every member */
	uint64_t spread_ns; /* their spreads (the last member's start -
				  the first's) summed: the mean is this over
				  count */
	uint64_t max_spread_ns;
	int64_t max_at_ns;    /* when the last member entered the
				  occurrence of the largest spread */
	uint32_t last_rank;   /* the world rank last most often (of
				  members last as often, or as late in an
				  occurrence, the lowest member) */
	uint64_t last_count;  /* how often it was */
	uint64_t wait_ns;     /* sum over occurrences and members of the
				  last start - the member's start */
	uint64_t err_ns;      /* the bound of max_spread_ns's error */
	uint64_t mean_err_ns; /* the bound of the mean spread's */
};

struct an_skew_result {
	struct an_skew *rows; /* by wait_ns, the most first */
	uint32_t n;
	double base;	     /* the trace's b */
	uint64_t calls;	     /* collective calls seen */
	uint64_t unmatched;  /* calls whose occurrence some member never
				 reached (in its timed calls) */
	uint64_t mismatched; /* occurrences whose members called different
				 functions (not in the rows) */
	uint64_t unresolved; /* calls on a communicator whose members the
				 trace does not give */
	uint64_t untimed;    /* calls past ranks' timed calls (not seen) */
};

/* Who waits for whom in a collective: every member for the last to
 * enter (SYNC: Barrier, Allreduce, Allgather, Alltoall, Reduce_scatter);
 * the members for a late root only (FROM_ROOT: Bcast, Scatter); the root
 * for the last member (TO_ROOT: Reduce, Gather); each member for those
 * of lower rank (PREFIX: Scan, Exscan). */
enum an_coll {
	AN_NOT_COLL,
	AN_COLL_SYNC,
	AN_COLL_FROM_ROOT,
	AN_COLL_TO_ROOT,
	AN_COLL_PREFIX
};

/* The kind of function `name` (MPI_Ibcast as MPI_Bcast, with
 * *nonblocking set; MPI-4's large-count _c forms as the others). */
enum an_coll an_coll_of(const char *name, int *nonblocking);

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
 *   max_spread_at_ns,error_ns,last_rank,last_count,wait_ns,
 *   mean_spread_error_ns
 * (error_ns: the bound of max_spread_ns's error) comm as "world" or "c3".  Returns 0, or RONDO_E_IO when writing failed.
 */
int an_skew_csv(const rondo_trace *t, const struct an_skew *rows, uint32_t n,
		FILE *out);

#endif /* RONDO_SKEW_H */
