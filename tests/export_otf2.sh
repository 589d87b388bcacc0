#!/bin/sh
# export_otf2.sh - rondo export --otf2 on the bundled MPI programs traced
# for real (those of tests/export.sh: every point-to-point kind and
# collective, subcommunicators, an intercommunicator, Cartesian ranks, the
# completion families; with per-call times and without), read back by
# OTF2's own tools:
#  - otf2-print -Werror reads every archive without a warning;
#  - OTF2's Python reader (tests/export_otf2.py, python3-otf2) checks it
#    event by event: Enter/Leave nested on each location with times that
#    never go back, messages inside point-to-point calls, collectives
#    inside collective calls, requests posted once and completed once,
#    and matches every send to its receive on its own (communicator ranks
#    mapped to world ranks through the archive's groups): no message is
#    left unmatched, and a matched pair has equal lengths;
#  - its slices and flows are the Perfetto and Chrome exports' (what
#    tests/export.sh checks against rondo dump and rondo matrix), and the
#    Enter/Leave pairs per rank and region are the calls rondo dump lists;
#  - every collective on MPI_COMM_WORLD of tests/mpi/coll has the root
#    and bytes Score-P's conventions give (tests/export_coll.py computes
#    them from rondo dump's arguments);
#  - the archive says how its times were made (RONDO::TIMING), holds a
#    location and its local definitions per rank, and a communicator per
#    communicator of the trace, with its members;
#  - an archive already in the directory is kept unless --force; a
#    directory that cannot be made is one message and exit status 1.
# Skipped (77) when rondo was built without OTF2, or otf2-print or
# python3-otf2 is absent: quickstart.sh installs them.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
here=$(cd "$(dirname "$0")" && pwd)
pyotf2=/usr/bin/python3
! "$rondo" export --otf2 "$tmp/probe" /dev/null 2>&1 | grep -q "without OTF2" ||
	{ echo "SKIP: rondo was built without OTF2 (libopen-trace-format2-dev)"; exit 77; }
command -v otf2-print >/dev/null 2>&1 ||
	{ echo "SKIP: no otf2-print (Debian package otf2-tools)"; exit 77; }
"$pyotf2" -c 'import otf2' 2>/dev/null ||
	{ echo "SKIP: no python3-otf2 for $pyotf2"; exit 77; }
mpi_setup
py=${PYTHON3:-python3}

export_traces || exit 1

for name in $export_names; do
	t="$tmp/$name.rondo"
	a="$tmp/$name.otf2"
	"$rondo" export --otf2 "$a" --chrome "$tmp/$name.json" "$t" \
		>"$tmp/$name.export" 2>"$tmp/err" ||
		{ fail "$name: rondo export: $(cat "$tmp/err")"; continue; }
	env -u LD_PRELOAD otf2-print -Werror "$a/traces.otf2" >"$tmp/$name.print" 2>"$tmp/err" ||
		fail "$name: otf2-print -Werror: $(head -3 "$tmp/err")"
	env -u LD_PRELOAD "$pyotf2" "$here/export_otf2.py" "$a/traces.otf2" "$tmp/$name.coll" \
		>"$tmp/$name.o2" 2>"$tmp/err" ||
		{ fail "$name: OTF2 reader: $(cat "$tmp/err")"; continue; }
	grep -qx "unmatched 0 0" "$tmp/err" ||
		fail "$name: the OTF2 reader matched not every message: $(cat "$tmp/err")"
	"$py" "$here/export_chrome.py" "$tmp/$name.json" >"$tmp/$name.ch" 2>/dev/null
	cmp -s "$tmp/$name.o2" "$tmp/$name.ch" ||
		fail "$name: OTF2 and Chrome differ: $(diff "$tmp/$name.o2" "$tmp/$name.ch" | head -5)"
	"$rondo" dump "$t" |
		awk '{ f = $3; sub(/\(.*/, "", f); n[$1 " " f]++ }
		     END { for (k in n) print "slice " k " " n[k] }' |
		LC_ALL=C sort >"$tmp/$name.want"
	grep '^slice' "$tmp/$name.o2" | LC_ALL=C sort | cmp -s - "$tmp/$name.want" ||
		fail "$name: Enter/Leave pairs are not rondo dump's calls"
	env -u LD_PRELOAD otf2-print -G "$a/traces.otf2" >"$tmp/$name.defs" 2>/dev/null
	[ "$(grep -c '^LOCATION ' "$tmp/$name.defs")" -eq 4 ] &&
		[ "$(ls "$a/traces"/*.def 2>/dev/null | wc -l)" -eq 4 ] &&
		[ "$(ls "$a/traces"/*.evt 2>/dev/null | wc -l)" -eq 4 ] ||
		fail "$name: not a location, definitions and events per rank"
done

# How the times were made, said in the archive.
env -u LD_PRELOAD otf2-print -I "$tmp/p2p_agg.otf2/traces.otf2" 2>/dev/null |
	grep -A1 "^Property name  *RONDO::TIMING" | grep -q "^Property value  *SYNTHETIC" ||
	fail "p2p without per-call times: no RONDO::TIMING SYNTHETIC property"
env -u LD_PRELOAD otf2-print -I "$tmp/p2p.otf2/traces.otf2" 2>/dev/null |
	grep -A1 "^Property name  *RONDO::TIMING" | grep -q "^Property value  *PERCALL" ||
	fail "p2p: no RONDO::TIMING PERCALL property"
grep -q '^CLOCK_PROPERTIES.*Ticks per Seconds: 1000000000' "$tmp/p2p.defs" ||
	fail "p2p: clock not in nanoseconds: $(grep CLOCK "$tmp/p2p.defs")"

# Communicators: the world, self, and each of the trace's, with members.
"$rondo" info "$tmp/comms.rondo" | awk '$1 == "comms" { print $2; exit }' >"$tmp/ncomms"
[ "$(grep -Ec '^(COMM|INTER_COMM) ' "$tmp/comms.defs")" -eq $(($(cat "$tmp/ncomms") + 2)) ] ||
	fail "comms: not a communicator per communicator: $(grep -E '^(COMM|INTER_COMM) ' "$tmp/comms.defs" | head -3)"
grep -q '^INTER_COMM ' "$tmp/comms.defs" ||
	fail "comms: the intercommunicator is not an InterComm"

# Collectives: root and bytes by Score-P's conventions.
"$rondo" dump "$tmp/coll.rondo" >"$tmp/coll.dump"
"$py" "$here/export_coll.py" "$tmp/coll.dump" 4 2>"$tmp/err" | LC_ALL=C sort >"$tmp/coll.want"
grep -q ", 0 left out" "$tmp/err" || fail "export_coll.py: $(cat "$tmp/err")"
grep ' MPI_COMM_WORLD ' "$tmp/coll.coll" | LC_ALL=C sort >"$tmp/coll.got"
[ "$(wc -l <"$tmp/coll.want")" -ge 40 ] && cmp -s "$tmp/coll.want" "$tmp/coll.got" ||
	fail "coll: collective records: $(diff "$tmp/coll.want" "$tmp/coll.got" | head -6)"

# An archive in the way: kept without --force, replaced with it.
t="$tmp/p2p.rondo"
expect_exit 1 "$rondo" export --otf2 "$tmp/p2p.otf2" "$t"
one_error "^rondo: cannot write OTF2 archive .*: it holds an archive \(traces.otf2\): --force replaces it"
[ -s "$tmp/p2p.otf2/traces.otf2" ] || fail "a refused export removed the archive"
expect_exit 0 "$rondo" export -q --force --otf2 "$tmp/p2p.otf2" --ranks 0-1 "$t"
env -u LD_PRELOAD otf2-print -Werror "$tmp/p2p.otf2/traces.otf2" >/dev/null 2>"$tmp/err" ||
	fail "--force --ranks 0-1: otf2-print: $(head -3 "$tmp/err")"
env -u LD_PRELOAD "$pyotf2" "$here/export_otf2.py" "$tmp/p2p.otf2/traces.otf2" \
	>"$tmp/r01" 2>/dev/null || fail "--ranks 0-1: the OTF2 reader fails"
[ "$(awk '$1 == "slice" { print $2 }' "$tmp/r01" | sort -u | tr '\n' ' ')" = "0 1 " ] ||
	fail "--ranks 0-1: events of other ranks: $(head -3 "$tmp/r01")"
expect_exit 1 "$rondo" export --otf2 "$tmp/no/such/dir" "$t"
one_error "^rondo: cannot write OTF2 archive .*cannot create directory"

[ "$fails" -eq 0 ] || exit 1
echo "export_otf2.sh: all passed"
