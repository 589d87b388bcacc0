#!/bin/sh
# consumer.sh - a program built against rondo.h alone (tests/consumer.c,
# compiled with only include/ on its include path) resolves the ranks of
# every call through the public rank resolver, and gets exactly the ranks
# `rondo dump --rank` prints, and the world ranks the test trace was
# written with (mktrace --peers: relative ranks on the world, on
# subcommunicators and on a Cartesian grid, MPI_PROC_NULL,
# MPI_ANY_SOURCE, an intercommunicator, a root, statuses).
set -u
. "$(dirname "$0")/lib.sh"
test_setup
consumer="$top_builddir/tests/consumer"
cd "$tmp" || exit 1
"$top_builddir/tests/mktrace" --peers peers.rondo || { echo "FAIL: mktrace"; exit 1; }

expect_exit 0 "$consumer" --peers peers.rondo
mv "$tmp/out" resolved
[ "$(wc -l <resolved)" -eq 88 ] || fail "want 11 calls naming ranks on 8 ranks, got $(wc -l <resolved) lines"
for r in 0 1 2 3 4 5 6 7; do
	expect_exit 0 "$rondo" dump --rank $r peers.rondo
	cat "$tmp/out" >>dumped
done

# Each call's rank-valued fields, as (name, rank as passed) sorted: from
# the consumer's "R I name=LOCAL@WORLD" and from the dump's text, where a
# rank it cannot resolve is written as its stored form ("?24:-4").
env -u LD_PRELOAD "${PYTHON3:-python3}" - resolved dumped <<'PY' >diffs
import re, sys
names = ("dest", "source", "root")
want = {}
for line in open(sys.argv[1]):
    r, i, *fields = line.split()
    want[(r, i)] = sorted(f.split("@")[0] for f in fields)
got = {}
for line in open(sys.argv[2]):
    r, i, text = line.split(" ", 2)
    fields = re.findall(r"\b(%s)=(-?\d+|MPI_[A-Z_]+|\?[^,)}\]]*)" % "|".join(names), text)
    if fields:
        got[(r, i)] = sorted("%s=%s" % (n, "?" if v.startswith("?") else v) for n, v in fields)
for key in sorted(set(want) | set(got)):
    if want.get(key) != got.get(key):
        print("call %s %s: consumer %s, dump %s" % (key[0], key[1], want.get(key), got.get(key)))
PY
[ -s diffs ] && fail "the resolver and rondo dump disagree: $(cat diffs)"

# World ranks, worked out by hand from the trace's communicators.
cat >expected <<'TXT'
0 0 dest=1@1
0 1 dest=3@6
0 2 dest=4@3
0 3 dest=0@7
0 4 dest=?@-
0 5 dest=MPI_PROC_NULL@-
0 6 dest=3@7
0 7 source=MPI_ANY_SOURCE@- source=7@7
0 8 source=1@2 source=MPI_PROC_NULL@-
0 9 root=2@4
0 10 source=0@7
5 0 dest=6@6
5 1 dest=1@3
5 2 dest=3@4
5 3 dest=7@0
5 4 dest=?@-
5 5 dest=MPI_PROC_NULL@-
5 6 dest=3@6
5 7 source=MPI_ANY_SOURCE@- source=4@4
5 8 source=3@7 source=MPI_PROC_NULL@-
5 9 root=2@5
5 10 source=0@7
TXT
grep -E '^(0|5) ' resolved >got
diff -u expected got || fail "world ranks differ from the ones the trace was written with"

# The plain consumer (make installcheck runs it against the installed
# library) on the demo.
"$top_builddir/tests/mktrace" --ranks 3 --iters 2 demo.rondo
expect_exit 0 "$consumer" demo.rondo
grep -q '^rank 0: 1[0-9] calls$' "$tmp/out" || fail "consumer on the demo: $(cat "$tmp/out")"

[ "$fails" -eq 0 ] && echo "consumer.sh: all passed"
[ "$fails" -eq 0 ]
