#!/usr/bin/env python3
"""spillmod.py IN OUT WHAT - a copy of a spill or after file (tracer/spill_fmt.h)
with one value changed and the records' checks made again, so that a reader
takes it as intact: the tests' way to hand `rondo recover` values that are
well formed but do not hold.

WHAT: stats-total  the first STATS entry's total set past count times max.
      head-timing  HEAD's per-call timing set to 2, the coding of an older
                   tracer (1.7 and 1.8), whose times recovery leaves out.
"""
import struct
import sys


def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h


def uv(b, at):
    v = s = 0
    while True:
        c = b[at]
        at += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, at


def put_uv(v):
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return out


def stats_total(p):
    sig, at = uv(p, 0)
    count, at = uv(p, at)
    start = at
    total, at = uv(p, at)
    mn, at2 = uv(p, at)
    mx, _ = uv(p, at2)
    return p[:start] + put_uv(mx * count + 1000) + p[at:]


def head_timing(p):
    at = 0
    for _ in range(4):  # version, rank, ranks, pid
        _, at = uv(p, at)
    at += 8  # the job's key
    for _ in range(2):  # stamp, start
        n, at = uv(p, at)
        at += n
    _, at = uv(p, at)  # wall
    for _ in range(6):  # program, command, host, mpi, its version, settings
        n, at = uv(p, at)
        at += n
    _, at = uv(p, at)  # flags
    timing, end = uv(p, at)
    if timing != 3:
        sys.exit("spillmod.py: HEAD's per-call timing is %d, not 3" % timing)
    return p[:at] + put_uv(2) + p[end:]


def main():
    src, dst, what = sys.argv[1:4]
    data = open(src, "rb").read()
    out = bytearray(data[:8])
    at, done = 8, False
    while at + 8 <= len(data):
        t, n = struct.unpack_from("<II", data, at)
        p = bytearray(data[at + 8:at + 8 + n])
        at += 8 + n + 8
        if t == 6 and not done and what == "stats-total":
            p, done = stats_total(p), True
        if t == 1 and not done and what == "head-timing":
            p, done = head_timing(p), True
        head = struct.pack("<II", t, len(p))
        out += head + p + struct.pack("<Q", fnv(head + bytes(p)))
    if not done:
        sys.exit("spillmod.py: nothing to change in " + src)
    open(dst, "wb").write(out)


main()
