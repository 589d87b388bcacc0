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
