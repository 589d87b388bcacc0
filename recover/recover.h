/*
 * recover.h - a trace made offline from the spill files of a job that did
 * not end in MPI_Finalize (`rondo recover`), with the merge code the
 * tracer runs at MPI_Finalize.  The rondo command's only way into the
 * tracer's data code: this header names nothing of it.
 */
#ifndef RONDO_RECOVER_H
#define RONDO_RECOVER_H

#include <stddef.h>

/* How a recovery went, line by line for the user (say is called for each:
 * which ranks ended how, which are missing, which files were left out). */
typedef void (*recover_say_fn)(void *ctx, const char *line);

/*
 * Merges the spill files named by inputs (files, or folders holding
 * rank-N.spill files) into the trace `out`.  The ranks' after files
 * (rank-N.after: their calls after MPI_Finalize) among them are then
 * added to it; without spill files, they are added to the trace already
 * at `out` (replaced once done; refused with RONDO_E_STATE when it has
 * them already).  Returns 0, or a RONDO_E_*
 * code with why set: RONDO_E_MISSING when no spill file was found,
 * RONDO_E_CORRUPT or RONDO_E_TRUNCATED when none could be read (why names
 * the file), RONDO_E_IO when the trace cannot be written, RONDO_E_NOMEM.
 * Damaged records end a rank's part where they start: that rank is then
 * cut short, not the recovery.
 */
int recover_run(const char *const *inputs, int ninputs, const char *out,
		recover_say_fn say, void *ctx, char *why, size_t whylen);

/* The trace a spill folder's job would have had: "app-1.spill" gives
 * "app-1.rondo" beside it.  Returns 0, or -1 when input is not a name
 * ending in ".spill". */
int recover_default_out(const char *input, char *out, size_t size);

#endif /* RONDO_RECOVER_H */
