/*
 * cmd_stats.c - `rondo stats FILE`: where the time in MPI goes, per
 * function, signature or rank, as mpiP reports it (analyses/stats.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sat.h"
#include "stats.h"

/* Signatures are cut to this many bytes in the text report. */
#define STATS_SIG_WIDTH 72

struct stats_opts {
	enum an_by by;
	enum an_key key;
	int sorted;	 /* --sort given */
	int before;	 /* --before: the time before each call */
	uint32_t group;	 /* --group G: of that rank group, + 1 (0: all) */
	uint32_t top;	 /* 0: every row */
	const char *csv; /* NULL: text on stdout */
};

static void stats_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo stats [--by function|signature|rank]\n"
		"                   [--before [--group G]]\n"
		"                   [--sort total|count|mean|max] [--top N]\n"
		"                   [--csv PATH|-] FILE\n\n"
		"Where the time in MPI goes, from the trace's statistics:\n"
		"calls, total, mean, min, max and standard deviation of the\n"
		"durations per function (default) or signature, with their\n"
		"share of the MPI time and of the run time (the run's "
		"duration\n"
		"times the ranks); or each rank's time in MPI (--by rank).\n"
		"Rows come by total time, ranks by rank, unless --sort says;\n"
		"--top N keeps the first N.  --csv writes CSV (times in\n"
		"nanoseconds) to PATH, or to stdout with -, instead of "
		"text.\n"
		"--before: the same rows of the time before each call, from\n"
		"the end of the rank's previous MPI call (the computation\n"
		"between calls, which rondo-replay reproduces); its shares\n"
		"are of all the time between calls.  --group G: of the ranks\n"
		"of rank group G alone (rondo dump --grammar lists them),\n"
		"calls and totals only; shares of the group's time.\n");
}

/* The index of s among names[0..n-1], a unique prefix being enough
 * ("sig"), or -1. */
static int stats_word(const char *s, const char *const *names, int n)
{
	size_t len = strlen(s);
	int found = -1;

	for (int i = 0; i < n; i++) {
		if (!strcmp(s, names[i]))
			return i;
		if (len && !strncmp(s, names[i], len))
			found = found == -1 ? i : -2;
	}
	return found < 0 ? -1 : found;
}

/* Returns -1 to go on, or the exit status. */
static int stats_args(int argc, char **argv, struct stats_opts *o)
{
	static const struct option opts[] = {
		{"by", required_argument, 0, 'b'},
		{"sort", required_argument, 0, 's'},
		{"top", required_argument, 0, 'n'},
		{"csv", required_argument, 0, 'c'},
		{"before", no_argument, 0, 'B'},
		{"group", required_argument, 0, 'g'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	static const char *const by[] = {"function", "signature", "rank"};
	static const char *const key[] = {"total", "count", "mean", "max"};
	int c, i;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if ((i = stats_word(optarg, by, 3)) < 0)
				return cli_usage_error(
					"stats ",
					"--by '%s': "
					"function, signature or rank",
					optarg);
			o->by = (enum an_by)i;
			break;
		case 's':
			if ((i = stats_word(optarg, key, 4)) < 0)
				return cli_usage_error(
					"stats ",
					"--sort '%s': "
					"total, count, mean or max",
					optarg);
			o->key = (enum an_key)i;
			o->sorted = 1;
			break;
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, &o->top) < 0 ||
			    o->top == 0)
				return cli_usage_error(
					"stats ",
					"--top '%s' is "
					"not a number of rows (1 or more)",
					optarg);
			break;
		case 'c': o->csv = optarg; break;
		case 'B': o->before = 1; break;
		case 'g':
			if (cli_parse_u32(optarg, UINT32_MAX - 1, &o->group) <
			    0)
				return cli_usage_error(
					"stats ",
					"--group '%s' is not a rank group "
					"number",
					optarg);
			o->group++;
			break;
		case 'h': return stats_usage(stdout), CLI_EXIT_OK;
		default: return cli_usage_error("stats ", "bad option");
		}
	}
	if (o->by == AN_BY_RANK && o->sorted && o->key == AN_KEY_MAX)
		return cli_usage_error("stats ", "--sort max: the trace keeps "
						 "no longest call per rank");
	if (o->group && !o->before)
		return cli_usage_error("stats ", "--group: with --before (the "
						 "time before calls is kept "
						 "per rank group)");
	if (o->group && o->sorted && o->key == AN_KEY_MAX)
		return cli_usage_error("stats ", "--sort max: the trace keeps "
						 "no longest time per rank "
						 "group");
	if (o->before && o->by == AN_BY_RANK)
		return cli_usage_error("stats ", "--before: by function or "
						 "signature");
	if (optind != argc - 1)
		return cli_usage_error("stats ", "stats takes one FILE");
	return -1;
}

/* "12.34%", or "-" for a share unknown. */
static void stats_percent(char *buf, size_t size, double share)
{
	if (isnan(share))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f%%", 100 * share);
}

/* The line above every report: the job, its run time and time in MPI. */
static void stats_header(const rondo_trace *t, const struct an_totals *tot)
{
	const char *prog = rondo_meta_get(t, "program");
	uint64_t mpi = tot->mpi_ns ? tot->mpi_ns : tot->rank_mpi_ns;
	char run[24], all[24], in[24], pc[16];

	cli_duration(in, sizeof(in), (double)mpi, 0);
	printf("%s: %" PRIu32 " rank%s, ", prog ? prog : "?", tot->ranks,
	       tot->ranks == 1 ? "" : "s");
	if (!tot->run_ns) {
		printf("run time unknown, MPI time %s\n\n", in);
		return;
	}
	cli_duration(run, sizeof(run), (double)tot->run_ns, 0);
	cli_duration(all, sizeof(all), (double)tot->run_ns * tot->ranks, 0);
	stats_percent(pc, sizeof(pc),
		      an_share((double)mpi, sat_mul(tot->run_ns, tot->ranks)));
	printf("run time %s (%s over all ranks), MPI time %s (%s of it)\n\n",
	       run, all, in, pc);
}

/* The line above a report of the time before calls (--before), of rank
 * group `group` - 1 (0: all). */
static void stats_header_before(const rondo_trace *t,
				const struct an_totals *tot, uint32_t group)
{
	const char *prog = rondo_meta_get(t, "program");
	char all[24], ranks[64];
	int n;

	cli_duration(all, sizeof(all), (double)tot->mpi_ns, 0);
	printf("%s: %" PRIu32 " rank%s, ", prog ? prog : "?",
	       rondo_rank_count(t), rondo_rank_count(t) == 1 ? "" : "s");
	if (group) {
		n = rondo_group_format(t, group - 1, ranks, sizeof(ranks));
		printf("%s between MPI calls in rank group %" PRIu32
		       " (%" PRIu32 " rank%s: %s%s)\n",
		       all, group - 1, rondo_group_size(t, group - 1),
		       rondo_group_size(t, group - 1) == 1 ? "" : "s", ranks,
		       n >= (int)sizeof(ranks) ? "..." : "");
	} else {
		printf("%s between MPI calls over all ranks\n", all);
	}
	printf("time before each call: from the end of the rank's previous "
	       "MPI call to its start\n\n");
}

/* The function column's width: the longest name printed. */
static int stats_name_width(const rondo_trace *t, const struct an_row *rows,
			    uint32_t n)
{
	size_t w = strlen("function");

	for (uint32_t i = 0; i < n; i++) {
		const char *name = rondo_func_name(t, rows[i].id);

		if (name && strlen(name) > w)
			w = strlen(name);
	}
	return (int)w;
}

/* The columns every row by function or signature has. */
static void stats_numbers(const struct an_row *r, const struct an_totals *tot)
{
	char d[5][24], pc[2][16], calls[24];

	cli_duration(d[0], sizeof(d[0]), (double)r->total_ns, 0);
	cli_duration(d[1], sizeof(d[1]), an_row_mean(r), 0);
	cli_duration(d[2], sizeof(d[2]), (double)r->min_ns, 0);
	cli_duration(d[3], sizeof(d[3]), (double)r->max_ns, 0);
	cli_duration(d[4], sizeof(d[4]), an_row_sd(r), 0);
	if (r->totals_only) /* kept per rank group: no extremes */
		for (int k = 2; k < 5; k++)
			snprintf(d[k], sizeof(d[k]), "-");
	/* of totals that stopped at 2^64 - 1, no mean can be told */
	if (cli_sat(r->count) || cli_sat(r->total_ns)) {
		snprintf(d[1], sizeof(d[1]), "-");
		snprintf(d[4], sizeof(d[4]), "-");
	}
	stats_percent(pc[0], sizeof(pc[0]),
		      an_share((double)r->total_ns, tot->mpi_ns));
	stats_percent(pc[1], sizeof(pc[1]),
		      an_share((double)r->total_ns,
			       sat_mul(tot->run_ns, tot->ranks)));
	printf(" %12s %10s %10s %10s %10s %10s %7s %7s",
	       cli_count(calls, sizeof(calls), r->count), d[0], d[1], d[2],
	       d[3], d[4], pc[0], pc[1]);
}

static void stats_text_calls(const rondo_trace *t, enum an_by by,
			     const struct an_row *rows, uint32_t n,
			     const struct an_totals *tot, int before)
{
	int fn = by == AN_BY_FUNCTION,
	    w = fn ? stats_name_width(t, rows, n) : 0;
	char sig[STATS_SIG_WIDTH + 1];

	if (fn)
		printf("%-*s %4s", w, "function", "sigs");
	else
		printf("%6s", "sig");
	printf(" %12s %10s %10s %10s %10s %10s %7s %7s%s\n", "calls", "total",
	       "mean", "min", "max", "sd", before ? "share" : "MPI%", "run%",
	       fn ? "" : "  signature");
	for (uint32_t i = 0; i < n; i++) {
		if (fn) {
			printf("%-*s %4" PRIu32, w,
			       rondo_func_name(t, rows[i].id), rows[i].sigs);
		} else {
			snprintf(sig, sizeof(sig), "#%" PRIu32, rows[i].id);
			printf("%6s", sig);
		}
		stats_numbers(&rows[i], tot);
		if (!fn) {
			an_sig_text(t, rows[i].id, sig, sizeof(sig));
			printf("  %s", sig);
		}
		putchar('\n');
	}
}

static void stats_text_ranks(const struct an_row *rows, uint32_t n,
			     const struct an_totals *tot)
{
	char mpi[24], run[24], pc[2][16], calls[24];

	cli_duration(run, sizeof(run), (double)tot->run_ns, 0);
	printf("%6s %12s %10s %10s %7s %7s\n", "rank", "calls", "MPI time",
	       "run time", "MPI%", "share");
	for (uint32_t i = 0; i < n; i++) {
		cli_duration(mpi, sizeof(mpi), (double)rows[i].total_ns, 0);
		stats_percent(pc[0], sizeof(pc[0]),
			      an_share((double)rows[i].total_ns, tot->run_ns));
		stats_percent(
			pc[1], sizeof(pc[1]),
			an_share((double)rows[i].total_ns, tot->rank_mpi_ns));
		printf("%6" PRIu32 " %12s %10s %10s %7s %7s\n", rows[i].id,
		       cli_count(calls, sizeof(calls), rows[i].count), mpi,
		       tot->run_ns ? run : "-", pc[0], pc[1]);
	}
}

/* The CSV to o->csv ("-": stdout).  Returns the exit status. */
static int stats_csv(const rondo_trace *t, const struct stats_opts *o,
		     const struct an_row *rows, uint32_t n,
		     const struct an_totals *tot)
{
	FILE *out = cli_csv_open(o->csv);
	int rc;

	if (!out)
		return CLI_EXIT_FAIL;
	rc = an_stats_csv(t, o->by, rows, n, tot, out);
	for (uint32_t i = 0; i < n; i++)
		if (cli_sat(rows[i].count) || cli_sat(rows[i].total_ns))
			break;
	if (cli_csv_close(out, o->csv, rc == RONDO_E_IO) != CLI_EXIT_OK)
		return CLI_EXIT_FAIL;
	if (rc < 0)
		cli_error("%s", rondo_strerror(rc));
	return rc < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* Why a report cannot be made, once. */
static void stats_missing(const char *path, enum an_by by, int before,
			  uint32_t group, int rc)
{
	if (rc != RONDO_E_MISSING)
		cli_error("%s: %s", path, rondo_strerror(rc));
	else if (group)
		cli_error("%s keeps no time between calls per rank group (no "
			  "'groupgaps' section: written by a tracer from "
			  "before it was recorded)",
			  path);
	else if (before)
		cli_error("%s keeps no time between calls (no 'gapstats' "
			  "section: written by a tracer from before it was "
			  "recorded)",
			  path);
	else if (by == AN_BY_RANK)
		cli_error("%s has no per-rank times (written by a tracer from "
			  "before they were recorded)",
			  path);
	else
		cli_error("%s has no call statistics (no 'sigstats' or 'stats' "
			  "section)",
			  path);
}

int cmd_stats(int argc, char **argv)
{
	struct stats_opts o = {AN_BY_FUNCTION, AN_KEY_TOTAL, 0, 0, 0, 0, NULL};
	struct an_totals tot;
	struct an_row *rows;
	rondo_trace *t;
	uint32_t n;
	int rc = stats_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	t = cli_open(argv[optind]);
	if (!t)
		return CLI_EXIT_FAIL;
	if (o.group > rondo_group_count(t)) {
		rc = cli_usage_error("stats ",
				     "--group %" PRIu32 ": %s has %" PRIu32
				     " rank group%s, 0 to %" PRIu32,
				     o.group - 1, argv[optind],
				     rondo_group_count(t),
				     rondo_group_count(t) == 1 ? "" : "s",
				     rondo_group_count(t) - 1);
		rondo_trace_free(t);
		return rc;
	}
	rc = o.group	? an_stats_before_group(t, o.by, o.group - 1, &rows, &n)
	     : o.before ? an_stats_before(t, o.by, &rows, &n)
			: an_stats(t, o.by, &rows, &n);
	if (rc < 0) {
		stats_missing(argv[optind], o.by, o.before, o.group, rc);
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	an_totals(t, &tot);
	if (o.before) /* shares of the time between calls */
		tot.mpi_ns = o.group ? an_before_group_total(t, o.group - 1)
				     : an_before_total(t);
	if (o.group) /* run%: of the group's ranks' run time */
		tot.ranks = rondo_group_size(t, o.group - 1);
	an_stats_sort(rows, n,
		      o.by == AN_BY_RANK && !o.sorted ? AN_KEY_ID : o.key);
	if (o.top && o.top < n)
		n = o.top;
	rc = CLI_EXIT_OK;
	if (o.csv) {
		rc = stats_csv(t, &o, rows, n, &tot);
	} else {
		if (o.before)
			stats_header_before(t, &tot, o.group);
		else
			stats_header(t, &tot);
		if (o.by == AN_BY_RANK) {
			char prec[256];

			printf("per-rank times: %s\n\n",
			       an_rank_precision(t, prec, sizeof(prec)));
			stats_text_ranks(rows, n, &tot);
		} else
			stats_text_calls(t, o.by, rows, n, &tot, o.before);
	}
	if (rc == CLI_EXIT_OK)
		cli_saturated(o.csv != NULL);
	free(rows);
	rondo_trace_free(t);
	return rc;
}
