#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gcov-keys.py [--heads] FILE: the location keys of a GCC AutoFDO (afdo
v2) profile.

Prints one line "FUNCTION LINE_OFFSET DISCRIMINATOR COUNT" per body
location and "FUNCTION LINE_OFFSET DISCRIMINATOR inline CALLEE" per inlined
call site, walking the format perf-ctr aggregate -f gcov writes (what GCC's
auto-profile.cc reads): magic, version, string table, function instances.
Exits 3 when an instance is named by string index 0, which GCC's
string_table::get_name() refuses with an internal compiler error.
With --heads, one line "FUNCTION HEAD_COUNT" per function instead.
"""
import struct
import sys


def main():
    heads = sys.argv[1] == '--heads'
    b = open(sys.argv[-1], 'rb').read()
    _, _, _, _, _, nstr = struct.unpack_from('<6I', b, 0)
    p, names = 24, []
    for _ in range(nstr):
        n, = struct.unpack_from('<I', b, p)
        names.append(b[p + 4:p + 3 + n].decode())
        p += 4 + n
    _, _, nfn = struct.unpack_from('<3I', b, p)
    p += 12

    bad = []

    def inst(p, name):
        idx, npos, nkids = struct.unpack_from('<3I', b, p)
        if idx == 0:
            bad.append(name)
        p += 12
        for _ in range(npos):
            key, ntgt = struct.unpack_from('<2I', b, p)
            count, = struct.unpack_from('<Q', b, p + 8)
            if not heads:
                print(name, key >> 16, key & 0xffff, count)
            p += 16 + 20 * ntgt
        for _ in range(nkids):
            key, = struct.unpack_from('<I', b, p)
            callee, = struct.unpack_from('<I', b, p + 4)
            if not heads:
                print(name, key >> 16, key & 0xffff, 'inline', names[callee])
            p = inst(p + 4, names[callee])
        return p

    for _ in range(nfn):
        head, fn = struct.unpack_from('<QI', b, p)
        if heads:
            print(names[fn], head)
        p = inst(p + 8, names[fn])
    if bad:
        print('string index 0 names %s' % bad[0], file=sys.stderr)
        sys.exit(3)


if __name__ == '__main__':
    main()
