#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk-foreign.py IN OUT [EVERY [drop]]: copy a perf.data of one event
(perf-ctr synth) with every EVERY-th sample (default 10) moved to
pid/tid 4343, a process the recording never maps anything for (synth's
is 4242): as the shell's last samples before it execs the program, their
addresses are not the program's, though they are numbers in its text.
With drop, those samples become records of a type no reader knows
(0x7ffe), which readers skip: the recording as if they had not been
taken."""
import struct
import sys

SAMPLE, IDENTIFIER, IP, TID = 9, 1 << 16, 1 << 0, 1 << 1
b = bytearray(open(sys.argv[1], 'rb').read())
every = int(sys.argv[3]) if len(sys.argv) > 3 else 10
drop = sys.argv[4:] == ['drop']
a_off = struct.unpack_from('<Q', b, 24)[0]
d_off, d_size = struct.unpack_from('<QQ', b, 40)
st = struct.unpack_from('<Q', b, a_off + 24)[0]
if not st & TID:
    sys.exit('mk-foreign.py: samples without a pid')
pid_at = 8 + 8 * bool(st & IDENTIFIER) + 8 * bool(st & IP)
at, n = d_off, 0
while at < d_off + d_size:
    typ, size = struct.unpack_from('<IxxH', b, at)
    if not size:
        sys.exit('mk-foreign.py: a record of size 0 at %d' % at)
    if typ == SAMPLE:
        if n % every == every - 1 and drop:
            struct.pack_into('<I', b, at, 0x7ffe)
        elif n % every == every - 1:
            struct.pack_into('<II', b, at + pid_at, 4343, 4343)
        n += 1
    at += size
open(sys.argv[2], 'wb').write(b)
