/*
 * relative.h - rank-derived integers stored relative to the caller where
 * that makes ranks' signatures the same (see relative.c).
 */
#ifndef RONDO_RELATIVE_H
#define RONDO_RELATIVE_H

#include "format.h"

struct relative;

/* The caller's rank in the communicator an argument names (kind COMM: its
 * identity; kind CONST: MPI_COMM_WORLD or MPI_COMM_SELF), or -1 when
 * unknown or an intercommunicator. */
typedef int64_t (*relative_me_fn)(void *ctx, uint32_t kind, uint64_t value);

struct relative *relative_create(void);
void relative_free(struct relative *R);

/* First every rank's signatures are observed (me: that rank's), then each
 * rank's are rewritten, their arguments into *bytes.  Both return 0, or
 * -1 when out of memory. */
int relative_observe(struct relative *R, const struct fmt_cst *cst,
		     relative_me_fn me, void *ctx);
int relative_apply(struct relative *R, struct fmt_cst *cst,
		   struct fmt_buf *bytes, relative_me_fn me, void *ctx);

#endif /* RONDO_RELATIVE_H */
