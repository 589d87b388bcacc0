/*
 * sleepy.c - per-call times against the program's own clock.
 *
 * Every rank makes N calls (default 10 000) of four signatures in a
 * repeating but uneven pattern, sleeping known amounts between them, and
 * reads CLOCK_MONOTONIC (the clock the tracer aligns ranks with) just
 * before each call.  Rank 0 writes "index seconds" per call to
 * $RONDO_EXPECT.starts, the call's index in the trace (MPI_Init is 0,
 * the calls before the loop come first).  tests/timing.sh compares
 * `rondo dump --times` with it: every start within the stated bound, and
 * no drift from the first call to the last.
 *
 * With a second argument "noisy", durations and gaps vary widely from
 * call to call (MPI_Barrier after a sleep of a pseudo-random length), so
 * that the timing streams grow: the RONDO_TIMING_LIMIT test.  With
 * "halt", the usual calls, and MPI_Pcontrol(3) (per-call times end
 * there) before the (N/2)-th: call 3 + N/2.
 *
 *   mpirun -np 2 sleepy [N] [noisy|halt]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps about us microseconds. */
static void nap(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	int noisy = argc > 2 && !strcmp(argv[2], "noisy");
	int halt = argc > 2 && !strcmp(argv[2], "halt");
	int rank, size, flag = 0;
	double *t;
	unsigned seed = 12345;
	FILE *f = NULL;
	char path[4096];

	MPI_Init(&argc, &argv);		      /* call 0 */
	MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* call 1 */
	MPI_Comm_size(MPI_COMM_WORLD, &size); /* call 2 */
	t = malloc(sizeof(*t) * (size_t)(n > 0 ? n : 1));
	if (!t)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (long k = 0; k < n; k++) {
		if (noisy) {
			seed = seed * 1103515245u + 12345u;
			nap((long)(seed >> 16) % 200);
			t[k] = now();
			MPI_Barrier(MPI_COMM_WORLD);
			continue;
		}
		if (halt && k == n / 2)
			MPI_Pcontrol(3);
		/* gaps of 20, 60 and 150 us; four signatures, one of
		 * them every seventh call only */
		nap(k % 3 == 0 ? 20 : k % 3 == 1 ? 60 : 150);
		t[k] = now();
		if (k % 7 == 6)
			MPI_Comm_size(MPI_COMM_WORLD, &size);
		else if (k % 2)
			MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		else
			MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag,
				   MPI_STATUS_IGNORE);
	}
	if (rank == 0) {
		snprintf(path, sizeof(path), "%s.starts",
			 getenv("RONDO_EXPECT") ? getenv("RONDO_EXPECT")
						: "sleepy");
		f = fopen(path, "w");
		for (long k = 0; f && k < n; k++)
			fprintf(f, "%ld %.9f\n", k + 3 + (halt && k >= n / 2),
				t[k]);
		if (f)
			fclose(f);
	}
	free(t);
	MPI_Finalize();
	return 0;
}
