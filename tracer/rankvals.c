/*
 * rankvals.c - section rankvals: the values that differ by rank.
 *
 * relative.c turns an argument whose value differs between ranks doing
 * the same thing (a partner at rank XOR 2^k, a transpose's partner, the
 * communicator of one's own row) into a slot, so that the ranks share one
 * signature; each rank gives its value of the slot to the merge.  Here
 * the values of a slot, one per rank in rank order, become items (a value,
 * or a delta from the rank before when both are integers of one kind),
 * and the sequence of items is compressed over ranks with the grammar
 * engine, as the rank map is.  Partners in a progression over ranks, or
 * in a pattern that repeats (rank XOR k, a grid's rows), cost a few rules
 * whatever the number of ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "hmap.h"
#include "rankvals.h"
#include "util.h"

uint32_t rankvals_named(const struct fmt_cst *cst)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < cst->n; s++) {
		struct fmt_cur c;
		rondo_arg a;

		fmt_cur_init(&c, cst->sig[s].args, cst->sig[s].len, NULL, NULL);
		for (uint32_t i = 0; i < cst->sig[s].nargs; i++) {
			if (fmt_arg_get(&c, &a) < 0)
				break;
			if (a.kind == RONDO_ARG_VARY &&
			    a.wire == RONDO_WIRE_UINT && a.u < UINT32_MAX &&
			    a.u >= n)
				n = (uint32_t)a.u + 1;
		}
	}
	return n;
}

/* ---- one slot ------------------------------------------------------------ */

/* The distinct items of a slot, in order of first use. */
struct items {
	struct fmt_vitem *item;
	uint32_t n;
	size_t cap;
	struct hmap index; /* hash -> first item with it */
};

static uint64_t item_hash(const struct fmt_vitem *it)
{
	uint64_t h = it->val.u * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)it->val.kind << 8 | it->val.wire << 1 |
	      (uint64_t)it->delta) *
	     0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

static int item_same(const struct fmt_vitem *a, const struct fmt_vitem *b)
{
	return a->delta == b->delta && a->val.u == b->val.u &&
	       (a->delta ||
		(a->val.kind == b->val.kind && a->val.wire == b->val.wire));
}

/* The item's id, added when new; UINT32_MAX when out of memory. */
static uint32_t item_id(struct items *d, const struct fmt_vitem *it)
{
	uint64_t h = item_hash(it);
	uint32_t k = hmap_lookup(&d->index, h);

	if (k != UINT32_MAX && item_same(&d->item[k], it))
		return k;
	for (uint32_t i = 0; k != UINT32_MAX && i < d->n; i++)
		if (item_same(&d->item[i], it)) /* a hash shared */
			return i;
	if (util_grow(&d->item, &d->cap, (size_t)d->n + 1, sizeof(*d->item)))
		return UINT32_MAX;
	if (k == UINT32_MAX && hmap_insert(&d->index, h, d->n) < 0)
		return UINT32_MAX;
	d->item[d->n] = *it;
	return d->n++;
}

/* Rank r's item: a delta from the rank before when both are integers of
 * one kind and the difference fits, else the value. */
static void item_of(const struct fmt_rval *prev, const struct fmt_rval *cur,
		    struct fmt_vitem *it)
{
	int64_t d;

	*it = (struct fmt_vitem){0, *cur};
	/* a constant's id is a name, renumbered once the file's constants
	 * are known (job.c): never a difference */
	if (!prev || prev->kind != cur->kind || prev->wire != cur->wire ||
	    cur->kind == RONDO_ARG_CONST)
		return;
	if (cur->wire == RONDO_WIRE_UINT) {
		if (cur->u >= prev->u ? cur->u - prev->u > INT64_MAX
				      : prev->u - cur->u > INT64_MAX)
			return;
		d = cur->u >= prev->u ? (int64_t)(cur->u - prev->u)
				      : -(int64_t)(prev->u - cur->u);
	} else if (cur->wire != RONDO_WIRE_SINT ||
		   __builtin_sub_overflow((int64_t)cur->u, (int64_t)prev->u,
					  &d)) {
		return;
	}
	*it = (struct fmt_vitem){1, {(uint64_t)d, 0, 0}};
}

/* The slot of the values seq (one per rank). */
static int slot_make(const struct fmt_rval *seq, uint32_t nranks,
		     struct fmt_vslot *out)
{
	struct items d = {0};
	struct grammar *g = grammar_create();
	uint32_t run_id = UINT32_MAX;
	uint64_t run = 0;
	int rc = g ? 0 : -1;

	for (uint32_t r = 0; r < nranks && rc == 0; r++) {
		struct fmt_vitem it;
		uint32_t id;

		item_of(r ? &seq[r - 1] : NULL, &seq[r], &it);
		id = item_id(&d, &it);
		if (id == UINT32_MAX)
			rc = -1;
		else if (id == run_id)
			run++;
		else if (run && grammar_append(g, run_id, run) != 0)
			rc = -1;
		else
			run_id = id, run = 1;
	}
	if (rc == 0 && run && grammar_append(g, run_id, run) != 0)
		rc = -1;
	if (rc == 0 && grammar_export(g, &out->map.map) != 0)
		rc = -1;
	grammar_free(g);
	hmap_free(&d.index);
	if (rc) {
		free(d.item);
		return -1;
	}
	out->map.nranks = nranks;
	out->nitems = d.n;
	out->item = d.item;
	return 0;
}

/* Each rank's value of one slot (vals: the slot's, in rank order): a
 * rank without one repeats the rank before, or takes the first value. */
static void slot_values(const struct merge_val *const *vals, size_t n,
			uint32_t nranks, uint64_t (*comm)(void *, uint64_t),
			void *ctx, struct fmt_rval *seq)
{
	struct fmt_rval none = {0, RONDO_ARG_NULL, RONDO_WIRE_NONE};
	uint32_t r = 0;

	for (size_t i = 0; i < n; i++) {
		struct fmt_rval v = vals[i]->v;

		if (v.kind == RONDO_ARG_COMM && v.wire == RONDO_WIRE_UINT)
			v.u = comm(ctx, v.u);
		if (vals[i]->rank >= nranks || (i && vals[i]->rank < r))
			continue; /* not in rank order: dropped */
		for (; r < vals[i]->rank; r++)
			seq[r] = i ? seq[r - 1] : v;
		seq[r++] = v;
	}
	for (; r < nranks; r++)
		seq[r] = r ? seq[r - 1] : none;
}

/* ---- the section --------------------------------------------------------- */

/* Slots already made, by the hash of their bytes, to merge equal ones. */
struct made {
	struct hmap index; /* hash -> slot in out */
	struct fmt_buf *bytes;
};

static uint64_t bytes_hash(const struct fmt_buf *b)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < b->len; i++)
		h = (h ^ b->data[i]) * 0x100000001b3ull;
	return h;
}

/* Keeps out's newest slot, or drops it for an equal one made before:
 * the number it goes by. */
static uint32_t slot_keep(struct made *m, struct fmt_rankvals *out)
{
	struct fmt_rankvals one = {1, &out->slot[out->n]};
	struct fmt_buf *b = &m->bytes[out->n];
	uint64_t h;
	uint32_t k;

	fmt_rankvals_encode(b, &one);
	h = bytes_hash(b);
	k = hmap_lookup(&m->index, h);
	if (k != UINT32_MAX && m->bytes[k].len == b->len &&
	    !memcmp(m->bytes[k].data, b->data, b->len)) {
		free(out->slot[out->n].item);
		fmt_rankmap_free(&out->slot[out->n].map);
		memset(&out->slot[out->n], 0, sizeof(out->slot[0]));
		fmt_buf_free(b);
		return k;
	}
	if (k == UINT32_MAX)
		hmap_insert(&m->index, h, out->n); /* else: kept apart */
	return out->n++;
}

/* The values of v ordered by slot, ranks in order within each: by[at[k]
 * .. at[k + 1]) are slot k's. */
static int by_slot(const struct merge_val *v, size_t n, uint32_t nslots,
		   const struct merge_val ***by, size_t **at)
{
	*by = malloc(sizeof(**by) * (n + 1));
	*at = calloc((size_t)nslots + 2, sizeof(**at));
	if (!*by || !*at)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (v[i].slot < nslots)
			(*at)[v[i].slot + 2]++;
	for (uint32_t k = 0; k < nslots; k++)
		(*at)[k + 2] += (*at)[k + 1];
	for (size_t i = 0; i < n; i++)
		if (v[i].slot < nslots)
			(*by)[(*at)[v[i].slot + 1]++] = &v[i];
	return 0;
}

int rankvals_make(const struct merge_val *v, size_t n, uint32_t nslots,
		  uint32_t nranks, uint64_t (*comm)(void *ctx, uint64_t key),
		  void *ctx, struct fmt_rankvals *out, uint32_t **renumber)
{
	struct fmt_rval *seq = malloc(sizeof(*seq) * ((size_t)nranks + 1));
	struct made m = {{0}, calloc((size_t)nslots + 1, sizeof(*m.bytes))};
	const struct merge_val **by = NULL;
	size_t *at = NULL;
	int rc = seq && m.bytes ? 0 : -1;

	memset(out, 0, sizeof(*out));
	*renumber = malloc(sizeof(uint32_t) * ((size_t)nslots + 1));
	out->slot = calloc((size_t)nslots + 1, sizeof(*out->slot));
	if (!*renumber || !out->slot ||
	    (rc == 0 && by_slot(v, n, nslots, &by, &at)))
		rc = -1;
	for (uint32_t k = 0; k < nslots && rc == 0; k++) {
		slot_values(by + at[k], at[k + 1] - at[k], nranks, comm, ctx,
			    seq);
		rc = slot_make(seq, nranks, &out->slot[out->n]);
		if (rc == 0)
			(*renumber)[k] = slot_keep(&m, out);
	}
	for (uint32_t k = 0; m.bytes && k <= nslots; k++)
		fmt_buf_free(&m.bytes[k]);
	free(m.bytes);
	hmap_free(&m.index);
	free(seq);
	free(by);
	free(at);
	if (rc) {
		fmt_rankvals_free(out);
		free(*renumber);
		*renumber = NULL;
	}
	return rc;
}
