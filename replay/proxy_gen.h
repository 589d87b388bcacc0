/*
 * proxy_gen.h - `rondo proxy`: a trace written out as one C file that
 * replays it (proxy.c).  No MPI here: the proxy is compiled by the user.
 */
#ifndef RONDO_PROXY_GEN_H
#define RONDO_PROXY_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* What the proxy holds. */
struct rp_proxy_report {
	uint32_t sigs, rules, groups, funcs;
	uint64_t wild_matched; /* wildcard receives posted as they matched */
	uint64_t wild_ahead;   /* ...whose match depends on where their rule
				  is used (read ahead at run time) */
	uint32_t merged;       /* merged loops' histograms (precision) */
	int merged_kept;       /* ...run at their kept counts (the proxy
				  reads ahead): not drawn */
	char why[1024];	       /* when the trace cannot be replayed */
};

#define RP_PROXY_NOREPLAY                                                      \
	3 /* a function it cannot issue, calls that do
			       not pair up: why[] says which */

/*
 * Writes the proxy of trace t (named `name` in the proxy's comments) to
 * `out`: its signatures as C data, one function per rule, main() with a
 * branch per rank group, and rondo-replay's runtime.  Returns 0,
 * RP_PROXY_NOREPLAY, or RONDO_E_NOMEM / RONDO_E_IO.  With out NULL,
 * only checks that the trace can be replayed.
 */
int rp_proxy_write(const rondo_trace *t, const char *name, FILE *out,
		   struct rp_proxy_report *rep);

#endif /* RONDO_PROXY_GEN_H */
