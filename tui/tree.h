/*
 * tree.h - the explorer's model: the trace's grammar as a foldable tree,
 * made as far as it is opened (no curses here; tests/test_tree.c drives
 * it without a terminal).
 *
 * At the top are the rank groups (the ranks whose whole call sequence is
 * one rule); under a group, the symbols of its root rule; under a rule
 * reference, the symbols of that rule, once, whatever its count.  So a
 * loop of a million iterations is one node, "x1000000 [ MPI_Irecv ...
 * MPI_Waitall ]", and opening it shows its body once.  A call is a leaf,
 * with its count when it repeats in a row.  Under a group with ranks
 * that a recovered trace says were cut short (a signal, MPI_Abort...: the
 * meta key "cut"), one more leaf after the symbols, where their calls
 * stop, says how they ended; it is no call.  Nodes are made when their
 * parent is first opened (or a search walks through it) and keep their
 * fold state when an ancestor is closed and opened again.
 *
 * Nodes are numbered in the order they are made, and the numbers stay
 * valid for the tree's life.  Rows are the nodes the tree pane shows, in
 * order: every node whose ancestors are all open.  Time and memory grow
 * with what is opened, never with the number of calls.
 */
#ifndef RONDO_TREE_H
#define RONDO_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"

#define TREE_NONE UINT32_MAX

enum tree_kind {
	TREE_GROUP, /* a rank group: id is the group */
	TREE_RULE,  /* a rule, count times in a row (a loop when count > 1) */
	TREE_CALL,  /* a call signature, count times in a row */
	TREE_CUT,   /* where cut-short ranks stop: id is the group */
};

struct tree;

/* What one node is and holds. */
struct tree_info {
	enum tree_kind kind;
	uint32_t id;	 /* the group, rule or signature */
	uint64_t count;	 /* times in a row (1: once) */
	uint32_t depth;	 /* 0 for a group */
	uint32_t parent; /* TREE_NONE for a group */
	uint32_t group;	 /* the group it belongs to */
	int open;	 /* its children are shown (a call has none) */
	uint64_t calls;	 /* calls inside, per rank, count included (0 for
			    a TREE_CUT, and no time) */
	double time_ns;	 /* time inside, per rank (see tree_create) */
	uint32_t ranks;	 /* how many ranks run it: its group's size */
	/* in all: the node runs `runs` times per rank (the product of the
	 * counts of the loops around it), calls_all and time_all_ns per
	 * rank over all those runs (calls and time_ns are each run's) */
	uint64_t runs;
	uint64_t calls_all;
	double time_all_ns;
};

/*
 * A tree over trace t (which must outlive it), with every group closed.
 * The time inside a rule is estimated as its calls times each call's
 * signature's mean duration (the trace keeps aggregates per signature,
 * not per call); a group's is its ranks' mean time in MPI when the trace
 * has per-rank times.  Returns NULL when out of memory.
 */
struct tree *tree_create(const rondo_trace *t);
void tree_free(struct tree *tr);

/* The time all ranks spent in MPI, in ns (from the statistics). */
double tree_total_time(const struct tree *tr);

/* Rows shown, and the node of row r (TREE_NONE past the end). */
uint32_t tree_rows(const struct tree *tr);
uint32_t tree_row_node(const struct tree *tr, uint32_t row);
/* The row of node n, TREE_NONE when an ancestor is closed. */
uint32_t tree_node_row(const struct tree *tr, uint32_t n);

/* Fills *out for node n; 0 or RONDO_E_RANGE. */
int tree_info(const struct tree *tr, uint32_t n, struct tree_info *out);

/*
 * The text of node n's row, NUL-terminated when size > 0: "ranks 1-7 (7)"
 * or "rank 0"; "x1000 [ MPI_Irecv ... MPI_Waitall ]" for a loop (the first
 * and last calls of its body), "[ MPI_Send ... MPI_Recv ]" for a sequence
 * run once; a call's function and input values,
 * "MPI_Irecv(count=64, datatype=MPI_DOUBLE, source=+1, tag=0, comm=c0)",
 * with "x5 " before it when it repeats (ranks absolute when the group has
 * one rank, relative to the caller otherwise).  A group whose ranks were
 * cut short says how after its ranks, "rank 1  cut short: signal 15
 * (SIGTERM) inside MPI_Recv" ("ranks 1-3 (3)  cut short on rank 2: ..."
 * when not all were, "...; on rank 3: ..." for another ending), and its
 * last leaf says the same after the scissors: "8< cut short here: ...".
 * The ranks whose calls a file cut inside its grammar lost are a group
 * with no calls, "ranks 5-7 (3)  calls lost: the file is cut before
 * their rules".
 * "x" is the multiplication sign and "8<" the scissors when utf8 is set.
 * Returns the length the full text needs, or RONDO_E_RANGE.
 */
int tree_label(const struct tree *tr, uint32_t n, int utf8, char *buf,
	       size_t size);

/* Where node n is in the grammar: symbol *pos of rule *rule's body (for
 * rondo_loop_hist: a merged loop's label reads "×38–43", its range).
 * Returns 0, or RONDO_E_RANGE for a group, a cut or n out of range. */
int tree_site(const struct tree *tr, uint32_t n, uint32_t *rule, uint32_t *pos);

/* Opens node n (its children are made the first time), closes it, or
 * toggles it.  A call does not open.  Open and toggle return 0 or
 * RONDO_E_NOMEM (the node stays closed). */
int tree_open(struct tree *tr, uint32_t n);
void tree_close(struct tree *tr, uint32_t n);
int tree_toggle(struct tree *tr, uint32_t n);
/* Opens n and every node under it, depth first, until the rows number
 * max_rows: nodes past that stay closed.  0 or RONDO_E_NOMEM. */
int tree_open_all(struct tree *tr, uint32_t n, uint32_t max_rows);

/*
 * The rows in tree order (by_time 0: the grammar's), or heaviest first
 * within each level (1: the groups by their time over all their ranks,
 * a node's children by their time, calls when no time is known).  Folds
 * stay as they were.  0, or RONDO_E_NOMEM with the groups alone shown,
 * closed.
 */
int tree_set_order(struct tree *tr, int by_time);
int tree_order(const struct tree *tr);

/*
 * The groups shown: shown[g] set for each group the rows hold (one byte
 * per group, copied), or every group when shown is NULL (the rank
 * filter).  The rows are made again as tree_set_order makes them; a
 * hidden group keeps its folds, and searches pass it over.  0 or
 * RONDO_E_NOMEM (then as tree_set_order leaves them).
 */
int tree_set_groups(struct tree *tr, const uint8_t *shown);
/* Whether group g is among those shown (0 when out of range). */
int tree_group_shown(const struct tree *tr, uint32_t g);

/*
 * The heaviest path from node n: n opened, then its heaviest child, and
 * so on down to a call (a group's cut-short leaf is never taken).
 * Returns the last node (n itself when it is a call; TREE_NONE when n is
 * no node); a node that cannot be opened (out of memory) ends the path.
 */
uint32_t tree_heaviest(struct tree *tr, uint32_t n);
/* The node of the group of most time over all its ranks (the first of
 * them on a tie), TREE_NONE when there is none. */
uint32_t tree_heaviest_group(const struct tree *tr);

/*
 * Search: calls whose text (function name and every parameter, as
 * rondo_sig_format writes them) contains `text`, ignoring case.  Returns
 * how many signatures match (0 clears the search), or RONDO_E_NOMEM.
 */
int64_t tree_search(struct tree *tr, const char *text);
/* Whether node n is a call that matches the search. */
int tree_is_match(const struct tree *tr, uint32_t n);
/* Whether signature sig matches it. */
int tree_sig_matches(const struct tree *tr, uint32_t sig);

/*
 * The next (dir > 0) or previous (dir < 0) matching call after or before
 * node `from` in tree order (every node as if open: a node, then its
 * children), wrapping around at the ends; from TREE_NONE starts before
 * the first node or after the last.  The nodes that lead to it are
 * opened, none other.  Returns the node, or TREE_NONE when nothing matches
 * (or out of memory).
 */
uint32_t tree_search_next(struct tree *tr, uint32_t from, int dir);

/* Whether text holds part, ignoring case (an empty part is in any text):
 * the search's match, and the signature table's filter. */
int tree_text_has(const char *text, const char *part);

/*
 * Signature sig as rondo_sig_format writes it, with rank `rank`'s values
 * (rondo_sig_format_rank) unless rank is TREE_NONE; inputs_only cuts the
 * outputs (" -> ..." up to the closing parenthesis).  Returns the length
 * the full text needs, or a negative RONDO_E_* code.
 */
int tree_sig_text(const struct tree *tr, uint32_t sig, uint32_t rank,
		  int inputs_only, char *buf, size_t size);

/* Sets in[g] to 1 for every group g whose ranks call signature sig (the
 * array has one byte per group), 0 for the others; 0 or RONDO_E_NOMEM. */
int tree_sig_groups(const struct tree *tr, uint32_t sig, uint8_t *in);

/* Sets sig[s] to 1 for every signature s that group g's ranks call (the
 * array has one byte per signature; the others are left as they were),
 * from the rules its root reaches; 0 or RONDO_E_NOMEM. */
int tree_group_sigs(const struct tree *tr, uint32_t g, uint8_t *sig);

/* The first call of signature sig in tree order, opened as above; TREE_NONE
 * when no rank calls it. */
uint32_t tree_find_sig(struct tree *tr, uint32_t sig);

/* The group of rank `rank`, TREE_NONE when out of range. */
uint32_t tree_rank_group(const struct tree *tr, uint32_t rank);

/*
 * The call that is call `index` (from 0) of rank `rank` in program
 * order: the leaf that makes it, found by the calls under each node (no
 * expansion), the nodes that lead to it opened; *within (may be NULL) is
 * which of the leaf's repeats in a row it is.  TREE_NONE when the rank or
 * the index is out of range, or out of memory.
 */
uint32_t tree_find_call(struct tree *tr, uint32_t rank, uint64_t index,
			uint64_t *within);

/* The index in its ranks' calls of node n's first call, the first time
 * it runs (0 for a group, or n out of range). */
uint64_t tree_node_first_call(const struct tree *tr, uint32_t n);

#endif /* RONDO_TREE_H */
