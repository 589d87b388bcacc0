#!/bin/sh
# memlimit.sh - RONDO_MEMORY_LIMIT traced for real (tests/mpi/peers: random
# peers and tags, 600 000 probes and 9375 exchanges per rank on 2 ranks,
# the same calls in every run).
#  - Peak resident memory (VmHWM, which the program reads before
#    MPI_Finalize) against a traced run of 5000 probes: without a limit
#    (1G) the tracer grows by more than 4M; with --memory-limit 4M it grows
#    by less.  Under the sanitizer its quarantine is off for these runs,
#    so freed blocks are not counted.
#  - The limited trace loses no call: its calls per function are the
#    program's; rondo info's "degraded" names the limit, both ranks and
#    the call each started counting at; rondo run says where the order
#    is, and the spill folder is kept.
#  - `rondo recover` on that folder gives, rank by rank, the same calls in
#    the same order as the unlimited trace (rondo dump, compared whole).
#  - A regular run of as many calls (a loop) stays far under the limit:
#    no "degraded", no spill folder left.
#  - A bad --memory-limit is one usage error; a bad RONDO_MEMORY_LIMIT is
#    one warning, and the default is used.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
peers="$top_builddir/tests/mpi/peers"
[ -x "$peers" ] || { echo "SKIP: the tracer is not built"; exit 77; }
mpi_setup
cd "$tmp" || exit 1
[ -z "$san" ] ||
	ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
calls=600000

# traced NAME LIMIT ARGS...: peers under rondo run (LIMIT "": no option);
# its output in NAME.out
traced() {
	name=$1 limit=$2
	shift 2
	timeout 600 "$rondo" run -o "$name.rondo" \
		${limit:+--memory-limit "$limit"} \
		-- mpirun -np 2 ${san:+-x ASAN_OPTIONS} "$peers" "$@" \
		>"$name.out" 2>&1 ||
		{ fail "$name: exit status $?: $(tail -5 "$name.out")"; return 1; }
}

# hwm NAME RANK: the rank's peak resident set in kB
hwm() {
	awk -v r="$2" '$1 == "rank" && $2 == r { print $NF }' "$1.out"
}

traced base 1G 5000 &&
	traced unlimited 1G "$calls" &&
	traced limited 4M "$calls" || {
	echo "memlimit.sh: $fails failed"
	exit 1
}

# ---- memory ---------------------------------------------------------------
for r in 0 1; do
	b=$(hwm base $r) u=$(hwm unlimited $r) l=$(hwm limited $r)
	echo "rank $r: peak resident $b kB traced with 5000 probes; $calls: $u kB without a limit, $l kB with 4M"
	[ -n "$b" ] && [ -n "$u" ] && [ -n "$l" ] ||
		{ fail "rank $r: no peak resident set printed"; continue; }
	[ $((u - b)) -gt 4096 ] ||
		fail "rank $r: without a limit the tracer grew by $((u - b)) kB only: the test does not reach the limit"
	[ $((l - b)) -le 4096 ] ||
		fail "rank $r: with RONDO_MEMORY_LIMIT=4M the tracer grew by $((l - b)) kB"
done

# ---- what the limited trace says -----------------------------------------
expect_exit 0 "$rondo" info limited.rondo
grep -q "^  degraded  *RONDO_MEMORY_LIMIT=4M reached on 2 ranks: [0-9]* calls kept as counts per signature, not in order (rank 0 from call [0-9]*, rank 1 from call [0-9]*); their order is in the spill files$" "$tmp/out" ||
	fail "info: no degraded line: $(grep -i degraded "$tmp/out")"
counted=$(sed -n 's/.*reached on 2 ranks: \([0-9]*\) calls.*/\1/p' "$tmp/out")
[ -n "$counted" ] && [ "$counted" -gt 1000000 ] ||
	fail "info: ${counted:-no} calls counted, want most of them"
grep -q "^calls  *1218758$" "$tmp/out" ||
	fail "info: $(grep '^calls' "$tmp/out"), want 1218758"
expect_exit 0 "$rondo" stats --csv - limited.rondo
for f in "MPI_Iprobe 1200000" "MPI_Sendrecv 18750"; do
	set -- $f
	grep -q "^$1,[0-9]*,$2," "$tmp/out" ||
		fail "stats: $(grep "^$1," "$tmp/out"), want $2 calls"
done
grep -q "^rondo: the order of the calls past RONDO_MEMORY_LIMIT is in $tmp/limited.spill: rondo recover" limited.out ||
	fail "rondo run did not say where the order is: $(grep '^rondo' limited.out)"
[ -f limited.spill/rank-0.spill ] && [ -f limited.spill/rank-1.spill ] ||
	fail "the spill folder was not kept: $(ls)"

# ---- the order, recovered ------------------------------------------------
expect_exit 0 "$rondo" recover limited.spill -o recovered.rondo
for r in 0 1; do
	"$rondo" dump --rank $r unlimited.rondo >"unlimited.$r" &&
		"$rondo" dump --rank $r recovered.rondo >"recovered.$r" ||
		{ fail "rank $r: dump failed"; continue; }
	[ "$(wc -l <"unlimited.$r")" -eq 609379 ] ||
		fail "rank $r: $(wc -l <"unlimited.$r") calls in the unlimited trace"
	cmp -s "unlimited.$r" "recovered.$r" ||
		fail "rank $r: the recovered calls differ from the unlimited trace's: $(diff "unlimited.$r" "recovered.$r" | head -4)"
done

# ---- a loop stays under it -----------------------------------------------
traced regular 4M "$calls" regular && {
	expect_exit 0 "$rondo" info regular.rondo
	! grep -q degraded "$tmp/out" ||
		fail "regular: $(grep degraded "$tmp/out")"
	[ ! -e regular.spill ] || fail "regular: its spill folder was left"
}

# ---- bad values ----------------------------------------------------------
expect_exit 2 "$rondo" run --memory-limit 12X -- true
usage_error run "^rondo: --memory-limit: '12X' is not a size"
RONDO_MEMORY_LIMIT=lots traced badenv "" 100 &&
	grep -q "^rondo: warning: RONDO_MEMORY_LIMIT='lots' is not a size" badenv.out ||
	fail "bad RONDO_MEMORY_LIMIT: $(grep '^rondo' badenv.out)"

[ "$fails" -eq 0 ] && echo "memlimit.sh: all passed"
[ "$fails" -eq 0 ]
