/*
 * view_funcs.c - the functions pane of `rondo view`: `rondo stats` as a
 * table, one row per MPI function called (its signatures combined
 * exactly, analyses/stats.c), sorted by total time, count, mean or
 * longest call; Enter shows the function's signatures.  The pane's
 * operations (view_funcs_ops).
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "stats.h"
#include "util.h"
#include "view.h"

#define COL_NUM	  10
#define COL_SHARE 7
#define NCOLS	  8

struct view_funcs {
	struct an_row *all; /* every function called */
	uint32_t nall;
	struct an_row *rows; /* those the ranks shown call, sorted */
	uint32_t n;
	struct an_totals tot;
	uint32_t cur, top;
	enum an_key key;
};

/* The orders s goes through, the first at the start. */
static const enum an_key keys[] = {AN_KEY_TOTAL, AN_KEY_COUNT, AN_KEY_MEAN,
				   AN_KEY_MAX};

int view_funcs_show(struct view *v)
{
	struct view_funcs *fn = v->funcs;
	int rc;

	if (!fn) {
		fn = calloc(1, sizeof(*fn));
		if (!fn) {
			view_message(v, 1, "out of memory");
			return VIEW_REDRAW;
		}
		rc = an_stats(v->t, AN_BY_FUNCTION, &fn->all, &fn->nall);
		if (rc == 0 &&
		    !(fn->rows = malloc(sizeof(*fn->rows) * (fn->nall + 1)))) {
			free(fn->all);
			rc = RONDO_E_NOMEM;
		}
		if (rc < 0) {
			free(fn);
			view_message(v, 1, "functions: %s",
				     rc == RONDO_E_MISSING
					     ? "the trace has no statistics"
					     : rondo_strerror(rc));
			return VIEW_REDRAW;
		}
		an_totals(v->t, &fn->tot);
		fn->key = keys[0];
		v->funcs = fn;
		if (view_funcs_filter(v) < 0)
			view_message(v, 1, "out of memory");
	}
	v->pane = VIEW_FUNCS;
	return VIEW_REDRAW;
}

int view_funcs_filter(struct view *v)
{
	struct view_funcs *fn = v->funcs;
	uint32_t nfuncs = rondo_func_count(v->t);
	uint8_t *called;

	if (!fn)
		return 0;
	called = calloc((size_t)nfuncs + 1, 1);
	if (!called)
		return RONDO_E_NOMEM;
	/* the functions of the signatures the ranks shown call */
	for (uint32_t s = 0; s < rondo_sig_count(v->t); s++)
		if (view_sig_shown(v, s) && rondo_sig_func(v->t, s) < nfuncs)
			called[rondo_sig_func(v->t, s)] = 1;
	fn->n = 0;
	for (uint32_t i = 0; i < fn->nall; i++)
		if (fn->all[i].id < nfuncs && called[fn->all[i].id])
			fn->rows[fn->n++] = fn->all[i];
	free(called);
	an_stats_sort(fn->rows, fn->n, fn->key);
	fn->cur = fn->top = 0;
	return 0;
}

static void view_funcs_free(struct view *v)
{
	if (v->funcs) {
		free(v->funcs->all);
		free(v->funcs->rows);
	}
	free(v->funcs);
	v->funcs = NULL;
}

static void view_funcs_move(struct view *v, int64_t delta)
{
	struct view_funcs *fn = v->funcs;

	if (fn && fn->n)
		fn->cur = view_row_moved(fn->cur, delta, fn->n);
}

int view_funcs_sort(struct view *v)
{
	struct view_funcs *fn = v->funcs;
	size_t k = 0;

	if (!fn)
		return 0;
	while (k < COUNTOF(keys) && keys[k] != fn->key)
		k++;
	fn->key = keys[(k + 1) % COUNTOF(keys)];
	an_stats_sort(fn->rows, fn->n, fn->key);
	fn->cur = fn->top = 0;
	return VIEW_REDRAW;
}

/* The signature table, filtered by the selected function's name. */
int view_funcs_signatures(struct view *v)
{
	struct view_funcs *fn = v->funcs;
	const char *name;

	if (!fn || fn->cur >= fn->n)
		return 0;
	name = rondo_func_name(v->t, fn->rows[fn->cur].id);
	snprintf(v->filter, sizeof(v->filter), "%s", name ? name : "");
	if (view_sigs_update(v) < 0) {
		view_message(v, 1, "out of memory");
		return VIEW_REDRAW;
	}
	v->sig_cur = v->sig_top = 0;
	v->pane = VIEW_SIGS;
	return VIEW_REDRAW;
}

static int col_width(int k)
{
	return k >= 5 ? COL_SHARE : COL_NUM;
}

/* The column sorted by key, or -1. */
static int col_of(enum an_key key)
{
	switch (key) {
	case AN_KEY_TOTAL: return 0;
	case AN_KEY_COUNT: return 1;
	case AN_KEY_MEAN: return 2;
	case AN_KEY_MAX: return 4;
	default: return -1;
	}
}

static void share(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	if (whole)
		view_percent(buf, size, (double)part / (double)whole);
	else
		snprintf(buf, size, "-");
}

static void draw_row(struct view *v, int y, uint32_t i, int selected)
{
	const struct view_funcs *fn = v->funcs;
	const struct an_row *r = &fn->rows[i];
	int attr = theme_attr(THEME_SELECTED), x = 0;
	char num[NCOLS][24], text[160];
	const char *name = rondo_func_name(v->t, r->id);

	view_fill(y, 0, v->cols, selected ? attr : theme_attr(THEME_NORMAL));
	view_duration(num[0], sizeof(num[0]), (double)r->total_ns, v->utf8);
	view_count(num[1], sizeof(num[1]), r->count);
	view_duration(num[2], sizeof(num[2]),
		      r->count ? (double)r->total_ns / (double)r->count : 0,
		      v->utf8);
	if (r->totals_only) {
		snprintf(num[3], sizeof(num[3]), "-");
		snprintf(num[4], sizeof(num[4]), "-");
	} else {
		view_duration(num[3], sizeof(num[3]), (double)r->min_ns,
			      v->utf8);
		view_duration(num[4], sizeof(num[4]), (double)r->max_ns,
			      v->utf8);
	}
	share(num[5], sizeof(num[5]), r->total_ns, fn->tot.mpi_ns);
	share(num[6], sizeof(num[6]), r->total_ns,
	      sat_mul(fn->tot.run_ns, fn->tot.ranks));
	snprintf(num[7], sizeof(num[7]), "%u", r->sigs);
	for (int k = 0; k < NCOLS; k++) {
		view_put_right(v, y, x, col_width(k) - 1,
			       selected ? attr
			       : k == 1 ? theme_attr(THEME_COUNT)
			       : k >= 5 ? theme_attr(THEME_DIM)
					: theme_attr(THEME_TIME),
			       num[k]);
		x += col_width(k);
	}
	snprintf(text, sizeof(text), "%s", name ? name : "?");
	view_put(v, y, x + 1, v->cols - x - 2,
		 selected ? attr : theme_attr(THEME_CALL), text);
}

static void view_draw_funcs(struct view *v, int top, int height)
{
	struct view_funcs *fn = v->funcs;
	static const char *const head[NCOLS] = {
		"total", "count", "mean", "min", "max", "MPI%", "run%", "sigs"};
	const char *mark = v->utf8 ? "\xe2\x96\xbc" : "v";
	int title = theme_attr(THEME_TITLE), x = 0;
	char text[256];

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols, theme_attr(THEME_NORMAL));
	if (!fn)
		return;
	view_fill(top, 0, v->cols, title);
	for (int k = 0; k < NCOLS; k++) {
		snprintf(text, sizeof(text), "%s%s", head[k],
			 col_of(fn->key) == k ? mark : " ");
		view_put_right(v, top, x, col_width(k) - 1, title, text);
		x += col_width(k);
	}
	if (v->rank_in) /* the status line says whose figures */
		snprintf(text, sizeof(text), "function (%u of %u)", fn->n,
			 fn->nall);
	else
		snprintf(text, sizeof(text), "function (%u)", fn->n);
	view_put(v, top, x + 1, v->cols - x - 2, title, text);
	view_row_in_view(fn->cur, &fn->top, height - 1);
	for (int k = 0; k < height - 1; k++) {
		uint32_t i = fn->top + (uint32_t)k;

		if (i < fn->n)
			draw_row(v, top + 1 + k, i, i == fn->cur);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(fn->cur - fn->top));
}

/* ---- the pane's operations ----------------------------------------------- */

static void funcs_status(const struct view *v, char *buf, size_t size)
{
	const struct view_funcs *fn = v->funcs;

	snprintf(buf, size,
		 "%u/%u%s  Enter its signatures  s sort  Tab next  ? help  "
		 "q back",
		 fn && fn->n ? fn->cur + 1 : 0, fn ? fn->n : 0,
		 v->rank_in ? " called by the ranks shown, figures over all "
			      "their ranks"
			    : "");
}

const struct view_pane_ops view_funcs_ops = {
	.name = "functions",
	.tab = 1,
	.show = view_funcs_show,
	.draw = view_draw_funcs,
	.move_by = view_funcs_move,
	.status = funcs_status,
	.free = view_funcs_free,
};
