/*
 * cmd_proxy.c - `rondo proxy TRACE -o FILE.c`: the trace as one C file
 * that replays it (a proxy app), to compile with mpicc and run anywhere.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#ifdef HAVE_PROXY
#include "proxy_gen.h"
#endif

/* The status for a trace that cannot be replayed, as rondo-replay's. */
#define EXIT_NOREPLAY 3

static void usage(FILE *f)
{
	fprintf(f, "Usage: rondo proxy [-o FILE.c] TRACE\n"
		   "Write TRACE as one C file that replays its MPI calls (a "
		   "proxy app):\n"
		   "  mpicc FILE.c -o app_proxy && mpirun -np P ./app_proxy\n"
		   "\n"
		   "  -o, --output FILE.c  where to write it (default: the "
		   "trace's name\n"
		   "                       with _proxy.c for .rondo; - for "
		   "standard output)\n"
		   "\n"
		   "Exit status: 0 written, 1 TRACE unreadable or FILE.c "
		   "unwritable,\n"
		   "2 usage error, 3 TRACE cannot be replayed (as "
		   "rondo-replay's).\n");
}

int cmd_proxy(int argc, char **argv)
{
	static const struct option longs[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *outpath = NULL;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:h", longs, NULL)) != -1) {
		switch (opt) {
		case 'o': outpath = optarg; break;
		case 'h': usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("proxy ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("proxy ", "%s",
				       optind >= argc ? "no trace given"
						      : "one trace only");
#ifndef HAVE_PROXY
	(void)outpath;
	cli_error("proxy: this rondo was built without MPI (configure found "
		  "no mpicc): the proxy's calls are generated from mpi.h");
	return CLI_EXIT_FAIL;
#else
	const char *path = argv[optind];
	char *def = NULL;
	struct rp_proxy_report rep;
	rondo_trace *t = cli_open(path);
	FILE *f;
	int r;

	if (!t)
		return CLI_EXIT_FAIL;
	if (!outpath) {
		size_t n = strlen(path);
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		n = strlen(base);
		if (n > 6 && !strcmp(base + n - 6, ".rondo"))
			n -= 6;
		def = malloc(n + sizeof "_proxy.c");
		if (!def) {
			rondo_trace_free(t);
			cli_error("out of memory");
			return CLI_EXIT_FAIL;
		}
		memcpy(def, base, n);
		strcpy(def + n, "_proxy.c");
		outpath = def;
	}
	r = rp_proxy_write(t, path, NULL, &rep);
	if (r != 0) {
		if (r == RP_PROXY_NOREPLAY)
			cli_error("proxy: %s: %s", path, rep.why);
		else
			cli_error("proxy: %s: %s", path, rondo_strerror(r));
		free(def);
		rondo_trace_free(t);
		return r == RP_PROXY_NOREPLAY ? EXIT_NOREPLAY : CLI_EXIT_FAIL;
	}
	f = cli_csv_open(outpath);
	if (!f) {
		free(def);
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	r = rp_proxy_write(t, path, f, &rep);
	/* cli_csv_close says what was not written, and removes it */
	if (cli_csv_close(f, outpath, r != 0 || ferror(f)) != CLI_EXIT_OK)
		r = RONDO_E_IO;
	else
		fprintf(stderr,
			"rondo: wrote %s: %u rule%s, %u call signatures of %u "
			"functions, %u rank group%s; %llu wildcard receive%s "
			"posted as matched, %llu read ahead at run time%s\n",
			outpath, rep.rules, rep.rules == 1 ? "" : "s", rep.sigs,
			rep.funcs, rep.groups, rep.groups == 1 ? "" : "s",
			(unsigned long long)rep.wild_matched,
			rep.wild_matched == 1 ? "" : "s",
			(unsigned long long)rep.wild_ahead,
			!rep.merged	  ? ""
			: rep.merged_kept ? "; merged loops run their kept "
					    "counts (the proxy reads ahead, "
					    "its draws could not follow)"
					  : "; merged loops' counts and sends' "
					    "sizes drawn from their "
					    "histograms (--seed)");
	free(def);
	rondo_trace_free(t);
	return r == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
#endif
}
