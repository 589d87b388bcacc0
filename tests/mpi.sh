#!/bin/sh
# mpi.sh - real MPI programs under the tracer: each writes what it calls as
# one regular expression per call and rank; `rondo dump` of its trace must
# match them line by line.  Runs through `rondo run -- mpirun ...`.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
rondo="$top_builddir/tui/rondo"
lib="$top_builddir/tracer/.libs/librondo-trace.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# A sanitizer build of the tracer needs the sanitizer runtimes loaded
# before anything else in the (uninstrumented) MPI programs.
san=$(ldd "$lib" | awk '/lib(asan|ubsan)\.so/ { printf "%s%s", sep, $3; sep = ":" }')
if [ -n "$san" ]; then
	export LD_PRELOAD="$san"
	export ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0:exitcode=86"
fi

# check NAME NP ARGS...: runs tests/mpi/NAME on NP ranks, compares.
check() {
	name=$1; np=$2; shift 2
	out="$tmp/$name.rondo"
	RONDO_EXPECT="$tmp/$name.expect" "$rondo" run -o "$out" -- \
		mpirun -np "$np" -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/mpi/$name" "$@" >"$tmp/$name.out" 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		fail "$name: exit status $status"; cat "$tmp/$name.out"; return
	fi
	grep -q "^rondo: $out: [0-9]* bytes, [0-9]* MPI calls" "$tmp/$name.out" ||
		fail "$name: no one-line report from rank 0: $(cat "$tmp/$name.out")"
	r=0
	while [ $r -lt "$np" ]; do
		"$rondo" dump --rank $r "$out" | cut -d' ' -f3- >"$tmp/got.$r" ||
			fail "$name: rondo dump --rank $r"
		if [ "$(wc -l <"$tmp/got.$r")" -ne "$(wc -l <"$tmp/$name.expect.$r")" ]; then
			fail "$name rank $r: $(wc -l <"$tmp/got.$r") calls recorded, $(wc -l <"$tmp/$name.expect.$r") made"
		fi
		paste -d '\n' "$tmp/$name.expect.$r" "$tmp/got.$r" | awk -v who="$name rank $r" '
			NR % 2 == 1 { re = $0; next }
			$0 !~ ("^" re "$") { printf "FAIL: %s call %d:\n  want %s\n  got  %s\n", who, NR / 2 - 1, re, $0; bad = 1 }
			END { exit bad }' || fails=$((fails + 1))
		r=$((r + 1))
	done
}

check basic 1 3
check basic 4 10
# The loop compresses: 10 and 1000 iterations give the same grammar size.
check basic 4 1000
small=$("$rondo" info "$tmp/basic.rondo" | sed -n 's/^rules *//p')
RONDO_EXPECT="$tmp/x" "$rondo" run -o "$tmp/b10.rondo" -- mpirun -np 4 -x RONDO_EXPECT \
	${san:+-x ASAN_OPTIONS} "$top_builddir/tests/mpi/basic" 10 >/dev/null 2>&1
big=$("$rondo" info "$tmp/b10.rondo" | sed -n 's/^rules *//p')
[ "$small" = "$big" ] || fail "grammar grows with iterations: $big at 10, $small at 1000"

# Settings: a bad value warns once and the program runs on; RONDO_DISABLE
# writes no trace; an unwritable output goes to the working directory.
(cd "$tmp" && RONDO_VERBOSE=loud RONDO_EXPECT="$tmp/y" "$rondo" run -o "$tmp/v.rondo" -- \
	mpirun -np 2 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$top_builddir/tests/mpi/basic" 2 \
	>"$tmp/v.out" 2>&1) || fail "bad setting stopped the program"
[ "$(grep -c "RONDO_VERBOSE='loud'" "$tmp/v.out")" -eq 1 ] ||
	fail "bad setting: want one warning: $(cat "$tmp/v.out")"
(cd "$tmp" && RONDO_DISABLE=1 RONDO_EXPECT="$tmp/y" "$rondo" run -o "$tmp/d.rondo" -- \
	mpirun -np 2 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$top_builddir/tests/mpi/basic" 2 \
	>"$tmp/d.out" 2>&1) || fail "RONDO_DISABLE stopped the program"
[ ! -e "$tmp/d.rondo" ] || fail "RONDO_DISABLE=1 still wrote a trace"
mkdir "$tmp/wd"
(cd "$tmp/wd" && RONDO_EXPECT="$tmp/y" "$rondo" run -o /nonexistent/dir/t.rondo -- \
	mpirun -np 2 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} "$top_builddir/tests/mpi/basic" 2 \
	>"$tmp/u.out" 2>&1) || fail "unwritable output stopped the program"
grep -q "cannot write the trace: .*/nonexistent/dir/t.rondo" "$tmp/u.out" ||
	fail "unwritable output not reported: $(cat "$tmp/u.out")"
ls "$tmp"/wd/basic-*.rondo >/dev/null 2>&1 || fail "no fallback trace in the working directory"

echo "mpi.sh: $fails failed"
[ "$fails" -eq 0 ]
