#!/bin/sh
# bench_fortran.sh [BUILDDIR] - the Fortran stencil's traces against the C
# stencil's, over ranks, and what the tracer adds to a Fortran call.
#
# tests/mpi/fstencil.F90 built with the library's Fortran compiler (MPIFC
# from the build's configure) for use mpi and for use mpi_f08, and the C
# stencil, tests/mpi/stencil, each traced on 1, 2, 3, 4, 6, 8, 9, 12, 16,
# 18, 24 and 27 ranks (oversubscribed), BENCH_ITERS iterations (default
# 1000) of a 16x16 local grid.  Prints per rank count the calls, the
# signatures and the trace's bytes of each, and Fortran's bytes over C's.
#
# Then the tight loop of Irecv, Isend and Waitall between 2 ranks
# (tests/bench/bench_p2p p2p in C, tests/bench/fp2p.F90 in Fortran),
# BENCH_P2P_ITERS iterations (default 10^5), untraced and traced in turn,
# BENCH_REPS times each (default 5): the medians of the loop's wall time,
# their ratio, and the time the tracer adds per call (3 calls an
# iteration).
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_fortran "${1:-}"
rondo=$build/tui/rondo
stencil=$build/tests/mpi/stencil
iters=${BENCH_ITERS:-1000}
p2p_iters=${BENCH_P2P_ITERS:-100000}
reps=${BENCH_REPS:-5}
p2p=$build/tests/bench/bench_p2p
lib=$build/tracer/.libs/librondo-trace.so
MPIFC=$(sed -n 's/^MPIFC = //p' "$build/Makefile")
MPI_FLAVOR=$(sed -n 's/^MPI_FLAVOR = //p' "$build/Makefile")
export MPI_FLAVOR

[ -x "$rondo" ] || die "$rondo not built (make)"
[ -x "$stencil" ] || die "$stencil not built (make tests/mpi/stencil)"
[ -n "$MPIFC" ] || die "configure found no Fortran compiler for MPI (install gfortran)"
[ -x "$p2p" ] || die "$p2p not built (make tests/bench/bench_p2p)"
for v in "$iters" "$p2p_iters" "$reps"; do
	case $v in '' | *[!0-9]* | 0) die "BENCH_ITERS, BENCH_P2P_ITERS and BENCH_REPS must be positive numbers" ;; esac
done

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_TIMING
mpi_env
for b in USE_MPI F08; do
	"$MPIFC" -cpp -O2 -DBIND_$b -o "$tmp/fstencil_$b" "$here/../mpi/fstencil.F90" \
		>"$tmp/cc" 2>&1 || die "$MPIFC fstencil.F90 -DBIND_$b: $(cat "$tmp/cc")"
	"$MPIFC" -cpp -O2 -DBIND_$b -o "$tmp/fp2p_$b" "$here/fp2p.F90" \
		>"$tmp/cc" 2>&1 || die "$MPIFC fp2p.F90 -DBIND_$b: $(cat "$tmp/cc")"
done

# run PROGRAM NP: "bytes calls signatures" of its trace
run() {
	rm -f "$tmp/t.rondo"
	timeout 600 "$rondo" run -o "$tmp/t.rondo" -- mpirun --oversubscribe \
		-np "$2" "$1" "$iters" 16 >"$tmp/out" 2>&1 ||
		die "$1 on $2 ranks failed: $(tail -5 "$tmp/out")"
	sed -n 's/^rondo: .*: \([0-9]*\) bytes, \([0-9]*\) MPI calls, \([0-9]*\) signatures.*/\1 \2 \3/p' "$tmp/out"
}

echo "bench_fortran: stencil, $iters iterations, 16x16 per rank, $(basename "$MPIFC")"
printf '%5s %9s %5s %8s %12s %10s %7s %7s\n' ranks calls sigs "C bytes" \
	"use mpi" "mpi_f08" "mpi/C" "f08/C"
for np in 1 2 3 4 6 8 9 12 16 18 24 27; do
	c=$(run "$stencil" $np)
	m=$(run "$tmp/fstencil_USE_MPI" $np)
	f=$(run "$tmp/fstencil_F08" $np)
	echo "$np $c $m $f" | awk '{
		printf "%5d %9d %5d %8d %12d %10d %7.3f %7.3f%s\n", $1, $3, $4, $2, $5, $8,
			$5 / $2, $8 / $2,
			($6 != $3 || $9 != $3 || $7 != $4 || $10 != $4) ? "  (calls or signatures differ)" : ""
	}'
done

# loop WHAT PROGRAM ARGS...: the loop's wall time, untraced and traced in
# turn, BENCH_REPS times each; prints the medians, the ratio and the time
# added per call
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall() { sed -n 's/.* wall= *\([0-9.e+-]*\).*/\1/p' "$tmp/out"; }
loop() {
	what=$1; shift
	: >"$tmp/plain"
	: >"$tmp/traced"
	for r in $(seq "$reps"); do
		mpirun -np 2 "$@" >"$tmp/out" 2>&1 || die "$what untraced: $(tail -5 "$tmp/out")"
		wall >>"$tmp/plain"
		rm -f "$tmp/t.rondo"
		mpirun -np 2 -x LD_PRELOAD="$lib" -x RONDO_OUT="$tmp/t.rondo" "$@" >"$tmp/out" 2>&1 ||
			die "$what traced: $(tail -5 "$tmp/out")"
		wall >>"$tmp/traced"
	done
	p=$(median <"$tmp/plain") t=$(median <"$tmp/traced")
	echo "$what $p $t" | awk -v calls=$((3 * p2p_iters)) '{
		printf "%-9s %12.4f %12.4f %7.2f %10.0f\n", $1, $2, $3, $3 / $2, ($3 - $2) / calls * 1e9 }'
}
echo
echo "bench_fortran: Irecv/Isend/Waitall, 2 ranks, $p2p_iters iterations, medians of $reps"
printf '%-9s %12s %12s %7s %10s\n' binding "untraced s" "traced s" ratio "ns/call"
loop C "$p2p" p2p "$p2p_iters"
loop use_mpi "$tmp/fp2p_USE_MPI" "$p2p_iters"
loop mpi_f08 "$tmp/fp2p_F08" "$p2p_iters"
