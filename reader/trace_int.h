/*
 * trace_int.h - librondo's private structures, shared by its source files.
 */
#ifndef RONDO_TRACE_INT_H
#define RONDO_TRACE_INT_H

#include "format.h"
#include "rondo.h"

/* One rank group: the ranks whose whole call sequence is rule `root`. */
struct trace_group {
	uint32_t root;
	uint32_t size;
	uint32_t gaps; /* its entry in ggaps (UINT32_MAX: none) */
};

#define TRACE_MAX_DAMAGE 24

struct rondo_trace {
	int opened;
	char *name; /* for messages: the path, or the caller's name */
	uint8_t *data;
	size_t size;
	struct fmt_container c;

	struct fmt_meta meta;
	struct fmt_funcs funcs;
	struct fmt_consts consts;
	struct fmt_cst cst;
	struct fmt_grammar g;
	uint64_t *rule_calls; /* calls each rule expands to */
	uint64_t nsyms;
	uint32_t depth; /* longest chain of rule references, plus one */
	/* a grammar cut by the end of the file: the rules whole before the
	 * cut, then an empty one, lost_rule, that every rank whose root
	 * was past the cut has as its root (its calls are lost); lost_rule
	 * is UINT32_MAX for a whole grammar.  nlost: those ranks. */
	uint32_t lost_rule, nlost;
	struct fmt_rankmap rm;
	uint32_t *rank_root; /* the rank map, expanded: one rule per rank */
	uint32_t *rank_group;
	uint32_t ngroups;
	struct trace_group *groups;
	struct fmt_stats stats;
	struct fmt_stats gaps; /* section gapstats: the time before calls */
	struct fmt_groupgaps ggaps; /* groupgaps: the same per rank group */
	struct fmt_hists hists;	    /* loop counts merged (n 0: none) */
	struct fmt_comms comms;
	struct fmt_topos topos;
	struct fmt_typesizes typesizes;
	struct fmt_ranktime times; /* at == NULL: the file has none */
	/* the spreads over ranks: the section ranksum (summed), or made
	 * from times (mpi NULL); nranks 0 when neither is there */
	struct fmt_ranksum sum;
	int summed;
	/* per-call timing: timing.nranks == 0 when the file has none */
	struct fmt_timing timing;
	struct fmt_tscale tscale;
	uint64_t *ttimed; /* per rank: its calls with times */
	uint32_t *tseq;	  /* up to 1.7, 2 per rank: its durations' and
			     intervals' rules */
	uint32_t tdepth;  /* the timing grammar's depth bound */
	/* values that differ by rank: slot k's value for rank r is
	 * vary[k * nranks + r] (rankvals.n slots; the section is freed
	 * once expanded) */
	struct fmt_rankvals rankvals;
	struct fmt_rval *vary;
	uint32_t nvary;
	/* rank resolution (ranks.c): the constants it compares values
	 * with (UINT32_MAX: the trace has none), and each communicator's
	 * members sorted by world rank, order[base[c]...] indices into
	 * comms.c[c].world */
	uint32_t k_world, k_self, k_proc_null, k_any_source, k_root;
	uint64_t *comm_base;
	uint32_t *comm_order;

	char err[512];
	rondo_error einfo; /* the same failure as data */
	/* what a file opened all the same could not give */
	char damage[TRACE_MAX_DAMAGE][160];
	uint32_t ndamage;
};

/* Prepares rank resolution once the sections are decoded (ranks.c):
 * 0 or RONDO_E_NOMEM.  ranks_free releases it. */
int ranks_init(rondo_trace *t);
void ranks_free(rondo_trace *t);

/*
 * A walk over the expansion of one rule of a grammar, one terminal at a
 * time, holding one frame per level.  Used for ranks' calls and for the rank
 * map itself.
 */
struct walk_frame {
	uint32_t rule;
	uint32_t pos;  /* index of the current symbol in the body */
	uint64_t done; /* repetitions of that symbol already produced */
	uint64_t n;    /* with a draw: the count drawn for it, 0 not yet */
};

/* Merged loops drawn (rondo_iter_draw): a site of a histogram runs a
 * count drawn from it, the k-th entry into a loop of histogram h drawing
 * from (seed, key[h], k). */
struct walk_draw {
	const struct fmt_hists *h;
	uint64_t seed;
	uint64_t *key;	 /* per histogram: draw_key of its contents */
	uint64_t *drawn; /* per histogram: the draws made */
	uint64_t *first; /* per histogram: its first bin in bin[] */
	struct draw_bin *bin;
};

struct walk {
	const struct fmt_grammar *g;
	const uint64_t *len; /* expansion length per rule (kept counts) */
	struct walk_frame *st;
	uint32_t depth, cap;
	uint64_t pos;
	struct walk_draw *draw; /* NULL: every symbol runs its count */
};

/* Starts a walk over `rule`; cap is the grammar's depth bound (frames). */
int walk_init(struct walk *w, const struct fmt_grammar *g, const uint64_t *len,
	      uint32_t cap, uint32_t rule);
void walk_free(struct walk *w);
/* 1 and *term set, or 0 at the end. */
int walk_next(struct walk *w, uint32_t *term);
/* 0, or RONDO_E_RANGE if the expansion ends first (with a draw, one
 * call at a time: the lengths are the kept counts'). */
int walk_skip(struct walk *w, uint64_t n);

/* Sets *depth to the depth bound of a grammar whose rules refer only to
 * smaller ids: the longest chain of references plus one.  Returns 0 or
 * RONDO_E_NOMEM. */
int walk_depth(const struct fmt_grammar *g, uint32_t *depth);

#endif /* RONDO_TRACE_INT_H */
