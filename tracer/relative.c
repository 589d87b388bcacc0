/*
 * relative.c - integers derived from the caller's rank, stored relative to
 * it where that makes ranks' signatures the same.
 *
 * Peers (dest, source) are relative to the caller from the start
 * (handles.c); a collective's root is the same on every rank and stays
 * absolute.  Other integers may follow the rank too: a tag that is the
 * sender's rank, the key of MPI_Comm_split(comm, colour, rank).  Stored
 * as they are, every rank has its own signature; stored as "the caller's
 * rank + d", all ranks share one.  But a constant tag stored that way
 * would split ranks apart instead, and one rank cannot tell which case it
 * is in: rank 0 sees 0 either way.  So the ranks decide together: each
 * counts, for each candidate argument of a group of signatures (those
 * alike but for their candidates), the distinct values it has in either
 * form, keeping up to REL_KEEP of them; the counts are merged up the
 * merge tree (merge_tree.c), and the form with fewer distinct values wins,
 * absolute on a tie.  Any choice is lossless: the
 * value is the caller's rank in the call's communicator plus d (kind REL),
 * which readers add back.
 *
 * Candidates: tags (kind TAG) and the colour and key of MPI_Comm_split*,
 * plain integers in calls whose communicator is known (an
 * intercommunicator's ranks are not the caller's).
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "job.h"
#include "relative.h"
#include "util.h"

/* Distinct values are kept up to REL_KEEP per form: one more means
 * "many", enough to choose between forms of few and many values. */
#define REL_KEEP 8

struct rel_slot {
	uint64_t key;  /* (group, arg) */
	uint32_t n[2]; /* distinct values: [0] absolute, [1] relative */
	int64_t v[2][REL_KEEP];
	int relative; /* the decision */
};

struct relative {
	struct hmap slots; /* (group, arg) -> index in slot */
	struct rel_slot *slot;
	uint32_t nslots;
	size_t capslots;
	int oom;
	const struct job_names *nm;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 31);
}

struct relative *relative_create(const struct job_names *nm)
{
	struct relative *R = calloc(1, sizeof(struct relative));

	if (R)
		R->nm = nm;
	return R;
}

void relative_free(struct relative *R)
{
	if (!R)
		return;
	hmap_free(&R->slots);
	free(R->slot);
	free(R);
}

/* ---- one signature's arguments ------------------------------------------- */

#define MAX_ARGS 64

struct args {
	uint32_t n;
	size_t start[MAX_ARGS + 1]; /* arg i is bytes start[i]..start[i+1] */
	rondo_arg a[MAX_ARGS];
	unsigned candidate[MAX_ARGS];
	uint64_t group;
	int64_t me; /* the caller's rank in the call's communicator, or -1 */
};

static int is_const(const struct job_names *nm, const rondo_arg *a,
		    const char *name)
{
	const char *n;

	if (a->kind != RONDO_ARG_CONST || a->wire != RONDO_WIRE_UINT ||
	    a->u >= nm->nconsts)
		return 0;
	n = nm->consts[a->u];
	return n && !strcmp(n, name);
}

static int is_candidate(const struct job_names *nm, const struct fmt_sig *s,
			uint32_t i, const rondo_arg *a)
{
	const struct fmt_func *f =
		s->func < nm->nfuncs ? &nm->funcs[s->func] : NULL;

	if (a->wire != RONDO_WIRE_SINT)
		return 0;
	if (a->kind == RONDO_ARG_TAG)
		return 1;
	return a->kind == RONDO_ARG_INT && f && i < f->nparams &&
	       !strncmp(f->name, "MPI_Comm_split", 14) &&
	       (!strcmp(f->params[i], "color") || !strcmp(f->params[i], "key"));
}

/* Splits a signature into its arguments; finds the caller's rank as
 * readers will (the first communicator argument) and the group hash.
 * Returns 0, or -1 for a signature left alone. */
static int args_split(const struct relative *R, struct args *x,
		      const struct fmt_sig *s, relative_me_fn me, void *ctx)
{
	struct fmt_cur c;
	int found = 0;

	if (s->nargs > MAX_ARGS)
		return -1;
	fmt_cur_init(&c, s->args, s->len, NULL, NULL);
	x->n = s->nargs;
	x->me = -1;
	x->group = mix(0x5245, s->func);
	for (uint32_t i = 0; i < s->nargs; i++) {
		rondo_arg *a = &x->a[i];

		x->start[i] = c.pos;
		if (fmt_arg_get(&c, a) < 0)
			return -1;
		x->candidate[i] = is_candidate(R->nm, s, i, a);
		if (!found && (a->kind == RONDO_ARG_COMM ||
			       is_const(R->nm, a, "MPI_COMM_WORLD") ||
			       is_const(R->nm, a, "MPI_COMM_SELF"))) {
			found = 1;
			x->me = me(ctx, a->kind, a->u);
		}
		/* the group: everything but the candidates' values */
		x->group = mix(x->group, i);
		if (!x->candidate[i])
			for (size_t k = x->start[i]; k < c.pos; k++)
				x->group = mix(x->group, s->args[k]);
	}
	x->start[s->nargs] = c.pos;
	return 0;
}

static uint64_t slot_key(const struct args *x, uint32_t i)
{
	return mix(x->group, i);
}

/* ---- deciding ------------------------------------------------------------ */

static uint32_t slot_of(struct relative *R, uint64_t key)
{
	uint32_t k = hmap_lookup(&R->slots, key);

	if (k != UINT32_MAX)
		return k;
	if (util_grow(&R->slot, &R->capslots, (size_t)R->nslots + 1,
		      sizeof(*R->slot)) < 0)
		return UINT32_MAX;
	if (hmap_insert(&R->slots, key, R->nslots) < 0)
		return UINT32_MAX;
	memset(&R->slot[R->nslots], 0, sizeof(R->slot[0]));
	R->slot[R->nslots].key = key;
	return R->nslots++;
}

/* Counts value v in form `rel` of slot k, once per distinct value. */
static void count(struct relative *R, uint32_t k, int rel, int64_t v)
{
	struct rel_slot *s = &R->slot[k];
	uint32_t n = s->n[rel];

	if (n > REL_KEEP)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (s->v[rel][i] == v)
			return;
	if (n < REL_KEEP)
		s->v[rel][n] = v;
	s->n[rel]++;
}

int relative_observe(struct relative *R, const struct fmt_cst *cst,
		     relative_me_fn me, void *ctx)
{
	struct args *x = malloc(sizeof(*x));

	if (!x)
		return R->oom = -1;
	for (uint32_t s = 0; s < cst->n && !R->oom; s++) {
		if (args_split(R, x, &cst->sig[s], me, ctx) < 0 || x->me < 0)
			continue;
		for (uint32_t i = 0; i < x->n; i++) {
			uint64_t key = slot_key(x, i);
			uint32_t k;

			if (!x->candidate[i])
				continue;
			k = slot_of(R, key);
			if (k == UINT32_MAX) {
				R->oom = -1;
				break;
			}
			count(R, k, 0, x->a[i].i);
			count(R, k, 1, x->a[i].i - x->me);
		}
	}
	free(x);
	return R->oom;
}

/* ---- over ranks ---------------------------------------------------------- */

void relative_encode(const struct relative *R, struct fmt_buf *b)
{
	fmt_put_uvarint(b, R->nslots);
	for (uint32_t k = 0; k < R->nslots; k++) {
		const struct rel_slot *s = &R->slot[k];

		fmt_put_uvarint(b, s->key);
		for (int f = 0; f < 2; f++) {
			uint32_t kept = s->n[f] < REL_KEEP ? s->n[f] : REL_KEEP;

			fmt_put_uvarint(b, s->n[f]);
			for (uint32_t i = 0; i < kept; i++)
				fmt_put_svarint(b, s->v[f][i]);
		}
	}
}

int relative_merge(struct relative *R, const uint8_t *p, size_t n)
{
	struct fmt_cur c;
	uint32_t nslots;
	int rc;

	fmt_cur_init(&c, p, n, NULL, NULL);
	rc = fmt_get_count(&c, &nslots, 3);
	for (uint32_t k = 0; k < nslots && !rc; k++) {
		uint64_t key, cnt;
		uint32_t at;

		rc = fmt_get_uvarint(&c, &key);
		at = rc ? UINT32_MAX : slot_of(R, key);
		if (!rc && at == UINT32_MAX)
			return R->oom = -1;
		for (int f = 0; f < 2 && !rc; f++) {
			rc = fmt_get_uvarint(&c, &cnt);
			for (uint64_t i = 0; !rc && i < cnt && i < REL_KEEP;
			     i++) {
				int64_t v;

				rc = fmt_get_svarint(&c, &v);
				if (!rc)
					count(R, at, f, v);
			}
			/* past what was kept: many */
			if (!rc && cnt > REL_KEEP)
				R->slot[at].n[f] = REL_KEEP + 1;
		}
	}
	return rc ? -1 : fmt_cur_end(&c) ? -1 : 0;
}

void relative_decide(struct relative *R, struct fmt_buf *b)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < R->nslots; k++) {
		struct rel_slot *s = &R->slot[k];

		s->relative = s->n[1] < s->n[0];
		n += (uint32_t)s->relative;
	}
	fmt_put_uvarint(b, n);
	for (uint32_t k = 0; k < R->nslots; k++)
		if (R->slot[k].relative)
			fmt_put_uvarint(b, R->slot[k].key);
}

int relative_load(struct relative *R, const uint8_t *p, size_t n)
{
	struct fmt_cur c;
	uint32_t cnt;
	int rc;

	for (uint32_t k = 0; k < R->nslots; k++)
		R->slot[k].relative = 0;
	fmt_cur_init(&c, p, n, NULL, NULL);
	rc = fmt_get_count(&c, &cnt, 1);
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		uint64_t key;
		uint32_t at;

		rc = fmt_get_uvarint(&c, &key);
		at = rc ? UINT32_MAX : slot_of(R, key);
		if (!rc && at == UINT32_MAX)
			return R->oom = -1;
		if (!rc)
			R->slot[at].relative = 1;
	}
	return rc ? -1 : fmt_cur_end(&c) ? -1 : 0;
}

/* ---- rewriting ----------------------------------------------------------- */

static int use_relative(struct relative *R, const struct args *x, uint32_t i)
{
	uint32_t k;

	if (!x->candidate[i] || x->me < 0)
		return 0;
	k = hmap_lookup(&R->slots, slot_key(x, i));
	return k != UINT32_MAX && R->slot[k].relative;
}

int relative_apply(struct relative *R, struct fmt_cst *cst,
		   struct fmt_buf *bytes, relative_me_fn me, void *ctx)
{
	struct args *x = malloc(sizeof(*x));
	size_t *off = malloc(sizeof(size_t) * (cst->n + 1));

	if (!x || !off) {
		free(x);
		free(off);
		return -1;
	}
	for (uint32_t s = 0; s < cst->n; s++) {
		const struct fmt_sig *sg = &cst->sig[s];

		off[s] = bytes->len;
		if (args_split(R, x, sg, me, ctx) < 0) {
			fmt_put_bytes(bytes, sg->args, sg->len);
			continue;
		}
		for (uint32_t i = 0; i < x->n; i++) {
			if (use_relative(R, x, i))
				fmt_arg_put_sint(bytes, RONDO_ARG_REL,
						 x->a[i].i - x->me);
			else
				fmt_put_bytes(bytes, sg->args + x->start[i],
					      x->start[i + 1] - x->start[i]);
		}
	}
	for (uint32_t s = 0; s < cst->n; s++) {
		size_t end = s + 1 < cst->n ? off[s + 1] : bytes->len;

		cst->sig[s].args = bytes->data + off[s];
		cst->sig[s].len = (uint32_t)(end - off[s]);
	}
	free(x);
	free(off);
	return bytes->oom ? -1 : 0;
}
