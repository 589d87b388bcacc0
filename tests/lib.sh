# lib.sh - what the shell scripts that run the tracer share; sourced.  The
# functions that use the tracer module want lib set to it
# (tracer/.libs/librondo-trace.so).
#
# mpi_env: lets Open MPI run as root (it refuses otherwise) and place more
# ranks than there are cores.
#
# san_env: a sanitizer build of the module needs the sanitizer runtimes
# loaded before anything else in the programs it is preloaded into, which
# are not instrumented themselves.  Sets san to those runtimes (empty for a
# plain build) and pre to what to preload for the module ("$san:$lib", or
# "$lib"); with sanitizers, exports ASAN_OPTIONS: no leak report for the
# programs traced (theirs, not ours), and exit status 86 when ASan finds
# something (unless ASAN_EXITCODE says otherwise; empty: ASan's own).

# bench_setup NAME [BUILDDIR]: what the benchmarks (tests/bench/, where
# $here is) share: die(), which prints NAME and a message and exits 1; build,
# the build directory (default ../../build from here); lib and prog, the
# tracer module and bench_p2p in it, both built; mpirun at hand.
bench_setup() {
	bench_build "$@"
	lib=$build/tracer/.libs/librondo-trace.so
	prog=$build/tests/bench/bench_p2p
	command -v mpirun >/dev/null 2>&1 || die "no mpirun"
	[ -f "$lib" ] || die "$lib not built (make)"
	[ -x "$prog" ] || die "$prog not built (make tests/bench/bench_p2p)"
}

# bench_build NAME [BUILDDIR]: bench and build alone, for benchmarks that
# need other programs than bench_p2p.
bench_build() {
	bench=$1
	build=${2:-$here/../../build}
	build=$(cd "$build" 2>/dev/null && pwd) ||
		die "no build directory ${2:-$here/../../build}"
}

die() { echo "$bench: $*" >&2; exit 1; }

# test_setup: what a test script starts with, once it has sourced this
# file: top_builddir (from the environment make check gives, else the
# script's parent directory), rondo and lib in it, and scratch.
test_setup() {
	: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
	rondo="$top_builddir/tui/rondo"
	lib="$top_builddir/tracer/.libs/librondo-trace.so"
	scratch
}

# mpi_setup: for a test of MPI programs under `rondo run`: skips without
# mpirun, fails without the module, then mpi_env and san_env, and
# preloads the sanitizer runtimes (rondo run adds the module after them).
mpi_setup() {
	command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
	[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
	mpi_env
	san_env
	[ -z "$san" ] || export LD_PRELOAD="$san"
}

# The tests' own awk without the sanitizer runtimes mpi_setup preloads:
# under them Debian's mawk reads past a buffer in memcmp and is aborted
# (seen in matrix.sh, in CI's sanitizer build).
awk() {
	env -u LD_PRELOAD awk "$@"
}

# scratch: a temporary directory $tmp, removed at exit, and fail(), which
# prints a failure and counts it in $fails.
scratch() {
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	fails=0
}

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# flip IN OUT OFFSET: OUT is IN with one bit of the byte at OFFSET flipped.
flip() {
	python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3])] ^= 0x10
open(sys.argv[2], "wb").write(d)' "$@"
}

# offset FILE NAME: where section NAME starts, from rondo info's list
# (sections tile the file from byte 32, in that order), or -1.
offset() {
	"$rondo" info "$1" | awk -v want="$2" '
	/^sections:/ { on = 1; at = 32; next }
	on && $1 == want { print at; found = 1; exit }
	on && NF == 3 && $2 ~ /^[0-9]+$/ { at += $2 }
	END { if (!found) print -1 }'
}

# one_error PATTERN: stderr is one line matching PATTERN (grep -E).
one_error() {
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Eq "$1" "$tmp/err" ||
		fail "want one message like '$1', got: $(cat "$tmp/err")"
}

# usage_error CMD PATTERN: stderr is one line matching PATTERN, then the
# hint to run rondo CMD --help.
usage_error() {
	[ "$(wc -l <"$tmp/err")" -eq 2 ] && head -1 "$tmp/err" | grep -Eq "$2" &&
		[ "$(sed -n 2p "$tmp/err")" = "Try 'rondo $1 --help' for more information." ] ||
		fail "want one usage error like '$2', got: $(cat "$tmp/err")"
}

# expect_exit CODE CMD...: runs CMD, output in $tmp/out and $tmp/err.
expect_exit() {
	want=$1; shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" -eq "$want" ] || fail "$* exited $got, not $want: $(head -c 300 "$tmp/err")"
}

mpi_env() {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_rmaps_base_oversubscribe=1
	[ "${MPI_FLAVOR:-openmpi}" = mpich ] && mpich_launcher
	return 0
}

# The tests launch with Open MPI's words (mpirun -np N -x VAR[=VALUE]
# --oversubscribe ... [: ...]), also through `rondo run -- mpirun`.  For
# a tracer built against MPICH, an `mpirun` first in PATH says the same
# to MPICH's launcher: -x VAR=VALUE as -env VAR VALUE (like Open MPI's -x,
# Hydra's -env sets it for the programs of its own part of an MPMD
# command line only; -genv would set it for all), -x VAR dropped (Hydra
# passes the whole environment on), --oversubscribe dropped.
mpich_launcher() {
	hydra=$(command -v mpiexec.mpich || command -v mpiexec.hydra) ||
		{ echo "FAIL: no MPICH launcher (mpiexec.mpich)"; exit 1; }
	mkdir -p "$tmp/launcher"
	cat >"$tmp/launcher/mpirun" <<EOF_LAUNCHER
#!/bin/sh
n=\$#
while [ \$n -gt 0 ]; do
	a=\$1; shift; n=\$((n - 1))
	case \$a in
	--oversubscribe) ;;
	-x) v=\$1; shift; n=\$((n - 1))
	    case \$v in *=*) set -- "\$@" -env "\${v%%=*}" "\${v#*=}" ;; esac ;;
	*) set -- "\$@" "\$a" ;;
	esac
done
exec $hydra "\$@"
EOF_LAUNCHER
	chmod +x "$tmp/launcher/mpirun"
	PATH="$tmp/launcher:$PATH"
	export PATH
}

san_env() {
	san=$(ldd "$lib" | awk '/lib(asan|ubsan)\.so/ { printf "%s%s", sep, $3; sep = ":" }')
	pre=$lib
	if [ -n "$san" ]; then
		pre="$san:$lib"
		ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0"
		[ -z "${ASAN_EXITCODE-86}" ] ||
			ASAN_OPTIONS="$ASAN_OPTIONS:exitcode=${ASAN_EXITCODE-86}"
		export ASAN_OPTIONS
	fi
}

# compare NAME NP: checks the trace $tmp/NAME.rondo of tests/mpi/NAME on NP
# ranks, whose output is in $tmp/NAME.out, call by call against what the
# program expected ($tmp/NAME.expect.<rank>, tests/mpi/expect.h): rank 0's
# one-line report, then every rank's calls.  Needs rondo, tmp and fail();
# collects the functions called in $tmp/functions and the pending checks
# in $tmp/pending.
compare() {
	name=$1; np=$2
	out="$tmp/$name.rondo"
	grep -q "^rondo: $out: [0-9]* bytes, [0-9]* MPI calls" "$tmp/$name.out" ||
		fail "$name: no one-line report from rank 0: $(cat "$tmp/$name.out")"
	r=0
	while [ $r -lt "$np" ]; do
		# no expectations (RONDO_EXPECT lost on the way): nothing
		# would be compared, so it is a failure
		if [ ! -s "$tmp/$name.expect.$r" ]; then
			fail "$name rank $r: the program wrote no expectations"
			r=$((r + 1))
			continue
		fi
		"$rondo" dump --rank $r "$out" >"$tmp/dump.$r" ||
			fail "$name: rondo dump --rank $r"
		cut -d' ' -f3- "$tmp/dump.$r" >"$tmp/got.$r"
		sed 's/(.*//' "$tmp/got.$r" | sort -u >>"$tmp/functions"
		if [ "$(wc -l <"$tmp/got.$r")" -ne "$(wc -l <"$tmp/$name.expect.$r")" ]; then
			fail "$name rank $r: $(wc -l <"$tmp/got.$r") calls recorded, $(wc -l <"$tmp/$name.expect.$r") made"
		fi
		paste -d '\n' "$tmp/$name.expect.$r" "$tmp/got.$r" | awk -v who="$name rank $r" '
			NR % 2 == 1 { re = $0; next }
			$0 !~ ("^" re "$") && ++bad <= 10 { printf "FAIL: %s call %d:\n  want %s\n  got  %s\n", who, NR / 2 - 1, re, $0 }
			END { if (bad > 10) printf "FAIL: %s: %d more calls differ\n", who, bad - 10; exit bad > 0 }' || fails=$((fails + 1))
		# pending: index, strict regex, reason -> PASS or PEND, reason
		[ ! -s "$tmp/$name.expect.pending.$r" ] ||
			awk -F '\t' -v got="$tmp/got.$r" '
			BEGIN { while ((getline l <got) > 0) line[n++] = l }
			{ ok = ($1 in line) && line[$1] ~ ("^" $2 "$")
			  printf "%s\t%s\n", ok ? "PASS" : "PEND", $3 }' \
			"$tmp/$name.expect.pending.$r" >>"$tmp/pending"
		r=$((r + 1))
	done
}

# replayed NAME NP: the trace $tmp/NAME.rondo of NP ranks replayed by
# rondo-replay under the tracer ($tmp/NAME.replay.rondo), then its proxy
# (rondo proxy, compiled with the build's compiler, warnings as errors,
# the sanitizers of a sanitizer build) run under the tracer
# ($tmp/NAME_proxy.rondo), the watchdog on for both: `rondo diff --ignore
# buffers` must say "same communication" of each (every rank's calls
# equal, call by call).  Needs rondo, tmp, san and fail(); CC, SAN_CFLAGS,
# MPI_CFLAGS and MPI_LIBS from make check.  Returns 1 after a failure.
replayed() {
	name=$1 np=$2 a="$tmp/$1.rondo" p="$tmp/${1}_proxy"
	replay="$top_builddir/replay/rondo-replay"
	[ -x "$replay" ] || { fail "$replay not built"; return 1; }
	timeout 600 "$rondo" run -o "$tmp/$name.replay.rondo" -- mpirun -np "$np" \
		${san:+-x ASAN_OPTIONS} "$replay" --watchdog 60 "$a" \
		>"$tmp/$name.replay.out" 2>&1 ||
		{ fail "$name: the replay failed: $(grep -v '^ *$' "$tmp/$name.replay.out" | head -20)"; return 1; }
	same_calls "$name" "$tmp/$name.replay.rondo" replay || return 1
	echo "ok: $name on $np ranks: $("$rondo" info "$a" | sed -n 's/^calls *//p') calls, same communication"
	"$rondo" proxy -o "$p.c" "$a" 2>"$tmp/$name.gen" ||
		{ fail "$name: rondo proxy: $(cat "$tmp/$name.gen")"; return 1; }
	# shellcheck disable=SC2086 # flags are lists
	$CC $SAN_CFLAGS -Wall -Wextra -Werror $MPI_CFLAGS "$p.c" -o "$p" \
		$MPI_LIBS -lpthread >"$tmp/$name.cc" 2>&1 ||
		{ fail "$name: the proxy does not compile: $(head -20 "$tmp/$name.cc")"; return 1; }
	timeout 600 "$rondo" run -o "$p.rondo" -- mpirun -np "$np" \
		${san:+-x ASAN_OPTIONS} "$p" --watchdog 60 \
		>"$tmp/$name.proxy.out" 2>&1 ||
		{ fail "$name: the proxy failed: $(grep -v '^ *$' "$tmp/$name.proxy.out" | head -20)"; return 1; }
	same_calls "$name" "$p.rondo" proxy || return 1
	echo "ok: $name's proxy: $(wc -l <"$p.c") lines, same communication ($(sed 's/^rondo: wrote [^:]*: //' "$tmp/$name.gen"))"
}

# same_calls NAME B WHAT: the re-trace B says the same as $tmp/NAME.rondo.
same_calls() {
	"$rondo" diff --ignore buffers "$tmp/$1.rondo" "$2" >"$tmp/$1.$3.diff" 2>&1
	status=$?
	if [ $status -ne 0 ] || [ "$(tail -1 "$tmp/$1.$3.diff")" != "same communication" ]; then
		fail "$1: the $3's calls differ (diff status $status):"
		sed -n '1,30p' "$tmp/$1.$3.diff"
		return 1
	fi
}

# export_traces: traces the bundled programs rondo export is tested on
# (tests/export.sh, tests/export_otf2.sh) into $tmp/NAME.rondo, 4 ranks
# each, with per-call times; p2p_agg is p2p without them.  Sets
# export_names.  Returns 1 after a failure (reported).
export_traces() {
	export_names="p2p coll comms topo completion waitany testsome p2p_agg"
	for name in $export_names; do
		prog=${name%_agg}
		timing=percall
		[ "$name" = "$prog" ] || timing=aggregated
		[ -x "$top_builddir/tests/mpi/$prog" ] ||
			{ echo "FAIL: tests/mpi/$prog not built"; return 1; }
		# the programs write what they expected beside them
		# (RONDO_EXPECT, tests/mpi/expect.h): into $tmp, never the
		# build directory (make distcheck counts what is left there)
		(cd "$tmp" && RONDO_EXPECT="$tmp/$name.expect" timeout 120 \
			"$rondo" run --timing "$timing" -o "$tmp/$name.rondo" -- \
			mpirun -np 4 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
			"$top_builddir/tests/mpi/$prog") >"$tmp/$name.run" 2>&1 &&
			[ -s "$tmp/$name.rondo" ] ||
			{ echo "FAIL: tracing $prog: $(tail -5 "$tmp/$name.run")"; return 1; }
	done
}

# replay_run NAME PROGRAM [OPTIONS] [TRACE]: PROGRAM (rondo-replay, a
# proxy) run on $NP ranks (2 by default) under the tracer with a watchdog and no compute,
# into $tmp/NAME.rondo, its output in $tmp/NAME.out; fail() when it does
# not end well.  Needs mpi_setup, rondo, tmp.
replay_run() {
	name=$1 what=$2
	shift 2
	# shellcheck disable=SC2086 # flags are lists
	timeout 300 "$rondo" run -o "$tmp/$name.rondo" -- mpirun -np "${NP:-2}" \
		${san:+-x ASAN_OPTIONS} "$what" --watchdog 60 --compute none \
		"$@" >"$tmp/$name.out" 2>&1 && [ -s "$tmp/$name.rondo" ] ||
		{ fail "$name: status $?: $(tail -5 "$tmp/$name.out")"; return 1; }
}

# proxy_same TRACE REPLAYED [OPTIONS]: the proxy of $tmp/TRACE.rondo
# (rondo proxy, compiled as replayed's are) run by replay_run (as px,
# with OPTIONS) makes the calls of $tmp/REPLAYED.rondo, rondo-replay's.
proxy_same() {
	of=$1 p="$tmp/${1}_proxy" who=$2
	shift 2
	"$rondo" proxy -o "$p.c" "$tmp/$of.rondo" 2>"$tmp/proxy.gen" ||
		{ fail "rondo proxy of $of: $(cat "$tmp/proxy.gen")"; return 1; }
	# shellcheck disable=SC2086 # flags are lists
	$CC $SAN_CFLAGS -Wall -Wextra -Werror $MPI_CFLAGS "$p.c" -o "$p" \
		$MPI_LIBS -lpthread >"$tmp/proxy.cc" 2>&1 ||
		{ fail "the proxy of $of does not compile: $(head -20 "$tmp/proxy.cc")"; return 1; }
	replay_run px "$p" "$@" || return 1
	"$rondo" diff --ignore buffers "$tmp/$who.rondo" "$tmp/px.rondo" >"$tmp/px.diff" 2>&1
	[ "$(tail -1 "$tmp/px.diff")" = "same communication" ] ||
		fail "the proxy of $of and the replay differ: $(head -12 "$tmp/px.diff")"
}

# hists_within WHAT FILE: every histogram of merged values named WHAT
# ("count:", "tag:") that FILE (rondo dump --grammar) lists has its
# values within 10 % of each other and of its written value, and there
# is one at least.
hists_within() {
	awk -v what="$1" '/^merged values/ { on = 1; next } /^merged loops/ { on = 0 }
	on && $2 == what { lr = $6; sub(/,$/, "", lr); split(lr, r, "-"); w = $10; sub(/\),$/, "", w)
		if (r[2] * 90 > r[1] * 110 || w * 0.9 > r[1] || w * 1.1 < r[2]) { print "not within 10 %: " $0; bad = 1 }
		n++ }
	END { if (!n) { print "no merged " what " listed"; bad = 1 }
		exit bad }' "$2" >"$tmp/why" || fail "$(cat "$tmp/why")"
}

# irregular NAME MODE STEPS [RUN OPTIONS]: $tmp/NAME.rondo, the trace of
# tests/bench/bench_irregular MODE STEPS on $NP ranks (2 by default;
# rondo run with RUN OPTIONS), its output in $tmp/NAME.out; the test ends
# when it fails.
# trace_bytes NAME, trace_calls NAME: its size, the calls rondo info
# reads.  Needs mpi_setup, rondo, tmp.
irregular() {
	name=$1 mode=$2 steps=$3
	shift 3
	timeout 300 "$rondo" run -o "$tmp/$name.rondo" "$@" -- \
		mpirun -np "${NP:-2}" ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/bench/bench_irregular" "$mode" "$steps" \
		>"$tmp/$name.out" 2>&1 && [ -s "$tmp/$name.rondo" ] ||
		{ echo "FAIL: $name: status $?: $(tail -5 "$tmp/$name.out")"; exit 1; }
}
trace_bytes() { wc -c <"$tmp/$1.rondo" | tr -d ' '; }
trace_calls() { "$rondo" info "$tmp/$1.rondo" | awk '$1 == "calls" { print $2 }'; }

# seeded_replays NAME TRACE: $tmp/TRACE.rondo replayed by rondo-replay
# (replay_run) as NAME5 and NAME5b with --seed 5, NAME6 with --seed 6 and
# NAMEany without: the two with seed 5 make the same calls, the one with
# seed 6 others.  Returns 1 when a replay failed.
seeded_replays() {
	sr=$1 st="$tmp/$2.rondo" rp="$top_builddir/replay/rondo-replay"
	replay_run "${sr}5" "$rp" --seed 5 "$st" &&
		replay_run "${sr}5b" "$rp" --seed 5 "$st" &&
		replay_run "${sr}6" "$rp" --seed 6 "$st" &&
		replay_run "${sr}any" "$rp" "$st" || return 1
	"$rondo" diff --ignore buffers "$tmp/${sr}5.rondo" "$tmp/${sr}5b.rondo" >"$tmp/$sr.diff" 2>&1
	[ "$(tail -1 "$tmp/$sr.diff")" = "same communication" ] ||
		fail "two replays of $2 with --seed 5 differ: $(head -12 "$tmp/$sr.diff")"
	"$rondo" diff --ignore buffers "$tmp/${sr}5.rondo" "$tmp/${sr}6.rondo" >"$tmp/$sr.diff" 2>&1
	grep -q "^calls (the first call that differs):" "$tmp/$sr.diff" ||
		fail "replays of $2 with --seed 5 and 6 the same: $(head -12 "$tmp/$sr.diff")"
	return 0
}

# bytes_within ORIGINAL OTHER: each pair of $tmp/OTHER.rondo's matrix
# sends within 10 % of the bytes it sends in $tmp/ORIGINAL.rondo's, and
# no pair that does not send there.
bytes_within() {
	"$rondo" matrix --bytes --csv - "$tmp/$1.rondo" >"$tmp/$1.bmx" &&
		"$rondo" matrix --bytes --csv - "$tmp/$2.rondo" >"$tmp/$2.bmx" ||
		{ fail "rondo matrix of $1 or $2"; return; }
	awk -F, -v who="$2" '
		NR == FNR { if (FNR > 1) want[$1 "," $2] = $4; next }
		FNR > 1 { got[$1 "," $2] = $4 }
		END { for (k in want) { d = got[k] - want[k]; if (d < 0) d = -d
			if (d > 0.1 * want[k]) { printf "%s: %s sent %d bytes, the original %d\n", who, k, got[k], want[k]; bad = 1 } }
		      for (k in got) if (!(k in want)) { printf "%s: %s sent, not in the original\n", who, k; bad = 1 }
		      exit bad }' "$tmp/$1.bmx" "$tmp/$2.bmx" >"$tmp/why" || fail "$(cat "$tmp/why")"
}
