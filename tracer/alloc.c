/*
 * alloc.c - the program's heap blocks, so that a buffer is recorded as
 * (segment id, offset) and not as a raw address.
 *
 * The module defines malloc, calloc, realloc, free and the aligned
 * variants.  Each forwards to the next definition (dlsym(RTLD_NEXT): the
 * C library's, or an allocator loaded after us) and notes the block
 * [base, base + size) in a hash table by base, so that its free finds it
 * at once; a recorded call that looks an address up (alloc_segment) first
 * moves the blocks noted since into a tree, which finds the block around
 * any address.  Most blocks never reach MPI, so a block gets a segment id
 * only when a recorded call first names an address in it, and gives the
 * id back when it is freed.  The lowest
 * free id is reused: a loop that allocates, sends and frees a buffer
 * records the same segment every iteration, and ranks that do the same
 * things get the same ids.  A realloc that moves the block is a free and a
 * new block; one that grows it in place keeps the id.
 *
 * Tracking runs from the library's constructor, before MPI_Init, so that
 * arrays a program allocates before it starts MPI are segments too; it
 * stops at MPI_Finalize, or at MPI_Init when nothing is traced
 * (RONDO_DISABLE) or pointers are not (RONDO_TRACK_POINTERS=0).
 *
 * This code runs inside every allocation of the program, in any thread,
 * from before main to exit, so:
 * - it never calls malloc: tree nodes and the id bitmap live in mmap'ed
 *   memory;
 * - it holds its lock around its own structures only, never across a
 *   call into the real allocator;
 * - dlsym may call malloc or calloc while we look the real functions up:
 *   until they are known, requests are served from a static arena, whose
 *   blocks free() ignores;
 * - a free of a block it never saw (allocated before the constructor, or
 *   while out of node memory) only forwards.
 *
 * Under a sanitizer the program's malloc is the runtime's whenever the
 * runtime is preloaded first, as it must be for an instrumented program:
 * the functions here are then never called.  The runtime reports every
 * allocation and free to hooks (__sanitizer_install_malloc_and_free_hooks)
 * instead; when they exist they feed the tree, and the functions here
 * only forward, so no block is noted twice whatever the preload order.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"

#define ALLOC_EXPORT __attribute__((visibility("default")))

/* Sanitizer runtimes define this; without one it stays NULL. */
extern int __sanitizer_install_malloc_and_free_hooks(
	void (*malloc_hook)(const volatile void *, size_t),
	void (*free_hook)(const volatile void *)) __attribute__((weak));

/* Who notes blocks: nobody, these functions, or the sanitizer's hooks. */
enum { TRACK_OFF, TRACK_CALLS, TRACK_HOOKS };
static int mode = TRACK_OFF;

/* ---- the real functions and the bootstrap arena -------------------------- */

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
} real;
static int ready, resolving;

/* Enough for what dlsym and the dynamic loader ask for while we resolve
 * (a few dozen bytes), with room to spare for other threads meanwhile. */
#define ARENA_SIZE (64 * 1024)
#define ARENA_HEAD 16 /* the block's size, kept before it */
#define PAGE	   4096

static unsigned char arena[ARENA_SIZE] __attribute__((aligned(PAGE)));
static size_t arena_used;

/* A failed allocation. */
static void *enomem(void)
{
	errno = ENOMEM;
	return NULL;
}

/* Bump allocation, never reused: the memory is zero as calloc wants it. */
static void *arena_alloc(size_t n, size_t align)
{
	size_t old = __atomic_load_n(&arena_used, __ATOMIC_RELAXED), at;

	if (align < ARENA_HEAD)
		align = ARENA_HEAD;
	if (align > PAGE || (align & (align - 1)) || n > ARENA_SIZE)
		return enomem();
	do {
		at = (old + ARENA_HEAD + align - 1) & ~(align - 1);
		if (at + n > ARENA_SIZE)
			return enomem();
	} while (!__atomic_compare_exchange_n(&arena_used, &old, at + n, 1,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	memcpy(arena + at - ARENA_HEAD, &n, sizeof(n));
	return arena + at;
}

static int in_arena(const void *p)
{
	return (uintptr_t)p - (uintptr_t)arena < ARENA_SIZE;
}

#define RESOLVE(f) (*(void **)&real.f = dlsym(RTLD_NEXT, #f))

/* Looks the real functions up, once.  Returns 1 when they are known; 0
 * while they are being looked up, by this thread (dlsym calling malloc)
 * or another: the caller then uses the arena.  If dlsym cannot find
 * malloc at all, everything stays on the arena until it is full. */
static __attribute__((noinline)) int alloc_resolve(void)
{
	if (__atomic_exchange_n(&resolving, 1, __ATOMIC_ACQ_REL))
		return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(free);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	if (real.malloc && real.calloc && real.realloc && real.free)
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	return __atomic_load_n(&ready, __ATOMIC_ACQUIRE);
}

static inline int alloc_ready(void)
{
	return __builtin_expect(__atomic_load_n(&ready, __ATOMIC_ACQUIRE), 1) ||
	       alloc_resolve();
}

/* ---- the lock ------------------------------------------------------------ */

/* A test-and-set lock: uncontended, one atomic exchange and one store.
 * fork() takes it (pthread_atfork) so that the child gets a consistent
 * tree; fork handlers that run after ours may allocate, and this thread
 * then goes ahead while it holds the lock for fork. */
static int lock_word, forking;
static pthread_t fork_holder;

static __attribute__((noinline)) int lock_wait(void)
{
	for (unsigned spins = 0;; spins++) {
		if (__atomic_load_n(&forking, __ATOMIC_ACQUIRE) &&
		    pthread_equal(fork_holder, pthread_self()))
			return 0;
		if (!__atomic_load_n(&lock_word, __ATOMIC_RELAXED) &&
		    !__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE))
			return 1;
		/* ranks oversubscribe cores: let the holder run */
		if (spins >= 64)
			sched_yield();
	}
}

/* Returns what to hand to alloc_unlock. */
static inline int alloc_lock(void)
{
	int busy = __atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE);

	return __builtin_expect(!busy, 1) ? 1 : lock_wait();
}

static inline void alloc_unlock(int held)
{
	if (held)
		__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

static void fork_prepare(void)
{
	alloc_lock();
	fork_holder = pthread_self();
	__atomic_store_n(&forking, 1, __ATOMIC_RELEASE);
}

/* In the parent and in the child alike. */
static void fork_done(void)
{
	__atomic_store_n(&forking, 0, __ATOMIC_RELAXED);
	alloc_unlock(1);
}

/* ---- segment ids --------------------------------------------------------- */

/* A bitmap of the ids in use, and below `lowest` every id is in use: so
 * the lowest free id is found from there, at once in the usual case of a
 * loop that frees and takes one id. */
static uint64_t *id_used;
static uint32_t id_words, lowest;

/* Memory of the tracker's own: a new mapping of `bytes`, its first `keep`
 * bytes copied from old (a mapping of `had` bytes, or NULL), which goes;
 * NULL when out of memory, old kept. */
static void *map_grow(void *old, size_t had, size_t keep, size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (old) {
		memcpy(m, old, keep);
		munmap(old, had);
	}
	return m;
}

static int id_grow(void)
{
	uint32_t words = id_words ? 2 * id_words : PAGE / sizeof(uint64_t);
	uint64_t *m = map_grow(id_used, id_words * sizeof(*m),
			       id_words * sizeof(*m), words * sizeof(*m));

	if (!m)
		return -1;
	id_used = m;
	id_words = words;
	return 0;
}

/* The lowest free id; UINT32_MAX when out of memory.  Under the lock. */
static uint32_t id_take(void)
{
	uint32_t w = lowest / 64, id;

	while (w < id_words && id_used[w] == UINT64_MAX)
		w++;
	if (w == id_words && id_grow() < 0)
		return UINT32_MAX;
	id = w * 64 + (uint32_t)__builtin_ctzll(~id_used[w]);
	id_used[w] |= 1ull << (id % 64);
	lowest = id + 1;
	return id;
}

static void id_give(uint32_t id)
{
	/* a block named before is gone: a kept record may name it */
	rec_epoch_bump();
	id_used[id / 64] &= ~(1ull << (id % 64));
	if (id < lowest)
		lowest = id;
}

/* ---- the tree of live blocks --------------------------------------------- */

/*
 * The issue asks for an interval tree.  Live blocks never overlap, so
 * ordering them by base orders them by end too, and the block containing
 * p is the one with the greatest base <= p (p's predecessor), if p is
 * below its end: a balanced search tree keyed by base answers that in
 * O(log n), which is all an interval tree would add here.  It is a treap
 * whose priorities are a hash of the base: no random state, and the same
 * blocks give the same shape.
 */
struct seg {
	uintptr_t base;
	size_t size;
	struct seg *kid[2]; /* lower bases, higher bases */
	struct seg *prev;   /* a rebuild's stack */
	uint32_t yidx;	    /* while young: its place in young[] */
	uint32_t prio;
	uint32_t id; /* NO_ID until a recorded call names an address in it */
	int state;   /* enum seg_state */
};

/* Young: live, waiting outside the tree; live: in the tree; dead: freed,
 * still in the tree (see "the index of live blocks"). */
enum seg_state { SEG_YOUNG, SEG_LIVE, SEG_DEAD };

#define NO_ID UINT32_MAX

static struct seg *root;
static uint64_t untracked;
/* What a recorded call asks of the tree is cheaper than a walk when the
 * buffer is in the block the previous call named (halo rows of one array)
 * or outside every block (the stack lies above all of them). */
static struct seg *last_found;
static uintptr_t span_lo, span_hi; /* bounds of every block ever added */

/* Nodes: a free list, then the rest of the last mmap'ed chunk. */
#define CHUNK (256 * 1024)
static struct seg *free_nodes, *chunk_next, *chunk_end;

static struct seg *node_get(void)
{
	struct seg *s = free_nodes;

	if (s) {
		free_nodes = s->kid[0];
		return s;
	}
	if (chunk_next == chunk_end) {
		void *m = map_grow(NULL, 0, 0, CHUNK);

		if (!m)
			return NULL;
		chunk_next = m;
		chunk_end = chunk_next + CHUNK / sizeof(struct seg);
	}
	return chunk_next++;
}

/* Gives back a node unlinked from the tree (or NULL) and its id. */
static void node_put(struct seg *s)
{
	if (!s)
		return;
	if (s->id != NO_ID)
		id_give(s->id);
	if (s == last_found)
		last_found = NULL;
	s->kid[0] = free_nodes;
	free_nodes = s;
}

static uint32_t seg_prio(uintptr_t base)
{
	uint64_t k = base;

	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 29;
	return (uint32_t)k;
}

/*
 * The walks below pick a child by indexing kid[] with a comparison, not by
 * branching on it: which way a walk turns is a coin toss the branch
 * predictor loses half the time, and with many blocks that was most of
 * what a malloc and free cost.
 */

/* Splits t into the nodes below key (*l) and the others (*r). */
static void seg_split(struct seg *t, uintptr_t key, struct seg **l,
		      struct seg **r)
{
	struct seg **out[2] = {r, l};

	while (t) {
		int below = t->base < key;

		*out[below] = t;
		out[below] = &t->kid[below];
		t = t->kid[below];
	}
	*out[0] = *out[1] = NULL;
}

/* Joins a and b, every key of a below every key of b. */
static struct seg *seg_merge(struct seg *a, struct seg *b)
{
	struct seg *t, **link = &t;

	while (a && b) {
		if (a->prio > b->prio) {
			*link = a;
			link = &a->kid[1];
			a = a->kid[1];
		} else {
			*link = b;
			link = &b->kid[0];
			b = b->kid[0];
		}
	}
	*link = a ? a : b;
	return t;
}

/* Unlinks the node of the block at base and returns it, or NULL. */
static struct seg *seg_remove(uintptr_t base)
{
	struct seg **link = &root, *t;

	while ((t = *link) && t->base != base)
		link = &t->kid[base > t->base];
	if (t)
		*link = seg_merge(t->kid[0], t->kid[1]);
	if (t && t == last_found)
		last_found = NULL;
	return t;
}

static struct seg *seg_find(uintptr_t p)
{
	struct seg *t = root, *best = NULL;

	if (last_found && p - last_found->base < last_found->size)
		return last_found;
	if (p - span_lo >= span_hi - span_lo)
		return NULL;
	while (t) {
		int up = t->base <= p;

		best = up ? t : best;
		t = t->kid[up];
	}
	/* The tree's blocks, dead or alive, were all alive at once when the
	 * last of them went in, so they do not overlap: if p's predecessor
	 * is dead, no live block in the tree holds p. */
	return best && best->state == SEG_LIVE && p - best->base < best->size
		       ? best
		       : NULL;
}

static void span_add(const struct seg *s)
{
	if (s->base < span_lo || !span_hi)
		span_lo = s->base;
	if (s->base + s->size > span_hi)
		span_hi = s->base + s->size;
}

/* ---- the index of live blocks ------------------------------------------ */

/*
 * Every live block is in a hash table by base, so a free finds its node
 * with one probe, however many blocks live.  Most blocks die young,
 * before any MPI call could name them: a new block waits among the young,
 * outside the tree, and a free of it costs nothing more.  The young go
 * into the tree when a recorded call looks up an address they may hold.
 * A free of a block in the tree only marks it dead (walking down the tree
 * to unlink it is a chain of cache misses with many blocks live); the dead
 * leave the tree when a block coming in covers their base, and all at
 * once when they outnumber the living.
 */
static struct seg **slots; /* open addressing, NULL empty; mmap'ed */
static size_t nslots, nindexed;
static struct seg **young; /* the young blocks, in no order; mmap'ed */
static uint32_t nyoung, capyoung, ndead, nlive;

static size_t slot_home(uintptr_t base, size_t cap)
{
	return seg_prio(base) & (cap - 1);
}

/* The slot of the block at base, or of the empty slot where it would go. */
static size_t slot_find(uintptr_t base)
{
	size_t i = slot_home(base, nslots);

	while (slots[i] && slots[i]->base != base)
		i = (i + 1) & (nslots - 1);
	return i;
}

static int slots_grow(void)
{
	size_t cap = nslots ? 2 * nslots : PAGE / sizeof(*slots) * 4;
	struct seg **m = map_grow(NULL, 0, 0, cap * sizeof(*m));
	struct seg **old = slots;
	size_t oldcap = nslots;

	if (!m)
		return -1;
	slots = m;
	nslots = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			slots[slot_find(old[i]->base)] = old[i];
	if (old)
		munmap(old, oldcap * sizeof(*old));
	return 0;
}

/* Makes room in the index for one more block; -1 when out of memory. */
static int index_room(void)
{
	return (nindexed + 1) * 2 > nslots ? slots_grow() : 0;
}

/* Indexes s, room made; returns the block it displaces, one at the same
 * base whose free we never saw, or NULL. */
static struct seg *index_put(struct seg *s)
{
	size_t i = slot_find(s->base);
	struct seg *old = slots[i];

	slots[i] = s;
	nindexed += !old;
	return old;
}

/* Takes the live block at base out of the index and returns it, or
 * NULL. */
static struct seg *index_take(uintptr_t base)
{
	size_t i, j, home;
	struct seg *s;

	if (!nslots)
		return NULL;
	i = slot_find(base);
	s = slots[i];
	if (!s)
		return NULL;
	slots[i] = NULL;
	nindexed--;
	/* shift back the entries probed past the hole */
	for (j = i;;) {
		j = (j + 1) & (nslots - 1);
		if (!slots[j])
			return s;
		home = slot_home(slots[j]->base, nslots);
		if (((j - home) & (nslots - 1)) >= ((j - i) & (nslots - 1))) {
			slots[i] = slots[j];
			slots[j] = NULL;
			i = j;
		}
	}
}

/* Bounds of the young blocks added since the last flush (young_hi 0:
 * none): a lookup outside them need not flush. */
static uintptr_t young_lo, young_hi;

/* Bounds of every block tracked so far: an address outside them is in no
 * block, which the recorders ask without a lookup. */
uintptr_t alloc_span_lo = UINTPTR_MAX, alloc_span_hi;

static void span_cover(uintptr_t base, size_t size)
{
	if (base < alloc_span_lo)
		__atomic_store_n(&alloc_span_lo, base, __ATOMIC_RELAXED);
	if (base + size > alloc_span_hi)
		__atomic_store_n(&alloc_span_hi, base + size, __ATOMIC_RELAXED);
}

/* Adds s to the young; -1 when out of memory. */
static int young_link(struct seg *s)
{
	if (nyoung == capyoung) {
		uint32_t cap = capyoung ? 2 * capyoung : PAGE / sizeof(*young);
		struct seg **m =
			map_grow(young, capyoung * sizeof(*m),
				 nyoung * sizeof(*m), cap * sizeof(*m));

		if (!m)
			return -1;
		young = m;
		capyoung = cap;
	}
	span_cover(s->base, s->size);
	s->state = SEG_YOUNG;
	s->yidx = nyoung;
	young[nyoung++] = s;
	if (s->base < young_lo || !young_hi)
		young_lo = s->base;
	if (s->base + s->size > young_hi)
		young_hi = s->base + s->size;
	return 0;
}

static void young_unlink(struct seg *s)
{
	struct seg *last = young[--nyoung];

	young[s->yidx] = last;
	last->yidx = s->yidx;
}

static void tree_rebuild(void);

/* A block freed, already out of the index: a young one's node is free at
 * once; one in the tree stays there dead, its id free, until the tree is
 * rebuilt or a new block covers its base. */
static void block_drop(struct seg *s)
{
	if (s->state == SEG_YOUNG) {
		young_unlink(s);
		node_put(s);
		return;
	}
	if (s->id != NO_ID)
		id_give(s->id);
	s->id = NO_ID;
	if (s == last_found)
		last_found = NULL;
	s->state = SEG_DEAD;
	ndead++;
	nlive--;
	if (ndead > 64 && ndead > nlive)
		tree_rebuild();
}

/* Frees the nodes of a subtree cut out of the tree: the blocks whose base
 * lies in a block coming in, dead, or freed where we could not see. */
static void seg_dispose(struct seg *t)
{
	while (t) {
		struct seg *l = t->kid[0];

		if (l) { /* rotate right: the subtree becomes a list */
			t->kid[0] = l->kid[1];
			l->kid[1] = t;
			t = l;
			continue;
		}
		l = t->kid[1];
		if (t->state == SEG_DEAD) {
			ndead--;
		} else {
			index_take(t->base);
			nlive--;
		}
		node_put(t);
		t = l;
	}
}

/* Puts a live block in the tree.  The blocks in the tree must not
 * overlap for seg_find: those whose base it covers (dead ones whose
 * memory it reuses) leave. */
static void tree_put(struct seg *s)
{
	struct seg *l, *m, *r;

	seg_split(root, s->base, &l, &r);
	seg_split(r, s->base + s->size, &m, &r);
	seg_dispose(m);
	s->kid[0] = s->kid[1] = NULL;
	s->state = SEG_LIVE;
	root = seg_merge(seg_merge(l, s), r);
	span_add(s);
	nlive++;
}

/*
 * Drops the dead from the tree in time linear in its size: rotations turn
 * it into a list in base order, the dead leave the list, and the treap is
 * built again from it with a stack of its right spine (linked through
 * prev).  Done when the dead outnumber the living, so each free pays a
 * constant share.
 */
static void tree_rebuild(void)
{
	struct seg head = {0}, *tail = &head, *rest = root, *spine = NULL, *x;

	head.kid[1] = root;
	while (rest) {
		if (rest->kid[0]) {
			x = rest->kid[0];
			rest->kid[0] = x->kid[1];
			x->kid[1] = rest;
			rest = x;
			tail->kid[1] = x;
		} else {
			tail = rest;
			rest = rest->kid[1];
		}
	}
	root = NULL;
	for (x = head.kid[1]; x;) {
		struct seg *next = x->kid[1], *last = NULL;

		if (x->state == SEG_DEAD) {
			node_put(x);
			x = next;
			continue;
		}
		while (spine && spine->prio < x->prio) {
			last = spine;
			spine = spine->prev;
		}
		x->kid[0] = last;
		x->kid[1] = NULL;
		if (spine)
			spine->kid[1] = x;
		else
			root = x;
		x->prev = spine;
		spine = x;
		x = next;
	}
	ndead = 0;
}

/* Moves the young blocks into the tree. */
static void young_flush(void)
{
	for (uint32_t k = 0; k < nyoung; k++)
		tree_put(young[k]);
	nyoung = 0;
	young_lo = young_hi = 0;
}

/* A new live block [p, p + n); a block at p we never saw freed goes. */
static void block_add(const void *p, size_t n)
{
	struct seg *s = node_get(), *old;

	if (!s)
		goto untracked;
	s->id = NO_ID;
	if (index_room() < 0)
		goto untracked;
	s->base = (uintptr_t)p;
	s->size = n ? n : 1; /* malloc(0) is a block too */
	s->prio = seg_prio(s->base);
	if (young_link(s) < 0)
		goto untracked;
	old = index_put(s);
	if (old) /* its free was not seen: it is gone */
		block_drop(old);
	return;
untracked:
	node_put(s);
	untracked++;
}

static void track_add(const void *p, size_t n)
{
	int held = alloc_lock();

	block_add(p, n);
	alloc_unlock(held);
}

static void track_remove(const void *p)
{
	int held = alloc_lock();
	struct seg *s = index_take((uintptr_t)p);

	if (s)
		block_drop(s);
	alloc_unlock(held);
}

/* A block the real allocator returned: noted when these functions track. */
static void *noted(void *p, size_t n)
{
	if (p && __atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_CALLS)
		track_add(p, n);
	return p;
}

/* ---- what the recorders ask ---------------------------------------------- */

int alloc_segment(const void *p, uint32_t *id, uint64_t *off)
{
	struct seg *s;
	int held, found = 0;

	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_OFF)
		return 0;
	held = alloc_lock();
	/* A young block may hold p only if p lies within their bounds and
	 * not in the block found last (blocks do not overlap): a stack
	 * buffer, or the buffer of the call before, leaves them young. */
	if (nyoung && (uintptr_t)p - young_lo < young_hi - young_lo &&
	    !(last_found && (uintptr_t)p - last_found->base < last_found->size))
		young_flush();
	s = seg_find((uintptr_t)p);
	if (s && s->id == NO_ID)
		s->id = id_take();
	if (s && s->id != NO_ID) {
		*id = s->id;
		*off = (uintptr_t)p - s->base;
		found = 1;
		last_found = s;
	}
	alloc_unlock(held);
	return found;
}

void alloc_settle(void)
{
	int held;

	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_OFF)
		return;
	held = alloc_lock();
	young_flush();
	alloc_unlock(held);
}

uint32_t alloc_new_id(void)
{
	int held = alloc_lock();
	uint32_t id = id_take();

	alloc_unlock(held);
	return id;
}

uint64_t alloc_untracked(void)
{
	return __atomic_load_n(&untracked, __ATOMIC_RELAXED);
}

void alloc_stop(void)
{
	__atomic_store_n(&mode, TRACK_OFF, __ATOMIC_RELAXED);
	rec_epoch_bump();
}

/* tests/test_alloc.c includes this file to drive the index and the tree
 * with made-up blocks: without what follows, nothing is interposed. */
#ifndef ALLOC_UNIT_TEST

/* ---- the sanitizer's hooks ----------------------------------------------- */

static void hook_malloc(const volatile void *p, size_t n)
{
	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_HOOKS)
		track_add((const void *)p, n);
}

static void hook_free(const volatile void *p)
{
	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_HOOKS)
		track_remove((const void *)p);
}

static __attribute__((constructor)) void alloc_init(void)
{
	alloc_ready();
	if (rt_bool(getenv("RONDO_DISABLE")) == 1 ||
	    rt_bool(getenv("RONDO_TRACK_POINTERS")) == 0)
		return;
	pthread_atfork(fork_prepare, fork_done, fork_done);
	if (__sanitizer_install_malloc_and_free_hooks &&
	    __sanitizer_install_malloc_and_free_hooks(hook_malloc, hook_free))
		mode = TRACK_HOOKS;
	else
		mode = TRACK_CALLS;
}

/* ---- the allocation functions -------------------------------------------- */

ALLOC_EXPORT void *malloc(size_t n)
{
	if (!alloc_ready())
		return arena_alloc(n, 0);
	return noted(real.malloc(n), n);
}

ALLOC_EXPORT void *calloc(size_t k, size_t n)
{
	size_t bytes;

	if (__builtin_mul_overflow(k, n, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (!alloc_ready())
		return arena_alloc(bytes, 0);
	return noted(real.calloc(k, n), bytes);
}

ALLOC_EXPORT void free(void *p)
{
	if (!p || in_arena(p) || !alloc_ready())
		return;
	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) == TRACK_CALLS)
		track_remove(p);
	real.free(p);
}

/* An arena block grows into a real one (or a larger arena one). */
static void *arena_realloc(void *p, size_t n)
{
	size_t had;
	void *q = malloc(n);

	memcpy(&had, (unsigned char *)p - ARENA_HEAD, sizeof(had));
	if (q)
		memcpy(q, p, had < n ? had : n);
	return q;
}

/* The old block leaves the index (and the tree) before the real realloc
 * may free it, so that another thread given the same address meanwhile
 * does not find it; it comes back if it stays where it was. */
static void *tracked_realloc(void *p, size_t n)
{
	int held = alloc_lock();
	struct seg *s = index_take((uintptr_t)p);
	void *q;

	if (s && s->state == SEG_YOUNG) {
		young_unlink(s);
	} else if (s) {
		seg_remove(s->base); /* s: the tree has one block per base */
		nlive--;
	}
	alloc_unlock(held);
	q = real.realloc(p, n);
	held = alloc_lock();
	if (s && s->id != NO_ID && (q == p || (!q && n))) {
		/* named by MPI, and grown or shrunk in place, or not changed
		 * (the call failed): the same segment, but an address past
		 * its new end is in it no longer */
		rec_epoch_bump();
		if (q)
			s->size = n ? n : 1;
		span_cover(s->base, s->size);
		if (index_room() < 0) {
			node_put(s);
			untracked++;
		} else {
			index_put(s); /* nothing else lives at p */
			tree_put(s);
		}
	} else {
		/* moved, freed by realloc(p, 0), or never named: a new young
		 * block where it now is */
		size_t had = s ? s->size : 0;

		node_put(s);
		if (q)
			block_add(q, n);
		else if (n && had)
			block_add(p, had);
	}
	alloc_unlock(held);
	return q;
}

ALLOC_EXPORT void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (in_arena(p))
		return arena_realloc(p, n);
	if (!alloc_ready())
		return enomem();
	if (__atomic_load_n(&mode, __ATOMIC_RELAXED) != TRACK_CALLS)
		return real.realloc(p, n);
	return tracked_realloc(p, n);
}

ALLOC_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int err;

	if (!alloc_ready()) {
		*out = arena_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (!real.posix_memalign)
		return ENOMEM;
	err = real.posix_memalign(out, align, n);
	if (!err)
		noted(*out, n);
	return err;
}

/* aligned_alloc and memalign: the same arguments, the same work; the
 * next allocator may lack either. */
static void *aligned(void *(*f)(size_t, size_t), size_t align, size_t n)
{
	return f ? noted(f(align, n), n) : enomem();
}

ALLOC_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (!alloc_ready())
		return arena_alloc(n, align);
	return aligned(real.aligned_alloc, align, n);
}

ALLOC_EXPORT void *memalign(size_t align, size_t n)
{
	if (!alloc_ready())
		return arena_alloc(n, align);
	return aligned(real.memalign, align, n);
}

ALLOC_EXPORT void *valloc(size_t n)
{
	if (!alloc_ready())
		return arena_alloc(n, PAGE);
	return real.valloc ? noted(real.valloc(n), n) : enomem();
}

ALLOC_EXPORT void *pvalloc(size_t n)
{
	if (!alloc_ready())
		return arena_alloc((n + PAGE - 1) & ~(size_t)(PAGE - 1), PAGE);
	return real.pvalloc ? noted(real.pvalloc(n), n) : enomem();
}

#endif /* ALLOC_UNIT_TEST */
