/*
 * spill_fmt.h - a rank's spill file: what the tracer keeps on disk while
 * the job runs, so that `rondo recover` can make a trace of a job that
 * never reached the end of MPI_Finalize (FORMAT.md, "Spill files").
 *
 * A spill file is written by one rank, only ever appended to: an 8-byte
 * magic, then records, each
 *
 *	u32 type, u32 length, payload[length], u64 check
 *
 * (little-endian; check is FNV-1a 64 over type, length and payload, so a
 * record cut short or left half written by a killed process is found).
 * A record's payload is a list of entries of its type; one list may be
 * split over several records of the same type.  The state a reader
 * rebuilds is consistent at every MARK and at the END record: what
 * follows the last of them is ignored.
 *
 * The writer here allocates nothing and calls only write(2): the tracer
 * uses it from signal handlers.
 */
#ifndef RONDO_SPILL_FMT_H
#define RONDO_SPILL_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define SPILL_MAGIC "RONDOSPL"
/* 2: chunks as byte planes (SPILL_ZSTD_PLANES); recovery reads 1 too. */
#define SPILL_VERSION	  2
#define SPILL_VERSION_MIN 1
/* HEAD's per-call timing: 0 none; 3 per call, coded as format 1.9 codes
 * them (fmt_tenc: each interval from the previous start plus its
 * duration's lower edge).  Written before: 1, intervals from the
 * signature's previous start, and 2, from the end of the rank's previous
 * call (1.7, 1.8): recovery leaves such times out rather than misread
 * them. */
#define SPILL_TIMING_FROM_LOW 3

enum spill_rec {
	SPILL_HEAD = 1, /* the rank and its job (once, first) */
	SPILL_CONSTS,	/* the tracer's named constants (once) */
	SPILL_FUNCS,	/* functions, as signatures first use them */
	SPILL_SIGS,	/* new signatures, numbered in file order */
	SPILL_COMMS,	/* communicators this rank knows, new ones */
	SPILL_STATS,	/* statistics of signatures that changed */
	SPILL_CHUNK,	/* the next values of a stream */
	SPILL_MARK,	/* a consistent point */
	SPILL_END,	/* how the rank ended (a MARK too) */
	SPILL_GAPS,	/* the time before calls, of signatures that changed */
	SPILL_NREC
};

/* The streams a rank's calls are kept in: the signature of every call,
 * and with per-call timing each call's duration and interval codes. */
enum spill_streams {
	SPILL_CALLS,
	SPILL_DURATIONS,
	SPILL_INTERVALS,
	SPILL_NSTREAMS
};

/* How a chunk's values are stored: 32-bit little-endian, zstd of those,
 * or (version 2) a byte w from 1 to 4 and zstd of the values' w byte
 * planes: the lowest byte of every value, then the next, ... (every
 * value below 2^(8w)). */
enum spill_coding { SPILL_RAW, SPILL_ZSTD, SPILL_ZSTD_PLANES };

/* How a rank ended (SPILL_END). */
enum spill_end {
	SPILL_END_SIGNAL = 1, /* a signal: code is its number */
	SPILL_END_ABORT,      /* MPI_Abort: code is its errorcode */
	SPILL_END_EXIT,	      /* exit without MPI_Finalize: code, the status */
	SPILL_END_FINALIZE,   /* in MPI_Finalize, the trace not written */
	SPILL_END_KEPT,	      /* MPI_Finalize wrote the trace, with some rank's
			   calls past RONDO_MEMORY_LIMIT as counts only */
	SPILL_END_AFTER,      /* an after file (rank-N.after): the calls the
				 rank made after MPI_Finalize wrote the trace;
				 code, those left out of it */
	SPILL_NEND
};

/* A record's frame: entries are gathered here and written as one record. */
#define SPILL_FRAME (16u << 10)

struct spill_w {
	int fd;
	int err;	/* errno of the first failed write, 0 */
	uint32_t type;	/* of the record being gathered, 0: none */
	size_t n;	/* bytes gathered */
	uint64_t bytes; /* written so far */
	size_t nout;	/* bytes waiting in out */
	uint8_t buf[SPILL_FRAME];
	uint8_t out[4 * SPILL_FRAME]; /* records on their way: few writes */
};

/* Starts writing records to fd (the magic written already, or not). */
void spill_w_init(struct spill_w *w, int fd);
/* Writes the magic: a new file's first bytes. */
void spill_w_magic(struct spill_w *w);
/* Makes room for an entry of at most `need` bytes in a record of `type`,
 * writing what was gathered before if it is another type or full.
 * Returns 0, or -1 when need does not fit in a frame (spill_w_big). */
int spill_w_room(struct spill_w *w, uint32_t type, size_t need);
void spill_w_uv(struct spill_w *w, uint64_t v);
void spill_w_sv(struct spill_w *w, int64_t v);
void spill_w_u8(struct spill_w *w, uint8_t v);
void spill_w_le64(struct spill_w *w, uint64_t v);
void spill_w_f64(struct spill_w *w, double v);
void spill_w_bytes(struct spill_w *w, const void *p, size_t n);
/* A string: its length, then its bytes (at most `max`). */
void spill_w_str(struct spill_w *w, const char *s, size_t max);
/* Bytes an entry of these needs at most: a varint, a string. */
#define SPILL_UV_MAX 10
size_t spill_str_need(const char *s, size_t max);
/* Writes what was gathered as one record. */
void spill_w_flush(struct spill_w *w);
/* Ends the records: everything written to the file. */
void spill_w_done(struct spill_w *w);
/* Writes one record of its own: the entry's head (gathered into the
 * frame by the caller after spill_w_big_head) then p[n] as they are. */
void spill_w_big_head(struct spill_w *w, uint32_t type);
void spill_w_big_end(struct spill_w *w, const void *p, size_t n);

/* ---- reading ---------------------------------------------------------- */

/* The next whole, intact record at *at of the file's n bytes (p): its
 * type and payload; *at moves past it.  Returns 0, 1 at the end of the
 * file, RONDO_E_TRUNCATED for a record cut short or RONDO_E_CORRUPT for
 * one whose check fails (a reader stops there). */
int spill_next(const uint8_t *p, size_t n, size_t *at, uint32_t *type,
	       const uint8_t **payload, size_t *len);

#endif /* RONDO_SPILL_FMT_H */
