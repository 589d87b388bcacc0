/*
 * session.c - a program of the MPI-4 sessions model: it never calls
 * MPI_Init or MPI_Finalize and has no MPI_COMM_WORLD.  Tracing starts at
 * its first MPI_Session_init and the trace is written when it exits;
 * checked call by call (expect.h): sessions, groups and communicators by
 * symbolic id, the same on every rank, two sessions open at once, freed
 * ids taken again, and ring exchanges relative to the caller.
 *
 *   mpiexec -n 3 session [ITERATIONS [world]]
 *   session --probe
 *
 * With `world`, the world model too, between the sessions' start and end:
 * MPI_Init, a sum on MPI_COMM_WORLD, MPI_Finalize, and the sessions
 * finalized after it (MPI-4 allows both models in one program).
 *
 * Built against an MPI library without sessions (Open MPI 4.1 implements
 * MPI 3.1) it says so and exits 77, which the test reports as skipped;
 * --probe only asks that (exit 0: sessions), without starting MPI.
 */
#include "expect.h"

#if MPI_VERSION < 4
int main(void)
{
	printf("session: MPI %d.%d has no sessions (MPI 4.0)\n", MPI_VERSION,
	       MPI_SUBVERSION);
	return 77;
}
#else

/* Opens session s<id>; the world's process set in it, a communicator of
 * that group, a ring and a sum on it; frees the communicator and the
 * group, and returns the session, still open. */
static MPI_Session run(const char *tag, int id, int iters)
{
	MPI_Session s;
	MPI_Group g;
	MPI_Comm c;
	int rank, size, right, left, one = 1, sum = 0, token = -1;

	if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) != 0 ||
	    MPI_Group_from_session_pset(s, "mpi://WORLD", &g) != 0 ||
	    MPI_Group_rank(g, &rank) != 0 ||
	    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN,
				       &c) != 0) {
		fprintf(stderr, "session: cannot start\n");
		exit(1);
	}
	if (id == 0)
		expect_open_rank(rank);
	EXPECT("MPI_Session_init\\(info=MPI_INFO_NULL, "
	       "errhandler=MPI_ERRORS_RETURN -> session=s%d\\)",
	       id);
	EXPECT("MPI_Group_from_session_pset\\(session=s%d, "
	       "pset_name=\"mpi://WORLD\" -> newgroup=g0\\)",
	       id);
	EXPECT("MPI_Group_rank\\(group=g0 -> rank=%d\\)", rank);
	/* freed ids are taken again, and a communicator of the same
	 * processes made again is the same one */
	EXPECT("MPI_Comm_create_from_group\\(group=g0, stringtag=\"%s\", "
	       "info=MPI_INFO_NULL, errhandler=MPI_ERRORS_RETURN -> "
	       "newcomm=c0\\)",
	       tag);
	MPI_Comm_size(c, &size);
	EXPECT("MPI_Comm_size\\(comm=c0 -> size=%d\\)", size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	for (int i = 0; i < iters; i++) {
		MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &token, 1, MPI_INT,
			     left, 7, c, MPI_STATUS_IGNORE);
		EXPECT("MPI_Sendrecv\\(sendbuf=m[0-9]+\\+0, sendcount=1, "
		       "sendtype=MPI_INT, dest=%d, sendtag=7, " OUT
		       "recvbuf=m[0-9]+\\+0, recvcount=1, "
		       "recvtype=MPI_INT, source=%d, recvtag=7, comm=c0, " OUT
		       "status=" IGNORED "\\)",
		       right, left);
	}
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
	EXPECT("MPI_Allreduce\\(sendbuf=m[0-9]+\\+0, count=1, "
	       "datatype=MPI_INT, op=MPI_SUM, comm=c0 -> "
	       "recvbuf=m[0-9]+\\+0\\)");
	if (token != left || sum != size) {
		fprintf(stderr, "session: wrong results\n");
		exit(1);
	}
	MPI_Comm_free(&c);
	EXPECT("MPI_Comm_free\\(-> comm=c0\\)");
	MPI_Group_free(&g);
	EXPECT("MPI_Group_free\\(-> group=g0\\)");
	return s;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int world = argc > 2 && !strcmp(argv[2], "world");
	MPI_Session first, second;

	/* session.sh asks whether there are sessions, without MPI */
	if (argc > 1 && !strcmp(argv[1], "--probe"))
		return 0;

	/* Two sessions open at once have two ids.  (The second is opened
	 * before the first is finalized: MPICH 4.0 crashes in a
	 * MPI_Session_init that follows the finalization of the last
	 * session, traced or not.) */
	first = run("org.rondo.test.first", 0, iters);
	second = run("org.rondo.test.second", 1, iters);
	if (world) {
		int one = 1, sum = 0, size = 0;
		MPI_Init(NULL, NULL);
		EXPECT("MPI_Init\\(argc=NULL, argv=NULL\\)");
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD -> size=%d\\)",
		       size);
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		EXPECT("MPI_Allreduce\\(sendbuf=m[0-9]+\\+0, count=1, "
		       "datatype=MPI_INT, op=MPI_SUM, comm=MPI_COMM_WORLD -> "
		       "recvbuf=m[0-9]+\\+0\\)");
		if (sum != size) {
			fprintf(stderr, "session: wrong results\n");
			exit(1);
		}
		MPI_Finalize();
		EXPECT("MPI_Finalize\\(\\)");
	}
	MPI_Session_finalize(&second);
	EXPECT("MPI_Session_finalize\\(-> session=s1\\)");
	MPI_Session_finalize(&first);
	EXPECT("MPI_Session_finalize\\(-> session=s0\\)");
	expect_close();
	return 0;
}
#endif
