#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""afdo-overlap.py: how well a sampled profile's line counts match exact ones.

  afdo-overlap.py [--keep DIR] LINES GCOV [GCOV...]

LINES is `perf-ctr aggregate -f lines` output ("file:line count" a line);
GCOV is gcov's JSON (`gcov --json-format --stdout`: one or more JSON
documents, one after the other, or a .gcov.json.gz file) of a --coverage
build run on the same inputs. Both are keyed by (basename of the file,
line): the counts of a key that appears under several paths or in several
translation units are added. With --keep, only files under DIR count (the
program's own sources, not /usr/include). Each side is normalised to sum
1 over the union of keys, and the overlap, the sum over the keys of
min(p, q), is printed: 1 when the two distributions are the same, 0 when
they share no line.

  --gcov-lines FILE   also write gcov's counts as "file:line count" lines
"""
import argparse
import collections
import gzip
import json
import os
import sys


def kept(path, keep):
    path = os.path.normpath(path)
    if not keep:
        return not path.startswith('/usr/')
    return any(path == k or path.startswith(k + os.sep) for k in keep)


def read_lines(path, keep):
    counts = collections.Counter()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            loc, _, count = line.rpartition(' ')
            file, _, lineno = loc.rpartition(':')
            if not file or not lineno.isdigit():
                sys.exit(f'{path}:{n}: not "file:line count": {line!r}')
            if kept(file, keep):
                counts[(os.path.basename(file), int(lineno))] += float(count)
    return counts


def json_documents(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        text = f.read()
    dec = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        doc, i = dec.raw_decode(text, i)
        yield doc


def read_gcov(paths, keep):
    counts = collections.Counter()
    full = collections.Counter()
    for path in paths:
        for doc in json_documents(path):
            cwd = doc.get('current_working_directory', '')
            for f in doc.get('files', []):
                file = os.path.join(cwd, f['file'])
                if not kept(file, keep):
                    continue
                for ln in f.get('lines', []):
                    counts[(os.path.basename(file), ln['line_number'])] += ln['count']
                    full[(file, ln['line_number'])] += ln['count']
    return counts, full


def overlap(p, q):
    sp, sq = sum(p.values()), sum(q.values())
    if not sp or not sq:
        return 0.0
    return sum(min(p.get(k, 0) / sp, q.get(k, 0) / sq) for k in set(p) | set(q))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--keep', action='append', default=[])
    ap.add_argument('--gcov-lines')
    ap.add_argument('lines')
    ap.add_argument('gcov', nargs='+')
    a = ap.parse_args()
    keep = [os.path.normpath(k) for k in a.keep]
    p = read_lines(a.lines, keep)
    q, full = read_gcov(a.gcov, keep)
    if not p:
        sys.exit(f'{a.lines}: no line of the kept sources')
    if not q:
        sys.exit('gcov: no line of the kept sources')
    if a.gcov_lines:
        with open(a.gcov_lines, 'w') as f:
            for (file, line), c in sorted(full.items()):
                f.write(f'{file}:{line} {c}\n')
    print(f'{overlap(p, q):.4f}')


if __name__ == '__main__':
    main()
