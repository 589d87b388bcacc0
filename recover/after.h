/*
 * after.h - the calls ranks made after MPI_Finalize had written the trace
 * (their after files, tracer/spill.h's spill_after), added to the trace.
 * recover.c reads the files; after.c rewrites the trace with them.
 */
#ifndef RONDO_AFTER_H
#define RONDO_AFTER_H

#include <stdint.h>

#include "format.h"
#include "recover.h"

/* One rank's after file, as read: its functions by the tracer's ids
 * (funcs[f].name NULL: not named), its signatures over them, their
 * statistics (stats[k] of signature k, nstats of them), and its calls as
 * signature numbers, in order. */
struct after_rank {
	const char *path;
	uint32_t rank, nranks;
	const char *program, *start;
	const struct fmt_func *funcs;
	uint32_t nfuncs;
	const struct fmt_sig *sigs;
	uint32_t nsig;
	const rondo_stat *stats;
	uint32_t nstats;
	const uint32_t *calls;
	uint64_t ncalls;
	const uint64_t *bind; /* calls by binding (record.h), nbind of them */
	uint32_t nbind;
	int64_t lost; /* calls after MPI_Finalize the rank did not keep */
	/* per-call times: each call's duration and interval codes at base
	 * (format.h), when ntimed == ncalls */
	const uint32_t *dcodes, *icodes;
	uint64_t ntimed;
	double base;
};

/*
 * Adds the n ranks' calls to the end of their call sequences in the trace
 * `trace`, written to `out` (which may be `trace`: replaced whole once
 * done).  A file of another job (program, start or size), a rank named
 * twice, or a value the trace cannot take is said and left out.  Returns
 * 0, or a RONDO_E_* code with why set: the trace's own (it cannot be
 * read), RONDO_E_STATE when it holds such calls already, RONDO_E_MISSING
 * when no file belongs to it, RONDO_E_IO when it cannot be written.
 */
int after_add(const char *trace, const char *out, const struct after_rank *a,
	      uint32_t n, recover_say_fn say, void *ctx, char *why,
	      size_t whylen);

#endif /* RONDO_AFTER_H */
