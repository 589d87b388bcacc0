/*
 * decode.h - a signature's values for one rank, from the trace; which call
 * completes a request (decode.c).  No MPI here: `rondo proxy` uses it.
 */
#ifndef RONDO_REPLAY_DECODE_H
#define RONDO_REPLAY_DECODE_H

#include "rondo.h"
#include "match.h"
#include "val.h"

/* What decoding needs of the whole trace (what a precision merged),
 * read once per trace; NULL when out of memory. */
struct rp_whole;
struct rp_whole *rp_whole_read(const rondo_trace *t);
void rp_whole_free(struct rp_whole *w);

/* Signature sig's values as rank `rank` made the call: *v (nargs of them,
 * from calloc; free with rp_vals_free), w from rp_whole_read(t).  Returns
 * 0 or RONDO_E_NOMEM. */
int rp_decode_sig(const rondo_trace *t, const struct rp_whole *w, uint32_t sig,
		  uint32_t rank, struct rp_val **v, uint32_t *nargs);
void rp_vals_free(struct rp_val *v, uint32_t n);

/* The names of the trace's signatures' functions and parameters, for
 * rp_completes. */
void rp_trace_names(const rondo_trace *t, struct rp_names *nm);

/* The index of parameter `name` of function `func` of the trace, or -1. */
int rp_trace_param(const rondo_trace *t, uint32_t func, const char *name);

/* How rank `rank` ended when the trace says it was cut short (a recovered
 * trace: a signal, MPI_Abort...): its length, the text in *ending (not
 * terminated); 0 when it was not. */
int rp_rank_cut(const rondo_trace *t, uint32_t rank, const char **ending);

/* The mean time before a call of sig by a rank of group `group`: the
 * group's own when the trace keeps it per group, else the mean over all
 * ranks (an older file); 0 when the trace does not say. */
double rp_sig_gap(const rondo_trace *t, uint32_t sig, uint32_t group);

/* How much longer or shorter than its group's mean gaps (rp_sig_gap) each
 * rank computed before its calls: factor[rank] for every rank (1 where the
 * trace does not say), and in *norm the gaps' share of the time outside
 * MPI.  Returns 0 or RONDO_E_NOMEM. */
int rp_gap_factors(const rondo_trace *t, double *factor, double *norm);

#endif /* RONDO_REPLAY_DECODE_H */
