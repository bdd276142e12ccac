#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write OUT: the perf.data TEMPLATE (written by `perf-ctr synth --depth N
--no-hw-idx`, one event, IDENTIFIER|IP|TID|TIME|CPU|PERIOD|BRANCH_STACK)
with its data replaced by one sample at IP whose branch stack is the
given records, youngest first, each FROM/TO/TYPE[/NEW_TYPE] (hex
addresses, decimal perf_branch_entry types). No mappings, no features:
aggregate takes the addresses as the binary's link-time ones.

  mk-branch-stack.py TEMPLATE OUT IP FROM/TO/TYPE[/NEW_TYPE]..."""
import struct
import sys

tmpl, out, ip = sys.argv[1], sys.argv[2], int(sys.argv[3], 16)
good = bytes(open(tmpl, 'rb').read())
a_off, a_size = struct.unpack_from('<QQ', good, 24)
d_off, d_size = struct.unpack_from('<QQ', good, 40)
if a_off + a_size > d_off:
    raise SystemExit('attrs after the data')

off = d_off
while off < d_off + d_size:
    t, misc, size = struct.unpack_from('<IHH', good, off)
    if t == 9:
        break
    off += size
else:
    raise SystemExit('no sample')
# id, ip, pid/tid, time, cpu/res, period: keep all but the ip
sid, _, tid, time, cpu, period = struct.unpack_from('<6Q', good, off + 8)

recs = []
for r in sys.argv[4:]:
    f = r.split('/')
    frm, to, typ = int(f[0], 16), int(f[1], 16), int(f[2])
    new_type = int(f[3]) if len(f) > 3 else 0
    flags = (1 << 1)            # predicted
    flags |= 1 << 4             # cycles = 1
    flags |= (typ & 15) << 20   # type
    flags |= (new_type & 15) << 26
    flags |= 1 << 30            # priv = PERF_BR_PRIV_USER
    recs.append(struct.pack('<QQQ', frm, to, flags))
body = struct.pack('<6Q', sid, ip, tid, time, cpu, period)
body += struct.pack('<Q', len(recs)) + b''.join(recs)
sample = struct.pack('<IHH', 9, misc, 8 + len(body)) + body

hdr = bytearray(good[:d_off])
struct.pack_into('<Q', hdr, 48, len(sample))   # data size
hdr[72:104] = bytes(32)                         # no features
open(out, 'wb').write(bytes(hdr) + sample)
