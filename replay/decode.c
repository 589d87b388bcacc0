/*
 * decode.c - a signature's values for one rank (VARY resolved, peers as
 * the program passed them in the call's communicator), and which call
 * completes a request: what rondo-replay reads at each call and what
 * `rondo proxy` resolves once, when it writes the proxy.
 */
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "decode.h"
#include "draw.h"
#include "stats.h"
#include "util.h"

/* What decoding needs of the whole trace: whether tags were merged, and
 * the keys (draw.h) of the histograms of sends' merged peers. */
struct rp_whole {
	int tags;
	uint64_t *sent;
	uint32_t nsent;
};

static uint64_t hist_key(const rondo_trace *t, uint32_t id)
{
	rondo_merged_loop h;
	struct draw_bin *b;
	uint64_t key = 0;

	if (rondo_merged_info(t, id, &h) < 0 ||
	    !(b = calloc((size_t)h.nbins + 1, sizeof(*b))))
		return 0;
	for (uint32_t k = 0; k < h.nbins; k++)
		rondo_merged_bin(t, id, k, &b[k].lo, &b[k].hi, &b[k].n);
	key = draw_key(h.loops, h.sum, h.min, h.max, b, h.nbins);
	free(b);
	return key;
}

struct rp_whole *rp_whole_read(const rondo_trace *t)
{
	struct rp_whole *w = calloc(1, sizeof(*w));
	struct an_merged mg;

	if (!w)
		return NULL;
	an_merged(t, &mg);
	w->tags = mg.tags > 0;
	if (!mg.peers)
		return w;
	if (!(w->sent = calloc(mg.peers + 1, sizeof(uint64_t)))) {
		free(w);
		return NULL;
	}
	for (uint32_t s = 0; s < rondo_sig_count(t); s++) {
		uint32_t f = rondo_sig_func(t, s);
		int k = rp_trace_param(t, f, "dest");
		rondo_merged_loop h;
		rondo_arg a;

		if (k >= 0 && w->nsent < mg.peers &&
		    rondo_sig_arg(t, s, (uint32_t)k, &a) == 0 &&
		    rondo_arg_merged(t, &a, NULL, &h) == 1)
			w->sent[w->nsent++] = hist_key(t, h.id);
	}
	return w;
}

void rp_whole_free(struct rp_whole *w)
{
	if (w)
		free(w->sent);
	free(w);
}

/* Whether histogram id (a receive's merged source) is like one of the
 * sends' merged peers, so that drawing from it finds the sender. */
static int peers_sent(const rondo_trace *t, const struct rp_whole *w,
		      uint32_t id)
{
	uint64_t key = hist_key(t, id);

	for (uint32_t i = 0; i < w->nsent; i++)
		if (w->sent[i] == key)
			return 1;
	return 0;
}

static int decode(const rondo_trace *t, const struct rp_whole *w, uint32_t rank,
		  const rondo_arg *in, const rondo_comm_ref *cm, int raw,
		  struct rp_val *v)
{
	rondo_arg a, e;
	int64_t local = -1;

	memset(v, 0, sizeof *v);
	if (rondo_arg_at_rank(t, in, rank, &a) < 0)
		a = *in;
	if (a.kind == RONDO_ARG_MERGED) { /* merged at the precision */
		rondo_merged_loop h = {0};
		rondo_arg m = a;

		if (rondo_arg_merged(t, &m, &a, &h) == 1 && raw == 2) {
			/* a receive's count: room for what is sent */
			a.wire = RONDO_WIRE_UINT;
			a.u = h.max;
		} else if (h.kind == RONDO_MERGED_VALUE && raw == 3 &&
			   a.kind == RONDO_ARG_INT) {
			/* a send's: drawn at each call */
			v->draw = h.id + 1;
			v->kept =
				a.wire == RONDO_WIRE_UINT ? (int64_t)a.u : a.i;
		} else if (h.kind == RONDO_MERGED_VALUE &&
			   (raw == 4 || raw == 5) &&
			   a.kind == RONDO_ARG_RANK_REL &&
			   a.wire == RONDO_WIRE_SINT && cm && cm->size &&
			   cm->rank != RONDO_RANK_NONE) {
			/* a peer: a send's drawn at each call, how far and
			 * on the written side; a receive's the same way when
			 * sends' peers have a histogram alike (their k-th
			 * draws are the same: the receiver of a shift finds
			 * its sender), else from any source */
			if (raw == 4 || peers_sent(t, w, h.id)) {
				v->draw = h.id + 1;
				v->kept = a.i < 0 ? -a.i : a.i;
				v->peer = a.i < 0 ? -1 : 1;
				v->span = cm->size;
			} else {
				v->any = 1;
			}
		}
		raw = raw >= 2 ? 0 : raw;
	}
	v->kind = a.kind;
	v->i = a.wire == RONDO_WIRE_UINT ? (int64_t)a.u : a.i;
	switch (a.kind) {
	case RONDO_ARG_RANK:
	case RONDO_ARG_RANK_REL:
	case RONDO_ARG_CART_REL:
		if (raw || !cm)
			break;
		rondo_peer(t, cm, &a, &local);
		if (local >= 0) {
			v->i = local;
			v->has_local = 1;
		}
		break;
	case RONDO_ARG_REL:
		if (!raw && cm && cm->rank != RONDO_RANK_NONE)
			v->i = (int64_t)cm->rank + a.i;
		break;
	case RONDO_ARG_BUFFER:
		if (rondo_arg_elem(&a, 0, &e) == 0)
			v->i = (int64_t)e.u;
		if (rondo_arg_elem(&a, 1, &e) == 0)
			v->off = e.i;
		break;
	case RONDO_ARG_DTYPE_SIZE:
		v->kind = RONDO_ARG_DATATYPE;
		if (rondo_arg_elem(&a, 0, &e) == 0)
			v->i = (int64_t)e.u;
		break;
	case RONDO_ARG_STRING:
	case RONDO_ARG_BYTES:
		v->bytes = a.data;
		v->size = a.size;
		break;
	case RONDO_ARG_ARRAY:
	case RONDO_ARG_STATUS:
		v->n = (uint32_t)a.n;
		v->e = calloc(v->n ? v->n : 1, sizeof *v->e);
		if (!v->e)
			return RONDO_E_NOMEM;
		for (uint32_t k = 0; k < v->n; k++)
			if (rondo_arg_elem(&a, k, &e) == 0 &&
			    decode(t, w, rank, &e, cm,
				   raw || a.kind == RONDO_ARG_STATUS,
				   &v->e[k]) < 0)
				return RONDO_E_NOMEM;
		break;
	}
	return 0;
}

void rp_vals_free(struct rp_val *v, uint32_t n)
{
	for (uint32_t k = 0; v && k < n; k++)
		rp_vals_free(v[k].e, v[k].n);
	free(v);
}

/* How argument k of sig is replayed when it is a count merged at the
 * precision: 2, a receive's, as the most of its values, so that no
 * message sent is longer; 3, a point-to-point send's, drawn from its
 * histogram at each call (rp_sig_draw: the k-th draw of a histogram is
 * the same on every rank); 4, a send's peer, drawn so too; 5, a
 * receive's source, drawn when a send's peer has a histogram alike, else
 * any; 0, the others' (a collective's, which every rank must pass alike),
 * as written. */
static int merged_mode(const rondo_trace *t, uint32_t sig, uint32_t k)
{
	static const char *const sends[] = {
		"MPI_Send",	  "MPI_Isend",	    "MPI_Ssend",
		"MPI_Issend",	  "MPI_Bsend",	    "MPI_Ibsend",
		"MPI_Rsend",	  "MPI_Irsend",	    "MPI_Send_init",
		"MPI_Ssend_init", "MPI_Bsend_init", "MPI_Rsend_init"};
	static const char *const recvs[] = {
		"MPI_Recv",	  "MPI_Irecv",		 "MPI_Recv_init",
		"MPI_Mrecv",	  "MPI_Imrecv",		 "MPI_Precv_init",
		"MPI_Psend_init", "MPI_Sendrecv_replace"};
	uint32_t f = rondo_sig_func(t, sig);
	const char *fn = rondo_func_name(t, f),
		   *pn = rondo_func_param_name(t, f, k);

	if (!fn || !pn)
		return 0;
	if (an_param_role(fn, pn) == AN_PARAM_PEER)
		return !strcmp(pn, "dest") ? 4 : 5;
	if (!strncmp(pn, "recv", 4))
		return 2;
	if (!strcmp(fn, "MPI_Sendrecv") || !strcmp(fn, "MPI_Isendrecv"))
		return !strcmp(pn, "sendcount") ? 3 : 0;
	if (strcmp(pn, "count"))
		return 0;
	for (size_t i = 0; i < sizeof(recvs) / sizeof(*recvs); i++)
		if (!strcmp(fn, recvs[i]))
			return 2;
	for (size_t i = 0; i < sizeof(sends) / sizeof(*sends); i++)
		if (!strcmp(fn, sends[i]))
			return 3;
	return 0;
}

/* Whether argument k of sig is the tag a receive or a probe matches. */
static int recv_tag(const rondo_trace *t, uint32_t sig, uint32_t k)
{
	uint32_t f = rondo_sig_func(t, sig);
	const char *fn = rondo_func_name(t, f),
		   *pn = rondo_func_param_name(t, f, k);
	static const char *const recvs[] = {
		"MPI_Recv",  "MPI_Irecv",  "MPI_Recv_init", "MPI_Precv_init",
		"MPI_Probe", "MPI_Iprobe", "MPI_Mprobe",    "MPI_Improbe",
		"MPI_Mrecv", "MPI_Imrecv"};

	if (!fn || !pn)
		return 0;
	if (!strcmp(pn, "recvtag"))
		return 1;
	for (size_t i = 0; !strcmp(pn, "tag") && i < COUNTOF(recvs); i++)
		if (!strcmp(fn, recvs[i]))
			return 1;
	return 0;
}

int rp_decode_sig(const rondo_trace *t, const struct rp_whole *w, uint32_t sig,
		  uint32_t rank, struct rp_val **v, uint32_t *nargs)
{
	rondo_comm_ref cm;
	rondo_arg a;
	int known = rondo_sig_comm(t, sig, rank, &cm) >= 0;
	uint32_t n = rondo_sig_arg_count(t, sig);

	*v = calloc(n ? n : 1, sizeof **v);
	*nargs = n;
	if (!*v)
		return RONDO_E_NOMEM;
	for (uint32_t k = 0; k < n; k++)
		if (rondo_sig_arg(t, sig, k, &a) == 0 &&
		    decode(t, w, rank, &a, known ? &cm : NULL,
			   a.kind == RONDO_ARG_MERGED ? merged_mode(t, sig, k)
						      : 0,
			   &(*v)[k]) < 0)
			return RONDO_E_NOMEM;
	/* a trace whose tags were merged: each send's tag is the one
	 * written for its class, which a receive of another class, or of
	 * a tag left exact, would not match; receives match any tag, from
	 * their sources in the order sent */
	for (uint32_t k = 0; k < n && w->tags; k++)
		if ((*v)[k].kind == RONDO_ARG_TAG && recv_tag(t, sig, k))
			(*v)[k].any = 1;
	return 0;
}

int rp_trace_param(const rondo_trace *t, uint32_t func, const char *name)
{
	uint32_t n = rondo_func_param_count(t, func);
	for (uint32_t p = 0; p < n; p++) {
		const char *pn = rondo_func_param_name(t, func, p);
		if (pn && !strcmp(pn, name))
			return (int)p;
	}
	return -1;
}

static const char *trace_func(void *ctx, uint32_t sig)
{
	const rondo_trace *t = ctx;
	return rondo_func_name(t, rondo_sig_func(t, sig));
}

static int trace_param(void *ctx, uint32_t sig, const char *name)
{
	const rondo_trace *t = ctx;
	return rp_trace_param(t, rondo_sig_func(t, sig), name);
}

void rp_trace_names(const rondo_trace *t, struct rp_names *nm)
{
	nm->func = trace_func;
	nm->param = trace_param;
	nm->ctx = (void *)(uintptr_t)t;
}

int rp_rank_cut(const rondo_trace *t, uint32_t rank, const char **ending)
{
	const char *line = rondo_meta_get(t, "cut"), *ranks;
	int len;

	while (util_cut_next(&line, &ranks, ending, &len))
		if (util_in_ranks(ranks, rank))
			return len > 0 ? len : 0;
	return 0;
}

double rp_sig_gap(const rondo_trace *t, uint32_t sig, uint32_t group)
{
	uint64_t ns, calls;
	rondo_stat g;

	if (rondo_sig_group_gap(t, sig, group, &ns, &calls) == 0)
		return calls ? (double)ns / (double)calls : 0;
	if (rondo_sig_gap_stat(t, sig, &g) == 0 && g.count)
		return (double)g.total_ns / (double)g.count;
	return 0;
}

/* The time a rank of group `grp` would spend outside MPI at the group's
 * mean gaps: its calls of each signature (rule multiplicities from the
 * group's rule, never the calls) times their means; 0 when the trace
 * does not say. */
static double gaps_of_group(const rondo_trace *t, uint32_t grp)
{
	uint32_t nr = rondo_rule_count(t), ns = rondo_sig_count(t);
	uint32_t root = rondo_group_root(t, grp);
	double *mult, *cnt, est = 0;

	if (root >= nr)
		return 0;
	mult = calloc(nr, sizeof *mult);
	cnt = calloc(ns ? ns : 1, sizeof *cnt);
	if (mult && cnt) {
		mult[root] = 1;
		/* a rule names only rules of smaller ids: one pass down */
		for (uint32_t r = root + 1; r-- > 0;) {
			const rondo_sym *body;
			uint32_t len;
			if (mult[r] == 0 ||
			    rondo_rule_body(t, r, &body, &len) < 0)
				continue;
			for (uint32_t k = 0; k < len; k++) {
				uint32_t id = RONDO_SYM_ID(body[k].sym);
				double m = mult[r] * (double)body[k].count;
				if (RONDO_SYM_IS_RULE(body[k].sym) && id < nr)
					mult[id] += m;
				else if (!RONDO_SYM_IS_RULE(body[k].sym) &&
					 id < ns)
					cnt[id] += m;
			}
		}
		for (uint32_t sg = 0; sg < ns; sg++)
			if (cnt[sg] > 0)
				est += cnt[sg] * rp_sig_gap(t, sg, grp);
	}
	free(mult);
	free(cnt);
	return est;
}

/*
 * How much longer or shorter than the signatures' means this rank computed.
 * The gaps the trace keeps are means over a rank group (over all ranks in
 * an older file), so a rank that works more than the others of its group
 * before the same call (a load imbalance among ranks that make the same
 * calls) would be replayed at the mean.  But the trace says how long each
 * rank spent
 * outside MPI in all, out_r: the run time less its MPI time.  That is more
 * than its gaps (the tracer's own time per call is in it too), so the
 * factors keep the gaps' total over all ranks (which the means give
 * exactly) and share it out as the out_r do: factor_r = k out_r / est_r,
 * est_r the rank's gaps at the means (gaps_of_root, once per rank group),
 * k = sum est / sum out (*norm).  1 when the trace does not say.
 */
int rp_gap_factors(const rondo_trace *t, double *factor, double *norm)
{
	uint32_t ng = rondo_group_count(t), nranks = rondo_rank_count(t);
	uint64_t run = an_run_ns(t), mpi;
	double sum_est = 0, sum_out = 0, *est, *out;
	uint32_t *ranks;
	int ret = 0;

	*norm = 1;
	for (uint32_t r = 0; r < nranks; r++)
		factor[r] = 1;
	if (!run)
		return 0;
	ranks = calloc(nranks + 1, sizeof *ranks);
	est = calloc(nranks + 1, sizeof *est);
	out = calloc(nranks + 1, sizeof *out);
	if (!ranks || !est || !out)
		ret = RONDO_E_NOMEM;
	for (uint32_t g = 0; !ret && g < ng; g++) {
		double e = gaps_of_group(t, g);
		int64_t n = rondo_group_ranks(t, g, ranks, nranks);
		for (int64_t k = 0; k < n && k < (int64_t)nranks; k++) {
			if (rondo_rank_mpi_time(t, ranks[k], &mpi) < 0 ||
			    mpi >= run || ranks[k] >= nranks) {
				sum_out = 0; /* the trace does not say */
				g = ng;
				break;
			}
			est[ranks[k]] = e;
			out[ranks[k]] = (double)(run - mpi);
			sum_est += e;
			sum_out += (double)(run - mpi);
		}
	}
	for (uint32_t r = 0; !ret && sum_out > 0 && r < nranks; r++) {
		double f = est[r] > 0 ? sum_est / sum_out * out[r] / est[r] : 1;
		/* a rank that computed 100 times the mean is no longer a
		 * mean's */
		factor[r] = f > 0.01 && f < 100 ? f : 1;
	}
	if (!ret && sum_out > 0 && sum_est > 0)
		*norm = sum_est / sum_out;
	free(ranks);
	free(est);
	free(out);
	return ret;
}
