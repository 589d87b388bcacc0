/*
 * timing.c - per-call timing (RONDO_TIMING=percall).
 *
 * Every recorded call gives two codes of a logarithmic scale (format.h,
 * "per-call timing"): its duration and the interval from the
 * reconstructed end of the rank's previous call (never negative).  The
 * codes are computed as a reader will decode them (fmt_tenc_call), so
 * the next interval is measured from the time the reader will see:
 * starts read back never decrease, and an error carries into the next
 * call only where the call started before the previous one's end as read
 * back (back-to-back calls).
 *
 * On the call's path that is a few operations and a store: the codes
 * wait in a buffer (and, for the spill, in its streams), and are coded
 * in bulk when the buffer fills, a thousand calls at a time, into the
 * rank's coded stream (format.h, fmt_tstream: a range coder with models
 * per signature), which MPI_Finalize hands to the merge as it is.
 *
 * Memory is bounded: once the stream and its models hold more than
 * RONDO_TIMING_LIMIT bytes the rank stops adding to them and keeps only
 * the statistics, which every mode keeps, for the rest of its run; its
 * trace then has per-call times for its first calls only, and `rondo
 * info` says from which call on it has none.
 *
 * Clocks: a rank's times count from its origin, taken when tracing
 * starts.  At MPI_Finalize (timing_align) rank 0 learns how each rank's
 * origin lies on its own clock: exactly, for a rank that shares its
 * monotonic clock (same boot of the same machine); by the best of a few
 * ping-pongs with rank 0 for the others.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "spill.h"

/* Starts are put on the monotonic clock from a pair of readings (clock,
 * counter) taken at most this often, and the counter's rate measured from
 * the origin's pair to the latest: its rate measured once, over 200 us at
 * the start, is off by up to 1e-4, which over a run of seconds would put
 * late calls hundreds of microseconds off. */
#define ANCHOR_NS 10000000u

/* Ping-pongs per rank on another host; the one of shortest round trip is
 * kept. */
#define PINGS 8

enum { TAG_PING = 7 };

int timing_start(void)
{
	if (fmt_tscale_init(&rt.tscale, rt.time_base) < 0)
		return -1;
	rt.tenc.sc = &rt.tscale;
	rt.tbuf = malloc(sizeof(*rt.tbuf) * RT_TBUF);
	if (!rt.tbuf) {
		fmt_tscale_free(&rt.tscale);
		return -1;
	}
	rt.tn = 0;
	fmt_tstream_encoder(&rt.tcod, &rt.tbytes);
	rt_clock_pair(&rt.origin_ns, &rt.origin_tick);
	rt.anchor_ns = rt.origin_ns;
	rt.anchor_tick = rt.origin_tick;
	rt.tick_ns = (double)rt_clock_ns(1u << 30) / (double)(1u << 30);
	rt.anchor_due = rt.anchor_tick + (uint64_t)(ANCHOR_NS / rt.tick_ns);
	rt.tstate = RT_TIMING_ON;
	return 0;
}

static void timing_flush(void);

/* The end of per-call times on this rank: the statistics go on. */
static void timing_stop(int why)
{
	rt.tstate = why;
	if (rt.verbose)
		fprintf(stderr,
			"rondo: rank %d: per-call times %s after %llu "
			"calls; statistics only from here on\n",
			rt.rank,
			why == RT_TIMING_LOST ? "lost (out of memory)"
					      : "stopped at RONDO_TIMING_LIMIT",
			(unsigned long long)rt.tcod.calls);
}

void timing_halt(void)
{
	if (rt.tstate != RT_TIMING_ON)
		return;
	timing_flush(); /* the calls so far keep their times */
	if (rt.tstate == RT_TIMING_ON)
		rt.tstate = RT_TIMING_LIMIT;
}

/* A new anchor, and the counter's rate over the whole run so far. */
static void timing_anchor(void)
{
	rt_clock_pair(&rt.anchor_ns, &rt.anchor_tick);
	if (rt.anchor_tick > rt.origin_tick && rt.anchor_ns > rt.origin_ns)
		rt.tick_ns = (double)(rt.anchor_ns - rt.origin_ns) /
			     (double)(rt.anchor_tick - rt.origin_tick);
	rt.anchor_due = rt.anchor_tick + (uint64_t)(ANCHOR_NS / rt.tick_ns);
}

/* A call's start, ns from the origin, from its clock reading t0. */
static int64_t timing_start_of(uint64_t t0)
{
	if (t0 > rt.anchor_due)
		timing_anchor();
	/* signed: MPI_Init's call starts before the origin */
	return (int64_t)(rt.anchor_ns - rt.origin_ns) +
	       (int64_t)((double)(int64_t)(t0 - rt.anchor_tick) * rt.tick_ns);
}

/* Codes the calls waiting in the buffer, and looks at the memory. */
static void timing_flush(void)
{
	for (uint32_t k = 0; k < rt.tn; k++) {
		const struct rt_tcall *c = &rt.tbuf[k];

		if (fmt_tstream_put(&rt.tcod, c->sig, c->dc, c->ic) < 0) {
			rt.tn = 0;
			timing_stop(RT_TIMING_LOST);
			return;
		}
	}
	rt.tn = 0;
	if (rt.tbytes.cap + rt.tcod.mem > rt.timing_limit)
		timing_stop(RT_TIMING_LIMIT);
}

void timing_call_slow(uint32_t sig, uint64_t t0, uint64_t dur)
{
	struct rt_tcall *c;

	if (!rt.tbuf) /* freed at MPI_Finalize */
		return;
	c = &rt.tbuf[rt.tn++];
	c->sig = sig;
	fmt_tenc_call(&rt.tenc, timing_start_of(t0), dur, &c->dc, &c->ic);
	if (spill_hot.on) {
		spill_value(SPILL_DURATIONS, c->dc);
		spill_value(SPILL_INTERVALS, c->ic);
	}
	if (__builtin_expect(rt.tn == RT_TBUF, 0))
		timing_flush();
}

int timing_export(const uint8_t **p, size_t *n, uint64_t *calls)
{
	*p = NULL;
	*n = 0;
	*calls = 0;
	if (rt.tstate == RT_TIMING_OFF || rt.tstate == RT_TIMING_LOST)
		return 0; /* empty: no call has times */
	if (rt.tstate == RT_TIMING_ON)
		timing_flush();
	if (rt.tstate == RT_TIMING_LOST)
		return 0;
	if (!rt.tended && fmt_tstream_end(&rt.tcod) < 0)
		return -1;
	rt.tended = 1;
	*p = rt.tbytes.data;
	*n = rt.tbytes.len;
	*calls = rt.tcod.calls;
	return 0;
}

/* A number for this boot of this machine: processes with the same one
 * read the same monotonic clock. */
static uint64_t boot_hash(void)
{
	char buf[128] = "";
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	uint64_t h = 0xcbf29ce484222325ull;

	if (!f || !fgets(buf, sizeof(buf), f))
		gethostname(buf, sizeof(buf) - 1);
	if (f)
		fclose(f);
	for (const char *p = buf; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* Rank 0's side of the ping-pongs with rank r: r's clock minus ours. */
static int64_t ping(MPI_Comm comm, int r, uint64_t *rtt)
{
	int64_t best = 0;

	*rtt = UINT64_MAX;
	for (int k = 0; k < PINGS; k++) {
		uint64_t a, b, theirs = 0;

		a = rt_now();
		PMPI_Send(&a, 1, MPI_UINT64_T, r, TAG_PING, comm);
		PMPI_Recv(&theirs, 1, MPI_UINT64_T, r, TAG_PING, comm,
			  MPI_STATUS_IGNORE);
		b = rt_now();
		if (b - a < *rtt) {
			*rtt = b - a;
			best = (int64_t)(theirs - (a + (b - a) / 2));
		}
	}
	return best;
}

static void pong(MPI_Comm comm)
{
	for (int k = 0; k < PINGS; k++) {
		uint64_t v;

		PMPI_Recv(&v, 1, MPI_UINT64_T, 0, TAG_PING, comm,
			  MPI_STATUS_IGNORE);
		v = rt_now();
		PMPI_Send(&v, 1, MPI_UINT64_T, 0, TAG_PING, comm);
	}
}

int timing_align(MPI_Comm comm, int rank, int size, int64_t **skew, char *how,
		 size_t howlen)
{
	int mine = rt.tstate != RT_TIMING_OFF, any = 0, far, ok, *all = NULL;
	uint64_t boot = boot_hash(), boot0 = boot, worst = 0;
	int nfar = 0;

	*skew = NULL;
	if (PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm) !=
		    MPI_SUCCESS ||
	    !any)
		return 0;
	PMPI_Bcast(&boot0, 1, MPI_UINT64_T, 0, comm);
	far = boot != boot0;
	if (rank == 0) {
		all = malloc(sizeof(*all) * (size_t)size);
		*skew = calloc((size_t)size, sizeof(**skew));
	}
	/* without memory rank 0 aligns nobody, and says so first */
	ok = rank != 0 || (all && *skew);
	PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	if (ok)
		PMPI_Gather(&far, 1, MPI_INT, all, 1, MPI_INT, 0, comm);
	if (rank != 0) {
		if (far && ok)
			pong(comm);
		return 0;
	}
	if (!ok) {
		free(all);
		free(*skew);
		*skew = NULL;
		snprintf(how, howlen, "not aligned (out of memory)");
		return 0;
	}
	for (int r = 1; r < size; r++) {
		uint64_t rtt;
		int64_t s;

		if (!all[r])
			continue;
		s = ping(comm, r, &rtt);
		(*skew)[r] = s;
		nfar++;
		if (rtt > worst)
			worst = rtt;
	}
	free(all);
	if (!nfar)
		snprintf(how, howlen,
			 "one machine: every rank reads the same "
			 "monotonic clock");
	else
		snprintf(how, howlen,
			 "%d of %d ranks on other machines, "
			 "aligned by ping-pong at MPI_Finalize (round trip at "
			 "most %.1f us)",
			 nfar, size, (double)worst / 1e3);
	return 0;
}

int timing_after(uint64_t t0, uint64_t dur, uint32_t *dc, uint32_t *ic)
{
	if (rt.tstate != RT_TIMING_ON || !rt.tenc.sc)
		return -1;
	fmt_tenc_call(&rt.tenc, timing_start_of(t0), dur, dc, ic);
	return 0;
}

void timing_free(void)
{
	fmt_tstream_free(&rt.tcod);
	fmt_buf_free(&rt.tbytes);
	free(rt.tbuf);
	rt.tbuf = NULL;
	rt.tn = 0;
	/* a rank whose every call has its times so far keeps the encoder
	 * for its calls after MPI_Finalize (timing_after) */
	if (rt.tstate == RT_TIMING_ON)
		return;
	fmt_tscale_free(&rt.tscale);
	rt.tenc.sc = NULL;
}
