/*
 * chrome.c - the Chrome JSON sink: a trace as the Trace Event Format that
 * chrome://tracing and ui.perfetto.dev open, written as the walk goes.
 *
 * Each exported rank is a process (pid: its world rank, one thread, tid 0)
 * named by metadata events; each call is a complete event ("X"); each
 * message whose two ends are exported is a v1 flow, started ("s") inside
 * the call that sends it and ended ("f", bound to its enclosing slice)
 * inside the call that receives it.  Times are the format's microseconds,
 * printed from integer nanoseconds with three decimals so that nothing is
 * rounded.  Only one event is ever held: the file is streamed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fileio.h"
#include "util.h"

/* A call's args list this many of its messages and count the rest: a
 * Waitall over thousands of requests would bury the viewer's panel. */
#define CH_ARGS_MSGS 16

/* The sink's state, on x->sink from begin to end or abort. */
struct ch_out {
	struct fileio_out out;
	FILE *f;
	uint64_t events; /* events written: a comma before the next */
	uint64_t ranks;	 /* ranks begun */
	int err;	 /* errno of the first failed write (sticky) */
};

static const char *const ch_kinds[] = {
	[EX_SEND] = "send",
	[EX_ISEND] = "isend",
	[EX_ISEND_DONE] = "isend_done",
	[EX_RECV] = "recv",
	[EX_IRECV_POST] = "irecv",
	[EX_IRECV_DONE] = "irecv_done",
	[EX_CANCELLED] = "cancelled",
};

static const char *const ch_ops[] = {
	[EX_COLL_BARRIER] = "barrier",
	[EX_COLL_BCAST] = "bcast",
	[EX_COLL_GATHER] = "gather",
	[EX_COLL_GATHERV] = "gatherv",
	[EX_COLL_SCATTER] = "scatter",
	[EX_COLL_SCATTERV] = "scatterv",
	[EX_COLL_ALLGATHER] = "allgather",
	[EX_COLL_ALLGATHERV] = "allgatherv",
	[EX_COLL_ALLTOALL] = "alltoall",
	[EX_COLL_ALLTOALLV] = "alltoallv",
	[EX_COLL_ALLTOALLW] = "alltoallw",
	[EX_COLL_ALLREDUCE] = "allreduce",
	[EX_COLL_REDUCE] = "reduce",
	[EX_COLL_REDUCE_SCATTER] = "reduce_scatter",
	[EX_COLL_SCAN] = "scan",
	[EX_COLL_EXSCAN] = "exscan",
	[EX_COLL_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
};

/* ---- writing ------------------------------------------------------------- */

/* Writes n bytes, counted in x->n.bytes.  A failure is kept in the state
 * and reported once by ch_check, so that writers need not test each. */
static void ch_put(struct ex *x, const char *p, size_t n)
{
	struct ch_out *s = x->sink;

	if (s->err || !n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, s->f) != n) {
		s->err = errno ? errno : EIO;
		return;
	}
	x->n.bytes += n;
}

static void ch_puts(struct ex *x, const char *p)
{
	ch_put(x, p, strlen(p));
}

static void ch_printf(struct ex *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Numbers and fixed text only: never a double, whose decimal point the
 * program's locale could make a comma. */
static void ch_printf(struct ex *x, const char *fmt, ...)
{
	struct ch_out *s = x->sink;
	va_list ap;
	int n;

	if (s->err)
		return;
	errno = 0;
	va_start(ap, fmt);
	n = vfprintf(s->f, fmt, ap);
	va_end(ap);
	if (n < 0)
		s->err = errno ? errno : EIO;
	else
		x->n.bytes += (uint64_t)n;
}

/* Returns 0, or the first write failure as a RONDO_E_* code. */
static int ch_check(struct ex *x)
{
	struct ch_out *s = x->sink;
	char name[FILEIO_SHORT];

	if (!s->err)
		return 0;
	return ex_fail(x, s->err == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO,
		       "cannot write %s: %s",
		       fileio_short(name, sizeof(name), x->path),
		       strerror(s->err));
}

/* Starts an event: one a line, so that the file greps and diffs. */
static void ch_event(struct ex *x)
{
	struct ch_out *s = x->sink;

	ch_puts(x, s->events++ ? ",\n" : "\n");
}

/* ---- values -------------------------------------------------------------- */

/*
 * Writes a magnitude of nanoseconds as microseconds with exactly three
 * decimals into buf (at least 32 bytes).  Integer arithmetic: a double
 * holds nanoseconds exactly only up to 2^53 and prints 0.001 steps
 * inexactly.
 */
static const char *ch_us(char *buf, size_t size, int neg, uint64_t ns)
{
	snprintf(buf, size, "%s%" PRIu64 ".%03u", neg && ns ? "-" : "",
		 ns / 1000, (unsigned)(ns % 1000));
	return buf;
}

/* A time from x->t0, which may be negative in principle. */
static const char *ch_time(char *buf, size_t size, int64_t ns)
{
	return ch_us(buf, size, ns < 0,
		     ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns);
}

/* The length of the valid UTF-8 sequence at p (a byte >= 0x80), or 0:
 * overlong forms, surrogates and code points past U+10FFFF are not. */
static size_t ch_utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	/* the string's NUL is no continuation byte: no reading past it */
	for (size_t k = 2; k < n; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Writes the escape of byte c, which cannot stand as itself. */
static void ch_escape(struct ex *x, unsigned char c)
{
	char buf[8];

	switch (c) {
	case '"': ch_puts(x, "\\\""); return;
	case '\\': ch_puts(x, "\\\\"); return;
	case '\b': ch_puts(x, "\\b"); return;
	case '\f': ch_puts(x, "\\f"); return;
	case '\n': ch_puts(x, "\\n"); return;
	case '\r': ch_puts(x, "\\r"); return;
	case '\t': ch_puts(x, "\\t"); return;
	}
	/* A byte of no valid UTF-8 sequence becomes U+FFFD, as decoders
	 * replace it, rather than \u00XX: older Perfetto importers reject
	 * \u escapes outside args. */
	if (c >= 0x80) {
		ch_puts(x, "\xef\xbf\xbd");
		return;
	}
	snprintf(buf, sizeof(buf), "\\u%04x", c);
	ch_puts(x, buf);
}

/* Writes str as a JSON string.  Names come from the trace file, which is
 * untrusted: whatever its bytes, the output stays valid JSON. */
static void ch_str(struct ex *x, const char *str)
{
	const unsigned char *p = (const unsigned char *)(str ? str : "");
	const unsigned char *run = p;
	size_t n;

	ch_put(x, "\"", 1);
	while (*p) {
		if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = ch_utf8_len(p)) > 0) {
			p += n;
			continue;
		}
		ch_put(x, (const char *)run, (size_t)(p - run));
		ch_escape(x, *p++);
		run = p;
	}
	ch_put(x, (const char *)run, (size_t)(p - run));
	ch_put(x, "\"", 1);
}

/* ---- events -------------------------------------------------------------- */

/* Writes one message end as an args object. */
static void ch_msg(struct ex *x, const struct ex_msg *m)
{
	char comm[32];
	int nonblocking = m->kind != EX_SEND && m->kind != EX_RECV;
	/* a request's post of a receive, a completion of a send or a
	 * cancellation names no peer (a posted receive may not know it) */
	int message = m->kind == EX_SEND || m->kind == EX_ISEND ||
		      m->kind == EX_RECV || m->kind == EX_IRECV_DONE;

	ch_printf(x, "{\"kind\":\"%s\"",
		  m->kind < COUNTOF(ch_kinds) && ch_kinds[m->kind]
			  ? ch_kinds[m->kind]
			  : "?");
	if (message) {
		ch_puts(x, ",\"comm\":");
		ch_str(x, ex_comm_name(m->comm, comm, sizeof(comm)));
		if (m->peer_world != UINT32_MAX)
			ch_printf(x, ",\"peer\":%" PRIu32, m->peer_world);
		ch_printf(x, ",\"tag\":%" PRId64 ",\"bytes\":%" PRIu64, m->tag,
			  m->bytes);
	}
	if (nonblocking)
		ch_printf(x, ",\"request\":%" PRIu64, m->req);
	if (m->flow)
		ch_printf(x, ",\"flow\":\"0x%016" PRIx64 "\"", m->flow);
	ch_put(x, "}", 1);
}

static void ch_coll(struct ex *x, const struct ex_coll *co)
{
	char comm[32];

	ch_printf(x, "\"op\":\"%s\",\"comm\":",
		  co->op < COUNTOF(ch_ops) && ch_ops[co->op] ? ch_ops[co->op]
							     : "?");
	ch_str(x, ex_comm_name(co->comm, comm, sizeof(comm)));
	if (co->root != EX_NO_ROOT)
		ch_printf(x, ",\"root\":%" PRIu32, co->root);
	ch_printf(x, ",\"sent\":%" PRIu64 ",\"received\":%" PRIu64, co->sent,
		  co->received);
}

/* What the call moved, as the slice's args. */
static void ch_args(struct ex *x, const struct ex_call *c)
{
	uint32_t n = c->nmsgs < CH_ARGS_MSGS ? c->nmsgs : CH_ARGS_MSGS;

	if (!c->coll && !c->nmsgs)
		return;
	ch_puts(x, ",\"args\":{");
	if (c->coll)
		ch_coll(x, c->coll);
	if (c->nmsgs) {
		ch_puts(x, c->coll ? ",\"messages\":[" : "\"messages\":[");
		for (uint32_t k = 0; k < n; k++) {
			if (k)
				ch_put(x, ",", 1);
			ch_msg(x, &c->msgs[k]);
		}
		ch_put(x, "]", 1);
		if (n < c->nmsgs)
			ch_printf(x, ",\"messages_more\":%" PRIu32,
				  c->nmsgs - n);
	}
	ch_put(x, "}", 1);
}

/*
 * Writes the flow end of message m of call c, if it has one: a send's
 * start, a receive's end.  Both lie strictly inside the call, so that the
 * viewers bind them to its slice (the walk makes every call that carries
 * a flow at least 2 ns long): the start 1 ns after the send begins, the
 * end 1 ns before the receive returns.  Not at the middles: Perfetto
 * reads events in time order and drops an end met before its start, and
 * a receive that waits from long before the send has its middle before
 * the send's.
 */
static int ch_flow(struct ex *x, const struct ex_call *c,
		   const struct ex_msg *m)
{
	int start = m->kind == EX_SEND || m->kind == EX_ISEND;
	int end = m->kind == EX_RECV || m->kind == EX_IRECV_DONE;
	uint64_t span = (uint64_t)c->end - (uint64_t)c->start;
	char ts[32];

	if (!m->flow || (!start && !end))
		return 0;
	if (c->end < c->start || span < 2)
		return ex_fail(
			x, RONDO_E_RANGE,
			"rank %" PRIu32 ": call at %" PRId64
			" ns lasts under 2 ns: no room for message %" PRIu64,
			c->rank, c->start, m->flow);
	ch_event(x);
	ch_printf(x,
		  "{\"name\":\"message\",\"cat\":\"message\",\"ph\":%s"
		  ",\"id\":\"0x%016" PRIx64 "\",\"pid\":%" PRIu32
		  ",\"tid\":0,\"ts\":%s}",
		  start ? "\"s\"" : "\"f\",\"bp\":\"e\"", m->flow, c->rank,
		  ch_time(ts, sizeof(ts), start ? c->start + 1 : c->end - 1));
	return 0;
}

/* ---- the sink ------------------------------------------------------------ */

static void ch_abort(struct ex *x)
{
	struct ch_out *s = x->sink;

	if (!s)
		return;
	fileio_close(&s->out, 0, NULL, 0);
	free(s);
	x->sink = NULL;
}

static int ch_begin(struct ex *x)
{
	struct ch_out *s = calloc(1, sizeof(*s));
	char why[256], name[FILEIO_SHORT];
	int err, rc;

	fileio_short(name, sizeof(name), x->path);
	if (!s)
		return ex_fail(x, RONDO_E_NOMEM,
			       "cannot write %s: out of memory", name);
	err = fileio_create(&s->out, x->path, why, sizeof(why));
	if (err) {
		free(s);
		return ex_fail(x, err == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO,
			       "cannot write %s: %s", name, why);
	}
	s->f = fileio_stream(&s->out);
	x->sink = s;
	if (!s->f) {
		ch_abort(x);
		return ex_fail(x, RONDO_E_NOMEM,
			       "cannot write %s: out of memory", name);
	}
	ch_puts(x, "{\"traceEvents\":[");
	rc = ch_check(x);
	if (rc)
		ch_abort(x);
	return rc;
}

/* A rank's process: named, and sorted by its rank rather than by name. */
static int ch_rank_begin(struct ex *x, uint32_t rank)
{
	struct ch_out *s = x->sink;

	s->ranks++;
	ch_event(x);
	ch_printf(x,
		  "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%" PRIu32
		  ",\"tid\":0,\"ts\":0,\"args\":{\"name\":\"rank %" PRIu32
		  "\"}}",
		  rank, rank);
	ch_event(x);
	ch_printf(
		x,
		"{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%" PRIu32
		",\"tid\":0,\"ts\":0,\"args\":{\"sort_index\":%" PRIu32 "}}",
		rank, rank);
	return ch_check(x);
}

static int ch_call(struct ex *x, const struct ex_call *c)
{
	const char *name = rondo_func_name(x->t, c->func);
	uint64_t dur =
		c->end > c->start ? (uint64_t)c->end - (uint64_t)c->start : 0;
	char ts[32], d[32];
	int rc;

	ch_event(x);
	ch_puts(x, "{\"name\":");
	ch_str(x, name ? name : "?");
	ch_printf(x,
		  ",\"cat\":\"mpi\",\"ph\":\"X\",\"pid\":%" PRIu32
		  ",\"tid\":0,\"ts\":%s,\"dur\":%s",
		  c->rank, ch_time(ts, sizeof(ts), c->start),
		  ch_us(d, sizeof(d), 0, dur));
	ch_args(x, c);
	ch_put(x, "}", 1);
	for (uint32_t k = 0; k < c->nmsgs; k++) {
		rc = ch_flow(x, c, &c->msgs[k]);
		if (rc)
			return rc;
	}
	return ch_check(x);
}

static int ch_rank_end(struct ex *x, uint32_t rank)
{
	(void)rank;
	return ch_check(x);
}

/* Writes v (0 <= v < 10^6) with up to six decimals, without printf's %g,
 * whose decimal point follows the locale. */
static const char *ch_fixed(char *buf, size_t size, double v)
{
	uint64_t m = (uint64_t)(v * 1e6 + 0.5);
	size_t n;

	n = (size_t)snprintf(buf, size, "%" PRIu64 ".%06u", m / 1000000,
			     (unsigned)(m % 1000000));
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return buf;
}

/* What the trace is, for the viewer's metadata panel. */
static void ch_other(struct ex *x)
{
	const char *program = rondo_meta_get(x->t, "program");
	struct ch_out *s = x->sink;
	char buf[48];

	ch_puts(x, "\"generator\":\"rondo " RONDO_VERSION_STRING "\"");
	if (program) {
		ch_puts(x, ",\"program\":");
		ch_str(x, program);
	}
	ch_printf(x, ",\"ranks\":%" PRIu32 ",\"exported_ranks\":%" PRIu64,
		  rondo_rank_count(x->t), s->ranks);
	if (x->timing == EX_TIMING_SYNTHETIC) {
		ch_puts(x, ",\"timing\":\"synthetic: per-signature mean "
			   "durations laid end to end\"");
	} else {
		ch_puts(x, ",\"timing\":\"per-call: the times recorded, each "
			   "late by at most (base - 1) of its span\"");
		if (x->base >= 0 && x->base < 1e6)
			ch_printf(x, ",\"base\":%s",
				  ch_fixed(buf, sizeof(buf), x->base));
		if (x->n.untimed)
			ch_printf(x, ",\"untimed_calls\":%" PRIu64,
				  x->n.untimed);
	}
	/* ts 0 is this many ns after the job's time origin */
	ch_printf(x, ",\"ts_zero_ns\":%" PRId64, x->t0);
	if (x->start_epoch_ns)
		ch_printf(x, ",\"start_epoch_ns\":%" PRIu64, x->start_epoch_ns);
}

static int ch_end(struct ex *x)
{
	struct ch_out *s = x->sink;
	char why[256], name[FILEIO_SHORT];
	int err, rc;

	ch_puts(x, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{");
	ch_other(x);
	ch_puts(x, "}}\n");
	rc = ch_check(x);
	if (rc) {
		ch_abort(x);
		return rc;
	}
	err = fileio_close(&s->out, 1, why, sizeof(why));
	free(s);
	x->sink = NULL;
	if (err)
		return ex_fail(x, err == ENOMEM ? RONDO_E_NOMEM : RONDO_E_IO,
			       "cannot write %s: %s",
			       fileio_short(name, sizeof(name), x->path), why);
	return 0;
}

const struct ex_sink ex_sink_chrome = {
	.name = "chrome",
	.begin = ch_begin,
	.rank_begin = ch_rank_begin,
	.call = ch_call,
	.rank_end = ch_rank_end,
	.end = ch_end,
	.abort = ch_abort,
};
