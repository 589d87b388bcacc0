/*
 * draw.h - a loop count drawn from a merged loop's histogram (a trace
 * written below precision 100), the same wherever it is drawn: librondo's
 * iterators (rondo_iter_draw, for rondo-replay) and a proxy's runtime,
 * which has this file copied in.
 *
 * The k-th draw of a histogram for a seed depends on the seed, the
 * histogram's contents (draw_key: not its ranks, so a sender's loop and
 * its receiver's, merged into histograms of equal counts, draw alike) and
 * k only.  The draws of one histogram are a low-discrepancy sequence:
 * golden-ratio steps (a Weyl sequence) from a start the seed and the key
 * give, so k draws spread over the counts as the program's loops did and
 * their total stays near the histogram's exact sum.
 */
#ifndef RONDO_DRAW_H
#define RONDO_DRAW_H

#include <stdint.h>

/* Bin of a histogram: n loops ran lo to hi times. */
struct draw_bin {
	uint64_t lo, hi, n;
};

static inline uint64_t draw_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The key of a histogram (FORMAT.md, hists): n loops, their sum, min
 * and max, its bins. */
static inline uint64_t draw_key(uint64_t n, uint64_t sum, uint64_t min,
				uint64_t max, const struct draw_bin *b,
				uint32_t nbins)
{
	uint64_t z = draw_mix(0x9e3779b97f4a7c15ull);

	z = draw_mix(z ^ n) ^ draw_mix(sum + z);
	z = draw_mix(z ^ min) ^ draw_mix(max + z);
	for (uint32_t k = 0; k < nbins; k++) {
		z = draw_mix(z ^ b[k].lo) + b[k].hi;
		z = draw_mix(z ^ b[k].n);
	}
	return z;
}

/* Draw number k of the histogram keyed `key` (bins b, n loops in all),
 * for `seed`: a count it holds, or `kept` for an empty histogram. */
static inline uint64_t draw_count(uint64_t seed, uint64_t key, uint64_t k,
				  const struct draw_bin *b, uint32_t nbins,
				  uint64_t n, uint64_t kept)
{
	/* a Weyl sequence: the golden ratio's fraction, times 2^64, added
	 * k times to the start (no libm: proxies link without -lm) */
	uint64_t u = draw_mix(seed ^ key) + k * 0x9e3779b97f4a7c15ull;
	double x = (double)(u >> 11) * 0x1p-53 * (double)n;

	for (uint32_t i = 0; n && i < nbins; i++) {
		uint64_t v;

		if (x >= (double)b[i].n && i + 1 < nbins) {
			x -= (double)b[i].n;
			continue;
		}
		if (!b[i].n)
			return kept;
		v = b[i].lo + (uint64_t)(x / (double)b[i].n *
					 (double)(b[i].hi - b[i].lo + 1));
		v = v > b[i].hi ? b[i].hi : v;
		return v ? v : kept;
	}
	return kept;
}

#endif /* RONDO_DRAW_H */
