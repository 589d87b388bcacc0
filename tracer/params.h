/*
 * params.h - signatures equal but for a count, a size or a displacement,
 * merged at a precision below 100 % (RONDO_PRECISION; params.c says how).
 *
 * In two steps, around the merge of loop counts (precision.h): the plan
 * says which signatures become one and gives each old signature its new
 * id, so that the caller renumbers what is kept by signature (grammar,
 * statistics, per-rank times) before the grammar is folded again; the
 * write, once the loops' histograms are known, appends the values'
 * histograms after them and makes the merged signatures' arguments.
 */
#ifndef RONDO_PARAMS_H
#define RONDO_PARAMS_H

#include <stdint.h>

#include "format.h"
#include "util.h"

struct params_class;

struct params_plan {
	uint32_t nold, nnew; /* signatures before and after */
	uint32_t *to;	     /* nold: each old signature's new id */
	uint32_t nclasses;   /* signatures made of several */
	uint32_t nmerged;    /* old signatures in them */
	uint32_t ntags;	     /* histograms of tags among plan->h's */
	uint32_t npeers;     /* and of peers */
	uint64_t nvalues;    /* calls whose values the histograms count */
	struct params_class *cls;
	struct fmt_hists h;  /* the histograms, numbered from 0 */
	struct fmt_sig *sig; /* the new signatures, nnew */
	struct fmt_buf blob; /* their arguments' bytes */
};

/*
 * Plans the merge of cst's signatures (functions numbered as in
 * funcs[0..nfuncs-1], whose output flags are not NULL) whose arguments are
 * all equal but for integer inputs named as counts or displacements
 * (count, sendcount, target_disp... never incount or outcount), and tags
 * when `what` has PARAMS_TAGS (params_mergeable), each of those within (100 - precision) % of every value of its kind in the
 * merged signature.  calls[s] is how many calls signature s had (over
 * all ranks), first[s] the first rank that called it.  Signatures with no
 * call stay as they are.  Returns 0
 * (plan->nclasses 0: nothing to merge), RONDO_E_NOMEM or RONDO_E_RANGE
 * (sums past 2^64); free with params_free().
 */
int params_plan(struct params_plan *plan, const struct fmt_cst *cst,
		const struct fmt_func *funcs, uint32_t nfuncs,
		const uint64_t *calls, const uint32_t *first,
		uint32_t precision, unsigned what);

/*
 * Makes cst the planned one (plan->nnew signatures, their arguments in
 * the plan's bytes, which must outlive cst's use), the values' histograms
 * first in hs (the merged arguments name them from 0 on), the loops'
 * after them.  Returns 0 or RONDO_E_NOMEM (cst and hs then as they
 * were).
 */
int params_write(struct params_plan *plan, struct fmt_cst *cst,
		 struct fmt_hists *hs);

void params_free(struct params_plan *plan);

/* What may merge besides counts and displacements
 * (RONDO_PRECISION_PARAMS, util_params): tags, peers. */
#define PARAMS_TAGS  UTIL_MERGE_TAGS
#define PARAMS_PEERS UTIL_MERGE_PEERS

/* Whether parameter `name` of function `func`, of kind `kind`, may
 * merge: a count or a displacement of data moved (kind INT: count,
 * sendcount, target_disp...; not the counts of MPI_Waitall,
 * MPI_Type_vector...), with PARAMS_TAGS in `what` a message's tag
 * (kind TAG: tag, sendtag, recvtag of sends, receives and probes), with
 * PARAMS_PEERS a point-to-point call's peer (kind RANK_REL: dest,
 * source).  The tracer's request pools leave these out too
 * (tracer/requests.c). */
int params_mergeable(const char *func, const char *name, uint32_t kind,
		     unsigned what);

/* Each signature's first rank (first[0..nterminals-1]; UINT32_MAX for one
 * no rank calls), from the rank groups' rules.  0 or RONDO_E_NOMEM. */
int params_first_ranks(const struct fmt_grammar *g,
		       const struct fmt_rankmap *rm, uint32_t nterminals,
		       uint32_t *first);

/* Rules of g whose bodies are the same once their signatures were merged
 * are one: canon[r] (nrules entries) is the first rule of r's body, and
 * every body names the first ones (the others are left unnamed).
 * Returns how many rules are the same as one before them, or
 * RONDO_E_NOMEM (g as it was). */
int params_same_rules(struct fmt_grammar *g, uint32_t *canon);

#endif /* RONDO_PARAMS_H */
