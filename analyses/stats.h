/*
 * stats.h - mpiP-like statistics, contention and imbalance, from the
 * trace's per-signature statistics and per-rank times (no call expanded).
 *
 * Everything here reads what librondo keeps per signature (rondo_sig_stat:
 * calls, total, min, max and sum of squares over all ranks) and per rank
 * (rondo_rank_time_entry: each rank's total in each signature it called,
 * within 0.79%), so it costs time proportional to the signatures and the
 * stored per-rank entries, never to the number of calls.
 *
 * Functions that can fail return 0 or a negative RONDO_E_* code; nothing
 * here prints or exits.  Arrays handed back are freed with free().
 */
#ifndef RONDO_STATS_H
#define RONDO_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "rondo.h"

/* What the rows of a report are. */
enum an_by {
	AN_BY_FUNCTION,	 /* one row per function called, its signatures
			    combined exactly */
	AN_BY_SIGNATURE, /* one row per signature called */
	AN_BY_RANK	 /* one row per rank */
};

/* What to order rows by: most first, ties by id. */
enum an_key { AN_KEY_TOTAL, AN_KEY_COUNT, AN_KEY_MEAN, AN_KEY_MAX, AN_KEY_ID };

/* One row: the durations of the calls of one function, one signature or
 * one rank, in nanoseconds.  For a rank, count is the calls it made (from
 * the grammar) and total_ns its time in MPI (rondo_rank_mpi_time); min_ns,
 * max_ns and sumsq_ns2 are 0 there, the trace keeping no distribution per
 * rank. */
struct an_row {
	uint32_t id;   /* function id, signature id or rank */
	uint32_t sigs; /* signatures in the row (0 for a rank) */
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	double sumsq_ns2; /* sum of the squared durations */
	int totals_only;  /* min, max and sum of squares unknown */
};

/**
 * Sets *rows to a new array of the rows `by` asks for and *n to their
 * number, in id order: the functions and signatures that were called (an
 * empty array for a trace without calls), or every rank.
 * Returns 0, RONDO_E_NOMEM, or RONDO_E_MISSING when the trace has no
 * statistics (by function or signature; some rank made calls but no
 * signature has any) or no per-rank times (by rank).  On failure *rows is
 * NULL and *n 0.
 */
int an_stats(const rondo_trace *t, enum an_by by, struct an_row **rows,
	     uint32_t *n);

/* The same rows by function or signature, of the time before each call
 * (rondo_sig_gap_stat: the computation since the rank's previous call);
 * RONDO_E_MISSING for a trace that keeps none, RONDO_E_RANGE by rank.
 * an_before_total: that time summed over every signature. */
int an_stats_before(const rondo_trace *t, enum an_by by, struct an_row **rows,
		    uint32_t *n);
uint64_t an_before_total(const rondo_trace *t);

/* The same of the calls of rank group `group` alone
 * (rondo_sig_group_gap): counts and totals only (totals_only set), the
 * trace keeping no extremes per group; RONDO_E_RANGE for a group out of
 * range or by rank, RONDO_E_MISSING for a trace that keeps none per
 * group.  an_before_group_total: the group's time summed. */
int an_stats_before_group(const rondo_trace *t, enum an_by by, uint32_t group,
			  struct an_row **rows, uint32_t *n);
uint64_t an_before_group_total(const rondo_trace *t, uint32_t group);

/** Orders rows[0..n-1] by `key`, the largest first, ties by increasing
 * id; AN_KEY_ID orders by increasing id alone. */
void an_stats_sort(struct an_row *rows, uint32_t n, enum an_key key);

/** Returns the mean duration of a row's calls (0 without calls). */
double an_row_mean(const struct an_row *r);

/** Returns the standard deviation of a row's call durations (of the
 * population, as mpiP's), 0 without calls or for a rank's row. */
double an_row_sd(const struct an_row *r);

/* The wholes that shares are of; 0 where the trace does not say. */
struct an_totals {
	uint32_t ranks;
	uint64_t run_ns;      /* the run's wall-clock time: the tracer's
				 "duration" (seconds, the longest rank's run
				 from MPI_Init); the aggregate run time is
				 that times the ranks */
	uint64_t mpi_ns;      /* all ranks' time in MPI: the sum of every
				 signature's total (exact) */
	uint64_t rank_mpi_ns; /* the same from the per-rank times (each
				 within 0.79%), the whole of a rank's share */
};

/* The run's duration in ns: the tracer's "duration" metadata (the longest
 * rank's run, from its MPI_Init), 0 when absent or not a duration. */
uint64_t an_run_ns(const rondo_trace *t);

/** Fills *tot for trace t.  Cannot fail: what is missing is 0. */
void an_totals(const rondo_trace *t, struct an_totals *tot);

/** Returns part / whole, or NAN when whole is 0 (a share unknown). */
double an_share(double part, uint64_t whole);

/** Writes into buf what per-rank times trace t keeps and how precise
 * they are, one line without its end ("each rank's time in each
 * signature, within 0.79%", or what a summary keeps); returns buf. */
const char *an_rank_precision(const rondo_trace *t, char *buf, size_t size);

/** Writes the text of signature `sig` into buf as rondo_sig_format()
 * does, cut to size - 1 bytes ending in "..." when it is longer (never
 * inside a UTF-8 sequence): for reports in columns.  size >= 4. */
void an_sig_text(const rondo_trace *t, uint32_t sig, char *buf, size_t size);

/* Writes text field s as CSV: quoted when it holds a comma, a quote or a
 * line break (RFC 4180), quotes doubled. */
void an_csv_text(FILE *out, const char *s);

/* Writes the text of signature sig as a CSV field, as long as it is.
 * Returns 0 or RONDO_E_NOMEM. */
int an_csv_sig(const rondo_trace *t, uint32_t sig, FILE *out);

/**
 * Writes rows[0..n-1] of a report `by` as CSV, a header row first, times
 * in nanoseconds and shares as fractions (empty when unknown), the
 * signature's full text quoted:
 *   by function:  function,signatures,calls,total_ns,mean_ns,min_ns,
 *                 max_ns,sd_ns,mpi_share,run_share
 *   by signature: sig,function,calls,total_ns,mean_ns,min_ns,max_ns,sd_ns,
 *                 mpi_share,run_share,signature
 *   by rank:      rank,calls,mpi_ns,run_ns,run_share,mpi_share
 * mpi_share is of tot->mpi_ns (by rank, tot->rank_mpi_ns), run_share of
 * the aggregate run time (by rank, of the rank's own, tot->run_ns).
 * Returns 0, RONDO_E_NOMEM, or RONDO_E_IO when writing failed (errno
 * says why).
 */
int an_stats_csv(const rondo_trace *t, enum an_by by, const struct an_row *rows,
		 uint32_t n, const struct an_totals *tot, FILE *out);

/* The contention of one signature: time lost against its fastest call,
 * and how unevenly the ranks that call it share its time. */
struct an_contention {
	uint32_t sig;
	uint64_t count;	   /* calls, over all ranks */
	uint64_t total_ns; /* their total duration */
	uint64_t min_ns;   /* the fastest call */
	uint64_t lost_ns;  /* total - count * min = count * (mean - min) */
	uint32_t ranks;	   /* ranks that call it; 0 when the trace has no
				per-rank times (the fields below are 0 then) */
	uint32_t max_rank; /* the rank with the largest total in it */
	uint32_t min_rank; /* the rank with the smallest total: for a
				collective, the one that arrives last */
	uint64_t max_rank_ns;
	uint64_t min_rank_ns;
	double mean_rank_ns; /* mean total over the ranks that call it */
	double imbalance;    /* max_rank_ns / mean_rank_ns (1 if that is 0) */
	double imbalance_ns; /* max_rank_ns - mean_rank_ns: what the rank of
				most time in it spent past the mean, the time
				lost to imbalance */
};

/* Orders of the contention rows, the first row first: most time lost
 * against the fastest call; most time lost to imbalance (imbalance_ns);
 * highest imbalance ratio.  Ties go to the next order, then by
 * signature. */
enum an_cont_order { AN_CONT_LOST, AN_CONT_IMBALANCE, AN_CONT_RATIO };

void an_contention_sort(struct an_contention *rows, uint32_t n,
			enum an_cont_order order);

/**
 * Sets *rows to a new array with the contention of every signature that
 * was called and *n to their number, ordered by lost time, the most first
 * (ties by signature).  The per-rank totals come from one walk over every
 * rank's stored times.  Pallas's contention score is lost_ns over the run
 * time (an_totals' run_ns), the lost share lost_ns over the aggregate run
 * time (run_ns times the ranks).
 * Returns 0, RONDO_E_NOMEM, or RONDO_E_MISSING when the trace has no
 * statistics; a trace without per-rank times gives rows with ranks = 0.
 * On failure *rows is NULL and *n 0.
 */
int an_contention(const rondo_trace *t, struct an_contention **rows,
		  uint32_t *n);

/**
 * Writes rows[0..n-1] as CSV, a header row first:
 *   sig,function,calls,total_ns,min_ns,lost_ns,score,lost_share,ranks,
 *   imbalance,max_rank,max_rank_ns,min_rank,min_rank_ns,mean_rank_ns,
 *   imbalance_ns,signature
 * score and lost_share as an_contention() says (empty when the run time
 * is unknown), the rank fields empty without per-rank times.  Returns 0,
 * RONDO_E_NOMEM, or RONDO_E_IO when writing failed (errno says why).
 */
int an_contention_csv(const rondo_trace *t, const struct an_contention *rows,
		      uint32_t n, const struct an_totals *tot, FILE *out);

#endif /* RONDO_STATS_H */
