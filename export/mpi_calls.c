/*
 * mpi_calls.c - what each MPI function is to the formats (its region
 * role, its messages and requests, its collective), and the bytes a
 * collective sends and receives as Score-P counts them, so that a rondo
 * export and a Score-P trace of the same run say the same in Vampir.
 *
 * Score-P's conventions (its scorep_mpi_coll_bytes_* and their tests), c
 * a rank's count times its datatype's size, N the communicator's size,
 * me the caller's rank in it:
 *   Bcast        root sends N*c, every rank receives c;
 *   Gather(v)    every rank sends c, the root receives N*c (v: the sum);
 *   Scatter(v)   the root sends N*c (v: the sum), every rank receives c;
 *   Reduce       every rank sends c, the root receives N*c;
 *   Allgather    sends N*c, receives N*c (v: the sum of recvcounts);
 *   Alltoall     sends N*c, receives N*c (v, w: the sums);
 *   Allreduce    sends N*c, receives N*c; Reduce_scatter_block the same;
 *   Reduce_scatter sends the sum of recvcounts, receives N*recvcounts[me];
 *   Scan         sends (N-me)*c, receives (me+1)*c; Exscan one less each;
 *   Barrier      nothing.
 * With MPI_IN_PLACE a rank moves nothing to itself: its own share is
 * left out where it is a rank's own (the root's send of a Gather, its
 * receive of a Scatter; N-1 shares for the all-to-all kinds).
 */
#include <string.h>

#include "args.h"
#include "export_int.h"
#include "util.h"

#define R_O EX_ROLE_OTHER
#define R_P EX_ROLE_P2P

static const struct ex_fn fns[] = {
	{"MPI_Send", R_P, P_SEND, EX_NO_COLL},
	{"MPI_Ssend", R_P, P_SEND, EX_NO_COLL},
	{"MPI_Bsend", R_P, P_SEND, EX_NO_COLL},
	{"MPI_Rsend", R_P, P_SEND, EX_NO_COLL},
	{"MPI_Isend", R_P, P_ISEND, EX_NO_COLL},
	{"MPI_Issend", R_P, P_ISEND, EX_NO_COLL},
	{"MPI_Ibsend", R_P, P_ISEND, EX_NO_COLL},
	{"MPI_Irsend", R_P, P_ISEND, EX_NO_COLL},
	{"MPI_Recv", R_P, P_RECV, EX_NO_COLL},
	{"MPI_Sendrecv", R_P, P_SENDRECV, EX_NO_COLL},
	{"MPI_Sendrecv_replace", R_P, P_SENDRECV, EX_NO_COLL},
	{"MPI_Irecv", R_P, P_IRECV, EX_NO_COLL},
	{"MPI_Isendrecv", R_P, P_ISENDRECV, EX_NO_COLL},
	{"MPI_Isendrecv_replace", R_P, P_ISENDRECV, EX_NO_COLL},
	{"MPI_Send_init", R_P, P_SINIT, EX_NO_COLL},
	{"MPI_Ssend_init", R_P, P_SINIT, EX_NO_COLL},
	{"MPI_Bsend_init", R_P, P_SINIT, EX_NO_COLL},
	{"MPI_Rsend_init", R_P, P_SINIT, EX_NO_COLL},
	{"MPI_Recv_init", R_P, P_RINIT, EX_NO_COLL},
	{"MPI_Start", R_P, P_START, EX_NO_COLL},
	{"MPI_Startall", R_P, P_STARTALL, EX_NO_COLL},
	{"MPI_Mprobe", R_P, P_MPROBE, EX_NO_COLL},
	{"MPI_Improbe", R_P, P_MPROBE, EX_NO_COLL},
	{"MPI_Mrecv", R_P, P_MRECV, EX_NO_COLL},
	{"MPI_Imrecv", R_P, P_IMRECV, EX_NO_COLL},
	{"MPI_Probe", R_P, P_NONE, EX_NO_COLL},
	{"MPI_Iprobe", R_P, P_NONE, EX_NO_COLL},
	{"MPI_Wait", R_O, P_WAIT, EX_NO_COLL},
	{"MPI_Waitall", R_O, P_WAITALL, EX_NO_COLL},
	{"MPI_Waitany", R_O, P_WAITANY, EX_NO_COLL},
	{"MPI_Waitsome", R_O, P_WAITSOME, EX_NO_COLL},
	{"MPI_Test", R_O, P_TEST, EX_NO_COLL},
	{"MPI_Testall", R_O, P_TESTALL, EX_NO_COLL},
	{"MPI_Testany", R_O, P_TESTANY, EX_NO_COLL},
	{"MPI_Testsome", R_O, P_TESTSOME, EX_NO_COLL},
	{"MPI_Request_free", R_O, P_FREE, EX_NO_COLL},
	{"MPI_Barrier", EX_ROLE_BARRIER, P_NONE, EX_COLL_BARRIER},
	{"MPI_Ibarrier", EX_ROLE_BARRIER, P_NONE, EX_NO_COLL},
	{"MPI_Bcast", EX_ROLE_ONE2ALL, P_NONE, EX_COLL_BCAST},
	{"MPI_Ibcast", EX_ROLE_ONE2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Scatter", EX_ROLE_ONE2ALL, P_NONE, EX_COLL_SCATTER},
	{"MPI_Iscatter", EX_ROLE_ONE2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Scatterv", EX_ROLE_ONE2ALL, P_NONE, EX_COLL_SCATTERV},
	{"MPI_Iscatterv", EX_ROLE_ONE2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Gather", EX_ROLE_ALL2ONE, P_NONE, EX_COLL_GATHER},
	{"MPI_Igather", EX_ROLE_ALL2ONE, P_NONE, EX_NO_COLL},
	{"MPI_Gatherv", EX_ROLE_ALL2ONE, P_NONE, EX_COLL_GATHERV},
	{"MPI_Igatherv", EX_ROLE_ALL2ONE, P_NONE, EX_NO_COLL},
	{"MPI_Reduce", EX_ROLE_ALL2ONE, P_NONE, EX_COLL_REDUCE},
	{"MPI_Ireduce", EX_ROLE_ALL2ONE, P_NONE, EX_NO_COLL},
	{"MPI_Allgather", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLGATHER},
	{"MPI_Iallgather", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Allgatherv", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLGATHERV},
	{"MPI_Iallgatherv", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Alltoall", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLTOALL},
	{"MPI_Ialltoall", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Alltoallv", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLTOALLV},
	{"MPI_Ialltoallv", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Alltoallw", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLTOALLW},
	{"MPI_Ialltoallw", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Allreduce", EX_ROLE_ALL2ALL, P_NONE, EX_COLL_ALLREDUCE},
	{"MPI_Iallreduce", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Reduce_scatter_block", EX_ROLE_ALL2ALL, P_NONE,
	 EX_COLL_REDUCE_SCATTER_BLOCK},
	{"MPI_Ireduce_scatter_block", EX_ROLE_ALL2ALL, P_NONE, EX_NO_COLL},
	{"MPI_Reduce_scatter", EX_ROLE_COLL, P_NONE, EX_COLL_REDUCE_SCATTER},
	{"MPI_Ireduce_scatter", EX_ROLE_COLL, P_NONE, EX_NO_COLL},
	{"MPI_Scan", EX_ROLE_COLL, P_NONE, EX_COLL_SCAN},
	{"MPI_Iscan", EX_ROLE_COLL, P_NONE, EX_NO_COLL},
	{"MPI_Exscan", EX_ROLE_COLL, P_NONE, EX_COLL_EXSCAN},
	{"MPI_Iexscan", EX_ROLE_COLL, P_NONE, EX_NO_COLL},
};

const struct ex_fn *ex_fn_find(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n > 2 && !strcmp(name + n - 2, "_c"))
		n -= 2; /* the large-count form does the same */
	for (size_t i = 0; name && i < COUNTOF(fns); i++)
		if (strlen(fns[i].name) == n && !strncmp(fns[i].name, name, n))
			return &fns[i];
	return NULL;
}

int ex_func_role(const rondo_trace *t, uint32_t func)
{
	const struct ex_fn *f = ex_fn_find(rondo_func_name(t, func));

	return f ? f->role : EX_ROLE_OTHER;
}

/* ---- the bytes of a collective ------------------------------------------- */

/* What one call says, resolved for its caller. */
struct cargs {
	const rondo_trace *t;
	uint32_t sig, rank;
};

/* Parameter `name` of the call as its caller passed it. */
static rondo_arg call_arg(const struct cargs *a, const char *name)
{
	rondo_arg v = an_arg(a->t, a->sig, name), at;

	if (rondo_arg_at_rank(a->t, &v, a->rank, &at) == 0)
		return at;
	return v;
}

/* count × the size of datatype `type`; 0 when either is not known. */
static uint64_t cbytes(const struct cargs *a, int64_t count,
		       const rondo_arg *type)
{
	int64_t size = rondo_type_size(a->t, type);

	return count > 0 && size > 0 ? (uint64_t)count * (uint64_t)size : 0;
}

/* Parameter `count` times the size of parameter `type`. */
static uint64_t pbytes(const struct cargs *a, const char *count,
		       const char *type)
{
	rondo_arg c = call_arg(a, count), ty = call_arg(a, type);

	return cbytes(a, an_int(&c), &ty);
}

/* The sum over the elements of array `counts` (all but element `skip`)
 * of each times the size of `type`, or of the element of array `types`
 * when `types` is not NULL; and element `only` alone into *own (may be
 * NULL). */
static uint64_t vbytes(const struct cargs *a, const char *counts,
		       const char *type, const char *types, uint64_t skip,
		       uint64_t only, uint64_t *own)
{
	rondo_arg cs = call_arg(a, counts), ty = call_arg(a, type), tys, e, et;
	uint64_t sum = 0;

	if (types)
		tys = call_arg(a, types);
	if (own)
		*own = 0;
	for (uint64_t k = 0; cs.wire == RONDO_WIRE_LIST && k < cs.n; k++) {
		uint64_t b;

		if (rondo_arg_elem(&cs, k, &e) < 0)
			break;
		if (types && (tys.wire != RONDO_WIRE_LIST || k >= tys.n ||
			      rondo_arg_elem(&tys, k, &et) < 0))
			break;
		b = cbytes(a, an_int(&e), types ? &et : &ty);
		if (k == only && own)
			*own = b;
		if (k != skip)
			sum += b;
	}
	return sum;
}

/* The rooted collectives: one-to-all and all-to-one. */
static void rooted(const struct cargs *a, uint8_t op, uint64_t n, int root,
		   int inplace, uint64_t me, struct ex_coll *o)
{
	uint64_t own;

	switch (op) {
	case EX_COLL_BCAST:
		o->received = pbytes(a, "count", "datatype");
		o->sent = root ? n * o->received : 0;
		break;
	case EX_COLL_REDUCE:
		o->sent = pbytes(a, "count", "datatype");
		o->received = root ? (inplace ? n - 1 : n) * o->sent : 0;
		if (root && inplace)
			o->sent = 0;
		break;
	case EX_COLL_GATHER:
		o->sent = root && inplace ? 0
					  : pbytes(a, "sendcount", "sendtype");
		o->received =
			!root ? 0
			      : (inplace ? n - 1 : n) *
					pbytes(a, "recvcount", "recvtype");
		break;
	case EX_COLL_GATHERV:
		o->sent = root && inplace ? 0
					  : pbytes(a, "sendcount", "sendtype");
		o->received =
			!root ? 0
			      : vbytes(a, "recvcounts", "recvtype", NULL,
				       inplace ? me : UINT64_MAX, me, &own);
		break;
	case EX_COLL_SCATTER:
		o->received = root && inplace
				      ? 0
				      : pbytes(a, "recvcount", "recvtype");
		o->sent = !root ? 0
				: (inplace ? n - 1 : n) *
					  pbytes(a, "sendcount", "sendtype");
		break;
	default: /* Scatterv */
		o->received = root && inplace
				      ? 0
				      : pbytes(a, "recvcount", "recvtype");
		o->sent = !root ? 0
				: vbytes(a, "sendcounts", "sendtype", NULL,
					 inplace ? me : UINT64_MAX, me, &own);
		break;
	}
}

/* The collectives without a root. */
static void rootless(const struct cargs *a, uint8_t op, uint64_t n, int inplace,
		     uint64_t me, struct ex_coll *o)
{
	uint64_t m = inplace ? n - 1 : n, skip = inplace ? me : UINT64_MAX;
	uint64_t own, c;

	switch (op) {
	case EX_COLL_ALLGATHER:
	case EX_COLL_ALLTOALL:
		o->received = m * pbytes(a, "recvcount", "recvtype");
		o->sent = inplace ? o->received
				  : n * pbytes(a, "sendcount", "sendtype");
		break;
	case EX_COLL_ALLGATHERV:
		o->received = vbytes(a, "recvcounts", "recvtype", NULL, skip,
				     me, &own);
		o->sent = inplace ? (n - 1) * own
				  : n * pbytes(a, "sendcount", "sendtype");
		break;
	case EX_COLL_ALLTOALLV:
		o->received = vbytes(a, "recvcounts", "recvtype", NULL, skip,
				     me, &own);
		o->sent = inplace ? o->received
				  : vbytes(a, "sendcounts", "sendtype", NULL,
					   UINT64_MAX, me, &own);
		break;
	case EX_COLL_ALLTOALLW:
		o->received = vbytes(a, "recvcounts", NULL, "recvtypes", skip,
				     me, &own);
		o->sent = inplace ? o->received
				  : vbytes(a, "sendcounts", NULL, "sendtypes",
					   UINT64_MAX, me, &own);
		break;
	case EX_COLL_ALLREDUCE:
		o->sent = o->received = m * pbytes(a, "count", "datatype");
		break;
	case EX_COLL_REDUCE_SCATTER_BLOCK:
		o->sent = o->received = n * pbytes(a, "recvcount", "datatype");
		break;
	case EX_COLL_REDUCE_SCATTER:
		o->sent = vbytes(a, "recvcounts", "datatype", NULL, UINT64_MAX,
				 me, &own);
		o->received = n * own;
		break;
	case EX_COLL_SCAN:
	case EX_COLL_EXSCAN:
		c = pbytes(a, "count", "datatype");
		o->sent = (n - me - (op == EX_COLL_EXSCAN)) * c;
		o->received = (me + (op == EX_COLL_SCAN)) * c;
		break;
	default: break; /* Barrier */
	}
}

int ex_coll_bytes(const rondo_trace *t, uint32_t sig, uint32_t rank, uint8_t op,
		  const rondo_comm_ref *cm, struct ex_coll *out)
{
	const struct cargs a = {t, sig, rank};
	rondo_arg v;
	int inplace;

	out->root = EX_NO_ROOT;
	out->sent = out->received = 0;
	if (cm->first || !cm->size || cm->rank == RONDO_RANK_NONE)
		return -1; /* an intercommunicator's, or unresolved */
	/* in place: the send buffer, but a Scatter's root names its
	 * receive buffer */
	v = call_arg(&a, op == EX_COLL_SCATTER || op == EX_COLL_SCATTERV
				 ? "recvbuf"
				 : "sendbuf");
	inplace = an_is_const(t, &v, "MPI_IN_PLACE");
	if (op == EX_COLL_BCAST || op == EX_COLL_REDUCE ||
	    (op >= EX_COLL_GATHER && op <= EX_COLL_SCATTERV)) {
		v = call_arg(&a, "root");
		if (v.kind != RONDO_ARG_RANK || v.wire != RONDO_WIRE_SINT ||
		    v.i < 0 || v.i >= cm->size)
			return -1;
		out->root = (uint32_t)v.i;
		rooted(&a, op, cm->size, out->root == cm->rank, inplace,
		       cm->rank, out);
		return 0;
	}
	rootless(&a, op, cm->size, inplace, cm->rank, out);
	return 0;
}
