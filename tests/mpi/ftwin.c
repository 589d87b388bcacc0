/*
 * ftwin.c - the C twin of tests/mpi/fsuite.F90: the same MPI calls with
 * the same values in the same order, buffers allocated with malloc as
 * the Fortran program's allocatable arrays are, and Fortran's datatypes
 * (MPI_INTEGER), so that tests/fortran.sh can check that a Fortran
 * program's trace reads as its C twin's, call by call.  MPI_Init gets
 * NULL, NULL: Fortran has no argc and argv.  It checks what it received
 * as fsuite does and prints "ftwin: rank R OK" (or what was wrong, exit
 * status 1).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad, rank;

static void no(const char *what)
{
	printf("ftwin: rank %d: wrong: %s\n", rank, what);
	bad = 1;
}

int main(void)
{
	int nranks, right, left, n, idx, flag, subrank, namelen, tsize;
	int done, outcount, k, indices[6], blocklens[2] = {2, 3};
	char cname[MPI_MAX_OBJECT_NAME];
	MPI_Request req[2], reqs[6], one[3];
	MPI_Comm sub, dup;
	MPI_Datatype vec, pair, types[2] = {MPI_INTEGER, MPI_INTEGER};
	MPI_Info info;
	MPI_Status st, sts[6];
	MPI_Aint displs[2];
	int *a, *b, *c, *v, *g, *x, *y, *p, *q;

	MPI_Initialized(&flag);
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (flag)
		no("initialized before MPI_Init");
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	right = (rank + 1) % nranks;
	left = (rank + nranks - 1) % nranks;
	a = malloc(8 * sizeof(int));
	b = malloc(8 * sizeof(int));
	c = malloc(8 * sizeof(int));
	v = malloc(4 * sizeof(int));
	g = malloc((size_t)nranks * sizeof(int));
	x = malloc(4 * sizeof(int));
	y = malloc(4 * sizeof(int));
	p = malloc(6 * sizeof(int));
	q = malloc(6 * sizeof(int));
	if (!a || !b || !c || !v || !g || !x || !y || !p || !q)
		return 1;
	for (int i = 0; i < 8; i++)
		a[i] = rank;

	/* point to point */
	MPI_Sendrecv(a, 8, MPI_INTEGER, right, 1, b, 8, MPI_INTEGER, left, 1,
		     MPI_COMM_WORLD, &st);
	if (b[7] != left || st.MPI_SOURCE != left || st.MPI_TAG != 1)
		no("sendrecv");
	MPI_Irecv(b, 8, MPI_INTEGER, left, 2, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(a, 8, MPI_INTEGER, right, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, sts);
	if (sts[0].MPI_SOURCE != left || sts[0].MPI_TAG != 2)
		no("waitall status");
	MPI_Irecv(b + 2, 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, &req[0]);
	MPI_Isend(a + 4, 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	if (rank % 2 == 0) {
		MPI_Send(a, 8, MPI_INTEGER, right, 4, MPI_COMM_WORLD);
		MPI_Recv(c, 8, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD,
			 &st);
	} else {
		MPI_Recv(c, 8, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD,
			 &st);
		MPI_Send(a, 8, MPI_INTEGER, right, 4, MPI_COMM_WORLD);
	}
	MPI_Get_count(&st, MPI_INTEGER, &n);
	if (n != 8 || st.MPI_SOURCE != left)
		no("recv from any source");
	one[0] = one[2] = MPI_REQUEST_NULL;
	MPI_Irecv(c, 8, MPI_INTEGER, left, 5, MPI_COMM_WORLD, &one[1]);
	MPI_Send(a, 8, MPI_INTEGER, right, 5, MPI_COMM_WORLD);
	MPI_Waitany(3, one, &idx, &st);
	if (idx != 1)
		no("waitany index");
	MPI_Test(&one[1], &flag, MPI_STATUS_IGNORE);
	if (!flag)
		no("test of a null request");
	MPI_Send(a, 8, MPI_INTEGER, right, 6, MPI_COMM_WORLD);
	MPI_Probe(left, 6, MPI_COMM_WORLD, &st);
	if (st.MPI_SOURCE != left)
		no("probe");
	MPI_Recv(c, 8, MPI_INTEGER, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

	/* collectives, with MPI_IN_PLACE */
	for (int i = 0; i < 4; i++)
		v[i] = rank + 1;
	MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
	if (v[0] != nranks * (nranks + 1) / 2)
		no("allreduce in place");
	for (int i = 0; i < 4; i++)
		x[i] = 1;
	if (rank == 0) {
		MPI_Reduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		if (x[3] != nranks)
			no("reduce in place");
	} else {
		MPI_Reduce(x, y, 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD);
	}
	g[rank] = rank * 10;
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, g, 1, MPI_INTEGER,
		      MPI_COMM_WORLD);
	if (g[nranks - 1] != (nranks - 1) * 10)
		no("allgather in place");
	MPI_Bcast(v, 4, MPI_INTEGER, 0, MPI_COMM_WORLD);
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
		no("barrier");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (MPI_Send(a, 1, MPI_INTEGER, nranks + 5, 0, MPI_COMM_WORLD) ==
	    MPI_SUCCESS)
		no("a send to no rank succeeded");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

	/* communicators */
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
	MPI_Comm_rank(sub, &subrank);
	if (subrank != rank / 2)
		no("comm split rank");
	MPI_Comm_set_name(sub, "half");
	MPI_Comm_get_name(sub, cname, &namelen);
	if (strcmp(cname, "half"))
		no("comm name");
	for (int i = 0; i < 4; i++)
		x[i] = 1;
	MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_SUM, sub);
	if (y[0] != nranks / 2)
		no("allreduce on the split");
	MPI_Comm_dup(sub, &dup);
	MPI_Barrier(dup);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&sub);

	/* derived datatypes */
	MPI_Type_vector(4, 1, 2, MPI_INTEGER, &vec);
	MPI_Type_commit(&vec);
	for (int i = 0; i < 8; i++)
		b[i] = -1;
	MPI_Sendrecv(a, 1, vec, right, 7, b, 1, vec, left, 7, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	if (b[6] != left || b[1] != -1)
		no("vector type");
	MPI_Type_size(vec, &tsize);
	if (tsize != 16)
		no("vector size");
	MPI_Get_address(p, &displs[0]);
	MPI_Get_address(q + 2, &displs[1]);
	MPI_Type_create_struct(2, blocklens, displs, types, &pair);
	MPI_Type_commit(&pair);
	for (int i = 0; i < 6; i++)
		p[i] = q[i] = rank;
	MPI_Sendrecv_replace(MPI_BOTTOM, 1, pair, right, 8, left, 8,
			     MPI_COMM_WORLD, &st);
	if (p[1] != left || q[4] != left || q[5] != rank)
		no("struct type at MPI_BOTTOM");
	MPI_Type_free(&pair);
	MPI_Type_free(&vec);

	/* strings and logicals */
	MPI_Info_create(&info);
	MPI_Info_set(info, "rondo_key", "a value");
	MPI_Info_free(&info);
	MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag,
		   MPI_STATUS_IGNORE);
	if (flag)
		no("iprobe found a message never sent");

	/* a Waitsome loop */
	for (int i = 0; i < 3; i++)
		MPI_Irecv(c + i, 1, MPI_INTEGER, left, 21 + i, MPI_COMM_WORLD,
			  &reqs[i]);
	for (int i = 0; i < 3; i++)
		MPI_Isend(a + i, 1, MPI_INTEGER, right, 21 + i, MPI_COMM_WORLD,
			  &reqs[3 + i]);
	for (done = 0, k = 0; done < 6; k++) {
		MPI_Waitsome(6, reqs, &outcount, indices, sts);
		if (outcount < 1 || outcount > 6)
			no("waitsome count");
		done += outcount;
	}
	MPI_Finalize();
	MPI_Finalized(&flag);
	if (!flag)
		no("not finalized after MPI_Finalize");
	if (bad)
		return 1;
	printf("ftwin: rank %d OK (%d waitsome)\n", rank, k);
	free(a);
	free(b);
	free(c);
	free(v);
	free(g);
	free(x);
	free(y);
	free(p);
	free(q);
	return 0;
}
