/*
 * fuzz_open.c - libFuzzer target: any bytes given to the reader must give
 * a clean error or a usable trace, never a crash.  Built and run by
 * tests/fuzz.sh (clang), not by make check.
 */
#include <stdint.h>
#include <stdlib.h>

#include "rondo.h"

/* Touches everything an opened trace offers, within a bounded budget. */
static void fuzz_walk(const rondo_trace *t)
{
	char buf[128];
	uint32_t sig;

	for (uint32_t s = 0; s < rondo_sig_count(t); s++) {
		rondo_stat st;

		rondo_sig_format(t, s, buf, sizeof(buf));
		/* as the first and last ranks made it: ranks decoded */
		rondo_sig_format_rank(t, s, 0, buf, sizeof(buf));
		if (rondo_rank_count(t) > 1)
			rondo_sig_format_rank(t, s, rondo_rank_count(t) - 1,
					      buf, sizeof(buf));
		rondo_sig_stat(t, s, &st);
	}
	for (uint32_t g = 0; g < rondo_group_count(t); g++)
		rondo_group_format(t, g, buf, sizeof(buf));
	for (uint32_t r = 0; r < rondo_rank_count(t) && r < 4; r++) {
		rondo_iter *it = rondo_iter_create(t, r);
		int64_t start, end;
		int n = 0;

		while (n++ < 1000 && rondo_iter_next(it, &sig) == 1)
			;
		rondo_iter_skip(it, rondo_rank_calls(t, r) / 2);
		rondo_iter_free(it);
		/* per-call times rebuilt: sums of the file's codes */
		it = rondo_iter_create_timed(t, r);
		for (n = 0; it && n < 1000 && rondo_iter_next(it, &sig) == 1;
		     n++)
			rondo_iter_time(it, &start, &end);
		rondo_iter_free(it);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rondo_trace *t = rondo_trace_create();

	if (t && rondo_trace_open_memory(t, data, size, "fuzz") == 0)
		fuzz_walk(t);
	else if (t && rondo_trace_error(t)[0] == '\0')
		abort(); /* a failure must always say why */
	rondo_trace_free(t);
	return 0;
}
