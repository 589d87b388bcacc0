/*
 * val.h - a call signature's recorded values as one rank replays them:
 * decoded from the trace (decode.c) by rondo-replay, and by `rondo proxy`,
 * which writes them into the proxy as C data.  Neither MPI nor librondo
 * here: a proxy has this file too.
 */
#ifndef RONDO_REPLAY_VAL_H
#define RONDO_REPLAY_VAL_H

#include <stddef.h>
#include <stdint.h>

/* One decoded argument value (recursively, for lists). */
struct rp_val {
	uint32_t kind;	  /* enum rondo_kind, VARY resolved for this rank */
	int has_local;	  /* a rank kind resolved in the call's communicator */
	int64_t i;	  /* integer, tag, id, constant id, segment id, or
			      the rank as the program passed it */
	int64_t off;	  /* BUFFER: the offset in the segment */
	uint32_t n;	  /* ARRAY, STATUS: elements */
	struct rp_val *e; /* their values */
	void *conv;	  /* the elements converted (rp_ints...), cached */
	int moves;	  /* ...but for addresses: converted at each call */
	const uint8_t *bytes; /* STRING, BYTES */
	size_t size;
	char *str;     /* STRING as a C string, made on first use */
	uint32_t draw; /* a send's count merged at the precision: its
			  histogram + 1, i drawn from it at each call
			  (rp_sig_draw) */
	int64_t kept;  /* ...and the count written for it */
	int any;       /* a receive's tag in a trace whose tags were merged
			  at the precision: MPI_ANY_TAG (rp_tag); a
			  receive's merged source drawn from no send's
			  histogram: MPI_ANY_SOURCE (rp_rank) */
	int peer;      /* a merged peer drawn: +1 or -1, the side */
	int64_t span;  /* ...the call's communicator's size: i = base +
			  peer x draw, modulo span */
	int based;     /* ...base, the caller's rank there, found from the
			  peer written (i, kept) at the first draw */
	int64_t base;
};

#endif /* RONDO_REPLAY_VAL_H */
