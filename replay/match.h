/*
 * match.h - which call completes a request: what a wildcard receive
 * matched is in that call's status.  Neither MPI nor librondo here: the
 * names come from whoever holds the signatures (the trace for
 * rondo-replay and `rondo proxy`, the proxy's own tables in a proxy,
 * which has this file too).
 */
#ifndef RONDO_REPLAY_MATCH_H
#define RONDO_REPLAY_MATCH_H

#include <stdint.h>

#include "val.h"

/* The names of a signature's function and parameters. */
struct rp_names {
	const char *(*func)(void *ctx, uint32_t sig);
	int (*param)(void *ctx, uint32_t sig, const char *name); /* or -1 */
	void *ctx;
};

/* Whether a call of signature sig (its values v) completes request `id`:
 * 1 it does, its status being argument *k (-1: none) and, in an array of
 * statuses, element *j (-1: the argument itself); -1 it frees the request
 * uncompleted (MPI_Request_free); 0 it does not touch it. */
int rp_completes(const struct rp_names *nm, uint32_t sig,
		 const struct rp_val *v, uint32_t nargs, int64_t id, int *k,
		 int *j);

#endif /* RONDO_REPLAY_MATCH_H */
