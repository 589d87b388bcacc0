/*
 * source.h - rondo-replay's signatures from the trace (source.c).
 */
#ifndef RONDO_REPLAY_SOURCE_H
#define RONDO_REPLAY_SOURCE_H

#include "decode.h"
#include "replay.h"

/* The seed merged values are drawn with (rp_value_draw), once known. */
void rp_values_seed(uint64_t seed);

int rp_start(const rondo_trace *t, uint32_t rank, const struct rp_options *o);
const rondo_trace *rp_trace(void);
/* What each call's own gap is scaled by (percall_gap_factor). */
double rp_percall_factor(void);
void rp_finish(void);

#endif /* RONDO_REPLAY_SOURCE_H */
