#!/bin/sh
# house.sh - the house rules are mechanical: each part's include path
# (Makefile.am's INC_* variables, exported here by make check) reaches
# only the headers it may use.  tui/, export/ and analyses/ see the public
# rondo.h, common/ and analyses/ (tui/ export/ as well, and each its own);
# replay/ sees rondo.h, common/ and analyses/; the tracer sees the
# format's header and its own, nothing of librondo, the analyses, the
# export or the command.
# And no source names a header by a path that would step around them.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
[ -n "${INC_TUI:-}" ] && [ -n "${INC_TRACER:-}" ] && [ -n "${INC_EXPORT:-}" ] ||
	{ echo "FAIL: run by make check, which gives the include paths"; exit 1; }
cd "$top_builddir" || exit 1

# reach FLAGS HEADER: whether a file with only #include "HEADER" compiles.
reach() {
	printf '#include "%s"\n' "$2" >"$tmp/probe.c"
	# shellcheck disable=SC2086
	${CC:-cc} $1 -I. -fsyntax-only "$tmp/probe.c" >/dev/null 2>&1
}

# must PART FLAGS HEADER... / mustnot PART FLAGS HEADER...
must() {
	part=$1 flags=$2; shift 2
	for h in "$@"; do
		reach "$flags" "$h" || fail "$part cannot include $h"
	done
}
mustnot() {
	part=$1 flags=$2; shift 2
	for h in "$@"; do
		reach "$flags" "$h" && fail "$part can include $h, which is not its to use"
	done
}

tracer_h="grammar.h merge.h runtime.h record.h hmap.h relative.h reshape.h fortran.h"
reader_h="trace_int.h format.h"
must tui "$INC_TUI" rondo.h fileio.h util.h matrix.h stats.h skew.h view.h recover.h export.h
mustnot tui "$INC_TUI" $tracer_h $reader_h job.h spill_fmt.h spill.h
must analyses "$INC_ANALYSES" rondo.h util.h matrix.h walk.h
mustnot analyses "$INC_ANALYSES" $tracer_h $reader_h view.h cli.h export.h
must export "$INC_EXPORT" rondo.h fileio.h util.h args.h kmap.h export.h
mustnot export "$INC_EXPORT" $tracer_h $reader_h view.h cli.h recover.h
# replay.h needs mpi.h: a probe of it would fail for that alone
must replay "$INC_REPLAY" rondo.h util.h pairing.h
mustnot replay "$INC_REPLAY" $tracer_h $reader_h view.h cli.h export.h recover.h
must tracer "$INC_TRACER" format.h rondo.h grammar.h hmap.h
mustnot tracer "$INC_TRACER" trace_int.h matrix.h stats.h view.h cli.h export.h

# No quoted include with a directory in it (#include "../tracer/x.h").
for d in common format reader tracer recover analyses export replay tui; do
	grep -n '#include "[^"]*/' "$top_srcdir/$d"/*.[ch] 2>/dev/null |
		sed 's/^/FAIL: a path around the include rules: /' >"$tmp/paths"
	[ -s "$tmp/paths" ] && { cat "$tmp/paths"; fails=$((fails + 1)); }
done

[ "$fails" -eq 0 ] && echo "house.sh: all passed"
[ "$fails" -eq 0 ]
