#!/bin/sh
# stats.sh - rondo stats and rondo contention.
#  - On the tests' demo trace (tests/mktrace, whose durations are known):
#    the CSV's numbers exactly (calls, totals, extremes, deviations, shares,
#    a function's signatures combined, lost time, the ranks' spread kept
#    to 7 significant bits), the orders --sort asks for, --top, the text
#    report, and bad usage (exit 2), unreadable traces and unwritable CSV
#    paths (exit 1), one message each.
#  - On copies of it rewritten with python3: a run time (the "duration"
#    the tracer writes), no per-rank times, no statistics.
#  - When the tracer is built: tests/mpi/slowrank, whose rank 2 arrives
#    late at every Allreduce, traced for real: contention ranks the
#    Allreduce first with rank 2 the late one, and rank 2 spends the least
#    time in MPI.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
: "${top_srcdir:=$top_builddir}"
mktrace="$top_builddir/tests/mktrace"
cd "$tmp" || exit 1

# check WHAT AWK-PROGRAM [FILE...]: runs the program on the CSV in
# $tmp/out (or the FILEs), comma-separated; what it calls bad() with is a
# failure.  (The exit comes last: an exit in an END rule ends the rest.)
check() {
	what=$1; prog=$2; shift 2
	[ $# -gt 0 ] || set -- "$tmp/out"
	awk -F, "$prog"' END { exit fails > 0 }' "$@" >"$tmp/why" ||
		fail "$what: $(head -5 "$tmp/why")"
}

# The rounding of per-rank times (FORMAT.md, "Time codes"), and float
# comparison, for the awk programs.
AWKLIB='
function tc(d,  e, m) {
	if (d < 128) return d
	e = 0; while (d >= 2 ^ (e + 7)) e++
	m = int(d / 2 ^ e + 0.5); if (m == 128) { m = 64; e++ }
	return m * 2 ^ e
}
function near(a, b) { return a - b <= 1e-6 * (b < 0 ? -b : b) + 1e-9 && b - a <= 1e-6 * (b < 0 ? -b : b) + 1e-9 }
function bad(s) { print s; fails++ }'

"$mktrace" --ranks 4 --iters 5 demo.rondo || { echo "FAIL: mktrace"; exit 1; }

# ---- by function: the known durations of the demo job -------------------
# the writer keeps no time between calls: said so, once
expect_exit 1 "$rondo" stats --before demo.rondo
one_error "^rondo: demo.rondo keeps no time between calls \\(no 'gapstats' section"
expect_exit 1 "$rondo" stats --before --group 0 demo.rondo
one_error "^rondo: demo.rondo keeps no time between calls per rank group \\(no 'groupgaps' section"
expect_exit 0 "$rondo" stats --csv - demo.rondo
[ "$(head -1 "$tmp/out")" = "function,signatures,calls,total_ns,mean_ns,min_ns,max_ns,sd_ns,mpi_share,run_share" ] ||
	fail "stats CSV header: $(head -1 "$tmp/out")"
cp "$tmp/out" func.csv
# MPI_Init takes 150000 + 1000 r on rank r, Barrier 3000, Finalize 40000;
# every rank calls Allreduce twice an iteration, ranks 1-3 send left and
# 0-2 right (Isend, Irecv), all call one Waitall an iteration.
check "stats by function" "$AWKLIB"'
NR > 1 { row[$1] = $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 "," $10; n++ }
END {
	want["MPI_Init"] = "1,4,606000,151500.000,150000,153000,1118.034,"
	want["MPI_Barrier"] = "1,4,12000,3000.000,3000,3000,0.000,"
	want["MPI_Finalize"] = "1,4,160000,40000.000,40000,40000,0.000,"
	for (f in want) if (row[f] != want[f]) bad(f ": " row[f] ", want " want[f])
	split(row["MPI_Allreduce"], a, ","); if (a[1] != 1 || a[2] != 40) bad("Allreduce: " row["MPI_Allreduce"])
	split(row["MPI_Isend"], a, ","); if (a[1] != 3 || a[2] != 30) bad("Isend: " row["MPI_Isend"])
	split(row["MPI_Irecv"], a, ","); if (a[1] != 3 || a[2] != 30) bad("Irecv: " row["MPI_Irecv"])
	split(row["MPI_Waitall"], a, ","); if (a[1] != 2 || a[2] != 20) bad("Waitall: " row["MPI_Waitall"])
	if (n != 7) bad(n " functions, want 7")
}'
# shares of the MPI time: each its total over the sum, all adding to 1
check "stats mpi_share" "$AWKLIB"'
NR > 1 { tot[NR] = $4; share[NR] = $9; sum += $4; s += $9 }
END { for (i in tot) if (!near(share[i], tot[i] / sum)) bad("row " i ": share " share[i] ", want " tot[i] / sum)
      if (!near(s, 1)) bad("shares add up to " s) }'
# calls add up to what the trace holds
calls=$("$rondo" info demo.rondo | sed -n 's/^calls  *//p')
[ "$(awk -F, 'NR > 1 { s += $3 } END { print s }' func.csv)" = "$calls" ] ||
	fail "stats: calls do not add up to $calls"

# ---- by signature, and a function's signatures combined exactly ---------
expect_exit 0 "$rondo" stats --by signature --csv - demo.rondo
cp "$tmp/out" sig.csv
[ "$(($(wc -l <sig.csv) - 1))" = "$("$rondo" info demo.rondo | sed -n 's/^signatures  *//p')" ] ||
	fail "stats --by signature: $(($(wc -l <sig.csv) - 1)) rows"
# the signature's text is the last field, quoted, as rondo dump writes it
"$rondo" dump --rank 2 demo.rondo | grep -F "$(sed -n 's/^[0-9]*,MPI_Allreduce,.*,"\(.*\)"$/\1/p' sig.csv)" >/dev/null ||
	fail "stats --by signature: the Allreduce's text is not dump's"
check "functions from signatures" "$AWKLIB"'
FILENAME == "func.csv" && FNR > 1 { f[$1] = $0; next }
FILENAME != "func.csv" && FNR > 1 {
	n[$2]++; c[$2] += $3; t[$2] += $4
	if (!($2 in lo) || $6 < lo[$2]) lo[$2] = $6
	if ($7 > hi[$2]) hi[$2] = $7
	sq[$2] += $3 * ($8 * $8 + $5 * $5)
}
END {
	for (k in n) {
		split(f[k], a, ",")
		m = t[k] / c[k]; v = sq[k] / c[k] - m * m; sd = v > 0 ? sqrt(v) : 0
		if (a[2] != n[k] || a[3] != c[k] || a[4] != t[k] || a[6] != lo[k] || a[7] != hi[k])
			bad(k ": " f[k] ", signatures say " n[k] "," c[k] "," t[k] ",," lo[k] "," hi[k])
		# the means and deviations read back have 3 decimals
		if (a[8] - sd > 0.1 + 1e-4 * sd || sd - a[8] > 0.1 + 1e-4 * sd)
			bad(k ": sd " a[8] ", signatures say " sd)
	}
}' func.csv sig.csv

# ---- sorting and --top ------------------------------------------------------
# sorted KEYCOL IDCOL WHAT: in $tmp/out, the key never grows down the
# rows, ties by increasing id (IDCOL 0: no id shown).
sorted() {
	awk -F, -v k="$1" -v id="$2" -v what="$3" '
	NR > 2 && ($k > key || ($k == key && id && $id < last)) { printf "%s: row %d out of order\n", what, NR; bad = 1 }
	NR > 1 { key = $k; last = $id }
	END { exit bad }' "$tmp/out" || fails=$((fails + 1))
}
# both CSVs have calls, total, mean and max in columns 3, 4, 5 and 7
for by in function signature; do
	[ $by = function ] && id=0 || id=1
	for key in total count mean max; do
		case $key in
		count) col=3 ;; total) col=4 ;; mean) col=5 ;; max) col=7 ;;
		esac
		expect_exit 0 "$rondo" stats --by $by --sort $key --csv - demo.rondo
		sorted $col $id "--by $by --sort $key"
	done
done
expect_exit 0 "$rondo" stats --by signature --sort count --csv - demo.rondo
tail -n +2 "$tmp/out" >all.csv
expect_exit 0 "$rondo" stats --by signature --sort count --top 3 --csv - demo.rondo
[ "$(tail -n +2 "$tmp/out")" = "$(head -3 all.csv)" ] || fail "--top 3 is not the first 3 rows"
# the default order is by total time
expect_exit 0 "$rondo" stats --csv - demo.rondo
sorted 4 0 "stats default order"

# ---- by rank ----------------------------------------------------------------
expect_exit 0 "$rondo" stats --by rank --csv - demo.rondo
[ "$(head -1 "$tmp/out")" = "rank,calls,mpi_ns,run_ns,run_share,mpi_share" ] ||
	fail "stats --by rank CSV header: $(head -1 "$tmp/out")"
cp "$tmp/out" rank.csv
[ "$(cut -d, -f1 rank.csv | tail -n +2 | tr '\n' ' ')" = "0 1 2 3 " ] ||
	fail "stats --by rank: ranks $(cut -d, -f1 rank.csv | tail -n +2 | tr '\n' ' ')"
for r in 0 1 2 3; do
	want=$("$rondo" dump --rank $r demo.rondo | wc -l)
	got=$(awk -F, -v r=$r 'NR > 1 && $1 == r { print $2 }' rank.csv)
	[ "$got" = "$want" ] || fail "stats --by rank: rank $r made $got calls, dump says $want"
done
# each rank's time is within 1/128 of the truth, so the sum is too
check "ranks' MPI time" "$AWKLIB"'
FILENAME == "func.csv" { if (FNR > 1) all += $4; next }
FNR > 1 { sum += $3; share += $6; if ($4 != "" || $5 != "") bad("rank " $1 ": a run time without a duration") }
END { if (sum > all * (1 + 1 / 128) || sum < all * (1 - 1 / 128)) bad("ranks add up to " sum ", signatures to " all)
      if (!near(share, 1)) bad("rank shares add up to " share) }' func.csv rank.csv
expect_exit 0 "$rondo" stats --by rank --sort total --csv - demo.rondo
sorted 3 1 "--by rank --sort total"
expect_exit 0 "$rondo" stats --by rank --top 2 demo.rondo
[ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 2 ] || fail "--by rank --top 2: $(cat "$tmp/out")"

# ---- contention -----------------------------------------------------------
expect_exit 0 "$rondo" contention --top 100 --csv - demo.rondo
[ "$(head -1 "$tmp/out")" = "sig,function,calls,total_ns,min_ns,lost_ns,score,lost_share,ranks,imbalance,max_rank,max_rank_ns,min_rank,min_rank_ns,mean_rank_ns,imbalance_ns,signature" ] ||
	fail "contention CSV header: $(head -1 "$tmp/out")"
cp "$tmp/out" cont.csv
[ "$(($(wc -l <cont.csv) - 1))" -eq 12 ] || fail "contention --top 100: $(($(wc -l <cont.csv) - 1)) rows, want 12"
sorted 16 0 "contention order (imbalance)"
[ "$(sed -n 2p cont.csv | cut -d, -f1)" = 8 ] ||
	fail "contention: the Waitall (sig 8) is not first by default: $(sed -n 2p cont.csv)"
check "contention" "$AWKLIB"'
FILENAME == "sig.csv" { if (FNR > 1) s[$1] = $3 "," $4 "," $6; next }
FNR > 1 {
	if (s[$1] != $3 "," $4 "," $5) bad("sig " $1 ": " $3 "," $4 "," $5 ", stats say " s[$1])
	if ($6 != $4 - $3 * $5) bad("sig " $1 ": lost " $6 ", want " $4 - $3 * $5)
	if ($7 != "" || $8 != "") bad("sig " $1 ": a score without a run time")
	if (!near($10, $12 / $15)) bad("sig " $1 ": imbalance " $10 ", want " $12 / $15)
	if ($14 > $15 || $15 > $12) bad("sig " $1 ": mean rank time " $15 " not between " $14 " and " $12)
	if ($9 == 1 && ($10 != 1 || $11 != $13 || $12 != $15)) bad("sig " $1 ": one rank, but " $0)
	if ($16 < $12 - $15 - 0.001 || $16 > $12 - $15 + 0.001) bad("sig " $1 ": imbalance time " $16 ", want " $12 - $15)
	row[$1] = $6 "," $9 "," $11 "," $12 "," $13 "," $14 "," $15
}
END {
	# MPI_Init: 150000 + 1000 r, per rank kept to 7 significant bits
	w = 6000 ",4,3," tc(153000) ",0," tc(150000) "," sprintf("%.3f", (tc(150000) + tc(151000) + tc(152000) + tc(153000)) / 4)
	if (row[0] != w) bad("MPI_Init: " row[0] ", want " w)
	if (row[10] != "0,4,0," tc(3000) ",0," tc(3000) "," sprintf("%.3f", tc(3000))) bad("MPI_Barrier: " row[10])
	# rank 0 alone posts to its right with requests 0 and 1
	if (row[5] !~ /^[0-9]+,1,0,[0-9]+,0,/) bad("sig 5: " row[5] ", want rank 0 alone")
}' sig.csv cont.csv
expect_exit 0 "$rondo" contention --csv - demo.rondo
[ "$(($(wc -l <"$tmp/out") - 1))" -eq 10 ] || fail "contention: $(($(wc -l <"$tmp/out") - 1)) rows by default, want 10"
expect_exit 0 "$rondo" contention --top 4 --csv - demo.rondo
[ "$(tail -n +2 "$tmp/out")" = "$(sed -n 2,5p cont.csv)" ] || fail "contention --top 4 is not the first 4"
# the other orders: time lost against the fastest call, the ratio; the
# same rows
expect_exit 0 "$rondo" contention --sort lost --top 100 --csv - demo.rondo
sorted 6 1 "contention --sort lost"
[ "$(sort "$tmp/out")" = "$(sort cont.csv)" ] || fail "contention --sort lost: other rows"
expect_exit 0 "$rondo" contention --sort ratio --top 100 --csv - demo.rondo
sorted 10 0 "contention --sort ratio"
expect_exit 0 "$rondo" contention --sort imbalance --top 100 --csv - demo.rondo
cmp -s "$tmp/out" cont.csv || fail "contention --sort imbalance is not the default order"

# ---- the text reports ---------------------------------------------------------
expect_exit 0 "$rondo" stats demo.rondo
[ "$(head -1 "$tmp/out")" = "halo1d: 4 ranks, run time unknown, MPI time 3.49 ms" ] ||
	fail "stats header: $(head -1 "$tmp/out")"
grep -Eq '^MPI_Init +1 +4 +606 us +152 us +150 us +153 us +1\.12 us +17\.35% +-$' "$tmp/out" ||
	fail "stats text: no MPI_Init row like the CSV: $(cat "$tmp/out")"
[ "$(grep -c '^MPI_' "$tmp/out")" -eq 7 ] || fail "stats text: $(grep -c '^MPI_' "$tmp/out") functions"
expect_exit 0 "$rondo" stats --by sig demo.rondo
grep -q '  MPI_Waitall(count=4, array_of_requests=\[r0, r1, r2, r3\], array_of_sta\.\.\.$' "$tmp/out" ||
	fail "stats --by sig: long signatures are not cut: $(cat "$tmp/out")"
expect_exit 0 "$rondo" contention demo.rondo
grep -Eq '^ +#0 +6\.00 us +- +- +4 +150 us +[0-9.]+ us +1\.01 +3 +154 us +0 +150 us  MPI_Init\(\)$' "$tmp/out" ||
	fail "contention text: no MPI_Init row like the CSV: $(cat "$tmp/out")"

# ---- bad usage: exit 2 and one message ------------------------------------------
expect_exit 2 "$rondo" stats --by nope demo.rondo
usage_error stats "^rondo: --by 'nope': function, signature or rank"
expect_exit 2 "$rondo" stats --sort m demo.rondo
usage_error stats "^rondo: --sort 'm'"
expect_exit 2 "$rondo" stats --top 0 demo.rondo
usage_error stats "^rondo: --top '0'"
expect_exit 2 "$rondo" stats --top x demo.rondo
expect_exit 2 "$rondo" stats --by rank --sort max demo.rondo
usage_error stats "^rondo: --sort max"
expect_exit 2 "$rondo" stats --bogus demo.rondo
expect_exit 2 "$rondo" stats
usage_error stats "^rondo: stats takes one FILE"
expect_exit 2 "$rondo" stats demo.rondo demo.rondo
expect_exit 2 "$rondo" contention --top -1 demo.rondo
usage_error contention "^rondo: --top '-1'"
expect_exit 2 "$rondo" contention --by rank demo.rondo
expect_exit 2 "$rondo" contention --sort max demo.rondo
usage_error contention "^rondo: --sort 'max': lost, imbalance or ratio"
expect_exit 2 "$rondo" contention
expect_exit 0 "$rondo" stats --help
grep -q '^usage: rondo stats' "$tmp/out" || fail "stats --help"
expect_exit 0 "$rondo" contention --help
grep -q '^usage: rondo contention' "$tmp/out" || fail "contention --help"

# ---- failures: exit 1 and one message -------------------------------------------
for cmd in stats contention; do
	expect_exit 1 "$rondo" $cmd /nonexistent/x.rondo
	one_error "^rondo: cannot open /nonexistent/x.rondo: No such file or directory$"
	expect_exit 1 "$rondo" $cmd "$top_srcdir/tests/corpus/truncated-rankmap.rondo"
	one_error "^rondo: cannot open .*truncated-rankmap.rondo"
	expect_exit 1 "$rondo" $cmd --csv /nonexistent/dir/x.csv demo.rondo
	one_error "^rondo: cannot write /nonexistent/dir/x.csv: No such file or directory$"
	if [ -w /dev/full ]; then
		expect_exit 1 "$rondo" $cmd --csv /dev/full demo.rondo
		one_error "^rondo: cannot write /dev/full: No space left on device$"
	fi
	# --csv PATH writes what --csv - prints, and nothing else
	expect_exit 0 "$rondo" $cmd --csv - demo.rondo
	mv "$tmp/out" want.csv
	expect_exit 0 "$rondo" $cmd --csv got.csv demo.rondo
	[ ! -s "$tmp/out" ] && cmp -s want.csv got.csv || fail "$cmd --csv got.csv differs from --csv -"
done

# ---- rewritten traces: a run time, sections left out --------------------------------
# rewrite IN OUT [drop=TYPE...] [KEY=VALUE...]: the trace without the
# sections of those types, its metadata replaced by the pairs given.
py=${PYTHON3:-$(command -v python3)}
rewrite() {
	"$py" - "$@" <<'EOF'
import struct, sys

def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
    return c ^ 0xFFFFFFFF

def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)

def string(s):
    s = s.encode()
    return uvarint(len(s)) + s

src, dst, drop, meta = sys.argv[1], sys.argv[2], set(), []
for a in sys.argv[3:]:
    if a.startswith("drop="):
        drop.add(int(a[5:]))
    else:
        meta.append(a.split("=", 1))
f = open(src, "rb").read()
count, table = struct.unpack_from("<IQ", f, 12)
body, entries = b"", b""
for i in range(count):
    typ, codec, off, stored, raw, _, flags = struct.unpack_from("<IIQQQII", f, table + 40 * i)
    if typ in drop:
        continue
    data = f[off:off + stored]
    if typ == 1 and meta:  # meta, stored raw
        data = uvarint(len(meta)) + b"".join(string(k) + string(v) for k, v in meta)
        codec, raw = 0, len(data)
    entries += struct.pack("<IIQQQII", typ, codec, 32 + len(body), len(data), raw, crc32c(data), flags)
    body += data
head = f[:12] + struct.pack("<IQ", len(entries) // 40, 32 + len(body)) + f[24:28]
open(dst, "wb").write(head + struct.pack("<I", crc32c(head)) + body + entries + struct.pack("<I", crc32c(entries)))
EOF
}
if [ -z "$py" ]; then
	echo "stats.sh: no python3: the checks on rewritten traces are not run"
else
	rewrite demo.rondo timed.rondo program=halo1d ranks=4 duration=2.500000 ||
		fail "rewrite timed.rondo"
	expect_exit 0 "$rondo" stats timed.rondo
	[ "$(head -1 "$tmp/out")" = "halo1d: 4 ranks, run time 2.50 s (10.0 s over all ranks), MPI time 3.49 ms (0.03% of it)" ] ||
		fail "stats header with a run time: $(head -1 "$tmp/out")"
	expect_exit 0 "$rondo" stats --csv - timed.rondo
	check "run_share" "$AWKLIB"'NR > 1 && !near($10, $4 / 1e10) { bad($1 ": run_share " $10 ", want " $4 / 1e10) }'
	expect_exit 0 "$rondo" stats --by rank --csv - timed.rondo
	check "rank run_share" "$AWKLIB"'NR > 1 && ($4 != 2500000000 || !near($5, $3 / 2.5e9)) { bad("rank " $1 ": " $0) }'
	expect_exit 0 "$rondo" contention --csv - timed.rondo
	check "score" "$AWKLIB"'NR > 1 && (!near($7, $6 / 2.5e9) || !near($8, $6 / 1e10)) { bad("sig " $1 ": " $0) }'

	# no per-rank times (a file from before them): stats by function
	# and contention without the imbalance; by rank, a message
	rewrite demo.rondo notimes.rondo drop=9 || fail "rewrite notimes.rondo"
	expect_exit 1 "$rondo" stats --by rank notimes.rondo
	one_error "^rondo: notimes.rondo has no per-rank times"
	expect_exit 0 "$rondo" stats --csv - notimes.rondo
	cmp -s "$tmp/out" func.csv || fail "stats without per-rank times differs"
	expect_exit 0 "$rondo" contention --csv - notimes.rondo
	check "contention without per-rank times" "$AWKLIB"'NR > 1 && $9 $10 $11 $12 $13 $14 $15 != "" { bad("sig " $1 ": " $0) }'
	expect_exit 0 "$rondo" contention notimes.rondo
	grep -q "imbalance unknown" "$tmp/out" || fail "contention does not say the imbalance is unknown"

	# no statistics: by rank works, the rest says why not
	rewrite demo.rondo nostats.rondo drop=7 || fail "rewrite nostats.rondo"
	for cmd in "stats" "stats --by signature" "contention"; do
		expect_exit 1 "$rondo" $cmd nostats.rondo
		one_error "^rondo: nostats.rondo has no call statistics"
	done
	expect_exit 0 "$rondo" stats --by rank --csv - nostats.rondo
	cmp -s "$tmp/out" rank.csv || fail "stats --by rank without statistics differs"
fi

# ---- a real run: rank 2 late at every Allreduce -------------------------------------
if [ ! -x "$top_builddir/tests/mpi/slowrank" ]; then
	echo "stats.sh: the tracer is not built: tests/mpi/slowrank is not run"
elif ! command -v mpirun >/dev/null 2>&1; then
	echo "stats.sh: no mpirun: tests/mpi/slowrank is not run"
else
	[ -f "$lib" ] || fail "$lib not built"
	mpi_env
	san_env
	[ -z "$san" ] || export LD_PRELOAD="$san"
	timeout 300 "$rondo" run -o slow.rondo -- mpirun -np 4 \
		${san:+-x ASAN_OPTIONS} "$top_builddir/tests/mpi/slowrank" 50 >slow.out 2>&1
	status=$?
	if [ $status -ne 0 ]; then
		fail "slowrank: exit status $status: $(tail -5 slow.out)"
	else
		expect_exit 0 "$rondo" contention --csv - slow.rondo
		awk -F, 'NR == 2 { exit !($2 == "MPI_Allreduce" && $13 == 2 && $9 == 4) }' "$tmp/out" ||
			fail "slowrank: contention's first row is not the Allreduce late on rank 2: $(sed -n 2p "$tmp/out")"
		expect_exit 0 "$rondo" stats --by rank --csv - slow.rondo
		awk -F, 'NR > 1 && (min == "" || $3 < min) { min = $3; r = $1 }
			 END { exit r != 2 }' "$tmp/out" ||
			fail "slowrank: rank 2 is not the one with the least MPI time: $(cat "$tmp/out")"
		check "slowrank run time" "$AWKLIB"'NR > 1 && ($4 <= 0 || !near($5, $3 / $4)) { bad("rank " $1 ": " $0) }'
		expect_exit 0 "$rondo" stats --csv - slow.rondo
		grep -q '^MPI_Allreduce,1,200,' "$tmp/out" ||
			fail "slowrank: not 200 Allreduce calls: $(cat "$tmp/out")"
		# the time before each call: the work slowrank does, 1 ms on
		# three ranks and 9 ms on rank 2 before each Allreduce (a
		# sleep is never shorter than asked; a bound of twice the
		# mean only catches a time taken from the wrong place)
		expect_exit 0 "$rondo" stats --before --csv - slow.rondo
		awk -F, '$1 == "MPI_Allreduce" { found = 1
			if ($3 != 200 || $6 < 1000000 || $7 < 9000000 ||
			    $5 < 3000000 || $5 > 6000000) exit 1 }
			END { exit !found }' "$tmp/out" ||
			fail "slowrank: the time before the Allreduce: $(cat "$tmp/out")"
		awk -F, '$1 == "MPI_Init" { exit 1 }' "$tmp/out" ||
			fail "slowrank: time before MPI_Init, the first call: $(cat "$tmp/out")"
		expect_exit 0 "$rondo" stats --before --by signature slow.rondo
		grep -q "^time before each call: from the end of the rank's previous MPI call" "$tmp/out" ||
			fail "slowrank: stats --before's header: $(head -3 "$tmp/out")"
		echo "slowrank, before: $(grep Allreduce "$tmp/out" | cut -c1-100)"
		expect_exit 2 "$rondo" stats --before --by rank slow.rondo
		# per rank group: its ranks all make the same calls, so one
		# group, whose time before the Allreduce is all of it (each
		# rank's total kept within 1/128); text marks what a group
		# does not keep
		expect_exit 0 "$rondo" stats --before --group 0 --csv - slow.rondo
		awk -F, '$1 == "MPI_Allreduce" { found = 1
			if ($3 != 200 || $5 < 3000000 || $5 > 6000000 ||
			    $6 != "" || $7 != "" || $8 != "") exit 1 }
			END { exit !found }' "$tmp/out" ||
			fail "slowrank: group 0's time before the Allreduce: $(cat "$tmp/out")"
		expect_exit 0 "$rondo" stats --before --group 0 slow.rondo
		grep -q "between MPI calls in rank group 0 (4 ranks: 0-3)" "$tmp/out" &&
			grep -Eq "^MPI_Allreduce +1 +200 .* +- +- +- " "$tmp/out" ||
			fail "slowrank: stats --before --group 0: $(cat "$tmp/out")"
		expect_exit 2 "$rondo" stats --before --group 1 slow.rondo
		usage_error stats "^rondo: --group 1: slow.rondo has 1 rank group, 0 to 0$"
		expect_exit 2 "$rondo" stats --group 0 slow.rondo
		expect_exit 2 "$rondo" stats --before --group x slow.rondo
		expect_exit 2 "$rondo" stats --before --group 0 --sort max slow.rondo
		echo "slowrank: $("$rondo" contention --top 1 slow.rondo | tail -1 | cut -c1-110)"
	fi
fi

[ "$fails" -eq 0 ] && echo "stats.sh: all passed"
[ "$fails" -eq 0 ]
