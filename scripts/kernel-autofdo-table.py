#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel-autofdo-table.py DIR RECORDINGS BOOTS: make kernel-autofdo's table.
kernel-autofdo-table.py --functions DIR PERIOD: where the change comes from.

DIR holds bench-KERNEL-BOOT.log, the consoles of scripts/guest/kbench
("kbench: SET NAME REP KERNEL_INSNS TASK_CLOCK_NS"), for the base kernel
(clang) and the kernels built with the profiles of each training
recording, by perf-ctr (clang-pcN) and by llvm-profgen (clang-pgN), and
pcN.secs / pgN.secs, what making each profile took. A kernel's figure
for a workload is the median of its runs over every boot; a profile's
change is that figure against the base kernel's, and the table gives
the median change over the recordings with its lowest and highest.

With --functions: ksample-KERNEL.txt, perf report -n --sort sym of the
held-out workloads sampled every PERIOD kernel instructions, for the
base kernel and recording 1's kernels: each function's instructions in
each, the ones that lost most and gained most.
"""
import os
import re
import statistics
import sys

LINE = re.compile(r'^kbench: (\S+) (\S+) (\d+) (\d+) (\d+)$')


def load(d, kernel, boots):
    runs = {}
    order = []
    for b in range(1, boots + 1):
        path = os.path.join(d, f'bench-{kernel}-{b}.log')
        if not os.path.exists(path):
            continue
        for line in open(path, errors='replace'):
            m = LINE.match(line.strip())
            if not m:
                continue
            key = (m.group(1), m.group(2))
            if key not in runs:
                order.append(key)
            runs.setdefault(key, []).append((int(m.group(4)), int(m.group(5))))
    return order, {k: (statistics.median(v[0] for v in r),
                       statistics.median(v[1] for v in r), len(r))
                   for k, r in runs.items()}


def pct(a, b):
    return 100.0 * (a - b) / b


def cell(changes):
    if not changes:
        return '-'
    med = statistics.median(changes)
    if len(changes) == 1:
        return f'{med:+.2f}%'
    return f'{med:+.2f}% [{min(changes):+.2f}, {max(changes):+.2f}]'


def main():
    d, recs, boots = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    order, base = load(d, 'clang', boots)
    if not base:
        sys.exit('kernel-autofdo-table.py: no measurement of the base kernel')
    kinds = (('pc', 'perf-ctr'), ('pg', 'llvm-profgen'))
    prof = {kind: [load(d, f'clang-{kind}{r}', boots)[1]
                   for r in range(1, recs + 1)] for kind, _ in kinds}

    print('Kernel AutoFDO from CTR: change in kernel-mode instructions against the')
    print(f'base clang kernel (-icount, exact), median over {recs} recordings')
    print(f'[lowest, highest]; each kernel\'s figure the median of its runs over '
          f'{boots} boots.')
    print()
    w = max(len(n) for _, n in order) + 10
    print(f'{"workload":{w}} {"base kernel insns":>18}  {"perf-ctr profile":>28}'
          f'  {"llvm-profgen profile":>28}')
    def rows(field, base_cell):
        """One row per workload: the base figure, each profile's change."""
        changes = {kind: {} for kind, _ in kinds}
        for key in order:
            s, name = key
            b = base[key][field]
            row = f'{name + " (" + s + ")":{w}} {base_cell(b)}'
            for kind, _ in kinds:
                ch = [pct(p[key][field], b) for p in prof[kind] if key in p]
                changes[kind].setdefault(s, []).append(ch)
                row += f'  {cell(ch):>28}'
            print(row)
        return changes

    summary = rows(0, lambda b: f'{b:18,.0f}')
    print()
    for s in ('train', 'heldout'):
        row = f'{"mean, " + s:{w}} {"":18}'
        for kind, _ in kinds:
            per_rec = []
            for r in range(recs):
                vals = [ch[r] for ch in summary[kind].get(s, []) if len(ch) > r]
                if vals:
                    per_rec.append(statistics.mean(vals))
            row += f'  {cell(per_rec):>28}'
        print(row)
    print()
    print('CPU time of the workload (task-clock: with -icount, its tasks\''
          ' instructions, user and kernel):')
    rows(1, lambda b: f'{b / 1e6:15,.1f} ms')
    print()
    secs = {}
    for kind, _ in kinds:
        secs[kind] = []
        for r in range(1, recs + 1):
            try:
                with open(os.path.join(d, f'{kind}{r}.secs')) as f:
                    secs[kind].append([float(x) for x in f.read().split()])
            except OSError:
                pass
    join = lambda v: ', '.join(f'{x:.2f}' for x in v)
    print('profile generation as it ran here (make kernel-autofdo\'s last lines'
          ' time it alone):')
    print(f'  perf-ctr aggregate: {join(x[0] for x in secs["pc"])} s;'
          f' llvm-profgen: {join(x[1] for x in secs["pg"])} s, after perf script:'
          f' {join(x[0] for x in secs["pg"])} s')


def report(path):
    """perf report -n --sort sym -q: '  12.34%  1234  [k] name'."""
    counts = {}
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError:
        return None
    for line in lines:
        f = line.split()
        if len(f) >= 4 and f[0].endswith('%') and f[2] == '[k]':
            counts[' '.join(f[3:])] = counts.get(' '.join(f[3:]), 0) + int(f[1])
    return counts


def functions(d, period):
    base = report(os.path.join(d, 'ksample-clang.txt'))
    if not base:
        sys.exit('kernel-autofdo-table.py: no kernel samples of the base kernel')
    print()
    print('Where the held-out workloads\' kernel instructions go (samples every'
          f' {period:,} kernel instructions, -icount),')
    print('in the base kernel and in the kernels of recording 1\'s profiles; a'
          ' function inlined in one kernel')
    print('and not in the other moves its instructions to its caller:')
    for kind, what in (('pc', 'perf-ctr'), ('pg', 'llvm-profgen')):
        other = report(os.path.join(d, f'ksample-clang-{kind}1.txt'))
        if not other:
            continue
        tb, to = sum(base.values()), sum(other.values())
        print()
        print(f'{what} profile: {to * period / 1e6:,.1f} M kernel instructions'
              f' against {tb * period / 1e6:,.1f} M ({pct(to, tb):+.2f}%)')
        names = set(base) | set(other)
        delta = sorted(names, key=lambda n: other.get(n, 0) - base.get(n, 0))
        w = max(len(n) for n in delta[:10] + delta[-5:] + ['function'])
        print(f'  {"function":{w}} {"base, M":>9} {what + ", M":>16} {"change, M":>10}')
        shown = delta if len(delta) <= 15 else delta[:10] + ['...'] + delta[-5:]
        for n in shown:
            if n == '...':
                print('  ...')
                continue
            b, o = base.get(n, 0) * period / 1e6, other.get(n, 0) * period / 1e6
            print(f'  {n:{w}} {b:9.2f} {o:16.2f} {o - b:+10.2f}')


if __name__ == '__main__':
    if sys.argv[1] == '--functions':
        functions(sys.argv[2], int(sys.argv[3]))
    else:
        main()
