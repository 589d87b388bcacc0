#!/usr/bin/env python3
"""export_perfetto.py FILE - checks a Perfetto protobuf trace as `rondo export
--perfetto` writes it, and prints what it holds in the form every export
checker prints, so that the formats can be compared with each other and with
rondo's own counts.

The protobuf is decoded here (the standard library only: neither the perfetto
package nor python3-protobuf is needed), with the field numbers of
export/perfetto.c.  Checked, as trace_processor reads it:
  - every packet decodes (lengths, varints, wire types);
  - interned names (events, categories, annotation names) are defined on
    their sequence, after a packet that cleared its state, before use;
  - every track event names a track described before it, named "rank N";
  - on each track, timestamps do not decrease and slices nest: every END
    closes a BEGIN, and every BEGIN is closed;
  - every flow id is started exactly once and terminated exactly once
    (flow_ids and terminating_flow_ids, fixed64 and not packed: the
    encoding trace_processor reads).  A flow on an END event belongs to the
    slice it ends.
The first violation exits 1 with a one-line reason on stderr.  Flows that
end before they start (trace_processor drops them) are counted on stderr,
not failed: with synthetic times, or clocks apart, they happen.

Printed on stdout as export_chrome.py prints it: the slice and flow lines
sorted as strings (C locale), then the total; a name with Python's
unicode_escape and spaces as \\x20, so that it stays one field ("" when
empty):
  slice RANK FUNCTION COUNT                      slices by rank, name
  flow SRC_RANK SRC_FUNCTION DST_RANK DST_FUNCTION COUNT
                                                 flows by the slices they bind
  total SLICES FLOWS
"""
import re
import sys
from collections import Counter, defaultdict

# Field numbers (export/perfetto.c cites the .proto files).
TRACE_PACKET = 1
PKT_TIMESTAMP, PKT_SEQ, PKT_EVENT, PKT_INTERNED, PKT_FLAGS = 8, 10, 11, 12, 13
PKT_CLEARED_OLD, PKT_DEFAULTS, PKT_DESCRIPTOR = 41, 59, 60
SEQ_CLEARED = 1
TD_UUID, TD_NAME, TD_PARENT = 1, 2, 5
TE_CATEGORY_IIDS, TE_ANNOTATIONS, TE_TYPE, TE_NAME_IID = 3, 4, 9, 10
TE_TRACK, TE_CATEGORY, TE_NAME = 11, 22, 23
TE_FLOWS_OLD, TE_TFLOWS_OLD, TE_FLOWS, TE_TFLOWS = 36, 42, 47, 48
ID_CATEGORIES, ID_EVENT_NAMES, ID_ANNOTATION_NAMES = 1, 2, 3
DA_NAME_IID = 1
SLICE_BEGIN, SLICE_END, INSTANT = 1, 2, 3
VARINT, FIXED64, LEN, FIXED32 = 0, 1, 2, 5


class Bad(Exception):
    pass


def varint(b, at, end):
    v = shift = 0
    while True:
        if at >= end:
            raise Bad("varint cut at the end of its message")
        c = b[at]
        at += 1
        v |= (c & 0x7f) << shift
        if c < 0x80:
            return v & 0xffffffffffffffff, at
        shift += 7
        if shift >= 70:
            raise Bad("varint longer than 10 bytes")


def fields(b):
    """(field, wire type, value) of message b: an int, or a memoryview for a
    length-delimited field."""
    at, end = 0, len(b)
    while at < end:
        key, at = varint(b, at, end)
        f, w = key >> 3, key & 7
        if f == 0:
            raise Bad("field number 0")
        if w == VARINT:
            v, at = varint(b, at, end)
        elif w in (FIXED64, FIXED32):
            k = 8 if w == FIXED64 else 4
            if at + k > end:
                raise Bad("field %d cut at the end of its message" % f)
            v = int.from_bytes(b[at:at + k], "little")
            at += k
        elif w == LEN:
            n, at = varint(b, at, end)
            if n > end - at:
                raise Bad("field %d of %d bytes past the end of its "
                          "message" % (f, n))
            v = b[at:at + n]
            at += n
        else:
            raise Bad("field %d has wire type %d" % (f, w))
        yield f, w, v


def want(what, f, w, wire):
    if w != wire:
        raise Bad("%s: field %d has wire type %d, not %d" % (what, f, w, wire))


def text(v, what):
    try:
        return bytes(v).decode("utf-8")
    except UnicodeDecodeError:
        raise Bad("%s is not UTF-8" % what)


class Sequence:
    def __init__(self):
        self.valid = False
        self.tables = {ID_CATEGORIES: {}, ID_EVENT_NAMES: {},
                       ID_ANNOTATION_NAMES: {}}


class Checker:
    def __init__(self):
        self.seqs = defaultdict(Sequence)
        self.tracks = {}  # uuid: name
        self.stacks = defaultdict(list)  # uuid: open slices
        self.last_ts = {}
        self.slices = []  # (rank, function)
        self.starts = defaultdict(list)  # flow id: [(slice, ts)]
        self.ends = defaultdict(list)

    def packet(self, p):
        ts, seq, flags, event, interned, desc = None, 0, 0, None, None, None
        for f, w, v in fields(p):
            if f in (PKT_TIMESTAMP, PKT_SEQ, PKT_FLAGS, PKT_CLEARED_OLD):
                want("packet", f, w, VARINT)
            elif f in (PKT_EVENT, PKT_INTERNED, PKT_DESCRIPTOR):
                want("packet", f, w, LEN)
            if f == PKT_TIMESTAMP:
                ts = v
            elif f == PKT_SEQ:
                seq = v
            elif f == PKT_FLAGS:
                flags |= v
            elif f == PKT_CLEARED_OLD and v:
                flags |= SEQ_CLEARED
            elif f == PKT_EVENT:
                event = v
            elif f == PKT_INTERNED:
                interned = v
            elif f == PKT_DESCRIPTOR:
                desc = v
            elif f == PKT_DEFAULTS:
                raise Bad("trace_packet_defaults, which this checker "
                          "does not follow")
        if flags & SEQ_CLEARED:
            if seq == 0:
                raise Bad("a packet without a sequence clears its state")
            self.seqs[seq] = Sequence()
            self.seqs[seq].valid = True
        if interned is not None:
            self.intern(seq, interned)
        if desc is not None:
            self.descriptor(desc)
        if event is not None:
            if ts is None:
                raise Bad("a track event without a timestamp")
            self.event(seq, ts, event)

    def state(self, seq):
        s = self.seqs.get(seq)
        if seq == 0 or s is None or not s.valid:
            raise Bad("interned data on sequence %d, whose state no packet "
                      "cleared" % seq)
        return s

    def intern(self, seq, data):
        s = self.state(seq)
        for f, w, v in fields(data):
            if f not in s.tables:
                continue
            want("interned data", f, w, LEN)
            iid, name = None, None
            for g, x, u in fields(v):
                if g == 1:
                    want("interned entry", g, x, VARINT)
                    iid = u
                elif g == 2:
                    want("interned entry", g, x, LEN)
                    name = text(u, "an interned name")
            if not iid or name is None:
                raise Bad("interned entry without iid or name (field %d)" % f)
            old = s.tables[f].get(iid)
            if old is not None and old != name:
                raise Bad("iid %d of field %d on sequence %d redefined: %r "
                          "then %r" % (iid, f, seq, old, name))
            s.tables[f][iid] = name

    def descriptor(self, desc):
        uuid, name, parent = None, None, None
        for f, w, v in fields(desc):
            if f in (TD_UUID, TD_PARENT):
                want("track descriptor", f, w, VARINT)
            if f == TD_UUID:
                uuid = v
            elif f == TD_PARENT:
                parent = v
            elif f == TD_NAME:
                want("track descriptor", f, w, LEN)
                name = text(v, "a track name")
        if not uuid:
            raise Bad("a track descriptor without uuid")
        if parent is not None and parent not in self.tracks:
            raise Bad("track %r has the parent %d, not described before" %
                      (name, parent))
        old = self.tracks.get(uuid)
        if old is not None and old != name:
            raise Bad("track %d described as %r then %r" % (uuid, old, name))
        self.tracks[uuid] = name

    def lookup(self, seq, table, iid, what):
        name = self.state(seq).tables[table].get(iid)
        if name is None:
            raise Bad("%s iid %d used on sequence %d before it is defined" %
                      (what, iid, seq))
        return name

    def annotation(self, seq, a):
        for f, w, v in fields(a):
            if f == DA_NAME_IID:
                want("debug annotation", f, w, VARINT)
                self.lookup(seq, ID_ANNOTATION_NAMES, v, "annotation name")

    def event(self, seq, ts, event):
        e = {"type": None, "track": None, "name": None, "flows": [],
             "tflows": []}
        for f, w, v in fields(event):
            self.event_field(seq, e, f, w, v)
        track = e["track"]
        if track is None:
            raise Bad("a track event without track_uuid")
        if track not in self.tracks:
            raise Bad("an event on track %d, not described before" % track)
        m = re.fullmatch(r"rank (\d+)", self.tracks[track] or "")
        if not m:
            raise Bad("an event on track %r, not named \"rank N\"" %
                      self.tracks[track])
        if ts < self.last_ts.get(track, 0):
            raise Bad("on %s, time goes back from %d to %d" %
                      (self.tracks[track], self.last_ts[track], ts))
        self.last_ts[track] = ts
        stack = self.stacks[track]
        if e["type"] in (SLICE_BEGIN, INSTANT):
            if e["name"] is None:
                raise Bad("a slice without a name on %s" % self.tracks[track])
            self.slices.append((int(m.group(1)), e["name"]))
            slice_id = len(self.slices) - 1
            if e["type"] == SLICE_BEGIN:
                stack.append(slice_id)
        elif e["type"] == SLICE_END:
            if not stack:
                raise Bad("an END without BEGIN on %s at %d" %
                          (self.tracks[track], ts))
            slice_id = stack.pop()
        else:
            raise Bad("a track event of type %s" % e["type"])
        for flow in e["flows"]:
            self.starts[flow].append((slice_id, ts))
        for flow in e["tflows"]:
            self.ends[flow].append((slice_id, ts))

    def event_field(self, seq, e, f, w, v):
        if f in (TE_TYPE, TE_TRACK, TE_NAME_IID, TE_CATEGORY_IIDS,
                 TE_FLOWS_OLD, TE_TFLOWS_OLD):
            want("track event", f, w, VARINT)
        elif f in (TE_FLOWS, TE_TFLOWS):
            # proto2 repeated fixed64, not packed: trace_processor's
            # decoder reads nothing else
            want("track event", f, w, FIXED64)
        elif f in (TE_ANNOTATIONS, TE_NAME, TE_CATEGORY):
            want("track event", f, w, LEN)
        if f == TE_TYPE:
            e["type"] = v
        elif f == TE_TRACK:
            e["track"] = v
        elif f == TE_NAME_IID:
            e["name"] = self.lookup(seq, ID_EVENT_NAMES, v, "event name")
        elif f == TE_NAME:
            e["name"] = text(v, "an event name")
        elif f == TE_CATEGORY_IIDS:
            self.lookup(seq, ID_CATEGORIES, v, "category")
        elif f == TE_ANNOTATIONS:
            self.annotation(seq, v)
        elif f in (TE_FLOWS, TE_FLOWS_OLD):
            e["flows"].append(v)
        elif f in (TE_TFLOWS, TE_TFLOWS_OLD):
            e["tflows"].append(v)

    def finish(self):
        for track, stack in self.stacks.items():
            if stack:
                raise Bad("%d slices on %s never end" %
                          (len(stack), self.tracks[track]))
        counts = Counter()
        for flow in set(self.starts) | set(self.ends):
            s, t = len(self.starts[flow]), len(self.ends[flow])
            counts["started but never terminated"] += s > 0 and t == 0
            counts["terminated but never started"] += t > 0 and s == 0
            counts["started more than once"] += s > 1
            counts["terminated more than once"] += t > 1
        bad = ["%d %s" % (n, what) for what, n in sorted(counts.items()) if n]
        if bad:
            raise Bad("flows: " + ", ".join(bad))


def field(name):
    if name == "":
        return '""'
    name = name.encode("unicode_escape").decode("ascii")
    return name.replace(" ", "\\x20")


def summary(c):
    lines, flows, back = [], Counter(), 0
    for flow, [(src, ts)] in c.starts.items():
        [(dst, te)] = c.ends[flow]
        flows[c.slices[src] + c.slices[dst]] += 1
        back += te < ts
    if back:
        print("export_perfetto.py: note: %d flows end before they start "
              "(trace_processor drops them)" % back, file=sys.stderr)
    for (rank, func), n in Counter(c.slices).items():
        lines.append("slice %d %s %d" % (rank, field(func), n))
    for (sr, sf, dr, df), n in flows.items():
        lines.append("flow %d %s %d %s %d" % (sr, field(sf), dr, field(df),
                                              n))
    lines.sort()
    lines.append("total %d %d" % (len(c.slices), sum(flows.values())))
    sys.stdout.write("".join(line + "\n" for line in lines))


def main():
    if len(sys.argv) != 2:
        print("usage: export_perfetto.py FILE", file=sys.stderr)
        return 2
    path = sys.argv[1]
    try:
        data = memoryview(open(path, "rb").read())
    except OSError as e:
        print("export_perfetto.py: %s: %s" % (path, e.strerror),
              file=sys.stderr)
        return 1
    c, k = Checker(), 1  # the packet being read, 0 past the last
    try:
        for f, w, v in fields(data):
            if f != TRACE_PACKET:
                raise Bad("field %d in the Trace, which holds packets only" %
                          f)
            want("trace", f, w, LEN)
            c.packet(v)
            k += 1
        k = 0
        if not c.tracks:
            raise Bad("no track described: not an export of rondo's")
        c.finish()
    except Bad as e:
        where = "packet %d: " % k if k else ""
        print("export_perfetto.py: %s: %s%s" % (path, where, e),
              file=sys.stderr)
        return 1
    summary(c)
    return 0


if __name__ == "__main__":
    sys.exit(main())
