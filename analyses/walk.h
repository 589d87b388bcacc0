/*
 * walk.h - what the analyses that match calls across ranks by their times
 * (skew.c, waits.c) share; private to analyses/.
 *
 * The walk: every rank's timed calls (RONDO_TIMING=percall), all ranks at
 * once in the order of their start times, each rank's in program order,
 * each call with the bounds of the errors of its start and its duration.
 * Matching does not depend on that order, only on each rank's own: it is
 * there so that what waits for its match (a collective entered by some
 * members only, a send before its receive) is what was in flight in the
 * run, a few entries, not a rank's whole run.  Besides that, the walk
 * holds a timed iterator per rank (the grammar's depth and 8 bytes per
 * signature each) and takes time proportional to the calls.
 */
#ifndef RONDO_WALK_H
#define RONDO_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "kmap.h"
#include "rondo.h"

/* No index: an empty slot of a map, no request, no entry. */
#define NONE UINT32_MAX

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* What a figure read as v may truly have been, from lo to hi: its times'
 * errors put it within e of v, in either direction, and it is known to
 * lie from 0 to cap (a wait is at most the duration of the call that
 * waited, as read back: never short). */
static inline void an_true_range(int64_t v, int64_t e, int64_t cap, int64_t *lo,
				 int64_t *hi)
{
	*lo = e < v ? v - e : 0;
	*hi = e < cap - v ? v + e : cap;
	if (*hi < *lo)
		*hi = *lo;
}

/* The bound of that figure's error: the farthest of lo and hi. */
static inline int64_t an_capped_err(int64_t v, int64_t e, int64_t cap)
{
	int64_t lo, hi;

	an_true_range(v, e, cap, &lo, &hi);
	return max64(max64(v - lo, hi - v), 0);
}

/* ---- every rank's calls in the order of their start times ---------------- */

/* One rank's current call. */
struct tw_rank {
	rondo_iter *it;
	uint32_t sig;
	int64_t start, end;
	int64_t err, eerr; /* bounds of the errors of start and end */
	int64_t dur;	   /* the duration as coded: never short */
};

/* What both analyses start from: the trace, and the
 * signatures they use (a slot each, for the walk's error bounds). */
struct tbase {
	const rondo_trace *t;
	int32_t *slot; /* by signature: its slot, or -1 when not used */
	uint32_t nslots;
	double base;	  /* the trace's, once walked */
	uint64_t untimed; /* calls past ranks' timed calls */
};

/**
 * Starts b on trace t, using no signature yet.  Returns 0, or
 * RONDO_E_NOMEM (free it with tbase_free() all the same).
 */
int tbase_init(struct tbase *b, const rondo_trace *t);

/* Signature sig is one the analysis uses: tbase_walk() hands out its
 * calls, with error bounds.  Once per signature. */
void tbase_use(struct tbase *b, uint32_t sig);

void tbase_free(struct tbase *b);

/**
 * Hands call() every call of a signature b uses, all ranks' calls in the
 * order of their starts, and sets b->base and b->untimed.  Returns 0,
 * RONDO_E_MISSING when the trace has no per-call times, or the first
 * error (of call() or the walk).
 */
int tbase_walk(struct tbase *b, int (*call)(struct tbase *b, uint32_t rank,
					    const struct tw_rank *x));

#endif /* RONDO_WALK_H */
