#!/usr/bin/env python3
"""export_chrome.py FILE - checks a Chrome JSON trace (Trace Event Format,
as `rondo export --chrome` writes it) and prints what it holds, in the
summary every export checker prints, so that a test can compare formats.

Checks, stopping at the first violation with exit 1 and one line on stderr:
  - valid JSON: an object with a traceEvents list;
  - every complete event ("X") has a name, integer pid and tid, a numeric
    ts and a numeric dur >= 0;
  - the slices of one pid/tid nest or follow each other, never overlap
    in part (they are MPI calls, one after the other);
  - every flow id has exactly one "s" and one "f";
  - each "s", and each "f" with "bp":"e", lies strictly inside a slice of
    its pid/tid (start < ts < start + dur): the slice the flow binds to
    (the innermost one); an "f" without it binds to the next slice that
    starts at or after it, which must exist.

Summary on stdout, the slice and flow lines sorted as strings (C locale),
then the total:
  slice RANK FUNCTION COUNT                              X events by pid, name
  flow SRC_RANK SRC_FUNCTION DST_RANK DST_FUNCTION COUNT flows by the
                                                         slices they bind
  total SLICES FLOWS
A name is printed with Python's unicode_escape and spaces as \\x20, so
that it stays one field ("" when empty); times are read exactly (decimal).
"""
import bisect
import collections
import decimal
import json
import sys


class Violation(Exception):
    pass


def number(v):
    return isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool)


def integer(v):
    return isinstance(v, int) and not isinstance(v, bool)


def field(name):
    if name == '':
        return '""'
    return name.encode('unicode_escape').decode('ascii').replace(' ', '\\x20')


def where(i, e):
    return 'event %d (ph %r, pid %r, ts %s)' % (i, e.get('ph'), e.get('pid'),
                                                e.get('ts'))


def no_constant(c):
    raise ValueError('%s is not JSON' % c)


def load(path):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise Violation('cannot read: %s' % e.strerror)
    try:
        top = json.loads(data.decode('utf-8'), parse_float=decimal.Decimal,
                         parse_constant=no_constant)
    except UnicodeDecodeError as e:
        raise Violation('not UTF-8 at byte %d' % e.start)
    except ValueError as e:
        raise Violation('not JSON: %s' % e)
    if not isinstance(top, dict) or not isinstance(top.get('traceEvents'),
                                                   list):
        raise Violation('not an object with a traceEvents list')
    return top['traceEvents']


class Thread:
    """The slices of one pid/tid, sorted, with each one's parent."""

    def __init__(self, key, slices):
        # parents before their children: by start, then longest first
        slices.sort(key=lambda s: (s[0], -s[1]))
        self.slices = slices
        self.starts = [s[0] for s in slices]
        self.parent = [None] * len(slices)
        stack = []
        for k, (start, end, name, i) in enumerate(slices):
            while stack and slices[stack[-1]][1] <= start:
                stack.pop()
            if stack and end > slices[stack[-1]][1]:
                o = slices[stack[-1]]
                raise Violation(
                    'pid %r tid %r: slice %r [%s, %s] overlaps %r [%s, %s] '
                    'in part' % (key[0], key[1], name, start, end, o[2], o[0],
                                 o[1]))
            self.parent[k] = stack[-1] if stack else None
            stack.append(k)

    def enclosing(self, ts):
        """The innermost slice with start < ts < end, or None."""
        k = bisect.bisect_left(self.starts, ts) - 1
        # every slice holding ts holds the last one to start before it
        while k is not None and k >= 0 and self.slices[k][1] <= ts:
            k = self.parent[k]
        return None if k is None or k < 0 else self.slices[k]

    def next(self, ts):
        """The first slice that starts at or after ts, or None."""
        k = bisect.bisect_left(self.starts, ts)
        return self.slices[k] if k < len(self.slices) else None


def check_x(i, e):
    if not isinstance(e.get('name'), str):
        raise Violation('%s: X event without a name' % where(i, e))
    if not integer(e.get('pid')) or not integer(e.get('tid')):
        raise Violation('%s: X event without integer pid and tid' %
                        where(i, e))
    if not number(e.get('ts')):
        raise Violation('%s: X event without a numeric ts' % where(i, e))
    if not number(e.get('dur')) or e['dur'] < 0:
        raise Violation('%s: X event without a numeric dur >= 0' %
                        where(i, e))


def check_flow(i, e):
    if not integer(e.get('pid')) or not integer(e.get('tid')):
        raise Violation('%s: flow event without integer pid and tid' %
                        where(i, e))
    if not number(e.get('ts')):
        raise Violation('%s: flow event without a numeric ts' % where(i, e))
    fid = e.get('id')
    if not (integer(fid) or isinstance(fid, str)):
        raise Violation('%s: flow event without an id' % where(i, e))
    return (type(fid).__name__, fid)


def split(events):
    """Slices by pid/tid, and each flow id's starts and ends."""
    slices = collections.defaultdict(list)
    flows = collections.defaultdict(lambda: ([], []))
    for i, e in enumerate(events):
        if not isinstance(e, dict) or not isinstance(e.get('ph'), str):
            raise Violation('event %d is not an object with a ph' % i)
        if e['ph'] == 'X':
            check_x(i, e)
            slices[(e['pid'], e['tid'])].append(
                (e['ts'], e['ts'] + e['dur'], e['name'], i))
        elif e['ph'] in ('s', 'f'):
            key = check_flow(i, e)
            flows[key][0 if e['ph'] == 's' else 1].append((i, e))
    return slices, flows


def bind(threads, i, e):
    """The slice flow event e binds to."""
    t = threads.get((e['pid'], e['tid']))
    if e['ph'] == 'f' and e.get('bp') != 'e':
        s = t.next(e['ts']) if t else None
        if s is None:
            raise Violation('%s: no slice starts at or after this flow end' %
                            where(i, e))
        return s
    s = t.enclosing(e['ts']) if t else None
    if s is None:
        raise Violation('%s: flow %s lies strictly inside no slice of its '
                        'pid/tid' % (where(i, e), 'start' if e['ph'] == 's'
                                     else 'end'))
    return s


def summary(events):
    slices, flows = split(events)
    threads = {k: Thread(k, v) for k, v in slices.items()}
    lines = []
    count = collections.Counter()
    for (pid, tid), v in slices.items():
        for s in v:
            count[(pid, s[2])] += 1
    for (pid, name), n in count.items():
        lines.append('slice %d %s %d' % (pid, field(name), n))
    arrows = collections.Counter()
    for key, (starts, ends) in flows.items():
        if len(starts) != 1 or len(ends) != 1:
            raise Violation('flow id %r has %d "s" and %d "f" events' %
                            (key[1], len(starts), len(ends)))
        src, dst = bind(threads, *starts[0]), bind(threads, *ends[0])
        arrows[(starts[0][1]['pid'], src[2], ends[0][1]['pid'],
                dst[2])] += 1
    for (sp, sn, dp, dn), n in arrows.items():
        lines.append('flow %d %s %d %s %d' % (sp, field(sn), dp, field(dn),
                                              n))
    lines.sort()
    nslices = sum(len(v) for v in slices.values())
    lines.append('total %d %d' % (nslices, len(flows)))
    return lines


def main(argv):
    if len(argv) != 2:
        sys.stderr.write('usage: export_chrome.py FILE\n')
        return 2
    try:
        lines = summary(load(argv[1]))
    except Violation as v:
        sys.stderr.write('export_chrome.py: %s: %s\n' % (argv[1], v))
        return 1
    sys.stdout.write(''.join(l + '\n' for l in lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
