/*
 * stencil.c - the bundled example: a 2-D Jacobi sweep on a process grid
 * with a 5-point halo exchange (non-blocking, non-periodic) and a residual
 * reduction every iteration.  `./quickstart.sh demo` traces it.
 *
 *   mpirun -np 4 stencil [ITERATIONS] [N]     (local grid N x N, default 64)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define AT(i, j) ((i) * (n + 2) + (j))

struct grid {
	MPI_Comm cart;
	int n;
	int nb[4];	  /* up, down, left, right (MPI_PROC_NULL at edges) */
	MPI_Datatype col; /* one column of the local block */
	double *u, *v;
};

static void exchange(struct grid *g)
{
	int n = g->n;
	MPI_Request req[8];
	double *u = g->u;

	MPI_Irecv(&u[AT(0, 1)], n, MPI_DOUBLE, g->nb[0], 0, g->cart, &req[0]);
	MPI_Irecv(&u[AT(n + 1, 1)], n, MPI_DOUBLE, g->nb[1], 1, g->cart,
		  &req[1]);
	MPI_Irecv(&u[AT(1, 0)], 1, g->col, g->nb[2], 2, g->cart, &req[2]);
	MPI_Irecv(&u[AT(1, n + 1)], 1, g->col, g->nb[3], 3, g->cart, &req[3]);
	MPI_Isend(&u[AT(1, 1)], n, MPI_DOUBLE, g->nb[0], 1, g->cart, &req[4]);
	MPI_Isend(&u[AT(n, 1)], n, MPI_DOUBLE, g->nb[1], 0, g->cart, &req[5]);
	MPI_Isend(&u[AT(1, 1)], 1, g->col, g->nb[2], 3, g->cart, &req[6]);
	MPI_Isend(&u[AT(1, n)], 1, g->col, g->nb[3], 2, g->cart, &req[7]);
	MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
}

static double sweep(struct grid *g)
{
	int n = g->n;
	double local = 0, global = 0, *t;

	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= n; j++) {
			g->v[AT(i, j)] =
				0.25 *
				(g->u[AT(i - 1, j)] + g->u[AT(i + 1, j)] +
				 g->u[AT(i, j - 1)] + g->u[AT(i, j + 1)]);
			local += fabs(g->v[AT(i, j)] - g->u[AT(i, j)]);
		}
	t = g->u;
	g->u = g->v;
	g->v = t;
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, g->cart);
	return global;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100;
	int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0};
	struct grid g = {.n = argc > 2 ? atoi(argv[2]) : 64};
	double res = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &g.cart);
	MPI_Comm_rank(g.cart, &rank);
	MPI_Cart_shift(g.cart, 0, 1, &g.nb[0], &g.nb[1]);
	MPI_Cart_shift(g.cart, 1, 1, &g.nb[2], &g.nb[3]);
	MPI_Type_vector(g.n, 1, g.n + 2, MPI_DOUBLE, &g.col);
	MPI_Type_commit(&g.col);
	g.u = calloc((size_t)(g.n + 2) * (g.n + 2), sizeof(double));
	g.v = calloc((size_t)(g.n + 2) * (g.n + 2), sizeof(double));
	if (!g.u || !g.v)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < (g.n + 2) * (g.n + 2); i++)
		g.u[i] = g.v[i] = rank + 1;
	for (int it = 0; it < iters; it++) {
		exchange(&g);
		res = sweep(&g);
	}
	if (rank == 0)
		printf("stencil: %d ranks (%d x %d), %d iterations, residual "
		       "%g\n",
		       size, dims[0], dims[1], iters, res);
	MPI_Type_free(&g.col);
	MPI_Comm_free(&g.cart);
	free(g.u);
	free(g.v);
	MPI_Finalize();
	return 0;
}
