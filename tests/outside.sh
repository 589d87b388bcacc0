#!/bin/sh
# outside.sh - MPI calls outside MPI_Init..MPI_Finalize (tests/mpi/outside):
#  - the calls MPI allows before MPI_Init (MPI_Initialized, MPI_Get_version,
#    MPI_Get_library_version) are in the trace on every rank, in order,
#    with their values, ahead of MPI_Init, and have statistics;
#  - those it allows after MPI_Finalize (MPI_Finalized, MPI_Get_version)
#    are in the trace too, at the end of each rank's calls: each rank
#    keeps them in its after file, which `rondo run` adds to the trace
#    written at MPI_Finalize (and then removes), and `rondo recover` adds
#    when the job was launched without it (once: a second time is
#    refused; another job's trace is not touched);
#  - past the 64 calls kept before MPI_Init, or after MPI_Finalize, the
#    rest are left out and rank 0 says how many (and the trace, for
#    those after);
#  - with per-call timing, the calls after MPI_Finalize have their times;
#  - with per-rank times summarized, the spread of the signatures only
#    they call;
#  - the calls before MPI_Init reach the spill stream too: a job ended by
#    MPI_Abort, whose trace `rondo run` makes from the spill files, has
#    them.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
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

# after NAME NP N: the trace has N calls after MPI_Finalize from the NP
# ranks, added by rondo run, whose files are gone
after() {
	grep -q "^rondo: $tmp/$1.rondo: [0-9]* bytes, $3 calls after MPI_Finalize added from $2 rank" "$tmp/$1.out" ||
		fail "$1: rondo run did not add $3 calls after MPI_Finalize: $(grep -i 'after' "$tmp/$1.out")"
	[ -e "$tmp/$1.spill" ] && fail "$1: the after files stay: $(ls "$tmp/$1.spill")"
	"$rondo" info "$tmp/$1.rondo" >"$tmp/$1.info" 2>&1 || fail "$1: rondo info: $(cat "$tmp/$1.info")"
	grep -q "^  after  *$3 calls on rank" "$tmp/$1.info" ||
		fail "$1: info says nothing of the calls after MPI_Finalize: $(grep after "$tmp/$1.info")"
}

for np in 1 3; do
	run outside "$np" 0 || fail "outside on $np ranks: exit status $?: $(tail -5 outside.out)"
	compare outside "$np"
	after outside "$np" $((2 * np))
	grep -q "not in the trace" outside.out &&
		fail "outside: calls said lost: $(grep 'not in the trace' outside.out)"
	grep -q "MPI_Finalized  *$np " outside.info ||
		fail "outside: info counts no MPI_Finalized call per rank: $(grep MPI_Finalized outside.info)"
done
# statistics: one Get_version signature per rank group, 3 calls
"$rondo" stats outside.rondo >stats.out 2>&1 || fail "rondo stats: $(cat stats.out)"
grep -q "MPI_Get_version" stats.out || fail "rondo stats names no MPI_Get_version: $(cat stats.out)"
grep -q "MPI_Finalized" stats.out || fail "rondo stats names no MPI_Finalized: $(cat stats.out)"

# per-rank times summarized (past RONDO_RANKTIME_EXACT ranks): the spread
# of MPI_Finalized, which only calls after MPI_Finalize make, is there
RONDO_RANKTIME_EXACT=1 run summed 3 0 || fail "summed: exit status $?: $(tail -5 summed.out)"
compare summed 3
after summed 3 6
grep -q "^  ranksum " summed.info || fail "summed: no ranksum section: $(grep -A14 '^sections' summed.info)"
"$rondo" contention --csv summed.csv summed.rondo 2>&1 || fail "summed: rondo contention failed"
awk -F, '$2 == "MPI_Finalized" && $9 == 3 { ok = 1 } END { exit !ok }' summed.csv ||
	fail "summed: MPI_Finalized not on 3 ranks: $(grep MPI_Finalized summed.csv)"

# with per-call times: the calls after MPI_Finalize have theirs (their
# order against the calls before is as good as the format's bound: a
# start read back is late by up to 10% of the time from its reference)
RONDO_TIMING=percall run timed 2 0 || fail "timed: exit status $?: $(tail -5 timed.out)"
compare timed 2
after timed 2 4
grep -q "with their per-call times" timed.info ||
	fail "timed: the calls after MPI_Finalize have no per-call times: $(grep after timed.info)"
grep -q "part of the run only" timed.info &&
	fail "timed: info says ranks lack per-call times: $(grep -A1 '^timing' timed.info)"
for r in 0 1; do
	"$rondo" dump --times --rank $r timed.rondo | grep -v '^#' | tail -n 3 | awk -v r=$r '
		$3 == "-" || $4 + 0 < $3 + 0 { printf "FAIL: timed rank %d: no times: %s\n", r, $0; bad = 1 }
		END { exit bad }' || fails=$((fails + 1))
done

# 3 + 70 calls before MPI_Init: the first 64 kept, 9 said lost; 2 + 70
# after MPI_Finalize: 64 kept, 8 said lost, by rank 0 and the trace
run many 2 70 70 || fail "many: exit status $?: $(tail -5 many.out)"
compare many 2
[ "$(grep -c "rondo: warning: 9 MPI calls made before MPI_Init are not in the trace: it keeps the first 64" many.out)" -eq 1 ] ||
	fail "many: want rank 0 to say 9 calls lost: $(grep 'before MPI_Init' many.out)"
after many 2 128
[ "$(grep -c "rondo: rank 0: 8 MPI calls after MPI_Finalize not in the trace (past the 64 kept)" many.out)" -eq 1 ] ||
	fail "many: want rank 0 to say 8 calls after MPI_Finalize lost: $(grep 'after MPI_Finalize' many.out)"
grep -q "; 16 more were not kept" many.info ||
	fail "many: the trace does not say 16 calls after MPI_Finalize were not kept: $(grep after many.info)"

# Launched without rondo run: the after files stay, rank 0 says where and
# how to add them; rondo recover does, once.
RONDO_EXPECT="$tmp/plain.expect" timeout 120 "$tmp/bin/mpirun" -np 2 \
	-x LD_PRELOAD="${san:+$san:}$lib" -x RONDO_OUT="$tmp/plain.rondo" \
	-x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$prog" 0 >plain.out 2>&1 ||
	fail "plain: exit status $?: $(tail -5 plain.out)"
grep -q "^rondo: rank 0: 2 calls after MPI_Finalize in $tmp/plain.spill/rank-0.after; rondo recover $tmp/plain.spill adds every rank's to the trace" plain.out ||
	fail "plain: rank 0 does not say where its calls after MPI_Finalize are: $(grep -i after plain.out)"
[ -s plain.spill/rank-0.after ] && [ -s plain.spill/rank-1.after ] ||
	fail "plain: no after files: $(ls plain.spill 2>&1)"
"$rondo" dump --rank 1 plain.rondo | tail -n 1 | grep -q "MPI_Finalize()" ||
	fail "plain: before rondo recover, rank 1 does not end in MPI_Finalize: $("$rondo" dump --rank 1 plain.rondo | tail -n 1)"
cp plain.rondo plain.before
"$rondo" recover plain.spill >recover.out 2>&1 || fail "plain: rondo recover: $(cat recover.out)"
grep -q "2 ranks" recover.out || fail "plain: rondo recover says: $(cat recover.out)"
compare plain 2
# twice: refused, the trace as it was
cp plain.rondo plain.once
expect_exit 1 "$rondo" recover plain.spill
grep -q "holds its calls after MPI_Finalize already" "$tmp/err" ||
	fail "plain: a second rondo recover says: $(cat "$tmp/err")"
cmp -s plain.rondo plain.once || fail "plain: a second rondo recover changed the trace"
# another job's trace (1 rank): not touched
run abort0 1 0 abort
cp abort0.rondo abort0.before
expect_exit 1 "$rondo" recover -o abort0.rondo plain.spill
grep -q "another job's: left out" "$tmp/err" ||
	fail "plain: after files added to another job's trace: $(cat "$tmp/err")"
cmp -s abort0.rondo abort0.before || fail "plain: another job's trace was changed"
# an after file whose statistics do not hold for its calls (well formed,
# its checks right) is left out, named; the trace is not touched
mkdir odd.spill
"${PYTHON3:-python3}" "$top_srcdir/tests/spillmod.py" plain.spill/rank-0.after odd.spill/rank-0.after stats-total ||
	fail "spillmod.py failed"
cp plain.before other.rondo
expect_exit 1 "$rondo" recover -o other.rondo odd.spill
grep -q "rank-0.after: statistics that do not hold for its calls: left out" "$tmp/err" ||
	fail "odd: an after file with impossible statistics says: $(cat "$tmp/err")"
cmp -s other.rondo plain.before || fail "odd: the trace was changed"
# a cut after file is left out, named
mkdir cut.spill
head -c 60 plain.spill/rank-0.after >cut.spill/rank-0.after
cp plain.before other.rondo
expect_exit 1 "$rondo" recover -o other.rondo cut.spill
grep -q "rank-0.after: damaged before its first complete spill" "$tmp/err" ||
	fail "cut: a cut after file says: $(cat "$tmp/err")"
cmp -s other.rondo plain.before || fail "cut: the trace was changed"

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
