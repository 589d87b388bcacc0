/*
 * lazy.c - MPI initialised and finalised without MPI_Init or MPI_Finalize
 * passing through the tracer, as a binding layer that calls PMPI_Init
 * itself does: tracing starts at the first call made with MPI up, and
 * the trace is still written at PMPI_Finalize (expect.h checks the calls
 * in between; mpi.sh that the trace says how it started).
 *
 *   mpirun -np 2 lazy
 */
#include "expect.h"

int main(int argc, char **argv)
{
	int rank, size, one = 1, sum = 0, up = 0;

	/* Before MPI is up: nothing starts, and the call is kept for the
	 * start of tracing, ahead of the first call recorded. */
	MPI_Initialized(&up);
	if (up)
		return 1;
	PMPI_Init(&argc, &argv);
	expect_open();
	EXPECT("MPI_Initialized\\(" OUT "flag=0\\)");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD, " OUT "rank=%d\\)", rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT "size=%d\\)", size);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(sum == size);
	EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
	       "count=1, datatype=MPI_INT, op=MPI_SUM, comm=MPI_COMM_WORLD\\)");
	MPI_Barrier(MPI_COMM_WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	expect_close();
	PMPI_Finalize();
	return 0;
}
