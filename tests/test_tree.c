/*
 * test_tree.c - the explorer's model (tui/tree.c) without a terminal: rows
 * made lazily (a loop of a million iterations opens to its body, once),
 * fold state kept through closing and opening, labels, search in tree
 * order opening only what leads to a match, the jump to a signature, and
 * the ranks a recovered trace says were cut short.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "format.h"
#include "rondo.h"
#include "testtrace.h"
#include "tree.h"

#define BIG 1000000

/* The signatures of the test job. */
enum {
	S_INIT,
	S_IRECV,
	S_SEND,
	S_WAIT,
	S_BARRIER,
	S_FINAL,
	S_RECV,
	S_ALLRED,
	NSIG
};

static uint32_t sig[NSIG];

static uint32_t one_sig(struct testtrace *tt, uint32_t func, int64_t peer)
{
	struct fmt_buf a = {0};
	uint32_t s, n = 0;

	if (peer != INT64_MIN) {
		fmt_arg_put_sint(&a, RONDO_ARG_RANK_REL, peer);
		n = 1;
	}
	s = tt_sig(tt, func, &a, n);
	fmt_buf_free(&a);
	return s;
}

/* Rank 0: Init, BIG times [Irecv Send Wait], Barrier, Finalize.  Ranks 1
 * and 2: Init, 1000 times [Recv Allreduce], Finalize. */
static struct testtrace *job(void)
{
	struct testtrace *tt = tt_create(3);
	uint32_t f_init = tt_func(tt, "MPI_Init", NULL);
	uint32_t f_irecv = tt_func(tt, "MPI_Irecv", "source", NULL);
	uint32_t f_send = tt_func(tt, "MPI_Send", "dest", NULL);
	uint32_t f_wait = tt_func(tt, "MPI_Wait", NULL);
	uint32_t f_barrier = tt_func(tt, "MPI_Barrier", NULL);
	uint32_t f_final = tt_func(tt, "MPI_Finalize", NULL);
	uint32_t f_recv = tt_func(tt, "MPI_Recv", "source", NULL);
	uint32_t f_allred = tt_func(tt, "MPI_Allreduce", NULL);

	sig[S_INIT] = one_sig(tt, f_init, INT64_MIN);
	sig[S_IRECV] = one_sig(tt, f_irecv, 1);
	sig[S_SEND] = one_sig(tt, f_send, 1);
	sig[S_WAIT] = one_sig(tt, f_wait, INT64_MIN);
	sig[S_BARRIER] = one_sig(tt, f_barrier, INT64_MIN);
	sig[S_FINAL] = one_sig(tt, f_final, INT64_MIN);
	sig[S_RECV] = one_sig(tt, f_recv, -1);
	sig[S_ALLRED] = one_sig(tt, f_allred, INT64_MIN);
	tt_meta(tt, "program", "treetest");
	tt_call(tt, 0, sig[S_INIT], 1, 1000);
	for (int i = 0; i < BIG; i++) {
		tt_call(tt, 0, sig[S_IRECV], 1, 10);
		tt_call(tt, 0, sig[S_SEND], 1, 20);
		tt_call(tt, 0, sig[S_WAIT], 1, 30);
	}
	tt_call(tt, 0, sig[S_BARRIER], 1, 500);
	tt_call(tt, 0, sig[S_FINAL], 1, 700);
	for (uint32_t r = 1; r < 3; r++) {
		tt_call(tt, r, sig[S_INIT], 1, 1000);
		for (int i = 0; i < 1000; i++) {
			tt_call(tt, r, sig[S_RECV], 1, 40);
			tt_call(tt, r, sig[S_ALLRED], 1, 50);
		}
		tt_call(tt, r, sig[S_FINAL], 1, 700);
	}
	return tt;
}

/* The job, with the meta key "cut" when cut is not NULL. */
static rondo_trace *open_job(struct fmt_buf *file, const char *cut)
{
	struct testtrace *tt = job();
	rondo_trace *t;

	if (cut)
		tt_meta(tt, "cut", cut);
	t = tt_open(tt, file, 0);

	tt_free(tt);
	return t;
}

/* The label of the node at row r (ASCII). */
static const char *label(struct tree *tr, uint32_t r)
{
	static char buf[256];

	if (tree_label(tr, tree_row_node(tr, r), 0, buf, sizeof(buf)) < 0)
		return "(none)";
	return buf;
}

/* The row whose label starts with text, or TREE_NONE. */
static uint32_t row_of(struct tree *tr, const char *text)
{
	for (uint32_t r = 0; r < tree_rows(tr); r++)
		if (!strncmp(label(tr, r), text, strlen(text)))
			return r;
	return TREE_NONE;
}

static void test_lazy(rondo_trace *t)
{
	struct tree *tr = tree_create(t);
	struct tree_info in;
	uint32_t loop, g1;
	char buf[64];

	CHECK(tr != NULL);
	if (!tr)
		return;
	/* the groups, closed */
	CHECK(tree_rows(tr) == 2);
	CHECKF(!strcmp(label(tr, 0), "rank 0"), "%s", label(tr, 0));
	CHECKF(!strcmp(label(tr, 1), "ranks 1,2 (2)"), "%s", label(tr, 1));
	CHECK(tree_info(tr, tree_row_node(tr, 1), &in) == 0 && in.ranks == 2 &&
	      in.calls == 2002 && in.kind == TREE_GROUP);
	/* the big loop is one row, its body one row per call */
	CHECK(tree_open(tr, tree_row_node(tr, 0)) == 0);
	CHECKF(tree_rows(tr) == 6, "%u rows", tree_rows(tr));
	loop = row_of(tr, "x1000000 [ MPI_Irecv ... MPI_Wait ]");
	CHECKF(loop == 2, "loop at row %u: %s", loop, label(tr, 2));
	CHECK(tree_info(tr, tree_row_node(tr, loop), &in) == 0 &&
	      in.kind == TREE_RULE && in.count == BIG &&
	      in.calls == 3ull * BIG && in.depth == 1);
	/* 10 + 20 + 30 ns an iteration */
	CHECKF(in.time_ns > 59.9 * BIG && in.time_ns < 60.1 * BIG, "%g",
	       in.time_ns);
	CHECK(tree_open(tr, tree_row_node(tr, loop)) == 0);
	CHECKF(tree_rows(tr) == 9, "%u rows", tree_rows(tr));
	CHECKF(!strcmp(label(tr, loop + 1), "MPI_Irecv(source=+1)"), "%s",
	       label(tr, loop + 1));
	CHECK(!strcmp(label(tr, loop + 3), "MPI_Wait()"));
	/* the UTF-8 form of the loop */
	tree_label(tr, tree_row_node(tr, loop), 1, buf, sizeof(buf));
	CHECKF(!strcmp(buf, "\xc3\x97"
			    "1000000 [ MPI_Irecv \xe2\x80\xa6 MPI_Wait ]"),
	       "%s", buf);
	/* a short buffer: the length needed, cut text */
	CHECK(tree_label(tr, tree_row_node(tr, loop), 0, buf, 5) ==
		      (int)strlen("x1000000 [ MPI_Irecv ... MPI_Wait ]") &&
	      !strcmp(buf, "x100"));
	/* the fold state survives its group closing and opening */
	g1 = tree_row_node(tr, 0);
	tree_close(tr, g1);
	CHECK(tree_rows(tr) == 2);
	CHECK(tree_node_row(tr, tree_row_node(tr, 1)) == 1);
	CHECK(tree_open(tr, g1) == 0);
	CHECK(tree_rows(tr) == 9);
	CHECK(!strcmp(label(tr, 3), "MPI_Irecv(source=+1)"));
	/* the second group's ranks are relative: Recv from -1 */
	CHECK(tree_open(tr, tree_row_node(tr, 8)) == 0);
	CHECK(row_of(tr, "x1000 [ MPI_Recv, MPI_Allreduce ]") == 10);
	CHECK(tree_open(tr, tree_row_node(tr, 10)) == 0);
	CHECKF(!strcmp(label(tr, 11), "MPI_Recv(source=-1)"), "%s",
	       label(tr, 11));
	/* toggling, and a call that does not open */
	CHECK(tree_toggle(tr, tree_row_node(tr, 10)) == 0 &&
	      tree_rows(tr) == 12);
	CHECK(tree_open(tr, tree_row_node(tr, 11)) == 0 && tree_rows(tr) == 12);
	CHECK(tree_open(tr, 1u << 30) == RONDO_E_RANGE);
	tree_free(tr);
}

/* The nodes of the calls the search visits, as labels, in order. */
static void test_search(rondo_trace *t)
{
	static const char *forward[] = {
		"MPI_Init()",	 "MPI_Irecv(source=+1)", "MPI_Send(dest=+1)",
		"MPI_Wait()",	 "MPI_Barrier()",	 "MPI_Finalize()",
		"MPI_Init()",	 "MPI_Recv(source=-1)",	 "MPI_Allreduce()",
		"MPI_Finalize()"};
	struct tree *tr = tree_create(t);
	uint32_t n, first;
	char buf[128];

	CHECK(tr != NULL);
	if (!tr)
		return;
	CHECK(tree_search(tr, "nothing like it") == 0);
	CHECK(tree_search_next(tr, TREE_NONE, 1) == TREE_NONE);
	/* every call, forward in tree order and around */
	CHECK(tree_search(tr, "mpi_") == NSIG);
	n = TREE_NONE;
	for (int k = 0; k < 12; k++) {
		n = tree_search_next(tr, n, 1);
		tree_label(tr, n, 0, buf, sizeof(buf));
		CHECKF(!strcmp(buf, forward[k % 10]), "step %d: %s", k, buf);
		CHECK(tree_is_match(tr, n) &&
		      tree_node_row(tr, n) != TREE_NONE);
	}
	/* and backward */
	n = TREE_NONE;
	for (int k = 0; k < 10; k++) {
		n = tree_search_next(tr, n, -1);
		tree_label(tr, n, 0, buf, sizeof(buf));
		CHECKF(!strcmp(buf, forward[9 - k]), "back %d: %s", k, buf);
	}
	tree_free(tr);

	/* only what leads to a match opens */
	tr = tree_create(t);
	CHECK(tree_search(tr, "ALLREDUCE") == 1);
	first = tree_search_next(tr, TREE_NONE, 1);
	tree_label(tr, first, 0, buf, sizeof(buf));
	CHECKF(!strcmp(buf, "MPI_Allreduce()"), "%s", buf);
	/* rank 0 closed; ranks 1,2 open, with its loop; 2 + 3 + 2 rows */
	CHECKF(tree_rows(tr) == 7, "%u rows", tree_rows(tr));
	CHECK(!strcmp(label(tr, 0), "rank 0"));
	CHECK(tree_node_row(tr, first) == 5);
	/* the only match: next comes back to it */
	CHECK(tree_search_next(tr, first, 1) == first);
	CHECK(tree_search_next(tr, first, -1) == first);
	CHECK(tree_sig_matches(tr, sig[S_ALLRED]) &&
	      !tree_sig_matches(tr, sig[S_RECV]));
	/* parameter text matches too */
	CHECK(tree_search(tr, "source=-1") == 1);
	n = tree_search_next(tr, TREE_NONE, 1);
	tree_label(tr, n, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "MPI_Recv(source=-1)"));
	tree_free(tr);
}

static void test_find_and_open_all(rondo_trace *t)
{
	struct tree *tr = tree_create(t);
	uint32_t n;
	char buf[128];

	CHECK(tr != NULL);
	if (!tr)
		return;
	n = tree_find_sig(tr, sig[S_WAIT]);
	tree_label(tr, n, 0, buf, sizeof(buf));
	CHECKF(!strcmp(buf, "MPI_Wait()"), "%s", buf);
	CHECKF(tree_rows(tr) == 9, "%u rows", tree_rows(tr));
	CHECK(tree_find_sig(tr, 1000) == TREE_NONE);
	tree_free(tr);

	/* everything, then capped */
	tr = tree_create(t);
	CHECK(tree_open_all(tr, tree_row_node(tr, 1), 100) == 0);
	CHECKF(tree_rows(tr) == 2 + 3 + 2, "%u rows", tree_rows(tr));
	/* up to 11 rows: the group opens (4 rows under it), its loop not */
	CHECK(tree_open_all(tr, tree_row_node(tr, 0), 11) == 0);
	CHECKF(tree_rows(tr) == 11, "%u rows", tree_rows(tr));
	CHECK(tree_open_all(tr, tree_row_node(tr, 0), 100) == 0);
	CHECKF(tree_rows(tr) == 14, "%u rows", tree_rows(tr));
	tree_free(tr);
}

/* The labels of the groups (rank 0; ranks 1,2) and of what the first
 * opens to, for a key "cut". */
static void cut_labels(const char *cut, const char *g0, const char *g1,
		       const char *last)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_job(&file, cut);
	struct tree *tr = tree_create(t);
	uint32_t g = tr ? tree_row_node(tr, 1) : TREE_NONE;

	CHECK(tr != NULL);
	if (tr) {
		CHECKF(!strcmp(label(tr, 0), g0), "%s", label(tr, 0));
		CHECKF(!strcmp(label(tr, 1), g1), "%s", label(tr, 1));
		CHECK(tree_open(tr, g) == 0);
		CHECKF(!strcmp(label(tr, tree_rows(tr) - 1), last), "%s",
		       label(tr, tree_rows(tr) - 1));
	}
	tree_free(tr);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* A recovered trace's ranks cut short (ranks 1,2: SIGTERM inside
 * MPI_Recv; rank 0: MPI_Abort): said on their groups, and by a last leaf
 * under each that nothing takes for a call. */
static void test_cut(rondo_trace *t)
{
	static const char *sigterm = "signal 15 (SIGTERM) inside MPI_Recv";
	struct tree *tr = tree_create(t);
	struct tree_info in;
	uint32_t cut, n;
	char buf[128];

	CHECK(tr != NULL);
	if (!tr)
		return;
	CHECKF(!strcmp(label(tr, 0),
		       "rank 0  cut short: MPI_Abort(errorcode=3)"),
	       "%s", label(tr, 0));
	snprintf(buf, sizeof(buf), "ranks 1,2 (2)  cut short: %s", sigterm);
	CHECKF(!strcmp(label(tr, 1), buf), "%s", label(tr, 1));
	/* opened: Init, the loop, Finalize, then where the ranks stop */
	CHECK(tree_open(tr, tree_row_node(tr, 1)) == 0);
	CHECKF(tree_rows(tr) == 6, "%u rows", tree_rows(tr));
	cut = tree_row_node(tr, 5);
	snprintf(buf, sizeof(buf), "8< cut short here: %s", sigterm);
	CHECKF(!strcmp(label(tr, 5), buf), "%s", label(tr, 5));
	/* with UTF-8, the scissors */
	tree_label(tr, cut, 1, buf, sizeof(buf));
	CHECKF(!strncmp(buf, "\xe2\x9c\x82 cut short here: signal 15", 29) &&
		       !strcmp(buf + 29, " (SIGTERM) inside MPI_Recv"),
	       "%s", buf);
	CHECK(tree_info(tr, cut, &in) == 0 && in.kind == TREE_CUT &&
	      in.calls == 0 && in.time_ns == 0 && in.depth == 1 &&
	      in.parent == tree_row_node(tr, 1) && !in.open);
	/* a leaf: it does not open, and a search steps over it */
	CHECK(tree_open(tr, cut) == 0 && tree_rows(tr) == 6);
	CHECK(tree_open_all(tr, tree_row_node(tr, 1), 100) == 0 &&
	      tree_rows(tr) == 8 && tree_row_node(tr, 7) == cut);
	CHECK(tree_search(tr, "finalize") == 1);
	n = tree_search_next(tr, cut, 1);
	/* rank 0's, its group opened: Init, loop, Barrier, Finalize, cut */
	CHECKF(tree_node_row(tr, n) == 4, "row %u", tree_node_row(tr, n));
	CHECK(tree_rows(tr) == 13);
	CHECK(tree_search_next(tr, n, -1) == tree_row_node(tr, 11) &&
	      tree_search_next(tr, tree_row_node(tr, 11), 1) == n);
	CHECK(tree_search(tr, "cut short") == 0);
	tree_free(tr);
}

/* Some ranks of a group, two endings, a key cut in the middle, ranks the
 * trace has not. */
static void test_cut_forms(void)
{
	cut_labels("2\tsignal 9 (SIGKILL)\n", "rank 0",
		   "ranks 1,2 (2)  cut short on rank 2: signal 9 (SIGKILL)",
		   "8< cut short here on rank 2: signal 9 (SIGKILL)");
	cut_labels("2\tMPI_Abort(errorcode=1)\n0-1\tsignal 6 (SIGABRT)\n",
		   "rank 0  cut short: signal 6 (SIGABRT)",
		   "ranks 1,2 (2)  cut short on rank 1: signal 6 (SIGABRT); "
		   "on rank 2: MPI_Abort(errorcode=1)",
		   "8< cut short here on rank 1: signal 6 (SIGABRT); "
		   "on rank 2: MPI_Abort(errorcode=1)");
	/* the rest of the key after a line not of its form is not read */
	cut_labels("1\tsignal 15 (SIGTERM)\n2,x\tnot read\n2\tnot read\n",
		   "rank 0",
		   "ranks 1,2 (2)  cut short on rank 1: signal 15 (SIGTERM)",
		   "8< cut short here on rank 1: signal 15 (SIGTERM)");
	cut_labels("0\tsignal 15 (SIGTERM)\n1\tno newline",
		   "rank 0  cut short: signal 15 (SIGTERM)", "ranks 1,2 (2)",
		   "MPI_Finalize()");
	cut_labels("5-9\tsignal 15 (SIGTERM)\n", "rank 0", "ranks 1,2 (2)",
		   "MPI_Finalize()");
}

/* Two ranks of nested loops and known times (ns): rank 0, Init (1000),
 * 100 x [Irecv (10), Wait (20)], 10 x [4 x Send (100), Allreduce
 * (5000)], Finalize (700); rank 1, Init, 100 x [Irecv, Wait], Finalize.
 * The loop of most time is rank 0's 10 x [...] (54 000 ns), and in it
 * the Allreduce (50 000 in all). */
static rondo_trace *open_nested(struct fmt_buf *file)
{
	struct testtrace *tt = tt_create(2);
	uint32_t f_init = tt_func(tt, "MPI_Init", NULL);
	uint32_t f_irecv = tt_func(tt, "MPI_Irecv", "source", NULL);
	uint32_t f_wait = tt_func(tt, "MPI_Wait", NULL);
	uint32_t f_send = tt_func(tt, "MPI_Send", "dest", NULL);
	uint32_t f_allred = tt_func(tt, "MPI_Allreduce", NULL);
	uint32_t f_final = tt_func(tt, "MPI_Finalize", NULL);
	uint32_t s_init = one_sig(tt, f_init, INT64_MIN);
	uint32_t s_irecv = one_sig(tt, f_irecv, 1);
	uint32_t s_wait = one_sig(tt, f_wait, INT64_MIN);
	uint32_t s_send = one_sig(tt, f_send, 1);
	uint32_t s_allred = one_sig(tt, f_allred, INT64_MIN);
	uint32_t s_final = one_sig(tt, f_final, INT64_MIN);
	rondo_trace *t;

	tt_meta(tt, "program", "nested");
	for (uint32_t r = 0; r < 2; r++) {
		tt_call(tt, r, s_init, 1, 1000);
		for (int i = 0; i < 100; i++) {
			tt_call(tt, r, s_irecv, 1, 10);
			tt_call(tt, r, s_wait, 1, 20);
		}
		for (int i = 0; r == 0 && i < 10; i++) {
			for (int k = 0; k < 4; k++)
				tt_call(tt, r, s_send, 1, 100);
			tt_call(tt, r, s_allred, 1, 5000);
		}
		tt_call(tt, r, s_final, 1, 700);
	}
	t = tt_open(tt, file, 0);
	tt_free(tt);
	return t;
}

/* Figures in all, the rows heaviest first, and the heaviest path. */
static void test_heaviest(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_nested(&file);
	struct tree *tr = t ? tree_create(t) : NULL;
	struct tree_info in;
	uint32_t g, n, loop, send;

	CHECK(tr != NULL);
	if (!tr) {
		rondo_trace_free(t);
		fmt_buf_free(&file);
		return;
	}
	/* rank 0 is the heaviest group; its rows in the calls' order */
	g = tree_heaviest_group(tr);
	CHECKF(g == tree_row_node(tr, 0), "group node %u", g);
	CHECK(tree_open(tr, g) == 0);
	CHECKF(!strcmp(label(tr, 1), "MPI_Init()"), "%s", label(tr, 1));
	loop = row_of(tr, "x10 [ MPI_Send ... MPI_Allreduce ]");
	CHECKF(loop == 3, "the loop at row %u", loop);
	CHECK(tree_open(tr, tree_row_node(tr, loop)) == 0);
	send = row_of(tr, "x4 MPI_Send(dest=+1)");
	CHECKF(send == loop + 1, "x4 MPI_Send at row %u", send);
	/* a row inside the loop: 4 calls and 400 ns a run, 10 runs */
	CHECK(tree_info(tr, tree_row_node(tr, send), &in) == 0);
	CHECKF(in.runs == 10 && in.calls == 4 && in.calls_all == 40 &&
		       in.time_ns > 399.9 && in.time_ns < 400.1 &&
		       in.time_all_ns > 3999 && in.time_all_ns < 4001,
	       "runs %llu calls %llu/%llu time %g/%g",
	       (unsigned long long)in.runs, (unsigned long long)in.calls,
	       (unsigned long long)in.calls_all, in.time_ns, in.time_all_ns);
	/* the loop's own row: once, its 10 iterations inside */
	CHECK(tree_info(tr, tree_row_node(tr, loop), &in) == 0 &&
	      in.runs == 1 && in.calls == 50 && in.calls_all == 50 &&
	      in.time_all_ns > 53999 && in.time_all_ns < 54001);
	/* heaviest first: the big loop, the small one, Init, Finalize; the
	 * other group after, closed */
	CHECK(tree_order(tr) == 0);
	n = tree_row_node(tr, send);
	CHECK(tree_set_order(tr, 1) == 0 && tree_order(tr) == 1);
	CHECKF(!strcmp(label(tr, 0), "rank 0") &&
		       !strcmp(label(tr, 1),
			       "x10 [ MPI_Send ... MPI_Allreduce ]") &&
		       !strcmp(label(tr, 2), "MPI_Allreduce()") &&
		       !strcmp(label(tr, 3), "x4 MPI_Send(dest=+1)") &&
		       !strncmp(label(tr, 4), "x100 [ MPI_Irecv", 16) &&
		       !strcmp(label(tr, 5), "MPI_Init()") &&
		       !strcmp(label(tr, 6), "MPI_Finalize()") &&
		       !strcmp(label(tr, 7), "rank 1") && tree_rows(tr) == 8,
	       "rows: %s | %s | %s | %s | %s", label(tr, 1), label(tr, 2),
	       label(tr, 3), label(tr, 4), label(tr, 5));
	CHECK(tree_node_row(tr, n) == 3); /* nodes keep their numbers */
	/* back to the calls' order, folds as they were */
	CHECK(tree_set_order(tr, 0) == 0 && tree_rows(tr) == 8);
	CHECK(tree_node_row(tr, n) == send);
	/* the heaviest path from the top: the big loop's Allreduce, the
	 * way to it opened; from a call, the call itself */
	tree_close(tr, g);
	n = tree_heaviest(tr, g);
	CHECK(n != TREE_NONE && tree_info(tr, n, &in) == 0);
	CHECKF(in.kind == TREE_CALL && tree_node_row(tr, n) != TREE_NONE &&
		       !strcmp(label(tr, tree_node_row(tr, n)),
			       "MPI_Allreduce()") &&
		       in.runs == 10,
	       "heaviest: %s", label(tr, tree_node_row(tr, n)));
	CHECK(tree_heaviest(tr, n) == n);
	CHECK(tree_heaviest(tr, 1u << 30) == TREE_NONE);
	tree_free(tr);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

/* The rank filter's part: only the groups shown are rows (their folds
 * kept while hidden), a search passes over the others, the heaviest
 * group is the heaviest shown. */
static void test_groups_shown(rondo_trace *t)
{
	struct tree *tr = tree_create(t);
	uint8_t only1[2] = {0, 1}, none[2] = {0, 0};
	uint32_t n;

	CHECK(tr != NULL);
	if (!tr)
		return;
	CHECK(tree_rows(tr) == 2 && tree_group_shown(tr, 0) &&
	      tree_group_shown(tr, 1) && !tree_group_shown(tr, 2));
	CHECK(tree_open(tr, 0) == 0 && tree_rows(tr) == 6);
	/* group 1 (ranks 1-2) alone: one row, rank 0's loop gone */
	CHECK(tree_set_groups(tr, only1) == 0);
	CHECKF(tree_rows(tr) == 1 && !strcmp(label(tr, 0), "ranks 1,2 (2)"),
	       "%u rows, %s", tree_rows(tr), label(tr, 0));
	CHECK(!tree_group_shown(tr, 0) && tree_group_shown(tr, 1));
	CHECK(tree_node_row(tr, 0) == TREE_NONE);
	CHECK(tree_heaviest_group(tr) == 1);
	/* a search for rank 0's Barrier finds nothing shown; the Finalize
	 * both groups call is found under group 1 */
	CHECK(tree_search(tr, "MPI_Barrier") == 1);
	CHECK(tree_search_next(tr, TREE_NONE, 1) == TREE_NONE);
	CHECK(tree_search(tr, "MPI_Finalize") == 1);
	n = tree_search_next(tr, TREE_NONE, 1);
	CHECKF(n != TREE_NONE && tree_node_row(tr, n) != TREE_NONE &&
		       !strcmp(label(tr, tree_node_row(tr, n)),
			       "MPI_Finalize()") &&
		       tree_node_row(tr, n) == 3,
	       "Finalize at row %u", n == TREE_NONE ? n : tree_node_row(tr, n));
	/* none shown: no rows, no heaviest group */
	CHECK(tree_set_groups(tr, none) == 0 && tree_rows(tr) == 0 &&
	      tree_heaviest_group(tr) == TREE_NONE);
	/* all again: group 0 as it was, open */
	CHECK(tree_set_groups(tr, NULL) == 0);
	CHECKF(tree_rows(tr) == 2 + 4 + 3 && !strcmp(label(tr, 0), "rank 0") &&
		       !strcmp(label(tr, 1), "MPI_Init()"),
	       "%u rows: %s, %s", tree_rows(tr), label(tr, 0), label(tr, 1));
	tree_search(tr, "");
	tree_free(tr);
}

/* A rank's call by its index: the leaf that makes it is the call an
 * iterator gives there, its ancestors opened; and back, a node's first
 * call. */
static void test_find_call(rondo_trace *t)
{
	struct tree *tr = tree_create(t);
	static const uint64_t at[] = {0,
				      1,
				      2,
				      3,
				      4,
				      5,
				      2999,
				      3000,
				      3001,
				      3 * (uint64_t)BIG - 1,
				      3 * (uint64_t)BIG,
				      3 * (uint64_t)BIG + 1,
				      3 * (uint64_t)BIG + 2};
	uint64_t within = 9;
	struct tree_info in;
	uint32_t n, s;

	CHECK(tr != NULL);
	if (!tr)
		return;
	for (uint32_t r = 0; r < 3; r++)
		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			rondo_iter *it = rondo_iter_create(t, r);
			uint64_t i = at[k];

			if (i >= rondo_rank_calls(t, r)) {
				CHECKF(tree_find_call(tr, r, i, NULL) ==
					       TREE_NONE,
				       "rank %u call %llu", r,
				       (unsigned long long)i);
				rondo_iter_free(it);
				continue;
			}
			CHECK(rondo_iter_skip(it, i) == 0);
			CHECK(rondo_iter_next(it, &s) == 1);
			n = tree_find_call(tr, r, i, &within);
			CHECKF(tree_info(tr, n, &in) == 0 &&
				       in.kind == TREE_CALL && in.id == s,
			       "rank %u call %llu: node %u", r,
			       (unsigned long long)i, n);
			CHECKF(tree_node_row(tr, n) != TREE_NONE,
			       "rank %u call %llu is not shown", r,
			       (unsigned long long)i);
			CHECK(within == 0);
			rondo_iter_free(it);
		}
	CHECK(tree_find_call(tr, 3, 0, NULL) == TREE_NONE);
	/* back: the first run of rank 0's loop starts at call 1, the
	 * Barrier after it at 3 BIG + 1; rank 2's Finalize is its 2001st */
	n = tree_find_call(tr, 0, 3, NULL);
	CHECKF(tree_node_first_call(tr, n) == 3, "%llu",
	       (unsigned long long)tree_node_first_call(tr, n));
	CHECKF(tree_node_first_call(tr, tree_info(tr, n, &in) == 0 ? in.parent
								   : 0) == 1,
	       "%llu", (unsigned long long)tree_node_first_call(tr, in.parent));
	n = tree_find_call(tr, 0, 3 * (uint64_t)BIG + 1, NULL);
	CHECK(tree_node_first_call(tr, n) == 3 * (uint64_t)BIG + 1);
	n = tree_find_call(tr, 2, 2001, NULL);
	CHECK(tree_node_first_call(tr, n) == 2001);
	CHECK(tree_rank_group(tr, 2) == tree_rank_group(tr, 1));
	CHECK(tree_rank_group(tr, 0) != tree_rank_group(tr, 1));
	CHECK(tree_rank_group(tr, 3) == TREE_NONE);
	tree_free(tr);
}

/* A loop merged at precision 90 (tests/testtrace.c runs the tracer's
 * pass): 300 steps of a Barrier, then 38 to 42 times [Send Wait]; its row
 * reads its range, "x38-42", and tree_site finds its histogram. */
static void test_merged(void)
{
	struct testtrace *tt = tt_create(1);
	uint32_t f_barrier = tt_func(tt, "MPI_Barrier", NULL);
	uint32_t f_send = tt_func(tt, "MPI_Send", "dest", NULL);
	uint32_t f_wait = tt_func(tt, "MPI_Wait", NULL);
	uint32_t b = one_sig(tt, f_barrier, INT64_MIN);
	uint32_t snd = one_sig(tt, f_send, 1),
		 w = one_sig(tt, f_wait, INT64_MIN);
	struct fmt_buf file = {0};
	struct tree *tr;
	rondo_trace *t;
	rondo_merged_loop h;
	uint32_t row, rule, pos;

	for (uint32_t k = 0; k < 300; k++) {
		tt_call(tt, 0, b, 1, 10);
		for (uint32_t i = 0; i < 38 + (k * 7 + k / 3) % 5; i++) {
			tt_call(tt, 0, snd, 1, 10);
			tt_call(tt, 0, w, 1, 10);
		}
	}
	tt_precision(tt, 90);
	t = tt_open(tt, &file, 0);
	tt_free(tt);
	CHECK(t != NULL);
	if (!t)
		return;
	tr = tree_create(t);
	CHECK(tr != NULL);
	/* open the group, then each loop row until the merged one shows */
	for (uint32_t r = 0; tr && r < tree_rows(tr) && r < 8; r++)
		CHECK(tree_open(tr, tree_row_node(tr, r)) == 0);
	row = tr ? row_of(tr, "x38-42 [ MPI_Send, MPI_Wait ]") : TREE_NONE;
	CHECKF(row != TREE_NONE, "no merged row; row 1: %s",
	       tr ? label(tr, 1) : "");
	if (row != TREE_NONE) {
		CHECK(tree_site(tr, tree_row_node(tr, row), &rule, &pos) == 0);
		CHECK(rondo_loop_hist(t, rule, pos, &h) == 1 && h.min == 38 &&
		      h.max == 42 && h.loops == 300);
	}
	CHECK(!tr || tree_site(tr, tree_row_node(tr, 0), &rule, &pos) ==
			     RONDO_E_RANGE); /* a group */
	tree_free(tr);
	rondo_trace_free(t);
	fmt_buf_free(&file);
}

int main(void)
{
	struct fmt_buf file = {0}, cut = {0};
	rondo_trace *t = open_job(&file, NULL);

	test_lazy(t);
	test_search(t);
	test_find_and_open_all(t);
	test_find_call(t);
	test_groups_shown(t);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	t = open_job(&cut, "1-2\tsignal 15 (SIGTERM) inside MPI_Recv\n"
			   "0\tMPI_Abort(errorcode=3)\n");
	test_cut(t);
	rondo_trace_free(t);
	fmt_buf_free(&cut);
	test_cut_forms();
	test_heaviest();
	test_merged();
	return check_done("test_tree");
}
