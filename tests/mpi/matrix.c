/*
 * matrix.c - MPI programs that know the communication matrix they make,
 * for tests/matrix.sh (the known answers of `rondo matrix`).
 *
 * Every message a rank sends is recorded as it is made: sender and
 * receiver as world ranks, function, tag, communicator (a label), one
 * message and its bytes, by the conventions of `rondo matrix`: a send at
 * its sender, count times MPI_Type_size, none to MPI_PROC_NULL; a
 * collective as what each member contributes to each other member (one
 * message per call where that count is above 0).  Receivers record what
 * they got (from their statuses); rank 0 gathers every row, checks that
 * the point-to-point messages received are those recorded as sent, and
 * writes the rows as CSV (kind p: point-to-point, c: collective,
 * r: received).  A persistent send is named by its start and its init
 * ("MPI_Startall/MPI_Send_init"): `--function` may name either.  The
 * bookkeeping goes through PMPI_, so the trace holds the mode's calls alone.
 *
 *   mpirun -np N matrix MODE EVENTS.csv [ITERATIONS]     (default 20)
 *
 * MODE: ring, stencil, pstencil (periodic), alltoall (collectives and a
 * Sendrecv), irregular, split, wildcard, persistent.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORLD MPI_COMM_WORLD

struct row {
	char kind; /* 'p', 'c' or 'r' */
	char func[31];
	char comm[12];
	int src, dst, tag;
	long long msgs, bytes;
};

static struct row *rows;
static int nrows, cap;
static int me, np;

/* Adds one message of `bytes` to the row of its key. */
static void add(char kind, int src, int dst, const char *func, int tag,
		const char *comm, long long bytes)
{
	struct row *r;

	for (int i = 0; i < nrows; i++) {
		r = &rows[i];
		if (r->kind == kind && r->src == src && r->dst == dst &&
		    r->tag == tag && !strcmp(r->func, func) &&
		    !strcmp(r->comm, comm)) {
			r->msgs++;
			r->bytes += bytes;
			return;
		}
	}
	if (nrows == cap) {
		cap = cap ? 2 * cap : 64;
		rows = realloc(rows, (size_t)cap * sizeof *rows);
		if (!rows)
			PMPI_Abort(WORLD, 2);
	}
	r = &rows[nrows++];
	memset(r, 0, sizeof *r);
	r->kind = kind;
	snprintf(r->func, sizeof r->func, "%s", func);
	snprintf(r->comm, sizeof r->comm, "%s", comm);
	r->src = src;
	r->dst = dst;
	r->tag = tag;
	r->msgs = 1;
	r->bytes = bytes;
}

/* The world rank of rank r of communicator c. */
static int world_of(MPI_Comm c, int r)
{
	MPI_Group g, w;
	int out;

	PMPI_Comm_group(c, &g);
	PMPI_Comm_group(WORLD, &w);
	PMPI_Group_translate_ranks(g, 1, &r, w, &out);
	PMPI_Group_free(&g);
	PMPI_Group_free(&w);
	return out;
}

static long long tsize(MPI_Datatype t)
{
	int s;

	PMPI_Type_size(t, &s);
	return s;
}

/* A send of count elements of type t to rank dest of c. */
static void sent(const char *func, const char *label, MPI_Comm c, int dest,
		 int tag, int count, MPI_Datatype t)
{
	if (dest != MPI_PROC_NULL)
		add('p', me, world_of(c, dest), func, tag, label,
		    count * tsize(t));
}

/* What a receive on c got, by its status. */
static void got(MPI_Comm c, const MPI_Status *st, MPI_Datatype t)
{
	int n;

	if (st->MPI_SOURCE == MPI_PROC_NULL)
		return;
	PMPI_Get_count(st, t, &n);
	add('r', world_of(c, st->MPI_SOURCE), me, "recv", st->MPI_TAG, "-",
	    n * tsize(t));
}

/* A collective's contribution of count elements of t to rank `to` of c. */
static void coll_to(const char *func, MPI_Comm c, int to, int count,
		    MPI_Datatype t)
{
	int r;

	PMPI_Comm_rank(c, &r);
	if (to != r && count > 0)
		add('c', me, world_of(c, to), func, -1, "world",
		    count * tsize(t));
}

/* The same contribution to every other member of c. */
static void coll_all(const char *func, MPI_Comm c, int count, MPI_Datatype t)
{
	int n;

	PMPI_Comm_size(c, &n);
	for (int j = 0; j < n; j++)
		coll_to(func, c, j, count, t);
}

/* A ring of blocking sends; even ranks send first, odd ones receive. */
static void ring(int iters)
{
	int next = (me + 1) % np, prev = (me + np - 1) % np;
	int out[64] = {0}, in[64];
	MPI_Request self;
	MPI_Status st;

	for (int it = 0; it < iters; it++) {
		int n = 1 + me + it % 3, tag = it % 2;

		if (me % 2)
			MPI_Recv(in, 64, MPI_INT, prev, tag, WORLD, &st);
		/* alone, a rank sends to itself: a blocking send may wait for
		 * its receive (MPI does not promise buffering; Open MPI
		 * buffers a small message, MPICH 4.0 waits), so that receive
		 * is posted first */
		if (np == 1)
			MPI_Irecv(in, 64, MPI_INT, prev, tag, WORLD, &self);
		MPI_Send(out, n, MPI_INT, next, tag, WORLD);
		sent("MPI_Send", "world", WORLD, next, tag, n, MPI_INT);
		if (np == 1)
			MPI_Wait(&self, &st);
		else if (me % 2 == 0)
			MPI_Recv(in, 64, MPI_INT, prev, tag, WORLD, &st);
		got(WORLD, &st, MPI_INT);
	}
}

/* A 2-D 5-point halo exchange on MPI_Dims_create's grid; the halos along
 * the two dimensions differ in length. */
static void stencil(int iters, int periodic)
{
	int dims[2] = {0, 0}, periods[2] = {periodic, periodic}, nb[4];
	int len[4] = {6, 6, 4, 4};
	double out[4][8] = {{0}}, in[4][8];
	MPI_Request req[8];
	MPI_Status st[8];
	MPI_Comm cart;

	MPI_Dims_create(np, 2, dims);
	MPI_Cart_create(WORLD, 2, dims, periods, 1, &cart);
	MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
	MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);
	for (int it = 0; it < iters; it++) {
		/* what goes to the lower neighbour arrives from its upper */
		for (int d = 0; d < 4; d++)
			MPI_Irecv(in[d], len[d], MPI_DOUBLE, nb[d], d, cart,
				  &req[d]);
		for (int d = 0; d < 4; d++) {
			MPI_Isend(out[d], len[d], MPI_DOUBLE, nb[d], d ^ 1,
				  cart, &req[4 + d]);
			sent("MPI_Isend", "cart", cart, nb[d], d ^ 1, len[d],
			     MPI_DOUBLE);
		}
		MPI_Waitall(8, req, st);
		/* a receive from MPI_PROC_NULL got nothing: known by the
		 * neighbour posted, not by its status, which MPI says names
		 * MPI_PROC_NULL but MPICH 4.0.2 gives source 0 and tag 0 for
		 * an Irecv's (MPICH issue 6805) */
		for (int d = 0; d < 4; d++)
			if (nb[d] != MPI_PROC_NULL)
				got(cart, &st[d], MPI_DOUBLE);
	}
	MPI_Comm_free(&cart);
}

/* Scratch for the collectives: counts and displacements, types, data. */
struct coll {
	int *sc, *rc, *sd, *rd;
	MPI_Datatype *st, *rt;
	double *a, *b;
	int *ia, *ib; /* a and b as ints */
};

/* The all-to-all family, counts by rank, peer and iteration. */
static void coll_alltoall(int it, struct coll *c)
{
	MPI_Alltoall(c->ia, 2, MPI_INT, c->ib, 2, MPI_INT, WORLD);
	coll_all("MPI_Alltoall", WORLD, 2, MPI_INT);
	MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->b, 3, MPI_DOUBLE,
		     WORLD);
	coll_all("MPI_Alltoall", WORLD, 3, MPI_DOUBLE);
	for (int j = 0; j < np; j++) {
		c->sc[j] = (me + 2 * j + it) % 4;
		c->rc[j] = (j + 2 * me + it) % 4;
		c->sd[j] = c->rd[j] = 4 * j;
		coll_to("MPI_Alltoallv", WORLD, j, c->sc[j], MPI_DOUBLE);
	}
	MPI_Alltoallv(c->a, c->sc, c->sd, MPI_DOUBLE, c->b, c->rc, c->rd,
		      MPI_DOUBLE, WORLD);
	/* to rank j in j's type, 1 to 3 of them; displacements in bytes */
	for (int j = 0; j < np; j++) {
		c->sc[j] = c->rc[j] = 1 + (me + j + it) % 3;
		c->sd[j] = c->rd[j] = 32 * j;
		c->st[j] = j % 2 ? MPI_DOUBLE : MPI_INT;
		c->rt[j] = me % 2 ? MPI_DOUBLE : MPI_INT;
		coll_to("MPI_Alltoallw", WORLD, j, c->sc[j], c->st[j]);
	}
	MPI_Alltoallw(c->a, c->sc, c->sd, c->st, c->b, c->rc, c->rd, c->rt,
		      WORLD);
}

/* The collectives with a root, which are not all rank 0. */
static void coll_rooted(int it, struct coll *c)
{
	int root = np - 1;
	MPI_Request req;

	MPI_Bcast(c->a, 3 + it % 2, MPI_DOUBLE, 1 % np, WORLD);
	if (me == 1 % np)
		coll_all("MPI_Bcast", WORLD, 3 + it % 2, MPI_DOUBLE);
	MPI_Ibcast(c->ia, 2, MPI_INT, 0, WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	if (me == 0)
		coll_all("MPI_Ibcast", WORLD, 2, MPI_INT);
	MPI_Reduce(c->ia, c->ib, 4, MPI_INT, MPI_SUM, root, WORLD);
	coll_to("MPI_Reduce", WORLD, root, 4, MPI_INT);
	MPI_Gather(c->ia, 3, MPI_INT, c->ib, 3, MPI_INT, root, WORLD);
	coll_to("MPI_Gather", WORLD, root, 3, MPI_INT);
	for (int i = 0; i < np; i++) {
		c->rc[i] = 1 + i % 3;
		c->rd[i] = 4 * i;
	}
	MPI_Gatherv(c->a, 1 + me % 3, MPI_DOUBLE, c->b, c->rc, c->rd,
		    MPI_DOUBLE, 0, WORLD);
	coll_to("MPI_Gatherv", WORLD, 0, 1 + me % 3, MPI_DOUBLE);
	MPI_Scatter(c->a, 2, MPI_DOUBLE, c->b, 2, MPI_DOUBLE, 0, WORLD);
	if (me == 0)
		coll_all("MPI_Scatter", WORLD, 2, MPI_DOUBLE);
	root = 2 % np;
	for (int i = 0; i < np; i++) {
		c->sc[i] = (i + it) % 3;
		c->sd[i] = 4 * i;
		if (me == root)
			coll_to("MPI_Scatterv", WORLD, i, c->sc[i], MPI_INT);
	}
	MPI_Scatterv(c->ia, c->sc, c->sd, MPI_INT, c->ib, (me + it) % 3,
		     MPI_INT, root, WORLD);
}

/* The gathers to all, reductions and scans, a Barrier (nothing) and a
 * Sendrecv ring (point-to-point beside the collectives). */
static void coll_others(int it, struct coll *c)
{
	MPI_Status s;

	MPI_Allreduce(c->a, c->b, 2, MPI_DOUBLE, MPI_SUM, WORLD);
	coll_all("MPI_Allreduce", WORLD, 2, MPI_DOUBLE);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->b, 2, MPI_DOUBLE,
		      WORLD);
	coll_all("MPI_Allgather", WORLD, 2, MPI_DOUBLE);
	for (int i = 0; i < np; i++) {
		c->rc[i] = 1 + i % 2;
		c->rd[i] = 2 * i;
	}
	MPI_Allgatherv(c->ia, 1 + me % 2, MPI_INT, c->ib, c->rc, c->rd, MPI_INT,
		       WORLD);
	coll_all("MPI_Allgatherv", WORLD, 1 + me % 2, MPI_INT);
	MPI_Reduce_scatter_block(c->ia, c->ib, 2, MPI_INT, MPI_SUM, WORLD);
	coll_all("MPI_Reduce_scatter_block", WORLD, 2, MPI_INT);
	for (int j = 0; j < np; j++) {
		c->rc[j] = 1 + (j + it) % 2;
		coll_to("MPI_Reduce_scatter", WORLD, j, c->rc[j], MPI_DOUBLE);
	}
	MPI_Reduce_scatter(c->a, c->b, c->rc, MPI_DOUBLE, MPI_SUM, WORLD);
	MPI_Scan(c->a, c->b, 1, MPI_DOUBLE, MPI_SUM, WORLD);
	for (int j = me + 1; j < np; j++)
		coll_to("MPI_Scan", WORLD, j, 1, MPI_DOUBLE);
	MPI_Exscan(c->ia, c->ib, 2, MPI_INT, MPI_SUM, WORLD);
	for (int j = me + 1; j < np; j++)
		coll_to("MPI_Exscan", WORLD, j, 2, MPI_INT);
	MPI_Barrier(WORLD);
	MPI_Sendrecv(c->a, 1 + me % 2, MPI_DOUBLE, (me + 1) % np, 3, c->b, 4,
		     MPI_DOUBLE, (me + np - 1) % np, 3, WORLD, &s);
	sent("MPI_Sendrecv", "world", WORLD, (me + 1) % np, 3, 1 + me % 2,
	     MPI_DOUBLE);
	got(WORLD, &s, MPI_DOUBLE);
}

/* Every collective once an iteration. */
static void alltoall(int iters)
{
	size_t n = (size_t)np;
	int *v = calloc(4 * n, sizeof(int));
	MPI_Datatype *t = calloc(2 * n, sizeof *t);
	struct coll c;

	c.a = calloc(8 * n + 16, sizeof(double));
	c.b = calloc(8 * n + 16, sizeof(double));
	if (!v || !t || !c.a || !c.b)
		PMPI_Abort(WORLD, 2);
	c.sc = v;
	c.rc = v + n;
	c.sd = v + 2 * n;
	c.rd = v + 3 * n;
	c.st = t;
	c.rt = t + n;
	c.ia = (int *)c.a;
	c.ib = (int *)c.b;
	for (int it = 0; it < iters; it++) {
		coll_alltoall(it, &c);
		coll_rooted(it, &c);
		coll_others(it, &c);
	}
	free(v);
	free(t);
	free(c.a);
	free(c.b);
}

/* irregular: who sends what to whom in an iteration, known to all. */
static int plan_peer(int src, int dst, int it)
{
	return (src + 2 * dst + it / 5) % 3 != 0;
}

static int plan_count(int src, int dst, int it)
{
	return (src * 3 + dst * 5 + it) % 7;
}

/* 0 MPI_INT, 1 MPI_DOUBLE, 2 the sender's vector of doubles, 3 its
 * contiguous ints */
static int plan_type(int src, int dst, int it)
{
	return (src + dst + it / 2) % 4;
}

static const char *const send_funcs[] = {
	"MPI_Send",  "MPI_Ssend",  "MPI_Bsend",	 "MPI_Rsend",
	"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend",
};

/* One send of plan's function; a request for the nonblocking ones. */
static void plan_send(int f, void *buf, int n, MPI_Datatype t, int dst, int tag,
		      MPI_Request *req)
{
	switch (f) {
	case 0: MPI_Send(buf, n, t, dst, tag, WORLD); break;
	case 1: MPI_Ssend(buf, n, t, dst, tag, WORLD); break;
	case 2: MPI_Bsend(buf, n, t, dst, tag, WORLD); break;
	case 3: MPI_Rsend(buf, n, t, dst, tag, WORLD); break;
	case 4: MPI_Isend(buf, n, t, dst, tag, WORLD, req); break;
	case 5: MPI_Issend(buf, n, t, dst, tag, WORLD, req); break;
	case 6: MPI_Ibsend(buf, n, t, dst, tag, WORLD, req); break;
	case 7: MPI_Irsend(buf, n, t, dst, tag, WORLD, req); break;
	}
}

/* Receives posted for the plan's messages to this rank, the one on
 * MPI_COMM_SELF and the count 0 sends; returns how many. */
static int irregular_recvs(int it, double (*in)[64], MPI_Datatype *rt,
			   MPI_Request *req)
{
	int k = 0, t;

	for (int src = 0; src < np; src++) {
		if (!plan_peer(src, me, it))
			continue;
		t = plan_type(src, me, it);
		rt[k] = t == 1 || t == 2 ? MPI_DOUBLE : MPI_INT;
		MPI_Irecv(in[src], 64, rt[k], src, 10 + (src + it) % 5, WORLD,
			  &req[k]);
		k++;
	}
	rt[k] = MPI_DOUBLE;
	MPI_Irecv(in[np], 64, MPI_DOUBLE, 0, 99, MPI_COMM_SELF, &req[k++]);
	return k;
}

static void irregular_iter(int it, double (*in)[64], double *out,
			   MPI_Datatype *rt, MPI_Request *req, MPI_Status *st)
{
	int nr, k, tag;
	MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE}, t;

	MPI_Type_vector(2 + me % 2, 2, 3, MPI_DOUBLE, &types[2]);
	MPI_Type_commit(&types[2]);
	MPI_Type_contiguous(1 + (me + it) % 3, MPI_INT, &types[3]);
	MPI_Type_commit(&types[3]);
	k = nr = irregular_recvs(it, in, rt, req);
	/* every receive is posted before a ready send starts */
	MPI_Barrier(WORLD);
	for (int i = 1; i <= np; i++) {
		int dst = (me + i) % np, f = (me * 7 + dst * 3 + it) % 8;
		int n = plan_count(me, dst, it);

		if (!plan_peer(me, dst, it))
			continue;
		t = types[plan_type(me, dst, it)];
		tag = 10 + (me + it) % 5;
		plan_send(f, out, n, t, dst, tag, &req[k]);
		k += f >= 4;
		sent(send_funcs[f], "world", WORLD, dst, tag, n, t);
	}
	if (it % 2)
		MPI_Ssend(out, 5, MPI_INT, MPI_PROC_NULL, 1, WORLD);
	else
		MPI_Isend(out, 5, MPI_INT, MPI_PROC_NULL, 1, WORLD, &req[k++]);
	MPI_Isend(out, 1 + it % 2, MPI_DOUBLE, 0, 99, MPI_COMM_SELF, &req[k++]);
	sent("MPI_Isend", "self", MPI_COMM_SELF, 0, 99, 1 + it % 2, MPI_DOUBLE);
	MPI_Waitall(k, req, st);
	for (int i = 0; i < nr - 1; i++)
		got(WORLD, &st[i], rt[i]);
	got(MPI_COMM_SELF, &st[nr - 1], MPI_DOUBLE);
	MPI_Type_free(&types[2]);
	MPI_Type_free(&types[3]);

	/* shifts by an iteration's distance, and by 2 */
	k = 1 + it % np;
	MPI_Sendrecv(out, 1 + (me + it) % 4, MPI_INT, (me + k) % np, 20, in[0],
		     8, MPI_INT, (me + np - k) % np, 20, WORLD, &st[0]);
	sent("MPI_Sendrecv", "world", WORLD, (me + k) % np, 20,
	     1 + (me + it) % 4, MPI_INT);
	got(WORLD, &st[0], MPI_INT);
	MPI_Sendrecv_replace(in[1], 3, MPI_DOUBLE, (me + 2) % np, 21,
			     (me + np - 2 % np) % np, 21, WORLD, &st[0]);
	sent("MPI_Sendrecv_replace", "world", WORLD, (me + 2) % np, 21, 3,
	     MPI_DOUBLE);
	got(WORLD, &st[0], MPI_DOUBLE);
}

/* Each rank to a rank-dependent set of peers, with every kind of send,
 * counts (0 too) by peer and iteration, and types made in the loop. */
static void irregular(int iters)
{
	size_t n = (size_t)np + 1;
	int bsize = 1 << 16;
	double(*in)[64] = calloc(n, sizeof *in), out[64] = {0};
	MPI_Datatype *rt = calloc(n, sizeof *rt);
	MPI_Request *req = calloc(2 * n + 2, sizeof *req);
	MPI_Status *st = calloc(2 * n + 2, sizeof *st);
	void *bbuf = malloc((size_t)bsize);

	if (!in || !rt || !req || !st || !bbuf)
		PMPI_Abort(WORLD, 2);
	MPI_Buffer_attach(bbuf, bsize);
	for (int it = 0; it < iters; it++)
		irregular_iter(it, in, out, rt, req, st);
	MPI_Buffer_detach(&bbuf, &bsize);
	free(bbuf);
	free(in);
	free(rt);
	free(req);
	free(st);
}

/* Rings on a split by parity (ranks in reverse order), on a communicator
 * made from a group (world ranks not 1 mod 3, in reverse order) and on
 * the world. */
static void split(int iters)
{
	int hr, hs, cr = 0, cs = 0, m = 0, *ranks = malloc(sizeof(int) * np);
	int out[16] = {0}, in[3][16];
	MPI_Comm half, made;
	MPI_Group wg, g;
	MPI_Request req[4];
	MPI_Status st[4];

	if (!ranks)
		PMPI_Abort(WORLD, 2);
	MPI_Comm_split(WORLD, me % 2, np - me, &half);
	MPI_Comm_rank(half, &hr);
	MPI_Comm_size(half, &hs);
	for (int i = np - 1; i >= 0; i--)
		if (i % 3 != 1)
			ranks[m++] = i;
	MPI_Comm_group(WORLD, &wg);
	MPI_Group_incl(wg, m, ranks, &g);
	MPI_Comm_create(WORLD, g, &made);
	if (made != MPI_COMM_NULL) {
		MPI_Comm_rank(made, &cr);
		MPI_Comm_size(made, &cs);
	}
	for (int it = 0; it < iters; it++) {
		int n = 2 + hr % 3 + it % 2, next = (hr + 1) % hs;

		MPI_Irecv(in[0], 16, MPI_INT, (hr + hs - 1) % hs, 5, half,
			  &req[0]);
		MPI_Isend(out, n, MPI_INT, next, 5, half, &req[1]);
		sent("MPI_Isend", "half", half, next, 5, n, MPI_INT);
		MPI_Irecv(in[1], 16, MPI_INT, (me + np - 1) % np, 7, WORLD,
			  &req[2]);
		MPI_Isend(out, 1, MPI_INT, (me + 1) % np, 7, WORLD, &req[3]);
		sent("MPI_Isend", "world", WORLD, (me + 1) % np, 7, 1, MPI_INT);
		MPI_Waitall(4, req, st);
		got(half, &st[0], MPI_INT);
		got(WORLD, &st[2], MPI_INT);
		if (made == MPI_COMM_NULL)
			continue;
		MPI_Sendrecv(out, 1 + cr, MPI_DOUBLE, (cr + 1) % cs, 6, in[2],
			     8, MPI_DOUBLE, (cr + cs - 1) % cs, 6, made,
			     &st[0]);
		sent("MPI_Sendrecv", "made", made, (cr + 1) % cs, 6, 1 + cr,
		     MPI_DOUBLE);
		got(made, &st[0], MPI_DOUBLE);
	}
	if (made != MPI_COMM_NULL)
		MPI_Comm_free(&made);
	MPI_Comm_free(&half);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	free(ranks);
}

/* Receives from any source with any tag: every rank but 0 sends rank 0
 * a message whose tag and length change, and a ring of tags it % 4. */
static void wildcard(int iters)
{
	static int in[64][16];
	int out[16] = {0};
	MPI_Request req[64];
	MPI_Status st[64];

	if (np > 60)
		PMPI_Abort(WORLD, 2);
	for (int it = 0; it < iters; it++) {
		int nr = me == 0 ? np : 1, k = nr, n = 1 + me + it % 3;

		for (int i = 0; i < nr; i++)
			MPI_Irecv(in[i], 16, MPI_INT, MPI_ANY_SOURCE,
				  MPI_ANY_TAG, WORLD, &req[i]);
		MPI_Isend(out, 2, MPI_INT, (me + 1) % np, it % 4, WORLD,
			  &req[k++]);
		sent("MPI_Isend", "world", WORLD, (me + 1) % np, it % 4, 2,
		     MPI_INT);
		if (me) {
			MPI_Send(out, n, MPI_INT, 0, 100 + me + it % 3, WORLD);
			sent("MPI_Send", "world", WORLD, 0, 100 + me + it % 3,
			     n, MPI_INT);
		}
		MPI_Waitall(k, req, st);
		for (int i = 0; i < nr; i++)
			got(WORLD, &st[i], MPI_INT);
	}
}

/* Persistent requests: two sends and two receives started together every
 * iteration, a synchronous pair started one by one every other one. */
static void persistent(int iters)
{
	int next = (me + 1) % np, prev = (me + np - 1) % np;
	int n2 = (me + 2) % np, p2 = (me + np - 2 % np) % np;
	double d[16] = {0}, din[16];
	int i1[16] = {0}, iin[16], i2[4] = {0}, iin2[4];
	MPI_Request r[4], s[2];
	MPI_Status st[4];

	MPI_Send_init(d, 1 + me, MPI_DOUBLE, next, 1, WORLD, &r[0]);
	MPI_Send_init(i1, 2 * me + 3, MPI_INT, prev, 2, WORLD, &r[1]);
	MPI_Recv_init(din, 16, MPI_DOUBLE, prev, 1, WORLD, &r[2]);
	MPI_Recv_init(iin, 16, MPI_INT, next, 2, WORLD, &r[3]);
	MPI_Ssend_init(i2, 4, MPI_INT, n2, 3, WORLD, &s[0]);
	MPI_Recv_init(iin2, 4, MPI_INT, p2, 3, WORLD, &s[1]);
	for (int it = 0; it < iters; it++) {
		MPI_Startall(4, r);
		sent("MPI_Startall/MPI_Send_init", "world", WORLD, next, 1,
		     1 + me, MPI_DOUBLE);
		sent("MPI_Startall/MPI_Send_init", "world", WORLD, prev, 2,
		     2 * me + 3, MPI_INT);
		MPI_Waitall(4, r, st);
		got(WORLD, &st[2], MPI_DOUBLE);
		got(WORLD, &st[3], MPI_INT);
		if (it % 2)
			continue;
		MPI_Start(&s[1]);
		MPI_Start(&s[0]);
		sent("MPI_Start/MPI_Ssend_init", "world", WORLD, n2, 3, 4,
		     MPI_INT);
		MPI_Waitall(2, s, st);
		got(WORLD, &st[1], MPI_INT);
	}
	for (int i = 0; i < 4; i++)
		MPI_Request_free(&r[i]);
	MPI_Request_free(&s[0]);
	MPI_Request_free(&s[1]);
}

/* Rank 0: point-to-point messages and bytes received from each sender
 * must be those recorded as sent; prints the first that differ. */
static int check_received(const struct row *all, int n)
{
	size_t cells = (size_t)np * np;
	long long *v = calloc(4 * cells, sizeof *v);
	int bad = 0;

	if (!v)
		return 1;
	for (int i = 0; i < n; i++) {
		size_t at = (size_t)all[i].src * np + all[i].dst;

		if (all[i].kind == 'p' || all[i].kind == 'r') {
			at += all[i].kind == 'r' ? 2 * cells : 0;
			v[at] += all[i].msgs;
			v[at + cells] += all[i].bytes;
		}
	}
	for (size_t c = 0; c < cells && !bad; c++)
		if (v[c] != v[c + 2 * cells] ||
		    v[c + cells] != v[c + 3 * cells]) {
			fprintf(stderr,
				"matrix: %zu -> %zu: sent %lld messages "
				"%lld bytes, received %lld, %lld\n",
				c / np, c % np, v[c], v[c + cells],
				v[c + 2 * cells], v[c + 3 * cells]);
			bad = 1;
		}
	free(v);
	return bad;
}

/* Gathers every rank's rows to rank 0, which checks and writes them. */
static int write_rows(const char *mode, const char *path)
{
	int *counts = NULL, *displs = NULL, total = 0, sz = sizeof(struct row);
	struct row *all = NULL;
	long long msgs[2] = {0, 0};
	FILE *f;

	if (me == 0) {
		counts = calloc((size_t)np, sizeof *counts);
		displs = calloc((size_t)np, sizeof *displs);
		if (!counts || !displs)
			PMPI_Abort(WORLD, 2);
	}
	nrows *= sz;
	PMPI_Gather(&nrows, 1, MPI_INT, counts, 1, MPI_INT, 0, WORLD);
	for (int i = 0; me == 0 && i < np; i++) {
		displs[i] = total;
		total += counts[i];
	}
	if (me == 0 && !(all = malloc((size_t)total + 1)))
		PMPI_Abort(WORLD, 2);
	PMPI_Gatherv(rows, nrows, MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
		     WORLD);
	if (me)
		return 0;
	total /= sz;
	if (check_received(all, total))
		return 1;
	if (!(f = fopen(path, "w"))) {
		perror(path);
		return 1;
	}
	fprintf(f, "kind,src,dst,function,tag,comm,messages,bytes\n");
	for (int i = 0; i < total; i++) {
		const struct row *r = &all[i];

		fprintf(f, "%c,%d,%d,%s,%d,%s,%lld,%lld\n", r->kind, r->src,
			r->dst, r->func, r->tag, r->comm, r->msgs, r->bytes);
		if (r->kind != 'r')
			msgs[r->kind == 'c'] += r->msgs;
	}
	if (fclose(f)) {
		perror(path);
		return 1;
	}
	printf("matrix %s: %d ranks, %lld point-to-point messages, %lld "
	       "collective contributions, received as sent\n",
	       mode, np, msgs[0], msgs[1]);
	free(all);
	free(counts);
	free(displs);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(int);
	} modes[] = {
		{"ring", ring},		  {"alltoall", alltoall},
		{"irregular", irregular}, {"split", split},
		{"wildcard", wildcard},	  {"persistent", persistent},
	};
	int iters = argc > 3 ? atoi(argv[3]) : 20, status = 0, found = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(WORLD, &me);
	MPI_Comm_size(WORLD, &np);
	if (argc < 3) {
		if (me == 0)
			fprintf(stderr, "usage: matrix MODE EVENTS.csv "
					"[ITERATIONS]\n");
		MPI_Finalize();
		return 2;
	}
	if (!strcmp(argv[1], "stencil") || !strcmp(argv[1], "pstencil")) {
		stencil(iters, argv[1][0] == 'p');
		found = 1;
	}
	for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
		if (!strcmp(argv[1], modes[i].name)) {
			modes[i].run(iters);
			found = 1;
		}
	if (!found) {
		if (me == 0)
			fprintf(stderr, "matrix: no mode '%s'\n", argv[1]);
		status = 2;
	} else {
		status = write_rows(argv[1], argv[2]);
	}
	MPI_Finalize();
	return status;
}
