/*
 * io.c - MPI-IO under the tracer, checked call by call (expect.h): a file
 * opened by every rank with an info object, each rank's block written
 * with File_write_at_all, read back through a view with File_read_all,
 * the file closed and deleted.
 *
 *   mpirun -np 2 io DIR      (any number of ranks; DIR a scratch directory)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD
#define N     16

static int rank, size;

int main(int argc, char **argv)
{
	char path[4096], value[64];
	int out[N], in[N], flag, nkeys, n, amode;
	MPI_Offset bytes = N * (MPI_Offset)sizeof(int), fsize;
	MPI_Status st;
	MPI_Info info;
	MPI_File fh;

	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	if (argc < 2) {
		fprintf(stderr, "usage: io DIR\n");
		MPI_Abort(WORLD, 2);
	}
	snprintf(path, sizeof(path), "%s/io.dat", argv[1]);
	for (int i = 0; i < N; i++)
		out[i] = rank * N + i;

	MPI_Info_create(&info);
	EXPECT("MPI_Info_create\\(" OUT "info=i0\\)");
	MPI_Info_set(info, "access_style", "write_once,read_once");
	EXPECT("MPI_Info_set\\(info=i0, key=\"access_style\", "
	       "value=\"write_once,read_once\"\\)");
	MPI_Info_get(info, "access_style", sizeof(value) - 1, value, &flag);
	CHECK(flag);
	EXPECT("MPI_Info_get\\(info=i0, key=\"access_style\", valuelen=%d, " OUT
	       "value=\"write_once,read_once\", " OUT "flag=1\\)",
	       (int)sizeof(value) - 1);
	MPI_Info_get_nkeys(info, &nkeys);
	EXPECT("MPI_Info_get_nkeys\\(info=i0, " OUT "nkeys=1\\)");

	amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
	MPI_File_open(WORLD, path, amode, info, &fh);
	EXPECT("MPI_File_open\\(comm=MPI_COMM_WORLD, filename=\"%s\", "
	       "amode=%d, info=i0, " OUT "fh=f0\\)",
	       rx_quote(path), amode);
	MPI_Info_free(&info);
	EXPECT("MPI_Info_free\\(" OUT "info=i0\\)");
	MPI_File_get_amode(fh, &n);
	EXPECT("MPI_File_get_amode\\(fh=f0, " OUT "amode=%d\\)", amode);

	MPI_File_write_at_all(fh, rank * bytes, out, N, MPI_INT,
			      MPI_STATUS_IGNORE);
	EXPECT("MPI_File_write_at_all\\(fh=f0, offset=%lld, buf=" BUF ", "
	       "count=%d, datatype=MPI_INT, " OUT "status=" IGNORED "\\)",
	       (long long)(rank * bytes), N);
	/* sync, barrier, sync: the standard's way to see the other ranks'
	 * writes (ROMIO writes blocks that do not interleave each on its
	 * own, so without it rank 0 could size the file before rank 1 has
	 * written) */
	MPI_File_sync(fh);
	EXPECT("MPI_File_sync\\(fh=f0\\)");
	MPI_Barrier(WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	MPI_File_sync(fh);
	EXPECT("MPI_File_sync\\(fh=f0\\)");
	MPI_File_get_size(fh, &fsize);
	CHECK(fsize == size * bytes);
	EXPECT("MPI_File_get_size\\(fh=f0, " OUT "size=%lld\\)",
	       (long long)(size * bytes));

	/* Read the left neighbour's block through a view. */
	n = (rank + size - 1) % size;
	MPI_File_set_view(fh, n * bytes, MPI_INT, MPI_INT, "native",
			  MPI_INFO_NULL);
	EXPECT("MPI_File_set_view\\(fh=f0, disp=%lld, etype=MPI_INT, "
	       "filetype=MPI_INT, datarep=\"native\", info=MPI_INFO_NULL\\)",
	       (long long)(n * bytes));
	MPI_File_read_all(fh, in, N, MPI_INT, &st);
	CHECK(in[N - 1] == n * N + N - 1);
	/* An I/O status carries no source or tag: what the runtime writes
	 * for them is not the point. */
	EXPECT("MPI_File_read_all\\(fh=f0, " OUT "buf=" BUF ", count=%d, "
	       "datatype=MPI_INT, " OUT "status=status\\{[^}]*\\}\\)",
	       N);
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == N);
	EXPECT("MPI_Get_count\\(status=status\\{[^}]*\\}, "
	       "datatype=MPI_INT, " OUT "count=%d\\)",
	       N);
	MPI_File_get_position(fh, &fsize);
	EXPECT("MPI_File_get_position\\(fh=f0, " OUT "offset=%d\\)", N);

	MPI_File_close(&fh);
	CHECK(fh == MPI_FILE_NULL);
	EXPECT("MPI_File_close\\(" OUT "fh=f0\\)");
	MPI_Barrier(WORLD);
	EXPECT("MPI_Barrier\\(comm=MPI_COMM_WORLD\\)");
	if (rank == 0) {
		MPI_File_delete(path, MPI_INFO_NULL);
		EXPECT("MPI_File_delete\\(filename=\"%s\", "
		       "info=MPI_INFO_NULL\\)",
		       rx_quote(path));
	}
	expect_finalize();
	return 0;
}
