#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mk-two-events.py FILE DIR: from a perf.data of two events (perf-ctr
synth --events 2), into DIR:
  ids-overlap  both events' id sections cover the whole file
  id-moves     both with ID but no IDENTIFIER, the second without TIME:
               their samples place the id at different offsets"""
import struct
import sys

IDENTIFIER, ID, TIME = 1 << 16, 1 << 6, 1 << 2
good = bytes(open(sys.argv[1], 'rb').read())
attr_size, a_off, a_size = struct.unpack_from('<QQQ', good, 16)
overlap, moves = bytearray(good), bytearray(good)
for i in range(a_size // attr_size):
    at = a_off + i * attr_size
    struct.pack_into('<QQ', overlap, at + attr_size - 16, 0, len(good) & ~7)
    st = (struct.unpack_from('<Q', good, at + 24)[0] & ~IDENTIFIER) | ID
    struct.pack_into('<Q', moves, at + 24, st & ~TIME if i else st)
open(sys.argv[2] + '/ids-overlap', 'wb').write(overlap)
open(sys.argv[2] + '/id-moves', 'wb').write(moves)
