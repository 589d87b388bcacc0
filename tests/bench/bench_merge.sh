#!/bin/sh
# bench_merge.sh [BUILDDIR] - what the merge at MPI_Finalize gives: trace
# bytes and rank 0's merge time, for the bundled regular programs over
# rank and iteration counts, and the size of nondeterministic loops.
#
#  - ranks: tests/mpi/stencil (2-D 5-point, non-periodic, 64-double halos,
#    Isend/Irecv/Waitall, MPI_Dims_create grid), tests/mpi/stencil3d (3-D
#    7-point, periodic, 64-double halos) and tests/mpi/collloop (an
#    Allreduce/Bcast loop) at 100 iterations on 1 to 64 ranks
#    (oversubscribed);
#  - iterations: the same three on 27 ranks at 10^2 to 10^5 iterations
#    (BENCH_MAX_ITERS caps them, default 100000);
#  - nondeterministic: tests/mpi/waitany (three Irecv and three Waitany an
#    iteration) and tests/mpi/testsome (a Testsome polling loop) on 27
#    ranks at 10^4 iterations.
#
# Each row: the file's bytes; "structure", the bytes of the sections that
# describe the calls (funcs, consts, cst, grammar, rankmap, comms,
# topology); "timing", those of the statistics (stats, ranktime); "meta"
# and the container (header, section table) are the rest; the rank groups
# (distinct rank grammars); the merge's rounds, rank 0's time in it, from
# when every rank has reached MPI_Finalize to the merged tables (a reduction
# to rank 0 first), and of that the time rank 0 spent merging what it took in (the
# rest is waiting for the other ranks' rounds, which on an oversubscribed
# machine run one after the other).  Pilgrim's
# bytes on this platform (all its files, no timing), from the issue that
# asked for this benchmark, are printed beside, with rondo's structure
# bytes as a share of them.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_merge "${1:-}"
lib=$build/tracer/.libs/librondo-trace.so
rondo=$build/tui/rondo
command -v mpirun >/dev/null 2>&1 || die "no mpirun"
[ -f "$lib" ] || die "$lib not built (make)"
for p in stencil stencil3d collloop waitany testsome; do
	[ -x "$build/tests/mpi/$p" ] || die "$build/tests/mpi/$p not built (make check builds it)"
done
max=${BENCH_MAX_ITERS:-100000}
case $max in '' | *[!0-9]*) die "BENCH_MAX_ITERS must be a number" ;; esac

mpi_env
san_env
[ -z "$san" ] || echo "note: the tracer is built with sanitizers"
scratch
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT

# trace NP PROGRAM ARGS...: traces a run; sets bytes structure timing
# groups rounds ms.
trace() {
	np=$1 prog=$2
	shift 2
	rm -f "$tmp/t.rondo"
	RONDO_TRACE_LIB="$lib" "$rondo" run -o "$tmp/t.rondo" -- mpirun -np "$np" \
		"$build/tests/mpi/$prog" "$@" >"$tmp/out" 2>&1 ||
		die "$prog on $np ranks failed: $(tail -5 "$tmp/out")"
	"$rondo" info "$tmp/t.rondo" >"$tmp/info" || die "rondo info failed"
	bytes=$(wc -c <"$tmp/t.rondo")
	set -- $(awk '
		/^rank groups  +[0-9]/ { sub(/,.*/, "", $3); groups = $3 }
		/^  merge / { rounds = $2; ms = $4; busy = $9; sub(/^\(/, "", busy) }
		/^sections:/ { s = 1; next }
		s && NF == 3 && $2 ~ /^[0-9]+$/ {
			if ($1 ~ /^(funcs|consts|cst|grammar|rankmap|comms|topology)$/) st += $2
			else if ($1 ~ /^(stats|ranktime)$/) tm += $2
		}
		END { print st + 0, tm + 0, groups + 0, rounds + 0, ms + 0, busy + 0 }' "$tmp/info")
	structure=$1 timing=$2 groups=$3 rounds=$4 ms=$5 busy=$6
}

row() {
	printf "%-10s %6s %8s %8s %10s %8s %7s %7s %9s %8s\n" "$@"
}

# pilgrim PROGRAM: Pilgrim's bytes at 27 ranks (the issue's figures).
pilgrim() {
	case $1 in
	stencil) echo 2726 ;; stencil3d) echo 8792 ;; collloop) echo 534 ;;
	waitany) echo 717720 ;; testsome) echo 1561364 ;; *) echo 0 ;;
	esac
}

echo "rondo bench-merge: $build"
echo "$(mpirun --version 2>&1 | head -1); $(nproc) cores; ranks oversubscribed"
echo
echo "ranks, at 100 iterations"
row program ranks iters bytes structure timing groups rounds merge-ms busy-ms
for prog in stencil stencil3d collloop; do
	for np in 1 2 4 8 9 16 27 32 64; do
		case $prog in
		stencil) trace "$np" stencil 100 64 ;;
		*) trace "$np" "$prog" 100 ;;
		esac
		row "$prog" "$np" 100 "$bytes" "$structure" "$timing" "$groups" "$rounds" "$ms" "$busy"
		echo "figure $prog-np$np structure-bytes $structure" >>"$tmp/figures"
		echo "figure $prog-np$np merge-ms $ms" >>"$tmp/figures"
		echo "figure $prog-np$np merge-busy-ms $busy" >>"$tmp/figures"
		[ "$np" = 27 ] && echo "$prog $structure" >>"$tmp/at27"
	done
done
echo
echo "iterations, on 27 ranks"
row program ranks iters bytes structure timing groups rounds merge-ms busy-ms
for prog in stencil stencil3d collloop; do
	for it in 100 1000 10000 100000; do
		[ "$it" -le "$max" ] || continue
		case $prog in
		stencil) trace 27 stencil "$it" 64 ;;
		*) trace 27 "$prog" "$it" ;;
		esac
		row "$prog" 27 "$it" "$bytes" "$structure" "$timing" "$groups" "$rounds" "$ms" "$busy"
		echo "figure $prog-iters$it structure-bytes $structure" >>"$tmp/figures"
	done
done
echo
echo "nondeterministic loops, on 27 ranks at 10^4 iterations"
row program ranks iters bytes structure timing groups rounds merge-ms busy-ms
for prog in waitany testsome; do
	trace 27 "$prog" 10000
	row "$prog" 27 10000 "$bytes" "$structure" "$timing" "$groups" "$rounds" "$ms" "$busy"
	echo "$prog $structure" >>"$tmp/at27"
	echo "figure $prog structure-bytes $structure" >>"$tmp/figures"
done
echo
echo "against Pilgrim on 27 ranks (its bytes, no timing; rondo's structure bytes)"
printf "%-10s %10s %10s %8s\n" program pilgrim rondo share
while read -r prog st; do
	p=$(pilgrim "$prog")
	awk -v n="$prog" -v p="$p" -v s="$st" 'BEGIN {
		printf "%-10s %10d %10d %7.1f%%\n", n, p, s, 100 * s / p }'
done <"$tmp/at27"
echo
cat "$tmp/figures"
