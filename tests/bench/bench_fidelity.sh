#!/bin/sh
# bench_fidelity.sh - how close a replay's time is to the original's:
# tests/bench/fidelity (a stencil with a compute kernel, ranks of uneven
# work, a collective loop) traced at 2 and 4 ranks, then replayed by
# rondo-replay and run by its proxy (rondo proxy, compiled with mpicc), all
# under the tracer, RUNS times each, alternating; the run time each trace
# records (from MPI_Init to MPI_Finalize, meta key duration) and each
# rank's time in MPI.  Prints per case the medians, and the errors
# |T_replay - T_app| / T_app and |T_proxy - T_app| / T_app of each replay
# and proxy against the run whose trace it replays (run just before it),
# their medians over the runs (so that a machine that changes speed
# between runs, as 4 ranks on 2 cores do, compares like with like), then
# the mean and worst of those; the same with per-call timing (RONDO_TIMING=percall:
# the replay spins each call's own gap, the proxy the signatures' means).
#
#   sh tests/bench/bench_fidelity.sh [BUILDDIR]
#   (make bench-fidelity; ITERS, WORK_US, RUNS from the environment)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_fidelity "$@"
rondo=$build/tui/rondo
replay=$build/replay/rondo-replay
prog=$build/tests/bench/fidelity
[ -x "$prog" ] || die "$prog not built (make tests/bench/fidelity)"
[ -x "$replay" ] || die "$replay not built"
command -v mpirun >/dev/null 2>&1 || die "no mpirun"
mpicc=${MPICC:-mpicc}
command -v "$mpicc" >/dev/null 2>&1 || die "no $mpicc (MPICC=...) to build the proxies"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
iters=${ITERS:-1000}
work=${WORK_US:-1000}
runs=${RUNS:-5}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

duration() { "$rondo" info "$1" | sed -n 's/^  duration *//p'; }
# the ranks' MPI times in ms, "r0/r1/..."
mpitimes() {
	"$rondo" stats --by rank "$1" | awk '$1 ~ /^[0-9]+$/ && NF >= 4 {
		v = $3; u = $4; if (u == "s") v *= 1000; else if (u == "us") v /= 1000
		printf "%s%.0f", sep, v; sep = "/" }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# lines "T_app k T_other k": the median of |T_other - T_app| / T_app, in %
paired() {
	awk '{ e = ($3 - $1) / $1; if (e < 0) e = -e; printf "%.4f\n", 100 * e }' |
		median | awk '{ printf "%.1f", $1 }'
}

echo "rondo-replay's and rondo proxy's time fidelity: $iters iterations of $work us of compute, $runs runs each, medians"
echo "(run time from each trace: MPI_Init to MPI_Finalize; errors: each replay and proxy against the run it"
echo "replays, the median over the runs; MPI times per rank, ms, of the median run)"
for timing in aggregated percall; do
	echo
	echo "timing: $timing"
	printf '%-11s %5s %8s %8s %7s %8s %7s   %-16s %-16s %-16s\n' case ranks "app s" \
		"replay s" error "proxy s" error "app MPI ms" "replay" "proxy"
	: >"$tmp/errors"; : >"$tmp/perrors"
	for np in 2 4; do
		# more ranks than cores: each pinned to a core, two to a core
		# (unpinned, the scheduler's placement makes the same program
		# run in two modes, 2.4 s or 2.9 s, from one run to the next)
		over=""
		[ "$np" -gt 2 ] && over="--oversubscribe --bind-to core:overload-allowed"
		for case in stencil uneven collective; do
			: >"$tmp/a"; : >"$tmp/b"; : >"$tmp/c"
			k=0
			while [ $k -lt "$runs" ]; do
				RONDO_TIMING=$timing "$rondo" run -o "$tmp/app$k.rondo" -- \
					mpirun $over -np "$np" -x RONDO_TIMING "$prog" "$case" "$iters" "$work" \
					>"$tmp/out" 2>&1 || die "$case: $(cat "$tmp/out")"
				"$rondo" run -o "$tmp/re$k.rondo" -- mpirun $over -np "$np" \
					"$replay" "$tmp/app$k.rondo" >"$tmp/out" 2>&1 ||
					die "replay of $case: $(cat "$tmp/out")"
				"$rondo" proxy -o "$tmp/px.c" "$tmp/app$k.rondo" 2>"$tmp/out" &&
					"$mpicc" -O2 "$tmp/px.c" -o "$tmp/px" >>"$tmp/out" 2>&1 ||
					die "proxy of $case: $(cat "$tmp/out")"
				"$rondo" run -o "$tmp/px$k.rondo" -- mpirun $over -np "$np" \
					"$tmp/px" >"$tmp/out" 2>&1 ||
					die "proxy of $case: $(cat "$tmp/out")"
				echo "$(duration "$tmp/app$k.rondo") $k" >>"$tmp/a"
				echo "$(duration "$tmp/re$k.rondo") $k" >>"$tmp/b"
				echo "$(duration "$tmp/px$k.rondo") $k" >>"$tmp/c"
				k=$((k + 1))
			done
			ta=$(cut -d' ' -f1 "$tmp/a" | median)
			tb=$(cut -d' ' -f1 "$tmp/b" | median)
			tc=$(cut -d' ' -f1 "$tmp/c" | median)
			ka=$(sort -g "$tmp/a" | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f2)
			kb=$(sort -g "$tmp/b" | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f2)
			kc=$(sort -g "$tmp/c" | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f2)
			err=$(paste -d' ' "$tmp/a" "$tmp/b" | paired)
			perr=$(paste -d' ' "$tmp/a" "$tmp/c" | paired)
			echo "$err" >>"$tmp/errors"
			echo "$perr" >>"$tmp/perrors"
			printf '%-11s %5s %8.3f %8.3f %6s%% %8.3f %6s%%   %-16s %-16s %-16s\n' "$case" "$np" \
				"$ta" "$tb" "$err" "$tc" "$perr" "$(mpitimes "$tmp/app$ka.rondo")" \
				"$(mpitimes "$tmp/re$kb.rondo")" "$(mpitimes "$tmp/px$kc.rondo")"
		done
	done
	awk '{ s += $1; if ($1 > m) m = $1 } END { printf "replay error: mean %.1f%%, worst %.1f%% (target: mean <= 5%%, worst <= 10%%)\n", s / NR, m }' "$tmp/errors"
	awk '{ s += $1; if ($1 > m) m = $1 } END { printf "proxy error:  mean %.1f%%, worst %.1f%%\n", s / NR, m }' "$tmp/perrors"
done

# The replay's memory does not grow with the iterations: each rank's
# largest resident size replaying ITERS and 10 x ITERS of the stencil.
# maxrss CMD...: each of 2 ranks' largest resident size, kB (each rank's
# into a file of its own: through the launcher the lines can interleave)
maxrss() {
	rm -f "$tmp/rss".*
	mpirun -np 2 sh -c 'exec /usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
		"$tmp/rss" "$@" >/dev/null 2>&1 || die "$*: $(cat "$tmp/rss".* 2>/dev/null)"
	cat "$tmp/rss".* | sort -n | tr '\n' ' '
}

echo
echo "replay and proxy memory (largest resident size per rank, kB):"
for n in "$iters" $((iters * 10)); do
	"$rondo" run -o "$tmp/m.rondo" -- mpirun -np 2 "$prog" stencil "$n" 10 >"$tmp/out" 2>&1 ||
		die "stencil $n: $(cat "$tmp/out")"
	rss=$(maxrss "$replay" "$tmp/m.rondo")
	"$rondo" proxy -o "$tmp/m.c" "$tmp/m.rondo" 2>/dev/null &&
		"$mpicc" -O2 "$tmp/m.c" -o "$tmp/m" || die "the proxy of stencil $n"
	prss=$(maxrss "$tmp/m")
	echo "  stencil, $n iterations ($(du -b "$tmp/m.rondo" | cut -f1)-byte trace): replay $rss, proxy $prss"
done
