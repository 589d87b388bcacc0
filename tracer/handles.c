/*
 * handles.c - symbolic ids for MPI handles, buffers and callbacks.
 *
 * A handle's value means nothing across ranks or runs, so the trace holds
 * small ids instead: per handle type, freed ids are reused lowest first, so
 * a loop that creates and frees a datatype keeps using the same id.  Predefined
 * handles are recorded by name.
 *
 * A handle value does not identify one object: Open MPI returns one shared
 * request for every small send that completes at once.  So a value maps to
 * an id with a reference count: creating it again while it is live gives
 * the same id, and it is released when every holder freed it.  An unknown
 * value (created before tracing began, or by a path we did not see) gets a
 * fresh id; nothing here ever stops the program.
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "runtime.h"
#include "util.h"

enum htype {
	H_COMM,
	H_GROUP,
	H_DATATYPE,
	H_OP,
	H_INFO,
	H_ERRHANDLER,
	H_WIN,
	H_FILE,
	H_MESSAGE,
	H_REQUEST,
	H_BUF,
	H_CALLBACK,
	H_SESSION, /* MPI 4 */
	H_COUNT
};

static struct hmap maps[H_COUNT];

static const uint32_t kind_of[H_COUNT] = {
	[H_COMM] = RONDO_ARG_COMM,	   [H_GROUP] = RONDO_ARG_GROUP,
	[H_DATATYPE] = RONDO_ARG_DATATYPE, [H_OP] = RONDO_ARG_OP,
	[H_INFO] = RONDO_ARG_INFO,	   [H_ERRHANDLER] = RONDO_ARG_ERRHANDLER,
	[H_WIN] = RONDO_ARG_WIN,	   [H_FILE] = RONDO_ARG_FILE,
	[H_MESSAGE] = RONDO_ARG_MESSAGE,   [H_REQUEST] = RONDO_ARG_REQUEST,
	[H_BUF] = RONDO_ARG_BUFFER,	   [H_CALLBACK] = RONDO_ARG_CALLBACK,
	[H_SESSION] = RONDO_ARG_SESSION,
};

/* ---- named constants ------------------------------------------------------ */

/* Values that are not handles, recorded by name. */
enum {
	C_ANY_SOURCE,
	C_ANY_TAG,
	C_PROC_NULL,
	C_ROOT,
	C_IN_PLACE,
	C_STATUS_IGNORE,
	C_STATUSES_IGNORE,
	C_UNTRACKED_BUFFER,
	C_UNDEFINED,
	C_UNWEIGHTED,
	C_WEIGHTS_EMPTY,
	C_CANCELLED,
	C_FIXED
};

static const char *const fixed_names[C_FIXED] = {
	"MPI_ANY_SOURCE",    "MPI_ANY_TAG",	    "MPI_PROC_NULL",
	"MPI_ROOT",	     "MPI_IN_PLACE",	    "MPI_STATUS_IGNORE",
	"MPI_STATUSES_IGNORE", "(buffer)",	    "MPI_UNDEFINED",
	"MPI_UNWEIGHTED",    "MPI_WEIGHTS_EMPTY",   "cancelled",
};

#define PREDEF(type, h) {type, #h}

/* Predefined handles, recorded by name; handles_init() maps their values
 * (known only at run time) to these constants. */
static const struct predef {
	enum htype type;
	const char *name;
} predef[] = {
	PREDEF(H_COMM, MPI_COMM_WORLD), PREDEF(H_COMM, MPI_COMM_SELF),
	PREDEF(H_COMM, MPI_COMM_NULL), PREDEF(H_GROUP, MPI_GROUP_EMPTY),
	PREDEF(H_GROUP, MPI_GROUP_NULL), PREDEF(H_REQUEST, MPI_REQUEST_NULL),
	PREDEF(H_OP, MPI_OP_NULL), PREDEF(H_OP, MPI_MAX), PREDEF(H_OP, MPI_MIN),
	PREDEF(H_OP, MPI_SUM), PREDEF(H_OP, MPI_PROD), PREDEF(H_OP, MPI_LAND),
	PREDEF(H_OP, MPI_BAND), PREDEF(H_OP, MPI_LOR), PREDEF(H_OP, MPI_BOR),
	PREDEF(H_OP, MPI_LXOR), PREDEF(H_OP, MPI_BXOR),
	PREDEF(H_OP, MPI_MAXLOC), PREDEF(H_OP, MPI_MINLOC),
	PREDEF(H_OP, MPI_REPLACE), PREDEF(H_OP, MPI_NO_OP),
	PREDEF(H_INFO, MPI_INFO_NULL), PREDEF(H_INFO, MPI_INFO_ENV),
	PREDEF(H_ERRHANDLER, MPI_ERRHANDLER_NULL),
	PREDEF(H_ERRHANDLER, MPI_ERRORS_ARE_FATAL),
	PREDEF(H_ERRHANDLER, MPI_ERRORS_RETURN),
	PREDEF(H_WIN, MPI_WIN_NULL), PREDEF(H_FILE, MPI_FILE_NULL),
	PREDEF(H_MESSAGE, MPI_MESSAGE_NULL),
	PREDEF(H_MESSAGE, MPI_MESSAGE_NO_PROC),
	PREDEF(H_DATATYPE, MPI_DATATYPE_NULL), PREDEF(H_DATATYPE, MPI_CHAR),
	PREDEF(H_DATATYPE, MPI_SIGNED_CHAR),
	PREDEF(H_DATATYPE, MPI_UNSIGNED_CHAR), PREDEF(H_DATATYPE, MPI_BYTE),
	PREDEF(H_DATATYPE, MPI_WCHAR), PREDEF(H_DATATYPE, MPI_SHORT),
	PREDEF(H_DATATYPE, MPI_UNSIGNED_SHORT), PREDEF(H_DATATYPE, MPI_INT),
	PREDEF(H_DATATYPE, MPI_UNSIGNED), PREDEF(H_DATATYPE, MPI_LONG),
	PREDEF(H_DATATYPE, MPI_UNSIGNED_LONG),
	PREDEF(H_DATATYPE, MPI_LONG_LONG_INT),
	PREDEF(H_DATATYPE, MPI_UNSIGNED_LONG_LONG),
	PREDEF(H_DATATYPE, MPI_FLOAT), PREDEF(H_DATATYPE, MPI_DOUBLE),
	PREDEF(H_DATATYPE, MPI_LONG_DOUBLE), PREDEF(H_DATATYPE, MPI_INT8_T),
	PREDEF(H_DATATYPE, MPI_INT16_T), PREDEF(H_DATATYPE, MPI_INT32_T),
	PREDEF(H_DATATYPE, MPI_INT64_T), PREDEF(H_DATATYPE, MPI_UINT8_T),
	PREDEF(H_DATATYPE, MPI_UINT16_T), PREDEF(H_DATATYPE, MPI_UINT32_T),
	PREDEF(H_DATATYPE, MPI_UINT64_T), PREDEF(H_DATATYPE, MPI_C_BOOL),
	PREDEF(H_DATATYPE, MPI_C_FLOAT_COMPLEX),
	PREDEF(H_DATATYPE, MPI_C_DOUBLE_COMPLEX), PREDEF(H_DATATYPE, MPI_AINT),
	PREDEF(H_DATATYPE, MPI_OFFSET), PREDEF(H_DATATYPE, MPI_COUNT),
	PREDEF(H_DATATYPE, MPI_PACKED), PREDEF(H_DATATYPE, MPI_FLOAT_INT),
	PREDEF(H_DATATYPE, MPI_DOUBLE_INT), PREDEF(H_DATATYPE, MPI_LONG_INT),
	PREDEF(H_DATATYPE, MPI_2INT), PREDEF(H_DATATYPE, MPI_SHORT_INT),
	PREDEF(H_DATATYPE, MPI_LONG_DOUBLE_INT),
#if MPI_VERSION >= 4
	PREDEF(H_SESSION, MPI_SESSION_NULL),
#endif
	/* Fortran's, which C may name too (a library without one of the
	 * sized ones makes it MPI_DATATYPE_NULL: left out) */
	PREDEF(H_DATATYPE, MPI_INTEGER), PREDEF(H_DATATYPE, MPI_REAL),
	PREDEF(H_DATATYPE, MPI_DOUBLE_PRECISION),
	PREDEF(H_DATATYPE, MPI_COMPLEX),
	PREDEF(H_DATATYPE, MPI_DOUBLE_COMPLEX),
	PREDEF(H_DATATYPE, MPI_LOGICAL), PREDEF(H_DATATYPE, MPI_CHARACTER),
	PREDEF(H_DATATYPE, MPI_2INTEGER), PREDEF(H_DATATYPE, MPI_2REAL),
	PREDEF(H_DATATYPE, MPI_2DOUBLE_PRECISION),
	PREDEF(H_DATATYPE, MPI_INTEGER1), PREDEF(H_DATATYPE, MPI_INTEGER2),
	PREDEF(H_DATATYPE, MPI_INTEGER4), PREDEF(H_DATATYPE, MPI_INTEGER8),
	PREDEF(H_DATATYPE, MPI_REAL4), PREDEF(H_DATATYPE, MPI_REAL8),
};

#define NPREDEF COUNTOF(predef)

uint32_t handles_const_undefined(void)
{
	return C_UNDEFINED;
}

uint32_t handles_const_cancelled(void)
{
	return C_CANCELLED;
}

/* Index in predef[] of a predefined handle, by name. */
static uint32_t predef_const(const char *name)
{
	for (size_t i = 0; i < NPREDEF; i++)
		if (!strcmp(predef[i].name, name))
			return (uint32_t)(C_FIXED + i);
	return UINT32_MAX;
}

uint32_t handles_const_request_null(void)
{
	return predef_const("MPI_REQUEST_NULL");
}

uint32_t handles_const_count(void)
{
	return C_FIXED + NPREDEF;
}

const char *handles_const_name(uint32_t i)
{
	if (i < C_FIXED)
		return fixed_names[i];
	return i < C_FIXED + NPREDEF ? predef[i - C_FIXED].name : NULL;
}

#define KEY(h) HMAP_KEY(h)

/* ---- datatype sizes ------------------------------------------------------- */

/* A message's bytes are its count times its datatype's size, so the trace
 * keeps sizes: of the predefined datatypes (section typesizes) and, with
 * each derived datatype's id, of that type (kind DTYPE_SIZE): an id freed
 * and reused for a type of another size gives other signatures. */
static int64_t predef_size[NPREDEF];
static int64_t *dt_size; /* by datatype id; -1: unknown */
static uint32_t dt_cap;

static int64_t type_size(MPI_Datatype h)
{
	MPI_Count n = 0;

	if (h == MPI_DATATYPE_NULL || PMPI_Type_size_x(h, &n) != MPI_SUCCESS ||
	    n < 0 || n == MPI_UNDEFINED)
		return -1;
	return (int64_t)n;
}

int64_t handles_const_type_size(uint32_t c)
{
	if (c < C_FIXED || c >= C_FIXED + NPREDEF ||
	    predef[c - C_FIXED].type != H_DATATYPE)
		return -1;
	return predef_size[c - C_FIXED];
}

/* The id of datatype h (key), made when absent (the lowest free one).
 * `create` (an output of a constructor that succeeded) also takes a
 * reference and asks the type's size; a type first seen as an input has
 * an unknown size. */
static uint32_t datatype_id(uint64_t key, MPI_Datatype h, int create)
{
	struct hmap *m = &maps[H_DATATYPE];
	uint32_t v = hmap_lookup(m, key);
	int64_t size;

	if (v != UINT32_MAX) {
		if (create)
			hmap_insert(m, key, v);
		return v;
	}
	size = create ? type_size(h) : -1;
	v = hmap_take_id(m);
	if (v >= dt_cap) {
		uint32_t cap = dt_cap ? dt_cap * 2 : 16, i;
		int64_t *p;

		while (cap <= v)
			cap *= 2;
		p = realloc(dt_size, cap * sizeof(*p));
		if (!p) {
			hmap_give_id(m, v);
			return UINT32_MAX;
		}
		for (i = dt_cap; i < cap; i++)
			p[i] = -1;
		dt_size = p;
		dt_cap = cap;
	}
	if (hmap_insert(m, key, v) < 0) {
		hmap_give_id(m, v);
		return UINT32_MAX;
	}
	dt_size[v] = size;
	return v;
}

static inline void put_handle(struct rec *r, enum htype t, uint32_t v);

static void put_datatype(struct rec *r, uint32_t v)
{
	struct fmt_buf *b = rec_args(r);

	if (v == UINT32_MAX || (v & CONST_FLAG) || v >= dt_cap ||
	    dt_size[v] < 0) {
		put_handle(r, H_DATATYPE, v);
		return;
	}
	fmt_arg_put_list(b, RONDO_ARG_DTYPE_SIZE, 2);
	fmt_arg_put_uint(b, RONDO_ARG_DATATYPE, v);
	fmt_arg_put_uint(b, RONDO_ARG_INT, (uint64_t)dt_size[v]);
}

void rec_datatype(struct rec *r, MPI_Datatype h)
{
	put_datatype(r, datatype_id(KEY(h), h, 0));
}

void rec_datatype_out(struct rec *r, MPI_Datatype h)
{
	put_datatype(r, datatype_id(KEY(h), h, 1));
}

void rec_datatype_inout(struct rec *r, MPI_Datatype before,
			MPI_Datatype after)
{
	uint64_t b = KEY(before), a = KEY(after);

	put_datatype(r, datatype_id(b, before, 0));
	if (a != b) {
		hmap_put(&maps[H_DATATYPE], b);
		rec_epoch_bump();
		(void)datatype_id(a, after, 1);
	}
}

void handles_init(void)
{
	static const MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF,
					 MPI_COMM_NULL};
	uint64_t keys[NPREDEF];
	int absent[NPREDEF] = {0};
	size_t k = 0;

	/* The handles' values, in the order of predef[] (the macros expand
	 * to expressions of different types, hence one by one). */
#define V(h) keys[k++] = KEY(h)
	/* Communicators have a table of their own (comms.c). */
	for (size_t i = 0; i < 3; i++) {
		comms_name(comms[i], (uint32_t)(C_FIXED + k));
		V(comms[i]);
	}
	{
		MPI_Group g[] = {MPI_GROUP_EMPTY, MPI_GROUP_NULL};
		MPI_Request q = MPI_REQUEST_NULL;
		MPI_Op o[] = {MPI_OP_NULL, MPI_MAX,  MPI_MIN,	 MPI_SUM,
			      MPI_PROD,	   MPI_LAND, MPI_BAND,	 MPI_LOR,
			      MPI_BOR,	   MPI_LXOR, MPI_BXOR,	 MPI_MAXLOC,
			      MPI_MINLOC,  MPI_REPLACE, MPI_NO_OP};
		MPI_Info in[] = {MPI_INFO_NULL, MPI_INFO_ENV};
		MPI_Errhandler e[] = {MPI_ERRHANDLER_NULL, MPI_ERRORS_ARE_FATAL,
				      MPI_ERRORS_RETURN};
		MPI_Win w = MPI_WIN_NULL;
		MPI_File f = MPI_FILE_NULL;
		MPI_Message msg[] = {MPI_MESSAGE_NULL, MPI_MESSAGE_NO_PROC};
		MPI_Datatype t[] = {
			MPI_DATATYPE_NULL, MPI_CHAR, MPI_SIGNED_CHAR,
			MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_WCHAR, MPI_SHORT,
			MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG,
			MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT,
			MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE,
			MPI_LONG_DOUBLE, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T,
			MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
			MPI_UINT64_T, MPI_C_BOOL, MPI_C_FLOAT_COMPLEX,
			MPI_C_DOUBLE_COMPLEX, MPI_AINT, MPI_OFFSET, MPI_COUNT,
			MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT,
			MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
			MPI_LONG_DOUBLE_INT};

		for (size_t i = 0; i < 2; i++)
			V(g[i]);
		V(q);
		for (size_t i = 0; i < COUNTOF(o); i++)
			V(o[i]);
		for (size_t i = 0; i < 2; i++)
			V(in[i]);
		for (size_t i = 0; i < 3; i++)
			V(e[i]);
		V(w);
		V(f);
		for (size_t i = 0; i < 2; i++)
			V(msg[i]);
		for (size_t i = 0; i < COUNTOF(t); i++) {
			predef_size[k] = i ? type_size(t[i]) : -1;
			V(t[i]);
		}
#if MPI_VERSION >= 4
		{
			MPI_Session s = MPI_SESSION_NULL;

			V(s);
		}
#endif
	}
	{
		MPI_Datatype t[] = {
			MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
			MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL,
			MPI_CHARACTER, MPI_2INTEGER, MPI_2REAL,
			MPI_2DOUBLE_PRECISION, MPI_INTEGER1, MPI_INTEGER2,
			MPI_INTEGER4, MPI_INTEGER8, MPI_REAL4, MPI_REAL8};

		for (size_t i = 0; i < COUNTOF(t); i++) {
			absent[k] = t[i] == MPI_DATATYPE_NULL;
			predef_size[k] = type_size(t[i]);
			V(t[i]);
		}
	}
#undef V
	/* Requests have a table of their own too (requests.c). */
	for (size_t i = 0; i < k && i < NPREDEF; i++)
		if (predef[i].type != H_COMM && predef[i].type != H_REQUEST &&
		    !absent[i])
			hmap_set_const(&maps[predef[i].type], keys[i],
				       (uint32_t)(C_FIXED + i));
	requests_init(handles_const_request_null());
}

/* ---- recording ---------------------------------------------------------------- */

static void put_const(struct rec *r, uint32_t c)
{
	fmt_arg_put_uint(rec_args(r), RONDO_ARG_CONST, c);
}

/* Records value v of map type t as a constant or a symbolic id. */
static inline __attribute__((always_inline)) void put_handle(struct rec *r,
							   enum htype t,
							   uint32_t v)
{
	if (v == UINT32_MAX) {
		rt.failed = 1;
		fmt_arg_put_none(rec_args(r), RONDO_ARG_NULL);
	} else if (v & CONST_FLAG) {
		put_const(r, v & ~CONST_FLAG);
	} else {
		fmt_arg_put_uint(rec_args(r), kind_of[t], v);
	}
}

#define REC_HANDLE(H, T, TYPE)                                                 \
	void rec_##H(struct rec *r, T h)                                       \
	{                                                                      \
		put_handle(r, TYPE, hmap_get(&maps[TYPE], KEY(h), 0));         \
	}                                                                      \
	void rec_##H##_out(struct rec *r, T h)                                 \
	{                                                                      \
		put_handle(r, TYPE, hmap_get(&maps[TYPE], KEY(h), 1));         \
	}                                                                      \
	void rec_##H##_inout(struct rec *r, T before, T after)                 \
	{                                                                      \
		uint64_t b = KEY(before), a = KEY(after);                      \
		put_handle(r, TYPE, hmap_get(&maps[TYPE], b, 0));              \
		if (a != b) {                                                  \
			hmap_put(&maps[TYPE], b);                              \
			rec_epoch_bump();                                      \
			(void)hmap_get(&maps[TYPE], a, 1);                     \
		}                                                              \
	}

REC_HANDLE(group, MPI_Group, H_GROUP)
REC_HANDLE(op, MPI_Op, H_OP)
REC_HANDLE(info, MPI_Info, H_INFO)
REC_HANDLE(errhandler, MPI_Errhandler, H_ERRHANDLER)
REC_HANDLE(win, MPI_Win, H_WIN)
REC_HANDLE(file, MPI_File, H_FILE)
REC_HANDLE(message, MPI_Message, H_MESSAGE)
#if MPI_VERSION >= 4
REC_HANDLE(session, MPI_Session, H_SESSION)
#endif
#undef REC_HANDLE

/* A buffer as (segment, offset).  Inside a live heap block: the block's
 * segment, which keeps its id until the block is freed.  Elsewhere (stack,
 * static data, memory allocated where the tracker cannot see): a segment
 * per distinct address, offset 0, for the rest of the run, so a loop that
 * reuses one stack buffer names it alike every time.  Both kinds take ids
 * from one pool (alloc.c), lowest free first: an id names one thing at a
 * time, and ranks that do the same things get the same ids. */
static void put_buffer(struct rec *r, const void *p)
{
	static int warned;
	struct fmt_buf *b = rec_args(r);
	uint64_t key = (uint64_t)(uintptr_t)p, off = 0;
	uint32_t id;

	if (!alloc_segment(p, &id, &off)) {
		r->lv->nonheap++;
		id = hmap_lookup(&maps[H_BUF], key);
		if (id == UINT32_MAX &&
		    ((id = alloc_new_id()) == UINT32_MAX ||
		     hmap_insert(&maps[H_BUF], key, id) < 0)) {
			rt.failed = 1;
			fmt_arg_put_none(b, RONDO_ARG_NULL);
			return;
		}
	}
	if (!warned && alloc_untracked()) {
		warned = 1;
		rt_warn("out of memory tracking allocations: some buffers "
			"are recorded by address");
	}
	fmt_arg_put_list(b, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(b, RONDO_ARG_INT, id);
	fmt_arg_put_sint(b, RONDO_ARG_INT, (int64_t)off);
}

void rec_buf(struct rec *r, const void *p)
{
	struct fmt_buf *b = rec_args(r);

	if (!p) {
		fmt_arg_put_none(b, RONDO_ARG_NULL);
	} else if (p == MPI_IN_PLACE) {
		put_const(r, C_IN_PLACE);
	} else if (p == MPI_UNWEIGHTED) {
		put_const(r, C_UNWEIGHTED);
	} else if (p == MPI_WEIGHTS_EMPTY) {
		put_const(r, C_WEIGHTS_EMPTY);
	} else if (!rt.track_pointers) {
		put_const(r, C_UNTRACKED_BUFFER);
	} else {
		put_buffer(r, p);
	}
}

/* Absolute addresses in MPI_Aint displacements differ from rank to rank
 * and run to run; as (segment, offset) they name the same thing
 * everywhere.  A heap block says it is an address; outside the heap,
 * nothing 4 GiB or more from 0 is a relative displacement. */
void rec_disp(struct rec *r, MPI_Aint v)
{
	const MPI_Aint far = (MPI_Aint)1 << 32;
	uint64_t off;
	uint32_t id;

	if (v != 0 && (v >= far || v <= -far ||
		       alloc_segment((const void *)(intptr_t)v, &id, &off)))
		rec_buf(r, (const void *)(intptr_t)v);
	else
		rec_int(r, v);
}

void rec_callback(struct rec *r, void (*fn)(void))
{
	if (!fn) {
		fmt_arg_put_none(rec_args(r), RONDO_ARG_NULL);
		return;
	}
	put_handle(r, H_CALLBACK,
		   hmap_get(&maps[H_CALLBACK], (uint64_t)(uintptr_t)fn, 0));
}

void rec_tag(struct rec *r, int tag)
{
	if (tag == MPI_ANY_TAG) {
		put_const(r, C_ANY_TAG);
		return;
	}
	fmt_arg_put_sint(rec_args(r), RONDO_ARG_TAG, tag);
}

/* A rank relative to `me` in a group of `size`, taken modulo the size
 * into (-size/2, size/2]: so the periodic neighbour of rank 0 (size - 1)
 * is -1, as for every other rank, and a periodic stencil gives every rank
 * the same signatures. */
static int64_t rank_offset(int rank, int me, int size)
{
	/* both are ranks of the group: no division needed (this runs for
	 * every peer of every call) */
	int64_t d = (int64_t)rank - me;

	if (d < 0)
		d += size;
	return d > size / 2 ? d - size : d;
}

void rec_rank(struct rec *r, int rank, MPI_Comm comm)
{
	const struct comm_cart *g = NULL;
	int me, size, inter = 1, known;

	if (rank == MPI_ANY_SOURCE)
		put_const(r, C_ANY_SOURCE);
	else if (rank == MPI_PROC_NULL)
		put_const(r, C_PROC_NULL);
	else if (rank == MPI_ROOT)
		put_const(r, C_ROOT);
	else if (rank == MPI_UNDEFINED)
		put_const(r, C_UNDEFINED);
	else if (comm == MPI_COMM_NULL ||
		 (known = comms_rank(comm, &me, &size, &g)) > 0 ||
		 (known < 0 &&
		  (PMPI_Comm_test_inter(comm, &inter) || inter ||
		   PMPI_Comm_rank(comm, &me) || PMPI_Comm_size(comm, &size))) ||
		 rank < 0 || rank >= size)
		/* an intercommunicator's ranks are in the other group */
		fmt_arg_put_sint(rec_args(r), RONDO_ARG_RANK, rank);
	else if (g)
		/* a grid: the offset on each dimension, so that periodic
		 * neighbours look alike on every rank */
		fmt_arg_put_sint(rec_args(r), RONDO_ARG_CART_REL,
				 comms_cart_offset(g, me, rank));
	else
		fmt_arg_put_sint(rec_args(r), RONDO_ARG_RANK_REL,
				 rank_offset(rank, me, size));
}

void rec_root(struct rec *r, int root)
{
	if (root == MPI_ROOT)
		put_const(r, C_ROOT);
	else if (root == MPI_PROC_NULL)
		put_const(r, C_PROC_NULL);
	else
		fmt_arg_put_sint(rec_args(r), RONDO_ARG_RANK, root);
}

void rec_statuses_ignored(struct rec *r)
{
	put_const(r, C_STATUSES_IGNORE);
}

void rec_status_ignored(struct rec *r)
{
	put_const(r, C_STATUS_IGNORE);
}

void rec_status_source(struct rec *r, int source, int me, int size)
{
	struct fmt_buf *b = rec_args(r);

	/* An empty status (MPI_ANY_SOURCE) and one from MPI_PROC_NULL name
	 * their values. */
	if (source == MPI_ANY_SOURCE)
		fmt_arg_put_uint(b, RONDO_ARG_CONST, C_ANY_SOURCE);
	else if (source == MPI_PROC_NULL)
		fmt_arg_put_uint(b, RONDO_ARG_CONST, C_PROC_NULL);
	else if (me < 0 || source < 0 || source >= size)
		fmt_arg_put_sint(b, RONDO_ARG_RANK, source);
	else
		fmt_arg_put_sint(b, RONDO_ARG_RANK_REL,
				 rank_offset(source, me, size));
}
