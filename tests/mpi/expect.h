/*
 * expect.h - what the MPI test programs share.  Each program knows what it
 * calls: per rank, it writes one extended regular expression per MPI call
 * it makes (what `rondo dump` must print for it after the rank and index),
 * in order, to $RONDO_EXPECT.<rank>; tests/mpi.sh runs it under the tracer
 * and compares.
 *
 * A call is written with its parameters in the standard's order, each
 * output marked OUT: EXPECT("MPI_Irecv\\(" OUT "buf=" BUF ", count=1, ...,
 * " OUT "request=" REQ "\\)").  expect_render() turns that into the dump's
 * layout (the inputs, then " -> " and the outputs), and rx_rank() and
 * rx_st() write ranks as the dump shows them (absolute): a change of
 * the dump's layout is a change of this file.
 *
 * A call the tracer cannot record right yet is expected with
 * expect_pending(reason, strict, loose): the loose regex is the check; the
 * strict one (what is right) and the reason go to
 * $RONDO_EXPECT.pending.<rank>, with the call's index.  mpi.sh lists the
 * reasons, and says when the strict regexes match: then the check can be
 * made strict.  So no check is left out silently.
 */
#ifndef RONDO_TESTS_MPI_EXPECT_H
#define RONDO_TESTS_MPI_EXPECT_H

#include <ctype.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Marks the parameter that follows as an output of the call. */
#define OUT "\001"
/* A buffer: its id and offset are not the point of these tests. */
#define BUF "m[0-9]+\\+[0-9]+"
/* Symbolic ids whose exact value is not the point. */
#define COMM  "c[0-9]+"
#define REQ   "r[0-9]+"
#define GROUP "g[0-9]+"
/* A status the program passed MPI_STATUS_IGNORE for, which the tracer
 * replaced by its own and recorded: here with no field to add. */
#define IGNORED "MPI_STATUS_IGNORE\\{\\}"
/* An array of them (MPI_STATUSES_IGNORE). */
#define IGNORED_ALL                                                            \
	"\\[(MPI_STATUS_IGNORE\\{\\}(, )?)+(, \\.\\.\\. [0-9]+ in all)?\\]"

static FILE *expect_file;
static FILE *pending_file;
static int expect_rank;
static long expect_calls; /* expected so far: the next call's index */

/* Where parameter text starts: after ", " comes OUT or a "name=". */
static inline int expect_param_start(const char *p)
{
	if (*p == OUT[0])
		p++;
	if (!(*p == '_' || isalpha((unsigned char)*p)))
		return 0;
	while (*p == '_' || isalnum((unsigned char)*p))
		p++;
	return *p == '=';
}

/* Appends parameter [p, end) to `to` (inputs or outputs). */
static inline void expect_put(char *to, size_t size, const char *p,
			      const char *end)
{
	size_t len = strlen(to);

	if (*p == OUT[0])
		p++;
	snprintf(to + len, size - len, "%s%.*s", len ? ", " : "",
		 (int)(end - p), p);
}

/* `call` (parameters in order, outputs marked OUT) as `rondo dump` lays
 * it out: "NAME\\(inputs -> outputs\\)", into out. */
static inline void expect_render(const char *call, char *out, size_t size)
{
	static char in[8192], outs[8192];
	const char *open = strstr(call, "\\("), *p, *q, *end;
	size_t n = strlen(call);

	if (!open || n < 4 || strcmp(call + n - 2, "\\)") != 0 ||
	    !strchr(call, OUT[0])) {
		snprintf(out, size, "%s", call);
		return;
	}
	in[0] = outs[0] = '\0';
	end = call + n - 2;
	for (p = open + 2; p < end; p = q + 2) {
		int depth = 0;	/* inside a status's braces: its fields */
		int quoted = 0; /* inside a string (rx_quote): its text */

		for (q = p; q < end; q++) {
			if (q[0] == '\\' && q + 1 < end) {
				if (!quoted && (q[1] == '{' || q[1] == '}'))
					depth += q[1] == '{' ? 1 : -1;
				q++; /* an escaped character: never a quote */
			} else if (q[0] == '"') {
				quoted = !quoted;
			} else if (!depth && !quoted && q[0] == ',' &&
				   q[1] == ' ' && expect_param_start(q + 2)) {
				break;
			}
		}
		if (*p == OUT[0])
			expect_put(outs, sizeof(outs), p, q);
		else
			expect_put(in, sizeof(in), p, q);
	}
	snprintf(out, size, "%.*s%s%s%s\\)", (int)(open + 2 - call), call, in,
		 *in ? " -> " : "-> ", outs);
}

static inline void expect_line(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* One expected call: a regular expression for the whole line of `rondo
 * dump` after the rank and index, written as described above. */
static inline void expect_line(const char *fmt, ...)
{
	static char call[8192], line[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(call, sizeof(call), fmt, ap);
	va_end(ap);
	expect_render(call, line, sizeof(line));
	fprintf(expect_file, "%s\n", line);
	expect_calls++;
}

#define EXPECT(...) expect_line(__VA_ARGS__)

/* One expected call written as the dump lays it out, of any length
 * (expect_line's are at most 8 KiB). */
static inline void expect_rendered(const char *line)
{
	fprintf(expect_file, "%s\n", line);
	expect_calls++;
}

static inline FILE *expect_open_file(const char *suffix, int rank)
{
	char path[4096];
	const char *base = getenv("RONDO_EXPECT");
	FILE *f;

	snprintf(path, sizeof(path), "%s.%s%d", base ? base : "expect", suffix,
		 rank);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	return f;
}

/* Opens the expectations of world rank `rank`. */
static inline void expect_open_rank(int rank)
{
	expect_rank = rank;
	expect_file = expect_open_file("", expect_rank);
	pending_file = expect_open_file("pending.", expect_rank);
}

/* Opens this rank's expectations; call it right after MPI_Init. */
static inline void expect_open(void)
{
	int rank = 0;

	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	expect_open_rank(rank);
}

static inline void expect_close(void)
{
	fclose(expect_file);
	fclose(pending_file);
}

/* A call the tracer cannot record right yet: checked with `loose`;
 * `strict` (what is right) is tried by mpi.sh, which reports `reason`
 * (one line, naming the program) until it matches. */
static inline void expect_pending(const char *reason, const char *strict,
				  const char *loose)
{
	static char line[8192];

	expect_render(strict, line, sizeof(line));
	fprintf(pending_file, "%ld\t%s\t%s\n", expect_calls, line, reason);
	EXPECT("%s", loose);
}

/* The program itself went wrong (not the tracer): stop the job. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: rank %d: check failed: %s\n",  \
				__FILE__, __LINE__, expect_rank, #cond);       \
			MPI_Abort(MPI_COMM_WORLD, 3);                          \
		}                                                              \
	} while (0)

/* Short texts built for one EXPECT: a ring of buffers, so that several
 * can be used in one call. */
#define RX_SIZE 1024

static inline char *rx_buf(void)
{
	static char ring[128][RX_SIZE];
	static unsigned next;

	return ring[next++ % 128];
}

static inline char *rx_printf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline char *rx_printf(const char *fmt, ...)
{
	char *b = rx_buf();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, RX_SIZE, fmt, ap);
	va_end(ap);
	return b;
}

/* A rank of `comm` (dest, source, root) as the dump shows it: the
 * number the program passed (the trace stores it relative to the caller;
 * the dump gives it back). */
static inline const char *rx_rank(int peer, MPI_Comm comm)
{
	(void)comm;
	if (peer == MPI_ANY_SOURCE)
		return "MPI_ANY_SOURCE";
	if (peer == MPI_PROC_NULL)
		return "MPI_PROC_NULL";
	if (peer == MPI_ROOT)
		return "MPI_ROOT";
	return rx_printf("%d", peer);
}

/* A tag as recorded. */
static inline const char *rx_tag(int tag)
{
	return tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : rx_printf("%d", tag);
}

/* A status as recorded: only what cannot be inferred from the call that
 * completed (NO: not recorded): the source and tag a wildcard matched,
 * the count received when it is not the count posted (a probe's: in
 * bytes).  ST_NONE: nothing to add (an empty status, a send's, a
 * receive that got what it posted from whom it named). */
#define NO	INT_MIN
#define ST_NONE "status\\{\\}"

static inline const char *rx_st_as(const char *name, int source, int tag,
				   int count)
{
	char *b = rx_buf();
	size_t len = (size_t)snprintf(b, RX_SIZE, "%s\\{", name);
	const char *sep = "";

	if (source != NO) {
		len += (size_t)snprintf(b + len, RX_SIZE - len, "source=%s",
					rx_rank(source, MPI_COMM_WORLD));
		sep = ", ";
	}
	if (tag != NO && len < RX_SIZE) {
		len += (size_t)snprintf(b + len, RX_SIZE - len, "%stag=%s", sep,
					rx_tag(tag));
		sep = ", ";
	}
	if (count != NO && len < RX_SIZE)
		len += (size_t)snprintf(b + len, RX_SIZE - len, "%scount=%d",
					sep, count);
	if (len < RX_SIZE)
		snprintf(b + len, RX_SIZE - len, "\\}");
	return b;
}

static inline const char *rx_st(int source, int tag, int count)
{
	return rx_st_as("status", source, tag, count);
}

/* The same for a status the program passed MPI_STATUS_IGNORE for, which
 * the tracer replaced by its own (IGNORED: with no field to add). */
static inline const char *rx_ign(int source, int tag, int count)
{
	return rx_st_as("MPI_STATUS_IGNORE", source, tag, count);
}

/* A string's text (between the quotes) as `rondo dump` prints it, matched
 * literally: '"' and '\\' with a backslash, bytes outside printable ASCII
 * as \xNN (MPICH's error strings have newlines), then extended regex
 * specials escaped; into b, of size bytes (rx_quote: a short one). */
static inline const char *rx_quote_to(char *b, size_t size, const char *s)
{
	char *o = b, shown[8];

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			snprintf(shown, sizeof(shown), "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			snprintf(shown, sizeof(shown), "\\x%02x", ch);
		else
			snprintf(shown, sizeof(shown), "%c", ch);
		if (o + 2 * strlen(shown) >= b + size)
			break;
		for (const char *c = shown; *c; c++) {
			if (strchr(".[]()*+?{}|^$\\", *c))
				*o++ = '\\';
			*o++ = *c;
		}
	}
	*o = '\0';
	return b;
}

static inline const char *rx_quote(const char *s)
{
	return rx_quote_to(rx_buf(), RX_SIZE, s);
}

/* A list as `rondo dump` prints it: at most 8 elements, then how many. */
static inline const char *rx_list(int n, const char *const *elem)
{
	char *b = rx_buf();
	size_t len = 0;

	len += (size_t)snprintf(b, RX_SIZE, "\\[");
	for (int i = 0; i < n && i < 8 && len < RX_SIZE; i++)
		len += (size_t)snprintf(b + len, RX_SIZE - len, "%s%s",
					i ? ", " : "", elem[i]);
	if (n > 8 && len < RX_SIZE)
		len += (size_t)snprintf(b + len, RX_SIZE - len,
					", \\.\\.\\. %d in all", n);
	if (len < RX_SIZE)
		snprintf(b + len, RX_SIZE - len, "\\]");
	return b;
}

/* An int array. */
static inline const char *rx_ints(int n, const int *a)
{
	char text[8][16];
	const char *elem[8];

	for (int i = 0; i < n && i < 8; i++) {
		snprintf(text[i], sizeof(text[i]), "%d", a[i]);
		elem[i] = text[i];
	}
	return rx_list(n, elem);
}

/* An array of ranks of `comm`. */
static inline const char *rx_ranks(int n, const int *a, MPI_Comm comm)
{
	const char *elem[8];

	for (int i = 0; i < n && i < 8; i++)
		elem[i] = rx_rank(a[i], comm);
	return rx_list(n, elem);
}

/* n copies of one element (handles whose ids are not the point). */
static inline const char *rx_same(int n, const char *elem)
{
	const char *e[8];

	for (int i = 0; i < n && i < 8; i++)
		e[i] = elem;
	return rx_list(n, e);
}

/* MPI_Get_library_version's call, which gave s and len: the string is
 * longer than expect_line takes (MPICH's: 2 KiB). */
static inline void expect_library_version(const char *s, int len)
{
	static char text[4 * MPI_MAX_LIBRARY_VERSION_STRING];
	static char line[sizeof(text) + 128];

	rx_quote_to(text, sizeof(text), s);
	snprintf(line, sizeof(line),
		 "MPI_Get_library_version\\(-> version=\"%s\", "
		 "resultlen=%d\\)",
		 text, len);
	expect_rendered(line);
}

/* The three calls every program starts with, after MPI_Init. */
static inline void expect_start(int *rank, int *size)
{
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	expect_open();
	EXPECT("MPI_Init\\(argc=[0-9]+, argv=NULL\\)");
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD, " OUT "rank=%d\\)", *rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT "size=%d\\)", *size);
}

static inline void expect_finalize(void)
{
	MPI_Finalize();
	EXPECT("MPI_Finalize\\(\\)");
	expect_close();
}

#endif /* RONDO_TESTS_MPI_EXPECT_H */
