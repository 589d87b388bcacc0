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

#include "config.h"
#include "hmap.h"
#include "merge.h"
#include "relative.h"
#include "reshape.h"
#include "runtime.h"
#include "util.h"

/* What rank 0 learns about the merge, for the metadata. */
struct job {
	struct merge *m;
	uint32_t rounds; /* of the tree */
	double seconds; /* rank 0's time from all ranks in to the merged tables */
	double busy;	/* of it, merging what the other ranks sent */
	size_t largest;	     /* the largest message rank 0 took in */
	uint64_t run_ns;     /* the longest rank's run from MPI_Init to here */
	struct hmap comm_id; /* communicator identity -> id */
	struct fmt_comms comms;
	size_t capcomms;
	struct fmt_topos topos; /* borrowed from the merge too */
	int oom;
	int64_t *skew;	     /* timing_align: each rank's clock - rank 0's */
	char clock_how[160]; /* and how that was found ("": no timing) */
	/* calls traced by binding, then the ranks that made any, summed */
	uint64_t bind[2 * REC_NBIND];
};

/* ---- this rank's tables -------------------------------------------------- */

/* A grammar this large is an irregular call sequence (a regular one
 * folds into a few rules whatever its length): then the other shape
 * (reshape.c) is tried, up to this many calls. */
#define RESHAPE_MIN_SYMBOLS 1024
#define RESHAPE_MAX_CALLS   (1u << 22)

/* The zstd level sections are written at: the slow, small one for all
 * but large payloads (a trace's are mostly small). */
static int pack_level(size_t len)
{
	return len <= (1u << 20) ? 19 : 3;
}

/* Replaces g by the reshaped grammar of the same calls when that one
 * compresses smaller. */
static void local_reshape(struct fmt_grammar *g)
{
	struct fmt_grammar r;
	struct fmt_buf a = {0}, b = {0};
	size_t was, now;

	if (g->nrules == 0 || g->first[g->nrules] < RESHAPE_MIN_SYMBOLS ||
	    reshape_cut(g, rt.nsig, RESHAPE_MAX_CALLS, &r) != 0)
		return;
	fmt_grammar_encode(&a, g);
	fmt_grammar_encode(&b, &r);
	was = a.oom ? 0 : fmt_packed_size(a.data, a.len, pack_level(a.len));
	now = b.oom ? 0 : fmt_packed_size(b.data, b.len, pack_level(b.len));
	if (was && now && now < was) {
		if (rt.verbose > 1 || (rt.verbose == 1 && rt.rank == 0))
			fprintf(stderr,
				"rondo: rank %d: grammar reshaped, %u "
				"pieces, %zu bytes packed instead of %zu\n",
				rt.rank, r.nrules - 1, now, was);
		fmt_grammar_free(g);
		*g = r;
	} else {
		fmt_grammar_free(&r);
	}
	fmt_buf_free(&a);
	fmt_buf_free(&b);
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
	if (!cst->sig || !st->st || grammar_flush(rt.g) < 0 ||
	    grammar_export(rt.g, g) < 0)
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

static void meta_add(struct fmt_meta *m, const char *key, const char *value)
{
	struct fmt_kv *kv = realloc(m->kv, sizeof(*kv) * (m->n + 1));

	if (!kv)
		return;
	m->kv = kv;
	kv[m->n].key = strdup(key);
	kv[m->n].value = strdup(value ? value : "");
	if (kv[m->n].key && kv[m->n].value)
		m->n++;
	else {
		free(kv[m->n].key);
		free(kv[m->n].value);
	}
}

/* The program's command line, from /proc. */
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

/* "C: 1200 calls on 4 ranks; Fortran use mpi_f08: ...": the bindings the
 * traced calls came through. */
static void bindings_meta(char *buf, size_t size, const struct job *j)
{
	static const char *const names[REC_NBIND] = {
		[REC_BIND_C] = "C",
		[REC_BIND_F] = "Fortran mpif.h or use mpi",
		[REC_BIND_F08] = "Fortran use mpi_f08"};
	size_t n = 0;

	buf[0] = '\0';
	for (int b = 0; b < REC_NBIND; b++) {
		if (!j->bind[b] || n >= size)
			continue;
		n += (size_t)snprintf(
			buf + n, size - n,
			"%s%s: %llu calls on "
			"%llu ranks",
			n ? "; " : "", names[b], (unsigned long long)j->bind[b],
			(unsigned long long)j->bind[REC_NBIND + b]);
	}
	if (!buf[0])
		snprintf(buf, size, "none: no call was traced");
}

static void job_meta(struct fmt_meta *m, const struct job *j)
{
	char buf[4096], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len = 0, major = 0, minor = 0;

	meta_add(m, "program", program_invocation_short_name);
	command_line(buf, sizeof(buf));
	meta_add(m, "command", buf);
	snprintf(buf, sizeof(buf), "%d", rt.size);
	meta_add(m, "ranks", buf);
	PMPI_Get_library_version(lib, &len);
	lib[strcspn(lib, "\n")] = '\0';
	for (char *c = lib; *c; c++) /* MPICH: "MPICH Version:\t4.0.2" */
		if (*c == '\t')
			*c = ' ';
	meta_add(m, "mpi", lib);
	PMPI_Get_version(&major, &minor);
	snprintf(buf, sizeof(buf), "%d.%d", major, minor);
	meta_add(m, "mpi_version", buf);
	bindings_meta(buf, sizeof(buf), j);
	meta_add(m, "bindings", buf);
	gethostname(buf, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	meta_add(m, "host", buf);
	meta_add(m, "start", rt.start);
	snprintf(buf, sizeof(buf), "%.6f", (double)j->run_ns / 1e9);
	meta_add(m, "duration", buf);
	if (rt.sessions)
		meta_add(m, "init",
			 "MPI-4 sessions: the trace starts at the "
			 "first MPI_Session_init and is written at "
			 "exit");
	else if (rt.lazy)
		meta_add(m, "init",
			 "not seen: the trace starts at the first "
			 "call made with MPI up");
	meta_add(m, "tracer", "rondo " PACKAGE_VERSION);
	snprintf(buf, sizeof(buf),
		 "RONDO_TRACK_POINTERS=%d RONDO_VERBOSE=%d RONDO_MEMO=%d "
		 "RONDO_TIMING=%s RONDO_TIME_BASE=%g RONDO_TIMING_LIMIT=%zu",
		 rt.track_pointers, rt.verbose, rt.memo,
		 rt.timing ? "percall" : "aggregated", rt.time_base,
		 rt.timing_limit);
	meta_add(m, "settings", buf);
	snprintf(buf, sizeof(buf), "%u", merge_unique(j->m));
	meta_add(m, "rank_grammars", buf);
	if (merge_timing_base(j->m)) {
		snprintf(buf, sizeof(buf), "per call, base %g",
			 merge_timing_base(j->m));
		meta_add(m, "timing", buf);
		meta_add(m, "clock_sync",
			 j->clock_how[0] ? j->clock_how
					 : "not aligned: clocks read as "
					   "they are");
	}
	snprintf(buf, sizeof(buf),
		 "%u rounds, %.3f ms on rank 0 (%.3f ms "
		 "merging what came in), largest message %zu bytes",
		 j->rounds, j->seconds * 1e3, j->busy * 1e3, j->largest);
	meta_add(m, "merge", buf);
	if (merge_failed(j->m)) {
		snprintf(buf, sizeof(buf),
			 "%u ranks ran out of memory or sent "
			 "damaged tables; their calls are missing",
			 merge_failed(j->m));
		meta_add(m, "incomplete", buf);
	}
}

/* Functions the job used, numbered in order of first use; cst is
 * renumbered to match. */
static int job_funcs(struct fmt_funcs *f, struct fmt_cst *cst)
{
	uint32_t nf = rt_nfuncs(), *id = malloc(sizeof(*id) * nf);

	f->f = calloc(cst->n + 1, sizeof(*f->f));
	if (!id || !f->f) {
		free(id);
		return -1;
	}
	memset(id, 0xff, sizeof(*id) * nf);
	for (uint32_t s = 0; s < cst->n; s++) {
		uint32_t fn = cst->sig[s].func;

		if (id[fn] == UINT32_MAX) {
			const struct rec_func *rf = rt_func(fn);

			id[fn] = f->n;
			/* Names are borrowed from the static tables. */
			f->f[f->n++] = (struct fmt_func){
				(char *)rf->name, rf->nparams,
				(char **)rf->params, (uint8_t *)rf->out};
		}
		cst->sig[s].func = id[fn];
	}
	free(id);
	return 0;
}

/* The small id of a communicator identity: its place in the merge's
 * list, or a new one (members unknown: the rank that speaks for it
 * failed) after them. */
static uint32_t job_comm(struct job *j, uint64_t key)
{
	uint32_t id = hmap_lookup(&j->comm_id, key);

	if (id != UINT32_MAX)
		return id;
	if (util_grow(&j->comms.c, &j->capcomms, (size_t)j->comms.n + 1,
		      sizeof(*j->comms.c)) < 0 ||
	    hmap_insert(&j->comm_id, key, j->comms.n) < 0) {
		j->oom = 1;
		return 0;
	}
	j->comms.c[j->comms.n] = (struct fmt_comm){0, 0, NULL};
	return j->comms.n++;
}

static uint64_t job_comm_map(void *ctx, uint64_t key)
{
	return job_comm(ctx, key);
}

/* Rewrites every signature's argument values of kind `kind` (in lists
 * too) by map, the arguments into *bytes.  0, or -1 when out of memory. */
static int cst_map_kind(struct fmt_cst *cst, struct fmt_buf *bytes,
			uint32_t kind, uint64_t (*map)(void *, uint64_t),
			void *ctx)
{
	size_t *off = malloc(sizeof(size_t) * (cst->n + 1));

	if (!off)
		return -1;
	for (uint32_t s = 0; s < cst->n; s++) {
		struct fmt_cur in;

		off[s] = bytes->len;
		fmt_cur_init(&in, cst->sig[s].args, cst->sig[s].len, NULL,
			     NULL);
		for (uint32_t a = 0; a < cst->sig[s].nargs; a++)
			if (fmt_arg_map(bytes, &in, kind, map, ctx) < 0)
				break;
	}
	for (uint32_t s = 0; s < cst->n && !bytes->oom; s++) {
		size_t end = s + 1 < cst->n ? off[s + 1] : bytes->len;

		cst->sig[s].args = bytes->data + off[s];
		cst->sig[s].len = (uint32_t)(end - off[s]);
	}
	free(off);
	return bytes->oom ? -1 : 0;
}

/* The communicators in the order of the merge's list (the members are
 * borrowed from it), and the signatures with their identities replaced
 * by those ids. */
static int job_rename_comms(struct job *j, struct fmt_cst *cst,
			    struct fmt_buf *bytes)
{
	const uint64_t *keys;
	const struct fmt_topo *topo;
	const struct fmt_comms *c = merge_comms(j->m, &keys, &topo);

	j->topos.t = malloc(sizeof(*j->topos.t) * (c->n + 1));
	if (!j->topos.t)
		return -1;
	/* ids in the list's order, so the topologies come in order too */
	for (uint32_t i = 0; i < c->n && !j->oom; i++) {
		uint32_t id = job_comm(j, keys[i]);

		if (j->oom)
			break;
		j->comms.c[id] = c->c[i];
		if (topo[i].ndims) {
			j->topos.t[j->topos.n] = topo[i];
			j->topos.t[j->topos.n++].comm = id;
		}
	}
	if (j->oom || cst_map_kind(cst, bytes, RONDO_ARG_COMM, job_comm_map, j))
		return -1;
	return j->oom ? -1 : 0;
}

/* The named constants the signatures use, numbered in order of first
 * use: the consts section names only those. */
struct used_consts {
	uint32_t *id; /* the tracer's constant -> the file's, or UINT32_MAX */
	struct fmt_consts *out;
};

static uint64_t used_const(void *ctx, uint64_t v)
{
	struct used_consts *u = ctx;

	if (v >= handles_const_count())
		return v; /* not one of ours: left as it is */
	if (u->id[v] == UINT32_MAX) {
		u->id[v] = u->out->n;
		u->out->name[u->out->n++] =
			(char *)handles_const_name((uint32_t)v);
	}
	return u->id[v];
}

/* The constants, and the sizes of those that are predefined datatypes
 * (in increasing order of the file's ids). */
static int job_consts(struct fmt_cst *cst, struct fmt_buf *bytes,
		      struct fmt_consts *consts, struct fmt_typesizes *ts)
{
	uint32_t n = handles_const_count();
	struct used_consts u = {malloc(sizeof(uint32_t) * (n + 1)), consts};
	int rc;

	consts->n = 0;
	consts->name = malloc(sizeof(char *) * (n + 1));
	ts->n = 0;
	ts->konst = malloc(sizeof(*ts->konst) * (n + 1));
	ts->size = malloc(sizeof(*ts->size) * (n + 1));
	if (!u.id || !consts->name || !ts->konst || !ts->size) {
		free(u.id);
		return -1;
	}
	memset(u.id, 0xff, sizeof(uint32_t) * n);
	rc = cst_map_kind(cst, bytes, RONDO_ARG_CONST, used_const, &u);
	for (uint32_t id = 0; rc == 0 && id < consts->n; id++)
		for (uint32_t v = 0; v < n; v++)
			if (u.id[v] == id && handles_const_type_size(v) >= 0) {
				ts->konst[ts->n] = id;
				ts->size[ts->n++] =
					(uint64_t)handles_const_type_size(v);
			}
	free(u.id);
	return rc;
}

/* The ranks' clock origins as offsets onto rank 0's clock. */
static void job_offsets(const struct job *j, struct fmt_timing *tm)
{
	int64_t ref = rt.tstate != RT_TIMING_OFF ? (int64_t)rt.origin_ns
						 : (int64_t)rt.start_ns;

	for (uint32_t r = 0; r < tm->nranks; r++)
		if (tm->offset[r]) /* 0: the rank kept no time */
			tm->offset[r] -= ref + (j->skew ? j->skew[r] : 0);
}

static int job_sections(struct job *j, struct fmt_writer *w)
{
	const struct fmt_cst *all = merge_cst(j->m);
	const rondo_stat *stat = merge_stats(j->m);
	struct fmt_cst cst = {
		all->n, malloc(sizeof(struct fmt_sig) * (all->n + 1)), NULL};
	struct fmt_funcs funcs = {0};
	struct fmt_consts consts = {0};
	struct fmt_stats st = {0,
			       malloc(sizeof(struct fmt_stat) * (all->n + 1))};
	struct fmt_meta meta = {0};
	struct fmt_grammar g = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_ranktime times;
	struct fmt_typesizes ts = {0};
	struct fmt_timing tm = {0};
	struct fmt_buf b[12] = {{0}}, bytes = {0}, cbytes = {0};
	static const uint32_t type[12] = {
		FMT_SEC_META,	  FMT_SEC_FUNCS,     FMT_SEC_CONSTS,
		FMT_SEC_CST,	  FMT_SEC_GRAMMAR,   FMT_SEC_RANKMAP,
		FMT_SEC_STATS,	  FMT_SEC_COMMS,     FMT_SEC_RANKTIME,
		FMT_SEC_TOPOLOGY, FMT_SEC_TYPESIZES, FMT_SEC_TIMING};
	int rc = -1, timed;

	merge_ranktime(j->m, &times);
	if (cst.sig && st.st && stat && merge_finish(j->m, &g, &rm) == 0) {
		memcpy(cst.sig, all->sig, sizeof(*cst.sig) * all->n);
		rc = job_rename_comms(j, &cst, &bytes);
	}
	if (rc == 0)
		rc = job_consts(&cst, &cbytes, &consts, &ts);
	if (rc == 0)
		rc = job_funcs(&funcs, &cst);
	timed = rc == 0 && merge_timing(j->m, &tm) == 0;
	if (timed)
		job_offsets(j, &tm);
	if (rc == 0) {
		for (uint32_t s = 0; s < all->n; s++)
			if (stat[s].count)
				st.st[st.n++] = (struct fmt_stat){s, stat[s]};
		job_meta(&meta, j);
		fmt_meta_encode(&b[0], &meta);
		fmt_funcs_encode(&b[1], &funcs);
		fmt_consts_encode(&b[2], &consts);
		fmt_cst_encode(&b[3], &cst);
		fmt_grammar_encode(&b[4], &g);
		fmt_rankmap_encode(&b[5], &rm);
		fmt_stats_encode(&b[6], &st);
		fmt_comms_encode(&b[7], &j->comms);
		fmt_ranktime_encode(&b[8], &times);
		fmt_topos_encode(&b[9], &j->topos);
		fmt_typesizes_encode(&b[10], &ts);
		if (timed)
			fmt_timing_encode(&b[11], &tm);
	}
	/* no communicator, topology, datatype or per-call time, no section */
	for (int i = 0; i < 12 && rc == 0; i++)
		rc = b[i].oom ? -1
		     : (i == 7 && !j->comms.n) || (i == 9 && !j->topos.n) ||
				     (i == 10 && !ts.n) || (i == 11 && !timed)
			     ? 0
			     : fmt_writer_add(w, type[i], b[i].data, b[i].len,
					      pack_level(b[i].len));
	for (int i = 0; i < 12; i++)
		fmt_buf_free(&b[i]);
	fmt_timing_free(&tm);
	fmt_typesizes_free(&ts);
	fmt_buf_free(&bytes);
	fmt_buf_free(&cbytes);
	fmt_meta_free(&meta);
	free(funcs.f);
	free(consts.name);
	free(cst.sig);
	free(st.st);
	fmt_grammar_free(&g);
	fmt_rankmap_free(&rm);
	return rc;
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

/* Rank 0: the file. */
static void job_write(struct job *j)
{
	struct fmt_writer w;
	char path[PLACE_MAX];
	int rc;

	fmt_writer_init(&w);
	rc = job_sections(j, &w);
	if (rc < 0)
		fprintf(stderr, "rondo: out of memory while merging the ranks' "
				"traces; no trace written\n");
	else if (job_save(&w, path, sizeof(path)) == 0)
		fprintf(stderr,
			"rondo: %s: %llu bytes, %llu MPI calls, %u "
			"signatures, %d ranks\n",
			path, (unsigned long long)w.saved,
			(unsigned long long)merge_calls(j->m),
			merge_cst(j->m)->n, rt.size);
	fmt_writer_free(&w);
}

void output_write(void)
{
	struct merge_tree t = {MPI_COMM_NULL, rt.rank, rt.size, 0, 0, 0};
	struct relative *R = relative_create();
	struct fmt_cst cst = {0};
	struct fmt_grammar g = {0};
	struct fmt_stats st = {0};
	struct job j = {0};
	uint64_t run_ns = rt_now() - rt.start_ns, bind[2 * REC_NBIND];
	double start;
	int ok;

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
	start = PMPI_Wtime();
	ok = local_tables(&cst, &g, &st) == 0 && R;
	merge_tree_relative(&t, R, ok ? &cst : NULL);
	j.m = merge_tree_gather(&t, R, &cst, ok, &g, &st);
	j.rounds = t.rounds;
	j.largest = t.largest;
	j.busy = t.busy;
	j.seconds = PMPI_Wtime() - start;
	if (t.rank == 0 && j.m)
		job_write(&j);
	else if (t.rank == 0)
		fprintf(stderr, "rondo: out of memory while merging the ranks' "
				"traces; no trace written\n");
	PMPI_Comm_free(&t.comm);
	merge_free(j.m);
	hmap_free(&j.comm_id);
	free(j.comms.c); /* the members belong to the merge */
	free(j.topos.t);
	free(j.skew);
	timing_free();
	relative_free(R);
	free(cst.sig);
	free(st.st);
	fmt_grammar_free(&g);
}
