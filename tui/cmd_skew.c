/*
 * cmd_skew.c - `rondo skew FILE`: for each collective on each
 * communicator, how far apart its members entered it, who was last, and
 * how long the others waited for that one (analyses/skew.h).
 */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "matrix.h"
#include "skew.h"

static void skew_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo skew [--top N] [--comm C] [--csv PATH|-] FILE\n\n"
		"The skew of collectives, from per-call times (a trace made\n"
		"with RONDO_TIMING=percall): the k-th collective on a\n"
		"communicator of each of its members is one occurrence, and\n"
		"its spread is the last member's start minus the first's.\n"
		"A row per function and communicator: occurrences, mean and\n"
		"largest spread (each +- its error bound), the rank last most "
		"often,\n"
		"and the waiting they imply (every member's wait for the "
		"last,\n"
		"summed), the most waiting first.\n\n"
		"  --top N      the first N rows (text: 10 by default)\n"
		"  --comm C     only communicator C: world, or an id as rondo\n"
		"               dump prints it (c3)\n"
		"  --csv PATH   CSV (times in nanoseconds) to PATH, or to\n"
		"               standard output with -, instead of text\n");
}

static void skew_row(const rondo_trace *t, const struct an_skew *s,
		     struct cli_swamp *sw)
{
	const char *name = rondo_func_name(t, s->func);
	char comm[24], mean[24], merr[24], max[24], err[24], wait[24], last[32];
	double m = (double)s->spread_ns / (double)s->count;

	if (s->comm == AN_COMM_WORLD)
		snprintf(comm, sizeof(comm), "world");
	else
		snprintf(comm, sizeof(comm), "c%" PRId64, s->comm);
	cli_duration_about(mean, sizeof(mean), m, (double)s->mean_err_ns, sw);
	cli_duration(merr, sizeof(merr), (double)s->mean_err_ns, 0);
	cli_duration_about(max, sizeof(max), (double)s->max_spread_ns,
			   (double)s->err_ns, sw);
	cli_duration(err, sizeof(err), (double)s->err_ns, 0);
	cli_duration(wait, sizeof(wait), (double)s->wait_ns, 0);
	snprintf(last, sizeof(last), "%" PRIu64 "/%" PRIu64, s->last_count,
		 s->count);
	printf("%-26s %6s %7" PRIu32 " %11" PRIu64
	       " %11s %9s %11s %9s %6" PRIu32 " %9s %11s\n",
	       name ? name : "?", comm, s->members, s->count, mean, merr, max,
	       err, s->last_rank, last, wait);
}

/* What the rows leave out, on stderr (not in the CSV). */
static void skew_notes(const struct an_skew_result *r)
{
	if (r->unmatched)
		cli_error("%" PRIu64 " collective calls whose occurrence some "
			  "member never reached (in its timed calls) not "
			  "counted",
			  r->unmatched);
	if (r->mismatched)
		cli_error("%" PRIu64 " occurrences whose members called "
			  "different collectives not counted",
			  r->mismatched);
	if (r->unresolved)
		cli_error("%" PRIu64 " collective calls on communicators whose "
			  "members the trace does not give not counted",
			  r->unresolved);
	cli_untimed(r->untimed);
}

static void skew_text(const rondo_trace *t, const struct an_skew_result *r,
		      uint32_t n)
{
	const char *prog = rondo_meta_get(t, "program");
	struct cli_swamp sw = {0, 0};
	uint64_t count = 0;

	for (uint32_t i = 0; i < r->n; i++)
		count += r->rows[i].count;
	printf("%s: %" PRIu32 " rank%s, %" PRIu64 " collective calls, %" PRIu64
	       " occurrences matched across their members, in %" PRIu32
	       " row%s\n",
	       prog ? prog : "?", rondo_rank_count(t),
	       rondo_rank_count(t) == 1 ? "" : "s", r->calls, count, r->n,
	       r->n == 1 ? "" : "s");
	cli_timing_bound(r->base);
	printf("\n%-26s %6s %7s %11s %11s %9s %11s %9s %6s %9s %11s\n",
	       "function", "comm", "members", "occurrences", "mean spread",
	       "+-", "max spread", "+-", "last@", "times", "waiting");
	for (uint32_t i = 0; i < n; i++)
		skew_row(t, &r->rows[i], &sw);
	cli_swamp_say(&sw, r->base);
}

int cmd_skew(int argc, char **argv)
{
	struct an_skew_result r;
	const char *csv = NULL;
	int64_t comm = AN_ANY;
	uint32_t top = 0;
	rondo_trace *t;
	int rc = cli_timed_args(argc, argv, skew_usage, &top, &comm, &csv);

	if (rc >= 0)
		return rc;
	t = cli_open_timed(argv[optind], "skew");
	if (!t)
		return CLI_EXIT_FAIL;
	rc = an_skew(t, comm, &r);
	if (rc < 0) {
		cli_error("skew of %s: %s", argv[optind], rondo_strerror(rc));
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	if (csv) {
		FILE *out = cli_csv_open(csv);

		rc = out ? cli_csv_close(out, csv,
					 an_skew_csv(t, r.rows,
						     cli_rows(top, r.n, 1),
						     out) < 0)
			 : CLI_EXIT_FAIL;
	} else {
		skew_text(t, &r, cli_rows(top, r.n, 0));
		rc = CLI_EXIT_OK;
	}
	if (rc == CLI_EXIT_OK)
		skew_notes(&r);
	an_skew_free(&r);
	rondo_trace_free(t);
	return rc;
}
