/*
 * view.h - what the parts of `rondo view` share: the explorer's state, the
 * panes' operations, and the text helpers.
 *
 * The screen, top to bottom: two header lines, the main pane (the tree,
 * or the signature table), the detail pane of the selection, and a status
 * line; the communication matrix, the contention table and the timeline
 * take the main and detail panes' place with their own.  A pane is an
 * object, as htop's Panel class and uftrace's window ops: a table of
 * operations (struct view_pane_ops, one per view_*.c file) that draws it
 * from the state, moves its cursor, writes its status line, and so on;
 * the loop (view_loop.c) calls the one of the pane on screen.  One key
 * table (view_loop.c) dispatches every key and writes the help screen.
 * A new pane is a new file (its operations, its state), a row of
 * VIEW_PANES, its state's pointer in struct view, and its keys' rows in
 * the key table.
 */
#ifndef RONDO_VIEW_H
#define RONDO_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"
#include "theme.h"
#include "tree.h"

/* The smallest screen the explorer draws on; below it, a notice. */
#define VIEW_MIN_COLS  60
#define VIEW_MIN_LINES 16

/* Lines of the detail pane, its title included, at most when it fits the
 * screen (a third of it, 4 lines at least); `d` makes it half the screen,
 * then hides it. */
#define VIEW_DETAIL_LINES 9
#define VIEW_DETAIL_MIN	  4
enum view_detail { VIEW_DETAIL_FIT, VIEW_DETAIL_TALL, VIEW_DETAIL_HIDDEN };

/* The panes: X(KIND, name) makes VIEW_KIND, the pane's bit KIND in the
 * key table, and its row of the table of operations, view_name_ops,
 * defined in its file.  Tab cycles through those with `tab` set, in this
 * order. */
/* clang-format off */
#define VIEW_PANES(X)                                                          \
	X(TREE, tree)                                                          \
	X(SIGS, sigs)                                                          \
	X(FUNCS, funcs)                                                        \
	X(MATRIX, matrix)                                                      \
	X(CONT, cont)                                                          \
	X(TIMELINE, timeline)                                                  \
	X(CALLS, calls)                                                        \
	X(GDIFF, gdiff)                                                        \
	X(HELP, help)
/* clang-format on */

#define VIEW_PANE_KIND(kind, name) VIEW_##kind,
enum view_pane { VIEW_PANES(VIEW_PANE_KIND) VIEW_NPANES };
#undef VIEW_PANE_KIND

struct view_matrix;   /* view_matrix.c */
struct view_cont;     /* view_contention.c */
struct view_funcs;    /* view_funcs.c */
struct view_timeline; /* view_timeline.c */
struct view_calls;    /* view_calls.c */
struct view_gdiff;    /* view_gdiff.c */

/* How the signature table is sorted. */
enum view_sort { SORT_TOTAL, SORT_COUNT, SORT_MEAN, SORT_MAX, SORT_NKEYS };

struct view_pane_ops;

struct view {
	const char *path;
	rondo_trace *t;
	struct tree *tree;
	enum view_pane pane, back; /* back: where help returns */
	/* every pane's operations, by kind: view_loop.c's table, reached
	 * through here (view_ops) so that panes need nothing of the loop */
	const struct view_pane_ops *const *panes;
	int utf8;  /* the terminal shows UTF-8 */
	int color; /* colours in use */
	struct theme theme;
	int theme_index; /* in the cycle of shipped themes, or -1 */
	const char *const *theme_dirs;
	int ntheme_dirs;
	int lines, cols; /* of the screen, at the last draw */

	/* the tree pane */
	uint32_t cur; /* the selected row */
	uint32_t top; /* the first row shown */

	/* the signature table */
	uint32_t *sig_order; /* signatures shown, sorted, filtered */
	uint32_t nsig_order;
	uint32_t sig_cur, sig_top;
	enum view_sort sort;
	char filter[64]; /* function names containing it */

	/* search, and messages on the status line */
	char search[128];
	char message[256];
	int message_is_error;
	uint32_t help_top;

	enum view_detail detail;
	int clip; /* view_put draws on no line from this one down (0: any) */

	/* the mouse: on unless --no-mouse; where the table on screen drew
	 * its rows at the last draw (rows_n 0: none), and its cursor's
	 * line (-1: off screen), for a click to pick one */
	int mouse;
	int rows_y, rows_n, rows_cur;

	/* each signature's one rank, or TREE_NONE when more call it;
	 * VIEW_SIG_UNKNOWN until first asked (view_sig_rank) */
	uint32_t *sig_rank;

	/* the rank filter (view_ranks.c): a flag per rank, per group and
	 * per signature shown, NULL when every one is; how many ranks are
	 * shown, the one rank when only one is (else TREE_NONE), the list
	 * as typed ("" for all) */
	uint8_t *rank_in, *group_in, *sig_in;
	uint32_t nrank_in, one_rank;
	char rank_text[128];
	/* how many ranks call each signature, made when first asked
	 * (view_sig_nranks) */
	uint32_t *sig_nranks;

	/* the detail pane's ranks of a signature, kept between draws */
	uint32_t ranks_sig;
	char ranks_text[160];

	/* made the first time their pane is shown */
	struct view_matrix *matrix;
	struct view_cont *cont;
	struct view_funcs *funcs;
	struct view_timeline *timeline;
	struct view_calls *clist; /* one rank's calls */
	struct view_gdiff *gdiff; /* two groups compared */

	/* the header's figures */
	double total_ns; /* MPI time, all ranks */
	double run_s;	 /* the run's duration, 0 if unknown */
	uint64_t calls;
};

/* What a key handler asks for: VIEW_REDRAW when it changed what the
 * screen shows (the loop draws only then, and after a resize, Ctrl-L, or
 * a key that clears the status line's message), VIEW_QUIT to leave. */
enum { VIEW_REDRAW = 1, VIEW_QUIT = 2 };

/* A pane's operations.  Those that may be NULL say so. */
struct view_pane_ops {
	/* as the help names the panes a key works in */
	const char *name;
	/* in the Tab cycle */
	int tab;
	/* Makes the pane the one on screen, made the first time; when it
	 * cannot be, says why on the status line and leaves the pane as it
	 * was.  VIEW_REDRAW.  NULL when there is nothing to make: the pane
	 * is simply put on screen. */
	int (*show)(struct view *v);
	/* Draws it in lines top .. top+height-1, the status line apart. */
	void (*draw)(struct view *v, int top, int height);
	/* Moves the cursor by delta rows (clamped); not "move", which
	 * curses defines as a macro. */
	void (*move_by)(struct view *v, int64_t delta);
	/* The status line when no message is shown. */
	void (*status)(const struct view *v, char *buf, size_t size);
	/* Lines a page of rows is, one more than a page key moves: NULL
	 * for the tree's. */
	int (*page)(const struct view *v);
	/* A table of signatures: the one under the cursor, TREE_NONE when
	 * empty.  NULL for other panes, the tree's selection standing for
	 * theirs. */
	uint32_t (*selected)(const struct view *v);
	/* The rank whose values that signature is shown with (its peers
	 * absolute).  NULL: the tree's choice (a group of one rank, or the
	 * signature's one rank). */
	uint32_t (*rank)(const struct view *v);
	/* Out of a block of ranks zoomed into: VIEW_REDRAW, 0 when not in
	 * one.  NULL: never zoomed. */
	int (*zoom_out)(struct view *v);
	/* Frees what the pane made (NULL: nothing). */
	void (*free)(struct view *v);
};

#define VIEW_PANE_OPS(kind, name)                                              \
	extern const struct view_pane_ops view_##name##_ops;
VIEW_PANES(VIEW_PANE_OPS)
#undef VIEW_PANE_OPS

/* ---- the loop (view_loop.c) -------------------------------------------- */
/* Runs the explorer on the terminal set up: draws, reads a key, does
 * what it is bound to in the pane on screen, until it asks to quit. */
void view_loop(struct view *v);
/* The operations of the pane on screen. */
static inline const struct view_pane_ops *view_ops(const struct view *v)
{
	return v->panes[v->pane];
}
/* Frees what the panes made, at the end. */
void view_free_panes(struct view *v);
/* Reads a line on the status line after `prompt`, with the text in
 * buf as the start; 1 when entered, 0 when cancelled (Escape). */
int view_prompt(struct view *v, const char *prompt, char *buf, size_t size);

/* ---- the themes (cmd_view.c) ------------------------------------------- */
/* The next shipped theme, applied; the theme key.  VIEW_REDRAW. */
int view_theme_next(struct view *v);

/* ---- the rank filter (view_ranks.c) ------------------------------------ */
/* r: asks for the ranks to show ("7", "0-3,8"; empty: all), then
 * view_ranks_set.  VIEW_REDRAW. */
int view_ranks_prompt(struct view *v);
/* Shows only the ranks of the list in text ("" or "all": every rank) in
 * every pane; a bad list is said on the status line and changes
 * nothing.  VIEW_REDRAW. */
int view_ranks_set(struct view *v, const char *text);
/* Drops the filter (every rank shown) and frees its state: also at the
 * end. */
void view_ranks_free(struct view *v);
/* How many ranks call signature sig (-1: out of memory or range). */
int view_sig_nranks(struct view *v, uint32_t sig);
static inline int view_rank_shown(const struct view *v, uint32_t rank)
{
	return !v->rank_in ||
	       (rank < rondo_rank_count(v->t) && v->rank_in[rank]);
}
static inline int view_sig_shown(const struct view *v, uint32_t sig)
{
	return !v->sig_in || v->sig_in[sig];
}
/* The panes that keep rows of their own follow the filter: contention's
 * signatures, the functions, the timeline's ranks, the matrix's
 * messages; each 0 or
 * RONDO_E_NOMEM (when not made yet, 0). */
int view_cont_filter(struct view *v);
int view_funcs_filter(struct view *v);
int view_timeline_filter(struct view *v);
int view_matrix_filter(struct view *v);

/* ---- the tree and the signatures (view_tree.c, view_sigs.c) ------------ */
void view_draw_header(struct view *v);
/* Draws a pane in lines top .. top+height-1 with draw, and under it the
 * detail pane of the selection (the tree's, the signature table's). */
void view_draw_over_detail(struct view *v, int top, int height,
			   void (*body)(struct view *v, int top, int height));
/* Moves the tree's selection to a node. */
void view_tree_select(struct view *v, uint32_t node);
/* The main pane's height for the current screen. */
int view_main_height(const struct view *v);

/* The one rank that calls signature sig, or TREE_NONE when several (or
 * none) do; its peers then read absolute.  Worked out once a signature. */
#define VIEW_SIG_UNKNOWN (UINT32_MAX - 1)
uint32_t view_sig_rank(struct view *v, uint32_t sig);

/* Puts the selected call's whole text (as the detail pane gives it) on
 * the terminal's clipboard, by OSC 52.  VIEW_REDRAW. */
int view_copy(struct view *v);

/* Lines of the detail pane, its title included: 0 when hidden. */
int view_detail_lines(const struct view *v);
/* Sorts and filters the signature table again; 0 or -1 (out of memory). */
int view_sigs_update(struct view *v);

/* ---- the communication matrix (view_matrix.c) ------------------------ */
/* Shows the matrix pane, computing the matrix the first time; its keys
 * after it.  Each returns VIEW_REDRAW (0: nothing to redraw), and reports
 * what went wrong on the status line. */
int view_matrix_show(struct view *v);
/* Moves the cursor by cells (clamped). */
void view_matrix_move(struct view *v, int64_t dx, int64_t dy);
/* Into the block under the cursor. */
int view_matrix_zoom_in(struct view *v);
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

/* ---- contention (view_contention.c) ------------------------------------ */
/* Shows the contention table, computed the first time; VIEW_REDRAW. */
int view_cont_show(struct view *v);

/* By time lost, or by imbalance. */
int view_cont_sort(struct view *v);

/* ---- the functions pane (view_funcs.c) ----------------------------------- */
/* Shows `rondo stats` as a table (made the first time), or says why it
 * cannot; s sorts by total, count, mean, longest call; Enter shows the
 * selected function's signatures (the signature table filtered by its
 * name).  Each VIEW_REDRAW. */
int view_funcs_show(struct view *v);
int view_funcs_sort(struct view *v);
int view_funcs_signatures(struct view *v);

/* ---- the timeline (view_timeline.c) ------------------------------------ */
/* Shows the timeline, made the first time (a walk of every rank's timed
 * calls for the run's span), its highlight taken from the selection of
 * the pane it is opened from: a call's signature, or every signature
 * under a rule.  Without per-call times, a message and no pane.  The
 * keys' functions return VIEW_REDRAW (0: nothing to redraw) and report
 * on the status line. */
int view_timeline_show(struct view *v);
/* 1 when the trace has per-call times (their base in *base); else 0,
 * and the status line says what they need. */
int view_percall(struct view *v, double *base);
/* Moves the cursor by buckets and rows (clamped); past the window's
 * edge, the window pans. */
void view_timeline_move(struct view *v, int64_t dx, int64_t dy);
/* Buckets of about half or twice the time (round spans), the cursor on
 * its column; pans by half windows (negative: back); the whole run. */
int view_timeline_zoom_in(struct view *v);
int view_timeline_zoom_out(struct view *v);
int view_timeline_pan(struct view *v, int halves);
int view_timeline_whole(struct view *v);
/* MPI_Init shown or hidden (the window starts at its end by default);
 * the cursor to the bucket of most MPI time over the ranks shown. */
int view_timeline_init(struct view *v);
int view_timeline_peak(struct view *v);
/* Into the block of ranks under the cursor. */
int view_timeline_ranks_in(struct view *v);

/* The cursor's rank (the first of its row) and the start of its
 * bucket, in ns since the job's origin; 0, or -1 when the timeline has
 * no cursor yet. */
int view_timeline_cursor(const struct view *v, uint32_t *rank, int64_t *ns);
/* Shows the timeline with its cursor on rank `rank` at time ns (the
 * window moved to hold it, at the zoom it has).  VIEW_REDRAW. */
int view_timeline_goto(struct view *v, uint32_t rank, int64_t ns);

/* ---- one rank's calls (view_calls.c) ------------------------------------- */
/* Shows the calls of a rank in start order with their times (per-call
 * timed traces): from the timeline, the cursor's rank at its time; from
 * the tree, the selection's first call on the first rank of its group.
 * Without per-call times, a message and no pane. */
int view_calls_show(struct view *v);
/* Its keys: the selected call in the tree, on the timeline; the rank
 * before or after, at the selected call's start. */
int view_calls_tree(struct view *v);
int view_calls_timeline(struct view *v);
int view_calls_prev_rank(struct view *v);
int view_calls_next_rank(struct view *v);

/* ---- two rank groups compared (view_gdiff.c) ---------------------------- */
/* = in the tree: marks the selection's group; on a row of another group
 * once one is marked, shows where the two groups' calls differ.  Enter
 * in that pane: the selected line's call in the tree.  VIEW_REDRAW. */
int view_gdiff_mark(struct view *v);
int view_gdiff_tree(struct view *v);

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
/* The columns text takes on the screen. */
int view_columns(const char *text);
/* A table's rows: the row cur moved by delta among n rows (n > 0); the
 * first row shown, from *top, so that cur is among the `lines` shown. */
uint32_t view_row_moved(uint32_t cur, int64_t delta, uint32_t n);
void view_row_in_view(uint32_t cur, uint32_t *top, int lines);
/* A table says where it drew its rows (lines y .. y+n-1) and the line of
 * its cursor's row (-1: not among them), for the mouse. */
void view_rows_shown(struct view *v, int y, int n, int cur_y);
/* Clears columns x .. x+width-1 of line y with attribute attr. */
void view_fill(int y, int x, int width, int attr);
/* Sets the status line's message (error: drawn as one). */
void view_message(struct view *v, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* RONDO_VIEW_H */
