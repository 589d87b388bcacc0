/*
 * perfetto.c - the export in Perfetto's protobuf trace format, which
 * ui.perfetto.dev and trace_processor open: a track per rank, a slice per
 * MPI call, an arrow (a flow) per message whose two ends are exported.
 *
 * The file is a Trace message: each TracePacket is written as field 1 of
 * it, one after the other, so packets stream to the file as the walk
 * hands over calls; a packet is built in a buffer (the length of a
 * nested message precedes it) and only one is held at a time.
 *
 * Tracks.  Each rank is a track named "rank N", child of one root track
 * whose children are ordered EXPLICIT by sibling_order_rank = N.  Not a
 * ProcessDescriptor per rank: the UI orders processes by how busy they
 * look (google/perfetto issue 376) and ignores child ordering under a
 * process (track_descriptor.proto, parent_uuid), so only a plain root
 * track lists the ranks in rank order.  The root (uuid 2^32, beyond any
 * rank's: MPI ranks are ints) is written by begin, a rank's track by
 * rank_begin.
 *
 * Sequences.  Each rank writes on its own sequence,
 * trusted_packet_sequence_id = rank + 1, whose first packet (the rank's
 * track) clears the incremental state and interns the category "mpi";
 * event names (the MPI functions) and debug annotation names are
 * interned on the sequence when first used, iids from 1, in the packet
 * that first uses them.  Later packets say they need that state.
 *
 * Flows.  A send (EX_SEND, EX_ISEND) starts its flow on the begin event
 * of its slice; a receive (EX_RECV, EX_IRECV_DONE) terminates it on the
 * END event of its slice.  trace_processor binds a flow on an end event
 * to the slice it ends, but handles events in timestamp order and drops
 * a terminating id whose flow has not started yet (track_event_parser,
 * MaybeParseTrackEventFlows): a receive often begins before its send,
 * but ends after it, so the end is where the arrow survives.
 *
 * Field numbers, as in google/perfetto's protos/perfetto/trace/ (read
 * for this file: trace.proto, trace_packet.proto, interned_data/
 * interned_data.proto, track_event/track_event.proto,
 * track_event/track_descriptor.proto and track_event/debug_annotation.proto;
 * child_ordering and sibling_order_rank in the newer track_descriptor.proto
 * vendored as third_party/perfetto in Chromium-based trees):
 *   Trace              packet 1
 *   TracePacket        timestamp 8, trusted_packet_sequence_id 10,
 *                      track_event 11, interned_data 12, sequence_flags 13
 *                      (SEQ_INCREMENTAL_STATE_CLEARED 1,
 *                      SEQ_NEEDS_INCREMENTAL_STATE 2), track_descriptor 60
 *   TrackDescriptor    uuid 1, name 2, parent_uuid 5, child_ordering 11
 *                      (EXPLICIT 3), sibling_order_rank 12 (int32)
 *   TrackEvent         category_iids 3, debug_annotations 4, type 9
 *                      (TYPE_SLICE_BEGIN 1, TYPE_SLICE_END 2), name_iid 10,
 *                      track_uuid 11, flow_ids 47 and terminating_flow_ids
 *                      48 (repeated fixed64, proto2: not packed)
 *   InternedData       event_categories 1, event_names 2,
 *                      debug_annotation_names 3
 *   EventCategory, EventName, DebugAnnotationName   iid 1, name 2
 *   DebugAnnotation    name_iid 1, uint_value 3, int_value 4,
 *                      string_value 6
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fileio.h"
#include "rondo.h"
#include "util.h"

/* Wire types. */
#define PF_VARINT  0
#define PF_FIXED64 1
#define PF_LEN	   2

#define PF_TRACE_PACKET 1

#define PF_PKT_TIMESTAMP	8
#define PF_PKT_SEQUENCE_ID	10
#define PF_PKT_TRACK_EVENT	11
#define PF_PKT_INTERNED_DATA	12
#define PF_PKT_SEQUENCE_FLAGS	13
#define PF_PKT_TRACK_DESCRIPTOR 60
#define PF_SEQ_CLEARED		1
#define PF_SEQ_NEEDS		2

#define PF_TD_UUID		 1
#define PF_TD_NAME		 2
#define PF_TD_PARENT_UUID	 5
#define PF_TD_CHILD_ORDERING	 11
#define PF_TD_SIBLING_ORDER_RANK 12
#define PF_ORDERING_EXPLICIT	 3

#define PF_TE_CATEGORY_IIDS	   3
#define PF_TE_DEBUG_ANNOTATIONS	   4
#define PF_TE_TYPE		   9
#define PF_TE_NAME_IID		   10
#define PF_TE_TRACK_UUID	   11
#define PF_TE_FLOW_IDS		   47
#define PF_TE_TERMINATING_FLOW_IDS 48
#define PF_TYPE_SLICE_BEGIN	   1
#define PF_TYPE_SLICE_END	   2

#define PF_ID_EVENT_CATEGORIES	     1
#define PF_ID_EVENT_NAMES	     2
#define PF_ID_DEBUG_ANNOTATION_NAMES 3
#define PF_INTERNED_IID		     1
#define PF_INTERNED_NAME	     2

#define PF_DA_NAME_IID	   1
#define PF_DA_UINT_VALUE   3
#define PF_DA_INT_VALUE	   4
#define PF_DA_STRING_VALUE 6

#define PF_ROOT_UUID (UINT64_C(1) << 32)
#define PF_CAT_MPI   1 /* the iid of the one category, on every sequence */

/* Nested messages open at most: packet, event, annotation. */
#define PF_DEPTH 4

/*
 * Debug annotation names: for the first PF_SLOTS sends and receives of a
 * call, "send.peer", "send2.peer"... (PF_FIELDS each), then a
 * collective's.  An annotation's iid is its place here plus one, and
 * pf_arg_name is the one place that spells them.
 */
#define PF_SLOTS  4
#define PF_FIELDS 4
#define PF_ARG_MSG(dir, slot, field)                                           \
	(1 + (PF_SLOTS * (dir) + (slot)) * PF_FIELDS + (field))
#define PF_ARG_COLL(field) (1 + 2 * PF_SLOTS * PF_FIELDS + (field))
#define PF_ARGS		   (2 * PF_SLOTS * PF_FIELDS + COUNTOF(pf_coll_fields))

enum { PF_PEER, PF_TAG, PF_BYTES, PF_COMM };
enum { PF_ROOT, PF_SENT, PF_RECEIVED, PF_COLL_COMM };

static const char *const pf_dirs[] = {"send", "recv"};
static const char *const pf_msg_fields[PF_FIELDS] = {"peer", "tag", "bytes",
						     "comm"};
static const char *const pf_coll_fields[] = {"root", "sent", "received",
					     "comm"};

/* Which names a sequence has interned is a mask of them. */
_Static_assert(PF_ARGS <= 64, "annotation names are the bits of a uint64_t");

/* A packet being built. */
struct pf_buf {
	uint8_t *p;
	size_t n, cap;
	size_t open[PF_DEPTH]; /* where each open message's bytes start */
	int depth;
	int err; /* memory ran short (or nesting overflowed): the
		    packet is lost and the export fails */
};

/* The sink's state, on x->sink. */
struct pf_sink {
	struct fileio_out out;
	FILE *f;
	struct pf_buf b;
	uint32_t rank;	    /* the rank in flight */
	uint32_t nfuncs;    /* the trace's functions */
	uint32_t *name_iid; /* by function: its event name's iid on the
			       rank's sequence, 0 before its first call */
	uint32_t next_iid;
	uint64_t arg_names; /* annotation names interned on the sequence
			       (bit iid - 1) */
	uint64_t arg_new;   /* those the packet being built introduces */
};

/* ---- the encoder ------------------------------------------------------- */

static int pf_room(struct pf_buf *b, size_t k)
{
	if (b->err)
		return -1;
	if (b->n + k > b->cap && util_grow(&b->p, &b->cap, b->n + k, 1)) {
		b->err = 1;
		return -1;
	}
	return 0;
}

static size_t pf_put_varint(uint8_t *p, uint64_t v)
{
	size_t k = 0;

	while (v >= 0x80) {
		p[k++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[k++] = (uint8_t)v;
	return k;
}

static void pf_varint(struct pf_buf *b, uint64_t v)
{
	if (pf_room(b, 10) == 0)
		b->n += pf_put_varint(b->p + b->n, v);
}

static void pf_key(struct pf_buf *b, unsigned field, unsigned wire)
{
	pf_varint(b, (uint64_t)field << 3 | wire);
}

static void pf_uint(struct pf_buf *b, unsigned field, uint64_t v)
{
	pf_key(b, field, PF_VARINT);
	pf_varint(b, v);
}

/* int32 and int64 fields: a negative value as ten bytes, as protobuf
 * encodes it (never zigzag, which is sint's). */
static void pf_int(struct pf_buf *b, unsigned field, int64_t v)
{
	pf_uint(b, field, (uint64_t)v);
}

static void pf_fixed64(struct pf_buf *b, unsigned field, uint64_t v)
{
	pf_key(b, field, PF_FIXED64);
	if (pf_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->n++] = (uint8_t)(v >> (8 * i));
}

static void pf_str(struct pf_buf *b, unsigned field, const char *s)
{
	size_t len = strlen(s);

	pf_key(b, field, PF_LEN);
	pf_varint(b, len);
	if (pf_room(b, len) == 0) {
		memcpy(b->p + b->n, s, len);
		b->n += len;
	}
}

/* Opens a nested message; its length is known, and put before it, when
 * pf_close ends it. */
static void pf_open(struct pf_buf *b, unsigned field)
{
	pf_key(b, field, PF_LEN);
	if (b->depth == PF_DEPTH)
		b->err = 1;
	else
		b->open[b->depth++] = b->n;
}

static void pf_close(struct pf_buf *b)
{
	uint8_t len[10];
	size_t start, n, k;

	if (b->depth == 0) {
		b->err = 1;
		return;
	}
	start = b->open[--b->depth];
	if (b->err)
		return;
	n = b->n - start;
	k = pf_put_varint(len, n);
	if (pf_room(b, k))
		return;
	memmove(b->p + start + k, b->p + start, n);
	memcpy(b->p + start, len, k);
	b->n += k;
}

/* ---- writing ----------------------------------------------------------- */

static int pf_fail(struct ex *x, int rc, const char *why)
{
	char name[FILEIO_SHORT];

	return ex_fail(x, rc, "cannot write %s: %s",
		       fileio_short(name, sizeof(name), x->path), why);
}

/* Writes the packet built, and empties the buffer for the next. */
static int pf_emit(struct ex *x, struct pf_sink *s)
{
	struct pf_buf *b = &s->b;

	if (b->err || b->depth)
		return pf_fail(x, RONDO_E_NOMEM, "out of memory");
	errno = 0;
	if (fwrite(b->p, 1, b->n, s->f) != b->n)
		return pf_fail(x, RONDO_E_IO,
			       errno ? strerror(errno) : "write error");
	x->n.bytes += b->n;
	b->n = 0;
	return 0;
}

/* The ids of rank's sequence and track: ranks are MPI's ints, so both
 * fit, and neither is 0 (no sequence, the global track). */
static uint32_t pf_seq(uint32_t rank)
{
	return rank + 1;
}

static uint64_t pf_uuid(uint32_t rank)
{
	return (uint64_t)rank + 1;
}

/* A time of the export, in ns: never negative (ex_call), and a negative
 * one would wrap to the far future. */
static uint64_t pf_ts(int64_t t)
{
	return t < 0 ? 0 : (uint64_t)t;
}

/* ---- debug annotations ------------------------------------------------- */

static void pf_arg_name(unsigned iid, char *buf, size_t size)
{
	unsigned k = iid - 1, dir, slot;

	if (k >= 2 * PF_SLOTS * PF_FIELDS) {
		snprintf(buf, size, "%s",
			 pf_coll_fields[k - 2 * PF_SLOTS * PF_FIELDS]);
		return;
	}
	dir = k / (PF_SLOTS * PF_FIELDS);
	slot = k / PF_FIELDS % PF_SLOTS;
	if (slot)
		snprintf(buf, size, "%s%u.%s", pf_dirs[dir], slot + 1,
			 pf_msg_fields[k % PF_FIELDS]);
	else
		snprintf(buf, size, "%s.%s", pf_dirs[dir],
			 pf_msg_fields[k % PF_FIELDS]);
}

/* Opens annotation iid, noting its name for the packet's interned data
 * when the sequence has not seen it. */
static struct pf_buf *pf_arg(struct pf_sink *s, unsigned iid)
{
	uint64_t bit = UINT64_C(1) << (iid - 1);

	if (!(s->arg_names & bit))
		s->arg_new |= bit;
	pf_open(&s->b, PF_TE_DEBUG_ANNOTATIONS);
	pf_uint(&s->b, PF_DA_NAME_IID, iid);
	return &s->b;
}

static void pf_arg_uint(struct pf_sink *s, unsigned iid, uint64_t v)
{
	struct pf_buf *b = pf_arg(s, iid);

	pf_uint(b, PF_DA_UINT_VALUE, v);
	pf_close(b);
}

static void pf_arg_int(struct pf_sink *s, unsigned iid, int64_t v)
{
	struct pf_buf *b = pf_arg(s, iid);

	pf_int(b, PF_DA_INT_VALUE, v);
	pf_close(b);
}

static void pf_arg_comm(struct pf_sink *s, unsigned iid, uint32_t comm)
{
	struct pf_buf *b = pf_arg(s, iid);
	char name[64];

	pf_str(b, PF_DA_STRING_VALUE, ex_comm_name(comm, name, sizeof(name)));
	pf_close(b);
}

/* 0 for a send, 1 for a receive, -1 for the ends that say less (a
 * request posted or a send completed: their call's other end says it). */
static int pf_dir(const struct ex_msg *m)
{
	if (m->kind == EX_SEND || m->kind == EX_ISEND)
		return 0;
	if (m->kind == EX_RECV || m->kind == EX_IRECV_DONE)
		return 1;
	return -1;
}

/* The first PF_SLOTS sends and receives: enough to read a Sendrecv or a
 * short Waitall, not a trace's worth of arguments. */
static void pf_msg_args(struct pf_sink *s, const struct ex_call *c)
{
	unsigned used[2] = {0, 0};

	for (uint32_t i = 0; i < c->nmsgs; i++) {
		const struct ex_msg *m = &c->msgs[i];
		int dir = pf_dir(m);
		unsigned slot;

		if (dir < 0 || used[dir] == PF_SLOTS)
			continue;
		slot = used[dir]++;
		pf_arg_uint(s, PF_ARG_MSG(dir, slot, PF_PEER), m->peer_world);
		pf_arg_int(s, PF_ARG_MSG(dir, slot, PF_TAG), m->tag);
		pf_arg_uint(s, PF_ARG_MSG(dir, slot, PF_BYTES), m->bytes);
		pf_arg_comm(s, PF_ARG_MSG(dir, slot, PF_COMM), m->comm);
	}
}

static void pf_coll_args(struct pf_sink *s, const struct ex_coll *k)
{
	if (k->root != EX_NO_ROOT)
		pf_arg_uint(s, PF_ARG_COLL(PF_ROOT), k->root);
	pf_arg_uint(s, PF_ARG_COLL(PF_SENT), k->sent);
	pf_arg_uint(s, PF_ARG_COLL(PF_RECEIVED), k->received);
	pf_arg_comm(s, PF_ARG_COLL(PF_COLL_COMM), k->comm);
}

/* ---- packets ----------------------------------------------------------- */

/* What the slice's begin packet interns: the function's name when new
 * (name_iid set), the annotation names first used. */
static void pf_interned(struct ex *x, struct pf_sink *s, uint32_t func,
			uint32_t name_iid)
{
	struct pf_buf *b = &s->b;
	const char *name;
	char arg[32];

	pf_open(b, PF_PKT_INTERNED_DATA);
	if (name_iid) {
		name = rondo_func_name(x->t, func);
		pf_open(b, PF_ID_EVENT_NAMES);
		pf_uint(b, PF_INTERNED_IID, name_iid);
		pf_str(b, PF_INTERNED_NAME, name ? name : "?");
		pf_close(b);
	}
	for (unsigned iid = 1; iid <= PF_ARGS; iid++) {
		if (!(s->arg_new >> (iid - 1) & 1))
			continue;
		pf_arg_name(iid, arg, sizeof(arg));
		pf_open(b, PF_ID_DEBUG_ANNOTATION_NAMES);
		pf_uint(b, PF_INTERNED_IID, iid);
		pf_str(b, PF_INTERNED_NAME, arg);
		pf_close(b);
	}
	pf_close(b);
	s->arg_names |= s->arg_new;
	s->arg_new = 0;
}

/* Opens a packet of the rank's sequence and its track event. */
static void pf_event(struct pf_sink *s, uint64_t ts, unsigned type)
{
	struct pf_buf *b = &s->b;

	pf_open(b, PF_TRACE_PACKET);
	pf_uint(b, PF_PKT_TIMESTAMP, ts);
	pf_uint(b, PF_PKT_SEQUENCE_ID, pf_seq(s->rank));
	pf_uint(b, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_NEEDS);
	pf_open(b, PF_PKT_TRACK_EVENT);
	pf_uint(b, PF_TE_TYPE, type);
	pf_uint(b, PF_TE_TRACK_UUID, pf_uuid(s->rank));
}

static int pf_slice_begin(struct ex *x, struct pf_sink *s,
			  const struct ex_call *c)
{
	struct pf_buf *b = &s->b;
	uint32_t *iid = &s->name_iid[c->func], fresh = 0;

	if (!*iid)
		fresh = *iid = s->next_iid++;
	pf_event(s, pf_ts(c->start), PF_TYPE_SLICE_BEGIN);
	pf_uint(b, PF_TE_CATEGORY_IIDS, PF_CAT_MPI);
	pf_uint(b, PF_TE_NAME_IID, *iid);
	for (uint32_t i = 0; i < c->nmsgs; i++)
		if (c->msgs[i].flow && pf_dir(&c->msgs[i]) == 0)
			pf_fixed64(b, PF_TE_FLOW_IDS, c->msgs[i].flow);
	pf_msg_args(s, c);
	if (c->coll)
		pf_coll_args(s, c->coll);
	pf_close(b);
	if (fresh || s->arg_new)
		pf_interned(x, s, c->func, fresh);
	pf_close(b);
	return pf_emit(x, s);
}

static int pf_slice_end(struct ex *x, struct pf_sink *s,
			const struct ex_call *c)
{
	struct pf_buf *b = &s->b;

	pf_event(s, pf_ts(c->end > c->start ? c->end : c->start),
		 PF_TYPE_SLICE_END);
	for (uint32_t i = 0; i < c->nmsgs; i++)
		if (c->msgs[i].flow && pf_dir(&c->msgs[i]) == 1)
			pf_fixed64(b, PF_TE_TERMINATING_FLOW_IDS,
				   c->msgs[i].flow);
	pf_close(b);
	pf_close(b);
	return pf_emit(x, s);
}

/* The root track, parent of the ranks', which it lists in rank order. */
static int pf_root(struct ex *x, struct pf_sink *s)
{
	struct pf_buf *b = &s->b;

	pf_open(b, PF_TRACE_PACKET);
	pf_open(b, PF_PKT_TRACK_DESCRIPTOR);
	pf_uint(b, PF_TD_UUID, PF_ROOT_UUID);
	pf_str(b, PF_TD_NAME, "MPI ranks");
	pf_uint(b, PF_TD_CHILD_ORDERING, PF_ORDERING_EXPLICIT);
	pf_close(b);
	pf_close(b);
	return pf_emit(x, s);
}

/* ---- the sink ---------------------------------------------------------- */

static void pf_free(struct ex *x)
{
	struct pf_sink *s = x->sink;

	free(s->b.p);
	free(s->name_iid);
	free(s);
	x->sink = NULL;
}

static void pf_abort(struct ex *x)
{
	struct pf_sink *s = x->sink;

	if (!s)
		return;
	fileio_close(&s->out, 0, NULL, 0);
	pf_free(x);
}

/* On failure, nothing is left behind: abort is then a no-op. */
static int pf_begin(struct ex *x)
{
	struct pf_sink *s = calloc(1, sizeof(*s));
	char why[256];
	int rc;

	if (!s)
		return pf_fail(x, RONDO_E_NOMEM, "out of memory");
	x->sink = s;
	s->nfuncs = rondo_func_count(x->t);
	s->name_iid = calloc(s->nfuncs ? s->nfuncs : 1, sizeof(*s->name_iid));
	if (!s->name_iid) {
		pf_free(x);
		return pf_fail(x, RONDO_E_NOMEM, "out of memory");
	}
	if (fileio_create(&s->out, x->path, why, sizeof(why))) {
		pf_free(x);
		return pf_fail(x, RONDO_E_IO, why);
	}
	s->f = fileio_stream(&s->out);
	rc = s->f ? pf_root(x, s) : pf_fail(x, RONDO_E_NOMEM, "out of memory");
	if (rc)
		pf_abort(x);
	return rc;
}

/* The rank's track, on the first packet of its sequence: the state
 * interned before is forgotten, the category interned again. */
static int pf_rank_begin(struct ex *x, uint32_t rank)
{
	struct pf_sink *s = x->sink;
	struct pf_buf *b = &s->b;
	char name[32];

	if (rank >= INT32_MAX)
		return ex_fail(x, RONDO_E_RANGE, "rank %u is not an MPI rank",
			       rank);
	memset(s->name_iid, 0,
	       (s->nfuncs ? s->nfuncs : 1) * sizeof(*s->name_iid));
	s->next_iid = 1;
	s->arg_names = s->arg_new = 0;
	s->rank = rank;
	snprintf(name, sizeof(name), "rank %u", rank);
	pf_open(b, PF_TRACE_PACKET);
	pf_uint(b, PF_PKT_SEQUENCE_ID, pf_seq(rank));
	pf_uint(b, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_CLEARED | PF_SEQ_NEEDS);
	pf_open(b, PF_PKT_TRACK_DESCRIPTOR);
	pf_uint(b, PF_TD_UUID, pf_uuid(rank));
	pf_uint(b, PF_TD_PARENT_UUID, PF_ROOT_UUID);
	pf_str(b, PF_TD_NAME, name);
	pf_int(b, PF_TD_SIBLING_ORDER_RANK, rank);
	pf_close(b);
	pf_open(b, PF_PKT_INTERNED_DATA);
	pf_open(b, PF_ID_EVENT_CATEGORIES);
	pf_uint(b, PF_INTERNED_IID, PF_CAT_MPI);
	pf_str(b, PF_INTERNED_NAME, "mpi");
	pf_close(b);
	pf_close(b);
	pf_close(b);
	return pf_emit(x, s);
}

static int pf_call(struct ex *x, const struct ex_call *c)
{
	struct pf_sink *s = x->sink;
	int rc;

	if (c->func >= s->nfuncs)
		return ex_fail(x, RONDO_E_RANGE,
			       "call of function %u, past the trace's %u",
			       c->func, s->nfuncs);
	rc = pf_slice_begin(x, s, c);
	return rc ? rc : pf_slice_end(x, s, c);
}

static int pf_rank_end(struct ex *x, uint32_t rank)
{
	(void)x;
	(void)rank;
	return 0;
}

static int pf_end(struct ex *x)
{
	struct pf_sink *s = x->sink;
	char why[256];
	int err = fileio_close(&s->out, 1, why, sizeof(why));

	pf_free(x);
	return err ? pf_fail(x, RONDO_E_IO, why) : 0;
}

const struct ex_sink ex_sink_perfetto = {
	.name = "perfetto",
	.begin = pf_begin,
	.rank_begin = pf_rank_begin,
	.call = pf_call,
	.rank_end = pf_rank_end,
	.end = pf_end,
	.abort = pf_abort,
};
