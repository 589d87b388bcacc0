#!/bin/sh
# damaged.sh - a trace cut short or partly damaged opens with what is
# whole: each case below is made from a good trace of the tests' writer
# (cut with head -c, one byte flipped), and every command must then read
# the calls exactly as from the whole file, say on stderr what is lost
# (one warning line each), list it in rondo info, and exit 0; where the
# calls themselves are lost, every command refuses the file with the same
# message and status 1.  tests/damaged/ keeps files of format 1.10 (no
# index) for the reader of older files.
set -u
. "$(dirname "$0")/lib.sh"
: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
rondo="$top_builddir/tui/rondo"
mktrace="$top_builddir/tests/mktrace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fails=0
n=0

# fail, flip and offset: tests/lib.sh.
size() {
	"$rondo" info "$1" | awk -v want="$2" '/^sections:/ { on = 1 } on && $1 == want { print $2 }'
}

"$mktrace" demo.rondo || fail "mktrace demo"
"$mktrace" --timed timed.rondo || fail "mktrace --timed"
whole=$(wc -c <demo.rondo)
twhole=$(wc -c <timed.rondo)
table=$(($(offset demo.rondo ranktime) + $(size demo.rondo ranktime)))
[ "$table" -gt 32 ] && [ "$table" -lt "$whole" ] || fail "the demo's table at $table of $whole"

# The cases: a file, then the warnings it must give, one per line.
head -c $((whole - 1)) demo.rondo >cut-1.rondo
head -c $((whole - 100)) demo.rondo >cut-in-table.rondo
head -c "$table" demo.rondo >cut-table.rondo
head -c $(($(offset demo.rondo ranktime) + 5)) demo.rondo >cut-ranktime.rondo
head -c $(($(offset demo.rondo stats) + 5)) demo.rondo >cut-stats.rondo
flip demo.rondo flip-stats.rondo $(($(offset demo.rondo stats) + 9))
flip demo.rondo flip-meta.rondo $(($(offset demo.rondo meta) + 9))
flip demo.rondo flip-index.rondo 40
flip demo.rondo flip-table.rondo $((table + 45))
head -c $(($(offset timed.rondo timing) + 20)) timed.rondo >timed-cut-timing.rondo
cp "$top_srcdir/tests/damaged/v1.10-cut-table.rondo" \
	"$top_srcdir/tests/damaged/v1.10-flip-meta.rondo" .
# the 1.10 files' whole: the committed corpus's good file of then
old=1340

cat >expect <<EOF
cut-1.rondo|truncated: $((whole - 1)) of $whole bytes
cut-in-table.rondo|truncated: $((whole - 100)) of $whole bytes
cut-table.rondo|truncated: $table of $whole bytes
cut-ranktime.rondo|truncated: $(($(offset demo.rondo ranktime) + 5)) of $whole bytes
cut-ranktime.rondo|section 'ranktime' cut by the end of the file: per-rank times not shown
cut-stats.rondo|truncated: $(($(offset demo.rondo stats) + 5)) of $whole bytes
cut-stats.rondo|section 'stats' cut by the end of the file: statistics not shown
cut-stats.rondo|section 'ranktime' cut by the end of the file: per-rank times not shown
flip-stats.rondo|section 'stats' damaged (checksum mismatch): statistics not shown
flip-meta.rondo|section 'meta' damaged (checksum mismatch): the run's facts (command, date, tracer) not shown
flip-index.rondo|section 'index' damaged (checksum mismatch): nothing lost (it repeats the section table)
flip-table.rondo|section table damaged (checksum mismatch): sections found from the index
timed-cut-timing.rondo|truncated: $(($(offset timed.rondo timing) + 20)) of $twhole bytes
timed-cut-timing.rondo|section 'timing' cut by the end of the file: per-call times not shown
v1.10-cut-table.rondo|truncated: $((old - 7)) of $old bytes
v1.10-cut-table.rondo|1 sections lost with the end of the file, with their table entries
v1.10-flip-meta.rondo|section 'meta' damaged (checksum mismatch): the run's facts (command, date, tracer) not shown
EOF

# run NAME CMD...: runs one command on a damaged file into NAME.out and
# NAME.err, and checks its warnings are exactly the expected ones.
run() {
	f=$1
	shift
	n=$((n + 1))
	"$rondo" "$@" "$f" >"$f.out" 2>"$f.err"
	status=$?
	grep "^$f|" expect | sed "s/^[^|]*|/rondo: warning: $f: /" >"$f.want"
	grep '^rondo: warning: ' "$f.err" >"$f.got"
	if ! cmp -s "$f.want" "$f.got"; then
		fail "$f ($*): warnings differ"
		diff "$f.want" "$f.got"
	fi
}

for f in $(cut -d'|' -f1 expect | uniq); do
	case $f in
	timed-*) good=timed.rondo ;;
	v1.10-*) good= ;;
	*) good=demo.rondo ;;
	esac
	# the calls: exactly the whole file's
	for cmd in "dump --grammar" "dump --rank 1" "matrix"; do
		# shellcheck disable=SC2086
		run "$f" $cmd
		[ "$status" -eq 0 ] || fail "$f ($cmd): exit status $status"
		if [ -n "$good" ]; then
			# shellcheck disable=SC2086
			"$rondo" $cmd "$good" >good.out 2>/dev/null
			cmp -s good.out "$f.out" || fail "$f ($cmd): differs from the whole file's"
		fi
	done
	# rondo info lists what is lost under "damage", in the same words
	run "$f" info
	[ "$status" -eq 0 ] || fail "$f (info): exit status $status"
	sed -n '/^damage /,/^ranks /p' "$f.out" | sed '$d' | sed 's/^damage  *//; s/^  *//' >"$f.listed"
	sed 's/^rondo: warning: [^:]*: //' "$f.want" >"$f.said"
	cmp -s "$f.listed" "$f.said" || {
		fail "$f (info): the damage listed is not what was said"
		diff "$f.said" "$f.listed"
	}
	# statistics where they are whole, the same; else a plain refusal
	run "$f" stats
	if grep -q "statistics not shown" "$f.want"; then
		[ "$status" -eq 1 ] && grep -q "^rondo: $f has no call statistics" "$f.err" ||
			fail "$f (stats): status $status, $(tail -1 "$f.err")"
	else
		[ "$status" -eq 0 ] || fail "$f (stats): exit status $status"
		if [ -n "$good" ]; then
			"$rondo" stats "$good" >good.out 2>/dev/null
			# without the run's facts the program's name is "?"
			if grep -q "run's facts" "$f.want"; then
				sed -i '1s/^halo1d:/?:/' good.out
			fi
			cmp -s good.out "$f.out" || fail "$f (stats): differs from the whole file's"
		fi
	fi
	# without a terminal the explorer says so, after the warnings
	run "$f" view
	[ "$status" -eq 1 ] && [ "$(tail -1 "$f.err")" = "rondo: view needs a terminal (rondo info and rondo dump print to a pipe)" ] ||
		fail "$f (view): status $status, $(tail -1 "$f.err")"
done </dev/null

# Per-call times cut: the commands that need them say so, as for a file
# that never had them.
run timed-cut-timing.rondo skew
[ "$status" -eq 1 ] && grep -q "^rondo: skew: timed-cut-timing.rondo has no per-call times" timed-cut-timing.rondo.err ||
	fail "skew on a cut timing section: status $status, $(tail -1 timed-cut-timing.rondo.err)"

# Whole files give no warning.
for f in demo.rondo timed.rondo; do
	"$rondo" info "$f" >/dev/null 2>err
	[ -s err ] && fail "$f: warnings on a whole file: $(cat err)"
	grep -q '^damage' err && fail "$f: info lists damage"
done

# A grammar cut by the end of the file: the rules before the cut are
# read, the ranks whose roots come after lose their calls (rank 7 here,
# whose root is the grammar's last rule), the others keep every call;
# every command says which were lost; the replay and the proxy refuse.
"$mktrace" --ranks 8 --iters 50 --change call groups.rondo || fail "mktrace --change call"
gend=$(($(offset groups.rondo grammar) + $(size groups.rondo grammar)))
[ "$(offset groups.rondo grammar)" -gt "$(offset groups.rondo rankmap)" ] ||
	fail "the rank map is not written before the grammar"
head -c $((gend - 2)) groups.rondo >cut-in-grammar.rondo
want="rondo: warning: cut-in-grammar.rondo: section 'grammar' cut by the end of the file: the calls of rank 7 lost (1 of 8), the others' whole"
for cmd in "dump --ranks 0-6" "dump --ranks 7" "dump --grammar" info matrix; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$rondo" $cmd cut-in-grammar.rondo >out 2>err
	status=$?
	[ "$status" -eq 0 ] || fail "cut-in-grammar ($cmd): status $status: $(cat err)"
	grep -qxF "$want" err || fail "cut-in-grammar ($cmd): $(cat err)"
done
"$rondo" dump --ranks 0-6 groups.rondo >good.out 2>/dev/null
"$rondo" dump --ranks 0-6 cut-in-grammar.rondo >cut.out 2>/dev/null
[ -s good.out ] && cmp -s good.out cut.out || fail "cut-in-grammar: ranks 0-6's calls differ from the whole file's"
"$rondo" dump --ranks 7 cut-in-grammar.rondo >cut.out 2>/dev/null
[ ! -s cut.out ] || fail "cut-in-grammar: rank 7 has calls: $(head -3 cut.out)"
"$rondo" info cut-in-grammar.rondo 2>/dev/null | grep -q "^  3 .*  7  (calls lost with the end of the file)$" ||
	fail "cut-in-grammar: info does not name rank 7's group lost: $("$rondo" info cut-in-grammar.rondo 2>/dev/null | grep -A6 '^rank groups (')"
"$rondo" dump --grammar cut-in-grammar.rondo 2>/dev/null | grep -qx "  ranks 7 -> R6  (calls lost with the end of the file)" ||
	fail "cut-in-grammar: dump --grammar: $("$rondo" dump --grammar cut-in-grammar.rondo 2>/dev/null | tail -4)"
# its per-rank times went with the cut: info says so, not "older file"
"$rondo" info cut-in-grammar.rondo 2>/dev/null | grep -qx "rank times   not read: their section is damaged or cut" ||
	fail "cut-in-grammar: info's rank times: $("$rondo" info cut-in-grammar.rondo 2>/dev/null | grep '^rank times')"
# cut at the grammar's start: every rank lost, the file still opens
head -c "$(offset groups.rondo grammar)" groups.rondo >cut-at-grammar.rondo
"$rondo" info cut-at-grammar.rondo >out 2>err ||
	fail "cut-at-grammar: status $?: $(cat err)"
grep -qF "section 'grammar' cut by the end of the file: the calls of ranks 0-7 lost (8 of 8)" err ||
	fail "cut-at-grammar: $(cat err)"
"$rondo" proxy -o proxy.c cut-in-grammar.rondo >out 2>err
status=$?
if ! grep -q "built without MPI" err; then
	[ "$status" -eq 3 ] && grep -q "^rondo: proxy: cut-in-grammar.rondo: rank 7's calls are lost (the file is cut inside its grammar)" err ||
		fail "proxy of a cut grammar: status $status, $(tail -1 err)"
fi

# Lost calls: every command refuses with one line and status 1.
head -c $(($(offset demo.rondo rankmap) + 2)) demo.rondo >cut-rankmap.rondo
flip demo.rondo flip-cst.rondo $(($(offset demo.rondo cst) + 3))
head -c 40 demo.rondo >cut-index.rondo
cp "$top_srcdir/tests/damaged/v1.10-cut-half.rondo" .
cat >refused <<EOF
cut-rankmap.rondo|truncated: $(($(offset demo.rondo rankmap) + 2)) of $whole bytes, inside section 'rankmap', which the calls need
flip-cst.rondo|section 'cst' damaged (checksum mismatch), and the calls cannot be read without it
cut-index.rondo|truncated: 40 of $whole bytes; the section table is lost (at byte 40)
v1.10-cut-half.rondo|truncated: 670 of $old bytes; the section table is lost (at byte 670)
EOF
while IFS='|' read -r f msg; do
	for cmd in info "dump --grammar" stats contention matrix timeline view "export --perfetto out.json"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$rondo" $cmd "$f" >/dev/null 2>err </dev/null
		status=$?
		[ "$status" -eq 1 ] || fail "$f ($cmd): exit status $status"
		[ "$(wc -l <err)" -eq 1 ] || fail "$f ($cmd): $(wc -l <err) lines on stderr"
		grep -qF "rondo: cannot open $f: $msg" err ||
			fail "$f ($cmd): '$(cat err)', not '$msg'"
	done
done <refused

echo "damaged.sh: $n runs, $fails failed"
[ "$fails" -eq 0 ]
