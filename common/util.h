/*
 * util.h - the helpers every part of rondo shares: the number of
 * elements of an array, a growing array, a size as settings give it, and
 * a list of ranks as people write it.
 *
 * Header only, so that each part (format, tracer, reader, analyses, tui)
 * includes it without linking anything.
 */
#ifndef RONDO_UTIL_H
#define RONDO_UTIL_H

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

#endif /* RONDO_UTIL_H */
