/*
 * peers.c - millions of calls with random peers, for the memory limit.
 *
 * Each of N iterations (default 2 000 000) probes for a message from a
 * random rank with a random tag (MPI_Iprobe: local, so millions take
 * seconds), and every 64th iteration the ranks exchange with a random
 * partner, all ranks drawing the same partner shift from a shared seed
 * (MPI_Sendrecv, tag 99, which no probe names: every run of the program
 * makes the same calls).  No iteration repeats the one before, so the call
 * grammar grows with the calls (about 17 bytes each).  "regular" makes
 * every probe name the next rank and tag 0: a loop the grammar keeps in
 * constant size.
 *
 * Every rank prints its own counts and its peak resident set before
 * MPI_Finalize (VmHWM, kB), one line each:
 *   rank R iprobe N sendrecv M hwm K
 *
 *   mpirun -np P peers [N] [regular]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* xorshift64*: glibc's rand_r repeats these draws every 2^19 iterations,
 * which the grammar would find and fold. */
static unsigned draw(unsigned long long *x, unsigned n)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return (unsigned)((*x * 0x2545f4914f6cdd1dull) >> 33) % n;
}

static long hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	int regular = argc > 2 && !strcmp(argv[2], "regular");
	int rank, size, flag, in = 0, out;
	unsigned long long mine, shared = 12345;
	long probes = 0, exchanges = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mine = 0x9e3779b97f4a7c15ull * (unsigned long long)(rank + 1);
	out = rank;
	for (long i = 0; i < n; i++) {
		int src = regular ? (rank + 1) % size
				  : (int)draw(&mine, (unsigned)size);
		int tag = regular ? 0 : (int)draw(&mine, 16);

		MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		probes++;
		if (i % 64 == 63) {
			int shift = size < 2 ? 0
				    : regular
					    ? 1
					    : 1 + (int)draw(&shared,
							    (unsigned)size - 1);

			MPI_Sendrecv(&out, 1, MPI_INT, (rank + shift) % size,
				     99, &in, 1, MPI_INT,
				     (rank + size - shift) % size, 99,
				     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			exchanges++;
		}
	}
	printf("rank %d iprobe %ld sendrecv %ld hwm %ld\n", rank, probes,
	       exchanges, hwm_kb());
	fflush(stdout);
	MPI_Finalize();
	return 0;
}
