/*
 * bench_scale.c - the trace of a job of thousands of ranks, made without
 * running them: the tables each rank of a known program records (its
 * signatures, its grammar, its statistics, the communicators it speaks
 * for) built in one process and merged by the tracer's own code, as
 * MPI_Finalize merges them (merge_tree.c, output.c): the rank-derived
 * integers chosen up a tree (relative.c), then every rank's merge sent up
 * a tree of ceil(log2 P) rounds (merge.c), then the file (job.c).  So the
 * sizes and merge times of 1 024 to 16 384 ranks are measured, not
 * extrapolated.
 *
 *   bench_scale --pattern NAME --ranks P [--iters N] [--noise X]
 *               [--truth FILE] [-o FILE]
 *
 * --truth writes each rank's time in MPI as it went into the merge,
 * "rank ns" a line, for tests to hold what the file says against; the
 * trace keeps each rank's time in each signature up to
 * RONDO_RANKTIME_EXACT ranks, as the tracer does.
 *
 * This file is the driver: the options, the choice of relative integers
 * and the merge, each up its tree, then the file and the figures.  The
 * patterns (stencil, stencil3d, collloop, colorsplit, xor, transpose,
 * multipart, a2av: the programs of tests/mpi/, call for call) and their
 * made-up times are one rank's tables, scale_ranks.c; the driver only
 * reads what a rank recorded, so the two halves change apart.
 *
 * The merge runs in one process, depth first, so that at most log2 P
 * merges are alive and each rank's tables are freed once merged.  Its
 * time is given three ways: "total", all ranks' merge work one after the
 * other; "path", the tree's critical path with one core per rank and free
 * messages (what rank 0 would wait at best); "busy", rank 0's own time
 * merging what came in.  One line on stdout says it all, `key value`
 * pairs; the file's metadata says it too.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "grammar.h"
#include "job.h"
#include "merge.h"
#include "relative.h"
#include "scale_ranks.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_scale: %s\n", what);
	exit(1);
}

/* ---- the merge, as merge_tree.c does it ---------------------------------- */

struct run {
	const struct pattern *pat;
	struct cfg cf;
	uint32_t size, rounds;
	struct relative *choice; /* the decision, as every rank loads it */
	double build, total;	 /* s: making tables; all ranks' merge work */
	double busy;		 /* rank 0's, merging what came in */
	size_t largest;		 /* the largest message rank 0 took in */
	uint64_t calls;
	double run_ns; /* the longest rank's time in MPI */
	FILE *truth;   /* --truth: each rank's time in MPI, exactly */
};

/* Rank `rank`'s tables, made (observe: its signatures only). */
static void make_rank(struct run *R, struct rk *r, uint32_t rank, int observe)
{
	double t0 = now();

	rk_init(r, rank, R->size, observe);
	R->pat->run(r, &R->cf);
	R->build += now() - t0;
}

/* The signature table for the merge, pointing into r's bytes. */
static struct fmt_cst rank_cst(const struct rk *r)
{
	struct fmt_cst cst = {r->nsig, calloc(r->nsig + 1, sizeof(*cst.sig)),
			      NULL};

	if (!cst.sig)
		die("out of memory");
	for (uint32_t s = 0; s < r->nsig; s++)
		cst.sig[s] = (struct fmt_sig){r->sig[s].func, r->sig[s].nargs,
					      r->sig[s].len,
					      r->bytes.data + r->sig[s].off};
	return cst;
}

/* The choice of relative integers over ranks [first, first + span), as
 * rank `first` holds it when it sends it up (merge_tree_relative), in
 * `into`.  Returns when it would be ready, in s from the start. */
static double rel_tree(struct run *R, uint32_t first, uint32_t span,
		       struct relative *into)
{
	struct relative *mine = into;
	struct rk r;
	struct fmt_cst cst;
	double t0, ready;

	make_rank(R, &r, first, 1);
	cst = rank_cst(&r);
	t0 = now();
	if (relative_observe(mine, &cst, rk_rank_me, &r) < 0)
		die("out of memory");
	ready = now() - t0;
	R->total += ready;
	free(cst.sig);
	rk_free(&r);
	for (uint32_t step = 1; step < span && first + step < R->size;
	     step <<= 1) {
		struct relative *child = relative_create(&rk_names);
		struct fmt_buf b = {0};
		double at, dt;

		if (!child)
			die("out of memory");
		at = rel_tree(R, first + step, step, child);
		t0 = now();
		relative_encode(child, &b);
		relative_free(child);
		at += now() - t0;
		t0 = now();
		if (b.oom || relative_merge(mine, b.data, b.len) < 0)
			die("cannot merge the relative choice");
		dt = now() - t0;
		ready = (at > ready ? at : ready) + dt;
		R->total += dt;
		fmt_buf_free(&b);
	}
	return ready;
}

/* The communicators rank r speaks for (comms_merge). */
static void add_comms(struct merge *m, const struct rk *r)
{
	for (uint32_t c = 0; c < r->ncomms; c++) {
		const struct comm *g = &r->comm[c];
		struct fmt_comm fc = {g->n, 0, g->world};
		struct fmt_topo t = {0, g->ndims, (uint32_t *)g->dims,
				     (uint8_t *)g->periodic};

		if (g->world && merge_add_comm(m, g->key, &fc, &t) != 0)
			die("cannot add a communicator");
	}
}

/* Rank `rank` alone in a new merge, as merge_tree_gather starts it: its
 * grammar exported and reshaped, its integers made relative.  Returns
 * the seconds that took. */
static double rank_merge(struct run *R, uint32_t rank, struct merge **m)
{
	struct rk r;
	struct fmt_cst cst;
	struct fmt_grammar g = {0};
	struct fmt_stats st = {0};
	struct fmt_buf bytes = {0};
	const uint8_t *vals;
	size_t was, now_, nvals;
	double t0;

	make_rank(R, &r, rank, 0);
	R->calls += r.calls;
	R->run_ns = r.busy_ns > R->run_ns ? r.busy_ns : R->run_ns;
	t0 = now();
	*m = merge_create();
	cst = rank_cst(&r);
	st.st = calloc(r.nsig + 1, sizeof(*st.st));
	if (!*m || !st.st || grammar_flush(r.g) < 0 ||
	    grammar_export(r.g, &g) < 0)
		die("out of memory");
	job_reshape(&g, r.nsig, &was, &now_);
	for (uint32_t s = 0; s < r.nsig; s++)
		if (r.sig[s].st.count)
			st.st[st.n++] = (struct fmt_stat){s, r.sig[s].st};
	if (R->truth) {
		unsigned long long mpi = 0;

		for (uint32_t s = 0; s < st.n; s++)
			mpi += st.st[s].s.total_ns;
		fprintf(R->truth, "%u %llu\n", rank, mpi);
	}
	if (relative_apply(R->choice, &cst, &bytes, rk_rank_me, &r) < 0 ||
	    merge_add_rank(*m, &cst, &g, &st) != 0)
		die("a rank's tables do not merge");
	relative_values(R->choice, &vals, &nvals);
	if (merge_add_values(*m, vals, nvals) != 0)
		die("a rank's per-rank values do not merge");
	add_comms(*m, &r);
	t0 = now() - t0;
	R->total += t0;
	fmt_buf_free(&bytes);
	fmt_grammar_free(&g);
	free(st.st);
	free(cst.sig);
	rk_free(&r);
	return t0;
}

/* The merge of ranks [first, first + span), as rank `first` holds it when
 * it sends it on (merge_tree.c): encoded into *out, or, for rank 0, the
 * whole job in *whole.  Returns when it would be ready, in s from when
 * the relative choice was known. */
static double merge_tree(struct run *R, uint32_t first, uint32_t span,
			 struct fmt_buf *out, struct merge **whole)
{
	struct merge *m;
	double ready = rank_merge(R, first, &m), t0;

	for (uint32_t step = 1; step < span && first + step < R->size;
	     step <<= 1) {
		uint32_t child = first + step, n = R->size - child;
		struct fmt_buf b = {0};
		double at = merge_tree(R, child, step, &b, NULL), dt;

		n = n < step ? n : step;
		t0 = now();
		if (merge_add_encoded(m, b.data, b.len, n, rk_names.nfuncs,
				      R->size) != 0)
			die("a range of ranks does not merge");
		dt = now() - t0;
		ready = (at > ready ? at : ready) + dt;
		R->total += dt;
		if (first == 0) {
			R->busy += dt;
			R->largest = b.len > R->largest ? b.len : R->largest;
		}
		fmt_buf_free(&b);
	}
	if (whole) {
		*whole = m;
		return ready;
	}
	t0 = now();
	if (merge_encode(m, out) != 0 || out->oom)
		die("cannot encode a merge");
	t0 = now() - t0;
	merge_free(m);
	R->total += t0;
	return ready + t0;
}

/* ---- the file ------------------------------------------------------------ */

struct meta_ctx {
	const struct run *R;
	struct merge *m;
	double path;
};

static void scale_meta(struct fmt_meta *m, void *arg)
{
	const struct meta_ctx *x = arg;
	const struct run *R = x->R;
	uint64_t calls[JOB_NBIND] = {R->calls}, ranks[JOB_NBIND] = {R->size};
	char cmd[256], bind[256], host[256] = "", start_[64], buf[512];
	time_t t = time(NULL);
	struct tm tm;
	struct job_facts f;

	snprintf(cmd, sizeof(cmd), "tests/mpi/%s %u%s", R->pat->name,
		 R->cf.iters, R->pat->args);
	job_bindings_text(bind, sizeof(bind), calls, ranks);
	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&t, &tm))
		strftime(start_, sizeof(start_), "%Y-%m-%dT%H:%M:%S+0000", &tm);
	else
		snprintf(start_, sizeof(start_), "?");
	f = (struct job_facts){
		R->pat->name,
		cmd,
		"none: synthetic ranks (tests/bench/bench_scale)",
		"3.1",
		bind,
		host,
		start_,
		NULL,
		"RONDO_TRACK_POINTERS=1 RONDO_VERBOSE=0 RONDO_MEMO=1 "
		"RONDO_TIMING=aggregated RONDO_TIME_BASE=1.1 "
		"RONDO_TIMING_LIMIT=268435456 RONDO_MEMORY_LIMIT=78987520 "
		"RONDO_SPILL=1 RONDO_FLUSH_INTERVAL=180",
		NULL,
		R->size,
		R->run_ns / 1e9};
	job_meta_facts(m, &f, x->m);
	snprintf(buf, sizeof(buf),
		 "%u rounds, %.3f ms on rank 0 (%.3f ms merging what came "
		 "in), largest message %zu bytes",
		 R->rounds, x->path * 1e3, R->busy * 1e3, R->largest);
	job_meta_add(m, "merge", buf);
	snprintf(buf, sizeof(buf),
		 "made by bench_scale in one process: rank 0's time is the "
		 "tree's critical path, one core a rank and no message "
		 "latency; all ranks' merge work took %.3f ms",
		 R->total * 1e3);
	job_meta_add(m, "synthetic", buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_scale --pattern NAME --ranks P "
			"[--iters N] [--noise X] [--truth FILE] [-o FILE]\n"
			"patterns:");
	for (size_t k = 0; k < rk_npatterns; k++)
		fprintf(stderr, " %s", rk_patterns[k].name);
	fprintf(stderr, "\n");
	exit(2);
}

static void options(int argc, char **argv, struct run *R, const char **out)
{
	static const struct option opts[] = {{"pattern", 1, 0, 'p'},
					     {"ranks", 1, 0, 'r'},
					     {"iters", 1, 0, 'n'},
					     {"noise", 1, 0, 'x'},
					     {"output", 1, 0, 'o'},
					     {"truth", 1, 0, 't'},
					     {0, 0, 0, 0}};
	unsigned long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		if (c == 'o') {
			*out = optarg;
			continue;
		}
		if (c == '?')
			usage();
		if (c == 't') {
			R->truth = fopen(optarg, "w");
			if (!R->truth)
				die("cannot write the --truth file");
			continue;
		}
		if (c == 'x') {
			rk_noise = strtod(optarg, &end);
			if (*end || !*optarg ||
			    !(rk_noise >= 0 && rk_noise <= 10))
				usage();
			continue;
		}
		if (c == 'p') {
			for (size_t k = 0; k < rk_npatterns; k++)
				if (!strcmp(rk_patterns[k].name, optarg))
					R->pat = &rk_patterns[k];
			if (!R->pat)
				usage();
			continue;
		}
		v = strtoul(optarg, &end, 10);
		if (*end || !*optarg || v > (1ul << 24))
			usage();
		if (c == 'r')
			R->size = (uint32_t)v;
		else
			R->cf.iters = (uint32_t)v;
	}
	if (!R->pat || R->size < 1 || optind != argc)
		usage();
}

int main(int argc, char **argv)
{
	struct run R = {0};
	const char *out = NULL;
	char path[512], why[512];
	struct relative *top;
	struct fmt_buf d = {0};
	struct merge *m = NULL;
	struct meta_ctx x = {&R, NULL, 0};
	struct job j = {0};
	struct fmt_writer w;
	double rel_path, merge_path, t0, file;

	R.cf.iters = 100;
	options(argc, argv, &R, &out);
	/* thousands of ranks' tables are made and freed here: the heap is
	 * kept, or giving it back and taking it again (brk, TLB flushes)
	 * would be charged to the merge, which one process a rank does not
	 * pay */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	if (!out) {
		snprintf(path, sizeof(path), "scale-%s-%u.rondo", R.pat->name,
			 R.size);
		out = path;
	}
	rk_names_init();
	while ((1u << R.rounds) < R.size)
		R.rounds++;
	/* the choice of relative integers: up the tree, then to everyone */
	top = relative_create(&rk_names);
	R.choice = relative_create(&rk_names);
	if (!top || !R.choice)
		die("out of memory");
	rel_path = rel_tree(&R, 0, 1u << R.rounds, top);
	t0 = now();
	relative_decide(top, &d);
	if (d.oom || relative_load(R.choice, d.data, d.len) < 0)
		die("cannot load the relative choice");
	rel_path += now() - t0;
	relative_free(top);
	fmt_buf_free(&d);
	/* the merge */
	merge_path = merge_tree(&R, 0, 1u << R.rounds, NULL, &m);
	x.m = m;
	x.path = rel_path + merge_path;
	/* the file */
	t0 = now();
	fmt_writer_init(&w);
	j.m = m;
	j.names = &rk_names;
	j.meta = scale_meta;
	j.ctx = &x;
	j.exact_ranks = job_exact_ranks(getenv("RONDO_RANKTIME_EXACT"));
	if (!j.exact_ranks)
		die("RONDO_RANKTIME_EXACT is not a number of ranks");
	if (R.truth && fclose(R.truth) != 0)
		die("cannot write the --truth file");
	if (job_sections(&j, &w) < 0)
		die("out of memory making the sections");
	if (fmt_writer_save(&w, out, why, sizeof(why)) != 0) {
		fprintf(stderr, "bench_scale: %s\n", why);
		return 1;
	}
	file = now() - t0;
	printf("bench_scale pattern %s ranks %u iters %u bytes %llu calls "
	       "%llu signatures %u groups %u rounds %u merge-path-ms %.3f "
	       "merge-busy-ms %.3f merge-total-ms %.3f largest %zu file-ms "
	       "%.3f build-ms %.3f out %s\n",
	       R.pat->name, R.size, R.cf.iters, (unsigned long long)w.saved,
	       (unsigned long long)merge_calls(m), merge_cst(m)->n,
	       merge_unique(m), R.rounds, x.path * 1e3, R.busy * 1e3,
	       R.total * 1e3, R.largest, file * 1e3, R.build * 1e3, out);
	fmt_writer_free(&w);
	job_free(&j);
	merge_free(m);
	relative_free(R.choice);
	return 0;
}
