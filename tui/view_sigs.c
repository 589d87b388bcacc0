/*
 * view_sigs.c - the signature table of `rondo view`: every call signature
 * with its statistics over the whole job, sorted by total time, count,
 * mean or longest call, filtered by function name; the pane's operations
 * (view_sigs_ops).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sat.h"
#include "view.h"

#define COL_NUM 10
/* The ranks column, from this many columns of screen on. */
#define COLS_RANKS 120

static const char *const sort_name[SORT_NKEYS] = {"total", "count", "mean",
						  "max"};

/* The sort key of a signature: larger first. */
static double key_of(const struct view *v, uint32_t sig)
{
	rondo_stat st;

	if (rondo_sig_stat(v->t, sig, &st) < 0 || st.count == 0)
		return -1;
	switch (v->sort) {
	case SORT_COUNT: return (double)st.count;
	case SORT_MEAN: return (double)st.total_ns / (double)st.count;
	case SORT_MAX: return (double)st.max_ns;
	default: return (double)st.total_ns;
	}
}

/* qsort has no context argument: the view being sorted. */
static const struct view *sorting;

static int by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double kx = key_of(sorting, x), ky = key_of(sorting, y);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return x < y ? -1 : x > y;
}

/* The signature under the table's cursor, TREE_NONE when empty. */
static uint32_t view_sigs_selected(const struct view *v)
{
	return v->sig_order && v->sig_cur < v->nsig_order
		       ? v->sig_order[v->sig_cur]
		       : TREE_NONE;
}

int view_sigs_update(struct view *v)
{
	uint32_t n = rondo_sig_count(v->t), k = 0, keep = view_sigs_selected(v);
	uint32_t *order = realloc(v->sig_order, sizeof(*order) * (n + 1));

	if (!order)
		return -1;
	v->sig_order = order;
	for (uint32_t s = 0; s < n; s++)
		if (view_sig_shown(v, s) &&
		    tree_text_has(
			    rondo_func_name(v->t, rondo_sig_func(v->t, s)),
			    v->filter))
			order[k++] = s;
	v->nsig_order = k;
	sorting = v;
	qsort(order, k, sizeof(*order), by_key);
	/* the cursor stays on its signature when it is still shown */
	v->sig_cur = 0;
	for (uint32_t i = 0; i < k && keep != TREE_NONE; i++)
		if (order[i] == keep)
			v->sig_cur = i;
	return 0;
}

int view_sig_nranks(struct view *v, uint32_t sig)
{
	uint32_t nsigs = rondo_sig_count(v->t),
		 ngroups = rondo_group_count(v->t);
	uint8_t *sig_of;
	int bad;

	if (sig >= nsigs)
		return -1;
	if (v->sig_nranks)
		return (int)v->sig_nranks[sig];
	v->sig_nranks = calloc((size_t)nsigs + 1, sizeof(*v->sig_nranks));
	sig_of = malloc((size_t)nsigs + 1);
	bad = !v->sig_nranks || !sig_of;
	for (uint32_t g = 0; !bad && g < ngroups; g++) {
		uint32_t n = rondo_group_size(v->t, g);

		memset(sig_of, 0, nsigs);
		bad = tree_group_sigs(v->tree, g, sig_of) < 0;
		for (uint32_t s = 0; !bad && s < nsigs; s++)
			v->sig_nranks[s] += sig_of[s] ? n : 0;
	}
	free(sig_of);
	if (bad) {
		free(v->sig_nranks);
		v->sig_nranks = NULL;
	}
	return v->sig_nranks ? (int)v->sig_nranks[sig] : -1;
}

static void view_sigs_move(struct view *v, int64_t delta)
{
	if (v->nsig_order)
		v->sig_cur = view_row_moved(v->sig_cur, delta, v->nsig_order);
}

static void draw_sig(struct view *v, int y, uint32_t i, int selected)
{
	uint32_t sig = v->sig_order[i];
	int attr = selected ? theme_attr(THEME_SELECTED)
			    : theme_attr(THEME_NORMAL);
	char text[512], num[4][24];
	rondo_stat st;
	int x = 0;

	view_fill(y, 0, v->cols, attr);
	if (rondo_sig_stat(v->t, sig, &st) == 0 && st.count) {
		view_duration(num[0], sizeof(num[0]), (double)st.total_ns,
			      v->utf8);
		view_count(num[1], sizeof(num[1]), st.count);
		view_duration(num[2], sizeof(num[2]),
			      (double)st.total_ns / (double)st.count, v->utf8);
		view_duration(num[3], sizeof(num[3]), (double)st.max_ns,
			      v->utf8);
	} else {
		for (int k = 0; k < 4; k++)
			snprintf(num[k], sizeof(num[k]), "-");
	}
	for (int k = 0; k < 4; k++, x += COL_NUM)
		view_put_right(v, y, x, COL_NUM - 1,
			       selected ? attr
					: theme_attr(k == 1 ? THEME_COUNT
							    : THEME_TIME),
			       num[k]);
	if (v->cols >= COLS_RANKS) {
		int n = view_sig_nranks(v, sig);

		if (n >= 0)
			snprintf(num[0], sizeof(num[0]), "%d", n);
		else
			snprintf(num[0], sizeof(num[0]), "-");
		view_put_right(v, y, x, COL_NUM - 1,
			       selected ? attr : theme_attr(THEME_COUNT),
			       num[0]);
		x += COL_NUM;
	}
	tree_sig_text(v->tree, sig, view_sig_rank(v, sig), 1, text,
		      sizeof(text));
	view_put(v, y, x + 1, v->cols - x - 2,
		 selected ? attr
			  : theme_attr(tree_sig_matches(v->tree, sig)
					       ? THEME_MATCH
					       : THEME_CALL),
		 text);
}

static void view_draw_sigs(struct view *v, int top, int height)
{
	int title = theme_attr(THEME_TITLE), x = 0;
	char head[512], peers[48];

	view_fill(top, 0, v->cols, title);
	for (int k = 0; k < SORT_NKEYS; k++, x += COL_NUM) {
		snprintf(head, sizeof(head), "%s%s", sort_name[k],
			 (int)v->sort != k ? " "
			 : v->utf8	   ? "\xe2\x96\xbc"
					   : "v");
		view_put_right(v, top, x, COL_NUM - 1, title, head);
	}
	if (v->cols >= COLS_RANKS) {
		view_put_right(v, top, x, COL_NUM - 1, title, "ranks ");
		x += COL_NUM;
	}
	if (v->one_rank != TREE_NONE)
		snprintf(peers, sizeof(peers), "rank %u's peers", v->one_rank);
	else
		snprintf(peers, sizeof(peers),
			 "peers +k relative to the "
			 "caller");
	snprintf(head, sizeof(head), "signature (%u of %u%s%s%s%s; %s)",
		 v->nsig_order, rondo_sig_count(v->t),
		 v->rank_in ? ", called by the ranks shown" : "",
		 v->filter[0] ? ", function has \"" : "", v->filter,
		 v->filter[0] ? "\"" : "", peers);
	view_put(v, top, x + 1, v->cols - x - 2, title, head);
	view_row_in_view(v->sig_cur, &v->sig_top, height - 1);
	for (int k = 0; k < height - 1; k++) {
		uint32_t i = v->sig_top + (uint32_t)k;

		if (i >= v->nsig_order)
			view_fill(top + 1 + k, 0, v->cols,
				  theme_attr(THEME_NORMAL));
		else
			draw_sig(v, top + 1 + k, i, i == v->sig_cur);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(v->sig_cur - v->sig_top));
}

/* ---- the pane's operations ----------------------------------------------- */

/* The table, the detail of its row under it. */
static void sigs_draw(struct view *v, int top, int height)
{
	view_draw_over_detail(v, top, height, view_draw_sigs);
}

/* The rows' place, and what the signatures shown add up to: their
 * calls and time over all ranks. */
static void sigs_status(const struct view *v, char *buf, size_t size)
{
	uint64_t calls = 0, ns = 0;
	char c[24], t[24];
	rondo_stat st;

	for (uint32_t i = 0; i < v->nsig_order; i++)
		if (rondo_sig_stat(v->t, v->sig_order[i], &st) == 0) {
			calls = sat_add(calls, st.count);
			ns = sat_add(ns, st.total_ns);
		}
	view_count(c, sizeof(c), calls);
	view_duration(t, sizeof(t), (double)ns, v->utf8);
	snprintf(buf, size,
		 "%u/%u  %s calls, %s%s  Enter go to  s sort  f filter  "
		 "? help  q back",
		 v->nsig_order ? v->sig_cur + 1 : 0, v->nsig_order, c, t,
		 v->rank_in ? " over all their ranks" : "");
}

const struct view_pane_ops view_sigs_ops = {
	.name = "signatures",
	.tab = 1,
	.draw = sigs_draw,
	.move_by = view_sigs_move,
	.status = sigs_status,
	.selected = view_sigs_selected,
};
