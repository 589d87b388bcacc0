#!/bin/sh
# bench_scale.sh [BUILDDIR] - trace bytes and merge time from 4 to 16 384
# ranks, measured: the programs of tests/mpi (stencil, stencil3d,
# collloop, colorsplit, xor, transpose, multipart, a2av) traced on 4, 16
# and 64 real ranks (oversubscribed), and made by tests/bench/bench_scale
# on 256, 1 024, 4 096 and 16 384 synthetic ranks: the tables each rank of
# the program records, built in one process and merged by the tracer's
# own code in the tree MPI_Finalize uses.
#
# Each row: the file's bytes, each section's stored bytes (`rondo info`),
# the rank groups (distinct rank grammars), rank 0's merge time and of it
# the time spent merging what came in (for synthetic rows: the tree's
# critical path with one core a rank and no message latency, and rank 0's
# own merging), and the bytes each rank added since the row before
# (the step from 64 real to 256 synthetic ranks includes the difference
# of their metadata, a few dozen bytes).  Then, per program, the figures
# against the targets: at most 8 bytes per added rank, statistics
# included, once past the program's distinct roles (taken between the two
# largest synthetic rows), and the 16 384-rank file under 64 KB.
#
# Before that, how faithful the synthetic traces are: each real program
# on 16 ranks against bench_scale's 16 ranks, by `rondo dump` (every call
# of every rank) and `rondo dump --grammar`, as they are and with buffer
# ids masked.
#
# BENCH_ITERS (default 100) iterations each; BENCH_MAX_RANKS (default
# 16384) caps the synthetic rows (a2av at 16 384 takes minutes: each
# rank's Alltoallv names four arrays of 16 384 counts); BENCH_PROGRAMS
# (default all) names the programs; BENCH_NOISE (default 1) scales how
# much bench_scale's made-up times vary between ranks and calls (0: all
# ranks alike), which is what the per-rank time section costs.  A
# program not built in BUILDDIR/tests/mpi has synthetic rows only.
# Figures, not pass/fail: the exit status is non-zero only when a run
# fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_scale "${1:-}"
lib=$build/tracer/.libs/librondo-trace.so
rondo=$build/tui/rondo
scale=$build/tests/bench/bench_scale
[ -x "$scale" ] || die "$scale not built (make tests/bench/bench_scale)"
[ -x "$rondo" ] || die "$rondo not built (make)"
iters=${BENCH_ITERS:-100}
max=${BENCH_MAX_RANKS:-16384}
noise=${BENCH_NOISE:-1}
case $iters$max in '' | *[!0-9]*) die "BENCH_ITERS and BENCH_MAX_RANKS must be numbers" ;; esac
programs=${BENCH_PROGRAMS:-stencil stencil3d collloop colorsplit xor transpose multipart a2av}
real_ranks="4 16 27 64"
synth_ranks="256 1024 4096 16384"

real=1
if ! command -v mpirun >/dev/null 2>&1; then
	echo "note: no mpirun: synthetic rows only"
	real=0
elif [ ! -f "$lib" ]; then
	echo "note: $lib not built: synthetic rows only"
	real=0
fi
mpi_env
[ "$real" = 0 ] || san_env
[ -z "${san:-}" ] || echo "note: the tracer is built with sanitizers"
scratch
unset LD_PRELOAD RONDO_DISABLE RONDO_OUT
started=$(date +%s)
missing=
export RONDO_EXPECT="$tmp/expect" # where the expect.h programs write

# args PROGRAM: its arguments after the iterations
args() {
	case $1 in stencil) echo 64 ;; *) echo ;; esac
}

# info FILE: sets bytes groups ms busy and sections ("name=stored ...")
info() {
	"$rondo" info "$1" >"$tmp/info" || die "rondo info $1 failed"
	bytes=$(wc -c <"$1")
	set -- $(awk '
		/^rank groups  +[0-9]/ { sub(/,.*/, "", $3); groups = $3 }
		/^  merge / { ms = $4; busy = $9; sub(/^\(/, "", busy) }
		/^sections:/ { s = 1; next }
		s && NF == 3 && $2 ~ /^[0-9]+$/ { secs = secs " " $1 "=" $2 }
		END { print groups + 0, ms + 0, busy + 0, secs }' "$tmp/info")
	groups=$1 ms=$2 busy=$3
	shift 3
	sections="$*"
}

# record PROGRAM RANKS KIND: one row, from info's figures
record() {
	echo "$1 $2 $3 $bytes $groups $ms $busy $sections" >>"$tmp/rows"
	echo "figure scale-$1-np$2 bytes $bytes" >>"$tmp/figures"
	echo "figure scale-$1-np$2 merge-ms $ms" >>"$tmp/figures"
}

# trace_real PROGRAM NP: traces the program on NP ranks into $tmp/real.rondo
trace_real() {
	t0=$(date +%s)
	RONDO_TRACE_LIB="$lib" "$rondo" run -o "$tmp/real.rondo" -- mpirun \
		-np "$2" "$build/tests/mpi/$1" "$iters" $(args "$1") \
		>"$tmp/out" 2>&1 ||
		die "$1 on $2 ranks failed: $(tail -5 "$tmp/out")"
	echo "bench_scale: $1 on $2 real ranks: $(($(date +%s) - t0)) s" >&2
}

# make_synthetic PROGRAM NP: bench_scale's job into $tmp/synth.rondo
make_synthetic() {
	t0=$(date +%s)
	"$scale" --pattern "$1" --ranks "$2" --iters "$iters" \
		--noise "$noise" -o "$tmp/synth.rondo" >"$tmp/out" 2>&1 ||
		die "bench_scale --pattern $1 --ranks $2 failed: $(tail -5 "$tmp/out")"
	echo "bench_scale: $1 on $2 synthetic ranks: $(($(date +%s) - t0)) s" >&2
	awk '{ for (i = 1; i < NF; i++) if ($i == "merge-total-ms") print $(i + 1) }' \
		"$tmp/out" >"$tmp/total"
}

# fidelity PROGRAM: real against synthetic on 16 ranks, by rondo dump
fidelity() {
	make_synthetic "$1" 16
	for k in real synth; do
		"$rondo" dump "$tmp/$k.rondo" >"$tmp/$k.dump" || die "rondo dump failed"
		"$rondo" dump --grammar "$tmp/$k.rondo" >"$tmp/$k.gram" || die "rondo dump failed"
		sed -E 's/m[0-9]+\+[0-9]+/BUF/g' "$tmp/$k.dump" >"$tmp/$k.masked"
	done
	calls=$(wc -l <"$tmp/real.dump")
	d=$(diff "$tmp/real.dump" "$tmp/synth.dump" | grep -c '^<')
	dm=$(diff "$tmp/real.masked" "$tmp/synth.masked" | grep -c '^<')
	dg=$(diff "$tmp/real.gram" "$tmp/synth.gram" | grep -c '^<')
	if [ "$d" = 0 ] && [ "$dg" = 0 ]; then
		verdict="identical: every call of every rank, and the grammar"
	elif [ "$dm" = 0 ]; then
		verdict="the same calls but for buffer ids; $dg lines of the grammar dump differ"
	else
		verdict="$dm of $calls calls differ (buffer ids masked), $dg lines of the grammar dump"
	fi
	printf "%-10s %6s calls  %s\n" "$1" "$calls" "$verdict" >>"$tmp/fidelity"
	echo "figure scale-$1 fidelity-np16-calls-differ $dm" >>"$tmp/figures"
}

: >"$tmp/rows"
: >"$tmp/fidelity"
for prog in $programs; do
	if [ "$real" = 1 ] && [ -x "$build/tests/mpi/$prog" ]; then
		for np in $real_ranks; do
			# 27 ranks (a cube, not a square): the stencils and the
			# collective loop only, for their target against 64
			if [ "$np" = 27 ]; then
				case $prog in stencil | stencil3d | collloop) ;; *) continue ;; esac
			fi
			trace_real "$prog" "$np"
			info "$tmp/real.rondo"
			record "$prog" "$np" real
			[ "$np" = 16 ] && fidelity "$prog"
		done
	else
		missing="$missing $prog"
	fi
	for np in $synth_ranks; do
		[ "$np" -le "$max" ] || continue
		make_synthetic "$prog" "$np"
		info "$tmp/synth.rondo"
		record "$prog" "$np" synthetic
		echo "figure scale-$prog-np$np merge-total-ms $(cat "$tmp/total")" >>"$tmp/figures"
	done
done

echo "rondo bench-scale: $build"
[ "$real" = 0 ] || echo "$(mpirun --version 2>&1 | head -1); $(nproc) cores; real ranks oversubscribed"
echo "$iters iterations; real: $real_ranks ranks; synthetic (bench_scale): up to $max ranks, time noise x$noise"
[ -z "$missing" ] || echo "not traced (not built in $build/tests/mpi):$missing"
if [ -s "$tmp/fidelity" ]; then
	echo
	echo "synthetic against real on 16 ranks (rondo dump)"
	cat "$tmp/fidelity"
fi
echo
echo "sizes in bytes (sections as stored); merge times in ms; B/+rank: bytes each rank added since the row before"
awk -v out="$tmp/summary" -v figs="$tmp/figures" '
function width(name) { return length(name) > 6 ? length(name) : 6 }
function get(a, k) { return (k in a) ? a[k] : 0 }
{
	row[NR] = $0
	for (i = 8; i <= NF; i++) {
		split($i, kv, "=")
		if (!(kv[1] in seen)) { seen[kv[1]] = 1; order[++ns] = kv[1] }
	}
}
END {
	printf "%-10s %6s %-5s %8s", "program", "ranks", "kind", "bytes"
	for (k = 1; k <= ns; k++) printf " %*s", width(order[k]), order[k]
	printf " %6s %9s %8s %8s\n", "groups", "merge-ms", "busy-ms", "B/+rank"
	for (n = 1; n <= NR; n++) {
		m = split(row[n], f, " ")
		delete sec
		for (i = 8; i <= m; i++) { split(f[i], kv, "="); sec[kv[1]] = kv[2] }
		prog = f[1]; ranks = f[2]; per = "-"
		if (prog == last) {
			per = sprintf("%.2f", (f[4] - lastbytes) / (ranks - lastranks))
			for (k = 1; k <= ns; k++)
				step[prog, order[k]] = (get(sec, order[k]) - get(lastsec, order[k])) / (ranks - lastranks)
			stepfrom[prog] = lastranks; stepto[prog] = ranks; stepper[prog] = per
			groupsbefore[prog] = lastgroups
		} else {
			progs[++np] = prog
		}
		printf "%-10s %6d %-5s %8d", prog, ranks, f[3] == "real" ? "real" : "synth", f[4]
		for (k = 1; k <= ns; k++) printf " %*s", width(order[k]), (order[k] in sec) ? sec[order[k]] : "-"
		printf " %6d %9.3f %8.3f %8s\n", f[5], f[6], f[7], per
		last = prog; lastbytes = f[4]; lastranks = ranks; lastgroups = f[5]
		delete lastsec
		for (k in sec) lastsec[k] = sec[k]
		finalbytes[prog] = f[4]; finalranks[prog] = ranks; finalgroups[prog] = f[5]
		if (f[3] == "real") realbytes[prog, ranks] = f[4]
	}
	printf "\nagainst the targets: at most 8 B/+rank past the distinct roles (the step between the two largest rows), the 16384-rank file under 64 KB\n" >out
	printf "%-10s %-12s %-12s %8s %-4s %10s %-4s  %s\n", "program", "groups", "step", "B/+rank", "", "bytes", "", "most per added rank (B)" >out
	for (i = 1; i <= np; i++) {
		p = progs[i]
		if (!(p in stepper)) continue
		top = ""
		for (t = 0; t < 3; t++) {
			best = ""; bv = 0.005
			for (k = 1; k <= ns; k++)
				if (!(order[k] in used) && step[p, order[k]] > bv) { bv = step[p, order[k]]; best = order[k] }
			if (best == "") break
			used[best] = 1
			top = top sprintf("%s%s %.2f", top == "" ? "" : ", ", best, bv)
		}
		delete used
		ok1 = stepper[p] + 0 <= 8 ? "ok" : "over"
		ok2 = finalranks[p] < 16384 ? "-" : finalbytes[p] < 65536 ? "ok" : "over"
		grp = groupsbefore[p] == finalgroups[p] ? finalgroups[p] "" : groupsbefore[p] "->" finalgroups[p]
		printf "%-10s %-12s %-12s %8s %-4s %10d %-4s  %s\n", p, grp, stepfrom[p] "->" stepto[p], stepper[p], ok1, finalbytes[p], ok2, top >out
		printf "figure scale-%s bytes-per-added-rank %s\n", p, stepper[p] >>figs
		printf "figure scale-%s largest-bytes %d\n", p, finalbytes[p] >>figs
	}
	printf "\nreal runs, 27 against 64 ranks (target: no bigger at 64 for the stencils and the collective loop)\n" >out
	for (i = 1; i <= np; i++) {
		p = progs[i]
		if (!((p, 27) in realbytes) || !((p, 64) in realbytes)) continue
		printf "%-10s %8d -> %8d  %s\n", p, realbytes[p, 27], realbytes[p, 64],
			realbytes[p, 64] <= realbytes[p, 27] ? "ok" : "bigger" >out
	}
}' "$tmp/rows"
echo
cat "$tmp/summary"
echo "(groups a->b: the rank groups grow with the ranks, so the program's roles are never all past)"
echo
echo "ran in $(($(date +%s) - started)) s"
echo
cat "$tmp/figures"
