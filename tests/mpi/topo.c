/*
 * topo.c - process topologies under the tracer, checked call by call
 * (expect.h): a Cartesian grid (periodic in one dimension), a graph and
 * distributed graphs (rings), their queries, and the neighbourhood
 * collectives on each, blocking and not.
 *
 *   mpirun -np 4 topo        (3 to 8 ranks)
 */
#include "expect.h"

#define WORLD MPI_COMM_WORLD

static int rank, size, left, right;

static void cartesian(void)
{
	int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], c2[2], d2[2];
	int p2[2], remain[2] = {1, 0}, me, nd, kind, src, dst, n;
	int s[4] = {0}, r[8], ones[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
	MPI_Comm cart, col;
	MPI_Request req;

	MPI_Dims_create(size, 2, dims);
	EXPECT("MPI_Dims_create\\(nnodes=%d, ndims=2, " OUT "dims=%s\\)", size,
	       rx_ints(2, dims));
	MPI_Cart_create(WORLD, 2, dims, periods, 0, &cart);
	EXPECT("MPI_Cart_create\\(comm_old=MPI_COMM_WORLD, ndims=2, dims=%s, "
	       "periods=\\[1, 0\\], reorder=0, " OUT "comm_cart=" COMM "\\)",
	       rx_ints(2, dims));
	MPI_Topo_test(cart, &kind);
	CHECK(kind == MPI_CART);
	EXPECT("MPI_Topo_test\\(comm=" COMM ", " OUT "status=%d\\)", MPI_CART);
	MPI_Cartdim_get(cart, &nd);
	EXPECT("MPI_Cartdim_get\\(comm=" COMM ", " OUT "ndims=2\\)");
	MPI_Comm_rank(cart, &me);
	EXPECT("MPI_Comm_rank\\(comm=" COMM ", " OUT "rank=%d\\)", me);
	MPI_Cart_coords(cart, me, 2, coords);
	CHECK(coords[0] * dims[1] + coords[1] == me);
	EXPECT("MPI_Cart_coords\\(comm=" COMM ", rank=%d, maxdims=2, " OUT
	       "coords=%s\\)",
	       me, rx_ints(2, coords));
	MPI_Cart_get(cart, 2, d2, p2, c2);
	EXPECT("MPI_Cart_get\\(comm=" COMM ", maxdims=2, " OUT "dims=%s, " OUT
	       "periods=\\[1, 0\\], " OUT "coords=%s\\)",
	       rx_ints(2, dims), rx_ints(2, coords));
	MPI_Cart_rank(cart, coords, &n);
	CHECK(n == me);
	EXPECT("MPI_Cart_rank\\(comm=" COMM ", coords=%s, " OUT "rank=%d\\)",
	       rx_ints(2, coords), me);
	for (int d = 0; d < 2; d++) {
		MPI_Cart_shift(cart, d, 1, &src, &dst);
		EXPECT("MPI_Cart_shift\\(comm=" COMM ", direction=%d, "
		       "disp=1, " OUT "rank_source=%s, " OUT "rank_dest=%s\\)",
		       d, rx_rank(src, cart), rx_rank(dst, cart));
	}
	/* 2 * ndims neighbours, MPI_PROC_NULL ones included */
	s[0] = me;
	MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, cart);
	EXPECT("MPI_Neighbor_allgather\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=1, "
	       "recvtype=MPI_INT, comm=" COMM "\\)");
	MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, cart, &req);
	EXPECT("MPI_Ineighbor_alltoall\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=1, "
	       "recvtype=MPI_INT, comm=" COMM ", " OUT "request=" REQ "\\)");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	/* Arrays as long as the in-degree: 2 * ndims */
	MPI_Neighbor_alltoallv(s, ones, displs, MPI_INT, r, ones, displs,
			       MPI_INT, cart);
	EXPECT("MPI_Neighbor_alltoallv\\(sendbuf=" BUF ", sendcounts=%s, "
	       "sdispls=%s, sendtype=MPI_INT, " OUT "recvbuf=" BUF ", "
	       "recvcounts=%s, rdispls=%s, recvtype=MPI_INT, comm=" COMM "\\)",
	       rx_ints(4, ones), rx_ints(4, displs), rx_ints(4, ones),
	       rx_ints(4, displs));
	MPI_Cart_sub(cart, remain, &col);
	EXPECT("MPI_Cart_sub\\(comm=" COMM ", remain_dims=\\[1, 0\\], " OUT
	       "newcomm=" COMM "\\)");
	MPI_Comm_size(col, &n);
	CHECK(n == dims[0]);
	EXPECT("MPI_Comm_size\\(comm=" COMM ", " OUT "size=%d\\)", dims[0]);
	MPI_Comm_free(&col);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
	MPI_Comm_free(&cart);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
}

/* A ring as an MPI-1 graph: the whole graph is given on every rank. */
static void graph(void)
{
	int index[8], edges[16], idx2[8], edg2[16], nb[2], nn, ne, k;
	int s[2] = {rank, rank}, r[2], rc[2] = {1, 1}, rd[2] = {0, 1};
	MPI_Comm g;

	for (int i = 0; i < size; i++) {
		index[i] = 2 * (i + 1);
		edges[2 * i] = (i + size - 1) % size;
		edges[2 * i + 1] = (i + 1) % size;
	}
	MPI_Graph_create(WORLD, size, index, edges, 0, &g);
	EXPECT("MPI_Graph_create\\(comm_old=MPI_COMM_WORLD, nnodes=%d, "
	       "index=%s, edges=%s, reorder=0, " OUT "comm_graph=" COMM "\\)",
	       size, rx_ints(size, index), rx_ints(2 * size, edges));
	MPI_Graphdims_get(g, &nn, &ne);
	CHECK(nn == size && ne == 2 * size);
	EXPECT("MPI_Graphdims_get\\(comm=" COMM ", " OUT "nnodes=%d, " OUT
	       "nedges=%d\\)",
	       size, 2 * size);
	MPI_Graph_get(g, size, 2 * size, idx2, edg2);
	EXPECT("MPI_Graph_get\\(comm=" COMM ", maxindex=%d, maxedges=%d, " OUT
	       "index=%s, " OUT "edges=%s\\)",
	       size, 2 * size, rx_ints(size, index), rx_ints(2 * size, edges));
	MPI_Graph_neighbors_count(g, rank, &k);
	CHECK(k == 2);
	EXPECT("MPI_Graph_neighbors_count\\(comm=" COMM ", rank=%d, " OUT
	       "nneighbors=2\\)",
	       rank);
	MPI_Graph_neighbors(g, rank, 2, nb);
	CHECK(nb[0] == left && nb[1] == right);
	EXPECT("MPI_Graph_neighbors\\(comm=" COMM ", rank=%d, "
	       "maxneighbors=2, " OUT "neighbors=%s\\)",
	       rank, rx_ranks(2, nb, g));
	MPI_Neighbor_allgatherv(s, 1, MPI_INT, r, rc, rd, MPI_INT, g);
	CHECK(r[0] == left && r[1] == right);
	EXPECT("MPI_Neighbor_allgatherv\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", "
	       "recvcounts=\\[1, 1\\], displs=\\[0, 1\\], recvtype=MPI_INT, "
	       "comm=" COMM "\\)");
	MPI_Neighbor_alltoallv(s, rc, rd, MPI_INT, r, rc, rd, MPI_INT, g);
	EXPECT("MPI_Neighbor_alltoallv\\(sendbuf=" BUF ", "
	       "sendcounts=\\[1, 1\\], sdispls=\\[0, 1\\], "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF
	       ", recvcounts=\\[1, 1\\], "
	       "rdispls=\\[0, 1\\], recvtype=MPI_INT, comm=" COMM "\\)");
	MPI_Comm_free(&g);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
}

/* The same ring as distributed graphs: each rank gives its own edges. */
#define DIST_GRAPH                                                             \
	"MPI_Dist_graph_create\\(comm_old=MPI_COMM_WORLD, n=1, "               \
	"sources=\\[%d\\], degrees=\\[1\\], destinations=\\[%s\\], "           \
	"weights=%s, info=MPI_INFO_NULL, reorder=0, " OUT                      \
	"comm_dist_graph=" COMM "\\)"

static void dist_graph(void)
{
	int nbrs[2] = {left, right}, w[2] = {3, 4}, src[2], dst[2];
	int sw[2], dw[2], in, out, weighted, one = 1, s[2] = {rank, rank};
	int r[2], rc[2] = {1, 1};
	MPI_Aint db[2] = {0, sizeof(int)};
	MPI_Datatype types[2] = {MPI_INT, MPI_INT};
	int *volatile unweighted;
	MPI_Comm dg;
	MPI_Request req;

	MPI_Dist_graph_create_adjacent(WORLD, 2, nbrs, w, 2, nbrs, w,
				       MPI_INFO_NULL, 0, &dg);
	EXPECT("MPI_Dist_graph_create_adjacent\\(comm_old=MPI_COMM_WORLD, "
	       "indegree=2, sources=%s, sourceweights=\\[3, 4\\], "
	       "outdegree=2, destinations=%s, destweights=\\[3, 4\\], "
	       "info=MPI_INFO_NULL, reorder=0, " OUT "comm_dist_graph=" COMM
	       "\\)",
	       rx_ranks(2, nbrs, WORLD), rx_ranks(2, nbrs, WORLD));
	MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
	CHECK(in == 2 && out == 2 && weighted);
	EXPECT("MPI_Dist_graph_neighbors_count\\(comm=" COMM ", " OUT
	       "indegree=2, " OUT "outdegree=2, " OUT "weighted=1\\)");
	MPI_Dist_graph_neighbors(dg, 2, src, sw, 2, dst, dw);
	CHECK(src[1] == right && dw[1] == 4);
	EXPECT("MPI_Dist_graph_neighbors\\(comm=" COMM ", maxindegree=2, " OUT
	       "sources=%s, " OUT "sourceweights=\\[3, 4\\], "
	       "maxoutdegree=2, " OUT "destinations=%s, " OUT
	       "destweights=\\[3, 4\\]\\)",
	       rx_ranks(2, nbrs, dg), rx_ranks(2, nbrs, dg));
	MPI_Neighbor_alltoallw(s, rc, db, types, r, rc, db, types, dg);
	CHECK(r[0] == left && r[1] == right);
	EXPECT("MPI_Neighbor_alltoallw\\(sendbuf=" BUF ", "
	       "sendcounts=\\[1, 1\\], sdispls=\\[0, %d\\], "
	       "sendtypes=\\[MPI_INT, MPI_INT\\], " OUT "recvbuf=" BUF ", "
	       "recvcounts=\\[1, 1\\], rdispls=\\[0, %d\\], "
	       "recvtypes=\\[MPI_INT, MPI_INT\\], comm=" COMM "\\)",
	       (int)sizeof(int), (int)sizeof(int));
	MPI_Ineighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, dg, &req);
	EXPECT("MPI_Ineighbor_allgather\\(sendbuf=" BUF ", sendcount=1, "
	       "sendtype=MPI_INT, " OUT "recvbuf=" BUF ", recvcount=1, "
	       "recvtype=MPI_INT, comm=" COMM ", " OUT "request=" REQ "\\)");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	CHECK(r[0] == left && r[1] == right);
	EXPECT("MPI_Wait\\(" OUT "request=" REQ ", " OUT "status=" IGNORED
	       "\\)");
	MPI_Comm_free(&dg);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");

	/* Each rank names one edge, to its right, unweighted.  (Through a
	 * volatile: Open MPI's MPI_UNWEIGHTED is a small integer cast to a
	 * pointer, which GCC takes for an array too short to read.) */
	unweighted = MPI_UNWEIGHTED;
	MPI_Dist_graph_create(WORLD, 1, &rank, &one, &right, unweighted,
			      MPI_INFO_NULL, 0, &dg);
	EXPECT("%s", rx_printf(DIST_GRAPH, rank, rx_rank(right, WORLD),
			       "MPI_UNWEIGHTED"));
	MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
	CHECK(in == 1 && out == 1 && !weighted);
	EXPECT("MPI_Dist_graph_neighbors_count\\(comm=" COMM ", " OUT
	       "indegree=1, " OUT "outdegree=1, " OUT "weighted=0\\)");
	MPI_Comm_free(&dg);
	EXPECT("MPI_Comm_free\\(" OUT "comm=" COMM "\\)");
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	expect_start(&rank, &size);
	if (size < 3 || size > 8) {
		fprintf(stderr, "topo: 3 to 8 ranks\n");
		MPI_Abort(WORLD, 2);
	}
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	cartesian();
	graph();
	dist_graph();
	expect_finalize();
	return 0;
}
