/*
 * rondo.c - the rondo command: dispatches to its subcommands.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sat.h"
#include "util.h"

#ifndef HAVE_TUI
/* Built with --disable-tui: the command is there, and says why it cannot
 * run. */
int cmd_view(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("this rondo was built without the explorer (configure "
		  "--disable-tui); rondo info and rondo dump read the trace");
	return CLI_EXIT_FAIL;
}
#endif

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args;
	const char *help;
} commands[] = {
	{"run", cmd_run, "[OPTIONS] -- COMMAND...",
	 "run an MPI program with the tracer in every rank"},
	{"info", cmd_info, "FILE", "summary of a trace: job, sizes, rank groups"},
	{"dump", cmd_dump, "[--rank R] [--grammar] FILE",
	 "calls in order, or the compressed form with --grammar"},
	{"view", cmd_view, "[--theme T] FILE",
	 "explore a trace in the terminal (rondo FILE does too)"},
	{"matrix", cmd_matrix,
	 "[--count|--bytes] [--csv PATH|-] [--wide] [--from T1] [--to T2] FILE",
	 "who sends how much to whom (point-to-point, collectives on request)"},
	{"stats", cmd_stats, "[--by function|signature|rank] [--csv PATH|-] FILE",
	 "time in MPI per function, signature or rank (mpiP-like)"},
	{"contention", cmd_contention, "[--top N] [--csv PATH|-] FILE",
	 "time lost per signature against its fastest call, and imbalance"},
	{"skew", cmd_skew, "[--top N] [--comm C] [--csv PATH|-] FILE",
	 "how late the members of each collective arrive (per-call times)"},
	{"waits", cmd_waits, "[--top N] [--csv PATH|-] FILE",
	 "late senders and late receivers per pair of ranks (per-call times)"},
	{"timeline", cmd_timeline,
	 "[--buckets N] [--from T1] [--to T2] [--csv PATH|-] FILE",
	 "each rank's share of time in MPI by time bucket (per-call times)"},
};

#define NCOMMANDS COUNTOF(commands)

int cli_parse_seconds(const char *s, int64_t *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	/* within int64_t's ns, a little under 300 years */
	if (errno || end == s || *end || !isfinite(v) || fabs(v) > 9e9)
		return -1;
	*ns = llround(v * 1e9);
	return 0;
}

/* The one report file a command writes at a time (fileio.h: a temporary
 * file renamed over the target when complete). */
static struct fileio_out csv_out = {.fd = -1, .dir = -1};

FILE *cli_csv_open(const char *path)
{
	char why[256], name[FILEIO_SHORT];
	FILE *out;

	if (!strcmp(path, "-"))
		return stdout;
	if (csv_out.fd >= 0 || fileio_create(&csv_out, path, why, sizeof(why))) {
		cli_error("cannot write %s: %s", fileio_short(name, sizeof(name), path),
			  csv_out.fd >= 0 ? "another report is open" : why);
		return NULL;
	}
	out = fileio_stream(&csv_out);
	if (!out) {
		fileio_close(&csv_out, 0, NULL, 0);
		cli_error("cannot write %s: out of memory",
			  fileio_short(name, sizeof(name), path));
	}
	return out;
}

int cli_csv_close(FILE *out, const char *path, int failed)
{
	char why[256], name[FILEIO_SHORT];
	int saved = errno ? errno : EIO, err;

	if (out == stdout) {
		if (fflush(out) == 0 && !failed)
			return CLI_EXIT_OK;
		cli_error("cannot write standard output: %s", strerror(saved));
		return CLI_EXIT_FAIL;
	}
	/* A report that failed half-way is not left at the target. */
	err = fileio_close(&csv_out, !failed, why, sizeof(why));
	if (!err && !failed)
		return CLI_EXIT_OK;
	cli_error("cannot write %s: %s", fileio_short(name, sizeof(name), path),
		  err ? why : strerror(saved));
	return CLI_EXIT_FAIL;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rondo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("rondo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'rondo %s--help' for more information.\n",
		cmd ? cmd : "");
	return CLI_EXIT_USAGE;
}

rondo_trace *cli_open(const char *path)
{
	rondo_trace *t = rondo_trace_create();

	if (!t) {
		cli_error("cannot open %s: out of memory", path);
		return NULL;
	}
	if (rondo_trace_open(t, path) < 0) {
		/* The detail starts with the file name already. */
		cli_error("cannot open %s", rondo_trace_error(t));
		rondo_trace_free(t);
		return NULL;
	}
	return t;
}

rondo_trace *cli_open_timed(const char *path, const char *cmd)
{
	rondo_trace *t = cli_open(path);

	if (t && rondo_timing_mode(t, NULL) != RONDO_TIMING_PERCALL) {
		cli_error("%s: %s has no per-call times (trace with "
			  "RONDO_TIMING=percall, or rondo run --timing percall)",
			  cmd, path);
		rondo_trace_free(t);
		return NULL;
	}
	return t;
}

int cli_timed_args(int argc, char **argv, void (*usage)(FILE *f),
		   uint32_t *top, int64_t *comm, const char **csv)
{
	static const struct option opts[] = {
		{"top", required_argument, 0, 'n'},
		{"comm", required_argument, 0, 'm'},
		{"csv", required_argument, 0, 'c'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	char cmd[32];
	int c;

	snprintf(cmd, sizeof(cmd), "%s ", argv[0]);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, top) < 0 || !*top)
				return cli_usage_error(cmd, "--top '%s' is not a "
						       "number of rows (1 or "
						       "more)", optarg);
			break;
		case 'm':
			if (comm && cli_parse_comm(optarg, comm) < 0)
				return cli_usage_error(cmd, "--comm: '%s' is not "
						       "world, self or a "
						       "communicator id", optarg);
			if (!comm)
				return cli_usage_error(cmd, "bad option '--comm'");
			break;
		case 'c': *csv = optarg; break;
		case 'h': return usage(stdout), CLI_EXIT_OK;
		default:
			return cli_usage_error(cmd, "bad option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error(cmd, "%s takes one FILE", argv[0]);
	return -1;
}

uint32_t cli_rows(uint32_t top, uint32_t n, int csv)
{
	if (!top)
		top = csv ? UINT32_MAX : 10;
	return top < n ? top : n;
}

void cli_untimed(uint64_t calls)
{
	if (calls)
		cli_error("%" PRIu64 " calls past ranks' per-call times (timing "
			  "limit reached) not counted", calls);
}

void cli_timing_bound(double b)
{
	printf("per-call times of base %g: never early, and late by less than "
	       "%g%% of the time from their reference (the previous start of "
	       "the same signature, or the end of the rank's previous call); "
	       "+- bounds the error of a figure\n", b, (b - 1) * 100);
}

int cli_parse_u32(const char *s, uint32_t limit, uint32_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v >= limit)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* A value printed at SAT_MAX, for cli_saturated's note. */
static int saturated;

int cli_sat(uint64_t v)
{
	saturated |= v == SAT_MAX;
	return v == SAT_MAX;
}

const char *cli_count(char *buf, size_t size, uint64_t v)
{
	if (cli_sat(v))
		snprintf(buf, size, ">=1.8E19");
	else
		snprintf(buf, size, "%" PRIu64, v);
	return buf;
}

void cli_saturated(int csv)
{
	if (saturated)
		cli_error("totals marked %s passed 2^64 - 1 and stopped there: "
			  "they are lower bounds", csv ? "18446744073709551615"
						     : ">=1.8E19");
	saturated = 0;
}

void cli_duration(char *buf, size_t size, double ns, int utf8)
{
	static const char *const ascii[] = {"ns", "us", "ms", "s"};
	static const char *const wide[] = {"ns", "\xc2\xb5s", "ms", "s"};
	/* a total of ns at SAT_MAX is 2^64 as a double */
	int sat = cli_sat(ns >= 0x1p64 ? SAT_MAX : 0);
	double v = ns;
	int u = 0;

	/* 999.5 and up would print as 1000 */
	while (v >= 999.5 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, size, "%s%.*f %s", !sat ? "" : utf8 ? "\xe2\x89\xa5" : ">=",
		 u == 0 || v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2, v,
		 (utf8 ? wide : ascii)[u]);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rondo COMMAND [OPTIONS] FILE\n\n"
		   "Explore grammar-compressed MPI traces (.rondo files).\n\n"
		   "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-5s %-28s %s\n", commands[i].name,
			commands[i].args, commands[i].help);
	fprintf(f, "\n  rondo --version    print the version\n"
		   "  rondo COMMAND --help   options of one command\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr), CLI_EXIT_USAGE;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return usage(stdout), CLI_EXIT_OK;
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("rondo %s (librondo %s, trace format %d.%d)\n",
		       PACKAGE_VERSION, rondo_version_string(),
		       RONDO_FORMAT_MAJOR, RONDO_FORMAT_MINOR);
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	/* rondo FILE at a terminal: the explorer */
	if (argc == 2 && isatty(STDOUT_FILENO) && access(argv[1], F_OK) == 0)
		return cmd_view(argc, argv);
	return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
