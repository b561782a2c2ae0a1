"""A teacher file without the positions of a judge set, so that a network trained on it is judged
on positions it never saw. The judge-like draw repeats positions, and the judge set is drawn the
same way: 107 of the 1,195 distinct Kalah(6,4) judge positions occur among the first 286,000
lines of seed 4. Writes OUT through a temporary name; prints what it left out.

    python experiments/midgame-teacher/without.py FILE --judge JUDGE_JSON [...] --out OUT [--json]
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path, help="a teach.py labels file")
    ap.add_argument("--judge", type=Path, nargs="+", required=True,
                    help="judge set files (checkpoints/judge/*.json)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    judge = {}
    for j in a.judge:
        for p in json.loads(j.read_text())["positions"]:
            judge[p["position"]] = p["source"]
    kept, found, lines = 0, set(), Counter()
    tmp = a.out.with_name(a.out.name + ".tmp")
    with a.file.open() as src, tmp.open("w") as dst:
        for line in src:
            if not line.endswith("\n"):
                break  # a line cut short by a stop of teach.py
            position = json.loads(line)["position"]
            if position in judge:
                found.add(position)
                lines[judge[position]] += 1
            else:
                dst.write(line)
                kept += 1
    os.replace(tmp, a.out)
    report = {"file": str(a.file), "out": str(a.out), "lines_kept": kept,
              "lines_left_out": sum(lines.values()), "judge_positions_found": len(found),
              "judge_positions": len(judge),
              "lines_left_out_by_source": dict(lines)}
    if a.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{kept} lines kept; {report['lines_left_out']} left out, holding "
              f"{len(found)} of the {len(judge)} judge positions ({dict(lines)})")


if __name__ == "__main__":
    main()
