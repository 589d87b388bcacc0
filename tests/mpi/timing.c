/*
 * timing.c - recorded durations against the program's own clock.  Rank 1
 * sleeps before it sends, so rank 0's MPI_Recv waits for a known while;
 * rank 0 measures that wait itself (clock_gettime, not traced) and writes
 * it to $RONDO_EXPECT.wait: mpi.sh compares it with the duration the trace
 * holds (tests/sigtime), which must agree to 1 %.
 *
 *   mpirun -np 2 timing [MILLISECONDS]
 */
#include <time.h>
#include <unistd.h>

#include "expect.h"

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int rank, size, ms = argc > 1 ? atoi(argv[1]) : 200, v = 7;
	double t0, t1;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	if (rank == 1) {
		usleep((useconds_t)ms * 1000);
		MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
		EXPECT("MPI_Send\\(buf=" BUF ", count=1, datatype=MPI_INT, "
		       "dest=0, tag=5, comm=MPI_COMM_WORLD\\)");
	} else if (rank == 0) {
		char path[4096];
		FILE *f;

		t0 = seconds();
		MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		t1 = seconds();
		EXPECT("MPI_Recv\\(count=1, datatype=MPI_INT, source=1, "
		       "tag=5, comm=MPI_COMM_WORLD -> buf=" BUF
		       ", status=" IGNORED "\\)");
		snprintf(path, sizeof(path), "%s.wait",
			 getenv("RONDO_EXPECT") ? getenv("RONDO_EXPECT")
						: "expect");
		f = fopen(path, "w");
		if (!f || fprintf(f, "%.0f\n", (t1 - t0) * 1e9) < 0) {
			perror(path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		fclose(f);
	}
	expect_finalize();
	return 0;
}
