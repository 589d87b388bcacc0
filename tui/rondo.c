/*
 * rondo.c - the rondo command: dispatches to its subcommands.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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
	{"recover", cmd_recover, "[-o TRACE] SPILLS...",
	 "the trace of a job that ended early, from its ranks' spill files"},
	{"info", cmd_info, "FILE",
	 "summary of a trace: job, sizes, rank groups"},
	{"dump", cmd_dump, "[--rank R] [--grammar] FILE",
	 "calls in order, or the compressed form with --grammar"},
	{"view", cmd_view, "[--theme T] FILE",
	 "explore a trace in the terminal (rondo FILE does too)"},
	{"matrix", cmd_matrix,
	 "[--count|--bytes] [--csv PATH|-] [--wide] [--from T1] [--to T2] FILE",
	 "who sends how much to whom (point-to-point, collectives on request)"},
	{"stats", cmd_stats,
	 "[--by function|signature|rank] [--csv PATH|-] FILE",
	 "time in MPI per function, signature or rank (mpiP-like)"},
	{"contention", cmd_contention, "[--top N] [--csv PATH|-] FILE",
	 "time lost per signature against its fastest call, and imbalance"},
	{"skew", cmd_skew, "[--top N] [--comm C] [--csv PATH|-] FILE",
	 "how late the members of each collective arrive (per-call times)"},
	{"waits", cmd_waits, "[--top N] [--csv PATH|-] FILE",
	 "late senders and late receivers per pair of ranks (per-call times)"},
	{"export", cmd_export,
	 "--otf2 DIR|--perfetto PATH|--chrome PATH [--ranks L] [-f F] FILE",
	 "the trace for Vampir and OTF2 tools, Perfetto or Chrome"},
	{"diff", cmd_diff, "[--ignore buffers] [--csv PATH|-] A B",
	 "how two traces differ: calls, matrix, time (exit 1: they do)"},
	{"proxy", cmd_proxy, "[-o FILE.c] FILE",
	 "the trace as one C file that replays it (a proxy app)"},
	{"timeline", cmd_timeline,
	 "[--buckets N] [--from T1] [--to T2] [--csv PATH|-] FILE",
	 "each rank's share of time in MPI by time bucket (per-call times)"},
};

#define NCOMMANDS COUNTOF(commands)

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
	/* rondo FILE: the explorer, which says so when there is no
	 * terminal, as rondo view FILE does */
	if (argc == 2 && access(argv[1], F_OK) == 0)
		return cmd_view(argc, argv);
	return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
}
