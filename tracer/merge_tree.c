/*
 * merge_tree.c - the merge at MPI_Finalize: ceil(log2 P) rounds of
 * point-to-point messages between the ranks, after which rank 0 holds the
 * whole job (output.c makes the file of it).
 *
 * In round k (from 0), a rank whose lowest set bit is bit k sends all it
 * holds to the rank 2^k below it and is done; a rank whose bits 0 to k are
 * clear takes in what the rank 2^k above it holds, if there is one.  So
 * after round k every rank still in holds the ranks from itself up to
 * itself + 2^(k+1), a rank sends one message and takes in at most
 * ceil(log2 P), and rank 0 ends with the whole job.  What travels is a
 * merge (merge.c): the signatures of its ranks, each distinct one once,
 * the rules of their grammars (renumbered to those signatures, each
 * distinct rule once: identical rank grammars travel once), the sequence
 * of which root rule each rank runs (compressed like a grammar, so blocks
 * and strides of alike ranks cost nothing), per-signature statistics,
 * each rank's time per signature and the communicators' members.  A merge
 * grows with what is distinct, not with the number of ranks (but for the
 * time per rank, a few bytes a rank).
 *
 * The signatures travel with the grammars, each merge renumbering what it
 * takes in to its own table, so no rank needs the whole table: there is
 * no broadcast of it, and one pass up the tree does it all.  Before that
 * pass, one round trip of the tree decides which rank-derived integers
 * are stored relative to the caller (relative.c), since that must be the
 * same on every rank before their signatures can be compared.
 */
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "relative.h"
#include "runtime.h"

/* ---- this rank's part --------------------------------------------------- */

/* The caller's rank in the communicator an argument names, for relative.c. */
static int64_t local_me(void *ctx, uint32_t kind, uint64_t value)
{
	const char *name;

	(void)ctx;
	if (kind == RONDO_ARG_COMM)
		return comms_key_rank(value);
	if (kind != RONDO_ARG_CONST || value > UINT32_MAX)
		return -1;
	name = handles_const_name((uint32_t)value);
	if (name && !strcmp(name, "MPI_COMM_WORLD"))
		return rt.rank;
	return name && !strcmp(name, "MPI_COMM_SELF") ? 0 : -1;
}

/* ---- the tree ------------------------------------------------------------ */

/* Messages go in pieces of at most this many bytes, after their length,
 * so that any length fits MPI's int counts, and a rank that cannot hold
 * one can still take it in and drop it. */
#define PIECE (1u << 20)

enum { TAG_RELATIVE = 1, TAG_MERGE = 2 };

/* Where a piece goes that this rank cannot keep. */
static uint8_t drop[PIECE];

static void blob_send(const struct merge_tree *t, int to, int tag,
		      const struct fmt_buf *b)
{
	uint64_t len = b->oom ? 0 : b->len;

	PMPI_Send(&len, 1, MPI_UINT64_T, to, tag, t->comm);
	for (uint64_t at = 0; at < len; at += PIECE)
		PMPI_Send(b->data + at,
			  (int)(len - at < PIECE ? len - at : PIECE), MPI_BYTE,
			  to, tag, t->comm);
}

/* Takes in a message; NULL (and *n 0) when it was empty or did not fit
 * in memory. */
static uint8_t *blob_recv(struct merge_tree *t, int from, int tag, size_t *n)
{
	uint64_t len = 0;
	uint8_t *p;

	PMPI_Recv(&len, 1, MPI_UINT64_T, from, tag, t->comm, MPI_STATUS_IGNORE);
	p = len && len < SIZE_MAX ? malloc((size_t)len) : NULL;
	for (uint64_t at = 0; at < len; at += PIECE)
		PMPI_Recv(p ? p + at : drop,
			  (int)(len - at < PIECE ? len - at : PIECE), MPI_BYTE,
			  from, tag, t->comm, MPI_STATUS_IGNORE);
	*n = p ? (size_t)len : 0;
	if (p && len > t->largest)
		t->largest = (size_t)len;
	return p;
}

/* Rank 0's b to every rank, in pieces as blob_send; every rank must call
 * it.  On the others b holds it after, unless it did not fit in memory
 * (then b is empty). */
static void blob_bcast(struct merge_tree *t, struct fmt_buf *b)
{
	uint64_t len = t->rank == 0 && !b->oom ? b->len : 0;
	int keep;

	PMPI_Bcast(&len, 1, MPI_UINT64_T, 0, t->comm);
	keep = t->rank == 0 || (len < SIZE_MAX && fmt_buf_reserve(b, len) == 0);
	for (uint64_t at = 0; at < len; at += PIECE)
		PMPI_Bcast(keep ? b->data + at : drop,
			   (int)(len - at < PIECE ? len - at : PIECE), MPI_BYTE,
			   0, t->comm);
	if (t->rank != 0)
		b->len = keep ? (size_t)len : 0;
}

/* The rank this one sends to in the round where it leaves the tree. */
static int tree_parent(const struct merge_tree *t)
{
	return t->rank & (t->rank - 1); /* its lowest set bit cleared */
}

/* Calls take(rank of the child, ranks it holds) for each rank this one
 * takes in, in order, then (not at rank 0) send(parent). */
typedef void (*tree_take_fn)(struct merge_tree *t, void *ctx, int child,
			     uint32_t nranks);
typedef void (*tree_send_fn)(struct merge_tree *t, void *ctx, int parent);

static void tree_run(struct merge_tree *t, tree_take_fn take, tree_send_fn send,
		     void *ctx)
{
	for (uint32_t k = 0; k < t->rounds; k++) {
		int step = (int)(1u << k);

		if (t->rank & step) {
			send(t, ctx, tree_parent(t));
			return;
		}
		if (t->rank + step < t->size) {
			int child = t->rank + step, end = child + step;

			take(t, ctx, child,
			     (uint32_t)((end < t->size ? end : t->size) -
					child));
		}
	}
}

/* -- the choice of relative integers -- */

static void rel_take(struct merge_tree *t, void *ctx, int child,
		     uint32_t nranks)
{
	size_t n;
	uint8_t *p = blob_recv(t, child, TAG_RELATIVE, &n);

	(void)nranks;
	/* a part that is lost or damaged only makes fewer integers
	 * relative: nothing is lost */
	if (p && ctx)
		relative_merge(ctx, p, n);
	free(p);
}

static void rel_send(struct merge_tree *t, void *ctx, int parent)
{
	struct fmt_buf b = {0};

	if (ctx)
		relative_encode(ctx, &b);
	blob_send(t, parent, TAG_RELATIVE, &b);
	fmt_buf_free(&b);
}

void merge_tree_relative(struct merge_tree *t, struct relative *R,
			 const struct fmt_cst *cst)
{
	struct fmt_buf b = {0};

	if (cst && R)
		relative_observe(R, cst, local_me, NULL);
	tree_run(t, rel_take, rel_send, R);
	if (t->rank == 0 && R)
		relative_decide(R, &b);
	/* a rank that misses the choice keeps every integer absolute:
	 * lossless, only its signatures differ from the others' */
	blob_bcast(t, &b);
	if (t->rank != 0 && R)
		relative_load(R, b.data, b.len);
	fmt_buf_free(&b);
}

/* -- the merge -- */

static void merge_take(struct merge_tree *t, void *ctx, int child,
		       uint32_t nranks)
{
	size_t n;
	uint8_t *p = blob_recv(t, child, TAG_MERGE, &n);
	struct merge *m = ctx;
	double start = PMPI_Wtime();

	if (m &&
	    (!p || merge_add_encoded(m, p, n, nranks, rt_nfuncs(),
				     (uint32_t)t->size) != 0) &&
	    merge_ranks(m) < (uint32_t)(child + nranks - t->rank))
		merge_add_failed(m, nranks);
	free(p);
	t->busy += PMPI_Wtime() - start;
}

static void merge_send(struct merge_tree *t, void *ctx, int parent)
{
	struct fmt_buf b = {0};

	/* an empty message tells the parent these ranks are lost */
	if (!ctx || merge_encode(ctx, &b) != 0)
		b.len = 0;
	blob_send(t, parent, TAG_MERGE, &b);
	fmt_buf_free(&b);
}

/* This rank's per-call times, if it keeps them: after its calls. */
static void local_timing(struct merge *m)
{
	const uint8_t *p;
	size_t n;
	uint64_t calls;

	if (rt.tstate == RT_TIMING_OFF || merge_set_timing(m, rt.time_base))
		return;
	if (timing_export(&p, &n, &calls) < 0 ||
	    merge_add_timing(m, p, n, calls, (int64_t)rt.origin_ns) < 0)
		merge_add_timing(m, NULL, 0, 0, 0); /* no time, calls kept */
}

/* This rank's statistics of the time before its calls, added to m over
 * cst (the rank's signatures, as merge_add_rank took them). */
static int local_gaps(struct merge *m, const struct fmt_cst *cst)
{
	struct fmt_stats gs = {
		0, malloc(sizeof(struct fmt_stat) * ((size_t)rt.nsig + 1))};
	int rc;

	if (!gs.st)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < rt.nsig && s < cst->n; s++)
		if (rt.sig[s].gap.count)
			gs.st[gs.n++] = (struct fmt_stat){s, rt.sig[s].gap};
	rc = merge_add_gaps(m, cst, &gs);
	free(gs.st);
	return rc;
}

struct merge *merge_tree_gather(struct merge_tree *t, struct relative *R,
				struct fmt_cst *cst, int ok,
				const struct fmt_grammar *g,
				const struct fmt_stats *st)
{
	struct merge *m = merge_create();
	struct fmt_buf bytes = {0};

	/* without m, still take part: the others wait for this rank; the
	 * parent counts its ranks as failed */
	if (m) {
		const uint8_t *vals;
		size_t nvals;

		if (ok && relative_apply(R, cst, &bytes, local_me, NULL) == 0 &&
		    merge_add_rank(m, cst, g, st) == 0) {
			/* short of memory, only the time before calls is
			 * lost: the section says less, no call is wrong */
			(void)local_gaps(m, cst);
			/* its signatures name them: without them the rank's
			 * calls cannot be read back */
			relative_values(R, &vals, &nvals);
			if (merge_add_values(m, vals, nvals) != 0)
				merge_mark_failed(m, 1);
			if (rt.failed) /* its calls up to the failure */
				merge_mark_failed(m, 1);
			local_timing(m);
		} else if (merge_ranks(m) == 0) {
			merge_add_failed(m, 1);
		}
		comms_merge(m);
	}
	fmt_buf_free(&bytes);
	tree_run(t, merge_take, merge_send, m);
	return m;
}
