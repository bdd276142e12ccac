#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk-fleet.py OUT MEGABYTES IN...: a system-wide recording of many
programs, for bench.sh only: the recordings IN (perf.data, file mode,
one program's run each), replicated round-robin until OUT has at least
MEGABYTES of data, each copy a process of its own (its pids moved past
every earlier copy's) running after the one before (its times moved
past them), as a machine that runs one job after another records them
with perf record -a. Every copy keeps its own side-band records and
rounds; the events' ids are the first recording's. Prints how many
copies of each input OUT holds, as 'COPIES PATH' lines.

The recordings must sample alike (the same attrs but their ids)."""
import struct
import sys

S_IP, S_TID, S_TIME, S_ADDR, S_ID, S_STREAM_ID, S_CPU = (
    1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6, 1 << 9, 1 << 7)
S_IDENTIFIER = 1 << 16
R_MMAP, R_LOST, R_COMM, R_EXIT, R_THROTTLE, R_UNTHROTTLE, R_FORK = 1, 2, 3, 4, 5, 6, 7
R_SAMPLE, R_MMAP2, R_LOST_SAMPLES = 9, 10, 13
FEAT_BUILD_ID = 2
PID_STEP = 1 << 17


class Rec:
    def __init__(self, path):
        b = open(path, 'rb').read()
        (magic, _, self.attr_size, a_off, a_size, d_off, d_size,
         _, _, feat) = struct.unpack_from('<8sQQQQQQQQQ', b, 0)
        if magic != b'PERFILE2':
            raise SystemExit('%s: not a file-mode perf.data' % path)
        self.path = path
        self.attrs = []
        for off in range(a_off, a_off + a_size, self.attr_size):
            ids_off, ids_size = struct.unpack_from('<QQ', b, off + self.attr_size - 16)
            ids = struct.unpack_from('<%dQ' % (ids_size // 8), b, ids_off)
            self.attrs.append((b[off:off + self.attr_size - 16], ids))
        self.st = struct.unpack_from('<Q', self.attrs[0][0], 24)[0]
        self.sid_all = bool(struct.unpack_from('<Q', self.attrs[0][0], 40)[0] & (1 << 18))
        self.data = b[d_off:d_off + d_size]
        self.bids = b''
        if feat & (1 << FEAT_BUILD_ID):
            idx = bin(feat & ((1 << FEAT_BUILD_ID) - 1)).count('1')
            s_off, s_size = struct.unpack_from('<QQ', b, d_off + d_size + idx * 16)
            self.bids = b[s_off:s_off + s_size]
        self.ids = {}
        for i, (_, ids) in enumerate(self.attrs):
            for x in ids:
                self.ids[x] = i
        self.span = self.times()

    def times(self):
        lo, hi = None, 0
        for off, t, size in self.records():
            tm = self.time_of(off, t, size)
            if tm:
                lo = tm if lo is None else min(lo, tm)
                hi = max(hi, tm)
        return (lo or 0, hi)

    def records(self):
        off = 0
        while off + 8 <= len(self.data):
            t, _, size = struct.unpack_from('<IHH', self.data, off)
            if size < 8:
                raise SystemExit('%s: bad record at data offset %d' % (self.path, off))
            yield off, t, size
            off += size

    # Where the pid/tid, time and id of a record are, in bytes from it.
    def sample_fields(self):
        st, p, f = self.st, 8, {}
        for bit, name in ((S_IDENTIFIER, 'id'), (S_IP, None), (S_TID, 'tid'),
                          (S_TIME, 'time'), (S_ADDR, None), (S_ID, 'id2')):
            if st & bit:
                if name:
                    f[name] = p
                p += 8
        return f

    def trailer_fields(self, size):
        if not self.sid_all:
            return {}
        st, p, f = self.st, size, {}
        for bit, name in ((S_IDENTIFIER, 'id'), (S_CPU, None), (S_STREAM_ID, None),
                          (S_ID, 'id2'), (S_TIME, 'time'), (S_TID, 'tid')):
            if st & bit:
                p -= 8
                if name:
                    f[name] = p
        return f

    def time_of(self, off, t, size):
        f = self.sample_fields() if t == R_SAMPLE else self.trailer_fields(size)
        if t in (R_FORK, R_EXIT):
            return struct.unpack_from('<Q', self.data, off + 24)[0]
        if 'time' in f and f['time'] >= 8:
            return struct.unpack_from('<Q', self.data, off + f['time'])[0]
        return 0


def move_pid(p, delta):
    return p if p in (0, 0xffffffff) else (p + delta) & 0xffffffff


def copy(rec, first, pid_delta, dt):
    """REC's data with its pids moved by PID_DELTA, times by DT, ids made FIRST's."""
    out = bytearray(rec.data)
    sf = rec.sample_fields()
    for off, t, size in rec.records():
        f = sf if t == R_SAMPLE else rec.trailer_fields(size)
        for k in ('id', 'id2'):
            if k in f and f[k] >= 8:
                x = struct.unpack_from('<Q', out, off + f[k])[0]
                ev = rec.ids.get(x, 0)
                struct.pack_into('<Q', out, off + f[k], first.attrs[ev][1][0])
        if 'tid' in f and f['tid'] >= 8:
            pid, tid = struct.unpack_from('<II', out, off + f['tid'])
            struct.pack_into('<II', out, off + f['tid'], move_pid(pid, pid_delta),
                             move_pid(tid, pid_delta))
        if 'time' in f and f['time'] >= 8:
            tm = struct.unpack_from('<Q', out, off + f['time'])[0]
            if tm:
                struct.pack_into('<Q', out, off + f['time'], tm + dt)
        if t in (R_MMAP, R_MMAP2, R_COMM):
            pid, tid = struct.unpack_from('<II', out, off + 8)
            struct.pack_into('<II', out, off + 8, move_pid(pid, pid_delta),
                             move_pid(tid, pid_delta))
        elif t in (R_FORK, R_EXIT):
            v = struct.unpack_from('<IIII', out, off + 8)
            struct.pack_into('<IIII', out, off + 8, *[move_pid(x, pid_delta) for x in v])
            tm = struct.unpack_from('<Q', out, off + 24)[0]
            struct.pack_into('<Q', out, off + 24, tm + dt)
    return out


def main():
    out, mb, ins = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    recs = [Rec(p) for p in ins]
    first = recs[0]
    for r in recs[1:]:
        if [a for a, _ in r.attrs] != [a for a, _ in first.attrs] and \
           [struct.unpack_from('<Q', a, 24) for a, _ in r.attrs] != \
           [struct.unpack_from('<Q', a, 24) for a, _ in first.attrs]:
            raise SystemExit('%s samples unlike %s' % (r.path, first.path))
    attrs = b''
    ids_off = 104
    ids_blob = b''
    for a, ids in first.attrs:
        ids_blob += struct.pack('<Q', ids[0])
    a_off = ids_off + len(ids_blob)
    d_off = a_off + len(first.attrs) * first.attr_size
    for i, (a, _) in enumerate(first.attrs):
        attrs += a + struct.pack('<QQ', ids_off + 8 * i, 8)
    copies = [0] * len(recs)
    bids = {}
    with open(out, 'wb') as f:
        f.write(b'\0' * 104 + ids_blob + attrs)
        size, t, n = 0, 0, 0
        while size < mb << 20:
            k = n % len(recs)
            r = recs[k]
            data = copy(r, first, (n + 1) * PID_STEP, t + 1000 - r.span[0])
            f.write(data)
            size += len(data)
            t += r.span[1] - r.span[0] + 1000
            copies[k] += 1
            n += 1
            off = 0
            while off + 36 < len(r.bids):
                bsize = struct.unpack_from('<H', r.bids, off + 6)[0]
                bids[r.bids[off + 36:off + bsize]] = r.bids[off:off + bsize]
                off += bsize
        blob = b''.join(bids.values())
        feat_off = d_off + size
        f.write(struct.pack('<QQ', feat_off + 16, len(blob)) + blob)
        hdr = struct.pack('<8sQQQQQQQQQ', b'PERFILE2', 104, first.attr_size, a_off,
                          len(attrs), d_off, size, 0, 0,
                          (1 << FEAT_BUILD_ID) if blob else 0)
        f.seek(0)
        f.write(hdr)
    for k, r in enumerate(recs):
        print(copies[k], r.path)


if __name__ == '__main__':
    main()
