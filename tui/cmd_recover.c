/*
 * cmd_recover.c - `rondo recover [-o TRACE] SPILLS...`: the trace of a job
 * that did not end in MPI_Finalize, from the spill files its ranks kept,
 * and the calls made after MPI_Finalize added to the trace from the
 * ranks' after files (recover/recover.h does the work).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "recover.h"

static void recover_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo recover [-o TRACE] SPILLS...\n\n"
		"Makes the trace of a job that ended before MPI_Finalize wrote "
		"it\n"
		"(killed, aborted, crashed) from the spill files its ranks "
		"kept:\n"
		"a folder APP-DATE-TIME.spill, or rank-N.spill files.  The "
		"ranks\n"
		"are merged as at MPI_Finalize; the trace says how each "
		"ended.\n"
		"The calls ranks made after MPI_Finalize (MPI_Finalized, "
		"...) are\n"
		"in rank-N.after files in the same folder: with spill files, "
		"they\n"
		"end the trace made; alone, they are added to the trace "
		"MPI_Finalize\n"
		"wrote (TRACE, replaced), once.\n\n"
		"  -o, --output PATH   the trace (default: the folder's name "
		"with\n"
		"                      .rondo for .spill, beside it)\n"
		"  -h, --help          this text\n");
}

static void say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "rondo: %s\n", line);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	char out[4096] = "", why[1024];
	int c;

	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': snprintf(out, sizeof(out), "%s", optarg); break;
		case 'h': recover_usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("recover ", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("recover ",
				       "recover needs the spill folder or "
				       "files");
	if (!out[0] && recover_default_out(argv[optind], out, sizeof(out)))
		return cli_usage_error("recover ",
				       "-o is needed: '%s' is not a folder "
				       "named *.spill",
				       argv[optind]);
	if (recover_run((const char *const *)argv + optind, argc - optind, out,
			say, NULL, why, sizeof(why)) != 0) {
		cli_error("cannot recover: %s", why);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}
