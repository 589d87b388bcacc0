/*
 * cmd_waits.c - `rondo waits FILE`: how long receives waited for late
 * senders and blocking sends for late receivers, per pair of ranks
 * (analyses/waits.h).
 */
#include <getopt.h> /* optind */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "waits.h"

static void waits_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo waits [--top N] [--csv PATH|-] FILE\n\n"
		"Late senders and late receivers, from per-call times (a "
		"trace\n"
		"made with RONDO_TIMING=percall).  Messages are matched in\n"
		"order per sender, receiver, communicator and tag (a wildcard\n"
		"receive by the source and tag of its status).  Late sender: "
		"a\n"
		"blocking receive (MPI_Recv, Sendrecv, or MPI_Wait... on an\n"
		"Irecv) entered before its send started waited min(send start\n"
		"- its start, its duration).  Late receiver: an MPI_Send or\n"
		"Ssend started before its receive was posted waited min(post "
		"-\n"
		"its start, its duration).  A row per pair of ranks that\n"
		"exchanged messages, the most waiting first.\n\n"
		"  --top N      the first N rows (text: 10 by default)\n"
		"  --csv PATH   CSV (times in nanoseconds) to PATH, or to\n"
		"               standard output with -, instead of text\n");
}

/* What the rows leave out, on stderr (not in the CSV). */
static void waits_notes(const struct an_waits *w)
{
	if (w->unmatched_sends || w->unmatched_recvs)
		cli_error("%" PRIu64 " sends and %" PRIu64 " receives without "
			  "their match (in the timed calls) not counted",
			  w->unmatched_sends, w->unmatched_recvs);
	if (w->unresolved)
		cli_error("%" PRIu64 " sends and receives whose peer, tag or "
			  "communicator the trace does not resolve not counted",
			  w->unresolved);
	cli_untimed(w->untimed);
}

/* A time waited and its bound as text (24 bytes each), marked "~" in
 * fig when the bound exceeds it. */
static void waited(char *fig, char *err, uint64_t ns, uint64_t err_ns,
		   struct cli_swamp *sw)
{
	cli_duration_about(fig, 24, (double)ns, (double)err_ns, sw);
	cli_duration(err, 24, (double)err_ns, 0);
}

static void waits_text(const rondo_trace *t, const struct an_waits *w,
		       uint32_t n)
{
	const char *prog = rondo_meta_get(t, "program");
	char ls[24], lr[24], lse[24], lre[24];
	struct cli_swamp sw = {0, 0};

	waited(ls, lse, w->ls_ns, w->ls_err_ns, &sw);
	waited(lr, lre, w->lr_ns, w->lr_err_ns, &sw);
	printf("%s: %" PRIu32 " rank%s, %" PRIu64 " messages matched between "
	       "%" PRIu32 " pair%s of ranks\n",
	       prog ? prog : "?", rondo_rank_count(t),
	       rondo_rank_count(t) == 1 ? "" : "s", w->msgs, w->n,
	       w->n == 1 ? "" : "s");
	cli_timing_bound(w->base);
	printf("late sender: %" PRIu64 " receive%s waited %s (+- %s); late "
	       "receiver: %" PRIu64 " send%s waited %s (+- %s)\n\n",
	       w->ls_count, w->ls_count == 1 ? "" : "s", ls, lse, w->lr_count,
	       w->lr_count == 1 ? "" : "s", lr, lre);
	printf("%6s %6s %10s %12s %10s %9s %14s %10s %9s\n", "src", "dst",
	       "messages", "late sender", "waited", "+-", "late receiver",
	       "waited", "+-");
	for (uint32_t i = 0; i < n; i++) {
		const struct an_wait_pair *p = &w->pairs[i];

		waited(ls, lse, p->ls_ns, p->ls_err_ns, &sw);
		waited(lr, lre, p->lr_ns, p->lr_err_ns, &sw);
		printf("%6" PRIu32 " %6" PRIu32 " %10" PRIu64 " %12" PRIu64
		       " %10s %9s %14" PRIu64 " %10s %9s\n",
		       p->src, p->dst, p->msgs, p->ls_count, ls, lse,
		       p->lr_count, lr, lre);
	}
	cli_swamp_say(&sw, w->base);
}

int cmd_waits(int argc, char **argv)
{
	struct an_waits w;
	const char *csv = NULL;
	uint32_t top = 0;
	rondo_trace *t;
	int rc = cli_timed_args(argc, argv, waits_usage, &top, NULL, &csv);

	if (rc >= 0)
		return rc;
	t = cli_open_timed(argv[optind], "waits");
	if (!t)
		return CLI_EXIT_FAIL;
	rc = an_waits(t, &w);
	if (rc < 0) {
		cli_error("waits of %s: %s", argv[optind], rondo_strerror(rc));
		rondo_trace_free(t);
		return CLI_EXIT_FAIL;
	}
	if (csv) {
		FILE *out = cli_csv_open(csv);

		rc = out ? cli_csv_close(out, csv,
					 an_waits_csv(w.pairs,
						      cli_rows(top, w.n, 1),
						      out) < 0)
			 : CLI_EXIT_FAIL;
	} else {
		waits_text(t, &w, cli_rows(top, w.n, 0));
		rc = CLI_EXIT_OK;
	}
	if (rc == CLI_EXIT_OK)
		waits_notes(&w);
	an_waits_free(&w);
	rondo_trace_free(t);
	return rc;
}
