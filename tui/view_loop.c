/*
 * view_loop.c - the loop of `rondo view`: the table of the panes'
 * operations, the key table that dispatches every key and writes the help
 * screen (itself a pane), the screen drawn from the pane on screen, the
 * prompt on the status line.  A key's handler says whether the screen
 * changed (VIEW_REDRAW); the loop draws only then, after a resize, and
 * when a message leaves the status line.
 */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view.h"
#include "util.h"

/* Rows added at most by expanding everything under a node. */
#define EXPAND_ALL_ROWS 20000

#define CTRL(c) ((c)&0x1f)

/* ---- the panes ----------------------------------------------------------- */

/* Each pane's operations, by its kind. */
#define PANE_OPS(kind, name) [VIEW_##kind] = &view_##name##_ops,
static const struct view_pane_ops *const pane_ops[VIEW_NPANES] = {
	VIEW_PANES(PANE_OPS)};
#undef PANE_OPS

void view_free_panes(struct view *v)
{
	for (int p = 0; p < VIEW_NPANES; p++)
		if (pane_ops[p]->free)
			pane_ops[p]->free(v);
}

/* ---- what the keys do ---------------------------------------------------- */

static uint32_t cur_node(const struct view *v)
{
	return tree_row_node(v->tree, v->cur);
}

static void pane_move(struct view *v, int64_t delta)
{
	view_ops(v)->move_by(v, delta);
}

static int page(const struct view *v)
{
	const struct view_pane_ops *p = view_ops(v);
	int h = p->page ? p->page(v) : view_main_height(v) - 1;

	return h > 1 ? h - 1 : 1;
}

static int k_up(struct view *v)
{
	pane_move(v, -1);
	return VIEW_REDRAW;
}
static int k_down(struct view *v)
{
	pane_move(v, 1);
	return VIEW_REDRAW;
}
static int k_pgup(struct view *v)
{
	pane_move(v, -page(v));
	return VIEW_REDRAW;
}
static int k_pgdn(struct view *v)
{
	pane_move(v, page(v));
	return VIEW_REDRAW;
}
static int k_top(struct view *v)
{
	pane_move(v, -(int64_t)UINT32_MAX);
	return VIEW_REDRAW;
}
static int k_bottom(struct view *v)
{
	pane_move(v, UINT32_MAX);
	return VIEW_REDRAW;
}

static void nomem(struct view *v)
{
	view_message(v, 1, "out of memory");
}

static int k_open(struct view *v)
{
	if (tree_open(v->tree, cur_node(v)) == RONDO_E_NOMEM)
		nomem(v);
	return VIEW_REDRAW;
}

/* From a table, to the selected signature's first call in the tree. */
static int k_go_to(struct view *v)
{
	const struct view_pane_ops *p = view_ops(v);
	uint32_t sig = p->selected ? p->selected(v) : TREE_NONE, n;

	if (sig == TREE_NONE)
		return 0;
	n = tree_find_sig(v->tree, sig);
	if (n == TREE_NONE) {
		view_message(v, 0, "no rank calls it");
		return VIEW_REDRAW;
	}
	v->pane = VIEW_TREE;
	view_tree_select(v, n);
	return VIEW_REDRAW;
}

static int k_parent(struct view *v)
{
	struct tree_info in;
	uint32_t n = cur_node(v);

	if (v->pane != VIEW_TREE || tree_info(v->tree, n, &in) < 0)
		return 0;
	if (in.open)
		tree_close(v->tree, n);
	else if (in.parent != TREE_NONE)
		view_tree_select(v, in.parent);
	return VIEW_REDRAW;
}

static int k_toggle(struct view *v)
{
	if (tree_toggle(v->tree, cur_node(v)) == RONDO_E_NOMEM)
		nomem(v);
	return VIEW_REDRAW;
}

static int k_collapse(struct view *v)
{
	tree_close(v->tree, cur_node(v));
	return VIEW_REDRAW;
}

static int k_expand_all(struct view *v)
{
	if (tree_open_all(v->tree, cur_node(v),
			  tree_rows(v->tree) + EXPAND_ALL_ROWS) ==
	    RONDO_E_NOMEM)
		nomem(v);
	return VIEW_REDRAW;
}

/* s in the tree: heaviest first within each level, or tree order; the
 * selection stays on its node. */
static int k_tree_sort(struct view *v)
{
	uint32_t n = cur_node(v);
	int by_time = !tree_order(v->tree);

	if (tree_set_order(v->tree, by_time) == RONDO_E_NOMEM)
		nomem(v);
	view_tree_select(v, n);
	view_message(v, 0, "%s",
		     by_time ? "heaviest first in each level"
			     : "in the order of the calls");
	return VIEW_REDRAW;
}

/* H: the heaviest path from the selection, opened down to a call. */
static int k_heaviest(struct view *v)
{
	uint32_t n = tree_heaviest(v->tree, cur_node(v));

	if (n != TREE_NONE)
		view_tree_select(v, n);
	return VIEW_REDRAW;
}

/* To the next match from the selection, in the tree. */
static void go_match(struct view *v, int dir)
{
	uint32_t from = v->pane == VIEW_TREE ? cur_node(v) : TREE_NONE;
	uint32_t n = tree_search_next(v->tree, from, dir);

	if (n == TREE_NONE) {
		view_message(v, 1, "no call matches \"%s\"", v->search);
		return;
	}
	v->pane = VIEW_TREE;
	view_tree_select(v, n);
}

static int k_search(struct view *v)
{
	char text[sizeof(v->search)] = "";
	int64_t found;

	if (!view_prompt(v, "/", text, sizeof(text)))
		return VIEW_REDRAW;
	snprintf(v->search, sizeof(v->search), "%s", text);
	found = tree_search(v->tree, v->search);
	if (found < 0) {
		nomem(v);
		return VIEW_REDRAW;
	}
	if (found == 0 && v->search[0]) {
		view_message(v, 1, "no call matches \"%s\"", v->search);
		return VIEW_REDRAW;
	}
	if (v->search[0]) {
		view_message(v, 0, "%lld signature%s match \"%s\"",
			     (long long)found, found == 1 ? "" : "s",
			     v->search);
		go_match(v, 1);
	}
	return VIEW_REDRAW;
}

static int step_match(struct view *v, int dir)
{
	if (!v->search[0])
		view_message(v, 0, "no search yet: / to search");
	else
		go_match(v, dir);
	return VIEW_REDRAW;
}

static int k_next(struct view *v)
{
	return step_match(v, 1);
}
static int k_prev(struct view *v)
{
	return step_match(v, -1);
}

/* Tab: the next pane of the Tab cycle (the tree, the signatures, the
 * functions, the matrix, contention), round again to the tree (a pane that cannot be
 * made is passed over, its reason shown). */
static int k_pane(struct view *v)
{
	enum view_pane from = v->pane;
	int p = from;

	do {
		p = (p + 1) % VIEW_NPANES;
		if (!pane_ops[p]->tab)
			continue;
		if (pane_ops[p]->show)
			pane_ops[p]->show(v);
		else
			v->pane = (enum view_pane)p;
	} while (v->pane == from && p != VIEW_TREE);
	return VIEW_REDRAW;
}

static int k_left(struct view *v)
{
	view_matrix_move(v, -1, 0);
	return VIEW_REDRAW;
}
static int k_right(struct view *v)
{
	view_matrix_move(v, 1, 0);
	return VIEW_REDRAW;
}

/* Out of a block of ranks zoomed into, in the matrix or the timeline;
 * 0 when not in one. */
static int zoom_out(struct view *v)
{
	const struct view_pane_ops *p = view_ops(v);

	return p->zoom_out ? p->zoom_out(v) : 0;
}

static int k_zoom_out(struct view *v)
{
	if (zoom_out(v))
		return VIEW_REDRAW;
	view_message(v, 0, "not zoomed in");
	return VIEW_REDRAW;
}

/* Esc: out of a zoom, and out of the pane when there is none. */
static int k_esc(struct view *v)
{
	if (!zoom_out(v))
		v->pane = VIEW_TREE;
	return VIEW_REDRAW;
}

static int k_tl_left(struct view *v)
{
	view_timeline_move(v, -1, 0);
	return VIEW_REDRAW;
}
static int k_tl_right(struct view *v)
{
	view_timeline_move(v, 1, 0);
	return VIEW_REDRAW;
}
static int k_tl_back(struct view *v)
{
	return view_timeline_pan(v, -1);
}
static int k_tl_on(struct view *v)
{
	return view_timeline_pan(v, 1);
}

static int k_matrix_function(struct view *v)
{
	char text[64];

	snprintf(text, sizeof(text), "%s", view_matrix_function_text(v));
	if (view_prompt(v, "count the function (empty: all): ", text,
			sizeof(text)))
		view_matrix_function(v, text);
	return VIEW_REDRAW;
}

/* A path typed at a prompt, made ready to write: "~" and "~/..." as in
 * a shell, from $HOME; an existing file written over only when the user
 * says y.  Returns 1 to go on, 0 when not (and says why). */
static int path_ready(struct view *v, char *path, size_t size)
{
	const char *home = getenv("HOME");
	char answer[8] = "", was[1024];
	struct stat st;

	if (path[0] == '~' && (path[1] == '/' || !path[1]) && home && *home) {
		snprintf(was, sizeof(was), "%s", path + 1);
		if (snprintf(path, size, "%s%s", home, was) >= (int)size) {
			view_message(v, 1, "the path is too long");
			return 0;
		}
	}
	if (!path[0]) {
		view_message(v, 1, "no file named: nothing written");
		return 0;
	}
	/* nothing there, or what cannot be written over: the writer says
	 * why */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 1;
	if (view_prompt(v, "the file exists: write over it? (y/n) ", answer,
			sizeof(answer)) &&
	    (answer[0] == 'y' || answer[0] == 'Y'))
		return 1;
	view_message(v, 0, "not written: %s is left as it was", path);
	return 0;
}

/* x: the whole matrix as CSV, by default beside the trace, its .rondo
 * ending replaced: app.rondo, app.matrix.csv. */
static int k_export(struct view *v)
{
	char path[1024];
	size_t len = strlen(v->path);

	if (len > 6 && !strcmp(v->path + len - 6, ".rondo"))
		len -= 6;
	snprintf(path, sizeof(path), "%.*s.matrix.csv", (int)len, v->path);
	if (view_prompt(v, "export the matrix to: ", path, sizeof(path)) &&
	    path_ready(v, path, sizeof(path)))
		view_matrix_export(v, path);
	return VIEW_REDRAW;
}

static int k_sort(struct view *v)
{
	v->sort = (enum view_sort)((v->sort + 1) % SORT_NKEYS);
	if (view_sigs_update(v) < 0)
		nomem(v);
	return VIEW_REDRAW;
}

static int k_filter(struct view *v)
{
	char text[sizeof(v->filter)];

	snprintf(text, sizeof(text), "%s", v->filter);
	if (view_prompt(v, "function: ", text, sizeof(text))) {
		snprintf(v->filter, sizeof(v->filter), "%s", text);
		if (view_sigs_update(v) < 0)
			nomem(v);
	}
	return VIEW_REDRAW;
}

/* The detail pane: as fits the screen, half the screen, hidden. */
static int k_detail(struct view *v)
{
	static const char *const said[] = {
		[VIEW_DETAIL_FIT] = "as fits the screen",
		[VIEW_DETAIL_TALL] = "half the screen",
		[VIEW_DETAIL_HIDDEN] = "hidden; d shows it",
	};

	v->detail = v->detail == VIEW_DETAIL_HIDDEN ? VIEW_DETAIL_FIT
						    : v->detail + 1;
	view_message(v, 0, "detail pane: %s", said[v->detail]);
	return VIEW_REDRAW;
}

static int k_help(struct view *v)
{
	if (v->pane != VIEW_HELP) {
		v->back = v->pane;
		v->pane = VIEW_HELP;
		v->help_top = 0;
	}
	return VIEW_REDRAW;
}

static int k_quit(struct view *v)
{
	if (v->pane == VIEW_HELP)
		v->pane = v->back;
	else if (v->pane != VIEW_TREE)
		v->pane = VIEW_TREE;
	else
		return VIEW_QUIT;
	return VIEW_REDRAW;
}

static int dispatch(struct view *v, int c);

/* The mouse: the wheel moves by three rows; a click picks a table's row,
 * and on the one selected does what Enter does (in the tree, Space:
 * open or close). */
static int k_mouse(struct view *v)
{
	MEVENT ev;

	if (getmouse(&ev) != OK)
		return 0;
	if (ev.bstate & BUTTON4_PRESSED) {
		pane_move(v, -3);
		return VIEW_REDRAW;
	}
	if (ev.bstate & BUTTON5_PRESSED) {
		pane_move(v, 3);
		return VIEW_REDRAW;
	}
	if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) ||
	    v->rows_n <= 0 || v->rows_cur < 0 || ev.y < v->rows_y ||
	    ev.y >= v->rows_y + v->rows_n)
		return 0;
	if (ev.y == v->rows_cur)
		return dispatch(v, v->pane == VIEW_TREE ? ' ' : '\n');
	pane_move(v, ev.y - v->rows_cur);
	return VIEW_REDRAW;
}

static int k_redraw(struct view *v)
{
	(void)v;
	clearok(curscr, TRUE);
	return VIEW_REDRAW;
}

/* The key table's sets of panes: TREE, SIGS ... a pane's bit; ALL of
 * them, MAIN all but help. */
#define PANE_BIT(kind, name) kind = 1u << VIEW_##kind,
enum { VIEW_PANES(PANE_BIT) ALL = (1u << VIEW_NPANES) - 1, MAIN = ALL & ~HELP };
#undef PANE_BIT

/* One table drives both the keys and the help screen.  A key may do one
 * thing in one pane and another elsewhere: the first row for the pane
 * wins. */
static const struct binding {
	int key[5];	  /* curses codes, 0 after the last */
	const char *keys; /* as the help shows them */
	const char *what;
	unsigned panes;
	int (*run)(struct view *v);
} bindings[] = {
	{{KEY_UP, 'k'}, "Up k", "move up", ALL, k_up},
	{{KEY_DOWN, 'j'}, "Down j", "move down", ALL, k_down},
	{{KEY_PPAGE, CTRL('b')}, "PgUp", "a page up", ALL, k_pgup},
	{{KEY_NPAGE, CTRL('f')}, "PgDn", "a page down", ALL, k_pgdn},
	{{'g', KEY_HOME}, "g Home", "to the top", ALL, k_top},
	{{'G', KEY_END}, "G End", "to the bottom", ALL, k_bottom},
	{{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT},
	 "Enter l Right",
	 "open",
	 TREE,
	 k_open},
	{{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT},
	 "Enter l Right",
	 "go to the signature's first call in the tree",
	 SIGS | CONT,
	 k_go_to},
	{{'h', KEY_LEFT, KEY_BACKSPACE, 127},
	 "h Left Backspace",
	 "close, or go to the parent",
	 TREE,
	 k_parent},
	{{' '}, "Space", "open or close", TREE, k_toggle},
	{{'+'}, "+", "open one level", TREE, k_open},
	{{'-'}, "-", "close", TREE, k_collapse},
	{{'*'}, "*", "open everything under the selection", TREE, k_expand_all},
	{{'H'},
	 "H",
	 "open the heaviest path from the selection, down to a call",
	 TREE,
	 k_heaviest},
	{{'s'},
	 "s",
	 "sort: heaviest first in each level, or the calls' order",
	 TREE,
	 k_tree_sort},
	{{'/'},
	 "/",
	 "search calls: function names and parameters",
	 TREE | SIGS,
	 k_search},
	{{'n'}, "n", "next match, in tree order", TREE | SIGS, k_next},
	{{'N'}, "N", "previous match", TREE | SIGS, k_prev},
	{{'\t'},
	 "Tab",
	 "next pane: tree, signatures, functions, matrix, contention",
	 MAIN,
	 k_pane},
	{{'m'},
	 "m",
	 "the communication matrix, a heat map",
	 TREE | SIGS | CONT,
	 view_matrix_show},
	{{'F'},
	 "F",
	 "functions: the time of each MPI function (rondo stats)",
	 TREE | SIGS | MATRIX | CONT,
	 view_funcs_show},
	{{'s'},
	 "s",
	 "sort the functions: total, count, mean, max",
	 FUNCS,
	 view_funcs_sort},
	{{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT},
	 "Enter l Right",
	 "the function's signatures",
	 FUNCS,
	 view_funcs_signatures},
	{{'w'},
	 "w",
	 "contention: the time lost to imbalance",
	 TREE | SIGS | MATRIX,
	 view_cont_show},
	{{'s'},
	 "s",
	 "sort the signatures: total, count, mean, max",
	 SIGS,
	 k_sort},
	{{'f'}, "f", "filter the signatures by function name", SIGS, k_filter},
	{{'s'}, "s", "sort by time lost or by imbalance", CONT, view_cont_sort},
	{{KEY_LEFT, 'h'}, "Left h", "move left", MATRIX, k_left},
	{{KEY_RIGHT, 'l'}, "Right l", "move right", MATRIX, k_right},
	{{KEY_ENTER, '\r', '\n', '+'},
	 "Enter +",
	 "zoom into the block of ranks under the cursor",
	 MATRIX,
	 view_matrix_zoom_in},
	{{KEY_BACKSPACE, 127, CTRL('h'), '-'},
	 "Backspace -",
	 "zoom out",
	 MATRIX,
	 k_zoom_out},
	{{27},
	 "Esc",
	 "zoom out; when not zoomed in, back to the tree",
	 MATRIX,
	 k_esc},
	{{'b'}, "b", "messages or bytes", MATRIX, view_matrix_bytes},
	{{'='},
	 "=",
	 "compare two rank groups: mark the selection's group, then = on "
	 "another",
	 TREE,
	 view_gdiff_mark},
	{{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT},
	 "Enter l Right",
	 "the call in the tree",
	 GDIFF,
	 view_gdiff_tree},
	{{'c'},
	 "c",
	 "collectives counted or not",
	 MATRIX,
	 view_matrix_collectives},
	{{'f'}, "f", "count one function alone", MATRIX, k_matrix_function},
	{{'x'},
	 "x",
	 "export the matrix, as filtered, to CSV",
	 MATRIX,
	 k_export},
	{{'T'},
	 "T",
	 "the timeline: each rank's share of time in MPI over the "
	 "run; the selected call highlighted",
	 TREE | SIGS | MATRIX | CONT,
	 view_timeline_show},
	{{'c'},
	 "c",
	 "calls: one rank's calls in start order, with their times "
	 "(from the tree's selection, the timeline's cursor)",
	 TREE | TIMELINE,
	 view_calls_show},
	{{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT},
	 "Enter l Right",
	 "the call's place in the tree",
	 CALLS,
	 view_calls_tree},
	{{'T'}, "T", "the timeline at the call", CALLS, view_calls_timeline},
	{{'['},
	 "[",
	 "the rank before, at the same time",
	 CALLS,
	 view_calls_prev_rank},
	{{']'},
	 "]",
	 "the rank after, at the same time",
	 CALLS,
	 view_calls_next_rank},
	{{KEY_LEFT, 'h'},
	 "Left h",
	 "move left; past the edge, the window "
	 "follows",
	 TIMELINE,
	 k_tl_left},
	{{KEY_RIGHT, 'l'},
	 "Right l",
	 "move right; past the edge, the window "
	 "follows",
	 TIMELINE,
	 k_tl_right},
	{{'+', 'i'},
	 "+ i",
	 "zoom in: buckets about halved, at the cursor",
	 TIMELINE,
	 view_timeline_zoom_in},
	{{'-', 'o'},
	 "- o",
	 "zoom out: buckets about doubled",
	 TIMELINE,
	 view_timeline_zoom_out},
	{{'<', ','}, "< ,", "pan back half a window", TIMELINE, k_tl_back},
	{{'>', '.'}, "> .", "pan on half a window", TIMELINE, k_tl_on},
	{{'0'}, "0", "the whole run", TIMELINE, view_timeline_whole},
	{{'I'},
	 "I",
	 "MPI_Init shown or hidden (the run from its end, by default)",
	 TIMELINE,
	 view_timeline_init},
	{{'p'},
	 "p",
	 "to the bucket of most MPI time in the window, over all ranks",
	 TIMELINE,
	 view_timeline_peak},
	{{KEY_ENTER, '\r', '\n'},
	 "Enter",
	 "into the block of ranks under the cursor",
	 TIMELINE,
	 view_timeline_ranks_in},
	{{KEY_BACKSPACE, 127, CTRL('h')},
	 "Backspace",
	 "out of the block of "
	 "ranks",
	 TIMELINE,
	 k_zoom_out},
	{{27},
	 "Esc",
	 "out of a block of ranks; when in none, back to the tree",
	 TIMELINE,
	 k_esc},
	{{'y'},
	 "y",
	 "copy the selected call's text to the clipboard (OSC 52)",
	 TREE | SIGS | CONT | CALLS,
	 view_copy},
	{{'d'},
	 "d",
	 "the detail pane: half the screen, hidden, as fits",
	 TREE | SIGS | CONT | CALLS,
	 k_detail},
	{{'r'},
	 "r",
	 "rank filter: only the ranks of a list (7, 0-3,8; empty: all) "
	 "in every pane",
	 MAIN & ~GDIFF,
	 view_ranks_prompt},
	{{'t'}, "t", "next theme: default, light, mono", ALL, view_theme_next},
	{{'?', KEY_F(1)}, "? F1", "this help", MAIN, k_help},
	{{'q', 27}, "q Esc", "close the pane; quit from the tree", ALL, k_quit},
	{{CTRL('l')}, "Ctrl-L", "redraw the screen", ALL, k_redraw},
	{{KEY_MOUSE},
	 "click wheel",
	 "the mouse (not with --no-mouse): a click selects a row, and on "
	 "the selected one opens it; the wheel scrolls",
	 ALL,
	 k_mouse},
};

#define NBINDINGS COUNTOF(bindings)

static int dispatch(struct view *v, int c)
{
	for (size_t i = 0; i < NBINDINGS; i++) {
		if (!(bindings[i].panes & (1u << v->pane)))
			continue;
		for (int k = 0; k < 5 && bindings[i].key[k]; k++)
			if (bindings[i].key[k] == c)
				return bindings[i].run(v);
	}
	return 0;
}

/* ---- the help, a pane drawn from the key table ------------------------- */

/* "(tree, signatures) ": the panes a key works in, none when it works
 * in all. */
static const char *pane_names(unsigned panes, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	if ((panes & MAIN) == MAIN)
		return buf;
	for (int p = 0; p < VIEW_NPANES && at < size; p++)
		if (panes & (1u << p))
			at += (size_t)snprintf(buf + at, size - at, "%s%s",
					       at ? ", " : "(",
					       pane_ops[p]->name);
	if (at && at < size)
		snprintf(buf + at, size - at, ") ");
	return buf;
}

/* The screen but its header and status line. */
static int help_page(const struct view *v)
{
	return v->lines - 3;
}

/* Keys the help shows at once (under its title), and its last top: the
 * help stops at its end. */
static int64_t help_rows(const struct view *v)
{
	int64_t rows = help_page(v) - 1;

	return rows > 0 ? rows : 1;
}

static int64_t help_last_top(const struct view *v)
{
	int64_t n = (int64_t)NBINDINGS;

	return n > help_rows(v) ? n - help_rows(v) : 0;
}

static void help_draw(struct view *v, int top, int height)
{
	int y = top, title = theme_attr(THEME_TITLE);
	char line[256], names[64];

	if (v->help_top > help_last_top(v)) /* a taller screen */
		v->help_top = (uint32_t)help_last_top(v);
	view_fill(top, 0, v->cols, title);
	view_put(v, top, 0, v->cols, title, " keys (q to go back)");
	for (size_t i = v->help_top; i < NBINDINGS && y + 1 < top + height;
	     i++) {
		y++;
		view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
		view_put(v, y, 2, 18, theme_attr(THEME_CALL), bindings[i].keys);
		snprintf(line, sizeof(line), "%s%s",
			 pane_names(bindings[i].panes, names, sizeof(names)),
			 bindings[i].what);
		view_put(v, y, 21, v->cols - 22, theme_attr(THEME_NORMAL),
			 line);
	}
	while (++y < top + height)
		view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
}

static void help_move(struct view *v, int64_t delta)
{
	int64_t at = (int64_t)v->help_top + delta;

	at = at > help_last_top(v) ? help_last_top(v) : at;
	v->help_top = (uint32_t)(at < 0 ? 0 : at);
}

static void help_status(const struct view *v, char *buf, size_t size)
{
	int64_t last = (int64_t)v->help_top + help_rows(v);

	snprintf(buf, size,
		 "keys %u-%lld of %zu  q back  t theme  Up/Down scroll",
		 v->help_top + 1,
		 (long long)(last < (int64_t)NBINDINGS ? last
						       : (int64_t)NBINDINGS),
		 NBINDINGS);
}

const struct view_pane_ops view_help_ops = {
	.name = "help",
	.draw = help_draw,
	.move_by = help_move,
	.status = help_status,
	.page = help_page,
};

/* ---- drawing ------------------------------------------------------------- */

static void draw_status(struct view *v)
{
	int y = v->lines - 1, attr = theme_attr(THEME_STATUS);
	char line[256];

	view_fill(y, 0, v->cols, attr);
	if (v->message[0]) {
		view_put(v, y, 1, v->cols - 2,
			 v->message_is_error ? theme_attr(THEME_ERROR) : attr,
			 v->message);
		return;
	}
	view_ops(v)->status(v, line, sizeof(line));
	view_put(v, y, 1, v->cols - 2, attr, line);
}

static int too_small(const struct view *v)
{
	return v->lines < VIEW_MIN_LINES || v->cols < VIEW_MIN_COLS;
}

/* Short lines, so that the size needed shows on the narrowest screen; keys
 * do nothing meanwhile but q, which quits. */
static void draw_too_small(struct view *v)
{
	char line[3][40];
	int y = v->lines / 2 - 1;

	erase();
	snprintf(line[0], sizeof(line[0]), "terminal too small");
	snprintf(line[1], sizeof(line[1]), "%dx%d, needs %dx%d", v->cols,
		 v->lines, VIEW_MIN_COLS, VIEW_MIN_LINES);
	snprintf(line[2], sizeof(line[2]), "q quits");
	for (int k = 0; k < 3; k++)
		if (y + k >= 0 && y + k < v->lines)
			view_put(v, y + k, 0, v->cols,
				 theme_attr(k < 2 ? THEME_ERROR : THEME_DIM),
				 line[k]);
	refresh();
}

static void draw(struct view *v)
{
	getmaxyx(stdscr, v->lines, v->cols);
	if (too_small(v)) {
		draw_too_small(v);
		return;
	}
	erase();
	v->rows_n = 0; /* until a table says where its rows are */
	view_draw_header(v);
	/* header (2) above, status (1) below */
	view_ops(v)->draw(v, 2, v->lines - 3);
	draw_status(v);
	refresh();
}

int view_prompt(struct view *v, const char *prompt, char *buf, size_t size)
{
	size_t len = strlen(buf);
	char line[512];
	int c;

	curs_set(1);
	for (;;) {
		snprintf(line, sizeof(line), "%s%s", prompt, buf);
		view_fill(v->lines - 1, 0, v->cols, theme_attr(THEME_STATUS));
		view_put(v, v->lines - 1, 0, v->cols, theme_attr(THEME_STATUS),
			 line);
		refresh();
		c = getch();
		if (c == KEY_RESIZE) {
			draw(v);
			continue;
		}
		if (c == 27 || c == CTRL('c') || c == CTRL('g')) {
			curs_set(0);
			return 0;
		}
		if (c == '\n' || c == '\r' || c == KEY_ENTER)
			break;
		if ((c == KEY_BACKSPACE || c == 127 || c == CTRL('h')) && len)
			buf[--len] = '\0';
		else if (c == CTRL('u'))
			buf[len = 0] = '\0';
		else if (c >= 32 && c < 256 && c != 127 && len + 1 < size) {
			buf[len++] = (char)c;
			buf[len] = '\0';
		}
	}
	curs_set(0);
	return 1;
}

/* ---- the loop ------------------------------------------------------------ */

void view_loop(struct view *v)
{
	int redraw = 1, quit = 0;

	v->panes = pane_ops;
	while (!quit) {
		int c, asked, had_message;

		if (redraw)
			draw(v);
		c = getch();
		redraw = c == KEY_RESIZE || c == ERR;
		if (redraw)
			continue;
		if (too_small(v)) { /* nothing acts unseen */
			quit = c == 'q';
			continue;
		}
		/* a key clears the message: the status line is drawn again */
		had_message = v->message[0] != '\0';
		v->message[0] = '\0';
		asked = dispatch(v, c);
		quit = asked & VIEW_QUIT;
		redraw = (asked & VIEW_REDRAW) || had_message || v->message[0];
	}
}
