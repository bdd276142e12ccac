#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""machine.py PERF_CTR BIN_DIR TMP: perf-ctr's address-space model on
recordings written record by record, each case a way real recordings
attribute samples wrongly when the model is wrong:

  same-address  two processes map different programs at one address
  time-order    a sample comes before its process's MMAP2 in the file but
                after it in time (per-CPU buffers are written in turn)
  exec          one pid runs one program, execs another at the same address
  fork          a child runs its parent's mappings without an MMAP2 of its own
  no-mapping    a process with no mapping gets nobody's
  pid-reuse     a new process with a recycled pid loses the old one's maps
  build-id      a mapping under another name but with the binary's build id
                counts; one with the binary's name and another build id not
  rounds        time-order with perf record's FINISHED_ROUND records, read
                in one pass: the sample waits for the round that brings
                its MMAP2
  late-round    a MMAP2 that comes after the rounds say every record up
                to its time is in: it counts from then on, as in perf

and report --folded names each sample's thread by its command at the
sample's time, whatever the order of the records in the file:

  comm-order    samples before and after an exec whose COMM comes after
                them in the file; a fork's child before any COMM of its
                own; a thread renamed by prctl; a reused pid

BIN_DIR holds two static programs, alpha and beta, linked at the same
address with text over FROM and TO (t-machine.sh builds them). Prints
"PASS|FAIL machine: ..." lines.
"""
import collections
import os
import re
import struct
import subprocess
import sys

import attrib

S_IP, S_TID, S_TIME, S_BRANCH_STACK = 1 << 0, 1 << 1, 1 << 2, 1 << 11
B_USER, B_ANY = 1 << 0, 1 << 3
MISC_USER, MISC_COMM_EXEC, MISC_MMAP_BUILD_ID = 2, 1 << 13, 1 << 14
FROM, TO = 0x10500, 0x10600	# in the text of both programs


def pad(b):
    return b + b'\0' * (8 - len(b) % 8)


def rec(rtype, misc, body):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def sid(pid, time):
    return struct.pack('<IIQ', pid, pid, time)


def mmap2(pid, time, name, start=0x10000, length=0x100000, build_id=None):
    body = struct.pack('<IIQQQ', pid, pid, start, length, 0)
    misc = MISC_USER
    if build_id:
        body += struct.pack('<B3x20s', len(build_id), build_id)
        misc |= MISC_MMAP_BUILD_ID
    else:
        body += struct.pack('<IIQQ', 8, 1, 1000 + pid, 0)
    body += struct.pack('<II', 5, 2)	# PROT_READ|PROT_EXEC, MAP_PRIVATE
    return rec(10, misc, body + pad(name.encode()) + sid(pid, time))


def comm(pid, time, name, exec_=True, tid=None):
    tid = pid if tid is None else tid
    return rec(3, MISC_COMM_EXEC if exec_ else 0,
               struct.pack('<II', pid, tid) + pad(name.encode()) +
               struct.pack('<IIQ', pid, tid, time))


def fork(pid, ppid, time):
    return rec(7, 0, struct.pack('<IIIIQ', pid, ppid, pid, ppid, time) +
               sid(pid, time))


def sample(pid, time, tid=None):
    tid = pid if tid is None else tid
    return rec(9, MISC_USER,
               struct.pack('<QIIQQ', FROM, pid, tid, time, 1) +
               struct.pack('<QQQ', FROM, TO, 0))


def finished_round():
    return rec(68, 0, b'')


def perf_data(path, records):
    attr = bytearray(112)
    st = S_IP | S_TID | S_TIME | S_BRANCH_STACK
    struct.pack_into('<IIQQQQQ', attr, 0, 0, 112, 0, 10007, st, 0,
                     1 << 18)			# sample_id_all
    struct.pack_into('<Q', attr, 72, B_ANY | B_USER)
    data = b''.join(records)
    a_off = 104
    ids = a_off + len(attr) + 16
    d_off = ids
    hdr = struct.pack('<8sQQQQQQQQ', b'PERFILE2', 104, len(attr) + 16,
                      a_off, len(attr) + 16, d_off, len(data), 0, 0)
    hdr += b'\0' * 32			# no feature
    with open(path, 'wb') as f:
        f.write(hdr + bytes(attr) + struct.pack('<QQ', ids, 0) + data)


def build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True,
                         text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return bytes.fromhex(m.group(1)) if m else None


def counts(pc, data, binary):
    """((samples, records) aggregate gives BINARY, or None), its stderr."""
    attrib.PC = pc
    rc, samples, records, err = attrib.aggregate(data, binary)
    return (None if samples is None else (samples, records)), err


def main():
    pc, bins, tmp = sys.argv[1:4]
    wl, sled = os.path.join(bins, 'alpha'), os.path.join(bins, 'beta')
    bid = build_id(wl)
    W, S = '/usr/bin/alpha', '/opt/beta'
    cases = {
        'same-address': ([mmap2(100, 10, W), mmap2(200, 10, S),
                          sample(100, 20), sample(200, 21),
                          sample(200, 22)], (1, 2)),
        'time-order': ([mmap2(300, 10, S), sample(300, 30),
                        mmap2(300, 25, W)], (1, 0)),
        'exec': ([mmap2(400, 1, W), sample(400, 3), comm(400, 5, 'beta'),
                  mmap2(400, 6, S), sample(400, 7)], (1, 1)),
        'fork': ([mmap2(500, 1, S), fork(501, 500, 2), sample(501, 3)],
                 (0, 1)),
        'no-mapping': ([mmap2(100, 1, W), sample(600, 40)], (0, 0)),
        'pid-reuse': ([mmap2(100, 1, W), sample(100, 2), fork(100, 1, 50),
                       sample(100, 51)], (1, 0)),
        'build-id': ([mmap2(700, 1, '/usr/bin/renamed', build_id=bid),
                      sample(700, 2),
                      mmap2(800, 1, W, build_id=b'\x11' * 20),
                      sample(800, 2)], (1, 0)),
        'rounds': ([mmap2(300, 10, S), sample(300, 30), finished_round(),
                    mmap2(300, 25, W), finished_round(), sample(300, 40),
                    finished_round()], (2, 0)),
        'late-round': ([mmap2(300, 10, S), sample(300, 30), finished_round(),
                        sample(300, 40), finished_round(), finished_round(),
                        mmap2(300, 35, W), sample(300, 50)], (1, 2)),
    }
    bad = 0
    for name, (records, (want_w, want_s)) in cases.items():
        if name == 'build-id' and not bid:
            print('SKIP machine: %s (no build id in %s)' % (name, wl))
            continue
        path = os.path.join(tmp, name + '.data')
        perf_data(path, records)
        # A sample is one sample and one record: both counts must match.
        got_w, err_w = counts(pc, path, wl)
        got_s, err_s = counts(pc, path, sled)
        ok = got_w == (want_w, want_w) and got_s == (want_s, want_s)
        bad += not ok
        print('%s machine: %s: alpha %s, beta %s (want %d, %d)' %
              ('PASS' if ok else 'FAIL', name, got_w, got_s, want_w, want_s))
        if not ok:
            for line in (err_w + err_s).strip().splitlines()[:8]:
                print('#   ' + line, file=sys.stderr)
    bad += folded_comms(pc, tmp, W)
    return 1 if bad else 0


def folded_comms(pc, tmp, W):
    """report --folded: the command of each sample's thread at its time."""
    # Written as a per-CPU recording is: each CPU's records in turn.
    records = [
        # CPU 0: pid 900, started by a shell, execs alpha at 20; its
        # samples at 12 (still the shell) and 30, 31 (alpha).
        comm(900, 5, 'sh'), sample(900, 12), sample(900, 30),
        sample(900, 31),
        # pid 900's thread 903 named 'worker' at 40, sampled at 41; the
        # main thread sampled at 42 keeps its name.
        sample(900, 41, tid=903), sample(900, 42),
        # pid 901, forked by 900 at 33, sampled at 34 before any COMM.
        sample(901, 34),
        # pid 902 exits; a new process with its pid, forked by 900 at 60,
        # is sampled at 61. pid 904 the same, forked by a process the
        # recording does not know: no name, not the old one's.
        sample(902, 9), sample(902, 61), sample(904, 3), sample(904, 71),
        # CPU 1: the side-band records, later in the file.
        comm(902, 1, 'old'), comm(900, 20, 'alpha'), mmap2(900, 21, W),
        fork(901, 900, 33), comm(900, 40, 'worker', False, tid=903),
        fork(902, 900, 60), comm(904, 2, 'gone'), fork(904, 999, 70),
    ]
    want = {'sh': 1, 'alpha': 5, 'worker': 1, 'old': 1, 'gone': 1,
            ':904': 1}
    path = os.path.join(tmp, 'comm-order.data')
    perf_data(path, records)
    p = subprocess.run([pc, 'report', '-i', path, '--folded'],
                       capture_output=True, text=True)
    got = collections.Counter()
    for line in p.stdout.splitlines():
        stack, _, n = line.rpartition(' ')
        got[stack.split(';', 1)[0]] += int(n)
    ok = p.returncode == 0 and got == want
    print('%s machine: comm-order: report --folded names %s (want %s)' %
          ('PASS' if ok else 'FAIL', dict(sorted(got.items())),
           dict(sorted(want.items()))))
    if not ok and p.stderr.strip():
        print('#   ' + p.stderr.strip()[:400], file=sys.stderr)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
