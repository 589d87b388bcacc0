#!/bin/sh
# timed.sh - rondo skew, rondo waits and rondo matrix --from/--to on a real
# program traced with per-call times (base 1.01): tests/mpi/late, whose
# ranks are late on purpose by a known sleep (SLEEP ms, default 100):
#  - skew: in the MPI_Allreduce row, rank 2 is last at every occurrence,
#    with a mean and a largest spread of about the sleep;
#  - waits: rank 0 waits about the sleep for rank 1's MPI_Send in each
#    MPI_Recv (late sender) and for rank 3's in each MPI_Wait on an Irecv
#    from MPI_ANY_SOURCE; rank 3's MPI_Ssend waits about the sleep for
#    rank 2's receive (late receiver);
#  - matrix --from/--to: a window in the program's gap splits its last
#    phase's messages, 5 before and 7 after; at the start of the first
#    message after, to the nanosecond as rondo dump --times gives it, that
#    message is in --from's window and not in --to's; filters, --wide and
#    windows holding nothing still work;
#  - errors: a trace without per-call times, a bad --from or --to, a bad
#    --top, an unwritable --csv path, a damaged trace: exit status 1 or 2
#    and one line "rondo: ..." (a usage error adds the --help hint).
# "About the sleep" is at least 0.8 times it and at most 1.5 times it
# plus 5 ms, per occurrence on average: machines running the suite are
# loaded.  A rank that wakes from its sleep may wait for a core: MPICH's
# ranks poll while they wait, and with 4 ranks on 2 cores beside other
# tests, a 20 ms sleep was seen to make waits of 35-36 ms (twice, the
# bound being 35), and in CI's MPICH run a 40 ms sleep a spread of 67 ms
# (the bound being 65); at 100 ms the bound leaves 55 ms for that, and a
# sleep counted twice (200 ms) still fails it.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
prog="$top_builddir/tests/mpi/late"
mktrace="$top_builddir/tests/mktrace"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
sleep_ms=${SLEEP:-100}
iters=3
t="$tmp/late.rondo"

timeout 120 "$rondo" run --timing percall --time-base 1.01 -o "$t" -- \
	mpirun -np 4 ${san:+-x ASAN_OPTIONS} "$prog" "$sleep_ms" "$iters" \
	>"$tmp/late.out" 2>&1 ||
	{ echo "FAIL: late: exit status $?: $(tail -5 "$tmp/late.out")"; exit 1; }
grep -q "^late: 4 ranks" "$tmp/late.out" && [ -s "$t" ] ||
	{ echo "FAIL: late: no report or no trace: $(tail -5 "$tmp/late.out")"; exit 1; }
# The gap on the trace's clock: from the end of rank 0's last send before
# it (tag 10) to the start of its first after (tag 11).
"$rondo" dump --times --rank 0 --function MPI_Send "$t" >"$tmp/sends" ||
	{ echo "FAIL: rondo dump --times"; exit 1; }
after=$(awk '/tag=11/ { print $3; exit }' "$tmp/sends")
window=$(awk '/tag=10/ { e = $4 } /tag=11/ { printf "%.9f", (e + $3) / 2; exit }' "$tmp/sends")
next=$(awk -v a="$after" 'BEGIN { printf "%.9f", a + 1e-9 }')
# the tag-11 sends that read back starting at that very ns: one, or more
# where monotone starts (issue 24) put a call's start at the next one's
at_after=$(awk -v a="$after" '/tag=11/ && $3 == a { n++ } END { print n + 0 }' "$tmp/sends")
[ -n "$after" ] && [ -n "$window" ] ||
	{ echo "FAIL: no sends of tag 10 and 11 on rank 0: $(head -20 "$tmp/sends")"; exit 1; }

# about NS COUNT WHAT: NS over COUNT occurrences is about the sleep.
AWKLIB='function about(ns, n, what) {
	if (n <= 0 || ns / n < 0.8 * s || ns / n > 1.5 * s + 5e6)
		bad(sprintf("%s: %.3f ms each (%d), want about %g ms", what, n > 0 ? ns / n / 1e6 : 0, n, s / 1e6))
}
function bad(m) { print m; fails++ }'

# check WHAT AWK-PROGRAM: the program on the CSV in $tmp/out; what it
# calls bad() with is a failure.
check() {
	awk -F, -v s="$((sleep_ms * 1000000))" "$AWKLIB$2"' END { exit fails > 0 }' \
		"$tmp/out" >"$tmp/why" || fail "$1: $(head -5 "$tmp/why")"
}

# ---- skew -------------------------------------------------------------------
expect_exit 0 "$rondo" skew --csv - "$t"
[ "$(head -1 "$tmp/out")" = "function,comm,members,occurrences,mean_spread_ns,max_spread_ns,max_spread_at_ns,error_ns,last_rank,last_count,wait_ns,mean_spread_error_ns" ] ||
	fail "skew CSV header: $(head -1 "$tmp/out")"
check "skew: the Allreduce" '
$1 == "MPI_Allreduce" {
	seen = 1
	if ($2 != "world" || $3 != 4 || $4 != '"$iters"') bad("Allreduce row: " $0)
	if ($9 != 2 || $10 != '"$iters"') bad("Allreduce: last rank " $9 " " $10 " times, want rank 2 every time")
	about($5 * $4, $4, "Allreduce mean spread")
	about($6, 1, "Allreduce largest spread")
	# the others wait for rank 2: three members a spread each
	about($11, 3 * $4, "Allreduce waiting")
	if ($8 <= 0 || $8 >= $6) bad("Allreduce error bound " $8 " for a spread of " $6)
}
END { if (!seen) bad("no MPI_Allreduce row") }'
expect_exit 0 "$rondo" skew "$t"
grep -Eq "^MPI_Allreduce +world +4 +$iters .* 2 +$iters/$iters " "$tmp/out" ||
	fail "skew text: no Allreduce row naming rank 2: $(cat "$tmp/out")"
grep -q "base 1.01" "$tmp/out" ||
	fail "skew text: no error bound in the header: $(head -3 "$tmp/out")"
expect_exit 0 "$rondo" skew --comm world --top 1 --csv - "$t"
[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "skew --top 1: $(cat "$tmp/out")"
expect_exit 0 "$rondo" skew --comm self --csv - "$t"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "skew --comm self: $(cat "$tmp/out")"

# ---- waits ------------------------------------------------------------------
expect_exit 0 "$rondo" waits --csv - "$t"
[ "$(head -1 "$tmp/out")" = "src,dst,messages,late_sender,late_sender_ns,late_receiver,late_receiver_ns,error_ns,late_sender_error_ns,late_receiver_error_ns" ] ||
	fail "waits CSV header: $(head -1 "$tmp/out")"
check "waits" '
NR > 1 { row[$1 "," $2] = $0; ls[$1 "," $2] = $5; lsn[$1 "," $2] = $4; lr[$1 "," $2] = $7; lrn[$1 "," $2] = $6; m[$1 "," $2] = $3 }
END {
	if (m["1,0"] != '"$iters"' || lsn["1,0"] != '"$iters"') bad("1 -> 0 (Recv): " row["1,0"])
	about(ls["1,0"], lsn["1,0"], "late sender 1 -> 0 (MPI_Recv)")
	if (m["3,0"] != '"$iters"' || lsn["3,0"] != '"$iters"') bad("3 -> 0 (Irecv, Wait): " row["3,0"])
	about(ls["3,0"], lsn["3,0"], "late sender 3 -> 0 (MPI_Wait on an Irecv)")
	if (m["3,2"] != '"$iters"' || lrn["3,2"] != '"$iters"') bad("3 -> 2 (Ssend): " row["3,2"])
	about(lr["3,2"], lrn["3,2"], "late receiver 3 -> 2 (MPI_Ssend)")
	if (lr["1,0"] + lr["3,0"] + ls["3,2"] > 5e6) bad("waits where none were made: " row["1,0"] " / " row["3,0"] " / " row["3,2"])
	if (m["0,1"] != 12) bad("0 -> 1: " m["0,1"] " messages, want 12")
}'
expect_exit 0 "$rondo" waits "$t"
grep -Eq "^ +1 +0 +$iters +$iters " "$tmp/out" ||
	fail "waits text: no row 1 -> 0 with its late senders: $(cat "$tmp/out")"

# ---- the matrix in a window ---------------------------------------------------
expect_exit 0 "$rondo" matrix --from "$window" --csv - "$t"
printf 'src,dst,messages,bytes\n0,1,7,56\n' | cmp -s - "$tmp/out" ||
	fail "matrix --from $window: $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --to "$window" --csv - "$t"
printf 'src,dst,messages,bytes\n0,1,5,40\n1,0,%d,%d\n3,0,%d,%d\n3,2,%d,%d\n' \
	$iters $((iters * 8)) $iters $((iters * 8)) $iters $((iters * 8)) |
	cmp -s - "$tmp/out" || fail "matrix --to $window: $(cat "$tmp/out")"
# the edges: a start at --from is in, one at --to out
expect_exit 0 "$rondo" matrix --from "$after" --csv - "$t"
printf 'src,dst,messages,bytes\n0,1,7,56\n' | cmp -s - "$tmp/out" ||
	fail "matrix --from $after (the first send's start): $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --from "$next" --csv - "$t"
printf 'src,dst,messages,bytes\n0,1,%d,%d\n' $((7 - at_after)) $((8 * (7 - at_after))) |
	cmp -s - "$tmp/out" ||
	fail "matrix --from $next (1 ns after the first send's start): $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --from "$window" --to "$after" --csv - "$t"
[ "$(cat "$tmp/out")" = "src,dst,messages,bytes" ] ||
	fail "matrix --from $window --to $after: $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --from "$window" --to "$next" --csv - "$t"
printf 'src,dst,messages,bytes\n0,1,%d,%d\n' "$at_after" $((8 * at_after)) |
	cmp -s - "$tmp/out" ||
	fail "matrix --from $window --to $next: $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --from "$window" --to 1000 --tag 11 --csv - --wide "$t"
printf 'src,0,1,2,3\n0,0,7,0,0\n1,0,0,0,0\n2,0,0,0,0\n3,0,0,0,0\n' |
	cmp -s - "$tmp/out" || fail "matrix --from --tag --wide: $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --from "$window" --tag 10 --csv - "$t"
[ "$(cat "$tmp/out")" = "src,dst,messages,bytes" ] ||
	fail "matrix --from --tag 10: $(cat "$tmp/out")"
expect_exit 0 "$rondo" matrix --to -1 "$t"
grep -q "^4 ranks, 0 messages" "$tmp/out" || fail "matrix --to -1: $(cat "$tmp/out")"
# the whole run as a window: the grammar's matrix
"$rondo" matrix --collectives --csv - "$t" >"$tmp/all" 2>/dev/null
expect_exit 0 "$rondo" matrix --collectives --from -1000 --to 1000 --csv - "$t"
cmp -s "$tmp/all" "$tmp/out" ||
	fail "matrix over the whole run differs from the grammar's: $(diff "$tmp/all" "$tmp/out" | head -5)"

# ---- rondo timeline: the explorer's timeline as CSV and text -----------------
# mktrace --timed: rank 2 waits in an MPI_Recv from 202.5 to 595 ms; every
# other rank spends 5 ms in MPI every 100 ms there, and rank 1 4 ms more
# in an MPI_Send from 592 ms (per-call times of base 1.001: up to 0.1 %
# late, so within 1 ms here).
"$mktrace" --timed --ranks 4 "$tmp/tl.rondo" >/dev/null || fail "mktrace --timed"
expect_exit 0 "$rondo" timeline --from 0.2 --to 0.6 --buckets 4 --csv - "$tmp/tl.rondo"
awk -F, 'NR == 1 { if ($0 != "rank,bucket,start_ns,end_ns,mpi_ns,share") bad = "header " $0; next }
	{ n++; want = ($1 != 2) ? 5e6 : ($2 == 0 ? 97.5e6 : $2 == 3 ? 95e6 : 100e6)
	  if ($1 == 1 && $2 == 3) want = 9e6 # and its MPI_Send, 592 to 596 ms
	  if ($3 != 2e8 + $2 * 1e8 || $4 != $3 + 1e8) bad = bad " bucket " $0
	  if ($5 < want - 1e6 || $5 > want + 1e6) bad = bad " time " $0
	  if ($6 < $5 / 1e8 - 1e-6 || $6 > $5 / 1e8 + 1e-6) bad = bad " share " $0 }
	END { if (n != 16) bad = bad " " n " rows"; if (bad != "") { print bad; exit 1 } }' \
	"$tmp/out" >"$tmp/why" || fail "timeline CSV: $(cat "$tmp/why")"
expect_exit 0 "$rondo" timeline --from 0.2 --to 0.6 --buckets 4 "$tmp/tl.rondo"
grep -q '^     2 |@@@@|$' "$tmp/out" && grep -q '^     0 |\.\.\.\.|$' "$tmp/out" ||
	fail "timeline text: $(cat "$tmp/out")"
# the whole run by default: every rank's row starts in MPI_Init
expect_exit 0 "$rondo" timeline --buckets 10 "$tmp/tl.rondo"
[ "$(grep -c '^     [0-3] |[^ ]' "$tmp/out")" -eq 4 ] || fail "timeline of the run: $(cat "$tmp/out")"
expect_exit 2 "$rondo" timeline --buckets 0 "$tmp/tl.rondo"
usage_error timeline "^rondo: --buckets: '0' is not a number"
expect_exit 2 "$rondo" timeline --from 0.5 --to 0.2 "$tmp/tl.rondo"
usage_error timeline "^rondo: --from must come before --to"
expect_exit 1 "$rondo" timeline --csv /nonexistent/dir/x.csv "$tmp/tl.rondo"
one_error "^rondo: cannot write /nonexistent/dir/x.csv"

# ---- bounds at a large base ---------------------------------------------------
# At base 16 a start after a 20 ms sleep may read 300 ms late, and the
# raw bounds summed over the run were seconds (a run of 4.8 s once
# printed +- 457 s).  A wait is at most the call that waited and a
# Barrier's or Allreduce's spread its longest member's call, so capped,
# every waits bound together stays below the ranks' time (4 x the run)
# and every skew bound below the run; figures the bound exceeds are
# marked "~", and a note says so and what base would help.
b16="$tmp/late16.rondo"
timeout 120 "$rondo" run --timing percall --time-base 16 -o "$b16" -- \
	mpirun -np 4 ${san:+-x ASAN_OPTIONS} "$prog" 20 "$iters" \
	>"$tmp/late16.out" 2>&1 && [ -s "$b16" ] ||
	fail "late at base 16: $(tail -5 "$tmp/late16.out")"
span=$("$rondo" dump --times "$b16" | awk '
	$1 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ {
		if (lo == "" || $3 < lo) lo = $3
		if ($4 > hi) hi = $4
	}
	END { printf "%.0f", (hi - lo) * 1e9 }')
[ "${span:-0}" -gt 0 ] || fail "base 16: no span from rondo dump --times"
# A rank waits no longer than it spends in MPI: its waits (late senders
# on its receives, late receivers on its sends), and their bounds, each
# add up to no more than the most any rank spent in MPI (info's max, to
# 3 digits; per-rank times are kept within 1/128), whatever the base.
# The per-call caps alone let rank 0's late senders' bound read 1.5 x
# the run at base 16 (durations read back are long).
expect_exit 0 "$rondo" info "$b16"
mpimax=$(awk '$1 == "mpi" && $2 == "time" {
	for (i = 3; i < NF; i++) if ($i == "max") {
		u = $(i + 2); v = $(i + 1)
		m = u ~ /^s/ ? 1e9 : u ~ /^ms/ ? 1e6 : u ~ /^us/ ? 1e3 : 1
		printf "%.0f", v * m * 1.01 + 1000
	} }' "$tmp/out")
[ "${mpimax:-0}" -gt 0 ] || fail "base 16: no mpi time max in rondo info: $(cat "$tmp/out")"
expect_exit 0 "$rondo" waits --csv - "$b16"
awk -F, -v max="$mpimax" 'NR > 1 { v[$2] += $5; v[$1] += $7; e[$2] += $9; e[$1] += $10 }
	END { for (r in e) if (v[r] > max || e[r] > max) { printf "rank %d waits %.0f ns +- %.0f ns, over its most in MPI (%d ns)\n", r, v[r], e[r], max; bad = 1 }
		exit bad }' \
	"$tmp/out" >"$tmp/why" || fail "base 16: $(cat "$tmp/why")"
expect_exit 0 "$rondo" skew --csv - "$b16"
awk -F, -v span="$span" 'NR > 1 && ($8 > span || $12 > span) { print "skew bound over the run (" span " ns): " $0; bad = 1 }
	END { exit bad }' "$tmp/out" >"$tmp/why" || fail "base 16: $(cat "$tmp/why")"
for cmd in waits skew; do
	expect_exit 0 "$rondo" $cmd "$b16"
	marked=$(grep -c '[ (]~[0-9]' "$tmp/out")
	if [ "$marked" -gt 0 ]; then
		grep -q '^~ marks [0-9]* figures* whose error bound exceeds' "$tmp/out" &&
			grep -Eq '^(A trace of base [0-9.]+ would|Even base 1.001|They read as 0)' "$tmp/out" ||
			fail "$cmd at base 16: figures marked ~ but no note: $(cat "$tmp/out")"
	elif grep -q '^~ marks' "$tmp/out"; then
		fail "$cmd at base 16: a note but no figure marked: $(cat "$tmp/out")"
	fi
done

# ---- errors -------------------------------------------------------------------
"$mktrace" --ranks 3 --iters 2 "$tmp/agg.rondo" >/dev/null ||
	fail "mktrace"
for cmd in skew waits; do
	expect_exit 1 "$rondo" $cmd "$tmp/agg.rondo"
	one_error "^rondo: $cmd: .*agg.rondo has no per-call times"
	expect_exit 1 "$rondo" $cmd --csv /nonexistent/dir/x.csv "$t"
	one_error "^rondo: cannot write /nonexistent/dir/x.csv"
	expect_exit 2 "$rondo" $cmd --top 0 "$t"
	usage_error $cmd "^rondo: --top '0'"
	expect_exit 2 "$rondo" $cmd "$t" "$t"
	usage_error $cmd "takes one FILE"
done
expect_exit 1 "$rondo" timeline "$tmp/agg.rondo"
one_error "^rondo: timeline: .*agg.rondo has no per-call times"
expect_exit 1 "$rondo" matrix --from 0 "$tmp/agg.rondo"
one_error "^rondo: matrix --from/--to: .*agg.rondo has no per-call times"
expect_exit 1 "$rondo" matrix --to 1 --csv /nonexistent/dir/x.csv "$t"
one_error "^rondo: cannot write /nonexistent/dir/x.csv"
for v in abc 1e99 nan 0.5x ""; do
	expect_exit 2 "$rondo" matrix --from "$v" "$t"
	usage_error matrix "^rondo: --from: '$v' is not a time in seconds"
done
expect_exit 2 "$rondo" matrix --from 2 --to 1 "$t"
usage_error matrix "^rondo: --from must come before --to"
expect_exit 2 "$rondo" skew --comm nowhere "$t"
usage_error skew "^rondo: --comm: 'nowhere'"
head -c 1000 "$t" >"$tmp/cut.rondo"
for cmd in skew waits "matrix --from 0"; do
	expect_exit 1 "$rondo" $cmd "$tmp/cut.rondo"
	one_error "^rondo: cannot open .*cut.rondo"
done

[ "$fails" -eq 0 ] && echo "PASS: timed.sh" || echo "FAIL: timed.sh: $fails failures"
[ "$fails" -eq 0 ]
