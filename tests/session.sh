#!/bin/sh
# session.sh - a program of the MPI-4 sessions model traced (tests/mpi/
# session.c): it never calls MPI_Init, so tracing starts at its first
# MPI_Session_init, and the trace is written at exit.  Checked call by
# call on 1 and 3 processes; replayed and run as a proxy on 3.
#
# Open MPI 4.1 has no sessions: built against it, the program says so and
# the test is skipped (exit 77), naming why.  ./quickstart.sh test builds
# rondo against MPICH too when MPICH is installed (CI installs it), where
# this test runs.
. "$(dirname "$0")/lib.sh"
test_setup
prog="$top_builddir/tests/mpi/session"
: >"$tmp/pending"
: >"$tmp/functions"

[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
mpi_setup

# The launcher of the library the tracer was built against.
if ldd "$lib" | grep -q 'libmpich\.so'; then
	launch=$(command -v mpiexec.mpich || command -v mpiexec.hydra ||
		command -v mpiexec)
else
	launch=$(command -v mpirun.openmpi || command -v mpirun)
fi
[ -n "$launch" ] || { echo "FAIL: no MPI launcher"; exit 1; }

# Without sessions the program only says why.
why=$("$prog" --probe 2>&1)
if [ $? -eq 77 ]; then
	echo "SKIP: $why"
	exit 77
fi

# run NP ITERATIONS [world]: the program on NP processes, traced (with
# `world`, MPI_Init and MPI_Finalize between its sessions' start and end).  The launcher
# passes the environment on (MPICH's does by default).
run() {
	name=session
	rm -f "$tmp/$name.expect".* "$tmp/$name.rondo"
	LD_PRELOAD="$pre" RONDO_OUT="$tmp/$name.rondo" \
		RONDO_EXPECT="$tmp/$name.expect" \
		"$launch" -n "$1" "$prog" "$2" ${3:+"$3"} >"$tmp/$name.out" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		fail "session on $1: exit status $status"
		cat "$tmp/$name.out"
		return 1
	fi
	compare "$name" "$1"
}

for np in 1 3; do
	run $np 10 || continue
	"$rondo" info "$tmp/session.rondo" >"$tmp/info"
	grep -q "init *MPI-4 sessions" "$tmp/info" ||
		fail "session on $np: rondo info does not say the trace began with a session"
	grep -q "^ranks *$np$" "$tmp/info" ||
		fail "session on $np: $(grep '^ranks' "$tmp/info"), want $np"
done
# Replayed, and run as a proxy, under the tracer: the same calls (each
# opens a session of its own for its rank, through PMPI, unrecorded).
# Another rank count is refused (status 3) by both, without MPI_COMM_WORLD.
if run 3 10 && replayed session 3; then
	mpirun -np 2 "$top_builddir/replay/rondo-replay" "$tmp/session.rondo" \
		>"$tmp/out" 2>&1
	[ $? -eq 3 ] && grep -q "the trace is of 3 ranks, this run has 2" "$tmp/out" ||
		fail "session replayed on 2 ranks: want status 3, got: $(cat "$tmp/out")"
	mpirun -np 2 "$tmp/session_proxy" >"$tmp/out" 2>&1
	[ $? -eq 3 ] && grep -q "the trace is of 3 ranks, this run has 2" "$tmp/out" ||
		fail "session's proxy on 2 ranks: want status 3, got: $(cat "$tmp/out")"
fi
# Both models in one program: the world's calls, and the sessions' after
# MPI_Finalize, replayed too.
run 3 10 world && replayed session 3
# The ring's body compresses: the grammar does not grow with iterations.
run 3 1000 && big=$("$rondo" info "$tmp/session.rondo" | sed -n 's/^rules *//p')
run 3 10 && small=$("$rondo" info "$tmp/session.rondo" | sed -n 's/^rules *//p')
[ "${small:-x}" = "${big:-y}" ] ||
	fail "session: grammar grows with iterations: $small at 10, $big at 1000"

echo "session.sh: $fails failed"
[ "$fails" -eq 0 ]
