#!/bin/sh
# replay.sh - rondo-replay and rondo proxy: every MPI program of tests/mpi/
# that ends well is traced, its trace replayed under the tracer, its proxy
# written, compiled (with the build's compiler, warnings as errors, the
# sanitizers of a sanitizer build) and run under the tracer, and `rondo
# diff --ignore buffers` between the original's trace and each re-trace
# must say "same communication" (every rank's calls equal, call by call,
# parameters and statuses included: wildcards matched as in the original,
# polls that failed failing again), with the watchdog on.  Then the refusals: a function it
# cannot issue (named before the run), another rank count, a trace that
# deadlocks (the watchdog names every rank's call and where it is in the
# grammar), usage errors and a
# damaged trace, each with its exit status.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
replay="$top_builddir/replay/rondo-replay"
mktrace="$top_builddir/tests/mktrace"
[ -x "$replay" ] || { echo "FAIL: $replay not built"; exit 1; }

# same NAME NP ARGS...: traces tests/mpi/NAME on NP ranks, then
# replayed (lib.sh).
same() {
	name=$1; np=$2; shift 2
	RONDO_EXPECT="$tmp/$name.expect" "$rondo" run -o "$tmp/$name.rondo" -- \
		mpirun -np "$np" -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/mpi/$name" "$@" >"$tmp/$name.out" 2>&1 ||
		{ fail "$name: the program failed: $(tail -5 "$tmp/$name.out")"; return; }
	replayed "$name" "$np"
}

same basic 4 50
same p2p 4              # wildcards (Irecv, Recv, probes), persistent, cancel
same coll 4             # every collective, blocking and not
same collloop 4
same comms 4            # dup, split, create, groups, intercommunicators
same topo 4             # Cartesian and graph topologies, neighbourhood
same types 2 100        # derived datatypes, MPI_BOTTOM addresses
same buffers 2 10
same completion 3 10    # Wait/Test families
same waitany 4          # Waitany completing in the original's order
same testsome 4         # polling loops of Testsome
# one-sided: fence, lock, PSCW.  Not under MPICH with the sanitizers:
# MPICH 4.0's puts into the 28-byte window MPI_Alloc_mem gives land past
# its end (README), which the sanitizer sees in the replay (its malloc is
# the sanitizer's) and not in the program.
if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ -n "$san" ]; then
	echo "not run: rma, MPICH with the sanitizers (MPICH's puts past a small window)"
else
	same rma 3
fi
same stencil 4
same stencil3d 4
same a2av 4
same irregular 4
same shuffle 4
same slowrank 4
same lazy 2             # MPI started with PMPI_Init
same thread 2           # calls from threads; MPI_Initialized after Finalize
mkdir -p "$tmp/io"
same io 2 "$tmp/io"     # MPI-IO
same transpose 4        # partners that follow the rank by no rule
same colorsplit 4
# calls MPI refused (a rank out of range), error handlers.  Not against
# MPICH, whose error codes differ from one run of a program to the next
# (a ring slot and a run-specific id), as do its error strings (the failed
# call's buffer address): two traces of the program itself differ there.
if [ "${MPI_FLAVOR:-openmpi}" = mpich ]; then
	echo "not run: errors, MPICH (its error codes differ from run to run)"
else
	same errors 2
	# its send to rank `size` and receive from -5, which MPI refused,
	# are no message (librondo's RONDO_PEER_INVALID) for the matrix, the
	# waits and the export, not an unresolved one
	"$rondo" matrix "$tmp/errors.rondo" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ] &&
		[ "$(head -1 "$tmp/out")" = "2 ranks, 0 messages, 0 bytes, 0 pairs communicating" ] ||
		fail "errors: the matrix of calls MPI refused: $(cat "$tmp/out" "$tmp/err")"
	RONDO_EXPECT="$tmp/errt.expect" "$rondo" run --timing percall -o "$tmp/errt.rondo" -- \
		mpirun -np 2 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/mpi/errors" >"$tmp/out" 2>&1 ||
		fail "errors with per-call times: $(tail -5 "$tmp/out")"
	"$rondo" waits "$tmp/errt.rondo" >"$tmp/out" 2>&1 &&
		grep -q "^errors: 2 ranks, 0 messages matched between 0 pairs of ranks$" "$tmp/out" ||
		fail "errors: the waits of calls MPI refused: $(cat "$tmp/out")"
	"$rondo" export --chrome "$tmp/errt.json" "$tmp/errt.rondo" >"$tmp/out" 2>&1 &&
		grep -q "unmatched: 0 sends, 0 receives; 0 to or from ranks not exported; 0 not resolved by the trace" "$tmp/out" ||
		fail "errors: the export of calls MPI refused: $(cat "$tmp/out")"
fi
same outside 2          # calls before MPI_Init and after MPI_Finalize
same peers 4 2000       # random peers, probes
same ftwin 2            # the Fortran suite's C twin
same matrix 4 wildcard "$tmp/wildcard.csv"  # Irecv(ANY_SOURCE, ANY_TAG) in a rule used 4 ways
same stencil 16 10 8    # 16 ranks: tables by rank past one line, 9 rank groups
same shifted 4 20 20000 # rank groups computing before different calls
same xor 6 5            # partners rank ^ k, some with none
same multipart 4 10     # diagonal exchanges on a torus
same timing 2 100       # a receive that waits 100 ms for its message
same late 4 10 3        # ranks late by a sleep, a wildcard receive
same sleepy 2 500       # uneven sleeps between four signatures

# The time before calls per rank group: in shifted, rank 0 (group 0)
# works 20 ms before each Allreduce, ranks 1-3 (group 1) as long before
# each Barrier.  The original, the replay and the proxy each show it per
# group (a mean over all ranks would spin 5 ms before every Allreduce and
# 15 ms before every Barrier, on every rank); --compute scale=0.5 halves
# it, --compute none drops it.
# gapmean FILE GROUP FUNCTION: the group's mean time before FUNCTION, ns.
gapmean() {
	"$rondo" stats --before --group "$2" --csv - "$1" 2>>"$tmp/gap.err" |
		awk -F, -v f="$3" '$1 == f { printf "%d\n", $5 }'
}
# shifted_gaps WHAT FILE LO HI: group 0's mean before MPI_Allreduce and
# group 1's before MPI_Barrier between LO and HI ns, and each at least 3
# times the other call's.
shifted_gaps() {
	f=$2
	a0=$(gapmean "$f" 0 MPI_Allreduce); b0=$(gapmean "$f" 0 MPI_Barrier)
	a1=$(gapmean "$f" 1 MPI_Allreduce); b1=$(gapmean "$f" 1 MPI_Barrier)
	got="group 0: $a0 and $b0 ns, group 1: $a1 and $b1 ns"
	if [ -z "$a0" ] || [ -z "$b0" ] || [ -z "$a1" ] || [ -z "$b1" ]; then
		fail "$1: no time before calls per group: $(cat "$tmp/gap.err")"
	elif [ "$a0" -lt "$3" ] || [ "$a0" -gt "$4" ] || [ "$b1" -lt "$3" ] ||
		[ "$b1" -gt "$4" ] || [ "$a0" -lt $((3 * b0)) ] || [ "$b1" -lt $((3 * a1)) ]; then
		fail "$1: want group 0 computing $3 to $4 ns before MPI_Allreduce, group 1 before MPI_Barrier, 3 times the other; got means $got"
	else
		echo "ok: $1: time before MPI_Allreduce and MPI_Barrier, $got"
	fi
}
shifted_gaps original "$tmp/shifted.rondo" 19000000 40000000
shifted_gaps replay "$tmp/shifted.replay.rondo" 10000000 40000000
shifted_gaps proxy "$tmp/shifted_proxy.rondo" 10000000 40000000
"$rondo" run -o "$tmp/half.rondo" -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} \
	"$replay" --compute scale=0.5 "$tmp/shifted.rondo" >"$tmp/half.out" 2>&1 ||
	fail "--compute scale=0.5: $(cat "$tmp/half.out")"
shifted_gaps "replay --compute scale=0.5" "$tmp/half.rondo" 5000000 17000000
"$rondo" run -o "$tmp/half.rondo" -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} \
	"$tmp/shifted_proxy" --compute scale=0.5 >"$tmp/half.out" 2>&1 ||
	fail "proxy --compute scale=0.5: $(cat "$tmp/half.out")"
shifted_gaps "proxy --compute scale=0.5" "$tmp/half.rondo" 5000000 17000000
for run in "$replay --compute none $tmp/shifted.rondo" "$tmp/shifted_proxy --compute none"; do
	# shellcheck disable=SC2086 # a command and its arguments
	"$rondo" run -o "$tmp/none.rondo" -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} \
		$run >"$tmp/none.out" 2>&1 || fail "$run: $(cat "$tmp/none.out")"
	a0=$(gapmean "$tmp/none.rondo" 0 MPI_Allreduce)
	b1=$(gapmean "$tmp/none.rondo" 1 MPI_Barrier)
	[ -n "$a0" ] && [ -n "$b1" ] && [ "$a0" -lt 5000000 ] && [ "$b1" -lt 5000000 ] ||
		fail "$run: the 20 ms of work still spun: $a0 and $b1 ns"
done

# --polls once: the polls that failed are not replayed, nothing else
# changes (the one that succeeded waits instead).
"$rondo" run -o "$tmp/once.rondo" -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} \
	"$replay" --polls once "$tmp/testsome.rondo" >"$tmp/once.out" 2>&1 ||
	fail "--polls once: $(cat "$tmp/once.out")"
"$rondo" diff --ignore buffers "$tmp/testsome.rondo" "$tmp/once.rondo" >"$tmp/once.diff"
funcs=$(sed -n '/^calls per function and rank:/,/^$/p' "$tmp/once.diff" | grep '^  MPI_' | sort -u | tr -d ' ')
[ "$funcs" = "MPI_Testsome" ] || fail "--polls once: want fewer MPI_Testsome calls only, got: $(cat "$tmp/once.diff")"
# ...and in the proxy
"$rondo" run -o "$tmp/once.rondo" -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} \
	"$tmp/testsome_proxy" --polls once >"$tmp/once.out" 2>&1 ||
	fail "proxy --polls once: $(cat "$tmp/once.out")"
"$rondo" diff --ignore buffers "$tmp/testsome.rondo" "$tmp/once.rondo" >"$tmp/once.diff"
funcs=$(sed -n '/^calls per function and rank:/,/^$/p' "$tmp/once.diff" | grep '^  MPI_' | sort -u | tr -d ' ')
[ "$funcs" = "MPI_Testsome" ] || fail "proxy --polls once: want fewer MPI_Testsome calls only, got: $(cat "$tmp/once.diff")"

# --check: what can be replayed, and whether it pairs up; no MPI run.
"$replay" --check "$tmp/p2p.rondo" >"$tmp/check.out" 2>"$tmp/err" ||
	fail "--check refuses p2p: $(cat "$tmp/err")"
grep -Eq "every call can be replayed; [1-9][0-9]* messages and [0-9]+ collective calls pair up" \
	"$tmp/check.out" || fail "--check: $(cat "$tmp/check.out")"

# A function it cannot issue: named before anything runs, status 3.
"$mktrace" --replay unknown "$tmp/unknown.rondo" || fail "mktrace --replay unknown"
"$replay" --check "$tmp/unknown.rondo" >/dev/null 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "^  MPI_Frobnicate (1 call signature)$" "$tmp/err" ||
	fail "an unknown function: want status 3 naming it, got: $(cat "$tmp/err")"
mpirun -np 2 "$replay" "$tmp/unknown.rondo" >"$tmp/out" 2>&1
[ $? -ne 0 ] && grep -q "cannot replay" "$tmp/out" ||
	fail "an unknown function: the run went on: $(cat "$tmp/out")"

# Another rank count than the trace's: refused, status 3.
mpirun -np 3 "$replay" "$tmp/basic.rondo" >"$tmp/out" 2>&1
[ $? -ne 0 ] && grep -q "the trace is of 4 ranks, this run has 3: run it with mpirun -np 4" "$tmp/out" ||
	fail "3 ranks for a 4-rank trace: $(cat "$tmp/out")"

# A trace whose ranks each Ssend first: pairs up, but hangs; the watchdog
# prints each rank's call and ends the run with status 4.
"$mktrace" --replay deadlock "$tmp/dead.rondo" || fail "mktrace --replay deadlock"
timeout 120 mpirun -np 2 "$replay" --watchdog 2 "$tmp/dead.rondo" >"$tmp/out" 2>&1
status=$?
[ $status -ne 0 ] && [ $status -ne 124 ] &&
	grep -q "rank 0: no progress for 2 s, inside call 1: MPI_Ssend(.*dest=1, .* (at R0 item 1)$" "$tmp/out" &&
	grep -q "rank 1: no progress for 2 s, inside call 1: MPI_Ssend(.*dest=0," "$tmp/out" ||
	fail "the watchdog: status $status, $(cat "$tmp/out")"

# Usage errors (2) and a damaged trace (1): one message each.
"$replay" --compute fast "$tmp/basic.rondo" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^rondo-replay: --compute: want scale=F or none, not 'fast'$" "$tmp/err" ||
	fail "--compute fast: $(cat "$tmp/err")"
"$replay" --watchdog 0 "$tmp/basic.rondo" 2>"$tmp/err"
[ $? -eq 2 ] || fail "--watchdog 0: $(cat "$tmp/err")"
"$replay" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no trace given" "$tmp/err" || fail "no trace: $(cat "$tmp/err")"
head -c 300 "$tmp/basic.rondo" >"$tmp/cut.rondo"
"$replay" --check "$tmp/cut.rondo" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^rondo-replay: .*cut.rondo" "$tmp/err" ||
	fail "a truncated trace: want status 1 and one line, got: $(cat "$tmp/err")"

# The proxies: wildcard receives whose completion is elsewhere in the
# grammar posted as they matched (p2p's Irecv(MPI_ANY_SOURCE) loop)...
grep -q "; [1-9][0-9]* wildcard receives posted as matched, 0 read ahead at run time$" "$tmp/p2p.gen" &&
	grep -q "px_call_matched(" "$tmp/p2p_proxy.c" ||
	fail "p2p's proxy: its wildcards not resolved: $(cat "$tmp/p2p.gen")"
# ...and read ahead at run time where the match depends on where the
# receives' rule is used (matrix wildcard: one rule of four Irecv, each use
# followed by its own Waitall).
grep -q "; [0-9]* wildcard receives posted as matched, [1-9][0-9]* read ahead at run time$" "$tmp/matrix.gen" &&
	grep -q "px_call(3); .*: a wildcard, its match read ahead at run time" "$tmp/matrix_proxy.c" ||
	fail "matrix wildcard's proxy: no wildcard read ahead: $(cat "$tmp/matrix.gen")"
# ...refuses what rondo-replay refuses, with the same status (3).
"$rondo" proxy -o "$tmp/unknown.c" "$tmp/unknown.rondo" 2>"$tmp/err"
[ $? -eq 3 ] && grep -q "^rondo: proxy: .*unknown.rondo: the trace has calls it cannot replay: MPI_Frobnicate$" "$tmp/err" &&
	[ ! -e "$tmp/unknown.c" ] ||
	fail "rondo proxy of an unknown function: want status 3 naming it, got: $(cat "$tmp/err")"
mpirun -np 3 "$tmp/basic_proxy" >"$tmp/out" 2>&1
[ $? -ne 0 ] && grep -q "the trace is of 4 ranks, this run has 3: run it with mpirun -np 4" "$tmp/out" ||
	fail "basic's proxy on 3 ranks: $(cat "$tmp/out")"
"$rondo" proxy -o "$tmp/dead_proxy.c" "$tmp/dead.rondo" 2>"$tmp/err" &&
	# shellcheck disable=SC2086 # flags are lists
	$CC $SAN_CFLAGS $MPI_CFLAGS "$tmp/dead_proxy.c" -o "$tmp/dead_proxy" $MPI_LIBS -lpthread 2>>"$tmp/err" ||
	fail "the deadlock's proxy: $(cat "$tmp/err")"
timeout 120 mpirun -np 2 "$tmp/dead_proxy" --watchdog 2 >"$tmp/out" 2>&1
status=$?
[ $status -ne 0 ] && [ $status -ne 124 ] &&
	grep -q "rank 0: no progress for 2 s, inside call 1: MPI_Ssend (signature" "$tmp/out" &&
	grep -q "rank 1: no progress for 2 s, inside call 1: MPI_Ssend (signature" "$tmp/out" ||
	fail "the proxy's watchdog: status $status, $(cat "$tmp/out")"
"$tmp/basic_proxy" --compute fast >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "compute: want scale=F or none, not 'fast'" "$tmp/err" ||
	fail "a proxy's --compute fast: $(cat "$tmp/err")"
# ...and its own usage errors (2), a damaged trace (1), an unwritable
# output (1): one message each, nothing left behind.
"$rondo" proxy 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "no trace given" "$tmp/err" &&
	grep -q "^Try 'rondo proxy --help' for more information.$" "$tmp/err" ||
	fail "rondo proxy, no trace: $(cat "$tmp/err")"
# -o -: the proxy on standard output, the report on standard error
"$rondo" proxy -o - "$tmp/basic.rondo" >"$tmp/stdout.c" 2>"$tmp/err" &&
	cmp -s "$tmp/stdout.c" "$tmp/basic_proxy.c" && grep -q "^rondo: wrote -: " "$tmp/err" ||
	fail "rondo proxy -o -: not the same proxy, or no report: $(cat "$tmp/err")"
"$rondo" proxy --frob "$tmp/basic.rondo" 2>"$tmp/err"
[ $? -eq 2 ] || fail "rondo proxy --frob: $(cat "$tmp/err")"
"$rondo" proxy -o "$tmp/cut.c" "$tmp/cut.rondo" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -e "$tmp/cut.c" ] ||
	fail "rondo proxy of a truncated trace: $(cat "$tmp/err")"
"$rondo" proxy -o "$tmp/no/such/dir/x.c" "$tmp/basic.rondo" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot write" "$tmp/err" ||
	fail "rondo proxy into a missing directory: $(cat "$tmp/err")"

[ $fails -eq 0 ] || exit 1
echo "PASS"
