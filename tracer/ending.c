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
 *
 * A handler set later (the program's, after MPI_Init) does not displace
 * ours: the module defines sigaction() and signal(), and for a signal it
 * watches keeps its handler in and the new one as the one to call after
 * it, reporting to the caller what it set as if it were in place.  A
 * signal set to be ignored is ignored for real (our handler goes: the
 * signal no longer ends anything), and one set back to its default gets
 * ours back in front.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
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

static struct sigaction before[NSIG];	 /* what each was before ours */
static volatile sig_atomic_t ours[NSIG]; /* our handler is in for it */
static volatile sig_atomic_t handling;
static pid_t owner;

#define ENDING_EXPORT __attribute__((visibility("default")))

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

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
	struct sigaction saved = before[sig], *b = &saved, dfl;

	if (b->sa_flags & SA_RESETHAND) { /* its handler runs once */
		memset(&before[sig], 0, sizeof(before[sig]));
		before[sig].sa_handler = SIG_DFL;
	}

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
	ours[sig] = 0;
	real_sigaction(sig, &dfl, NULL);
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

static int find_real(void)
{
	if (!real_sigaction)
		real_sigaction =
			(int (*)(int, const struct sigaction *,
				 struct sigaction *))dlsym(RTLD_NEXT,
							   "sigaction");
	return real_sigaction ? 0 : -1;
}

static int is_ignored(const struct sigaction *a)
{
	return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

/* Our handler for sig, with the mask and the flags the handler after it
 * asked for (one set to run once is made to, by chain()). */
static int put_ours(int sig, const struct sigaction *after)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK |
		      (after->sa_flags & SA_NODEFER);
	sa.sa_mask = after->sa_mask;
	if (real_sigaction(sig, &sa, NULL) < 0)
		return -1;
	ours[sig] = 1;
	return 0;
}

void ending_start(void)
{
	if (!spill_hot.on || find_real() < 0)
		return;
	owner = getpid();
	for (size_t i = 0; i < COUNTOF(watched); i++) {
		int sig = watched[i];

		if (real_sigaction(sig, NULL, &before[sig]) == 0 &&
		    !is_ignored(&before[sig]))
			put_ours(sig, &before[sig]);
	}
	if (!rt.sessions)
		on_exit(at_exit, NULL);
}

/* ---- handlers set after ours ------------------------------------------- */

ENDING_EXPORT int sigaction(int sig, const struct sigaction *act,
			    struct sigaction *old)
{
	sigset_t one, was;
	int rc = 0;

	if (find_real() < 0) {
		errno = ENOSYS;
		return -1;
	}
	if (sig <= 0 || sig >= NSIG || !ours[sig] || getpid() != owner)
		return real_sigaction(sig, act, old);
	/* the handler must not run while the one it calls changes */
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_BLOCK, &one, &was);
	if (old)
		*old = before[sig];
	if (act && is_ignored(act)) {
		/* ignored: nothing ends with it any more */
		ours[sig] = 0;
		rc = real_sigaction(sig, act, NULL);
	} else if (act) {
		before[sig] = *act;
		rc = put_ours(sig, act);
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return rc;
}

ENDING_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	struct sigaction sa, old;

	/* glibc's signal(): BSD semantics, restarted calls */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old) < 0)
		return SIG_ERR;
	return (old.sa_flags & SA_SIGINFO)
		       ? (sighandler_t)(void (*)(void))old.sa_sigaction
		       : old.sa_handler;
}

void rt_abort(int errorcode)
{
	if (rt.state != RT_ON || rt.aborting)
		return;
	rt.aborting = 1;
	spill_end(SPILL_END_ABORT, errorcode, 1);
}
