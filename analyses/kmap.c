/*
 * kmap.c - a hash map from three 64-bit values to an index (kmap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "kmap.h"

static size_t kmap_slot(size_t cap, const uint64_t k[3])
{
	uint64_t h = (k[0] + 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;

	h = (h ^ (h >> 31) ^ k[1]) * 0x94d049bb133111ebull;
	h = (h ^ (h >> 29) ^ k[2]) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

static int kmap_grow(struct kmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64, j;
	uint64_t *key = malloc(sizeof(*key) * 3 * cap);
	uint32_t *val = malloc(sizeof(*val) * cap);

	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	for (size_t i = 0; i < cap; i++)
		val[i] = KMAP_NONE;
	for (size_t i = 0; i < m->cap; i++) {
		if (m->val[i] == KMAP_NONE)
			continue;
		for (j = kmap_slot(cap, m->key + 3 * i); val[j] != KMAP_NONE;
		     j = (j + 1) & (cap - 1))
			;
		memcpy(key + 3 * j, m->key + 3 * i, sizeof(*key) * 3);
		val[j] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

uint32_t kmap_get(struct kmap *m, uint64_t a, uint64_t b, uint64_t c,
		  uint32_t next, int *added)
{
	const uint64_t k[3] = {a, b, c};
	size_t j;

	*added = 0;
	if (2 * (m->n + 1) > m->cap && kmap_grow(m) < 0)
		return KMAP_NONE;
	for (j = kmap_slot(m->cap, k); m->val[j] != KMAP_NONE;
	     j = (j + 1) & (m->cap - 1))
		if (!memcmp(m->key + 3 * j, k, sizeof(k)))
			return m->val[j];
	memcpy(m->key + 3 * j, k, sizeof(k));
	m->val[j] = next;
	m->n++;
	*added = 1;
	return next;
}

void kmap_free(struct kmap *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

void kmap_del(struct kmap *m, uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t k[3] = {a, b, c};
	size_t i, j, h, mask = m->cap - 1;

	if (!m->cap)
		return;
	for (i = kmap_slot(m->cap, k); m->val[i] != KMAP_NONE;
	     i = (i + 1) & mask)
		if (!memcmp(m->key + 3 * i, k, sizeof(k)))
			break;
	if (m->val[i] == KMAP_NONE)
		return;
	/* empty slot i; move back each later entry of its run that would
	 * no longer be found (its home not cyclically in (i, j]) */
	m->val[i] = KMAP_NONE;
	m->n--;
	for (j = (i + 1) & mask; m->val[j] != KMAP_NONE; j = (j + 1) & mask) {
		h = kmap_slot(m->cap, m->key + 3 * j);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		memcpy(m->key + 3 * i, m->key + 3 * j, sizeof(k));
		m->val[i] = m->val[j];
		m->val[j] = KMAP_NONE;
		i = j;
	}
}
