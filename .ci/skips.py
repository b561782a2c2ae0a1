#!/usr/bin/env python3
"""Fails a pytest run that skipped what it must not: reads pytest's JUnit XML report, prints every
skipped test with its reason, and exits 1 if any skip matches no line of the allowed-skips file
(`test-id-substring: reason-substring` a line, `#` comments), or if no test ran at all.

    python3 .ci/skips.py REPORT.xml [--allowed .ci/allowed-skips]
"""

import argparse
import sys
import xml.etree.ElementTree as ET


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--allowed", default=".ci/allowed-skips")
    a = ap.parse_args()
    allowed = []
    with open(a.allowed) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                test, _, reason = line.partition(":")
                allowed.append((test.strip(), reason.strip()))
    root = ET.parse(a.report).getroot()
    ran = skipped = 0
    bad = []
    for case in root.iter("testcase"):
        ran += 1
        name = f"{case.get('classname')}::{case.get('name')}"
        for s in case.findall("skipped"):
            skipped += 1
            reason = s.get("message") or s.text or ""
            ok = any(t in name and r in reason for t, r in allowed)
            print(f"skipped{'' if ok else ' (NOT ALLOWED)'}: {name}: {reason}")
            if not ok:
                bad.append(name)
    print(f"{a.report}: {ran} tests, {skipped} skipped, {len(bad)} not allowed")
    if ran == 0:
        sys.exit(f"{a.report}: no test ran")
    if bad:
        sys.exit(f"{len(bad)} tests skipped that CI requires (see {a.allowed}): {', '.join(bad)}")


if __name__ == "__main__":
    main()
