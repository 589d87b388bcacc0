#!/bin/sh
# timing.sh - per-call timing (RONDO_TIMING=percall) traced for real.
#  - tests/mpi/sleepy: 10^4 calls of four signatures with known gaps, the
#    program's own clock read before each.  For b = 1.01, 1.1 and 1.5,
#    every start `rondo dump --times --bounds` gives is within the bound
#    it states for that call of the program's time, at the end of the run
#    as at its start: no drift; on every rank starts never decrease and
#    no call starts before the previous one ends.  The
#    durations as recorded add up, per function over all ranks, to
#    between the statistics' exact total and b times it.
#  - RONDO_TIMING_LIMIT reached: the rank keeps times for its first calls
#    only, says so (rondo info), and loses no call or statistic; the same
#    from MPI_Pcontrol(3) on, at that very call.
#  - The default (aggregated) trace has no per-call times: dump --times
#    and rondo run's bad values fail with one message.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
sleepy="$top_builddir/tests/mpi/sleepy"
[ -x "$sleepy" ] || { echo "SKIP: the tracer is not built"; exit 77; }
mpi_setup
cd "$tmp" || exit 1

# traced NAME NP ARGS...: sleepy under the tracer with per-call timing.
traced() {
	name=$1 np=$2; shift 2
	RONDO_EXPECT="$tmp/$name" timeout 300 "$rondo" run -o "$name.rondo" \
		"$@" -- mpirun -np "$np" -x RONDO_EXPECT \
		${san:+-x ASAN_OPTIONS} "$sleepy" ${args:-} >"$name.out" 2>&1 ||
		{ fail "$name: exit status $?: $(tail -5 "$name.out")"; return 1; }
}

# The bound, call by call.  The program's clock and the trace's differ by
# a constant (the trace counts from rank 0's origin): c, the smallest
# difference, since a start read back is never early and the program
# reads its clock just before the call.  A call whose rank was descheduled
# between the program's read and the tracer's is late by that delay: on a
# loaded machine a few are, so up to 2 % of the calls may miss the bound
# by more than 20 us of slack, over the run and over its last 1000 calls
# (no drift: the end of the run is held to the bound as its start is).  A
# scheme whose errors add up misses it with almost every call.
for b in 1.01 1.1 1.5; do
	args=10000 traced "b$b" 2 --timing percall --time-base "$b" || continue
	expect_exit 0 "$rondo" dump --times --bounds --rank 0 "b$b.rondo"
	grep -q "^# per-call timing, base $b:" "$tmp/out" ||
		fail "b=$b: dump --times does not state the bound: $(head -3 "$tmp/out")"
	# after the calls, how sure their starts are: the largest bound,
	# and the calls whose start is less sure than they last
	tail -1 "$tmp/out" | grep -Eq "^# start bounds: the largest [0-9.]+ [mun]?s \(rank 0, call [0-9]+\); ([0-9]+ of the [0-9]+ calls start less surely|every call's start is surer)" ||
		fail "b=$b: dump --times does not end with its bounds: $(tail -1 "$tmp/out")"
	grep -v '^#' "$tmp/out" >"b$b.times"
	awk -v b="$b" '
	FILENAME ~ /starts$/ { p[$1] = $2; next }
	{
		k = $2; s[k] = $3; e[k] = $4
		bnd[k] = $5 # the bound the dump states for this call
		if (!(k in p)) next
		if (c == "" || $3 - p[k] < c) c = $3 - p[k]
	}
	END {
		for (k in p) {
			k += 0 # a number: subscripts are strings
			n++
			err = s[k] - (p[k] + c)
			lim = bnd[k] + 20e-6
			if (err > lim) { miss++; if (miss <= 3) print "call " k ": " err * 1e6 " us late, bound " lim * 1e6 }
			if (k < 1003) { e0 += err; n0++ }
			if (k >= 9003) { e1 += err; n1++; if (err > lim) miss1++ }
			if (err > worst) worst = err
		}
		printf "b=%s: %d calls, mean error %.2f us over the first 1000, %.2f us over the last 1000, worst %.1f us, %d over the bound (%d of the last 1000)\n", b, n, e0 / n0 * 1e6, e1 / n1 * 1e6, worst * 1e6, miss, miss1
		if (n != 10000 || n1 != 1000) { print "want 10000 calls"; exit 1 }
		if (miss > n / 50 || miss1 > n1 / 50) exit 1
	}' "b$b.starts" "b$b.times" >"b$b.check" ||
		fail "b=$b: $(cat "b$b.check")"
	cat "b$b.check"
	# durations as recorded: d <= d' < b d + 1 ns, so per function the sum
	# over all ranks lies between the exact total and b times it
	"$rondo" dump --times --bounds "b$b.rondo" | grep -v '^#' >"b$b.all"
	"$rondo" stats --csv - "b$b.rondo" >"b$b.stats"
	awk -F, -v b="$b" '
	FILENAME ~ /stats$/ { if (FNR > 1) { tot[$1] = $4; calls[$1] = $3 } next }
	{ f = $8; sub(/\(.*/, "", f); sum[f] += $7 * 1e9; n[f]++ }
	END {
		for (f in tot) {
			if (n[f] != calls[f]) { print f ": " n[f] " calls, stats " calls[f]; bad++ }
			# the dump prints ns exactly; 1 ns per call of rounding
			if (sum[f] < tot[f] - n[f] || sum[f] > b * tot[f] + 2 * n[f]) {
				print f ": durations add up to " sum[f] " ns, statistics " tot[f]; bad++
			}
		}
		exit bad > 0
	}' "b$b.stats" FS=' ' "b$b.all" >"b$b.dur" || fail "b=$b durations: $(head -5 "b$b.dur")"
	# on every rank, in call order: starts never decrease and no call
	# starts before the previous one ends (as the dump prints them)
	awk 'n && $1 == r && ($3 < ps || $3 < pe) {
		bad++; if (bad <= 3) print "rank " $1 " call " $2 " starts at " $3 ", the previous started at " ps " and ended at " pe
	}
	{ r = $1; ps = $3; pe = $4; n++ }
	END { if (n < 20000) { print n " calls"; bad++ } exit bad > 0 }' "b$b.all" >"b$b.order" ||
		fail "b=$b order: $(cat "b$b.order")"
done

# ---- the limit: per-call times for the first calls only -----------------
args="20000 noisy" traced limit 2 --timing percall --timing-limit 16K &&
{
	expect_exit 0 "$rondo" info limit.rondo
	grep -Eq '^ +[12] ranks? kept per-call times for part of the run only' "$tmp/out" ||
		fail "limit: rondo info does not say a rank fell back: $(grep -A1 '^timing' "$tmp/out")"
	grep -q '^calls  *40008$' "$tmp/out" || fail "limit: calls lost: $(grep '^calls' "$tmp/out")"
	expect_exit 0 "$rondo" dump --times --rank 0 limit.rondo
	timed=$(grep -v '^#' "$tmp/out" | grep -vc '^0 [0-9]* - - ')
	untimed=$(grep -c '^0 [0-9]* - - ' "$tmp/out")
	[ "$timed" -gt 1000 ] && [ "$untimed" -gt 1000 ] && [ $((timed + untimed)) -eq 20004 ] ||
		fail "limit: $timed calls with times, $untimed without"
	# the calls without times are the last ones
	grep -v '^#' "$tmp/out" | awk '/ - - / { none = 1; next } none { exit 1 }' ||
		fail "limit: a call with times after one without"
	expect_exit 0 "$rondo" stats --csv - limit.rondo
	grep -q '^MPI_Barrier,1,40000,' "$tmp/out" ||
		fail "limit: statistics lost: $(grep Barrier "$tmp/out")"
}

# ---- MPI_Pcontrol(3): per-call times end there -------------------------
# sleepy halt calls it before its 1000th loop call (call 1003): every
# rank keeps the times of calls 0 to 1003 (the Pcontrol with them), and
# none after, losing no call or statistic.
args="2000 halt" traced halt 2 --timing percall &&
{
	expect_exit 0 "$rondo" info halt.rondo
	grep -Eq '^ +2 ranks kept per-call times for part of the run only .*: 1004 of 2005 calls' "$tmp/out" ||
		fail "halt: rondo info: $(grep -A1 '^timing' "$tmp/out")"
	grep -q '^calls  *4010$' "$tmp/out" || fail "halt: calls lost: $(grep '^calls' "$tmp/out")"
	for r in 0 1; do
		expect_exit 0 "$rondo" dump --times --rank $r halt.rondo
		grep -v '^#' "$tmp/out" >"$tmp/halt.$r"
		timed=$(grep -vc "^$r [0-9]* - - " "$tmp/halt.$r")
		untimed=$(grep -c "^$r [0-9]* - - " "$tmp/halt.$r")
		[ "$timed" -eq 1004 ] && [ "$untimed" -eq 1001 ] ||
			fail "halt: rank $r: $timed calls with times, $untimed without"
		grep -q "^$r 1003 [0-9.]* [0-9.]* MPI_Pcontrol(level=3)" "$tmp/halt.$r" ||
			fail "halt: rank $r: $(grep Pcontrol "$tmp/halt.$r")"
	done
	expect_exit 0 "$rondo" stats --csv - halt.rondo
	grep -q '^MPI_Pcontrol,1,2,' "$tmp/out" &&
		[ "$(awk -F, 'NR > 1 { n += $3 } END { print n }' "$tmp/out")" -eq 4010 ] ||
		fail "halt: statistics lost: $(cat "$tmp/out")"
}

# ---- without per-call timing, and bad values ---------------------------
args=10 traced aggr 2 &&
{
	expect_exit 1 "$rondo" dump --times aggr.rondo
	grep -q 'has no per-call times' "$tmp/err" || fail "dump --times on an aggregated trace: $(cat "$tmp/err")"
	expect_exit 0 "$rondo" info aggr.rondo
	grep -q '^timing  *aggregated' "$tmp/out" || fail "info: $(grep '^timing' "$tmp/out")"
}
expect_exit 2 "$rondo" run --timing sometimes -- true
grep -q "is not 'aggregated' or 'percall'" "$tmp/err" || fail "run --timing: $(cat "$tmp/err")"
expect_exit 2 "$rondo" run --time-base 1 -- true
grep -q "not a number from 1.001 to 16" "$tmp/err" || fail "run --time-base: $(cat "$tmp/err")"
expect_exit 2 "$rondo" run --timing-limit 12X -- true
grep -q "is not a size" "$tmp/err" || fail "run --timing-limit: $(cat "$tmp/err")"

[ "$fails" -eq 0 ] && echo "timing.sh: all passed"
[ "$fails" -eq 0 ]
