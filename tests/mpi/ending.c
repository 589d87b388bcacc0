/*
 * ending.c - a program that ends badly, in the way argv[1] says, after
 * a ring of argv[2] rounds.  Each rank writes one regular expression
 * per MPI call it made (as basic.c does), unbuffered, to
 * $RONDO_EXPECT.<rank>, so that what it wrote before it died is on disk:
 * tests/ending.sh checks the recovered trace call by call against it.
 *
 *   abort    rank 1 (rank 0 alone) sleeps, then calls MPI_Abort(comm, 3);
 *            the others wait in a receive that never completes
 *   hang     every rank waits in a receive that never completes (a
 *            deadlock: the test kills the job)
 *   segv     rank 1 sleeps, then writes through a null pointer; the
 *            others wait
 *   exit     rank 1 sleeps, then exits with status 4 without
 *            MPI_Finalize; the others call MPI_Finalize
 *   loop     rounds go on with a short sleep in each until killed
 *   done     every rank calls MPI_Finalize after the ring: the job ends
 *            well
 *   handler  a SIGTERM handler of the program's own (installed before
 *            MPI_Init when argv[3] is "before", else after) makes the
 *            ring stop; the program then finalizes and exits with 3.
 *            With argv[3] "dies", the handler, set with signal() after
 *            MPI_Init, says so, sets SIGTERM back to its default and
 *            raises it: the rank ends by the signal
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *expect;
static volatile sig_atomic_t stop;

#define EXPECT(...)                                                            \
	do {                                                                   \
		fprintf(expect, __VA_ARGS__);                                  \
		fputc('\n', expect);                                           \
	} while (0)
#define BUF "m[0-9]+\\+0"

static void open_expect(int rank)
{
	char path[4096];
	const char *base = getenv("RONDO_EXPECT");
	FILE *f;

	snprintf(path, sizeof(path), "%s.%d", base ? base : "expect", rank);
	expect = fopen(path, "w");
	if (!expect) {
		perror(path);
		exit(2);
	}
	setvbuf(expect, NULL, _IONBF, 0);
	/* the test signals ranks by their process ids */
	snprintf(path, sizeof(path), "%s.pid.%d", base ? base : "expect", rank);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%ld\n", (long)getpid());
		fclose(f);
	}
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
	/* async-signal-safe: says the handler ran */
	if (write(2, "ending: the program's handler ran\n", 34) < 0)
		stop = 2;
}

static void on_term_die(int sig)
{
	if (write(2, "ending: the program's handler ran\n", 34) < 0)
		stop = 2;
	signal(sig, SIG_DFL);
	raise(sig);
}

static void own_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	/* without it, a system call inside MPI fails with EINTR, which the
	 * libraries do not all retry: the ring hung, traced or not */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
}

static void round_trip(int rank, int size, double *in, double *out)
{
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Request req[2];

	MPI_Irecv(in, 4, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
	EXPECT("MPI_Irecv\\(count=4, datatype=MPI_DOUBLE, source=%d, tag=5, "
	       "comm=MPI_COMM_WORLD -> buf=" BUF ", request=r0\\)",
	       left);
	MPI_Isend(out, 4, MPI_DOUBLE, right, 5, MPI_COMM_WORLD, &req[1]);
	EXPECT("MPI_Isend\\(buf=" BUF ", count=4, datatype=MPI_DOUBLE, "
	       "dest=%d, tag=5, comm=MPI_COMM_WORLD -> request=r1\\)",
	       right);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	EXPECT("MPI_Waitall\\(count=2 -> array_of_requests=\\[r0, r1\\], "
	       "array_of_statuses=\\[MPI_STATUS_IGNORE\\{\\}, "
	       "MPI_STATUS_IGNORE\\{\\}\\]\\)");
}

/* A receive no one sends to: the rank waits in it until the end. */
static void wait_forever(void)
{
	int x;

	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hang";
	int rounds = argc > 2 ? atoi(argv[2]) : 100, rank, size, odd;
	double *in = malloc(4 * sizeof(double)),
	       *out = malloc(4 * sizeof(double));
	int before = argc > 3 && !strcmp(argv[3], "before");
	sigset_t term;

	if (!strcmp(mode, "handler") && before)
		own_handler();
	/* the signal is taken between MPI calls only, and by this thread:
	 * blocked from before MPI_Init, so that the threads the library
	 * starts inherit the mask.  One that comes inside a library's poll()
	 * makes it fail with EINTR (SA_RESTART does not restart poll), and
	 * one taken by Open MPI's own threads hung the ring now and then,
	 * traced or not: the library's affair, not this test's */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	if (!strcmp(mode, "handler"))
		sigprocmask(SIG_BLOCK, &term, NULL);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	open_expect(rank);
	EXPECT("MPI_Init\\(argc=[0-9]+, argv=NULL\\)");
	EXPECT("MPI_Comm_rank\\(comm=MPI_COMM_WORLD -> rank=%d\\)", rank);
	EXPECT("MPI_Comm_size\\(comm=MPI_COMM_WORLD -> size=%d\\)", size);
	if (!strcmp(mode, "handler") && argc > 3 && !strcmp(argv[3], "dies"))
		signal(SIGTERM, on_term_die);
	else if (!strcmp(mode, "handler") && !before)
		own_handler();
	odd = rank == (size > 1 ? 1 : 0);
	for (int i = 0; i < 4; i++)
		out[i] = rank;
	for (int i = 0; i < rounds || !strcmp(mode, "loop") ||
			(!strcmp(mode, "handler") && !stop);
	     i++) {
		round_trip(rank, size, in, out);
		if (!strcmp(mode, "loop"))
			usleep(20000);
		if (!strcmp(mode, "handler")) {
			sigprocmask(SIG_UNBLOCK, &term, NULL);
			usleep(20000);
			sigprocmask(SIG_BLOCK, &term, NULL);
		}
		if (!strcmp(mode, "handler")) {
			/* every rank stops at the same round */
			int any = 0, mine = stop;

			MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX,
				      MPI_COMM_WORLD);
			EXPECT("MPI_Allreduce\\(sendbuf=m[0-9]+\\+[0-9]+, "
			       "count=1, datatype=MPI_INT, op=MPI_MAX, "
			       "comm=MPI_COMM_WORLD -> "
			       "recvbuf=m[0-9]+\\+[0-9]+\\)");
			if (any)
				break;
		}
	}
	if (!strcmp(mode, "handler")) {
		MPI_Finalize();
		EXPECT("MPI_Finalize\\(\\)");
		return 3;
	}
	if (odd && !strcmp(mode, "abort")) {
		sleep(3);
		EXPECT("MPI_Abort\\(comm=MPI_COMM_WORLD, errorcode=3\\)");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	if (odd && !strcmp(mode, "segv")) {
		sleep(3);
	}
	if (odd && !strcmp(mode, "segv")) {
		int *volatile p = NULL;

		*p = 1;
	}
	if (odd && !strcmp(mode, "exit")) {
		sleep(3);
		exit(4);
	}
	if (!strcmp(mode, "exit") || !strcmp(mode, "done")) {
		EXPECT("MPI_Finalize\\(\\)");
		MPI_Finalize();
		return 0;
	}
	wait_forever();
	return 0;
}
