/*
 * alloc_stress.c - every allocation function from several threads at once,
 * while the main thread forks, to run with the tracer preloaded
 * (tests/preload.sh): the tracer's malloc and friends track each block, so
 * they must stay correct and not deadlock, in threads and across fork().
 * Each block is filled with a pattern that is checked before it is freed.
 * Not an MPI program.
 *
 *   alloc_stress [ROUNDS [FORKS]]
 *
 * FORKS (default 200) is the most fork() calls; 0 for none (a sanitizer
 * runtime's own allocator can deadlock in the child of a threaded
 * program).
 *
 * Exits 0 and prints "alloc_stress: ok" when every check held.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define HELD	128

static long rounds = 200000;
static int bad;

struct block {
	unsigned char *p;
	size_t n;
	unsigned char tag;
};

static void fill(struct block *b, unsigned char tag)
{
	b->tag = tag;
	memset(b->p, tag, b->n);
}

static void check_free(struct block *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->p[i] != b->tag) {
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			break;
		}
	free(b->p);
	b->p = NULL;
	b->n = 0;
}

/* One random allocation of n bytes by any of the functions. */
static void *any_alloc(unsigned how, size_t n)
{
	void *p = NULL;

	switch (how % 7) {
	case 0: return malloc(n);
	case 1: return calloc(1, n);
	case 2: return posix_memalign(&p, 64, n) ? NULL : p;
	case 3: return aligned_alloc(32, (n + 31) & ~(size_t)31);
	case 4: return memalign(128, n);
	case 5: return valloc(n);
	default: return malloc(n + 4096);
	}
}

static void *worker(void *arg)
{
	struct block held[HELD] = {{0}};
	unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;

	for (long r = 0; r < rounds; r++) {
		struct block *b;
		unsigned v;

		x = x * 1103515245 + 12345;
		v = x >> 8;
		b = &held[v % HELD];
		if (b->p && v % 5 == 0) {
			/* grow or shrink, keeping what fits */
			size_t n = v % 3000 + 1, keep = n < b->n ? n : b->n;
			unsigned char *q = realloc(b->p, n);

			if (!q)
				continue;
			for (size_t i = 0; i < keep; i++)
				if (q[i] != b->tag)
					__atomic_store_n(&bad, 1,
							 __ATOMIC_RELAXED);
			b->p = q;
			b->n = n;
			fill(b, (unsigned char)v);
			continue;
		}
		if (b->p)
			check_free(b);
		b->n = v % 2000;
		b->p = any_alloc(v >> 3, b->n);
		if (!b->p) {
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		fill(b, (unsigned char)(v >> 16));
	}
	for (int i = 0; i < HELD; i++)
		if (held[i].p)
			check_free(&held[i]);
	return NULL;
}

/* A child allocates and frees a little, then exits: the tracker's lock and
 * tree must be usable there, whatever the threads were doing at fork(). */
static int forked(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct block b[16];

		for (int i = 0; i < 16; i++) {
			b[i].n = (size_t)i * 100 + 1;
			b[i].p = malloc(b[i].n);
			if (!b[i].p)
				_exit(2);
			fill(&b[i], (unsigned char)i);
		}
		for (int i = 0; i < 16; i++)
			check_free(&b[i]);
		_exit(bad ? 3 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	int forks = 0, failed = 0, running = THREADS, joined[THREADS] = {0};
	long max_forks = argc > 2 ? atol(argv[2]) : 200;

	if (argc > 1)
		rounds = atol(argv[1]);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker,
				   (void *)(uintptr_t)i)) {
			fprintf(stderr,
				"alloc_stress: cannot start a thread\n");
			return 1;
		}
	/* fork while the workers allocate, as long as they run */
	for (; forks < max_forks && running; forks++) {
		if (forked() != 0)
			failed++;
		running = 0;
		for (int i = 0; i < THREADS; i++) {
			if (!joined[i])
				joined[i] = !pthread_tryjoin_np(th[i], NULL);
			running |= !joined[i];
		}
	}
	for (int i = 0; i < THREADS; i++)
		if (!joined[i])
			pthread_join(th[i], NULL);
	if (bad || failed) {
		fprintf(stderr, "alloc_stress: %s%s\n",
			bad ? "a block lost its contents " : "",
			failed ? "a forked child failed" : "");
		return 1;
	}
	printf("alloc_stress: ok (%d forks)\n", forks);
	return 0;
}
