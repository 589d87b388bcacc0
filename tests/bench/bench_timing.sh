#!/bin/sh
# bench_timing.sh [BUILDDIR] - what per-call timing costs, in time and
# bytes, over the aggregated statistics every trace keeps.
#
# Two loops of tests/bench/bench_p2p, each timed inside the program: the
# p2p loop (8-byte Irecv, Isend and Waitall between 2 ranks, 10^5
# iterations: almost nothing but MPI calls; and on 1 rank, to itself,
# 3 x 10^5 iterations: no partner to wait for, so the steadiest measure
# of what a call costs the tracer) and the bundled 5-point
# stencil (the halo exchange of tests/mpi/stencil, 10^4 iterations, local
# grid 64x64) on 2 ranks (one per core) and on 4 (oversubscribed).  Each
# untraced, traced with aggregated statistics (the default), and traced
# per call with b = 1.01, 1.1 and 1.5; BENCH_REPS rounds of each loop
# (default 3; the 2-rank stencil BENCH_STENCIL_REPS, default 25), the
# modes in turn in each round.  A table per loop, a row per mode:
#   wall-s          the loop's wall time (seconds, the slowest rank's)
#   ratio           wall-s over the untraced run's
#   added-ns/call   what per-call timing adds to a call over the
#                   aggregated mode, in ns: the fastest run's time per
#                   iteration in the mode less the fastest run's
#                   aggregated, over the calls one rank makes in an
#                   iteration.  A run's time per iteration is that of
#                   its lower-quartile segment (bench_p2p times the loop
#                   in 40 segments: seg_q1_us, the slowest rank's), so
#                   that neither start-up nor a burst of another
#                   process's work counts; and the fastest run, because
#                   this machine (a VM) runs some whole runs 20-30 %
#                   slower than others, alike in every mode
#   within-ns/call  the same from within runs: with BENCH_HALT=1,
#                   bench_p2p calls MPI_Pcontrol(3) half way through its
#                   loop, which ends per-call times there (statistics
#                   only after), and times each half (half1_us,
#                   half2_us: the medians of its segments 1-19 and
#                   20-39); the figure is the median over
#                   BENCH_HALT_REPS runs (default 15) of the halves'
#                   difference, less the same median for runs traced
#                   with statistics only (the loop's own drift, printed
#                   too), over the calls one rank makes in an iteration.
#                   Both halves of a run share its placement of memory
#                   and processes and the machine's moment, which on
#                   this VM move whole runs by 20-30 %
#   paired-ns/call  the figure as it was measured before (to 9530bed):
#                   the median over the rounds of (wall-s of the mode -
#                   wall-s aggregated in the same round) / the calls one
#                   rank makes in the loop (bench_p2p's calls=)
#   trace-B         the trace's bytes
#   timing-B        those of its timing section
#   timing-B/call   timing-B over all ranks' calls, as rondo info counts
#                   them (MPI_Init to MPI_Finalize)
#   calls           that count
# and the same figures on stderr, one `figure timing-LOOP-npN-MODE ...`
# line per traced mode (added-ns-per-call, within-ns-per-call and
# paired-ns-per-call on the per-call modes').
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup bench_timing "${1:-}"
rondo=$build/tui/rondo
reps=${BENCH_REPS:-3}
# the 2-rank stencil, each rank's added time delaying its partner, needs
# more rounds for its fastest runs to be alike in every mode
sreps=${BENCH_STENCIL_REPS:-25}
hreps=${BENCH_HALT_REPS:-15}

[ -x "$rondo" ] || die "$rondo not built (make)"
case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac
case $sreps in
'' | *[!0-9]* | 0) die "BENCH_STENCIL_REPS must be a positive number" ;;
esac
case $hreps in
'' | *[!0-9]* | 0) die "BENCH_HALT_REPS must be a positive number" ;;
esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_TIMING RONDO_TIME_BASE
mpi_env
ASAN_EXITCODE= san_env
# Ranks bound to cores: Open MPI leaves oversubscribed ranks unbound,
# and an unbound 2-rank run on 2 cores moved its calls' cost by +-150 ns
# from run to run; so --oversubscribe only for more ranks than cores.
unset OMPI_MCA_rmaps_base_oversubscribe
cores=$(nproc 2>/dev/null || echo 1)

modes="untraced aggregated 1.01 1.1 1.5"

# run MODE NP ARGS...: one run of bench_p2p ARGS (MODE untraced,
# aggregated or a base; with BENCH_HALT=1 in the environment, the halves'
# run); leaves wall, seg (the time of an iteration, us, bench_p2p's
# seg_q1_us), half (half1_us - half2_us), cpr (the calls one rank made in
# the loop), its (the loop's iterations), bytes (the trace), tbytes (its
# timing section) and calls (all ranks', as rondo info counts them).
run() {
	mode=$1 np=$2
	shift 2
	over=
	[ "$np" -gt "$cores" ] && over=--oversubscribe
	rm -f "$tmp/t.rondo"
	case $mode in
	untraced)
		mpirun $over -np "$np" -x BENCH_HALT "$prog" "$@" >"$tmp/out" 2>&1 ;;
	aggregated)
		mpirun $over -np "$np" -x LD_PRELOAD="$pre" -x BENCH_HALT \
			-x RONDO_OUT="$tmp/t.rondo" "$prog" "$@" >"$tmp/out" 2>&1 ;;
	*)
		mpirun $over -np "$np" -x LD_PRELOAD="$pre" -x BENCH_HALT \
			-x RONDO_OUT="$tmp/t.rondo" -x RONDO_TIMING=percall \
			-x RONDO_TIME_BASE="$mode" "$prog" "$@" >"$tmp/out" 2>&1 ;;
	esac
	status=$?
	line=$(grep '^bench_p2p ' "$tmp/out")
	[ $status -eq 0 ] && [ -n "$line" ] ||
		die "$mode run failed (status $status): $(cat "$tmp/out")"
	wall=$(echo "$line" | sed 's/.* wall=\([0-9.e+-]*\).*/\1/')
	cpr=$(echo "$line" | sed 's/.* calls=\([0-9]*\).*/\1/')
	its=$(echo "$line" | sed 's/.* iters=\([0-9]*\).*/\1/')
	seg=$(echo "$line" | sed -n 's/.* seg_q1_us=\([0-9.e+-]*\).*/\1/p')
	[ -n "$seg" ] || die "$mode: no seg_q1_us= in bench_p2p's line"
	half=$(echo "$line" |
		sed -n 's/.* half1_us=\([0-9.e+-]*\) half2_us=\([0-9.e+-]*\).*/\1 \2/p' |
		awk '{ print $1 - $2 }')
	[ -n "$half" ] || die "$mode: no half1_us= in bench_p2p's line"
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

# loop NAME NP REPS ARGS...: the table of loop NAME, bench_p2p ARGS on
# NP ranks, REPS rounds.
loop() {
	name=$1 np=$2 n=$3
	shift 3
	for m in $modes; do
		: >"$tmp/w.$m"; : >"$tmp/s.$m"; : >"$tmp/b.$m"; : >"$tmp/t.$m"
	done
	i=1
	while [ $i -le "$n" ]; do
		for m in $modes; do
			run "$m" "$np" "$@"
			echo "$wall" >>"$tmp/w.$m"
			echo "$seg" >>"$tmp/s.$m"
			echo "$bytes" >>"$tmp/b.$m"
			echo "$tbytes" >>"$tmp/t.$m"
			echo "$calls" >"$tmp/c.$m"
			echo "$cpr" >"$tmp/cpr.$m"
			echo "$its" >"$tmp/its.$m"
		done
		i=$((i + 1))
	done
	# the halves' runs, traced only, the modes in turn
	for m in $modes; do : >"$tmp/h.$m"; done
	i=1
	while [ $i -le "$hreps" ]; do
		for m in $modes; do
			[ "$m" = untraced ] && continue
			BENCH_HALT=1 run "$m" "$np" "$@"
			echo "$half" >>"$tmp/h.$m"
		done
		i=$((i + 1))
	done
	cpr=$(cat "$tmp/cpr.untraced")
	its=$(cat "$tmp/its.untraced")
	[ "$cpr" -gt 0 ] 2>/dev/null || die "$name: no calls= in bench_p2p's line"
	[ "$its" -gt 0 ] 2>/dev/null || die "$name: no iters= in bench_p2p's line"
	echo
	ha=$(median <"$tmp/h.aggregated")
	echo "$name: bench_p2p $* on $np ranks, $cpr calls/rank in the loop, $n rounds, $hreps halves' runs"
	echo "(statistics only, its halves differ by $(awk -v h="$ha" -v c="$cpr" -v i="$its" 'BEGIN { printf "%.1f", h / (c / i) * 1e3 }') ns per call: the loop's own drift, taken out of within)"
	echo "mode             wall-s   ratio  added-ns/call  within-ns/call  paired-ns/call  trace-B  timing-B  timing-B/call    calls"
	u=$(median <"$tmp/w.untraced")
	sa=$(sort -g "$tmp/s.aggregated" | head -1)
	for m in $modes; do
		case $m in untraced | aggregated) label=$m ;; *) label="percall b=$m" ;; esac
		awk -v l="$label" -v m="$m" -v name="$name" -v np="$np" \
			-v w="$(median <"$tmp/w.$m")" -v u="$u" -v cpr="$cpr" \
			-v sm="$(sort -g "$tmp/s.$m" | head -1)" -v sa="$sa" \
			-v its="$its" -v ha="$ha" \
			-v h="$([ "$m" = untraced ] || median <"$tmp/h.$m")" \
			-v d="$(paste "$tmp/w.$m" "$tmp/w.aggregated" |
				awk '{ print $1 - $2 }' | median)" \
			-v b="$(median <"$tmp/b.$m")" -v t="$(median <"$tmp/t.$m")" \
			-v c="$(cat "$tmp/c.$m")" 'BEGIN {
			percall = m != "untraced" && m != "aggregated"
			paired = d / cpr * 1e9
			added = (sm - sa) / (cpr / its) * 1e3
			within = (h - ha) / (cpr / its) * 1e3
			printf "%-15s %7.4f %7.3f %14s %15s %15s %8d %9d %14s %8d\n", l, w, w / u,
				(percall ? sprintf("%.1f", added) : "-"),
				(percall ? sprintf("%.1f", within) : "-"),
				(percall ? sprintf("%.1f", paired) : "-"), b, t,
				(c > 0 ? sprintf("%.3f", t / c) : "-"), c
			if (m == "untraced")
				exit
			f = sprintf("figure timing-%s-np%d-%s wall-ratio %.3f trace-bytes %d timing-bytes-per-call %.3f",
				name, np, m, w / u, b, (c > 0 ? t / c : 0))
			if (percall)
				f = f sprintf(" added-ns-per-call %.1f within-ns-per-call %.1f paired-ns-per-call %.1f", added, within, paired)
			print f > "/dev/stderr"
		}'
	done
}

echo "per-call timing against aggregated statistics, each mode in turn"
echo "(added: the fastest runs' difference; within: the halves of runs that end per-call times half way; paired: the median of each round's; wall-s, bytes: medians)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
loop p2p 1 "$reps" p2p 300000
loop p2p 2 "$reps" p2p 100000
loop stencil 2 "$sreps" stencil 10000 64
loop stencil 4 "$reps" stencil 10000 64
