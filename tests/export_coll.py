#!/usr/bin/env python3
"""export_coll.py DUMP RANKS - what the OTF2 export must say of each
blocking collective on MPI_COMM_WORLD in `rondo dump` output DUMP (a job
of RANKS ranks), by Score-P's conventions for the bytes a collective
sends and receives, computed here from the arguments as dump prints them
(independently of rondo's C code), one line per distinct record, sorted:
  RANK FUNCTION OP COMM ROOT SENT RECEIVED COUNT
as tests/export_otf2.py writes them from the archive.  Calls with a
datatype not in the table below are left out (and counted on stderr).

Score-P's conventions (scorep_mpi_coll_bytes_* and their unit tests), c
a rank's count times its datatype's size, N the ranks, me the caller:
Bcast: root sends N*c, all receive c; Gather(v): all send c, the root
receives N*c (the sum); Scatter(v): the root sends N*c (the sum), all
receive c; Reduce: all send c, the root receives N*c; Allgather(v),
Alltoall(v,w), Allreduce, Reduce_scatter_block: N*c (sums) each way;
Reduce_scatter: sends the sum, receives N*recvcounts[me]; Scan: sends
(N-me)*c, receives (me+1)*c, Exscan one share less each way.  In place,
a rank's own share is left out.
"""
import collections
import re
import sys

SIZES = {'MPI_INT': 4, 'MPI_DOUBLE': 8, 'MPI_CHAR': 1, 'MPI_BYTE': 1,
         'MPI_FLOAT': 4, 'MPI_LONG': 8, 'MPI_UNSIGNED': 4,
         'MPI_LONG_LONG': 8, 'MPI_SHORT': 2}
OPS = {'MPI_Barrier': 'BARRIER', 'MPI_Bcast': 'BCAST',
       'MPI_Gather': 'GATHER', 'MPI_Gatherv': 'GATHERV',
       'MPI_Scatter': 'SCATTER', 'MPI_Scatterv': 'SCATTERV',
       'MPI_Allgather': 'ALLGATHER', 'MPI_Allgatherv': 'ALLGATHERV',
       'MPI_Alltoall': 'ALLTOALL', 'MPI_Alltoallv': 'ALLTOALLV',
       'MPI_Alltoallw': 'ALLTOALLW', 'MPI_Allreduce': 'ALLREDUCE',
       'MPI_Reduce': 'REDUCE', 'MPI_Reduce_scatter': 'REDUCE_SCATTER',
       'MPI_Scan': 'SCAN', 'MPI_Exscan': 'EXSCAN',
       'MPI_Reduce_scatter_block': 'REDUCE_SCATTER_BLOCK'}


class Unknown(Exception):
    pass


def split_args(text):
    """key=value pairs at the top level of a call's argument text."""
    out, depth, cur = {}, 0, ''
    for ch in text.replace(' -> ', ', ') + ',':
        if ch in '[{':
            depth += 1
        elif ch in ']}':
            depth -= 1
        if ch == ',' and depth == 0:
            if '=' in cur:
                k, v = cur.strip().split('=', 1)
                out[k] = v
            cur = ''
        else:
            cur += ch
    return out


def ints(v):
    if not v.startswith('['):
        raise Unknown(v)
    return [int(x) for x in v.strip('[]').split(',')]


def size(t):
    if t not in SIZES:
        raise Unknown(t)
    return SIZES[t]


def nbytes(a, count, dtype):
    return int(a[count]) * size(a[dtype])


def expect(f, a, n, me):
    """(root, sent, received) of call f with arguments a."""
    # in place: the send buffer, but a Scatter's root names its receive one
    ip = a.get('recvbuf' if f in ('MPI_Scatter', 'MPI_Scatterv')
               else 'sendbuf') == 'MPI_IN_PLACE'
    root = int(a['root']) if 'root' in a else None
    isroot = root == me
    if f == 'MPI_Barrier':
        return root, 0, 0
    if f == 'MPI_Bcast':
        c = nbytes(a, 'count', 'datatype')
        return root, n * c if isroot else 0, c
    if f == 'MPI_Reduce':
        c = nbytes(a, 'count', 'datatype')
        if not isroot:
            return root, c, 0
        return root, 0 if ip else c, (n - 1 if ip else n) * c
    if f in ('MPI_Gather', 'MPI_Gatherv'):
        s = 0 if isroot and ip else nbytes(a, 'sendcount', 'sendtype')
        if not isroot:
            return root, s, 0
        if f == 'MPI_Gather':
            return root, s, (n - 1 if ip else n) * nbytes(a, 'recvcount',
                                                          'recvtype')
        cs = ints(a['recvcounts'])
        own = cs[me] if ip else 0
        return root, s, (sum(cs) - own) * size(a['recvtype'])
    if f in ('MPI_Scatter', 'MPI_Scatterv'):
        r = 0 if isroot and ip else nbytes(a, 'recvcount', 'recvtype')
        if not isroot:
            return root, 0, r
        if f == 'MPI_Scatter':
            return root, (n - 1 if ip else n) * nbytes(a, 'sendcount',
                                                       'sendtype'), r
        cs = ints(a['sendcounts'])
        own = cs[me] if ip else 0
        return root, (sum(cs) - own) * size(a['sendtype']), r
    m = n - 1 if ip else n
    if f in ('MPI_Allgather', 'MPI_Alltoall'):
        r = m * nbytes(a, 'recvcount', 'recvtype')
        return None, r if ip else n * nbytes(a, 'sendcount', 'sendtype'), r
    if f == 'MPI_Allgatherv':
        cs, t = ints(a['recvcounts']), size(a['recvtype'])
        r = (sum(cs) - (cs[me] if ip else 0)) * t
        return None, ((n - 1) * cs[me] * t if ip else
                      n * nbytes(a, 'sendcount', 'sendtype')), r
    if f == 'MPI_Alltoallv':
        cs, t = ints(a['recvcounts']), size(a['recvtype'])
        r = (sum(cs) - (cs[me] if ip else 0)) * t
        if ip:
            return None, r, r
        return None, sum(ints(a['sendcounts'])) * size(a['sendtype']), r
    if f == 'MPI_Alltoallw':
        rt = [size(x.strip()) for x in a['recvtypes'].strip('[]').split(',')]
        rc = ints(a['recvcounts'])
        r = sum(c * t for k, (c, t) in enumerate(zip(rc, rt))
                if not (ip and k == me))
        if ip:
            return None, r, r
        st = [size(x.strip()) for x in a['sendtypes'].strip('[]').split(',')]
        return None, sum(c * t for c, t in zip(ints(a['sendcounts']), st)), r
    if f == 'MPI_Allreduce':
        c = m * nbytes(a, 'count', 'datatype')
        return None, c, c
    if f == 'MPI_Reduce_scatter_block':
        c = n * nbytes(a, 'recvcount', 'datatype')
        return None, c, c
    if f == 'MPI_Reduce_scatter':
        cs, t = ints(a['recvcounts']), size(a['datatype'])
        return None, sum(cs) * t, n * cs[me] * t
    c = nbytes(a, 'count', 'datatype')  # Scan, Exscan
    ex = f == 'MPI_Exscan'
    return None, (n - me - ex) * c, (me + (not ex)) * c


def main(argv):
    if len(argv) != 3:
        print('usage: export_coll.py DUMP RANKS', file=sys.stderr)
        return 2
    n = int(argv[2])
    call = re.compile(r'^(\d+) \d+ (MPI_\w+)\((.*)\)$')
    lines = collections.Counter()
    skipped = 0
    with open(argv[1]) as f:
        for line in f:
            m = call.match(line.rstrip('\n'))
            if not m or m.group(2) not in OPS:
                continue
            me, fn, a = int(m.group(1)), m.group(2), split_args(m.group(3))
            if a.get('comm') != 'MPI_COMM_WORLD':
                continue
            try:
                root, sent, recv = expect(fn, a, n, me)
            except (Unknown, KeyError, ValueError, IndexError):
                skipped += 1
                continue
            lines[(me, fn, OPS[fn], 'MPI_COMM_WORLD',
                   '-' if root is None else str(root), sent, recv)] += 1
    for k, c in sorted(lines.items()):
        print('%d %s %s %s %s %d %d %d' % (k + (c,)))
    print('export_coll.py: %d calls, %d left out' % (sum(lines.values()),
                                                     skipped),
          file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
