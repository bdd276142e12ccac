#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gcov-keys.py [--heads | --files | --summary] FILE: the location keys of a
GCC AutoFDO profile (gcov version 2, or 3 as GCC 16 reads it).

Prints one line "FUNCTION LINE_OFFSET DISCRIMINATOR COUNT" per body
location and "FUNCTION LINE_OFFSET DISCRIMINATOR inline CALLEE" per inlined
call site, walking the format perf-ctr aggregate -f gcov writes (what GCC's
auto-profile.cc reads): magic, version, (3: summary), string table (3: with
a file table and each name's file), function instances (3: each top-level
one with a timestamp). Exits 3 when an instance is named by string index
0, which GCC's string_table::get_name() refuses with an internal compiler
error.
With --heads, one line "FUNCTION HEAD_COUNT" per function instead; with
--files, "NAME FILE" per name of the string table (version 3; "-" for
none); with --summary, "summary TOTAL MAX MAX_HEAD NUM_COUNTS NUM_FUNCTIONS"
and one "cutoff CUTOFF MIN_COUNT NUM_COUNTS" line per cutoff (version 3).
The first line of --files and --summary is "version N".
"""
import signal
import struct
import sys

AFDO_SUMMARY = 0xa8000000


def main():
    mode = sys.argv[1] if len(sys.argv) > 2 else ''
    b = open(sys.argv[-1], 'rb').read()
    _, version, _ = struct.unpack_from('<3I', b, 0)
    p = 12
    if mode in ('--files', '--summary'):
        print('version', version)
    if version >= 3:
        tag, = struct.unpack_from('<I', b, p)
        assert tag == AFDO_SUMMARY, 'no summary'
        total, mx, mxh, ncounts, nfns, ncut = struct.unpack_from('<6Q', b, p + 4)
        p += 4 + 48
        if mode == '--summary':
            print('summary', total, mx, mxh, ncounts, nfns)
        for _ in range(ncut):
            cut, = struct.unpack_from('<I', b, p)
            mn, num = struct.unpack_from('<2Q', b, p + 4)
            p += 20
            if mode == '--summary':
                print('cutoff', cut, mn, num)
    p += 8                      # the name section's tag and length

    def string(p):
        n, = struct.unpack_from('<I', b, p)
        return b[p + 4:p + 3 + n].decode(), p + 4 + n

    files = []
    if version >= 3:
        nfiles, = struct.unpack_from('<I', b, p)
        p += 4
        for _ in range(nfiles):
            f, p = string(p)
            files.append(f)
    nstr, = struct.unpack_from('<I', b, p)
    p += 4
    names = []
    for _ in range(nstr):
        name, p = string(p)
        names.append(name)
        if version >= 3:
            fi, = struct.unpack_from('<I', b, p)
            p += 4
            if mode == '--files':
                print(name or '""', files[fi] if fi < len(files) else '-')
    _, _, nfn = struct.unpack_from('<3I', b, p)
    p += 12

    bad = []
    quiet = mode in ('--heads', '--files', '--summary')

    def inst(p, name):
        idx, npos, nkids = struct.unpack_from('<3I', b, p)
        if idx == 0:
            bad.append(name)
        p += 12
        for _ in range(npos):
            key, ntgt = struct.unpack_from('<2I', b, p)
            count, = struct.unpack_from('<Q', b, p + 8)
            if not quiet:
                print(name, key >> 16, key & 0xffff, count)
            p += 16 + 20 * ntgt
        for _ in range(nkids):
            key, = struct.unpack_from('<I', b, p)
            callee, = struct.unpack_from('<I', b, p + 4)
            if not quiet:
                print(name, key >> 16, key & 0xffff, 'inline', names[callee])
            p = inst(p + 4, names[callee])
        return p

    for _ in range(nfn):
        head, = struct.unpack_from('<Q', b, p)
        p += 8
        if version >= 3:
            p += 8              # the first-run timestamp
        fn, = struct.unpack_from('<I', b, p)
        if mode == '--heads':
            print(names[fn], head)
        p = inst(p, names[fn])
    if p + 12 != len(b):
        print('%d bytes after the functions, not 12' % (len(b) - p), file=sys.stderr)
        sys.exit(2)
    if bad:
        print('string index 0 names %s' % bad[0], file=sys.stderr)
        sys.exit(3)


if __name__ == '__main__':
    # A reader that stops early (head -1) ends us quietly, as it would cat.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
