/*
 * match.c - which call completes a request (match.h): rondo-replay reads
 * ahead with it at run time, `rondo proxy` through the grammar once, and
 * a proxy, which has this file too, at run time where that did not fix
 * the match.
 */
#include <string.h>

#include "match.h"
#include "rondo.h" /* the kinds of values, no more */

/* Parameter `name` of the call, if the call has it. */
static int arg(const struct rp_names *nm, uint32_t sig, uint32_t nargs,
	       const char *name)
{
	int k = nm->param(nm->ctx, sig, name);
	return k >= 0 && (uint32_t)k < nargs ? k : -1;
}

int rp_completes(const struct rp_names *nm, uint32_t sig,
		 const struct rp_val *v, uint32_t nargs, int64_t id, int *k,
		 int *j)
{
	const char *f = nm->func(nm->ctx, sig);
	int kr, ks, kf, ki, kis, kst;

	*k = *j = -1;
	if (!f || (strncmp(f, "MPI_Wait", 8) && strncmp(f, "MPI_Test", 8) &&
		   strcmp(f, "MPI_Request_free")))
		return 0;
	kf = arg(nm, sig, nargs, "flag");
	if ((kr = arg(nm, sig, nargs, "request")) >= 0) {
		if (v[kr].kind != RONDO_ARG_REQUEST || v[kr].i != id)
			return 0;
		if (!strcmp(f, "MPI_Request_free"))
			return -1;
		if (kf >= 0 && v[kf].i == 0)
			return 0;
		*k = arg(nm, sig, nargs, "status");
		return 1;
	}
	kr = arg(nm, sig, nargs, "array_of_requests");
	ks = arg(nm, sig, nargs, "array_of_statuses");
	if (kr < 0 || v[kr].kind != RONDO_ARG_ARRAY)
		return 0;
	ki = arg(nm, sig, nargs, "index");
	kis = arg(nm, sig, nargs, "array_of_indices");
	kst = arg(nm, sig, nargs, "status");
	for (uint32_t e = 0; e < v[kr].n; e++) {
		if (v[kr].e[e].kind != RONDO_ARG_REQUEST || v[kr].e[e].i != id)
			continue;
		if (ki >= 0) { /* any */
			if (v[ki].i != (int64_t)e)
				return 0;
			*k = kst;
			return 1;
		}
		if (kis >= 0) { /* some */
			const struct rp_val *ix = &v[kis];
			for (uint32_t m = 0;
			     ix->kind == RONDO_ARG_ARRAY && m < ix->n; m++)
				if (ix->e[m].i == (int64_t)e) {
					if (ks >= 0 &&
					    v[ks].kind == RONDO_ARG_ARRAY &&
					    m < v[ks].n) {
						*k = ks;
						*j = (int)m;
					}
					return 1;
				}
			return 0;
		}
		/* all: complete when the flag, if any, says so */
		if (kf >= 0 && v[kf].i == 0)
			return 0;
		if (ks >= 0 && v[ks].kind == RONDO_ARG_ARRAY && e < v[ks].n) {
			*k = ks;
			*j = (int)e;
		}
		return 1;
	}
	return 0;
}
