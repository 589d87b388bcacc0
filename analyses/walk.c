/*
 * walk.c - every rank's timed calls, all ranks at once in the order of
 * their start times (struct twalk: a heap of timed iterators, one per
 * rank), for the analyses that match calls across ranks (see walk.h).
 *
 * Error bounds.  Each call comes with the bounds of its start's error and
 * of its end's, as the iterator gives them (rondo_iter_time_bound:
 * rondo.h says how they follow from the trace's base), and its duration
 * as coded, never short (rondo_iter_duration), which may be longer than
 * its end minus its start.  A difference of two times is then off by
 * less than the larger of their bounds (both errors lie in [0, bound)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "walk.h"

/* ---- every rank's calls in the order of their start times ---------------- */

struct twalk {
	const rondo_trace *t;
	double base;
	uint32_t n;
	struct tw_rank *r;
	uint32_t *heap, nheap; /* ranks, by their current call's start */
	const int32_t *slot;   /* by signature: its slot, or -1 */
	uint32_t nslots;
	uint32_t cur;	  /* the rank whose call was handed out last */
	uint64_t untimed; /* calls past ranks' timed calls */
};

/* Rank i's next call: 1, 0 when it has no more timed calls, or a
 * RONDO_E_* code. */
static int tw_advance(struct twalk *w, uint32_t i)
{
	struct tw_rank *x = &w->r[i];
	int rc = rondo_iter_next(x->it, &x->sig);

	if (rc <= 0)
		return rc;
	if (rondo_iter_time(x->it, &x->start, &x->end) < 0 ||
	    rondo_iter_time_bound(x->it, &x->err, &x->eerr) < 0 ||
	    rondo_iter_duration(x->it, &x->dur, NULL) < 0)
		return 0; /* counted in w->untimed from the start */
	return 1;
}

static int tw_before(const struct twalk *w, uint32_t a, uint32_t b)
{
	return w->r[a].start != w->r[b].start ? w->r[a].start < w->r[b].start
					      : a < b;
}

static void tw_sift(struct twalk *w, uint32_t i)
{
	uint32_t *h = w->heap, tmp;

	for (uint32_t c; (c = 2 * i + 1) < w->nheap; i = c) {
		if (c + 1 < w->nheap && tw_before(w, h[c + 1], h[c]))
			c++;
		if (!tw_before(w, h[c], h[i]))
			return;
		tmp = h[i], h[i] = h[c], h[c] = tmp;
	}
}

static void tw_free(struct twalk *w)
{
	for (uint32_t i = 0; w->r && i < w->n; i++) {
		rondo_iter_free(w->r[i].it);
	}
	free(w->r);
	free(w->heap);
	memset(w, 0, sizeof(*w));
}

/* Starts every rank's walk; slot[] (by signature) names the signatures
 * the analysis uses.  0, RONDO_E_MISSING without per-call
 * times, or another RONDO_E_* code (free it all the same). */
static int tw_init(struct twalk *w, const rondo_trace *t, const int32_t *slot,
		   uint32_t nslots)
{
	int rc = 0;

	memset(w, 0, sizeof(*w));
	w->t = t;
	w->slot = slot;
	w->nslots = nslots;
	w->cur = NONE;
	if (rondo_timing_mode(t, &w->base) != RONDO_TIMING_PERCALL)
		return RONDO_E_MISSING;
	w->n = rondo_rank_count(t);
	w->r = calloc((size_t)w->n + 1, sizeof(*w->r));
	w->heap = malloc(sizeof(*w->heap) * ((size_t)w->n + 1));
	if (!w->r || !w->heap)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < w->n && rc >= 0; i++) {
		struct tw_rank *x = &w->r[i];

		w->untimed = sat_add(w->untimed,
				     rondo_rank_calls(t, i) -
					     rondo_rank_timed_calls(t, i));
		x->it = rondo_iter_create_timed(t, i);
		if (!x->it)
			return RONDO_E_NOMEM;
		rc = tw_advance(w, i);
		if (rc == 1)
			w->heap[w->nheap++] = i;
	}
	for (uint32_t i = w->nheap / 2; rc >= 0 && i-- > 0;)
		tw_sift(w, i);
	return rc < 0 ? rc : 0;
}

/* The next call of all: sets *rank, whose w->r[] holds it; 1, 0 at the
 * end, or a RONDO_E_* code. */
static int tw_next(struct twalk *w, uint32_t *rank)
{
	if (w->cur != NONE) { /* it is still on top of the heap */
		int rc = tw_advance(w, w->cur);

		if (rc < 0)
			return rc;
		if (rc == 0)
			w->heap[0] = w->heap[--w->nheap];
		tw_sift(w, 0);
		w->cur = NONE;
	}
	if (!w->nheap)
		return 0;
	*rank = w->cur = w->heap[0];
	return 1;
}

int tbase_init(struct tbase *b, const rondo_trace *t)
{
	uint32_t nsig = rondo_sig_count(t);

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->slot = malloc(sizeof(*b->slot) * ((size_t)nsig + 1));
	if (!b->slot)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < nsig; k++)
		b->slot[k] = -1;
	return 0;
}

void tbase_use(struct tbase *b, uint32_t sig)
{
	b->slot[sig] = (int32_t)b->nslots++;
}

void tbase_free(struct tbase *b)
{
	free(b->slot);
}

int tbase_walk(struct tbase *b, int (*call)(struct tbase *b, uint32_t rank,
					    const struct tw_rank *x))
{
	struct twalk w;
	uint32_t r;
	int rc = tw_init(&w, b->t, b->slot, b->nslots);

	while (rc == 0 && (rc = tw_next(&w, &r)) == 1)
		rc = b->slot[w.r[r].sig] >= 0 ? call(b, r, &w.r[r]) : 0;
	b->base = w.base;
	b->untimed = w.untimed;
	tw_free(&w);
	return rc;
}
