#!/bin/sh
# scale.sh - ranks whose calls follow their rank by a rule other than "the
# same": do they share one grammar?  Five programs of tests/mpi, each
# traced at several sizes, every rank's calls checked one by one against
# what the program made (expect.h), and the rank groups `rondo info`
# lists checked against what is right:
#  - colorsplit (splits of colour 0 key rank, of colour rank key 0, and
#    reductions on both): one group at any size;
#  - xor (recursive doubling, partner rank ^ k): one group on a power of
#    two;
#  - transpose (row and column splits of a q x q grid, an Alltoall in the
#    row, a Sendrecv with the transpose partner): one group on a square;
#    on 6 ranks the two past the grid take part in the splits and the last
#    reduction only;
#  - multipart (diagonal exchanges on a periodic q x q grid): no more
#    groups than the ranks have roles on the torus, where every rank's
#    peers are the same offsets of row and column: one (as offsets of the
#    rank modulo the number of ranks, a peer across the first or last
#    column is another offset: 3 roles when q >= 3, which are printed);
#  - a2av (an Alltoallv whose counts follow the rank): no target.
# Every run prints the trace's bytes and rank groups.  Then xor on 64
# ranks, oversubscribed, with few iterations.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
# The sanitizer runtimes only where the module goes: the dumps of every
# rank (compare) take a third of the time without them.
unset LD_PRELOAD
: >"$tmp/pending"
: >"$tmp/functions"

# groups FILE: the number of rank groups.
groups() { "$rondo" info "$1" | sed -n 's/^rank groups  *\([0-9]*\).*/\1/p'; }

# run NAME NP ARGS...: tests/mpi/NAME on NP ranks, traced to $tmp/NAME.rondo.
run() {
	name=$1; np=$2; shift 2
	rm -f "$tmp/$name.expect".* "$tmp/$name.rondo"
	RONDO_EXPECT="$tmp/$name.expect" LD_PRELOAD="$san" \
		timeout 300 "$rondo" run -o "$tmp/$name.rondo" -- \
		mpirun -np "$np" -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
		"$top_builddir/tests/mpi/$name" "$@" >"$tmp/$name.out" 2>&1 ||
		{ fail "$name on $np ranks: exit status $?: $(tail -5 "$tmp/$name.out")"; return 1; }
}

# traced NAME NP ARGS...: run, every rank's calls compared; g is set to
# the rank groups, and the trace's size and g are printed.
traced() {
	g=
	run "$@" || return 1
	compare "$1" "$2"
	g=$(groups "$tmp/$1.rondo")
	echo "$1 on $2 ranks: $(wc -c <"$tmp/$1.rondo") bytes, $g rank groups"
	[ -n "$g" ] || fail "$1 on $2 ranks: no rank groups in rondo info"
}

# want NAME NP N WHY: the last traced run has N rank groups.
want() {
	[ "$g" = "$3" ] || fail "$1 on $2 ranks: $g rank groups, want $3 ($4)"
}

# roles Q: the roles of multipart's ranks on a Q x Q torus: the distinct
# lists of where the four peers are (the program's order), first as
# offsets on the torus (row, column, each modulo Q), then as offsets of
# the rank modulo Q * Q.
roles() {
	awk -v q="$1" 'BEGIN {
		n = q * q
		split("-1 -1 -1 1 1 1 1 -1", d)
		for (r = 0; r < n; r++) {
			i = int(r / q); j = r % q; torus = flat = ""
			for (k = 1; k <= 8; k += 2) {
				pi = (i + d[k] + q) % q; pj = (j + d[k + 1] + q) % q
				torus = torus " " (pi - i + q) % q "," (pj - j + q) % q
				flat = flat " " (pi * q + pj - r + n) % n
			}
			if (!(torus in t)) { t[torus] = 1; nt++ }
			if (!(flat in f)) { f[flat] = 1; nf++ }
		}
		print nt, nf
	}'
}

for np in 1 2 3 4 8 16; do
	traced colorsplit $np 20 && want colorsplit $np 1 "every rank alike"
done

for np in 1 2 4 6 8 16; do
	traced xor $np 20 || continue
	[ $((np & (np - 1))) -ne 0 ] || want xor $np 1 "a power of two"
done

for np in 1 4 6 9 16; do
	traced transpose $np 20 || continue
	case $np in 1 | 4 | 9 | 16) want transpose $np 1 "a square" ;; esac
done

for q in 1 2 3 4; do
	np=$((q * q))
	traced multipart $np 20 || continue
	set -- $(roles $q)
	echo "multipart on $np ranks: $g rank groups; roles: $1 on the torus, $2 as rank offsets modulo $np"
	[ -n "$g" ] && [ "$g" -le "$1" ] ||
		fail "multipart on $np ranks: $g rank groups, want $1 (the roles on the torus; $2 as rank offsets modulo $np)"
done

for np in 1 2 4 8 16; do
	traced a2av $np 20
done

# many ranks, few iterations
traced xor 64 3 && want xor 64 1 "a power of two"

[ $fails -eq 0 ] && echo "scale.sh: 0 failed" || echo "scale.sh: $fails failed"
[ $fails -eq 0 ]
