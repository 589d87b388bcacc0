#!/bin/sh
# bench_fortran.sh [BUILDDIR] - the Fortran stencil's traces against the C
# stencil's, over ranks.
#
# tests/mpi/fstencil.F90 built with the library's Fortran compiler (MPIFC
# from the build's configure) for use mpi and for use mpi_f08, and the C
# stencil, tests/mpi/stencil, each traced on 1, 2, 3, 4, 6, 8, 9, 12, 16,
# 18, 24 and 27 ranks (oversubscribed), BENCH_ITERS iterations (default
# 1000) of a 16x16 local grid.  Prints per rank count the calls, the
# signatures and the trace's bytes of each, and Fortran's bytes over C's.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_fortran "${1:-}"
rondo=$build/tui/rondo
stencil=$build/tests/mpi/stencil
iters=${BENCH_ITERS:-1000}
MPIFC=$(sed -n 's/^MPIFC = //p' "$build/Makefile")
MPI_FLAVOR=$(sed -n 's/^MPI_FLAVOR = //p' "$build/Makefile")
export MPI_FLAVOR

[ -x "$rondo" ] || die "$rondo not built (make)"
[ -x "$stencil" ] || die "$stencil not built (make tests/mpi/stencil)"
[ -n "$MPIFC" ] || die "configure found no Fortran compiler for MPI (install gfortran)"
case $iters in '' | *[!0-9]* | 0) die "BENCH_ITERS must be a positive number" ;; esac

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_TIMING
mpi_env
for b in USE_MPI F08; do
	"$MPIFC" -cpp -O2 -DBIND_$b -o "$tmp/fstencil_$b" "$here/../mpi/fstencil.F90" \
		>"$tmp/cc" 2>&1 || die "$MPIFC fstencil.F90 -DBIND_$b: $(cat "$tmp/cc")"
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
