/*
 * proxy.c - `rondo proxy`: writes a trace out as one C file that replays
 * it, to hand to someone who has not got the program (Pilgrim's and
 * Siesta's proxy apps, with rondo-replay's fidelity).
 *
 * The proxy grows with the grammar, not with the calls: its signatures
 * as C data (each signature's values decoded once per rank, as
 * rondo-replay decodes them, kept once when the ranks agree and as a
 * by-rank table of the integers where they do not), one C function per
 * rule with for loops for repeats, and main() with a branch per rank
 * group.  What replays them is rondo-replay's own runtime (rt.c,
 * complete.c, the generated call functions of the functions the trace
 * calls), copied in from proxy_text.c, with proxy_rt.c in place of the
 * trace reader.
 *
 * One thing rondo-replay does at run time is done here, once: a wildcard
 * receive (MPI_Irecv with MPI_ANY_SOURCE...) is posted with the source
 * and tag it matched, which only the call that completed it says.  The
 * proxy has no iterator to look ahead with, so the generator looks,
 * through the grammar: from the receive's place in its rule, on through
 * the rule's expansion, and where that ends, through every place the rule
 * is used (the next repetition, then what follows).  When every way on
 * finds the same completing call (signature, argument, element), the
 * receive is posted as that call's status says; when the ways disagree,
 * the receive stays a wildcard (the report counts them).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "draw.h"
#include "pairing.h"
#include "proxy_gen.h"
#include "proxy_text.h"
#include "util.h"

/* The most grammar symbols one wildcard's search may visit. */
#define SEARCH_BUDGET (1u << 20)

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return RONDO_E_NOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static int buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int buf_printf(struct buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return RONDO_E_NOMEM;
	if ((size_t)n < sizeof tmp)
		return buf_add(b, tmp, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big)
		return RONDO_E_NOMEM;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	int r = buf_add(b, big, (size_t)n);
	free(big);
	return r;
}

/* A wildcard receive's place in a rule body, and what it matched. */
enum { SITE_NONE, SITE_FOUND, SITE_AHEAD };
struct site {
	int state;
	int msig, k, j;
};

enum { RES_NONE, RES_FOUND, RES_GIVEUP };
struct res {
	int st;
	int msig, k, j;
};

struct parent {
	uint32_t rule, pos;
};

struct gen {
	const rondo_trace *t;
	FILE *f;
	uint32_t nranks, nsigs, nrules, nfuncs, ngroups, nconsts;
	int *group_of;	    /* by rank */
	uint8_t *reach;	    /* ngroups x nrules */
	uint8_t *gsig;	    /* ngroups x nsigs: the group calls it */
	uint8_t *rule_used; /* by rule: some group's */
	uint8_t *func_used;
	int *call_of; /* by function: rp_px_calls index; -2 by hand; -1 */
	int *kreq;    /* by function: its request, when its wildcard is
			 resolved ahead (Irecv, Recv_init); -1 */
	int *ksrc, *ktag;
	/* the current rank's signatures, decoded as met */
	struct rp_whole *whole; /* rp_whole_read(t) */
	uint32_t dec_rank;
	struct rp_val **dec;
	uint32_t *dec_n;
	/* where each rule is used */
	uint32_t *par_off;
	struct parent *par;
	struct site **sites; /* by rule: by body position, or NULL */
	uint64_t budget;
	struct rp_names names;
	int ahead;	 /* some wildcard's match is read ahead at run time */
	int drawn;	 /* merged loops run px_draw's counts */
	uint32_t nhists; /* merged loops' histograms */
	int err;
};

static const char *const by_hand[] = {"MPI_Init", "MPI_Init_thread",
				      "MPI_Finalize", "MPI_Pcontrol"};

static int call_cmp(const void *key, const void *e)
{
	return strcmp(key, ((const struct rp_px_call *)e)->name);
}

/* The trace's parameter names of function f, space-separated. */
static int func_params(const rondo_trace *t, uint32_t f, struct buf *b)
{
	b->len = 0;
	if (buf_add(b, "", 0) < 0)
		return RONDO_E_NOMEM;
	for (uint32_t p = 0; p < rondo_func_param_count(t, f); p++) {
		const char *pn = rondo_func_param_name(t, f, p);
		if (buf_printf(b, "%s%s", p ? " " : "", pn ? pn : "?") < 0)
			return RONDO_E_NOMEM;
	}
	return 0;
}

/* ---- which rules and signatures each rank group runs ---------------- */

static int reach(struct gen *G)
{
	G->reach = calloc((size_t)G->ngroups * G->nrules + 1, 1);
	G->gsig = calloc((size_t)G->ngroups * G->nsigs + 1, 1);
	G->rule_used = calloc(G->nrules + 1, 1);
	if (!G->reach || !G->gsig || !G->rule_used)
		return RONDO_E_NOMEM;
	for (uint32_t g = 0; g < G->ngroups; g++) {
		uint8_t *rr = G->reach + (size_t)g * G->nrules;
		uint8_t *ss = G->gsig + (size_t)g * G->nsigs;
		uint32_t root = rondo_group_root(G->t, g);
		if (root >= G->nrules)
			continue;
		rr[root] = 1;
		/* a rule names only rules of smaller ids: one pass down */
		for (uint32_t r = root + 1; r-- > 0;) {
			const rondo_sym *body;
			uint32_t len;
			if (!rr[r] || rondo_rule_body(G->t, r, &body, &len) < 0)
				continue;
			G->rule_used[r] = 1;
			for (uint32_t q = 0; q < len; q++) {
				uint32_t id = RONDO_SYM_ID(body[q].sym);
				if (RONDO_SYM_IS_RULE(body[q].sym)) {
					if (id < G->nrules)
						rr[id] = 1;
				} else if (id < G->nsigs)
					ss[id] = 1;
			}
		}
	}
	return 0;
}

/* Rule r's body, when some rank group runs it. */
static int used_body(const struct gen *G, uint32_t r, const rondo_sym **body,
		     uint32_t *len)
{
	return G->rule_used[r] && rondo_rule_body(G->t, r, body, len) == 0;
}

static int sig_used(const struct gen *G, uint32_t s)
{
	for (uint32_t g = 0; g < G->ngroups; g++)
		if (G->gsig[(size_t)g * G->nsigs + s])
			return 1;
	return 0;
}

/* Every function the trace calls can be issued; *bad the others named. */
static int functions(struct gen *G, struct buf *bad)
{
	struct buf p = {0};
	int nbad = 0;

	G->func_used = calloc(G->nfuncs + 1, 1);
	G->call_of = calloc(G->nfuncs + 1, sizeof *G->call_of);
	G->kreq = calloc(G->nfuncs + 1, sizeof *G->kreq);
	G->ksrc = calloc(G->nfuncs + 1, sizeof *G->ksrc);
	G->ktag = calloc(G->nfuncs + 1, sizeof *G->ktag);
	if (!G->func_used || !G->call_of || !G->kreq || !G->ksrc || !G->ktag)
		return RONDO_E_NOMEM;
	for (uint32_t s = 0; s < G->nsigs; s++)
		if (sig_used(G, s) && rondo_sig_func(G->t, s) < G->nfuncs)
			G->func_used[rondo_sig_func(G->t, s)] = 1;
	for (uint32_t f = 0; f < G->nfuncs; f++) {
		const char *n = rondo_func_name(G->t, f);
		const struct rp_px_call *c;
		const char *w;
		G->call_of[f] = -1;
		G->kreq[f] = -1;
		G->ksrc[f] = rp_trace_param(G->t, f, "source");
		G->ktag[f] = rp_trace_param(G->t, f, "tag");
		if (!G->func_used[f] || !n)
			continue;
		for (size_t k = 0; k < sizeof by_hand / sizeof *by_hand; k++)
			if (!strcmp(n, by_hand[k]))
				G->call_of[f] = -2;
		if (G->call_of[f] == -2)
			continue;
		c = bsearch(n, rp_px_calls, rp_px_ncalls, sizeof *rp_px_calls,
			    call_cmp);
		if (func_params(G->t, f, &p) < 0) {
			free(p.p);
			return RONDO_E_NOMEM;
		}
		if (!c || strcmp(c->params, p.p)) {
			if (buf_printf(bad, "%s%s", nbad++ ? ", " : "", n) <
			    0) {
				free(p.p);
				return RONDO_E_NOMEM;
			}
			continue;
		}
		G->call_of[f] = (int)(c - rp_px_calls);
		/* its wildcard is resolved from the call completing it */
		if ((w = strstr(c->text, "rp_wildcard(c, -1, ")) != NULL)
			G->kreq[f] = atoi(w + strlen("rp_wildcard(c, -1, "));
	}
	free(p.p);
	return nbad;
}

/* ---- wildcards, resolved through the grammar ---------------------------- */

static const struct rp_val *decoded(struct gen *G, uint32_t sig, uint32_t *n)
{
	if (!G->dec[sig] && rp_decode_sig(G->t, G->whole, sig, G->dec_rank,
					  &G->dec[sig], &G->dec_n[sig]) < 0)
		G->err = RONDO_E_NOMEM;
	*n = G->dec_n[sig];
	return G->dec[sig];
}

static void decoded_drop(struct gen *G)
{
	for (uint32_t s = 0; s < G->nsigs; s++) {
		rp_vals_free(G->dec[s], G->dec_n[s]);
		G->dec[s] = NULL;
		G->dec_n[s] = 0;
	}
}

/* The calls of rule r after body position p (-1: all), to its end. */
static struct res within(struct gen *G, uint32_t r, int64_t p, int64_t id)
{
	struct res x = {RES_NONE, -1, -1, -1};
	const rondo_sym *body;
	uint32_t len;

	if (rondo_rule_body(G->t, r, &body, &len) < 0) {
		x.st = RES_GIVEUP;
		return x;
	}
	for (uint32_t q = (uint32_t)(p + 1); q < len; q++) {
		uint32_t sym = RONDO_SYM_ID(body[q].sym), n;
		if (G->budget-- == 0 || G->err) {
			x.st = RES_GIVEUP;
			return x;
		}
		if (RONDO_SYM_IS_RULE(body[q].sym)) {
			/* not in one repetition: in none */
			x = within(G, sym, -1, id);
			if (x.st != RES_NONE)
				return x;
			continue;
		}
		const struct rp_val *v = decoded(G, sym, &n);
		int k, j,
			c = v ? rp_completes(&G->names, sym, v, n, id, &k, &j)
			      : 0;
		if (c < 0 || (c > 0 && k < 0)) {
			x.st = RES_GIVEUP; /* freed, or no status to read */
			return x;
		}
		if (c > 0) {
			x.st = RES_FOUND;
			x.msig = (int)sym;
			x.k = k;
			x.j = j;
			return x;
		}
	}
	return x;
}

static void merge(struct res *acc, struct res x)
{
	if (acc->st == RES_GIVEUP)
		return;
	if (x.st != RES_FOUND) {
		acc->st = RES_GIVEUP;
		return;
	}
	if (acc->st == RES_NONE)
		*acc = x;
	else if (acc->msig != x.msig || acc->k != x.k || acc->j != x.j)
		acc->st = RES_GIVEUP;
}

/* The calls after position p of rule r, in every place group g uses r. */
static struct res after(struct gen *G, uint32_t g, uint32_t r, int64_t p,
			int64_t id, int depth)
{
	struct res x = within(G, r, p, id), acc = {RES_NONE, -1, -1, -1};
	const uint8_t *rr = G->reach + (size_t)g * G->nrules;

	if (x.st != RES_NONE)
		return x;
	if (depth > 64) {
		x.st = RES_GIVEUP;
		return x;
	}
	for (uint32_t m = G->par_off[r]; m < G->par_off[r + 1]; m++) {
		const struct parent *pa = &G->par[m];
		const rondo_sym *body;
		uint32_t len;
		if (!rr[pa->rule] ||
		    rondo_rule_body(G->t, pa->rule, &body, &len) < 0)
			continue;
		if (body[pa->pos].count > 1) {
			/* not the last repetition: the next one follows */
			x = within(G, r, -1, id);
			if (x.st == RES_NONE)
				x = after(G, g, pa->rule, pa->pos, id,
					  depth + 1);
			merge(&acc, x);
		}
		merge(&acc, after(G, g, pa->rule, pa->pos, id, depth + 1));
	}
	if (acc.st == RES_NONE) /* the end of the rank's calls */
		acc.st = RES_GIVEUP;
	return acc;
}

static int parents(struct gen *G)
{
	uint32_t total = 0;
	G->par_off = calloc(G->nrules + 2, sizeof *G->par_off);
	if (!G->par_off)
		return RONDO_E_NOMEM;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t *fill = NULL;
		if (pass == 1) {
			G->par = calloc(total + 1, sizeof *G->par);
			fill = calloc(G->nrules + 1, sizeof *fill);
			if (!G->par || !fill) {
				free(fill);
				return RONDO_E_NOMEM;
			}
			for (uint32_t r = 0, o = 0; r <= G->nrules; r++) {
				uint32_t c = G->par_off[r];
				G->par_off[r] = o;
				o += c;
			}
		}
		for (uint32_t r = 0; r < G->nrules; r++) {
			const rondo_sym *body;
			uint32_t len;
			if (!used_body(G, r, &body, &len))
				continue;
			for (uint32_t q = 0; q < len; q++) {
				uint32_t c = RONDO_SYM_ID(body[q].sym);
				if (!RONDO_SYM_IS_RULE(body[q].sym) ||
				    c >= G->nrules)
					continue;
				if (pass == 0) {
					G->par_off[c]++;
					total++;
				} else {
					struct parent *pa =
						&G->par[G->par_off[c] +
							fill[c]++];
					pa->rule = r;
					pa->pos = q;
				}
			}
		}
		free(fill);
	}
	return 0;
}

static int is_wild(const struct gen *G, const struct rp_val *v, uint32_t n,
		   int k, const char *name)
{
	const char *c;
	if (k < 0 || (uint32_t)k >= n || v[k].kind != RONDO_ARG_CONST)
		return 0;
	c = rondo_const_name(G->t, (uint32_t)v[k].i);
	return c && !strcmp(c, name);
}

/* Each wildcard receive of each rank: where its match is read from. */
static int wildcards(struct gen *G, struct rp_proxy_report *rep)
{
	uint32_t *ranks = calloc(G->nranks + 1, sizeof *ranks);

	G->sites = calloc(G->nrules + 1, sizeof *G->sites);
	G->dec = calloc(G->nsigs + 1, sizeof *G->dec);
	G->dec_n = calloc(G->nsigs + 1, sizeof *G->dec_n);
	if (!ranks || !G->sites || !G->dec || !G->dec_n || parents(G) < 0) {
		free(ranks);
		return RONDO_E_NOMEM;
	}
	for (uint32_t g = 0; g < G->ngroups && !G->err; g++) {
		const uint8_t *rr = G->reach + (size_t)g * G->nrules;
		int64_t nr = rondo_group_ranks(G->t, g, ranks, G->nranks);
		for (int64_t m = 0; m < nr && m < (int64_t)G->nranks; m++) {
			decoded_drop(G);
			G->dec_rank = ranks[m];
			for (uint32_t r = 0; r < G->nrules; r++) {
				const rondo_sym *body;
				uint32_t len;
				if (!rr[r] ||
				    rondo_rule_body(G->t, r, &body, &len) < 0)
					continue;
				for (uint32_t q = 0; q < len; q++) {
					uint32_t s = RONDO_SYM_ID(body[q].sym),
						 n;
					uint32_t f;
					if (RONDO_SYM_IS_RULE(body[q].sym) ||
					    s >= G->nsigs)
						continue;
					f = rondo_sig_func(G->t, s);
					if (f >= G->nfuncs || G->kreq[f] < 0)
						continue;
					const struct rp_val *v =
						decoded(G, s, &n);
					int kr = G->kreq[f];
					if (!v || (uint32_t)kr >= n ||
					    v[kr].kind != RONDO_ARG_REQUEST ||
					    (!is_wild(G, v, n, G->ksrc[f],
						      "MPI_ANY_SOURCE") &&
					     !is_wild(G, v, n, G->ktag[f],
						      "MPI_ANY_TAG")))
						continue;
					if (!G->sites[r] &&
					    !(G->sites[r] = calloc(
						      len,
						      sizeof **G->sites))) {
						free(ranks);
						return RONDO_E_NOMEM;
					}
					struct site *st = &G->sites[r][q];
					G->budget = SEARCH_BUDGET;
					struct res x =
						after(G, g, r, q, v[kr].i, 0);
					if (st->state == SITE_AHEAD)
						continue;
					if (x.st != RES_FOUND ||
					    (st->state == SITE_FOUND &&
					     (st->msig != x.msig ||
					      st->k != x.k || st->j != x.j))) {
						st->state = SITE_AHEAD;
						continue;
					}
					st->state = SITE_FOUND;
					st->msig = x.msig;
					st->k = x.k;
					st->j = x.j;
				}
			}
		}
	}
	decoded_drop(G);
	free(ranks);
	for (uint32_t r = 0; r < G->nrules; r++) {
		const rondo_sym *body;
		uint32_t len;
		if (!G->sites[r] || rondo_rule_body(G->t, r, &body, &len) < 0)
			continue;
		for (uint32_t q = 0; q < len; q++)
			if (G->sites[r][q].state == SITE_FOUND)
				rep->wild_matched++;
			else if (G->sites[r][q].state == SITE_AHEAD)
				rep->wild_ahead++;
	}
	G->ahead = rep->wild_ahead > 0;
	/* merged loops drawn by the rule functions; where the runtime
	 * follows the grammar as data, at their kept counts */
	while (rondo_merged_info(G->t, rep->merged, NULL) == 0)
		rep->merged++;
	G->nhists = rep->merged;
	G->drawn = rep->merged > 0 && !G->ahead;
	rep->merged_kept = rep->merged > 0 && G->ahead;
	return G->err;
}

/* ---- writing ------------------------------------------------------------ */

static void put(struct gen *G, const char *s)
{
	if (fputs(s, G->f) < 0)
		G->err = RONDO_E_IO;
}

static void putf(struct gen *G, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void putf(struct gen *G, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (vfprintf(G->f, fmt, ap) < 0)
		G->err = RONDO_E_IO;
	va_end(ap);
}

/* s as a C string literal's contents. */
static void put_cstr(struct gen *G, const uint8_t *s, size_t n)
{
	int prev_oct = 0;
	for (size_t k = 0; k < n; k++) {
		uint8_t c = s[k];
		if (c == '"' || c == '\\')
			putf(G, "\\%c", c);
		else if (c >= 32 && c < 127 && c != '?' &&
			 !(prev_oct && c >= '0' && c <= '7'))
			putc(c, G->f);
		else {
			putf(G, "\\%03o", c);
			prev_oct = 1;
			continue;
		}
		prev_oct = 0;
	}
}

/* Signature sig in one line for a comment (no comment's end in it). */
static void sig_text(const struct gen *G, uint32_t sig, char *out, size_t size,
		     size_t max)
{
	char *p;
	rondo_sig_format(G->t, sig, out, size);
	while ((p = strstr(out, "*/")) != NULL)
		p[1] = '|';
	if (strlen(out) > max && max > 3)
		strcpy(out + max - 3, "...");
}

/* A value tree's shape (all but its leaves' integers), and the integers. */
static int shape(struct buf *b, const struct rp_val *v, uint32_t n,
		 int64_t **leaves, uint32_t *nleaves, uint32_t *cap)
{
	for (uint32_t k = 0; k < n; k++) {
		if (buf_printf(b, "(%u %d %lld %u", v[k].kind, v[k].has_local,
			       (long long)v[k].off, v[k].n) < 0)
			return RONDO_E_NOMEM;
		if (v[k].bytes &&
		    (buf_printf(b, " %zu:", v[k].size) < 0 ||
		     buf_add(b, (const char *)v[k].bytes, v[k].size) < 0))
			return RONDO_E_NOMEM;
		if (v[k].e) {
			if (shape(b, v[k].e, v[k].n, leaves, nleaves, cap) < 0)
				return RONDO_E_NOMEM;
		} else {
			if (*nleaves == *cap) {
				uint32_t c = *cap ? 2 * *cap : 16;
				int64_t *l = realloc(*leaves, c * sizeof *l);
				if (!l)
					return RONDO_E_NOMEM;
				*leaves = l;
				*cap = c;
			}
			(*leaves)[(*nleaves)++] = v[k].i;
		}
		if (buf_add(b, ")", 1) < 0)
			return RONDO_E_NOMEM;
	}
	return 0;
}

/* The leaves' places, in shape()'s order: "px_s4_5[2]". */
static int leaf_refs(struct buf *b, const char *name, const struct rp_val *v,
		     uint32_t n)
{
	char child[128];
	for (uint32_t k = 0; k < n; k++) {
		if (v[k].e) {
			snprintf(child, sizeof child, "%s_%u", name, k);
			if (leaf_refs(b, child, v[k].e, v[k].n) < 0)
				return RONDO_E_NOMEM;
		} else if (buf_printf(b, "%s[%u]", name, k) < 0 ||
			   buf_add(b, "", 1) < 0)
			return RONDO_E_NOMEM;
	}
	return 0;
}

/* The arrays of a value tree, its elements' first. */
static void put_vals(struct gen *G, const char *name, const struct rp_val *v,
		     uint32_t n)
{
	char child[128];
	for (uint32_t k = 0; k < n; k++)
		if (v[k].e) {
			snprintf(child, sizeof child, "%s_%u", name, k);
			put_vals(G, child, v[k].e, v[k].n);
		}
	putf(G, "static struct rp_val %s[] = {\n", name);
	for (uint32_t k = 0; k < n; k++) {
		const struct rp_val *x = &v[k];
		putf(G, "\t{.kind = %s",
		     x->kind < rp_px_nkinds ? rp_px_kind_names[x->kind] : "0");
		if (x->has_local)
			put(G, ", .has_local = 1");
		if (x->i)
			putf(G, ", .i = %lld", (long long)x->i);
		if (x->off)
			putf(G, ", .off = %lld", (long long)x->off);
		if (x->e) {
			snprintf(child, sizeof child, "%s_%u", name, k);
			putf(G, ", .n = %u, .e = %s", x->n, child);
		}
		if (x->bytes) {
			put(G, ", .bytes = (const uint8_t *)\"");
			put_cstr(G, x->bytes, x->size);
			putf(G, "\", .size = %zu", x->size);
		}
		if (x->draw)
			putf(G, ", .draw = %u, .kept = %lld", x->draw,
			     (long long)x->kept);
		if (x->any)
			put(G, ", .any = 1");
		if (x->peer)
			putf(G, ", .peer = %d, .span = %lld", x->peer,
			     (long long)x->span);
		put(G, "},\n");
	}
	if (!n)
		put(G, "\t{.kind = RONDO_ARG_NULL},\n");
	put(G, "};\n");
}

/* What goes before element k of an initializer, `per` to a line. */
static const char *sep(uint32_t k, uint32_t per)
{
	return k % per ? ", " : k ? ",\n\t" : "\n\t";
}

static void put_ints(struct gen *G, const char *decl, const int64_t *v,
		     uint32_t n)
{
	putf(G, "%s = {", decl);
	for (uint32_t k = 0; k < n; k++)
		putf(G, "%s%lld", sep(k, 12), (long long)v[k]);
	put(G, "\n};\n");
}

struct rankval {
	struct rp_val *v;
	uint32_t n;
	struct buf shape;
	int64_t *leaves;
	uint32_t nleaves, cap;
};

/* Ranks ordered by their values (shape, then leaves), then by rank. */
static const struct rankval *by_vals_rv;

static int vals_cmp(uint32_t x, uint32_t y)
{
	const struct rankval *p = &by_vals_rv[x], *q = &by_vals_rv[y];
	int c = strcmp(p->shape.p, q->shape.p);

	if (!c && p->nleaves != q->nleaves)
		c = p->nleaves < q->nleaves ? -1 : 1;
	if (!c && p->nleaves)
		c = memcmp(p->leaves, q->leaves,
			   p->nleaves * sizeof *p->leaves);
	return c;
}

static int by_vals(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = vals_cmp(x, y);

	return c ? c : (x > y) - (x < y);
}

/* same[r]: the first rank whose values are rank r's, all of them, for
 * the ranks that make the call (a sort, not a rank against every one
 * before it).  Returns 0 or RONDO_E_NOMEM. */
static int first_same(const struct rankval *rv, uint32_t nranks, uint32_t *same)
{
	uint32_t *ix = malloc((nranks + 1) * sizeof *ix), n = 0;

	if (!ix)
		return RONDO_E_NOMEM;
	for (uint32_t r = 0; r < nranks; r++)
		if (rv[r].v)
			ix[n++] = r;
	by_vals_rv = rv;
	qsort(ix, n, sizeof *ix, by_vals);
	for (uint32_t k = 0; k < n; k++)
		same[ix[k]] = k && vals_cmp(ix[k - 1], ix[k]) == 0
				      ? same[ix[k - 1]]
				      : ix[k];
	free(ix);
	return 0;
}

/* Signature s's values for every rank that makes its calls. */
static int put_sig(struct gen *G, uint32_t s, uint32_t *ranks, char *text,
		   size_t tsize, struct buf *tab)
{
	struct rankval *rv = calloc(G->nranks + 1, sizeof *rv);
	char name[64], ref[192];
	uint32_t first = UINT32_MAX, nvar = 0;
	int same = 1, ret = 0;
	struct buf varb = {0};
	rondo_stat gs;
	double gap = 0;

	if (!rv)
		return RONDO_E_NOMEM;
	for (uint32_t g = 0; g < G->ngroups && !ret; g++) {
		if (!G->gsig[(size_t)g * G->nsigs + s])
			continue;
		int64_t nr = rondo_group_ranks(G->t, g, ranks, G->nranks);
		for (int64_t m = 0; m < nr && m < (int64_t)G->nranks; m++) {
			struct rankval *x = &rv[ranks[m]];
			if (rp_decode_sig(G->t, G->whole, s, ranks[m], &x->v,
					  &x->n) < 0 ||
			    shape(&x->shape, x->v, x->n, &x->leaves,
				  &x->nleaves, &x->cap) < 0 ||
			    buf_add(&x->shape, "", 0) < 0) {
				ret = RONDO_E_NOMEM;
				break;
			}
			if (first == UINT32_MAX)
				first = ranks[m];
			else if (strcmp(x->shape.p, rv[first].shape.p) ||
				 x->nleaves != rv[first].nleaves)
				same = 0;
		}
	}
	if (ret || first == UINT32_MAX)
		goto out;
	sig_text(G, s, text, tsize, 2000);
	putf(G, "\n/* %u: %s */\n", s, text);
	snprintf(name, sizeof name, "px_s%u", s);
	if (same) {
		/* the values the ranks share, and by rank the integers
		 * they do not */
		struct rankval *f = &rv[first];
		struct buf refs = {0};
		const char *rp;
		int64_t *col = calloc(G->nranks + 1, sizeof *col);
		put_vals(G, name, f->v, f->n);
		if (!col || leaf_refs(&refs, name, f->v, f->n) < 0) {
			free(col);
			free(refs.p);
			ret = RONDO_E_NOMEM;
			goto out;
		}
		rp = refs.p;
		for (uint32_t l = 0; l < f->nleaves;
		     l++, rp += strlen(rp) + 1) {
			int differ = 0;
			for (uint32_t r = 0; r < G->nranks; r++) {
				col[r] = rv[r].v ? rv[r].leaves[l] : 0;
				if (rv[r].v && col[r] != f->leaves[l])
					differ = 1;
			}
			if (!differ)
				continue;
			snprintf(ref, sizeof ref,
				 "static const int64_t %s_r%u[%u]", name, l,
				 G->nranks);
			put_ints(G, ref, col, G->nranks);
			if (buf_printf(&varb, "\t{&%s, %s_r%u},\n", rp, name,
				       l) < 0)
				ret = RONDO_E_NOMEM;
			nvar++;
		}
		free(col);
		free(refs.p);
		if (nvar) {
			putf(G,
			     "static const struct px_var %s_var[] = {\n%s};\n",
			     name, varb.p);
		}
	} else {
		/* the ranks' values differ in more than integers: each
		 * rank's own (the same ones once) */
		uint32_t *twin = calloc(G->nranks + 1, sizeof *twin);
		if (!twin || first_same(rv, G->nranks, twin) < 0) {
			free(twin);
			ret = RONDO_E_NOMEM;
			goto out;
		}
		for (uint32_t r = 0; r < G->nranks; r++) {
			if (!rv[r].v || twin[r] != r)
				continue;
			snprintf(ref, sizeof ref, "%s_t%u", name, r);
			put_vals(G, ref, rv[r].v, rv[r].n);
		}
		putf(G, "static struct rp_val *const %s_by_rank[%u] = {\n",
		     name, G->nranks);
		for (uint32_t r = 0; r < G->nranks; r++) {
			if (!rv[r].v)
				put(G, "\tNULL,\n");
			else
				putf(G, "\t%s_t%u,\n", name, twin[r]);
		}
		put(G, "};\n");
		free(twin);
	}
out:
	for (uint32_t r = 0; r < G->nranks; r++) {
		rp_vals_free(rv[r].v, rv[r].n);
		free(rv[r].shape.p);
		free(rv[r].leaves);
	}
	free(rv);
	free(varb.p);
	if (ret < 0 || first == UINT32_MAX)
		return ret < 0 ? ret : 0;
	if (rondo_sig_gap_stat(G->t, s, &gs) == 0 && gs.count)
		gap = (double)gs.total_ns / (double)gs.count;
	/* its entry in px_sigs[], written after all signatures */
	if (buf_printf(tab, "\t[%u] = {%u, %u, %s%s, %s%s, %s%s, %u, %.1f},\n",
		       s, rondo_sig_func(G->t, s), rondo_sig_arg_count(G->t, s),
		       same ? name : "NULL", "", same ? "NULL" : name,
		       same ? "" : "_by_rank", nvar ? name : "NULL",
		       nvar ? "_var" : "", nvar, gap) < 0)
		return RONDO_E_NOMEM;
	return 1;
}

/* ---- the program: one function per rule, main ---------------------------- */

static void put_rules(struct gen *G, char *text, size_t tsize)
{
	for (uint32_t r = 0; r < G->nrules && !G->err; r++) {
		const rondo_sym *body;
		uint32_t len;
		if (!used_body(G, r, &body, &len))
			continue;
		putf(G,
		     "\n/* R%u: %llu calls */\nstatic void rule_%u(void)\n{\n",
		     r, (unsigned long long)rondo_rule_calls(G->t, r), r);
		for (uint32_t q = 0; q < len; q++) {
			uint32_t id = RONDO_SYM_ID(body[q].sym);
			const char *ind = "\t";
			rondo_merged_loop h;
			if (G->drawn && rondo_loop_hist(G->t, r, q, &h) == 1) {
				putf(G,
				     "\tfor (uint64_t i = 0, n = px_draw(%u, "
				     "%lluu); i < n; i++) /* merged: %llu to "
				     "%llu */\n",
				     h.id, (unsigned long long)body[q].count,
				     (unsigned long long)h.min,
				     (unsigned long long)h.max);
				ind = "\t\t";
			} else if (body[q].count > 1) {
				putf(G,
				     "\tfor (uint64_t i = 0; i < %lluu; i++)\n",
				     (unsigned long long)body[q].count);
				ind = "\t\t";
			}
			if (RONDO_SYM_IS_RULE(body[q].sym)) {
				putf(G, "%srule_%u();\n", ind, id);
				continue;
			}
			const struct site *st =
				G->sites[r] ? &G->sites[r][q] : NULL;
			sig_text(G, id, text, tsize, 100);
			if (st && st->state == SITE_FOUND)
				putf(G,
				     "%spx_call_matched(%u, %d, %d, %d); "
				     "/* %s: as matched (by signature %d) */\n",
				     ind, id, st->msig, st->k, st->j, text,
				     st->msig);
			else
				putf(G, "%spx_call(%u); /* %s%s */\n", ind, id,
				     text,
				     st && st->state == SITE_AHEAD
					     ? ": a wildcard, its match read "
					       "ahead at run time"
					     : "");
		}
		put(G, "}\n");
	}
}

static int put_main(struct gen *G)
{
	char ranks[256];
	put(G, "\nint main(int argc, char **argv)\n{\n"
	       "\tswitch (px_begin(&argc, &argv)) {\n");
	for (uint32_t g = 0; g < G->ngroups; g++) {
		rondo_group_format(G->t, g, ranks, sizeof ranks);
		putf(G,
		     "\tcase %u: /* ranks %s */\n\t\trule_%u();\n\t\tbreak;\n",
		     g, ranks, rondo_group_root(G->t, g));
	}
	put(G, "\t}\n\treturn px_end();\n}\n");
	return G->err;
}

static void put_header(struct gen *G, const char *name,
		       const struct rp_proxy_report *rep)
{
	const char *prog = rondo_meta_get(G->t, "program");
	char base[256];
	const char *slash = strrchr(name, '/');

	snprintf(base, sizeof base, "%s", slash ? slash + 1 : name);
	if (strlen(base) > 6 && !strcmp(base + strlen(base) - 6, ".rondo"))
		base[strlen(base) - 6] = '\0';
	putf(G,
	     "/*\n"
	     " * A proxy app of %s: the MPI calls of %s as the trace\n"
	     " * recorded them, %u ranks, written by rondo proxy %s.\n"
	     " *\n"
	     " *   mpicc %s_proxy.c -o %s_proxy\n"
	     " *   mpirun -np %u ./%s_proxy [--compute scale=F|none] "
	     "[--polls once]\n"
	     " *                  [--watchdog SECONDS]\n"
	     " *\n"
	     " * What it reproduces: every call, with the recorded "
	     "parameters (counts,\n"
	     " * datatypes built by their constructors, communicators and "
	     "groups made\n"
	     " * by their calls, peers, tags, buffers big enough for what "
	     "each call\n"
	     " * touches), in each rank's recorded order; each Wait and "
	     "Test completes\n"
	     " * the requests the original's did; wildcard receives are "
	     "posted with\n"
	     " * the source and tag they matched (%llu found when this "
	     "file was\n"
	     " * written, %llu read ahead at run time, whose match depends "
	     "on where\n"
	     " * their rule is used).  The computation between calls\n"
	     " * is time spun: each signature's mean gap in the rank's "
	     "group, scaled by\n"
	     " * how long the rank computed against the others.  A rank "
	     "the trace says\n"
	     " * was cut short (the job ended badly) waits at its end as "
	     "the original\n"
	     " * did.  Not the data: buffers hold zeros, user reduction "
	     "ops are\n"
	     " * stand-ins.\n"
	     " *\n"
	     " * Contents: the runtime's declarations; the program, one "
	     "function per\n"
	     " * rule of the trace's grammar (%u rules, %u call "
	     "signatures of %u\n"
	     " * functions) and main(), a branch per rank group; the "
	     "signatures as\n"
	     " * data; the runtime rondo-replay replays them with.\n"
	     " *\n"
	     " * Exit status: 0 done, 2 usage error, 3 another rank count, "
	     "4 the\n"
	     " * watchdog fired.\n"
	     " */\n",
	     name, prog ? prog : "the program", G->nranks,
	     rondo_version_string(), base, base, G->nranks, base,
	     (unsigned long long)rep->wild_matched,
	     (unsigned long long)rep->wild_ahead, rep->rules, rep->sigs,
	     rep->funcs);
}

/* px_group_gaps: each group's mean gaps where they are not the mean over
 * all ranks (beyond the 1/128 to which the trace keeps group totals). */
static void put_group_gaps(struct gen *G)
{
	uint32_t *n = calloc(G->ngroups + 1, sizeof *n);

	if (!n) {
		G->err = RONDO_E_NOMEM;
		return;
	}
	put(G, "\n/* By rank group: its mean time before the calls of the "
	       "signatures where\n * it is not the mean over all ranks "
	       "(px_sigs), {signature, ns}. */\n");
	for (uint32_t g = 0; g < G->ngroups && G->ngroups > 1; g++) {
		for (uint32_t s = 0; s < G->nsigs; s++) {
			double mine = rp_sig_gap(G->t, s, g), all;
			rondo_stat st;
			if (!G->gsig[(size_t)g * G->nsigs + s])
				continue;
			all = rondo_sig_gap_stat(G->t, s, &st) == 0 && st.count
				      ? (double)st.total_ns / (double)st.count
				      : 0;
			if (mine - all <= 0.01 * all &&
			    all - mine <= 0.01 * all)
				continue;
			if (!n[g]++)
				putf(G,
				     "static const struct px_gap px_g%u[] = {",
				     g);
			putf(G, "%s{%u, %.1f}", sep(n[g] - 1, 4), s, mine);
		}
		if (n[g])
			put(G, "\n};\n");
	}
	put(G, "const struct px_gaps px_group_gaps[] = {");
	for (uint32_t g = 0; g < G->ngroups; g++)
		if (n[g])
			putf(G, "%s{%u, px_g%u}", sep(g, 4), n[g], g);
		else
			putf(G, "%s{0, 0}", sep(g, 4));
	put(G, "\n};\n");
	free(n);
}

/* px_hists: the merged loops' histograms, when the rule functions draw
 * their counts; their draw keys computed as librondo computes them. */
static void put_hists(struct gen *G)
{
	uint32_t n = G->nhists, first = 0;
	struct draw_bin *b = NULL;
	uint64_t *key = NULL;
	int failed;

	if (!G->drawn) {
		put(G, "\n/* No merged loop whose count is drawn. */\n"
		       "const struct px_hist px_hists[1];\n"
		       "const struct draw_bin px_hist_bins[1];\n"
		       "const uint32_t px_nhists = 0;\n");
		return;
	}
	key = malloc(sizeof(*key) * n);
	failed = !key;
	putf(G,
	     "\n/* The merged loops' histograms (precision %u): {lo, hi, "
	     "loops} */\nconst struct draw_bin px_hist_bins[] = {",
	     rondo_precision(G->t, NULL));
	for (uint32_t h = 0; !failed && h < n; h++) {
		rondo_merged_loop x;
		struct draw_bin *nb;

		rondo_merged_info(G->t, h, &x);
		nb = realloc(b, sizeof(*b) * (x.nbins + 1));
		failed = !nb;
		if (failed)
			break;
		b = nb;
		for (uint32_t k = 0; k < x.nbins; k++) {
			rondo_merged_bin(G->t, h, k, &b[k].lo, &b[k].hi,
					 &b[k].n);
			putf(G, "%s{%llu, %llu, %llu}", sep(first + k, 4),
			     (unsigned long long)b[k].lo,
			     (unsigned long long)b[k].hi,
			     (unsigned long long)b[k].n);
		}
		key[h] = draw_key(x.loops, x.sum, x.min, x.max, b, x.nbins);
		first += x.nbins;
	}
	free(b);
	if (failed) {
		free(key);
		G->err = RONDO_E_NOMEM;
		return;
	}
	put(G, "\n};\n/* {draw key, loops, first bin, bins} */\n"
	       "const struct px_hist px_hists[] = {");
	first = 0;
	for (uint32_t h = 0; h < n; h++) {
		rondo_merged_loop x;

		rondo_merged_info(G->t, h, &x);
		putf(G, "%s{%lluu, %llu, %u, %u}", sep(h, 2),
		     (unsigned long long)key[h], (unsigned long long)x.loops,
		     first, x.nbins);
		first += x.nbins;
	}
	free(key);
	putf(G, "\n};\nconst uint32_t px_nhists = %u;\n", n);
}

/* px_cut, px_endings: the ranks cut short, as the meta key "cut" of a
 * recovered trace says (util_cut_next). */
static void put_cut(struct gen *G)
{
	const char *meta = rondo_meta_get(G->t, "cut"), *line, *ranks, *e;
	uint32_t n = 0, k;
	int len;

	put(G, "\n/* The ranks cut short when the job ended badly {rank, "
	       "px_endings[]}, and\n * how: the proxy's rank waits there "
	       "for the job to end. */\nconst char *const px_endings[] = {");
	line = meta;
	for (k = 0; util_cut_next(&line, &ranks, &e, &len); k++) {
		put(G, k ? ",\n\t\"" : "\n\t\"");
		put_cstr(G, (const uint8_t *)e, (size_t)(len > 0 ? len : 0));
		put(G, "\"");
	}
	put(G, k ? "\n};\nconst struct px_cut px_cut[] = {"
		 : "\"\"};\nconst struct px_cut px_cut[] = {");
	for (uint32_t r = 0; r < G->nranks; r++) {
		line = meta;
		for (k = 0; util_cut_next(&line, &ranks, &e, &len); k++)
			if (util_in_ranks(ranks, r)) {
				putf(G, "%s{%u, %u}", sep(n++, 6), r, k);
				break;
			}
	}
	putf(G, "%s};\nconst uint32_t px_ncut = %u;\n", n ? "\n" : "{0, 0}", n);
}

static int put_tables(struct gen *G, const char *name, struct buf *tab)
{
	double *factor = calloc(G->nranks + 1, sizeof *factor), norm;
	int64_t *col = calloc(G->nranks + 1, sizeof *col);
	struct buf p = {0};

	if (!factor || !col || rp_gap_factors(G->t, factor, &norm) < 0) {
		free(factor);
		free(col);
		return RONDO_E_NOMEM;
	}
	put(G, "\n/* ---- the trace's tables "
	       "---------------------------------------------- */\n\n");
	put(G, "const char px_trace_name[] = \"");
	put_cstr(G, (const uint8_t *)name, strlen(name));
	putf(G, "\";\nconst uint32_t px_nranks = %u;\n", G->nranks);
	for (uint32_t r = 0; r < G->nranks; r++)
		col[r] = G->group_of[r];
	put(G, "\n/* By rank: its group (main's branch), and how much longer "
	       "than its group's\n * means it computed before its calls. */\n");
	put_ints(G, "const int px_group_of[]", col, G->nranks);
	put(G, "const double px_gap_factor[] = {");
	for (uint32_t r = 0; r < G->nranks; r++)
		putf(G, "%s%.6g", sep(r, 8), factor[r]);
	put(G, "\n};\n");
	free(factor);

	put_group_gaps(G);
	put_cut(G);

	put(G, "\n/* The constants the trace names, by id. */\n"
	       "const char *const px_consts[] = {\n");
	for (uint32_t k = 0; k < G->nconsts; k++) {
		const char *c = rondo_const_name(G->t, k);
		put(G, "\t\"");
		put_cstr(G, (const uint8_t *)(c ? c : ""), c ? strlen(c) : 0);
		put(G, "\",\n");
	}
	if (!G->nconsts)
		put(G, "\t\"\",\n");
	putf(G, "};\nconst uint32_t px_nconsts = %u;\n", G->nconsts);

	put(G, "\n/* The functions the trace calls: their parameters, and "
	       "what issues them. */\n");
	for (uint32_t f = 0; f < G->nfuncs; f++)
		if (G->func_used[f] && G->call_of[f] >= 0)
			putf(G, "static int rp_%s(struct rp_call *c);\n",
			     rp_px_calls[G->call_of[f]].name);
	putf(G, "const struct px_func px_funcs[%u] = {\n",
	     G->nfuncs ? G->nfuncs : 1);
	for (uint32_t f = 0; f < G->nfuncs; f++) {
		if (!G->func_used[f])
			continue;
		if (func_params(G->t, f, &p) < 0) {
			free(p.p);
			return RONDO_E_NOMEM;
		}
		putf(G, "\t[%u] = {\"%s\", \"%s\", ", f,
		     rondo_func_name(G->t, f), p.p);
		if (G->call_of[f] >= 0)
			putf(G, "rp_%s},\n", rp_px_calls[G->call_of[f]].name);
		else
			put(G, "NULL},\n");
	}
	free(p.p);
	putf(G, "};\nconst uint32_t px_nfuncs = %u;\n", G->nfuncs);

	put(G, "\n/* Each rank group's rule. */\n");
	for (uint32_t g = 0; g < G->ngroups; g++)
		col[g] = rondo_group_root(G->t, g);
	put_ints(G, "const uint32_t px_group_root[]", col, G->ngroups);
	free(col);
	if (!G->ahead) {
		put(G,
		    "\n/* The grammar: not needed, every wildcard's match was "
		    "found. */\nconst struct px_rule px_rules[1];\n"
		    "const uint32_t px_nrules = 0;\n");
	} else {
		put(G,
		    "\n/* The grammar, to read ahead for the wildcards whose "
		    "match depends on\n * where their rule is used: "
		    "{symbol (PX_RULE: a rule), repeats}. */\n");
		for (uint32_t r = 0; r < G->nrules; r++) {
			const rondo_sym *body;
			uint32_t len;
			if (!used_body(G, r, &body, &len))
				continue;
			putf(G, "static const struct px_sym px_r%u[] = {", r);
			for (uint32_t q = 0; q < len; q++)
				putf(G, "%s{%s%u, %llu}", sep(q, 6),
				     RONDO_SYM_IS_RULE(body[q].sym)
					     ? "PX_RULE | "
					     : "",
				     RONDO_SYM_ID(body[q].sym),
				     (unsigned long long)body[q].count);
			put(G, "\n};\n");
		}
		putf(G, "const struct px_rule px_rules[%u] = {\n", G->nrules);
		for (uint32_t r = 0; r < G->nrules; r++) {
			const rondo_sym *body;
			uint32_t len;
			if (used_body(G, r, &body, &len))
				putf(G, "\t[%u] = {%u, px_r%u},\n", r, len, r);
		}
		putf(G, "};\nconst uint32_t px_nrules = %u;\n", G->nrules);
	}

	put_hists(G);
	putf(G,
	     "\n/* The call signatures: {function, values, ...by rank, "
	     "mean gap in ns}. */\nconst struct px_sig px_sigs[%u] = {\n%s};\n"
	     "const uint32_t px_nsigs = %u;\n",
	     G->nsigs ? G->nsigs : 1, tab->p ? tab->p : "", G->nsigs);
	return G->err;
}

static void put_runtime(struct gen *G)
{
	put(G, "\n/* ---- the runtime: rondo-replay's own (rt.c, complete.c), "
	       "and a proxy's\n * (proxy_rt.c) "
	       "----------------------------------------------------- */\n\n");
	put(G, rp_px_runtime);
	put(G, "\n/* ---- the calls: one function per MPI function the trace "
	       "calls ------- */\n\n"
	       "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"\n"
	       "#pragma GCC diagnostic ignored \"-Wcast-qual\"\n\n");
	for (uint32_t f = 0; f < G->nfuncs; f++)
		if (G->func_used[f] && G->call_of[f] >= 0) {
			put(G, rp_px_calls[G->call_of[f]].text);
			put(G, "\n");
		}
}

static void gen_free(struct gen *G)
{
	free(G->group_of);
	free(G->reach);
	free(G->gsig);
	free(G->rule_used);
	free(G->func_used);
	free(G->call_of);
	free(G->kreq);
	free(G->ksrc);
	free(G->ktag);
	free(G->dec);
	free(G->dec_n);
	rp_whole_free(G->whole);
	free(G->par_off);
	free(G->par);
	for (uint32_t r = 0; G->sites && r < G->nrules; r++)
		free(G->sites[r]);
	free(G->sites);
}

int rp_proxy_write(const rondo_trace *t, const char *name, FILE *out,
		   struct rp_proxy_report *rep)
{
	struct gen G;
	struct buf bad = {0}, tab = {0};
	struct an_pairing pr;
	uint32_t *ranks = NULL;
	char *text = NULL;
	int ret;

	memset(&G, 0, sizeof G);
	memset(rep, 0, sizeof *rep);
	G.t = t;
	G.f = out;
	rp_trace_names(t, &G.names);
	G.nranks = rondo_rank_count(t);
	G.nsigs = rondo_sig_count(t);
	G.nrules = rondo_rule_count(t);
	G.nfuncs = rondo_func_count(t);
	G.ngroups = rondo_group_count(t);
	G.nconsts = rondo_const_count(t);
	G.group_of = calloc(G.nranks + 1, sizeof *G.group_of);
	G.whole = rp_whole_read(t);
	ranks = calloc(G.nranks + 1, sizeof *ranks);
	text = malloc(4096);
	if (!G.group_of || !G.whole || !ranks || !text ||
	    (ret = reach(&G)) < 0) {
		ret = RONDO_E_NOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < G.ngroups; g++) {
		int64_t n = rondo_group_ranks(t, g, ranks, G.nranks);
		for (int64_t k = 0; k < n && k < (int64_t)G.nranks; k++)
			G.group_of[ranks[k]] = (int)g;
	}
	for (uint32_t r = 0; r < G.nranks; r++)
		if (rondo_rank_lost(t, r)) {
			snprintf(rep->why, sizeof rep->why,
				 "rank %u's calls are lost (the file is cut "
				 "inside its grammar): the others' would wait "
				 "for it",
				 r);
			ret = RP_PROXY_NOREPLAY;
			goto out;
		}
	if ((ret = functions(&G, &bad)) != 0) {
		if (ret > 0) {
			snprintf(rep->why, sizeof rep->why,
				 "the trace has calls it cannot replay: %s",
				 bad.p);
			ret = RP_PROXY_NOREPLAY;
		}
		goto out;
	}
	if ((ret = an_pairing(t, &pr)) < 0)
		goto out;
	if (!pr.ok) {
		snprintf(rep->why, sizeof rep->why,
			 "the calls do not pair up: %s", pr.first);
		ret = RP_PROXY_NOREPLAY;
		goto out;
	}
	for (uint32_t r = 0; r < G.nrules; r++)
		rep->rules += G.rule_used[r];
	for (uint32_t s = 0; s < G.nsigs; s++)
		rep->sigs += (uint32_t)sig_used(&G, s);
	for (uint32_t f = 0; f < G.nfuncs; f++)
		rep->funcs += G.func_used[f];
	rep->groups = G.ngroups;
	if (!out) /* checked only */
		goto out;
	if ((ret = wildcards(&G, rep)) < 0)
		goto out;

	put_header(&G, name, rep);
	put(&G, "#define _GNU_SOURCE 1\n");
	put(&G, rp_px_includes);
	put(&G, "\n");
	put(&G, rp_px_headers);
	put(&G, "\n/* ---- the program: one function per rule, then main() "
		"------------- */\n");
	put_rules(&G, text, 4096);
	if ((ret = put_main(&G)) < 0)
		goto out;
	put(&G, "\n/* ---- the call signatures, decoded for each rank "
		"------------------- */\n");
	for (uint32_t s = 0; s < G.nsigs && !G.err; s++)
		if (sig_used(&G, s) &&
		    (ret = put_sig(&G, s, ranks, text, 4096, &tab)) < 0)
			goto out;
	if ((ret = put_tables(&G, name, &tab)) < 0)
		goto out;
	put_runtime(&G);
	if (fflush(out) != 0)
		G.err = RONDO_E_IO;
	ret = G.err;
out:
	free(bad.p);
	free(tab.p);
	free(ranks);
	free(text);
	gen_free(&G);
	return ret;
}
