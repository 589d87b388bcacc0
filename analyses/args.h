/*
 * args.h - reading a signature's argument values, as the analyses do.
 *
 * Shorthands over rondo.h: a parameter by name as a value (a NULL value
 * when the function has none), a constant by name, a count, a request id.
 * Which ranks and communicators a value names is librondo's answer
 * (rondo_comm_resolve, rondo_peer), not the analyses'.
 */
#ifndef RONDO_ARGS_H
#define RONDO_ARGS_H

#include <stdint.h>

#include "rondo.h"

/* The value of the parameter of signature s named `name`, or a NULL
 * value (kind RONDO_ARG_NULL) when it has none (rondo_sig_param). */
rondo_arg an_arg(const rondo_trace *t, uint32_t s, const char *name);

/* Value a is the named constant `name` (MPI_ANY_SOURCE...). */
int an_is_const(const rondo_trace *t, const rondo_arg *a, const char *name);

/* A plain non-negative integer value (a count), or -1. */
int64_t an_int(const rondo_arg *a);

/* Parameter `name` of s as a count (an_int of an_arg), and in *mean
 * what its calls had on average: for a value merged at the precision,
 * its histogram's exact sum over its calls (so that counts times calls
 * add up to what the program moved), else the count itself. */
int64_t an_count(const rondo_trace *t, uint32_t s, const char *name,
		 double *mean);

/* What the trace's precision merged (rondo_precision), as histograms:
 * of loops' counts, and of values (RONDO_PRECISION_PARAMS): counts and
 * displacements (sizes), tags (tag, sendtag, recvtag) and peers (dest,
 * source); vcalls the calls the values' histograms stand for. */
struct an_merged {
	uint32_t precision, loops, sizes, tags, peers;
	uint64_t vcalls;
};

/* Fills *m (signatures' merged values are read to tell tags and peers
 * from sizes, when any value was merged); returns m->precision. */
uint32_t an_merged(const rondo_trace *t, struct an_merged *m);

/* What parameter `name` of function `func` is to a precision: a
 * message's tag (not MPI_Intercomm_create's), a peer, or neither (0). */
enum { AN_PARAM_TAG = 1, AN_PARAM_PEER = 2 };
int an_param_role(const char *func, const char *name);

/* Element k of a list value, or a NULL value (also for k beyond it). */
rondo_arg an_elem(const rondo_arg *list, uint64_t k);

/* The request id a value names, or UINT32_MAX (MPI_REQUEST_NULL...). */
uint32_t an_req_id(const rondo_arg *a);

/* What the merged loop at symbol `pos` of rule `rule` ran
 * (rondo_loop_hist), for a person, in buf (utf8: "×" and "–", else "x"
 * and "-"): "8200 loops of 38-43 repeats, mean 40.62 (kept 41), min at
 * rank 0, max at rank 1: 38 x1200, 39 x1310, ..." with as many bins as
 * fit.  Returns 1, or 0 when the symbol is not merged (buf empty). */
int an_loop_text(const rondo_trace *t, uint32_t rule, uint32_t pos, int utf8,
		 char *buf, size_t size);

/* The same for argument `arg` of signature `sig` when it is a value
 * merged at the precision (rondo_arg_merged): "16000 calls of 64-78, mean
 * 70.84 (written 71), min at rank 0, max at rank 1: 64 x2000, ...".
 * Returns 1, or 0 (buf "") when it is not one. */
int an_value_text(const rondo_trace *t, uint32_t sig, uint32_t arg, int utf8,
		  char *buf, size_t size);

/* The values of a point-to-point or completion call, by what they do
 * (a NULL value where the function has none): a Sendrecv's send and
 * receive sides, a Send's send side, a Recv's receive side. */
struct an_p2p {
	rondo_arg comm;
	rondo_arg dest, stag, scount, stype;   /* what it sends */
	rondo_arg source, rtag, rcount, rtype; /* what it receives */
	rondo_arg req;		  /* request, or array_of_requests */
	rondo_arg status;	  /* status, or array_of_statuses */
	rondo_arg index;	  /* index, or array_of_indices */
	rondo_arg flag;		  /* a Test's */
	rondo_arg message;	  /* a matched probe's */
	uint8_t any_src, any_tag; /* source MPI_ANY_SOURCE, tag MPI_ANY_TAG */
};

/* Fills *a with signature s's values. */
void an_p2p_args(const rondo_trace *t, uint32_t s, struct an_p2p *a);

#endif /* RONDO_ARGS_H */
