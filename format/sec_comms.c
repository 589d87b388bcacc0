/*
 * sec_comms.c - the sections of who talked with whom: the communicators'
 * members (comms) and their Cartesian topologies.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

/* ---- communicators ------------------------------------------------------- */

/* Members as runs of equal strides: a communicator of every other rank,
 * or of a block, takes a few bytes whatever its size. */
static void members_put(struct fmt_buf *b, const uint32_t *w, uint32_t n)
{
	uint32_t runs = 0;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			fmt_put_uvarint(b, runs);
		for (uint32_t i = 0; i < n;) {
			uint32_t len = 1;
			int64_t stride =
				i + 1 < n ? (int64_t)w[i + 1] - w[i] : 1;

			while (i + len < n &&
			       (int64_t)w[i + len] - w[i + len - 1] == stride)
				len++;
			if (pass == 0) {
				runs++;
			} else {
				fmt_put_uvarint(b, w[i]);
				fmt_put_uvarint(b, len);
				fmt_put_svarint(b, len > 1 ? stride : 0);
			}
			i += len;
		}
	}
}

void fmt_comms_encode(struct fmt_buf *b, const struct fmt_comms *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++) {
		fmt_put_uvarint(b, c->c[i].n);
		fmt_put_uvarint(b, c->c[i].first);
		members_put(b, c->c[i].world, c->c[i].n);
	}
}

static int run_read(struct fmt_cur *c, struct fmt_comm *m, uint32_t *have,
		    uint32_t nranks)
{
	size_t at = c->pos;
	uint64_t start, len;
	int64_t stride;
	int rc = fmt_get_uvarint(c, &start);

	if (!rc)
		rc = fmt_get_uvarint(c, &len);
	if (!rc)
		rc = fmt_get_svarint(c, &stride);
	if (rc)
		return rc;
	if (len == 0 || len > m->n - *have)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a run of %" PRIu64 " members, %u left",
				    len, m->n - *have);
	for (uint64_t k = 0; k < len; k++) {
		/* start < 2^32 and |stride| < 2^32 keep this in range */
		int64_t r = start < nranks && stride > -(1ll << 32) &&
					    stride < (1ll << 32)
				    ? (int64_t)start + (int64_t)k * stride
				    : -1;

		if (r < 0 || r >= nranks)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
					    "member %" PRIu64 " of a run is "
					    "not a rank of the job (%u ranks)",
					    k, nranks);
		m->world[(*have)++] = (uint32_t)r;
	}
	return 0;
}

static int comm_read(struct fmt_cur *c, struct fmt_comm *m, uint32_t nranks)
{
	size_t at = c->pos;
	uint32_t runs = 0, have = 0;
	uint64_t first, n;
	/* Runs make members cheap: the bound is the job, not the bytes. */
	int rc = fmt_get_uvarint(c, &n);

	if (!rc && n > nranks)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a communicator of %" PRIu64 " members, "
				    "the job had %u ranks",
				    n, nranks);
	m->n = (uint32_t)n;
	if (!rc)
		rc = fmt_get_uvarint(c, &first);
	if (!rc && first > m->n)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "first group of %" PRIu64 " in %u members",
				    first, m->n);
	if (!rc)
		rc = fmt_get_count(c, &runs, 3);
	if (rc)
		return rc;
	m->first = (uint32_t)first;
	m->world = malloc(sizeof(*m->world) * (m->n ? m->n : 1));
	if (!m->world)
		return fmt_cur_nomem(c);
	for (uint32_t k = 0; k < runs && !rc; k++)
		rc = run_read(c, m, &have, nranks);
	if (!rc && have != m->n)
		rc = fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				  "runs give %u of %u members", have, m->n);
	return rc;
}

int fmt_comms_decode(struct fmt_comms *c, const uint8_t *p, size_t n,
		     uint32_t nranks, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(c, 0, sizeof(*c));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_COMMS), e);
	rc = fmt_get_count(&cur, &count, 3);
	if (!rc) {
		c->c = calloc(count ? count : 1, sizeof(*c->c));
		if (!c->c)
			rc = fmt_cur_nomem(&cur);
		else
			c->n = count;
	}
	for (uint32_t i = 0; i < c->n && !rc; i++)
		rc = comm_read(&cur, &c->c[i], nranks);
	rc = fmt_cur_done(&cur, rc);
	if (rc)
		fmt_comms_free(c);
	return rc;
}

void fmt_comms_free(struct fmt_comms *c)
{
	for (uint32_t i = 0; c->c && i < c->n; i++)
		free(c->c[i].world);
	free(c->c);
	memset(c, 0, sizeof(*c));
}

/* ---- Cartesian topologies ----------------------------------------------- */

void fmt_topos_encode(struct fmt_buf *b, const struct fmt_topos *t)
{
	fmt_put_uvarint(b, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		fmt_put_uvarint(b, t->t[i].comm);
		fmt_put_uvarint(b, t->t[i].ndims);
		for (uint32_t k = 0; k < t->t[i].ndims; k++) {
			fmt_put_uvarint(b, t->t[i].dims[k]);
			fmt_put_uvarint(b, t->t[i].periodic[k]);
		}
	}
}

static int topo_read(struct fmt_cur *c, struct fmt_topo *t,
		     const struct fmt_comms *comms, int64_t prev)
{
	size_t at = c->pos;
	uint64_t comm, v, product = 1;
	uint32_t nd = 0;
	int rc = fmt_get_uvarint(c, &comm);

	if (!rc && (comm >= comms->n || (int64_t)comm <= prev))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "communicator %" PRIu64 " (%u of them, the "
				    "previous %" PRId64 ")",
				    comm, comms->n, prev);
	if (!rc)
		rc = fmt_get_count(c, &nd, 2);
	if (!rc && (nd == 0 || nd > FMT_MAX_DIMS))
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at, "%u dimensions",
				    nd);
	if (rc)
		return rc;
	t->comm = (uint32_t)comm;
	t->dims = malloc(sizeof(*t->dims) * nd);
	t->periodic = malloc(nd);
	if (!t->dims || !t->periodic)
		return fmt_cur_nomem(c);
	t->ndims = nd;
	for (uint32_t k = 0; k < nd && !rc; k++) {
		size_t d = c->pos;

		rc = fmt_get_uvarint(c, &v);
		if (!rc && (v == 0 || v > UINT32_MAX))
			return fmt_cur_fail(c, RONDO_E_CORRUPT, d,
					    "a dimension of %" PRIu64 " ranks",
					    v);
		t->dims[k] = (uint32_t)v;
		product = product > UINT32_MAX ? product : product * v;
		rc = rc ? rc : fmt_get_uvarint(c, &v);
		if (!rc && v > 1)
			return fmt_cur_fail(c, RONDO_E_CORRUPT, d,
					    "periodic flag %" PRIu64, v);
		t->periodic[k] = (uint8_t)v;
	}
	if (!rc && comms->c[comm].n && product != comms->c[comm].n)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "a grid of %" PRIu64 " ranks for a "
				    "communicator of %u",
				    product, comms->c[comm].n);
	return rc;
}

int fmt_topos_decode(struct fmt_topos *t, const uint8_t *p, size_t n,
		     const struct fmt_comms *comms, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_TOPOLOGY), e);
	rc = fmt_get_count(&cur, &count, 4);
	if (!rc) {
		t->t = calloc(count ? count : 1, sizeof(*t->t));
		if (!t->t)
			rc = fmt_cur_nomem(&cur);
		else
			t->n = count;
	}
	for (uint32_t i = 0; i < t->n && !rc; i++)
		rc = topo_read(&cur, &t->t[i], comms,
			       i ? (int64_t)t->t[i - 1].comm : -1);
	rc = fmt_cur_done(&cur, rc);
	if (rc)
		fmt_topos_free(t);
	return rc;
}

void fmt_topos_free(struct fmt_topos *t)
{
	for (uint32_t i = 0; t->t && i < t->n; i++) {
		free(t->t[i].dims);
		free(t->t[i].periodic);
	}
	free(t->t);
	memset(t, 0, sizeof(*t));
}
