/*
 * params.c - signatures equal but for a count, a size or a displacement,
 * merged at a precision below 100 % (see params.h).
 *
 * Halos whose size drifts from step to step (adaptive refinement) make a
 * new signature of each size, so steps differ and the lossless grammar
 * grows with them.  Here:
 *
 *  - each signature's arguments are read; those that may merge are the
 *    integer inputs (kind INT, never negative) whose parameter is named as
 *    a count or a displacement, in calls that move data, and when asked
 *    (RONDO_PRECISION_PARAMS=tags) the tags of sends, receives and probes
 *    (kind TAG, never a wildcard), and (peers) their peers (kind
 *    RANK_REL: dest, source), as how far from the caller, the side in
 *    the shape, so that only peers on one side merge; the rest, and
 *    the function, make the signature's shape (the request a call makes
 *    is in it: its pool is the same whatever the counts,
 *    tracer/requests.c, so calls alike but for their sizes name the same
 *    requests);
 *  - signatures of one shape are sorted by their values (tags first, so
 *    that those of one tag are together, their sizes in order) and taken
 *    greedily into classes, a signature joining while, for each of its
 *    values, some integer is within (100 - P) % of every one of the
 *    class; a class of two values or more merges;
 *  - where its values differ, a merged signature holds a value of kind
 *    MERGED: the histogram of the values its calls had (each signature's
 *    value weighted by its calls) and the value that stands for them,
 *    their mean, rounded, or the nearest value within (100 - P) % of them
 *    all.
 *
 * The signatures are renumbered, a merged one where its first was;
 * everything kept by signature is added up by the caller.  Sums are
 * exact: a histogram's sum is that of the values of every call.
 */
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "precision.h"
#include "util.h"

#define NONE UINT32_MAX

/* A signature that may merge: its shape, its values and its request. */
struct psig {
	uint32_t sig;
	uint32_t nvar;	   /* values that may merge */
	size_t shape, len; /* its shape: bytes of shapes */
	size_t val;	   /* its values: vals[val ..] */
	uint32_t cls;	   /* its class, once merged */
};

/* A merged argument: its index, the value that stands for it and its
 * histogram (in plan->h). */
struct pvar {
	uint32_t arg;
	uint64_t rep;
	uint32_t hist;
};

struct params_class {
	uint32_t nvar;
	struct pvar *var;
	uint32_t first; /* its first (least) signature */
	uint32_t id;	/* its new id */
};

struct ctx {
	const struct fmt_cst *cst;
	const struct fmt_func *funcs;
	struct fmt_buf shapes;
	uint64_t *vals;	 /* the signatures' values that may merge */
	uint32_t *argof; /* each one's argument index */
	uint8_t *tag;	 /* each one's kind: VAL_SIZE, VAL_TAG, VAL_PEER */
	size_t nvals, capvals, capargof, captag;
	struct psig *ps;
	size_t nps, capps;
	uint32_t *member; /* by old signature: its psig, or NONE */
	size_t caph, capcls;
	unsigned what; /* PARAMS_TAGS... */
};

static const struct ctx *sort_ctx; /* qsort has no context argument */

/* What a value that may merge is. */
enum { VAL_SIZE, VAL_TAG, VAL_PEER };

/* Functions whose counts are not of data moved. */
static const char *const unmoved[] = {
	"MPI_Wait",	 "MPI_Test",	     "MPI_Start",      "MPI_Type_",
	"MPI_Get_count", "MPI_Get_elements", "MPI_Status_",    "MPI_Comm_",
	"MPI_Group_",	 "MPI_Cart",	     "MPI_Graph",      "MPI_Dist_graph",
	"MPI_Info_",	 "MPI_Pack",	     "MPI_Unpack",     "MPI_Buffer_",
	"MPI_Alloc_mem", "MPI_Win_allocate", "MPI_Win_create", "MPI_Request",
};

/* A message's tag: of sends, receives and probes (not the tag of
 * MPI_Intercomm_create, which names no message of the program's). */
static int is_tag(const char *func, const char *name)
{
	return (!strcmp(name, "tag") || !strcmp(name, "sendtag") ||
		!strcmp(name, "recvtag")) &&
	       strncmp(func, "MPI_Intercomm_", 14) != 0;
}

int params_mergeable(const char *func, const char *name, uint32_t kind,
		     unsigned what)
{
	size_t n = name ? strlen(name) : 0;

	if (!n || !func)
		return 0;
	if (kind == RONDO_ARG_TAG)
		return (what & PARAMS_TAGS) && is_tag(func, name);
	if (kind == RONDO_ARG_RANK_REL)
		return (what & PARAMS_PEERS) &&
		       (!strcmp(name, "dest") || !strcmp(name, "source"));
	if (kind != RONDO_ARG_INT)
		return 0;
	for (size_t k = 0; k < COUNTOF(unmoved); k++)
		if (!strncmp(func, unmoved[k], strlen(unmoved[k])))
			return 0;
	return (n >= 5 && !strcmp(name + n - 5, "count")) ||
	       (n >= 4 && !strcmp(name + n - 4, "disp"));
}

/* Reads signature s: its shape, values and request into c, when it has
 * a value that may merge.  0 or RONDO_E_NOMEM. */
static int psig_read(struct ctx *c, uint32_t s)
{
	const struct fmt_sig *sig = &c->cst->sig[s];
	const struct fmt_func *f = &c->funcs[sig->func];
	struct fmt_cur cur;
	struct psig p = {s, 0, c->shapes.len, 0, c->nvals, NONE};
	rondo_arg a;

	fmt_put_uvarint(&c->shapes, sig->func);
	fmt_cur_init(&cur, sig->args, sig->len, NULL, NULL);
	for (uint32_t k = 0; k < sig->nargs; k++) {
		size_t at = cur.pos;
		int out = k < f->nparams && f->flags && f->flags[k];

		if (fmt_arg_get(&cur, &a) < 0)
			return 0; /* checked when merged: cannot be */
		/* a peer before the caller merges with those before it, as
		 * how far before: the sign is in the shape */
		int back = a.kind == RONDO_ARG_RANK_REL &&
			   a.wire == RONDO_WIRE_SINT && a.i < 0 &&
			   a.i > INT64_MIN;

		if (k < f->nparams && !out &&
		    params_mergeable(f->name, f->params[k], a.kind, c->what) &&
		    (a.wire == RONDO_WIRE_UINT ||
		     (a.wire == RONDO_WIRE_SINT && (a.i >= 0 || back)))) {
			if (util_grow(&c->vals, &c->capvals, c->nvals + 1,
				      sizeof(*c->vals)) < 0 ||
			    util_grow(&c->argof, &c->capargof, c->nvals + 1,
				      sizeof(*c->argof)) < 0 ||
			    util_grow(&c->tag, &c->captag, c->nvals + 1,
				      sizeof(*c->tag)) < 0)
				return RONDO_E_NOMEM;
			c->argof[c->nvals] = k;
			c->tag[c->nvals] = a.kind == RONDO_ARG_TAG ? VAL_TAG
					   : a.kind == RONDO_ARG_RANK_REL
						   ? VAL_PEER
						   : VAL_SIZE;
			c->vals[c->nvals++] = a.wire == RONDO_WIRE_UINT ? a.u
					      : back ? (uint64_t)-a.i
						     : (uint64_t)a.i;
			/* the shape keeps where it is, not what */
			fmt_put_uvarint(&c->shapes,
					UINT64_C(1) << 40 |
						(uint64_t)back << 39 | k);
			p.nvar++;
			continue;
		}
		fmt_put_bytes(&c->shapes, sig->args + at, cur.pos - at);
	}
	if (c->shapes.oom)
		return RONDO_E_NOMEM;
	if (!p.nvar) {
		c->shapes.len = p.shape;
		c->nvals = p.val;
		return 0;
	}
	p.len = c->shapes.len - p.shape;
	if (util_grow(&c->ps, &c->capps, c->nps + 1, sizeof(*c->ps)) < 0)
		return RONDO_E_NOMEM;
	c->ps[c->nps++] = p;
	return 0;
}

static int shape_cmp(const struct psig *x, const struct psig *y)
{
	const uint8_t *b = sort_ctx->shapes.data;

	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(b + x->shape, b + y->shape, x->len);
}

/* By their values, tags and peers first: a shape's signatures of one tag
 * and peer are then next to each other, their sizes in order, and merge
 * as they would without tags and peers merging. */
static int vals_cmp(const struct psig *x, const struct psig *y)
{
	for (int first = 1; first >= 0; first--)
		for (uint32_t k = 0; k < x->nvar; k++) {
			uint64_t u = sort_ctx->vals[x->val + k],
				 v = sort_ctx->vals[y->val + k];

			if ((sort_ctx->tag[x->val + k] != VAL_SIZE) == first &&
			    u != v)
				return u < v ? -1 : 1;
		}
	return 0;
}

/* By shape, values, then id. */
static int psig_cmp(const void *a, const void *b)
{
	const struct psig *x = a, *y = b;
	int d = shape_cmp(x, y);

	if (!d)
		d = vals_cmp(x, y);
	return d ? d : (x->sig > y->sig) - (x->sig < y->sig);
}

/* The least and the most value c within (100 - pct) % of every value
 * from lo to hi: c >= hi / (1 + t) and c <= lo / (1 - t), t = (100 - pct)
 * / 100. */
static void bounds(uint64_t lo, uint64_t hi, uint32_t pct, uint64_t *least,
		   uint64_t *most)
{
	*least = (uint64_t)(((unsigned __int128)hi * 100 + 199 - pct) /
			    (200 - pct));
	*most = pct ? (uint64_t)((unsigned __int128)lo * 100 / pct)
		    : UINT64_MAX;
}

/* Whether values from lo to hi have a value within (100 - pct) % of
 * each. */
static int within(uint64_t lo, uint64_t hi, uint32_t pct)
{
	uint64_t least, most;

	bounds(lo, hi, pct, &least, &most);
	return least <= most;
}

/* The value standing for those of a class: their mean, or the nearest
 * value within (100 - pct) % of lo and hi. */
static uint64_t rep_of(uint64_t sum, uint64_t n, uint64_t lo, uint64_t hi,
		       uint32_t pct)
{
	uint64_t m = sum / n + (sum % n >= n - sum % n), least, most;

	bounds(lo, hi, pct, &least, &most);
	return m < least ? least : m > most ? most : m;
}

static int val_cmp(const void *a, const void *b)
{
	const struct precision_val *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Class ps[i..j) (one shape, two values or more): its histograms and the
 * values standing for them.  0, RONDO_E_NOMEM or RONDO_E_RANGE. */
static int class_make(struct params_plan *pl, struct ctx *c, size_t i, size_t j,
		      const uint64_t *calls, const uint32_t *first,
		      uint32_t pct)
{
	const struct psig *p0 = &c->ps[i];
	struct params_class *k = &pl->cls[pl->nclasses];
	struct precision_val *v = malloc(sizeof(*v) * (j - i + 1));
	int rc = 0;

	k->var = calloc((size_t)p0->nvar + 1, sizeof(*k->var));
	k->first = p0->sig;
	k->id = NONE;
	if (!v || !k->var) {
		free(v);
		return RONDO_E_NOMEM;
	}
	for (size_t m = i; m < j; m++)
		if (c->ps[m].sig < k->first)
			k->first = c->ps[m].sig;
	for (uint32_t var = 0; var < p0->nvar && rc == 0; var++) {
		uint64_t lo = c->vals[p0->val + var], hi = lo;
		uint32_t n = 0, d = 0;
		struct fmt_hist *h;

		for (size_t m = i; m < j; m++) {
			uint64_t x = c->vals[c->ps[m].val + var];

			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
			v[n++] = (struct precision_val){x, calls[c->ps[m].sig],
							first[c->ps[m].sig]};
		}
		if (lo == hi)
			continue; /* alike in the whole class: kept */
		qsort(v, n, sizeof(*v), val_cmp);
		for (uint32_t q = 0; q < n; q++)
			if (d && v[d - 1].v == v[q].v)
				v[d - 1].w += v[q].w;
			else
				v[d++] = v[q];
		if (util_grow(&pl->h.h, &c->caph, (size_t)pl->h.n + 1,
			      sizeof(*pl->h.h)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		h = &pl->h.h[pl->h.n++];
		rc = precision_hist(h, FMT_HIST_PARAM, v, d);
		if (rc)
			break;
		pl->nvalues += h->n;
		pl->ntags += c->tag[p0->val + var] == VAL_TAG;
		pl->npeers += c->tag[p0->val + var] == VAL_PEER;
		k->var[k->nvar++] = (struct pvar){
			c->argof[p0->val + var],
			rep_of(h->sum, h->n, lo, hi, pct), pl->h.n - 1};
	}
	free(v);
	return rc;
}

/* The classes of one shape, ps[i..j), sorted by their values. */
static int shape_classes(struct params_plan *pl, struct ctx *c, size_t i,
			 size_t j, const uint64_t *calls, const uint32_t *first,
			 uint32_t pct)
{
	uint32_t nv = c->ps[i].nvar;

	while (i < j) {
		size_t e = i + 1, distinct = 1;
		int rc;

		/* the class grows while each value stays within */
		for (; e < j; e++) {
			uint32_t k;

			for (k = 0; k < nv; k++) {
				uint64_t lo = UINT64_MAX, hi = 0;

				for (size_t m = i; m <= e; m++) {
					uint64_t x = c->vals[c->ps[m].val + k];

					lo = x < lo ? x : lo;
					hi = x > hi ? x : hi;
				}
				if (!within(lo, hi, pct))
					break;
			}
			if (k < nv)
				break;
			distinct += vals_cmp(&c->ps[e - 1], &c->ps[e]) != 0;
		}
		if (distinct >= 2) {
			if (util_grow(&pl->cls, &c->capcls,
				      (size_t)pl->nclasses + 1,
				      sizeof(*pl->cls)) < 0)
				return RONDO_E_NOMEM;
			memset(&pl->cls[pl->nclasses], 0, sizeof(*pl->cls));
			rc = class_make(pl, c, i, e, calls, first, pct);
			pl->nclasses++;
			if (rc)
				return rc;
			pl->nmerged += (uint32_t)(e - i);
			for (size_t m = i; m < e; m++) {
				c->member[c->ps[m].sig] = (uint32_t)m;
				c->ps[m].cls = pl->nclasses - 1;
			}
		}
		i = e;
	}
	return 0;
}

/* Signature `src`'s arguments into blob, the merged ones of class cl
 * as MERGED values. */
static void args_write(struct fmt_buf *blob, const struct fmt_sig *f,
		       const struct params_class *cl)
{
	struct fmt_cur cur;
	uint32_t v = 0;

	fmt_cur_init(&cur, f->args, f->len, NULL, NULL);
	for (uint32_t arg = 0; arg < f->nargs; arg++) {
		if (v < cl->nvar && cl->var[v].arg == arg) {
			rondo_arg a;

			if (fmt_arg_get(&cur, &a) < 0)
				break;
			fmt_arg_put_list(blob, RONDO_ARG_MERGED, 2);
			fmt_arg_put_uint(blob, RONDO_ARG_INT, cl->var[v].hist);
			if (a.wire == RONDO_WIRE_UINT)
				fmt_arg_put_uint(blob, a.kind, cl->var[v].rep);
			else /* a peer before the caller: how far before */
				fmt_arg_put_sint(
					blob, a.kind,
					a.i < 0 ? -(int64_t)cl->var[v].rep
						: (int64_t)cl->var[v].rep);
			v++;
		} else {
			size_t from = cur.pos;
			rondo_arg a;

			if (fmt_arg_get(&cur, &a) < 0)
				break;
			fmt_put_bytes(blob, f->args + from, cur.pos - from);
		}
	}
}

/* The new signatures into pl: each class where its first was, the
 * others as they were (pointing at their bytes).  0 or RONDO_E_NOMEM. */
static int renumber(struct params_plan *pl, struct ctx *c)
{
	uint32_t n = c->cst->n;
	size_t *at = malloc(sizeof(*at) * ((size_t)pl->nclasses + 1));
	struct fmt_buf *b = &pl->blob;

	pl->sig = malloc(sizeof(*pl->sig) * ((size_t)n + 1));
	if (!at || !pl->sig) {
		free(at);
		return RONDO_E_NOMEM;
	}
	for (uint32_t s = 0; s < n; s++) {
		uint32_t m = c->member[s];
		struct params_class *cl;

		if (m == NONE) {
			pl->to[s] = pl->nnew;
			pl->sig[pl->nnew++] = c->cst->sig[s];
			continue;
		}
		cl = &pl->cls[c->ps[m].cls];
		if (cl->first != s) { /* its class's first is before */
			pl->to[s] = cl->id;
			continue;
		}
		cl->id = pl->to[s] = pl->nnew;
		pl->sig[pl->nnew] = c->cst->sig[s];
		at[c->ps[m].cls] = b->len;
		args_write(b, &c->cst->sig[s], cl);
		pl->sig[pl->nnew++].len = (uint32_t)(b->len - at[c->ps[m].cls]);
	}
	if (b->oom) {
		free(at);
		return RONDO_E_NOMEM;
	}
	for (uint32_t k = 0; k < pl->nclasses; k++)
		pl->sig[pl->cls[k].id].args = b->data + at[k];
	free(at);
	return 0;
}

int params_plan(struct params_plan *pl, const struct fmt_cst *cst,
		const struct fmt_func *funcs, uint32_t nfuncs,
		const uint64_t *calls, const uint32_t *first,
		uint32_t precision, unsigned what)
{
	struct ctx c = {.cst = cst, .funcs = funcs, .what = what};
	int rc = 0;

	memset(pl, 0, sizeof(*pl));
	pl->nold = cst->n;
	pl->to = malloc(sizeof(*pl->to) * ((size_t)cst->n + 1));
	c.member = malloc(sizeof(*c.member) * ((size_t)cst->n + 1));
	if (!pl->to || !c.member) {
		rc = RONDO_E_NOMEM;
		goto out;
	}
	for (uint32_t s = 0; s < cst->n; s++)
		c.member[s] = NONE;
	for (uint32_t s = 0; s < cst->n && rc == 0; s++)
		if (calls[s] && cst->sig[s].func < nfuncs)
			rc = psig_read(&c, s);
	if (rc == 0 && c.nps > 1) {
		sort_ctx = &c;
		qsort(c.ps, c.nps, sizeof(*c.ps), psig_cmp);
		for (size_t i = 0, j; i < c.nps && rc == 0; i = j) {
			for (j = i + 1;
			     j < c.nps && shape_cmp(&c.ps[i], &c.ps[j]) == 0;
			     j++)
				;
			rc = shape_classes(pl, &c, i, j, calls, first,
					   precision);
		}
		sort_ctx = NULL;
	}
	if (rc == 0 && pl->nclasses)
		rc = renumber(pl, &c);
out:
	fmt_buf_free(&c.shapes);
	free(c.vals);
	free(c.argof);
	free(c.tag);
	free(c.ps);
	free(c.member);
	if (rc) {
		params_free(pl);
		pl->nold = cst->n;
	}
	return rc < 0 ? rc : 0;
}

int params_write(struct params_plan *pl, struct fmt_cst *cst,
		 struct fmt_hists *hs)
{
	uint32_t np = pl->h.n;
	struct fmt_hist *h = malloc(sizeof(*h) * ((size_t)hs->n + np + 1));

	if (!h)
		return RONDO_E_NOMEM;
	/* the values' histograms first, the loops' after them */
	memcpy(h, pl->h.h, sizeof(*h) * np);
	if (hs->n)
		memcpy(h + np, hs->h, sizeof(*h) * hs->n);
	for (uint32_t i = 0; i < hs->nsites; i++)
		hs->site[i].hist += np;
	free(hs->h);
	hs->h = h;
	hs->n += np;
	free(pl->h.h);
	pl->h.h = NULL;
	pl->h.n = 0;
	free(cst->sig);
	cst->sig = pl->sig;
	cst->n = pl->nnew;
	pl->sig = NULL;
	return 0;
}

void params_free(struct params_plan *pl)
{
	for (uint32_t k = 0; k < pl->nclasses; k++)
		free(pl->cls[k].var);
	free(pl->cls);
	free(pl->to);
	free(pl->sig);
	fmt_buf_free(&pl->blob);
	fmt_hists_free(&pl->h);
	memset(pl, 0, sizeof(*pl));
}

static int first_cmp(const void *a, const void *b)
{
	const struct precision_group *x = a, *y = b;

	return (x->first > y->first) - (x->first < y->first);
}

int params_first_ranks(const struct fmt_grammar *g,
		       const struct fmt_rankmap *rm, uint32_t nterminals,
		       uint32_t *first)
{
	struct precision_group *gr = NULL;
	uint32_t ng = 0, *stack = NULL;
	uint8_t *seen = calloc((size_t)g->nrules + 1, 1);
	size_t capst = 0;
	int rc;

	for (uint32_t s = 0; s < nterminals; s++)
		first[s] = NONE;
	if (!seen)
		return RONDO_E_NOMEM;
	rc = precision_groups(rm, g->nrules, &gr, &ng);
	/* the rules each group reaches, by first rank: their calls' first
	 * rank is the least of the groups that reach them */
	if (rc == 0)
		qsort(gr, ng, sizeof(*gr), first_cmp);
	for (uint32_t i = 0; i < ng && rc == 0; i++) {
		size_t depth = 0;

		if (seen[gr[i].root])
			continue;
		if (util_grow(&stack, &capst, 1, sizeof(*stack)) < 0) {
			rc = RONDO_E_NOMEM;
			break;
		}
		seen[gr[i].root] = 1;
		stack[depth++] = gr[i].root;
		while (depth && rc == 0) {
			uint32_t q = stack[--depth];

			for (uint32_t k = g->first[q]; k < g->first[q + 1];
			     k++) {
				uint32_t y = g->body[k].sym;

				if (!RONDO_SYM_IS_RULE(y)) {
					if (y < nterminals && first[y] == NONE)
						first[y] = gr[i].first;
					continue;
				}
				y &= ~RONDO_SYM_RULE;
				if (y >= g->nrules || seen[y])
					continue;
				seen[y] = 1;
				if (util_grow(&stack, &capst, depth + 1,
					      sizeof(*stack)) < 0) {
					rc = RONDO_E_NOMEM;
					break;
				}
				stack[depth++] = y;
			}
		}
	}
	free(stack);
	free(gr);
	free(seen);
	return rc;
}

/* A rule body's hash: its symbols and counts. */
static uint64_t body_hash(const rondo_sym *b, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (uint32_t k = 0; k < n; k++) {
		h ^= b[k].sym + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
		h ^= b[k].count + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	}
	return h;
}

static int body_eq(const struct fmt_grammar *g, uint32_t a, uint32_t b)
{
	uint32_t n = g->first[a + 1] - g->first[a];

	if (n != g->first[b + 1] - g->first[b])
		return 0;
	for (uint32_t k = 0; k < n; k++) {
		const rondo_sym *x = &g->body[g->first[a] + k],
				*y = &g->body[g->first[b] + k];

		if (x->sym != y->sym || x->count != y->count)
			return 0;
	}
	return 1;
}

int params_same_rules(struct fmt_grammar *g, uint32_t *canon)
{
	uint32_t n = g->nrules, mask = 1, same = 0;
	uint32_t *slot;

	while (mask < 2 * n)
		mask <<= 1;
	slot = malloc(sizeof(*slot) * mask);
	if (!slot)
		return RONDO_E_NOMEM;
	memset(slot, 0xff, sizeof(*slot) * mask);
	mask--;
	for (uint32_t r = 0; r < n; r++) {
		rondo_sym *b = &g->body[g->first[r]];
		uint32_t len = g->first[r + 1] - g->first[r], i;

		/* its rules as they now are (each before it) */
		for (uint32_t k = 0; k < len; k++)
			if (RONDO_SYM_IS_RULE(b[k].sym))
				b[k].sym = RONDO_SYM_RULE |
					   canon[b[k].sym & ~RONDO_SYM_RULE];
		canon[r] = r;
		for (i = (uint32_t)body_hash(b, len) & mask; slot[i] != NONE;
		     i = (i + 1) & mask)
			if (body_eq(g, slot[i], r)) {
				canon[r] = slot[i];
				same++;
				break;
			}
		if (canon[r] == r)
			slot[i] = r;
	}
	free(slot);
	return (int)same;
}
