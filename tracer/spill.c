/*
 * spill.c - the rank's record kept recoverable while the job runs (see
 * spill.h): the streams, their chunks, the spill file and its watchdog.
 *
 * Who writes: a recorder, when the interval is over or the chunks waiting
 * grow large (spill_now, inside its spill_enter); a signal handler or an
 * exit (spill_end); and the watchdog thread, when the rank has made no
 * call for a whole interval (blocked in MPI, or computing), so that the
 * calls before a hang are on disk before the job is killed.  The
 * watchdog must not write while a recorder changes the tables: it sets
 * spill_lock, makes every thread pass a memory barrier (membarrier(2)),
 * and writes only if no recorder is inside; a recorder that enters
 * meanwhile sees the lock and waits (spill_enter).  So recorders pay two
 * plain stores and a load per call, never a fence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "runtime.h"
#include "spill.h"
#include "util.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "spill files store values as the memory holds them: little-endian"
#endif

struct spill_chunk {
	struct spill_chunk *next;
	uint32_t nvalues; /* coded SPILL_ZSTD_PLANES */
	int written;
	size_t len;
	uint8_t data[];
};

struct spill_hot spill_hot = {.due = UINT64_MAX};
volatile sig_atomic_t spill_busy, spill_deferred, spill_inside;
volatile int spill_lock;

/* Values a stream keeps raw before they become a chunk; chunks waiting
 * past this many bytes are written at once. */
#define STREAM_CAP   (64u << 10)
#define PENDING_MAX  ((size_t)4 << 20)
#define INTERVAL_DEF 180 /* seconds */

static struct {
	int fd;		   /* the file, -1 until the first spill */
	int broken;	   /* could not be made or written: said once */
	pid_t pid;	   /* of the rank: a forked child writes nothing */
	uint64_t interval; /* ns, 0: no spill by time */
	uint64_t ticks;	   /* the interval in rt_clock() ticks */
	uint64_t last_ns;  /* rt_now() of the last spill, or of the start */
	uint32_t raw_done[SPILL_NSTREAMS]; /* raw values written by a handler */
	uint64_t in_file[SPILL_NSTREAMS];  /* values written */
	uint64_t calls_done;		   /* rt.ncalls at the last spill */
	size_t pending;			   /* bytes of chunks not written */
	uint32_t sigs_done, idents_done;
	uint8_t *funcs_done; /* one bit per function */
	uint64_t *stat_done; /* each signature's count at the last spill */
	size_t stat_cap;
	int off; /* RONDO_SPILL=0: no stream, no file */
	/* what the spills cost (RONDO_VERBOSE) */
	uint64_t nspills, spill_ns, spill_max_ns, sync_ns;
	ZSTD_CCtx *zc;
	uint8_t *planes; /* a chunk's values as byte planes (chunk_make) */
	int barrier_cmd; /* membarrier's command, 0: none */
	char dir[PATH_MAX], path[PATH_MAX + 32];
} sp = {.fd = -1};

/* What the file's HEAD says, made once at the start. */
static struct {
	struct output_facts f;
	uint64_t wall_ns; /* of the start, since the epoch */
} head;

static struct spill_w wr; /* under spill_lock; static: handlers' stacks
			     may be small */
__thread int spill_here __attribute__((tls_model("initial-exec")));

/* ---- settings and names ------------------------------------------------ */

/* "180", "90s", "5m", "1h": seconds; -1 when it is none of those. */
static long parse_interval(const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);
	long unit = !*end		? 1
		    : !strcmp(end, "s") ? 1
		    : !strcmp(end, "m") ? 60
		    : !strcmp(end, "h") ? 3600
					: -1;

	if (!*v || *v < '0' || *v > '9' || unit < 0 || n > 1000000)
		return -1;
	return n * unit;
}

/* The trace's path without ".rondo": RONDO_OUT's file, or the name the
 * trace gets in RONDO_OUT's folder or the working directory. */
static void trace_base(char *buf, size_t size)
{
	char cwd[PATH_MAX] = ".";
	size_t n;

	output_path(buf, size);
	if (buf[0] != '/' && getcwd(cwd, sizeof(cwd))) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "%s", buf);
		if (snprintf(buf, size, "%s/%s", cwd, rel) >= (int)size)
			snprintf(buf, size, "%s", rel); /* too long: relative */
	}
	n = strlen(buf);
	if (n > 6 && !strcmp(buf + n - 6, ".rondo"))
		buf[n - 6] = '\0';
}

static void name_files(void)
{
	const char *env = getenv("RONDO_SPILL_DIR");
	char base[PATH_MAX];

	trace_base(base, sizeof(base));
	if (env && *env) {
		const char *b = strrchr(base, '/');

		snprintf(sp.dir, sizeof(sp.dir), "%s/%s.spill", env,
			 b ? b + 1 : base);
	} else {
		snprintf(sp.dir, sizeof(sp.dir), "%s.spill", base);
	}
	snprintf(sp.path, sizeof(sp.path), "%s/rank-%d.spill", sp.dir, rt.rank);
}

static void membarrier_setup(void)
{
	long have = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (have < 0)
		return;
	if ((have & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		sp.barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (have & MEMBARRIER_CMD_GLOBAL)
		sp.barrier_cmd = MEMBARRIER_CMD_GLOBAL;
}

static void *watchdog(void *arg);

/* RONDO_SPILL: 0 when the job keeps nothing recoverable, to measure what
 * keeping it costs against (tests/bench/bench_spill.sh). */
static int spill_wanted(void)
{
	const char *v = getenv("RONDO_SPILL");
	int b = rt_bool(v);

	if (b < 0 && v)
		rt_warn("RONDO_SPILL='%s' is not a yes/no value; using yes", v);
	if (b == 0 && rt.verbose && rt.rank == 0)
		fprintf(stderr, "rondo: RONDO_SPILL=0: no spill files; a job "
				"that does not end in MPI_Finalize leaves no "
				"trace\n");
	return b != 0;
}

void spill_start(void)
{
	const char *iv = getenv("RONDO_FLUSH_INTERVAL");
	long secs = INTERVAL_DEF;
	struct timespec ts;
	sigset_t all, old;
	pthread_t t;

	if (!spill_wanted()) {
		sp.off = 1;
		return;
	}
	if (iv && (secs = parse_interval(iv)) < 0) {
		rt_warn("RONDO_FLUSH_INTERVAL='%s' is not a number of seconds "
			"(or with s, m, h); using %d",
			iv, INTERVAL_DEF);
		secs = INTERVAL_DEF;
	}
	sp.pid = getpid();
	sp.interval = (uint64_t)secs * 1000000000u;
	name_files();
	for (int s = 0; s < SPILL_NSTREAMS; s++) {
		if (s != SPILL_CALLS && !rt.timing)
			continue;
		spill_hot.st[s].raw = malloc(sizeof(uint32_t) * STREAM_CAP);
		spill_hot.st[s].cap = STREAM_CAP;
		if (!spill_hot.st[s].raw)
			goto nomem;
	}
	sp.funcs_done = calloc(rt_nfuncs() / 8 + 1, 1);
	sp.zc = ZSTD_createCCtx();
	sp.planes = malloc(sizeof(uint32_t) * STREAM_CAP);
	if (!sp.funcs_done || !sp.zc || !sp.planes)
		goto nomem;
	output_facts(&head.f);
	clock_gettime(CLOCK_REALTIME, &ts);
	head.wall_ns = (uint64_t)ts.tv_sec * 1000000000u +
		       (uint64_t)ts.tv_nsec - (rt_now() - rt.start_ns);
	sp.last_ns = rt_now();
	spill_hot.on = 1;
	if (!sp.interval)
		return;
	sp.ticks = rt_clock_ticks(sp.interval);
	spill_hot.due = rt_clock() + sp.ticks;
	membarrier_setup();
	if (!sp.barrier_cmd)
		return; /* the recorders spill; a hang is not seen */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, watchdog, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return;
nomem:
	rt_warn("out of memory at MPI_Init: the trace is not kept safe "
		"against the job's ending early");
	spill_hot.on = 0;
}

/* ---- the streams ------------------------------------------------------- */

/* The n values v as byte planes into sp.planes (the lowest byte of each
 * value, then the next byte of each, ...), as many planes as the largest
 * value needs; returns their count (1 to 4).  Small codes in 32 bits are
 * three quarters zero bytes, which zstd reads through at the cost of
 * real data: as planes it compresses them in half the time and smaller
 * (a duration code, about 8 ns a value as 32 bits, 4 ns as planes). */
static unsigned planes_of(const uint32_t *v, uint32_t n)
{
	uint32_t most = 0;
	unsigned w = 1;
	uint8_t *p = sp.planes;

	for (uint32_t i = 0; i < n; i++)
		most |= v[i];
	while (w < 4 && most >> (8 * w))
		w++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = v[i];

		for (unsigned b = 0; b < w; b++)
			p[(size_t)b * n + i] = (uint8_t)(x >> (8 * b));
	}
	return w;
}

/* The stream's raw values into a chunk (0, or -1 without memory): zstd
 * of their byte planes (SPILL_ZSTD_PLANES). */
static int chunk_make(int stream)
{
	struct spill_stream *s = &spill_hot.st[stream];
	uint32_t from = sp.raw_done[stream], n = s->n - from;
	unsigned w;
	size_t in, bound, len;
	struct spill_chunk *c;

	if (s->n == from) {
		s->n = sp.raw_done[stream] = 0;
		return 0;
	}
	w = planes_of(s->raw + from, n);
	in = (size_t)w * n;
	bound = ZSTD_compressBound(in);
	c = malloc(sizeof(*c) + 1 + bound);
	if (!c)
		return -1;
	c->data[0] = (uint8_t)w;
	len = ZSTD_compressCCtx(sp.zc, c->data + 1, bound, sp.planes, in, 1);
	if (ZSTD_isError(len)) {
		free(c);
		return -1;
	}
	len++;
	c->next = NULL;
	c->nvalues = n;
	c->written = 0;
	c->len = len;
	if (s->last)
		s->last->next = c;
	else
		s->first = c;
	s->last = c;
	sp.pending += len;
	s->n = sp.raw_done[stream] = 0;
	return 0;
}

void spill_full(int stream)
{
	struct spill_stream *s = &spill_hot.st[stream];

	if (chunk_make(stream) < 0) {
		/* no memory for a chunk: the values are lost to the spill,
		 * which then cannot be trusted; the trace at MPI_Finalize is
		 * whole all the same */
		spill_hot.on = 0;
		s->n = 0;
		return;
	}
	/* the recorder spills when done with the call: a spill in the
	 * middle would cut the call's values apart */
	if (sp.pending > PENDING_MAX)
		spill_hot.due = 0;
}

/* ---- writing ----------------------------------------------------------- */

static int take_lock(int wait_ms)
{
	for (int k = 0;; k++) {
		int zero = 0;

		if (__atomic_compare_exchange_n(&spill_lock, &zero, 1, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return 0;
		if (k >= wait_ms * 10)
			return -1;
		nanosleep(&(struct timespec){0, 100000}, NULL);
	}
}

static void drop_lock(void)
{
	__atomic_store_n(&spill_lock, 0, __ATOMIC_SEQ_CST);
}

/* Creates the folder and the file; every call async-signal-safe. */
static int file_open(void)
{
	struct stat st;
	int fd;

	if (sp.broken)
		return -1;
	mkdir(sp.dir, 0755);
	fd = open(sp.path,
		  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC |
			  O_NONBLOCK,
		  0644);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		sp.broken = errno ? errno : EINVAL;
		return -1;
	}
	sp.fd = fd;
	spill_w_init(&wr, fd);
	spill_w_magic(&wr);
	return 0;
}

static void put_head(void)
{
	struct spill_w *w = &wr;

	spill_w_room(w, SPILL_HEAD, sizeof(w->buf));
	spill_w_uv(w, SPILL_VERSION);
	spill_w_uv(w, (uint64_t)rt.rank);
	spill_w_uv(w, (uint64_t)rt.size);
	spill_w_uv(w, (uint64_t)sp.pid);
	spill_w_le64(w, rt.job_key);
	spill_w_str(w, rt.stamp, sizeof(rt.stamp));
	spill_w_str(w, rt.start, sizeof(rt.start));
	spill_w_uv(w, head.wall_ns);
	spill_w_str(w, head.f.program, 255);
	spill_w_str(w, head.f.command, 4000);
	spill_w_str(w, head.f.host, 255);
	spill_w_str(w, head.f.mpi, 500);
	spill_w_str(w, head.f.mpi_version, 15);
	spill_w_str(w, head.f.settings, 500);
	spill_w_uv(w, (uint64_t)(rt.lazy | rt.sessions << 1));
	spill_w_uv(w, rt.timing ? SPILL_TIMING_FROM_LOW : 0);
	spill_w_f64(w, rt.time_base);
	spill_w_sv(w, (int64_t)(rt.origin_ns - rt.start_ns));
	spill_w_flush(w);
	for (uint32_t c = 0; c < handles_const_count(); c++) {
		const char *name = handles_const_name(c);

		spill_w_room(w, SPILL_CONSTS, spill_str_need(name, 200) + 10);
		spill_w_str(w, name, 200);
		spill_w_sv(w, handles_const_type_size(c));
	}
	spill_w_flush(w);
}

static void put_func_entry(uint32_t f)
{
	const struct rec_func *rf = rt_func(f);
	size_t need = 2 * SPILL_UV_MAX + spill_str_need(rf->name, 200);

	for (uint32_t k = 0; k < rf->nparams; k++)
		need += spill_str_need(rf->params[k], 200) + 1;
	if (spill_w_room(&wr, SPILL_FUNCS, need) < 0)
		return; /* no function has that many parameters */
	spill_w_uv(&wr, f);
	spill_w_str(&wr, rf->name, 200);
	spill_w_uv(&wr, rf->nparams);
	for (uint32_t k = 0; k < rf->nparams; k++) {
		spill_w_str(&wr, rf->params[k], 200);
		spill_w_u8(&wr, rf->out ? rf->out[k] : 0);
	}
}

static void put_func(uint32_t f)
{
	put_func_entry(f);
	sp.funcs_done[f / 8] |= (uint8_t)(1u << (f % 8));
}

static void put_sig(uint32_t func, uint32_t nargs, const uint8_t *p,
		    uint32_t len)
{
	if (spill_w_room(&wr, SPILL_SIGS, 3 * SPILL_UV_MAX + len) == 0) {
		spill_w_uv(&wr, func);
		spill_w_uv(&wr, nargs);
		spill_w_uv(&wr, len);
		spill_w_bytes(&wr, p, len);
	} else {
		spill_w_big_head(&wr, SPILL_SIGS);
		spill_w_uv(&wr, func);
		spill_w_uv(&wr, nargs);
		spill_w_uv(&wr, len);
		spill_w_big_end(&wr, p, len);
	}
}

static void put_sigs(void)
{
	/* the functions first: one run of records of each type */
	for (uint32_t s = sp.sigs_done; s < rt.nsig; s++)
		if (!(sp.funcs_done[rt.sig[s].func / 8] &
		      (1u << (rt.sig[s].func % 8))))
			put_func(rt.sig[s].func);
	for (uint32_t s = sp.sigs_done; s < rt.nsig; s++) {
		const struct rt_sig *g = &rt.sig[s];

		put_sig(g->func, g->nargs, rt.sig_bytes.data + g->off, g->len);
	}
	sp.sigs_done = rt.nsig;
}

static void put_chunk_head(int stream, uint32_t n, int coding)
{
	spill_w_big_head(&wr, SPILL_CHUNK);
	spill_w_uv(&wr, (uint64_t)stream);
	spill_w_uv(&wr, n);
	spill_w_u8(&wr, (uint8_t)coding);
}

/* The chunks (freed when we may), then raw values left. */
static void put_streams(int can_alloc)
{
	for (int i = 0; i < SPILL_NSTREAMS; i++) {
		struct spill_stream *s = &spill_hot.st[i];
		uint32_t from = sp.raw_done[i];

		for (struct spill_chunk *c = s->first, *next; c; c = next) {
			next = c->next;
			if (!c->written) {
				put_chunk_head(i, c->nvalues,
					       SPILL_ZSTD_PLANES);
				spill_w_big_end(&wr, c->data, c->len);
				c->written = 1;
				sp.pending -= c->len;
				sp.in_file[i] += c->nvalues;
			}
			if (can_alloc)
				free(c);
		}
		if (can_alloc)
			s->first = s->last = NULL;
		if (s->n > from) {
			put_chunk_head(i, s->n - from, SPILL_RAW);
			spill_w_big_end(&wr, s->raw + from,
					sizeof(uint32_t) * (s->n - from));
			sp.in_file[i] += s->n - from;
			sp.raw_done[i] = s->n;
		}
	}
}

/* Statistics st of signature s, in a record of `type` (SPILL_STATS or
 * SPILL_GAPS). */
static void put_stat(uint32_t type, uint32_t s, const rondo_stat *st)
{
	uint32_t bins = 0;

	for (int b = 0; b < RONDO_HIST_BINS; b++)
		bins += st->hist[b] != 0;
	spill_w_room(&wr, type, (7 + 2 * bins) * SPILL_UV_MAX + 8);
	spill_w_uv(&wr, s);
	spill_w_uv(&wr, st->count);
	spill_w_uv(&wr, st->total_ns);
	spill_w_uv(&wr, st->min_ns);
	spill_w_uv(&wr, st->max_ns);
	spill_w_f64(&wr, st->sumsq_ns2);
	spill_w_uv(&wr, bins);
	for (int b = 0; b < RONDO_HIST_BINS; b++)
		if (st->hist[b]) {
			spill_w_uv(&wr, (uint64_t)b);
			spill_w_uv(&wr, st->hist[b]);
		}
}

static void put_stats(int can_alloc)
{
	if (can_alloc && rt.nsig > sp.stat_cap) {
		size_t had = sp.stat_cap;

		if (util_grow(&sp.stat_done, &sp.stat_cap, rt.nsig,
			      sizeof(*sp.stat_done)) == 0)
			memset(sp.stat_done + had, 0,
			       sizeof(*sp.stat_done) * (sp.stat_cap - had));
	}
	/* the durations of the signatures called since, then the time
	 * before their calls, each a run of records of one type */
	for (uint32_t s = 0; s < rt.nsig; s++)
		if (s >= sp.stat_cap || sp.stat_done[s] != rt.sig[s].st.count)
			put_stat(SPILL_STATS, s, &rt.sig[s].st);
	for (uint32_t s = 0; s < rt.nsig; s++) {
		uint64_t count = rt.sig[s].st.count;

		if (s < sp.stat_cap && sp.stat_done[s] == count)
			continue;
		if (rt.sig[s].gap.count)
			put_stat(SPILL_GAPS, s, &rt.sig[s].gap);
		if (s < sp.stat_cap)
			sp.stat_done[s] = count;
	}
}

static void put_mark(int how, int code)
{
	struct timespec ts;

	/* the function the rank was inside may have no signature yet */
	if (how && spill_inside > 0 &&
	    (uint32_t)spill_inside - 1 < rt_nfuncs() &&
	    !(sp.funcs_done[(spill_inside - 1) / 8] &
	      (1u << ((spill_inside - 1) % 8))))
		put_func((uint32_t)spill_inside - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	spill_w_room(&wr, how ? SPILL_END : SPILL_MARK, 32 * SPILL_UV_MAX);
	spill_w_uv(&wr, sp.in_file[SPILL_CALLS]);
	spill_w_uv(&wr, sp.in_file[SPILL_DURATIONS]);
	spill_w_uv(&wr,
		   (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	spill_w_uv(&wr, rt_now() - rt.start_ns);
	spill_w_uv(&wr, REC_NBIND);
	for (int b = 0; b < REC_NBIND; b++)
		spill_w_uv(&wr, rt.bind_calls[b]);
	spill_w_uv(&wr,
		   (uint64_t)(rt.failed | (rt.tstate == RT_TIMING_LOST) << 1));
	if (how) {
		spill_w_uv(&wr, (uint64_t)how);
		spill_w_sv(&wr, code);
		spill_w_uv(&wr, (uint64_t)spill_inside);
	}
	spill_w_flush(&wr);
}

/* Everything since the last spill; under spill_lock, with no recorder
 * inside.  Returns 0 or -1. */
static int spill_write(int can_alloc, int how, int code)
{
	uint64_t t0 = rt_now(), d;

	if (!spill_hot.on || getpid() != sp.pid)
		return -1;
	if (sp.fd < 0) {
		if (file_open() < 0)
			return -1;
		put_head();
	}
	if (can_alloc)
		for (int i = 0; i < SPILL_NSTREAMS; i++)
			if (spill_hot.st[i].raw && chunk_make(i) < 0)
				can_alloc = 0; /* the rest written raw */
	put_sigs();
	comms_spill(&wr, &sp.idents_done);
	put_streams(can_alloc);
	put_stats(can_alloc);
	put_mark(how, code);
	spill_w_done(&wr);
	if (wr.err && !sp.broken)
		sp.broken = wr.err;
	if (can_alloc && !sp.broken) {
		d = rt_now();
		fdatasync(sp.fd);
		sp.sync_ns += rt_now() - d;
	}
	sp.last_ns = rt_now();
	sp.calls_done = rt.ncalls;
	spill_hot.due = sp.ticks ? rt_clock() + sp.ticks : UINT64_MAX;
	d = sp.last_ns - t0;
	sp.nspills++;
	sp.spill_ns += d;
	if (d > sp.spill_max_ns)
		sp.spill_max_ns = d;
	return sp.broken ? -1 : 0;
}

/* Says once (rank by rank: each has its own file) why spills stopped. */
static void say_broken(void)
{
	static int said;

	if (sp.broken && !said) {
		said = 1;
		fprintf(stderr,
			"rondo: rank %d: cannot write %s: %s; the trace is "
			"kept in memory only\n",
			rt.rank, sp.path, strerror(sp.broken));
	}
}

/* The file cannot be written: the stream stops, and its chunks go,
 * rather than growing with every call until the end.  Under spill_lock,
 * from a recorder. */
static void spill_off(void)
{
	spill_hot.on = 0;
	spill_hot.due = UINT64_MAX;
	for (int i = 0; i < SPILL_NSTREAMS; i++) {
		struct spill_stream *s = &spill_hot.st[i];

		for (struct spill_chunk *c = s->first, *next; c; c = next) {
			next = c->next;
			free(c);
		}
		s->first = s->last = NULL;
		s->n = 0;
	}
	sp.pending = 0;
}

void spill_now(void)
{
	if (!spill_hot.on || take_lock(0) < 0) {
		spill_hot.due = sp.ticks ? rt_clock() + sp.ticks : UINT64_MAX;
		return;
	}
	if (spill_write(1, 0, 0) < 0 && sp.broken)
		spill_off();
	drop_lock();
	say_broken();
}

const char *spill_settings(void)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "RONDO_SPILL=%d RONDO_FLUSH_INTERVAL=%llu",
		 !sp.off, (unsigned long long)(sp.interval / 1000000000u));
	return buf;
}

size_t spill_memory(void)
{
	size_t n = sp.pending + sp.stat_cap * sizeof(*sp.stat_done) +
		   (sp.planes ? sizeof(uint32_t) * STREAM_CAP : 0);

	for (int i = 0; i < SPILL_NSTREAMS; i++)
		n += (size_t)spill_hot.st[i].cap * sizeof(uint32_t);
	return n;
}

int spill_order_kept(void)
{
	return spill_hot.on && !sp.broken;
}

void spill_end(int how, int code, int can_alloc)
{
	if (!spill_hot.on || getpid() != sp.pid || take_lock(5000) < 0)
		return;
	spill_write(can_alloc, how, code);
	drop_lock();
}

void spill_wait_lock(void)
{
	while (spill_lock) {
		spill_busy = 0;
		while (__atomic_load_n(&spill_lock, __ATOMIC_ACQUIRE))
			nanosleep(&(struct timespec){0, 100000}, NULL);
		spill_busy = 1;
		__asm__ __volatile__("" ::: "memory");
	}
}

/* ---- the watchdog ------------------------------------------------------ */

/* Spills for a rank that made no call for an interval: only when no
 * recorder is inside, which the barrier makes sure every thread sees. */
static int watchdog_try(void)
{
	int rc = 0;

	if (take_lock(0) < 0)
		return -1;
	syscall(SYS_membarrier, sp.barrier_cmd, 0, 0);
	if (spill_busy)
		rc = -1;
	else
		spill_write(1, 0, 0);
	drop_lock();
	return rc;
}

static void *watchdog(void *arg)
{
	(void)arg;
	while (spill_hot.on && getpid() == sp.pid) {
		uint64_t now = rt_now(), due = sp.last_ns + sp.interval;

		if (now < due) {
			uint64_t d = due - now;

			nanosleep(&(struct timespec){(time_t)(d / 1000000000u),
						     (long)(d % 1000000000u)},
				  NULL);
			continue;
		}
		/* on through MPI_Finalize's merge, which waits for every rank:
		 * one that never comes leaves the others there */
		if (rt.ncalls == sp.calls_done) { /* nothing new */
			sp.last_ns = now;
			continue;
		}
		/* a recorder inside: it leaves within microseconds */
		while (watchdog_try() < 0 && spill_hot.on)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	return NULL;
}

/* ---- after MPI_Finalize ------------------------------------------------- */

/* The after file's signatures: call i has local signature sig[i]; the
 * first call of signature k is first[k].  Returns their number. */
static uint32_t after_sigs(const struct spill_call *c, uint32_t n,
			   uint32_t *sig, uint32_t *first)
{
	uint32_t nsig = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < nsig &&
		       !(c[first[k]].func == c[i].func &&
			 c[first[k]].len == c[i].len &&
			 !memcmp(c[first[k]].args, c[i].args, c[i].len)))
			k++;
		if (k == nsig)
			first[nsig++] = i;
		sig[i] = k;
	}
	return nsig;
}

static void after_records(const struct spill_call *c, uint32_t n, uint64_t lost)
{
	uint32_t *sig = malloc(sizeof(uint32_t) * 3 * (n + 1)), *first, *code;
	uint32_t nsig;
	uint32_t timed = 0;
	uint64_t bind[REC_NBIND] = {0};
	struct timespec ts;

	if (!sig) {
		wr.err = ENOMEM;
		return;
	}
	first = sig + n + 1;
	code = first + n + 1;
	nsig = after_sigs(c, n, sig, first);
	put_head();
	for (uint32_t k = 0; k < nsig; k++) {
		uint32_t f = c[first[k]].func, j = 0;

		while (j < k && c[first[j]].func != f)
			j++;
		if (j == k) /* each function once */
			put_func_entry(f);
	}
	for (uint32_t k = 0; k < nsig; k++)
		put_sig(c[first[k]].func, rt_func(c[first[k]].func)->nparams,
			c[first[k]].args, c[first[k]].len);
	put_chunk_head(SPILL_CALLS, n, SPILL_RAW);
	spill_w_big_end(&wr, sig, sizeof(uint32_t) * n);
	for (uint32_t i = 0; i < n; i++)
		timed += c[i].timed;
	if (timed == n) { /* the codes, each stream in turn */
		for (uint32_t i = 0; i < n; i++)
			code[i] = c[i].dcode;
		put_chunk_head(SPILL_DURATIONS, n, SPILL_RAW);
		spill_w_big_end(&wr, code, sizeof(uint32_t) * n);
		for (uint32_t i = 0; i < n; i++)
			code[i] = c[i].icode;
		put_chunk_head(SPILL_INTERVALS, n, SPILL_RAW);
		spill_w_big_end(&wr, code, sizeof(uint32_t) * n);
	} else {
		timed = 0;
	}
	for (uint32_t k = 0; k < nsig; k++) {
		rondo_stat st = {0};

		for (uint32_t i = first[k]; i < n; i++) {
			uint64_t d = c[i].t1 > c[i].t0
					     ? rt_clock_ns(c[i].t1 - c[i].t0)
					     : 0;

			if (sig[i] == k)
				fmt_stat_record(&st, d);
		}
		put_stat(SPILL_STATS, k, &st);
	}
	for (uint32_t i = 0; i < n; i++)
		if (c[i].binding < REC_NBIND)
			bind[c[i].binding]++;
	clock_gettime(CLOCK_REALTIME, &ts);
	spill_w_room(&wr, SPILL_END, 32 * SPILL_UV_MAX);
	spill_w_uv(&wr, n);
	spill_w_uv(&wr, timed);
	spill_w_uv(&wr,
		   (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	spill_w_uv(&wr, rt_now() - rt.start_ns);
	spill_w_uv(&wr, REC_NBIND);
	for (int b = 0; b < REC_NBIND; b++)
		spill_w_uv(&wr, bind[b]);
	spill_w_uv(&wr, 0);
	spill_w_uv(&wr, SPILL_END_AFTER);
	spill_w_sv(&wr, (int64_t)(lost > INT64_MAX ? INT64_MAX : lost));
	spill_w_uv(&wr, 0);
	spill_w_flush(&wr);
	spill_w_done(&wr);
	free(sig);
}

void spill_after(const struct spill_call *c, uint32_t n, uint64_t lost)
{
	char path[sizeof(sp.path)];
	struct stat st;
	int locked = take_lock(5000) == 0, fd;

	/* the spill file, if any, ended at MPI_Finalize: nothing more goes
	 * to it, and its writer writes this file now */
	spill_hot.on = 0;
	if (!sp.dir[0])
		name_files();
	if (!head.f.program[0]) { /* RONDO_SPILL=0: not made at the start */
		struct timespec ts;

		output_facts(&head.f);
		clock_gettime(CLOCK_REALTIME, &ts);
		head.wall_ns = (uint64_t)ts.tv_sec * 1000000000u +
			       (uint64_t)ts.tv_nsec - (rt_now() - rt.start_ns);
	}
	sp.pid = getpid();
	snprintf(path, sizeof(path), "%s/rank-%d.after", sp.dir, rt.rank);
	mkdir(sp.dir, 0755);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd >= 0) {
		spill_w_init(&wr, fd);
		spill_w_magic(&wr);
		after_records(c, n, lost);
		if (close(fd) < 0 && !wr.err)
			wr.err = errno;
		errno = wr.err;
	}
	if (fd < 0 || wr.err)
		fprintf(stderr,
			"rondo: rank %d: cannot write %s: %s; its %u calls "
			"after MPI_Finalize are not kept\n",
			rt.rank, path, strerror(errno), n);
	else if (rt.verbose > 1 || (rt.rank == 0 && !getenv("RONDO_JOB")))
		fprintf(stderr,
			"rondo: rank %d: %u call%s after MPI_Finalize in %s; "
			"rondo recover %s adds every rank's to the trace\n",
			rt.rank, n, n == 1 ? "" : "s", path, sp.dir);
	if (locked)
		drop_lock();
}

/* ---- the end ----------------------------------------------------------- */

/* With RONDO_VERBOSE (as output.c's line: rank 0, or every rank at 2),
 * what the spills cost this rank: their time runs from compressing the
 * values left raw to fdatasync; a stream's full buffers are compressed
 * by the recorders as they go, a cost of the calls. */
static void say_costs(void)
{
	if (!(rt.verbose > 1 || (rt.verbose == 1 && rt.rank == 0)))
		return;
	fprintf(stderr,
		"rondo: rank %d: %llu spills, %llu bytes written, %.3f ms in "
		"spills (%.3f in fdatasync; largest %.3f ms), %llu calls in "
		"the spill file\n",
		rt.rank, (unsigned long long)sp.nspills,
		(unsigned long long)wr.bytes, (double)sp.spill_ns / 1e6,
		(double)sp.sync_ns / 1e6, (double)sp.spill_max_ns / 1e6,
		(unsigned long long)sp.in_file[SPILL_CALLS]);
}

void spill_finish(int written)
{
	if (sp.off)
		return; /* no file, nothing to recover */
	if (written == SPILL_FINISH_KEEP) {
		spill_end(SPILL_END_KEPT, 0, 1);
		say_costs();
		if (rt.rank == 0)
			fprintf(stderr,
				"rondo: the order of the calls past "
				"RONDO_MEMORY_LIMIT is in %s: rondo recover "
				"%s -o FILE makes the whole trace\n",
				sp.dir, sp.dir);
		return;
	}
	if (written) {
		/* the watchdog may be writing: the file goes once it is done */
		int locked = take_lock(5000) == 0;

		spill_hot.on = 0;
		if (sp.fd >= 0) {
			close(sp.fd);
			sp.fd = -1;
			unlink(sp.path);
			rmdir(sp.dir); /* the last rank's succeeds */
		}
		say_costs();
		if (locked)
			drop_lock();
		return;
	}
	spill_end(SPILL_END_FINALIZE, 0, 1);
	say_costs();
	if (rt.rank == 0)
		fprintf(stderr,
			"rondo: the trace was not written; each rank's record "
			"is in %s: rondo recover %s\n",
			sp.dir, sp.dir);
}

void spill_take_deferred(void)
{
	int sig = spill_deferred;

	spill_deferred = 0;
	if (sig)
		raise(sig);
}
