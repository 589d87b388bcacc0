#!/bin/sh
# params.sh - tags and peers merged at a precision when asked (rondo run
# --precision-params tags,peers, RONDO_PRECISION_PARAMS).
#
# Tags, on tests/bench/bench_irregular tags (halos tagged with the step's
# number, 2 s and 2 s + 1), on 2 ranks:
#  - --precision-params refuses what it does not know, with the status of
#    a wrong option; the tracer, given it in the environment, says so and
#    writes the trace lossless;
#  - at 90 without --precision-params the tags stay exact: every step's
#    calls are signatures of their own, as lossless;
#  - at 90 with it, tags within 10 % of each other merge: the trace is at
#    least 5 times smaller than lossless at 1000 steps, and at 0 it does
#    not grow with the steps (100 and 1000 within 15 %); rondo info says
#    how many tags, the metadata too; rondo dump --grammar prints them as
#    tag=~v[lo-hi] and lists their histograms; the request pools leave
#    tags out, so one MPI_Waitall signature; calls, statistics and the
#    matrix are the lossless trace's (no size merged);
#  - rondo-replay of the trace at 90 (100 steps) says receives match any
#    tag and does (MPI_ANY_TAG in its re-trace), ends, sends what the
#    program sent (the matrix the same), twice the same calls; its proxy
#    makes the replay's calls.
#
# Peers, on bench_irregular peers (partners r + k and r - k, k from 1 to
# 3 changing every 4 steps) on 8 ranks at precision 0:
#  - the peers merge into one signature per side: rondo info and the
#    metadata say how many, dump --grammar prints dest=~+2[+1..+3] and
#    source=~-2[-3..-1] and their histograms; the trace does not grow
#    with the steps (100 and 1000 within 15 %), and is smaller than
#    lossless; the calls and the statistics are the lossless trace's, the
#    matrix's totals too, and it says its pairs are not;
#  - rondo-replay draws each send's peer and each receive's source (the
#    receives' histograms are the sends': a receiver draws its sender):
#    it ends, sends as many messages and bytes as the program, says its
#    seed, twice with --seed 5 the same calls, with --seed 6 others; its
#    proxy makes the replay's calls.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
prog="$top_builddir/tests/bench/bench_irregular"
replay="$top_builddir/replay/rondo-replay"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }

# trace NAME STEPS [RUN OPTIONS]: $tmp/NAME.rondo of tags STEPS.
trace() {
	t_name=$1 t_steps=$2
	shift 2
	irregular "$t_name" tags "$t_steps" "$@"
}

# what is not known is refused, as any wrong option (status 2)
"$rondo" run --precision 90 --precision-params ranks -- true >"$tmp/bad.out" 2>&1
st=$?
[ "$st" = 2 ] && grep -q "^rondo: --precision-params: 'ranks' is not a list of sizes, tags and peers$" "$tmp/bad.out" ||
	fail "--precision-params ranks: status $st: $(cat "$tmp/bad.out")"
"$rondo" run --precision-params sizes,,tags -- true >"$tmp/bad.out" 2>&1
[ $? = 2 ] || fail "--precision-params sizes,,tags accepted: $(cat "$tmp/bad.out")"

trace l1000 1000
trace n1000 1000 --precision 90
trace p100 100 --precision 90 --precision-params tags
trace p1000 1000 --precision 90 --precision-params sizes,tags
trace z100 100 --precision 0 --precision-params tags
trace z1000 1000 --precision 0 --precision-params tags
RONDO_PRECISION=90 RONDO_PRECISION_PARAMS=tags,ranks trace e100 100
grep -q "RONDO_PRECISION_PARAMS='tags,ranks' is not a list of sizes, tags and peers; merging nothing: lossless" "$tmp/e100.out" ||
	fail "the tracer given ranks does not say so: $(head -5 "$tmp/e100.out")"
"$rondo" info "$tmp/e100.rondo" | grep -q "^precision    100%" ||
	fail "the tracer given ranks merged: $("$rondo" info "$tmp/e100.rondo" | grep -A1 '^precision')"

# tags exact unless asked: as many send and receive signatures as
# lossless, one per step's tag (the bytes are no measure: those of the
# statistics move with the run, 88 % to 95 % of the lossless file's with
# nothing merged)
"$rondo" dump --grammar "$tmp/n1000.rondo" >"$tmp/n.g" || fail "dump --grammar at 90"
"$rondo" dump --grammar "$tmp/l1000.rondo" >"$tmp/l.g" || fail "dump --grammar lossless"
grep -q 'tag=~' "$tmp/n.g" && fail "tags merged without --precision-params"
for f in MPI_Isend MPI_Irecv; do
	a=$(grep -c "^  s[0-9]* *$f(" "$tmp/n.g") l=$(grep -c "^  s[0-9]* *$f(" "$tmp/l.g")
	[ "$a" -eq "$l" ] && [ "$l" -ge 1000 ] ||
		fail "at 90 without tags: $a $f signatures against $l lossless"
done
l=$(trace_bytes l1000)

# merged when asked: smaller, said, shown
a=$(trace_bytes p1000)
[ $((a * 5)) -le "$l" ] || fail "tags at 90: $a bytes against $l lossless at 1000 steps"
a=$(trace_bytes z100) b=$(trace_bytes z1000)
[ $((b * 100)) -le $((a * 115)) ] || fail "tags at 0 grow with the steps: $a bytes at 100, $b at 1000"
"$rondo" info "$tmp/p1000.rondo" >"$tmp/p.info" || fail "info at 90"
grep -q "^             [1-9][0-9]* tags whose values differ by up to 10% merged, in [0-9]* calls" "$tmp/p.info" ||
	fail "info at 90: $(grep -A1 '^precision' "$tmp/p.info")"
grep -q "^  merged       counts, displacements and tags: [0-9]* signatures made [0-9]*, [0-9]* histograms ([1-9][0-9]* of tags) of [0-9]* calls' values" "$tmp/p.info" ||
	fail "metadata at 90: $(grep merged "$tmp/p.info")"
"$rondo" dump --grammar "$tmp/p1000.rondo" >"$tmp/p.g" || fail "dump --grammar at 90"
grep -Eq '^  s[0-9]+ +MPI_Isend\(buf=m[0-9]+\+0, count=64, datatype=MPI_DOUBLE, dest=\+1, tag=~[0-9]+\[[0-9]+-[0-9]+\], ' "$tmp/p.g" &&
	grep -Eq '^  s[0-9]+ +MPI_Irecv\(count=64, datatype=MPI_DOUBLE, source=\+1, tag=~[0-9]+\[[0-9]+-[0-9]+\], ' "$tmp/p.g" &&
	grep -Eq '^  s[0-9]+ +tag: [0-9]+ calls of [0-9]+-[0-9]+, mean [0-9.]+ \(written [0-9]+\)' "$tmp/p.g" ||
	fail "dump --grammar at 90: $(grep -m3 'tag=~' "$tmp/p.g")"
n=$(grep -c '^  s[0-9]* *MPI_Waitall' "$tmp/p.g")
[ "$n" -eq 1 ] || fail "tags at 90: $n MPI_Waitall signatures, not 1"
# each tag's histogram within 10 % of its written value
hists_within tag: "$tmp/p.g"
[ "$(trace_calls p1000)" = "$(trace_calls l1000)" ] || fail "calls at 90: $(trace_calls p1000), lossless $(trace_calls l1000)"
for v in stats matrix; do
	"$rondo" $v --csv - "$tmp/l1000.rondo" | cut -d, -f1-4 | sort >"$tmp/l.$v" &&
		"$rondo" $v --csv - "$tmp/p1000.rondo" | cut -d, -f1-4 | sort >"$tmp/p.$v" ||
		fail "rondo $v --csv"
	[ "$v" = stats ] && { cut -d, -f1,3 "$tmp/l.$v" >"$tmp/l.x"; cut -d, -f1,3 "$tmp/p.$v" >"$tmp/p.x"; } ||
		{ cp "$tmp/l.$v" "$tmp/l.x"; cp "$tmp/p.$v" "$tmp/p.x"; }
	cmp -s "$tmp/l.x" "$tmp/p.x" ||
		fail "rondo $v differs from lossless: $(diff "$tmp/l.x" "$tmp/p.x" | head -5)"
done

"$rondo" matrix "$tmp/p1000.rondo" 2>&1 >/dev/null | grep -q "merged sizes" &&
	fail "the matrix of merged tags says sizes were merged"

# replayed: receives match any tag
trace a100 100
replay_run r1 "$replay" "$tmp/p100.rondo" &&
	replay_run r2 "$replay" "$tmp/p100.rondo" && {
	grep -Eq "^rondo-replay: [1-9][0-9]* tags merged at precision 90: receives match any tag, from their sources in the order sent$" "$tmp/r1.out" ||
		fail "the replay does not say what it does of tags: $(cat "$tmp/r1.out")"
	"$rondo" dump --rank 0 "$tmp/r1.rondo" >"$tmp/r1.d"
	grep -q "MPI_Irecv(count=64, datatype=MPI_DOUBLE, source=1, tag=MPI_ANY_TAG, " "$tmp/r1.d" &&
		! grep -q "MPI_Irecv(.*tag=[0-9]" "$tmp/r1.d" ||
		fail "the replay's receives: $(grep -m3 MPI_Irecv "$tmp/r1.d")"
	"$rondo" diff --ignore buffers "$tmp/r1.rondo" "$tmp/r2.rondo" >"$tmp/r.diff" 2>&1
	[ "$(tail -1 "$tmp/r.diff")" = "same communication" ] ||
		fail "two replays differ: $(head -12 "$tmp/r.diff")"
	"$rondo" matrix --bytes --csv - "$tmp/a100.rondo" >"$tmp/a.mx" &&
		"$rondo" matrix --bytes --csv - "$tmp/r1.rondo" >"$tmp/r1.mx" &&
		cmp -s "$tmp/a.mx" "$tmp/r1.mx" ||
		fail "the replay's matrix: $(cat "$tmp/r1.mx"), the program's $(cat "$tmp/a.mx")"
	proxy_same p100 r1
}

# peers, on 8 ranks
NP=8
export NP
irregular pl100 peers 100
irregular pl1000 peers 1000
irregular pz100 peers 100 --precision 0 --precision-params peers
irregular pz1000 peers 1000 --precision 0 --precision-params tags,peers
"$rondo" info "$tmp/pz1000.rondo" >"$tmp/pz.info" || fail "info of peers at 0"
grep -q "^             4 peers whose values differ by up to 100% merged, in [0-9]* calls" "$tmp/pz.info" ||
	fail "info of peers at 0: $(grep -A1 '^precision' "$tmp/pz.info")"
grep -q "^  merged       counts, displacements, tags and peers: 12 signatures made 4, 4 histograms (0 of tags, 4 of peers) of [0-9]* calls' values" "$tmp/pz.info" ||
	fail "metadata of peers at 0: $(grep merged "$tmp/pz.info")"
"$rondo" dump --grammar "$tmp/pz1000.rondo" >"$tmp/pz.g" || fail "dump --grammar of peers"
grep -Eq '^  s[0-9]+ +MPI_Isend\(buf=m[0-9]+\+0, count=64, datatype=MPI_DOUBLE, dest=~\+2\[\+1\.\.\+3\], tag=0, ' "$tmp/pz.g" &&
	grep -Eq '^  s[0-9]+ +MPI_Irecv\(count=64, datatype=MPI_DOUBLE, source=~-2\[-3\.\.-1\], tag=0, ' "$tmp/pz.g" &&
	grep -Eq '^  s[0-9]+ +source: [0-9]+ calls of -3\.\.-1, mean -[0-9.]+ \(written -2\), .*: -1 x[0-9]+, -2 x[0-9]+, -3 x[0-9]+$' "$tmp/pz.g" ||
	fail "dump --grammar of peers: $(grep -m4 -e '=~' -e 'source:' "$tmp/pz.g")"
a=$(trace_bytes pz100) b=$(trace_bytes pz1000) l=$(trace_bytes pl1000)
[ $((b * 100)) -le $((a * 115)) ] || fail "peers at 0 grow with the steps: $a bytes at 100, $b at 1000"
[ "$b" -lt "$l" ] || fail "peers at 0: $b bytes against $l lossless at 1000 steps"
[ "$(trace_calls pz1000)" = "$(trace_calls pl1000)" ] ||
	fail "calls of peers at 0: $(trace_calls pz1000), lossless $(trace_calls pl1000)"
# totals: messages, bytes
mxtotal() { "$rondo" matrix --bytes --csv - "$tmp/$1.rondo" 2>/dev/null | awk -F, 'NR > 1 { m += $3; b += $4 } END { printf "%d %.0f\n", m, b }'; }
[ "$(mxtotal pz1000)" = "$(mxtotal pl1000)" ] ||
	fail "the matrix's totals with peers merged: $(mxtotal pz1000), lossless $(mxtotal pl1000)"
"$rondo" matrix "$tmp/pz1000.rondo" 2>&1 >/dev/null |
	grep -qx "rondo: traced at precision 0% with peers merged: 4 merged peers counted at the peer written for them, so a pair's figures are not the program's; the totals are" ||
	fail "the matrix does not say peers were merged: $("$rondo" matrix "$tmp/pz1000.rondo" 2>&1 >/dev/null)"
"$rondo" stats --csv - "$tmp/pl1000.rondo" | cut -d, -f1,3 | sort >"$tmp/pl.fn" &&
	"$rondo" stats --csv - "$tmp/pz1000.rondo" | cut -d, -f1,3 | sort >"$tmp/pz.fn" &&
	cmp -s "$tmp/pl.fn" "$tmp/pz.fn" ||
	fail "calls per function with peers merged: $(diff "$tmp/pl.fn" "$tmp/pz.fn" | head -5)"

# replayed: peers drawn, the receiver drawing its sender
seeded_replays q pz100 && {
	grep -Eq "^rondo-replay: 0 loops, 0 counts and 4 peers merged at precision 0: loop counts, send sizes and peers drawn with seed ([0-9]+) \(--seed [0-9]+ draws them again\)$" "$tmp/qany.out" ||
		fail "the replay of peers does not say its seed: $(cat "$tmp/qany.out")"
	# every message sent is received: the program's totals
	[ "$(mxtotal q5)" = "$(mxtotal pl100)" ] ||
		fail "the replay of peers sends $(mxtotal q5), the program $(mxtotal pl100)"
	# the peers drawn are the program's: 1 to 3 away, either side
	"$rondo" dump --rank 3 "$tmp/q5.rondo" | awk '
		$3 ~ /^MPI_Isend/ && match($0, /dest=[0-9]+/) { d = substr($0, RSTART + 5, RLENGTH - 5); if (d == 3 || d == 7) { print "rank 3 sends to " d; bad = 1 }; n++ }
		END { if (n < 100) { print n " sends"; bad = 1 } exit bad }' >"$tmp/why" ||
		fail "the replay's peers: $(cat "$tmp/why")"
	proxy_same pz100 q5 --seed 5
}

[ "$fails" -eq 0 ] && echo "PASS: params.sh" || exit 1
