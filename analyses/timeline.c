/*
 * timeline.c - the timeline: how much of each bucket of time a rank spent
 * inside MPI calls, from its per-call times (see timeline.h).  One rank
 * at a time, by its own timed iterator: nothing is matched across ranks.
 */
#include <math.h>

#include "timeline.h"

/* Adds a call of signature sig from s to e to the buckets it covers. */
static void timeline_add(const rondo_trace *t, struct an_buckets *b, double s,
			 double e, uint32_t sig)
{
	double end = b->t0 + b->w * b->nb;
	double lo_call = s > b->t0 ? s : b->t0, hi_call = e < end ? e : end;
	uint32_t f = rondo_sig_func(t, sig);
	int lit = b->lit && b->sigs && sig < rondo_sig_count(t) && b->sigs[sig];

	if (hi_call <= lo_call)
		return;
	for (uint32_t k = (uint32_t)((lo_call - b->t0) / b->w); k < b->nb;
	     k++) {
		double lo = b->t0 + b->w * k, hi = lo + b->w;
		double in = (hi_call < hi ? hi_call : hi) -
			    (lo_call > lo ? lo_call : lo);

		if (lo >= hi_call)
			break;
		if (in <= 0)
			continue;
		if (b->busy)
			b->busy[k] += in;
		if (lit)
			b->lit[k] += in;
		if (b->fn && f < b->nfunc)
			b->fn[(size_t)k * b->nfunc + f] += in;
	}
}

int an_timeline_rank(const rondo_trace *t, uint32_t rank, struct an_buckets *b)
{
	double base, end = b->t0 + b->w * b->nb, stop = HUGE_VAL;
	rondo_iter *it;
	uint32_t sig;
	int64_t s, e;
	int rc;

	if (rondo_timing_mode(t, &base) != RONDO_TIMING_PERCALL)
		return RONDO_E_MISSING;
	it = rondo_iter_create_timed(t, rank);
	if (!it)
		return RONDO_E_NOMEM;
	/* A start read back is late by less than (b - 1) times itself, and
	 * the starts of one rank rise: once one is past b times the window's
	 * end, no later call reaches back into it. */
	if (b->nb && end > 0)
		stop = end * base;
	while ((rc = rondo_iter_next(it, &sig)) > 0) {
		/* past the rank's timed calls: no more times */
		if (rondo_iter_time(it, &s, &e) < 0)
			break;
		b->first = s < b->first ? s : b->first;
		b->last = e > b->last ? e : b->last;
		if ((double)s >= stop)
			break;
		if (b->nb && (double)e > b->t0 && (double)s < end)
			timeline_add(t, b, (double)s, (double)e, sig);
	}
	rondo_iter_free(it);
	return rc < 0 ? rc : 0;
}

int an_level(double busy, double share, int levels)
{
	long l;

	if (busy <= 0)
		return 0;
	l = 1 + lround((share > 1 ? 1 : share) * (levels - 2));
	return l > levels - 1 ? levels - 1 : (int)l;
}

double an_func_share(double fn_ns, double busy_ns, double whole_ns)
{
	if (busy_ns <= 0 || whole_ns <= 0)
		return 0;
	/* fn / busy of the MPI share: sums to it over the functions */
	return fn_ns / busy_ns * (busy_ns < whole_ns ? busy_ns : whole_ns) /
	       whole_ns;
}
