/*
 * hmap.c - the tables behind symbolic ids: a value (a handle, an address)
 * maps to a small id with a reference count, or to a named constant.
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"

/* ---- the maps ------------------------------------------------------------ */

/* Index of key's slot, or of the empty slot where it would go. */
static uint32_t hmap_find(const struct hmap *m, uint64_t key)
{
	uint32_t i = hmap_slot(key, m->cap);

	while (m->ent[i].refs && m->ent[i].key != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int hmap_grow(struct hmap *m)
{
	struct hmap old = *m;
	uint32_t cap = old.cap ? old.cap * 2 : 64;

	m->ent = calloc(cap, sizeof(*m->ent));
	if (!m->ent) {
		*m = old;
		return -1;
	}
	m->cap = cap;
	for (uint32_t i = 0; i < old.cap; i++)
		if (old.ent[i].refs)
			m->ent[hmap_find(m, old.ent[i].key)] = old.ent[i];
	free(old.ent);
	return 0;
}

/* Empties slot i, shifting back the entries probed past it. */
void hmap_remove(struct hmap *m, uint32_t i)
{
	uint32_t j = i;

	m->ent[i].refs = 0;
	m->n--;
	for (;;) {
		uint32_t home;

		j = (j + 1) & (m->cap - 1);
		if (!m->ent[j].refs)
			return;
		home = hmap_slot(m->ent[j].key, m->cap);
		/* j's entry may move to i if i lies between home and j */
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->ent[i] = m->ent[j];
			m->ent[j].refs = 0;
			i = j;
		}
	}
}

/* Free ids form a min-heap: the lowest free id is reused first, so the
 * ids a loop iteration gets do not depend on the order the previous
 * iteration freed them in (Waitall completing r1 before r0). */
uint32_t hmap_take_id(struct hmap *m)
{
	uint32_t *h = m->free_ids, top, i = 0;

	if (!m->nfree)
		return m->next_id++;
	top = h[0];
	h[0] = h[--m->nfree];
	for (;;) {
		uint32_t c = 2 * i + 1, t;

		if (c >= m->nfree)
			break;
		if (c + 1 < m->nfree && h[c + 1] < h[c])
			c++;
		if (h[i] <= h[c])
			break;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
	return top;
}

void hmap_give_id(struct hmap *m, uint32_t id)
{
	uint32_t i;

	if (m->nfree == m->capfree) {
		uint32_t cap = m->capfree ? m->capfree * 2 : 16;
		uint32_t *p = realloc(m->free_ids, cap * sizeof(*p));

		if (!p)
			return; /* the id is lost, not reused: harmless */
		m->free_ids = p;
		m->capfree = cap;
	}
	for (i = m->nfree++; i > 0 && m->free_ids[(i - 1) / 2] > id;
	     i = (i - 1) / 2)
		m->free_ids[i] = m->free_ids[(i - 1) / 2];
	m->free_ids[i] = id;
}

uint32_t hmap_place(struct hmap *m, uint64_t key)
{
	if ((m->n + 1) * 2 > m->cap && hmap_grow(m) < 0)
		return UINT32_MAX;
	return hmap_find(m, key);
}

int hmap_insert(struct hmap *m, uint64_t key, uint32_t val)
{
	uint32_t i = hmap_place(m, key);

	if (i == UINT32_MAX)
		return -1;
	if (!m->ent[i].refs)
		hmap_fill(m, i, key, val);
	else if (!(m->ent[i].val & CONST_FLAG))
		m->ent[i].refs++;
	return 0;
}

int hmap_unref(struct hmap *m, uint64_t key, uint32_t *val)
{
	uint32_t i;

	i = hmap_index(m, key);
	if (i == UINT32_MAX || (m->ent[i].val & CONST_FLAG))
		return -1;
	*val = m->ent[i].val;
	if (--m->ent[i].refs > 0)
		return 0;
	hmap_remove(m, i);
	return 1;
}

uint32_t hmap_get_slow(struct hmap *m, uint64_t key, int create)
{
	uint32_t v = hmap_lookup(m, key);

	if (v != UINT32_MAX) {
		if (create)
			hmap_insert(m, key, v); /* one more reference */
		return v;
	}
	v = m->nfree ? m->free_ids[0] : m->next_id;
	if (hmap_insert(m, key, v) < 0)
		return UINT32_MAX;
	return hmap_take_id(m); /* takes v, as looked at above */
}

void hmap_put(struct hmap *m, uint64_t key)
{
	uint32_t v;

	if (hmap_unref(m, key, &v) == 1)
		hmap_give_id(m, v);
}

void hmap_set_const(struct hmap *m, uint64_t key, uint32_t c)
{
	uint32_t i;

	i = hmap_place(m, key);
	if (i == UINT32_MAX)
		return;
	if (!m->ent[i].refs)
		m->n++;
	m->ent[i] = (struct hmap_ent){key, CONST_FLAG | c, 1};
}

void hmap_free(struct hmap *m)
{
	free(m->ent);
	free(m->free_ids);
	memset(m, 0, sizeof(*m));
}
