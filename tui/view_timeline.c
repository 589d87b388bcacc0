/*
 * view_timeline.c - the timeline of `rondo view`: time across, a row per
 * rank (a block of ranks when they do not fit), each cell a bucket of time
 * coloured with the theme's gradient by the share of it the row's ranks
 * spent inside MPI calls, or drawn with characters of rising density
 * without colour.  It needs per-call times (RONDO_TIMING=percall).
 *
 * A bucket is a round span (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a
 * power of ten nanoseconds, about halved or doubled by a zoom) and the
 * window starts on a multiple of it, so that the times on the axis and the
 * status line are short and exact.  The cells are summed by walking each
 * rank's timed calls once per change of the window, the rows or the
 * highlight, never per redraw; memory is a cell per row and bucket, and
 * the cursor's row's time per function and bucket (for the status line).
 * The pane's operations: view_timeline_ops.
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "view.h"

/* Levels of the scale (the matrix's colours): 0 for no MPI at all,
 * 1..TL_LEVELS-1 by share. */
#define TL_LEVELS VIEW_LEVELS
/* Without colour, a level's character. */
static const char tl_ramp[TL_LEVELS + 1] = " .:-=+*#%@";
/* Lines a rank's row takes at most, when few ranks leave room. */
#define TL_SCALE 3
/* Block zooms at most, as the matrix. */
#define TL_DEPTH 40
/* Lines above the grid (title, time axis) and under it (scale, window,
 * highlight). */
#define TL_HEAD 2
#define TL_FOOT 3
/* Functions named on the status line, most time first. */
#define TL_TOP 3

/* The ranks of the list rk[r0 .. r1-1] are shown (the ranks the rank
 * filter shows, in order); the cursor is on the row holding rk[cur]. */
struct tl_ranks {
	uint32_t r0, r1, cur;
};

/* What one walk of a rank adds to: the time of its calls in each bucket
 * of a window (all calls, highlighted ones, per function), and the span
 * of the calls it saw.  A NULL array is not summed. */
struct tl_sums {
	double *busy, *lit, *fn;
	int64_t first, last;
};

struct view_timeline {
	double base; /* of the per-call times */
	/* the ranks shown, in order (all, or the rank filter's) */
	uint32_t *rk, nrk;
	int64_t first, last; /* the run: earliest start, latest end, ns */
	/* the latest end of a rank's MPI_Init (INT64_MIN: none), and
	 * whether the window may show the time before it */
	int64_t init_end;
	int with_init;
	uint32_t cut; /* ranks with times for only some calls */
	/* the window: bucket k is [(i0 + k) * w, (i0 + k + 1) * w) ns */
	int64_t i0;
	double w;
	uint32_t nb;  /* buckets, at the last draw */
	uint32_t col; /* the cursor's bucket */
	struct tl_ranks zoom[TL_DEPTH];
	int depth;	/* zoom[depth] is on screen */
	uint32_t block; /* ranks a row, at the last draw */
	int scale;	/* lines a row, at the last draw */
	/* the highlight: signatures of the tree's selection */
	uint8_t *hl;
	uint32_t hl_kind, hl_id; /* TREE_CALL or TREE_RULE and its id; or
				    TREE_GROUP for none */
	char hl_text[256];
	/* the cells, [row * nb + bucket], and what they were summed for */
	double *busy, *lit;
	uint32_t grows;
	int64_t g_i0;
	double g_w;
	uint32_t g_nb, g_block;
	struct tl_ranks gwin;
	int gvalid;
	/* the cursor's row's time per function, [bucket * nfunc + f] */
	double *fn;
	uint32_t nfunc, frow;
	int fvalid;
	int err; /* of the last walk, 0 when it went through */
	/* where the cursor goes at the next draw (view_timeline_goto) */
	int go;
	int64_t go_ns;
};

/* ---- cells --------------------------------------------------------------- */

/* Draws one cell of level `level` at (y, x): a coloured blank, or the
 * level's character; a highlighted call's bucket carries a mark (in bold
 * and underlined without colour), the cursor's is in reverse video. */
static void tl_cell(const struct view *v, int y, int x, int level, int lit,
		    int cursor)
{
	int pair = view_gradient_pair(level), attr;
	char text[8];

	if (pair >= 0) {
		snprintf(text, sizeof(text), "%s",
			 !lit	   ? " "
			 : v->utf8 ? "\xe2\x80\xa2"
				   : "*");
		attr = COLOR_PAIR(pair) | (lit ? A_BOLD : 0);
	} else {
		snprintf(text, sizeof(text), "%c", tl_ramp[level]);
		attr = theme_attr(level ? THEME_BAR : THEME_NORMAL) |
		       (lit ? A_BOLD | A_UNDERLINE : 0);
	}
	attrset(attr | (cursor ? A_REVERSE : 0));
	mvaddstr(y, x, text);
	attrset(A_NORMAL);
}

/* ---- round times --------------------------------------------------------- */

/* The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten
 * that is at least x (x >= 1), or with down the largest at most x; with
 * coarse, of 1, 2, 5 times one. */
static double tl_round(double x, int coarse, int down)
{
	static const double fine[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
	static const double few[] = {1, 2, 5, 10};
	const double *step = coarse ? few : fine;
	double p = 1;
	int k = 0;

	while (p * 10 <= x * (1 + 1e-9))
		p *= 10;
	while (step[k] * p < x * (1 - 1e-9))
		k++;
	/* past x: the one before, which is at least p */
	if (down && step[k] * p > x * (1 + 1e-9))
		k--;
	return step[k] * p;
}

static int tl_is_round(double x, int coarse)
{
	return x >= 1 && fabs(tl_round(x, coarse, 0) - x) <= x * 1e-9;
}

/* The decimals of seconds that write a multiple of ns exactly (9 at
 * most: a bucket is a round number of ns). */
static int tl_decimals(double ns)
{
	int d = 0;

	for (double s = ns / 1e9; d < 9; d++, s *= 10)
		if (s >= 1 && fabs(s - round(s)) < s * 1e-9)
			break;
	return d;
}

/* A time in seconds with d decimals. */
static void tl_seconds(char *buf, size_t size, double ns, int d)
{
	snprintf(buf, size, "%.*f", d, ns / 1e9);
}

/* floor(a / b) for b > 0, whatever a's sign. */
static int64_t tl_floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

/* ---- the walk ------------------------------------------------------------ */

/* Walks rank r's timed calls, adding those inside the window of nb
 * buckets of w ns from t0 to *out (analyses/timeline.h).  0 or a RONDO_E_*
 * code. */
static int tl_walk(const struct view *v, uint32_t r, double t0, double w,
		   uint32_t nb, struct tl_sums *out)
{
	const struct view_timeline *tl = v->timeline;
	struct an_buckets b = {t0,	   w,	     nb,      out->busy,
			       out->lit,   tl->hl,   out->fn, tl->nfunc,
			       out->first, out->last};
	int rc = an_timeline_rank(v->t, r, &b);

	out->first = b.first;
	out->last = b.last;
	return rc;
}

/* The end of rank r's MPI_Init or MPI_Init_thread, its first call;
 * INT64_MIN when its first call is another or has no times. */
static int64_t tl_init_end(const rondo_trace *t, uint32_t r)
{
	rondo_iter *it = NULL;
	int64_t end = INT64_MIN, start;
	const char *name;
	uint32_t sig;

	if (rondo_iter_open(t, r, RONDO_ITER_TIMED, &it) == 0 &&
	    rondo_iter_next(it, &sig) == 1 &&
	    (name = rondo_func_name(t, rondo_sig_func(t, sig))) &&
	    (!strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread")) &&
	    rondo_iter_time(it, &start, &end) < 0)
		end = INT64_MIN;
	rondo_iter_free(it);
	return end;
}

/* The run's span: every rank walked once, when the pane is first made. */
static int tl_extent(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	struct tl_sums all = {NULL, NULL, NULL, INT64_MAX, INT64_MIN};
	int rc;

	for (uint32_t r = 0; r < rondo_rank_count(v->t); r++) {
		uint64_t timed = rondo_rank_timed_calls(v->t, r);

		if (timed < rondo_rank_calls(v->t, r))
			tl->cut++;
		if (timed && (rc = tl_walk(v, r, 0, 1, 0, &all)) < 0)
			return rc;
	}
	tl->first = all.first <= all.last ? all.first : 0;
	tl->last = all.first <= all.last ? all.last : 0;
	tl->init_end = INT64_MIN;
	for (uint32_t r = 0; r < rondo_rank_count(v->t); r++) {
		int64_t end = tl_init_end(v->t, r);

		tl->init_end = end > tl->init_end ? end : tl->init_end;
	}
	return 0;
}

/* Where the window may start: the run's first call, or the end of the
 * last rank's MPI_Init when it is hidden (and ends inside the run). */
static int64_t tl_lo(const struct view_timeline *tl)
{
	if (tl->with_init || tl->init_end <= tl->first ||
	    tl->init_end >= tl->last)
		return tl->first;
	return tl->init_end;
}

/* ---- the cells ----------------------------------------------------------- */

/* Sums the cells of the window on screen when what they were summed for
 * changed: a walk of every rank shown.  0 or a RONDO_E_* code. */
static int tl_grid(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	const struct tl_ranks *z = &tl->zoom[tl->depth];
	uint32_t rows = (z->r1 - z->r0 + tl->block - 1) / tl->block;
	size_t cells = (size_t)rows * tl->nb;
	double t0 = (double)tl->i0 * tl->w;
	int rc = 0;

	if (tl->gvalid && tl->g_i0 == tl->i0 && tl->g_w == tl->w &&
	    tl->g_nb == tl->nb && tl->g_block == tl->block &&
	    tl->gwin.r0 == z->r0 && tl->gwin.r1 == z->r1)
		return 0;
	free(tl->busy);
	free(tl->lit);
	tl->busy = calloc(cells ? cells : 1, sizeof(double));
	tl->lit = calloc(cells ? cells : 1, sizeof(double));
	tl->gvalid = 0;
	tl->fvalid = 0;
	if (!tl->busy || !tl->lit)
		return RONDO_E_NOMEM;
	for (uint32_t r = z->r0; r < z->r1 && rc == 0; r++) {
		size_t row = (size_t)((r - z->r0) / tl->block) * tl->nb;
		struct tl_sums s = {tl->busy + row, tl->lit + row, NULL, 0, 0};

		rc = tl_walk(v, tl->rk[r], t0, tl->w, tl->nb, &s);
	}
	if (rc < 0)
		return rc;
	tl->grows = rows;
	tl->g_i0 = tl->i0;
	tl->g_w = tl->w;
	tl->g_nb = tl->nb;
	tl->g_block = tl->block;
	tl->gwin = *z;
	tl->gvalid = 1;
	return 0;
}

/* The ranks of the cursor's row: [*a, *b). */
static void tl_cursor_ranks(const struct view_timeline *tl, uint32_t *a,
			    uint32_t *b)
{
	const struct tl_ranks *z = &tl->zoom[tl->depth];

	*a = z->r0 + (z->cur - z->r0) / tl->block * tl->block;
	*b = z->r1 - *a > tl->block ? *a + tl->block : z->r1;
}

/* The time per function of the cursor's row, after tl_grid: a walk of
 * that row's ranks when the row or the window changed. */
static int tl_functions(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	uint32_t a, b, row;
	int rc = 0;

	tl_cursor_ranks(tl, &a, &b);
	row = (a - tl->zoom[tl->depth].r0) / tl->block;
	if (tl->fvalid && tl->frow == row)
		return 0;
	free(tl->fn);
	tl->fn = calloc((size_t)tl->nb * tl->nfunc + 1, sizeof(double));
	if (!tl->fn)
		return RONDO_E_NOMEM;
	for (uint32_t r = a; r < b && rc == 0; r++) {
		struct tl_sums s = {NULL, NULL, tl->fn, 0, 0};

		rc = tl_walk(v, tl->rk[r], (double)tl->i0 * tl->w, tl->w,
			     tl->nb, &s);
	}
	tl->frow = row;
	tl->fvalid = rc == 0;
	return rc;
}

/* ---- the highlight ------------------------------------------------------- */

/* Marks the signatures under rule `rule`: a rule refers only to rules of
 * smaller ids, so one pass down from it finds them all. */
static int tl_mark_rule(const rondo_trace *t, uint32_t rule, uint8_t *sigs)
{
	uint32_t nr = rondo_rule_count(t), ns = rondo_sig_count(t);
	uint8_t *in = calloc(nr ? nr : 1, 1);

	if (!in)
		return -1;
	if (rule < nr)
		in[rule] = 1;
	for (uint32_t r = rule < nr ? rule + 1 : 0; r-- > 0;) {
		const rondo_sym *body;
		uint32_t len;

		if (!in[r] || rondo_rule_body(t, r, &body, &len) < 0)
			continue;
		for (uint32_t k = 0; k < len; k++) {
			uint32_t id = RONDO_SYM_ID(body[k].sym);

			if (RONDO_SYM_IS_RULE(body[k].sym) && id < nr)
				in[id] = 1;
			else if (!RONDO_SYM_IS_RULE(body[k].sym) && id < ns)
				sigs[id] = 1;
		}
	}
	free(in);
	return 0;
}

/* The selection the timeline is opened from: a table's signature, or the
 * tree's node (a call: its signature; a rule: every signature under it;
 * a group: nothing, its ranks are rows already). */
static void tl_selection(struct view *v, uint32_t *kind, uint32_t *id,
			 char *text, size_t size)
{
	const struct view_pane_ops *p = view_ops(v);
	struct tree_info in = {.ranks = 0};
	uint32_t node = tree_row_node(v->tree, v->cur), rank = TREE_NONE;

	*kind = TREE_GROUP;
	*id = p->selected ? p->selected(v) : TREE_NONE;
	if (*id == TREE_NONE && !p->selected &&
	    tree_info(v->tree, node, &in) == 0 &&
	    (in.kind == TREE_CALL || in.kind == TREE_RULE)) {
		*kind = in.kind;
		*id = in.id;
	} else if (*id != TREE_NONE) {
		*kind = TREE_CALL;
	}
	text[0] = '\0';
	/* a call of one rank's: its values as that rank passed them */
	if (*kind == TREE_CALL && v->pane == VIEW_TREE && in.ranks == 1 &&
	    rondo_group_ranks(v->t, in.group, &rank, 1) != 1)
		rank = TREE_NONE;
	/* from a table, the rank it shows the signature with (absolute
	 * peers for a signature one rank calls, or the one rank shown) */
	if (*kind == TREE_CALL && rank == TREE_NONE && v->pane != VIEW_TREE)
		rank = p->rank ? p->rank(v) : view_sig_rank(v, *id);
	if (*kind == TREE_CALL)
		tree_sig_text(v->tree, *id, rank, 1, text, size);
	else if (*kind == TREE_RULE)
		tree_label(v->tree, node, v->utf8, text, size);
}

/* Takes the highlight from the selection; the cells are summed again when
 * it changed.  0, or -1 when out of memory. */
static int tl_highlight(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	uint32_t kind, id;
	char text[sizeof(tl->hl_text)];

	tl_selection(v, &kind, &id, text, sizeof(text));
	if (kind == tl->hl_kind && id == tl->hl_id)
		return 0;
	memset(tl->hl, 0, rondo_sig_count(v->t) + 1);
	if (kind == TREE_CALL && id < rondo_sig_count(v->t))
		tl->hl[id] = 1;
	if (kind == TREE_RULE && tl_mark_rule(v->t, id, tl->hl) < 0)
		return -1;
	tl->hl_kind = kind;
	tl->hl_id = id;
	snprintf(tl->hl_text, sizeof(tl->hl_text), "%s", text);
	tl->gvalid = 0;
	return 0;
}

/* The share of a bucket of all the ranks shown that busy ns (their sum)
 * is, at most 1. */
static double tl_all_share(const struct view_timeline *tl, double busy)
{
	const struct tl_ranks *z = &tl->zoom[tl->depth];
	double whole = tl->w * (double)(z->r1 - z->r0);

	return whole > 0 && busy < whole ? busy / whole : whole > 0 ? 1 : 0;
}

/* ---- the window ---------------------------------------------------------- */

/* Keeps the window over the run (when it is shorter than the run) on a
 * bucket's multiple, and the cursor on a bucket. */
static void tl_clamp(struct view_timeline *tl)
{
	int64_t lo = (int64_t)floor((double)tl_lo(tl) / tl->w);
	int64_t hi = (int64_t)ceil((double)tl->last / tl->w) - tl->nb;

	if (tl->i0 > hi)
		tl->i0 = hi;
	if (tl->i0 < lo)
		tl->i0 = lo;
	if (tl->col >= tl->nb)
		tl->col = tl->nb ? tl->nb - 1 : 0;
}

/* The whole run in nb buckets: the roundest bucket that fits it. */
static void tl_whole(struct view_timeline *tl)
{
	uint32_t nb = tl->nb ? tl->nb : 1;

	tl->w = tl_round((double)(tl->last - tl_lo(tl)) / nb + 1, 0, 0);
	for (;;) {
		tl->i0 = (int64_t)floor((double)tl_lo(tl) / tl->w);
		if ((double)(tl->i0 + nb) * tl->w >= (double)tl->last)
			break;
		tl->w = tl_round(tl->w * (1 + 1e-8), 0, 0);
	}
	tl_clamp(tl);
}

int view_timeline_init(struct view *v)
{
	struct view_timeline *tl = v->timeline;

	if (!tl)
		return 0;
	if (tl->init_end <= tl->first || tl->init_end >= tl->last) {
		view_message(v, 0,
			     "no MPI_Init to hide: the run starts with "
			     "another call");
		return VIEW_REDRAW;
	}
	tl->with_init = !tl->with_init;
	tl_whole(tl);
	view_message(v, 0,
		     tl->with_init ? "the whole run, MPI_Init included"
				   : "the run from the end of MPI_Init");
	return VIEW_REDRAW;
}

int view_timeline_peak(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	double best = -1, sum;
	uint32_t at = 0;
	char from[32], pc[16];

	if (!tl || !tl->gvalid || !tl->nb)
		return 0;
	for (uint32_t c = 0; c < tl->nb; c++) {
		sum = 0;
		for (uint32_t row = 0; row < tl->grows; row++)
			sum += tl->busy[(size_t)row * tl->nb + c];
		if (sum > best) {
			best = sum;
			at = c;
		}
	}
	tl->col = at;
	tl_seconds(from, sizeof(from), (double)(tl->i0 + at) * tl->w,
		   tl_decimals(tl->w));
	view_percent(pc, sizeof(pc), tl_all_share(tl, best));
	view_message(v, 0,
		     "the bucket of most MPI time in the window: from %s s, "
		     "%s of the ranks' time",
		     from, pc);
	return VIEW_REDRAW;
}

int view_timeline_whole(struct view *v)
{
	if (v->timeline)
		tl_whole(v->timeline);
	return VIEW_REDRAW;
}

/* Buckets of w ns (a round number, about half or twice the one before),
 * the cursor on its column over the start of its bucket. */
static void tl_zoom(struct view_timeline *tl, double w)
{
	double at = (double)(tl->i0 + tl->col) * tl->w;

	tl->i0 = (int64_t)floor(at / w + 1e-9) - tl->col;
	tl->w = w;
	tl_clamp(tl);
}

int view_timeline_zoom_in(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	char w[32];

	if (!tl)
		return 0;
	if (tl->w < 2) {
		view_duration(w, sizeof(w), tl->w, v->utf8);
		view_message(v, 0, "a bucket is %s: no finer", w);
		return VIEW_REDRAW;
	}
	tl_zoom(tl, tl_round(tl->w / 2, 0, 1));
	return VIEW_REDRAW;
}

int view_timeline_zoom_out(struct view *v)
{
	struct view_timeline *tl = v->timeline;

	if (!tl)
		return 0;
	if ((double)tl->i0 * tl->w <= (double)tl_lo(tl) &&
	    (double)(tl->i0 + tl->nb) * tl->w >= (double)tl->last) {
		view_message(v, 0, "the whole run is in the window");
		return VIEW_REDRAW;
	}
	tl_zoom(tl, tl_round(tl->w * 2, 0, 0));
	return VIEW_REDRAW;
}

/* Pans by `by` buckets (clamped to the run). */
static void tl_pan(struct view_timeline *tl, int64_t by)
{
	tl->i0 += by;
	tl_clamp(tl);
}

int view_timeline_pan(struct view *v, int halves)
{
	if (v->timeline)
		tl_pan(v->timeline,
		       (int64_t)halves * (v->timeline->nb / 2 + 1));
	return VIEW_REDRAW;
}

void view_timeline_move(struct view *v, int64_t dx, int64_t dy)
{
	struct view_timeline *tl = v->timeline;
	struct tl_ranks *z;
	int64_t row, rows, col;

	if (!tl || !tl->nb)
		return;
	z = &tl->zoom[tl->depth];
	rows = (z->r1 - z->r0 + tl->block - 1) / tl->block;
	row = (int64_t)(z->cur - z->r0) / tl->block + dy;
	row = row < 0 ? 0 : row >= rows ? rows - 1 : row;
	z->cur = z->r0 + (uint32_t)row * tl->block;
	/* at an edge, the window goes on */
	col = (int64_t)tl->col + dx;
	if (col < 0)
		tl_pan(tl, col);
	else if (col >= tl->nb)
		tl_pan(tl, col - tl->nb + 1);
	tl->col = (uint32_t)(col < 0 ? 0 : col >= tl->nb ? tl->nb - 1 : col);
}

int view_timeline_ranks_in(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	uint32_t a, b;

	if (!tl)
		return 0;
	if (tl->block <= 1 || tl->depth + 1 >= TL_DEPTH) {
		view_message(v, 0, "a row is one rank: nothing to zoom into");
		return VIEW_REDRAW;
	}
	tl_cursor_ranks(tl, &a, &b);
	tl->zoom[++tl->depth] = (struct tl_ranks){a, b, a};
	return VIEW_REDRAW;
}

static int view_timeline_ranks_out(struct view *v)
{
	struct view_timeline *tl = v->timeline;

	if (!tl || tl->depth == 0)
		return 0;
	tl->depth--;
	return VIEW_REDRAW;
}

/* ---- making it ----------------------------------------------------------- */

static void view_timeline_free(struct view *v)
{
	struct view_timeline *tl = v->timeline;

	if (!tl)
		return;
	free(tl->hl);
	free(tl->rk);
	free(tl->busy);
	free(tl->lit);
	free(tl->fn);
	free(tl);
	v->timeline = NULL;
}

/* The list of the ranks shown, made again; 0 or RONDO_E_NOMEM. */
static int tl_rank_list(struct view *v)
{
	struct view_timeline *tl = v->timeline;
	uint32_t n = rondo_rank_count(v->t), k = 0;
	uint32_t *rk = malloc(sizeof(*rk) * (n ? n : 1));

	if (!rk)
		return RONDO_E_NOMEM;
	for (uint32_t r = 0; r < n; r++)
		if (view_rank_shown(v, r))
			rk[k++] = r;
	free(tl->rk);
	tl->rk = rk;
	tl->nrk = k;
	tl->depth = 0;
	tl->zoom[0] = (struct tl_ranks){0, k, 0};
	tl->gvalid = tl->fvalid = 0;
	return 0;
}

int view_timeline_filter(struct view *v)
{
	return v->timeline ? tl_rank_list(v) : 0;
}

/* The place of rank `rank` in the list shown, tl->nrk when it is not
 * there. */
static uint32_t tl_rank_at(const struct view_timeline *tl, uint32_t rank)
{
	uint32_t lo = 0, hi = tl->nrk;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (tl->rk[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tl->nrk && tl->rk[lo] == rank ? lo : tl->nrk;
}

/* The pane, its run's span found: NULL with the reason on the status
 * line. */
static struct view_timeline *tl_create(struct view *v, double base)
{
	struct view_timeline *tl = calloc(1, sizeof(*tl));
	int rc;

	if (!tl || !(tl->hl = calloc((size_t)rondo_sig_count(v->t) + 1, 1))) {
		free(tl);
		view_message(v, 1, "out of memory");
		return NULL;
	}
	v->timeline = tl;
	tl->base = base;
	tl->nfunc = rondo_func_count(v->t);
	tl->hl_kind = TREE_GROUP;
	tl->hl_id = TREE_NONE;
	tl->block = 1;
	rc = tl_rank_list(v);
	rc = rc ? rc : tl_extent(v);
	if (rc < 0) {
		view_message(v, 1, "timeline: %s", rondo_strerror(rc));
		view_timeline_free(v);
		return NULL;
	}
	return tl; /* the first draw lays out the buckets (nb 0 until then) */
}

int view_percall(struct view *v, double *base)
{
	if (rondo_timing_mode(v->t, base) == RONDO_TIMING_PERCALL)
		return 1;
	view_message(v, 0,
		     "no per-call times: trace with RONDO_TIMING=percall");
	return 0;
}

int view_timeline_show(struct view *v)
{
	double base;

	if (!view_percall(v, &base))
		return VIEW_REDRAW;
	if (!v->timeline && !tl_create(v, base))
		return VIEW_REDRAW;
	if (tl_highlight(v) < 0)
		view_message(v, 1, "out of memory");
	v->pane = VIEW_TIMELINE;
	return VIEW_REDRAW;
}

int view_timeline_goto(struct view *v, uint32_t rank, int64_t ns)
{
	struct view_timeline *tl;
	struct tl_ranks *z;
	uint32_t at;

	view_timeline_show(v);
	tl = v->timeline;
	if (v->pane != VIEW_TIMELINE || !tl)
		return VIEW_REDRAW; /* the reason is on the status line */
	at = tl_rank_at(tl, rank);
	if (at == tl->nrk)
		view_message(v, 0, "rank %u is not shown (r)", rank);
	while (at < tl->nrk && tl->depth > 0 &&
	       (at < tl->zoom[tl->depth].r0 || at >= tl->zoom[tl->depth].r1))
		tl->depth--;
	z = &tl->zoom[tl->depth];
	if (at >= z->r0 && at < z->r1)
		z->cur = at;
	tl->go = 1;
	tl->go_ns = ns;
	return VIEW_REDRAW;
}

int view_timeline_cursor(const struct view *v, uint32_t *rank, int64_t *ns)
{
	const struct view_timeline *tl = v->timeline;
	uint32_t a, b;

	if (!tl || !tl->nb || !tl->nrk)
		return -1;
	tl_cursor_ranks(tl, &a, &b);
	*rank = tl->rk[a];
	*ns = (int64_t)((double)(tl->i0 + tl->col) * tl->w);
	return 0;
}

/* ---- drawing ------------------------------------------------------------- */

/* "3" or "30-39": the ranks rk[a .. b-1]; "3..9" when ranks between are
 * not shown. */
static void tl_ranks_text(const struct view_timeline *tl, char *buf,
			  size_t size, uint32_t a, uint32_t b)
{
	if (b <= a || b > tl->nrk)
		snprintf(buf, size, "-");
	else if (b - a == 1)
		snprintf(buf, size, "%u", tl->rk[a]);
	else
		snprintf(buf, size, "%u%s%u", tl->rk[a],
			 tl->rk[b - 1] - tl->rk[a] == b - a - 1 ? "-" : "..",
			 tl->rk[b - 1]);
}

/* The rows' labels' columns: "190-199" when rows are blocks ("190..199"
 * with ranks filtered out). */
static int tl_label_width(uint32_t n, uint32_t block, int filtered)
{
	char s[24];
	int d = snprintf(s, sizeof(s), "%u", n ? n - 1 : 0);

	return block > 1 ? 2 * d + 1 + filtered : d;
}

/* Lays the window out in `rows` lines and `cols` columns: the ranks a
 * row, the lines a row, the label's width, the buckets. */
static void tl_layout(struct view *v, int rows, int cols, int *label)
{
	struct view_timeline *tl = v->timeline;
	const struct tl_ranks *z = &tl->zoom[tl->depth];
	uint32_t n = z->r1 - z->r0, was = tl->nb;

	rows = rows < 1 ? 1 : rows;
	tl->block = n > (uint32_t)rows
			    ? (n + (uint32_t)rows - 1) / (uint32_t)rows
			    : 1;
	for (tl->scale = TL_SCALE; tl->scale > 1; tl->scale--)
		if (n * (uint32_t)tl->scale <= (uint32_t)rows)
			break;
	*label = tl_label_width(rondo_rank_count(v->t), tl->block,
				v->rank_in != NULL);
	if (n > 1 && *label < 3)
		*label = 3; /* "all" */
	tl->nb = cols - *label - 1 > 1 ? (uint32_t)(cols - *label - 1) : 1;
	if (was == 0)
		tl_whole(tl);
	else if (was != tl->nb)
		tl_clamp(tl);
	if (tl->go) {
		/* the bucket of go_ns in the window, the middle if it moves */
		int64_t b = (int64_t)floor((double)tl->go_ns / tl->w);

		if (b < tl->i0 || b >= tl->i0 + (int64_t)tl->nb) {
			tl->i0 = b - (int64_t)tl->nb / 2;
			tl_clamp(tl);
		}
		b -= tl->i0;
		tl->col = (uint32_t)(b < 0 ? 0 : b >= tl->nb ? tl->nb - 1 : b);
		tl->go = 0;
	}
}

static void tl_draw_title(struct view *v, int y)
{
	struct view_timeline *tl = v->timeline;
	int title = theme_attr(THEME_TITLE);
	char line[256];

	int used;

	/* the times' bound first: what the cells can be trusted to */
	view_fill(y, 0, v->cols, title);
	snprintf(line, sizeof(line), "per-call times, base %g: %s %g%% late ",
		 tl->base,
		 v->utf8 ? "\xe2\x89\xa4" : "<=", (tl->base - 1) * 100);
	used = view_put_right(v, y, 0, v->cols, title, line);
	view_put(v, y, 0, v->cols - used - 1, title,
		 " time in MPI, rank (row) by time (column)");
}

/* Buckets between the time axis's labels: the fewest that leave room
 * for a label and make a round step (1, 2, 5 times a power of ten when
 * one is near); nb when none does. */
static uint32_t tl_tick(const struct view_timeline *tl)
{
	char text[32];

	for (int coarse = 1; coarse >= 0; coarse--)
		for (uint32_t m = 1; m < tl->nb && m <= 40; m++) {
			tl_seconds(text, sizeof(text),
				   (double)(tl->i0 + tl->nb) * tl->w,
				   tl_decimals(tl->w * m));
			if (tl_is_round(tl->w * m, coarse) &&
			    m >= strlen(text) + 4)
				return m;
		}
	return tl->nb;
}

/* The time axis: round times, each at the column of the bucket it
 * starts. */
static void tl_draw_axis(struct view *v, int y, int label)
{
	struct view_timeline *tl = v->timeline;
	int dim = theme_attr(THEME_DIM), d;
	uint32_t m = tl_tick(tl);
	char text[32];

	view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
	view_put_right(v, y, 0, label, dim, "s");
	d = tl_decimals(tl->w * m);
	for (uint32_t k = 0; k < tl->nb; k++) {
		int x = label + 1 + (int)k, len;

		/* no round step fits: the window's start alone */
		if (m >= tl->nb ? k > 0
				: tl_floor_div(tl->i0 + k, m) * (int64_t)m !=
					  tl->i0 + k)
			continue;
		tl_seconds(text, sizeof(text), (double)(tl->i0 + k) * tl->w, d);
		len = (int)strlen(text);
		if (x + len <= v->cols)
			view_put(v, y, x, len, dim, text);
	}
}

static void tl_draw_grid(struct view *v, int y, int height, int label,
			 uint32_t first)
{
	struct view_timeline *tl = v->timeline;
	const struct tl_ranks *z = &tl->zoom[tl->depth];
	uint32_t cy = (z->cur - z->r0) / tl->block;
	char text[32];

	for (int k = 0; k < height; k++)
		view_fill(y + k, 0, v->cols, theme_attr(THEME_NORMAL));
	for (int k = 0; (k + 1) * tl->scale <= height; k++) {
		uint32_t row = first + (uint32_t)k, a = z->r0 + row * tl->block;
		uint32_t b = z->r1 - a > tl->block ? a + tl->block : z->r1;
		const double *busy = tl->busy + (size_t)row * tl->nb;
		const double *lit = tl->lit + (size_t)row * tl->nb;

		if (row >= tl->grows)
			break;
		tl_ranks_text(tl, text, sizeof(text), a, b);
		view_put_right(
			v, y + k * tl->scale, 0, label,
			theme_attr(row == cy ? THEME_SELECTED : THEME_DIM),
			text);
		for (int s = 0; s < tl->scale; s++)
			for (uint32_t c = 0; c < tl->nb; c++)
				tl_cell(v, y + k * tl->scale + s,
					label + 1 + (int)c,
					an_level(busy[c],
						 busy[c] / (tl->w * (b - a)),
						 TL_LEVELS),
					lit[c] > 0, row == cy && c == tl->col);
	}
}

/* The row of all the ranks shown: each bucket's share of their time in
 * MPI, marked where a highlighted call ran on any of them. */
static void tl_draw_all(struct view *v, int y, int label)
{
	struct view_timeline *tl = v->timeline;

	view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
	view_put_right(v, y, 0, label, theme_attr(THEME_DIM), "all");
	for (uint32_t c = 0; c < tl->nb; c++) {
		double busy = 0;
		int lit = 0;

		for (uint32_t row = 0; row < tl->grows; row++) {
			busy += tl->busy[(size_t)row * tl->nb + c];
			lit |= tl->lit[(size_t)row * tl->nb + c] > 0;
		}
		tl_cell(v, y, label + 1 + (int)c,
			an_level(busy, tl_all_share(tl, busy), TL_LEVELS), lit,
			0);
	}
}

/* The scale, then the rows and the window, then what is highlighted. */
static void tl_draw_foot(struct view *v, int y)
{
	struct view_timeline *tl = v->timeline;
	const struct tl_ranks *z = &tl->zoom[tl->depth];
	int x = 1, dim = theme_attr(THEME_DIM), d = tl_decimals(tl->w);
	char line[512], ranks[160], from[32], to[32], w[32];

	for (int k = 0; k < TL_FOOT; k++)
		view_fill(y + k, 0, v->cols, theme_attr(THEME_NORMAL));
	x += view_put(v, y, x, v->cols - x, dim,
		      "share of a bucket in MPI: 0 ");
	tl_cell(v, y, x++, 0, 0, 0);
	for (int k = 1; k < TL_LEVELS && x + 1 < v->cols; k++)
		tl_cell(v, y, ++x, k, 0, 0);
	view_put(v, y, x + 2, v->cols - x - 2, dim, "100%");
	if (v->rank_in && !tl->depth)
		snprintf(ranks, sizeof(ranks), "%s", v->rank_text);
	else
		tl_ranks_text(tl, ranks, sizeof(ranks), z->r0, z->r1);
	tl_seconds(from, sizeof(from), (double)tl->i0 * tl->w, d);
	tl_seconds(to, sizeof(to), (double)(tl->i0 + tl->nb) * tl->w, d);
	view_duration(w, sizeof(w), tl->w, v->utf8);
	snprintf(line, sizeof(line),
		 "%srank%s %s, %u a row; %s%s%s s, %s a "
		 "bucket%s%s",
		 tl->depth ? "zoomed: " : "", z->r1 - z->r0 == 1 ? "" : "s",
		 ranks, tl->block, from, v->utf8 ? "\xe2\x80\x93" : "-", to, w,
		 tl_lo(tl) > tl->first ? "; MPI_Init hidden (I)" : "",
		 tl->cut ? "; some ranks have times for their first calls "
			   "only (RONDO_TIMING_LIMIT)"
			 : "");
	view_put(v, y + 1, 1, v->cols - 2, dim, line);
	if (tl->hl_kind == TREE_GROUP) {
		view_put(v, y + 2, 1, v->cols - 2, dim,
			 "highlight: none "
			 "(select a call in the tree, then T)");
		return;
	}
	tl_cell(v, y + 2, 1, TL_LEVELS / 2, 1, 0);
	snprintf(line, sizeof(line), "highlighted: %s", tl->hl_text);
	view_put(v, y + 2, 3, v->cols - 4, dim, line);
}

static void view_draw_timeline(struct view *v, int top, int height)
{
	struct view_timeline *tl = v->timeline;
	int label, rows, all;
	uint32_t first = 0, cy;
	int rc;

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols, theme_attr(THEME_NORMAL));
	if (!tl)
		return;
	/* a row of all the ranks shown over theirs, when there are two */
	all = tl->zoom[tl->depth].r1 - tl->zoom[tl->depth].r0 > 1;
	rows = height - TL_HEAD - TL_FOOT - all;
	tl_layout(v, rows, v->cols, &label);
	view_timeline_move(v, 0, 0); /* the cursor on a row's first rank */
	rc = tl_grid(v);
	rc = rc ? rc : tl_functions(v);
	tl->err = rc;
	tl_draw_title(v, top);
	if (rc < 0) {
		view_put(v, top + 2, 1, v->cols - 2, theme_attr(THEME_ERROR),
			 rondo_strerror(rc));
		return;
	}
	tl_draw_axis(v, top + 1, label);
	cy = (tl->zoom[tl->depth].cur - tl->zoom[tl->depth].r0) / tl->block;
	/* rows beyond the screen: keep the cursor's in view */
	if (cy >= (uint32_t)(rows / tl->scale))
		first = cy - (uint32_t)(rows / tl->scale) + 1;
	if (all)
		tl_draw_all(v, top + TL_HEAD, label);
	tl_draw_grid(v, top + TL_HEAD + all, rows, label, first);
	tl_draw_foot(v, top + height - TL_FOOT);
}

/* The functions with most time in the cursor's bucket: "MPI_Recv 96.9%,
 * MPI_Send 3.1%" (shares of the row's ranks' time in the bucket, busy ns
 * of it in MPI: all functions' shares add up to the MPI share, also
 * where calls overlap). */
static void tl_top_functions(const struct view *v, double busy, double whole,
			     char *buf, size_t size)
{
	const struct view_timeline *tl = v->timeline;
	const double *fn = tl->fn + (size_t)tl->col * tl->nfunc;
	uint32_t top[TL_TOP];
	int n = 0;
	size_t at = 0;

	/* a few passes of the largest not yet taken: nfunc is small */
	for (; n < TL_TOP; n++) {
		top[n] = UINT32_MAX;
		for (uint32_t f = 0; f < tl->nfunc; f++) {
			int taken = 0;

			for (int k = 0; k < n; k++)
				taken |= top[k] == f;
			if (!taken && fn[f] > 0 &&
			    (top[n] == UINT32_MAX || fn[f] > fn[top[n]]))
				top[n] = f;
		}
		if (top[n] == UINT32_MAX)
			break;
	}
	buf[0] = '\0';
	for (int k = 0; k < n && at < size; k++) {
		char pc[16];

		view_percent(pc, sizeof(pc),
			     an_func_share(fn[top[k]], busy, whole));
		at += (size_t)snprintf(buf + at, size - at, "%s%s %s",
				       k ? ", " : "",
				       rondo_func_name(v->t, top[k]), pc);
	}
}

/* The status line: the cursor's ranks, its bucket's times in seconds,
 * the share in MPI and the functions with most of it ("" before the
 * first draw). */
static void view_timeline_status(const struct view *v, char *buf, size_t size)
{
	const struct view_timeline *tl = v->timeline;
	const char *dot = v->utf8 ? " \xc2\xb7 " : " | ";
	char ranks[32], from[32], to[32], pc[16], lit[16], names[256];
	char all[48] = "";
	uint32_t a, b, row;
	double whole, busy, sum = 0;
	int d;

	buf[0] = '\0';
	if (!tl || tl->err || !tl->gvalid || !tl->fvalid)
		return;
	tl_cursor_ranks(tl, &a, &b);
	row = (a - tl->zoom[tl->depth].r0) / tl->block;
	whole = tl->w * (b - a);
	busy = tl->busy[(size_t)row * tl->nb + tl->col];
	d = tl_decimals(tl->w);
	tl_ranks_text(tl, ranks, sizeof(ranks), a, b);
	tl_seconds(from, sizeof(from), (double)(tl->i0 + tl->col) * tl->w, d);
	tl_seconds(to, sizeof(to), (double)(tl->i0 + tl->col + 1) * tl->w, d);
	view_percent(pc, sizeof(pc), busy / whole > 1 ? 1 : busy / whole);
	tl_top_functions(v, busy, whole, names, sizeof(names));
	if (tl->zoom[tl->depth].r1 - tl->zoom[tl->depth].r0 > b - a) {
		for (uint32_t k = 0; k < tl->grows; k++)
			sum += tl->busy[(size_t)k * tl->nb + tl->col];
		view_percent(lit, sizeof(lit), tl_all_share(tl, sum));
		snprintf(all, sizeof(all), "%sall %s", dot, lit);
	}
	view_percent(lit, sizeof(lit),
		     an_func_share(tl->lit[(size_t)row * tl->nb + tl->col],
				   busy, whole));
	snprintf(buf, size, "rank%s %s%s%s%s%s s%sMPI %s%s%s%s%s%s%s",
		 b - a > 1 ? "s" : "", ranks, dot, from,
		 v->utf8 ? "\xe2\x80\x93" : "-", to, dot, pc,
		 names[0] ? ": " : "", names,
		 tl->hl_kind != TREE_GROUP ? dot : "",
		 tl->hl_kind != TREE_GROUP ? "highlighted " : "",
		 tl->hl_kind != TREE_GROUP ? lit : "", all);
}

/* ---- the pane's operations ----------------------------------------------- */

static void tl_move_rows(struct view *v, int64_t delta)
{
	view_timeline_move(v, 0, delta);
}

const struct view_pane_ops view_timeline_ops = {
	.name = "timeline",
	.show = view_timeline_show,
	.draw = view_draw_timeline,
	.move_by = tl_move_rows,
	.status = view_timeline_status,
	.zoom_out = view_timeline_ranks_out,
	.free = view_timeline_free,
};
