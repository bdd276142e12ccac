#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what branch stacks cost, as ratios measured in one run.
# Under -icount shift=0 a guest nanosecond is one instruction, so the
# workload's elapsed time counts the instructions run on its hart,
# overflow handler included. For each CTR depth (riscv_ctr.depth=) and
# period it prints the extra instructions per sample that reading the
# branch stack costs, and the slowdown of perf record -b relative to
# perf record at the same period (target: at most 1.10).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

periods=${PERIODS:-100003,1000003}
out=$TOP/out/bench
mkdir -p "$out"
for depth in 16 64 256; do
	"$TOP/scripts/run.sh" --smp 1 --icount --timeout 900 --run bench \
		--append "riscv_ctr.depth=$depth ctr.periods=$periods ctr.iters=200000" \
		--log "$out/depth$depth.log" >/dev/null 2>&1 || true
done
cat "$out"/depth*.log | tr -d '\r' | grep '^bench: ' | python3 -c '
import sys, collections
runs = collections.defaultdict(list)
for line in sys.stdin:
    _, depth, period, mode, ns, n = line.split()
    runs[(int(depth), int(period), mode)].append((int(ns), int(n)))
print("depth  period    plain ns   -b ns      samples  insns/sample  -b/plain")
for (depth, period, mode) in sorted(runs):
    if mode != "branches":
        continue
    b = min(runs[(depth, period, "branches")])
    p = min(runs[(depth, period, "plain")])
    per = (b[0] - p[0]) / b[1] if b[1] else float("nan")
    print(f"{depth:5}  {period:8}  {p[0]:9}  {b[0]:9}  {b[1]:7}  {per:12.0f}  {b[0] / p[0]:8.3f}")
'
