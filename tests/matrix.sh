#!/bin/sh
# matrix.sh - known answers of `rondo matrix`: tests/mpi/matrix runs a
# pattern of messages (a mode) under the tracer and writes every message
# it sent as CSV (kind p point-to-point or c collective, sender and
# receiver as world ranks, function, tag, communicator label, messages,
# bytes; a persistent send's function is its start's and its init's,
# "MPI_Startall/MPI_Send_init"; rows of kind r are what was received,
# which the program has checked against what was sent).  Here those rows,
# summed by awk under the filters of the options, are the matrix
# `rondo matrix --csv -` must print in its long form, cell by cell, for:
#  - every mode on 4 ranks, ring and the stencils on 1, 3 and 6 too,
#    alltoall and irregular on 3 too;
#  - no options, --collectives, --only-collectives, --count, --bytes;
#    each with --method walk too, which must print what the default
#    (grammar) method printed;
#  - --function with each function that sent, --tag with each tag,
#    --comm with each communicator (world, self, and the split, created
#    and Cartesian communicators by the ids `rondo dump` gives them, as
#    cN and as N), and filters that leave nothing;
#  - --wide (messages, or bytes with --bytes) read back into cells must be
#    the long form's cells;
#  - a bad option, a damaged trace and an unwritable --csv path: exit
#    status 2 or 1 and one line "rondo: ..." on stderr (a usage error may
#    add the --help hint).
# ITERS (default 20) sets the iterations of every mode.
set -u
. "$(dirname "$0")/lib.sh"
test_setup
mpi_setup
prog="$top_builddir/tests/mpi/matrix"
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
iters=${ITERS:-20}

# trace MODE NP: the mode on NP ranks under the tracer; sets t (the path
# of its trace and events without .rondo, .csv), np and what; writes
# $t.ids, "rank label id" for the communicators the program labels.
trace() {
	mode=$1; np=$2; t="$tmp/$1-$2"; what="$1 on $2 ranks"
	timeout 120 "$rondo" run -o "$t.rondo" -- mpirun -np "$np" \
		${san:+-x ASAN_OPTIONS} "$prog" "$mode" "$t.csv" "$iters" \
		>"$t.out" 2>&1 ||
		{ fail "$what: exit status $?: $(tail -5 "$t.out")"; return 1; }
	grep -q "^matrix $mode: $np ranks, .* received as sent$" "$t.out" &&
		[ -s "$t.csv" ] ||
		{ fail "$what: the program's report: $(tail -5 "$t.out")"; return 1; }
	for f in Comm_split:half Comm_create:made Cart_create:cart; do
		"$rondo" dump --function "MPI_${f%:*}" "$t.rondo" 2>/dev/null |
			sed -n "s/^\([0-9]*\) .*-> [a-z_]*=\(c[0-9]*\).*/\1 ${f#*:} \2/p"
	done >"$t.ids"
}

# expect OPTS...: the long form `rondo matrix OPTS` should print for $t,
# the events summed under the options' filters.
expect() {
	coll=0 p2p=1 fn='' tg='' cm=''
	while [ $# -gt 0 ]; do
		case $1 in
		--collectives) coll=1 ;;
		--only-collectives) coll=1 p2p=0 ;;
		--function) fn=$2; shift ;;
		--tag) tg=$2; shift ;;
		--comm) cm=$2; shift ;;
		esac
		shift
	done
	case $cm in [0-9]*) cm=c$cm ;; esac
	echo "src,dst,messages,bytes"
	awk -F, -v coll=$coll -v p2p=$p2p -v fn="$fn" -v tg="$tg" -v cm="$cm" -v ids="$t.ids" '
		BEGIN { while ((getline l <ids) > 0) { split(l, a, " "); id[a[1] "," a[2]] = a[3] } }
		FNR == 1 || $1 == "r" || ($1 == "c" && !coll) || ($1 == "p" && !p2p) { next }
		fn != "" && index("/" $4 "/", "/" fn "/") == 0 { next }
		tg != "" && ($1 != "p" || $5 != tg) { next }
		cm != "" && ($6 == "world" || $6 == "self" ? $6 : id[$2 "," $6]) != cm { next }
		{ m[$2 "," $3] += $7; b[$2 "," $3] += $8 }
		END { for (k in m) print k "," m[k] "," b[k] }' "$t.csv" |
		sort -t, -k1,1n -k2,2n
}

# cells WHO WANT GOT: nothing if the two long forms are the same, else a
# failure naming the cells that differ (10 at most).
cells() {
	cmp -s "$2" "$3" && return 0
	fails=$((fails + 1))
	awk -F, -v who="$1" '
		function show(k) { return k in v ? v[k] : "nothing" }
		FNR == 1 { h[++f] = $0; next }
		f == 1 { w[$1 "," $2] = $3 " messages " $4 " bytes"; next }
		{ g[$1 "," $2] = $3 " messages " $4 " bytes"; if (NF != 4) bad = bad " [" $0 "]" }
		END {
			printf "FAIL: %s:\n", who
			if (h[1] != h[2]) printf "  header: want %s, got %s\n", h[1], h[2]
			if (bad != "") printf "  rows that are not src,dst,messages,bytes:%s\n", bad
			for (k in w) if (!(k in g) || g[k] != w[k]) d[k] = 1
			for (k in g) if (!(k in w)) d[k] = 1
			for (k in d) {
				if (++n > 10) continue
				split(k, c, ",")
				printf "  cell %d -> %d: want %s, got %s\n", c[1], c[2],
					k in w ? w[k] : "nothing", k in g ? g[k] : "nothing"
			}
			if (n > 10) printf "  and %d more cells\n", n - 10
			if (n == 0 && h[1] == h[2]) print "  the same cells in another order (want by src then dst)"
		}' "$2" "$3"
}

# check OPTS...: `rondo matrix $t.rondo --csv - OPTS` against expect, and
# with --method walk against that.
check() {
	cmd="rondo matrix${*:+ $*}"
	expect "$@" >"$tmp/want"
	"$rondo" matrix "$t.rondo" --csv - "$@" >"$tmp/got" 2>"$tmp/err" ||
		{ fail "$what: $cmd: exit status $?: $(head -3 "$tmp/err")"; return; }
	cells "$what: $cmd" "$tmp/want" "$tmp/got"
	"$rondo" matrix "$t.rondo" --csv - "$@" --method walk >"$tmp/walk" 2>"$tmp/err" ||
		{ fail "$what: $cmd --method walk: exit status $?: $(head -3 "$tmp/err")"; return; }
	cells "$what: $cmd --method walk, against the grammar method's output" \
		"$tmp/got" "$tmp/walk"
}

# wide OPTS...: the square form (`--wide OPTS`), read back into cells, must
# be the long form's messages, or bytes with --bytes, that are not 0.
wide() {
	c=3
	for o; do [ "$o" = --bytes ] && c=4; done
	"$rondo" matrix "$t.rondo" --csv - "$@" >"$tmp/long" 2>"$tmp/err" &&
		"$rondo" matrix "$t.rondo" --csv - --wide "$@" >"$tmp/wide" 2>"$tmp/err" ||
		{ fail "$what: rondo matrix --wide${*:+ $*}: exit status $?: $(head -3 "$tmp/err")"; return; }
	awk -F, -v c=$c 'NR > 1 && $c != 0 { print $1 "," $2 "," $c }' "$tmp/long" >"$tmp/wwant"
	awk -F, -v np="$np" '
		NR == 1 { h = "src"; for (j = 0; j < np; j++) h = h "," j
			if ($0 != h) print "! header " $0 ", want " h; next }
		NF != np + 1 || $1 != NR - 2 { print "! row " $0; next }
		{ for (j = 2; j <= NF; j++) if ($j != 0) print $1 "," j - 2 "," $j }
		END { if (NR != np + 1) print "! " NR - 1 " rows, want " np }' \
		"$tmp/wide" >"$tmp/wgot"
	cmp -s "$tmp/wwant" "$tmp/wgot" ||
		fail "$what: rondo matrix --wide${*:+ $*}: not the long form's cells (want < > got):
$(diff "$tmp/wwant" "$tmp/wgot" | grep '^[<>]' | head -10)"
}

# total N OPTS...: the cells of expect OPTS hold N messages (the program's
# own count), so that an empty expectation cannot pass for a right one.
total() {
	n=$1; shift
	sum=$(expect "$@" | awk -F, 'NR > 1 { s += $3 } END { print s + 0 }')
	[ "$sum" = "$n" ] || fail "$what: the events sum to $sum messages, the program sent $n"
}

# matrices: every check on the run in $t.
matrices() {
	pp=$(sed -n 's/.* ranks, \([0-9]*\) point-to-point .*/\1/p' "$t.out")
	cc=$(sed -n 's/.*, \([0-9]*\) collective .*/\1/p' "$t.out")
	total "$pp"
	total $((pp + cc)) --collectives
	for o in "" --collectives --only-collectives --count --bytes; do
		check $o
	done
	for o in "" --bytes --count "--collectives" "--collectives --bytes"; do
		wide $o
	done
	for f in $(awk -F, '$1 == "p" { print $4 }' "$t.csv" | tr / '\n' | sort -u); do
		check --function "$f"
	done
	for f in $(awk -F, '$1 == "c" { print $4 }' "$t.csv" | sort -u); do
		check --collectives --function "$f"
	done
	tags=$(awk -F, '$1 == "p" { print $5 }' "$t.csv" | sort -un)
	for g in $tags; do
		check --tag "$g"
	done
	set -- $tags
	[ $# -eq 0 ] || check --collectives --tag "$1"
	# the ids of the communicators used, as `rondo dump` prints them
	comms=$(awk -F, -v ids="$t.ids" '
		BEGIN { while ((getline l <ids) > 0) { split(l, a, " "); id[a[1] "," a[2]] = a[3] } }
		FNR > 1 && $1 != "r" { print $6 == "world" || $6 == "self" ? $6 : id[$2 "," $6] }' \
		"$t.csv" | sort -u)
	for m in $comms; do
		check --comm "$m"
		check --collectives --comm "$m"
		case $m in c*) check --comm "${m#c}" ;; esac
	done
	check --tag 424242
	check --comm self
	check --function MPI_Irecv
	check --function MPI_Recv
}

# one_line WHAT STATUS CMD...: CMD exits with STATUS and one line on
# stderr, "rondo: ...", and the --help hint after a usage error.
one_line() {
	w=$1 want=$2; shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ "$st" -eq "$want" ] || fail "$w: exit status $st, want $want"
	n=$(grep -cv "^Try 'rondo matrix --help'" "$tmp/err")
	[ "$n" -eq 1 ] && grep -q '^rondo: ' "$tmp/err" ||
		fail "$w: want one line 'rondo: ...' on stderr, got: $(cat "$tmp/err")"
}

# the comparison itself: a cell off by one byte must show
t="$tmp/self" what="self-check" np=2
printf 'kind,src,dst,function,tag,comm,messages,bytes\np,0,1,MPI_Send,1,world,2,16\n' >"$t.csv"
: >"$t.ids"
expect >"$tmp/want"
printf 'src,dst,messages,bytes\n0,1,2,17\n' >"$tmp/got"
before=$fails
cells "self-check" "$tmp/want" "$tmp/got" >"$tmp/self.out"
grep -q "cell 0 -> 1: want 2 messages 16 bytes, got 2 messages 17 bytes" "$tmp/self.out" &&
	[ $fails -eq $((before + 1)) ] || { echo "FAIL: the comparison misses a byte"; exit 1; }
fails=$before

for run in "ring 1" "ring 3" "ring 4" "ring 6" "stencil 1" "stencil 3" \
	"stencil 4" "stencil 6" "pstencil 1" "pstencil 3" "pstencil 4" \
	"pstencil 6" "alltoall 3" "alltoall 4" "irregular 3" "irregular 4" \
	"split 4" "wildcard 4" "persistent 4"; do
	before=$fails
	trace $run || continue
	matrices
	[ $fails -eq $before ] && echo "ok: $what"
done

# bad command lines, a damaged trace, an unwritable output
t="$tmp/ring-4"
if [ -s "$t.rondo" ]; then
	one_line "bad option" 2 "$rondo" matrix --bogus "$t.rondo"
	one_line "bad --method" 2 "$rondo" matrix --method nope "$t.rondo"
	one_line "bad --tag" 2 "$rondo" matrix --tag seven "$t.rondo"
	one_line "bad --comm" 2 "$rondo" matrix --comm nowhere "$t.rondo"
	one_line "no file" 2 "$rondo" matrix --csv -
	# cut before the sections the calls need end (damaged.sh: cut later,
	# a trace opens)
	head -c 200 "$t.rondo" >"$tmp/cut.rondo"
	one_line "a truncated trace" 1 "$rondo" matrix --csv - "$tmp/cut.rondo"
	echo "not a trace" >"$tmp/text.rondo"
	one_line "not a trace" 1 "$rondo" matrix --csv - "$tmp/text.rondo"
	one_line "a missing trace" 1 "$rondo" matrix --csv - "$tmp/none.rondo"
	one_line "--csv into a missing directory" 1 \
		"$rondo" matrix --csv /nonexistent/dir/m.csv "$t.rondo"
	one_line "--csv onto a directory" 1 "$rondo" matrix --csv "$tmp" "$t.rondo"
	# --csv PATH writes what --csv - prints
	"$rondo" matrix --csv "$tmp/m.csv" "$t.rondo" >"$tmp/out" 2>&1 &&
		"$rondo" matrix --csv - "$t.rondo" >"$tmp/m-stdout.csv" &&
		cmp -s "$tmp/m.csv" "$tmp/m-stdout.csv" ||
		fail "--csv PATH does not write what --csv - prints: $(cat "$tmp/out")"
fi

[ $fails -eq 0 ] && echo "matrix.sh: 0 failed" || echo "matrix.sh: $fails failed"
[ $fails -eq 0 ]
