/*
 * scale_ranks.h - one rank's tables for bench_scale: what a rank of a
 * program of tests/mpi/ records (its signatures, grammar, statistics and
 * communicators), made without MPI.  bench_scale.c merges them; it reads
 * the tables and asks nothing else of how they were made, so the patterns
 * live in scale_ranks.c and the driver stays the merge alone.
 */
#ifndef RONDO_SCALE_RANKS_H
#define RONDO_SCALE_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "hmap.h"
#include "job.h"

struct grammar;
struct pool;

/* A pattern names its buffers by object: the tracer gives each a segment
 * id the first time a call names it (lowest free first, and these
 * programs free none while they call MPI). */
#define NOBJ 16

struct sigrec {
	uint32_t func, nargs, len;
	size_t off;  /* of its bytes in rk.bytes */
	double lean; /* the rank's pace in it against the others' */
	rondo_stat st;
};

/* A communicator, named by its members (comms.c): only the lowest member
 * keeps them, to add them to the merge. */
struct comm {
	uint64_t key;
	uint32_t n, me, ndims;
	uint32_t dims[3];
	uint8_t periodic[3];
	uint32_t *world; /* NULL but on the lowest member */
	int live;
};

struct rk {
	uint32_t rank, size;
	int observe; /* signatures only, for the choice of relative integers */
	/* the call being recorded */
	uint32_t func, nargs;
	struct fmt_buf a;
	/* the rank's signatures, their bytes back to back */
	struct sigrec *sig;
	uint32_t nsig;
	size_t capsig;
	struct fmt_buf bytes;
	struct hmap index; /* a signature's hash -> its id */
	struct grammar *g;
	uint32_t seg[NOBJ], nseg;
	struct pool *pool;
	uint32_t npools;
	size_t cappools;
	uint32_t next_req;
	struct comm *comm;
	uint32_t ncomms;
	size_t capcomms;
	uint64_t rng, calls;   /* its random stream */
	double speed, busy_ns; /* its pace, and its time in MPI */
};

struct cfg {
	uint32_t iters;
};

/* A program of tests/mpi/, call for call: run records rank r's calls. */
struct pattern {
	const char *name;
	void (*run)(struct rk *r, const struct cfg *cf);
	const char *args; /* the program's, after ITERS */
};

extern const struct pattern rk_patterns[];
extern const size_t rk_npatterns;

/* How much the made-up times vary (--noise): 1 by default, 0 makes every
 * rank's times the same. */
extern double rk_noise;

/* What the ids in the tables name, once rk_names_init has filled it. */
extern struct job_names rk_names;
void rk_names_init(void);

/* Rank `rank` of `size`, with no calls yet (observe: its signatures
 * only, for the choice of relative integers); exits if out of memory. */
void rk_init(struct rk *r, uint32_t rank, uint32_t size, int observe);
void rk_free(struct rk *r);

/* The caller's rank in a communicator its signatures name, or -1
 * (relative.h's relative_me_fn, ctx a struct rk). */
int64_t rk_rank_me(void *ctx, uint32_t kind, uint64_t value);

#endif
