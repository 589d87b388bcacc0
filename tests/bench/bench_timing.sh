#!/bin/sh
# bench_timing.sh [BUILDDIR] - what per-call timing costs, in bytes and time.
#
# The bundled 5-point stencil (tests/bench/bench_p2p stencil, the halo
# exchange of tests/mpi/stencil with the loop timed inside the program),
# 10^4 iterations on 2 ranks (one per core) and on 4 (oversubscribed),
# local grid 64x64: untraced, traced with aggregated statistics (the
# default), and traced per call with b = 1.01, 1.1 and 1.5, BENCH_REPS
# runs each (default 3, in turn), medians.  Prints the loop's wall time,
# its ratio to the untraced run, the trace's bytes, the bytes of its
# timing section, and those per call (all ranks' calls).
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup bench_timing "${1:-}"
rondo=$build/tui/rondo
reps=${BENCH_REPS:-3}

[ -x "$rondo" ] || die "$rondo not built (make)"
case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_TIMING RONDO_TIME_BASE
mpi_env
ASAN_EXITCODE= san_env

# run MODE NP: one run (MODE untraced, aggregated or a base); leaves wall,
# bytes (the trace) and tbytes (its timing section).
run() {
	mode=$1 np=$2
	rm -f "$tmp/t.rondo"
	case $mode in
	untraced)
		mpirun --oversubscribe -np "$np" "$prog" stencil 10000 64 >"$tmp/out" 2>&1 ;;
	aggregated)
		mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
			-x RONDO_OUT="$tmp/t.rondo" "$prog" stencil 10000 64 >"$tmp/out" 2>&1 ;;
	*)
		mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$lib" \
			-x RONDO_OUT="$tmp/t.rondo" -x RONDO_TIMING=percall \
			-x RONDO_TIME_BASE="$mode" "$prog" stencil 10000 64 >"$tmp/out" 2>&1 ;;
	esac
	status=$?
	line=$(grep '^bench_p2p ' "$tmp/out")
	[ $status -eq 0 ] && [ -n "$line" ] ||
		die "$mode run failed (status $status): $(cat "$tmp/out")"
	wall=$(echo "$line" | sed 's/.* wall=\([0-9.e+-]*\).*/\1/')
	bytes=0 tbytes=0 calls=0
	if [ "$mode" != untraced ]; then
		[ -s "$tmp/t.rondo" ] || die "$mode: no trace written: $(cat "$tmp/out")"
		bytes=$(wc -c <"$tmp/t.rondo")
		"$rondo" info "$tmp/t.rondo" >"$tmp/info" || die "rondo info failed"
		calls=$(sed -n 's/^calls  *//p' "$tmp/info")
		tbytes=$(awk '$1 == "timing" && NF == 3 { print $2 }' "$tmp/info")
		: "${tbytes:=0}"
	fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "per-call timing on the stencil (bench_p2p stencil 10000 64), medians of $reps runs"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for np in 2 4; do
	echo
	echo "ranks=$np        wall-s   ratio  trace-B  timing-B  timing-B/call    calls"
	modes="untraced aggregated 1.01 1.1 1.5"
	for m in $modes; do : >"$tmp/w.$m"; : >"$tmp/b.$m"; : >"$tmp/t.$m"; done
	i=1
	while [ $i -le "$reps" ]; do
		for m in $modes; do
			run "$m" "$np"
			echo "$wall" >>"$tmp/w.$m"
			echo "$bytes" >>"$tmp/b.$m"
			echo "$tbytes" >>"$tmp/t.$m"
			echo "$calls" >"$tmp/c.$m"
		done
		i=$((i + 1))
	done
	u=$(median <"$tmp/w.untraced")
	for m in $modes; do
		case $m in untraced | aggregated) label=$m ;; *) label="percall b=$m" ;; esac
		awk -v l="$label" -v w="$(median <"$tmp/w.$m")" -v u="$u" \
			-v b="$(median <"$tmp/b.$m")" -v t="$(median <"$tmp/t.$m")" \
			-v c="$(cat "$tmp/c.$m")" -v np="$np" 'BEGIN {
			printf "%-15s %7.4f %7.3f %8d %9d %14s %8d\n", l, w, w / u, b, t,
				(c > 0 ? sprintf("%.3f", t / c) : "-"), c
			if (l != "untraced")
				printf "figure timing-np%d-%s wall-ratio %.3f trace-bytes %d timing-bytes-per-call %.3f\n",
					np, (l == "aggregated" ? "aggregated" : substr(l, 9)), w / u, b,
					(c > 0 ? t / c : 0) > "/dev/stderr"
		}'
	done
done
