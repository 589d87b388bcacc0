/*
 * util.h - the two helpers every part of rondo shares: the number of
 * elements of an array, and a growing array.
 *
 * Header only, so that each part (format, tracer, reader, analyses, tui)
 * includes it without linking anything.
 */
#ifndef RONDO_UTIL_H
#define RONDO_UTIL_H

#include <stdint.h>
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

#endif /* RONDO_UTIL_H */
