/*
 * thread.c - a program that starts with MPI_Init_thread(FUNNELED), as
 * mpi4py does, checked call by call (expect.h).  It also calls what MPI
 * allows before MPI_Init and after MPI_Finalize (MPI_Initialized,
 * MPI_Finalized, MPI_Get_version, MPI_Get_library_version): those calls
 * work, those before MPI_Init are recorded ahead of it and those after
 * MPI_Finalize at the end (added by `rondo run` from the ranks' after
 * files: tests/outside.sh).  A second thread, which
 * makes no MPI call (FUNNELED), allocates memory while the main thread
 * communicates.
 *
 *   mpirun -np 2 thread      (any number of ranks)
 */
#include <pthread.h>

#include "expect.h"

#define WORLD MPI_COMM_WORLD

static void *churn(void *arg)
{
	long sum = 0;

	for (int i = 0; i < 10000; i++) {
		char *p = malloc((size_t)(i % 512) + 1);

		if (!p)
			return NULL;
		p[0] = (char)i;
		sum += p[0];
		free(p);
	}
	*(long *)arg = sum;
	return NULL;
}

/* The library's version string and its length, as the program got them. */
static char lib[MPI_MAX_LIBRARY_VERSION_STRING];
static int lib_len;

/* What MPI allows outside Init and Finalize; returns the "initialized"
 * and "finalized" flags as 2 bits. */
static int outside(void)
{
	int init = -1, fini = -1, v = 0, sv = 0;

	MPI_Initialized(&init);
	MPI_Finalized(&fini);
	MPI_Get_version(&v, &sv);
	MPI_Get_library_version(lib, &lib_len);
	if (v != MPI_VERSION || sv != MPI_SUBVERSION || lib_len <= 0)
		return -1;
	return init | fini << 1;
}

int main(int argc, char **argv)
{
	char host[MPI_MAX_PROCESSOR_NAME];
	int rank, size, provided = -1, level, flag, hostlen, v, sv, sum;
	long churned = 0;
	pthread_t th;

	if (outside() != 0) {
		fprintf(stderr, "thread: wrong answers before MPI_Init\n");
		return 1;
	}
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(WORLD, &rank);
	MPI_Comm_size(WORLD, &size);
	expect_open();
	CHECK(provided >= MPI_THREAD_FUNNELED);
	EXPECT("MPI_Initialized\\(" OUT "flag=0\\)");
	EXPECT("MPI_Finalized\\(" OUT "flag=0\\)");
	EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT "subversion=%d\\)",
	       MPI_VERSION, MPI_SUBVERSION);
	expect_library_version(lib, lib_len);
	EXPECT("MPI_Init_thread\\(argc=[0-9]+, argv=NULL, required=%d, " OUT
	       "provided=%d\\)",
	       MPI_THREAD_FUNNELED, provided);
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD, " OUT "rank=%d\\)", rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD, " OUT "size=%d\\)", size);

	MPI_Query_thread(&level);
	CHECK(level == provided);
	EXPECT("MPI_Query_thread\\(" OUT "provided=%d\\)", provided);
	MPI_Is_thread_main(&flag);
	CHECK(flag);
	EXPECT("MPI_Is_thread_main\\(" OUT "flag=1\\)");
	MPI_Initialized(&flag);
	EXPECT("MPI_Initialized\\(" OUT "flag=1\\)");
	MPI_Get_version(&v, &sv);
	EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT "subversion=%d\\)",
	       MPI_VERSION, MPI_SUBVERSION);
	MPI_Get_processor_name(host, &hostlen);
	EXPECT("MPI_Get_processor_name\\(" OUT "name=\"%s\", " OUT
	       "resultlen=%d\\)",
	       rx_quote(host), hostlen);

	CHECK(pthread_create(&th, NULL, churn, &churned) == 0);
	for (int i = 0; i < 20; i++) {
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, WORLD);
		EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF
		       ", count=1, datatype=MPI_INT, op=MPI_SUM, "
		       "comm=MPI_COMM_WORLD\\)");
	}
	pthread_join(th, NULL);
	CHECK(sum == size * (size - 1) / 2 && churned != 0);
	MPI_Finalize();
	EXPECT("MPI_Finalize\\(\\)");
	if (outside() != 3) {
		fprintf(stderr, "thread: wrong answers after MPI_Finalize\n");
		return 1;
	}
	EXPECT("MPI_Initialized\\(" OUT "flag=1\\)");
	EXPECT("MPI_Finalized\\(" OUT "flag=1\\)");
	EXPECT("MPI_Get_version\\(" OUT "version=%d, " OUT "subversion=%d\\)",
	       MPI_VERSION, MPI_SUBVERSION);
	expect_library_version(lib, lib_len);
	expect_close();
	return 0;
}
