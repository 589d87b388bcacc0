/*
 * relative.h - rank-derived values stored relative to the caller, or as
 * per-rank values, where that makes ranks' signatures the same (see
 * relative.c).
 */
#ifndef RONDO_RELATIVE_H
#define RONDO_RELATIVE_H

#include "format.h"

struct relative;

/* The caller's rank in the communicator an argument names (kind COMM: its
 * identity; kind CONST: MPI_COMM_WORLD or MPI_COMM_SELF), or -1 when
 * unknown or an intercommunicator. */
typedef int64_t (*relative_me_fn)(void *ctx, uint32_t kind, uint64_t value);

/* A new choice over signatures whose functions and constants nm names
 * (borrowed: it must outlive R); NULL when out of memory. */
struct job_names;
struct relative *relative_create(const struct job_names *nm);
void relative_free(struct relative *R);

/* First every rank observes its signatures (me: its rank in a call's
 * communicator): the distinct values of each candidate argument of each
 * signature (by its place among the rank's signatures alike but for their
 * candidates), as recorded and relative to the caller, up to a few.
 * Returns 0, or -1 when out of memory. */
int relative_observe(struct relative *R, const struct fmt_cst *cst,
		     relative_me_fn me, void *ctx);

/* The observations are merged over ranks: encoded by one, merged into
 * another's (0, or -1 when damaged or out of memory).  Where all have
 * met, a candidate with one value as recorded stays so, one with a single
 * relative value becomes relative, and any other becomes a per-rank value
 * (kind VARY, a slot of section rankvals): relative_decide writes the
 * choices, which relative_load reads on every rank (0, or -1). */
void relative_encode(const struct relative *R, struct fmt_buf *b);
int relative_merge(struct relative *R, const uint8_t *p, size_t n);
void relative_decide(struct relative *R, struct fmt_buf *b);
int relative_load(struct relative *R, const uint8_t *p, size_t n);

/* The number of per-rank slots decided. */
uint32_t relative_slots(const struct relative *R);

/* Then each rank rewrites its signatures by the choices, their arguments
 * into *bytes (0, or -1 when out of memory). */
int relative_apply(struct relative *R, struct fmt_cst *cst,
		   struct fmt_buf *bytes, relative_me_fn me, void *ctx);

/* The per-rank values of the last relative_apply, for merge_add_values:
 * a count, then each value's slot (uvarint) and the value as recorded
 * (an argument value).  Borrowed until the next apply. */
void relative_values(const struct relative *R, const uint8_t **p, size_t *n);

#endif /* RONDO_RELATIVE_H */
