#!/bin/sh
# bench_instr.sh [BUILDDIR] - what the tracer costs a call, in instructions.
#
# Counts instructions with callgrind (Debian package valgrind) in the
# 1-rank Irecv/Isend/Waitall loop of tests/bench/bench_p2p, untraced and
# traced, at N and 2N iterations (N = BENCH_ITERS, default 100000): the
# difference divided by the 3N calls it adds leaves out start-up, MPI_Init
# and writing the trace.  On a machine whose speed varies from one minute
# to the next this is the steady measure; bench_mpi.sh gives the time.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup bench_instr "${1:-}"
n=${BENCH_ITERS:-100000}

command -v valgrind >/dev/null 2>&1 || die "no valgrind (apt-get install valgrind)"
case $n in '' | *[!0-9]* | 0) die "BENCH_ITERS must be a positive number" ;; esac

mpi_env
san_env
[ -z "$san" ] || die "the tracer is built with sanitizers, which do not run under valgrind"
tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT

# count traced|untraced ITERS: instructions of the whole run.
count() {
	rm -f "$tmp"/cg.*
	if [ "$1" = traced ]; then
		mpirun -np 1 -x LD_PRELOAD="$lib" -x RONDO_OUT="$tmp/t.rondo" \
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%p" \
			"$prog" p2p "$2"
	else
		mpirun -np 1 valgrind --tool=callgrind \
			--callgrind-out-file="$tmp/cg.%p" "$prog" p2p "$2"
	fi >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; die "$1 run failed"; }
	sed -n 's/^totals: //p' "$tmp"/cg.* | head -1
}

echo "rondo bench-instr: $build"
echo "instructions per MPI call, callgrind, 1-rank Irecv/Isend/Waitall loop, $n and $((2 * n)) iterations"
u1=$(count untraced "$n") u2=$(count untraced $((2 * n)))
t1=$(count traced "$n") t2=$(count traced $((2 * n)))
awk -v u1="$u1" -v u2="$u2" -v t1="$t1" -v t2="$t2" -v n="$n" 'BEGIN {
	u = (u2 - u1) / (3 * n); t = (t2 - t1) / (3 * n)
	printf "untraced %.1f  traced %.1f  added %.1f\n", u, t, t - u
	printf "figure instr-per-call-untraced %.1f\n", u
	printf "figure instr-per-call-traced %.1f\n", t
	printf "figure instr-per-call-added %.1f\n", t - u
}'
