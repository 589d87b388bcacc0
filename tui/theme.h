/*
 * theme.h - the explorer's colour themes (rondo view): YAML files read with
 * libyaml, and their colours as the terminal can show them.
 *
 * A theme gives each role of the screen (the header, the tree's loops and
 * calls, the selection, search matches...) a style: a foreground and a
 * background colour written #rrggbb, text attributes, and the attributes
 * to use instead of colour on a terminal without it (monochrome).  Colours
 * fall back from #rrggbb to the nearest of the 256-colour palette, then of
 * the 8 basic colours, then to the monochrome attributes.  The format is
 * described in rondo-theme(5) (man/rondo-theme.5).
 *
 * The loading half (theme_load_*, theme_default) uses no curses and is
 * unit-tested on its own; theme_apply and theme_attr need curses started.
 */
#ifndef RONDO_THEME_H
#define RONDO_THEME_H

#include <stddef.h>
#include <stdint.h>

/* The roles, in the order of their names in a theme file (theme_role_name). */
enum theme_role {
	THEME_NORMAL,	 /* text of the panes, and the screen's background */
	THEME_HEADER,	 /* the header lines at the top */
	THEME_TITLE,	 /* a pane's title bar, column headings */
	THEME_STATUS,	 /* the status line at the bottom */
	THEME_SELECTED,	 /* the selected row */
	THEME_GROUP,	 /* a rank group's row in the tree */
	THEME_LOOP,	 /* a loop, "x1000 [ ... ]" */
	THEME_BLOCK,	 /* a sequence of calls that is not a loop, "[ ... ]" */
	THEME_CALL,	 /* a call's function name */
	THEME_PARAMS,	 /* a call's parameters */
	THEME_COUNT,	 /* numbers: calls, counts */
	THEME_TIME,	 /* durations */
	THEME_DIM,	 /* secondary text: fold marks, units, hints */
	THEME_MATCH,	 /* search matches */
	THEME_BAR,	 /* histogram bars */
	THEME_ERROR,	 /* error messages */
	THEME_NROLES
};

/* Text attributes, or'ed. */
enum theme_attr {
	THEME_A_BOLD = 1,
	THEME_A_DIM = 2,
	THEME_A_UNDERLINE = 4,
	THEME_A_REVERSE = 8,
	THEME_A_ITALIC = 16,
};

/* A colour: set 0 means the terminal's default colour. */
struct theme_color {
	int set;
	uint8_t r, g, b;
};

struct theme_style {
	struct theme_color fg, bg;
	unsigned attrs;	     /* with colour */
	unsigned mono_attrs; /* without colour */
};

/* Most colours of a gradient (heat maps of later views). */
#define THEME_MAX_GRADIENT 16

struct theme {
	char name[64];
	struct theme_style style[THEME_NROLES];
	struct theme_color gradient[THEME_MAX_GRADIENT];
	int ngradient;
};

/* The name a role has in a theme file ("normal", "header", ...), or NULL
 * when out of range. */
const char *theme_role_name(int role);

/* The built-in default theme (the same as themes/default.yaml), which
 * needs no file: what rondo falls back to. */
void theme_default(struct theme *t);

/*
 * Reads a theme file.  Roles the file does not name keep the default
 * theme's style.  Returns 0, or -1 with `err` set to one line
 * "file:line:col: what is wrong" (an unknown role, a colour that is not
 * #rrggbb or a known name, an unknown attribute, a YAML syntax error, a
 * file that cannot be read: then "file: <strerror>").  On failure *t holds
 * the default theme.
 */
int theme_load_file(struct theme *t, const char *path, char *err,
		    size_t errlen);

/*
 * Finds a theme by name or path: `spec` containing a '/' or ending in
 * ".yaml" is a file; otherwise NAME.yaml is looked for in each of the
 * `ndirs` directories `dirs` in order (empty or NULL entries are
 * skipped).  Returns as theme_load_file; a name found nowhere gives
 * "theme 'NAME' not found in DIR1, DIR2...".
 */
int theme_load(struct theme *t, const char *spec, const char *const *dirs,
	       int ndirs, char *err, size_t errlen);

/* The nearest colours of the xterm 256-colour palette (16-255: its
 * 6x6x6 cube and 24 greys) and of the 8 basic colours (0-7, as
 * COLOR_BLACK..COLOR_WHITE number them). */
int theme_color_256(struct theme_color c);
int theme_color_8(struct theme_color c);

/* ---- with curses started ----------------------------------------------- */

/*
 * Sets up the colour pairs of every role for a terminal of `colors`
 * colours (curses' COLORS): 256 or more uses theme_color_256, 8 or more
 * theme_color_8; use_color 0 (NO_COLOR, --color=never, or a terminal
 * without colour) uses the monochrome attributes only.  Call after
 * start_color() when colours are used; again after a theme change.
 */
void theme_apply(const struct theme *t, int colors, int use_color);

/* The curses attributes (a colour pair and text attributes) of a role
 * under the theme last applied. */
int theme_attr(enum theme_role role);

#endif /* RONDO_THEME_H */
