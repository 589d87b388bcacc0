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

/* The roles: X(THEME_ suffix, name in a theme file), one list for the
 * enum and the names (theme_role_name). */
/* clang-format off */
#define THEME_ROLES(X)                                                         \
	/* text of the panes, and the screen's background */                   \
	X(NORMAL, normal)                                                      \
	X(HEADER, header)       /* the header lines at the top */              \
	X(TITLE, title)         /* a pane's title bar, column headings */      \
	X(STATUS, status)       /* the status line at the bottom */            \
	X(SELECTED, selected)   /* the selected row */                         \
	X(GROUP, group)         /* a rank group's row in the tree */           \
	X(LOOP, loop)           /* a loop, "x1000 [ ... ]" */                  \
	/* a sequence of calls that is not a loop, "[ ... ]" */                \
	X(BLOCK, block)                                                        \
	X(CALL, call)           /* a call's function name */                   \
	X(PARAMS, params)       /* a call's parameters */                      \
	X(COUNT, count)         /* numbers: calls, counts */                   \
	X(TIME, time)           /* durations */                                \
	X(DIM, dim)             /* secondary text: fold marks, units, hints */ \
	X(MATCH, match)         /* search matches */                           \
	X(BAR, bar)             /* histogram bars */                           \
	X(ERROR, error)         /* error messages */
/* clang-format on */

#define THEME_ROLE_ENUM(id, name) THEME_##id,
enum theme_role { THEME_ROLES(THEME_ROLE_ENUM) THEME_NROLES };
#undef THEME_ROLE_ENUM

/* The themes shipped in themes/, in the order the explorer's theme key
 * cycles through them: X(name).  The first is also built in
 * (theme_default).  Makefile.am's dist_themes_DATA installs their files
 * (test_theme checks it and themes/ against this list). */
#define THEME_SHIPPED(X) X(default) X(light) X(mono)

#define THEME_SHIPPED_ONE(name) +1
enum { THEME_NSHIPPED = 0 THEME_SHIPPED(THEME_SHIPPED_ONE) };
#undef THEME_SHIPPED_ONE

/* What theme_load_file and theme_load return when they fail. */
enum theme_status {
	THEME_E_FAILED = -1,	/* cannot be read or used: err says why */
	THEME_E_NOT_FOUND = -2, /* theme_load: a name in none of the dirs */
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

/* The name of the i-th shipped theme ("default", "light", ...), or NULL
 * when out of range. */
const char *theme_shipped(int i);

/* The built-in default theme (the same as themes/default.yaml), which
 * needs no file: what rondo falls back to. */
void theme_default(struct theme *t);

/*
 * Reads a theme file.  Roles the file does not name keep the default
 * theme's style.  Returns 0, or THEME_E_FAILED (-1) with `err` set to
 * one line "file:line:col: what is wrong" (an unknown role, a colour that
 * is not #rrggbb or a known name, an unknown attribute, a YAML syntax
 * error, a file that cannot be read: then "file: <strerror>").  On
 * failure *t holds the default theme.
 */
int theme_load_file(struct theme *t, const char *path, char *err,
		    size_t errlen);

/*
 * Finds a theme by name or path: `spec` containing a '/' or ending in
 * ".yaml" is a file; otherwise NAME.yaml is looked for in each of the
 * `ndirs` directories `dirs` in order (empty or NULL entries are
 * skipped).  Returns as theme_load_file; a name found nowhere returns
 * THEME_E_NOT_FOUND, with "theme 'NAME' not found in DIR1, DIR2...".
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
