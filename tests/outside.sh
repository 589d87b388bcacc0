#!/bin/sh
# outside.sh - MPI calls outside MPI_Init..MPI_Finalize (tests/mpi/outside):
#  - the calls MPI allows before MPI_Init (MPI_Initialized, MPI_Get_version,
#    MPI_Get_library_version) are in the trace on every rank, in order,
#    with their values, ahead of MPI_Init, and have statistics;
#  - the program's calls after MPI_Finalize are counted, and with
#    RONDO_VERBOSE=2 every rank says how many at exit (the trace is
#    written at MPI_Finalize: they cannot be in it);
#  - past the 64 calls kept before MPI_Init, the rest are left out and
#    rank 0 says how many;
#  - the calls before MPI_Init reach the spill stream too: a job ended by
#    MPI_Abort, whose trace `rondo run` makes from the spill files, has
#    them.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
prog="$top_builddir/tests/mpi/outside"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
mpi_setup
cd "$tmp" || exit 1

# mpirun itself runs without the sanitizer runtimes (mpi.sh says why: its
# MPI_Abort banner)
mkdir bin
printf '#!/bin/sh\nunset LD_PRELOAD\nexec %s "$@"\n' "$(command -v mpirun)" >bin/mpirun
chmod +x bin/mpirun

# run NAME NP ARGS...: traced, RONDO_VERBOSE=2, output in NAME.out
run() {
	name=$1 np=$2; shift 2
	RONDO_VERBOSE=2 RONDO_EXPECT="$tmp/$name.expect" timeout 120 \
		"$rondo" run -o "$tmp/$name.rondo" -- "$tmp/bin/mpirun" -np "$np" \
		-x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$prog" "$@" >"$tmp/$name.out" 2>&1
}

# after NAME NP N: every rank counted N calls after MPI_Finalize
after() {
	r=0
	while [ $r -lt "$2" ]; do
		n=$(grep -c "^rondo: rank $r: $3 MPI calls after MPI_Finalize, not in the trace" "$tmp/$1.out")
		[ "$n" -eq 1 ] || fail "$1 rank $r: want one line of $3 calls after MPI_Finalize: $(grep 'after MPI_Finalize' "$tmp/$1.out")"
		r=$((r + 1))
	done
}

for np in 1 3; do
	run outside "$np" || fail "outside on $np ranks: exit status $?: $(tail -5 outside.out)"
	compare outside "$np"
	after outside "$np" 2
	grep -q "before MPI_Init are not in the trace" outside.out &&
		fail "outside: calls before MPI_Init said lost: $(grep 'before MPI_Init' outside.out)"
done
# statistics: one Get_version signature per rank group, 3 calls
"$rondo" stats outside.rondo >stats.out 2>&1 || fail "rondo stats: $(cat stats.out)"
grep -q "MPI_Get_version" stats.out || fail "rondo stats names no MPI_Get_version: $(cat stats.out)"

# 3 + 70 calls before MPI_Init: the first 64 kept, 9 said lost
run many 2 70 || fail "many: exit status $?: $(tail -5 many.out)"
compare many 2
[ "$(grep -c "rondo: warning: 9 MPI calls made before MPI_Init are not in the trace: it keeps the first 64" many.out)" -eq 1 ] ||
	fail "many: want rank 0 to say 9 calls lost: $(grep 'before MPI_Init' many.out)"

# MPI_Abort: the trace from the spill file has them, first
run abort 1 0 abort
"$rondo" dump abort.rondo >abort.dump 2>&1 || fail "abort: no trace from the spill file: $(tail -5 abort.out)"
grep -q "^# rank 0 was cut short here: MPI_Abort" abort.dump ||
	fail "abort: the rank's end is not marked: $(tail -1 abort.dump)"
grep -v '^#' abort.dump | cut -d' ' -f3- >abort.got
paste -d '\n' abort.expect.0 abort.got | awk '
	NR % 2 == 1 { re = $0; next }
	$0 !~ ("^" re "$") { printf "FAIL: abort call %d:\n  want %s\n  got  %s\n", NR / 2 - 1, re, $0; bad++ }
	END { exit bad > 0 }' || fails=$((fails + 1))
[ "$(wc -l <abort.got)" -eq "$(wc -l <abort.expect.0)" ] ||
	fail "abort: $(wc -l <abort.got) calls recovered, $(wc -l <abort.expect.0) made"

echo "outside.sh: $fails failed"
[ "$fails" -eq 0 ]
