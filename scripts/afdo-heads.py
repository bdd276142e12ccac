#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the head counts of two LLVM text profiles of one binary.

  afdo-heads.py PROFGEN OURS UNSYM BINARY

PROFGEN is llvm-profgen's profile made from UNSYM, the unsymbolized
profile perf-ctr wrote for BINARY; OURS is perf-ctr's own LLVM text
profile of the same recording. Both count a function's head samples
from the branches to its first byte, with one difference of rule:
llvm-profgen counts every such branch, perf-ctr leaves out a jump from
inside the function (a loop headed at its first instruction, such as
an LR/SC retry loop inlined at the top of mutex_lock), which enters
nothing. This script takes those jumps out of llvm-profgen's counts,
found from UNSYM's branches and the binary's symbols (a call from inside
is recursion: it counts for both), and prints every function whose head
count still differs. Exit 0 when none does.
"""
import os
import struct
import subprocess
import sys

CROSS = os.environ.get("CROSS", "riscv64-linux-gnu-")


def heads(path):
    """name -> head count, of a profile's top-level functions."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith(" "):
                continue
            parts = line.rstrip("\n").rsplit(":", 2)
            if len(parts) == 3 and parts[2].isdigit():
                out[parts[0]] = int(parts[2])
    return out


def first_exec_page(binary):
    """The page of the first executable PT_LOAD: UNSYM's offsets' base."""
    with open(binary, "rb") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    for i in range(phnum):
        p_type, p_flags, _, p_vaddr = struct.unpack_from("<IIQQ", ph, i * phentsize)
        if p_type == 1 and p_flags & 1:
            return p_vaddr & ~0xfff
    sys.exit("afdo-heads: %s has no executable segment" % binary)


def branches(path, base):
    """(from, to, count) of UNSYM's branch section."""
    with open(path) as f:
        lines = f.read().split("\n")
    n = int(lines[0])
    nb = int(lines[n + 1])
    for line in lines[n + 2:n + 2 + nb]:
        pair, count = line.rsplit(":", 1)
        a, b = pair.split("->")
        yield int(a, 16) + base, int(b, 16) + base, int(count)


def functions(binary):
    """start -> (name, size) of the binary's sized function symbols."""
    out = {}
    nm = subprocess.run([CROSS + "nm", "-S", "--defined-only", binary],
                        capture_output=True, text=True, check=True).stdout
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            out.setdefault(int(f[0], 16), (f[3], int(f[1], 16)))
    return out


def is_call(binary, addr):
    """Is the instruction at ADDR a call (jal/jalr that links)?"""
    dis = subprocess.run([CROSS + "objdump", "-d", "--start-address=%#x" % addr,
                          "--stop-address=%#x" % (addr + 2), binary],
                         capture_output=True, text=True, check=True).stdout
    for line in dis.splitlines():
        f = line.split("\t")
        if len(f) >= 3 and f[0].strip().rstrip(":") == "%x" % addr:
            return f[2].strip() in ("jal", "jalr")
    return False


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    profgen, ours, unsym, binary = sys.argv[1:]
    want, got = heads(profgen), heads(ours)
    funcs = functions(binary)
    inner = 0
    for a, b, n in branches(unsym, first_exec_page(binary)):
        f = funcs.get(b)
        if not f or not b <= a < b + f[1] or f[0] not in want:
            continue
        if is_call(binary, a):
            continue
        want[f[0]] -= n
        inner += n
        print("# %s: %d jumps from %#x to its first byte, not entries" %
              (f[0], n, a))
    bad = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    for k in bad[:10]:
        print("# %s: llvm-profgen %s (less jumps from inside), perf-ctr %s" %
              (k, want.get(k), got.get(k)))
    print("%d functions, %d differ; %d jumps to a first byte from inside taken out" %
          (len(got), len(bad), inner))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
