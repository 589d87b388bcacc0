/*
 * output.c - the trace file: at MPI_Finalize every rank's signature table,
 * grammar and statistics go to rank 0, which merges them and writes one
 * .rondo file.  The statistics are summed over ranks, and each rank's own
 * totals are kept too, per signature, for the imbalance across ranks.
 *
 * This first version gathers everything on rank 0 with PMPI_Gatherv; the
 * merge itself (merge.c) already stores identical rank grammars once.
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
#include "runtime.h"

/* ---- what each rank sends --------------------------------------------------- */

static void put_part(struct fmt_buf *out, struct fmt_buf *part)
{
	fmt_put_uvarint(out, part->len);
	fmt_put_bytes(out, part->data, part->len);
	out->oom |= part->oom;
	fmt_buf_free(part);
}

/* The rank's tables: failed flag, signatures, grammar, statistics, the
 * communicators it speaks for. */
static int local_encode(struct fmt_buf *out)
{
	struct fmt_cst cst = {rt.nsig, calloc(rt.nsig + 1, sizeof(struct fmt_sig)),
			      NULL};
	struct fmt_stats st = {0, calloc(rt.nsig + 1, sizeof(struct fmt_stat))};
	struct fmt_grammar g = {0};
	struct fmt_buf part = {0};
	int rc = 0;

	/* recording is over: the pending loop symbols go into the grammar
	 * itself rather than into a copy made for the export */
	if (!cst.sig || !st.st || grammar_flush(rt.g) < 0 ||
	    grammar_export(rt.g, &g) < 0)
		rc = RONDO_E_NOMEM;
	for (uint32_t s = 0; rc == 0 && s < rt.nsig; s++) {
		cst.sig[s] = (struct fmt_sig){rt.sig[s].func, rt.sig[s].nargs,
					      rt.sig[s].len,
					      rt.sig_bytes.data + rt.sig[s].off};
		if (rt.sig[s].st.count)
			st.st[st.n++] = (struct fmt_stat){s, rt.sig[s].st};
	}
	fmt_put_uvarint(out, rt.failed || rc);
	if (rc == 0) {
		fmt_cst_encode(&part, &cst);
		put_part(out, &part);
		fmt_grammar_encode(&part, &g);
		put_part(out, &part);
		fmt_stats_encode(&part, &st);
		put_part(out, &part);
		comms_encode(&part);
		put_part(out, &part);
	}
	free(cst.sig);
	free(st.st);
	fmt_grammar_free(&g);
	return out->oom ? RONDO_E_NOMEM : rc;
}

/* ---- what rank 0 does with it ---------------------------------------------- */

struct job {
	struct merge *m;
	rondo_stat *stat; /* by global signature */
	uint32_t nstat;
	uint32_t failed_ranks;
	uint64_t calls;
	struct hmap comm_id;    /* communicator identity -> id in comms */
	struct fmt_comms comms; /* grows as identities are met */
	size_t capcomms;
	/* Each rank's time per signature: rank r's signatures (global ids,
	 * increasing) and times are time_sig and time_code from time_at[r]
	 * to time_at[r + 1]. */
	uint64_t *time_at; /* one per rank, plus one */
	uint32_t *time_sig;
	uint16_t *time_code;
	size_t ntime, captime;
	uint32_t ranks; /* ranks added so far */
	struct relative *rel; /* rank-derived integers (relative.c) */
	uint32_t rank_now;    /* whose signatures `rel` looks at */
	int oom;
};

enum { PART_CST, PART_GRAMMAR, PART_STATS, PART_COMMS, NPARTS };

/* Splits what a rank sent; 0, or -1 for a rank that sent nothing usable. */
static int rank_parts(const uint8_t *p, size_t n, const uint8_t **part,
		      size_t *len, uint64_t *failed)
{
	struct fmt_cur c;
	int rc;

	*failed = 1;
	fmt_cur_init(&c, p, n, "rank", NULL);
	rc = fmt_get_uvarint(&c, failed);
	for (int i = 0; i < NPARTS && rc == 0; i++)
		rc = fmt_get_bytes(&c, &part[i], &len[i]);
	return rc ? -1 : 0;
}

/* The small id of a communicator identity, a new one (members unknown
 * until its speaker's list says) the first time. */
static uint32_t job_comm(struct job *j, uint64_t key)
{
	uint32_t id = hmap_lookup(&j->comm_id, key);

	if (id != UINT32_MAX)
		return id;
	if (fmt_array_grow(&j->comms.c, &j->capcomms, (size_t)j->comms.n + 1,
			   sizeof(*j->comms.c)) < 0) {
		j->oom = 1;
		return 0;
	}
	id = j->comms.n;
	if (hmap_insert(&j->comm_id, key, id) < 0) {
		j->oom = 1;
		return 0;
	}
	j->comms.c[j->comms.n++] = (struct fmt_comm){0, 0, NULL};
	return id;
}

static uint64_t job_comm_map(void *ctx, uint64_t key)
{
	return job_comm(ctx, key);
}

/* Every rank's list of the communicators it speaks for, first: ids in
 * order of ranks, and members. */
static void job_comm_lists(struct job *j, const uint8_t *all, const int *len,
			   const int *displ)
{
	for (int r = 0; r < rt.size; r++) {
		const uint8_t *part[NPARTS];
		size_t plen[NPARTS];
		uint64_t failed, n = 0, key, first, m, w;
		struct fmt_cur c;
		int rc;

		if (rank_parts(all + displ[r], (size_t)len[r], part, plen,
			       &failed) < 0)
			continue;
		fmt_cur_init(&c, part[PART_COMMS], plen[PART_COMMS], NULL, NULL);
		rc = fmt_get_uvarint(&c, &n);
		for (uint64_t i = 0; i < n && rc == 0; i++) {
			struct fmt_comm *fc;
			uint32_t id;

			rc = fmt_get_uvarint(&c, &key);
			rc = rc ? rc : fmt_get_uvarint(&c, &first);
			rc = rc ? rc : fmt_get_uvarint(&c, &m);
			if (rc || m > (uint64_t)rt.size || first > m)
				break;
			id = job_comm(j, key);
			if (j->oom)
				return;
			fc = &j->comms.c[id];
			fc->world = fc->world ? fc->world
					      : malloc(sizeof(uint32_t) * (m + 1));
			if (!fc->world) {
				j->oom = 1;
				return;
			}
			fc->n = (uint32_t)m;
			fc->first = (uint32_t)first;
			for (uint64_t k = 0; k < m && rc == 0; k++) {
				rc = fmt_get_uvarint(&c, &w);
				fc->world[k] = w < (uint64_t)rt.size ? (uint32_t)w : 0;
			}
		}
	}
}

/* The caller's rank in a call's communicator, for relative.c: rank
 * j->rank_now's rank in it, from the members' lists. */
static int64_t job_me(void *ctx, uint32_t kind, uint64_t value)
{
	struct job *j = ctx;
	const struct fmt_comm *c;
	const char *name;
	uint32_t id;

	if (kind == RONDO_ARG_CONST) {
		name = value <= UINT32_MAX ? handles_const_name((uint32_t)value)
					   : NULL;
		if (name && !strcmp(name, "MPI_COMM_WORLD"))
			return j->rank_now;
		return name && !strcmp(name, "MPI_COMM_SELF") ? 0 : -1;
	}
	id = hmap_lookup(&j->comm_id, value);
	if (id == UINT32_MAX)
		return -1;
	c = &j->comms.c[id];
	for (uint32_t k = 0; c->world && !c->first && k < c->n; k++)
		if (c->world[k] == j->rank_now)
			return k;
	return -1;
}

/* Every rank's signatures, for relative.c to choose which rank-derived
 * integers to store relative to the caller. */
static void job_observe(struct job *j, const uint8_t *all, const int *len,
			const int *displ)
{
	for (int r = 0; r < rt.size && j->rel; r++) {
		const uint8_t *part[NPARTS];
		size_t plen[NPARTS];
		struct fmt_cst cst = {0};
		struct fmt_err e;
		uint64_t failed;

		if (rank_parts(all + displ[r], (size_t)len[r], part, plen,
			       &failed) < 0 ||
		    fmt_cst_decode(&cst, part[PART_CST], plen[PART_CST],
				   rt_nfuncs(), &e) < 0)
			continue;
		j->rank_now = (uint32_t)r;
		/* out of memory: fewer integers made relative, nothing lost */
		relative_observe(j->rel, &cst, job_me, j);
		fmt_cst_free(&cst);
	}
}

/* A rank's signatures with its communicator identities replaced by their
 * small ids; the arguments live in *bytes. */
static int job_rename_comms(struct job *j, struct fmt_cst *cst,
			    struct fmt_buf *bytes)
{
	size_t *off = malloc(sizeof(size_t) * (cst->n + 1));

	if (!off)
		return -1;
	for (uint32_t s = 0; s < cst->n; s++) {
		struct fmt_cur in;

		off[s] = bytes->len;
		fmt_cur_init(&in, cst->sig[s].args, cst->sig[s].len, NULL, NULL);
		for (uint32_t a = 0; a < cst->sig[s].nargs; a++)
			if (fmt_arg_map(bytes, &in, RONDO_ARG_COMM,
					job_comm_map, j) < 0)
				break;
	}
	for (uint32_t s = 0; s < cst->n; s++) {
		size_t end = s + 1 < cst->n ? off[s + 1] : bytes->len;

		cst->sig[s].args = bytes->data + off[s];
		cst->sig[s].len = (uint32_t)(end - off[s]);
	}
	free(off);
	return bytes->oom || j->oom ? -1 : 0;
}

static void stat_add(rondo_stat *to, const rondo_stat *s)
{
	if (to->count == 0 || s->min_ns < to->min_ns)
		to->min_ns = s->min_ns;
	if (s->max_ns > to->max_ns)
		to->max_ns = s->max_ns;
	to->count += s->count;
	to->total_ns += s->total_ns;
	to->sumsq_ns2 += s->sumsq_ns2;
	for (int k = 0; k < RONDO_HIST_BINS; k++)
		to->hist[k] += s->hist[k];
}

static int job_times_reserve(struct job *j, size_t more)
{
	size_t cap = j->captime ? j->captime : 256;
	uint32_t *s;
	uint16_t *c;

	if (more <= j->captime - j->ntime)
		return 0;
	while (cap - j->ntime < more)
		cap *= 2;
	s = realloc(j->time_sig, sizeof(*s) * cap);
	if (!s)
		return -1;
	j->time_sig = s;
	c = realloc(j->time_code, sizeof(*c) * cap);
	if (!c)
		return -1;
	j->time_code = c;
	j->captime = cap;
	return 0;
}

struct sig_time {
	uint32_t sig;
	uint64_t ns;
};

static int by_sig(const void *a, const void *b)
{
	const struct sig_time *x = a, *y = b;

	return (x->sig > y->sig) - (x->sig < y->sig);
}

/* The rank's own total in each signature it called, under global ids in
 * increasing order, appended to the job's per-rank times (all or
 * nothing). */
static int job_rank_times(struct job *j, const struct fmt_stats *st,
			  const uint32_t *map)
{
	struct sig_time *v = malloc(sizeof(*v) * (st->n + 1));
	uint32_t n = 0;

	if (!v || job_times_reserve(j, st->n) < 0) {
		free(v);
		return -1;
	}
	for (uint32_t i = 0; i < st->n; i++)
		v[i] = (struct sig_time){map[st->st[i].sig],
					 st->st[i].s.total_ns};
	qsort(v, st->n, sizeof(*v), by_sig);
	/* Local signatures have distinct global ids; were two to meet, one
	 * entry with their sum keeps the list increasing, as readers check. */
	for (uint32_t i = 0; i < st->n; i++) {
		if (n && v[n - 1].sig == v[i].sig)
			v[n - 1].ns += v[i].ns;
		else
			v[n++] = v[i];
	}
	for (uint32_t k = 0; k < n; k++) {
		j->time_sig[j->ntime + k] = v[k].sig;
		j->time_code[j->ntime + k] = fmt_time_code(v[k].ns);
	}
	j->ntime += n;
	free(v);
	return 0;
}

/* Global ids for the rank's terminals, then its statistics. */
static int job_stats(struct job *j, const uint8_t *p, size_t n,
		     const uint32_t *map, uint32_t nsig)
{
	struct fmt_stats st;
	struct fmt_err e;
	const struct fmt_cst *all = merge_cst(j->m);

	if (fmt_stats_decode(&st, p, n, nsig, &e) < 0)
		return -1;
	if (all->n > j->nstat) {
		rondo_stat *s = realloc(j->stat, sizeof(*s) * all->n);

		if (!s) {
			fmt_stats_free(&st);
			return -1;
		}
		memset(s + j->nstat, 0, sizeof(*s) * (all->n - j->nstat));
		j->stat = s;
		j->nstat = all->n;
	}
	if (job_rank_times(j, &st, map) < 0) {
		fmt_stats_free(&st);
		return -1;
	}
	for (uint32_t i = 0; i < st.n; i++) {
		stat_add(&j->stat[map[st.st[i].sig]], &st.st[i].s);
		j->calls += st.st[i].s.count;
	}
	fmt_stats_free(&st);
	return 0;
}

/* Adds one rank's tables to the job; a rank whose data is damaged or
 * missing gets an empty call sequence and is counted as failed. */
static int job_add_rank(struct job *j, const uint8_t *p, size_t n)
{
	struct fmt_err e;
	struct fmt_cst cst = {0};
	struct fmt_grammar g = {0}, empty = {0};
	struct fmt_buf bytes = {0}, rel = {0};
	const uint8_t *part[NPARTS];
	size_t len[NPARTS];
	uint64_t failed = 1;
	uint32_t *map = NULL;
	int rc = -1;

	j->rank_now = j->ranks;
	if (rank_parts(p, n, part, len, &failed) == 0 &&
	    fmt_cst_decode(&cst, part[PART_CST], len[PART_CST], rt_nfuncs(),
			   &e) == 0 &&
	    (!j->rel || relative_apply(j->rel, &cst, &rel, job_me, j) == 0) &&
	    job_rename_comms(j, &cst, &bytes) == 0 &&
	    (map = malloc(sizeof(*map) * (cst.n + 1))) != NULL &&
	    merge_add_cst(j->m, &cst, map) == 0 &&
	    fmt_grammar_decode(&g, part[PART_GRAMMAR], len[PART_GRAMMAR],
			       cst.n, NULL, &e) == 0) {
		for (uint32_t i = 0; i < g.first[g.nrules]; i++)
			if (!RONDO_SYM_IS_RULE(g.body[i].sym))
				g.body[i].sym = map[g.body[i].sym];
		rc = job_stats(j, part[PART_STATS], len[PART_STATS], map,
			       cst.n);
	}
	if (rc == 0 && g.nrules > 0)
		rc = merge_add_grammar(j->m, &g);
	else {
		/* One empty rule: the rank's calls are lost, said in the
		 * metadata. */
		empty.nrules = 1;
		empty.first = (uint32_t[]){0, 0};
		empty.body = (rondo_sym[1]){{0}}; /* never NULL, as decoded */
		rc = merge_add_grammar(j->m, &empty) < 0 ? -1 : 1;
	}
	j->failed_ranks += failed || rc != 0;
	j->time_at[++j->ranks] = j->ntime;
	fmt_grammar_free(&g);
	fmt_cst_free(&cst);
	fmt_buf_free(&bytes);
	fmt_buf_free(&rel);
	free(map);
	return rc < 0 ? -1 : 0;
}

/* ---- the sections ---------------------------------------------------------- */

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
	meta_add(m, "mpi", lib);
	PMPI_Get_version(&major, &minor);
	snprintf(buf, sizeof(buf), "%d.%d", major, minor);
	meta_add(m, "mpi_version", buf);
	gethostname(buf, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	meta_add(m, "host", buf);
	meta_add(m, "start", rt.start);
	if (rt.sessions)
		meta_add(m, "init", "MPI-4 sessions: the trace starts at the "
				    "first MPI_Session_init and is written at "
				    "exit");
	else if (rt.lazy)
		meta_add(m, "init", "not seen: the trace starts at the first "
				    "call made with MPI up");
	meta_add(m, "tracer", "rondo " PACKAGE_VERSION);
	snprintf(buf, sizeof(buf),
		 "RONDO_TRACK_POINTERS=%d RONDO_VERBOSE=%d RONDO_MEMO=%d",
		 rt.track_pointers, rt.verbose, rt.memo);
	meta_add(m, "settings", buf);
	if (j->failed_ranks) {
		snprintf(buf, sizeof(buf), "%u ranks ran out of memory or sent "
			 "damaged tables; their calls are missing",
			 j->failed_ranks);
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

static int job_sections(struct job *j, struct fmt_writer *w)
{
	const struct fmt_cst *all = merge_cst(j->m);
	struct fmt_cst cst = {all->n, malloc(sizeof(struct fmt_sig) * (all->n + 1)),
			      NULL};
	struct fmt_funcs funcs = {0};
	struct fmt_consts consts = {handles_const_count(),
				    malloc(sizeof(char *) * handles_const_count())};
	struct fmt_stats st = {0, malloc(sizeof(struct fmt_stat) * (j->nstat + 1))};
	struct fmt_meta meta = {0};
	struct fmt_grammar g = {0};
	struct fmt_rankmap rm = {0};
	struct fmt_ranktime times = {(uint32_t)rt.size, j->time_at, j->time_at,
				     j->time_sig, j->time_code};
	struct fmt_buf b[9] = {{0}};
	static const uint32_t type[9] = {
		FMT_SEC_META,	 FMT_SEC_FUNCS,	  FMT_SEC_CONSTS, FMT_SEC_CST,
		FMT_SEC_GRAMMAR, FMT_SEC_RANKMAP, FMT_SEC_STATS,  FMT_SEC_COMMS,
		FMT_SEC_RANKTIME};
	int rc = -1;

	if (cst.sig && consts.name && st.st &&
	    merge_finish(j->m, &g, &rm) == 0) {
		memcpy(cst.sig, all->sig, sizeof(*cst.sig) * all->n);
		rc = job_funcs(&funcs, &cst);
	}
	if (rc == 0) {
		for (uint32_t i = 0; i < consts.n; i++)
			consts.name[i] = (char *)handles_const_name(i);
		for (uint32_t s = 0; s < j->nstat; s++)
			if (j->stat[s].count)
				st.st[st.n++] = (struct fmt_stat){s, j->stat[s]};
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
	}
	for (int i = 0; i < 9 && rc == 0; i++)
		rc = b[i].oom ? -1 : fmt_writer_add(w, type[i], b[i].data,
						    b[i].len, 3);
	for (int i = 0; i < 9; i++)
		fmt_buf_free(&b[i]);
	fmt_meta_free(&meta);
	free(funcs.f);
	free(consts.name);
	free(cst.sig);
	free(st.st);
	fmt_grammar_free(&g);
	fmt_rankmap_free(&rm);
	return rc;
}

/* ---- where the file goes ---------------------------------------------------- */

static void default_name(char *buf, size_t size, const char *dir)
{
	snprintf(buf, size, "%s%s%s-%s.rondo", dir ? dir : "",
		 dir ? "/" : "", program_invocation_short_name, rt.stamp);
}

/* Writes to RONDO_OUT (a file, or a directory to put the file in), else
 * the working directory; when that fails, says why and tries the working
 * directory, then /tmp. */
static int job_save(struct fmt_writer *w, char *path, size_t size)
{
	struct stat st;
	char why[512];

	if (rt.out[0] && stat(rt.out, &st) == 0 && S_ISDIR(st.st_mode))
		default_name(path, size, rt.out);
	else if (rt.out[0])
		snprintf(path, size, "%s", rt.out);
	else
		default_name(path, size, NULL);
	if (fmt_writer_save(w, path, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "rondo: cannot write the trace: %s\n", why);
	default_name(path, size, NULL);
	if (fmt_writer_save(w, path, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "rondo: cannot write the trace: %s\n", why);
	default_name(path, size, "/tmp");
	if (fmt_writer_save(w, path, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "rondo: cannot write the trace: %s; no trace kept\n",
		why);
	return -1;
}

/* Rank 0: merges what every rank sent and writes the file. */
static void job_write(const uint8_t *all, const int *len, const int *displ)
{
	struct job j = {merge_create()};
	struct fmt_writer w;
	struct stat st;
	char path[PATH_MAX + 64];
	int rc;

	j.time_at = calloc((size_t)rt.size + 1, sizeof(*j.time_at));
	rc = j.m && j.time_at ? 0 : -1;

	fmt_writer_init(&w);
	if (rc == 0)
		job_comm_lists(&j, all, len, displ);
	j.rel = relative_create();
	if (rc == 0 && !j.oom)
		job_observe(&j, all, len, displ);
	for (int r = 0; r < rt.size && rc == 0 && !j.oom; r++)
		rc = job_add_rank(&j, all + displ[r], (size_t)len[r]);
	if (rc == 0 && !j.oom)
		rc = job_sections(&j, &w);
	else
		rc = -1;
	if (rc < 0)
		fprintf(stderr, "rondo: out of memory while merging the ranks' "
				"traces; no trace written\n");
	else if (job_save(&w, path, sizeof(path)) == 0)
		fprintf(stderr, "rondo: %s: %lld bytes, %llu MPI calls, %u "
				"signatures, %d ranks\n",
			path, stat(path, &st) == 0 ? (long long)st.st_size : -1,
			(unsigned long long)j.calls, merge_cst(j.m)->n, rt.size);
	fmt_writer_free(&w);
	relative_free(j.rel);
	merge_free(j.m);
	free(j.stat);
	hmap_free(&j.comm_id);
	fmt_comms_free(&j.comms);
	free(j.time_at);
	free(j.time_sig);
	free(j.time_code);
}

void output_write(void)
{
	struct fmt_buf mine = {0};
	int len, *lens = NULL, *displ = NULL;
	uint8_t *all = NULL;
	size_t total = 0;

	/* RONDO_VERBOSE=1: rank 0's own figures; 2: every rank's */
	if (rt.verbose > 1 || (rt.verbose == 1 && rt.rank == 0))
		fprintf(stderr, "rondo: rank %d: %llu MPI calls, %u signatures, "
				"%llu calls with kept argument bytes, grammar "
				"%zu bytes in memory\n", rt.rank,
			(unsigned long long)rt.ncalls, rt.nsig,
			(unsigned long long)rt.memo_hits,
			grammar_memory(rt.g));
	if (local_encode(&mine) < 0 || mine.len > INT_MAX) {
		/* Still take part in the gather: an empty contribution
		 * marks this rank as failed. */
		mine.len = 0;
	}
	len = (int)mine.len;
	if (rt.rank == 0) {
		lens = calloc((size_t)rt.size, sizeof(int));
		displ = calloc((size_t)rt.size, sizeof(int));
	}
	PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, rt.world);
	if (rt.rank == 0 && lens && displ) {
		for (int r = 0; r < rt.size; r++) {
			displ[r] = (int)total;
			total += (size_t)lens[r];
		}
		all = total <= INT_MAX ? malloc(total + 1) : NULL;
	}
	PMPI_Gatherv(mine.data, len, MPI_BYTE, all, lens, displ, MPI_BYTE, 0,
		     rt.world);
	if (rt.rank == 0) {
		if (all)
			job_write(all, lens, displ);
		else
			fprintf(stderr, "rondo: the ranks' tables (%zu bytes) "
					"do not fit in memory on rank 0; no "
					"trace written\n", total);
	}
	free(all);
	free(lens);
	free(displ);
	fmt_buf_free(&mine);
}
