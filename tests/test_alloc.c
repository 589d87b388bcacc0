/*
 * test_alloc.c - the tracer's index of heap blocks (tracer/alloc.c),
 * driven with made-up blocks in an address range nothing else uses and
 * compared after every step with a plain model: which live block holds an
 * address, at what offset, under which segment id (lowest free first,
 * taken when an address in the block is first looked up, given back when
 * the block is freed).
 *
 * The phases make the cases the program's allocator makes: blocks that
 * die young, blocks that reach the tree and are freed there (marked dead,
 * then dropped by rebuilds), memory of dead blocks reused by blocks of
 * other sizes and bases, and a block allocated at a base whose free was
 * never seen.  After each phase the tree is checked whole: order by base,
 * heap order of priorities, and its counts of live and dead blocks.
 *
 * What the recorders' kept records rely on is checked with every step: a
 * named block's free moves rec_epoch on (an unnamed one's need not), and
 * no address in a live block is outside the span of tracked blocks.
 */
#define ALLOC_UNIT_TEST 1
#pragma GCC diagnostic ignored "-Wunused-function"
#include "../tracer/alloc.c"

#include "check.h"

uint64_t rec_epoch = 1; /* record.c's, which the test does not link */

#define GRAIN	16
#define NGRAINS (1 << 16)
#define REGION	((uintptr_t)0x6f0000000000ull)
#define MAXBLK	200000

static struct blk {
	uintptr_t base;
	size_t size;
	int live;
	int64_t id; /* -1: none yet */
} blk[MAXBLK];
static int nblk, nlive_model;
static int owner[NGRAINS]; /* block index + 1 of each grain, 0 free */
static unsigned char id_busy[MAXBLK];
static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int64_t model_id_take(void)
{
	int64_t i = 0;

	while (id_busy[i])
		i++;
	id_busy[i] = 1;
	return i;
}

/* A block of n grains at grain g, its last grain used in part or whole;
 * -1 when the grains are not all free. */
static int add(uint32_t g, uint32_t n)
{
	struct blk *b;

	if (g + n > NGRAINS || nblk == MAXBLK)
		return -1;
	for (uint32_t k = g; k < g + n; k++)
		if (owner[k])
			return -1;
	b = &blk[nblk];
	*b = (struct blk){REGION + (uintptr_t)g * GRAIN,
			  (size_t)n * GRAIN - rnd() % GRAIN, 1, -1};
	for (uint32_t k = g; k < g + n; k++)
		owner[k] = nblk + 1;
	track_add((const void *)b->base, b->size);
	nlive_model++;
	return nblk++;
}

static void drop(int i)
{
	struct blk *b = &blk[i];
	uint64_t epoch = rec_epoch;

	for (uintptr_t k = (b->base - REGION) / GRAIN;
	     k < (b->base - REGION + b->size + GRAIN - 1) / GRAIN; k++)
		owner[k] = 0;
	if (b->id >= 0)
		id_busy[b->id] = 0;
	b->live = 0;
	nlive_model--;
	track_remove((const void *)b->base);
	CHECKF((rec_epoch != epoch) == (b->id >= 0),
	       "freeing a block %s moved the epoch %lu times",
	       b->id >= 0 ? "named before" : "never named",
	       (unsigned long)(rec_epoch - epoch));
}

/* Looks address p up in the tracker and in the model. */
static void lookup(uintptr_t p)
{
	uint32_t id = 0;
	uint64_t off = 0;
	int found = alloc_segment((const void *)p, &id, &off), o;
	struct blk *b;

	o = p >= REGION && p < REGION + (uintptr_t)NGRAINS * GRAIN
		    ? owner[(p - REGION) / GRAIN]
		    : 0;
	b = o ? &blk[o - 1] : NULL;
	if (b && p - b->base >= b->size)
		b = NULL; /* in the unused tail of the block's last grain */
	CHECKF(found == (b != NULL), "address %#lx: found %d, in a block %d",
	       (unsigned long)p, found, b != NULL);
	CHECKF(!b || !alloc_outside((const void *)p),
	       "address %#lx in a block is outside the span", (unsigned long)p);
	if (!found || !b)
		return;
	if (b->id < 0)
		b->id = model_id_take();
	CHECKF(id == b->id && off == p - b->base,
	       "address %#lx: segment %u+%lu, want %ld+%lu", (unsigned long)p,
	       id, (unsigned long)off, (long)b->id,
	       (unsigned long)(p - b->base));
}

static void lookup_some(int n)
{
	for (int k = 0; k < n; k++)
		lookup(REGION + rnd() % ((uintptr_t)NGRAINS * GRAIN));
}

/* A random live block, or -1. */
static int some_live(void)
{
	if (!nlive_model)
		return -1;
	for (;;) {
		int i = (int)(rnd() % (uint64_t)nblk);

		if (blk[i].live)
			return i;
	}
}

/* Walks the tree: order, heap order, counts. */
static void tree_walk(const struct seg *t, uintptr_t lo, uintptr_t hi,
		      uint32_t *live, uint32_t *dead, int depth)
{
	if (!t)
		return;
	CHECK(depth < 1000);
	CHECK(t->base >= lo && t->base <= hi);
	CHECK(t->state == SEG_LIVE || t->state == SEG_DEAD);
	for (int k = 0; k < 2; k++)
		if (t->kid[k])
			CHECK(t->kid[k]->prio <= t->prio);
	*(t->state == SEG_LIVE ? live : dead) += 1;
	tree_walk(t->kid[0], lo, t->base ? t->base - 1 : 0, live, dead,
		  depth + 1);
	tree_walk(t->kid[1], t->base + 1, hi, live, dead, depth + 1);
}

static void tree_check(const char *phase)
{
	uint32_t live = 0, dead = 0;

	tree_walk(root, 0, UINTPTR_MAX, &live, &dead, 0);
	CHECKF(live == nlive && dead == ndead,
	       "%s: the tree holds %u live and %u dead, counted %u and %u",
	       phase, live, dead, nlive, ndead);
	CHECKF(nindexed == (size_t)nlive_model,
	       "%s: %zu blocks indexed, %d live", phase, nindexed, nlive_model);
	CHECKF(live + nyoung == (uint32_t)nlive_model,
	       "%s: %u in the tree and %u young, %d live", phase, live, nyoung,
	       nlive_model);
}

int main(void)
{
	int first, i;

	mode = TRACK_CALLS;

	/* Young blocks only: freed before any lookup. */
	for (i = 0; i < 1000; i++)
		add((uint32_t)(rnd() % NGRAINS), 1 + (uint32_t)(rnd() % 8));
	while (nlive_model > 10)
		drop(some_live());
	tree_check("young");
	lookup_some(2000);
	tree_check("first lookups");

	/* What MPI_Init left live is filed at once (alloc_settle): nothing
	 * young is left for the first lookup of a heap buffer to file. */
	for (i = 0; i < 500; i++)
		add((uint32_t)(rnd() % NGRAINS), 1 + (uint32_t)(rnd() % 8));
	CHECK(nyoung > 0);
	alloc_settle();
	CHECKF(nyoung == 0, "%u blocks still young after alloc_settle", nyoung);
	tree_check("settled");
	lookup_some(2000);

	/* Many blocks in the tree, most freed there: dead, then rebuilt. */
	first = nblk;
	for (uint32_t g = 0; g + 4 <= NGRAINS / 2; g += 4)
		add(g, 1 + (uint32_t)(rnd() % 4));
	lookup(blk[first].base); /* all of them go into the tree */
	tree_check("many");
	for (i = first; i < nblk; i++)
		if (blk[i].live && rnd() % 10)
			drop(i);
	tree_check("most freed");
	lookup_some(5000);

	/* Their memory reused at other bases and sizes, some dead blocks
	 * still in the tree below them. */
	for (i = 0; i < 3000; i++)
		add((uint32_t)(rnd() % (NGRAINS / 2)),
		    1 + (uint32_t)(rnd() % 7));
	lookup_some(20000);
	tree_check("reused");

	/* A base allocated again whose free was never seen. */
	i = some_live();
	if (i >= 0) {
		struct blk *b = &blk[i];
		uintptr_t base = b->base;
		size_t n = (b->size + GRAIN - 1) / GRAIN;

		lookup(base);
		for (uintptr_t k = (base - REGION) / GRAIN;
		     k < (base - REGION) / GRAIN + n; k++)
			owner[k] = 0;
		if (b->id >= 0)
			id_busy[b->id] = 0;
		b->live = 0;
		nlive_model--;
		/* not told: the new block replaces it */
		CHECK(add((uint32_t)((base - REGION) / GRAIN), (uint32_t)n) >=
		      0);
		lookup(base);
		tree_check("unseen free");
	}

	/* Everything at random. */
	for (i = 0; i < 200000; i++) {
		uint64_t r = rnd() % 8;

		if (r < 3)
			add((uint32_t)(rnd() % NGRAINS),
			    1 + (uint32_t)(rnd() % (r ? 8 : 300)));
		else if (r < 6 && nlive_model)
			drop(some_live());
		else
			lookup_some(1);
	}
	tree_check("random");
	while (nlive_model)
		drop(some_live());
	lookup_some(1000);
	tree_check("all freed");
	CHECK(lowest == 0);
	CHECK(alloc_outside((const void *)(REGION - 1)));
	CHECK(alloc_outside(
		(const void *)(REGION + (uintptr_t)NGRAINS * GRAIN)));
	CHECK(!alloc_outside((const void *)REGION));
	return check_done("test_alloc");
}
