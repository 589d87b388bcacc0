/*
 * cmd_timeline.c - `rondo timeline FILE`: the explorer's timeline as text
 * or CSV (its batch twin): for each rank, the share of each bucket of time
 * it spent inside MPI calls (analyses/timeline.h, an_timeline_rank).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "timeline.h"

/* Without a width: as many buckets as a wide terminal shows. */
#define DEFAULT_BUCKETS 64
#define MAX_BUCKETS	100000

/* The text's levels, the explorer's characters without colour. */
static const char ramp[] = " .:-=+*#%@";
#define LEVELS ((int)sizeof(ramp) - 1)

static void timeline_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo timeline [--buckets N] [--from T1] [--to T2]\n"
		"                      [--csv PATH|-] FILE\n\n"
		"From per-call times (a trace made with "
		"RONDO_TIMING=percall):\n"
		"for each rank, the share of each bucket of time it spent "
		"inside\n"
		"MPI calls, as a row of characters of rising density (\" "
		".:-=+*#%%@\",\n"
		"blank: no MPI at all), the explorer's timeline (key T) as "
		"text.\n\n"
		"  --buckets N  buckets across the window (default %d)\n"
		"  --from T1    the window starts at T1 seconds since the "
		"job's\n"
		"               origin (default: the first call's start)\n"
		"  --to T2      and ends at T2 (default: the last call's end)\n"
		"  --csv PATH   CSV to PATH, or to standard output with -:\n"
		"               rank,bucket,start_ns,end_ns,mpi_ns,share\n",
		DEFAULT_BUCKETS);
}

/* The run's span over every rank's timed calls: [*first, *last]. */
static int timeline_extent(const rondo_trace *t, int64_t *first, int64_t *last)
{
	struct an_buckets b = {0,    1,	   0, NULL,	 NULL,
			       NULL, NULL, 0, INT64_MAX, INT64_MIN};
	int rc = 0;

	for (uint32_t r = 0; r < rondo_rank_count(t) && rc == 0; r++)
		rc = an_timeline_rank(t, r, &b);
	*first = b.first <= b.last ? b.first : 0;
	*last = b.first <= b.last ? b.last : 0;
	return rc;
}

static void timeline_text_head(const rondo_trace *t, double t0, double w,
			       uint32_t nb, double base)
{
	const char *prog = rondo_meta_get(t, "program");
	char width[24];

	cli_duration(width, sizeof(width), w, 0);
	printf("%s: %" PRIu32 " rank%s, %.6f to %.6f s in %" PRIu32
	       " buckets of %s; a character per bucket, the share in MPI\n",
	       prog ? prog : "?", rondo_rank_count(t),
	       rondo_rank_count(t) == 1 ? "" : "s", t0 / 1e9,
	       (t0 + w * nb) / 1e9, nb, width);
	cli_timing_bound(base);
	printf("scale: blank none, then \"%s\" up to 100%%\n\n", ramp + 1);
}

/* One rank's row of the text, or its rows of the CSV. */
static int timeline_row(FILE *out, uint32_t r, const struct an_buckets *b,
			int csv)
{
	if (!csv)
		fprintf(out, "%6" PRIu32 " |", r);
	for (uint32_t k = 0; k < b->nb; k++) {
		double share = b->busy[k] / b->w;

		if (csv)
			fprintf(out,
				"%" PRIu32 ",%" PRIu32 ",%.0f,%.0f,%.0f,%.6f\n",
				r, k, b->t0 + b->w * k, b->t0 + b->w * (k + 1),
				b->busy[k], share > 1 ? 1 : share);
		else
			fputc(ramp[an_level(b->busy[k], share, LEVELS)], out);
	}
	if (!csv)
		fputs("|\n", out);
	return ferror(out) ? -1 : 0;
}

static int timeline_write(const rondo_trace *t, FILE *out, double t0, double w,
			  uint32_t nb, int csv)
{
	double *busy = calloc(nb, sizeof(*busy));
	int rc = busy ? 0 : RONDO_E_NOMEM;

	if (csv &&
	    fprintf(out, "rank,bucket,start_ns,end_ns,mpi_ns,share\n") < 0)
		rc = RONDO_E_IO;
	for (uint32_t r = 0; r < rondo_rank_count(t) && rc == 0; r++) {
		struct an_buckets b = {t0,   w,	   nb, busy,	  NULL,
				       NULL, NULL, 0,  INT64_MAX, INT64_MIN};

		memset(busy, 0, sizeof(*busy) * nb);
		rc = an_timeline_rank(t, r, &b);
		if (rc == 0 && timeline_row(out, r, &b, csv) < 0)
			rc = RONDO_E_IO;
	}
	free(busy);
	return rc;
}

/* Ranks whose times stop before their calls do, on stderr. */
static void timeline_cut(const rondo_trace *t)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < rondo_rank_count(t); r++)
		n += rondo_rank_timed_calls(t, r) < rondo_rank_calls(t, r);
	if (n)
		cli_error("%" PRIu32 " rank%s kept per-call times for part of "
			  "the run only (RONDO_TIMING_LIMIT or "
			  "MPI_Pcontrol(3)): %s later calls "
			  "are not drawn",
			  n, n == 1 ? "" : "s", n == 1 ? "its" : "their");
}

enum { O_FROM = 256, O_TO, O_CSV };

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{"buckets", required_argument, 0, 'b'},
		{"from", required_argument, 0, O_FROM},
		{"to", required_argument, 0, O_TO},
		{"csv", required_argument, 0, O_CSV},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	const char *csv = NULL;
	int64_t win[2] = {0, 0}, first, last;
	int have[2] = {0, 0}, c, rc;
	uint32_t nb = DEFAULT_BUCKETS;
	rondo_trace *t;
	double base;

	while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (cli_parse_u32(optarg, MAX_BUCKETS + 1, &nb) < 0 ||
			    nb == 0)
				return cli_usage_error(
					"timeline ",
					"--buckets: '%s' is not a "
					"number from 1 to %d",
					optarg, MAX_BUCKETS);
			break;
		case O_FROM:
		case O_TO:
			if (cli_parse_seconds(optarg, &win[c == O_TO]) < 0)
				return cli_usage_error(
					"timeline ",
					"--%s: '%s' is not a time "
					"in seconds",
					c == O_TO ? "to" : "from", optarg);
			have[c == O_TO] = 1;
			break;
		case O_CSV: csv = optarg; break;
		case 'h': timeline_usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("timeline ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("timeline ", "timeline takes one FILE");
	if (have[0] && have[1] && win[0] >= win[1])
		return cli_usage_error("timeline ",
				       "--from must come before --to");
	t = cli_open_timed(argv[optind], "timeline");
	if (!t)
		return CLI_EXIT_FAIL;
	rondo_timing_mode(t, &base);
	rc = have[0] && have[1] ? 0 : timeline_extent(t, &first, &last);
	if (rc == 0) {
		win[0] = have[0] ? win[0] : first;
		win[1] = have[1] ? win[1] : last;
		if (win[1] <= win[0])
			win[1] = win[0] + 1;
	}
	if (rc == 0) {
		double w = (double)(win[1] - win[0]) / nb;
		FILE *out = csv ? cli_csv_open(csv) : stdout;

		if (!out) {
			rondo_trace_free(t);
			return CLI_EXIT_FAIL;
		}
		if (!csv)
			timeline_text_head(t, (double)win[0], w, nb, base);
		rc = timeline_write(t, out, (double)win[0], w, nb, csv != NULL);
		if (csv) {
			int st = cli_csv_close(out, csv, rc == RONDO_E_IO);

			rc = rc == RONDO_E_IO ? 0 : rc;
			if (st != CLI_EXIT_OK) {
				rondo_trace_free(t);
				return st;
			}
		}
	}
	if (rc < 0)
		cli_error("timeline of %s: %s", argv[optind],
			  rondo_strerror(rc));
	else
		timeline_cut(t);
	rondo_trace_free(t);
	return rc < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
