/*
 * cmd_diff.c - `rondo diff A B`: how two traces of the same program differ
 * (analyses/diff.h), as text or CSV.  Exits 0 when every rank's calls
 * and their parameters are the same, 1 when they differ (or a trace could
 * not be read: the message on stderr says which), 2 for a wrong command
 * line.  Times never decide the status: two runs never take the same
 * time; the report lists the changes past a threshold.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "gdiff.h"
#include "stats.h"

/* Text lines cut signatures to this many bytes. */
#define DIFF_SIG_WIDTH 200

struct diff_opts {
	struct an_diff_opts an;
	int no_times;
	double threshold; /* a relative change of time worth a line */
	uint32_t top;	  /* rows per section; 0: the default */
	const char *csv;
	const char *path[2];
	const rondo_trace *t[2];
	int groups; /* --groups: two ranks' groups of one trace */
	uint32_t grank[2];
};

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo diff [--ignore buffers|times] [--threshold PCT]\n"
		"                  [--top N] [--csv PATH|-] A.rondo B.rondo\n"
		"       rondo diff --groups R1,R2 FILE\n\n"
		"Compares two traces of the same program (before and after a\n"
		"change, or a program and its replay): each rank's calls, "
		"call\n"
		"by call (the first call that differs, per set of ranks), the\n"
		"calls per signature and per function on each rank, the\n"
		"point-to-point matrix (messages and bytes), and the time per\n"
		"signature and per rank where it changed by more than PCT %%\n"
		"(default 25).  Prints \"same communication\" and exits 0 "
		"when\n"
		"every rank's calls and their parameters are the same; exits "
		"1\n"
		"when they differ (or a trace cannot be read), 2 on a wrong\n"
		"command line.\n\n"
		"  --ignore buffers  leave buffers (segment, offset) and "
		"request\n"
		"                    ids out: they follow the order of the\n"
		"                    program's allocations\n"
		"  --ignore times    no time sections\n"
		"  --top N           N rows per section (text: 10, CSV: all)\n"
		"  --csv PATH|-      CSV rows section,item,ranks,a,b "
		"instead\n"
		"  --groups R1,R2    in one trace, where the calls of rank "
		"R1's\n"
		"                    group and rank R2's differ (why they "
		"are two\n"
		"                    groups): each stretch of calls that "
		"differs,\n"
		"                    where it is and what each side calls; "
		"exits\n"
		"                    0 when they are one group\n");
}

static int diff_ignore(const char *arg, struct diff_opts *o)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = 0;

	if (!copy)
		return -1;
	for (char *w = strtok_r(copy, ",", &save); w && rc == 0;
	     w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "buffers"))
			o->an.ignore_buffers = 1;
		else if (!strcmp(w, "times"))
			o->no_times = 1;
		else
			rc = -1;
	}
	free(copy);
	return rc;
}

/* Returns -1 to go on, or the exit status. */
/* "R1,R2": two ranks; 0 or -1. */
static int diff_two_ranks(const char *arg, uint32_t r[2])
{
	char first[32];
	const char *comma = strchr(arg, ',');

	if (!comma || (size_t)(comma - arg) >= sizeof(first))
		return -1;
	memcpy(first, arg, (size_t)(comma - arg));
	first[comma - arg] = '\0';
	return cli_parse_u32(first, UINT32_MAX - 1, &r[0]) < 0 ||
			       cli_parse_u32(comma + 1, UINT32_MAX - 1, &r[1]) <
				       0
		       ? -1
		       : 0;
}

static int diff_args(int argc, char **argv, struct diff_opts *o)
{
	static const struct option opts[] = {
		{"ignore", required_argument, 0, 'i'},
		{"threshold", required_argument, 0, 'T'},
		{"top", required_argument, 0, 'n'},
		{"csv", required_argument, 0, 'c'},
		{"groups", required_argument, 0, 'g'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	uint32_t pc;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (diff_ignore(optarg, o) < 0)
				return cli_usage_error(
					"diff ",
					"--ignore '%s': say buffers or times",
					optarg);
			break;
		case 'T':
			if (cli_parse_u32(optarg, 1000000, &pc) < 0)
				return cli_usage_error(
					"diff ",
					"--threshold '%s' is not a percentage",
					optarg);
			o->threshold = pc / 100.0;
			break;
		case 'n':
			if (cli_parse_u32(optarg, UINT32_MAX, &o->top) < 0 ||
			    o->top == 0)
				return cli_usage_error(
					"diff ",
					"--top '%s' is not a number of rows "
					"(1 or more)",
					optarg);
			break;
		case 'c': o->csv = optarg; break;
		case 'g':
			if (diff_two_ranks(optarg, o->grank) < 0)
				return cli_usage_error(
					"diff ",
					"--groups '%s': say two ranks, R1,R2",
					optarg);
			o->groups = 1;
			break;
		case 'h': return diff_usage(stdout), CLI_EXIT_OK;
		default: return cli_usage_error("diff ", "bad option");
		}
	}
	if (o->groups) {
		if (optind != argc - 1)
			return cli_usage_error("diff ",
					       "diff --groups takes one FILE");
		o->path[0] = argv[optind];
		return -1;
	}
	if (optind != argc - 2)
		return cli_usage_error("diff ", "diff takes two FILEs");
	o->path[0] = argv[optind];
	o->path[1] = argv[optind + 1];
	return -1;
}

/* ---- what to show ------------------------------------------------------- */

/* The signature text of key k, from the trace that has it: as `rank`
 * called it (absolute peers), or as stored (relative peers, for a set of
 * ranks) when rank is RONDO_RANK_NONE. */
/* The trace (0: A, 1: B) that has key k, A when both do. */
static int key_side(const struct an_diff *d, uint32_t k)
{
	return d->keys[k].sig[0] != AN_DIFF_NONE ? 0 : 1;
}

static void key_text(const struct diff_opts *o, const struct an_diff *d,
		     uint32_t k, uint32_t rank, char *buf, size_t size)
{
	uint32_t sig;
	int w, rc;

	if (k == AN_DIFF_NONE || k >= d->nkeys) {
		snprintf(buf, size, "(no call: the rank's calls end here)");
		return;
	}
	w = key_side(d, k);
	if (rank != RONDO_RANK_NONE && rank >= d->nranks[w]) {
		if (d->keys[k].sig[!w] != AN_DIFF_NONE && rank < d->nranks[!w])
			w = !w;
		else
			rank = RONDO_RANK_NONE;
	}
	sig = d->keys[k].sig[w];
	rc = rank == RONDO_RANK_NONE
		     ? rondo_sig_format(o->t[w], sig, buf, size)
		     : rondo_sig_format_rank(o->t[w], sig, rank, buf, size);
	if (rc < 0)
		snprintf(buf, size, "?");
}

/* The one rank of a list, or RONDO_RANK_NONE. */
static uint32_t one_rank(const uint32_t *ranks, uint32_t n)
{
	return n == 1 ? ranks[0] : RONDO_RANK_NONE;
}

/* A time change worth a line: past the threshold, relative to a, and
 * not nothing. */
static int time_moved(const struct diff_opts *o, double a, double b)
{
	if (a <= 0 && b <= 0)
		return 0;
	if (a <= 0)
		return 1;
	return fabs(b - a) / a > o->threshold && fabs(b - a) >= 1000;
}

/* Whether key k's mean time changed: both traces call it, its mean moved
 * past the threshold, and it weighs at least 1% of the MPI time. */
static int key_time_moved(const struct diff_opts *o, const struct an_diff *d,
			  uint32_t k, const double tot[2])
{
	const struct an_diff_key *x = &d->keys[k];
	double ma, mb, big = tot[0] > tot[1] ? tot[0] : tot[1];

	if (!x->count[0] || !x->count[1])
		return 0;
	ma = (double)x->total_ns[0] / (double)x->count[0];
	mb = (double)x->total_ns[1] / (double)x->count[1];
	return time_moved(o, ma, mb) &&
	       fabs((double)x->total_ns[1] - (double)x->total_ns[0]) >=
		       0.01 * big;
}

static void mpi_totals(const struct an_diff *d, double tot[2])
{
	tot[0] = tot[1] = 0;
	for (uint32_t k = 0; k < d->nkeys; k++)
		for (int w = 0; w < 2; w++)
			tot[w] += (double)d->keys[k].total_ns[w];
}

static uint32_t rank_rows(const struct an_diff *d)
{
	return d->nranks[0] < d->nranks[1] ? d->nranks[0] : d->nranks[1];
}

/* ---- text ---------------------------------------------------------------- */

static void text_ranks(const uint32_t *ranks, uint32_t n)
{
	char buf[160];

	util_put_ranks((buf[0] = 0, buf), sizeof(buf), ranks, n);
	printf("%s %s", n == 1 ? "rank" : "ranks", buf);
}

/* Prints a section's title once, before its first row; returns whether
 * the row is to be shown (rows past --top are counted in *more). */
static int text_row(const char *title, size_t *shown, uint32_t top,
		    size_t *more)
{
	if (*shown == 0)
		printf("\n%s\n", title);
	if (*shown >= top) {
		(*more)++;
		return 0;
	}
	(*shown)++;
	return 1;
}

static void text_more(size_t more)
{
	if (more)
		printf("  ... and %zu more (--top, --csv)\n", more);
}

static void text_seqs(const struct diff_opts *o, const struct an_diff *d,
		      uint32_t top)
{
	char sa[DIFF_SIG_WIDTH], sb[DIFF_SIG_WIDTH];
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < d->nseqs; i++) {
		const struct an_diff_calls *x = &d->seqs[i];

		if (!text_row("calls (the first call that differs):", &shown,
			      top, &more))
			continue;
		printf("  ");
		text_ranks(x->ranks, x->nranks);
		printf(": call %" PRIu64 " of %" PRIu64, x->at, x->calls[0]);
		if (x->calls[1] != x->calls[0])
			printf(" (B: %" PRIu64 ")", x->calls[1]);
		key_text(o, d, x->key[0], one_rank(x->ranks, x->nranks), sa,
			 sizeof(sa));
		key_text(o, d, x->key[1], one_rank(x->ranks, x->nranks), sb,
			 sizeof(sb));
		printf("\n    A: %s\n    B: %s\n", sa, sb);
	}
	text_more(more);
}

static void text_counts(const struct diff_opts *o, const struct an_diff *d,
			int funcs, uint32_t top)
{
	const struct an_diff_count *v = funcs ? d->fcounts : d->sigs;
	size_t n = funcs ? d->nfcounts : d->nsigs, shown = 0, more = 0;
	char s[DIFF_SIG_WIDTH];

	for (size_t i = 0; i < n; i++) {
		if (!text_row(funcs ? "calls per function and rank:"
				    : "calls per signature and rank:",
			      &shown, top, &more))
			continue;
		if (funcs)
			snprintf(s, sizeof(s), "%s", d->funcs[v[i].id]);
		else
			key_text(o, d, v[i].id,
				 one_rank(v[i].ranks, v[i].nranks), s,
				 sizeof(s));
		printf("  %s\n    A %" PRIu64 ", B %" PRIu64 " on ", s,
		       v[i].n[0], v[i].n[1]);
		text_ranks(v[i].ranks, v[i].nranks);
		putchar('\n');
	}
	text_more(more);
}

static void text_matrix(const struct an_diff *d, uint32_t top)
{
	size_t shown = 0, more = 0;
	char ba[24], bb[24];

	for (size_t i = 0; i < d->ncells; i++) {
		const struct an_diff_cell *x = &d->cells[i];

		if (!text_row("matrix (point-to-point cells that differ):",
			      &shown, top, &more))
			continue;
		cli_scaled(ba, sizeof(ba), "", (double)x->bytes[0],
			   CLI_UNIT_BYTES);
		cli_scaled(bb, sizeof(bb), "", (double)x->bytes[1],
			   CLI_UNIT_BYTES);
		printf("  %" PRIu32 " -> %" PRIu32 ": A %" PRIu64
		       " messages, %s; B %" PRIu64 " messages, %s\n",
		       x->src, x->dst, x->msgs[0], ba, x->msgs[1], bb);
	}
	text_more(more);
}

static void text_change(double a, double b)
{
	char da[24], db[24];

	cli_duration(da, sizeof(da), a, 0);
	cli_duration(db, sizeof(db), b, 0);
	printf("A %s, B %s", da, db);
	if (a > 0)
		printf(" (%+.0f%%)", 100 * (b - a) / a);
	putchar('\n');
}

static void text_times(const struct diff_opts *o, const struct an_diff *d,
		       uint32_t top)
{
	char title[96], s[DIFF_SIG_WIDTH];
	size_t shown = 0, more = 0;
	double tot[2];

	mpi_totals(d, tot);
	snprintf(title, sizeof(title),
		 "time (mean per call, changed by more than %.0f%%):",
		 100 * o->threshold);
	for (uint32_t k = 0; k < d->nkeys; k++) {
		const struct an_diff_key *x = &d->keys[k];

		if (!key_time_moved(o, d, k, tot) ||
		    !text_row(title, &shown, top, &more))
			continue;
		key_text(o, d, k, RONDO_RANK_NONE, s, sizeof(s));
		printf("  %s\n    ", s);
		text_change((double)x->total_ns[0] / (double)x->count[0],
			    (double)x->total_ns[1] / (double)x->count[1]);
	}
	text_more(more);
	shown = more = 0;
	snprintf(title, sizeof(title),
		 "time per rank (in MPI, changed by more than %.0f%%):",
		 100 * o->threshold);
	for (uint32_t r = 0; d->rank_ns[0] && r < rank_rows(d); r++) {
		double a = (double)d->rank_ns[0][r],
		       b = (double)d->rank_ns[1][r];

		if (!time_moved(o, a, b) ||
		    !text_row(title, &shown, top, &more))
			continue;
		printf("  rank %" PRIu32 ": ", r);
		text_change(a, b);
	}
	text_more(more);
}

static void text_header(const struct diff_opts *o, const struct an_diff *d)
{
	for (int w = 0; w < 2; w++) {
		const char *prog = rondo_meta_get(o->t[w], "program");

		printf("%c: %s, %" PRIu32 " rank%s, %" PRIu64 " calls (%s)\n",
		       'A' + w, prog ? prog : "?", d->nranks[w],
		       d->nranks[w] == 1 ? "" : "s", d->calls[w], o->path[w]);
	}
	if (o->an.ignore_buffers)
		printf("buffers and request ids not compared\n");
}

static void text_verdict(const struct an_diff *d)
{
	uint32_t n = 0;

	for (size_t i = 0; i < d->nseqs; i++)
		n += d->seqs[i].nranks;
	putchar('\n');
	if (d->same) {
		printf("same communication\n");
		return;
	}
	printf("different communication:");
	if (d->nranks[0] != d->nranks[1])
		printf(" A has %" PRIu32 " ranks, B %" PRIu32 ";", d->nranks[0],
		       d->nranks[1]);
	printf(" the calls of %" PRIu32 " rank%s differ\n", n,
	       n == 1 ? "" : "s");
}

static void diff_text(const struct diff_opts *o, const struct an_diff *d)
{
	uint32_t top = o->top ? o->top : 10;

	text_header(o, d);
	text_seqs(o, d, top);
	text_counts(o, d, 0, top);
	text_counts(o, d, 1, top);
	if (!d->matrix && d->nranks[0] != d->nranks[1])
		printf("\nmatrix not compared: the rank counts differ\n");
	text_matrix(d, top);
	if (!o->no_times)
		text_times(o, d, top);
	text_verdict(d);
}

/* ---- CSV ----------------------------------------------------------------- */

static void csv_key(FILE *out, const struct diff_opts *o,
		    const struct an_diff *d, uint32_t k)
{
	int w;

	if (k == AN_DIFF_NONE || k >= d->nkeys)
		return;
	w = key_side(d, k);
	an_csv_sig(o->t[w], d->keys[k].sig[w], out);
}

static void csv_ranks(FILE *out, const uint32_t *ranks, uint32_t n)
{
	size_t size = (size_t)n * 24 + 1;
	char *buf = malloc(size);

	if (!buf)
		return;
	buf[0] = 0;
	util_put_ranks(buf, size, ranks, n);
	an_csv_text(out, buf);
	free(buf);
}

static void csv_rows(FILE *out, const struct diff_opts *o,
		     const struct an_diff *d)
{
	for (size_t i = 0; i < d->nseqs; i++) {
		const struct an_diff_calls *x = &d->seqs[i];

		fprintf(out, "calls,%" PRIu64 ",", x->at);
		csv_ranks(out, x->ranks, x->nranks);
		putc(',', out);
		csv_key(out, o, d, x->key[0]);
		putc(',', out);
		csv_key(out, o, d, x->key[1]);
		putc('\n', out);
	}
	for (int f = 0; f < 2; f++)
		for (size_t i = 0; i < (f ? d->nfcounts : d->nsigs); i++) {
			const struct an_diff_count *x =
				f ? &d->fcounts[i] : &d->sigs[i];

			fputs(f ? "function," : "signature,", out);
			if (f)
				an_csv_text(out, d->funcs[x->id]);
			else
				csv_key(out, o, d, x->id);
			putc(',', out);
			csv_ranks(out, x->ranks, x->nranks);
			fprintf(out, ",%" PRIu64 ",%" PRIu64 "\n", x->n[0],
				x->n[1]);
		}
	for (size_t i = 0; i < d->ncells; i++) {
		const struct an_diff_cell *x = &d->cells[i];

		fprintf(out,
			"messages,%" PRIu32 "->%" PRIu32 ",,%" PRIu64
			",%" PRIu64 "\nbytes,%" PRIu32 "->%" PRIu32 ",,%" PRIu64
			",%" PRIu64 "\n",
			x->src, x->dst, x->msgs[0], x->msgs[1], x->src, x->dst,
			x->bytes[0], x->bytes[1]);
	}
}

static void csv_times(FILE *out, const struct diff_opts *o,
		      const struct an_diff *d)
{
	double tot[2];

	mpi_totals(d, tot);
	for (uint32_t k = 0; k < d->nkeys; k++) {
		const struct an_diff_key *x = &d->keys[k];

		if (!key_time_moved(o, d, k, tot))
			continue;
		fputs("time_mean_ns,", out);
		csv_key(out, o, d, k);
		fprintf(out, ",,%.0f,%.0f\n",
			(double)x->total_ns[0] / (double)x->count[0],
			(double)x->total_ns[1] / (double)x->count[1]);
	}
	for (uint32_t r = 0; d->rank_ns[0] && r < rank_rows(d); r++)
		if (time_moved(o, (double)d->rank_ns[0][r],
			       (double)d->rank_ns[1][r]))
			fprintf(out,
				"rank_time_ns,%" PRIu32 ",%" PRIu32 ",%" PRIu64
				",%" PRIu64 "\n",
				r, r, d->rank_ns[0][r], d->rank_ns[1][r]);
}

static int diff_csv(const struct diff_opts *o, const struct an_diff *d)
{
	FILE *out = cli_csv_open(o->csv);

	if (!out)
		return CLI_EXIT_FAIL;
	fprintf(out, "section,item,ranks,a,b\n");
	fprintf(out, "ranks,,,%" PRIu32 ",%" PRIu32 "\n", d->nranks[0],
		d->nranks[1]);
	csv_rows(out, o, d);
	if (!o->no_times)
		csv_times(out, o, d);
	fprintf(out, "verdict,%s,,,\n",
		d->same ? "same communication" : "different communication");
	return cli_csv_close(out, o->csv, ferror(out));
}

/* ---- two groups of one trace ---------------------------------------------- */

/* Lines of one side of a stretch shown at most. */
#define GDIFF_LINES 12

static void gdiff_side(const rondo_trace *t, const struct an_gdiff_hunk *h,
		       int s, uint32_t rank, char **buf, size_t *size)
{
	for (uint32_t k = 0; k < h->nsym[s] && k < GDIFF_LINES; k++) {
		int n = an_sym_text(t, &h->sym[s][k], rank, 0, *buf, *size);

		if (n >= 0 && (size_t)n >= *size) {
			char *grown = realloc(*buf, (size_t)n + 1);

			if (grown) {
				*buf = grown;
				*size = (size_t)n + 1;
				an_sym_text(t, &h->sym[s][k], rank, 0, *buf,
					    *size);
			}
		}
		printf("%c %s\n", s ? '>' : '<', n < 0 ? "?" : *buf);
	}
	if (h->nsym[s] > GDIFF_LINES)
		printf("%c ... and %" PRIu32 " more\n", s ? '>' : '<',
		       h->nsym[s] - GDIFF_LINES);
}

static int diff_groups(const struct diff_opts *o)
{
	rondo_trace *t = cli_open(o->path[0]);
	uint32_t g[2], rank[2];
	char name[2][300], *buf = NULL;
	size_t size = 0;
	struct an_gdiff d;
	int rc;

	if (!t)
		return CLI_EXIT_FAIL;
	for (int s = 0; s < 2; s++) {
		g[s] = rondo_rank_group(t, o->grank[s]);
		if (g[s] == UINT32_MAX) {
			cli_error("--groups: %s has no rank %" PRIu32
				  " (ranks 0-%" PRIu32 ")",
				  o->path[0], o->grank[s],
				  rondo_rank_count(t) - 1);
			rondo_trace_free(t);
			return CLI_EXIT_FAIL;
		}
		an_group_name(t, g[s], name[s], sizeof(name[s]));
		/* a side's calls as its first rank made them */
		rondo_group_ranks(t, g[s], &rank[s], 1);
	}
	if (g[0] == g[1]) {
		printf("ranks %" PRIu32 " and %" PRIu32
		       " are one group, %s: the same calls\n",
		       o->grank[0], o->grank[1], name[0]);
		rondo_trace_free(t);
		return CLI_EXIT_OK;
	}
	rc = an_gdiff(t, g[0], g[1], &d);
	if (rc < 0) {
		cli_error("cannot compare the groups: %s", rondo_strerror(rc));
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	printf("< %s: %" PRIu64 " calls a rank\n> %s: %" PRIu64
	       " calls a rank\n",
	       name[0], rondo_rank_calls(t, rank[0]), name[1],
	       rondo_rank_calls(t, rank[1]));
	printf("%" PRIu32 "%s stretch%s of calls differ%s (call: its index "
	       "from 0 among the rank's calls, the first time it runs)\n",
	       d.n, d.more ? "+" : "", d.n == 1 ? "" : "es",
	       d.n == 1 ? "s" : "");
	for (uint32_t k = 0; k < d.n; k++) {
		an_gdiff_where(t, &d.hunk[k], rank, 0, name[0],
			       sizeof(name[0]));
		printf("@ %s\n", name[0]);
		for (int s = 0; s < 2; s++)
			gdiff_side(t, &d.hunk[k], s, rank[s], &buf, &size);
	}
	if (d.more)
		printf("... more than %d stretches: the rest not shown\n",
		       AN_GDIFF_MAX);
	rc = d.n || d.more ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	free(buf);
	an_gdiff_free(&d);
	rondo_trace_free(t);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o = {.threshold = 0.25};
	rondo_trace *t[2] = {NULL, NULL};
	struct an_diff d;
	int rc = diff_args(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.groups)
		return diff_groups(&o);
	t[0] = cli_open(o.path[0]);
	t[1] = t[0] ? cli_open(o.path[1]) : NULL;
	if (!t[1]) {
		rondo_trace_free(t[0]);
		return CLI_EXIT_FAIL;
	}
	o.t[0] = t[0];
	o.t[1] = t[1];
	rc = an_diff(t[0], t[1], &o.an, &d);
	if (rc < 0) {
		cli_error("cannot compare %s and %s: %s", o.path[0], o.path[1],
			  rondo_strerror(rc));
		rc = CLI_EXIT_FAIL;
	} else if (o.csv) {
		rc = diff_csv(&o, &d);
		if (rc == CLI_EXIT_OK && !d.same)
			rc = CLI_EXIT_FAIL;
	} else {
		diff_text(&o, &d);
		rc = d.same ? CLI_EXIT_OK : CLI_EXIT_FAIL;
	}
	an_diff_free(&d);
	rondo_trace_free(t[0]);
	rondo_trace_free(t[1]);
	return rc;
}
