/*
 * gdiff.h - where two rank groups of one trace differ (rondo diff
 * --groups, the explorer's comparison): why ranks 1 and 2 are in
 * different groups.
 *
 * The groups' root rules are walked together, never expanded: each pair
 * of rule bodies is aligned symbol by symbol (a symbol is a call
 * signature or a rule, with its count in a row): the common start and
 * end first, runs of the same symbol matched as far as both have them (a
 * loop of 50 against one of 25, a call, one of 24: 49 runs matched), the
 * rest by a longest common subsequence; what is left are the stretches
 * that differ.  A stretch of one rule against one rule run
 * as many times is walked into, down to the calls that differ; any other
 * stretch is a difference as it stands (a call against another, a loop
 * run 8 times against 9, calls one side has and the other not).  Rules
 * that are the same on both sides are never opened: time and memory grow
 * with the rules that differ, not with the calls.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.
 */
#ifndef RONDO_GDIFF_H
#define RONDO_GDIFF_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"

/* Stretches kept at most; past them, an_gdiff.more says so. */
#define AN_GDIFF_MAX 1000

/* A stretch that differs: the symbols sym[s][0 .. nsym[s]) of side s (0:
 * the first group, 1: the second) where the other side has its own (none
 * when one side has calls the other has not); a symbol's count is what
 * is left of it once the runs of the same symbol on both sides are
 * matched (x50 against x25 ... x24 leaves x1). */
struct an_gdiff_hunk {
	rondo_sym *sym[2];
	uint32_t nsym[2];
	/* each side's first call of it among its ranks' calls, the first
	 * time it runs (from 0); depth: the rules walked into to reach it
	 * (0: in the roots) */
	uint64_t at[2];
	uint32_t depth;
	/* the rule walked into last on each side, and how many times it
	 * runs in a row there (rule UINT32_MAX at the roots) */
	uint32_t loop[2];
	uint64_t loop_count;
};

struct an_gdiff {
	uint32_t group[2];
	struct an_gdiff_hunk *hunk;
	uint32_t n;
	int more; /* more stretches than AN_GDIFF_MAX differ */
};

/* Compares groups ga and gb; *d is filled (an_gdiff_free frees it).
 * RONDO_E_RANGE for a group out of range, RONDO_E_NOMEM. */
int an_gdiff(const rondo_trace *t, uint32_t ga, uint32_t gb,
	     struct an_gdiff *d);
void an_gdiff_free(struct an_gdiff *d);

/* "rank 1" or "ranks 1,3-14 (13)": group g, as the explorer names it. */
void an_group_name(const rondo_trace *t, uint32_t g, char *buf, size_t size);

/* Symbol s as the explorer's tree writes it: a call as rank `rank` made
 * it (rondo_sig_format_rank; UINT32_MAX: as stored), "x5 " before it
 * when it repeats; a rule as "x8 [ MPI_Irecv ... MPI_Waitall ]" (its
 * first and last calls; the multiplication sign and an ellipsis with
 * utf8).  Returns the length the full text needs, or a RONDO_E_* code. */
int an_sym_text(const rondo_trace *t, const rondo_sym *s, uint32_t rank,
		int utf8, char *buf, size_t size);

/* Where stretch h is, "at the top level" or "in x8 [ A, B ] (each
 * run)" (each side's loop when they differ), then each side's first call
 * there as ranks rank[0] and rank[1]: ": call 183 of rank 1 <, call 183
 * of rank 2 >".  Returns the length the full text needs. */
int an_gdiff_where(const rondo_trace *t, const struct an_gdiff_hunk *h,
		   const uint32_t rank[2], int utf8, char *buf, size_t size);

#endif /* RONDO_GDIFF_H */
