#!/bin/sh
# limits.sh - valid traces at the limits of the counts (tests/corpus/
# limit-*.rondo, written by mktrace --corpus): totals that pass 2^64 - 1
# stop there and are flagged, never wrapped.  limit-messages: 4 ranks in a
# ring, 2^62 MPI_Sendrecv of 1024 doubles each (2^64 calls and messages,
# 2^75 bytes a pair); limit-count: four messages of 2^60 doubles;
# limit-times: per-call times of the longest intervals and durations the
# scale has (2^62 ns) and clock offsets of 2^61 ns either way, whose
# starts are held within 2^61 ns instead of overflowing.  In the
# sanitizer build, undefined behaviour aborts (exit status not 0).
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
corpus="$top_srcdir/tests/corpus"
note='^rondo: totals marked >=1\.8E19 passed 2\^64 - 1 and stopped there: they are lower bounds$'
csvnote='^rondo: totals marked 18446744073709551615 passed 2\^64 - 1 and stopped there: they are lower bounds$'

# has PATTERN: a line of the output matches (grep -E).
has() {
	grep -Eq -- "$1" "$tmp/out" || fail "want a line like '$1' in: $(head -c 600 "$tmp/out")"
}

# The committed files are the ones the writer makes today.
mkdir "$tmp/fresh" && "$top_builddir/tests/mktrace" --corpus "$tmp/fresh" ||
	fail "mktrace --corpus"
for f in limit-messages limit-count limit-times; do
	cmp -s "$corpus/$f.rondo" "$tmp/fresh/$f.rondo" ||
		fail "$f.rondo differs from what mktrace --corpus writes: regenerate it"
done

m="$corpus/limit-messages.rondo"
expect_exit 0 "$rondo" info "$m"
has '^calls +>=1\.8E19$'
has '^ +MPI_Sendrecv +>=1\.8E19 +4$'
has '^ +MPI_Init +4 +1$'
one_error "$note"

expect_exit 0 "$rondo" stats "$m"
has '^limits: 4 ranks, run time unknown, MPI time >=18446744074 s$'
# calls and total saturated, so no mean: "-"
has '^MPI_Sendrecv +4 +>=1\.8E19 +>=18446744074 s +- +1 ns +1 ns +- '
one_error "$note"
expect_exit 0 "$rondo" stats --by signature --csv - "$m"
has '^2,MPI_Sendrecv,4611686018427387904,4611686018427387904,'
[ ! -s "$tmp/err" ] ||
	fail "stats by signature: no row passed 2^64 - 1, yet: $(cat "$tmp/err")"
expect_exit 0 "$rondo" stats --csv - "$m"
has '^MPI_Sendrecv,4,18446744073709551615,18446744073709551615,'
one_error "$csvnote"
expect_exit 0 "$rondo" stats --by rank "$m"
has '^ +0 +4611686018427387906 +4611686018 s '
one_error "$note"

expect_exit 0 "$rondo" matrix "$m"
has '^4 ranks, >=1\.8E19 messages, >=1\.8E19 bytes, 4 pairs communicating$'
has '^ +0 +\. +4\.61E +\. +\.$'
one_error "$note"
expect_exit 0 "$rondo" matrix --bytes "$m"
has '^ +3 +>=1\.8E19 +\. +\. +\.$'
expect_exit 0 "$rondo" matrix --csv - "$m"
for pair in 0,1 1,2 2,3 3,0; do
	has "^$pair,4611686018427387904,18446744073709551615\$"
done
one_error "$csvnote"
expect_exit 0 "$rondo" matrix --collectives "$m"
has '^4 ranks, >=1\.8E19 messages'

expect_exit 0 "$rondo" contention "$m"
has '^limits: 4 ranks, run time unknown; 0 ns of the >=18446744074 s in MPI lost'
has '^ +#2 +0 ns .* 4611686018427387904 +1 ns '
expect_exit 0 "$rondo" dump --grammar "$m"
has '^  R0 +\(4611686018427387906 calls\) -> s0 s2\^4611686018427387904 s1$'
expect_exit 0 "$rondo" dump --rank 3 --limit 2 "$m"
has '^3 1 MPI_Sendrecv\(sendcount=1024, sendtype=MPI_DOUBLE, dest=0, '

c="$corpus/limit-count.rondo"
expect_exit 0 "$rondo" matrix "$c"
has '^2 ranks, 4 messages, >=1\.8E19 bytes, 1 pairs communicating$'
one_error "$note"
expect_exit 0 "$rondo" matrix --csv - "$c"
has '^0,1,4,18446744073709551615$'
one_error "$csvnote"
expect_exit 0 "$rondo" info "$c"
has '^calls +8$'
[ ! -s "$tmp/err" ] || fail "info: nothing passed 2^64 - 1, yet: $(cat "$tmp/err")"
expect_exit 0 "$rondo" stats "$c"
has '^MPI_Send +1 +4 +4\.00 us '
[ ! -s "$tmp/err" ] || fail "stats: nothing passed 2^64 - 1, yet: $(cat "$tmp/err")"

t="$corpus/limit-times.rondo"
expect_exit 0 "$rondo" dump --times --rank 0 --limit 3 "$t"
has '^0 2 2305843009\.213693952 2305843009\.213693952 MPI_Isend\('
expect_exit 0 "$rondo" dump --times --rank 1 --limit 3 "$t"
has '^1 2 0\.000000000 0\.000000000 MPI_Isend\('
for cmd in timeline skew waits "matrix --from 0 --to 1" "matrix --from -1e9 --to 1e9 --csv -"; do
	# shellcheck disable=SC2086 # the command's words
	expect_exit 0 "$rondo" $cmd "$t"
done

echo "limits.sh: $fails failed"
[ "$fails" -eq 0 ]
