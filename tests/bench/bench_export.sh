#!/bin/sh
# bench_export.sh [BUILDDIR] - what `rondo export` costs: the time to write
# OTF2, Perfetto and Chrome traces of 10^4 to 10^7 calls, the bytes they
# take per call, and the peak memory, which must not grow with the ranks.
#
# Traces come from the tests' writer (tests/mktrace: the demo job, a halo
# exchange and two Allreduce per iteration, about 6.75 calls per rank and
# iteration, 16 ranks), so they have no per-call times: the export lays
# each signature's mean duration end to end, as it does for any trace
# made without RONDO_TIMING=percall.  Each export runs BENCH_REPS times
# (default 3): the median time, and the largest resident set (GNU time's
# %M).  Then the ranks: 16, 256, 4096 and 16384 ranks of 40 iterations
# each (about 270 calls per rank), peak memory per format beside what
# opening the trace takes: the export holds one rank's calls at a time,
# and besides that about 150 bytes per message channel (sender,
# receiver, communicator, tag) for matching messages.
# BENCH_MAX_CALLS (default 10000000) leaves out the larger traces;
# BENCH_CHROME_MAX (default the same) the larger Chrome ones (the browser
# formats fail to load past about a million events anyway).
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_export "${1:-}"
rondo=$build/tui/rondo
mktrace=$build/tests/mktrace
reps=${BENCH_REPS:-3}
max=${BENCH_MAX_CALLS:-10000000}
chrome_max=${BENCH_CHROME_MAX:-$max}
[ -x "$rondo" ] || die "$rondo not built (make)"
[ -x "$mktrace" ] || die "$mktrace not built (make tests/mktrace)"
[ -x /usr/bin/time ] || die "no /usr/bin/time (Debian package time)"
case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac
scratch
formats="perfetto chrome"
"$rondo" export --otf2 "$tmp/probe" /dev/null 2>&1 | grep -q "without OTF2" ||
	formats="otf2 $formats"

# run FORMAT TRACE: median seconds and the largest RSS (kB) of REPS
# exports, "SECONDS KB BYTES" (BYTES the output's).
run() {
	out="$tmp/out.$1"
	: >"$tmp/runs"
	i=0
	while [ "$i" -lt "$reps" ]; do
		rm -rf "$out"
		/usr/bin/time -f "%e %M" -o "$tmp/time" \
			"$rondo" export -q --force "--$1" "$out" "$2" ||
			die "rondo export --$1 $2 failed"
		cat "$tmp/time" >>"$tmp/runs"
		i=$((i + 1))
	done
	bytes=$(du -sb "$out" | awk '{ print $1 }')
	sort -n "$tmp/runs" | awk -v b="$bytes" '{ t[NR] = $1; if ($2 > m) m = $2 }
		END { printf "%s %d %.0f\n", t[int((NR + 1) / 2)], m, b }'
	rm -rf "$out"
}

echo "bench_export: rondo export of the tests' writer's demo job (16 ranks, synthetic times), median of $reps"
printf '%10s %-9s %9s %9s %12s %9s %9s\n' calls format seconds "ns/call" bytes "B/call" "peak MB"
for calls in 10000 100000 1000000 10000000; do
	[ "$calls" -le "$max" ] || continue
	iters=$(( (calls * 100 + 16 * 675 / 2) / (16 * 675) ))
	t="$tmp/demo.rondo"
	"$mktrace" --ranks 16 --iters "$iters" "$t" || die "mktrace failed"
	n=$("$rondo" info "$t" | awk '$1 == "calls" { print $2; exit }')
	for f in $formats; do
		[ "$f" = chrome ] && [ "$calls" -gt "$chrome_max" ] && continue
		set -- $(run "$f" "$t")
		awk -v n="$n" -v f="$f" -v s="$1" -v kb="$2" -v b="$3" 'BEGIN {
			printf "%10d %-9s %9.2f %9.0f %12.0f %9.1f %9.1f\n",
				n, f, s, s * 1e9 / n, b, b / n, kb / 1024 }'
	done
done

echo
echo "peak memory against the ranks (40 iterations per rank); \"read MB\" is"
echo "rondo info's on the same trace: what opening it takes, before any export"
printf '%8s %10s %9s' ranks calls "read MB"
for f in $formats; do printf ' %11s' "$f MB"; done
echo
for ranks in 16 256 4096 16384; do
	t="$tmp/ranks.rondo"
	"$mktrace" --ranks "$ranks" --iters 40 "$t" || die "mktrace failed"
	n=$("$rondo" info "$t" | awk '$1 == "calls" { print $2; exit }')
	/usr/bin/time -f "%M" -o "$tmp/time" "$rondo" info "$t" >/dev/null ||
		die "rondo info failed"
	printf '%8d %10d %9.1f' "$ranks" "$n" "$(awk '{ print $1 / 1024 }' "$tmp/time")"
	for f in $formats; do
		set -- $(run "$f" "$t")
		awk -v kb="$2" 'BEGIN { printf " %11.1f", kb / 1024 }'
	done
	echo
done
