/*
 * scale_ranks.c - one rank's tables for bench_scale, as the tracer
 * records them: its signatures, grammar and statistics, and the
 * communicators it speaks for.  Kept apart from bench_scale.c, the merge
 * driver, because this is the other half of the benchmark: how a rank of
 * a known program would have recorded, where the driver only merges what
 * it is handed.
 *
 * The patterns are the programs of tests/mpi/ (stencil, stencil3d,
 * collloop, colorsplit, xor, transpose, multipart, a2av), call for call:
 * their arguments are encoded as the tracer's wrappers encode them
 * (tracer/handles.c, comms.c, requests.c), down to buffer segments and
 * request ids, so that `rondo dump` of a synthetic trace of P ranks prints
 * what it prints of the real program's on P ranks.  One departure:
 * transpose's grid is floor(sqrt(P)) wide at any P, where the program
 * stops at 64 (its arrays); the two agree up to 4 096 ranks.
 *
 * Times are made up, deterministically: a cost per call that grows with
 * the communicator where a real one does, a few percent of noise per
 * rank and per call, one rank in 50 slower, rare outliers.  So the
 * per-rank time section costs what it would, not the nothing that equal
 * times would cost.  --noise scales all of that (default 1; 0: every rank
 * the same times).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "grammar.h"
#include "hmap.h"
#include "scale_ranks.h"

static void die(const char *what)
{
	fprintf(stderr, "bench_scale: %s\n", what);
	exit(1);
}

/* ---- what the ids name --------------------------------------------------- */

/* The functions the patterns call, X(id, name, waits, parameters): the
 * names of the tracer's table (tracer/mpi_api.tab), ">" after an
 * output's; `waits`: the call waits for other ranks, so its time on a
 * rank depends on how far ahead of them the rank is. */
/* clang-format off */
#define FUNCS(X)                                                               \
	X(F_INIT, "MPI_Init", 1, "argc argv")                                  \
	X(F_FINALIZE, "MPI_Finalize", 1, "")                                   \
	X(F_COMM_SIZE, "MPI_Comm_size", 0, "comm size>")                       \
	X(F_COMM_RANK, "MPI_Comm_rank", 0, "comm rank>")                       \
	X(F_DIMS_CREATE, "MPI_Dims_create", 0, "nnodes ndims dims>")           \
	X(F_CART_CREATE, "MPI_Cart_create", 1,                                 \
	  "comm_old ndims dims periods reorder comm_cart>")                    \
	X(F_CART_SHIFT, "MPI_Cart_shift", 0,                                   \
	  "comm direction disp rank_source> rank_dest>")                       \
	X(F_TYPE_VECTOR, "MPI_Type_vector", 0,                                 \
	  "count blocklength stride oldtype newtype>")                         \
	X(F_TYPE_COMMIT, "MPI_Type_commit", 0, "datatype>")                    \
	X(F_TYPE_FREE, "MPI_Type_free", 0, "datatype>")                        \
	X(F_COMM_FREE, "MPI_Comm_free", 1, "comm>")                            \
	X(F_COMM_SPLIT, "MPI_Comm_split", 1, "comm color key newcomm>")        \
	X(F_IRECV, "MPI_Irecv", 0,                                             \
	  "buf> count datatype source tag comm request>")                      \
	X(F_ISEND, "MPI_Isend", 0, "buf count datatype dest tag comm request>")\
	X(F_WAITALL, "MPI_Waitall", 1,                                         \
	  "count array_of_requests> array_of_statuses>")                       \
	X(F_ALLREDUCE, "MPI_Allreduce", 1,                                     \
	  "sendbuf recvbuf> count datatype op comm")                           \
	X(F_BCAST, "MPI_Bcast", 1, "buffer count datatype root comm")          \
	X(F_SENDRECV, "MPI_Sendrecv", 1,                                       \
	  "sendbuf sendcount sendtype dest sendtag recvbuf> recvcount "        \
	  "recvtype source recvtag comm status>")                              \
	X(F_ALLTOALL, "MPI_Alltoall", 1,                                       \
	  "sendbuf sendcount sendtype recvbuf> recvcount recvtype comm")       \
	X(F_ALLTOALLV, "MPI_Alltoallv", 1,                                     \
	  "sendbuf sendcounts sdispls sendtype recvbuf> recvcounts rdispls "   \
	  "recvtype comm")

/* The named constants, X(id, name, size of a predefined datatype or -1). */
#define CONSTS(X)                                                              \
	X(C_WORLD, "MPI_COMM_WORLD", -1) X(C_COMM_NULL, "MPI_COMM_NULL", -1)   \
	X(C_PROC_NULL, "MPI_PROC_NULL", -1)                                    \
	X(C_UNDEFINED, "MPI_UNDEFINED", -1)                                    \
	X(C_STATUS_IGNORE, "MPI_STATUS_IGNORE", -1)                            \
	X(C_STATUSES_IGNORE, "MPI_STATUSES_IGNORE", -1)                        \
	X(C_SUM, "MPI_SUM", -1) X(C_DOUBLE, "MPI_DOUBLE", 8)                   \
	X(C_INT, "MPI_INT", 4)
/* clang-format on */

#define ENUM(id, ...) id,
enum { FUNCS(ENUM) NFUNCS };
enum { CONSTS(ENUM) NCONSTS };
#undef ENUM

#define FUNC_ROW(id, name, waits, params) {name, params, waits},
static const struct {
	const char *name, *params;
	int waits;
} func_rows[] = {FUNCS(FUNC_ROW)};
#undef FUNC_ROW
#define CONST_NAME(id, name, size) name,
static const char *const const_names[] = {CONSTS(CONST_NAME)};
#undef CONST_NAME
#define CONST_SIZE(id, name, size) size,
static const int64_t const_sizes[] = {CONSTS(CONST_SIZE)};
#undef CONST_SIZE

static struct fmt_func funcs[NFUNCS];
struct job_names rk_names;

/* The parameter lists, split from func_rows. */
void rk_names_init(void)
{
	for (int f = 0; f < NFUNCS; f++) {
		char *list = strdup(func_rows[f].params), *save = NULL, *p;
		struct fmt_func *fn = &funcs[f];

		fn->name = (char *)func_rows[f].name;
		fn->params = calloc(16, sizeof(char *));
		fn->flags = calloc(16, 1);
		if (!list || !fn->params || !fn->flags)
			die("out of memory");
		for (p = strtok_r(list, " ", &save); p && fn->nparams < 16;
		     p = strtok_r(NULL, " ", &save)) {
			size_t n = strlen(p);

			fn->flags[fn->nparams] = p[n - 1] == '>';
			p[n - fn->flags[fn->nparams]] = '\0';
			fn->params[fn->nparams++] = p;
		}
		if (!fn->nparams) /* else the parameters point into it */
			free(list);
	}
	rk_names = (struct job_names){NFUNCS, funcs, NCONSTS, const_names,
				      const_sizes};
}

/* ---- made-up times ------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A number in [0, 1) from the stream s. */
static double unit(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	return (double)(mix64(*s) >> 11) * 0x1p-53;
}

/* How much the made-up times vary (--noise). */
double rk_noise = 1.0;

/* 1 + noise times a number in [-a, a). */
static double vary(uint64_t *s, double a)
{
	return 1.0 + rk_noise * a * (2.0 * unit(s) - 1.0);
}

static double lg(uint32_t n)
{
	return n > 1 ? log2((double)n) : 0.0;
}

/* ---- one rank's tables, as the tracer records them ----------------------- */

/* Requests come from a pool per creating signature (requests.c): the
 * call's arguments before the request. */
#define POOL_SLOTS 8
struct pool {
	uint32_t func, len;
	uint8_t *prefix;
	uint32_t nids, ids[POOL_SLOTS];
	uint8_t live[POOL_SLOTS];
};

struct req {
	uint32_t pool, slot;
};

/* The call's communicator in a pattern: an index of rk.comm, or these. */
enum { WORLD = -1, COMM_NULL = -2 };
/* A peer that is MPI_PROC_NULL. */
#define PROC_NULL (-1)

/* A datatype argument: a predefined one by name, or a derived one's id and
 * size. */
struct dtype {
	int derived;
	uint32_t id;
	uint64_t size;
};

void rk_init(struct rk *r, uint32_t rank, uint32_t size, int observe)
{
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->size = size;
	r->observe = observe;
	for (int k = 0; k < NOBJ; k++)
		r->seg[k] = UINT32_MAX;
	r->g = observe ? NULL : grammar_create();
	if (!observe && !r->g)
		die("out of memory");
	/* a few percent either way, and one rank in 50 slower */
	r->rng = mix64(0x5ca1eull ^ ((uint64_t)rank << 20));
	r->speed = vary(&r->rng, 0.02) * vary(&r->rng, 0.02);
	if (mix64(rank * 0x9e3779b97f4a7c15ull + 1) % 50 == 0)
		r->speed *= 1.0 + 0.3 * rk_noise;
}

void rk_free(struct rk *r)
{
	fmt_buf_free(&r->a);
	fmt_buf_free(&r->bytes);
	free(r->sig);
	hmap_free(&r->index);
	grammar_free(r->g);
	for (uint32_t k = 0; k < r->npools; k++)
		free(r->pool[k].prefix);
	free(r->pool);
	for (uint32_t k = 0; k < r->ncomms; k++)
		free(r->comm[k].world);
	free(r->comm);
}

static uint64_t sig_hash(uint32_t func, const uint8_t *p, size_t n)
{
	uint64_t h = mix64(func + 0x51ull), w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return mix64(h ^ n);
}

static int sig_is(const struct rk *r, uint32_t s)
{
	const struct sigrec *x = &r->sig[s];

	return x->func == r->func && x->nargs == r->nargs &&
	       x->len == r->a.len &&
	       !memcmp(r->bytes.data + x->off, r->a.data, r->a.len);
}

/* The id of the call's signature, added when new. */
static uint32_t rk_signature(struct rk *r)
{
	uint64_t h = sig_hash(r->func, r->a.data, r->a.len);
	uint32_t s = hmap_lookup(&r->index, h);

	if (s != UINT32_MAX && sig_is(r, s))
		return s;
	for (s = 0; s < r->nsig; s++) /* a 64-bit collision: never seen */
		if (sig_is(r, s))
			return s;
	if (util_grow(&r->sig, &r->capsig, (size_t)r->nsig + 1,
		      sizeof(*r->sig)) < 0)
		die("out of memory");
	/* a wait takes what the rank is ahead: some 10 % either way */
	r->sig[s] = (struct sigrec){
		r->func,
		r->nargs,
		(uint32_t)r->a.len,
		r->bytes.len,
		func_rows[r->func].waits ? vary(&r->rng, 0.1) : 1.0,
		{0}};
	fmt_put_bytes(&r->bytes, r->a.data, r->a.len);
	if (r->bytes.oom || hmap_insert(&r->index, h, s) < 0)
		die("out of memory");
	return r->nsig++;
}

/* Another call of signature s that took about base_ns. */
static void rk_again(struct rk *r, uint32_t s, double base_ns)
{
	double d = base_ns * r->speed * r->sig[s].lean * vary(&r->rng, 0.05);

	if (r->observe)
		return;
	if (unit(&r->rng) < 0.002 * rk_noise) /* the odd hiccup */
		d *= 2.0 + 8.0 * unit(&r->rng);
	if (grammar_append(r->g, s, 1) < 0)
		die("out of memory");
	fmt_stat_record(&r->sig[s].st, (uint64_t)d);
	r->busy_ns += d;
	r->calls++;
}

static void rk_begin(struct rk *r, uint32_t func)
{
	r->func = func;
	r->nargs = 0;
	r->a.len = 0;
}

/* The call recorded: returns its signature. */
static uint32_t rk_call(struct rk *r, double base_ns)
{
	uint32_t s;

	if (r->a.oom)
		die("out of memory");
	s = rk_signature(r);
	rk_again(r, s, base_ns);
	return s;
}

/* ---- arguments, as the wrappers write them ------------------------------- */

static void arg_int(struct rk *r, int64_t v)
{
	fmt_arg_put_sint(&r->a, RONDO_ARG_INT, v);
	r->nargs++;
}

static void arg_const(struct rk *r, uint32_t c)
{
	fmt_arg_put_uint(&r->a, RONDO_ARG_CONST, c);
	r->nargs++;
}

static void arg_null(struct rk *r)
{
	fmt_arg_put_none(&r->a, RONDO_ARG_NULL);
	r->nargs++;
}

static void arg_tag(struct rk *r, int tag)
{
	fmt_arg_put_sint(&r->a, RONDO_ARG_TAG, tag);
	r->nargs++;
}

static void arg_ints(struct rk *r, const int *v, uint32_t n)
{
	fmt_arg_put_list(&r->a, RONDO_ARG_ARRAY, n);
	for (uint32_t i = 0; i < n; i++)
		fmt_arg_put_sint(&r->a, RONDO_ARG_INT, v[i]);
	r->nargs++;
}

/* A buffer: object obj of the pattern, at byte off in it. */
static void arg_buf(struct rk *r, int obj, int64_t off)
{
	if (r->seg[obj] == UINT32_MAX)
		r->seg[obj] = r->nseg++;
	fmt_arg_put_list(&r->a, RONDO_ARG_BUFFER, 2);
	fmt_arg_put_uint(&r->a, RONDO_ARG_INT, r->seg[obj]);
	fmt_arg_put_sint(&r->a, RONDO_ARG_INT, off);
	r->nargs++;
}

static void arg_type(struct rk *r, const struct dtype *t)
{
	if (!t->derived) {
		arg_const(r, t->id);
		return;
	}
	fmt_arg_put_list(&r->a, RONDO_ARG_DTYPE_SIZE, 2);
	fmt_arg_put_uint(&r->a, RONDO_ARG_DATATYPE, t->id);
	fmt_arg_put_uint(&r->a, RONDO_ARG_INT, t->size);
	r->nargs++;
}

static void arg_comm(struct rk *r, int c)
{
	if (c == WORLD)
		arg_const(r, C_WORLD);
	else if (c == COMM_NULL)
		arg_const(r, C_COMM_NULL);
	else {
		fmt_arg_put_uint(&r->a, RONDO_ARG_COMM, r->comm[c].key);
		r->nargs++;
	}
}

/* comms.c's offset on a grid: per dimension in (-n/2, n/2]. */
static int64_t cart_offset(const struct comm *g, int64_t me, int64_t rank)
{
	int64_t v = 0, stride = 1;

	for (uint32_t k = g->ndims; k-- > 0;) {
		int64_t n = g->dims[k], d = ((rank % n) - (me % n) + n) % n;

		if (d > n / 2)
			d -= n;
		v += d * stride;
		stride *= n;
		me /= n;
		rank /= n;
	}
	return v;
}

/* handles.c's offset in a group: (-size/2, size/2]. */
static int64_t rank_offset(int64_t rank, int64_t me, int64_t size)
{
	int64_t d = rank - me;

	if (d < 0)
		d += size;
	return d > size / 2 ? d - size : d;
}

/* A peer (a rank of communicator c, or PROC_NULL), relative to the
 * caller: on a grid as an offset of coordinates. */
static void arg_rank(struct rk *r, int64_t peer, int c)
{
	const struct comm *g = c >= 0 ? &r->comm[c] : NULL;

	if (peer == PROC_NULL) {
		arg_const(r, C_PROC_NULL);
		return;
	}
	if (g && g->ndims)
		fmt_arg_put_sint(&r->a, RONDO_ARG_CART_REL,
				 cart_offset(g, g->me, peer));
	else
		fmt_arg_put_sint(&r->a, RONDO_ARG_RANK_REL,
				 g ? rank_offset(peer, g->me, g->n)
				   : rank_offset(peer, r->rank, r->size));
	r->nargs++;
}

/* A new request: the lowest free slot of its pool (the call's arguments
 * so far), whose id is the same every time. */
static struct req arg_request(struct rk *r)
{
	struct pool *p = NULL;
	uint32_t k, s;

	for (k = 0; k < r->npools; k++) {
		p = &r->pool[k];
		if (p->func == r->func && p->len == r->a.len &&
		    !memcmp(p->prefix, r->a.data, r->a.len))
			break;
	}
	if (k == r->npools) {
		if (util_grow(&r->pool, &r->cappools, (size_t)k + 1,
			      sizeof(*r->pool)) < 0)
			die("out of memory");
		p = &r->pool[r->npools++];
		memset(p, 0, sizeof(*p));
		p->func = r->func;
		p->len = (uint32_t)r->a.len;
		p->prefix = malloc(r->a.len + 1);
		if (!p->prefix)
			die("out of memory");
		memcpy(p->prefix, r->a.data, r->a.len);
	}
	for (s = 0; s < POOL_SLOTS && p->live[s]; s++)
		;
	if (s == POOL_SLOTS)
		die("too many live requests of one kind");
	if (s == p->nids)
		p->ids[p->nids++] = r->next_req++;
	p->live[s] = 1;
	fmt_arg_put_uint(&r->a, RONDO_ARG_REQUEST, p->ids[s]);
	r->nargs++;
	return (struct req){k, s};
}

/* The requests a completion names, released. */
static void arg_requests_done(struct rk *r, const struct req *q, uint32_t n)
{
	fmt_arg_put_list(&r->a, RONDO_ARG_ARRAY, n);
	for (uint32_t i = 0; i < n; i++) {
		struct pool *p = &r->pool[q[i].pool];

		fmt_arg_put_uint(&r->a, RONDO_ARG_REQUEST, p->ids[q[i].slot]);
		p->live[q[i].slot] = 0;
	}
	r->nargs++;
}

/* ---- communicators ------------------------------------------------------- */

/* comms.c's identity: the members' hash, the grid's, an instance number
 * no live communicator of the same members holds. */
static uint64_t comm_key(const struct rk *r, const uint32_t *w, uint32_t n,
			 const struct comm *g)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	h ^= h >> 31;
	for (uint32_t k = 0; k < g->ndims; k++)
		h = (h ^ (g->dims[k] << 1 | g->periodic[k])) * 0x100000001b3ull;
	for (uint64_t inst = 0;; inst++) {
		uint64_t key = h ^ (inst * 0x9e3779b97f4a7c15ull);
		uint32_t c;

		for (c = 0; c < r->ncomms; c++)
			if (r->comm[c].key == key && r->comm[c].live)
				break;
		if (c == r->ncomms)
			return key;
	}
}

/* A new communicator of members w (world ranks in its rank order, taken
 * over), with the grid g describes (ndims 0: none); returns its index. */
static int comm_new(struct rk *r, uint32_t *w, uint32_t n, struct comm g)
{
	uint32_t lowest = UINT32_MAX, c;

	g.key = comm_key(r, w, n, &g);
	g.n = n;
	g.live = 1;
	for (uint32_t i = 0; i < n; i++) {
		lowest = w[i] < lowest ? w[i] : lowest;
		if (w[i] == r->rank)
			g.me = i;
	}
	/* the lowest member speaks for it, once */
	g.world = lowest == r->rank ? w : NULL;
	for (c = 0; c < r->ncomms; c++)
		if (r->comm[c].key == g.key) {
			r->comm[c].live = 1;
			if (g.world != w || r->comm[c].world)
				free(w);
			else
				r->comm[c].world = w;
			return (int)c;
		}
	if (!g.world)
		free(w);
	if (util_grow(&r->comm, &r->capcomms, (size_t)r->ncomms + 1,
		      sizeof(*r->comm)) < 0)
		die("out of memory");
	r->comm[r->ncomms] = g;
	return (int)r->ncomms++;
}

static uint32_t *members(uint32_t n)
{
	uint32_t *w = malloc(sizeof(*w) * ((size_t)n + 1));

	if (!w)
		die("out of memory");
	return w;
}

/* ---- MPI calls ----------------------------------------------------------- */

/* Each records what the wrapper of that function records, with a cost
 * in ns that grows with the communicator as a real one's does. */

static uint32_t comm_size(const struct rk *r, int c)
{
	return c == WORLD ? r->size : c >= 0 ? r->comm[c].n : 0;
}

static void mpi_init(struct rk *r, int argc)
{
	rk_begin(r, F_INIT);
	arg_int(r, argc);
	arg_null(r);
	rk_call(r, 40e6 + 5e3 * r->size);
}

static void mpi_finalize(struct rk *r)
{
	rk_begin(r, F_FINALIZE);
	rk_call(r, 2e6);
}

static void mpi_comm_size(struct rk *r, int c)
{
	rk_begin(r, F_COMM_SIZE);
	arg_comm(r, c);
	arg_int(r, comm_size(r, c));
	rk_call(r, 60);
}

static void mpi_comm_rank(struct rk *r, int c)
{
	rk_begin(r, F_COMM_RANK);
	arg_comm(r, c);
	arg_rank(r, c == WORLD ? r->rank : r->comm[c].me, c);
	rk_call(r, 60);
}

static void mpi_dims_create(struct rk *r, uint32_t nnodes, const int *dims,
			    uint32_t nd)
{
	rk_begin(r, F_DIMS_CREATE);
	arg_int(r, nnodes);
	arg_int(r, nd);
	arg_ints(r, dims, nd);
	rk_call(r, 900);
}

/* MPI_Dims_create's balanced grid (Open MPI's: the prime factors, the
 * largest first, each to the smallest dimension so far; then in
 * decreasing order). */
static void dims_of(uint32_t n, int *dims, uint32_t nd)
{
	uint32_t f[64], nf = 0;

	for (uint32_t p = 2; n > 1 && nf < 64;)
		if (n % p == 0) {
			f[nf++] = p;
			n /= p;
		} else {
			p++;
		}
	for (uint32_t k = 0; k < nd; k++)
		dims[k] = 1;
	while (nf--) {
		uint32_t lo = 0;

		for (uint32_t k = 1; k < nd; k++)
			lo = dims[k] < dims[lo] ? k : lo;
		dims[lo] *= (int)f[nf];
	}
	for (uint32_t i = 0; i < nd; i++)
		for (uint32_t k = i + 1; k < nd; k++)
			if (dims[k] > dims[i]) {
				int t = dims[i];

				dims[i] = dims[k];
				dims[k] = t;
			}
}

/* A grid of all the ranks (no reordering: Open MPI keeps them). */
static int mpi_cart_create(struct rk *r, const int *dims, const int *periods,
			   uint32_t nd, int reorder)
{
	struct comm g = {0};
	uint32_t *w = members(r->size);
	int c;

	for (uint32_t i = 0; i < r->size; i++)
		w[i] = i;
	g.ndims = nd;
	for (uint32_t k = 0; k < nd; k++) {
		g.dims[k] = (uint32_t)dims[k];
		g.periodic[k] = periods[k] != 0;
	}
	c = comm_new(r, w, r->size, g);
	rk_begin(r, F_CART_CREATE);
	arg_comm(r, WORLD);
	arg_int(r, nd);
	arg_ints(r, dims, nd);
	arg_ints(r, periods, nd);
	arg_int(r, reorder);
	arg_comm(r, c);
	rk_call(r, 30e3 + 2e3 * lg(r->size));
	return c;
}

/* The neighbours along dimension d of grid c: *src, *dst (or PROC_NULL). */
static void cart_neighbours(const struct rk *r, int c, uint32_t d, int64_t *src,
			    int64_t *dst)
{
	const struct comm *g = &r->comm[c];
	int64_t stride = 1, n = g->dims[d], x;

	for (uint32_t k = d + 1; k < g->ndims; k++)
		stride *= g->dims[k];
	x = (g->me / stride) % n;
	*src = x > 0		? g->me - stride
	       : g->periodic[d] ? g->me + (n - 1) * stride
				: PROC_NULL;
	*dst = x < n - 1	? g->me + stride
	       : g->periodic[d] ? g->me - (n - 1) * stride
				: PROC_NULL;
}

static void mpi_cart_shift(struct rk *r, int c, uint32_t d, int64_t *src,
			   int64_t *dst)
{
	cart_neighbours(r, c, d, src, dst);
	rk_begin(r, F_CART_SHIFT);
	arg_comm(r, c);
	arg_int(r, d);
	arg_int(r, 1);
	arg_rank(r, *src, c);
	arg_rank(r, *dst, c);
	rk_call(r, 400);
}

static void mpi_type_vector(struct rk *r, int count, int blen, int stride,
			    const struct dtype *old, const struct dtype *t)
{
	rk_begin(r, F_TYPE_VECTOR);
	arg_int(r, count);
	arg_int(r, blen);
	arg_int(r, stride);
	arg_type(r, old);
	arg_type(r, t);
	rk_call(r, 1200);
}

static void mpi_type_one(struct rk *r, uint32_t func, const struct dtype *t)
{
	rk_begin(r, func);
	arg_type(r, t);
	rk_call(r, func == F_TYPE_COMMIT ? 2500 : 500);
}

static void mpi_comm_free(struct rk *r, int c)
{
	rk_begin(r, F_COMM_FREE);
	arg_comm(r, c);
	r->comm[c].live = 0;
	rk_call(r, 8e3);
}

/* MPI_Comm_split of MPI_COMM_WORLD: the members w (taken over) of the
 * caller's colour in key order, or none (colour MPI_UNDEFINED). */
static int mpi_comm_split(struct rk *r, int64_t color, int64_t key, uint32_t *w,
			  uint32_t n)
{
	int c = w ? comm_new(r, w, n, (struct comm){0}) : COMM_NULL;

	rk_begin(r, F_COMM_SPLIT);
	arg_comm(r, WORLD);
	if (w)
		arg_int(r, color);
	else
		arg_const(r, C_UNDEFINED);
	arg_int(r, key);
	arg_comm(r, c);
	rk_call(r, 20e3 + 6e3 * lg(r->size));
	return c;
}

/* MPI_Irecv or MPI_Isend of count elements of t at obj + off. */
static struct req mpi_ipt2pt(struct rk *r, uint32_t func, int obj, int64_t off,
			     int count, const struct dtype *t, int64_t peer,
			     int tag, int c)
{
	struct req q;

	rk_begin(r, func);
	arg_buf(r, obj, off);
	arg_int(r, count);
	arg_type(r, t);
	arg_rank(r, peer, c);
	arg_tag(r, tag);
	arg_comm(r, c);
	q = arg_request(r);
	rk_call(r, func == F_IRECV ? 350 : 900 + 0.2 * count * (double)t->size);
	return q;
}

/* MPI_Waitall(n, q, MPI_STATUSES_IGNORE); wait_ns: what it waits. */
static void mpi_waitall(struct rk *r, const struct req *q, uint32_t n,
			double wait_ns)
{
	rk_begin(r, F_WAITALL);
	arg_int(r, n);
	arg_requests_done(r, q, n);
	arg_const(r, C_STATUSES_IGNORE);
	rk_call(r, wait_ns);
}

static const struct dtype t_double = {0, C_DOUBLE, 8}, t_int = {0, C_INT, 4};

static void mpi_allreduce(struct rk *r, int send, int recv,
			  const struct dtype *t, int c)
{
	rk_begin(r, F_ALLREDUCE);
	arg_buf(r, send, 0);
	arg_buf(r, recv, 0);
	arg_int(r, 1);
	arg_type(r, t);
	arg_const(r, C_SUM);
	arg_comm(r, c);
	rk_call(r, 1500 + 2500 * lg(comm_size(r, c)));
}

static void mpi_bcast(struct rk *r, int obj, int count, int root)
{
	rk_begin(r, F_BCAST);
	arg_buf(r, obj, 0);
	arg_int(r, count);
	arg_type(r, &t_double);
	fmt_arg_put_sint(&r->a, RONDO_ARG_RANK, root);
	r->nargs++;
	arg_comm(r, WORLD);
	rk_call(r, 1200 + 2000 * lg(r->size));
}

/* MPI_Sendrecv in MPI_COMM_WORLD with one peer and tag, status ignored. */
static void mpi_sendrecv(struct rk *r, int send, int recv, int count,
			 const struct dtype *t, int64_t peer, int tag)
{
	rk_begin(r, F_SENDRECV);
	arg_buf(r, send, 0);
	arg_int(r, count);
	arg_type(r, t);
	arg_rank(r, peer, WORLD);
	arg_tag(r, tag);
	arg_buf(r, recv, 0);
	arg_int(r, count);
	arg_type(r, t);
	arg_rank(r, peer, WORLD);
	arg_tag(r, tag);
	arg_comm(r, WORLD);
	arg_const(r, C_STATUS_IGNORE);
	rk_call(r, 2500);
}

static void mpi_alltoall(struct rk *r, int send, int recv,
			 const struct dtype *t, int c)
{
	rk_begin(r, F_ALLTOALL);
	arg_buf(r, send, 0);
	arg_int(r, 1);
	arg_type(r, t);
	arg_buf(r, recv, 0);
	arg_int(r, 1);
	arg_type(r, t);
	arg_comm(r, c);
	rk_call(r, 2000 + 400.0 * comm_size(r, c));
}

/* ---- the programs of tests/mpi ------------------------------------------- */

/* expect.h's start: MPI_Init, then the rank and size of the world. */
static void start(struct rk *r)
{
	mpi_init(r, 2);
	mpi_comm_rank(r, WORLD);
	mpi_comm_size(r, WORLD);
}

/* tests/mpi/stencil.c ITERS 64: a 2-D grid, non-periodic, halo exchange
 * with Isend/Irecv/Waitall (rows of 64 doubles, columns of a vector
 * type), an Allreduce a sweep; u and v swap every sweep. */
static void pat_stencil(struct rk *r, const struct cfg *cf)
{
	enum { U, V, LOCAL, GLOBAL };
	const int n = 64, periods[2] = {0, 0};
	const struct dtype col = {1, 0, (uint64_t)n * 8};
	int dims[2], c, u = U;
	int64_t nb[4];

	mpi_init(r, 3);
	mpi_comm_size(r, WORLD);
	dims_of(r->size, dims, 2);
	mpi_dims_create(r, r->size, dims, 2);
	c = mpi_cart_create(r, dims, periods, 2, 1);
	mpi_comm_rank(r, c);
	mpi_cart_shift(r, c, 0, &nb[0], &nb[1]);
	mpi_cart_shift(r, c, 1, &nb[2], &nb[3]);
	mpi_type_vector(r, n, 1, n + 2, &t_double, &col);
	mpi_type_one(r, F_TYPE_COMMIT, &col);
	for (uint32_t it = 0; it < cf->iters; it++) {
		/* the offsets of stencil.c's AT(i, j), in bytes */
#define AT(i, j) (((int64_t)(i) * (n + 2) + (j)) * 8)
		struct req q[8];

		q[0] = mpi_ipt2pt(r, F_IRECV, u, AT(0, 1), n, &t_double, nb[0],
				  0, c);
		q[1] = mpi_ipt2pt(r, F_IRECV, u, AT(n + 1, 1), n, &t_double,
				  nb[1], 1, c);
		q[2] = mpi_ipt2pt(r, F_IRECV, u, AT(1, 0), 1, &col, nb[2], 2,
				  c);
		q[3] = mpi_ipt2pt(r, F_IRECV, u, AT(1, n + 1), 1, &col, nb[3],
				  3, c);
		q[4] = mpi_ipt2pt(r, F_ISEND, u, AT(1, 1), n, &t_double, nb[0],
				  1, c);
		q[5] = mpi_ipt2pt(r, F_ISEND, u, AT(n, 1), n, &t_double, nb[1],
				  0, c);
		q[6] = mpi_ipt2pt(r, F_ISEND, u, AT(1, 1), 1, &col, nb[2], 3,
				  c);
		q[7] = mpi_ipt2pt(r, F_ISEND, u, AT(1, n), 1, &col, nb[3], 2,
				  c);
#undef AT
		mpi_waitall(r, q, 8, 25e3);
		mpi_allreduce(r, LOCAL, GLOBAL, &t_double, c);
		u = u == U ? V : U;
	}
	mpi_type_one(r, F_TYPE_FREE, &col);
	mpi_comm_free(r, c);
	mpi_finalize(r);
}

/* tests/mpi/stencil3d.c ITERS: a 3-D periodic grid, six faces of 64
 * doubles each way, Waitall. */
static void pat_stencil3d(struct rk *r, const struct cfg *cf)
{
	enum { IN = 0, OUT = 6 }; /* in[0..5], then out[0..5] */
	const int periods[3] = {1, 1, 1};
	int dims[3], c;
	int64_t nb[6];

	mpi_init(r, 2);
	mpi_comm_size(r, WORLD);
	dims_of(r->size, dims, 3);
	mpi_dims_create(r, r->size, dims, 3);
	c = mpi_cart_create(r, dims, periods, 3, 0);
	mpi_comm_rank(r, c);
	for (uint32_t d = 0; d < 3; d++)
		mpi_cart_shift(r, c, d, &nb[2 * d], &nb[2 * d + 1]);
	for (uint32_t it = 0; it < cf->iters; it++) {
		struct req q[12];

		for (int f = 0; f < 6; f++)
			q[f] = mpi_ipt2pt(r, F_IRECV, IN + f, 0, 64, &t_double,
					  nb[f], f, c);
		for (int f = 0; f < 6; f++)
			q[6 + f] = mpi_ipt2pt(r, F_ISEND, OUT + f, 0, 64,
					      &t_double, nb[f], f ^ 1, c);
		mpi_waitall(r, q, 12, 30e3);
	}
	mpi_comm_free(r, c);
	mpi_finalize(r);
}

/* tests/mpi/collloop.c ITERS: Allreduce and Bcast on the world. */
static void pat_collloop(struct rk *r, const struct cfg *cf)
{
	enum { X, SUM, V };

	start(r);
	for (uint32_t it = 0; it < cf->iters; it++) {
		mpi_allreduce(r, X, SUM, &t_double, WORLD);
		mpi_bcast(r, V, 16, 0);
	}
	mpi_finalize(r);
}

/* tests/mpi/colorsplit.c ITERS: a split of all ranks (key the rank) and
 * one of each rank alone (colour the rank), an Allreduce on each. */
static void pat_colorsplit(struct rk *r, const struct cfg *cf)
{
	enum { X, SUM };
	uint32_t *w = members(r->size), *self = members(1);
	int all, alone;

	start(r);
	for (uint32_t i = 0; i < r->size; i++)
		w[i] = i;
	all = mpi_comm_split(r, 0, r->rank, w, r->size);
	self[0] = r->rank;
	alone = mpi_comm_split(r, r->rank, 0, self, 1);
	for (uint32_t it = 0; it < cf->iters; it++) {
		mpi_allreduce(r, X, SUM, &t_double, all);
		mpi_allreduce(r, X, SUM, &t_double, alone);
	}
	mpi_comm_free(r, alone);
	mpi_comm_free(r, all);
	mpi_finalize(r);
}

/* tests/mpi/xor.c ITERS: recursive doubling, Sendrecv with rank ^ k. */
static void pat_xor(struct rk *r, const struct cfg *cf)
{
	/* x lies where exchange()'s `in` lay on the stack: the tracer
	 * names both alike (seen in the real program's trace) */
	enum { OUTB, INB, SUM, X = INB };

	start(r);
	for (uint32_t it = 0; it < cf->iters; it++)
		for (uint32_t k = 1; k < r->size; k <<= 1)
			if ((r->rank ^ k) < r->size)
				mpi_sendrecv(r, OUTB, INB, 3, &t_double,
					     r->rank ^ k, (int)k);
	mpi_allreduce(r, X, SUM, &t_double, WORLD);
	mpi_finalize(r);
}

/* tests/mpi/transpose.c ITERS: a q x q grid of ranks, row and column
 * split from the world; Alltoall in the row and Sendrecv with the
 * transpose partner each iteration; Allreduce in the column, then in the
 * world.  Ranks past the grid split with MPI_UNDEFINED. */
static void pat_transpose(struct rk *r, const struct cfg *cf)
{
	enum { OUTB, INB, V, W, I, SUM, IN_GRID };
	uint32_t q = 1, i, j;
	int row = COMM_NULL, col = COMM_NULL, in_grid;

	start(r);
	while ((q + 1) * (q + 1) <= r->size)
		q++;
	in_grid = r->rank < q * q;
	i = r->rank / q;
	j = r->rank % q;
	if (in_grid) {
		uint32_t *wr = members(q), *wc = members(q);

		for (uint32_t k = 0; k < q; k++) {
			wr[k] = i * q + k;
			wc[k] = k * q + j;
		}
		row = mpi_comm_split(r, i, j, wr, q);
		col = mpi_comm_split(r, j, i, wc, q);
		for (uint32_t it = 0; it < cf->iters; it++) {
			mpi_alltoall(r, OUTB, INB, &t_int, row);
			mpi_sendrecv(r, V, W, 1, &t_int, j * q + i, 5);
		}
		mpi_allreduce(r, I, SUM, &t_int, col);
	} else {
		mpi_comm_split(r, 0, 0, NULL, 0);
		mpi_comm_split(r, 0, 0, NULL, 0);
	}
	mpi_allreduce(r, IN_GRID, SUM, &t_int, WORLD);
	if (in_grid) {
		mpi_comm_free(r, col);
		mpi_comm_free(r, row);
	}
	mpi_finalize(r);
}

/* tests/mpi/multipart.c ITERS: on a periodic q x q grid of ranks, receive
 * from (i-1, j-1) and (i-1, j+1), send to (i+1, j+1) and (i+1, j-1),
 * Waitall.  P must be a square. */
static void pat_multipart(struct rk *r, const struct cfg *cf)
{
	enum { IN0, IN1, OUT0, OUT1 };
	uint32_t q = 1;
	int64_t i, j;

	start(r);
	while (q * q < r->size)
		q++;
	if (q * q != r->size)
		die("multipart needs a square number of ranks");
	i = r->rank / q;
	j = r->rank % q;
#define AT(a, b) (((a) + q) % q * q + ((b) + q) % q)
	for (uint32_t it = 0; it < cf->iters; it++) {
		struct req rq[4];

		rq[0] = mpi_ipt2pt(r, F_IRECV, IN0, 0, 2, &t_double,
				   AT(i - 1, j - 1), 0, WORLD);
		rq[1] = mpi_ipt2pt(r, F_IRECV, IN1, 0, 2, &t_double,
				   AT(i - 1, j + 1), 1, WORLD);
		rq[2] = mpi_ipt2pt(r, F_ISEND, OUT0, 0, 2, &t_double,
				   AT(i + 1, j + 1), 0, WORLD);
		rq[3] = mpi_ipt2pt(r, F_ISEND, OUT1, 0, 2, &t_double,
				   AT(i + 1, j - 1), 1, WORLD);

		mpi_waitall(r, rq, 4, 12e3);
	}
#undef AT
	mpi_finalize(r);
}

/* tests/mpi/a2av.c ITERS: Alltoallv of 1 + (7 from + 3 to) % 5 ints, in
 * one heap block (s, then r at 5 P ints); the arguments are the same
 * every iteration, so they are encoded once. */
static void pat_a2av(struct rk *r, const struct cfg *cf)
{
	enum { S };
	int *v = malloc(sizeof(int) * 4 * (size_t)r->size + 1);
	int *sc = v, *sd = v + r->size, *rc = sd + r->size, *rd = rc + r->size;
	double cost = 3000 + 60.0 * r->size;
	uint32_t s;

	if (!v)
		die("out of memory");
	start(r);
	for (uint32_t j = 0, so = 0, ro = 0; j < r->size; j++) {
		sc[j] = 1 + (int)((r->rank * 7 + j * 3) % 5);
		sd[j] = (int)so;
		so += (uint32_t)sc[j];
		rc[j] = 1 + (int)((j * 7 + r->rank * 3) % 5);
		rd[j] = (int)ro;
		ro += (uint32_t)rc[j];
	}
	rk_begin(r, F_ALLTOALLV);
	arg_buf(r, S, 0);
	arg_ints(r, sc, r->size);
	arg_ints(r, sd, r->size);
	arg_type(r, &t_int);
	arg_buf(r, S, 20 * (int64_t)r->size);
	arg_ints(r, rc, r->size);
	arg_ints(r, rd, r->size);
	arg_type(r, &t_int);
	arg_comm(r, WORLD);
	free(v);
	s = cf->iters ? rk_call(r, cost) : 0;
	for (uint32_t it = 1; it < cf->iters; it++)
		rk_again(r, s, cost);
	mpi_finalize(r);
}

const struct pattern rk_patterns[] = {
	{"stencil", pat_stencil, " 64"},
	{"stencil3d", pat_stencil3d, ""},
	{"collloop", pat_collloop, ""},
	{"colorsplit", pat_colorsplit, ""},
	{"xor", pat_xor, ""},
	{"transpose", pat_transpose, ""},
	{"multipart", pat_multipart, ""},
	{"a2av", pat_a2av, ""},
};
const size_t rk_npatterns = COUNTOF(rk_patterns);

/* The caller's rank in a communicator its signatures name (relative.h). */
int64_t rk_rank_me(void *ctx, uint32_t kind, uint64_t value)
{
	const struct rk *r = ctx;

	if (kind == RONDO_ARG_COMM) {
		for (uint32_t c = 0; c < r->ncomms; c++)
			if (r->comm[c].key == value)
				return r->comm[c].me;
		return -1;
	}
	return kind == RONDO_ARG_CONST && value == C_WORLD ? (int64_t)r->rank
							   : -1;
}
