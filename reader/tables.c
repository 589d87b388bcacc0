/*
 * tables.c - what an opened trace holds, read back: the container and
 * metadata, functions, constants, signatures and their argument values,
 * the grammar, ranks and rank groups, per-call timing settings,
 * statistics and per-rank times.  Every function is a lookup in what
 * trace.c decoded and checked at open.
 */
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

/* ---- container and metadata ---------------------------------------------- */

void rondo_format_version(const rondo_trace *t, unsigned *major,
			  unsigned *minor)
{
	if (major)
		*major = t && t->opened ? t->c.major : 0;
	if (minor)
		*minor = t && t->opened ? t->c.minor : 0;
}

uint32_t rondo_section_count(const rondo_trace *t)
{
	return t && t->opened ? t->c.nsec : 0;
}

int rondo_section_info(const rondo_trace *t, uint32_t i, const char **name,
		       uint64_t *stored, uint64_t *raw)
{
	if (!t || !t->opened || i >= t->c.nsec)
		return RONDO_E_RANGE;
	if (name)
		*name = fmt_section_name(t->c.sec[i].type);
	if (stored)
		*stored = t->c.sec[i].stored;
	if (raw)
		*raw = t->c.sec[i].raw;
	return 0;
}

uint64_t rondo_file_size(const rondo_trace *t)
{
	return t && t->opened ? t->size : 0;
}

uint32_t rondo_meta_count(const rondo_trace *t)
{
	return t && t->opened ? t->meta.n : 0;
}

int rondo_meta_entry(const rondo_trace *t, uint32_t i, const char **key,
		     const char **value)
{
	if (!t || !t->opened || i >= t->meta.n)
		return RONDO_E_RANGE;
	if (key)
		*key = t->meta.kv[i].key;
	if (value)
		*value = t->meta.kv[i].value;
	return 0;
}

const char *rondo_meta_get(const rondo_trace *t, const char *key)
{
	if (!t || !t->opened || !key)
		return NULL;
	for (uint32_t i = 0; i < t->meta.n; i++)
		if (strcmp(t->meta.kv[i].key, key) == 0)
			return t->meta.kv[i].value;
	return NULL;
}

/* ---- functions, constants, signatures ------------------------------------ */

uint32_t rondo_func_count(const rondo_trace *t)
{
	return t && t->opened ? t->funcs.n : 0;
}

const char *rondo_func_name(const rondo_trace *t, uint32_t id)
{
	return t && t->opened && id < t->funcs.n ? t->funcs.f[id].name : NULL;
}

uint32_t rondo_func_param_count(const rondo_trace *t, uint32_t id)
{
	return t && t->opened && id < t->funcs.n ? t->funcs.f[id].nparams : 0;
}

const char *rondo_func_param_name(const rondo_trace *t, uint32_t id, uint32_t p)
{
	if (!t || !t->opened || id >= t->funcs.n || p >= t->funcs.f[id].nparams)
		return NULL;
	return t->funcs.f[id].params[p];
}

int rondo_func_param_is_output(const rondo_trace *t, uint32_t id, uint32_t p)
{
	if (!t || !t->opened || id >= t->funcs.n || p >= t->funcs.f[id].nparams)
		return 0;
	return (t->funcs.f[id].flags[p] & FMT_PARAM_OUT) != 0;
}

uint32_t rondo_const_count(const rondo_trace *t)
{
	return t && t->opened ? t->consts.n : 0;
}

const char *rondo_const_name(const rondo_trace *t, uint32_t id)
{
	return t && t->opened && id < t->consts.n ? t->consts.name[id] : NULL;
}

uint32_t rondo_sig_count(const rondo_trace *t)
{
	return t && t->opened ? t->cst.n : 0;
}

uint32_t rondo_sig_func(const rondo_trace *t, uint32_t sig)
{
	return t && t->opened && sig < t->cst.n ? t->cst.sig[sig].func
						: UINT32_MAX;
}

uint32_t rondo_sig_arg_count(const rondo_trace *t, uint32_t sig)
{
	return t && t->opened && sig < t->cst.n ? t->cst.sig[sig].nargs : 0;
}

int rondo_sig_arg(const rondo_trace *t, uint32_t sig, uint32_t a,
		  rondo_arg *out)
{
	struct fmt_cur c;
	int rc = 0;

	if (!t || !t->opened || sig >= t->cst.n || a >= t->cst.sig[sig].nargs)
		return RONDO_E_RANGE;
	/* The decoder validated every value, so these gets cannot fail. */
	fmt_cur_init(&c, t->cst.sig[sig].args, t->cst.sig[sig].len, "cst",
		     NULL);
	for (uint32_t i = 0; i <= a && rc == 0; i++)
		rc = fmt_arg_get(&c, out);
	return rc;
}

int rondo_arg_elem(const rondo_arg *list, uint64_t k, rondo_arg *out)
{
	struct fmt_cur c;
	int rc = 0;

	if (!list || list->wire != RONDO_WIRE_LIST || k >= list->n)
		return RONDO_E_RANGE;
	fmt_cur_init(&c, list->data, list->size, "cst", NULL);
	for (uint64_t i = 0; i <= k && rc == 0; i++)
		rc = fmt_arg_get(&c, out);
	return rc;
}

/* ---- grammar, ranks, statistics ------------------------------------------ */

uint32_t rondo_rule_count(const rondo_trace *t)
{
	return t && t->opened ? t->g.nrules : 0;
}

int rondo_rule_body(const rondo_trace *t, uint32_t rule, const rondo_sym **body,
		    uint32_t *len)
{
	if (!t || !t->opened || rule >= t->g.nrules)
		return RONDO_E_RANGE;
	if (body)
		*body = t->g.body + t->g.first[rule];
	if (len)
		*len = t->g.first[rule + 1] - t->g.first[rule];
	return 0;
}

uint64_t rondo_rule_calls(const rondo_trace *t, uint32_t rule)
{
	return t && t->opened && rule < t->g.nrules ? t->rule_calls[rule] : 0;
}

uint64_t rondo_grammar_size(const rondo_trace *t)
{
	return t && t->opened ? t->nsyms : 0;
}

uint32_t rondo_rank_count(const rondo_trace *t)
{
	return t && t->opened ? t->rm.nranks : 0;
}

uint32_t rondo_rank_root(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->rm.nranks ? t->rank_root[rank]
						     : UINT32_MAX;
}

uint64_t rondo_rank_calls(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->rm.nranks
		       ? t->rule_calls[t->rank_root[rank]]
		       : 0;
}

uint32_t rondo_rank_group(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->rm.nranks ? t->rank_group[rank]
						     : UINT32_MAX;
}

uint32_t rondo_precision(const rondo_trace *t, uint32_t *merged)
{
	const char *v = rondo_meta_get(t, "precision");
	const char *m = rondo_meta_get(t, "merged");
	char *end;
	unsigned long p = v ? strtoul(v, &end, 10) : 100;

	if (merged) { /* the section's, or the writer's word when lost */
		*merged = 0;
		for (uint32_t i = 0; i < t->hists.n; i++)
			*merged += t->hists.h[i].kind == FMT_HIST_COUNT;
		if (!t->hists.n && m && !strncmp(m, "loop counts: ", 13))
			*merged = (uint32_t)strtoul(m + 13, NULL, 10);
	}
	if (t->hists.n)
		return t->hists.precision;
	return v && *v && !*end && p < 100 ? (uint32_t)p : 100;
}

/* Histogram h as the API gives it. */
static void merged_set(const rondo_trace *t, const struct fmt_hist *h,
		       rondo_merged_loop *out)
{
	*out = (rondo_merged_loop){
		.id = (uint32_t)(h - t->hists.h),
		.nbins = h->nbins,
		.loops = h->n,
		.sum = h->sum,
		.min = h->min,
		.max = h->max,
		.min_rank = h->min_rank,
		.max_rank = h->max_rank,
		.kind = h->kind == FMT_HIST_PARAM ? RONDO_MERGED_VALUE
						  : RONDO_MERGED_LOOP,
	};
}

int rondo_arg_merged(const rondo_trace *t, const rondo_arg *a, rondo_arg *value,
		     rondo_merged_loop *h)
{
	rondo_arg id, v;

	if (value)
		*value = a ? *a : (rondo_arg){0};
	if (!t || !t->opened || !a || a->kind != RONDO_ARG_MERGED)
		return 0;
	if (a->wire != RONDO_WIRE_LIST || a->n != 2 ||
	    rondo_arg_elem(a, 0, &id) < 0 || rondo_arg_elem(a, 1, &v) < 0 ||
	    id.wire != RONDO_WIRE_UINT)
		return RONDO_E_CORRUPT;
	if (value)
		*value = v;
	if (id.u >= t->hists.n || t->hists.h[id.u].kind != FMT_HIST_PARAM)
		return RONDO_E_CORRUPT;
	if (h)
		merged_set(t, &t->hists.h[id.u], h);
	return 1;
}

int rondo_loop_hist(const rondo_trace *t, uint32_t rule, uint32_t pos,
		    rondo_merged_loop *out)
{
	const struct fmt_hist *h;

	if (!t || !t->opened || rule >= t->g.nrules ||
	    pos >= t->g.first[rule + 1] - t->g.first[rule])
		return RONDO_E_RANGE;
	h = fmt_hists_find(&t->hists, rule, pos);
	if (!h)
		return 0;
	if (out)
		merged_set(t, h, out);
	return 1;
}

int rondo_merged_info(const rondo_trace *t, uint32_t id, rondo_merged_loop *out)
{
	if (!t || !t->opened || id >= t->hists.n)
		return RONDO_E_RANGE;
	if (out)
		merged_set(t, &t->hists.h[id], out);
	return 0;
}

int rondo_merged_bin(const rondo_trace *t, uint32_t id, uint32_t k,
		     uint64_t *lo, uint64_t *hi, uint64_t *n)
{
	const struct fmt_hist *h;

	if (!t || !t->opened || id >= t->hists.n || k >= t->hists.h[id].nbins)
		return RONDO_E_RANGE;
	h = &t->hists.h[id];
	if (lo)
		*lo = h->bin[k].lo;
	if (hi)
		*hi = h->bin[k].hi;
	if (n)
		*n = h->bin[k].n;
	return 0;
}

int rondo_rank_lost(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->rm.nranks &&
	       t->lost_rule != UINT32_MAX && t->rank_root[rank] == t->lost_rule;
}

int rondo_timing_mode(const rondo_trace *t, double *base)
{
	int on = t && t->opened && t->timing.nranks;

	if (base)
		*base = on ? t->timing.base : 0;
	return on ? RONDO_TIMING_PERCALL : RONDO_TIMING_AGGREGATED;
}

uint64_t rondo_rank_timed_calls(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->timing.nranks ? t->ttimed[rank] : 0;
}

int64_t rondo_rank_clock_offset(const rondo_trace *t, uint32_t rank)
{
	return t && t->opened && rank < t->timing.nranks
		       ? t->timing.offset[rank]
		       : 0;
}

uint32_t rondo_group_count(const rondo_trace *t)
{
	return t && t->opened ? t->ngroups : 0;
}

uint32_t rondo_group_root(const rondo_trace *t, uint32_t g)
{
	return t && t->opened && g < t->ngroups ? t->groups[g].root
						: UINT32_MAX;
}

uint32_t rondo_group_size(const rondo_trace *t, uint32_t g)
{
	return t && t->opened && g < t->ngroups ? t->groups[g].size : 0;
}

int rondo_group_lost(const rondo_trace *t, uint32_t g)
{
	return t && t->opened && g < t->ngroups && t->lost_rule != UINT32_MAX &&
	       t->groups[g].root == t->lost_rule;
}

int64_t rondo_group_ranks(const rondo_trace *t, uint32_t g, uint32_t *ranks,
			  uint32_t max)
{
	uint32_t k = 0;

	if (!t || !t->opened || g >= t->ngroups || (max && !ranks))
		return RONDO_E_RANGE;
	for (uint32_t r = 0; r < t->rm.nranks && k < max; r++)
		if (t->rank_group[r] == g)
			ranks[k++] = r;
	return t->groups[g].size;
}

/* The record of `sig` in st (sorted by signature), into *out. */
static int stats_find(const rondo_trace *t, const struct fmt_stats *st,
		      uint32_t sig, rondo_stat *out)
{
	const struct fmt_stat *x;

	if (!t || !t->opened || sig >= t->cst.n || !out)
		return RONDO_E_RANGE;
	x = fmt_sig_find(st->st, st->n, sizeof(*st->st), sig);
	if (!x)
		return RONDO_E_MISSING;
	*out = x->s;
	return 0;
}

int rondo_sig_stat(const rondo_trace *t, uint32_t sig, rondo_stat *out)
{
	return stats_find(t, t ? &t->stats : NULL, sig, out);
}

int rondo_sig_gap_stat(const rondo_trace *t, uint32_t sig, rondo_stat *out)
{
	return stats_find(t, t ? &t->gaps : NULL, sig, out);
}

int rondo_sig_group_gap(const rondo_trace *t, uint32_t sig, uint32_t group,
			uint64_t *ns, uint64_t *calls)
{
	const struct fmt_gapent *e;

	if (!t || !t->opened || sig >= t->cst.n || group >= t->ngroups)
		return RONDO_E_RANGE;
	if (!t->ggaps.root)
		return RONDO_E_MISSING;
	e = fmt_groupgaps_find(&t->ggaps, t->groups[group].gaps, sig);
	if (ns)
		*ns = e ? e->ns : 0;
	if (calls)
		*calls = e ? e->calls : 0;
	return 0;
}

int64_t rondo_type_size(const rondo_trace *t, const rondo_arg *v)
{
	rondo_arg e;
	uint32_t lo = 0, hi;

	if (!t || !v)
		return -1;
	if (v->kind == RONDO_ARG_DTYPE_SIZE && v->wire == RONDO_WIRE_LIST &&
	    v->n == 2 && rondo_arg_elem(v, 1, &e) == 0 &&
	    e.wire == RONDO_WIRE_UINT && e.u <= INT64_MAX)
		return (int64_t)e.u;
	if (v->kind != RONDO_ARG_CONST || v->wire != RONDO_WIRE_UINT)
		return -1;
	for (hi = t->typesizes.n; lo < hi;) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->typesizes.konst[mid] < v->u)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == t->typesizes.n || t->typesizes.konst[lo] != v->u ||
	    t->typesizes.size[lo] > INT64_MAX)
		return -1;
	return (int64_t)t->typesizes.size[lo];
}

/* ---- per-rank times ------------------------------------------------------ */

/* 0, or why rank r's times cannot be read: RONDO_E_MISSING when the file
 * keeps none, or (each 1) only a summary. */
static int times_check(const rondo_trace *t, uint32_t rank, int each)
{
	if (!t || !t->opened || rank >= t->rm.nranks)
		return RONDO_E_RANGE;
	if (t->times.at)
		return 0;
	return t->summed && !each ? 0 : RONDO_E_MISSING;
}

uint32_t rondo_rank_time_count(const rondo_trace *t, uint32_t rank)
{
	if (times_check(t, rank, 1) < 0)
		return 0;
	/* A list holds distinct signatures: the count fits. */
	return (uint32_t)(t->times.at[rank + 1] - t->times.at[rank]);
}

int rondo_rank_time_entry(const rondo_trace *t, uint32_t rank, uint32_t k,
			  uint32_t *sig, uint64_t *ns)
{
	int rc = times_check(t, rank, 1);

	if (rc < 0)
		return rc;
	if (k >= rondo_rank_time_count(t, rank))
		return RONDO_E_RANGE;
	if (sig)
		*sig = t->times.sig[t->times.list[rank] + k];
	if (ns)
		*ns = fmt_time_value(t->times.code[t->times.at[rank] + k]);
	return 0;
}

/* A summary's answer: the rank's time when the spread lists it, 0 when
 * it lists every rank that called sig and not this one. */
static int sig_rank_summed(const rondo_trace *t, uint32_t sig, uint32_t rank,
			   uint64_t *ns)
{
	const struct fmt_sigsum *ss = fmt_ranksum_find(&t->sum, sig);

	if (!ss)
		return 0;
	for (uint32_t j = 0; j < ss->nslow + ss->nfast; j++)
		if (t->sum.ext[ss->ext + j].rank == rank) {
			*ns = fmt_time_value(t->sum.ext[ss->ext + j].code);
			return 0;
		}
	return ss->ranks == ss->nslow + ss->nfast ? 0 : RONDO_E_MISSING;
}

int rondo_sig_rank_time(const rondo_trace *t, uint32_t sig, uint32_t rank,
			uint64_t *ns)
{
	const struct fmt_ranktime *r;
	uint32_t lo = 0, hi;
	int rc = times_check(t, rank, 0);

	if (rc == RONDO_E_RANGE || sig >= t->cst.n || !ns)
		return RONDO_E_RANGE;
	if (rc < 0)
		return rc;
	*ns = 0;
	if (!t->times.at)
		return sig_rank_summed(t, sig, rank, ns);
	r = &t->times;
	hi = rondo_rank_time_count(t, rank);
	while (lo < hi) { /* the rank's signatures are increasing */
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->sig[r->list[rank] + mid] < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < rondo_rank_time_count(t, rank) &&
	    r->sig[r->list[rank] + lo] == sig)
		*ns = fmt_time_value(r->code[r->at[rank] + lo]);
	return 0;
}

int rondo_rank_mpi_time(const rondo_trace *t, uint32_t rank, uint64_t *ns)
{
	int rc = times_check(t, rank, 0);
	uint64_t sum = 0;

	if (rc < 0 || !ns)
		return rc < 0 ? rc : RONDO_E_RANGE;
	if (!t->times.at) {
		*ns = fmt_time_value(t->sum.mpi[rank]);
		return 0;
	}
	for (uint64_t k = t->times.at[rank]; k < t->times.at[rank + 1]; k++) {
		uint64_t v = fmt_time_value(t->times.code[k]);

		/* Only a made-up file gets near: saturate, do not wrap. */
		sum = v > UINT64_MAX - sum ? UINT64_MAX : sum + v;
	}
	*ns = sum;
	return 0;
}

int rondo_rank_times_kept(const rondo_trace *t, uint32_t *extremes)
{
	int kept = !t || !t->opened ? RONDO_RANKTIMES_NONE
		   : t->times.at    ? RONDO_RANKTIMES_EACH
		   : t->summed	    ? RONDO_RANKTIMES_SUMMARY
				    : RONDO_RANKTIMES_NONE;

	if (extremes)
		*extremes = kept == RONDO_RANKTIMES_EACH      ? RONDO_SPREAD_MAX
			    : kept == RONDO_RANKTIMES_SUMMARY ? t->sum.k
							      : 0;
	return kept;
}

_Static_assert(RONDO_SPREAD_MAX == FMT_RANKSUM_KMAX,
	       "a spread holds what a summary may list");

/* 0, or why the spreads of t cannot be read. */
static int spread_check(const rondo_trace *t, uint32_t sig)
{
	if (!t || !t->opened || sig >= t->cst.n)
		return RONDO_E_RANGE;
	return t->times.at || t->summed ? 0 : RONDO_E_MISSING;
}

int rondo_sig_spread(const rondo_trace *t, uint32_t sig, rondo_spread *out)
{
	const struct fmt_sigsum *ss;
	int rc = out ? spread_check(t, sig) : RONDO_E_RANGE;

	if (rc < 0)
		return rc;
	memset(out, 0, sizeof(*out));
	ss = fmt_ranksum_find(&t->sum, sig);
	if (!ss)
		return 0;
	out->ranks = ss->ranks;
	out->sum_ns = ss->sum;
	out->nslow = ss->nslow;
	out->nfast = ss->nfast;
	out->nbins = ss->nbins;
	for (uint32_t j = 0; j < ss->nslow; j++) {
		out->slow_rank[j] = t->sum.ext[ss->ext + j].rank;
		out->slow_ns[j] = fmt_time_value(t->sum.ext[ss->ext + j].code);
	}
	for (uint32_t j = 0; j < ss->nfast; j++) {
		const struct fmt_rankext *x =
			&t->sum.ext[ss->ext + ss->nslow + j];

		out->fast_rank[j] = x->rank;
		out->fast_ns[j] = fmt_time_value(x->code);
	}
	return 0;
}

int rondo_sig_spread_bin(const rondo_trace *t, uint32_t sig, uint32_t k,
			 uint64_t *lo_ns, uint64_t *hi_ns, uint32_t *ranks)
{
	const struct fmt_sigsum *ss;
	const struct fmt_rankbin *b;
	uint32_t last;
	int rc = spread_check(t, sig);

	if (rc < 0)
		return rc;
	ss = fmt_ranksum_find(&t->sum, sig);
	if (!ss || k >= ss->nbins)
		return RONDO_E_RANGE;
	b = &t->sum.bin[ss->bin + k];
	last = b->bin * 8u + 7u;
	if (lo_ns)
		*lo_ns = fmt_time_value((uint16_t)(b->bin * 8u));
	if (hi_ns)
		*hi_ns = fmt_time_value((uint16_t)(last > FMT_TIME_CODE_MAX
							   ? FMT_TIME_CODE_MAX
							   : last));
	if (ranks)
		*ranks = b->count;
	return 0;
}
