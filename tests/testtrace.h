/*
 * testtrace.h - the tests' trace writer.
 *
 * Builds a complete .rondo file from calls the test makes up, through the
 * same grammar engine, cross-rank merge and format codec the tracer uses.
 * Each rank gets its own grammar; signatures are global from the start.
 */
#ifndef RONDO_TESTTRACE_H
#define RONDO_TESTTRACE_H

#include <stdint.h>

#include "format.h"
#include "rondo.h"

struct testtrace;

struct testtrace *tt_create(uint32_t nranks);
void tt_free(struct testtrace *tt);

void tt_meta(struct testtrace *tt, const char *key, const char *value);
/* Loop counts merged at `precision` (below 100) when the file is
 * written, as the tracer does (tracer/precision.c; section hists). */
void tt_precision(struct testtrace *tt, uint32_t precision);
/* A function with its parameter names (NULL-terminated list); a name
 * starting with '>' is an output parameter. */
uint32_t tt_func(struct testtrace *tt, const char *name, ...);
uint32_t tt_const(struct testtrace *tt, const char *name);
/* Constant `konst` is a predefined datatype of `size` bytes (section
 * typesizes, written when any is given). */
void tt_typesize(struct testtrace *tt, uint32_t konst, uint64_t size);
/* A communicator of n members, world[k] the world rank of its rank k
 * (first > 0: an intercommunicator whose first group is members
 * 0..first-1); returns its id, in order from 0.  Comms must be made in
 * increasing id order before tt_cart names them. */
uint32_t tt_comm(struct testtrace *tt, uint32_t n, uint32_t first,
		 const uint32_t *world);
/* Communicator `comm` is a Cartesian grid of ndims dimensions (call in
 * increasing comm order). */
void tt_cart(struct testtrace *tt, uint32_t comm, uint32_t ndims,
	     const uint32_t *dims, const uint8_t *periodic);
/* A signature: function and encoded argument values (copied). */
uint32_t tt_sig(struct testtrace *tt, uint32_t func, const struct fmt_buf *args,
		uint32_t nargs);
/* Rank `rank` calls `sig` `count` times in a row, each taking `ns`: added
 * to the signature's statistics and to the rank's own time in it. */
void tt_call(struct testtrace *tt, uint32_t rank, uint32_t sig, uint64_t count,
	     uint64_t ns);

/* Per-call timing with base b (section timing): calls made with
 * tt_call_at carry their times; each rank's timed calls must come first
 * (a rank that goes on with tt_call is one that fell back). */
void tt_timing(struct testtrace *tt, double base);
/* The section in the form of format 1.7 and older (a grammar of codes),
 * for files made to be of such a version. */
void tt_timing_grammar(struct testtrace *tt);
/* The section as 1.8 and 1.9 coded it: each model's centre fixed at its
 * first code (fmt_tstream's fixed), for files made to be of such a
 * version. */
void tt_timing_fixed(struct testtrace *tt);
/* As tt_call once, the call starting at start_ns on the job's clock and
 * taking dur_ns. */
void tt_call_at(struct testtrace *tt, uint32_t rank, uint32_t sig,
		int64_t start_ns, uint64_t dur_ns);
/* As tt_call_at, with the codes as given (a file of another encoding). */
void tt_call_codes(struct testtrace *tt, uint32_t rank, uint32_t sig,
		   uint64_t dur_ns, uint32_t dcode, uint32_t icode);
/* Rank `rank`'s clock is off by `offset` ns from the job's (stored in
 * the section; tt_call_at's times stay on the job's clock). */
void tt_clock_offset(struct testtrace *tt, uint32_t rank, int64_t offset);

/* Encodes every section into a finished writer; returns 0 or RONDO_E_*.
 * `future` adds a section of a type no reader knows. */
int tt_finish(struct testtrace *tt, struct fmt_writer *w, int future);

/* As tt_finish, with the payload of each section named in `patch`
 * replaced by the patch's (a NULL payload leaves the section out; a
 * section the writer does not make is added): the tests' way to write
 * damaged files, and sections it has no builder for. */
struct tt_patch {
	uint32_t type;
	const struct fmt_buf *payload;
};

int tt_finish_patched(struct testtrace *tt, struct fmt_writer *w, int future,
		      const struct tt_patch *patch, int npatch);

/* Convenience: tt_finish into *file (an empty buffer), then the file opened
 * with librondo as a reader would; dies when either fails.  tt stays. */
rondo_trace *tt_open(struct testtrace *tt, struct fmt_buf *file, int future);
/* Convenience: tt_finish + fmt_writer_save. */
int tt_save(struct testtrace *tt, const char *path);

/* The demo job: `nranks` ranks of a 1-D non-periodic halo exchange, `iters`
 * iterations, each with two Allreduce calls; returns a filled builder. */
struct testtrace *tt_demo(uint32_t nranks, uint32_t iters);

/* The demo job with one change, for rondo diff: rank 2 calls one more
 * MPI_Barrier (in its middle iteration), rank 1's send to the right moves
 * 2048 doubles instead of 1024 or goes 2 ranks right, every Allreduce
 * takes twice as long, or the Allreduce buffers are another segment. */
enum tt_change {
	TT_CHANGE_NONE,
	TT_CHANGE_CALL,
	TT_CHANGE_COUNT,
	TT_CHANGE_PEER,
	TT_CHANGE_TIME,
	TT_CHANGE_BUFFERS
};
struct testtrace *tt_demo_changed(uint32_t nranks, uint32_t iters,
				  enum tt_change change);

/* The peers job: 8 ranks whose calls name ranks in every form the tracer
 * writes (relative, Cartesian, subcommunicators, an intercommunicator,
 * MPI_PROC_NULL, MPI_ANY_SOURCE, statuses); see testtrace.c. */
struct testtrace *tt_peers(void);

#endif /* RONDO_TESTTRACE_H */
