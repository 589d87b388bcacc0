/*
 * cli.c - what the rondo command's subcommands share (cli.h): messages,
 * opening a trace, reading options, writing reports, and numbers as the
 * reports print them.
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
#include <strings.h>

#include "cli.h"
#include "matrix.h"
#include "sat.h"

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
	if (csv_out.fd >= 0 ||
	    fileio_create(&csv_out, path, why, sizeof(why))) {
		cli_error("cannot write %s: %s",
			  fileio_short(name, sizeof(name), path),
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
	for (uint32_t i = 0; rondo_trace_damage(t, i); i++) {
		char name[FILEIO_SHORT];

		cli_error("warning: %s: %s",
			  fileio_short(name, sizeof(name), path),
			  rondo_trace_damage(t, i));
	}
	return t;
}

rondo_trace *cli_open_timed(const char *path, const char *cmd)
{
	rondo_trace *t = cli_open(path);

	if (t && rondo_timing_mode(t, NULL) != RONDO_TIMING_PERCALL) {
		cli_error(
			"%s: %s has no per-call times (trace with "
			"RONDO_TIMING=percall, or rondo run --timing percall)",
			cmd, path);
		rondo_trace_free(t);
		return NULL;
	}
	return t;
}

int cli_timed_args(int argc, char **argv, void (*usage)(FILE *f), uint32_t *top,
		   int64_t *comm, const char **csv)
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
				return cli_usage_error(cmd,
						       "--top '%s' is not a "
						       "number of rows (1 or "
						       "more)",
						       optarg);
			break;
		case 'm':
			if (comm && cli_parse_comm(optarg, comm) < 0)
				return cli_usage_error(cmd,
						       "--comm: '%s' is not "
						       "world, self or a "
						       "communicator id",
						       optarg);
			if (!comm)
				return cli_usage_error(cmd,
						       "bad option '--comm'");
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
		cli_error("%" PRIu64
			  " calls past ranks' per-call times (a limit "
			  "reached, or MPI_Pcontrol(3)) not counted",
			  calls);
}

void cli_timing_bound(double b)
{
	printf("per-call times of base %g: never early, and late by less than "
	       "%g%% of the time from their reference (the end of the rank's "
	       "previous call as read back; before format 1.7, the previous "
	       "start of the same signature); +- bounds the error of a "
	       "figure\n",
	       b, (b - 1) * 100);
}

void cli_duration_about(char *buf, size_t size, double ns, double err_ns,
			struct cli_swamp *sw)
{
	char d[24];

	cli_duration(d, sizeof(d), ns, 0);
	snprintf(buf, size, "%s%s", err_ns > ns ? "~" : "", d);
	if (err_ns <= ns)
		return;
	sw->marked++;
	if (ns > 0 && (sw->ratio == 0 || ns / err_ns < sw->ratio))
		sw->ratio = ns / err_ns;
}

double cli_round_base(double want)
{
	/* the largest first */
	static const double nice[] = {8,    4,	  2,	1.5,   1.2,   1.1,
				      1.05, 1.02, 1.01, 1.005, 1.002, 1.001};

	for (size_t i = 0; i < sizeof(nice) / sizeof(nice[0]); i++)
		if (nice[i] <= want)
			return nice[i];
	return 0;
}

void cli_swamp_say(const struct cli_swamp *sw, double b)
{
	double want, nice;

	if (!sw->marked)
		return;
	printf("\n~ marks %u figure%s whose error bound exceeds the figure: "
	       "the true value could be 0, or twice what is shown.\n",
	       sw->marked, sw->marked == 1 ? "" : "s");
	if (sw->ratio <= 0) {
		printf("They read as 0; a smaller base bounds them closer "
		       "(rondo run --time-base).\n");
		return;
	}
	/* bounds shrink with b - 1: half the figure at this base */
	want = 1 + (b - 1) * sw->ratio / 2;
	nice = cli_round_base(want);
	if (!nice)
		printf("Even base %g, the finest, would leave some of them so: "
		       "their bound is a share of the time between calls, "
		       "longer than they are.\n",
		       RONDO_TIME_BASE_MIN);
	else if (nice < b)
		printf("A trace of base %g would bound them to about half of "
		       "themselves: rondo run --timing percall --time-base "
		       "%g -- ...\n",
		       nice, nice);
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

int cli_parse_comm(const char *s, int64_t *out)
{
	uint32_t id;

	if (!strcmp(s, "world") || !strcmp(s, "MPI_COMM_WORLD"))
		*out = AN_COMM_WORLD;
	else if (!strcmp(s, "self") || !strcmp(s, "MPI_COMM_SELF"))
		*out = AN_COMM_SELF;
	else if (cli_parse_u32(s[0] == 'c' ? s + 1 : s, UINT32_MAX, &id) == 0)
		*out = id;
	else
		return -1;
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
			  "they are lower bounds",
			  csv ? "18446744073709551615" : ">=1.8E19");
	saturated = 0;
}

void cli_scaled(char *buf, size_t size, const char *prefix, double v,
		enum cli_unit unit)
{
	/* each 1000 times the one before; NULL past the largest */
	static const char *const units[][7] = {
		[CLI_UNIT_NONE] = {"", "k", "M", "G", "T", "P", "E"},
		[CLI_UNIT_BYTES] = {" B", " kB", " MB", " GB", " TB", " PB",
				    " EB"},
		[CLI_UNIT_NS] = {" ns", " us", " ms", " s"},
		[CLI_UNIT_NS_UTF8] = {" ns", " \xc2\xb5s", " ms", " s"},
	};
	const char *const *name = units[unit];
	int u = 0;

	/* 999.5 and up would print as 1000 */
	while (v >= 999.5 && u < 6 && name[u + 1]) {
		v /= 1000;
		u++;
	}
	snprintf(buf, size, "%s%.*f%s", prefix,
		 u == 0 || v >= 99.95 ? 0
		 : v >= 9.995	      ? 1
				      : 2,
		 v, name[u]);
}

void cli_duration(char *buf, size_t size, double ns, int utf8)
{
	/* a total of ns at SAT_MAX is 2^64 as a double */
	int sat = cli_sat(ns >= 0x1p64 ? SAT_MAX : 0);

	cli_scaled(buf, size,
		   !sat	  ? ""
		   : utf8 ? "\xe2\x89\xa5"
			  : ">=",
		   ns, utf8 ? CLI_UNIT_NS_UTF8 : CLI_UNIT_NS);
}

int cli_ranks_parse(const char *s, struct util_ranks_run **runs)
{
	struct util_ranks_run r, *grown;
	int n = 0, rc;

	*runs = NULL;
	while ((rc = util_ranks_next(&s, &r)) == 1) {
		grown = realloc(*runs, sizeof(r) * (size_t)(n + 1));
		if (!grown)
			return -1;
		*runs = grown;
		(*runs)[n++] = r;
	}
	return rc < 0 || *s ? -1 : n;
}

uint8_t *cli_ranks_select(const rondo_trace *t, const char *file,
			  const struct util_ranks_run *runs, int nruns)
{
	uint32_t n = rondo_rank_count(t);
	uint8_t *sel = calloc(n ? n : 1, 1);

	if (!sel) {
		cli_error("out of memory");
		return NULL;
	}
	if (nruns < 0)
		memset(sel, 1, n); /* no list: every rank */
	for (int i = 0; i < nruns; i++) {
		if (runs[i].last >= n) {
			cli_error("rank %" PRIu32
				  ": %s has ranks 0 to %" PRIu32,
				  runs[i].last, file, n - 1);
			free(sel);
			return NULL;
		}
		for (uint64_t r = runs[i].first; r <= runs[i].last;
		     r += runs[i].step)
			sel[r] = 1;
	}
	return sel;
}

/* Function f is the one `name` (len bytes) names: "MPI_Send", "Send",
 * "mpi_send", "send". */
static int function_is(const char *f, const char *name, size_t len)
{
	if (strlen(f) == len && !strncasecmp(f, name, len))
		return 1;
	return !strncasecmp(f, "MPI_", 4) && strlen(f + 4) == len &&
	       !strncasecmp(f + 4, name, len);
}

uint8_t *cli_select_function(const rondo_trace *t, const char *file,
			     const char *names)
{
	uint32_t n = rondo_sig_count(t);
	uint8_t *sel = calloc(n ? n : 1, 1);

	if (!sel) {
		cli_error("out of memory");
		return NULL;
	}
	for (const char *p = names, *e; *p; p = *e ? e + 1 : e) {
		size_t len = strcspn(p, ",");
		uint32_t hits = 0;

		e = p + len;
		for (uint32_t s = 0; s < n; s++) {
			const char *f =
				rondo_func_name(t, rondo_sig_func(t, s));

			if (f && function_is(f, p, len))
				sel[s] = 1, hits++;
		}
		if (!hits) {
			cli_error("--function %.*s: %s has no calls of it",
				  (int)len, p, file);
			free(sel);
			return NULL;
		}
	}
	return sel;
}
