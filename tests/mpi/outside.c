/*
 * outside.c - MPI calls outside MPI_Init..MPI_Finalize, as mpi4py and
 * HPCC make them.  Before MPI_Init: MPI_Initialized, MPI_Get_version and
 * MPI_Get_library_version, which the trace must have ahead of MPI_Init,
 * with their values, on every rank.  After MPI_Finalize: MPI_Finalized
 * and MPI_Get_version, which each rank keeps in its after file and
 * `rondo run` (or `rondo recover`) adds to the end of its calls.
 * tests/outside.sh runs it.
 *
 *   mpirun -np N outside [EXTRA [abort | LATE]]
 *
 * EXTRA: that many more MPI_Get_version calls before MPI_Init; the tracer
 * keeps 64 calls, so from EXTRA 62 on some are left out, and rank 0 says
 * how many.  abort: the program ends in MPI_Abort right after MPI_Init's
 * calls, so that the trace is made from the spill files.  LATE: that many
 * more MPI_Get_version calls after MPI_Finalize, of which the tracer
 * keeps 64 too.
 */
#include "expect.h"

#define KEPT 64 /* the calls the tracer keeps from before MPI_Init */

int main(int argc, char **argv)
{
	static char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int extra = argc > 1 ? atoi(argv[1]) : 0;
	int abort_after = argc > 2 && !strcmp(argv[2], "abort");
	int late = argc > 2 && !abort_after ? atoi(argv[2]) : 0;
	int up = -1, version = 0, subversion = 0, len = 0, down = -1;
	int rank, size, kept;

	MPI_Initialized(&up);
	MPI_Get_version(&version, &subversion);
	MPI_Get_library_version(lib, &len);
	for (int i = 0; i < extra; i++)
		MPI_Get_version(&version, &subversion);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	expect_open();
	CHECK(up == 0);

	/* the calls before MPI_Init, in order, as many as are kept */
	EXPECT("MPI_Initialized\\(" OUT "flag=0\\)");
	EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT "subversion=%d\\)",
	       version, subversion);
	expect_library_version(lib, len);
	kept = extra < KEPT - 3 ? extra : KEPT - 3;
	for (int i = 0; i < kept; i++)
		EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT
		       "subversion=%d\\)",
		       version, subversion);
	EXPECT("MPI_Init\\(argc=[0-9]+, argv=NULL\\)");
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD, " OUT "rank=%d\\)", rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT "size=%d\\)", size);
	if (abort_after) {
		EXPECT("MPI_Abort\\(comm=MPI_COMM_WORLD, errorcode=5\\)");
		expect_close();
		MPI_Abort(MPI_COMM_WORLD, 5);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	MPI_Finalize();
	EXPECT("MPI_Finalize\\(\\)");

	/* after MPI_Finalize: the first 64 kept, at the end of the rank's
	 * calls */
	MPI_Finalized(&down);
	EXPECT("MPI_Finalized\\(" OUT "flag=1\\)");
	MPI_Get_version(&version, &subversion);
	EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT "subversion=%d\\)",
	       version, subversion);
	for (int i = 0; i < late; i++) {
		MPI_Get_version(&version, &subversion);
		if (i < KEPT - 2)
			EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT
			       "subversion=%d\\)",
			       version, subversion);
	}
	expect_close();
	return down == 1 ? 0 : 1;
}
