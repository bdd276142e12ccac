#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk-ring-walk.py RUNS MOD F1 F2...: the taken transfers of a run of
afdo/ring.c (for perf-ctr synth --walk), from its objdump -d
--no-show-raw-insn on stdin: main calls F1
RUNS times through its pointer, the r-th time with r % MOD; each
function of the ring F1 -> F2 -> ... -> F1 returns at 0 (its first
branch, taken, then the return after its target) or else calls the next
through its pointer (the jalr not through ra) and returns after it.
Prints "FROM TO" in hex a line, oldest first. Exits 1 with a message
when the code is not of that shape."""
import re
import sys


def parse(text):
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'^([0-9a-f]+) <(.*)>:$', line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(\S*)', line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def shape(funcs, name):
    """A function's call through a pointer (jalr, the address after it),
    its conditional branches ((pc, target)) and its returns."""
    ins = funcs.get(name)
    if not ins:
        sys.exit('mk-ring-walk.py: no function %s' % name)
    calls = [(pc, ins[i + 1][0]) for i, (pc, op, arg) in enumerate(ins)
             if op == 'jalr' and '(' not in arg and i + 1 < len(ins)]
    conds = [(pc, int(arg.split(',')[-1], 16)) for pc, op, arg in ins
             if op.startswith('b')]
    rets = [pc for pc, op, _ in ins if op == 'ret']
    if len(calls) != 1 or not conds or not rets:
        sys.exit('mk-ring-walk.py: %s: not one call through a pointer, '
                 'a branch and a return' % name)
    return {'start': ins[0][0], 'call': calls[0], 'conds': conds, 'rets': rets}


def main():
    runs, mod, ring = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    funcs = parse(sys.stdin.read())
    m = shape(funcs, 'main')
    back = [c for c in m['conds'] if c[1] < c[0] and c[1] < m['call'][0] < c[0]]
    if len(back) != 1:
        sys.exit('mk-ring-walk.py: main: not one loop around its call')
    fs = []
    for name in ring:
        f = shape(funcs, name)
        br, base = f['conds'][0], f['conds'][0][1]
        if f['start'] != br[0]:
            sys.exit('mk-ring-walk.py: %s: does not start with its branch' % name)
        f['ret_body'] = [r for r in f['rets'] if f['call'][0] < r < base]
        f['ret_base'] = [r for r in f['rets'] if r >= base]
        if len(f['ret_body']) != 1 or not f['ret_base']:
            sys.exit('mk-ring-walk.py: %s: not one return either way' % name)
        fs.append(f)
    out = []
    for r in range(runs):
        # main's call, then down the ring, then back up
        out.append((m['call'][0], fs[0]['start']))
        stack = [m['call'][1]]
        for d in range(r % mod + 1):
            f = fs[d % len(fs)]
            if d == r % mod:
                out.append(f['conds'][0])
                out.append((f['ret_base'][0], stack.pop()))
            else:
                out.append((f['call'][0], fs[(d + 1) % len(fs)]['start']))
                stack.append(f['call'][1])
        for d in range(r % mod - 1, -1, -1):
            out.append((fs[d % len(fs)]['ret_body'][0], stack.pop()))
        if r < runs - 1:
            out.append(back[0])
    sys.stdout.write(''.join('%x %x\n' % t for t in out))


main()
