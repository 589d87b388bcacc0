/*
 * relative.c - values derived from the caller's rank, stored relative to
 * it or as per-rank values where that makes ranks' signatures the same.
 *
 * Peers (dest, source) are relative to the caller from the start
 * (handles.c); a collective's root is the same on every rank.  Other
 * integers may follow the rank too: a tag that is the sender's rank, the
 * key of MPI_Comm_split(comm, colour, rank).  Stored as they are, every
 * rank has its own signature; stored as "the caller's rank + d", all
 * ranks share one.  But a constant tag stored that way would split ranks
 * apart instead, and one rank cannot tell which case it is in: rank 0
 * sees 0 either way.  And some values follow the rank by no rule a
 * signature can hold: a partner at rank XOR 2^k, a transpose's partner,
 * the communicator of one's own row.  So the ranks decide together: each
 * counts, for each candidate argument of each of its signatures, the
 * distinct values it has in either form, keeping up to REL_KEEP of them.
 * A signature is known across ranks by its group (its function and the
 * arguments that are not candidates) and its place among the rank's
 * signatures of that group, so that the first and the second
 * MPI_Comm_split of a program are decided apart.  The counts are merged
 * up the merge tree (merge_tree.c): one value as recorded stays so, one
 * relative value becomes relative (kind REL: the caller's rank in the
 * call's communicator plus d, which readers add back), and any other
 * becomes a per-rank value (kind VARY: a slot whose value for each rank
 * section rankvals holds, made by job.c from what each rank gives the
 * merge).  Every choice is lossless.
 *
 * Candidates: tags (kind TAG) and the colour and key of MPI_Comm_split*
 * (both may be relative), ranks (RANK, RANK_REL, CART_REL, and the rank
 * constants of dest, source and root) and communicators.
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "job.h"
#include "relative.h"
#include "util.h"

/* Distinct values are kept up to REL_KEEP per form: one more means
 * "many", enough to choose between forms of one value and many. */
#define REL_KEEP 8

/* The forms of a candidate: as recorded, relative to the caller, or a
 * slot of the per-rank values. */
enum { FORM_ABS, FORM_REL, FORM_VARY };

struct rel_val {
	uint64_t v; /* the value (a zigzag for the relative form) */
	uint64_t tag;
};

struct rel_slot {
	uint64_t key;  /* (group, arg, ordinal) */
	uint32_t n[2]; /* distinct values: [0] as recorded, [1] relative */
	struct rel_val v[2][REL_KEEP];
	int form;      /* the decision */
	uint32_t vary; /* FORM_VARY: the slot's number in the trace */
};

struct relative {
	struct hmap slots; /* (group, arg, ordinal) -> index in slot */
	struct rel_slot *slot;
	uint32_t nslots;
	size_t capslots;
	uint32_t nvary; /* slots decided FORM_VARY */
	int oom;
	const struct job_names *nm;
	struct fmt_buf vals; /* relative_apply's per-rank values */
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
	fmt_buf_free(&R->vals);
	free(R);
}

/* ---- one signature's arguments ------------------------------------------- */

#define MAX_ARGS 64

struct args {
	uint32_t n;
	size_t start[MAX_ARGS + 1]; /* arg i is bytes start[i]..start[i+1] */
	rondo_arg a[MAX_ARGS];
	unsigned candidate[MAX_ARGS]; /* 0, or CAND_* */
	uint64_t group;
	uint64_t ordinal; /* earlier signatures of the rank in the group */
	int64_t me; /* the caller's rank in the call's communicator, or -1 */
};

/* What a candidate may become: CAND_REL, an integer derived from the
 * caller's rank (a tag, a split's colour or key), also relative to it;
 * CAND_VARY, any candidate, a per-rank value. */
enum { CAND_VARY = 1, CAND_REL = 3 };

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

/* Parameters whose constants are ranks (MPI_PROC_NULL, MPI_ANY_SOURCE,
 * MPI_ROOT): their other values are of the rank kinds. */
static int rank_param(const struct fmt_func *f, uint32_t i)
{
	static const char *const names[] = {"dest", "source", "root"};

	if (!f || i >= f->nparams || !f->params[i])
		return 0;
	for (size_t k = 0; k < COUNTOF(names); k++)
		if (!strcmp(f->params[i], names[k]))
			return 1;
	return 0;
}

static unsigned is_candidate(const struct job_names *nm,
			     const struct fmt_sig *s, uint32_t i,
			     const rondo_arg *a)
{
	const struct fmt_func *f =
		s->func < nm->nfuncs ? &nm->funcs[s->func] : NULL;

	if (a->wire == RONDO_WIRE_SINT) {
		switch (a->kind) {
		case RONDO_ARG_TAG: return CAND_REL;
		case RONDO_ARG_RANK:
		case RONDO_ARG_RANK_REL:
		case RONDO_ARG_CART_REL: return CAND_VARY;
		case RONDO_ARG_INT:
			return f && i < f->nparams &&
					       !strncmp(f->name,
							"MPI_Comm_split", 14) &&
					       (!strcmp(f->params[i],
							"color") ||
						!strcmp(f->params[i], "key"))
				       ? CAND_REL
				       : 0;
		}
		return 0;
	}
	if (a->wire != RONDO_WIRE_UINT)
		return 0;
	if (a->kind == RONDO_ARG_COMM)
		return CAND_VARY;
	return a->kind == RONDO_ARG_CONST && rank_param(f, i) ? CAND_VARY : 0;
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

/* The signature's place among the rank's signatures of its group (in
 * table order, which is the order of first calls): ranks doing the same
 * thing meet their k-th such signature at the same point, so a choice is
 * made for each, not for all the values a parameter takes on a rank. */
static int args_ordinal(struct hmap *seen, struct args *x)
{
	uint32_t i = hmap_index(seen, x->group);

	x->ordinal = i == UINT32_MAX ? 0 : seen->ent[i].refs;
	return hmap_insert(seen, x->group, 0);
}

static uint64_t slot_key(const struct args *x, uint32_t i)
{
	return mix(mix(x->group, i), x->ordinal);
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

/* Counts value (tag, v) in form f of slot k, once per distinct value. */
static void count(struct relative *R, uint32_t k, int f, uint64_t tag,
		  uint64_t v)
{
	struct rel_slot *s = &R->slot[k];
	uint32_t n = s->n[f];

	if (n > REL_KEEP)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (s->v[f][i].v == v && s->v[f][i].tag == tag)
			return;
	if (n < REL_KEEP)
		s->v[f][n] = (struct rel_val){v, tag};
	s->n[f]++;
}

static uint64_t arg_tag(const rondo_arg *a)
{
	return fmt_arg_tag(a->kind, (enum rondo_wire)a->wire);
}

static uint64_t arg_bits(const rondo_arg *a)
{
	return a->wire == RONDO_WIRE_SINT ? (uint64_t)a->i : a->u;
}

static void observe_one(struct relative *R, const struct args *x)
{
	for (uint32_t i = 0; i < x->n && !R->oom; i++) {
		const rondo_arg *a = &x->a[i];
		uint32_t k;

		if (!x->candidate[i])
			continue;
		k = slot_of(R, slot_key(x, i));
		if (k == UINT32_MAX) {
			R->oom = -1;
			return;
		}
		count(R, k, 0, arg_tag(a), arg_bits(a));
		if (x->candidate[i] == CAND_REL && x->me >= 0)
			count(R, k, 1, 0, fmt_zigzag(a->i - x->me));
		else /* no relative form: many */
			R->slot[k].n[1] = REL_KEEP + 1;
	}
}

int relative_observe(struct relative *R, const struct fmt_cst *cst,
		     relative_me_fn me, void *ctx)
{
	struct args *x = malloc(sizeof(*x));
	struct hmap seen = {0};

	if (!x)
		return R->oom = -1;
	for (uint32_t s = 0; s < cst->n && !R->oom; s++) {
		if (args_split(R, x, &cst->sig[s], me, ctx) < 0)
			continue;
		if (args_ordinal(&seen, x) < 0)
			R->oom = -1;
		else
			observe_one(R, x);
	}
	hmap_free(&seen);
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
				fmt_put_varints(b, 1, s->v[f][i].tag,
						s->v[f][i].v);
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
				uint64_t tag, v;

				rc = fmt_get_uvarint(&c, &tag);
				rc = rc ? rc : fmt_get_uvarint(&c, &v);
				if (!rc)
					count(R, at, f, tag, v);
			}
			/* past what was kept: many */
			if (!rc && cnt > REL_KEEP)
				R->slot[at].n[f] = REL_KEEP + 1;
		}
	}
	return rc ? -1 : fmt_cur_end(&c) ? -1 : 0;
}

/* One value everywhere: as recorded; one relative value: relative; else
 * a per-rank value, so that ranks doing the same thing with different
 * values (partners, their own communicators) keep one signature. */
static int decide(const struct rel_slot *s)
{
	if (s->n[0] <= 1)
		return FORM_ABS;
	return s->n[1] == 1 ? FORM_REL : FORM_VARY;
}

/* The choices: the slots not kept as recorded, in order (the per-rank
 * ones numbered by it), each with its form. */
void relative_decide(struct relative *R, struct fmt_buf *b)
{
	uint32_t n = 0;

	R->nvary = 0;
	for (uint32_t k = 0; k < R->nslots; k++) {
		struct rel_slot *s = &R->slot[k];

		s->form = decide(s);
		n += s->form != FORM_ABS;
	}
	fmt_put_uvarint(b, n);
	for (uint32_t k = 0; k < R->nslots; k++) {
		struct rel_slot *s = &R->slot[k];

		if (s->form == FORM_ABS)
			continue;
		fmt_put_varints(b, 1, s->key, (uint64_t)s->form);
		if (s->form == FORM_VARY)
			s->vary = R->nvary++;
	}
}

int relative_load(struct relative *R, const uint8_t *p, size_t n)
{
	struct fmt_cur c;
	uint32_t cnt;
	int rc;

	R->nvary = 0;
	for (uint32_t k = 0; k < R->nslots; k++)
		R->slot[k].form = FORM_ABS;
	fmt_cur_init(&c, p, n, NULL, NULL);
	rc = fmt_get_count(&c, &cnt, 2);
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		uint64_t key, form;
		uint32_t at;

		rc = fmt_get_uvarint(&c, &key);
		rc = rc ? rc : fmt_get_uvarint(&c, &form);
		if (!rc && form != FORM_REL && form != FORM_VARY)
			rc = -1;
		at = rc ? UINT32_MAX : slot_of(R, key);
		if (!rc && at == UINT32_MAX)
			return R->oom = -1;
		if (rc)
			break;
		R->slot[at].form = (int)form;
		if (form == FORM_VARY)
			R->slot[at].vary = R->nvary++;
	}
	return rc ? -1 : fmt_cur_end(&c) ? -1 : 0;
}

uint32_t relative_slots(const struct relative *R)
{
	return R->nvary;
}

/* ---- rewriting ----------------------------------------------------------- */

static const struct rel_slot *slot_for(const struct relative *R,
				       const struct args *x, uint32_t i)
{
	uint32_t k;

	if (!x->candidate[i])
		return NULL;
	k = hmap_lookup(&R->slots, slot_key(x, i));
	return k == UINT32_MAX ? NULL : &R->slot[k];
}

/* Argument i of x as the choice for it says; a per-rank value goes to
 * R->vals as its slot and the value as recorded. */
static void apply_one(struct relative *R, const struct args *x, uint32_t i,
		      const uint8_t *args, struct fmt_buf *bytes,
		      uint32_t *nvals)
{
	const struct rel_slot *sl = slot_for(R, x, i);
	size_t len = x->start[i + 1] - x->start[i];

	if (sl && sl->form == FORM_REL && x->candidate[i] == CAND_REL &&
	    x->me >= 0) {
		fmt_arg_put_sint(bytes, RONDO_ARG_REL, x->a[i].i - x->me);
		return;
	}
	if (sl && sl->form == FORM_VARY) {
		fmt_arg_put_uint(bytes, RONDO_ARG_VARY, sl->vary);
		fmt_put_uvarint(&R->vals, sl->vary);
		fmt_put_bytes(&R->vals, args + x->start[i], len);
		(*nvals)++;
		return;
	}
	fmt_put_bytes(bytes, args + x->start[i], len);
}

int relative_apply(struct relative *R, struct fmt_cst *cst,
		   struct fmt_buf *bytes, relative_me_fn me, void *ctx)
{
	struct args *x = malloc(sizeof(*x));
	size_t *off = malloc(sizeof(size_t) * (cst->n + 1));
	struct fmt_buf vals = {0};
	struct hmap seen = {0};
	uint32_t nvals = 0;
	int rc = 0;

	fmt_buf_free(&R->vals);
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
		if (args_ordinal(&seen, x) < 0)
			rc = -1;
		for (uint32_t i = 0; i < x->n; i++)
			apply_one(R, x, i, sg->args, bytes, &nvals);
	}
	for (uint32_t s = 0; s < cst->n; s++) {
		size_t end = s + 1 < cst->n ? off[s + 1] : bytes->len;

		cst->sig[s].args = bytes->data + off[s];
		cst->sig[s].len = (uint32_t)(end - off[s]);
	}
	/* the values after their count */
	fmt_put_uvarint(&vals, nvals);
	fmt_put_bytes(&vals, R->vals.data, R->vals.len);
	vals.oom |= R->vals.oom;
	fmt_buf_free(&R->vals);
	R->vals = vals;
	hmap_free(&seen);
	free(x);
	free(off);
	return rc || bytes->oom || R->vals.oom ? -1 : 0;
}

void relative_values(const struct relative *R, const uint8_t **p, size_t *n)
{
	*p = R->vals.data;
	*n = R->vals.len;
}
