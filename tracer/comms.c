/*
 * comms.c - communicators named by their members.
 *
 * Every member of a communicator must record it under the same id, and
 * analyses must map its ranks back to world ranks.  Creation order differs
 * between ranks, so instead a communicator's identity is a hash of its
 * members' world ranks (in its own rank order) and an instance number: the
 * lowest one no live communicator with the same members holds.  Creating
 * and freeing are collective over the members, so they all compute the same
 * identity without talking to each other, and re-creating a communicator in
 * a loop gives it the same identity every time.
 *
 * The identities are 64-bit; at MPI_Finalize the member with the lowest
 * world rank of each one adds its member list to the merge (merge_tree.c),
 * and rank 0 renumbers them into small ids (c0, c1, ...) (output.c).
 */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "merge.h"
#include "runtime.h"
#include "spill_fmt.h"
#include "util.h"

struct ident {
	uint64_t key;
	uint32_t live;	/* handles of this rank with this identity */
	uint32_t n;	/* members */
	uint32_t first; /* intercommunicator: size of its first group, else 0 */
	int me;		/* this rank's rank in it */
	int *world;	/* their world ranks, kept by the lowest one only */
	/* the argument that names it, encoded once: a 64-bit key is a
	 * ten-byte varint, and calls name their communicator every time */
	uint8_t nenc, enc[15];
	struct comm_cart cart; /* ndims 0: no Cartesian topology */
};

static struct hmap by_handle; /* handle -> ident index, or a constant */
static struct ident *idents;
static uint32_t nidents;
static size_t capidents;
static struct hmap by_key; /* identity -> ident index */

#define KEY(h) HMAP_KEY(h)

void comms_name(MPI_Comm c, uint32_t constant)
{
	hmap_set_const(&by_handle, KEY(c), constant);
}

static int lowest(const int *w, int n)
{
	int m = n > 0 ? w[0] : 0;

	for (int i = 1; i < n; i++)
		m = w[i] < m ? w[i] : m;
	return m;
}

/* An intercommunicator's two groups, the one with the lowest world rank
 * first, so that both sides name it alike. */
static void canonical_order(int *w, int nl, int nr, uint32_t *first)
{
	int *tmp;

	*first = (uint32_t)nl;
	if (nr == 0 || lowest(w, nl) < lowest(w + nl, nr))
		return;
	tmp = malloc(sizeof(int) * (size_t)nl);
	if (!tmp)
		return;
	memcpy(tmp, w, sizeof(int) * (size_t)nl);
	memmove(w, w + nl, sizeof(int) * (size_t)nr);
	memcpy(w + nr, tmp, sizeof(int) * (size_t)nl);
	free(tmp);
	*first = (uint32_t)nr;
}

/* World ranks of the members: the group in rank order; for an
 * intercommunicator both groups (*first: the first one's size).  NULL
 * when MPI says no. */
static int *comm_members(MPI_Comm c, uint32_t *n, uint32_t *first)
{
	MPI_Group local, remote = MPI_GROUP_NULL;
	int isinter = 0, nl = 0, nr = 0, *in, *out = NULL;

	if (PMPI_Comm_test_inter(c, &isinter) || PMPI_Comm_group(c, &local))
		return NULL;
	if (isinter && PMPI_Comm_remote_group(c, &remote)) {
		PMPI_Group_free(&local);
		return NULL;
	}
	PMPI_Group_size(local, &nl);
	if (isinter)
		PMPI_Group_size(remote, &nr);
	in = malloc(sizeof(int) * (size_t)(nl + nr + 1));
	out = malloc(sizeof(int) * (size_t)(nl + nr + 1));
	if (in && out) {
		for (int i = 0; i < nl + nr; i++)
			in[i] = i < nl ? i : i - nl;
		PMPI_Group_translate_ranks(local, nl, in, rt.world_group, out);
		if (isinter)
			PMPI_Group_translate_ranks(remote, nr, in + nl,
						   rt.world_group, out + nl);
	} else {
		free(out);
		out = NULL;
	}
	free(in);
	PMPI_Group_free(&local);
	if (isinter)
		PMPI_Group_free(&remote);
	*n = (uint32_t)(nl + nr);
	*first = 0;
	if (out && isinter)
		canonical_order(out, nl, nr, first);
	return out;
}

static uint64_t members_hash(const int *w, uint32_t n, uint32_t first)
{
	uint64_t h = 0xcbf29ce484222325ull ^ first;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ (uint32_t)w[i]) * 0x100000001b3ull;
	return h ^ (h >> 31);
}

/* The Cartesian topology of c, if it has one of up to COMMS_MAX_DIMS
 * dimensions; g->ndims 0 if not. */
static void cart_of(MPI_Comm c, uint32_t n, struct comm_cart *g)
{
	int kind = MPI_UNDEFINED, nd = 0, dims[COMMS_MAX_DIMS];
	int periods[COMMS_MAX_DIMS], coords[COMMS_MAX_DIMS];
	uint64_t product = 1;

	g->ndims = 0;
	if (PMPI_Topo_test(c, &kind) != MPI_SUCCESS || kind != MPI_CART ||
	    PMPI_Cartdim_get(c, &nd) != MPI_SUCCESS || nd < 1 ||
	    nd > COMMS_MAX_DIMS ||
	    PMPI_Cart_get(c, nd, dims, periods, coords) != MPI_SUCCESS)
		return;
	for (int k = 0; k < nd; k++) {
		if (dims[k] < 1)
			return;
		product *= (uint64_t)dims[k];
		g->dims[k] = (uint32_t)dims[k];
		g->periodic[k] = periods[k] != 0;
	}
	if (product == n)
		g->ndims = (uint32_t)nd;
}

int64_t comms_cart_offset(const struct comm_cart *g, int me, int rank)
{
	int64_t v = 0, stride = 1;

	/* the last dimension varies fastest */
	for (uint32_t k = g->ndims; k-- > 0;) {
		int64_t n = g->dims[k], d = ((rank % n) - (me % n) + n) % n;

		if (d > n / 2)
			d -= n;
		v += d * stride;
		stride *= n;
		me /= (int)n;
		rank /= (int)n;
	}
	return v;
}

/* The identity a new communicator gets: the first instance of its member
 * set and topology (those of `like`) no live handle holds.  Returns its
 * index, or UINT32_MAX. */
static uint32_t ident_for(MPI_Comm like)
{
	uint32_t n, i, first;
	int *w = comm_members(like, &n, &first);
	struct comm_cart cart;
	uint64_t h;

	if (!w)
		return UINT32_MAX;
	cart_of(like, n, &cart);
	h = members_hash(w, n, first);
	for (uint32_t k = 0; k < cart.ndims; k++)
		h = (h ^ (cart.dims[k] << 1 | cart.periodic[k])) *
		    0x100000001b3ull;
	for (uint64_t inst = 0;; inst++) {
		uint64_t key = h ^ (inst * 0x9e3779b97f4a7c15ull);

		i = hmap_lookup(&by_key, key);
		if (i != UINT32_MAX && idents[i].live > 0)
			continue;
		if (i == UINT32_MAX) {
			i = nidents;
			if (util_grow(&idents, &capidents, (size_t)nidents + 1,
				      sizeof(*idents)) < 0 ||
			    hmap_insert(&by_key, key, i) < 0)
				break;
			idents[i] = (struct ident){key,	 0, n,	 first, 0,
						   NULL, 0, {0}, cart};
			idents[i].nenc =
				(uint8_t)(fmt_varint_at(
						  fmt_varint_at(
							  idents[i].enc,
							  fmt_arg_tag(
								  RONDO_ARG_COMM,
								  RONDO_WIRE_UINT)),
						  key) -
					  idents[i].enc);
			for (uint32_t k = 0; k < n; k++)
				if (w[k] == rt.rank)
					idents[i].me = (int)k;
			nidents++;
		}
		/* The lowest world rank speaks for the members. */
		if (!idents[i].world && lowest(w, (int)n) == rt.rank) {
			idents[i].world = w;
			w = NULL;
		}
		free(w);
		return i;
	}
	free(w);
	return UINT32_MAX;
}

/* Takes a new handle into the table, with the members of `like`; returns
 * its ident or constant. */
static uint32_t comm_adopt_like(MPI_Comm c, MPI_Comm like)
{
	uint32_t v = hmap_lookup(&by_handle, KEY(c));

	if (v == UINT32_MAX) {
		v = ident_for(like);
		if (v == UINT32_MAX || hmap_insert(&by_handle, KEY(c), v) < 0)
			return UINT32_MAX;
		idents[v].live++;
	} else if (!(v & CONST_FLAG)) {
		hmap_insert(&by_handle, KEY(c), v); /* the same value again */
	}
	return v;
}

static uint32_t comm_adopt(MPI_Comm c)
{
	return comm_adopt_like(c, c);
}

static void comm_release(MPI_Comm c)
{
	uint32_t v;

	if (hmap_unref(&by_handle, KEY(c), &v) == 1 && v < nidents)
		idents[v].live--;
	rec_epoch_bump();
}

static void put_comm(struct rec *r, uint32_t v)
{
	if (v == UINT32_MAX) {
		rt.failed = 1;
		rec_null(r);
	} else if (v & CONST_FLAG) {
		fmt_arg_put_uint(rec_args(r), RONDO_ARG_CONST, v & ~CONST_FLAG);
	} else {
		struct fmt_buf *b = rec_args(r);

		if (fmt_buf_reserve(b, sizeof(idents[v].enc)) == 0) {
			memcpy(b->data + b->len, idents[v].enc,
			       sizeof(idents[v].enc));
			b->len += idents[v].nenc;
		}
	}
}

/* comms_describe for handle c, whose table entry is v. */
static int describe(MPI_Comm c, uint32_t v, uint32_t *kind, uint64_t *value,
		    int *me, int *size)
{
	*me = *size = -1;
	if (v == UINT32_MAX)
		return -1;
	if (v & CONST_FLAG) {
		*kind = RONDO_ARG_CONST;
		*value = v & ~CONST_FLAG;
		if (c == MPI_COMM_WORLD) {
			*me = rt.rank;
			*size = rt.size;
		} else if (c == MPI_COMM_SELF) {
			*me = 0;
			*size = 1;
		}
		return *me < 0 ? -1 : 0;
	}
	*kind = RONDO_ARG_COMM;
	*value = idents[v].key;
	if (idents[v].first)
		return 1;
	*me = idents[v].me;
	*size = (int)idents[v].n;
	return 0;
}

int comms_describe(MPI_Comm c, uint32_t *kind, uint64_t *value, int *me,
		   int *size)
{
	return describe(c, hmap_lookup(&by_handle, KEY(c)), kind, value, me,
			size);
}

int comms_rank(MPI_Comm c, int *me, int *size, const struct comm_cart **cart)
{
	uint32_t kind, v;
	uint64_t value;
	int rc;

	*cart = NULL;
	/* the common case first, without a lookup */
	if (c == MPI_COMM_WORLD) {
		*me = rt.rank;
		*size = rt.size;
		return 0;
	}
	v = hmap_lookup(&by_handle, KEY(c));
	rc = describe(c, v, &kind, &value, me, size);
	if (rc == 0 && !(v & CONST_FLAG) && idents[v].cart.ndims)
		*cart = &idents[v].cart;
	return rc;
}

void rec_comm(struct rec *r, MPI_Comm c)
{
	uint32_t v = hmap_lookup(&by_handle, KEY(c));

	/* One created before tracing began, or out of our sight. */
	put_comm(r, v != UINT32_MAX ? v : comm_adopt(c));
}

void rec_comm_out(struct rec *r, MPI_Comm c)
{
	put_comm(r, comm_adopt(c));
}

void rec_comm_dup_out(struct rec *r, MPI_Comm c, MPI_Comm parent)
{
	/* the duplicate may not be usable before the request completes,
	 * but its members are the parent's */
	if (c == MPI_COMM_NULL || parent == MPI_COMM_NULL)
		rec_comm_out(r, c);
	else
		put_comm(r, comm_adopt_like(c, parent));
}

void rec_comm_inout(struct rec *r, MPI_Comm before, MPI_Comm after)
{
	rec_comm(r, before);
	if (KEY(after) == KEY(before))
		return;
	comm_release(before);
	if (after != MPI_COMM_NULL)
		comm_adopt(after);
}

int comms_key_rank(uint64_t key)
{
	uint32_t i = hmap_lookup(&by_key, key);

	return i == UINT32_MAX || idents[i].first ? -1 : idents[i].me;
}

int comms_merge(struct merge *m)
{
	for (uint32_t i = 0; i < nidents; i++) {
		struct ident *d = &idents[i];
		struct fmt_comm c = {d->n, d->first, NULL};
		struct fmt_topo g = {0, d->cart.ndims, d->cart.dims,
				     d->cart.periodic};
		int rc;

		if (!d->world)
			continue;
		c.world = malloc(sizeof(uint32_t) * ((size_t)d->n + 1));
		if (!c.world)
			return RONDO_E_NOMEM;
		for (uint32_t k = 0; k < d->n; k++)
			c.world[k] = (uint32_t)d->world[k];
		rc = merge_add_comm(m, d->key, &c, &g);
		free(c.world);
		if (rc)
			return rc;
	}
	return 0;
}

void comms_spill(struct spill_w *w, uint32_t *done)
{
	for (uint32_t i = *done; i < nidents; i++) {
		const struct ident *d = &idents[i];
		size_t need = (8 + 2 * COMMS_MAX_DIMS) * SPILL_UV_MAX + 8;
		/* the members as the memory holds them: 32-bit ints */
		size_t nw = d->world ? sizeof(int) * d->n : 0;
		int big = spill_w_room(w, SPILL_COMMS, need + nw) < 0;

		if (big)
			spill_w_big_head(w, SPILL_COMMS);
		spill_w_le64(w, d->key);
		spill_w_sv(w, d->first ? -1 : d->me);
		spill_w_uv(w, d->n);
		spill_w_uv(w, d->first);
		spill_w_uv(w, d->cart.ndims);
		for (uint32_t k = 0; k < d->cart.ndims; k++) {
			spill_w_uv(w, d->cart.dims[k]);
			spill_w_u8(w, d->cart.periodic[k]);
		}
		spill_w_u8(w, d->world != NULL);
		if (big)
			spill_w_big_end(w, d->world, nw);
		else
			spill_w_bytes(w, d->world, nw);
	}
	*done = nidents;
}
