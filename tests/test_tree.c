/*
 * test_tree.c - the explorer's model (tui/tree.c) without a terminal: rows
 * made lazily (a loop of a million iterations opens to its body, once),
 * fold state kept through closing and opening, labels, search in tree
 * order opening only what leads to a match, and the jump to a signature.
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

static rondo_trace *open_job(struct fmt_buf *file)
{
	struct testtrace *tt = job();
	rondo_trace *t = tt_open(tt, file, 0);

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

int main(void)
{
	struct fmt_buf file = {0};
	rondo_trace *t = open_job(&file);

	test_lazy(t);
	test_search(t);
	test_find_and_open_all(t);
	rondo_trace_free(t);
	fmt_buf_free(&file);
	return check_done("test_tree");
}
