#!/bin/sh
# tags.sh - tags merged at a precision when asked (rondo run
# --precision-params tags, RONDO_PRECISION_PARAMS), on
# tests/bench/bench_irregular tags (halos tagged with the step's number,
# 2 s and 2 s + 1), on 2 ranks:
#  - --precision-params refuses what it does not merge (peers), with the
#    status of a wrong option; the tracer, given it in the environment,
#    says so and writes the trace lossless;
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

# what is not merged is refused, as any wrong option (status 2)
"$rondo" run --precision 90 --precision-params peers -- true >"$tmp/bad.out" 2>&1
st=$?
[ "$st" = 2 ] && grep -q "^rondo: --precision-params: 'peers' is not a list of sizes and tags (peers are not merged)$" "$tmp/bad.out" ||
	fail "--precision-params peers: status $st: $(cat "$tmp/bad.out")"
"$rondo" run --precision-params sizes,,tags -- true >"$tmp/bad.out" 2>&1
[ $? = 2 ] || fail "--precision-params sizes,,tags accepted: $(cat "$tmp/bad.out")"

trace l1000 1000
trace n1000 1000 --precision 90
trace p100 100 --precision 90 --precision-params tags
trace p1000 1000 --precision 90 --precision-params sizes,tags
trace z100 100 --precision 0 --precision-params tags
trace z1000 1000 --precision 0 --precision-params tags
RONDO_PRECISION=90 RONDO_PRECISION_PARAMS=peers trace e100 100
grep -q "RONDO_PRECISION_PARAMS='peers' is not a list of sizes and tags (peers are not merged); merging nothing: lossless" "$tmp/e100.out" ||
	fail "the tracer given peers does not say so: $(head -5 "$tmp/e100.out")"
"$rondo" info "$tmp/e100.rondo" | grep -q "^precision    100%" ||
	fail "the tracer given peers merged: $("$rondo" info "$tmp/e100.rondo" | grep -A1 '^precision')"

# tags exact unless asked
"$rondo" dump --grammar "$tmp/n1000.rondo" >"$tmp/n.g" || fail "dump --grammar at 90"
grep -q 'tag=~' "$tmp/n.g" && fail "tags merged without --precision-params"
a=$(trace_bytes n1000) l=$(trace_bytes l1000)
[ $((a * 10)) -ge $((l * 9)) ] || fail "at 90 without tags: $a bytes against $l lossless"

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

[ "$fails" -eq 0 ] && echo "PASS: tags.sh" || exit 1
