/*
 * iter.c - walking the expansion of a rule without expanding it.
 *
 * A walk holds one frame per grammar level: the rule, the position in its
 * body and how many repetitions of that symbol are done.  Repeated terminals
 * are produced one by one; skip() jumps over whole repetitions using the
 * precomputed expansion lengths.
 */
#include <math.h>
#include <stdlib.h>

#include "draw.h"
#include "trace_int.h"

int walk_init(struct walk *w, const struct fmt_grammar *g, const uint64_t *len,
	      uint32_t cap, uint32_t rule)
{
	w->g = g;
	w->len = len;
	w->pos = 0;
	w->depth = 0;
	w->draw = NULL;
	w->cap = cap ? cap : 1;
	w->st = malloc(sizeof(*w->st) * w->cap);
	if (!w->st)
		return RONDO_E_NOMEM;
	if (rule < g->nrules) {
		w->st[0] = (struct walk_frame){rule, 0, 0, 0};
		w->depth = 1;
	}
	return 0;
}

void walk_free(struct walk *w)
{
	free(w->st);
	w->st = NULL;
}

/* The count a loop of site (rule, pos) runs, kept `kept` in the grammar:
 * drawn from its histogram when it has one (draw.h). */
static uint64_t site_count(struct walk_draw *d, uint32_t rule, uint32_t pos,
			   uint64_t kept)
{
	const struct fmt_hist *h = fmt_hists_find(d->h, rule, pos);
	uint32_t k;

	if (!h)
		return kept;
	k = (uint32_t)(h - d->h->h);
	return draw_count(d->seed, d->key[k], d->drawn[k]++,
			  d->bin + d->first[k], h->nbins, h->n, kept);
}

/* How many times the top frame's current symbol s runs: its count, or
 * at a merged loop's site of a drawing walk, the count drawn on entry. */
static uint64_t walk_count(struct walk *w, struct walk_frame *f,
			   const rondo_sym *s)
{
	if (!w->draw)
		return s->count;
	if (!f->n)
		f->n = site_count(w->draw, f->rule, f->pos, s->count);
	return f->n;
}

/* Marks `k` more repetitions of the top frame's current symbol done. */
static void walk_advance(struct walk *w, uint64_t k)
{
	struct walk_frame *f = &w->st[w->depth - 1];
	const rondo_sym *s = &w->g->body[w->g->first[f->rule] + f->pos];

	f->done += k;
	if (f->done == walk_count(w, f, s)) {
		f->pos++;
		f->done = 0;
		f->n = 0;
	}
}

/* Pops finished frames and passes over rules that expand to nothing (all
 * their repetitions at once, however many); returns the current symbol of
 * the top frame, or NULL at the end of the walk. */
static const rondo_sym *walk_current(struct walk *w)
{
	while (w->depth > 0) {
		struct walk_frame *f = &w->st[w->depth - 1];
		uint32_t len = w->g->first[f->rule + 1] - w->g->first[f->rule];
		const rondo_sym *s;

		if (f->pos < len) {
			s = &w->g->body[w->g->first[f->rule] + f->pos];
			if (!RONDO_SYM_IS_RULE(s->sym) ||
			    w->len[RONDO_SYM_ID(s->sym)] > 0)
				return s;
			f->pos++;
			f->done = 0;
			f->n = 0;
			continue;
		}
		w->depth--;
		if (w->depth > 0)
			walk_advance(w, 1);
	}
	return NULL;
}

/* Enters the rule referenced by the top frame's current symbol.  The depth
 * bound computed at open time guarantees room. */
static void walk_descend(struct walk *w, const rondo_sym *s)
{
	w->st[w->depth++] = (struct walk_frame){RONDO_SYM_ID(s->sym), 0, 0, 0};
}

int walk_next(struct walk *w, uint32_t *term)
{
	const rondo_sym *s;

	while ((s = walk_current(w)) != NULL) {
		if (RONDO_SYM_IS_RULE(s->sym)) {
			walk_descend(w, s);
			continue;
		}
		*term = s->sym;
		walk_advance(w, 1);
		w->pos++;
		return 1;
	}
	return 0;
}

int walk_skip(struct walk *w, uint64_t n)
{
	const rondo_sym *s;
	uint32_t term;

	for (; w->draw && n > 0; n--)
		if (walk_next(w, &term) != 1)
			return RONDO_E_RANGE;
	while (n > 0 && (s = walk_current(w)) != NULL) {
		struct walk_frame *f = &w->st[w->depth - 1];
		uint64_t unit = RONDO_SYM_IS_RULE(s->sym)
					? w->len[RONDO_SYM_ID(s->sym)]
					: 1;
		uint64_t k = n / unit;

		if (k > s->count - f->done)
			k = s->count - f->done; /* no draw here */
		if (k > 0) {
			walk_advance(w, k);
			w->pos += k * unit;
			n -= k * unit;
		} else {
			walk_descend(w, s); /* n < unit: the stop is inside */
		}
	}
	return n > 0 ? RONDO_E_RANGE : 0;
}

int walk_depth(const struct fmt_grammar *g, uint32_t *depth)
{
	uint32_t *d = calloc(g->nrules ? g->nrules : 1, sizeof(*d));
	uint32_t best = 0;

	if (!d)
		return RONDO_E_NOMEM;
	/* Rules refer only to smaller ids, so one pass in id order works. */
	for (uint32_t r = 0; r < g->nrules; r++) {
		uint32_t m = 0;

		for (uint32_t i = g->first[r]; i < g->first[r + 1]; i++) {
			uint32_t s = g->body[i].sym;

			if (RONDO_SYM_IS_RULE(s) && d[RONDO_SYM_ID(s)] > m)
				m = d[RONDO_SYM_ID(s)];
		}
		d[r] = m + 1;
		if (d[r] > best)
			best = d[r];
	}
	free(d);
	*depth = best;
	return 0;
}

/* ---- the public iterator ------------------------------------------------- */

/* Calls a timed iterator of format 1.9 decodes ahead of the one it
 * produces: a start as coded may be later than those of the calls after
 * it (its error is a share of the gap from its reference, which the
 * previous call's duration's code may have put far before it), and is
 * shown as the earliest start coded over this many calls (iter_ahead). */
#define AHEAD 64

/* A call decoded ahead: its signature, and its times as coded. */
struct ahead {
	uint32_t sig;
	int rc;	     /* of the walk: 1, or a RONDO_E_* code */
	int trc;     /* of its times: 1 coded, 0 none, or a RONDO_E_* code */
	int64_t s;   /* its start as coded: never early */
	int64_t e;   /* s plus its duration as coded: never early */
	int64_t lo;  /* s minus its bound: the true start is later */
	int64_t low; /* the lower edge of its duration's code */
	int64_t d;   /* its duration as coded */
};

struct rondo_iter {
	struct walk w;
	struct walk_draw draw; /* rondo_iter_draw: w.draw points here */
	/* a timed iterator: the rank's durations and intervals */
	const rondo_trace *t;
	int timed, have;
	struct walk wd, wi;
	uint64_t ntimed;
	int64_t *prev; /* before format 1.7, per signature: its last start,
			  INT64_MIN none yet */
	int64_t last;  /* the rank's last end */
	int64_t offset, start, end;
	int64_t err, derr;  /* bounds of the errors of start and end */
	int64_t dur, dspan; /* the duration as coded, and its bound */
	int from_end;	    /* format 1.7: intervals from the last end */
	/* from 1.8: the rank's coded segments, the next one and the calls
	 * left in the one open */
	struct fmt_tstream ts;
	uint64_t seg, segleft;
	uint32_t rank;
	/* from 1.9 (iter_ahead): the calls decoded ahead, in a ring, from
	 * the one produced next (head, n of them); the timed ones among
	 * them in order of increasing start (dq: their indices in the
	 * ring); the next call's reference; the start shown for the next
	 * call once known; the lower bound of the last call's end */
	struct ahead *q;
	uint32_t head, n, walked; /* walked: the walk is at its end */
	uint32_t *dq, dqh, dqn;
	int64_t ref, next_start, last_lo;
	int shown, next_known; /* shown: a call was produced */
};

static void draw_free(struct walk_draw *d);

/* An iterator over the expansion of `rule`: 0, or RONDO_E_NOMEM. */
static int iter_rule(const rondo_trace *t, uint32_t rule, rondo_iter **out)
{
	rondo_iter *it = calloc(1, sizeof(*it));

	if (!it)
		return RONDO_E_NOMEM;
	if (walk_init(&it->w, &t->g, t->rule_calls, t->depth, rule) < 0) {
		free(it);
		return RONDO_E_NOMEM;
	}
	*out = it;
	return 0;
}

/* Adds the walks of rank's per-call times: 0, or RONDO_E_NOMEM. */
static int iter_timed(const rondo_trace *t, uint32_t rank, rondo_iter *it)
{
	const struct fmt_timing *tm = &t->timing;

	it->timed = 1;
	it->ntimed = t->ttimed[rank];
	it->offset = tm->offset[rank];
	it->from_end = t->c.minor >= 7;
	it->rank = rank;
	if (tm->coded) {
		it->seg = tm->first[rank];
		if (!tm->from_low)
			return 0;
		it->q = malloc(sizeof(*it->q) * AHEAD);
		it->dq = malloc(sizeof(*it->dq) * AHEAD);
		return it->q && it->dq ? 0 : RONDO_E_NOMEM;
	}
	if (walk_init(&it->wd, &tm->g, tm->len, t->tdepth, t->tseq[2 * rank]) <
		    0 ||
	    walk_init(&it->wi, &tm->g, tm->len, t->tdepth,
		      t->tseq[2 * rank + 1]) < 0)
		return RONDO_E_NOMEM;
	if (it->from_end)
		return 0; /* no per-signature references */
	it->prev = malloc(sizeof(*it->prev) * ((size_t)t->cst.n + 1));
	if (!it->prev)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < t->cst.n; s++)
		it->prev[s] = INT64_MIN;
	return 0;
}

int rondo_iter_open(const rondo_trace *t, uint32_t id, unsigned flags,
		    rondo_iter **out)
{
	int timed = (flags & RONDO_ITER_TIMED) != 0;
	int rule = (flags & RONDO_ITER_RULE) != 0;
	int rc;

	if (!out)
		return RONDO_E_RANGE;
	*out = NULL;
	if (!t || !t->opened)
		return RONDO_E_STATE;
	if ((flags & ~(unsigned)(RONDO_ITER_TIMED | RONDO_ITER_RULE)) ||
	    (timed && rule) || id >= (rule ? t->g.nrules : t->rm.nranks))
		return RONDO_E_RANGE;
	if (timed && id >= t->timing.nranks)
		return RONDO_E_MISSING;
	rc = iter_rule(t, rule ? id : t->rank_root[id], out);
	if (rc == 0)
		(*out)->t = t;
	if (rc == 0 && timed)
		rc = iter_timed(t, id, *out);
	if (rc < 0) {
		rondo_iter_free(*out);
		*out = NULL;
	}
	return rc;
}

rondo_iter *rondo_iter_create_rule(const rondo_trace *t, uint32_t rule)
{
	rondo_iter *it;

	rondo_iter_open(t, rule, RONDO_ITER_RULE, &it);
	return it;
}

rondo_iter *rondo_iter_create(const rondo_trace *t, uint32_t rank)
{
	rondo_iter *it;

	rondo_iter_open(t, rank, 0, &it);
	return it;
}

rondo_iter *rondo_iter_create_timed(const rondo_trace *t, uint32_t rank)
{
	rondo_iter *it;

	rondo_iter_open(t, rank, RONDO_ITER_TIMED, &it);
	return it;
}

void rondo_iter_free(rondo_iter *it)
{
	if (!it)
		return;
	walk_free(&it->w);
	walk_free(&it->wd);
	walk_free(&it->wi);
	fmt_tstream_free(&it->ts);
	free(it->prev);
	free(it->q);
	free(it->dq);
	draw_free(&it->draw);
	free(it);
}

/* The draws' tables of it->draw: each histogram's key and bins (0 or
 * RONDO_E_NOMEM). */
static int draw_tables(struct walk_draw *d, const struct fmt_hists *h)
{
	uint64_t nb = 0;

	for (uint32_t k = 0; k < h->n; k++)
		nb += h->h[k].nbins;
	d->key = malloc(sizeof(*d->key) * h->n);
	d->drawn = calloc(h->n, sizeof(*d->drawn));
	d->first = malloc(sizeof(*d->first) * h->n);
	d->bin = malloc(sizeof(*d->bin) * (nb + 1));
	if (!d->key || !d->drawn || !d->first || !d->bin)
		return RONDO_E_NOMEM;
	nb = 0;
	for (uint32_t k = 0; k < h->n; k++) {
		const struct fmt_hist *x = &h->h[k];

		d->first[k] = nb;
		for (uint32_t i = 0; i < x->nbins; i++)
			d->bin[nb++] = (struct draw_bin){
				x->bin[i].lo, x->bin[i].hi, x->bin[i].n};
		d->key[k] = draw_key(x->n, x->sum, x->min, x->max,
				     d->bin + d->first[k], x->nbins);
	}
	d->h = h;
	return 0;
}

static void draw_free(struct walk_draw *d)
{
	free(d->key);
	free(d->drawn);
	free(d->first);
	free(d->bin);
	*d = (struct walk_draw){0};
}

int rondo_iter_draw(rondo_iter *it, uint64_t seed)
{
	if (!it || it->timed)
		return RONDO_E_STATE;
	if (!it->t->hists.n)
		return 0; /* nothing merged: the kept counts are the counts */
	if (!it->draw.h && draw_tables(&it->draw, &it->t->hists) < 0) {
		draw_free(&it->draw);
		return RONDO_E_NOMEM;
	}
	it->draw.seed = seed;
	it->w.draw = &it->draw;
	return 0;
}

/* The bound of the error of a time read back over a span of `span` ns
 * (rondo.h): less than (b - 1) |span| + 1 ns, or b ns more for a negative
 * span, rounded down. */
static int64_t span_bound(double base, int64_t span)
{
	double e = ceil((base - 1) * fabs((double)span));

	/* a damaged file's spans may be any size: keep it a number */
	if (e > 4e18)
		e = 4e18;
	return (int64_t)e + (span < 0 ? (int64_t)ceil(base) : 1);
}

/* The codes of the next timed call, of signature sig: from the grammar's
 * walks (up to 1.7: as long as ntimed, checked at open), or from the
 * rank's coded segments, each coded afresh.  0, or RONDO_E_CORRUPT for
 * a damaged stream (a code past the scale, or bytes short), or
 * RONDO_E_NOMEM. */
static int iter_codes(rondo_iter *it, uint32_t sig, uint32_t *dc, uint32_t *ic)
{
	const struct fmt_timing *tm = &it->t->timing;
	uint32_t limit = fmt_tcode_limit(&it->t->tscale);
	int rc;

	if (!tm->coded) {
		walk_next(&it->wd, dc);
		walk_next(&it->wi, ic);
		return 0;
	}
	while (it->segleft == 0) {
		const struct fmt_tseg *g;

		/* ntimed is the segments' calls: one is left */
		if (it->seg >= tm->first[it->rank + 1])
			return RONDO_E_CORRUPT;
		g = &tm->seg[it->seg];
		fmt_tstream_free(&it->ts);
		fmt_tstream_decoder(&it->ts, tm->data + g->at, g->len);
		it->ts.fixed = !tm->follow;
		it->segleft = g->calls;
		it->seg++;
	}
	it->segleft--;
	rc = fmt_tstream_get(&it->ts, sig, dc, ic);
	return rc ? rc : *dc >= limit || *ic >= limit ? RONDO_E_CORRUPT : 0;
}

/* The times of call `sig`, the next of a timed iterator (FORMAT.md,
 * "timing"), and the bounds of their errors.  From format 1.7 the
 * interval counts from the end of the rank's last call, never negative
 * but for the first call: a zero interval is a call the tracer put at
 * that end, which may be late by as much as that end (the previous
 * start's error and its duration's).  Before, it counted from the
 * signature's last start, else from the end of the rank's last call. */
static int iter_times(rondo_iter *it, uint32_t sig)
{
	const struct fmt_tscale *sc = &it->t->tscale;
	uint32_t dc = 0, ic = 0;
	int64_t ref, start, ival, dur;
	int rc;

	it->have = 0;
	if (it->w.pos > it->ntimed)
		return 0;
	rc = iter_codes(it, sig, &dc, &ic);
	if (rc < 0) {
		it->ntimed = 0; /* no more times */
		return rc;
	}
	ival = fmt_tvalue_ival(sc, ic);
	dur = (int64_t)fmt_tvalue_dur(sc, dc);
	if (it->from_end)
		ref = it->last;
	else
		ref = it->prev[sig] != INT64_MIN ? it->prev[sig] : it->last;
	/* held within +-FMT_TIME_MAX: no sum of a file's codes overflows */
	start = fmt_time_add(ref, ival);
	if (it->from_end && ic == 0 && it->w.pos > 1)
		it->err = it->derr; /* the previous end's */
	else
		it->err = span_bound(sc->base, ival);
	/* the end's: the start's and the duration's, both below 4e18 + 16:
	 * no overflow; kept there */
	it->dur = dur;
	it->dspan = span_bound(sc->base, dur);
	it->derr = it->err + it->dspan;
	if (it->derr > (int64_t)4e18)
		it->derr = (int64_t)4e18;
	if (!it->from_end)
		it->prev[sig] = start;
	it->last = fmt_time_add(start, dur);
	it->start = fmt_time_add(start, it->offset);
	it->end = fmt_time_add(it->last, it->offset);
	it->have = 1;
	return 0;
}

/* Decodes the next call of the walk into the ring (format 1.9): its
 * times as coded (FORMAT.md, "timing"), and where it goes among the
 * timed calls ahead by start. */
static void ahead_push(rondo_iter *it)
{
	const struct fmt_tscale *sc = &it->t->tscale;
	uint32_t i = (it->head + it->n) % AHEAD, dc = 0, ic = 0;
	struct ahead *a = &it->q[i];
	int64_t ival;

	a->rc = walk_next(&it->w, &a->sig);
	if (a->rc != 1) {
		it->walked = 1;
		if (a->rc == 0)
			return;
	}
	it->n++;
	a->trc = 0;
	if (a->rc != 1 || it->w.pos > it->ntimed)
		return;
	a->trc = iter_codes(it, a->sig, &dc, &ic);
	if (a->trc < 0) {
		it->ntimed = 0; /* no more times */
		return;
	}
	a->trc = 1;
	ival = fmt_tvalue_ival(sc, ic);
	/* held within +-FMT_TIME_MAX: no sum of a file's codes overflows */
	a->s = fmt_time_add(it->ref, ival);
	a->d = (int64_t)fmt_tvalue_dur(sc, dc);
	a->e = fmt_time_add(a->s, a->d);
	a->lo = a->s - span_bound(sc->base, ival);
	a->low = (int64_t)fmt_tvalue_dur_low(sc, dc);
	it->ref = fmt_time_add(a->s, a->low);
	while (it->dqn &&
	       it->q[it->dq[(it->dqh + it->dqn - 1) % AHEAD]].s >= a->s)
		it->dqn--;
	it->dq[(it->dqh + it->dqn++) % AHEAD] = i;
}

static void ahead_fill(rondo_iter *it)
{
	while (it->n < AHEAD && !it->walked)
		ahead_push(it);
}

/* The next call of a timed iterator of format 1.9, from the ring.  The
 * start shown is never early and never before the previous one: the
 * earliest start coded from this call to AHEAD calls on (each true start
 * is before all those after it, each coded start after its true one), or
 * the previous start shown if later; the end shown, the end coded or the
 * next start shown if earlier, never before the start.  So calls read in
 * order and never overlap, and none is read late by more than its own
 * code's error.  The bounds: of the start, its distance from the latest
 * time the call is known to start after (its coded start less its
 * bound, or the previous call's such time plus the lower edge of its
 * duration); of the end, likewise. */
static int ahead_next(rondo_iter *it, uint32_t *sig)
{
	struct ahead a; /* its slot takes another call below */
	int64_t lo, start;

	ahead_fill(it);
	if (it->n == 0)
		return 0;
	a = it->q[it->head];
	*sig = a.sig;
	it->have = 0;
	if (a.rc != 1 || a.trc != 1) {
		it->head = (it->head + 1) % AHEAD;
		it->n--;
		return a.rc != 1 ? a.rc : a.trc < 0 ? a.trc : 1;
	}
	/* known but for the first call (none after an untimed one) */
	start = it->next_known ? it->next_start : it->q[it->dq[it->dqh]].s;
	if (it->dq[it->dqh] == it->head) {
		it->dqh = (it->dqh + 1) % AHEAD;
		it->dqn--;
	}
	it->head = (it->head + 1) % AHEAD;
	it->n--;
	ahead_fill(it);
	/* the next call's start, now that the ring reaches past it */
	it->next_known = it->n && it->q[it->head].trc == 1;
	if (it->next_known) {
		it->next_start = it->q[it->dq[it->dqh]].s;
		if (it->next_start < start)
			it->next_start = start;
	}
	lo = a.lo;
	if (it->shown && it->last_lo > lo)
		lo = it->last_lo;
	it->start = start;
	it->last = a.e;
	if (it->next_known && it->next_start < it->last)
		it->last = it->next_start;
	if (it->last < start)
		it->last = start;
	/* a damaged file's lower bounds may be anything: at least 1 */
	it->err = start - lo > 0 ? start - lo : 1;
	it->dur = a.d;
	it->dspan = span_bound(it->t->tscale.base, a.d);
	it->last_lo = fmt_time_add(lo, a.low);
	it->derr = it->last - it->last_lo > 0 ? it->last - it->last_lo : 1;
	it->start = fmt_time_add(start, it->offset);
	it->end = fmt_time_add(it->last, it->offset);
	it->shown = 1;
	it->have = 1;
	return 1;
}

int rondo_iter_next(rondo_iter *it, uint32_t *sig)
{
	int rc;

	if (!it || !sig)
		return RONDO_E_STATE;
	if (it->q)
		return ahead_next(it, sig);
	rc = walk_next(&it->w, sig);
	if (it->timed) {
		it->have = 0;
		if (rc == 1) {
			int trc = iter_times(it, *sig);

			rc = trc < 0 ? trc : rc;
		}
	}
	return rc;
}

int rondo_iter_skip(rondo_iter *it, uint64_t n)
{
	uint32_t sig;

	if (!it)
		return RONDO_E_STATE;
	if (!it->timed)
		return walk_skip(&it->w, n);
	for (; n > 0; n--)
		if (rondo_iter_next(it, &sig) != 1)
			return RONDO_E_RANGE;
	return 0;
}

/* Whether the call produced last has times: 0, RONDO_E_MISSING, or
 * RONDO_E_STATE (not timed, or no call yet). */
static int timed_state(const rondo_iter *it)
{
	if (!it || !it->timed || rondo_iter_position(it) == 0)
		return RONDO_E_STATE;
	return it->have ? 0 : RONDO_E_MISSING;
}

int rondo_iter_time(const rondo_iter *it, int64_t *start_ns, int64_t *end_ns)
{
	int rc = timed_state(it);

	if (rc)
		return rc;
	if (start_ns)
		*start_ns = it->start;
	if (end_ns)
		*end_ns = it->end;
	return 0;
}

int rondo_iter_time_bound(const rondo_iter *it, int64_t *start_err,
			  int64_t *end_err)
{
	int rc = timed_state(it);

	if (rc)
		return rc;
	if (start_err)
		*start_err = it->err;
	if (end_err)
		*end_err = it->derr;
	return 0;
}

int rondo_iter_duration(const rondo_iter *it, int64_t *dur_ns, int64_t *dur_err)
{
	int rc = timed_state(it);

	if (rc)
		return rc;
	if (dur_ns)
		*dur_ns = it->dur;
	if (dur_err)
		*dur_err = it->dspan;
	return 0;
}

uint64_t rondo_iter_position(const rondo_iter *it)
{
	return !it ? 0 : it->w.pos - (it->q ? it->n : 0);
}
