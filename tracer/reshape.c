/*
 * reshape.c - another grammar for the same calls, for call sequences the
 * online grammar compresses badly (see reshape.h).
 *
 * The online engine (grammar.c) makes a rule of every pair of symbols
 * seen twice.  Where a loop's iterations differ by chance (which request
 * a Waitany completed, how many times a Testsome polled), those pairs are
 * chance too: the grammar grows rules that pair up iterations, rule
 * references with large ids, and zstd finds little in them.  Cut instead
 * before every occurrence of the most frequent call (one per iteration,
 * in such a loop), each distinct piece a rule (runs of one call kept as
 * a count), and the rank's root is the list of pieces, one small id per
 * iteration: the order of completions is then a stream of a few distinct
 * bytes, which is what zstd compresses well.
 */
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "util.h"

/* Calls each rule expands to, saturating at UINT64_MAX. */
static int rule_lengths(const struct fmt_grammar *g, uint64_t **out)
{
	uint64_t *len = malloc(sizeof(*len) * ((size_t)g->nrules + 1));

	if (!len)
		return RONDO_E_NOMEM;
	for (uint32_t r = 0; r < g->nrules; r++) {
		uint64_t n = 0;

		for (uint32_t k = g->first[r]; k < g->first[r + 1]; k++) {
			rondo_sym s = g->body[k];
			uint64_t one = RONDO_SYM_IS_RULE(s.sym)
					       ? len[RONDO_SYM_ID(s.sym)]
					       : 1;

			if (one && s.count > UINT64_MAX / one)
				one = UINT64_MAX;
			else
				one *= s.count;
			n = one > UINT64_MAX - n ? UINT64_MAX : n + one;
		}
		len[r] = n;
	}
	*out = len;
	return 0;
}

/* The expansion of rule r appended to seq (room for all of it). */
static void expand(const struct fmt_grammar *g, uint32_t r, uint32_t *seq,
		   size_t *n)
{
	/* an explicit stack: a grammar may nest deep */
	struct frame {
		uint32_t rule, k;
		uint64_t left; /* repetitions of symbol k still to do */
	} *st = malloc(sizeof(*st) * ((size_t)g->nrules + 1));
	uint32_t depth = 0;

	if (!st)
		return;
	st[0] = (struct frame){r, g->first[r], 0};
	while (1) {
		struct frame *f = &st[depth];
		rondo_sym s;

		if (f->k == g->first[f->rule + 1]) {
			if (depth-- == 0)
				break;
			continue;
		}
		s = g->body[f->k];
		if (f->left == 0)
			f->left = s.count;
		if (RONDO_SYM_IS_RULE(s.sym)) {
			if (--f->left == 0)
				f->k++;
			st[++depth] = (struct frame){
				RONDO_SYM_ID(s.sym),
				g->first[RONDO_SYM_ID(s.sym)], 0};
		} else {
			for (; f->left; f->left--)
				seq[(*n)++] = s.sym;
			f->k++;
		}
	}
	free(st);
}

/* The pieces, by their bodies: an open-addressing index over them. */
struct pieces {
	struct fmt_grammar *g; /* the rules being built: pieces so far */
	size_t capfirst, capbody;
	uint32_t *slot; /* piece + 1, 0 empty */
	uint32_t mask;
	uint64_t *hash;
	size_t caphash;
};

static uint64_t body_hash(const rondo_sym *b, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;

	for (uint32_t k = 0; k < n; k++) {
		h = (h ^ b[k].sym) * 0xbf58476d1ce4e5b9ull;
		h = (h ^ b[k].count) * 0x94d049bb133111ebull;
	}
	return h ^ (h >> 31);
}

static int index_grow(struct pieces *p)
{
	uint32_t cap = p->mask ? 2 * (p->mask + 1) : 1024;
	uint32_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return RONDO_E_NOMEM;
	for (uint32_t i = 0; p->mask && i <= p->mask; i++) {
		uint32_t j;

		if (!p->slot[i])
			continue;
		for (j = (uint32_t)p->hash[p->slot[i] - 1] & (cap - 1); slot[j];
		     j = (j + 1) & (cap - 1))
			;
		slot[j] = p->slot[i];
	}
	free(p->slot);
	p->slot = slot;
	p->mask = cap - 1;
	return 0;
}

/* The piece with body b (n symbols), added if new: *id. */
static int piece_of(struct pieces *p, const rondo_sym *b, uint32_t n,
		    uint32_t *id)
{
	struct fmt_grammar *g = p->g;
	uint64_t h = body_hash(b, n);
	uint32_t j;

	if ((g->nrules + 1) * 2 > p->mask && index_grow(p))
		return RONDO_E_NOMEM;
	for (j = (uint32_t)h & p->mask; p->slot[j]; j = (j + 1) & p->mask) {
		uint32_t q = p->slot[j] - 1;

		if (p->hash[q] == h && g->first[q + 1] - g->first[q] == n &&
		    !memcmp(g->body + g->first[q], b, sizeof(*b) * n)) {
			*id = q;
			return 0;
		}
	}
	if (util_grow(&g->first, &p->capfirst, (size_t)g->nrules + 2,
		      sizeof(*g->first)) ||
	    util_grow(&g->body, &p->capbody,
		      (size_t)g->first[g->nrules] + n + 1, sizeof(*g->body)) ||
	    util_grow(&p->hash, &p->caphash, (size_t)g->nrules + 1,
		      sizeof(*p->hash)))
		return RONDO_E_NOMEM;
	memcpy(g->body + g->first[g->nrules], b, sizeof(*b) * n);
	g->first[g->nrules + 1] = g->first[g->nrules] + n;
	p->hash[g->nrules] = h;
	p->slot[j] = g->nrules + 1;
	*id = g->nrules++;
	return 0;
}

/* Appends symbol (sym, 1) to a body of n symbols, as a count when it
 * repeats the last one. */
static void body_push(rondo_sym *b, uint32_t *n, uint32_t sym)
{
	if (*n && b[*n - 1].sym == sym)
		b[*n - 1].count++;
	else
		b[(*n)++] = (rondo_sym){sym, 0, 1};
}

int reshape_cut(const struct fmt_grammar *g, uint32_t nterminals, uint64_t max,
		struct fmt_grammar *out)
{
	uint64_t *len = NULL, *freq = NULL;
	uint32_t *seq = NULL, cut = 0, nroot = 0;
	rondo_sym *piece = NULL, *root = NULL;
	struct pieces p = {out, 0, 0, NULL, 0, NULL, 0};
	size_t n = 0, start;
	int rc;

	memset(out, 0, sizeof(*out));
	if (g->nrules == 0)
		return RONDO_E_RANGE;
	rc = rule_lengths(g, &len);
	if (!rc && (len[g->nrules - 1] > max || len[g->nrules - 1] < 2))
		rc = RONDO_E_RANGE;
	if (!rc) {
		n = (size_t)len[g->nrules - 1];
		seq = malloc(sizeof(*seq) * n);
		freq = calloc((size_t)nterminals + 1, sizeof(*freq));
		piece = malloc(sizeof(*piece) * (n + 1));
		root = malloc(sizeof(*root) * (n + 1));
		out->first = calloc(1, sizeof(*out->first));
		p.capfirst = 1;
		if (!seq || !freq || !piece || !root || !out->first)
			rc = RONDO_E_NOMEM;
	}
	if (!rc) {
		size_t got = 0;

		expand(g, g->nrules - 1, seq, &got);
		if (got != n)
			rc = RONDO_E_NOMEM; /* the walker's stack */
	}
	for (size_t i = 0; !rc && i < n; i++) {
		if (seq[i] >= nterminals) {
			rc = RONDO_E_RANGE;
			break;
		}
		freq[seq[i]]++;
		if (freq[seq[i]] > freq[cut] ||
		    (freq[seq[i]] == freq[cut] && seq[i] < cut))
			cut = seq[i];
	}
	if (!rc && freq[cut] < 2)
		rc = RONDO_E_RANGE; /* nothing repeats: nothing to gain */
	/* the pieces: from each occurrence of cut to the next */
	for (start = 0; !rc && start < n;) {
		uint32_t m = 0, id;
		size_t end = start + 1;

		while (end < n && seq[end] != cut)
			end++;
		for (size_t i = start; i < end; i++)
			body_push(piece, &m, seq[i]);
		rc = piece_of(&p, piece, m, &id);
		if (!rc)
			body_push(root, &nroot, RONDO_SYM_RULE | id);
		start = end;
	}
	/* the root last, as rules refer only to earlier ones */
	if (!rc && (util_grow(&out->first, &p.capfirst, (size_t)out->nrules + 2,
			      sizeof(*out->first)) ||
		    util_grow(&out->body, &p.capbody,
			      (size_t)out->first[out->nrules] + nroot + 1,
			      sizeof(*out->body))))
		rc = RONDO_E_NOMEM;
	if (!rc) {
		memcpy(out->body + out->first[out->nrules], root,
		       sizeof(*root) * nroot);
		out->first[out->nrules + 1] = out->first[out->nrules] + nroot;
		out->nrules++;
	}
	if (rc)
		fmt_grammar_free(out);
	free(len);
	free(seq);
	free(freq);
	free(piece);
	free(root);
	free(p.slot);
	free(p.hash);
	return rc;
}
