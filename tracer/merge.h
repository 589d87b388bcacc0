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
 * ids) is added in rank order.  Every rule is stored once (a hash first,
 * then a full comparison, bottom up), so identical rank grammars share
 * their root and ranks that differ share what they have in common; the
 * sequence of rank roots is compressed with the grammar engine into the
 * rank map.
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
 * Produces the combined grammar (every distinct rule once, dependency
 * order kept) and the rank map.  `all` and `rm` are
 * filled with malloc'd arrays (free with fmt_grammar_free and
 * fmt_rankmap_free).  Returns 0, RONDO_E_NOMEM, or RONDO_E_STATE if no
 * grammar was added.
 */
int merge_finish(struct merge *m, struct fmt_grammar *all,
		 struct fmt_rankmap *rm);

/* Adds the statistics s to those in to (counts, sums, the smaller min, the
 * larger max, the histograms). */
void merge_stat_add(rondo_stat *to, const rondo_stat *s);

/* ---- ranges of ranks --------------------------------------------------------
 * The tracer merges the ranks of a job in a tree: each rank makes a merge
 * of its own tables (merge_add_rank, merge_add_comm), takes in the encoded
 * merges of the ranges of ranks that follow it (merge_add_encoded) and
 * sends its own on (merge_encode), until rank 0 holds the whole job.
 * Statistics are summed per signature and each rank's time per signature
 * kept; identical rank grammars, signatures and communicators are stored
 * once at every step.
 */

/*
 * Adds the next rank: its signatures, its grammar over them (local ids;
 * no rule: no call) and its statistics over them (the rank's time per
 * signature comes from their totals).  Returns 0, RONDO_E_NOMEM,
 * RONDO_E_RANGE for a grammar or statistics out of the table's range, or
 * RONDO_E_STATE after a failure that stopped the merge.
 */
int merge_add_rank(struct merge *m, const struct fmt_cst *cst,
		   const struct fmt_grammar *g, const struct fmt_stats *st);

/* Adds statistics of the time before each call (the computation between
 * calls) over the signatures of cst, a rank's, after merge_add_rank.
 * Returns 0, RONDO_E_NOMEM, RONDO_E_RANGE, or RONDO_E_STATE. */
int merge_add_gaps(struct merge *m, const struct fmt_cst *cst,
		   const struct fmt_stats *gaps);

/* Adds n ranks with no call, counted as failed (their tables are missing
 * or damaged). */
int merge_add_failed(struct merge *m, uint32_t n);

/* Counts n of the ranks added as failed: their calls are there up to a
 * failure (out of memory), not after. */
void merge_mark_failed(struct merge *m, uint32_t n);

/* A communicator identity (key), its members as world ranks and its
 * Cartesian topology (NULL or ndims 0: none; its comm field is not used);
 * the same key again is ignored. */
int merge_add_comm(struct merge *m, uint64_t key, const struct fmt_comm *c,
		   const struct fmt_topo *g);

/* The merge so far, for merge_add_encoded at the other end (ranks added
 * without their timing get none, when timing is on). */
int merge_encode(struct merge *m, struct fmt_buf *b);

/*
 * Appends the ranks of an encoded merge, which must hold nranks ranks
 * (functions below nfuncs, world ranks below nworld).  Everything is
 * checked before anything is added: a damaged one adds nranks failed
 * ranks and returns RONDO_E_CORRUPT or RONDO_E_TRUNCATED.  Other
 * returns: 0, RONDO_E_NOMEM or RONDO_E_STATE (the merge cannot go on).
 */
int merge_add_encoded(struct merge *m, const uint8_t *p, size_t n,
		      uint32_t nranks, uint32_t nfuncs, uint32_t nworld);

/* ---- per-rank values (relative.c) ----------------------------------------
 * A value that differs by rank (kind VARY in a signature) is kept per
 * rank: each rank's values travel with the merge, in rank order, and
 * job.c makes section rankvals of them. */
struct merge_val {
	uint32_t rank; /* in the merge, from 0 */
	uint32_t slot;
	struct fmt_rval v;
};

/* Adds the per-rank values of the rank added last, as relative_values
 * gives them.  Returns 0, RONDO_E_NOMEM, RONDO_E_CORRUPT for bytes that
 * are not such values, or RONDO_E_STATE when no rank was added. */
int merge_add_values(struct merge *m, const uint8_t *p, size_t n);

/* The values so far, in rank order, and how many (*n). */
const struct merge_val *merge_values(const struct merge *m, size_t *n);

/* Ranks added, those of them failed, and MPI calls (from the statistics). */
uint32_t merge_ranks(const struct merge *m);
uint32_t merge_failed(const struct merge *m);
uint64_t merge_calls(const struct merge *m);

/* Statistics by signature id, one per signature of merge_cst(m); NULL
 * when out of memory. */
const rondo_stat *merge_stats(struct merge *m);
/* The same for the time before each call (merge_add_gaps). */
const rondo_stat *merge_gaps(struct merge *m);

/* The time before calls per rank group (the ranks' root rules, as
 * merge_finish numbers them): what the ranks of each group computed
 * before their calls of each signature, their totals summed (each within
 * 1/128 of the measured one).  Groups with no such time are left out.
 * Free with fmt_groupgaps_free.  Returns 0 or RONDO_E_NOMEM. */
int merge_groupgaps(const struct merge *m, struct fmt_groupgaps *out);

/* Each rank's time per signature (pointers owned by m). */
void merge_ranktime(const struct merge *m, struct fmt_ranktime *rt);
/* Each rank's time in MPI, a time code of the exact sum of its
 * signatures' totals (owned by m; merge_ranks() of them, or NULL when
 * there are none). */
const uint16_t *merge_rank_mpi(const struct merge *m);

/* The communicators, their identities in *keys and their topologies in
 * *topo, one each, in the same order (owned by m). */
const struct fmt_comms *merge_comms(const struct merge *m,
				    const uint64_t **keys,
				    const struct fmt_topo **topo);

/* ---- per-call timing ----------------------------------------------------
 * Each rank may come with its per-call timing: its coded stream of
 * duration and interval codes (fmt_tstream, of one base for the whole
 * merge; the segments of a range's ranks as they came) and its clock
 * origin.  A rank added without timing has none (no segment), and so do
 * the ranks of a range with another base. */

/* Turns per-call timing on with base b (the ranks added so far get
 * none).  Returns 0, RONDO_E_RANGE for a bad base, RONDO_E_STATE when it
 * is on with another base, or RONDO_E_NOMEM. */
int merge_set_timing(struct merge *m, double base);
/* The base, 0 when timing is off. */
double merge_timing_base(const struct merge *m);

/* The timing of the rank added last (merge_add_rank or
 * merge_add_grammar): a coded stream of `calls` calls in n bytes at p
 * (calls 0: none) and the origin of its clock.  Returns 0, RONDO_E_STATE
 * (timing off, or that rank has its timing), RONDO_E_RANGE or
 * RONDO_E_NOMEM. */
int merge_add_timing(struct merge *m, const uint8_t *p, size_t n,
		     uint64_t calls, int64_t origin);

/* The section's content (copies: free with fmt_timing_free), its offsets
 * the ranks' origins as given.  Returns 0, RONDO_E_MISSING when timing is
 * off, or RONDO_E_NOMEM. */
int merge_timing(struct merge *m, struct fmt_timing *out);

#endif /* RONDO_MERGE_H */
