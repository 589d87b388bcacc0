/*
 * output.c - the trace file.  At MPI_Finalize the ranks merge their
 * tables in a tree of ceil(log2 P) rounds of point-to-point messages
 * (merge_tree.c), and rank 0 makes the sections of the one .rondo file
 * from the merge and writes it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hmap.h"
#include "job.h"
#include "merge.h"
#include "relative.h"
#include "runtime.h"
#include "spill.h"
#include "util.h"

/* What rank 0 learns about the merge, for the metadata. */
struct gather {
	struct job job; /* the file's sections (job.c) */
	struct merge *m;
	uint32_t rounds; /* of the tree */
	double seconds; /* rank 0's time from all ranks in to the merged tables */
	double busy;	/* of it, merging what the other ranks sent */
	size_t largest;	     /* the largest message rank 0 took in */
	uint64_t run_ns;     /* the longest rank's run from MPI_Init to here */
	int64_t *skew;	     /* timing_align: each rank's clock - rank 0's */
	char clock_how[160]; /* and how that was found ("": no timing) */
	/* calls traced by binding, then the ranks that made any, summed */
	uint64_t bind[2 * REC_NBIND];
	int counted;	     /* some rank kept calls as counts (memory.c) */
	char degraded[1024]; /* and what the metadata says of it */
};

/* ---- this rank's tables -------------------------------------------------- */

/* Replaces g by the reshaped grammar of the same calls when that one
 * compresses smaller (job_reshape), and says so when asked to. */
static void local_reshape(struct fmt_grammar *g)
{
	size_t was, now;

	if (job_reshape(g, rt.nsig, &was, &now) &&
	    (rt.verbose > 1 || (rt.verbose == 1 && rt.rank == 0)))
		fprintf(stderr,
			"rondo: rank %d: grammar reshaped, %u "
			"pieces, %zu bytes packed instead of %zu\n",
			rt.rank, g->nrules - 1, now, was);
}

/* The rank's signatures, grammar and statistics (pointers into rt). */
static int local_tables(struct fmt_cst *cst, struct fmt_grammar *g,
			struct fmt_stats *st)
{
	cst->n = rt.nsig;
	cst->sig = calloc((size_t)rt.nsig + 1, sizeof(struct fmt_sig));
	st->n = 0;
	st->st = calloc((size_t)rt.nsig + 1, sizeof(struct fmt_stat));
	/* recording is over: the pending loop symbols go into the grammar
	 * itself rather than into a copy made for the export */
	if (!cst->sig || !st->st || memory_finish() < 0 ||
	    grammar_flush(rt.g) < 0 || grammar_export(rt.g, g) < 0)
		return -1;
	local_reshape(g);
	for (uint32_t s = 0; s < rt.nsig; s++) {
		cst->sig[s] = (struct fmt_sig){
			rt.sig[s].func, rt.sig[s].nargs, rt.sig[s].len,
			rt.sig_bytes.data + rt.sig[s].off};
		if (rt.sig[s].st.count)
			st->st[st->n++] = (struct fmt_stat){s, rt.sig[s].st};
	}
	return 0;
}

/* ---- the sections -------------------------------------------------------- */

static void command_line(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/cmdline", "rb");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; n > 0 && i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

void output_facts(struct output_facts *f)
{
	int len = 0, major = 0, minor = 0;

	snprintf(f->program, sizeof(f->program), "%s",
		 program_invocation_short_name);
	command_line(f->command, sizeof(f->command));
	f->mpi[0] = '\0';
	PMPI_Get_library_version(f->mpi, &len);
	f->mpi[strcspn(f->mpi, "\n")] = '\0';
	for (char *c = f->mpi; *c; c++) /* MPICH: "MPICH Version:\t4.0.2" */
		if (*c == '\t')
			*c = ' ';
	PMPI_Get_version(&major, &minor);
	snprintf(f->mpi_version, sizeof(f->mpi_version), "%d.%d", major, minor);
	gethostname(f->host, sizeof(f->host) - 1);
	f->host[sizeof(f->host) - 1] = '\0';
	snprintf(f->settings, sizeof(f->settings),
		 "RONDO_TRACK_POINTERS=%d RONDO_VERBOSE=%d RONDO_MEMO=%d "
		 "RONDO_TIMING=%s RONDO_TIME_BASE=%g RONDO_TIMING_LIMIT=%zu "
		 "RONDO_MEMORY_LIMIT=%zu RONDO_RANKTIME_EXACT=%u "
		 "RONDO_PRECISION=%u %s",
		 rt.track_pointers, rt.verbose, rt.memo,
		 rt.timing ? "percall" : "aggregated", rt.time_base,
		 rt.timing_limit, rt.mem_limit, rt.exact_ranks,
		 100 - rt.tolerance, spill_settings());
}

static void job_meta(struct fmt_meta *m, void *ctx)
{
	const struct gather *j = ctx;
	struct output_facts of;
	char bind[1024], buf[256];
	struct job_facts f;

	output_facts(&of);
	_Static_assert(JOB_NBIND == REC_NBIND, "job.h counts the bindings");
	job_bindings_text(bind, sizeof(bind), j->bind, j->bind + REC_NBIND);
	f = (struct job_facts){
		of.program,
		of.command,
		of.mpi,
		of.mpi_version,
		bind,
		of.host,
		rt.start,
		rt.sessions ? "MPI-4 sessions: the trace starts at the first "
			      "MPI_Session_init and is written at exit"
		: rt.lazy   ? "not seen: the trace starts at the first call "
			      "made with MPI up"
			    : NULL,
		of.settings,
		j->clock_how[0] ? j->clock_how
				: "not aligned: clocks read as they are",
		(uint32_t)rt.size,
		(double)j->run_ns / 1e9};
	job_meta_facts(m, &f, j->m);
	snprintf(buf, sizeof(buf),
		 "%u rounds, %.3f ms on rank 0 (%.3f ms "
		 "merging what came in), largest message %zu bytes",
		 j->rounds, j->seconds * 1e3, j->busy * 1e3, j->largest);
	job_meta_add(m, "merge", buf);
	if (j->degraded[0])
		job_meta_add(m, "degraded", j->degraded);
	if (merge_failed(j->m)) {
		snprintf(buf, sizeof(buf),
			 "%u ranks ran out of memory or sent "
			 "damaged tables; their calls are missing",
			 merge_failed(j->m));
		job_meta_add(m, "incomplete", buf);
	}
}

/* ---- where the file goes ------------------------------------------------- */

/* <program>-<date>-<time>.rondo in dir (NULL: the working directory),
 * the program's name cut so that the file's name fits NAME_MAX (at a
 * character's start, should the name be UTF-8). */
static void default_name(char *buf, size_t size, const char *dir)
{
	const char *prog = program_invocation_short_name;
	size_t n = strlen(prog), room = NAME_MAX - strlen(rt.stamp) - 7;

	if (n > room) {
		n = room;
		while (n && ((unsigned char)prog[n] & 0xC0) == 0x80)
			n--;
	}
	snprintf(buf, size, "%s%s%.*s-%s.rondo", dir ? dir : "", dir ? "/" : "",
		 (int)n, prog, rt.stamp);
}

/* RONDO_OUT names a directory to put the trace in: a directory, or a
 * link to one that the tracer would follow (fileio.h: the user's or
 * root's). */
static int out_is_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode) && (st.st_uid == geteuid() || st.st_uid == 0) &&
	    stat(path, &st) < 0)
		return 0;
	return S_ISDIR(st.st_mode);
}

/* Room for RONDO_OUT (below PATH_MAX) and a file name in it: a path
 * too long for the system is refused by it (ENAMETOOLONG), never cut
 * here into another name. */
#define PLACE_MAX (PATH_MAX + NAME_MAX + 2)

/* The places to try, in order, each once. */
struct places {
	char at[3][PLACE_MAX];
	int n;
};

static void place_add(struct places *p, const char *dir, const char *file)
{
	char *at = p->at[p->n];

	if (file)
		snprintf(at, sizeof(p->at[0]), "%s", file);
	else
		default_name(at, sizeof(p->at[0]), dir);
	for (int k = 0; k < p->n; k++)
		if (!strcmp(p->at[k], at))
			return;
	p->n++;
}

/* Writes to RONDO_OUT (a file, or a directory to put the file in), else
 * the working directory; when that fails, says why and tries the working
 * directory, then /tmp. */
static int job_save(struct fmt_writer *w, char *path, size_t size)
{
	static struct places p;
	char why[512];

	p.n = 0;
	if (rt.out[0])
		place_add(&p, rt.out, out_is_dir(rt.out) ? NULL : rt.out);
	place_add(&p, NULL, NULL);
	place_add(&p, "/tmp", NULL);
	for (int k = 0; k < p.n; k++) {
		if (fmt_writer_save(w, p.at[k], why, sizeof(why)) == 0) {
			snprintf(path, size, "%s", p.at[k]);
			return 0;
		}
		fprintf(stderr, "rondo: cannot write the trace: %s%s\n", why,
			k == p.n - 1 ? "; no trace kept" : "");
	}
	return -1;
}

void output_path(char *buf, size_t size)
{
	if (rt.out[0] && !out_is_dir(rt.out))
		snprintf(buf, size, "%s", rt.out);
	else
		default_name(buf, size, rt.out[0] ? rt.out : NULL);
}

/* What the signatures' ids name, from the tracer's tables. */
struct names {
	struct job_names nm;
	struct fmt_func *funcs;
	const char **consts;
	int64_t *size;
};

static int names_make(struct names *n)
{
	uint32_t nf = rt_nfuncs(), nc = handles_const_count();

	n->funcs = malloc(sizeof(*n->funcs) * (nf + 1));
	n->consts = malloc(sizeof(*n->consts) * (nc + 1));
	n->size = malloc(sizeof(*n->size) * (nc + 1));
	if (!n->funcs || !n->consts || !n->size)
		return -1;
	for (uint32_t f = 0; f < nf; f++) {
		const struct rec_func *rf = rt_func(f);

		/* borrowed from the static tables */
		n->funcs[f] = (struct fmt_func){(char *)rf->name, rf->nparams,
						(char **)rf->params,
						(uint8_t *)rf->out};
	}
	for (uint32_t c = 0; c < nc; c++) {
		n->consts[c] = handles_const_name(c);
		n->size[c] = handles_const_type_size(c);
	}
	n->nm = (struct job_names){nf, n->funcs, nc, n->consts, n->size};
	return 0;
}

static void names_free(struct names *n)
{
	free(n->funcs);
	free(n->consts);
	free(n->size);
}

/* Rank 0: the file.  Returns 0 when it is written. */
static int job_write(struct gather *j, const struct names *n)
{
	struct fmt_writer w;
	char path[PLACE_MAX];
	int rc;

	fmt_writer_init(&w);
	j->job.m = j->m;
	j->job.names = &n->nm;
	j->job.ref = rt.tstate != RT_TIMING_OFF ? (int64_t)rt.origin_ns
						: (int64_t)rt.start_ns;
	j->job.skew = j->skew;
	j->job.meta = job_meta;
	j->job.ctx = j;
	j->job.exact_ranks = rt.exact_ranks;
	j->job.tolerance = rt.tolerance;
	j->job.params = rt.params;
	rc = job_sections(&j->job, &w);
	if (rc < 0)
		fprintf(stderr, "rondo: out of memory while merging the ranks' "
				"traces; no trace written\n");
	else if ((rc = job_save(&w, path, sizeof(path))) == 0)
		fprintf(stderr,
			"rondo: %s: %llu bytes, %llu MPI calls, %u "
			"signatures, %d ranks\n",
			path, (unsigned long long)w.saved,
			(unsigned long long)merge_calls(j->m),
			merge_cst(j->m)->n, rt.size);
	fmt_writer_free(&w);
	return rc;
}

void output_write(void)
{
	struct merge_tree t = {MPI_COMM_NULL, rt.rank, rt.size, 0, 0, 0};
	struct names n = {0};
	struct relative *R =
		names_make(&n) == 0 ? relative_create(&n.nm) : NULL;
	struct fmt_cst cst = {0};
	struct fmt_grammar g = {0};
	struct fmt_stats st = {0};
	struct gather j = {0};
	uint64_t run_ns = rt_now() - rt.start_ns, bind[2 * REC_NBIND];
	double start;
	int ok, written = 0;

	/* RONDO_VERBOSE=1: rank 0's own figures; 2: every rank's */
	if (rt.verbose > 1 || (rt.verbose == 1 && rt.rank == 0))
		fprintf(stderr,
			"rondo: rank %d: %llu MPI calls, %u signatures, "
			"%llu calls with kept argument bytes, grammar "
			"%zu bytes in memory\n",
			rt.rank, (unsigned long long)rt.ncalls, rt.nsig,
			(unsigned long long)rt.memo_hits, grammar_memory(rt.g));
	/* A communicator of the tracer's own: the program's messages, even
	 * left pending, cannot meet the merge's. */
	if (PMPI_Comm_dup(rt.world, &t.comm) != MPI_SUCCESS) {
		fprintf(stderr,
			"rondo: rank %d: cannot set up the merge; no "
			"trace written\n",
			rt.rank);
		relative_free(R);
		names_free(&n);
		spill_finish(0);
		return;
	}
	while ((1u << t.rounds) < (uint32_t)t.size)
		t.rounds++;
	/* each rank's run from its MPI_Init (or the start of tracing): the
	 * job's is the longest; then the time from when every rank is in,
	 * the merge's, not the wait for the last rank to finish its work */
	PMPI_Reduce(&run_ns, &j.run_ns, 1, MPI_UINT64_T, MPI_MAX, 0, t.comm);
	for (int b = 0; b < REC_NBIND; b++) {
		bind[b] = rt.bind_calls[b];
		bind[REC_NBIND + b] = rt.bind_calls[b] > 0;
	}
	PMPI_Reduce(bind, j.bind, 2 * REC_NBIND, MPI_UINT64_T, MPI_SUM, 0,
		    t.comm);
	timing_align(t.comm, t.rank, t.size, &j.skew, j.clock_how,
		     sizeof(j.clock_how));
	j.counted = memory_report(t.comm, t.rank, t.size, j.degraded,
				  sizeof(j.degraded));
	start = PMPI_Wtime();
	ok = local_tables(&cst, &g, &st) == 0 && R;
	merge_tree_relative(&t, R, ok ? &cst : NULL);
	j.m = merge_tree_gather(&t, R, &cst, ok, &g, &st);
	j.rounds = t.rounds;
	j.largest = t.largest;
	j.busy = t.busy;
	j.seconds = PMPI_Wtime() - start;
	if (t.rank == 0 && j.m)
		written = job_write(&j, &n) == 0;
	else if (t.rank == 0)
		fprintf(stderr, "rondo: out of memory while merging the ranks' "
				"traces; no trace written\n");
	/* the ranks keep their spill files unless the trace is written */
	PMPI_Bcast(&written, 1, MPI_INT, 0, t.comm);
	spill_finish(written && j.counted ? SPILL_FINISH_KEEP : written);
	PMPI_Comm_free(&t.comm);
	merge_free(j.m);
	job_free(&j.job);
	free(j.skew);
	timing_free();
	relative_free(R);
	names_free(&n);
	free(cst.sig);
	free(st.st);
	fmt_grammar_free(&g);
}
