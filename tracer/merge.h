/*
 * merge.h - combining the ranks' tables and grammars into one trace.
 *
 * Pure data work, no MPI: the tracer feeds it what each rank sent at
 * MPI_Finalize; the tests' writer feeds it grammars it built itself.
 *
 * Signatures: every rank numbers its call signatures locally; the merge
 * gives each distinct (function, argument bytes) one global id, in order of
 * first appearance (rank 0's first, then rank 1's new ones...), and a map
 * from each rank's local ids to the global ones.
 *
 * Grammars: each rank's grammar (terminals already renumbered to global
 * ids) is added in rank order.  Identical rank grammars are stored once
 * (a hash first, then a full comparison), distinct ones get their rules
 * renumbered into one grammar, and the sequence of rank roots is
 * compressed with the grammar engine into the rank map.
 */
#ifndef RONDO_MERGE_H
#define RONDO_MERGE_H

#include <stdint.h>

#include "format.h"

struct merge;

/* Returns a new merge, or NULL when out of memory. */
struct merge *merge_create(void);

/* Frees m; accepts NULL. */
void merge_free(struct merge *m);

/*
 * Adds the next rank's signature table.  Sets map[i] (map has cst->n
 * entries) to the global id of the rank's signature i.  The bytes are
 * copied.  Returns 0 or RONDO_E_NOMEM.
 */
int merge_add_cst(struct merge *m, const struct fmt_cst *cst, uint32_t *map);

/* The global signature table so far (pointers owned by m). */
const struct fmt_cst *merge_cst(const struct merge *m);

/*
 * Adds the next rank's grammar, whose terminals must already be global ids
 * (rank order: the k-th call is rank k).  The grammar is copied.  Returns 0,
 * RONDO_E_NOMEM, RONDO_E_RANGE for a grammar that is not well formed (no
 * rule, a reference to itself or a later rule, a count of 0, or the whole
 * past 2^31 rules or 2^32 symbols), or RONDO_E_STATE once the rank map's
 * engine ran out of memory.
 */
int merge_add_grammar(struct merge *m, const struct fmt_grammar *g);

/* Number of distinct rank grammars so far. */
uint32_t merge_unique(const struct merge *m);

/*
 * Produces the combined grammar (every distinct rank grammar once, rules
 * renumbered, dependency order kept) and the rank map.  `all` and `rm` are
 * filled with malloc'd arrays (free with fmt_grammar_free and
 * fmt_rankmap_free).  Returns 0, RONDO_E_NOMEM, or RONDO_E_STATE if no
 * grammar was added.
 */
int merge_finish(struct merge *m, struct fmt_grammar *all,
		 struct fmt_rankmap *rm);

#endif /* RONDO_MERGE_H */
