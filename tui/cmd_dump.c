/*
 * cmd_dump.c - `rondo dump`: the calls of each rank in order, or with
 * --grammar the compressed form itself (signatures, rules, rank groups).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "util.h"

static void dump_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo dump [OPTIONS] FILE\n\n"
		"Without options, prints every rank's calls in order, one\n"
		"per line: rank, index, the call with its inputs, then\n"
		"after \"->\" its outputs; ranks are absolute.\n\n"
		"  -r, --rank R        only rank R\n"
		"      --ranks LIST    only these ranks: 0-3,7,10-20:2\n"
		"  -f, --function NAMES only calls of these functions\n"
		"                      (MPI_Send, send, or Send,Recv)\n"
		"  -n, --limit N       at most N calls in all\n"
		"  -t, --times         each call's start and end, in seconds\n"
		"                      since the job's time origin, after the\n"
		"                      index (traces made with per-call\n"
		"                      timing; the header states the error\n"
		"                      bound); \"-\" for a call without times\n"
		"  -b, --bounds        with --times, three more columns after\n"
		"                      the end: how late the start and the "
		"end\n"
		"                      may read (each less than this), and "
		"the\n"
		"                      duration as recorded (never short; the\n"
		"                      end minus the start may be less, where "
		"a\n"
		"                      start reads late)\n"
		"  -g, --grammar       print the compressed form instead: the\n"
		"                      signature table, the rules (symbols "
		"with\n"
		"                      repeat counts) and the rank groups\n"
		"  -h, --help          this text\n");
}

/* What to print. */
struct dump_sel {
	uint8_t *rank; /* ranks to print, one flag each */
	uint8_t *sig;  /* signatures to print, NULL: all */
	uint64_t left; /* calls still to print */
	int times;     /* --times */
	int bounds;    /* --bounds */
	/* --times: the largest start bound and its call; the calls whose
	 * start is less sure than they last (bound above their duration),
	 * the first of them, and how far, bound / duration in powers of 2 */
	uint64_t timed, unsure, unsure_at[64];
	int64_t worst, ex_err, ex_dur;
	uint32_t worst_rank, ex_rank;
	uint64_t worst_call, ex_call;
};

/* Formats signature `sig` as `rank` made it (ranks absolute), or with
 * ranks relative for rank UINT32_MAX, into a buffer grown as needed. */
static char *dump_sig(const rondo_trace *t, uint32_t sig, uint32_t rank,
		      char **buf, size_t *size)
{
	for (int pass = 0; pass < 2; pass++) {
		int n = rank == UINT32_MAX
				? rondo_sig_format(t, sig, *buf, *size)
				: rondo_sig_format_rank(t, sig, rank, *buf,
							*size);
		char *p;

		if (n < 0 || (size_t)n < *size)
			break;
		p = realloc(*buf, (size_t)n + 1);
		if (!p)
			break; /* the text stays cut */
		*buf = p;
		*size = (size_t)n + 1;
	}
	return *buf;
}

/* The header of --times: what the times are and how far off. */
static void dump_times_header(const rondo_trace *t, int bounds)
{
	const char *sync = rondo_meta_get(t, "clock_sync");
	unsigned major = 0, minor = 0;
	double b;

	rondo_timing_mode(t, &b);
	rondo_format_version(t, &major, &minor);
	printf("# rank index start end %scall: start and end in seconds since "
	       "the job's time origin (rank 0 at MPI_Init)%s\n",
	       bounds ? "start-bound end-bound duration " : "",
	       bounds ? "; each bound: how late the time may read (less "
			"than this); the duration as recorded, never short"
		      : "");
	if (major == 1 && minor >= 9)
		printf("# per-call timing, base %g: a duration d is recorded "
		       "as d' with d <= d' < %g*d + 1 ns, a start late by "
		       "less than %g%% of its gap from just before the "
		       "previous call's end; a start reads as the earliest "
		       "of it and the next 63: no start or end reads early, "
		       "starts never decrease, no call starts before the "
		       "previous one ends, no error carries into later "
		       "calls%s\n",
		       b, b, (b - 1) * 100,
		       bounds ? "" : " (--bounds: each call's bounds)");
	else if (major == 1 && minor < 7)
		printf("# per-call timing, base %g: a duration d reads d' with "
		       "d <= d' < %g*d + 1 ns; a start is never early, and "
		       "late "
		       "by less than %g%% of the time from its reference (the "
		       "previous start of the same signature, or for its first "
		       "call the previous call's end, as read back): no "
		       "drift\n",
		       b, b, (b - 1) * 100);
	else
		printf("# per-call timing, base %g: a duration d reads d' with "
		       "d <= d' < %g*d + 1 ns; a start is never early, and "
		       "late "
		       "by less than %g%% of the gap from the previous call's "
		       "end as read back, or, where it reads as that end, by "
		       "less than the previous start's bound plus that "
		       "duration's: starts never decrease, no drift\n",
		       b, b, (b - 1) * 100);
	if (sync)
		printf("# clocks: %s\n", sync);
}

/* The bounds of the call just printed, into sel's summary. */
static void dump_bound(const rondo_iter *it, struct dump_sel *sel,
		       uint32_t rank, int64_t dur)
{
	int64_t err;
	int k = 0;

	if (rondo_iter_time_bound(it, &err, NULL) < 0)
		return;
	if (sel->timed++ == 0 || err > sel->worst) {
		sel->worst = err;
		sel->worst_rank = rank;
		sel->worst_call = rondo_iter_position(it) - 1;
	}
	if (err <= dur)
		return;
	if (sel->unsure++ == 0) {
		sel->ex_err = err;
		sel->ex_dur = dur;
		sel->ex_rank = rank;
		sel->ex_call = rondo_iter_position(it) - 1;
	}
	for (double r = (double)err / (double)(dur > 0 ? dur : 1);
	     r >= 2 && k < 62; r /= 2)
		k++;
	sel->unsure_at[k]++;
}

/* After the calls: how sure their starts are, and which base would make
 * the unsure ones sure. */
static void dump_times_trailer(const rondo_trace *t, const struct dump_sel *sel)
{
	char w[24], e[24], d[24];
	uint64_t n = 0;
	double b, nice;
	int k = 0;

	if (!sel->timed)
		return;
	rondo_timing_mode(t, &b);
	cli_duration(w, sizeof(w), (double)sel->worst, 0);
	printf("# start bounds: the largest %s (rank %" PRIu32 ", call %" PRIu64
	       ")",
	       w, sel->worst_rank, sel->worst_call);
	if (!sel->unsure) {
		printf("; every call's start is surer than the call is "
		       "long\n");
		return;
	}
	cli_duration(e, sizeof(e), (double)sel->ex_err, 0);
	cli_duration(d, sizeof(d), (double)sel->ex_dur, 0);
	printf("; %" PRIu64 " of the %" PRIu64 " calls start less surely "
	       "than they last (e.g. rank %" PRIu32 ", call %" PRIu64
	       ": +- %s for a call of %s)",
	       sel->unsure, sel->timed, sel->ex_rank, sel->ex_call, e, d);
	/* their median bound: 2^k to 2^(k+1) times the duration; the
	 * bounds are a share b - 1 of spans, so shrink with it */
	for (; k < 63 && n + sel->unsure_at[k] < (sel->unsure + 1) / 2; k++)
		n += sel->unsure_at[k];
	nice = cli_round_base(1 + (b - 1) / (double)(2ull << k));
	if (!nice)
		printf("; even base %g would leave most of them so\n",
		       RONDO_TIME_BASE_MIN);
	else if (nice < b)
		printf("; base %g would bring most of them within their "
		       "length (rondo run --time-base %g)\n",
		       nice, nice);
	else
		printf("\n");
}

/* ns as seconds, exactly, and a space. */
static void dump_secs(int64_t ns)
{
	printf("%s%" PRId64 ".%09" PRId64 " ", ns < 0 ? "-" : "",
	       (ns < 0 ? -ns : ns) / 1000000000,
	       (ns < 0 ? -ns : ns) % 1000000000);
}

static void dump_time(const rondo_iter *it, struct dump_sel *sel, uint32_t rank)
{
	int64_t s, e, serr = 0, eerr = 0, d = 0;

	if (rondo_iter_time(it, &s, &e) < 0 ||
	    rondo_iter_time_bound(it, &serr, &eerr) < 0 ||
	    rondo_iter_duration(it, &d, NULL) < 0) {
		printf(sel->bounds ? "- - - - - " : "- - ");
		return;
	}
	dump_bound(it, sel, rank, d);
	dump_secs(s);
	dump_secs(e);
	if (sel->bounds) {
		dump_secs(serr);
		dump_secs(eerr);
		dump_secs(d);
	}
}

/* A recovered trace's rank whose record was cut short (the meta key
 * "cut", util_cut_next): a line after its last call. */
static void dump_cut(const rondo_trace *t, uint32_t rank)
{
	const char *line = rondo_meta_get(t, "cut"), *ranks, *ending;
	int len;

	while (util_cut_next(&line, &ranks, &ending, &len))
		if (util_in_ranks(ranks, rank)) {
			printf("# rank %" PRIu32 " was cut short here: %.*s\n",
			       rank, len, ending);
			return;
		}
}

static int dump_rank(const rondo_trace *t, uint32_t rank, struct dump_sel *sel,
		     char **buf, size_t *size)
{
	rondo_iter *it = sel->times ? rondo_iter_create_timed(t, rank)
				    : rondo_iter_create(t, rank);
	uint32_t sig;
	int rc;

	if (!it) {
		cli_error("rank %" PRIu32 ": out of memory", rank);
		return CLI_EXIT_FAIL;
	}
	while (sel->left > 0 && (rc = rondo_iter_next(it, &sig)) == 1) {
		if (sel->sig && !sel->sig[sig])
			continue;
		printf("%" PRIu32 " %" PRIu64 " ", rank,
		       rondo_iter_position(it) - 1);
		if (sel->times)
			dump_time(it, sel, rank);
		printf("%s\n", dump_sig(t, sig, rank, buf, size));
		sel->left--;
	}
	rondo_iter_free(it);
	if (rc < 0) {
		cli_error("rank %" PRIu32 ": %s", rank, rondo_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	if (rc == 0) /* the rank's calls to the end */
		dump_cut(t, rank);
	return CLI_EXIT_OK;
}

/* A symbol of a rule's body; a merged loop's count (its kept mean)
 * followed by "~". */
static void dump_symbol(const rondo_trace *t, uint32_t rule, uint32_t pos,
			const rondo_sym *s)
{
	int merged = rondo_loop_hist(t, rule, pos, NULL) == 1;

	if (RONDO_SYM_IS_RULE(s->sym))
		printf(" R%" PRIu32, RONDO_SYM_ID(s->sym));
	else
		printf(" s%" PRIu32, s->sym);
	if (s->count > 1 || merged)
		printf("^%" PRIu64 "%s", s->count, merged ? "~" : "");
}

/* The merged loops (precision below 100): where each is, and its counts'
 * histogram. */
static void dump_merged(const rondo_trace *t)
{
	uint32_t merged = 0, p = rondo_precision(t, &merged), head = 0;
	char text[1024];

	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		for (uint32_t a = 0; a < rondo_sig_arg_count(t, s); a++) {
			const char *name;

			if (!an_value_text(t, s, a, 0, text, sizeof(text)))
				continue;
			if (!head++)
				printf("merged values (precision %" PRIu32
				       "%%: each ~v[lo-hi] is written v, the "
				       "mean of the values it stands for):\n",
				       p);
			name = rondo_func_param_name(t, rondo_sig_func(t, s),
						     a);
			printf("  s%-5" PRIu32 " %s: %s\n", s,
			       name ? name : "?", text);
		}
	if (!merged)
		return;
	printf("merged loops (precision %" PRIu32 "%%: each R^n~ runs n "
	       "times, the mean of the loops it stands for):\n",
	       p);
	for (uint32_t r = 0; r < rondo_rule_count(t); r++) {
		const rondo_sym *body;
		uint32_t len;

		rondo_rule_body(t, r, &body, &len);
		for (uint32_t i = 0; i < len; i++)
			if (an_loop_text(t, r, i, 0, text, sizeof(text)))
				printf("  R%-5" PRIu32 " item %" PRIu32
				       ": %s\n",
				       r, i, text);
	}
}

static void dump_grammar(const rondo_trace *t, char **buf, size_t *size)
{
	char ranks[256];

	printf("signatures:\n");
	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		printf("  s%-5" PRIu32 " %s\n", s,
		       dump_sig(t, s, UINT32_MAX, buf, size));
	printf("rules:\n");
	for (uint32_t r = 0; r < rondo_rule_count(t); r++) {
		const rondo_sym *body;
		uint32_t len;

		rondo_rule_body(t, r, &body, &len);
		printf("  R%-5" PRIu32 " (%" PRIu64 " calls) ->", r,
		       rondo_rule_calls(t, r));
		for (uint32_t i = 0; i < len; i++)
			dump_symbol(t, r, i, &body[i]);
		printf("\n");
	}
	printf("rank groups:\n");
	for (uint32_t g = 0; g < rondo_group_count(t); g++) {
		int n = rondo_group_format(t, g, ranks, sizeof(ranks));

		printf("  ranks %s%s -> R%" PRIu32 "%s\n", ranks,
		       n >= (int)sizeof(ranks) ? "..." : "",
		       rondo_group_root(t, g),
		       rondo_group_lost(t, g)
			       ? "  (calls lost with the end of the file)"
			       : "");
	}
	dump_merged(t);
}

/* Applies the options that need the trace; CLI_EXIT_OK or a failure
 * already reported. */
static int dump_select(const rondo_trace *t, const char *file,
		       const struct util_ranks_run *runs, int nruns,
		       const char *func, struct dump_sel *sel)
{
	sel->rank = cli_ranks_select(t, file, runs, nruns);
	if (!sel->rank)
		return CLI_EXIT_FAIL;
	if (func && !(sel->sig = cli_select_function(t, file, func)))
		return CLI_EXIT_FAIL;
	if (sel->times && rondo_timing_mode(t, NULL) != RONDO_TIMING_PERCALL) {
		cli_error("--times: %s has no per-call times (trace with "
			  "RONDO_TIMING=percall, or rondo run --timing "
			  "percall)",
			  file);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"rank", required_argument, 0, 'r'},
		{"ranks", required_argument, 0, 'R'},
		{"function", required_argument, 0, 'f'},
		{"limit", required_argument, 0, 'n'},
		{"grammar", no_argument, 0, 'g'},
		{"times", no_argument, 0, 't'},
		{"bounds", no_argument, 0, 'b'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	const char *func = NULL;
	struct dump_sel sel = {NULL, NULL, UINT64_MAX, 0};
	struct util_ranks_run *runs = NULL;
	int grammar = 0, c, rc, nruns = -1;
	rondo_trace *t;
	uint32_t limit;
	size_t size = 256;
	char *buf;

	while ((c = getopt_long(argc, argv, "r:f:n:gtbh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'R':
			free(runs);
			nruns = cli_ranks_parse(optarg, &runs);
			if (nruns < 0) {
				free(runs);
				return cli_usage_error(
					"dump ", "--%s: '%s' is not a rank%s",
					c == 'r' ? "rank" : "ranks", optarg,
					c == 'r' ? ""
						 : " list (0-3,7,10-20:2)");
			}
			break;
		case 'f': func = optarg; break;
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, &limit) < 0)
				return cli_usage_error("dump ",
						       "--limit: '%s' is "
						       "not a number",
						       optarg);
			sel.left = limit;
			break;
		case 'g': grammar = 1; break;
		case 't': sel.times = 1; break;
		case 'b': sel.times = sel.bounds = 1; break;
		case 'h': dump_usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("dump ", "bad option");
		}
	}
	if (optind != argc - 1) {
		free(runs);
		return cli_usage_error("dump ", "dump takes one FILE");
	}
	t = cli_open(argv[optind]);
	if (!t) {
		free(runs);
		return CLI_EXIT_FAIL;
	}
	buf = malloc(size);
	rc = buf ? dump_select(t, argv[optind], runs, nruns, func, &sel)
		 : (cli_error("out of memory"), CLI_EXIT_FAIL);
	if (rc == CLI_EXIT_OK && grammar) {
		dump_grammar(t, &buf, &size);
	} else if (rc == CLI_EXIT_OK) {
		if (sel.times)
			dump_times_header(t, sel.bounds);
		for (uint32_t r = 0; r < rondo_rank_count(t) && !rc; r++)
			if (sel.rank[r])
				rc = dump_rank(t, r, &sel, &buf, &size);
		if (sel.times && rc == CLI_EXIT_OK)
			dump_times_trailer(t, &sel);
	}
	free(runs);
	free(sel.rank);
	free(sel.sig);
	free(buf);
	rondo_trace_free(t);
	return rc;
}
