/* Declarations the generator finds beside mpi.h (tests/test_gen.sh):
 * MPI_Rondo_missing is declared but defined nowhere, so the link test must
 * drop it; MPI_Rondo_extra is defined (fake.c) but absent from the API
 * table, so it is wrapped with its parameters encoded from C types alone. */
#include <mpi.h>

int MPI_Rondo_missing(int value);
int PMPI_Rondo_missing(int value);

int MPI_Rondo_extra(MPI_Comm comm, const int counts[], int *flag, void *buf);
int PMPI_Rondo_extra(MPI_Comm comm, const int counts[], int *flag, void *buf);
