/*
 * proxy_rt.c - a proxy's own part of the runtime, in place of
 * rondo-replay's source.c and run loop: the signatures from the tables
 * `rondo proxy` wrote (px_sigs...), a wildcard's match from what the
 * generator found in the grammar or else read ahead at run time, and
 * px_call(), which the rule functions
 * call for each recorded call: the computation before it as time spun,
 * then the call.  `rondo proxy` copies this file into every proxy (it is
 * not compiled into rondo itself).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "match.h"
#include "proxy.h"

/* A place in the grammar: a stack of rule, item, and the item's
 * repetitions begun. */
struct px_frame {
	uint32_t rule, pos;
	uint64_t done;
};
struct px_cursor {
	struct px_frame *f;
	uint32_t depth, cap;
};

static struct {
	struct rp_options o;
	int rank, inited, lazy, finalized;
	int sessions; /* 1: started by MPI_Session_init, 2: then MPI_Init */
	int *argc;
	char ***argv;
	struct rp_sig *sigs;
	struct rp_call c;
	double end_prev, debt;
	const struct rp_val *matched; /* the status a wildcard matched */
	struct px_cursor at, ahead;   /* where the calls are; a look-ahead */
	struct rp_names names;
	uint64_t *drawn; /* by merged loop histogram: the draws made */
	char who[1024];	 /* "proxy of TRACE", for messages */
} px;

/* ---- merged loops' counts ------------------------------------------------ */

uint64_t px_draw(uint32_t h, uint64_t kept)
{
	const struct px_hist *x;

	if (h >= px_nhists)
		return kept;
	x = &px_hists[h];
	return draw_count(px.o.seed, x->key, px.drawn[h]++,
			  px_hist_bins + x->first, x->nbins, x->n, kept);
}

uint64_t rp_value_draw(uint32_t h, uint64_t kept)
{
	return px_draw(h, kept);
}

/* Once MPI is up: the seed of the draws, --seed's or one rank 0 picks and
 * broadcasts (through PMPI, not recorded) and says; a program of sessions
 * draws with 0. */
static void px_seed(int rank)
{
	if (!px_nhists || px.o.seeded || px.sessions)
		return;
	px.o.seed = rp_seed_agree(rank);
	if (rank == 0)
		fprintf(stderr,
			"%s: %u loops, counts or tags merged at precision "
			"below 100 run counts and send sizes drawn with seed "
			"%llu (--seed %llu draws them again)\n",
			px.who, px_nhists, (unsigned long long)px.o.seed,
			(unsigned long long)px.o.seed);
}

/* ---- the tables, as rondo-replay reads the trace ------------------------ */

uint32_t rp_func_count(void)
{
	return px_nfuncs;
}

const char *rp_func_name(uint32_t f)
{
	return f < px_nfuncs ? px_funcs[f].name : NULL;
}

uint32_t rp_sig_func(uint32_t sig)
{
	return sig < px_nsigs ? px_sigs[sig].func : 0;
}

int rp_param(uint32_t func, const char *name)
{
	const char *p = func < px_nfuncs ? px_funcs[func].params : NULL;
	size_t n = strlen(name);
	for (int k = 0; p && *p; k++) {
		const char *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return k;
		p = e ? e + 1 : p + len;
	}
	return -1;
}

static const char *const_name(uint32_t k)
{
	return k < px_nconsts ? px_consts[k] : "";
}

/* The mean time before a call of sig in this rank's group. */
static double px_gap(uint32_t sig)
{
	const struct px_gaps *gg = &px_group_gaps[px_group_of[px.rank]];
	uint32_t lo = 0, hi = gg->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (gg->g[mid].sig < sig)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < gg->n && gg->g[lo].sig == sig ? gg->g[lo].ns
						  : px_sigs[sig].gap_ns;
}

int rp_sig_prepare(uint32_t sig, struct rp_sig **out)
{
	const struct px_sig *p = &px_sigs[sig];
	struct rp_sig *s = &px.sigs[sig];

	*out = s;
	if (s->ready)
		return 0;
	s->nargs = p->nargs;
	s->v = p->by_rank ? p->by_rank[px.rank] : p->v;
	/* the values that differ by rank: this process is one rank */
	for (uint32_t m = 0; m < p->nvar; m++)
		p->var[m].at->i = p->var[m].i[px.rank];
	s->handler = -1;
	s->gap_ns = px_gap(sig) * px.o.compute_scale * px_gap_factor[px.rank];
	s->ready = 1;
	return 0;
}

static void px_push(struct px_cursor *c, uint32_t rule)
{
	if (c->depth == c->cap) {
		uint32_t n = c->cap ? 2 * c->cap : 16;
		struct px_frame *f = realloc(c->f, n * sizeof *f);
		if (!f) {
			fprintf(stderr, "proxy: out of memory\n");
			exit(1);
		}
		c->f = f;
		c->cap = n;
	}
	c->f[c->depth].rule = rule;
	c->f[c->depth].pos = 0;
	c->f[c->depth].done = 0;
	c->depth++;
}

/* The next call from cursor c: 1 and its signature, or 0 at the end. */
static int px_next(struct px_cursor *c, uint32_t *sig)
{
	while (c->depth) {
		struct px_frame *t = &c->f[c->depth - 1];
		const struct px_rule *r = &px_rules[t->rule];
		if (t->pos >= r->len) {
			c->depth--;
			continue;
		}
		const struct px_sym *s = &r->body[t->pos];
		if (t->done == s->count) {
			t->pos++;
			t->done = 0;
			continue;
		}
		t->done++;
		if (s->sym & PX_RULE)
			px_push(c, s->sym & ~PX_RULE);
		else {
			*sig = s->sym;
			return 1;
		}
	}
	return 0;
}

static const char *px_sig_fname(void *ctx, uint32_t sig)
{
	(void)ctx;
	return sig < px_nsigs ? px_funcs[px_sigs[sig].func].name : NULL;
}

static int px_sig_param(void *ctx, uint32_t sig, const char *name)
{
	(void)ctx;
	return rp_param(rp_sig_func(sig), name);
}

static int px_next_ahead(void *it, uint32_t *sig)
{
	return px_next(it, sig);
}

/* What the generator found, or what the calls after this one say (a
 * cursor copied from the current place, read ahead). */
const struct rp_val *rp_completion_status(struct rp_call *c, int64_t id)
{
	(void)c;
	if (px.matched || !px_nrules)
		return px.matched;
	px.ahead.depth = 0;
	for (uint32_t d = 0; d < px.at.depth; d++) {
		px_push(&px.ahead, 0);
		px.ahead.f[d] = px.at.f[d];
	}
	return rp_read_ahead(&px.names, px_next_ahead, &px.ahead, id);
}

/* ---- options --------------------------------------------------------- */

static void px_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: mpirun -np %u %s [OPTION]...\n"
		"Replay %s's MPI calls (a proxy written by rondo proxy).\n"
		"\n"
		"  --compute scale=F    spin F times the recorded time "
		"between\n"
		"                       calls (default 1)\n"
		"  --compute none       do not spin at all\n"
		"  --polls once         skip the polls that failed in the "
		"original\n"
		"  --seed N             draw the merged loops' counts with "
		"seed N\n"
		"                       (a trace below precision 100; "
		"default:\n"
		"                       rank 0 picks one and says which)\n"
		"  --watchdog SECONDS   if no call completes for SECONDS, "
		"print\n"
		"                       where the rank is and stop (status 4)\n"
		"\n"
		"Exit status: 0 done, 2 usage error, 3 another rank count, 4 "
		"the\n"
		"watchdog fired.\n",
		px_nranks, prog, px_trace_name);
}

static int px_bad(const char *prog, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s, not '%s'\nTry '%s --help'.\n", prog, what, arg,
		prog);
	return RP_EXIT_USAGE;
}

static int px_options(int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "proxy";
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : "";
		char *end;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			px_usage(stdout, prog);
			exit(0);
		} else if (!strcmp(a, "--compute")) {
			k++;
			if (!strcmp(v, "none"))
				px.o.compute_scale = 0;
			else if (strncmp(v, "scale=", 6) ||
				 (px.o.compute_scale = strtod(v + 6, &end)) <
					 0 ||
				 end == v + 6 || *end)
				return px_bad(prog,
					      "--compute: want scale=F or none",
					      v);
		} else if (!strcmp(a, "--polls")) {
			k++;
			if (strcmp(v, "once") && strcmp(v, "each"))
				return px_bad(prog,
					      "--polls: want once or each", v);
			px.o.polls = !strcmp(v, "each");
		} else if (!strcmp(a, "--seed")) {
			k++;
			px.o.seed = strtoull(v, &end, 10);
			if (end == v || *end || *v == '-')
				return px_bad(prog, "--seed: want a number", v);
			px.o.seeded = 1;
		} else if (!strcmp(a, "--watchdog")) {
			long s = strtol(v, &end, 10);
			k++;
			if (end == v || *end || s < 1 || s > 86400)
				return px_bad(prog,
					      "--watchdog: want seconds from 1 "
					      "to 86400",
					      v);
			px.o.watchdog = (unsigned)s;
		} else
			return px_bad(prog, "unknown option", a);
	}
	return 0;
}

int px_begin(int *argc, char ***argv)
{
	int r;
	px.o.compute_scale = 1;
	px.o.polls = 1;
	if ((r = px_options(*argc, *argv)) != 0)
		exit(r);
	px.argc = argc;
	px.argv = argv;
	/* main() picks the rank group's rule by the launcher's rank */
	r = rp_env_rank();
	px.rank = r >= 0 && (uint32_t)r < px_nranks ? r : 0;
	snprintf(px.who, sizeof px.who, "proxy of %s", px_trace_name);
	px.sigs = rp_xcalloc(px_nsigs, sizeof *px.sigs);
	px.drawn = rp_xcalloc(px_nhists + 1, sizeof *px.drawn);
	rp_core_start(&px.o, px_nconsts, const_name);
	px.names.func = px_sig_fname;
	px.names.param = px_sig_param;
	if (px_nrules)
		px_push(&px.at, px_group_root[px_group_of[px.rank]]);
	px.end_prev = rp_now_ns();
	return px_group_of[px.rank];
}

/* ---- the watchdog -------------------------------------------------------- */

/* What the watchdog says: the call, by its function and signature. */
static void px_stuck(uint64_t index, unsigned seconds)
{
	fprintf(stderr,
		"%s: rank %d: no progress for %u s, %s call %llu: %s "
		"(signature %u)\n",
		px.who, px.rank, seconds,
		rp_progress_in_call ? "inside" : "before",
		(unsigned long long)index,
		px_funcs[px_sigs[rp_progress_sig].func].name, rp_progress_sig);
}

/* ---- the calls ---------------------------------------------------------- */

/* Ends the job: a proxy that cannot go on (a program of sessions has no
 * MPI_COMM_WORLD to abort: this process ends, and the launcher the job). */
static void px_abort(void)
{
	if (px.sessions)
		exit(RP_EXIT_NOREPLAY);
	MPI_Abort(MPI_COMM_WORLD, RP_EXIT_NOREPLAY);
}

/* MPI is up: this run's rank and rank count checked (through a session of
 * the proxy's own for a program of sessions), the watchdog on. */
static void px_started(void)
{
	int rank = 0;
	if ((px.sessions ? rp_session_start(px_nranks, px.who, &rank)
			 : rp_check_size(px_nranks, px.who, &rank)) != 0)
		exit(RP_EXIT_NOREPLAY);
	if (rank != px.rank) {
		if (px_group_of[rank] != px_group_of[px.rank]) {
			fprintf(stderr,
				"proxy of %s: the launcher said rank %d, MPI "
				"says %d\n",
				px_trace_name, px.rank, rank);
			px_abort();
		}
		px.rank = rank;
		memset(px.sigs, 0, px_nsigs * sizeof *px.sigs);
	}
	px_seed(rank);
	if (px.o.watchdog)
		rp_watchdog_start(px.o.watchdog, px_stuck);
}

/* MPI_Init or MPI_Init_thread as the trace has it: the recorded argc (the
 * arguments are ours), the thread level asked for. */
static int px_init(struct rp_call *c, const char *fn)
{
	uint32_t f = px_sigs[c->sig].func;
	int ka = rp_param(f, "argc"), kr = rp_param(f, "required");
	int n = -1;
	int required =
		kr >= 0 ? (int)rp_int(c, (uint32_t)kr) : MPI_THREAD_SINGLE;

	/* argc as the program passed it: a count, or NULL */
	if (ka >= 0 && (uint32_t)ka < c->s->nargs &&
	    c->s->v[ka].kind == RONDO_ARG_INT)
		n = (int)c->s->v[ka].i;
	return rp_init_mpi(fn, n, required, px.argc, px.argv);
}

void px_call_matched(uint32_t sig, int msig, int k, int j)
{
	struct rp_call *c = &px.c;
	const struct px_func *f = &px_funcs[px_sigs[sig].func];
	struct rp_sig *m;

	rp_sig_prepare(sig, &c->s);
	rp_sig_draw(c->s);
	c->sig = sig;
	c->skip = 0;
	px.matched = NULL;
	if (px_nrules) { /* the grammar's place, for reading ahead */
		uint32_t next = sig;
		if (!px_next(&px.at, &next) || next != sig) {
			fprintf(stderr,
				"proxy of %s: rank %d: call %llu is signature "
				"%u, the grammar says %u\n",
				px_trace_name, px.rank,
				(unsigned long long)c->index, sig, next);
			px_abort();
		}
	}
	if (msig >= 0 && k >= 0 && rp_sig_prepare((uint32_t)msig, &m) == 0 &&
	    (uint32_t)k < m->nargs)
		px.matched = j < 0 ? &m->v[k] : &m->v[k].e[j];
	if ((!px.inited || px.sessions == 1) &&
	    (!strcmp(f->name, "MPI_Init") ||
	     !strcmp(f->name, "MPI_Init_thread"))) {
		if (px_init(c, f->name) != MPI_SUCCESS)
			exit(RP_EXIT_NOREPLAY);
		if (px.inited) /* sessions first, then the world */
			px.sessions = 2;
		else
			px_started();
		px.inited = 1;
		px.end_prev = rp_now_ns();
		rp_progress_index = ++c->index;
		return;
	}
	if (!px.inited && !rp_before_init(f->name)) {
		px.inited = 1;
		if (!strcmp(f->name, "MPI_Session_init"))
			px.sessions = 1; /* a program of sessions */
		else {
			/* its MPI_Init did not pass through the tracer */
			PMPI_Init(NULL, NULL);
			px.lazy = 1;
		}
		px_started();
		rp_sig_prepare(sig, &c->s);
		px.end_prev = rp_now_ns();
	}
	rp_spin(c->s->gap_ns, &px.end_prev, &px.debt);
	rp_progress_sig = sig;
	rp_progress_in_call = 1;
	if (!strcmp(f->name, "MPI_Finalize")) {
		rp_surrogates_free();
		MPI_Finalize();
		px.finalized = 1;
	} else if (px.finalized && !px.sessions && !rp_before_init(f->name)) {
		/* nothing else calls MPI after it (but a program's sessions
		 * may) */
	} else if (!strcmp(f->name, "MPI_Pcontrol"))
		MPI_Pcontrol((int)(c->s->nargs ? rp_int(c, 0) : 0));
	else if (f->fn)
		f->fn(c);
	px.end_prev = rp_now_ns();
	rp_progress_in_call = 0;
	rp_progress_index = ++c->index;
}

void px_call(uint32_t sig)
{
	px_call_matched(sig, -1, -1, -1);
}

int px_end(void)
{
	for (uint32_t k = 0; !px.finalized && k < px_ncut; k++)
		if (px_cut[k].rank == (uint32_t)px.rank) {
			const char *e = px_endings[px_cut[k].ending];
			rp_end_cut(px.who, px.rank, e, (int)strlen(e));
		}
	if (!px.inited) {
		fprintf(stderr,
			"proxy of %s: the rank's calls never start MPI "
			"(no MPI_Init, no MPI_Session_init)\n",
			px_trace_name);
		return RP_EXIT_NOREPLAY;
	}
	if (!px.finalized) {
		rp_surrogates_free();
		if (px.lazy)
			PMPI_Finalize();
		else if (px.sessions != 1)
			MPI_Finalize();
	}
	if (px.sessions)
		rp_session_end();
	return 0;
}
