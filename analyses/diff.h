/*
 * diff.h - how two traces of the same program differ (rondo diff): in
 * each rank's calls, call by call, in the calls of each signature and
 * function per rank, in the point-to-point matrix and in time.
 *
 * Signatures are matched across the two traces by what they say (the
 * function's name, each value, a constant by its name), never by their
 * ids, which depend on the order each trace met them.  Every rank's
 * calls are compared without expanding them: each rule gets a
 * polynomial hash of its expansion (a rule's repeats cost a geometric
 * sum, not a loop), so two ranks' sequences are compared by their roots'
 * hashes, and the first call where they differ is found by a binary
 * search over prefix hashes, each a descent of the grammar.  Ranks that
 * have the same root in A and the same root in B are compared once.
 */
#ifndef RONDO_DIFF_H
#define RONDO_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"

/* No signature: past the end of a rank's calls, or absent from a trace. */
#define AN_DIFF_NONE UINT32_MAX

struct an_diff_opts {
	/* Buffer and request values (segment ids, offsets, request ids)
	 * are left out of the comparison: they follow the order of the
	 * program's allocations, which a replay need not keep. */
	int ignore_buffers;
};

/* A signature as both traces know it: sig[0] in A, sig[1] in B (one of
 * those with this content; AN_DIFF_NONE when that trace has none). */
struct an_diff_key {
	uint64_t hash;
	uint32_t sig[2];
	uint32_t func;			/* an_diff's function index */
	uint64_t count[2], total_ns[2]; /* statistics, summed over the
					   signatures with this key */
};

/* Ranks whose calls differ the same way: the same root in A and in B. */
struct an_diff_calls {
	uint64_t calls[2]; /* each side's calls */
	uint64_t at;	   /* the first call that differs (from 0) */
	uint32_t key[2];   /* the calls there (AN_DIFF_NONE: past the end) */
	uint32_t *ranks, nranks;
};

/* A key or a function whose calls differ per rank: n[0] in A, n[1] in B,
 * on each of the ranks listed. */
struct an_diff_count {
	uint32_t id; /* key or function index */
	uint64_t n[2];
	uint32_t *ranks, nranks;
};

/* A cell of the point-to-point matrix that differs. */
struct an_diff_cell {
	uint32_t src, dst;
	uint64_t msgs[2], bytes[2];
};

struct an_diff {
	uint32_t nranks[2];
	uint64_t calls[2];
	int same; /* every rank's calls equal, call by call */

	uint32_t nkeys;
	struct an_diff_key *keys;
	uint32_t nfuncs;
	const char **funcs; /* names, from A or B */

	size_t nseqs, nsigs, nfcounts, ncells;
	struct an_diff_calls *seqs;    /* by first rank */
	struct an_diff_count *sigs;    /* by key, then first rank */
	struct an_diff_count *fcounts; /* by function, then first rank */
	struct an_diff_cell *cells;    /* by sender, then receiver */
	int matrix;		       /* the matrices were compared */

	/* per rank (below both traces' rank counts) its time in MPI in
	 * each, or none when a trace keeps no per-rank times */
	uint64_t *rank_ns[2];
};

/**
 * Compares traces a and b into *d (freed with an_diff_free, also after a
 * failure).  Returns 0, or a RONDO_E_* code (RONDO_E_NOMEM).
 */
int an_diff(const rondo_trace *a, const rondo_trace *b,
	    const struct an_diff_opts *o, struct an_diff *d);

void an_diff_free(struct an_diff *d);

#endif /* RONDO_DIFF_H */
