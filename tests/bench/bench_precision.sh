#!/bin/sh
# bench_precision.sh [BUILDDIR] - the size of the trace of codes that are
# not regular, against time steps and ranks, lossless and at lower
# precisions (RONDO_PRECISION: loops of the same body whose counts differ
# merged into one, tracer/precision.c).
#
# tests/bench/bench_irregular in each of its modes (regular, converge: a
# data-dependent number of iterations of the convergence loop each time
# step and of polls each rank; amr: halo sizes that drift; both; tags:
# halos tagged with the step's number, traced with
# RONDO_PRECISION_PARAMS=tags so that tags merge too; peers: partners
# that change every 4 steps, from 5 ranks on, traced with
# RONDO_PRECISION_PARAMS=peers), traced
# with the default statistics on BENCH_RANKS ranks (default "1 4 16",
# oversubscribed past the cores) for BENCH_STEPS time steps (default
# "100 1000 10000"), at precision 100 and each of BENCH_PRECISIONS
# (default "95 90 0"), in each of BENCH_MODES (default all six).  A
# table per mode, a row per ranks, steps and
# precision:
#   calls/rank   the MPI calls one rank made in the loop
#   trace-B      the trace's bytes
#   B/step       trace-B over the time steps
#   x-lossless   the lossless trace's bytes over trace-B
#   calls-read   the calls the trace reads back (rondo info: merged loops
#                run their mean), and calls-err% its difference from the
#                lossless trace's, in percent
#   grammar-B    its grammar section (stored), cst-B its signatures'
#   rules, sigs  as rondo info counts them
# and `figure precision-MODE-npP-sS bytes=... ` lines on stderr.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_precision "${1:-}"
rondo=$build/tui/rondo
lib=$build/tracer/.libs/librondo-trace.so
prog=$build/tests/bench/bench_irregular
command -v mpirun >/dev/null 2>&1 || die "no mpirun"
[ -x "$rondo" ] && [ -f "$lib" ] || die "$build: not built (make)"
[ -x "$prog" ] || die "$prog not built (make tests/bench/bench_irregular)"
ranks=${BENCH_RANKS:-1 4 16}
precisions=${BENCH_PRECISIONS:-95 90 0}
modes=${BENCH_MODES:-regular converge amr both tags peers}
steps=${BENCH_STEPS:-100 1000 10000}

tmp=$(mktemp -d) || die "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT RONDO_TIMING RONDO_TIME_BASE
mpi_env
ASAN_EXITCODE= san_env
cores=$(nproc 2>/dev/null || echo 1)

# section NAME: the stored bytes of section NAME in $tmp/info.
section() {
	awk -v n="$1" '/^sections:/ { on = 1; next } on && $1 == n && NF == 3 { print $2; f = 1 }
	END { if (!f) print 0 }' "$tmp/info"
}

echo "bench_precision: $(cd "$here/../.." && git rev-parse --short HEAD 2>/dev/null || echo '?'), $cores cores"
for mode in $modes; do
	echo
	echo "$mode: bench_irregular $mode STEPS, traced at each precision (100: lossless)"
	echo "ranks    steps  prec  calls/rank   trace-B     B/step  x-lossless  calls-read  calls-err%  grammar-B    cst-B  rules   sigs"
	params=
	case $mode in tags | peers) params=$mode ;; esac
	for np in $ranks; do
		over=
		[ "$np" -gt "$cores" ] && over=--oversubscribe
		for s in $steps; do
			lossless=0 lcalls=0
			for prec in 100 $precisions; do
				[ "$prec" = 100 ] && [ "$lossless" -gt 0 ] && continue
				rm -f "$tmp/t.rondo"
				mpirun $over -np "$np" -x LD_PRELOAD="$pre" \
					-x RONDO_OUT="$tmp/t.rondo" \
					-x RONDO_PRECISION="$prec" \
					-x RONDO_PRECISION_PARAMS="$params" \
					-x OMPI_MCA_mpi_yield_when_idle=1 \
					"$prog" "$mode" "$s" >"$tmp/out" 2>&1 ||
					die "$mode on $np ranks, $s steps: $(cat "$tmp/out")"
				line=$(grep '^bench_irregular ' "$tmp/out")
				[ -s "$tmp/t.rondo" ] && [ -n "$line" ] ||
					die "$mode on $np ranks, $s steps: no trace: $(cat "$tmp/out")"
				"$rondo" info "$tmp/t.rondo" >"$tmp/info" 2>&1 || die "rondo info failed"
				cpr=$(echo "$line" | sed 's/.* calls=\([0-9]*\).*/\1/')
				bytes=$(wc -c <"$tmp/t.rondo")
				calls=$(awk '$1 == "calls" { print $2 }' "$tmp/info")
				rules=$(sed -n 's/^rules  *\([0-9]*\).*/\1/p' "$tmp/info")
				sigs=$(sed -n 's/^signatures  *//p' "$tmp/info")
				if [ "$prec" = 100 ]; then
					lossless=$bytes lcalls=$calls
				fi
				printf '%5s %8s %5s %11s %9s %10.1f %11s %11s %11s %10s %8s %6s %6s\n' \
					"$np" "$s" "$prec" "$cpr" "$bytes" \
					"$(echo "$bytes $s" | awk '{ print $1 / $2 }')" \
					"$(echo "$lossless $bytes" | awk '{ printf "%.1f", $1 / $2 }')" \
					"$calls" \
					"$(echo "$calls $lcalls" | awk '{ printf "%+.2f", ($1 - $2) * 100 / $2 }')" \
					"$(section grammar)" "$(section cst)" "$rules" "$sigs"
				echo "figure precision-$mode-np$np-s$s-p$prec bytes=$bytes lossless-over-bytes=$(echo "$lossless $bytes" | awk '{ printf "%.2f", $1 / $2 }') calls-read=$calls calls-lossless=$lcalls rules=$rules sigs=$sigs" >&2
			done
		done
	done
done
