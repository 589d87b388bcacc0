/*
 * cmd_view.c - `rondo view FILE`: the interactive explorer.  Its options,
 * the explorer set up (the trace, the tree, the themes), the terminal's
 * life (curses set up, restored on every way out, signals included); the
 * loop and the keys are view_loop.c's, the panes draw themselves
 * (view_tree.c, view_sigs.c, view_matrix.c, view_contention.c,
 * view_timeline.c).
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

/* The shipped themes (theme.h, THEME_SHIPPED) are the order the theme key
 * cycles through. */

/* ---- the terminal's life ------------------------------------------------- */

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
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP,  SIGQUIT, SIGSEGV,
				   SIGBUS, SIGFPE,  SIGABRT, SIGPIPE};

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
	if (v->mouse) {
		/* presses, not clicks: no wait to tell a click from a drag */
		mouseinterval(0);
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED,
			  NULL);
	}
	theme_apply(&v->theme, v->color ? COLORS : 0, v->color);
	view_matrix_colors(v);
	bkgdset(' ' | theme_attr(THEME_NORMAL));
}

/* ---- the themes ---------------------------------------------------------- */

/* Loads theme spec; "default" found nowhere is the built-in one, which
 * is the same.  0, or -1 with the reason in err. */
static int load_theme(struct view *v, const char *spec, char *err, size_t size)
{
	int rc = theme_load(&v->theme, spec, v->theme_dirs, v->ntheme_dirs, err,
			    size);

	if (rc == 0)
		return 0;
	if (rc == THEME_E_NOT_FOUND && !strcmp(spec, "default")) {
		theme_default(&v->theme);
		return 0;
	}
	return -1;
}

int view_theme_next(struct view *v)
{
	char err[512];
	int next = (v->theme_index + 1) % THEME_NSHIPPED;

	if (load_theme(v, theme_shipped(next), err, sizeof(err)) < 0) {
		view_message(v, 1, "%s", err);
		return VIEW_REDRAW;
	}
	v->theme_index = next;
	theme_apply(&v->theme, v->color ? COLORS : 0, v->color);
	view_matrix_colors(v);
	bkgdset(' ' | theme_attr(THEME_NORMAL));
	view_message(v, 0, "theme %s", theme_shipped(next));
	return VIEW_REDRAW;
}

/* ---- the command --------------------------------------------------------- */

static void view_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo view [--theme NAME|FILE] [--color=WHEN] "
		"[--ascii] [--no-mouse]\n"
		"                  [--ranks LIST] FILE\n\n"
		"Explores a trace: the rank groups and their calls as a tree\n"
		"whose loops open to their body once, statistics of the\n"
		"selected call, a table of signatures, search.  Keys: ? in\n"
		"the explorer.\n\n"
		"  --theme NAME|FILE  a theme: default, light, mono, or a\n"
		"                     YAML file (rondo-theme(5))\n"
		"  --color=WHEN       auto (default), always or never; "
		"NO_COLOR\n"
		"                     set in the environment means never\n"
		"  --ascii            no UTF-8 marks, whatever the locale\n"
		"  --no-mouse         leave the mouse to the terminal (its\n"
		"                     own selection and copy)\n"
		"  --ranks LIST       only these ranks in every pane: 0-3,7\n"
		"                     (the r key)\n");
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
	int no_mouse;
	const char *ranks; /* the rank filter's list, NULL: all */
};

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{"theme", required_argument, 0, 'T'},
		{"color", required_argument, 0, 'C'},
		{"colour", required_argument, 0, 'C'},
		{"ascii", no_argument, 0, 'A'},
		{"no-mouse", no_argument, 0, 'M'},
		{"ranks", required_argument, 0, 'R'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int c;

	struct util_ranks_run *runs;

	*o = (struct options){NULL, -1, 0, 0, NULL};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'T': o->theme = optarg; break;
		case 'A': o->ascii = 1; break;
		case 'M': o->no_mouse = 1; break;
		case 'R':
			if (cli_ranks_parse(optarg, &runs) <= 0) {
				free(runs);
				return cli_usage_error("view ",
						       "--ranks takes a list "
						       "of ranks: 0-3,7");
			}
			free(runs);
			o->ranks = optarg;
			break;
		case 'C':
			if (!strcmp(optarg, "never"))
				o->color = 0;
			else if (!strcmp(optarg, "always"))
				o->color = 1;
			else if (!strcmp(optarg, "auto"))
				o->color = -1;
			else
				return cli_usage_error("view ",
						       "--color takes "
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
	const char *damage = NULL;
	uint32_t g;

	v->tree = tree_create(v->t);
	if (!v->tree) {
		cli_error("out of memory");
		return -1;
	}
	v->theme_dirs = dirs;
	v->ntheme_dirs = ndirs;
	v->theme_index = 0;
	v->ranks_sig = TREE_NONE;
	if (load_theme(v, o->theme ? o->theme : "default", err, sizeof(err)) <
	    0) {
		/* the default theme then; the reason on the status line */
		view_message(v, 1, "default theme used: %s", err);
		theme_default(&v->theme);
	}
	for (int i = 0; i < THEME_NSHIPPED; i++)
		if (o->theme && !strcmp(o->theme, theme_shipped(i)))
			v->theme_index = i;
	v->nrank_in = rondo_rank_count(v->t);
	v->one_rank = TREE_NONE;
	v->total_ns = tree_total_time(v->tree);
	v->run_s = (double)an_run_ns(v->t) / 1e9;
	for (uint32_t r = 0; r < rondo_rank_count(v->t); r++)
		v->calls = sat_add(v->calls, rondo_rank_calls(v->t, r));
	if (view_sigs_update(v) < 0) {
		cli_error("out of memory");
		return -1;
	}
	if (o->ranks) {
		view_ranks_set(v, o->ranks);
		if (v->message_is_error) { /* a rank beyond the job's */
			cli_error("%s: %s", v->path, v->message);
			return -1;
		}
	}
	/* what was lost, the ranks whose calls are first */
	for (uint32_t k = 0; rondo_trace_damage(v->t, k); k++)
		if (!k || !strncmp(rondo_trace_damage(v->t, k),
				   "section 'grammar'", 17))
			damage = rondo_trace_damage(v->t, k);
	if (damage)
		view_message(v, 1, "%s%s", damage,
			     rondo_trace_damage(v->t, 1)
				     ? " (and more: rondo info FILE)"
				     : "");
	if (o->ranks)
		return 0; /* the ranks' heaviest group is open */
	/* the heaviest group shown open, and selected: the first screen
	 * shows calls */
	g = tree_heaviest_group(v->tree);
	if (g != TREE_NONE && tree_open(v->tree, g) == 0) {
		view_tree_select(v, g);
		if (rondo_group_count(v->t) > 1 && !v->message[0])
			view_message(v, 0,
				     "a rank group: ranks that make the same "
				     "calls; the one of most MPI time is open");
	}
	return 0;
}

int cmd_view(int argc, char **argv)
{
	struct options o;
	struct view v;
	char dirs[3][4096];
	const char *dirp[3];
	int ndirs, rc, want_color;
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
	v.mouse = !o.no_mouse;
	if (view_setup(&v, &o, dirp, ndirs) < 0) {
		view_ranks_free(&v);
		free(v.sig_order);
		free(v.sig_rank);
		tree_free(v.tree);
		rondo_trace_free(v.t);
		return CLI_EXIT_FAIL;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_error("view needs a terminal (rondo info and rondo dump "
			  "print to a pipe)");
		view_ranks_free(&v);
		tree_free(v.tree);
		rondo_trace_free(v.t);
		free(v.sig_order);
		free(v.sig_rank);
		return CLI_EXIT_FAIL;
	}
	want_color =
		o.color == 1 || (o.color == -1 && !(no_color && *no_color));
	catch_signals();
	start_curses(&v, want_color);
	view_loop(&v);
	restore_terminal();
	view_free_panes(&v);
	view_ranks_free(&v);
	tree_free(v.tree);
	rondo_trace_free(v.t);
	free(v.sig_order);
	free(v.sig_rank);
	free(v.sig_nranks);
	return CLI_EXIT_OK;
}
