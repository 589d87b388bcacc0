/*
 * comms.c - communicators and groups under the tracer, checked call by
 * call (expect.h): Comm_dup, Comm_split, Comm_create from a group,
 * Comm_idup with its request, Intercomm_create and Intercomm_merge,
 * traffic and wildcard receives on each, an attribute whose delete
 * callback makes an MPI call (the program's, so recorded), Comm_free,
 * and integers derived from the rank (split key, tags).
 *
 *   mpirun -np 4 comms        (2 ranks or more, up to 8)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size;

/* A wildcard receive from the left neighbour in comm, a send to the
 * right: the status names the source as a rank of comm. */
static void ring_on(MPI_Comm comm, int tag)
{
	int me, n, out, in = -1;
	MPI_Status st;

	PMPI_Comm_rank(comm, &me);
	PMPI_Comm_size(comm, &n);
	out = me;
	MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % n, tag, &in, 1, MPI_INT,
		     MPI_ANY_SOURCE, tag, comm, &st);
	CHECK(in == (me + n - 1) % n && st.MPI_SOURCE == in);
	EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, dest=%s, sendtag=%d, " OUT "recvbuf=" BUF
	       ", recvcount=1, recvtype=MPI_INT, source=MPI_ANY_SOURCE, "
	       "recvtag=%d, comm=" COMM ", " OUT "status=%s\\)",
	       rx_rank((me + 1) % n, comm), tag, tag,
	       rx_st(st.MPI_SOURCE, NO, NO));
}

static int deleted;

/* An attribute's delete callback, run by Comm_free: its MPI call is the
 * program's. */
static int on_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
	int n;

	(void)keyval;
	(void)value;
	(void)extra;
	MPI_Comm_size(comm, &n);
	deleted++;
	return MPI_SUCCESS;
}

static void dup_and_attributes(void)
{
	MPI_Comm dup;
	char name[MPI_MAX_OBJECT_NAME];
	int result, len, key, freed, flag, *got, value = 42;

	MPI_Comm_dup(WORLD, &dup);
	EXPECT("MPI_Comm_dup\\(comm=MPI_COMM_WORLD, " OUT "newcomm=" COMM
	       "\\)");
	MPI_Comm_compare(WORLD, dup, &result);
	CHECK(result == MPI_CONGRUENT);
	EXPECT("MPI_Comm_compare\\(comm1=MPI_COMM_WORLD, comm2=" COMM ", " OUT
	       "result=%d\\)",
	       MPI_CONGRUENT);
	MPI_Comm_set_name(dup, "dup of world");
	EXPECT("MPI_Comm_set_name\\(comm=" COMM ", "
	       "comm_name=\"dup of world\"\\)");
	MPI_Comm_get_name(dup, name, &len);
	CHECK(len == 12);
	EXPECT("MPI_Comm_get_name\\(comm=" COMM ", " OUT
	       "comm_name=\"dup of world\", " OUT "resultlen=12\\)");
	/* A keyval is recorded as the int the library gave: any value (a
	 * small index in Open MPI, an encoded handle, negative as an int, in
	 * MPICH), the same in every call that names it. */
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &key, NULL);
	EXPECT("MPI_Comm_create_keyval\\(comm_copy_attr_fn=(fn[0-9]+|NULL), "
	       "comm_delete_attr_fn=fn[0-9]+, " OUT "comm_keyval=%d, "
	       "extra_state=NULL\\)",
	       key);
	MPI_Comm_set_attr(dup, key, &value);
	EXPECT("MPI_Comm_set_attr\\(comm=" COMM ", comm_keyval=%d, "
	       "attribute_val=" BUF "\\)",
	       key);
	MPI_Comm_get_attr(dup, key, &got, &flag);
	CHECK(flag && got == &value);
	EXPECT("MPI_Comm_get_attr\\(comm=" COMM ", comm_keyval=%d, " OUT
	       "attribute_val=" BUF ", " OUT "flag=1\\)",
	       key);
	ring_on(dup, 1);
	MPI_Comm_free(&dup);
	CHECK(deleted == 1 && dup == MPI_COMM_NULL);
	/* the callback's call comes first: Comm_free is recorded at its end */
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", size);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	freed = key;
	MPI_Comm_free_keyval(&key);
	CHECK(key == MPI_KEYVAL_INVALID);
	/* recorded as it was before the call */
	EXPECT("MPI_Comm_free_keyval\\(comm_keyval=%d\\)", freed);
}

/* Comm_create from a group of the first half of the ranks. */
static void from_group(void)
{
	MPI_Group world, first, rest;
	MPI_Comm sub;
	int m = (size + 1) / 2, ranks[8], out[8], r, n, cmp;

	for (int i = 0; i < m; i++)
		ranks[i] = i;
	MPI_Comm_group(WORLD, &world);
	EXPECT("MPI_Comm_group\\(comm=MPI_COMM_WORLD, " OUT "group=" GROUP
	       "\\)");
	MPI_Group_incl(world, m, ranks, &first);
	EXPECT("MPI_Group_incl\\(group=" GROUP ", n=%d, ranks=%s, " OUT
	       "newgroup=" GROUP "\\)",
	       m, rx_ints(m, ranks));
	MPI_Group_excl(world, m, ranks, &rest);
	EXPECT("MPI_Group_excl\\(group=" GROUP ", n=%d, ranks=%s, " OUT
	       "newgroup=" GROUP "\\)",
	       m, rx_ints(m, ranks));
	MPI_Group_size(first, &n);
	CHECK(n == m);
	EXPECT("MPI_Group_size\\(group=" GROUP ", " OUT "size=%d\\)", m);
	MPI_Group_rank(first, &r);
	if (rank < m) {
		EXPECT("MPI_Group_rank\\(group=" GROUP ", " OUT "rank=%d\\)",
		       rank);
	} else {
		CHECK(r == MPI_UNDEFINED);
		EXPECT("%s", "MPI_Group_rank\\(group=" GROUP ", " OUT
			     "rank=MPI_UNDEFINED\\)");
	}
	MPI_Group_translate_ranks(first, m, ranks, world, out);
	CHECK(out[m - 1] == m - 1);
	EXPECT("MPI_Group_translate_ranks\\(group1=" GROUP ", n=%d, "
	       "ranks1=%s, group2=" GROUP ", " OUT "ranks2=%s\\)",
	       m, rx_ints(m, ranks), rx_ints(m, out));
	MPI_Group_compare(first, world, &cmp);
	EXPECT("MPI_Group_compare\\(group1=" GROUP ", group2=" GROUP ", " OUT
	       "result=%d\\)",
	       cmp);
	MPI_Comm_create(WORLD, first, &sub);
	if (rank < m) {
		EXPECT("MPI_Comm_create\\(comm=MPI_COMM_WORLD, group=" GROUP
		       ", " OUT "newcomm=" COMM "\\)");
		ring_on(sub, 2);
		MPI_Comm_free(&sub);
		EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	} else {
		CHECK(sub == MPI_COMM_NULL);
		EXPECT("MPI_Comm_create\\(comm=MPI_COMM_WORLD, group=" GROUP
		       ", " OUT "newcomm=MPI_COMM_NULL\\)");
	}
	MPI_Group_free(&rest);
	EXPECT("MPI_Group_free\\(" OUT "group=" GROUP "\\)");
	MPI_Group_free(&first);
	EXPECT("MPI_Group_free\\(" OUT "group=" GROUP "\\)");
	MPI_Group_free(&world);
	EXPECT("MPI_Group_free\\(" OUT "group=" GROUP "\\)");
}

static void idup(void)
{
	MPI_Comm c;
	MPI_Request req;

	MPI_Comm_idup(WORLD, &c, &req);
	EXPECT("MPI_Comm_idup\\(comm=MPI_COMM_WORLD, " OUT "newcomm=" COMM
	       ", " OUT "request=" REQ "\\)");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Barrier(c);
	EXPECT("MPI_Barrier\\(comm=" COMM "\\)");
	MPI_Comm_free(&c);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
}

/* Gatherv across an intercommunicator: odd ranks' leader (MPI_ROOT)
 * gathers rank + 1 values from each even rank; its counts are as many as
 * the remote group has ranks. */
static void inter_gatherv(MPI_Comm inter, int color, int root)
{
	int s[8], r[64], counts[8], displs[8], n, hrank, total = 0;

	PMPI_Comm_remote_size(inter, &n);
	for (int i = 0; i < n; i++) {
		counts[i] = i + 1;
		displs[i] = total;
		total += counts[i];
	}
	for (int i = 0; i < 8; i++)
		s[i] = rank;
	PMPI_Comm_rank(inter, &hrank);
	if (color) {
		MPI_Gatherv(NULL, 0, MPI_DATATYPE_NULL, r, counts, displs,
			    MPI_INT, root, inter);
		CHECK(root != MPI_ROOT || r[total - 1] == 0);
	} else {
		MPI_Gatherv(s, hrank + 1, MPI_INT, NULL, NULL, NULL,
			    MPI_DATATYPE_NULL, root, inter);
	}
	/* Only MPI_ROOT receives: elsewhere the receive side is not read. */
	if (root == MPI_ROOT)
		EXPECT("MPI_Gatherv\\(sendbuf=NULL, sendcount=0, "
		       "sendtype=MPI_DATATYPE_NULL, " OUT "recvbuf=" BUF ", "
		       "recvcounts=%s, displs=%s, recvtype=MPI_INT, "
		       "root=MPI_ROOT, comm=" COMM "\\)",
		       rx_ints(n, counts), rx_ints(n, displs));
	else if (color)
		EXPECT("MPI_Gatherv\\(sendbuf=NULL, sendcount=0, "
		       "sendtype=MPI_DATATYPE_NULL, " OUT "recvbuf=NULL, "
		       "recvcounts=NULL, displs=NULL, recvtype=NULL, "
		       "root=MPI_PROC_NULL, comm=" COMM "\\)");
	else
		EXPECT("MPI_Gatherv\\(sendbuf=" BUF ", sendcount=%d, "
		       "sendtype=MPI_INT, " OUT "recvbuf=NULL, "
		       "recvcounts=NULL, displs=NULL, recvtype=NULL, root=0, "
		       "comm=" COMM "\\)",
		       hrank + 1);
}

#define INTERCOMM_CREATE                                                       \
	"MPI_Intercomm_create\\(local_comm=" COMM ", local_leader=%s, "        \
	"peer_comm=MPI_COMM_WORLD, remote_leader=%s, tag=77, " OUT             \
	"newintercomm=" COMM "\\)"

/* Even and odd ranks (in reverse order: key -rank), an intercommunicator
 * between them, merged back into one. */
static void halves(void)
{
	MPI_Comm half, inter, merged;
	int color = rank % 2, hrank, hsize, flag, n, v, leader, remote, root;
	MPI_Status st;

	MPI_Comm_split(WORLD, color, -rank, &half);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=%d, " OUT
	       "newcomm=" COMM "\\)",
	       color, -rank);
	MPI_Comm_rank(half, &hrank);
	EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT "rank=%d\\)", hrank);
	MPI_Comm_size(half, &hsize);
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", hsize);
	CHECK(hsize == (size - color + 1) / 2);
	ring_on(half, 3);
	/* Leaders: each half's rank 0, its highest world rank. */
	leader = (size - 1) % 2 == color ? size - 1 : size - 2;
	remote = leader == size - 1 ? size - 2 : size - 1;
	MPI_Intercomm_create(half, 0, WORLD, remote, 77, &inter);
	/* remote_leader is a rank of peer_comm, not of local_comm */
	EXPECT("%s", rx_printf(INTERCOMM_CREATE, rx_rank(0, half),
			       rx_rank(remote, WORLD)));
	MPI_Comm_test_inter(inter, &flag);
	CHECK(flag);
	EXPECT("MPI_Comm_test_inter\\(comm=" COMM ", " OUT "flag=1\\)");
	MPI_Comm_remote_size(inter, &n);
	CHECK(n == size - hsize);
	EXPECT("MPI_Comm_remote_size\\(comm=" COMM ", " OUT "size=%d\\)", n);
	/* Rooted on an intercommunicator: MPI_ROOT, MPI_PROC_NULL, or the
	 * root's rank in the other group. */
	root = color ? (hrank ? MPI_PROC_NULL : MPI_ROOT) : 0;
	v = color ? 5 : -1;
	MPI_Bcast(&v, 1, MPI_INT, root, inter);
	CHECK(color || v == 5);
	EXPECT("MPI_Bcast\\(buffer=" BUF ", count=1, datatype=MPI_INT, "
	       "root=%s, comm=" COMM "\\)",
	       rx_rank(root, inter));
	/* The leaders talk: any source in the other group. */
	if (hrank == 0) {
		v = rank;
		if (color)
			MPI_Send(&v, 1, MPI_INT, 0, 78, inter);
		else
			MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 78, inter,
				 &st);
		if (color) {
			EXPECT("MPI_Send\\(buf=" BUF ", count=1, "
			       "datatype=MPI_INT, dest=%s, tag=78, comm=" COMM
			       "\\)",
			       rx_rank(0, inter));
		} else {
			CHECK(v == remote && st.MPI_SOURCE == 0);
			EXPECT("MPI_Recv\\(" OUT "buf=" BUF ", count=%d, "
			       "datatype=MPI_INT, source=MPI_ANY_SOURCE, "
			       "tag=78, comm=" COMM ", " OUT "status=%s\\)",
			       1, rx_st(st.MPI_SOURCE, NO, NO));
		}
	}
	inter_gatherv(inter, color, root);
	MPI_Intercomm_merge(inter, color, &merged);
	EXPECT("MPI_Intercomm_merge\\(intercomm=" COMM ", high=%d, " OUT
	       "newintracomm=" COMM "\\)",
	       color);
	MPI_Comm_size(merged, &n);
	CHECK(n == size);
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", size);
	MPI_Allreduce(&rank, &v, 1, MPI_INT, MPI_SUM, merged);
	CHECK(v == size * (size - 1) / 2);
	EXPECT("MPI_Allreduce\\(sendbuf=" BUF ", " OUT "recvbuf=" BUF ", "
	       "count=1, datatype=MPI_INT, op=MPI_SUM, comm=" COMM "\\)");
	MPI_Comm_free(&merged);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	MPI_Comm_free(&inter);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	MPI_Comm_free(&half);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
}

/* Ids of freed communicators are reused: the same loop body gives the
 * same calls every time.  A rank out of every split gets MPI_COMM_NULL.
 * Two duplicates used and freed, then a third, which the library may give
 * the second one's handle: it is the first one's identity again (mpi.sh
 * compares the trace with one recorded with RONDO_MEMO=0, where no
 * wrapper reuses what it recorded for the same values). */
static void reuse(void)
{
	MPI_Comm c, d[3];
	int v = 0;

	for (int i = 0; i < 3; i++) {
		MPI_Comm_dup(WORLD, &d[i]);
		EXPECT("MPI_Comm_dup\\(comm=MPI_COMM_WORLD, " OUT
		       "newcomm=" COMM "\\)");
		MPI_Bcast(&v, 1, MPI_INT, 0, d[i]);
		EXPECT("MPI_Bcast\\(buffer=" BUF ", count=1, datatype=MPI_INT, "
		       "root=0, comm=" COMM "\\)");
		if (i == 1) {
			for (int k = 0; k < 2; k++) {
				MPI_Comm_free(&d[k]);
				EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM
				       "\\)");
			}
		}
	}
	MPI_Comm_free(&d[2]);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");

	MPI_Comm_split(WORLD, rank ? 1 : MPI_UNDEFINED, 0, &c);
	if (rank) {
		EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=1, "
		       "key=0, " OUT "newcomm=" COMM "\\)");
		MPI_Comm_free(&c);
		EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	} else {
		CHECK(c == MPI_COMM_NULL);
		EXPECT("%s", "MPI_Comm_split\\(comm=MPI_COMM_WORLD, "
			     "color=MPI_UNDEFINED, key=0, " OUT
			     "newcomm=MPI_COMM_NULL\\)");
	}

	for (int i = 0; i < 3; i++) {
		MPI_Comm_split(WORLD, 0, rank, &c);
		EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=0, "
		       "key=%d, " OUT "newcomm=c0\\)",
		       rank);
		MPI_Comm_free(&c);
		EXPECT("MPI_Comm_free\\(" OUT "comm=c0\\)");
	}
}

/* Integers that follow the rank: a split keyed by rank, a ring whose tags
 * are the sender's rank.  Rank 0 stores them relative to the caller
 * (mpi.sh checks the signatures: key=rank+0, sendtag=rank+0); the dump
 * gives the values back. */
static void rank_derived(void)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	int out = rank, in = -1, hr, hs;
	MPI_Request rq;
	MPI_Status st;
	MPI_Comm c;

	MPI_Comm_split(WORLD, rank % 2, rank, &c);
	EXPECT("MPI_Comm_split\\(comm=MPI_COMM_WORLD, color=%d, key=%d, " OUT
	       "newcomm=" COMM "\\)",
	       rank % 2, rank);
	/* A wildcard receive in the half, completed by a Wait: its status's
	 * source is a rank of the half, which the status names. */
	MPI_Comm_rank(c, &hr);
	EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT "rank=%d\\)", hr);
	MPI_Comm_size(c, &hs);
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", hs);
	MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, c, &rq);
	EXPECT("MPI_Irecv\\(" OUT "buf=" BUF ", count=1, datatype=MPI_INT, "
	       "source=MPI_ANY_SOURCE, tag=9, comm=" COMM ", " OUT
	       "request=" REQ "\\)");
	MPI_Send(&out, 1, MPI_INT, (hr + 1) % hs, 9, c);
	EXPECT("MPI_Send\\(buf=" BUF ", count=1, datatype=MPI_INT, dest=%d, "
	       "tag=9, comm=" COMM "\\)",
	       (hr + 1) % hs);
	MPI_Wait(&rq, &st);
	CHECK(st.MPI_SOURCE == (hr + hs - 1) % hs);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=status\\{"
	       "source=%d, comm=" COMM "\\}\\)",
	       st.MPI_SOURCE);
	MPI_Comm_free(&c);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	MPI_Sendrecv(&out, 1, MPI_INT, right, rank, &in, 1, MPI_INT, left, left,
		     WORLD, MPI_STATUS_IGNORE);
	CHECK(in == left);
	EXPECT("MPI_Sendrecv\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, dest=%s, sendtag=%d, " OUT "recvbuf=" BUF
	       ", recvcount=1, recvtype=MPI_INT, source=%s, recvtag=%d, "
	       "comm=MPI_COMM_WORLD, " OUT "status=" IGNORED "\\)",
	       rx_rank(right, WORLD), rank, rx_rank(left, WORLD), left);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	if (size < 2 || size > 8) {
		fprintf(stderr, "comms: 2 to 8 ranks\n");
		MPI_Abort(WORLD, 2);
	}
	dup_and_attributes();
	from_group();
	idup();
	halves();
	reuse();
	rank_derived();
	expect_finalize();
	return 0;
}
