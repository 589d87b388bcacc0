/*
 * complete.c - the Wait and Test families, replayed so that each call
 * completes exactly the requests the trace says it completed.
 *
 * A request the call completed is waited for first, outside the tracer
 * (PMPI_Request_get_status, which frees nothing), so that a Waitsome
 * returns all of them at once and a Test finds its request done; the
 * requests it did not complete are handed to the call as surrogates,
 * generalized requests that never complete, so that no Waitany picks
 * another than the recorded one and no poll that failed in the original
 * takes a request early.  The call itself is the program's: same
 * function, same count, NULL entries where the program had them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static MPI_Request *surrogates;
static unsigned nsurrogates;
static MPI_Request *real; /* a call's requests before stand-ins */
static size_t nreal;

static int query_fn(void *extra, MPI_Status *st)
{
	(void)extra;
	PMPI_Status_set_elements(st, MPI_BYTE, 0);
	PMPI_Status_set_cancelled(st, 0);
	st->MPI_SOURCE = MPI_UNDEFINED;
	st->MPI_TAG = MPI_UNDEFINED;
	return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
	(void)extra;
	return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
	(void)extra;
	(void)complete;
	return MPI_SUCCESS;
}

MPI_Request rp_surrogate(unsigned k)
{
	if (k >= nsurrogates) {
		unsigned n = k + 8;
		MPI_Request *s = realloc(surrogates, n * sizeof *s);
		if (!s) {
			fprintf(stderr, "rondo-replay: out of memory\n");
			exit(1);
		}
		for (unsigned i = nsurrogates; i < n; i++)
			PMPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL,
					    &s[i]);
		surrogates = s;
		nsurrogates = n;
	}
	return surrogates[k];
}

void rp_surrogates_free(void)
{
	for (unsigned i = 0; i < nsurrogates; i++) {
		PMPI_Grequest_complete(surrogates[i]);
		PMPI_Wait(&surrogates[i], MPI_STATUS_IGNORE);
	}
	free(surrogates);
	surrogates = NULL;
	nsurrogates = 0;
}

/* Waits, untraced, until request r is complete (or inactive). */
static void prewait(MPI_Request r)
{
	int flag = 0;
	while (r != MPI_REQUEST_NULL && !flag)
		if (PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) !=
		    MPI_SUCCESS)
			return;
}

/* Parameter indices of a completion function, by name. */
struct cparams {
	int ready;
	int req, reqs, st, sts, index, indices, flag, outcount, count;
};

static const struct cparams *params_of(uint32_t f)
{
	static struct cparams *cp;
	static uint32_t ncp;

	if (!cp) {
		ncp = rp_func_count();
		cp = calloc(ncp ? ncp : 1, sizeof *cp);
		if (!cp) {
			fprintf(stderr, "rondo-replay: out of memory\n");
			exit(1);
		}
	}
	if (f >= ncp)
		return NULL;
	if (!cp[f].ready) {
		cp[f].req = rp_param(f, "request");
		cp[f].reqs = rp_param(f, "array_of_requests");
		cp[f].st = rp_param(f, "status");
		cp[f].sts = rp_param(f, "array_of_statuses");
		cp[f].index = rp_param(f, "index");
		cp[f].indices = rp_param(f, "array_of_indices");
		cp[f].flag = rp_param(f, "flag");
		cp[f].outcount = rp_param(f, "outcount");
		cp[f].count = rp_param(f, "count");
		if (cp[f].count < 0)
			cp[f].count = rp_param(f, "incount");
		cp[f].ready = 1;
	}
	return &cp[f];
}

/* Which entries of the request array the call completed: all (-1 in
 * *one, none chosen), one index, or those listed. */
static int completed(struct rp_call *c, const struct cparams *p, uint32_t j)
{
	struct rp_val *v;
	if (p->index >= 0)
		return rp_int(c, (uint32_t)p->index) == (int64_t)j;
	if (p->indices >= 0) {
		v = &c->s->v[p->indices];
		for (uint32_t m = 0; v->kind == RONDO_ARG_ARRAY && m < v->n;
		     m++)
			if (v->e[m].i == (int64_t)j)
				return 1;
		return 0;
	}
	if (p->flag >= 0)
		return rp_int(c, (uint32_t)p->flag) != 0;
	return 1;
}

/* Whether the call completed any live request (a poll that did not). */
static int any_completed(struct rp_call *c, const struct cparams *p,
			 const MPI_Request *real_reqs, uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		if (real_reqs[j] != MPI_REQUEST_NULL && completed(c, p, j))
			return 1;
	return 0;
}

int rp_complete(struct rp_call *c, const char *fname)
{
	const struct cparams *p = params_of(rp_sig_func(c->sig));
	int flag = 0, index = 0, outcount = 0, ret;
	int is_test = !strncmp(fname, "MPI_Test", 8);
	struct rp_val *a;
	MPI_Request *reqs, *r;
	int *indices = NULL;
	int n;

	if (!p)
		return MPI_ERR_OTHER;
	if (p->req >= 0) { /* Wait, Test */
		r = rp_request(c, (uint32_t)p->req);
		if (!is_test)
			return MPI_Wait(r, rp_status(c, (uint32_t)p->st));
		if (rp_int(c, (uint32_t)p->flag)) {
			prewait(*r);
			return MPI_Test(r, &flag,
					rp_status(c, (uint32_t)p->st));
		}
		if (*r == MPI_REQUEST_NULL)
			return MPI_Test(r, &flag,
					rp_status(c, (uint32_t)p->st));
		if (!rp_polls())
			return MPI_SUCCESS; /* --polls once: the next one waits */
		MPI_Request s = rp_surrogate(0);
		rp_hint_stand_ins(&s, r, 1);
		ret = MPI_Test(&s, &flag, rp_status(c, (uint32_t)p->st));
		rp_hint_stand_ins(NULL, NULL, 0);
		return ret;
	}
	if (p->reqs < 0)
		return MPI_ERR_OTHER;
	a = &c->s->v[p->reqs];
	reqs = rp_requests(c, (uint32_t)p->reqs);
	n = (int)rp_int(c, (uint32_t)p->count);
	if (a->kind != RONDO_ARG_ARRAY || n < 0 || (uint32_t)n > a->n)
		n = a->kind == RONDO_ARG_ARRAY ? (int)a->n : 0;
	if ((size_t)n > nreal) {
		free(real);
		real = calloc((size_t)n, sizeof *real);
		nreal = real ? (size_t)n : 0;
		if (!real) {
			fprintf(stderr, "rondo-replay: out of memory\n");
			exit(1);
		}
	}
	for (uint32_t j = 0; j < (uint32_t)n; j++) {
		real[j] = reqs[j];
		if (reqs[j] == MPI_REQUEST_NULL)
			continue;
		if (completed(c, p, j)) {
			if (is_test || p->indices >= 0)
				prewait(reqs[j]);
		} else
			reqs[j] = rp_surrogate(j);
	}
	if (is_test && !rp_polls() && !any_completed(c, p, real, (uint32_t)n))
		return MPI_SUCCESS; /* --polls once: the next one waits */
	if (p->indices >= 0)
		indices = rp_out(c, (uint32_t)p->indices, sizeof(int));
	rp_hint_stand_ins(reqs, real, n);
	if (!strcmp(fname, "MPI_Waitall"))
		ret = MPI_Waitall(n, reqs, rp_statuses(c, (uint32_t)p->sts));
	else if (!strcmp(fname, "MPI_Testall"))
		ret = MPI_Testall(n, reqs, &flag,
				  rp_statuses(c, (uint32_t)p->sts));
	else if (!strcmp(fname, "MPI_Waitany"))
		ret = MPI_Waitany(n, reqs, &index,
				  rp_status(c, (uint32_t)p->st));
	else if (!strcmp(fname, "MPI_Testany"))
		ret = MPI_Testany(n, reqs, &index, &flag,
				  rp_status(c, (uint32_t)p->st));
	else if (!strcmp(fname, "MPI_Waitsome"))
		ret = MPI_Waitsome(n, reqs, &outcount, indices,
				   rp_statuses(c, (uint32_t)p->sts));
	else
		ret = MPI_Testsome(n, reqs, &outcount, indices,
				   rp_statuses(c, (uint32_t)p->sts));
	rp_hint_stand_ins(NULL, NULL, 0);
	/* the requests handed in as themselves are the program's again */
	for (uint32_t j = 0; j < (uint32_t)n; j++)
		if (a->e[j].kind == RONDO_ARG_REQUEST && completed(c, p, j))
			*rp_request_id(a->e[j].i) = reqs[j];
	return ret;
}
