#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""autofdo-table.py: the table of make autofdo (scripts/autofdo.sh).

Reads the round 2 console ("afdo-stat: PROG CC VARIANT STEP COUNT SHA256"
lines), the perf-ctr aggregate -v logs of the recordings
(PROF/PROG-CC-PERIOD.agg, .window.agg for --weight window) and the
overlaps of their line counts with gcov's (--overlap), checks every output against the -O2 binary's
(and against --expect hashes), and writes a Markdown table. Exits 1 when
an output differs, a count is missing or a recording has no sample.

With --bolt-periods "P ..." it also writes --bolt-output: GCC 12's -O2
binary (base), its BOLT layouts (base-bolt-P, one per recording), its
AutoFDO binaries (afdo-P) and their layouts (afdo-P-bolt), medians and
spreads, beside what perf2bolt and
llvm-bolt logged in --bolt-build/PROG-gcc-VARIANT/: traces that
mismatch the code, functions with a profile, and the dynostats' taken
branches per thousand instructions before and after the layout (BOLT's
estimate from the CTR profile; the instruction counts are QEMU's).
"""
import argparse
import collections
import os
import re
import statistics
import sys


def parse_console(paths, problems):
    """The runs of one or more round 2 consoles; a binary counted in two
    of them (-O2 beside the fleet binaries) must count the same, to the
    0.5% by which duk's count varies from run to run (the first count
    stays)."""
    runs = collections.defaultdict(dict)   # (prog, cc, variant) -> step -> (n, sha)
    order = []
    for path in paths:
        with open(path, errors='replace') as f:
            for line in f:
                if not line.startswith('afdo-stat: '):
                    continue
                parts = line.split()
                if len(parts) != 7:
                    continue
                _, prog, cc, variant, step, count, sha = parts
                key = (prog, cc, variant)
                if key not in runs:
                    order.append(key)
                run = (int(count) if count.isdigit() else None, sha)
                old = runs[key].get(step)
                if old is None:
                    runs[key][step] = run
                elif (old[1] != run[1] or None in (old[0], run[0]) or
                      abs(run[0] - old[0]) > 0.005 * old[0]):
                    problems.append(f'{prog}-{cc}-{variant} {step}: {old[0]} in one round, '
                                    f'{run[0]} in another')
    return runs, order


def parse_agg(path):
    """Samples, records, lost records/samples and throttles from -v."""
    r = {'samples': None, 'records': None, 'lost_records': None,
         'lost_samples': None, 'throttled': None, 'warning': ''}
    if not os.path.exists(path):
        return r
    text = open(path, errors='replace').read()
    m = re.search(r'aggregate: (\d+) samples.*?, (\d+) records', text)
    if m:
        r['samples'], r['records'] = int(m.group(1)), int(m.group(2))
    m = re.search(r'dropped by the kernel: (\d+) records, (\d+) samples; '
                  r'throttled (\d+) times', text)
    if m:
        r['lost_records'], r['lost_samples'], r['throttled'] = map(int, m.groups())
    m = re.search(r'warning: (.*)', text)
    if m:
        r['warning'] = m.group(1)
    return r


# variant prefix, row label of the per-recording table, compiler suffix
KINDS = (('afdo', 'AutoFDO (perf-ctr)', ''),
         ('afdowin', 'AutoFDO (perf-ctr, window)', ', --weight window'),
         ('profgen', 'AutoFDO (llvm-profgen)', ', llvm-profgen'),
         ('cs', 'CSSPGO (perf-ctr)', ', CSSPGO'),
         ('csnest', 'CSSPGO (perf-ctr, nested)', ', CSSPGO nested'),
         ('csnat', 'CSSPGO (perf-ctr, native calls)', ', CSSPGO native calls'),
         ('profgencs', 'CSSPGO (llvm-profgen)', ', CSSPGO llvm-profgen'),
         ('profgencsnopre', 'CSSPGO (llvm-profgen, no pre-inliner)',
          ', CSSPGO llvm-profgen without pre-inliner'))


def parse_overlap(path):
    """(prog, cc, weight) -> {period: overlap}"""
    ov = collections.defaultdict(dict)
    if not path or not os.path.exists(path):
        return ov
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 5:
                continue
            prog, cc, per, weight, v = parts
            try:
                ov[(prog, cc, weight)][per] = float(v)
            except ValueError:
                pass
    return ov


def parse_bolt_logs(d):
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
            for n, rest in re.findall(r'^\s*(\d+) : ' + name + r'\b(.*)$', text, re.M):
                r['after' if '(' in rest else 'before'].setdefault(name, int(n))
        r['failed'] = 'Stack dump' in text or 'BOLT-ERROR' in text
        err = re.findall(r'^BOLT-ERROR: .*$', text, re.M)
        r['why'] = err[0] if err else 'crashed'
    return r


def bolt_table(progs, total, periods, build):
    """The BOLT table's lines; total(KEY, train) as main() has it."""
    out = ['instructions:u of GCC 12 binaries (QEMU -icount: exact) on the held-out and',
           'the training inputs; the BOLT layouts are llvm-bolt 19 with perf-ctr aggregate',
           '-f bolt of a `perf record -b` recording of the binary it rewrites, on the',
           f'training inputs: one layout of -O2 per recording of it (periods {", ".join(periods)}),',
           'one of each AutoFDO binary (made from the recording at that period) by a',
           f'recording of its own. Median over the {len(periods)} (min to max). Taken branches per',
           "1,000 instructions are BOLT's dynostats: what the profile says the binary",
           'executes, before and after its layout (median); the functions profiled are',
           "the middle layout's.", '',
           '| program | binary | held-out | vs -O2 | training | vs -O2 '
           '| taken / 1k instr. before | after | functions profiled | mismatching traces |',
           '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|']

    def rel(vals, b):
        vals = [v for v in vals if v is not None]
        if not vals or not b:
            return 'n/a'
        r = sorted(100 * (v - b) / b for v in vals)
        med = f'{statistics.median(r):+.2f}%'
        return med if len(r) == 1 else f'{med} ({r[0]:+.2f} to {r[-1]:+.2f})'

    def med(vals):
        vals = [v for v in vals if v is not None]
        return 'n/a' if not vals else f'{int(statistics.median(vals)):,}'

    def per_k(logs, side):
        v = [1000 * lg[side].get('taken branches', 0) / lg[side]['executed instructions']
             for lg in logs if lg[side].get('executed instructions')]
        return 'n/a' if not v else f'{statistics.median(v):.1f}'

    for prog in progs:
        base = total((prog, 'gcc', 'base'))
        base_t = total((prog, 'gcc', 'base'), True)
        for label, variants in (('-O2', ['base']),
                                ('-O2 + BOLT', [f'base-bolt-{p}' for p in periods]),
                                ('AutoFDO', [f'afdo-{p}' for p in periods]),
                                ('AutoFDO + BOLT', [f'afdo-{p}-bolt' for p in periods])):
            held = [total((prog, 'gcc', v)) for v in variants]
            train = [total((prog, 'gcc', v), True) for v in variants]
            bolt = label.endswith('BOLT')
            logs = [parse_bolt_logs(os.path.join(build, f'{prog}-gcc-{v}'))
                    for v in variants] if bolt else []
            if all(t is None for t in held):
                # no binary: llvm-bolt failed (the build said so), or no BOLT
                failed = [lg for lg in logs if lg.get('failed')]
                if failed:
                    out.append(f'| {prog} | {label} | llvm-bolt 19 {failed[0]["why"]} |'
                               + ' |' * 7)
                continue
            row = [prog, label, med(held), rel(held, base) if label != '-O2' else '',
                   med(train), rel(train, base_t) if label != '-O2' else '']
            if bolt:
                ok = [lg for lg, t in zip(logs, held) if t is not None]
                mism = [lg['mismatch'] for lg in ok if lg['mismatch'] is not None]
                prof = [lg['profiled'] for lg in ok if lg['profiled']]
                row += [per_k(ok, 'before'), per_k(ok, 'after'),
                        prof[len(prof) // 2] if prof else 'n/a',
                        'n/a' if not mism else
                        f'{sum(mism)} in {len(mism)} layout{"s" if len(mism) > 1 else ""}']
            else:
                row += [''] * 4
            out.append('| ' + ' | '.join(row) + ' |')
    return out


def pct(a, b):
    return f'{100.0 * a / b:.1f}%' if b else 'n/a'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--console', required=True, action='append',
                    help='a round 2 console (again for another round)')
    ap.add_argument('--prof', required=True)
    ap.add_argument('--periods', required=True)
    ap.add_argument('--expect', action='append', default=[],
                    help='"PROG STEP SHA256": what every binary must print')
    ap.add_argument('--note', action='append', default=[])
    ap.add_argument('--overlap', help='"PROG CC PERIOD WEIGHT OVERLAP" lines '
                    '(scripts/afdo-overlap.py of each recording)')
    ap.add_argument('--exact', help='"PROG CC PERIOD WEIGHT OVERLAP" lines '
                    '(scripts/afdo-exact.py of each recording)')
    ap.add_argument('--exact-sum', help='"PROG CC INSTRUCTIONS" lines: what '
                    'each exact run counted of the base binary on the training inputs')
    ap.add_argument('-o', required=True)
    ap.add_argument('--bolt-periods', help="the BOLT table's periods")
    ap.add_argument('--bolt-build', help="the BOLT layouts' directories")
    ap.add_argument('--bolt-output', help='where the BOLT table goes')
    a = ap.parse_args()

    problems = []
    runs, order = parse_console(a.console, problems)
    periods = a.periods.split()
    expect = {}
    for e in a.expect:
        prog, step, sha = e.split()
        expect[(prog, step)] = sha

    def total(key, train=False):
        """The sum over the held-out steps (train: the train-* ones)."""
        steps = {k: v for k, v in runs.get(key, {}).items()
                 if k.startswith('train-') == train}
        if not steps or any(n is None for n, _ in steps.values()):
            return None
        return sum(n for n, _ in steps.values())

    # every output must be the -O2 binary's, and what the host expects
    for key in order:
        prog, cc, variant = key
        ref = runs.get((prog, 'gcc', 'base'), {})
        for step, (n, sha) in runs[key].items():
            if n is None:
                problems.append(f'{prog}-{cc}-{variant} {step}: no count')
            want = expect.get((prog, step)) or (ref.get(step) or (None, None))[1]
            if want and sha != want:
                problems.append(f'{prog}-{cc}-{variant} {step}: output differs '
                                f'from the expected one ({sha[:12]} != {want[:12]})')

    progs = []
    for prog, cc, _ in order:
        if (prog, cc) not in progs:
            progs.append((prog, cc))

    out = []
    out.append('instructions:u on the held-out inputs (QEMU -icount: exact, one run each);')
    out.append('AutoFDO: one profile per `perf record -b` recording of the -O2 binary on the')
    out.append(f'training inputs, periods {", ".join(periods)}; "of FDO" is')
    out.append('(-O2 - AutoFDO) / (-O2 - FDO).')
    out.append('')
    out.append('| program | compiler | -O2 | FDO | AutoFDO median | AutoFDO min | AutoFDO max '
               '| AutoFDO of FDO: median | min | max |')
    out.append('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    per_rec = []
    for prog, cc in progs:
        base = total((prog, cc, 'base'))
        fdo = total((prog, cc, 'fdo'))
        for kind, label, suffix in KINDS:
            vals = {}
            for per in periods:
                t = total((prog, cc, f'{kind}-{per}'))
                if t is not None:
                    vals[per] = t
            if not vals:
                continue
            ratio = {}
            if base is not None and fdo is not None and base != fdo:
                ratio = {per: (base - v) / (base - fdo) for per, v in vals.items()}
            name = cc + suffix
            sv = sorted(vals.values())

            def fmt(v):
                return f'{v:,}' + (f' ({pct(v - base, base)})' if base else '')

            row = [prog, name, f'{base:,}' if base else 'n/a',
                   fmt(fdo) if fdo is not None else 'n/a',
                   fmt(int(statistics.median(sv))), fmt(sv[0]), fmt(sv[-1])]
            if ratio:
                rv = sorted(ratio.values())
                row += [f'{100 * statistics.median(rv):.0f}%', f'{100 * rv[0]:.0f}%',
                        f'{100 * rv[-1]:.0f}%']
            else:
                row += ['n/a'] * 3
            out.append('| ' + ' | '.join(row) + ' |')
            for per in periods:
                if per not in vals:
                    continue
                agg = parse_agg(os.path.join(
                    a.prof, f'{prog}-{cc}-{per}{".window" if kind == "afdowin" else ""}.agg'))
                if agg['samples'] == 0 or agg['samples'] is None:
                    problems.append(f'{prog}-{cc} at {per}: no samples')
                per_rec.append((prog, label if cc == 'gcc' else f'{label}, {cc}', per,
                                agg, vals[per], ratio.get(per)))

    fleet = [(prog, cc) for prog, cc in progs if (prog, cc, 'fleet') in runs]
    if fleet:
        out.append('')
        out.append('Fleet: the recordings in one profile, as several machines\' would be merged')
        out.append('(LLVM: `llvm-profdata merge --sample` of their profiles; GCC: one perf-ctr')
        out.append('aggregate of them all, Debian having no merger for its format), beside the')
        out.append('median of the single recordings\' binaries:')
        out.append('')
        out.append('| program | compiler | -O2 | FDO | fleet | of FDO | single recordings, median | of FDO |')
        out.append('|---|---|---:|---:|---:|---:|---:|---:|')
        for prog, cc in fleet:
            base = total((prog, cc, 'base'))
            fdo = total((prog, cc, 'fdo'))
            fl = total((prog, cc, 'fleet'))
            single = [total((prog, cc, f'afdo-{per}')) for per in periods]
            single = [v for v in single if v is not None]
            med = int(statistics.median(single)) if single else None

            def cell(v):
                if v is None or not base:
                    return 'n/a'
                return f'{v:,} ({pct(v - base, base)})'

            def share(v):
                if v is None or not base or fdo is None or base == fdo:
                    return 'n/a'
                return f'{100 * (base - v) / (base - fdo):.0f}%'
            out.append(f'| {prog} | {cc} | {base:,} | {cell(fdo)} | {cell(fl)} | {share(fl)} '
                       f'| {cell(med)} | {share(med)} |' if base else
                       f'| {prog} | {cc} | n/a | | | | | |')

    out.append('')
    out.append('Per recording (perf-ctr aggregate -v: samples of the program, their records,')
    out.append('what the kernel dropped or throttled):')
    out.append('')
    out.append('| program | profile | period | samples | records | lost records / samples '
               '| throttled | instructions:u | of FDO |')
    out.append('|---|---|---:|---:|---:|---:|---:|---:|---:|')
    for prog, label, per, agg, v, r in per_rec:
        def g(k):
            return 'n/a' if agg[k] is None else f'{agg[k]:,}'
        out.append(f'| {prog} | {label} | {per} | {g("samples")} | {g("records")} | '
                   f'{g("lost_records")} / {g("lost_samples")} | {g("throttled")} | '
                   f'{v:,} | {"n/a" if r is None else f"{100 * r:.0f}%"} |')

    if any(total((p, c, 'base'), True) for p, c in progs):
        out.append('')
        out.append('The same binaries on the training inputs (where the profiles were taken):')
        out.append('')
        out.append('| program | compiler | -O2 | FDO | ' +
                   ' | '.join(f'{label.replace(" (", " median (", 1)} | of FDO'
                              for _, label, _ in KINDS) + ' |')
        out.append('|---|---|---:|---:|' + '---:|---:|' * len(KINDS))
        for prog, cc in progs:
            base = total((prog, cc, 'base'), True)
            fdo = total((prog, cc, 'fdo'), True)
            if base is None:
                continue
            row = [prog, cc, f'{base:,}', 'n/a' if fdo is None else
                   f'{fdo:,} ({pct(fdo - base, base)})']
            for kind, _, _ in KINDS:
                v = [total((prog, cc, f'{kind}-{per}'), True) for per in periods]
                v = [x for x in v if x is not None]
                if not v:
                    row += ['n/a', 'n/a']
                    continue
                m = int(statistics.median(v))
                row.append(f'{m:,} ({pct(m - base, base)})')
                row.append(f'{100 * (base - m) / (base - fdo):.0f}%'
                           if fdo is not None and fdo != base else 'n/a')
            out.append('| ' + ' | '.join(row) + ' |')

    def accuracy(ov, heading):
        if not ov:
            return
        out.append('')
        out.extend(heading)
        out.append('')
        out.append('| program | binary | --weight | ' + ' | '.join(periods) + ' | median |')
        out.append('|---|---|---|' + '---:|' * (len(periods) + 1))
        for prog, cc in progs:
            for weight in ('none', 'window'):
                v = ov.get((prog, cc, weight))
                if not v:
                    continue
                cells = [f'{v[per]:.3f}' if per in v else 'n/a' for per in periods]
                out.append(f'| {prog} | {cc} -O2 | {weight} | ' + ' | '.join(cells) +
                           f' | {statistics.median(v.values()):.3f} |')

    accuracy(parse_overlap(a.exact), [
        'Accuracy against the exact counts: the overlap of each recording\'s',
        'instruction counts (each instruction counted by the ranges of `perf-ctr',
        'aggregate -f autofdo-text` that cover it) with the exact ones of the same',
        'binary\'s training run (tools/insn-count, a QEMU plugin counting every',
        'instruction), both normalised to sum 1 over the binary\'s text: sum of',
        'min(p, q); 1 is a perfect match.'])
    # The plugin's counts against perf stat's instructions:u of the same
    # binary on the same inputs, in another run: what it counts is what
    # the hart retired, but for the instructions that trap and start
    # again. bzip2 and lua agree to a few hundred instructions; duk's runs
    # differ by up to 0.3% among themselves (its recordings' samples
    # too), so only a larger difference is a problem: the count of
    # another program's code, or of only part of this one's.
    if a.exact_sum and os.path.exists(a.exact_sum):
        out.append('')
        for line in open(a.exact_sum):
            prog, cc, n = line.split()
            stat = total((prog, cc, 'base'), True)
            if stat is None:
                continue
            diff = (int(n) - stat) / stat
            out.append(f'{prog} {cc}: the exact run counted {int(n):,} instructions, '
                       f'perf stat {stat:,} ({100 * diff:+.3f}%).')
            if abs(diff) > 0.005:
                problems.append(f'{prog}-{cc}: the exact counts sum to {int(n):,}, '
                                f'perf stat counted {stat:,}')
    accuracy(parse_overlap(a.overlap), [
        'Accuracy against gcov: the overlap of each recording\'s line counts (`perf-ctr',
        '-f lines`: the count of each line\'s most executed instruction) with the',
        'exact ones of gcov (GCC 12 -O2 --coverage, run on the same training inputs),',
        'both normalised to sum 1 over (file, line) of the program\'s own sources:',
        'sum of min(p, q); 1 is a perfect match.'])

    out.append('')
    out.append('Per step:')
    out.append('')
    out.append('| program | compiler | step | -O2 | FDO | AutoFDO median '
               '| AutoFDO median (window) |')
    out.append('|---|---|---|---:|---:|---:|---:|')
    for prog, cc in progs:
        for step in runs.get((prog, cc, 'base'), {}):
            def n(v):
                return (runs.get((prog, cc, v), {}).get(step) or (None,))[0]
            def med(kind):
                v = [n(f'{kind}-{per}') for per in periods]
                v = [x for x in v if x is not None]
                return 'n/a' if not v else f'{int(statistics.median(v)):,}'
            b, f_ = n('base'), n('fdo')
            out.append(f'| {prog} | {cc} | {step} | {"n/a" if b is None else f"{b:,}"} | '
                       f'{"n/a" if f_ is None else f"{f_:,}"} | '
                       f'{med("afdo")} | {med("afdowin")} |')
    for note in a.note:
        out.append('')
        out.append(note)
    if problems:
        out.append('')
        out.append('Problems:')
        out.extend(f'- {p}' for p in problems)
    with open(a.o, 'w') as f:
        f.write('\n'.join(out) + '\n')
    if a.bolt_periods:
        # every binary's output was checked above, the BOLT layouts' too
        lines = bolt_table([p for p, c in progs if c == 'gcc'], total,
                           a.bolt_periods.split(), a.bolt_build)
        with open(a.bolt_output, 'w') as f:
            f.write('\n'.join(lines) + '\n')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
