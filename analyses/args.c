/*
 * args.c - reading a signature's argument values (args.h).
 */
#include <string.h>

#include "args.h"

rondo_arg an_arg(const rondo_trace *t, uint32_t s, const char *name)
{
	rondo_arg a;

	rondo_sig_param(t, s, name, &a);
	return a;
}

int an_is_const(const rondo_trace *t, const rondo_arg *a, const char *name)
{
	const char *n;

	if (a->kind != RONDO_ARG_CONST || a->wire != RONDO_WIRE_UINT ||
	    a->u > UINT32_MAX)
		return 0;
	n = rondo_const_name(t, (uint32_t)a->u);
	return n && !strcmp(n, name);
}

int64_t an_int(const rondo_arg *a)
{
	if (a->wire == RONDO_WIRE_SINT && a->i >= 0)
		return a->i;
	if (a->wire == RONDO_WIRE_UINT && a->u <= INT64_MAX)
		return (int64_t)a->u;
	return -1;
}

uint32_t an_req_id(const rondo_arg *a)
{
	return a->kind == RONDO_ARG_REQUEST && a->wire == RONDO_WIRE_UINT &&
			       a->u < UINT32_MAX
		       ? (uint32_t)a->u
		       : UINT32_MAX;
}

/* Parameter `name` of s, else `other` (the array form, a Sendrecv's). */
static rondo_arg arg_or(const rondo_trace *t, uint32_t s, const char *name,
			const char *other)
{
	rondo_arg a = an_arg(t, s, name);

	return a.kind == RONDO_ARG_NULL ? an_arg(t, s, other) : a;
}

void an_p2p_args(const rondo_trace *t, uint32_t s, struct an_p2p *a)
{
	a->comm = an_arg(t, s, "comm");
	a->dest = an_arg(t, s, "dest");
	a->source = an_arg(t, s, "source");
	a->stag = arg_or(t, s, "tag", "sendtag");
	a->rtag = arg_or(t, s, "tag", "recvtag");
	a->scount = arg_or(t, s, "count", "sendcount");
	a->rcount = arg_or(t, s, "count", "recvcount");
	a->stype = arg_or(t, s, "datatype", "sendtype");
	a->rtype = arg_or(t, s, "datatype", "recvtype");
	if (a->rtype.kind == RONDO_ARG_NULL) /* Sendrecv_replace */
		a->rtype = a->stype;
	a->req = arg_or(t, s, "request", "array_of_requests");
	a->status = arg_or(t, s, "status", "array_of_statuses");
	a->index = arg_or(t, s, "index", "array_of_indices");
	a->flag = an_arg(t, s, "flag");
	a->message = an_arg(t, s, "message");
	a->any_src = an_is_const(t, &a->source, "MPI_ANY_SOURCE") != 0;
	a->any_tag = an_is_const(t, &a->rtag, "MPI_ANY_TAG") != 0;
}

rondo_arg an_elem(const rondo_arg *list, uint64_t k)
{
	rondo_arg e;

	if (list->wire != RONDO_WIRE_LIST || k >= list->n ||
	    rondo_arg_elem(list, k, &e) < 0)
		memset(&e, 0, sizeof(e));
	return e;
}
