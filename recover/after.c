/*
 * after.c - the calls ranks made after MPI_Finalize, added to the trace
 * MPI_Finalize wrote (after.h).
 *
 * The trace is read section by section; the sections the calls change
 * are decoded, changed and written again, the others copied as they are:
 *   - funcs and cst: the functions and signatures the trace lacks, added
 *     at the end (the four functions MPI allows then have no value that
 *     names a handle, a rank or a constant, so a signature's bytes mean
 *     the same in the trace as in the rank's file);
 *   - grammar and rankmap: a rank whose file has calls gets a new root,
 *     its old root followed by its calls (ranks whose old root and calls
 *     are the same share it, so rank groups stay as they were), and the
 *     roots are compressed again into the rank map;
 *   - stats (or sigstats), ranktime: the calls' times added; ranksum (a summary of the
 *     per-rank times): each rank's MPI time with its calls added, and the
 *     spread of the signatures only calls after MPI_Finalize made; the
 *     spread of a signature called before too is left as it was (the
 *     summary does not say whether a rank it does not list called it);
 *   - meta: "bindings" counts them, "after" says what was added.
 * Per-call times (section timing): the calls added get theirs where the
 * rank timed every call before them and the after file times them too
 * (coded, a segment of their own after the rank's; in a grammar, rules);
 * else they have none, as calls past RONDO_TIMING_LIMIT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "after.h"
#include "fileio.h"
#include "grammar.h"
#include "job.h"
#include "merge.h"
#include "util.h"

/* The trace is read whole: past this, it is refused. */
#define TRACE_MAX ((size_t)1 << 36)

/* The sections this rewrites (the others are copied). */
enum {
	S_META,
	S_FUNCS,
	S_CST,
	S_GRAMMAR,
	S_RANKMAP,
	S_STATS,
	S_RANKTIME,
	S_TIMING,
	S_RANKSUM,
	S_SIGSTATS,
	NS
};

static const uint32_t sec_type[NS] = {
	FMT_SEC_META,	 FMT_SEC_FUNCS,	  FMT_SEC_CST,	    FMT_SEC_GRAMMAR,
	FMT_SEC_RANKMAP, FMT_SEC_STATS,	  FMT_SEC_RANKTIME, FMT_SEC_TIMING,
	FMT_SEC_RANKSUM, FMT_SEC_SIGSTATS};

struct trace_in {
	uint8_t *data;
	size_t size;
	struct fmt_container c;
	uint8_t **raw; /* each section decompressed */
	size_t *len;
	int at[NS]; /* index of each rewritten section, -1: none */
	struct fmt_meta meta;
	struct fmt_funcs funcs;
	struct fmt_cst cst;
	struct fmt_grammar g;
	uint64_t *glen; /* calls of each rule */
	struct fmt_rankmap rm;
	struct fmt_stats st;
	struct fmt_ranktime rtime;
	struct fmt_ranksum rsum;
	uint32_t *roots; /* each rank's root rule */
	struct fmt_timing tm;
	uint32_t *troots; /* each rank's durations' and intervals' roots */
	uint32_t tlimit;  /* codes of the timing's base are below it */
	uint64_t *ttimed; /* coded timing: each rank's timed calls */
};

/* Rules added to a grammar of nrules rules: each its body from first[k]
 * in body, and the hash of that body. */
struct rules {
	uint32_t nrules; /* the grammar's own, before these */
	rondo_sym *body;
	size_t nbody, capbody;
	uint32_t *first, nnew;
	size_t capfirst;
	uint64_t *hash;
};

/* What is added: functions and signatures new to the trace, each rank's
 * calls, and the new rules. */
struct adding {
	const struct after_rank **by_rank; /* nranks, NULL: nothing */
	uint32_t nranks, nfiles;
	struct fmt_func *funcs; /* the trace's, then the new */
	uint32_t nfuncs;
	struct fmt_sig *sigs; /* the trace's, then the new */
	uint32_t nsig;
	size_t capsig;
	uint32_t *seen, nseen; /* the signatures the files named so far */
	size_t capseen;
	uint32_t **gsig;      /* per rank: its file's signatures' global ids */
	struct rules g, tg;   /* added to the grammar, to the timing's */
	struct fmt_buf *tnew; /* coded timing: per rank, a segment added */
	uint64_t *tnewcalls;
	uint32_t timed; /* ranks whose calls added have times */
	uint64_t calls, lost;
	uint64_t bind[JOB_NBIND], bind_ranks[JOB_NBIND];
};

struct ctx {
	recover_say_fn say;
	void *sctx;
	char *why;
	size_t whylen;
};

static void say(const struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct ctx *x, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (x->say)
		x->say(x->sctx, line);
}

static int fail(const struct ctx *x, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(const struct ctx *x, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->why, x->whylen, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- the trace ------------------------------------------------------------ */

static const char *meta_get(const struct fmt_meta *m, const char *key)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].value;
	return NULL;
}

/* Each rank's root rule, from the rank map (whose last rule expands to
 * one root per rank), without recursion: a stack of (rule, position,
 * repeats left), as deep as the map has rules at most. */
static int roots_of(const struct fmt_rankmap *rm, uint32_t *roots)
{
	const struct fmt_grammar *m = &rm->map;
	struct frame {
		uint32_t rule, pos;
		uint64_t left;
	} *st = malloc(sizeof(*st) * ((size_t)m->nrules + 1));
	uint32_t depth = 0, n = 0;

	if (!st)
		return RONDO_E_NOMEM;
	if (m->nrules == 0) {
		free(st);
		return rm->nranks ? RONDO_E_CORRUPT : 0;
	}
	st[depth++] = (struct frame){m->nrules - 1, m->first[m->nrules - 1], 1};
	while (depth) {
		struct frame *f = &st[depth - 1];
		const rondo_sym *s;

		if (f->pos == m->first[f->rule + 1]) {
			if (--f->left == 0) {
				depth--;
				continue;
			}
			f->pos = m->first[f->rule];
			continue;
		}
		s = &m->body[f->pos++];
		if (!RONDO_SYM_IS_RULE(s->sym)) {
			for (uint64_t k = 0; k < s->count; k++) {
				if (n == rm->nranks) {
					free(st);
					return RONDO_E_CORRUPT;
				}
				roots[n++] = RONDO_SYM_ID(s->sym);
			}
		} else if (depth <= m->nrules) {
			st[depth++] = (struct frame){
				RONDO_SYM_ID(s->sym),
				m->first[RONDO_SYM_ID(s->sym)], s->count};
		} else {
			free(st);
			return RONDO_E_CORRUPT;
		}
	}
	free(st);
	return n == rm->nranks ? 0 : RONDO_E_CORRUPT;
}

static int trace_read(struct trace_in *t, const char *path, const struct ctx *x)
{
	static const char *const what[NS] = {
		"meta", "funcs", "cst", "grammar", "rankmap", NULL, NULL};
	char reason[256];
	struct fmt_err e = {0};
	int rc;

	for (int s = 0; s < NS; s++)
		t->at[s] = -1;
	rc = fileio_read(path, TRACE_MAX, &t->data, &t->size, reason,
			 sizeof(reason));
	if (rc)
		return fail(x, rc == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO,
			    "%s: %s", path, reason);
	if ((rc = fmt_container_parse(&t->c, t->data, t->size, &e)))
		goto bad;
	t->raw = calloc(t->c.nsec + 1, sizeof(*t->raw));
	t->len = calloc(t->c.nsec + 1, sizeof(*t->len));
	if (!t->raw || !t->len)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < t->c.nsec; i++) {
		if ((rc = fmt_section_load(&t->c, i, &t->raw[i], &t->len[i],
					   &e)))
			goto bad;
		for (int s = 0; s < NS; s++)
			if (t->c.sec[i].type == sec_type[s] && t->at[s] < 0)
				t->at[s] = (int)i;
	}
	for (int s = 0; s < NS; s++)
		if (what[s] && t->at[s] < 0)
			return fail(x, RONDO_E_MISSING, "%s: no %s section",
				    path, what[s]);
#define RAW(s) t->raw[t->at[s]], t->len[t->at[s]]
	if ((rc = fmt_meta_decode(&t->meta, RAW(S_META), &e)) ||
	    (rc = fmt_funcs_decode(&t->funcs, RAW(S_FUNCS), &e)) ||
	    (rc = fmt_cst_decode(&t->cst, RAW(S_CST), t->funcs.n, &e)) ||
	    (rc = fmt_grammar_decode(&t->g, RAW(S_GRAMMAR), t->cst.n, &t->glen,
				     &e)) ||
	    (rc = fmt_rankmap_decode(&t->rm, RAW(S_RANKMAP), t->g.nrules, &e)))
		goto bad;
	if (t->at[S_SIGSTATS] >= 0 &&
	    (rc = fmt_sigstats_decode(&t->st, RAW(S_SIGSTATS), t->cst.n, &e)))
		goto bad;
	if (t->at[S_SIGSTATS] < 0 && t->at[S_STATS] >= 0 &&
	    (rc = fmt_stats_decode(&t->st, RAW(S_STATS), t->cst.n, &e)))
		goto bad;
	if (t->at[S_RANKTIME] >= 0 &&
	    (rc = fmt_ranktime_decode(&t->rtime, RAW(S_RANKTIME), t->rm.nranks,
				      t->cst.n, &e)))
		goto bad;
	if (t->at[S_TIMING] >= 0 &&
	    (rc = fmt_timing_decode(&t->tm, RAW(S_TIMING), t->rm.nranks, &e)))
		goto bad;
	if (t->at[S_RANKSUM] >= 0 &&
	    (rc = fmt_ranksum_decode(&t->rsum, RAW(S_RANKSUM), t->rm.nranks,
				     t->cst.n, &e)))
		goto bad;
#undef RAW
	t->roots = malloc(sizeof(uint32_t) * ((size_t)t->rm.nranks + 1));
	t->troots = malloc(sizeof(uint32_t) * (2 * (size_t)t->rm.nranks + 1));
	if (!t->roots || !t->troots)
		return RONDO_E_NOMEM;
	if ((rc = roots_of(&t->rm, t->roots)) ||
	    (t->at[S_TIMING] >= 0 && !t->tm.coded &&
	     (rc = roots_of(&t->tm.map, t->troots))))
		return fail(x, rc, "%s: its rank map does not give every rank",
			    path);
	if (t->at[S_TIMING] >= 0) {
		struct fmt_tscale sc;

		if (fmt_tscale_init(&sc, t->tm.base) < 0)
			return RONDO_E_NOMEM;
		t->tlimit = fmt_tcode_limit(&sc);
		fmt_tscale_free(&sc);
	}
	if (t->at[S_TIMING] >= 0 && t->tm.coded) {
		t->ttimed = calloc((size_t)t->rm.nranks + 1, sizeof(uint64_t));
		if (!t->ttimed)
			return RONDO_E_NOMEM;
		for (uint32_t r = 0; r < t->rm.nranks; r++)
			for (uint64_t k = t->tm.first[r];
			     k < t->tm.first[r + 1]; k++)
				t->ttimed[r] += t->tm.seg[k].calls;
	}
	return 0;
bad:
	return fail(x, rc, "%s: %s", path, e.msg[0] ? e.msg : "not readable");
}

static void trace_free(struct trace_in *t)
{
	for (uint32_t i = 0; t->raw && i < t->c.nsec; i++)
		free(t->raw[i]);
	free(t->raw);
	free(t->len);
	fmt_container_free(&t->c);
	free(t->data);
	fmt_meta_free(&t->meta);
	fmt_funcs_free(&t->funcs);
	fmt_cst_free(&t->cst);
	fmt_grammar_free(&t->g);
	free(t->glen);
	fmt_rankmap_free(&t->rm);
	fmt_stats_free(&t->st);
	fmt_ranktime_free(&t->rtime);
	fmt_ranksum_free(&t->rsum);
	free(t->roots);
	fmt_timing_free(&t->tm);
	free(t->ttimed);
	free(t->troots);
}

/* ---- what a file may add ---------------------------------------------------- */

/* Whether every value of the signature means the same in any trace:
 * integers, strings, bytes, nothing (no handle, rank or constant). */
static int plain_values(const struct fmt_sig *s)
{
	struct fmt_cur c;

	fmt_cur_init(&c, s->args, s->len, NULL, NULL);
	for (uint32_t k = 0; k < s->nargs; k++) {
		rondo_arg v;

		if (fmt_arg_get(&c, &v) != 0)
			return 0;
		if (v.kind != RONDO_ARG_NULL && v.kind != RONDO_ARG_INT &&
		    v.kind != RONDO_ARG_STRING && v.kind != RONDO_ARG_BYTES)
			return 0;
	}
	return c.pos == c.len;
}

/* Whether the statistics of signature k hold for the file's calls: as
 * many as it made, durations whose total lies between count times the
 * shortest and count times the longest (what a reader checks). */
static int stat_holds(const struct after_rank *a, uint32_t k)
{
	const rondo_stat *s = &a->stats[k];
	uint64_t n = 0;

	for (uint64_t i = 0; i < a->ncalls; i++)
		n += a->calls[i] == k;
	if (k >= a->nstats || s->count != n || n == 0 ||
	    s->min_ns > s->max_ns || !(s->sumsq_ns2 >= 0) ||
	    isinf(s->sumsq_ns2))
		return 0;
	if (s->min_ns && n > UINT64_MAX / s->min_ns)
		return 0;
	return s->total_ns >= s->min_ns * n &&
	       (n > UINT64_MAX / (s->max_ns ? s->max_ns : 1) ||
		s->total_ns <= s->max_ns * n);
}

/* Why a rank's file cannot be added to this trace, or NULL. */
static const char *unfit(const struct trace_in *t, const struct after_rank *a,
			 const struct adding *d)
{
	const char *program = meta_get(&t->meta, "program"),
		   *start = meta_get(&t->meta, "start");

	if (a->nranks != t->rm.nranks || !program || !start ||
	    strcmp(program, a->program ? a->program : "") ||
	    strcmp(start, a->start ? a->start : ""))
		return "another job's";
	if (a->rank >= d->nranks || d->by_rank[a->rank])
		return "its rank again";
	for (uint64_t i = 0; i < a->ncalls; i++)
		if (a->calls[i] >= a->nsig)
			return "a damaged file";
	for (uint32_t k = 0; k < a->nsig; k++)
		if (a->sigs[k].func >= a->nfuncs ||
		    !a->funcs[a->sigs[k].func].name ||
		    !plain_values(&a->sigs[k]))
			return "a call the trace cannot take";
	for (uint32_t k = 0; k < a->nsig; k++)
		if (!stat_holds(a, k))
			return "statistics that do not hold for its calls";
	return NULL;
}

/* ---- functions and signatures --------------------------------------------- */

static int add_func(struct adding *d, const struct fmt_func *f, uint32_t *id)
{
	for (uint32_t k = 0; k < d->nfuncs; k++)
		if (!strcmp(d->funcs[k].name, f->name)) {
			*id = k;
			return 0;
		}
	d->funcs = realloc(d->funcs, sizeof(*d->funcs) * (d->nfuncs + 1));
	if (!d->funcs)
		return RONDO_E_NOMEM;
	d->funcs[d->nfuncs] = *f;
	*id = d->nfuncs++;
	return 0;
}

static int sig_same(const struct fmt_sig *g, uint32_t func,
		    const struct fmt_sig *s)
{
	return g->func == func && g->nargs == s->nargs && g->len == s->len &&
	       !memcmp(g->args, s->args, s->len);
}

/* The global id of a file's signature (func already global): one the
 * files named before (most ranks call the same), else one of the
 * trace's, else a new one. */
static int add_sig(struct adding *d, uint32_t func, const struct fmt_sig *s,
		   uint32_t *id)
{
	for (uint32_t k = 0; k < d->nseen; k++)
		if (sig_same(&d->sigs[d->seen[k]], func, s)) {
			*id = d->seen[k];
			return 0;
		}
	if (util_grow(&d->seen, &d->capseen, (size_t)d->nseen + 1,
		      sizeof(*d->seen)) < 0)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < d->nsig; k++)
		if (sig_same(&d->sigs[k], func, s)) {
			*id = d->seen[d->nseen++] = k;
			return 0;
		}
	if (util_grow(&d->sigs, &d->capsig, (size_t)d->nsig + 1,
		      sizeof(*d->sigs)) < 0)
		return RONDO_E_NOMEM;
	d->sigs[d->nsig] = *s;
	d->sigs[d->nsig].func = func;
	*id = d->seen[d->nseen++] = d->nsig++;
	return 0;
}

static int map_rank(struct adding *d, const struct after_rank *a,
		    uint32_t *gsig)
{
	for (uint32_t k = 0; k < a->nsig; k++) {
		uint32_t f;
		int rc = add_func(d, &a->funcs[a->sigs[k].func], &f);

		if (rc || (rc = add_sig(d, f, &a->sigs[k], &gsig[k])))
			return rc;
	}
	return 0;
}

/* ---- the grammar ------------------------------------------------------------ */

static uint64_t body_hash(const rondo_sym *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i].sym ^ b[i].count << 32) * 0x100000001b3ull;
	return h;
}

static void rules_free(struct rules *R)
{
	free(R->body);
	free(R->first);
	free(R->hash);
}

/* The rule whose body is `root`, then the n values v[] (terminals, runs
 * counted) into *root: a rule added before with the same body (ranks that
 * did the same share it), else a new one. */
static int rule_after(struct rules *R, uint32_t *root, const uint32_t *v,
		      uint64_t n)
{
	size_t at = R->nbody, len;
	uint64_t h;

	if (util_grow(&R->body, &R->capbody, at + n + 1, sizeof(*R->body)) < 0)
		return RONDO_E_NOMEM;
	R->body[R->nbody++] = (rondo_sym){*root | RONDO_SYM_RULE, 0, 1};
	for (uint64_t i = 0; i < n; i++) {
		if (R->nbody > at + 1 && R->body[R->nbody - 1].sym == v[i])
			R->body[R->nbody - 1].count++;
		else
			R->body[R->nbody++] = (rondo_sym){v[i], 0, 1};
	}
	len = R->nbody - at;
	h = body_hash(R->body + at, len);
	for (uint32_t k = 0; k < R->nnew; k++)
		if (R->hash[k] == h && R->first[k + 1] - R->first[k] == len &&
		    !memcmp(R->body + R->first[k], R->body + at,
			    len * sizeof(*R->body))) {
			R->nbody = at; /* the same as rule k */
			*root = R->nrules + k;
			return 0;
		}
	if (util_grow(&R->first, &R->capfirst, (size_t)R->nnew + 2,
		      sizeof(*R->first)) < 0 ||
	    !(R->hash = realloc(R->hash, sizeof(*R->hash) * (R->nnew + 1))))
		return RONDO_E_NOMEM;
	R->first[R->nnew] = (uint32_t)at;
	R->first[R->nnew + 1] = (uint32_t)R->nbody;
	R->hash[R->nnew] = h;
	*root = R->nrules + R->nnew++;
	return 0;
}

/* Grammar old with the rules R after its own, into g. */
static int grammar_with(const struct fmt_grammar *old, const struct rules *R,
			struct fmt_grammar *g)
{
	uint32_t n = old->first[old->nrules];

	if ((uint64_t)n + R->nbody > UINT32_MAX ||
	    (uint64_t)old->nrules + R->nnew >= RONDO_SYM_RULE)
		return RONDO_E_RANGE;
	g->nrules = old->nrules + R->nnew;
	g->first = malloc(sizeof(uint32_t) * ((size_t)g->nrules + 1));
	g->body = malloc(sizeof(rondo_sym) * (n + R->nbody + 1));
	if (!g->first || !g->body)
		return RONDO_E_NOMEM;
	memcpy(g->first, old->first, sizeof(uint32_t) * old->nrules);
	memcpy(g->body, old->body, sizeof(rondo_sym) * n);
	if (R->nbody)
		memcpy(g->body + n, R->body, sizeof(rondo_sym) * R->nbody);
	for (uint32_t k = 0; k < R->nnew; k++)
		g->first[old->nrules + k] = n + R->first[k];
	g->first[g->nrules] = n + (uint32_t)R->nbody;
	return 0;
}

/* The n roots compressed again, as the merge makes a rank map. */
static int rankmap_with(const uint32_t *roots, uint32_t n,
			struct fmt_rankmap *rm)
{
	struct grammar *m = grammar_create();
	int rc = m ? 0 : RONDO_E_NOMEM;

	for (uint32_t r = 0; r < n && rc == 0;) {
		uint32_t k = 1;

		while (r + k < n && roots[r + k] == roots[r])
			k++;
		rc = grammar_append(m, roots[r], k);
		r += k;
	}
	if (rc == 0)
		rc = grammar_flush(m);
	if (rc == 0)
		rc = grammar_export(m, &rm->map);
	rm->nranks = n;
	grammar_free(m);
	return rc;
}

/* Coded per-call times: rank r's calls added get a segment of their own
 * when the trace has every call of the rank timed (`calls` of them) and
 * the file times them too, at the same base (else its times stay as
 * they were: the calls added have none). */
static int times_after(struct adding *d, const struct trace_in *t, uint32_t r,
		       uint64_t calls)
{
	const struct after_rank *a = d->by_rank[r];
	uint32_t *sig;
	int rc;

	if (a->ntimed != a->ncalls || a->base != t->tm.base ||
	    t->ttimed[r] != calls)
		return 0;
	for (uint64_t i = 0; i < a->ncalls; i++)
		if (a->dcodes[i] >= t->tlimit || a->icodes[i] >= t->tlimit)
			return 0;
	sig = malloc(sizeof(*sig) * (a->ncalls + 1));
	if (!sig)
		return RONDO_E_NOMEM;
	for (uint64_t i = 0; i < a->ncalls; i++)
		sig[i] = d->gsig[r][a->calls[i]];
	/* coded as the trace's own segments */
	rc = fmt_tstream_code(&d->tnew[r], a->ncalls, sig, a->dcodes, a->icodes,
			      !t->tm.follow);
	free(sig);
	if (rc == 0) {
		d->tnewcalls[r] = a->ncalls;
		d->timed++;
	}
	return rc;
}

/* Rank r's new roots: of its calls, and of their per-call times when the
 * trace has every call of the rank timed and the file times them too, at
 * the same base (else its times stay as they were: the calls added have
 * none). */
static int roots_after(struct adding *d, struct trace_in *t, uint32_t r)
{
	const struct after_rank *a = d->by_rank[r];
	uint32_t *v = malloc(sizeof(uint32_t) * (a->ncalls + 1));
	uint64_t calls = t->glen[t->roots[r]];
	int rc = v ? 0 : RONDO_E_NOMEM;

	for (uint64_t i = 0; i < a->ncalls && rc == 0; i++)
		v[i] = d->gsig[r][a->calls[i]];
	if (rc == 0)
		rc = rule_after(&d->g, &t->roots[r], v, a->ncalls);
	free(v);
	if (rc || t->at[S_TIMING] < 0)
		return rc;
	if (t->tm.coded)
		return times_after(d, t, r, calls);
	if (a->ntimed == a->ncalls && a->base == t->tm.base &&
	    t->tm.len[t->troots[2 * r]] == calls &&
	    t->tm.len[t->troots[2 * r + 1]] == calls) {
		for (uint64_t i = 0; i < a->ncalls; i++)
			if (a->dcodes[i] >= t->tlimit ||
			    a->icodes[i] >= t->tlimit)
				return 0;
		rc = rule_after(&d->tg, &t->troots[2 * r], a->dcodes,
				a->ncalls);
		if (rc == 0)
			rc = rule_after(&d->tg, &t->troots[2 * r + 1],
					a->icodes, a->ncalls);
		d->timed += rc == 0;
	}
	return rc;
}

/* ---- times and metadata ------------------------------------------------------ */

static int stats_with(const struct trace_in *t, const struct adding *d,
		      struct fmt_stats *st)
{
	rondo_stat *all = calloc((size_t)d->nsig + 1, sizeof(*all));

	st->n = 0;
	st->st = malloc(sizeof(*st->st) * ((size_t)d->nsig + 1));
	if (!all || !st->st) {
		free(all);
		return RONDO_E_NOMEM;
	}
	for (uint32_t i = 0; i < t->st.n; i++)
		all[t->st.st[i].sig] = t->st.st[i].s;
	for (uint32_t r = 0; r < d->nranks; r++) {
		const struct after_rank *a = d->by_rank[r];

		for (uint32_t k = 0; a && k < a->nsig && k < a->nstats; k++)
			merge_stat_add(&all[d->gsig[r][k]], &a->stats[k]);
	}
	for (uint32_t s = 0; s < d->nsig; s++)
		if (all[s].count)
			st->st[st->n++] = (struct fmt_stat){s, all[s]};
	free(all);
	return 0;
}

/* Each rank's list of (signature, time) with its calls' times added. */
static int ranktime_with(const struct trace_in *t, const struct adding *d,
			 struct fmt_ranktime *rt)
{
	const struct fmt_ranktime *o = &t->rtime;
	size_t cap = (size_t)o->at[o->nranks], n = 0;

	for (uint32_t r = 0; r < d->nranks; r++)
		cap += d->by_rank[r] ? d->by_rank[r]->nsig : 0;
	rt->nranks = o->nranks;
	rt->at = malloc(sizeof(uint64_t) * ((size_t)o->nranks + 1));
	rt->list = malloc(sizeof(uint64_t) * ((size_t)o->nranks + 1));
	rt->sig = malloc(sizeof(uint32_t) * (cap + 1));
	rt->code = malloc(sizeof(uint16_t) * (cap + 1));
	if (!rt->at || !rt->list || !rt->sig || !rt->code)
		return RONDO_E_NOMEM;
	for (uint32_t r = 0; r < o->nranks; r++) {
		const struct after_rank *a = d->by_rank[r];
		uint64_t m = o->at[r + 1] - o->at[r];
		size_t from = n;

		rt->at[r] = rt->list[r] = n;
		for (uint64_t i = 0; i < m; i++) {
			rt->sig[n] = o->sig[o->list[r] + i];
			rt->code[n++] = o->code[o->at[r] + i];
		}
		for (uint32_t k = 0; a && k < a->nsig && k < a->nstats; k++) {
			uint32_t s = d->gsig[r][k];
			size_t j = from;

			while (j < n && rt->sig[j] < s)
				j++;
			if (j < n && rt->sig[j] == s) {
				rt->code[j] = fmt_time_code(
					fmt_time_value(rt->code[j]) +
					a->stats[k].total_ns);
				continue;
			}
			memmove(rt->sig + j + 1, rt->sig + j,
				sizeof(uint32_t) * (n - j));
			memmove(rt->code + j + 1, rt->code + j,
				sizeof(uint16_t) * (n - j));
			rt->sig[j] = s;
			rt->code[j] = fmt_time_code(a->stats[k].total_ns);
			n++;
		}
	}
	rt->at[o->nranks] = n;
	return 0;
}

/* The spreads of n signatures of a and then of b, in order (disjoint
 * signatures), into out; its ext and bin arrays hold both. */
static int ranksum_join(const struct fmt_ranksum *a,
			const struct fmt_ranksum *b, struct fmt_ranksum *out)
{
	size_t ne = 0, nb = 0, na_ext = 0, na_bin = 0;
	uint32_t i = 0, k = 0;

	for (uint32_t j = 0; j < a->n; j++)
		na_ext += a->s[j].nslow + a->s[j].nfast,
			na_bin += a->s[j].nbins;
	for (uint32_t j = 0; j < b->n; j++)
		ne += b->s[j].nslow + b->s[j].nfast, nb += b->s[j].nbins;
	out->s = malloc(sizeof(*out->s) * ((size_t)a->n + b->n + 1));
	out->ext = malloc(sizeof(*out->ext) * (na_ext + ne + 1));
	out->bin = malloc(sizeof(*out->bin) * (na_bin + nb + 1));
	if (!out->s || !out->ext || !out->bin)
		return RONDO_E_NOMEM;
	ne = nb = 0;
	while (i < a->n || k < b->n) {
		int from_a =
			k == b->n || (i < a->n && a->s[i].sig < b->s[k].sig);
		const struct fmt_ranksum *f = from_a ? a : b;
		struct fmt_sigsum ss = from_a ? a->s[i++] : b->s[k++];

		memcpy(out->ext + ne, f->ext + ss.ext,
		       sizeof(*out->ext) * (ss.nslow + ss.nfast));
		memcpy(out->bin + nb, f->bin + ss.bin,
		       sizeof(*out->bin) * ss.nbins);
		ss.ext = ne;
		ss.bin = nb;
		ne += ss.nslow + ss.nfast;
		nb += ss.nbins;
		out->s[out->n++] = ss;
	}
	return 0;
}

/* Puts ns in signature s into the rank's list nt[from .. n), keeping it
 * increasing (two of the file's signatures may be one of the trace's):
 * returns its new end. */
static size_t ranksum_put(struct fmt_ranktime *nt, size_t from, size_t n,
			  uint32_t s, uint64_t ns)
{
	size_t j = n;

	while (j > from && nt->sig[j - 1] > s)
		j--;
	if (j > from && nt->sig[j - 1] == s) {
		nt->code[j - 1] =
			fmt_time_code(fmt_time_value(nt->code[j - 1]) + ns);
		return n;
	}
	memmove(nt->sig + j + 1, nt->sig + j, sizeof(uint32_t) * (n - j));
	memmove(nt->code + j + 1, nt->code + j, sizeof(uint16_t) * (n - j));
	nt->sig[j] = s;
	nt->code[j] = fmt_time_code(ns);
	return n + 1;
}

/* The summary with the calls' times added: each rank's MPI time, and the
 * spreads of the signatures no rank called before (see the top). */
static int ranksum_with(const struct trace_in *t, const struct adding *d,
			struct fmt_ranksum *rs)
{
	const struct fmt_ranksum *o = &t->rsum;
	struct fmt_ranktime nt = {o->nranks, NULL, NULL, NULL, NULL};
	struct fmt_ranksum fresh = {0};
	size_t cap = 0, n = 0;
	int rc;

	for (uint32_t r = 0; r < d->nranks; r++)
		cap += d->by_rank[r] ? d->by_rank[r]->nsig : 0;
	nt.at = malloc(sizeof(uint64_t) * ((size_t)o->nranks + 1));
	nt.list = malloc(sizeof(uint64_t) * ((size_t)o->nranks + 1));
	nt.sig = malloc(sizeof(uint32_t) * (cap + 1));
	nt.code = malloc(sizeof(uint16_t) * (cap + 1));
	*rs = (struct fmt_ranksum){o->nranks, o->k, NULL, 0, NULL, NULL, NULL};
	rs->mpi = malloc(sizeof(uint16_t) * ((size_t)o->nranks + 1));
	rc = nt.at && nt.list && nt.sig && nt.code && rs->mpi ? 0
							      : RONDO_E_NOMEM;
	for (uint32_t r = 0; r < o->nranks && !rc; r++) {
		const struct after_rank *a = d->by_rank[r];
		uint64_t mpi = fmt_time_value(o->mpi[r]);

		nt.at[r] = nt.list[r] = n;
		for (uint32_t k = 0; a && k < a->nsig && k < a->nstats; k++) {
			uint32_t s = d->gsig[r][k];
			uint64_t ns = a->stats[k].total_ns;

			mpi = ns > UINT64_MAX - mpi ? UINT64_MAX : mpi + ns;
			if (!fmt_ranksum_find(o, s))
				n = ranksum_put(&nt, nt.at[r], n, s, ns);
		}
		rs->mpi[r] = fmt_time_code(mpi);
	}
	if (!rc) {
		nt.at[o->nranks] = n;
		rc = fmt_ranksum_make(&fresh, &nt, o->k, NULL);
	}
	if (!rc)
		rc = ranksum_join(o, &fresh, rs);
	fmt_ranksum_free(&fresh);
	free(nt.at);
	free(nt.list);
	free(nt.sig);
	free(nt.code);
	return rc;
}

/* "C: 1200 calls on 4 ranks; ...": read back as job_bindings_text
 * writes it, into calls[] and ranks[]; -1 when it is not that. */
static int bindings_read(const char *text, uint64_t *calls, uint64_t *ranks)
{
	static const char *const names[JOB_NBIND] = {
		"C", "Fortran mpif.h or use mpi", "Fortran use mpi_f08"};
	const char *p = text;

	memset(calls, 0, sizeof(uint64_t) * JOB_NBIND);
	memset(ranks, 0, sizeof(uint64_t) * JOB_NBIND);
	if (!strncmp(text, "none:", 5))
		return 0;
	while (*p) {
		unsigned long long c, r;
		int b, used = 0;

		for (b = 0; b < JOB_NBIND; b++) {
			size_t n = strlen(names[b]);

			if (!strncmp(p, names[b], n) && p[n] == ':')
				break;
		}
		if (b == JOB_NBIND ||
		    sscanf(p + strlen(names[b]), ": %llu calls on %llu ranks%n",
			   &c, &r, &used) != 2)
			return -1;
		calls[b] = c;
		ranks[b] = r;
		p += strlen(names[b]) + (size_t)used;
		if (!strncmp(p, "; ", 2))
			p += 2;
		else if (*p)
			return -1;
	}
	return 0;
}

/* The metadata with the calls counted in "bindings" (the ranks that made
 * none of a binding's calls before counted when they do now) and said
 * in "after". */
static void meta_with(const struct trace_in *t, const struct adding *d,
		      struct fmt_meta *m)
{
	uint64_t calls[JOB_NBIND], ranks[JOB_NBIND];
	char buf[4096], names[512] = "";
	uint32_t *ks = malloc(sizeof(uint32_t) * ((size_t)d->nranks + 1)),
		 nk = 0;
	int bindings_ok = meta_get(&t->meta, "bindings") &&
			  bindings_read(meta_get(&t->meta, "bindings"), calls,
					ranks) == 0;

	for (uint32_t b = 0; bindings_ok && b < JOB_NBIND; b++) {
		if (!calls[b])
			ranks[b] = d->bind_ranks[b];
		calls[b] += d->bind[b];
	}
	if (bindings_ok)
		job_bindings_text(buf, sizeof(buf), calls, ranks);
	for (uint32_t i = 0; i < t->meta.n; i++) {
		const char *k = t->meta.kv[i].key;

		job_meta_add(m, k,
			     bindings_ok && !strcmp(k, "bindings")
				     ? buf
				     : t->meta.kv[i].value);
	}
	for (uint32_t f = (uint32_t)t->funcs.n; f < d->nfuncs; f++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", names[0] ? ", " : "", d->funcs[f].name);
	for (uint32_t r = 0; ks && r < d->nranks; r++)
		if (d->by_rank[r])
			ks[nk++] = r;
	snprintf(buf, sizeof(buf), "%llu calls on rank%s ",
		 (unsigned long long)d->calls, nk == 1 ? "" : "s");
	if (ks)
		util_put_ranks(buf, sizeof(buf), ks, nk);
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
		 ", added from their after files%s%s%s",
		 names[0] ? " (new functions: " : "", names,
		 names[0] ? ")" : "");
	if (t->at[S_TIMING] >= 0 && d->timed == nk)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", with their per-call times");
	else if (t->at[S_TIMING] >= 0)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 ", with per-call times on %u of the %u ranks (the "
			 "others had none for every call before)",
			 d->timed, nk);
	if (d->lost)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 "; %llu more were not kept (a rank keeps its first "
			 "64 calls of MPI_Initialized, MPI_Finalized, "
			 "MPI_Get_version and MPI_Get_library_version)",
			 (unsigned long long)d->lost);
	job_meta_add(m, "after", buf);
	free(ks);
}

/* ---- the file --------------------------------------------------------------- */

/* The sections made again, read back as a reader will: a trace is never
 * replaced by one that cannot be opened (sums past 2^64 from files whose
 * values each hold, say). */
static int sections_check(const struct trace_in *t, const struct fmt_buf *b,
			  const struct ctx *x)
{
	struct fmt_err e = {0};
	struct fmt_meta meta = {0};
	struct fmt_funcs funcs = {0};
	struct fmt_cst cst = {0};
	struct fmt_grammar g = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_stats st = {0};
	struct fmt_ranktime rt = {0};
	struct fmt_ranksum rs = {0};
	struct fmt_timing tm = {0};
	int rc = fmt_meta_decode(&meta, b[S_META].data, b[S_META].len, &e);

	if (!rc)
		rc = fmt_funcs_decode(&funcs, b[S_FUNCS].data, b[S_FUNCS].len,
				      &e);
	if (!rc)
		rc = fmt_cst_decode(&cst, b[S_CST].data, b[S_CST].len, funcs.n,
				    &e);
	if (!rc)
		rc = fmt_grammar_decode(&g, b[S_GRAMMAR].data, b[S_GRAMMAR].len,
					cst.n, NULL, &e);
	if (!rc)
		rc = fmt_rankmap_decode(&rm, b[S_RANKMAP].data,
					b[S_RANKMAP].len, g.nrules, &e);
	if (!rc && t->at[S_SIGSTATS] >= 0)
		rc = fmt_sigstats_decode(&st, b[S_SIGSTATS].data,
					 b[S_SIGSTATS].len, cst.n, &e);
	else if (!rc && t->at[S_STATS] >= 0)
		rc = fmt_stats_decode(&st, b[S_STATS].data, b[S_STATS].len,
				      cst.n, &e);
	if (!rc && t->at[S_RANKTIME] >= 0)
		rc = fmt_ranktime_decode(&rt, b[S_RANKTIME].data,
					 b[S_RANKTIME].len, rm.nranks, cst.n,
					 &e);
	if (!rc && t->at[S_TIMING] >= 0)
		rc = fmt_timing_decode(&tm, b[S_TIMING].data, b[S_TIMING].len,
				       rm.nranks, &e);
	if (!rc && t->at[S_RANKSUM] >= 0)
		rc = fmt_ranksum_decode(&rs, b[S_RANKSUM].data,
					b[S_RANKSUM].len, rm.nranks, cst.n, &e);
	fmt_ranksum_free(&rs);
	fmt_meta_free(&meta);
	fmt_funcs_free(&funcs);
	fmt_cst_free(&cst);
	fmt_grammar_free(&g);
	fmt_rankmap_free(&rm);
	fmt_stats_free(&st);
	fmt_ranktime_free(&rt);
	fmt_timing_free(&tm);
	if (rc == RONDO_E_NOMEM)
		return rc;
	return rc ? fail(x, RONDO_E_CORRUPT,
			 "the after files give values the trace cannot hold "
			 "(%s); it is left as it was",
			 e.msg)
		  : 0;
}

/* The coded timing with each rank's added segment after its own: tm's
 * offsets are the trace's, its segments and bytes its own. */
static int timing_with(const struct trace_in *t, const struct adding *d,
		       struct fmt_timing *tm)
{
	const struct fmt_timing *o = &t->tm;
	uint64_t nseg = o->first[o->nranks], k = 0;
	size_t len = o->datalen;

	for (uint32_t r = 0; r < o->nranks; r++)
		if (d->tnewcalls[r]) {
			nseg++;
			len += d->tnew[r].len;
		}
	*tm = (struct fmt_timing){o->base, o->nranks, o->offset, 1};
	tm->from_low = o->from_low; /* the after calls' tracer's too */
	tm->follow = o->follow;	    /* as times_after coded them */
	tm->first = malloc(sizeof(uint64_t) * ((size_t)o->nranks + 1));
	tm->seg = malloc(sizeof(*tm->seg) * (nseg + 1));
	tm->data = malloc(len + 1);
	if (!tm->first || !tm->seg || !tm->data)
		return RONDO_E_NOMEM;
	tm->first[0] = 0;
	for (uint32_t r = 0; r < o->nranks; r++) {
		for (uint64_t i = o->first[r]; i < o->first[r + 1]; i++) {
			const struct fmt_tseg *g = &o->seg[i];

			tm->seg[k++] = (struct fmt_tseg){g->calls, tm->datalen,
							 g->len};
			memcpy(tm->data + tm->datalen, o->data + g->at, g->len);
			tm->datalen += g->len;
		}
		if (d->tnewcalls[r]) {
			tm->seg[k++] = (struct fmt_tseg){
				d->tnewcalls[r], tm->datalen, d->tnew[r].len};
			memcpy(tm->data + tm->datalen, d->tnew[r].data,
			       d->tnew[r].len);
			tm->datalen += d->tnew[r].len;
		}
		tm->first[r + 1] = k;
	}
	return 0;
}

static int write_with(const struct trace_in *t, struct adding *d,
		      const char *out, const struct ctx *x, size_t *saved)
{
	struct fmt_meta meta = {0};
	struct fmt_funcs funcs = {d->nfuncs, d->funcs};
	struct fmt_cst cst = {d->nsig, d->sigs, NULL};
	struct fmt_grammar g = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_stats st = {0};
	struct fmt_ranktime rt = {0};
	struct fmt_ranksum rs = {0};
	struct fmt_timing tm = {0};
	struct fmt_buf b[NS] = {{0}};
	struct fmt_writer w;
	char reason[512];
	int rc = grammar_with(&t->g, &d->g, &g);

	if (rc == 0)
		rc = rankmap_with(t->roots, t->rm.nranks, &rm);
	if (rc == 0 && t->at[S_TIMING] >= 0 && t->tm.coded) {
		rc = timing_with(t, d, &tm);
	} else if (rc == 0 && t->at[S_TIMING] >= 0) {
		tm = (struct fmt_timing){t->tm.base, t->tm.nranks,
					 t->tm.offset};
		rc = grammar_with(&t->tm.g, &d->tg, &tm.g);
		if (rc == 0)
			rc = rankmap_with(t->troots, 2 * t->tm.nranks, &tm.map);
	}
	if (rc == 0 && (t->at[S_STATS] >= 0 || t->at[S_SIGSTATS] >= 0))
		rc = stats_with(t, d, &st);
	if (rc == 0 && t->at[S_RANKTIME] >= 0)
		rc = ranktime_with(t, d, &rt);
	if (rc == 0 && t->at[S_RANKSUM] >= 0)
		rc = ranksum_with(t, d, &rs);
	if (rc == 0) {
		meta_with(t, d, &meta);
		fmt_meta_encode(&b[S_META], &meta);
		fmt_funcs_encode(&b[S_FUNCS], &funcs);
		fmt_cst_encode(&b[S_CST], &cst);
		fmt_grammar_encode(&b[S_GRAMMAR], &g);
		fmt_rankmap_encode(&b[S_RANKMAP], &rm);
		if (t->at[S_SIGSTATS] >= 0)
			fmt_sigstats_encode(&b[S_SIGSTATS], &st);
		else if (t->at[S_STATS] >= 0)
			fmt_stats_encode(&b[S_STATS], &st);
		if (t->at[S_RANKTIME] >= 0)
			fmt_ranktime_encode(&b[S_RANKTIME], &rt);
		if (t->at[S_TIMING] >= 0)
			fmt_timing_encode(&b[S_TIMING], &tm);
		if (t->at[S_RANKSUM] >= 0)
			fmt_ranksum_encode(&b[S_RANKSUM], &rs);
		for (int s = 0; s < NS; s++)
			if (b[s].oom)
				rc = RONDO_E_NOMEM;
	}
	if (rc == 0)
		rc = sections_check(t, b, x);
	fmt_writer_init(&w);
	for (uint32_t i = 0; i < t->c.nsec && rc == 0; i++) {
		const void *p = t->raw[i];
		size_t n = t->len[i];

		for (int s = 0; s < NS; s++)
			if (t->at[s] == (int)i) {
				p = b[s].data;
				n = b[s].len;
			}
		if (fmt_writer_add(&w, t->c.sec[i].type, p, n,
				   job_pack_level(n)) < 0)
			rc = RONDO_E_NOMEM;
	}
	if (rc == 0 && fmt_writer_save(&w, out, reason, sizeof(reason)) != 0)
		rc = fail(x, RONDO_E_IO, "%s", reason);
	*saved = w.saved;
	fmt_writer_free(&w);
	for (int s = 0; s < NS; s++)
		fmt_buf_free(&b[s]);
	fmt_meta_free(&meta);
	fmt_grammar_free(&g);
	fmt_rankmap_free(&rm);
	fmt_stats_free(&st);
	fmt_ranktime_free(&rt);
	fmt_ranksum_free(&rs);
	fmt_grammar_free(&tm.g);
	fmt_rankmap_free(&tm.map);
	if (tm.coded) { /* offsets: the trace's */
		free(tm.first);
		free(tm.seg);
		free(tm.data);
	}
	return rc;
}

int after_add(const char *trace, const char *out, const struct after_rank *a,
	      uint32_t n, recover_say_fn sayf, void *sctx, char *why,
	      size_t whylen)
{
	const struct ctx x = {sayf, sctx, why, whylen};
	struct trace_in t = {0};
	struct adding d = {0};
	size_t saved = 0;
	int rc;

	why[0] = '\0';
	if ((rc = trace_read(&t, trace, &x)))
		goto done;
	if (meta_get(&t.meta, "after")) {
		rc = fail(&x, RONDO_E_STATE,
			  "%s holds its calls after MPI_Finalize already",
			  trace);
		goto done;
	}
	d.nranks = t.rm.nranks;
	d.by_rank = calloc((size_t)d.nranks + 1, sizeof(*d.by_rank));
	d.gsig = calloc((size_t)d.nranks + 1, sizeof(*d.gsig));
	d.nfuncs = t.funcs.n;
	d.funcs = malloc(sizeof(*d.funcs) * ((size_t)d.nfuncs + 1));
	d.nsig = t.cst.n;
	rc = !d.by_rank || !d.gsig || !d.funcs ||
			     util_grow(&d.sigs, &d.capsig, (size_t)d.nsig + 1,
				       sizeof(*d.sigs)) < 0
		     ? RONDO_E_NOMEM
		     : 0;
	if (rc)
		goto done;
	memcpy(d.funcs, t.funcs.f, sizeof(*d.funcs) * d.nfuncs);
	memcpy(d.sigs, t.cst.sig, sizeof(*d.sigs) * d.nsig);
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		const char *no = unfit(&t, &a[i], &d);

		if (no) {
			say(&x, "%s: %s: left out", a[i].path, no);
			continue;
		}
		d.gsig[a[i].rank] = malloc(sizeof(uint32_t) * (a[i].nsig + 1));
		if (!d.gsig[a[i].rank]) {
			rc = RONDO_E_NOMEM;
			break;
		}
		if ((rc = map_rank(&d, &a[i], d.gsig[a[i].rank])))
			break;
		d.by_rank[a[i].rank] = &a[i];
		d.nfiles++;
		d.calls += a[i].ncalls;
		d.lost += a[i].lost > 0 ? (uint64_t)a[i].lost : 0;
		for (uint32_t b = 0; b < JOB_NBIND && b < a[i].nbind; b++) {
			d.bind[b] += a[i].bind[b];
			d.bind_ranks[b] += a[i].bind[b] > 0;
		}
	}
	if (rc == 0 && d.nfiles == 0)
		rc = fail(&x, RONDO_E_MISSING,
			  "no after file belongs to %s (its program, start "
			  "and ranks)",
			  trace);
	d.g.nrules = t.g.nrules;
	d.tg.nrules = t.tm.g.nrules;
	if (rc == 0 && t.at[S_TIMING] >= 0 && t.tm.coded) {
		d.tnew = calloc((size_t)d.nranks + 1, sizeof(*d.tnew));
		d.tnewcalls = calloc((size_t)d.nranks + 1, sizeof(uint64_t));
		if (!d.tnew || !d.tnewcalls)
			rc = RONDO_E_NOMEM;
	}
	for (uint32_t r = 0; r < d.nranks && rc == 0; r++)
		if (d.by_rank[r] && d.by_rank[r]->ncalls)
			rc = roots_after(&d, &t, r);
	if (rc == 0)
		rc = write_with(&t, &d, out, &x, &saved);
	if (rc == 0)
		say(&x,
		    "%s: %zu bytes, %llu calls after MPI_Finalize added from "
		    "%u rank%s",
		    out, saved, (unsigned long long)d.calls, d.nfiles,
		    d.nfiles == 1 ? "" : "s");
done:
	if (rc == RONDO_E_NOMEM && !why[0])
		snprintf(why, whylen, "out of memory");
	else if (rc == RONDO_E_RANGE && !why[0])
		snprintf(why, whylen, "%s: too large to add to", trace);
	for (uint32_t r = 0; d.gsig && r < d.nranks; r++)
		free(d.gsig[r]);
	free(d.gsig);
	free(d.by_rank);
	free(d.funcs);
	free(d.sigs);
	free(d.seen);
	rules_free(&d.g);
	rules_free(&d.tg);
	for (uint32_t r = 0; d.tnew && r < d.nranks; r++)
		fmt_buf_free(&d.tnew[r]);
	free(d.tnew);
	free(d.tnewcalls);
	trace_free(&t);
	return rc;
}
