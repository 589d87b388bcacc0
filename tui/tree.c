/*
 * tree.c - the explorer's model (see tree.h).
 *
 * Nodes live in one array, children of a node side by side, made when
 * the node is first opened or searched through.  The rows are an array
 * of node numbers; opening a node splices its visible subtree in after
 * it, closing one takes it out, and each node remembers its row so that
 * both are found without a scan.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gdiff.h"
#include "tree.h"
#include "util.h"

struct node {
	uint8_t kind; /* enum tree_kind */
	uint8_t open; /* children shown when the node is */
	uint8_t made; /* children made */
	uint32_t depth;
	uint32_t id;
	uint64_t count;
	uint32_t parent;
	uint32_t group;
	uint32_t first, nchild; /* children: node[first .. first + nchild) */
	uint32_t row;		/* TREE_NONE when hidden */
	uint64_t runs;		/* times it runs per rank, in all */
};

/* What a search looks for: signatures, and the rules that hold one. */
struct pred {
	uint8_t *sig;
	uint8_t *rule;
};

struct tree {
	const rondo_trace *t;
	struct node *node;
	uint32_t nnodes, ngroups;
	size_t capnodes;
	uint32_t *row;
	uint32_t nrows;
	size_t caprows;
	uint32_t nrules, nsigs;
	double *sig_mean;		/* ns */
	double *rule_time;		/* ns, one expansion */
	double *group_time;		/* ns per rank */
	uint32_t *first_sig, *last_sig; /* of each rule, TREE_NONE if empty */
	double total;
	char **cut;	    /* per group: how its ranks were cut short */
	struct pred search; /* the current search (sig NULL: none) */
	int by_time;	    /* rows heaviest first within each level */
	uint8_t *gshown;    /* a flag per group shown; NULL: all are */
	/* each node's children heaviest first: order[first + k] is the
	 * k-th (a slot per node), and the groups' in gorder */
	uint32_t *order, *gorder;
	size_t caporder;
	uint32_t *stack; /* scratch for walks */
	size_t capstack;
};

/* ---- ranks cut short ------------------------------------------------------ */

/* Each rank's ending in the key "cut" (util_cut_next; NULL: it was not
 * cut short), the first line that names it; NULL when out of memory. */
static const char **cut_by_rank(const rondo_trace *t)
{
	const char *line = rondo_meta_get(t, "cut"), *ranks, *ending;
	uint32_t n = rondo_rank_count(t);
	const char **by = calloc((size_t)n + 1, sizeof(*by));
	struct util_ranks_run r;
	int len;

	while (by && util_cut_next(&line, &ranks, &ending, &len))
		while (util_ranks_next(&ranks, &r) == 1)
			for (uint64_t k = r.first; k <= r.last && k < n;
			     k += r.step)
				by[k] = by[k] ? by[k] : ending;
	return by;
}

/* Appends to buf the ranks ks[0..nk) ("on ranks 2-3", none when they are
 * the whole group) and their ending e: ": E" or "; on rank 5: E". */
static void cut_append(char *buf, size_t size, const uint32_t *ks, uint32_t nk,
		       int whole, const char *e)
{
	size_t at = strlen(buf);

	if (!whole && at < size) {
		snprintf(buf + at, size - at, "%s on rank%s ", at ? ";" : "",
			 nk > 1 ? "s" : "");
		util_put_ranks(buf, size, ks, nk);
		at = strlen(buf);
	}
	if (at < size)
		snprintf(buf + at, size - at, ": %.*s", (int)strcspn(e, "\n"),
			 e);
}

/* The endings e[0..n) of ranks ks[0..n) (NULL: not cut short) appended to
 * buf, each with its ranks, in the order of their first rank, while the
 * text has room; seg is room for n ranks. */
static void cut_endings(char *buf, size_t size, const uint32_t *ks,
			const char **e, uint32_t n, uint32_t *seg)
{
	for (uint32_t i = 0; i < n; i++) {
		const char *one = e[i];
		uint32_t nk = 0;

		if (!one)
			continue;
		if (strlen(buf) + 1 >= size)
			break; /* full: the rest would not show */
		for (uint32_t j = i; j < n; j++)
			if (e[j] == one) {
				seg[nk++] = ks[j];
				e[j] = NULL;
			}
		cut_append(buf, size, seg, nk, nk == n, one);
	}
}

/* What follows "cut short" for group g, by[] the ranks' endings: into
 * buf, empty when none of its ranks was; 0 or -1 (out of memory). */
static int cut_text(const struct tree *tr, const char **by, uint32_t g,
		    char *buf, size_t size)
{
	uint32_t n = rondo_group_size(tr->t, g);
	uint32_t *ks = malloc(sizeof(*ks) * ((size_t)n + 1) * 2);
	const char **e = malloc(sizeof(*e) * ((size_t)n + 1));
	int rc = ks && e ? 0 : -1;

	buf[0] = '\0';
	if (!rc && rondo_group_ranks(tr->t, g, ks, n) == (int64_t)n) {
		for (uint32_t i = 0; i < n; i++)
			e[i] = ks[i] < rondo_rank_count(tr->t) ? by[ks[i]]
							       : NULL;
		cut_endings(buf, size, ks, e, n, ks + n + 1);
	}
	free(e);
	free(ks);
	return rc;
}

/* tr->cut, when the trace says some ranks were cut short. */
static int cut_setup(struct tree *tr)
{
	const char **by;
	char text[512];
	int rc = 0;

	if (!rondo_meta_get(tr->t, "cut"))
		return 0;
	by = cut_by_rank(tr->t);
	tr->cut = calloc((size_t)tr->ngroups + 1, sizeof(*tr->cut));
	for (uint32_t g = 0; by && tr->cut && g < tr->ngroups && !rc; g++) {
		rc = cut_text(tr, by, g, text, sizeof(text));
		if (!rc && text[0] && !(tr->cut[g] = strdup(text)))
			rc = -1;
	}
	rc = by && tr->cut ? rc : -1;
	free(by);
	return rc;
}

/* How group g's ranks were cut short (after "cut short"), or NULL. */
static const char *group_cut(const struct tree *tr, uint32_t g)
{
	return tr->cut && g < tr->ngroups ? tr->cut[g] : NULL;
}

/* ---- figures and order ---------------------------------------------------- */

/* Node n's calls and time per rank, each time it runs. */
static void node_figures(const struct tree *tr, uint32_t n, uint64_t *calls,
			 double *time_ns)
{
	const struct node *d = &tr->node[n];

	*calls = 0;
	*time_ns = 0;
	switch (d->kind) {
	case TREE_GROUP:
		*calls = rondo_rule_calls(tr->t,
					  rondo_group_root(tr->t, d->group));
		*time_ns = tr->group_time[d->group];
		break;
	case TREE_RULE:
		*calls = rondo_rule_calls(tr->t, d->id) * d->count;
		*time_ns = tr->rule_time[d->id] * (double)d->count;
		break;
	case TREE_CUT: break; /* no call */
	default:
		*calls = d->count;
		*time_ns = tr->sig_mean[d->id] * (double)d->count;
	}
}

/* a * b, held at UINT64_MAX */
static uint64_t runs_times(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The weight the rows are sorted by: time over all ranks and runs (calls
 * when no time is known). */
static double node_weight(const struct tree *tr, uint32_t n)
{
	uint64_t calls;
	double time;

	node_figures(tr, n, &calls, &time);
	if (tr->node[n].kind == TREE_GROUP)
		time *= rondo_group_size(tr->t, tr->node[n].group);
	return time > 0 ? time : (double)calls * 1e-9;
}

struct weighed {
	double w;
	uint32_t id;
};

static int heavier(const void *a, const void *b)
{
	const struct weighed *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sorts ids[0..n) heaviest first, ties in tree order; 0 or
 * RONDO_E_NOMEM (ids left as they were). */
static int sort_heaviest(const struct tree *tr, uint32_t *ids, uint32_t n)
{
	struct weighed *w = malloc(sizeof(*w) * ((size_t)n + 1));

	if (!w)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < n; k++)
		w[k] = (struct weighed){node_weight(tr, ids[k]), ids[k]};
	qsort(w, n, sizeof(*w), heavier);
	for (uint32_t k = 0; k < n; k++)
		ids[k] = w[k].id;
	free(w);
	return 0;
}

/* order[] for node n's children, just made. */
static int order_kids(struct tree *tr, uint32_t n)
{
	const struct node *d = &tr->node[n];

	for (uint32_t k = 0; k < d->nchild; k++)
		tr->order[d->first + k] = d->first + k;
	return sort_heaviest(tr, tr->order + d->first, d->nchild);
}

/* ---- set-up -------------------------------------------------------------- */

/* Each rule's first and last call and time, in rule order: a rule refers
 * only to smaller ones. */
static void rules_summary(struct tree *tr)
{
	for (uint32_t r = 0; r < tr->nrules; r++) {
		const rondo_sym *b;
		uint32_t n = 0;
		double time = 0;

		tr->first_sig[r] = tr->last_sig[r] = TREE_NONE;
		if (rondo_rule_body(tr->t, r, &b, &n) < 0)
			continue;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t id = RONDO_SYM_ID(b[k].sym), f, l;

			if (RONDO_SYM_IS_RULE(b[k].sym)) {
				f = tr->first_sig[id];
				l = tr->last_sig[id];
				time += (double)b[k].count * tr->rule_time[id];
			} else {
				f = l = id;
				time += (double)b[k].count * tr->sig_mean[id];
			}
			if (tr->first_sig[r] == TREE_NONE)
				tr->first_sig[r] = f;
			if (l != TREE_NONE)
				tr->last_sig[r] = l;
		}
		tr->rule_time[r] = time;
	}
}

/* A group's mean time in MPI per rank, from the per-rank times when the
 * file has them, else the estimate of its root. */
static double group_time(const struct tree *tr, uint32_t g)
{
	uint32_t n = rondo_group_size(tr->t, g);
	uint32_t *ranks = malloc(sizeof(*ranks) * (n ? n : 1));
	double sum = 0, estimate = tr->rule_time[rondo_group_root(tr->t, g)];
	uint64_t ns;

	if (!ranks || !n ||
	    rondo_group_ranks(tr->t, g, ranks, n) != (int64_t)n) {
		free(ranks);
		return estimate;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (rondo_rank_mpi_time(tr->t, ranks[i], &ns) < 0) {
			free(ranks);
			return estimate; /* no per-rank times in the file */
		}
		sum += (double)ns;
	}
	free(ranks);
	return sum / n;
}

static int tree_setup(struct tree *tr)
{
	rondo_stat st;

	tr->nrules = rondo_rule_count(tr->t);
	tr->nsigs = rondo_sig_count(tr->t);
	tr->ngroups = rondo_group_count(tr->t);
	tr->sig_mean = calloc((size_t)tr->nsigs + 1, sizeof(double));
	tr->rule_time = calloc((size_t)tr->nrules + 1, sizeof(double));
	tr->group_time = calloc((size_t)tr->ngroups + 1, sizeof(double));
	tr->first_sig = calloc((size_t)tr->nrules + 1, sizeof(uint32_t));
	tr->last_sig = calloc((size_t)tr->nrules + 1, sizeof(uint32_t));
	tr->node = calloc((size_t)tr->ngroups + 1, sizeof(*tr->node));
	tr->row = calloc((size_t)tr->ngroups + 1, sizeof(*tr->row));
	if (!tr->sig_mean || !tr->rule_time || !tr->group_time ||
	    !tr->first_sig || !tr->last_sig || !tr->node || !tr->row)
		return -1;
	tr->capnodes = tr->caprows = (size_t)tr->ngroups + 1;
	for (uint32_t s = 0; s < tr->nsigs; s++)
		if (rondo_sig_stat(tr->t, s, &st) == 0 && st.count) {
			tr->sig_mean[s] =
				(double)st.total_ns / (double)st.count;
			tr->total += (double)st.total_ns;
		}
	rules_summary(tr);
	tr->gorder = malloc(sizeof(*tr->gorder) * ((size_t)tr->ngroups + 1));
	if (!tr->gorder)
		return -1;
	for (uint32_t g = 0; g < tr->ngroups; g++) {
		tr->group_time[g] = group_time(tr, g);
		tr->node[g] = (struct node){TREE_GROUP, 0, 0, 0, g, 1,
					    TREE_NONE,	g, 0, 0, g, 1};
		tr->row[g] = g;
		tr->gorder[g] = g;
	}
	tr->nnodes = tr->nrows = tr->ngroups;
	if (sort_heaviest(tr, tr->gorder, tr->ngroups) < 0)
		return -1;
	return cut_setup(tr);
}

struct tree *tree_create(const rondo_trace *t)
{
	struct tree *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->t = t;
	if (tree_setup(tr) < 0) {
		tree_free(tr);
		return NULL;
	}
	return tr;
}

void tree_free(struct tree *tr)
{
	if (!tr)
		return;
	free(tr->node);
	free(tr->row);
	free(tr->sig_mean);
	free(tr->rule_time);
	free(tr->group_time);
	free(tr->first_sig);
	free(tr->last_sig);
	free(tr->search.sig);
	free(tr->search.rule);
	free(tr->stack);
	free(tr->order);
	free(tr->gorder);
	free(tr->gshown);
	for (uint32_t g = 0; tr->cut && g < tr->ngroups; g++)
		free(tr->cut[g]);
	free(tr->cut);
	free(tr);
}

double tree_total_time(const struct tree *tr)
{
	return tr->total;
}

/* ---- nodes --------------------------------------------------------------- */

/* The rule whose body a node's children are, TREE_NONE for a call. */
static uint32_t node_rule(const struct tree *tr, uint32_t n)
{
	const struct node *d = &tr->node[n];

	if (d->kind == TREE_GROUP)
		return rondo_group_root(tr->t, d->id);
	return d->kind == TREE_RULE ? d->id : TREE_NONE;
}

/* Whether node n has no children: a call, or where ranks were cut short. */
static int node_leaf(const struct tree *tr, uint32_t n)
{
	return tr->node[n].kind == TREE_CALL || tr->node[n].kind == TREE_CUT;
}

/* The k-th child of node n as the rows show them. */
static uint32_t kid(const struct tree *tr, uint32_t n, uint32_t k)
{
	uint32_t at = tr->node[n].first + k;

	return tr->by_time ? tr->order[at] : at;
}

/* Makes node n's children, once: its rule's symbols, then for a group
 * whose ranks were cut short, where they stop.  0 or RONDO_E_NOMEM. */
static int node_make(struct tree *tr, uint32_t n)
{
	uint32_t rule = node_rule(tr, n), len = 0, at = tr->nnodes, cut;
	const rondo_sym *b = NULL;
	struct node *kids;

	if (tr->node[n].made || rule == TREE_NONE)
		return 0;
	if (rondo_rule_body(tr->t, rule, &b, &len) < 0)
		len = 0;
	cut = tr->node[n].kind == TREE_GROUP && group_cut(tr, tr->node[n].id);
	if ((uint64_t)len + cut > UINT32_MAX - 1 - tr->nnodes ||
	    util_grow(&tr->node, &tr->capnodes, (size_t)at + len + cut,
		      sizeof(*tr->node)) < 0 ||
	    util_grow(&tr->order, &tr->caporder, (size_t)at + len + cut,
		      sizeof(*tr->order)) < 0)
		return RONDO_E_NOMEM;
	kids = tr->node + at;
	for (uint32_t k = 0; k < len; k++)
		kids[k] = (struct node){RONDO_SYM_IS_RULE(b[k].sym) ? TREE_RULE
								    : TREE_CALL,
					0,
					0,
					tr->node[n].depth + 1,
					RONDO_SYM_ID(b[k].sym),
					b[k].count,
					n,
					tr->node[n].group,
					0,
					0,
					TREE_NONE};
	if (cut)
		kids[len++] = (struct node){TREE_CUT,
					    0,
					    0,
					    tr->node[n].depth + 1,
					    tr->node[n].id,
					    1,
					    n,
					    tr->node[n].group,
					    0,
					    0,
					    TREE_NONE};
	for (uint32_t k = 0; k < len; k++)
		kids[k].runs = runs_times(tr->node[n].runs, tr->node[n].count);
	tr->node[n].first = at;
	tr->node[n].nchild = len;
	tr->node[n].made = 1;
	tr->nnodes += len;
	return order_kids(tr, n);
}

int tree_info(const struct tree *tr, uint32_t n, struct tree_info *out)
{
	const struct node *d;
	uint32_t g;

	if (!tr || n >= tr->nnodes)
		return RONDO_E_RANGE;
	d = &tr->node[n];
	g = d->group;
	*out = (struct tree_info){(enum tree_kind)d->kind,
				  d->id,
				  d->count,
				  d->depth,
				  d->parent,
				  g,
				  d->open,
				  0,
				  0,
				  rondo_group_size(tr->t, g),
				  d->runs,
				  0,
				  0};
	node_figures(tr, n, &out->calls, &out->time_ns);
	out->calls_all = runs_times(out->calls, d->runs);
	out->time_all_ns = out->time_ns * (double)d->runs;
	return 0;
}

/* ---- rows ---------------------------------------------------------------- */

uint32_t tree_rows(const struct tree *tr)
{
	return tr->nrows;
}

uint32_t tree_row_node(const struct tree *tr, uint32_t row)
{
	return row < tr->nrows ? tr->row[row] : TREE_NONE;
}

uint32_t tree_node_row(const struct tree *tr, uint32_t n)
{
	return n < tr->nnodes ? tr->node[n].row : TREE_NONE;
}

/* Appends the nodes shown under open node n, in order, to tr->stack
 * (from index *len): its children, and theirs when open. */
static int visible_under(struct tree *tr, uint32_t n, size_t *len)
{
	/* a walk with the pending nodes in reverse order at the end of a
	 * second stack, so that deep grammars need no recursion */
	uint32_t *todo = NULL;
	size_t ntodo = 0, captodo = 0;
	int rc = 0;

	for (uint32_t k = tr->node[n].nchild; k-- > 0;) {
		if (util_grow(&todo, &captodo, ntodo + 1, sizeof(*todo)) < 0) {
			free(todo);
			return RONDO_E_NOMEM;
		}
		todo[ntodo++] = kid(tr, n, k);
	}
	while (ntodo && !rc) {
		uint32_t c = todo[--ntodo];
		const struct node *d = &tr->node[c];

		if (util_grow(&tr->stack, &tr->capstack, *len + 1,
			      sizeof(*tr->stack)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		tr->stack[(*len)++] = c;
		if (!d->open || !d->made)
			continue;
		for (uint32_t k = d->nchild; k-- > 0 && !rc;) {
			if (util_grow(&todo, &captodo, ntodo + 1,
				      sizeof(*todo)) < 0)
				rc = RONDO_E_NOMEM;
			else
				todo[ntodo++] = kid(tr, c, k);
		}
	}
	free(todo);
	return rc;
}

/* Renumbers the rows' nodes from row `from` on. */
static void rows_renumber(struct tree *tr, uint32_t from)
{
	for (uint32_t r = from; r < tr->nrows; r++)
		tr->node[tr->row[r]].row = r;
}

/* Shows what is under visible node n, which was closed. */
static int rows_insert(struct tree *tr, uint32_t n)
{
	uint32_t at = tr->node[n].row + 1;
	size_t k = 0;
	int rc = visible_under(tr, n, &k);

	if (rc)
		return rc;
	if (k > UINT32_MAX - tr->nrows ||
	    util_grow(&tr->row, &tr->caprows, tr->nrows + k, sizeof(*tr->row)) <
		    0)
		return RONDO_E_NOMEM;
	memmove(tr->row + at + k, tr->row + at,
		sizeof(*tr->row) * (tr->nrows - at));
	memcpy(tr->row + at, tr->stack, sizeof(*tr->row) * k);
	tr->nrows += (uint32_t)k;
	rows_renumber(tr, at);
	return 0;
}

/* Hides what is under visible node n: the rows after it, deeper. */
static void rows_remove(struct tree *tr, uint32_t n)
{
	uint32_t at = tr->node[n].row + 1, end = at;

	while (end < tr->nrows &&
	       tr->node[tr->row[end]].depth > tr->node[n].depth)
		tr->node[tr->row[end++]].row = TREE_NONE;
	memmove(tr->row + at, tr->row + end,
		sizeof(*tr->row) * (tr->nrows - end));
	tr->nrows -= end - at;
	rows_renumber(tr, at);
}

/* ---- folding ------------------------------------------------------------- */

int tree_open(struct tree *tr, uint32_t n)
{
	struct node *d;
	int rc;

	if (n >= tr->nnodes)
		return RONDO_E_RANGE;
	d = &tr->node[n];
	if (node_leaf(tr, n) || d->open)
		return 0;
	rc = node_make(tr, n);
	if (rc)
		return rc;
	d = &tr->node[n]; /* node_make may move the array */
	d->open = 1;
	if (d->row != TREE_NONE && (rc = rows_insert(tr, n)) != 0)
		tr->node[n].open = 0;
	return rc;
}

void tree_close(struct tree *tr, uint32_t n)
{
	if (n >= tr->nnodes || !tr->node[n].open)
		return;
	if (tr->node[n].row != TREE_NONE)
		rows_remove(tr, n);
	tr->node[n].open = 0;
}

int tree_toggle(struct tree *tr, uint32_t n)
{
	if (n < tr->nnodes && tr->node[n].open) {
		tree_close(tr, n);
		return 0;
	}
	return tree_open(tr, n);
}

int tree_open_all(struct tree *tr, uint32_t n, uint32_t max_rows)
{
	uint32_t *todo = NULL, shown = tr->nrows;
	size_t ntodo = 0, captodo = 0;
	int rc = 0, was_visible;

	if (n >= tr->nnodes)
		return RONDO_E_RANGE;
	/* set the flags beneath first, then splice once */
	was_visible = tr->node[n].row != TREE_NONE;
	tree_close(tr, n);
	if (util_grow(&todo, &captodo, 1, sizeof(*todo)) < 0)
		return RONDO_E_NOMEM;
	todo[ntodo++] = n;
	while (ntodo && !rc) {
		uint32_t c = todo[--ntodo];

		if (node_leaf(tr, c) || shown >= max_rows)
			continue;
		if ((rc = node_make(tr, c)) != 0)
			break;
		tr->node[c].open = 1;
		shown += tr->node[c].nchild;
		if (util_grow(&todo, &captodo, ntodo + tr->node[c].nchild,
			      sizeof(*todo)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		for (uint32_t k = tr->node[c].nchild; k-- > 0;)
			todo[ntodo++] = kid(tr, c, k);
	}
	free(todo);
	if (was_visible && tr->node[n].open && (rc = rows_insert(tr, n)) != 0)
		tr->node[n].open = 0;
	return rc;
}

int tree_set_order(struct tree *tr, int by_time)
{
	size_t len = 0;
	int rc = 0;

	tr->by_time = by_time != 0;
	for (uint32_t n = 0; n < tr->nnodes; n++)
		tr->node[n].row = TREE_NONE;
	for (uint32_t i = 0; i < tr->ngroups && !rc; i++) {
		uint32_t g = tr->by_time ? tr->gorder[i] : i;

		if (!tree_group_shown(tr, g))
			continue;
		if (util_grow(&tr->stack, &tr->capstack, len + 1,
			      sizeof(*tr->stack)) < 0)
			rc = RONDO_E_NOMEM;
		else
			tr->stack[len++] = g;
		if (!rc && tr->node[g].open && tr->node[g].made)
			rc = visible_under(tr, g, &len);
	}
	if (!rc && (len > UINT32_MAX || util_grow(&tr->row, &tr->caprows, len,
						  sizeof(*tr->row)) < 0))
		rc = RONDO_E_NOMEM;
	if (rc) { /* the groups alone, closed, still show (the rows have
		     room for every group from the start) */
		len = 0;
		for (uint32_t i = 0; i < tr->ngroups; i++) {
			uint32_t g = tr->by_time ? tr->gorder[i] : i;

			tr->node[g].open = 0;
			if (tree_group_shown(tr, g))
				tr->row[len++] = g;
		}
	} else {
		memcpy(tr->row, tr->stack, sizeof(*tr->row) * len);
	}
	tr->nrows = (uint32_t)len;
	rows_renumber(tr, 0);
	return rc;
}

int tree_order(const struct tree *tr)
{
	return tr->by_time;
}

int tree_set_groups(struct tree *tr, const uint8_t *shown)
{
	if (!shown) {
		free(tr->gshown);
		tr->gshown = NULL;
	} else {
		if (!tr->gshown &&
		    !(tr->gshown = malloc((size_t)tr->ngroups + 1)))
			return RONDO_E_NOMEM;
		memcpy(tr->gshown, shown, tr->ngroups);
	}
	return tree_set_order(tr, tr->by_time);
}

int tree_group_shown(const struct tree *tr, uint32_t g)
{
	return g < tr->ngroups && (!tr->gshown || tr->gshown[g]);
}

uint32_t tree_heaviest_group(const struct tree *tr)
{
	for (uint32_t i = 0; i < tr->ngroups; i++)
		if (tree_group_shown(tr, tr->gorder[i]))
			return tr->gorder[i];
	return TREE_NONE;
}

uint32_t tree_heaviest(struct tree *tr, uint32_t n)
{
	if (n >= tr->nnodes)
		return TREE_NONE;
	while (!node_leaf(tr, n)) {
		const struct node *d;
		uint32_t best = TREE_NONE;
		double most = -1;

		if (tree_open(tr, n) < 0)
			break;
		d = &tr->node[n];
		for (uint32_t k = 0; k < d->nchild; k++) {
			uint32_t c = d->first + k;
			double w = node_weight(tr, c);

			if (tr->node[c].kind != TREE_CUT && w > most) {
				most = w;
				best = c;
			}
		}
		if (best == TREE_NONE)
			break;
		n = best;
	}
	return n;
}

/* ---- labels -------------------------------------------------------------- */

/* snprintf's return, as an int whatever happens. */
static int put(char *buf, size_t size, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int put(char *buf, size_t size, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(at < size ? buf + at : NULL, at < size ? size - at : 0,
		      fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n;
}

int tree_sig_text(const struct tree *tr, uint32_t sig, uint32_t rank,
		  int inputs_only, char *buf, size_t size)
{
	char *text, *arrow;
	int n = rank == TREE_NONE
			? rondo_sig_format(tr->t, sig, NULL, 0)
			: rondo_sig_format_rank(tr->t, sig, rank, NULL, 0);

	if (n < 0)
		return n;
	text = malloc((size_t)n + 1);
	if (!text)
		return RONDO_E_NOMEM;
	if (rank == TREE_NONE)
		rondo_sig_format(tr->t, sig, text, (size_t)n + 1);
	else
		rondo_sig_format_rank(tr->t, sig, rank, text, (size_t)n + 1);
	arrow = inputs_only ? strstr(text, " -> ") : NULL;
	if (inputs_only && !arrow)
		arrow = strstr(text, "-> "); /* outputs alone: "(-> x)" */
	if (arrow)
		strcpy(arrow, ")");
	n = put(buf, size, 0, "%s", text);
	free(text);
	return n;
}

/* A call's function and inputs; one rank's own values when its group has
 * one rank, the form its ranks share otherwise. */
static int call_text(const struct tree *tr, const struct node *d, char *buf,
		     size_t size)
{
	uint32_t rank = TREE_NONE, one;
	int n;

	if (rondo_group_size(tr->t, d->group) == 1 &&
	    rondo_group_ranks(tr->t, d->group, &one, 1) == 1)
		rank = one;
	n = tree_sig_text(tr, d->id, rank, 1, buf, size);
	if (n == RONDO_E_NOMEM)
		return put(
			buf, size, 0, "%s(...)",
			rondo_func_name(tr->t, rondo_sig_func(tr->t, d->id)));
	return n;
}

static const char *func_of(const struct tree *tr, uint32_t sig)
{
	return sig == TREE_NONE
		       ? "?"
		       : rondo_func_name(tr->t, rondo_sig_func(tr->t, sig));
}

/* A group's row: its ranks, and how they were cut short. */
static int group_label(const struct tree *tr, uint32_t g, char *buf,
		       size_t size)
{
	char name[512];
	int k;

	an_group_name(tr->t, g, name, sizeof(name)); /* "ranks 1-7 (7)" */
	k = put(buf, size, 0, "%s", name);
	if (group_cut(tr, g))
		k += put(buf, size, (size_t)k, "  cut short%s",
			 group_cut(tr, g));
	if (rondo_group_lost(tr->t, g))
		k += put(buf, size, (size_t)k,
			 "  calls lost: the file is cut before their rules");
	return k;
}

/* A rule's row: "[ MPI_Send ... MPI_Recv ]", after `at` bytes. */
static int rule_label(const struct tree *tr, uint32_t rule, int utf8, char *buf,
		      size_t size, size_t at)
{
	const char *dots = utf8 ? " \xe2\x80\xa6 " : " ... "; /* ellipsis */
	uint64_t calls = rondo_rule_calls(tr->t, rule);

	if (calls == 0)
		return put(buf, size, at, "[ ]");
	if (calls == 1)
		return put(buf, size, at, "[ %s ]",
			   func_of(tr, tr->first_sig[rule]));
	/* two calls: both; more: the first and the last */
	return put(buf, size, at, "[ %s%s%s ]",
		   func_of(tr, tr->first_sig[rule]), calls == 2 ? ", " : dots,
		   func_of(tr, tr->last_sig[rule]));
}

int tree_site(const struct tree *tr, uint32_t n, uint32_t *rule, uint32_t *pos)
{
	const struct node *d;

	if (!tr || n >= tr->nnodes)
		return RONDO_E_RANGE;
	d = &tr->node[n];
	if ((d->kind != TREE_RULE && d->kind != TREE_CALL) ||
	    d->parent == TREE_NONE)
		return RONDO_E_RANGE;
	*rule = node_rule(tr, d->parent);
	*pos = n - tr->node[d->parent].first;
	return 0;
}

int tree_label(const struct tree *tr, uint32_t n, int utf8, char *buf,
	       size_t size)
{
	rondo_merged_loop h;
	uint32_t rule, pos;
	const char *times = utf8 ? "\xc3\x97" : "x"; /* multiplication sign */
	const struct node *d;
	int at = 0;

	if (!tr || n >= tr->nnodes || (size && !buf))
		return RONDO_E_RANGE;
	if (size)
		buf[0] = '\0';
	d = &tr->node[n];
	if (d->kind == TREE_GROUP)
		return group_label(tr, d->id, buf, size);
	if (d->kind == TREE_CUT) /* after scissors, or "8<" in ASCII */
		return put(buf, size, 0, "%s cut short here%s",
			   utf8 ? "\xe2\x9c\x82" : "8<", group_cut(tr, d->id));
	if (tree_site(tr, n, &rule, &pos) == 0 &&
	    rondo_loop_hist(tr->t, rule, pos, &h) == 1) /* merged: its range */
		at = put(buf, size, 0, "%s%llu%s%llu ", times,
			 (unsigned long long)h.min, utf8 ? "\xe2\x80\x93" : "-",
			 (unsigned long long)h.max);
	else if (d->count > 1)
		at = put(buf, size, 0, "%s%llu ", times,
			 (unsigned long long)d->count);
	if (d->kind == TREE_CALL)
		return at +
		       call_text(tr, d, (size_t)at < size ? buf + at : NULL,
				 (size_t)at < size ? size - (size_t)at : 0);
	return at + rule_label(tr, d->id, utf8, buf, size, (size_t)at);
}

/* ---- search -------------------------------------------------------------- */

/* Whether node n holds or is a call p looks for. */
static int holds(const struct tree *tr, const struct pred *p, uint32_t n)
{
	const struct node *d = &tr->node[n];

	if (d->kind == TREE_CUT ||
	    (d->kind == TREE_GROUP && !tree_group_shown(tr, d->id)))
		return 0;
	if (d->kind == TREE_CALL)
		return p->sig[d->id];
	return p->rule[node_rule(tr, n)];
}

/* The rules that hold a signature p->sig marks, in rule order (a rule
 * refers only to smaller ones); returns how many signatures that some
 * group calls are marked. */
static uint64_t pred_rules(const struct tree *tr, struct pred *p)
{
	uint64_t found = 0;

	for (uint32_t r = 0; r < tr->nrules; r++) {
		const rondo_sym *b;
		uint32_t n = 0;

		p->rule[r] = 0;
		if (rondo_rule_body(tr->t, r, &b, &n) < 0)
			continue;
		for (uint32_t k = 0; k < n && !p->rule[r]; k++) {
			uint32_t id = RONDO_SYM_ID(b[k].sym);

			p->rule[r] = RONDO_SYM_IS_RULE(b[k].sym) ? p->rule[id]
								 : p->sig[id];
		}
	}
	for (uint32_t g = 0; g < tr->ngroups; g++)
		found += p->rule[rondo_group_root(tr->t, g)];
	return found;
}

static int pred_alloc(const struct tree *tr, struct pred *p)
{
	p->sig = calloc((size_t)tr->nsigs + 1, 1);
	p->rule = calloc((size_t)tr->nrules + 1, 1);
	if (p->sig && p->rule)
		return 0;
	free(p->sig);
	free(p->rule);
	p->sig = p->rule = NULL;
	return RONDO_E_NOMEM;
}

int tree_text_has(const char *text, const char *part)
{
	size_t n = strlen(part);

	for (; *text; text++)
		if (!strncasecmp(text, part, n))
			return 1;
	return n == 0;
}

int64_t tree_search(struct tree *tr, const char *text)
{
	struct pred p;
	int64_t found = 0;
	char *buf = NULL;
	size_t cap = 0;

	free(tr->search.sig);
	free(tr->search.rule);
	tr->search.sig = tr->search.rule = NULL;
	if (!text || !*text)
		return 0;
	if (pred_alloc(tr, &p) < 0)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < tr->nsigs; s++) {
		int n = rondo_sig_format(tr->t, s, NULL, 0);

		if (n < 0 || util_grow(&buf, &cap, (size_t)n + 1, 1) < 0)
			continue;
		rondo_sig_format(tr->t, s, buf, cap);
		p.sig[s] = (uint8_t)tree_text_has(buf, text);
		found += p.sig[s];
	}
	free(buf);
	pred_rules(tr, &p);
	tr->search = p;
	return found;
}

int tree_sig_matches(const struct tree *tr, uint32_t sig)
{
	return tr->search.sig && sig < tr->nsigs && tr->search.sig[sig];
}

int tree_is_match(const struct tree *tr, uint32_t n)
{
	return tr->search.sig && n < tr->nnodes &&
	       tr->node[n].kind == TREE_CALL && tr->search.sig[tr->node[n].id];
}

/* The first (dir > 0) or last matching call under node n, which holds
 * one: down through the children that hold one. */
static uint32_t edge_under(struct tree *tr, const struct pred *p, uint32_t n,
			   int dir)
{
	while (tr->node[n].kind != TREE_CALL) {
		uint32_t k, next = TREE_NONE;

		if (node_make(tr, n) < 0)
			return TREE_NONE;
		for (k = 0; k < tr->node[n].nchild && next == TREE_NONE; k++) {
			uint32_t c = tr->node[n].first +
				     (dir > 0 ? k : tr->node[n].nchild - 1 - k);

			if (holds(tr, p, c))
				next = c;
		}
		if (next == TREE_NONE)
			return TREE_NONE; /* cannot be: n holds one */
		n = next;
	}
	return n;
}

/* The siblings of node n: the groups at the top, else its parent's
 * children; *first and *count. */
static void siblings(const struct tree *tr, uint32_t n, uint32_t *first,
		     uint32_t *count)
{
	uint32_t parent = tr->node[n].parent;

	*first = parent == TREE_NONE ? 0 : tr->node[parent].first;
	*count = parent == TREE_NONE ? tr->ngroups : tr->node[parent].nchild;
}

/* The next or previous matching call in tree order from n, without
 * wrapping; TREE_NONE at the end. */
static uint32_t step_from(struct tree *tr, const struct pred *p, uint32_t n,
			  int dir)
{
	uint32_t first, count, at;

	/* a node comes before its children */
	if (dir > 0 && tr->node[n].kind != TREE_CALL && holds(tr, p, n))
		return edge_under(tr, p, n, dir);
	for (; n != TREE_NONE; n = tr->node[n].parent) {
		siblings(tr, n, &first, &count);
		for (at = n - first; dir > 0 ? at + 1 < count : at > 0;) {
			uint32_t s = first + (dir > 0 ? ++at : --at);

			if (holds(tr, p, s))
				return tr->node[s].kind == TREE_CALL
					       ? s
					       : edge_under(tr, p, s, dir);
		}
		/* backwards, a parent comes next, and it is no call */
	}
	return TREE_NONE;
}

/* The first or last matching call of the whole tree. */
static uint32_t edge_of_tree(struct tree *tr, const struct pred *p, int dir)
{
	for (uint32_t k = 0; k < tr->ngroups; k++) {
		uint32_t g = dir > 0 ? k : tr->ngroups - 1 - k;

		if (holds(tr, p, g))
			return edge_under(tr, p, g, dir);
	}
	return TREE_NONE;
}

/* Opens the nodes above n, from the top: one splice at the highest one
 * that was closed. */
static void reveal(struct tree *tr, uint32_t n)
{
	uint32_t top = TREE_NONE;

	for (uint32_t a = tr->node[n].parent; a != TREE_NONE;
	     a = tr->node[a].parent)
		if (!tr->node[a].open)
			top = a;
	if (top == TREE_NONE)
		return;
	for (uint32_t a = tr->node[n].parent; a != top; a = tr->node[a].parent)
		tr->node[a].open = 1; /* hidden under top: no rows yet */
	if (tree_open(tr, top) < 0)
		for (uint32_t a = tr->node[n].parent; a != top;
		     a = tr->node[a].parent)
			tr->node[a].open = 0;
}

static uint32_t find(struct tree *tr, const struct pred *p, uint32_t from,
		     int dir)
{
	uint32_t n =
		from < tr->nnodes ? step_from(tr, p, from, dir) : TREE_NONE;

	if (n == TREE_NONE)
		n = edge_of_tree(tr, p, dir); /* wrap around */
	if (n != TREE_NONE)
		reveal(tr, n);
	return n;
}

uint32_t tree_search_next(struct tree *tr, uint32_t from, int dir)
{
	if (!tr->search.sig)
		return TREE_NONE;
	return find(tr, &tr->search, from, dir >= 0 ? 1 : -1);
}

uint32_t tree_find_sig(struct tree *tr, uint32_t sig)
{
	struct pred p;
	uint32_t n = TREE_NONE;

	if (sig >= tr->nsigs || pred_alloc(tr, &p) < 0)
		return TREE_NONE;
	p.sig[sig] = 1;
	if (pred_rules(tr, &p))
		n = find(tr, &p, TREE_NONE, 1);
	free(p.sig);
	free(p.rule);
	return n;
}

/* ---- a rank's calls -------------------------------------------------------- */

uint32_t tree_rank_group(const struct tree *tr, uint32_t rank)
{
	return rondo_rank_group(tr->t, rank); /* UINT32_MAX is TREE_NONE */
}

uint32_t tree_find_call(struct tree *tr, uint32_t rank, uint64_t index,
			uint64_t *within)
{
	uint32_t n = tree_rank_group(tr, rank);
	uint64_t calls;
	double time;

	if (n == TREE_NONE || index >= rondo_rank_calls(tr->t, rank))
		return TREE_NONE;
	while (!node_leaf(tr, n)) {
		uint32_t k = 0, at;

		if (node_make(tr, n) < 0)
			return TREE_NONE;
		for (; k < tr->node[n].nchild; k++) {
			node_figures(tr, tr->node[n].first + k, &calls, &time);
			if (index < calls)
				break;
			index -= calls;
		}
		if (k == tr->node[n].nchild)
			return TREE_NONE; /* the grammar disagrees with itself */
		at = tr->node[n].first + k;
		if (tr->node[at].kind == TREE_RULE) {
			uint64_t per = rondo_rule_calls(tr->t, tr->node[at].id);

			index = per ? index % per : 0;
		}
		n = at;
	}
	if (within)
		*within = index;
	reveal(tr, n);
	return n;
}

uint64_t tree_node_first_call(const struct tree *tr, uint32_t n)
{
	uint64_t at = 0, calls;
	double time;

	if (n >= tr->nnodes)
		return 0;
	for (uint32_t p = tr->node[n].parent; p != TREE_NONE;
	     n = p, p = tr->node[p].parent)
		for (uint32_t k = tr->node[p].first; k < n; k++) {
			node_figures(tr, k, &calls, &time);
			at += calls;
		}
	return at;
}

int tree_group_sigs(const struct tree *tr, uint32_t g, uint8_t *sig)
{
	uint32_t root =
		g < tr->ngroups ? rondo_group_root(tr->t, g) : UINT32_MAX;
	uint8_t *rule;

	if (root >= tr->nrules)
		return 0;
	rule = calloc((size_t)root + 1, 1);
	if (!rule)
		return RONDO_E_NOMEM;
	/* a rule refers only to rules of smaller ids: one pass down from
	 * the root finds every rule it reaches */
	rule[root] = 1;
	for (uint32_t r = root + 1; r-- > 0;) {
		const rondo_sym *b;
		uint32_t n = 0;

		if (!rule[r] || rondo_rule_body(tr->t, r, &b, &n) < 0)
			continue;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t id = RONDO_SYM_ID(b[k].sym);

			if (!RONDO_SYM_IS_RULE(b[k].sym))
				sig[id] = 1;
			else if (id < root)
				rule[id] = 1;
		}
	}
	free(rule);
	return 0;
}

int tree_sig_groups(const struct tree *tr, uint32_t sig, uint8_t *in)
{
	struct pred p;

	if (pred_alloc(tr, &p) < 0)
		return RONDO_E_NOMEM;
	if (sig < tr->nsigs)
		p.sig[sig] = 1;
	pred_rules(tr, &p);
	for (uint32_t g = 0; g < tr->ngroups; g++)
		in[g] = p.rule[rondo_group_root(tr->t, g)];
	free(p.sig);
	free(p.rule);
	return 0;
}
