#!/bin/sh
# bench_view.sh [BUILDDIR] - how long `rondo view` takes to show its first
# screen, and its peak memory, on synthetic traces of 10^3, 10^6 and 10^9
# calls (the tests' writer, tests/mktrace: the 1-D halo exchange on 4
# ranks, its loop run 41, 41 667 and 41 666 667 times).  The explorer
# should not care: it reads the grammar, never the calls.
#
# Each trace is opened BENCH_REPS times (default 5) in a pseudo-terminal
# of 100x30 (python3's pty module): the time from starting rondo to the
# header on the screen, median of the runs, and the largest resident set
# (getrusage of the children).  Writing the 10^9-call trace takes the
# tests' writer a minute or two.  BENCH_MAX_CALLS (default 1000000000)
# leaves out the larger traces.
# Figures, not pass/fail: the exit status is non-zero only when a run fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
bench_build bench_view "${1:-}"
rondo=$build/tui/rondo
mktrace=$build/tests/mktrace
reps=${BENCH_REPS:-5}
max=${BENCH_MAX_CALLS:-1000000000}
[ -x "$rondo" ] || die "$rondo not built (make)"
[ -x "$mktrace" ] || die "$mktrace not built (make tests/mktrace)"
command -v python3 >/dev/null 2>&1 || die "no python3"
case $reps in '' | *[!0-9]* | 0) die "BENCH_REPS must be a positive number" ;; esac
scratch

cat >"$tmp/first.py" <<'EOF'
# first.py RONDO FILE REPS: time to the first screen and peak RSS.
import os, pty, resource, select, statistics, struct, sys, time, fcntl, termios

rondo, path, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(reps):
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ["LC_ALL"] = "C.UTF-8"
        os.execv(rondo, [rondo, "view", path])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    seen, first = b"", None
    while first is None:
        r, _, _ = select.select([fd], [], [], 60)
        if not r:
            sys.exit("no first screen within 60 s")
        try:
            seen += os.read(fd, 65536)
        except OSError:
            sys.exit("rondo view ended before its first screen: %r" % seen[-300:])
        if b"rank groups" in seen:
            first = time.monotonic() - start
    os.write(fd, b"q")
    while True:
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    if status != 0:
        sys.exit("rondo view exited with status %d" % status)
    times.append(first)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print("%.1f %d" % (statistics.median(times) * 1e3, rss))
EOF

echo "rondo bench-view: $build"
echo "time to the first screen (median of $reps) and peak RSS of rondo view"
printf "%14s %14s %10s %16s %12s\n" calls file-bytes rules first-screen-ms peak-rss-KB
for iters in 41 41667 41666667; do
	[ $((iters * 24)) -le $((max + max / 100)) ] || continue
	"$mktrace" --ranks 4 --iters "$iters" "$tmp/t.rondo" ||
		die "mktrace failed for $iters iterations"
	n=$("$rondo" info "$tmp/t.rondo" | sed -n 's/^calls *//p')
	rules=$("$rondo" info "$tmp/t.rondo" | sed -n 's/^rules *\([0-9]*\).*/\1/p')
	set -- $(python3 "$tmp/first.py" "$rondo" "$tmp/t.rondo" "$reps") ||
		die "rondo view failed on $n calls"
	printf "%14s %14s %10s %16s %12s\n" "$n" "$(wc -c <"$tmp/t.rondo")" "$rules" "$1" "$2"
	echo "figure calls$n first-screen-ms $1" >>"$tmp/figures"
	echo "figure calls$n peak-rss-kb $2" >>"$tmp/figures"
done
echo
cat "$tmp/figures"
