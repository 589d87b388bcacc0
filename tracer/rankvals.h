/*
 * rankvals.h - section rankvals made from the ranks' per-rank values
 * (see rankvals.c).
 */
#ifndef RONDO_RANKVALS_H
#define RONDO_RANKVALS_H

#include "format.h"
#include "merge.h"

/* The number of slots the signatures of cst name (1 + the largest VARY
 * value among their arguments; 0 when none does). */
uint32_t rankvals_named(const struct fmt_cst *cst);

/*
 * Makes the section of nslots slots over nranks ranks from the n values
 * v (in rank order; communicator identities given to comm, which returns
 * their ids).  Slots with the same values on every rank become one:
 * (*renumber)[k] (malloc'd, nslots entries) is slot k's number in *out.
 * A slot no rank gave a value has the NULL value everywhere.  Returns 0,
 * or -1 when out of memory (*out then empty).
 */
int rankvals_make(const struct merge_val *v, size_t n, uint32_t nslots,
		  uint32_t nranks, uint64_t (*comm)(void *ctx, uint64_t key),
		  void *ctx, struct fmt_rankvals *out, uint32_t **renumber);

#endif /* RONDO_RANKVALS_H */
