#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""attrib.py PERF.DATA GUEST_BIN LABEL PROG...: does perf-ctr aggregate give
each program exactly the samples and branch records of its own processes?

The guest records programs the way users start them (perf record -a -b
beside a shell, wrappers that exec, two static programs linked at the same
address, a PIE whose first sample comes after the shell's). This script is
the oracle: it replays the recording's own COMM, FORK and MMAP2 records and
its samples in time order, keeps each process's executable mappings, and
counts for each PROG the samples whose ip, and the records whose two ends,
lie in a mapping of PROG by the sampled process at that moment. perf-ctr
aggregate --binary GUEST_BIN/PROG -v must report the same two numbers and
write a profile. Prints "PASS|FAIL LABEL: ..." lines.
"""
import collections
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PC = os.environ.get('PERF_CTR', os.path.join(HERE, '..', '..', '..', 'out', 'perf-ctr', 'perf-ctr'))

R_COMM, R_FORK, R_SAMPLE, R_MMAP2 = 3, 7, 9, 10
MISC_COMM_EXEC = 1 << 13
PROT_EXEC = 4
S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU, S_PERIOD = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 9, 1 << 7, 1 << 8)
S_READ, S_CALLCHAIN, S_RAW, S_BRANCH_STACK, S_IDENTIFIER = (
    1 << 4, 1 << 5, 1 << 10, 1 << 11, 1 << 16)
B_HW_INDEX = 1 << 17


def attrs(buf):
    magic, _, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from(
        '<8sQQQQQQ', buf, 0)
    if magic != b'PERFILE2':
        raise ValueError('not a perf.data file')
    evs = {}
    first = None
    for off in range(a_off, a_off + a_size, attr_size):
        st, = struct.unpack_from('<Q', buf, off + 24)
        flags, = struct.unpack_from('<Q', buf, off + 40)
        bst, = struct.unpack_from('<Q', buf, off + 72)
        ev = (st, bst, bool(flags & (1 << 18)))	# sample_id_all
        first = first or ev
        ids_off, ids_size = struct.unpack_from('<QQ', buf,
                                               off + attr_size - 16)
        for i in range(ids_off, ids_off + ids_size, 8):
            evs[struct.unpack_from('<Q', buf, i)[0]] = ev
    return evs, first, d_off, d_size


def trailer_time(buf, off, size, evs, first):
    """The time in a non-sample record's sample id, 0 if none."""
    st, _, sid_all = first
    end = off + size
    if st & S_IDENTIFIER and len(evs) > 1:
        st, _, sid_all = evs.get(struct.unpack_from('<Q', buf, end - 8)[0],
                                 first)
    if not sid_all or not st & S_TIME:
        return 0
    skip = sum(1 for b in (S_IDENTIFIER, S_CPU, S_STREAM_ID, S_ID) if st & b)
    return struct.unpack_from('<Q', buf, end - 8 * (skip + 1))[0]


def sample(buf, p, evs, first):
    """(ip, pid, time, [(from, to)]) of the sample body at p."""
    st, bst, _ = first
    if st & S_IDENTIFIER:
        st, bst, _ = evs.get(struct.unpack_from('<Q', buf, p)[0], first)
        p += 8
    ip = pid = time = 0
    for bit in (S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU,
                S_PERIOD):
        if st & bit:
            v, = struct.unpack_from('<Q', buf, p)
            if bit == S_IP:
                ip = v
            elif bit == S_TID:
                pid = v & 0xffffffff
            elif bit == S_TIME:
                time = v
            p += 8
    if st & S_READ:
        raise ValueError('PERF_SAMPLE_READ is not parsed here')
    if st & S_CALLCHAIN:
        n, = struct.unpack_from('<Q', buf, p)
        p += 8 + 8 * n
    if st & S_RAW:
        n, = struct.unpack_from('<I', buf, p)
        p += (4 + n + 7) // 8 * 8
    recs = []
    if st & S_BRANCH_STACK:
        n, = struct.unpack_from('<Q', buf, p)
        p += 8 + (8 if bst & B_HW_INDEX else 0)
        recs = [struct.unpack_from('<QQ', buf, p + 24 * i) for i in range(n)]
    return ip, pid, time, recs


def oracle(path, progs):
    """{prog: [samples, records]} by replaying the recording in time order."""
    with open(path, 'rb') as f:
        buf = f.read()
    evs, first, d_off, d_size = attrs(buf)
    events = []		# (time, kind, seq, data); side-band before samples
    off, end, seq = d_off, d_off + d_size, 0
    while off + 8 <= end:
        rtype, misc, size = struct.unpack_from('<IHH', buf, off)
        if size < 8:
            raise ValueError('bad record at %d' % off)
        body = off + 8
        if rtype == R_MMAP2:
            pid, _, addr, length, pgoff = struct.unpack_from('<IIQQQ', buf,
                                                             body)
            prot, = struct.unpack_from('<I', buf, body + 56)
            name = buf[body + 64:off + size].split(b'\0')[0].decode()
            if prot & PROT_EXEC:
                t = trailer_time(buf, off, size, evs, first)
                events.append((t, 0, seq, ('mmap', pid, addr,
                                            addr + length, name)))
        elif rtype == R_FORK:
            pid, ppid, _, _, t = struct.unpack_from('<IIIIQ', buf, body)
            if pid != ppid:
                events.append((t, 0, seq, ('fork', pid, ppid)))
        elif rtype == R_COMM and misc & MISC_COMM_EXEC:
            pid, = struct.unpack_from('<I', buf, body)
            t = trailer_time(buf, off, size, evs, first)
            events.append((t, 0, seq, ('exec', pid)))
        elif rtype == R_SAMPLE:
            ip, pid, t, recs = sample(buf, body, evs, first)
            events.append((t, 1, seq, ('sample', pid, ip, recs)))
        seq += 1
        off += size
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    maps = collections.defaultdict(list)	# pid -> [(lo, hi, base)]
    counts = {p: [0, 0] for p in progs}

    def where(pid, a):
        for lo, hi, base in maps.get(pid, ()):
            if lo <= a < hi:
                return base
        return None

    for _, _, _, ev in events:
        if ev[0] == 'mmap':
            _, pid, lo, hi, name = ev
            kept = []
            for m in maps[pid]:
                if m[1] <= lo or m[0] >= hi:
                    kept.append(m)
                    continue
                if m[0] < lo:
                    kept.append((m[0], lo, m[2]))
                if m[1] > hi:
                    kept.append((hi, m[1], m[2]))
            kept.append((lo, hi, name.rsplit('/', 1)[-1]))
            maps[pid] = kept
        elif ev[0] == 'fork':
            maps[ev[1]] = list(maps.get(ev[2], ()))
        elif ev[0] == 'exec':
            maps[ev[1]] = []
        else:
            _, pid, ip, recs = ev
            prog = where(pid, ip)
            if prog in counts:
                counts[prog][0] += 1
            for f, t in recs:
                prog = where(pid, f)
                if prog in counts and where(pid, t) == prog:
                    counts[prog][1] += 1
    return counts


def aggregate(path, binary):
    p = subprocess.run([PC, 'aggregate', '-i', path, '--binary', binary,
                        '-v', '-o', os.devnull], capture_output=True,
                       text=True)
    m = re.search(r'(\d+) samples \((\d+) outside', p.stderr)
    b = re.search(r'branches: (\d+), \d+ unique, (\d+) with an end outside',
                  p.stderr)
    if not m or not b:
        return p.returncode, None, None, p.stderr
    return (p.returncode, int(m.group(1)) - int(m.group(2)),
            int(b.group(1)) - int(b.group(2)), p.stderr)


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    path, bins, label, progs = (sys.argv[1], sys.argv[2], sys.argv[3],
                                sys.argv[4:])
    try:
        want = oracle(path, progs)
    except (OSError, ValueError, struct.error) as e:
        print('FAIL %s: %s: %s' % (label, path, e))
        return 1
    bad = 0
    for prog in progs:
        rc, samples, records, err = aggregate(path, os.path.join(bins, prog))
        ws, wr = want[prog]
        ok = rc == 0 and ws > 0 and (samples, records) == (ws, wr)
        bad += not ok
        print('%s %s: perf-ctr aggregate --binary %s: %s samples, %s '
              'records of its own processes (the recording says %d, %d)' %
              ('PASS' if ok else 'FAIL', label, prog, samples, records,
               ws, wr))
        if not ok:
            for line in err.strip().splitlines()[:6]:
                print('#   ' + line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
