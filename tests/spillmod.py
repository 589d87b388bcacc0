#!/usr/bin/env python3
"""spillmod.py IN OUT WHAT - a copy of a spill or after file (tracer/spill_fmt.h)
with one value changed and the records' checks made again, so that a reader
takes it as intact: the tests' way to hand `rondo recover` values that are
well formed but do not hold.

WHAT: stats-total  the first STATS entry's total set past count times max.
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
        head = struct.pack("<II", t, len(p))
        out += head + p + struct.pack("<Q", fnv(head + bytes(p)))
    if not done:
        sys.exit("spillmod.py: nothing to change in " + src)
    open(dst, "wb").write(out)


main()
