/*
 * args.c - reading a signature's argument values (args.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

rondo_arg an_arg(const rondo_trace *t, uint32_t s, const char *name)
{
	rondo_arg a, v;

	rondo_sig_param(t, s, name, &a);
	/* a value merged at the precision: the one standing for them (as
	 * written, when its histogram is lost) */
	rondo_arg_merged(t, &a, &v, NULL);
	return v;
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

int64_t an_count(const rondo_trace *t, uint32_t s, const char *name,
		 double *mean)
{
	rondo_arg a, v;
	rondo_merged_loop h;
	int64_t n;

	rondo_sig_param(t, s, name, &a);
	if (rondo_arg_merged(t, &a, &v, &h) == 1 && h.loops) {
		*mean = (double)h.sum / (double)h.loops;
		return an_int(&v);
	}
	n = an_int(&v);
	*mean = (double)n;
	return n;
}

int an_param_role(const char *func, const char *name)
{
	if (!func || !name)
		return 0;
	if (!strcmp(name, "tag") || !strcmp(name, "sendtag") ||
	    !strcmp(name, "recvtag"))
		return strncmp(func, "MPI_Intercomm_", 14) ? AN_PARAM_TAG : 0;
	return !strcmp(name, "dest") || !strcmp(name, "source") ? AN_PARAM_PEER
								: 0;
}

/* Of the nh values' histograms, how many are of tags and of peers: each
 * one once, by the first signature's argument that stands for it. */
static void merged_roles(const rondo_trace *t, uint32_t nh, struct an_merged *m)
{
	uint8_t *seen = calloc(nh, 1);
	uint32_t n[3] = {0, 0, 0};

	if (!seen)
		return; /* all of them counted as sizes */
	for (uint32_t s = 0; s < rondo_sig_count(t); s++) {
		uint32_t f = rondo_sig_func(t, s),
			 na = rondo_sig_arg_count(t, s);

		for (uint32_t k = 0; k < na; k++) {
			int role =
				an_param_role(rondo_func_name(t, f),
					      rondo_func_param_name(t, f, k));
			rondo_merged_loop h;
			rondo_arg a;

			if (!role || rondo_sig_arg(t, s, k, &a) < 0 ||
			    rondo_arg_merged(t, &a, NULL, &h) != 1 ||
			    h.id >= nh || seen[h.id])
				continue;
			seen[h.id] = 1;
			n[role]++;
		}
	}
	free(seen);
	m->tags = n[AN_PARAM_TAG];
	m->peers = n[AN_PARAM_PEER];
}

uint32_t an_merged(const rondo_trace *t, struct an_merged *m)
{
	uint32_t nh = 0, values = 0;
	rondo_merged_loop h;

	memset(m, 0, sizeof(*m));
	m->precision = rondo_precision(t, &m->loops);
	for (; rondo_merged_info(t, nh, &h) == 0; nh++)
		if (h.kind == RONDO_MERGED_VALUE) {
			values++;
			m->vcalls += h.loops;
		}
	if (values)
		merged_roles(t, nh, m);
	m->sizes = values - m->tags - m->peers;
	return m->precision;
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

/* Appends to buf what fmt says, as far as it fits; the new length. */
static size_t put(char *buf, size_t size, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t size, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at + 1 >= size)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, size - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n >= size ? size - 1 : at + (size_t)n;
}

/* Histogram h's bins after buf[0..at): " 38 x62, 39 x150...", each
 * value negated when `neg` (a peer before the caller: how far). */
static size_t bins_text(const rondo_trace *t, const rondo_merged_loop *h,
			int neg, int utf8, char *buf, size_t size, size_t at)
{
	const char *x = utf8 ? "\xc3\x97" : "x",
		   *to = utf8 ? "\xe2\x80\x93" : "-", *m = neg ? "-" : "";

	for (uint32_t k = 0; k < h->nbins; k++) {
		uint64_t lo, hi, n;

		if (rondo_merged_bin(t, h->id, k, &lo, &hi, &n) < 0)
			break;
		if (lo == hi)
			at = put(buf, size, at, "%s %s%" PRIu64 " %s%" PRIu64,
				 k ? "," : "", m, lo, x, n);
		else
			at = put(buf, size, at,
				 "%s %s%" PRIu64 "%s%s%" PRIu64 " %s%" PRIu64,
				 k ? "," : "", m, lo, neg ? ".." : to, m, hi, x,
				 n);
	}
	return at;
}

/* Histogram h as text: "N <noun>s of LO-HI<unit>, mean M (<kept> K), min
 * at rank R, max at rank S:" and its bins; negated when `neg`, the range
 * then "-HI..-LO". */
static void hist_text(const rondo_trace *t, const rondo_merged_loop *h,
		      const char *noun, const char *unit, const char *kept,
		      int64_t k, int neg, int utf8, char *buf, size_t size)
{
	const char *to = utf8 ? "\xe2\x80\x93" : "-", *m = neg ? "-" : "";
	double mean = h->loops ? (double)h->sum / (double)h->loops : 0.0;
	size_t at = put(buf, size, 0,
			"%" PRIu64 " %s%s of %s%" PRIu64 "%s%s%" PRIu64
			"%s, mean %.2f (%s %" PRId64 "), min at rank %" PRIu32
			", max at rank %" PRIu32 ":",
			h->loops, noun, h->loops == 1 ? "" : "s", m,
			neg ? h->max : h->min, neg ? ".." : to, m,
			neg ? h->min : h->max, unit, neg ? -mean : mean, kept,
			k, h->min_rank, h->max_rank);

	bins_text(t, h, neg, utf8, buf, size, at);
}

int an_loop_text(const rondo_trace *t, uint32_t rule, uint32_t pos, int utf8,
		 char *buf, size_t size)
{
	const rondo_sym *body;
	rondo_merged_loop h;
	uint32_t len;

	if (size)
		buf[0] = '\0';
	if (!size || rondo_loop_hist(t, rule, pos, &h) != 1 ||
	    rondo_rule_body(t, rule, &body, &len) < 0 || pos >= len)
		return 0;
	hist_text(t, &h, "loop", " repeats", "kept", (int64_t)body[pos].count,
		  0, utf8, buf, size);
	return 1;
}

int an_value_text(const rondo_trace *t, uint32_t sig, uint32_t arg, int utf8,
		  char *buf, size_t size)
{
	rondo_merged_loop h;
	rondo_arg a, v;

	if (size)
		buf[0] = '\0';
	if (!size || rondo_sig_arg(t, sig, arg, &a) < 0 ||
	    rondo_arg_merged(t, &a, &v, &h) != 1)
		return 0;
	hist_text(t, &h, "call", "", "written",
		  v.wire == RONDO_WIRE_UINT ? (int64_t)v.u : v.i,
		  v.kind == RONDO_ARG_RANK_REL && v.wire == RONDO_WIRE_SINT &&
			  v.i < 0,
		  utf8, buf, size);
	return 1;
}
