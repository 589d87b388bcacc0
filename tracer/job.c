/*
 * job.c - the trace file's sections from the merge of a job's ranks (see
 * job.h): functions and constants numbered in order of first use,
 * communicators renumbered from their identities, the ranks' clock
 * origins put onto one clock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "job.h"
#include "merge.h"
#include "params.h"
#include "precision.h"
#include "rankvals.h"
#include "reshape.h"
#include "util.h"

int job_pack_level(size_t len)
{
	/* the slow, small level for all but large payloads (a trace's are
	 * mostly small) */
	return len <= (1u << 20) ? 19 : 3;
}

void job_meta_facts(struct fmt_meta *m, const struct job_facts *f,
		    const struct merge *mg)
{
	char buf[64];

	job_meta_add(m, "program", f->program);
	job_meta_add(m, "command", f->command);
	snprintf(buf, sizeof(buf), "%u", f->ranks);
	job_meta_add(m, "ranks", buf);
	job_meta_add(m, "mpi", f->mpi);
	job_meta_add(m, "mpi_version", f->mpi_version);
	job_meta_add(m, "bindings", f->bindings);
	job_meta_add(m, "host", f->host);
	job_meta_add(m, "start", f->start);
	snprintf(buf, sizeof(buf), "%.6f", f->duration);
	job_meta_add(m, "duration", buf);
	if (f->init)
		job_meta_add(m, "init", f->init);
	job_meta_add(m, "tracer", "rondo " PACKAGE_VERSION);
	job_meta_add(m, "settings", f->settings);
	snprintf(buf, sizeof(buf), "%u", merge_unique(mg));
	job_meta_add(m, "rank_grammars", buf);
	if (merge_timing_base(mg)) {
		snprintf(buf, sizeof(buf), "per call, base %g",
			 merge_timing_base(mg));
		job_meta_add(m, "timing", buf);
		job_meta_add(m, "clock_sync", f->clock_sync);
	}
}

/* A grammar this large is an irregular call sequence (a regular one
 * folds into a few rules whatever its length): then the other shape
 * (reshape.c) is tried, up to this many calls. */
#define RESHAPE_MIN_SYMBOLS 1024
#define RESHAPE_MAX_CALLS   (1u << 22)

int job_reshape(struct fmt_grammar *g, uint32_t nsig, size_t *was, size_t *now)
{
	struct fmt_grammar r;
	struct fmt_buf a = {0}, b = {0};
	int done = 0;

	*was = *now = 0;
	if (g->nrules == 0 || g->first[g->nrules] < RESHAPE_MIN_SYMBOLS ||
	    reshape_cut(g, nsig, RESHAPE_MAX_CALLS, &r) != 0)
		return 0;
	fmt_grammar_encode(&a, g);
	fmt_grammar_encode(&b, &r);
	*was = a.oom ? 0
		     : fmt_packed_size(a.data, a.len, job_pack_level(a.len));
	*now = b.oom ? 0
		     : fmt_packed_size(b.data, b.len, job_pack_level(b.len));
	if (*was && *now && *now < *was) {
		fmt_grammar_free(g);
		*g = r;
		done = 1;
	} else {
		fmt_grammar_free(&r);
	}
	fmt_buf_free(&a);
	fmt_buf_free(&b);
	return done;
}

void job_bindings_text(char *buf, size_t size, const uint64_t *calls,
		       const uint64_t *ranks)
{
	static const char *const names[JOB_NBIND] = {
		"C", "Fortran mpif.h or use mpi", "Fortran use mpi_f08"};
	size_t n = 0;

	buf[0] = '\0';
	for (int b = 0; b < JOB_NBIND; b++) {
		if (!calls[b] || n >= size)
			continue;
		n += (size_t)snprintf(
			buf + n, size - n, "%s%s: %llu calls on %llu ranks",
			n ? "; " : "", names[b], (unsigned long long)calls[b],
			(unsigned long long)ranks[b]);
	}
	if (!buf[0])
		snprintf(buf, size, "none: no call was traced");
}

void job_meta_add(struct fmt_meta *m, const char *key, const char *value)
{
	struct fmt_kv *kv = realloc(m->kv, sizeof(*kv) * (m->n + 1));

	if (!kv)
		return;
	m->kv = kv;
	kv[m->n].key = strdup(key);
	kv[m->n].value = strdup(value ? value : "");
	if (kv[m->n].key && kv[m->n].value)
		m->n++;
	else {
		free(kv[m->n].key);
		free(kv[m->n].value);
	}
}

static int job_funcs(const struct job_names *nm, struct fmt_funcs *f,
		     struct fmt_cst *cst)
{
	uint32_t nf = nm->nfuncs, *id = malloc(sizeof(*id) * (nf + 1));

	f->f = calloc(cst->n + 1, sizeof(*f->f));
	if (!id || !f->f) {
		free(id);
		return -1;
	}
	memset(id, 0xff, sizeof(*id) * nf);
	for (uint32_t s = 0; s < cst->n; s++) {
		uint32_t fn = cst->sig[s].func;

		if (fn >= nf) { /* a damaged spill's */
			free(id);
			return -1;
		}
		if (id[fn] == UINT32_MAX) {
			id[fn] = f->n;
			/* names are borrowed from the caller's tables */
			f->f[f->n++] = nm->funcs[fn];
		}
		cst->sig[s].func = id[fn];
	}
	free(id);
	return 0;
}

/* The small id of a communicator identity: its place in the merge's
 * list, or a new one (members unknown: the rank that speaks for it
 * failed) after them. */
static uint32_t job_comm(struct job *j, uint64_t key)
{
	uint32_t id = hmap_lookup(&j->comm_id, key);

	if (id != UINT32_MAX)
		return id;
	if (util_grow(&j->comms.c, &j->capcomms, (size_t)j->comms.n + 1,
		      sizeof(*j->comms.c)) < 0 ||
	    hmap_insert(&j->comm_id, key, j->comms.n) < 0) {
		j->oom = 1;
		return 0;
	}
	j->comms.c[j->comms.n] = (struct fmt_comm){0, 0, NULL};
	return j->comms.n++;
}

static uint64_t job_comm_map(void *ctx, uint64_t key)
{
	return job_comm(ctx, key);
}

/* Rewrites every signature's argument values of kind `kind` (in lists
 * too) by map, the arguments into *bytes.  0, or -1 when out of memory. */
static int cst_map_kind(struct fmt_cst *cst, struct fmt_buf *bytes,
			uint32_t kind, uint64_t (*map)(void *, uint64_t),
			void *ctx)
{
	size_t *off = malloc(sizeof(size_t) * (cst->n + 1));

	if (!off)
		return -1;
	for (uint32_t s = 0; s < cst->n; s++) {
		struct fmt_cur in;

		off[s] = bytes->len;
		fmt_cur_init(&in, cst->sig[s].args, cst->sig[s].len, NULL,
			     NULL);
		for (uint32_t a = 0; a < cst->sig[s].nargs; a++)
			if (fmt_arg_map(bytes, &in, kind, map, ctx) < 0)
				break;
	}
	for (uint32_t s = 0; s < cst->n && !bytes->oom; s++) {
		size_t end = s + 1 < cst->n ? off[s + 1] : bytes->len;

		cst->sig[s].args = bytes->data + off[s];
		cst->sig[s].len = (uint32_t)(end - off[s]);
	}
	free(off);
	return bytes->oom ? -1 : 0;
}

/* The communicators in the order of the merge's list (the members are
 * borrowed from it), and the signatures with their identities replaced
 * by those ids. */
static int job_rename_comms(struct job *j, struct fmt_cst *cst,
			    struct fmt_buf *bytes)
{
	const uint64_t *keys;
	const struct fmt_topo *topo;
	const struct fmt_comms *c = merge_comms(j->m, &keys, &topo);

	j->topos.t = malloc(sizeof(*j->topos.t) * (c->n + 1));
	if (!j->topos.t)
		return -1;
	/* ids in the list's order, so the topologies come in order too */
	for (uint32_t i = 0; i < c->n && !j->oom; i++) {
		uint32_t id = job_comm(j, keys[i]);

		if (j->oom)
			break;
		j->comms.c[id] = c->c[i];
		if (topo[i].ndims) {
			j->topos.t[j->topos.n] = topo[i];
			j->topos.t[j->topos.n++].comm = id;
		}
	}
	if (j->oom || cst_map_kind(cst, bytes, RONDO_ARG_COMM, job_comm_map, j))
		return -1;
	return j->oom ? -1 : 0;
}

/* The per-rank values the signatures name (rankvals.c), their slots
 * renumbered in the signatures as equal ones were merged. */
struct slot_map {
	const uint32_t *to;
	uint32_t n;
};

static uint64_t slot_renumber(void *ctx, uint64_t v)
{
	const struct slot_map *m = ctx;

	return v < m->n ? m->to[v] : v;
}

static int job_rankvals(struct job *j, struct fmt_cst *cst,
			struct fmt_buf *bytes, struct fmt_rankvals *rv)
{
	struct slot_map map = {NULL, rankvals_named(cst)};
	const struct merge_val *v;
	size_t n;
	uint32_t *to;
	int rc;

	memset(rv, 0, sizeof(*rv));
	if (!map.n)
		return 0;
	v = merge_values(j->m, &n);
	if (rankvals_make(v, n, map.n, merge_ranks(j->m), job_comm_map, j, rv,
			  &to))
		return -1;
	map.to = to;
	rc = cst_map_kind(cst, bytes, RONDO_ARG_VARY, slot_renumber, &map);
	free(to);
	return rc || j->oom ? -1 : 0;
}

/* The named constants the signatures use, numbered in order of first
 * use: the consts section names only those. */
struct used_consts {
	uint32_t *id; /* the tracer's constant -> the file's, or UINT32_MAX */
	struct fmt_consts *out;
	const struct job_names *nm;
};

static uint64_t used_const(void *ctx, uint64_t v)
{
	struct used_consts *u = ctx;

	if (v >= u->nm->nconsts)
		return v; /* not one of ours: left as it is */
	if (u->id[v] == UINT32_MAX) {
		u->id[v] = u->out->n;
		u->out->name[u->out->n++] = (char *)u->nm->consts[v];
	}
	return u->id[v];
}

/* The constants (of the signatures and of the per-rank values), and the
 * sizes of those that are predefined datatypes (in increasing order of
 * the file's ids). */
/* The constants among the per-rank values, by the same numbering. */
static void rankvals_consts(struct fmt_rankvals *rv, struct used_consts *u)
{
	for (uint32_t k = 0; k < rv->n; k++)
		for (uint32_t i = 0; i < rv->slot[k].nitems; i++) {
			struct fmt_vitem *it = &rv->slot[k].item[i];

			if (!it->delta && it->val.kind == RONDO_ARG_CONST &&
			    it->val.wire == RONDO_WIRE_UINT)
				it->val.u = used_const(u, it->val.u);
		}
}

static int job_consts(const struct job_names *nm, struct fmt_cst *cst,
		      struct fmt_rankvals *rv, struct fmt_buf *bytes,
		      struct fmt_consts *consts, struct fmt_typesizes *ts)
{
	uint32_t n = nm->nconsts;
	struct used_consts u = {malloc(sizeof(uint32_t) * (n + 1)), consts, nm};
	int rc;

	consts->n = 0;
	consts->name = malloc(sizeof(char *) * (n + 1));
	ts->n = 0;
	ts->konst = malloc(sizeof(*ts->konst) * (n + 1));
	ts->size = malloc(sizeof(*ts->size) * (n + 1));
	if (!u.id || !consts->name || !ts->konst || !ts->size) {
		free(u.id);
		return -1;
	}
	memset(u.id, 0xff, sizeof(uint32_t) * n);
	rc = cst_map_kind(cst, bytes, RONDO_ARG_CONST, used_const, &u);
	if (rc == 0)
		rankvals_consts(rv, &u);
	for (uint32_t id = 0; rc == 0 && id < consts->n; id++)
		for (uint32_t v = 0; v < n; v++)
			if (u.id[v] == id && nm->const_size[v] >= 0) {
				ts->konst[ts->n] = id;
				ts->size[ts->n++] = (uint64_t)nm->const_size[v];
			}
	free(u.id);
	return rc;
}

/* The ranks' clock origins as offsets onto rank 0's clock. */
static void job_offsets(const struct job *j, struct fmt_timing *tm)
{
	for (uint32_t r = 0; r < tm->nranks; r++)
		if (tm->offset[r]) /* 0: the rank kept no time */
			tm->offset[r] -= j->ref + (j->skew ? j->skew[r] : 0);
}

/* An entry of a rank's times, or of a group's gaps, renumbered. */
struct sigval {
	uint32_t sig;
	uint64_t calls, ns;
};

static int sigval_cmp(const void *a, const void *b)
{
	const struct sigval *x = a, *y = b;

	return (x->sig > y->sig) - (x->sig < y->sig);
}

/* Sorts v[0..n-1] by signature and adds up the entries of one: returns
 * how many are left. */
static size_t sigval_sum(struct sigval *v, size_t n)
{
	size_t d = 0;

	qsort(v, n, sizeof(*v), sigval_cmp);
	for (size_t k = 0; k < n; k++)
		if (d && v[d - 1].sig == v[k].sig) {
			v[d - 1].calls += v[k].calls;
			v[d - 1].ns += v[k].ns;
		} else {
			v[d++] = v[k];
		}
	return d;
}

/* Each rank's times renumbered by `to` into *out (its own arrays): the
 * times of signatures merged into one added up (each kept within 1/128,
 * and their sum again). */
static int ranktime_renumber(const struct fmt_ranktime *in, const uint32_t *to,
			     struct fmt_ranktime *out)
{
	uint32_t nr = in->nranks;
	uint64_t total = in->at[nr], k = 0;
	struct sigval *v = malloc(sizeof(*v) * (total + 1));

	memset(out, 0, sizeof(*out));
	out->nranks = nr;
	out->at = malloc(sizeof(*out->at) * ((size_t)nr + 1));
	out->list = malloc(sizeof(*out->list) * ((size_t)nr + 1));
	out->sig = malloc(sizeof(*out->sig) * (total + 1));
	out->code = malloc(sizeof(*out->code) * (total + 1));
	if (!v || !out->at || !out->list || !out->sig || !out->code) {
		free(v);
		fmt_ranktime_free(out);
		return -1;
	}
	out->at[0] = 0;
	for (uint32_t r = 0; r < nr; r++) {
		uint64_t n = in->at[r + 1] - in->at[r], from = in->list[r];
		size_t d;

		for (uint64_t i = 0; i < n; i++)
			v[i] = (struct sigval){
				to[in->sig[from + i]], 0,
				fmt_time_value(in->code[from + i])};
		d = sigval_sum(v, (size_t)n);
		out->list[r] = k;
		for (size_t i = 0; i < d; i++, k++) {
			out->sig[k] = v[i].sig;
			out->code[k] = fmt_time_code(v[i].ns);
		}
		out->at[r + 1] = k;
	}
	free(v);
	return 0;
}

/* The groups' gaps renumbered by `to`, in place. */
static int groupgaps_renumber(struct fmt_groupgaps *gg, const uint32_t *to)
{
	uint64_t k = 0;
	struct sigval *v;

	if (!gg->n)
		return 0;
	v = malloc(sizeof(*v) * (gg->at[gg->n] + 1));
	if (!v)
		return -1;
	for (uint32_t i = 0; i < gg->n; i++) {
		uint64_t from = gg->at[i], n = gg->at[i + 1] - from;
		size_t d;

		for (uint64_t q = 0; q < n; q++)
			v[q] = (struct sigval){to[gg->e[from + q].sig],
					       gg->e[from + q].calls,
					       gg->e[from + q].ns};
		d = sigval_sum(v, (size_t)n);
		gg->at[i] = k;
		for (size_t q = 0; q < d; q++, k++)
			gg->e[k] = (struct fmt_gapent){v[q].sig, v[q].calls,
						       v[q].ns};
	}
	gg->at[gg->n] = k;
	free(v);
	return 0;
}

/* The groups' gaps once their roots are canon's: groups that are now one
 * added up.  0 or -1 (gg as it was). */
static int groupgaps_roots(struct fmt_groupgaps *gg, const uint32_t *canon)
{
	uint32_t n = gg->n, ng = 0;
	uint64_t total = n ? gg->at[n] : 0, k = 0;
	struct sigval *v = malloc(sizeof(*v) * (total + 1));
	struct sigval *ord = malloc(sizeof(*ord) * ((size_t)n + 1));
	uint32_t *root = malloc(sizeof(*root) * ((size_t)n + 1));
	uint64_t *at = malloc(sizeof(*at) * ((size_t)n + 2));
	struct fmt_gapent *e = malloc(sizeof(*e) * (total + 1));

	if (!v || !ord || !root || !at || !e) {
		free(v);
		free(ord);
		free(root);
		free(at);
		free(e);
		return -1;
	}
	/* the groups by new root (sig: the root; calls: the group) */
	for (uint32_t i = 0; i < n; i++)
		ord[i] = (struct sigval){canon[gg->root[i]], i, 0};
	qsort(ord, n, sizeof(*ord), sigval_cmp);
	at[0] = 0;
	for (uint32_t i = 0, j; i < n; i = j) {
		size_t m = 0, d;

		for (j = i; j < n && ord[j].sig == ord[i].sig; j++)
			for (uint64_t q = gg->at[ord[j].calls];
			     q < gg->at[ord[j].calls + 1]; q++)
				v[m++] = (struct sigval){gg->e[q].sig,
							 gg->e[q].calls,
							 gg->e[q].ns};
		d = sigval_sum(v, m);
		for (size_t q = 0; q < d; q++)
			e[k++] = (struct fmt_gapent){v[q].sig, v[q].calls,
						     v[q].ns};
		root[ng++] = ord[i].sig;
		at[ng] = k;
	}
	free(v);
	free(ord);
	free(gg->root);
	free(gg->at);
	free(gg->e);
	gg->root = root;
	gg->at = at;
	gg->e = e;
	gg->n = ng;
	return 0;
}

/* What the merge of signatures at the precision renumbers (params.h). */
struct job_params {
	struct params_plan plan;
	rondo_stat *stat, *gap; /* by new id */
	struct fmt_ranktime times;
	int own_times;
};

static void job_params_free(struct job_params *jp)
{
	params_free(&jp->plan);
	free(jp->stat);
	free(jp->gap);
	if (jp->own_times)
		fmt_ranktime_free(&jp->times);
}

/* Signatures equal but for counts and displacements within the precision
 * made one (params.h): the grammar's calls, the statistics, the ranks'
 * times and the groups' gaps renumbered.  Returns 0: jp->plan.nclasses
 * is 0 when nothing was merged (none to merge, or memory short: all is
 * then as it was, lossless). */
static int job_params(const struct job *j, const struct fmt_cst *cst,
		      const struct fmt_funcs *funcs, const rondo_stat *stat,
		      const rondo_stat *gap, struct fmt_grammar *g,
		      struct fmt_rankmap *rm, struct fmt_groupgaps *gg,
		      struct fmt_ranktime *times, struct job_params *jp)
{
	uint32_t n = cst->n, *first = malloc(sizeof(*first) * (n + 1)), *canon;
	uint64_t *calls = malloc(sizeof(*calls) * (n + 1));
	const uint32_t *to;
	int rc = -1;

	memset(jp, 0, sizeof(*jp));
	if (!first || !calls)
		goto out;
	for (uint32_t s = 0; s < n; s++)
		calls[s] = stat[s].count;
	if (params_first_ranks(g, rm, n, first) < 0 ||
	    params_plan(&jp->plan, cst, funcs->f, funcs->n, calls, first,
			100 - j->tolerance, j->params) < 0)
		goto out;
	rc = 0;
	if (!jp->plan.nclasses)
		goto out;
	rc = -1;
	to = jp->plan.to;
	jp->stat = calloc(jp->plan.nnew + 1, sizeof(*jp->stat));
	jp->gap = calloc(jp->plan.nnew + 1, sizeof(*jp->gap));
	if (!jp->stat || !jp->gap ||
	    (times->nranks && ranktime_renumber(times, to, &jp->times) < 0))
		goto out;
	jp->own_times = times->nranks != 0;
	/* from here on nothing fails but the gaps' one allocation, first */
	if (groupgaps_renumber(gg, to) < 0)
		goto out;
	if (jp->own_times)
		*times = jp->times;
	for (uint32_t s = 0; s < n; s++) {
		merge_stat_add(&jp->stat[to[s]], &stat[s]);
		merge_stat_add(&jp->gap[to[s]], &gap[s]);
	}
	for (uint64_t k = 0; k < g->first[g->nrules]; k++)
		if (!RONDO_SYM_IS_RULE(g->body[k].sym) && g->body[k].sym < n)
			g->body[k].sym = to[g->body[k].sym];
	/* rules that are now alike are one, and so may groups be; the
	 * calls are as they were if that cannot be done */
	canon = malloc(sizeof(*canon) * ((size_t)g->nrules + 1));
	if (canon && params_same_rules(g, canon) > 0 &&
	    groupgaps_roots(gg, canon) == 0)
		for (uint64_t k = 0; k < rm->map.first[rm->map.nrules]; k++)
			if (!RONDO_SYM_IS_RULE(rm->map.body[k].sym))
				rm->map.body[k].sym =
					canon[rm->map.body[k].sym];
	free(canon);
	rc = 0;
out:
	free(first);
	free(calls);
	if (rc) { /* kept lossless */
		job_params_free(jp);
		memset(jp, 0, sizeof(*jp));
	}
	return 0;
}
/* The metadata of a precision below 100 %: `precision` the percentage,
 * `merged` what was merged (FORMAT.md, "hists"). */
/* ", displacements, tags and peers": what may merge besides counts. */
static const char *params_words(unsigned params)
{
	static const char *const words[] = {
		" and displacements", ", displacements and tags",
		", displacements and peers", ", displacements, tags and peers"};

	return words[params & (PARAMS_TAGS | PARAMS_PEERS)];
}

static void job_meta_precision(struct fmt_meta *m, uint32_t tolerance,
			       unsigned params, const struct fmt_hists *hs,
			       const struct params_plan *pp, int timed)
{
	char buf[320];
	uint64_t runs = 0;
	uint32_t loops = 0;
	int n = 0;

	snprintf(buf, sizeof(buf), "%u", 100 - tolerance);
	job_meta_add(m, "precision", buf);
	for (uint32_t i = 0; i < hs->n; i++)
		if (hs->h[i].kind == FMT_HIST_COUNT) {
			runs += hs->h[i].n;
			loops++;
		}
	if (timed)
		n = snprintf(buf, sizeof(buf),
			     "nothing: per-call times are kept, call by call");
	else if (!loops && !pp->nclasses)
		n = snprintf(buf, sizeof(buf),
			     "nothing: no loop counts nor counts%s within "
			     "%u %% of each other",
			     params_words(params), tolerance);
	if (!n && loops)
		n = snprintf(buf, sizeof(buf),
			     "loop counts: %u histograms at %u places, %" PRIu64
			     " loop runs",
			     loops, hs->nsites, runs);
	if (!timed && pp->nclasses && n >= 0 && (size_t)n < sizeof(buf)) {
		char of[64] = "";

		if (params & PARAMS_TAGS && params & PARAMS_PEERS)
			snprintf(of, sizeof(of), " (%u of tags, %u of peers)",
				 pp->ntags, pp->npeers);
		else if (params & (PARAMS_TAGS | PARAMS_PEERS))
			snprintf(of, sizeof(of), " (%u of %s)",
				 params & PARAMS_TAGS ? pp->ntags : pp->npeers,
				 params & PARAMS_TAGS ? "tags" : "peers");
		snprintf(buf + n, sizeof(buf) - (size_t)n,
			 "%scounts%s: %u signatures made %u, %u histograms%s "
			 "of %" PRIu64 " calls' values",
			 n ? "; " : "", params_words(params), pp->nmerged,
			 pp->nclasses, hs->n - loops, of, pp->nvalues);
	}
	job_meta_add(m, "merged", buf);
}

int job_sections(struct job *j, struct fmt_writer *w)
{
	const struct fmt_cst *all = merge_cst(j->m);
	const rondo_stat *stat = merge_stats(j->m);
	const rondo_stat *gap = merge_gaps(j->m);
	struct fmt_cst cst = {
		all->n, malloc(sizeof(struct fmt_sig) * (all->n + 1)), NULL};
	struct fmt_funcs funcs = {0};
	struct fmt_consts consts = {0};
	struct fmt_stats st = {0,
			       malloc(sizeof(struct fmt_stat) * (all->n + 1))};
	struct fmt_stats gs = {0,
			       malloc(sizeof(struct fmt_stat) * (all->n + 1))};
	struct fmt_meta meta = {0};
	struct fmt_grammar g = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_ranktime times;
	struct fmt_typesizes ts = {0};
	struct fmt_timing tm = {0};
	struct fmt_rankvals rv = {0};
	struct fmt_ranksum sum = {0};
	struct fmt_groupgaps gg = {0};
	struct fmt_hists hs = {0};
	struct job_params jp = {0};
	struct fmt_buf b[16] = {{0}}, bytes = {0}, cbytes = {0}, vbytes = {0};
	static const uint32_t type[16] = {
		FMT_SEC_META,	  FMT_SEC_FUNCS,     FMT_SEC_CONSTS,
		FMT_SEC_CST,	  FMT_SEC_GRAMMAR,   FMT_SEC_RANKMAP,
		FMT_SEC_SIGSTATS, FMT_SEC_COMMS,     FMT_SEC_RANKTIME,
		FMT_SEC_TOPOLOGY, FMT_SEC_TYPESIZES, FMT_SEC_TIMING,
		FMT_SEC_RANKVALS, FMT_SEC_GAPSTATS,  FMT_SEC_GROUPGAPS,
		FMT_SEC_HISTS};
	/* the grammar the last of what the calls need (the rank map, the
	 * communicators, datatype sizes and per-rank values before it): a
	 * file cut inside it keeps the rules before the cut, and says whose
	 * were lost */
	static const int order[16] = {0, 1,  2, 3, 5, 7,  10, 12,
				      4, 15, 9, 6, 8, 13, 14, 11};
	int rc = -1, timed, summed, percall;

	merge_ranktime(j->m, &times);
	summed = times.nranks >
		 (j->exact_ranks ? j->exact_ranks : JOB_EXACT_RANKS);
	if (cst.sig && st.st && gs.st && stat && gap &&
	    merge_finish(j->m, &g, &rm) == 0) {
		memcpy(cst.sig, all->sig, sizeof(*cst.sig) * all->n);
		rc = job_rename_comms(j, &cst, &bytes);
	}
	if (rc == 0)
		rc = job_rankvals(j, &cst, &vbytes, &rv);
	if (rc == 0)
		rc = job_consts(j->names, &cst, &rv, &cbytes, &consts, &ts);
	if (rc == 0)
		rc = job_funcs(j->names, &funcs, &cst);
	if (rc == 0)
		rc = merge_groupgaps(j->m, &gg) ? -1 : 0;
	timed = rc == 0 && merge_timing(j->m, &tm) == 0;
	if (timed)
		job_offsets(j, &tm);
	percall = timed && tm.nranks;
	/* signatures and loop counts merged at the precision asked for;
	 * never with per-call times, which follow the calls one by one */
	if (rc == 0 && j->tolerance && !percall) {
		job_params(j, &cst, &funcs, stat, gap, &g, &rm, &gg, &times,
			   &jp);
		if (jp.plan.nclasses) {
			stat = jp.stat;
			gap = jp.gap;
		}
		if (precision_apply(&g, &rm, &gg,
				    jp.plan.nclasses ? jp.plan.nnew : all->n,
				    100 - j->tolerance, jp.plan.nclasses != 0,
				    &hs) != 0)
			fmt_hists_free(&hs); /* loops kept lossless */
		/* the grammar calls the new signatures: they must be */
		if (jp.plan.nclasses && params_write(&jp.plan, &cst, &hs) != 0)
			rc = -1;
	}
	if (rc == 0 && summed)
		rc = fmt_ranksum_make(&sum, &times, JOB_EXTREMES,
				      merge_rank_mpi(j->m))
			     ? -1
			     : 0;
	if (rc == 0) {
		for (uint32_t s = 0; s < cst.n; s++) {
			if (stat[s].count)
				st.st[st.n++] = (struct fmt_stat){s, stat[s]};
			if (gap[s].count)
				gs.st[gs.n++] = (struct fmt_stat){s, gap[s]};
		}
		j->meta(&meta, j->ctx);
		if (j->tolerance)
			job_meta_precision(&meta, j->tolerance, j->params, &hs,
					   &jp.plan, percall);
		fmt_meta_encode(&b[0], &meta);
		fmt_funcs_encode(&b[1], &funcs);
		fmt_consts_encode(&b[2], &consts);
		fmt_cst_encode(&b[3], &cst);
		fmt_grammar_encode(&b[4], &g);
		fmt_rankmap_encode(&b[5], &rm);
		fmt_sigstats_encode(&b[6], &st);
		fmt_comms_encode(&b[7], &j->comms);
		if (summed)
			fmt_ranksum_encode(&b[8], &sum);
		else
			fmt_ranktime_encode(&b[8], &times);
		fmt_topos_encode(&b[9], &j->topos);
		fmt_typesizes_encode(&b[10], &ts);
		if (timed)
			fmt_timing_encode(&b[11], &tm);
		fmt_rankvals_encode(&b[12], &rv);
		fmt_sigstats_encode(&b[13], &gs);
		fmt_groupgaps_encode(&b[14], &gg);
		if (hs.n)
			fmt_hists_encode(&b[15], &hs);
	}
	/* what the calls need first, per-call times last: a file cut short
	 * keeps the most (FORMAT.md, "Writing a file"); no communicator,
	 * topology, datatype, per-call time, per-rank value or time between
	 * calls, no section */
	for (int k = 0; k < 16 && rc == 0; k++) {
		int i = order[k];

		rc = b[i].oom ? -1
		     : (i == 7 && !j->comms.n) || (i == 9 && !j->topos.n) ||
				     (i == 10 && !ts.n) ||
				     (i == 11 && !timed) ||
				     (i == 12 && !rv.n) ||
				     ((i == 13 || i == 14) && !gs.n) ||
				     (i == 15 && !hs.n)
			     ? 0
			     : fmt_writer_add(w,
					      i == 8 && summed ? FMT_SEC_RANKSUM
							       : type[i],
					      b[i].data, b[i].len,
					      job_pack_level(b[i].len));
	}
	for (int i = 0; i < 16; i++)
		fmt_buf_free(&b[i]);
	fmt_hists_free(&hs);
	job_params_free(&jp);
	fmt_groupgaps_free(&gg);
	fmt_rankvals_free(&rv);
	fmt_ranksum_free(&sum);
	fmt_buf_free(&vbytes);
	fmt_timing_free(&tm);
	fmt_typesizes_free(&ts);
	fmt_buf_free(&bytes);
	fmt_buf_free(&cbytes);
	fmt_meta_free(&meta);
	free(funcs.f);
	free(consts.name);
	free(cst.sig);
	free(st.st);
	free(gs.st);
	fmt_grammar_free(&g);
	fmt_rankmap_free(&rm);
	return rc;
}

uint32_t job_exact_ranks(const char *v)
{
	char *end;
	unsigned long long n;

	if (!v)
		return JOB_EXACT_RANKS;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || n == 0 || n > UINT32_MAX)
		return 0;
	return (uint32_t)n;
}

void job_free(struct job *j)
{
	hmap_free(&j->comm_id);
	free(j->comms.c); /* the members belong to the merge */
	free(j->topos.t);
}
