/*
 * source.c - what rondo-replay replays: the trace's signatures decoded for
 * this rank, the compute time before each call (the signature's mean gap in
 * the rank's group, scaled to the rank's own time outside MPI), and the
 * look-ahead that finds the call completing a wildcard receive.  (A proxy
 * has its own tables in place of this file.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "source.h"
#include "stats.h"

static struct {
	const rondo_trace *t;
	uint32_t rank;
	struct rp_options o;
	uint32_t group;	   /* this rank's rank group */
	double gap_factor; /* rp_gap_factors(), this rank's */
	double gap_norm;   /* its k: the gaps' share of the time outside MPI */
	double percall_factor; /* percall_gap_factor() */
	struct rp_sig *sigs;
	uint32_t nsigs;
	struct rp_whole *whole; /* rp_whole_read(t), kept to the end: calls
				   after MPI_Finalize are replayed too */
	rondo_iter *la;		/* the look-ahead */
	struct rp_names names;
	/* merged values' draws: by histogram, made on first use */
	struct vdraw {
		int ready;
		uint64_t key, n, drawn;
		struct draw_bin *bins;
		uint32_t nbins;
	} * vd;
	uint32_t nvd;
	uint64_t seed;
} src;

void rp_values_seed(uint64_t seed)
{
	src.seed = seed;
}

uint64_t rp_value_draw(uint32_t h, uint64_t kept)
{
	rondo_merged_loop x;
	struct vdraw *d;

	if (rondo_merged_info(src.t, h, &x) < 0)
		return kept;
	if (!src.vd) {
		while (rondo_merged_info(src.t, src.nvd, NULL) == 0)
			src.nvd++;
		src.vd = rp_xcalloc(src.nvd + 1, sizeof(*src.vd));
	}
	d = &src.vd[h];
	if (!d->ready) {
		d->bins = rp_xcalloc(x.nbins + 1, sizeof(*d->bins));
		for (uint32_t k = 0; k < x.nbins; k++)
			rondo_merged_bin(src.t, h, k, &d->bins[k].lo,
					 &d->bins[k].hi, &d->bins[k].n);
		d->nbins = x.nbins;
		d->n = x.loops;
		d->key = draw_key(x.loops, x.sum, x.min, x.max, d->bins,
				  x.nbins);
		d->ready = 1;
	}
	return draw_count(src.seed, d->key, d->drawn++, d->bins, d->nbins, d->n,
			  kept);
}

const rondo_trace *rp_trace(void)
{
	return src.t;
}

/* With per-call times: the rank's gaps as the timed iterator reads them
 * back (each start late by up to b - 1 of the span from its reference,
 * each duration long by as much), summed, against what the rank spent
 * outside MPI in all (run time less MPI time, within 0.79%): the factor
 * that makes the one the other; times rp_gap_factors' k, for the
 * tracer's own time in the latter.  A walk of the rank's calls' times. */
static double percall_gap_factor(const rondo_trace *t, uint32_t rank)
{
	uint64_t run = an_run_ns(t), mpi = 0;
	rondo_iter *it = NULL;
	int64_t start, end, last = 0;
	double sum = 0;
	uint32_t sig;
	int have = 0;

	if (!run || rondo_rank_mpi_time(t, rank, &mpi) < 0 || mpi >= run ||
	    rondo_iter_open(t, rank, RONDO_ITER_TIMED, &it) < 0)
		return 1;
	while (rondo_iter_next(it, &sig) == 1 &&
	       rondo_iter_time(it, &start, &end) == 0) {
		if (have && start > last)
			sum += (double)(start - last);
		last = end;
		have = 1;
	}
	rondo_iter_free(it);
	if (sum <= 0)
		return 1;
	sum = (double)(run - mpi) / sum;
	return sum > 0.01 && sum < 100 ? sum : 1;
}

double rp_percall_factor(void)
{
	return src.percall_factor;
}

static const char *const_name(uint32_t k)
{
	return rondo_const_name(src.t, k);
}

int rp_start(const rondo_trace *t, uint32_t rank, const struct rp_options *o)
{
	double *factors;

	for (uint32_t s = 0; src.sigs && s < src.nsigs; s++)
		rp_vals_free(src.sigs[s].v, src.sigs[s].nargs);
	free(src.sigs); /* started again: MPI gave another rank */
	rp_whole_free(src.whole);
	src.whole = rp_whole_read(t);
	if (!src.whole) {
		fprintf(stderr, "rondo-replay: out of memory\n");
		exit(1);
	}
	src.t = t;
	src.rank = rank;
	rp_trace_names(t, &src.names);
	src.o = *o;
	src.gap_norm = 1;
	src.gap_factor = 1;
	src.group = rondo_rank_group(t, rank);
	factors = rp_xcalloc(rondo_rank_count(t) + 1, sizeof *factors);
	if (rp_gap_factors(t, factors, &src.gap_norm) == 0 &&
	    rank < rondo_rank_count(t))
		src.gap_factor = factors[rank];
	free(factors);
	src.percall_factor =
		o->percall && o->compute_scale > 0 &&
				rondo_timing_mode(t, NULL) ==
					RONDO_TIMING_PERCALL
			? percall_gap_factor(t, rank) * src.gap_norm
			: 1;
	src.nsigs = rondo_sig_count(t);
	src.sigs = rp_xcalloc(src.nsigs, sizeof *src.sigs);
	rp_core_start(o, rondo_const_count(t), const_name);
	return 0;
}

int rp_sig_prepare(uint32_t sig, struct rp_sig **out)
{
	struct rp_sig *s;

	if (sig >= src.nsigs)
		return RONDO_E_RANGE;
	s = &src.sigs[sig];
	*out = s;
	if (s->ready)
		return 0;
	if (rp_decode_sig(src.t, src.whole, sig, src.rank, &s->v, &s->nargs) <
	    0) {
		fprintf(stderr, "rondo-replay: out of memory\n");
		exit(1);
	}
	s->handler = -1;
	if (src.o.compute_scale > 0)
		s->gap_ns = rp_sig_gap(src.t, sig, src.group) *
			    src.o.compute_scale * src.gap_factor;
	s->ready = 1;
	return 0;
}

uint32_t rp_func_count(void)
{
	return rondo_func_count(src.t);
}

const char *rp_func_name(uint32_t f)
{
	return rondo_func_name(src.t, f);
}

uint32_t rp_sig_func(uint32_t sig)
{
	return rondo_sig_func(src.t, sig);
}

int rp_param(uint32_t func, const char *name)
{
	return rp_trace_param(src.t, func, name);
}

static int iter_next(void *it, uint32_t *sig)
{
	return rondo_iter_next(it, sig);
}

const struct rp_val *rp_completion_status(struct rp_call *c, int64_t id)
{
	rondo_iter_free(src.la);
	src.la = rondo_iter_create(src.t, src.rank);
	if (!src.la || rondo_iter_skip(src.la, c->index + 1) < 0)
		return NULL;
	return rp_read_ahead(&src.names, iter_next, src.la, id);
}

void rp_finish(void)
{
	rondo_iter_free(src.la);
	src.la = NULL;
}
