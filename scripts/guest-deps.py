#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Resolve the riscv64 runtime closure of a few Debian packages.

apt cannot do this for a foreign architecture without dragging in host
packages, so this walks Depends/Pre-Depends over the riscv64 Packages
index of one suite. Architecture "all" packages are end points: their
own dependencies are interpreters and data the guest does not need.
Prints one package a line, qualified with its architecture unless "all".
"""
import re
import sys

# Interpreters perf can run without (it links libperl/libpython itself).
SKIP = {"perl", "perl-base", "python3", "python3-minimal", "debconf",
        "debconf-2.0", "dpkg", "install-info", "perl-modules-5.40",
        "libpython3.13-stdlib", "python3.13", "python3.13-minimal"}


def parse(path):
    pkgs, provides = {}, {}
    with open(path, encoding="utf-8") as f:
        for para in f.read().split("\n\n"):
            fields, key = {}, None
            for line in para.splitlines():
                if line[:1] in (" ", "\t") and key:
                    fields[key] += " " + line.strip()
                elif ":" in line:
                    key, val = line.split(":", 1)
                    fields[key] = val.strip()
            name = fields.get("Package")
            if not name or name in pkgs:
                continue
            pkgs[name] = fields
            for p in fields.get("Provides", "").split(","):
                p = p.strip().split(" ")[0]
                if p:
                    provides.setdefault(p, name)
    return pkgs, provides


def main():
    index, roots = sys.argv[1], sys.argv[2:]
    pkgs, provides = parse(index)
    todo, seen = list(roots), set()
    while todo:
        name = todo.pop()
        if name in seen or name in SKIP:
            continue
        if name not in pkgs:
            name = provides.get(name, name)
            if name not in pkgs:
                sys.exit(f"guest-deps: {name} is not in {index}")
        if name in seen:
            continue
        seen.add(name)
        fields = pkgs[name]
        if fields.get("Architecture") == "all":
            continue
        deps = fields.get("Pre-Depends", "") + "," + fields.get("Depends", "")
        for group in deps.split(","):
            alts = [re.sub(r"[ (:].*", "", a.strip()) for a in group.split("|")]
            alts = [a for a in alts if a]
            if not alts or any(a in SKIP for a in alts):
                continue
            pick = next((a for a in alts if a in pkgs or a in provides),
                        alts[0])
            todo.append(pick)
    for name in sorted(seen):
        arch = pkgs[name].get("Architecture")
        print(name if arch == "all" else f"{name}:{arch}")


if __name__ == "__main__":
    main()
