/*
 * fidelity.c - programs that compute between their MPI calls, for the
 * replay's time fidelity (tests/bench/bench_fidelity.sh): the original's
 * time against rondo-replay's.
 *
 *   mpirun -np P fidelity stencil|uneven|collective ITERS WORK_US
 *
 * stencil: a 1-D halo exchange (Irecv, Isend, Waitall of 2^14 doubles
 *   each way) around a compute kernel of WORK_US microseconds, an
 *   Allreduce every 10 iterations;
 * uneven: rank r computes (1 + r) * WORK_US, then an Allreduce: the last
 *   rank is the slowest, the others wait for it;
 * collective: WORK_US of compute, then an Allreduce and a Bcast.
 * The compute is arithmetic on an array, timed by the clock (no sleep), as
 * a real kernel would keep a core busy.  Prints nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HALO (1 << 14)

static double sink;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Arithmetic for `us` microseconds. */
static void compute(double *a, int n, double us)
{
	double t0 = now_us();
	while (now_us() - t0 < us)
		for (int i = 1; i < n; i++)
			a[i] = a[i] * 0.999 + a[i - 1] * 0.001;
	sink += a[n - 1];
}

int main(int argc, char **argv)
{
	int rank, size, iters, left, right;
	double work, *a, *halo, *in, sum = 0, one = 1;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	if (argc != 4) {
		fprintf(stderr,
			"usage: fidelity stencil|uneven|collective ITERS "
			"WORK_US\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	iters = atoi(argv[2]);
	work = atof(argv[3]);
	a = calloc(4096, sizeof *a);
	halo = calloc(2 * HALO, sizeof *halo);
	in = calloc(2 * HALO, sizeof *in);
	if (!a || !halo || !in)
		MPI_Abort(MPI_COMM_WORLD, 1);
	a[0] = 1;
	left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	for (int it = 0; it < iters; it++) {
		if (!strcmp(argv[1], "stencil")) {
			MPI_Irecv(in, HALO, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
				  &req[0]);
			MPI_Irecv(in + HALO, HALO, MPI_DOUBLE, right, 1,
				  MPI_COMM_WORLD, &req[1]);
			MPI_Isend(halo, HALO, MPI_DOUBLE, right, 0,
				  MPI_COMM_WORLD, &req[2]);
			MPI_Isend(halo + HALO, HALO, MPI_DOUBLE, left, 1,
				  MPI_COMM_WORLD, &req[3]);
			compute(a, 4096, work);
			MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
			if (it % 10 == 9)
				MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE,
					      MPI_SUM, MPI_COMM_WORLD);
		} else if (!strcmp(argv[1], "uneven")) {
			compute(a, 4096, work * (1 + rank));
			MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
		} else {
			compute(a, 4096, work);
			MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
			MPI_Bcast(a, 64, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		}
	}
	free(a);
	free(halo);
	free(in);
	MPI_Finalize();
	return sink < 0;
}
