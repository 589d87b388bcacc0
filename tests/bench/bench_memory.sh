#!/bin/sh
# bench_memory.sh [BUILDDIR] - the tracer's peak memory against the calls.
#
# Runs tests/mpi/peers on 2 ranks (BENCH_RANKS) for 10^4 to 3*10^6
# iterations (BENCH_CALLS: a list), regular (every probe the same: a loop)
# and irregular (random peers and tags: nothing repeats), untraced and
# traced three ways: with no limit in effect (RONDO_MEMORY_LIMIT=64G),
# with the default limit, and with RONDO_MEMORY_LIMIT=16M.  Prints, per
# run, the peak resident set of the largest rank (VmHWM, read by the
# program before MPI_Finalize), what the tracer added to it, that per call,
# the trace's bytes and what `rondo info` says was degraded.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
# Builds nothing: BUILDDIR (default ../../build from here) must hold the
# tracer, rondo and tests/mpi/peers (`make tests/mpi/peers`).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_memory "${1:-}"
lib=$build/tracer/.libs/librondo-trace.so
peers=$build/tests/mpi/peers
rondo=$build/tui/rondo
np=${BENCH_RANKS:-2}
counts=${BENCH_CALLS:-10000 100000 1000000 3000000}
[ -f "$lib" ] || die "$lib not built (make)"
[ -x "$peers" ] || die "$peers not built (make tests/mpi/peers)"

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_MEMORY_LIMIT
mpi_env
ASAN_EXITCODE= san_env
[ -z "$san" ] ||
	ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"

# run HOW N MODE: one run; sets hwm (kB, the largest rank's), secs, bytes
# and what info says was degraded.
run() {
	how=$1 n=$2 mode=$3
	rm -rf "$tmp"/t.rondo "$tmp"/t.spill
	start=$(date +%s.%N)
	case $how in
	untraced) set -- ;;
	nolimit) set -- -x RONDO_MEMORY_LIMIT=64G ;;
	default) set -- ;;
	*) set -- -x RONDO_MEMORY_LIMIT="$how" ;;
	esac
	if [ "$how" = untraced ]; then
		mpirun --oversubscribe -np "$np" ${san:+-x LD_PRELOAD="$san"} \
			"$peers" "$n" "$mode" >"$tmp/out" 2>&1
	else
		mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$pre" \
			-x RONDO_OUT="$tmp/t.rondo" ${san:+-x ASAN_OPTIONS} "$@" \
			"$peers" "$n" "$mode" >"$tmp/out" 2>&1
	fi || die "$how $n $mode: the run failed: $(tail -5 "$tmp/out")"
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	hwm=$(awk '$1 == "rank" && $NF > m { m = $NF } END { print m + 0 }' "$tmp/out")
	bytes=0 degraded=-
	if [ "$how" != untraced ]; then
		[ -s "$tmp/t.rondo" ] || die "$how $n $mode: no trace: $(tail -5 "$tmp/out")"
		bytes=$(wc -c <"$tmp/t.rondo")
		degraded=$("$rondo" info "$tmp/t.rondo" 2>/dev/null |
			sed -n 's/^  degraded .*: \([0-9]*\) calls kept as counts.*/\1 counted/p')
		[ -n "$degraded" ] || degraded=none
	fi
}

echo "rondo bench-memory: $build"
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile" 2>/dev/null)
echo "$(mpirun --version 2>&1 | head -1); $(nproc) cores${cflags:+; CFLAGS $cflags}"
[ -z "$san" ] || echo "note: the tracer is built with sanitizers (their shadow memory counts); these figures do not describe a release build"
echo "tests/mpi/peers on $np ranks: N iterations of MPI_Iprobe, and MPI_Sendrecv every 64th;"
echo "regular: the same peer and tag every time; irregular: random peers and tags"
echo "peak-kB: VmHWM of the largest rank before MPI_Finalize; tracer-kB: minus the untraced run's"
echo
printf "%-9s %8s %-9s %10s %10s %8s %10s %7s  %s\n" mode calls/rk limit peak-kB tracer-kB B/call trace-B secs degraded
for mode in regular irregular; do
	for n in $counts; do
		run untraced "$n" "$mode"
		base=$hwm
		calls=$((n + n / 64 + 4))
		printf "%-9s %8d %-9s %10d %10s %8s %10s %7s  %s\n" "$mode" "$calls" untraced "$hwm" - - - "$secs" -
		for how in nolimit default 16M; do
			run "$how" "$n" "$mode"
			printf "%-9s %8d %-9s %10d %10d %8.2f %10d %7s  %s\n" "$mode" "$calls" "$how" "$hwm" \
				$((hwm - base)) "$(awk -v d=$((hwm - base)) -v c="$calls" 'BEGIN { print d * 1024 / c }')" \
				"$bytes" "$secs" "$degraded"
			echo "figure $mode-$calls-$how tracer-kB $((hwm - base))" >>"$tmp/figures"
		done
	done
done
echo
cat "$tmp/figures"
