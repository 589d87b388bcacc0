/*
 * alloc.c - the program's heap blocks, so that a buffer is recorded as
 * (segment id, offset) and not as a raw address.
 *
 * The module defines malloc, calloc, realloc, free and the aligned
 * variants.  Each forwards to the next definition (dlsym(RTLD_NEXT): the
 * C library's, or an allocator loaded after us) and notes the block
 * [base, base + size): in a small table while it is young, then in a
 * tree, which finds the block around any address.  Most blocks never reach
 * MPI, so a block
 * gets a segment id only when a recorded call first names an address in
 * it (alloc_segment), and gives the id back when it is freed.  The lowest
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
	} while (!__atomic_compare_exchange_n(
	    &arena_used, &old, at + n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
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

static int id_grow(void)
{
	uint32_t words = id_words ? 2 * id_words : PAGE / sizeof(uint64_t);
	uint64_t *m = mmap(NULL, words * sizeof(*m), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return -1;
	if (id_used) {
		memcpy(m, id_used, id_words * sizeof(*m));
		munmap(id_used, id_words * sizeof(*m));
	}
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
	uint32_t prio;
	uint32_t id; /* NO_ID until a recorded call names an address in it */
};

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
		void *m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
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

/* Links s in; returns a node with the same base it replaces (a free we
 * never saw), or NULL.  Equal bases have equal priorities, so such a node
 * is met on the way down, before the place where s goes. */
static struct seg *seg_insert(struct seg *s)
{
	struct seg **link = &root, *t;

	while ((t = *link) && t->prio >= s->prio) {
		if (t->base == s->base) {
			s->kid[0] = t->kid[0];
			s->kid[1] = t->kid[1];
			*link = s;
			return t;
		}
		link = &t->kid[s->base > t->base];
	}
	seg_split(t, s->base, &s->kid[0], &s->kid[1]);
	*link = s;
	return NULL;
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
	return best && p - best->base < best->size ? best : NULL;
}

static void span_add(const struct seg *s)
{
	if (s->base < span_lo || !span_hi)
		span_lo = s->base;
	if (s->base + s->size > span_hi)
		span_hi = s->base + s->size;
}

/* Puts a block in the tree.  Under the lock. */
static void seg_add(uintptr_t base, size_t n)
{
	struct seg *s = node_get();

	if (!s) {
		untracked++;
		return;
	}
	s->base = base;
	s->size = n ? n : 1; /* malloc(0) is a block too */
	s->kid[0] = s->kid[1] = NULL;
	s->prio = seg_prio(base);
	s->id = NO_ID;
	node_put(seg_insert(s));
	span_add(s);
}

/* ---- young blocks -------------------------------------------------------- */

/*
 * Most blocks die young, before any MPI call could name them.  A new block
 * waits in a small table, and a free that finds it there costs a hash
 * probe instead of two walks down the tree (whose nodes, with many live
 * blocks, are cache misses).  The waiting blocks go into the tree when a
 * recorded call looks a buffer up, or when the table is full.  A slot
 * holds an index + 1 into young[], 0 (empty) or a tombstone; tombstones go
 * when the slots are rebuilt.
 */
#define YOUNG  256
#define YSLOTS (4 * YOUNG)
#define YTOMB  0xffff

static struct young {
	uintptr_t base;
	size_t size;
} young[YOUNG];
static uint32_t nyoung, yused; /* blocks; slots not empty */
static uint16_t yslot[YSLOTS];

static uint32_t young_home(uintptr_t base)
{
	return seg_prio(base) & (YSLOTS - 1);
}

/* The slot of the block at base, or UINT32_MAX. */
static uint32_t young_lookup(uintptr_t base)
{
	for (uint32_t i = young_home(base);; i = (i + 1) & (YSLOTS - 1)) {
		if (!yslot[i])
			return UINT32_MAX;
		if (yslot[i] != YTOMB && young[yslot[i] - 1].base == base)
			return i;
	}
}

/* The slot that holds young[k]. */
static uint32_t young_slot_of(uint32_t k)
{
	uint32_t i = young_home(young[k].base);

	while (yslot[i] != k + 1)
		i = (i + 1) & (YSLOTS - 1);
	return i;
}

static void young_index(uint32_t k)
{
	uint32_t i = young_home(young[k].base);

	while (yslot[i] && yslot[i] != YTOMB)
		i = (i + 1) & (YSLOTS - 1);
	yused += !yslot[i];
	yslot[i] = (uint16_t)(k + 1);
}

static void young_reindex(void)
{
	memset(yslot, 0, sizeof(yslot));
	yused = 0;
	for (uint32_t k = 0; k < nyoung; k++)
		young_index(k);
}

/* Bounds of the young blocks added since the last flush (young_hi 0:
 * none): a lookup outside them need not flush. */
static uintptr_t young_lo, young_hi;

/* Moves the young blocks into the tree. */
static void young_flush(void)
{
	for (uint32_t k = 0; k < nyoung; k++)
		seg_add(young[k].base, young[k].size);
	nyoung = 0;
	young_lo = young_hi = 0;
	young_reindex();
}

static void young_add(const void *p, size_t n)
{
	if (nyoung == YOUNG)
		young_flush();
	if ((uintptr_t)p < young_lo || !young_hi)
		young_lo = (uintptr_t)p;
	if ((uintptr_t)p + n > young_hi)
		young_hi = (uintptr_t)p + n;
	young[nyoung].base = (uintptr_t)p;
	young[nyoung].size = n;
	young_index(nyoung++);
	if (yused > YSLOTS / 4 * 3)
		young_reindex();
}

/* Takes the block at p out of the table, setting *n to its size;
 * returns 0 if it is not there. */
static int young_take(const void *p, size_t *n)
{
	uint32_t i = young_lookup((uintptr_t)p), k, last;

	if (i == UINT32_MAX)
		return 0;
	k = yslot[i] - 1;
	*n = young[k].size;
	yslot[i] = YTOMB;
	last = --nyoung;
	if (k != last) {
		yslot[young_slot_of(last)] = (uint16_t)(k + 1);
		young[k] = young[last];
	}
	return 1;
}

static void track_add(const void *p, size_t n)
{
	int held = alloc_lock();

	young_add(p, n);
	alloc_unlock(held);
}

static void track_remove(const void *p)
{
	int held = alloc_lock();
	size_t n;

	if (!young_take(p, &n))
		node_put(seg_remove((uintptr_t)p));
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
	    !(last_found &&
	      (uintptr_t)p - last_found->base < last_found->size))
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
}

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

/* The old block leaves the tree (or the young table) before the real
 * realloc may free it, so that another thread given the same address
 * meanwhile does not find it; it comes back if it stays where it was. */
static void *tracked_realloc(void *p, size_t n)
{
	struct seg *s = NULL;
	size_t had;
	void *q;
	int held = alloc_lock(), was_young = young_take(p, &had);

	if (!was_young)
		s = seg_remove((uintptr_t)p);
	alloc_unlock(held);
	q = real.realloc(p, n);
	held = alloc_lock();
	if (s && (q == p || (!q && n))) {
		/* grown or shrunk in place, or failed: the same segment */
		if (q)
			s->size = n ? n : 1;
		node_put(seg_insert(s));
		span_add(s);
	} else {
		/* moved, or freed by realloc(p, 0) */
		node_put(s);
		if (q)
			young_add(q, n);
		else if (n && was_young)
			young_add(p, had);
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
