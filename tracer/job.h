/*
 * job.h - the trace file's sections, made from the merge of a job's
 * ranks.  Pure data work, no MPI: MPI_Finalize (output.c) and `rondo
 * recover` (recover/) make their files with it.
 */
#ifndef RONDO_JOB_H
#define RONDO_JOB_H

#include <stdint.h>

#include "format.h"
#include "hmap.h"

struct merge;

/* What the ids in the merged signatures name: the tracer's functions and
 * its named constants (with the sizes of those that are predefined
 * datatypes, -1 for the others). */
struct job_names {
	uint32_t nfuncs;
	const struct fmt_func *funcs;
	uint32_t nconsts;
	const char *const *consts;
	const int64_t *const_size;
};

struct job {
	struct merge *m;
	const struct job_names *names;
	int64_t ref;	     /* the ranks' clock origins count from it */
	const int64_t *skew; /* each rank's clock - rank 0's, or NULL */
	/* the metadata, made when the rest is known (its figures may ask
	 * the merge) */
	void (*meta)(struct fmt_meta *meta, void *ctx);
	void *ctx;
	/* the sections' own */
	struct hmap comm_id; /* communicator identity -> id */
	struct fmt_comms comms;
	size_t capcomms;
	struct fmt_topos topos; /* borrowed from the merge too */
	int oom;
	/* Each rank's time in each signature is kept (section ranktime) up
	 * to this many ranks; past it, a summary (ranksum).  0: the
	 * default, JOB_EXACT_RANKS. */
	uint32_t exact_ranks;
	/* 100 - RONDO_PRECISION: 0 keeps every call as it was (lossless),
	 * else loop counts that differ by at most this many percent are
	 * merged (precision.c) */
	uint32_t tolerance;
	/* what else may merge (RONDO_PRECISION_PARAMS): PARAMS_TAGS,
	 * PARAMS_PEERS */
	unsigned params;
};

/* Ranks up to which a trace keeps each rank's time in each signature, and
 * how many of the slowest and of the fastest ranks a summary keeps per
 * signature past it. */
#define JOB_EXACT_RANKS 16
#define JOB_EXTREMES	4

/* RONDO_RANKTIME_EXACT's value v (NULL: unset): the number of ranks,
 * JOB_EXACT_RANKS when unset, or 0 when v is not a number from 1 to
 * 2^32 - 1. */
uint32_t job_exact_ranks(const char *v);

/* The zstd level a section of len bytes is written at. */
int job_pack_level(size_t len);

/* Replaces a rank's grammar g (over nsig signatures) by the reshaped
 * grammar of the same calls (reshape.c) when that one is irregular and
 * compresses smaller: returns 1, with the packed sizes before and after
 * in *was and *now; else 0, g as it was. */
int job_reshape(struct fmt_grammar *g, uint32_t nsig, size_t *was, size_t *now);

/* The bindings calls came through (record.h's enum rec_binding). */
#define JOB_NBIND 3
/* "C: 1200 calls on 4 ranks; Fortran use mpi_f08: ...": calls[b] and
 * ranks[b] the calls and the ranks that made any, by binding. */
void job_bindings_text(char *buf, size_t size, const uint64_t *calls,
		       const uint64_t *ranks);

/* What the metadata says of every job, whoever makes the file (the
 * tracer at MPI_Finalize, rondo recover), in this order; NULL strings
 * (init, clock_sync) are left out. */
struct job_facts {
	const char *program, *command, *mpi, *mpi_version, *bindings, *host,
		*start, *init, *settings;
	const char *clock_sync; /* with per-call timing only */
	uint32_t ranks;
	double duration; /* seconds */
};

/* Adds the facts to m, with the merge's figures among them (its distinct
 * rank grammars, its per-call timing). */
void job_meta_facts(struct fmt_meta *m, const struct job_facts *f,
		    const struct merge *mg);

/* Adds a key and its value (NULL: "") to m; nothing when out of memory. */
void job_meta_add(struct fmt_meta *m, const char *key, const char *value);

/* Adds every section of the merged job to w.  Returns 0, or -1 when out
 * of memory. */
int job_sections(struct job *j, struct fmt_writer *w);

/* Frees what job_sections kept in j (not the merge). */
void job_free(struct job *j);

#endif /* RONDO_JOB_H */
