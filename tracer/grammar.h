/*
 * grammar.h - online Sequitur with repetition counts.
 *
 * Symbols are appended one at a time (with an optional count); the engine
 * keeps a grammar in which no digram (pair of adjacent symbols, counts
 * included) occurs twice, every rule other than the root is referenced at
 * least twice or once with a count >= 2, and adjacent equal symbols are
 * merged: a^i a^j becomes a^(i+j).  So N identical loop iterations cost O(1)
 * grammar, and nested loops stay constant-size as their counts grow.
 *
 * Appended symbols are opaque 31-bit ids; the engine calls them terminals
 * whatever they mean to the caller, so the same engine re-compresses a
 * sequence of rule ids from another grammar.
 *
 * Memory is proportional to the grammar: nodes and rules are recycled
 * through free lists and the digram index is an open-addressing table, so
 * the steady state allocates nothing per symbol.
 *
 * Loops take a fast path: once the root ends with R^k and the engine has
 * seen an iteration of R leave the rest of the grammar unchanged, further
 * count-1 appends that follow expand(R) only move a cursor, and a whole
 * iteration turns R^k into R^(k+1).  Symbols that follow the cursor are
 * "pending" until then; any other append first replays them through the
 * ordinary path, so the grammar is the one the engine would build without
 * the fast path.  grammar_flush() replays them on demand.
 */
#ifndef RONDO_GRAMMAR_H
#define RONDO_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define GRAMMAR_MAX_TERMINAL 0x7fffffffu

struct grammar;

/* Returns a new empty grammar, or NULL when out of memory. */
struct grammar *grammar_create(void);

/* Frees g; accepts NULL. */
void grammar_free(struct grammar *g);

/*
 * Appends `terminal` repeated `count` times (count >= 1, terminal <=
 * GRAMMAR_MAX_TERMINAL).  Returns 0, RONDO_E_RANGE for a bad argument, or
 * RONDO_E_NOMEM; after NOMEM the grammar is unusable and every later call
 * returns RONDO_E_STATE.
 */
int grammar_append(struct grammar *g, uint32_t terminal, uint64_t count);

/*
 * The terminal the fast path expects next (the loop being followed
 * continues with it), or UINT32_MAX when it follows none.  A guess for
 * the caller to check, so that a call repeating a loop's body is looked
 * up without hashing.
 */
uint32_t grammar_expected(const struct grammar *g);

/* Returns the number of terminals appended so far (counts included). */
uint64_t grammar_length(const struct grammar *g);

/*
 * Gives the pending symbols (see above) to the grammar.  Returns 0,
 * RONDO_E_NOMEM (the grammar is then unusable) or RONDO_E_STATE.
 * grammar_export() and grammar_check() do not need it; the figures below
 * describe the grammar without the pending symbols unless it is called.
 */
int grammar_flush(struct grammar *g);

/*
 * Turns the fast path on (the default) or off, flushing first.  The
 * grammar is the same either way; for tests and benchmarks.
 */
void grammar_set_fast_path(struct grammar *g, int on);

/* Returns the number of live rules, the root included. */
uint32_t grammar_rule_count(const struct grammar *g);

/* Returns the number of symbols in all rule bodies. */
uint64_t grammar_symbol_count(const struct grammar *g);

/* Returns the bytes the engine holds (nodes, rules, digram table). */
size_t grammar_memory(const struct grammar *g);

/* Returns the bytes the engine may hold at most before its next growth
 * is done: grammar_memory() and twice its largest array, which a growth
 * holds beside its copy. */
size_t grammar_memory_peak(const struct grammar *g);

/*
 * Exports the grammar: rules renumbered so that a rule refers only to rules
 * with smaller ids, the root last.  Terminals keep their ids.  `out` is
 * filled with malloc'd arrays; free with fmt_grammar_free().  Pending
 * symbols are included: when there are any, a flushed copy of the grammar
 * is exported, which costs O(grammar) time and memory (grammar_flush()
 * first avoids it).  Returns 0, RONDO_E_NOMEM or RONDO_E_STATE.
 */
int grammar_export(const struct grammar *g, struct fmt_grammar *out);

/*
 * Verifies the engine's invariants: no digram twice, every digram indexed,
 * rule utility, no adjacent equal symbols, reference counts right.  For
 * tests; costs O(grammar), on a flushed copy if symbols are pending.
 * Returns 0, or -1 with a reason in why.
 */
int grammar_check(const struct grammar *g, char *why, size_t whylen);

#endif /* RONDO_GRAMMAR_H */
