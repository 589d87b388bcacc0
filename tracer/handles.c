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
	[H_COMM] = RONDO_ARG_COMM,
	[H_GROUP] = RONDO_ARG_GROUP,
	[H_DATATYPE] = RONDO_ARG_DATATYPE,
	[H_OP] = RONDO_ARG_OP,
	[H_INFO] = RONDO_ARG_INFO,
	[H_ERRHANDLER] = RONDO_ARG_ERRHANDLER,
	[H_WIN] = RONDO_ARG_WIN,
	[H_FILE] = RONDO_ARG_FILE,
	[H_MESSAGE] = RONDO_ARG_MESSAGE,
	[H_REQUEST] = RONDO_ARG_REQUEST,
	[H_BUF] = RONDO_ARG_BUFFER,
	[H_CALLBACK] = RONDO_ARG_CALLBACK,
	[H_SESSION] = RONDO_ARG_SESSION,
};

/* ---- named constants ----------------------------------------------------- */

/* Values that are not handles, recorded by name: X(C_ suffix, name). */
/* clang-format off */
#define FIXED_CONSTS(X)                                                        \
	X(ANY_SOURCE, "MPI_ANY_SOURCE") X(ANY_TAG, "MPI_ANY_TAG")              \
	X(PROC_NULL, "MPI_PROC_NULL") X(ROOT, "MPI_ROOT")                      \
	X(IN_PLACE, "MPI_IN_PLACE") X(STATUS_IGNORE, "MPI_STATUS_IGNORE")      \
	X(STATUSES_IGNORE, "MPI_STATUSES_IGNORE")                              \
	X(UNTRACKED_BUFFER, "(buffer)") X(UNDEFINED, "MPI_UNDEFINED")          \
	X(UNWEIGHTED, "MPI_UNWEIGHTED") X(WEIGHTS_EMPTY, "MPI_WEIGHTS_EMPTY")  \
	X(CANCELLED, "cancelled")
/* clang-format on */

#define FIXED_ENUM(id, name) C_##id,
enum { FIXED_CONSTS(FIXED_ENUM) C_FIXED };
#undef FIXED_ENUM

#define FIXED_NAME(id, name) [C_##id] = name,
static const char *const fixed_names[C_FIXED] = {FIXED_CONSTS(FIXED_NAME)};
#undef FIXED_NAME

/* The predefined handles, recorded by name: constant C_FIXED + i is the
 * i-th here (traces name them, so new ones go at the end), X(type,
 * handle).  F(type, handle) are Fortran's datatypes, which C may name
 * too: a library without one of the sized ones makes it
 * MPI_DATATYPE_NULL, and it is left out of the maps. */
#if MPI_VERSION >= 4
#define PREDEF_MPI4(X) X(H_SESSION, MPI_SESSION_NULL)
#else
#define PREDEF_MPI4(X)
#endif
/* clang-format off */
#define PREDEF_HANDLES(X, F)                                                   \
	X(H_COMM, MPI_COMM_WORLD) X(H_COMM, MPI_COMM_SELF)                     \
	X(H_COMM, MPI_COMM_NULL) X(H_GROUP, MPI_GROUP_EMPTY)                   \
	X(H_GROUP, MPI_GROUP_NULL) X(H_REQUEST, MPI_REQUEST_NULL)              \
	X(H_OP, MPI_OP_NULL) X(H_OP, MPI_MAX) X(H_OP, MPI_MIN)                 \
	X(H_OP, MPI_SUM) X(H_OP, MPI_PROD) X(H_OP, MPI_LAND)                   \
	X(H_OP, MPI_BAND) X(H_OP, MPI_LOR) X(H_OP, MPI_BOR)                    \
	X(H_OP, MPI_LXOR) X(H_OP, MPI_BXOR) X(H_OP, MPI_MAXLOC)                \
	X(H_OP, MPI_MINLOC) X(H_OP, MPI_REPLACE) X(H_OP, MPI_NO_OP)            \
	X(H_INFO, MPI_INFO_NULL) X(H_INFO, MPI_INFO_ENV)                       \
	X(H_ERRHANDLER, MPI_ERRHANDLER_NULL)                                   \
	X(H_ERRHANDLER, MPI_ERRORS_ARE_FATAL)                                  \
	X(H_ERRHANDLER, MPI_ERRORS_RETURN)                                     \
	X(H_WIN, MPI_WIN_NULL) X(H_FILE, MPI_FILE_NULL)                        \
	X(H_MESSAGE, MPI_MESSAGE_NULL) X(H_MESSAGE, MPI_MESSAGE_NO_PROC)       \
	X(H_DATATYPE, MPI_DATATYPE_NULL) X(H_DATATYPE, MPI_CHAR)               \
	X(H_DATATYPE, MPI_SIGNED_CHAR) X(H_DATATYPE, MPI_UNSIGNED_CHAR)        \
	X(H_DATATYPE, MPI_BYTE) X(H_DATATYPE, MPI_WCHAR)                       \
	X(H_DATATYPE, MPI_SHORT) X(H_DATATYPE, MPI_UNSIGNED_SHORT)             \
	X(H_DATATYPE, MPI_INT) X(H_DATATYPE, MPI_UNSIGNED)                     \
	X(H_DATATYPE, MPI_LONG) X(H_DATATYPE, MPI_UNSIGNED_LONG)               \
	X(H_DATATYPE, MPI_LONG_LONG_INT) X(H_DATATYPE, MPI_UNSIGNED_LONG_LONG) \
	X(H_DATATYPE, MPI_FLOAT) X(H_DATATYPE, MPI_DOUBLE)                     \
	X(H_DATATYPE, MPI_LONG_DOUBLE) X(H_DATATYPE, MPI_INT8_T)               \
	X(H_DATATYPE, MPI_INT16_T) X(H_DATATYPE, MPI_INT32_T)                  \
	X(H_DATATYPE, MPI_INT64_T) X(H_DATATYPE, MPI_UINT8_T)                  \
	X(H_DATATYPE, MPI_UINT16_T) X(H_DATATYPE, MPI_UINT32_T)                \
	X(H_DATATYPE, MPI_UINT64_T) X(H_DATATYPE, MPI_C_BOOL)                  \
	X(H_DATATYPE, MPI_C_FLOAT_COMPLEX) X(H_DATATYPE, MPI_C_DOUBLE_COMPLEX) \
	X(H_DATATYPE, MPI_AINT) X(H_DATATYPE, MPI_OFFSET)                      \
	X(H_DATATYPE, MPI_COUNT) X(H_DATATYPE, MPI_PACKED)                     \
	X(H_DATATYPE, MPI_FLOAT_INT) X(H_DATATYPE, MPI_DOUBLE_INT)             \
	X(H_DATATYPE, MPI_LONG_INT) X(H_DATATYPE, MPI_2INT)                    \
	X(H_DATATYPE, MPI_SHORT_INT) X(H_DATATYPE, MPI_LONG_DOUBLE_INT)        \
	PREDEF_MPI4(X)                                                         \
	F(H_DATATYPE, MPI_INTEGER) F(H_DATATYPE, MPI_REAL)                     \
	F(H_DATATYPE, MPI_DOUBLE_PRECISION) F(H_DATATYPE, MPI_COMPLEX)         \
	F(H_DATATYPE, MPI_DOUBLE_COMPLEX) F(H_DATATYPE, MPI_LOGICAL)           \
	F(H_DATATYPE, MPI_CHARACTER) F(H_DATATYPE, MPI_2INTEGER)               \
	F(H_DATATYPE, MPI_2REAL) F(H_DATATYPE, MPI_2DOUBLE_PRECISION)          \
	F(H_DATATYPE, MPI_INTEGER1) F(H_DATATYPE, MPI_INTEGER2)                \
	F(H_DATATYPE, MPI_INTEGER4) F(H_DATATYPE, MPI_INTEGER8)                \
	F(H_DATATYPE, MPI_REAL4) F(H_DATATYPE, MPI_REAL8)
/* clang-format on */

/* Their names; handles_init() maps their values (known only at run time)
 * to these constants. */
#define PREDEF_ENTRY(type, h) {type, #h},
static const struct predef {
	enum htype type;
	const char *name;
} predef[] = {PREDEF_HANDLES(PREDEF_ENTRY, PREDEF_ENTRY)};
#undef PREDEF_ENTRY

#define NPREDEF COUNTOF(predef)

uint32_t handles_const_undefined(void)
{
	return C_UNDEFINED;
}

uint32_t handles_const_cancelled(void)
{
	return C_CANCELLED;
}

uint32_t handles_const_status_ignore(void)
{
	return C_STATUS_IGNORE;
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

/* ---- datatype sizes ------------------------------------------------------ */

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

void rec_datatype_inout(struct rec *r, MPI_Datatype before, MPI_Datatype after)
{
	uint64_t b = KEY(before), a = KEY(after);

	put_datatype(r, datatype_id(b, before, 0));
	if (a != b) {
		hmap_put(&maps[H_DATATYPE], b);
		rec_epoch_bump();
		(void)datatype_id(a, after, 1);
	}
}

/* Keys the value h of the k-th predefined handle, in a variable of its
 * type (MPI's macros expand to expressions of different types), by the
 * type PREDEF_HANDLES gives: communicators are named in comms.c's table
 * too, and datatypes' sizes kept. */
#define PREDEF_KEY(ctype, h)                                                   \
	ctype v = (h);                                                         \
	keys[k] = KEY(v);
#define PREDEF_H_COMM(h)                                                       \
	PREDEF_KEY(MPI_Comm, h) comms_name(v, (uint32_t)(C_FIXED + k));
#define PREDEF_H_GROUP(h)      PREDEF_KEY(MPI_Group, h)
#define PREDEF_H_REQUEST(h)    PREDEF_KEY(MPI_Request, h)
#define PREDEF_H_OP(h)	       PREDEF_KEY(MPI_Op, h)
#define PREDEF_H_INFO(h)       PREDEF_KEY(MPI_Info, h)
#define PREDEF_H_ERRHANDLER(h) PREDEF_KEY(MPI_Errhandler, h)
#define PREDEF_H_WIN(h)	       PREDEF_KEY(MPI_Win, h)
#define PREDEF_H_FILE(h)       PREDEF_KEY(MPI_File, h)
#define PREDEF_H_MESSAGE(h)    PREDEF_KEY(MPI_Message, h)
#define PREDEF_H_SESSION(h)    PREDEF_KEY(MPI_Session, h)
#define PREDEF_H_DATATYPE(h)                                                   \
	PREDEF_KEY(MPI_Datatype, h) predef_size[k] = type_size(v);

void handles_init(void)
{
	uint64_t keys[NPREDEF];
	int absent[NPREDEF] = {0};
	size_t k = 0;

#define PREDEF_VALUE(type, h)                                                  \
	{                                                                      \
		PREDEF_##type(h) k++;                                          \
	}
#define PREDEF_FORTRAN(type, h)                                                \
	{                                                                      \
		absent[k] = (h) == MPI_DATATYPE_NULL;                          \
		PREDEF_VALUE(type, h)                                          \
	}
	PREDEF_HANDLES(PREDEF_VALUE, PREDEF_FORTRAN)
#undef PREDEF_VALUE
#undef PREDEF_FORTRAN
	/* Requests have a table of their own too (requests.c). */
	for (size_t i = 0; i < NPREDEF; i++)
		if (predef[i].type != H_COMM && predef[i].type != H_REQUEST &&
		    !absent[i])
			hmap_set_const(&maps[predef[i].type], keys[i],
				       (uint32_t)(C_FIXED + i));
	requests_init(handles_const_request_null());
}

/* ---- recording ----------------------------------------------------------- */

static void put_const(struct rec *r, uint32_t c)
{
	fmt_arg_put_uint(rec_args(r), RONDO_ARG_CONST, c);
}

/* Records value v of map type t as a constant or a symbolic id. */
static inline __attribute__((always_inline)) void
put_handle(struct rec *r, enum htype t, uint32_t v)
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
