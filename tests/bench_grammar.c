/*
 * bench_grammar.c - how fast the Sequitur engine takes symbols.
 *
 * Usage: bench_grammar [N]   (N symbols per input, default 10^7)
 *
 * Prints nanoseconds per appended symbol, and the size of the resulting
 * grammar, for loop-shaped inputs (the tracer's common case: a short body,
 * a body of 50 distinct calls, nested loops, runs of one call) and a random
 * one (its worst case: the grammar grows with the input).  The inputs are
 * generated before the clock starts, so only the engine is timed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "grammar.h"

#define PERIOD	 5
#define WIDE	 50
#define ALPHABET 16

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* xorshift64*: the same input on every run. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1du;
}

/* Symbol j of one outer iteration of the nested input. */
static uint32_t nested_at(size_t j)
{
	if (j < 30)
		return 200 + j % 3;
	if (j == 30)
		return 203;
	return j < 39 ? 204 + (j - 31) % 2 : 206;
}

static int bench(const char *name, const uint32_t *in, size_t n)
{
	struct grammar *g = grammar_create();
	double t0, t1;
	size_t i;
	int rc = 0;

	if (!g)
		return RONDO_E_NOMEM;
	t0 = now_ns();
	for (i = 0; i < n && !rc; i++)
		rc = grammar_append(g, in[i], 1);
	t1 = now_ns();
	if (!rc)
		printf("%-8s N=%zu  %.1f ns/symbol  rules=%u  symbols=%llu  "
		       "memory=%zu bytes\n",
		       name, n, (t1 - t0) / n, grammar_rule_count(g),
		       (unsigned long long)grammar_symbol_count(g),
		       grammar_memory(g));
	grammar_free(g);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	uint32_t *in = malloc((n ? n : 1) * sizeof(*in));
	uint64_t seed = 1;
	size_t i;
	int rc;

	if (!in || !n) {
		fprintf(stderr, "bench_grammar: %s\n",
			in ? "N must be a positive number" : "out of memory");
		return 1;
	}
	for (i = 0; i < n; i++)
		in[i] = i % PERIOD;
	rc = bench("periodic", in, n);
	/* A loop body of 50 distinct calls. */
	for (i = 0; i < n && !rc; i++)
		in[i] = 100 + i % WIDE;
	if (!rc)
		rc = bench("wide", in, n);
	/* for { for 10 { A B C } D for 4 { E F } G }: 40 symbols per outer
	 * iteration, loops two deep. */
	for (i = 0; i < n && !rc; i++)
		in[i] = nested_at(i % 40);
	if (!rc)
		rc = bench("nested", in, n);
	/* Runs of 8 equal calls: the a^k path. */
	for (i = 0; i < n && !rc; i++)
		in[i] = 300 + i / 8 % 3;
	if (!rc)
		rc = bench("runs", in, n);
	for (i = 0; i < n && !rc; i++)
		in[i] = rng_next(&seed) % ALPHABET;
	if (!rc)
		rc = bench("random", in, n);
	free(in);
	if (rc) {
		/* rondo_strerror() is in librondo, which this does not link. */
		fprintf(stderr, "bench_grammar: the engine failed (error %d)\n",
			rc);
		return 1;
	}
	return 0;
}
