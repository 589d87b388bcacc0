/*
 * view_contention.c - the contention table of `rondo view`: the
 * signatures by the time their calls lost against the fastest of them
 * (analyses/stats.c), or by how unevenly the ranks share their time,
 * with the selected one's figures below; the pane's operations
 * (view_cont_ops).
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "sat.h"
#include "skew.h"
#include "util.h"
#include "view.h"
#include "waits.h"

#define COL_NUM	  10
#define COL_SHARE 8
#define COL_IMB	  10

struct view_cont {
	struct an_contention *all; /* every signature called */
	uint32_t nall;
	struct an_contention *rows; /* those the rank filter shows, sorted */
	uint32_t n;
	struct an_totals tot;
	uint32_t cur, top;
	enum an_cont_order order;
	/* late senders and receivers (rondo waits), made the first time a
	 * point-to-point row of a trace with per-call times is shown: 0
	 * not yet, 1 made, -1 not to be had */
	struct an_waits waits;
	int waits_made;
};

/* The orders s goes through, the first at the start; the column each
 * sorts by. */
static const enum an_cont_order orders[] = {AN_CONT_IMBALANCE, AN_CONT_LOST,
					    AN_CONT_RATIO};
#define NCOLS 7

int view_cont_show(struct view *v)
{
	struct view_cont *ct = v->cont;
	int rc;

	if (!ct) {
		ct = calloc(1, sizeof(*ct));
		if (!ct) {
			view_message(v, 1, "out of memory");
			return VIEW_REDRAW;
		}
		rc = an_contention(v->t, &ct->all, &ct->nall);
		if (rc == 0 &&
		    !(ct->rows = malloc(sizeof(*ct->rows) * (ct->nall + 1)))) {
			free(ct->all);
			rc = RONDO_E_NOMEM;
		}
		if (rc < 0) {
			free(ct);
			view_message(v, 1, "contention: %s",
				     rc == RONDO_E_MISSING
					     ? "the trace has no statistics"
					     : rondo_strerror(rc));
			return VIEW_REDRAW;
		}
		an_totals(v->t, &ct->tot);
		ct->order = orders[0];
		v->cont = ct;
		view_cont_filter(v);
	}
	v->pane = VIEW_CONT;
	return VIEW_REDRAW;
}

int view_cont_filter(struct view *v)
{
	struct view_cont *ct = v->cont;

	if (!ct)
		return 0;
	ct->n = 0;
	for (uint32_t i = 0; i < ct->nall; i++)
		if (view_sig_shown(v, ct->all[i].sig))
			ct->rows[ct->n++] = ct->all[i];
	an_contention_sort(ct->rows, ct->n, ct->order);
	ct->cur = ct->top = 0;
	return 0;
}

static void view_cont_free(struct view *v)
{
	if (v->cont) {
		free(v->cont->all);
		free(v->cont->rows);
		if (v->cont->waits_made > 0)
			an_waits_free(&v->cont->waits);
	}
	free(v->cont);
	v->cont = NULL;
}

static void view_cont_move(struct view *v, int64_t delta)
{
	struct view_cont *ct = v->cont;

	if (ct && ct->n)
		ct->cur = view_row_moved(ct->cur, delta, ct->n);
}

/* The signature under the cursor, TREE_NONE when empty. */
static uint32_t view_cont_selected(const struct view *v)
{
	const struct view_cont *ct = v->cont;

	return ct && ct->cur < ct->n ? ct->rows[ct->cur].sig : TREE_NONE;
}

int view_cont_sort(struct view *v)
{
	struct view_cont *ct = v->cont;
	size_t k = 0;

	if (!ct)
		return 0;
	while (k < COUNTOF(orders) && orders[k] != ct->order)
		k++;
	ct->order = orders[(k + 1) % COUNTOF(orders)];
	an_contention_sort(ct->rows, ct->n, ct->order);
	/* the first row, the most of the new order, selected and in view */
	ct->cur = ct->top = 0;
	return VIEW_REDRAW;
}

/* The share of the time lost: of the aggregate run time when the trace
 * says how long the run was, else of the time in MPI. */
static double cont_share(const struct view_cont *ct, uint64_t lost)
{
	if (ct->tot.run_ns)
		return an_share((double)lost,
				sat_mul(ct->tot.run_ns,
					ct->tot.ranks ? ct->tot.ranks : 1));
	return an_share((double)lost, ct->tot.mpi_ns);
}

static void cont_imbalance(char *buf, size_t size,
			   const struct an_contention *c)
{
	if (c->ranks)
		snprintf(buf, size, "%.2f", c->imbalance);
	else
		snprintf(buf, size, "-");
}

/* A column's width, and the order that sorts by it (-1: none). */
static int col_width(int k)
{
	return k == 1 ? COL_SHARE : k == 6 ? COL_IMB : COL_NUM;
}

static int col_order(int k)
{
	return k == 0	? AN_CONT_LOST
	       : k == 5 ? AN_CONT_IMBALANCE
	       : k == 6 ? AN_CONT_RATIO
			: -1;
}

static void draw_row(struct view *v, int y, uint32_t i, int selected)
{
	const struct view_cont *ct = v->cont;
	const struct an_contention *c = &ct->rows[i];
	int attr = selected ? theme_attr(THEME_SELECTED)
			    : theme_attr(THEME_NORMAL);
	double share = cont_share(ct, c->lost_ns);
	char num[NCOLS][24], text[512];
	int x = 0;

	view_fill(y, 0, v->cols, attr);
	view_duration(num[0], sizeof(num[0]), (double)c->lost_ns, v->utf8);
	if (!isnan(share))
		view_percent(num[1], sizeof(num[1]), share);
	else
		snprintf(num[1], sizeof(num[1]), "-");
	view_count(num[2], sizeof(num[2]), c->count);
	view_duration(num[3], sizeof(num[3]), (double)c->min_ns, v->utf8);
	view_duration(num[4], sizeof(num[4]),
		      c->count ? (double)c->total_ns / (double)c->count : 0,
		      v->utf8);
	if (c->ranks)
		view_duration(num[5], sizeof(num[5]), c->imbalance_ns, v->utf8);
	else
		snprintf(num[5], sizeof(num[5]), "-");
	cont_imbalance(num[6], sizeof(num[6]), c);
	for (int k = 0; k < NCOLS; k++) {
		view_put_right(v, y, x, col_width(k) - 1,
			       selected ? attr
					: theme_attr(k == 2 ? THEME_COUNT
						     : k == 1 || k == 6
							     ? THEME_DIM
							     : THEME_TIME),
			       num[k]);
		x += col_width(k);
	}
	tree_sig_text(v->tree, c->sig, view_sig_rank(v, c->sig), 1, text,
		      sizeof(text));
	view_put(v, y, x + 1, v->cols - x - 2,
		 selected ? attr : theme_attr(THEME_CALL), text);
}

static void draw_table(struct view *v, int top, int height)
{
	struct view_cont *ct = v->cont;
	static const char *const head[] = {"lost",    "of run", "calls",
					   "fastest", "mean",	"max-mean",
					   "max/mean"};
	const char *mark = v->utf8 ? "\xe2\x96\xbc" : "v";
	int title = theme_attr(THEME_TITLE), x = 0;
	char text[256];

	view_fill(top, 0, v->cols, title);
	for (int k = 0; k < NCOLS; k++) {
		int sorted = col_order(k) == (int)ct->order;

		snprintf(text, sizeof(text), "%s%s",
			 k == 1 && !ct->tot.run_ns ? "of MPI" : head[k],
			 sorted ? mark : " ");
		view_put_right(v, top, x, col_width(k) - 1, title, text);
		x += col_width(k);
	}
	if (v->rank_in) /* the status line says whose figures */
		snprintf(text, sizeof(text), "signature (%u of %u)", ct->n,
			 ct->nall);
	else
		snprintf(text, sizeof(text), "signature (%u)", ct->n);
	view_put(v, top, x + 1, v->cols - x - 2, title, text);
	view_row_in_view(ct->cur, &ct->top, height - 1);
	for (int k = 0; k < height - 1; k++) {
		uint32_t i = ct->top + (uint32_t)k;

		if (i >= ct->n)
			view_fill(top + 1 + k, 0, v->cols,
				  theme_attr(THEME_NORMAL));
		else
			draw_row(v, top + 1 + k, i, i == ct->cur);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(ct->cur - ct->top));
}

/* For a point-to-point row of a trace with per-call times: who waited
 * for whom over the run, from rondo waits (made once); 0 when it cannot
 * be said. */
static int p2p_line(struct view *v, char *buf, size_t size)
{
	struct view_cont *ct = v->cont;
	const struct an_wait_pair *ls = NULL, *lr = NULL;
	char a[24], b[24], one[96], two[96];
	const char *to;

	if (!ct->waits_made) {
		ct->waits_made =
			rondo_timing_mode(v->t, NULL) == RONDO_TIMING_PERCALL &&
					an_waits(v->t, &ct->waits) == 0
				? 1
				: -1;
	}
	if (ct->waits_made < 0)
		return 0;
	for (uint32_t k = 0; k < ct->waits.n; k++) {
		const struct an_wait_pair *p = &ct->waits.pairs[k];

		if (p->ls_ns && (!ls || p->ls_ns > ls->ls_ns))
			ls = p;
		if (p->lr_ns && (!lr || p->lr_ns > lr->lr_ns))
			lr = p;
	}
	view_duration(a, sizeof(a), (double)ct->waits.ls_ns, v->utf8);
	view_duration(b, sizeof(b), (double)ct->waits.lr_ns, v->utf8);
	to = v->utf8 ? " \xe2\x86\x92 " : " -> ";
	if (ls)
		snprintf(one, sizeof(one), "late senders %s, most %u%s%u", a,
			 ls->src, to, ls->dst);
	else
		snprintf(one, sizeof(one), "no late sender");
	if (lr)
		snprintf(two, sizeof(two), "late receivers %s, most %u%s%u", b,
			 lr->src, to, lr->dst);
	else
		snprintf(two, sizeof(two), "no late receiver");
	snprintf(buf, size, "point to point, whole run (rondo waits): %s; %s",
		 one, two);
	return 1;
}

/* Who waited for whom, as far as the kind of call says: a late arriver
 * only where one makes the others wait. */
static void late_line(struct view *v, const struct an_contention *c, char *buf,
		      size_t size)
{
	int nb;
	const char *name = rondo_func_name(v->t, rondo_sig_func(v->t, c->sig));
	enum an_coll kind = an_coll_of(name, &nb);

	switch (kind) {
	case AN_COLL_SYNC:
		if (c->ranks > 1)
			snprintf(buf, size,
				 "every member waits for the last to enter: "
				 "rank %u, of least time in it, was the late "
				 "one%s",
				 c->min_rank,
				 nb ? " (nonblocking: at its completion)" : "");
		else
			snprintf(buf, size, "one rank: nobody to wait for");
		break;
	case AN_COLL_FROM_ROOT:
		snprintf(buf, size,
			 "from a root: the members wait only for a late root "
			 "(its root= parameter), not for each other");
		break;
	case AN_COLL_TO_ROOT:
		snprintf(buf, size,
			 "to a root: the root waits for the last member; the "
			 "others need not wait");
		break;
	case AN_COLL_PREFIX:
		snprintf(buf, size,
			 "a prefix: each member waits for those of lower rank");
		break;
	default:
		if (!an_waits_counts(name) || !p2p_line(v, buf, size))
			snprintf(buf, size,
				 "no collective: late senders and receivers "
				 "are in rondo waits (per-call times)");
	}
}

/* The selected signature: its text, its calls' figures, its ranks'. */
static void draw_detail(struct view *v, int top, int height)
{
	const struct view_cont *ct = v->cont;
	const struct an_contention *c;
	int title = theme_attr(THEME_TITLE);
	char text[1024], line[512], a[5][24];
	char *arrow;

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols,
			  k ? theme_attr(THEME_NORMAL) : title);
	view_put(v, top, 0, v->cols, title,
		 " detail (Enter: to its first call "
		 "in the tree)");
	if (ct->cur >= ct->n)
		return;
	c = &ct->rows[ct->cur];
	tree_sig_text(v->tree, c->sig, view_sig_rank(v, c->sig), 0, text,
		      sizeof(text));
	arrow = strstr(text, " -> ");
	if (arrow)
		*arrow = '\0';
	view_put(v, top + 1, 1, v->cols - 2, theme_attr(THEME_CALL), text);
	if (arrow)
		view_put(v, top + 2, 3, v->cols - 4, theme_attr(THEME_PARAMS),
			 arrow + 1);
	view_count(a[0], sizeof(a[0]), c->count);
	view_duration(a[1], sizeof(a[1]), (double)c->total_ns, v->utf8);
	view_duration(a[2], sizeof(a[2]), (double)c->min_ns, v->utf8);
	view_duration(a[3], sizeof(a[3]),
		      c->count ? (double)c->total_ns / (double)c->count : 0,
		      v->utf8);
	view_duration(a[4], sizeof(a[4]), (double)c->lost_ns, v->utf8);
	snprintf(line, sizeof(line),
		 "calls %s   total %s   fastest %s   "
		 "mean %s   lost %s",
		 a[0], a[1], a[2], a[3], a[4]);
	view_put(v, top + 3, 1, v->cols - 2, theme_attr(THEME_COUNT), line);
	if (c->ranks) {
		view_duration(a[0], sizeof(a[0]), (double)c->max_rank_ns,
			      v->utf8);
		view_duration(a[1], sizeof(a[1]), (double)c->min_rank_ns,
			      v->utf8);
		view_duration(a[2], sizeof(a[2]), c->mean_rank_ns, v->utf8);
		cont_imbalance(a[3], sizeof(a[3]), c);
		snprintf(line, sizeof(line),
			 "on %u rank%s: most time rank %u "
			 "(%s), least rank %u (%s), mean %s; imbalance %s",
			 c->ranks, c->ranks == 1 ? "" : "s", c->max_rank, a[0],
			 c->min_rank, a[1], a[2], a[3]);
	} else {
		snprintf(line, sizeof(line),
			 "no per-rank times in this trace: "
			 "no imbalance");
	}
	view_put(v, top + 4, 1, v->cols - 2, theme_attr(THEME_NORMAL), line);
	if (v->one_rank != TREE_NONE && c->ranks) {
		uint64_t ns;

		/* the one rank shown: its own time in it, against the mean */
		if (rondo_sig_rank_time(v->t, c->sig, v->one_rank, &ns) == 0) {
			view_duration(a[0], sizeof(a[0]), (double)ns, v->utf8);
			snprintf(line, sizeof(line),
				 "rank %u: %s in it, %+.1f%% against the "
				 "mean",
				 v->one_rank, a[0],
				 c->mean_rank_ns > 0
					 ? 100 * ((double)ns / c->mean_rank_ns -
						  1)
					 : 0.0);
		} else {
			snprintf(
				line, sizeof(line),
				"rank %u: its time in it is not kept (a "
				"summary keeps the slowest and fastest ranks')",
				v->one_rank);
		}
		view_put(v, top + 5, 1, v->cols - 2, theme_attr(THEME_COUNT),
			 line);
	} else {
		view_put(v, top + 5, 1, v->cols - 2, theme_attr(THEME_DIM),
			 "lost: the total less calls times the fastest call");
	}
	view_put(
		v, top + 6, 1, v->cols - 2, theme_attr(THEME_DIM),
		"max-mean: time lost to imbalance, the most a rank spent in it "
		"less the ranks' mean; max/mean: their ratio");
	late_line(v, c, line, sizeof(line));
	view_put(v, top + 7, 1, v->cols - 2, theme_attr(THEME_DIM), line);
	snprintf(line, sizeof(line), "per-rank times: ");
	an_rank_precision(v->t, line + strlen(line),
			  sizeof(line) - strlen(line));
	view_put(v, top + 8, 1, v->cols - 2, theme_attr(THEME_DIM), line);
}

static void view_draw_cont(struct view *v, int top, int height)
{
	int table = height - view_detail_lines(v);

	if (!v->cont)
		return;
	draw_table(v, top, table);
	if (view_detail_lines(v) > 0) {
		v->clip = top + height;
		draw_detail(v, top + table, view_detail_lines(v));
		v->clip = 0;
	}
}

/* ---- the pane's operations ----------------------------------------------- */

static void cont_status(const struct view *v, char *buf, size_t size)
{
	const struct view_cont *ct = v->cont;

	snprintf(buf, size,
		 "%u/%u%s  Enter go to  s sort  Tab tree  "
		 "? help  q back",
		 ct && ct->n ? ct->cur + 1 : 0, ct ? ct->n : 0,
		 v->rank_in ? " called by the ranks shown, figures over all "
			      "their ranks"
			    : "");
}

const struct view_pane_ops view_cont_ops = {
	.name = "contention",
	.tab = 1,
	.show = view_cont_show,
	.draw = view_draw_cont,
	.move_by = view_cont_move,
	.status = cont_status,
	.selected = view_cont_selected,
	.free = view_cont_free,
};
