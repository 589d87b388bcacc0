/*
 * cmd_dump.c - `rondo dump`: the calls of each rank in order, or with
 * --grammar the compressed form itself (signatures, rules, rank groups).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: rondo dump [--rank R] [--grammar] FILE\n\n"
		   "Without options, prints every rank's calls in order, one\n"
		   "per line: rank, index, the call with its inputs, then\n"
		   "after \"->\" its outputs; ranks are absolute.\n\n"
		   "  -r, --rank R    only rank R\n"
		   "  -g, --grammar   print the compressed form instead: the\n"
		   "                  signature table, the rules (symbols with\n"
		   "                  repeat counts) and the rank groups\n"
		   "  -h, --help      this text\n");
}

/* Formats signature `sig` as `rank` made it (ranks absolute), or with
 * ranks relative for rank UINT32_MAX, into a buffer grown as needed. */
static char *dump_sig(const rondo_trace *t, uint32_t sig, uint32_t rank,
		      char **buf, size_t *size)
{
	for (int pass = 0; pass < 2; pass++) {
		int n = rank == UINT32_MAX
				? rondo_sig_format(t, sig, *buf, *size)
				: rondo_sig_format_rank(t, sig, rank, *buf,
							*size);
		char *p;

		if (n < 0 || (size_t)n < *size)
			break;
		p = realloc(*buf, (size_t)n + 1);
		if (!p)
			break; /* the text stays cut */
		*buf = p;
		*size = (size_t)n + 1;
	}
	return *buf;
}

static int dump_rank(const rondo_trace *t, uint32_t rank, char **buf,
		     size_t *size)
{
	rondo_iter *it = rondo_iter_create(t, rank);
	uint32_t sig;
	int rc;

	if (!it) {
		cli_error("rank %" PRIu32 ": out of memory", rank);
		return CLI_EXIT_FAIL;
	}
	while ((rc = rondo_iter_next(it, &sig)) == 1)
		printf("%" PRIu32 " %" PRIu64 " %s\n", rank,
		       rondo_iter_position(it) - 1,
		       dump_sig(t, sig, rank, buf, size));
	rondo_iter_free(it);
	if (rc < 0) {
		cli_error("rank %" PRIu32 ": %s", rank, rondo_strerror(rc));
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static void dump_symbol(const rondo_sym *s)
{
	if (RONDO_SYM_IS_RULE(s->sym))
		printf(" R%" PRIu32, RONDO_SYM_ID(s->sym));
	else
		printf(" s%" PRIu32, s->sym);
	if (s->count > 1)
		printf("^%" PRIu64, s->count);
}

static void dump_grammar(const rondo_trace *t, char **buf, size_t *size)
{
	char ranks[256];

	printf("signatures:\n");
	for (uint32_t s = 0; s < rondo_sig_count(t); s++)
		printf("  s%-5" PRIu32 " %s\n", s,
		       dump_sig(t, s, UINT32_MAX, buf, size));
	printf("rules:\n");
	for (uint32_t r = 0; r < rondo_rule_count(t); r++) {
		const rondo_sym *body;
		uint32_t len;

		rondo_rule_body(t, r, &body, &len);
		printf("  R%-5" PRIu32 " (%" PRIu64 " calls) ->", r,
		       rondo_rule_calls(t, r));
		for (uint32_t i = 0; i < len; i++)
			dump_symbol(&body[i]);
		printf("\n");
	}
	printf("rank groups:\n");
	for (uint32_t g = 0; g < rondo_group_count(t); g++) {
		int n = rondo_group_format(t, g, ranks, sizeof(ranks));

		printf("  ranks %s%s -> R%" PRIu32 "\n", ranks,
		       n >= (int)sizeof(ranks) ? "..." : "",
		       rondo_group_root(t, g));
	}
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{"rank", required_argument, 0, 'r'},
		{"grammar", no_argument, 0, 'g'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	const char *rank_arg = NULL;
	int grammar = 0, c, rc = CLI_EXIT_OK;
	rondo_trace *t;
	uint32_t rank;
	size_t size = 256;
	char *buf;

	while ((c = getopt_long(argc, argv, "r:gh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rank_arg = optarg; break;
		case 'g': grammar = 1; break;
		case 'h': dump_usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("dump ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("dump ", "dump takes one FILE");
	if (rank_arg && cli_parse_u32(rank_arg, UINT32_MAX, &rank) < 0)
		return cli_usage_error("dump ", "--rank: '%s' is not a rank",
				       rank_arg);
	t = cli_open(argv[optind]);
	if (!t)
		return CLI_EXIT_FAIL;
	buf = malloc(size);
	if (!buf) {
		cli_error("out of memory");
		rc = CLI_EXIT_FAIL;
	} else if (rank_arg && rank >= rondo_rank_count(t)) {
		cli_error("--rank %" PRIu32 ": %s has ranks 0 to %" PRIu32,
			  rank, argv[optind], rondo_rank_count(t) - 1);
		rc = CLI_EXIT_FAIL;
	} else if (grammar) {
		dump_grammar(t, &buf, &size);
	} else if (rank_arg) {
		rc = dump_rank(t, rank, &buf, &size);
	} else {
		for (uint32_t r = 0; r < rondo_rank_count(t) && !rc; r++)
			rc = dump_rank(t, r, &buf, &size);
	}
	free(buf);
	rondo_trace_free(t);
	return rc;
}
