/*
 * format.h - the .rondo file format, defined once for writer and reader.
 *
 * The tracer (writer) and librondo (reader) both compile the one codec
 * that implements this header; no encoding or decoding logic exists
 * anywhere else.  FORMAT.md beside this file describes the same thing in
 * prose; keep the two in step.  The codec is one idea per file:
 *
 *   bytes.c        errors, CRC-32C, output buffers, the cursor
 *   container.c    header, section table, loading a section, the writer
 *   sec_calls.c    meta, funcs, consts, typesizes, argument values, cst
 *   sec_grammar.c  grammar, rankmap, timing: the sections that are grammars
 *                  (timing's coded streams too)
 *   sec_stats.c    stats, ranktime: time per signature
 *   sec_comms.c    comms, topology
 *   timecode.c     per-call time codes, 7-significant-bit durations
 *   tstream.c      a rank's per-call time codes as a range-coded stream
 *
 * and format_int.h holds what they share among themselves.  Everything
 * that reads bytes treats them as hostile: every count and length is
 * checked against what is left before anything is allocated or indexed,
 * and every failure says where (section, byte offset) and why.  Nothing
 * prints or exits; the writer and the reader report.
 *
 * Nothing here is exported from librondo or from the preload library: all
 * symbols are fmt_-prefixed and hidden.
 */
#ifndef RONDO_FORMAT_H
#define RONDO_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "rondo.h"
#include "util.h"

/* ---- the container ---------------------------------------------------- */

/* PNG-style: a high byte, the name, CR LF, ^Z, LF (see FORMAT.md). */
#define FMT_MAGIC	 "\x89RND\r\n\x1a\n"
#define FMT_MAGIC_LEN	 8
#define FMT_HEADER_SIZE	 32
#define FMT_ENTRY_SIZE	 40
#define FMT_MAX_SECTIONS 4096

enum fmt_section {
	FMT_SEC_META = 1,
	FMT_SEC_FUNCS = 2,
	FMT_SEC_CONSTS = 3,
	FMT_SEC_CST = 4,
	FMT_SEC_GRAMMAR = 5,
	FMT_SEC_RANKMAP = 6,
	FMT_SEC_STATS = 7,
	FMT_SEC_COMMS = 8,
	FMT_SEC_RANKTIME = 9,
	FMT_SEC_TOPOLOGY = 10,
	FMT_SEC_TYPESIZES = 11,
	FMT_SEC_TIMING = 12,
	FMT_SEC_RANKVALS = 13,
	FMT_SEC_RANKSUM = 14,
	FMT_SEC_SIGSTATS = 15,
	FMT_SEC_GAPSTATS = 16,
	FMT_SEC_GROUPGAPS = 17,
	FMT_SEC_INDEX = 18,
	FMT_SEC_HISTS = 19,
};

/* The index's payload starts with these 4 bytes. */
#define FMT_INDEX_MAGIC "RIDX"

/* What parsing found of a section (struct fmt_entry.state). */
enum fmt_state {
	FMT_SEC_WHOLE = 0, /* every stored byte there, its CRC right */
	FMT_SEC_CUT,	   /* the file ends before the section does */
	FMT_SEC_BAD,	   /* the CRC of its stored bytes is wrong */
};

enum fmt_codec { FMT_CODEC_RAW = 0, FMT_CODEC_ZSTD = 1 };

/* Error detail filled by every decoding function.  `section` is a static
 * name or NULL (container level); `offset` is the byte offset in the file
 * (container level) or in the decompressed section. */
struct fmt_err {
	int code; /* RONDO_E_* */
	const char *section;
	uint64_t offset;
	uint64_t size; /* size of what offset points into, 0 if unknown */
	char msg[200];
};

/* Sets e (may be NULL) and returns code. */
int fmt_fail(struct fmt_err *e, int code, const char *section, uint64_t offset,
	     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Returns the name of a section type, or "unknown". */
const char *fmt_section_name(uint32_t type);

/* One section table entry. */
struct fmt_entry {
	uint32_t type;
	uint32_t codec;
	uint64_t offset; /* from the start of the file */
	uint64_t stored; /* bytes in the file */
	uint64_t raw;	 /* bytes after decompression */
	uint32_t crc;	 /* CRC-32C of the stored bytes */
	uint32_t flags;	 /* reserved, 0 */
	uint32_t state;	 /* enum fmt_state, set by parsing */
};

/* A parsed container over a borrowed byte array. */
struct fmt_container {
	const uint8_t *data;
	uint64_t size;
	uint16_t major, minor;
	uint32_t nsec;
	struct fmt_entry *sec; /* nsec entries, malloc'd */
	uint64_t want;	       /* the size the header announces */
	uint32_t lost;	       /* sections of the header's count not found */
	int from_index;	       /* entries read from the index, not the table */
	int table_bad;	       /* the table's CRC was wrong */
};

/* Checks the header, the section table and every entry's bounds, and each
 * section's CRC into its entry's state.  A file shorter than its header
 * says (want > size), or whose table's checksum is wrong, is read from
 * the index its first section keeps (or, cut inside the table, from the
 * table's whole entries): the sections it holds whole are usable, the
 * others are marked CUT or BAD, and `lost` counts those no entry
 * describes.  Returns 0 or a RONDO_E_* code with *e filled. */
int fmt_container_parse(struct fmt_container *c, const uint8_t *data,
			uint64_t size, struct fmt_err *e);
void fmt_container_free(struct fmt_container *c);

/* Returns the index of the first section of `type`, or -1. */
int fmt_container_find(const struct fmt_container *c, uint32_t type);

/* Decompresses section `idx` into a malloc'd buffer of exactly entry.raw
 * bytes (never allocating more than the data actually yields).  Returns 0 or
 * a RONDO_E_* code. */
int fmt_section_load(const struct fmt_container *c, uint32_t idx, uint8_t **out,
		     size_t *len, struct fmt_err *e);

/* The writer ends a zstd block of the call grammar every this many raw
 * bytes: a grammar cut by the end of the file decodes up to its last
 * whole block. */
#define FMT_GRAMMAR_BLOCK 65536

/* Of section `idx`, cut by the end of the file (state FMT_SEC_CUT), what
 * its bytes there decode to: a prefix of its raw bytes, *len of them
 * (fewer than entry.raw; 0 when nothing whole came through, *out still a
 * buffer).  Returns 0 or a RONDO_E_* code (CORRUPT when the stored bytes
 * there are not the start of a zstd frame; RANGE when the section is not
 * cut). */
int fmt_section_load_cut(const struct fmt_container *c, uint32_t idx,
			 uint8_t **out, size_t *len, struct fmt_err *e);

/* ---- byte buffers and varints ------------------------------------------ */

/* A growable output buffer.  After an allocation failure `oom` is set and
 * further puts do nothing; check it once at the end. */
struct fmt_buf {
	uint8_t *data;
	size_t len, cap;
	int oom;
};

void fmt_buf_free(struct fmt_buf *b);
/* Room for n more bytes, growing the buffer: 0, or -1 when out of memory
 * (b->oom is set, and every later write is dropped). */
int fmt_buf_grow(struct fmt_buf *b, size_t n);
/* Arrays grow with util_grow (util.h).  Decoders grow as elements
 * actually arrive, each costing at least a byte of payload, so memory
 * stays proportional to it. */
void fmt_put_bytes(struct fmt_buf *b, const void *p, size_t n);
void fmt_put_u8(struct fmt_buf *b, uint8_t v);
void fmt_put_le32(struct fmt_buf *b, uint32_t v);
void fmt_put_le64(struct fmt_buf *b, uint64_t v);

/* Varints and argument values are written inline: the tracer encodes
 * every argument of every call with them, in place, with one room check
 * for a tag and its value. */
static inline int fmt_buf_reserve(struct fmt_buf *b, size_t n)
{
	if (!b->oom && n <= b->cap - b->len)
		return 0;
	return fmt_buf_grow(b, n);
}

/* Writes v as a varint at p (room for 10 bytes); returns the end. */
static inline uint8_t *fmt_varint_at(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Zigzag: small magnitudes of either sign get short varints. */
static inline uint64_t fmt_zigzag(int64_t v)
{
	uint64_t u = (uint64_t)v << 1;

	return v < 0 ? ~u : u;
}

/* Writes one varint, or two (`two`: v then w). */
static inline void fmt_put_varints(struct fmt_buf *b, int two, uint64_t v,
				   uint64_t w)
{
	uint8_t *p;

	if (fmt_buf_reserve(b, 20) < 0)
		return;
	p = fmt_varint_at(b->data + b->len, v);
	if (two)
		p = fmt_varint_at(p, w);
	b->len = (size_t)(p - b->data);
}

static inline void fmt_put_uvarint(struct fmt_buf *b, uint64_t v)
{
	fmt_put_varints(b, 0, v, 0);
}

static inline void fmt_put_svarint(struct fmt_buf *b, int64_t v)
{
	fmt_put_varints(b, 0, fmt_zigzag(v), 0);
}
void fmt_put_f64(struct fmt_buf *b, double v);
void fmt_put_str(struct fmt_buf *b, const char *s); /* uvarint length + bytes */

/* A bounds-checked reader over untrusted bytes.  Every get returns 0 on
 * success or a RONDO_E_* code (TRUNCATED, CORRUPT) with *e filled, naming
 * `section` and the offset `pos`. */
struct fmt_cur {
	const uint8_t *p;
	size_t pos, len;
	const char *section;
	struct fmt_err *e;
};

void fmt_cur_init(struct fmt_cur *c, const uint8_t *p, size_t len,
		  const char *section, struct fmt_err *e);
int fmt_get_u8(struct fmt_cur *c, uint8_t *v);
int fmt_get_le32(struct fmt_cur *c, uint32_t *v);
int fmt_get_le64(struct fmt_cur *c, uint64_t *v);
int fmt_get_uvarint(struct fmt_cur *c, uint64_t *v);
int fmt_get_svarint(struct fmt_cur *c, int64_t *v);
int fmt_get_f64(struct fmt_cur *c, double *v);
/* A count that must fit in uint32 and be <= what is left / min_item_size,
 * so a lying count can never cause a huge allocation. */
int fmt_get_count(struct fmt_cur *c, uint32_t *v, size_t min_item_size);
/* A string: *s points into the cursor's bytes (not NUL-terminated). */
int fmt_get_bytes(struct fmt_cur *c, const uint8_t **s, size_t *n);
/* Fails with CORRUPT unless the cursor is at its end. */
int fmt_cur_end(struct fmt_cur *c);

uint32_t fmt_crc32c(uint32_t crc, const void *p, size_t n);

/* ---- writing a file ------------------------------------------------------ */

/* Collects sections in memory and writes the file in one go. */
struct fmt_writer {
	struct fmt_buf body; /* the sections, laid out after the header */
	struct fmt_entry *tab;
	uint32_t n, cap;
	int err;	/* first RONDO_E_* error, sticky */
	uint64_t saved; /* bytes the last fmt_writer_save wrote */
};

void fmt_writer_init(struct fmt_writer *w);
void fmt_writer_free(struct fmt_writer *w);

/* Adds one section with the given raw payload; compresses it with zstd at
 * `level` (stored raw if that is not smaller).  An index is left out: the
 * writer puts its own first.  Returns 0 or RONDO_E_NOMEM. */
int fmt_writer_add(struct fmt_writer *w, uint32_t type, const void *raw,
		   size_t len, int level);

/* The size of payload p of n bytes once compressed as the writer does at
 * `level` (n when that does not make it smaller); 0 when out of memory. */
size_t fmt_packed_size(const void *p, size_t n, int level);

/* Returns the complete file (header, sections, table) in *out. */
int fmt_writer_finish(struct fmt_writer *w, struct fmt_buf *out);

/* Writes the file to `path` by fileio_create's rules (a random temporary
 * name in the target's directory renamed over it, so a reader never sees
 * a partial file and no planted link is written through; a character
 * device written in place; anything else refused).  On failure returns
 * RONDO_E_IO or RONDO_E_NOMEM and puts "cannot write PATH: reason" in
 * why, the path shortened in the middle to fit. */
int fmt_writer_save(struct fmt_writer *w, const char *path, char *why,
		    size_t whylen);

/* ---- section payloads ---------------------------------------------------- */
/* Each payload type has encode (append to a buffer), decode (from untrusted
 * decompressed bytes, all pointers owned by the struct) and free (accepts
 * zeroed or partly filled structs). */

struct fmt_kv {
	char *key;
	char *value;
};

struct fmt_meta {
	uint32_t n;
	struct fmt_kv *kv;
};

void fmt_meta_encode(struct fmt_buf *b, const struct fmt_meta *m);
int fmt_meta_decode(struct fmt_meta *m, const uint8_t *p, size_t n,
		    struct fmt_err *e);
void fmt_meta_free(struct fmt_meta *m);

/* Parameter flags. */
#define FMT_PARAM_OUT 1u /* an output: its value is what the call returned */

struct fmt_func {
	char *name;
	uint32_t nparams;
	char **params;
	uint8_t *flags; /* FMT_PARAM_* per parameter; NULL when writing: none */
};

struct fmt_funcs {
	uint32_t n;
	struct fmt_func *f;
};

void fmt_funcs_encode(struct fmt_buf *b, const struct fmt_funcs *f);
int fmt_funcs_decode(struct fmt_funcs *f, const uint8_t *p, size_t n,
		     struct fmt_err *e);
void fmt_funcs_free(struct fmt_funcs *f);

/* Named constants: a list of strings. */
struct fmt_consts {
	uint32_t n;
	char **name;
};

void fmt_consts_encode(struct fmt_buf *b, const struct fmt_consts *c);
int fmt_consts_decode(struct fmt_consts *c, const uint8_t *p, size_t n,
		      struct fmt_err *e);
void fmt_consts_free(struct fmt_consts *c);

/* One call signature: function id and its encoded argument values (each a
 * tag uvarint (kind << 3 | wire) and a payload, see FORMAT.md). */
struct fmt_sig {
	uint32_t func;
	uint32_t nargs;
	uint32_t len;
	const uint8_t *args; /* points into fmt_cst.blob (decode) or caller's */
};

struct fmt_cst {
	uint32_t n;
	struct fmt_sig *sig;
	uint8_t *blob; /* owns the argument bytes after decode */
};

void fmt_cst_encode(struct fmt_buf *b, const struct fmt_cst *c);
/* Checks func < nfuncs and that every argument value is well formed. */
int fmt_cst_decode(struct fmt_cst *c, const uint8_t *p, size_t n,
		   uint32_t nfuncs, struct fmt_err *e);
void fmt_cst_free(struct fmt_cst *c);

/* Argument values.  Writers append values with these; readers decode one
 * value at a time with fmt_arg_get (bounds-checked, lists checked
 * recursively up to FMT_MAX_ARG_DEPTH). */
#define FMT_MAX_ARG_DEPTH 8

/* RANK_REL, REL and CART_REL values lie in [-FMT_REL_MAX, FMT_REL_MAX]
 * (offsets between ranks below 2^31, a 32-bit integer minus a rank): a
 * reader adds them to ranks without overflow, and refuses others. */
#define FMT_REL_MAX (INT64_C(1) << 32)
static inline uint64_t fmt_arg_tag(uint32_t kind, enum rondo_wire wire)
{
	return (uint64_t)kind << 3 | wire;
}

static inline void fmt_arg_put_none(struct fmt_buf *b, uint32_t kind)
{
	fmt_put_varints(b, 0, fmt_arg_tag(kind, RONDO_WIRE_NONE), 0);
}

static inline void fmt_arg_put_uint(struct fmt_buf *b, uint32_t kind,
				    uint64_t v)
{
	fmt_put_varints(b, 1, fmt_arg_tag(kind, RONDO_WIRE_UINT), v);
}

static inline void fmt_arg_put_sint(struct fmt_buf *b, uint32_t kind, int64_t v)
{
	fmt_put_varints(b, 1, fmt_arg_tag(kind, RONDO_WIRE_SINT),
			fmt_zigzag(v));
}

void fmt_arg_put_bytes(struct fmt_buf *b, uint32_t kind, const void *p,
		       size_t n);

/* A list: the header (tag and element count); the n elements follow as
 * ordinary values. */
static inline void fmt_arg_put_list(struct fmt_buf *b, uint32_t kind,
				    uint64_t n)
{
	fmt_put_varints(b, 1, fmt_arg_tag(kind, RONDO_WIRE_LIST), n);
}
int fmt_arg_get(struct fmt_cur *c, rondo_arg *out);

/* A grammar: rules 0..nrules-1, rule r's body is body[first[r] ..
 * first[r+1]-1]; a rule refers only to rules with smaller ids; terminals
 * are < nterminals. */
struct fmt_grammar {
	uint32_t nrules;
	uint32_t *first; /* nrules + 1 entries */
	rondo_sym *body; /* never NULL, even with no symbol */
};

void fmt_grammar_encode(struct fmt_buf *b, const struct fmt_grammar *g);
/* Checks every symbol (terminal < nterminals, rule id < the referring
 * rule's id, count >= 1) and fills lengths[r] (malloc'd, may be NULL if the
 * caller passes NULL) with the number of terminals rule r expands to,
 * failing with CORRUPT if a length overflows 2^63. */
int fmt_grammar_decode(struct fmt_grammar *g, const uint8_t *p, size_t n,
		       uint32_t nterminals, uint64_t **lengths,
		       struct fmt_err *e);
/* The same for the first n bytes of a grammar of raw bytes in all (a
 * section cut by the end of the file, fmt_section_load_cut): the rules
 * there whole, checked as above, then one more, empty, that stands for
 * the rules lost (g->nrules is one more than the rules read, and
 * lengths[g->nrules - 1] is 0).  *declared is how many rules the whole
 * grammar has.  Fails as fmt_grammar_decode for anything but the end of
 * the bytes. */
int fmt_grammar_decode_cut(struct fmt_grammar *g, const uint8_t *p, size_t n,
			   uint64_t raw, uint32_t nterminals,
			   uint64_t **lengths, uint32_t *declared,
			   struct fmt_err *e);
void fmt_grammar_free(struct fmt_grammar *g);

/* The rank map: a small grammar whose terminals are root rule ids of the
 * main grammar; its last rule expands to one terminal per rank. */
struct fmt_rankmap {
	uint32_t nranks;
	struct fmt_grammar map;
	uint64_t *len; /* after decode: each map rule's expansion length */
};

void fmt_rankmap_encode(struct fmt_buf *b, const struct fmt_rankmap *r);
/* Checks the map's terminals are < nrules and its expansion has exactly
 * nranks symbols. */
int fmt_rankmap_decode(struct fmt_rankmap *r, const uint8_t *p, size_t n,
		       uint32_t nrules, struct fmt_err *e);
void fmt_rankmap_free(struct fmt_rankmap *r);

/* Per-signature statistics. */
struct fmt_stat {
	uint32_t sig;
	rondo_stat s;
};

struct fmt_stats {
	uint32_t n;
	struct fmt_stat *st; /* sorted by sig, each sig at most once */
};

void fmt_stats_encode(struct fmt_buf *b, const struct fmt_stats *s);
/* Checks sig < nsigs, strictly increasing, min <= max, histogram total ==
 * count. */
int fmt_stats_decode(struct fmt_stats *s, const uint8_t *p, size_t n,
		     uint32_t nsigs, struct fmt_err *e);
void fmt_stats_free(struct fmt_stats *s);
/* The same statistics, compact (section sigstats, which a writer keeps
 * instead of stats): the count is the histogram's sum, the histogram runs
 * from the fastest call's bin to the slowest's, and the sum of squares is
 * kept as the standard deviation's time code (within 1/128), so that the
 * decoded sumsq_ns2 is count * (sd^2 + mean^2). */
void fmt_sigstats_encode(struct fmt_buf *b, const struct fmt_stats *s);
/* Checks as fmt_stats_decode, and that the histogram's end bins are not
 * empty. */
int fmt_sigstats_decode(struct fmt_stats *s, const uint8_t *p, size_t n,
			uint32_t nsigs, struct fmt_err *e);

/* The time before calls per rank group (section groupgaps): the group
 * whose ranks' calls are rule root[k] (roots strictly increasing) called
 * the signatures e[at[k] .. at[k + 1]) (increasing) after another call:
 * `calls` of them (>= 1), after `ns` in all, summed over its ranks. */
struct fmt_gapent {
	uint32_t sig;
	uint64_t calls;
	uint64_t ns;
};

struct fmt_groupgaps {
	uint32_t n;
	uint32_t *root;
	uint64_t *at; /* n + 1 entries, at[0] = 0 */
	struct fmt_gapent *e;
};

void fmt_groupgaps_encode(struct fmt_buf *b, const struct fmt_groupgaps *g);
/* Checks every root below nrules and increasing, every signature below
 * nsigs and increasing within its group, every count at least 1. */
int fmt_groupgaps_decode(struct fmt_groupgaps *g, const uint8_t *p, size_t n,
			 uint32_t nrules, uint32_t nsigs, struct fmt_err *e);
void fmt_groupgaps_free(struct fmt_groupgaps *g);

/* Values merged at a precision below 100 % (RONDO_PRECISION, section
 * hists, from 1.12).  The grammar holds each merged loop count as its
 * histogram's mean, rounded; a site names the symbol that does (rule,
 * position in its body) and its histogram.  A histogram counts every time
 * a merged count was seen, on every rank: n of them, summing to sum (kept
 * exact), from min to max, the first rank seen with each; its bins are
 * ranges [lo, hi] of values (lo = hi for a value kept exactly) in
 * increasing order, not overlapping, their counts summing to n. */
#define FMT_HIST_COUNT 0 /* a loop's repeat count */
/* an integer argument's value (a count, a size, a displacement): signatures
 * equal but for it are one, whose argument is a value of kind MERGED naming
 * the histogram (from 1.13); no site names it */
#define FMT_HIST_PARAM 1

struct fmt_hbin {
	uint64_t lo, hi, n;
};

struct fmt_hist {
	uint32_t kind; /* FMT_HIST_COUNT or FMT_HIST_PARAM */
	uint32_t min_rank, max_rank;
	uint32_t nbins;
	uint64_t n, sum, min, max;
	struct fmt_hbin *bin;
};

struct fmt_hsite {
	uint32_t rule, pos, hist;
};

struct fmt_hists {
	uint32_t precision; /* percent, below 100 */
	uint32_t n;
	struct fmt_hist *h;
	uint32_t nsites;
	struct fmt_hsite *site; /* by rule, then position, each once */
};

void fmt_hists_encode(struct fmt_buf *b, const struct fmt_hists *h);
/* Checks each site's rule and position are in g and its histogram below
 * n, the sites in order, each histogram's bins in order within [min, max]
 * and summing to n, and min's and max's ranks below nranks. */
int fmt_hists_decode(struct fmt_hists *h, const uint8_t *p, size_t n,
		     const struct fmt_grammar *g, uint32_t nranks,
		     struct fmt_err *e);
void fmt_hists_free(struct fmt_hists *h);
/* Site (rule, pos)'s histogram, or NULL (a binary search). */
const struct fmt_hist *fmt_hists_find(const struct fmt_hists *h, uint32_t rule,
				      uint32_t pos);
/* The item of signature sig among n items of `size` bytes from base, each
 * starting with a uint32_t signature id, ids increasing (a binary
 * search): its address, or NULL. */
const void *fmt_sig_find(const void *base, size_t n, size_t size, uint32_t sig);

/* Group k's entry for sig (a binary search), or NULL. */
const struct fmt_gapent *fmt_groupgaps_find(const struct fmt_groupgaps *g,
					    uint32_t k, uint32_t sig);

/* Communicators: id k (the value of a COMM argument) has members world[0..
 * n-1], its rank i being world rank world[i]; an intercommunicator lists
 * its first group (first members), then the other. */
struct fmt_comm {
	uint32_t n;
	uint32_t first; /* 0 for an intracommunicator */
	uint32_t *world;
};

struct fmt_comms {
	uint32_t n;
	struct fmt_comm *c;
};

void fmt_comms_encode(struct fmt_buf *b, const struct fmt_comms *c);
/* Checks every world rank is below nranks and first <= n. */
int fmt_comms_decode(struct fmt_comms *c, const uint8_t *p, size_t n,
		     uint32_t nranks, struct fmt_err *e);
void fmt_comms_free(struct fmt_comms *c);

/* Cartesian topologies: communicator `comm` is a grid of ndims
 * dimensions, dims[k] ranks along dimension k (the last one varying
 * fastest in rank order), periodic[k] 1 when it wraps around. */
#define FMT_MAX_DIMS RONDO_MAX_DIMS
struct fmt_topo {
	uint32_t comm;
	uint32_t ndims;
	uint32_t *dims;
	uint8_t *periodic;
};

struct fmt_topos {
	uint32_t n;
	struct fmt_topo *t; /* by increasing comm */
};

void fmt_topos_encode(struct fmt_buf *b, const struct fmt_topos *t);
/* Checks every comm is below comms->n, in increasing order, with 1 to
 * FMT_MAX_DIMS dimensions of at least 1 rank whose product is the
 * communicator's size (when its members are known). */
int fmt_topos_decode(struct fmt_topos *t, const uint8_t *p, size_t n,
		     const struct fmt_comms *comms, struct fmt_err *e);
void fmt_topos_free(struct fmt_topos *t);

/* Sizes of the predefined datatypes the signatures name: constant
 * konst[k] (an id of the consts section) is a datatype of size[k] bytes. */
struct fmt_typesizes {
	uint32_t n;
	uint32_t *konst; /* strictly increasing */
	uint64_t *size;
};

void fmt_typesizes_encode(struct fmt_buf *b, const struct fmt_typesizes *t);
/* Checks every constant is below nconsts, in increasing order. */
int fmt_typesizes_decode(struct fmt_typesizes *t, const uint8_t *p, size_t n,
			 uint32_t nconsts, struct fmt_err *e);
void fmt_typesizes_free(struct fmt_typesizes *t);

/* ---- per-call timing (section timing) ----------------------------------
 * Every call's duration and the interval from a reference time to its
 * start are kept as codes of a logarithmic scale of base b, so a value
 * read back is off by a factor of at most b (see FORMAT.md, "timing").
 * Magnitude j of the scale (j >= 1) is b^(j-1), rounded up (fmt_tmag_up)
 * or down (fmt_tmag_down) to whole nanoseconds; 0 is 0.
 *
 * Duration code: 0 for 0 ns, else the smallest j whose magnitude rounded
 * up is at least the duration: read back d <= d' < b*d + 1 ns.
 * Interval code: 0 for 0; 2j - 1 for a positive interval (j as for a
 * duration), 2j for a negative one of magnitude x, j the largest whose
 * magnitude rounded down is at most x.  So the time read back is never
 * earlier than the true one, and later by less than (b - 1) * |interval|
 * + 1 ns.  The reference of a call's interval is the reconstructed end of
 * the rank's previous call (fmt_tenc below; before 1.7, the reconstructed
 * start of its previous call with the same signature); for the rank's
 * first call, 0: measured from reconstructed times, errors never add
 * up. */
#define FMT_TBASE_MIN RONDO_TIME_BASE_MIN
#define FMT_TBASE_MAX RONDO_TIME_BASE_MAX

/* The scale of one base: mag_up[j], mag_down[j] for j < n (j = 0: 0),
 * up to the first magnitude past 2^62 ns. */
struct fmt_tscale {
	double base, lnb;
	uint32_t n;
	uint64_t *up, *down;
	/* Where to start looking for the code of x >= 1, by x's top bits
	 * (timecode.c, tscale_at): its exponent and the `mbits` bits below
	 * its leading 1 */
	uint32_t mbits;
	uint16_t *at_up, *at_down;
};

/* 0, RONDO_E_RANGE for a base outside [FMT_TBASE_MIN, FMT_TBASE_MAX], or
 * RONDO_E_NOMEM. */
int fmt_tscale_init(struct fmt_tscale *s, double base);
void fmt_tscale_free(struct fmt_tscale *s);
uint32_t fmt_tcode_dur(const struct fmt_tscale *s, uint64_t ns);
uint32_t fmt_tcode_ival(const struct fmt_tscale *s, int64_t ns);
/* The value of a code (out of range: the largest of the scale). */
uint64_t fmt_tvalue_dur(const struct fmt_tscale *s, uint32_t code);
int64_t fmt_tvalue_ival(const struct fmt_tscale *s, uint32_t code);
/* Codes of a scale are below this. */
static inline uint32_t fmt_tcode_limit(const struct fmt_tscale *s)
{
	return 2 * s->n;
}

/* Times on a rank's or the job's clock stay within +-FMT_TIME_MAX ns (73
 * years): a clock offset beyond is refused, and a start or end that the
 * codes would put beyond is held there (values of the scale are at most
 * 2^62, so adding one to a time so held cannot overflow). */
#define FMT_TIME_MAX (INT64_C(1) << 61)

static inline int64_t fmt_time_add(int64_t t, int64_t d)
{
	int64_t v = t + d; /* |t| <= 2^62 and |d| <= 2^62: no overflow */

	return v > FMT_TIME_MAX	   ? FMT_TIME_MAX
	       : v < -FMT_TIME_MAX ? -FMT_TIME_MAX
				   : v;
}

/* One rank's encoder.  From format 1.9 (section timing's flag
 * FMT_TIMING_FROM_LOW) each call's interval counts from the reference
 * r = s' + lo(d), the previous call's start as read back plus the lower
 * edge of its duration's code (fmt_tvalue_dur_low: the true duration is
 * above it), and may be of either sign: a start s reads s' = r + v with
 * s <= s' < s + (b - 1)|s - r| + 1 ns, a bound that depends on this
 * call's code alone, so an error never carries into later calls (the
 * reference is off by that start's error plus a share of its duration,
 * which the next interval's code takes up in part).  Starts s' so read
 * back may decrease; the reader puts them in order (reader/iter.c).  The
 * first call's counts from the origin (MPI_Init starts before it).
 * fmt_tenc_call gives the codes of a call that started at `start` ns and
 * took `dur`.
 *
 * from_end set: the encoding of 1.7 and 1.8, for tests that write such
 * files: an interval counts from the end of the rank's previous call as
 * read back, never negative (a call that started before that end is put
 * at it, late by as much as that end: a lateness that carries over
 * back-to-back calls).  Before 1.7 an interval counted from the previous
 * start of the same signature. */
struct fmt_tenc {
	const struct fmt_tscale *sc;
	int64_t last; /* the next call's reference */
	int started;  /* a call was encoded */
	int from_end; /* the encoding of 1.7 and 1.8 */
};

/* The lower edge of duration code `code`: a duration coded so is above it
 * (or 0, for code 0). */
uint64_t fmt_tvalue_dur_low(const struct fmt_tscale *s, uint32_t code);
void fmt_tenc_call(struct fmt_tenc *e, int64_t start, uint64_t dur,
		   uint32_t *dcode, uint32_t *icode);

/* A rank's per-call time codes as one coded stream (section timing, from
 * 1.8; tstream.c): each call's duration and interval codes, in the rank's
 * order, range-coded with adaptive models kept per signature, so that a
 * signature's usual codes cost a fraction of a bit.  An encoder appends
 * to `out` (fmt_tstream_put, then fmt_tstream_end once); a decoder reads
 * the calls back in the same order, given the same signature for each
 * (any numbering of them, one to one with the encoder's).  The models
 * take memory as signatures and magnitudes come (mem counts it). */
struct fmt_tmodel;
struct fmt_tstream {
	struct fmt_buf *out; /* an encoder's bytes; NULL: a decoder */
	const uint8_t *in;   /* a decoder's */
	size_t len, pos;
	uint64_t low, pending;
	uint32_t range, code;
	uint8_t cache;
	int fixed; /* 1: each model's centre stays its first code (streams of
		      1.8 and 1.9); 0: it follows the model's median */
	struct fmt_tmodel **m; /* by signature, made at its first call */
	uint32_t nm;
	size_t mem; /* bytes the models hold */
	uint64_t calls;
};

void fmt_tstream_encoder(struct fmt_tstream *s, struct fmt_buf *out);
/* Codes a stream can hold: below 2^18 (a scale's are below 2^17). */
#define FMT_TSTREAM_CODES (1u << 18)
/* 0, RONDO_E_RANGE for a code of FMT_TSTREAM_CODES or more, or
 * RONDO_E_NOMEM (the stream is then unusable). */
int fmt_tstream_put(struct fmt_tstream *s, uint32_t sig, uint32_t dcode,
		    uint32_t icode);
/* Ends the stream: its last bytes to out.  0, or RONDO_E_NOMEM. */
int fmt_tstream_end(struct fmt_tstream *s);
/* A whole stream to out at once: n calls' signatures and codes (fixed:
 * as fmt_tstream's field).  As fmt_tstream_put. */
int fmt_tstream_code(struct fmt_buf *out, uint64_t n, const uint32_t *sig,
		     const uint32_t *dcode, const uint32_t *icode, int fixed);
void fmt_tstream_decoder(struct fmt_tstream *s, const uint8_t *p, size_t n);
/* The next call's codes: 0, RONDO_E_CORRUPT when the stream ends before
 * it or is damaged (not every damage shows: codes are checked against the
 * scale by the caller), or RONDO_E_NOMEM. */
int fmt_tstream_get(struct fmt_tstream *s, uint32_t sig, uint32_t *dcode,
		    uint32_t *icode);
/* Frees the models (not the bytes). */
void fmt_tstream_free(struct fmt_tstream *s);

/* One coded stream of a rank's calls: `calls` of them, in `len` bytes at
 * `at` in the section's data. */
struct fmt_tseg {
	uint64_t calls, at, len;
};

/* The section: the base, each rank's clock offset (ns to add to its times
 * to put them on rank 0's clock), and the ranks' codes, one pair per call
 * from the rank's first on, at most the rank's calls: fewer when the rank
 * stopped keeping per-call times (they outgrew the tracer's limit).
 * From 1.8 (coded) each rank's codes are coded streams (fmt_tstream), one
 * or more segments of its calls in order, each coded afresh; up to 1.7,
 * a grammar whose terminals are codes and a map of 2 * nranks rule ids:
 * rank r's durations, then its intervals, equally long. */
struct fmt_timing {
	double base;
	uint32_t nranks;
	int64_t *offset; /* nranks */
	int coded;	 /* the streams below, not the grammar */
	int from_low;	 /* coded, from 1.9: the intervals of fmt_tenc (else
			    those of its from_end) */
	int follow;	 /* from_low, from 1.10: the models' centres follow
			    their medians (fmt_tstream's fixed is 0) */
	uint64_t *first; /* nranks + 1: rank r's segments are first[r] to
			    first[r + 1] - 1 */
	struct fmt_tseg *seg;
	uint8_t *data; /* the segments' bytes */
	size_t datalen;
	struct fmt_grammar g;
	struct fmt_rankmap map; /* map.nranks == 2 * nranks */
	uint64_t *len;		/* after decode: each rule's expansion length */
};

void fmt_timing_encode(struct fmt_buf *b, const struct fmt_timing *t);
/* Checks the flags, the base, nranks against the job's; coded, that the
 * segments' bytes are the section's; else every code below the base's
 * limit and the map (the reader checks that each rank's two sequences
 * are equally long, and no longer than its calls; coded streams are
 * checked as they are read). */
int fmt_timing_decode(struct fmt_timing *t, const uint8_t *p, size_t n,
		      uint32_t nranks, struct fmt_err *e);
void fmt_timing_free(struct fmt_timing *t);

/* Values that differ by rank (section rankvals): an argument of kind VARY
 * names slot k, whose value for rank r stands in the signature for that
 * rank.  A slot is a rank map over items, each a value (wire NONE, UINT or
 * SINT, not itself VARY) or a delta d from the previous rank's value (an
 * integer of the same kind and wire, plus d), so that values in
 * progression over ranks compress like the rank map. */
struct fmt_rval {
	uint64_t u; /* UINT: the value; SINT: int64_t bits */
	uint32_t kind;
	uint32_t wire;
};

struct fmt_vitem {
	int delta;	     /* 1: val.u holds d (int64_t bits) */
	struct fmt_rval val; /* delta 0: the value */
};

struct fmt_vslot {
	uint32_t nitems;
	struct fmt_vitem *item;
	struct fmt_rankmap map; /* terminals: items; map.nranks: the job's */
};

struct fmt_rankvals {
	uint32_t n;
	struct fmt_vslot *slot;
};

void fmt_rankvals_encode(struct fmt_buf *b, const struct fmt_rankvals *v);
/* Checks every item and every slot's map against nranks (the reader
 * expands the maps and checks the deltas with fmt_vitem_apply). */
int fmt_rankvals_decode(struct fmt_rankvals *v, const uint8_t *p, size_t n,
			uint32_t nranks, struct fmt_err *e);
void fmt_rankvals_free(struct fmt_rankvals *v);
/* A per-rank value from an argument value: 0, or -1 when a is not one
 * (a list, bytes, or itself VARY). */
int fmt_rval_of(const rondo_arg *a, struct fmt_rval *out);
/* Writes v as an argument value. */
void fmt_rval_put(struct fmt_buf *b, const struct fmt_rval *v);
/* Rank r's value from item it and rank r - 1's value prev (NULL for rank
 * 0) into *out: 0, or -1 for a delta with no integer before it, or one
 * that overflows or takes a rank offset out of [-FMT_REL_MAX,
 * FMT_REL_MAX]. */
int fmt_vitem_apply(const struct fmt_vitem *it, const struct fmt_rval *prev,
		    struct fmt_rval *out);

/* Per-rank time in each signature.  Rank r called the signatures
 * sig[list[r] ..] (at[r + 1] - at[r] of them, strictly increasing) and spent
 * fmt_time_value(code[k]) ns in the k-th of them, k from at[r].  Ranks that
 * called the same signatures may share one list (the decoder shares them
 * as the file says; a writer may give each rank its own, list == at). */
struct fmt_ranktime {
	uint32_t nranks;
	uint64_t *at;	/* nranks + 1 entries, at[0] = 0 */
	uint64_t *list; /* nranks entries */
	uint32_t *sig;
	uint16_t *code;
};

/* The encoder finds ranks with equal lists itself and writes each list
 * once; on allocation failure it sets b->oom. */
void fmt_ranktime_encode(struct fmt_buf *b, const struct fmt_ranktime *r);
/* Checks there are exactly nranks ranks, every signature < nsigs and
 * increasing within its list, and every code <= FMT_TIME_CODE_MAX. */
int fmt_ranktime_decode(struct fmt_ranktime *r, const uint8_t *p, size_t n,
			uint32_t nranks, uint32_t nsigs, struct fmt_err *e);
void fmt_ranktime_free(struct fmt_ranktime *r);

/* Per-rank time summarized (section ranksum), what a writer keeps instead
 * of ranktime past a number of ranks: each rank's time in MPI, and for
 * each signature the ranks that called it, their times summed, the k
 * slowest and the k fastest of the others exactly (as time codes), and a
 * histogram of all of them over code bins (FMT_RANK_BIN). */
#define FMT_RANKSUM_KMAX 16
/* The bin of a time code: 8 per power of two past 128 ns. */
#define FMT_RANK_BIN(code) ((uint16_t)((code) >> 3))
#define FMT_RANK_BIN_MAX   FMT_RANK_BIN(FMT_TIME_CODE_MAX)

struct fmt_rankext {
	uint32_t rank;
	uint16_t code;
};

struct fmt_rankbin {
	uint16_t bin;
	uint32_t count;
};

struct fmt_sigsum {
	uint32_t sig;
	uint32_t ranks; /* ranks that called it, >= 1 */
	uint64_t sum;	/* their times summed (as read back), ns */
	uint32_t nslow; /* min(k, ranks) */
	uint32_t nfast; /* min(k, ranks - nslow) */
	size_t ext;	/* ext[ext ..]: nslow slowest (time down, then rank
			   up), then nfast fastest (time up, then rank up) */
	uint32_t nbins;
	size_t bin; /* bin[bin ..]: bins increasing, counts summing to ranks */
};

struct fmt_ranksum {
	uint32_t nranks;
	uint32_t k;    /* <= FMT_RANKSUM_KMAX */
	uint16_t *mpi; /* nranks time codes: each rank's MPI time; NULL in a
			  summary made by a reader from ranktime */
	uint32_t n;
	struct fmt_sigsum *s; /* signatures increasing */
	struct fmt_rankext *ext;
	struct fmt_rankbin *bin;
};

/* Summarizes r (its signatures below nsigs) keeping k of each side; mpi
 * (nranks codes, may be NULL) is copied.  0 or RONDO_E_NOMEM. */
int fmt_ranksum_make(struct fmt_ranksum *out, const struct fmt_ranktime *r,
		     uint32_t k, const uint16_t *mpi);
void fmt_ranksum_encode(struct fmt_buf *b, const struct fmt_ranksum *s);
/* Checks nranks, k, every code, rank and signature, the order of the
 * extremes, the bins, and that the sum holds what is listed and at least
 * the fastest listed time for each rank not listed. */
int fmt_ranksum_decode(struct fmt_ranksum *s, const uint8_t *p, size_t n,
		       uint32_t nranks, uint32_t nsigs, struct fmt_err *e);
void fmt_ranksum_free(struct fmt_ranksum *s);
/* The spread of signature sig in s (a binary search), or NULL when no
 * rank called it. */
const struct fmt_sigsum *fmt_ranksum_find(const struct fmt_ranksum *s,
					  uint32_t sig);

/* A duration kept to 7 significant bits: exact below 128 ns, otherwise
 * rounded to the nearest of 64 values per power of two, so the value read
 * back is within ns/128 (0.79%) of ns; totals past 2^64 - 2^56 ns
 * saturate at FMT_TIME_CODE_MAX, still within ns/127. */
#define FMT_TIME_CODE_MAX 3775u
uint16_t fmt_time_code(uint64_t ns);
uint64_t fmt_time_value(uint16_t code);

/* Copies one argument value from `in` to `out`, replacing each UINT value
 * of kind `kind` (in lists too) by map(ctx, value).  Returns 0 or a
 * RONDO_E_* code (the value is checked as fmt_arg_get does). */
int fmt_arg_map(struct fmt_buf *out, struct fmt_cur *in, uint32_t kind,
		uint64_t (*map)(void *ctx, uint64_t v), void *ctx);

/* Histogram bin of a duration in nanoseconds (see rondo_stat): inline,
 * the tracer bins every call. */
static inline unsigned fmt_hist_bin(uint64_t ns)
{
	unsigned k = 0;

	if (ns < 2)
		return 0;
#if defined(__GNUC__)
	k = 63 - (unsigned)__builtin_clzll(ns);
#else
	while (ns >>= 1)
		k++;
#endif
	return k;
}

/* Adds one call of d ns to statistics s: inline, the tracer does it on
 * every call. */
static inline void fmt_stat_record(rondo_stat *s, uint64_t d)
{
	if (s->count == 0 || d < s->min_ns)
		s->min_ns = d;
	if (d > s->max_ns)
		s->max_ns = d;
	s->count++;
	s->total_ns += d;
	s->sumsq_ns2 += (double)d * (double)d;
	s->hist[fmt_hist_bin(d)]++;
}

#endif /* RONDO_FORMAT_H */
