#!/bin/sh
# precision.sh - loop counts merged at a precision (RONDO_PRECISION,
# rondo run --precision) on a real program: tests/bench/bench_irregular
# converge, whose convergence loop runs 38 to 43 times a time step and
# whose iterations poll 10 or 11 times, on 2 ranks:
#  - at precision 100 nothing is merged and `rondo info` says so;
#  - at 90 both loops are merged, info says so, the file no longer grows
#    with the time steps (100 and 1000 steps within 15 % of each other)
#    and is at least 5 times smaller than the lossless one at 1000 steps;
#    the calls it reads back (each merged loop running its mean: rondo
#    info, rondo dump) are within 10 % of the lossless trace's, and the
#    statistics' calls per function, kept apart, exactly theirs;
#  - counted with the merged loops' exact sums, rondo info's calls and
#    the matrix (messages and bytes per pair) are the lossless trace's;
#    rondo dump --grammar marks the merged loops and prints their counts;
#  - rondo-replay of the trace at 90 (100 steps) draws each merged loop's
#    count from its histogram: with --seed 5 twice the same calls (rondo
#    diff of the two replays' traces), with --seed 6 other ones; without
#    --seed rank 0 says the seed it drew with; the bytes each pair sent
#    within 10 % of the original's; a bad --seed is a usage error; its
#    proxy (rondo proxy) with --seed 5 makes the replay's calls;
#  - at 0 it merges too;
#  - the section damaged: a warning says what is not shown, and info
#    still says loops were merged;
#  - a bad RONDO_PRECISION warns and stays lossless; --precision with a
#    bad value is a usage error (status 2); with per-call timing nothing
#    is merged, and the metadata says why.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
prog="$top_builddir/tests/bench/bench_irregular"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# trace NAME STEPS [RUN OPTIONS]: $tmp/NAME.rondo of converge STEPS.
trace() {
	t_name=$1 t_steps=$2
	shift 2
	irregular "$t_name" converge "$t_steps" "$@"
}

trace l100 100
trace l1000 1000
trace p100 100 --precision 90
trace p1000 1000 --precision 90
trace z1000 1000 --precision 0

"$rondo" info "$tmp/l1000.rondo" >"$tmp/l.info" || fail "info of the lossless trace"
grep -q "^precision    100%: every call as the program made it" "$tmp/l.info" ||
	fail "lossless info: $(grep precision "$tmp/l.info")"
"$rondo" info "$tmp/p1000.rondo" >"$tmp/p.info" || fail "info at 90"
grep -q "^precision    90%: 2 loops whose counts differ by up to 10% merged" "$tmp/p.info" ||
	fail "info at 90: $(grep precision "$tmp/p.info")"
grep -q "^  merged       loop counts: 2 histograms" "$tmp/p.info" ||
	fail "metadata at 90: $(grep merged "$tmp/p.info")"

# no growth with the steps; far below the lossless bytes
a=$(trace_bytes p100) b=$(trace_bytes p1000) l=$(trace_bytes l1000)
[ $((b * 100)) -le $((a * 115)) ] ||
	fail "precision 90 grows with the steps: $a bytes at 100, $b at 1000"
[ $((b * 5)) -le "$l" ] ||
	fail "precision 90: $b bytes against $l lossless at 1000 steps"
[ $(trace_bytes z1000) -le "$l" ] || fail "precision 0: $(trace_bytes z1000) bytes, $l lossless"
"$rondo" info "$tmp/z1000.rondo" | grep -q "^precision    0%: [0-9]* loops* whose" ||
	fail "info at 0: $("$rondo" info "$tmp/z1000.rondo" | grep precision)"

# calls within the precision: in all, and MPI_Iprobe's in the calls read
# back; the statistics' calls per function exactly the lossless trace's
cl=$(trace_calls l1000) cp=$(trace_calls p1000)
within() { awk -v l="$1" -v p="$2" 'BEGIN { d = p - l; if (d < 0) d = -d; exit !(l > 0 && d <= 0.1 * l) }'; }
within "$cl" "$cp" || fail "calls at 90: $cp, lossless $cl"
[ "$cp" = "$cl" ] && grep -q "^calls .*(merged loops at their exact sums; [0-9]* as the grammar expands them" "$tmp/p.info" ||
	fail "calls at 90 from the exact sums: $(grep '^calls' "$tmp/p.info"), lossless $cl"
"$rondo" matrix --bytes --csv - "$tmp/l1000.rondo" >"$tmp/l.mx" &&
	"$rondo" matrix --bytes --csv - "$tmp/p1000.rondo" >"$tmp/p.mx" ||
	fail "rondo matrix"
cmp -s "$tmp/l.mx" "$tmp/p.mx" ||
	fail "the matrix at 90 is not the lossless one: $(cat "$tmp/p.mx"), lossless $(cat "$tmp/l.mx")"
"$rondo" dump --grammar "$tmp/p1000.rondo" >"$tmp/p.g" || fail "rondo dump --grammar"
grep -q "^merged loops (precision 90%" "$tmp/p.g" &&
	grep -Eq "^  R[0-9]+ +item [0-9]+: [0-9]+ loops of 3[0-9]-4[0-9] repeats, mean 4[01]\.[0-9]+ \(kept 4[01]\), .*: 3[0-9] x[0-9]+, " "$tmp/p.g" &&
	grep -Eq "^  R[0-9]+ .*-> .*R[0-9]+\^4[01]~" "$tmp/p.g" ||
	fail "rondo dump --grammar at 90: $(sed -n '/^rules/,$p' "$tmp/p.g" | head -20)"
"$rondo" dump "$tmp/p1000.rondo" >"$tmp/p.dump" 2>&1 &&
	"$rondo" dump "$tmp/l1000.rondo" >"$tmp/l.dump" 2>&1 ||
	fail "rondo dump: $(tail -2 "$tmp/p.dump")"
np=$(grep -c "MPI_Iprobe" "$tmp/p.dump") nl=$(grep -c "MPI_Iprobe" "$tmp/l.dump")
within "$nl" "$np" || fail "MPI_Iprobe in rondo dump at 90: $np, lossless $nl"
"$rondo" stats --csv - "$tmp/l1000.rondo" | cut -d, -f1,3 | sort >"$tmp/l.fn" &&
	"$rondo" stats --csv - "$tmp/p1000.rondo" | cut -d, -f1,3 | sort >"$tmp/p.fn" ||
	fail "rondo stats --csv"
cmp -s "$tmp/l.fn" "$tmp/p.fn" ||
	fail "calls per function in the statistics differ: $(diff "$tmp/l.fn" "$tmp/p.fn" | head -5)"

# replay, drawing the merged loops' counts
replay="$top_builddir/replay/rondo-replay"
seeded_replays s p100 && {
	seed=$(sed -n 's/^rondo-replay: [0-9]* loops merged at precision 90 run counts drawn with seed \([0-9]*\) (--seed \1 draws them again)$/\1/p' "$tmp/sany.out")
	[ -n "$seed" ] || fail "replay without --seed does not say its seed: $(cat "$tmp/sany.out")"
	grep -q "drawn with seed" "$tmp/s5.out" && fail "replay --seed 5 says a seed"
	# its proxy draws as the replay does: with --seed 5, the same calls
	proxy_same p100 s5 --seed 5 &&
		grep -q "; merged loops' counts and sends' sizes drawn from their histograms (--seed)$" "$tmp/proxy.gen" ||
		fail "rondo proxy at 90: $(cat "$tmp/proxy.gen")"
	# the bytes of each pair within 10 % of the original's
	for name in s5 s6 sany; do
		bytes_within l100 "$name"
	done
}
"$replay" --seed -1 "$tmp/p100.rondo" >"$tmp/seed.out" 2>&1
[ $? -eq 2 ] && grep -q "^rondo-replay: --seed: want a number from 0 to" "$tmp/seed.out" ||
	fail "--seed -1: $(cat "$tmp/seed.out")"

# the section damaged: every command says what it goes without, and info
# still says the calls are merged
at=$(offset "$tmp/p1000.rondo" hists)
[ "$at" -gt 0 ] || fail "no section hists in rondo info's list"
flip "$tmp/p1000.rondo" "$tmp/flip.rondo" $((at + 9))
"$rondo" info "$tmp/flip.rondo" >"$tmp/f.info" 2>"$tmp/f.err" ||
	fail "info of a damaged hists section: status $?"
grep -q "section 'hists' damaged (checksum mismatch): merged loops' counts and merged values not shown (loops run their kept count, values as written)" "$tmp/f.err" ||
	fail "damaged hists: $(cat "$tmp/f.err")"
grep -q "^precision    90%: 2 loops whose counts differ" "$tmp/f.info" ||
	fail "damaged hists: $(grep precision "$tmp/f.info")"

# settings: a bad value warns and stays lossless; a bad option is a usage
# error; per-call timing keeps every call
RONDO_PRECISION=high trace bad 50
grep -q "RONDO_PRECISION='high' is not a percentage" "$tmp/bad.out" ||
	fail "no warning for RONDO_PRECISION=high: $(tail -3 "$tmp/bad.out")"
"$rondo" info "$tmp/bad.rondo" | grep -q "^precision    100%" ||
	fail "RONDO_PRECISION=high did not stay lossless"
"$rondo" run --precision 101 -- true >"$tmp/opt.out" 2>&1
[ $? -eq 2 ] && grep -q "^rondo: --precision: '101' is not a whole percentage" "$tmp/opt.out" ||
	fail "--precision 101: $(cat "$tmp/opt.out")"
"$rondo" run --precision 90.0 -- true >"$tmp/opt.out" 2>&1
[ $? -eq 2 ] || fail "--precision 90.0 (which the tracer would refuse): $(cat "$tmp/opt.out")"
trace timed 50 --precision 90 --timing percall
grep -q "nothing is merged" "$tmp/timed.out" ||
	fail "no warning for percall with precision: $(tail -3 "$tmp/timed.out")"
"$rondo" info "$tmp/timed.rondo" >"$tmp/t.info"
grep -q "^  merged       nothing: per-call times are kept" "$tmp/t.info" &&
	grep -q "^precision    90%: nothing merged" "$tmp/t.info" ||
	fail "percall with precision: $(grep -E 'precision|merged' "$tmp/t.info")"

[ $fails -eq 0 ] || exit 1
echo "precision.sh: all passed ($a and $b bytes at 100 and 1000 steps, $l lossless; $cp calls, $cl lossless)"
