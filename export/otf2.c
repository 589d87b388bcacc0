/*
 * otf2.c - the OTF2 sink (export.h): an archive DIR/traces.otf2 with
 * DIR/traces.def and DIR/traces/<rank>.{evt,def}, written with OTF2 3.0
 * as Score-P writes an MPI trace, so that Vampir, Scalasca and OTF2's
 * readers see what they expect:
 *  - one location group (a process) and one location (its thread) per
 *    rank of the job; every exported call an Enter/Leave pair of the
 *    region of its function, whose role says what it does;
 *  - inside a call, its messages as Score-P records them: MpiSend at the
 *    enter of a blocking send, MpiRecv at the leave of a blocking
 *    receive; MpiIsend at the post, MpiIsendComplete in the Wait or Test
 *    that completes it; MpiIrecvRequest at the post and MpiIrecv (the
 *    matched source and tag) where it completes; a blocking collective
 *    as MpiCollectiveBegin at the enter and MpiCollectiveEnd (operation,
 *    communicator, root, bytes) at the leave;
 *  - peers and roots are ranks of the call's communicator; communicators
 *    are global definitions: a COMM_LOCATIONS group (every rank's
 *    location), one COMM_GROUP per distinct member list, a COMM each
 *    (MPI_COMM_WORLD and MPI_COMM_SELF included).
 * Ranks are written one at a time: a location's writer is closed, and
 * its memory freed, before the next is opened.  No flush records: OTF2
 * flushes a full buffer without one (post-flush callback NULL).  The
 * global definitions come last, when every location's event count is
 * known.  OTF2's own error messages are kept, never printed.
 */
#define _GNU_SOURCE /* nftw */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "export.h"
#include "util.h"

/* Chunks of OTF2_CHUNK_SIZE_MIN: OTF2 clears a location's buffers when
 * it closes them, so their size is paid once per rank (4 MB chunks made a
 * 16384-rank export spend minutes in memset). */
#define CHUNK_EVENTS (256u << 10)
#define CHUNK_DEFS   (256u << 10)

struct otf2 {
	OTF2_Archive *a;
	OTF2_EvtWriter *w;   /* the rank written */
	uint64_t *events;    /* by rank: its events, for its location */
	OTF2_StringRef nstr; /* strings defined */
	int created;	     /* the archive is ours to remove */
	char otf2_err[256];  /* OTF2's last message */
};

/* OTF2 reports through this instead of printing: the last message is
 * kept for ours. */
static OTF2_ErrorCode otf2_on_error(void *data, const char *file, uint64_t line,
				    const char *fn, OTF2_ErrorCode code,
				    const char *fmt, va_list va)
{
	struct otf2 *o = data;

	(void)file;
	(void)line;
	(void)fn;
	if (o && fmt)
		vsnprintf(o->otf2_err, sizeof(o->otf2_err), fmt, va);
	return code;
}

/* A failing OTF2 call: its message, and RONDO_E_IO. */
static int otf2_fail(struct ex *x, OTF2_ErrorCode e, const char *what)
{
	struct otf2 *o = x->sink;

	return ex_fail(x, RONDO_E_IO, "%s: %s%s%s", what,
		       OTF2_Error_GetDescription(e),
		       o && o->otf2_err[0] ? ": " : "", o ? o->otf2_err : "");
}

#define TRY(x, call, what)                                                     \
	do {                                                                   \
		OTF2_ErrorCode e_ = (call);                                    \
		if (e_ != OTF2_SUCCESS)                                        \
			return otf2_fail((x), e_, (what));                     \
	} while (0)

static OTF2_FlushType otf2_pre_flush(void *user, OTF2_FileType type,
				     OTF2_LocationRef loc, void *caller,
				     bool final)
{
	(void)user;
	(void)type;
	(void)loc;
	(void)caller;
	(void) final;
	return OTF2_FLUSH;
}

static OTF2_FlushCallbacks otf2_flush = {otf2_pre_flush, NULL};

/* A location's event buffer would keep every chunk until its writer
 * closes, a whole rank's events in memory; past CHUNKS_KEPT chunks the
 * allocator says no, and OTF2 writes them out and starts over (the
 * flush it asks otf2_pre_flush for).  Definitions keep OTF2's own. */
#define CHUNKS_KEPT 16

struct otf2_chunks {
	void **c;
	size_t n, cap;
};

static void *otf2_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc,
			void **per_buffer, uint64_t size)
{
	struct otf2_chunks *k = *per_buffer;
	void *p;

	(void)user;
	(void)loc;
	if (!k && !(k = *per_buffer = calloc(1, sizeof(*k))))
		return NULL;
	if (type == OTF2_FILETYPE_EVENTS && k->n == CHUNKS_KEPT)
		return NULL; /* OTF2 flushes, frees, asks again */
	if (util_grow(&k->c, &k->cap, k->n + 1, sizeof(*k->c)) < 0 ||
	    !(p = malloc(size)))
		return NULL;
	return k->c[k->n++] = p;
}

static void otf2_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc,
			  void **per_buffer, bool final)
{
	struct otf2_chunks *k = *per_buffer;

	(void)user;
	(void)type;
	(void)loc;
	if (!k)
		return;
	for (unsigned i = 0; i < k->n; i++)
		free(k->c[i]);
	k->n = 0;
	if (final) {
		free(k->c);
		free(k);
		*per_buffer = NULL;
	}
}

static OTF2_MemoryCallbacks otf2_memory = {otf2_alloc, otf2_free_all};

/* ---- removing an archive ---------------------------------------------------- */

static int otf2_rm(const char *p, const struct stat *st, int flag,
		   struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static uint64_t otf2_sum;

static int otf2_add(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)p;
	(void)ftw;
	if (flag == FTW_F)
		otf2_sum += (uint64_t)st->st_size;
	return 0;
}

/* The bytes of the archive named traces in dir. */
static uint64_t otf2_size(const char *dir)
{
	const char *parts[] = {"traces", "traces.otf2", "traces.def"};
	char p[4096];

	otf2_sum = 0;
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, parts[i]);
		nftw(p, otf2_add, 16, FTW_PHYS);
	}
	return otf2_sum;
}

/* Removes the archive named traces in dir (what this sink writes, and
 * nothing else of dir). */
static void otf2_remove(const char *dir)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/traces", dir);
	nftw(p, otf2_rm, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(p, sizeof(p), "%s/traces.otf2", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/traces.def", dir);
	unlink(p);
}

/* ---- events ------------------------------------------------------------------ */

static int otf2_begin(struct ex *x)
{
	struct otf2 *o = calloc(1, sizeof(*o));
	char anchor[4096], desc[512];
	const char *host = rondo_meta_get(x->t, "host");
	const char *prog = rondo_meta_get(x->t, "program");
	struct stat st;

	if (!o || !(o->events = calloc(rondo_rank_count(x->t) + 1,
				       sizeof(*o->events)))) {
		free(o);
		return ex_fail(x, RONDO_E_NOMEM, "out of memory");
	}
	x->sink = o;
	OTF2_Error_RegisterCallback(otf2_on_error, o);
	if (mkdir(x->path, 0777) < 0 && errno != EEXIST)
		return ex_fail(x, RONDO_E_IO, "cannot create directory: %s",
			       strerror(errno));
	if (stat(x->path, &st) < 0 || !S_ISDIR(st.st_mode))
		return ex_fail(x, RONDO_E_IO, "not a directory");
	snprintf(anchor, sizeof(anchor), "%s/traces.otf2", x->path);
	if (access(anchor, F_OK) == 0) {
		if (!x->o->force)
			return ex_fail(x, RONDO_E_IO,
				       "it holds an archive (traces.otf2): "
				       "--force replaces it");
		otf2_remove(x->path);
	}
	o->a = OTF2_Archive_Open(x->path, "traces", OTF2_FILEMODE_WRITE,
				 CHUNK_EVENTS, CHUNK_DEFS, OTF2_SUBSTRATE_POSIX,
				 OTF2_COMPRESSION_NONE);
	if (!o->a)
		return ex_fail(x, RONDO_E_IO, "cannot create the archive%s%s",
			       o->otf2_err[0] ? ": " : "", o->otf2_err);
	o->created = 1;
	TRY(x, OTF2_Archive_SetFlushCallbacks(o->a, &otf2_flush, NULL),
	    "flush callbacks");
	TRY(x, OTF2_Archive_SetMemoryCallbacks(o->a, &otf2_memory, NULL),
	    "memory callbacks");
	TRY(x, OTF2_Archive_SetSerialCollectiveCallbacks(o->a),
	    "collective callbacks");
	TRY(x, OTF2_Archive_SetCreator(o->a, "rondo " RONDO_VERSION_STRING),
	    "creator");
	snprintf(desc, sizeof(desc),
		 "MPI calls of %s, exported from a rondo trace",
		 prog ? prog : "a program");
	TRY(x, OTF2_Archive_SetDescription(o->a, desc), "description");
	if (host)
		TRY(x, OTF2_Archive_SetMachineName(o->a, host), "machine name");
	snprintf(desc, sizeof(desc), "%s",
		 x->timing == EX_TIMING_PERCALL
			 ? "PERCALL: the per-call times recorded"
			 : "SYNTHETIC: per-signature mean durations, end to "
			   "end");
	TRY(x, OTF2_Archive_SetProperty(o->a, "RONDO::TIMING", desc, true),
	    "property");
	TRY(x, OTF2_Archive_OpenEvtFiles(o->a), "opening event files");
	return 0;
}

static int otf2_rank_begin(struct ex *x, uint32_t rank)
{
	struct otf2 *o = x->sink;

	o->w = OTF2_Archive_GetEvtWriter(o->a, rank);
	if (!o->w)
		return ex_fail(x, RONDO_E_IO,
			       "rank %" PRIu32 ": no event writer%s%s", rank,
			       o->otf2_err[0] ? ": " : "", o->otf2_err);
	return 0;
}

/* The records of message m at time ts. */
static OTF2_ErrorCode otf2_msg(OTF2_EvtWriter *w, const struct ex_msg *m,
			       OTF2_TimeStamp ts)
{
	uint32_t tag = (uint32_t)m->tag;

	switch (m->kind) {
	case EX_SEND:
		return OTF2_EvtWriter_MpiSend(w, NULL, ts, m->peer, m->comm,
					      tag, m->bytes);
	case EX_ISEND:
		return OTF2_EvtWriter_MpiIsend(w, NULL, ts, m->peer, m->comm,
					       tag, m->bytes, m->req);
	case EX_ISEND_DONE:
		return OTF2_EvtWriter_MpiIsendComplete(w, NULL, ts, m->req);
	case EX_RECV:
		return OTF2_EvtWriter_MpiRecv(w, NULL, ts, m->peer, m->comm,
					      tag, m->bytes);
	case EX_IRECV_POST:
		return OTF2_EvtWriter_MpiIrecvRequest(w, NULL, ts, m->req);
	case EX_CANCELLED:
		return OTF2_EvtWriter_MpiRequestCancelled(w, NULL, ts, m->req);
	default:
		return OTF2_EvtWriter_MpiIrecv(w, NULL, ts, m->peer, m->comm,
					       tag, m->bytes, m->req);
	}
}

/* Sends and posts are recorded at the call's enter, completions at its
 * leave (Score-P's order). */
static int otf2_at_enter(uint8_t kind)
{
	return kind == EX_SEND || kind == EX_ISEND || kind == EX_IRECV_POST;
}

static int otf2_call(struct ex *x, const struct ex_call *c)
{
	struct otf2 *o = x->sink;
	OTF2_TimeStamp a = (OTF2_TimeStamp)c->start, b = (OTF2_TimeStamp)c->end;
	const struct ex_coll *k = c->coll;

	TRY(x, OTF2_EvtWriter_Enter(o->w, NULL, a, c->func), "enter");
	if (k)
		TRY(x, OTF2_EvtWriter_MpiCollectiveBegin(o->w, NULL, a),
		    "collective begin");
	for (uint32_t i = 0; i < c->nmsgs; i++)
		if (otf2_at_enter(c->msgs[i].kind))
			TRY(x, otf2_msg(o->w, &c->msgs[i], a), "message");
	for (uint32_t i = 0; i < c->nmsgs; i++)
		if (!otf2_at_enter(c->msgs[i].kind))
			TRY(x, otf2_msg(o->w, &c->msgs[i], b), "message");
	if (k)
		TRY(x,
		    OTF2_EvtWriter_MpiCollectiveEnd(
			    o->w, NULL, b, (OTF2_CollectiveOp)k->op, k->comm,
			    k->root == EX_NO_ROOT ? OTF2_UNDEFINED_UINT32
						  : k->root,
			    k->sent, k->received),
		    "collective end");
	TRY(x, OTF2_EvtWriter_Leave(o->w, NULL, b, c->func), "leave");
	return 0;
}

static int otf2_rank_end(struct ex *x, uint32_t rank)
{
	struct otf2 *o = x->sink;
	uint64_t n = 0;

	TRY(x, OTF2_EvtWriter_GetNumberOfEvents(o->w, &n), "event count");
	o->events[rank] = n;
	TRY(x, OTF2_Archive_CloseEvtWriter(o->a, o->w), "closing a location");
	o->w = NULL;
	return 0;
}

/* ---- definitions ------------------------------------------------------------- */

/* Defines string s; its reference. */
static OTF2_StringRef otf2_str(struct otf2 *o, OTF2_GlobalDefWriter *g,
			       const char *s, OTF2_ErrorCode *e)
{
	OTF2_ErrorCode r = OTF2_GlobalDefWriter_WriteString(g, o->nstr, s);

	if (r != OTF2_SUCCESS)
		*e = r;
	return o->nstr++;
}

static const OTF2_RegionRole roles[] = {
	[EX_ROLE_OTHER] = OTF2_REGION_ROLE_FUNCTION,
	[EX_ROLE_P2P] = OTF2_REGION_ROLE_POINT2POINT,
	[EX_ROLE_ONE2ALL] = OTF2_REGION_ROLE_COLL_ONE2ALL,
	[EX_ROLE_ALL2ONE] = OTF2_REGION_ROLE_COLL_ALL2ONE,
	[EX_ROLE_ALL2ALL] = OTF2_REGION_ROLE_COLL_ALL2ALL,
	[EX_ROLE_BARRIER] = OTF2_REGION_ROLE_BARRIER,
	[EX_ROLE_COLL] = OTF2_REGION_ROLE_COLL_OTHER,
};

/* The clock, the system tree, a process and a thread per rank. */
static int otf2_def_ranks(struct ex *x, OTF2_GlobalDefWriter *g)
{
	struct otf2 *o = x->sink;
	const char *host = rondo_meta_get(x->t, "host");
	OTF2_ErrorCode e = OTF2_SUCCESS;
	OTF2_StringRef thread, node;
	char name[64];

	TRY(x,
	    OTF2_GlobalDefWriter_WriteClockProperties(
		    g, 1000000000, 0, (uint64_t)x->tmax + 1,
		    x->start_epoch_ns
			    ? (uint64_t)((int64_t)x->start_epoch_ns + x->t0)
			    : OTF2_UNDEFINED_TIMESTAMP),
	    "clock");
	node = otf2_str(o, g, host ? host : "machine", &e);
	TRY(x,
	    OTF2_GlobalDefWriter_WriteSystemTreeNode(
		    g, 0, node, otf2_str(o, g, "machine", &e),
		    OTF2_UNDEFINED_SYSTEM_TREE_NODE),
	    "system tree");
	thread = otf2_str(o, g, "Master thread", &e);
	for (uint32_t r = 0; r < rondo_rank_count(x->t); r++) {
		snprintf(name, sizeof(name), "MPI Rank %" PRIu32, r);
		TRY(x,
		    OTF2_GlobalDefWriter_WriteLocationGroup(
			    g, r, otf2_str(o, g, name, &e),
			    OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
			    OTF2_UNDEFINED_LOCATION_GROUP),
		    "location group");
		TRY(x,
		    OTF2_GlobalDefWriter_WriteLocation(
			    g, r, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
			    o->events[r], r),
		    "location");
	}
	return e == OTF2_SUCCESS ? 0 : otf2_fail(x, e, "string");
}

/* A region per function of the trace, its id the function's. */
static int otf2_def_regions(struct ex *x, OTF2_GlobalDefWriter *g)
{
	struct otf2 *o = x->sink;
	OTF2_ErrorCode e = OTF2_SUCCESS;
	OTF2_StringRef empty = otf2_str(o, g, "", &e), name, src;

	src = otf2_str(o, g, "MPI", &e);
	TRY(x,
	    OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, src,
					       OTF2_PARADIGM_CLASS_PROCESS),
	    "paradigm");
	for (uint32_t f = 0; f < rondo_func_count(x->t); f++) {
		const char *n = rondo_func_name(x->t, f);

		name = otf2_str(o, g, n ? n : "?", &e);
		TRY(x,
		    OTF2_GlobalDefWriter_WriteRegion(
			    g, f, name, name, empty,
			    roles[ex_func_role(x->t, f)], OTF2_PARADIGM_MPI,
			    OTF2_REGION_FLAG_NONE, src, 0, 0),
		    "region");
	}
	return e == OTF2_SUCCESS ? 0 : otf2_fail(x, e, "string");
}

/* Communicator c's members as world ranks into m (ex_comm_size of
 * them); 0, or -1 when the trace does not know one. */
static int otf2_members(const struct ex *x, uint32_t c, uint64_t *m, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		uint32_t r = ex_comm_member(x, c, k);

		if (r == UINT32_MAX)
			return -1;
		m[k] = r;
	}
	return 0;
}

/* The size of intercommunicator c's first group (of its n members), 0
 * for an intracommunicator. */
static uint32_t otf2_first(const struct ex *x, uint32_t c, uint32_t n)
{
	uint32_t f = c >= EX_COMM_FIRST
			     ? rondo_comm_first_group(x->t, c - EX_COMM_FIRST)
			     : 0;

	return f < n ? f : 0;
}

/* Whether communicators a and b (not MPI_COMM_SELF) have the same
 * members; their lists in ma and mb.  An intercommunicator's two
 * groups are its own. */
static int otf2_same(const struct ex *x, uint32_t a, uint32_t b, uint64_t *ma,
		     uint64_t *mb)
{
	uint32_t n = ex_comm_size(x, a);

	if (n != ex_comm_size(x, b) || otf2_first(x, a, n) ||
	    otf2_first(x, b, n) || otf2_members(x, a, ma, n) < 0 ||
	    otf2_members(x, b, mb, n) < 0)
		return 0;
	return !memcmp(ma, mb, sizeof(*ma) * n);
}

/* The groups and communicators.  Group 0 is every rank's location (the
 * COMM_LOCATIONS group), group 1 MPI_COMM_SELF's, then one COMM_GROUP
 * per distinct member list (the first communicator with it defines it),
 * two for an intercommunicator (an InterComm of its two groups). */
static int otf2_def_comms(struct ex *x, OTF2_GlobalDefWriter *g)
{
	struct otf2 *o = x->sink;
	uint32_t nr = rondo_rank_count(x->t), *grp;
	uint64_t *m = malloc(sizeof(*m) * ((size_t)nr + 1) * 2), *m2;
	OTF2_ErrorCode e = OTF2_SUCCESS;
	OTF2_GroupRef next = 2;
	uint32_t first;
	char name[64];
	int rc = 0;

	grp = calloc(x->ncomms, sizeof(*grp));
	if (!m || !grp) {
		free(m);
		free(grp);
		return ex_fail(x, RONDO_E_NOMEM, "out of memory");
	}
	m2 = m + nr + 1;
	for (uint32_t r = 0; r < nr; r++)
		m[r] = r;
	e = OTF2_GlobalDefWriter_WriteGroup(
		g, 0, otf2_str(o, g, "", &e), OTF2_GROUP_TYPE_COMM_LOCATIONS,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nr, m);
	if (e == OTF2_SUCCESS)
		e = OTF2_GlobalDefWriter_WriteGroup(
			g, 1, otf2_str(o, g, "", &e), OTF2_GROUP_TYPE_COMM_SELF,
			OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
	grp[EX_COMM_SELF] = 1;
	for (uint32_t c = 0; e == OTF2_SUCCESS && c < x->ncomms; c++) {
		uint32_t n = ex_comm_size(x, c), d;

		if (c == EX_COMM_SELF)
			continue;
		for (d = EX_COMM_WORLD; d < c; d++)
			if (d != EX_COMM_SELF && otf2_same(x, d, c, m, m2))
				break;
		if (d < c) {
			grp[c] = grp[d];
			continue;
		}
		grp[c] = next++;
		if (otf2_members(x, c, m, n) < 0)
			n = 0; /* the trace does not list them */
		first = otf2_first(x, c, n);
		e = OTF2_GlobalDefWriter_WriteGroup(
			g, grp[c], otf2_str(o, g, "", &e),
			OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
			OTF2_GROUP_FLAG_NONE, first ? first : n, m);
		if (first && e == OTF2_SUCCESS) /* its second group next */
			e = OTF2_GlobalDefWriter_WriteGroup(
				g, next++, otf2_str(o, g, "", &e),
				OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
				OTF2_GROUP_FLAG_NONE, n - first, m + first);
	}
	for (uint32_t c = 0; e == OTF2_SUCCESS && c < x->ncomms; c++) {
		OTF2_StringRef s =
			otf2_str(o, g, ex_comm_name(c, name, sizeof(name)), &e);

		if (otf2_first(x, c, ex_comm_size(x, c)))
			e = OTF2_GlobalDefWriter_WriteInterComm(
				g, c, s, grp[c], grp[c] + 1,
				OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
		else
			e = OTF2_GlobalDefWriter_WriteComm(g, c, s, grp[c],
							   OTF2_UNDEFINED_COMM,
							   OTF2_COMM_FLAG_NONE);
	}
	if (e != OTF2_SUCCESS)
		rc = otf2_fail(x, e, "communicators");
	free(m);
	free(grp);
	return rc;
}

static int otf2_end(struct ex *x)
{
	struct otf2 *o = x->sink;
	OTF2_GlobalDefWriter *g;
	int rc;

	/* every rank is a location (communicators name them all): those
	 * not exported have no events, and their files say so */
	for (uint32_t r = 0; x->o->ranks && r < rondo_rank_count(x->t); r++) {
		if (x->o->ranks[r])
			continue;
		if ((rc = otf2_rank_begin(x, r)) < 0 ||
		    (rc = otf2_rank_end(x, r)) < 0)
			return rc;
	}
	TRY(x, OTF2_Archive_CloseEvtFiles(o->a), "closing event files");
	/* every location's local definitions, empty */
	TRY(x, OTF2_Archive_OpenDefFiles(o->a), "opening definition files");
	for (uint32_t r = 0; r < rondo_rank_count(x->t); r++) {
		OTF2_DefWriter *d;

		d = OTF2_Archive_GetDefWriter(o->a, r);
		if (!d)
			return ex_fail(x, RONDO_E_IO,
				       "rank %" PRIu32 ": no definition writer",
				       r);
		TRY(x, OTF2_Archive_CloseDefWriter(o->a, d),
		    "closing definitions");
	}
	TRY(x, OTF2_Archive_CloseDefFiles(o->a), "closing definition files");
	g = OTF2_Archive_GetGlobalDefWriter(o->a);
	if (!g)
		return ex_fail(x, RONDO_E_IO, "no global definition writer");
	if ((rc = otf2_def_ranks(x, g)) < 0 ||
	    (rc = otf2_def_regions(x, g)) < 0 ||
	    (rc = otf2_def_comms(x, g)) < 0)
		return rc;
	TRY(x, OTF2_Archive_Close(o->a), "closing the archive");
	o->a = NULL;
	x->n.bytes = otf2_size(x->path);
	OTF2_Error_RegisterCallback(NULL, NULL);
	free(o->events);
	free(o);
	x->sink = NULL;
	return 0;
}

static void otf2_abort(struct ex *x)
{
	struct otf2 *o = x->sink;

	if (!o)
		return;
	if (o->a)
		OTF2_Archive_Close(o->a);
	if (o->created)
		otf2_remove(x->path);
	OTF2_Error_RegisterCallback(NULL, NULL);
	free(o->events);
	free(o);
	x->sink = NULL;
}

static const struct ex_sink sink = {"otf2",    otf2_begin,    otf2_rank_begin,
				    otf2_call, otf2_rank_end, otf2_end,
				    otf2_abort};

const struct ex_sink *const ex_sink_otf2 = &sink;
