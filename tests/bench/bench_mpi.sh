#!/bin/sh
# bench_mpi.sh [BUILDDIR] - what the tracer costs a running MPI program.
#
# Runs tests/bench/bench_p2p traced and untraced, alternating, BENCH_REPS
# times each (default 5), and prints medians: nanoseconds added per MPI
# call, the wall-time ratio traced/untraced and the trace size, for a tight
# Isend/Irecv/Waitall loop on 1 rank (to itself) and on 2 ranks, and a
# 2-D stencil at 10^4 iterations on 4 ranks (oversubscribed) and on 2
# ranks (one per core), with local grids of 8x8 (MPI dominates), 64x64,
# 128x128 and 256x256 (a rank's share of a real 2-D problem); then
# the peak resident set per rank of the stencil at 10^3 and 10^6
# iterations, untraced and traced: the tracer's part should not grow with
# the number of calls; last what tracking allocations adds to a malloc and
# free pair (tests/bench/bench_alloc, not an MPI program), with 10, 1000
# and 100000 blocks alive.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
# Builds nothing: BUILDDIR (default ../../build from here) must hold the
# tracer and bench_p2p (`make tests/bench/bench_p2p`).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup bench_mpi "${1:-}"
allocs=$build/tests/bench/bench_alloc
reps=${BENCH_REPS:-5}

[ -x "$allocs" ] || die "$allocs not built (make tests/bench/bench_alloc)"
case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
# Untraced means nothing preloaded, and the traced runs trace.
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT
mpi_env
ASAN_EXITCODE= san_env

# run traced|untraced NP ARGS...: one run of bench_p2p; leaves its
# figures in wall calls rss rss0 bytes.
run() {
	kind=$1 np=$2
	shift 2
	rm -f "$tmp/t.rondo"
	first=0
	if [ "$kind" = traced ]; then
		mpirun --oversubscribe -np "$np" -x LD_PRELOAD="$pre" \
			-x RONDO_OUT="$tmp/t.rondo" "$prog" "$@" >"$tmp/out" 2>&1
	else
		mpirun --oversubscribe -np "$np" "$prog" "$@" >"$tmp/out" 2>&1
	fi
	status=$?
	line=$(grep '^bench_p2p ' "$tmp/out")
	if [ $status -ne 0 ] || [ -z "$line" ]; then
		echo "bench_mpi: $kind run failed (status $status): mpirun -np $np $prog $*" >&2
		cat "$tmp/out" >&2
		exit 1
	fi
	# shellcheck disable=SC2086 # split into its key=value words
	set -- $line
	for kv; do
		case $kv in
		wall=*) wall=${kv#wall=} ;;
		calls=*) calls=${kv#calls=} ;;
		rss_kb=*) rss=${kv#rss_kb=} ;;
		rss0_final_kb=*) rss0=${kv#rss0_final_kb=} ;;
		first_us=*) first=${kv#first_us=} ;;
		esac
	done
	bytes=0
	if [ "$kind" = traced ]; then
		[ -s "$tmp/t.rondo" ] || die "traced run wrote no trace: $(cat "$tmp/out")"
		bytes=$(wc -c <"$tmp/t.rondo")
	fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# timing NAME NP ARGS...: reps alternating pairs, the order swapped every
# repetition so that drift hits both sides alike; one table row, and
# figure lines kept for the end.
timing() {
	name=$1 np=$2
	shift 2
	: >"$tmp/u" && : >"$tmp/t" && : >"$tmp/b" && : >"$tmp/fu" && : >"$tmp/ft"
	i=1
	while [ $i -le "$reps" ]; do
		if [ $((i % 2)) -eq 1 ]; then order="untraced traced"; else order="traced untraced"; fi
		for kind in $order; do
			run "$kind" "$np" "$@"
			if [ "$kind" = traced ]; then
				echo "$wall" >>"$tmp/t"
				echo "$bytes" >>"$tmp/b"
				echo "$first" >>"$tmp/ft"
			else
				echo "$wall" >>"$tmp/u"
				echo "$first" >>"$tmp/fu"
			fi
		done
		i=$((i + 1))
	done
	u=$(median <"$tmp/u") t=$(median <"$tmp/t") b=$(median <"$tmp/b")
	fu=$(median <"$tmp/fu") ft=$(median <"$tmp/ft")
	awk -v n="$name" -v np="$np" -v it="$2" -v c="$calls" -v u="$u" -v t="$t" -v b="$b" \
		-v fu="$fu" -v ft="$ft" \
		-v umin="$(sort -g "$tmp/u" | head -1)" -v umax="$(sort -g "$tmp/u" | tail -1)" \
		-v tmin="$(sort -g "$tmp/t" | head -1)" -v tmax="$(sort -g "$tmp/t" | tail -1)" \
		-v fig="$tmp/figures" -v spread="$tmp/spread" '
		BEGIN {
			ns = (t - u) / c * 1e9
			printf "%-15s %5d %8d %10d %9.4f %9.4f %6.3f %8.1f %8d\n", n, np, it, c, u, t, t / u, ns, b
			printf "figure %s-%d added-ns-per-call %.1f\n", n, it, ns >> fig
			printf "figure %s-%d wall-ratio %.3f\n", n, it, t / u >> fig
			printf "figure %s-%d trace-bytes %d\n", n, it, b >> fig
			printf "figure %s-%d added-ns-per-call-fastest %.1f\n", n, it, (tmin - umin) / c * 1e9 >> fig
			printf "figure %s-%d first-iteration-added-us %.1f\n", n, it, ft - fu >> fig
			printf "  %s %d: untraced %.4f..%.4f s, traced %.4f..%.4f s; first iteration %.1f us untraced, %.1f traced\n", n, it, umin, umax, tmin, tmax, fu, ft >> spread
		}'
}

# memory KIND ITERS: one table row and a figure line.
memory() {
	run "$1" 4 stencil "$2"
	printf "%-17s %8d %10d %14d %14d %8d\n" "stencil $1" "$2" "$calls" "$rss" "$rss0" "$bytes"
	echo "figure stencil-$1-$2 peak-rss-kb $rss" >>"$tmp/figures"
}

cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
echo "rondo bench-mpi: $build"
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile" 2>/dev/null)
echo "$(mpirun --version 2>&1 | head -1); $cores cores${cflags:+; CFLAGS $cflags}"
[ -z "$san" ] || echo "note: the tracer is built with sanitizers; these figures do not describe a release build"
[ -z "${RONDO_TRACK_POINTERS:-}" ] || echo "note: RONDO_TRACK_POINTERS=$RONDO_TRACK_POINTERS"
[ "$cores" -ge 4 ] || echo "note: the stencil runs 4 ranks on $cores cores (oversubscribed)"
echo "self: the p2p loop on 1 rank, to itself (no partner: the steadiest figure);"
echo "p2p: 8-byte Irecv+Isend+Waitall on 2 ranks; stencilN: 5-point halo exchange"
echo "(4 Irecv, 4 Isend, Waitall) and Allreduce, NxN local grid, 10 calls per"
echo "iteration, on 4 ranks (2x2 periodic grid); stencilN-np2: on 2 ranks (1x2)"
echo "medians of $reps runs each, traced and untraced alternating; wall = loop time, max over ranks"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
echo "case            ranks    iters  calls/rank untraced-s  traced-s  ratio  ns/call  trace-B"
: >"$tmp/figures"
: >"$tmp/spread"
timing self 1 p2p 1000000
timing p2p 2 p2p 100000
timing p2p 2 p2p 1000000
for n in 8 64 128 256; do
	timing stencil$n 4 stencil 10000 $n
	timing stencil$n-np2 2 stencil 10000 $n
done
echo "spread (fastest..slowest run); *-fastest figures compare the fastest runs,"
echo "which other load on the machine disturbs least:"
cat "$tmp/spread"
echo
echo "case                 iters calls/rank peak-RSS/rank  rank0-final  trace-B   (kB, max over ranks)"
memory untraced 1000
memory untraced 1000000
memory traced 1000
memory traced 1000000

# alloc LIVE: one table row and a figure line: medians of reps runs of
# bench_alloc, untraced and traced alternating.
alloc() {
	: >"$tmp/u" && : >"$tmp/t"
	i=1
	while [ $i -le "$reps" ]; do
		"$allocs" 2000000 "$1" >"$tmp/out" 2>&1 &&
			LD_PRELOAD="$pre" "$allocs" 2000000 "$1" >>"$tmp/out" 2>&1 ||
			die "bench_alloc failed: $(cat "$tmp/out")"
		sed -n 1p "$tmp/out" | sed 's/.*ns_per_pair=//' >>"$tmp/u"
		sed -n 2p "$tmp/out" | sed 's/.*ns_per_pair=//' >>"$tmp/t"
		i=$((i + 1))
	done
	u=$(median <"$tmp/u") t=$(median <"$tmp/t")
	awk -v l="$1" -v u="$u" -v t="$t" -v fig="$tmp/figures" 'BEGIN {
		printf "%12d %12.1f %12.1f %12.1f\n", l, u, t, t - u
		printf "figure alloc-live%d added-ns-per-pair %.1f\n", l, t - u >> fig }'
}
echo
echo "malloc+free pairs (bench_alloc: random sizes, 16 to 1024 bytes), ns per pair"
echo "  live-blocks     untraced       traced        added"
alloc 10
alloc 1000
alloc 100000
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
cat "$tmp/figures"
