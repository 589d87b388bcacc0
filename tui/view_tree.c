/*
 * view_tree.c - the header, the tree pane and the detail pane of
 * `rondo view`; the tree pane's operations (view_tree_ops).
 */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "view.h"

/* Columns of the tree pane's figures: calls and time of one run, time in
 * all runs, its share; the time of one run only from WIDE columns. */
#define COL_CALLS 11
#define COL_TIME  10
#define COL_ALL	  10
#define COL_SHARE 7
#define WIDE	  100

/* The figures' width on this screen (a blank column before them). */
static int col_figures(const struct view *v)
{
	return COL_CALLS + (v->cols >= WIDE ? COL_TIME : 0) + COL_ALL +
	       COL_SHARE + 1;
}

/* Draws the figures' cells at row y from column x: texts t[0..4) (calls,
 * time, in all, share) in attributes a[0..4). */
static void put_figures(struct view *v, int y, const char *const *t,
			const int *a)
{
	int x = v->cols - col_figures(v) + 1;

	view_put_right(v, y, x, COL_CALLS, a[0], t[0]);
	x += COL_CALLS;
	if (v->cols >= WIDE) {
		view_put_right(v, y, x, COL_TIME, a[1], t[1]);
		x += COL_TIME;
	}
	view_put_right(v, y, x, COL_ALL, a[2], t[2]);
	view_put_right(v, y, x + COL_ALL, COL_SHARE, a[3], t[3]);
}

/* ---- the header ---------------------------------------------------------- */

void view_draw_header(struct view *v)
{
	const char *program = rondo_meta_get(v->t, "program");
	const char *dot = v->utf8 ? " \xc2\xb7 " : " | ";
	char calls[32], size[32], line[512], run[32], mpi[32], share[16];
	char timing[48];
	uint64_t bytes = rondo_file_size(v->t);
	uint32_t ranks = rondo_rank_count(v->t);
	double b;

	view_count(calls, sizeof(calls), v->calls);
	if (bytes < 10000)
		snprintf(size, sizeof(size), "%llu B",
			 (unsigned long long)bytes);
	else
		snprintf(size, sizeof(size), "%.1f %s",
			 bytes < 10000000 ? bytes / 1e3 : bytes / 1e6,
			 bytes < 10000000 ? "KB" : "MB");
	snprintf(line, sizeof(line),
		 " rondo%s%s%s%u rank%s%s%s MPI calls%s%u "
		 "signatures%s%u rank group%s%s%s",
		 dot, program ? program : "?", dot, ranks,
		 ranks == 1 ? "" : "s", dot, calls, dot, rondo_sig_count(v->t),
		 dot, rondo_group_count(v->t),
		 rondo_group_count(v->t) == 1 ? "" : "s", dot, size);
	view_fill(0, 0, v->cols, theme_attr(THEME_HEADER));
	view_put(v, 0, 0, v->cols, theme_attr(THEME_HEADER), line);
	view_duration(mpi, sizeof(mpi), v->total_ns, v->utf8);
	/* the timing mode, and for per-call times their bound */
	if (rondo_timing_mode(v->t, &b) == RONDO_TIMING_PERCALL)
		snprintf(timing, sizeof(timing),
			 "%stimes per call, %s %g%% late", dot,
			 v->utf8 ? "\xe2\x89\xa4" : "<=", (b - 1) * 100);
	else
		snprintf(timing, sizeof(timing), "%sstatistics only", dot);
	if (v->run_s > 0) {
		view_duration(run, sizeof(run), v->run_s * 1e9, v->utf8);
		view_percent(share, sizeof(share),
			     v->total_ns /
				     (v->run_s * 1e9 * (ranks ? ranks : 1)));
		snprintf(line, sizeof(line),
			 " run %s%sMPI %s of the run time "
			 "(%s over all ranks)%s%s%s",
			 run, dot, share, mpi, timing, dot, v->path);
	} else {
		snprintf(line, sizeof(line),
			 " run time not recorded%sMPI %s "
			 "over all ranks%s%s%s",
			 dot, mpi, timing, dot, v->path);
	}
	/* a job that did not end in MPI_Finalize: how it ended comes first */
	if (rondo_meta_get(v->t, "ended")) {
		char rest[512];

		snprintf(rest, sizeof(rest), "%s", line);
		if (snprintf(line, sizeof(line), " ended: %s%s%s",
			     rondo_meta_get(v->t, "ended"), dot,
			     rest + 1) >= (int)sizeof(line))
			line[sizeof(line) - 1] =
				'\0'; /* cut at the edge anyway */
	}
	/* the rank filter, before the rest */
	if (v->rank_in) {
		char rest[512];

		snprintf(rest, sizeof(rest), "%s", line);
		if (snprintf(line, sizeof(line),
			     " shown: rank%s %s of %u (r changes it)%s%s",
			     v->nrank_in == 1 ? "" : "s", v->rank_text, ranks,
			     dot, rest + 1) >= (int)sizeof(line))
			line[sizeof(line) - 1] = '\0';
	}
	view_fill(1, 0, v->cols, theme_attr(THEME_HEADER));
	view_put(v, 1, 0, v->cols, theme_attr(THEME_HEADER), line);
}

/* ---- the tree pane ------------------------------------------------------- */

int view_detail_lines(const struct view *v)
{
	int room = v->lines - 3; /* but the header (2) and the status (1) */
	int fit = room / 3;

	if (v->detail == VIEW_DETAIL_HIDDEN)
		return 0;
	if (v->detail == VIEW_DETAIL_TALL)
		return room / 2;
	fit = fit < VIEW_DETAIL_MIN ? VIEW_DETAIL_MIN : fit;
	return fit > VIEW_DETAIL_LINES ? VIEW_DETAIL_LINES : fit;
}

int view_main_height(const struct view *v)
{
	/* header (2), detail, status (1) */
	return v->lines - 2 - view_detail_lines(v) - 1;
}

static void view_tree_move(struct view *v, int64_t delta)
{
	int64_t rows = tree_rows(v->tree), at = (int64_t)v->cur + delta;

	if (rows == 0)
		return;
	v->cur = (uint32_t)(at < 0 ? 0 : at >= rows ? rows - 1 : at);
}

void view_tree_select(struct view *v, uint32_t node)
{
	uint32_t row = tree_node_row(v->tree, node);

	if (row != TREE_NONE)
		v->cur = row;
}

/* Keeps the selection inside the pane's window of rows. */
static void scroll_to_cursor(struct view *v, int height)
{
	uint32_t rows = tree_rows(v->tree);

	if (v->cur >= rows)
		v->cur = rows ? rows - 1 : 0;
	if (height <= 0)
		return;
	if (v->cur < v->top)
		v->top = v->cur;
	if (v->cur >= v->top + (uint32_t)height)
		v->top = v->cur - (uint32_t)height + 1;
	if (v->top + (uint32_t)height > rows)
		v->top = rows > (uint32_t)height ? rows - (uint32_t)height : 0;
}

static int row_attr(const struct view *v, const struct tree_info *in,
		    uint32_t node)
{
	if (tree_is_match(v->tree, node))
		return theme_attr(THEME_MATCH);
	switch (in->kind) {
	case TREE_GROUP: return theme_attr(THEME_GROUP);
	case TREE_RULE:
		return theme_attr(in->count > 1 ? THEME_LOOP : THEME_BLOCK);
	case TREE_CUT: return theme_attr(THEME_ERROR);
	default: return theme_attr(THEME_CALL);
	}
}

/* The fold mark of a node: open, closed, or none for a leaf. */
static const char *mark(const struct view *v, const struct tree_info *in)
{
	if (in->kind == TREE_CALL || in->kind == TREE_CUT)
		return "  ";
	if (v->utf8)
		return in->open ? "\xe2\x96\xbe " : "\xe2\x96\xb8 ";
	return in->open ? "- " : "+ ";
}

static void draw_row(struct view *v, int y, uint32_t row, int selected)
{
	uint32_t node = tree_row_node(v->tree, row);
	struct tree_info in;
	char label[512], calls[24], time[24], all[24], share[16];
	int x, width = v->cols - col_figures(v), indent, attr, fig;

	if (tree_info(v->tree, node, &in) < 0)
		return;
	if (in.kind == TREE_CUT)
		width = v->cols - 1; /* no figures: the row is the label's */
	attr = selected ? theme_attr(THEME_SELECTED) : row_attr(v, &in, node);
	fig = selected ? attr : theme_attr(THEME_COUNT);
	view_fill(y, 0, v->cols, selected ? attr : theme_attr(THEME_NORMAL));
	indent = (int)in.depth * 2;
	if (indent > width / 2)
		indent = width / 2;
	x = indent;
	x += view_put(v, y, x, width - x,
		      selected ? attr : theme_attr(THEME_DIM), mark(v, &in));
	tree_label(v->tree, node, v->utf8, label, sizeof(label));
	view_put(v, y, x, width - x, attr, label);
	if (in.kind == TREE_CUT)
		return; /* no call, no figures */
	view_count(calls, sizeof(calls), in.calls);
	view_duration(time, sizeof(time), in.time_ns, v->utf8);
	view_duration(all, sizeof(all), in.time_all_ns, v->utf8);
	view_percent(share, sizeof(share),
		     v->total_ns > 0 ? in.time_all_ns * in.ranks / v->total_ns
				     : 0);
	{
		const char *t[4] = {calls, time, all, share};
		int a[4] = {fig, selected ? attr : theme_attr(THEME_DIM),
			    selected ? attr : theme_attr(THEME_TIME),
			    selected ? attr : theme_attr(THEME_DIM)};

		put_figures(v, y, t, a);
	}
}

static void view_draw_tree(struct view *v, int top, int height)
{
	int title = theme_attr(THEME_TITLE), x = v->cols - col_figures(v) + 1;
	const char *t[4] = {"calls", "time", "in all", "share"};
	int a[4] = {title, title, title, title};

	view_fill(top, 0, v->cols, title);
	view_put(v, top, 0, x, title,
		 tree_order(v->tree)
			 ? " structure, heaviest first (per rank: one run; in "
			   "all: every run)"
			 : " structure (per rank: one run; in all: every "
			   "run)");
	put_figures(v, top, t, a);
	scroll_to_cursor(v, height - 1);
	for (int k = 0; k < height - 1; k++) {
		uint32_t row = v->top + (uint32_t)k;

		if (row >= tree_rows(v->tree)) {
			view_fill(top + 1 + k, 0, v->cols,
				  theme_attr(THEME_NORMAL));
			continue;
		}
		draw_row(v, top + 1 + k, row,
			 row == v->cur && v->pane == VIEW_TREE);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(v->cur - v->top));
}

/* ---- the detail pane ----------------------------------------------------- */

/* The signature the detail pane describes: the selected call, or the
 * table's row; TREE_NONE for a group or a rule. */
static uint32_t view_selected_sig(const struct view *v)
{
	const struct view_pane_ops *p = view_ops(v);
	struct tree_info in;

	if (p->selected)
		return p->selected(v);
	if (tree_info(v->tree, tree_row_node(v->tree, v->cur), &in) < 0 ||
	    in.kind != TREE_CALL)
		return TREE_NONE;
	return in.id;
}

/* The ranks that call signature sig: the groups whose root holds it. */
static void sig_ranks(struct view *v, uint32_t sig)
{
	uint32_t ngroups = rondo_group_count(v->t), n = 0;
	uint8_t *in = calloc((size_t)ngroups + 1, 1);
	size_t at = 0, size = sizeof(v->ranks_text);

	v->ranks_sig = sig;
	v->ranks_text[0] = '\0';
	if (!in || tree_sig_groups(v->tree, sig, in) < 0) {
		free(in);
		return;
	}
	/* the groups' lists, cut to leave room for the count */
	for (uint32_t g = 0; g < ngroups; g++) {
		char one[96];

		if (!in[g])
			continue;
		n += rondo_group_size(v->t, g);
		rondo_group_format(v->t, g, one, sizeof(one));
		if (at < size - 24)
			at += (size_t)snprintf(v->ranks_text + at,
					       size - 24 - at, "%s%s",
					       at ? "," : "", one);
		at = at < size - 24 ? at : size - 24;
	}
	free(in);
	snprintf(v->ranks_text + at, size - at, " (%u of %u)", n,
		 rondo_rank_count(v->t));
}

uint32_t view_sig_rank(struct view *v, uint32_t sig)
{
	uint32_t nsigs = rondo_sig_count(v->t),
		 ngroups = rondo_group_count(v->t);
	uint32_t rank = TREE_NONE, n = 0, one = 0;
	uint8_t *in;

	if (sig >= nsigs)
		return TREE_NONE;
	/* one rank shown: its values, for the signatures it calls */
	if (v->one_rank != TREE_NONE && view_sig_shown(v, sig))
		return v->one_rank;
	if (!v->sig_rank) {
		v->sig_rank = malloc(sizeof(uint32_t) * nsigs);
		if (!v->sig_rank)
			return TREE_NONE;
		for (uint32_t s = 0; s < nsigs; s++)
			v->sig_rank[s] = VIEW_SIG_UNKNOWN;
	}
	if (v->sig_rank[sig] != VIEW_SIG_UNKNOWN)
		return v->sig_rank[sig];
	in = calloc((size_t)ngroups + 1, 1);
	if (!in || tree_sig_groups(v->tree, sig, in) < 0) {
		free(in);
		return TREE_NONE; /* out of memory: relative, asked again */
	}
	for (uint32_t g = 0; g < ngroups; g++)
		if (in[g]) {
			n += rondo_group_size(v->t, g);
			one = g;
		}
	free(in);
	if (n != 1 || rondo_group_ranks(v->t, one, &rank, 1) != 1)
		rank = TREE_NONE;
	return v->sig_rank[sig] = rank;
}

/* A one-line histogram of the durations: a bar per power of two from the
 * shortest bin to the longest, as tall as the bin's share of the most
 * crowded one. */
static void draw_histogram(struct view *v, int y, const rondo_stat *st)
{
	static const char *const bars[] = {" ",
					   "\xe2\x96\x81",
					   "\xe2\x96\x82",
					   "\xe2\x96\x83",
					   "\xe2\x96\x84",
					   "\xe2\x96\x85",
					   "\xe2\x96\x86",
					   "\xe2\x96\x87",
					   "\xe2\x96\x88"};
	static const char ascii[] = " .:-=+*#@";
	int lo = -1, hi = -1, x;
	uint64_t most = 0;
	char from[24], to[24];

	for (int k = 0; k < RONDO_HIST_BINS; k++)
		if (st->hist[k]) {
			lo = lo < 0 ? k : lo;
			hi = k;
			most = st->hist[k] > most ? st->hist[k] : most;
		}
	if (lo < 0)
		return;
	view_duration(from, sizeof(from), (double)(1ull << lo), v->utf8);
	view_duration(to, sizeof(to), (double)(1ull << (hi + 1)), v->utf8);
	x = view_put(v, y, 1, v->cols - 2, theme_attr(THEME_DIM), "durations ");
	x += 1 + view_put(v, y, 1 + x, v->cols - 2 - x, theme_attr(THEME_DIM),
			  from);
	for (int k = lo; k <= hi && x < v->cols - 12; k++) {
		int level =
			st->hist[k]
				? 1 + (int)((st->hist[k] * 7 + most - 1) / most)
				: 0;
		char cell[8];

		if (level > 8)
			level = 8;
		if (v->utf8)
			snprintf(cell, sizeof(cell), "%s", bars[level]);
		else
			snprintf(cell, sizeof(cell), "%c", ascii[level]);
		x += view_put(v, y, 1 + x, 1, theme_attr(THEME_BAR), cell);
	}
	view_put(v, y, 2 + x, v->cols - 3 - x, theme_attr(THEME_DIM), to);
}

/* The full text of signature sig, with the values of the selected
 * group's rank when it has one rank, or of the signature's one rank. */
static void sig_text(struct view *v, uint32_t sig, char *buf, size_t size)
{
	struct tree_info in;
	uint32_t rank;

	if (view_ops(v)->rank)
		rank = view_ops(v)->rank(v); /* as that rank called it */
	else if (v->pane != VIEW_TREE ||
		 tree_info(v->tree, tree_row_node(v->tree, v->cur), &in) < 0 ||
		 in.ranks != 1 ||
		 rondo_group_ranks(v->t, in.group, &rank, 1) != 1)
		rank = view_sig_rank(v, sig);
	tree_sig_text(v->tree, sig, rank, 0, buf, size);
}

/* base64 of n bytes at p into out (4 per 3 bytes, and a NUL). */
static void base64(const unsigned char *p, size_t n, char *out)
{
	static const char d[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16 |
			     (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*out++ = d[w >> 18 & 63];
		*out++ = d[w >> 12 & 63];
		*out++ = i + 1 < n ? d[w >> 6 & 63] : '=';
		*out++ = i + 2 < n ? d[w & 63] : '=';
	}
	*out = '\0';
}

int view_copy(struct view *v)
{
	char text[4096], code[4096 / 3 * 4 + 8];
	uint32_t sig = view_selected_sig(v);
	size_t n;

	if (sig == TREE_NONE) {
		view_message(v, 1, "select a call: y copies its text");
		return VIEW_REDRAW;
	}
	sig_text(v, sig, text, sizeof(text));
	n = strlen(text);
	base64((const unsigned char *)text, n, code);
	/* OSC 52: the terminal (or tmux, screen) puts it on the clipboard,
	 * over ssh too; none says whether it did */
	printf("\033]52;c;%s\a", code);
	fflush(stdout);
	view_message(v, 0,
		     "copied the call's text (%zu bytes) by OSC 52; none on "
		     "the clipboard: the terminal does not allow it",
		     n);
	return VIEW_REDRAW;
}

/* A tree row's figures over all its runs, at line y: "runs 50 times per
 * rank, on 4 ranks: in all 100 calls, 4.32 ms per rank, 14.7% of all MPI
 * time". */
static void detail_all(struct view *v, int y, const struct tree_info *in)
{
	char line[512], runs[24], calls[24], time[24], share[16];

	view_count(runs, sizeof(runs), in->runs);
	view_count(calls, sizeof(calls), in->calls_all);
	view_duration(time, sizeof(time), in->time_all_ns, v->utf8);
	view_percent(share, sizeof(share),
		     v->total_ns > 0 ? in->time_all_ns * in->ranks / v->total_ns
				     : 0);
	snprintf(line, sizeof(line),
		 "runs %s time%s per rank, on %u rank%s: in all %s call%s, "
		 "%s per rank, %s of all MPI time",
		 runs, in->runs == 1 ? "" : "s", in->ranks,
		 in->ranks == 1 ? "" : "s", calls,
		 in->calls_all == 1 ? "" : "s", time, share);
	view_put(v, y, 1, v->cols - 2, theme_attr(THEME_COUNT), line);
}

static void detail_sig(struct view *v, int y, int height, uint32_t sig)
{
	struct tree_info in;
	char text[1024], line[512], a[6][24];
	char *arrow;
	rondo_stat st;
	double mean, sd;
	int used;

	/* the inputs on one line, the outputs on the next */
	sig_text(v, sig, text, sizeof(text));
	arrow = strstr(text, " -> ");
	if (arrow)
		*arrow = '\0';
	view_put(v, y, 1, v->cols - 2, theme_attr(THEME_CALL), text);
	if (arrow && height > 4)
		view_put(v, y + 1, 3, v->cols - 4, theme_attr(THEME_PARAMS),
			 arrow + 1);
	if (rondo_sig_stat(v->t, sig, &st) < 0 || st.count == 0) {
		view_put(v, y + 2, 1, v->cols - 2, theme_attr(THEME_DIM),
			 "no statistics for this signature");
	} else {
		mean = (double)st.total_ns / (double)st.count;
		sd = st.sumsq_ns2 / (double)st.count - mean * mean;
		sd = sd > 0 ? sqrt(sd) : 0;
		view_count(a[0], sizeof(a[0]), st.count);
		view_duration(a[1], sizeof(a[1]), (double)st.total_ns, v->utf8);
		view_duration(a[2], sizeof(a[2]), mean, v->utf8);
		view_duration(a[3], sizeof(a[3]), (double)st.min_ns, v->utf8);
		view_duration(a[4], sizeof(a[4]), (double)st.max_ns, v->utf8);
		view_duration(a[5], sizeof(a[5]), sd, v->utf8);
		snprintf(line, sizeof(line),
			 "calls %s   total %s   mean %s   "
			 "min %s   max %s   sd %s   ",
			 a[0], a[1], a[2], a[3], a[4], a[5]);
		used = view_put(v, y + 2, 1, v->cols - 2,
				theme_attr(THEME_COUNT), line);
		view_percent(a[0], sizeof(a[0]),
			     v->total_ns > 0 ? (double)st.total_ns / v->total_ns
					     : 0);
		snprintf(line, sizeof(line), "%s of MPI time", a[0]);
		view_put(v, y + 2, 1 + used, v->cols - 2 - used,
			 theme_attr(THEME_DIM), line);
		draw_histogram(v, y + 3, &st);
	}
	if (v->ranks_sig != sig)
		sig_ranks(v, sig);
	snprintf(line, sizeof(line), "called by ranks %s", v->ranks_text);
	view_put(v, y + 4, 1, v->cols - 2, theme_attr(THEME_NORMAL), line);
	/* the selected row: where it runs, in all */
	if (v->pane == VIEW_TREE && height > 6 &&
	    tree_info(v->tree, tree_row_node(v->tree, v->cur), &in) == 0 &&
	    in.kind == TREE_CALL)
		detail_all(v, y + 5, &in);
}

/* Where ranks cut short stop: how they ended, and what that means. */
static void detail_cut(struct view *v, int y, uint32_t node)
{
	char label[512];

	tree_label(v->tree, node, v->utf8, label, sizeof(label));
	view_put(v, y, 1, v->cols - 2, theme_attr(THEME_ERROR), label);
	view_put(v, y + 2, 1, v->cols - 2, theme_attr(THEME_NORMAL),
		 "their recorded calls stop here: the job ended badly, and "
		 "the trace was recovered from spill files");
	view_put(v, y + 3, 1, v->cols - 2, theme_attr(THEME_DIM),
		 "rondo dump prints the same after the rank's last call");
}

static void detail_node(struct view *v, int y, uint32_t node)
{
	struct tree_info in;
	char label[512], line[512], calls[24], time[24], text[400];
	uint32_t rule, pos;

	if (tree_info(v->tree, node, &in) < 0)
		return;
	if (in.kind == TREE_CUT) {
		detail_cut(v, y, node);
		return;
	}
	tree_label(v->tree, node, v->utf8, label, sizeof(label));
	view_put(v, y, 1, v->cols - 2,
		 theme_attr(in.kind == TREE_GROUP ? THEME_GROUP
			    : in.count > 1	  ? THEME_LOOP
						  : THEME_BLOCK),
		 label);
	view_count(calls, sizeof(calls), in.calls);
	view_duration(time, sizeof(time), in.time_ns, v->utf8);
	snprintf(line, sizeof(line), "each run: %s call%s, %s per rank", calls,
		 in.calls == 1 ? "" : "s", time);
	view_put(v, y + 2, 1, v->cols - 2, theme_attr(THEME_COUNT), line);
	detail_all(v, y + 3, &in);
	if (in.kind == TREE_GROUP)
		snprintf(line, sizeof(line),
			 "the whole call sequence of these "
			 "ranks: rule R%u; time: their mean time in MPI",
			 rondo_group_root(v->t, in.id));
	else if (tree_site(v->tree, node, &rule, &pos) == 0 &&
		 an_loop_text(v->t, rule, pos, v->utf8, text, sizeof(text)))
		snprintf(line, sizeof(line), "merged loop%s%u: %s",
			 in.kind == TREE_RULE ? " of rule R" : " of s", in.id,
			 text);
	else
		snprintf(
			line, sizeof(line), "%s of rule R%u%s",
			in.count > 1 ? "a loop" : "a sequence run once", in.id,
			" (time: calls times their signatures' mean duration)");
	view_put(v, y + 4, 1, v->cols - 2, theme_attr(THEME_DIM), line);
}

static void view_draw_detail(struct view *v, int top, int height)
{
	int title = theme_attr(THEME_TITLE);
	uint32_t sig = view_selected_sig(v), node;

	if (height <= 0)
		return;
	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols,
			  k ? theme_attr(THEME_NORMAL) : title);
	view_put(v, top, 0, v->cols, title,
		 v->detail == VIEW_DETAIL_TALL ? " detail (d: hide)"
		 : height < VIEW_DETAIL_LINES  ? " detail (d: taller)"
					       : " detail");
	v->clip = top + height;
	node = tree_row_node(v->tree, v->cur);
	if (sig != TREE_NONE)
		detail_sig(v, top + 1, height - 1, sig);
	else if (v->pane == VIEW_TREE && node != TREE_NONE)
		detail_node(v, top + 1, node);
	v->clip = 0;
}

void view_draw_over_detail(struct view *v, int top, int height,
			   void (*body)(struct view *v, int top, int height))
{
	int main_h = height - view_detail_lines(v);

	body(v, top, main_h);
	view_draw_detail(v, top + main_h, view_detail_lines(v));
}

/* ---- the pane's operations ----------------------------------------------- */

/* The tree, the detail of its selection under it. */
static void tree_draw(struct view *v, int top, int height)
{
	view_draw_over_detail(v, top, height, view_draw_tree);
}

static void tree_status(const struct view *v, char *buf, size_t size)
{
	snprintf(buf, size,
		 "%u/%u  Enter open  / search  n next  "
		 "Tab signatures  ? help  q quit",
		 v->cur + 1, tree_rows(v->tree));
}

const struct view_pane_ops view_tree_ops = {
	.name = "tree",
	.tab = 1,
	.draw = tree_draw,
	.move_by = view_tree_move,
	.status = tree_status,
};
