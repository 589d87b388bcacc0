#!/bin/sh
# fortran.sh - Fortran programs traced exactly as well as C ones, on the
# library the tracer was built against (Open MPI or MPICH):
#  - tests/mpi/fsuite.F90, built with the library's Fortran compiler
#    ($MPIFC) three times: include 'mpif.h', use mpi, use mpi_f08; traced
#    on 4 ranks.  Each trace must read as that of the C twin,
#    tests/mpi/ftwin, call by call (point to point, MPI_STATUS(ES)_IGNORE,
#    a 1-based Waitany index, collectives with MPI_IN_PLACE, a failing
#    call's ierr, comm split and names, derived types at MPI_BOTTOM,
#    strings, logicals, MPI_Initialized before MPI_Init): handles
#    converted, sentinels recognised, every call recorded once.  The Waitsome loop, whose number of calls varies
#    from run to run, is checked on its own: per rank, the indices (as C
#    numbers them) name each of the six requests once, and its outcounts
#    add up to 6.  Each program checks what MPI told it too (it says OK).
#  - rondo info names the library and its version, and the binding the
#    calls came through, with their number.
#  - tests/mpi/fcallback.F90: a C callback's MPI_Comm_free inside the
#    program's Fortran MPI_Comm_free is recorded, the Fortran binding's
#    own nested call is not.
#  - tests/mpi/fstencil.F90 (use mpi and use mpi_f08) on 1, 2, 4 and 6
#    ranks: as many calls and signatures as the C stencil, and a trace at
#    most 5 % (+64 bytes) larger.  `make bench-fortran` goes to 27 ranks.
#  - the traces of fsuite in each binding, of fcallback and of fstencil
#    (mpi_f08, 4 ranks), replayed by rondo-replay and run as proxies: the
#    same calls (lib.sh, replayed).
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
[ -n "${MPIFC:-}" ] || {
	echo "SKIP: configure found no Fortran compiler for MPI (MPIFC): install the Debian package gfortran"
	exit 77
}
twin="$top_builddir/tests/mpi/ftwin"
stencil="$top_builddir/tests/mpi/stencil"
src="$top_srcdir/tests/mpi"
[ -x "$twin" ] && [ -x "$stencil" ] || { echo "FAIL: $twin or $stencil not built"; exit 1; }

# mpif.h declares no interfaces: gfortran 10 and later refuse the same
# routine called with buffers of different ranks unless told otherwise.
loose=
echo "end" >"$tmp/t.f90"
"$MPIFC" -fallow-argument-mismatch -c -o "$tmp/t.o" "$tmp/t.f90" >/dev/null 2>&1 &&
	loose=-fallow-argument-mismatch
build() { # NAME SOURCE FLAGS...
	name=$1 file=$2; shift 2
	"$MPIFC" -cpp "$@" -o "$tmp/$name" "$src/$file" >"$tmp/$name.cc" 2>&1 ||
		{ echo "FAIL: $MPIFC $* $file: $(head -20 "$tmp/$name.cc")"; exit 1; }
}
build fsuite_mpif fsuite.F90 -DBIND_MPIF $loose
build fsuite_usempi fsuite.F90 -DBIND_USE_MPI
build fsuite_f08 fsuite.F90 -DBIND_F08
build fstencil_usempi fstencil.F90 -DBIND_USE_MPI
build fstencil_f08 fstencil.F90 -DBIND_F08
build fcallback fcallback.F90 "$src/fcallback.c"

# trace NAME NP PROGRAM ARGS...: $tmp/NAME.rondo, output in $tmp/NAME.out
trace() {
	name=$1 np=$2; shift 2
	timeout 180 "$rondo" run -o "$tmp/$name.rondo" -- mpirun -np "$np" \
		${san:+-x ASAN_OPTIONS} -x FSUITE_ZERO_BASED "$@" >"$tmp/$name.out" 2>&1 ||
		{ fail "$name: exit status $?: $(tail -5 "$tmp/$name.out")"; return 1; }
	grep -q "^rondo: $tmp/$name.rondo: [0-9]* bytes" "$tmp/$name.out" ||
		{ fail "$name: no trace: $(tail -5 "$tmp/$name.out")"; return 1; }
}
# the dump without call indices, but for the Waitsome loop
calls() {
	"$rondo" dump "$tmp/$1.rondo" | grep -v ' MPI_Waitsome(' | cut -d' ' -f1,3-
}
info() { "$rondo" info "$tmp/$1.rondo" | sed -n "s/^  $2  *//p"; }
oks() { grep -c "^$1: rank [0-3] OK" "$tmp/$2.out"; }

export FSUITE_ZERO_BASED=0
trace ftwin 4 "$twin" || exit 1
[ "$(oks ftwin ftwin)" -eq 4 ] || fail "ftwin: not 4 ranks OK: $(cat "$tmp/ftwin.out")"
calls ftwin >"$tmp/ftwin.calls"
n=$("$rondo" dump "$tmp/ftwin.rondo" | wc -l)
[ "$(info ftwin bindings)" = "C: $n calls on 4 ranks" ] ||
	fail "ftwin: bindings '$(info ftwin bindings)', want 'C: $n calls on 4 ranks'"
lib=$(info ftwin mpi)
case ${MPI_FLAVOR:-openmpi} in
openmpi) want="Open MPI v[0-9]" ;;
mpich) want="MPICH Version: [0-9]" ;;
esac
echo "$lib" | grep -Eq "^$want" || fail "rondo info's mpi line '$lib' does not name ${MPI_FLAVOR:-openmpi}"
info ftwin mpi_version | grep -Eq '^[34]\.[0-9]$' ||
	fail "rondo info's mpi_version: '$(info ftwin mpi_version)'"
# what the twin's own trace must show, so that both going wrong alike fails
for want in 'MPI_Initialized\(-> flag=0\)' 'MPI_Allreduce\(sendbuf=MPI_IN_PLACE, count=4, datatype=MPI_INTEGER, op=MPI_SUM' \
	'MPI_Waitall\(count=2 -> array_of_requests=\[r2, r3\], array_of_statuses=\[MPI_STATUS_IGNORE\{\}, MPI_STATUS_IGNORE\{\}\]\)' \
	'MPI_Waitany\(count=3 -> array_of_requests=\[MPI_REQUEST_NULL, r4, MPI_REQUEST_NULL\], index=1,' \
	'MPI_Comm_get_name\(comm=c[0-9]+ -> comm_name="half", resultlen=4\)' \
	'MPI_Info_set\(info=i0, key="rondo_key", value="a value"\)' \
	'MPI_Sendrecv_replace\(buf=NULL, count=1, datatype=t1:20B' \
	'MPI_Recv\(.*tag=6, .*status=MPI_STATUS_IGNORE\{\}\)'; do
	[ "$(grep -Ec "$want" "$tmp/ftwin.calls")" -eq 4 ] ||
		fail "ftwin: not 4 calls like '$want'"
done

# waitsome NAME: per rank, the indices name requests 0-5 once each
waitsome() {
	"$rondo" dump "$tmp/$1.rondo" | grep ' MPI_Waitsome(' | awk -v name="$1" '
	{
		r = $1 + 0
		match($0, /outcount=[0-9]+/)
		out[r] += substr($0, RSTART + 9, RLENGTH - 9) + 0
		match($0, /array_of_indices=\[[0-9, ]*\]/)
		s = substr($0, RSTART + 18, RLENGTH - 19)
		k = split(s, ix, ", ")
		for (i = 1; i <= k; i++)
			seen[r, ix[i] + 0]++
	}
	END {
		for (r = 0; r < 4; r++) {
			if (out[r] != 6)
				printf "FAIL: %s: rank %d: Waitsome outcounts add up to %d, not 6\n", name, r, out[r]
			for (i = 0; i < 6; i++)
				if (seen[r, i] != 1)
					printf "FAIL: %s: rank %d: request %d completed %d times\n", name, r, i, seen[r, i]
		}
	}' >"$tmp/ws"
	[ -s "$tmp/ws" ] && { cat "$tmp/ws"; fails=$((fails + $(wc -l <"$tmp/ws"))); }
	return 0
}
waitsome ftwin

for b in mpif usempi f08; do
	name=fsuite_$b
	# MPICH 4.0's mpi_f08 gives the program C's 0-based request indices
	# (pmodels/mpich#6270): the program is told to expect them; the
	# trace must still name the request that completed
	FSUITE_ZERO_BASED=0
	[ $b = f08 ] && echo "$lib" | grep -q '^MPICH Version: 4\.0\.' && FSUITE_ZERO_BASED=1
	trace $name 4 "$tmp/$name" || continue
	[ "$(oks fsuite $name)" -eq 4 ] || fail "$name: not 4 ranks OK: $(cat "$tmp/$name.out")"
	calls $name >"$tmp/$name.calls"
	cmp -s "$tmp/ftwin.calls" "$tmp/$name.calls" ||
		fail "$name: its trace does not read as the C twin's: $(diff "$tmp/ftwin.calls" "$tmp/$name.calls" | head -10)"
	waitsome $name
	n=$("$rondo" dump "$tmp/$name.rondo" | wc -l)
	case $b in
	f08) want="Fortran use mpi_f08: $n calls on 4 ranks" ;;
	*) want="Fortran mpif.h or use mpi: $n calls on 4 ranks" ;;
	esac
	[ "$(info $name bindings)" = "$want" ] ||
		fail "$name: bindings '$(info $name bindings)', want '$want'"
	# replayed from the trace, and as a proxy, both in C (issue 23)
	replayed $name 4
done

# A C library's callback run by the program's Fortran MPI_Comm_free, which
# frees the library's communicator with the C MPI_Comm_free: recorded, as
# any call from a callback (the Fortran call's forwarding, under MPICH a C
# MPI_Comm_free of its own, is not).
if trace fcallback 2 "$tmp/fcallback"; then
	[ "$(grep -c "^fcallback: rank [01] OK" "$tmp/fcallback.out")" -eq 2 ] ||
		fail "fcallback: not 2 ranks OK: $(cat "$tmp/fcallback.out")"
	n=$("$rondo" dump "$tmp/fcallback.rondo" | grep -c ' MPI_Comm_free(')
	[ "$n" -eq 4 ] || fail "fcallback: $n MPI_Comm_free calls recorded, 4 made (2 a rank)"
	# replayed, its handle conversion (MPI_Comm_f2c under Open MPI) too
	replayed fcallback 2
fi

# The stencil: as many calls and signatures as C's, a trace as small.
for np in 1 2 4 6; do
	trace stencil_$np $np "$stencil" 50 16 || continue
	c=$(sed -n "s/^rondo: .*: \([0-9]*\) bytes, \([0-9]*\) MPI calls, \([0-9]*\) signatures.*/\1 \2 \3/p" "$tmp/stencil_$np.out")
	for b in usempi f08; do
		name=fstencil_${b}_$np
		trace $name $np "$tmp/fstencil_$b" 50 16 || continue
		f=$(sed -n "s/^rondo: .*: \([0-9]*\) bytes, \([0-9]*\) MPI calls, \([0-9]*\) signatures.*/\1 \2 \3/p" "$tmp/$name.out")
		echo "$c $f" | awk -v name="$name" '{
			if ($2 != $5 || $3 != $6)
				printf "FAIL: %s: %d calls and %d signatures, the C stencil %d and %d\n", name, $5, $6, $2, $3
			if ($4 > $1 * 1.05 + 64)
				printf "FAIL: %s: %d bytes, the C stencil %d\n", name, $4, $1
		}' >"$tmp/st"
		[ -s "$tmp/st" ] && { cat "$tmp/st"; fails=$((fails + 1)); }
		echo "$name: $f (C: $c)"
		[ "$np" -ne 4 ] || [ $b != f08 ] || replayed $name 4
	done
done

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "fortran: fsuite in 3 bindings as its C twin, fstencil as small as C's, both replayed"
