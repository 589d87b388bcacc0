/*
 * errors.c - error handling under the tracer, checked call by call
 * (expect.h): calls that fail under MPI_ERRORS_RETURN are recorded with
 * their arguments (a rank out of range as a plain number) and without
 * outputs; a user error handler's own MPI call is the program's, so it is
 * recorded, before the call that failed.
 *
 *   mpirun -np 2 errors      (any number of ranks)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, handled;

static void on_error(MPI_Comm *comm, int *code, ...)
{
	int cls;

	(void)comm;
	MPI_Error_class(*code, &cls);
	handled = cls;
}

int main(int argc, char **argv)
{
	char msg[MPI_MAX_ERROR_STRING];
	int x = 0, err, cls, len;
	MPI_Errhandler eh, got;
	MPI_Status st;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);

	MPI_Comm_set_errhandler(WORLD, MPI_ERRORS_RETURN);
	EXPECT("MPI_Comm_set_errhandler\\(comm=MPI_COMM_WORLD, "
	       "errhandler=MPI_ERRORS_RETURN\\)");
	err = MPI_Send(&x, 1, MPI_INT, size, 0, WORLD);
	CHECK(err != MPI_SUCCESS);
	EXPECT("MPI_Send\\(buf=" BUF ", count=1, datatype=MPI_INT, dest=%d, "
	       "tag=0, comm=MPI_COMM_WORLD\\)",
	       size);
	MPI_Error_class(err, &cls);
	CHECK(cls == MPI_ERR_RANK);
	EXPECT("MPI_Error_class\\(errorcode=%d, " OUT "errorclass=%d\\)", err,
	       cls);
	MPI_Error_string(err, msg, &len);
	EXPECT("MPI_Error_string\\(errorcode=%d, " OUT "string=\"%s\", " OUT
	       "resultlen=%d\\)",
	       err, rx_quote(msg), len);

	MPI_Comm_create_errhandler(on_error, &eh);
	EXPECT("MPI_Comm_create_errhandler\\(comm_errhandler_fn=fn[0-9]+, " OUT
	       "errhandler=eh0\\)");
	MPI_Comm_set_errhandler(WORLD, eh);
	EXPECT("MPI_Comm_set_errhandler\\(comm=MPI_COMM_WORLD, "
	       "errhandler=eh0\\)");
	MPI_Comm_get_errhandler(WORLD, &got);
	CHECK(got == eh);
	EXPECT("MPI_Comm_get_errhandler\\(comm=MPI_COMM_WORLD, " OUT
	       "errhandler=eh0\\)");
	MPI_Errhandler_free(&got);
	EXPECT("MPI_Errhandler_free\\(" OUT "errhandler=eh0\\)");

	/* A negative source: the handler runs inside the call. */
	err = MPI_Recv(&x, 1, MPI_INT, -5, 0, WORLD, &st);
	CHECK(err != MPI_SUCCESS && handled == MPI_ERR_RANK);
	EXPECT("MPI_Error_class\\(errorcode=%d, " OUT "errorclass=%d\\)", err,
	       MPI_ERR_RANK);
	EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=1, datatype=MPI_INT, "
	       "source=-5, tag=0, comm=MPI_COMM_WORLD, " OUT "status=NULL\\)");
	handled = 0;
	MPI_Comm_call_errhandler(WORLD, MPI_ERR_OTHER);
	CHECK(handled == MPI_ERR_OTHER);
	EXPECT("MPI_Error_class\\(errorcode=%d, " OUT "errorclass=%d\\)",
	       MPI_ERR_OTHER, MPI_ERR_OTHER);
	EXPECT("MPI_Comm_call_errhandler\\(comm=MPI_COMM_WORLD, "
	       "errorcode=%d\\)",
	       MPI_ERR_OTHER);

	MPI_Comm_set_errhandler(WORLD, MPI_ERRORS_ARE_FATAL);
	EXPECT("MPI_Comm_set_errhandler\\(comm=MPI_COMM_WORLD, "
	       "errhandler=MPI_ERRORS_ARE_FATAL\\)");
	MPI_Errhandler_free(&eh);
	CHECK(eh == MPI_ERRHANDLER_NULL);
	EXPECT("MPI_Errhandler_free\\(" OUT "errhandler=eh0\\)");
	expect_finalize();
	return 0;
}
