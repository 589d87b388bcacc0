#!/bin/sh
# files.sh - what the rondo command reads and writes by name.
# Reading: a FIFO, a socket, a directory, /dev/zero, a 6000-byte path and
# a missing file each give one line and the same exit status (1) in every
# command that reads a trace, at once (a FIFO is not opened for reading:
# it would wait for a writer), the path kept, cut in the middle when long.
# Writing (--csv): a FIFO or a directory refused with one line, /dev/null
# written in place, another user's link refused (as root, and as an
# unprivileged user), the user's own link followed, a failed report not
# left behind.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mktrace="$top_builddir/tests/mktrace"
cd "$tmp" || exit 1
chmod 755 "$tmp"
"$mktrace" --ranks 4 --iters 5 demo.rondo || { echo "FAIL: mktrace"; exit 1; }
"$mktrace" --timed --ranks 4 timed.rondo >/dev/null || { echo "FAIL: mktrace --timed"; exit 1; }
attacker=4242
user=4243

# Every command that reads a trace, as words.
readers="info|dump|dump --grammar|stats|stats --by rank|matrix|contention|skew|waits|timeline|view"

# refused FILE PATTERN: every reader exits 1 with one line
# "rondo: cannot open <FILE as shown>: <PATTERN>", within 20 s.
refused() {
	shown=$1 want=$2 file=${3:-$1}
	IFS='|'
	for cmd in $readers; do
		IFS=' '
		# shellcheck disable=SC2086 # the command's words
		timeout 20 "$rondo" $cmd "$file" </dev/null >"$tmp/out" 2>"$tmp/err"
		st=$?
		[ $st -eq 124 ] && fail "rondo $cmd $shown: still waiting after 20 s"
		[ $st -eq 1 ] || fail "rondo $cmd $shown: exit status $st, want 1"
		[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -Fq "rondo: cannot open $shown: " "$tmp/err" &&
			grep -Eq ": $want\$" "$tmp/err" ||
			fail "rondo $cmd $shown: want 'rondo: cannot open $shown: $want', got: $(head -c 400 "$tmp/err")"
		IFS='|'
	done
	IFS=' '
}

mkfifo fifo
refused fifo 'not a regular file but a FIFO \(named pipe\)'
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock ||
	fail "cannot make a socket"
refused sock 'not a regular file but a socket'
mkdir adir
refused adir 'not a regular file but a directory'
refused /dev/zero 'not a regular file but a character device'
refused missing.rondo 'No such file or directory'
# 6000 bytes of path: the message keeps its start and its end
long=$(awk 'BEGIN { for (i = 0; i < 1500; i++) printf "/abc"; printf "/end.rondo" }')
head=$(printf '%s' "$long" | cut -c1-40)
timeout 20 "$rondo" info "$long" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] || fail "a 6000-byte path: exit status not 1"
[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	grep -Fq "rondo: cannot open $head" "$tmp/err" &&
	grep -Fq ".../abc/abc/" "$tmp/err" &&
	grep -Fq "/abc/abc/end.rondo: File name too long" "$tmp/err" &&
	[ "$(wc -c <"$tmp/err")" -lt 300 ] ||
	fail "a 6000-byte path: $(head -c 400 "$tmp/err")"
shown=$(sed 's/^rondo: cannot open \(.*\): File name too long$/\1/' "$tmp/err")
refused "$shown" 'File name too long' "$long"

# --csv: every report that writes one.
writers="matrix demo.rondo|stats demo.rondo|contention demo.rondo|skew timed.rondo|waits timed.rondo|timeline timed.rondo"

# csv_each WANT-STATUS PATH PATTERN [PREFIX...]: every writer with
# --csv PATH exits WANT-STATUS; with PATTERN, one line matching it.
csv_each() {
	want=$1 path=$2 pattern=$3; shift 3
	IFS='|'
	for w in $writers; do
		IFS=' '
		cmd=${w% *} file=${w#* }
		timeout 20 "$@" "${csvrondo:-$rondo}" "$cmd" --csv "$path" "$tmp/$file" >"$tmp/out" 2>"$tmp/err"
		st=$?
		[ $st -eq "$want" ] || fail "$cmd --csv $path: exit status $st, want $want: $(head -c 300 "$tmp/err")"
		[ -z "$pattern" ] || one_error "$pattern"
		IFS='|'
	done
	IFS=' '
}

csv_each 1 "$tmp/fifo" "^rondo: cannot write $tmp/fifo: it is a FIFO \(named pipe\); rondo writes regular files \(and character devices such as /dev/null\) only\$"
[ -p fifo ] || fail "--csv FIFO: the FIFO was replaced"
csv_each 1 "$tmp/adir" "^rondo: cannot write $tmp/adir: it is a directory; "
csv_each 0 /dev/null ""
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
# the user's own link: followed, the file it names replaced, the link kept
echo old >real.csv
ln -s real.csv mine.csv
"$rondo" matrix --csv mine.csv demo.rondo || fail "--csv through the user's own link"
[ -L mine.csv ] && head -1 real.csv | grep -q '^src,dst,messages,bytes$' ||
	fail "--csv own link: $(ls -l mine.csv real.csv)"
# a report that fails half-way is not left at the target
if [ -w /dev/full ]; then
	ln -s /dev/full full.csv
	expect_exit 1 "$rondo" matrix --csv full.csv demo.rondo
	one_error "^rondo: cannot write full.csv: No space left on device$"
fi
# nothing left behind by any of it
[ -z "$(ls -A | grep -v -x -e demo.rondo -e timed.rondo -e fifo -e sock -e adir \
	-e real.csv -e mine.csv -e full.csv -e out -e err)" ] ||
	fail "files left behind: $(ls -A)"

if [ "$(id -u)" -eq 0 ]; then
	# The command from here: the unprivileged user may not reach into the
	# build directory (a checkout in a directory of mode 0700).  libtool's
	# tui/rondo is a script running .libs/rondo with librondo beside it.
	mkdir bin
	if [ -x "$top_builddir/tui/.libs/rondo" ]; then
		cp "$top_builddir/tui/.libs/rondo" bin/rondo &&
			cp -L "$top_builddir"/reader/.libs/librondo.so.0 bin/
	else
		cp "$rondo" bin/rondo
	fi || fail "cannot copy the rondo command"
	urondo="$tmp/bin/rondo"
	export LD_LIBRARY_PATH="$tmp/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	mkdir shared safe
	chmod 777 shared # writable by others, not sticky
	echo precious >safe/victim
	chown $user safe safe/victim
	setpriv --reuid=$attacker --regid=$attacker --clear-groups \
		ln -s "$tmp/safe/victim" shared/report.csv
	# root and the unprivileged user alike refuse another user's link
	for who in root $user; do
		case $who in
		root) set --; csvrondo=$rondo ;;
		*) set -- setpriv --reuid=$user --regid=$user --clear-groups
		   csvrondo=$urondo ;;
		esac
		csv_each 1 "$tmp/shared/report.csv" "^rondo: cannot write $tmp/shared/report.csv: it is a symbolic link of another user \(uid $attacker\); rondo does not write through it\$" "$@"
		[ "$(cat safe/victim)" = precious ] || fail "$who: the victim was written through a link"
		[ -L shared/report.csv ] || fail "$who: the planted link was replaced"
	done
	# the unprivileged user's own report in the shared directory
	setpriv --reuid=$user --regid=$user --clear-groups \
		"$urondo" stats --csv "$tmp/shared/own.csv" "$tmp/demo.rondo" ||
		fail "the unprivileged user cannot write a report"
	[ "$(stat -c %u shared/own.csv)" -eq $user ] || fail "the report is not the user's"
else
	echo "files.sh: NOTE: not root: links of another user not checked here (CI runs as root)"
fi

echo "files.sh: $fails failed"
[ "$fails" -eq 0 ]
