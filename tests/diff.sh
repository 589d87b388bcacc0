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
