/*
 * stencil3d.c - a 3-D 7-point stencil on a periodic process grid: every
 * iteration a non-blocking halo exchange with the six neighbours (faces of
 * N x N doubles, default 8: 64-double halos) and a Jacobi sweep.  The
 * merge benchmark (tests/bench/bench_merge.sh) traces it.
 *
 *   mpirun -np 27 stencil3d [ITERATIONS] [N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int n = argc > 2 ? atoi(argv[2]) : 8;
	int nd = argc > 3 && atoi(argv[3]) == 2 ? 2 : 3, nf = 2 * nd;
	int size, rank, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, nb[6];
	MPI_Comm cart;
	MPI_Request req[12];
	double *u, *out[6], *in[6], sum = 0;
	size_t face = (size_t)n * (size_t)n, cells = face * (size_t)n;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, nd, dims);
	MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart);
	MPI_Comm_rank(cart, &rank);
	for (int d = 0; d < nd; d++)
		MPI_Cart_shift(cart, d, 1, &nb[2 * d], &nb[2 * d + 1]);
	u = calloc(cells, sizeof(double));
	for (int f = 0; f < 6; f++) {
		out[f] = calloc(face, sizeof(double));
		in[f] = calloc(face, sizeof(double));
		if (!out[f] || !in[f] || !u)
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (size_t i = 0; i < cells; i++)
		u[i] = rank + 1;
	for (int it = 0; it < iters; it++) {
		/* faces: the first and last plane of each dimension */
		for (int f = 0; f < 6; f++)
			for (size_t i = 0; i < face; i++)
				out[f][i] = u[(f & 1) ? cells - 1 - i : i];
		/* a message from the neighbour on side f arrives with tag f */
		for (int f = 0; f < nf; f++)
			MPI_Irecv(in[f], n * n, MPI_DOUBLE, nb[f], f, cart,
				  &req[f]);
		for (int f = 0; f < nf; f++)
			MPI_Isend(out[f], n * n, MPI_DOUBLE, nb[f], f ^ 1, cart,
				  &req[nf + f]);
		MPI_Waitall(2 * nf, req, MPI_STATUSES_IGNORE);
		for (size_t i = 0; i < cells; i++)
			u[i] = (nf * u[i] + in[i % nf][i % face]) / (nf + 1);
	}
	for (size_t i = 0; i < cells; i++)
		sum += u[i];
	if (rank == 0)
		printf("stencil3d: %d ranks (%d x %d x %d), %d iterations, "
		       "%g\n",
		       size, dims[0], dims[1], nd == 3 ? dims[2] : 1, iters,
		       sum);
	for (int f = 0; f < 6; f++) {
		free(out[f]);
		free(in[f]);
	}
	free(u);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
