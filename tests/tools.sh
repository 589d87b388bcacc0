#!/bin/sh
# tools.sh - another PMPI tool in the traced program (tests/mpi/othertool.c,
# a library that defines MPI_Send and passes it on to the next MPI_Send,
# or with OTHERTOOL_PMPI=1 to PMPI_Send): rank 0 says once which file it
# is and whether it comes before or after rondo; the trace is written
# either way, and with rondo first it is the program's whole call
# sequence.  Without another tool, nothing is said.
#
# Stacking must not change what rondo records of a Fortran program
# (tests/mpi/fsuite.F90, use mpi and use mpi_f08): with the tool before
# rondo (passing calls on to rondo's, or to PMPI_) and after it, the
# trace has the same calls, call by call, as traced alone.  MPICH's
# bindings call the C MPI_Send, which reaches rondo's through the tool:
# once recorded a second time, as the program's own.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir/..}"
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

# The tool first (rondo run puts its module after what LD_PRELOAD has):
# what it passes on is recorded, the program's whole call sequence.
RONDO_EXPECT="$tmp/before.expect" LD_PRELOAD="${san:+$san:}$other" \
	"$rondo" run -o "$tmp/before.rondo" -- mpirun -np 2 -x RONDO_EXPECT \
	${san:+-x ASAN_OPTIONS} "$basic" 3 >before.out 2>&1 ||
	fail "tool before rondo: exit status $?: $(tail -5 before.out)"
said before.out before
"$rondo" info before.rondo >/dev/null 2>&1 || fail "tool before rondo: no trace"
compare before 2

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

# ---- a Fortran program, the tool on either side ------------------------
if [ -z "${MPIFC:-}" ]; then
	echo "tools.sh: NOTE: no Fortran compiler for MPI (MPIFC): the Fortran program is not run"
	echo "tools.sh: $fails failed"
	[ "$fails" -eq 0 ]
	exit
fi
for b in USE_MPI F08; do
	"$MPIFC" -cpp -DBIND_$b -o fsuite_$b "$top_srcdir/tests/mpi/fsuite.F90" \
		>fsuite_$b.cc 2>&1 || { fail "$MPIFC fsuite.F90 -DBIND_$b: $(head -20 fsuite_$b.cc)"; exit 1; }
done

# fortran NAME BIND HOW: fsuite_BIND on 2 ranks with RONDO_VERBOSE=2,
# traced alone, with the tool before rondo (before: passing calls on to
# rondo's; pmpi: to PMPI_) or after it, into NAME.rondo; its calls (rank
# and call, but the Waitsome loop, whose length varies from run to run)
# in NAME.calls.  Each rank's Waitsome calls are as many as it says it
# made, and it keeps one call after MPI_Finalize (MPI_Finalized, in the
# trace once `rondo run`, or by hand `rondo recover`, adds it).
fortran() {
	name=$1 bind=$2 how=$3
	first=$san pmpi=0
	case $how in
	before) first="${san:+$san:}$other" ;;
	pmpi) first="${san:+$san:}$other" pmpi=1 ;;
	esac
	if [ "$how" = after ]; then
		set -- mpirun -x LD_PRELOAD="$pre:$other" -x RONDO_OUT="$tmp/$name.rondo"
	else
		set -- "$rondo" run -o "$name.rondo" -- mpirun
	fi
	LD_PRELOAD=$first OTHERTOOL_PMPI=$pmpi timeout 180 "$@" -np 2 \
		-x FSUITE_ZERO_BASED -x OTHERTOOL_PMPI -x RONDO_VERBOSE=2 \
		${san:+-x ASAN_OPTIONS} "./fsuite_$bind" >"$name.out" 2>&1 ||
		{ fail "$name: exit status $?: $(tail -5 "$name.out")"; return 1; }
	[ "$how" = alone ] || said "$name.out" "$([ "$how" = after ] && echo after || echo before)"
	[ "$(grep -c "^fsuite: rank [01] OK" "$name.out")" -eq 2 ] ||
		fail "$name: not 2 ranks OK: $(cat "$name.out")"
	# without rondo run, the call after MPI_Finalize is added by hand
	if [ "$how" = after ] && ! "$rondo" recover "$name.spill" >"$name.rec" 2>&1; then
		fail "$name: rondo recover $name.spill: $(cat "$name.rec")"
	fi
	"$rondo" dump "$name.rondo" >"$name.dump" || { fail "$name: no trace"; return 1; }
	grep -v ' MPI_Waitsome(' "$name.dump" | cut -d' ' -f1,3- >"$name.calls"
	for r in 0 1; do
		made=$(sed -n "s/^fsuite: rank $r OK (\([0-9]*\) waitsome)/\1/p" "$name.out")
		got=$(grep -c "^$r [0-9]* MPI_Waitsome(" "$name.dump")
		[ "$made" = "$got" ] || fail "$name rank $r: $got Waitsome calls recorded, ${made:-?} made"
		grep -q "^rondo: rank $r: 1 call after MPI_Finalize in " "$name.out" ||
			fail "$name rank $r: want 1 call after MPI_Finalize: $(grep 'after MPI_Finalize' "$name.out")"
	done
}

export FSUITE_ZERO_BASED=0
for b in USE_MPI F08; do
	# MPICH 4.0's mpi_f08 gives the program C's 0-based request indices
	# (fortran.sh)
	[ $b = F08 ] && "$rondo" info alone_USE_MPI.rondo 2>/dev/null |
		grep -q '^  mpi  *MPICH Version: 4\.0\.' && FSUITE_ZERO_BASED=1
	fortran alone_$b $b alone || continue
	for how in before pmpi after; do
		fortran ${how}_$b $b $how || continue
		if cmp -s alone_$b.calls ${how}_$b.calls; then
			echo "tools.sh: ${how}_$b: $(wc -l <${how}_$b.calls) calls and the Waitsome loop, as traced alone"
		else
			fail "${how}_$b: not the calls traced alone ($(wc -l <${how}_$b.calls) and $(wc -l <alone_$b.calls)): $(diff alone_$b.calls ${how}_$b.calls | head -6)"
		fi
	done
done

echo "tools.sh: $fails failed"
[ "$fails" -eq 0 ]
