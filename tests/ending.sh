#!/bin/sh
# ending.sh - a job that does not end in MPI_Finalize still leaves its
# trace (issue 20).  tests/mpi/ending ends each way a production job
# does: MPI_Abort on one rank, SIGTERM to the launcher and to one rank,
# SIGINT, a segfault, SIGKILL of one rank after a spill, an exit without
# MPI_Finalize, a deadlock killed; and a program with its own SIGTERM
# handler.  For each: the launcher exits as it does untraced, `rondo run`
# makes the trace from the spill files, the trace opens, says how each
# rank ended, and every rank has every call it made (up to its last
# spill for a rank killed with SIGKILL), checked call by call against
# what the program wrote down; traced with per-call times, every call's
# times too.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
prog="$top_builddir/tests/mpi/ending"
mpi_setup
cd "$tmp" || exit 1
# mpirun itself runs without the sanitizer runtimes (mpi.sh says why)
mkdir bin
printf '#!/bin/sh\nunset LD_PRELOAD\nexec %s "$@"\n' "$(command -v mpirun)" >bin/mpirun
chmod +x bin/mpirun
M="$tmp/bin/mpirun"
export RONDO_FLUSH_INTERVAL=1

# go NAME HOW MODE ARGS...: runs the program untraced (NAME0) then traced
# (NAME.rondo), ended by HOW: self (it ends itself), TERM or INT (to the
# launcher after 4 s), rank-TERM or rank-KILL (to rank 1 after 4 s, then
# TERM to the launcher after 8 s).  $want and $got: their exit statuses.
go() {
	name=$1 how=$2; shift 2
	args="$*"
	for t in 0 1; do
		if [ $t = 0 ]; then
			e="$tmp/${name}0.expect"
			# shellcheck disable=SC2086
			set -- "$M" -np 3 -x RONDO_EXPECT="$e" \
				${san:+-x LD_PRELOAD="$san" -x ASAN_OPTIONS} "$prog" $args
		else
			e="$tmp/$name.expect"
			# shellcheck disable=SC2086
			set -- "$rondo" run -o "$tmp/$name.rondo" -- "$M" -np 3 \
				-x RONDO_EXPECT="$e" ${san:+-x ASAN_OPTIONS} "$prog" $args
		fi
		case $how in
		self) timeout 90 "$@" >"$tmp/$name$t.out" 2>&1; st=$? ;;
		# TERM: to every process of the group, as a batch system
		# does; INT: to the launcher, or to rondo run, alone (sent
		# to the group, it reaches the launcher twice traced, and
		# both launchers abort at once on a second one; rondo run
		# passes on no Ctrl-C from the terminal)
		TERM) timeout --preserve-status -s TERM 4 "$@" >"$tmp/$name$t.out" 2>&1; st=$? ;;
		INT) timeout --foreground --preserve-status -s INT 4 "$@" >"$tmp/$name$t.out" 2>&1; st=$? ;;
		rank-*)
			timeout -k 10 -s TERM 40 "$@" >"$tmp/$name$t.out" 2>&1 &
			bg=$!
			sleep 4
			kill -s "${how#rank-}" "$(cat "$e.pid.1")" 2>/dev/null
			wait $bg; st=$? ;;
		esac
		[ $t = 0 ] && want=$st || got=$st
	done
}

# check NAME ENDED CUT: the trace NAME.rondo opens, its `ended` line
# matches ENDED (grep -E), and each rank's calls are those it wrote down:
# all of them, but for rank CUT (or none: -), whose calls are a
# beginning of them, up to its last spill.
check() {
	name=$1 ended=$2 cut=$3
	[ "$got" = "$want" ] || fail "$name: the launcher exits $got traced, $want untraced"
	[ -f "$name.rondo" ] || { fail "$name: no trace: $(grep rondo "$name"1.out)"; return; }
	"$rondo" info "$name.rondo" >"$name.info" 2>&1 || fail "$name: rondo info: $(cat "$name.info")"
	grep -Eq "^  ended +$ended" "$name.info" ||
		fail "$name: want ended like '$ended', got: $(grep ended "$name.info")"
	[ ! -d "$name.spill" ] || fail "$name: the spill folder is left after the trace is made"
	for r in 0 1 2; do
		"$rondo" dump --rank $r "$name.rondo" >"$name.dump.$r"
		# after its last call, the line saying how the rank ended
		tail -1 "$name.dump.$r" | grep -q "^# rank $r was cut short here: ." ||
			fail "$name rank $r: its end is not marked: $(tail -1 "$name.dump.$r")"
		grep -v '^#' "$name.dump.$r" | cut -d' ' -f3- >"$name.got.$r"
		w=$(wc -l <"$name.expect.$r") g=$(wc -l <"$name.got.$r")
		if [ "$r" = "$cut" ] || [ "$cut" = all ]; then
			[ "$g" -le "$w" ] && [ "$g" -ge 6 ] ||
				fail "$name rank $r: $g calls recorded, $w made (want a beginning of them)"
		else
			# a signal between a call's return and the line the
			# program writes for it leaves one line unwritten
			[ "$g" -eq "$w" ] || [ "$g" -eq $((w + 1)) ] ||
				fail "$name rank $r: $g calls recorded, $w made"
		fi
		# the cut rank: the calls it kept are the first it made
		head -n "$g" "$name.expect.$r" >"$name.want.$r"
		paste -d '\n' "$name.want.$r" "$name.got.$r" | awk -v who="$name rank $r" '
			NR % 2 == 1 { re = $0; next }
			re != "" && $0 !~ ("^" re "$") && ++bad <= 5 { printf "FAIL: %s call %d:\n  want %s\n  got  %s\n", who, NR / 2 - 1, re, $0 }
			END { exit bad > 0 }' || fails=$((fails + 1))
	done
}

# mpich_race NAME SIG: under MPICH, mpiexec sent SIG (alone, or with its
# whole process group: a batch system's signal, a Ctrl-C) exits 0 or
# SIG's number, traced or not (untraced, by hand and in these tests: TERM
# gave 15, 0, 15, 0; Ctrl-C 2, 0, 2; in CI, SIGINT to mpiexec alone gave
# 2 untraced and 0 traced, the trace made): said on a KNOWN line, not
# compared.
mpich_race() {
	if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ "$got" != "$want" ] &&
		case "$got $want" in "0 $2" | "$2 0") true ;; *) false ;; esac; then
		echo "KNOWN: $1 under MPICH: mpiexec exits $got traced, $want untraced"
		got=$want
	fi
}

go abort self abort 20
check abort ".*MPI_Abort\(errorcode=3\) on rank 1" -
grep -q "MPI_Abort(errorcode=3) on rank 1" abort.info || fail "abort: ending not said"

# With per-call times: the trace made from the spill files has every
# call's times (the spilled codes, coded as the tracer codes them), on
# every rank, a rank's starts never before the call before them.
export RONDO_TIMING=percall
go aborttimed self abort 20
unset RONDO_TIMING
check aborttimed ".*MPI_Abort\(errorcode=3\) on rank 1" -
for r in 0 1 2; do
	"$rondo" dump --times --rank $r aborttimed.rondo | awk -v r=$r '
		/^#/ { next }
		$3 == "-" { print "rank " r " call " $2 ": no times"; bad = 1; exit }
		n++ && ($3 < ps || $3 < pe) { print "rank " r " call " $2 " starts before the call before it ends"; bad = 1 }
		{ ps = $3; pe = $4 }
		END { if (n < 6) { print "rank " r ": " n " timed calls"; bad = 1 } exit bad }' >"aborttimed.why.$r" ||
		fail "aborttimed: $(cat "aborttimed.why.$r")"
done

# ends NAME STATUS WAITING OWN: NAME.rondo replayed (rondo-replay, then
# its proxy) under the tracer ends as the original job did: the launcher
# exits STATUS ("nonzero": not 0), WAITING ranks say they wait where
# theirs were cut short from outside until the launcher ends them, rank 1
# (when OWN, a pattern of its ending, is not empty) says it ends as its
# original did, and the re-traces have the same calls.
#
# Under MPICH, Hydra SIGKILLs the other ranks the moment rank 1 ends by
# itself; the replay gets there in well under RONDO_FLUSH_INTERVAL (the
# original slept 3 s first), so their tracers have spilled nothing and the
# re-trace keeps rank 1's calls alone, and the status is the kill's: for
# those, said (KNOWN) and only rank 1's end and a failing status checked.
ends() {
	end_name=$1 end_st=$2 end_waiting=$3 end_own=$4 lossy=""
	if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ -n "$end_own" ]; then
		lossy=1 end_st=nonzero
	fi
	"$rondo" proxy -o "${end_name}_proxy.c" "$end_name.rondo" 2>"${end_name}_proxy.gen" ||
		fail "$end_name: rondo proxy: $(cat "${end_name}_proxy.gen")"
	# shellcheck disable=SC2086 # flags are lists
	$CC $SAN_CFLAGS -Wall -Wextra -Werror $MPI_CFLAGS "${end_name}_proxy.c" \
		-o "${end_name}_proxy" $MPI_LIBS -lpthread >"${end_name}_proxy.cc" 2>&1 ||
		fail "$end_name: the proxy does not compile: $(head -20 "${end_name}_proxy.cc")"
	for how in replay proxy; do
		case $how in
		replay) cmd="$top_builddir/replay/rondo-replay --watchdog 60 $end_name.rondo"
			who="rondo-replay" ;;
		proxy) cmd="./${end_name}_proxy --watchdog 60"
			who="proxy of $end_name.rondo" ;;
		esac
		out="$end_name.$how.out"
		# shellcheck disable=SC2086 # a command and its arguments
		timeout 120 "$rondo" run -o "$end_name.$how.rondo" -- "$M" -np 3 \
			${san:+-x ASAN_OPTIONS} $cmd >"$out" 2>&1
		st=$?
		case $end_st in
		nonzero) [ "$st" -ne 0 ] ;;
		*) [ "$st" = "$end_st" ] ;;
		esac || fail "$end_name's $how: the launcher exits $st, want $end_st: $(tail -5 "$out")"
		[ -n "$lossy" ] ||
			[ "$(grep -Eo "$who: rank [0-9]+: the trace ends here, cut short \([^)]+\)[^:]*: waiting for the job to end as the original did$" "$out" | wc -l)" -eq "$end_waiting" ] ||
			fail "$end_name's $how: not $end_waiting ranks say they wait: $(grep -v '^ *$' "$out" | head -10)"
		[ -z "$end_own" ] ||
			grep -Eq "$who: rank 1: the trace ends here \($end_own\): ending the same way$" "$out" ||
			fail "$end_name's $how: rank 1 does not end as its original did: $(grep -v '^ *$' "$out" | head -10)"
		if [ -n "$lossy" ]; then
			echo "KNOWN: $end_name's $how under MPICH: Hydra kills the other ranks before they spill (status $st)"
			continue
		fi
		"$rondo" diff --ignore buffers "$end_name.rondo" "$end_name.$how.rondo" >"$end_name.$how.diff" 2>&1 &&
			[ "$(tail -1 "$end_name.$how.diff")" = "same communication" ] ||
			fail "$end_name's $how: the calls differ: $(head -20 "$end_name.$how.diff")"
	done
}

# Replayed, the job ended by MPI_Abort ends so: rank 1 calls MPI_Abort,
# ranks 0 and 2 wait where theirs were cut short (by SIGTERM under Open
# MPI, "no word after its last spill" under MPICH, whose launcher kills)
# until the launcher ends them; the launcher's status is the original's.
ends abort "$want" 2 ""

# The explorer's header says it too (second line, first).
if command -v tmux >/dev/null 2>&1; then
	tmux -S "$tmp/tm" new-session -d -s v -x 220 -y 30 \
		"env LC_ALL=C.UTF-8 TERM=xterm-256color HOME=$tmp RONDO_THEMES_DIR=$top_srcdir/themes $rondo view $tmp/abort.rondo; sleep 30"
	i=0
	while [ $i -lt 200 ] && ! tmux -S "$tmp/tm" capture-pane -p -t v | grep -q "ended: "; do
		sleep 0.1; i=$((i + 1))
	done
	tmux -S "$tmp/tm" capture-pane -p -t v | sed -n 2p |
		grep -q "ended: .*MPI_Abort(errorcode=3) on rank 1" ||
		fail "the explorer's header does not say how the job ended: $(tmux -S "$tmp/tm" capture-pane -p -t v | head -3)"
	tmux -S "$tmp/tm" kill-server 2>/dev/null
else
	fail "no tmux to check the explorer's header (apt-get install tmux)"
fi

go hang TERM hang 20
mpich_race "SIGTERM to the job" 15
check hang "(signal 15 \(SIGTERM\) inside MPI_Recv|no word after its last spill)" -

go int INT hang 20
mpich_race "SIGINT to the launcher" 2
# Hydra's status is the bitwise OR of its ranks' (an exit code, or the
# signal that ended one: `mpiexec -n 2 sh -c 'kill -INT $$ or sleep;
# kill -KILL $$'` exits 11).  Once one rank has ended by the SIGINT it
# passes on, Hydra SIGKILLs the others, and a traced rank may still be
# in its handler writing the rest of its record: 11 = 2 | 9 (seen in two
# CI runs; every call was spilled before, and the checks below passed).
if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ "$got" != "$want" ] &&
	case "$got" in 9 | 11) true ;; *) false ;; esac; then
	echo "KNOWN: SIGINT to the launcher under MPICH: mpiexec exits $got traced ($got = the OR of its ranks' ends, one SIGKILLed by Hydra in its handler), $want untraced"
	got=$want
fi
check int "(signal (2|15) \(SIG(INT|TERM)\) inside MPI_Recv|no word after its last spill)" -
# Ctrl-C at a terminal (tmux): SIGINT from the terminal to its whole
# foreground group, the launcher with it; rondo run does not pass this
# one on, so the launcher sees one Ctrl-C, as untraced.
ctrlc() {
	for t in 0 1; do
		if [ $t = 0 ]; then
			e="$tmp/ctrlc0.expect"
			cmd="$M -np 3 -x RONDO_EXPECT=$e ${san:+-x LD_PRELOAD=$san -x ASAN_OPTIONS} $prog hang 20"
		else
			e="$tmp/ctrlc.expect"
			cmd="$rondo run -o $tmp/ctrlc.rondo -- $M -np 3 -x RONDO_EXPECT=$e ${san:+-x ASAN_OPTIONS} $prog hang 20"
		fi
		rm -f "$tmp/ctrlc$t.status"
		tmux -S "$tmp/tc" new-session -d -s c -x 200 -y 40 \
			"$cmd >$tmp/ctrlc$t.out 2>&1; echo \$? >$tmp/ctrlc$t.status"
		sleep 4
		tmux -S "$tmp/tc" send-keys -t c C-c
		i=0
		while [ $i -lt 400 ] && [ ! -s "$tmp/ctrlc$t.status" ]; do
			sleep 0.1
			i=$((i + 1))
		done
		tmux -S "$tmp/tc" kill-server 2>/dev/null
		st=$(cat "$tmp/ctrlc$t.status" 2>/dev/null)
		[ -n "$st" ] || { fail "ctrl-c: the job did not end in 40 s"; st=none; }
		[ $t = 0 ] && want=$st || got=$st
	done
}
if command -v tmux >/dev/null 2>&1; then
	ctrlc
	mpich_race Ctrl-C 2
	# Open MPI's mpirun ends the ranks (their own process group) with
	# SIGTERM, then SIGKILL
	check ctrlc "(signal (2|15) \(SIG(INT|TERM)\) inside MPI_Recv|no word after its last spill)" -
else
	fail "no tmux to press Ctrl-C (apt-get install tmux)"
fi

go segv self segv 20
if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ "$got" != "$want" ] &&
	[ "$got" -ne 0 ] && [ "$want" -ne 0 ]; then
	# Hydra reports the status of whichever rank it sees end first: the
	# crashed one's (its SIGSEGV, or the sanitizer's 86) or one it
	# SIGKILLed (9), traced or not; said rather than hidden
	echo "KNOWN: segfault under MPICH: the launcher exits $got traced, $want untraced"
	got=$want
fi
check segv ".*signal 11 \(SIGSEGV\) on rank 1" -
# Replayed, rank 1 raises the signal it gave itself, and the launcher ends
# the others (its status: whichever rank it saw end first, as above).
ends segv nonzero 2 "signal 11 \(SIGSEGV\)"

go exit self exit 20
traced=$got
if [ "${MPI_FLAVOR:-openmpi}" = mpich ] && [ "$got" != "$want" ]; then
	# MPICH's ranks finish MPI_Finalize without the rank that left;
	# traced, they wait for it in the merge and Hydra kills them: a
	# known difference, said rather than hidden
	echo "KNOWN: exit without MPI_Finalize under MPICH: the launcher exits $got traced, $want untraced"
	got=$want
fi
check exit ".*exit\(4\) without MPI_Finalize on rank 1" -
# Replayed, rank 1 exits with 4 without MPI_Finalize, the others finalize:
# the launcher's status is the traced original's.
ends exit "$traced" 0 "exit\(4\) without MPI_Finalize"

go rankterm rank-TERM hang 20
check rankterm ".*signal 15 \(SIGTERM\) inside MPI_Recv on rank" -

go rankkill rank-KILL loop 0
# Open MPI ends the others with SIGTERM (saved whole); MPICH's Hydra with
# SIGKILL: every rank then has what its last spill had
if [ "${MPI_FLAVOR:-openmpi}" = mpich ]; then
	check rankkill ".*no word after its last spill at [0-9:]+, [0-9]+ s before the end on rank" all
else
	check rankkill ".*no word after its last spill at [0-9:]+, [0-9]+ s before the end on rank 1" 1
fi

# By hand: the tracer preloaded with mpirun -x, a deadlock killed, then
# rondo recover on the folder the ranks left.
RONDO_EXPECT="$tmp/manual.expect" timeout -s TERM 5 "$M" -np 3 -x RONDO_EXPECT \
	-x LD_PRELOAD="$pre" -x RONDO_OUT="$tmp/manual.rondo" -x RONDO_FLUSH_INTERVAL \
	${san:+-x ASAN_OPTIONS} "$prog" hang 20 >manual.out 2>&1
[ -d manual.spill ] || fail "manual: no spill folder: $(ls)"
cp -r manual.spill damaged.spill
"$rondo" recover manual.spill >recover.out 2>&1 || fail "recover: $(cat recover.out)"
rm -rf manual.spill
# the time before calls came through the spill files too
expect_exit 0 "$rondo" stats --before --csv - manual.rondo
awk -F, 'NR > 1 && $3 > 0 { n++ } END { exit !n }' "$tmp/out" ||
	fail "manual: no time before calls in the recovered trace: $(cat "$tmp/out" "$tmp/err")"
# ...and per rank group (each rank's GAPS records): the groups' calls
# add up to all ranks'
all=$(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' "$tmp/out")
sum=0 g=0
while "$rondo" stats --before --group $g --csv - manual.rondo >group.csv 2>/dev/null; do
	sum=$((sum + $(awk -F, 'NR > 1 { s += $3 } END { print s + 0 }' group.csv)))
	g=$((g + 1))
done
[ "$g" -gt 0 ] && [ "$sum" -eq "$all" ] ||
	fail "manual: the time before calls per rank group: $g groups, $sum calls, want $all"
got=0 want=0
check manual "(signal 15 \(SIGTERM\) inside MPI_Recv|no word after its last spill)" -
# The same with per-call times; then rank 1's file as a tracer of 1.8 or
# before wrote it (HEAD's timing 2): recovery leaves out that rank's
# times, and says so, and keeps the others'.
RONDO_EXPECT="$tmp/mtimed.expect" timeout -s TERM 5 "$M" -np 3 -x RONDO_EXPECT \
	-x LD_PRELOAD="$pre" -x RONDO_OUT="$tmp/mtimed.rondo" -x RONDO_FLUSH_INTERVAL \
	-x RONDO_TIMING=percall ${san:+-x ASAN_OPTIONS} "$prog" hang 20 >mtimed.out 2>&1
[ -d mtimed.spill ] || fail "mtimed: no spill folder: $(ls)"
# left_out NAME WHAT SAID: mtimed.spill with rank 1's file changed by
# spillmod.py WHAT, recovered to NAME.rondo; recovery says SAID (a basic
# regular expression) of rank-1.spill.
left_out() {
	mkdir "$1.spill"
	cp mtimed.spill/* "$1.spill/"
	"${PYTHON3:-python3}" "$top_srcdir/tests/spillmod.py" mtimed.spill/rank-1.spill \
		"$1.spill/rank-1.spill" "$2" || fail "spillmod.py $2 failed"
	"$rondo" recover -o "$1.rondo" "$1.spill" >"$1.out" 2>&1 ||
		fail "$1: rondo recover: $(cat "$1.out")"
	grep -q "rank-1.spill: $3" "$1.out" ||
		fail "$1: recovery does not say rank 1's times are left out: $(cat "$1.out")"
}
left_out oldtimes head-timing "its per-call times are coded as an older tracer coded them (format 1.8 or before): left out"
# ...and rank 1's file with a duration code past the time scale (a
# damaged chunk that still decompresses): its times left out, and said.
left_out badcode big-code "its per-call time codes are out of the scale of base [0-9.]*: left out"
# The same files as spill version 1 wrote them (chunks as zstd of 32-bit
# values, not byte planes): recovered to the same calls and times.
mkdir v1.spill
for f in mtimed.spill/*; do
	case $f in
	*.spill) "${PYTHON3:-python3}" "$top_srcdir/tests/spillmod.py" "$f" \
		"v1.spill/${f##*/}" v1 || fail "spillmod.py v1 $f failed" ;;
	*) cp "$f" v1.spill/ ;;
	esac
done
"$rondo" recover -o v1.rondo v1.spill >v1.out 2>&1 || fail "v1: rondo recover: $(cat v1.out)"
"$rondo" recover mtimed.spill >mtimed.rec 2>&1 || fail "mtimed: rondo recover: $(cat mtimed.rec)"
for r in 0 1 2; do
	"$rondo" dump --times --rank $r mtimed.rondo >mtimed.times.$r 2>&1
	"$rondo" dump --times --rank $r v1.rondo >v1.times.$r 2>&1
	cmp -s mtimed.times.$r v1.times.$r ||
		fail "v1: rank $r's calls or times differ: $(diff mtimed.times.$r v1.times.$r | head -5)"
	# the codes read back as the times they were: every call ends
	# within the seconds the job ran
	awk '!/^#/ && $4 != "-" && $4 > 60 { print; exit 1 }' mtimed.times.$r >mtimed.late.$r ||
		fail "mtimed: rank $r has a call ending past 60 s: $(cat mtimed.late.$r)"
done
# timed calls per rank: in the intact folder's trace, every rank has
# some; in the others, rank 1 none
for f in mtimed oldtimes badcode; do
	for r in 0 1; do
		"$rondo" dump --times --rank $r $f.rondo 2>/dev/null |
			awk '!/^#/ && $3 != "-" { n++ } END { print n + 0 }' >"$f.timed.$r"
	done
done
[ "$(cat mtimed.timed.0)" -gt 0 ] && [ "$(cat mtimed.timed.1)" -gt 0 ] &&
	[ "$(cat oldtimes.timed.0)" -eq "$(cat mtimed.timed.0)" ] &&
	[ "$(cat oldtimes.timed.1)" -eq 0 ] ||
	fail "oldtimes: timed calls of ranks 0 and 1: $(cat mtimed.timed.0 mtimed.timed.1 | tr "\n" " ")intact, $(cat oldtimes.timed.0 oldtimes.timed.1 | tr "\n" " ")with rank 1's of an older tracer"
[ "$(cat badcode.timed.0)" -eq "$(cat mtimed.timed.0)" ] &&
	[ "$(cat badcode.timed.1)" -eq 0 ] ||
	fail "badcode: timed calls of ranks 0 and 1: $(cat badcode.timed.0 badcode.timed.1 | tr "\n" " ")with rank 1's code past the scale"
# Damaged files: one cut in the middle is read up to its last good
# record; a file that is no spill at all is left out and said; nothing
# readable at all is one message and status 1.
f=damaged.spill/rank-1.spill
head -c $(($(wc -c <"$f") / 2)) "$f" >cut && mv cut "$f"
echo "not a spill" >damaged.spill/rank-9.spill
"$rondo" recover -o damaged.rondo damaged.spill >damaged.out 2>&1 ||
	fail "recover of a damaged folder: $(cat damaged.out)"
grep -q "rank-9.spill: not a rondo spill file" damaged.out || fail "the bad file is not named: $(cat damaged.out)"
"$rondo" info damaged.rondo >/dev/null 2>&1 || fail "the damaged folder's trace does not open"
mkdir junk.spill && echo junk >junk.spill/rank-0.spill
expect_exit 1 "$rondo" recover junk.spill
one_error "^rondo: cannot recover: .*junk.spill/rank-0.spill: not a rondo spill file"
expect_exit 1 "$rondo" recover empty.spill
one_error "^rondo: cannot recover: empty.spill: No such file"
expect_exit 2 "$rondo" recover

# --spill-dir (RONDO_SPILL_DIR): the folder goes there, and rondo run
# makes the trace from it.
mkdir node
RONDO_EXPECT="$tmp/sd.expect" timeout -s TERM 5 "$rondo" run --spill-dir "$tmp/node" \
	-o "$tmp/sd.rondo" -- "$M" -np 3 -x RONDO_EXPECT ${san:+-x ASAN_OPTIONS} \
	"$prog" hang 20 >sd.out 2>&1
grep -q "its trace is made from $tmp/node/sd.spill" sd.out ||
	fail "--spill-dir: not recovered from $tmp/node/sd.spill: $(grep rondo sd.out)"
"$rondo" info sd.rondo >/dev/null 2>&1 || fail "--spill-dir: no trace"
[ ! -e sd.spill ] || fail "--spill-dir: a folder beside the trace too"

# RONDO_SPILL=0 (passed on by rondo run): nothing is kept for a bad
# ending.  A job killed with SIGTERM leaves no spill folder and no trace,
# and its launcher exits as untraced (no handler of rondo's is in the
# way); a job that ends well has the same calls in its trace as with the
# spill files kept, and says what they cost with RONDO_VERBOSE.
# (timeout --preserve-status: the launcher's status, not timeout's 124)
RONDO_EXPECT="$tmp/nospill0.expect" timeout --preserve-status -s TERM 4 "$M" -np 3 \
	-x RONDO_EXPECT ${san:+-x LD_PRELOAD="$san" -x ASAN_OPTIONS} "$prog" hang 20 >nospill0.out 2>&1
want=$?
RONDO_SPILL=0 RONDO_EXPECT="$tmp/nospill.expect" timeout --preserve-status -s TERM 4 \
	"$rondo" run -o "$tmp/nospill.rondo" -- "$M" -np 3 -x RONDO_EXPECT \
	${san:+-x ASAN_OPTIONS} "$prog" hang 20 >nospill1.out 2>&1
got=$?
mpich_race "RONDO_SPILL=0, SIGTERM to the job" 15
[ "$got" = "$want" ] || fail "RONDO_SPILL=0: the launcher exits $got traced, $want untraced"
[ "$want" -ne 0 ] || [ "${MPI_FLAVOR:-openmpi}" = mpich ] ||
	fail "RONDO_SPILL=0: the untraced job was not ended by SIGTERM: $(cat nospill0.out)"
[ -s nospill.expect.2 ] || fail "RONDO_SPILL=0: the traced job did not start: $(cat nospill1.out)"
[ ! -e nospill.spill ] || fail "RONDO_SPILL=0: a spill folder: $(ls nospill.spill)"
[ ! -e nospill.rondo ] || fail "RONDO_SPILL=0: a trace made after SIGTERM"
! grep -q "spill" nospill1.out || fail "RONDO_SPILL=0: said: $(grep spill nospill1.out)"
for spill in 0 1; do
	RONDO_SPILL=$spill RONDO_VERBOSE=1 RONDO_EXPECT="$tmp/done$spill.expect" timeout 90 \
		"$rondo" run -o "$tmp/done$spill.rondo" -- "$M" -np 3 -x RONDO_EXPECT \
		${san:+-x ASAN_OPTIONS} "$prog" done 20 >"done$spill.out" 2>&1 ||
		fail "RONDO_SPILL=$spill: a job that ends well fails: $(cat "done$spill.out")"
	for r in 0 1 2; do
		"$rondo" dump --rank $r "done$spill.rondo" >"done$spill.$r" 2>&1 ||
			fail "RONDO_SPILL=$spill: rank $r: $(cat "done$spill.$r")"
	done
	[ ! -e "done$spill.spill" ] || fail "RONDO_SPILL=$spill: the spill folder is left"
done
for r in 0 1 2; do
	cmp -s done0.$r done1.$r ||
		fail "rank $r: other calls with RONDO_SPILL=0: $(diff done1.$r done0.$r | head -5)"
	[ "$(wc -l <done0.$r)" -eq "$(wc -l <done0.expect.$r)" ] ||
		fail "RONDO_SPILL=0: rank $r: $(wc -l <done0.$r) calls recorded, $(wc -l <done0.expect.$r) made"
done
grep -q "^rondo: RONDO_SPILL=0: no spill files" done0.out ||
	fail "RONDO_SPILL=0 with RONDO_VERBOSE: not said: $(grep rondo done0.out)"
grep -Eq "^rondo: rank 0: [0-9]+ spills, [0-9]+ bytes written, [0-9.]+ ms in spills \([0-9.]+ in fdatasync; largest [0-9.]+ ms\), [0-9]+ calls in the spill file$" done1.out ||
	fail "RONDO_VERBOSE: no line of what the spills cost: $(grep rondo done1.out)"
! grep -q " spills, " done0.out || fail "RONDO_SPILL=0: spills counted: $(grep spills done0.out)"

# The program's own SIGTERM handler, set before MPI_Init (rondo's runs
# first and calls it) or after (rondo's still runs first: the module's
# sigaction() keeps it in front): it runs, the program stops its loop,
# finalizes and exits 3, as it chooses.  The signal is taken by the main
# thread between MPI calls only (tests/mpi/ending.c blocks it from before
# MPI_Init): taken by one of Open MPI's threads, or inside the library's
# poll(), it hung the ring now and then, traced or not.
for when in before after; do
	go "handler$when" rank-TERM handler 0 $when
	# the status the program chooses; the untraced run's is only said
	[ "$got" = 3 ] || fail "handler $when: exits $got traced, not the program's 3"
	[ "$want" = 3 ] || echo "NOTE: handler $when: the untraced run exits $want"
	grep -q "the program's handler ran" "handler${when}1.out" ||
		fail "handler $when: the program's handler did not run"
	"$rondo" info "handler$when.rondo" >/dev/null 2>&1 ||
		fail "handler $when: no trace at MPI_Finalize"
done
# A handler set with signal() after MPI_Init that puts the default back
# and raises the signal again: the rank dies of it, and its record says
# so (with the handler displacing rondo's, it would say nothing after its
# last spill).  Under MPICH the launcher kills the other ranks with
# SIGKILL: they keep their last spill.
go handlerdies rank-TERM handler 0 dies
grep -q "the program's handler ran" handlerdies1.out ||
	fail "handler dies: the program's handler did not run"
if [ "${MPI_FLAVOR:-openmpi}" = mpich ]; then cut=all; else cut=-; fi
check handlerdies "(.*; )?signal 15 \(SIGTERM\) on rank 1(;|$)" "$cut"

echo "ending.sh: $fails failed"
[ "$fails" -eq 0 ]
