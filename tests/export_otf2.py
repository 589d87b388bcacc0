#!/usr/bin/python3
"""export_otf2.py ANCHOR [COLLECTIVES] - reads an OTF2 archive with OTF2's
own Python reader (Debian's python3-otf2, for /usr/bin/python3), checks it
event by event, and prints the summary every export checker prints, so
that a test can compare the formats with each other and with rondo.

Checks, stopping at the first violation with exit 1 and one line on
stderr:
  - every location is a rank ("MPI Rank N") with a Master thread;
  - on each location, times never decrease, and Enter/Leave pairs nest
    and name the same region;
  - every message record lies inside a region of role point-to-point
    (or the Wait/Test family, for completions), and a collective record
    inside a collective region;
  - sends and receives matched here, independently of rondo: the k-th
    send and the k-th receive of each (communicator, sender, receiver,
    tag), peers mapped from communicator ranks to world ranks through
    the communicator's group; a matched pair has equal lengths;
  - every nonblocking request posted is completed at most once, and
    MpiIsendComplete / MpiIrecv name a request the location posted;
  - communicators: a group per communicator, the world's holding every
    rank in order.

Summary on stdout, sorted as strings (C locale), then the total:
  slice RANK FUNCTION COUNT
  flow SRC_RANK SRC_FUNCTION DST_RANK DST_FUNCTION COUNT  (matched pairs)
  total SLICES FLOWS
With COLLECTIVES (a file name), also writes there one line per distinct
collective record, sorted:
  RANK FUNCTION OP COMM ROOT SENT RECEIVED COUNT
and prints "unmatched SENDS RECEIVES" on stderr.
"""
import collections
import sys

import otf2
from otf2.definitions import InterComm
from otf2.enums import RegionRole
from otf2.events import (Enter, Leave, MpiCollectiveBegin, MpiCollectiveEnd,
                         MpiIrecv, MpiIrecvRequest, MpiIsend,
                         MpiIsendComplete, MpiRecv, MpiRequestCancelled,
                         MpiSend)


class Violation(Exception):
    pass


# python3-otf2 3.0.2 gives InterComm the fields of Comm before its own
# (name, group, parent, flags, groupA, ...), so it reads groupB as a
# parent communicator and fails on an archive with an intercommunicator:
# keep the name and its own four.
_f = InterComm._fields
if len(_f) == 8 and [f.name for f in _f[4:6]] == ['groupA', 'groupB']:
    InterComm._fields = (_f[0],) + tuple(_f[4:])


def field(name):
    if name == '':
        return '""'
    return name.encode('unicode_escape').decode('ascii').replace(' ', '\\x20')


def rank_of(location):
    name = location.group.name
    if not name.startswith('MPI Rank '):
        raise Violation('location group %r is not a rank' % name)
    return int(name[len('MPI Rank '):])


P2P = (RegionRole.POINT2POINT, RegionRole.FUNCTION)
COLL = (RegionRole.BARRIER, RegionRole.COLL_ONE2ALL, RegionRole.COLL_ALL2ONE,
        RegionRole.COLL_ALL2ALL, RegionRole.COLL_OTHER)


def world(comm, rank, caller):
    """World rank of rank `rank` of communicator comm, as world rank
    `caller` names it: of the other group, for an intercommunicator."""
    if isinstance(comm, InterComm):
        a = [rank_of(m) for m in comm.groupA.members]
        members = comm.groupB.members if caller in a else comm.groupA.members
    else:
        members = comm.group.members
    if rank >= len(members):
        raise Violation('rank %d beyond communicator %s (%d members)'
                        % (rank, comm.name, len(members)))
    return rank_of(members[rank])


def check(anchor, coll_out):
    slices = collections.Counter()
    colls = collections.Counter()
    sends = collections.defaultdict(list)  # channel -> [(rank, func, len)]
    recvs = collections.defaultdict(list)
    with otf2.reader.open(anchor) as tr:
        defs = tr.definitions
        for comm in defs.comms:
            if isinstance(comm, InterComm):
                continue
            if comm.name == 'MPI_COMM_WORLD':
                ranks = [rank_of(m) for m in comm.group.members]
                if ranks != sorted(ranks) or ranks != list(range(len(ranks))):
                    raise Violation('MPI_COMM_WORLD members %r' % ranks[:8])
        stack = collections.defaultdict(list)
        last = {}
        posted = collections.defaultdict(set)
        for loc, ev in tr.events:
            r = rank_of(loc)
            if ev.time < last.get(r, 0):
                raise Violation('rank %d: time %d after %d' % (r, ev.time,
                                                               last[r]))
            last[r] = ev.time
            if isinstance(ev, Enter):
                stack[r].append(ev.region)
                continue
            if isinstance(ev, Leave):
                if not stack[r] or stack[r][-1] != ev.region:
                    raise Violation('rank %d: leave %s unmatched'
                                    % (r, ev.region.name))
                stack[r].pop()
                slices[(r, ev.region.name)] += 1
                continue
            if not stack[r]:
                raise Violation('rank %d: %s outside a region'
                                % (r, type(ev).__name__))
            reg = stack[r][-1]
            if isinstance(ev, (MpiCollectiveBegin, MpiCollectiveEnd)):
                if reg.region_role not in COLL:
                    raise Violation('rank %d: collective in %s' % (r, reg.name))
                if isinstance(ev, MpiCollectiveEnd):
                    root = ('-' if ev.root == 0xffffffff
                            else str(world(ev.communicator, ev.root, r)))
                    colls[(r, reg.name, str(ev.collective_op).split('.')[-1],
                           ev.communicator.name, root, ev.size_sent,
                           ev.size_received)] += 1
                continue
            if reg.region_role not in P2P:
                raise Violation('rank %d: %s in %s' % (r, type(ev).__name__,
                                                       reg.name))
            if isinstance(ev, (MpiIsend, MpiIrecvRequest)):
                if ev.request_id in posted[r]:
                    raise Violation('rank %d: request %d posted twice'
                                    % (r, ev.request_id))
                posted[r].add(ev.request_id)
            if isinstance(ev, (MpiIsendComplete, MpiIrecv,
                               MpiRequestCancelled)):
                if ev.request_id not in posted[r]:
                    raise Violation('rank %d: request %d completed, not '
                                    'posted' % (r, ev.request_id))
                posted[r].discard(ev.request_id)
            if isinstance(ev, (MpiSend, MpiIsend)):
                dst = world(ev.communicator, ev.receiver, r)
                key = (ev.communicator.name, r, dst, ev.msg_tag)
                sends[key].append((r, reg.name, ev.msg_length))
            elif isinstance(ev, (MpiRecv, MpiIrecv)):
                src = world(ev.communicator, ev.sender, r)
                key = (ev.communicator.name, src, r, ev.msg_tag)
                recvs[key].append((r, reg.name, ev.msg_length))
        for r, s in stack.items():
            if s:
                raise Violation('rank %d: %d regions left open' % (r, len(s)))
    flows = collections.Counter()
    unmatched = [0, 0]
    for key in set(sends) | set(recvs):
        s, v = sends.get(key, []), recvs.get(key, [])
        for (sr, sf, sl), (rr, rf, rl) in zip(s, v):
            if sl != rl:
                raise Violation('channel %r: sent %d bytes, received %d'
                                % (key, sl, rl))
            flows[(sr, sf, rr, rf)] += 1
        unmatched[0] += max(0, len(s) - len(v))
        unmatched[1] += max(0, len(v) - len(s))
    lines = ['slice %d %s %d' % (r, field(f), n)
             for (r, f), n in slices.items()]
    lines += ['flow %d %s %d %s %d' % (a, field(b), c, field(d), n)
              for (a, b, c, d), n in flows.items()]
    for line in sorted(lines):
        print(line)
    print('total %d %d' % (sum(slices.values()), sum(flows.values())))
    print('unmatched %d %d' % tuple(unmatched), file=sys.stderr)
    if coll_out:
        with open(coll_out, 'w') as f:
            for k, n in sorted(colls.items()):
                f.write('%d %s %s %s %s %d %d %d\n' % (k + (n,)))


def main(argv):
    if len(argv) not in (2, 3):
        print('usage: export_otf2.py ANCHOR [COLLECTIVES]', file=sys.stderr)
        return 2
    try:
        check(argv[1], argv[2] if len(argv) == 3 else None)
    except Violation as e:
        print('export_otf2.py: %s: %s' % (argv[1], e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
