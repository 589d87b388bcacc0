#!/bin/sh
# view.sh - the real `rondo view` in a detached tmux session of 100x30
# (send-keys, capture-pane, polling with a timeout): opening a trace,
# folding and unfolding a loop, search and stepping through matches, the
# help, the signature table and its sorting, resizing down to the "too
# small" notice and back, switching themes, NO_COLOR and --color=never, a
# bad theme file, the way out (q, and a signal) leaving the terminal as it
# was, a damaged trace; the communication matrix (cells, bytes, filters,
# CSV export, zooming into blocks of ranks), the contention table, and
# the timeline of a trace with per-call times (zoom, pan, the cursor's
# bucket on the status line, a tree call highlighted, blocks of ranks, the
# message on a trace without per-call times), and the ranks a recovered
# trace says were cut short.
# Screens are compared with tests/golden/view-*
# (the file size in the header masked: it belongs to the zstd version).
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
mktrace="$top_builddir/tests/mktrace"
golden="$top_srcdir/tests/golden"

command -v tmux >/dev/null 2>&1 || { echo "SKIP: no tmux (apt-get install tmux)"; exit 77; }
[ -x "$rondo" ] || { echo "FAIL: $rondo not built"; exit 1; }
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' ||
	{ echo "SKIP: no C.UTF-8 locale"; exit 77; }

# A server of our own, so that nothing of the user's is touched, whose
# panes have 256 colours (screen-256color is in Debian's ncurses-base).
# Each start has a server (and socket) of its own: a new session on the
# socket of a server still shutting down fails ("server exited
# unexpectedly"), seen on a loaded machine.
runs=0
sock="$tmp/tmux.0"
# set-clipboard: tmux keeps what the explorer copies by OSC 52 (y)
printf 'set -g default-terminal screen-256color\nset -g set-clipboard on\n' >"$tmp/tmux.conf"
tm() { tmux -S "$sock" -f "$tmp/tmux.conf" "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
export LC_ALL=C.UTF-8 TERM=xterm-256color RONDO_THEMES_DIR="$top_srcdir/themes"
unset NO_COLOR XDG_CONFIG_HOME
export HOME="$tmp/home"

cd "$tmp" || exit 1
"$mktrace" --ranks 4 --iters 50 demo.rondo || { echo "FAIL: mktrace"; exit 1; }

# start ARGS...: rondo view in a fresh session (with $VIEW_ENV, a
# variable assignment, in its environment); its exit status goes to
# $tmp/status, then the terminal's settings (stty) to $tmp/stty.
VIEW_ENV=
start() {
	tm kill-server 2>/dev/null
	runs=$((runs + 1))
	sock="$tmp/tmux.$runs"
	rm -f "$tmp/status" "$tmp/stty"
	{
		echo '#!/bin/sh'
		[ -z "$VIEW_ENV" ] || echo "export $VIEW_ENV"
		printf '"%s" view "$@"\necho $? >"%s"\nstty -a >"%s"\nsleep 30\n' \
			"$rondo" "$tmp/status" "$tmp/stty"
	} >"$tmp/run.sh"
	tm new-session -d -s view -x 100 -y 30 sh "$tmp/run.sh" "$@" ||
		fail "tmux new-session failed"
}

# screen [-e]: the pane's text (with -e, its colours too).
screen() { tm capture-pane -p ${1:+"$1"} -t view; }

# settle CMD...: runs CMD every 0.1 s until it succeeds (30 s at most:
# the tests run beside others on a loaded machine); its last status.
settle() {
	i=0
	while [ $i -lt 300 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

shows() { screen ${2:+"$2"} | grep -qF -- "$1"; }
shows_not() { ! screen ${2:+"$2"} | grep -q -- "$1"; }

# wait_for TEXT: polls the screen until it shows TEXT.
wait_for() {
	settle shows "$1" && return 0
	fail "the screen never showed '$1':"
	screen | sed 's/^/  | /'
	return 1
}

# wait_gone PATTERN [-e]: polls the screen until PATTERN (a grep basic
# regular expression) is gone from it (with -e, from its colours too).
wait_gone() {
	settle shows_not "$@" && return 0
	fail "the screen still shows '$1':"
	screen | sed 's/^/  | /'
	return 1
}

# keys KEY...: sends keys, then lets the screen settle.
keys() {
	tm send-keys -t view "$@"
	sleep 0.3
}

# golden NAME: the screen against tests/golden/view-NAME.txt (polled, so
# that a screen still being drawn is not taken for a wrong one).
same_as_golden() {
	screen | sed 's/[0-9]\{1,\} B$/N B/' >"$tmp/screen.txt"
	diff -u "$golden/view-$1.txt" "$tmp/screen.txt" >"$tmp/diff"
}
golden() {
	if [ -n "${RONDO_UPDATE_GOLDEN:-}" ]; then
		sleep 1
		screen | sed 's/[0-9]\{1,\} B$/N B/' >"$golden/view-$1.txt"
	elif ! settle same_as_golden "$1"; then
		fail "screen '$1' differs from golden/view-$1.txt:"
		sed 's/^/  /' "$tmp/diff"
	fi
}

# exited STATUS: rondo view has exited with STATUS.
exited() {
	i=0
	while [ ! -s "$tmp/status" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(cat "$tmp/status" 2>/dev/null)" = "$1" ] ||
		fail "rondo view exited with '$(cat "$tmp/status" 2>/dev/null)', want $1"
	# the terminal is back: line editing and echo on
	i=0
	while [ ! -s "$tmp/stty" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	grep -qw icanon "$tmp/stty" && grep -qw echo "$tmp/stty" ||
		fail "the terminal was not restored: $(cat "$tmp/stty" 2>/dev/null)"
}

# Opening: the header and the groups, the group of most MPI time (ranks
# 1 and 2: 54 % of it) open and selected, and a word on what a group is.
start demo.rondo
wait_for "rank groups" && golden open

# The heaviest path, one key: down to the call of most time in all, the
# Waitall of the ranks 1,2's loop, 50 runs of it (31 % of MPI time).
keys H
wait_for "runs 50 times per rank, on 2 ranks: in all 50 calls, 4.55 ms per rank, 31.0% of all MPI time"
golden heaviest
# Heaviest first in each level (s), then the calls' order again; the
# selection stays on its call.
keys s
wait_for "structure, heaviest first"
golden sorted
keys s
wait_for "structure (per rank: one run;"
keys j k
settle shows "9/13" || fail "after sorting twice, the selection is not on row 9: $(screen | tail -n 1)"

# A group, and a loop in it: open, then closed again with Space.
keys g Enter
wait_for "×50 [ MPI_Irecv … MPI_Allreduce ]"
keys j j Enter
wait_for "MPI_Waitall(count=2"
golden loop
keys Space
wait_gone "MPI_Waitall(count=2"
keys Space
wait_for "MPI_Waitall(count=2"

# Search, and stepping through the matches in tree order.
keys / W a i t a l l Enter
wait_for "2 signatures match \"Waitall\""
keys n
wait_for "array_of_requests=[r0, r1, r2, r3]"
golden search
keys N
wait_for "array_of_requests=[r0, r1], array_of_statuses"

# The help: every key of the table.
keys ?
wait_for "keys (q to go back)"
golden help
# ...which stops at its end: the last key on the last line, and more
# keys down move nothing
help_end() { screen | tail -n 1 | grep -q "keys \([0-9]*\)-\([0-9]*\) of \2 "; }
keys G
settle help_end || fail "G in the help: $(screen | tail -n 1)"
wait_for "Ctrl-L             redraw the screen"
at_end=$(screen | tail -n 1)
keys j j PgDn
[ "$(screen | tail -n 1)" = "$at_end" ] ||
	fail "the help moved past its end: $(screen | tail -n 1), was $at_end"
keys q
wait_for "structure (per rank: one run;"

# The signature table, by total time, then by count.
keys Tab
wait_for "signature (12 of 12; peers +k relative to the caller)"
golden sigs-total
# a signature of one rank (rank 0's 50 receives from the right) names
# its peer as that rank does; one of several ranks, relative to the caller
settle shows "50   3.69 µs   7.20 µs  MPI_Irecv(count=1024, datatype=MPI_DOUBLE, source=1, tag" ||
	fail "rank 0's own Irecv does not name rank 1: $(screen)"
settle shows "150   3.95 µs   7.20 µs  MPI_Irecv(count=1024, datatype=MPI_DOUBLE, source=-1, tag" ||
	fail "the Irecv of 3 ranks does not read source=-1: $(screen)"
keys s
wait_for "count▼"
golden sigs-count
row4() { screen | sed -n 4p | grep -q "400.*MPI_Allreduce"; }
settle row4 ||
	fail "sorted by count, the first row is not the Allreduce: $(screen | sed -n 4p)"
# filtered by function, then back to the tree at a signature's first call
keys f I s e n d Enter
wait_for "signature (3 of 12, function has \"Isend\"; peers +k relati"
# what the rows shown add up to: 150 + 100 + 50 Isends over all ranks
wait_for "1/3  300 calls, "
keys Enter
wait_for "structure (per rank: one run;"
settle shows "MPI_Isend(buf=m1" || fail "Enter in the table did not go to an Isend"

# Resizing: smaller, too small, and back.
tm resize-window -t view -x 80 -y 24
resized() { [ "$(screen | wc -l)" = 24 ] && screen | sed -n 24p | grep -q "quit"; }
settle resized ||
	fail "after resizing to 80x24: $(screen | wc -l) lines, the last: $(screen | tail -n 1)"
tm resize-window -t view -x 40 -y 10
wait_for "terminal too small"
# the size it needs shows whole, and keys typed meanwhile do nothing
wait_for "40x10, needs 60x16"
before=$(screen -e)
keys g Tab T
[ "$(screen -e)" = "$before" ] || fail "keys changed the too-small screen: $(screen)"
tm resize-window -t view -x 100 -y 30
wait_for "structure (per rank: one run;"
settle shows "MPI_Isend(buf=m1" || fail "keys typed on the too-small screen acted: $(screen)"

# q quits, exit status 0, the terminal back.
keys q
exited 0

# Themes: the default uses 256 colours; t switches; mono uses none.
start demo.rondo
wait_for "rank groups"
settle shows '38;5;' -e || fail "the default theme shows no 256-colour text"
keys t
wait_for "theme light"
keys t
wait_for "theme mono"
keys C-l
wait_gone '38;5;\|48;5;' -e
keys q
exited 0
start --theme light demo.rondo
wait_for "rank groups"
settle shows '48;5;' -e || fail "the light theme shows no background colour"
keys q
exited 0

# NO_COLOR and --color=never: no colour, attributes only.
for how in env option; do
	if [ $how = env ]; then
		VIEW_ENV=NO_COLOR=1 start demo.rondo
	else
		VIEW_ENV= start --color=never demo.rondo
	fi
	wait_for "rank groups"
	screen -e | grep -q '38;5;\|48;5;\|\[3[0-7]m\|\[4[0-7]m' &&
		fail "colours with $how NO_COLOR / --color=never"
	keys q
	exited 0
done
VIEW_ENV=

# A bad theme: file:line:col, then the default theme.
printf 'name: bad\nroles:\n  nosuchrole: { fg: "#ffffff" }\n' >"$tmp/bad.yaml"
start --theme "$tmp/bad.yaml" demo.rondo
wait_for "bad.yaml:3:3:"
wait_for "default theme used:"
settle shows '38;5;' -e || fail "no default theme after a bad one"
keys q
exited 0

# A signal: the terminal is restored all the same.
start demo.rondo
wait_for "rank groups"
# only this session's rondo: the child of the pane's shell
pkill -TERM -P "$(tm display-message -p -t view '#{pane_pid}')" -f "rondo view" ||
	fail "no rondo view in the pane to signal"
exited 143

# A damaged trace: one line and status 1 (as every command's), before
# any screen.
head -c 100 demo.rondo >cut.rondo
"$rondo" view cut.rondo >"$tmp/out" 2>&1
st=$?
[ $st = 1 ] || fail "damaged trace: exit status $st, want 1"
grep -q "^rondo: cannot open cut.rondo" "$tmp/out" ||
	fail "damaged trace: $(cat "$tmp/out")"
[ "$(wc -l <"$tmp/out")" = 1 ] || fail "damaged trace: more than one line: $(cat "$tmp/out")"

# The communication matrix (m), without colour: intensity as characters.
# The demo is a 1-D halo: each rank sends 50 messages of 1024 doubles to
# each neighbour.
VIEW_ENV=NO_COLOR=1 start demo.rondo
wait_for "rank groups"
keys m
wait_for "messages sent, sender (row) to receiver (column)"
wait_for "ranks 0-3 → 0-3, 1 rank a cell"
golden matrix
keys l
wait_for "rank 0 → rank 1: 50 messages, 409 600 bytes (410 kB)"
keys j
wait_for "rank 1 → rank 1: 0 messages, 0 bytes (0 B)"
keys Left
wait_for "rank 1 → rank 0: 50 messages, 409 600 bytes (410 kB)"
# bytes, then back to messages
keys b
wait_for "bytes sent, sender (row) to receiver (column)"
wait_for "bytes a cell, log scale"
keys b
wait_for "messages a cell, log scale"
# collectives: each Allreduce (2 an iteration) sends to every other rank
keys c
wait_for "counted: point-to-point and collectives, all functions"
wait_for "rank 1 → rank 0: 150 messages"
keys c
wait_for "counted: point-to-point, all functions"
# one function: receives send nothing; part of a name is enough
keys f C-u I r e c v Enter
wait_for "counting MPI_Irecv alone"
wait_for "rank 1 → rank 0: 0 messages"
keys f C-u n o s u c h Enter
wait_for "no function has \"nosuch\""
keys f C-u Enter
wait_for "counting every function"
wait_for "rank 1 → rank 0: 50 messages"
# export: the default path beside the trace, then one given
keys x
wait_for "export the matrix to: demo.matrix.csv"
keys Enter
wait_for "wrote demo.matrix.csv: 6 cells (point-to-point, all functions)"
keys x C-u "$tmp/m.csv" Enter
wait_for "wrote $tmp/m.csv: 6 cells"
# an existing file: written over only on y; "~/" is the home folder
: >demo.matrix.csv
keys x Enter
wait_for "the file exists: write over it? (y/n)"
keys n Enter
wait_for "not written: demo.matrix.csv is left as it was"
[ -s demo.matrix.csv ] && fail "n at the question wrote the file over"
keys x Enter
wait_for "the file exists: write over it? (y/n)"
keys y Enter
wait_for "wrote demo.matrix.csv: 6 cells"
mkdir -p "$HOME"
keys x C-u "~/m2.csv" Enter
wait_for "m2.csv: 6 cells"
[ -s "$HOME/m2.csv" ] || fail "~/m2.csv was not written in the home folder: $(ls "$HOME")"
printf '%s\n' src,dst,messages,bytes 0,1,50,409600 1,0,50,409600 \
	1,2,50,409600 2,1,50,409600 2,3,50,409600 3,2,50,409600 >"$tmp/want.csv"
for f in "$tmp/m.csv" demo.matrix.csv; do
	cmp -s "$tmp/want.csv" "$f" || fail "matrix export $f: $(cat "$f")"
done
# an unwritable path: the reason on the status line, and the view goes on
keys x C-u "$tmp/no/such/dir/m.csv" Enter
wait_for "cannot write $tmp/no/such/dir/m.csv: No such file or directory"
keys x C-u "$tmp" Enter
wait_for "cannot write $tmp: it is a directory"
keys l
wait_for "rank 1 → rank 1: 0 messages"
# Esc, not zoomed in, goes back to the tree; Tab goes round every pane
keys Escape
wait_for "structure (per rank: one run;"
keys Tab Tab
wait_for "function (7)"
keys Tab
wait_for "messages a cell, log scale"
keys Tab
wait_for "signature (12)"
keys Tab
wait_for "structure (per rank: one run;"
keys q
exited 0

# With colour: the gradient's hot end (#f7768e, 210 of 256) on the
# cells; the mono theme (t) turns them to characters.
start demo.rondo
wait_for "rank groups"
keys m
wait_for "messages a cell, log scale"
hot() { screen -e | sed -n 5p | grep -q '48;5;210'; }
settle hot || fail "the matrix shows no gradient colour: $(screen -e | sed -n 5p)"
keys t t
wait_for "theme mono"
wait_for "@@@@@@"
keys q q
exited 0

# More ranks than fit: blocks of 10 ranks, zoom into one and out again.
"$mktrace" --ranks 200 --iters 5 big.rondo || fail "mktrace --ranks 200"
VIEW_ENV=NO_COLOR=1 start big.rondo
wait_for "rank groups"
keys m
wait_for "ranks 0-199 → 0-199, 10 ranks a cell"
wait_for "190-199 "
wait_for "ranks 0-9 → ranks 0-9: 90 messages"
keys j j j l l l l
wait_for "ranks 30-39 → ranks 40-49: 5 messages, 40 960 bytes (41.0 kB)"
keys Enter
wait_for "zoomed: ranks 30-39 → 40-49, 1 rank a cell"
golden matrix-zoom
keys G
wait_for "rank 39 → rank 40: 5 messages, 40 960 bytes (41.0 kB)"
keys Enter
wait_for "a cell is one rank to one rank: nothing to zoom into"
keys BSpace
wait_for "ranks 0-199 → 0-199, 10 ranks a cell"
wait_for "ranks 30-39 → ranks 40-49: 5 messages"
keys -
wait_for "not zoomed in"
keys + 
wait_for "zoomed: ranks 30-39 → 40-49"
keys -
wait_for "ranks 0-199 → 0-199, 10 ranks a cell"
keys q q
exited 0

# Contention (w): signatures by time lost to imbalance (the most a rank
# spent in one less the ranks' mean), first; s sorts by time lost against
# the fastest call, then by the ratio, each time from the first row, in
# view; Enter goes to the signature in the tree.
start demo.rondo
wait_for "rank groups"
keys w
wait_for "signature (12)"
golden contention
row4() { screen | sed -n 4p | grep -q "229 µs .*MPI_Waitall(count=4"; }
settle row4 || fail "contention: the first row is not the Waitall of 4: $(screen | sed -n 4p)"
# a late arriver is named only where one makes the others wait
wait_for "no collective: late senders and receivers are in rondo waits"
keys j j j
wait_for "4/12  Enter go to"
keys s
wait_for "lost▼"
wait_for "1/12  Enter go to"
row4() { screen | sed -n 4p | grep -q "7.10 ms .*MPI_Waitall(count=4"; }
settle row4 || fail "contention by time lost: the first row is not the Waitall of 4: $(screen | sed -n 4p)"
keys s
wait_for "max/mean▼"
row4() { screen | sed -n 4p | grep -q "1.11 .*MPI_Allreduce"; }
settle row4 || fail "contention by ratio: the first row is not the Allreduce: $(screen | sed -n 4p)"
wait_for "every member waits for the last to enter: rank 0, of least time in it, was the late one"
keys s
wait_for "max-mean▼"
keys Enter
wait_for "structure (per rank: one run;"
detail() { screen | sed -n 22p | grep -q "MPI_Waitall(count=4, array_of_requests=\[r0, r1, r2, r3\]"; }
settle detail || fail "Enter in contention did not go to the Waitall of 4: $(screen | sed -n 22p)"
keys q
exited 0
# point to point, with per-call times: the late sender and receiver of
# the run, as rondo waits finds them (mktrace --late: rank 1's Send 49 ms
# after rank 0's Recv was posted, rank 3's Recv 10 ms after rank 2's
# Ssend); not on a call that is neither
"$mktrace" --late late.rondo || fail "mktrace --late"
start late.rondo
wait_for "rank groups"
keys w
wait_for "signature (6)"
wait_for "no collective: late senders and receivers are in rondo waits"
keys j j
wait_for "3/6  Enter go to"
wait_for "point to point, whole run (rondo waits): late senders 49.0 ms, most 1 → 0; late receivers 10.0 ms"
# the rank filter in the functions pane: rank 0 calls 3 of the 5
keys r 0 Enter F
wait_for "function (3 of 5)"
wait_for "1/3 called by the ranks shown, figures over all their ranks"
wait_for "MPI_Recv"
wait_gone "MPI_Ssend"
keys q q q
exited 0

# The timeline (T) of a job whose per-call times are known (mktrace
# --timed): buckets of 10 ms over the whole run, rank 2 in an MPI_Recv
# from 202.5 to 595 ms, rank 1 in an MPI_Send from 592 to 596 ms.
"$mktrace" --timed timed.rondo || fail "mktrace --timed"
VIEW_ENV=NO_COLOR=1 start timed.rondo
wait_for "rank groups"
keys T
wait_for "time in MPI, rank (row) by time (column)"
wait_for "per-call times, base 1.001: ≤ 0.1% late"
wait_for "ranks 0-3, 1 a row; 0.00–0.96 s, 10.0 ms a bucket"
wait_for "highlight: none (select a call in the tree, then T)"
wait_for "rank 0 · 0.00–0.01 s · MPI 60.1%: MPI_Init 60.1%"
golden timeline
# the cursor: rank 2's Recv fills its bucket; rank 1's Send 40 % of one
keys j j
keys -N 30 l
wait_for "rank 2 · 0.30–0.31 s · MPI 100%: MPI_Recv 100%"
keys k
keys -N 29 l
wait_for "rank 1 · 0.59–0.60 s · MPI 40.0%: MPI_Send 40.0%"
keys j
keys -N 29 h
wait_for "rank 2 · 0.30–0.31 s · MPI 100%: MPI_Recv 100%"
# zoomed in twice around the cursor: buckets of 2.5 ms, the cursor's
# bucket the first quarter of what it was
keys + i
wait_for "ranks 0-3, 1 a row; 0.2250–0.4650 s, 2.50 ms a bucket"
wait_for "rank 2 · 0.3000–0.3025 s · MPI 100%: MPI_Recv 100%"
golden timeline-zoom
# panned on half a window and back; at the left edge the window follows
keys '>'
wait_for "0.3475–0.5875 s, 2.50 ms a bucket"
wait_for "rank 2 · 0.4225–0.4250 s"
keys '<'
wait_for "0.2250–0.4650 s, 2.50 ms a bucket"
keys -N 31 h
wait_for "0.2225–0.4625 s, 2.50 ms a bucket"
wait_for "rank 2 · 0.2225–0.2250 s"
keys - o
wait_for "0.00–0.96 s, 10.0 ms a bucket"
keys -
wait_for "the whole run is in the window"
keys i 0
wait_for "0.00–0.96 s, 10.0 ms a bucket"
# p: the bucket of most MPI time over all ranks, all of them in
# MPI_Finalize (from 0.9025 s, rank 1's and 2's from 0.91 s)
keys p
wait_for "the bucket of most MPI time in the window: from 0.91 s, 100% of the ranks' time"
keys k j
wait_for "0.91–0.92 s · MPI 100%: MPI_Finalize 100% · all 100%"
# MPI_Init, hidden by default: the window starts at its end (6.0 ms),
# and with I at the run's first call (zoomed in at the left edge)
keys -N 100 h
keys + + + + +
wait_for "ranks 0-3, 1 a row; 0.0060–0.0348 s, 300 µs a bucket; MPI_Init hidden (I)"
keys I
wait_for "the whole run, MPI_Init included"
wait_for "ranks 0-3, 1 a row; 0.00–0.96 s, 10.0 ms a bucket"
keys -N 100 h
keys + + + + +
wait_for "ranks 0-3, 1 a row; 0.0000–0.0288 s, 300 µs a bucket"
wait_for "0.0000–0.0003 s · MPI 100%: MPI_Init 100% · all 100%"
keys I
wait_for "the run from the end of MPI_Init"
keys Escape
wait_for "structure (per rank: one run;"
keys q
exited 0

# A call selected in the tree (rank 2's Recv) is highlighted where it ran,
# on the theme's gradient.
start timed.rondo
wait_for "rank groups"
keys - G Enter j j j
wait_for "MPI_Recv(count=1024, source=1, comm=MPI_COMM_WORLD)"
keys T
wait_for "• highlighted: MPI_Recv(count=1024, source=1, comm=MPI_COMM_WORLD)"
golden timeline-highlight
lit() { screen | sed -n 12p | grep -q '^  2 \{21\}•\{40\}$'; }
settle lit || fail "the Recv is not highlighted from 0.20 to 0.59 s: $(screen | sed -n 12p)"
hot() { screen -e | sed -n 12p | grep -q '48;5;210'; }
settle hot || fail "the timeline shows no gradient colour: $(screen -e | sed -n 12p)"
# the row of all ranks: marked where any of them ran it
all() { screen | sed -n 5p | grep -q '^all \{21\}•\{40\}$'; }
settle all || fail "the row of all ranks does not mark the Recv: $(screen | sed -n 5p)"
keys j j
keys -N 30 l
wait_for "rank 2 · 0.30–0.31 s · MPI 100%: MPI_Recv 100% · highlighted 100%"
keys k
wait_for "rank 1 · 0.30–0.31 s · MPI 49.6%: MPI_Allreduce 29.6%, MPI_Barrier 20.0% · highlighted 0%"
# a loop: every call under it, on every rank (rank 2 skips four turns)
keys q g Enter j j
wait_for "×8 [ MPI_Allreduce, MPI_Barrier ]"
keys T
wait_for "• highlighted: ×8 [ MPI_Allreduce, MPI_Barrier ]"
loop0() { screen | sed -n 6p | grep -q '^  0 \{11\}•\( \{9\}•\)\{7\}$'; }
settle loop0 || fail "the loop is not highlighted every 0.1 s on rank 0: $(screen | sed -n 6p)"
loop2() { screen | sed -n 12p | grep -q '^  2 \{11\}• \{49\}•\( \{9\}•\)\{2\}$'; }
settle loop2 || fail "rank 2's loop is not highlighted where it ran: $(screen | sed -n 12p)"
# the help lists the timeline's keys
keys ? NPage
wait_for "(timeline) the whole run"
keys q q q
exited 0

# More ranks than rows: blocks of 3, into one and out again.
"$mktrace" --timed --ranks 60 timed60.rondo || fail "mktrace --timed --ranks 60"
VIEW_ENV=NO_COLOR=1 start timed60.rondo
wait_for "rank groups"
keys T
wait_for "ranks 0-59, 3 a row"
wait_for "ranks 0-2 · 0.000–0.012 s · MPI 50.0%: MPI_Init 50.0%"
keys j Enter
wait_for "zoomed: ranks 3-5, 1 a row"
wait_for "rank 3 · 0.000–0.012 s"
keys Enter
wait_for "a row is one rank: nothing to zoom into"
keys BSpace
wait_for "ranks 0-59, 3 a row"
keys BSpace
wait_for "not zoomed in"
keys q q
exited 0

# One rank's calls in start order (c), from the tree's selection: rank
# 2's Recv, its call 3, from 0.202515 s for 393 ms, 95.5 ms after the
# Allreduce and Barrier before it ended; the rows before it shown too.
start timed.rondo
wait_for "rank groups"
keys - G Enter j j j
wait_for "MPI_Recv(count=1024, source=1, comm=MPI_COMM_WORLD)"
keys c
wait_for "rank 2's calls in start order (11)"
wait_for "4/11  Enter in the tree  T timeline  [ ] rank"
row() { screen | sed -n "$1p" | grep -q -- "$2"; }
calls_row() { settle row "$1" "$2" || fail "calls: line $1 is not '$2': $(screen | sed -n "$1p")"; }
calls_row 3 '^ #    start s       took        gap  rank 2'"'"'s calls'
calls_row 4 '^ 0   0.000000    6.01 ms          -  MPI_Init()$'
calls_row 5 '^ 1   0.102091    2.91 ms    96.1 ms  MPI_Allreduce(count=1, comm=MPI_COMM_WORLD)$'
calls_row 6 '^ 2   0.105000    2.00 ms       0 ns  MPI_Barrier(comm=MPI_COMM_WORLD)$'
calls_row 7 '^ 3   0.202515     393 ms    95.5 ms  MPI_Recv(count=1024, source=1, comm=MPI_COMM_WORLD)$'
calls_row 14 '^10   0.902515    42.5 ms    95.5 ms  MPI_Finalize()$'
golden calls
# the starts never go back, on every rank ([ and ] keep the time)
keys ]
wait_for "rank 3's calls in start order (18)"
wait_for "4/18  Enter in the tree"
calls_row 7 '^ 3   0.202039    2.96 ms    95.0 ms  MPI_Allreduce'
keys G
wait_for "18/18"
keys [
wait_for "rank 2's calls in start order (11)"
wait_for "11/11"
keys [ [
wait_for "rank 0's calls in start order"
keys [
wait_for "no rank before"
# Enter: the call's place in the tree; T: the timeline at its start
keys ] ] g j j j
wait_for "4/11"
keys Enter
wait_for "structure (per rank: one run;"
detail() { screen | sed -n 22,30p | grep -q "MPI_Recv(count=1024, source=1, comm=MPI_COMM_WORLD)"; }
settle detail || fail "Enter in the calls did not select the Recv in the tree: $(screen)"
keys c T
wait_for "rank 2 · 0.20–0.21 s · MPI"
# and back from the timeline: c at its cursor, rank 1 at 0.59 s (its Send)
keys k
keys -N 39 l
wait_for "rank 1 · 0.59–0.60 s"
keys c
wait_for "rank 1's calls in start order (19)"
sel() { screen | grep -q "MPI_Send(count=1024, dest=2"; }
settle sel || fail "c in the timeline: not rank 1's Send: $(screen)"
keys q q
exited 0
# without per-call times, c says so
start demo.rondo
wait_for "rank groups"
keys c
wait_for "no per-call times: trace with RONDO_TIMING=percall"
keys q
exited 0

# The mouse, as a terminal sends it (X10 encoding, which ncurses reads
# for this TERM): a click selects a row, a click on the selected row opens
# or closes it, the wheel moves by three rows; --no-mouse leaves the
# mouse to the terminal (tmux says whether the program asked for it).
mouse() { # mouse BUTTON X Y (0-based)
	tm send-keys -t view -l "$(printf '\033[M%b%b%b' "\\$(printf %03o $((32 + $1)))" \
		"\\$(printf %03o $((33 + $2)))" "\\$(printf %03o $((33 + $3)))")"
	sleep 0.3
}
click() { mouse 0 "$1" "$2"; mouse 3 "$1" "$2"; }
start timed.rondo
wait_for "rank groups"
settle [ "$(tm display -p -t view '#{mouse_any_flag}')" = 1 ] ||
	fail "the explorer did not ask for the mouse"
click 10 3
wait_for "1/8  Enter open"
wait_for "▸ ranks 0,3 (2)"
click 10 3
wait_for "▾ ranks 0,3 (2)"
mouse 65 10 10
wait_for "4/11  Enter open"
mouse 64 10 10
wait_for "1/11  Enter open"
keys Tab
wait_for "1/6  66 calls, 730 ms  Enter go to"
click 10 5
wait_for "3/6  "
keys q q
exited 0
VIEW_ENV= start --no-mouse timed.rondo
wait_for "rank groups"
[ "$(tm display -p -t view '#{mouse_any_flag}')" = 0 ] ||
	fail "--no-mouse: the explorer asked for the mouse"
keys q
exited 0

# Two rank groups compared (=): rank 2 calls one MPI_Barrier more than
# rank 1 (mktrace --change call), and that call alone is shown, where it
# is; Enter goes to it in the tree, under rank 2.
"$mktrace" --ranks 4 --iters 10 --change call call.rondo || fail "mktrace --change call"
start call.rondo
wait_for "rank groups"
keys g j =
wait_for "rank 1 marked: = on a row of another group compares their calls"
keys G k =
wait_for "< rank 1 against > rank 2: 1 stretch of calls differs"
calls_row 4 '^ 1\. at the top level: call 43 of rank 1 <, call 43 of rank 2 >$'
calls_row 5 '^    > MPI_Barrier(comm=MPI_COMM_WORLD)$'
calls_row 6 '^$'
wait_for "1/2  Enter the call in the tree"
golden compare
keys Enter
wait_for "6/10  Enter open"
calls_row 6 '^▾ rank 2 '
calls_row 9 '^    MPI_Barrier(comm=MPI_COMM_WORLD) '
keys q
exited 0

# The rank filter (r): only rank 7 (a group of its own in mktrace
# --change call at 8 ranks), in every pane; a list; a bad list; all again.
"$mktrace" --ranks 8 --iters 50 --change call call8.rondo || fail "mktrace --change call --ranks 8"
start call8.rondo
wait_for "4 rank groups"
keys r 7 Enter
wait_for "1 rank shown: 7"
wait_for " shown: rank 7 of 8 (r changes it)"
# the tree: rank 7's group alone, opened
calls_row 4 '^▾ rank 7 '
calls_row 5 '^    MPI_Init() '
wait_gone "rank 0 "
wait_gone "ranks 1,3-6"
# a search passes over the groups not shown
keys / F i n a l i z e Enter
wait_for "1 signature match"
keys n
calls_row 8 '^    MPI_Finalize() '
wait_gone "ranks 1,3-6"
# the signatures rank 7 calls (7 of 12), its peers absolute, the ranks
# that call each (a column at 120 columns and more: here, none)
keys Tab
wait_for "signature (7 of 12, called by the ranks shown; rank 7's p"
wait_for "source=6"
wait_gone "source=-1"
settle eval 'screen | tail -n 1 | grep -q "^ 1/7  [0-9 ]* calls, [0-9.]* ms over all their ranks "' ||
	fail "r Tab: the status line: $(screen | tail -n 1)"
# contention: the same 7 signatures, and rank 7's own time in the first
keys w
wait_for "signature (7 of 12)"
wait_for "1/7 called by the ranks shown, figures over all their ranks"
wait_for "rank 7: "
settle eval 'screen | grep -q "^ rank 7: [0-9.]* [mµ]s in it, [-+][0-9.]*% against the mean$"' ||
	fail "r w: rank 7's time in the signature: $(screen | grep "rank 7:")"
# the matrix: only what rank 7 sends or receives, exported as shown
keys m
wait_for "counted: point-to-point, all functions, only to or from rank 7"
keys x C-u "$tmp/m7.csv" Enter
wait_for "wrote $tmp/m7.csv: 2 cells"
printf '%s\n' src,dst,messages,bytes 6,7,50,409600 7,6,50,409600 >"$tmp/want7.csv"
cmp -s "$tmp/want7.csv" "$tmp/m7.csv" || fail "r m x: $(cat "$tmp/m7.csv")"
# a list, then a bad one (nothing changes), then every rank again
keys q r C-u 0 - 2 Enter
wait_for "3 ranks shown: 0-2"
calls_row 4 '^▸ rank 0 '
wait_for "▾ ranks 1,3-6 (5)"
wait_gone "rank 7 "
keys r C-u 9 Enter
wait_for "rank 9: the trace has ranks 0 to 7"
wait_for " shown: ranks 0-2 of 8"
keys r C-u x Enter
wait_for '"x": not a list of ranks'
keys r C-u Enter
wait_for "every rank shown"
wait_gone " shown: "
wait_for "rank 7 "
# at 120 columns and more the signature table counts each one's ranks:
# the Allreduce all 8, rank 0's Isend to rank 1 rank 0 alone
keys Tab
tm resize-window -t view -x 130 -y 30
wait_for "    ranks   signature (12 of 12; peers +k relative to the caller)"
settle eval 'screen | grep -q "^ *[0-9.]* ms  *800 .*  8  MPI_Allreduce("' ||
	fail "r: the ranks column of the Allreduce: $(screen | grep MPI_Allreduce)"
settle eval 'screen | grep -q "  1  MPI_Isend(buf=m1+8192, count=1024, datatype=MPI_DOUBLE, dest=1, "' ||
	fail "r: the ranks column of rank 0's Isend: $(screen | grep MPI_Isend)"
tm resize-window -t view -x 100 -y 30
keys q q
exited 0
# rondo view --ranks: the same filter from the start; a rank beyond the
# job's is status 1 with one message, a list that is none a usage error
start --ranks 7 call8.rondo
wait_for " shown: rank 7 of 8 (r changes it)"
calls_row 4 '^▾ rank 7 '
keys q
exited 0
"$rondo" view --ranks 9 call8.rondo >out.txt 2>&1
[ $? -eq 1 ] && grep -q "^rondo: call8.rondo: rank 9: the trace has ranks 0 to 7$" out.txt ||
	fail "view --ranks 9: $(cat out.txt)"
"$rondo" view --ranks 3- call8.rondo >out.txt 2>&1
[ $? -eq 2 ] && grep -q "^rondo: --ranks takes a list of ranks: 0-3,7$" out.txt ||
	fail "view --ranks 3-: $(cat out.txt)"

# The rank filter on the timeline and the calls of a timed trace of 8
# ranks: rows for ranks 2, 5 and 6 alone; c shows the first rank shown of
# the selection's group, [ and ] step among those shown.
"$mktrace" --timed --ranks 8 timed8.rondo || fail "mktrace --timed --ranks 8"
start --ranks 2,5-6 timed8.rondo
wait_for " shown: ranks 2,5-6 of 8"
keys T
wait_for "ranks 2,5-6, 1 a row"
tl_rows() { [ "$(screen | sed -n 5,20p | grep '^ *[0-9][0-9]*\( \|$\)' | tr -d ' ' | cut -c1 | tr -d '\n')" = 256 ]; }
settle tl_rows || fail "r T: the timeline's rows are not ranks 2, 5, 6: $(screen | sed -n 4,20p)"
keys j
wait_for "rank 5 · "
keys c
wait_for "rank 5's calls"
keys ]
wait_for "rank 6's calls"
keys ]
wait_for "no rank after among those shown"
keys [ [
wait_for "rank 2's calls"
keys [
wait_for "no rank before among those shown"
keys q q q
exited 0

# A recovered trace whose ranks 2 and 3 were cut short: their groups say
# so, and so does a last row under them (with --ascii, "8<" for the
# scissors), which a search steps over.
"$mktrace" --ranks 4 --iters 50 --cut "2=signal 15 (SIGTERM) inside MPI_Waitall" \
	--cut "3=MPI_Abort(errorcode=3)" cutshort.rondo || fail "mktrace --cut"
start cutshort.rondo
wait_for "rank 3  cut short: MPI_Abort(errorcode=3)"
wait_for "ranks 1,2 (2)  cut short on rank 2: signal 15 (SIGTERM) in…"
wait_for "✂ cut short here on rank 2: signal 15 (SIGTERM) inside MPI_Waitall"
keys -N 5 j
wait_for "their recorded calls stop here: the job ended badly"
golden cut
# from the cut row, the next Finalize is rank 3's (opened: 17 rows);
# then around to rank 0's, and back over rank 3's last row to its call
keys / F i n a l i z e Enter
wait_for '1 signature match "Finalize"'
keys n
wait_for "5/17  Enter open"
keys N
wait_for "16/17  Enter open"
keys q
exited 0
start --ascii cutshort.rondo
wait_for "rank 3  cut short: MPI_Abort(errorcode=3)"
keys G Enter G
wait_for "8< cut short here: MPI_Abort(errorcode=3)"
keys q
exited 0

# Without per-call times: a message, and the pane stays as it was.
start demo.rondo
wait_for "rank groups"
keys T
wait_for "no per-call times: trace with RONDO_TIMING=percall"
settle shows "structure (per rank: one run;" ||
	fail "T on a trace without per-call times left the tree"
keys Tab T
wait_for "no per-call times: trace with RONDO_TIMING=percall"
wait_for "signature (12"
keys q q
exited 0

# A trace cut short opens with what is whole, and says what was lost on
# the status line (tests/damaged.sh covers the cases).
head -c $(($(wc -c <demo.rondo) - 1)) demo.rondo >cut.rondo
start cut.rondo
wait_for "truncated: $(($(wc -c <demo.rondo) - 1)) of $(wc -c <demo.rondo) bytes"
settle shows "MPI_Init()" || fail "a cut trace shows no calls"
keys q
exited 0
# cut inside its grammar: rank 7's calls lost, its group says so, the
# status line names it; the other groups' calls are there
gstart=$("$rondo" info call8.rondo | awk '/^sections:/ { on = 1; at = 32; next }
	on && $1 == "grammar" { print at + $2; exit } on && NF == 3 { at += $2 }')
head -c $((gstart - 2)) call8.rondo >cutg.rondo
start cutg.rondo
wait_for "section 'grammar' cut by the end of the file: the calls of rank 7 lost (1 of 8)"
wait_for "rank 7  calls lost: the file is cut before their rules"
keys G Enter
wait_for "rank 7  calls lost"
keys g
settle shows "MPI_Init()" || fail "a trace cut in its grammar shows no calls"
keys q
exited 0

# Layouts.  At 60x16 the tree keeps 9 lines over a detail of 4; d makes
# the detail half the screen, hides it, then gives it back; the matrix's
# title shortens rather than run into its ranks.
start demo.rondo
wait_for "rank groups"
tm resize-window -t view -x 60 -y 16
detail_at() { [ "$(screen | grep -n '^ detail\( (d: [a-z]*)\)\? *$' | cut -d: -f1)" = "$1" ]; }
settle detail_at 12 || fail "60x16: the detail not at line 12: $(screen)"
keys d
wait_for "detail pane: half the screen"
settle detail_at 10 || fail "60x16, d: the detail not at line 10: $(screen)"
keys d
wait_for "detail pane: hidden; d shows it"
settle detail_at "" || fail "60x16, d d: the detail still shown: $(screen)"
settle shows "▸ rank 3" || fail "60x16, the detail hidden: the tree does not reach rank 3: $(screen)"
keys d
wait_for "detail pane: as fits the screen"
settle detail_at 12 || fail "60x16, d d d: the detail not back at line 12: $(screen)"
keys m
title() { screen | sed -n 3p | grep -q "^ $1  *ranks 0-3 → 0-3, 1 rank a cell *$"; }
settle title "messages, row → column" || fail "60x16 matrix title: $(screen | sed -n 3p)"
tm resize-window -t view -x 80 -y 24
settle title "messages, row → column" || fail "80x24 matrix title: $(screen | sed -n 3p)"
tm resize-window -t view -x 120 -y 40
settle title "messages sent, sender (row) to receiver (column)" ||
	fail "120x40 matrix title: $(screen | sed -n 3p)"
keys q q
exited 0

# F: rondo stats as a pane, by total time first, as rondo stats says;
# s sorts by count; Enter shows the function's signatures.
start demo.rondo
wait_for "rank groups"
keys F
wait_for "function (7)"
"$rondo" stats demo.rondo >stats.txt 2>&1
first=$(awk '$1 == "MPI_Waitall" { print $3 }' stats.txt)
settle shows "  17.3 ms       $first   86.4 µs   20.0 µs    160 µs  58.9%      -      2  MPI_Waitall" ||
	fail "F: the first row is not rondo stats' Waitall ($first calls): $(screen | sed -n 4p)"
wait_for "1/7  Enter its signatures"
keys s
wait_for "count▼"
settle eval 'screen | sed -n 4p | grep -q "400.*MPI_Allreduce$"' ||
	fail "F s: by count, the first row is not the Allreduce: $(screen | sed -n 4p)"
keys Enter
wait_for "signature (1 of 12, function has \"MPI_Allreduce\""
keys Tab
wait_for "function (7)"
keys q q
exited 0

# y copies the selected call's text by OSC 52; with nothing selected
# that has one, it says so.
start demo.rondo
wait_for "rank groups"
keys y
wait_for "select a call: y copies its text"
keys j j j
settle shows "MPI_Barrier(comm=MPI_COMM_WORLD)"
keys y
wait_for "copied the call's text (32 bytes) by OSC 52"
[ "$(tm show-buffer 2>&1)" = "MPI_Barrier(comm=MPI_COMM_WORLD)" ] ||
	fail "y: the clipboard has '$(tm show-buffer 2>&1)'"
keys q
exited 0

echo "view.sh: $fails failed"
[ $fails -eq 0 ]
