#!/bin/sh
# traceout.sh - where the tracer writes the trace, on a file system others
# can write to (common/fileio.h): links planted at every name the writer
# may use (the default name in the working directory, the /tmp fallback,
# RONDO_OUT) by another user are never written through, their targets
# untouched, the trace written elsewhere or refused with one line; a
# device is written in place (/dev/null stays /dev/null), a FIFO refused,
# a directory holds the trace; a 250-byte file name and a 230-character
# program name are traced.  As root and, where it matters, as an
# unprivileged user (setpriv).  The temporary name the writer picks is
# random: tests/test_fileio plants a link at the exact name it will pick.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup

attacker=4242 # makes the links; owns nothing else
user=4243     # the unprivileged user who traces a job
root=$(id -u)
# The program under a name of this run's own, so that names in /tmp are
# ours alone.
prog="rondo-traceout-$$"
chmod 755 "$tmp"
cp "$top_builddir/tests/mpi/basic" "$tmp/$prog"
# The module from here too: the unprivileged user may not reach into the
# build directory (a checkout in a directory of mode 0700).
cp "$lib" "$tmp/librondo-trace.so"
pre=${san:+$san:}$tmp/librondo-trace.so
mkdir "$tmp/shared" "$tmp/safe" "$tmp/cwd"
chmod 777 "$tmp/shared" # group- or world-writable, and not sticky
cleanup_tmp() {
	rm -f /tmp/"$prog"-*.rondo
	rm -rf "$tmp"
}
trap cleanup_tmp EXIT

# as UID CMD...: CMD as another user (root only).
as() {
	u=$1; shift
	setpriv --reuid="$u" --regid="$u" --clear-groups "$@"
}

# trace DIR OUT [CMD-PREFIX...]: runs the program on 2 ranks, traced, in
# DIR with RONDO_OUT=OUT (none when empty), under the prefix (setpriv);
# its output in $tmp/run.out.
trace() {
	dir=$1 out=$2; shift 2
	rm -f "$tmp"/shared/e.*
	(cd "$dir" && timeout 300 "$@" env HOME="$tmp/shared" RONDO_EXPECT="$tmp/shared/e" \
		${out:+RONDO_OUT="$out"} mpirun -np 2 -x RONDO_EXPECT -x "LD_PRELOAD=$pre" \
		${san:+-x ASAN_OPTIONS} ${out:+-x RONDO_OUT} "$tmp/$prog" 2 >"$tmp/run.out" 2>&1)
	st=$?
	[ $st -eq 0 ] || fail "the traced program ended with $st: $(head -c 600 "$tmp/run.out")"
}

# plant DIR TARGET: links owned by the attacker at the default names
# <prog>-<stamp>.rondo in DIR for the next 120 seconds, to TARGET.
plant() {
	now=$(date +%s)
	k=-2
	while [ $k -le 120 ]; do
		stamp=$(date -d "@$((now + k))" +%Y%m%d-%H%M%S)
		as $attacker ln -sf "$2" "$1/$prog-$stamp.rondo" ||
			fail "cannot plant a link in $1"
		k=$((k + 1))
	done
}

# untouched FILE: the victim still holds "precious".
untouched() {
	[ "$(cat "$1")" = precious ] || fail "$1 was written through a link: $(head -c 100 "$1" | od -c | head -2)"
}

# lines N: the run printed N lines beginning "rondo: cannot write".
lines() {
	got=$(grep -c '^rondo: cannot write' "$tmp/run.out")
	[ "$got" -eq "$1" ] || fail "want $1 refusals, got $got: $(cat "$tmp/run.out")"
}

# report PATH: rank 0's one-line report names PATH, with bytes.
report() {
	grep -q "^rondo: $1: [1-9][0-9]* bytes, [0-9]* MPI calls" "$tmp/run.out" ||
		fail "no report of a trace written to $1: $(cat "$tmp/run.out")"
}

readable() {
	"$rondo" info "$1" >/dev/null 2>&1 || fail "$1 is not a readable trace"
}

victim="$tmp/safe/victim"
if [ "$root" -eq 0 ]; then
	# 1. Another user's links at the default name in a shared working
	# directory: refused, the trace goes to /tmp.
	echo precious >"$victim"
	plant "$tmp/shared" "$victim"
	trace "$tmp/shared" ""
	untouched "$victim"
	lines 1
	grep -q "^rondo: cannot write the trace: cannot write $prog-[0-9-]*\.rondo: it is a symbolic link of another user (uid $attacker); rondo does not write through it$" "$tmp/run.out" ||
		fail "planted link: $(cat "$tmp/run.out")"
	t=$(ls /tmp/"$prog"-*.rondo 2>/dev/null | head -1)
	[ -n "$t" ] && [ -f "$t" ] && [ ! -L "$t" ] || fail "no trace in /tmp: $(cat "$tmp/run.out")"
	[ -z "$t" ] || { report "$t"; readable "$t"; rm -f "$t"; }
	[ "$(find "$tmp/shared" -name "$prog-*" ! -type l | wc -l)" -eq 0 ] ||
		fail "a file beside the planted links: $(ls -la "$tmp/shared")"
	# 2. And at the /tmp fallback's names too: two refusals, no trace,
	# the program unharmed.
	plant /tmp "$victim"
	trace "$tmp/shared" ""
	untouched "$victim"
	lines 2
	grep -q "; no trace kept$" "$tmp/run.out" || fail "no 'no trace kept': $(cat "$tmp/run.out")"
	[ "$(find /tmp -maxdepth 1 -name "$prog-*" ! -type l | wc -l)" -eq 0 ] ||
		fail "a file beside the links in /tmp"
	rm -f /tmp/"$prog"-*.rondo "$tmp"/shared/"$prog"-*.rondo
	# 3. RONDO_OUT naming another user's link: refused, the trace goes
	# to the working directory.
	as $attacker ln -s "$victim" "$tmp/shared/out.rondo"
	trace "$tmp/cwd" "$tmp/shared/out.rondo"
	untouched "$victim"
	lines 1
	t=$(ls "$tmp/cwd/$prog"-*.rondo 2>/dev/null | head -1)
	[ -n "$t" ] || fail "RONDO_OUT refused: no trace in the working directory: $(cat "$tmp/run.out")"
	[ -z "$t" ] || { readable "$t"; rm -f "$t"; }
	[ -L "$tmp/shared/out.rondo" ] || fail "the planted RONDO_OUT link was replaced"
else
	echo "traceout.sh: NOTE: not root: links of another user not checked here (CI runs as root)"
fi

# 4. A character device: written in place; /dev/null stays a device.
trace "$tmp/cwd" /dev/null
report /dev/null
lines 0
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
[ -z "$(ls -A "$tmp/cwd")" ] || fail "files left by RONDO_OUT=/dev/null: $(ls -A "$tmp/cwd")"

# 5. A FIFO: refused at once (nobody reads it), the trace in the working
# directory, the FIFO left as it was.
mkfifo "$tmp/fifo"
trace "$tmp/cwd" "$tmp/fifo"
lines 1
grep -q "^rondo: cannot write the trace: cannot write $tmp/fifo: it is a FIFO (named pipe); rondo writes regular files (and character devices such as /dev/null) only$" "$tmp/run.out" ||
	fail "FIFO: $(cat "$tmp/run.out")"
[ -p "$tmp/fifo" ] || fail "the FIFO was replaced"
t=$(ls "$tmp/cwd/$prog"-*.rondo 2>/dev/null | head -1)
[ -n "$t" ] || fail "RONDO_OUT=FIFO: no trace in the working directory"
rm -f "$tmp/cwd"/*

# 6. A directory: the trace in it, by its default name.
mkdir "$tmp/traces"
trace "$tmp/cwd" "$tmp/traces"
lines 0
t=$(ls "$tmp/traces/$prog"-*.rondo 2>/dev/null | head -1)
[ -n "$t" ] && report "$t" && readable "$t" || fail "RONDO_OUT=directory: no trace in it"

# 7. A final name of 250 bytes: traced there (a temporary name made
# from it would pass NAME_MAX).
long=$(printf 'x%.0s' $(seq 1 244)).rondo
trace "$tmp/cwd" "$tmp/traces/$long"
report "$tmp/traces/$long"
readable "$tmp/traces/$long"
lines 0

# 8. A program whose name has 230 characters: its default name (252
# bytes) traced; one of 250, cut to fit NAME_MAX.
p230=$(printf 'p%.0s' $(seq 1 230))
p250=$(printf 'q%.0s' $(seq 1 250))
base=$prog
for p in "$p230" "$p250"; do
	cp "$tmp/$base" "$tmp/$p"
	prog=$p
	trace "$tmp/cwd" ""
	t=$(ls "$tmp/cwd/" | grep "^$(echo "$p" | cut -c1-200)" | head -1)
	[ -n "$t" ] || { fail "program of ${#p} characters: no trace: $(cat "$tmp/run.out")"; continue; }
	readable "$tmp/cwd/$t"
	lines 0
	case ${#p}:$t in
	230:"$p"-[0-9]*-[0-9]*.rondo) ;;
	250:*) [ ${#t} -eq 255 ] || fail "program of 250 characters: a name of ${#t} bytes, want 255" ;;
	*) fail "program of ${#p} characters: trace named $t" ;;
	esac
	rm -f "$tmp/cwd"/*
done
prog=$base

# 9. As an unprivileged user: another user's links in the shared
# directory to the user's own file are not followed either; the user's
# own link is (the file it names replaced by the trace, the link kept).
if [ "$root" -eq 0 ]; then
	mkdir "$tmp/home" && chown $user "$tmp/home"
	as $user sh -c "echo precious >'$tmp/home/mine'"
	rm -f "$tmp"/shared/"$prog"-*.rondo
	plant "$tmp/shared" "$tmp/home/mine"
	trace "$tmp/shared" "" setpriv --reuid=$user --regid=$user --clear-groups
	untouched "$tmp/home/mine"
	lines 1
	t=$(ls /tmp/"$prog"-*.rondo 2>/dev/null | head -1)
	[ -n "$t" ] && [ "$(stat -c %u "$t")" -eq $user ] ||
		fail "unprivileged: no trace of the user's in /tmp: $(cat "$tmp/run.out")"
	rm -f /tmp/"$prog"-*.rondo
	as $user ln -s "$tmp/home/mine" "$tmp/home/link.rondo"
	trace "$tmp/shared" "$tmp/home/link.rondo" setpriv --reuid=$user \
		--regid=$user --clear-groups
	lines 0
	[ -L "$tmp/home/link.rondo" ] || fail "unprivileged: the user's own link was replaced"
	readable "$tmp/home/mine"
else
	echo "traceout.sh: NOTE: not root: the unprivileged user's runs not checked here (CI runs as root)"
fi

echo "traceout.sh: $fails failed"
[ "$fails" -eq 0 ]
