/*
 * runtime.c - the tracer's life in one MPI process: settings, start at
 * MPI_Init, pause and resume with MPI_Pcontrol, the trace at MPI_Finalize.
 *
 * These four functions are written by hand; every other MPI function is a
 * generated wrapper (wrappers.c).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "fortran.h"
#include "job.h"
#include "params.h"
#include "runtime.h"
#include "spill.h"
#include "util.h"

struct rt rt = {.lock = PTHREAD_MUTEX_INITIALIZER, .track_pointers = 1};

static const char *const init_params[] = {"argc", "argv"};
static const char *const init_thread_params[] = {"argc", "argv", "required",
						 "provided"};
static const char *const pcontrol_params[] = {"level"};
static const unsigned char init_out[] = {0, 0};
static const unsigned char init_thread_out[] = {0, 0, 0, 1};
static const unsigned char pcontrol_out[] = {0};

const struct rec_func rt_hand_written[RT_NFUNCS] = {
	[RT_INIT] = {"MPI_Init", 2, init_params, init_out},
	[RT_INIT_THREAD] = {"MPI_Init_thread", 4, init_thread_params,
			    init_thread_out},
	[RT_FINALIZE] = {"MPI_Finalize", 0, NULL, NULL},
	[RT_PCONTROL] = {"MPI_Pcontrol", 1, pcontrol_params, pcontrol_out},
};

uint32_t rt_nfuncs(void)
{
	return rec_nfuncs + RT_NFUNCS;
}

uint64_t rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the clock calls are timed with ----------------------------------------
 * Two reads per call: clock_gettime costs 23 ns here, the time-stamp
 * counter 10.  The counter is used when the kernel keeps time with it
 * itself (its clocksource is "tsc": it found the counter invariant and in
 * step across CPUs); its rate is measured against clock_gettime once, over
 * 200 microseconds, to well under 0.1 %. */

int rt_clock_tsc = -1; /* -1: not chosen yet */
/* ns per tick in 32.32 fixed point: a duration converts with one
 * multiply. */
static uint64_t clock_mult;

#if RT_HAVE_TSC
/* The system clock and the time-stamp counter read together: the counter
 * on both sides of the clock, the tightest of a few tries, its middle.  A
 * process descheduled between two plain reads (a loaded node) once made
 * the ratio, and every duration, thousands of times too large. */
static void clock_pair(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;

	*ns = rt_now();
	*tsc = __rdtsc();
	for (int k = 0; k < 8; k++) {
		uint64_t a = __rdtsc(), n = rt_now(), b = __rdtsc();

		if (b >= a && b - a < best) {
			best = b - a;
			*ns = n;
			*tsc = a + (b - a) / 2;
		}
	}
}

static void clock_choose(void)
{
	char src[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
			"current_clocksource",
			"r");
	uint64_t t0, n0, n1, t1;

	rt_clock_tsc = 0;
	if (!f)
		return;
	if (!fgets(src, sizeof(src), f))
		src[0] = '\0';
	fclose(f);
	if (strcmp(src, "tsc\n") != 0)
		return;
	clock_pair(&n0, &t0);
	do
		clock_pair(&n1, &t1);
	while (n1 - n0 < 200000);
	if (t1 > t0) {
		clock_mult = (uint64_t)((double)(n1 - n0) / (double)(t1 - t0) *
						4294967296.0 +
					0.5);
		rt_clock_tsc = 1;
	}
}

uint64_t rt_clock_slow(void)
{
	if (rt_clock_tsc < 0)
		clock_choose();
	return rt_clock_tsc ? __rdtsc() : rt_now();
}

void rt_clock_pair(uint64_t *ns, uint64_t *tick)
{
	if (rt_clock_tsc < 0)
		clock_choose();
	if (rt_clock_tsc > 0)
		clock_pair(ns, tick);
	else
		*ns = *tick = rt_now();
}
#else
void rt_clock_pair(uint64_t *ns, uint64_t *tick)
{
	rt_clock_tsc = 0;
	*ns = *tick = rt_now();
}

uint64_t rt_clock_slow(void)
{
	rt_clock_tsc = 0;
	return rt_now();
}
#endif

uint64_t rt_clock_ns(uint64_t d)
{
	if (rt_clock_tsc <= 0)
		return d;
#ifdef __SIZEOF_INT128__
	return (uint64_t)(((unsigned __int128)d * clock_mult + (1u << 31)) >>
			  32);
#else
	return (uint64_t)((double)d * (double)clock_mult / 4294967296.0 + 0.5);
#endif
}

uint64_t rt_clock_ticks(uint64_t ns)
{
	if (rt_clock_tsc < 0)
		rt_clock_slow();
	if (rt_clock_tsc <= 0 || !clock_mult)
		return ns;
	return (uint64_t)((double)ns * 4294967296.0 / (double)clock_mult);
}

void rt_warn(const char *fmt, ...)
{
	char line[1024];
	size_t n;
	va_list ap;

	if (rt.rank != 0)
		return;
	/* One write: stderr is unbuffered, and a line written in pieces is
	 * cut by the other ranks' and the launcher's output. */
	n = (size_t)snprintf(line, sizeof line, "rondo: warning: ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n] = '\n';
	fwrite(line, 1, n + 1, stderr);
}

int rt_bool(const char *v)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off", ""};

	for (size_t i = 0; v && i < COUNTOF(yes); i++)
		if (!strcasecmp(v, yes[i]))
			return 1;
	for (size_t i = 0; v && i < COUNTOF(no); i++)
		if (!strcasecmp(v, no[i]))
			return 0;
	return -1;
}

/* A boolean setting: 1/0, yes/no, true/false, on/off. */
static int setting_bool(const char *name, int def)
{
	const char *v = getenv(name);
	int b = rt_bool(v);

	if (b >= 0)
		return b;
	if (v)
		rt_warn("%s='%s' is not a yes/no value; using %s", name, v,
			def ? "yes" : "no");
	return def;
}

/* A size in bytes, or with K, M or G; def when unset, or bad (said). */
static size_t setting_size(const char *name, size_t def)
{
	const char *v = getenv(name);
	size_t n;

	if (!v)
		return def;
	if (util_size(v, &n) == 0)
		return n;
	rt_warn("%s='%s' is not a size (bytes, or with K, M or G); using %zuM",
		name, v, def >> 20);
	return def;
}

/* RONDO_TIMING, RONDO_TIME_BASE and RONDO_TIMING_LIMIT. */
static void timing_settings(void)
{
	const char *mode = getenv("RONDO_TIMING");
	const char *base = getenv("RONDO_TIME_BASE");
	char *end;

	rt.time_base = RT_TIME_BASE_DEFAULT;
	rt.timing_limit =
		setting_size("RONDO_TIMING_LIMIT", RT_TIMING_LIMIT_DEFAULT);
	if (mode && !strcmp(mode, "percall"))
		rt.timing = 1;
	else if (mode && *mode && strcmp(mode, "aggregated"))
		rt_warn("RONDO_TIMING='%s' is not 'aggregated' or 'percall'; "
			"using aggregated",
			mode);
	if (base) {
		double b = strtod(base, &end);

		if (*base && !*end && b >= FMT_TBASE_MIN && b <= FMT_TBASE_MAX)
			rt.time_base = b;
		else
			rt_warn("RONDO_TIME_BASE='%s' is not a number from %g "
				"to %g; using %g",
				base, FMT_TBASE_MIN, FMT_TBASE_MAX,
				RT_TIME_BASE_DEFAULT);
	}
}

/* RONDO_PRECISION_PARAMS: what merges besides counts and displacements,
 * "tags", "peers" (or "sizes", the default; a list: "sizes,tags,peers");
 * what else says so and merges nothing. */
static int params_settings(void)
{
	const char *v = getenv("RONDO_PRECISION_PARAMS");
	unsigned what;

	rt.params = 0;
	if (!v || !*v)
		return 0;
	if (util_params(v, &what) < 0) {
		rt_warn("RONDO_PRECISION_PARAMS='%s' is not a list of sizes, "
			"tags and peers; merging nothing: lossless",
			v);
		rt.tolerance = 0;
		return -1;
	}
	rt.params = what;
	return 0;
}

/* RONDO_PRECISION: a percentage, 100 (lossless) by default. */
static void precision_settings(void)
{
	const char *v = getenv("RONDO_PRECISION");
	unsigned p;

	rt.tolerance = 0;
	if (!v || !*v)
		return;
	if (util_percent(v, &p) < 0) {
		rt_warn("RONDO_PRECISION='%s' is not a percentage from 0 to "
			"100; using 100 (lossless)",
			v);
		return;
	}
	rt.tolerance = 100 - p;
	if (params_settings() < 0)
		return;
	if (rt.tolerance && rt.timing)
		rt_warn("RONDO_PRECISION=%u with RONDO_TIMING=percall: "
			"per-call times follow the calls one by one, so "
			"nothing is merged",
			p);
}

void rt_settings(void)
{
	const char *out = getenv("RONDO_OUT");
	const char *verbose = getenv("RONDO_VERBOSE");
	char *end;

	timing_settings();
	precision_settings();
	rt.exact_ranks = job_exact_ranks(getenv("RONDO_RANKTIME_EXACT"));
	if (!rt.exact_ranks) {
		rt_warn("RONDO_RANKTIME_EXACT='%s' is not a number of ranks "
			"(1 or more); using %d",
			getenv("RONDO_RANKTIME_EXACT"), JOB_EXACT_RANKS);
		rt.exact_ranks = JOB_EXACT_RANKS;
	}
	rt.mem_limit =
		setting_size("RONDO_MEMORY_LIMIT", memory_default_limit());
	rt.disabled = setting_bool("RONDO_DISABLE", 0);
	rt.track_pointers = setting_bool("RONDO_TRACK_POINTERS", 1);
	rt.memo = setting_bool("RONDO_MEMO", 1);
	if (verbose) {
		long v = strtol(verbose, &end, 10);

		if (*verbose && !*end && v >= 0 && v <= 2)
			rt.verbose = (int)v;
		else
			rt_warn("RONDO_VERBOSE='%s' is not 0, 1 or 2; using 0",
				verbose);
	}
	if (out && strlen(out) >= sizeof(rt.out))
		rt_warn("RONDO_OUT is longer than %zu bytes; using the "
			"working directory",
			sizeof(rt.out) - 1);
	else if (out)
		strcpy(rt.out, out);
}

/* Writing the trace takes every rank, so all trace or none: a
 * RONDO_DISABLE set on some ranks only would leave the others waiting for
 * them at MPI_Finalize.  The ranks agree at MPI_Init, which is collective
 * (a lazy start may come at a call only some ranks make), and take rank
 * 0's start time and job key, which name the trace and the spill files. */
static void agree_job(time_t *now)
{
	uint64_t mine[4] = {(uint64_t)rt.disabled, (uint64_t)!rt.disabled,
			    rt.rank == 0 ? rt.job_key : 0,
			    rt.rank == 0 ? (uint64_t)*now : 0};
	uint64_t any[4] = {0, 0, 0, 0};

	if (PMPI_Allreduce(mine, any, 4, MPI_UINT64_T, MPI_MAX,
			   MPI_COMM_WORLD) != MPI_SUCCESS)
		return;
	if (any[0] && any[1]) {
		rt_warn("RONDO_DISABLE is set on some ranks only: tracing "
			"none");
		rt.disabled = 1;
	}
	rt.job_key = any[2];
	*now = (time_t)any[3];
}

/* A key for the job without talking to the other ranks (a lazy start):
 * what `rondo run` or the batch system says, else this node's. */
static uint64_t job_key_local(void)
{
	static const char *const vars[] = {"RONDO_JOB", "SLURM_JOB_ID",
					   "PMIX_NAMESPACE", "PMI_KVSNAME",
					   "OMPI_MCA_ess_base_jobid"};
	uint64_t h = 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < COUNTOF(vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v) {
			for (; *v; v++)
				h = (h ^ (unsigned char)*v) * 0x100000001b3ull;
			return h;
		}
	}
	return h ^ (uint64_t)getppid() << 20 ^ rt_now();
}

/* Everything that needs MPI up: called once PMPI_Init succeeded. */
static void runtime_start(int provided)
{
	time_t now = time(NULL);
	struct tm tm;

	if (rt.state != RT_BEFORE)
		return;

	if (!rt.sessions) {
		rt.world = MPI_COMM_WORLD;
		PMPI_Comm_group(MPI_COMM_WORLD, &rt.world_group);
		PMPI_Comm_rank(MPI_COMM_WORLD, &rt.rank);
		PMPI_Comm_size(MPI_COMM_WORLD, &rt.size);
	}
	rt_settings();
	tools_report();
	rt.job_key = job_key_local();
	if (!rt.sessions && !rt.lazy) {
		/* rank 0's, unique unless `rondo run` named the job */
		if (!getenv("RONDO_JOB"))
			rt.job_key ^= (uint64_t)getpid() << 32 ^ rt_now();
		agree_job(&now);
	}
	/* `rondo run` names the job for every rank, lazy ones included */
	if (getenv("RONDO_STAMP") && strlen(getenv("RONDO_STAMP")) == 15)
		snprintf(rt.stamp, sizeof(rt.stamp), "%s",
			 getenv("RONDO_STAMP"));
	rt.locking = provided == MPI_THREAD_MULTIPLE;
	/* the kept records are the wrappers' own: one thread at a time */
	if (rt.locking)
		rt.memo = 0;
	/* Rank 0's clock names the file: every rank uses it at the end. */
	localtime_r(&now, &tm);
	strftime(rt.start, sizeof(rt.start), "%Y-%m-%dT%H:%M:%S%z", &tm);
	if (!rt.stamp[0])
		strftime(rt.stamp, sizeof(rt.stamp), "%Y%m%d-%H%M%S", &tm);
	rt.start_ns = rt_now();
	if (rt.disabled || !rt.track_pointers)
		alloc_stop(); /* no buffer will be looked up */
	if (rt.disabled)
		return;
	handles_init();
	if (record_start() < 0) {
		rt_warn("out of memory at MPI_Init: not tracing");
	} else {
		spill_start();
		ending_start();
		/* after spill_start: the stream has the calls too */
		record_outside();
	}
	alloc_settle();
}

/* ---- starting without MPI_Init ------------------------------------------
 * MPI may be initialised without MPI_Init or MPI_Init_thread passing
 * through here: by a binding layer that calls PMPI_Init itself (Open MPI's
 * Fortran bindings do), or a tool.  Then the first MPI call made once MPI
 * is up starts tracing, and as MPI_Finalize may go unseen too, the trace
 * is written by the delete callback of an attribute on MPI_COMM_SELF,
 * which MPI_Finalize runs first, with MPI still whole (MPI 4.0 §11.2.2). */

static int finalize_callback(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm;
	(void)key;
	(void)val;
	(void)extra;
	if (rt.state == RT_ON) {
		rt.state = RT_DONE;
		output_write();
	}
	rt.state = RT_DONE;
	alloc_stop();
	return MPI_SUCCESS;
}

/* ---- starting with MPI_Session_init ----------------------------------------
 * A program of the MPI-4 sessions model never calls MPI_Init, and has no
 * MPI_COMM_WORLD.  Its first MPI_Session_init starts tracing: the tracer
 * opens a session of its own, which keeps MPI usable until the program
 * exits, and takes the world ranks from the group of the "mpi://WORLD"
 * process set.  At exit, every process makes a communicator of that group
 * with the tracer's session and the trace is gathered over it. */

#if MPI_VERSION >= 4
static void session_exit(void)
{
	MPI_Comm c = MPI_COMM_NULL;

	if (rt.state == RT_ON) {
		rt.state = RT_DONE;
		if (PMPI_Comm_create_from_group(
			    rt.world_group, "org.rondo.trace", MPI_INFO_NULL,
			    MPI_ERRORS_RETURN, &c) == MPI_SUCCESS) {
			rt.world = c;
			output_write();
			PMPI_Comm_free(&c);
		} else {
			rt_warn("at exit, no communicator of the processes "
				"could be made: no trace written");
		}
	}
	rt.state = RT_DONE;
	alloc_stop();
	PMPI_Group_free(&rt.world_group);
	PMPI_Session_finalize(&rt.session);
}

static void session_start(void)
{
	MPI_Group g = MPI_GROUP_NULL;

	if (PMPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &rt.session) !=
	    MPI_SUCCESS)
		return;
	if (PMPI_Group_from_session_pset(rt.session, "mpi://WORLD", &g) ||
	    PMPI_Group_rank(g, &rt.rank) || PMPI_Group_size(g, &rt.size) ||
	    rt.rank < 0 || atexit(session_exit) != 0) {
		if (g != MPI_GROUP_NULL)
			PMPI_Group_free(&g);
		PMPI_Session_finalize(&rt.session);
		rt_warn("MPI_Session_init: the processes of the job cannot be "
			"known: not tracing");
		return;
	}
	rt.world_group = g;
	rt.sessions = rt.lazy = 1;
	/* the thread level of the program's sessions is theirs to choose:
	 * take the lock as if they were all multiple */
	runtime_start(MPI_THREAD_MULTIPLE);
}
#endif

#if MPI_VERSION >= 4
/* Whether func is MPI_Session_init. */
static int is_session_init(uint32_t func)
{
	const struct rec_func *f = rt_func(func);

	return f && !strcmp(f->name, "MPI_Session_init");
}
#endif

int rt_lazy_start(uint32_t func)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	int up = 0, down = 1, provided = MPI_THREAD_SINGLE, key;

	pthread_mutex_lock(&once);
	if (rt.state != RT_BEFORE || rt.initializing ||
	    PMPI_Initialized(&up) != MPI_SUCCESS) {
		/* nothing to start */
	} else if (!up) {
#if MPI_VERSION >= 4
		if (is_session_init(func))
			session_start();
#else
		(void)func;
#endif
	} else if (PMPI_Finalized(&down) == MPI_SUCCESS && !down) {
		PMPI_Query_thread(&provided);
		rt.lazy = 1;
		runtime_start(provided);
		if (rt.state == RT_ON &&
		    (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
					     finalize_callback, &key,
					     NULL) != MPI_SUCCESS ||
		     PMPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) !=
			     MPI_SUCCESS))
			rt_warn("MPI_Init was not seen and MPI_Finalize cannot "
				"be followed: no trace will be written");
	}
	pthread_mutex_unlock(&once);
	return rt.state == RT_ON ? 0 : -1;
}

/* Records a hand-written call with the given duration. */
static struct rec *hand_begin(struct rec *r, enum rt_func f, uint64_t t0,
			      uint64_t t1, const void *caller)
{
	if (!rec_begin_at(r, rec_nfuncs + f, caller))
		return NULL;
	r->t0 = t0;
	r->t1 = t1;
	return r;
}

/* The run starts where MPI_Init did, t1 - t0 before the start was taken,
 * so that its time in MPI counts in the run's too. */
static void start_before(uint64_t t0, uint64_t t1)
{
	uint64_t d = t1 > t0 ? rt_clock_ns(t1 - t0) : 0;

	if (rt.start_ns > d)
		rt.start_ns -= d;
}

/* After the library's MPI_Init or MPI_Init_thread (ret, the thread level
 * it gave, the call from t0 to t1): the tracer starts, and the call is
 * opened for recording; 0 when it is not recorded.  argc is recorded,
 * argv is not: the command line is in the metadata. */
static int init_done(struct rec *r, enum rt_func f, int ret, int level,
		     uint64_t t0, uint64_t t1, const int *argc,
		     uint32_t binding, const void *caller)
{
	if (ret == MPI_SUCCESS)
		runtime_start(level);
	start_before(t0, t1);
	if (!hand_begin(r, f, t0, t1, caller))
		return 0;
	r->binding = binding;
	if (argc)
		rec_int(r, *argc);
	else
		rec_null(r);
	rec_null(r);
	return 1;
}

REC_API int MPI_Init(int *argc, char ***argv)
{
	uint64_t t0 = rt_clock();
	struct rec r;
	int ret;

	if (rt.initializing) /* from a Fortran binding (MPICH's): below */
		return PMPI_Init(argc, argv);
	rt.initializing = 1; /* calls the library makes start nothing */
	ret = PMPI_Init(argc, argv);
	rt.initializing = 0;
	if (!init_done(&r, RT_INIT, ret, MPI_THREAD_SINGLE, t0, rt_clock(),
		       argc, REC_BIND_C, __builtin_return_address(0)))
		return ret;
	return rec_end(&r, ret);
}

REC_API int MPI_Init_thread(int *argc, char ***argv, int required,
			    int *provided)
{
	uint64_t t0 = rt_clock();
	struct rec r;
	int ret;

	if (rt.initializing)
		return PMPI_Init_thread(argc, argv, required, provided);
	rt.initializing = 1;
	ret = PMPI_Init_thread(argc, argv, required, provided);
	rt.initializing = 0;
	if (!init_done(&r, RT_INIT_THREAD, ret, provided ? *provided : required,
		       t0, rt_clock(), argc, REC_BIND_C,
		       __builtin_return_address(0)))
		return ret;
	rec_int(&r, required);
	if (provided)
		rec_int(&r, *provided);
	else
		rec_null(&r);
	return rec_end(&r, ret);
}

/* MPI_Finalize, before the library's: the call itself is recorded first,
 * what follows is the tracer's own work and the library's shutdown. */
static void finalize(uint32_t binding, const void *caller)
{
	uint64_t t = rt_clock();
	struct rec r;

	if (hand_begin(&r, RT_FINALIZE, t, t, caller)) {
		r.binding = binding;
		rec_end(&r, MPI_SUCCESS);
	}
	/* started by a session: the world model ends, the tracer's session
	 * goes on, and the trace is written at exit */
	if (rt.sessions)
		return;
	if (rt.state == RT_ON) {
		rt.state = RT_DONE;
		/* a signal meanwhile: the rank was in MPI_Finalize */
		spill_inside = (sig_atomic_t)(rec_nfuncs + RT_FINALIZE + 1);
		output_write();
		spill_inside = 0;
		rt.finalized = 1;
	}
	rt.state = RT_DONE;
	alloc_stop(); /* spare the rest of the program the tracking */
}

REC_API int MPI_Finalize(void)
{
	finalize(REC_BIND_C, __builtin_return_address(0));
	return PMPI_Finalize();
}

/* MPI_Pcontrol: pausing records the call that paused, resuming the call
 * that resumed: the trace shows both ends of the gap.  Level 0 pauses,
 * any other resumes; level 3 also ends per-call times for good (the
 * calls so far keep theirs, statistics go on), as RONDO_TIMING_LIMIT
 * would: the MPI standard leaves levels other than 0, 1 and 2 to the
 * tool. */
static void pcontrol(int level, uint32_t binding, const void *caller)
{
	uint64_t t = rt_clock();
	struct rec r;

	if (level != 0)
		rt.paused = 0;
	if (hand_begin(&r, RT_PCONTROL, t, t, caller)) {
		r.binding = binding;
		rec_int(&r, level);
		rec_end(&r, MPI_SUCCESS);
	}
	if (level == 0)
		rt.paused = 1;
	if (level == RT_PCONTROL_TIMES_OFF)
		timing_halt();
}

REC_API int MPI_Pcontrol(const int level, ...)
{
	pcontrol(level, REC_BIND_C, __builtin_return_address(0));
	return PMPI_Pcontrol(level);
}

/* ---- the same four through the Fortran bindings ------------------------------
 * mpi_init_ (mpif.h, use mpi) and mpi_init_f08_ (use mpi_f08) forward to
 * the library's own entry point, as the generated Fortran wrappers do
 * (tracer/gen/gen_fortran.py): its Fortran start-up must run.  MPICH's
 * then calls the C MPI_Init, which passes it through (rt.initializing).
 * Fortran has no argc and argv: they are recorded as C's NULL. */

typedef void fort_init_fn(MPI_Fint *ierr);
typedef void fort_init_thread_fn(MPI_Fint *required, MPI_Fint *provided,
				 MPI_Fint *ierr);

static void fort_init(const char *const *names, void **next, uint32_t binding,
		      MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr,
		      const void *caller)
{
	MPI_Fint own = MPI_SUCCESS;
	uint64_t t0;
	struct rec r;

	if (!ierr) /* optional in mpi_f08 */
		ierr = &own;
	if (!*next && !(*next = fort_next(names))) {
		fort_missing(names[0], ierr);
		return;
	}
	t0 = rt_clock();
	rt.initializing = 1;
	if (required)
		((fort_init_thread_fn *)*next)(required, provided, ierr);
	else
		((fort_init_fn *)*next)(ierr);
	rt.initializing = 0;
	if (!init_done(&r, required ? RT_INIT_THREAD : RT_INIT, *ierr,
		       required ? *provided : MPI_THREAD_SINGLE, t0, rt_clock(),
		       NULL, binding, caller))
		return;
	if (required) {
		rec_int(&r, *required);
		rec_int(&r, *provided);
	}
	rec_end(&r, *ierr);
}

static void fort_finalize(const char *const *names, void **next,
			  unsigned char *calls_c, uint32_t binding,
			  MPI_Fint *ierr, const void *caller)
{
	MPI_Fint own = MPI_SUCCESS;
	uint64_t saved;

	if (!ierr)
		ierr = &own;
	if (!*next && !(*next = fort_next(names))) {
		fort_missing(names[0], ierr);
		return;
	}
	finalize(binding, caller);
	/* MPICH's calls the C MPI_Finalize, which finds the trace written,
	 * and is no call of the program's after it */
	saved = rec_forward(rec_nfuncs + RT_FINALIZE, calls_c);
	((fort_init_fn *)*next)(ierr);
	rec_forward_done(rec_nfuncs + RT_FINALIZE, saved, calls_c);
}

/* Fortran's MPI_Pcontrol has no ierror; the libraries' do nothing, so
 * the C one is called, as for C. */
static void fort_pcontrol(MPI_Fint level, uint32_t binding, const void *caller)
{
	pcontrol(level, binding, caller);
	PMPI_Pcontrol(level);
}

#define FORT_ENTRY(fn, sym)                                                    \
	extern __typeof__(fn) fn##_##sym __asm__(#sym)                         \
		__attribute__((alias(#fn), visibility("default")));
#define FORT_MPIF(fn, lower, upper)                                            \
	FORT_ENTRY(fn, lower##_)                                               \
	FORT_ENTRY(fn, lower##__) FORT_ENTRY(fn, lower) FORT_ENTRY(fn, upper)

static void fort_init_f(MPI_Fint *ierr)
{
	static const char *const names[] = {"pmpi_init_", "pmpi_init",
					    "pmpi_init__", "PMPI_INIT", NULL};
	static void *next;

	fort_init(names, &next, REC_BIND_F, NULL, NULL, ierr,
		  __builtin_return_address(0));
}
FORT_MPIF(fort_init_f, mpi_init, MPI_INIT)

static void fort_init_f08(MPI_Fint *ierr)
{
	static const char *const names[] = {"pmpi_init_f08_", "pmpir_init_f08_",
					    NULL};
	static void *next;

	fort_init(names, &next, REC_BIND_F08, NULL, NULL, ierr,
		  __builtin_return_address(0));
}
FORT_ENTRY(fort_init_f08, mpi_init_f08_)

static void fort_init_thread_f(MPI_Fint *required, MPI_Fint *provided,
			       MPI_Fint *ierr)
{
	static const char *const names[] = {
		"pmpi_init_thread_", "pmpi_init_thread", "pmpi_init_thread__",
		"PMPI_INIT_THREAD", NULL};
	static void *next;

	fort_init(names, &next, REC_BIND_F, required, provided, ierr,
		  __builtin_return_address(0));
}
FORT_MPIF(fort_init_thread_f, mpi_init_thread, MPI_INIT_THREAD)

static void fort_init_thread_f08(MPI_Fint *required, MPI_Fint *provided,
				 MPI_Fint *ierr)
{
	static const char *const names[] = {"pmpi_init_thread_f08_",
					    "pmpir_init_thread_f08_", NULL};
	static void *next;

	fort_init(names, &next, REC_BIND_F08, required, provided, ierr,
		  __builtin_return_address(0));
}
FORT_ENTRY(fort_init_thread_f08, mpi_init_thread_f08_)

static void fort_finalize_f(MPI_Fint *ierr)
{
	static const char *const names[] = {"pmpi_finalize_", "pmpi_finalize",
					    "pmpi_finalize__", "PMPI_FINALIZE",
					    NULL};
	static void *next;
	static unsigned char calls_c = FORT_CALLS_C_MPIF;

	fort_finalize(names, &next, &calls_c, REC_BIND_F, ierr,
		      __builtin_return_address(0));
}
FORT_MPIF(fort_finalize_f, mpi_finalize, MPI_FINALIZE)

static void fort_finalize_f08(MPI_Fint *ierr)
{
	static const char *const names[] = {"pmpi_finalize_f08_",
					    "pmpir_finalize_f08_", NULL};
	static void *next;
	static unsigned char calls_c = FORT_CALLS_C_F08;

	fort_finalize(names, &next, &calls_c, REC_BIND_F08, ierr,
		      __builtin_return_address(0));
}
FORT_ENTRY(fort_finalize_f08, mpi_finalize_f08_)

static void fort_pcontrol_f(MPI_Fint *level)
{
	fort_pcontrol(level ? *level : 1, REC_BIND_F,
		      __builtin_return_address(0));
}
FORT_MPIF(fort_pcontrol_f, mpi_pcontrol, MPI_PCONTROL)

static void fort_pcontrol_f08(MPI_Fint *level)
{
	fort_pcontrol(level ? *level : 1, REC_BIND_F08,
		      __builtin_return_address(0));
}
FORT_ENTRY(fort_pcontrol_f08, mpi_pcontrol_f08_)
