#!/bin/sh
# quickstart.sh - set up rondo on a fresh Debian 12 machine, then show or test it.
#
#   ./quickstart.sh demo   install what is missing, build, show a trace
#                          (and open it in the explorer at a terminal)
#   ./quickstart.sh test   install what is missing, build with sanitizers,
#                          run make check, end with "N passed, N failed"
#
# Builds happen out of tree: build/ for the demo, build-check/ for the tests,
# and build-mpich/ for the tracer built against MPICH, which the test mode
# installs and runs the tests of MPI programs against too.
# QUICKSTART_CONFIGURE adds configure options (CI adds --enable-werror).
set -u

top=$(cd "$(dirname "$0")" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
packages="gcc make autoconf automake libtool pkg-config libopenmpi-dev
openmpi-bin libncurses-dev libzstd-dev libyaml-dev python3 tmux
python3-mpi4py netpipe-openmpi libopen-trace-format2-dev"
# The tests run against MPICH too (it also has the MPI-4 sessions Open MPI
# 4.1 lacks), with Fortran programs (gfortran) and NetPIPE built for each;
# clang-format checks the code's layout (tests/style.sh); OTF2's tools
# and its Python reader read back what rondo export --otf2 writes
# (tests/export_otf2.sh).
test_packages="libmpich-dev mpich gfortran netpipe-mpich2 clang-format
otf2-tools python3-otf2"
# Against MPICH, the tests that run MPI programs or the tracer (tests/lib.sh
# launches them with its mpiexec); the others read traces only, and do not
# depend on the library.
mpich_tests="tests/mpi.sh tests/merge.sh tests/session.sh tests/stats.sh tests/timing.sh tests/timed.sh tests/matrix.sh tests/preload.sh tests/fortran.sh tests/debian.sh tests/traceout.sh tests/tools.sh tests/outside.sh tests/ending.sh tests/memlimit.sh tests/export.sh tests/export_otf2.sh tests/replay.sh tests/precision.sh tests/values.sh tests/params.sh"

say() { printf 'quickstart: %s\n' "$*"; }
die() { printf 'quickstart: %s\n' "$*" >&2; exit 1; }

missing_packages() {
	for p in $packages; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
		case "$status" in
		*" installed") ;;
		*) printf '%s ' "$p" ;;
		esac
	done
}

install_packages() {
	command -v dpkg-query >/dev/null 2>&1 ||
		die "this is not a Debian system; install by hand: $packages"
	missing=$(missing_packages)
	[ -z "$missing" ] && { say "all Debian packages present"; return 0; }
	if [ "$(id -u)" -ne 0 ]; then
		die "missing Debian packages: $missing
quickstart: installing them needs root; run as root, or first:
  sudo apt-get install -y $missing"
	fi
	say "installing: $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null || die "apt-get update failed"
	# shellcheck disable=SC2086 # word splitting of the list is wanted
	apt-get install -y -q --no-install-recommends $missing >/dev/null ||
		die "apt-get install failed for: $missing"
}

# build DIR CONFIGURE-OPTIONS...: autoreconf once, configure when the options
# changed, make.
build() {
	dir=$1; shift
	cd "$top" || exit 1
	if [ ! -x configure ] || [ configure.ac -nt configure ] ||
		[ Makefile.am -nt configure ]; then
		say "autoreconf"
		autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; die "autoreconf failed"; }
	fi
	mkdir -p "$dir" && cd "$dir" || die "cannot create $dir"
	# shellcheck disable=SC2086
	want=$(echo "$* ${QUICKSTART_CONFIGURE:-}" | sed 's/^ *//; s/ *$//')
	have=$(cat .quickstart-configure 2>/dev/null)
	if [ ! -f Makefile ] || [ "$want" != "$have" ]; then
		say "configure${want:+ $want}"
		# shellcheck disable=SC2086
		"$top/configure" $want >configure.out 2>&1 ||
			{ cat configure.out; die "configure failed (see $dir/config.log)"; }
		sed -n '/will be built with/,$p' configure.out
		printf '%s' "$want" >.quickstart-configure
	fi
	say "make -j$jobs in $dir"
	make -j"$jobs" >make.out 2>&1 || { cat make.out; die "make failed"; }
}

# Prints "N passed, N failed[, N skipped]" from Automake's test summaries
# in the given logs, added up.
summarize() {
	count() {
		n=0
		for log in $logs; do
			k=$(sed -n "s/^# $1: *\([0-9]*\).*/\1/p" "$log" | tail -n 1)
			n=$((n + ${k:-0}))
		done
		echo "$n"
	}
	logs=$*
	pass=$(count PASS); xfail=$(count XFAIL); fail=$(count FAIL)
	xpass=$(count XPASS); err=$(count ERROR); skip=$(count SKIP)
	passed=$(( ${pass:-0} + ${xfail:-0} ))
	failed=$(( ${fail:-0} + ${xpass:-0} + ${err:-0} ))
	if [ "${skip:-0}" -gt 0 ]; then
		echo "$passed passed, $failed failed, ${skip} skipped"
	else
		echo "$passed passed, $failed failed"
	fi
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# check DIR MAKE-ARGS...: make check in DIR; prints the results, and the
# logs of the tests that failed.
check() {
	cd "$1" || exit 1
	shift
	make -j"$jobs" check "$@" >check.out 2>&1
	status=$?
	grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' check.out
	if [ $status -ne 0 ]; then
		for f in $(find tests -name '*.log' ! -name test-suite.log); do
			grep -q '^:test-result: \(FAIL\|ERROR\)' "${f%.log}.trs" 2>/dev/null &&
				{ echo "==== $f"; tail -n 40 "$f"; }
		done
		grep -q '^# TOTAL' check.out || { tail -n 40 check.out; echo "0 passed, 1 failed"; exit 1; }
	fi
}

do_test() {
	packages="$packages $test_packages"
	install_packages
	build "$top/build-check" --enable-asan --with-otf2
	say "make check"
	check "$top/build-check"
	# The tracer against MPICH: every test of MPI programs.
	build "$top/build-mpich" --with-mpi=mpich --enable-asan --with-otf2
	say "make check against MPICH: $mpich_tests"
	check "$top/build-mpich" TESTS="$mpich_tests"
	summarize "$top/build-check/check.out" "$top/build-mpich/check.out"
}

do_demo() {
	install_packages
	build "$top/build"
	make -j"$jobs" tests/mpi/stencil >/dev/null 2>&1 ||
		die "cannot build the example MPI program tests/mpi/stencil"
	trace="$top/build/demo.rondo"
	rm -f "$trace"
	# Open MPI refuses to run as root unless told it may.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	echo
	echo "\$ rondo run -o demo.rondo -- mpirun -np 4 --oversubscribe tests/mpi/stencil 100"
	tui/rondo run -o "$trace" -- mpirun -np 4 --oversubscribe \
		tests/mpi/stencil 100 || die "the traced run failed"
	echo
	echo "\$ rondo info demo.rondo"
	tui/rondo info "$trace" || exit 1
	echo
	echo "\$ rondo dump --grammar demo.rondo | tail -n 14"
	tui/rondo dump --grammar "$trace" | tail -n 14
	echo
	echo "\$ rondo dump --rank 1 demo.rondo | head -n 20"
	tui/rondo dump --rank 1 "$trace" | head -n 20
	echo
	echo "\$ rondo matrix demo.rondo"
	tui/rondo matrix "$trace"
	echo
	# At a terminal, the explorer itself (q quits); otherwise how to.
	if [ -t 0 ] && [ -t 1 ] && [ -x tui/rondo ] && tui/rondo view --help >/dev/null 2>&1; then
		echo "\$ rondo view demo.rondo      (q quits, ? lists the keys)"
		sleep 1
		RONDO_THEMES_DIR="$top/themes" tui/rondo view "$trace"
	else
		echo "explore it at a terminal: RONDO_THEMES_DIR=$top/themes $top/build/tui/rondo view $trace"
	fi
}

case "${1:-}" in
test) do_test ;;
demo) do_demo ;;
*)
	echo "usage: ./quickstart.sh demo | test" >&2
	exit 2
	;;
esac
