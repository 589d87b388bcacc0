/*
 * cmd_matrix.c - `rondo matrix`: who sends how many messages and bytes to
 * whom, computed from the grammar's rule multiplicities (analyses/matrix.c),
 * as a table or as CSV.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "matrix.h"
#include "sat.h"

static void matrix_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo matrix [OPTIONS] FILE\n\n"
		"The communication matrix: for every pair of MPI_COMM_WORLD\n"
		"ranks, the messages and bytes the first sent to the second.\n"
		"Point-to-point sends are counted at the sender, bytes as "
		"count\n"
		"times the datatype's size; computed from the compressed "
		"trace.\n\n"
		"  -c, --count         show messages (the default)\n"
		"  -b, --bytes         show bytes\n"
		"      --csv PATH      write CSV to PATH (- for standard "
		"output):\n"
		"                      src,dst,messages,bytes, one row per "
		"pair\n"
		"                      that communicated\n"
		"      --wide          with --csv, the square form instead: a\n"
		"                      row per sender, a column per receiver\n"
		"      --collectives   add collectives: what each rank\n"
		"                      contributes to each other member\n"
		"      --only-collectives  collectives without point-to-point\n"
		"      --comm C        only calls on communicator C: world,\n"
		"                      self, or an id as rondo dump prints it "
		"(c3)\n"
		"  -f, --function NAME only calls of this function "
		"(MPI_Isend)\n"
		"      --tag T         only point-to-point messages with tag "
		"T\n"
		"      --method M      grammar (the default: rule "
		"multiplicities)\n"
		"                      or walk (every call decoded, for "
		"checking)\n"
		"      --from T1       only calls starting at T1 or later, in\n"
		"      --to T2         seconds since the job's time origin, "
		"and\n"
		"                      before T2 (a trace with per-call "
		"times;\n"
		"                      every call decoded)\n"
		"  -h, --help          this text\n");
}

/* A number with a unit suffix for the table: 950, 12.3k, 4.56M; a
 * total that stopped at 2^64 - 1 as a lower bound. */
static void human(char *buf, size_t size, uint64_t v)
{
	if (cli_sat(v))
		cli_count(buf, size, v);
	else
		cli_scaled(buf, size, "", (double)v, CLI_UNIT_NONE);
}

/* The largest pairs first, for a job too large for a square. */
static const uint64_t *sort_key;
static int by_key(const void *a, const void *b)
{
	uint64_t x = sort_key[*(const size_t *)a],
		 y = sort_key[*(const size_t *)b];

	return x < y ? 1 : x > y ? -1 : 0;
}

static int print_table(const struct an_matrix *m, int bytes)
{
	const uint64_t *v = bytes ? m->bytes : m->msgs;
	uint64_t msgs = 0, nbytes = 0;
	size_t n = m->n, cells = 0;
	char a[32], b[32];

	for (size_t i = 0; i < n * n; i++) {
		msgs = sat_add(msgs, m->msgs[i]);
		nbytes = sat_add(nbytes, m->bytes[i]);
		cells += m->msgs[i] || m->bytes[i];
	}
	human(a, sizeof(a), msgs);
	human(b, sizeof(b), nbytes);
	printf("%zu ranks, %s messages, %s bytes, %zu pairs communicating\n", n,
	       a, b, cells);
	if (n <= 16) {
		printf("\n%s sent (row: sender, column: receiver)\n",
		       bytes ? "bytes" : "messages");
		printf("%6s", "");
		for (size_t j = 0; j < n; j++)
			printf(" %6zu", j);
		putchar('\n');
		for (size_t i = 0; i < n; i++) {
			printf("%6zu", i);
			for (size_t j = 0; j < n; j++) {
				human(a, sizeof(a), v[i * n + j]);
				printf(" %6s", v[i * n + j] ? a : ".");
			}
			putchar('\n');
		}
	} else if (cells) {
		size_t *idx = malloc(sizeof(*idx) * cells), k = 0, top;

		if (!idx) {
			cli_error("out of memory");
			return CLI_EXIT_FAIL;
		}
		for (size_t i = 0; i < n * n; i++)
			if (m->msgs[i] || m->bytes[i])
				idx[k++] = i;
		sort_key = v;
		qsort(idx, cells, sizeof(*idx), by_key);
		top = cells < 20 ? cells : 20;
		printf("\nthe %zu pairs with the most %s (--csv for all)\n",
		       top, bytes ? "bytes" : "messages");
		printf("%8s %8s %10s %10s\n", "src", "dst", "messages",
		       "bytes");
		for (k = 0; k < top; k++) {
			human(a, sizeof(a), m->msgs[idx[k]]);
			human(b, sizeof(b), m->bytes[idx[k]]);
			printf("%8zu %8zu %10s %10s\n", idx[k] / n, idx[k] % n,
			       a, b);
		}
		free(idx);
	}
	return CLI_EXIT_OK;
}

/* What was left out of the cells, on stderr (not in the CSV), whether
 * totals stopped at 2^64 - 1, and what a precision merged. */
static void notes(const rondo_trace *t, const struct an_matrix *m, int csv)
{
	char num[24];
	struct an_merged mg;
	uint32_t p = an_merged(t, &mg);

	if (m->proc_null)
		cli_error("%s sends to MPI_PROC_NULL not counted",
			  cli_count(num, sizeof(num), m->proc_null));
	if (m->unresolved)
		cli_error("%s messages whose peer the trace does not resolve "
			  "not counted",
			  cli_count(num, sizeof(num), m->unresolved));
	if (m->nosize)
		cli_error("%s messages of a datatype of unknown size counted "
			  "with 0 bytes",
			  cli_count(num, sizeof(num), m->nosize));
	if (mg.loops || mg.sizes)
		cli_error("traced at precision %" PRIu32 "%%: %s counted at "
			  "their calls' exact means, so totals are the "
			  "program's, and each pair's within %" PRIu32 "%%",
			  p,
			  mg.loops && mg.sizes ? "merged loops and sizes"
			  : mg.loops	       ? "merged loops"
					       : "merged sizes",
			  100 - p);
	if (mg.peers)
		cli_error("traced at precision %" PRIu32 "%% with peers "
			  "merged: %" PRIu32 " merged peer%s counted at the "
			  "peer written for them, so a pair's figures are not "
			  "the program's; the totals are",
			  p, mg.peers, mg.peers == 1 ? "" : "s");
	cli_untimed(m->untimed);
	if (m->edge_in || m->edge_out) {
		uint64_t total = 0;
		char lo[24], hi[24];

		for (size_t i = 0; i < (size_t)m->n * m->n; i++)
			total = sat_add(total, m->msgs[i]);
		cli_count(lo, sizeof(lo), total - m->edge_in);
		cli_count(hi, sizeof(hi), sat_add(total, m->edge_out));
		/* starts are never early: a call read inside may have
		 * started before the window, one read after it inside */
		cli_error(
			"window edges: %s to %s messages: %" PRIu64
			" counted may have started before the window, %" PRIu64
			" left out inside it (their starts' error bounds "
			"reach across an edge; a smaller base narrows them)",
			lo, hi, m->edge_in, m->edge_out);
	}
	for (size_t i = 0; csv && i < (size_t)m->n * m->n; i++)
		if (cli_sat(m->msgs[i]) || cli_sat(m->bytes[i]))
			break;
	cli_saturated(csv);
}

int cmd_matrix(int argc, char **argv)
{
	enum {
		O_CSV = 256,
		O_WIDE,
		O_COLL,
		O_ONLY,
		O_COMM,
		O_TAG,
		O_METHOD,
		O_FROM,
		O_TO
	};
	static const struct option opts[] = {
		{"count", no_argument, 0, 'c'},
		{"bytes", no_argument, 0, 'b'},
		{"csv", required_argument, 0, O_CSV},
		{"wide", no_argument, 0, O_WIDE},
		{"collectives", no_argument, 0, O_COLL},
		{"only-collectives", no_argument, 0, O_ONLY},
		{"comm", required_argument, 0, O_COMM},
		{"function", required_argument, 0, 'f'},
		{"tag", required_argument, 0, O_TAG},
		{"method", required_argument, 0, O_METHOD},
		{"from", required_argument, 0, O_FROM},
		{"to", required_argument, 0, O_TO},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	struct an_filter f = {AN_ANY, NULL, AN_ANY, 0, 1};
	struct an_matrix m;
	const char *csv = NULL;
	char func[128];
	int64_t win[2] = {INT64_MIN, INT64_MAX};
	const char *wtext[2] = {"the start", "the end"};
	int bytes = 0, wide = 0, walk = 0, window = 0, c, rc;
	rondo_trace *t;
	uint32_t tag;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "cbf:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': bytes = 0; break;
		case 'b': bytes = 1; break;
		case O_CSV: csv = optarg; break;
		case O_WIDE: wide = 1; break;
		case O_COLL: f.collectives = 1; break;
		case O_ONLY:
			f.collectives = 1;
			f.p2p = 0;
			break;
		case O_COMM:
			if (cli_parse_comm(optarg, &f.comm) < 0)
				return cli_usage_error("matrix ",
						       "--comm: '%s' is "
						       "not world, self or a "
						       "communicator id",
						       optarg);
			break;
		case 'f':
			snprintf(func, sizeof(func), "%s%s",
				 strncasecmp(optarg, "MPI_", 4) ? "MPI_" : "",
				 optarg);
			f.func = func;
			break;
		case O_TAG:
			if (cli_parse_u32(optarg, INT32_MAX, &tag) < 0)
				return cli_usage_error("matrix ",
						       "--tag: '%s' is "
						       "not a tag",
						       optarg);
			f.tag = tag;
			break;
		case O_METHOD:
			if (strcmp(optarg, "grammar") && strcmp(optarg, "walk"))
				return cli_usage_error("matrix ",
						       "--method: '%s' "
						       "is not grammar or walk",
						       optarg);
			walk = !strcmp(optarg, "walk");
			break;
		case O_FROM:
		case O_TO:
			if (cli_parse_seconds(optarg, &win[c == O_TO]) < 0)
				return cli_usage_error(
					"matrix ",
					"--%s: '%s' is "
					"not a time in seconds",
					c == O_TO ? "to" : "from", optarg);
			wtext[c == O_TO] = optarg;
			window = 1;
			break;
		case 'h': matrix_usage(stdout); return CLI_EXIT_OK;
		default:
			return cli_usage_error("matrix ", "bad option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cli_usage_error("matrix ", "matrix takes one FILE");
	if (wide && !csv)
		return cli_usage_error("matrix ", "--wide goes with --csv");
	if (win[0] >= win[1])
		return cli_usage_error("matrix ",
				       "--from must come before --to");
	t = window ? cli_open_timed(argv[optind], "matrix --from/--to")
		   : cli_open(argv[optind]);
	if (!t)
		return CLI_EXIT_FAIL;
	if (window)
		rc = an_matrix_window(t, &f, win[0], win[1], &m);
	else
		rc = walk ? an_matrix_walk(t, &f, &m) : an_matrix(t, &f, &m);
	if (rc < 0) {
		cli_error("matrix of %s: %s", argv[optind], rondo_strerror(rc));
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	if (!csv) {
		if (window)
			printf("calls that started from %s to before %s "
			       "(seconds "
			       "since the job's time origin)\n",
			       wtext[0], wtext[1]);
		rc = print_table(&m, bytes);
	} else {
		FILE *out = cli_csv_open(csv);

		rc = out ? cli_csv_close(out, csv,
					 an_matrix_csv(&m, out, wide, bytes) <
						 0)
			 : CLI_EXIT_FAIL;
	}
	if (rc == CLI_EXIT_OK)
		notes(t, &m, csv != NULL);
	an_matrix_free(&m);
	rondo_trace_free(t);
	return rc;
}
