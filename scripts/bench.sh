#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what branch stacks cost, as ratios measured in one run.
# Under -icount shift=0 a guest nanosecond is one instruction, so the
# workload's elapsed time counts the instructions run on its hart,
# overflow handler included. For each CTR depth (riscv_ctr.depth=) and
# period it prints the extra instructions per sample that reading the
# branch stack costs (everything: the handler, the ring buffer, perf
# record writing the records out), with -b (each record copied as it is
# read) and with -j any,u,save_type (each record decoded: its type and
# its ends' privilege), per record and as a multiple of the
# floor of four CSR accesses per record, and the slowdown of perf record
# -b relative to perf record at the same period (target: at most 1.10),
# and what a bpf_get_branch_snapshot() of the whole buffer costs. The
# hart records cycle counts (the patched QEMU's CC/CCV); at depth 256 a
# hart without them (ctr-cc=off, every record CCV=0) runs beside it, so
# that the cost of decoding the counts shows as a difference.
#
# Then what a context switch costs, with perf bench sched pipe on one hart
# (PIPE_LOOPS operations, 2 switches each): with no perf event on a hart
# with CTR against one without (target: at most 1.01, the driver costs
# nothing while no branch event exists), and under per-task events that
# never overflow: the extra instructions per switch of a call-stack event
# (its buffer saved and restored), of a -b event and of a CPU-wide -b
# event (the buffer wiped at every switch), against no event and against
# a per-task event without a branch stack. CTR_IMAGE=... runs it on
# another kernel image, to compare two versions of the driver.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

periods=${PERIODS:-100003,1000003}
out=$TOP/out/bench
mkdir -p "$out"
rm -f "$out"/depth*.log
for run in 16 64 256 256-nocc; do
	cpu=max
	[ "${run#*-}" = nocc ] && cpu=max,ctr-cc=off
	"$TOP/scripts/run.sh" --smp 1 --icount --timeout 900 --run bench \
		--cpu "$cpu" --append "riscv_ctr.depth=${run%-*} ctr.periods=$periods ctr.iters=200000" \
		--log "$out/depth$run.log" >/dev/null 2>&1 || true
done
# Boots differ by about 1% from one another even under -icount (the
# layout of each boot is its own): PIPE_BOOTS boots of each hart, the
# best of each mode.
loops=${PIPE_LOOPS:-20000}
rm -f "$out"/pipe-ctr*.log "$out"/pipe-noctr*.log
for i in $(seq "${PIPE_BOOTS:-3}"); do
	"$TOP/scripts/run.sh" --smp 1 --icount --timeout 900 --run bench \
		--append "ctr.pipe=$loops" --log "$out/pipe-ctr$i.log" \
		>/dev/null 2>&1 || true
	"$TOP/scripts/run.sh" --smp 1 --icount --timeout 900 --run bench \
		--cpu max,smctr=false,ssctr=false --append "ctr.pipe=$loops" \
		--log "$out/pipe-noctr$i.log" >/dev/null 2>&1 || true
done

for f in "$out"/depth*.log; do
	cc=yes
	case $f in *-nocc.log) cc=no ;; esac
	tr -d '\r' <"$f" | grep '^bench: ' | sed "s/^/$cc /"
done | python3 -c '
import sys, collections
runs = collections.defaultdict(list)
for line in sys.stdin:
    cc, _, depth, period, mode, ns, n = line.split()
    runs[(int(depth), cc, int(period), mode)].append((int(ns), int(n)))
# The workload fills the buffer long before its first sample: a sample
# carries DEPTH records, and reading them takes at least four CSR
# accesses each (siselect, sireg, sireg2, sireg3): the floor.
print("mode -b: perf record -b; save_type: perf record -j any,u,save_type")
print("depth  cycles  period  mode       plain ns  branch ns  samples  insns/sample  per record  /floor  /plain")
for (depth, cc, period, mode) in sorted(runs, key=lambda k: (k[0], k[1] == "no", k[2], k[3])):
    if mode == "plain":
        continue
    b = min(runs[(depth, cc, period, mode)])
    p = min(runs[(depth, cc, period, "plain")])
    per = (b[0] - p[0]) / b[1] if b[1] else float("nan")
    what = "-b" if mode == "branches" else "save_type"
    print(f"{depth:5}  {cc:6}  {period:8}  {what:9}  {p[0]:9}  {b[0]:9}  {b[1]:7}  {per:12.0f}"
          f"  {per / depth:10.1f}  {per / (4 * depth):6.1f}  {b[0] / p[0]:6.3f}")
'
# bpf_get_branch_snapshot(): each depth's boot printed
# "snapshot: N instructions per call (C calls: W with, O without; R records)".
cat "$out"/depth*.log | tr -d '\r' | grep '^snapshot: ' | python3 -c '
import re, sys
print()
print("bpf_get_branch_snapshot() from a kretprobe on a failing close(), -icount:")
print("records  insns/snapshot  per record  close()+kretprobe alone  with/without")
for line in sys.stdin:
    m = re.match(r"snapshot: (\d+) .*\((\d+) calls: (\d+) with, (\d+) without; (\d+) records\)", line)
    if not m:
        continue
    per, calls, w, wo, rec = map(int, m.groups())
    print(f"{rec:7}  {per:14}  {per / rec:10.1f}  {wo // calls:23}  {w / wo:12.2f}")
'
# KVM guests with Ssctr: "kvm_run: A ns without Ssctr, B ns with it and
# no record, C ns with a full buffer".
for f in "$out"/depth*.log; do
	tr -d '\r' <"$f" | sed -n "s/^kvm_run: \([0-9]*\) ns without Ssctr, \([0-9]*\) ns with it and no record, \([0-9]*\) ns with a full buffer.*/\1 \2 \3/p" |
	while read -r a b c; do
		d=${f##*depth}
		echo "KVM_RUN round trip (a vCPU load and put), depth ${d%.log}, -icount:" \
			"$a instructions without Ssctr, $b with it and no record" \
			"($((b - a)) per load and put), $c with a full buffer moved" \
			"($((c - a)) per load and put)"
	done
done
python3 - "$out" <<'EOF'
import glob, os, sys
def load(pattern):
    r = {}
    for path in glob.glob(os.path.join(sys.argv[1], pattern)):
        for line in open(path, errors="replace"):
            if line.startswith("pipe: "):
                _, mode, us = line.split()
                r[mode] = min(float(us), r.get(mode, float("inf")))
    return r
ctr, noctr = load("pipe-ctr*.log"), load("pipe-noctr*.log")
print()
print("perf bench sched pipe, one hart, -icount (1 ns = 1 instruction), usecs/op,")
print("the best of each mode over the boots:")
for mode in ("none", "plain", "callstack", "any", "cpuwide"):
    a, b = ctr.get(mode, "-"), noctr.get(mode, "-")
    print(f"  {mode:10} CTR hart {a:>10}   hart without CTR {b:>10}")
if ctr.get("none") and noctr.get("none"):
    print(f"no event, CTR / no CTR: {ctr['none'] / noctr['none']:.4f} (target <= 1.01)")
if ctr.get("plain") and noctr.get("plain"):
    print(f"per-task event without branch stack, CTR / no CTR: {ctr['plain'] / noctr['plain']:.4f}")
# An op is a round trip: two context switches, and 1 us is 1000 instructions.
for mode, what in (("callstack", "per-task call-stack event"),
                   ("any", "per-task -b event"), ("cpuwide", "CPU-wide -b event")):
    if ctr.get(mode) and ctr.get("none") and ctr.get("plain"):
        print(f"{what}: {(ctr[mode] - ctr['none']) * 500:.0f} instructions"
              f" per switch more than no event, {(ctr[mode] - ctr['plain']) * 500:.0f}"
              " more than a per-task event without a branch stack")
EOF
