/*
 * memory.c - the tracer's memory kept under RONDO_MEMORY_LIMIT.
 *
 * What grows with the calls is the call grammar (on input that never
 * repeats, about 17 bytes per call), the signature table with each
 * signature's statistics, the per-call time grammars and the spill
 * stream's chunks waiting to be written.  Every MEMORY_CHECK_EVERY calls
 * the recorder adds them up.  Past the limit the rank stops growing its
 * grammar: each later call is counted on its signature instead (its
 * statistics go on as before, per-call times stop), and at MPI_Finalize
 * the counts join the grammar after the calls kept in order, one repeated
 * symbol per signature.  So no call is lost and no count is wrong: the
 * statistics, counts and communication matrices stay exact, only the
 * order of the calls past the limit is not in the trace.  That order is
 * still in the rank's spill stream (spill.c writes every call's
 * signature, whatever the grammar does), so every rank keeps its spill
 * file, and `rondo recover` on the folder rebuilds the trace in full,
 * offline.  The metadata's "degraded" says which ranks counted, from
 * which call, and where the order is.
 *
 * Without a spill file (RONDO_SPILL=0, or it could not be written) the
 * order past the limit is gone, and "degraded" says that instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "spill.h"

/* The limit when RONDO_MEMORY_LIMIT is not set: 5 % of the node's memory
 * shared by the ranks on it, within these bounds. */
#define DEFAULT_MAX ((size_t)512 << 20)
#define DEFAULT_MIN ((size_t)32 << 20)

/* The ranks on this node, from what the launchers say (Open MPI, MPICH's
 * Hydra, Slurm), else one per processor, which is never too few. */
static long local_ranks(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE",
					   "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE",
					   "SLURM_NTASKS_PER_NODE"};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long n = v ? strtol(v, &end, 10) : 0;

		if (v && *v && !*end && n > 0)
			return n;
	}
	return sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN)
						 : 1;
}

size_t memory_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	size_t v;

	if (pages <= 0 || page <= 0)
		return DEFAULT_MAX;
	v = (size_t)pages / 20 * (size_t)page / (size_t)local_ranks();
	return v > DEFAULT_MAX	 ? DEFAULT_MAX
	       : v < DEFAULT_MIN ? DEFAULT_MIN
				 : v;
}

/* The largest of a, b and c. */
static size_t most(size_t a, size_t b, size_t c)
{
	return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

size_t memory_used(void)
{
	size_t sigs = rt.capsig * sizeof(*rt.sig);
	size_t index = rt.index_cap * sizeof(*rt.sig_index);
	/* what the tables hold, and what their next growth holds beside
	 * them while it copies: the limit is never passed in between */
	size_t n = grammar_memory_peak(rt.g) + sigs + rt.sig_bytes.cap + index +
		   2 * most(sigs, rt.sig_bytes.cap, index) + spill_memory();

	if (rt.tbuf) /* per-call timing: its buffer, stream and models */
		n += sizeof(*rt.tbuf) * RT_TBUF + rt.tbytes.cap + rt.tcod.mem;
	return n;
}

void memory_check(void)
{
	if (rt.counting || memory_used() <= rt.mem_limit)
		return;
	rt.counting = 1;
	rt.count_from = rt.ncalls;
	rt.expect = UINT32_MAX;
	/* the times of the calls kept in order stay theirs */
	timing_halt();
	if (rt.verbose)
		fprintf(stderr,
			"rondo: rank %d: RONDO_MEMORY_LIMIT (%zu bytes) "
			"reached "
			"after %llu calls: later calls are counted per "
			"signature, in order only in the spill file\n",
			rt.rank, rt.mem_limit, (unsigned long long)rt.ncalls);
}

int memory_finish(void)
{
	for (uint32_t s = 0; rt.counting && s < rt.nsig; s++)
		if (rt.sig[s].tail &&
		    grammar_append(rt.g, s, rt.sig[s].tail) < 0)
			return -1;
	return 0;
}

/* What each rank tells rank 0: the call it started counting at, the
 * calls it counted (0: none), and whether its spill file has their order. */
struct counted {
	uint64_t from, calls, ordered;
};
#define COUNTED_WORDS (sizeof(struct counted) / sizeof(uint64_t))

/* "rank R from call N" for the first few ranks that counted, then how
 * many more. */
static void list_ranks(char *buf, size_t size, const struct counted *c, int n)
{
	size_t len = strlen(buf);
	int shown = 0, more = 0;

	for (int r = 0; r < n; r++) {
		if (!c[r].calls)
			continue;
		if (shown == 6) {
			more++;
			continue;
		}
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
					"%srank %d from call %llu",
					shown++ ? ", " : "", r,
					(unsigned long long)c[r].from + 1);
	}
	if (more && len < size)
		snprintf(buf + len, size - len, " and %d more ranks", more);
}

int memory_report(MPI_Comm comm, int rank, int size, char *buf, size_t len)
{
	struct counted mine = {rt.count_from, 0, (uint64_t)spill_order_kept()},
		       *all;
	uint64_t calls = 0;
	int any = rt.counting, ranks = 0, ordered = 0;
	char lim[32];

	buf[0] = '\0';
	PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, comm);
	if (!any)
		return 0;
	for (uint32_t s = 0; rt.counting && s < rt.nsig; s++)
		mine.calls += rt.sig[s].tail;
	all = rank == 0 ? calloc((size_t)size, sizeof(mine)) : NULL;
	PMPI_Gather(&mine, COUNTED_WORDS, MPI_UINT64_T, all, COUNTED_WORDS,
		    MPI_UINT64_T, 0, comm);
	if (rank != 0 || !all) {
		free(all);
		return 1;
	}
	for (int r = 0; r < size; r++) {
		ranks += all[r].calls > 0;
		ordered += all[r].calls > 0 && all[r].ordered;
		calls += all[r].calls;
	}
	if (rt.mem_limit % (1u << 20) == 0)
		snprintf(lim, sizeof(lim), "%zuM", rt.mem_limit >> 20);
	else
		snprintf(lim, sizeof(lim), "%zu", rt.mem_limit);
	snprintf(buf, len,
		 "RONDO_MEMORY_LIMIT=%s reached on %d rank%s: %llu calls "
		 "kept as counts per signature, not in order (",
		 lim, ranks, ranks == 1 ? "" : "s", (unsigned long long)calls);
	list_ranks(buf, len, all, size);
	snprintf(buf + strlen(buf), len - strlen(buf), "); %s",
		 ordered == ranks ? "their order is in the spill files"
		 : ordered	  ? "their order is in the spill files of some "
				    "of them, the others could not write one"
				  : "their order is not kept: no spill files "
				    "(RONDO_SPILL=0, or they could not be "
				    "written)");
	free(all);
	return 1;
}
