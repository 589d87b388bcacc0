/*
 * reshape.h - another grammar for the same call sequence: cut before
 * every occurrence of its most frequent call, each distinct piece a rule,
 * the root the list of pieces (reshape.c says why).  The tracer keeps
 * whichever of the two compresses smaller (output.c).
 */
#ifndef RONDO_RESHAPE_H
#define RONDO_RESHAPE_H

#include <stdint.h>

#include "format.h"

/*
 * Fills *out with the grammar of the same call sequence as g's last rule
 * (its terminals below nterminals), cut as above: rules 0 .. n-2 the
 * distinct pieces, each a run-length list of calls, rule n-1 the root, a
 * run-length list of pieces.  Returns 0, RONDO_E_RANGE when the sequence
 * is longer than max calls or repeats no call (nothing is done), or
 * RONDO_E_NOMEM.  The sequence is expanded: it costs 4 bytes a call.
 */
int reshape_cut(const struct fmt_grammar *g, uint32_t nterminals, uint64_t max,
		struct fmt_grammar *out);

#endif /* RONDO_RESHAPE_H */
