/*
 * util.h - the helpers every part of rondo shares: the number of
 * elements of an array, a growing array, a size as settings give it, a
 * list of ranks as people write it, and the ranks a recovered trace says
 * were cut short.
 *
 * Header only, so that each part (format, tracer, reader, analyses, tui)
 * includes it without linking anything.
 */
#ifndef RONDO_UTIL_H
#define RONDO_UTIL_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number of elements of array `a` (not of a pointer). */
#define COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Makes room for `need` elements of `size` bytes in the array at *pp
 * (a pointer to any object pointer), whose capacity is *cap elements,
 * doubling from 16.  Returns 0, or -1 when memory is short or the size
 * would overflow size_t; the array is then left as it was.
 */
static inline int util_grow(void *pp, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n = n <= SIZE_MAX / 2 ? n * 2 : need;
	if (size == 0 || n > SIZE_MAX / size)
		return -1;
	memcpy(&p, pp, sizeof(p));
	p = realloc(p, n * size);
	if (!p)
		return -1;
	memcpy(pp, &p, sizeof(p));
	*cap = n;
	return 0;
}

/*
 * A size in bytes as RONDO_*_LIMIT and rondo run's options give it:
 * digits, then K, M or G or nothing.  Returns 0 with the bytes in *bytes,
 * or -1 (not a size, or too large).
 */
static inline int util_size(const char *v, size_t *bytes)
{
	char *end;
	unsigned long long n;
	int shift;

	if (!v || *v < '0' || *v > '9')
		return -1;
	n = strtoull(v, &end, 10);
	shift = *end == 'K' || *end == 'k'   ? 10
		: *end == 'M' || *end == 'm' ? 20
		: *end == 'G' || *end == 'g' ? 30
					     : 0;
	if (shift)
		end++;
	if (*end || n >= (1ull << (63 - shift)) || (n << shift) > SIZE_MAX)
		return -1;
	*bytes = (size_t)(n << shift);
	return 0;
}

/*
 * A whole percentage as RONDO_PRECISION and rondo run --precision give
 * it: digits from 0 to 100, then % or nothing.  Returns 0 with it in *pct,
 * or -1.
 */
static inline int util_percent(const char *v, unsigned *pct)
{
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return -1;
	n = strtoul(v, &end, 10);
	if (*end == '%')
		end++;
	if (*end || n > 100)
		return -1;
	*pct = (unsigned)n;
	return 0;
}

/*
 * What merges at a precision as RONDO_PRECISION_PARAMS and rondo run
 * --precision-params give it: a comma-separated list of "sizes" (counts
 * and displacements, always), "tags" and "peers".  Returns 0 with in
 * *what UTIL_MERGE_TAGS and UTIL_MERGE_PEERS for those in it, or -1 (an
 * empty item, another word).
 */
#define UTIL_MERGE_TAGS	 1u
#define UTIL_MERGE_PEERS 2u

static inline int util_params(const char *v, unsigned *what)
{
	*what = 0;
	if (!v || !*v)
		return -1;
	for (;;) {
		size_t n = strcspn(v, ",");

		if (n == 4 && !strncmp(v, "tags", 4))
			*what |= UTIL_MERGE_TAGS;
		else if (n == 5 && !strncmp(v, "peers", 5))
			*what |= UTIL_MERGE_PEERS;
		else if (n != 5 || strncmp(v, "sizes", 5))
			return -1;
		if (!v[n])
			return 0;
		v += n + 1;
	}
}

/* Appends the n ranks k[] (in increasing order) to the string in buf
 * (of size bytes), runs as ranges: "0-3,5". */
static inline void util_put_ranks(char *buf, size_t size, const uint32_t *k,
				  uint32_t n)
{
	size_t len = strlen(buf);

	for (uint32_t i = 0; i < n && len < size;) {
		uint32_t j = i;

		while (j + 1 < n && k[j + 1] == k[j] + 1)
			j++;
		len += (size_t)snprintf(buf + len, size - len, "%s%u",
					i ? "," : "", k[i]);
		if (j > i && len < size)
			len += (size_t)snprintf(buf + len, size - len, "-%u",
						k[j]);
		i = j + 1;
	}
}

/* One item of a list of ranks: first to last by step. */
struct util_ranks_run {
	uint32_t first, last, step;
};

/*
 * Reads the item of a list of ranks at *p ("0-3,7,10-20:2", as rondo dump
 * --ranks takes it; util_put_ranks writes it without steps) into *run,
 * and moves *p past it and the comma before the next.  Returns 1 for an
 * item; 0 when none starts at *p, where the list ends (the caller checks
 * what ends it); -1 for an item cut or out of range ("3-", "5-2", "1-9:0").
 */
static inline int util_ranks_next(const char **p, struct util_ranks_run *run)
{
	const char *s = *p;
	char *end;
	unsigned long a, b, step = 1;

	if (*s < '0' || *s > '9')
		return 0;
	a = b = strtoul(s, &end, 10);
	if (*end == '-') {
		s = end + 1;
		if (*s < '0' || *s > '9')
			return -1;
		b = strtoul(s, &end, 10);
		if (*end == ':') {
			s = end + 1;
			step = strtoul(s, &end, 10);
			if (end == s || step == 0)
				return -1;
		}
	}
	if (b < a || b >= UINT32_MAX || step >= UINT32_MAX)
		return -1;
	*run = (struct util_ranks_run){(uint32_t)a, (uint32_t)b,
				       (uint32_t)step};
	/* a comma only between items: "1," ends at the comma */
	*p = end + (*end == ',' && end[1] >= '0' && end[1] <= '9');
	return 1;
}

/* Whether rank is in the list of ranks at `list` (util_ranks_next's form,
 * up to where no item starts). */
static inline int util_in_ranks(const char *list, uint32_t rank)
{
	struct util_ranks_run r;

	while (util_ranks_next(&list, &r) == 1)
		if (rank >= r.first && rank <= r.last &&
		    (rank - r.first) % r.step == 0)
			return 1;
	return 0;
}

/*
 * The line at *line of the meta key "cut" of a recovered trace: rondo
 * recover writes a line for each way ranks were cut short (a signal,
 * MPI_Abort...), "RANKS<tab>ENDING\n" with RANKS as util_put_ranks writes
 * them.  Sets *ranks to its list (util_ranks_next and util_in_ranks stop
 * at the tab), *ending and *len to its ending, and moves *line to the
 * next line.  Returns 1, or 0 at the end (*line NULL or empty) and at a
 * line not of that form (a key cut in the middle): the rest is not read.
 */
static inline int util_cut_next(const char **line, const char **ranks,
				const char **ending, int *len)
{
	const char *p = *line, *nl;
	struct util_ranks_run r;
	int rc;

	if (!p)
		return 0;
	while ((rc = util_ranks_next(&p, &r)) == 1)
		continue;
	nl = strchr(p, '\n');
	if (rc < 0 || p == *line || *p != '\t' || !nl)
		return 0;
	*ranks = *line;
	*ending = p + 1;
	*len = nl - p - 1 < INT_MAX ? (int)(nl - p - 1) : INT_MAX;
	*line = nl + 1;
	return 1;
}

#endif /* RONDO_UTIL_H */
