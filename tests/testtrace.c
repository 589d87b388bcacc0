/*
 * testtrace.c - the tests' trace writer (see testtrace.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar.h"
#include "merge.h"
#include "precision.h"
#include "testtrace.h"

struct testtrace {
	uint32_t nranks;
	uint32_t precision;    /* 0 (or 100): lossless */
	struct grammar **rank; /* one grammar per rank */
	struct fmt_meta meta;
	struct fmt_funcs funcs;
	struct fmt_consts consts;
	struct fmt_cst cst;
	struct fmt_buf args;	 /* all signatures' argument bytes */
	size_t *args_off;	 /* where each signature's bytes start */
	struct fmt_stats stats;	 /* one record per signature, same index */
	struct tt_time **time;	 /* per rank, by signature: its own totals */
	uint32_t *ntime;	 /* signatures time[r] has room for */
	struct fmt_typesizes ts; /* sizes of predefined datatypes */
	struct fmt_comms comms;	 /* communicators (tt_comm) */
	struct fmt_topos topos;	 /* their Cartesian grids (tt_cart) */
	/* per-call timing (tt_timing): base 0 for none */
	struct fmt_tscale sc;
	struct tt_timed {
		uint32_t *sig, *dc, *ic; /* each timed call's */
		/* tt_call_at's calls: the times, coded at the end as the
		 * form asks (at[k] set) */
		int64_t *start;
		uint64_t *dur;
		uint8_t *at;
		size_t n;
		int64_t offset;
	} * timed;    /* per rank */
	int tgrammar; /* the form of 1.7 and older (tt_timing_grammar) */
	int tfixed;   /* the coder of 1.8 and 1.9 (tt_timing_fixed) */
};

struct tt_time {
	uint64_t calls, ns;
};

/* A test cannot go on without memory: say so and stop. */
static void tt_die(const char *what)
{
	fprintf(stderr, "testtrace: %s failed\n", what);
	exit(99);
}

static void *tt_alloc(void *p, size_t n, size_t size)
{
	p = realloc(p, (n ? n : 1) * size);
	if (!p)
		tt_die("realloc");
	return p;
}

static char *tt_strdup(const char *s)
{
	char *d = tt_alloc(NULL, strlen(s) + 1, 1);

	return memcpy(d, s, strlen(s) + 1);
}

struct testtrace *tt_create(uint32_t nranks)
{
	struct testtrace *tt = tt_alloc(NULL, 1, sizeof(*tt));

	memset(tt, 0, sizeof(*tt));
	tt->nranks = nranks;
	tt->rank = tt_alloc(NULL, nranks, sizeof(*tt->rank));
	tt->time = tt_alloc(NULL, nranks, sizeof(*tt->time));
	tt->ntime = tt_alloc(NULL, nranks, sizeof(*tt->ntime));
	memset(tt->time, 0, sizeof(*tt->time) * nranks);
	memset(tt->ntime, 0, sizeof(*tt->ntime) * nranks);
	for (uint32_t r = 0; r < nranks; r++) {
		tt->rank[r] = grammar_create();
		if (!tt->rank[r])
			tt_die("grammar_create");
	}
	return tt;
}

void tt_free(struct testtrace *tt)
{
	if (!tt)
		return;
	for (uint32_t r = 0; r < tt->nranks; r++) {
		grammar_free(tt->rank[r]);
		free(tt->time[r]);
	}
	free(tt->rank);
	free(tt->time);
	free(tt->ntime);
	fmt_meta_free(&tt->meta);
	fmt_funcs_free(&tt->funcs);
	fmt_consts_free(&tt->consts);
	free(tt->cst.sig);
	fmt_buf_free(&tt->args);
	free(tt->args_off);
	fmt_stats_free(&tt->stats);
	fmt_typesizes_free(&tt->ts);
	fmt_comms_free(&tt->comms);
	fmt_topos_free(&tt->topos);
	for (uint32_t r = 0; tt->timed && r < tt->nranks; r++) {
		free(tt->timed[r].sig);
		free(tt->timed[r].dc);
		free(tt->timed[r].ic);
		free(tt->timed[r].start);
		free(tt->timed[r].dur);
		free(tt->timed[r].at);
	}
	free(tt->timed);
	fmt_tscale_free(&tt->sc);
	free(tt);
}

void tt_timing(struct testtrace *tt, double base)
{
	if (fmt_tscale_init(&tt->sc, base) < 0)
		tt_die("fmt_tscale_init");
	tt->timed = tt_alloc(NULL, tt->nranks, sizeof(*tt->timed));
	memset(tt->timed, 0, sizeof(*tt->timed) * tt->nranks);
}

void tt_timing_grammar(struct testtrace *tt)
{
	tt->tgrammar = 1;
}

void tt_timing_fixed(struct testtrace *tt)
{
	tt->tfixed = 1;
}

/* Rank `rank`'s next timed call: its codes, or (at) its times. */
static void tt_codes(struct testtrace *tt, uint32_t rank, uint32_t sig,
		     uint32_t dc, uint32_t ic, int at, int64_t start,
		     uint64_t dur)
{
	struct tt_timed *t = &tt->timed[rank];

	t->sig = tt_alloc(t->sig, t->n + 1, sizeof(*t->sig));
	t->dc = tt_alloc(t->dc, t->n + 1, sizeof(*t->dc));
	t->ic = tt_alloc(t->ic, t->n + 1, sizeof(*t->ic));
	t->start = tt_alloc(t->start, t->n + 1, sizeof(*t->start));
	t->dur = tt_alloc(t->dur, t->n + 1, sizeof(*t->dur));
	t->at = tt_alloc(t->at, t->n + 1, sizeof(*t->at));
	t->sig[t->n] = sig;
	t->dc[t->n] = dc;
	t->ic[t->n] = ic;
	t->start[t->n] = start;
	t->dur[t->n] = dur;
	t->at[t->n++] = (uint8_t)at;
}

/* The codes of the calls given by their times, as the tracer codes them
 * (or, for the form of 1.7, as 1.7 did). */
static void tt_code_times(struct testtrace *tt)
{
	for (uint32_t r = 0; r < tt->nranks; r++) {
		struct tt_timed *t = &tt->timed[r];
		struct fmt_tenc enc = {&tt->sc, 0, 0, tt->tgrammar};

		for (size_t k = 0; k < t->n; k++)
			if (t->at[k])
				fmt_tenc_call(&enc, t->start[k], t->dur[k],
					      &t->dc[k], &t->ic[k]);
	}
}

void tt_clock_offset(struct testtrace *tt, uint32_t rank, int64_t offset)
{
	tt->timed[rank].offset = offset;
}

void tt_call_at(struct testtrace *tt, uint32_t rank, uint32_t sig,
		int64_t start_ns, uint64_t dur_ns)
{
	tt_call(tt, rank, sig, 1, dur_ns);
	tt_codes(tt, rank, sig, 0, 0, 1, start_ns - tt->timed[rank].offset,
		 dur_ns);
}

void tt_call_codes(struct testtrace *tt, uint32_t rank, uint32_t sig,
		   uint64_t dur_ns, uint32_t dcode, uint32_t icode)
{
	tt_call(tt, rank, sig, 1, dur_ns);
	tt_codes(tt, rank, sig, dcode, icode, 0, 0, 0);
}

void tt_precision(struct testtrace *tt, uint32_t precision)
{
	tt->precision = precision;
}

void tt_meta(struct testtrace *tt, const char *key, const char *value)
{
	tt->meta.kv =
		tt_alloc(tt->meta.kv, tt->meta.n + 1, sizeof(*tt->meta.kv));
	tt->meta.kv[tt->meta.n].key = tt_strdup(key);
	tt->meta.kv[tt->meta.n].value = tt_strdup(value);
	tt->meta.n++;
}

uint32_t tt_func(struct testtrace *tt, const char *name, ...)
{
	struct fmt_func *f;
	const char *p;
	va_list ap;

	tt->funcs.f =
		tt_alloc(tt->funcs.f, tt->funcs.n + 1, sizeof(*tt->funcs.f));
	f = &tt->funcs.f[tt->funcs.n];
	memset(f, 0, sizeof(*f));
	f->name = tt_strdup(name);
	va_start(ap, name);
	while ((p = va_arg(ap, const char *)) != NULL) {
		f->params =
			tt_alloc(f->params, f->nparams + 1, sizeof(*f->params));
		f->flags = tt_alloc(f->flags, f->nparams + 1, 1);
		/* ">name": an output parameter */
		f->flags[f->nparams] = *p == '>' ? FMT_PARAM_OUT : 0;
		f->params[f->nparams++] = tt_strdup(p + (*p == '>'));
	}
	va_end(ap);
	return tt->funcs.n++;
}

uint32_t tt_const(struct testtrace *tt, const char *name)
{
	tt->consts.name = tt_alloc(tt->consts.name, tt->consts.n + 1,
				   sizeof(*tt->consts.name));
	tt->consts.name[tt->consts.n] = tt_strdup(name);
	return tt->consts.n++;
}

uint32_t tt_sig(struct testtrace *tt, uint32_t func, const struct fmt_buf *args,
		uint32_t nargs)
{
	uint32_t n = tt->cst.n;

	/* The same signature twice would be a bug in a test: look it up. */
	for (uint32_t s = 0; s < n; s++)
		if (tt->cst.sig[s].func == func &&
		    tt->cst.sig[s].len == args->len &&
		    !memcmp(tt->args.data + tt->args_off[s], args->data,
			    args->len))
			return s;
	tt->cst.sig = tt_alloc(tt->cst.sig, n + 1, sizeof(*tt->cst.sig));
	tt->args_off = tt_alloc(tt->args_off, n + 1, sizeof(size_t));
	tt->stats.st = tt_alloc(tt->stats.st, n + 1, sizeof(*tt->stats.st));
	tt->cst.sig[n] =
		(struct fmt_sig){func, nargs, (uint32_t)args->len, NULL};
	tt->args_off[n] = tt->args.len;
	fmt_put_bytes(&tt->args, args->data, args->len);
	memset(&tt->stats.st[n], 0, sizeof(tt->stats.st[n]));
	tt->stats.st[n].sig = n;
	tt->stats.st[n].s.min_ns = UINT64_MAX;
	return tt->cst.n++;
}

void tt_call(struct testtrace *tt, uint32_t rank, uint32_t sig, uint64_t count,
	     uint64_t ns)
{
	rondo_stat *s = &tt->stats.st[sig].s;

	if (grammar_append(tt->rank[rank], sig, count) < 0)
		tt_die("grammar_append");
	if (sig >= tt->ntime[rank]) {
		tt->time[rank] = tt_alloc(tt->time[rank], sig + 1,
					  sizeof(struct tt_time));
		memset(tt->time[rank] + tt->ntime[rank], 0,
		       sizeof(struct tt_time) * (sig + 1 - tt->ntime[rank]));
		tt->ntime[rank] = sig + 1;
	}
	tt->time[rank][sig].calls += count;
	tt->time[rank][sig].ns += count * ns;
	s->count += count;
	s->total_ns += count * ns;
	s->sumsq_ns2 += (double)count * (double)ns * (double)ns;
	s->min_ns = ns < s->min_ns ? ns : s->min_ns;
	s->max_ns = ns > s->max_ns ? ns : s->max_ns;
	s->hist[fmt_hist_bin(ns)] += count;
}

/* The timing of tm (the merge's, coded) in the form of 1.7 and older: a
 * rule of each rank's duration codes, one of its interval codes, and a
 * map listing them (2r, 2r + 1). */
static void tt_timing_rules(struct testtrace *tt, struct fmt_timing *tm)
{
	uint32_t n = 2 * tt->nranks;
	size_t nsym = 0, at = 0;

	for (uint32_t r = 0; r < tt->nranks; r++)
		nsym += 2 * tt->timed[r].n;
	free(tm->first);
	free(tm->seg);
	free(tm->data);
	tm->first = NULL;
	tm->seg = NULL;
	tm->data = NULL;
	tm->coded = 0;
	tm->g.nrules = n;
	tm->g.first = tt_alloc(NULL, n + 1, sizeof(uint32_t));
	tm->g.body = tt_alloc(NULL, nsym + 1, sizeof(rondo_sym));
	for (uint32_t k = 0; k < n; k++) {
		const struct tt_timed *t = &tt->timed[k / 2];

		tm->g.first[k] = (uint32_t)at;
		for (size_t i = 0; i < t->n; i++)
			tm->g.body[at++] =
				(rondo_sym){k % 2 ? t->ic[i] : t->dc[i], 0, 1};
	}
	tm->g.first[n] = (uint32_t)at;
	tm->map.nranks = n;
	tm->map.map.nrules = 1;
	tm->map.map.first = tt_alloc(NULL, 2, sizeof(uint32_t));
	tm->map.map.body = tt_alloc(NULL, n + 1, sizeof(rondo_sym));
	tm->map.map.first[0] = 0;
	tm->map.map.first[1] = n;
	for (uint32_t k = 0; k < n; k++)
		tm->map.map.body[k] = (rondo_sym){k, 0, 1};
}

/* One grammar for all ranks and the rank map, by the tracer's own merge:
 * distinct rank grammars concatenated in order of first appearance, each
 * as exported, so rule numbers come out as the rank grammars have them.
 * The signatures are global already: no table to merge. */
static int tt_merge(struct testtrace *tt, struct fmt_grammar *all,
		    struct fmt_rankmap *rm, struct fmt_timing *tm)
{
	struct merge *m = merge_create();
	int rc = m ? 0 : RONDO_E_NOMEM;

	memset(all, 0, sizeof(*all));
	memset(rm, 0, sizeof(*rm));
	memset(tm, 0, sizeof(*tm));
	if (rc == 0 && tt->timed) {
		tt_code_times(tt);
		rc = merge_set_timing(m, tt->sc.base);
	}
	for (uint32_t r = 0; r < tt->nranks && rc == 0; r++) {
		const struct tt_timed *t = tt->timed ? &tt->timed[r] : NULL;
		struct fmt_grammar e;
		struct fmt_buf b = {0};

		rc = grammar_export(tt->rank[r], &e);
		if (rc == 0)
			rc = merge_add_grammar(m, &e);
		if (rc == 0 && t) { /* coded as the tracer codes them */
			rc = fmt_tstream_code(&b, t->n, t->sig, t->dc, t->ic,
					      tt->tfixed);
			rc = rc ? rc
				: merge_add_timing(m, b.data, b.len, t->n,
						   t->offset);
		}
		fmt_grammar_free(&e);
		fmt_buf_free(&b);
	}
	if (rc == 0)
		rc = merge_finish(m, all, rm);
	if (rc == 0 && tt->timed)
		rc = merge_timing(m, tm);
	merge_free(m);
	if (rc == 0 && tt->timed)
		tm->follow = !tt->tfixed;
	if (rc == 0 && tt->timed && tt->tgrammar)
		tt_timing_rules(tt, tm);
	return rc;
}

/* Each rank's times as the tracer writes them: a list per rank. */
static void tt_times(struct testtrace *tt, struct fmt_buf *b)
{
	struct fmt_ranktime r = {tt->nranks, NULL, NULL, NULL, NULL};
	uint64_t n = 0;

	for (uint32_t k = 0; k < tt->nranks; k++)
		n += tt->ntime[k];
	r.at = tt_alloc(NULL, tt->nranks + 1, sizeof(*r.at));
	r.sig = tt_alloc(NULL, n, sizeof(*r.sig));
	r.code = tt_alloc(NULL, n, sizeof(*r.code));
	r.list = r.at;
	r.at[0] = n = 0;
	for (uint32_t k = 0; k < tt->nranks; k++) {
		for (uint32_t s = 0; s < tt->ntime[k]; s++) {
			if (!tt->time[k][s].calls)
				continue;
			r.sig[n] = s;
			r.code[n++] = fmt_time_code(tt->time[k][s].ns);
		}
		r.at[k + 1] = n;
	}
	fmt_ranktime_encode(b, &r);
	free(r.at);
	free(r.sig);
	free(r.code);
}

void tt_typesize(struct testtrace *tt, uint32_t konst, uint64_t size)
{
	uint32_t i = tt->ts.n;

	tt->ts.konst = tt_alloc(tt->ts.konst, i + 1, sizeof(*tt->ts.konst));
	tt->ts.size = tt_alloc(tt->ts.size, i + 1, sizeof(*tt->ts.size));
	for (; i > 0 && tt->ts.konst[i - 1] > konst; i--) {
		tt->ts.konst[i] = tt->ts.konst[i - 1];
		tt->ts.size[i] = tt->ts.size[i - 1];
	}
	tt->ts.konst[i] = konst;
	tt->ts.size[i] = size;
	tt->ts.n++;
}

rondo_trace *tt_open(struct testtrace *tt, struct fmt_buf *file, int future)
{
	struct fmt_writer w;
	rondo_trace *t = rondo_trace_create();

	fmt_writer_init(&w);
	if (!t || tt_finish(tt, &w, future) != 0 ||
	    fmt_writer_finish(&w, file) != 0)
		tt_die("writing a trace");
	fmt_writer_free(&w);
	if (rondo_trace_open_memory(t, file->data, file->len, "tt.rondo") < 0) {
		fprintf(stderr, "testtrace: %s\n", rondo_trace_error(t));
		exit(99);
	}
	return t;
}

int tt_finish(struct testtrace *tt, struct fmt_writer *w, int future)
{
	return tt_finish_patched(tt, w, future, NULL, 0);
}

/* The payload section `type` gets: a patch's, or the encoded one. */
static const struct fmt_buf *tt_payload(uint32_t type,
					const struct fmt_buf *own,
					const struct tt_patch *patch, int np)
{
	for (int k = 0; k < np; k++)
		if (patch[k].type == type)
			return patch[k].payload;
	return own;
}

int tt_finish_patched(struct testtrace *tt, struct fmt_writer *w, int future,
		      const struct tt_patch *patch, int npatch)
{
	struct fmt_grammar all;
	struct fmt_rankmap rm = {0};
	struct fmt_timing tm;
	struct fmt_buf b[14] = {{0}};
	struct fmt_groupgaps gg = {0};
	struct fmt_hists hs = {0};
	/* the tracer's order: what the calls need first, per-call times
	 * last */
	static const uint32_t type[12] = {
		FMT_SEC_META,  FMT_SEC_FUNCS,	  FMT_SEC_CONSTS,
		FMT_SEC_CST,   FMT_SEC_GRAMMAR,	  FMT_SEC_RANKMAP,
		FMT_SEC_COMMS, FMT_SEC_TYPESIZES, FMT_SEC_TOPOLOGY,
		FMT_SEC_STATS, FMT_SEC_RANKTIME,  FMT_SEC_TIMING};
	/* written in this order: the grammar the last of what the calls
	 * need, as the tracer writes it */
	static const int order[12] = {0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11};
	struct fmt_stats used = {0,
				 tt_alloc(NULL, tt->cst.n, sizeof(*used.st))};
	int rc;

	/* Statistics exist only for signatures some rank called. */
	for (uint32_t s = 0; s < tt->cst.n; s++) {
		tt->cst.sig[s].args = tt->args.data + tt->args_off[s];
		if (tt->stats.st[s].s.count)
			used.st[used.n++] = tt->stats.st[s];
	}
	/* On failure the sections below are encoded empty and not added. */
	rc = tt_merge(tt, &all, &rm, &tm);
	if (rc == 0 && tt->precision && tt->precision < PRECISION_LOSSLESS)
		rc = precision_apply(&all, &rm, &gg, tt->cst.n, tt->precision,
				     0, &hs);
	fmt_meta_encode(&b[0], &tt->meta);
	fmt_funcs_encode(&b[1], &tt->funcs);
	fmt_consts_encode(&b[2], &tt->consts);
	fmt_cst_encode(&b[3], &tt->cst);
	fmt_grammar_encode(&b[4], &all);
	fmt_rankmap_encode(&b[5], &rm);
	fmt_comms_encode(&b[6], &tt->comms);
	fmt_typesizes_encode(&b[7], &tt->ts);
	fmt_topos_encode(&b[8], &tt->topos);
	fmt_stats_encode(&b[9], &used);
	tt_times(tt, &b[10]);
	if (tt->timed)
		fmt_timing_encode(&b[11], &tm);
	free(used.st);
	for (int k = 0; k < 12 && rc == 0; k++) {
		int i = order[k];
		const struct fmt_buf *p =
			tt_payload(type[i], &b[i], patch, npatch);

		if (i == 7 && !tt->ts.n && p == &b[i])
			continue; /* no datatype, no section */
		if (i == 11 && !tt->timed && p == &b[i])
			continue; /* no per-call timing, no section */
		if (i == 8 && !tt->topos.n && p == &b[i])
			continue; /* no grid, no section */

		if (p)
			rc = p->oom ? RONDO_E_NOMEM
				    : fmt_writer_add(w, type[i], p->data,
						     p->len, 3);
	}
	/* a patch of a section the writer does not make adds it */
	for (int k = 0; k < npatch && rc == 0; k++) {
		int own = 0;

		for (int i = 0; i < 12; i++)
			own |= patch[k].type == type[i];
		if (!own && patch[k].payload)
			rc = fmt_writer_add(w, patch[k].type,
					    patch[k].payload->data,
					    patch[k].payload->len, 3);
	}
	if (hs.n && rc == 0) { /* as the tracer: after what the calls need */
		fmt_hists_encode(&b[13], &hs);
		rc = b[13].oom ? RONDO_E_NOMEM
			       : fmt_writer_add(w, FMT_SEC_HISTS, b[13].data,
						b[13].len, 3);
	}
	if (future && rc == 0) {
		/* A section from a newer writer: readers must skip it. */
		fmt_put_str(&b[12], "from the future");
		rc = fmt_writer_add(w, 999, b[12].data, b[12].len, 3);
	}
	for (int i = 0; i < 14; i++)
		fmt_buf_free(&b[i]);
	fmt_hists_free(&hs);
	fmt_groupgaps_free(&gg);
	fmt_timing_free(&tm);
	fmt_grammar_free(&all);
	fmt_rankmap_free(&rm);
	return rc;
}

uint32_t tt_comm(struct testtrace *tt, uint32_t n, uint32_t first,
		 const uint32_t *world)
{
	struct fmt_comm *c;

	tt->comms.c =
		tt_alloc(tt->comms.c, tt->comms.n + 1, sizeof(*tt->comms.c));
	c = &tt->comms.c[tt->comms.n];
	c->n = n;
	c->first = first;
	c->world = tt_alloc(NULL, n, sizeof(*c->world));
	memcpy(c->world, world, sizeof(*world) * n);
	return tt->comms.n++;
}

void tt_cart(struct testtrace *tt, uint32_t comm, uint32_t ndims,
	     const uint32_t *dims, const uint8_t *periodic)
{
	struct fmt_topo *g;

	tt->topos.t =
		tt_alloc(tt->topos.t, tt->topos.n + 1, sizeof(*tt->topos.t));
	g = &tt->topos.t[tt->topos.n++];
	g->comm = comm;
	g->ndims = ndims;
	g->dims = tt_alloc(NULL, ndims, sizeof(*g->dims));
	g->periodic = tt_alloc(NULL, ndims, sizeof(*g->periodic));
	memcpy(g->dims, dims, sizeof(*dims) * ndims);
	memcpy(g->periodic, periodic, sizeof(*periodic) * ndims);
}

int tt_save(struct testtrace *tt, const char *path)
{
	struct fmt_writer w;
	char why[256];
	int rc;

	fmt_writer_init(&w);
	rc = tt_finish(tt, &w, 0);
	if (rc == 0)
		rc = fmt_writer_save(&w, path, why, sizeof(why));
	if (rc < 0)
		fprintf(stderr, "testtrace: %s\n",
			rc == RONDO_E_IO ? why : rondo_strerror(rc));
	fmt_writer_free(&w);
	return rc;
}

/* ---- the demo job -------------------------------------------------------- */

struct demo {
	struct testtrace *tt;
	uint32_t f_isend, f_irecv, f_waitall, f_allreduce;
	uint32_t c_world, c_double, c_sum, c_ignore;
	enum tt_change change;
	uint32_t barrier, changed; /* the signatures of a change */
};

/* Deterministic spread of durations: base times 1..8. */
static uint64_t demo_ns(uint64_t base, uint32_t rank, uint32_t iter)
{
	uint32_t h = rank * 2654435761u ^ iter * 40503u;

	h ^= h >> 13;
	return base * (1 + (h * 2246822519u >> 29));
}

static uint32_t demo_p2p_as(struct demo *d, uint32_t func, int64_t peer,
			    uint32_t req, int64_t count)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	fmt_arg_put_list(&a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_INT, func == d->f_isend ? 1 : 2);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, peer < 0 ? 0 : 8192);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, count);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_double);
	fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, peer);
	fmt_arg_put_sint(&a, RONDO_ARG_TAG, 7);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_world);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, req);
	sig = tt_sig(d->tt, func, &a, 7);
	fmt_buf_free(&a);
	return sig;
}

static uint32_t demo_p2p(struct demo *d, uint32_t func, int64_t peer,
			 uint32_t req)
{
	return demo_p2p_as(d, func, peer, req, 1024);
}

static uint32_t demo_waitall(struct demo *d, uint32_t nreq)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	fmt_arg_put_sint(&a, RONDO_ARG_INT, nreq);
	fmt_arg_put_list(&a, RONDO_ARG_ARRAY, nreq);
	for (uint32_t i = 0; i < nreq; i++)
		fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, i);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_ignore);
	sig = tt_sig(d->tt, d->f_waitall, &a, 3);
	fmt_buf_free(&a);
	return sig;
}

static uint32_t demo_allreduce(struct demo *d, uint32_t count)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	uint32_t seg = d->change == TT_CHANGE_BUFFERS ? 4 : 3;

	fmt_arg_put_list(&a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_INT, seg);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 0);
	fmt_arg_put_list(&a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_INT, seg);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, 64);
	fmt_arg_put_sint(&a, RONDO_ARG_INT, count);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_double);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_sum);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_world);
	sig = tt_sig(d->tt, d->f_allreduce, &a, 6);
	fmt_buf_free(&a);
	return sig;
}

/* A call with the communicator as its only argument, or none. */
static uint32_t demo_simple(struct demo *d, uint32_t func, int with_comm)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	if (with_comm)
		fmt_arg_put_uint(&a, RONDO_ARG_CONST, d->c_world);
	sig = tt_sig(d->tt, func, &a, with_comm ? 1 : 0);
	fmt_buf_free(&a);
	return sig;
}

/* The send to the right of rank 1, as the change makes it. */
static uint32_t demo_right(const struct demo *d, uint32_t r, uint32_t sig)
{
	if (r == 1 &&
	    (d->change == TT_CHANGE_COUNT || d->change == TT_CHANGE_PEER))
		return d->changed;
	return sig;
}

static void demo_rank(struct demo *d, uint32_t r, uint32_t nranks,
		      uint32_t iters, const uint32_t *sig)
{
	uint64_t coll = d->change == TT_CHANGE_TIME ? 10000 : 5000;

	for (uint32_t it = 0; it < iters; it++) {
		uint32_t nreq = 0;

		if (r > 0) {
			tt_call(d->tt, r, sig[0], 1, demo_ns(900, r, it));
			tt_call(d->tt, r, sig[1], 1, demo_ns(1100, r, it));
			nreq = 2;
		}
		if (r + 1 < nranks) {
			tt_call(d->tt, r, sig[nreq ? 2 : 4], 1,
				demo_ns(900, r, it));
			tt_call(d->tt, r, demo_right(d, r, sig[nreq ? 3 : 5]),
				1, demo_ns(1100, r, it));
			nreq += 2;
		}
		tt_call(d->tt, r, sig[nreq == 4 ? 7 : 6], 1,
			demo_ns(20000, r, it));
		tt_call(d->tt, r, sig[8], 2, demo_ns(coll, r, it));
		if (d->change == TT_CHANGE_CALL && r == 2 && it == iters / 2)
			tt_call(d->tt, r, d->barrier, 1, 3000);
	}
}

struct testtrace *tt_demo(uint32_t nranks, uint32_t iters)
{
	return tt_demo_changed(nranks, iters, TT_CHANGE_NONE);
}

struct testtrace *tt_demo_changed(uint32_t nranks, uint32_t iters,
				  enum tt_change change)
{
	struct demo d = {.tt = tt_create(nranks), .change = change};
	uint32_t f_init, f_barrier, f_final, init, barrier, final, sig[9];
	char n[32], cmd[96];

	snprintf(n, sizeof(n), "%u", nranks);
	snprintf(cmd, sizeof(cmd), "mpirun -np %u ./halo1d %u", nranks, iters);
	tt_meta(d.tt, "program", "halo1d");
	tt_meta(d.tt, "command", cmd);
	tt_meta(d.tt, "ranks", n);
	tt_meta(d.tt, "mpi", "(none: written by the tests' writer)");
	tt_meta(d.tt, "host", "testhost");
	tt_meta(d.tt, "start", "2026-01-01T00:00:00Z");
	tt_meta(d.tt, "tracer", "testtrace");
	f_init = tt_func(d.tt, "MPI_Init", "argc", "argv", NULL);
	d.f_isend = tt_func(d.tt, "MPI_Isend", "buf", "count", "datatype",
			    "dest", "tag", "comm", ">request", NULL);
	d.f_irecv = tt_func(d.tt, "MPI_Irecv", ">buf", "count", "datatype",
			    "source", "tag", "comm", ">request", NULL);
	d.f_waitall = tt_func(d.tt, "MPI_Waitall", "count", "array_of_requests",
			      "array_of_statuses", NULL);
	d.f_allreduce = tt_func(d.tt, "MPI_Allreduce", "sendbuf", "recvbuf",
				"count", "datatype", "op", "comm", NULL);
	f_barrier = tt_func(d.tt, "MPI_Barrier", "comm", NULL);
	f_final = tt_func(d.tt, "MPI_Finalize", NULL);
	d.c_world = tt_const(d.tt, "MPI_COMM_WORLD");
	d.c_double = tt_const(d.tt, "MPI_DOUBLE");
	tt_typesize(d.tt, d.c_double, 8);
	d.c_sum = tt_const(d.tt, "MPI_SUM");
	d.c_ignore = tt_const(d.tt, "MPI_STATUSES_IGNORE");

	init = demo_simple(&d, f_init, 0);
	sig[0] = demo_p2p(&d, d.f_irecv, -1, 0);
	sig[1] = demo_p2p(&d, d.f_isend, -1, 1);
	sig[2] = demo_p2p(&d, d.f_irecv, +1, 2);
	sig[3] = demo_p2p(&d, d.f_isend, +1, 3);
	sig[4] = demo_p2p(&d, d.f_irecv, +1, 0);
	sig[5] = demo_p2p(&d, d.f_isend, +1, 1);
	sig[6] = demo_waitall(&d, 2);
	sig[7] = demo_waitall(&d, 4);
	sig[8] = demo_allreduce(&d, 1);
	barrier = demo_simple(&d, f_barrier, 1);
	final = demo_simple(&d, f_final, 0);
	d.barrier = barrier;
	if (change == TT_CHANGE_COUNT)
		d.changed = demo_p2p_as(&d, d.f_isend, +1, 3, 2048);
	if (change == TT_CHANGE_PEER)
		d.changed = demo_p2p_as(&d, d.f_isend, +2, 3, 1024);
	for (uint32_t r = 0; r < nranks; r++) {
		tt_call(d.tt, r, init, 1, 150000 + 1000 * r);
		demo_rank(&d, r, nranks, iters, sig);
		tt_call(d.tt, r, barrier, 1, 3000);
		tt_call(d.tt, r, final, 1, 40000);
	}
	return d.tt;
}

/*
 * The peers job: 8 ranks whose calls name ranks in every form the tracer
 * writes, for the rank resolver (tests/consumer.sh, test_reader): ranks
 * relative to the caller on the world, on two halves (c0 the even world
 * ranks, c1 the odd ones) and on a periodic 2x4 Cartesian grid whose
 * ranks are the world's reversed (c2; offset -4 is not one of that grid:
 * it names no rank); MPI_PROC_NULL and MPI_ANY_SOURCE;
 * an intercommunicator of the halves (c3: evens first); a root; statuses
 * whose source is a rank of the communicator they name, of the call's,
 * or of the world.
 */
struct peers {
	struct testtrace *tt;
	uint32_t world, proc_null, any;
	uint32_t isend, recv, wait, waitall, bcast;
};

/* MPI_Isend(count, dest, comm -> request) with dest of kind `dk`. */
static uint32_t peers_isend(struct peers *p, uint32_t dk, int64_t dest,
			    uint32_t ck, uint64_t comm)
{
	struct fmt_buf a = {0};
	uint32_t sig;

	fmt_arg_put_sint(&a, RONDO_ARG_INT, 16);
	if (dk == RONDO_ARG_CONST)
		fmt_arg_put_uint(&a, dk, (uint64_t)dest);
	else
		fmt_arg_put_sint(&a, dk, dest);
	fmt_arg_put_uint(&a, ck, comm);
	fmt_arg_put_uint(&a, RONDO_ARG_REQUEST, 0);
	sig = tt_sig(p->tt, p->isend, &a, 4);
	fmt_buf_free(&a);
	return sig;
}

/* A status whose source is `src` (kind sk), naming communicator `comm`
 * (kind ck; 0 for none). */
static void peers_status(struct fmt_buf *a, uint32_t sk, int64_t src,
			 uint32_t ck, uint64_t comm)
{
	fmt_arg_put_list(a, RONDO_ARG_STATUS, ck ? 2 : 1);
	if (sk == RONDO_ARG_CONST)
		fmt_arg_put_uint(a, sk, (uint64_t)src);
	else
		fmt_arg_put_sint(a, sk, src);
	if (ck)
		fmt_arg_put_uint(a, ck, comm);
}

static void peers_calls(struct peers *p, uint32_t r)
{
	struct fmt_buf a = {0};
	uint32_t half = r % 2; /* c0 or c1 */
	uint32_t s[9], n = 0;

	s[n++] = peers_isend(p, RONDO_ARG_RANK_REL, 1, RONDO_ARG_CONST,
			     p->world);
	s[n++] = peers_isend(p, RONDO_ARG_RANK_REL, -1, RONDO_ARG_COMM, half);
	s[n++] = peers_isend(p, RONDO_ARG_CART_REL, 1, RONDO_ARG_COMM, 2);
	s[n++] = peers_isend(p, RONDO_ARG_CART_REL, 5, RONDO_ARG_COMM, 2);
	s[n++] = peers_isend(p, RONDO_ARG_CART_REL, -4, RONDO_ARG_COMM, 2);
	s[n++] = peers_isend(p, RONDO_ARG_CONST, p->proc_null, RONDO_ARG_CONST,
			     p->world);
	s[n++] = peers_isend(p, RONDO_ARG_RANK, 3, RONDO_ARG_COMM, 3);
	/* MPI_Recv(source=ANY -> status{source=-1}) on the world */
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, p->any);
	fmt_arg_put_uint(&a, RONDO_ARG_CONST, p->world);
	peers_status(&a, RONDO_ARG_RANK_REL, -1, 0, 0);
	s[n++] = tt_sig(p->tt, p->recv, &a, 3);
	fmt_buf_free(&a);
	/* MPI_Waitall(-> [status{source=+1, comm=half}, status{PROC_NULL}]) */
	fmt_arg_put_list(&a, RONDO_ARG_ARRAY, 2);
	peers_status(&a, RONDO_ARG_RANK_REL, 1, RONDO_ARG_COMM, half);
	peers_status(&a, RONDO_ARG_CONST, p->proc_null, 0, 0);
	s[n++] = tt_sig(p->tt, p->waitall, &a, 1);
	fmt_buf_free(&a);
	for (uint32_t k = 0; k < n; k++)
		tt_call(p->tt, r, s[k], 1, 1000);
	/* MPI_Bcast(root=2, comm=half); MPI_Wait(-> status{source=0 on
	 * the grid, comm=c2}) */
	fmt_arg_put_sint(&a, RONDO_ARG_RANK, 2);
	fmt_arg_put_uint(&a, RONDO_ARG_COMM, half);
	tt_call(p->tt, r, tt_sig(p->tt, p->bcast, &a, 2), 1, 1000);
	fmt_buf_free(&a);
	peers_status(&a, RONDO_ARG_RANK, 0, RONDO_ARG_COMM, 2);
	tt_call(p->tt, r, tt_sig(p->tt, p->wait, &a, 1), 1, 1000);
	fmt_buf_free(&a);
}

struct testtrace *tt_peers(void)
{
	static const uint32_t even[4] = {0, 2, 4, 6}, odd[4] = {1, 3, 5, 7};
	static const uint32_t rev[8] = {7, 6, 5, 4, 3, 2, 1, 0};
	static const uint32_t inter[8] = {0, 2, 4, 6, 1, 3, 5, 7};
	static const uint32_t dims[2] = {2, 4};
	static const uint8_t periodic[2] = {1, 1};
	struct peers p = {.tt = tt_create(8)};

	tt_meta(p.tt, "program", "peers");
	tt_meta(p.tt, "mpi", "(none: written by the tests' writer)");
	p.isend = tt_func(p.tt, "MPI_Isend", "count", "dest", "comm",
			  ">request", NULL);
	p.recv = tt_func(p.tt, "MPI_Recv", "source", "comm", ">status", NULL);
	p.waitall = tt_func(p.tt, "MPI_Waitall", ">array_of_statuses", NULL);
	p.bcast = tt_func(p.tt, "MPI_Bcast", "root", "comm", NULL);
	p.wait = tt_func(p.tt, "MPI_Wait", ">status", NULL);
	p.world = tt_const(p.tt, "MPI_COMM_WORLD");
	p.proc_null = tt_const(p.tt, "MPI_PROC_NULL");
	p.any = tt_const(p.tt, "MPI_ANY_SOURCE");
	tt_comm(p.tt, 4, 0, even);
	tt_comm(p.tt, 4, 0, odd);
	tt_comm(p.tt, 8, 0, rev);
	tt_comm(p.tt, 8, 4, inter);
	tt_cart(p.tt, 2, 2, dims, periodic);
	for (uint32_t r = 0; r < 8; r++)
		peers_calls(&p, r);
	return p.tt;
}
