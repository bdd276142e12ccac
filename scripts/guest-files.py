#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""guest-files.py LOG DIR: save the files a guest printed on its console.

The guest has no shared folder: a file comes out as base64 between a
'ctr-file-begin NAME' and a 'ctr-file-end' line, gzip'ed or not; one
whose NAME does not end in .gz is saved unpacked. Prints the saved
paths; exits 1 when a block does not decode.
"""
import base64
import binascii
import gzip
import os
import sys
import zlib


def main():
    log, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    name, chunks, rc = None, [], 0
    with open(log, errors='replace') as f:
        for line in f:
            line = line.strip()
            if line.startswith('ctr-file-begin '):
                name, chunks = os.path.basename(line.split(None, 1)[1]), []
            elif line == 'ctr-file-end' and name:
                try:
                    data = base64.b64decode(''.join(chunks), validate=True)
                    if data[:2] == b'\x1f\x8b' and not name.endswith('.gz'):
                        data = gzip.decompress(data)
                except (binascii.Error, ValueError, OSError, EOFError,
                        zlib.error) as e:
                    print(f'{log}: {name}: does not decode: {e}',
                          file=sys.stderr)
                    rc = 1
                else:
                    path = os.path.join(out, name)
                    with open(path, 'wb') as g:
                        g.write(data)
                    print(path)
                name = None
            elif name:
                chunks.append(line)
    return rc


if __name__ == '__main__':
    sys.exit(main())
