#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""sysattr.py PERF.DATA LABEL PROG...: are the branch records of a
system-wide recording attributed to the process that made them?

Reads the perf.data the guest's `perf record -a -b` wrote (the host's perf
cannot read it) and builds each process's executable mappings from the
recording's own MMAP2 events: a FORK copies the parent's, an exec (COMM
with PERF_RECORD_MISC_COMM_EXEC) drops them. Every record of every sample
of a process with known mappings must have each end in one of them, in
the kernel (the upper half of the address space) or 0. Prints one line
"PASS|FAIL LABEL: what" per check: that, and that each PROG (a path's
basename, as in the MMAP2 events) got samples whose records were all
checked.
"""
import collections
import struct
import sys

PERF_RECORD_MMAP2 = 10
PERF_RECORD_COMM = 3
PERF_RECORD_FORK = 7
PERF_RECORD_SAMPLE = 9
MISC_COMM_EXEC = 1 << 13
PROT_EXEC = 4

S_IP, S_TID, S_TIME, S_ADDR, S_READ, S_CALLCHAIN, S_ID, S_CPU, S_PERIOD = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8)
S_STREAM_ID, S_RAW, S_BRANCH_STACK, S_IDENTIFIER = (
    1 << 9, 1 << 10, 1 << 11, 1 << 16)
B_HW_INDEX = 1 << 17
SUPPORTED = (S_IP | S_TID | S_TIME | S_ADDR | S_CALLCHAIN | S_ID | S_CPU |
             S_PERIOD | S_STREAM_ID | S_RAW | S_BRANCH_STACK | S_IDENTIFIER)


class BadFile(Exception):
    pass


def read_attrs(buf):
    """The events' (sample_type, branch_sample_type) by sample id."""
    magic, hsize, attr_size = struct.unpack_from('<8sQQ', buf, 0)
    if magic != b'PERFILE2':
        raise BadFile('not a perf.data file (magic %r)' % magic)
    a_off, a_size, d_off, d_size = struct.unpack_from('<QQQQ', buf, 24)
    events, default = {}, None
    for off in range(a_off, a_off + a_size, attr_size):
        sample_type, = struct.unpack_from('<Q', buf, off + 24)
        bst, = struct.unpack_from('<Q', buf, off + 72)
        ids_off, ids_size = struct.unpack_from('<QQ', buf,
                                               off + attr_size - 16)
        ev = (sample_type, bst)
        default = default or ev
        for i in range(ids_off, ids_off + ids_size, 8):
            events[struct.unpack_from('<Q', buf, i)[0]] = ev
    if default is None:
        raise BadFile('no event attributes')
    return events, default, d_off, d_size


def parse_sample(buf, off, end, events, default):
    """(pid, [(from, to)...]) of the sample at off, or None."""
    p = off
    ev = default
    first = default[0]
    if first & S_IDENTIFIER:
        ev = events.get(struct.unpack_from('<Q', buf, p)[0], default)
        p += 8
    st, bst = ev
    if st & ~SUPPORTED:
        raise BadFile('sample_type %#x at offset %d not parsed' % (st, off))
    pid = None
    for bit in (S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU,
                S_PERIOD):
        if st & bit:
            if bit == S_TID:
                pid, = struct.unpack_from('<I', buf, p)
            p += 8
    if st & S_CALLCHAIN:
        n, = struct.unpack_from('<Q', buf, p)
        p += 8 + 8 * n
    if st & S_RAW:
        n, = struct.unpack_from('<I', buf, p)
        p += 4 + n
    recs = []
    if st & S_BRANCH_STACK:
        n, = struct.unpack_from('<Q', buf, p)
        p += 8
        if bst & B_HW_INDEX:
            p += 8
        for i in range(n):
            f, t = struct.unpack_from('<QQ', buf, p + 24 * i)
            recs.append((f, t))
        p += 24 * n
    if p > end:
        raise BadFile('sample at offset %d overruns its record' % off)
    return pid, recs


def check(path, label, progs):
    with open(path, 'rb') as f:
        buf = f.read()
    events, default, d_off, d_size = read_attrs(buf)
    maps = collections.defaultdict(list)	# pid -> [(lo, hi, name)]
    known = set()
    pid_prog = {}
    stats = collections.Counter()
    outside = collections.Counter()
    examples = []
    off, end = d_off, d_off + d_size
    while off + 8 <= end:
        rtype, misc, size = struct.unpack_from('<IHH', buf, off)
        if size < 8 or off + size > end:
            raise BadFile('record of size %d at offset %d' % (size, off))
        body = off + 8
        if rtype == PERF_RECORD_MMAP2:
            pid, tid, addr, length = struct.unpack_from('<IIQQ', buf, body)
            prot, = struct.unpack_from('<I', buf, body + 56)
            name = buf[body + 64:off + size].split(b'\0')[0].decode(
                errors='replace')
            if prot & PROT_EXEC:
                maps[pid].append((addr, addr + length, name))
                known.add(pid)
                base = name.rsplit('/', 1)[-1]
                if base in progs:
                    pid_prog[pid] = base
        elif rtype == PERF_RECORD_FORK:
            pid, ppid = struct.unpack_from('<II', buf, body)
            if pid != ppid and ppid in known:
                maps[pid] = list(maps[ppid])
                known.add(pid)
        elif rtype == PERF_RECORD_COMM and misc & MISC_COMM_EXEC:
            pid, = struct.unpack_from('<I', buf, body)
            maps[pid] = []
            known.discard(pid)
            pid_prog.pop(pid, None)
        elif rtype == PERF_RECORD_SAMPLE:
            pid, recs = parse_sample(buf, body, off + size, events, default)
            if pid not in known:
                stats['unjudged'] += 1
            else:
                stats['judged'] += 1
                prog = pid_prog.get(pid)
                if prog:
                    stats['samples of ' + prog] += 1
                for rec in recs:
                    stats['records'] += 1
                    for a in rec:
                        if a == 0 or a >= 1 << 63:
                            continue
                        if any(lo <= a < hi for lo, hi, _ in maps[pid]):
                            continue
                        outside[prog or str(pid)] += 1
                        if len(examples) < 5 and \
                                (off, pid, rec) not in examples:
                            examples.append((off, pid, rec))
                        break
        off += size
    print('# %d samples judged (%d records), %d of processes with no known '
          'mapping' % (stats['judged'], stats['records'], stats['unjudged']))
    for prog in progs:
        print('# %s: %d samples, %d records outside its mappings' %
              (prog, stats['samples of ' + prog], outside[prog]))
    for off, pid, (f, t) in examples:
        print('# offset %d: pid %d record %#x -> %#x outside its mappings' %
              (off, pid, f, t))
    total = sum(outside.values())
    verdict = 'PASS' if total == 0 and stats['records'] else 'FAIL'
    print('%s %s: every record in the sampled process\'s own mappings '
          '(%d outside)' % (verdict, label, total))
    for prog in progs:
        n = stats['samples of ' + prog]
        print('%s %s: samples of %s (%d)' %
              ('PASS' if n else 'FAIL', label, prog, n))


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        check(sys.argv[1], sys.argv[2], sys.argv[3:])
    except (OSError, BadFile, struct.error) as e:
        print('FAIL %s: %s: %s' % (sys.argv[2], sys.argv[1], e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
