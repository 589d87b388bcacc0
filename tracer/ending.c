/*
 * ending.c - the ways a job ends without MPI_Finalize, each leaving the
 * rank's record in its spill file (spill.h): a signal, MPI_Abort, or an
 * exit without MPI_Finalize.
 *
 * Signals.  The tracer's handler goes in front of the handlers already
 * set when MPI_Init returns (the program's, the MPI library's) and calls
 * them after it, so they still run; one that was ignored is left
 * ignored.  When the handler was the default action, it is put back and
 * the signal delivered again, so the process ends as it would have (the
 * same status, a core file where there would be one).  The handler only
 * writes the rest of the record with write(2): it calls no MPI (the other
 * ranks may be gone) and allocates nothing.  If it interrupted a recorder
 * changing the tables, an asynchronous signal is held until the recorder
 * is done (microseconds); a fault inside the tracer itself leaves the
 * record as the last spill had it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"
#include "spill.h"
#include "util.h"

/* The signals a batch system sends before its kill, and the faults. */
static const int watched[] = {SIGTERM, SIGINT,	SIGHUP,	 SIGUSR1,
			      SIGUSR2, SIGXCPU, SIGQUIT, SIGSEGV,
			      SIGBUS,  SIGFPE,	SIGILL,	 SIGABRT};

static struct sigaction before[NSIG]; /* what each was before ours */
static volatile sig_atomic_t handling;
static pid_t owner;

/* A fault of the instruction running (not a signal sent with kill):
 * returning from the handler runs it again. */
static int is_fault(int sig, const siginfo_t *info)
{
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		sig == SIGILL) &&
	       info && info->si_code > 0;
}

/* What would have happened without the tracer. */
static void chain(int sig, siginfo_t *info, void *uc)
{
	const struct sigaction *b = &before[sig];
	struct sigaction dfl;

	if (b->sa_flags & SA_SIGINFO) {
		if (b->sa_sigaction) {
			b->sa_sigaction(sig, info, uc);
			return;
		}
	} else if (b->sa_handler == SIG_IGN) {
		return;
	} else if (b->sa_handler != SIG_DFL) {
		b->sa_handler(sig);
		return;
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* a fault comes again when the instruction runs again; a signal
	 * sent is sent again, delivered when this handler returns */
	if (!is_fault(sig, info))
		raise(sig);
}

static void on_signal(int sig, siginfo_t *info, void *uc)
{
	int saved = errno;

	if (getpid() == owner && !handling && !rt.aborting) {
		handling = 1;
		if (spill_busy && spill_here) {
			if (!is_fault(sig, info)) {
				/* taken when the recorder leaves */
				spill_deferred = sig;
				handling = 0;
				errno = saved;
				return;
			}
		} else {
			/* another thread's recorder: it leaves soon */
			for (int k = 0; spill_busy && k < 20000; k++)
				nanosleep(&(struct timespec){0, 100000}, NULL);
			spill_end(SPILL_END_SIGNAL, sig, 0);
		}
		handling = 0;
	}
	chain(sig, info, uc);
	errno = saved;
}

/* MPI_Finalize never came: exit() or a return from main. */
static void at_exit(int status, void *arg)
{
	(void)arg;
	if (getpid() == owner && rt.state == RT_ON && !rt.aborting)
		spill_end(SPILL_END_EXIT, status, 1);
}

void ending_start(void)
{
	struct sigaction sa;

	if (!spill_hot.on)
		return;
	owner = getpid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < COUNTOF(watched); i++) {
		int sig = watched[i];

		if (sigaction(sig, NULL, &before[sig]) < 0 ||
		    (!(before[sig].sa_flags & SA_SIGINFO) &&
		     before[sig].sa_handler == SIG_IGN))
			continue;
		sigaction(sig, &sa, NULL);
	}
	if (!rt.sessions)
		on_exit(at_exit, NULL);
}

void rt_abort(int errorcode)
{
	if (rt.state != RT_ON || rt.aborting)
		return;
	rt.aborting = 1;
	spill_end(SPILL_END_ABORT, errorcode, 1);
}
