#!/bin/sh
# export.sh - rondo export --perfetto and --chrome on the bundled MPI
# programs traced for real (4 ranks, per-call times): point-to-point of
# every kind with wildcards, persistent requests, matched probes and a
# cancel (p2p), every collective (coll), subcommunicators and an
# intercommunicator (comms), Cartesian ranks (topo), the Wait and Test
# families (completion, waitany, testsome); p2p once more without per-call
# times (synthetic times).  For each:
#  - the Perfetto protobuf and the Chrome JSON decode and pass their
#    checkers (tests/export_perfetto.py, tests/export_chrome.py: one track
#    per rank, slices nested, times never going back on a track, every
#    flow started and ended once, each end inside its slice);
#  - both hold the same slices and flows, and the slices per rank and
#    function are the calls `rondo dump` lists;
#  - the flows per pair of ranks are the messages `rondo matrix` counts
#    (rondo's matching against the matrix's own count), and rondo reports
#    no unmatched message;
# then the filters (--ranks, --function, --from/--to, --limit), a trace
# of 2^64 calls (warned of, exported with --limit), and the errors (no
# format, a bad rank list, an output that cannot be written, a damaged
# trace, --from/--to without per-call times): exit 1 or 2, one message.
# tests/export_otf2.sh checks the OTF2 archives of the same programs.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
py=${PYTHON3:-python3}
here=$(cd "$(dirname "$0")" && pwd)

export_traces || exit 1

# rondo_slices TRACE: the checkers' slice lines, from rondo dump.
rondo_slices() {
	"$rondo" dump "$1" |
		awk '{ f = $3; sub(/\(.*/, "", f); n[$1 " " f]++ }
		     END { for (k in n) print "slice " k " " n[k] }' | LC_ALL=C sort
}

# flows_by_pair SUMMARY: "src dst count" from a checker's flow lines.
flows_by_pair() {
	awk '$1 == "flow" { n[$2 " " $4] += $6 }
	     END { for (k in n) print k, n[k] }' "$1" | LC_ALL=C sort
}

for name in $export_names; do
	t="$tmp/$name.rondo"
	"$rondo" export --perfetto "$tmp/$name.pftrace" --chrome "$tmp/$name.json" \
		"$t" >"$tmp/$name.export" 2>"$tmp/err" ||
		{ fail "$name: rondo export: $(cat "$tmp/err")"; continue; }
	grep -q "unmatched: 0 sends, 0 receives" "$tmp/$name.export" ||
		fail "$name: unmatched messages: $(grep unmatched "$tmp/$name.export")"
	"$py" "$here/export_perfetto.py" "$tmp/$name.pftrace" >"$tmp/$name.pf" 2>"$tmp/err" ||
		fail "$name: Perfetto trace: $(cat "$tmp/err")"
	"$py" "$here/export_chrome.py" "$tmp/$name.json" >"$tmp/$name.ch" 2>"$tmp/err" ||
		fail "$name: Chrome trace: $(cat "$tmp/err")"
	cmp -s "$tmp/$name.pf" "$tmp/$name.ch" ||
		fail "$name: Perfetto and Chrome differ: $(diff "$tmp/$name.pf" "$tmp/$name.ch" | head -5)"
	rondo_slices "$t" >"$tmp/$name.want"
	grep '^slice' "$tmp/$name.ch" | LC_ALL=C sort >"$tmp/$name.got"
	cmp -s "$tmp/$name.want" "$tmp/$name.got" ||
		fail "$name: slices are not rondo dump's calls: $(diff "$tmp/$name.want" "$tmp/$name.got" | head -5)"
	"$rondo" matrix --csv - "$t" 2>/dev/null |
		awk -F, 'NR > 1 { print $1, $2, $3 }' | LC_ALL=C sort >"$tmp/$name.mx"
	flows_by_pair "$tmp/$name.ch" >"$tmp/$name.fl"
	cmp -s "$tmp/$name.mx" "$tmp/$name.fl" ||
		fail "$name: flows per pair are not rondo matrix's messages: $(diff "$tmp/$name.mx" "$tmp/$name.fl" | head -5)"
	[ "$(awk '$1 == "total" { print $3 }' "$tmp/$name.ch")" -gt 0 ] ||
		case $name in coll | topo) ;; *) fail "$name: no flows" ;; esac
done
grep -q "times: synthetic" "$tmp/p2p_agg.export" ||
	fail "p2p without per-call times: not said synthetic: $(cat "$tmp/p2p_agg.export")"
grep -q '"timing":"synthetic' "$tmp/p2p_agg.json" ||
	fail "p2p without per-call times: the JSON does not say synthetic"
grep -q "times: per call as recorded" "$tmp/p2p.export" ||
	fail "p2p: not said per call: $(cat "$tmp/p2p.export")"

# --ranks: only those ranks' tracks, flows only between them, the
# messages to the others counted.
t="$tmp/p2p.rondo"
expect_exit 0 "$rondo" export --ranks 1,2 --chrome "$tmp/r.json" "$t"
"$py" "$here/export_chrome.py" "$tmp/r.json" >"$tmp/r.ch" 2>"$tmp/err" ||
	fail "--ranks 1,2: $(cat "$tmp/err")"
awk '$1 == "slice" && $2 != 1 && $2 != 2 { bad = 1 }
     $1 == "flow" && ($2 != 1 && $2 != 2 || $4 != 1 && $4 != 2) { bad = 1 }
     END { exit bad }' "$tmp/r.ch" || fail "--ranks 1,2: other ranks: $(head -5 "$tmp/r.ch")"
grep '^slice' "$tmp/r.ch" >"$tmp/r.sl"
grep '^slice [12] ' "$tmp/p2p.ch" | cmp -s - "$tmp/r.sl" ||
	fail "--ranks 1,2: not the whole export's slices of ranks 1 and 2"
grep -Eq "[1-9][0-9]* to or from ranks not exported" "$tmp/out" ||
	fail "--ranks 1,2: messages to other ranks not counted: $(cat "$tmp/out")"

# --function: only those calls (in any case, with or without MPI_).
expect_exit 0 "$rondo" export -q -f send,MPI_Recv --chrome "$tmp/f.json" "$t"
"$py" "$here/export_chrome.py" "$tmp/f.json" >"$tmp/f.ch" 2>"$tmp/err" ||
	fail "--function: $(cat "$tmp/err")"
grep '^slice' "$tmp/f.ch" >"$tmp/f.sl"
grep -E '^slice [0-9]+ MPI_(Send|Recv) ' "$tmp/p2p.ch" | cmp -s - "$tmp/f.sl" ||
	fail "--function send,MPI_Recv: $(head -5 "$tmp/f.sl")"

# --from/--to: the calls that start in the window, on the export's own
# clock (ts of the whole export plus its time zero, the times written):
# the middle half of the run, no more and no fewer calls.
"$py" - "$tmp/p2p.json" >"$tmp/window" <<'EOF_PY'
import json, sys
d = json.load(open(sys.argv[1]))
t0 = d["otherData"]["ts_zero_ns"]
s = sorted(round(e["ts"] * 1000) + t0 for e in d["traceEvents"] if e["ph"] == "X")
a, b = s[len(s) // 4], s[3 * len(s) // 4]
print("%d.%09d %d.%09d %d" % (a // 10**9, a % 10**9, b // 10**9, b % 10**9,
                              sum(1 for x in s if a <= x < b)))
EOF_PY
read from to inwin <"$tmp/window"
expect_exit 0 "$rondo" export -q --from "$from" --to "$to" --chrome "$tmp/w.json" "$t"
got=$("$py" "$here/export_chrome.py" "$tmp/w.json" 2>"$tmp/err" | awk '$1 == "total" { print $2 }')
[ -n "$inwin" ] && [ "$inwin" -gt 20 ] && [ "$got" = "$inwin" ] ||
	fail "--from $from --to $to: $got calls, want $inwin: $(cat "$tmp/err")"

# --limit: each rank's first N calls.
expect_exit 0 "$rondo" export -q --limit 5 --chrome "$tmp/l.json" "$t"
"$py" "$here/export_chrome.py" "$tmp/l.json" >"$tmp/l.ch" 2>"$tmp/err" ||
	fail "--limit 5: $(cat "$tmp/err")"
grep -qx "total 20 [0-9]*" "$tmp/l.ch" ||
	fail "--limit 5 on 4 ranks: $(tail -1 "$tmp/l.ch") (want 20 calls)"
# A trace too large to write whole (2^64 calls and more, the corpus's)
# is said to be before the work starts, and --limit exports its start.
big="$here/corpus/limit-messages.rondo"
timeout 5 "$rondo" export --perfetto "$tmp/big.pf" "$big" >/dev/null 2>"$tmp/err"
grep -q "calls to write, .* --limit" "$tmp/err" ||
	fail "no warning before a huge export: $(head -2 "$tmp/err")"
expect_exit 0 timeout 60 "$rondo" export -q --limit 1000 --perfetto "$tmp/big.pf" "$big"

# Errors: one message, the same statuses as every command.
expect_exit 2 "$rondo" export "$t"
usage_error export "say what to write"
expect_exit 2 "$rondo" export --ranks 1-x --chrome "$tmp/x.json" "$t"
usage_error export "not a rank list"
expect_exit 2 "$rondo" export --limit 0 --chrome "$tmp/x.json" "$t"
usage_error export "rondo: --limit: '0' is not a number of calls"
expect_exit 2 "$rondo" export --chrome "$tmp/x.json" --from 2 --to 1 "$t"
usage_error export "rondo: --from must come before --to"
expect_exit 1 "$rondo" export --ranks 9 --chrome "$tmp/x.json" "$t"
one_error "rank 9: .* has ranks 0 to 3"
expect_exit 1 "$rondo" export -f MPI_Nothing --chrome "$tmp/x.json" "$t"
one_error "rondo: --function MPI_Nothing: .* has no calls of it"
expect_exit 1 "$rondo" export --chrome "$tmp/nodir/x.json" "$t"
one_error "^rondo: cannot write Chrome JSON trace .*nodir/x.json"
[ ! -e "$tmp/nodir" ] || fail "a failed export left $tmp/nodir"
expect_exit 1 "$rondo" export --perfetto "$tmp" "$t"
one_error "^rondo: cannot write Perfetto trace"
expect_exit 1 "$rondo" export --from 0 --chrome "$tmp/x.json" "$tmp/p2p_agg.rondo"
one_error "export --from/--to: .* has no per-call times"
# cut inside the signatures, which the calls need (a cut in the grammar
# would open, with the ranks past the cut lost: tests/damaged.sh)
cst=$("$rondo" info "$t" | awk '/^sections:/ { on = 1; at = 32; next }
	on && $1 == "cst" { print at; exit } on && NF == 3 { at += $2 }')
head -c $((cst + 3)) "$t" >"$tmp/short.rondo"
expect_exit 1 "$rondo" export --perfetto "$tmp/x.pftrace" "$tmp/short.rondo"
one_error "^rondo: cannot open .*short.rondo"
[ ! -e "$tmp/x.pftrace" ] && [ ! -e "$tmp/x.json" ] ||
	fail "a failed export left a file behind"

[ "$fails" -eq 0 ] || exit 1
echo "export.sh: all passed"
