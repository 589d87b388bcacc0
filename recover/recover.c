/*
 * recover.c - `rondo recover`: the spill files of a job's ranks read back
 * (tracer/spill_fmt.h), each rank's signatures, statistics and
 * communicators rebuilt and its grammar made again from its stream of
 * calls with the tracer's own engine, then the ranks merged as
 * MPI_Finalize merges them (relative.c, merge.c) and the file made with
 * the same sections (job.c).  The metadata says how each rank ended.
 *
 * Every spill file is untrusted input: lengths and counts are checked, a
 * record whose check fails ends the rank's part there, and values that
 * name what does not exist make the rank count as failed (its calls
 * missing), never a crash.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zstd.h>

#include "after.h"
#include "fileio.h"
#include "grammar.h"
#include "job.h"
#include "merge.h"
#include "recover.h"
#include "relative.h"
#include "spill_fmt.h"
#include "util.h"

/* A spill file is read whole: past this, it is refused. */
#define SPILL_MAX ((size_t)1 << 34)
#define MAX_DIMS  8
#define MAX_BIND  8

struct chunk {
	uint8_t coding;
	uint8_t planes; /* SPILL_ZSTD_PLANES: bytes per value */
	uint32_t nvalues;
	const uint8_t *p;
	size_t len;
};

struct comm {
	uint64_t key;
	int64_t me;
	uint32_t n, first, ndims;
	uint32_t dims[MAX_DIMS];
	uint8_t periodic[MAX_DIMS];
	const uint8_t *world; /* n little-endian int32, or NULL */
};

/* One rank, as its file says. */
struct rank {
	char *path;
	char *err; /* why it cannot be read */
	uint8_t *data;
	size_t size;
	int damaged; /* its file ends in a damaged or cut record */
	/* HEAD */
	uint32_t rank, nranks;
	uint64_t key, wall;
	char *stamp, *start, *program, *command, *host, *mpi, *mpi_version,
		*settings;
	uint32_t flags, timing; /* timing: 1 per call (as 1.7 on) */
	int times_other;	/* per call, of another encoding */
	int times_bad;		/* per call, codes out of the scale */
	double base;
	int64_t origin; /* of its per-call times, from its start, ns */
	/* CONSTS */
	uint32_t nconsts;
	char **consts;
	int64_t *csize;
	/* FUNCS, SIGS, COMMS, STATS, CHUNK */
	struct fmt_func *funcs;
	uint32_t nfuncs; /* ids below this may be named */
	struct fmt_sig *sigs;
	uint32_t nsig;
	size_t capsig;
	struct comm *comms;
	uint32_t ncomms;
	size_t capcomms;
	rondo_stat *stats;
	size_t capstats;
	rondo_stat *gaps; /* the time before calls (SPILL_GAPS) */
	size_t capgaps;
	struct chunk *chunks[SPILL_NSTREAMS];
	uint32_t nchunks[SPILL_NSTREAMS];
	size_t capchunks[SPILL_NSTREAMS];
	/* the last MARK or END */
	int marked, how;
	uint64_t ncalls, ntimed, wall_end, mono_end, bind[MAX_BIND], failed;
	uint32_t nbind, inside;
	int64_t code;
	/* rebuilt */
	struct fmt_cst cst;
	struct fmt_grammar g;
	struct fmt_buf tbytes; /* per-call times, coded */
	uint64_t tcalls;
	struct fmt_stats st, gst;
	struct fmt_buf bytes;
	int bad; /* could not be rebuilt: counted as failed */
};

struct job_in {
	struct rank *r;
	uint32_t n;
	size_t cap;
	struct rank *after; /* the after files, apart */
	uint32_t nafter;
	struct rank **by_rank; /* nranks entries, NULL: missing */
	uint32_t nranks;
	struct job_names nm;
	struct fmt_func *funcs;
	recover_say_fn say;
	void *ctx;
	char *why;
	size_t whylen;
};

static void say(struct job_in *J, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct job_in *J, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (J->say)
		J->say(J->ctx, line);
}

static int fail(struct job_in *J, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct job_in *J, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(J->why, J->whylen, fmt, ap);
	va_end(ap);
	return code;
}

/* ---- reading one file ---------------------------------------------------- */

static int take(struct fmt_cur *c, size_t n, const uint8_t **p)
{
	if (c->len - c->pos < n)
		return RONDO_E_TRUNCATED;
	*p = c->p + c->pos;
	c->pos += n;
	return 0;
}

static int get_u32(struct fmt_cur *c, uint32_t *v)
{
	uint64_t u;
	int rc = fmt_get_uvarint(c, &u);

	if (rc == 0 && u > UINT32_MAX)
		rc = RONDO_E_CORRUPT;
	*v = (uint32_t)u;
	return rc;
}

static int get_str(struct fmt_cur *c, char **s)
{
	const uint8_t *p;
	size_t n;
	int rc = fmt_get_bytes(c, &p, &n);

	if (rc)
		return rc;
	free(*s);
	*s = strndup((const char *)p, n);
	return *s ? 0 : RONDO_E_NOMEM;
}

static int read_head(struct rank *r, struct fmt_cur *c)
{
	uint64_t version, rank, n;
	int rc = fmt_get_uvarint(c, &version);

	if (rc == 0 && (version < SPILL_VERSION_MIN || version > SPILL_VERSION))
		return RONDO_E_VERSION;
	if (rc || (rc = fmt_get_uvarint(c, &rank)) ||
	    (rc = fmt_get_uvarint(c, &n)) ||
	    (rc = fmt_get_uvarint(c, &version)))
		return rc;
	if (n == 0 || n > (1u << 24) || rank >= n)
		return RONDO_E_CORRUPT;
	r->rank = (uint32_t)rank;
	r->nranks = (uint32_t)n;
	if ((rc = fmt_get_le64(c, &r->key)) || (rc = get_str(c, &r->stamp)) ||
	    (rc = get_str(c, &r->start)) ||
	    (rc = fmt_get_uvarint(c, &r->wall)) ||
	    (rc = get_str(c, &r->program)) || (rc = get_str(c, &r->command)) ||
	    (rc = get_str(c, &r->host)) || (rc = get_str(c, &r->mpi)) ||
	    (rc = get_str(c, &r->mpi_version)) ||
	    (rc = get_str(c, &r->settings)) || (rc = get_u32(c, &r->flags)) ||
	    (rc = get_u32(c, &r->timing)) || (rc = fmt_get_f64(c, &r->base)) ||
	    (rc = fmt_get_svarint(c, &r->origin)))
		return rc;
	if (r->timing &&
	    !(r->base >= RONDO_TIME_BASE_MIN && r->base <= RONDO_TIME_BASE_MAX))
		return RONDO_E_CORRUPT;
	/* per-call times of another encoding are left out (said) */
	r->times_other = r->timing && r->timing != SPILL_TIMING_FROM_LOW;
	r->timing = r->timing == SPILL_TIMING_FROM_LOW;
	return 0;
}

static int read_consts(struct rank *r, struct fmt_cur *c)
{
	while (c->pos < c->len) {
		int64_t size;
		char *name = NULL, **cn;
		int64_t *cs;
		int rc = get_str(c, &name);

		if (rc || (rc = fmt_get_svarint(c, &size))) {
			free(name);
			return rc;
		}
		cn = realloc(r->consts, sizeof(*cn) * (r->nconsts + 1));
		if (cn)
			r->consts = cn;
		cs = realloc(r->csize, sizeof(*cs) * (r->nconsts + 1));
		if (cs)
			r->csize = cs;
		if (!cn || !cs) {
			free(name);
			return RONDO_E_NOMEM;
		}
		r->consts[r->nconsts] = name;
		r->csize[r->nconsts++] = size;
	}
	return 0;
}

static int read_funcs(struct rank *r, struct fmt_cur *c)
{
	while (c->pos < c->len) {
		uint32_t id, np;
		struct fmt_func f = {0};
		int rc = get_u32(c, &id);

		if (rc || (rc = get_str(c, &f.name)) ||
		    (rc = fmt_get_count(c, &np, 2)))
			goto bad;
		if (id >= (1u << 16)) {
			rc = RONDO_E_CORRUPT;
			goto bad;
		}
		f.params = calloc(np + 1, sizeof(char *));
		f.flags = calloc(np + 1, 1);
		if (!f.params || !f.flags) {
			rc = RONDO_E_NOMEM;
			goto bad;
		}
		f.nparams = np;
		for (uint32_t k = 0; k < np; k++)
			if ((rc = get_str(c, &f.params[k])) ||
			    (rc = fmt_get_u8(c, &f.flags[k])))
				goto bad;
		if (id >= r->nfuncs) {
			struct fmt_func *nf = realloc(
				r->funcs, sizeof(*nf) * ((size_t)id + 1));

			if (!nf) {
				rc = RONDO_E_NOMEM;
				goto bad;
			}
			memset(nf + r->nfuncs, 0,
			       sizeof(*nf) * (id + 1 - r->nfuncs));
			r->funcs = nf;
			r->nfuncs = id + 1;
		}
		if (r->funcs[id].name) { /* named twice: keep the first */
			for (uint32_t k = 0; k < np; k++)
				free(f.params[k]);
			free(f.params);
			free(f.flags);
			free(f.name);
			continue;
		}
		r->funcs[id] = f;
		continue;
	bad:
		for (uint32_t k = 0; f.params && k < f.nparams; k++)
			free(f.params[k]);
		free(f.params);
		free(f.flags);
		free(f.name);
		return rc;
	}
	return 0;
}

static int read_sigs(struct rank *r, struct fmt_cur *c)
{
	while (c->pos < c->len) {
		struct fmt_sig s;
		const uint8_t *p;
		int rc;

		if ((rc = get_u32(c, &s.func)) || (rc = get_u32(c, &s.nargs)) ||
		    (rc = get_u32(c, &s.len)) || (rc = take(c, s.len, &p)))
			return rc;
		s.args = (uint8_t *)p;
		if (util_grow(&r->sigs, &r->capsig, (size_t)r->nsig + 1,
			      sizeof(s)) < 0)
			return RONDO_E_NOMEM;
		r->sigs[r->nsig++] = s;
	}
	return 0;
}

static int read_comms(struct rank *r, struct fmt_cur *c)
{
	while (c->pos < c->len) {
		struct comm m = {0};
		uint8_t has;
		int rc;

		if ((rc = fmt_get_le64(c, &m.key)) ||
		    (rc = fmt_get_svarint(c, &m.me)) ||
		    (rc = get_u32(c, &m.n)) || (rc = get_u32(c, &m.first)) ||
		    (rc = get_u32(c, &m.ndims)))
			return rc;
		if (m.ndims > MAX_DIMS || m.first > m.n)
			return RONDO_E_CORRUPT;
		for (uint32_t k = 0; k < m.ndims; k++)
			if ((rc = get_u32(c, &m.dims[k])) ||
			    (rc = fmt_get_u8(c, &m.periodic[k])))
				return rc;
		if ((rc = fmt_get_u8(c, &has)) ||
		    (has && (rc = take(c, (size_t)m.n * 4, &m.world))))
			return rc;
		if (util_grow(&r->comms, &r->capcomms, (size_t)r->ncomms + 1,
			      sizeof(m)) < 0)
			return RONDO_E_NOMEM;
		r->comms[r->ncomms++] = m;
	}
	return 0;
}

/* Statistics records into *v (of capacity *cap), by signature. */
static int read_stats(rondo_stat **v, size_t *cap, struct fmt_cur *c)
{
	while (c->pos < c->len) {
		rondo_stat s = {0};
		uint32_t sig, bins;
		uint64_t total = 0;
		int rc;

		if ((rc = get_u32(c, &sig)) ||
		    (rc = fmt_get_uvarint(c, &s.count)) ||
		    (rc = fmt_get_uvarint(c, &s.total_ns)) ||
		    (rc = fmt_get_uvarint(c, &s.min_ns)) ||
		    (rc = fmt_get_uvarint(c, &s.max_ns)) ||
		    (rc = fmt_get_f64(c, &s.sumsq_ns2)) ||
		    (rc = fmt_get_count(c, &bins, 2)))
			return rc;
		for (uint32_t k = 0; k < bins; k++) {
			uint32_t b;
			uint64_t n;

			if ((rc = get_u32(c, &b)) ||
			    (rc = fmt_get_uvarint(c, &n)))
				return rc;
			if (b >= RONDO_HIST_BINS)
				return RONDO_E_CORRUPT;
			s.hist[b] = n;
			total += n;
		}
		if (total != s.count || s.min_ns > s.max_ns)
			return RONDO_E_CORRUPT;
		if (sig >= *cap) {
			size_t had = *cap;

			if (util_grow(v, cap, (size_t)sig + 1, sizeof(s)) < 0)
				return RONDO_E_NOMEM;
			memset(*v + had, 0, sizeof(s) * (*cap - had));
		}
		(*v)[sig] = s;
	}
	return 0;
}

static int read_chunk(struct rank *r, struct fmt_cur *c)
{
	struct chunk k;
	uint32_t stream;
	int rc;

	if ((rc = get_u32(c, &stream)) || (rc = get_u32(c, &k.nvalues)) ||
	    (rc = fmt_get_u8(c, &k.coding)))
		return rc;
	if (stream >= SPILL_NSTREAMS || k.coding > SPILL_ZSTD_PLANES ||
	    (k.coding == SPILL_RAW && c->len - c->pos != (size_t)k.nvalues * 4))
		return RONDO_E_CORRUPT;
	if (k.coding == SPILL_ZSTD_PLANES &&
	    ((rc = fmt_get_u8(c, &k.planes)) || k.planes < 1 || k.planes > 4))
		return rc ? rc : RONDO_E_CORRUPT;
	k.p = c->p + c->pos;
	k.len = c->len - c->pos;
	c->pos = c->len;
	if (util_grow(&r->chunks[stream], &r->capchunks[stream],
		      (size_t)r->nchunks[stream] + 1, sizeof(k)) < 0)
		return RONDO_E_NOMEM;
	r->chunks[stream][r->nchunks[stream]++] = k;
	return 0;
}

static int read_mark(struct rank *r, struct fmt_cur *c, int end)
{
	int rc;

	r->marked = 1;
	r->how = 0;
	r->inside = 0;
	if ((rc = fmt_get_uvarint(c, &r->ncalls)) ||
	    (rc = fmt_get_uvarint(c, &r->ntimed)) ||
	    (rc = fmt_get_uvarint(c, &r->wall_end)) ||
	    (rc = fmt_get_uvarint(c, &r->mono_end)) ||
	    (rc = fmt_get_count(c, &r->nbind, 1)))
		return rc;
	for (uint32_t b = 0; b < r->nbind; b++) {
		uint64_t v;

		if ((rc = fmt_get_uvarint(c, &v)))
			return rc;
		if (b < MAX_BIND)
			r->bind[b] = v;
	}
	if ((rc = fmt_get_uvarint(c, &r->failed)))
		return rc;
	if (end) {
		uint64_t how;

		if ((rc = fmt_get_uvarint(c, &how)) ||
		    (rc = fmt_get_svarint(c, &r->code)) ||
		    (rc = get_u32(c, &r->inside)))
			return rc;
		if (how == 0 || how >= SPILL_NEND)
			return RONDO_E_CORRUPT;
		r->how = (int)how;
	}
	return 0;
}

static int read_record(struct rank *r, uint32_t type, const uint8_t *p,
		       size_t n, int *have_head)
{
	struct fmt_cur c;

	fmt_cur_init(&c, p, n, NULL, NULL);
	if (!*have_head && type != SPILL_HEAD)
		return RONDO_E_CORRUPT;
	switch (type) {
	case SPILL_HEAD:
		if (*have_head)
			return RONDO_E_CORRUPT;
		*have_head = 1;
		return read_head(r, &c);
	case SPILL_CONSTS: return read_consts(r, &c);
	case SPILL_FUNCS: return read_funcs(r, &c);
	case SPILL_SIGS: return read_sigs(r, &c);
	case SPILL_COMMS: return read_comms(r, &c);
	case SPILL_STATS: return read_stats(&r->stats, &r->capstats, &c);
	case SPILL_GAPS: return read_stats(&r->gaps, &r->capgaps, &c);
	case SPILL_CHUNK: return read_chunk(r, &c);
	case SPILL_MARK: return read_mark(r, &c, 0);
	case SPILL_END: return read_mark(r, &c, 1);
	default: return 0; /* a later version's: skipped */
	}
}

/* Reads r->path: everything up to its last MARK or END. */
static int read_file(struct job_in *J, struct rank *r)
{
	char why[256];
	size_t at = 8, commit = 0;
	uint32_t type;
	const uint8_t *p;
	size_t n;
	int rc, have_head = 0;

	rc = fileio_read(r->path, SPILL_MAX, &r->data, &r->size, why,
			 sizeof(why));
	if (rc)
		return fail(J, rc == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO,
			    "%s: %s", r->path, why);
	if (r->size < 8 || memcmp(r->data, SPILL_MAGIC, 8) != 0)
		return fail(J, RONDO_E_NOTRONDO, "%s: not a rondo spill file",
			    r->path);
	/* the last consistent point */
	while ((rc = spill_next(r->data, r->size, &at, &type, &p, &n)) == 0)
		if (type == SPILL_MARK || type == SPILL_END)
			commit = at;
	r->damaged = rc < 0;
	if (!commit)
		return fail(J, rc < 0 ? rc : RONDO_E_TRUNCATED, "%s: %s",
			    r->path,
			    rc < 0 ? "damaged before its first complete spill"
				   : "no complete spill in it");
	at = 8;
	while (at < commit &&
	       spill_next(r->data, commit, &at, &type, &p, &n) == 0)
		if ((rc = read_record(r, type, p, n, &have_head)) != 0)
			return fail(J, rc, "%s: a damaged %s record", r->path,
				    rc == RONDO_E_NOMEM ? "(memory)" : "spill");
	return 0;
}

/* ---- finding the files --------------------------------------------------- */

static int add_file(struct job_in *J, const char *path)
{
	struct rank *r;

	if (util_grow(&J->r, &J->cap, (size_t)J->n + 1, sizeof(*J->r)) < 0)
		return RONDO_E_NOMEM;
	r = &J->r[J->n];
	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	if (!r->path)
		return RONDO_E_NOMEM;
	J->n++;
	return 0;
}

/* rank-N.spill, and rank-N.after (the calls after MPI_Finalize) */
static int is_spill_name(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && name[0] != '.' &&
	       (!strcmp(name + n - 6, ".spill") ||
		!strcmp(name + n - 6, ".after"));
}

static int add_input(struct job_in *J, const char *in)
{
	struct stat st;
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (stat(in, &st) < 0)
		return fail(J, RONDO_E_IO, "%s: %s", in, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return add_file(J, in);
	d = opendir(in);
	if (!d)
		return fail(J, RONDO_E_IO, "%s: %s", in, strerror(errno));
	while (rc == 0 && (e = readdir(d))) {
		char path[4096];

		if (!is_spill_name(e->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", in, e->d_name);
		rc = add_file(J, path);
	}
	closedir(d);
	return rc;
}

/* ---- one job ------------------------------------------------------------- */

/* Keeps the files of the job started last (its key), says which others
 * are left out, and files them by rank. */
static int pick_job(struct job_in *J)
{
	struct rank *latest = NULL;

	for (uint32_t i = 0; i < J->n; i++)
		if (!latest || J->r[i].wall > latest->wall)
			latest = &J->r[i];
	J->nranks = latest->nranks;
	J->by_rank = calloc(J->nranks, sizeof(*J->by_rank));
	if (!J->by_rank)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; i < J->n; i++) {
		struct rank *r = &J->r[i];

		if (r->key != latest->key || r->nranks != latest->nranks) {
			say(J, "%s: another job's (started %s): left out",
			    r->path, r->start ? r->start : "?");
			r->bad = -1;
		} else if (J->by_rank[r->rank]) {
			say(J, "%s: rank %u again: left out", r->path, r->rank);
			r->bad = -1;
		} else {
			J->by_rank[r->rank] = r;
		}
	}
	return 0;
}

/* The functions and constants the ranks name: one table, the same in
 * every file (they come from one tracer). */
static int names(struct job_in *J)
{
	const struct rank *first = NULL;
	uint32_t nf = 0;

	for (uint32_t k = 0; k < J->nranks; k++) {
		const struct rank *r = J->by_rank[k];

		if (!r)
			continue;
		if (!first)
			first = r;
		if (r->nconsts != first->nconsts)
			return fail(J, RONDO_E_CORRUPT,
				    "%s and %s come from different tracers",
				    first->path, r->path);
		nf = r->nfuncs > nf ? r->nfuncs : nf;
	}
	J->funcs = calloc((size_t)nf + 1, sizeof(*J->funcs));
	if (!J->funcs)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < J->nranks; k++) {
		const struct rank *r = J->by_rank[k];

		for (uint32_t f = 0; r && f < r->nfuncs; f++) {
			if (!r->funcs[f].name)
				continue;
			if (J->funcs[f].name &&
			    strcmp(J->funcs[f].name, r->funcs[f].name))
				return fail(J, RONDO_E_CORRUPT,
					    "%s and %s come from different "
					    "tracers",
					    first->path, r->path);
			J->funcs[f] = r->funcs[f];
		}
	}
	J->nm = (struct job_names){nf, J->funcs, first->nconsts,
				   (const char *const *)first->consts,
				   first->csize};
	return 0;
}

/* The values of a chunk of byte planes into v (0, or -1). */
static int unplane(const struct chunk *c, uint32_t *v)
{
	size_t n = c->nvalues, want = n * c->planes;
	uint8_t *p = malloc(want + 1);

	if (!p || ZSTD_decompress(p, want, c->p, c->len) != want) {
		free(p);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t x = 0;

		for (unsigned b = 0; b < c->planes; b++)
			x |= (uint32_t)p[b * n + i] << (8 * b);
		v[i] = x;
	}
	free(p);
	return 0;
}

/* A stream's values, in order (malloc'd), or NULL (*n the count). */
static uint32_t *stream_values(const struct rank *r, int s, uint64_t *n)
{
	uint64_t total = 0, at = 0;
	uint32_t *v;

	for (uint32_t k = 0; k < r->nchunks[s]; k++)
		total += r->chunks[s][k].nvalues;
	*n = total;
	v = malloc(sizeof(uint32_t) * (total + 1));
	if (!v)
		return NULL;
	for (uint32_t k = 0; k < r->nchunks[s]; k++) {
		const struct chunk *c = &r->chunks[s][k];
		size_t want = (size_t)c->nvalues * 4;

		if (c->coding == SPILL_RAW)
			memcpy(v + at, c->p, want);
		else if (c->coding == SPILL_ZSTD_PLANES) {
			if (unplane(c, v + at) < 0) {
				free(v);
				return NULL;
			}
		} else if (ZSTD_decompress(v + at, want, c->p, c->len) !=
			   want) {
			free(v);
			return NULL;
		}
		at += c->nvalues;
	}
	return v;
}

/* A grammar over the values, made by the tracer's engine; every value
 * must be below limit. */
static int grammar_of(const uint32_t *v, uint64_t n, uint32_t limit,
		      struct fmt_grammar *out)
{
	struct grammar *g = grammar_create();
	int rc = g ? 0 : RONDO_E_NOMEM;

	for (uint64_t i = 0; i < n && rc == 0;) {
		uint64_t k = 1;

		if (v[i] >= limit || v[i] > GRAMMAR_MAX_TERMINAL) {
			rc = RONDO_E_CORRUPT;
			break;
		}
		while (i + k < n && v[i + k] == v[i])
			k++;
		rc = grammar_append(g, v[i], k);
		i += k;
	}
	if (rc == 0 && n > 0) {
		rc = grammar_flush(g);
		if (rc == 0)
			rc = grammar_export(g, out);
	}
	grammar_free(g);
	return rc;
}

/* Whether every code of d and i (n each) is one of base's scale: 1, 0,
 * or RONDO_E_NOMEM. */
static int codes_fit(const uint32_t *d, const uint32_t *i, uint64_t n,
		     double base)
{
	struct fmt_tscale sc;
	uint32_t limit;

	if (fmt_tscale_init(&sc, base) < 0)
		return RONDO_E_NOMEM;
	limit = fmt_tcode_limit(&sc);
	fmt_tscale_free(&sc);
	for (uint64_t k = 0; k < n; k++)
		if (d[k] >= limit || i[k] >= limit)
			return 0;
	return 1;
}

/* Per-call times: two streams of codes, one pair per timed call, the
 * first ntimed of the n calls of signatures sig, coded as the tracer
 * codes them (fmt_tstream). */
static int times_of(struct rank *r, const uint32_t *sig, uint64_t n)
{
	uint64_t nd, ni;
	uint32_t *d, *i;
	int rc, fit;

	if (!r->timing || r->ntimed == 0)
		return 0;
	d = stream_values(r, SPILL_DURATIONS, &nd);
	i = stream_values(r, SPILL_INTERVALS, &ni);
	rc = !d || !i || nd != ni || nd != r->ntimed || nd > n ? RONDO_E_CORRUPT
							       : 0;
	fit = rc ? 0 : codes_fit(d, i, nd, r->base);
	if (fit < 0)
		rc = fit;
	if (rc == 0 && !fit) {
		/* codes no tracer of this base writes: the calls are
		 * whole, their times left out (and said) */
		r->timing = 0;
		r->times_bad = 1;
	} else if (rc == 0) {
		rc = fmt_tstream_code(&r->tbytes, nd, sig, d, i, 0);
	}
	free(d);
	free(i);
	if (rc == 0 && r->timing)
		r->tcalls = nd;
	return rc;
}

/* The rank's tables and grammars from what its file holds. */
static int rebuild(struct rank *r)
{
	uint64_t n;
	uint32_t *v = stream_values(r, SPILL_CALLS, &n);
	int rc;
	size_t was, now;

	if (!v)
		return RONDO_E_CORRUPT;
	if (n != r->ncalls) {
		free(v);
		return RONDO_E_CORRUPT;
	}
	r->cst = (struct fmt_cst){r->nsig, r->sigs, NULL};
	rc = grammar_of(v, n, r->nsig, &r->g);
	rc = rc ? rc : times_of(r, v, n);
	free(v);
	if (rc)
		return rc;
	for (uint32_t s = 0; s < r->nsig; s++)
		if (r->sigs[s].func >= r->nfuncs ||
		    !r->funcs[r->sigs[s].func].name)
			return RONDO_E_CORRUPT;
	job_reshape(&r->g, r->nsig, &was, &now);
	r->st.st = calloc((size_t)r->nsig + 1, sizeof(*r->st.st));
	r->gst.st = calloc((size_t)r->nsig + 1, sizeof(*r->gst.st));
	if (!r->st.st || !r->gst.st)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < r->nsig && s < r->capstats; s++)
		if (r->stats[s].count)
			r->st.st[r->st.n++] = (struct fmt_stat){s, r->stats[s]};
	for (uint32_t s = 0; s < r->nsig && s < r->capgaps; s++)
		if (r->gaps[s].count)
			r->gst.st[r->gst.n++] =
				(struct fmt_stat){s, r->gaps[s]};
	return 0;
}

/* The caller's rank in a communicator its signatures name (relative.h). */
static int64_t rank_me(void *ctx, uint32_t kind, uint64_t value)
{
	const struct rank *r = ((void **)ctx)[0];
	const struct job_names *nm = ((void **)ctx)[1];

	if (kind == RONDO_ARG_COMM) {
		for (uint32_t k = 0; k < r->ncomms; k++)
			if (r->comms[k].key == value)
				return r->comms[k].me;
		return -1;
	}
	if (kind != RONDO_ARG_CONST || value >= nm->nconsts ||
	    !nm->consts[value])
		return -1;
	if (!strcmp(nm->consts[value], "MPI_COMM_WORLD"))
		return r->rank;
	return !strcmp(nm->consts[value], "MPI_COMM_SELF") ? 0 : -1;
}

static int add_comms(struct merge *m, const struct rank *r, uint32_t nranks)
{
	for (uint32_t k = 0; k < r->ncomms; k++) {
		const struct comm *c = &r->comms[k];
		struct fmt_comm fc = {c->n, c->first, NULL};
		struct fmt_topo t = {0, c->ndims, (uint32_t *)c->dims,
				     (uint8_t *)c->periodic};
		int rc;

		if (!c->world)
			continue;
		fc.world = malloc(sizeof(uint32_t) * ((size_t)c->n + 1));
		if (!fc.world)
			return RONDO_E_NOMEM;
		for (uint32_t i = 0; i < c->n; i++) {
			const uint8_t *p = c->world + 4 * (size_t)i;

			fc.world[i] = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
				      (uint32_t)p[2] << 16 |
				      (uint32_t)p[3] << 24;
			if (fc.world[i] >= nranks) {
				free(fc.world);
				return RONDO_E_CORRUPT;
			}
		}
		rc = merge_add_comm(m, c->key, &fc, &t);
		free(fc.world);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- how each rank ended --------------------------------------------------- */

static void hms(char *buf, size_t size, uint64_t wall_ns)
{
	time_t t = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(buf, size, "%H:%M:%S", &tm);
	else
		snprintf(buf, size, "?");
}

/* What one rank's file says of its end; end: the job's last moment. */
static void ending(const struct job_in *J, const struct rank *r, uint64_t end,
		   char *buf, size_t size)
{
	char at[16];
	const char *in = r->inside && r->inside - 1 < J->nm.nfuncs &&
					 J->funcs[r->inside - 1].name
				 ? J->funcs[r->inside - 1].name
				 : NULL;

	switch (r->how) {
	case SPILL_END_SIGNAL: {
		const char *abbrev = sigabbrev_np((int)r->code);

		snprintf(buf, size, "signal %lld (SIG%s)%s%s",
			 (long long)r->code, abbrev ? abbrev : "?",
			 in ? " inside " : "", in ? in : "");
		break;
	}
	case SPILL_END_ABORT:
		snprintf(buf, size, "MPI_Abort(errorcode=%lld)",
			 (long long)r->code);
		break;
	case SPILL_END_EXIT:
		snprintf(buf, size, "exit(%lld) without MPI_Finalize",
			 (long long)r->code);
		break;
	case SPILL_END_FINALIZE:
		snprintf(buf, size, "in MPI_Finalize, the trace not written");
		break;
	case SPILL_END_KEPT:
		snprintf(buf, size,
			 "MPI_Finalize (the job's trace kept calls past "
			 "RONDO_MEMORY_LIMIT as counts; here in order)");
		break;
	default:
		hms(at, sizeof(at), r->wall_end);
		snprintf(buf, size,
			 "no word after its last spill at %s, %.0f s before "
			 "the end",
			 at,
			 end > r->wall_end ? (double)(end - r->wall_end) / 1e9
					   : 0.0);
	}
}

/* The job's end: each distinct ending, with the ranks it was theirs;
 * the ranks with no file after them; and in cut, the same for the ranks
 * whose record was cut short, a line each: "RANKS<tab>ENDING" (the meta
 * key "cut", which `rondo dump` shows after a rank's last call). */
static int endings_text(const struct job_in *J, char *out, size_t size,
			char *missing, size_t msize, char *cut, size_t csize)
{
	char(*text)[160] = calloc(J->nranks, sizeof(*text));
	uint32_t *ks = malloc(sizeof(uint32_t) * (J->nranks + 1)), nk;
	uint8_t *done = calloc(J->nranks + 1, 1);
	uint64_t end = 0;

	if (!text || !ks || !done) {
		free(text);
		free(ks);
		free(done);
		return RONDO_E_NOMEM;
	}
	out[0] = missing[0] = cut[0] = '\0';
	for (uint32_t k = 0; k < J->nranks; k++)
		if (J->by_rank[k] && J->by_rank[k]->wall_end > end)
			end = J->by_rank[k]->wall_end;
	for (uint32_t k = 0; k < J->nranks; k++)
		if (J->by_rank[k])
			ending(J, J->by_rank[k], end, text[k], sizeof(text[k]));
	nk = 0;
	for (uint32_t k = 0; k < J->nranks; k++)
		if (!J->by_rank[k])
			ks[nk++] = k;
	if (nk) {
		snprintf(missing, msize, "no spill file from rank%s ",
			 nk > 1 ? "s" : "");
		util_put_ranks(missing, msize, ks, nk);
		snprintf(missing + strlen(missing), msize - strlen(missing),
			 ": their calls are missing");
	}
	for (uint32_t k = 0; k < J->nranks; k++) {
		size_t len = strlen(out);

		if (!J->by_rank[k] || done[k])
			continue;
		nk = 0;
		for (uint32_t q = k; q < J->nranks; q++)
			if (J->by_rank[q] && !done[q] &&
			    !strcmp(text[q], text[k])) {
				ks[nk++] = q;
				done[q] = 1;
			}
		snprintf(out + len, size - len, "%s%s on rank%s ",
			 len ? "; " : "", text[k], nk > 1 ? "s" : "");
		util_put_ranks(out, size, ks, nk);
		if (J->by_rank[k]->how == SPILL_END_KEPT)
			continue; /* it ended well */
		len = strlen(cut);
		if (len < csize) {
			util_put_ranks(cut, csize, ks, nk);
			len = strlen(cut);
			snprintf(cut + len, csize - len, "\t%s\n", text[k]);
		}
	}
	free(text);
	free(ks);
	free(done);
	return 0;
}

/* ---- the file ------------------------------------------------------------ */

struct meta_ctx {
	struct job_in *J;
	struct merge *m;
	const char *ended, *missing, *cut;
	uint32_t files;
};

static void recover_meta(struct fmt_meta *m, void *arg)
{
	struct meta_ctx *x = arg;
	struct job_in *J = x->J;
	const struct rank *r0 = NULL;
	uint64_t calls[JOB_NBIND] = {0}, ranks[JOB_NBIND] = {0}, dur = 0;
	struct job_facts f;
	char buf[4096];

	for (uint32_t k = 0; k < J->nranks; k++) {
		const struct rank *r = J->by_rank[k];

		if (!r)
			continue;
		if (!r0)
			r0 = r;
		dur = r->mono_end > dur ? r->mono_end : dur;
		for (uint32_t b = 0; b < JOB_NBIND && b < r->nbind; b++) {
			calls[b] += r->bind[b];
			ranks[b] += r->bind[b] > 0;
		}
	}
	job_bindings_text(buf, sizeof(buf), calls, ranks);
	f = (struct job_facts){
		r0->program,
		r0->command,
		r0->mpi,
		r0->mpi_version,
		buf,
		r0->host,
		r0->start,
		r0->flags & 2 ? "MPI-4 sessions: the trace starts at the first "
				"MPI_Session_init"
		: r0->flags & 1 ? "not seen: the trace starts at the first "
				  "call made with MPI up"
				: NULL,
		r0->settings,
		"recovered offline: each node's wall clock",
		J->nranks,
		(double)dur / 1e9};
	job_meta_facts(m, &f, x->m);
	snprintf(buf, sizeof(buf),
		 "recovered by rondo recover from %u spill file%s", x->files,
		 x->files == 1 ? "" : "s");
	job_meta_add(m, "merge", buf);
	job_meta_add(m, "ended", x->ended);
	if (x->cut[0])
		job_meta_add(m, "cut", x->cut);
	if (x->missing[0] || merge_failed(x->m)) {
		snprintf(buf, sizeof(buf), "%s%s", x->missing,
			 merge_failed(x->m) && !x->missing[0]
				 ? "ranks whose spill could not be read: "
				   "their calls are missing"
				 : "");
		job_meta_add(m, "incomplete", buf);
	}
}

/* Every rank in order into one merge, as the tree at MPI_Finalize would
 * add them. */
static int merge_job(struct job_in *J, struct merge *m, int64_t *ref)
{
	struct relative *R = relative_create(&J->nm);
	struct fmt_buf d = {0};
	int rc = R ? 0 : RONDO_E_NOMEM;

	*ref = 0;
	for (uint32_t k = 0; k < J->nranks && rc == 0; k++) {
		struct rank *r = J->by_rank[k];
		void *ctx[2] = {r, &J->nm};

		if (r && !r->bad && relative_observe(R, &r->cst, rank_me, ctx))
			rc = RONDO_E_NOMEM;
	}
	if (rc == 0)
		relative_decide(R, &d);
	for (uint32_t k = 0; k < J->nranks && rc == 0; k++) {
		struct rank *r = J->by_rank[k];
		void *ctx[2] = {r, &J->nm};
		const uint8_t *vals;
		size_t nvals;

		if (!r || r->bad) {
			rc = merge_add_failed(m, 1);
			continue;
		}
		if (relative_apply(R, &r->cst, &r->bytes, rank_me, ctx) ||
		    merge_add_rank(m, &r->cst, &r->g, &r->st)) {
			say(J,
			    "%s: its tables do not merge: rank %u counts as "
			    "failed",
			    r->path, k);
			if (merge_ranks(m) == k)
				rc = merge_add_failed(m, 1);
			else
				merge_mark_failed(m, 1);
			continue;
		}
		/* short of memory, only the time before calls is lost */
		(void)merge_add_gaps(m, &r->cst, &r->gst);
		relative_values(R, &vals, &nvals);
		if (merge_add_values(m, vals, nvals) != 0) {
			say(J,
			    "%s: out of memory for its per-rank values: "
			    "rank %u counts as failed",
			    r->path, k);
			merge_mark_failed(m, 1);
		}
		if (r->failed & 1)
			merge_mark_failed(m, 1);
		if (r->times_other)
			say(J,
			    "%s: its per-call times are coded as an older "
			    "tracer coded them (format 1.8 or before): left "
			    "out",
			    r->path);
		if (r->times_bad)
			say(J,
			    "%s: its per-call time codes are out of the scale "
			    "of base %g: left out",
			    r->path, r->base);
		if (r->timing && merge_set_timing(m, r->base) == 0) {
			int64_t origin = (int64_t)r->wall + r->origin;

			if (!*ref)
				*ref = origin;
			merge_add_timing(m, r->tbytes.data, r->tbytes.len,
					 r->tcalls, origin);
		}
		rc = add_comms(m, r, J->nranks);
		if (rc == RONDO_E_CORRUPT) {
			say(J, "%s: its communicators name ranks past the job",
			    r->path);
			rc = 0;
		}
	}
	fmt_buf_free(&d);
	relative_free(R);
	return rc;
}

static int write_trace(struct job_in *J, const char *out)
{
	struct merge *m = merge_create();
	struct meta_ctx x = {J, m, NULL, NULL, 0};
	char ended[4096], missing[1024], cut[4096], why[512];
	struct job j = {0};
	struct fmt_writer w;
	int rc;

	if (!m)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < J->nranks; k++)
		x.files += J->by_rank[k] != NULL;
	rc = endings_text(J, ended, sizeof(ended), missing, sizeof(missing),
			  cut, sizeof(cut));
	x.ended = ended;
	x.missing = missing;
	x.cut = cut;
	j.m = m;
	j.names = &J->nm;
	j.meta = recover_meta;
	j.ctx = &x;
	/* as the tracer would have; a bad value gives the default */
	j.exact_ranks = job_exact_ranks(getenv("RONDO_RANKTIME_EXACT"));
	fmt_writer_init(&w);
	if (rc == 0)
		rc = merge_job(J, m, &j.ref);
	if (rc == 0 && job_sections(&j, &w) < 0)
		rc = RONDO_E_NOMEM;
	if (rc == 0 && fmt_writer_save(&w, out, why, sizeof(why)) != 0)
		rc = fail(J, RONDO_E_IO, "cannot write the trace: %s", why);
	if (rc == 0) {
		say(J,
		    "%s: %llu bytes, %llu MPI calls, %u signatures, %u ranks",
		    out, (unsigned long long)w.saved,
		    (unsigned long long)merge_calls(m), merge_cst(m)->n,
		    J->nranks);
		say(J, "ended: %s", ended);
		if (missing[0])
			say(J, "incomplete: %s", missing);
	}
	fmt_writer_free(&w);
	job_free(&j);
	merge_free(m);
	return rc;
}

/* The after files' calls added to the trace at path (after.h). */
static int add_afters(struct job_in *J, const char *path)
{
	struct after_rank *a = calloc(J->nafter + 1, sizeof(*a));
	uint32_t **calls = calloc(3 * (J->nafter + 1), sizeof(*calls));
	int rc = a && calls ? 0 : RONDO_E_NOMEM;

	for (uint32_t i = 0; i < J->nafter && rc == 0; i++) {
		const struct rank *r = &J->after[i];
		uint32_t **d = calls + J->nafter + 1 + 2 * i;
		uint64_t n, nd = 0, ni = 0;

		calls[i] = stream_values(r, SPILL_CALLS, &n);
		if (!calls[i] || n != r->ncalls) {
			say(J, "%s: a damaged file: left out", r->path);
			n = 0;
		}
		if (r->timing && r->ntimed == n && n) {
			d[0] = stream_values(r, SPILL_DURATIONS, &nd);
			d[1] = stream_values(r, SPILL_INTERVALS, &ni);
		}
		a[i] = (struct after_rank){
			r->path,
			r->rank,
			r->nranks,
			r->program,
			r->start,
			r->funcs,
			r->nfuncs,
			r->sigs,
			r->nsig,
			r->stats,
			(uint32_t)(r->capstats < r->nsig ? r->capstats
							 : r->nsig),
			calls[i],
			n,
			r->bind,
			r->nbind < MAX_BIND ? r->nbind : MAX_BIND,
			r->code,
			d[0],
			d[1],
			d[0] && d[1] && nd == n && ni == n ? n : 0,
			r->base};
	}
	if (rc == 0)
		rc = after_add(path, path, a, J->nafter, J->say, J->ctx, J->why,
			       J->whylen);
	for (uint32_t i = 0; calls && i < 3 * (J->nafter + 1); i++)
		free(calls[i]);
	free(calls);
	free(a);
	return rc;
}

static void rank_free(struct rank *r)
{
	free(r->path);
	free(r->err);
	free(r->data);
	free(r->stamp);
	free(r->start);
	free(r->program);
	free(r->command);
	free(r->host);
	free(r->mpi);
	free(r->mpi_version);
	free(r->settings);
	for (uint32_t c = 0; c < r->nconsts; c++)
		free(r->consts[c]);
	free(r->consts);
	free(r->csize);
	for (uint32_t f = 0; f < r->nfuncs; f++) {
		for (uint32_t k = 0; k < r->funcs[f].nparams; k++)
			free(r->funcs[f].params[k]);
		free(r->funcs[f].params);
		free(r->funcs[f].flags);
		free(r->funcs[f].name);
	}
	free(r->funcs);
	free(r->sigs);
	free(r->comms);
	free(r->stats);
	free(r->gaps);
	for (int s = 0; s < SPILL_NSTREAMS; s++)
		free(r->chunks[s]);
	fmt_grammar_free(&r->g);
	fmt_buf_free(&r->tbytes);
	free(r->st.st);
	free(r->gst.st);
	fmt_buf_free(&r->bytes);
}

int recover_run(const char *const *inputs, int ninputs, const char *out,
		recover_say_fn sayf, void *ctx, char *why, size_t whylen)
{
	struct job_in J = {0};
	uint32_t usable = 0;
	int rc = 0, last = 0;

	J.say = sayf;
	J.ctx = ctx;
	J.why = why;
	J.whylen = whylen;
	why[0] = '\0';
	for (int i = 0; i < ninputs && rc == 0; i++)
		rc = add_input(&J, inputs[i]);
	if (rc == 0 && J.n == 0)
		rc = fail(&J, RONDO_E_MISSING,
			  "no spill file (rank-N.spill or rank-N.after) in %s",
			  ninputs == 1 ? inputs[0] : "what was named");
	/* a file that cannot be read is left out; the others are the job */
	for (uint32_t i = 0; i < J.n && rc == 0; i++) {
		struct rank *r = &J.r[i];
		int e = read_file(&J, r);

		if (e == RONDO_E_NOMEM) {
			rc = e;
		} else if (e) {
			last = e;
			r->bad = -1;
			r->wall = 0;
			r->err = strdup(why);
		} else {
			usable++;
		}
	}
	if (rc == 0 && usable == 0)
		rc = last ? last : RONDO_E_MISSING;
	/* with a job to make, the files left out are said, one by one */
	for (uint32_t i = 0; rc == 0 && i < J.n; i++)
		if (J.r[i].err)
			say(&J, "%s", J.r[i].err);
	if (rc == 0) {
		/* the unreadable ones take no part in choosing the job, the
		 * after files are added to its trace once it is made */
		uint32_t k = 0;

		J.after = malloc(sizeof(*J.after) * (J.n + 1));
		if (!J.after)
			rc = RONDO_E_NOMEM;
		for (uint32_t i = 0; i < J.n; i++) {
			if (J.r[i].bad || rc) {
				rank_free(&J.r[i]);
				continue;
			}
			if (J.r[i].how == SPILL_END_AFTER)
				J.after[J.nafter++] = J.r[i];
			else
				J.r[k++] = J.r[i];
		}
		J.n = k;
		why[0] = '\0';
	}
	/* only after files: the trace MPI_Finalize wrote takes them */
	if (rc == 0 && J.n == 0) {
		rc = add_afters(&J, out);
		goto done;
	}
	if (rc == 0)
		rc = pick_job(&J);
	if (rc == 0)
		rc = names(&J);
	for (uint32_t k = 0; rc == 0 && k < J.nranks; k++) {
		struct rank *r = J.by_rank[k];
		int e;

		if (!r)
			continue;
		e = rebuild(r);
		if (e == RONDO_E_NOMEM)
			rc = e;
		else if (e) {
			say(&J,
			    "%s: its calls cannot be rebuilt: rank %u counts "
			    "as failed",
			    r->path, k);
			r->bad = 1;
		}
	}
	if (rc == 0)
		rc = write_trace(&J, out);
	if (rc == 0 && J.nafter)
		rc = add_afters(&J, out);
done:
	if (rc == RONDO_E_NOMEM && !why[0])
		snprintf(why, whylen, "out of memory");
	for (uint32_t i = 0; i < J.n; i++)
		rank_free(&J.r[i]);
	for (uint32_t i = 0; i < J.nafter; i++)
		rank_free(&J.after[i]);
	free(J.after);
	free(J.r);
	free(J.by_rank);
	free(J.funcs);
	return rc;
}

int recover_default_out(const char *input, char *out, size_t size)
{
	char in[4096];
	size_t n;

	snprintf(in, sizeof(in), "%s", input);
	n = strlen(in);
	while (n > 1 && in[n - 1] == '/')
		in[--n] = '\0';
	if (n <= 6 || strcmp(in + n - 6, ".spill"))
		return -1;
	in[n - 6] = '\0';
	if ((size_t)snprintf(out, size, "%s.rondo", in) >= size)
		return -1;
	return 0;
}
