/*
 * rondo.h - read rondo trace files (librondo).
 *
 * A .rondo file holds the MPI calls of every rank of one job as a grammar:
 * a table of call signatures (terminals), rules whose bodies are symbols
 * with repeat counts, and a map from each rank to the rule that expands to
 * its whole call sequence.  Everything here works on that compressed form;
 * nothing expands the full list of calls unless the caller iterates it.
 *
 * Conventions (after zstd and libyaml):
 * - every symbol is prefixed rondo_, every handle is opaque;
 * - functions that can fail return int: 0 on success, a negative RONDO_E_*
 *   code on failure; rondo_strerror() names the code and
 *   rondo_trace_error() gives the detail of the last failure on a handle
 *   (file, section, byte offset, what was wrong);
 * - free functions accept NULL;
 * - the library never prints and never exits.
 *
 * Threads: an opened trace is never changed by reading it.  Every function
 * that takes a `const rondo_trace *` only reads the handle, so any number
 * of threads may call them on one trace at once, each with its own
 * iterators; opening and freeing a handle, and using one iterator, must
 * not overlap with other calls on the same object.
 *
 * The file format is described in FORMAT.md, installed beside this header's
 * documentation.
 */
#ifndef RONDO_H
#define RONDO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(RONDO_BUILDING_LIBRARY)
#define RONDO_API __attribute__((visibility("default")))
#else
#define RONDO_API
#endif

/* Version of this library (not of the file format).  These three lines
 * are the version's one source: configure.ac reads them, so the package,
 * `rondo --version` and rondo_version_string() all say the same. */
#define RONDO_VERSION_MAJOR   0
#define RONDO_VERSION_MINOR   1
#define RONDO_VERSION_RELEASE 0
#define RONDO_VERSION_NUMBER                                                   \
	(RONDO_VERSION_MAJOR * 10000 + RONDO_VERSION_MINOR * 100 +             \
	 RONDO_VERSION_RELEASE)
#define RONDO_QUOTE_(x) #x
#define RONDO_QUOTE(x)	RONDO_QUOTE_(x)
/* "0.1.0" */
#define RONDO_VERSION_STRING                                                   \
	RONDO_QUOTE(RONDO_VERSION_MAJOR)                                       \
	"." RONDO_QUOTE(RONDO_VERSION_MINOR) "." RONDO_QUOTE(                  \
		RONDO_VERSION_RELEASE)

/* Version of the file format this library writes and reads.  Files with a
 * newer major version are refused; newer minor versions are read, and
 * sections this library does not know are skipped. */
#define RONDO_FORMAT_MAJOR 1
#define RONDO_FORMAT_MINOR 13

/** Returns RONDO_VERSION_NUMBER of the library actually linked. */
RONDO_API unsigned rondo_version_number(void);

/** Returns the library version as a string, e.g. "0.1.0". */
RONDO_API const char *rondo_version_string(void);

/* Error codes: every failing function returns one of these (all < 0). */
#define RONDO_OK	  0
#define RONDO_E_IO	  (-1) /* the operating system refused (open, read) */
#define RONDO_E_NOMEM	  (-2) /* out of memory */
#define RONDO_E_NOTRONDO  (-3) /* not a rondo file (bad magic) */
#define RONDO_E_VERSION	  (-4) /* written by a newer, incompatible version */
#define RONDO_E_TRUNCATED (-5) /* the file or a section ends too early */
#define RONDO_E_CORRUPT	  (-6) /* a checksum, length, offset or value is wrong */
#define RONDO_E_MISSING	  (-7) /* a required section is absent */
#define RONDO_E_RANGE	  (-8) /* an argument is out of range (rank, id) */
#define RONDO_E_STATE	  (-9) /* the handle is not in a usable state */

/** Returns a static, one-line description of an error code. */
RONDO_API const char *rondo_strerror(int code);

/* ------------------------------------------------------------------------ */
/* Opening a trace                                                           */

typedef struct rondo_trace rondo_trace;

/** Allocates an empty trace handle.  Returns NULL only when out of memory. */
RONDO_API rondo_trace *rondo_trace_create(void);

/** Frees a handle and everything read through it.  Accepts NULL. */
RONDO_API void rondo_trace_free(rondo_trace *t);

/**
 * Opens and validates the file at `path`.  Only the header, the section
 * table and the sections needed to answer the calls below are read; each
 * section is decompressed once.  Every length, offset, count and symbol is
 * checked, so a damaged file fails here rather than later.  A file cut
 * short or partly damaged opens when the sections that hold the calls
 * (functions, signatures, grammar, rank map, and those they name) are
 * whole: what else is lost is then said by rondo_trace_damage().
 * Returns 0, or a negative RONDO_E_* code with the detail in
 * rondo_trace_error().  A handle can be opened once.
 */
RONDO_API int rondo_trace_open(rondo_trace *t, const char *path);

/**
 * The `i`-th note on what an opened trace could not read, one line, e.g.
 * "truncated: 3779 of 3780 bytes" or "section 'stats' damaged (checksum
 * mismatch): statistics not shown"; NULL past the last (at once for a
 * whole file).  The text lives as long as the handle.
 */
RONDO_API const char *rondo_trace_damage(const rondo_trace *t, uint32_t i);

/**
 * As rondo_trace_open(), on `size` bytes in memory (copied).  `name` is used
 * in error messages and may be NULL.
 */
RONDO_API int rondo_trace_open_memory(rondo_trace *t, const void *data,
				      size_t size, const char *name);

/**
 * Returns the detail of the last failure on `t`, one line naming the file,
 * the section and the byte offset where that applies, e.g.
 * "app.rondo: section 'grammar': rule 7 refers to undefined rule 9 (byte 312
 * of 4096)".  Returns "" when nothing failed.  Never NULL for a non-NULL t.
 */
RONDO_API const char *rondo_trace_error(const rondo_trace *t);

/* Where the last failure on a handle happened, as data. */
typedef struct rondo_error {
	int code;	     /* its RONDO_E_* code; RONDO_OK when none */
	const char *section; /* the section's name ("grammar"), or NULL when
				it is not in one (the header, the section
				table, the file as a whole) */
	uint64_t offset;     /* the byte it was found at: in the section's
				decompressed payload, else in the file */
	uint64_t size;	     /* the size of what offset counts in, 0 when
				unknown */
	int has_offset;	     /* offset and size mean something (not for an
				error of the system, or of memory) */
} rondo_error;

/**
 * Fills *out with where the last failure on `t` happened (the data that
 * rondo_trace_error() writes as text; the strings live as long as the
 * handle).  Returns out->code: RONDO_OK when nothing failed.
 */
RONDO_API int rondo_trace_error_info(const rondo_trace *t, rondo_error *out);

/* ------------------------------------------------------------------------ */
/* The container                                                             */

/** Returns the format version of the opened file (major in *major, minor in
 * *minor; either may be NULL). */
RONDO_API void rondo_format_version(const rondo_trace *t, unsigned *major,
				    unsigned *minor);

/** Returns the number of sections in the file (including unknown ones). */
RONDO_API uint32_t rondo_section_count(const rondo_trace *t);

/**
 * Describes section `i`: its name ("unknown" for types this library does not
 * know), its stored (compressed) and raw sizes in bytes.  Any pointer may be
 * NULL.  Returns 0 or RONDO_E_RANGE.
 */
RONDO_API int rondo_section_info(const rondo_trace *t, uint32_t i,
				 const char **name, uint64_t *stored,
				 uint64_t *raw);

/** Returns the size of the opened file in bytes. */
RONDO_API uint64_t rondo_file_size(const rondo_trace *t);

/* ------------------------------------------------------------------------ */
/* Metadata: key/value strings (program, command line, ranks, MPI library,   */
/* host, start time, tracer version and settings).                           */

/** Returns the number of metadata entries. */
RONDO_API uint32_t rondo_meta_count(const rondo_trace *t);

/** Reads entry `i`; returns 0 or RONDO_E_RANGE.  Strings live as long as
 * the handle. */
RONDO_API int rondo_meta_entry(const rondo_trace *t, uint32_t i,
			       const char **key, const char **value);

/** Returns the value for `key`, or NULL if absent. */
RONDO_API const char *rondo_meta_get(const rondo_trace *t, const char *key);

/* ------------------------------------------------------------------------ */
/* Functions and call signatures                                             */

/** Returns the number of function names in the trace. */
RONDO_API uint32_t rondo_func_count(const rondo_trace *t);

/** Returns the name of function `id` ("MPI_Send"), or NULL if out of range. */
RONDO_API const char *rondo_func_name(const rondo_trace *t, uint32_t id);

/** Returns the number of parameters recorded for function `id`. */
RONDO_API uint32_t rondo_func_param_count(const rondo_trace *t, uint32_t id);

/** Returns the name of parameter `p` of function `id`, or NULL. */
RONDO_API const char *rondo_func_param_name(const rondo_trace *t, uint32_t id,
					    uint32_t p);

/** Returns 1 if parameter `p` of function `id` is an output (its value is
 * what the call returned, e.g. the rank of MPI_Comm_rank), else 0. */
RONDO_API int rondo_func_param_is_output(const rondo_trace *t, uint32_t id,
					 uint32_t p);

/** Returns the number of named constants (MPI_COMM_WORLD, MPI_DOUBLE...). */
RONDO_API uint32_t rondo_const_count(const rondo_trace *t);

/** Returns the name of constant `id`, or NULL if out of range. */
RONDO_API const char *rondo_const_name(const rondo_trace *t, uint32_t id);

/** Returns the number of distinct call signatures (the terminals). */
RONDO_API uint32_t rondo_sig_count(const rondo_trace *t);

/** Returns the function id of signature `sig`, or UINT32_MAX if out of
 * range. */
RONDO_API uint32_t rondo_sig_func(const rondo_trace *t, uint32_t sig);

/** Returns the number of argument values of signature `sig` (0 if out of
 * range). */
RONDO_API uint32_t rondo_sig_arg_count(const rondo_trace *t, uint32_t sig);

/* Kinds of argument values (see FORMAT.md, "Argument values"). */
enum rondo_kind {
	RONDO_ARG_NULL = 0,	/* null or ignored pointer */
	RONDO_ARG_INT = 1,	/* integer: count, size, flag, displacement */
	RONDO_ARG_RANK = 2,	/* rank in the call's communicator */
	RONDO_ARG_RANK_REL = 3, /* rank relative to the caller's own rank */
	RONDO_ARG_TAG = 4,	/* message tag */
	RONDO_ARG_CONST = 5,	/* named constant: index into the constants */
	RONDO_ARG_COMM = 6,	/* symbolic handles: a per-type id */
	RONDO_ARG_GROUP = 7,
	RONDO_ARG_DATATYPE = 8,
	RONDO_ARG_OP = 9,
	RONDO_ARG_REQUEST = 10,
	RONDO_ARG_INFO = 11,
	RONDO_ARG_ERRHANDLER = 12,
	RONDO_ARG_WIN = 13,
	RONDO_ARG_FILE = 14,
	RONDO_ARG_MESSAGE = 15,
	RONDO_ARG_SESSION = 16,
	RONDO_ARG_BUFFER = 17,	 /* list: segment id, offset */
	RONDO_ARG_STATUS = 18,	 /* list: the fields that cannot be inferred */
	RONDO_ARG_ARRAY = 19,	 /* list of values */
	RONDO_ARG_STRING = 20,	 /* bytes: text */
	RONDO_ARG_BYTES = 21,	 /* bytes: opaque */
	RONDO_ARG_CALLBACK = 22, /* function pointer: symbolic id */
	RONDO_ARG_REL = 23,	 /* integer: the caller's rank plus this */
	RONDO_ARG_CART_REL = 24, /* rank of a Cartesian communicator: the
				     caller's grid coordinates plus an offset
				     (rondo_cart_peer) */
	RONDO_ARG_DTYPE_SIZE = 25, /* list: a derived datatype's id (kind
				      DATATYPE) and its size in bytes (kind
				      INT) */
	RONDO_ARG_VARY = 26,	   /* a value that differs by rank: a slot of
				the per-rank values (rondo_arg_at_rank) */
	RONDO_ARG_MERGED = 27,	   /* list: values merged at a precision below
				      100 % (rondo_arg_merged): a histogram's
				      id (kind INT), then the value that
				      stands for them (its own kind) */
	RONDO_ARG_KIND_COUNT
};

/* How a value is laid out (the low 3 bits of its tag). */
enum rondo_wire {
	RONDO_WIRE_NONE = 0,  /* no payload */
	RONDO_WIRE_UINT = 1,  /* unsigned varint, in .u */
	RONDO_WIRE_SINT = 2,  /* zigzag varint, in .i */
	RONDO_WIRE_BYTES = 3, /* length + bytes, in .data/.size */
	RONDO_WIRE_LIST = 4   /* count + values, .n elements in .data/.size */
};

/** One decoded argument value.  For lists, .data/.size hold the encoded
 * elements; read them with rondo_arg_elem(). */
typedef struct rondo_arg {
	uint32_t kind; /* enum rondo_kind, or a newer kind this library
			  does not know */
	uint32_t wire; /* enum rondo_wire */
	uint64_t u;
	int64_t i;
	uint64_t n;
	const uint8_t *data;
	size_t size;
} rondo_arg;

/** Decodes argument `a` of signature `sig`.  Returns 0 or RONDO_E_RANGE. */
RONDO_API int rondo_sig_arg(const rondo_trace *t, uint32_t sig, uint32_t a,
			    rondo_arg *out);

/** Decodes element `k` of a list value.  Returns 0 or RONDO_E_RANGE. */
RONDO_API int rondo_arg_elem(const rondo_arg *list, uint64_t k, rondo_arg *out);

/**
 * Writes signature `sig` as text: the inputs in parameter order, then
 * " -> " and the outputs, e.g. "MPI_Irecv(count=10, datatype=MPI_DOUBLE,
 * source=-1, tag=7, comm=MPI_COMM_WORLD -> buf=m1+0, request=r0)"; ranks
 * stored relative to the caller are written with a sign.  Into `buf`
 * (always NUL-terminated when size > 0).
 * Returns the length the full text needs, as snprintf does, or
 * RONDO_E_RANGE.
 */
RONDO_API int rondo_sig_format(const rondo_trace *t, uint32_t sig, char *buf,
			       size_t size);

/**
 * As rondo_sig_format(), for the call as rank `rank` made it: ranks stored
 * relative to the caller are written as the absolute ranks the program
 * passed (in the call's communicator, whose members the trace holds).
 * Returns the length the full text needs, or RONDO_E_RANGE.
 */
RONDO_API int rondo_sig_format_rank(const rondo_trace *t, uint32_t sig,
				    uint32_t rank, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* The grammar                                                               */

/* A symbol in a rule body: a terminal (a signature id) or, with
 * RONDO_SYM_RULE set, a rule id; repeated `count` times (count >= 1). */
#define RONDO_SYM_RULE	     0x80000000u
#define RONDO_SYM_ID(s)	     ((s) & ~RONDO_SYM_RULE)
#define RONDO_SYM_IS_RULE(s) (((s)&RONDO_SYM_RULE) != 0)

typedef struct rondo_sym {
	uint32_t sym;
	uint32_t reserved;
	uint64_t count;
} rondo_sym;

/** Returns the number of rules.  Rule ids are 0..count-1, and a rule refers
 * only to rules with smaller ids. */
RONDO_API uint32_t rondo_rule_count(const rondo_trace *t);

/**
 * Sets *body to the symbols of rule `rule` and *len to their number.  The
 * array lives as long as the handle.  Returns 0 or RONDO_E_RANGE.
 */
RONDO_API int rondo_rule_body(const rondo_trace *t, uint32_t rule,
			      const rondo_sym **body, uint32_t *len);

/** Returns the number of calls rule `rule` expands to (computed once when
 * the file is opened, never by expanding), or 0 if out of range. */
RONDO_API uint64_t rondo_rule_calls(const rondo_trace *t, uint32_t rule);

/** Returns the total number of grammar symbols (the sum of body lengths). */
RONDO_API uint64_t rondo_grammar_size(const rondo_trace *t);

/* ------------------------------------------------------------------------ */
/* Ranks and rank groups                                                     */

/** Returns the number of ranks (MPI_COMM_WORLD size) of the traced job. */
RONDO_API uint32_t rondo_rank_count(const rondo_trace *t);

/** Returns the rule whose expansion is the whole call sequence of `rank`,
 * or UINT32_MAX if `rank` is out of range. */
RONDO_API uint32_t rondo_rank_root(const rondo_trace *t, uint32_t rank);

/** Returns the number of calls `rank` made (0 if out of range). */
RONDO_API uint64_t rondo_rank_calls(const rondo_trace *t, uint32_t rank);

/** Returns the group of rank `rank` (the group whose root is its whole
 * call sequence), or UINT32_MAX if `rank` is out of range. */
RONDO_API uint32_t rondo_rank_group(const rondo_trace *t, uint32_t rank);

/** Returns 1 when rank `rank`'s calls are lost: the file was cut inside
 * its call grammar, before the rules of that rank (the rank then has 0
 * calls, and a group of its own with the others lost, which
 * rondo_group_lost() names; rondo_trace_damage() says which ranks);
 * 0 otherwise, and out of range. */
RONDO_API int rondo_rank_lost(const rondo_trace *t, uint32_t rank);

/** Returns the precision the trace was written at, in percent: 100 when
 * every call is as the program made it; below (RONDO_PRECISION), loops
 * whose repeat counts differ by at most (100 - precision) % may have been
 * merged, each then running its mean count in the grammar, and *merged
 * (may be NULL) is the number of merged loops (histograms of their
 * counts), 0 when nothing was; and signatures equal but for counts or
 * displacements within it (rondo_arg_merged; rondo_merged_info() of
 * each histogram says which kind it is). */
RONDO_API uint32_t rondo_precision(const rondo_trace *t, uint32_t *merged);

/** A merged loop's counts: the histogram of the repeat counts the loops
 * it stands for ran (rondo_loop_hist(), rondo_merged_info()). */
typedef struct rondo_merged_loop {
	uint32_t id;	   /* which histogram (sites may share one) */
	uint32_t nbins;	   /* rondo_merged_bin() */
	uint64_t loops;	   /* the loops merged: how many times one began */
	uint64_t sum;	   /* the repeats they ran in all, exact */
	uint64_t min, max; /* the fewest and most repeats of one loop */
	uint32_t min_rank, max_rank; /* the first rank seen with each */
	uint32_t kind; /* RONDO_MERGED_LOOP, or RONDO_MERGED_VALUE: the
			  values of an argument (rondo_arg_merged), loops
			  then counting the calls, sum their values */
} rondo_merged_loop;

#define RONDO_MERGED_LOOP  0
#define RONDO_MERGED_VALUE 1

/** Whether argument value `a` is a value merged at the precision (kind
 * RONDO_ARG_MERGED: signatures equal but for a count or a displacement
 * within the precision were made one): 1, with *value (may be NULL) the
 * value that stands for them (their mean, rounded, within the precision
 * of each; its own kind, RONDO_ARG_INT) and *h (may be NULL) the
 * histogram of the values the calls had; 0 when it is not one (*value is
 * then a); RONDO_E_CORRUPT for a MERGED value that names no histogram of
 * values (the hists section damaged: *value is then the value written,
 * or a itself when that cannot be read). */
RONDO_API int rondo_arg_merged(const rondo_trace *t, const rondo_arg *a,
			       rondo_arg *value, rondo_merged_loop *h);

/** Whether symbol `pos` of rule `rule`'s body is a merged loop: 1 and *h
 * set (h may be NULL), its count in the grammar being what the loops
 * kept (their mean, within the precision); 0 when it is not (its count
 * is exact); RONDO_E_RANGE for a rule or position out of range. */
RONDO_API int rondo_loop_hist(const rondo_trace *t, uint32_t rule, uint32_t pos,
			      rondo_merged_loop *h);

/** Merged loop histogram `id` (rondo_loop_hist() gives a site's; ids
 * from 0 to rondo_precision()'s *merged - 1): 0 and *h set, or
 * RONDO_E_RANGE. */
RONDO_API int rondo_merged_info(const rondo_trace *t, uint32_t id,
				rondo_merged_loop *h);

/** Bin `k` (from 0, in increasing counts) of histogram `id`: *n loops ran
 * from *lo to *hi repeats (lo = hi while the loops ran at most 32
 * distinct counts; beyond, bins a quarter of a power of two wide).
 * Returns 0, or RONDO_E_RANGE (no such histogram or bin). */
RONDO_API int rondo_merged_bin(const rondo_trace *t, uint32_t id, uint32_t k,
			       uint64_t *lo, uint64_t *hi, uint64_t *n);

/** Returns the number of rank groups: sets of ranks whose whole call
 * sequence is the same rule.  Groups are ordered by their lowest rank. */
RONDO_API uint32_t rondo_group_count(const rondo_trace *t);

/** Returns the root rule of group `g`, or UINT32_MAX if out of range. */
RONDO_API uint32_t rondo_group_root(const rondo_trace *t, uint32_t g);

/** Returns the number of ranks in group `g` (0 if out of range). */
RONDO_API uint32_t rondo_group_size(const rondo_trace *t, uint32_t g);

/** Returns 1 when group `g` is the ranks whose calls are lost
 * (rondo_rank_lost()), 0 otherwise. */
RONDO_API int rondo_group_lost(const rondo_trace *t, uint32_t g);

/**
 * Copies the ranks of group `g`, in increasing order, into ranks[0..max-1].
 * Returns the group's size (which may exceed max), or RONDO_E_RANGE.
 */
RONDO_API int64_t rondo_group_ranks(const rondo_trace *t, uint32_t g,
				    uint32_t *ranks, uint32_t max);

/**
 * Writes the ranks of group `g` compactly ("0-3,8,10-14:2") into `buf`,
 * NUL-terminated when size > 0.  "a-b:s" means a, a+s, ... up to b.
 * Returns the length the full text needs, or RONDO_E_RANGE.
 */
RONDO_API int rondo_group_format(const rondo_trace *t, uint32_t g, char *buf,
				 size_t size);

/* ------------------------------------------------------------------------ */
/* Communicators: the id of a COMM argument value                            */

/** Returns the number of communicators the trace describes. */
RONDO_API uint32_t rondo_comm_count(const rondo_trace *t);

/** Returns the number of members of communicator `c` (0 if out of range,
 * or if the trace does not know them). */
RONDO_API uint32_t rondo_comm_size(const rondo_trace *t, uint32_t c);

/** For an intercommunicator, the size of its first group (members
 * 0..first-1; the other group follows); 0 for an intracommunicator. */
RONDO_API uint32_t rondo_comm_first_group(const rondo_trace *t, uint32_t c);

/** Returns the world rank of member `k` of communicator `c` (its rank k),
 * or UINT32_MAX if out of range. */
RONDO_API uint32_t rondo_comm_member(const rondo_trace *t, uint32_t c,
				     uint32_t k);

/* The most dimensions a Cartesian topology in a trace has. */
#define RONDO_MAX_DIMS 64

/** Returns the number of dimensions of communicator `c`'s Cartesian
 * topology, 0 when it has none (or the file does not say), and fills
 * dims[k] (ranks along dimension k, the last varying fastest in rank
 * order) and periodic[k] (1 if it wraps around) for k below that and
 * below max; either array may be NULL. */
RONDO_API uint32_t rondo_comm_cart(const rondo_trace *t, uint32_t c,
				   uint32_t *dims, int *periodic, uint32_t max);

/**
 * The rank a value of kind RONDO_ARG_CART_REL names: `offset` from the
 * caller's grid position `me` (its rank in communicator `c`), in a
 * Cartesian topology of ndims dimensions dims[] (as rondo_comm_cart gives
 * them).  The offset is sum(d[k] * stride[k]), stride[k] the product of
 * the dims after k, each d[k] in (-dims[k]/2, dims[k]/2]; the peer's
 * coordinate k is (the caller's + d[k]) modulo dims[k].  Returns the
 * peer's rank, or -1 if the offset is not one of that grid.  When
 * `delta` is not NULL, fills delta[0..ndims-1] with the d[k].
 */
RONDO_API int64_t rondo_cart_peer(uint32_t ndims, const uint32_t *dims,
				  uint32_t me, int64_t offset, int64_t *delta);

/* ------------------------------------------------------------------------ */
/* Ranks an argument names                                                   */
/*                                                                          */
/* A signature holds ranks as the program passed them (kind RANK), relative */
/* to the caller's rank in the call's communicator (RANK_REL), or as an     */
/* offset on a Cartesian grid (CART_REL), so that alike ranks share one     */
/* signature; communicators are ids whose members the trace lists as world  */
/* ranks.  These functions answer, for the rank that made a call, which    */
/* communicator it named, its place in it, and which world rank each       */
/* rank-valued argument names.  They read only what rondo_trace_open      */
/* prepared (a member index per communicator), allocate nothing and take   */
/* O(log n) time.                                                          */

#define RONDO_COMM_NONE	 (-1) /* rondo_comm_ref.id: no communicator */
#define RONDO_COMM_WORLD (-2) /* rondo_comm_ref.id: MPI_COMM_WORLD */
#define RONDO_COMM_SELF	 (-3) /* rondo_comm_ref.id: MPI_COMM_SELF */

/* A rank not known (UINT32_MAX): the caller's place in a communicator
 * whose members the trace does not hold, or the caller not given. */
#define RONDO_RANK_NONE 0xffffffffu

/* A communicator as one rank sees it. */
typedef struct rondo_comm_ref {
	int64_t id;	/* a communicator id (rondo_comm_size...), or
			   RONDO_COMM_WORLD, RONDO_COMM_SELF, RONDO_COMM_NONE */
	uint32_t size;	/* members (both groups of an intercommunicator); 0
			   when the trace does not know them */
	uint32_t first; /* intercommunicator: members 0..first-1 are its
			   first group, the rest its second; 0 otherwise */
	uint32_t rank;	/* the caller's index among the members (its rank
			   in the communicator, for an intracommunicator),
			   or RONDO_RANK_NONE */
	uint32_t world; /* the caller's world rank, or RONDO_RANK_NONE */
} rondo_comm_ref;

/**
 * Finds the parameter named `name` ("dest", "comm") of signature `sig`'s
 * function and decodes its value into *out.  Returns the parameter's
 * index (>= 0), RONDO_E_RANGE when `sig` is out of range or an argument
 * is NULL, or RONDO_E_MISSING when the function has no such parameter;
 * on failure *out is a NULL value (kind RONDO_ARG_NULL, wire NONE).
 */
RONDO_API int rondo_sig_param(const rondo_trace *t, uint32_t sig,
			      const char *name, rondo_arg *out);

/**
 * The value `in` stands for in a call made by world rank `rank`, into
 * *out: when `in` is of kind RONDO_ARG_VARY (a value that differs by rank,
 * kept once per rank in section rankvals so that ranks doing the same
 * thing with different partners or communicators share a signature), the
 * rank's value; else `in` itself.  The resolvers below (communicators,
 * peers, the ranks of an argument) and the call texts do this themselves.
 * Returns 0; RONDO_E_MISSING when `in` differs by rank and `rank` is
 * RONDO_RANK_NONE (*out is then `in`); RONDO_E_RANGE for a rank beyond
 * the job or a NULL pointer.
 */
RONDO_API int rondo_arg_at_rank(const rondo_trace *t, const rondo_arg *in,
				uint32_t rank, rondo_arg *out);

/**
 * Resolves the communicator value `v` (kind COMM, or the constant
 * MPI_COMM_WORLD or MPI_COMM_SELF) as world rank `rank` sees it, into
 * *out.  `rank` may be RONDO_RANK_NONE to learn the communicator alone.
 * Returns 0 when the caller's place is known; RONDO_E_MISSING when `v`
 * names a communicator but the trace does not list its members, the
 * caller is not one of them, or no caller was given (then out->id, size
 * and first are set and out->rank is RONDO_RANK_NONE; MPI_COMM_SELF
 * needs no caller: its rank is 0); RONDO_E_RANGE when `v` names no
 * communicator or `rank` is beyond the job (out->id RONDO_COMM_NONE).
 */
RONDO_API int rondo_comm_resolve(const rondo_trace *t, const rondo_arg *v,
				 uint32_t rank, rondo_comm_ref *out);

/**
 * The communicator call `sig` names, as world rank `rank` (or
 * RONDO_RANK_NONE) sees it: its first argument that names one, in
 * parameter order.  Returns that argument's index (>= 0) when the
 * caller's place is known; otherwise as rondo_comm_resolve, and
 * RONDO_E_MISSING with out->id RONDO_COMM_NONE for a call that names no
 * communicator, RONDO_E_RANGE for `sig` or `rank` out of range.
 */
RONDO_API int rondo_sig_comm(const rondo_trace *t, uint32_t sig, uint32_t rank,
			     rondo_comm_ref *out);

/** The world rank of member `k` of communicator `cm` (its rank k), or -1
 * when there is none or the trace does not say. */
RONDO_API int64_t rondo_comm_world(const rondo_trace *t,
				   const rondo_comm_ref *cm, int64_t k);

/* What rondo_peer returns besides a world rank (all < 0). */
#define RONDO_PEER_UNKNOWN   (-1) /* the value cannot be resolved */
#define RONDO_PEER_PROC_NULL (-2) /* MPI_PROC_NULL: no peer */
#define RONDO_PEER_ANY	     (-3) /* MPI_ANY_SOURCE */
#define RONDO_PEER_ROOT                                                        \
	(-4) /* MPI_ROOT: the caller is the root of an
				     intercommunicator collective */
#define RONDO_PEER_INVALID                                                     \
	(-5) /* a rank outside the communicator: MPI
				     refused the call (MPI_ERR_RANK), which
				     sent or received nothing */

/**
 * The world rank the rank-valued argument `v` (kind RANK, RANK_REL or
 * CART_REL, or one of the constants above) names for the caller of
 * communicator `cm` (as rondo_comm_resolve filled it; on an
 * intercommunicator a rank is one of the other group).  When `local` is
 * not NULL it receives the rank as the program passed it (in `cm`, or in
 * the other group), or -1.  Returns the world rank, or a RONDO_PEER_*
 * value (a relative rank needs the caller's place in `cm`).
 */
RONDO_API int64_t rondo_peer(const rondo_trace *t, const rondo_comm_ref *cm,
			     const rondo_arg *v, int64_t *local);

/**
 * The communicator the source of status value `st` (kind STATUS) is a
 * rank of, as world rank `rank` sees it, into *out: the one the status
 * names (a completion call's status carries it), else the call's `call`
 * (rondo_sig_comm's) when the caller's place in that intracommunicator is
 * known, else the world.
 */
RONDO_API void rondo_status_comm(const rondo_trace *t, const rondo_arg *st,
				 const rondo_comm_ref *call, uint32_t rank,
				 rondo_comm_ref *out);

/**
 * The ranks argument `a` of signature `sig` names when world rank `rank`
 * makes the call, resolved in the call's communicator (rondo_sig_comm):
 * one for a rank-valued value, one per rank-valued element of an array,
 * the source of a status (in the communicator the status names, else the
 * call's, else the world); 0 for an argument that names no rank.  Fills
 * world[i] (rondo_peer's result) and, when `local` is not NULL,
 * local[i] (the rank as passed) for i below the count and below `max`.
 * Returns the count (which may exceed max), or RONDO_E_RANGE.
 */
RONDO_API int64_t rondo_sig_arg_ranks(const rondo_trace *t, uint32_t sig,
				      uint32_t rank, uint32_t a, int64_t *world,
				      int64_t *local, uint32_t max);

/**
 * The size in bytes of the datatype an argument value names: a predefined
 * datatype (kind CONST) by the sizes the tracer read from MPI (section
 * typesizes), a derived one (kind DTYPE_SIZE) by the size stored with its
 * id.  Returns the size, or -1 when the trace does not say (a datatype
 * first seen as an input, a file written before sizes were kept, a value
 * that names no datatype).
 */
RONDO_API int64_t rondo_type_size(const rondo_trace *t, const rondo_arg *v);

/* ------------------------------------------------------------------------ */
/* Per-signature statistics                                                  */

#define RONDO_HIST_BINS 64

/* Aggregated durations of all calls of one signature over all ranks.
 * Durations are in nanoseconds; hist[k] counts calls whose duration d has
 * 2^k <= d < 2^(k+1) (hist[0] also counts d = 0). */
typedef struct rondo_stat {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	double sumsq_ns2; /* sum of squared durations, for the deviation */
	uint64_t hist[RONDO_HIST_BINS];
} rondo_stat;

/** Fills *out with the statistics of `sig`.  Returns 0, RONDO_E_RANGE, or
 * RONDO_E_MISSING when the file has no statistics for it. */
RONDO_API int rondo_sig_stat(const rondo_trace *t, uint32_t sig,
			     rondo_stat *out);

/**
 * Fills *out with the statistics of the time before the calls of `sig`:
 * from the end of the rank's previous call to the start of this one (the
 * computation between MPI calls, which a replay reproduces), over all
 * ranks; a rank's first call has none.  Returns 0, RONDO_E_RANGE, or
 * RONDO_E_MISSING when the file keeps none for it (no call of it came
 * after another, or the file was written before the section gapstats).
 */
RONDO_API int rondo_sig_gap_stat(const rondo_trace *t, uint32_t sig,
				 rondo_stat *out);

/**
 * The same time for the ranks of one rank group: in *ns the total before
 * their calls of `sig` (each rank's total within 1/128 of the measured
 * one, see RONDO_RANKTIME_ERROR), in *calls how many of those calls had
 * one; both 0 when none of them did.  Either pointer may be NULL.  So a
 * group that computes longer than another before the same call is seen
 * as such, not as their mean.  Returns 0, RONDO_E_RANGE, or
 * RONDO_E_MISSING when the file keeps no such time per group (written
 * before the section groupgaps, or no call came after another).
 */
RONDO_API int rondo_sig_group_gap(const rondo_trace *t, uint32_t sig,
				  uint32_t group, uint64_t *ns,
				  uint64_t *calls);

/* ------------------------------------------------------------------------ */
/* Time per rank: how long each rank spent in each signature, for the        */
/* imbalance across ranks.  Totals are stored rounded to 7 significant bits: */
/* a value read here is within 1/128 (0.79%) of the measured one, and exact  */
/* below 128 ns (see FORMAT.md, "ranktime").  Files written before per-rank  */
/* times existed have none: these functions then return RONDO_E_MISSING.     */
/* How many calls a rank made of a signature is in the grammar.             */

/**
 * Sets *ns to the total time rank `rank` spent in calls of signature `sig`,
 * in nanoseconds; 0 (and a return of 0) if the rank never called it.  A
 * binary search in the rank's signatures.  Returns 0, RONDO_E_RANGE (sig,
 * rank or ns), or RONDO_E_MISSING.
 */
RONDO_API int rondo_sig_rank_time(const rondo_trace *t, uint32_t sig,
				  uint32_t rank, uint64_t *ns);

/**
 * Sets *ns to the total time rank `rank` spent in MPI calls: the sum of its
 * per-signature times, so within 0.79% as well.  Takes time proportional to
 * the number of signatures the rank called.  Returns 0, RONDO_E_RANGE, or
 * RONDO_E_MISSING.
 */
RONDO_API int rondo_rank_mpi_time(const rondo_trace *t, uint32_t rank,
				  uint64_t *ns);

/** Returns the number of signatures `rank` called (the entries below), or
 * 0 if out of range or the file has no per-rank times. */
RONDO_API uint32_t rondo_rank_time_count(const rondo_trace *t, uint32_t rank);

/**
 * Reads entry `k` of rank `rank`'s times, entries ordered by signature: the
 * signature in *sig and the total in *ns (either may be NULL).  Walking
 * every rank's entries visits each stored time once, which is how to
 * compute the imbalance of all signatures at once.  Returns 0,
 * RONDO_E_RANGE, or RONDO_E_MISSING.
 */
RONDO_API int rondo_rank_time_entry(const rondo_trace *t, uint32_t rank,
				    uint32_t k, uint32_t *sig, uint64_t *ns);

/* Past a number of ranks (16 unless RONDO_RANKTIME_EXACT said otherwise  */
/* when the job was traced) a trace keeps a summary instead of each rank's   */
/* time in each signature: each rank's time in MPI (within 0.79% still), and */
/* for each signature a spread over the ranks that called it (below).  The  */
/* functions above then give each rank's MPI time; rondo_rank_time_count()  */
/* is 0 and rondo_rank_time_entry() returns RONDO_E_MISSING; and            */
/* rondo_sig_rank_time() answers for the ranks the spread lists, and        */
/* returns RONDO_E_MISSING for the others.                                   */

/* What per-rank times a trace keeps (rondo_rank_times_kept). */
#define RONDO_RANKTIMES_NONE	0 /* none (an older file) */
#define RONDO_RANKTIMES_EACH	1 /* each rank's time in each signature */
#define RONDO_RANKTIMES_SUMMARY 2 /* each rank's MPI time, spreads */

/* Every per-rank time a trace keeps is within this share of the time
 * measured (exact below 128 ns). */
#define RONDO_RANKTIME_ERROR (1.0 / 128)

/** Returns RONDO_RANKTIMES_NONE, _EACH or _SUMMARY (0 for a NULL t); sets
 * *extremes (may be NULL) to how many of the slowest and of the fastest
 * ranks a spread lists at most: the summary's own number, or
 * RONDO_SPREAD_MAX when each rank's times are kept (0 with none). */
RONDO_API int rondo_rank_times_kept(const rondo_trace *t, uint32_t *extremes);

#define RONDO_SPREAD_MAX 16

/* How the ranks that called one signature spread their time in it: each
 * rank's total over its calls.  The slowest ranks are listed slowest first,
 * then the fastest of the others fastest first, ties by increasing rank;
 * when ranks <= nslow + nfast every rank is listed.  The mean over the
 * ranks is sum_ns / ranks, the imbalance the slowest over the mean. */
typedef struct rondo_spread {
	uint32_t ranks;	 /* ranks that called it (0: none) */
	uint64_t sum_ns; /* their totals summed */
	uint32_t nslow, nfast;
	uint32_t slow_rank[RONDO_SPREAD_MAX];
	uint64_t slow_ns[RONDO_SPREAD_MAX];
	uint32_t fast_rank[RONDO_SPREAD_MAX];
	uint64_t fast_ns[RONDO_SPREAD_MAX];
	uint32_t nbins; /* bins of the histogram (rondo_sig_spread_bin) */
} rondo_spread;

/** Fills *out with the spread of signature `sig` over the ranks.  Returns
 * 0, RONDO_E_RANGE, or RONDO_E_MISSING when the file has no per-rank
 * times. */
RONDO_API int rondo_sig_spread(const rondo_trace *t, uint32_t sig,
			       rondo_spread *out);

/**
 * Reads bin `k` (from 0, bins in increasing time) of the histogram of the
 * ranks' totals in `sig`: *ranks of them read back between *lo_ns and
 * *hi_ns, both included (8 bins per power of two from 128 ns, 8 ns wide
 * below).  Any pointer may be NULL.  Returns 0, RONDO_E_RANGE, or
 * RONDO_E_MISSING.
 */
RONDO_API int rondo_sig_spread_bin(const rondo_trace *t, uint32_t sig,
				   uint32_t k, uint64_t *lo_ns, uint64_t *hi_ns,
				   uint32_t *ranks);

/* ------------------------------------------------------------------------ */
/* Walking calls in order                                                    */

typedef struct rondo_iter rondo_iter;

/**
 * Creates an iterator over the calls of `rank`, in program order.  It keeps
 * one frame per grammar level, so its memory is proportional to the depth of
 * the grammar, not to the number of calls.  Returns NULL if `rank` is out of
 * range or memory is short.
 */
RONDO_API rondo_iter *rondo_iter_create(const rondo_trace *t, uint32_t rank);

/** As rondo_iter_create(), over the expansion of one rule. */
RONDO_API rondo_iter *rondo_iter_create_rule(const rondo_trace *t,
					     uint32_t rule);

/* Flags of rondo_iter_open. */
#define RONDO_ITER_TIMED                                                       \
	1u /* also each call's start and end (rondo_iter_time) */
#define RONDO_ITER_RULE                                                        \
	2u /* `id` is a rule (rondo_iter_create_rule), not a
			       rank */

/**
 * Creates an iterator as the three functions above do, and says why it
 * could not: over the calls of rank `id` (or of rule `id` with
 * RONDO_ITER_RULE), with their times when RONDO_ITER_TIMED.  Sets *out
 * to the iterator, or to NULL on failure.  Returns 0; RONDO_E_RANGE for
 * an id out of range, unknown flags or TIMED with RULE; RONDO_E_STATE
 * when `t` is not an opened trace; RONDO_E_MISSING when TIMED is asked
 * of a trace without per-call times; RONDO_E_NOMEM.
 */
RONDO_API int rondo_iter_open(const rondo_trace *t, uint32_t id, unsigned flags,
			      rondo_iter **out);

/** Frees an iterator.  Accepts NULL.  Must be called before the trace is
 * freed. */
RONDO_API void rondo_iter_free(rondo_iter *it);

/**
 * Produces the next call's signature id in *sig.  Returns 1 when a call was
 * produced, 0 at the end, or a negative RONDO_E_* code.
 */
RONDO_API int rondo_iter_next(rondo_iter *it, uint32_t *sig);

/**
 * Skips `n` calls without producing them, in time proportional to the
 * grammar depth times the rule lengths on the way, not to n.  Returns 0, or
 * RONDO_E_RANGE if fewer than n calls remain (the iterator is then at the
 * end).
 */
RONDO_API int rondo_iter_skip(rondo_iter *it, uint64_t n);

/** Returns the index of the next call the iterator will produce. */
RONDO_API uint64_t rondo_iter_position(const rondo_iter *it);

/**
 * Makes the iterator run each merged loop (rondo_precision()) it enters
 * from now on a count drawn from the loop's histogram, instead of the
 * count the grammar keeps (the mean).  The k-th loop of a histogram the
 * iterator enters draws the same count for the same seed on every
 * iterator, and histograms of equal counts draw alike: ranks whose loops
 * ran in step in the program (a collective's, a sender's and its
 * receiver's) draw the same counts when given the same seed.  The k draws
 * of a histogram spread over its counts as the program's did, so their
 * total stays near its exact sum.  May be called again to change the seed
 * (the draws made are kept).  Positions then count the calls as drawn,
 * and rondo_iter_skip() walks call by call.  Returns 0 (also when nothing
 * is merged: nothing changes), RONDO_E_STATE for a timed iterator (a
 * trace with per-call times has nothing merged), RONDO_E_NOMEM.
 */
RONDO_API int rondo_iter_draw(rondo_iter *it, uint64_t seed);

/* ------------------------------------------------------------------------ */
/* Per-call timing                                                           */
/*                                                                          */
/* With RONDO_TIMING=percall the tracer keeps every call's duration and    */
/* start, each as a code on a logarithmic scale of base b (1.001 <= b <=   */
/* 16), range-coded per rank (format 1.8 on).  What is read back is never  */
/* early, and late by at most b - 1 of the span it was measured over:       */
/*  - a duration d is coded as d' with d <= d' < b*d + 1 ns               */
/*    (rondo_iter_duration);                                                */
/*  - a start s is coded from a reference r the reader knows: the previous */
/*    call's start as coded plus the lower edge of its duration's code     */
/*    (just below where it ended), the first call's from the origin.  It   */
/*    is coded as s* with s <= s* < s + (b-1)*|s - r| + 1 ns: the error is */
/*    a share of the gap between the two calls, of this call's code alone, */
/*    so errors neither add up over a run nor carry from a long call into */
/*    the calls after it.                                                  */
/* Starts so coded may be out of order; the iterator puts them in order   */
/* without making any early: a call's start reads as the earliest coded  */
/* start of it and the 63 calls after it (or the previous call's start,  */
/* if later), its end as its start plus d' or, if earlier, the next       */
/* call's start (never before its own start).  So starts never decrease,  */
/* no call starts before the previous one ends, no start or end reads     */
/* early, and each reads late by less than the bound                      */
/* rondo_iter_time_bound() gives, at most its own code's error.  A call   */
/* whose start reads late may so read shorter than it lasted: its end     */
/* minus its start is then below d', which rondo_iter_duration() gives.   */
/*    (Traces of format 1.7 and 1.8 measured a start from the end of the  */
/*    previous call as read back, never before it: a call that started    */
/*    before that end read as starting there, late by as much as it, over */
/*    back-to-back calls until a longer gap.  Format 1.6 and older         */
/*    measured a start from the previous start of the same signature:     */
/*    s' < s + (b-1)*|s - r| + 1 ns, r that start, and starts could read  */
/*    out of order.)                                                       */
/* Times are nanoseconds since the job's time origin: rank 0 at the end of  */
/* MPI_Init; other ranks' clocks are aligned to rank 0's at MPI_Finalize    */
/* (meta key "clock_sync" says how).                                         */

/* The bases a trace may have. */
#define RONDO_TIME_BASE_MIN 1.001
#define RONDO_TIME_BASE_MAX 16.0

#define RONDO_TIMING_AGGREGATED 0 /* statistics only (the default) */
#define RONDO_TIMING_PERCALL	1 /* statistics and per-call times */

/** Returns the trace's timing mode; with RONDO_TIMING_PERCALL sets *base
 * (may be NULL) to b, else to 0. */
RONDO_API int rondo_timing_mode(const rondo_trace *t, double *base);

/** Returns how many of `rank`'s calls, from its first, have per-call
 * times: rondo_rank_calls(), or fewer when the rank's timing grammars
 * outgrew the tracer's limit (RONDO_TIMING_LIMIT) and it kept only
 * statistics for the rest of its run.  0 without per-call timing or for a
 * rank out of range. */
RONDO_API uint64_t rondo_rank_timed_calls(const rondo_trace *t, uint32_t rank);

/** Returns the offset in nanoseconds added to `rank`'s clock to put its
 * times on the job's (0 without per-call timing). */
RONDO_API int64_t rondo_rank_clock_offset(const rondo_trace *t, uint32_t rank);

/**
 * As rondo_iter_create(), and the iterator also reconstructs each call's
 * start and end (rondo_iter_time).  Memory: a model per signature the
 * rank calls, from a few hundred bytes to 24 kB as its times vary (traces
 * before format 1.8: the grammars' depth plus 8 bytes per signature).
 * Each call's times are decoded as it comes, about 100 ns; a damaged
 * stream makes rondo_iter_next() return RONDO_E_CORRUPT at the call it
 * reaches.  rondo_iter_skip() on it decodes the times of the
 * calls it skips, so costs time proportional to n.  Returns NULL if `rank`
 * is out of range, memory is short, or the trace has no per-call times.
 */
RONDO_API rondo_iter *rondo_iter_create_timed(const rondo_trace *t,
					      uint32_t rank);

/**
 * The start and end, in nanoseconds since the job's time origin, of the
 * call rondo_iter_next() produced last (either pointer may be NULL).
 * Returns 0, RONDO_E_MISSING for a call without times (past the rank's
 * timed calls), or RONDO_E_STATE when the iterator was not created timed
 * or has produced no call.
 */
RONDO_API int rondo_iter_time(const rondo_iter *it, int64_t *start_ns,
			      int64_t *end_ns);

/**
 * The bounds of the errors of that call's times: its start and its end
 * read back are never early, and late by less than *start_err and
 * *end_err ns (either pointer may be NULL).  The difference of two times
 * read back is off by less than the larger of their bounds.  Returns as
 * rondo_iter_time().
 */
RONDO_API int rondo_iter_time_bound(const rondo_iter *it, int64_t *start_err,
				    int64_t *end_err);

/**
 * That call's duration as coded, never short and long by less than
 * *dur_err ns: d <= *dur_ns < b*d + 1 (either pointer may be NULL).  It
 * may be longer than its end minus its start read back, which are put in
 * order with the calls around it.  Returns as rondo_iter_time().
 */
RONDO_API int rondo_iter_duration(const rondo_iter *it, int64_t *dur_ns,
				  int64_t *dur_err);

#ifdef __cplusplus
}
#endif
#endif /* RONDO_H */
