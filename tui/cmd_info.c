/*
 * cmd_info.c - `rondo info FILE`: what a trace holds, in a screenful.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "matrix.h"
#include "sat.h"
#include "stats.h"

static void info_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo info FILE\n\n"
		"Prints the job's metadata, the size of the trace and of its\n"
		"sections, the grammar's size, the spread of the time ranks\n"
		"spent in MPI and the rank groups (ranks whose whole call\n"
		"sequence is the same).\n");
}

static void info_sections(const rondo_trace *t)
{
	printf("\nsections:\n  %-12s %12s %12s\n", "name", "stored", "raw");
	for (uint32_t i = 0; i < rondo_section_count(t); i++) {
		const char *name;
		uint64_t stored, raw;

		rondo_section_info(t, i, &name, &stored, &raw);
		printf("  %-12s %12" PRIu64 " %12" PRIu64 "\n", name, stored,
		       raw);
	}
}

/* Time in MPI per rank: the mean, the extremes and who they are, and
 * max/mean, the usual measure of imbalance.  Nothing for a file written
 * before per-rank times were. */
static void info_rank_times(const rondo_trace *t)
{
	uint32_t n = rondo_rank_count(t), lo = 0, hi = 0;
	uint64_t ns, min = UINT64_MAX, max = 0;
	char smin[24], smean[24], smax[24];
	double sum = 0;

	for (uint32_t r = 0; r < n; r++) {
		if (rondo_rank_mpi_time(t, r, &ns) < 0)
			return;
		sum += (double)ns;
		if (ns < min)
			min = ns, lo = r;
		if (ns > max)
			max = ns, hi = r;
	}
	if (n == 0)
		return;
	cli_duration(smin, sizeof(smin), (double)min, 0);
	cli_duration(smean, sizeof(smean), sum / n, 0);
	cli_duration(smax, sizeof(smax), (double)max, 0);
	printf("mpi time     mean %s/rank, min %s (rank %" PRIu32 "), max %s "
	       "(rank %" PRIu32 "), max/mean %.2f\n",
	       smean, smin, lo, smax, hi, sum > 0 ? max / (sum / n) : 1.0);
}

/* What the per-rank figures are worth. */
static void info_rank_precision(const rondo_trace *t)
{
	char buf[256];

	printf("rank times   %s\n", an_rank_precision(t, buf, sizeof(buf)));
}

struct func_use {
	uint32_t func, sigs;
	uint64_t calls;
};

static int by_calls(const void *a, const void *b)
{
	const struct func_use *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Functions used, most called first (calls from the statistics). */
static void info_functions(const rondo_trace *t)
{
	uint32_t n = rondo_func_count(t);
	struct func_use *u = calloc(n ? n : 1, sizeof(*u));
	rondo_stat st;
	char num[24];

	if (!u)
		return;
	for (uint32_t f = 0; f < n; f++)
		u[f].func = f;
	for (uint32_t s = 0; s < rondo_sig_count(t); s++) {
		uint32_t f = rondo_sig_func(t, s);

		u[f].sigs++;
		if (rondo_sig_stat(t, s, &st) == 0)
			u[f].calls = sat_add(u[f].calls, st.count);
	}
	qsort(u, n, sizeof(*u), by_calls);
	printf("\nfunctions used:\n  %-28s %14s %10s\n", "function", "calls",
	       "signatures");
	for (uint32_t i = 0; i < n; i++)
		printf("  %-28s %14s %10" PRIu32 "\n",
		       rondo_func_name(t, u[i].func),
		       cli_count(num, sizeof(num), u[i].calls), u[i].sigs);
	free(u);
}

/* How many groups (distinct rank grammars), and the largest. */
static void info_group_count(const rondo_trace *t)
{
	uint32_t n = rondo_group_count(t), big = 0;

	for (uint32_t g = 1; g < n; g++)
		if (rondo_group_size(t, g) > rondo_group_size(t, big))
			big = g;
	printf("rank groups  %" PRIu32, n);
	if (n)
		printf(", the largest %" PRIu32 " rank%s (group %" PRIu32 ")",
		       rondo_group_size(t, big),
		       rondo_group_size(t, big) == 1 ? "" : "s", big);
	printf("\n");
}

static void info_groups(const rondo_trace *t)
{
	char ranks[96];

	printf("\nrank groups (ranks with the same call sequence):\n");
	printf("  %-6s %-8s %-12s %6s  %s\n", "group", "root", "calls/rank",
	       "ranks", "which");
	for (uint32_t g = 0; g < rondo_group_count(t); g++) {
		uint32_t root = rondo_group_root(t, g);
		int n = rondo_group_format(t, g, ranks, sizeof(ranks));

		printf("  %-6" PRIu32 " R%-7" PRIu32 " %-12" PRIu64 " %6" PRIu32
		       "  %s%s%s\n",
		       g, root, rondo_rule_calls(t, root),
		       rondo_group_size(t, g), ranks,
		       n >= (int)sizeof(ranks) ? "..." : "",
		       rondo_group_lost(t, g)
			       ? "  (calls lost with the end of the file)"
			       : "");
	}
}

static void info_precision(const rondo_trace *t)
{
	struct an_merged mg;
	uint32_t p = an_merged(t, &mg), merged = mg.loops,
		 values = mg.sizes + mg.tags + mg.peers;
	uint64_t vcalls = mg.vcalls;

	if (p == 100)
		printf("precision    100%%: every call as the program made "
		       "it\n");
	else if (!merged && !values)
		printf("precision    %" PRIu32 "%%: nothing merged, every call "
		       "as the program made it\n",
		       p);
	else if (merged)
		printf("precision    %" PRIu32 "%%: %" PRIu32 " loop%s whose "
		       "counts differ by up to %" PRIu32 "%% merged, each "
		       "running its mean count (their counts' histograms "
		       "and sums kept)\n",
		       p, merged, merged == 1 ? "" : "s", 100 - p);
	else
		printf("precision    %" PRIu32 "%%: no loop merged\n", p);
	if (values) {
		uint32_t tags = mg.tags, peers = mg.peers, sizes = mg.sizes;
		char what[128] = "";
		size_t at = 0;
		int parts, k = 0;

		parts = (sizes > 0) + (tags > 0) + (peers > 0);
		if (sizes)
			at += (size_t)snprintf(
				what + at, sizeof(what) - at,
				"%" PRIu32 " count%s or displacement%s", sizes,
				sizes == 1 ? "" : "s", sizes == 1 ? "" : "s");
		k += sizes > 0;
		if (tags)
			at += (size_t)snprintf(what + at, sizeof(what) - at,
					       "%s%" PRIu32 " tag%s",
					       !k		? ""
					       : k + 1 == parts ? " and "
								: ", ",
					       tags, tags == 1 ? "" : "s");
		k += tags > 0;
		if (peers)
			snprintf(what + at, sizeof(what) - at,
				 "%s%" PRIu32 " peer%s", k ? " and " : "",
				 peers, peers == 1 ? "" : "s");
		printf("             %s whose values differ by up to %" PRIu32
		       "%% merged, in %" PRIu64 " calls, each written as its "
		       "mean (their histograms and sums kept; rondo dump "
		       "--grammar)\n",
		       what, 100 - p, vcalls);
	}
}

/* The calls the program made, when loops were merged: each merged loop
 * counted at its loops' exact mean (an_rule_mult's sums), not at the
 * count the grammar keeps; UINT64_MAX when out of memory. */
static uint64_t info_sum_calls(const rondo_trace *t)
{
	uint32_t nsig = rondo_sig_count(t);
	uint64_t *mult = malloc(sizeof(*mult) * (nsig + 1)), calls = 0;
	uint64_t *work = malloc(sizeof(*work) * (rondo_rule_count(t) + 1));

	for (uint32_t g = 0; mult && work && g < rondo_group_count(t); g++) {
		uint64_t n = 0;

		an_rule_mult(t, rondo_group_root(t, g), 1, mult, work);
		for (uint32_t s = 0; s < nsig; s++)
			n = sat_add(n, mult[s]);
		calls = sat_add(calls, sat_mul(n, rondo_group_size(t, g)));
	}
	if (!mult || !work)
		calls = UINT64_MAX;
	free(mult);
	free(work);
	return calls;
}

static void info_calls(const rondo_trace *t, uint64_t calls)
{
	char num[32], kept[32];
	uint64_t sums;
	uint32_t loops = 0;

	rondo_precision(t, &loops);
	/* the same: no sums to count with (the section damaged) */
	if (!loops || (sums = info_sum_calls(t)) == UINT64_MAX ||
	    sums == calls) {
		printf("calls        %s%s\n",
		       cli_count(num, sizeof(num), calls),
		       loops ? " (about: merged loops run their "
			       "mean count)"
			     : "");
		return;
	}
	printf("calls        %s (merged loops at their exact sums; %s as "
	       "the grammar expands them, each at its kept count)\n",
	       cli_count(num, sizeof(num), sums),
	       cli_count(kept, sizeof(kept), calls));
}

/* The timing mode and its error bound; ranks that fell back. */
static void info_timing(const rondo_trace *t)
{
	uint32_t n = rondo_rank_count(t), short_ranks = 0, first = 0;
	unsigned major = 0, minor = 0;
	double b;

	if (rondo_timing_mode(t, &b) != RONDO_TIMING_PERCALL) {
		printf("timing       aggregated: statistics per signature, no "
		       "per-call times\n");
		return;
	}
	rondo_format_version(t, &major, &minor);
	printf("timing       per call, base %g: durations recorded up to "
	       "%g%% long, starts up to %g%% of the gap before them late%s, "
	       "never early (rondo dump --times --bounds)\n",
	       b, (b - 1) * 100, (b - 1) * 100,
	       major == 1 && minor < 9
		       ? " (or at the previous call's end, as late as it)"
		       : ", no error carried from call to call");
	for (uint32_t r = 0; r < n; r++)
		if (rondo_rank_timed_calls(t, r) < rondo_rank_calls(t, r) &&
		    !short_ranks++)
			first = r;
	if (short_ranks)
		printf("             %" PRIu32
		       " rank%s kept per-call times for "
		       "part of the run only (a limit reached, or "
		       "MPI_Pcontrol(3)), e.g. "
		       "rank %" PRIu32 ": %" PRIu64 " of %" PRIu64 " calls\n",
		       short_ranks, short_ranks == 1 ? "" : "s", first,
		       rondo_rank_timed_calls(t, first),
		       rondo_rank_calls(t, first));
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, 0, 'h'},
					     {0, 0, 0, 0}};
	rondo_trace *t;
	uint64_t calls = 0;
	unsigned major, minor;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h')
			return info_usage(stdout), CLI_EXIT_OK;
		return cli_usage_error("info ", "bad option");
	}
	if (optind != argc - 1)
		return cli_usage_error("info ", "info takes one FILE");
	t = cli_open(argv[optind]);
	if (!t)
		return CLI_EXIT_FAIL;
	rondo_format_version(t, &major, &minor);
	for (uint32_t r = 0; r < rondo_rank_count(t); r++)
		calls = sat_add(calls, rondo_rank_calls(t, r));

	printf("file         %s\n", argv[optind]);
	printf("format       %u.%u, %" PRIu64 " bytes\n", major, minor,
	       rondo_file_size(t));
	for (uint32_t i = 0; rondo_trace_damage(t, i); i++)
		printf("%-12s %s\n", i ? "" : "damage",
		       rondo_trace_damage(t, i));
	printf("ranks        %" PRIu32 "\n", rondo_rank_count(t));
	info_calls(t, calls);
	printf("functions    %" PRIu32 "\n", rondo_func_count(t));
	printf("signatures   %" PRIu32 "\n", rondo_sig_count(t));
	printf("rules        %" PRIu32 " (%" PRIu64 " symbols)\n",
	       rondo_rule_count(t), rondo_grammar_size(t));
	info_group_count(t);
	printf("comms        %" PRIu32 "\n", rondo_comm_count(t));
	info_rank_times(t);
	info_rank_precision(t);
	info_timing(t);
	info_precision(t);
	printf("\nmetadata:\n");
	for (uint32_t i = 0; i < rondo_meta_count(t); i++) {
		const char *k, *v;

		rondo_meta_entry(t, i, &k, &v);
		printf("  %-12s %s\n", k, v);
	}
	info_functions(t);
	info_groups(t);
	info_sections(t);
	cli_saturated(0);
	rondo_trace_free(t);
	return CLI_EXIT_OK;
}
