/*
 * precision.h - a job's grammar with its loop counts merged at a
 * precision below 100 % (RONDO_PRECISION; precision.c says how).
 */
#ifndef RONDO_PRECISION_H
#define RONDO_PRECISION_H

#include <stdint.h>

#include "format.h"

/* Precision 100: lossless, nothing merged. */
#define PRECISION_LOSSLESS 100

/* A group of ranks in a rank map: its root rule, how many ranks, the
 * first of them. */
struct precision_group {
	uint32_t root, ranks, first;
};

/* The rank map's groups, one per root (roots below nrules, else
 * RONDO_E_RANGE), sorted by root: *n of them in *out (free it).  0,
 * RONDO_E_NOMEM or RONDO_E_RANGE. */
int precision_groups(const struct fmt_rankmap *rm, uint32_t nrules,
		     struct precision_group **out, uint32_t *n);

/*
 * Rewrites the job's grammar g (terminals below nterminals), its rank map
 * rm (whose terminals are g's rules) and the groups' gaps gg (their
 * roots) so that loops of the same body whose counts one count is within
 * (100 - precision) % of are one loop of that count (their mean, rounded,
 * where it is within); the histograms of the counts and the symbols that
 * stand for them go into *out.  Where no count was merged, g, rm and gg are left
 * as they were (but refolded, when refold is 1: signatures were merged,
 * so that steps alike now fold) and out->n is 0.  Each pass is whole or not done: one that
 * fails leaves what the passes before it did (and 0 is returned).
 * Returns 0, RONDO_E_RANGE (a grammar too large for the engine's
 * terminals, or counts past 2^64: nothing done) or RONDO_E_NOMEM (nothing
 * done).
 */
int precision_apply(struct fmt_grammar *g, struct fmt_rankmap *rm,
		    struct fmt_groupgaps *gg, uint32_t nterminals,
		    uint32_t precision, int refold, struct fmt_hists *out);

/* A value seen w times, first by rank `rank`. */
struct precision_val {
	uint64_t v, w;
	uint32_t rank;
};

/* Fills h, a histogram of kind `kind`, from n values, distinct and
 * increasing: each kept exactly up to 32 of them, else in bins of a
 * quarter more than their least.  Returns 0, RONDO_E_NOMEM or
 * RONDO_E_RANGE (sums past 2^64); h->bin is to be freed in every case. */
int precision_hist(struct fmt_hist *h, uint32_t kind,
		   const struct precision_val *v, uint32_t n);

#endif /* RONDO_PRECISION_H */
