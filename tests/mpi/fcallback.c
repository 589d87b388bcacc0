/*
 * fcallback.c - the C library of tests/mpi/fcallback.F90: it keeps a
 * communicator of its own with the program's, and frees it when the
 * program frees that one (an attribute delete callback), as libraries
 * that cache a communicator on the user's do.
 */
#include <mpi.h>
#include <stddef.h>

static MPI_Comm inner = MPI_COMM_NULL;
int inner_freed; /* not static: the store after the call stays */

/* Work after the call, so that it is not a jump: a tail call would leave
 * the return address of the MPI library, which called the callback, and
 * the tracer would take the call for the library's own (record.c). */
static int inner_free(MPI_Comm comm, int key, void *value, void *extra)
{
	int ret;

	(void)comm;
	(void)key;
	(void)extra;
	ret = MPI_Comm_free((MPI_Comm *)value);
	inner_freed++;
	return ret;
}

void inner_attach(MPI_Fint *fcomm)
{
	int key;

	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, inner_free, &key, NULL);
	MPI_Comm_dup(MPI_COMM_WORLD, &inner);
	MPI_Comm_set_attr(MPI_Comm_f2c(*fcomm), key, &inner);
}
