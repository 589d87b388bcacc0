/*
 * sig_format.c - call signatures and rank groups as text.
 *
 * Both formatters follow snprintf: they write what fits, always terminate,
 * and return the length the whole text needs.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace_int.h"

/* Elements of an array printed before "..." */
#define FORMAT_MAX_ELEMS 8

struct out {
	char *buf;
	size_t size;
	size_t len; /* what the text needs, may exceed size */
};

static void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char *at = o->len < o->size ? o->buf + o->len : NULL;
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(at, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

/* Short names for symbolic handles, indexed by kind. */
static const char *const handle_prefix[RONDO_ARG_KIND_COUNT] = {
	[RONDO_ARG_COMM] = "c",	       [RONDO_ARG_GROUP] = "g",
	[RONDO_ARG_DATATYPE] = "t",    [RONDO_ARG_OP] = "op",
	[RONDO_ARG_REQUEST] = "r",     [RONDO_ARG_INFO] = "i",
	[RONDO_ARG_ERRHANDLER] = "eh", [RONDO_ARG_WIN] = "w",
	[RONDO_ARG_FILE] = "f",	       [RONDO_ARG_MESSAGE] = "msg",
	[RONDO_ARG_SESSION] = "s",     [RONDO_ARG_CALLBACK] = "fn",
};

/* What formatting needs besides the value: the trace, the caller's world
 * rank (RONDO_RANK_NONE: not given) and the communicator ranks are of
 * (ranks.c resolves them; while the caller's place in it is not known,
 * relative ranks are written relative). */
struct fctx {
	const rondo_trace *t;
	uint32_t rank;
	rondo_comm_ref cm;
};

/* The caller's rank in an intracommunicator is known: relative ranks are
 * written as the absolute ones the program passed. */
static int fctx_known(const struct fctx *c)
{
	return c->cm.rank != RONDO_RANK_NONE && c->cm.first == 0;
}

static void format_value(struct out *o, const struct fctx *c,
			 const rondo_arg *a);

static void format_list(struct out *o, const struct fctx *c, const rondo_arg *a,
			const char *open, const char *close)
{
	rondo_arg e;

	out_printf(o, "%s", open);
	for (uint64_t k = 0; k < a->n && k < FORMAT_MAX_ELEMS; k++) {
		if (rondo_arg_elem(a, k, &e) < 0)
			break;
		out_printf(o, "%s", k ? ", " : "");
		format_value(o, c, &e);
	}
	if (a->n > FORMAT_MAX_ELEMS)
		out_printf(o, ", ... %" PRIu64 " in all", a->n);
	out_printf(o, "%s", close);
}

static void format_string(struct out *o, const rondo_arg *a)
{
	out_printf(o, "\"");
	for (size_t i = 0; i < a->size; i++) {
		unsigned char ch = a->data[i];

		if (ch == '"' || ch == '\\')
			out_printf(o, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			out_printf(o, "\\x%02x", ch);
		else
			out_printf(o, "%c", ch);
	}
	out_printf(o, "\"");
}

/* A value whose kind this library does not know, by its wire form. */
static void format_generic(struct out *o, const struct fctx *c,
			   const rondo_arg *a)
{
	out_printf(o, "?%" PRIu32 ":", a->kind);
	switch (a->wire) {
	case RONDO_WIRE_UINT: out_printf(o, "%" PRIu64, a->u); break;
	case RONDO_WIRE_SINT: out_printf(o, "%" PRId64, a->i); break;
	case RONDO_WIRE_BYTES: out_printf(o, "<%zu bytes>", a->size); break;
	case RONDO_WIRE_LIST: format_list(o, c, a, "[", "]"); break;
	default: out_printf(o, "-"); break;
	}
}

static void format_buffer(struct out *o, const struct fctx *c,
			  const rondo_arg *a)
{
	rondo_arg seg, off;

	if (a->n == 2 && rondo_arg_elem(a, 0, &seg) == 0 &&
	    rondo_arg_elem(a, 1, &off) == 0 && seg.wire == RONDO_WIRE_UINT &&
	    off.wire == RONDO_WIRE_SINT)
		out_printf(o, "m%" PRIu64 "%+" PRId64, seg.u, off.i);
	else
		format_list(o, c, a, "buf[", "]");
}

/* The name of the status field value `e` gives, by its kind: a source
 * is a rank (or MPI_ANY_SOURCE, MPI_PROC_NULL), a tag a tag (or
 * MPI_ANY_TAG), a count an integer (or MPI_UNDEFINED); NULL for a flag
 * ("cancelled") or a value of no known field. */
static const char *status_field(const struct fctx *c, const rondo_arg *e)
{
	const char *name;

	switch (e->kind) {
	case RONDO_ARG_RANK:
	case RONDO_ARG_RANK_REL: return "source";
	case RONDO_ARG_TAG: return "tag";
	case RONDO_ARG_COMM: return "comm";
	case RONDO_ARG_INT: return "count";
	case RONDO_ARG_CONST:
		name = e->wire == RONDO_WIRE_UINT && e->u <= UINT32_MAX
			       ? rondo_const_name(c->t, (uint32_t)e->u)
			       : NULL;
		if (!name)
			return NULL;
		if (!strcmp(name, "MPI_ANY_SOURCE") ||
		    !strcmp(name, "MPI_PROC_NULL"))
			return "source";
		if (!strcmp(name, "MPI_ANY_TAG"))
			return "tag";
		if (!strcmp(name, "MPI_UNDEFINED"))
			return "count";
		if (!strncmp(name, "MPI_COMM_", 9))
			return "comm";
		return NULL;
	}
	return NULL;
}

/* Name is `want` (either may be NULL). */
static int format_is(const char *name, const char *want)
{
	return name && want && !strcmp(name, want);
}

/* A status: its fields by name, "status{source=3, tag=7}", or
 * "MPI_STATUS_IGNORE{source=3}" for one the program did not ask for.  The source is
 * a rank of the communicator the status names last (a Wait's, whose call
 * names none), else of the call's (a blocking receive's), else of the
 * world (rondo_status_comm).  The fields that can be inferred are not
 * stored: status{} says nothing more than the call that was completed. */
static void format_status(struct out *o, const struct fctx *c,
			  const rondo_arg *a)
{
	struct fctx w = {c->t, c->rank, {0}};
	const char *field;
	rondo_arg e;

	uint64_t n = a->n;

	rondo_status_comm(c->t, a, &c->cm, c->rank, &w.cm);
	/* a status the program ignored, kept by the tracer: marked last */
	if (n > 0 && rondo_arg_elem(a, n - 1, &e) == 0 &&
	    e.kind == RONDO_ARG_CONST && e.wire == RONDO_WIRE_UINT &&
	    e.u <= UINT32_MAX &&
	    format_is(rondo_const_name(c->t, (uint32_t)e.u),
		      "MPI_STATUS_IGNORE")) {
		out_printf(o, "MPI_STATUS_IGNORE");
		n--;
	} else {
		out_printf(o, "status");
	}
	out_printf(o, "{");
	for (uint64_t k = 0; k < n && k < FORMAT_MAX_ELEMS; k++) {
		if (rondo_arg_elem(a, k, &e) < 0)
			break;
		out_printf(o, "%s", k ? ", " : "");
		field = status_field(c, &e);
		if (field)
			out_printf(o, "%s=", field);
		format_value(o, &w, &e);
	}
	out_printf(o, "}");
}

/* A rank of a Cartesian communicator: absolute when the caller's rank
 * is known, else its offset on each dimension, "+(0,-1)".  0 when the
 * communicator's grid is not known or does not hold the offset. */
static int format_cart(struct out *o, const struct fctx *c, const rondo_arg *a)
{
	uint32_t dims[RONDO_MAX_DIMS], nd;
	int64_t d[RONDO_MAX_DIMS], peer;

	if (c->cm.id < 0)
		return 0;
	if (fctx_known(c)) {
		rondo_peer(c->t, &c->cm, a, &peer);
		if (peer < 0)
			return 0;
		out_printf(o, "%" PRId64, peer);
		return 1;
	}
	nd = rondo_comm_cart(c->t, (uint32_t)c->cm.id, dims, NULL,
			     RONDO_MAX_DIMS);
	if (nd == 0 || nd > RONDO_MAX_DIMS ||
	    rondo_cart_peer(nd, dims, 0, a->i, d) < 0)
		return 0;
	out_printf(o, "+(");
	for (uint32_t k = 0; k < nd; k++)
		out_printf(o, "%s%" PRId64, k ? "," : "", d[k]);
	out_printf(o, ")");
	return 1;
}

static void format_value(struct out *o, const struct fctx *c,
			 const rondo_arg *a)
{
	const char *name;

	if (a->kind < RONDO_ARG_KIND_COUNT && handle_prefix[a->kind] &&
	    a->wire == RONDO_WIRE_UINT) {
		out_printf(o, "%s%" PRIu64, handle_prefix[a->kind], a->u);
		return;
	}
	switch (a->kind) {
	case RONDO_ARG_NULL: out_printf(o, "NULL"); return;
	case RONDO_ARG_VARY: { /* the caller's own value, when known */
		rondo_arg v;

		if (a->wire != RONDO_WIRE_UINT)
			break;
		if (rondo_arg_at_rank(c->t, a, c->rank, &v) == 0 &&
		    v.kind != RONDO_ARG_VARY)
			format_value(o, c, &v);
		else
			out_printf(o, "rankval#%" PRIu64, a->u);
		return;
	}
	case RONDO_ARG_MERGED: { /* ~the standing value[the range] */
		rondo_arg v;
		rondo_merged_loop h;

		int rc = rondo_arg_merged(c->t, a, &v, &h);

		if (v.kind == RONDO_ARG_MERGED) /* unreadable: generic */
			break;
		out_printf(o, "~");
		if (v.kind == RONDO_ARG_RANK_REL && v.wire == RONDO_WIRE_SINT) {
			/* a peer: offsets from the caller, whatever the rank
			 * (the histogram's are how far, on the written
			 * side) */
			int neg = v.i < 0;

			out_printf(o, "%+" PRId64, v.i);
			if (rc == 1)
				out_printf(o, "[%s%" PRIu64 "..%s%" PRIu64 "]",
					   neg ? "-" : "+", neg ? h.max : h.min,
					   neg ? "-" : "+",
					   neg ? h.min : h.max);
			else
				out_printf(o, "[?]");
			return;
		}
		format_value(o, c, &v);
		if (rc == 1)
			out_printf(o, "[%" PRIu64 "-%" PRIu64 "]", h.min,
				   h.max);
		else /* its histogram lost with a damaged section */
			out_printf(o, "[?]");
		return;
	}
	case RONDO_ARG_INT:
	case RONDO_ARG_RANK:
	case RONDO_ARG_TAG:
		if (a->wire == RONDO_WIRE_SINT) {
			out_printf(o, "%" PRId64, a->i);
			return;
		}
		break;
	case RONDO_ARG_RANK_REL: {
		int64_t peer = -1;

		if (a->wire != RONDO_WIRE_SINT)
			break;
		if (fctx_known(c)) /* the caller's rank is known: absolute */
			rondo_peer(c->t, &c->cm, a, &peer);
		if (peer >= 0)
			out_printf(o, "%" PRId64, peer);
		else
			out_printf(o, "%+" PRId64, a->i);
		return;
	}
	case RONDO_ARG_CART_REL:
		if (a->wire == RONDO_WIRE_SINT && format_cart(o, c, a))
			return;
		break;
	case RONDO_ARG_REL:
		if (a->wire != RONDO_WIRE_SINT)
			break;
		if (fctx_known(c)) /* the caller's rank is known */
			out_printf(o, "%" PRId64, (int64_t)c->cm.rank + a->i);
		else
			out_printf(o, "rank%+" PRId64, a->i);
		return;
	case RONDO_ARG_DTYPE_SIZE: { /* t3:32B */
		rondo_arg id, size;

		if (a->wire == RONDO_WIRE_LIST && a->n == 2 &&
		    rondo_arg_elem(a, 0, &id) == 0 &&
		    rondo_arg_elem(a, 1, &size) == 0 &&
		    id.wire == RONDO_WIRE_UINT &&
		    size.wire == RONDO_WIRE_UINT) {
			out_printf(o, "t%" PRIu64 ":%" PRIu64 "B", id.u,
				   size.u);
			return;
		}
		break;
	}
	case RONDO_ARG_CONST:
		if (a->wire != RONDO_WIRE_UINT)
			break;
		name = a->u <= UINT32_MAX
			       ? rondo_const_name(c->t, (uint32_t)a->u)
			       : NULL;
		if (name)
			out_printf(o, "%s", name);
		else
			out_printf(o, "const#%" PRIu64, a->u);
		return;
	case RONDO_ARG_BUFFER:
		if (a->wire == RONDO_WIRE_LIST) {
			format_buffer(o, c, a);
			return;
		}
		break;
	case RONDO_ARG_STATUS:
		if (a->wire == RONDO_WIRE_LIST) {
			format_status(o, c, a);
			return;
		}
		break;
	case RONDO_ARG_ARRAY:
		if (a->wire == RONDO_WIRE_LIST) {
			format_list(o, c, a, "[", "]");
			return;
		}
		break;
	case RONDO_ARG_STRING:
		if (a->wire == RONDO_WIRE_BYTES) {
			format_string(o, a);
			return;
		}
		break;
	case RONDO_ARG_BYTES:
		if (a->wire == RONDO_WIRE_BYTES) {
			out_printf(o, "<%zu bytes>", a->size);
			return;
		}
		break;
	}
	format_generic(o, c, a);
}

/* Writes one parameter, "name=value", after the separator. */
static void format_param(struct out *o, const struct fctx *c, uint32_t sig,
			 uint32_t i, const char *sep)
{
	uint32_t func = c->t->cst.sig[sig].func;
	const char *pname = rondo_func_param_name(c->t, func, i);
	rondo_arg a;

	if (rondo_sig_arg(c->t, sig, i, &a) < 0)
		return;
	out_printf(o, "%s", sep);
	if (pname)
		out_printf(o, "%s=", pname);
	else
		out_printf(o, "arg%" PRIu32 "=", i);
	format_value(o, c, &a);
}

/* Inputs in parameter order, then " -> " and the outputs. */
static int sig_format(const struct fctx *c, uint32_t sig, char *buf,
		      size_t size)
{
	const rondo_trace *t = c->t;
	struct out o = {buf, size, 0};
	uint32_t func = t->cst.sig[sig].func, nargs = t->cst.sig[sig].nargs;
	uint32_t n = 0, k = 0;

	if (size)
		buf[0] = '\0';
	out_printf(&o, "%s(", rondo_func_name(t, func));
	for (uint32_t i = 0; i < nargs; i++)
		if (!rondo_func_param_is_output(t, func, i))
			format_param(&o, c, sig, i, n++ ? ", " : "");
	for (uint32_t i = 0; i < nargs; i++)
		if (rondo_func_param_is_output(t, func, i))
			format_param(&o, c, sig, i,
				     k++ ? ", "
				     : n ? " -> "
					 : "-> ");
	out_printf(&o, ")");
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int rondo_sig_format(const rondo_trace *t, uint32_t sig, char *buf, size_t size)
{
	struct fctx c = {t, RONDO_RANK_NONE, {0}};

	if (!t || !t->opened || sig >= t->cst.n || (size && !buf))
		return RONDO_E_RANGE;
	rondo_sig_comm(t, sig, c.rank, &c.cm); /* the communicator alone */
	return sig_format(&c, sig, buf, size);
}

int rondo_sig_format_rank(const rondo_trace *t, uint32_t sig, uint32_t rank,
			  char *buf, size_t size)
{
	struct fctx c = {t, rank, {0}};

	if (!t || !t->opened || sig >= t->cst.n || rank >= t->rm.nranks ||
	    (size && !buf))
		return RONDO_E_RANGE;
	rondo_sig_comm(t, sig, rank, &c.cm);
	return sig_format(&c, sig, buf, size);
}

/* Emits ranks first, first+stride, ... (n of them) as compactly as can be. */
static void format_run(struct out *o, uint32_t first, uint32_t stride,
		       uint32_t n)
{
	const char *sep = o->len ? "," : "";

	if (n == 1)
		out_printf(o, "%s%" PRIu32, sep, first);
	else if (n == 2)
		out_printf(o, "%s%" PRIu32 ",%" PRIu32, sep, first,
			   first + stride);
	else if (stride == 1)
		out_printf(o, "%s%" PRIu32 "-%" PRIu32, sep, first,
			   first + n - 1);
	else
		out_printf(o, "%s%" PRIu32 "-%" PRIu32 ":%" PRIu32, sep, first,
			   first + stride * (n - 1), stride);
}

int rondo_group_format(const rondo_trace *t, uint32_t g, char *buf, size_t size)
{
	struct out o = {buf, size, 0};
	uint32_t first = 0, stride = 0, n = 0;

	if (!t || !t->opened || g >= t->ngroups || (size && !buf))
		return RONDO_E_RANGE;
	if (size)
		buf[0] = '\0';
	for (uint32_t r = 0; r < t->rm.nranks; r++) {
		if (t->rank_group[r] != g)
			continue;
		if (n == 0 || (n == 1 && r > first)) {
			if (n == 1)
				stride = r - first;
			else
				first = r;
			n++;
		} else if (r == first + stride * n) {
			n++;
		} else {
			/* A pair that does not continue is better printed
			 * as the first rank alone, the second starting a
			 * new run with this rank. */
			if (n == 2) {
				format_run(&o, first, stride, 1);
				first += stride;
				stride = r - first;
				n = 2;
			} else {
				format_run(&o, first, stride, n);
				first = r;
				n = 1;
			}
		}
	}
	if (n)
		format_run(&o, first, stride, n);
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}
