/*
 * consumer.c - a program built against the installed librondo alone (its
 * header rondo.h and rondo.pc: make installcheck, tests/consumer.sh).
 *
 *   consumer TRACE          the rank groups and rank 0's number of calls
 *   consumer --peers TRACE  every call of every rank that names ranks:
 *                           "RANK CALL name=LOCAL@WORLD ..." for each
 *                           rank-valued argument (a status's or an
 *                           array's ranks each as their own), LOCAL the
 *                           rank as the program passed it (or the
 *                           constant's name), WORLD its world rank ("-"
 *                           for none)
 *
 * tests/consumer.sh compares LOCAL with what `rondo dump --rank` prints
 * and WORLD with the ranks the test trace was written with.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rondo.h>

static int groups(rondo_trace *t)
{
	uint64_t calls = 0;
	uint32_t sig;
	rondo_iter *it;

	for (uint32_t g = 0; g < rondo_group_count(t); g++)
		printf("group %" PRIu32 ": %" PRIu32 " ranks\n", g,
		       rondo_group_size(t, g));
	it = rondo_iter_create(t, 0);
	while (rondo_iter_next(it, &sig) == 1)
		calls++;
	rondo_iter_free(it);
	printf("rank 0: %" PRIu64 " calls\n", calls);
	return calls == 0;
}

/* One resolved rank: its local form, then its world rank. */
static void print_rank(const char *name, int64_t world, int64_t local)
{
	printf(" %s=", name);
	switch (world) {
	case RONDO_PEER_PROC_NULL: printf("MPI_PROC_NULL"); break;
	case RONDO_PEER_ANY: printf("MPI_ANY_SOURCE"); break;
	case RONDO_PEER_ROOT: printf("MPI_ROOT"); break;
	default:
		if (local >= 0)
			printf("%" PRId64, local);
		else
			printf("?");
	}
	if (world >= 0)
		printf("@%" PRId64, world);
	else
		printf("@-");
}

/* The rank-valued arguments of one call of `rank`. */
static void call_ranks(const rondo_trace *t, uint32_t rank, uint64_t i,
		       uint32_t sig)
{
	uint32_t func = rondo_sig_func(t, sig);
	int64_t world[16], local[16], n;
	int printed = 0;
	rondo_arg v;

	for (uint32_t a = 0; a < rondo_sig_arg_count(t, sig); a++) {
		const char *name = rondo_func_param_name(t, func, a);

		n = rondo_sig_arg_ranks(t, sig, rank, a, world, local, 16);
		if (n <= 0 || !name)
			continue;
		if (!printed++)
			printf("%" PRIu32 " %" PRIu64, rank, i);
		/* a status's rank is its source, as rondo dump names it */
		if (rondo_sig_arg(t, sig, a, &v) == 0 &&
		    (v.kind == RONDO_ARG_STATUS || v.kind == RONDO_ARG_ARRAY))
			name = "source";
		for (int64_t k = 0; k < n && k < 16; k++)
			print_rank(name, world[k], local[k]);
	}
	if (printed)
		printf("\n");
}

static int peers(rondo_trace *t)
{
	for (uint32_t r = 0; r < rondo_rank_count(t); r++) {
		rondo_iter *it = rondo_iter_create(t, r);
		uint64_t i = 0;
		uint32_t sig;
		int rc;

		if (!it)
			return 1;
		while ((rc = rondo_iter_next(it, &sig)) == 1)
			call_ranks(t, r, i++, sig);
		rondo_iter_free(it);
		if (rc < 0)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ranks = argc == 3 && !strcmp(argv[1], "--peers");
	rondo_trace *t = rondo_trace_create();
	int rc;

	if ((argc != 2 && !ranks) || rondo_trace_open(t, argv[argc - 1]) < 0) {
		fprintf(stderr, "consumer: %s\n", rondo_trace_error(t));
		rondo_trace_free(t);
		return 1;
	}
	rc = ranks ? peers(t) : groups(t);
	rondo_trace_free(t);
	return rc;
}
