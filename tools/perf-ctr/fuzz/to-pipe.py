#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Rewrite a file-mode perf.data as pipe mode: the attrs become
PERF_RECORD_HEADER_ATTR records (attr, then its ids) before the data."""
import struct
import sys

src = open(sys.argv[1], 'rb').read()
magic, hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from('<7Q', src, 0)
out = bytearray(struct.pack('<QQ', magic, 16))
for off in range(a_off, a_off + a_size, attr_size):
    attr = src[off:off + attr_size - 16]
    ids_off, ids_size = struct.unpack_from('<QQ', src, off + attr_size - 16)
    body = attr + src[ids_off:ids_off + ids_size]
    out += struct.pack('<IHH', 64, 0, 8 + len(body)) + body
out += src[d_off:d_off + d_size]
open(sys.argv[2], 'wb').write(out)
