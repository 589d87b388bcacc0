#!/bin/sh
# bench_spill.sh [BUILDDIR] - what keeping a job's record recoverable
# (the spill files of issue 20, tracer/spill.h) costs a running program.
#
# Per call: tests/bench/bench_p2p's tight Irecv/Isend/Waitall loop on 2
# ranks (10^6 iterations) and its 8x8 stencil on 2 ranks (10^4), each
# run untraced, traced with RONDO_SPILL=0 (no stream, no file, no
# watchdog) and traced as by default (spills every 180 s, which these
# runs never reach: what is left is the stream each call is appended to
# and its compression every 65 536 calls), alternating, BENCH_REPS times
# each (default 5).  Prints the medians and the ns per call the spill
# adds: the default run minus the RONDO_SPILL=0 run of the same
# repetition, its median and its spread over the repetitions, beside the
# spread of the RONDO_SPILL=0 runs themselves, so that a reader sees
# whether the difference stands out of the noise.
#
# With valgrind at hand (and a build without sanitizers), the same
# difference in instructions, the steady measure on a noisy machine: the
# 1-rank loop under callgrind at 10^5 and 3*10^5 iterations, traced with
# and without RONDO_SPILL=0, the difference of the two divided by the
# calls it adds (as bench_instr.sh does), counting the program's own
# thread only: Open MPI's threads and the watchdog work by the clock, not
# by the call.
#
# Per spill: runs with RONDO_FLUSH_INTERVAL=1 over a few seconds of calls
# with RONDO_VERBOSE=2, whose last lines say, for each rank, its spills,
# the bytes they wrote, the time spent in them and the calls its file
# holds: a regular input (the stencil, 8x8 and 64x64, whose stream
# compresses to almost nothing and whose calls come at different rates)
# and an irregular one (the p2p loop with random tags, 4 and 64 of them:
# a stream that does not compress away, and as many statistics that move
# each time as there are signatures; with 4 also every 3 s, three times
# the calls a spill).  Prints medians over BENCH_REPS runs of calls per
# spill, bytes and milliseconds per spill (and of them fdatasync's, which
# is the disk's), and both per call, to show that a spill costs in
# proportion to what changed since the last one.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
# Builds nothing: BUILDDIR (default ../../build from here) must hold the
# tracer and bench_p2p (`make tests/bench/bench_p2p`).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_setup bench_spill "${1:-}"
reps=${BENCH_REPS:-5}

case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
# Untraced means nothing preloaded; the settings are this script's.
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_SPILL RONDO_FLUSH_INTERVAL \
	RONDO_SPILL_DIR RONDO_VERBOSE RONDO_TIMING
mpi_env
ASAN_EXITCODE= san_env

# run untraced|nospill|spill ARGS...: one run of bench_p2p on 2 ranks,
# with the extra -x settings in $xs; leaves wall and calls.
run() {
	kind=$1
	shift
	rm -rf "$tmp/t.rondo" "$tmp/t.spill"
	# shellcheck disable=SC2086 # $xs: words to split
	case $kind in
	untraced) set -- mpirun -np 2 "$prog" "$@" ;;
	nospill) set -- mpirun -np 2 -x LD_PRELOAD="$pre" -x RONDO_OUT="$tmp/t.rondo" \
		-x RONDO_SPILL=0 "$prog" "$@" ;;
	spill) set -- mpirun -np 2 -x LD_PRELOAD="$pre" -x RONDO_OUT="$tmp/t.rondo" \
		$xs "$prog" "$@" ;;
	esac
	"$@" >"$tmp/out" 2>"$tmp/err"
	status=$?
	line=$(grep '^bench_p2p ' "$tmp/out")
	if [ $status -ne 0 ] || [ -z "$line" ]; then
		echo "bench_spill: $kind run failed (status $status): $*" >&2
		cat "$tmp/out" "$tmp/err" >&2
		exit 1
	fi
	[ "$kind" = untraced ] || [ -s "$tmp/t.rondo" ] ||
		die "$kind run wrote no trace: $(cat "$tmp/err")"
	[ ! -e "$tmp/t.spill" ] || die "$kind run left $tmp/t.spill"
	wall=$(echo "$line" | sed 's/.* wall=\([^ ]*\).*/\1/')
	calls=$(echo "$line" | sed 's/.* calls=\([^ ]*\).*/\1/')
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
lo() { sort -g "$1" | head -1; }
hi() { sort -g "$1" | tail -1; }

# per_call NAME ARGS...: reps rounds of the three kinds, the order
# reversed every round so that drift hits them alike; one table row, a
# spread line and figure lines.
per_call() {
	name=$1
	shift
	: >"$tmp/u" && : >"$tmp/n" && : >"$tmp/s" && : >"$tmp/d"
	xs=
	i=1
	while [ $i -le "$reps" ]; do
		if [ $((i % 2)) -eq 1 ]; then order="untraced nospill spill"; else order="spill nospill untraced"; fi
		for kind in $order; do
			run $kind "$@"
			case $kind in
			untraced) echo "$wall" >>"$tmp/u" ;;
			nospill) echo "$wall" >>"$tmp/n" && n=$wall ;;
			spill) echo "$wall" >>"$tmp/s" && s=$wall ;;
			esac
		done
		awk -v n="$n" -v s="$s" -v c="$calls" 'BEGIN { printf "%.2f\n", (s - n) / c * 1e9 }' >>"$tmp/d"
		i=$((i + 1))
	done
	awk -v name="$name" -v c="$calls" -v u="$(median <"$tmp/u")" -v n="$(median <"$tmp/n")" \
		-v s="$(median <"$tmp/s")" -v d="$(median <"$tmp/d")" -v dlo="$(lo "$tmp/d")" \
		-v dhi="$(hi "$tmp/d")" -v nlo="$(lo "$tmp/n")" -v nhi="$(hi "$tmp/n")" \
		-v slo="$(lo "$tmp/s")" -v shi="$(hi "$tmp/s")" \
		-v fig="$tmp/figures" -v spread="$tmp/spread" '
		BEGIN {
			printf "%-12s %9d %9.4f %9.4f %9.4f %9.1f %9.1f\n", name, c, u, n, s, (n - u) / c * 1e9, d
			printf "  %s: spill minus RONDO_SPILL=0, run by run: %.1f..%.1f ns/call; the RONDO_SPILL=0 runs alone span %.1f ns/call (%.4f..%.4f s), the default runs %.1f (%.4f..%.4f s)\n", name, dlo, dhi, (nhi - nlo) / c * 1e9, nlo, nhi, (shi - slo) / c * 1e9, slo, shi >> spread
			printf "figure %s spill-added-ns-per-call %.1f\n", name, d >> fig
			printf "figure %s spill-added-ns-per-call-range %.1f..%.1f\n", name, dlo, dhi >> fig
			printf "figure %s tracer-ns-per-call-without-spill %.1f\n", name, (n - u) / c * 1e9 >> fig
		}'
}

# per_spill NAME SECONDS ARGS...: reps runs spilling every SECONDS; each
# rank's statistics line summed over the ranks, medians over the runs.
per_spill() {
	name=$1
	xs="-x RONDO_FLUSH_INTERVAL=$2 -x RONDO_VERBOSE=2"
	shift 2
	: >"$tmp/p"
	i=1
	while [ $i -le "$reps" ]; do
		run spill "$@"
		# rondo: rank R: N spills, B bytes written, T ms in spills
		# (S in fdatasync; largest M ms), C calls in the spill file
		sed -n 's/^rondo: rank [0-9]*: \([0-9]*\) spills, \([0-9]*\) bytes written, \([0-9.]*\) ms in spills (\([0-9.]*\) in fdatasync; largest \([0-9.]*\) ms), \([0-9]*\) calls in the spill file$/\1 \2 \3 \5 \6 \4/p' \
			"$tmp/err" >"$tmp/ranks"
		[ "$(wc -l <"$tmp/ranks")" -eq 2 ] ||
			die "$name: no spill statistics from each rank: $(cat "$tmp/err")"
		awk -v w="$wall" '{ n += $1; b += $2; t += $3; c += $5; y += $6; if ($4 > m) m = $4 }
			END { if (n == 0) exit 1
			      printf "%.0f %.0f %.4f %.4f %.4f %.3f %.1f %.2f\n", c / n, b / n, t / n, y / n, m, b / c, (t - y) / c * 1e6, w }' \
			"$tmp/ranks" >>"$tmp/p" || die "$name: no spill in a run of $wall s"
		i=$((i + 1))
	done
	for k in 1 2 3 4 5 6 7 8; do
		cut -d' ' -f$k "$tmp/p" | median
	done | paste -sd' ' | awk -v name="$name" -v fig="$tmp/figures" '{
		printf "%-11s %10d %9d %8.3f %8.3f %8.3f %8.3f %8.3f %8.1f %6.2f\n", name, $1, $2, $3, $3 - $4, $4, $5, $6, $7, $8
		printf "figure %s calls-per-spill %d\n", name, $1 >> fig
		printf "figure %s bytes-per-spill %d\n", name, $2 >> fig
		printf "figure %s ms-per-spill %.3f\n", name, $3 >> fig
		printf "figure %s ms-per-spill-before-fdatasync %.3f\n", name, $3 - $4 >> fig
		printf "figure %s ns-per-call-before-fdatasync %.1f\n", name, $7 >> fig }'
}

# instr nospill|spill ITERS: instructions of the whole 1-rank run.
instr() {
	rm -f "$tmp"/cg.*
	mpirun -np 1 -x LD_PRELOAD="$lib" -x RONDO_OUT="$tmp/t.rondo" \
		-x RONDO_SPILL="$([ "$1" = spill ] && echo 1 || echo 0)" \
		valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$tmp/cg.%p" "$prog" p2p "$2" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" >&2; die "$1 run under callgrind failed"; }
	sed -n 's/^totals: //p' "$tmp"/cg.*-01 | head -1
}

cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
echo "rondo bench-spill: $build"
cflags=$(sed -n 's/^CFLAGS = //p' "$build/Makefile" 2>/dev/null)
echo "$(mpirun --version 2>&1 | head -1); $cores cores${cflags:+; CFLAGS $cflags}"
[ -z "$san" ] || echo "note: the tracer is built with sanitizers; these figures do not describe a release build"
echo "spill files on $(stat -f -c %T "$tmp") ($tmp)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
echo "Per call: medians of $reps runs of each, alternating; wall = the loop's time,"
echo "max over ranks; tracer = RONDO_SPILL=0 minus untraced, spill = default minus"
echo "RONDO_SPILL=0 in the same round (median of the rounds), both in ns per call"
echo "case             calls untraced-s  nospill-s    spill-s    tracer     spill"
: >"$tmp/figures"
: >"$tmp/spread"
per_call p2p p2p 1000000
per_call stencil8 stencil 10000 8
cat "$tmp/spread"
echo
if ! command -v valgrind >/dev/null 2>&1; then
	echo "Per call in instructions: skipped, no valgrind (apt-get install valgrind)"
elif [ -n "$san" ]; then
	echo "Per call in instructions: skipped, sanitizers do not run under valgrind"
else
	n1=$(instr nospill 100000) n2=$(instr nospill 300000)
	s1=$(instr spill 100000) s2=$(instr spill 300000)
	awk -v n1="$n1" -v n2="$n2" -v s1="$s1" -v s2="$s2" -v fig="$tmp/figures" 'BEGIN {
		n = (n2 - n1) / 6e5; s = (s2 - s1) / 6e5
		printf "Per call in instructions (callgrind, the loop on 1 rank): RONDO_SPILL=0 %.1f, default %.1f, spill %.1f\n", n, s, s - n
		printf "figure p2p-1rank spill-added-instructions-per-call %.1f\n", s - n >> fig }'
fi
echo
echo "Per spill: RONDO_FLUSH_INTERVAL=1 (random4-3s: 3), medians of $reps runs, both"
echo "ranks' spills; random-T: the p2p loop with a tag drawn from T each iteration;"
echo "ms = time in a spill (the mean, of it the write and the fdatasync, and the"
echo "largest), from compressing what is raw to fdatasync's return; per call: the"
echo "spills' bytes, and their time but fdatasync, over the calls they hold"
echo "case       calls/spill  B/spill       ms    write    fsync   ms-max   B/call  ns/call wall-s"
per_spill stencil8 1 stencil 400000 8
per_spill stencil64 1 stencil 100000 64
per_spill random4 1 random 3000000 4
per_spill random4-3s 3 random 6000000 4
per_spill random64 1 random 2000000 64
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo
cat "$tmp/figures"
