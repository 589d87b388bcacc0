/*
 * runtime.h - the tracer's state inside one MPI process.
 */
#ifndef RONDO_RUNTIME_H
#define RONDO_RUNTIME_H

#include <limits.h>
#include <pthread.h>
#include <stdint.h>

#include "format.h"
#include "grammar.h"
#include "record.h"

enum rt_state { RT_BEFORE, RT_ON, RT_DONE };

/* Deepest nesting of recorded calls (a call from a callback inside a
 * recorded call is one level down). */
#define RT_MAX_DEPTH 4

/* One call's scratch space, one per nesting level and thread. */
struct rt_level {
	struct fmt_buf args;    /* the encoded argument values */
	MPI_Request *saved;     /* rec_save_requests */
	size_t nsaved;
};

struct rec_thread {
	int depth;
	struct rt_level level[RT_MAX_DEPTH];
};

/* Aggregates of one local signature. */
struct rt_sig {
	uint32_t func;
	uint32_t nargs;
	uint32_t len;
	uint32_t off; /* of the argument bytes in rt.sig_bytes */
	uint64_t hash;
	rondo_stat st;
};

struct rt {
	enum rt_state state;
	int paused;   /* MPI_Pcontrol(0) */
	int disabled; /* RONDO_DISABLE */
	int verbose;  /* RONDO_VERBOSE */
	int track_pointers; /* RONDO_TRACK_POINTERS */
	int locking;  /* MPI_THREAD_MULTIPLE: recording takes rt.lock */
	pthread_mutex_t lock;
	int rank, size;
	char out[PATH_MAX]; /* RONDO_OUT, or "" */
	char start[32];     /* ISO 8601 time of MPI_Init */
	char stamp[32];     /* the same as YYYYMMDD-HHMMSS for file names */
	struct grammar *g;
	struct rt_sig *sig; /* local call signatures */
	uint32_t nsig, capsig;
	uint32_t *sig_index; /* open addressing over sig, UINT32_MAX empty */
	uint32_t index_cap;
	struct fmt_buf sig_bytes;
	uint64_t ncalls;
	int failed; /* out of memory once: stop recording, say so at the end */
};

extern struct rt rt;

/* Hand-written functions get ids after the generated ones. */
enum rt_func { RT_INIT, RT_INIT_THREAD, RT_FINALIZE, RT_PCONTROL, RT_NFUNCS };

/* Name, parameters and output flags of function id `f`. */
const struct rec_func *rt_func(uint32_t f);
uint32_t rt_nfuncs(void);

/* Monotonic nanoseconds. */
uint64_t rt_now(void);

/* Warns once per key on rank 0 (or any rank before the rank is known). */
void rt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads the RONDO_* environment; bad values warn and keep the default. */
void rt_settings(void);

/* ---- record.c ------------------------------------------------------------ */
/* Where the current call's argument values are encoded. */
struct fmt_buf *rec_args(struct rec *r);
/* Starts recording: the grammar and tables exist, state RT_ON. */
int record_start(void);
/* Finds or adds the signature of the current call; UINT32_MAX when out of
 * memory. */
uint32_t record_signature(uint32_t func, uint32_t nargs, const uint8_t *p,
			  size_t n);

/* ---- handles.c ----------------------------------------------------------- */
/* Named constants: index in the trace's constant table. */
uint32_t handles_const_count(void);
/* The constant MPI_UNDEFINED is recorded as. */
uint32_t handles_const_undefined(void);
const char *handles_const_name(uint32_t i);
void handles_init(void);

/* ---- comms.c ------------------------------------------------------------- */
/* A predefined communicator is recorded as constant `constant`. */
void comms_name(MPI_Comm c, uint32_t constant);
/* This rank's rank in intracommunicator c and its size, without asking MPI
 * when c is known; -1 for an intercommunicator or one not seen. */
int comms_rank(MPI_Comm c, int *me, int *size);
/* The identities this rank speaks for: count, then per identity its key,
 * first-group size (intercommunicators, else 0), members' world ranks. */
void comms_encode(struct fmt_buf *b);

/* ---- output.c ------------------------------------------------------------ */
/* Gathers every rank's tables and grammar on rank 0, which writes the
 * trace.  Collective over MPI_COMM_WORLD; call before PMPI_Finalize. */
void output_write(void);

#endif /* RONDO_RUNTIME_H */
