/*
 * view_calls.c - one rank's calls in start order, for a trace with
 * per-call times (uftrace's and Vampir's call list): each call's index,
 * start, duration, the time since the previous call ended (the rank
 * computing, outside MPI) and its parameters as that rank passed them.
 * Reached with c from the tree (the selection's first call on its
 * group's first rank) and from the timeline (the cursor's rank and
 * time); Enter goes to the call's place in the tree, T to the timeline
 * at its time, [ and ] to the previous and next rank at the same time.
 *
 * Nothing is expanded ahead: the rows on screen are decoded from the
 * grammar by a timed iterator into a window of rows around them; a jump
 * before the window starts the iterator again (rondo_iter_skip decodes
 * the times it skips: time proportional to the jump, memory fixed).  The
 * pane's operations: view_calls_ops.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

/* Rows decoded at once, around the ones on screen. */
#define VC_WINDOW 512

#define COL_TIME 11 /* "12345.678901" seconds, and "took" and "gap" */

struct vc_row {
	uint32_t sig;
	int timed; /* start and end known */
	int64_t start, end;
};

struct view_calls {
	uint32_t rank;
	uint64_t n, timed; /* the rank's calls, and those with times */
	uint64_t cur, top;
	rondo_iter *it; /* at rows w0 + nw, or NULL */
	struct vc_row rows[VC_WINDOW];
	uint64_t w0;
	uint32_t nw;
	int64_t before_end; /* the end of call w0 - 1, when timed */
	int before_timed;
	int err; /* of the last decoding, 0 when it went through */
};

/* ---- decoding ------------------------------------------------------------- */

static int vc_next(struct view_calls *vc, struct vc_row *r)
{
	int rc = rondo_iter_next(vc->it, &r->sig);

	if (rc != 1)
		return rc < 0 ? rc
			      : RONDO_E_CORRUPT; /* fewer calls than said */
	r->timed = rondo_iter_time(vc->it, &r->start, &r->end) == 0;
	return 0;
}

/* Decodes the window of rows that holds row i; 0 or a RONDO_E_* code
 * (then vc->err, and the window is empty). */
static int vc_fill(struct view *v, uint64_t i)
{
	struct view_calls *vc = v->clist;
	uint64_t w0 = i > VC_WINDOW / 4 ? i - VC_WINDOW / 4 : 0;
	struct vc_row before;
	int rc = 0;

	if (i >= vc->w0 && i < vc->w0 + vc->nw)
		return 0;
	if (vc->it && rondo_iter_position(vc->it) > (w0 ? w0 - 1 : 0)) {
		rondo_iter_free(vc->it);
		vc->it = NULL;
	}
	if (!vc->it) {
		rc = rondo_iter_open(v->t, vc->rank, RONDO_ITER_TIMED, &vc->it);
		if (rc < 0)
			goto fail;
	}
	vc->nw = 0;
	vc->before_timed = 0;
	if (w0 > 0) {
		rc = rondo_iter_skip(vc->it,
				     w0 - 1 - rondo_iter_position(vc->it));
		if (rc < 0 || (rc = vc_next(vc, &before)) < 0)
			goto fail;
		vc->before_timed = before.timed;
		vc->before_end = before.end;
	}
	vc->w0 = w0;
	while (vc->nw < VC_WINDOW && w0 + vc->nw < vc->n) {
		rc = vc_next(vc, &vc->rows[vc->nw]);
		if (rc < 0)
			goto fail;
		vc->nw++;
	}
	vc->err = 0;
	return 0;
fail:
	rondo_iter_free(vc->it);
	vc->it = NULL;
	vc->nw = 0;
	vc->err = rc;
	return rc;
}

/* Row i, decoded when needed; NULL when it cannot be. */
static const struct vc_row *vc_row(struct view *v, uint64_t i)
{
	struct view_calls *vc = v->clist;

	if (i >= vc->n || vc_fill(v, i) < 0)
		return NULL;
	return &vc->rows[i - vc->w0];
}

/* The end of the call before row i, when known: *end, 1. */
static int vc_end_before(struct view *v, uint64_t i, int64_t *end)
{
	struct view_calls *vc = v->clist;
	const struct vc_row *r;

	if (i == 0)
		return 0;
	if (i == vc->w0 && vc->before_timed) {
		*end = vc->before_end;
		return 1;
	}
	r = vc_row(v, i - 1);
	if (!r || !r->timed)
		return 0;
	*end = r->end;
	return 1;
}

/* The first call of the rank that ends after ns (its last call when none
 * does): a walk from the start, one decoding a call. */
static uint64_t vc_at_time(struct view *v, int64_t ns)
{
	struct view_calls *vc = v->clist;
	const struct vc_row *r;

	for (uint64_t i = 0; i < vc->n; i++) {
		r = vc_row(v, i);
		if (!r || !r->timed)
			return i ? i - 1 : 0;
		if (r->end > ns)
			return i;
	}
	return vc->n ? vc->n - 1 : 0;
}

/* ---- showing it ----------------------------------------------------------- */

static void vc_close(struct view *v)
{
	if (!v->clist)
		return;
	rondo_iter_free(v->clist->it);
	free(v->clist);
	v->clist = NULL;
}

/* The pane on rank `rank`, at call `index` (or, index UINT64_MAX, at the
 * first call that ends after time ns).  VIEW_REDRAW. */
static int vc_show(struct view *v, uint32_t rank, uint64_t index, int64_t ns)
{
	struct view_calls *vc;
	double base;

	if (!view_percall(v, &base))
		return VIEW_REDRAW;
	if (rank >= rondo_rank_count(v->t)) {
		view_message(v, 1, "no rank %" PRIu32, rank);
		return VIEW_REDRAW;
	}
	vc_close(v);
	vc = calloc(1, sizeof(*vc));
	if (!vc) {
		view_message(v, 1, "out of memory");
		return VIEW_REDRAW;
	}
	v->clist = vc;
	vc->rank = rank;
	vc->n = rondo_rank_calls(v->t, rank);
	vc->timed = rondo_rank_timed_calls(v->t, rank);
	vc->cur = index == UINT64_MAX ? vc_at_time(v, ns) : index;
	if (vc->cur >= vc->n)
		vc->cur = vc->n ? vc->n - 1 : 0;
	vc->top = UINT64_MAX; /* the first draw puts the cursor a third down */
	if (vc->n && !vc_row(v, vc->cur))
		view_message(v, 1, "rank %" PRIu32 "'s calls: %s", rank,
			     rondo_strerror(vc->err));
	v->pane = VIEW_CALLS;
	return VIEW_REDRAW;
}

/* The first rank of node n's group that the rank filter shows. */
static uint32_t node_rank(const struct view *v, uint32_t n)
{
	struct tree_info in;
	uint32_t *ranks, rank = UINT32_MAX;
	int64_t k;

	if (tree_info(v->tree, n, &in) < 0 ||
	    !(ranks = malloc(sizeof(*ranks) * (in.ranks ? in.ranks : 1))))
		return UINT32_MAX;
	k = rondo_group_ranks(v->t, in.group, ranks, in.ranks);
	for (int64_t i = 0; i < k && rank == UINT32_MAX; i++)
		if (view_rank_shown(v, ranks[i]))
			rank = ranks[i];
	free(ranks);
	return rank;
}

int view_calls_show(struct view *v)
{
	uint32_t n = tree_row_node(v->tree, v->cur), rank;

	if (v->pane == VIEW_TIMELINE) {
		int64_t ns;

		if (view_timeline_cursor(v, &rank, &ns) < 0)
			return 0;
		return vc_show(v, rank, UINT64_MAX, ns);
	}
	rank = node_rank(v, n);
	if (rank == UINT32_MAX)
		return 0;
	return vc_show(v, rank, tree_node_first_call(v->tree, n), 0);
}

static uint32_t calls_rank(const struct view *v)
{
	return v->clist ? v->clist->rank : TREE_NONE;
}

/* ---- its keys ------------------------------------------------------------- */

int view_calls_tree(struct view *v)
{
	struct view_calls *vc = v->clist;
	uint32_t n;

	if (!vc || !vc->n)
		return 0;
	if (!view_rank_shown(v, vc->rank)) {
		view_message(v, 1,
			     "rank %" PRIu32 " is not shown: r, then %" PRIu32
			     ", to show it",
			     vc->rank, vc->rank);
		return VIEW_REDRAW;
	}
	n = tree_find_call(v->tree, vc->rank, vc->cur, NULL);
	if (n == TREE_NONE) {
		view_message(v, 1, "call %" PRIu64 " is not in the tree",
			     vc->cur);
		return VIEW_REDRAW;
	}
	v->pane = VIEW_TREE;
	view_tree_select(v, n);
	return VIEW_REDRAW;
}

int view_calls_timeline(struct view *v)
{
	struct view_calls *vc = v->clist;
	const struct vc_row *r;

	if (!vc || !(r = vc_row(v, vc->cur)) || !r->timed) {
		view_message(v, 0, "this call has no times");
		return VIEW_REDRAW;
	}
	return view_timeline_goto(v, vc->rank, r->start);
}

/* The rank shown before (dir < 0) or after, at the selected call's
 * start. */
static int vc_rank_step(struct view *v, int dir)
{
	struct view_calls *vc = v->clist;
	uint32_t n = rondo_rank_count(v->t);
	const struct vc_row *r;
	uint32_t rank;

	if (!vc)
		return 0;
	rank = vc->rank;
	do
		rank = dir < 0 ? rank - 1 : rank + 1; /* 0 - 1 is past n */
	while (rank < n && !view_rank_shown(v, rank));
	if (rank >= n) {
		view_message(v, 0, "no rank %s%s", dir < 0 ? "before" : "after",
			     v->rank_in ? " among those shown" : "");
		return VIEW_REDRAW;
	}
	r = vc->n ? vc_row(v, vc->cur) : NULL;
	if (r && r->timed)
		return vc_show(v, rank, UINT64_MAX, r->start);
	return vc_show(v, rank, 0, 0);
}

int view_calls_prev_rank(struct view *v)
{
	return vc_rank_step(v, -1);
}

int view_calls_next_rank(struct view *v)
{
	return vc_rank_step(v, 1);
}

/* ---- drawing -------------------------------------------------------------- */

static int index_width(const struct view_calls *vc)
{
	char s[24];

	return snprintf(s, sizeof(s), "%" PRIu64, vc->n ? vc->n - 1 : 0) + 1;
}

static void draw_row(struct view *v, int y, uint64_t i, int selected)
{
	struct view_calls *vc = v->clist;
	const struct vc_row *r = vc_row(v, i);
	int attr = theme_attr(THEME_SELECTED), iw = index_width(vc), x;
	char num[3][32], text[1024];
	int64_t before;

	view_fill(y, 0, v->cols, selected ? attr : theme_attr(THEME_NORMAL));
	snprintf(text, sizeof(text), "%" PRIu64, i);
	view_put_right(v, y, 0, iw - 1, selected ? attr : theme_attr(THEME_DIM),
		       text);
	if (!r) {
		view_put(v, y, iw + 1, v->cols - iw - 2,
			 theme_attr(THEME_ERROR), rondo_strerror(vc->err));
		return;
	}
	if (r->timed) {
		snprintf(num[0], sizeof(num[0]), "%.6f",
			 (double)r->start / 1e9);
		view_duration(num[1], sizeof(num[1]),
			      (double)(r->end - r->start), v->utf8);
		if (vc_end_before(v, i, &before))
			view_duration(num[2], sizeof(num[2]),
				      (double)(r->start - before), v->utf8);
		else
			snprintf(num[2], sizeof(num[2]), "-");
		r = vc_row(v, i); /* the window may have moved */
	} else {
		for (int k = 0; k < 3; k++)
			snprintf(num[k], sizeof(num[k]), "-");
	}
	x = iw;
	for (int k = 0; k < 3; k++) {
		view_put_right(v, y, x, COL_TIME - 1,
			       selected ? attr
			       : k == 2 ? theme_attr(THEME_DIM)
					: theme_attr(THEME_TIME),
			       num[k]);
		x += COL_TIME;
	}
	if (!r)
		return;
	tree_sig_text(v->tree, r->sig, vc->rank, 1, text, sizeof(text));
	view_put(v, y, x + 1, v->cols - x - 2,
		 selected ? attr : theme_attr(THEME_CALL), text);
}

static void draw_list(struct view *v, int top, int height)
{
	struct view_calls *vc = v->clist;
	int title = theme_attr(THEME_TITLE), iw, x;
	static const char *const head[3] = {"start s", "took", "gap"};
	char text[256];

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols, theme_attr(THEME_NORMAL));
	if (!vc || height < 2)
		return;
	view_fill(top, 0, v->cols, title);
	iw = index_width(vc);
	view_put_right(v, top, 0, iw - 1, title, "#");
	x = iw;
	for (int k = 0; k < 3; k++) {
		view_put_right(v, top, x, COL_TIME - 1, title, head[k]);
		x += COL_TIME;
	}
	snprintf(text, sizeof(text),
		 "rank %" PRIu32 "'s calls in start order (%" PRIu64 ")",
		 vc->rank, vc->n);
	view_put(v, top, x + 1, v->cols - x - 2, title, text);
	if (vc->top == UINT64_MAX)
		vc->top = vc->cur > (uint64_t)(height - 1) / 3
				  ? vc->cur - (uint64_t)(height - 1) / 3
				  : 0;
	if (vc->top > vc->cur)
		vc->top = vc->cur;
	if (vc->cur >= vc->top + (uint64_t)(height - 1))
		vc->top = vc->cur - (uint64_t)(height - 2);
	for (int k = 0; k < height - 1; k++) {
		uint64_t i = vc->top + (uint64_t)k;

		if (i < vc->n)
			draw_row(v, top + 1 + k, i, i == vc->cur);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(vc->cur - vc->top));
}

/* ---- the pane's operations ------------------------------------------------ */

static void calls_draw(struct view *v, int top, int height)
{
	view_draw_over_detail(v, top, height, draw_list);
}

static void calls_move(struct view *v, int64_t delta)
{
	struct view_calls *vc = v->clist;
	int64_t to;

	if (!vc || !vc->n)
		return;
	if (delta <= -(int64_t)UINT32_MAX || delta >= (int64_t)UINT32_MAX)
		to = delta < 0 ? 0 : (int64_t)(vc->n - 1); /* g, G */
	else
		to = (int64_t)vc->cur + delta;
	vc->cur = to < 0 ? 0 : (uint64_t)to >= vc->n ? vc->n - 1 : (uint64_t)to;
}

static uint32_t calls_selected(const struct view *v)
{
	struct view_calls *vc = v->clist;
	const struct vc_row *r;

	if (!vc || !vc->n)
		return TREE_NONE;
	/* decoding moves the window: the pane's state, not what is shown */
	r = vc_row((struct view *)v, vc->cur);
	return r ? r->sig : TREE_NONE;
}

static void calls_status(const struct view *v, char *buf, size_t size)
{
	const struct view_calls *vc = v->clist;
	char timed[64] = "";

	if (vc && vc->timed < vc->n)
		snprintf(timed, sizeof(timed), "  times for the first %" PRIu64,
			 vc->timed);
	snprintf(buf, size,
		 "%" PRIu64 "/%" PRIu64 "%s  Enter in the tree  T timeline  "
		 "[ ] rank  ? help  q back",
		 vc && vc->n ? vc->cur + 1 : 0, vc ? vc->n : 0, timed);
}

const struct view_pane_ops view_calls_ops = {
	.name = "calls",
	.tab = 0,
	.draw = calls_draw,
	.move_by = calls_move,
	.status = calls_status,
	.selected = calls_selected,
	.rank = calls_rank,
	.free = vc_close,
};
