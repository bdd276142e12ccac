#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""e2e.py DATA_DIR GUEST_BIN [CAPS]: perf-ctr on perf.data the guest recorded.

The guest (scripts/guest/perf-tests.sh) records the workload whose control
flow is known (workload.S) with the Debian perf and prints the files on
its console: u.data (-j any,u,save_type) and cs.data (--call-graph lbr).
This checks what a user of perf-ctr would look at: the hottest edges are
the workload's transfers with their types, the AutoFDO branch counts say
the same, the lint finds nothing impossible, and call-stack samples fold
into the workload's real call chain. CAPS is what the hart has, as the
guest's ctr.caps= says it (mispred=0,cycles=0,call_stack=0...; every part
by default): without MISP no record may say P or M, without a cycle
counter none may have a count, and without call-stack mode the guest has
no cs.data to fold. Prints PASS/FAIL lines.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..', '..'))
PC = os.path.join(TOP, 'out', 'perf-ctr', 'perf-ctr')

# (from label, to label, perf-ctr type); '+4' means the instruction after.
TRANSFERS = [
    ('ctr_wl_dircall', 'ctr_wl_leaf', 'CALL'),
    ('ctr_wl_leaf_ret', 'ctr_wl_dircall+4', 'RET'),
    ('ctr_wl_indcall', 'ctr_wl_leaf', 'IND_CALL'),
    ('ctr_wl_leaf_ret', 'ctr_wl_indcall+4', 'RET'),
    ('ctr_wl_taken', 'ctr_wl_taken_to', 'COND'),
    ('ctr_wl_dirjump', 'ctr_wl_dirjump_to', 'UNCOND'),
    ('ctr_wl_indjump', 'ctr_wl_indjump_to', 'IND'),
    ('ctr_wl_swap', 'ctr_wl_coroutine', 'RISCV_CO_SWAP'),
    ('ctr_wl_coroutine_swap', 'ctr_wl_dirlink', 'RISCV_CO_SWAP'),
    ('ctr_wl_dirlink', 'ctr_wl_other', 'RISCV_DIR_LINK_JUMP'),
    ('ctr_wl_indlink', 'ctr_wl_other', 'RISCV_IND_LINK_JUMP'),
    ('ctr_wl_other_ret', 'ctr_wl_dirlink+4', 'IND'),
    ('ctr_wl_other_ret', 'ctr_wl_indlink+4', 'IND'),
    ('ctr_wl_loopbr', 'ctr_wl_loop', 'COND'),
]

results = []


def verdict(ok, name, why=''):
    results.append(ok)
    print(f'{"PASS" if ok else "FAIL"} e2e: {name}')
    if not ok and why:
        print(f'# {why}', file=sys.stderr)


def run(*args):
    p = subprocess.run([PC, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    data, bins = sys.argv[1], sys.argv[2]
    # CAPS: "" (every part) or what the hart has, "types=1,mispred=0,...".
    caps = dict(kv.split('=', 1) for kv in
                (sys.argv[3] if len(sys.argv) > 3 else '').split(',') if kv)
    has = {k: caps.get(k, '1') == '1' for k in ('mispred', 'cycles', 'call_stack')}
    syms = {}
    with open(os.path.join(bins, 'workload.syms')) as f:
        for line in f:
            addr, _, name = line.split()
            syms[name] = int(addr, 16)

    def addr(label):
        name, _, off = label.partition('+')
        return syms[name] + int(off or 0)

    want = {(addr(a), addr(b), t) for a, b, t in TRANSFERS}
    u, cs = os.path.join(data, 'u.data'), os.path.join(data, 'cs.data')
    if not os.path.exists(u) or os.path.exists(cs) != has['call_stack']:
        verdict(False, 'the guest printed u.data, and cs.data exactly where '
                'the hart has call stacks')
        return 1

    # perf-ctr looks binaries up by their guest path under --symfs.
    symfs = tempfile.mkdtemp()
    os.makedirs(os.path.join(symfs, 'ctr'))
    os.symlink(os.path.join(bins, 'workload'), os.path.join(symfs, 'ctr', 'workload'))

    rc, out, err = run('--symfs', symfs, 'report', '-i', u, '--json',
                       '--limit', str(len(TRANSFERS)))
    got = set()
    if rc == 0:
        got = {(int(e['from'], 16), int(e['to'], 16), e['type'])
               for e in json.loads(out)['edges']}
    verdict(rc == 0 and got == want,
            f'report: the {len(TRANSFERS)} hottest edges are the workload\'s '
            'transfers, with their types',
            err.strip() or f'missing {sorted(want - got)}, extra {sorted(got - want)}')

    rc, out, err = run('aggregate', '-i', u, '--binary',
                       os.path.join(bins, 'workload'), '--format', 'autofdo-text')
    base = min(a for a, _, _ in want) & ~0xffff
    branches = []
    for line in out.splitlines():
        m = re.fullmatch(r'([0-9a-f]+)->([0-9a-f]+):(\d+)', line.strip())
        if m:
            branches.append((int(m[3]), int(m[1], 16) + base, int(m[2], 16) + base))
    top = {(f, t) for _, f, t in sorted(branches, reverse=True)[:len(TRANSFERS)]}
    verdict(rc == 0 and top == {(f, t) for f, t, _ in want},
            'aggregate autofdo-text: the hottest branch counts are the workload\'s',
            err.strip() or f'top {sorted(top)}')

    rc, out, err = run('check', '-i', u)
    bad = {k: int(v) for k, v in re.findall(
        r'^(backward-range|outside-mapping)\s+(\d+)$', out, re.M)}
    verdict(rc in (0, 1) and bad.get('backward-range') == 0 and
            bad.get('outside-mapping') == 0,
            'check: no impossible range, no address outside a mapping',
            out[-400:] + err)

    # The hart (the project's QEMU) marks every record predicted or
    # mispredicted from its predictor model, never a direct call or jump,
    # and counts cycles: perf-ctr script shows both as perf does.
    rc, out, err = run('script', '-i', u, '-F', 'brstack')
    recs = [r.split('/') for r in out.split() if r.count('/') == 7]
    flags = {}
    for r in recs:
        flags[r[2]] = flags.get(r[2], 0) + 1
    direct_m = sum(1 for r in recs if r[2] == 'M' and r[6] in ('CALL', 'UNCOND'))
    counted = sum(1 for r in recs if r[5] not in ('', '0'))
    if has['mispred']:
        verdict(rc == 0 and recs and set(flags) <= {'P', 'M'} and flags.get('M')
                and not direct_m,
                'script: every record P or M, some M, no direct call or jump M',
                err.strip() or f'flags {flags}, {direct_m} direct ones M')
    else:
        verdict(rc == 0 and recs and set(flags) == {'-'},
                'script: no record P or M on a hart without MISP',
                err.strip() or f'flags {flags}')
    if has['cycles']:
        verdict(rc == 0 and recs and counted * 2 > len(recs),
                'script: most records carry a cycle count',
                err.strip() or f'{counted} of {len(recs)} records')
    else:
        verdict(rc == 0 and recs and not counted,
                'script: no cycle count on a hart without one',
                err.strip() or f'{counted} of {len(recs)} records')
    if not has['call_stack']:
        return 0 if all(results) else 1

    # Samples taken in the workload's code fold into its real call chain;
    # the others (libc's start-up and exit, how many depends on QEMU's
    # timing) still hang from _start.
    rc, out, err = run('--symfs', symfs, 'report', '-i', cs, '--folded')
    total = rooted = in_wl = good = 0
    chain = 'workload;_start;__libc_start_main_impl;__libc_start_call_main;'
    for line in out.splitlines():
        stack, _, n = line.rpartition(' ')
        total += int(n)
        rooted += int(n) if stack.startswith('workload;_start;') else 0
        if stack.rsplit(';', 1)[-1].startswith('ctr_wl_'):
            in_wl += int(n)
            good += int(n) if stack.startswith(chain) else 0
    verdict(rc == 0 and in_wl > 0 and good >= 0.9 * in_wl and
            rooted >= 0.9 * total,
            f'report --folded: call-stack samples in the workload fold into '
            f'its call chain ({good} of {in_wl}; {rooted} of {total} from '
            f'_start)', err.strip())
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
