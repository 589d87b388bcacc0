/*
 * merge_int.h - what merge.c (the cross-rank tables) and merge_wire.c (a
 * merge as a message between ranks) share, and no one else: the layout
 * of a merge, a message decoded, and what the wire calls in merge.c
 * (never the other way).
 */
#ifndef RONDO_MERGE_INT_H
#define RONDO_MERGE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "merge.h"

/* Argument bytes; a chunk is full when the next signature does not fit. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	uint8_t data[];
};

/* An index slot: the entry's number + 1 (0: empty) and the low half of
 * its hash, so that probing and growing rarely touch the entries. */
struct slot {
	uint32_t idx1;
	uint32_t hash;
};

struct table {
	struct slot *slot;
	size_t mask; /* capacity - 1; capacity a power of two, or 0 */
};

struct sigs {
	struct fmt_cst cst; /* the global table, as merge_cst() returns it */
	size_t cap;
	struct chunk *arena; /* newest first */
	struct table index;
};

/* The rules of all the rank grammars, each distinct rule once (a rank's
 * whole grammar is its root rule, and the rules under it). */
struct grams {
	struct fmt_grammar all; /* in dependency order */
	size_t rules_cap, body_cap;
	struct table index; /* rule body -> rule id */
	uint8_t *is_root;   /* rules some rank's calls are */
	size_t roots_cap;
	uint32_t nroots;     /* distinct rank grammars */
	struct grammar *map; /* the sequence of rank roots */
	uint32_t nranks;
	int failed; /* the map engine ran out of memory: only free is left */
};

/* The rest of a range of ranks' tables. */
struct extra {
	uint32_t failed; /* ranks whose tables were missing or damaged */
	uint64_t calls;
	rondo_stat *stat; /* by signature id, sigs.cst.n of them in use */
	size_t capstat;
	rondo_stat *gap; /* the time before each call, likewise */
	size_t capgap;
	/* Each rank's time per signature: rank k's signature ids (increasing)
	 * and time codes are sig[at[k] .. at[k + 1]). */
	uint64_t *at;
	size_t capat;
	uint32_t *sig;
	uint16_t *code;
	size_t ntime, capsig, capcode;
	uint16_t *mpi; /* each rank's time in MPI, a time code of the exact
			  sum of its signatures' totals */
	size_t capmpi;
	/* Each rank's time before its calls of the same signatures, beside
	 * sig: how many came after another call (0: none) and their total,
	 * a time code. */
	uint64_t *gcalls;
	uint16_t *gcode;
	size_t capgcalls, capgcode;
	/* Each rank's root rule (its rank group), in rank order. */
	uint32_t *root;
	size_t caproot;
	/* The communicator identities the ranks speak for, and their
	 * Cartesian topologies (ndims 0: none). */
	struct fmt_comms comms;
	uint64_t *key;
	struct fmt_topo *topo;
	size_t capcomms, capkeys, captopos;
	struct table comm_index;
	/* The ranks' per-rank values, in rank order. */
	struct merge_val *val;
	size_t nval, capval;
};

/* Per-call timing (merge_set_timing): every rank's coded segments, their
 * bytes one after another, and each rank's clock origin. */
struct timing {
	double base; /* 0: no per-call timing (yet) */
	int64_t *origin;
	uint64_t *first; /* nranks + 1: rank r's segments from first[r] */
	size_t capo, capf, caps;
	struct fmt_tseg *seg;
	uint64_t nseg;
	struct fmt_buf data;
	uint32_t nranks; /* ranks whose timing is in */
};

struct merge {
	struct sigs sigs;
	struct grams grams;
	struct extra x;
	struct timing t;
};

/* A range's parts, decoded. */
struct range {
	uint64_t nranks, failed, calls;
	struct fmt_cst cst;
	struct fmt_grammar grams, map;
	struct fmt_stats st, gaps;
	struct fmt_ranktime times;
	uint64_t *keys;
	struct fmt_topos topos; /* one per communicator, in its order */
	struct fmt_comms comms;
	struct fmt_timing timing; /* base 0: none */
	struct merge_val *val;	  /* ranks from 0 in the range */
	size_t nval;
	uint16_t *mpi; /* nranks time codes */
	/* beside times.code: the time before calls (merge_int.h, extra) */
	uint64_t *gcalls;
	uint16_t *gcode;
};

/* ---- merge.c ------------------------------------------------------------- */

/* Ranks added before without timing get none, when timing is on.
 * Returns 0 or RONDO_E_NOMEM. */
int merge_timing_pad(struct merge *m);
/* The section as the merge holds it, its arrays the merge's own (not to
 * be freed); call merge_timing_pad first. */
void merge_timing_view(struct merge *m, struct fmt_timing *out);

/* Reads one per-rank value (slot, then an argument value of wire NONE,
 * UINT or SINT) into *v: 0, or RONDO_E_CORRUPT / TRUNCATED. */
int merge_val_read(struct fmt_cur *c, struct merge_val *v);

/* Appends a decoded range: everything is checked before the ranks are
 * added, so a damaged range adds none.  Returns 0 or a RONDO_E_* code;
 * a failure after some of its ranks went in stops the merge (only free
 * is left). */
int merge_range_add(struct merge *m, const struct range *r);

#endif /* RONDO_MERGE_INT_H */
