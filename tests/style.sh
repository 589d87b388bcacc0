#!/bin/sh
# style.sh - every C file of the tree is as the committed .clang-format
# lays it out (STYLE.md: one layout, checked, not argued over).  The
# layout belongs to clang-format's version, so the check runs with the
# one Debian 12 ships (14), which quickstart.sh installs; with another
# version, or none, it is skipped and says so.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
cf=$(command -v clang-format-14 || command -v clang-format) ||
	{ echo "SKIP: no clang-format (Debian package clang-format)"; exit 77; }
"$cf" --version | grep -q 'version 14\.' ||
	{ echo "SKIP: $("$cf" --version) is not clang-format 14, whose layout .clang-format states"; exit 77; }
cd "$top_srcdir" || exit 1
n=0
for f in $(find common format reader include tracer recover analyses tui tests \
	-name '*.[ch]' ! -name wrappers.c | sort); do
	n=$((n + 1))
	"$cf" --style=file "$f" | diff -u "$f" - >"$tmp/diff" && continue
	fail "$f is not laid out as .clang-format says (clang-format -i $f):"
	head -n 20 "$tmp/diff"
done
[ "$n" -gt 90 ] || fail "only $n C files found under $top_srcdir"
[ "$fails" -eq 0 ] && echo "style.sh: $n files, all as .clang-format lays them out"
[ "$fails" -eq 0 ]
