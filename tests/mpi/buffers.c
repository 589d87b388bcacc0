/*
 * buffers.c - buffers recorded as (segment, offset), checked call by call
 * (expect.h) with the exact ids and offsets the tracer must give: offsets
 * inside an array allocated before MPI_Init, blocks from calloc, realloc
 * (moved and shrunk), posix_memalign and aligned_alloc, MPI_Get_address,
 * a stack and a static buffer, MPI_IN_PLACE and MPI_BOTTOM; a loop that
 * allocates, sends and frees two blocks keeps their ids (mpi.sh also
 * checks that its grammar does not grow); ids of freed blocks are reused
 * lowest first, also to a block at the address of one freed just before
 * and named by the call before; 50 000 blocks, most freed and their
 * memory reused.  A second thread allocates and frees all along while the
 * main thread communicates (MPI_THREAD_FUNNELED).
 *
 *   mpirun -np 2 buffers ITERATIONS [segments|addresses]
 *
 * segments (the default): the tracer sees the program's allocations.
 * addresses: it cannot (mpi.sh preloads another malloc before it): every
 * distinct address is then a segment of its own, offset 0, numbered in
 * the order of first use.  Both ranks do the same things with their peer,
 * so they record the same ids.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>

#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, peer, segments = 1;
static int churning = 1;

/* ---- what a buffer is recorded as ---------------------------------------- */

/* Addresses mode: the distinct addresses named so far, in order. */
#define MAX_SEEN 256
static const void *seen[MAX_SEEN];
static int nseen;

/* The text `rondo dump` shows for buffer p: in segments mode, segment id
 * at offset off (what the tracer must give); in addresses mode, p's own
 * segment.  Call it in the order the call names its buffers. */
static const char *B(const void *p, int id, long off)
{
	int i;

	if (segments)
		return rx_printf("m%d\\+%ld", id, off);
	for (i = 0; i < nseen && seen[i] != p; i++)
		;
	CHECK(i < MAX_SEEN);
	if (i == nseen)
		seen[nseen++] = p;
	return rx_printf("m%d\\+0", i);
}

/* Sends n ints from s to the peer while receiving n into r: s is
 * segment sid at offset soff, r segment rid at roff. */
static void xfer(const void *s, int sid, long soff, void *r, int rid, long roff,
		 int n)
{
	const char *sb = B(s, sid, soff), *rb = B(r, rid, roff);

	MPI_Sendrecv(s, n, MPI_INT, peer, 0, r, n, MPI_INT, peer, 0, WORLD,
		     MPI_STATUS_IGNORE);
	EXPECT("MPI_Sendrecv\\(sendbuf=%s, sendcount=%d, sendtype=MPI_INT, "
	       "dest=%s, sendtag=0, " OUT "recvbuf=%s, recvcount=%d, "
	       "recvtype=MPI_INT, source=%s, recvtag=0, "
	       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
	       sb, n, rx_rank(peer, WORLD), rb, n, rx_rank(peer, WORLD));
}

/* ---- a thread that allocates while MPI runs ------------------------------ */

static void *churn(void *arg)
{
	unsigned x = 12345;
	void *held[64] = {0};
	long n = 0;

	/* at least some work, however late this thread gets a core */
	while (n < 10000 || __atomic_load_n(&churning, __ATOMIC_RELAXED)) {
		unsigned i = (x = x * 1103515245 + 12345) >> 16;
		void **h = &held[i % 64];

		switch (i % 4) {
		case 0:
			free(*h);
			*h = malloc(i % 2048 + 1);
			break;
		case 1:
			free(*h);
			*h = calloc(i % 64 + 1, 16);
			break;
		case 2: *h = realloc(*h, i % 4096 + 1); break;
		default:
			free(*h);
			*h = NULL;
			break;
		}
		n++;
	}
	for (int i = 0; i < 64; i++)
		free(held[i]);
	*(long *)arg = n;
	return NULL;
}

/* ---- the program --------------------------------------------------------- */

static int st_static[16];

/* Blocks allocated at once, and how many of them stay when the others
 * are freed. */
enum { MANY = 50000, KEEP = 5000 };

int main(int argc, char **argv)
{
	/* allocated before MPI_Init: a segment all the same */
	int *a = malloc(256 * sizeof(int)), *c, *pm = NULL, *al, *z, **blk;
	int st[16] = {0}, provided, one = 1;
	long iters = argc > 1 ? atol(argv[1]) : 10, churned = 0;
	MPI_Aint where, addr;
	MPI_Datatype abs_type;
	pthread_t th;

	if (argc > 2)
		segments = strcmp(argv[2], "addresses") != 0;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(WORLD, &rank);
	MPI_Comm_size(WORLD, &size);
	expect_open();
	CHECK(a && size % 2 == 0 && provided >= MPI_THREAD_FUNNELED);
	peer = rank ^ 1;
	EXPECT("MPI_Init_thread\\(argc=[0-9]+, argv=NULL, required=%d, " OUT
	       "provided=%d\\)",
	       MPI_THREAD_FUNNELED, provided);
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD, " OUT "rank=%d\\)", rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT "size=%d\\)", size);
	CHECK(pthread_create(&th, NULL, churn, &churned) == 0);

	/* Offsets in bytes inside one array: segment 0. */
	xfer(a, 0, 0, a + 128, 0, 512, 4);
	xfer(a + 16, 0, 64, a + 200, 0, 800, 4);
	MPI_Get_address(&a[5], &addr);
	EXPECT("MPI_Get_address\\(location=%s, " OUT "address=%s\\)",
	       B(&a[5], 0, 20), B(&a[5], 0, 20));

	/* calloc, then realloc: moved far (1 MiB is mmap'ed) and shrunk
	 * (moved or not): the block keeps segment 1 (a block that moves
	 * gives its id back, and the new one takes the lowest free). */
	c = calloc(256, sizeof(int));
	CHECK(c && c[255] == 0);
	for (int i = 0; i < 8; i++)
		c[i] = rank + 1;
	xfer(c, 1, 0, c + 8, 1, 32, 8);
	c = realloc(c, 1 << 20);
	CHECK(c && c[8] == peer + 1);
	xfer(c + 200000, 1, 800000, c + 8, 1, 32, 8);
	c = realloc(c, 4096);
	CHECK(c);
	xfer(c + 1000, 1, 4000, c, 1, 0, 8);

	/* Aligned blocks: segments 2 and 3. */
	CHECK(posix_memalign((void **)&pm, 64, 4096) == 0);
	al = aligned_alloc(64, 4096);
	CHECK(al && (uintptr_t)pm % 64 == 0 && (uintptr_t)al % 64 == 0);
	xfer(pm + 4, 2, 16, al + 4, 3, 16, 4);

	/* Stack and static buffers: a segment per distinct address, offset
	 * 0, kept for the rest of the run. */
	xfer(st, 4, 0, st + 8, 5, 0, 8);
	xfer(st_static, 6, 0, st, 4, 0, 8);

	/* Named constants. */
	MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_INT, MPI_SUM, WORLD);
	EXPECT("MPI_Allreduce\\(sendbuf=MPI_IN_PLACE, " OUT "recvbuf=%s, "
	       "count=4, datatype=MPI_INT, op=MPI_SUM, comm=MPI_COMM_WORLD\\)",
	       B(a, 0, 0));
	MPI_Get_address(st, &where);
	EXPECT("MPI_Get_address\\(location=%s, " OUT "address=%s\\)",
	       B(st, 4, 0), B(st, 4, 0));
	MPI_Type_create_hindexed(1, &one, &where, MPI_INT, &abs_type);
	/* an absolute address as a displacement is a buffer too */
	EXPECT("MPI_Type_create_hindexed\\(count=1, "
	       "array_of_blocklengths=\\[1\\], "
	       "array_of_displacements=\\[%s\\], oldtype=MPI_INT, " OUT
	       "newtype=t[0-9]+:4B\\)",
	       B(st, 4, 0));
	MPI_Type_commit(&abs_type);
	EXPECT("MPI_Type_commit\\(" OUT "datatype=t[0-9]+:4B\\)");
	MPI_Sendrecv(MPI_BOTTOM, 1, abs_type, peer, 1, st + 8, 1, MPI_INT, peer,
		     1, WORLD, MPI_STATUS_IGNORE);
	/* MPI_BOTTOM is (void *)0 in Open MPI and MPICH: one value with
	 * NULL, and no constant of the trace names it yet. */
	expect_pending("buffers: MPI_BOTTOM is recorded as NULL",
		       rx_printf("MPI_Sendrecv\\(sendbuf=MPI_BOTTOM, .*"),
		       rx_printf("MPI_Sendrecv\\(sendbuf=NULL, sendcount=1, "
				 "sendtype=t[0-9]+:4B, dest=%s, sendtag=1, " OUT
				 "recvbuf=%s, recvcount=1, "
				 "recvtype=MPI_INT, source=%s, recvtag=1, "
				 "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED
				 "\\)",
				 rx_rank(peer, WORLD), B(st + 8, 5, 0),
				 rx_rank(peer, WORLD)));
	MPI_Type_free(&abs_type);
	EXPECT("MPI_Type_free\\(" OUT "datatype=t[0-9]+:4B\\)");

	/* Allocate, use, free: the same two segments every iteration, in
	 * whatever order they are freed (the lowest free id first). */
	for (long it = 0; it < iters; it++) {
		int *p = malloc(64 * sizeof(int)),
		    *q = malloc(32 * sizeof(int));

		CHECK(p && q);
		xfer(p, 7, 0, p + 32, 7, 128, 32);
		xfer(q + 8, 8, 32, st, 4, 0, 8);
		xfer(st_static, 6, 0, q, 8, 0, 8);
		if (it % 2) {
			free(p);
			free(q);
		} else {
			free(q);
			free(p);
		}
	}

	/* Two blocks named and freed, then a third, which the allocator
	 * places where the second was (the same call named it last): it
	 * takes the lowest free id, the first one's (a wrapper reuses what
	 * it recorded for the same values only while no named block was
	 * freed).  A sanitizer's allocator places it elsewhere. */
	{
		int *u = malloc(64 * sizeof(int)),
		    *v = malloc(64 * sizeof(int));
		int *w;

		CHECK(u && v);
		xfer(u, 7, 0, st, 4, 0, 4);
		xfer(v, 8, 0, st, 4, 0, 4);
		free(u);
		free(v);
		w = malloc(64 * sizeof(int));
		CHECK(w);
		xfer(w, 7, 0, st, 4, 0, 4);
		free(w);
	}

	/* Many blocks in the tracker's tree, most of them freed there, and as
	 * many allocated after: the ids and offsets stay exact in a real
	 * program (test_alloc checks the tracker's index case by case, with
	 * blocks it places itself). */
	blk = malloc(MANY * sizeof(*blk));
	CHECK(blk);
	for (int i = 0; i < MANY; i++)
		CHECK((blk[i] = malloc(4 * sizeof(int))) != NULL);
	xfer(blk[0] + 1, 7, 4, st, 4, 0, 1);
	for (int i = KEEP; i < MANY; i++)
		free(blk[i]);
	for (int i = KEEP; i < MANY; i++)
		CHECK((blk[i] = malloc(2 * sizeof(int))) != NULL);
	xfer(blk[MANY - 1] + 1, 8, 4, blk[KEEP], 9, 0, 1);
	xfer(blk[KEEP - 1] + 2, 10, 8, blk[0], 7, 0, 1);
	xfer(blk[MANY / 2] + 1, 11, 4, blk[1], 12, 0, 1);
	for (int i = 0; i < MANY; i++)
		free(blk[i]);
	free(blk);

	/* Freed blocks give their ids back: the next block takes 0. */
	free(a);
	free(c);
	free(pm);
	free(al);
	z = malloc(100);
	CHECK(z);
	xfer(z + 4, 0, 16, st, 4, 0, 4);
	free(z);

	__atomic_store_n(&churning, 0, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	CHECK(churned > 0);
	expect_finalize();
	return 0;
}
