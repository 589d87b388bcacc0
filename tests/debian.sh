#!/bin/sh
# debian.sh - real MPI programs from Debian packages, traced end to end:
# mpi4py's ring test (python3-mpi4py: MPI_Init_thread, Python) and NetPIPE
# (netpipe-openmpi, or netpipe-mpich2 for a tracer built against MPICH).
# Their own output must keep its shape, the trace must hold their calls,
# and rondo-replay and the trace's proxy (rondo proxy) must replay each
# trace call for call.  quickstart.sh
# installs the packages.
#
# The tracer can be preloaded only into programs of the MPI library it was
# built against (its wrappers hand the program's handles to that library's
# PMPI_ functions).  Debian builds NetPIPE for both libraries and mpi4py
# for Open MPI only, so against MPICH the ring test runs only with an
# mpi4py built for MPICH, and the script says when it does not run it.
set -u
. "$(dirname "$0")/lib.sh"
test_setup

# mpi4py_library: the MPI library the installed mpi4py was built against
# ("Open MPI" or "MPICH"; nothing without mpi4py), asked without starting
# MPI.
mpi4py_library() {
	/usr/bin/python3 -c 'import mpi4py
mpi4py.rc.initialize = mpi4py.rc.finalize = False
from mpi4py import MPI
print(MPI.Get_library_version())' 2>/dev/null |
		sed -n '1s/^\(Open MPI\|MPICH\).*/\1/p'
}

mpi4py=$(mpi4py_library)
missing=""
case ${MPI_FLAVOR:-openmpi} in
mpich)
	library=MPICH netpipe=/usr/bin/NPmpich2
	[ -x "$netpipe" ] || missing="$missing netpipe-mpich2"
	;;
*)
	library="Open MPI" netpipe=/usr/bin/NPopenmpi
	[ -n "$mpi4py" ] || missing="$missing python3-mpi4py"
	[ -x "$netpipe" ] || missing="$missing netpipe-openmpi"
	;;
esac
if [ -n "$missing" ]; then
	echo "SKIP: Debian packages not installed:$missing (./quickstart.sh test installs them)"
	exit 77
fi
mpi_env
san_env
# rondo run preloads the module; the sanitizer runtimes go first
[ -z "$san" ] || export LD_PRELOAD="$san"
cd "$tmp" || exit 1

# mpi4py ring test: same report traced and untraced, timings aside.
ring_test() {
	ring="/usr/bin/python3 -m mpi4py.bench ringtest -n 64 -l 20"
	mpirun -np 4 $ring >plain.out 2>&1 || fail "ringtest failed untraced: $(cat plain.out)"
	"$rondo" run -o ring.rondo -- mpirun -np 4 ${san:+-x ASAN_OPTIONS} $ring >traced.out 2>&1 ||
		fail "ringtest failed traced: $(cat traced.out)"
	mask() { grep -v '^rondo: ' "$1" | sed 's/[0-9.e+-]* seconds/T seconds/'; }
	[ "$(mask plain.out)" = "$(mask traced.out)" ] ||
		fail "ringtest output changed: $(mask plain.out) / $(mask traced.out)"
	"$rondo" info ring.rondo >info.out || fail "rondo info ring.rondo"
	grep -q '^ranks        4$' info.out || fail "ring: ranks: $(cat info.out)"
	# 20 loops of a Send and a Recv on each rank, all in the trace
	sends=$("$rondo" dump --rank 1 ring.rondo | grep -c ' MPI_Send(')
	[ "$sends" -ge 20 ] || fail "ring: rank 1 recorded $sends MPI_Send calls, want >= 20"
	# mpi4py asks MPI_Initialized before MPI_Init_thread: kept, and
	# ahead of it in the trace
	first=$("$rondo" dump --rank 0 ring.rondo | head -n 2 | cut -d' ' -f3- |
		sed 's/^\(MPI_Init_thread(\).*/\1/' | tr '\n' ' ')
	[ "$first" = "MPI_Initialized(-> flag=0) MPI_Init_thread( " ] ||
		fail "ring: the trace does not start with MPI_Initialized and MPI_Init_thread: $first"
	replayed ring 4
}
if [ "$mpi4py" = "$library" ]; then
	ring_test
else
	echo "debian.sh: NOTE: mpi4py's ring test not run: the tracer is built" \
		"against $library, the mpi4py installed against ${mpi4py:-nothing (none is installed)};" \
		"Debian's python3-mpi4py is built against Open MPI only"
fi

# NetPIPE up to 256 bytes: the same table of sizes, and one small trace.
np="$netpipe -u 256"
mpirun -np 2 $np -o np-plain.out >/dev/null 2>&1 || fail "NetPIPE failed untraced"
"$rondo" run -o np.rondo -- mpirun -np 2 ${san:+-x ASAN_OPTIONS} $np -o np-traced.out \
	>np.log 2>&1 || fail "NetPIPE failed traced: $(tail -n 5 np.log)"
[ "$(awk '{print $1}' np-plain.out)" = "$(awk '{print $1}' np-traced.out)" ] ||
	fail "NetPIPE measured other sizes traced"
calls=$("$rondo" info np.rondo | sed -n 's/^calls *//p')
size=$(wc -c <np.rondo)
echo "NetPIPE -u 256 ($(basename "$netpipe")): ${calls:-?} calls in $size bytes"
[ "${calls:-0}" -gt 10000 ] || fail "NetPIPE: only ${calls:-0} calls recorded"
[ "$size" -lt 65536 ] || fail "NetPIPE: the trace takes $size bytes"
# Replayed: NetPIPE with receives posted ahead (-a) from MPI_ANY_SOURCE
# (-z), 20 repeats of each size (-n) to keep it short.  NPmpich2 -z stops
# at its first receive by itself ("Can't prepare to receive: outstanding
# receive!", untraced too): against MPICH without -z.
z=-z
[ "${MPI_FLAVOR:-openmpi}" = mpich ] && z=
"$rondo" run -o npz.rondo -- mpirun -np 2 ${san:+-x ASAN_OPTIONS} \
	$netpipe -u 4096 -n 20 -a $z -o npz.out >npz.log 2>&1 ||
	fail "NetPIPE -a $z failed traced: $(tail -n 5 npz.log)"
if [ -n "$z" ]; then
	"$rondo" dump --rank 0 npz.rondo | grep -q 'MPI_Irecv(.*source=MPI_ANY_SOURCE' ||
		fail "NetPIPE -a -z: no wildcard MPI_Irecv in the trace"
else
	echo "debian.sh: NOTE: NetPIPE replayed without -z (wildcard receives): NPmpich2 -z fails by itself"
fi
replayed npz 2

echo "debian.sh: $fails failed"
[ "$fails" -eq 0 ]
