/*
 * replay.c - rondo-replay: an MPI program that replays a trace.
 *
 *   mpirun -np P rondo-replay [options] app.rondo
 *
 * Each rank walks its own rule of the grammar with an iterator (a stack of
 * rule, position and repeats left, never the expanded calls) and issues
 * every recorded call with its recorded parameters (calls.c, generated;
 * complete.c; rt.c), spinning between calls for the time the original
 * computed there.  Before the first call it checks that the trace can be
 * replayed: every function is one it can issue, and (--check, or always
 * before a run) that the ranks' messages and collectives pair up.
 *
 * Exit status: 0 replayed; 1 the trace cannot be read; 2 a usage error;
 * 3 the trace cannot be replayed (a function it cannot issue, calls that
 * do not pair up, another rank count); 4 the watchdog saw no progress.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "pairing.h"
#include "source.h"

#define EXIT_READ     RP_EXIT_READ
#define EXIT_USAGE    RP_EXIT_USAGE
#define EXIT_NOREPLAY RP_EXIT_NOREPLAY

static const char *prog = "rondo-replay";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mpirun -np P %s [OPTION]... TRACE\n"
		"Replay the MPI calls of TRACE (a .rondo file) on P ranks, "
		"the\n"
		"traced job's count: every call with its recorded parameters,\n"
		"and the computation between calls as time spent spinning.\n"
		"\n"
		"  --check              only check that TRACE can be replayed\n"
		"                       (functions, pairing); no MPI needed\n"
		"  --compute scale=F    spin F times the recorded time "
		"between\n"
		"                       calls (default 1)\n"
		"  --compute none       do not spin at all\n"
		"  --polls once         a poll that failed in the original (a\n"
		"                       Test, Testany, Iprobe... that found\n"
		"                       nothing) is skipped: the one that\n"
		"                       succeeded waits (default: --polls "
		"each,\n"
		"                       every poll replayed, failing again)\n"
		"  --seed N             a trace written below precision 100\n"
		"                       runs each merged loop a count drawn "
		"from\n"
		"                       its histogram: with seed N, the same\n"
		"                       counts each time (default: rank 0 "
		"picks\n"
		"                       one and says which)\n"
		"  --watchdog SECONDS   if no call completes for SECONDS, "
		"print\n"
		"                       where the rank is and stop (status 4)\n"
		"  --help, --version\n"
		"\n"
		"Exit status: 0 replayed, 1 TRACE unreadable, 2 usage error,\n"
		"3 TRACE not replayable, 4 the watchdog fired.\n",
		prog);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return EXIT_USAGE;
}

/* Only rank 0 (as the launcher says) reports problems found before
 * MPI_Init. */
static int speaker(void)
{
	return rp_env_rank() <= 0;
}

/* ---- what can be replayed ---------------------------------------------- */

static int by_hand(const char *name)
{
	return !strcmp(name, "MPI_Init") || !strcmp(name, "MPI_Init_thread") ||
	       !strcmp(name, "MPI_Finalize") || !strcmp(name, "MPI_Pcontrol");
}

static int entry_cmp(const void *key, const void *e)
{
	return strcmp(key, ((const struct rp_entry *)e)->name);
}

/* The generated function for function f of the trace, or -1 when there
 * is none or its parameters are not the ones the trace recorded. */
static int handler_of(const rondo_trace *t, uint32_t f)
{
	const char *name = rondo_func_name(t, f);
	const struct rp_entry *e;
	char params[1024];
	size_t len = 0;

	if (!name)
		return -1;
	e = bsearch(name, rp_calls, rp_ncalls, sizeof *rp_calls, entry_cmp);
	if (!e)
		return -1;
	params[0] = '\0';
	for (uint32_t p = 0; p < rondo_func_param_count(t, f); p++) {
		const char *pn = rondo_func_param_name(t, f, p);
		int w = snprintf(params + len, sizeof params - len, "%s%s",
				 p ? " " : "", pn ? pn : "?");
		if (w < 0 || (size_t)w >= sizeof params - len)
			return -1;
		len += (size_t)w;
	}
	return strcmp(params, e->params) ? -1 : (int)(e - rp_calls);
}

/* Names every function of t that cannot be replayed, with its calls;
 * returns how many. */
static unsigned unsupported(const rondo_trace *t, int *handler, int say)
{
	uint32_t nf = rondo_func_count(t), ns = rondo_sig_count(t);
	uint64_t *calls = calloc(nf ? nf : 1, sizeof *calls);
	unsigned bad = 0;

	for (uint32_t f = 0; f < nf; f++) {
		const char *n = rondo_func_name(t, f);
		handler[f] = n && by_hand(n) ? -2 : handler_of(t, f);
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t f = rondo_sig_func(t, s);
		if (f < nf && handler[f] == -1) {
			if (calls)
				calls[f]++;
		}
	}
	for (uint32_t f = 0; f < nf; f++)
		if (handler[f] == -1 && calls && calls[f]) {
			if (say && !bad)
				fprintf(stderr,
					"%s: the trace has calls it cannot "
					"replay:\n",
					prog);
			if (say)
				fprintf(stderr,
					"  %s (%llu call signature%s)\n",
					rondo_func_name(t, f),
					(unsigned long long)calls[f],
					calls[f] == 1 ? "" : "s");
			bad++;
		}
	free(calls);
	return bad;
}

/* ---- the watchdog -------------------------------------------------------- */

static const rondo_trace *wd_trace;
static uint32_t wd_rank;

/* Where call `index` of `rank` is in the grammar: from the rank's root
 * down, each rule, the item of its body and which of the item's repeats,
 * e.g. "R12 item 3 repeat 5/100 > R7 item 1"; by the rules' lengths,
 * never expanding. */
static void rule_path(const rondo_trace *t, uint32_t rank, uint64_t index,
		      char *buf, size_t size)
{
	uint32_t r = rondo_rank_root(t, rank);
	size_t len = 0;

	buf[0] = '\0';
	for (int depth = 0; depth < 64 && r != UINT32_MAX; depth++) {
		const rondo_sym *body;
		uint32_t n, next = UINT32_MAX;
		if (rondo_rule_body(t, r, &body, &n) < 0)
			return;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t id = RONDO_SYM_ID(body[k].sym);
			uint64_t one = RONDO_SYM_IS_RULE(body[k].sym)
					       ? rondo_rule_calls(t, id)
					       : 1;
			if (one == 0 || index >= one * body[k].count) {
				index -= one * body[k].count;
				continue;
			}
			int w = snprintf(buf + len, size - len, "%sR%u item %u",
					 depth ? " > " : "", r, k);
			if (w > 0 && (size_t)w < size - len)
				len += (size_t)w;
			if (body[k].count > 1) {
				w = snprintf(
					buf + len, size - len,
					" repeat %llu/%llu",
					(unsigned long long)(index / one + 1),
					(unsigned long long)body[k].count);
				if (w > 0 && (size_t)w < size - len)
					len += (size_t)w;
			}
			index %= one;
			if (RONDO_SYM_IS_RULE(body[k].sym))
				next = id;
			break;
		}
		r = next;
	}
}

/* What the watchdog says: the call, and where it is in the grammar. */
static void stuck(uint64_t index, unsigned seconds)
{
	char text[512], path[512];
	rondo_sig_format_rank(wd_trace, rp_progress_sig, wd_rank, text,
			      sizeof text);
	rule_path(wd_trace, wd_rank, index, path, sizeof path);
	fprintf(stderr,
		"%s: rank %u: no progress for %u s, %s call %llu: %s (at %s)\n",
		prog, wd_rank, seconds,
		rp_progress_in_call ? "inside" : "before",
		(unsigned long long)index, text, path);
}

/* ---- the run --------------------------------------------------------- */

/* MPI_Init or MPI_Init_thread as signature sig made it: the recorded
 * argc (the arguments are ours), the thread level asked for. */
static int start_mpi(const rondo_trace *t, uint32_t sig, int *argc,
		     char ***argv)
{
	const char *f = rondo_func_name(t, rondo_sig_func(t, sig));
	rondo_arg a;
	int required = MPI_THREAD_SINGLE, n = -1;

	if (rondo_sig_param(t, sig, "argc", &a) >= 0 && a.kind == RONDO_ARG_INT)
		n = (int)a.i;
	if (rondo_sig_param(t, sig, "required", &a) >= 0 &&
	    a.kind == RONDO_ARG_INT)
		required = (int)a.i;
	return rp_init_mpi(f, n, required, argc, argv);
}

/* Whether t has merged loops, whose counts the replay draws. */
static int merged(const rondo_trace *t)
{
	uint32_t loops = 0;

	return rondo_precision(t, &loops) < 100 && loops > 0;
}

/* An iterator over the rank's calls: with their times when the trace
 * has them (each call's own gap is then spun, not its signature's mean);
 * drawing merged loops' counts, with --seed's seed or, until MPI is up
 * and rank 0 has said (draw_seed), with 0. */
static rondo_iter *walker(const rondo_trace *t, uint32_t rank,
			  const struct rp_options *o)
{
	rondo_iter *it = NULL;
	if (o->percall && o->compute_scale > 0 &&
	    rondo_timing_mode(t, NULL) == RONDO_TIMING_PERCALL &&
	    rondo_iter_open(t, rank, RONDO_ITER_TIMED, &it) == 0)
		return it;
	it = rondo_iter_create(t, rank);
	if (it && merged(t) && rondo_iter_draw(it, o->seeded ? o->seed : 0)) {
		rondo_iter_free(it);
		return NULL;
	}
	return it;
}

/* The seed merged loops are drawn with once MPI is up: --seed's, or one
 * rank 0 picks and broadcasts (outside the tracer: PMPI) when `world`
 * (MPI_COMM_WORLD is there; a program of sessions draws with 0). */
static uint64_t draw_seed(const rondo_trace *t, const struct rp_options *o,
			  int rank, int world, uint32_t sizes, uint32_t peers)
{
	uint64_t seed = 0;
	uint32_t n = 0, p = rondo_precision(t, &n);

	if (o->seeded || !world)
		return o->seeded ? o->seed : 0;
	seed = rp_seed_agree(rank);
	if (rank == 0 && peers)
		fprintf(stderr,
			"%s: %u loops, %u counts and %u peers merged at "
			"precision %u: loop counts, send sizes and peers "
			"drawn with seed %llu (--seed %llu draws them "
			"again)\n",
			prog, (unsigned)n, (unsigned)sizes, (unsigned)peers,
			(unsigned)p, (unsigned long long)seed,
			(unsigned long long)seed);
	else if (rank == 0 && !sizes)
		fprintf(stderr,
			"%s: %u loops merged at precision %u run counts "
			"drawn with seed %llu (--seed %llu draws them "
			"again)\n",
			prog, (unsigned)n, (unsigned)p,
			(unsigned long long)seed, (unsigned long long)seed);
	else if (rank == 0)
		fprintf(stderr,
			"%s: %u loops and %u counts merged at precision %u "
			"run counts and send sizes drawn with seed %llu "
			"(--seed %llu draws them again)\n",
			prog, (unsigned)n, (unsigned)sizes, (unsigned)p,
			(unsigned long long)seed, (unsigned long long)seed);
	return seed;
}

/* Once MPI is up: the rank's calls from call `skip` on when MPI gave
 * another rank than the launcher said (*it walks them), and the watchdog.
 * Returns 1 when *it was made again, 0, or minus the exit status. */
static int restart(const rondo_trace *t, const struct rp_options *o,
		   rondo_iter **it, int rank, uint64_t skip, int world)
{
	int made = 0;
	struct an_merged mg;
	uint32_t p = an_merged(t, &mg), loops = mg.loops, tags = mg.tags,
		 peers = mg.peers, sizes = mg.sizes;

	if (wd_rank != (uint32_t)rank) {
		rondo_iter_free(*it);
		rp_start(t, (uint32_t)rank, o);
		*it = walker(t, (uint32_t)rank, o);
		if (!*it || rondo_iter_skip(*it, skip) < 0) {
			fprintf(stderr, "%s: rank %d: cannot walk its calls\n",
				prog, rank);
			return -EXIT_READ;
		}
		made = 1;
	}
	if (rank == 0 && tags)
		fprintf(stderr,
			"%s: %u tags merged at precision %u: receives match "
			"any tag, from their sources in the order sent\n",
			prog, (unsigned)tags, (unsigned)p);
	if (loops || sizes || peers) {
		uint64_t seed = draw_seed(t, o, rank, world, sizes, peers);

		rp_values_seed(seed);
		if (loops && rondo_iter_draw(*it, seed)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return -EXIT_READ;
		}
	}
	wd_rank = (uint32_t)rank;
	if (o->watchdog)
		rp_watchdog_start(o->watchdog, stuck);
	return made;
}

static int run(const rondo_trace *t, const struct rp_options *o,
	       const int *handler, int *argc, char ***argv)
{
	int er = rp_env_rank(), rank, inited = 0, lazy = 0, finalized = 0, r;
	int sessions = 0; /* started by the program's MPI_Session_init */
	uint32_t sig;
	struct rp_call c;
	rondo_iter *it;
	double end_prev, debt = 0, gap;
	int64_t start, end, end_rec = 0;
	int have_end = 0;
	const char *cut;

	/* calls before MPI_Init (MPI_Initialized...) are the rank's the
	 * launcher says this is; MPI says after */
	rank = er >= 0 && (uint32_t)er < rondo_rank_count(t) ? er : 0;
	rp_start(t, (uint32_t)rank, o);
	it = walker(t, (uint32_t)rank, o);
	if (!it) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_READ;
	}
	wd_trace = t;
	wd_rank = (uint32_t)rank;
	memset(&c, 0, sizeof c);
	end_prev = rp_now_ns();
	while ((r = rondo_iter_next(it, &sig)) == 1) {
		uint32_t f = rondo_sig_func(t, sig);
		const char *fn = rondo_func_name(t, f);

		if ((!inited || sessions == 1) &&
		    (!strcmp(fn, "MPI_Init") ||
		     !strcmp(fn, "MPI_Init_thread"))) {
			if (start_mpi(t, sig, argc, argv) != MPI_SUCCESS) {
				rondo_iter_free(it);
				return EXIT_NOREPLAY;
			}
			if (inited) { /* sessions first, then the world */
				sessions = 2;
				end_prev = rp_now_ns();
				rp_progress_index = ++c.index;
				continue;
			}
			inited = 1;
			if ((r = rp_check_size(rondo_rank_count(t), prog,
					       &rank)) != 0) {
				rondo_iter_free(it);
				return r;
			}
			if ((r = restart(t, o, &it, rank, c.index + 1, 1)) < 0)
				return -r;
			end_prev = rp_now_ns();
			rp_progress_index = ++c.index;
			continue;
		}
		if (!inited && !rp_before_init(fn)) {
			inited = 1;
			if (!strcmp(fn, "MPI_Session_init")) {
				/* a program of sessions: one of our own first,
				 * for the rank, and MPI up to the end */
				sessions = 1;
				r = rp_session_start(rondo_rank_count(t), prog,
						     &rank);
			} else {
				/* MPI started without MPI_Init passing through
				 * the tracer (a binding layer calling
				 * PMPI_Init): so here */
				PMPI_Init(NULL, NULL);
				lazy = 1;
				r = rp_check_size(rondo_rank_count(t), prog,
						  &rank);
			}
			if (r != 0) {
				rondo_iter_free(it);
				return r;
			}
			if ((r = restart(t, o, &it, rank, c.index, !sessions)) <
			    0)
				return -r;
			if (r == 1 && rondo_iter_next(it, &sig) != 1)
				break;
			f = rondo_sig_func(t, sig);
			fn = rondo_func_name(t, f);
			end_prev = rp_now_ns();
		}
		rp_sig_prepare(sig, &c.s);
		rp_sig_draw(c.s);
		c.sig = sig;
		c.skip = 0;
		/* the computation before the call: spin, and carry what the
		 * spin (or the replay itself) overshot to the next gaps */
		gap = c.s->gap_ns;
		if (rondo_iter_time(it, &start, &end) == 0) {
			/* a timed trace: this call's own gap */
			gap = have_end ? (double)(start - end_rec) *
						 o->compute_scale *
						 rp_percall_factor()
				       : 0;
			end_rec = end;
			have_end = 1;
		}
		rp_spin(gap, &end_prev, &debt);
		rp_progress_sig = sig;
		rp_progress_in_call = 1;
		if (!strcmp(fn, "MPI_Finalize")) {
			rp_surrogates_free();
			rp_finish();
			MPI_Finalize();
			finalized = 1;
			rp_progress_in_call = 0;
			rp_progress_index = ++c.index;
			continue;
		}
		if (finalized && !sessions && !rp_before_init(fn))
			continue; /* nothing else calls MPI after it (but a
				   * program's sessions may) */
		if (!strcmp(fn, "MPI_Pcontrol"))
			MPI_Pcontrol((int)(c.s->nargs ? rp_int(&c, 0) : 0));
		else if (handler[f] >= 0)
			rp_calls[handler[f]].fn(&c);
		end_prev = rp_now_ns();
		rp_progress_in_call = 0;
		rp_progress_index = ++c.index;
	}
	rondo_iter_free(it);
	if (!finalized && (r = rp_rank_cut(t, (uint32_t)rank, &cut)) > 0)
		rp_end_cut(prog, rank, cut, r);
	if (!inited) {
		if (rank == 0)
			fprintf(stderr,
				"%s: the rank's calls never start MPI (no "
				"MPI_Init, no MPI_Session_init)\n",
				prog);
		return EXIT_NOREPLAY;
	}
	if (!finalized) {
		rp_surrogates_free();
		rp_finish();
		if (lazy)
			PMPI_Finalize();
		else if (sessions != 1)
			MPI_Finalize();
	}
	if (sessions)
		rp_session_end();
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{"check", no_argument, NULL, 'c'},
		{"compute", required_argument, NULL, 'C'},
		{"polls", required_argument, NULL, 'p'},
		{"seed", required_argument, NULL, 's'},
		{"watchdog", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct rp_options o = {1.0, 1, 0, 1, 0, 0};
	rondo_trace *t;
	int check = 0, opt, status, *handler;
	char *end;

	while ((opt = getopt_long(argc, argv, "+", longs, NULL)) != -1) {
		switch (opt) {
		case 'c': check = 1; break;
		case 'C':
			if (!strcmp(optarg, "none")) {
				o.compute_scale = 0;
				break;
			}
			if (strncmp(optarg, "scale=", 6))
				return usage_error("--compute: want scale=F or "
						   "none, not '%s'",
						   optarg);
			errno = 0;
			o.compute_scale = strtod(optarg + 6, &end);
			if (errno || end == optarg + 6 || *end ||
			    o.compute_scale < 0 || o.compute_scale > 1e6)
				return usage_error("--compute: not a scale: "
						   "'%s'",
						   optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "once"))
				o.polls = 0;
			else if (!strcmp(optarg, "each"))
				o.polls = 1;
			else
				return usage_error("--polls: want once or "
						   "each, not '%s'",
						   optarg);
			break;
		case 's':
			errno = 0;
			o.seed = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || *optarg == '-')
				return usage_error(
					"--seed: want a number "
					"from 0 to %llu, not '%s'",
					(unsigned long long)UINT64_MAX, optarg);
			o.seeded = 1;
			break;
		case 'w': {
			errno = 0;
			long s = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || s < 1 ||
			    s > 86400)
				return usage_error("--watchdog: want seconds "
						   "from 1 to 86400, not '%s'",
						   optarg);
			o.watchdog = (unsigned)s;
			break;
		}
		case 'h': usage(stdout); return 0;
		case 'V':
			printf("rondo-replay (rondo) %s\n",
			       rondo_version_string());
			return 0;
		default:
			fprintf(stderr,
				"Try '%s --help' for more information.\n",
				prog);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return usage_error("%s", optind >= argc ? "no trace given"
							: "one trace only");
	t = rondo_trace_create();
	if (!t || (status = rondo_trace_open(t, argv[optind])) < 0) {
		if (speaker())
			fprintf(stderr, "%s: %s\n", prog,
				t ? rondo_trace_error(t) : "out of memory");
		rondo_trace_free(t);
		return EXIT_READ;
	}
	/* what a damaged file went without, as every command says it */
	for (uint32_t k = 0; speaker() && rondo_trace_damage(t, k); k++)
		fprintf(stderr, "%s: warning: %s: %s\n", prog, argv[optind],
			rondo_trace_damage(t, k));
	for (uint32_t r = 0; r < rondo_rank_count(t); r++)
		if (rondo_rank_lost(t, r)) {
			if (speaker())
				fprintf(stderr,
					"%s: %s: rank %u's calls are lost (the "
					"file is cut inside its grammar): the "
					"others' would wait for it\n",
					prog, argv[optind], r);
			rondo_trace_free(t);
			return EXIT_NOREPLAY;
		}
	handler = calloc(rondo_func_count(t) + 1, sizeof *handler);
	if (!handler) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return EXIT_READ;
	}
	status = 0;
	if (unsupported(t, handler, speaker()))
		status = EXIT_NOREPLAY;
	if (!status) {
		struct an_pairing pr;
		if (an_pairing(t, &pr) < 0) {
			fprintf(stderr, "%s: out of memory\n", prog);
			status = EXIT_READ;
		} else if (!pr.ok) {
			if (speaker())
				fprintf(stderr,
					"%s: %s: the calls do not pair up: "
					"%s\n",
					prog, argv[optind], pr.first);
			status = EXIT_NOREPLAY;
		} else if (check && speaker())
			printf("%s: every call can be replayed; %llu "
			       "messages and %llu collective calls pair up\n",
			       argv[optind],
			       (unsigned long long)pr.checked_pairs,
			       (unsigned long long)pr.checked_colls);
	}
	if (!status && !check) {
		status = run(t, &o, handler, &argc, &argv);
	}
	free(handler);
	rondo_trace_free(t);
	return status;
}
