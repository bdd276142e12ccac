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
"""
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
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main())
