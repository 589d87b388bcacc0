/*
 * view_gdiff.c - the comparison of two rank groups in `rondo view`: why
 * are ranks 1 and 2 in different groups?  = in the tree marks the
 * selection's group, = on a row of another group shows where their calls
 * differ (analyses/gdiff.c, the twin of `rondo diff --groups`): each
 * stretch that differs, where it is, and what each side calls there as
 * its first rank made the calls; Enter goes to that call in the tree.
 * The pane's operations: view_gdiff_ops.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdiff.h"
#include "view.h"

/* A line of the pane: a stretch's place (side -1), or symbol k of side
 * `side` of it. */
struct gd_row {
	uint32_t hunk;
	int side;
	uint32_t k;
};

struct view_gdiff {
	uint32_t mark; /* the group marked, TREE_NONE */
	struct an_gdiff d;
	int made;	  /* d holds a comparison */
	uint32_t rank[2]; /* each side's first rank */
	char name[2][128];
	struct gd_row *rows;
	uint32_t n, cur, top;
};

static void gd_clear(struct view_gdiff *gd)
{
	if (gd->made)
		an_gdiff_free(&gd->d);
	gd->made = 0;
	free(gd->rows);
	gd->rows = NULL;
	gd->n = gd->cur = gd->top = 0;
}

static void gdiff_free(struct view *v)
{
	if (v->gdiff)
		gd_clear(v->gdiff);
	free(v->gdiff);
	v->gdiff = NULL;
}

/* The lines: each stretch's place, then its sides' symbols. */
static int gd_rows(struct view_gdiff *gd)
{
	uint32_t n = 0;

	for (uint32_t h = 0; h < gd->d.n; h++)
		n += 1 + gd->d.hunk[h].nsym[0] + gd->d.hunk[h].nsym[1];
	gd->rows = malloc(sizeof(*gd->rows) * ((size_t)n + 1));
	if (!gd->rows)
		return -1;
	for (uint32_t h = 0; h < gd->d.n; h++) {
		gd->rows[gd->n++] = (struct gd_row){h, -1, 0};
		for (int s = 0; s < 2; s++)
			for (uint32_t k = 0; k < gd->d.hunk[h].nsym[s]; k++)
				gd->rows[gd->n++] = (struct gd_row){h, s, k};
	}
	return 0;
}

/* Compares group a (marked) with group b and shows the pane. */
static int gd_compare(struct view *v, uint32_t a, uint32_t b)
{
	struct view_gdiff *gd = v->gdiff;
	const uint32_t g[2] = {a, b};
	int rc;

	gd_clear(gd);
	for (int s = 0; s < 2; s++) {
		an_group_name(v->t, g[s], gd->name[s], sizeof(gd->name[s]));
		if (rondo_group_ranks(v->t, g[s], &gd->rank[s], 1) < 1)
			gd->rank[s] = 0;
	}
	rc = an_gdiff(v->t, a, b, &gd->d);
	if (rc < 0 || (gd->made = 1, gd_rows(gd) < 0)) {
		view_message(v, 1, "comparison: %s",
			     rondo_strerror(rc < 0 ? rc : RONDO_E_NOMEM));
		gd_clear(gd);
		return VIEW_REDRAW;
	}
	v->pane = VIEW_GDIFF;
	return VIEW_REDRAW;
}

int view_gdiff_mark(struct view *v)
{
	struct tree_info in;
	char name[128];

	if (tree_info(v->tree, tree_row_node(v->tree, v->cur), &in) < 0)
		return 0;
	if (!v->gdiff) {
		v->gdiff = calloc(1, sizeof(*v->gdiff));
		if (!v->gdiff) {
			view_message(v, 1, "out of memory");
			return VIEW_REDRAW;
		}
		v->gdiff->mark = TREE_NONE;
	}
	if (v->gdiff->mark != TREE_NONE && v->gdiff->mark != in.group)
		return gd_compare(v, v->gdiff->mark, in.group);
	v->gdiff->mark = in.group;
	an_group_name(v->t, in.group, name, sizeof(name));
	view_message(v, 0,
		     "%s marked: = on a row of another group compares "
		     "their calls",
		     name);
	return VIEW_REDRAW;
}

/* The selected line's call in the tree: its side's rank, at the first
 * call of the symbol (of the stretch, on a place's line). */
int view_gdiff_tree(struct view *v)
{
	struct view_gdiff *gd = v->gdiff;
	const struct an_gdiff_hunk *h;
	const struct gd_row *r;
	uint64_t at;
	uint32_t n;
	int s;

	if (!gd || gd->cur >= gd->n)
		return 0;
	r = &gd->rows[gd->cur];
	h = &gd->d.hunk[r->hunk];
	s = r->side < 0 ? (h->nsym[0] ? 0 : 1) : r->side;
	at = h->at[s];
	for (uint32_t k = 0; r->side >= 0 && k < r->k; k++) {
		const rondo_sym *y = &h->sym[s][k];

		at += y->count *
		      (RONDO_SYM_IS_RULE(y->sym)
			       ? rondo_rule_calls(v->t, RONDO_SYM_ID(y->sym))
			       : 1);
	}
	if (!view_rank_shown(v, gd->rank[s])) {
		view_message(v, 1,
			     "rank %" PRIu32 " is not shown: r, then %" PRIu32
			     ", to show it",
			     gd->rank[s], gd->rank[s]);
		return VIEW_REDRAW;
	}
	n = tree_find_call(v->tree, gd->rank[s], at, NULL);
	if (n == TREE_NONE) {
		view_message(v, 1,
			     "call %" PRIu64 " of rank %" PRIu32
			     " is not in the tree",
			     at, gd->rank[s]);
		return VIEW_REDRAW;
	}
	v->pane = VIEW_TREE;
	view_tree_select(v, n);
	return VIEW_REDRAW;
}

/* ---- drawing -------------------------------------------------------------- */

static void draw_line(struct view *v, int y, uint32_t i, int selected)
{
	struct view_gdiff *gd = v->gdiff;
	const struct gd_row *r = &gd->rows[i];
	const struct an_gdiff_hunk *h = &gd->d.hunk[r->hunk];
	int attr = selected	  ? theme_attr(THEME_SELECTED)
		   : r->side < 0  ? theme_attr(THEME_DIM)
		   : r->side == 0 ? theme_attr(THEME_CALL)
				  : theme_attr(THEME_PARAMS);
	char text[1024];

	view_fill(y, 0, v->cols, selected ? attr : theme_attr(THEME_NORMAL));
	if (r->side < 0) {
		snprintf(text, sizeof(text), "%" PRIu32 ". ", r->hunk + 1);
		an_gdiff_where(v->t, h, gd->rank, v->utf8, text + strlen(text),
			       sizeof(text) - strlen(text));
	} else {
		snprintf(text, sizeof(text), "   %c ", r->side ? '>' : '<');
		an_sym_text(v->t, &h->sym[r->side][r->k], gd->rank[r->side],
			    v->utf8, text + 5, sizeof(text) - 5);
	}
	view_put(v, y, 1, v->cols - 2, attr, text);
}

static void gdiff_draw(struct view *v, int top, int height)
{
	struct view_gdiff *gd = v->gdiff;
	int title = theme_attr(THEME_TITLE);
	char text[512];

	for (int k = 0; k < height; k++)
		view_fill(top + k, 0, v->cols, theme_attr(THEME_NORMAL));
	if (!gd || !gd->made || height < 2)
		return;
	view_fill(top, 0, v->cols, title);
	snprintf(text, sizeof(text),
		 "< %s against > %s: %" PRIu32 "%s stretch%s of calls differ%s",
		 gd->name[0], gd->name[1], gd->d.n, gd->d.more ? "+" : "",
		 gd->d.n == 1 ? "" : "es", gd->d.n == 1 ? "s" : "");
	view_put(v, top, 1, v->cols - 2, title, text);
	if (!gd->n) {
		view_put(v, top + 1, 1, v->cols - 2, theme_attr(THEME_DIM),
			 "the same calls under two rules");
		return;
	}
	view_row_in_view(gd->cur, &gd->top, height - 1);
	for (int k = 0; k < height - 1; k++) {
		uint32_t i = gd->top + (uint32_t)k;

		if (i < gd->n)
			draw_line(v, top + 1 + k, i, i == gd->cur);
	}
	view_rows_shown(v, top + 1, height - 1,
			top + 1 + (int)(gd->cur - gd->top));
}

/* ---- the pane's operations ------------------------------------------------ */

static void gdiff_move(struct view *v, int64_t delta)
{
	struct view_gdiff *gd = v->gdiff;

	if (gd && gd->n)
		gd->cur = view_row_moved(gd->cur, delta, gd->n);
}

static void gdiff_status(const struct view *v, char *buf, size_t size)
{
	const struct view_gdiff *gd = v->gdiff;

	snprintf(buf, size,
		 "%" PRIu32 "/%" PRIu32 "  Enter the call in the tree  "
		 "? help  q back",
		 gd && gd->n ? gd->cur + 1 : 0, gd ? gd->n : 0);
}

const struct view_pane_ops view_gdiff_ops = {
	.name = "comparison",
	.tab = 0,
	.draw = gdiff_draw,
	.move_by = gdiff_move,
	.status = gdiff_status,
	.free = gdiff_free,
};
