#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copy a perf.data (file mode) with the size of its first data record
set to 0: a file the reader must refuse, naming the offset."""
import struct
import sys

b = bytearray(open(sys.argv[1], 'rb').read())
d_off = struct.unpack_from('<Q', b, 40)[0]
struct.pack_into('<H', b, d_off + 6, 0)
open(sys.argv[2], 'wb').write(b)
