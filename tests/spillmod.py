#!/usr/bin/env python3
"""spillmod.py IN OUT WHAT - a copy of a spill or after file (tracer/spill_fmt.h)
with one value changed and the records' checks made again, so that a reader
takes it as intact: the tests' way to hand `rondo recover` values that are
well formed but do not hold.

WHAT: stats-total  the first STATS entry's total set past count times max.
      head-timing  HEAD's per-call timing set to 2, the coding of an older
                   tracer (1.7 and 1.8), whose times recovery leaves out.
      big-code     the first duration code set to 2^31 - 1, past any time
                   scale (its chunk rewritten as raw 32-bit values).
      v1           the file as spill version 1 wrote it: HEAD's version 1,
                   and every chunk of byte planes (coding 2) as zstd of the
                   values in 32 bits (coding 1); fails when there is no
                   chunk of byte planes.  Through libzstd (ctypes).
"""
import ctypes
import ctypes.util
import struct
import sys

zstd = None


def zstd_lib():
    global zstd
    if zstd is None:
        zstd = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
        size = ctypes.c_size_t
        for f in ("ZSTD_compress", "ZSTD_decompress"):
            getattr(zstd, f).restype = size
        zstd.ZSTD_compress.argtypes = [ctypes.c_char_p, size, ctypes.c_char_p,
                                       size, ctypes.c_int]
        zstd.ZSTD_decompress.argtypes = [ctypes.c_char_p, size,
                                         ctypes.c_char_p, size]
        zstd.ZSTD_compressBound.restype = size
        zstd.ZSTD_compressBound.argtypes = [size]
        zstd.ZSTD_isError.argtypes = [size]
    return zstd


def unzstd(b, want):
    z = zstd_lib()
    out = ctypes.create_string_buffer(want + 1)
    n = z.ZSTD_decompress(out, want + 1, bytes(b), len(b))
    if z.ZSTD_isError(n) or n != want:
        sys.exit("spillmod.py: a chunk does not decompress to its values")
    return out.raw[:want]


def tozstd(b):
    z = zstd_lib()
    cap = z.ZSTD_compressBound(len(b))
    out = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(out, cap, bytes(b), len(b), 1)
    if z.ZSTD_isError(n):
        sys.exit("spillmod.py: zstd cannot compress")
    return out.raw[:n]


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


def head_v1(p):
    version, at = uv(p, 0)
    if version != 2:
        sys.exit("spillmod.py: HEAD's version is %d, not 2" % version)
    return put_uv(1) + p[at:]


def chunk_v1(p):
    """A CHUNK of byte planes as zstd of 32-bit values; None for others."""
    _, values, at = chunk_values(p)
    if p[at] != 2:
        return None
    return p[:at] + bytes([1]) + tozstd(values)


def chunk_values(p):
    """A CHUNK's stream, its values (4 bytes each) and where they start."""
    stream, at = uv(p, 0)
    n, at = uv(p, at)
    coding = p[at]
    if coding == 0:
        return stream, bytearray(p[at + 1:]), at
    if coding == 1:
        return stream, bytearray(unzstd(p[at + 1:], 4 * n)), at
    w = p[at + 1]
    planes = unzstd(p[at + 2:], w * n)
    values = bytearray(4 * n)
    for b in range(w):
        values[b::4] = planes[b * n:(b + 1) * n]
    return stream, values, at


def chunk_big_code(p):
    """A CHUNK of durations with its first code past the scale; None for
    other streams."""
    stream, values, at = chunk_values(p)
    if stream != 1 or not values:
        return None
    values[0:4] = struct.pack("<I", 0x7fffffff)
    return p[:at] + bytes([0]) + values


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
        if what == "v1" and t == 1:
            p = head_v1(p)
        if what == "big-code" and t == 7 and not done:
            q = chunk_big_code(p)
            if q is not None:
                p, done = q, True
        if what == "v1" and t == 7:
            q = chunk_v1(p)
            if q is not None:
                p, done = q, True
        head = struct.pack("<II", t, len(p))
        out += head + p + struct.pack("<Q", fnv(head + bytes(p)))
    if not done:
        sys.exit("spillmod.py: nothing to change in " + src)
    open(dst, "wb").write(out)


main()
