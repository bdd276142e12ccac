#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""probe-edit.py IN OUT [EDIT...]: rewrite a .pseudo_probe section (the
raw bytes objcopy --dump-section writes) for the tests of perf-ctr's
decoder and of its llvm-probe profile against llvm-profgen's.

Clang 19 emits no call probes for RISC-V, nor sentinels or inline sites
of index 0 without a profile to split functions by; these edits add
them, so that both tools meet them on the same binary:

  start=NAME=ADDR            NAME starts at ADDR (hex): every function
                             with probes needs one, for its first delta
  call=NAME:INDEX:TYPE:ADDR  a call probe (TYPE 1 indirect, 2 direct) of
                             NAME's own at ADDR
  sentinel=NAME:PART:INDEX:OFF  after NAME's own probes, a sentinel with
                             the GUID of the symbol PART, then probe
                             INDEX at PART's start + OFF
  zero-site=NAME             NAME's inline sites, wherever it is inlined,
                             become index 0
  truncate=N                 keep the first N bytes of the output
  corrupt=OFF                set byte OFF of the output to 0xff
"""
import hashlib
import struct
import sys


def guid(name):
    return struct.unpack('<Q', hashlib.md5(name.encode()).digest()[:8])[0]


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def u8(self):
        self.p += 1
        return self.d[self.p - 1]

    def u64(self):
        self.p += 8
        return struct.unpack_from('<Q', self.d, self.p - 8)[0]

    def leb(self):
        """A LEB128 number's bits, how many, and its last byte."""
        v = s = 0
        while True:
            b = self.u8()
            v |= (b & 0x7f) << s
            s += 7
            if not b & 0x80:
                return v, s, b

    def uleb(self):
        return self.leb()[0]

    def sleb(self):
        v, s, b = self.leb()
        return v - (1 << s) if b & 0x40 else v


def decode(data, starts):
    """The forest, each probe with its absolute address (sentinels kept)."""
    r, forest, last = Reader(data), [], [0]

    def node(top):
        site = None if top else r.uleb()
        n = {'site': site, 'guid': r.u64(), 'probes': [], 'kids': []}
        if top:
            last[0] = starts[n['guid']]
        nprobes, nkids = r.uleb(), r.uleb()
        for _ in range(nprobes):
            index, tb = r.uleb(), r.u8()
            attr = (tb >> 4) & 7
            raw = None
            if tb & 0x80:
                addr = last[0] + r.sleb()
            else:
                addr = raw = r.u64()
                if attr & 2:
                    addr = starts[raw]
            disc = r.uleb() if attr & 4 else None
            n['probes'].append([index, tb & 0xf, attr, addr, disc, raw])
            last[0] = addr
        n['kids'] = [node(False) for _ in range(nkids)]
        return n

    while r.p < len(data):
        forest.append(node(True))
    return forest


def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def sleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7f, v >> 7
        done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
        out.append(b | (0 if done else 0x80))
        if done:
            return bytes(out)


def encode(forest, starts_by_guid):
    out, last = bytearray(), [0]

    def node(n, top):
        if not top:
            out.extend(uleb(n['site']))
        out.extend(struct.pack('<Q', n['guid']))
        if top:
            last[0] = starts_by_guid[n['guid']]
        out.extend(uleb(len(n['probes'])) + uleb(len(n['kids'])))
        for index, typ, attr, addr, disc, raw in n['probes']:
            out.extend(uleb(index))
            if attr & 2:
                # a sentinel: the part's GUID, its start the new base
                out.append(typ | attr << 4)
                out.extend(struct.pack('<Q', raw))
            else:
                out.append(0x80 | typ | attr << 4)
                out.extend(sleb(addr - last[0]))
            if attr & 4:
                out.extend(uleb(disc))
            last[0] = addr
        for k in n['kids']:
            node(k, False)

    for n in forest:
        node(n, True)
    return bytes(out)


def walk(forest):
    for n in forest:
        yield n
        yield from walk(n['kids'])


def main():
    data = open(sys.argv[1], 'rb').read()
    edits = [a.split('=', 1) for a in sys.argv[3:]]
    starts, names = {}, {}
    for k, v in edits:
        if k == 'start':
            name, addr = v.rsplit('=', 1)
            starts[guid(name)] = int(addr, 16)
            names[name] = int(addr, 16)
    forest = decode(data, starts)
    tops = {n['guid']: n for n in forest}
    for k, v in edits:
        if k == 'call':
            name, index, typ, addr = v.split(':')
            tops[guid(name)]['probes'].append(
                [int(index), int(typ), 0, int(addr, 16), None, None])
        elif k == 'sentinel':
            name, part, index, off = v.split(':')
            tops[guid(name)]['probes'] += [
                [0, 0, 2, names[part], None, guid(part)],
                [int(index), 0, 0, names[part] + int(off, 16), None, None]]
        elif k == 'zero-site':
            for n in walk(forest):
                if n['site'] is not None and n['guid'] == guid(v):
                    n['site'] = 0
    out = encode(forest, starts)
    for k, v in edits:
        if k == 'truncate':
            out = out[:int(v)]
        elif k == 'corrupt':
            out = out[:int(v)] + b'\xff' + out[int(v) + 1:]
    open(sys.argv[2], 'wb').write(out)


main()
