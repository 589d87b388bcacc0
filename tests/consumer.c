/*
 * consumer.c - a program built against the installed librondo through
 * pkg-config (make installcheck): the public header stands alone and the
 * library links.  Prints the rank groups of the trace given.
 */
#include <inttypes.h>
#include <stdio.h>

#include <rondo.h>

int main(int argc, char **argv)
{
	rondo_trace *t = rondo_trace_create();
	uint64_t calls = 0;
	uint32_t sig;

	if (argc != 2 || rondo_trace_open(t, argv[1]) < 0) {
		fprintf(stderr, "consumer: %s\n", rondo_trace_error(t));
		rondo_trace_free(t);
		return 1;
	}
	for (uint32_t g = 0; g < rondo_group_count(t); g++)
		printf("group %" PRIu32 ": %" PRIu32 " ranks\n", g,
		       rondo_group_size(t, g));
	rondo_iter *it = rondo_iter_create(t, 0);
	while (rondo_iter_next(it, &sig) == 1)
		calls++;
	rondo_iter_free(it);
	printf("rank 0: %" PRIu64 " calls\n", calls);
	rondo_trace_free(t);
	return calls == 0;
}
