#!/bin/sh
# ranktime.sh - per-rank times on both sides of RONDO_RANKTIME_EXACT, on
# jobs whose ranks' times are known: tests/bench/bench_scale builds every
# rank's tables as the tracer records them (each rank its own pace, some
# much slower), pushes them through the tracer's merge and file writer,
# and writes each rank's exact time in MPI (--truth).
#  - Up to the threshold the file keeps each rank's time in each signature
#    (section ranktime), past it a summary (ranksum); the boundary is
#    exact (16 ranks with the threshold at 16 and at 15), and `rondo info`
#    says which, with its precision, as do the contention and by-rank
#    reports.
#  - Either way each rank's MPI time (`rondo stats --by rank`) is within
#    1/128 of the truth, and the contention report (imbalance, the
#    slowest and the fastest rank and their times, the mean) is the same
#    from the summary as from each rank's times: the summary loses none
#    of it.
#  - At 1 024 ranks the summary is much smaller than each rank's times.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
scale="$top_builddir/tests/bench/bench_scale"
[ -x "$scale" ] || { echo "FAIL: $scale not built"; exit 1; }
cd "$tmp" || exit 1

# what info and the reports say of the per-rank figures, by form
each_text="each rank's time in each signature, within 0.79%"
sum_text="summarized: each rank's MPI time within 0.79%; per signature the ranks' mean, the 4 slowest and 4 fastest ranks within 0.79%, the others as a histogram of 9% bins"

# job NAME PATTERN RANKS EXACT: the job's file NAME.rondo and its truth.
job() {
	RONDO_RANKTIME_EXACT=$4 "$scale" --pattern "$2" --ranks "$3" \
		--iters 20 --truth "$1.truth" -o "$1.rondo" >"$1.out" 2>&1 ||
		fail "bench_scale $2 $3 ranks: $(cat "$1.out")"
}

# kept NAME WANT: the section the file keeps per-rank times in.
kept() {
	"$rondo" info "$1.rondo" >"$1.info" 2>&1 || fail "info $1: $(cat "$1.info")"
	got=$(awk '$1 == "ranktime" || $1 == "ranksum" { print $1 }' "$1.info")
	[ "$got" = "$2" ] || fail "$1: per-rank times in '$got', not $2"
	case $2 in
	ranktime) want="rank times   $each_text" ;;
	ranksum) want="rank times   $sum_text" ;;
	esac
	grep -qxF "$want" "$1.info" || fail "$1: info does not say '$want': $(grep '^rank times' "$1.info")"
}

# mpi_ok NAME: every rank's MPI time within 1/128 of the truth.
mpi_ok() {
	"$rondo" stats --by rank --csv "$1.ranks" "$1.rondo" 2>"$1.err" ||
		fail "stats --by rank $1: $(cat "$1.err")"
	awk 'FNR == NR { truth[$1] = $2; n++; next }
	     FNR > 1 { split($0, f, ","); seen++
		d = f[3] - truth[f[1]]; if (d < 0) d = -d
		if (!(f[1] in truth) || d > truth[f[1]] / 128) {
			print "rank " f[1] ": " f[3] " ns, truly " truth[f[1]]; bad++ } }
	     END { if (seen != n) { print seen " ranks, " n " in the truth"; bad++ }
		exit bad > 0 }' "$1.truth" FS=, "$1.ranks" >"$1.why" ||
		fail "$1: MPI times: $(head -3 "$1.why")"
}

for p in stencil xor; do
	job "$p-each" "$p" 64 64
	job "$p-sum" "$p" 64 16
	kept "$p-each" ranktime
	kept "$p-sum" ranksum
	mpi_ok "$p-each"
	mpi_ok "$p-sum"
	"$rondo" contention --csv "$p-each.csv" "$p-each.rondo" &&
		"$rondo" contention --csv "$p-sum.csv" "$p-sum.rondo" ||
		fail "$p: contention failed"
	[ "$(wc -l <"$p-each.csv")" -gt 3 ] || fail "$p: contention has no rows"
	cmp -s "$p-each.csv" "$p-sum.csv" ||
		fail "$p: contention from the summary differs: $(diff "$p-each.csv" "$p-sum.csv" | head -5)"
	# the text reports say what the per-rank figures are worth
	for f in each sum; do
		[ $f = each ] && want=$each_text || want=$sum_text
		"$rondo" contention "$p-$f.rondo" >"$p-$f.txt" 2>&1 &&
			"$rondo" stats --by rank "$p-$f.rondo" >>"$p-$f.txt" 2>&1 ||
			fail "$p-$f: contention or stats failed"
		[ "$(grep -cxF "per-rank times: $want" "$p-$f.txt")" = 2 ] ||
			fail "$p-$f: the reports do not both say 'per-rank times: $want': $(grep 'per-rank' "$p-$f.txt")"
	done
	# the ranks the pattern makes slow are named, not all alike
	awk -F, 'NR > 1 && $10 > 1.1 { slow++ } END { exit !slow }' "$p-sum.csv" ||
		fail "$p: no signature shows an imbalance: $(head -3 "$p-sum.csv")"
done

# the boundary: 16 ranks are kept whole at 16, summarized at 15
job b16 stencil 16 16
job b15 stencil 16 15
kept b16 ranktime
kept b15 ranksum
mpi_ok b15

# a large job: each rank's times against the summary
job big-each collloop 1024 1024
job big-sum collloop 1024 16
kept big-each ranktime
kept big-sum ranksum
mpi_ok big-sum
each=$(awk '$1 == "ranktime" { print $2 }' big-each.info)
sum=$(awk '$1 == "ranksum" { print $2 }' big-sum.info)
echo "ranktime.sh: 1024 ranks: ranktime $each bytes, ranksum $sum"
[ "$sum" -lt $((each / 2)) ] || fail "1024 ranks: ranksum $sum bytes, ranktime $each"

# a bad threshold is refused
RONDO_RANKTIME_EXACT=0 "$scale" --pattern stencil --ranks 4 -o zero.rondo \
	>zero.out 2>&1 && fail "RONDO_RANKTIME_EXACT=0 accepted"

[ "$fails" -eq 0 ] && echo "ranktime.sh: all passed"
[ "$fails" -eq 0 ]
