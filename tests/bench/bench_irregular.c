/*
 * bench_irregular.c - an MPI program that is not regular, the shapes
 * issue 26's precision is for: a time-step loop whose inner loops run a
 * data-dependent number of times, and whose messages change size as it
 * goes (tests/bench/bench_precision.sh traces it and prints the trace's
 * bytes against time steps and ranks).
 *
 *   mpirun -np P bench_irregular MODE STEPS
 *
 * Every time step exchanges halos with the two neighbours of a ring
 * (MPI_Irecv, MPI_Isend, MPI_Waitall) and reduces a residual
 * (MPI_Allreduce) inside a convergence loop, then ends with an
 * MPI_Allreduce of the step's total.  MODE says what varies:
 *
 *   regular   nothing: 4 iterations of 64 doubles every step
 *   converge  the convergence loop runs until the residual, which every
 *             rank shrinks by 0.9 an iteration from a start of its own,
 *             is below the tolerance on all of them (MPI_MAX): 38 to 43
 *             iterations, changing from step to step (a Krylov solver's
 *             or POP's barotropic solver's shape); and inside each
 *             iteration each rank polls (MPI_Iprobe) 10 or 11 times, a
 *             number of its own each iteration, as a local smoother
 *             would between exchanges
 *   amr       the halo's size drifts as a refined region would: 64 to 127
 *             doubles, changing every few steps and differently by rank
 *             (each message received at the size its sender sends)
 *   both      converge and amr at once
 *   tags      regular, but each step's halos are tagged with the step's
 *             number (2 s and 2 s + 1, s modulo 16 000: below the 32 767
 *             MPI guarantees), as codes that tell steps apart by tag do
 *   peers     regular, but the halo partners change every 4 steps, as
 *             load balancing moves them: rank r exchanges with r + k and
 *             r - k (modulo the ranks), k from 1 to (ranks - 1) / 2, the
 *             same on every rank (1 below 5 ranks)
 *
 * The choices come from a hash of (step, rank), the same on every run,
 * so the program is deterministic.  Rank 0 prints one line:
 *
 *   bench_irregular mode=converge ranks=4 steps=1000 calls=41234 wall=0.52
 *
 * calls: the MPI calls one rank made in the loop (the maximum over ranks).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { REGULAR, CONVERGE, AMR, BOTH, TAGS, PEERS };

/* A number from (a, b, c), the same everywhere (splitmix64's mixer). */
static unsigned long long mix(unsigned long long a, unsigned long long b,
			      unsigned long long c)
{
	unsigned long long z =
		a * 0x9e3779b97f4a7c15ull + b * 0xbf58476d1ce4e5b9ull + c;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The halo's doubles rank r sends at step s: 64, or drifting. */
static int halo(enum mode m, long s, int r)
{
	if (m != AMR && m != BOTH)
		return 64;
	/* a region refined every 8 steps, its size by rank */
	return 64 +
	       (int)(mix((unsigned long long)(s / 8), (unsigned)r, 1) % 64);
}

int main(int argc, char **argv)
{
	int rank, size, left, right, nl, nr, nmax = 128;
	enum mode m;
	long steps, calls = 0, all = 0;
	double *sl, *sr, *rl, *rr, t0, wall, total = 0;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: bench_irregular "
					"regular|converge|amr|both|tags|peers "
					"STEPS\n");
		MPI_Finalize();
		return 2;
	}
	m = !strcmp(argv[1], "converge") ? CONVERGE
	    : !strcmp(argv[1], "amr")	 ? AMR
	    : !strcmp(argv[1], "both")	 ? BOTH
	    : !strcmp(argv[1], "tags")	 ? TAGS
	    : !strcmp(argv[1], "peers")	 ? PEERS
					 : REGULAR;
	steps = atol(argv[2]);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	sl = calloc((size_t)nmax, sizeof(double));
	sr = calloc((size_t)nmax, sizeof(double));
	rl = calloc((size_t)nmax, sizeof(double));
	rr = calloc((size_t)nmax, sizeof(double));
	if (!sl || !sr || !rl || !rr)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (long s = 0; s < steps; s++) {
		int n = halo(m, s, rank);
		/* this rank's residual and how fast it shrinks: converge
		 * needs 38 to 43 iterations on a rank */
		int need = 38 +
			   (int)(mix((unsigned long long)s, (unsigned)rank, 2) %
				 6);
		double rate = m == CONVERGE || m == BOTH ? 0.9 : 0.5,
		       res = 1e-2 * 0.999 * pow(1 / 0.9, need), global = res;
		long it = 0;
		int tag = m == TAGS ? 2 * (int)(s % 16000) : 0;

		if (m == PEERS && size >= 5) {
			int k = 1 +
				(int)(mix((unsigned long long)(s / 4), 0, 3) %
				      (unsigned)((size - 1) / 2));

			left = (rank + size - k) % size;
			right = (rank + k) % size;
		}

		nl = halo(m, s, left); /* what the neighbours send */
		nr = halo(m, s, right);
		while (m == REGULAR || m == AMR || m == TAGS || m == PEERS
			       ? it < 4
			       : global > 1e-2) {
			int polls = m == CONVERGE || m == BOTH
					    ? 10 + (int)(mix((unsigned long long)
								     s,
							     (unsigned)rank,
							     (unsigned long long)
									     it +
								     4) %
							 2)
					    : 0,
			    flag;

			MPI_Irecv(rl, nl, MPI_DOUBLE, left, tag, MPI_COMM_WORLD,
				  &req[0]);
			MPI_Irecv(rr, nr, MPI_DOUBLE, right, tag + 1,
				  MPI_COMM_WORLD, &req[1]);
			MPI_Isend(sr, n, MPI_DOUBLE, right, tag, MPI_COMM_WORLD,
				  &req[2]);
			MPI_Isend(sl, n, MPI_DOUBLE, left, tag + 1,
				  MPI_COMM_WORLD, &req[3]);
			calls += 4;
			for (int k = 0; k < polls; k++, calls++)
				MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
					   &flag, MPI_STATUS_IGNORE);
			MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
			res *= rate;
			MPI_Allreduce(&res, &global, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
			calls += 2;
			it++;
		}
		sl[0] += rl[0] + global;
		MPI_Allreduce(&sl[0], &total, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		calls++;
	}
	wall = MPI_Wtime() - t0;
	MPI_Reduce(&calls, &all, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &wall, 1, MPI_DOUBLE, MPI_MAX,
		      MPI_COMM_WORLD);
	if (rank == 0)
		printf("bench_irregular mode=%s ranks=%d steps=%ld calls=%ld "
		       "wall=%.6f\n",
		       argv[1], size, steps, all, wall);
	free(sl);
	free(sr);
	free(rl);
	free(rr);
	MPI_Finalize();
	return 0;
}
