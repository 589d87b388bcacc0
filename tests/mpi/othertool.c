/*
 * othertool.c - another PMPI tool, as Darshan or mpiP are: a shared
 * library that defines MPI_Send.  It passes the call on to the next
 * MPI_Send after its own, as a tool written to be stacked with others
 * does (rondo's, when rondo is loaded after it), or with
 * OTHERTOOL_PMPI=1 straight to PMPI_Send, as mpiP does.
 * tests/tools.sh preloads it before and after rondo's module.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

typedef int send_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm);

/* What the tool measures: the time its calls took.  Work after the call,
 * as every measuring tool has, so it is a real call and not a jump (a
 * tail call would leave the caller's return address to the next). */
double othertool_seconds;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
	     MPI_Comm comm)
{
	static send_fn *next;
	const char *pmpi = getenv("OTHERTOOL_PMPI");
	double t0 = PMPI_Wtime();
	int ret;

	if (!next && !(pmpi && !strcmp(pmpi, "1")))
		next = (send_fn *)dlsym(RTLD_NEXT, "MPI_Send");
	if (next)
		ret = next(buf, count, type, dest, tag, comm);
	else
		ret = PMPI_Send(buf, count, type, dest, tag, comm);
	othertool_seconds += PMPI_Wtime() - t0;
	return ret;
}
