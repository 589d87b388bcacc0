/*
 * othertool.c - another PMPI tool, as Darshan or mpiP are: a shared
 * library that defines MPI_Send and passes it on to PMPI_Send.
 * tests/tools.sh preloads it before and after rondo's module.
 */
#include <mpi.h>

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
	     MPI_Comm comm)
{
	return PMPI_Send(buf, count, type, dest, tag, comm);
}
