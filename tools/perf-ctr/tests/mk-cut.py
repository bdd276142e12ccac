#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut a finished perf.data (file mode) the ways a recording ends up cut
in use, into DIR: 'killed' as perf record leaves it when it is killed
(the data size in the header still 0, no feature sections, the last
sample cut in the middle) and 'copy' as a copy cut short (the header
intact, the file ending inside the last sample). Prints the number of
whole samples each keeps, as 'NAME N'."""
import struct
import sys

src, outdir = sys.argv[1], sys.argv[2]
b = bytes(open(src, 'rb').read())
d_off, d_size = struct.unpack_from('<QQ', b, 40)
samples = []
off = d_off
while off < d_off + d_size:
    t, _, size = struct.unpack_from('<IHH', b, off)
    if t == 9:
        samples.append(off)
    off += size
if len(samples) < 2:
    raise SystemExit('%s: fewer than two samples' % src)
cut = samples[-1] + 10
killed = bytearray(b[:cut])
struct.pack_into('<Q', killed, 48, 0)
open('%s/killed' % outdir, 'wb').write(killed)
open('%s/copy' % outdir, 'wb').write(b[:cut])
print('killed', len(samples) - 1)
print('copy', len(samples) - 1)
