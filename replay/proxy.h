/*
 * proxy.h - what a proxy written by `rondo proxy` is made of, besides the
 * runtime it shares with rondo-replay (replay.h): its tables, written as
 * C data from the trace, and the calls its rule functions make.  Part of
 * every proxy; not compiled into rondo itself.
 */
#ifndef RONDO_PROXY_H
#define RONDO_PROXY_H

#include "replay.h"

/* A function of the trace: its parameters' names as the trace has them
 * (space-separated), the call that issues it (NULL: by hand, or never
 * called). */
struct px_func {
	const char *name;
	const char *params;
	rp_fn fn;
};

/* A value that differs by rank: its integer for each rank. */
struct px_var {
	struct rp_val *at;
	const int64_t *i;
};

/* A call signature: its values for every rank (v), or each rank's own
 * (by_rank), patched by var; the mean time before its calls over all
 * ranks. */
struct px_sig {
	uint32_t func;
	uint32_t nargs;
	struct rp_val *v;
	struct rp_val *const *by_rank;
	const struct px_var *var;
	uint32_t nvar;
	double gap_ns;
};

extern const char px_trace_name[];
extern const uint32_t px_nranks;
extern const struct px_func px_funcs[];
extern const uint32_t px_nfuncs;
extern const char *const px_consts[];
extern const uint32_t px_nconsts;
extern const struct px_sig px_sigs[];
extern const uint32_t px_nsigs;
/* By rank: its rank group (the branch of main), and how much longer or
 * shorter than its group's means it computed before its calls. */
extern const int px_group_of[];
extern const double px_gap_factor[];

/* By rank group: the mean time before its calls of the signatures where
 * it is not px_sigs' (by more than 1%), signatures increasing. */
struct px_gap {
	uint32_t sig;
	double ns;
};
struct px_gaps {
	uint32_t n;
	const struct px_gap *g;
};
extern const struct px_gaps px_group_gaps[];

/* The ranks the trace says were cut short (the job ended badly), ranks
 * increasing, and how: px_endings[ending]. */
struct px_cut {
	uint32_t rank;
	uint32_t ending;
};
extern const struct px_cut px_cut[];
extern const uint32_t px_ncut;
extern const char *const px_endings[];

/* The grammar, as data too, where some wildcard's match depends on where
 * its rule is used: the runtime keeps its place in it (px_call checks
 * that the rule functions make the calls it says) to read ahead, as
 * rondo-replay does.  px_nrules is 0 when no wildcard needs it. */
#define PX_RULE 0x80000000u /* a symbol that is a rule */
struct px_sym {
	uint32_t sym;
	uint64_t count;
};
struct px_rule {
	uint32_t len;
	const struct px_sym *body;
};
extern const struct px_rule px_rules[];
extern const uint32_t px_nrules;
extern const uint32_t px_group_root[]; /* by rank group */

/* The merged loops' histograms (a trace written below precision 100):
 * each its draw_key, its loops, and its bins in px_hist_bins from first;
 * a rule function runs such a loop px_draw(h, kept) times (draw.h, with
 * rondo-replay's draws for the same seed).  px_nhists is 0 when the
 * trace has none, or when the proxy carries the grammar (px_nrules): the
 * loops then run their kept counts. */
struct px_hist {
	uint64_t key, n;
	uint32_t first, nbins;
};
extern const struct px_hist px_hists[];
extern const struct draw_bin px_hist_bins[];
extern const uint32_t px_nhists;
uint64_t px_draw(uint32_t h, uint64_t kept);

/* Options, the rank; returns the rank group, whose rule main() runs. */
int px_begin(int *argc, char ***argv);
/* One recorded call: the computation before it, spun, then the call. */
void px_call(uint32_t sig);
/* ...a wildcard receive or probe, posted as matched: with the status
 * that argument k (element j, or -1) of signature msig gives it. */
void px_call_matched(uint32_t sig, int msig, int k, int j);
/* After the last call: MPI_Finalize if the program did not; the exit
 * status. */
int px_end(void);

#endif /* RONDO_PROXY_H */
