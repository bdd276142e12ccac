#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk-malformed.py FILE DIR [ROUNDS BUILD_ID]: write malformed variants
of a perf.data written by perf-ctr synth (one event,
IDENTIFIER|IP|TID|TIME|CPU|PERIOD|BRANCH_STACK) into DIR: each breaks
exactly one length, count or offset the reader must check. With ROUNDS
(a file with FINISHED_ROUND records) and BUILD_ID (a file with the
HEADER_BUILD_ID feature), those records and that feature too."""
import struct
import sys

src, outdir = sys.argv[1], sys.argv[2]
good = bytes(open(src, 'rb').read())
attr_size, a_off = struct.unpack_from('<QQ', good, 16)
d_off, d_size = struct.unpack_from('<QQ', good, 40)


def first(rtype):
    off = d_off
    while off < d_off + d_size:
        t, _, size = struct.unpack_from('<IHH', good, off)
        if t == rtype:
            return off
        off += size
    raise SystemExit('no record of type %d' % rtype)


def put(name, data):
    open('%s/%s' % (outdir, name), 'wb').write(data)


def patch(fmt, off, val):
    b = bytearray(good)
    struct.pack_into(fmt, b, off, val)
    return bytes(b)


sample = first(9)
put('trunc-header', good[:50])
put('bad-magic', patch('<Q', 0, 0x1234))
put('bad-attr-size', patch('<Q', 16, 7))
put('attrs-beyond-eof', patch('<Q', 32, 1 << 20))
put('data-beyond-eof', patch('<Q', 48, d_size + 4096))
put('trunc-data', good[:d_off + d_size - 20])
put('rec-size-0', patch('<H', d_off + 6, 0))
put('rec-beyond-end', patch('<H', d_off + 6, 0xfff8))
# nr sits after the 6 fixed fields of the sample.
put('nr-beyond-record', patch('<Q', sample + 8 + 6 * 8, 1000))
put('nr-huge', patch('<Q', sample + 8 + 6 * 8, 1 << 62))
put('sample-cut-short', patch('<H', sample + 6, 16))
# The first attr's ids section: {offset, size} ends the attr.
put('ids-beyond-eof', patch('<Q', a_off + attr_size - 16, 1 << 40))


# The feature table, and the build ids it leads to (read before the data).
if len(sys.argv) > 4:
    good = bytes(open(sys.argv[4], 'rb').read())
    d_off, d_size = struct.unpack_from('<QQ', good, 40)
    ftab = d_off + d_size
    sec_off, sec_size = struct.unpack_from('<QQ', good, ftab)
    put('feature-table-beyond-eof', patch('<Q', 48, len(good) - d_off - 8))
    put('build-ids-beyond-eof', patch('<Q', ftab + 8, 1 << 20))
    put('build-id-size-0', patch('<H', sec_off + 6, 0))
    put('build-id-name-unterminated', patch('<H', sec_off + 6, 40))
# A FINISHED_ROUND record shorter than its header.
if len(sys.argv) > 3:
    good = bytes(open(sys.argv[3], 'rb').read())
    d_off = struct.unpack_from('<Q', good, 40)[0]
    put('round-size-4', patch('<H', first(68) + 6, 4))
