/*
 * kmap.h - a hash map from three 64-bit values to an index: what the
 * analyses that match calls across ranks (skew.c, waits.c) and the export
 * (export/events.c) keep what is in flight in, keyed by (rank, request
 * id), (sender, receiver, communicator, tag)...
 */
#ifndef RONDO_KMAP_H
#define RONDO_KMAP_H

#include <stddef.h>
#include <stdint.h>

/* An empty slot; what kmap_get returns when memory is short. */
#define KMAP_NONE UINT32_MAX

/* Zeroed: an empty map. */
struct kmap {
	uint64_t *key; /* three per slot */
	uint32_t *val; /* KMAP_NONE: an empty slot */
	size_t cap, n; /* cap: a power of two, at most half full */
};

/* The index stored under (a, b, c); else `next`, stored there (*added
 * set: the caller makes that entry).  KMAP_NONE when memory is short. */
uint32_t kmap_get(struct kmap *m, uint64_t a, uint64_t b, uint64_t c,
		  uint32_t next, int *added);

/* Removes the entry under (a, b, c), if any. */
void kmap_del(struct kmap *m, uint64_t a, uint64_t b, uint64_t c);

/* Frees the map's memory; m is an empty map again. */
void kmap_free(struct kmap *m);

#endif /* RONDO_KMAP_H */
