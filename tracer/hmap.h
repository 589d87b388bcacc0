/*
 * hmap.h - value -> symbolic id tables (see hmap.c).
 */
#ifndef RONDO_HMAP_H
#define RONDO_HMAP_H

#include <stdint.h>
#include <string.h>

/* The key of a handle or pointer value of n bytes (an MPI handle is a
 * pointer in Open MPI, an int in MPICH). */
#define HMAP_KEY(h) hmap_key(&(h), sizeof(h))

static inline uint64_t hmap_key(const void *p, size_t n)
{
	uint64_t k = 0;

	memcpy(&k, p, n < sizeof(k) ? n : sizeof(k));
	return k;
}

/* A value maps to an id, or to CONST_FLAG | a constant's index. */
#define CONST_FLAG 0x80000000u

/* One slot: a value, what it maps to, and its references (0: empty).
 * Together, so that a lookup touches one cache line. */
struct hmap_ent {
	uint64_t key;
	uint32_t val;
	uint32_t refs;
};

/* One handle type: value -> id (or CONST_FLAG | constant index). */
struct hmap {
	struct hmap_ent *ent;
	uint32_t cap, n;
	uint32_t next_id;
	uint32_t *free_ids;
	uint32_t nfree, capfree;
};

static inline uint32_t hmap_slot(uint64_t key, uint32_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (uint32_t)key & (cap - 1);
}

/* The slot holding a value, or UINT32_MAX.  Inline: every recorded call
 * looks several values up. */
static inline uint32_t hmap_index(const struct hmap *m, uint64_t key)
{
	uint32_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = hmap_slot(key, m->cap); m->ent[i].refs;
	     i = (i + 1) & (m->cap - 1))
		if (m->ent[i].key == key)
			return i;
	return UINT32_MAX;
}

/* The id or constant a value maps to, or UINT32_MAX if none. */
static inline uint32_t hmap_lookup(const struct hmap *m, uint64_t key)
{
	uint32_t i = hmap_index(m, key);

	return i == UINT32_MAX ? UINT32_MAX : m->ent[i].val;
}

/* Empties slot i (from hmap_index), whatever its references. */
void hmap_remove(struct hmap *m, uint32_t i);

/* The slot of a value, or the empty slot where it goes (making room
 * first); UINT32_MAX when out of memory.  An empty slot is filled with
 * hmap_fill. */
uint32_t hmap_place(struct hmap *m, uint64_t key);

static inline void hmap_fill(struct hmap *m, uint32_t i, uint64_t key,
			     uint32_t val)
{
	m->ent[i] = (struct hmap_ent){key, val, 1};
	m->n++;
}

/* Maps a value to `val`, or adds a reference if it is mapped already.
 * Returns 0, or -1 when out of memory. */
int hmap_insert(struct hmap *m, uint64_t key, uint32_t val);

/* Drops one reference to a value and sets *val to what it mapped to.
 * Returns 1 when that was the last (the value is unmapped), 0 when some
 * remain, -1 for a value not mapped (or a constant). */
int hmap_unref(struct hmap *m, uint64_t key, uint32_t *val);

/* Looks the value up, adding it with a fresh id when absent (`create`
 * adds a reference when present).  Returns the id or constant, or
 * UINT32_MAX when out of memory.  The common case, a value present and
 * only read, inline. */
uint32_t hmap_get_slow(struct hmap *m, uint64_t key, int create);
static inline uint32_t hmap_get(struct hmap *m, uint64_t key, int create)
{
	uint32_t v;

	if (!create && (v = hmap_lookup(m, key)) != UINT32_MAX)
		return v;
	return hmap_get_slow(m, key, create);
}

/* Drops one reference; the id is reused once none is left. */
void hmap_put(struct hmap *m, uint64_t key);

/* The id allocator alone: the lowest free id (from a min-heap, so that
 * ids do not depend on the order they were freed in), and giving one
 * back. */
uint32_t hmap_take_id(struct hmap *m);
void hmap_give_id(struct hmap *m, uint32_t id);

/* Names a value: it always maps to constant c. */
void hmap_set_const(struct hmap *m, uint64_t key, uint32_t c);

/* Frees the table's arrays; it is empty and usable again after. */
void hmap_free(struct hmap *m);

#endif /* RONDO_HMAP_H */
