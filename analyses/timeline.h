/*
 * timeline.h - the timeline, from per-call times (RONDO_TIMING=percall):
 * how much of each bucket of time a rank spent inside MPI calls, and the
 * level a share is drawn at.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.
 */
#ifndef RONDO_TIMELINE_H
#define RONDO_TIMELINE_H

#include <stdint.h>

#include "rondo.h"

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
int an_timeline_rank(const rondo_trace *t, uint32_t rank, struct an_buckets *b);

/* The level (0 to levels - 1) a share of a bucket in MPI is drawn at: 0
 * only for no time at all, so that a short call still shows. */
int an_level(double busy, double share, int levels);

/* The share of a bucket of whole_ns given to a function with fn_ns of
 * the busy_ns inside calls: its part of the time in MPI, scaled to the
 * MPI share shown, min(busy / whole, 1).  Calls that overlap (traces of
 * format 1.6 and older) can make busy more than whole; the functions'
 * shares still add up to the MPI share.  0 when busy or whole is 0. */
double an_func_share(double fn_ns, double busy_ns, double whole_ns);

#endif /* RONDO_TIMELINE_H */
