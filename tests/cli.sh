#!/bin/sh
# cli.sh - the rondo command on traces from the tests' writer: output
# compared with golden files, exit codes and messages on bad usage.
# REGEN=1 rewrites the golden files instead of comparing.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
mktrace="$top_builddir/tests/mktrace"
golden="$top_srcdir/tests/golden"

# compare NAME: $tmp/out against the golden file NAME.
compare() {
	if [ "${REGEN:-}" = 1 ]; then
		cp "$tmp/out" "$golden/$1"
	elif ! diff -u "$golden/$1" "$tmp/out"; then
		fail "output differs from golden/$1"
	fi
}

cd "$tmp" || exit 1
"$mktrace" --ranks 4 --iters 5 demo.rondo || { echo "FAIL: mktrace"; exit 1; }

# info: everything but the stored sizes, which belong to the zstd version
expect_exit 0 "$rondo" info demo.rondo
awk '/^format/ { sub(/, [0-9]+ bytes/, ", N bytes") }
     /^sections:/ { s = 1 }
     s && /^  [a-z]+ +[0-9]+ +[0-9]+$/ { printf "  %-12s %12s %12s\n", $1, "N", $3; next }
     { print }' "$tmp/out" >"$tmp/masked" && mv "$tmp/masked" "$tmp/out"
compare info.txt

expect_exit 0 "$rondo" dump --grammar demo.rondo
compare dump-grammar.txt
expect_exit 0 "$rondo" dump --rank 1 demo.rondo
compare dump-rank1.txt
expect_exit 0 "$rondo" dump demo.rondo
calls=$(wc -l <"$tmp/out")
[ "$calls" -eq $((4 * 3 + 5 * (2 * 3 + 2 * 5) + 5 * 4 * 2)) ] ||
	fail "dump printed $calls calls"
# options after the file work too
expect_exit 0 "$rondo" dump demo.rondo -r 3
[ "$(wc -l <"$tmp/out")" -eq $((3 + 5 * 5)) ] || fail "dump -r 3 after the file"

# selections: --ranks lists, --function, --limit
expect_exit 0 "$rondo" dump --ranks 1-3:2 demo.rondo
[ "$(cut -d' ' -f1 "$tmp/out" | sort -u | tr '\n' ' ')" = "1 3 " ] ||
	fail "--ranks 1-3:2 printed ranks $(cut -d' ' -f1 "$tmp/out" | sort -u | tr '\n' ' ')"
expect_exit 0 "$rondo" dump --function Allreduce demo.rondo
[ "$(grep -c ' MPI_Allreduce(' "$tmp/out")" -eq 40 ] && [ "$(wc -l <"$tmp/out")" -eq 40 ] ||
	fail "--function Allreduce: $(wc -l <"$tmp/out") lines"
expect_exit 0 "$rondo" dump --function MPI_Barrier --ranks 0,2 demo.rondo
[ "$(wc -l <"$tmp/out")" -eq 2 ] || fail "--function MPI_Barrier --ranks 0,2"
expect_exit 0 "$rondo" dump -n 7 demo.rondo
[ "$(wc -l <"$tmp/out")" -eq 7 ] || fail "--limit 7 printed $(wc -l <"$tmp/out")"
expect_exit 1 "$rondo" dump --function MPI_Nope demo.rondo
grep -q "has no calls of it" "$tmp/err" || fail "unknown function message"
expect_exit 2 "$rondo" dump --ranks 1- demo.rondo
expect_exit 1 "$rondo" dump --ranks 2-9 demo.rondo
expect_exit 2 "$rondo" dump --limit many demo.rondo

# a recovered trace's ranks cut short (the key "cut"): a line after each
# one's last call, and only after a rank's calls to the end
"$mktrace" --ranks 4 --iters 5 --cut "1-2=signal 15 (SIGTERM) inside MPI_Recv" \
	--cut "3=MPI_Abort(errorcode=3)" cut.rondo || fail "mktrace --cut"
expect_exit 0 "$rondo" dump cut.rondo
grep -A1 '^3 27 ' "$tmp/out" >"$tmp/cuts"
grep '^#' "$tmp/out" >>"$tmp/cuts"
printf '%s\n' "3 27 MPI_Finalize()" "# rank 3 was cut short here: MPI_Abort(errorcode=3)" \
	"# rank 1 was cut short here: signal 15 (SIGTERM) inside MPI_Recv" \
	"# rank 2 was cut short here: signal 15 (SIGTERM) inside MPI_Recv" \
	"# rank 3 was cut short here: MPI_Abort(errorcode=3)" | diff - "$tmp/cuts" ||
	fail "dump of a trace with ranks cut short"
expect_exit 0 "$rondo" dump --limit 3 --ranks 3 cut.rondo
grep -q '^#' "$tmp/out" && fail "dump --limit: a cut-short line before the rank's end"

# a newer minor version with an unknown section is read
"$mktrace" --ranks 2 --iters 2 --future future.rondo || fail "mktrace --future"
expect_exit 0 "$rondo" info future.rondo
grep -q '^  unknown ' "$tmp/out" || fail "unknown section not listed"

# usage errors: exit 2, one message naming the problem
expect_exit 2 "$rondo"
expect_exit 2 "$rondo" frobnicate demo.rondo
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown command message"
# a function named in any case, with or without MPI_, in every filter
expect_exit 0 "$rondo" matrix -f MPI_Isend --csv - demo.rondo
cp "$tmp/out" "$tmp/isend.csv"
grep -q "^[0-9]*,[0-9]*,[1-9]" "$tmp/isend.csv" || fail "matrix -f MPI_Isend: $(cat "$tmp/isend.csv")"
for f in isend ISEND mpi_isend; do
	expect_exit 0 "$rondo" matrix -f $f --csv - demo.rondo
	cmp -s "$tmp/out" "$tmp/isend.csv" || fail "matrix -f $f differs from -f MPI_Isend: $(cat "$tmp/out")"
	expect_exit 0 "$rondo" dump -f $f demo.rondo
	grep -q "MPI_Isend(" "$tmp/out" || fail "dump -f $f: no Isend"
done
# rondo FILE to a pipe: what rondo view FILE says there, same status
expect_exit 1 "$rondo" demo.rondo
grep -q "^rondo: view needs a terminal" "$tmp/err" || fail "rondo FILE to a pipe: $(cat "$tmp/err")"
expect_exit 1 "$rondo" view demo.rondo
grep -q "^rondo: view needs a terminal" "$tmp/err" || fail "rondo view FILE to a pipe: $(cat "$tmp/err")"
expect_exit 2 "$rondo" dump --rank x demo.rondo
grep -q -- "--rank: 'x' is not a rank" "$tmp/err" || fail "bad --rank message"
expect_exit 2 "$rondo" dump --bogus demo.rondo
expect_exit 2 "$rondo" info
expect_exit 2 "$rondo" info a.rondo b.rondo
# failures: exit 1, one line "rondo: ..."
expect_exit 1 "$rondo" dump --rank 4 demo.rondo
grep -q "has ranks 0 to 3" "$tmp/err" || fail "rank out of range message"
expect_exit 1 "$rondo" info /nonexistent/x.rondo
[ "$(cat "$tmp/err")" = "rondo: cannot open /nonexistent/x.rondo: No such file or directory" ] ||
	fail "missing file message: $(cat "$tmp/err")"
expect_exit 1 "$rondo" info "$tmp"
grep -q "not a regular file" "$tmp/err" || fail "directory message"
expect_exit 0 "$rondo" --version
grep -q '^rondo [0-9]' "$tmp/out" || fail "--version output"
expect_exit 0 "$rondo" --help
expect_exit 0 "$rondo" dump --help

[ "$fails" -eq 0 ] && echo "cli.sh: all passed"
[ "$fails" -eq 0 ]
