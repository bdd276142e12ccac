#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.py NAME LOG: turn a guest console log into test results.

Prints one line per result, "PASS|FAIL|SKIP NAME: test", for:
- KUnit cases (indented TAP in kernel lines),
- TAP results of the guest's programs and scripts (user lines), checked
  against their plans, so that a program that dies early fails;
- the guest run itself: it must reach its final line;
- the kernel log: no WARN, BUG, oops, lockdep, KASAN or UBSAN report.
"""
import re
import sys

KLINE = re.compile(r"^\[\s*\d+\.\d+\] ?(.*)$")
RESULT = re.compile(r"^(not )?ok (\d+) (?:- )?(.*?)(?:\s+#\s*(SKIP|skip)\b\s*(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
BAD = re.compile(r"(WARNING:|BUG:|Oops|Unable to handle kernel|Kernel panic|"
                 r"KASAN:|UBSAN:|INFO: possible|INFO: task .* blocked|"
                 r"cut here|rcu_.*stall|watchdog: BUG|general protection|"
                 # A refused remote fence: no CPU was flushed.
                 r"sbi_rfence.*failed)")


def main():
    name, path = sys.argv[1], sys.argv[2]
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    out = []
    bad = []
    done = False
    # A TAP stream is a plan (1..N) and its results, the plan first or
    # last. Every stream must deliver as many results as it planned.
    plan, seen = None, 0

    def close(expected):
        if seen != expected:
            out.append(("FAIL", f"planned {expected} results, got {seen}"))

    for line in lines:
        m = KLINE.match(line)
        if m:
            text = m.group(1)
            if BAD.search(text):
                bad.append(text.strip())
            r = RESULT.match(text.strip())
            # KUnit cases are indented; the suite summaries are not.
            if r and text.startswith("    ") and not text.startswith("        "):
                out.append(verdict(r, "kunit"))
            continue
        if line.startswith("ctr-guest: ") and " exited with " in line:
            done = True
        if BAD.search(line) and line.startswith("dmesg: "):
            k = KLINE.match(line[7:])
            bad.append((k.group(1) if k else line[7:]).strip())
        p = PLAN.match(line)
        if p:
            if plan is not None:
                close(plan)
            elif seen:
                close(int(p.group(1)))
                seen = 0
                continue
            plan, seen = int(p.group(1)), 0
            continue
        r = RESULT.match(line)
        if r:
            # Numbering restarts: a new stream began before this one ended.
            if r.group(2) == "1" and seen and plan is not None:
                close(plan)
                plan, seen = None, 0
            seen += 1
            out.append(verdict(r, None))
            if seen == plan:
                plan, seen = None, 0
    if plan is not None:
        close(plan)
    elif seen:
        out.append(("FAIL", f"{seen} results without a plan"))
    out.append(("PASS" if done else "FAIL", "guest run completed"))
    if bad:
        # Name the report in the result itself: a CI log may show only it.
        first = next((b for b in bad if "cut here" not in b), bad[0])
        out.append(("FAIL", f"no kernel warnings or errors ({first})"))
    else:
        out.append(("PASS", "no kernel warnings or errors"))
    for b in bad[:20]:
        print(f"#   {name} kernel: {b}")
    for v, t in out:
        print(f"{v} {name}: {t}")


def verdict(r, kind):
    failed, test, skip, why = r.group(1), r.group(3), r.group(4), r.group(5)
    test = f"{kind}: {test}" if kind else test
    if skip:
        return ("SKIP", f"{test} ({why.strip() or 'no reason given'})")
    return ("FAIL" if failed else "PASS", test)


if __name__ == "__main__":
    main()
