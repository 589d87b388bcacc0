/*
 * cmd_view.c - `rondo view FILE`: the interactive explorer.  The terminal's
 * life (curses set up, restored on every way out, signals included), the
 * key table that dispatches every key and writes the help screen, and the
 * main loop; the panes draw themselves (view_tree.c, view_sigs.c,
 * view_matrix.c, view_contention.c, view_timeline.c).
 */
#include "config.h"

#include <curses.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sat.h"
#include "stats.h"
#include "view.h"
#include "util.h"

#ifndef THEMEDIR
#define THEMEDIR "/usr/local/share/rondo/themes"
#endif

/* Rows added at most by expanding everything under a node. */
#define EXPAND_ALL_ROWS 20000

/* The shipped themes, in the order the theme key cycles through them. */
static const char *const shipped[] = {"default", "light", "mono"};
#define NSHIPPED 3

/* ---- the terminal's life ----------------------------------------------------- */

static volatile sig_atomic_t curses_on;

static void restore_terminal(void)
{
	if (curses_on) {
		curses_on = 0;
		endwin();
	}
}

/* Any fatal signal: the terminal back as it was, then the signal's own
 * end, so the exit status says what happened. */
static void on_signal(int sig)
{
	restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				   SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGPIPE};

	for (size_t i = 0; i < COUNTOF(sigs); i++)
		signal(sigs[i], on_signal);
	atexit(restore_terminal);
}

static void start_curses(struct view *v, int want_color)
{
	initscr();
	curses_on = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	v->color = want_color && has_colors();
	if (v->color) {
		start_color();
		use_default_colors();
	}
	theme_apply(&v->theme, v->color ? COLORS : 0, v->color);
	view_matrix_colors(v);
	bkgdset(' ' | theme_attr(THEME_NORMAL));
}

/* ---- what the keys do ----------------------------------------------------------- */

static uint32_t cur_node(const struct view *v)
{
	return tree_row_node(v->tree, v->cur);
}

static void pane_move(struct view *v, int64_t delta)
{
	if (v->pane == VIEW_SIGS)
		view_sigs_move(v, delta);
	else if (v->pane == VIEW_MATRIX)
		view_matrix_move(v, 0, delta);
	else if (v->pane == VIEW_CONT)
		view_cont_move(v, delta);
	else if (v->pane == VIEW_TIMELINE)
		view_timeline_move(v, 0, delta);
	else if (v->pane == VIEW_HELP)
		v->help_top = (uint32_t)((int64_t)v->help_top + delta < 0
						 ? 0
						 : (int64_t)v->help_top + delta);
	else
		view_tree_move(v, delta);
}

static int page(const struct view *v)
{
	int h = v->pane == VIEW_HELP ? v->lines - 3 : view_main_height(v) - 1;

	return h > 1 ? h - 1 : 1;
}

static int k_up(struct view *v) { pane_move(v, -1); return VIEW_REDRAW; }
static int k_down(struct view *v) { pane_move(v, 1); return VIEW_REDRAW; }
static int k_pgup(struct view *v) { pane_move(v, -page(v)); return VIEW_REDRAW; }
static int k_pgdn(struct view *v) { pane_move(v, page(v)); return VIEW_REDRAW; }
static int k_top(struct view *v) { pane_move(v, -(int64_t)UINT32_MAX); return VIEW_REDRAW; }
static int k_bottom(struct view *v) { pane_move(v, UINT32_MAX); return VIEW_REDRAW; }

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
	uint32_t sig = v->pane == VIEW_CONT ? view_cont_selected(v)
					    : view_sigs_selected(v), n;

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
			  tree_rows(v->tree) + EXPAND_ALL_ROWS) == RONDO_E_NOMEM)
		nomem(v);
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
			     (long long)found, found == 1 ? "" : "s", v->search);
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

static int k_next(struct view *v) { return step_match(v, 1); }
static int k_prev(struct view *v) { return step_match(v, -1); }

/* Tab: the tree, the signatures, the matrix, contention, round again
 * (a pane that cannot be made is passed over, its reason shown). */
static int k_pane(struct view *v)
{
	enum view_pane from = v->pane;

	if (from == VIEW_TREE)
		v->pane = VIEW_SIGS;
	if (from == VIEW_SIGS)
		view_matrix_show(v);
	if (from == VIEW_MATRIX || (from == VIEW_SIGS && v->pane == from))
		view_cont_show(v);
	if (v->pane == from)
		v->pane = VIEW_TREE;
	return VIEW_REDRAW;
}

static int k_matrix(struct view *v) { return view_matrix_show(v); }
static int k_cont(struct view *v) { return view_cont_show(v); }
static int k_cont_sort(struct view *v) { return view_cont_sort(v); }
static int k_left(struct view *v) { view_matrix_move(v, -1, 0); return VIEW_REDRAW; }
static int k_right(struct view *v) { view_matrix_move(v, 1, 0); return VIEW_REDRAW; }
static int k_zoom_in(struct view *v) { return view_matrix_zoom_in(v); }
static int k_bytes(struct view *v) { return view_matrix_bytes(v); }
static int k_coll(struct view *v) { return view_matrix_collectives(v); }

/* Out of a block of ranks zoomed into, in the matrix or the timeline;
 * 0 when not in one. */
static int zoom_out(struct view *v)
{
	return v->pane == VIEW_TIMELINE ? view_timeline_ranks_out(v)
					: view_matrix_zoom_out(v);
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

static int k_timeline(struct view *v) { return view_timeline_show(v); }
static int k_tl_left(struct view *v) { view_timeline_move(v, -1, 0); return VIEW_REDRAW; }
static int k_tl_right(struct view *v) { view_timeline_move(v, 1, 0); return VIEW_REDRAW; }
static int k_tl_in(struct view *v) { return view_timeline_zoom_in(v); }
static int k_tl_out(struct view *v) { return view_timeline_zoom_out(v); }
static int k_tl_back(struct view *v) { return view_timeline_pan(v, -1); }
static int k_tl_on(struct view *v) { return view_timeline_pan(v, 1); }
static int k_tl_whole(struct view *v) { return view_timeline_whole(v); }
static int k_tl_ranks_in(struct view *v) { return view_timeline_ranks_in(v); }

static int k_matrix_function(struct view *v)
{
	char text[64];

	snprintf(text, sizeof(text), "%s", view_matrix_function_text(v));
	if (view_prompt(v, "count the function (empty: all): ", text,
			sizeof(text)))
		view_matrix_function(v, text);
	return VIEW_REDRAW;
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
	if (view_prompt(v, "export the matrix to: ", path, sizeof(path)))
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

/* Loads theme spec; "default" found nowhere is the built-in one, which
 * is the same.  0, or -1 with the reason in err. */
static int load_theme(struct view *v, const char *spec, char *err,
		      size_t size)
{
	int rc = theme_load(&v->theme, spec, v->theme_dirs, v->ntheme_dirs,
			    err, size);

	if (rc == 0)
		return 0;
	if (rc == THEME_E_NOT_FOUND && !strcmp(spec, "default")) {
		theme_default(&v->theme);
		return 0;
	}
	return -1;
}

static int k_theme(struct view *v)
{
	char err[512];
	int next = (v->theme_index + 1) % NSHIPPED;

	if (load_theme(v, shipped[next], err, sizeof(err)) < 0) {
		view_message(v, 1, "%s", err);
		return VIEW_REDRAW;
	}
	v->theme_index = next;
	theme_apply(&v->theme, v->color ? COLORS : 0, v->color);
	view_matrix_colors(v);
	bkgdset(' ' | theme_attr(THEME_NORMAL));
	view_message(v, 0, "theme %s", shipped[next]);
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

static int k_redraw(struct view *v)
{
	(void)v;
	clearok(curscr, TRUE);
	return VIEW_REDRAW;
}

#define TREE (1u << VIEW_TREE)
#define SIGS (1u << VIEW_SIGS)
#define MATRIX (1u << VIEW_MATRIX)
#define CONT (1u << VIEW_CONT)
#define TIMELINE (1u << VIEW_TIMELINE)
#define HELP (1u << VIEW_HELP)
#define MAIN (TREE | SIGS | MATRIX | CONT | TIMELINE)
#define ALL (MAIN | HELP)
#define CTRL(c) ((c) & 0x1f)

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
    {{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT}, "Enter l Right", "open", TREE,
     k_open},
    {{KEY_ENTER, '\r', '\n', 'l', KEY_RIGHT}, "Enter l Right",
     "go to the signature's first call in the tree", SIGS | CONT, k_go_to},
    {{'h', KEY_LEFT, KEY_BACKSPACE, 127}, "h Left Backspace",
     "close, or go to the parent", TREE, k_parent},
    {{' '}, "Space", "open or close", TREE, k_toggle},
    {{'+'}, "+", "open one level", TREE, k_open},
    {{'-'}, "-", "close", TREE, k_collapse},
    {{'*'}, "*", "open everything under the selection", TREE, k_expand_all},
    {{'/'}, "/", "search calls: function names and parameters", TREE | SIGS,
     k_search},
    {{'n'}, "n", "next match, in tree order", TREE | SIGS, k_next},
    {{'N'}, "N", "previous match", TREE | SIGS, k_prev},
    {{'\t'}, "Tab", "next pane: tree, signatures, matrix, contention", MAIN,
     k_pane},
    {{'m'}, "m", "the communication matrix, a heat map", TREE | SIGS | CONT,
     k_matrix},
    {{'w'}, "w", "contention: time lost against the fastest call",
     TREE | SIGS | MATRIX, k_cont},
    {{'s'}, "s", "sort the signatures: total, count, mean, max", SIGS, k_sort},
    {{'f'}, "f", "filter the signatures by function name", SIGS, k_filter},
    {{'s'}, "s", "sort by time lost or by imbalance", CONT, k_cont_sort},
    {{KEY_LEFT, 'h'}, "Left h", "move left", MATRIX, k_left},
    {{KEY_RIGHT, 'l'}, "Right l", "move right", MATRIX, k_right},
    {{KEY_ENTER, '\r', '\n', '+'}, "Enter +",
     "zoom into the block of ranks under the cursor", MATRIX, k_zoom_in},
    {{KEY_BACKSPACE, 127, CTRL('h'), '-'}, "Backspace -", "zoom out", MATRIX,
     k_zoom_out},
    {{27}, "Esc", "zoom out; when not zoomed in, back to the tree", MATRIX,
     k_esc},
    {{'b'}, "b", "messages or bytes", MATRIX, k_bytes},
    {{'c'}, "c", "collectives counted or not", MATRIX, k_coll},
    {{'f'}, "f", "count one function alone", MATRIX, k_matrix_function},
    {{'x'}, "x", "export the matrix, as filtered, to CSV", MATRIX, k_export},
    {{'T'}, "T", "the timeline: each rank's share of time in MPI over the "
     "run; the selected call highlighted", TREE | SIGS | MATRIX | CONT,
     k_timeline},
    {{KEY_LEFT, 'h'}, "Left h", "move left; past the edge, the window "
     "follows", TIMELINE, k_tl_left},
    {{KEY_RIGHT, 'l'}, "Right l", "move right; past the edge, the window "
     "follows", TIMELINE, k_tl_right},
    {{'+', 'i'}, "+ i", "zoom in: buckets about halved, at the cursor",
     TIMELINE, k_tl_in},
    {{'-', 'o'}, "- o", "zoom out: buckets about doubled", TIMELINE, k_tl_out},
    {{'<', ','}, "< ,", "pan back half a window", TIMELINE, k_tl_back},
    {{'>', '.'}, "> .", "pan on half a window", TIMELINE, k_tl_on},
    {{'0'}, "0", "the whole run", TIMELINE, k_tl_whole},
    {{KEY_ENTER, '\r', '\n'}, "Enter",
     "into the block of ranks under the cursor", TIMELINE, k_tl_ranks_in},
    {{KEY_BACKSPACE, 127, CTRL('h')}, "Backspace", "out of the block of "
     "ranks", TIMELINE, k_zoom_out},
    {{27}, "Esc", "out of a block of ranks; when in none, back to the tree",
     TIMELINE, k_esc},
    {{'t'}, "t", "next theme: default, light, mono", ALL, k_theme},
    {{'?', KEY_F(1)}, "? F1", "this help", MAIN, k_help},
    {{'q', 27}, "q Esc", "close the pane; quit from the tree", ALL, k_quit},
    {{CTRL('l')}, "Ctrl-L", "redraw the screen", ALL, k_redraw},
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

/* ---- drawing -------------------------------------------------------------------- */

/* "(tree, signatures) ": the panes a key works in, none when it works
 * in all. */
static const char *pane_names(unsigned panes, char *buf, size_t size)
{
	static const char *const name[] = {"tree", "signatures", "matrix",
					   "contention", "timeline"};
	size_t at = 0;

	buf[0] = '\0';
	if ((panes & MAIN) == MAIN)
		return buf;
	for (int p = VIEW_TREE; p <= VIEW_TIMELINE && at < size; p++)
		if (panes & (1u << p))
			at += (size_t)snprintf(buf + at, size - at, "%s%s",
					       at ? ", " : "(", name[p]);
	if (at && at < size)
		snprintf(buf + at, size - at, ") ");
	return buf;
}

static void draw_help(struct view *v)
{
	int y = 2, title = theme_attr(THEME_TITLE);
	char line[256], names[64];

	view_fill(2, 0, v->cols, title);
	view_put(v, 2, 0, v->cols, title, " keys (q to go back)");
	for (size_t i = v->help_top; i < NBINDINGS && y + 1 < v->lines - 1; i++) {
		y++;
		view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
		view_put(v, y, 2, 18, theme_attr(THEME_CALL), bindings[i].keys);
		snprintf(line, sizeof(line), "%s%s",
			 pane_names(bindings[i].panes, names, sizeof(names)),
			 bindings[i].what);
		view_put(v, y, 21, v->cols - 22, theme_attr(THEME_NORMAL), line);
	}
	while (++y < v->lines - 1)
		view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
}

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
	if (v->pane == VIEW_HELP)
		snprintf(line, sizeof(line), "q back  t theme  Up/Down scroll");
	else if (v->pane == VIEW_SIGS)
		snprintf(line, sizeof(line), "%u/%u  Enter go to  s sort  f filter  "
			 "Tab matrix  ? help  q back", v->nsig_order ? v->sig_cur + 1 : 0,
			 v->nsig_order);
	else if (v->pane == VIEW_MATRIX)
		snprintf(line, sizeof(line), "Enter zoom in  Backspace out  "
			 "b bytes  c collectives  f function  x export  ? help  "
			 "q back");
	else if (v->pane == VIEW_CONT)
		snprintf(line, sizeof(line), "Enter go to  s sort  Tab tree  "
			 "? help  q back");
	else if (v->pane == VIEW_TIMELINE)
		view_timeline_status(v, line, sizeof(line));
	else
		snprintf(line, sizeof(line), "%u/%u  Enter open  / search  n next  "
			 "Tab signatures  ? help  q quit", v->cur + 1,
			 tree_rows(v->tree));
	view_put(v, y, 1, v->cols - 2, attr, line);
}

static void draw_too_small(struct view *v)
{
	char line[128];

	erase();
	snprintf(line, sizeof(line), "terminal too small: %dx%d, rondo view "
		 "needs %dx%d", v->cols, v->lines, VIEW_MIN_COLS, VIEW_MIN_LINES);
	view_put(v, v->lines / 2, 0, v->cols, theme_attr(THEME_ERROR), line);
	refresh();
}

static void draw(struct view *v)
{
	int main_h;

	getmaxyx(stdscr, v->lines, v->cols);
	if (v->lines < VIEW_MIN_LINES || v->cols < VIEW_MIN_COLS) {
		draw_too_small(v);
		return;
	}
	erase();
	view_draw_header(v);
	if (v->pane == VIEW_HELP) {
		draw_help(v);
	} else if (v->pane == VIEW_MATRIX) {
		view_draw_matrix(v, 2, v->lines - 3);
	} else if (v->pane == VIEW_CONT) {
		view_draw_cont(v, 2, v->lines - 3);
	} else if (v->pane == VIEW_TIMELINE) {
		view_draw_timeline(v, 2, v->lines - 3);
	} else {
		main_h = view_main_height(v);
		if (v->pane == VIEW_SIGS)
			view_draw_sigs(v, 2, main_h);
		else
			view_draw_tree(v, 2, main_h);
		view_draw_detail(v, 2 + main_h, VIEW_DETAIL_LINES);
	}
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

/* ---- the command ----------------------------------------------------------------- */

static void view_usage(FILE *f)
{
	fprintf(f, "usage: rondo view [--theme NAME|FILE] [--color=WHEN] [--ascii] FILE\n\n"
		   "Explores a trace: the rank groups and their calls as a tree\n"
		   "whose loops open to their body once, statistics of the\n"
		   "selected call, a table of signatures, search.  Keys: ? in\n"
		   "the explorer.\n\n"
		   "  --theme NAME|FILE  a theme: default, light, mono, or a\n"
		   "                     YAML file (rondo-theme(5))\n"
		   "  --color=WHEN       auto (default), always or never; NO_COLOR\n"
		   "                     set in the environment means never\n"
		   "  --ascii            no UTF-8 marks, whatever the locale\n");
}

/* Where themes are looked for: the user's, RONDO_THEMES_DIR (a source
 * tree's themes/, for running uninstalled), the installed ones. */
static int theme_dirs(char dirs[3][4096])
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *extra = getenv("RONDO_THEMES_DIR");
	int n = 0;

	if (xdg && *xdg)
		snprintf(dirs[n++], 4096, "%s/rondo/themes", xdg);
	else if (home && *home)
		snprintf(dirs[n++], 4096, "%s/.config/rondo/themes", home);
	if (extra && *extra)
		snprintf(dirs[n++], 4096, "%s", extra);
	snprintf(dirs[n++], 4096, "%s", THEMEDIR);
	return n;
}

struct options {
	const char *theme;
	int color; /* -1 auto, 0 never, 1 always */
	int ascii;
};

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
	    {"theme", required_argument, 0, 'T'},
	    {"color", required_argument, 0, 'C'},
	    {"colour", required_argument, 0, 'C'},
	    {"ascii", no_argument, 0, 'A'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0}};
	int c;

	*o = (struct options){NULL, -1, 0};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'T': o->theme = optarg; break;
		case 'A': o->ascii = 1; break;
		case 'C':
			if (!strcmp(optarg, "never"))
				o->color = 0;
			else if (!strcmp(optarg, "always"))
				o->color = 1;
			else if (!strcmp(optarg, "auto"))
				o->color = -1;
			else
				return cli_usage_error("view ", "--color takes "
						       "auto, always or never");
			break;
		case 'h': view_usage(stdout); return -CLI_EXIT_OK - 100;
		default: return cli_usage_error("view ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("view ", "view takes one FILE");
	return 0;
}

static int view_setup(struct view *v, const struct options *o,
		      const char *const *dirs, int ndirs)
{
	char err[512];

	v->tree = tree_create(v->t);
	if (!v->tree) {
		cli_error("out of memory");
		return -1;
	}
	v->theme_dirs = dirs;
	v->ntheme_dirs = ndirs;
	v->theme_index = 0;
	v->ranks_sig = TREE_NONE;
	if (load_theme(v, o->theme ? o->theme : "default", err,
		       sizeof(err)) < 0) {
		/* the default theme then; the reason on the status line */
		view_message(v, 1, "default theme used: %s", err);
		theme_default(&v->theme);
	}
	for (int i = 0; i < NSHIPPED; i++)
		if (o->theme && !strcmp(o->theme, shipped[i]))
			v->theme_index = i;
	v->total_ns = tree_total_time(v->tree);
	v->run_s = (double)an_run_ns(v->t) / 1e9;
	for (uint32_t r = 0; r < rondo_rank_count(v->t); r++)
		v->calls = sat_add(v->calls, rondo_rank_calls(v->t, r));
	if (view_sigs_update(v) < 0) {
		cli_error("out of memory");
		return -1;
	}
	/* one group: shown open */
	if (rondo_group_count(v->t) == 1)
		tree_open(v->tree, tree_row_node(v->tree, 0));
	return 0;
}

int cmd_view(int argc, char **argv)
{
	struct options o;
	struct view v;
	char dirs[3][4096];
	const char *dirp[3];
	int ndirs, rc, want_color, quit = 0;
	const char *no_color = getenv("NO_COLOR");

	rc = parse(argc, argv, &o);
	if (rc == -CLI_EXIT_OK - 100)
		return CLI_EXIT_OK;
	if (rc)
		return rc;
	memset(&v, 0, sizeof(v));
	v.path = argv[optind];
	v.t = cli_open(v.path);
	if (!v.t) /* 1, as every command for a file it cannot read */
		return CLI_EXIT_FAIL;
	ndirs = theme_dirs(dirs);
	for (int i = 0; i < ndirs; i++)
		dirp[i] = dirs[i];
	setlocale(LC_ALL, "");
	v.utf8 = !o.ascii && !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (view_setup(&v, &o, dirp, ndirs) < 0) {
		tree_free(v.tree);
		rondo_trace_free(v.t);
		return CLI_EXIT_FAIL;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("view needs a terminal (rondo info and rondo dump "
			  "print to a pipe)");
		tree_free(v.tree);
		rondo_trace_free(v.t);
		free(v.sig_order);
		return CLI_EXIT_FAIL;
	}
	want_color = o.color == 1 || (o.color == -1 && !(no_color && *no_color));
	catch_signals();
	start_curses(&v, want_color);
	while (!quit) {
		int c;

		draw(&v);
		c = getch();
		if (c == KEY_RESIZE || c == ERR)
			continue;
		v.message[0] = '\0';
		quit = dispatch(&v, c) & VIEW_QUIT;
	}
	restore_terminal();
	view_matrix_free(&v);
	view_cont_free(&v);
	view_timeline_free(&v);
	tree_free(v.tree);
	rondo_trace_free(v.t);
	free(v.sig_order);
	return CLI_EXIT_OK;
}
