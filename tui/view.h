/*
 * view.h - what the parts of `rondo view` share: the explorer's state, the
 * panes' draw and key functions, and the text helpers.
 *
 * The screen, top to bottom: two header lines, the main pane (the tree,
 * or the signature table), the detail pane of the selection, and a status
 * line; the communication matrix, the contention table and the timeline
 * take the main and detail panes' place with their own.  A pane is three
 * functions, as in ncdu: it is drawn from the state, and its keys change
 * the state and say what to redraw; one key table (cmd_view.c) dispatches
 * every key and writes the help screen.
 */
#ifndef RONDO_VIEW_H
#define RONDO_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"
#include "theme.h"
#include "tree.h"

/* The smallest screen the explorer draws on; below it, a notice. */
#define VIEW_MIN_COLS 60
#define VIEW_MIN_LINES 16

/* Lines of the detail pane, its title included. */
#define VIEW_DETAIL_LINES 9

enum view_pane {
	VIEW_TREE,
	VIEW_SIGS,
	VIEW_MATRIX,
	VIEW_CONT,
	VIEW_TIMELINE,
	VIEW_HELP
};

struct view_matrix; /* view_matrix.c */
struct view_cont;   /* view_contention.c */
struct view_timeline; /* view_timeline.c */

/* How the signature table is sorted. */
enum view_sort { SORT_TOTAL, SORT_COUNT, SORT_MEAN, SORT_MAX, SORT_NKEYS };

struct view {
	const char *path;
	rondo_trace *t;
	struct tree *tree;
	enum view_pane pane, back; /* back: where help returns */
	int utf8;		   /* the terminal shows UTF-8 */
	int color;		   /* colours in use */
	struct theme theme;
	int theme_index;	   /* in the cycle of shipped themes, or -1 */
	const char *const *theme_dirs;
	int ntheme_dirs;
	int lines, cols;	   /* of the screen, at the last draw */

	/* the tree pane */
	uint32_t cur;		   /* the selected row */
	uint32_t top;		   /* the first row shown */

	/* the signature table */
	uint32_t *sig_order;	   /* signatures shown, sorted, filtered */
	uint32_t nsig_order;
	uint32_t sig_cur, sig_top;
	enum view_sort sort;
	char filter[64];	   /* function names containing it */

	/* search, and messages on the status line */
	char search[128];
	char message[256];
	int message_is_error;
	uint32_t help_top;

	/* the detail pane's ranks of a signature, kept between draws */
	uint32_t ranks_sig;
	char ranks_text[160];

	/* made the first time their pane is shown */
	struct view_matrix *matrix;
	struct view_cont *cont;
	struct view_timeline *timeline;

	/* the header's figures */
	double total_ns;	   /* MPI time, all ranks */
	double run_s;		   /* the run's duration, 0 if unknown */
	uint64_t calls;
};

/* What a key handler asks for. */
enum { VIEW_REDRAW = 1, VIEW_QUIT = 2 };

/* ---- panes (view_tree.c, view_sigs.c) ---------------------------------- */
void view_draw_header(struct view *v);
void view_draw_tree(struct view *v, int top, int height);
void view_draw_detail(struct view *v, int top, int height);
void view_draw_sigs(struct view *v, int top, int height);
/* Moves the tree's selection by delta rows (clamped), or to a node. */
void view_tree_move(struct view *v, int64_t delta);
void view_tree_select(struct view *v, uint32_t node);
/* The main pane's height for the current screen. */
int view_main_height(const struct view *v);
/* Sorts and filters the signature table again; 0 or -1 (out of memory). */
int view_sigs_update(struct view *v);
void view_sigs_move(struct view *v, int64_t delta);
/* The signature under the table's cursor, TREE_NONE when empty. */
uint32_t view_sigs_selected(const struct view *v);
/* The signature the detail pane describes: the selected call, or the
 * table's row; TREE_NONE for a group or a rule. */
uint32_t view_selected_sig(const struct view *v);

/* ---- the communication matrix (view_matrix.c) ------------------------ */
/* Shows the matrix pane, computing the matrix the first time; its keys
 * after it.  Each returns VIEW_REDRAW (0: nothing to redraw), and reports
 * what went wrong on the status line. */
int view_matrix_show(struct view *v);
void view_draw_matrix(struct view *v, int top, int height);
/* Moves the cursor by cells (clamped). */
void view_matrix_move(struct view *v, int64_t dx, int64_t dy);
/* Into the block under the cursor; out again (0 when not zoomed in). */
int view_matrix_zoom_in(struct view *v);
int view_matrix_zoom_out(struct view *v);
/* Messages or bytes; collectives counted or not; one function or all
 * (text: part of its name, "" for all). */
int view_matrix_bytes(struct view *v);
int view_matrix_collectives(struct view *v);
int view_matrix_function(struct view *v, const char *text);
/* The function filter as typed last, for the prompt. */
const char *view_matrix_function_text(const struct view *v);
/* Writes the whole matrix under its filters to path, as CSV. */
int view_matrix_export(struct view *v, const char *path);
/* Sets up the gradient's colours, VIEW_LEVELS of them, for the matrix and
 * the timeline: after every theme_apply. */
void view_matrix_colors(const struct view *v);
/* Levels of the heat maps' scale: 0 for an empty cell, then by value. */
#define VIEW_LEVELS 10
/* The colour pair of a level of the gradient (its text light or dark
 * against it), -1 when there are none (no colour, a theme without a
 * gradient). */
int view_gradient_pair(int level);
void view_matrix_free(struct view *v);

/* ---- contention (view_contention.c) ------------------------------------ */
/* Shows the contention table, computed the first time; VIEW_REDRAW. */
int view_cont_show(struct view *v);
void view_draw_cont(struct view *v, int top, int height);
void view_cont_move(struct view *v, int64_t delta);
/* By time lost, or by imbalance. */
int view_cont_sort(struct view *v);
/* The signature under the cursor, TREE_NONE when empty. */
uint32_t view_cont_selected(const struct view *v);
void view_cont_free(struct view *v);

/* ---- the timeline (view_timeline.c) ------------------------------------ */
/* Shows the timeline, made the first time (a walk of every rank's timed
 * calls for the run's span), its highlight taken from the selection of
 * the pane it is opened from: a call's signature, or every signature
 * under a rule.  Without per-call times, a message and no pane.  The
 * keys' functions return VIEW_REDRAW (0: nothing to redraw) and report
 * on the status line. */
int view_timeline_show(struct view *v);
void view_draw_timeline(struct view *v, int top, int height);
/* Moves the cursor by buckets and rows (clamped); past the window's
 * edge, the window pans. */
void view_timeline_move(struct view *v, int64_t dx, int64_t dy);
/* Buckets of about half or twice the time (round spans), the cursor on
 * its column; pans by half windows (negative: back); the whole run. */
int view_timeline_zoom_in(struct view *v);
int view_timeline_zoom_out(struct view *v);
int view_timeline_pan(struct view *v, int halves);
int view_timeline_whole(struct view *v);
/* Into the block of ranks under the cursor; out again (0 when not in
 * one). */
int view_timeline_ranks_in(struct view *v);
int view_timeline_ranks_out(struct view *v);
/* The status line: the cursor's ranks, its bucket's times in seconds,
 * the share in MPI and the functions with most of it ("" before the
 * first draw). */
void view_timeline_status(const struct view *v, char *buf, size_t size);
void view_timeline_free(struct view *v);

/* ---- text (view_text.c) -------------------------------------------------- */
/* "1 234 567", "12.3k", "4.56M" in at most width columns. */
void view_count(char *buf, size_t size, uint64_t n);
/* "850 ns", "12.3 us", "4.56 ms", "1.23 s" ("us" or the micro sign). */
void view_duration(char *buf, size_t size, double ns, int utf8);
/* "12.3%" of a share in [0, 1]. */
void view_percent(char *buf, size_t size, double share);
/* Writes text at (y, x) in at most width columns with attribute attr,
 * cutting it with an ellipsis when it is longer; returns the columns
 * used.  UTF-8 text is measured by display width. */
int view_put(struct view *v, int y, int x, int width, int attr,
	     const char *text);
/* The same, right-aligned in the width. */
int view_put_right(struct view *v, int y, int x, int width, int attr,
		   const char *text);
/* Clears columns x .. x+width-1 of line y with attribute attr. */
void view_fill(int y, int x, int width, int attr);
/* Sets the status line's message (error: drawn as one). */
void view_message(struct view *v, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- input (cmd_view.c) -------------------------------------------------- */
/* Reads a line on the status line after `prompt`, with the text in
 * buf as the start; 1 when entered, 0 when cancelled (Escape). */
int view_prompt(struct view *v, const char *prompt, char *buf, size_t size);

#endif /* RONDO_VIEW_H */
