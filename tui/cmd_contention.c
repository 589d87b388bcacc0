/*
 * cmd_contention.c - `rondo contention FILE`: the signatures whose calls
 * lose the most time against their fastest occurrence, and how unevenly
 * the ranks share that time (analyses/stats.h).
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
#define CONT_SIG_WIDTH 60

static void cont_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo contention [--sort imbalance|lost|ratio] [--top "
		"N]\n"
		"                        [--csv PATH|-] FILE\n\n"
		"Per signature, the time its calls lost against its fastest\n"
		"call (total - calls x fastest, over all ranks), that over "
		"the\n"
		"run time (the contention score) and over the aggregate run\n"
		"time, and the imbalance of its time across the ranks calling\n"
		"it: max/mean, the rank with the most and the rank with the\n"
		"least (for a collective, the late arriver waits least), and\n"
		"the time lost to imbalance: max - mean.\n"
		"--sort imbalance (max - mean, the default; without per-rank\n"
		"times, as lost), lost or ratio (max/mean); the first N\n"
		"signatures (default 10); --csv writes CSV\n"
		"(times in nanoseconds) to PATH, or to stdout with -, instead\n"
		"of text.\n");
}

/* Returns -1 to go on, or the exit status. */
static int cont_args(int argc, char **argv, uint32_t *top, const char **csv,
		     enum an_cont_order *order)
{
	static const struct option opts[] = {
		{"top", required_argument, 0, 'n'},
		{"csv", required_argument, 0, 'c'},
		{"sort", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	static const char *const orders[] = {"lost", "imbalance", "ratio"};
	int c, k;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			for (k = 0; k < 3 && strcmp(optarg, orders[k]); k++)
				;
			if (k == 3)
				return cli_usage_error(
					"contention ",
					"--sort '%s': lost, imbalance or ratio",
					optarg);
			*order = (enum an_cont_order)k;
			break;
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, top) < 0 ||
			    *top == 0)
				return cli_usage_error(
					"contention ",
					"--top '%s' "
					"is not a number of rows (1 or more)",
					optarg);
			break;
		case 'c': *csv = optarg; break;
		case 'h': return cont_usage(stdout), CLI_EXIT_OK;
		default: return cli_usage_error("contention ", "bad option");
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("contention ",
				       "contention takes one FILE");
	return -1;
}

/* The job, its run time and the time lost over every signature. */
static void cont_header(const rondo_trace *t, const struct an_totals *tot,
			uint64_t lost, int have_ranks)
{
	const char *prog = rondo_meta_get(t, "program");
	char run[24], in[24], mpi[24], prec[256];

	cli_duration(in, sizeof(in), (double)lost, 0);
	cli_duration(mpi, sizeof(mpi), (double)tot->mpi_ns, 0);
	printf("%s: %" PRIu32 " rank%s, ", prog ? prog : "?", tot->ranks,
	       tot->ranks == 1 ? "" : "s");
	if (tot->run_ns) {
		cli_duration(run, sizeof(run), (double)tot->run_ns, 0);
		printf("run time %s", run);
	} else {
		printf("run time unknown");
	}
	printf("; %s of the %s in MPI lost against each signature's fastest "
	       "call\n",
	       in, mpi);
	if (!have_ranks)
		printf("(no per-rank times in this trace: imbalance "
		       "unknown)\n");
	else
		printf("per-rank times: %s\n",
		       an_rank_precision(t, prec, sizeof(prec)));
	putchar('\n');
}

/* "0.0123", or "-" for a ratio unknown; with pc, as a percentage. */
static void cont_ratio(char *buf, size_t size, double v, int pc)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else if (pc)
		snprintf(buf, size, "%.2f%%", 100 * v);
	else
		snprintf(buf, size, "%.4f", v);
}

/* "rank ns" of one end of a signature's spread over the ranks. */
static void cont_rank(char *buf, size_t size, const struct an_contention *c,
		      uint32_t rank, uint64_t ns)
{
	char d[24];

	if (c->ranks == 0) {
		snprintf(buf, size, "%6s %10s", "-", "-");
		return;
	}
	cli_duration(d, sizeof(d), (double)ns, 0);
	snprintf(buf, size, "%6" PRIu32 " %10s", rank, d);
}

static void cont_row(const rondo_trace *t, const struct an_contention *c,
		     const struct an_totals *tot)
{
	char id[16], lost[24], fast[24], score[16], share[16], imb[16];
	char imb_ns[24];
	char hi[48], lo[48], sig[CONT_SIG_WIDTH + 1], calls[24];

	an_sig_text(t, c->sig, sig, sizeof(sig));
	snprintf(id, sizeof(id), "#%" PRIu32, c->sig);
	cli_duration(lost, sizeof(lost), (double)c->lost_ns, 0);
	cli_duration(fast, sizeof(fast), (double)c->min_ns, 0);
	cont_ratio(score, sizeof(score),
		   an_share((double)c->lost_ns, tot->run_ns), 0);
	cont_ratio(
		share, sizeof(share),
		an_share((double)c->lost_ns, sat_mul(tot->run_ns, tot->ranks)),
		1);
	if (c->ranks) {
		snprintf(imb, sizeof(imb), "%.2f", c->imbalance);
		cli_duration(imb_ns, sizeof(imb_ns), c->imbalance_ns, 0);
	} else {
		snprintf(imb, sizeof(imb), "-");
		snprintf(imb_ns, sizeof(imb_ns), "-");
	}
	cont_rank(hi, sizeof(hi), c, c->max_rank, c->max_rank_ns);
	cont_rank(lo, sizeof(lo), c, c->min_rank, c->min_rank_ns);
	printf("%6s %10s %8s %7s %12s %10s %10s %8s %s %s  %s\n", id, lost,
	       score, share, cli_count(calls, sizeof(calls), c->count), fast,
	       imb_ns, imb, hi, lo, sig);
}

/* The CSV to path ("-": stdout).  Returns the exit status. */
static int cont_csv(const rondo_trace *t, const char *path,
		    const struct an_contention *rows, uint32_t n,
		    const struct an_totals *tot)
{
	FILE *out = cli_csv_open(path);
	int rc;

	if (!out)
		return CLI_EXIT_FAIL;
	rc = an_contention_csv(t, rows, n, tot, out);
	for (uint32_t i = 0; i < n; i++)
		if (cli_sat(rows[i].count) || cli_sat(rows[i].total_ns))
			break;
	if (cli_csv_close(out, path, rc == RONDO_E_IO) != CLI_EXIT_OK)
		return CLI_EXIT_FAIL;
	if (rc < 0)
		cli_error("%s", rondo_strerror(rc));
	return rc < 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

int cmd_contention(int argc, char **argv)
{
	struct an_contention *rows;
	struct an_totals tot;
	const char *csv = NULL;
	uint32_t top = 10, n;
	uint64_t lost = 0;
	enum an_cont_order order = AN_CONT_IMBALANCE;
	rondo_trace *t;
	int rc = cont_args(argc, argv, &top, &csv, &order);

	if (rc >= 0)
		return rc;
	t = cli_open(argv[optind]);
	if (!t)
		return CLI_EXIT_FAIL;
	rc = an_contention(t, &rows, &n);
	if (rc < 0) {
		if (rc == RONDO_E_MISSING)
			cli_error("%s has no call statistics (no 'sigstats' "
				  "or 'stats' section)",
				  argv[optind]);
		else
			cli_error("%s: %s", argv[optind], rondo_strerror(rc));
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	an_totals(t, &tot);
	for (uint32_t i = 0; i < n; i++)
		lost = sat_add(lost, rows[i].lost_ns);
	an_contention_sort(rows, n, order);
	n = top < n ? top : n;
	rc = CLI_EXIT_OK;
	if (csv) {
		rc = cont_csv(t, csv, rows, n, &tot);
	} else {
		cont_header(t, &tot, lost, n == 0 || rows[0].ranks > 0);
		printf("%6s %10s %8s %7s %12s %10s %10s %8s %6s %10s %6s %10s  "
		       "%s\n",
		       "sig", "lost", "score", "lost%", "calls", "fastest",
		       "max-mean", "max/mean", "max@", "its time", "min@",
		       "its time", "signature");
		for (uint32_t i = 0; i < n; i++)
			cont_row(t, &rows[i], &tot);
	}
	if (rc == CLI_EXIT_OK)
		cli_saturated(csv != NULL);
	free(rows);
	rondo_trace_free(t);
	return rc;
}
