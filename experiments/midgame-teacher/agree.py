"""How often networks alone play the teacher's move on teacher-labelled positions (teach.py's
files): the fit on positions a run trained on, and on positions drawn from another seed.

    python experiments/midgame-teacher/agree.py --networks A B ... --files F ... [--positions N] [--json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

import kalaha
from kalaha.research import pick


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", nargs="+", required=True)
    ap.add_argument("--files", type=Path, nargs="+", required=True)
    ap.add_argument("--positions", type=int, default=20_000, help="the first N lines of each file")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    nets = {n: kalaha.Network.load(n) for n in a.networks}
    report = []
    for f in a.files:
        rows = []
        with f.open() as fh:
            for line in fh:
                rows.append(json.loads(line))
                if len(rows) >= a.positions:
                    break
        if not rows:
            ap.error(f"{f} holds no labelled position")
        ps = [kalaha.Position(r["position"]) for r in rows]
        obs = np.stack([p.observation() for p in ps]).astype(np.float32)
        mask = np.stack([p.action_mask() for p in ps])
        for name, net in nets.items():
            acts = pick(net(obs, mask), mask) + 1
            hit = np.array([r["moves"][str(int(x))] == r["value"] for x, r in zip(acts, rows)])
            report.append({"file": f.name, "network": name, "positions": len(rows),
                           "agreement": round(float(hit.mean()), 4)})
    if a.json:
        print(json.dumps(report, indent=1))
        return
    for r in report:
        print(f"{r['file']}  {r['network']}: the teacher's move in {100 * r['agreement']:.1f}% "
              f"of {r['positions']}")


if __name__ == "__main__":
    main()
