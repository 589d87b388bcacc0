/*
 * bench_p2p.c - an MPI program whose time is almost all MPI calls, to
 * measure what the tracer adds to each one (tests/bench/bench_mpi.sh runs
 * it traced and untraced).
 *
 *   mpirun -np 2 bench_p2p p2p ITERATIONS
 *	a tight loop: MPI_Irecv, MPI_Isend (8 bytes) and MPI_Waitall between
 *	ranks 0 and 1 (other ranks only take part in the barriers); on one
 *	rank, to itself: no partner to wait for, so the steadiest measure
 *	of what the tracer adds to a call.
 *   mpirun -np P bench_p2p stencil ITERATIONS [N]
 *	a 2-D 5-point stencil on a periodic process grid, local grid N x N
 *	(default 8, small so that MPI dominates): a non-blocking halo
 *	exchange and an MPI_Allreduce every iteration.
 *   mpirun -np 2 bench_p2p random ITERATIONS [TAGS]
 *	the p2p loop with each iteration's tag drawn at random from TAGS
 *	(default 16), the same draws on both ranks: calls that never
 *	settle into a loop, where a spill file has most to write
 *	(tests/bench/bench_spill.sh).
 *
 * Rank 0 prints one line of key=value pairs:
 *
 *   bench_p2p mode=p2p ranks=2 iters=100000 calls=300000 wall=0.183112
 *	rss_kb=10240 rss0_final_kb=10496 first_us=31.5
 *
 * wall is the loop's time in seconds (MPI_Wtime after a barrier, the
 * maximum over ranks); calls the MPI calls one rank made in the loop (the
 * maximum over ranks); rss_kb the peak resident set before MPI_Finalize
 * (maximum over ranks); rss0_final_kb rank 0's peak after MPI_Finalize,
 * which includes what the tracer needs to write the trace there; first_us
 * the time of the loop's first iteration alone (maximum over ranks, part
 * of wall), where one-time costs of the first calls show.  The loop after
 * its first iteration is timed in 40 segments: seg_q1_us and seg_med_us
 * are the lower quartile and the median of their times per iteration
 * (the maximum over ranks), half1_us and half2_us the medians of
 * segments 1 to 19 and 20 to 39.
 *
 * With BENCH_HALT=1 every rank calls MPI_Pcontrol(3) between segments 19
 * and 20: a rondo trace with per-call timing ends its per-call times
 * there (statistics only after), so that half1_us and half2_us time the
 * two modes in one run, on the same placement of memory and processes
 * (tests/bench/bench_timing.sh); untraced, MPI_Pcontrol does nothing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define AT(i, j) ((i) * (n + 2) + (j))

/* The loop after its first iteration is timed in this many segments. */
#define SEGS 40

/* MPI_Pcontrol's level that ends a rondo trace's per-call times. */
#define TIMES_OFF 3

/* MPI calls made in the timed loop by this rank. */
static long calls;

/* tags: 0 for tag 0 always, else a tag drawn from 0..tags-1 each
 * iteration (xorshift, seeded alike on every rank). */
static void p2p(int rank, int size, long iters, int tags)
{
	static unsigned long long x = 88172645463325252ull;
	double sbuf = 1, rbuf = 0;
	int peer = size == 1 ? 0 : 1 - rank, tag = 0;
	MPI_Request req[2];

	if (rank > 1)
		return;
	for (long it = 0; it < iters; it++) {
		if (tags) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			tag = (int)(x % (unsigned)tags);
		}
		MPI_Irecv(&rbuf, 1, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD,
			  &req[0]);
		MPI_Isend(&sbuf, 1, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD,
			  &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	}
	calls += 3 * iters;
}

struct grid {
	MPI_Comm cart;
	int n;
	int nb[4]; /* up, down, left, right */
	MPI_Datatype col;
	double *u, *v;
};

static void exchange(struct grid *g)
{
	int n = g->n;
	double *u = g->u;
	MPI_Request req[8];

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
	calls += 9;
}

static void sweep(struct grid *g)
{
	int n = g->n;
	double local = 0, global = 0, *t;

	for (int i = 1; i <= n; i++)
		for (int j = 1; j <= n; j++) {
			double x = 0.25 *
				   (g->u[AT(i - 1, j)] + g->u[AT(i + 1, j)] +
				    g->u[AT(i, j - 1)] + g->u[AT(i, j + 1)]);

			local += x > g->u[AT(i, j)] ? x - g->u[AT(i, j)]
						    : g->u[AT(i, j)] - x;
			g->v[AT(i, j)] = x;
		}
	t = g->u;
	g->u = g->v;
	g->v = t;
	MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, g->cart);
	calls++;
}

/* The grid is set up before the clock starts; only the loop is timed. */
static int stencil_setup(struct grid *g, int n)
{
	int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1};
	size_t cells = (size_t)(n + 2) * (size_t)(n + 2);

	g->n = n;
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &g->cart);
	MPI_Comm_rank(g->cart, &rank);
	MPI_Cart_shift(g->cart, 0, 1, &g->nb[0], &g->nb[1]);
	MPI_Cart_shift(g->cart, 1, 1, &g->nb[2], &g->nb[3]);
	MPI_Type_vector(n, 1, n + 2, MPI_DOUBLE, &g->col);
	MPI_Type_commit(&g->col);
	g->u = malloc(cells * sizeof(double));
	g->v = malloc(cells * sizeof(double));
	if (!g->u || !g->v)
		return -1;
	for (size_t i = 0; i < cells; i++)
		g->u[i] = g->v[i] = rank + 1;
	return 0;
}

static void stencil_free(struct grid *g)
{
	MPI_Type_free(&g->col);
	MPI_Comm_free(&g->cart);
	free(g->u);
	free(g->v);
}

/* n iterations of the stencil (g) or of the p2p loop (g NULL). */
static void iterate(struct grid *g, int rank, int size, long n, int tags)
{
	if (!g) {
		p2p(rank, size, n, tags);
		return;
	}
	for (long k = 0; k < n; k++) {
		exchange(g);
		sweep(g);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of v[0..n-1] (n >= 1), sorting them. */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_p2p p2p ITERATIONS\n"
			"       bench_p2p stencil ITERATIONS [N]\n"
			"       bench_p2p random ITERATIONS [TAGS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	int rank, size, stencil, tags = 0;
	long iters;
	double mine[8], all[8], seg[SEGS], half[SEGS];
	int nseg = 0, halt = getenv("BENCH_HALT") && atoi(getenv("BENCH_HALT"));
	double t0, t1, tf = 0;
	struct grid g = {0};

	if (argc < 3 || (strcmp(argv[1], "p2p") && strcmp(argv[1], "stencil") &&
			 strcmp(argv[1], "random")))
		return usage();
	stencil = !strcmp(argv[1], "stencil");
	if (!strcmp(argv[1], "random"))
		tags = argc > 3 ? atoi(argv[3]) : 16;
	iters = atol(argv[2]);
	if (iters < 0 ||
	    (argc > 3 && strcmp(argv[1], "p2p") && atoi(argv[3]) < 1))
		return usage();
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (stencil && stencil_setup(&g, argc > 3 ? atoi(argv[3]) : 8)) {
		fprintf(stderr, "bench_p2p: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (iters > 0) { /* the first iteration alone */
		iterate(stencil ? &g : NULL, rank, size, 1, tags);
		tf = MPI_Wtime() - t0;
	}
	for (int s = 0; s < SEGS && iters > 1; s++) {
		long per = (iters - 1) / SEGS;
		long n = s < SEGS - 1 ? per : iters - 1 - per * (SEGS - 1);
		double ts = MPI_Wtime();

		if (n < 1)
			continue;
		if (halt && s == SEGS / 2) {
			MPI_Pcontrol(TIMES_OFF);
			ts = MPI_Wtime();
		}
		iterate(stencil ? &g : NULL, rank, size, n, tags);
		seg[nseg++] = (MPI_Wtime() - ts) / (double)n;
	}
	t1 = MPI_Wtime();
	/* the halves' medians, segment 0 left to the warm-up */
	memcpy(half, seg, sizeof(seg));
	mine[6] = nseg == SEGS ? median(half + 1, SEGS / 2 - 1) : 0;
	mine[7] = nseg == SEGS ? median(half + SEGS / 2, SEGS / 2) : 0;

	mine[0] = t1 - t0;
	mine[1] = (double)calls;
	mine[2] = (double)peak_rss_kb();
	mine[3] = tf;
	qsort(seg, (size_t)nseg, sizeof(*seg), cmp_double);
	mine[4] = nseg ? seg[nseg / 4] : 0;	  /* lower quartile */
	mine[5] = nseg ? seg[(nseg - 1) / 2] : 0; /* median */
	MPI_Reduce(mine, all, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (stencil)
		stencil_free(&g);
	MPI_Finalize();
	if (rank == 0) {
		printf("bench_p2p mode=%s ranks=%d iters=%ld calls=%.0f "
		       "wall=%.6f rss_kb=%.0f rss0_final_kb=%ld "
		       "first_us=%.1f seg_q1_us=%.4f seg_med_us=%.4f "
		       "half1_us=%.4f half2_us=%.4f\n",
		       argv[1], size, iters, all[1], all[0], all[2],
		       peak_rss_kb(), all[3] * 1e6, all[4] * 1e6, all[5] * 1e6,
		       all[6] * 1e6, all[7] * 1e6);
		fflush(stdout);
	}
	return 0;
}
