#!/bin/sh
# diff.sh - rondo diff on traces from the tests' writer with one known
# difference each (mktrace --change): each is reported as that
# difference and nothing else; equal traces are "same communication",
# exit 0; the first call that differs is the one rondo dump shows; a
# long trace is compared without expanding it.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mktrace="$top_builddir/tests/mktrace"
cd "$tmp" || exit 1

mk() { "$mktrace" "$@" || { echo "FAIL: mktrace $*"; exit 1; }; }
mk --ranks 4 --iters 10 a.rondo
mk --ranks 4 --iters 10 a2.rondo
for c in call count peer time buffers; do
	mk --ranks 4 --iters 10 --change $c $c.rondo
done
mk --ranks 6 --iters 10 six.rondo

# sections OUT: the titles of the sections the report printed, one line
sections() {
	grep -E '^[a-z].*:$|^(same|different) communication' "$tmp/out" |
		sed 's/ (.*//; s/:.*//' | tr '\n' '|'
}

# want_sections LIST: the report printed exactly these sections
want_sections() {
	got=$(sections)
	[ "$got" = "$1" ] || fail "$2: sections '$got', want '$1'"
}

# first_call R A B: the first line where rank R's calls in dumps of A and
# B differ (rondo dump's call number), or "none"
first_call() {
	"$rondo" dump --rank "$1" "$2" | cut -d' ' -f2- >"$tmp/da"
	"$rondo" dump --rank "$1" "$3" | cut -d' ' -f2- >"$tmp/db"
	cmp "$tmp/da" "$tmp/db" 2>/dev/null >/dev/null && { echo none; return; }
	awk 'NR == FNR { a[FNR] = $0; n = FNR; next }
	     { if (!found && a[FNR] != $0) { print $1; found = 1 } m = FNR }
	     END { if (!found) print (n < m ? n : m) }' "$tmp/da" "$tmp/db"
}

# equal traces
expect_exit 0 "$rondo" diff a.rondo a2.rondo
want_sections "same communication|" "equal traces"
expect_exit 0 "$rondo" diff --ignore buffers a.rondo a.rondo
grep -q "^buffers and request ids not compared" "$tmp/out" ||
	fail "--ignore buffers is not said"

# a call added: rank 2's Barrier, in its middle iteration
expect_exit 1 "$rondo" diff a.rondo call.rondo
want_sections "calls|calls per signature and rank|calls per function and rank|different communication|" "a call added"
at=$(first_call 2 a.rondo call.rondo)
grep -q "^  rank 2: call $at of 73 (B: 74)$" "$tmp/out" ||
	fail "a call added: want rank 2, call $at: $(cat "$tmp/out")"
grep -A1 '^  MPI_Barrier(comm=MPI_COMM_WORLD)$' "$tmp/out" |
	grep -q '^    A 1, B 2 on rank 2$' || fail "a call added: Barrier counts"
grep -q "^different communication: the calls of 1 rank differ$" "$tmp/out" ||
	fail "a call added: verdict"

# a count changed: rank 1's send to the right, 2048 doubles
expect_exit 1 "$rondo" diff a.rondo count.rondo
want_sections "calls|calls per signature and rank|matrix|different communication|" "a count changed"
at=$(first_call 1 a.rondo count.rondo)
grep -q "^  rank 1: call $at of 73$" "$tmp/out" || fail "a count changed: call $at"
grep -q "^    B: MPI_Isend(.*count=2048.*dest=2," "$tmp/out" ||
	fail "a count changed: the call (absolute peer for one rank)"
grep -q '^  1 -> 2: A 10 messages, 81.9 kB; B 10 messages, 164 kB$' "$tmp/out" ||
	fail "a count changed: matrix"
[ "$(grep -Ec '^  [0-9]+ -> [0-9]+: ' "$tmp/out")" -eq 1 ] || fail "a count changed: other cells"

# a peer changed: rank 1 sends two ranks to the right
expect_exit 1 "$rondo" diff a.rondo peer.rondo
want_sections "calls|calls per signature and rank|matrix|different communication|" "a peer changed"
grep -q "^    B: MPI_Isend(.*dest=3," "$tmp/out" || fail "a peer changed: the call"
grep -q '^  1 -> 2: A 10 messages, 81.9 kB; B 0 messages, 0 B$' "$tmp/out" &&
	grep -q '^  1 -> 3: A 0 messages, 0 B; B 10 messages, 81.9 kB$' "$tmp/out" ||
	fail "a peer changed: matrix"

# a time doubled: every Allreduce; the calls are the same
expect_exit 0 "$rondo" diff a.rondo time.rondo
want_sections "time|time per rank|same communication|" "a time doubled"
grep -A1 '^  MPI_Allreduce(' "$tmp/out" | grep -q '(+100%)$' ||
	fail "a time doubled: Allreduce's mean"
[ "$(grep -c '^  MPI_' "$tmp/out")" -eq 1 ] || fail "a time doubled: other signatures"
expect_exit 0 "$rondo" diff --ignore times a.rondo time.rondo
want_sections "same communication|" "--ignore times"
expect_exit 0 "$rondo" diff --threshold 150 a.rondo time.rondo
want_sections "same communication|" "--threshold 150"

# buffers moved: different, unless --ignore buffers
expect_exit 1 "$rondo" diff a.rondo buffers.rondo
grep -q "^different communication: the calls of 4 ranks differ$" "$tmp/out" ||
	fail "buffers moved: verdict"
expect_exit 0 "$rondo" diff --ignore buffers a.rondo buffers.rondo
want_sections "same communication|" "buffers moved, --ignore buffers"

# rank counts that differ
expect_exit 1 "$rondo" diff a.rondo six.rondo
grep -q "^matrix not compared: the rank counts differ$" "$tmp/out" &&
	grep -q "^different communication: A has 4 ranks, B 6;" "$tmp/out" &&
	grep -q "^  rank 5: call 0 of 0 (B: 53)$" "$tmp/out" &&
	grep -A1 "^  rank 4: call 0 of 0 (B: 73)$" "$tmp/out" | grep -q "A: (no call" ||
	fail "rank counts: $(cat "$tmp/out")"

# CSV
expect_exit 1 "$rondo" diff --csv - a.rondo count.rondo
[ "$(head -1 "$tmp/out")" = "section,item,ranks,a,b" ] || fail "csv header"
grep -q '^calls,4,1,' "$tmp/out" && grep -q '^bytes,1->2,,81920,163840$' "$tmp/out" &&
	grep -q '^messages,1->2,,10,10$' "$tmp/out" &&
	[ "$(tail -1 "$tmp/out")" = "verdict,different communication,,," ] ||
	fail "csv rows: $(cat "$tmp/out")"
expect_exit 0 "$rondo" diff --csv diff.csv a.rondo time.rondo
grep -q '^time_mean_ns,"MPI_Allreduce(.*",,[0-9]*,[0-9]*$' diff.csv ||
	fail "csv time rows: $(cat diff.csv)"

# a long trace: 5.4 million calls, a difference in the middle of one rank
mk --ranks 16 --iters 50000 long.rondo
mk --ranks 16 --iters 50000 --change call long2.rondo
expect_exit 1 "$rondo" diff long.rondo long2.rondo
grep -q "^  rank 2: call 175008 of 350003 (B: 350004)$" "$tmp/out" ||
	fail "long trace: $(cat "$tmp/out")"

# --groups: where two ranks' groups in one trace differ.  In call.rondo
# rank 2 calls one MPI_Barrier more than rank 1, in its middle
# iteration: exactly that call, at the index rondo dump gives it.
expect_exit 1 "$rondo" diff --groups 1,2 call.rondo
cat >"$tmp/want" <<'EOF2'
< rank 1: 73 calls a rank
> rank 2: 74 calls a rank
1 stretch of calls differs (call: its index from 0 among the rank's calls, the first time it runs)
@ at the top level: call 43 of rank 1 <, call 43 of rank 2 >
> MPI_Barrier(comm=MPI_COMM_WORLD)
EOF2
cmp -s "$tmp/out" "$tmp/want" || fail "diff --groups 1,2: $(diff "$tmp/want" "$tmp/out")"
"$rondo" dump --rank 2 call.rondo | grep -q "^2 43 MPI_Barrier(comm=MPI_COMM_WORLD)$" ||
	fail "diff --groups: call 43 of rank 2 is not the Barrier"
# the same on 5.4 million calls, never expanded; one group: 0, the same
expect_exit 1 "$rondo" diff --groups 2,1 long2.rondo
grep -q "^@ at the top level: call 175008 of rank 2 <, call 175008 of rank 1 >$" "$tmp/out" &&
	grep -q "^< MPI_Barrier(comm=MPI_COMM_WORLD)$" "$tmp/out" &&
	[ "$(grep -c '^[<>] ' "$tmp/out")" -eq 3 ] ||
	fail "diff --groups 2,1 on the long trace: $(cat "$tmp/out")"
expect_exit 0 "$rondo" diff --groups 1,3 long2.rondo
grep -q "^ranks 1 and 3 are one group, ranks 1,3-14 (13): the same calls$" "$tmp/out" ||
	fail "diff --groups 1,3: $(cat "$tmp/out")"
# the edge ranks against an inner one: in the loop, each run
expect_exit 1 "$rondo" diff --groups 0,1 a.rondo
grep -q "^@ in x10 \[ MPI_Irecv ... MPI_Allreduce \] (each run): call 1 of rank 0 <, call 1 of rank 1 >$" "$tmp/out" ||
	fail "diff --groups 0,1: $(cat "$tmp/out")"
expect_exit 1 "$rondo" diff --groups 1,9 a.rondo
one_error "^rondo: --groups: a.rondo has no rank 9 \(ranks 0-3\)$"
expect_exit 2 "$rondo" diff --groups 1 a.rondo
usage_error diff "groups '1': say two ranks"
expect_exit 2 "$rondo" diff --groups 1,2 a.rondo a2.rondo
usage_error diff "diff --groups takes one FILE"

# usage and bad input: 2, and 1 with one message
expect_exit 2 "$rondo" diff a.rondo
usage_error diff "diff takes two FILEs"
expect_exit 2 "$rondo" diff --ignore nothing a.rondo a2.rondo
usage_error diff "ignore 'nothing'"
expect_exit 2 "$rondo" diff --threshold x a.rondo a2.rondo
head -c 100 a.rondo >cut.rondo
expect_exit 1 "$rondo" diff a.rondo cut.rondo
one_error "^rondo: cannot open cut.rondo: "
expect_exit 0 "$rondo" diff --help

[ "$fails" -eq 0 ] && echo "diff.sh: all passed"
[ "$fails" -eq 0 ]
