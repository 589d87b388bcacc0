#!/bin/sh
# tools.sh - another PMPI tool in the traced program (tests/mpi/othertool.c,
# a library that defines MPI_Send): rank 0 says once which file it is and
# whether it comes before or after rondo; the trace is written either
# way, and with rondo first it is the program's whole call sequence.
# Without another tool, nothing is said.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
other="$top_builddir/tests/mpi/.libs/libothertool.so"
basic="$top_builddir/tests/mpi/basic"
[ -f "$other" ] || { echo "FAIL: $other not built"; exit 1; }
mpi_setup
cd "$tmp" || exit 1

# said FILE WHERE: the output names the tool once, as WHERE rondo.
said() {
	n=$(grep -c "rondo: warning: another MPI tool is loaded $2 rondo ($other defines MPI_Send)" "$1")
	[ "$n" -eq 1 ] || fail "$2: want the tool named once, got $n: $(cat "$1")"
}

# The tool first (rondo run puts its module after what LD_PRELOAD has).
RONDO_EXPECT="$tmp/before.expect" LD_PRELOAD="${san:+$san:}$other" \
	"$rondo" run -o before.rondo -- mpirun -np 2 -x RONDO_EXPECT \
	${san:+-x ASAN_OPTIONS} "$basic" 3 >before.out 2>&1 ||
	fail "tool before rondo: exit status $?: $(tail -5 before.out)"
said before.out before
"$rondo" info before.rondo >/dev/null 2>&1 || fail "tool before rondo: no trace"

# rondo first: the program's calls, call by call (tests/mpi/basic's own
# expectations).
RONDO_EXPECT="$tmp/basic.expect" mpirun -np 2 -x RONDO_EXPECT \
	-x LD_PRELOAD="$pre:$other" -x RONDO_OUT="$tmp/basic.rondo" \
	${san:+-x ASAN_OPTIONS} "$basic" 3 >basic.out 2>&1 ||
	fail "tool after rondo: exit status $?: $(tail -5 basic.out)"
said basic.out after
compare basic 2

# No other tool: no word of one.
RONDO_EXPECT="$tmp/plain.expect" "$rondo" run -o plain.rondo -- mpirun -np 2 \
	-x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$basic" 3 >plain.out 2>&1 ||
	fail "no tool: exit status $?"
grep -q "another MPI tool" plain.out && fail "no tool, but: $(grep 'another MPI tool' plain.out)"

echo "tools.sh: $fails failed"
[ "$fails" -eq 0 ]
