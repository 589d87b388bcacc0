/*
 * sat.h - counts and totals that do not wrap.
 *
 * A trace holds counts up to 2^63 per rank (a loop of 2^31 iterations of
 * a loop of 2^31 calls costs a few bytes), and sizes of 2^60 elements are
 * valid values: sums and products of them pass 2^64.  Here they stop at
 * SAT_MAX instead of wrapping, and whoever prints a value at SAT_MAX says
 * it is a lower bound (tui/cli.c: cli_count, cli_saturated).
 */
#ifndef RONDO_SAT_H
#define RONDO_SAT_H

#include <stdint.h>

#define SAT_MAX UINT64_MAX

static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > SAT_MAX - b ? SAT_MAX : a + b;
}

static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? SAT_MAX : r;
}

#endif /* RONDO_SAT_H */
