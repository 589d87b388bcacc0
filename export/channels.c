/*
 * channels.c - message channels (sender, receiver, communicator, tag):
 * how the walk matches the k-th send of a channel with its k-th receive,
 * and gives both the same flow id, with memory that does not grow with
 * the ranks (export_int.h).
 *
 * Ranks are walked one after the other, in increasing order, twice.  A
 * channel is needed from the walk of the first of its two ranks to the
 * end of the walk of the last: it is made when first touched and closed
 * then (a heap by last rank), so what is held is the channels that cross
 * the rank being walked (a halo exchange's few), not all of them.
 *
 * The first pass counts each channel's sends and receives and notes
 * which are exported.  At its close, a channel whose sends and receives
 * pair off whole, all exported, and whose receives that ignored their
 * status were posted for the size its sends sent (the common case) is
 * forgotten: in the second pass every one of its messages is drawn.  The
 * others (unmatched messages, ends cut by a time window or a function
 * filter, sizes only the sends know) are kept for the second pass, a
 * few.  A flow id is a hash of the channel plus k: no table needed to
 * give both ends the same one; 64 bits make two channels' ids meet with
 * odds below 2^-30 for a trace of 10^9 messages.
 */
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "util.h"

#define NONE UINT32_MAX

/* The slot of the channel, KMAP_NONE when it is not open. */
static uint32_t chans_find(struct ex_chans *t, uint32_t src, uint32_t dst,
			   uint32_t comm, int64_t tag, int *added)
{
	uint32_t free_slot = t->free != NONE ? t->free : (uint32_t)t->n;

	return kmap_get(&t->map, (uint64_t)src << 32 | dst, comm, (uint64_t)tag,
			free_slot, added);
}

/* Pushes slot c on the heap of channels by their last rank. */
static int chans_push(struct ex_chans *t, uint32_t c)
{
	size_t i;

	if (util_grow(&t->heap, &t->capheap, t->nheap + 1, sizeof(*t->heap)) <
	    0)
		return -1;
	for (i = t->nheap++; i > 0; i = (i - 1) / 2) {
		uint32_t up = t->heap[(i - 1) / 2];

		if (t->c[up].last <= t->c[c].last)
			break;
		t->heap[i] = up;
	}
	t->heap[i] = c;
	return 0;
}

/* Takes the channel with the lowest last rank off the heap. */
static uint32_t chans_pop(struct ex_chans *t)
{
	uint32_t top = t->heap[0], c = t->heap[--t->nheap];
	size_t i = 0, k;

	while ((k = 2 * i + 1) < t->nheap) {
		if (k + 1 < t->nheap &&
		    t->c[t->heap[k + 1]].last < t->c[t->heap[k]].last)
			k++;
		if (t->c[c].last <= t->c[t->heap[k]].last)
			break;
		t->heap[i] = t->heap[k];
		i = k;
	}
	if (t->nheap)
		t->heap[i] = c;
	return top;
}

uint32_t chans_open(struct ex_chans *t, uint32_t src, uint32_t dst,
		    uint32_t comm, int64_t tag)
{
	int added;
	uint32_t i = chans_find(t, src, dst, comm, tag, &added);
	struct ex_chan *c;

	if (i == KMAP_NONE)
		return NONE;
	if (!added)
		return i;
	if (i == t->n) {
		if (util_grow(&t->c, &t->cap, t->n + 1, sizeof(*t->c)) < 0)
			return NONE;
		t->n++;
	} else {
		t->free = t->c[i].next_free;
	}
	c = &t->c[i];
	memset(c, 0, sizeof(*c));
	c->src = src;
	c->dst = dst;
	c->comm = comm;
	c->tag = tag;
	c->last = src > dst ? src : dst;
	return chans_push(t, i) < 0 ? NONE : i;
}

/* A 64-bit mix of the channel's identity (splitmix64's finalizer). */
static uint64_t chans_hash(const struct ex_chan *c)
{
	uint64_t h = ((uint64_t)c->src << 32 | c->dst) ^
		     ((uint64_t)c->comm << 40) ^ (uint64_t)c->tag * 0x9e37u;

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return h ^ (h >> 31);
}

uint64_t chans_end(struct ex_chans *t, uint32_t i, int side, uint64_t k,
		   int exported)
{
	struct ex_chan *c = &t->c[i];
	uint64_t id;

	if (t->pass == 1) {
		side ? c->nrecv++ : c->nsend++;
		if (!exported)
			return 0;
		if (!c->any[side]) {
			c->any[side] = 1;
			c->lo[side] = k;
		} else if (c->hi[side] != k) {
			c->gap[side] = 1;
		}
		c->hi[side] = k + 1;
		return 0;
	}
	if (!exported)
		return 0;
	if (c->kept) {
		if (k >= c->nsend || k >= c->nrecv)
			return 0;
		for (int e = 0; e < 2; e++)
			if (!c->any[e] || c->gap[e] || k < c->lo[e] ||
			    k >= c->hi[e])
				return 0;
	}
	id = chans_hash(c) + k;
	return id ? id : 1;
}

void chans_sent(struct ex_chans *t, uint32_t i, uint64_t bytes)
{
	struct ex_chan *c = &t->c[i];

	if (t->pass != 1)
		return;
	if (c->sized && c->sbytes != bytes)
		c->mixed = 1;
	c->sized = 1;
	c->sbytes = bytes;
}

void chans_ignored(struct ex_chans *t, uint32_t i, uint64_t posted)
{
	struct ex_chan *c = &t->c[i];

	if (t->pass != 1)
		return;
	if (c->ignored && c->posted != posted)
		c->rmixed = 1;
	c->ignored = 1;
	c->posted = posted;
}

int chans_size(const struct ex_chans *t, uint32_t i, uint64_t k,
	       uint64_t *bytes)
{
	const struct ex_chan *c = &t->c[i];

	if (!c->kept || k >= c->nsend || !c->sized || c->mixed)
		return -1;
	*bytes = c->sbytes;
	return 0;
}

/* Whether channel c can be forgotten after the first pass: every one of
 * its messages matched and exported, no size only its sends know. */
static int chans_regular(const struct ex_chan *c)
{
	for (int e = 0; e < 2; e++)
		if (!c->any[e] || c->gap[e] || c->lo[e] != 0 ||
		    c->hi[e] != (e ? c->nrecv : c->nsend))
			return 0;
	if (c->nsend != c->nrecv)
		return 0;
	return !c->ignored ||
	       (c->sized && !c->mixed && !c->rmixed && c->posted == c->sbytes);
}

/* Closes slot i: forgotten, its slot free again. */
static void chans_forget(struct ex_chans *t, uint32_t i)
{
	struct ex_chan *c = &t->c[i];

	kmap_del(&t->map, (uint64_t)c->src << 32 | c->dst, c->comm,
		 (uint64_t)c->tag);
	c->next_free = t->free;
	t->free = i;
}

void chans_close(struct ex_chans *t, uint32_t rank, struct ex_counts *n)
{
	while (t->nheap && t->c[t->heap[0]].last <= rank) {
		uint32_t i = chans_pop(t);
		struct ex_chan *c = &t->c[i];
		uint64_t m = c->nsend < c->nrecv ? c->nsend : c->nrecv;

		if (t->pass == 2) {
			chans_forget(t, i);
			continue;
		}
		n->unmatched_sends += c->nsend - m;
		n->unmatched_recvs += c->nrecv - m;
		if (chans_regular(c)) {
			chans_forget(t, i);
		} else {
			c->kept = 1;
			c->ks = c->kr = 0;
		}
	}
}

int chans_second(struct ex_chans *t)
{
	t->pass = 2;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->c[i].kept && chans_push(t, i) < 0)
			return -1;
	return 0;
}

void chans_init(struct ex_chans *t)
{
	memset(t, 0, sizeof(*t));
	t->free = NONE;
	t->pass = 1;
}

void chans_free(struct ex_chans *t)
{
	kmap_free(&t->map);
	free(t->c);
	free(t->heap);
	chans_init(t);
}
