/*
 * cmd_export.c - `rondo export`: a trace as an OTF2 archive (Vampir,
 * Score-P's tools, Python readers), a Perfetto trace (ui.perfetto.dev) or
 * Chrome's JSON (chrome://tracing), whole or a slice of it: some ranks,
 * some functions, a window of time.  The walk and the formats are in
 * export/; this file reads the options and reports.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"
#include "util.h"

static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo export FORMAT... [OPTIONS] FILE\n\n"
		"Writes the trace FILE for other tools; one or more of:\n"
		"      --otf2 DIR        an OTF2 archive, DIR/traces.otf2 "
		"(Vampir,\n"
		"                        Score-P's and Scalasca's tools, "
		"otf2-print,\n"
		"                        Python's otf2 module)\n"
		"      --perfetto PATH   a Perfetto protobuf trace "
		"(ui.perfetto.dev),\n"
		"                        any size\n"
		"      --chrome PATH     Chrome's JSON trace events "
		"(chrome://tracing,\n"
		"                        ui.perfetto.dev), for small traces: "
		"browsers\n"
		"                        fail past about a million events\n\n"
		"  -r, --ranks LIST      only these ranks: 0-3,7,10-20:2\n"
		"  -f, --function NAMES  only calls of these functions "
		"(MPI_Send,\n"
		"                        send, or Send,Recv)\n"
		"      --from T1         only calls starting at T1 or later, "
		"and\n"
		"      --to T2           before T2, in seconds since the job's "
		"time\n"
		"                        origin (a trace with per-call times)\n"
		"      --force           replace an OTF2 archive already in "
		"DIR\n"
		"  -q, --quiet           no progress line, no summary\n"
		"  -h, --help            this text\n\n"
		"Times are the per-call times the trace recorded (moved where "
		"the\n"
		"logarithmic codes would make a rank's times go back, and "
		"counted),\n"
		"or, without them, each signature's mean duration laid end to "
		"end\n"
		"(the outputs say so).  Messages are matched in order per "
		"sender,\n"
		"receiver, communicator and tag; unmatched ones are counted, "
		"never\n"
		"guessed.\n");
}

enum { O_OTF2 = 256, O_PERFETTO, O_CHROME, O_FROM, O_TO, O_FORCE };

/* Past this many calls an export takes long enough to say so first (about
 * a microsecond a call: README, "Export"). */
#define EXPORT_LONG 1000000000ull

/* One output asked for. */
struct want {
	const struct ex_sink *sink;
	const char *path;
	const char *what; /* for messages: "OTF2 archive" */
};

/* The line an export ends with. */
static void export_summary(const struct ex *x, const struct want *w)
{
	const struct ex_counts *n = &x->n;
	char size[32], per[32];

	cli_scaled(size, sizeof(size), "", (double)n->bytes, CLI_UNIT_BYTES);
	cli_scaled(per, sizeof(per), "",
		   n->calls ? (double)n->bytes / (double)n->calls : 0,
		   CLI_UNIT_BYTES);
	printf("rondo: wrote %s %s: %" PRIu64 " ranks, %" PRIu64
	       " calls, %" PRIu64 " message ends, %" PRIu64
	       " messages drawn end to end; %s (%s per call)\n",
	       w->what, w->path, n->ranks, n->calls, n->messages, n->flows,
	       size, per);
	if (x->timing == EX_TIMING_PERCALL)
		printf("  times: per call as recorded (base %g); %" PRIu64
		       " calls moved so that no rank's times go back\n",
		       x->base, n->clamped);
	else
		printf("  times: synthetic, each signature's mean duration "
		       "laid end to end (the trace has no per-call times)\n");
	if (n->untimed)
		printf("  %" PRIu64 " calls past their rank's per-call times "
		       "laid end to end with mean durations\n",
		       n->untimed);
	if (n->intercoll)
		printf("  %" PRIu64 " collectives on intercommunicators "
		       "written as calls, without a collective record\n",
		       n->intercoll);
	printf("  unmatched: %" PRIu64 " sends, %" PRIu64 " receives; %" PRIu64
	       " to or from ranks not exported; %" PRIu64
	       " not resolved by the trace\n",
	       n->unmatched_sends, n->unmatched_recvs, n->outside,
	       n->unresolved);
}

/* Runs one export; the exit status. */
static int export_one(const rondo_trace *t, const char *file,
		      const struct ex_opts *o, const struct want *w, int quiet)
{
	struct ex x;
	uint64_t calls = ex_calls(t, o);

	if (w->sink == &ex_sink_chrome) {
		if (calls > EX_BROWSER_EVENTS && !quiet)
			fprintf(stderr,
				"rondo: export: %s has %" PRIu64
				" calls: browsers fail to load a JSON "
				"trace past about a million events; "
				"--perfetto or --otf2 open at any size, "
				"--ranks, --function, --from/--to or --limit "
				"make a slice\n",
				file, calls);
	}
	if (ex_run(&x, t, o, w->sink, w->path) < 0) {
		cli_error("cannot write %s %s: %s", w->what, w->path, x.err);
		return CLI_EXIT_FAIL;
	}
	if (!quiet)
		export_summary(&x, w);
	return CLI_EXIT_OK;
}

/* Parses the options into *o, wants and the rest; CLI_EXIT_OK or a usage
 * error reported. */
static int export_args(int argc, char **argv, struct want *wants, int *nwant,
		       struct ex_opts *o, const char **ranks,
		       const char **funcs, int *quiet)
{
	static const struct option opts[] = {
		{"otf2", required_argument, 0, O_OTF2},
		{"perfetto", required_argument, 0, O_PERFETTO},
		{"chrome", required_argument, 0, O_CHROME},
		{"ranks", required_argument, 0, 'r'},
		{"function", required_argument, 0, 'f'},
		{"from", required_argument, 0, O_FROM},
		{"to", required_argument, 0, O_TO},
		{"force", no_argument, 0, O_FORCE},
		{"limit", required_argument, 0, 'n'},
		{"quiet", no_argument, 0, 'q'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	int c, have[2] = {0, 0};
	int64_t *win[2] = {&o->from, &o->to};

	uint32_t limit;

	while ((c = getopt_long(argc, argv, "r:f:n:qh", opts, NULL)) != -1) {
		switch (c) {
		case O_OTF2:
		case O_PERFETTO:
		case O_CHROME:
			if (*nwant == 3)
				return cli_usage_error("export ",
						       "three outputs at most");
			wants[*nwant].path = optarg;
			wants[*nwant].sink = c == O_OTF2 ? ex_sink_otf2
					     : c == O_PERFETTO
						     ? &ex_sink_perfetto
						     : &ex_sink_chrome;
			wants[*nwant].what = c == O_OTF2 ? "OTF2 archive"
					     : c == O_PERFETTO
						     ? "Perfetto trace"
						     : "Chrome JSON trace";
			if (!wants[*nwant].sink) {
				cli_error("--otf2: this rondo was built "
					  "without OTF2 (install "
					  "libopen-trace-format2-dev and "
					  "configure again)");
				return CLI_EXIT_FAIL;
			}
			(*nwant)++;
			break;
		case 'r': *ranks = optarg; break;
		case 'f': *funcs = optarg; break;
		case O_FROM:
		case O_TO:
			if (cli_parse_seconds(optarg, win[c == O_TO]) < 0)
				return cli_usage_error(
					"export ",
					"--%s: '%s' is not a time in seconds",
					c == O_TO ? "to" : "from", optarg);
			have[c == O_TO] = 1;
			break;
		case O_FORCE: o->force = 1; break;
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, &limit) < 0 ||
			    limit == 0)
				return cli_usage_error(
					"export ",
					"--limit: '%s' is not a number "
					"of calls",
					optarg);
			o->limit = limit;
			break;
		case 'q': *quiet = 1; break;
		case 'h': export_usage(stdout); return -1;
		default: return cli_usage_error("export ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("export ", "export takes one FILE");
	if (!*nwant)
		return cli_usage_error("export ",
				       "say what to write: --otf2 DIR, "
				       "--perfetto PATH or --chrome PATH");
	o->window = have[0] || have[1];
	if (!have[1])
		o->to = INT64_MAX;
	if (!have[0])
		o->from = INT64_MIN;
	if (o->window && o->from >= o->to)
		return cli_usage_error("export ",
				       "--from must come before --to");
	return CLI_EXIT_OK;
}

int cmd_export(int argc, char **argv)
{
	struct want wants[3];
	struct ex_opts o;
	const char *ranks = NULL, *funcs = NULL;
	struct util_ranks_run *runs = NULL;
	uint8_t *rsel = NULL, *fsel = NULL;
	int nwant = 0, quiet = 0, nruns = -1, rc;
	rondo_trace *t;

	memset(&o, 0, sizeof(o));
	rc = export_args(argc, argv, wants, &nwant, &o, &ranks, &funcs, &quiet);
	if (rc != CLI_EXIT_OK)
		return rc < 0 ? CLI_EXIT_OK : rc;
	if (ranks && (nruns = cli_ranks_parse(ranks, &runs)) < 0) {
		free(runs);
		return cli_usage_error("export ",
				       "--ranks: '%s' is not a rank list "
				       "(0-3,7,10-20:2)",
				       ranks);
	}
	t = o.window ? cli_open_timed(argv[optind], "export --from/--to")
		     : cli_open(argv[optind]);
	if (!t) {
		free(runs);
		return CLI_EXIT_FAIL;
	}
	rc = CLI_EXIT_FAIL;
	if (ranks && !(rsel = cli_ranks_select(t, argv[optind], runs, nruns)))
		goto out;
	if (funcs && !(fsel = cli_select_function(t, argv[optind], funcs)))
		goto out;
	o.ranks = rsel;
	o.sigs = fsel;
	o.progress = !quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	if (!quiet && ex_calls(t, &o) > EXPORT_LONG)
		fprintf(stderr,
			"rondo: export: %s has %" PRIu64 " calls to write, at "
			"about a microsecond each per format; --limit, "
			"--ranks, --function or --from/--to make a slice\n",
			argv[optind], ex_calls(t, &o));
	rc = CLI_EXIT_OK;
	for (int i = 0; i < nwant && rc == CLI_EXIT_OK; i++)
		rc = export_one(t, argv[optind], &o, &wants[i], quiet);
out:
	free(runs);
	free(rsel);
	free(fsel);
	rondo_trace_free(t);
	return rc;
}
