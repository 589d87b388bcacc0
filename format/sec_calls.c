/*
 * sec_calls.c - the sections that say what was called: meta (the job's
 * key/value strings), funcs, consts and the sizes of the constants that
 * are datatypes (typesizes), the argument values, and the call signatures
 * made of them (cst).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format_int.h"

/* ---- section payloads: strings ------------------------------------------- */

/* A string, copied and NUL-terminated; NUL inside would cut it short. */
static int cur_get_str(struct fmt_cur *c, char **out)
{
	const uint8_t *s, *nul;
	size_t n;
	int rc = fmt_get_bytes(c, &s, &n);

	if (rc)
		return rc;
	nul = n ? memchr(s, 0, n) : NULL;
	if (nul)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, (size_t)(nul - c->p),
				    "NUL byte inside a string");
	*out = malloc(n + 1);
	if (!*out)
		return fmt_cur_nomem(c);
	if (n)
		memcpy(*out, s, n);
	(*out)[n] = '\0';
	return 0;
}

void fmt_meta_encode(struct fmt_buf *b, const struct fmt_meta *m)
{
	fmt_put_uvarint(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		fmt_put_str(b, m->kv[i].key);
		fmt_put_str(b, m->kv[i].value);
	}
}

static int meta_read(struct fmt_cur *c, struct fmt_meta *m)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	m->kv = calloc(n ? n : 1, sizeof(*m->kv));
	if (!m->kv)
		return fmt_cur_nomem(c);
	m->n = n;
	for (uint32_t i = 0; i < n && !rc; i++) {
		rc = cur_get_str(c, &m->kv[i].key);
		if (!rc)
			rc = cur_get_str(c, &m->kv[i].value);
	}
	return rc;
}

int fmt_meta_decode(struct fmt_meta *m, const uint8_t *p, size_t n,
		    struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(m, 0, sizeof(*m));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_META), e);
	rc = fmt_cur_done(&c, meta_read(&c, m));
	if (rc)
		fmt_meta_free(m);
	return rc;
}

void fmt_meta_free(struct fmt_meta *m)
{
	for (uint32_t i = 0; m->kv && i < m->n; i++) {
		free(m->kv[i].key);
		free(m->kv[i].value);
	}
	free(m->kv);
	memset(m, 0, sizeof(*m));
}

void fmt_funcs_encode(struct fmt_buf *b, const struct fmt_funcs *f)
{
	fmt_put_uvarint(b, f->n);
	for (uint32_t i = 0; i < f->n; i++) {
		fmt_put_str(b, f->f[i].name);
		fmt_put_uvarint(b, f->f[i].nparams);
		for (uint32_t k = 0; k < f->f[i].nparams; k++) {
			fmt_put_str(b, f->f[i].params[k]);
			fmt_put_uvarint(b,
					f->f[i].flags ? f->f[i].flags[k] : 0);
		}
	}
}

static int func_read(struct fmt_cur *c, struct fmt_func *f)
{
	uint32_t n = 0;
	uint64_t flags = 0;
	int rc = cur_get_str(c, &f->name);

	if (!rc)
		rc = fmt_get_count(c, &n, 2);
	if (rc)
		return rc;
	f->params = calloc(n ? n : 1, sizeof(*f->params));
	f->flags = calloc(n ? n : 1, sizeof(*f->flags));
	if (!f->params || !f->flags)
		return fmt_cur_nomem(c);
	f->nparams = n;
	for (uint32_t k = 0; k < n && !rc; k++) {
		rc = cur_get_str(c, &f->params[k]);
		if (!rc)
			rc = fmt_get_uvarint(c, &flags);
		/* Flags this reader does not know are kept, and ignored. */
		f->flags[k] = (uint8_t)flags;
	}
	return rc;
}

static int funcs_read(struct fmt_cur *c, struct fmt_funcs *f)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 2);

	if (rc)
		return rc;
	f->f = calloc(n ? n : 1, sizeof(*f->f));
	if (!f->f)
		return fmt_cur_nomem(c);
	f->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = func_read(c, &f->f[i]);
	return rc;
}

int fmt_funcs_decode(struct fmt_funcs *f, const uint8_t *p, size_t n,
		     struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(f, 0, sizeof(*f));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_FUNCS), e);
	rc = fmt_cur_done(&c, funcs_read(&c, f));
	if (rc)
		fmt_funcs_free(f);
	return rc;
}

void fmt_funcs_free(struct fmt_funcs *f)
{
	for (uint32_t i = 0; f->f && i < f->n; i++) {
		for (uint32_t k = 0; f->f[i].params && k < f->f[i].nparams; k++)
			free(f->f[i].params[k]);
		free(f->f[i].params);
		free(f->f[i].flags);
		free(f->f[i].name);
	}
	free(f->f);
	memset(f, 0, sizeof(*f));
}

void fmt_consts_encode(struct fmt_buf *b, const struct fmt_consts *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++)
		fmt_put_str(b, c->name[i]);
}

static int consts_read(struct fmt_cur *c, struct fmt_consts *k)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 1);

	if (rc)
		return rc;
	k->name = calloc(n ? n : 1, sizeof(*k->name));
	if (!k->name)
		return fmt_cur_nomem(c);
	k->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = cur_get_str(c, &k->name[i]);
	return rc;
}

int fmt_consts_decode(struct fmt_consts *k, const uint8_t *p, size_t n,
		      struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(k, 0, sizeof(*k));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_CONSTS), e);
	rc = fmt_cur_done(&c, consts_read(&c, k));
	if (rc)
		fmt_consts_free(k);
	return rc;
}

void fmt_consts_free(struct fmt_consts *k)
{
	for (uint32_t i = 0; k->name && i < k->n; i++)
		free(k->name[i]);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

/* ---- argument values ----------------------------------------------------- */

void fmt_arg_put_bytes(struct fmt_buf *b, uint32_t kind, const void *p,
		       size_t n)
{
	fmt_put_varints(b, 1, fmt_arg_tag(kind, RONDO_WIRE_BYTES), n);
	fmt_put_bytes(b, p, n);
}

static int arg_read(struct fmt_cur *c, rondo_arg *a, unsigned depth);

/* A list's elements are checked here, once, so that walking them later
 * (rondo_arg_elem) can trust them; recursion is bounded by depth. */
static int arg_list(struct fmt_cur *c, rondo_arg *a, unsigned depth,
		    size_t start)
{
	uint32_t n;
	rondo_arg el;
	int rc;

	if (depth >= FMT_MAX_ARG_DEPTH)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
				    "lists nested more than %d deep",
				    FMT_MAX_ARG_DEPTH);
	rc = fmt_get_count(c, &n, 1);
	if (rc)
		return rc;
	a->n = n;
	a->data = c->p + c->pos;
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = arg_read(c, &el, depth + 1);
	a->size = (size_t)(c->p + c->pos - a->data);
	return rc;
}

/* A signed value; one relative to the caller's rank must be one that
 * can be added to a rank (FMT_REL_MAX). */
static int sint_read(struct fmt_cur *c, rondo_arg *a, size_t start)
{
	int rc = fmt_get_svarint(c, &a->i);

	if (rc || (a->kind != RONDO_ARG_RANK_REL && a->kind != RONDO_ARG_REL &&
		   a->kind != RONDO_ARG_CART_REL))
		return rc;
	if (a->i < -FMT_REL_MAX || a->i > FMT_REL_MAX)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
				    "relative rank %" PRId64 " is out of range "
				    "(beyond 2^32 either way)",
				    a->i);
	return 0;
}

static int arg_read(struct fmt_cur *c, rondo_arg *a, unsigned depth)
{
	size_t start = c->pos;
	uint64_t tag;
	int rc = fmt_get_uvarint(c, &tag);

	memset(a, 0, sizeof(*a));
	if (rc)
		return rc;
	if (tag >> 3 > UINT32_MAX)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, start,
				    "argument kind %" PRIu64 " out of range",
				    tag >> 3);
	a->kind = (uint32_t)(tag >> 3);
	a->wire = (uint32_t)(tag & 7);
	switch (a->wire) {
	case RONDO_WIRE_NONE: return 0;
	case RONDO_WIRE_UINT: return fmt_get_uvarint(c, &a->u);
	case RONDO_WIRE_SINT: return sint_read(c, a, start);
	case RONDO_WIRE_BYTES: return fmt_get_bytes(c, &a->data, &a->size);
	case RONDO_WIRE_LIST: return arg_list(c, a, depth, start);
	}
	return fmt_cur_fail(c, RONDO_E_CORRUPT, start, "unknown wire type %u",
			    a->wire);
}

int fmt_arg_get(struct fmt_cur *c, rondo_arg *out)
{
	return arg_read(c, out, 0);
}

/* Re-encodes a value already checked by arg_read, element by element. */
static void arg_copy(struct fmt_buf *out, const rondo_arg *a, uint32_t kind,
		     uint64_t (*map)(void *ctx, uint64_t v), void *ctx)
{
	struct fmt_cur in;
	rondo_arg el;

	switch (a->wire) {
	case RONDO_WIRE_NONE: fmt_arg_put_none(out, a->kind); break;
	case RONDO_WIRE_UINT:
		fmt_arg_put_uint(out, a->kind,
				 a->kind == kind ? map(ctx, a->u) : a->u);
		break;
	case RONDO_WIRE_SINT: fmt_arg_put_sint(out, a->kind, a->i); break;
	case RONDO_WIRE_BYTES:
		fmt_arg_put_bytes(out, a->kind, a->data, a->size);
		break;
	case RONDO_WIRE_LIST:
		fmt_arg_put_list(out, a->kind, a->n);
		fmt_cur_init(&in, a->data, a->size, NULL, NULL);
		for (uint64_t k = 0; k < a->n && arg_read(&in, &el, 1) == 0;
		     k++)
			arg_copy(out, &el, kind, map, ctx);
		break;
	}
}

int fmt_arg_map(struct fmt_buf *out, struct fmt_cur *in, uint32_t kind,
		uint64_t (*map)(void *ctx, uint64_t v), void *ctx)
{
	rondo_arg a;
	int rc = arg_read(in, &a, 0);

	if (rc == 0)
		arg_copy(out, &a, kind, map, ctx);
	return rc;
}

/* ---- call signatures ----------------------------------------------------- */

void fmt_cst_encode(struct fmt_buf *b, const struct fmt_cst *c)
{
	fmt_put_uvarint(b, c->n);
	for (uint32_t i = 0; i < c->n; i++) {
		fmt_put_uvarint(b, c->sig[i].func);
		fmt_put_uvarint(b, c->sig[i].nargs);
		fmt_put_uvarint(b, c->sig[i].len);
		fmt_put_bytes(b, c->sig[i].args, c->sig[i].len);
	}
}

/* Checks one signature's arguments with a cursor that ends where they end
 * but shares the section's base, so error offsets stay section offsets.
 * Running past that end is corruption, not truncation: the section went
 * on. */
static int sig_args(struct fmt_cur *c, uint64_t nargs, size_t nbytes)
{
	struct fmt_cur a = *c;
	rondo_arg v;
	int rc = 0;

	a.len = c->pos + nbytes;
	for (uint64_t k = 0; k < nargs && !rc; k++)
		rc = fmt_arg_get(&a, &v);
	if (!rc && a.pos != a.len)
		rc = fmt_cur_fail(&a, RONDO_E_CORRUPT, a.pos,
				  "%zu bytes after the last argument",
				  a.len - a.pos);
	if (rc == RONDO_E_TRUNCATED)
		rc = RONDO_E_CORRUPT;
	if (rc && c->e) {
		c->e->code = rc;
		c->e->size = c->len;
	}
	return rc;
}

static int sig_read(struct fmt_cur *c, struct fmt_sig *s, uint32_t nfuncs)
{
	size_t at = c->pos;
	uint64_t func, nargs, nbytes = 0;
	int rc = fmt_get_uvarint(c, &func);

	if (rc)
		return rc;
	if (func >= nfuncs)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "signature of function %" PRIu64
				    ", the file has %u functions",
				    func, nfuncs);
	at = c->pos;
	rc = fmt_get_uvarint(c, &nargs);
	if (!rc)
		rc = fmt_get_uvarint(c, &nbytes);
	if (rc)
		return rc;
	if (nbytes > cur_left(c))
		return fmt_cur_fail(c, RONDO_E_TRUNCATED, at,
				    "arguments of %" PRIu64 " bytes, %zu left",
				    nbytes, cur_left(c));
	if (nargs > nbytes || nbytes > UINT32_MAX)
		return fmt_cur_fail(c, RONDO_E_CORRUPT, at,
				    "%" PRIu64 " arguments in %" PRIu64
				    " bytes",
				    nargs, nbytes);
	rc = sig_args(c, nargs, (size_t)nbytes);
	if (rc)
		return rc;
	s->func = (uint32_t)func;
	s->nargs = (uint32_t)nargs;
	s->len = (uint32_t)nbytes;
	s->args = c->p + c->pos;
	c->pos += (size_t)nbytes;
	return 0;
}

/* Copies the argument bytes out of the payload, so the table outlives it. */
static int cst_own(struct fmt_cur *c, struct fmt_cst *t)
{
	size_t total = 0, at = 0;

	for (uint32_t i = 0; i < t->n; i++)
		total += t->sig[i].len;
	t->blob = malloc(total ? total : 1);
	if (!t->blob)
		return fmt_cur_nomem(c);
	for (uint32_t i = 0; i < t->n; i++) {
		if (t->sig[i].len)
			memcpy(t->blob + at, t->sig[i].args, t->sig[i].len);
		t->sig[i].args = t->blob + at;
		at += t->sig[i].len;
	}
	return 0;
}

static int cst_read(struct fmt_cur *c, struct fmt_cst *t, uint32_t nfuncs)
{
	uint32_t n;
	int rc = fmt_get_count(c, &n, 3);

	if (rc)
		return rc;
	t->sig = calloc(n ? n : 1, sizeof(*t->sig));
	if (!t->sig)
		return fmt_cur_nomem(c);
	t->n = n;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = sig_read(c, &t->sig[i], nfuncs);
	return rc ? rc : cst_own(c, t);
}

int fmt_cst_decode(struct fmt_cst *t, const uint8_t *p, size_t n,
		   uint32_t nfuncs, struct fmt_err *e)
{
	struct fmt_cur c;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&c, p, n, fmt_section_name(FMT_SEC_CST), e);
	rc = fmt_cur_done(&c, cst_read(&c, t, nfuncs));
	if (rc)
		fmt_cst_free(t);
	return rc;
}

void fmt_cst_free(struct fmt_cst *t)
{
	free(t->sig);
	free(t->blob);
	memset(t, 0, sizeof(*t));
}

/* ---- sizes of predefined datatypes --------------------------------------- */

void fmt_typesizes_encode(struct fmt_buf *b, const struct fmt_typesizes *t)
{
	fmt_put_uvarint(b, t->n);
	for (uint32_t i = 0; i < t->n; i++) {
		fmt_put_uvarint(b, t->konst[i]);
		fmt_put_uvarint(b, t->size[i]);
	}
}

int fmt_typesizes_decode(struct fmt_typesizes *t, const uint8_t *p, size_t n,
			 uint32_t nconsts, struct fmt_err *e)
{
	struct fmt_cur cur;
	uint32_t count;
	int rc;

	memset(t, 0, sizeof(*t));
	fmt_cur_init(&cur, p, n, fmt_section_name(FMT_SEC_TYPESIZES), e);
	rc = fmt_get_count(&cur, &count, 2);
	if (!rc) {
		t->konst = malloc(sizeof(*t->konst) * (count + 1));
		t->size = malloc(sizeof(*t->size) * (count + 1));
		if (!t->konst || !t->size)
			rc = fmt_cur_nomem(&cur);
	}
	for (uint32_t i = 0; i < count && !rc; i++) {
		size_t at = cur.pos;
		uint64_t k;

		rc = fmt_get_uvarint(&cur, &k);
		if (!rc && (k >= nconsts || (i && k <= t->konst[i - 1])))
			rc = fmt_cur_fail(&cur, RONDO_E_CORRUPT, at,
					  "constant %" PRIu64 " (%u of them, "
					  "not in increasing order?)",
					  k, nconsts);
		rc = rc ? rc : fmt_get_uvarint(&cur, &t->size[i]);
		if (!rc) {
			t->konst[i] = (uint32_t)k;
			t->n = i + 1;
		}
	}
	rc = fmt_cur_done(&cur, rc);
	if (rc)
		fmt_typesizes_free(t);
	return rc;
}

void fmt_typesizes_free(struct fmt_typesizes *t)
{
	free(t->konst);
	free(t->size);
	memset(t, 0, sizeof(*t));
}
