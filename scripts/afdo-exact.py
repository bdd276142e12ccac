#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How close a sampled profile's instruction counts are to the exact ones.

  afdo-exact.py overlap BINARY COUNTS PROFILE
      COUNTS: tools/insn-count's "ADDRESS COUNT" lines of a run;
      PROFILE: perf-ctr aggregate -f autofdo-text of a recording of the
      same run. Each instruction a range of PROFILE covers gets the
      range's count; both sides are normalised to sum 1 over the
      executable segments, and the overlap, the sum over instructions of
      the smaller share, is printed: 1 is a perfect match, 0 nothing in
      common.

  afdo-exact.py functions BINARY_A COUNTS_A BINARY_B COUNTS_B [N]
      Where two builds of one program differ: the instructions each
      function executed in each run (COUNTS as above, of the same input),
      a function's clones and split parts (foo.part.0, foo.cold,
      foo.isra.0, ...) counted as foo, the N (default 15) largest
      differences first, then the totals. Code inlined into a function
      counts as that function's.

  afdo-exact.py accuracy BINARY COUNTS PROFILE [--held-out COUNTS] [FUNCTION...]
      overlap's measure per function of BINARY (by symbol, as above):
      its share of the profile and of the exact counts, the overlap of
      the two within it (its shape), the instructions that ran with no
      count in the profile and, given a held-out run's exact counts of
      the same binary, that run's instructions in code the profile has
      no count for. The functions named, else the 15 that lose the
      most overlap.
"""
import bisect
import struct
import sys

PT_LOAD, PF_X = 1, 1


def segments(path):
    """[(vaddr, memsz, data)] of the PT_LOAD segments, and the first's vaddr."""
    with open(path, 'rb') as f:
        elf = f.read()
    if elf[:4] != b'\x7fELF' or elf[4] != 2 or elf[5] != 1:
        sys.exit(f'afdo-exact: {path} is not a little-endian ELF64 file')
    phoff, = struct.unpack_from('<Q', elf, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', elf, 0x36)
    segs = []
    for i in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = \
            struct.unpack_from('<IIQQQQQQ', elf, phoff + i * phentsize)
        if p_type == PT_LOAD:
            segs.append((p_vaddr, p_memsz, p_flags,
                         elf[p_offset:p_offset + p_filesz]))
    if not segs:
        sys.exit(f'afdo-exact: {path} has no PT_LOAD segment')
    return segs


def text(path):
    return [(v, m, d) for v, m, fl, d in segments(path) if fl & PF_X]


def insn_len(data, off):
    """RISC-V: 16-bit unless the two low bits are both set."""
    return 4 if data[off] & 3 == 3 else 2


def profile_counts(path, binary):
    """instruction address -> the summed counts of the ranges covering it"""
    base = segments(binary)[0][0]
    segs = text(binary)
    counts = {}
    with open(path) as f:
        lines = iter(f.read().split('\n'))
    n = int(next(lines))
    for _ in range(n):
        rng, c = next(lines).split(':')
        b, e = (int(x, 16) + base for x in rng.split('-'))
        c = float(c)
        seg = next((s for s in segs if s[0] <= b and e < s[0] + len(s[2])), None)
        if seg is None:
            continue
        a = b
        while a <= e:
            counts[a] = counts.get(a, 0.0) + c
            a += insn_len(seg[2], a - seg[0])
    return counts


def exact_counts(path):
    counts = {}
    with open(path) as f:
        for line in f:
            a, c = line.split()
            counts[int(a, 16)] = int(c)
    return counts


SHT_SYMTAB, STT_FUNC = 2, 2


def functions(path):
    """[(start, end, name)] of the FUNC symbols, clone suffixes dropped"""
    with open(path, 'rb') as f:
        elf = f.read()
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum = struct.unpack_from('<HH', elf, 0x3a)
    shdrs = [struct.unpack_from('<IIQQQQIIQQ', elf, shoff + i * shentsize)
             for i in range(shnum)]
    out = []
    for sh in shdrs:
        if sh[1] != SHT_SYMTAB:
            continue
        strtab = shdrs[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], sh[9]):
            name, info, _, _, value, size = struct.unpack_from('<IBBHQQ', elf, off)
            if info & 0xf != STT_FUNC or not size:
                continue
            at = strtab[4] + name
            n = elf[at:elf.index(b'\0', at)].decode()
            out.append((value, value + size, n.split('.')[0]))
    return sorted(out)


def function_of(binary):
    """address -> the name of BINARY's function holding it"""
    fns = functions(binary)
    starts = [f[0] for f in fns]

    def name(a):
        i = bisect.bisect_right(starts, a) - 1
        return fns[i][2] if i >= 0 and a < fns[i][1] else '(no symbol)'
    return name


def per_function(binary, counts):
    name = function_of(binary)
    out = {}
    for a, c in counts.items():
        out[name(a)] = out.get(name(a), 0) + c
    return out


def compare(argv):
    a = per_function(argv[0], exact_counts(argv[1]))
    b = per_function(argv[2], exact_counts(argv[3]))
    n = int(argv[4]) if len(argv) > 4 else 15
    names = sorted(set(a) | set(b), key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))
    print('| function | A | B | B - A | of the total\'s change |')
    print('|---|---:|---:|---:|---:|')
    ta, tb = sum(a.values()), sum(b.values())
    for k in names[:n]:
        d = b.get(k, 0) - a.get(k, 0)
        share = f'{100 * d / (tb - ta):.0f}%' if tb != ta else ''
        print(f'| {k} | {a.get(k, 0):,} | {b.get(k, 0):,} | {d:+,} | {share} |')
    print(f'| total | {ta:,} | {tb:,} | {tb - ta:+,} ({100 * (tb - ta) / ta:+.2f}%) | |')


def accuracy(argv):
    binary, counts, prof = argv[:3]
    rest, held = argv[3:], {}
    if rest[:1] == ['--held-out'] and len(rest) > 1:
        held, rest = exact_counts(rest[1]), rest[2:]
    p, q = profile_counts(prof, binary), exact_counts(counts)
    sp, sq = sum(p.values()), sum(q.values())
    name = function_of(binary)
    per = {}
    for a in set(p) | set(q) | set(held):
        per.setdefault(name(a), []).append(a)
    rows = []
    for name, addrs in per.items():
        tp = sum(p.get(a, 0) for a in addrs) / sp
        tq = sum(q.get(a, 0) for a in addrs) / sq
        shape = sum(min(p.get(a, 0) / sp / tp, q.get(a, 0) / sq / tq)
                    for a in addrs) if tp and tq else 0.0
        # what this function adds to 1 - overlap of the whole program
        miss = sum(abs(p.get(a, 0) / sp - q.get(a, 0) / sq) for a in addrs) / 2
        unseen = sum(q.get(a, 0) for a in addrs if not p.get(a))
        held_unseen = sum(held.get(a, 0) for a in addrs if not p.get(a))
        rows.append((miss, name, tp, tq, shape, unseen, held_unseen,
                     sum(held.get(a, 0) for a in addrs)))
    rows.sort(reverse=True)
    if rest:
        rows = [r for r in rows if r[1] in rest]
    else:
        rows = rows[:15]
    print('| function | profile share | exact share | shape | ran, no count |'
          + (' held out in code with no count |' if held else ''))
    print('|---|---:|---:|---:|---:|' + ('---:|' if held else ''))
    for _, name, tp, tq, shape, unseen, hu, ht in rows:
        print(f'| {name} | {tp:.4f} | {tq:.4f} | {shape:.3f} | {unseen:,} |'
              + (f' {hu:,} of {ht:,} |' if held else ''))


def overlap(p, q):
    sp, sq = sum(p.values()), sum(q.values())
    if not sp or not sq:
        return 0.0
    return sum(min(p.get(a, 0) / sp, q.get(a, 0) / sq) for a in set(p) | set(q))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == 'overlap':
        _, _, binary, counts, prof = sys.argv
        print(f'{overlap(profile_counts(prof, binary), exact_counts(counts)):.3f}')
        return 0
    if len(sys.argv) >= 5 and sys.argv[1] == 'accuracy':
        accuracy(sys.argv[2:])
        return 0
    if len(sys.argv) in (6, 7) and sys.argv[1] == 'functions':
        compare(sys.argv[2:])
        return 0
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main())
