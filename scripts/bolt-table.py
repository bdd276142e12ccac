#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bolt-table.py: the BOLT table of make autofdo (scripts/autofdo.sh).

Reads the round 2 console ("afdo-stat: PROG gcc VARIANT STEP COUNT SHA256"
lines) for each program's -O2 binary (base), its BOLT layout (base-bolt),
its AutoFDO binary at the BOLT period (afdo-P) and that one's BOLT layout
(afdo-P-bolt), and the logs of each layout in BUILD/PROG-gcc-V-bolt/:
perf2bolt's count of traces that mismatch the code, llvm-bolt's
functions with a profile and its dynostats, the taken branches per
thousand instructions that the profile says the binary executes before
and after the new layout (BOLT's estimate from the CTR profile; the
instruction counts are QEMU's, exact). Writes Markdown; exits 1 when a
count is missing or an output differs from the -O2 binary's.
"""
import argparse
import collections
import os
import re
import sys


def parse_console(path):
    runs = collections.defaultdict(dict)    # (prog, variant) -> step -> (n, sha)
    with open(path, errors='replace') as f:
        for line in f:
            parts = line.split()
            if len(parts) != 7 or parts[0] != 'afdo-stat:' or parts[2] != 'gcc':
                continue
            _, prog, _, variant, step, count, sha = parts
            runs[(prog, variant)][step] = (int(count) if count.isdigit() else None, sha)
    return runs


def parse_logs(d):
    """What perf2bolt and llvm-bolt said of one layout."""
    r = {'mismatch': None, 'profiled': None, 'before': {}, 'after': {}}
    p = os.path.join(d, 'perf2bolt.log')
    if os.path.exists(p):
        m = re.search(r'traces mismatching disassembled function contents: (\d+)',
                      open(p, errors='replace').read())
        if m:
            r['mismatch'] = int(m.group(1))
    p = os.path.join(d, 'bolt.log')
    if os.path.exists(p):
        text = open(p, errors='replace').read()
        m = re.search(r'BOLT-INFO: (\d+) out of (\d+) functions in the binary', text)
        if m:
            r['profiled'] = f'{m.group(1)} of {m.group(2)}'
        for name in ('executed instructions', 'taken branches'):
            vals = re.findall(r'^\s*(\d+) : ' + name + r'\b(.*)$', text, re.M)
            for n, rest in vals:
                r['after' if '(' in rest else 'before'].setdefault(name, int(n))
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console', required=True)
    ap.add_argument('--build', required=True)
    ap.add_argument('--period', required=True)
    ap.add_argument('--progs', required=True)
    ap.add_argument('-o', '--output', required=True)
    a = ap.parse_args()
    runs = parse_console(a.console)
    problems = []

    def total(prog, variant, train=False):
        steps = {k: v for k, v in runs.get((prog, variant), {}).items()
                 if k.startswith('train-') == train}
        if not steps or any(n is None for n, _ in steps.values()):
            return None
        return sum(n for n, _ in steps.values())

    out = ['instructions:u of GCC 12 binaries (QEMU -icount: exact) on the held-out and',
           'the training inputs; the BOLT layouts are llvm-bolt 19 with perf-ctr aggregate',
           f'-f bolt of a `perf record -b` recording (period {a.period}) of the binary it',
           'rewrites, on the training inputs. Taken branches per 1,000 instructions are',
           "BOLT's dynostats: what the profile says the binary executes, before and after",
           'its layout.', '',
           '| program | binary | held-out | vs -O2 | training | vs -O2 '
           '| taken / 1k instr. before | after | functions profiled | mismatching traces |',
           '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|']
    for prog in a.progs.split():
        ref = runs.get((prog, 'base'), {})
        base = total(prog, 'base')
        base_t = total(prog, 'base', True)
        for variant, label in (('base', '-O2'), ('base-bolt', '-O2 + BOLT'),
                               (f'afdo-{a.period}', 'AutoFDO'),
                               (f'afdo-{a.period}-bolt', 'AutoFDO + BOLT')):
            for step, (n, sha) in runs.get((prog, variant), {}).items():
                want = (ref.get(step) or (None, None))[1]
                if n is None:
                    problems.append(f'{prog} {variant} {step}: no count')
                elif want and sha != want:
                    problems.append(f'{prog} {variant} {step}: output differs from -O2\'s')
            t, tt = total(prog, variant), total(prog, variant, True)
            log = os.path.join(a.build, f'{prog}-gcc-{variant}', 'bolt.log')
            if t is None and variant.endswith('-bolt') and os.path.exists(log):
                # llvm-bolt failed: say how, as the build did
                text = open(log, errors='replace').read()
                err = re.findall(r'^BOLT-ERROR: .*$', text, re.M)
                why = err[0] if err else ('crashed' if 'Stack dump' in text else 'failed')
                out.append(f'| {prog} | {label} | llvm-bolt 19 {why} |' + ' |' * 7)
                continue
            if t is None:
                if variant.endswith('-bolt'):
                    continue
                problems.append(f'{prog} {variant}: no count')
                continue

            def rel(v, b):
                return 'n/a' if v is None or not b else f'{100 * (v - b) / b:+.2f}%'

            row = [prog, label, f'{t:,}', rel(t, base),
                   'n/a' if tt is None else f'{tt:,}', rel(tt, base_t)]
            if variant.endswith('-bolt'):
                lg = parse_logs(os.path.join(a.build, f'{prog}-gcc-{variant}'))

                def per_k(side):
                    s = lg[side]
                    if not s.get('executed instructions'):
                        return 'n/a'
                    return f'{1000 * s.get("taken branches", 0) / s["executed instructions"]:.1f}'
                row += [per_k('before'), per_k('after'), lg['profiled'] or 'n/a',
                        'n/a' if lg['mismatch'] is None else str(lg['mismatch'])]
            else:
                row += [''] * 4
            out.append('| ' + ' | '.join(row) + ' |')
    if problems:
        out += [''] + ['problem: ' + p for p in problems]
    with open(a.output, 'w') as f:
        f.write('\n'.join(out) + '\n')
    for p in problems:
        print('bolt-table: ' + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
