/*
 * bench_alloc.c - what the tracer's allocation tracking adds to malloc and
 * free (tests/bench/bench_mpi.sh runs it with and without the tracer
 * preloaded).  Not an MPI program: the tracker runs from the library's
 * constructor, MPI or not.
 *
 *   bench_alloc [PAIRS [LIVE]]
 *
 * Keeps LIVE blocks (default 1000) of 16 to 1024 bytes alive, so the
 * tracker's tree has that many, and replaces one of them PAIRS times
 * (default 10^7): a free and a malloc each time.  Prints one line:
 *
 *   bench_alloc pairs=10000000 live=1000 ns_per_pair=31.2
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 10000000;
	long live = argc > 2 ? atol(argv[2]) : 1000;
	unsigned x = 1;
	char **held;
	double t0, t;

	if (pairs < 1 || live < 1 ||
	    !(held = calloc((size_t)live, sizeof(*held)))) {
		fprintf(stderr, "usage: bench_alloc [PAIRS [LIVE]]\n");
		return 2;
	}
	for (long i = 0; i < live; i++)
		held[i] = malloc(16 + (size_t)i % 1009);
	t0 = now();
	for (long i = 0; i < pairs; i++) {
		long k;

		x = x * 1103515245 + 12345;
		k = (long)(x >> 8) % live;
		free(held[k]);
		held[k] = malloc(16 + (x >> 4) % 1009);
		if (!held[k])
			return 1;
		held[k][0] = (char)i; /* keep the block in use */
	}
	t = now() - t0;
	for (long i = 0; i < live; i++)
		free(held[i]);
	free(held);
	printf("bench_alloc pairs=%ld live=%ld ns_per_pair=%.1f\n", pairs, live,
	       t / (double)pairs * 1e9);
	return 0;
}
