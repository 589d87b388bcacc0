/*
 * spill.h - the rank's record kept recoverable while the job runs.
 *
 * Besides its grammar, a rank keeps the signature of every call in a
 * stream (and with per-call timing, each call's two time codes): a few
 * thousand values raw, then compressed into chunks.  Every
 * RONDO_FLUSH_INTERVAL, when the chunks waiting grow large, and at every
 * ending but a clean MPI_Finalize, the rank appends to its spill file what
 * changed since the last time: new functions, signatures and
 * communicators, the chunks, the statistics that moved, and a MARK (or
 * the END, saying how it ended).  `rondo recover` rebuilds the rank's
 * tables and grammar from it with the merge code of MPI_Finalize.
 *
 * A spill never touches the grammar, and its writer allocates nothing
 * and calls only write(2), open(2) and mkdir(2), so a signal handler can
 * write the rest of the record (the raw values uncompressed) as long as
 * it did not interrupt a recorder changing the tables: recorders say so
 * (spill_enter, spill_leave), and a signal that comes meanwhile is
 * handled when the recorder leaves.
 */
#ifndef RONDO_SPILL_H
#define RONDO_SPILL_H

#include <signal.h>
#include <stdint.h>

#include "spill_fmt.h"

struct spill_chunk;

struct spill_stream {
	uint32_t *raw; /* values not yet in a chunk */
	uint32_t n, cap;
	struct spill_chunk *first, *last; /* compressed, not yet written */
};

/* What the recorders reach on every call. */
struct spill_hot {
	int on;	      /* keeping the record recoverable */
	uint64_t due; /* rt_clock() reading a spill is due after */
	struct spill_stream st[SPILL_NSTREAMS];
};
extern struct spill_hot spill_hot;

/* A recorder is changing the tables (spill_enter to spill_leave), and
 * the signal that came meanwhile, to be taken when it leaves. */
extern volatile sig_atomic_t spill_busy, spill_deferred;
/* The function (id + 1) whose PMPI call is under way, 0: none. */
extern volatile sig_atomic_t spill_inside;
/* Set while a spill is written. */
extern volatile int spill_lock;
/* This thread is the recorder inside (a signal handler asks). */
extern __thread int spill_here __attribute__((tls_model("initial-exec")));

void spill_wait_lock(void);
void spill_take_deferred(void);
void spill_full(int stream);

static inline void spill_enter(void)
{
	spill_here = 1;
	spill_busy = 1;
	__asm__ __volatile__("" ::: "memory");
	if (__builtin_expect(spill_lock, 0))
		spill_wait_lock();
}

static inline void spill_leave(void)
{
	__asm__ __volatile__("" ::: "memory");
	spill_busy = 0;
	spill_here = 0;
	if (__builtin_expect(spill_deferred, 0))
		spill_take_deferred();
}

/* Appends a value to a stream (the caller checked spill_hot.on). */
static inline void spill_value(int stream, uint32_t v)
{
	struct spill_stream *s = &spill_hot.st[stream];

	s->raw[s->n++] = v;
	if (__builtin_expect(s->n == s->cap, 0))
		spill_full(stream);
}

/* Reads RONDO_SPILL, RONDO_FLUSH_INTERVAL and RONDO_SPILL_DIR, names the
 * file, and starts keeping the streams (after record_start, with MPI
 * up); says why on rank 0 when it cannot.  RONDO_SPILL=0 keeps nothing:
 * spill_hot.on stays 0 and no spill is ever due. */
void spill_start(void);

/* Spills what changed since the last time, from a recorder (inside
 * spill_enter) or the watchdog. */
void spill_now(void);

/* The rank's last record: what it kept since the last spill and how it
 * ended (enum spill_end; code, the signal, errorcode or status).  With
 * can_alloc, raw values are compressed first; without, it is
 * async-signal-safe.  Once per process: later calls do nothing. */
void spill_end(int how, int code, int can_alloc);

/* After MPI_Finalize wrote the trace (written: 1) the rank's file and
 * the folder, once empty, are removed; with SPILL_FINISH_KEEP (the trace
 * is written, but some rank kept calls past the memory limit as counts)
 * the rank ends its file (SPILL_END_KEPT) and rank 0 says where the
 * order is; else (0) the rank ends its file (SPILL_END_FINALIZE) and
 * rank 0 says how to recover.  With RONDO_VERBOSE, says what the spills
 * cost (count, bytes, time). */
#define SPILL_FINISH_KEEP 2
void spill_finish(int written);

/* A call kept outside MPI_Init..MPI_Finalize (record.c): its function,
 * binding, encoded values and clock readings (rt_clock). */
struct spill_call {
	uint32_t func, binding;
	const uint8_t *args;
	uint32_t len;
	uint64_t t0, t1;
	uint32_t dcode, icode; /* per-call times (spill_after), when timed */
	int timed;
};

/* At exit, the calls the program made after MPI_Finalize had written
 * the trace (n of them, kept; `lost` more made but not kept), written to
 * the rank's after file, rank-N.after in the spill folder: a spill file
 * of their own functions, signatures, statistics and order, ending in
 * SPILL_END_AFTER, which `rondo run` and `rondo recover` add to the
 * trace; with per-call times when every call has them.  Rank 0 says where it is, but under `rondo run`. */
void spill_after(const struct spill_call *c, uint32_t n, uint64_t lost);

/* "RONDO_SPILL=1 RONDO_FLUSH_INTERVAL=180" as the rank runs with them
 * (the trace's settings). */
const char *spill_settings(void);

/* Bytes the streams and their bookkeeping hold (memory.c). */
size_t spill_memory(void);
/* Whether the spill file holds every call's signature so far. */
int spill_order_kept(void);

#endif /* RONDO_SPILL_H */
