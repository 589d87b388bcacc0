#!/bin/sh
# corrupt.sh - damaged files must fail cleanly: exit status 1, one line on
# stderr naming the file and what is wrong, no crash, no sanitizer report
# (the build's sanitizers exit 86, see Makefile.am).  Runs the committed
# corpus in tests/corpus/ and a fresh one from the current writer.  The
# corpus's limit-*.rondo are valid files at the limits of the counts,
# checked by tests/limits.sh.
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
rondo="$top_builddir/tui/rondo"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# What the message must say for each file of the corpus.
expect() {
	case "$1" in
	empty* | truncated-header*) echo "file ends inside the 32-byte header" ;;
	truncated-index*) echo "truncated: 41 of [0-9]* bytes; the section table is lost" ;;
	truncated-rankmap*) echo "truncated: [0-9]* of [0-9]* bytes, inside section 'rankmap', which the calls need" ;;
	table-offset*) echo "belong to no section" ;;
	bad-magic*) echo "not a rondo" ;;
	future-major*) echo "upgrade rondo" ;;
	section-offset*) echo "starts at byte" ;;
	section-raw-size*) echo "cannot hold" ;;
	trailing-garbage*) echo "after the section table" ;;
	no-sections*) echo "belong to no section" ;;
	header-crc*) echo "header checksum mismatch" ;;
	section-crc*) echo "section 'cst' damaged (checksum mismatch), and the calls cannot be read without it" ;;
	missing-grammar*) echo "no 'grammar' section" ;;
	grammar-*) echo "section 'grammar'" ;;
	rankmap-*) echo "section 'rankmap'" ;;
	cst-*rel-*) echo "section 'cst': relative rank -*[0-9]* is out of range" ;;
	cst-vary-*) echo "section 'cst': signature 0 names per-rank value 0; the trace has 0" ;;
	cst-*) echo "section 'cst'" ;;
	meta-*) echo "section 'meta'" ;;
	stats-*) echo "section 'stats'" ;;
	sigstats-*) echo "section 'sigstats': histogram bin 9 holds 0 calls" ;;
	comms-*) echo "section 'comms'" ;;
	ranktime-*) echo "section 'ranktime'" ;;
	ranksum-*) echo "section 'ranksum'" ;;
	typesizes-*) echo "section 'typesizes'" ;;
	timing-*) echo "section 'timing'" ;;
	rankvals-*) echo "section 'rankvals'" ;;
	groupgaps-*) echo "section 'groupgaps': a rank group's rule past the last" ;;
	*) echo "(no expectation written for this file)" ;;
	esac
}

check_file() {
	f=$1
	name=$(basename "$f")
	for cmd in info "dump --grammar" "dump --rank 0" matrix; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$rondo" $cmd "$f" >/dev/null 2>"$tmp/err"
		status=$?
		lines=$(wc -l <"$tmp/err")
		if [ $status -ne 1 ]; then
			fail "$name ($cmd): exit status $status"
			head -n 20 "$tmp/err"
		elif [ "$lines" -ne 1 ]; then
			fail "$name ($cmd): $lines lines on stderr"
		elif ! grep -q "^rondo: cannot open $f: " "$tmp/err"; then
			fail "$name ($cmd): message does not name the file: $(cat "$tmp/err")"
		elif ! grep -qi "$(expect "$name")" "$tmp/err"; then
			fail "$name ($cmd): expected '$(expect "$name")' in: $(cat "$tmp/err")"
		fi
	done
}

count=0
for f in "$top_srcdir"/tests/corpus/*.rondo; do
	[ -e "$f" ] || continue
	count=$((count + 1))
	case $(basename "$f") in limit-*) continue ;; esac
	check_file "$f"
done
[ "$count" -ge 20 ] || fail "the committed corpus has only $count files"

mkdir "$tmp/fresh"
"$top_builddir/tests/mktrace" --corpus "$tmp/fresh" || fail "mktrace --corpus"
for f in "$tmp"/fresh/*.rondo; do
	case $(basename "$f") in limit-*) continue ;; esac
	check_file "$f"
done
[ "$(ls "$tmp/fresh" | wc -l)" -eq "$count" ] ||
	fail "the committed corpus differs in size from mktrace --corpus: regenerate it"

echo "corrupt.sh: $n runs, $fails failed"
[ "$fails" -eq 0 ]
