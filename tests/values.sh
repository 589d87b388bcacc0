#!/bin/sh
# values.sh - counts merged at a precision (RONDO_PRECISION, rondo run
# --precision): signatures equal but for their counts within the
# precision made one, on tests/bench/bench_irregular amr (halos whose
# size drifts from 64 to 127 every few steps) and both (that and a
# convergence loop), on 2 ranks:
#  - lossless, the requests of receives and sends alike but for their
#    sizes share a pool: one MPI_Waitall signature for all the sizes;
#  - at 90 the halos' counts are merged: rondo info says how many and in
#    how many calls, the metadata too; rondo dump --grammar prints each as
#    ~mean[least-most] and lists its histogram; the trace is at least
#    twice as small as the lossless one at 1000 steps (both: 5 times), and
#    at 0 it does not grow with the steps (100 and 1000 within 15 %);
#  - the calls (rondo info) and the statistics' calls per function are
#    the lossless trace's; the matrix has its messages per pair, its
#    bytes within 10 % and its total bytes exact (each size counted at
#    its histogram's exact mean), and says so;
#  - its section hists damaged, the values read as written: ~71[?];
#  - rondo-replay of the trace at 90 (100 steps) draws each send's size
#    from its histogram: twice with --seed 5 the same calls (rondo diff),
#    with --seed 6 other ones, without --seed rank 0 says its seed; each
#    pair's bytes within 10 % of the original's; its proxy (rondo proxy)
#    with --seed 5 makes the replay's calls; so too, but for the proxy,
#    of both at 90 (loop counts drawn too).
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
prog="$top_builddir/tests/bench/bench_irregular"
replay="$top_builddir/replay/rondo-replay"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# within L P [SHARE]: P within SHARE (0.1) of L
within() {
	awk -v l="$1" -v p="$2" -v s="${3:-0.1}" 'BEGIN { d = p - l; if (d < 0) d = -d; exit !(l > 0 && d <= s * l) }'
}

irregular a100 amr 100
irregular l1000 amr 1000
irregular p100 amr 100 --precision 90
irregular p1000 amr 1000 --precision 90
irregular z100 amr 100 --precision 0
irregular z1000 amr 1000 --precision 0
irregular bl1000 both 1000
irregular bp1000 both 1000 --precision 90
irregular b100 both 100
irregular bp100 both 100 --precision 90

# lossless: one pool of requests for every size, so one MPI_Waitall
"$rondo" dump --grammar "$tmp/l1000.rondo" >"$tmp/l.g" || fail "dump --grammar lossless"
n=$(grep -c '^  s[0-9]* *MPI_Waitall' "$tmp/l.g")
[ "$n" -eq 1 ] || fail "lossless amr: $n MPI_Waitall signatures, not 1"
grep -q '~[0-9]*\[' "$tmp/l.g" && fail "lossless amr has merged values"

"$rondo" info "$tmp/p1000.rondo" >"$tmp/p.info" || fail "info at 90"
grep -q "^             [0-9]* counts or displacements whose values differ by up to 10% merged, in [0-9]* calls" "$tmp/p.info" ||
	fail "info at 90: $(grep -A1 '^precision' "$tmp/p.info")"
grep -q "^  merged       counts and displacements: [0-9]* signatures made [0-9]*, [0-9]* histograms of [0-9]* calls' values" "$tmp/p.info" ||
	fail "metadata at 90: $(grep merged "$tmp/p.info")"
"$rondo" dump --grammar "$tmp/p1000.rondo" >"$tmp/p.g" || fail "dump --grammar at 90"
grep -Eq '^  s[0-9]+ +MPI_Isend\(buf=m[0-9]+\+0, count=~[0-9]+\[[0-9]+-[0-9]+\], datatype=MPI_DOUBLE' "$tmp/p.g" &&
	grep -q '^merged values (precision 90%' "$tmp/p.g" &&
	grep -Eq '^  s[0-9]+ +count: [0-9]+ calls of [0-9]+-[0-9]+, mean [0-9.]+ \(written [0-9]+\), min at rank [01], max at rank [01]: [0-9]+ x[0-9]+' "$tmp/p.g" ||
	fail "dump --grammar at 90: $(head -12 "$tmp/p.g")"
# each value's histogram within 10 % of its written value
hists_within count: "$tmp/p.g"

a=$(trace_bytes p1000) l=$(trace_bytes l1000)
[ $((a * 2)) -le "$l" ] || fail "amr at 90: $a bytes against $l lossless at 1000 steps"
a=$(trace_bytes bp1000) l=$(trace_bytes bl1000)
[ $((a * 5)) -le "$l" ] || fail "both at 90: $a bytes against $l lossless at 1000 steps"
a=$(trace_bytes z100) b=$(trace_bytes z1000)
[ $((b * 100)) -le $((a * 115)) ] || fail "amr at 0 grows with the steps: $a bytes at 100, $b at 1000"

# the histograms lost with their section: the values as written, and
# the matrix the same
at=$(offset "$tmp/p1000.rondo" hists)
[ "$at" -gt 0 ] || fail "no section hists in rondo info's list"
flip "$tmp/p1000.rondo" "$tmp/flip.rondo" $((at + 9))
"$rondo" dump --grammar "$tmp/flip.rondo" >"$tmp/f.g" 2>"$tmp/f.err" ||
	fail "dump --grammar of a damaged hists section: status $?"
grep -q "section 'hists' damaged (checksum mismatch): merged loops' counts and merged values not shown (loops run their kept count, values as written)" "$tmp/f.err" &&
	grep -Eq '^  s[0-9]+ +MPI_Isend\(buf=m[0-9]+\+0, count=~[0-9]+\[\?\], ' "$tmp/f.g" ||
	fail "damaged hists: $(cat "$tmp/f.err"; head -8 "$tmp/f.g")"

# calls exact, statistics exact, the matrix's bytes within 10 %
[ "$(trace_calls p1000)" = "$(trace_calls l1000)" ] || fail "calls at 90: $(trace_calls p1000), lossless $(trace_calls l1000)"
"$rondo" stats --csv - "$tmp/l1000.rondo" | cut -d, -f1,3 | sort >"$tmp/l.fn" &&
	"$rondo" stats --csv - "$tmp/p1000.rondo" | cut -d, -f1,3 | sort >"$tmp/p.fn" ||
	fail "rondo stats --csv"
cmp -s "$tmp/l.fn" "$tmp/p.fn" ||
	fail "calls per function in the statistics differ: $(diff "$tmp/l.fn" "$tmp/p.fn" | head -5)"
# mxcheck ORIGINAL OTHER WHO: messages per pair the same, bytes within 10 %
mxcheck() {
	"$rondo" matrix --bytes --csv - "$tmp/$1.rondo" >"$tmp/$1.mx" &&
		"$rondo" matrix --bytes --csv - "$tmp/$2.rondo" >"$tmp/$2.mx" ||
		{ fail "rondo matrix of $1 or $2"; return; }
	awk -F, -v who="$3" '
		NR == FNR { if (FNR > 1) { m[$1 "," $2] = $3; b[$1 "," $2] = $4 }; next }
		FNR > 1 { k = $1 "," $2; seen[k] = 1
			if (!(k in m)) { printf "%s: %s sent, not in the original\n", who, k; bad = 1; next }
			if ($3 != m[k]) { printf "%s: %s: %d messages, the original %d\n", who, k, $3, m[k]; bad = 1 }
			d = $4 - b[k]; if (d < 0) d = -d
			if (d > 0.1 * b[k]) { printf "%s: %s: %d bytes, the original %d\n", who, k, $4, b[k]; bad = 1 } }
		END { for (k in m) if (!(k in seen)) { printf "%s: %s missing\n", who, k; bad = 1 }
		      exit bad }' "$tmp/$1.mx" "$tmp/$2.mx" >"$tmp/why" ||
		fail "$(cat "$tmp/why")"
}
mxcheck l1000 p1000 "matrix at 90"
# its totals the program's (each size counted at its calls' exact mean),
# and said; without the histograms, the values as written
total() { awk -F, 'NR > 1 { s += $4 } END { printf "%.0f\n", s }' "$1"; }
[ "$(total "$tmp/p1000.mx")" = "$(total "$tmp/l1000.mx")" ] ||
	fail "the matrix's total bytes at 90: $(total "$tmp/p1000.mx"), lossless $(total "$tmp/l1000.mx")"
"$rondo" matrix "$tmp/p1000.rondo" 2>&1 >/dev/null |
	grep -qx "rondo: traced at precision 90%: merged sizes counted at their calls' exact means, so totals are the program's, and each pair's within 10%" ||
	fail "the matrix does not say what was merged: $("$rondo" matrix "$tmp/p1000.rondo" 2>&1 >/dev/null)"
mxcheck bl1000 bp1000 "both's matrix at 90"
[ "$(total "$tmp/bp1000.mx")" = "$(total "$tmp/bl1000.mx")" ] ||
	fail "both's matrix's total bytes at 90: $(total "$tmp/bp1000.mx"), lossless $(total "$tmp/bl1000.mx")"
cp "$tmp/flip.rondo" "$tmp/flip1000.rondo"
mxcheck l1000 flip1000 "matrix without the histograms"

# replay of the trace at 90, and its proxy
seeded_replays r p100 && {
	grep -Eq "^rondo-replay: 0 loops and [0-9]+ counts merged at precision 90 run counts and send sizes drawn with seed ([0-9]+) \(--seed [0-9]+ draws them again\)$" "$tmp/rany.out" ||
		fail "replay without --seed does not say its seed: $(cat "$tmp/rany.out")"
	mxcheck a100 r5 "replay at 90"
	mxcheck a100 r6 "replay at 90, seed 6"
	proxy_same p100 r5 --seed 5
}
# both: loop counts and sizes drawn, each pair's bytes within 10 %
seeded_replays b bp100 && {
	bytes_within b100 b5
	bytes_within b100 b6
}

[ "$fails" -eq 0 ] && echo "PASS: values.sh" || exit 1
