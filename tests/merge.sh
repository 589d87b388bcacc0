#!/bin/sh
# merge.sh - the merge of the ranks' tables at MPI_Finalize, in a tree of
# ceil(log2 P) rounds (tracer/merge_tree.c), on real MPI runs:
#  - lossless: tests/mpi/basic (a regular ring, collectives, a split) and
#    tests/mpi/irregular (ranks doing different things, different
#    iteration counts, split communicators) on 1, 2, 3, 5, 8, 16 and 32
#    ranks, every rank's calls checked one by one against what the program
#    made (expect.h), and the metadata saying how many rounds;
#  - reshaped grammars are lossless: tests/mpi/shuffle (completions in a
#    drawn order, runs of drawn lengths) on 4 ranks, each rank's grammar
#    reshaped (tracer/reshape.c, said by RONDO_VERBOSE=2), checked call
#    by call;
#  - alike ranks share one grammar: an Allreduce/Bcast loop has one rank
#    grammar whatever the number of ranks, a 2-D non-periodic stencil at
#    most 9, a periodic stencil one, in 3-D and in 2-D (neighbours on a
#    Cartesian grid are recorded as offsets of coordinates: the dump must
#    still give every rank's true neighbours); the rank groups `rondo
#    info` lists cover every rank once.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
: >"$tmp/pending"
: >"$tmp/functions"

# meta FILE KEY: a metadata value `rondo info` prints.
meta() { "$rondo" info "$1" | sed -n "s/^  $2  *//p"; }
# groups FILE: the number of rank groups.
groups() { "$rondo" info "$1" | sed -n 's/^rank groups  *\([0-9]*\).*/\1/p'; }

# run NAME NP ARGS...: tests/mpi/NAME on NP ranks, traced to $tmp/NAME.rondo.
run() {
	name=$1; np=$2; shift 2
	rm -f "$tmp/$name.expect".* "$tmp/$name.rondo"
	RONDO_EXPECT="$tmp/$name.expect" timeout 300 "$rondo" run -o "$tmp/$name.rondo" -- \
		mpirun -np "$np" -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/mpi/$name" "$@" >"$tmp/$name.out" 2>&1 ||
		{ fail "$name on $np ranks: exit status $?: $(tail -5 "$tmp/$name.out")"; return 1; }
}

for np in 1 2 3 5 8 16 32; do
	run basic $np 10 && compare basic $np
	run irregular $np || continue
	compare irregular $np
	rounds=0
	while [ $((1 << rounds)) -lt $np ]; do rounds=$((rounds + 1)); done
	m=$(meta "$tmp/irregular.rondo" merge)
	case $m in
	"$rounds rounds, "*) ;;
	*) fail "irregular on $np ranks: merge '$m', want $rounds rounds" ;;
	esac
	# each rank in exactly one group
	n=$("$rondo" info "$tmp/irregular.rondo" | awk '
		/^rank groups \(/ { on = 1; next }
		on && /^$/ { on = 0 }
		on && $1 ~ /^[0-9]+$/ { s += $4 }
		END { print s + 0 }')
	[ "$n" = "$np" ] || fail "irregular on $np ranks: groups hold $n ranks"
	[ -z "$(meta "$tmp/irregular.rondo" incomplete)" ] ||
		fail "irregular on $np ranks: $(meta "$tmp/irregular.rondo" incomplete)"
	# the run's duration, from MPI_Init on: no rank spent longer in MPI
	"$rondo" info "$tmp/irregular.rondo" | awk -v np=$np '
		function sec(v, u) { return v * (u == "s" ? 1 : u == "ms" ? 1e-3 : u == "us" ? 1e-6 : 1e-9) }
		/^  duration / { d = $2 }
		/^mpi time / { for (i = 1; i < NF; i++) if ($i == "max") m = sec($(i + 1), $(i + 2)) }
		END { if (d == "" || d <= 0 || m > d * 1.01) {
			printf "FAIL: irregular on %d ranks: duration %s s, most MPI time of a rank %g s\n", np, d, m; exit 1 } }' ||
		fails=$((fails + 1))
	echo "irregular on $np ranks: $(groups "$tmp/irregular.rondo") rank groups, merge $m"
done

# an irregular sequence: every rank's grammar reshaped, nothing lost
RONDO_VERBOSE=2 run shuffle 4 2000 && {
	compare shuffle 4
	n=$(grep -c '^rondo: rank [0-3]: grammar reshaped' "$tmp/shuffle.out")
	[ "$n" = 4 ] || fail "shuffle: $n ranks reshaped their grammar, want 4: $(grep '^rondo:' "$tmp/shuffle.out")"
}

# alike ranks: one grammar for the collective loop, at most 9 for the
# 2-D stencil (corners, edges, interior)
for np in 4 9 16; do
	run collloop $np 50 || continue
	[ "$(groups "$tmp/collloop.rondo")" = 1 ] ||
		fail "collloop on $np ranks: $(groups "$tmp/collloop.rondo") rank groups, want 1"
	run stencil $np 20 || continue
	g=$(groups "$tmp/stencil.rondo")
	[ -n "$g" ] && [ "$g" -le 9 ] || fail "stencil on $np ranks: $g rank groups, want 9 or fewer"
done

# neighbours NP DIMS: every rank's first 2*DIMS receives come from its
# neighbours on a periodic grid of MPI_Dims_create's shape, -1 then +1
# along each dimension (the program's order).
neighbours() {
	np=$1 nd=$2
	case "$np:$nd" in
	8:3) shape="2 2 2" ;; 27:3) shape="3 3 3" ;; 12:2) shape="4 3" ;;
	9:2) shape="3 3" ;; *) fail "no shape for $np ranks, $nd dims"; return ;;
	esac
	r=0
	while [ $r -lt "$np" ]; do
		want=$(echo "$shape" | awk -v r=$r '{
			n = NF; rest = r
			for (k = n; k >= 1; k--) { c[k] = rest % $k; rest = int(rest / $k) }
			for (k = 1; k <= n; k++) for (s = -1; s <= 1; s += 2) {
				p = 0
				for (j = 1; j <= n; j++) {
					x = c[j]; if (j == k) x = (x + s + $j) % $j
					p = p * $j + x
				}
				printf "%d ", p
			}
		}')
		got=$("$rondo" dump --rank $r --function MPI_Irecv --limit $((2 * nd)) \
			"$tmp/stencil3d.rondo" | sed 's/.*source=\([0-9]*\).*/\1/' | tr '\n' ' ')
		[ "$got" = "$want" ] ||
			fail "stencil3d on $np ranks, $nd dims, rank $r: receives from $got, want $want"
		r=$((r + 1))
	done
}
for case in "8 3" "27 3" "9 2" "12 2"; do
	set -- $case
	run stencil3d "$1" 20 8 "$2" || continue
	g=$(groups "$tmp/stencil3d.rondo")
	[ "$g" = 1 ] || fail "periodic stencil on $1 ranks, $2 dims: $g rank groups, want 1"
	neighbours "$1" "$2"
done

[ $fails -eq 0 ] && echo "merge.sh: 0 failed" || echo "merge.sh: $fails failed"
[ $fails -eq 0 ]
