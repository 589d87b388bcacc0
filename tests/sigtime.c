/*
 * sigtime.c - the recorded durations of one MPI function, for tests:
 * `sigtime FILE FUNCTION` prints "calls=N total_ns=T max_ns=M" over every
 * signature of FUNCTION (through librondo's public API).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rondo.h"

int main(int argc, char **argv)
{
	rondo_trace *t = rondo_trace_create();
	uint64_t calls = 0, total = 0, max = 0;
	rondo_stat st;

	if (argc != 3 || !t || rondo_trace_open(t, argv[1]) < 0) {
		fprintf(stderr, "usage: sigtime FILE FUNCTION%s%s\n",
			t && argc == 3 ? ": " : "",
			t && argc == 3 ? rondo_trace_error(t) : "");
		rondo_trace_free(t);
		return 1;
	}
	for (uint32_t s = 0; s < rondo_sig_count(t); s++) {
		const char *name = rondo_func_name(t, rondo_sig_func(t, s));

		if (!name || strcmp(name, argv[2]) != 0 ||
		    rondo_sig_stat(t, s, &st) < 0)
			continue;
		calls += st.count;
		total += st.total_ns;
		max = st.max_ns > max ? st.max_ns : max;
	}
	printf("calls=%" PRIu64 " total_ns=%" PRIu64 " max_ns=%" PRIu64 "\n",
	       calls, total, max);
	rondo_trace_free(t);
	return 0;
}
