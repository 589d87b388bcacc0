/*
 * view_matrix.c - the communication matrix of `rondo view` as a heat map:
 * a cell per sender (row) and receiver (column), coloured with the
 * theme's gradient on a log scale, or drawn with characters of rising
 * density without colour.  When the ranks do not fit, a cell is a square
 * block of ranks (their sum); Enter zooms into a block, Backspace back.
 *
 * The matrix is computed once per filter (analyses/matrix.c); the blocks
 * of the window on screen are summed again only when the window, the
 * block size or the matrix change, never per redraw.  The pane's
 * operations: view_matrix_ops.
 */
#include <curses.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fileio.h"
#include "matrix.h"
#include "sat.h"
#include "view.h"

/* Levels of the scale: 0 for an empty cell, 1..MX_LEVELS-1 by value. */
#define MX_LEVELS VIEW_LEVELS
/* Without colour, a level's character (the first: an empty cell). */
static const char mx_ramp[MX_LEVELS + 1] = " .:-=+*#%@";
/* The gradient's colour pairs, after the theme's roles'. */
#define MX_PAIR0 (THEME_NROLES + 1)
/* Columns of a cell, at the smallest; a few ranks get larger cells
 * (MX_CELL * s columns and s lines, s up to MX_SCALE). */
#define MX_CELL	 2
#define MX_SCALE 3
/* Zoom levels at most: each divides the ranks by a block of 2 or more. */
#define MX_DEPTH 40
/* Lines under the grid: legend, cell, filters. */
#define MX_FOOT 3

/* Ranks [r0, r1) send to [c0, c1); the cursor is on the cell holding
 * sender sr and receiver dr. */
struct mx_window {
	uint32_t r0, r1, c0, c1;
	uint32_t sr, dr;
};

struct view_matrix {
	struct an_matrix m;
	int bytes;	/* show bytes, not messages */
	int coll;	/* collectives counted */
	char func[64];	/* the function counted alone, "" all */
	char typed[64]; /* as the user typed it */
	struct mx_window zoom[MX_DEPTH];
	int depth;	/* zoom[depth] is on screen */
	uint32_t block; /* ranks a cell side, at the last draw */
	int scale;	/* a cell's lines, at the last draw */
	/* the window's block sums, and what they were summed for */
	uint64_t *gm, *gb;
	uint32_t grows, gcols;
	struct mx_window gwin;
	uint32_t gblock;
	int gvalid;
};

/* Whether the gradient's colour pairs are set up (theme_apply's state is
 * module-wide too). */
static int mx_pairs;

/* ---- colours ------------------------------------------------------------- */

/* The colour of a level: the gradient's first for an empty cell, then
 * its other stops evenly spread over the levels of the values. */
static struct theme_color mx_mix(const struct theme *th, int level)
{
	int from = th->ngradient > 2 && level > 0, n = th->ngradient - from;
	double at, f;
	int i;
	struct theme_color a, b, c = {1, 0, 0, 0};

	at = from ? (double)(level - 1) / (MX_LEVELS - 2) * (n - 1)
		  : (double)level / (MX_LEVELS - 1) * (n - 1);
	i = (int)at;
	if (i >= n - 1)
		return th->gradient[th->ngradient - 1];
	f = at - i;
	a = th->gradient[from + i];
	b = th->gradient[from + i + 1];
	c.r = (uint8_t)lround(a.r + (b.r - a.r) * f);
	c.g = (uint8_t)lround(a.g + (b.g - a.g) * f);
	c.b = (uint8_t)lround(a.b + (b.b - a.b) * f);
	return c;
}

void view_matrix_colors(const struct view *v)
{
	const struct theme *th = &v->theme;

	mx_pairs = 0;
	if (!v->color || th->ngradient < 1 || COLORS < 8 ||
	    COLOR_PAIRS <= MX_PAIR0 + MX_LEVELS)
		return;
	for (int k = 0; k < MX_LEVELS; k++) {
		struct theme_color c = mx_mix(th, k);
		/* the cursor's text: dark on a light cell, light on a dark */
		int light = 299 * c.r + 587 * c.g + 114 * c.b > 128000;
		short bg = (short)(COLORS >= 256 ? theme_color_256(c)
						 : theme_color_8(c));

		if (init_pair((short)(MX_PAIR0 + k),
			      light ? COLOR_BLACK : COLOR_WHITE, bg) != OK)
			return;
	}
	mx_pairs = 1;
}

int view_gradient_pair(int level)
{
	return mx_pairs && level >= 0 && level < MX_LEVELS ? MX_PAIR0 + level
							   : -1;
}

/* Draws a cell of level `level` at (y, x), `scale` lines of MX_CELL *
 * scale columns: coloured blanks, or the level's character; the cursor
 * "[" and "]" on its first line, and the value `num` (NULL: none) there
 * when it fits between them. */
static void mx_cell(int y, int x, int level, int cursor, int scale,
		    const char *num)
{
	int w = MX_CELL * scale;
	char text[MX_CELL * MX_SCALE + 1];
	size_t n = num ? strlen(num) : 0;

	for (int k = 0; k < scale; k++) {
		memset(text, mx_pairs ? ' ' : mx_ramp[level], (size_t)w);
		text[w] = '\0';
		if (k == 0 && n && n + 2 <= (size_t)w) {
			memcpy(text + w - 1 - n, num, n);
			if (n + 3 <= (size_t)w) /* apart from a level's mark */
				text[w - 2 - n] = ' ';
		}
		if (cursor && k == 0) {
			text[0] = '[';
			text[w - 1] = ']';
		}
		if (mx_pairs)
			attrset(COLOR_PAIR(MX_PAIR0 + level) |
				(cursor ? A_BOLD : 0));
		else
			attrset(cursor ? theme_attr(THEME_SELECTED)
				       : theme_attr(level ? THEME_BAR
							  : THEME_NORMAL));
		mvaddstr(y + k, x, text);
	}
	attrset(A_NORMAL);
}

/* ---- numbers ------------------------------------------------------------- */

/* n exactly, thousands apart: "1 234 567". */
static void mx_exact(char *buf, size_t size, uint64_t n)
{
	char digits[24];
	size_t len, at = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%llu",
			       (unsigned long long)n);
	for (size_t i = 0; i < len && at + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[at++] = ' ';
		buf[at++] = digits[i];
	}
	buf[at] = '\0';
}

/* Bytes to three digits: "850 B", "8.19 kB", "410 kB", "1.23 GB". */
static void mx_size(char *buf, size_t size, uint64_t n)
{
	cli_scaled(buf, size, "", (double)n, CLI_UNIT_BYTES);
}

/* A scale's value: a count, or bytes. */
static void mx_value(const struct view_matrix *mx, char *buf, size_t size,
		     uint64_t n)
{
	if (mx->bytes)
		mx_size(buf, size, n);
	else
		view_count(buf, size, n);
}

/* "3" or "30-39": the ranks [a, b). */
static void mx_range(char *buf, size_t size, uint32_t a, uint32_t b)
{
	if (b - a <= 1)
		snprintf(buf, size, "%u", a);
	else
		snprintf(buf, size, "%u-%u", a, b - 1);
}

/* ---- the matrix ---------------------------------------------------------- */

/* Computes the matrix for the filter given; on success it replaces the
 * one shown and the filter is kept, on failure nothing changes and the
 * status line says why. */
static int mx_compute(struct view *v, int coll, const char *func)
{
	struct view_matrix *mx = v->matrix;
	struct an_filter f = {AN_ANY, func[0] ? func : NULL, AN_ANY, coll, 1};
	struct an_matrix m;
	int rc;

	memset(&m, 0, sizeof(m));
	rc = an_matrix(v->t, &f, &m);
	if (rc < 0) {
		an_matrix_free(&m);
		view_message(v, 1, "matrix: %s", rondo_strerror(rc));
		return -1;
	}
	an_matrix_free(&mx->m);
	mx->m = m;
	mx->coll = coll;
	if (func != mx->func)
		snprintf(mx->func, sizeof(mx->func), "%s", func);
	mx->gvalid = 0;
	return 0;
}

static void view_matrix_free(struct view *v)
{
	if (!v->matrix)
		return;
	an_matrix_free(&v->matrix->m);
	free(v->matrix->gm);
	free(v->matrix->gb);
	free(v->matrix);
	v->matrix = NULL;
}

int view_matrix_show(struct view *v)
{
	struct view_matrix *mx = v->matrix;

	if (!mx) {
		mx = calloc(1, sizeof(*mx));
		if (!mx) {
			view_message(v, 1, "out of memory");
			return VIEW_REDRAW;
		}
		v->matrix = mx;
		if (mx_compute(v, 0, "") < 0) {
			view_matrix_free(v);
			return VIEW_REDRAW;
		}
		mx->zoom[0] = (struct mx_window){0, mx->m.n, 0, mx->m.n, 0, 0};
		mx->block = 1;
		mx->scale = 1;
	}
	v->pane = VIEW_MATRIX;
	return VIEW_REDRAW;
}

/* Cells along a side of w ranks, b ranks a cell. */
static uint32_t mx_cells(uint32_t w, uint32_t b)
{
	return (uint32_t)(((uint64_t)w + b - 1) / b);
}

/* Sums the window's blocks, when they are not those of the last draw:
 * time in the window's area; with a rank filter (in: a flag per rank),
 * only the messages a rank shown sends or receives.  0 or -1 (out of
 * memory). */
static int mx_grid(struct view_matrix *mx, uint32_t b, const uint8_t *in)
{
	const struct mx_window *w = &mx->zoom[mx->depth];
	uint32_t rows = mx_cells(w->r1 - w->r0, b);
	uint32_t cols = mx_cells(w->c1 - w->c0, b), n = mx->m.n;
	size_t cells = (size_t)rows * cols;

	if (mx->gvalid && mx->gblock == b && mx->gwin.r0 == w->r0 &&
	    mx->gwin.r1 == w->r1 && mx->gwin.c0 == w->c0 &&
	    mx->gwin.c1 == w->c1)
		return 0;
	free(mx->gm);
	free(mx->gb);
	mx->gm = calloc(cells ? cells : 1, sizeof(uint64_t));
	mx->gb = calloc(cells ? cells : 1, sizeof(uint64_t));
	mx->gvalid = 0;
	if (!mx->gm || !mx->gb)
		return -1;
	for (uint32_t r = w->r0; r < w->r1; r++) {
		const uint64_t *msgs = mx->m.msgs + (size_t)r * n;
		const uint64_t *bytes = mx->m.bytes + (size_t)r * n;
		size_t row = (size_t)((r - w->r0) / b) * cols;

		for (uint32_t c = w->c0; c < w->c1; c++) {
			uint64_t *gm = &mx->gm[row + (c - w->c0) / b],
				 *gb = &mx->gb[row + (c - w->c0) / b];

			if (in && !in[r] && !in[c])
				continue;
			*gm = sat_add(*gm, msgs[c]);
			*gb = sat_add(*gb, bytes[c]);
		}
	}
	mx->grows = rows;
	mx->gcols = cols;
	mx->gwin = *w;
	mx->gblock = b;
	mx->gvalid = 1;
	return 0;
}

/* The smallest of 1, 2, 5, 10, 20, 50... that is at least b: rounder
 * block labels. */
static uint64_t mx_round(uint64_t b)
{
	uint64_t p = 1;

	for (;;) {
		if (b <= p)
			return p;
		if (b <= 2 * p)
			return 2 * p;
		if (b <= 5 * p)
			return 5 * p;
		p *= 10;
	}
}

/* Columns of the row labels: "190-199" when cells are blocks. */
static int mx_label_width(uint32_t n, uint32_t b)
{
	char s[24];
	int d = snprintf(s, sizeof(s), "%u", n ? n - 1 : 0);

	return b > 1 ? 2 * d + 1 : d;
}

/* The layout of the window in a pane of `rows` grid lines and `cols`
 * columns: the block size, the label width and the cells' scale. */
static uint32_t mx_layout(const struct view_matrix *mx, int rows, int cols,
			  int *label, int *scale)
{
	const struct mx_window *w = &mx->zoom[mx->depth];
	uint32_t side =
		w->r1 - w->r0 > w->c1 - w->c0 ? w->r1 - w->r0 : w->c1 - w->c0;
	uint32_t b = 1, cells;
	uint64_t fit;
	int across = 1;

	rows = rows < 1 ? 1 : rows;
	/* the labels widen with blocks: settle in two rounds */
	for (int round = 0; round < 2; round++) {
		*label = mx_label_width(mx->m.n, b);
		across = (cols - *label - 2) / MX_CELL;
		across = across < 1 ? 1 : across;
		fit = mx_round(mx_cells(
			side, (uint32_t)(rows < across ? rows : across)));
		/* a block no larger than the window */
		b = fit > side ? side : (uint32_t)fit;
		if (b == 1)
			break;
	}
	*label = mx_label_width(mx->m.n, b);
	cells = mx_cells(side, b);
	for (*scale = MX_SCALE; *scale > 1; --*scale)
		if (cells * (uint32_t)*scale <= (uint32_t)rows &&
		    cells * (uint32_t)*scale <= (uint32_t)across)
			break;
	return b;
}

/* The level of value x on a log scale from 1 to hi: 0 for nothing, so
 * that values close to each other look alike (15 816 and 15 818 both the
 * top level), however close to each other all are. */
static int mx_level(uint64_t x, uint64_t hi)
{
	int l;

	if (x == 0)
		return 0;
	if (hi <= 1)
		return MX_LEVELS - 1;
	l = 1 + (int)(log((double)x) / log((double)hi) * (MX_LEVELS - 2) + 0.5);
	return l > MX_LEVELS - 1 ? MX_LEVELS - 1 : l < 1 ? 1 : l;
}

/* ---- moving, zooming ----------------------------------------------------- */

static int64_t mx_clamp(int64_t x, int64_t lo, int64_t hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

void view_matrix_move(struct view *v, int64_t dx, int64_t dy)
{
	struct view_matrix *mx = v->matrix;
	struct mx_window *w;
	uint32_t b;
	int64_t cy, cx;

	if (!mx || mx->m.n == 0)
		return;
	w = &mx->zoom[mx->depth];
	b = mx->block;
	cy = mx_clamp((int64_t)(w->sr - w->r0) / b + dy, 0,
		      mx_cells(w->r1 - w->r0, b) - 1);
	cx = mx_clamp((int64_t)(w->dr - w->c0) / b + dx, 0,
		      mx_cells(w->c1 - w->c0, b) - 1);
	w->sr = w->r0 + (uint32_t)cy * b;
	w->dr = w->c0 + (uint32_t)cx * b;
}

/* The ranks of the cursor's cell: [*r0, *r1) to [*c0, *c1). */
static void mx_cursor_cell(const struct view_matrix *mx, uint32_t *r0,
			   uint32_t *r1, uint32_t *c0, uint32_t *c1)
{
	const struct mx_window *w = &mx->zoom[mx->depth];
	uint32_t b = mx->block;

	*r0 = w->r0 + (w->sr - w->r0) / b * b;
	*c0 = w->c0 + (w->dr - w->c0) / b * b;
	*r1 = w->r1 - *r0 > b ? *r0 + b : w->r1;
	*c1 = w->c1 - *c0 > b ? *c0 + b : w->c1;
}

int view_matrix_zoom_in(struct view *v)
{
	struct view_matrix *mx = v->matrix;
	uint32_t r0, r1, c0, c1;

	if (!mx || mx->m.n == 0)
		return 0;
	if (mx->block <= 1 || mx->depth + 1 >= MX_DEPTH) {
		view_message(v, 0,
			     "a cell is one rank to one rank: nothing to "
			     "zoom into");
		return VIEW_REDRAW;
	}
	mx_cursor_cell(mx, &r0, &r1, &c0, &c1);
	mx->zoom[mx->depth + 1] = (struct mx_window){r0, r1, c0, c1, r0, c0};
	mx->depth++;
	return VIEW_REDRAW;
}

static int view_matrix_zoom_out(struct view *v)
{
	struct view_matrix *mx = v->matrix;

	if (!mx || mx->depth == 0)
		return 0;
	mx->depth--;
	return VIEW_REDRAW;
}

/* ---- filters, export ----------------------------------------------------- */

int view_matrix_bytes(struct view *v)
{
	if (v->matrix)
		v->matrix->bytes = !v->matrix->bytes;
	return VIEW_REDRAW;
}

int view_matrix_collectives(struct view *v)
{
	struct view_matrix *mx = v->matrix;

	if (mx && mx_compute(v, !mx->coll, mx->func) == 0)
		view_message(v, 0, "collectives %s",
			     mx->coll ? "counted" : "left out");
	return VIEW_REDRAW;
}

/* The one function of the trace that `text` names: its name whatever the
 * case, or the only one containing it.  NULL, with the reason in why. */
static const char *mx_find_function(const rondo_trace *t, const char *text,
				    char *why, size_t size)
{
	const char *found = NULL, *name;
	uint32_t n = rondo_func_count(t), hits = 0;

	for (uint32_t f = 0; f < n; f++) {
		name = rondo_func_name(t, f);
		if (name && !strcasecmp(name, text))
			return name;
	}
	for (uint32_t f = 0; f < n; f++) {
		name = rondo_func_name(t, f);
		if (name && tree_text_has(name, text) && hits++ == 0)
			found = name;
	}
	if (hits == 1)
		return found;
	if (hits)
		snprintf(why, size,
			 "%u functions have \"%s\": type more of "
			 "the name",
			 hits, text);
	else
		snprintf(why, size, "no function has \"%s\"", text);
	return NULL;
}

int view_matrix_function(struct view *v, const char *text)
{
	struct view_matrix *mx = v->matrix;
	const char *name = "";
	char why[160];

	if (!mx)
		return 0;
	if (text[0] &&
	    !(name = mx_find_function(v->t, text, why, sizeof(why)))) {
		view_message(v, 1, "%s", why);
		return VIEW_REDRAW;
	}
	if (mx_compute(v, mx->coll, name) == 0) {
		snprintf(mx->typed, sizeof(mx->typed), "%s", text);
		if (name[0])
			view_message(v, 0, "counting %s alone", name);
		else
			view_message(v, 0, "counting every function");
	}
	return VIEW_REDRAW;
}

const char *view_matrix_function_text(const struct view *v)
{
	return v->matrix ? v->matrix->typed : "";
}

/* The filters in words: "point-to-point, MPI_Isend", and the ranks
 * shown. */
static void mx_filters(const struct view *v, char *buf, size_t size)
{
	const struct view_matrix *mx = v->matrix;

	snprintf(buf, size, "%s, %s%s%s%s%s",
		 mx->coll ? "point-to-point and "
			    "collectives"
			  : "point-to-point",
		 mx->func[0] ? mx->func : "all functions",
		 mx->func[0] ? " alone" : "",
		 v->rank_in ? ", only to or from rank" : "",
		 !v->rank_in	    ? ""
		 : v->nrank_in != 1 ? "s "
				    : " ",
		 v->rank_in ? v->rank_text : "");
}

int view_matrix_filter(struct view *v)
{
	if (v->matrix)
		v->matrix->gvalid = 0;
	return 0;
}

/* The matrix as the rank filter leaves it, into *out (cells of ranks not
 * shown to ranks not shown made 0); 0 or -1 (out of memory). */
static int mx_shown(const struct view *v, struct an_matrix *out)
{
	const struct an_matrix *m = &v->matrix->m;
	size_t cells = (size_t)m->n * m->n;

	*out = *m;
	out->msgs = malloc(sizeof(uint64_t) * (cells ? cells : 1));
	out->bytes = malloc(sizeof(uint64_t) * (cells ? cells : 1));
	if (!out->msgs || !out->bytes) {
		free(out->msgs);
		free(out->bytes);
		return -1;
	}
	for (uint32_t r = 0; r < m->n; r++)
		for (uint32_t c = 0; c < m->n; c++) {
			size_t i = (size_t)r * m->n + c;
			int in = view_rank_shown(v, r) || view_rank_shown(v, c);

			out->msgs[i] = in ? m->msgs[i] : 0;
			out->bytes[i] = in ? m->bytes[i] : 0;
		}
	return 0;
}

int view_matrix_export(struct view *v, const char *path)
{
	struct view_matrix *mx = v->matrix;
	struct fileio_out o;
	struct an_matrix shown;
	uint64_t cells = 0;
	char what[320], why[256], name[FILEIO_SHORT];
	FILE *f;
	int rc;

	if (!mx)
		return 0;
	fileio_short(name, sizeof(name), path);
	if (fileio_create(&o, path, why, sizeof(why))) {
		view_message(v, 1, "cannot write %s: %s", name, why);
		return VIEW_REDRAW;
	}
	f = fileio_stream(&o);
	if (mx_shown(v, &shown) < 0) {
		fileio_close(&o, 0, why, sizeof(why));
		view_message(v, 1, "out of memory");
		return VIEW_REDRAW;
	}
	rc = f ? an_matrix_csv(&shown, f, 0, 0) : -1;
	for (size_t i = 0; i < (size_t)shown.n * shown.n; i++)
		cells += shown.msgs[i] != 0 || shown.bytes[i] != 0;
	free(shown.msgs);
	free(shown.bytes);
	if (fileio_close(&o, rc == 0, why, sizeof(why)) || rc < 0) {
		view_message(v, 1, "cannot write %s: %s", name,
			     rc < 0 ? "write error" : why);
		return VIEW_REDRAW;
	}
	mx_filters(v, what, sizeof(what));
	view_message(v, 0, "wrote %s: %llu cells (%s)", name,
		     (unsigned long long)cells, what);
	return VIEW_REDRAW;
}

/* ---- drawing ------------------------------------------------------------- */

static void mx_draw_title(struct view *v, int y)
{
	struct view_matrix *mx = v->matrix;
	const struct mx_window *w = &mx->zoom[mx->depth];
	int title = theme_attr(THEME_TITLE);
	const char *to = v->utf8 ? "\xe2\x86\x92" : "->";
	char line[256], rows[32], cols[32];

	char right[128];
	int rw;

	view_fill(y, 0, v->cols, title);
	mx_range(rows, sizeof(rows), w->r0, w->r1);
	mx_range(cols, sizeof(cols), w->c0, w->c1);
	snprintf(right, sizeof(right), "%sranks %s %s %s, %u rank%s a cell ",
		 mx->depth ? "zoomed: " : "", rows, to, cols, mx->block,
		 mx->block == 1 ? "" : "s");
	rw = view_put_right(v, y, 0, v->cols, title, right);
	/* the long title, the short one, or none: never over the right's */
	snprintf(line, sizeof(line),
		 " %s sent, sender (row) to receiver (column)",
		 mx->bytes ? "bytes" : "messages");
	if (view_columns(line) + rw + 1 > v->cols)
		snprintf(line, sizeof(line), " %s, row %s column",
			 mx->bytes ? "bytes" : "messages", to);
	if (view_columns(line) + rw + 1 <= v->cols)
		view_put(v, y, 0, v->cols - rw - 1, title, line);
}

/* The column labels: a column's first rank, every few columns, as
 * often as the longest label leaves room for. */
static void mx_draw_columns(struct view *v, int y, int x0)
{
	struct view_matrix *mx = v->matrix;
	const struct mx_window *w = &mx->zoom[mx->depth];
	int cw = MX_CELL * mx->scale, step;
	char label[16];

	view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
	step = snprintf(label, sizeof(label), "%u",
			w->c0 + (mx->gcols - 1) * mx->block);
	step = (step + 1 + cw - 1) / cw;
	for (uint32_t c = 0; c < mx->gcols; c += (uint32_t)step) {
		int x = x0 + (int)c * cw;
		int len = snprintf(label, sizeof(label), "%u",
				   w->c0 + c * mx->block);

		if (x + len <= v->cols)
			view_put(v, y, x, len, theme_attr(THEME_DIM), label);
	}
}

/* The grid's rows from `first`, on lines y .. y+height-1. */
static void mx_draw_grid(struct view *v, int y, int height, int label,
			 uint32_t first, uint64_t hi)
{
	struct view_matrix *mx = v->matrix;
	const struct mx_window *w = &mx->zoom[mx->depth];
	const uint64_t *g = mx->bytes ? mx->gb : mx->gm;
	uint32_t b = mx->block, cy = (w->sr - w->r0) / b,
		 cx = (w->dr - w->c0) / b;
	int s = mx->scale;
	char text[32];

	for (int k = 0; k < height; k++)
		view_fill(y + k, 0, v->cols, theme_attr(THEME_NORMAL));
	for (int k = 0; (k + 1) * s <= height; k++) {
		uint32_t r = first + (uint32_t)k;
		uint32_t a = w->r0 + r * b;

		if (r >= mx->grows)
			break;
		mx_range(text, sizeof(text), a, w->r1 - a > b ? a + b : w->r1);
		view_put_right(v, y + k * s, 0, label,
			       theme_attr(r == cy ? THEME_SELECTED : THEME_DIM),
			       text);
		for (uint32_t c = 0; c < mx->gcols; c++) {
			uint64_t x = g[(size_t)r * mx->gcols + c];

			if (x)
				cli_scaled(text, sizeof(text), "", (double)x,
					   CLI_UNIT_NONE);
			mx_cell(y + k * s, label + 1 + (int)c * MX_CELL * s,
				mx_level(x, hi), r == cy && c == cx, s,
				x ? text : NULL);
		}
	}
}

/* The scale: the empty cell, then from 1 each level to the highest. */
static void mx_draw_legend(struct view *v, int y, uint64_t hi)
{
	struct view_matrix *mx = v->matrix;
	int x = 1, dim = theme_attr(THEME_DIM);
	char text[64];

	view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
	x += view_put(v, y, x, v->cols - x, dim, "scale: none ");
	mx_cell(y, x, 0, 0, 1, NULL);
	x += MX_CELL + 2;
	if (hi == 0) {
		view_put(v, y, x, v->cols - x, dim, "(nothing sent here)");
		return;
	}
	mx_value(mx, text, sizeof(text), 1);
	x += 1 + view_put(v, y, x, v->cols - x, dim, text);
	/* 1 alone: its level alone */
	for (int k = hi == 1 ? MX_LEVELS - 1 : 1;
	     k < MX_LEVELS && x + MX_CELL < v->cols; k++, x += MX_CELL)
		mx_cell(y, x, k, 0, 1, NULL);
	if (hi > 1) {
		mx_value(mx, text, sizeof(text), hi);
		x += 1 + view_put(v, y, x + 1, v->cols - x - 1, dim, text);
	}
	snprintf(text, sizeof(text), "  %s a cell, log scale from 1",
		 mx->bytes ? "bytes" : "messages");
	view_put(v, y, x, v->cols - x - 1, dim, text);
}

/* The cursor's cell exactly, then the filters and what was not counted. */
static void mx_draw_cell(struct view *v, int y)
{
	struct view_matrix *mx = v->matrix;
	const struct mx_window *w = &mx->zoom[mx->depth];
	const char *to = v->utf8 ? "\xe2\x86\x92" : "->";
	uint32_t r0, r1, c0, c1,
		cell = (w->sr - w->r0) / mx->block * mx->gcols +
		       (w->dr - w->c0) / mx->block;
	char src[32], dst[32], msgs[32], bytes[32], size[32], line[512];
	char what[320];
	int at;

	mx_cursor_cell(mx, &r0, &r1, &c0, &c1);
	mx_range(src, sizeof(src), r0, r1);
	mx_range(dst, sizeof(dst), c0, c1);
	mx_exact(msgs, sizeof(msgs), mx->gm[cell]);
	mx_exact(bytes, sizeof(bytes), mx->gb[cell]);
	mx_size(size, sizeof(size), mx->gb[cell]);
	snprintf(line, sizeof(line),
		 "rank%s %s %s rank%s %s: %s message%s, "
		 "%s bytes (%s)",
		 r1 - r0 > 1 ? "s" : "", src, to, c1 - c0 > 1 ? "s" : "", dst,
		 msgs, mx->gm[cell] == 1 ? "" : "s", bytes, size);
	view_fill(y, 0, v->cols, theme_attr(THEME_NORMAL));
	view_put(v, y, 1, v->cols - 2, theme_attr(THEME_COUNT), line);
	mx_filters(v, what, sizeof(what));
	at = snprintf(line, sizeof(line), "counted: %s", what);
	if (mx->m.unresolved)
		at += snprintf(line + at, sizeof(line) - (size_t)at,
			       "; %llu to peers not resolved",
			       (unsigned long long)mx->m.unresolved);
	if (mx->m.nosize && at < (int)sizeof(line))
		at += snprintf(line + at, sizeof(line) - (size_t)at,
			       "; %llu of unknown size",
			       (unsigned long long)mx->m.nosize);
	if (mx->m.proc_null && at < (int)sizeof(line))
		snprintf(line + at, sizeof(line) - (size_t)at,
			 "; %llu to MPI_PROC_NULL",
			 (unsigned long long)mx->m.proc_null);
	view_fill(y + 1, 0, v->cols, theme_attr(THEME_NORMAL));
	view_put(v, y + 1, 1, v->cols - 2, theme_attr(THEME_DIM), line);
}

/* The largest value of the window. */
static uint64_t mx_top(const struct view_matrix *mx)
{
	const uint64_t *g = mx->bytes ? mx->gb : mx->gm;
	uint64_t hi = 0;

	for (size_t i = 0; i < (size_t)mx->grows * mx->gcols; i++)
		hi = g[i] > hi ? g[i] : hi;
	return hi;
}

static void view_draw_matrix(struct view *v, int top, int height)
{
	struct view_matrix *mx = v->matrix;
	int label, rows = height - 2 - MX_FOOT - 1;
	uint64_t hi;
	uint32_t first = 0, cy;

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols, theme_attr(THEME_NORMAL));
	if (!mx || mx->m.n == 0) {
		view_put(v, top + 1, 1, v->cols - 2, theme_attr(THEME_DIM),
			 mx ? "no ranks" : "no matrix");
		return;
	}
	mx->block = mx_layout(mx, rows, v->cols, &label, &mx->scale);
	view_matrix_move(v, 0, 0); /* the cursor on a cell's first ranks */
	if (mx_grid(mx, mx->block, v->rank_in) < 0) {
		view_put(v, top + 1, 1, v->cols - 2, theme_attr(THEME_ERROR),
			 "out of memory");
		return;
	}
	mx_draw_title(v, top);
	mx_draw_columns(v, top + 1, label + 1);
	/* rows beyond the screen (a tall window): keep the cursor's in view */
	cy = (mx->zoom[mx->depth].sr - mx->zoom[mx->depth].r0) / mx->block;
	if (cy >= (uint32_t)(rows / mx->scale))
		first = cy - (uint32_t)(rows / mx->scale) + 1;
	hi = mx_top(mx);
	mx_draw_grid(v, top + 2, rows, label, first, hi);
	mx_draw_legend(v, top + height - MX_FOOT, hi);
	mx_draw_cell(v, top + height - MX_FOOT + 1);
}

/* ---- the pane's operations ----------------------------------------------- */

static void mx_move_rows(struct view *v, int64_t delta)
{
	view_matrix_move(v, 0, delta);
}

static void mx_status(const struct view *v, char *buf, size_t size)
{
	(void)v;
	snprintf(buf, size,
		 "Enter zoom in  Backspace out  "
		 "b bytes  c collectives  f function  x export  ? help  "
		 "q back");
}

const struct view_pane_ops view_matrix_ops = {
	.name = "matrix",
	.tab = 1,
	.show = view_matrix_show,
	.draw = view_draw_matrix,
	.move_by = mx_move_rows,
	.status = mx_status,
	.zoom_out = view_matrix_zoom_out,
	.free = view_matrix_free,
};
