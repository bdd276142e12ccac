#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""counts.py ONE MANY K: is every count of the autofdo-text profile MANY
K times the same count of ONE, with the same keys (and ONE not empty)?
Prints how many differ; exits 0 if none does."""
import sys


def counts(path):
    lines = open(path).read().split('\n')
    out, i = {}, 0
    while i < len(lines) and lines[i]:
        n = int(lines[i])
        i += 1
        for line in lines[i:i + n]:
            k, v = line.rsplit(':', 1)
            out[k] = int(v)
        i += n
    return out


one, many, k = counts(sys.argv[1]), counts(sys.argv[2]), int(sys.argv[3])
bad = sum(1 for key in set(one) | set(many) if many.get(key) != k * one.get(key, 0))
print('%d of %d counts differ' % (bad, len(many)))
sys.exit(0 if one and not bad else 1)
