# SPDX-License-Identifier: GPL-2.0
"""The console log parser decides what make check reports: test that it
fails what must fail."""
import os
import subprocess
import sys
import tempfile
import unittest

PARSER = os.path.join(os.path.dirname(__file__), "..", "..", "scripts",
                      "results.py")

GOOD = """\
[    1.20] KTAP version 1
[    1.21] 1..1
[    1.22]     # Subtest: riscv_ctr_buffer
[    1.23]     1..2
[    1.24]     ok 1 ctr_test_depth
[    1.25]     ok 2 ctr_test_clear # SKIP no CTR on this hart
[    1.26] ok 1 riscv_ctr_buffer
TAP version 13
1..2
ok 1 global.caps
ok 2 global.refused
ok 1 cpuinfo lists ssctr
1..1
ctr-guest: check exited with 0
"""


def parse(text):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([sys.executable, PARSER, "t", f.name],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)
    return [l for l in out.splitlines() if not l.startswith("#")]


def verdicts(lines, v):
    return [l for l in lines if l.startswith(v + " ")]


class ResultsTest(unittest.TestCase):
    def test_good_log(self):
        lines = parse(GOOD)
        self.assertEqual(verdicts(lines, "FAIL"), [])
        self.assertIn("PASS t: kunit: ctr_test_depth", lines)
        self.assertIn("SKIP t: kunit: ctr_test_clear (no CTR on this hart)",
                      lines)
        # Suite summaries are not results of their own.
        self.assertNotIn("PASS t: kunit: riscv_ctr_buffer", lines)
        self.assertEqual(len(verdicts(lines, "PASS")), 6)

    def test_failed_kunit_case(self):
        lines = parse(GOOD.replace("    ok 1 ctr_test_depth",
                                   "    not ok 1 ctr_test_depth"))
        self.assertIn("FAIL t: kunit: ctr_test_depth", lines)

    def test_guest_did_not_finish(self):
        lines = parse(GOOD.replace("ctr-guest: check exited with 0\n", ""))
        self.assertIn("FAIL t: guest run completed", lines)

    def test_kernel_warning(self):
        for bad in ("[    2.00] WARNING: CPU: 1 PID: 5 at drivers/perf/x.c:1",
                    "[    2.00] BUG: KASAN: slab-out-of-bounds in f+0x1",
                    "[    2.00] Unable to handle kernel paging request",
                    "[    2.00] __sbi_rfence_v02_call: hbase = [0] "
                    "hmask = [0xf] failed (error [-22])",
                    "dmesg: [    2.00] WARNING: possible circular locking"):
            lines = parse(GOOD + bad + "\n")
            text = bad.split("] ", 1)[1]
            self.assertIn(f"FAIL t: no kernel warnings or errors ({text})",
                          lines, bad)

    def test_kernel_warning_named_past_cut_here(self):
        lines = parse(GOOD + "[    2.00] ------------[ cut here ]------------\n"
                      "[    2.01] WARNING: CPU: 0 PID: 1 at x.c:2 f+0x0/0x4\n")
        self.assertIn("FAIL t: no kernel warnings or errors "
                      "(WARNING: CPU: 0 PID: 1 at x.c:2 f+0x0/0x4)", lines)

    def test_program_died_early(self):
        lines = parse(GOOD.replace("ok 2 global.refused\n", ""))
        self.assertIn("FAIL t: planned 2 results, got 1", lines)

    def test_results_without_plan(self):
        lines = parse(GOOD.replace("ok 1 cpuinfo lists ssctr\n1..1\n",
                                   "ok 1 cpuinfo lists ssctr\n"))
        self.assertIn("FAIL t: 1 results without a plan", lines)


if __name__ == "__main__":
    unittest.main()
