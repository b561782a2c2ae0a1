"""A teacher file made set-valued: every move a teach.py line values within ``--within`` seeds of
its searched move becomes optimal too (its value raised to the line's ``value``), so that the
set-valued policy loss (``optim.policy_loss = "set"``) lets the network put its probability on
any of them. The ablation of the teacher's one-move lines (kalah64-teacher-scale).

    python experiments/midgame-teacher/widen.py FILE --out OUT [--within D] [--json]

teach.py writes each other move's rounded Q, at most ``value - 1``, so ``--within 1`` (the
default) takes in every move the search valued as high as its own and every move a seed below.
The file is written to a temporary name and renamed; a line that does not parse is an error that
names it.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--within", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.within < 0:
        ap.error("--within is 0 seeds or more")
    if not a.file.exists():
        ap.error(f"no teacher file at {a.file}")
    if a.out.resolve() == a.file.resolve():
        ap.error("--out must not be the file read")
    lines = widened = moves = 0
    sizes: dict[int, int] = {}
    tmp = a.out.with_name(a.out.name + ".tmp")
    with a.file.open() as src, tmp.open("w") as dst:
        for n, line in enumerate(src, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                value, before = r["value"], r["moves"]
                after = {k: (value if v >= value - a.within else v) for k, v in before.items()}
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                tmp.unlink()
                ap.exit(2, f"widen.py: line {n} of {a.file} is not a teacher line ({e})\n")
            best = sum(v == value for v in after.values())
            sizes[best] = sizes.get(best, 0) + 1
            lines += 1
            widened += best > sum(v == value for v in before.values())
            moves += best
            r["moves"] = after
            dst.write(json.dumps(r) + "\n")
    os.replace(tmp, a.out)
    report = {"file": str(a.file), "out": str(a.out), "within": a.within, "lines": lines,
              "widened_lines": widened, "mean_optimal_moves": round(moves / max(lines, 1), 4),
              "optimal_moves": {str(k): sizes[k] for k in sorted(sizes)}}
    if a.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{lines} lines, {widened} widened; {report['mean_optimal_moves']} optimal moves a "
              f"line on average -> {a.out}")


if __name__ == "__main__":
    main()
