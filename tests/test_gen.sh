#!/bin/sh
# test_gen.sh - the wrapper generator (tracer/gen/gen_wrappers.py) against
# the installed mpi.h: it wraps every MPI_ function mpi.h declares but the
# documented exclusions (the declared set is computed here independently, so
# a silently dropped function fails), its output compiles without a warning,
# and its link test drops a declared function no library defines
# (fixture tests/gen/fake.h).  Exit 77 only when no MPI is installed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CC:=cc}"
: "${PYTHON3:=python3}"
gen="$top_srcdir/tracer/gen/gen_wrappers.py"
table="$top_srcdir/tracer/mpi_api.tab"
fixtures="$top_srcdir/tests/gen"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# ---- MPI flags, as configure finds them -------------------------------------
if pkg-config --exists ompi-c 2>/dev/null; then
	mpi_cflags=$(pkg-config --cflags ompi-c)
	mpi_libs=$(pkg-config --libs ompi-c)
elif command -v mpicc >/dev/null 2>&1 &&
	mpi_cflags=$(mpicc --showme:compile 2>/dev/null) &&
	mpi_libs=$(mpicc --showme:link 2>/dev/null); then
	:
else
	echo "SKIP: no MPI installed (neither pkg-config ompi-c nor mpicc --showme)"
	exit 77
fi
command -v "$PYTHON3" >/dev/null 2>&1 || { echo "FAIL: $PYTHON3 not found"; exit 1; }

warn_flags="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wstrict-prototypes
	-Wmissing-prototypes -Wpointer-arith -Wformat=2 -Wundef -Wvla -Wcast-align
	-Wwrite-strings -Wno-missing-field-initializers"

# generate OUT [ARGS...]: runs the generator; its summary line in $tmp/summary.
generate() {
	out=$1; shift
	"$PYTHON3" "$gen" --table "$table" --cc "$CC $mpi_cflags" --link "$CC" \
		--libs "$mpi_libs" --out "$out" "$@" >"$tmp/summary" 2>"$tmp/err"
}

# compiles FILE: no error and no warning with the project's flags.
compiles() {
	# shellcheck disable=SC2086
	$CC $warn_flags $mpi_cflags -I"$top_srcdir/tracer" -c "$1" \
		-o "$tmp/w.o" >"$tmp/cc" 2>&1
	[ $? -eq 0 ] && [ ! -s "$tmp/cc" ] ||
		fail "$1 does not compile cleanly: $(head -20 "$tmp/cc")"
}

# field N: the number before WORDS in the summary line.
field() { sed -n "s/.*[^0-9]\([0-9][0-9]*\) $1.*/\1/p" "$tmp/summary"; }

# ---- the installed mpi.h ------------------------------------------------------
generate "$tmp/wrappers.c" ||
	{ echo "FAIL: gen_wrappers.py exited $?: $(cat "$tmp/err")"; exit 1; }
cat "$tmp/summary"

# The declared set, from the preprocessed header: every MPI_name( there is
# a declaration (mpi.h defines no function bodies).
printf '#include <mpi.h>\n' >"$tmp/decl.c"
# shellcheck disable=SC2086
$CC $mpi_cflags -E "$tmp/decl.c" | grep -v '^#' | tr -s ' \t\n' '   ' |
	grep -oE '(^|[^A-Za-z0-9_])MPI_[A-Za-z0-9_]+ ?\(' |
	sed 's/^[^M]*//; s/ *($//' | sort -u >"$tmp/declared"
grep -v -x -e MPI_Wtime -e MPI_Wtick -e MPI_Init -e MPI_Init_thread \
	-e MPI_Finalize -e MPI_Pcontrol "$tmp/declared" | grep -v '^MPI_T_' \
	>"$tmp/expected"
# A function the summary names as not linkable is accounted for, not silent.
sed -n 's/.*not linkable: \([^;)]*\).*/\1/p' "$tmp/summary" | tr ' ' '\n' |
	sed '/^$/d' >"$tmp/unlinkable"
grep -v -x -F -f "$tmp/unlinkable" "$tmp/expected" >"$tmp/expected.linked" ||
	: >"$tmp/expected.linked"

declared=$(wc -l <"$tmp/declared")
expected=$(wc -l <"$tmp/expected.linked")
[ "$(field "declared in mpi.h")" = "$declared" ] ||
	fail "summary says $(field "declared in mpi.h") declared, the header has $declared"
[ "$(field "MPI functions wrapped")" = "$expected" ] ||
	fail "summary says $(field "MPI functions wrapped") wrapped, expected $expected"
[ "$(field "MPI_T_")" = "$(grep -c '^MPI_T_' "$tmp/declared")" ] ||
	fail "MPI_T_ exclusions miscounted"
sed -n 's/^	RF_\(MPI_[A-Za-z0-9_]*\),$/\1/p' "$tmp/wrappers.c" | sort >"$tmp/wrapped"
if ! diff "$tmp/expected.linked" "$tmp/wrapped" >"$tmp/diff"; then
	fail "wrapped set differs from declared minus exclusions (< missing, > extra):
$(grep '^[<>]' "$tmp/diff" | head -20)"
fi
[ "$(grep -c '^[A-Za-z_][A-Za-z0-9_ ]* \**MPI_[A-Za-z0-9_]*(' "$tmp/wrappers.c")" = "$expected" ] ||
	fail "not one wrapper definition per wrapped function"
compiles "$tmp/wrappers.c"

# ---- Fortran entry points ------------------------------------------------------
# Every wrapped function has mpif.h's four spellings and mpi_f08's entry
# point but those RULES.md lists (large-count functions: mpi_f08 only; the
# conversion functions; MPI_Info_create_env; functions returning a value),
# and no parameter is left unconverted.
grep -q '^gen_wrappers: Fortran: [0-9]* functions with entry points' "$tmp/summary" ||
	fail "no Fortran line in the summary: $(cat "$tmp/summary")"
grep -q 'not converted' "$tmp/summary" &&
	fail "Fortran parameters not converted: $(sed -n 's/.*not converted: //p' "$tmp/summary")"
grep -v -E '_(c|c2f|f2c|f082c|c2f08|f2f08|f082f)$|^MPI_Info_create_env$|^MPI_Aint_(add|diff)$' \
	"$tmp/wrapped" | tr 'A-Z' 'a-z' >"$tmp/f.expected"
for suffix in _ __ ''; do
	sed -n "s/.*__asm__(\"\(mpi_[a-z0-9_]*\)\").*/\1/p" "$tmp/wrappers.c" |
		grep -v '_f08' | grep "[a-z0-9]$suffix\$" |
		sed "s/$suffix\$//" | sort -u >"$tmp/f.have"
	[ -z "$suffix" ] && sed -n 's/.*__asm__("\(mpi_[a-z0-9_]*[a-z0-9]\)").*/\1/p' \
		"$tmp/wrappers.c" | grep -v '_f08' | sort -u >"$tmp/f.have"
	comm -23 "$tmp/f.expected" "$tmp/f.have" >"$tmp/f.missing"
	[ -s "$tmp/f.missing" ] &&
		fail "no Fortran entry point mpi_...$suffix for: $(head -5 "$tmp/f.missing" | tr '\n' ' ')"
done
sed -n 's/.*__asm__("\(MPI_[A-Z0-9_]*\)").*/\1/p' "$tmp/wrappers.c" | tr 'A-Z' 'a-z' |
	sort -u | comm -23 "$tmp/f.expected" - | head -5 >"$tmp/f.missing"
[ -s "$tmp/f.missing" ] && fail "no Fortran entry point MPI_... (upper case) for: $(cat "$tmp/f.missing")"
grep -v -E '_(c2f|f2c|f082c|c2f08|f2f08|f082f)$|^MPI_Info_create_env$|^MPI_Aint_(add|diff)$' \
	"$tmp/wrapped" | tr 'A-Z' 'a-z' | sed 's/_c$/_f08_large/; /_large$/!s/$/_f08/' |
	sort >"$tmp/f08.expected"
sed -n 's/.*__asm__("\(mpi_[a-z0-9_]*_f08\(_large\)*\)_").*/\1/p' "$tmp/wrappers.c" |
	sort -u | comm -23 "$tmp/f08.expected" - | head -5 >"$tmp/f.missing"
[ -s "$tmp/f.missing" ] && fail "no mpi_f08 entry point for: $(cat "$tmp/f.missing")"

# ---- the link-test loop, with fake declarations --------------------------------
# shellcheck disable=SC2086
$CC $mpi_cflags -c "$fixtures/fake.c" -o "$tmp/fake.o" ||
	{ echo "FAIL: fixture fake.c does not compile"; exit 1; }
saved_libs=$mpi_libs
mpi_libs="$tmp/fake.o $mpi_libs"
if generate "$tmp/fake.c" --extra-header "$fixtures/fake.h"; then
	grep -q 'not linkable: MPI_Rondo_missing[;)]' "$tmp/summary" ||
		fail "MPI_Rondo_missing not reported as not linkable: $(cat "$tmp/summary")"
	grep -q 'MPI_Rondo_missing' "$tmp/fake.c" &&
		fail "MPI_Rondo_missing wrapped though it does not link"
	grep -q '^	RF_MPI_Rondo_extra,$' "$tmp/fake.c" ||
		fail "MPI_Rondo_extra (declared, linkable, not in the table) not wrapped"
	grep -q 'encoded from C types alone: MPI_Rondo_extra' "$tmp/summary" ||
		fail "MPI_Rondo_extra not reported as encoded from C types"
	[ "$(field "MPI functions wrapped")" = $((expected + 1)) ] ||
		fail "with the fixture: $(field "MPI functions wrapped") wrapped, expected $((expected + 1))"
	compiles "$tmp/fake.c"
else
	fail "gen_wrappers.py with the fixture exited $?: $(cat "$tmp/err")"
fi

# ---- a link that fails for another reason is an error, not a drop -------------
mpi_libs="-lrondo_no_such_library $saved_libs"
if generate "$tmp/bad.c"; then
	fail "a link failing for another reason than missing symbols was accepted"
else
	grep -q 'link test' "$tmp/err" || fail "no clear message: $(head -3 "$tmp/err")"
fi

[ "$fails" -eq 0 ] && echo "PASS: test_gen.sh" && exit 0
echo "$fails check(s) failed"
exit 1
