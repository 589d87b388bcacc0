/*
 * late.c - ranks late on purpose, by a known sleep, for tests/timed.sh to
 * find with per-call times (4 ranks or more).
 *
 *  1. ITERS times: rank 2 sleeps before an MPI_Allreduce the others enter
 *     at once, so it is last every time, by about the sleep;
 *  2. ITERS times: rank 1 sleeps before the MPI_Send its MPI_Recv on
 *     rank 0 waits for (late sender);
 *  3. ITERS times: rank 3 MPI_Ssend to rank 2, which sleeps before its
 *     MPI_Recv (late receiver);
 *  4. ITERS times: rank 0 MPI_Irecv from MPI_ANY_SOURCE and MPI_Wait,
 *     whose status says rank 3, sleeping before its MPI_Send (late sender
 *     through a request and a wildcard);
 *  5. rank 0 sends 5 messages to rank 1 (tag 10), everybody sleeps GAP ms,
 *     then rank 0 sends 7 more (tag 11): a window of time holding one
 *     part or the other.  (The program cannot say when that is on the
 *     trace's clock: its origin is the end of rank 0's MPI_Init inside
 *     the tracer, and the tracer's own work there waits for the other
 *     ranks, tens of milliseconds on a loaded machine.)
 * Phases are fenced by MPI_Barrier, and no other message goes from rank 0
 * to rank 1.
 *
 *   mpirun -np 4 late [SLEEP_MS [ITERS]]
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define GAP_MS 60

/* Sleeping, not spinning: the machine may have fewer cores than ranks. */
static void nap(long ms)
{
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	long sleep_ms = argc > 1 ? atol(argv[1]) : 20;
	int iters = argc > 2 ? atoi(argv[2]) : 3;
	int rank, size;
	double x = 1, sum = 0;
	MPI_Request rq;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 4) {
		if (rank == 0)
			fprintf(stderr, "late: needs 4 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int i = 0; i < iters; i++) { /* 1 */
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 2)
			nap(sleep_ms);
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	for (int i = 0; i < iters; i++) { /* 2 */
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 1) {
			nap(sleep_ms);
			MPI_Send(&x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
		} else if (rank == 0) {
			MPI_Recv(&sum, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
	}
	for (int i = 0; i < iters; i++) { /* 3 */
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 3) {
			MPI_Ssend(&x, 1, MPI_DOUBLE, 2, 2, MPI_COMM_WORLD);
		} else if (rank == 2) {
			nap(sleep_ms);
			MPI_Recv(&sum, 1, MPI_DOUBLE, 3, 2, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		}
	}
	for (int i = 0; i < iters; i++) { /* 4 */
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			MPI_Irecv(&sum, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 3,
				  MPI_COMM_WORLD, &rq);
			MPI_Wait(&rq, &st); /* its source: rank 3 */
		} else if (rank == 3) {
			nap(sleep_ms);
			MPI_Send(&x, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD); /* 5 */
	for (int i = 0; rank == 0 && i < 5; i++)
		MPI_Send(&x, 1, MPI_DOUBLE, 1, 10, MPI_COMM_WORLD);
	for (int i = 0; rank == 1 && i < 5; i++)
		MPI_Recv(&sum, 1, MPI_DOUBLE, 0, 10, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	nap(GAP_MS);
	MPI_Barrier(MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && i < 7; i++)
		MPI_Send(&x, 1, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD);
	for (int i = 0; rank == 1 && i < 7; i++)
		MPI_Recv(&sum, 1, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("late: %d ranks, sleep %ld ms, %d iterations\n", size,
		       sleep_ms, iters);
	MPI_Finalize();
	return 0;
}
