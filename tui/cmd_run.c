/*
 * cmd_run.c - `rondo run [options] -- COMMAND...`: runs an MPI program with
 * the tracer preloaded in every rank.
 *
 * For mpirun/mpiexec the library is passed with `-x LD_PRELOAD=...` (which
 * reaches every rank, remote ones included; a plain LD_PRELOAD would load
 * it into mpirun itself and only the local ranks would inherit it), and the
 * RONDO_* settings with `-x NAME`.  MPICH's launcher, Hydra (mpiexec.hydra,
 * which Debian's mpirun.mpich and mpiexec.mpich are, and mpirun when the
 * alternatives point there), takes `-genv LD_PRELOAD ...` and
 * `-genvlist NAMES` instead, for every part of an MPMD command line at once.
 * Any other command is run with LD_PRELOAD set, as a singleton MPI program.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recover.h"
#include "util.h"

#define TRACE_LIB "librondo-trace.so"

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: rondo run [OPTIONS] -- COMMAND [ARGS...]\n\n"
		"Runs COMMAND with the tracer in every MPI rank, e.g.\n"
		"  rondo run -- mpirun -np 8 ./app input\n"
		"The trace is written at MPI_Finalize as "
		"PROGRAM-DATE-TIME.rondo\n"
		"in the working directory.\n\n"
		"  -o, --output PATH   the trace file, or a directory for it\n"
		"                      (RONDO_OUT)\n"
		"      --no-pointers   record buffers without tracking "
		"addresses\n"
		"                      (RONDO_TRACK_POINTERS=0)\n"
		"      --timing MODE   aggregated (statistics per signature,\n"
		"                      the default) or percall (also every\n"
		"                      call's start and duration; "
		"RONDO_TIMING)\n"
		"      --time-base B   percall's log scale: times read back "
		"are\n"
		"                      off by a factor of at most B, 1.001 to "
		"16\n"
		"                      (RONDO_TIME_BASE, default 1.1)\n"
		"      --timing-limit SIZE  bytes of per-call timing a rank "
		"keeps\n"
		"                      before it falls back to statistics, "
		"with\n"
		"                      K, M or G (RONDO_TIMING_LIMIT, 256M)\n"
		"      --memory-limit SIZE  bytes a rank's tracer may hold; "
		"past\n"
		"                      it, calls are kept as counts, their "
		"order in\n"
		"                      the spill file (RONDO_MEMORY_LIMIT; "
		"default\n"
		"                      5%% of the node's memory over its "
		"ranks,\n"
		"                      32M to 512M)\n"
		"      --flush-interval SECS  how often each rank saves what "
		"it\n"
		"                      recorded to its spill file (with s, m "
		"or\n"
		"                      h; 0: only when the job ends badly;\n"
		"                      RONDO_FLUSH_INTERVAL, 180)\n"
		"      --precision P   0 to 100 (%%, RONDO_PRECISION; default "
		"100:\n"
		"                      every call as made): below, loops whose "
		"counts,\n"
		"                      and calls whose sizes, differ by at "
		"most\n"
		"                      100 - P %% are merged into one, their "
		"values\n"
		"                      kept as a histogram\n"
		"      --precision-params LIST  what merges besides loops: "
		"sizes\n"
		"                      (counts, displacements: always), tags,\n"
		"                      peers (RONDO_PRECISION_PARAMS; "
		"\"sizes,tags\"\n"
		"                      merges tags too)\n"
		"      --spill-dir DIR where spill files go (RONDO_SPILL_DIR;\n"
		"                      default: beside the trace)\n"
		"  -v, --verbose       the tracer says more (RONDO_VERBOSE=1)\n"
		"  -h, --help          this text\n\n"
		"When the job ends badly (killed, MPI_Abort, a crash), rondo "
		"run "
		"makes\n"
		"the trace from the ranks' spill files (rondo recover) and "
		"exits\n"
		"as the command did.\n\n"
		"The tracer library is looked for in RONDO_TRACE_LIB, then in\n"
		"%s, then beside the build tree of this rondo.\n",
		PKGLIBDIR);
}

static int readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The installed library, else the one of the build tree this program
 * runs from (libtool keeps the real binary in tui/.libs/). */
static int find_library(char *path, size_t size)
{
	static const char *const rel[] = {"/../tracer/.libs/" TRACE_LIB,
					  "/../../tracer/.libs/" TRACE_LIB};
	const char *env = getenv("RONDO_TRACE_LIB");
	char exe[PATH_MAX], *dir;
	ssize_t n;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return readable(path) ? 0 : -1;
	}
	snprintf(path, size, "%s/%s", PKGLIBDIR, TRACE_LIB);
	if (readable(path))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	dir = dirname(exe);
	for (size_t i = 0; i < COUNTOF(rel); i++) {
		char abs[PATH_MAX];

		snprintf(path, size, "%s%s", dir, rel[i]);
		if (readable(path) && realpath(path, abs)) {
			snprintf(path, size, "%s", abs);
			return 0;
		}
	}
	return -1;
}

enum launcher { NOT_LAUNCHER, OPEN_MPI, HYDRA };

static const char *base_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

/* Where cmd is, following symbolic links (Debian's alternatives), or
 * cmd itself. */
static void resolve(const char *cmd, char *out, size_t size)
{
	char try[PATH_MAX], real[PATH_MAX];
	const char *path = getenv("PATH"), *end;

	snprintf(out, size, "%s", cmd);
	if (strchr(cmd, '/')) {
		if (realpath(cmd, real))
			snprintf(out, size, "%s", real);
		return;
	}
	for (; path && *path; path = *end ? end + 1 : end) {
		end = strchr(path, ':');
		if (!end)
			end = path + strlen(path);
		if (end == path) /* an empty entry is the working directory */
			snprintf(try, sizeof(try), "./%s", cmd);
		else
			snprintf(try, sizeof(try), "%.*s/%s", (int)(end - path),
				 path, cmd);
		if (access(try, X_OK) == 0 && realpath(try, real)) {
			snprintf(out, size, "%s", real);
			return;
		}
	}
}

static enum launcher launcher_of(const char *cmd)
{
	static const char *const names[] = {"mpirun",	       "mpiexec",
					    "orterun",	       "mpirun.openmpi",
					    "mpiexec.openmpi", "mpirun.mpich",
					    "mpiexec.mpich",   "mpiexec.hydra"};
	char real[PATH_MAX];
	size_t i;

	for (i = 0; i < COUNTOF(names); i++)
		if (!strcmp(base_name(cmd), names[i]))
			break;
	if (i == COUNTOF(names))
		return NOT_LAUNCHER;
	resolve(cmd, real, sizeof(real));
	return strstr(base_name(real), "hydra") ||
			       strstr(base_name(real), "mpich")
		       ? HYDRA
		       : OPEN_MPI;
}

/* The settings passed on when the caller set them; execvp takes
 * char *const[]: writable copies of the words. */
static char vars[][24] = {"RONDO_OUT",		"RONDO_DISABLE",
			  "RONDO_VERBOSE",	"RONDO_TRACK_POINTERS",
			  "RONDO_MEMO",		"RONDO_TIMING",
			  "RONDO_TIME_BASE",	"RONDO_TIMING_LIMIT",
			  "RONDO_MEMORY_LIMIT", "RONDO_FLUSH_INTERVAL",
			  "RONDO_SPILL",	"RONDO_SPILL_DIR",
			  "RONDO_STAMP",	"RONDO_JOB",
			  "RONDO_PRECISION",	"RONDO_PRECISION_PARAMS"};
#define NVARS COUNTOF(vars)

/* The -x options: the preload, and the settings the caller set. */
static int launcher_opts(char **av, char *preload)
{
	static char x[] = "-x";
	int k = 0;

	av[k++] = x;
	av[k++] = preload;
	for (size_t i = 0; i < NVARS; i++) {
		if (getenv(vars[i])) {
			av[k++] = x;
			av[k++] = vars[i];
		}
	}
	return k;
}

/* The launcher's arguments with -x options inserted after its name, and
 * after every ':' of an MPMD command line: Open MPI gives an -x to the
 * programs of its own part only, and a rank left untraced would leave the
 * others waiting for it when they write the trace. */
static char **launcher_argv(char **cmd, int ncmd, char *preload)
{
	int parts = 1, k = 0;
	char **av;

	for (int i = 1; i < ncmd; i++)
		parts += !strcmp(cmd[i], ":");
	av = calloc((size_t)ncmd + 1 + (size_t)parts * (2 + 2 * NVARS),
		    sizeof(*av));
	if (!av)
		return NULL;
	av[k++] = cmd[0];
	k += launcher_opts(av + k, preload);
	for (int i = 1; i < ncmd; i++) {
		av[k++] = cmd[i];
		if (!strcmp(cmd[i], ":"))
			k += launcher_opts(av + k, preload);
	}
	return av;
}

/* Hydra's: -genv LD_PRELOAD LIB and -genvlist with the settings the
 * caller set, before the first part. */
static char **hydra_argv(char **cmd, int ncmd, char *preload)
{
	static char genv[] = "-genv", genvlist[] = "-genvlist",
		    name[] = "LD_PRELOAD";
	static char list[NVARS * sizeof(vars[0])];
	char **av = calloc((size_t)ncmd + 6, sizeof(*av));
	int k = 0;

	if (!av)
		return NULL;
	av[k++] = cmd[0];
	av[k++] = genv;
	av[k++] = name;
	av[k++] = preload + strlen("LD_PRELOAD=");
	list[0] = '\0';
	for (size_t i = 0; i < NVARS; i++) {
		if (getenv(vars[i])) {
			if (list[0])
				strcat(list, ",");
			strcat(list, vars[i]);
		}
	}
	if (list[0]) {
		av[k++] = genvlist;
		av[k++] = list;
	}
	for (int i = 1; i < ncmd; i++)
		av[k++] = cmd[i];
	return av;
}

/* ---- a job that ends badly ------------------------------------------------
 * The ranks keep spill files (tracer/spill.h) in a folder named as the
 * trace would be, with .spill: rondo run names the job (RONDO_STAMP, the
 * time it started; RONDO_JOB, unique) so that every rank, even one that
 * starts without MPI_Init, uses the same name, and finds the folder
 * afterwards by that stamp. */

static char stamp[32];
static pid_t child;

static void run_say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "rondo: %s\n", line);
}

/* Whether a file in a spill folder is one of the ranks' (rank-N.spill,
 * or with after, rank-N.after: the calls after MPI_Finalize). */
static int rank_file(const char *name, int after)
{
	size_t n = strlen(name);

	return n > 6 && name[0] != '.' &&
	       (!strcmp(name + n - 6, ".after") ||
		(!after && !strcmp(name + n - 6, ".spill")));
}

/* The ranks' files (with after: the after files only), then their
 * folder once empty, when the trace holds what they held. */
static void remove_spills(const char *dir, int after)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		char path[PATH_MAX + 512];

		if (rank_file(e->d_name, after) &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) <
			    (int)sizeof(path))
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* A job that ended well: the calls its ranks made after MPI_Finalize,
 * in their after files, added to the trace MPI_Finalize wrote. */
static void add_after(const char *spill, const char *trace)
{
	struct dirent *e;
	DIR *d = opendir(spill);
	char **in = NULL, why[1024];
	size_t n = 0, cap = 0;
	int ok = 1;

	while (d && ok && (e = readdir(d))) {
		char path[PATH_MAX + 512];

		if (!rank_file(e->d_name, 1) ||
		    snprintf(path, sizeof(path), "%s/%s", spill, e->d_name) >=
			    (int)sizeof(path))
			continue;
		ok = util_grow(&in, &cap, n + 1, sizeof(*in)) == 0 &&
		     (in[n] = strdup(path)) != NULL;
		n += ok;
	}
	if (d)
		closedir(d);
	if (!ok)
		cli_error("out of memory: the calls after MPI_Finalize stay in "
			  "%s",
			  spill);
	else if (n && recover_run((const char *const *)in, (int)n, trace,
				  run_say, NULL, why, sizeof(why)) == 0)
		remove_spills(spill, 1);
	else if (n)
		cli_error("cannot add the calls after MPI_Finalize: %s (they "
			  "stay in %s)",
			  why, spill);
	for (size_t i = 0; i < n; i++)
		free(in[i]);
	free(in);
}

/* The signals a batch system sends before its kill, passed on. */
static const int sigs[] = {SIGTERM, SIGINT,  SIGHUP, SIGUSR1,
			   SIGUSR2, SIGXCPU, SIGQUIT};
#define FORWARD_MS 2000

/*
 * Waits for the launcher, passing on the signals rondo run is sent (set:
 * those and SIGCHLD, blocked, taken here with sigtimedwait so that none
 * comes between a look at the launcher and the wait).  A signal sent to
 * the whole process group (a batch system's, the terminal's Ctrl-C)
 * reached the launcher too, and a second one makes MPICH's mpiexec (and,
 * for SIGINT, Open MPI's mpirun) abort at once, without waiting for the
 * ranks, exiting 0; one sent to rondo run alone must reach it all the
 * same.  So a signal is passed on only when the launcher has not ended
 * FORWARD_MS after it (the ranks save their records in milliseconds), and
 * the terminal's never (it went to the whole foreground group).
 * *caught: the last signal taken, 0: none.  Returns 0, or -1.
 */
static int wait_launcher(const sigset_t *set, int *status, int *caught)
{
	struct timespec due = {0, 0};
	int pending = 0;

	*caught = 0;
	for (;;) {
		struct timespec now, left, *wait = NULL;
		siginfo_t si;
		pid_t w = waitpid(child, status, WNOHANG);
		int sig;

		if (w == child)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (pending) {
			int64_t ns = (int64_t)(due.tv_sec - now.tv_sec) *
					     1000000000 +
				     (due.tv_nsec - now.tv_nsec);

			if (ns <= 0) {
				kill(child, pending);
				pending = 0;
				continue;
			}
			left = (struct timespec){ns / 1000000000,
						 ns % 1000000000};
			wait = &left;
		}
		sig = sigtimedwait(set, &si, wait);
		if (sig <= 0 || sig == SIGCHLD)
			continue; /* the time is up, or look again */
		*caught = sig;
		if (si.si_code == SI_KERNEL)
			continue;
		if (!pending) {
			clock_gettime(CLOCK_MONOTONIC, &due);
			due.tv_sec += FORWARD_MS / 1000;
			due.tv_nsec += (FORWARD_MS % 1000) * 1000000L;
			if (due.tv_nsec >= 1000000000L) {
				due.tv_sec++;
				due.tv_nsec -= 1000000000L;
			}
		}
		pending = sig;
	}
}

/* The folder(s) of this run's spills: DIR/NAME-STAMP.spill, where DIR
 * is RONDO_SPILL_DIR, or the trace's folder.  With ended_well, the job's
 * trace was written: only the calls after MPI_Finalize are added. */
static void recover_spills(int code, int ended_well)
{
	const char *out = getenv("RONDO_OUT"),
		   *sdir = getenv("RONDO_SPILL_DIR");
	char dir[PATH_MAX] = ".", outdir[PATH_MAX] = ".", file[PATH_MAX] = "";
	struct stat st;
	struct dirent *e;
	DIR *d;

	if (out && *out && stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(outdir, sizeof(outdir), "%s", out);
	} else if (out && *out) {
		char copy[PATH_MAX];
		size_t n;

		snprintf(copy, sizeof(copy), "%s", out);
		snprintf(outdir, sizeof(outdir), "%s", dirname(copy));
		snprintf(file, sizeof(file), "%s", out);
		snprintf(copy, sizeof(copy), "%s", out);
		n = strlen(copy);
		if (n > 6 && !strcmp(copy + n - 6, ".rondo"))
			copy[n - 6] = '\0';
		snprintf(dir, sizeof(dir), "%s", basename(copy));
	}
	if (!(d = opendir(sdir && *sdir ? sdir : outdir)))
		return;
	while ((e = readdir(d))) {
		char spill[2 * PATH_MAX + 8], trace[2 * PATH_MAX + 8],
			why[1024];
		const char *in[1] = {spill};
		size_t n = strlen(e->d_name);
		int match;

		if (n < 7 || strcmp(e->d_name + n - 6, ".spill"))
			continue;
		/* -o FILE: FILE's name; else any PROGRAM-STAMP */
		match = file[0] ? n - 6 == strlen(dir) &&
					  !strncmp(e->d_name, dir, n - 6)
				: n > strlen(stamp) + 7 &&
					  !strncmp(e->d_name + n - 6 -
							   strlen(stamp),
						   stamp, strlen(stamp));
		if (!match)
			continue;
		snprintf(spill, sizeof(spill), "%s/%s",
			 sdir && *sdir ? sdir : outdir, e->d_name);
		if (file[0])
			snprintf(trace, sizeof(trace), "%s", file);
		else
			snprintf(trace, sizeof(trace), "%s/%.*s.rondo", outdir,
				 (int)(n - 6), e->d_name);
		if (ended_well) {
			add_after(spill, trace);
			continue;
		}
		fprintf(stderr,
			"rondo: the job ended badly (%s %d); its trace is "
			"made from %s\n",
			code < 0 ? "signal" : "exit status",
			code < 0 ? -code : code, spill);
		if (recover_run(in, 1, trace, run_say, NULL, why,
				sizeof(why)) == 0)
			remove_spills(spill, 0);
		else
			cli_error("cannot recover: %s (the spill files stay in "
				  "%s)",
				  why, spill);
	}
	closedir(d);
}

/* Runs the launcher, passing on the signals a batch system sends, and
 * ends as it did. */
static int launch(char **av)
{
	sigset_t set, old, one;
	int status, caught;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (size_t i = 0; i < COUNTOF(sigs); i++)
		sigaddset(&set, sigs[i]);
	fflush(NULL);
	sigprocmask(SIG_BLOCK, &set, &old);
	child = fork();
	if (child < 0) {
		cli_error("cannot run '%s': %s", av[0], strerror(errno));
		return 127;
	}
	if (child == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(av[0], av);
		cli_error("cannot run '%s': %s", av[0], strerror(errno));
		_exit(127);
	}
	/* the signals stay blocked to the end: a late one does not cut the
	 * recovery short */
	if (wait_launcher(&set, &status, &caught) < 0)
		return 127;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return 127; /* not run: nothing to recover */
	/* a launcher told to stop may still exit 0 (MPICH's mpiexec after
	 * a second Ctrl-C): the job was stopped all the same */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		recover_spills(WIFEXITED(status) ? WEXITSTATUS(status)
						 : -WTERMSIG(status),
			       0);
	else if (caught)
		recover_spills(-caught, 0);
	else
		recover_spills(0, 1);
	if (WIFSIGNALED(status)) {
		/* the same end as the launcher's, for the caller to see */
		signal(WTERMSIG(status), SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, WTERMSIG(status));
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'},
		{"no-pointers", no_argument, 0, 'P'},
		{"verbose", no_argument, 0, 'v'},
		{"timing", required_argument, 0, 'T'},
		{"time-base", required_argument, 0, 'B'},
		{"timing-limit", required_argument, 0, 'L'},
		{"memory-limit", required_argument, 0, 'M'},
		{"flush-interval", required_argument, 0, 'F'},
		{"spill-dir", required_argument, 0, 'S'},
		{"precision", required_argument, 0, 'R'},
		{"precision-params", required_argument, 0, 'Q'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	char lib[PATH_MAX + 64], preload[PATH_MAX + 96], *end;
	const char *old;
	char **av;
	enum launcher kind;
	double b;
	size_t size;
	unsigned pct, what;
	int c;

	/* '+': options stop at the command, which has options of its own */
	while ((c = getopt_long(argc, argv, "+o:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': setenv("RONDO_OUT", optarg, 1); break;
		case 'P': setenv("RONDO_TRACK_POINTERS", "0", 1); break;
		case 'v': setenv("RONDO_VERBOSE", "1", 1); break;
		case 'T':
			if (strcmp(optarg, "percall") &&
			    strcmp(optarg, "aggregated"))
				return cli_usage_error(
					"run ",
					"--timing: '%s' is not "
					"'aggregated' or 'percall'",
					optarg);
			setenv("RONDO_TIMING", optarg, 1);
			break;
		case 'B':
			b = strtod(optarg, &end);
			if (!*optarg || *end ||
			    !(b >= RONDO_TIME_BASE_MIN &&
			      b <= RONDO_TIME_BASE_MAX))
				return cli_usage_error(
					"run ",
					"--time-base: '%s' is not a "
					"number from %g to %g",
					optarg, RONDO_TIME_BASE_MIN,
					RONDO_TIME_BASE_MAX);
			setenv("RONDO_TIME_BASE", optarg, 1);
			break;
		case 'L':
		case 'M':
			if (util_size(optarg, &size) < 0)
				return cli_usage_error(
					"run ",
					"--%s-limit: '%s' is not a "
					"size (bytes, or with K, M or G)",
					c == 'L' ? "timing" : "memory", optarg);
			setenv(c == 'L' ? "RONDO_TIMING_LIMIT"
					: "RONDO_MEMORY_LIMIT",
			       optarg, 1);
			break;
		case 'F':
			strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' ||
			    (*end && (!strchr("smh", *end) || end[1])))
				return cli_usage_error(
					"run ",
					"--flush-interval: '%s' is not a "
					"number of seconds (or with s, m, h)",
					optarg);
			setenv("RONDO_FLUSH_INTERVAL", optarg, 1);
			break;
		case 'S': setenv("RONDO_SPILL_DIR", optarg, 1); break;
		case 'R':
			if (util_percent(optarg, &pct) < 0)
				return cli_usage_error(
					"run ",
					"--precision: '%s' is not a whole "
					"percentage from 0 to 100",
					optarg);
			setenv("RONDO_PRECISION", optarg, 1);
			break;
		case 'Q':
			if (util_params(optarg, &what) < 0)
				return cli_usage_error(
					"run ",
					"--precision-params: '%s' is not a "
					"list of sizes, tags and peers",
					optarg);
			setenv("RONDO_PRECISION_PARAMS", optarg, 1);
			break;
		case 'h': run_usage(stdout); return CLI_EXIT_OK;
		default: return cli_usage_error("run ", "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage_error("run ", "run needs a command to run");
	if (find_library(lib, sizeof(lib)) < 0) {
		cli_error("cannot find the tracer library %s (set "
			  "RONDO_TRACE_LIB, or install rondo)",
			  TRACE_LIB);
		return CLI_EXIT_FAIL;
	}
	/* the job's name for every rank: its start, and who started it */
	{
		time_t now = time(NULL);
		struct tm tm;
		char job[64];

		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(job, sizeof(job), "%s-%ld", stamp, (long)getpid());
		setenv("RONDO_STAMP", stamp, 1);
		setenv("RONDO_JOB", job, 1);
	}
	/* Libraries already preloaded stay first (a sanitizer runtime must). */
	old = getenv("LD_PRELOAD");
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s",
		 old && *old ? old : "", old && *old ? ":" : "", lib);
	if ((kind = launcher_of(argv[optind])) != NOT_LAUNCHER) {
		av = kind == HYDRA
			     ? hydra_argv(argv + optind, argc - optind, preload)
			     : launcher_argv(argv + optind, argc - optind,
					     preload);
		if (!av) {
			cli_error("out of memory");
			return CLI_EXIT_FAIL;
		}
	} else {
		putenv(preload);
		av = argv + optind;
	}
	return launch(av);
}
