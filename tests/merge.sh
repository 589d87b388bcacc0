#!/bin/sh
# merge.sh - the merge of the ranks' tables at MPI_Finalize, in a tree of
# ceil(log2 P) rounds (tracer/output.c), on real MPI runs:
#  - lossless: tests/mpi/irregular (ranks doing different things,
#    different iteration counts, split communicators) on 1, 2, 3, 5, 8, 16
#    and 32 ranks, every rank's calls checked one by one against what the
#    program made (expect.h), and the metadata saying how many rounds;
#  - alike ranks share one grammar: an Allreduce/Bcast loop has one rank
#    grammar whatever the number of ranks, a 2-D non-periodic stencil at
#    most 9; the rank groups `rondo info` lists cover every rank once.
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
	echo "irregular on $np ranks: $(groups "$tmp/irregular.rondo") rank groups, merge $m"
done

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

[ $fails -eq 0 ] && echo "merge.sh: 0 failed" || echo "merge.sh: $fails failed"
[ $fails -eq 0 ]
