/*
 * merge_wire.c - a merge as a message between ranks (merge.h, "ranges of
 * ranks"): merge_encode at the sending end; at the receiving one
 * merge_add_encoded, which decodes and checks every part before merge.c
 * adds any of its ranks.
 */
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "merge.h"
#include "merge_int.h"

/* What a range of ranks sends to be merged (private to the tracer, both
 * ends the same build):
 *
 *   nranks failed calls           uvarints
 *   cst grams map stats times comms    each a uvarint length and bytes
 *
 * cst: the signatures (fmt_cst); grams: the distinct rules of the ranks'
 * grammars (fmt_grammar); map: the rank map (fmt_grammar, its terminals
 * rule ids of grams, each the root of some ranks); stats
 * (fmt_stats); times (fmt_ranktime, one list per rank); comms: the keys,
 * then the members (fmt_comms); timing: a base (f64, 0: none), then when
 * there is one the ranks' per-call timing (fmt_timing, its offsets the
 * ranks' clock origins); vals: the ranks' per-rank values, a count,
 * then each one's rank (its difference from the one before), slot and
 * value; mpi: each rank's time code in MPI; gaps: statistics of the time
 * before each call (fmt_stats); rgaps: each rank's time before its calls
 * of each signature of its times, in their order: how many calls came
 * after another, and when some did their total's time code. */
enum {
	PART_CST,
	PART_GRAMS,
	PART_MAP,
	PART_STATS,
	PART_TIMES,
	PART_COMMS,
	PART_TIMING,
	PART_VALS,
	PART_MPI,
	PART_GAPS,
	PART_RGAPS,
	NPARTS
};

static void put_part(struct fmt_buf *out, struct fmt_buf *part)
{
	fmt_put_uvarint(out, part->len);
	fmt_put_bytes(out, part->data, part->len);
	out->oom |= part->oom;
	fmt_buf_free(part);
}

/* A range's timing part: the base (0: none), then when there is one the
 * origins and the ranks' coded segments, as merge_timing gives them. */
static void timing_encode(struct merge *m, struct fmt_buf *b)
{
	const struct timing *t = &m->t;
	struct fmt_timing ft;

	/* the last ranks, added without their timing, get none */
	if (merge_timing_pad(m) || !t->base || m->grams.nranks == 0 ||
	    t->nranks != m->grams.nranks) {
		fmt_put_f64(b, 0);
		return;
	}
	merge_timing_view(m, &ft);
	fmt_put_f64(b, t->base);
	fmt_timing_encode(b, &ft);
}

int merge_encode(struct merge *m, struct fmt_buf *b)
{
	const struct grams *gs = &m->grams;
	const struct extra *x = &m->x;
	struct fmt_grammar map = {0};
	struct fmt_stats st = {0, malloc(sizeof(struct fmt_stat) *
					 ((size_t)m->sigs.cst.n + 1))};
	uint64_t *list = malloc(sizeof(uint64_t) * ((size_t)gs->nranks + 1));
	struct fmt_ranktime times = {gs->nranks, x->at, list, x->sig, x->code};
	struct fmt_buf part = {0};
	int rc = st.st && list ? 0 : RONDO_E_NOMEM;

	if (!rc && gs->failed)
		rc = RONDO_E_STATE;
	if (!rc)
		rc = grammar_export(gs->map, &map);
	if (rc) {
		free(st.st);
		free(list);
		fmt_grammar_free(&map);
		return rc;
	}
	for (uint32_t k = 0; k < gs->nranks; k++)
		list[k] = x->at[k];
	for (uint32_t s = 0; s < m->sigs.cst.n && s < x->capstat; s++)
		if (x->stat[s].count)
			st.st[st.n++] = (struct fmt_stat){s, x->stat[s]};
	fmt_put_uvarint(b, gs->nranks);
	fmt_put_uvarint(b, x->failed);
	fmt_put_uvarint(b, x->calls);
	fmt_cst_encode(&part, &m->sigs.cst);
	put_part(b, &part);
	fmt_grammar_encode(&part, &gs->all);
	put_part(b, &part);
	fmt_grammar_encode(&part, &map);
	put_part(b, &part);
	fmt_stats_encode(&part, &st);
	put_part(b, &part);
	if (gs->nranks)
		fmt_ranktime_encode(&part, &times);
	put_part(b, &part);
	fmt_put_uvarint(&part, x->comms.n);
	for (uint32_t i = 0; i < x->comms.n; i++) {
		fmt_put_uvarint(&part, x->key[i]);
		fmt_put_uvarint(&part, x->topo[i].ndims);
		for (uint32_t k = 0; k < x->topo[i].ndims; k++) {
			fmt_put_uvarint(&part, x->topo[i].dims[k]);
			fmt_put_uvarint(&part, x->topo[i].periodic[k]);
		}
	}
	fmt_comms_encode(&part, &x->comms);
	put_part(b, &part);
	timing_encode(m, &part);
	put_part(b, &part);
	fmt_put_uvarint(&part, x->nval);
	for (size_t i = 0; i < x->nval; i++) {
		const struct merge_val *v = &x->val[i];

		fmt_put_uvarint(&part, v->rank - (i ? x->val[i - 1].rank : 0));
		fmt_put_uvarint(&part, v->slot);
		fmt_rval_put(&part, &v->v);
	}
	put_part(b, &part);
	for (uint32_t k = 0; k < gs->nranks; k++)
		fmt_put_uvarint(&part, x->mpi[k]);
	put_part(b, &part);
	st.n = 0;
	for (uint32_t s = 0; s < m->sigs.cst.n && s < x->capgap; s++)
		if (x->gap[s].count)
			st.st[st.n++] = (struct fmt_stat){s, x->gap[s]};
	fmt_stats_encode(&part, &st);
	put_part(b, &part);
	for (uint64_t i = 0; gs->nranks && i < x->at[gs->nranks]; i++) {
		fmt_put_uvarint(&part, x->gcalls[i]);
		if (x->gcalls[i])
			fmt_put_uvarint(&part, x->gcode[i]);
	}
	put_part(b, &part);
	fmt_grammar_free(&map);
	free(st.st);
	free(list);
	return b->oom ? RONDO_E_NOMEM : 0;
}

static void range_free(struct range *r)
{
	fmt_cst_free(&r->cst);
	fmt_grammar_free(&r->grams);
	fmt_grammar_free(&r->map);
	fmt_stats_free(&r->st);
	fmt_stats_free(&r->gaps);
	fmt_ranktime_free(&r->times);
	free(r->keys);
	fmt_topos_free(&r->topos);
	fmt_comms_free(&r->comms);
	fmt_timing_free(&r->timing);
	free(r->val);
	free(r->mpi);
	free(r->gcalls);
	free(r->gcode);
}

/* The range's ranks' times in MPI: one code per rank. */
static int mpi_decode(struct range *r, const uint8_t *p, size_t n)
{
	struct fmt_cur c;
	uint64_t v;
	int rc = 0;

	fmt_cur_init(&c, p, n, "merge", NULL);
	r->mpi = malloc(sizeof(*r->mpi) * (r->nranks + 1));
	if (!r->mpi)
		return RONDO_E_NOMEM;
	for (uint64_t k = 0; k < r->nranks && !rc; k++) {
		rc = fmt_get_uvarint(&c, &v);
		if (!rc && v > FMT_TIME_CODE_MAX)
			rc = RONDO_E_CORRUPT;
		r->mpi[k] = (uint16_t)v;
	}
	return rc ? rc : fmt_cur_end(&c);
}

/* The range's ranks' time before their calls, beside their times. */
static int rgaps_decode(struct range *r, const uint8_t *p, size_t n)
{
	uint64_t total = r->times.at[r->nranks], v;
	struct fmt_cur c;
	int rc = 0;

	fmt_cur_init(&c, p, n, "merge", NULL);
	r->gcalls = malloc(sizeof(*r->gcalls) * (total + 1));
	r->gcode = malloc(sizeof(*r->gcode) * (total + 1));
	if (!r->gcalls || !r->gcode)
		return RONDO_E_NOMEM;
	for (uint64_t i = 0; i < total && !rc; i++) {
		r->gcode[i] = 0;
		rc = fmt_get_uvarint(&c, &r->gcalls[i]);
		if (!rc && r->gcalls[i])
			rc = fmt_get_uvarint(&c, &v);
		if (!rc && r->gcalls[i] && v > FMT_TIME_CODE_MAX)
			rc = RONDO_E_CORRUPT;
		if (!rc && r->gcalls[i])
			r->gcode[i] = (uint16_t)v;
	}
	return rc ? rc : fmt_cur_end(&c);
}

/* The range's per-rank values: ranks in order, each below its ranks. */
static int vals_decode(struct range *r, const uint8_t *p, size_t n)
{
	struct fmt_cur c;
	uint32_t cnt, rank = 0;
	int rc;

	fmt_cur_init(&c, p, n, "merge", NULL);
	rc = fmt_get_count(&c, &cnt, 4);
	r->val = rc ? NULL : malloc(sizeof(*r->val) * ((size_t)cnt + 1));
	if (!rc && !r->val)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < cnt && !rc; i++) {
		uint64_t d;

		rc = fmt_get_uvarint(&c, &d);
		if (!rc && d >= r->nranks - rank)
			rc = RONDO_E_CORRUPT;
		rank += rc ? 0 : (uint32_t)d;
		rc = rc ? rc : merge_val_read(&c, &r->val[i]);
		r->val[i].rank = rank;
		r->nval = i + 1;
	}
	return rc ? rc : fmt_cur_end(&c);
}

static int range_decode(struct range *r, const uint8_t *p, size_t n,
			uint32_t nfuncs, uint32_t nworld)
{
	const uint8_t *part[NPARTS];
	size_t len[NPARTS];
	struct fmt_cur c;
	struct fmt_err e;
	int rc;

	fmt_cur_init(&c, p, n, "merge", &e);
	rc = fmt_get_uvarint(&c, &r->nranks);
	rc = rc ? rc : fmt_get_uvarint(&c, &r->failed);
	rc = rc ? rc : fmt_get_uvarint(&c, &r->calls);
	for (int i = 0; i < NPARTS && !rc; i++)
		rc = fmt_get_bytes(&c, &part[i], &len[i]);
	rc = rc ? rc : fmt_cur_end(&c);
	if (!rc && (r->nranks == 0 || r->nranks > UINT32_MAX))
		rc = RONDO_E_CORRUPT;
	rc = rc ? rc
		: fmt_cst_decode(&r->cst, part[PART_CST], len[PART_CST], nfuncs,
				 &e);
	rc = rc ? rc
		: fmt_grammar_decode(&r->grams, part[PART_GRAMS],
				     len[PART_GRAMS], r->cst.n, NULL, &e);
	rc = rc ? rc
		: fmt_grammar_decode(&r->map, part[PART_MAP], len[PART_MAP],
				     r->grams.nrules, NULL, &e);
	rc = rc ? rc
		: fmt_stats_decode(&r->st, part[PART_STATS], len[PART_STATS],
				   r->cst.n, &e);
	rc = rc ? rc
		: fmt_stats_decode(&r->gaps, part[PART_GAPS], len[PART_GAPS],
				   r->cst.n, &e);
	rc = rc ? rc
		: fmt_ranktime_decode(&r->times, part[PART_TIMES],
				      len[PART_TIMES], (uint32_t)r->nranks,
				      r->cst.n, &e);
	if (!rc) {
		uint32_t nkeys;

		fmt_cur_init(&c, part[PART_COMMS], len[PART_COMMS], "merge",
			     &e);
		rc = fmt_get_count(&c, &nkeys, 2);
		r->keys = rc ? NULL : malloc(sizeof(uint64_t) * (nkeys + 1));
		r->topos.t = rc ? NULL : calloc(nkeys + 1, sizeof(*r->topos.t));
		if (!rc && (!r->keys || !r->topos.t))
			rc = RONDO_E_NOMEM;
		if (!rc)
			r->topos.n = nkeys;
		for (uint32_t i = 0; !rc && i < nkeys; i++) {
			struct fmt_topo *g = &r->topos.t[i];
			uint64_t nd = 0, v;

			rc = fmt_get_uvarint(&c, &r->keys[i]);
			rc = rc ? rc : fmt_get_uvarint(&c, &nd);
			if (!rc && nd > FMT_MAX_DIMS)
				rc = RONDO_E_CORRUPT;
			g->dims =
				rc ? NULL : malloc(sizeof(uint32_t) * (nd + 1));
			g->periodic = rc ? NULL : malloc(nd + 1);
			if (!rc && (!g->dims || !g->periodic))
				rc = RONDO_E_NOMEM;
			g->ndims = rc ? 0 : (uint32_t)nd;
			for (uint32_t k = 0; !rc && k < g->ndims; k++) {
				rc = fmt_get_uvarint(&c, &v);
				g->dims[k] = (uint32_t)v;
				rc = rc ? rc : fmt_get_uvarint(&c, &v);
				g->periodic[k] = v != 0;
			}
		}
		rc = rc ? rc
			: fmt_comms_decode(&r->comms, c.p + c.pos,
					   c.len - c.pos, nworld, &e);
		if (!rc && r->comms.n != nkeys)
			rc = RONDO_E_CORRUPT;
	}
	if (!rc) {
		double base = 0;

		fmt_cur_init(&c, part[PART_TIMING], len[PART_TIMING], "merge",
			     &e);
		rc = fmt_get_f64(&c, &base);
		if (!rc && base != 0) {
			rc = fmt_timing_decode(&r->timing, c.p + c.pos,
					       c.len - c.pos,
					       (uint32_t)r->nranks, &e);
			if (!rc && r->timing.base != base)
				rc = RONDO_E_CORRUPT;
		}
	}
	rc = rc ? rc : vals_decode(r, part[PART_VALS], len[PART_VALS]);
	rc = rc ? rc : rgaps_decode(r, part[PART_RGAPS], len[PART_RGAPS]);
	return rc ? rc : mpi_decode(r, part[PART_MPI], len[PART_MPI]);
}

int merge_add_encoded(struct merge *m, const uint8_t *p, size_t n,
		      uint32_t nranks, uint32_t nfuncs, uint32_t nworld)
{
	struct range r = {0};
	uint32_t before = m->grams.nranks;
	int rc = m->grams.failed ? RONDO_E_STATE
				 : range_decode(&r, p, n, nfuncs, nworld);

	if (!rc && r.nranks != nranks)
		rc = RONDO_E_CORRUPT;
	if (!rc)
		rc = merge_range_add(m, &r);
	range_free(&r);
	if (rc && !m->grams.failed && m->grams.nranks == before) {
		/* a damaged range: its ranks are there, with no call */
		merge_add_failed(m, nranks);
	}
	return rc;
}
