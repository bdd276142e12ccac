# SPDX-License-Identifier: GPL-2.0
"""sysattr.py judges make check's system-wide recordings: test on a
perf.data made here that it finds records outside the sampled process's
mappings, follows FORK and exec, and fails what it cannot read."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

CHECKER = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                       "sysattr.py")

SAMPLE_TYPE = 1 | 2 | (1 << 11)		# IP, TID, BRANCH_STACK
ATTR_SIZE = 136				# perf_event_attr (120) + ids section


def record(rtype, body, misc=0):
    return struct.pack('<IHH', rtype, misc, 8 + len(body)) + body


def mmap2(pid, start, length, name, prot=5):
    body = struct.pack('<IIQQQ', pid, pid, start, length, 0)
    body += bytes(24) + struct.pack('<II', prot, 2)
    name = name.encode() + b'\0'
    return record(10, body + name + bytes(-len(name) % 8))


def sample(pid, ip, recs):
    body = struct.pack('<QII', ip, pid, pid) + struct.pack('<Q', len(recs))
    for f, t in recs:
        body += struct.pack('<QQQ', f, t, 0)
    return record(9, body)


def perf_data(records):
    attr = struct.pack('<IIQQQ', 0, 120, 0, 1000, SAMPLE_TYPE)
    attr += bytes(72 - len(attr)) + struct.pack('<Q', 0)	# branch type
    attr += bytes(120 - len(attr))
    data = b''.join(records)
    a_off = 104
    d_off = a_off + ATTR_SIZE
    head = struct.pack('<8sQQ', b'PERFILE2', 104, ATTR_SIZE)
    head += struct.pack('<QQQQQQ', a_off, ATTR_SIZE, d_off, len(data), 0, 0)
    head += bytes(104 - len(head))
    return head + attr + struct.pack('<QQ', 0, 0) + data


class SysAttr(unittest.TestCase):
    def run_checker(self, blob):
        with tempfile.NamedTemporaryFile(suffix='.data') as f:
            f.write(blob)
            f.flush()
            return subprocess.run(
                [sys.executable, CHECKER, f.name, 'test', 'a', 'b'],
                capture_output=True, text=True)

    def test_own_mappings_pass(self):
        out = self.run_checker(perf_data([
            mmap2(10, 0x1000, 0x1000, '/x/a'),
            mmap2(20, 0x5000, 0x1000, '/x/b'),
            sample(10, 0x1100, [(0x1200, 0x1300), (0, 0x1400)]),
            sample(20, 0x5100, [(0x5200, 0xffffffff80001000)]),
        ])).stdout
        self.assertIn('PASS test: every record', out)
        self.assertIn('PASS test: samples of a (1)', out)
        self.assertIn('PASS test: samples of b (1)', out)

    def test_other_process_fails(self):
        out = self.run_checker(perf_data([
            mmap2(10, 0x1000, 0x1000, '/x/a'),
            mmap2(20, 0x5000, 0x1000, '/x/b'),
            sample(10, 0x1100, [(0x5200, 0x5300)]),
            sample(20, 0x5100, [(0x5200, 0x5300)]),
        ])).stdout
        self.assertIn('FAIL test: every record in the sampled process\'s '
                      'own mappings (1 outside)', out)

    def test_fork_inherits_and_exec_drops(self):
        fork = record(7, struct.pack('<IIIIQ', 30, 10, 30, 10, 0))
        comm = record(3, struct.pack('<II', 30, 30) + b'b\0\0\0\0\0\0\0',
                      misc=1 << 13)
        out = self.run_checker(perf_data([
            mmap2(10, 0x1000, 0x1000, '/x/a'),
            fork,
            sample(30, 0x1100, [(0x1200, 0x1300)]),	# the parent's: fine
            comm,
            mmap2(30, 0x9000, 0x1000, '/x/b'),
            sample(30, 0x9100, [(0x1200, 0x9300)]),	# old image: outside
        ])).stdout
        self.assertIn('(1 outside)', out)
        self.assertIn('samples of b (1)', out)

    def test_not_perf_data(self):
        res = self.run_checker(b'not a perf.data file at all, no')
        self.assertIn('FAIL test:', res.stdout)
        self.assertNotEqual(0, res.returncode)


if __name__ == '__main__':
    unittest.main()
