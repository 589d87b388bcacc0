#!/bin/sh
# preload.sh - the tracer module in programs that are not MPI programs.
# It defines malloc and friends and tracks the heap from the moment it is
# loaded, MPI or not: it must export those and the MPI functions and
# nothing else, and leave ordinary programs working (ls, sort, an
# allocation stress with threads and fork, tests/alloc_stress.c), with
# tracking on or off.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
stress="$top_builddir/tests/alloc_stress"

[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
san_env

# What the module exports: MPI_* and PMPI_*, the Fortran bindings' entry
# points (mpi_send_, mpi_send__, mpi_send, MPI_SEND, mpi_send_f08_...), and
# the allocation functions, sigaction and signal (tracer/ending.c:
# a handler set after MPI_Init is called after the tracer's), and
# rondo_replay_posted and rondo_replay_stand_ins (tracer/record.h:
# rondo-replay's wildcards and polls).
alloc="aligned_alloc calloc free malloc memalign posix_memalign pvalloc realloc rondo_replay_posted rondo_replay_stand_ins sigaction signal valloc"
nm -D --defined-only "$lib" | awk '{ print $NF }' | sort >"$tmp/defined"
others=$(grep -v -E '^(P?MPI_|mpi_)' "$tmp/defined" | tr '\n' ' ' | sed 's/ $//')
[ "$others" = "$alloc" ] ||
	fail "exports besides MPI: '$others', want '$alloc'"
[ "$(grep -c -E '^MPI_' "$tmp/defined")" -ge 200 ] ||
	fail "only $(grep -c -E '^MPI_' "$tmp/defined") MPI_ functions exported"
for f in mpi_send_ mpi_send__ mpi_send MPI_SEND mpi_send_f08_ mpi_init_ \
	mpi_init_f08_ mpi_finalize_ mpi_waitsome_ mpi_allreduce_f08ts_; do
	grep -q -x "$f" "$tmp/defined" || fail "the Fortran entry point $f is not exported"
done

# same TEXT COMMAND...: COMMAND prints the same preloaded as not.
same() {
	what=$1; shift
	"$@" >"$tmp/plain" 2>&1 || { fail "$what: fails without the module"; return; }
	LD_PRELOAD="$pre" "$@" >"$tmp/traced" 2>&1 ||
		{ fail "$what: fails with the module: $(head -5 "$tmp/traced")"; return; }
	cmp -s "$tmp/plain" "$tmp/traced" || fail "$what: output differs with the module"
}
seq 1 200000 | sort -R >"$tmp/numbers"
same "ls -lR" ls -lR "$top_builddir/tracer"
same "sort" sort -n "$tmp/numbers"
same "sort, tracking off" env RONDO_TRACK_POINTERS=0 sort -n "$tmp/numbers"

# Threads and fork.  A sanitizer runtime's own allocator can deadlock in a
# child forked from a threaded program (it does here, untraced): there the
# stress runs without fork.
forks=200
if [ -n "$san" ]; then
	forks=0
	echo "preload.sh: NOTE: not checked in a sanitizer build: fork() while" \
		"threads allocate (the sanitizer's allocator deadlocks in the child)"
fi
for track in 1 0; do
	RONDO_TRACK_POINTERS=$track LD_PRELOAD="$pre" timeout 300 "$stress" 200000 $forks \
		>"$tmp/stress" 2>&1 ||
		fail "alloc_stress (tracking $track): $(head -5 "$tmp/stress")"
done

echo "preload.sh: $fails failed"
[ "$fails" -eq 0 ]
