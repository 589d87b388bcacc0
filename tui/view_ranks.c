/*
 * view_ranks.c - the rank filter of `rondo view` (`r`): only rank 7, or
 * a list "0-3,8", in every pane.  The tree shows only the groups that
 * hold a rank shown; the signature and contention tables only the
 * signatures those groups call; the timeline a row per rank shown; the
 * matrix only the messages a rank shown sends or receives; the calls
 * pane steps among the ranks shown.  With one rank shown, the tables
 * give that rank's peers, absolute.  The tables' figures stay those of
 * all the ranks that call a signature (the statistics are per
 * signature), and say so.  What each signature's ranks are is
 * found from the grammar (the rules each group's root reaches), never
 * from the calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view.h"

/* Drops the filter: every rank shown (and at the end, frees it). */
void view_ranks_free(struct view *v)
{
	free(v->rank_in);
	free(v->group_in);
	free(v->sig_in);
	v->rank_in = v->group_in = v->sig_in = NULL;
	v->nrank_in = rondo_rank_count(v->t);
	v->one_rank = TREE_NONE;
	v->rank_text[0] = '\0';
}

/* Parses a list "0-3,7,10-20:2" of the trace's ranks into in[] (a byte
 * per rank); 0, or -1 with the reason in err. */
static int ranks_parse(const struct view *v, const char *text, uint8_t *in,
		       char *err, size_t size)
{
	uint32_t nranks = rondo_rank_count(v->t);
	struct util_ranks_run run;
	const char *p = text;
	int rc;

	while ((rc = util_ranks_next(&p, &run)) == 1) {
		if (run.last >= nranks) {
			snprintf(err, size,
				 "rank %u: the trace has ranks 0 to %u",
				 run.last, nranks - 1);
			return -1;
		}
		for (uint64_t r = run.first; r <= run.last; r += run.step)
			in[r] = 1;
	}
	if (rc < 0 || *p) {
		snprintf(err, size,
			 "\"%s\": not a list of ranks (7, or 0-3,8, or "
			 "0-15:4)",
			 text);
		return -1;
	}
	return 0;
}

/* The other panes follow the filter: their rows made again. */
static int ranks_apply(struct view *v)
{
	uint32_t node = tree_row_node(v->tree, v->cur);
	int rc = tree_set_groups(v->tree, v->group_in);

	if (rc == 0 && view_sigs_update(v) < 0)
		rc = RONDO_E_NOMEM;
	/* the selection stays when its group is still shown; else the
	 * heaviest group shown is opened and selected, as at the start */
	v->cur = 0;
	v->top = 0;
	if (tree_node_row(v->tree, node) != TREE_NONE) {
		view_tree_select(v, node);
	} else if ((node = tree_heaviest_group(v->tree)) != TREE_NONE) {
		if (rc == 0)
			rc = tree_open(v->tree, node);
		view_tree_select(v, node);
	}
	if (rc == 0)
		rc = view_cont_filter(v);
	if (rc == 0)
		rc = view_funcs_filter(v);
	if (rc == 0)
		rc = view_timeline_filter(v);
	if (rc == 0)
		rc = view_matrix_filter(v);
	return rc;
}

int view_ranks_set(struct view *v, const char *text)
{
	uint32_t nranks = rondo_rank_count(v->t),
		 ngroups = rondo_group_count(v->t),
		 nsigs = rondo_sig_count(v->t);
	uint8_t *in, *group_in, *sig_in;
	uint32_t shown = 0, one = TREE_NONE;
	char err[160];

	while (*text == ' ')
		text++;
	if (!*text || !strcmp(text, "all")) {
		view_ranks_free(v);
		if (ranks_apply(v) < 0)
			view_message(v, 1, "out of memory");
		else
			view_message(v, 0, "every rank shown");
		return VIEW_REDRAW;
	}
	in = calloc((size_t)nranks + 1, 1);
	group_in = calloc((size_t)ngroups + 1, 1);
	sig_in = calloc((size_t)nsigs + 1, 1);
	if (!in || !group_in || !sig_in) {
		view_message(v, 1, "out of memory");
		goto fail;
	}
	if (ranks_parse(v, text, in, err, sizeof(err)) < 0) {
		view_message(v, 1, "%s", err);
		goto fail;
	}
	for (uint32_t r = 0; r < nranks; r++) {
		uint32_t g = rondo_rank_group(v->t, r);

		if (!in[r])
			continue;
		shown++;
		one = shown == 1 ? r : TREE_NONE;
		if (g < ngroups && !group_in[g]) {
			group_in[g] = 1;
			if (tree_group_sigs(v->tree, g, sig_in) < 0) {
				view_message(v, 1, "out of memory");
				goto fail;
			}
		}
	}
	view_ranks_free(v);
	v->rank_in = in;
	v->group_in = group_in;
	v->sig_in = sig_in;
	v->nrank_in = shown;
	v->one_rank = one;
	snprintf(v->rank_text, sizeof(v->rank_text), "%s", text);
	if (ranks_apply(v) < 0)
		view_message(v, 1, "out of memory");
	else
		view_message(v, 0,
			     "%u rank%s shown: %s (r, then an empty line: all)",
			     shown, shown == 1 ? "" : "s", v->rank_text);
	return VIEW_REDRAW;
fail:
	free(in);
	free(group_in);
	free(sig_in);
	return VIEW_REDRAW;
}

int view_ranks_prompt(struct view *v)
{
	char text[sizeof(v->rank_text)];

	snprintf(text, sizeof(text), "%s", v->rank_text);
	if (!view_prompt(v, "ranks (7, 0-3,8; empty: all): ", text,
			 sizeof(text)))
		return VIEW_REDRAW;
	return view_ranks_set(v, text);
}
